#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# libmcount-trace against clients of its control socket that misbehave,
# and against what the program does to itself (t/src/trace/robust.c):
#   - a show client that reads nothing: the program's fork(), dlopen()
#     and exit go on (no lock of theirs is held while a client is
#     written to), and the client is dropped, said, after the bound
#     mcount-trace(1) gives;
#   - ten idle connections and one that sends a byte every 2 s: a
#     status request still gets its answer at once, the drain goes on
#     (MCOUNT_TRACE_FULL=wait loses nothing), the dawdlers are dropped;
#   - 32 idle connections, the most there may be: one more is refused,
#     with a message;
#   - enable of a function whose page the program made PROT_NONE: an
#     error, and the program runs on (the site is read as it is
#     written, through the kernel, never by a load that can fault);
#     with it, its neighbour on that page and the functions on the
#     pages around it, one of whose sites is near enough to be read in
#     the same piece of memory: those two refused, the others traced;
#   - a child of a raw fork system call (no atfork handler runs) that
#     calls exit(): the parent's socket stays, the parent's file gets no
#     event twice and none of the child's;
#   - a program that closes every descriptor while clients wait: the
#     numbers of their connections, now the program's files, are
#     neither written nor closed by the library;
#   - a library whose destructor writes the trace through the C API,
#     opened and closed 1,000 times while a thread makes events and the
#     output file is drained: dlclose() returns every time (it holds no
#     lock a drain waits for while the destructors run);
#   - a library whose constructor enables its own function through the
#     C API, opened and closed 1,000 times while another thread opens
#     and closes libm: dlopen() returns every time (the constructor,
#     which runs holding the dynamic linker's lock, does not wait for a
#     dlclose() that waits for that lock);
#   - a fuzz of the protocol: random verbs and arguments, partial lines,
#     stalls and many connections at once against a running program,
#     which keeps its output and exit status, while well-formed requests
#     get their answers in time.
# The bounds below (8 s, 5 s) are well under what the faults cost before
# (the program frozen for as long as the client stayed, requests queued
# 5 s per idle connection), and well over what a loaded machine needs.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use Errno qw(EAGAIN EINPROGRESS EINTR EWOULDBLOCK);
use Fcntl qw(F_GETFL F_SETFL O_NONBLOCK);
use Socket qw(AF_UNIX SOCK_STREAM pack_sockaddr_un);
use Time::HiRes qw(time sleep);
use TestUtil qw(must run_cmd tmpdir slurp spit);
use TraceTest qw($SO $LIBA $RTINC $TSRC clean_env mcc_build link_prog each_text_event wait_for start_bg stop_bg mt_cli);

clean_env();
$SIG{PIPE} = 'IGNORE';     # (a refused connection is closed under a write)
my $dir = tmpdir();
my $ctl = "$dir/ctl";
$ENV{MCOUNT_TRACE_DIR} = $ctl;

# (its functions in the order of the source: robust.c's guard page's neighbours)
mcc_build('-pg -mfentry', "$dir/robust.o", "$TSRC/robust.c", '-O2', '-fno-toplevel-reorder', '-pthread');
my $prog = link_prog("$dir/robust", "$dir/robust.o", '-pthread', '-ldl');
my $prog_a = link_prog("$dir/robust_a", "$dir/robust.o", $LIBA, '-pthread', '-ldl');

sub touch { spit($_[0], '') }
sub slurp_or { my ($f) = @_; return -e $f ? slurp($f) : '' }

# A connection to the control socket of PID, made without blocking (a
# full backlog is EAGAIN: tried again until DEADLINE); undef if none.
sub connect_to {
    my ($pid, $deadline) = @_;
    while (1) {
        socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die "socket: $!";
        fcntl($s, F_SETFL, fcntl($s, F_GETFL, 0) | O_NONBLOCK);
        return $s if connect($s, pack_sockaddr_un("$ctl/$pid"));
        return undef unless $! == EAGAIN || $! == EWOULDBLOCK || $! == EINPROGRESS || $! == EINTR;
        return undef if time > $deadline;
        sleep 0.05;
    }
}

# One request, its whole answer read until the connection closes, all
# within SECONDS: (answer or undef, seconds taken).
sub request {
    my ($pid, $line, $seconds) = @_;
    my $t0 = time;
    my $end = $t0 + $seconds;
    my $s = connect_to($pid, $end) // return (undef, time - $t0);
    my $out = "$line\n";
    my $ans = '';
    while (time < $end) {
        my ($rin, $win) = ('', '');
        vec($rin, fileno($s), 1) = 1;
        vec($win, fileno($s), 1) = 1 if length $out;
        my $r = select(my $rout = $rin, my $wout = $win, undef, $end - time);
        # (a signal to this process, a child's end, is no answer)
        next if $r && $r < 0 && $! == EINTR;
        last unless $r && $r > 0;
        if (length $out && vec($wout, fileno($s), 1)) {
            my $w = syswrite $s, $out;
            substr($out, 0, $w, '') if $w;
        }
        if (vec($rout, fileno($s), 1)) {
            my $n = sysread $s, my $buf, 65536;
            next if !defined $n && ($! == EAGAIN || $! == EWOULDBLOCK);
            if (!$n) {
                close $s;
                return ($ans, time - $t0);
            }
            $ans .= $buf;
        }
    }
    close $s;
    return (undef, time - $t0);
}

# The events of each function in a text trace, its lost count, its errors.
# (Read a line at a time, an event of a plain C name from another the
# quick way, as text_line reads it: the dawdlers' trace has half a
# million lines.)
sub counts {
    my ($file) = @_;
    return ({}, 0, ["$file: no such file"]) unless -e $file;
    my (%n, $lost);
    $lost = 0;
    my $quick = qr/\A.{16}-(\d+)( *) \[\d{3}\] ( *\d+)\.\d{6}: ([A-Za-z_]\w*) <-[A-Za-z_]\w*\z/;
    my $take = sub {
        my (undef, $tid, $pad, $s, $func) = @_;
        return 0 if length($tid . $pad) < 7 || $pad ne '' && length($tid . $pad) != 7 || length($s) < 6;
        $n{$func}++;
        return 1;
    };
    my $err = each_text_event($file, sub {
        my ($e) = @_;
        if (exists $e->{lost}) { $lost += $e->{lost} } else { $n{ $e->{func} }++ }
    }, fast => [$quick, $take]);
    return (\%n, $lost, $err);
}

# ---- a show client that reads nothing ----
for my $case (['preloaded', $prog, 1], ['linked in', $prog_a, 0]) {
    my ($name, $p, $pre) = @$case;
    my $d = tmpdir();
    my $pid = start_bg([$p, 'show', $d], out => "$d/out", err => "$d/err",
        env => { MCOUNT_TRACE_FILTER => 'work', ($pre ? (LD_PRELOAD => $SO) : ()) });
    my $ready = wait_for(60, sub { slurp_or("$d/out") =~ /^ready$/m && -S "$ctl/$pid" });
    ok($ready, "show, $name: the program is ready") or diag slurp_or("$d/err");
    my $c = connect_to($pid, time + 10);
    ok($c, "show, $name: a client connects");
    syswrite $c, "show\n" if $c;
    sleep 1;                 # (the drain is writing to it, and it is full)
    touch("$d/go");
    my $t0 = time;
    my $forked = wait_for(8, sub { slurp_or("$d/out") =~ /^forked$/m });
    my $dt = time - $t0;
    ok($forked, sprintf "show, %s: fork() and dlopen() finish while a show client reads nothing (%.1f s)", $name, $dt)
        or diag slurp_or("$d/out") . slurp_or("$d/err");
    unlike(slurp_or("$d/out"), qr/failed/, "show, $name: the fork and the dlopen worked");
    # the program makes more events; a second show client that reads
    # nothing, then the program's exit
    my $dropped = wait_for(15, sub { slurp_or("$d/err") =~ /^mcount-trace: control socket: a client read too slowly: dropped/m });
    ok($dropped, "show, $name: the client that reads nothing is dropped, and that is said") or diag slurp_or("$d/err");
    my $c2 = connect_to($pid, time + 10);
    syswrite $c2, "show\n" if $c2;
    sleep 1;
    touch("$d/end");
    $t0 = time;
    my $st = stop_bg($pid, 15);
    $dt = time - $t0;
    is($st, 0, sprintf "show, %s: the program exits 0 at once, a show client still not reading (%.1f s)", $name, $dt)
        or diag slurp_or("$d/err");
    ok($dt < 8, "show, $name: the exit took less than 8 s");
    close $c if $c;
    close $c2 if $c2;
    my @other = grep { !/^mcount-trace: control socket: a client read too slowly: dropped/ } split /\n/, slurp_or("$d/err");
    is_deeply(\@other, [], "show, $name: no other message");
}

# ---- idle connections and a client that sends a byte every 2 s ----
{
    my $d = tmpdir();
    my $t = "$d/trace";
    my $pid = start_bg([$prog, 'rate', $d], out => "$d/out", err => "$d/err",
        env => { LD_PRELOAD => $SO, MCOUNT_TRACE_FILTER => 'tick', MCOUNT_TRACE_OUTPUT => $t,
            MCOUNT_TRACE_FULL => 'wait', MCOUNT_TRACE_BUFFER => 16384 });
    ok(wait_for(30, sub { -S "$ctl/$pid" }), 'dawdlers: the program listens');
    my @idle;
    my $end = time + 10;
    while (@idle < 10 && time < $end) {
        my $s = connect_to($pid, $end) or last;
        push @idle, $s;
    }
    is(scalar @idle, 10, 'dawdlers: ten idle connections are made');
    # a client that sends "status\n" a byte every 2 s
    my $drip = fork // die "fork: $!";
    if (!$drip) {
        my $s = connect_to($pid, time + 10) or POSIX::_exit(1);
        for my $ch (split //, "status\n") {
            syswrite $s, $ch;
            sleep 2;
        }
        sleep 2;
        POSIX::_exit(0);
    }
    sleep 0.5;
    my @slow;
    for my $i (1 .. 6) {
        my ($ans, $dt) = request($pid, 'status', 5);
        push @slow, sprintf('%d: %s (%.1f s)', $i, defined $ans ? 'answered' : 'no answer', $dt)
            unless defined $ans && $ans =~ /\Aok\npid: $pid\n/;
        sleep 0.5;
    }
    is_deeply(\@slow, [], 'dawdlers: six status requests in 5 s each, each answered in less than 5 s');
    my ($ans) = request($pid, 'status', 5);
    my ($lost_now) = ($ans // '') =~ /^events lost: (\d+)$/m;
    is($lost_now, 0, 'dawdlers: status says no event was lost');
    sleep 2;
    touch("$d/stop");
    my $st = stop_bg($pid, 60);
    # (the program is gone: the drip, which would send its last bytes
    # for another 10 s, has nobody to send them to)
    kill 'KILL', $drip;
    waitpid $drip, 0;
    close $_ for @idle;
    is($st, 0, 'dawdlers: the program exits 0') or diag slurp_or("$d/err");
    my ($calls) = slurp_or("$d/out") =~ /^calls (\d+)$/m;
    my ($n, $lost, $err) = counts($t);
    is_deeply($err, [], 'dawdlers: the trace is well formed');
    is($lost, 0, 'dawdlers: no event lost');
    is($n->{tick} // 0, $calls // -1, 'dawdlers: every call is in the trace (' . ($calls // '?') . ')');
    unlike(slurp_or("$d/err"), qr/waits given up|lost/, 'dawdlers: nothing said of lost events');
}

# ---- a listener at its limit refuses with a message ----
{
    my $d = tmpdir();
    my $pid = start_bg([$prog, 'rate', $d], out => "$d/out", err => "$d/err",
        env => { LD_PRELOAD => $SO, MCOUNT_TRACE_FILTER => 'tick' });
    ok(wait_for(30, sub { -S "$ctl/$pid" }), 'limit: the program listens');
    my @idle;
    my $end = time + 10;
    while (@idle < 32 && time < $end) {
        my $s = connect_to($pid, $end) or last;
        push @idle, $s;
    }
    is(scalar @idle, 32, 'limit: 32 idle connections are made');
    sleep 0.5;
    my ($ans) = request($pid, 'status', 5);
    like($ans // '', qr/\Aerror: \d+ connections open already, the most there may be: try again\n\z/,
        'limit: one more is refused, with a message');
    close $_ for @idle;
    my $got = wait_for(8, sub { my ($a) = request($pid, 'status', 2); ($a // '') =~ /\Aok\n/ });
    ok($got, 'limit: once they are closed, a request is answered');
    touch("$d/stop");
    is(stop_bg($pid, 60), 0, 'limit: the program exits 0');
}

# ---- enable on a function whose page is PROT_NONE ----
for my $case (['preloaded', $prog, 1], ['linked in', $prog_a, 0]) {
    my ($name, $p, $pre) = @$case;
    my $d = tmpdir();
    my $pid = start_bg([$p, 'guard', $d], out => "$d/out", err => "$d/err",
        env => { ($pre ? (LD_PRELOAD => $SO) : ()), MCOUNT_TRACE_OUTPUT => "$d/trace" });
    ok(wait_for(30, sub { slurp_or("$d/out") =~ /^ready$/m && -S "$ctl/$pid" }), "guard, $name: the program is ready");
    my ($rc, $out, $err) = mt_cli('enable', $pid, 'guarded');
    isnt($rc, 0, "guard, $name: enable of a function on a PROT_NONE page fails");
    like($err, qr/guarded.*cannot be read/, "guard, $name: and says why") or diag $err;
    ($rc, $out, $err) = mt_cli('enable', $pid, 'guard*');
    isnt($rc, 0, "guard, $name: enable of guard* (two of them on that page) fails");
    ($rc, $out, $err) = mt_cli('status', $pid);
    is($rc, 0, "guard, $name: the program still answers") or diag $err;
    like($out, qr/^functions traced: 3$/m, "guard, $name: guard_filler, guard_near (its site read with the "
        . "guarded page's, then alone) and guard_end traced") or diag $out;
    touch("$d/go");
    my $st = stop_bg($pid, 30);
    is($st, 0, "guard, $name: the program exits 0") or diag slurp_or("$d/err");
    like(slurp_or("$d/out"), qr/^called$/m, "guard, $name: and its function ran");
    my %calls;
    my $trace = slurp_or("$d/trace");
    $calls{$1}++ while $trace =~ /\b(guard\w*) <-/g;
    is(join(' ', map { "$_=$calls{$_}" } sort keys %calls), 'guard_end=1 guard_filler=1 guard_near=1',
        "guard, $name: the trace has the calls of the three traced, none of the two refused");
    my %unread = map { $_ => 1 } slurp_or("$d/err") =~ /<(\w+)>: cannot be read/g;
    is(join(' ', sort keys %unread), 'guarded guarded_too',
        "guard, $name: the program's standard error names the two on that page as unreadable, no other");
    like(slurp_or("$d/err"), qr/^mcount-trace: robust(_a)?: 0x[0-9a-f]+ <guarded>: cannot be read \(.*\): left as it is$/m,
        "guard, $name: the program's standard error says it too");
}

# ---- a child of a raw fork system call ----
for my $case (['preloaded', $prog, 1], ['linked in', $prog_a, 0]) {
    my ($name, $p, $pre) = @$case;
    my $d = tmpdir();
    my $t = "$d/trace";
    my $pid = start_bg([$p, 'rawfork', $d], out => "$d/out", err => "$d/err",
        env => { ($pre ? (LD_PRELOAD => $SO) : ()), MCOUNT_TRACE_OUTPUT => $t,
            MCOUNT_TRACE_FILTER => 'before,child_fn,after' });
    my $ready = wait_for(30, sub { slurp_or("$d/out") =~ /^ready$/m });
    ok($ready, "raw fork, $name: the child exited, the parent goes on") or diag slurp_or("$d/err");
    ok(-S "$ctl/$pid", "raw fork, $name: the parent's socket is still there");
    my ($ans) = request($pid, 'status', 10);
    like($ans // '', qr/\Aok\npid: $pid\n/, "raw fork, $name: and answers");
    touch("$d/go");
    is(stop_bg($pid, 30), 0, "raw fork, $name: the parent exits 0") or diag slurp_or("$d/err");
    unlike(slurp_or("$d/out"), qr/child status/, "raw fork, $name: the child exited 0");
    my ($n, $lost, $err) = counts($t);
    is_deeply($err, [], "raw fork, $name: the parent's trace is well formed");
    is_deeply($n, { before => 1000, after => 7 }, "raw fork, $name: the parent's file has its own events, each once");
    is_deeply([glob "$t.*"], [], "raw fork, $name: the child wrote no file");
    is(slurp_or("$d/err"), '', "raw fork, $name: no message");
}

# ---- a program that closes every descriptor, an idle client waiting ----
# The connection's number goes to a file of the program's: the library
# must neither write its "no request line" there nor close it.
{
    my $d = tmpdir();
    my $pid = start_bg([$prog, 'closeall', $d], out => "$d/out", err => "$d/err", env => { LD_PRELOAD => $SO });
    ok(wait_for(30, sub { slurp_or("$d/out") =~ /^ready$/m && -S "$ctl/$pid" }), 'closeall: the program is ready');
    my @idle = grep { defined } map { connect_to($pid, time + 5) } 1 .. 3;
    is(scalar @idle, 3, 'closeall: three idle connections');
    sleep 0.5;
    touch("$d/go");
    is(stop_bg($pid, 30), 0, 'closeall: the program exits 0') or diag slurp_or("$d/err");
    close $_ for @idle;
    like(slurp_or("$d/out"), qr/^kept 16$/m, "closeall: the program's 16 files stayed open");
    is(slurp_or("$d/mine"), "kept\n" x 16, 'closeall: and hold only what the program wrote');
}

# ---- a library's destructor writes the trace while dlclose() unloads it ----
# The drain into the output file (every 20 ms, the events of spin() and
# lib_leaf() to write) names the events with the registry's lock; a
# dlclose() that held that lock while the destructor waited for the
# drain's hung for good within a few hundred rounds.
{
    my $d = tmpdir();
    mcc_build('-pg -mfentry', "$d/dtor_lib.o", "$TSRC/dtor_lib.c", '-O2', '-fPIC', "-I$RTINC");
    link_prog("$d/libdtor.so", '-shared', "$d/dtor_lib.o");
    my $pid = start_bg([$prog, 'dtor', $d, "$d/libdtor.so", 1000], out => "$d/out", err => "$d/err",
        env => { LD_PRELOAD => $SO, MCOUNT_TRACE_OUTPUT => "$d/trace", MCOUNT_TRACE_FILTER => 'spin,lib_*' });
    is(stop_bg($pid, 60), 0, 'dtor: 1,000 dlclose() whose destructor writes the trace, while it is drained: '
        . 'the program exits 0 (in 60 s)') or diag slurp_or("$d/err");
    is(slurp_or("$d/out"), "closed 1000\n", 'dtor: every dlclose() returned 0');
    # (a busy machine's drain may fall behind spin(): the events lost are
    # said, and are no failure of a destructor's write)
    my $msg = join '', grep { !/^mcount-trace: \d+ events lost: their threads' buffers were full/ }
        split /^/, slurp_or("$d/err");
    is($msg, '', 'dtor: no other message (every mcount_trace_write() in a destructor wrote)');
    my ($n, $lost, $err) = counts("$d/trace");
    is_deeply($err, [], 'dtor: the output file is well formed');
}

# ---- a library's constructor enables tracing while another thread closes one ----
# The constructor runs inside dlopen(), holding the dynamic linker's lock;
# the other thread's dlclose() held the pass lock while it waited for
# that one, and the constructor's enable waited for the pass lock: the
# program hung for good within a few hundred rounds.
{
    my $d = tmpdir();
    mcc_build('-pg -mfentry', "$d/enable_lib.o", "$TSRC/enable_lib.c", '-O2', '-fPIC', "-I$RTINC");
    link_prog("$d/libenable.so", '-shared', "$d/enable_lib.o");
    my $pid = start_bg([$prog, 'ctor', $d, "$d/libenable.so", 1000], out => "$d/out", err => "$d/err",
        env => { LD_PRELOAD => $SO, MCOUNT_TRACE_OUTPUT => "$d/trace" });
    is(stop_bg($pid, 60), 0, 'ctor: 1,000 dlopen() whose constructor enables a function, while another thread '
        . 'closes a library: the program exits 0 (in 60 s)') or diag slurp_or("$d/err");
    is(slurp_or("$d/out"), "opened 1000\n", 'ctor: every dlopen() and dlclose() of the library worked');
    is_deeply([grep { /enable_lib:/ } split /\n/, slurp_or("$d/err")], [],
        'ctor: every mcount_trace_enable() in a constructor worked') or diag slurp_or("$d/err");
    my ($n, $lost, $err) = counts("$d/trace");
    is_deeply($err, [], 'ctor: the output file is well formed');
    ok(($n->{enabled_fn} // 0) > 0, 'ctor: and has the events of the function the constructor enabled');
}

# ---- a fuzz of the protocol ----
# Random verbs and arguments, garbage, long and binary lines, lines sent
# in pieces or cut off, connections left stalled or closed at once, a
# burst over the limit, against three threads making events into the
# output file.  Every whole request is answered (a status line) within
# 5 s, a status in between each few, and the program's own output and
# exit status are what they would be.
{
    my $d = tmpdir();
    my $pid = start_bg([$prog, 'busy', $d], out => "$d/out", err => "$d/err",
        env => { LD_PRELOAD => $SO, MCOUNT_TRACE_FILTER => 'spin', MCOUNT_TRACE_OUTPUT => "$d/trace" });
    ok(wait_for(30, sub { -S "$ctl/$pid" }), 'fuzz: the program listens');
    srand(99);
    my @verbs = qw(list enable disable notrace stop show tracer event args retval status);
    my @globs = ('spin', 'sp*', '*', 'nosuch', '!spin', ':mod:', 'spin:mod:robust', '*:mod:libc*', '[', '**?*',
        "sp\tin", 'spin,nosuch', 'spin nosuch');
    my @vals = ('text', 'json', 'chrome', 'bogus', 'function', 'function_graph', 'on', 'off', '0', '3', '99', '-1',
        'spin(long i)', 'spin(int', 'spin(char *s, long i)', '(((', 'x' x 300, '');
    my $arg = sub {
        my $r = rand;
        return $globs[rand @globs] if $r < 0.4;
        return $vals[rand @vals] if $r < 0.8;
        return join '', map { chr(32 + int rand 95) } 1 .. int rand 40;
    };
    my (@bad, @stalled);
    my $answered = 0;
    for my $i (1 .. 160) {
        my $r = rand;
        my $line;
        if ($r < 0.7) {
            $line = $verbs[rand @verbs];
            $line .= ' ' . join(' ', map { $arg->() } 1 .. int rand 3) if rand() < 0.8;
        } elsif ($r < 0.8) {
            $line = join '', map { chr(32 + int rand 95) } 1 .. int rand 60;
        } elsif ($r < 0.85) {
            $line = join '', map { chr(int rand 256) =~ s/\n/ /r } 1 .. int rand 100;
        } elsif ($r < 0.9) {
            $line = 'status ' . ('y' x (3000 + int rand 3000));
        } else {
            $line = '';
        }
        my $how = rand;
        if ($how < 0.6) {
            # a whole request: an answer within 5 s
            my ($ans, $dt) = request($pid, $line, 5);
            if (length($line) >= 4095) {
                push @bad, "$i: '" . substr($line, 0, 40) . "...': " . ($ans // 'no answer')
                    unless ($ans // '') =~ /\Aerror: a request of more than 4095 bytes\n\z/;
            } elsif (!defined $ans || $ans !~ /\A(ok( \d+)?|error: [^\n]+)\n/) {
                push @bad, sprintf "%d: '%s': %s (%.1f s)", $i, substr($line, 0, 40), $ans // 'no answer', $dt;
            } else {
                $answered++;
            }
        } elsif ($how < 0.7) {
            # in pieces, a little apart
            my $s = connect_to($pid, time + 5) or next;
            my $rest = "$line\n";
            while (length $rest) {
                syswrite $s, substr($rest, 0, 1 + int rand 8, '');
                sleep 0.01;
            }
            close $s;
        } elsif ($how < 0.8) {
            # cut off: part of a line, then closed
            my $s = connect_to($pid, time + 5) or next;
            syswrite $s, substr($line, 0, int rand(length($line) + 1));
            close $s;
        } elsif ($how < 0.9) {
            # stalled: part of a line, left open (at most 8 at a time)
            my $s = connect_to($pid, time + 5) or next;
            syswrite $s, substr($line, 0, int rand(length($line) + 1));
            push @stalled, $s;
            close(shift @stalled) while @stalled > 8;
        } elsif ($how < 0.95) {
            # connected, then closed at once
            my $s = connect_to($pid, time + 5);
            close $s if $s;
        } else {
            # a burst over the limit, all closed at once
            my @burst;
            for (1 .. 40) {
                my $s = connect_to($pid, time + 1) or last;
                push @burst, $s;
            }
            close $_ for @burst;
        }
        if ($i % 8 == 0) {
            my $got = wait_for(6, sub { my ($a) = request($pid, 'status', 5); ($a // '') =~ /\Aok\npid: $pid\n/ });
            push @bad, "$i: status not answered" unless $got;
        }
    }
    close $_ for @stalled;
    is_deeply(\@bad, [], "fuzz: every whole request answered in 5 s ($answered of them), and every status");
    my ($ans) = request($pid, 'status', 5);
    like($ans // '', qr/\Aok\npid: $pid\n/, 'fuzz: the program still answers');
    touch("$d/stop");
    is(stop_bg($pid, 60), 0, 'fuzz: the program exits 0') or diag slurp_or("$d/err");
    like(slurp_or("$d/out"), qr/\Acalls [1-9]\d*\n\z/, 'fuzz: and its output is its own');
    my @msgs = grep { !/^mcount-trace: (control socket: a client read too slowly|\d+ events lost|.*: no DWARF information)/ }
        split /\n/, slurp_or("$d/err");
    is_deeply(\@msgs, [], 'fuzz: no other message') or diag slurp_or("$d/err");
}

done_testing();
