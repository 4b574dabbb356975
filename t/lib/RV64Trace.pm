# SPDX-License-Identifier: GPL-2.0-or-later
package RV64Trace;
# The riscv64 guest of t/79-trace-system.t (its row of guests.tab; the
# check sets it names are SysTrace's, the rest is here).  What is checked:
# libmcount-trace on riscv64 (build/riscv64/), under full-system
# emulation: Debian's riscv64 kernel booted by qemu-system-riscv64
# through OpenSBI (t/lib/QemuSystem.pm says why not qemu-user).
#
#  - The machine runs code changed through /proc/self/mem, as the tracer
#    changes it (t/src/trace/sys/smc.c: a function's first instruction
#    rewritten twice through /proc/self/mem, its page never writable,
#    the instruction cache synced by riscv_flush_icache): "f 1 2 3";
#    under qemu-riscv64 the same program prints "f 1 1 1".  tear.c shows
#    (a note, not a check) how often another thread reads such a 4-byte
#    write half made, at a 4-aligned and at a 2-aligned address.
#  - A dynamically linked riscv64 program (t/src/trace/oracle.c, -O2, no
#    tracer) runs in the guest through the dynamic linker and C library
#    the initramfs lays out as Debian does, and its output and exit
#    status are those of the same program under qemu-riscv64 with the
#    cross C library: an outside oracle that the boot, the dynamic
#    linking and the console capture work.  Run again with a library
#    (t/src/trace/plug.c) preloaded from /lib/mt/: the dynamic linker
#    says it loaded and initialised it (LD_DEBUG=files).
#  - The -finstrument-functions oracle (t/lib/SysTrace.pm): oracle.c
#    built through mcount-cc, traced with every function on, gives the
#    enter log event for event.  Both forms of a site: per-object tables
#    (mcount-cc links without relaxation: auipc ra + jalr ra) and
#    link-time mode (a relaxing link: jal ra), which objdump shows;
#    preloaded (through _mcount's PLT entry), linked in as PIE and
#    -static (switched on live from main by the C API).
#  - function_graph (SysTrace) where functions keep a frame pointer:
#    oracle.c against its enter and exit log, preloaded, linked in and
#    static; the variadic sum_va, whose return the library cannot find,
#    says noexit.  hazards.c and unwind.cc built the same way: longjmp,
#    siglongjmp, fork, backtrace, pthread_exit, cancellation and C++
#    exceptions through hijacked frames.
#  - Live switching under load (t/src/trace/toggle.c, SysTrace): threads
#    run the functions whose sites main switches on and off through the
#    library's fenced pages (rt/patch.c); no crash, every event well
#    formed, events after each enable, none after each disable; the
#    program's own SIGTRAP handler gets its ebreak and raise(), and its
#    own SIGSEGV handler each fault of a worker that writes to a
#    read-only page while the library's SIGSEGV handler is installed.
#  - Function events (SysTrace): t/src/trace/args.c's arguments against
#    its own log, built with -g at -O2 (moved into callee-saved
#    registers, or only "the entry value of a0" to DWARF, which the
#    library follows through the prologue's copies; the ninth on the
#    caller's stack) and at -O0 (the frame base from .debug_frame: GCC
#    writes no .eh_frame for C here); prototypes given and bare globs,
#    text, JSON and function_graph.
#  - Lua 5.4 (Debian's source, built through mcount-cc) running a script
#    with every function traced, under each tracer (SysTrace's
#    lua_checks): its output unchanged, every event of a function nm
#    shows, and under function_graph every hooked call returns (built with frame pointers).
# Everything runs in one boot: a check of another program is one more
# job in @jobs, its files in %files, and its checks after the boot.
#  - A -pg shared library beside its program, preloaded, bound lazily
#    and at start-up: every event of its functions (SysTrace's plug).
#  - Table entries that are no calls to the hook (riscv64/badsite.S),
#    one of them a call to a function named _mcount two bytes into a
#    4-byte instruction: each refused with a message, never written.
#  - The preloaded program stripped: no symbol and no .eh_frame for its
#    functions (GCC writes none for riscv64 C), every site still taken.
#  - Hooks (mcount_hook(3), SysTrace's hooks): hooks.c built with -pg
#    and frame pointers (whose returns the library hooks), linked with
#    the static library: the callbacks' counts against the functions'
#    own under 8 threads, register and unregister cycles, longjmp
#    through hooked frames, callbacks that change every register a
#    called function may (t0-t6, a0-a7, ft0-ft11, fa0-fa7) around
#    functions whose arguments and values travel in fa0-fa7 and a0-a7
#    (eight doubles, a pair back in fa0 and fa1; eight words, a pair
#    back in a0 and a1), a quad-precision long double, aggregates in
#    memory and a variadic call (whose return is not hooked: s0 is not
#    its CFA, so an entry callback alone); mcount_regs_arg says ENOTSUP
#    (the body moved the arguments before _mcount) and a redirect
#    ENOTSUP (the site is after the prologue); the errors.  Built
#    without frame pointers (hooks.c frames): an entry callback for
#    every call and no exit callback.
#  - -fpatchable-function-entry=4 (the compiler's own table; four c.nop
#    at each entry, made `auipc t0; nop` once, the nop switched to
#    `jalr t0`): oracle.c built with it and -finstrument-functions,
#    preloaded and linked in: the trace the enter log of
#    t/src/trace/cyg_graph.c, function and parent, names nm's.
use strict;
use warnings;
use Test::More;

use TestUtil qw($TOP must run_cmd);
use SysTrace qw(entry_log_ok mcc_cc job_files);
use TraceTest qw($RTINC $TSRC read_json nm_funcs bias_of first_diff against_cyg read_cyg_graph);

# the library the preload job loads: the plug set's -pg shared library
my $PRE = '/lib/mt/libplug.so';

# guest(ROW): what SysTrace's guest_run takes of this guest.
sub guest {
    # name, compile flags, link flags, 'so' or 'a', job env, mcount-cc env
    my %LINK = (MCOUNT_CC_MODE => 'link');
    # (function_graph: the programs that keep a frame pointer, whose return
    # addresses the library can find and hijack; SysTrace, rt.h)
    my @FP = ('-fno-omit-frame-pointer');
    return { variants => [['pie-preloaded', [], [], 'so'], ['pie-linked', [], [], 'a'],
            ['static-linked', [], ['-static'], 'a'], ['link-preloaded', [], [], 'so', {}, \%LINK],
            ['link-static', [], ['-static'], 'a', {}, \%LINK], ['fp-preloaded', \@FP, [], 'so', {}, {}, 1],
            ['fp-linked', \@FP, [], 'a', {}, {}, 1], ['fp-link-static', \@FP, ['-static'], 'a', {}, \%LINK, 1]],
        # function_graph for the frame-pointer variants only (their 1)
        graph_all => 0, hazards_cflags => \@FP,
        # a real program nobody here wrote, with frame pointers (function_graph)
        lua_cflags => \@FP,
        # sum_va, variadic, saves its argument registers at the top of its
        # frame and points s0 below them, not at the CFA: its return-address
        # slot is not just below its caller's sp, where the trampoline would
        # look
        graph_noexit => ['sum_va'],
        # table entries that are no calls to the hook, or not at an
        # instruction (bad_more1's entry is a call to a function named
        # _mcount, two bytes into a 4-byte instruction: --verify says the
        # same of it, from objdump); the program stripped (no symbol, no
        # .eh_frame for its functions: where its instructions start is read
        # back from each site)
        refused => [['bad_local', 'a call to something other than the hook'],
            ['bad_stub', 'a call to something other than the hook'], ['bad_next', 'an auipc ra not followed by jalr ra'],
            ['bad_word', 'not a call instruction'],
            ['bad_more1', 'not at the start of an instruction (decoded back from it)']],
        # hooks: _mcount after the prologue, which has moved the
        # arguments (mcount_regs_arg: ENOTSUP; no redirect); frame
        # pointers, for the exit callbacks; seven functions a clobber
        # round (fa0-fa7 and a0-a7 among their registers)
        hooks => [{ name => 'hooks', cflags => \@FP, args => 'ENOTSUP', clobber => 7 }],
        jobs => \&jobs, forms => \&forms, checks => \&checks };
}

# the plain program with a library preloaded (LD_DEBUG=files)
sub jobs {
    my ($c) = @_;
    push @{ $c->{jobs} }, { name => 'preload', argv => ['/plain', 3], env => { LD_PRELOAD => $PRE, LD_DEBUG => 'files' } };
    # hooks on functions without a frame pointer (hooks.c frames), whose
    # returns the library cannot find: an entry callback each, no exit
    my $dir = $c->{dir};
    mcc_cc($c->{cc}, "$dir/hooks-nofp.o", '-O2', "-I$RTINC", '-c', "$TSRC/hooks.c");
    mcc_cc($c->{cc}, "$dir/hooks-nofp", "$dir/hooks-nofp.o", "$c->{lib}/libmcount-trace.a", '-lpthread');
    $c->{files}{'/hooks-nofp'} = "$dir/hooks-nofp";
    push @{ $c->{jobs} }, { name => 'hooks-nofp', argv => ['/hooks-nofp', 'frames', 100] };
    # -fpatchable-function-entry=4 (no -pg, no mcount-cc: the compiler's
    # own table; four c.nop at each entry), preloaded and linked in
    for my $v (['pfe', [], 'so'], ['pfe-linked', ['-DWITH_API', "-I$RTINC"], 'a']) {
        my ($n, $fl, $mode) = @$v;
        must($c->{cc}, '-O2', '-fpatchable-function-entry=4', '-finstrument-functions', @$fl, '-c',
            "$TSRC/oracle.c", '-o', "$dir/$n.o");
        must($c->{cc}, '-o', "$dir/$n", "$dir/$n.o", "$dir/cygg.o",
            $mode eq 'a' ? ("$c->{lib}/libmcount-trace.a", '-lpthread') : ());
        $c->{files}{"/$n"} = "$dir/$n";
        push @{ $c->{jobs} }, { name => $n, argv => ["/$n", 3], env => { CYG_LOG => "/tmp/$n.cyg",
            MCOUNT_TRACE_OUTPUT => "/tmp/$n.json", MCOUNT_TRACE_FORMAT => 'json',
            $mode eq 'a' ? (ORACLE_ENABLE => '*')
                : (LD_PRELOAD => '/lib/mt/libmcount-trace.so', MCOUNT_TRACE_FILTER => '*') },
            files => ["/tmp/$n.cyg", "/tmp/$n.json"] };
    }
    return;
}

# (tear.c's notes, the machine set's: why the library fences pages,
# rt/arch-riscv64.c)
sub forms {
    my ($c) = @_;
    my ($dir, $r, $uout, $ust) = @$c{qw(dir r uout ust)};
    my $q = $r->{preload} // {};
    is($q->{status}, $ust, "with $PRE preloaded it exits the same") or diag $q->{stderr} // '';
    is($q->{stdout}, $uout, 'and prints the same');
    like($q->{stderr} // '', qr{calling init: \Q$PRE\E}, "the dynamic linker loaded and initialised $PRE")
        or diag $q->{stderr} // '';

    # ---- the tracer: the oracle, both forms of a site ----
    # objdump's view of each variant's calls to the hook: the relaxed `jal`
    # or the pair (whose jalr objdump annotates with the target).
    for my $v (@{ $c->{variants} }) {
        my ($name, undef, undef, undef, undef, $ccenv) = @$v;
        my ($dst, $dis) = run_cmd(['riscv64-linux-gnu-objdump', '-d', "$dir/$name"]);
        my %form;
        for (split /\n/, $dis) {
            $form{jal}++ if /\tjal\s+\S+ <_?mcount(?:\@plt)?>/;
            $form{pair}++ if /\tjalr\s+(?:ra|-?\d+\(ra\)) # \S+ <_?mcount(?:\@plt)?>/;
        }
        my $link = %{ $ccenv // {} } ? 1 : 0;
        my $want = $link ? 'jal' : 'pair';
        ok($form{$want} && $form{$want} >= 8 && !$form{ $want eq 'jal' ? 'pair' : 'jal' },
            "$name: objdump shows its sites as " . ($link ? 'jal ra (a relaxing link)' : 'auipc ra + jalr ra')
            . ' (' . join(', ', map { "$_ $form{$_}" } sort keys %form) . ')');
    }
    return;
}

sub checks {
    my ($c) = @_;
    my $dir = $c->{dir};
    my $h = $c->{r}{'hooks-nofp'} // {};
    is($h->{status}, 0, 'hooks-nofp exits 0') or diag(($h->{stdout} // '') . ($h->{stderr} // ''));
    is($h->{stdout} // '', "ok frames rounds=100 calls=800 exits=0\n",
        'hooks on functions without a frame pointer: an entry callback for each of 800 calls, no exit');
    my ($st, undef, $err) = run_cmd([$^X, "$TOP/bin/mcount-record", '--verify', "$dir/badsite"]);
    like($err, qr/^mcount-record: \S+: 0x[0-9a-f]+ bad_more1\+0xa\/0x[0-9a-f]+: entry is not at the start of an instruction \(it is 2 bytes into the instruction at 0x[0-9a-f]+\)$/m,
        'badsite: mcount-record --verify: bad_more1\'s entry is 2 bytes into an instruction') or diag $err;
    # -fpatchable-function-entry=4: four c.nop at each entry (objdump),
    # the trace the -finstrument-functions enter log
    for my $v (['pfe', 0], ['pfe-linked', 1]) {
        my ($n, $linked) = @$v;
        my (undef, $dis) = run_cmd(['riscv64-linux-gnu-objdump', '-d', "$dir/$n"]);
        my ($leaf) = $dis =~ /^[0-9a-f]+ <leaf>:\n((?:.*\n){5})/m;
        like($leaf // '', qr/\A(?:.*\b0001\s+nop\n){4}/, "$n: leaf's entry is four c.nop (objdump)") or diag $leaf;
        entry_log_ok($dir, $c->{r}{$n} // {}, $n, $c->{uout}, $linked);
    }
    return;
}

1;
