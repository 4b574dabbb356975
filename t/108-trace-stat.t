#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# The function profiler (mcount-trace stat, run --stat; the kernel's
# function_profile_enabled and trace_stat/function*), a user of the
# hooks beside the program's own:
#  - run --stat on t/src/trace/hooks.c's count mode (8 threads, two hooks
#    of the program's own): each of f0-f7 has as many hits as it counted
#    calls itself.
#  - Times against what the program does (t/src/trace/stat.c): leaf()
#    sleeps 2 ms (nanosleep sleeps at least that), mid() calls it 3 or 2
#    times, top() calls mid() twice: the hits are the source's counts,
#    leaf's mean at least 2 ms, each function's time at least its
#    callees' and its own time its time less theirs (a tolerance of a
#    few us for the callbacks' clock reads); sorted by each key.
#  - Deep calls (stat.c's deep, jump and mid), each function counting
#    its own returns: down() 300, 1100 and 5000 calls deep (in the main
#    thread, and 1100 deep in three threads one after another), dive()
#    left by longjmp 300 and 1100 deep, climb() 1100 deep left from the
#    bottom to the middle: each function's hits are its own count of its
#    returns, the calls left are the program's count of them, those past
#    the hooks' 1024 frames (mcount_hook(3)) are said to have no time,
#    and the times are plausible: every down() holds leaf()'s 2 ms (so
#    its mean is at least that, and where leaf() is too deep to be
#    timed the deepest down() that is has it in its own time), no
#    function's own time is more than its time, and all the functions'
#    own times together are no more than main()'s time.
#  - Live: stat PID GLOB starts it on a running program, --show prints
#    the table so far (only the functions the glob names), --off stops
#    it (the counts stay: the same table again, no more hits); errors:
#    --show before any run, a sort key unknown, --off when it is off.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw(tmpdir slurp spit);
use TraceTest qw($LIBA $RTINC $TSRC clean_env mcc_build link_prog start_bg stop_bg wait_for mt_cli stat_table);

clean_env();
my $dir = tmpdir();
my $ctl = "$dir/ctl";
mkdir $ctl, 0700 or die "$ctl: $!";
my %DIR = (MCOUNT_TRACE_DIR => $ctl);

# ---- hits against the program's own counts --------------------------------
{
    mcc_build('-pg -mfentry', "$dir/hooks.o", "$TSRC/hooks.c", '-O2', "-I$RTINC");
    link_prog("$dir/hooks", "$dir/hooks.o", $LIBA, '-lpthread');
    my ($st, $out, $err) = mt_cli({ %DIR }, 'run', '--stat=f[0-7]', '--sort=hits', '-o', '', '--',
        "$dir/hooks", 'count', 20, 100);
    is($st, 0, 'run --stat: the program exits 0') or diag $out, $err;
    my %own = $out =~ /\b(f\d)=(\d+)/g;
    is(scalar keys %own, 8, 'the program counted its calls of f0-f7');
    my ($t) = stat_table($err);
    is_deeply({ map { $_ => $t->{$_}{hits} } keys %$t }, \%own,
        "run --stat: each function's hits are its own count of its calls (8 threads, two hooks beside)")
        or diag $err;
}

# ---- times against what the program does -----------------------------------
my $stat = "$dir/stat";
mcc_build('-pg -mfentry', "$stat.o", "$TSRC/stat.c", '-O2');
link_prog($stat, "$stat.o");
{
    my ($st, $out, $err) = mt_cli({ %DIR }, 'run', '--stat', '-o', '', '--', $stat, 10);
    is($st, 0, 'run --stat: stat.c exits 0') or diag $err;
    my ($t, $order) = stat_table($err);
    is_deeply({ map { $_ => $t->{$_}{hits} } qw(top mid leaf) }, { top => 10, mid => 20, leaf => 50 },
        'the hits of top, mid and leaf: 10, 20, 50, as the source calls them');
    cmp_ok($t->{leaf}{avg}, '>=', 2000, "leaf's mean is at least its 2 ms sleep ($t->{leaf}{avg} us)");
    cmp_ok($t->{mid}{time} + 50, '>=', $t->{leaf}{time}, "mid's time holds leaf's");
    cmp_ok($t->{top}{time} + 50, '>=', $t->{mid}{time}, "top's time holds mid's");
    cmp_ok(abs($t->{mid}{self} - ($t->{mid}{time} - $t->{leaf}{time})), '<', 100,
        "mid's own time is its time less leaf's ($t->{mid}{self} us)");
    cmp_ok(abs($t->{leaf}{self} - $t->{leaf}{time}), '<', 1, "leaf's own time is its time (it calls none)");
    is($order->[0], 'main', 'sorted by time: main first');
    for my $k (qw(hits avg self s2)) {
        ($st, $out, $err) = mt_cli({ %DIR }, 'run', '--stat', "--sort=$k", '-o', '', '--', $stat, 10);
        my ($tk, $ok) = stat_table($err);
        my @v = map { $tk->{$_}{$k} } @$ok;
        is_deeply(\@v, [sort { $b <=> $a } @v], "--sort=$k: the table in that column's order") or diag $err;
    }
    ($st, $out, $err) = mt_cli({ %DIR }, 'run', '--stat', '--sort=bogus', '-o', '', '--', $stat, 1);
    is($st, 2, 'run --sort=bogus: usage error');
}

# ---- deep calls -----------------------------------------------------------------
# The table's notes: { untimed => { FUNCTION => N }, left => N, lost => N }.
sub notes {
    my ($text) = @_;
    my %n = (untimed => {}, left => 0, lost => 0);
    for (split /\n/, $text) {
        if (/^  \((\d+) calls in Hit without a time, their returns not hooked:((?: \S+ \d+)+)\)$/) {
            %{ $n{untimed} } = $2 =~ /(\S+) (\d+)/g;
            $n{untimed_all} = $1;
        }
        $n{left} = $1 if /^  \((\d+) calls left by longjmp or an exception, not counted\)$/;
        $n{lost} = $1 if /^  \((\d+) calls the profiler could not follow/;
    }
    return \%n;
}

my $SHADOW = 1024;    # hooked frames a thread may have live (mcount_hook(3))
my @FUNCS = qw(down step leaf climb dive);
for my $case (['deep', 300], ['deep', 1100], ['deep', 5000], ['deep', 1100, 3],
              ['jump', 300, 2], ['jump', 1100, 3], ['mid', 1100, 600]) {
    my ($mode, $n, $k) = @$case;
    my $what = "stat @$case";
    my ($st, $out, $err) = mt_cli({ %DIR }, 'run', '--stat=main,worker,' . join(',', @FUNCS), '-o', '', '--',
        $stat, @$case);
    is($st, 0, "$what: exits 0") or diag $err;
    my %own = $out =~ /\b(\w+)=(\d+)/g;
    my ($t) = stat_table($err);
    my $notes = notes($err);
    # Every call that returned counted, and no other.
    is_deeply({ map { $_ => $t->{$_}{hits} } grep { $_ ne 'main' && $_ ne 'worker' } keys %$t },
        { map { $_ => $own{$_} } grep { $own{$_} } @FUNCS },
        "$what: each function's hits are its own count of its returns (" .
        join(' ', map { "$_=$own{$_}" } @FUNCS) . ')') or diag $err;
    is($t->{main}{hits}, 1, "$what: main returned once");
    is($t->{worker}{hits}, $k, "$what: each thread's worker returned") if $mode eq 'deep' && $k;
    is($notes->{left}, $own{left}, "$what: the calls left by longjmp are the program's count ($own{left})")
        or diag $err;
    is($notes->{lost}, 0, "$what: no call the profiler could not follow");
    # Past the hooks' depth, calls are counted without a time, and said.
    # (down(N) is N + 1 calls under main or worker, which is one of the
    # frames; each down calls step twice, one frame deeper.)
    my $threads = $mode eq 'deep' && $k ? $k : 1;
    my $deep = $mode eq 'deep' && $n + 2 > $SHADOW;
    is_deeply($notes->{untimed},
        $deep ? { down => $threads * ($n + 1 - ($SHADOW - 1)), step => $threads * 2 * ($n + 1 - ($SHADOW - 2)),
                  leaf => $threads } : {},
        "$what: the calls deeper than $SHADOW hooked frames are said to have no time") or diag $err;
    # Times: every down holds a leaf, which sleeps 2 ms.
    for my $f (sort keys %$t) {
        cmp_ok($t->{$f}{self}, '<=', $t->{$f}{time} + 0.001, "$what: $f\'s own time is at most its time");
    }
    my $selves = 0;
    $selves += $t->{$_}{self} for keys %$t;
    cmp_ok($selves, '<=', $t->{main}{time} + 0.001 * keys %$t,
        "$what: the functions' own times together are at most main's time") if $threads == 1;
    cmp_ok($t->{down}{avg}, '>=', 2000, "$what: down's mean holds leaf's 2 ms ($t->{down}{avg} us)");
    if ($deep) {
        is($t->{leaf}{time}, '0.000', "$what: leaf, too deep, has no time");
        cmp_ok($t->{down}{self}, '>=', 2000 * $threads,
            "$what: leaf's 2 ms are in the deepest timed down's own time ($t->{down}{self} us)");
    } else {
        cmp_ok($t->{leaf}{avg}, '>=', 2000, "$what: leaf's mean is at least its 2 ms ($t->{leaf}{avg} us)");
        cmp_ok($t->{down}{avg}, '>=', $t->{leaf}{avg}, "$what: down's mean holds leaf's");
    }
}

# ---- live ---------------------------------------------------------------------
{
    my $out = "$dir/live.out";
    my $pid = start_bg([$stat, 'forever'], out => $out, err => "$dir/live.err",
        env => { LD_PRELOAD => $TraceTest::SO, %DIR });
    ok(wait_for(30, sub { -S "$ctl/$pid" }), 'live: the program runs');
    my ($st, $o, $e) = mt_cli({ %DIR }, 'stat', '--show', $pid);
    is($st, 1, 'stat --show before any run: exit 1');
    like($e, qr/the profiler has not run/, 'stat --show before any run: says so');
    ($st, $o, $e) = mt_cli({ %DIR }, '-v', 'stat', $pid, 'leaf');
    is($st, 0, 'stat PID leaf: exit 0') or diag $e;
    like($e, qr/the profiler is on/, 'stat -v: says so');
    select undef, undef, undef, 0.5;
    ($st, $o, $e) = mt_cli({ %DIR }, 'stat', '--show', '--sort=hits', $pid);
    is($st, 0, 'stat --show: exit 0') or diag $e;
    my ($t) = stat_table($o);
    is_deeply([sort keys %$t], ['leaf'], 'stat --show: leaf alone, as the glob names') or diag $o;
    ok($t->{leaf}{hits} > 0, "stat --show: leaf's hits so far ($t->{leaf}{hits})");
    ($st, $o, $e) = mt_cli({ %DIR }, 'stat', '--off', $pid);
    is($st, 0, 'stat --off: exit 0') or diag $e;
    my ($t1) = stat_table($o);
    cmp_ok($t1->{leaf}{hits}, '>=', $t->{leaf}{hits}, 'stat --off: the final table, hits not fewer');
    select undef, undef, undef, 0.3;
    ($st, $o, $e) = mt_cli({ %DIR }, 'stat', '--show', $pid);
    my ($t2) = stat_table($o);
    is($t2->{leaf}{hits}, $t1->{leaf}{hits}, 'after --off: the counts stay, no more hits');
    ($st, $o, $e) = mt_cli({ %DIR }, 'stat', '--off', $pid);
    is($st, 1, 'stat --off when it is off: exit 1');
    like($e, qr/the profiler is not running/, 'stat --off when it is off: says so');
    ($st, $o, $e) = mt_cli({ %DIR }, 'stat', '--show', '--sort=bogus', $pid);
    is($st, 2, 'stat --sort=bogus: usage error');
    ($st, $o, $e) = mt_cli({ %DIR }, 'stat', '--show', '--off', $pid);
    is($st, 2, 'stat --show --off: usage error');
    kill 'TERM', $pid;
    stop_bg($pid, 30);
}

done_testing();
