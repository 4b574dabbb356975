#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# libmcount-trace under load: eight threads call f0..f7 in tight loops
# (t/src/trace/stress.c) while their call sites are switched between NOP
# and call 1,000 times through the C API (100,000 with STRESS_FULL=1,
# as make check-slow runs it), with the library preloaded and linked in
# (libmcount-trace.a); then live from outside, through
# bin/mcount-trace enable/disable PID and the control socket itself;
# and again (1,000 times; 20,000) with worker threads that block every
# signal, and with GCC's -mnop-mcount sites (NOPs from the start, their
# calls written by the library).
# The program installs its own SIGTRAP handler, which counts the traps
# that reach it: none may (every trap at a site being patched is the
# library's).  No crash, every function still computes what it computes
# (each thread checks every result, and a final sum must equal the plain
# build's), and every line of the text trace is well formed (a strict
# reading of the kernel's format): only f0..f7, called from round_of, f2
# or f6, by the hammering threads, each thread's times in order.  Last,
# 600 short-lived threads each make one traced call: 600 events, and the
# resident memory stays bounded.  And full buffers (t/src/trace/burst.c:
# 4 threads x 200,000 calls into buffers of 256 events): by default the
# events kept and the events reported lost add up to the calls, each
# thread's to its own; with MCOUNT_TRACE_FULL=wait (run --wait) nothing
# is lost, in the function and the function_graph tracer (whose text
# has the kernel's marker at each change of thread).  The toggling
# and the full buffers again with events that carry payload slots: six
# argument words (MCOUNT_TRACE_ARGS), return values (MCOUNT_TRACE_RETVAL).
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use Time::HiRes qw(time);
use TestUtil qw(must run_cmd tmpdir slurp spit);
use TraceTest qw($SO $LIBA $TSRC clean_env mcc_build link_prog traced read_text each_text_event text_line wait_for
    start_bg stop_bg mt_cli mt_request);

clean_env();
my $dir = tmpdir();
my $ctl = "$dir/ctl";
$ENV{MCOUNT_TRACE_DIR} = $ctl;     # for the program and for mcount-trace alike
# (each change reads every thread's signal mask in /proc before it writes
# a breakpoint, about a millisecond with eight threads running, and a
# change meets a thread at a site being patched some 13 times, as strace
# counts the returns from the trap handler: by default 1,000 changes in
# each of the seven runs, a few seconds of both processors and a trace
# of half a million lines or so each; make check-slow sets STRESS_FULL=1:
# 100,000 in the first two, 20,000 in the others, and traces of
# gigabytes, read line by line)
my $TOGGLES = $ENV{STRESS_FULL} ? 100_000 : 1_000;
my $MORE = $ENV{STRESS_FULL} ? 20_000 : 1_000;     # the other runs' count

must('gcc', '-O2', '-pthread', '-o', "$dir/plain", "$TSRC/stress.c");
my ($want_check) = must("$dir/plain", 'api', 0, 0) =~ /^check=(\d+)$/m;
ok(defined $want_check, "the plain build's check sum: " . ($want_check // 'none'));

mcc_build('-pg -mfentry', "$dir/stress.o", "$TSRC/stress.c", '-O2', '-pthread');
my $so_prog = link_prog("$dir/stress", "$dir/stress.o", '-pthread');
my $a_prog = link_prog("$dir/stress_a", "$dir/stress.o", $LIBA, '-pthread');

my %F = map { ("f$_" => 1) } 0 .. 7;
my %PARENT = (round_of => 1, f2 => 1, f6 => 1);

# The trace file read strictly; returns the number of events.
sub trace_ok {
    my ($name, $file) = @_;
    # (read a few MB at a time: the trace is gigabytes)
    my (@bad, %last, $n, $lost);
    # (most lines, read the quick way: an event of f0..f7 called from
    # round_of, f2 or f6 by a hammering thread, as text_line reads it: its
    # tid padded to 7 or longer, unpadded; its seconds 6 wide or wider;
    # the rest as every line was before, a line the quick way did not
    # take among them)
    my $body = qr/ {9}hammer\d-(?|(\d{7,})|(?=[\d ]{7} \[)(\d{1,6}) +) \[\d{3}\] (?=[ \d]{6})( *\d+)\.(\d{6}): f[0-7] <-(?:round_of|f2|f6)/;
    my $quick = qr/\A$body\z/;
    # (the seconds' leading spaces are none of the number's digits; a
    # few MB of such lines at a time, or one)
    my $take_all = sub {
        my ($line, $c) = @_;
        for (my $i = 0; $i < @$c && @bad <= 10; $i += 3) {
            my ($tid, $t) = ($c->[$i], $c->[$i + 1] . $c->[$i + 2]);
            push @bad, 'line ' . ($line + $i / 3) . ": thread $tid went back in time ("
                . ($c->[$i + 1] =~ tr/ //dr) . ".$c->[$i + 2])" if defined $last{$tid} && $t < $last{$tid};
            $last{$tid} = $t;
            $n++;
        }
        return 1;
    };
    my $take = sub { my $line = shift; $take_all->($line, [@_]) };
    my $errs = each_text_event($file, sub {
        my ($e) = @_;
        return if @bad > 10;
        if (exists $e->{lost}) {
            $lost += $e->{lost};
            push @bad, "line $e->{line}: lost line of thread $e->{comm}" unless $e->{comm} =~ /\Ahammer\d\z/;
            return;
        }
        $n++;
        push @bad, "line $e->{line}: function $e->{func}" unless $F{ $e->{func} };
        push @bad, "line $e->{line}: parent $e->{parent}" unless $PARENT{ $e->{parent} };
        push @bad, "line $e->{line}: thread $e->{comm}" unless $e->{comm} =~ /\Ahammer\d\z/;
        (my $us = $e->{sec}) =~ s/\.//;
        push @bad, "line $e->{line}: thread $e->{tid} went back in time ($e->{sec})"
            if defined $last{ $e->{tid} } && $us < $last{ $e->{tid} };
        $last{ $e->{tid} } = $us;
    }, fast => [$quick, $take], block => [$body, 3, $take_all]);
    # (the quick way's lines are lines the strict reader takes: its first
    # 2,000 each read by text_line too)
    my (@refused, $k);
    if (open(my $fh, '<', $file)) {
        $k = 0;
        while (defined(my $l = <$fh>) && $k < 2000) {
            chomp $l;
            next unless $l =~ $quick;
            $k++;
            my $e = text_line($l);
            push @refused, $l unless $e && $F{ $e->{func} } && $PARENT{ $e->{parent} };
        }
    }
    ok(($k // 0) > 0 && !@refused, "$name: the lines read the quick way ($k of them) are events the strict "
        . 'reader reads') or diag explain [@refused[0 .. ($#refused < 2 ? $#refused : 2)]];
    is_deeply([@$errs[0 .. ($#$errs < 4 ? $#$errs : 4)]], [], "$name: every line of the trace is well formed"
        . (@$errs ? ' (' . scalar(@$errs) . ' bad)' : ''));
    is_deeply(\@bad, [], "$name: each event is f0..f7 <- round_of/f2/f6 of a hammering thread, "
        . "each thread's times in order");
    cmp_ok($n // 0, '>', 0, "$name: " . ($n // 0) . ' events, ' . ($lost // 0) . ' lost to full buffers');
    cmp_ok(scalar keys %last, '>=', 2, "$name: events from " . scalar(keys %last) . ' threads');
    return;
}

# The program's report: exit 0, no stray trap, no error, the plain sum.
sub report_ok {
    my ($name, $st, $out, $err) = @_;
    is($st, 0, "$name: exits 0") or diag "status $st\n$err";
    my ($calls, $traps, $errors) = $out =~ /^calls=(\d+) traps=(\d+) errors=(\d+)$/m;
    my ($check) = $out =~ /^check=(\d+)$/m;
    cmp_ok($calls // 0, '>', 0, "$name: " . ($calls // 0) . ' calls made');
    is($traps, 0, "$name: no SIGTRAP reached the program's own handler");
    is($errors, 0, "$name: every enable and disable succeeded") if defined $errors;
    is($check, $want_check, "$name: the functions compute what the plain build computes");
    # A full buffer is reported at exit; anything else is not expected.
    my @msg = grep { !/\Amcount-trace: \d+ events lost: their threads' buffers were full/ } split /\n/, $err;
    is_deeply(\@msg, [], "$name: no message but the count of events lost");
    return;
}

for my $v (['preloaded', $so_prog, 1], ['linked in', $a_prog, 0]) {
    my ($name, $prog, $preload) = @$v;
    my $trace = "$dir/trace-" . ($preload ? 'so' : 'a') . '.txt';
    my $t0 = time;
    my ($st, $out, $err) = traced([$prog, 'api', $TOGGLES, 8], preload => $preload, timeout => 900,
        env => { MCOUNT_TRACE_OUTPUT => $trace, MCOUNT_TRACE_BUFFER => 4096 });
    note(sprintf '%s: %d toggles in %.1f s', $name, $TOGGLES, time - $t0);
    report_ok("$name, $TOGGLES toggles through the C API", $st, $out, $err);
    trace_ok("$name, $TOGGLES toggles through the C API", $trace);
    unlink $trace;
}

# Worker threads that block every signal (as many programs' do): a trap
# at a site being patched must still be the library's, not a kill.
for my $v (['preloaded', $so_prog, 1], ['linked in', $a_prog, 0]) {
    my ($name, $prog, $preload) = @$v;
    $name .= ', workers block every signal';
    my $trace = "$dir/trace-block.txt";
    my ($st, $out, $err) = traced([$prog, 'api', $MORE, 8], preload => $preload, timeout => 900,
        env => { STRESS_BLOCK_ALL => 1, MCOUNT_TRACE_OUTPUT => $trace, MCOUNT_TRACE_BUFFER => 1024 });
    report_ok("$name, $MORE toggles", $st, $out, $err);
    trace_ok("$name, $MORE toggles", $trace);
    unlink $trace;
}

# GCC's -mnop-mcount and its own table (non-PIC code only): every site
# is a NOP from the start and its call is one the library writes (to a
# trampoline, preloaded: the library is beyond a call's reach from a
# non-PIE program's text).
must('gcc', '-O2', '-pthread', '-fno-pie', '-pg', '-mfentry', '-mnop-mcount', '-mrecord-mcount', '-c',
    "$TSRC/stress.c", '-o', "$dir/stress_nop.o");
for my $v (['preloaded', 1, '-ldl'], ['linked in', 0, $LIBA]) {
    my ($name, $preload, $with) = @$v;
    $name = "-mnop-mcount, $name";
    my $prog = link_prog("$dir/stress_nop$preload", '-no-pie', "$dir/stress_nop.o", $with, '-pthread');
    my $trace = "$dir/trace-nop.txt";
    my ($st, $out, $err) = traced([$prog, 'api', $MORE, 8], preload => $preload, timeout => 900,
        env => { MCOUNT_TRACE_OUTPUT => $trace, MCOUNT_TRACE_BUFFER => 4096 });
    report_ok("$name, $MORE toggles", $st, $out, $err);
    trace_ok("$name, $MORE toggles", $trace);
    unlink $trace;
}

# The same with every event carrying six raw argument words (payload
# slots in the ring while sites switch and the drain runs): each event
# has them, and without them the trace reads as above.
{
    my $name = 'preloaded, six argument words an event';
    my $trace = "$dir/trace-args.txt";
    my ($st, $out, $err) = traced([$so_prog, 'api', $MORE, 8], timeout => 900,
        env => { MCOUNT_TRACE_OUTPUT => $trace, MCOUNT_TRACE_BUFFER => 4096, MCOUNT_TRACE_ARGS => 6 });
    report_ok("$name, $MORE toggles", $st, $out, $err);
    my $text = slurp($trace);
    my $args = () = $text =~ /: f\d\((?:0x[0-9a-f]+, ){5}0x[0-9a-f]+\) <-/g;
    my $events = () = $text =~ /: f\d\b/g;
    is($args, $events, "$name: each of the $events events has its six words");
    $text =~ s/(: f\d)\((?:0x[0-9a-f]+, ){5}0x[0-9a-f]+\)/$1/g;
    spit("$trace.bare", $text);
    trace_ok("$name, $MORE toggles", "$trace.bare");
}

# From outside, while the threads hammer: mcount-trace enable/disable
# PID, then the same requests straight on the socket, many more times.
{
    my $name = 'live from outside';
    my $trace = "$dir/trace-live.txt";
    my $go = "$dir/go";
    # (the program niced: its threads and the library's patching are as
    # ever among themselves, and the commands from outside get a
    # processor when they ask, not after eight spinning threads)
    my $pid = start_bg([$so_prog, 'wait', $go, 8], out => "$dir/live.out", err => "$dir/live.err", nice => 10,
        env => { LD_PRELOAD => $SO, MCOUNT_TRACE_OUTPUT => $trace, MCOUNT_TRACE_BUFFER => 1024 });
    ok(wait_for(120, sub { -e "$go.ready" && -S "$ctl/$pid" }), "$name: the program runs, its socket is there");
    my @fail;
    my $t0 = time;
    for my $i (1 .. 10) {
        my $glob = ('f*', 'f0,f3', 'f[1-4]', 'f5 f6 f7')[$i % 4];
        for my $verb (qw(enable disable)) {
            my ($code, undef, $e) = mt_cli($verb, $pid, $glob);
            push @fail, "$verb $glob: exit $code: $e" if $code != 0 || $e =~ /\S/ && $e !~ /warning: no function/;
        }
    }
    is_deeply([@fail[0 .. ($#fail < 4 ? $#fail : 4)]], [], "$name: 10 rounds of mcount-trace enable and disable");
    note(sprintf '%s: 20 mcount-trace commands in %.1f s', $name, time - $t0);
    $t0 = time;
    my $bad = 0;
    for my $i (1 .. 200) {
        my $glob = ('f*', 'f2', 'f?', 'f6:mod:stress')[$i % 4];
        for my $verb (qw(enable disable)) {
            my $a = mt_request($ctl, $pid, "$verb $glob") // '(no answer)';
            $bad++, diag("$verb $glob: '$a'") if $a !~ /\Aok \d+\n\z/ && $bad < 5;
        }
    }
    note(sprintf '%s: 400 requests in %.1f s', $name, time - $t0);
    is($bad, 0, "$name: 200 rounds of enable and disable on the socket, each answered ok N");
    my $status = mt_request($ctl, $pid, 'status') // '';
    like($status, qr/^functions traced: 0$/m, "$name: status: 0 functions traced after the last disable");
    spit($go, '');
    my $st = stop_bg($pid, 300);
    report_ok($name, $st, slurp("$dir/live.out"), slurp("$dir/live.err"));
    trace_ok($name, $trace);
}

# Thread churn: threads that come and go, each making one traced call.
# Every call is in the trace, and memory stays bounded (one thread lives
# at a time; a plain run needs a few MB).
{
    my $name = 'thread churn';
    my $trace = "$dir/trace-churn.txt";
    my ($st, $out, $err) = traced([$so_prog, 'churn', 600], timeout => 600,
        env => { MCOUNT_TRACE_FILTER => 'f0', MCOUNT_TRACE_OUTPUT => $trace });
    is($st, 0, "$name: 600 threads, one after the other: exit 0") or diag $err;
    my ($rss) = $out =~ /^rss=(\d+)$/m;
    cmp_ok($rss // 1e9, '<', 256 * 1024, "$name: resident memory at the end " . ($rss // '?') . ' kB (< 256 MB)');
    my ($ev, $errs) = read_text($trace);
    is_deeply([@$errs[0 .. ($#$errs < 4 ? $#$errs : 4)]], [], "$name: the trace is well formed");
    my %tids = map { ($_->{tid} => 1) } grep { !exists $_->{lost} && $_->{func} eq 'f0' } @$ev;
    is(scalar(grep { !exists $_->{lost} } @$ev), 600, "$name: one f0 event per thread");
    is_deeply(\@{[ grep { !/\Amcount-trace: \d+ events lost/ } split /\n/, $err ]}, [], "$name: no message");
}

# ---- full buffers ----
{
    my ($nt, $calls) = (4, 200_000);
    must('gcc', '-O2', '-pthread', '-o', "$dir/burst_plain", "$TSRC/burst.c");
    my $want = must("$dir/burst_plain", $nt, $calls);
    mcc_build('-pg -mfentry', "$dir/burst.o", "$TSRC/burst.c", '-O2', '-pthread');
    my $prog = link_prog("$dir/burst", "$dir/burst.o", '-pthread');
    # with arguments (function) and return values (function_graph): an
    # event and its payload slots are kept or lost together
    for my $mode (['drop', 'function'], ['wait', 'function'], ['wait', 'function_graph'],
        ['drop', 'function', { MCOUNT_TRACE_ARGS => 6 }], ['wait', 'function_graph', { MCOUNT_TRACE_RETVAL => 1 }]) {
        my ($full, $tracer, $extra) = @$mode;
        my $tag = "full buffers, $full, $tracer" . join('', map { ", $_=$extra->{$_}" } sort keys %{ $extra // {} });
        my $file = "$dir/burst-$full-$tracer" . ($extra ? "-x" : "") . ".txt";
        my ($st, $out, $err) = traced([$prog, $nt, $calls], timeout => 600,
            env => { MCOUNT_TRACE_FILTER => 'work', MCOUNT_TRACE_BUFFER => 256, MCOUNT_TRACE_OUTPUT => $file,
                     MCOUNT_TRACE_TRACER => $tracer, $full eq 'wait' ? (MCOUNT_TRACE_FULL => 'wait') : (),
                     %{ $extra // {} } });
        my $args = $extra && $extra->{MCOUNT_TRACE_ARGS} ? qr/\((?:0x[0-9a-f]+, ){5}0x[0-9a-f]+\)/ : qr//;
        my $rv = $extra && $extra->{MCOUNT_TRACE_RETVAL} ? qr/ \/\* = (?:0x[0-9a-f]+|-\d+) \*\// : qr//;
        is($st, 0, "$tag: exits 0") or diag($err);
        is($out, $want, "$tag: prints what the plain build prints");
        my (%kept, %lost, $prev, $mark, @unmarked);
        # (the lines each tracer writes tried first: no line is of two kinds)
        my $graph = $tracer eq 'function_graph';
        my $fn = qr/-(\d+) +\[\d{3}\] +\d+\.\d{6}: work$args <-worker\z/;
        my $leaf = qr/\) +\S+-(\d+) +\| [ +!#*\@\$] [\d.]+ us +\| +work\(\);$rv\z/;
        # a call whose entry and return came in two drains: its return
        my $ret = qr/\) +\S+-(\d+) +\| [ +!#*\@\$] [\d.]+ us +\| +\} \/\* work(?: = (?:0x[0-9a-f]+|-\d+))? \*\/\z/;
        my @kept = $graph ? ($leaf, $ret, $fn) : ($fn, $leaf, $ret);
        LINE: for (split /\n/, slurp($file)) {
            # function_graph: a change of thread has the kernel's marker
            # ("CPU) COMM-TID => COMM-TID" between rules) before it
            if ($graph) {
                if (/\A[ \d]\d\) +\S+-(\d+) +=> +\S+-(\d+) *\z/) {
                    $mark = [$1, $2];
                    next;
                }
                if (/\A[ \d]\d\) +\S+-(\d+) +\|/) {
                    push @unmarked, $_ if defined $prev && $prev != $1 && !($mark && "@$mark" eq "$prev $1");
                    ($prev, $mark) = ($1, undef);
                }
            }
            for my $k (@kept) {
                if ($_ =~ $k) {
                    $kept{$1}++;
                    next LINE;
                }
            }
            if (/-(\d+) *\[LOST (\d+) EVENTS\]/ || /(\d+) +\| *\[LOST (\d+) EVENTS\]/) {
                $lost{$1} += $2 / ($tracer eq 'function' ? 1 : 2);
            }
        }
        is_deeply([@unmarked[0 .. ($#unmarked < 2 ? $#unmarked : 2)]], [], "$tag: each change of thread marked")
            if $tracer eq 'function_graph';
        my @tids = sort keys %{ { %kept, %lost } };
        is(scalar @tids, $nt, "$tag: events of $nt threads");
        my @bad = grep { ($kept{$_} // 0) + ($lost{$_} // 0) != $calls } @tids;
        is_deeply(\@bad, [], "$tag: each thread's calls kept or reported lost, $calls in all")
            or diag(join ' ', map { "$_: kept " . ($kept{$_} // 0) . ' lost ' . ($lost{$_} // 0) } @tids);
        if ($full eq 'wait') {
            is_deeply(\%lost, {}, "$tag: nothing lost");
            unlike($err, qr/lost/, "$tag: no loss reported");
        } else {
            cmp_ok(scalar(keys %lost), '>', 0, "$tag: 256-event buffers do lose events");
            like($err, qr/events lost/, "$tag: the loss is reported at exit");
        }
    }
}

done_testing();
