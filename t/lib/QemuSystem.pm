# SPDX-License-Identifier: GPL-2.0-or-later
package QemuSystem;
# Running programs of another architecture under full-system emulation
# (or, sys_native, the same jobs on this host where it can run them):
# Debian's kernel for it (fetched by scripts/fetch-kernel), or where
# Debian 12 has none one built by scripts/build-kernel, booted by
# qemu-system-ARCH with an initramfs of the programs, that architecture's
# C library and t/src/trace/sys/init.c as /init, which runs the jobs and
# reports on the console.  One implementation for every architecture:
# A64System (t/79), RV64System (t/83) and ArmSystem (t/86) only name
# theirs; MipsTrace (t/90, t/92, t/93) and PPC64Trace (t/87, t/94, t/95)
# boot it for each ABI of one instruction set.
#
# Why not qemu-user: it translates guest code into blocks and drops a
# block when the guest writes its page through a writable mapping (it
# write-protects the host page), but a write through /proc/self/mem goes
# past that: qemu-user 7.2 keeps running the old code.  Full-system
# emulation tracks every write to a page it has translated code from,
# whoever makes it (t/79 and t/83 check this with t/src/trace/sys/smc.c).
use strict;
use warnings;

use Exporter 'import';
use TestUtil qw($TOP run_cmd must tmpdir slurp spit have);
use MIME::Base64 qw(decode_base64);
use IO::Uncompress::Inflate qw(inflate);

our @EXPORT_OK = qw(%SYS sys_missing sys_boot sys_native);

# What differs between the architectures.  The guest's layout is
# Debian's: the dynamic linker in /lib (the interpreter path its
# programs name; ppc64el's is /lib64, interp_dir), the C library in
# /lib/TRIPLET/ (the first directory of the linker's own search path).
# The cross compiler's dynamic linker is in its sysroot's lib (mips64el's
# in lib64: ldso_dir), its C library too (libdir: this host's is in
# lib/x86_64-linux-gnu under /usr).
our %SYS = (
    aarch64 => {
        qemu => 'qemu-system-aarch64', kernel => "$TOP/build/aarch64/vmlinuz", debarch => 'arm64',
        cc => 'aarch64-linux-gnu-gcc-12', cxx => 'aarch64-linux-gnu-g++-12',
        sysroot => '/usr/aarch64-linux-gnu', triplet => 'aarch64-linux-gnu',
        ldso => 'ld-linux-aarch64.so.1', console => 'ttyAMA0',
        # Cortex-A57 (ARMv8.0: no pointer authentication, no BTI) unless told
        machine => sub { ('-cpu', $_[0] // 'cortex-a57') },
    },
    # armhf programs on the arm64 kernel (CONFIG_COMPAT runs 32-bit EL0),
    # on a Cortex-A57, which executes AArch32 at EL0
    arm => {
        qemu => 'qemu-system-aarch64', kernel => "$TOP/build/aarch64/vmlinuz", debarch => 'arm64',
        cc => 'arm-linux-gnueabihf-gcc-12', cxx => 'arm-linux-gnueabihf-g++-12',
        sysroot => '/usr/arm-linux-gnueabihf', triplet => 'arm-linux-gnueabihf',
        ldso => 'ld-linux-armhf.so.3', console => 'ttyAMA0',
        machine => sub { ('-cpu', $_[0] // 'cortex-a57') },
    },
    # i386 programs on Debian's amd64 kernel (IA32 emulation), on a q35
    # PC whose CPU is qemu's most capable (rdtscp, rdpid); the C library
    # is the i686 cross compiler's (Debian's i386 glibc, laid out in its
    # multiarch directory, which the dynamic linker searches first)
    i386 => {
        qemu => 'qemu-system-x86_64', kernel => "$TOP/build/i386/vmlinuz", debarch => 'amd64',
        cc => 'i686-linux-gnu-gcc-12', cxx => 'i686-linux-gnu-g++-12',
        sysroot => '/usr/i686-linux-gnu', triplet => 'i386-linux-gnu',
        ldso => 'ld-linux.so.2', console => 'ttyS0', board => 'q35',
        machine => sub { ('-cpu', $_[0] // 'max') },
    },
    riscv64 => {
        qemu => 'qemu-system-riscv64', kernel => "$TOP/build/riscv64/vmlinux", debarch => 'riscv64',
        cc => 'riscv64-linux-gnu-gcc-12', cxx => 'riscv64-linux-gnu-g++-12',
        sysroot => '/usr/riscv64-linux-gnu', triplet => 'riscv64-linux-gnu',
        ldso => 'ld-linux-riscv64-lp64d.so.1', console => 'ttyS0',
        # the kernel is entered through OpenSBI, qemu's own copy (-bios default)
        firmware => '/usr/share/qemu/opensbi-riscv64-generic-fw_dynamic.bin',
        machine => sub { ('-bios', 'default', defined $_[0] ? ('-cpu', $_[0]) : ()) },
    },
    # the pseries machine (a guest of the POWER hypervisor's interface),
    # entered through SLOF, the firmware qemu's -kernel needs there; a
    # POWER9 unless told (ISA 3.0, no prefixed instructions)
    ppc64le => {
        qemu => 'qemu-system-ppc64', kernel => "$TOP/build/ppc64le/vmlinux", debarch => 'ppc64el',
        cc => 'powerpc64le-linux-gnu-gcc-12', cxx => 'powerpc64le-linux-gnu-g++-12',
        sysroot => '/usr/powerpc64le-linux-gnu', triplet => 'powerpc64le-linux-gnu',
        ldso => 'ld64.so.2', interp_dir => 'lib64', console => 'hvc0', board => 'pseries',
        firmware => '/usr/share/qemu/slof.bin',
        machine => sub { ('-cpu', $_[0] // 'power9') },
    },
    # the same machine big-endian, with a kernel built from the kernel's
    # source (scripts/build-kernel ppc64: Debian 12 has none), for
    # Debian's ppc64 (ELFv1) userland; a POWER9 unless told
    ppc64 => {
        qemu => 'qemu-system-ppc64', kernel => "$TOP/build/ppc64/vmlinux",
        cc => 'powerpc64-linux-gnu-gcc-12', cxx => 'powerpc64-linux-gnu-g++-12',
        sysroot => '/usr/powerpc64-linux-gnu', triplet => 'powerpc64-linux-gnu',
        ldso => 'ld64.so.1', interp_dir => 'lib64', console => 'hvc0', board => 'pseries',
        firmware => '/usr/share/qemu/slof.bin', built => 'scripts/build-kernel ppc64',
        machine => sub { ('-cpu', $_[0] // 'power9') },
    },
    # ppc32 programs on the same kernel (COMPAT)
    ppc => {
        qemu => 'qemu-system-ppc64', kernel => "$TOP/build/ppc64/vmlinux",
        cc => 'powerpc-linux-gnu-gcc-12', cxx => 'powerpc-linux-gnu-g++-12',
        sysroot => '/usr/powerpc-linux-gnu', triplet => 'powerpc-linux-gnu',
        ldso => 'ld.so.1', console => 'hvc0', board => 'pseries',
        firmware => '/usr/share/qemu/slof.bin', built => 'scripts/build-kernel ppc64',
        machine => sub { ('-cpu', $_[0] // 'power9') },
    },
    # the malta board (64-bit little-endian), loaded by qemu itself; a
    # MIPS64 release 2 CPU with an FPU, as Debian's mips64el userland
    # needs, unless told.  One CPU: the 5kc-malta kernel's SMP is the MT
    # ASE's, which no 64-bit CPU of qemu has (a thread switched out in
    # the middle of a site is what the fenced pages answer there).
    mips64el => {
        qemu => 'qemu-system-mips64el', kernel => "$TOP/build/mips64el/vmlinux", debarch => 'mips64el',
        cc => 'mips64el-linux-gnuabi64-gcc-12', cxx => 'mips64el-linux-gnuabi64-g++-12',
        sysroot => '/usr/mips64el-linux-gnuabi64', triplet => 'mips64el-linux-gnuabi64',
        ldso => 'ld.so.1', interp_dir => 'lib64', ldso_dir => 'lib64', console => 'ttyS0', board => 'malta',
        smp => 1,
        machine => sub { ('-cpu', $_[0] // 'MIPS64R2-generic') },
    },
    # the same board, 32-bit: Debian's 4kc-malta kernel, a MIPS32
    # release 2 CPU with an FPU (the 24Kf), as Debian's mipsel userland
    # needs, unless told; one CPU, as mips64el's
    mipsel => {
        qemu => 'qemu-system-mipsel', kernel => "$TOP/build/mipsel/vmlinux", debarch => 'mipsel',
        cc => 'mipsel-linux-gnu-gcc-12', cxx => 'mipsel-linux-gnu-g++-12',
        sysroot => '/usr/mipsel-linux-gnu', triplet => 'mipsel-linux-gnu',
        ldso => 'ld.so.1', console => 'ttyS0', board => 'malta', smp => 1,
        machine => sub { ('-cpu', $_[0] // '24Kf') },
    },
    # the same board big-endian, with a kernel built from the kernel's
    # source (scripts/build-kernel mips: Debian 12 has none), for Debian's
    # mips (o32) userland; a 24Kf, one CPU, as mipsel's
    mips => {
        qemu => 'qemu-system-mips', kernel => "$TOP/build/mips/vmlinux",
        cc => 'mips-linux-gnu-gcc-12', cxx => 'mips-linux-gnu-g++-12',
        sysroot => '/usr/mips-linux-gnu', triplet => 'mips-linux-gnu',
        ldso => 'ld.so.1', console => 'ttyS0', board => 'malta', smp => 1,
        built => 'scripts/build-kernel mips',
        machine => sub { ('-cpu', $_[0] // '24Kf') },
    },
    # the sun4u board (an UltraSPARC IIi workstation: PCI, the SU UART
    # as the console), entered through qemu's OpenBIOS, with a kernel
    # built from the kernel's source (scripts/build-kernel sparc64:
    # Debian 12 has none), for Debian's sparc64 userland, whose dynamic
    # linker is /lib64/ld-linux.so.2; the board's UltraSPARC IIi unless
    # told, one CPU (qemu's sun4u has no more).  A kernel panic does not
    # end qemu there: the time limit does.
    sparc64 => {
        qemu => 'qemu-system-sparc64', kernel => "$TOP/build/sparc64/vmlinux",
        cc => 'sparc64-linux-gnu-gcc-12', cxx => 'sparc64-linux-gnu-g++-12',
        sysroot => '/usr/sparc64-linux-gnu', triplet => 'sparc64-linux-gnu',
        ldso => 'ld-linux.so.2', interp_dir => 'lib64', ldso_dir => 'lib64', console => 'ttyS0', board => 'sun4u',
        smp => 1, firmware => '/usr/share/qemu/openbios-sparc64', built => 'scripts/build-kernel sparc64',
        machine => sub { ('-cpu', $_[0] // 'TI UltraSparc IIi') },
    },
    # the s390-ccw-virtio machine, whose -kernel needs no firmware of its
    # own; the console is the SCLP's line-mode terminal (ttysclp0), the
    # one -nographic connects to the serial output.  own_text: every
    # static program gets text addresses of its own (SysTrace's
    # static_ldflags).  When the kernel copies a page of text (a write
    # through /proc/self/mem, as the tracer writes a site), Debian 12's
    # qemu-system-s390x (7.2) may go on running translations of what the
    # frame held before: a frame freed by one process and reused for
    # another's copy runs the first one's code, at the same address.
    # t/src/trace/sys/stale.c shows it (SysTrace's machine_checks); the
    # likely cause is that s390x's block moves drop the translations of
    # the first byte they write only.  Static programs all start at the
    # same address; the others are placed at random.
    s390x => {
        qemu => 'qemu-system-s390x', kernel => "$TOP/build/s390x/vmlinuz", debarch => 's390x',
        cc => 's390x-linux-gnu-gcc-12', cxx => 's390x-linux-gnu-g++-12',
        sysroot => '/usr/s390x-linux-gnu', triplet => 's390x-linux-gnu',
        ldso => 'ld64.so.1', console => 'ttysclp0', board => 's390-ccw-virtio', own_text => 1,
        machine => sub { ('-cpu', $_[0] // 'max') },
    },
    # x86_64 programs on the same kernel and CPU, which has 5-level page
    # tables (la57): user space reaches 2^56 where a mapping asks for it.
    # The C library is this host's own.
    x86_64 => {
        qemu => 'qemu-system-x86_64', kernel => "$TOP/build/i386/vmlinuz", debarch => 'amd64',
        cc => 'gcc', cxx => 'g++', sysroot => '/usr', libdir => 'lib/x86_64-linux-gnu',
        triplet => 'x86_64-linux-gnu', ldso => 'ld-linux-x86-64.so.2', ldso_dir => 'lib64', interp_dir => 'lib64',
        console => 'ttyS0', board => 'q35',
        machine => sub { ('-cpu', $_[0] // 'max') },
    },
);

sub _sys {
    my ($arch) = @_;
    return $SYS{$arch} // die "QemuSystem: no architecture '$arch'";
}

# What is missing to boot ARCH, as a message, or ''.
sub sys_missing {
    my ($arch) = @_;
    my $s = _sys($arch);
    my @m = grep { !have($_) } $s->{cc}, $s->{qemu};
    push @m, "$s->{kernel} (make " . ($s->{built} ? "builds it: $s->{built}" : "fetches it: scripts/fetch-kernel $s->{debarch}")
        . ')' unless -s $s->{kernel};
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
        '/' . ($s->{interp_dir} // 'lib') . "/$s->{ldso}" => "$s->{sysroot}/" . ($s->{ldso_dir} // 'lib') . "/$s->{ldso}",
        map { ("/lib/$s->{triplet}/$_" => "$s->{sysroot}/" . ($s->{libdir} // 'lib') . "/$_") }
            qw(libc.so.6 libm.so.6), @{ $o{libs} // [] });
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
    # (the limit doubled: make check-all runs a guest beside another
    # test, and a boot took three times its time on a loaded machine)
    my ($st, $out, $err) = run_cmd(['timeout', '-k', '10', 2 * ($o{timeout} // 600),
        $s->{qemu}, '-M', $s->{board} // 'virt', $s->{machine}->($o{cpu}), '-smp', $o{smp} // $s->{smp} // 2,
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
        } elsif ($l =~ /\A\@\@\@time (\S+) (\d+) (\d+)\z/) {
            push @{ $r{'(time)'} }, [$1, $2, $3];
        } elsif ($l eq '@@@done') {
            $r{'(done)'} = 1;
        }
    }
    for my $name (keys %r) {
        next unless ref $r{$name} eq 'HASH';   # not '(damaged)''s or '(time)''s list
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
