#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# A program that closes every descriptor it did not open (as a daemon
# does) and then opens files of its own, which get the numbers the
# tracer's trace file and control socket had.  The tracer must notice,
# say so, and never write into the program's files; code is written
# through a /proc/self/mem opened for each pass, never through a number
# the program may have reused.  Oracle: the program's files hold exactly
# what it wrote, and its output is its own.  A trace to standard error
# keeps to the one the program started with (relog.c).
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP $SRC run_cmd must tmpdir slurp);

my $dir = tmpdir();
delete $ENV{$_} for grep { /^(MCOUNT_TRACE_|MCOUNT_CC_)/ } keys %ENV;
delete $ENV{LD_PRELOAD};
local $ENV{MCOUNT_TRACE_DIR} = "$dir/sock";

my ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-cc", 'gcc', '-O2', '-c', "$SRC/trace/closer.c",
    '-o', "$dir/closer.o"], env => { MCOUNT_CC_FLAGS => '-pg -mfentry' });
is($st, 0, 'closer.c builds through mcount-cc') or diag($out, $err);
must('gcc', '-o', "$dir/closer", "$dir/closer.o");
must('gcc', '-o', "$dir/closer-a", "$dir/closer.o", "$TOP/build/libmcount-trace.a", '-lpthread');
my $expect = 10 * 1 + 3 * 45 + 1000 + 3 * (999 * 1000 / 2);

for my $how (['preloaded', "$dir/closer", { LD_PRELOAD => "$TOP/build/libmcount-trace.so" }],
             ['linked in', "$dir/closer-a", {}]) {
    my ($tag, $prog, $env) = @$how;
    my $own = "$dir/own-" . ($tag =~ tr/ /-/r);
    my $trace = "$own.trace";
    ($st, $out, $err) = run_cmd([$prog, $own], env => { %$env,
        MCOUNT_TRACE_FILTER => 'leaf', MCOUNT_TRACE_OUTPUT => $trace });
    is($st, 0, "$tag: the program runs to its end");
    is($out, "$expect\n", "$tag: its output is its own");
    is(slurp("$own.$_"), "file $_ of the program\n", "$tag: its file $_ holds what it wrote")
        for 0 .. 3;
    like($err, qr/\Q$trace\E: closed by the program: the rest of the trace is not written/,
        "$tag: the tracer says it stops writing the trace");
    like($err, qr/: closed by the program: no control channel/, "$tag: and that its socket is gone");
    my @ev = grep { /: leaf <-main$/ } split /\n/, slurp($trace);
    is(scalar @ev, 10, "$tag: the events before the descriptors were closed are in the trace");
}

# A trace to standard error (MCOUNT_TRACE_OUTPUT=-) stays on the standard
# error the program started with: the program's own redirection of
# descriptor 2 (freopen of a log) does not take it, and a copy closed and
# its number reused is said, never written.
($st, $out, $err) = run_cmd(["$TOP/bin/mcount-cc", 'gcc', '-O2', '-c', "$SRC/trace/relog.c",
    '-o', "$dir/relog.o"], env => { MCOUNT_CC_FLAGS => '-pg -mfentry' });
is($st, 0, 'relog.c builds through mcount-cc') or diag($out, $err);
must('gcc', '-o', "$dir/relog", "$dir/relog.o");
($st, $out, $err) = run_cmd(["$dir/relog", "$dir/relog.log"], env => { LD_PRELOAD => "$TOP/build/libmcount-trace.so",
    MCOUNT_TRACE_FILTER => 'leaf', MCOUNT_TRACE_OUTPUT => '-' });
is($st, 0, 'stderr trace: the program runs to its end') or diag($err);
is(slurp("$dir/relog.log"), "the program's log line\n", 'stderr trace: the program\'s log holds its line only');
is(scalar(() = $err =~ /: leaf <-main$/mg), 6, 'stderr trace: every call on the standard error it started with');
($st, $out, $err) = run_cmd(["$dir/closer", "$dir/own-err"], env => { LD_PRELOAD => "$TOP/build/libmcount-trace.so",
    MCOUNT_TRACE_FILTER => 'leaf', MCOUNT_TRACE_OUTPUT => '-' });
is($st, 0, 'stderr trace, descriptors closed: the program runs to its end');
is(slurp("$dir/own-err.$_"), "file $_ of the program\n", "stderr trace, descriptors closed: its file $_ holds what it wrote")
    for 0 .. 3;
like($err, qr/standard error: closed by the program: the (rest of the )?trace is not written/,
    'stderr trace, descriptors closed: the tracer says it stops');
is(scalar(() = $err =~ /: leaf <-main$/mg), 10, 'stderr trace, descriptors closed: the events before it are written');

done_testing();
