# SPDX-License-Identifier: GPL-2.0-or-later
package A64Trace;
# The aarch64 guest of t/79-trace-system.t (its row of guests.tab; the
# check sets it names are SysTrace's, the rest is here).  What is checked:
# libmcount-trace on aarch64 (build/aarch64/), under full-system emulation:
# Debian's arm64 kernel booted by qemu-system-aarch64 (t/lib/QemuSystem.pm
# says why not qemu-user; the first job shows the machine runs code
# changed through /proc/self/mem, as the tracer changes it).
#
#  - The -finstrument-functions oracle of t/71: t/src/trace/oracle.c cross-
#    compiled with -pg and -finstrument-functions through mcount-cc; traced
#    with every function on, the trace is the __cyg_profile_func_enter log,
#    function and parent, event for event; names are nm's; the output is
#    that of a plain aarch64 build.  Preloaded (switched on at start-up;
#    the sites are `bl` to _mcount's PLT entry), and linked in as PIE and
#    -static (switched on from main by the C API: live, after a
#    constructor has already run leaf with its site a NOP).  With no
#    filter: no event.
#  - t/src/trace/sys/tear.c shows (a note, not a check) how often another
#    thread saw a 4-byte write through /proc/self/mem half made: with the
#    word 4-byte aligned, as every aarch64 instruction is, never in the
#    runs seen (why one store per site is enough, rt/arch-aarch64.c).
#  - Live switching under load (t/src/trace/toggle.c): threads run
#    hot_b/hot_a while main switches them on and off; no crash, every
#    event well formed and from a switched-on function with nm's address
#    and a parent in its caller; after each enable every worker's events
#    appear, after each disable (and the calls under way) none, in 8
#    rounds written out and 100 counted by the program; after each switch
#    the sites read as the library wrote them; the
#    program's own SIGTRAP handler gets its brk and raise() traps; the
#    output is that of a plain build.  The emulator can keep running a
#    block translated from a site's old bytes after the site was written
#    (toggle.c says when and why): events while the memory says `nop`,
#    before the program writes the page again, are counted and shown, not
#    failed; every event after that write is a failure.
#  - function_graph (entries, hijacked returns, the trampoline), against
#    GCC's -finstrument-functions enter and exit log (t/src/trace/
#    cyg_graph.c, TraceTest's graph_compare, as t/78 does on x86_64):
#    oracle.c PIE preloaded, PIE and -static linked in; hazards.c
#    (longjmp, siglongjmp, fork, backtrace, pthread_exit, cancellation:
#    frames left are marked unwound, never given an exit); unwind.cc's
#    C++ exceptions (through the unwinder's interposers); tailcall.cc (tail calls between traced functions,
#    which objdump must show) against the calls its source makes.
#  - Function events (SysTrace): t/src/trace/args.c's arguments against
#    its own log, built with -g at -O2 (moved into callee-saved
#    registers before the call to _mcount, the ninth on the caller's
#    stack: DW_OP_fbreg from the CFA of .eh_frame) and at -O0 (every one
#    in the frame); prototypes given and bare globs (DWARF's types), text,
#    JSON and function_graph; without -g, no arguments and one message.
#  - Lua 5.4 (Debian's source, built through mcount-cc) running a script
#    with every function traced, under each tracer (SysTrace's
#    lua_checks): its output unchanged, every event of a function nm
#    shows, and under function_graph every hooked call returns (none is left unhooked: each keeps a frame record).
#  - Hooks (mcount_hook(3), SysTrace's hooks): hooks.c built with -pg,
#    linked with the static library: the callbacks' counts against the
#    functions' own under 8 threads, register and unregister cycles,
#    longjmp through hooked frames, callbacks that change every register
#    a called function may (x0-x17, v0-v31 whole) around functions whose
#    arguments and values travel in d0-d7, q0-q7 (vectors, a long
#    double), x8 (a structure returned through memory); mcount_regs_arg
#    says ENOTSUP (the body moved the arguments before _mcount) and a
#    redirect ENOTSUP (the site is after the prologue); the errors.
#  - A second boot on -cpu max (pointer authentication, BTI): pac.c
#    shows a pac-ret frame record holds a signed return address there
#    (and not on the first boot's Cortex-A57); oracle.c built with
#    pac-ret runs under function_graph with no return hijacked, each
#    entry the function tracer's, matching the enter log; hooks.c's
#    functions built with pac-ret get an entry callback for each call
#    and no exit callback (on the Cortex-A57, whose signing is a NOP,
#    an exit for each), as mcount_hook(3) says.  bti.c: a br
#    to no landing pad dies in a library marked for BTI, and its traced
#    functions return through the trampoline into it.
#  - A -pg shared library beside its program, preloaded, bound lazily
#    and at start-up: every event of its functions (SysTrace's plug).
#  - -fpatchable-function-entry=2 (the compiler's own table, Linux's
#    arm64 form): oracle.c built with it and -finstrument-functions,
#    preloaded (the hook through a trampoline within 128 MB), with
#    -mbranch-protection=standard (bti c before the NOPs), and linked
#    in: two NOPs at each entry (objdump), the trace the enter log of
#    t/src/trace/cyg_graph.c, function and parent, names nm's.
use strict;
use warnings;
no warnings 'portable';    # 64-bit addresses through hex()
use Test::More;

use TestUtil qw($TOP must run_cmd slurp);
use TraceTest qw($TSRC $RTINC read_json nm_funcs func_at bias_of first_diff against_cyg read_cyg_graph read_graph_json);
use QemuSystem qw(sys_boot);
use SysTrace qw(entry_log_ok boot_checks mcc_cc job_files graph_checks %GRAPH_ENV);

my $MAXCPU = 'max,pauth-impdef=on';
my $PRE = '/lib/mt/libmcount-trace.so';
my ($DEPTH, $ROUNDS) = (900, 10);
my %pacdeep;

# guest(ROW): what SysTrace's guest_run takes of this guest.
sub guest {
    # name, compile flags, link flags, 'so' or 'a' (SysTrace)
    return { variants => [['pie-preloaded', [], [], 'so'], ['pie-linked', [], [], 'a'],
            ['static-linked', [], ['-static'], 'a']],
        # every function keeps a frame record (GCC's -pg on aarch64): all
        # hooked under lua
        lua_noexit => [],
        # hooks: _mcount after the prologue, which has moved the
        # arguments (mcount_regs_arg: ENOTSUP; no redirect); six
        # functions a clobber round (q0-q7 and x8 among their registers)
        hooks => [{ name => 'hooks', args => 'ENOTSUP', clobber => 6 }],
        jobs => \&jobs, checks => \&checks };
}

# tail calls, pointer authentication, BTI, arguments without DWARF
sub jobs {
    my ($c) = @_;
    my ($cc, $cxx, $dir, $files, $jobs) = @$c{qw(cc cxx dir files jobs)};
    # mcount-cc with the cross compiler
    my $mcc = sub {
        my ($out, $src, @cflags) = @_;
        return mcc_cc($cc, $out, @cflags, '-c', $src);
    };
    # tail calls between traced functions (no oracle log: -no-pie, nm's addresses as they are)
    mcc_cc($cxx, "$dir/tailcall.o", '-O2', '-c', "$TSRC/a64/tailcall.cc");
    mcc_cc($cxx, "$dir/tailcall", '-no-pie', "$dir/tailcall.o");
    must($cxx, '-O2', '-o', "$dir/tailcall-plain", "$TSRC/a64/tailcall.cc");
    $files->{"/$_"} = "$dir/$_" for qw(tailcall tailcall-plain);
    push @$jobs, { name => 'tailcall-plain', argv => ['/tailcall-plain'] },
        { name => 'tailcall', argv => ['/tailcall'], env => { %GRAPH_ENV, MCOUNT_TRACE_OUTPUT => '/tmp/tailcall.json' },
            files => ['/tmp/tailcall.json'] };

    # Pointer authentication: the probe says whether a pac-ret frame record
    # holds a signed return address (not on this boot's Cortex-A57; on the
    # second boot's -cpu max); there, oracle.c built with pac-ret must run
    # under function_graph with no return hijacked.
    must($cc, '-O2', '-mbranch-protection=pac-ret', '-fno-omit-frame-pointer', '-static', '-o', "$dir/pac",
        "$TSRC/a64/pac.c");
    $mcc->("$dir/oracle-pac.o", "$TSRC/oracle.c", '-O2', '-finstrument-functions', '-mbranch-protection=pac-ret');
    must($cc, '-o', "$dir/oracle-pac", "$dir/oracle-pac.o", "$dir/cygg.o");
    $files->{"/$_"} = "$dir/$_" for qw(pac oracle-pac);
    push @$jobs, { name => 'pac', argv => ['/pac'] };
    # A signature may be all zero bits (7 of them here: 1 in 128), and then
    # the saved x30 is the return address itself: pacdeep.c enters a pac-ret
    # function at 9,010 stack depths (each frame signed with its own stack
    # pointer), so that many are.  Traced under function_graph it must run
    # right; on the CPU with pointer authentication no frame is hijacked
    # (the library knows the function signs, from its prologue), on the
    # Cortex-A57 every one is (the signing instructions are NOPs there).
    $mcc->("$dir/pacdeep.o", "$TSRC/a64/pacdeep.c", '-O2', '-mbranch-protection=pac-ret');
    must($cc, '-o', "$dir/pacdeep", "$dir/pacdeep.o");
    $files->{'/pacdeep'} = "$dir/pacdeep";
    %pacdeep = (name => 'pacdeep', argv => ['/pacdeep', $DEPTH, $ROUNDS], env => { %GRAPH_ENV,
        MCOUNT_TRACE_FILTER => 'deep', MCOUNT_TRACE_BUFFER => 1 << 16, MCOUNT_TRACE_OUTPUT => '/tmp/pacdeep.json',
        MCOUNT_TRACE_RETVAL => 1 },
        files => ['/tmp/pacdeep.json']);
    push @$jobs, {%pacdeep};
    # hooks on pac-ret functions (hooks.c frames): every entry callback;
    # exit callbacks where the signing is a NOP (here), none where the
    # saved return address is signed (the second boot)
    mcc_cc($cc, "$dir/hooks-pac.o", '-O2', '-mbranch-protection=pac-ret', "-I$RTINC", '-c', "$TSRC/hooks.c");
    mcc_cc($cc, "$dir/hooks-pac", "$dir/hooks-pac.o", "$c->{lib}/libmcount-trace.a", '-lpthread');
    $files->{'/hooks-pac'} = "$dir/hooks-pac";
    push @$jobs, { name => 'hooks-pac', argv => ['/hooks-pac', 'frames', 100] };

    # Branch Target Identification: a library whose every input is marked
    # for it (bti.c), traced; the trampoline goes back into its guarded
    # text.  Its probe jumps with br to no landing pad: it lands here, and
    # dies of SIGILL on the second boot's CPU.
    $mcc->("$dir/bti.o", "$TSRC/a64/bti.c", '-O2', '-fPIC', '-mbranch-protection=bti');
    must($cc, '-shared', '-nostartfiles', '-o', "$dir/libbti.so", "$dir/bti.o");
    must($cc, '-O2', '-DBTI_MAIN', '-o', "$dir/bti", "$TSRC/a64/bti.c", "-L$dir", '-lbti', '-Wl,-rpath,/lib/mt');
    $files->{'/bti'} = "$dir/bti";
    $files->{'/lib/mt/libbti.so'} = "$dir/libbti.so";
    push @$jobs, { name => 'bti-probe', argv => ['/bti', 'probe'] };
    # -fpatchable-function-entry=2 (no -pg, no mcount-cc: the compiler's
    # own table), Linux's arm64 form: two NOPs at each entry, after a
    # bti c with -mbranch-protection=standard; preloaded, and linked in
    # (the hook within a bl's reach: no trampoline)
    for my $v (['pfe', [], 'so'], ['pfe-bti', ['-mbranch-protection=standard'], 'so'],
        ['pfe-linked', ['-DWITH_API', "-I$RTINC"], 'a']) {
        my ($n, $fl, $mode) = @$v;
        must($cc, '-O2', '-fpatchable-function-entry=2', '-finstrument-functions', @$fl, '-c', "$TSRC/oracle.c",
            '-o', "$dir/$n.o");
        must($cc, '-o', "$dir/$n", "$dir/$n.o", "$dir/cygg.o", $mode eq 'a' ? ("$c->{lib}/libmcount-trace.a",
            '-lpthread') : ());
        $files->{"/$n"} = "$dir/$n";
        push @$jobs, { name => $n, argv => ["/$n", 3], env => { CYG_LOG => "/tmp/$n.cyg",
            MCOUNT_TRACE_OUTPUT => "/tmp/$n.json", MCOUNT_TRACE_FORMAT => 'json',
            $mode eq 'a' ? (ORACLE_ENABLE => '*') : (LD_PRELOAD => $PRE, MCOUNT_TRACE_FILTER => '*') },
            files => ["/tmp/$n.cyg", "/tmp/$n.json"] };
    }
    # without debug information: traced without arguments, and told
    mcc_cc($cc, "$dir/args-nog.o", '-O2', '-c', "$TSRC/args.c");
    mcc_cc($cc, "$dir/args-nog", "$dir/args-nog.o");
    $files->{'/args-nog'} = "$dir/args-nog";
    push @$jobs, { name => 'args-nog', argv => ['/args-nog', 11, '/tmp/args-nog.log', 3],
        env => { LD_PRELOAD => '/lib/mt/libmcount-trace.so', MCOUNT_TRACE_EVENTS => 'ints(int a, long b)',
                 MCOUNT_TRACE_OUTPUT => '/tmp/args-nog.out', MCOUNT_TRACE_FORMAT => 'text', MCOUNT_TRACE_ARGS => '2' },
        files => ['/tmp/args-nog.out'] };
    return;
}

# the checks of the first boot's own jobs, and a second boot: a CPU
# with pointer authentication and BTI
sub checks {
    my ($c) = @_;
    my ($dir, $files, $r, $uout) = @$c{qw(dir files r uout)};
    # ---- a second boot: a CPU with pointer authentication and BTI ----
    my @mjobs = ({ name => 'pac', argv => ['/pac'] }, { name => 'plain', argv => ['/plain', 3] },
        { name => 'oracle-pac', argv => ['/oracle-pac', 3], env => { %GRAPH_ENV, CYG_LOG => '/tmp/oracle-pac.cyg',
            MCOUNT_TRACE_OUTPUT => '/tmp/oracle-pac.json' }, files => ['/tmp/oracle-pac.cyg', '/tmp/oracle-pac.json'] },
        { name => 'pie-preloaded-g', argv => ['/pie-preloaded-g', 3], env => { %GRAPH_ENV,
            CYG_LOG => '/tmp/pie-preloaded-g.cyg', MCOUNT_TRACE_OUTPUT => '/tmp/pie-preloaded-g.json' },
            files => ['/tmp/pie-preloaded-g.cyg', '/tmp/pie-preloaded-g.json'] },
        { name => 'bti-probe', argv => ['/bti', 'probe'] }, { name => 'bti-untraced', argv => ['/bti', 'run', 3] },
        {%pacdeep}, { name => 'hooks-pac', argv => ['/hooks-pac', 'frames', 100] },
        { name => 'bti', argv => ['/bti', 'run', 3], env => { %GRAPH_ENV, MCOUNT_TRACE_OUTPUT => '/tmp/bti.json' },
            files => ['/tmp/bti.json'] });
    my %mfiles = map { ($_ => $files->{$_}) } $PRE, '/lib/mt/libbti.so', map { $_->{argv}[0] } @mjobs;
    my $m = boot_checks("-cpu $MAXCPU: ", sub { sys_boot('aarch64', @_) }, files => \%mfiles, jobs => \@mjobs,
        timeout => $c->{guest}{timeout}, cpu => $MAXCPU);

    {
        my $j = $r->{'args-nog'} // {};
        is($j->{status}, 0, 'args-nog: exits 0');
        my @lines = split /\n/, $j->{stderr} // '';
        is(scalar(grep { /\Amcount-trace: args-nog: no DWARF information for ints\b.*: its arguments are not recorded\z/ }
            @lines), 1, 'args-nog: no DWARF information for ints, told once');
        is(scalar(grep { $_ eq 'mcount-trace: MCOUNT_TRACE_ARGS: raw argument words are not recorded on aarch64: give a '
            . 'prototype' } @lines), 1, 'args-nog: MCOUNT_TRACE_ARGS refused, told once');
        is(scalar(@lines), 2, 'args-nog: nothing else said') or diag $j->{stderr};
        my $f = job_files($dir, $j, 'args-nog');
        my $out = $f->{'/tmp/args-nog.out'} ? slurp($f->{'/tmp/args-nog.out'}) : '';
        my @ints = grep { /: ints/ } split /\n/, $out;
        ok(@ints && !grep({ /\(/ } @ints), 'args-nog: ints traced, without arguments (' . scalar(@ints) . ' calls)');
    }

    # -fpatchable-function-entry=2: each function's two NOPs at its
    # entry (objdump), the trace the -finstrument-functions enter log
    for my $v (['pfe', 0, 0], ['pfe-bti', 1, 0], ['pfe-linked', 0, 1]) {
        my ($n, $bti, $linked) = @$v;
        my ($st, $dis) = run_cmd(['aarch64-linux-gnu-objdump', '-d', "$dir/$n"]);
        my ($leaf) = $dis =~ /^[0-9a-f]+ <leaf>:\n((?:.*\n){3})/m;
        like($leaf // '', $bti ? qr/\tbti\tc\n.*\tnop\n.*\tnop\n/ : qr/\tnop\n.*\tnop\n/,
            "$n: leaf's entry is " . ($bti ? 'bti c, ' : '') . 'two NOPs (objdump)') or diag $leaf;
        entry_log_ok($dir, $r->{$n} // {}, $n, $uout, $linked);
    }

    # hooks on pac-ret functions: entries, and exits where not signed
    for my $b ([$r, 'Cortex-A57', 800], [$m, "-cpu $MAXCPU", 0]) {
        my ($res, $cpu, $exits) = @$b;
        my $j = $res->{'hooks-pac'} // {};
        is($j->{status}, 0, "$cpu: hooks-pac exits 0") or diag(($j->{stdout} // '') . ($j->{stderr} // ''));
        is($j->{stdout} // '', "ok frames rounds=100 calls=800 exits=$exits\n",
            "$cpu: hooks on pac-ret functions: an entry callback for each of 800 calls, "
            . ($exits ? 'and an exit (the signing is a NOP)' : 'no exit (the return address is signed)'));
    }

    {
        my $p = $r->{'tailcall-plain'} // {};
        my $j = $r->{tailcall} // {};
        like($p->{stdout} // '', qr/\Acaught boom\nresult -?\d+\n\z/, 'tailcall.cc, plain build: caught and computed');
        is($j->{status}, 0, 'tailcall.cc: exits 0 under function_graph') or diag $j->{stderr};
        is($j->{stderr}, '', 'tailcall.cc: the library says nothing');
        is($j->{stdout}, $p->{stdout}, 'tailcall.cc: the output of the plain build');
        # the compiler made each tail call (else there is nothing to test)
        my ($st, $dis) = run_cmd(['aarch64-linux-gnu-objdump', '-d', "$dir/tailcall"]);
        my %tail;
        my $in = '';
        for (split /\n/, $dis) {
            $in = $1 if /\A[0-9a-f]+ <(\S+)>:\z/;
            $tail{$in} = $1 if /\tb\t[0-9a-f]+ <(_Z\w+)>\z/;
        }
        my %calls = (_Z10caller_bigi => '_Z12callee_smalli', _Z12caller_smalli => '_Z10callee_bigi',
            _Z11thrower_bigi => '_Z12throws_smalli');
        is_deeply({ map { ($_ => $tail{$_}) } keys %calls }, \%calls,
            'tailcall.cc: objdump shows the three tail calls (a b to the callee)');
        my $f = job_files($dir, $j, 'tailcall');
        my ($ev, $errs) = $f->{'/tmp/tailcall.json'} ? read_graph_json($f->{'/tmp/tailcall.json'}) : ([], ['no trace']);
        is_deeply($errs, [], 'tailcall.cc: every trace line is a well-formed event');
        # The calls as the source makes them; a tail call's callee returns
        # for its caller (the caller's exit follows), the frames the throw
        # leaves are unwound.
        my @want = map { my ($d, $n) = split / /; "$d _Z" . length($n) . "${n}i" } (
            '> caller_big', '> callee_small', '> leaf', '< leaf', '< callee_small', '< caller_big',
            '> caller_small', '> callee_big', '> leaf', '< leaf', '< callee_big', '< caller_small',
            '> thrower_big', '> throws_small', '> boom', '<~ boom', '<~ throws_small', '<~ thrower_big',
            '> leaf', '< leaf',
            '> caller_big', '> callee_small', '> leaf', '< leaf', '< callee_small', '< caller_big');
        my %tailed = reverse %calls;
        my $syms = nm_funcs("$dir/tailcall");
        my (@got, @bad, @open, %parent);
        for my $e (@$ev) {
            my $fn = func_at($syms, hex $e->{addr});
            my $n = $fn ? $fn->[2] : $e->{addr};
            next if $n eq 'main';
            if (exists $e->{exit}) {
                push @got, ($e->{unwound} ? '<~ ' : '< ') . $n;
                pop @open;
                next;
            }
            push @got, "> $n";
            $parent{$n} = $e->{parent_addr};
            my $pf = func_at($syms, hex $e->{parent_addr});
            my $pn = $pf ? $pf->[2] : $e->{parent_addr};
            # a tail-called function's parent is its caller's (an address in
            # main); any other's is in the function that called it
            if (my $c = $tailed{$n}) {
                push @bad, "$n: parent $e->{parent_addr} ($pn), ${c}'s " . ($parent{$c} // 'none')
                    unless ($parent{$c} // '') eq $e->{parent_addr} && $pn eq 'main';
            } else {
                my $up = @open ? $open[-1] : 'main';
                push @bad, "$n: parent $pn, called from $up" unless $pn eq $up;
            }
            push @open, $n;
        }
        is(first_diff(\@got, \@want), '', 'tailcall.cc: the calls and returns the source makes, event for event');
        is_deeply(\@bad, [], 'tailcall.cc: each parent is the caller\'s; a tail-called function\'s its caller\'s (in main)');
    }

    # ---- pointer authentication (the second boot) ----
    is($r->{pac}{stdout}, "pac off\n", 'Cortex-A57: the probe finds a pac-ret frame\'s return address unsigned');
    is($m->{pac}{stdout}, "pac on\n", "-cpu $MAXCPU: the probe finds it signed");
    graph_checks($m, dir => $dir, variants => [$c->{variants}[0]], graph => 1, want_out => $uout);
    is($m->{plain}{stdout}, $uout, "-cpu $MAXCPU: the plain program's output");
    {
        my $j = $m->{'oracle-pac'} // {};
        is($j->{status}, 0, 'pac-ret: exits 0 under function_graph') or diag $j->{stderr};
        is($j->{stderr}, '', 'pac-ret: the library says nothing');
        is($j->{stdout}, $uout, 'pac-ret: the output of the plain build');
        my $f = job_files($dir, $j, 'oracle-pac');
        my ($ev, $errs) = $f->{'/tmp/oracle-pac.json'} ? read_json($f->{'/tmp/oracle-pac.json'}) : ([], ['no trace']);
        # an exit, or an entry marked for one, is no event of the function tracer
        is_deeply($errs, [], 'pac-ret: every event an entry as the function tracer writes it: no return hijacked');
        is(scalar(grep { !exists $_->{lost} && !$_->{noexit} } @$ev), 0,
            'pac-ret: and each entry says no exit will follow ("noexit":true)');
        my $syms = nm_funcs("$dir/oracle-pac");
        my ($main_at, $log) = $f->{'/tmp/oracle-pac.cyg'} ? read_cyg_graph($f->{'/tmp/oracle-pac.cyg'}) : (0, []);
        my @enter = map { [$_->[1], $_->[2]] } grep { $_->[0] eq '>' } @$log;
        my ($want, $got, $names) = against_cyg($syms, bias_of($syms, 'main', $main_at), \@enter, $ev, 0);
        cmp_ok(scalar @$want, '>', 30, 'pac-ret: the program entered ' . scalar(@$want) . ' functions');
        is(first_diff($got, $want), '', 'pac-ret: the entries are the -finstrument-functions enter log, '
            . 'function and parent (the real return address), event for event');
        is_deeply($names, [], 'pac-ret: each event\'s function and parent are nm\'s');
    }

    # pacdeep: what deep() returns, added up (deep(n, acc) = acc + n(n+1)/2 + n,
    # round i: deep(DEPTH, i)), and its calls: DEPTH + 1 a round.
    {
        my ($sum, $calls) = (0, 0);
        for my $i (0 .. $ROUNDS - 1) {
            $sum += $i + $DEPTH * ($DEPTH + 1) / 2 + $DEPTH;
            $calls += $DEPTH + 1;
        }
        for my $c ([$r, 'Cortex-A57', 1], [$m, "-cpu $MAXCPU", 0]) {
            my ($res, $cpu, $hooked) = @$c;
            my $j = $res->{pacdeep} // {};
            is($j->{status}, 0, "pacdeep, $cpu: exits 0 under function_graph") or diag $j->{stderr};
            is($j->{stdout}, "$sum\n", "pacdeep, $cpu: prints the sum");
            is($j->{stderr}, '', "pacdeep, $cpu: the library says nothing");
            my $f = job_files($dir, $j, "pacdeep-$cpu");
            my $data = $f->{'/tmp/pacdeep.json'} ? slurp($f->{'/tmp/pacdeep.json'}) : '';
            my @l = split /\n/, $data;
            my $entries = grep { /"func":"deep"/ } @l;
            my $exits = grep { /"exit":"deep"/ } @l;
            is($entries, $calls, "pacdeep, $cpu: an entry for each of the $calls calls");
            is($exits, $hooked ? $calls : 0, "pacdeep, $cpu: " . ($hooked ? 'every' : 'no') . ' return hijacked');
            next unless $hooked;
            # the returns, innermost first: round i's deep(0, acc) returns
            # i + DEPTH(DEPTH+1)/2, each caller that plus one more
            my @want;
            for my $i (0 .. $ROUNDS - 1) {
                push @want, map { sprintf '0x%x', $i + $DEPTH * ($DEPTH + 1) / 2 + $_ } 0 .. $DEPTH;
            }
            my @got = map { /"exit":"deep".*"retval":"(0x[0-9a-f]+)"/ ? $1 : () } @l;
            is(first_diff(\@got, \@want), '', "pacdeep, $cpu: each return's value is what deep() returns (x0)");
        }
    }

    # ---- BTI (the second boot) ----
    {
        my ($st, $notes) = run_cmd(['readelf', '-nW', "$dir/libbti.so"]);
        like($notes, qr/AArch64 feature: BTI/, 'bti: the traced library is marked for BTI (every input is)');
        is($r->{'bti-probe'}{stdout}, "bti off\n", 'Cortex-A57: the probe\'s br to no landing pad lands');
        my $pr = $m->{'bti-probe'} // {};
        is(($pr->{status} // 0) & 127, 4, "-cpu $MAXCPU: the probe's br to no landing pad is a SIGILL (guarded)")
            or diag "status $pr->{status}, stdout $pr->{stdout}";
        my $u = $m->{'bti-untraced'} // {};
        my $j = $m->{bti} // {};
        like($u->{stdout} // '', qr/\Aresult \d+\nbleaf 0x[0-9a-f]+\n\z/, 'bti, untraced: it computes');
        is($j->{status}, 0, 'bti: exits 0 under function_graph') or diag $j->{stderr};
        is($j->{stderr}, '', 'bti: the library says nothing');
        my ($res, $where) = ($j->{stdout} // '') =~ /\A(result \d+\n)bleaf (0x[0-9a-f]+)\n\z/;
        is($res, ($u->{stdout} // '') =~ /\A(result \d+\n)/ ? $1 : '', 'bti: the result of the untraced run');
        my $f = job_files($dir, $j, 'bti');
        my ($ev, $errs) = $f->{'/tmp/bti.json'} ? read_graph_json($f->{'/tmp/bti.json'}) : ([], ['no trace']);
        is_deeply($errs, [], 'bti: every trace line is a well-formed event');
        my $syms = nm_funcs("$dir/libbti.so");
        my $bias = bias_of($syms, 'bleaf', hex($where // 0));
        my @got = map { my $fn = func_at($syms, hex($_->{addr}) - $bias);
            (exists $_->{exit} ? '< ' : '> ') . ($fn ? $fn->[2] : $_->{addr}) } grep { !exists $_->{lost} } @$ev;
        # bti_run(3) as the source makes its calls, each returning through the trampoline
        my @want = ('> bti_run', (map { ('> bmid', '> bleaf', '< bleaf', '> bleaf', '< bleaf', '< bmid') } 1 .. 3),
            '< bti_run');
        is(first_diff(\@got, \@want), '', 'bti: every call and return, back into the guarded library');
    }

    return;
}

1;
