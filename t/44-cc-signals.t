#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# mcount-cc ended by a signal while it records: no object may be left that
# make would take for finished.  Every signal that ends a process and can
# be caught removes the objects (as a failed record step does) and
# mcount-cc dies of that signal; KILL, which cannot be caught, leaves them
# dated 1970, older than their sources, so make builds them again.
use strict;
use warnings;
use Test::More;
use Config;
use POSIX ();
use TestUtil qw($TOP tmpdir spit run_cmd leftovers have);
use CcTest qw($MCC fake_dir);

delete $ENV{$_} for qw(MCOUNT_CC_FLAGS MCOUNT_CC_ACTIVE MCOUNT_CC_VERBOSE OBJDUMP OBJCOPY LD AS
    CROSS_COMPILE RECORDMCOUNT_HELPER);
my %signo;
@signo{ split ' ', $Config{sig_name} } = split ' ', $Config{sig_num};

my $dir = tmpdir();
spit("$dir/a.c", "int fa(int x) { return x + 1; }\n");
spit("$dir/b.c", "int fb(int x) { return x + 2; }\n");

# A helper that sends mcount-cc (its parent) a signal, then does the work:
# the signal arrives while the first object is being recorded.
my $helper = "$TOP/build/mcount-scan";
my $fake = fake_dir('signal-helper' => <<"SH");
#!/bin/sh
kill -s "\$SIGNAL_PARENT" \$PPID
sleep 2
exec '$helper' "\$@"
SH

sub compile_two {
    my ($env) = @_;
    unlink "$dir/a.o", "$dir/b.o";
    return run_cmd(['sh', '-c', 'cd "$1" && shift && exec "$@"', 'sh', $dir,
        $MCC, 'gcc', '-O2', '-c', 'a.c', 'b.c'], env => $env);
}

for my $sig (qw(INT TERM HUP QUIT PIPE ALRM USR1 USR2)) {
    my ($st) = compile_two({ RECORDMCOUNT_HELPER => "$fake/signal-helper", SIGNAL_PARENT => $sig });
    is($st & 127, $signo{$sig}, "SIG$sig while recording: mcount-cc dies of SIG$sig");
    ok(!-e "$dir/a.o" && !-e "$dir/b.o", "SIG$sig: no object is left");
    is_deeply([leftovers($dir)], [], "SIG$sig: no temporary file is left");
}

# KILL cannot be caught: the objects stay, but older than their sources.
{
    my ($st) = compile_two({ RECORDMCOUNT_HELPER => "$fake/signal-helper", SIGNAL_PARENT => 'KILL' });
    is($st & 127, $signo{KILL}, 'SIGKILL while recording: mcount-cc is killed');
    for my $o ('a.o', 'b.o') {
        my $src = $o =~ s/\.o\z/.c/r;
        ok(!-e "$dir/$o" || (stat "$dir/$o")[9] < (stat "$dir/$src")[9],
            "SIGKILL: $o is gone or older than $src (make rebuilds it)");
    }
    unlink map { "$dir/$_" } leftovers($dir);    # KILL gives no chance to clean up
}

# The case seen in practice: `mcount-cc g++ -c a.cc b.cc 2>&1 | head`.  A
# warning of the record step (here: the COMDAT section of an inline
# function is left out) meets a closed pipe.
SKIP: {
    skip 'no g++', 3 unless have('g++');
    spit("$dir/i.cc", "inline int twice(int x) { return 2 * x; }\nint fi(int x) { return twice(x); }\n");
    spit("$dir/j.cc", "int fj(int x) { return x; }\n");
    unlink "$dir/i.o", "$dir/j.o";
    pipe(my $r, my $w) or die "pipe: $!";
    close $r;    # nobody reads: the first write raises SIGPIPE
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        chdir $dir or POSIX::_exit(126);
        open(STDERR, '>&', $w) or POSIX::_exit(126);
        $SIG{PIPE} = 'DEFAULT';
        $ENV{MCOUNT_CC_MODE} = 'object';    # per object: the COMDAT warning
        exec $MCC, 'g++', '-O0', '-c', 'i.cc', 'j.cc' or POSIX::_exit(127);
    }
    close $w;
    waitpid $pid, 0;
    is($? & 127, $signo{PIPE}, 'stderr a closed pipe: mcount-cc dies of SIGPIPE');
    ok(!-e "$dir/i.o" && !-e "$dir/j.o", 'stderr a closed pipe: no object without its table is left');
    is_deeply([leftovers($dir)], [], 'stderr a closed pipe: no temporary file is left');
}

# Without a signal the objects are recorded and dated now.
{
    my ($st, undef, $err) = compile_two({});
    is($st, 0, 'no signal: mcount-cc succeeds') or diag $err;
    ok((stat "$dir/a.o")[9] >= (stat "$dir/a.c")[9], 'no signal: the object is newer than its source');
}

done_testing();
