#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# A traced program that opens and closes a library again and again, as a
# server reloading a plug-in does (t/src/trace/dlcycle.c: 2,000
# functions of its own, each with its site, called all the time by four
# threads; the main thread's cycles of dlopen, a call, dlclose and a
# switch of the filter through the C API, whose pass writes sites while
# the threads run).  Each dlopen and dlclose makes the library read the
# process's objects again: what it keeps of an object closed (its
# symbols, which name the events it recorded) must not grow with the
# cycles.  Oracles: the kernel's /proc/self/maps and RssAnon, read by the
# program itself, and the sum of what the library's function returned.
#  - preloaded, 400 cycles: one mapping of the library's file at the end
#    (the tracer's, read-only; one a cycle before: the process would run
#    out of mappings, vm.max_map_count, after some 65,000); its
#    anonymous memory grows by less than 8 kB a cycle over the last 300
#    (1.1 MB a cycle before, a new copy of every site's record each time
#    the objects were read, never freed: 2.2 GB after 2,000 cycles of a
#    program of 10,000 sites);
#  - linked with the library built for AddressSanitizer
#    (build/asan/libmcount-trace.a): 150 cycles, no report (the records
#    replaced are freed while trap handlers may be reading them: not
#    before they are done).
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP tmpdir run_cmd spit);
use TraceTest qw($TSRC $SO clean_env mcc_build link_prog traced);

clean_env();
my $dir = tmpdir();
my $asan = "$TOP/build/asan/libmcount-trace.a";
die "$asan: run make check (or make $asan) first\n" unless -f $asan;
local $ENV{MCOUNT_TRACE_DIR} = "$dir/sock";

my $N = 2000;
spit("$dir/gen.c", join('', "#define F __attribute__((noipa))\n",
    map({ "F long gen_$_(long x) { return x + $_; }\n" } 0 .. $N - 1),
    "static long (*const tab[])(long) = {\n", map({ "\tgen_$_,\n" } 0 .. $N - 1), "};\n",
    "long gen_call(long i) { return tab[i % $N](i); }\n"));
mcc_build('-pg -mfentry', "$dir/gen.o", "$dir/gen.c", '-O1');
mcc_build('-pg -mfentry', "$dir/dlcycle.o", "$TSRC/dlcycle.c", '-O2');
mcc_build('-pg -mfentry', "$dir/plug.o", "$TSRC/plug.c", '-O2', '-fPIC');
my $lib = "$dir/libplug.so";
link_prog($lib, '-shared', "$dir/plug.o");
my $prog = link_prog("$dir/dlcycle", "$dir/dlcycle.o", "$dir/gen.o", '-lpthread', '-ldl');

{
    my $cycles = 400;
    # (small buffers: all their pages written before the measure begins)
    my ($st, $out, $err) = traced([$prog, $lib, $cycles],
        env => { MCOUNT_TRACE_OUTPUT => "$dir/trace.txt", MCOUNT_TRACE_BUFFER => 1024 });
    is($st, 0, "preloaded, $cycles cycles: exit 0") or diag $err;
    like($out, qr/^maps of LIB: 1$/m, 'one mapping of the library\'s file left (the tracer\'s), not one a cycle')
        or diag $out;
    my ($kb, $over) = $out =~ /^anon growth: (-?\d+) kB over (\d+) cycles$/m;
    ok(defined $kb && $kb < 8 * $over, sprintf('anonymous memory: %s kB over %s cycles, under 8 kB a cycle',
        $kb // '?', $over // '?')) or diag $out;
    like($out, qr/^plug_a: @{[$cycles * $cycles]}$/m, 'the library\'s function ran right in every cycle');
    # (the threads call traced functions faster than the trace is written)
    is_deeply([grep { !/^mcount-trace: \d+ events lost: their threads' buffers were full/ } split /\n/, $err], [],
        'nothing said but the events lost') or diag $err;
}

{
    my $cycles = 150;
    mcc_build('-pg -mfentry', "$dir/dlcycle-asan.o", "$TSRC/dlcycle.c", '-O1', '-g', '-fsanitize=address,undefined');
    my $p = link_prog("$dir/dlcycle-asan", '-fsanitize=address,undefined', '-rdynamic', "$dir/dlcycle-asan.o",
        "$dir/gen.o",
        $asan, '-lpthread', '-ldl');
    my ($st, $out, $err) = run_cmd([$p, $lib, $cycles], env => {
        MCOUNT_TRACE_OUTPUT => "$dir/trace-asan.txt",
        ASAN_OPTIONS => 'detect_leaks=0:abort_on_error=0',
        UBSAN_OPTIONS => 'print_stacktrace=1:halt_on_error=1' });
    is($st, 0, "AddressSanitizer, $cycles cycles: exit 0") or diag $err;
    unlike($err, qr/AddressSanitizer|runtime error/, 'no sanitizer report') or diag $err;
    like($out, qr/^plug_a: @{[$cycles * $cycles]}$/m, 'the library\'s function ran right in every cycle');
}

done_testing();
