#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# libmcount-trace and what a process does (t/src/trace/proc.c, built
# through mcount-cc with -pg -mfentry): fork (the child's events in
# FILE.CHILDPID, the parent's in FILE, none in both), exec (the new
# program traced too, the events before exec still in FILE), signal
# handlers that call traced functions (every call an event or counted
# lost, nothing else), exit while other threads are in traced code,
# dlopen/dlclose of a library built through mcount-cc (a filter given
# before dlopen traces it, list shows its functions as FUNC [libplug.so]
# while it is loaded, every event named), the program's own SIGTRAP
# handler (installed before and after the library's start-up, with
# sigaction and with signal: raise and int3 still reach it; SIG_IGN still
# ignores a raised SIGTRAP; SA_RESETHAND resets it; with SIG_DFL an int3
# still kills), a child that execs (system: the parent's FILE stays whole), and table
# entries that are not calls to the hook (refused with a message, their
# bytes never changed; GCC's -mnop-mcount -mrecord-mcount table too),
# and a buffer too large to map (a small one instead, said).
# The expected counts come from the program's own source: so many calls
# of each function.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw(must run_cmd tmpdir slurp spit);
use TraceTest qw($SO $LIBA $TSRC clean_env mcc_build link_prog traced read_text wait_for
    start_bg stop_bg mt_cli);

clean_env();
my $dir = tmpdir();
my $ctl = "$dir/ctl";
$ENV{MCOUNT_TRACE_DIR} = $ctl;

mcc_build('-pg -mfentry', "$dir/proc.o", "$TSRC/proc.c", '-O2', '-pthread');
must('gcc', '-c', "$TSRC/badsite.S", '-o', "$dir/badsite.o");
my $proc = link_prog("$dir/proc", '-rdynamic', "$dir/proc.o", "$dir/badsite.o", '-pthread', '-ldl');
my $proc_a = link_prog("$dir/proc_a", '-rdynamic', "$dir/proc.o", "$dir/badsite.o", $LIBA, '-pthread', '-ldl');
mcc_build('-pg -mfentry', "$dir/plug.o", "$TSRC/plug.c", '-O2', '-fPIC');
link_prog("$dir/libplug.so", '-shared', "$dir/plug.o");
# (initialised first: glibc so initialises the last object loaded that
# asks for it, which libearly.so is, preloaded after the library)
must('gcc', '-O2', '-shared', '-fPIC', '-Wl,-z,initfirst', '-o', "$dir/libearly.so", "$TSRC/early.c", '-ldl');

# The events of a text trace: (\@events, \@errors), and how many of each function.
sub counts {
    my ($file) = @_;
    return ({}, [], ["$file: no such file"]) unless -e $file;
    my ($ev, $err) = read_text($file);
    my %n;
    $n{ $_->{func} }++ for grep { !exists $_->{lost} } @$ev;
    return (\%n, $ev, $err);
}

# Messages other than the ones the test expects.
sub other_msgs {
    my ($err, @ok) = @_;
    return [grep { my $l = $_; !grep { $l =~ $_ } @ok } split /\n/, $err];
}
my $badsite_msg = qr/^mcount-trace: proc(_a)?: 0x[0-9a-f]+ <bad_(call_|nop_|framed_)?fn\+(0|0x[0-9a-f]+)>: .*: left alone$/;
my $lost_msg = qr/^mcount-trace: \d+ events lost: their threads' buffers were full/;

# ---- fork ----
{
    my $t = "$dir/fork.txt";
    my ($st, $out, $err) = traced([$proc, 'fork'], timeout => 120,
        env => { MCOUNT_TRACE_FILTER => 'p_before,child_work,parent_work', MCOUNT_TRACE_OUTPUT => $t });
    is($st, 0, 'fork: the program and its child exit 0 (no hang)') or diag $err;
    my ($child) = $out =~ /^child (\d+) status 0$/m;
    ok($child, 'fork: the child ran') or diag $out;
    my ($pn, undef, $perr) = counts($t);
    my ($cn, $cev, $cerr) = counts("$t." . ($child // 'none'));
    is_deeply($perr, [], 'fork: the parent\'s trace is well formed');
    is_deeply($cerr, [], 'fork: the child\'s trace FILE.PID is well formed');
    is_deeply($pn, { p_before => 3, parent_work => 4 }, 'fork: FILE: the parent\'s events, each once');
    is_deeply($cn, { child_work => 5 }, 'fork: FILE.CHILDPID: the child\'s events only');
    ok(!grep({ !exists $_->{lost} && $_->{tid} != ($child // -1) } @$cev), 'fork: the child\'s events are its own thread\'s');
    is_deeply(other_msgs($err, $badsite_msg), [], 'fork: no other message');
}

# ---- fork, the trace to standard error ----
# (the child writes to the copy of stderr it inherits, its own events)
{
    my ($st, $out, $err) = traced([$proc, 'fork'], timeout => 120,
        env => { MCOUNT_TRACE_FILTER => 'p_before,child_work,parent_work', MCOUNT_TRACE_OUTPUT => '-' });
    is($st, 0, 'fork, -: the program and its child exit 0') or diag $err;
    my %n;
    $n{$1}++ while $err =~ /: (\w+) <-\w+$/mg;
    is_deeply(\%n, { p_before => 3, parent_work => 4, child_work => 5 }, 'fork, -: both processes\' events on stderr');
    is_deeply(other_msgs($err, $badsite_msg, qr/^#/, qr/: \w+ <-\w+$/), [], 'fork, -: no other message');
}

# ---- a buffer that cannot be mapped ----
# (a limit of 1 GB of address space; 2^26 events are 1.5 GiB): the thread
# gets a small ring instead, said, in the parent and in the child it
# forks; their few events fit, and are all written
{
    my $t = "$dir/nobuf.txt";
    my ($st, $out, $err) = traced(['sh', '-c', 'ulimit -v 1000000 && exec "$@"', 'sh', $proc, 'fork'],
        timeout => 120, env => { MCOUNT_TRACE_FILTER => 'p_before,child_work,parent_work', MCOUNT_TRACE_OUTPUT => $t,
            MCOUNT_TRACE_BUFFER => 1 << 26 });
    is($st, 0, 'no buffer: the program and its child exit 0') or diag $err;
    my ($child) = $out =~ /^child (\d+) status 0$/m;
    ok($child, 'no buffer: the child ran');
    my $first = qr/^mcount-trace: no memory for a buffer of 67108864 events \(1536 MiB\) for a thread: it gets one of 64, and what does not fit is lost/;
    my $at_exit = qr/^mcount-trace: 1 thread got a buffer of 64 events, not 67108864 \(1536 MiB; MCOUNT_TRACE_BUFFER\)$/m;
    is(scalar(() = $err =~ /$at_exit/g), 2, 'no buffer: said at exit, by the parent and by the child');
    is_deeply(other_msgs($err, $badsite_msg, $first, $at_exit), [], 'no buffer: no other message');
    my ($pn) = counts($t);
    my ($cn) = counts("$t." . ($child // 'none'));
    is_deeply($pn, { p_before => 3, parent_work => 4 }, 'no buffer: the parent\'s events, in its small ring');
    is_deeply($cn, { child_work => 5 }, 'no buffer: the child\'s');
}

# ---- exec ----
for my $how (qw(execv execvp execl)) {
    my $t = "$dir/exec-$how.txt";
    my ($st, $out, $err) = traced([$proc, 'exec', $how], timeout => 120,
        env => { MCOUNT_TRACE_FILTER => 'pre_exec,post_exec', MCOUNT_TRACE_OUTPUT => $t });
    is($st, 0, "$how: exits 0") or diag $err;
    is($out, "pre 15\npost 18\n", "$how: the program ran before and after exec");
    my ($n, $ev, $errs) = counts($t);
    is_deeply($errs, [], "$how: the trace is well formed");
    is($n->{post_exec} // 0, 3, "$how: the exec'd program is traced too");
    is($n->{pre_exec} // 0, 3, "$how: the events before exec are in FILE");
    my @order = map { $_->{func} } grep { !exists $_->{lost} } @$ev;
    is("@order", join(' ', ('pre_exec') x 3, ('post_exec') x 3), "$how: in order");
}

# ---- a child that execs (system): the parent's FILE stays whole ----
{
    my $t = "$dir/system.txt";
    my ($st, $out, $err) = traced([$proc, 'system'], timeout => 120,
        env => { MCOUNT_TRACE_FILTER => 'p_before,parent_work', MCOUNT_TRACE_OUTPUT => $t });
    is($st, 0, 'system: exits 0') or diag $err;
    is($out, "system 24\n", 'system: the program ran');
    my ($n, undef, $errs) = counts($t);
    is_deeply($errs, [], 'system: the trace is well formed');
    is_deeply($n, { p_before => 3, parent_work => 4 },
        'system: FILE holds the events before and after system() (the shell does not truncate it)');
}

# ---- a signal handler calling traced functions ----
{
    # in_handler only: one event per handler run, exactly.
    my $t = "$dir/signal1.txt";
    my ($st, $out, $err) = traced([$proc, 'signal', 300], timeout => 300,
        env => { MCOUNT_TRACE_FILTER => 'in_handler', MCOUNT_TRACE_OUTPUT => $t });
    is($st, 0, 'signal: exits 0') or diag $err;
    my ($handled) = $out =~ /^handled (\d+) calls \d+$/m;
    cmp_ok($handled // 0, '>', 0, 'signal: the handler ran ' . ($handled // 0) . ' times');
    my ($n, $ev, $errs) = counts($t);
    is_deeply($errs, [], 'signal: the trace is well formed');
    is_deeply($n, { in_handler => $handled }, 'signal: one in_handler event per handler run');

    # and work() traced in the interrupted loop: each call an event or lost.
    $t = "$dir/signal2.txt";
    ($st, $out, $err) = traced([$proc, 'signal', 300], timeout => 300,
        env => { MCOUNT_TRACE_FILTER => 'in_handler,work', MCOUNT_TRACE_OUTPUT => $t,
                 MCOUNT_TRACE_BUFFER => 1024 });
    is($st, 0, 'signal, work traced too: exits 0') or diag $err;
    my ($h2, $calls) = $out =~ /^handled (\d+) calls (\d+)$/m;
    ($n, $ev, $errs) = counts($t);
    is_deeply($errs, [], 'signal, work traced too: the trace is well formed');
    my $lost = 0;
    $lost += $_->{lost} // 0 for @$ev;
    # (a full buffer may drop them all: the sum below is the check)
    cmp_ok($n->{in_handler} // 0, '<=', $h2 // 0,
        'signal, work traced too: in_handler events: ' . ($n->{in_handler} // 0) . ', at most one per handler run');
    is(($n->{in_handler} // 0) + ($n->{work} // 0) + $lost, ($h2 // -1) + ($calls // -1),
        'signal, work traced too: events + lost = handler runs + calls of work');
    is_deeply([sort keys %$n], [grep { $n->{$_} } qw(in_handler work)], 'signal: no other function');
    is_deeply(other_msgs($err, $badsite_msg, $lost_msg), [], 'signal: no other message');
}

# ---- exit while other threads are in traced code ----
{
    my @bad;
    for my $i (1 .. 10) {
        my $t = "$dir/exit$i.txt";
        my ($st, $out, $err) = traced([$proc, 'exit'], timeout => 120,
            env => { MCOUNT_TRACE_FILTER => 'spin_work', MCOUNT_TRACE_OUTPUT => $t, MCOUNT_TRACE_BUFFER => 1024 });
        push @bad, "run $i: status $st: $err" if $st != 0 || $out ne "exiting\n";
        my ($n, undef, $errs) = counts($t);
        push @bad, "run $i: $errs->[0]" if @$errs;
        push @bad, "run $i: functions " . join(' ', sort keys %$n) if join(' ', keys %$n) ne 'spin_work';
        push @bad, "run $i: " . join(' ', @{ other_msgs($err, $badsite_msg, $lost_msg) })
            if @{ other_msgs($err, $badsite_msg, $lost_msg) };
        unlink $t;
    }
    is_deeply(\@bad, [], 'exit while 4 threads call a traced function, 10 times: exit 0, the trace well formed');
}

# ---- dlopen and dlclose ----
{
    my $sync = "$dir/sync";
    mkdir $sync or die;
    my $t = "$dir/dl.txt";
    my $pid = start_bg([$proc, 'dl', "$dir/libplug.so", $sync], out => "$dir/dl.out", err => "$dir/dl.err",
        env => { LD_PRELOAD => $SO, MCOUNT_TRACE_FILTER => 'plug_*,local_fn', MCOUNT_TRACE_OUTPUT => $t });
    ok(wait_for(120, sub { -e "$sync/loaded" }), 'dlopen: the library is loaded and called');
    my ($code, $list) = mt_cli('list', $pid);
    is($code, 0, 'dlopen: mcount-trace list');
    my @plug = sort grep { /libplug/ } split /\n/, $list;
    is_deeply(\@plug, ['plug_a [libplug.so]', 'plug_b [libplug.so]'], 'dlopen: list shows FUNC [libplug.so]');
    ok(grep({ $_ eq 'local_fn' } split /\n/, $list), 'dlopen: and the program\'s functions without a module');
    spit("$sync/listed", '');
    ok(wait_for(120, sub { -e "$sync/closed" }), 'dlclose: the library is closed, the program goes on');
    ($code, $list) = mt_cli('list', $pid);
    is($code, 0, 'dlclose: mcount-trace list');
    is_deeply([grep { /libplug/ } split /\n/, $list], [], 'dlclose: list no longer shows the library');
    spit("$sync/done", '');
    my $st = stop_bg($pid, 300);
    is($st, 0, 'dlopen/dlclose: exits 0') or diag slurp("$dir/dl.err");
    is(slurp("$dir/dl.out"), "dl 442\n", 'dlopen/dlclose: the functions computed what they compute');
    my ($n, $ev, $errs) = counts($t);
    is_deeply($errs, [], 'dlopen/dlclose: the trace is well formed');
    is_deeply($n, { plug_a => 23, plug_b => 23, local_fn => 3 },
        'dlopen/dlclose: every call traced and named, also those just before a dlclose');
    # (written after the library is gone: its symbols still name them)
    my @parents = map { /: plug_b <-(\S+)$/ ? $1 : () } split /\n/, slurp($t);
    is(scalar @parents, 23, 'dlopen/dlclose: 23 events of plug_b');
    is_deeply([grep { $_ ne 'plug_a' } @parents], [], 'dlopen/dlclose: plug_b\'s parent named plug_a, the library closed')
        or diag "@parents[0 .. 4]";
    is_deeply(other_msgs(slurp("$dir/dl.err"), $badsite_msg), [], 'dlopen/dlclose: no other message');
}

# ---- the program's own SIGTRAP handler ----
my $traps_line = qr/^traps 4 right-signal 4 found (default|a handler) sum 1725$/m;
for my $v (['preloaded', $proc, 1], ['linked in', $proc_a, 0]) {
    my ($name, $prog, $preload) = @$v;
    for my $how (qw(sigaction signal)) {
        my ($st, $out, $err) = traced([$prog, 'trap', $how], preload => $preload, timeout => 120);
        is($st, 0, "$name, $how in main: exits 0") or diag $err;
        like($out, $traps_line, "$name, $how in main: raise and int3 reach the program's handler, "
            . 'before and after tracing was switched');
        is_deeply(other_msgs($err, $badsite_msg), [], "$name, $how in main: no other message");
        # before the library's start-up
        my %env = $preload ? (EARLY_SO_TRAP => $how) : (PROC_TRAP_EARLY => $how);
        ($st, $out, $err) = traced([$prog, 'trap', 'early'], timeout => 120, preload => 0,
            env => { %env, $preload ? (LD_PRELOAD => "$SO $dir/libearly.so") : () });
        is($st, 0, "$name, $how before start-up: exits 0") or diag $err;
        like($out, $traps_line, "$name, $how before start-up: raise and int3 reach the program's handler");
        like($out, qr/found default/, "$name, $how before start-up: installed before the library's handler");
    }
    my ($st, $out, $err) = traced([$prog, 'resethand'], preload => $preload, timeout => 120);
    is($st & 127, 5, "$name, SA_RESETHAND: the second raise(SIGTRAP) kills") or diag "status $st";
    is($out, "first 1\n", "$name, SA_RESETHAND: after the handler ran once");
    ($st, $out, $err) = traced([$prog, 'trap', 'ign'], preload => $preload, timeout => 120);
    is($st, 0, "$name, SIG_IGN: raise(SIGTRAP) is ignored") or diag "status $st";
    is($out, "survived raise\n", "$name, SIG_IGN: the program goes on");
    for my $how (qw(dfl-int3 dfl-raise)) {
        ($st, $out, $err) = traced([$prog, 'trap', $how], preload => $preload, timeout => 120,
            env => { MCOUNT_TRACE_FILTER => 'toggled' });
        is($st & 127, 5, "$name, SIG_DFL, $how: the program dies of SIGTRAP");
        is($out, '', "$name, SIG_DFL, $how: at once");
    }
}

# ---- table entries that are not calls to the hook ----
for my $v (['preloaded', $proc, 1], ['linked in', $proc_a, 0]) {
    my ($name, $prog, $preload) = @$v;
    my $t = "$dir/bad.txt";
    my ($st, $out, $err) = traced([$prog, 'bad'], preload => $preload, timeout => 120,
        env => { MCOUNT_TRACE_OUTPUT => $t });
    is($st, 0, "$name, bad entries: exits 0") or diag $err;
    my (@m) = $err =~ /^(mcount-trace: proc(?:_a)?: 0x[0-9a-f]+ <(\w+)\+(?:0|0x[0-9a-f]+)>: (.*): left alone)$/mg;
    my %why = map { $m[3 * $_ + 1] => $m[3 * $_ + 2] } 0 .. $#m / 3;
    like($why{bad_fn} // '', qr/^not a call instruction \(bytes b8 2a 00 00 00\)$/,
        "$name, an entry at a mov: refused, its bytes shown");
    like($why{bad_call_fn} // '', qr/^a call to something other than the hook \(bytes e8 /,
        "$name, an entry at a call of another function: refused");
    like($why{bad_nop_fn} // '',
        qr/^a NOP already, where -mnop-mcount puts none \(another tool changed it\) \(bytes 0f 1f 44 00 00\)$/,
        "$name, an entry at a NOP after a mov, in a function with no frame: refused");
    like($why{bad_framed_fn} // '',
        qr/^a NOP already, where -mnop-mcount puts none \(another tool changed it\) \(bytes 0f 1f 44 00 00\)$/,
        "$name, an entry at a NOP after a mov that follows the frame's set-up: refused");
    my ($before) = $out =~ /^before (.*) \| local_fn/m;
    my ($after) = $out =~ /^after (.*) \| local_fn/m;
    is($after, $before, "$name, bad entries: their bytes are unchanged after enable '*'");
    is($before, 'b8 2a 00 00 00 c3 | e8 f4 ff ff ff 83 | 0f 1f 44 00 00 c3 | 0f 1f 44 00 00 5d',
        "$name, bad entries: the bytes the assembler wrote");
    like($out, qr/^before .* \| local_fn (0f 1f 44 00 00|66 0f 1f 44 00)$/m, "$name: a good site is a NOP at first");
    like($out, qr/^after .* \| local_fn (e8|ff 15|67 e8|90 e8) /m, "$name: and a call once enabled");
    like($out, qr/^enabled [1-9]\d* result 94$/m, "$name: the other functions enabled, the result right");
    my ($n) = counts($t);
    ok(!$n->{bad_fn} && !$n->{bad_call_fn} && !$n->{bad_nop_fn} && !$n->{bad_framed_fn} && $n->{local_fn},
        "$name: no event of the refused entries");
}
{
    # GCC's own table over NOPs (-mnop-mcount -mrecord-mcount; GCC has
    # none for PIC code): each site is taken as it is, a NOP, and becomes
    # a call when enabled (preloaded, through a trampoline: the library
    # is beyond a call's reach from a non-PIE program's text).  The
    # functions run as often as the source says.  badsite.o's entries
    # are still refused.
    must('gcc', '-O2', '-pthread', '-fno-pie', '-pg', '-mfentry', '-mnop-mcount', '-mrecord-mcount', '-c',
        "$TSRC/proc.c", '-o', "$dir/nop.o");
    my $nop = link_prog("$dir/proc_nop", '-no-pie', '-rdynamic', "$dir/nop.o", "$dir/badsite.o", '-pthread', '-ldl');
    my $t = "$dir/nop.txt";
    my ($st, $out, $err) = traced([$nop, 'bad'], timeout => 120, env => { MCOUNT_TRACE_OUTPUT => $t });
    is($st, 0, '-mnop-mcount: exits 0') or diag $err;
    my @msg = split /\n/, $err;
    is(scalar(@msg), 4, '-mnop-mcount: a message for each of badsite\'s entries, none else') or diag $err;
    is_deeply([grep { !/^mcount-trace: proc_nop: 0x[0-9a-f]+ <bad_(call_|nop_|framed_)?fn\+(0|0x[0-9a-f]+)>: / } @msg], [],
        '-mnop-mcount: each of them about badsite\'s entries');
    like($out, qr/^before .* \| local_fn 0f 1f 44 00 00$/m, '-mnop-mcount: local_fn starts with its NOP');
    like($out, qr/^after .* \| local_fn e8 /m, '-mnop-mcount: a call once enabled');
    like($out, qr/^enabled [1-9]\d* result 94$/m, '-mnop-mcount: the functions enabled, the result right');
    my ($n, $ev, $errs) = counts($t);
    is_deeply($errs, [], '-mnop-mcount: the trace is well formed');
    is_deeply($n, { local_fn => 1, show_bytes => 1 },
        '-mnop-mcount: what bad_main calls after the enable, once each: local_fn and show_bytes');

    # Stripped of every symbol: where a function starts cannot be told,
    # so no NOP is taken, and none is written.
    my $stripped = link_prog("$dir/proc_nop_s", '-no-pie', "$dir/nop.o", "$dir/badsite.o", '-pthread', '-ldl');
    must('strip', '--strip-all', $stripped);
    ($st, $out, $err) = traced([$stripped, 'bad'], timeout => 120, env => { MCOUNT_TRACE_OUTPUT => "$t.s" });
    is($st, 0, '-mnop-mcount, stripped: exits 0') or diag $err;
    like($err, qr/^mcount-trace: proc_nop_s: 0x[0-9a-f]+: a NOP in no function of the symbol table \(stripped\?\): not taken for -mnop-mcount's \(bytes 0f 1f 44 00 00\): left alone$/m,
        '-mnop-mcount, stripped: each NOP refused, saying why');
    like($out, qr/^after .* \| local_fn 0f 1f 44 00 00$/m, '-mnop-mcount, stripped: never written');
    like($out, qr/^enabled 0 result 94$/m, '-mnop-mcount, stripped: nothing to enable, the result right');
}

# A -pg program built without a table (plain gcc, no mcount-cc): one
# message says why nothing of it can be traced, for the PIE's GOT call
# and the -no-pie PLT call alike; a program without -pg, none.
{
    spit("$dir/notab.c", "#include <stdio.h>\nint foo_a(int x) { return x + 1; }\n"
        . "int main(void) { int s = 0; for (int i = 0; i < 100; i++) s += foo_a(i); printf(\"%d\\n\", s); return 0; }\n");
    for my $v (['pie', [], '-pg', '-mfentry'], ['nopie', ['-no-pie'], '-pg', '-fno-pie']) {
        my ($name, $lf, @flags) = @$v;
        my $prog = "$dir/notab-$name";
        must('gcc', '-O0', @flags, '-c', '-o', "$prog.o", "$dir/notab.c");
        link_prog($prog, @$lf, "$prog.o");
        my ($st, $out, $err) = traced([$prog], env => { MCOUNT_TRACE_FILTER => 'foo_*', MCOUNT_TRACE_OUTPUT => '',
            MCOUNT_TRACE_DIR => $ctl });
        is("$st $out", "0 5050\n", "no table ($name): runs as it does alone");
        is($err, "mcount-trace: notab-$name: calls the hook but has no __mcount_loc table: none of its functions "
            . "can be traced (build it through mcount-cc, or with GCC's -mrecord-mcount)\n", "no table ($name): says so, once");
    }
    # one without -pg at all (no table, no call of a hook): said by the
    # first process, and not by a shell around one (t/102)
    my ($st, $out, $err) = traced(['true'], env => { MCOUNT_TRACE_FILTER => 'foo_*', MCOUNT_TRACE_DIR => $ctl,
        MCOUNT_TRACE_OUTPUT => '' });
    is("$st $err", "0 mcount-trace: true: has no __mcount_loc table and calls no hook (built without -pg?), "
        . "nor has a library it loaded a table: nothing can be traced but in a library it opens later\n", 'a program without -pg: says so, once');

    # A start-up filter with a glob the library refuses (the kernel's
    # leading !, an empty :mod:) changes nothing, not even its good globs.
    my $prog = link_prog("$dir/tab", mcc_build('-pg -mfentry', "$dir/tab.o", "$dir/notab.c", '-O0'));
    for my $f ('!foo_a', 'foo_a,!main', 'foo_a:mod:') {
        ($st, $out, $err) = traced([$prog], env => { MCOUNT_TRACE_FILTER => $f, MCOUNT_TRACE_DIR => $ctl,
            MCOUNT_TRACE_OUTPUT => "$dir/tab.txt" });
        is($err, "mcount-trace: MCOUNT_TRACE_FILTER: '$f' is not a list of globs (GLOB or GLOB:mod:MODULE; no leading !)\n",
            "MCOUNT_TRACE_FILTER=$f: refused, said");
        is(scalar(grep { /: foo_a </ } split /\n/, slurp("$dir/tab.txt")), 0, "MCOUNT_TRACE_FILTER=$f: nothing traced");
    }
    ($st, $out, $err) = traced([$prog], env => { MCOUNT_TRACE_FILTER => 'foo_a', MCOUNT_TRACE_DIR => $ctl,
        MCOUNT_TRACE_OUTPUT => "$dir/tab.txt" });
    is(scalar(grep { /: foo_a <-main$/ } split /\n/, slurp("$dir/tab.txt")), 100, 'MCOUNT_TRACE_FILTER=foo_a: 100 events');
    is($err, '', 'MCOUNT_TRACE_FILTER=foo_a: nothing said');
    # one that matches no function of a program with a table (a misspelt
    # name): said, by the program only, not by a shell around it
    for my $cmd ([$prog], ['sh', '-c', "$prog; true"]) {
        ($st, $out, $err) = traced($cmd, env => { MCOUNT_TRACE_FILTER => 'fooa,mian', MCOUNT_TRACE_DIR => $ctl,
            MCOUNT_TRACE_OUTPUT => "$dir/tab.txt" });
        is("$st $out", "0 5050\n", "MCOUNT_TRACE_FILTER=fooa,mian (@$cmd[0]): runs");
        is($err, $cmd->[0] eq 'sh' ? '' : "mcount-trace: MCOUNT_TRACE_FILTER: 'fooa,mian' traces no function "
            . "(objects loaded later are searched too)\n", "MCOUNT_TRACE_FILTER=fooa,mian (@$cmd[0]): "
            . ($cmd->[0] eq 'sh' ? 'a child of the first process says nothing' : 'said'));
    }
}

# ---- a stripped program: every name in its file's addresses ----
# A function without a symbol is named after its site's address in the
# file, as FILE+0xADDR; a parent without one likewise, so that each
# event's parent is the return address objdump shows after the call in
# the unstripped program (the same code), not a run-time address.
{
    spit("$dir/strip.c", "#include <stdio.h>\n"
        . "__attribute__((noinline)) int leaf(int x) { __asm__ volatile(\"\"); return x + 1; }\n"
        . "__attribute__((noinline)) int mid(int x) { return leaf(x) * 2; }\n"
        . "int main(int c, char **v) { (void)v; int s = 0; for (int i = 0; i < c + 2; i++) s += mid(i); "
        . "printf(\"%d\\n\", s); return 0; }\n");
    my $full = link_prog("$dir/strip-full", mcc_build('-pg', "$dir/strip.o", "$dir/strip.c", '-O2'));
    must('strip', '-o', "$dir/strip", $full);
    my (%site, %ret, $fn, $after);
    for (split /\n/, must('objdump', '-d', '--no-show-raw-insn', $full)) {
        if (/^[0-9a-f]+ <(\w+)>:$/) { $fn = $1; next }
        my ($at, $ins) = /^\s+([0-9a-f]+):\s+(.*)$/ or next;
        $ret{$after} = hex($at) if defined $after;
        undef $after;
        $site{$fn} //= hex($at) if $ins =~ /\bcall\b.*<mcount(?:@|>)/;
        $after = "$fn>$1" if $ins =~ /\bcall\s+[0-9a-f]+ <(leaf|mid)>/;
    }
    my %want = (sprintf('strip+%#x <-strip+%#x', $site{leaf} // 0, $ret{'mid>leaf'} // 0) => 3,
        sprintf('strip+%#x <-strip+%#x', $site{mid} // 0, $ret{'main>mid'} // 0) => 3);
    my ($st, $out, $err) = traced(["$dir/strip"], env => { MCOUNT_TRACE_FILTER => '*', MCOUNT_TRACE_DIR => $ctl,
        MCOUNT_TRACE_OUTPUT => "$dir/strip.txt" });
    is("$st $out", "0 12\n", 'stripped: runs');
    my %got;
    my $trace = slurp("$dir/strip.txt");
    $got{"$1 <-$2"}++ while $trace =~ /: (strip\+0x[0-9a-f]+) <-(strip\+0x[0-9a-f]+)$/mg;
    my %ours = map { (sprintf('strip+%#x', $site{$_} // 0) => 1) } qw(leaf mid);
    delete $got{$_} for grep { !$ours{ (split / /)[0] } } keys %got;
    is_deeply(\%got, \%want, 'stripped: leaf and mid named by their sites, their parents by return addresses, '
        . 'all as the file\'s name and addresses in it');
}

done_testing();
