package TestUtil;
# Small helpers shared by the tests: running commands, compiling the
# corpus, calling recordmcount.pl.
use strict;
use warnings;

use Exporter 'import';
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use POSIX ();

our @EXPORT_OK = qw($TOP $SRC run_cmd must compile record_pl tmpdir slurp spit
    flag_matrix arch_of_flags leftovers);

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

# recordmcount.pl in its 6.1 form for an x86 object built with @flags.
# Returns (status, stdout, stderr).
sub record_pl {
    my ($obj, $flags, @opts) = @_;
    my (undef, $bits) = arch_of_flags(@$flags);
    my $m = $bits == 32 ? '-m32' : '-m64';
    my $emul = $bits == 32 ? 'elf_i386' : 'elf_x86_64';
    my $cc = @$flags && $flags->[0] eq 'clang' ? 'clang' : 'gcc';
    return run_cmd(["$TOP/recordmcount.pl", @opts, 'x86', 'little', $bits, 'objdump', 'objcopy',
        "$cc $m -O2", "ld -m $emul", 'nm', '', '', '0', $obj]);
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

# temporary files the pipeline must not leave behind
sub leftovers {
    my ($dir) = @_;
    opendir(my $dh, $dir) or die "$dir: $!";
    return grep { /^\.tmp_mc_/ } readdir $dh;
}

1;
