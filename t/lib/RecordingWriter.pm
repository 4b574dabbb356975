# SPDX-License-Identifier: GPL-2.0-or-later
package RecordingWriter;
# A process directory of a recording written byte for byte as
# doc/trace-format.md says (info, clock, objects, funcs, protos, done,
# stream-TID, ring-TID), from events given slot by slot: what the tests
# of mcount-read hold its output against.  And the slots of call trees
# known in advance, as the writer of a recording would have them.
use strict;
use warnings;
no warnings 'portable';    # 64-bit addresses
use Exporter 'import';
use List::Util qw(max);
use TestUtil qw(spit);

our @EXPORT_OK = qw(pk write_proc call_events known_writer parse_report damaged $T0 %FUNC $OUTSIDE $LIBK $OUTSIDE_NAME site ret_in);

# The known program of t/118 and t/124: its functions, where they are,
# and a return address in none of them.
our $T0 = 5_000_000_000_000;    # ns (CLOCK_MONOTONIC), and ticks for clock monotonic
our %FUNC = (                   # name => [address, size, object]
    main  => [0x401000, 0x100, 0],
    alpha => [0x401100, 0x50,  0],
    beta  => [0x401200, 0,     0],    # size 0: up to gamma
    gamma => [0x401300, 0x40,  0],
    libfn => [0x7f0000001000, 0x40, 1],
);
our $OUTSIDE = 0x7f00deadbee0;    # a return address in no function
our $LIBK = 0x7f0000000000;       # in libk.so, loaded there (objects)
our $OUTSIDE_NAME = sprintf 'libk.so+%#x', $OUTSIDE - $LIBK;    # as the live tracer names it
sub site { return $FUNC{ $_[0] }[0] + 5 }
sub ret_in { return $FUNC{ $_[0] }[0] + 0x10 }

# pk(BIG, WIDTH, WORDS...): the words packed, 8 or 4 bytes, in that order
sub pk {
    my ($big, $w) = (shift, shift);
    return pack(($w == 8 ? 'Q' : 'L') . ($big ? '>' : '<') . '*', @_);
}

# write_proc(DIR, %o): o: t0 (ns: the clock's default pair), func (name
# => [address, size, object]), libk (the bias of object 1), pid, big,
# graph, ticks (ns => ticks sub), clock (pairs), done, threads => {TID =>
# {events, stream, tail, head, mask, torn, width, lost, layout}},
# info_extra, funcs_extra
sub write_proc {
    my ($d, %o) = @_;
    my ($T0, $FUNC, $LIBK) = @o{qw(t0 func libk)};
    mkdir $d or die "$d: $!";
    my $big = $o{big} // 0;
    spit("$d/info", $o{info} // join('', "mcount-trace-data 1\n", 'byte-order ' . ($big ? 'big' : 'little') . "\n",
        "word-bits 64\n", "arch x86_64\n", "pid $o{pid}\n", "ppid 1\n", "future-key whatever it says\n",
        "program /usr/bin/known\n", "argv \"known\" \"-x\"\n",
        'tracer ' . ($o{graph} ? 'function_graph' : 'function') . "\n",
        'clock ' . ($o{clock} ? 'tsc' : 'monotonic') . "\n", "start 1700000000\n"));
    spit("$d/clock", $o{clock_text} // join('', map { "$_->[0] $_->[1]\n" } @{ $o{clock} // [[$T0, $T0]] }));
    spit("$d/objects", $o{objects} // sprintf "O 0 0 - /proc/self/exe\nO 1 %x abcd /lib/libk.so\n", $LIBK);
    spit("$d/funcs", $o{funcs} // join('', (map { sprintf "F %x %d %d %s\n", @{ $FUNC->{$_} }, $_ }
        sort { $FUNC->{$a}[0] <=> $FUNC->{$b}[0] } keys %$FUNC), $o{funcs_extra} // ''));
    spit("$d/protos", '');
    spit("$d/done", "events 0\nlost 0\nend 1700000001\n") if $o{done};
    for my $tid (sort keys %{ $o{threads} }) {
        my $t = $o{threads}{$tid};
        my @ev = @{ $t->{events} };
        my $n = @ev;
        my $L = $t->{stream} // $n;
        my $stream = join '', map { pk($big, 8, @$_) } @ev[0 .. $L - 1];
        $stream .= "\x55" x $t->{torn} if $t->{torn};
        spit("$d/stream-$tid", $stream) unless $t->{no_stream};
        my $w = $t->{width} // 8;
        my $head = $t->{head} // $n;
        my $tail = $t->{tail} // $L;
        my $mask = $t->{mask} // 63;
        # the header: fields where this layout puts them (the reader
        # must go by the offsets)
        my %at = (head => 4096, tail => 4160, mask => 4224, lost => 4232, comm => 4240, noshadow => 4256,
            unwound => 4264, untabled => 4272, recursion => 4280, ev => 8192, %{ $t->{layout} // {} });
        my $size = max($at{ev} + ($mask + 1) * 24, 4096 * 3);
        my $ring = "\xaa" x $size;
        my $put = sub { my ($off, $bytes) = @_; substr($ring, $off, length $bytes) = $bytes };
        $put->(0, "MCTRING\0");
        $put->(8, pk($big, 4, 0x01020304));
        $put->(12, pk($big, 4, $t->{version} // 1, $w, int $tid));
        $put->(24, pk($big, 8, @at{qw(head tail mask ev lost comm noshadow unwound untabled recursion)}));
        my $wrap = $w == 4 ? 2**32 : 2**64;
        $put->($at{head}, pk($big, $w, $head % $wrap));
        $put->($at{tail}, pk($big, $w, $tail % $wrap));
        $put->($at{mask}, pk($big, 8, $mask));
        $put->($at{lost}, pk($big, 8, $t->{lost} // 0));
        $put->($at{comm}, pack('a16', $t->{comm}));
        $put->($at{$_}, pk($big, 8, $t->{$_} // 0)) for qw(noshadow unwound untabled recursion);
        # the slots the ring still holds: [head - its size, head)
        for my $s (max(0, $head - ($mask + 1)) .. $head - 1) {
            $put->($at{ev} + ($s & $mask) * 24, pk($big, 8, @{ $ev[$s] })) if $s < $n;
        }
        $ring = $t->{ring_edit}->($ring) if $t->{ring_edit};
        spit("$d/ring-$tid", $ring) unless $t->{no_ring};
    }
    return $d;
}

# call_events(CALLS, %o) -> [slots]: the events of a thread's calls, in
# order, as [ts, ip, parent] slots, payloads included.  A call: [name,
# start, end, {args => [...], ret => V}, children...], times in ns after
# o{t0}; o: func (name => [address, ...]), cpu, graph, outside (the
# return address of the outermost calls), ticks (ns => the clock's
# ticks: ns).  Sites are 5 bytes into their
# function, return addresses 16.
sub call_events {
    my ($calls, %o) = @_;
    my $cpu = ($o{cpu} // 0) << 48;
    my $tk = $o{ticks} // sub { $_[0] };
    my @ev;
    my $walk;
    $walk = sub {
        my ($c, $caller) = @_;
        my ($name, $s, $e, $x, @kids) = @$c;
        my $site = $o{func}{$name}[0] + 5;
        my $ets = $tk->($o{t0} + $s);
        my $ip = $site | $cpu | ($o{graph} ? (1 << 60) | (1 << 62) : 0);
        my @args = @{ $x->{args} // [] };
        $ip |= 1 << 61 if @args;
        push @ev, [$ets, $ip, defined $caller ? $o{func}{$caller}[0] + 0x10 : $o{outside}];
        if (@args) {
            # raw words: key 0, N | S << 16, the words, in slots of three
            my @w = (0, scalar(@args), @args);
            my $slots = int((@w + 2) / 3);
            $w[1] |= $slots << 16;
            push @w, 0 while @w % 3;
            push @ev, [splice(@w, 0, 3)] while @w;
        }
        $walk->($_, $name) for @kids;
        return unless $o{graph};
        push @ev, [$tk->($o{t0} + $e), $site | $cpu | (1 << 63) | (defined $x->{ret} ? 1 << 61 : 0), $ets];
        push @ev, [$x->{ret}, 0, 0] if defined $x->{ret};
    };
    $walk->($_, undef) for @$calls;
    return \@ev;
}

# parse_report(TEXT) -> {name => {calls, total, self, min, avg, p50, p90,
# p99, max}}: mcount-read report's rows, times in ns (its microseconds
# with three decimals).
sub parse_report {
    my ($text) = @_;
    my %r;
    my @cols = qw(calls total self min avg p50 p90 p99 max);
    for my $line (split /\n/, $text) {
        next if $line =~ /^\s*(?:calls|#)/;
        my @f = split ' ', $line;
        my $name = pop @f;
        my %row;
        @row{@cols} = map { /^(\d+)\.(\d{3})\z/ ? $1 * 1000 + $2 : $_ } @f;
        $r{$name} = \%row;
    }
    return \%r;
}

# damaged(BYTES, HOW) -> a damaged copy of BYTES: HOW 0, up to 8 bytes
# changed at random; 1, cut at random; 2, a word of a ring's header
# (the first 14) set to a large number.  (rand: the caller's srand.)
sub damaged {
    my ($b, $how) = @_;
    if ($how == 0) {
        substr($b, int rand length $b, 1) = chr int rand 256 for 1 .. 1 + int rand 8;
    } elsif ($how == 1) {
        $b = substr($b, 0, int rand length $b);
    } else {
        my $off = 8 * int rand 14;
        substr($b, $off, 8) = pack('Q<', (1 << (int rand 64)) - int rand 3) if length $b >= $off + 8;
    }
    return $b;
}

# known_writer(DIR, %o): write_proc with the known program's functions
sub known_writer { my ($d, %o) = @_; return write_proc($d, t0 => $T0, func => \%FUNC, libk => $LIBK, %o) }

1;
