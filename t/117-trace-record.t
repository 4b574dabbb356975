#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# mcount-trace record: a recording that survives the program's end,
# whatever it is.  t/src/trace/recorded.c's threads count their own
# calls of mid() (which calls leaf()) and say the counts with write(2);
# then the process exits, dies of SIGSEGV, abort(), SIGKILL, or _exit,
# or forks a child that calls as many more.  The recording is read here
# by this file's own reader of doc/trace-format.md (the rings' headers,
# the streams, the ring's remainder past the stream: not the tool's
# reader), the events' sites named by the program's own symbols
# (readelf) moved by the bias the recording says, which must agree
# with its funcs file: every call the program counted is in it, each
# thread's by its TID, nothing lost, the streams whole where the process
# ended cleanly (a kill in the drain's write may cut the last); `done` written
# where the process ended cleanly and only there.  Also at full speed
# with rings of 1,024 events (the drain waited for, not a loss), under
# function_graph (every entry's exit), and a child after fork recorded
# in a directory of its own.
use strict;
use warnings;
no warnings 'portable';    # 64-bit addresses through hex()
use Test::More;
use lib 't/lib';
use TestUtil qw(must run_cmd tmpdir slurp);
use TraceTest qw($MT $SO $TSRC clean_env mcc_build link_prog nm_funcs);

clean_env();
my $dir = tmpdir();
my $prog = link_prog("$dir/recorded", mcc_build('-pg -mfentry', "$dir/recorded.o", "$TSRC/recorded.c", '-O2'),
    '-pthread');
my %sym = map { ($_->[2] => $_) } @{ nm_funcs($prog) };

# ---- the format's reader --------------------------------------------------

sub lines_of {
    my ($f) = @_;
    return () unless -f $f;
    my $t = slurp($f);
    $t =~ s/[^\n]*\z//;    # a last line cut short: not one
    return split /\n/, $t;
}

# read_process(DIR/PID) -> { info => {...}, bias, funcs => {name => addr},
# threads => { tid => { entries => {func => n}, exits => n, unwound => n,
# lost, stream, recovered, torn } }, done }
sub read_process {
    my ($pd) = @_;
    my %r = (threads => {});
    for (lines_of("$pd/info")) {
        my ($k, $v) = /\A(\S+) (.*)\z/ or next;
        $r{info}{$k} = $v;
    }
    for (lines_of("$pd/objects")) {
        $r{bias} //= hex $1 if /\AO 0 ([0-9a-f]+) /;
    }
    for (lines_of("$pd/protos")) {
        $r{protos}{ hex $1 } = $2 if /\AP ([0-9a-f]+) (.*)\z/;
    }
    for (lines_of("$pd/funcs")) {
        $r{funcs}{$3} = hex $1 if /\AF ([0-9a-f]+) (\d+) 0 (.*)\z/;
    }
    $r{done} = -f "$pd/done";
    my @range = map { [$r{bias} + $_->[0], $r{bias} + $_->[0] + $_->[1], $_->[2]] } values %sym;
    opendir(my $dh, $pd) or die "$pd: $!";
    for my $ring (sort grep { /\Aring-/ } readdir $dh) {
        my ($name) = $ring =~ /\Aring-(.*)\z/;
        my $b = slurp("$pd/$ring");
        my ($magic, $bom, $ver, $seqb, $tid) = unpack('a8 L L L L', $b);
        my $good = $magic eq "MCTRING\0" && $bom == 0x01020304 && $ver == 1;
        ok($good, "$pd/$ring: a ring's header") or next;
        my ($o_head, $o_tail, $o_mask, $o_ev, $o_lost) = unpack('x24 Q5', $b);
        my $seq = sub { $seqb == 8 ? unpack('Q', substr($b, $_[0], 8)) : unpack('L', substr($b, $_[0], 4)) };
        my ($head, $mask, $lost) = ($seq->($o_head), unpack('Q', substr($b, $o_mask, 8)),
            unpack('Q', substr($b, $o_lost, 8)));
        my $s = -f "$pd/stream-$name" ? slurp("$pd/stream-$name") : '';
        my $t = $r{threads}{$tid} = { lost => $lost, torn => length($s) % 24, entries => {}, exits => 0,
            unwound => 0 };
        my $n = int(length($s) / 24);
        my @ev = map { [unpack('Q3', substr($s, 24 * $_, 24))] } 0 .. $n - 1;
        # the ring's slots the stream does not have
        $t->{stream} = $n;
        $t->{recovered} = $head > $n ? $head - $n : 0;
        push @ev, map { [unpack('Q3', substr($b, $o_ev + 24 * ($_ & $mask), 24))] } $n .. $head - 1;
        for (my $i = 0; $i < @ev; $i++) {
            my ($ts, $ip, $parent) = @{ $ev[$i] };
            my $site = $ip & 0xffffffffffff;
            if ($ip & (1 << 63)) {
                $t->{ $ip & (1 << 62) ? 'unwound' : 'exits' }++;
            } else {
                my ($f) = grep { $site > $_->[0] && $site <= $_->[1] } @range;
                my $fn = $f ? $f->[2] : sprintf('0x%x', $site);
                $t->{entries}{$fn}++;
                if ($ip >> 61 & 1) {
                    # the payload: the prototype's key, N | SLOTS << 16, N words
                    my @w = map { @{ $ev[$i + 1 + $_] // [] } } 0 .. 4;
                    push @{ $t->{args}{$fn} }, [$w[0], @w[2 .. 1 + ($w[1] & 0xffff)]];
                    $i += $w[1] >> 16 & 0xffff;
                    next;
                }
            }
            $i += ($ip >> 61 & 1) ? 1 : 0;    # (an exit's payload: its return value)
        }
    }
    closedir $dh;
    return \%r;
}

sub processes {
    my ($rec) = @_;
    opendir(my $dh, $rec) or return ();
    my @p = sort grep { /\A\d+(?:-\d+)?\z/ } readdir $dh;
    closedir $dh;
    return map { "$rec/$_" } @p;
}

# ---- the runs ---------------------------------------------------------------

# run_case(NAME, [ARGS], RING, EXPECT_DONE, TRACER): the program under
# mcount-trace record, rings of RING events; checks of every process
# directory.
sub run_case {
    my ($name, $args, $ring, $done, $tracer) = @_;
    my $rec = "$dir/rec-$name";
    my ($st, $out, $err) = run_cmd(['timeout', '-k', '10', '300', $MT, 'record', '-d', $rec, '-f', 'mid,leaf',
        '-b', $ring, ($tracer ? ('-t', $tracer) : ()), '--', $prog, @$args]);
    my %said;
    for (split /\n/, $out) {
        $said{$1} = $2 if /\Acalls (\d+) (\d+)\z/;
    }
    ok(%said, "$name: the program counted its calls") or diag("status $st\n$out$err");
    unlike($err, qr/mcount-trace: .*(?:recording|lost|cannot)/i, "$name: nothing said of the recording") or diag($err);
    my @pd = processes($rec);
    my %seen;
    for my $pd (@pd) {
        my $r = read_process($pd);
        my ($pid) = $pd =~ m{/(\d+)(?:-\d+)?\z};
        is($r->{info}{'mcount-trace-data'}, '1', "$name: $pid: info: version 1");
        is($r->{info}{pid}, $pid, "$name: $pid: info: its pid");
        is($r->{info}{program}, $prog, "$name: $pid: info: the program");
        is($r->{info}{argv}, join(' ', map { qq("$_") } $prog, @$args), "$name: $pid: info: argv");
        is($r->{done} ? 1 : 0, $done ? 1 : 0, "$name: $pid: done " . ($done ? 'written' : 'absent'));
        # the funcs file against the program's symbols
        is_deeply([map { $r->{funcs}{$_} } qw(mid leaf)], [map { $r->{bias} + $sym{$_}[0] } qw(mid leaf)],
            "$name: $pid: funcs: mid and leaf where the program's symbols and the bias put them");
        for my $tid (sort keys %{ $r->{threads} }) {
            my $t = $r->{threads}{$tid};
            next unless $said{$tid} || %{ $t->{entries} };
            $seen{$tid}++;
            my $n = $said{$tid} // 0;
            is_deeply($t->{entries}, { mid => $n, leaf => $n },
                "$name: thread $tid: mid and leaf $n times each, as it counted "
                . "($t->{stream} from the stream, $t->{recovered} from the ring)");
            is($t->{lost}, 0, "$name: thread $tid: nothing lost");
            # (a process killed in the drain's write may leave part of
            # an event at the stream's end: its whole copy is the ring's)
            is($t->{torn}, 0, "$name: thread $tid: its stream whole events") if $done;
            note("$name: thread $tid: a torn event at the stream's end") if $t->{torn};
            is($t->{exits}, $tracer ? 2 * $n : 0, "$name: thread $tid: " . ($tracer ? 'an exit for each entry'
                : 'no exit event (function)'));
        }
    }
    is_deeply([sort keys %seen], [sort keys %said], "$name: every thread that counted is in the recording");
    return scalar @pd;
}

my $big = 1 << 20;
for my $how (qw(exit segv abort kill _exit)) {
    my $done = $how eq 'exit' || $how eq '_exit';
    run_case("$how-main", [0, 300000, $how], $big, $done);
    run_case("$how-threads", [4, 100000, $how], $big, $done);
}
run_case('kill-graph', [4, 100000, 'kill'], $big, 0, 'function_graph');
run_case('exit-graph', [2, 100000, 'exit'], $big, 1, 'function_graph');
# full speed into rings of 1,024 events: the threads wait for the drain
run_case('small-rings', [4, 200000, 'exit'], 1024, 1);
run_case('small-rings-kill', [4, 200000, 'kill'], 1024, 0);
is(run_case('fork', [0, 100000, 'fork'], $big, 1), 2, 'fork: the child has a directory of its own');

# ---- typed arguments ------------------------------------------------------

{
    my $rec = "$dir/rec-args";
    my ($st, $out, $err) = run_cmd([$MT, 'record', '-d', $rec, '-e', 'leaf(int x)', '--', $prog, 0, 1000, 'exit']);
    is($st, 0, 'args: the program ran') or diag($err);
    my ($pd) = processes($rec);
    my $r = read_process($pd);
    my ($t) = values %{ $r->{threads} };
    my @args = @{ $t->{args}{leaf} // [] };
    is(scalar @args, 1000, 'args: each call of leaf with its payload');
    # mid(i) calls leaf(i): the program's own arguments, in order
    is_deeply([map { $_->[1] } @args], [0 .. 999], 'args: leaf(x) as the program passed x, call by call');
    my %keys = map { ($_->[0] => 1) } @args;
    is_deeply([map { $r->{protos}{$_} } keys %keys], ['leaf(int32_t x)'],
        'args: one prototype key, named in protos as the event gave it');
}

# ---- the directory --------------------------------------------------------

{
    my $rec = "$dir/rec-again";
    must($MT, 'record', '-d', $rec, '--', $prog, 0, 10, 'exit');
    must($MT, 'record', '-d', $rec, '--', $prog, 0, 20, 'exit');
    ok(-d "$rec.old" && (processes("$rec.old"))[0] ne (processes($rec))[0],
        'a second recording moves the first to DIR.old');
    my ($st, $out, $err) = run_cmd([$MT, 'record', '-d', "$dir/recorded.o", '--', $prog, 0, 1, 'exit']);
    is($st >> 8, 1, 'a DIR that is a file: refused');
    like($err, qr/\Amcount-trace: \Q$dir\E\/recorded\.o: exists and is not a recording: not overwritten\n\z/,
        'a DIR that is a file: said so');
    ok(-f "$dir/recorded.o" && -s _, 'a DIR that is a file: left as it was');
    mkdir "$dir/open" or die;
    chmod 0777, "$dir/open";
    ($st, $out, $err) = run_cmd(['env', "LD_PRELOAD=$SO", "MCOUNT_TRACE_RECORD=$dir/open", $prog, 0, 1, 'exit']);
    like($err, qr/MCOUNT_TRACE_RECORD: \Q$dir\E\/open: not a directory of this user's that only it may write: nothing is recorded/,
        'a directory others may write: refused by the library');
    is_deeply([processes("$dir/open")], [], 'a directory others may write: nothing made in it');
}

done_testing();
