#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# replay --format=perfetto read by an outside reader: protoc (Debian's
# protobuf-compiler) decodes the file as perfetto.protos.Trace with a
# .proto written here from the field numbers of Perfetto's own .proto
# files (protos/perfetto/trace/: trace.proto, trace_packet.proto,
# track_event/*.proto, interned_data/interned_data.proto), not from
# read/perfetto.c.  Then what Perfetto's importer relies on, checked on
# the decoded text: every packet on a sequence, the first of each with
# SEQ_INCREMENTAL_STATE_CLEARED and those after with
# SEQ_NEEDS_INCREMENTAL_STATE; every interned name defined on its
# sequence before (or in) the packet that uses it, an iid one name for
# the whole file; every event on a track described before it; times in
# order on each track; every slice ended on its own track, none left
# open; a sequence's defaults (its track, its clock) applied, and its
# own clock (64 to 127) used only after a ClockSnapshot relates it to a
# built-in one, its times deltas where the snapshot says incremental.  The checker is shown each such fault in a trace spoilt here.
# The slices are the known call trees of recordings written byte for
# byte (RecordingWriter): names, nesting, begin and end times in ns,
# arguments and return values; the function tracer's calls are
# instants; a tick clock's times are converted; replay's filters keep
# the trace whole.  Then a real `mcount-trace record` of a program that
# counts its own calls (t/src/trace/recorded.c): its threads' tracks
# and its counts.  The size of a million events, against Chrome's JSON.
use strict;
use warnings;
use feature 'state';
no warnings 'portable';    # 64-bit addresses
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP run_cmd tmpdir slurp spit need);
use TraceTest qw($MT $TSRC clean_env mcc_build link_prog);
use RecordingWriter qw(write_proc call_events $T0 %FUNC $LIBK $OUTSIDE);

my $READ = "$TOP/build/mcount-read";
plan skip_all => "no $READ (make all)" unless -x $READ;
need('protoc', 'script');
my $dir = tmpdir();

# ---- Perfetto's messages, those used: the field numbers of its .proto files ----

my $PROTO = "$dir/perfetto.proto";
spit($PROTO, <<'END');
syntax = "proto2";
package perfetto.protos;
message Trace { repeated TracePacket packet = 1; }
message TracePacket {
  optional ClockSnapshot clock_snapshot = 6;
  optional uint64 timestamp = 8;
  optional uint32 trusted_packet_sequence_id = 10;
  optional TrackEvent track_event = 11;
  optional InternedData interned_data = 12;
  optional uint32 sequence_flags = 13;
  optional uint32 timestamp_clock_id = 58;
  optional TracePacketDefaults trace_packet_defaults = 59;
  optional TrackDescriptor track_descriptor = 60;
}
message ClockSnapshot {
  message Clock {
    optional uint32 clock_id = 1;
    optional uint64 timestamp = 2;
    optional bool is_incremental = 3;
    optional uint64 unit_multiplier_ns = 4;
  }
  repeated Clock clocks = 1;
}
message TracePacketDefaults {
  optional uint32 timestamp_clock_id = 58;
  optional TrackEventDefaults track_event_defaults = 11;
}
message TrackEventDefaults { optional uint64 track_uuid = 11; }
message TrackDescriptor {
  optional uint64 uuid = 1;
  optional string name = 2;
  optional ProcessDescriptor process = 3;
  optional ThreadDescriptor thread = 4;
  optional uint64 parent_uuid = 5;
}
message ProcessDescriptor {
  optional int32 pid = 1;
  repeated string cmdline = 2;
  optional string process_name = 6;
}
message ThreadDescriptor {
  optional int32 pid = 1;
  optional int32 tid = 2;
  optional string thread_name = 5;
}
message TrackEvent {
  enum Type {
    TYPE_UNSPECIFIED = 0;
    TYPE_SLICE_BEGIN = 1;
    TYPE_SLICE_END = 2;
    TYPE_INSTANT = 3;
    TYPE_COUNTER = 4;
  }
  repeated DebugAnnotation debug_annotations = 4;
  optional Type type = 9;
  optional uint64 name_iid = 10;
  optional uint64 track_uuid = 11;
  optional string name = 23;
}
message DebugAnnotation {
  optional uint64 name_iid = 1;
  optional bool bool_value = 2;
  optional uint64 uint_value = 3;
  optional int64 int_value = 4;
  optional double double_value = 5;
  optional string string_value = 6;
  optional uint64 pointer_value = 7;
  optional string name = 10;
}
message EventName {
  optional uint64 iid = 1;
  optional string name = 2;
}
message InternedData { repeated EventName event_names = 2; }
END

# protoc's text: messages as {field => [values]} (a message a hash)
sub parse_text {
    my ($text) = @_;
    my @stack = ({});
    for my $line (split /\n/, $text) {
        $line =~ s/\A\s+//;
        next if $line eq '';
        if ($line =~ /\A(\w+) \{\z/) {
            push @{ $stack[-1]{$1} }, my $m = {};
            push @stack, $m;
        } elsif ($line eq '}') {
            pop @stack;
            die "protoc's text: an unmatched }\n" unless @stack;
        } elsif ($line =~ /\A(\w+): (.*)\z/) {
            my ($k, $v) = ($1, $2);
            $v =~ s/\A"(.*)"\z/$1/ and $v =~ s/\\([0-7]{3}|.)/length $1 == 3 ? chr oct $1 : $1 eq 'n' ? "\n" : $1/ge;
            push @{ $stack[-1]{$k} }, $v;
        } else {
            die "protoc's text: '$line'\n";
        }
    }
    return $stack[0];
}

# decode(FILE) -> (packets or undef, protoc's stderr)
sub decode {
    my ($f) = @_;
    my ($st, $out, $err) = run_cmd(['protoc', "-I$dir", '--decode=perfetto.protos.Trace', $PROTO], stdin => slurp($f));
    return (undef, $err) if $st;
    return (parse_text($out)->{packet} // [], $err);
}

sub one { my ($m, $k) = @_; return $m->{$k} ? $m->{$k}[0] : undef }

# check(PACKETS) -> (faults: {kind => [what]}, model): model = { procs
# => {uuid => {pid, name}}, threads => {uuid => {pid, tid, name,
# parent}}, slices => {uuid => [[path, begin, end, {annotations}]]},
# instants => {uuid => [[name, ts, {annotations}]]} }
sub check {
    my ($packets) = @_;
    my (%fault, %seen_seq, %defined, %iid_name, %track, %stack, %last_ts, %model, %defaults, %clock);
    my $say = sub { my ($k, $what) = @_; push @{ $fault{$k} }, $what; return };
    my $ann = sub {
        my ($te) = @_;
        my %a;
        for my $d (@{ $te->{debug_annotations} // [] }) {
            my ($k) = grep { /_value\z/ } keys %$d;
            $a{ one($d, 'name') } = $k ? one($d, $k) : undef;
        }
        return \%a;
    };
    my $n = 0;
    for my $p (@$packets) {
        $n++;
        my $seq = one($p, 'trusted_packet_sequence_id');
        if (!$seq) {
            $say->(sequence => "packet $n: no sequence");
            next;
        }
        my $flags = one($p, 'sequence_flags') // 0;
        if (!$seen_seq{$seq}++) {
            $say->(flags => "packet $n: first of sequence $seq without SEQ_INCREMENTAL_STATE_CLEARED") unless $flags & 1;
        }
        if (my $d = one($p, 'trace_packet_defaults')) {
            $defaults{$seq} = { clock => one($d, 'timestamp_clock_id'),
                track => one(one($d, 'track_event_defaults') // {}, 'track_uuid') };
        }
        # the packet's time: on a built-in clock (1 to 63) as it is; on
        # the sequence's own, through its snapshot (incremental: since
        # the last time on that clock)
        my $ts = one($p, 'timestamp');
        if (defined $ts) {
            my $cid = one($p, 'timestamp_clock_id') // $defaults{$seq}{clock} // 6;
            if ($cid >= 64) {
                my $c = $clock{$seq}{$cid};
                if (!$c) {
                    $say->(clock => "packet $n: clock $cid used before a snapshot on sequence $seq");
                } else {
                    $c->{value} = $c->{incremental} ? $c->{value} + $ts : $ts;
                    $ts = $c->{value} + $c->{offset};
                }
            }
        }
        if (my $cs = one($p, 'clock_snapshot')) {
            my ($builtin) = grep { one($_, 'clock_id') < 64 } @{ $cs->{clocks} // [] };
            for my $c (grep { one($_, 'clock_id') >= 64 } @{ $cs->{clocks} // [] }) {
                if (!$builtin) {
                    $say->(clock => "packet $n: clock " . one($c, 'clock_id') . ' related to no built-in clock');
                    next;
                }
                $clock{$seq}{ one($c, 'clock_id') } = { value => one($c, 'timestamp'),
                    incremental => (one($c, 'is_incremental') // '') eq 'true',
                    offset => one($builtin, 'timestamp') - one($c, 'timestamp') };
            }
        }
        for my $id (@{ $p->{interned_data} // [] }) {
            for my $en (@{ $id->{event_names} // [] }) {
                my ($iid, $name) = (one($en, 'iid'), one($en, 'name'));
                $say->(iid => "packet $n: iid $iid is '$iid_name{$iid}' and '$name'")
                    if defined $iid_name{$iid} && $iid_name{$iid} ne $name;
                $iid_name{$iid} //= $name;
                $defined{$seq}{$iid} = $name;
            }
        }
        if (my $td = one($p, 'track_descriptor')) {
            my $uuid = one($td, 'uuid');
            $say->(track => "packet $n: track $uuid described twice") if $track{$uuid};
            if (my $pd = one($td, 'process')) {
                $track{$uuid} = 'process';
                $model{procs}{$uuid} = { pid => one($pd, 'pid'), name => one($pd, 'process_name') };
            } elsif (my $thd = one($td, 'thread')) {
                my $parent = one($td, 'parent_uuid');
                $say->(track => "packet $n: thread track ${uuid}'s parent is no process's")
                    unless defined $parent && ($track{$parent} // '') eq 'process';
                $track{$uuid} = 'thread';
                $model{threads}{$uuid} = { pid => one($thd, 'pid'), tid => one($thd, 'tid'),
                    name => one($thd, 'thread_name'), parent => $parent };
            }
        }
        my $te = one($p, 'track_event') or next;
        $say->(flags => "packet $n: interned names used without SEQ_NEEDS_INCREMENTAL_STATE")
            if defined one($te, 'name_iid') && !($flags & 2);
        my $uuid = one($te, 'track_uuid') // $defaults{$seq}{track} // 0;
        if (!$track{$uuid}) {
            $say->(track => "packet $n: track $uuid not described before its event");
            next;
        }
        $say->(order => "packet $n: track ${uuid}'s time goes back ($last_ts{$uuid} to $ts)")
            if defined $last_ts{$uuid} && $ts < $last_ts{$uuid};
        $last_ts{$uuid} = $ts;
        my $type = one($te, 'type') // '';
        my $name;
        if ($type ne 'TYPE_SLICE_END') {
            my $iid = one($te, 'name_iid');
            $name = defined $iid ? $defined{$seq}{$iid} : undef;
            if (!defined $name) {
                $say->(iid => "packet $n: iid " . ($iid // 'none') . " not defined on sequence $seq before its use");
                $name = '?';
            }
        }
        my $st = $stack{$uuid} //= [];
        if ($type eq 'TYPE_SLICE_BEGIN') {
            my $path = join ';', (map { $_->[0] } @$st), $name;
            push @$st, [$name, $ts, $path, $ann->($te)];
        } elsif ($type eq 'TYPE_SLICE_END') {
            my $b = pop @$st;
            if (!$b) {
                $say->(open => "packet $n: an end on track $uuid, no slice open there");
                next;
            }
            push @{ $model{slices}{$uuid} }, [$b->[2], $b->[1], $ts, { %{ $b->[3] }, %{ $ann->($te) } }];
        } elsif ($type eq 'TYPE_INSTANT') {
            push @{ $model{instants}{$uuid} }, [$name, $ts, $ann->($te)];
        } else {
            $say->(type => "packet $n: an event of type '$type'");
        }
    }
    for my $uuid (sort keys %stack) {
        $say->(open => "track $uuid: slice $_->[2] never ended") for @{ $stack{$uuid} };
    }
    return (\%fault, \%model);
}

# ---- recordings of known calls ----

my %TREE = (
    1001 => { comm => 'worker-a', calls => [
        ['main', 1000, 900_000, {},
            ['alpha', 2000, 30_000, {},
                ['beta', 3000, 3500, {}],
                ['beta', 4000, 5234, { args => [1, 2, 0x30, 4], ret => 42 }]],
            ['gamma', 40_000, 41_000, { ret => 0xffffffea }],
            ['libfn', 50_000, 850_000, {},
                ['beta', 60_000, 61_700, {}]]],
    ] },
    1002 => { comm => 'b', calls => [
        ['alpha', 3200, 100_000, {},
            ['beta', 3300, 3400, {}]],
        ['gamma', 200_000, 12_200_000, {}],
    ] },
);

# the slices of a thread's calls: [path, begin, end] (ns), preorder
sub tree_slices {
    my ($calls, $ns) = @_;
    my @s;
    my $walk;
    $walk = sub {
        my ($c, @up) = @_;
        my ($name, $b, $e, $o, @kids) = @$c;
        push @s, [join(';', @up, $name), $ns->($b), $ns->($e)];
        $walk->($_, @up, $name) for @kids;
    };
    $walk->($_) for @$calls;
    return \@s;
}

sub recording {
    my ($name, %o) = @_;
    my $ticks = $o{ticks} // sub { $_[0] };
    my %th;
    for my $tid (keys %TREE) {
        my $ev = call_events($TREE{$tid}{calls}, t0 => $T0, func => \%FUNC, graph => $o{graph}, cpu => 1,
            outside => $OUTSIDE, ticks => $ticks);
        $th{$tid} = { events => $ev, comm => $TREE{$tid}{comm} };
    }
    mkdir "$dir/$name" or die;
    write_proc("$dir/$name/4242", t0 => $T0, func => \%FUNC, libk => $LIBK, pid => 4242, graph => $o{graph},
        done => 1, threads => \%th, %{ $o{write} // {} });
    return "$dir/$name";
}

# perfetto(DIR, OPTIONS...) -> (packets, faults, model), the file's
# name; the steps said
sub perfetto {
    my ($rec, @opt) = @_;
    state $n = 0;
    my $f = "$rec." . $n++ . '.pftrace';
    my ($st, $out, $err) = run_cmd([$READ, 'replay', '--format=perfetto', @opt, '-o', $f, $rec]);
    is($st, 0, "$rec @opt: mcount-read replay --format=perfetto: status 0") or diag $err;
    my ($packets, $perr) = decode($f);
    ok($packets, "@opt: protoc decodes the file as perfetto.protos.Trace") or diag $perr;
    my ($fault, $model) = check($packets // []);
    is_deeply($fault, {}, "@opt: sequences, interning, tracks, time order, every slice ended on its track")
        or diag explain $fault;
    return ($packets, $fault, $model, $f);
}

sub uuid_of_tid {
    my ($model, $tid) = @_;
    my ($u) = grep { $model->{threads}{$_}{tid} == $tid } keys %{ $model->{threads} };
    return $u;
}

my $graph = recording('graph', graph => 1);
my ($packets, $fault, $model, $gfile) = perfetto($graph);
is_deeply([values %{ $model->{procs} }], [{ pid => 4242, name => '/usr/bin/known' }], 'a process track: pid, program');
my ($puuid) = keys %{ $model->{procs} };
is_deeply({ map { $_->{tid} => [$_->{pid}, $_->{name}, $_->{parent}] } values %{ $model->{threads} } },
    { 1001 => [4242, 'worker-a', $puuid], 1002 => [4242, 'b', $puuid] },
    'a thread track a thread: pid, tid, comm, the process its parent');
for my $tid (sort keys %TREE) {
    my $u = uuid_of_tid($model, $tid);
    my @got = map { [@$_[0 .. 2]] } sort { $a->[1] <=> $b->[1] } @{ $model->{slices}{$u} // [] };
    is_deeply(\@got, tree_slices($TREE{$tid}{calls}, sub { $T0 + $_[0] }),
        "thread $tid: a slice a call: its name, nesting, begin and end (ns)");
}
my %ann = map { ("$_->[0] $_->[1]" => $_->[3]) } map { @$_ } values %{ $model->{slices} };
is_deeply($ann{"main;alpha;beta " . ($T0 + 4000)}, { args => '(0x1, 0x2, 0x30, 0x4)', retval => '0x2a' },
    "beta's arguments and return value: its slice's debug annotations, as replay's text has them");
is_deeply($ann{"main;gamma " . ($T0 + 40_000)}, { retval => '-22' }, "gamma's return value, an error's number");
is(scalar(grep { %$_ } values %ann), 2, 'no other slice has annotations');
my $nev = grep { one($_, 'track_event') } @$packets;
is($nev, 2 * 10, 'a packet a begin and an end, nothing else');
my %names = map { (one($_, 'name') => one($_, 'iid')) } map { @{ $_->{event_names} } }
    map { @{ $_->{interned_data} // [] } } @$packets;
is(scalar(keys %names), 5, 'each of the five names interned once a thread at most, one iid each');
my $defs = () = map { @{ $_->{event_names} } } map { @{ $_->{interned_data} // [] } } @$packets;
is($defs, 5 + 3, 'the names defined: each once on each thread that uses it (5 on 1001, 3 on 1002)');

# the function tracer: instants, in the order of the calls
my $fn = recording('fn', graph => 0);
(undef, undef, my $fmodel) = perfetto($fn);
for my $tid (sort keys %TREE) {
    my $u = uuid_of_tid($fmodel, $tid);
    my @want = map { [(split /;/, $_->[0])[-1], $_->[1]] } @{ tree_slices($TREE{$tid}{calls}, sub { $T0 + $_[0] }) };
    is_deeply([map { [@$_[0, 1]] } @{ $fmodel->{instants}{$u} // [] }], \@want,
        "function data, thread $tid: an instant a call, its name and time");
}
ok(!$fmodel->{slices}, 'function data: no slice');

# a tick clock (3 a ns, from 1000): the times converted to ns
my $tsc = sub { 3 * ($_[0] - $T0) + 1000 };
my $ticked = recording('ticks', graph => 1, ticks => $tsc,
    write => { clock => [[1000, $T0], [$tsc->($T0 + 20_000_000), $T0 + 20_000_000]] });
(undef, undef, my $tmodel) = perfetto($ticked);
my $u1 = uuid_of_tid($tmodel, 1001);
is_deeply([map { [@$_[0 .. 2]] } sort { $a->[1] <=> $b->[1] } @{ $tmodel->{slices}{$u1} }],
    tree_slices($TREE{1001}{calls}, sub { $T0 + $_[0] }), 'a tick clock: the slices in ns through its pairs');

# replay's filters: what they keep, and the trace still whole
(undef, undef, my $m) = perfetto($graph, '--tid=1002');
is_deeply([map { $_->{tid} } values %{ $m->{threads} }], [1002], '--tid=1002: that thread alone');
(undef, undef, $m) = perfetto($graph, '--function=b*');
is_deeply([sort map { $_->[0] } map { @$_ } values %{ $m->{slices} }], [('beta') x 4], '--function=b*: the beta slices');
(undef, undef, $m) = perfetto($graph, '--depth=2');
is_deeply([sort map { $_->[0] } map { @$_ } values %{ $m->{slices} }],
    [sort 'main', 'main;alpha', 'main;gamma', 'main;libfn', 'alpha', 'alpha;beta', 'gamma'],
    '--depth=2: the calls less than two deep');
(undef, undef, $m) = perfetto($graph, '--since=5000.0000036', '--until=5000.0000415');
is_deeply([sort map { $_->[0] } map { @$_ } values %{ $m->{slices} }], ['beta', 'gamma'],
    '--since/--until: the calls that begin then (their ends kept)');

# two processes: a process track each, its threads under it
{
    my $two = recording('two', graph => 1);
    my %th = map { ($_ => { comm => "c$_", events => call_events($TREE{1001}{calls}, t0 => $T0, func => \%FUNC,
        graph => 1, cpu => 1, outside => $OUTSIDE) }) } 2001, 2002;
    write_proc("$two/4243", t0 => $T0, func => \%FUNC, libk => $LIBK, pid => 4243, graph => 1, done => 1,
        threads => \%th);
    my (undef, undef, $tm) = perfetto($two);
    my %pid_of = map { ($_ => $tm->{procs}{$_}{pid}) } keys %{ $tm->{procs} };
    is_deeply([sort values %pid_of], [4242, 4243], 'two processes: a process track each');
    is_deeply({ map { $_->{tid} => [$_->{pid}, $pid_of{ $_->{parent} }] } values %{ $tm->{threads} } },
        { 1001 => [4242, 4242], 1002 => [4242, 4242], 2001 => [4243, 4243], 2002 => [4243, 4243] },
        "two processes: each thread's track under its process's");
    my $u = uuid_of_tid($tm, 2002);
    is_deeply([map { [@$_[0 .. 2]] } sort { $a->[1] <=> $b->[1] } @{ $tm->{slices}{$u} }],
        tree_slices($TREE{1001}{calls}, sub { $T0 + $_[0] }), "two processes: the second's threads' slices");
}

# losses: an instant after the thread's last event, the count its annotation
{
    my $lost = recording('lost', graph => 1, write => { threads => {
        1002 => { comm => 'b', lost => 7, events => call_events($TREE{1002}{calls}, t0 => $T0, func => \%FUNC,
            graph => 1, cpu => 1, outside => $OUTSIDE) } } });
    my (undef, undef, $lm) = perfetto($lost);
    my $u = uuid_of_tid($lm, 1002);
    is_deeply($lm->{instants}{$u}, [['lost events', $T0 + 12_200_000, { lost => 7 }]],
        'lost events: an instant at the last event, lost 7');
}

# ---- the checker, shown each fault ----

my ($good) = decode($gfile);
sub spoilt {
    my ($what, $kind, $edit) = @_;
    my ($p) = decode($gfile);
    $edit->($p);
    my ($f) = check($p);
    ok($f->{$kind}, "the checker sees $what ($kind)") or diag explain $f;
}
my @evi = grep { one($good->[$_], 'track_event') } 0 .. $#$good;
my ($end) = grep { one(one($good->[$_], 'track_event'), 'type') eq 'TYPE_SLICE_END' } @evi;
spoilt('a slice never ended', 'open', sub { splice @{ $_[0] }, $end, 1 });
spoilt('an end on another track', 'open', sub {
    my $seq = one($_[0][$end], 'trusted_packet_sequence_id');
    my ($mine) = map { one(one(one($_, 'trace_packet_defaults'), 'track_event_defaults'), 'track_uuid') }
        grep { one($_, 'trusted_packet_sequence_id') == $seq && one($_, 'trace_packet_defaults') } @{ $_[0] };
    one($_[0][$end], 'track_event')->{track_uuid}[0] = (grep { $_ != $mine } keys %{ $model->{threads} })[0];
});
my ($first_def) = grep { $good->[$_]{interned_data} } 0 .. $#$good;
spoilt('a name used and never defined', 'iid', sub { delete $_[0][$first_def]{interned_data} });
spoilt('a name defined on another sequence', 'iid', sub {
    # moved to the other thread's descriptor (its sequence), before the use
    my $seq = one($_[0][$first_def], 'trusted_packet_sequence_id');
    my ($other) = grep { one($_[0][$_], 'track_descriptor') && one(one($_[0][$_], 'track_descriptor'), 'thread')
        && one($_[0][$_], 'trusted_packet_sequence_id') != $seq } 0 .. $#{ $_[0] };
    $_[0][$other]{interned_data} = delete $_[0][$first_def]{interned_data};
});
spoilt('an iid given two names', 'iid', sub {
    my ($later) = grep { $_ > $first_def && $_[0][$_]{interned_data} } 0 .. $#{ $_[0] };
    $_[0][$later]{interned_data}[0]{event_names}[0]{iid}[0] =
        $_[0][$first_def]{interned_data}[0]{event_names}[0]{iid}[0];
});
spoilt('a time that goes back on its track', 'order', sub {
    # an event at the time before its sequence's snapshot, on BOOTTIME
    my ($e) = grep { $_ > $evi[0] && one($_[0][$_], 'trusted_packet_sequence_id')
        == one($_[0][$evi[0]], 'trusted_packet_sequence_id') } @evi;
    my ($cs) = grep { one($_[0][$_], 'clock_snapshot') } 0 .. $#{ $_[0] };
    $_[0][$e]{timestamp} = [one($_[0][$cs], 'timestamp') - 1];
    $_[0][$e]{timestamp_clock_id} = [6];
});
spoilt('a sequence\'s clock used before its snapshot', 'clock', sub {
    my ($cs) = grep { one($_[0][$_], 'clock_snapshot') } 0 .. $#{ $_[0] };
    splice @{ $_[0] }, $cs, 1;
});
spoilt('a sequence not begun with its state cleared', 'flags', sub { $_[0][1]{sequence_flags}[0] = 2 });
spoilt('interned names used without needing the state', 'flags', sub { $_[0][$evi[0]]{sequence_flags}[0] = 0 });
spoilt('an event on a track not described', 'track', sub {
    my ($d) = grep { one($_[0][$_], 'trace_packet_defaults') } 0 .. $#{ $_[0] };
    delete $_[0][$d]{track_descriptor};
});
{
    my ($p) = decode($gfile);
    $_->{name}[0] =~ s/\Agamma\z/delta/ for map { @{ $_->{event_names} } } map { @{ $_->{interned_data} // [] } } @$p;
    my (undef, $sm) = check($p);
    my $u = uuid_of_tid($sm, 1002);
    isnt(join(',', map { $_->[0] } @{ $sm->{slices}{$u} }), join(',', map { $_->[0] } @{ tree_slices($TREE{1002}{calls}, sub { $_[0] }) }),
        'a slice misnamed: not the calls of the tree');
}

# ---- standard output: a file, a pipe, not a terminal ----

my ($st, $out, $err) = run_cmd([$READ, 'replay', '--format=perfetto', $graph]);
is($out, slurp($gfile), 'to standard output (not a terminal): the same bytes as -o writes');
($st, $out) = run_cmd(['script', '-qec', "$READ replay --format=perfetto $graph; echo status \$?", '/dev/null']);
like($out, qr/mcount-read: --format=perfetto writes binary: not to a terminal \(-o FILE\)\r?\n.*status 2/s,
    'a terminal: refused, status 2');
($st, $out) = run_cmd(['script', '-qec', "$READ replay --format=perfetto -o $dir/tty.pftrace $graph; echo status \$?",
    '/dev/null']);
like($out, qr/status 0/, 'a terminal with -o FILE: written');
is(slurp("$dir/tty.pftrace"), slurp($gfile), '... the same file');

($st, $out, $err) = run_cmd([$READ, 'replay', '--format=perfetto', '-o', '/dev/full', $graph]);
is(($st >> 8) . " $err", "1 mcount-read: /dev/full: No space left on device\n", '-o a full device: said, status 1');
($st, $out, $err) = run_cmd([$READ, 'replay', '--format=perfetto', '-o', "$dir/none/x", $graph]);
is(($st >> 8) . " $err", "1 mcount-read: $dir/none/x: No such file or directory\n", '-o in no directory: said, status 1');

# ---- mcount-trace replay ----

clean_env();
($st, $out, $err) = run_cmd([$MT, 'replay', '--format=perfetto', '-o', "$dir/mt.pftrace", $graph]);
is($st, 0, 'mcount-trace replay --format=perfetto -o FILE: status 0') or diag $err;
is(slurp("$dir/mt.pftrace"), slurp($gfile), '... the file mcount-read writes');
($st, $out, $err) = run_cmd([$MT, 'replay', '--format=protobuf', $graph]);
like($err, qr/--format must be text, json, chrome or perfetto, not 'protobuf'/, 'replay --format=protobuf: refused');
is($st >> 8, 2, '... status 2');
($st, $out, $err) = run_cmd([$MT, 'run', '--format=perfetto', '--', 'true']);
like($err, qr/--format must be text, json or chrome, not 'perfetto'/, 'run --format=perfetto: refused (replay only)');
for my $f (['--graph-function=main'], ['--time-threshold=1ms']) {
    ($st, $out, $err) = run_cmd([$MT, 'replay', '--format=perfetto', @$f, '-o', "$dir/gf.pftrace", $graph]);
    is(($st >> 8) . ' ' . (-e "$dir/gf.pftrace" ? 'file' : 'none'), '2 none', "replay --format=perfetto @$f: refused, "
        . 'nothing written (the filter would be ignored)');
    like($err, qr/--graph-function and --time-threshold: not with --format=perfetto/, '... and said');
    ($st, undef, $err) = run_cmd([$READ, 'replay', '--format=perfetto', @$f, '-o', "$dir/gf.pftrace", $graph]);
    is($st >> 8, 2, "mcount-read replay --format=perfetto @$f: refused too");
}

# ---- a real recording: a program that counts its own calls ----

my $prog = link_prog("$dir/recorded", mcc_build('-pg -mfentry', "$dir/recorded.o", "$TSRC/recorded.c", '-O2'),
    '-pthread');
for my $tracer (qw(function_graph function)) {
    my $rec = "$dir/real-$tracer";
    ($st, $out, $err) = run_cmd(['timeout', '-k', '10', '300', $MT, 'record', '-d', $rec, '-f', 'mid,leaf', '-t',
        $tracer, '--', $prog, 2, 1000, 'exit']);
    my %said = map { /\Acalls (\d+) (\d+)\z/ ? ($1 => $2) : () } split /\n/, $out;
    is(scalar(keys %said), 2, "$tracer: the program's two threads counted their calls") or diag "$out$err";
    my ($rpd) = glob "$rec/*";
    my (undef, undef, $rm) = perfetto($rpd);
    is_deeply([sort map { $_->{tid} } values %{ $rm->{threads} }], [sort keys %said],
        "$tracer: a track a thread, by the program's own TIDs");
    is_deeply([map { $_->{name} } values %{ $rm->{threads} }], [('recorded') x 2], "$tracer: the threads' names");
    for my $tid (sort keys %said) {
        my $u = uuid_of_tid($rm, $tid) // -1;
        my %count;
        if ($tracer eq 'function_graph') {
            $count{ $_->[0] }++ for @{ $rm->{slices}{$u} // [] };
            is_deeply(\%count, { mid => $said{$tid}, 'mid;leaf' => $said{$tid} },
                "function_graph, thread $tid: a mid slice a call the program counted, a leaf slice in each");
        } else {
            $count{ $_->[0] }++ for @{ $rm->{instants}{$u} // [] };
            is_deeply(\%count, { mid => $said{$tid}, leaf => $said{$tid} },
                "function, thread $tid: an instant a call of mid and of leaf, as the program counted");
        }
    }
}

# ---- under ASan and UBSan: these recordings, and random damage ----

{
    my $asan = "$dir/mcount-read-asan";
    my ($cs, undef, $ce) = run_cmd(['cc', '-std=c11', '-O1', '-g', '-fsanitize=address,undefined',
        '-fno-sanitize-recover=all', "-I$TOP/rt", '-o', $asan, glob("$TOP/read/*.c"), "$TOP/rt/argfmt.c", '-lm']);
    ok(!$cs, 'mcount-read builds with ASan and UBSan') or diag($ce);
    my $env = { ASAN_OPTIONS => 'detect_leaks=1' };
    my $same = 0;
    for my $rec ($graph, $fn, $ticked) {
        ($st, undef, $err) = run_cmd([$asan, 'replay', '--format=perfetto', '-o', "$dir/asan.pftrace", $rec],
            env => $env);
        run_cmd([$READ, 'replay', '--format=perfetto', '-o', "$dir/plain.pftrace", $rec]);
        $same++ if !$st && $err eq '' && slurp("$dir/asan.pftrace") eq slurp("$dir/plain.pftrace");
    }
    is($same, 3, 'ASan and UBSan: three recordings, no complaint, the same files');
    srand(121);
    my $base = recording('fuzz', graph => 1) . '/4242';
    my @files = map { "$base/$_" } qw(funcs clock ring-1001 ring-1002 stream-1001 stream-1002);
    my %orig = map { $_ => slurp($_) } @files;
    my ($bad, $ill) = (0, 0);
    for my $i (1 .. 60) {
        my $f = $files[ int rand @files ];
        spit($f, RecordingWriter::damaged($orig{$f}, $i % 2 ? 0 : 1));
        ($st, undef, $err) = run_cmd([$asan, 'replay', '--format=perfetto', '-o', "$dir/fuzz.pftrace", $base],
            env => $env);
        if (($st >> 8) > 1 || ($st & 127) || $err =~ /Sanitizer|runtime error/) {
            $bad++;
            diag "$f (case $i): status $st\n$err" if $bad < 4;
        }
        # the file well formed whatever the recording: a slice may stay
        # open (its exit damaged), a damaged time go back
        my ($p) = decode("$dir/fuzz.pftrace");
        my ($fault) = $p ? check($p) : ({ decode => 1 });
        delete @$fault{qw(open order)};
        if (%$fault) {
            $ill++;
            diag "$f (case $i): " . explain($fault) if $ill < 4;
        }
        spit($f, $orig{$f});
    }
    is($bad, 0, 'random damage: 60 runs, none crashed or erred under ASan/UBSan');
    is($ill, 0, 'random damage: every file decodes, its sequences, names, tracks and clocks whole');
}

# ---- size: a million events ----

{
    my @kids = map { my $b = 1000 + 10 * $_; ['beta', $b, $b + 5, {}] } 0 .. 499_997;
    my $calls = [['main', 0, 10 * 500_000 + 2000, {}, ['alpha', 500, 10 * 499_998 + 1000, {}, @kids]]];
    my $ev = call_events($calls, t0 => $T0, func => \%FUNC, graph => 1, cpu => 1, outside => $OUTSIDE);
    my $n = @$ev;
    mkdir "$dir/big" or die;
    write_proc("$dir/big/7", t0 => $T0, func => \%FUNC, libk => $LIBK, pid => 7, graph => 1, done => 1,
        threads => { 7 => { events => $ev, comm => 'big' } });
    ($st, undef, $err) = run_cmd([$READ, 'replay', '--format=perfetto', '-o', "$dir/big.pftrace", "$dir/big"]);
    is($st, 0, "$n events: written") or diag $err;
    ($st, undef, $err) = run_cmd([$READ, 'replay', '--format=chrome', '-o', "$dir/big.json", "$dir/big"]);
    my ($ps, $cs) = (-s "$dir/big.pftrace", -s "$dir/big.json");
    my ($pe, $ce) = map { sprintf '%.1f', $_ / $n } $ps, $cs;
    diag("$n events: perfetto $ps bytes ($pe an event), chrome $cs bytes ($ce an event)");
    cmp_ok($pe, '<=', 14, "perfetto: at most 14 bytes an event ($pe)");
    cmp_ok($ps * 4, '<', $cs, "perfetto: under a quarter of Chrome's JSON ($ps against $cs)");
}

done_testing();
