#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# function_graph's filters, as the kernel has them (set_graph_function,
# max_graph_depth, tracing_thresh) and uftrace (-F, -D, -t): live
# (mcount-trace run --graph-function, --depth, --time-threshold; the
# verbs graph-function, depth and threshold while the program runs) and
# at replay (mcount-trace replay with the same options).
#
# The oracle is the program's own log: t/src/trace/gtree.c runs a known
# call tree in which every call logs its entry, its return and how long
# it took by the program's own clock.  The lines a filter must leave are
# worked out here from that log by the filter's rules (expect below),
# independently of the library:
#   - under graph functions: only a graph function's frames and all
#     they call while they run (a graph function called under another
#     is under it: r's recursion is one tree);
#   - a depth N: the traced frames 0 to N-1 deep, 0 being the outermost
#     traced one (a frame whose calls are cut is a leaf, "f();");
#   - a threshold: no entry line, and the return line "} /* f */" (at
#     depth 0: there are no entries to indent it by) of each traced call
#     that took at least that long.
# The trace's lines are compared by indentation and text (not by
# duration), a leaf that a live drain split in two ("f() {" then
# "} /* f */" at once) taken as the leaf it is.
use strict;
use warnings;
use Test::More;
use POSIX ();
use lib 't/lib';
use TestUtil qw($TOP must run_cmd tmpdir slurp spit);
use TraceTest qw($MT $TSRC clean_env mcc_build link_prog start_bg stop_bg wait_for mt_cli);

clean_env();
my $dir = tmpdir();
my $ctl = "$dir/ctl";
mkdir $ctl, 0700 or die;
$ENV{MCOUNT_TRACE_DIR} = $ctl;
mcc_build('-pg -mfentry', "$dir/gtree.o", "$TSRC/gtree.c", '-O2');
my $prog = link_prog("$dir/gtree", "$dir/gtree.o");
my @FUNCS = ('-f', 'top,a,b,c,d,slow,r');
my $NAP = 30;            # slow's sleep, ms: far above the threshold below,
my $THRESH = '5ms';      # itself far above any other call of the tree
my $THRESH_NS = 5e6;

# ---- the oracle ------------------------------------------------------------

# The log's rounds: [[E|X, name, ns]...] each (a file without R lines is
# one round).
sub read_log {
    my ($file) = @_;
    my @rounds = ([]);
    for (split /\n/, slurp($file)) {
        if (/\AR (\d+)\z/) {
            push @rounds, [] if @{ $rounds[-1] };
        } elsif (/\A([EX]) (\w+) \d+(?: (\d+))?\z/) {
            push @{ $rounds[-1] }, [$1, $2, $3];
        } else {
            die "$file: '$_'";
        }
    }
    return @rounds;
}

# The lines a filter leaves of a round's calls: "DEPTH TEXT" each.
sub expect {
    my ($calls, %f) = @_;
    my @graph = @{ $f{graph} // [] };
    my ($depth, $shown, $in) = (0, 0, 0);
    my (@st, @ev);
    for my $c (@$calls) {
        my ($k, $name, $ns) = @$c;
        if ($k eq 'E') {
            my ($ok, $root) = (1, 0);
            if (@graph && !$in) {
                $ok = $root = grep { $_ eq $name } @graph;
            }
            $ok = 0 if $ok && $f{depth} && $depth >= $f{depth};
            push @st, [$ok, $root, $shown];
            next unless $ok;
            $depth++;
            $in = 1 if $root;
            next if $f{thresh};
            push @ev, ['E', $name, $shown++];
        } else {
            my ($ok, $root, $sd) = @{ pop @st };
            next unless $ok;
            $depth--;
            $in = 0 if $root;
            if ($f{thresh}) {
                push @ev, ['X', $name, 0] if $ns >= $f{thresh};
            } else {
                $shown--;
                push @ev, ['X', $name, $sd];
            }
        }
    }
    my @lines;
    for (my $i = 0; $i < @ev; $i++) {
        my ($k, $name, $d) = @{ $ev[$i] };
        if ($k eq 'E' && $i + 1 < @ev && $ev[$i + 1][0] eq 'X' && $ev[$i + 1][1] eq $name && $ev[$i + 1][2] == $d) {
            push @lines, "$d $name();";
            $i++;
        } else {
            push @lines, $k eq 'E' ? "$d $name() {" : "$d } /* $name */";
        }
    }
    return \@lines;
}

# A trace's function_graph lines as "DEPTH TEXT" (headers left out; a
# leaf split by a drain joined, unless strict: a replay splits none).
sub lines_of {
    my ($text, $strict) = @_;
    my @l;
    for (split /\n/, $text) {
        next if /\A#/ || !length;
        my (undef, undef, $rest) = split /\|/, $_, 3;
        if (!defined $rest || $rest !~ /\A  ((?:  )*)(\S.*)\z/) {
            push @l, "? $_";
            next;
        }
        push @l, length($1) / 2 . " $2";
    }
    for (my $i = 0; !$strict && $i + 1 < @l; $i++) {
        my ($d, $name) = $l[$i] =~ /\A(\d+) (\w+)\(\) \{\z/ or next;
        splice @l, $i, 2, "$d $name();" if $l[$i + 1] eq "$d } /* $name */";
    }
    return \@l;
}

# The same, a thread at a time: {TID => lines} (the markers of a change
# of thread left out).
sub lines_by_tid {
    my ($text, $strict) = @_;
    my %t;
    for (split /\n/, $text) {
        next unless /\A *\d+\) +\S+-(\d+) +\|/;
        $t{$1} .= "$_\n";
    }
    return { map { ($_ => lines_of($t{$_}, $strict)) } keys %t };
}

# The threads' logs of gtree LOG R MS N: {TID => lines the filter leaves}.
sub expect_threads {
    my ($log, $n, $f) = @_;
    my %want;
    for my $k (1 .. $n) {
        my $text = slurp("$log.$k");
        $text =~ s/\AT (\d+)\n// or die "$log.$k: no T line";
        my $tid = $1;
        spit("$log.$k.calls", $text);
        $want{$tid} = all_rounds($f, read_log("$log.$k.calls"));
    }
    return \%want;
}

sub all_rounds { my ($f, @rounds) = @_; return [map { @{ expect($_, %$f) } } @rounds] }

# The filters, as options and as they are read here.
my @CASES = (
    ['none', ['-g'], {}],
    ['graph b', ['--graph-function=b'], { graph => ['b'] }],
    ['depth 2', ['--depth=2'], { depth => 2 }],
    ['depth 1', ['--depth=1'], { depth => 1 }],
    ['graph r (recursive), depth 2', ['--graph-function=r', '--depth=2'], { graph => ['r'], depth => 2 }],
    ['graph a and d, depth 2', ['--graph-function=a', '--graph-function=d', '--depth=2'],
        { graph => ['a', 'd'], depth => 2 }],
    ['graph slow, depth 1', ['--graph-function=slow', '--depth=1'], { graph => ['slow'], depth => 1 }],
    ["threshold $THRESH", ["--time-threshold=$THRESH"], { thresh => $THRESH_NS }],
    ['graph d, threshold 1ns', ['--graph-function=d', '--time-threshold=1ns'], { graph => ['d'], thresh => 1 }],
    ["graph slow, threshold $THRESH", ['--graph-function=slow', "--time-threshold=$THRESH"],
        { graph => ['slow'], thresh => $THRESH_NS }],
);

# the oracle's own sanity: the tree as gtree.c says it is
{
    my ($st, $out, $err) = run_cmd([$prog, "$dir/plain.log", 1, 1]);
    is($st, 0, 'gtree runs');
    my ($r) = read_log("$dir/plain.log");
        # top, a, 3 b, 6 c, slow and its c, d, its b and 2 c, 3 r: 20 calls
    is(scalar(@$r), 2 * 20, 'the log has each call of the tree, entry and return');
    is_deeply(expect($r, graph => ['b'], depth => 1), [('0 b();') x 4], 'the oracle: b alone, 4 times');
}

# ---- live: run with the options --------------------------------------------

my %live;
for my $c (@CASES) {
    my ($name, $opts, $f) = @$c;
    my $log = "$dir/live.log";
    my ($code, $out, $err) = mt_cli('run', @$opts, @FUNCS, '-o', "$dir/live.txt", '--', $prog, $log, 2, $NAP);
    is($code, 0, "run $name: exits 0");
    is($err, '', "run $name: says nothing");
    my $got = lines_of(slurp("$dir/live.txt"));
    my $want = all_rounds($f, read_log($log));
    is_deeply($got, $want, "run $name: the lines the filter leaves of the program's own calls")
        or diag join("\n", 'got:', @$got, 'want:', @$want);
    $live{$name} = $got;
}

# ---- threads: each its own state ---------------------------------------------------

{
    my $N = 4;
    my @tcases = grep { $_->[0] =~ /\A(graph r|graph a and d|graph d, threshold|depth 1)/ } @CASES;
    for my $c (@tcases) {
        my ($name, $opts, $f) = @$c;
        my $log = "$dir/tlive.log";
        my ($code, $out, $err) = mt_cli('run', @$opts, @FUNCS, '-o', "$dir/tlive.txt", '--', $prog, $log, 2, $NAP, $N);
        is($code, 0, "run $name, $N threads: exits 0") or diag $err;
        my $got = lines_by_tid(slurp("$dir/tlive.txt"));
        my $want = expect_threads($log, $N, $f);
        is_deeply($got, $want, "run $name, $N threads at once: each thread's lines the filter leaves of its calls");
    }
    my $trec = "$dir/trec";
    my ($code, $out, $err) = mt_cli('record', '-d', $trec, '-g', @FUNCS, '--', $prog, "$dir/trec.log", 2, $NAP, $N);
    is($code, 0, "record, $N threads: exits 0") or diag $err;
    for my $c (@tcases) {
        my ($name, $opts, $f) = @$c;
        ($code, $out, $err) = mt_cli('replay', @$opts, $trec);
        is_deeply(lines_by_tid($out, $f->{graph} || $f->{thresh}), expect_threads("$dir/trec.log", $N, $f),
            "replay $name, $N threads: each thread's lines");
    }
}

# ---- replay: an unfiltered recording, filtered ---------------------------------

{
    my $rec = "$dir/rec";
    my ($code, $out, $err) = mt_cli('record', '-d', $rec, '-g', @FUNCS, '--', $prog, "$dir/rec.log", 2, $NAP);
    is($code, 0, 'record: exits 0') or diag $err;
    my @rounds = read_log("$dir/rec.log");
    for my $c (@CASES) {
        my ($name, $opts, $f) = @$c;
        ($code, $out, $err) = mt_cli('replay', (grep { $_ ne '-g' } @$opts), $rec);
        is($code, 0, "replay $name: exits 0") or diag $err;
        # (--depth alone keeps replay's own lines: a call at the limit
        # as its entry and its return, not a leaf; the two filters
        # above make it the live one's)
        my $strict = $f->{graph} || $f->{thresh};
        my $got = lines_of($out, $strict);
        is_deeply($got, all_rounds($f, @rounds), "replay $name: the lines the filter leaves")
            or diag join("\n", 'got:', @$got);
        is_deeply(lines_of($out), $live{$name}, "replay $name: the same lines as the live filter's");
    }
    # a recording made with the live filters replays as they left it
    my $frec = "$dir/frec";
    ($code, $out, $err) = mt_cli('record', '-d', $frec, '--graph-function=a', '--depth=2', @FUNCS, '--', $prog,
        "$dir/frec.log", 1, $NAP);
    is($code, 0, 'record --graph-function=a --depth=2: exits 0') or diag $err;
    ($code, $out, $err) = mt_cli('replay', $frec);
    is_deeply(lines_of($out), all_rounds({ graph => ['a'], depth => 2 }, read_log("$dir/frec.log")),
        'a recording made with the live filters: replayed as they left it');
}

# ---- live: the verbs while the program runs ----------------------------------

{
    my $fifo = "$dir/in";
    POSIX::mkfifo($fifo, 0600) or die "mkfifo: $!";
    my $pidf = "$dir/pid";
    my $pid = start_bg([$^X, $MT, 'run', '-g', @FUNCS, '-o', '', "--pid-file=$pidf", '--', $prog, "$dir/verbs.log",
        0, $NAP], in => $fifo, out => "$dir/verbs.out", err => "$dir/verbs.err");
    open(my $w, '>', $fifo) or die "$fifo: $!";
    $w->autoflush(1);
    my $sock = wait_for(30, sub { -s $pidf && -S "$ctl/" . (slurp($pidf) =~ s/\s+//r) });
    ok($sock, 'the program runs, its control socket up');
    my $n = 0;
    my @got;
    # each round under the filters the verbs set just before it
    my @steps = (
        [[['graph-function', 'b']], { graph => ['b'] }],
        [[['depth', '1']], { graph => ['b'], depth => 1 }],
        [[['graph-function', 'off'], ['depth', '2']], { depth => 2 }],
        [[['depth', '0'], ['threshold', $THRESH]], { thresh => $THRESH_NS }],
        [[['graph-function', 'r'], ['threshold', '0'], ['depth', '2']], { graph => ['r'], depth => 2 }],
        [[['graph-function', 'off'], ['depth', '0']], {}],
    );
    for my $s (@steps) {
        my ($verbs, $f) = @$s;
        for my $v (@$verbs) {
            my ($code, $out, $err) = mt_cli('-v', $v->[0], slurp($pidf) =~ s/\s+//r, $v->[1]);
            is($code, 0, "$v->[0] $v->[1]: done") or diag $err;
        }
        $n++;
        print {$w} "go\n";
        ok(wait_for(60, sub { slurp("$dir/verbs.out") =~ /^done $n$/m }), "round $n: done");
        my ($code, $out, $err) = mt_cli('show', slurp($pidf) =~ s/\s+//r);
        push @got, [lines_of($out), $f];
    }
    # what the verbs say they are
    my $p = slurp($pidf) =~ s/\s+//r;
    mt_cli('graph-function', $p, 'a,d');
    mt_cli('threshold', $p, '1.5ms');
    my ($code, $out) = mt_cli('graph-function', $p);
    is($out, "a d\n", 'graph-function: the globs given');
    ($code, $out) = mt_cli('threshold', $p);
    is($out, "1500000ns\n", 'threshold: in nanoseconds');
    ($code, $out) = mt_cli('status', $p);
    like($out, qr/^graph functions: a d\ngraph depth: 0\ntime threshold: 1500000ns$/m, 'status: the filters');
    close $w;
    is(stop_bg($pid, 60), 0, 'the program exits 0');
    my @rounds = read_log("$dir/verbs.log");
    is(scalar @rounds, scalar @steps, 'a round logged for each step');
    for my $i (0 .. $#steps) {
        my ($g, $f) = @{ $got[$i] };
        is_deeply($g, expect($rounds[$i], %$f), 'verbs, round ' . ($i + 1) . ': the lines its filters leave')
            or diag join("\n", 'got:', @$g);
    }
}

# ---- attach: the options sent once the library is in ------------------------------

SKIP: {
    skip 'attach is made on x86_64 alone', 6 unless (POSIX::uname())[4] eq 'x86_64';
    my $fifo = "$dir/ain";
    POSIX::mkfifo($fifo, 0600) or die "mkfifo: $!";
    my $pid = start_bg([$prog, "$dir/attach.log", 0, $NAP], in => $fifo, out => "$dir/attach.out");
    open(my $w, '>', $fifo) or die "$fifo: $!";
    $w->autoflush(1);
    my ($code, $out, $err) = mt_cli('attach', '--graph-function=b', '--depth=1', $pid);
    is($code, 0, 'attach --graph-function=b --depth=1: done') or diag $err;
    like($out, qr/^tracer: function_graph\n(?:.*\n)*graph functions: b\ngraph depth: 1\n/m,
        'attach: function_graph, with the filters');
    ($code, $out, $err) = mt_cli('enable', $pid, 'top,a,b,c,d,slow,r');
    is($code, 0, 'enable the tree') or diag $err;
    print {$w} "go\n";
    ok(wait_for(60, sub { slurp("$dir/attach.out") =~ /^done 1$/m }), 'attached: a round done');
    ($code, $out, $err) = mt_cli('show', $pid);
    my ($r) = read_log("$dir/attach.log");
    is_deeply(lines_of($out), expect($r, graph => ['b'], depth => 1), 'attached: the lines the filters leave');
    mt_cli('detach', $pid);
    close $w;
    is(stop_bg($pid, 60), 0, 'the program exits 0');
}

# ---- what is refused -------------------------------------------------------------

for my $bad (['--depth=x', qr/--depth must be a depth/], ['--time-threshold=5q', qr/--time-threshold must be a duration/],
    ['--tracer=function', qr/are function_graph's: not with --tracer=function/, '--depth=1']) {
    my ($flag, $re, @more) = @$bad;
    my ($code, $out, $err) = mt_cli('run', $flag, @more, '--', $prog, "$dir/x.log", 1, 1);
    is($code, 2, "run $flag @more: bad usage");
    like($err, $re, "run $flag @more: says why");
}
{
    my ($code, $out, $err) = mt_cli('replay', '--time-threshold=1h', "$dir/rec");
    is($code, 2, 'replay --time-threshold=1h: bad usage (no such unit)');
    my $st;
    ($st, $out, $err) = run_cmd(["$TOP/build/mcount-read", 'replay', '--time-threshold=3601s', "$dir/rec"]);
    is($st >> 8, 2, 'mcount-read replay --time-threshold=3601s: bad usage (at most an hour)');
    like($err, qr/--time-threshold=3601s: not a duration/, 'mcount-read: says why');
}

done_testing();
