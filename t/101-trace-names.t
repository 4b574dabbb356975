#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# What a user of the tracer met on real programs, a check each:
#
#   switch_live.c  the tracer switched to function_graph while a thread
#                  is in mid-call and its buffer full: every entry is
#                  written in the style of the tracer it was recorded
#                  under (none of the function tracer's calls reads as a
#                  function_graph call whose return was lost: "noexit",
#                  or a text line without a duration), in a file while
#                  the program runs (the reproduction as the user ran
#                  it) and by show after the switch (no file)
# and mcount-trace run, tracer, show, stop.
use strict;
use warnings;
use Test::More;
use JSON::PP ();
use lib 't/lib';
use TestUtil qw(must run_cmd tmpdir slurp spit);
use TraceTest qw($MT $TSRC clean_env mcc_build link_prog wait_for start_bg stop_bg mt_cli);

clean_env();
my $dir = tmpdir();
my $ctl = "$dir/ctl";
$ENV{MCOUNT_TRACE_DIR} = $ctl;
local $ENV{LC_ALL} = 'C';

# The entries and exits of a trace in JSON lines: (\@entries, \@exits).
sub json_events {
    my ($text) = @_;
    my $js = JSON::PP->new;
    my (@in, @out);
    for my $l (split /\n/, $text) {
        my $e = eval { $js->decode($l) } or next;
        push @in, $e if exists $e->{func};
        push @out, $e if exists $e->{exit};
    }
    return (\@in, \@out);
}

# ---- a switch of the tracer with calls in progress ----------------------------

mcc_build('-pg -mfentry', "$dir/sl.o", "$TSRC/switch_live.c", '-O2');
my $sl = link_prog("$dir/sl", "$dir/sl.o");

# No file: the program stops in mid(), after 100 calls of leaf under the
# function tracer, is switched to function_graph, makes 100 more, and
# its trace is read with show.
sub steps {
    my ($fmt) = @_;
    my $d = "$dir/steps-$fmt";
    mkdir $d or die "$d: $!";
    my $pid = start_bg([$^X, $MT, 'run', '-o', '', '-f', 'mid', '-f', 'leaf', '--', $sl, 'steps', $d],
        out => "$d/out", err => "$d/err");
    my $ready = wait_for(60, sub { -e "$d/ready" });
    my ($st, $out, $err) = mt_cli('tracer', $pid, 'function_graph');
    is("$st $out", "0 function_graph\n", "switch ($fmt): tracer PID function_graph, in mid-call") or diag $err;
    spit("$d/go", '');
    wait_for(60, sub { -e "$d/done" });
    ($st, $out, $err) = mt_cli("--format=$fmt", 'show', $pid);
    is($st, 0, "switch ($fmt): show") or diag $err;
    spit("$d/end", '');
    is(stop_bg($pid, 60), 0, "switch ($fmt): the program exits 0") or diag slurp("$d/err");
    ok($ready, "switch ($fmt): the program stopped in mid-call");
    return $out;
}

{
    my ($in, $ex) = json_events(steps('json'));
    my @noexit = grep { $_->{noexit} } @$in;
    is(scalar @noexit, 0, 'switch, show json: no entry of the function tracer\'s says noexit')
        or diag scalar(@noexit) . ' do, the first: ' . JSON::PP->new->canonical->encode($noexit[0]);
    is(scalar @$in, 201, 'switch, show json: 201 entries (mid, and leaf 100 times before the switch and after)');
    is(scalar(grep { $_->{exit} eq 'leaf' && defined $_->{duration} } @$ex), 100,
        'switch, show json: the 100 calls of leaf after the switch return');

    my $text = steps('text');
    my ($before, $after) = $text =~ /\A(.*?)^# tracer: function_graph\n#\n#[^\n]*\n#[^\n]*\n(.*)\z/ms;
    ok(defined $after, 'switch, show text: the calls after the switch are under function_graph\'s header')
        or diag $text;
    is(scalar(() = ($before // '') =~ /^ +sl-\d+ +\[\d+\] +\d+\.\d+: leaf <-mid$/mg), 100,
        'switch, show text: before it, 100 lines of the function tracer\'s (leaf <-mid)');
    is(scalar(() = ($after // '') =~ /^ *\d+\) .*\| [ +!#*\@\$] [\d.]+ us +\| +leaf\(\);$/mg), 100,
        'switch, show text: after it, 100 calls of leaf with their durations');
    is(scalar(() = $text =~ /^ *\d+\) [^|]*\| {15}\| +leaf\(\);$/mg), 0,
        'switch, show text: no call of leaf without a duration');
}

# The user's reproduction: a thread that keeps a small buffer full
# (-w: it waits for the drain), switched to function_graph while its
# trace goes to a file.
{
    my $d = "$dir/tight";
    mkdir $d or die "$d: $!";
    my $pid = start_bg([$^X, $MT, 'run', '-w', '-b', '4096', '-f', 'mid', '-f', 'leaf', '--format=json', '-o',
        "$d/tj.json", '--', $sl, 'tight', 4], out => "$d/out", err => "$d/err");
    ok(wait_for(30, sub { -S "$ctl/$pid" }), 'tight: the program runs with its control socket');
    select undef, undef, undef, 1;
    my ($st, $out, $err) = mt_cli('tracer', $pid, 'function_graph');
    is($st, 0, 'tight: tracer PID function_graph') or diag $err;
    select undef, undef, undef, 0.3;
    ($st, $out, $err) = mt_cli('stop', $pid);
    is($st, 0, 'tight: stop PID') or diag $err;
    is(stop_bg($pid, 60), 0, 'tight: the program exits 0') or diag slurp("$d/err");
    # (a million lines: counted, not decoded)
    my $json = -e "$d/tj.json" ? slurp("$d/tj.json") : '';
    my $noexit = () = $json =~ /^\{"comm":.*,"noexit":true\}$/mg;
    my $in = () = $json =~ /^\{"comm":[^\n]*,"func":/mg;
    my $ex = () = $json =~ /^\{"comm":[^\n]*,"exit":/mg;
    is($noexit, 0, 'tight: no entry says noexit');
    ok($ex > 0 && $in > $ex, "tight: calls under both tracers ($in entries, $ex exits)");
}

done_testing();
