#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# The function_graph tracer against an oracle it has no part in: GCC's
# -finstrument-functions, whose __cyg_profile_func_enter and _exit calls
# (t/src/trace/cyg_graph.c, built without either) log each entry and each
# return of the same run.  Each thread's trace (JSON lines: entries, exits,
# frames marked unwound) must be that log, entry for entry and exit for
# exit: the function by nm from the event's site, the parent address of
# each entry.  GCC's exit hook runs when a function returns and when a C++
# exception unwinds it, not when longjmp skips it or a C thread ends in
# pthread_exit: so an unwound frame stands for an exit in C++ and for
# nothing in C (its exit is never invented).  The program's output must
# be that of a plain build.
#
#   oracle.c     mcount and __fentry__, PIE and -no-pie, preloaded and
#                linked in; the text and Chrome formats of one run name
#                the same calls and returns
#   drap.c       a function whose frame holds a copy of its return
#                address (GCC's DRAP): under mcount its returns are not
#                hooked, and said so
#   hazards.c    longjmp, siglongjmp out of a handler, fork, backtrace(),
#                pthread_exit, cancellation (in read and pthread_testcancel)
#   unwind.cc    C++ exceptions thrown through traced frames, destructors
#                that call traced functions, rethrow, catch (...)
#   graph_stress threads, a profiling signal's handler and live switches
#                of the tracer and the filters: well nested per thread
#   switch_show  events of function_graph written after a switch to the
#                function tracer keep their returns (shown, or in the file)
# and mcount-trace run -g / --tracer, the tracer verb, show chrome.
use strict;
use warnings;
no warnings 'portable';    # 64-bit addresses through hex()
use Test::More;
use JSON::PP ();
use lib 't/lib';
use TestUtil qw($TOP must run_cmd tmpdir slurp spit);
use TraceTest qw($MT $SO $LIBA $RTINC $TSRC clean_env mcc_build link_prog traced nm_funcs func_at cxxfilt
    bias_of start_bg stop_bg wait_for mt_cli first_diff read_graph_json read_graph_text graph_compare graph_from_main
    hazards_unwound $HAZARDS_UNWOUND $UNWIND_UNWOUND chrome_doc);

clean_env();
my $dir = tmpdir();
my $ctl = "$dir/ctl";
must('gcc', '-O2', '-c', "$TSRC/cyg_graph.c", '-o', "$dir/cyg.o");

my %plain;
sub plain_output {
    my ($src, $cc, @args) = @_;
    return $plain{$src} //= do {
        must($cc, '-O2', '-o', "$dir/plain-" . ($src =~ s{.*/}{}r), $src, '-lpthread');
        must("$dir/plain-" . ($src =~ s{.*/}{}r), @args);
    };
}

# ---- oracle.c: the call forms and the ways of linking -----------------------

my %graph = (MCOUNT_TRACE_TRACER => 'function_graph');
sub oracle_variant {
    my ($name, $hook, $cflags, $ldflags, $mode) = @_;
    (my $tag = $name) =~ s/[^A-Za-z0-9]+/_/g;
    my $d = "$dir/$tag";
    mkdir $d or die;
    my @api = $mode eq 'a' ? ('-DWITH_API', "-I$RTINC") : ();
    mcc_build($hook, "$d/oracle.o", "$TSRC/oracle.c", '-O2', '-finstrument-functions', @api, @$cflags);
    my $prog = link_prog("$d/oracle", "$d/oracle.o", "$dir/cyg.o", $mode eq 'a' ? ($LIBA, '-lpthread') : (),
        @$ldflags);
    my %on = $mode eq 'a' ? (ORACLE_ENABLE => '*') : (MCOUNT_TRACE_FILTER => '*');
    my ($st, $out, $err) = traced([$prog, 3], preload => $mode eq 'so', env => { %on, %graph,
        CYG_LOG => "$d/cyg.log", MCOUNT_TRACE_OUTPUT => "$d/trace.json", MCOUNT_TRACE_FORMAT => 'json',
        MCOUNT_TRACE_DIR => $ctl });
    is($st, 0, "$name: exits 0 traced") or diag $err;
    is($err, '', "$name: the library says nothing");
    is($out, plain_output("$TSRC/oracle.c", 'gcc', 3), "$name: the output of the plain build");
    # Linked in, tracing starts in main (whose own return is not hooked).
    graph_compare($name, $prog, "$d/cyg.log", ["$d/trace.json"], 0, $mode eq 'a' ? \&graph_from_main : undef);
    return ($d, $prog);
}

my $leaves;    # calls of leaf in oracle 3
my ($od, $oprog) = oracle_variant('fentry PIE preloaded', '-pg -mfentry', [], [], 'so');
oracle_variant('fentry -no-pie preloaded', '-pg -mfentry', ['-fno-pie'], ['-no-pie'], 'so');
oracle_variant('mcount PIE preloaded', '-pg', [], [], 'so');
oracle_variant('mcount -no-pie preloaded', '-pg', ['-fno-pie'], ['-no-pie'], 'so');
oracle_variant('fentry PIE linked in', '-pg -mfentry', [], [], 'a');
oracle_variant('mcount -no-pie linked in', '-pg', ['-fno-pie'], ['-no-pie'], 'a');
oracle_variant('fentry -static linked in', '-pg -mfentry', [], ['-static'], 'a');

# The same program in the text format and in Chrome's: the same calls
# and returns as its JSON lines (each format read on its own terms).
{
    my $syms = nm_funcs($oprog);
    my %names = map { $_->[2] => 1 } @$syms;
    my ($jev) = read_graph_json("$od/trace.json");
    my @want = map { exists $_->{exit} ? "< $_->{exit}" : "> $_->{func}" } @$jev;

    my ($st, $out, $err) = traced([$oprog, 3], env => { %graph, MCOUNT_TRACE_FILTER => '*',
        MCOUNT_TRACE_OUTPUT => "$od/t.txt", MCOUNT_TRACE_DIR => $ctl });
    is($st, 0, 'text: exits 0') or diag $err;
    my @lines = split /\n/, slurp("$od/t.txt");
    is_deeply([@lines[0 .. 3]], ['# tracer: function_graph', '#',
        '# CPU  TASK/PID         DURATION                  FUNCTION CALLS',
        '# |     |    |           |   |                     |   |   |   |'], 'text: the kernel\'s header');
    # (read_graph_text: the kernel's lines, and its marker at each change
    # of thread, which one thread never makes)
    my ($gev, $gerr) = read_graph_text("$od/t.txt");
    is_deeply($gerr, [], 'text: every line the kernel\'s');
    my (@got, @bad, @stack);
    for my $e (@$gev) {
        my ($dur, $ind, $what) = @$e{qw(dur indent what)};
        my $l = "line $e->{line}: " . ($what // $e->{func} // 'a marker');
        push @bad, "'$l': not a function_graph line of oracle's" unless defined $what && $e->{comm} eq 'oracle';
        next unless defined $what;
        my $depth = @stack - ($what =~ /\A\}/ ? 1 : 0);
        push @bad, "'$l': indented $ind, depth $depth" if $ind != 2 * $depth;
        if ($what =~ /\A(\w+)\(\);\z/) {
            push @bad, "'$l': a leaf without its duration" unless defined $dur;
            push @got, "> $1", "< $1";
        } elsif ($what =~ /\A(\w+)\(\) \{\z/) {
            push @bad, "'$l': an open call with a duration" if defined $dur;
            push @got, "> $1";
            push @stack, $1;
        } elsif ($what =~ m{\A\} /\* (\w+) \*/\z}) {
            my $top = pop @stack;
            push @bad, "'$l': closes " . ($top // 'nothing') unless defined $top && $top eq $1 && defined $dur;
            push @got, "< $1";
        } else {
            push @bad, "'$l'";
        }
    }
    is_deeply(\@bad, [], 'text: every line well formed, indented by depth, braces matched');
    is(first_diff(\@got, \@want), '', 'text: the calls and returns of the JSON lines trace');

    ($st, $out, $err) = traced([$oprog, 3], env => { %graph, MCOUNT_TRACE_FILTER => '*',
        MCOUNT_TRACE_FORMAT => 'chrome', MCOUNT_TRACE_OUTPUT => "$od/t.chrome.json", MCOUNT_TRACE_DIR => $ctl });
    is($st, 0, 'chrome: exits 0') or diag $err;
    my $doc = eval { JSON::PP->new->decode(slurp("$od/t.chrome.json")) };
    ok($doc && ref $doc->{traceEvents} eq 'ARRAY', 'chrome: one JSON document with traceEvents') or diag $@;
    my @ce = @{ $doc->{traceEvents} // [] };
    my @cg = map { "$_->{ph} $_->{name}" } grep { $_->{ph} =~ /\A[BE]\z/ } @ce;
    is(first_diff(\@cg, [map { s/\A>/B/r =~ s/\A</E/r } @want]), '',
        'chrome: B and E events, in the order of the JSON lines trace');
    my @unnamed = grep { $_->{ph} =~ /\A[BE]\z/ && !$names{$_->{name}} } @ce;
    is(scalar @unnamed, 0, 'chrome: every name is an nm symbol of the program');
    my ($meta) = grep { $_->{ph} eq 'M' } @ce;
    is($meta && "$meta->{name} $meta->{args}{name}", 'thread_name oracle', 'chrome: the thread\'s name');
    my @ts = map { $_->{ts} } grep { $_->{ph} ne 'M' } @ce;
    ok(!grep({ $ts[$_] < $ts[$_ - 1] } 1 .. $#ts), 'chrome: timestamps (µs) in order');
    # (the timestamps read in the file's text: a decoded 12.000 is 12)
    my @whole = slurp("$od/t.chrome.json") =~ /"ts":(\d+)(?![.\d])/g;
    ok(!grep({ $_->{ph} ne 'M' && $_->{pid} != $_->{tid} } @ce) && !@whole,
        'chrome: pid and tid of the one thread, fractional timestamps');

    # the function tracer in Chrome's format: instant events
    ($st, $out, $err) = traced([$oprog, 3], env => { MCOUNT_TRACE_FILTER => 'leaf',
        MCOUNT_TRACE_FORMAT => 'chrome', MCOUNT_TRACE_OUTPUT => "$od/f.chrome.json", MCOUNT_TRACE_DIR => $ctl });
    $doc = eval { JSON::PP->new->decode(slurp("$od/f.chrome.json")) };
    my @fe = grep { $_->{ph} ne 'M' } @{ $doc->{traceEvents} // [] };
    $leaves = grep { $_ eq '> leaf' } @want;
    is(scalar(grep { $_->{ph} eq 'i' && $_->{name} eq 'leaf' } @fe), $leaves,
        "chrome, function tracer: one instant event a call of leaf ($leaves)");
}

# ---- drap.c: a frame whose return address is a copy (GCC's DRAP) ------------
# Under mcount, after the prologue, drapf's 8(%rbp) is a copy of its
# return address and it returns through the real slot: its returns are
# not hooked (noexit) and every other one is, the log's calls and returns
# one for one.  __fentry__ runs before the prologue: every return hooked.
# The same with GCC's -mnop-mcount and its own table (mcount-cc leaves it).
for my $v (['DRAP mcount PIE preloaded', '-pg', [], [], ['drapf']],
           ['DRAP -mnop-mcount -no-pie preloaded', '-pg -mnop-mcount -mrecord-mcount', ['-fno-pie'],
            ['-no-pie'], ['drapf']],
           ['DRAP fentry PIE preloaded', '-pg -mfentry', [], [], []]) {
    my ($name, $hook, $cflags, $ldflags, $noexit) = @$v;
    (my $tag = $name) =~ s/[^A-Za-z0-9]+/_/g;
    my $d = "$dir/$tag";
    mkdir $d or die;
    mcc_build($hook, "$d/drap.o", "$TSRC/drap.c", '-O2', '-finstrument-functions', @$cflags);
    my $prog = link_prog("$d/drap", "$d/drap.o", "$dir/cyg.o", @$ldflags);
    like(must('objdump', '-d', $prog), qr/<drapf>:\n(?:.*\n){0,2}.*\tlea\s+0x8\(%rsp\),%r10\n.*\tand\s+\$0xf+c0,%rsp\n/,
        "$name: drapf realigns its stack through %r10 (objdump)");
    my ($st, $out, $err) = traced([$prog, 1], env => { MCOUNT_TRACE_FILTER => '*', %graph, CYG_LOG => "$d/cyg.log",
        MCOUNT_TRACE_OUTPUT => "$d/trace.json", MCOUNT_TRACE_FORMAT => 'json', MCOUNT_TRACE_DIR => $ctl });
    is($st, 0, "$name: exits 0 traced") or diag $err;
    is($err, '', "$name: the library says nothing");
    is($out, plain_output("$TSRC/drap.c", 'gcc', 1), "$name: the output of the plain build");
    graph_compare($name, $prog, "$d/cyg.log", ["$d/trace.json"], 0);
    my ($ev) = read_graph_json("$d/trace.json");
    my %ne = map { $_->{func} => 1 } grep { $_->{noexit} } @$ev;
    is_deeply([sort keys %ne], $noexit, "$name: the functions whose returns are not hooked: @$noexit");
}

# ---- hazards.c, unwind.cc ---------------------------------------------------

for my $v (['fentry PIE', '-pg -mfentry', [], []], ['mcount -no-pie', '-pg', ['-fno-pie'], ['-no-pie']]) {
    my ($vn, $hook, $cf, $lf) = @$v;
    (my $tag = $vn) =~ s/[^A-Za-z0-9]+/_/g;
    my $d = "$dir/hz_$tag";
    mkdir $d or die;
    mcc_build($hook, "$d/hazards.o", "$TSRC/hazards.c", '-O2', '-finstrument-functions', @$cf);
    my $prog = link_prog("$d/hazards", "$d/hazards.o", "$dir/cyg.o", '-lpthread', @$lf);
    my ($st, $out, $err) = traced([$prog], env => { %graph, MCOUNT_TRACE_FILTER => '*',
        CYG_LOG => "$d/cyg.log", MCOUNT_TRACE_OUTPUT => "$d/trace.json", MCOUNT_TRACE_FORMAT => 'json',
        MCOUNT_TRACE_DIR => $ctl });
    is($st, 0, "hazards $vn: exits 0") or diag $err;
    is($err, '', "hazards $vn: the library says nothing");
    is($out, plain_output("$TSRC/hazards.c", 'gcc'), "hazards $vn: the output of the plain build");
    my @files = ("$d/trace.json", glob "$d/trace.json.*");
    is(scalar @files, 2, "hazards $vn: a trace of the parent and of the forked child");
    my $ev = graph_compare("hazards $vn", $prog, "$d/cyg.log", \@files, 0);
    is(hazards_unwound($ev), $HAZARDS_UNWOUND,
        "hazards $vn: frames left by longjmp, siglongjmp and pthread_exit marked unwound");
}

for my $v (['fentry PIE', '-pg -mfentry'], ['mcount PIE', '-pg']) {
    my ($vn, $hook) = @$v;
    (my $tag = $vn) =~ s/[^A-Za-z0-9]+/_/g;
    my $d = "$dir/uw_$tag";
    mkdir $d or die;
    # C++: mcount-cc records at the link
    my ($st, $o, $e) = run_cmd([$TOP . '/bin/mcount-cc', 'g++', '-O2', '-finstrument-functions', '-c',
        "$TSRC/unwind.cc", '-o', "$d/unwind.o"], env => { MCOUNT_CC_FLAGS => $hook });
    is($st, 0, "unwind.cc $vn: compiles") or diag "$o$e";
    ($st, $o, $e) = run_cmd([$TOP . '/bin/mcount-cc', 'g++', '-o', "$d/unwind", "$d/unwind.o", "$dir/cyg.o"],
        env => { MCOUNT_CC_FLAGS => $hook });
    is($st, 0, "unwind.cc $vn: links") or diag "$o$e";
    my $out;
    ($st, $out, $e) = traced(["$d/unwind"], env => { %graph, MCOUNT_TRACE_FILTER => '*',
        CYG_LOG => "$d/cyg.log", MCOUNT_TRACE_OUTPUT => "$d/trace.json", MCOUNT_TRACE_FORMAT => 'json',
        MCOUNT_TRACE_DIR => $ctl });
    is($st, 0, "unwind.cc $vn: exits 0 (no std::terminate)") or diag $e;
    is($e, '', "unwind.cc $vn: the library says nothing");
    is($out, plain_output("$TSRC/unwind.cc", 'g++'), "unwind.cc $vn: the output of the plain build");
    my $ev = graph_compare("unwind.cc $vn", "$d/unwind", "$d/cyg.log", ["$d/trace.json"], 1);
    is(scalar(grep { $_->{unwound} } @$ev), $UNWIND_UNWOUND,
        "unwind.cc $vn: the frames left by the throws marked unwound");
}

# ---- stress: threads, a signal handler, live switches ---------------------------

{
    my $d = "$dir/stress";
    mkdir $d or die;
    mcc_build('-pg -mfentry', "$d/gs.o", "$TSRC/graph_stress.c", '-O2');
    my $prog = link_prog("$d/gs", "$d/gs.o", '-lpthread');
    my $syms = nm_funcs($prog);
    my %names = map { $_->[2] => 1 } @$syms;
    my ($st, $out, $err) = traced([$prog, 500, 3], env => { %graph, MCOUNT_TRACE_FILTER => 'g_*',
        MCOUNT_TRACE_FORMAT => 'chrome', MCOUNT_TRACE_OUTPUT => "$d/trace.json", MCOUNT_TRACE_DIR => $ctl });
    is($st, 0, 'stress: exits 0') or diag $err;
    is($out, "stress done: bad 0 api errors 0 signals handled\n",
        'stress: every result right, every switch answered, signals handled');
    my $doc = eval { chrome_doc(JSON::PP->new, slurp("$d/trace.json")) };
    ok($doc, 'stress: the Chrome trace is one JSON document') or diag $@;
    my (%open, @bad, %n, %named);
    for my $e (@{ $doc->{traceEvents} // [] }) {
        $n{$e->{ph}}++;
        $named{ $e->{tid} }++ if $e->{ph} eq 'M' && $e->{name} eq 'thread_name';
        next unless $e->{ph} =~ /\A[BE]\z/;
        push @bad, "unknown name $e->{name}" unless $names{$e->{name}};
        if ($e->{ph} eq 'B') {
            push @{ $open{$e->{tid}} }, $e->{name};
        } else {
            my $top = pop @{ $open{$e->{tid}} };
            push @bad, "tid $e->{tid}: E $e->{name} closes " . ($top // 'nothing')
                unless defined $top && $top eq $e->{name};
        }
    }
    is_deeply([@bad[0 .. ($#bad < 4 ? $#bad : 4)]], [], 'stress: B and E well nested in each thread');
    # (the file is written drain after drain: a thread is named once)
    is_deeply([grep { $named{$_} != 1 } sort keys %named], [], 'stress: each thread named once in the file')
        or diag join ' ', map { "$_:$named{$_}" } sort keys %named;
    cmp_ok(scalar keys %named, '>=', 4, 'stress: ' . scalar(keys %named) . ' threads named');
    cmp_ok($n{B} // 0, '>', 1000, 'stress: ' . ($n{B} // 0) . ' calls, ' . ($n{i} // 0)
        . ' function tracer events between switches');
}

# ---- a switch of the tracer before the trace is written ------------------------

{
    my $d = "$dir/switch";
    mkdir $d or die;
    mcc_build('-pg -mfentry', "$d/ss.o", "$TSRC/switch_show.c", '-O2', "-I$RTINC");
    my $prog = link_prog("$d/ss", "$d/ss.o", $LIBA, '-lpthread');
    my $graph_leaf = qr/^ *\d+\) .*\| [ +!#*\@\$] [\d.]+ us +\| +leaf\(\);$/m;
    my $fn_leaf = qr/^ +ss-\d+ +\[\d+\] [^:]+: leaf <-mid$/m;
    # written by the program itself, after the switch
    my ($st, $out, $err) = run_cmd([$prog], env => { MCOUNT_TRACE_OUTPUT => '', MCOUNT_TRACE_DIR => $ctl });
    is("$st $err", '0 ', 'switch, written by the program: runs, no message');
    my ($g, $f) = $out =~ /\A--- graph\n(.*)--- function\n(.*)--- 28\n\z/s;
    is(scalar(() = ($g // '') =~ /$graph_leaf/g), 2,
        "switch: the events of function_graph, written after the switch, keep its style (2 leaf(); lines)")
        or diag $out;
    is(scalar(() = ($f // '') =~ /$fn_leaf/g), 2, "switch: those after it are the function tracer's (2 leaf <-mid)")
        or diag $out;
    # with a file, the switch writes the events so far to it, under
    # function_graph's header; the program's own write then gets nothing
    # of them, and the later events in the function tracer's style
    ($st, $out, $err) = run_cmd([$prog], env => { MCOUNT_TRACE_OUTPUT => "$d/t.txt", MCOUNT_TRACE_DIR => $ctl });
    is("$st $err", '0 ', 'switch, to a file: runs, no message');
    my $file = slurp("$d/t.txt");
    my ($fg) = $file =~ /^# tracer: function_graph\n(.*)\z/ms;
    is(scalar(() = ($fg // '') =~ /$graph_leaf/g), 2, 'switch, to a file: a function_graph section, 2 leaf(); lines')
        or diag $file;
    ($g, $f) = $out =~ /\A--- graph\n(.*)--- function\n(.*)--- 28\n\z/s;
    is($g, '', 'switch, to a file: nothing of them left for the program') or diag $out;
    is(scalar(() = ($f // '') =~ /$fn_leaf/g), 2, 'switch, to a file: the later events, 2 leaf <-mid') or diag $out;
}

# ---- the command ------------------------------------------------------------------

{
    my $d = "$dir/cli";
    mkdir $d or die;
    local $ENV{MCOUNT_TRACE_DIR} = $ctl;
    my ($st, $out, $err) = mt_cli('run', '-g', '--format=chrome', '-f', 'leaf', '-o', "$d/g.json", '--',
        $oprog, 3);
    is($st, 0, 'run -g --format=chrome: exits 0') or diag $err;
    my $doc = eval { JSON::PP->new->decode(slurp("$d/g.json")) };
    is(join(' ', map { "$_->{ph}$_->{name}" } grep { $_->{ph} ne 'M' } @{ $doc->{traceEvents} // [] }),
        join(' ', ('Bleaf Eleaf') x $leaves), 'run -g: each call of leaf a B and an E');
    ($st, $out, $err) = mt_cli('run', '--tracer=function_graph', '-f', 'mid', '-o', "$d/g.txt", '--', $oprog, 1);
    like(slurp("$d/g.txt"), qr/\A# tracer: function_graph\n.*\| [ +!#*\@\$] \d+(?:\.\d+)? us +\|  mid\(\);\n/s,
        'run --tracer=function_graph: the graph text format');
    ($st, $out, $err) = mt_cli('run', '--tracer=graph', '--', $oprog);
    is($st, 2, 'run --tracer=graph: bad usage');

    # live: a program that waits; switch its tracer and show the trace
    my $prog = "$dir/stress/gs";
    # (it runs a minute, ended once the checks are done: on a loaded
    # machine a 4 s run had ended before the last of them)
    my $pid = start_bg([$prog, 60000, 1], env => { LD_PRELOAD => $SO, MCOUNT_TRACE_FILTER => 'g_leaf',
        MCOUNT_TRACE_OUTPUT => '' }, out => "$d/bg.out", err => "$d/bg.err");
    ok(wait_for(10, sub { -S "$ctl/$pid" }), 'a program runs with its control socket');
    ($st, $out) = mt_cli('tracer', $pid);
    # graph_stress switches the tracer itself; it answers one of the two
    like($out, qr/\A(function|function_graph)\n\z/, "tracer PID: prints the current tracer ($out)");
    ($st, $out, $err) = mt_cli('tracer', $pid, 'nonsense');
    is($st, 2, 'tracer PID nonsense: bad usage');
    ($st, $out, $err) = mt_cli('show', '--format=chrome', $pid);
    is($st, 0, 'show --format=chrome: exits 0') or diag $err;
    my $sd = eval { chrome_doc(JSON::PP->new, $out) };
    ok($sd && ref $sd->{traceEvents} eq 'ARRAY', 'show --format=chrome: a whole Chrome document') or diag $@;
    ($st, $out) = mt_cli('status', $pid);
    like($out, qr/^tracer: function(_graph)?$/m, 'status names the tracer');
    like($out, qr/^frames left without returning: \d+$/m, 'status counts unwound frames');
    kill 'TERM', $pid;
    stop_bg($pid, 30);
}

# ---- the clock -------------------------------------------------------------------
# Times are CLOCK_MONOTONIC's: each call of nap(1200 ms) must start after
# the program's own reading before it and end before its reading after
# it, to within 20 us, and last at least what nanosleep slept; the text
# gives the kernel's marks of how long ($ over 1 s).  (A rate of the TSC
# measured once at start-up was 200 ppm off here: 240 us a call.)
{
    my $d = "$dir/clock";
    mkdir $d or die;
    link_prog("$d/nap", mcc_build('-pg -mfentry', "$d/nap.o", "$TSRC/nap.c", '-O2'));
    my ($st, $out, $err) = traced(["$d/nap", 1200, 4], env => { %graph, MCOUNT_TRACE_FILTER => 'nap',
        MCOUNT_TRACE_FORMAT => 'json', MCOUNT_TRACE_OUTPUT => "$d/t.json", MCOUNT_TRACE_DIR => $ctl });
    is($st, 0, 'clock: nap runs') or diag $err;
    my @prog = map { [split / /] } split /\n/, $out;
    my @ev = map { JSON::PP->new->decode($_) } grep { /\A\{/ } split /\n/, slurp("$d/t.json");
    my @in = grep { ($_->{func} // '') eq 'nap' } @ev;
    my @outs = grep { ($_->{exit} // '') eq 'nap' } @ev;
    is(scalar @in, 4, 'clock: an entry each call');
    is(scalar @outs, 4, 'clock: an exit each call');
    my @bad;
    for my $i (0 .. 3) {
        my ($a, $b) = @{ $prog[$i] // [0, 0] };
        my ($t0, $t1, $dur) = ($in[$i]{ts} // 0, $outs[$i]{ts} // 0, $outs[$i]{duration} // 0);
        push @bad, "call $i: entry $t0 before the program's $a" if $t0 < $a - 20e-6;
        push @bad, "call $i: exit $t1 after the program's $b" if $t1 > $b + 20e-6;
        push @bad, "call $i: $dur s, shorter than its 1.2 s sleep" if $dur < 1.2 - 20e-6;
        push @bad, "call $i: $dur s, longer than the program saw (" . ($b - $a) . ')' if $dur > $b - $a + 20e-6;
    }
    is_deeply(\@bad, [], 'clock: each call between the program\'s readings, its duration its sleep');
    ($st, $out, $err) = traced(["$d/nap", 15, 1], env => { %graph, MCOUNT_TRACE_FILTER => 'nap',
        MCOUNT_TRACE_OUTPUT => "$d/t.txt", MCOUNT_TRACE_DIR => $ctl });
    # (the mark by the value: a late wake-up may take it past 100 ms; the
    # call on one line, or, where the trace was written out during it,
    # its entry in one write and its end, "} /* nap */", in the next)
    my ($mark, $us) = slurp("$d/t.txt") =~ /\| (.) (\d+(?:\.\d+)?) us +\|  (?:nap\(\);|\} \/\* nap \*\/)$/m;
    my $want = !defined $us ? 'none' : $us > 1e6 ? '$' : $us > 1e5 ? '@' : $us > 1e4 ? '*' : '?';
    ok(defined $us && $us >= 15000 && $mark eq $want, "clock: 15 ms or more marked $want (got '"
        . ($mark // '') . "', " . ($us // 'no') . ' us)');
    like($us // '', qr/\A(?:\d{5}\.\d{2}|\d{6}\.\d|\d{7})\z/, 'clock: seven digits, as many decimals as fit');
}

done_testing();
