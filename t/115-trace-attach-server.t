#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: slow
# mcount-trace attach to a multithreaded server nobody here wrote:
# memcached from Debian's source (scripts/fetch-source memcached), built
# by its own configure and make with CC="mcount-cc gcc" (-pg -mfentry),
# started plainly with 4 worker threads on 127.0.0.1 and a free port.
# The client is this file's: sets and gets over TCP on 4 connections at
# once (memcached gives each new connection to the next worker thread),
# every answer checked, the value a get returns the one set, bytes of
# every value from 0 to 255.  The oracles are memcached's own: its
# stats (cmd_set, cmd_get, get_hits, total_connections), its threads'
# names in /proc, and its source (process_update_command in
# proto_text.c runs once a set command, process_get_command once a get,
# complete_nread_ascii once a set's value is read, where cmd_set is
# counted; process_command_ascii once a command line).
#  - a run with no attach: the load's answers all right, exit status
#    and messages on SIGTERM (what the attached run must keep);
#  - attach while a second client sets and gets without a pause (every
#    one of its answers right, through the attach);
#  - over a window the client fences (no other client: memcached's
#    total_connections does not move), 'process_*' and
#    'complete_nread_*' enabled, K sets and K gets: the trace's calls
#    of each of those functions are K (process_command_ascii: 2K),
#    which are memcached's own deltas of cmd_set and cmd_get; the calls
#    were made by 4 threads, each one memcached's mc-worker; no event
#    lost;
#  - the tracer switched to function_graph, M sets and gets more: the
#    graph's entries of process_update_command are M, memcached's
#    delta again;
#  - mcount-trace detach, where the command has that verb (its --help
#    lists it): exit 0, and the server answers right after it;
#  - SIGTERM: the exit status and messages of the run with no attach.
use strict;
use warnings;
use Test::More;
use IO::Socket::INET;
use POSIX ();
use lib 't/lib';
use TestUtil qw($TOP run_cmd tmpdir slurp spit);
use TraceTest qw($MCC $MT clean_env read_text read_graph_text nm_funcs wait_for start_bg stop_bg mt_cli);

clean_env();
my $dir = tmpdir();
chmod 0755, $dir;
my $ctl = "$dir/ctl";
mkdir $ctl, 0700 or die "$ctl: $!";
my %DIR = (MCOUNT_TRACE_DIR => $ctl);
my $K = 2000;     # sets and gets of the fenced window
my $M = 400;      # of function_graph's

# ---- the build -----------------------------------------------------------------
my ($st, $src, $err) = run_cmd(["$TOP/scripts/fetch-source", 'memcached']);
chomp $src;
is($st, 0, "fetch-source memcached: $src") or BAIL_OUT("no memcached source: $err");
ok(-f "$src/proto_text.c", 'memcached 1.6: its text protocol in proto_text.c')
    or BAIL_OUT('not the memcached this test knows');
my $build = "$dir/build";
mkdir $build or die "$build: $!";
my %cc = (MCOUNT_CC_FLAGS => '-pg -mfentry');
# (configure's own CFLAGS: -O2 -Werror; built out of the source's tree)
($st, my $o, my $e) = run_cmd(['sh', '-c', 'cd "$0" && exec "$@"', $build, "$src/configure", "CC=$MCC gcc"],
    env => \%cc);
is($st, 0, 'configure CC="mcount-cc gcc"') or BAIL_OUT("configure failed:\n" . substr("$o$e", -3000));
($st, $o, $e) = run_cmd(['make', '-C', $build, '-j2', 'memcached'], env => \%cc);
is($st, 0, 'make memcached (-pg -mfentry)') or BAIL_OUT("make failed:\n" . substr("$o$e", -3000));
my $mc = "$build/memcached";
($st, $o) = run_cmd(["$TOP/bin/mcount-record", '--verify', $mc]);
is($st, 0, 'mcount-record --verify memcached passes') or diag $o;
my %nm = map { ($_->[2] => 1) } @{ nm_funcs($mc) };
# GCC may clone a static function (process_get_command.constprop.0): the
# clone is the function the calls reach
my %fn;
for my $f (qw(process_update_command process_get_command complete_nread_ascii process_command_ascii)) {
    my @n = grep { /\A\Q$f\E(?:\.(?:constprop|isra)\.\d+)*\z/ } sort keys %nm;
    is(scalar @n, 1, "nm: $f is one function of the build (@n)") or BAIL_OUT('built otherwise than this test knows');
    $fn{$f} = $n[0];
}

# ---- the server and its client ------------------------------------------------------
my $user = getpwuid($<) // die "no name for user $<";

# A server started plainly, 4 worker threads: (PID, port, stderr's file,
# the first connection made to it: the one stats are asked on, so that
# no other is open when the count of the server's own is read).
my $runs = 0;
sub start_server {
    $runs++;
    for my $try (1 .. 5) {
        my $l = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 1, ReuseAddr => 1)
            or die "a free port: $!";
        my $port = $l->sockport;
        close $l;
        my $errf = "$dir/mc$runs.$try.err";
        my $pid = start_bg([$mc, '-u', $user, '-l', '127.0.0.1', '-p', $port, '-U', '0', '-t', '4', '-c', '64'],
            out => "$dir/mc$runs.out", err => $errf, env => { %DIR });
        my $s;
        my $up = wait_for(20, sub {
            return -1 if waitpid($pid, POSIX::WNOHANG()) == $pid;
            $s = eval { conn($port) };
            return $s ? 1 : 0;
        });
        return ($pid, $port, $errf, $s) if $up && $up > 0;
        kill 'KILL', $pid;
        waitpid $pid, 0;
        diag "memcached on port $port: " . slurp($errf);
    }
    BAIL_OUT('memcached does not start');
}

sub conn {
    my ($port) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Proto => 'tcp') or die "connect $port: $!";
    binmode $s;
    $s->autoflush(1);
    return $s;
}

# Reading with a time limit: a line (CRLF), or N bytes.
sub get_line {
    my ($s) = @_;
    local $SIG{ALRM} = sub { die "no answer in 20 s\n" };
    alarm 20;
    my $l = readline $s;
    alarm 0;
    die "the connection closed\n" unless defined $l;
    return $l;
}

sub get_bytes {
    my ($s, $n) = @_;
    my $b = '';
    local $SIG{ALRM} = sub { die "no answer in 20 s\n" };
    alarm 20;
    while (length $b < $n) {
        my $r = read $s, $b, $n - length $b, length $b;
        die "the connection closed\n" unless $r;
    }
    alarm 0;
    return $b;
}

# A key's value: 1 to 1500 bytes, each of 0 to 255, from its name.
sub value_of {
    my ($key) = @_;
    my $h = unpack '%32C*', $key;
    $h = ($h * 2654435761 + length $key) % 4294967296;
    my $len = 1 + $h % 1500;
    my $v = '';
    for (1 .. $len) {
        $h = ($h * 1103515245 + 12345) % 2147483648;
        $v .= chr($h >> 16 & 255);
    }
    return $v;
}

# n sets, then n gets of the same keys (KEY PREFIX), a command on each
# connection at once, then each one's answer read: returns the answers
# that were wrong (none: []).
sub load {
    my ($conns, $prefix, $n) = @_;
    my @bad;
    my @keys = map { "$prefix-$_" } 1 .. $n;
    for (my $i = 0; $i < @keys; $i += @$conns) {
        my @batch = @keys[$i .. ($i + $#$conns < $#keys ? $i + $#$conns : $#keys)];
        for my $j (0 .. $#batch) {
            my $v = value_of($batch[$j]);
            print { $conns->[$j] } "set $batch[$j] 0 0 " . length($v) . "\r\n$v\r\n";
        }
        for my $j (0 .. $#batch) {
            my $a = get_line($conns->[$j]);
            push @bad, "set $batch[$j]: $a" unless $a eq "STORED\r\n";
        }
    }
    for (my $i = 0; $i < @keys; $i += @$conns) {
        my @batch = @keys[$i .. ($i + $#$conns < $#keys ? $i + $#$conns : $#keys)];
        print { $conns->[$_] } "get $batch[$_]\r\n" for 0 .. $#batch;
        for my $j (0 .. $#batch) {
            my $s = $conns->[$j];
            my $v = value_of($batch[$j]);
            my $h = get_line($s);
            if ($h ne "VALUE $batch[$j] 0 " . length($v) . "\r\n") {
                push @bad, "get $batch[$j]: $h";
                next;
            }
            my $got = get_bytes($s, length($v) + 2);
            push @bad, "get $batch[$j]: not the value set" unless $got eq "$v\r\n";
            my $end = get_line($s);
            push @bad, "get $batch[$j]: $end after the value" unless $end eq "END\r\n";
        }
    }
    return \@bad;
}

sub stats {
    my ($s) = @_;
    print {$s} "stats\r\n";
    my %h;
    while ((my $l = get_line($s)) ne "END\r\n") {
        $h{$1} = $2 if $l =~ /\ASTAT (\S+) (\S+)\r\n\z/;
    }
    return \%h;
}

sub delta {
    my ($a, $b, $k) = @_;
    return $b->{$k} - $a->{$k};
}

# A client in a process of its own that sets and gets on 2 connections
# until FILE exists: (its PID, the file it says in: "ok N", or the
# answers that were wrong).
sub busy_client {
    my ($port, $stop, $tag) = @_;
    my $say = "$dir/$tag.said";
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        my $r = eval {
            my @c = map { conn($port) } 1 .. 2;
            my ($n, @bad) = (0);
            until (-e $stop || @bad) {
                push @bad, @{ load(\@c, "$tag-$n", 8) };
                $n++;
            }
            close $_ for @c;
            @bad ? join('', @bad[0 .. ($#bad < 4 ? $#bad : 4)]) : "ok $n";
        } // "error: $@";
        spit($say, $r);
        POSIX::_exit(0);
    }
    return ($pid, $say);
}

# memcached's count of its connections back to N (a client's closed).
sub settle {
    my ($s, $n) = @_;
    return wait_for(20, sub { stats($s)->{curr_connections} == $n });
}

sub worker_threads {
    my ($pid) = @_;
    my @t = grep { (slurp("/proc/$pid/task/$_/comm") // '') eq "mc-worker\n" }
        map { m{/(\d+)\z} } glob "/proc/$pid/task/*";
    return { map { ($_ => 1) } @t };
}

# ---- a run with no attach -------------------------------------------------------------
my ($base_st, $base_err);
{
    my ($pid, $port, $errf, $s) = start_server();
    my @c = map { conn($port) } 1 .. 4;
    is(scalar keys %{ worker_threads($pid) }, 4, 'plain run: memcached runs 4 mc-worker threads');
    my $a = stats($s);
    is_deeply(load(\@c, 'plain', $K), [], "plain run: $K sets and $K gets, every answer right");
    my $b = stats($s);
    is(delta($a, $b, 'cmd_set') . ' ' . delta($a, $b, 'cmd_get'), "$K $K", 'plain run: its stats count them');
    close $_ for $s, @c;
    kill 'TERM', $pid;
    $base_st = stop_bg($pid, 30);
    $base_err = slurp($errf);
    is($base_st, 0, 'plain run: SIGTERM, exit status 0');
    is($base_err, '', 'plain run: no message');
}

# ---- attached ---------------------------------------------------------------------------
{
    my ($pid, $port, $errf, $s) = start_server();
    my $idle = stats($s)->{curr_connections};
    is_deeply(load([conn($port)], 'warm', 100), [], 'before attach: 100 sets and gets, every answer right');
    settle($s, $idle);
    unlike(slurp("/proc/$pid/maps"), qr/libmcount-trace/, 'before attach: the library is not in the process');

    # attach while a client sets and gets
    my $stop = "$dir/stop-busy";
    my ($busy, $said) = busy_client($port, $stop, 'busy');
    ok(wait_for(20, sub { stats($s)->{cmd_get} > 100 + 64 }), 'a client sets and gets: memcached counts its gets');
    my ($ast, $status, $aerr) = mt_cli({ %DIR }, 'attach', $pid);
    my $more = stats($s)->{cmd_get};
    ok(wait_for(20, sub { stats($s)->{cmd_get} > $more + 64 }), 'and more of them after the attach');
    spit($stop, '');
    waitpid $busy, 0;
    is($ast, 0, 'attach: exit 0') or diag $aerr;
    is($aerr, '', 'attach: nothing on standard error');
    like($status, qr/^pid: $pid\nprogram: memcached\n/, 'attach prints the status');
    like($status, qr/^sites refused: 0$/m, 'the status: no site refused');
    like(slurp("/proc/$pid/maps"), qr/libmcount-trace\.so/, 'after attach: the library is mapped');
    like(slurp($said), qr/\Aok [1-9]\d*\z/, 'a client setting and getting through the attach: every answer right');
    ok(settle($s, $idle), 'that client gone (memcached counts no connection but the stats one)')
        or diag 'curr_connections: ' . stats($s)->{curr_connections} . ", not $idle";

    # the fenced window (its connections made before: memcached
    # accepts them in a thread of its own, after connect returns)
    my @c = map { conn($port) } 1 .. 4;
    ok(settle($s, $idle + 4), "the window's 4 connections accepted by memcached")
        or diag 'curr_connections: ' . stats($s)->{curr_connections} . ', not ' . ($idle + 4);
    my $a = stats($s);
    my ($est, $eo, $ee) = mt_cli({ %DIR }, '-v', 'enable', $pid, 'process_*', 'complete_nread_*');
    is($est, 0, "enable 'process_*' 'complete_nread_*': exit 0") or diag $ee;
    chomp $ee;
    like($ee, qr/\Amcount-trace: [1-9]\d* functions enabled\z/, "enable: $ee");
    my $bad = load(\@c, 'window', $K);
    my ($sst, $show, $se) = mt_cli({ %DIR }, 'show', $pid);
    my $b = stats($s);
    is_deeply($bad, [], "the window: $K sets and $K gets, every answer right");
    is(delta($a, $b, 'cmd_set') . ' ' . delta($a, $b, 'cmd_get') . ' ' . delta($a, $b, 'get_hits'), "$K $K $K",
        "memcached's stats: $K sets, $K gets, $K hits in the window");
    is(delta($a, $b, 'total_connections'), 0, "memcached's stats: no connection came in the window");
    is($sst, 0, 'show: exit 0') or diag $se;
    spit("$dir/window.txt", $show);
    my ($ev, $errs) = read_text("$dir/window.txt", header => 0);
    is_deeply([@$errs[0 .. ($#$errs < 4 ? $#$errs : 4)]], [], 'show: every line well formed');
    my (%calls, %tids, @lost);
    for my $x (@$ev) {
        push(@lost, $x), next if exists $x->{lost};
        $calls{ $x->{func} }++;
        $tids{ $x->{tid} }++ if $x->{func} eq $fn{process_update_command};
    }
    is_deeply(\@lost, [], 'show: no event lost');
    is($calls{ $fn{process_update_command} } // 0, delta($a, $b, 'cmd_set'),
        "the trace's calls of $fn{process_update_command}: memcached's cmd_set delta ($K)");
    is($calls{ $fn{complete_nread_ascii} } // 0, delta($a, $b, 'cmd_set'),
        "the trace's calls of $fn{complete_nread_ascii}: memcached's cmd_set delta ($K)");
    is($calls{ $fn{process_get_command} } // 0, delta($a, $b, 'cmd_get'),
        "the trace's calls of $fn{process_get_command}: memcached's cmd_get delta ($K)");
    is($calls{ $fn{process_command_ascii} } // 0, 2 * $K, "the trace's calls of process_command_ascii: 2 x $K");
    my @other = grep { !/\A(?:process_|complete_nread_)/ } sort keys %calls;
    is_deeply(\@other, [], 'the trace: no function the globs do not name');
    my $workers = worker_threads($pid);
    is(scalar keys %tids, 4, 'the sets were traced in 4 threads (' . join(' ', sort keys %tids) . ')');
    is_deeply([grep { !$workers->{$_} } sort keys %tids], [], "each one of memcached's mc-worker threads");
    my (undef, $stat2) = mt_cli({ %DIR }, 'status', $pid);
    like($stat2, qr/^events lost: 0$/m, 'status: no event lost');
    mt_cli({ %DIR }, 'show', $pid);          # (the stats command's events)

    # function_graph
    my ($tst, undef, $te) = mt_cli({ %DIR }, 'tracer', $pid, 'function_graph');
    is($tst, 0, 'tracer function_graph: exit 0') or diag $te;
    (undef, my $tr) = mt_cli({ %DIR }, 'tracer', $pid);
    is($tr, "function_graph\n", 'tracer: function_graph');
    $a = stats($s);
    $bad = load(\@c, 'graph', $M);
    ($sst, $show, $se) = mt_cli({ %DIR }, 'show', $pid);
    $b = stats($s);
    is_deeply($bad, [], "function_graph: $M sets and $M gets, every answer right");
    is($sst, 0, 'show: exit 0') or diag $se;
    spit("$dir/graph.txt", $show);
    ($ev, $errs) = read_graph_text("$dir/graph.txt", header => 0);
    is_deeply([@$errs[0 .. ($#$errs < 4 ? $#$errs : 4)]], [], 'the graph: every line well formed');
    my $u = $fn{process_update_command};
    my $entries = grep { ($_->{what} // '') =~ /\A\Q$u\E\(\)(?: \{|;)\z/ } @$ev;
    is($entries, delta($a, $b, 'cmd_set'), "the graph's entries of $u: memcached's cmd_set delta ($M)");
    is($entries, $M, "the graph's entries of $u: $M");

    # detach, where the command has it
    my (undef, $help) = mt_cli('--help');
    SKIP: {
        skip 'mcount-trace has no detach command', 3 unless $help =~ /^\s+detach\s/m;
        my ($dst, $do, $de) = mt_cli({ %DIR }, 'detach', $pid);
        is($dst, 0, 'detach: exit 0') or diag $de;
        is_deeply(load(\@c, 'detached', $M), [], "after detach: $M sets and gets, every answer right");
        is(stats($s)->{total_connections}, $b->{total_connections}, 'after detach: no connection came');
    }

    is_deeply(load(\@c, 'last', 100), [], 'the last 100 sets and gets, every answer right');
    close $_ for $s, @c;
    kill 'TERM', $pid;
    is(stop_bg($pid, 30), $base_st, "SIGTERM: the exit status of the run with no attach ($base_st)");
    is(slurp($errf), $base_err, 'the messages of the run with no attach (none)');
}

done_testing();
