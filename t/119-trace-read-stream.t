#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# mcount-read's streaming reader against recordings written here byte
# for byte (doc/trace-format.md) from random call trees known in
# advance: thousands of calls whose arguments' payloads cross the
# reader's chunks and whose ring remainder wraps, read back as the
# trees say (report's figures, replay's arguments); report --diff of two
# recordings, each function's figures on both sides and the change as
# computed here; and the peak memory of report, replay and info over a
# recording of millions of events, under a bound that holding the events
# in memory (40 bytes an event) exceeds.
use strict;
use warnings;
no warnings 'portable';    # 64-bit words through pack
use Test::More;
use POSIX ();
use List::Util qw(max sum);
use lib 't/lib';
use RecordingWriter qw(parse_report);
use TestUtil qw($TOP run_cmd tmpdir spit);
use JSON::PP ();

my $READ = "$TOP/build/mcount-read";
plan skip_all => "no $READ (make all)" unless -x $READ;
my $dir = tmpdir();

# ---- random call trees, and their events ----

my $BASE = 0x401000;
my @NAMES = map { "fn$_" } 0 .. 11;
sub addr_of { my ($n) = $_[0] =~ /(\d+)/; return $BASE + 0x100 * $n }

# A tree of about n calls: [name, start, end, args (or undef), kids...]
# (times in ns), names drawn from @$pool.
sub random_calls {
    my ($n, $pool, $t0) = @_;
    my $t = $t0;
    my $left = $n;
    my $make;
    $make = sub {
        my ($depth) = @_;
        my $name = $pool->[ int rand @$pool ];
        my $s = ($t += 1 + int rand 50);
        my $args = rand() < 0.4 ? [map { int rand 1 << 40 } 1 .. int rand 9] : undef;
        $left--;
        my @kids;
        while ($left > 0 && $depth < 12 && rand() < 0.6 - 0.04 * $depth) {
            push @kids, $make->($depth + 1);
        }
        my $e = ($t += 1 + int rand 300);
        return [$name, $s, $e, $args, @kids];
    };
    my @top;
    push @top, $make->(0) while $left > 0;
    return \@top;
}

# The slots of the calls: [ts, ip, parent] (function_graph, hooked; an
# entry with arguments followed by its payload: key 0, N | S << 16, the
# N words, in slots of three).
sub events_of {
    my ($calls) = @_;
    my @ev;
    my $walk;
    $walk = sub {
        my ($c, $caller) = @_;
        my ($name, $s, $e, $args, @kids) = @$c;
        my $ip = (addr_of($name) + 5) | (1 << 48) | (1 << 60) | (1 << 62);
        $ip |= 1 << 61 if $args;
        push @ev, [$s, $ip, defined $caller ? addr_of($caller) + 0x10 : 0x7f00deadbee0];
        if ($args) {
            my @w = (0, scalar(@$args), @$args);
            my $slots = int((@w + 2) / 3);
            $w[1] |= $slots << 16;
            push @w, 0 while @w % 3;
            push @ev, [splice(@w, 0, 3)] while @w;
        }
        $walk->($_, $name) for @kids;
        push @ev, [$e, (addr_of($name) + 5) | (1 << 48) | (1 << 63), $s];
    };
    $walk->($_, undef) for @$calls;
    return \@ev;
}

# Per function: calls, total, self, and the timed calls' durations.
sub figures_of {
    my ($calls) = @_;
    my %r;
    my $walk;
    $walk = sub {
        my ($c) = @_;
        my ($name, $s, $e, $args, @kids) = @$c;
        my $d = $e - $s;
        $r{$name}{calls}++;
        $r{$name}{total} += $d;
        $r{$name}{self} += $d - sum(0, map { $_->[2] - $_->[1] } @kids);
        push @{ $r{$name}{d} }, $d;
        $walk->($_) for @kids;
    };
    $walk->($_) for @$calls;
    for my $f (values %r) {
        $f->{avg} = int($f->{total} / $f->{calls});
        my @d = sort { $a <=> $b } @{ delete $f->{d} };
        my $pct = sub { my $k = POSIX::ceil($_[0] * @d / 100); return $d[$k ? $k - 1 : 0] };
        @$f{qw(min p50 p90 p99 max)} = ($d[0], $pct->(50), $pct->(90), $pct->(99), $d[-1]);
    }
    return \%r;
}

# ---- a recording, byte for byte ----

# write_proc(DIR, events => [slots], stream => N (of them; the rest in
# the ring), mask => M, comm)
sub write_proc {
    my ($d, %o) = @_;
    mkdir $d or die "$d: $!";
    spit("$d/info", "mcount-trace-data 1\nbyte-order little\nword-bits 64\narch x86_64\npid 1\nppid 1\n"
        . "program /usr/bin/known\ntracer function_graph\nclock monotonic\n");
    spit("$d/funcs", join '', map { sprintf "F %x 256 0 %s\n", addr_of($_), $_ } @NAMES);
    spit("$d/objects", "O 0 0 - /proc/self/exe\n");
    spit("$d/done", "events 0\nlost 0\nend 1\n") unless defined $o{stream};
    my @ev = @{ $o{events} };
    my $L = $o{stream} // @ev;
    open my $fh, '>:raw', "$d/stream-100" or die;
    print {$fh} pack('Q<*', map { @$_ } @ev[0 .. $L - 1]);
    close $fh;
    return $d unless defined $o{stream};
    # the ring: head at the last event, tail at the stream's end; the
    # header's fields at 4096.., the slots at 8192
    my $mask = $o{mask};
    my $ring = "\0" x (8192 + 24 * ($mask + 1));
    my $put = sub { substr($ring, $_[0], length $_[1]) = $_[1] };
    $put->(0, "MCTRING\0" . pack('L<4', 0x01020304, 1, 8, 100));
    $put->(24, pack('Q<10', 4096, 4104, 4112, 8192, 4120, 4128, 4144, 4152, 4160, 4168));
    $put->(4096, pack('Q<3', scalar @ev, $L, $mask));
    $put->(4128, pack('a16', $o{comm} // 'streamed'));
    for my $s (max(0, @ev - $mask - 1) .. $#ev) {
        $put->(8192 + 24 * ($s & $mask), pack('Q<3', @{ $ev[$s] }));
    }
    spit("$d/ring-100", $ring);
    return $d;
}

sub rd { return run_cmd([$READ, @_]) }

# ---- thousands of calls: the chunks' edges, a wrapped ring ----

srand(119);
my $calls = random_calls(3000, \@NAMES, 1_000_000);
my $ev = events_of($calls);
my $want = figures_of($calls);
cmp_ok(scalar @$ev, '>', 4 * 512, 'the events span several of the reader\'s chunks of 512 slots');
my @payload_edges = grep { my $i = $_; ($ev->[$i][1] >> 61) & 1 && !($ev->[$i][1] >> 63)
    && int($i / 512) != int(($i + 1 + ($ev->[$i + 1][1] >> 16 & 0xffff)) / 512) } 0 .. $#$ev;
ok(@payload_edges >= 1, 'an entry\'s payload crosses from one chunk into the next (' . @payload_edges . ')');

my $whole = write_proc("$dir/whole", events => $ev);
my ($st, $out, $err) = rd('report', $whole);
is($st, 0, 'report of a long stream: status 0') or diag $err;
is_deeply(parse_report($out), $want, 'report of a long stream: every function\'s figures, as the trees say');

# the arguments, in order: each entry's words
my @want_args = map { $_->[3] } sort { $a->[1] <=> $b->[1] } do {
    my @all;
    my $w;
    $w = sub { push @all, $_[0]; $w->($_) for @{ $_[0] }[4 .. $#{ $_[0] }] };
    $w->($_) for @$calls;
    @all;
};
sub args_of {
    my ($json) = @_;
    my $js = JSON::PP->new;
    return [map { my $e = $js->decode($_); $e->{args} ? [map { hex } @{ $e->{args} }] : undef }
        grep { /"func":/ } split /\n/, $json];
}
($st, $out, $err) = rd('replay', '--format=json', $whole);
is($st, 0, 'replay --format=json of a long stream: status 0') or diag $err;
is_deeply(args_of($out), \@want_args, 'replay: each entry\'s arguments, their payloads read across chunks');

# a crash's leftovers: the stream stops 1000 slots short, the rest in
# a ring of 1024 slots whose remainder wraps round its end
my $n = @$ev;
my $L = $n - 1000;
$L -= 200 if $L % 1024 < 100;
my $crash = write_proc("$dir/crash", events => $ev, stream => $L, mask => 1023);
cmp_ok($n - $L, '<=', 1024, 'the ring holds the rest');
ok($L % 1024 + ($n - $L) > 1024, 'the ring\'s remainder wraps round its end');
($st, $out, $err) = rd('report', $crash);
is_deeply(parse_report($out), $want, 'stream and ring remainder: the same figures') or diag $err;
($st, $out) = rd('replay', '--format=json', $crash);
is_deeply(args_of($out), \@want_args, 'stream and ring remainder: the same arguments');
($st, $out) = rd('info', $crash);
like($out, qr/stream $L slots, recovered ${\ ($n - $L)} slots, lost 0/, 'info: the slots recovered');

# calls of 4.3 s and more among short ones of the same functions
# (report keeps a duration in 4 bytes while it fits, then 8)
my $long = random_calls(300, [@NAMES[0 .. 3]], 2_000_000);
push @$long, ['fn1', 3e9, 3e9 + 5_000_000_123, undef, ['fn2', 3e9 + 7, 3e9 + 4_400_000_000, undef]],
    @{ random_calls(300, [@NAMES[0 .. 3]], 9e9) };
my $lrec = write_proc("$dir/long", events => events_of($long));
($st, $out, $err) = rd('report', $lrec);
is_deeply(parse_report($out), figures_of($long), 'calls of 5 s and 4.4 s among short ones: the figures') or diag $err;
($st, $out) = rd('report', '--sort=max', $lrec);
like($out, qr/\A.*\n.* 5000000\.123  fn1\n.* 4399999\.993  fn2\n/, 'report --sort=max: their maxima first') or diag $out;

# ---- report --diff ----

# A and B: two runs of trees from pools that share fn0-fn7; fn8 and fn9
# only A's, fn10 and fn11 only B's
my $ca = random_calls(400, [@NAMES[0 .. 9]], 5_000_000);
my $cb = random_calls(500, [@NAMES[0 .. 7, 10, 11]], 9_000_000);
my $ra = write_proc("$dir/A", events => events_of($ca));
my $rb = write_proc("$dir/B", events => events_of($cb));
my ($fa, $fb) = (figures_of($ca), figures_of($cb));

sub parse_diff {
    my ($text) = @_;
    my (%r, @order);
    for my $line (split /\n/, $text) {
        next if $line =~ /^\s*(?:calls|#)/;
        my @f = split ' ', $line;
        my ($name, $in) = (pop @f, pop @f);
        my @v = map { /^([-+]?)(\d+)\.(\d{3})\z/ ? ($1 eq '-' ? -1 : 1) * ($2 * 1000 + $3) : /^\+(\d+)\z/ ? $1 : $_ } @f;
        $r{$name} = [@v, $in];
        push @order, $name;
    }
    return (\%r, \@order);
}
my @KEYS = qw(calls total self avg);
my %want_diff;
for my $name (sort keys %{ { %$fa, %$fb } }) {
    my ($x, $y) = ($fa->{$name}, $fb->{$name});
    $want_diff{$name} = [(map { my $k = $_;
        ($x ? $x->{$k} : '-', $y ? $y->{$k} : '-', ($y ? $y->{$k} : 0) - ($x ? $x->{$k} : 0)) } @KEYS),
        $x && $y ? 'both' : $x ? 'A' : 'B'];
}
($st, $out, $err) = rd('report', "--diff=$rb", $ra);
is($st, 0, 'report --diff: status 0') or diag $err;
my ($got, $order) = parse_diff($out);
is_deeply($got, \%want_diff, 'report --diff: each function\'s calls, total, self, avg on both sides, the change, '
    . 'and where it is');
like($out, qr/^# A: \Q$ra\E, B: \Q$rb\E;/m, 'report --diff: which is A, which B');
for my $key (qw(calls total self avg max name)) {
    ($st, $out) = rd('report', "--diff=$rb", "--sort=$key", $ra);
    my (undef, $o) = parse_diff($out);
    my %chg = map { my ($x, $y) = ($fa->{$_}, $fb->{$_});
        $_ => abs(($y ? $y->{$key} // 0 : 0) - ($x ? $x->{$key} // 0 : 0)) } keys %want_diff;
    my @w = $key eq 'name' ? sort keys %want_diff : sort { $chg{$b} <=> $chg{$a} || $a cmp $b } keys %want_diff;
    is("@$o", "@w", "report --diff --sort=$key: by the change's size, the largest first");
}
($st, $out) = rd('report', "--diff=$ra", $ra);
($got) = parse_diff($out);
ok(!(grep { $_->[2] != 0 || $_->[5] != 0 || $_->[8] != 0 || $_->[11] != 0 } values %$got),
    'a recording against itself: no change');
($st) = rd('report', "--diff=$rb", '--threads', $ra);
is($st >> 8, 2, 'report --diff --threads: usage, status 2');
($st, undef, $err) = rd('report', "--diff=$dir/none", $ra);
is($st >> 8, 1, 'report --diff of no recording: status 1');
like($err, qr/^mcount-read: \Q$dir\E\/none: No such file or directory$/m, 'report --diff of no recording: said');

my $MT = "$TOP/bin/mcount-trace";
($st, $out, $err) = run_cmd([$MT, 'report', "--diff=$rb", '--sort=calls', $ra]);
is($st, 0, 'mcount-trace report --diff: status 0') or diag $err;
is_deeply((parse_diff($out))[0], \%want_diff, 'mcount-trace report --diff: passed on');
($st, undef, $err) = run_cmd([$MT, 'report', "--diff=$rb", '--threads', $ra]);
is($st >> 8, 2, 'mcount-trace report --diff --threads: status 2');
like($err, qr/--diff and --threads: one or the other/, 'mcount-trace report --diff --threads: said');

# ---- peak memory over millions of events ----

SKIP: {
    # the peak resident set of a run, by wait4(2)
    my $peak = "$dir/peak";
    my ($cs, undef, $ce) = run_cmd(['cc', '-std=c11', '-O2', '-o', $peak, '-x', 'c', '-'], stdin => <<'EOF');
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	(void)argc;
	pid_t pid = fork();
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		execv(argv[1], argv + 1);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) != pid)
		return 1;
	printf("%d %ld\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128, ru.ru_maxrss);
	return 0;
}
EOF
    ok(!$cs, 'the peak memory meter builds') or diag $ce;
    skip 'no meter', 4 if $cs;
    # 500 blocks of 2000 nested and sibling calls, 4 M events (96 MB)
    my $big = "$dir/big";
    mkdir $big;
    write_proc("$big/1", events => []);
    my $block = '';
    my ($t, @open) = (0);
    for my $i (0 .. 1999) {
        my $name = $NAMES[$i % 12];
        my $ip = addr_of($name) + 5;
        $t += 3;
        if (@open < 8 && $i % 3) {
            $block .= pack('Q<3', $t, $ip | (5 << 60), 0x401020);
            push @open, [$t, $ip];
            next;
        }
        $block .= pack('Q<3', $t, $ip | (5 << 60), 0x401020) . pack('Q<3', $t + 1, $ip | (1 << 63), $t);
        while (@open && $i % 5 == 0) {
            my $o = pop @open;
            $block .= pack('Q<3', $t += 2, $o->[1] | (1 << 63), $o->[0]);
        }
    }
    $block .= pack('Q<3', $t += 2, $_->[1] | (1 << 63), $_->[0]) for reverse @open;
    my $blocks = int(4_000_000 * 24 / length $block) + 1;
    spit("$big/1/stream-100", $block x $blocks);
    my $events = $blocks * length($block) / 24;
    cmp_ok($events, '>=', 4_000_000, "the recording: $events events");
    # held in memory, the events alone take 40 bytes each; streamed,
    # report keeps 4 bytes a timed call (half the events: 2 an event,
    # and room to grow) and a row a function, replay and info a chunk a
    # thread
    my %bound = (report => $events * 4, replay => 16 << 20, info => 16 << 20);
    for my $cmd (qw(report replay info)) {
        my (undef, $o) = run_cmd([$peak, $READ, $cmd, $big]);
        my ($status, $kb) = split ' ', $o // '';
        is($status, 0, "$cmd over $events events: status 0");
        cmp_ok($kb * 1024, '<', $bound{$cmd}, "$cmd over $events events: peak memory "
            . int($kb / 1024) . " MB, under " . ($bound{$cmd} >> 20) . " MB (held: " . ($events * 40 >> 20) . " MB)");
    }
}

done_testing();
