# SPDX-License-Identifier: GPL-2.0-or-later
package TestUtil;
# Small helpers shared by the tests: running commands, compiling the
# corpus, calling recordmcount.pl.
use strict;
use warnings;

use Exporter 'import';
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use File::Find ();
use File::Temp qw(tempdir);
use POSIX ();
use Test::More ();

our @EXPORT_OK = qw($TOP $SRC run_cmd must compile record_pl tmpdir slurp spit
    flag_matrix arch_of_flags ld_emulation leftovers which have need run_prog host_runs_i386);

# (a shell starts background commands with SIGINT and SIGQUIT ignored,
# and the programs the tests start would inherit that: the signal tests
# send them those signals)
$SIG{$_} = 'DEFAULT' for qw(INT QUIT);

our $TOP = abs_path(dirname(__FILE__) . '/../..');
our $SRC = "$TOP/t/src";

sub tmpdir { return tempdir('mcount-test-XXXXXX', TMPDIR => 1, CLEANUP => 1) }

sub slurp {
    my ($f) = @_;
    open(my $fh, '<:raw', $f) or die "$f: $!";
    local $/;
    return scalar <$fh>;
}

sub spit {
    my ($f, $data) = @_;
    open(my $fh, '>:raw', $f) or die "$f: $!";
    print {$fh} $data;
    close $fh or die "$f: $!";
    return;
}

# run_cmd(\@cmd, %opt) -> (wait status, stdout, stderr); opt: env => {...}, stdin => text
sub run_cmd {
    my ($cmd, %o) = @_;
    my $dir = tmpdir();
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDOUT, '>', "$dir/out" or POSIX::_exit(126);
        open STDERR, '>', "$dir/err" or POSIX::_exit(126);
        if (defined $o{stdin}) {
            spit("$dir/in", $o{stdin});
            open STDIN, '<', "$dir/in" or POSIX::_exit(126);
        } else {
            open STDIN, '<', '/dev/null' or POSIX::_exit(126);
        }
        $ENV{$_} = $o{env}{$_} for keys %{ $o{env} // {} };
        { no warnings 'exec'; exec { $cmd->[0] } @$cmd; }
        print STDERR "exec $cmd->[0]: $!\n";
        POSIX::_exit(127);
    }
    waitpid $pid, 0;
    my $st = $?;
    return ($st, slurp("$dir/out"), slurp("$dir/err"));
}

# run and die with the command's output if it fails
sub must {
    my (@cmd) = @_;
    my ($st, $out, $err) = run_cmd(\@cmd);
    die "command failed ($st): @cmd\n$out$err" if $st != 0;
    return $out;
}

# The path of PROG on PATH, or undef; have(PROG): whether there is one.
sub which {
    my ($prog) = @_;
    my ($path) = grep { -f $_ && -x _ } map { "$_/$prog" } split /:/, $ENV{PATH} // '';
    return $path;
}

sub have { return defined which($_[0]) }

# need(PROG...): die unless every PROG is on PATH, naming the missing
# ones: a cross test's tools are installed with the rest
# (scripts/deps/*.list), never skipped for.
sub need {
    my @missing = grep { !have($_) } @_;
    die "not installed: @missing (run scripts/install-deps)\n" if @missing;
    return;
}

# compile(SRC, OUT, FLAGS...); a first flag 'clang' compiles with clang
sub compile {
    my ($src, $out, @flags) = @_;
    my $cc = @flags && $flags[0] eq 'clang' ? shift @flags : 'gcc';
    must($cc, @flags, '-c', $src, '-o', $out);
    return $out;
}

sub arch_of_flags {
    my (@flags) = @_;
    return (grep { $_ eq '-m32' } @flags) ? ('i386', 32) : ('x86_64', 64);
}

# ld's emulation (ld -m) for x86 objects compiled with @flags
sub ld_emulation {
    my (undef, $bits) = arch_of_flags(@_);
    return $bits == 32 ? 'elf_i386' : 'elf_x86_64';
}

# recordmcount.pl in its 6.1 form for an x86 object built with @flags.
# Returns (status, stdout, stderr).
sub record_pl {
    my ($obj, $flags, @opts) = @_;
    my (undef, $bits) = arch_of_flags(@$flags);
    my $m = $bits == 32 ? '-m32' : '-m64';
    my $emul = ld_emulation(@$flags);
    my $cc = @$flags && $flags->[0] eq 'clang' ? 'clang' : 'gcc';
    return run_cmd(["$TOP/recordmcount.pl", @opts, 'x86', 'little', $bits, 'objdump', 'objcopy',
        "$cc $m -O2", "ld -m $emul", 'nm', '', '', '0', $obj]);
}

# Whether this host runs i386 programs itself (some x86_64 kernels refuse
# them: "Exec format error"); found out once per test process by building
# and running a tiny static -m32 program.  RECORDMCOUNT_TEST_I386=qemu
# answers no without asking (to test the qemu-i386 path on a host that
# could), =native answers yes.
my $host_i386;
sub host_runs_i386 {
    return $host_i386 if defined $host_i386;
    my $force = $ENV{RECORDMCOUNT_TEST_I386} // '';
    if ($force eq 'qemu') {
        Test::More::note('i386 programs run under qemu-i386: RECORDMCOUNT_TEST_I386=qemu');
        return $host_i386 = 0;
    }
    return $host_i386 = 1 if $force eq 'native';
    die "RECORDMCOUNT_TEST_I386=$force: use qemu or native, or leave it unset\n" if length $force;
    my $d = tmpdir();
    spit("$d/probe.c", "int main(void) { return 42; }\n");
    must('gcc', '-m32', '-static', '-o', "$d/probe", "$d/probe.c");
    my ($st) = run_cmd(["$d/probe"]);
    $host_i386 = $st == 42 << 8 ? 1 : 0;
    Test::More::diag('i386 programs run under qemu-i386: this host cannot execute them'
        . (have('qemu-i386') ? '' : ' (and qemu-i386 is not installed: install qemu-user)'))
        unless $host_i386;
    return $host_i386;
}

# run_prog([PROG, ARGS...], %opt) -> run_cmd's (status, stdout, stderr) for
# a program a test built: for the host; with arch => 'i386', under
# qemu-i386 where the host cannot run it (host_runs_i386); with
# qemu => 'qemu-ARCH' (a cross target), always under that qemu-user.
# A program that hangs (more likely under qemu) is killed after 60 s.
sub run_prog {
    my ($cmd, %o) = @_;
    my $qemu = $o{qemu} // (($o{arch} // '') eq 'i386' && !host_runs_i386() ? 'qemu-i386' : undef);
    return run_cmd(['timeout', '-k', '5', '60', $qemu // (), @$cmd]);
}

# The flag sets the core corpus is checked under: optimization levels,
# -pg with and without -mfentry, code models, -m32, CET.
sub flag_matrix {
    my @m;
    for my $bits (64, 32) {
        for my $opt (qw(-O0 -O2 -Os)) {
            for my $hook (['-pg'], ['-pg', '-mfentry']) {
                for my $pic (['-fno-pie'], [], ['-fPIC']) {
                    # i386 has no -mfentry with PIC code (GCC refuses it)
                    next if $bits == 32 && @$hook == 2 && !@$pic || $bits == 32 && @$hook == 2 && $pic->[0] eq '-fPIC';
                    push @m, [($bits == 32 ? '-m32' : ()), $opt, @$hook, @$pic];
                }
            }
        }
    }
    push @m, ['-O2', '-pg', '-mfentry', '-fcf-protection=full'],
             ['-O2', '-pg', '-fcf-protection=full', '-fPIC'],
             ['-m32', '-O2', '-pg', '-fcf-protection=full'],
             ['-O2', '-pg', '-mfentry', '-ffunction-sections'],
             ['-m32', '-Os', '-pg', '-ffunction-sections', '-fno-pie'];
    return @m;
}

# Temporary files the front ends must not leave behind, anywhere under DIR
# (paths relative to DIR): the pipeline's .tmp_mc_NAME.PID.N.* and
# mcount-record --remove's .tmp_mc_NAME.PID.rm, and mcount-cc's
# OBJ.mcount-cc.PID.
sub leftovers {
    my ($dir) = @_;
    $dir =~ s{(.)/+\z}{$1};
    my @left;
    File::Find::find({ no_chdir => 1, wanted => sub {
        push @left, substr($_, length($dir) + 1) if m{/(\.tmp_mc_[^/]*|[^/]+\.mcount-cc\.\d+)\z};
    } }, $dir);
    return @left;
}

1;
