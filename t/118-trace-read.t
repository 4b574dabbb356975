#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# mcount-read against recordings written here byte for byte as
# doc/trace-format.md says, from call trees known in advance: replay's
# text is the live tracer's form of those calls (rt/output.c's function
# and function_graph lines, made here from the trees, not from the
# tool), report's figures are the trees' own (calls, total, self, the
# nearest-rank percentiles), info's counts are what each recording was
# made with.  Then a crash's leftovers: a stream and the ring's
# remainder, a ring whose slots overlap the stream, a stream that stops
# short of the ring's tail, a torn stream, a payload cut at head, no
# done; a big-endian recording, a tick clock, o32's 4-byte sequences and
# a ring that wrapped.  Then bad input: each refused with
# "mcount-read: FILE: why" and status 1, and random damage under ASan and
# UBSan that never crashes it.
use strict;
use warnings;
no warnings 'portable';    # 64-bit addresses through hex()
use Test::More;
use POSIX ();
use List::Util qw(max min sum);
use lib 't/lib';
use TestUtil qw($TOP run_cmd must tmpdir slurp spit);
use RecordingWriter qw(parse_report $T0 %FUNC $OUTSIDE $LIBK $OUTSIDE_NAME site ret_in);
use JSON::PP ();

my $READ = "$TOP/build/mcount-read";
plan skip_all => "no $READ (make all)" unless -x $READ;
my $dir = tmpdir();

# ---- the known calls ----


# A call: [name, start, end, {args => [...], ret => V}, children...]
# (times in ns after T0)
my %TREE = (
    1001 => { comm => 'worker-a', cpu => 1, calls => [
        ['main', 1000, 900_000, {},
            ['alpha', 2000, 30_000, {},
                ['beta', 3000, 3500, {}],
                ['beta', 4000, 5234, { args => [1, 2, 0x30, 4], ret => 42 }]],
            ['gamma', 40_000, 41_000, { ret => 0xffffffea }],
            ['libfn', 50_000, 850_000, {},
                ['beta', 60_000, 61_700, {}]]],
    ] },
    1002 => { comm => 'b', cpu => 2, calls => [
        ['alpha', 3200, 100_000, {},
            ['beta', 3300, 3400, {}]],
        ['gamma', 200_000, 12_200_000, {}],
    ] },
);

# The events of a thread's calls, in order: [ts, ip, parent] slots,
# payloads included; and the "lines" the live text would write: [ts,
# depth, kind (open, leaf, close), call].
sub events_of {
    my ($tid, $graph, $ticks) = @_;
    my $t = $TREE{$tid};
    my $cpu = $t->{cpu} << 48;
    my (@ev, @lines);
    my $walk;
    $walk = sub {
        my ($c, $depth, $caller) = @_;
        my ($name, $s, $e, $o, @kids) = @$c;
        my $ets = $ticks->($T0 + $s);
        my $ip = site($name) | $cpu | ($graph ? (1 << 60) | (1 << 62) : 0);
        my @args = @{ $o->{args} // [] };
        $ip |= 1 << 61 if @args;
        push @ev, [$ets, $ip, defined $caller ? ret_in($caller) : $OUTSIDE];
        if (@args) {
            # raw words: key 0, N | S << 16, the words, in slots of three
            my @w = (0, scalar(@args), @args);
            my $slots = int((@w + 2) / 3);
            $w[1] |= $slots << 16;
            push @w, 0 while @w % 3;
            push @ev, [splice(@w, 0, 3)] while @w;
        }
        push @lines, [$T0 + $s, $depth, @kids ? 'open' : 'leaf', $c, $tid] if $graph;
        push @lines, [$T0 + $s, 0, 'fn', $c, $tid, $caller] unless $graph;
        $walk->($_, $depth + 1, $name) for @kids;
        return unless $graph;
        my $xip = site($name) | $cpu | (1 << 63) | (defined $o->{ret} ? 1 << 61 : 0);
        push @ev, [$ticks->($T0 + $e), $xip, $ets];
        push @ev, [$o->{ret}, 0, 0] if defined $o->{ret};
        push @lines, [$T0 + $e, $depth, 'close', $c, $tid] if @kids;
    };
    $walk->($_, 0, undef) for @{ $t->{calls} };
    return (\@ev, \@lines);
}

# ---- the expected text, as rt/output.c writes it ----

sub gprefix {
    my ($tid) = @_;
    my $ct = "$TREE{$tid}{comm}-$tid";
    my $sp = 14 - length $ct;
    return $ct if $sp <= 0;
    return (' ' x int($sp / 2)) . $ct . (' ' x ($sp - int($sp / 2)));
}

sub dur_field {
    my ($ns) = @_;
    return (' ' x 15) . '|' unless defined $ns;
    my $mark = $ns > 1e9 ? '$' : $ns > 1e8 ? '@' : $ns > 1e7 ? '*' : $ns > 1e6 ? '#' : $ns > 1e5 ? '!'
        : $ns > 1e4 ? '+' : ' ';
    my $num = int($ns / 1000);
    if (length($num) < 7) {
        $num .= '.' . substr(sprintf('%03d', $ns % 1000), 0, min(3, 7 - length $num));
    }
    return " $mark $num us " . (' ' x max(0, 8 - length $num)) . '|';
}

sub retval_text {
    my ($v) = @_;
    return undef unless defined $v;
    my $err = ($v & 0x80000000) && !($v >> 32) ? $v - 2**32 : $v;
    return $err < 0 && $err >= -4095 ? "$err" : sprintf('0x%x', $v);
}

my @GRAPH_HEAD = ("# tracer: function_graph\n", "#\n",
    "# CPU  TASK/PID         DURATION                  FUNCTION CALLS\n",
    "# |     |    |           |   |                     |   |   |   |\n");
my @FN_HEAD = ("# tracer: function\n", "#\n", "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n",
    "#              | |         |         |         |\n");

# The text of the lines of every thread, merged by time, with the task
# switch marker between threads (%only: a filter on function and depth).
sub want_text {
    my ($graph, $lines, %only) = @_;
    my @out = $graph ? @GRAPH_HEAD : @FN_HEAD;
    my $last;
    for my $l (sort { $a->[0] <=> $b->[0] } @$lines) {
        my ($ts, $depth, $kind, $c, $tid, $caller) = @$l;
        my ($name, $s, $e, $o) = @$c;
        next if defined $only{function} && $name !~ $only{function};
        next if defined $only{depth} && $depth >= $only{depth};
        # a call whose calls the depth leaves out: a leaf, as the live
        # tracer shows it (its entry and return side by side in the ring)
        if (defined $only{depth} && $depth == $only{depth} - 1) {
            next if $kind eq 'close';
            $kind = 'leaf';
        }
        next if defined $only{tid} && $tid != $only{tid};
        my $cpu = $TREE{$tid}{cpu};
        my $args = $o->{args} ? '(' . join(', ', map { sprintf '0x%x', $_ } @{ $o->{args} }) . ')' : '';
        if (!$graph) {
            my $us = int($ts / 1000 + 0.5);
            push @out, sprintf("%16.16s-%-7d [%03d] %6d.%06d: %s%s <-%s\n", $TREE{$tid}{comm}, $tid, $cpu,
                int($us / 1e6), $us % 1e6, $name, $args, $caller // $OUTSIDE_NAME);
            next;
        }
        if (defined $last && $last != $tid) {
            my $rule = ' ' . ('-' x 42) . "\n";
            push @out, $rule, sprintf("%2d) %s => %s\n", $cpu, gprefix($last), gprefix($tid)), $rule, "\n";
        }
        $last = $tid;
        my $rv = retval_text($o->{ret});
        my ($dur, $text);
        if ($kind eq 'open') {
            $text = $name . ($args || '()') . ' {';
        } elsif ($kind eq 'leaf') {
            ($dur, $text) = ($e - $s, $name . ($args ? "$args;" : '();') . (defined $rv ? " /* = $rv */" : ''));
        } else {
            ($dur, $text) = ($e - $s, "} /* $name" . (defined $rv ? " = $rv" : '') . ' */');
        }
        push @out, sprintf("%2d) %s |%s  %s%s\n", $cpu, gprefix($tid), dur_field($dur), '  ' x $depth, $text);
    }
    return join '', @out;
}

# Per function: calls, and each timed call's duration and self time.
sub want_report {
    my (%only) = @_;
    my %r;
    my $walk;
    $walk = sub {
        my ($c) = @_;
        my ($name, $s, $e, $o, @kids) = @$c;
        my $d = $e - $s;
        my $self = $d - sum(0, map { $_->[2] - $_->[1] } @kids);
        push @{ $r{$name}{d} }, $d;
        $r{$name}{self} += $self;
        $walk->($_) for @kids;
    };
    for my $tid (sort keys %TREE) {
        next if defined $only{tid} && $tid != $only{tid};
        $walk->($_) for @{ $TREE{$tid}{calls} };
    }
    for my $n (keys %r) {
        my @d = sort { $a <=> $b } @{ $r{$n}{d} };
        my $pct = sub { my $k = POSIX::ceil($_[0] * @d / 100); return $d[$k ? $k - 1 : 0] };
        $r{$n} = { calls => scalar @d, total => sum(@d), self => $r{$n}{self}, min => $d[0],
            avg => int(sum(@d) / @d), p50 => $pct->(50), p90 => $pct->(90), p99 => $pct->(99), max => $d[-1] };
    }
    return \%r;
}

# ---- a recording, byte for byte ----

sub write_proc { return RecordingWriter::known_writer(@_) }

my $mono = sub { $_[0] };
sub threads_of {
    my ($graph, $ticks, %per) = @_;
    my (%th, @lines);
    for my $tid (sort keys %TREE) {
        my ($ev, $ln) = events_of($tid, $graph, $ticks);
        $th{$tid} = { events => $ev, comm => $TREE{$tid}{comm}, %{ $per{$tid} // {} } };
        push @lines, @$ln;
    }
    return (\%th, \@lines);
}

sub rd {
    my (@args) = @_;
    my ($st, $out, $err) = run_cmd([$READ, @args]);
    return ($st, $out, $err);
}

# ---- a clean function_graph recording ----

my ($th, $lines) = threads_of(1, $mono);
my $rec = "$dir/rec";
mkdir $rec or die;
write_proc("$rec/4242", pid => 4242, graph => 1, done => 1, threads => $th);

my ($st, $out, $err) = rd('replay', $rec);
is($st, 0, 'replay of a clean recording: status 0') or diag $err;
is($out, want_text(1, $lines), "replay's text is the live function_graph text of the calls");

($st, $out) = rd('replay', "$rec/4242");
is($out, want_text(1, $lines), 'the same given the process directory');

($st, $out) = rd('replay', '--depth=2', $rec);
is($out, want_text(1, $lines, depth => 2), '--depth=2: the lines of depth 0 and 1, those of depth 1 leaves');
($st, $out) = rd('replay', '--depth=1', $rec);
is($out, want_text(1, $lines, depth => 1), '--depth=1: the outermost calls, each a leaf with its time');
($st, $out) = rd('replay', '--function=b*', $rec);
is($out, want_text(1, $lines, function => qr/^b/), '--function=b*: beta only');
($st, $out) = rd('replay', '--tid=1002', $rec);
is($out, want_text(1, $lines, tid => 1002), '--tid=1002: that thread only');
($st, $out) = rd('replay', '--since=5000.0000036', '--until=5000.0000415', $rec);
is($out, want_text(1, [grep { $_->[0] >= $T0 + 3600 && $_->[0] <= $T0 + 41_500 } @$lines]),
    '--since/--until: the lines of that time');

($st, $out) = rd('replay', '--format=json', $rec);
my @json = split /\n/, $out;
is(scalar(grep { /"func":/ } @json), 10, 'json: one line an entry');
is(scalar(grep { /"exit":/ } @json), 10, 'json: one line an exit');
like($json[0], qr/^\{"comm":"worker-a","tid":1001,"cpu":1,"ts":5000\.000001000,"func":"main","parent":"libk.so\+0xdeadbee0",/,
    'json: the first entry');
ok((grep { /"exit":"gamma".*"duration":0\.000001000,"retval":"0xffffffea"/ } @json), 'json: an exit with its value');

($st, $out) = rd('replay', '--format=chrome', $rec);
like($out, qr/\A\{"traceEvents":\[\n/, 'chrome: the document');
like($out, qr/\n\]\}\n\z/, 'chrome: its end');
my $nb = () = $out =~ /"ph":"B"/g;
my $ne = () = $out =~ /"ph":"E"/g;
is("$nb $ne", '10 10', 'chrome: a B and an E a call');
my $doc = eval { JSON::PP->new->decode($out) };
ok($doc, 'chrome: JSON::PP reads the document') or diag $@;
my %nest;
for my $e (@{ $doc->{traceEvents} // [] }) {
    push @{ $nest{ $e->{tid} } }, $e->{name} if $e->{ph} eq 'B';
    $nest{bad}++ if $e->{ph} eq 'E' && (pop(@{ $nest{ $e->{tid} } }) // '') ne $e->{name};
}
ok(!$nest{bad} && !@{ $nest{1001} } && !@{ $nest{1002} }, 'chrome: each E closes its thread\'s last B');
($st, $out) = rd('replay', '--format=json', $rec);
is(scalar(grep { eval { JSON::PP->new->decode($_); 1 } } split /\n/, $out), 20, 'json: JSON::PP reads each line');

($st, $out) = rd('report', $rec);
is($st, 0, 'report: status 0');
my $want = want_report();
is_deeply(parse_report($out), $want, 'report: calls, total, self, min, avg, p50, p90, p99, max of the trees');
for my $key (qw(calls total self avg max name)) {
    ($st, $out) = rd('report', "--sort=$key", $rec);
    my @names = map { (split ' ')[-1] } grep { !/^\s*(?:calls|#)/ } split /\n/, $out;
    my $k = $key eq 'name' ? undef : $key;
    my @w = sort { defined $k ? ($want->{$b}{$k} <=> $want->{$a}{$k} || $a cmp $b) : $a cmp $b } keys %$want;
    is("@names", "@w", "report --sort=$key: its order");
}
($st, $out) = rd('report', '--threads', $rec);
my @tables = split /^# thread /m, $out;
shift @tables;
is(scalar @tables, 2, 'report --threads: a table a thread');
is_deeply(parse_report($tables[1] =~ s/^.*\n//r), want_report(tid => 1002), 'report --threads: thread 1002 alone');

($st, $out) = rd('info', $rec);
like($out, qr/^  program   \/usr\/bin\/known$/m, 'info: the program');
like($out, qr/^  argv      "known" "-x"$/m, 'info: argv');
like($out, qr/^  tracer    function_graph$/m, 'info: the tracer');
like($out, qr/^  end       done: ended cleanly/m, 'info: done');
like($out, qr/^  time      5000\.000001 to 5000\.012200 s/m, 'info: the time span');
like($out, qr/^  thread 1001 worker-a: events 14, stream 18 slots, recovered 0 slots, lost 0,/m, 'info: thread 1001');
like($out, qr/^  thread 1002 b: events 6, stream 6 slots, recovered 0 slots, lost 0,/m, 'info: thread 1002');

# ---- the function tracer, a tick clock, big-endian ----

# ticks: 3 a ns, from 1000; the clock's pairs at both ends
my $tsc = sub { 3 * ($_[0] - $T0) + 1000 };
my ($fth, $flines) = threads_of(0, $tsc);
my $frec = write_proc("$dir/frec", pid => 77, graph => 0, done => 1, threads => $fth, big => 1,
    clock => [[1000, $T0], [$tsc->($T0 + 20_000_000), $T0 + 20_000_000], [$tsc->($T0 + 10_000_000), $T0 + 10_000_000]]);
($st, $out, $err) = rd('replay', $frec);
is($st, 0, 'replay (function, big-endian, ticks): status 0') or diag $err;
is($out, want_text(0, $flines), "replay's text is the live function text, the times through the clock's pairs");
($st, $out) = rd('report', $frec);
my $fr = parse_report($out);
is_deeply({ map { $_ => $fr->{$_}{calls} } keys %$fr }, { map { $_ => $want->{$_}{calls} } keys %$want },
    'report of function data: the calls');
ok(!(grep { $_->{total} ne '-' } values %$fr), 'report of function data: no times');
($st, $out) = rd('info', $frec);
like($out, qr/big-endian, 64-bit/, 'info: big-endian');

# the same graph recording with ticks: report's figures the same
my ($tth) = threads_of(1, $tsc);
my $trec = write_proc("$dir/trec", pid => 78, graph => 1, done => 1, threads => $tth,
    clock => [[1000, $T0], [$tsc->($T0 + 20_000_000), $T0 + 20_000_000]]);
($st, $out) = rd('report', $trec);
is_deeply(parse_report($out), $want, 'report with a tick clock: the same figures');

# ---- a crash's leftovers ----

my $full = want_text(1, $lines);
# thread 1001's 18 slots: 0 main, 1 alpha, 2 beta, 3 its exit, 4 beta
# with arguments, 5-6 their payload, 7 its exit, 8 the value, 9 alpha's
# exit, 10 gamma, 11 its exit, 12 the value, 13 libfn, 14 beta, 15 its
# exit, 16 libfn's exit, 17 main's
is(scalar @{ $th->{1001}{events} }, 18, 'thread 1001: 18 slots');
sub crash {
    my ($name, %t) = @_;
    my ($cth) = threads_of(1, $mono, 1001 => \%t);
    return write_proc("$dir/$name", pid => 9, graph => 1, threads => $cth);
}
sub info_of { my ($st2, $o) = rd('info', $_[0]); return $o }

my $c = crash('remainder', stream => 10, tail => 10);
($st, $out) = rd('replay', $c);
is($out, $full, 'stream of 10 and the ring from 10: every event');
like(info_of($c), qr/thread 1001 worker-a: events 14, stream 10 slots, recovered 8 slots, lost 0/, 'info: 8 recovered');
like(info_of($c), qr/^  end       not done/m, 'info: no done, not done');

$c = crash('overlap', stream => 10, tail => 6);
($st, $out) = rd('replay', $c);
is($out, $full, 'ring slots from tail 6 and a stream of 10: each event once');
like(info_of($c), qr/stream 10 slots, recovered 8 slots, lost 0/, 'info: the overlap not counted twice');

$c = crash('gap', stream => 4, tail => 9);
($st, $out) = rd('report', $c);
my $got = parse_report($out);
# slots 4-8: the second beta under alpha, whole
is($got->{beta}{calls}, 3, 'a gap: the call in it is gone');
is($got->{alpha}{total}, $want->{alpha}{total}, 'a gap: the call around it timed');
like(info_of($c), qr/stream 4 slots, recovered 9 slots, lost 0, gap 5/, 'info: the gap of 5 said');
($st, $out) = rd('replay', $c);
like($out, qr/\[LOST 5 EVENTS\]/, 'replay: the gap said as lost events');

$c = crash('torn', stream => 10, tail => 10, torn => 13);
($st, $out) = rd('replay', $c);
is($out, $full, 'a stream with a cut event at its end: every event, from the ring');
like(info_of($c), qr/stream 10 slots, recovered 8 slots, lost 0, torn 1/, 'info: torn 1');

# a head at 6 cuts the payload of slot 4's entry
$c = crash('cut', stream => 4, tail => 4, head => 6);
like(info_of($c), qr/events 4, stream 4 slots, recovered 2 slots, lost 0, cut 1/, 'a payload cut at head: the entry dropped');
($st, $out) = rd('replay', $c);
unlike($out, qr/beta\(0x/, 'replay: not the cut entry');

$c = crash('nostream', stream => 0, tail => 0, no_stream => 1);
($st, $out) = rd('replay', $c);
is($out, $full, 'no stream at all: every event from the ring');

$c = crash('wrapped', stream => 10, tail => 10, mask => 7);
($st, $out, $err) = rd('replay', $c);
is($out, $full, 'a ring of 8 slots, round twice: the slots at s & mask') or diag $err;

$c = crash('o32', stream => 10, tail => 10, width => 4, mask => 15);
($st, $out, $err) = rd('replay', $c);
like(info_of($c), qr/stream 10 slots, recovered 8 slots, lost 0/, "o32's 4-byte head and tail: 8 recovered")
    or diag $err;
is($out, $full, "o32's: every event");

$c = crash('lost', lost => 3, noshadow => 2, unwound => 1);
($st, $out) = rd('replay', $c);
like($out, qr/^        worker-a-1001    \[LOST 3 EVENTS\]$/m, 'the ring\'s lost count said');
like(info_of($c), qr/lost 3,.*noshadow 2, unwound 1/, 'info: lost, noshadow, unwound');

# ---- bad input ----

sub bad {
    my ($what, $edit, $file_re, $msg_re, %o) = @_;
    my ($cth) = threads_of(1, $mono, 1001 => { ring_edit => $edit, %{ $o{t} // {} } });
    (my $tag = $what) =~ s/\W+/_/g;
    my $d = write_proc("$dir/bad_$tag", pid => 5, graph => 1, threads => $cth, %{ $o{p} // {} });
    my ($s, $o2, $e) = rd($o{cmd} // 'info', $d);
    my $code = $s >> 8;
    is($code, $o{status} // 1, "$what: status " . ($o{status} // 1)) or diag $e;
    ok(!($s & 127), "$what: no signal");
    like($e, qr/^mcount-read: \Q$d\E\/$file_re: .*$msg_re/m, "$what: the file and why") if $msg_re;
    return ($o2, $e);
}
sub at { my ($off, $bytes) = @_; return sub { my $r = shift; substr($r, $off, length $bytes) = $bytes; $r } }

bad('bad magic', at(0, 'MCTRINX'), 'ring-1001', qr/bad magic/);
bad('wrong version', at(12, pack('L<', 2)), 'ring-1001', qr/ring version 2/);
bad('bad byte-order mark', at(8, pack('L<', 0x01020305)), 'ring-1001', qr/byte-order mark/);
bad('a ring shorter than its header', sub { substr($_[0], 0, 50) }, 'ring-1001', qr/shorter than a ring's header/);
bad('a ring cut in its events', sub { substr($_[0], 0, 8192 + 100) }, 'ring-1001', qr/mask/);
bad('head\'s offset past the end', at(24, pack('Q<', 1 << 40)), 'ring-1001', qr/offset out of the file/);
bad('comm\'s offset at the last byte', sub { my $r = shift; substr($r, 64, 8) = pack('Q<', length($r) - 1); $r },
    'ring-1001', qr/offset out of the file/);
bad('a mask not 2^n-1', at(4224, pack('Q<', 6)), 'ring-1001', qr/mask 0x6/);
bad('a mask of 2^64-1', at(4224, pack('Q<', 2**64 - 1)), 'ring-1001', qr/mask/);
bad('another thread\'s ring', at(20, pack('L<', 1002)), 'ring-1001', qr/the header's thread is 1002/);
bad('head and tail too far apart', at(4160, pack('Q<', 0)), 'ring-1001', qr/more than the ring holds/,
    t => { mask => 7 });
bad('a stream past head', undef, 'ring-1001', qr/goes past the ring's head/, t => { head => 5, tail => 5 });
bad('a sequence width of 5', at(16, pack('L<', 5)), 'ring-1001', qr/sequence width 5/);
bad('a big-endian ring in a little-endian recording', at(8, pack('L>', 0x01020304)), 'ring-1001',
    qr/big-endian ring in a little-endian/);
bad('info of version 2', undef, 'info', qr/version 2, which this reader does not know/,
    p => { info => "mcount-trace-data 2\nbyte-order little\nword-bits 64\n" });
bad('info of no format', undef, 'info', qr/not a recording's info/, p => { info => "hello\n" });
bad('info without byte-order', undef, 'info', qr/no byte-order line/, p => { info => "mcount-trace-data 1\nword-bits 64\n" });
bad('info with a byte order of neither', undef, 'info', qr/byte-order middle/,
    p => { info => "mcount-trace-data 1\nbyte-order middle\nword-bits 64\n" });
bad('a funcs line of no form', undef, 'funcs', qr/line 6: not F ADDR SIZE ID NAME/,
    p => { funcs_extra => "F zz 1 0 bad\n" }, cmd => 'replay');
bad('a clock line of no form', undef, 'clock', qr/line 1: not TICKS NS/,
    p => { clock_text => "-5 7\n" }, cmd => 'replay');

# a torn last line of funcs or info: ignored, said by info, status 0
my ($tth2) = threads_of(1, $mono);
my $torn = write_proc("$dir/tornline", pid => 6, graph => 1, done => 1, threads => $tth2,
    funcs_extra => "F 401400 16 0 half");
($st, $out, $err) = rd('replay', $torn);
is($st, 0, 'a funcs file whose last line was cut: status 0') or diag $err;
is($out, $full, 'its replay: the whole lines');
like(info_of($torn), qr/^  torn      1 text lines cut short/m, 'info: the cut line said');

# an address named again: the later line wins; a function of size 0
# ends at the next one of its object, a sized one at its size
my ($tth3) = threads_of(1, $mono);
my $again = write_proc("$dir/again", pid => 7, graph => 1, done => 1, threads => $tth3,
    funcs => "F 401200 0 0 stale_beta\nF 401150 8 0 stale_gap\n"
        . join('', map { sprintf "F %x %d %d %s\n", @{ $FUNC{$_} }, $_ } sort keys %FUNC)
        . "F 401150 0 1 other_object\n");
($st, $out) = rd('replay', $again);
is($out, $full, 'funcs naming an address again: the later line');
is(join(',', map { (split ' ')[-1] } grep { /^\s+\d/ } split /\n/, (rd('report', '--sort=name', $again))[1]),
    'alpha,beta,gamma,libfn,main', 'report: no stale name');

# functions of size 0: each up to the next of its object, the last one
# of an object up to the next object; an address in no function named
# FILE+0xOFFSET in the object below it (the program by its own name,
# not /proc/self/exe)
my %sized0 = map { $_ => [@{ $FUNC{$_} }] } keys %FUNC;
$sized0{$_}[1] = 0 for qw(main alpha beta gamma);
my $nosize = write_proc("$dir/nosize", pid => 10, graph => 0, done => 1, threads => (threads_of(0, $mono))[0],
    funcs => join('', map { sprintf "F %x %d %d %s\n", @{ $sized0{$_} }, $_ } sort keys %sized0));
($st, $out) = rd('replay', $nosize);
is($out, want_text(0, $flines), 'functions of size 0: each parent named as with sizes');
# (and where no function of another object lies between: the last one
# of the program's, then an address in libk.so)
my ($t1002) = threads_of(0, $mono);
delete $t1002->{1001};
my $nosize2 = write_proc("$dir/nosize2", pid => 12, graph => 0, done => 1, threads => $t1002,
    funcs => join('', map { sprintf "F %x 0 0 %s\n", $FUNC{$_}[0], $_ } qw(main alpha beta gamma)));
($st, $out) = rd('replay', $nosize2);
is($out, want_text(0, $flines, tid => 1002), 'the last function of size 0 of an object: up to the next object');
my $named = write_proc("$dir/named", pid => 11, graph => 0, done => 1, threads => (threads_of(0, $mono))[0],
    funcs => join('', map { sprintf "F %x %d %d %s\n", @{ $FUNC{$_} }, $_ } grep { $_ ne 'alpha' } sort keys %FUNC));
($st, $out) = rd('replay', $named);
is(scalar(() = $out =~ / beta(?:\(.*\))? <-known\+0x401110$/mg), 3, 'an address of no function: the program+0xOFFSET');

# a TID the system gave again: the later thread's files are ring-TID.N
# and stream-TID.N
my ($tth4) = threads_of(1, $mono);
$tth4->{'1001.1'} = delete $tth4->{1002};
my $reused = write_proc("$dir/reused", pid => 8, graph => 1, done => 1, threads => $tth4);
like(info_of($reused), qr/^  thread 1001 worker-a: events 14,.*\n  thread 1001\.1 b: events 6,/m,
    'ring-1001.1: a thread of its own, after 1001');
is_deeply(parse_report((rd('report', $reused))[1]), $want, 'ring-1001.1: its calls in the report');
($st, $out) = rd('replay', $reused);
is(scalar(() = $out =~ /^ \d\) +(?:worker-a-1001 +=> +b-1001|b-1001 +=> +worker-a-1001) *$/mg), 4,
    'ring-1001.1: the tasks switch as two threads do');

# a PID the system gave again: the later process's directory is PID-N
my $twice = "$dir/twice";
mkdir $twice;
write_proc("$twice/$_", pid => 4242, graph => 1, done => 1, threads => (threads_of(1, $mono))[0]) for qw(4242 4242-1);
write_proc("$twice/4242-x", pid => 4242, graph => 1, done => 1, threads => (threads_of(1, $mono))[0]);
is(scalar(() = info_of($twice) =~ /^process 4242$/mg), 2, 'DIR/PID and DIR/PID-N: two processes (not PID-x)');
is((rd('report', $twice))[1] =~ /^\s+(\d+) .* beta$/m && $1, 8, 'DIR/PID and DIR/PID-N: their calls together');

# not a recording, no directory, usage
($st, undef, $err) = rd('info', "$dir/none");
is($st >> 8, 1, 'no such directory: status 1');
like($err, qr/^mcount-read: \Q$dir\E\/none: No such file or directory$/m, 'no such directory: said');
mkdir "$dir/empty";
($st, undef, $err) = rd('info', "$dir/empty");
is($st >> 8, 1, 'a directory of no process: status 1');
like($err, qr/no process directory/, 'a directory of no process: said');
for my $u (['frob', $rec], ['replay', '--format=xml', $rec], ['report', '--sort=size', $rec], ['replay'],
    ['replay', '--depth=0', $rec], ['info', '--threads', $rec]) {
    ($st) = rd(@$u);
    is($st >> 8, 2, "usage: @$u[0 .. $#$u - ($u->[-1] eq $rec ? 1 : 0)]: status 2");
}

# ---- mcount-trace replay, report, info ----

my $MT = "$TOP/bin/mcount-trace";
sub mt { my ($env, @a) = @_; return run_cmd([$MT, @a], env => $env) }
($st, $out, $err) = mt({}, 'replay', $rec);
is($st, 0, 'mcount-trace replay DIR: status 0') or diag $err;
is($out, $full, 'mcount-trace replay DIR: the live text');
($st, $out) = mt({}, 'replay', '--format=json', '--tid=1002', '--function=al*', $rec);
is(scalar(split /\n/, $out), 2, 'mcount-trace replay --format=json --tid --function: passed on');
($st, $out) = mt({}, 'report', '--sort=name', '--threads', $rec);
is(scalar(() = $out =~ /^# thread /mg), 2, 'mcount-trace report --threads: passed on');
($st, $out) = mt({}, 'report', '--sort=calls', $rec);
is_deeply(parse_report($out), $want, 'mcount-trace report: the figures');
($st, $out) = mt({}, 'info', $c);
like($out, qr/lost 3,/, 'mcount-trace info DIR');
{
    # the default DIR: mcount-trace.data in the current directory
    my $cwd = tmpdir();
    write_proc("$cwd/mcount-trace.data", pid => 4, graph => 1, done => 1, threads => (threads_of(1, $mono))[0]);
    my $pid = fork // die;
    if (!$pid) {
        chdir $cwd or POSIX::_exit(3);
        open STDOUT, '>', "$cwd/out" or POSIX::_exit(3);
        exec $MT, 'replay' or POSIX::_exit(4);
    }
    waitpid $pid, 0;
    is($?, 0, 'mcount-trace replay with no DIR: status 0');
    is(slurp("$cwd/out"), $full, 'mcount-trace replay with no DIR: mcount-trace.data');
}
($st, undef, $err) = mt({}, 'info', "$dir/none");
is($st >> 8, 1, 'mcount-trace info of no directory: status 1');
like($err, qr/^mcount-read: \Q$dir\E\/none: No such file or directory$/m, 'mcount-trace info of no directory: said');
($st, undef, $err) = mt({ RECORDMCOUNT_READ => "$dir/no-reader" }, 'info', $rec);
is($st >> 8, 1, 'no mcount-read: status 1');
like($err, qr/^mcount-trace: \Q$dir\E\/no-reader: not found/m, 'no mcount-read: said');
for my $u (['replay', '--depth=x', $rec], ['replay', '--since=soon', $rec], ['report', '--sort=hits', $rec],
    ['info', '--format=json', $rec], ['report', '--depth=2', $rec], ['info', $rec, $rec], ['replay', "$rec/4242/info"]) {
    ($st, undef, $err) = mt({}, @$u);
    is($st >> 8, 2, "mcount-trace @$u[0 .. 1]: bad usage, 2");
    like($err, qr/Try 'mcount-trace --help'/, "mcount-trace @$u[0 .. 1]: the usage hint");
}
($st, $out) = mt({}, '--help');
like($out, qr/^       mcount-trace replay .*^       mcount-trace report .*^       mcount-trace info /ms, '--help: the three');

# ---- against the live tracer ----

# oracle.c traced live twice, as function_graph text and as JSON lines;
# the JSON run's events made a recording (the functions from the
# program's symbols): its replay is the text run's, line for line, but
# for the CPU, the task's ID and the durations, which differ from run
# to run
SKIP: {
    require TraceTest;
    no warnings 'once';
    my $so = $TraceTest::SO;
    # (a library not built is a failure, not a reason to skip)
    ok(-f $so, "$so is built (make all)");
    skip "no $so", 4 unless -f $so;
    TraceTest::clean_env();
    my $ld = "$dir/live";
    mkdir $ld;
    must('gcc', '-O2', '-c', "$TraceTest::TSRC/cyg.c", '-o', "$ld/cyg.o");
    TraceTest::mcc_build('-pg -mfentry', "$ld/oracle.o", "$TraceTest::TSRC/oracle.c", '-O2', '-finstrument-functions');
    my $prog = TraceTest::link_prog("$ld/oracle", "$ld/oracle.o", "$ld/cyg.o");
    for my $f (qw(text json)) {
        my ($s, undef, $e) = TraceTest::traced([$prog, 3], env => { MCOUNT_TRACE_FILTER => '*',
            MCOUNT_TRACE_TRACER => 'function_graph', MCOUNT_TRACE_OUTPUT => "$ld/trace.$f",
            MCOUNT_TRACE_FORMAT => $f, MCOUNT_TRACE_DIR => "$ld/ctl", CYG_LOG => "$ld/cyg.$f.log" });
        is($s, 0, "oracle traced live, $f: status 0") or diag $e;
    }
    my $syms = TraceTest::nm_funcs($prog);
    my $js = JSON::PP->new;
    my @live = map { $js->decode($_) } split /\n/, slurp("$ld/trace.json");
    my ($m) = grep { ($_->{func} // '') eq 'main' } @live;
    my $bias = TraceTest::bias_of($syms, 'main', hex $m->{addr});
    my (%ev, %open, %comm);
    for my $e (@live) {
        my $tid = $e->{tid};
        $comm{$tid} = $e->{comm};
        my $ns = (sprintf('%.9f', $e->{ts}) =~ s/\.//r) + 0;
        my $ip = (hex($e->{addr}) + 5) | ($e->{cpu} << 48);    # (the site: in the function)
        if (defined $e->{func}) {
            my $hooked = !$e->{noexit};
            push @{ $ev{$tid} }, [$ns, $ip | (1 << 60) | ($hooked ? 1 << 62 : 0), hex $e->{parent_addr}];
            push @{ $open{$tid} }, $ns if $hooked;
        } else {
            push @{ $ev{$tid} }, [$ns, $ip | (1 << 63) | ($e->{unwound} ? 1 << 62 : 0), pop @{ $open{$tid} }];
        }
    }
    my $lrec = "$ld/rec";
    mkdir $lrec;
    write_proc("$lrec/1", pid => 1, graph => 1, done => 1,
        funcs => join('', map { sprintf "F %x %d 0 %s\n", $_->[0] + $bias, $_->[1], $_->[2] } @$syms),
        threads => { map { $_ => { events => $ev{$_}, comm => $comm{$_} } } keys %ev });
    my ($s, $replayed, $e) = rd('replay', $lrec);
    # (and the CPU: a run's thread may run on another)
    my $mask = sub { join '', map { s/^ *\d+\) +[^|]*\|[^|]*\|/CPU) TASK | DURATION |/r } split /^/, $_[0] };
    my $text = slurp("$ld/trace.text");
    ok(scalar(() = $text =~ /\{$/mg) >= 10, 'the live text has calls that nest') or diag $text;
    is($mask->($replayed), $mask->($text), "replay of the live JSON's events: the live text's lines") or diag $e;
}

($st, $out, $err) = rd('--help');
is($st, 0, 'mcount-read --help: status 0');
like($out, qr/\Ausage: mcount-read info DIR\n/, 'mcount-read --help: the usage, on standard output');
($st, $out) = rd('--version');
require RecordMcount::Front;
is($out, "mcount-read (recordmcount) $RecordMcount::Front::VERSION\n", "mcount-read --version: the project's");

# ---- damage at random, under ASan and UBSan ----

SKIP: {
    my $asan = "$dir/mcount-read-asan";
    my ($cs, undef, $ce) = run_cmd(['cc', '-std=c11', '-O1', '-g', '-fsanitize=address,undefined',
        '-fno-sanitize-recover=all', "-I$TOP/rt", '-o', $asan, glob("$TOP/read/*.c"), "$TOP/rt/argfmt.c", '-lm']);
    # (a build that fails is a failure, not a reason to skip)
    ok(!$cs, 'mcount-read builds with ASan and UBSan') or diag($ce);
    skip "no ASan build: $ce", 2 if $cs;
    srand(117);
    my ($fth2) = threads_of(1, $mono);
    my $base = write_proc("$dir/fuzzbase", pid => 3, graph => 1, threads => $fth2);
    my @files = map { "$base/$_" } qw(info funcs clock ring-1001 ring-1002 stream-1001 stream-1002);
    my %orig = map { $_ => slurp($_) } @files;
    my ($bad, $runs) = (0, 0);
    for my $i (1 .. 150) {
        my $f = $files[ int rand @files ];
        spit($f, RecordingWriter::damaged($orig{$f}, $i % 3));
        for my $cmd (qw(info replay report)) {
            my ($s, undef, $e) = run_cmd([$asan, $cmd, $base], env => { ASAN_OPTIONS => 'detect_leaks=1' });
            $runs++;
            if (($s >> 8) > 1 || ($s & 127) || $e =~ /Sanitizer|runtime error/) {
                $bad++;
                diag "$f (case $i), $cmd: status $s\n$e" if $bad < 4;
            }
        }
        spit($f, $orig{$f});
    }
    is($bad, 0, "random damage: $runs runs, none crashed or erred under ASan/UBSan");

    # 300 functions each calling the next: the report's table grows
    # while calls are open (each one called once: its time, and its own
    # time that of its body outside the next)
    my $deep = "$dir/deep/1";
    mkdir "$dir/deep";
    mkdir $deep;
    spit("$deep/info", "mcount-trace-data 1\nbyte-order little\nword-bits 64\npid 1\ntracer function_graph\n"
        . "clock monotonic\n");
    spit("$deep/funcs", join '', map { sprintf "F %x 32 0 f%03d\n", 0x500000 + 32 * $_, $_ } 0 .. 299);
    my (@ev, @open);
    for my $i (0 .. 299) {
        push @ev, [1000 + 10 * $i, (0x500000 + 32 * $i + 5) | (5 << 60), 0x500000 + 32 * ($i - 1) + 9];
        push @open, [$i, $ev[-1][0]];
    }
    my $t = 1000 + 10 * 300;
    while (my $o = pop @open) {
        $t += 7 + $o->[0] % 5;
        push @ev, [$t, (0x500000 + 32 * $o->[0] + 5) | (1 << 63), $o->[1]];
    }
    spit("$deep/stream-1", join '', map { pack 'Q<3', @$_ } @ev);
    my %exit = map { (($_->[1] & 0xffffff) - 0x500005) / 32 => $_->[0] } grep { $_->[1] >> 63 } @ev;
    my %want_deep;
    for my $i (0 .. 299) {
        my $d = $exit{$i} - (1000 + 10 * $i);
        my $inner = $i < 299 ? $exit{ $i + 1 } - (1000 + 10 * ($i + 1)) : 0;
        $want_deep{ sprintf 'f%03d', $i } = [1, $d, $d - $inner];
    }
    my ($ds, $dout, $derr) = run_cmd([$asan, 'report', "$dir/deep"]);
    is($ds, 0, '300 functions nested under ASan: status 0') or diag $derr;
    my $got_deep = parse_report($dout);
    is_deeply({ map { $_ => [@{ $got_deep->{$_} }{qw(calls total self)}] } keys %$got_deep }, \%want_deep,
        '300 functions nested: each one\'s calls, total and self');
    my ($s) = run_cmd([$asan, 'replay', $base]);
    is($s, 0, 'the undamaged recording under ASan: status 0');
}

done_testing();
