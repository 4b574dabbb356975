#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# A program that closes every descriptor it did not open (as a daemon
# does) and then opens files of its own, which get the numbers the
# tracer's trace file and control socket had.  The tracer must notice,
# say so, and never write into the program's files; code is written
# through a /proc/self/mem opened for each pass, never through a number
# the program may have reused.  Oracle: the program's files hold exactly
# what it wrote, and its output is its own.
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

done_testing();
