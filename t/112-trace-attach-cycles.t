#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# mcount-trace attach and detach, again and again, on a process started
# plainly (t/src/trace/cycler.c, built with -pg -mfentry through
# mcount-cc: 8 workers calling work_a and work_b all the time, a POSIX
# timer every millisecond whose expirations it counts, 1 + si_overrun a
# signal, SIGRTMIN+1 queued to it by a second process every 0.2 ms,
# each with its number, which it marks, its own SIGTRAP handler
# counting stray traps; its verdicts on stdout at the end):
#  - CYCLES cycles (20; 100 under STRESS_FULL=1, make check-slow) of
#    attach, in some an enable of work_* and a show that has both
#    functions and no other, in others function_graph on work_* (calls
#    under way return through the library's trampoline after the
#    detach), and detach: each exit 0 and silent, each attach again
#    the start-up's state (tracer function, nothing traced or
#    buffered), every
#    site (read through /proc/PID/mem at the addresses of the table)
#    the NOP the first attach made of it after each detach, two of
#    them on while work_* is enabled, the socket gone after the detach
#    and no thread of the library's left,
#    the library mapped once (reused), the program answering; at the
#    end its output (every SIGRTMIN+1 sent handled once, every timer
#    expiration counted, no stray trap, every worker ran) and exit
#    status are those of a run with no attach; the time of the cycles
#    said (prove -v);
#  - after the cycles, attached once more: a fenced round of 8 x 1000
#    calls traced, the trace's calls of work_a the program's count;
#  - detach while a hook of the program's own is registered (linked
#    with libmcount-trace.a: t/src/trace/hooked.c): refused, --force
#    too, the hook and the channel going on; after the program's
#    unregister, detached; attached again, its own copy of the library
#    started (no libmcount-trace.so loaded into it), and said so while
#    it runs;
#  - detach while a function is patched (mcount-trace patch, its
#    replacement counting no call): refused, naming it, the patch and
#    tracing still on; --force unpatches (the program counts work_b
#    again) and detaches;
#  - the lock hazard of malloc, made on purpose: a thread sleeps 1 s in
#    the program's own malloc (interposed, over the C library's) holding
#    its lock, which dlopen's and the library's start-up's malloc wait
#    for: attach succeeds once it is let go, and detach (whose malloc
#    waits too) after it; the holder's sleep was not cut short;
#  - refusals, each said with exit 1, the target untouched (its maps the
#    same, and its output at the end the plain run's): a process under
#    strace (attach, and detach: no socket), root attaching to another
#    user's process (its control socket would answer that user only),
#    a static program (no dlopen), detach of a process never attached,
#    of one detached already and of no process; detach's bad usage.
#    (Yama's ptrace_scope is tested in t/79-trace-system.t's la57
#    guest, whose kernel has Yama: t/lib/LA57Trace.pm.)
#  - -mnop-mcount -mrecord-mcount builds (GCC's own table and NOPs,
#    __fentry__ and mcount forms), started plainly: attach, a fenced
#    round traced, the trace's calls the program's count; detach.
use strict;
use warnings;
use Test::More;
use POSIX ();
use Time::HiRes ();
use lib 't/lib';
use TestUtil qw(tmpdir slurp);
use IPC::Open2 ();
use TraceTest qw($TSRC $LIBA $RTINC clean_env mcc_build link_prog start_bg stop_bg wait_for mt_cli site_bytes);

clean_env();
my $CYCLES = $ENV{STRESS_FULL} ? 100 : 20;
my $dir = tmpdir();
chmod 0755, $dir;
my $ctl = "$dir/ctl";
mkdir $ctl, 0700 or die "$ctl: $!";
my %DIR = (MCOUNT_TRACE_DIR => $ctl);

my $prog = "$dir/cycler";
mcc_build('-pg -mfentry', "$prog.o", "$TSRC/cycler.c", '-O2');
link_prog($prog, "$prog.o", '-lpthread', '-lrt');

# A session with a program: (PID, command handle, reply handle, FILE
# prefix of its stdout and stderr, the sender's PID, its stop file).
# (FIFOs of the user $fifo_owner, where the program runs as another)
my $n = 0;
our $fifo_owner;
sub start_session {
    my ($program, @wrap) = @_;
    $n++;
    my ($c, $r) = ("$dir/cmd$n", "$dir/reply$n");
    POSIX::mkfifo($_, 0600) or die "mkfifo $_: $!" for $c, $r;
    chown $fifo_owner, $fifo_owner, $c, $r if defined $fifo_owner;
    my $pid = start_bg([@wrap, $program, $c, $r], out => "$dir/s$n.out", err => "$dir/s$n.err", env => { %DIR });
    open(my $ch, '>', $c) or die "$c: $!";
    open(my $rh, '<', $r) or die "$r: $!";
    $ch->autoflush(1);
    return [$pid, $ch, $rh, "$dir/s$n"];
}

# The sender of SIGRTMIN+1 to the session's program (PID: the program's
# where a wrapper runs it).
sub start_sender {
    my ($s, $pid) = @_;
    my $stop = "$s->[3].stop";
    $s->[4] = start_bg([$prog, 'send', $pid // $s->[0], 200, $stop], out => "$s->[3].sent");
    $s->[5] = $stop;
    return;
}

# A command's answer (undef: none in 20 s).
sub ask {
    my ($s, $line) = @_;
    print {$s->[1]} "$line\n";
    local $SIG{ALRM} = sub { die "no answer\n" };
    alarm 20;
    my $a = eval { scalar readline $s->[2] };
    alarm 0;
    chomp $a if defined $a;
    return $a;
}

# The end of a session: the sender stopped, the program told how many
# it sent -> (exit status, stdout, stderr, the number sent).
sub end_session {
    my ($s) = @_;
    my $sent = 0;
    if ($s->[4]) {
        open(my $fh, '>', $s->[5]) or die "$s->[5]: $!";
        close $fh;
        stop_bg($s->[4], 30);
        $sent = slurp("$s->[3].sent") // '';
        chomp $sent;
    }
    my $bye = ask($s, "quit $sent");
    close $s->[1];
    close $s->[2];
    my $st = stop_bg($s->[0], 30);
    return ($st, slurp("$s->[3].out"), slurp("$s->[3].err"), $sent, $bye);
}

# The library's threads in PID (named mcount-trace).
sub lib_threads {
    my ($pid) = @_;
    my $k = 0;
    for my $c (glob "/proc/$pid/task/*/comm") {
        $k++ if (slurp($c) // '') eq "mcount-trace\n";
    }
    return $k;
}

# Its mappings of the library's code.
sub lib_code_maps {
    my ($pid) = @_;
    return scalar grep { / r-xp .*\/libmcount-trace\.so$/ } split /\n/, slurp("/proc/$pid/maps") // '';
}

# The calls of FUNC in a text trace.
sub calls_of {
    my ($trace, $func) = @_;
    return scalar(() = $trace =~ /^\s*\S+-\d+\s+\[\d+\]\s+[\d.]+: \Q$func\E <-/mg);
}

my $VERDICT = "workers: 8, each called work_a\nrt signals: each sent handled once\n"
    . "timer: every expiration counted\nstray traps: none\n";

# ---- a run with no attach ------------------------------------------------------
my ($base_st, $base_out, $base_err);
{
    my $s = start_session($prog);
    start_sender($s);
    like(ask($s, 'stats'), qr/^calls=\d+ b=\d+ rt=\d+ timer=\d+ traps=0$/, 'plain run: the program answers');
    select undef, undef, undef, 1;
    my ($st, $out, $err, $sent) = end_session($s);
    ($base_st, $base_out, $base_err) = ($st, $out, $err);
    is($st, 0, 'plain run: exit 0') or diag $err;
    cmp_ok($sent, '>', 100, "plain run: SIGRTMIN+1 sent: $sent");
    is($out, $VERDICT, 'plain run: its verdicts: every signal handled, every expiration counted, no trap');
    is($err, '', 'plain run: nothing on standard error');
}

# ---- the cycles ------------------------------------------------------------------
{
    my $s = start_session($prog);
    my $pid = $s->[0];
    start_sender($s);
    like(ask($s, 'stats'), qr/^calls=/, 'the program runs');
    my $maps0 = slurp("/proc/$pid/maps");
    unlike($maps0, qr/libmcount-trace/, 'before the first attach: no library in it');
    my @calls = site_bytes($pid, $prog);
    is(scalar(grep { /^ff15/ } @calls), scalar @calls, 'before the first attach: each site is its call (ff 15)');
    my (@bad, @shows, @nops);
    my $t0 = Time::HiRes::time();
    for my $i (1 .. $CYCLES) {
        my ($st, $o, $e) = mt_cli({ %DIR }, 'attach', $pid);
        push @bad, "cycle $i: attach: exit $st: $e" if $st != 0 || $e ne '' || $o !~ /^pid: $pid$/m;
        push @bad, "cycle $i: attached again: not the start-up's state: $o"
            unless $o =~ /^tracer: function$/m && $o =~ /^functions traced: 0$/m && $o =~ /^events buffered: 0$/m;
        if ($i == 1) {
            @nops = site_bytes($pid, $prog);
            my @same = grep { $nops[$_] eq $calls[$_] } 0 .. $#calls;
            push @bad, "cycle 1: attached: sites left as they were: @same" if @same;
        }
        if ($i % 5 == 1) {
            ($st, $o, $e) = mt_cli({ %DIR }, 'enable', $pid, 'work_*');
            push @bad, "cycle $i: enable: exit $st: $e" if $st != 0;
            select undef, undef, undef, 0.02;
            my @now = site_bytes($pid, $prog);
            my $on = grep { $now[$_] ne $nops[$_] } 0 .. $#nops;
            push @bad, "cycle $i: work_* enabled: $on sites switched on, not 2" if $on != 2;
            # (disabled before the show: the window bounded; a busy
            # machine may still fill a buffer, which the trace says)
            mt_cli({ %DIR }, 'disable', $pid, 'work_*');
            ($st, $o, $e) = mt_cli({ %DIR }, 'show', $pid);
            push @bad, "cycle $i: show: exit $st: $e" if $st != 0;
            my ($a, $b) = (calls_of($o, 'work_a'), calls_of($o, 'work_b'));
            # (work_a's call of work_b is its last: a jump, from worker's call)
            my $other = () = $o =~ /^(?!\s*\S+-\d+\s+(?:\[\d+\]\s+[\d.]+: work_(?:a <-worker|b <-work(?:er|_a))|\[LOST \d+ EVENTS\])$).*\n/mg;
            push @shows, [$i, $a, $b, $other];
        } elsif ($i % 5 == 3) {
            # detached while the workers' calls return through the
            # library's return trampoline
            ($st, $o, $e) = mt_cli({ %DIR }, 'tracer', $pid, 'function_graph');
            push @bad, "cycle $i: tracer function_graph: exit $st: $e" if $st != 0;
            ($st, $o, $e) = mt_cli({ %DIR }, 'enable', $pid, 'work_*');
            push @bad, "cycle $i: enable: exit $st: $e" if $st != 0;
            select undef, undef, undef, 0.02;
        }
        ($st, $o, $e) = mt_cli({ %DIR }, 'detach', $pid);
        push @bad, "cycle $i: detach: exit $st: $o$e" if $st != 0 || $e ne '' || $o ne '';
        push @bad, "cycle $i: the socket is still there after detach" if -e "$ctl/$pid";
        my @now = site_bytes($pid, $prog);
        my @on = grep { $now[$_] ne $nops[$_] } 0 .. $#nops;
        push @bad, "cycle $i: after detach, sites not NOPs: @now[@on]" if @on;
        my $left = lib_threads($pid);
        push @bad, "cycle $i: $left threads of the library's left after detach" if $left;
        my $code = lib_code_maps($pid);
        push @bad, "cycle $i: the library's code mapped $code times" if $code != 1;
        my $stats = ask($s, 'stats') // 'no answer';
        push @bad, "cycle $i: the program: $stats" unless $stats =~ /^calls=\d+ b=\d+ rt=\d+ timer=\d+ traps=0$/;
        last if @bad > 5;
    }
    my $took = Time::HiRes::time() - $t0;
    is_deeply(\@bad, [], "$CYCLES cycles of attach and detach, each exit 0 and silent, each attach the start-up's "
        . "state, every site a NOP after each detach (as the attach made them; work_*'s two on while enabled), the "
        . "socket and the library's threads gone, its code mapped once, the program answering, no stray trap");
    diag(sprintf '%d cycles of attach and detach: %.1f s (%.2f s a cycle)', $CYCLES, $took, $took / $CYCLES);
    my @empty = grep { !$_->[1] || !$_->[2] || $_->[3] } @shows;
    ok(@shows && !@empty, 'each enable of work_*: the show has calls of work_a and work_b, of no other function')
        or diag explain \@empty;

    # once more: a fenced round against the program's own count
    my ($st, $o, $e) = mt_cli({ %DIR }, 'attach', $pid);
    is($st, 0, 'attached again after the cycles') or diag $e;
    is(ask($s, 'fence'), 'fenced', 'the workers fenced');
    mt_cli({ %DIR }, 'enable', $pid, 'work_a');
    is(ask($s, 'round 1000'), 'round a=8000 b=8000', 'a round: the program counts 8 x 1000 calls');
    ($st, $o, $e) = mt_cli({ %DIR }, 'show', $pid);
    is(calls_of($o, 'work_a'), 8000, "the trace's calls of work_a: the program's count");
    is(calls_of($o, 'work_b'), 0, 'no call of work_b (not enabled)');

    # detach while a function is patched
    my $fix = "$dir/cycler_fix.so";
    link_prog($fix, '-shared', '-fPIC', '-O2', "$TSRC/cycler_fix.c");
    ($st, $o, $e) = mt_cli({ %DIR }, 'patch', $pid, 'work_b', $fix);
    is($st, 0, 'patch work_b') or diag $e;
    is(ask($s, 'round 100'), 'round a=800 b=0', 'patched: the replacement counts no call of work_b');
    ($st, $o, $e) = mt_cli({ %DIR }, 'detach', $pid);
    is($st, 1, 'detach while work_b is patched: exit 1');
    like($e, qr/^mcount-trace: $pid: 1 functions are patched \(mcount-trace patch\): unpatch them first, or detach --force to unpatch them: work_b:mod:cycler$/,
        'detach while patched: refused, naming the function');
    ok(-S "$ctl/$pid", 'refused: the socket is still there');
    is(ask($s, 'round 100'), 'round a=800 b=0', 'refused: the patch holds');
    ($st, $o, $e) = mt_cli({ %DIR }, 'show', $pid);
    is(calls_of($o, 'work_a'), 1600, 'refused: tracing goes on (the two rounds since the show traced)');
    ($st, $o, $e) = mt_cli({ %DIR }, 'detach', '--force', $pid);
    is($st, 0, 'detach --force: exit 0') or diag $e;
    is($e, '', 'detach --force: silent');
    is(ask($s, 'round 100'), 'round a=800 b=800', 'after detach --force: work_b is the program\'s own again');
    ok(!-e "$ctl/$pid" && !lib_threads($pid), 'after detach --force: no socket, no thread of the library\'s');
    is(ask($s, 'go'), 'going', 'the workers go on');

    # refusals of detach
    ($st, $o, $e) = mt_cli({ %DIR }, 'detach', $pid);
    is($st, 1, 'detach of a process detached already: exit 1');
    like($e, qr/^mcount-trace: $pid: not traced by mcount-trace/, 'detach again: said');
    ($st, $o, $e) = mt_cli({ %DIR }, 'detach', $pid, 'x');
    is($st, 2, 'detach PID ARG: bad usage');
    ($st, $o, $e) = mt_cli({ %DIR }, 'enable', '--force', $pid, 'x');
    is($st, 2, '--force is detach\'s alone');

    my ($end_st, $end_out, $end_err, $sent) = end_session($s);
    is($end_st, 0, 'after the cycles: exit 0, as the plain run') or diag $end_err;
    cmp_ok($sent, '>', 100, "SIGRTMIN+1 sent through the cycles: $sent");
    is($end_out, $base_out, 'after the cycles: its verdicts are the plain run\'s');
    is($end_err, '', 'after the cycles: nothing on standard error');
}

# ---- detach while the program has a hook of its own ---------------------------------
{
    my $h = "$dir/hooked";
    mcc_build('-pg -mfentry', "$h.o", "$TSRC/hooked.c", '-O2', "-I$RTINC");
    link_prog($h, "$h.o", $LIBA, '-lpthread');
    local %ENV = (%ENV, %DIR);
    my $pid = IPC::Open2::open2(my $out, my $in, $h);
    $in->autoflush(1);
    my $line = sub { print {$in} "$_[0]\n" if defined $_[0]; my $l = <$out>; chomp $l if defined $l; $l };
    is($line->(), 'registered 100', 'a program with a hook of its own on tick: its 100 calls seen');
    wait_for(10, sub { -S "$ctl/$pid" });
    my ($st, $o, $e) = mt_cli({ %DIR }, 'detach', '--force', $pid);
    is($st, 1, 'detach --force while the program has a hook registered: exit 1');
    like($e, qr/^mcount-trace: $pid: 1 hooks are registered \(mcount_hook_register\) by code in the process: it must unregister them first$/,
        'detach while a hook is registered: refused, saying so');
    is($line->('ticks'), 'ticks 200', 'refused: the hook goes on');
    ($st, $o, $e) = mt_cli({ %DIR }, 'status', $pid);
    like($o, qr/^hooks registered: 1$/m, 'refused: the channel goes on');
    is($line->('unreg'), 'unregistered', 'the program unregisters its hook');
    ($st, $o, $e) = mt_cli({ %DIR }, 'detach', $pid);
    is($st, 0, 'then detach: exit 0') or diag $e;
    ok(!-e "$ctl/$pid" && !lib_threads($pid), 'detached: no socket, no thread of the library\'s');
    is($line->('ticks'), 'ticks 200', 'detached: the program goes on, tick no longer hooked');
    # attach to it: its own copy of the library started again, no other
    ($st, $o, $e) = mt_cli({ %DIR }, 'attach', $pid);
    is($st, 0, 'attach to a program that links the library in, detached: exit 0') or diag $e;
    like($o, qr/^pid: $pid$/m, 'its status printed');
    unlike(slurp("/proc/$pid/maps"), qr/libmcount-trace\.so/, 'no second library loaded into it');
    ($st, $o, $e) = mt_cli({ %DIR }, 'attach', $pid);
    is($st, 0, 'attach to it while it runs: exit 0');
    like($e, qr/^mcount-trace: $pid: it links libmcount-trace\.a in, which runs already$/, 'attach while it runs: said');
    ($st, $o, $e) = mt_cli({ %DIR }, 'detach', $pid);
    is($st, 0, 'detached again: exit 0') or diag $e;
    print {$in} "quit\n";
    close $in;
    waitpid $pid, 0;
    is($?, 0, 'the hooked program: exit 0');
}

# ---- the lock hazard of malloc ------------------------------------------------------
{
    my $s = start_session($prog);
    my $pid = $s->[0];
    start_sender($s);
    is(ask($s, 'hold 1000'), 'holding', 'a thread sleeps 1 s in the program\'s malloc, holding its lock');
    my $t0 = Time::HiRes::time();
    my ($st, $o, $e) = mt_cli({ %DIR }, 'attach', $pid);
    my $took = Time::HiRes::time() - $t0;
    is($st, 0, 'attach while malloc\'s lock is held: exit 0, once it is let go') or diag $e;
    cmp_ok($took, '<', 12, sprintf('attach while malloc\'s lock is held: within its bound (%.1f s)', $took));
    # (stopped by the attach, the holder comes out of its sleep when it is
    # let go, after 2 s at most)
    like(ask($s, 'held'), qr/^held [12]\d{3} ms$/, 'the holder slept its 1 s, not cut short, its sleep restarted');
    is(ask($s, 'hold 1000'), 'holding', 'the lock held again');
    ($st, $o, $e) = mt_cli({ %DIR }, 'detach', $pid);
    is($st, 0, 'detach while malloc\'s lock is held: exit 0') or diag $e;
    like(ask($s, 'held'), qr/^held 1\d{3} ms$/, 'the holder slept its 1 s (detach stops no thread)');
    like(ask($s, 'stats'), qr/^calls=\d+ b=\d+ rt=\d+ timer=\d+ traps=0$/, 'the program goes on');
    my ($end_st, $end_out, $end_err) = end_session($s);
    is($end_st, 0, 'malloc held: exit 0') or diag $end_err;
    is($end_out, $base_out, 'malloc held: its verdicts are the plain run\'s');
}

# ---- refusals ------------------------------------------------------------------------
sub program_of {
    my ($wrapper) = @_;
    my $pid;
    wait_for(10, sub {
        ($pid) = map { /(\d+)/ } grep { /\S/ } map { split ' ', slurp($_) // '' }
            glob "/proc/$wrapper/task/*/children";
        $pid;
    });
    return $pid;
}

{
    my $s = start_session($prog, 'strace', '-f', '-o', '/dev/null');
    my $spid = $s->[0];
    my $pid = program_of($spid);
    ok($pid, "the program under strace ($spid) runs: $pid");
    start_sender($s, $pid);
    ask($s, 'stats');
    my $maps = slurp("/proc/$pid/maps");
    my ($st, $o, $e) = mt_cli({ %DIR }, 'attach', $pid);
    is($st, 1, 'under strace: attach: exit 1');
    like($e, qr/^mcount-trace: $pid: refused: traced already by process $spid \(strace\)/,
        'under strace: refused, naming strace');
    ($st, $o, $e) = mt_cli({ %DIR }, 'detach', $pid);
    is($st, 1, 'under strace: detach: exit 1');
    like($e, qr/^mcount-trace: $pid: not traced by mcount-trace/, 'under strace: detach says it is not traced');
    is(slurp("/proc/$pid/maps"), $maps, 'under strace: its maps unchanged');
    my ($end_st, $end_out) = end_session($s);
    is($end_st, 0, 'under strace: exit 0');
    is($end_out, $base_out, 'under strace: its verdicts are the plain run\'s');
}

SKIP: {
    skip 'root attaching to another user\'s process: the tests do not run as root', 6 if $> != 0;
    # (the program as nobody, its FIFOs its own; setpriv execs it: the
    # same PID)
    local $fifo_owner = 65534;
    my $s = start_session($prog, 'setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--');
    my $pid = $s->[0];
    start_sender($s);
    wait_for(5, sub { (slurp("/proc/$pid/status") // '') =~ /^Uid:\s+65534\b/m });
    like(slurp("/proc/$pid/status"), qr/^Uid:\s+65534\b/m, 'the program runs as nobody');
    ask($s, 'stats');
    my $maps = slurp("/proc/$pid/maps");
    my ($st, $o, $e) = mt_cli({ %DIR }, 'attach', $pid);
    is($st, 1, "root attaching to nobody's process: exit 1");
    like($e, qr/^mcount-trace: $pid: refused: another user's process \(user 65534\): its control socket would answer that user alone/,
        "root attaching to nobody's process: refused, saying why");
    is(slurp("/proc/$pid/maps"), $maps, "nobody's process: its maps unchanged");
    my ($end_st, $end_out) = end_session($s);
    is($end_st, 0, "nobody's process: exit 0");
    like($end_out, qr/^workers: 8, each called work_a\n.*stray traps: none\n\z/s, "nobody's process: its output complete");
}

{
    my $static = "$dir/cycler-static";
    mcc_build('-pg -mfentry', "$static.o", "$TSRC/cycler.c", '-O2', '-DCYCLER_LIBC_MALLOC');
    link_prog($static, "$static.o", '-static', '-lpthread', '-lrt');
    my $s = start_session($static);
    my $pid = $s->[0];
    start_sender($s);
    ask($s, 'stats');
    my $maps = slurp("/proc/$pid/maps");
    my ($st, $o, $e) = mt_cli({ %DIR }, 'attach', $pid);
    is($st, 1, 'a static program: exit 1');
    like($e, qr/^mcount-trace: $pid: refused: no dlopen in any object it has mapped \(a statically linked program\)/,
        'a static program: refused, saying why');
    is(slurp("/proc/$pid/maps"), $maps, "a static program: its maps unchanged");
    my ($end_st, $end_out) = end_session($s);
    is($end_st, 0, 'a static program: exit 0');
    is($end_out, $base_out, 'a static program: its verdicts are the plain run\'s');
}

{
    my $gone = fork // die "fork: $!";
    POSIX::_exit(0) unless $gone;
    waitpid $gone, 0;
    my ($st, $o, $e) = mt_cli({ %DIR }, 'detach', $gone);
    is($st, 1, 'detach of no process: exit 1');
    like($e, qr/^mcount-trace: $gone: no such process$/, 'detach of no process: said');
    ($st, $o, $e) = mt_cli({ %DIR }, 'detach');
    is($st, 2, 'detach with no PID: bad usage');
}

# ---- -mnop-mcount -mrecord-mcount ---------------------------------------------------
# (-mnop-mcount is for code that is not position-independent)
for my $form (['__fentry__', '-pg -mfentry -mnop-mcount -mrecord-mcount'], ['mcount', '-pg -mnop-mcount -mrecord-mcount']) {
    my ($hook, $flags) = @$form;
    my $p = "$dir/cycler-nop-$hook";
    my ($st, $o, $e) = TestUtil::run_cmd(['gcc', split(' ', $flags), '-fno-pie', '-O2', '-c', "$TSRC/cycler.c",
        '-o', "$p.o"]);
    is($st, 0, "$flags: compiled") or diag $e;
    link_prog($p, "$p.o", '-no-pie', '-lpthread', '-lrt');
    my $s = start_session($p);
    my $pid = $s->[0];
    ask($s, 'stats');
    ($st, $o, $e) = mt_cli({ %DIR }, 'attach', $pid);
    is($st, 0, "$flags: attach: exit 0") or diag $e;
    like($o, qr/^sites refused: 0$/m, "$flags: no site refused");
    is(ask($s, 'fence'), 'fenced', "$flags: the workers fenced");
    mt_cli({ %DIR }, 'enable', $pid, 'work_a');
    is(ask($s, 'round 1000'), 'round a=8000 b=8000', "$flags: a round of 8 x 1000 calls");
    ($st, $o, $e) = mt_cli({ %DIR }, 'show', $pid);
    is(calls_of($o, 'work_a'), 8000, "$flags: the trace's calls of work_a: the program's count");
    is(calls_of($o, 'work_b'), 0, "$flags: none of work_b");
    ($st, $o, $e) = mt_cli({ %DIR }, 'detach', $pid);
    is($st, 0, "$flags: detach: exit 0") or diag $e;
    is(ask($s, 'round 100'), 'round a=800 b=800', "$flags: the program goes on");
    ask($s, 'go');
    my ($end_st, $end_out) = end_session($s);
    is($end_st, 0, "$flags: exit 0");
    like($end_out, qr/^workers: 8, each called work_a\nrt signals: each sent handled once\n/, "$flags: its verdicts");
}

done_testing();
