#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# libmcount-trace's own code under AddressSanitizer and UBSan
# (build/asan/libmcount-trace.a, made by make check): threads calling
# traced functions while filters are switched through the C API (600
# rounds, 300 with the function_graph tracer; 2,000 and 1,000 with
# STRESS_FULL=1, as make check-slow runs it), the trace written, and a
# fork.  The oracle is the sanitizers: any report fails.  Then under
# valgrind (the static library linked into a program that is traced
# from start-up to exit; one worker thread, and valgrind's fair
# scheduling, without which a spinning thread can starve the rest; full
# buffers wait for the drain, which valgrind slows down most).  Both
# with the function_graph tracer too.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP $SRC run_cmd must tmpdir slurp);
use JSON::PP ();
use TraceTest qw(json_line);

my $dir = tmpdir();
my $asan = "$TOP/build/asan/libmcount-trace.a";
die "$asan: run make check (or make $asan) first\n" unless -f $asan;
delete $ENV{$_} for grep { /^(MCOUNT_TRACE_|MCOUNT_CC_)/ } keys %ENV;
delete $ENV{LD_PRELOAD};
local $ENV{MCOUNT_TRACE_DIR} = "$dir/sock";

my $src = "$SRC/trace/san_toggle.c";
# (a round's switches keep both processors busy while four threads
# spin, and the drain writes a trace of some 500 lines a round)
my $ROUNDS = $ENV{STRESS_FULL} ? 2000 : 600;
my $GRAPH_ROUNDS = $ROUNDS / 2;
my ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-cc", 'gcc', '-O1', '-g', "-I$TOP/rt",
    '-fsanitize=address,undefined', '-c', $src, '-o', "$dir/san_toggle.o"],
    env => { MCOUNT_CC_FLAGS => '-pg -mfentry' });
is($st, 0, 'san_toggle.c builds through mcount-cc') or diag($out, $err);

for my $pie (['-pie'], ['-no-pie']) {
    my $prog = "$dir/san_toggle$pie->[0]";
    must('gcc', @$pie, '-fsanitize=address,undefined', '-o', $prog, "$dir/san_toggle.o",
        $asan, '-lpthread');
    my $trace = "$dir/trace$pie->[0].txt";
    ($st, $out, $err) = run_cmd([$prog, $ROUNDS], env => {
        MCOUNT_TRACE_OUTPUT => $trace, MCOUNT_TRACE_BUFFER => 4096,
        ASAN_OPTIONS => 'detect_leaks=0:abort_on_error=0',
        UBSAN_OPTIONS => 'print_stacktrace=1:halt_on_error=1' });
    is($st, 0, "$pie->[0]: $ROUNDS rounds of switching with 4 threads running: exit 0");
    is($out, "toggles done: 0 0\n", "$pie->[0]: every API call answered as documented");
    unlike($err, qr/AddressSanitizer|runtime error|LeakSanitizer/, "$pie->[0]: no sanitizer report")
        or diag($err);
    my @lines = grep { !/^#/ } split /\n/, slurp($trace);
    my @bad = grep { !/^ *\S+-\d+ +(?:\[\d{3}\] +\d+\.\d{6}: (?:work_leaf|work_mid|other_fn|worker|toggle) <-\S+|\[LOST \d+ EVENTS\])$/ } @lines;
    ok(@lines > 0, "$pie->[0]: the trace has events") ;
    is(scalar @bad, 0, "$pie->[0]: every line of the trace is well formed") or diag(join "\n", grep { defined } @bad[0 .. 4]);
}

# The function_graph tracer under the sanitizers: return addresses
# hijacked and given back while filters are switched; JSON lines, every
# one an object.
{
    my $prog = "$dir/san_toggle-pie";
    my $trace = "$dir/graph.json";
    ($st, $out, $err) = run_cmd([$prog, $GRAPH_ROUNDS], env => {
        MCOUNT_TRACE_OUTPUT => $trace, MCOUNT_TRACE_BUFFER => 4096, MCOUNT_TRACE_FORMAT => 'json',
        MCOUNT_TRACE_TRACER => 'function_graph',
        ASAN_OPTIONS => 'detect_leaks=0:abort_on_error=0',
        UBSAN_OPTIONS => 'print_stacktrace=1:halt_on_error=1' });
    is($st, 0, "function_graph: $GRAPH_ROUNDS rounds of switching with 4 threads running: exit 0");
    is($out, "toggles done: 0 0\n", 'function_graph: every API call answered as documented');
    unlike($err, qr/AddressSanitizer|runtime error|LeakSanitizer/, 'function_graph: no sanitizer report')
        or diag($err);
    my $js = JSON::PP->new;
    my @l = split /\n/, slurp($trace);
    my @ev = grep { defined } map { json_line($js, $_) } @l;
    is(scalar @ev, scalar @l, 'function_graph: every line is a JSON object');
    ok(scalar(grep { exists $_->{exit} } @ev), 'function_graph: the trace has returns');
}

# valgrind: the preloaded library, tracing from start-up to exit.
my $prog = "$dir/plain";
($st, $out, $err) = run_cmd(["$TOP/bin/mcount-cc", 'gcc', '-O1', "-I$TOP/rt", '-c', $src, '-o',
    "$dir/plain.o"], env => { MCOUNT_CC_FLAGS => '-pg -mfentry' });
is($st, 0, 'the same program without sanitizers builds');
must('gcc', '-o', $prog, "$dir/plain.o", "$TOP/build/libmcount-trace.a", '-lpthread');
($st, $out, $err) = run_cmd(['valgrind', '-q', '--error-exitcode=9', '--smc-check=all', '--fair-sched=yes',
    '--leak-check=no', $prog, '20', '1'], env => {
    MCOUNT_TRACE_OUTPUT => "$dir/vg.txt", MCOUNT_TRACE_FILTER => 'work_*', MCOUNT_TRACE_FULL => 'wait' });
is($st, 0, 'valgrind finds no error in the library (20 rounds, 1 thread)') or diag($err);
# (which of work_* the worker ran while the filter the main thread keeps
# switching had it depends on how fast each ran: any of them)
like(slurp("$dir/vg.txt"), qr/: work_(?:mid|leaf) <-/, 'and the program was traced under valgrind');
($st, $out, $err) = run_cmd(['valgrind', '-q', '--error-exitcode=9', '--smc-check=all', '--fair-sched=yes',
    '--leak-check=no', $prog, '20', '1'], env => {
    MCOUNT_TRACE_OUTPUT => "$dir/vg-graph.txt", MCOUNT_TRACE_FILTER => 'work_*',
    MCOUNT_TRACE_TRACER => 'function_graph', MCOUNT_TRACE_FULL => 'wait' });
is($st, 0, 'valgrind finds no error in the function_graph tracer (20 rounds, 1 thread)') or diag($err);
like(slurp("$dir/vg-graph.txt"), qr/\| +work_(?:mid|leaf)\(\)/, 'and the returns were traced under valgrind');

done_testing();
