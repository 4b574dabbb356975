#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# Hooks (mcount-hooks.h, mcount_hook(3)): a program's own callbacks on
# its own functions, against the functions' own counts
# (t/src/trace/hooks.c: each of f0-f7 counts its calls, keeps the value
# it returns, and checks the argument its hook read before it ran).
# Built with -pg -mfentry and with -pg (mcount), linked with the static
# library, and with the shared one.
#  - Two hooks with overlapping filters, 8 threads: in rounds fenced by
#    the program (the threads wait at a barrier while one hook's filter
#    changes), each hook's count of each function equals the function's
#    own, and is 0 for a function its filter does not select; exits
#    equal entries, each with the value the function returned; argument
#    0 as the function got it.  Then the one hook's filter changed
#    thousands of times while the threads run: the other's counts still equal
#    the functions', the churned one's are never above them.
#  - Unregister: register and unregister cycles while 8 threads run the
#    hooked functions, each hook's data freed the moment unregister
#    returns, under ASan and UBSan (the library's hot path built with
#    them too: build/asan): no use after free, no report.
#  - longjmp through hooked frames: exits of the functions that
#    returned, each once, with its value; none of the frames left.
#  - Live patching (mcount_hook_redirect): 8 threads call f1 while it is
#    redirected to a fixed copy and back, 50 times (20 in the others): every answer is the
#    old one or the new one, and a call that starts and ends between a
#    redirect's return and the unredirect gives the new one, between an
#    unredirect's return and the next redirect the old one; f1's body
#    and the copy ran as many times as the calls made; a hook on f1 saw
#    each call, and its exit the value each returned.  The errors of a
#    redirect.  With -pg (mcount after the prologue): ENOTSUP.
#  - A redirect into a library dlopen()ed after start-up (and so seen by
#    the linked-in library too); with the shared library, that library
#    closed while redirected: the redirect dropped, said, f1's own body
#    answering again.
#  - A timer's signal handler that siglongjmps out of whatever the thread
#    runs (the hook, the callbacks) 10,000 times a second while the
#    thread calls a hooked function: afterwards every call runs its
#    callbacks, and an unregister from another thread returns.
#  - A hook registered while another's unregister waits for a callback
#    under way: the call under way runs none of the new hook's callbacks
#    (its id is not taken until the grace period ends).
#  - The errors of mcount-hooks.h a program can see.
#  - Callbacks (entry and exit) that change every register a called
#    function may change (rax, rcx, rdx, rsi, rdi, r8-r11, xmm0-xmm15,
#    the eight x87 registers) on functions whose arguments and values
#    are in the registers the hooks must keep: doubles and a float in
#    xmm registers, eight vectors in xmm0-xmm7, a variadic call (%al),
#    a long double's value in %st(0), aggregates in memory; each
#    function checks its arguments, its caller the value.
#  - MCOUNT_HOOK_GENERAL_REGS: the same functions under a hook with the
#    flag whose callbacks are built for the general registers alone
#    (target attribute general-regs-only) and change every integer
#    register a callee may: each function's callbacks as many as its
#    calls, arguments and values kept.  The flag given with the
#    callbacks above, which change the vector and x87 registers: the
#    doubles and vectors changed before the functions' bodies, and (with
#    exits) the long double's value after (so the flag does skip the
#    save, at the entry and at the exit), where the same callbacks
#    without it keep them all.
#  - gdb in a callback of a function's own trampoline (with and without
#    the flag; called with the stack aligned, and 8 bytes off as GCC
#    calls a function of its unit that needs no alignment): the
#    backtrace goes through mt_own_tramp to main, a callee-saved register
#    the trampoline saved (%rbx) is found in the caller's frame with the
#    caller's value, and the callback's stack is aligned.
#  - The tracer beside the hooks, on the same sites: MCOUNT_TRACE_FILTER
#    f3 while both hooks run: the trace has f3's calls, as many as f3
#    counted, and no other function (function and function_graph, whose
#    exits share the frames' return with the hook's exits).
# STRESS_FULL=1 (make check-slow): 10,000 filter changes under load and
# 10,000 register/unregister cycles, for the -mfentry program and under
# ASan (the host tier: 1,000 and 500).
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP must run_cmd tmpdir slurp have);
use TraceTest qw($SO $LIBA $RTINC $TSRC clean_env mcc_build link_prog read_json read_graph_json);

clean_env();
my $dir = tmpdir();
my $src = "$TSRC/hooks.c";
my $asan = "$TOP/build/asan/libmcount-trace.a";
die "$asan: run make check (or make $asan) first\n" unless -f $asan;
my $FULL = $ENV{STRESS_FULL};

my %prog;
for my $h (['fentry', '-pg -mfentry'], ['mcount', '-pg']) {
    my ($hn, $flags) = @$h;
    mcc_build($flags, "$dir/$hn.o", $src, '-O2', "-I$RTINC", $hn eq 'fentry' ? '-DHOOKS_AT_ENTRY=1' : ());
    $prog{"$hn-static"} = link_prog("$dir/$hn-static", "$dir/$hn.o", $LIBA, '-lpthread');
}
# the shared library, as a program links it (its directory on the run path)
(my $sodir = $SO) =~ s{/[^/]+\z}{};
$prog{'fentry-shared'} = link_prog("$dir/fentry-shared", "$dir/fentry.o", "-L$sodir", '-lmcount-trace',
    "-Wl,-rpath,$sodir", '-lpthread');
mcc_build('-pg -mfentry', "$dir/san.o", $src, '-O1', '-g', "-I$RTINC", '-DHOOKS_AT_ENTRY=1',
    '-fsanitize=address,undefined');
$prog{asan} = link_prog("$dir/asan", "$dir/san.o", '-fsanitize=address,undefined', $asan, '-lpthread');

# a fixed f1 in a library of its own (plain: no table), for `unload`
link_prog("$dir/libfix.so", '-shared', '-fPIC', '-O2', "$TSRC/hooks_fix.c");

# run(PROG, ARGS..., {env}) -> (status, stdout, stderr)
sub run_prog {
    my ($p, @args) = @_;
    my $env = ref $args[-1] eq 'HASH' ? pop @args : {};
    return run_cmd(['timeout', '-k', '10', '600', 'env', map({ "$_=$env->{$_}" } sort keys %$env), $p, @args]);
}

sub clean_run {
    my ($name, $p, @args) = @_;
    my ($st, $out, $err) = run_prog($p, @args);
    is($st, 0, "$name: exit status 0") or diag("$out$err");
    unlike($out, qr/^FAIL/m, "$name: every count as the functions' own") or diag($out);
    is($err, '', "$name: nothing on standard error") or diag($err);
    return $out;
}

# The full counts for the -mfentry program and the one under ASan; the
# others (the same code through another form of site, or the shared
# library) fewer.
for my $k (sort keys %prog) {
    my $p = $prog{$k};
    my $main = $k eq 'asan' || $k eq 'fentry-static';
    my ($rounds, $churn) = $main ? (200, $FULL ? 10000 : 1000) : (50, 500);
    my $out = clean_run("$k count", $p, 'count', $rounds, $churn);
    my $calls = $rounds * 3200;
    like($out, qr/^ok fenced rounds=$rounds calls=$calls$/m, "$k: $rounds fenced rounds, $calls calls counted");
    like($out, qr/^ok churn=$churn A-hits=[1-9]\d* arguments=[1-9]\d* calls=\d+$/m,
        "$k: $churn filter changes under load, the churned hook saw calls, arguments checked");
    if ($k !~ /\Amcount/) {
        # no exit callbacks: the sites call their functions' own trampolines
        $out = clean_run("$k count own", $p, 'count', $rounds, $churn, 'own');
        like($out, qr/^ok fenced rounds=$rounds calls=$calls$/m,
            "$k own trampolines: $rounds fenced rounds, each site's code its own trampoline's call");
        like($out, qr/^ok churn=$churn A-hits=[1-9]\d* arguments=[1-9]\d* calls=\d+$/m,
            "$k own trampolines: $churn filter changes under load");
    }
    my $cycles = $main ? ($FULL ? 10000 : 500) : 200;
    $out = clean_run("$k unreg", $p, 'unreg', $cycles);
    like($out, qr/^ok unreg cycles=$cycles callbacks=[1-9]\d*$/m, "$k: $cycles register/unregister cycles");
    $out = clean_run("$k unwind", $p, 'unwind', 3000);
    like($out, qr/^ok unwind rounds=3000 longjmps=1000 exits=7000$/m,
        "$k: 1,000 longjmps through hooked frames; 7,000 exits, each of a function that returned");
    if ($k =~ /\Amcount/) {
        $out = clean_run("$k redirect", $p, 'redirect', 1, 'enotsup');
        like($out, qr/^ok redirect ENOTSUP$/m, "$k: no redirect where the site is after the prologue");
    } else {
        my $r = $k eq 'fentry-static' ? 50 : 20;
        $out = clean_run("$k redirect", $p, 'redirect', $r);
        like($out, qr/^ok redirect rounds=$r calls=[1-9]\d* redirected=[1-9]\d*$/m,
            "$k: $r redirects and unredirects under load, each answer as the switch says");
    }
    if ($k eq 'fentry-shared') {
        # (dlclose wrapped: the redirect into the library is dropped)
        my ($st, $uo, $ue) = run_prog($p, 'unload', "$dir/libfix.so");
        is($st, 0, "$k unload: exit status 0") or diag("$uo$ue");
        like($uo, qr/^ok unload$/m, "$k: f1 redirected into a library, which is then closed: f1's own answer again")
            or diag($uo);
        like($ue, qr/\bf1 was redirected to 0x[0-9a-f]+, which is no longer loaded code: the redirect is dropped$/m,
            "$k unload: said on standard error") or diag($ue);
    } elsif ($k !~ /\Amcount/) {
        # linked in: a library loaded after start-up is seen at the next change
        $out = clean_run("$k unload keep", $p, 'unload', "$dir/libfix.so", 'keep');
        like($out, qr/^ok unload$/m, "$k: f1 redirected into a library dlopen()ed after start-up, and back");
    }
    $out = clean_run("$k idreuse", $p, 'idreuse');
    like($out, qr/^ok idreuse$/m, "$k: a hook registered while an unregister waits sees none of the other's calls");
    for my $x ('', 'exit') {
        $out = clean_run("$k sigjump $x", $p, 'sigjump', 2, $x || ());
        like($out, qr/^ok sigjump jumps=some$/m,
            "$k: a signal handler's siglongjmp out of the hook (callbacks: entry $x), then every call served, unregister returns");
    }
    $out = clean_run("$k errors", $p, 'errors');
    like($out, qr/^ok errors$/m, "$k: the errors");
    $out = clean_run("$k clobber", $p, 'clobber', 2000);
    like($out, qr/^ok clobber rounds=2000 calls=12000$/m,
        "$k: callbacks that change every register a callee may; 6 functions' arguments and values kept");
    $out = clean_run("$k clobber entry", $p, 'clobber', 2000, 'entry');
    like($out, qr/^ok clobber rounds=2000 calls=12000 entry$/m,
        "$k: entry callbacks alone (own trampolines) that change every register a callee may; arguments kept");
    for my $x ('entry', 'all') {
        my $e = $x eq 'entry' ? ' entry' : '';
        $out = clean_run("$k clobber $x general", $p, 'clobber', 2000, $x, 'general');
        like($out, qr/^ok clobber rounds=2000 calls=12000$e general$/m,
            "$k: MCOUNT_HOOK_GENERAL_REGS, general-regs-only callbacks ($x): every call seen, every value kept");
        my ($st, $lo, $le) = run_prog($p, 'clobber', 2000, $x, 'lie');
        isnt($st, 0, "$k clobber $x lie: fails") or diag("$lo$le");
        like($lo, qr/^FAIL cf_double: arguments changed before the body: 2000 calls$/m,
            "$k: MCOUNT_HOOK_GENERAL_REGS with callbacks that change %xmm ($x): a double argument changed")
            or diag($lo);
        like($lo, qr/^FAIL cf_vector: arguments changed before the body: 2000 calls$/m,
            "$k: the same: a vector argument changed") or diag($lo);
        like($lo, qr/^FAIL cf_long_double: its value changed on the way back: 2000 calls$/m,
            "$k: the same, with exit callbacks: a long double's value (%st(0)) changed") or diag($lo)
            if $x eq 'all';
    }
}

# ---- gdb through a function's own trampoline ----
# (gdb stops at the fourth call, the first ones having gone through the C path while
# the thread had no buffer: mark <- mt_own_tramp <- hot <- caller <-
# main, and caller's %rbx as it kept it, which the trampoline had saved;
# odd: the same where GCC calls the function with the stack 8 bytes off
# the ABI's alignment, the trampoline's other frame)
{
    # (gdb is a dependency, scripts/deps/trace.list: missing, this fails)
    BAIL_OUT('gdb is not installed: run make deps') unless have('gdb');
    mcc_build('-pg -mfentry', "$dir/owncfi.o", "$TSRC/owncfi.c", '-O2', '-g', "-I$RTINC");
    my $p = link_prog("$dir/owncfi", "$dir/owncfi.o", $LIBA, '-lpthread');
    for my $case ([0, ''], [1, ''], [0, 'odd'], [1, 'odd']) {
        my ($fl, $odd) = @$case;
        my ($f, $c, $sp) = $odd ? ('odd', 'caller_odd', 8) : ('hot', 'caller', 0);
        my $k = "gdb, flags $fl" . ($odd ? ', misaligned call' : '');
        my ($st, $o, $e) = run_cmd(['timeout', '-k', '10', '120', 'gdb', '-q', '-batch', '-nx', '-ex',
            'break mark', '-ex', 'ignore 1 3', '-ex', "run $fl $odd", '-ex', 'bt', '-ex', 'frame 3', '-ex',
            'p/x $rbx', '-ex', 'p/x (long)$sp & 15', '-ex', 'kill', $p]);
        my @f = $o =~ /^#\d+\s+(?:0x[0-9a-f]+ in )?(\w+) /mg;
        is("@f[0..4]", "mark mt_own_tramp $f $c main",
            "$k: a backtrace from the callback through the own trampoline") or diag("$o$e");
        like($o, qr/^\$1 = 0x1234567893$/m, "$k: ${c}'s %rbx, saved by the trampoline") or diag("$o$e");
        like($o, qr/^\$2 = 0x$sp$/m, "$k: $c called $f with the stack $sp bytes off") or diag("$o$e");
        is($st, 0, "$k: exit status 0") or diag("$o$e");
        # (without gdb, which may fail to follow the threads' exit)
        my ($pst, $po, $pe) = run_prog($p, $fl, $odd || ());
        like($po, qr/^ok sum=15 hits=5 misaligned=0$/, "$k: the program's own answer, callbacks aligned")
            or diag("$pst $po$pe");
    }
}

# ---- the tracer beside the hooks ----
# (and beside hooks without exits: f3's site calls the hook while the
# tracer has it, the others their own trampolines)
for my $case (['function', ''], ['function_graph', ''], ['function', 'own']) {
    my ($tracer, $mode) = @$case;
    my $file = "$dir/trace-$tracer$mode.json";
    my $out = clean_run("tracer $tracer beside the hooks $mode", $prog{'fentry-static'}, 'count', 100, 0, $mode || (),
        { MCOUNT_TRACE_FILTER => 'f3', MCOUNT_TRACE_OUTPUT => $file, MCOUNT_TRACE_FORMAT => 'json',
          MCOUNT_TRACE_TRACER => $tracer });
    my ($own) = $out =~ /^own .*\bf3=(\d+)\b/m;
    ok($own, "$tracer: f3 counted its calls ($own)");
    my ($ev, $err) = $tracer eq 'function' ? read_json($file) : read_graph_json($file);
    is_deeply($err, [], "$tracer: the trace is well formed");
    my @lost = grep { exists $_->{lost} } @$ev;
    is(scalar @lost, 0, "$tracer: no event lost");
    my @entries = grep { exists $_->{func} } @$ev;
    my @other = grep { $_->{func} ne 'f3' } @entries;
    is(scalar @entries, $own, "$tracer: the trace's calls of f3 are f3's own count");
    is(scalar @other, 0, "$tracer: no other function traced") or diag("$other[0]{func}");
    if ($tracer eq 'function_graph') {
        my @exits = grep { exists $_->{exit} && !exists $_->{unwound} } @$ev;
        is(scalar @exits, $own, "function_graph: as many returns of f3");
    }
}

done_testing();
