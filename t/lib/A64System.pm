# SPDX-License-Identifier: GPL-2.0-or-later
package A64System;
# Running aarch64 programs under full-system emulation: Debian's arm64
# kernel (build/aarch64/vmlinuz, fetched by scripts/fetch-kernel arm64)
# booted by qemu-system-aarch64 with an initramfs of the programs, the
# aarch64 C library and t/src/trace/a64/init.c as /init, which runs the
# jobs and reports on the console.
#
# Why not qemu-user: it translates guest code into blocks and drops a
# block when the guest writes its page through a writable mapping (it
# write-protects the host page), but a write through /proc/self/mem goes
# past that: qemu-user 7.2 keeps running the old code.  Full-system
# emulation tracks every write to a page it has translated code from,
# whoever makes it (t/79 checks this with a program of its own).
use strict;
use warnings;

use Exporter 'import';
use TestUtil qw($TOP run_cmd must tmpdir slurp spit have);

our @EXPORT_OK = qw($KERNEL $A64CC $A64CXX a64_missing a64_boot);

our $KERNEL = "$TOP/build/aarch64/vmlinuz";
our $A64CC = 'aarch64-linux-gnu-gcc-12';
our $A64CXX = 'aarch64-linux-gnu-g++-12';    # for C++ programs only (t/79's exceptions)
my $SYSROOT = '/usr/aarch64-linux-gnu';

# What is missing to boot, as a message, or ''.
sub a64_missing {
    my @m = grep { !have($_) } $A64CC, 'qemu-system-aarch64';
    push @m, "$KERNEL (make fetches it: scripts/fetch-kernel arm64)" unless -s $KERNEL;
    push @m, "$SYSROOT/lib/libc.so.6" unless -e "$SYSROOT/lib/libc.so.6";
    return @m ? 'not installed: ' . join(', ', @m) . ' (make deps)' : '';
}

# A cpio archive (newc) of [guest path, mode, data] entries.
sub _cpio {
    my (@e) = @_;
    my $out = '';
    my $ino = 1000;
    for my $x (@e, ['TRAILER!!!', 0, '']) {
        my ($name, $mode, $data) = @$x;
        $out .= sprintf('070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x',
            $ino++, $mode, 0, 0, 1, 0, length $data, 0, 0, 0, 0, length($name) + 1, 0);
        $out .= "$name\0";
        $out .= "\0" x ((4 - length($out) % 4) % 4);
        $out .= $data;
        $out .= "\0" x ((4 - length($out) % 4) % 4);
    }
    return $out;
}

# a64_boot(files => { GUEST_PATH => HOST_FILE }, jobs => [{ name, argv => [],
#   env => {}, files => [GUEST_PATH...] }...], timeout => S, smp => N,
#   cpu => QEMU_CPU, libs => [NAME...])
# -> ({ NAME => { status, stdout, stderr, files => { PATH => data } } },
#     the console, qemu's wait status)
# Every job's program must be among the files; the dynamic linker and the
# C library are added under /lib, and the libraries named in libs (such
# as libstdc++.so.6) from the cross compiler's.  A job's file PATH* is
# each file whose path starts with PATH (init.c).  The CPU is a
# Cortex-A57 (ARMv8.0: no pointer authentication, no BTI) unless cpu
# says otherwise.
sub a64_boot {
    my (%o) = @_;
    my $dir = tmpdir();
    must($A64CC, '-O2', '-static', '-o', "$dir/init", "$TOP/t/src/trace/a64/init.c");
    my %files = (%{ $o{files} // {} }, '/init' => "$dir/init",
        '/lib/ld-linux-aarch64.so.1' => "$SYSROOT/lib/ld-linux-aarch64.so.1",
        map { ("/lib/aarch64-linux-gnu/$_" => "$SYSROOT/lib/$_") } qw(libc.so.6 libm.so.6), @{ $o{libs} // [] });
    my $jobs = '';
    for my $j (@{ $o{jobs} }) {
        die "job name '$j->{name}'" unless $j->{name} =~ /\A[\w.-]+\z/;
        $jobs .= "job $j->{name}\n";
        $jobs .= "arg $_\n" for @{ $j->{argv} };
        $jobs .= "env $_=$j->{env}{$_}\n" for sort keys %{ $j->{env} // {} };
        $jobs .= "file $_\n" for @{ $j->{files} // [] };
        $jobs .= "run\n";
    }
    my (%dirs, @entries);
    for my $g (sort keys %files) {
        my @p = split m{/}, $g;
        for my $i (1 .. $#p - 1) {
            my $d = join '/', @p[0 .. $i];
            push @entries, [substr($d, 1), 040755, ''] unless $dirs{$d}++;
        }
        my $data = slurp($files{$g});
        push @entries, [substr($g, 1), (-x $files{$g} ? 0100755 : 0100644), $data];
    }
    push @entries, ['jobs', 0100644, $jobs], ['proc', 040755, ''], ['tmp', 040777, ''];
    spit("$dir/initrd", _cpio(@entries));
    my ($st, $out, $err) = run_cmd(['timeout', '-k', '10', $o{timeout} // 600,
        'qemu-system-aarch64', '-M', 'virt', '-cpu', $o{cpu} // 'cortex-a57', '-smp', $o{smp} // 2,
        '-m', '512', '-nographic', '-no-reboot', '-kernel', $KERNEL, '-initrd', "$dir/initrd",
        '-append', 'console=ttyAMA0 quiet panic=-1']);
    my (%r, $job, $file);
    for my $l (split /\r?\n/, $out) {
        next unless $l =~ s/\A.*?(?=@@@)//;
        if ($l =~ /\A\@\@\@job (\S+) status (-?\d+)\z/) {
            $job = $r{$1} = { status => $2, files => {} };
        } elsif ($job && $l =~ /\A\@\@\@file \S+ (\S+)\z/) {
            $file = $1;
            $job->{files}{$file} = '';
        } elsif ($job && defined $file && $l =~ /\A\@\@\@x ([0-9a-f]+)\z/) {
            $job->{files}{$file} .= pack 'H*', $1;
        } elsif ($l =~ /\A\@\@\@missing\z/ && $job && defined $file) {
            delete $job->{files}{$file};
        } elsif ($l eq '@@@eof') {
            $file = undef;
        } elsif ($l eq '@@@done') {
            $r{'(done)'} = 1;
        }
    }
    for my $name (keys %r) {
        next unless ref $r{$name};
        $r{$name}{stdout} = delete $r{$name}{files}{"/out/$name.stdout"} // '';
        $r{$name}{stderr} = delete $r{$name}{files}{"/out/$name.stderr"} // '';
    }
    return (\%r, $out . $err, $st);
}

1;
