# SPDX-License-Identifier: GPL-2.0-or-later
package QemuSystem;
# Running programs of another architecture under full-system emulation
# (or, sys_native, the same jobs on this host where it can run them):
# Debian's kernel for it (fetched by scripts/fetch-kernel), or where
# Debian 12 has none one built by scripts/build-kernel, booted by
# qemu-system-ARCH with an initramfs of the programs, that architecture's
# C library and t/src/trace/sys/init.c as /init, which runs the jobs and
# reports on the console.  One implementation for every guest, the rows
# of guests.tab (t/79-trace-system.t runs them).
#
# Why not qemu-user: it translates guest code into blocks and drops a
# block when the guest writes its page through a writable mapping (it
# write-protects the host page), but a write through /proc/self/mem goes
# past that: qemu-user 7.2 keeps running the old code.  Full-system
# emulation tracks every write to a page it has translated code from,
# whoever makes it (the guests' machine check shows it with
# t/src/trace/sys/smc.c).
use strict;
use warnings;

use Exporter 'import';
use TestUtil qw($TOP run_cmd must tmpdir slurp spit have);
use MIME::Base64 qw(decode_base64);
use IO::Uncompress::Inflate qw(inflate);
use RecordMcount::Arch qw(arch_row);

our @EXPORT_OK = qw(%SYS @GUESTS sys_missing sys_boot sys_native);

# What differs between the guests: their rows of guests.tab (beside
# arches.tab, which says what each column means), each completed from
# its row of arches.tab: { name, arch, qemu, board, cpu, kernel (a path),
# source, console, ldso (the interpreter's path from the root), timeout,
# module, checks => [...], smp, firmware, qemu_opts => [...], ldso_dir,
# libdir, sysroot, multiarch, cc, cxx, own_text, triple, qemu_user, lib
# (the directory of its libmcount-trace.so and .a), tracer }.  The
# guest's layout is Debian's: the dynamic linker where its programs'
# interpreter says, the C library in /lib/MULTIARCH/ (the first directory
# of the linker's own search path).  The cross compiler's dynamic linker
# is in its sysroot's lib (or ldso_dir), its C library too (libdir: this
# host's is in lib/x86_64-linux-gnu under /usr).
our %SYS;
our @GUESTS;    # their names, in the table's order
{
    my $tab = "$TOP/guests.tab";
    open(my $fh, '<', $tab) or die "$tab: $!";
    my @col = qw(name arch qemu board cpu kernel source console ldso timeout module checks);
    while (my $l = <$fh>) {
        next if $l =~ /\A\s*(?:#|\z)/;
        my @w = split ' ', $l;
        die "$tab:$.: fewer than " . scalar(@col) . " columns\n" if @w < @col;
        my %g;
        @g{@col} = splice @w, 0, scalar @col;
        for (@w) {
            my ($k, $v) = /\A(\w+)=(.*)\z/ or die "$tab:$.: '$_' is no KEY=WORD\n";
            if ($k eq 'qemu') {
                push @{ $g{qemu_opts} }, $v;
            } else {
                $g{$k} = $v;
            }
        }
        my $row = arch_row($g{arch}) // die "$tab:$.: $g{arch}: no row of arches.tab\n";
        my $t = $row->{triple};
        $g{checks} = [$g{checks} eq '-' ? () : split /,/, $g{checks}];
        $g{kernel} = "$TOP/$g{kernel}";
        %g = (smp => 2, cc => "$t-gcc-12", cxx => "$t-g++-12", sysroot => "/usr/$t", multiarch => $t,
            qemu_opts => [], %g, triple => $t, qemu_user => $row->{qemu}, tracer => $row->{tracer},
            lib => ($row->{build} // '') eq 'host' ? "$TOP/build" : "$TOP/build/$row->{tracer}");
        die "$tab:$.: two guests named $g{name}\n" if $SYS{ $g{name} };
        $SYS{ $g{name} } = \%g;
        push @GUESTS, $g{name};
    }
    close $fh;
}

# qemu's -cpu for CPU ("-": none, qemu's own)
sub _cpu {
    my ($cpu) = @_;
    return $cpu eq '-' ? () : ('-cpu', $cpu);
}

sub _sys {
    my ($arch) = @_;
    return $SYS{$arch} // die "QemuSystem: no guest '$arch' (guests.tab)";
}

# What is missing to boot ARCH, as a message, or ''.
sub sys_missing {
    my ($arch) = @_;
    my $s = _sys($arch);
    my @m = grep { !have($_) } $s->{cc}, $s->{qemu};
    my ($how, $what) = split /:/, $s->{source}, 2;
    push @m, "$s->{kernel} (make " . ($how eq 'build' ? "builds it: scripts/build-kernel $what"
        : "fetches it: scripts/fetch-kernel $what") . ')' unless -s $s->{kernel};
    my $libc = "$s->{sysroot}/" . ($s->{libdir} // 'lib') . '/libc.so.6';
    push @m, $libc unless -e $libc;
    push @m, "$s->{firmware} (qemu-system-data)"
        if $s->{firmware} && !-e $s->{firmware};
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

# sys_boot(ARCH, files => { GUEST_PATH => HOST_FILE }, jobs => [{ name,
#   argv => [], env => {}, files => [GUEST_PATH...] }...], timeout => S,
#   smp => N, cpu => QEMU_CPU, libs => [NAME...])
# -> ({ NAME => { status, stdout, stderr, files => { PATH => data } },
#       '(done)' => every job ran, '(damaged)' => [a file that lost
#       lines on the console (a kernel message broke one), ...],
#       '(hung)' => [a line of init.c's on a job killed at its limit
#       (half the boot's): its threads' states and its code's mappings],
#       '(time)' => [[NAME, ms it ran, ms its files took to send]...] },
#     the console, qemu's wait status)
# Every job's program must be among the files; the dynamic linker (in
# /lib) and the C library (in /lib/TRIPLET) are added, and the libraries
# named in libs (such as libstdc++.so.6) from the cross compiler's.  A
# job's file PATH* is each file whose path starts with PATH (init.c).
# The CPU is the machine's default (aarch64: a Cortex-A57) unless cpu
# says otherwise.
sub sys_boot {
    my ($arch, %o) = @_;
    my $s = _sys($arch);
    my $dir = tmpdir();
    must($s->{cc}, '-O2', '-static', '-o', "$dir/init", "$TOP/t/src/trace/sys/init.c");
    my %files = (%{ $o{files} // {} }, '/init' => "$dir/init",
        "/$s->{ldso}" => "$s->{sysroot}/" . ($s->{ldso_dir} // 'lib') . '/' . ($s->{ldso} =~ s{.*/}{}r),
        map { ("/lib/$s->{multiarch}/$_" => "$s->{sysroot}/" . ($s->{libdir} // 'lib') . "/$_") }
            qw(libc.so.6 libm.so.6), @{ $o{libs} // [] });
    my $jobs = '';
    my $limit = int(($o{timeout} // 600) / 2);
    for my $j (@{ $o{jobs} }) {
        die "job name '$j->{name}'" unless $j->{name} =~ /\A[\w.-]+\z/;
        $jobs .= "job $j->{name}\nlimit $limit\n";
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
    # (the limit doubled: make check-all runs a guest beside another
    # test, and a boot took three times its time on a loaded machine)
    my ($st, $out, $err) = run_cmd(['timeout', '-k', '10', 2 * ($o{timeout} // 600),
        $s->{qemu}, '-M', $s->{board}, @{ $s->{qemu_opts} }, _cpu($o{cpu} // $s->{cpu}), '-smp', $o{smp} // $s->{smp},
        '-m', '512', '-nographic', '-no-reboot', '-kernel', $s->{kernel}, '-initrd', "$dir/initrd",
        '-append', "console=$s->{console} quiet loglevel=1 panic=-1"]);
    my (%r, $job, $file);
    for my $l (split /\r?\n/, $out) {
        next unless $l =~ s/\A.*?(?=@@@)//;
        if ($l =~ /\A\@\@\@job (\S+) status (-?\d+)\z/) {
            $job = $r{$1} = { status => $2, files => {} };
        } elsif ($job && $l =~ /\A\@\@\@file \S+ (\S+)\z/) {
            $file = $1;
            $job->{files}{$file} = '';
        } elsif ($job && defined $file && $l =~ m{\A\@\@\@z ([A-Za-z0-9+/=]+)\z}) {
            $job->{files}{$file} .= $1;
        } elsif ($l =~ /\A\@\@\@missing\z/ && $job && defined $file) {
            delete $job->{files}{$file};
        } elsif ($l =~ /\A\@\@\@eof (\d+)\z/) {
            if ($job && defined $file && exists $job->{files}{$file}) {
                # (a stream that lost a line fails its Adler-32)
                my ($z, $data) = (decode_base64($job->{files}{$file}), '');
                inflate(\$z => \$data, Strict => 1) or $data = '';
                push @{ $r{'(damaged)'} }, "$file: $1 bytes sent, " . length($data) . ' received'
                    if length($data) != $1;
                $job->{files}{$file} = $data;
            }
            $file = undef;
        } elsif ($l =~ /\A\@\@\@hung (.*)\z/) {
            push @{ $r{'(hung)'} }, $1;
        } elsif ($l =~ /\A\@\@\@time (\S+) (\d+) (\d+)\z/) {
            push @{ $r{'(time)'} }, [$1, $2, $3];
        } elsif ($l eq '@@@done') {
            $r{'(done)'} = 1;
        }
    }
    for my $name (keys %r) {
        next unless ref $r{$name} eq 'HASH';   # not '(damaged)''s, '(hung)''s or '(time)''s list
        $r{$name}{stdout} = delete $r{$name}{files}{"/out/$name.stdout"} // '';
        $r{$name}{stderr} = delete $r{$name}{files}{"/out/$name.stderr"} // '';
    }
    return (\%r, $out . $err, $st);
}

# sys_native(files => ..., jobs => ..., timeout => S) -> the same results
# as sys_boot's, the jobs run on this host (which runs the programs
# itself: i386 on an x86_64 host that can), one after the other, with
# the environment each job gives and nothing else.  The guest's paths
# are under a directory of their own: the files are linked there, and
# every argument and variable that is an absolute path gets its name
# (/tmp/x.json becomes ROOT/tmp/x.json); the dynamic linker and the C
# library are the host's.
sub sys_native {
    my (%o) = @_;
    my $root = tmpdir();
    mkdir "$root/tmp" or die "$root/tmp: $!";
    for my $g (sort keys %{ $o{files} // {} }) {
        my $d = $root;
        my @p = split m{/}, $g;
        for my $c (@p[1 .. $#p - 1]) {
            $d .= "/$c";
            -d $d or mkdir $d or die "$d: $!";
        }
        symlink($o{files}{$g}, "$root$g") or die "$root$g: $!";
    }
    my $in = sub { my ($v) = @_; return $v =~ m{\A/} ? "$root$v" : $v };
    my %r = ('(done)' => 1);
    for my $j (@{ $o{jobs} }) {
        my @env = map { "$_=" . $in->($j->{env}{$_}) } sort keys %{ $j->{env} // {} };
        my ($st, $out, $err) = run_cmd(['timeout', '-k', '10', $o{timeout} // 600, 'env', '-i', @env,
            map { $in->($_) } @{ $j->{argv} }]);
        my %files;
        for my $f (@{ $j->{files} // [] }) {
            my ($d, $base, $star) = $f =~ m{\A(.*)/([^/]*?)(\*?)\z} or next;
            opendir(my $dh, "$root$d") or next;
            $files{"$d/$_"} = slurp("$root$d/$_")
                for sort grep { ($star ? index($_, $base) == 0 : $_ eq $base) && -f "$root$d/$_" } readdir $dh;
        }
        $r{ $j->{name} } = { status => $st, stdout => $out, stderr => $err, files => \%files };
    }
    return (\%r, '', 0);
}

1;
