# SPDX-License-Identifier: GPL-2.0-or-later
package Sparc64Trace;
# The sparc64 guest of t/79-trace-system.t (its row of guests.tab; the
# check sets it names are SysTrace's, the rest is here).  What is checked:
# libmcount-trace on sparc64 (build/sparc64/), under full-system
# emulation: a kernel built from Debian's linux-source-6.1 for
# qemu-system-sparc64's sun4u machine (scripts/build-kernel sparc64:
# Debian 12 ships no sparc64 kernel), one CPU.
#
#  - The shared library has no PLT (rt/noplt.h), so no LOAD segment both
#    writable and executable: sparc64's PLT is code the dynamic linker
#    writes.
#  - The machine runs code changed through /proc/self/mem, as the tracer
#    changes it (t/src/trace/sys/smc.c); qemu-sparc64 does not.
#  - A dynamically linked sparc64 program runs in the guest as under
#    qemu-sparc64 with the cross C library.
#  - The -finstrument-functions oracle: oracle.c built through mcount-cc,
#    preloaded (its sites call the PLT entry of _mcount, which the
#    dynamic linker binds to the library's, lazily (PIE) or at once
#    (non-PIE, LD_BIND_NOW)) or linked
#    in (PIE, non-PIE and -static, switched on live from main by the C
#    API): the trace is the enter log, event for event; with no filter,
#    no event.  objdump shows every site as `call _mcount` (or its PLT
#    entry) after the function's save.
#  - A stripped program: its sites and the PLT entry found without a
#    symbol.
#  - A -pg shared library (t/src/trace/plug.c) beside a program that
#    calls it: its sites call its own PLT entry of _mcount, bound lazily
#    or at start-up; in the guest and under qemu-sparc64.
#  - Table entries that are no calls to the hook
#    (t/src/trace/sparc64/badsite.S), among them a call of _mcount with
#    no save before it and a call through another function's PLT entry:
#    each refused with a message, never written.
#  - Live switching under load (t/src/trace/toggle.c), -static and with
#    the shared library: each site one
#    aligned word (call <-> nop); no crash, every event well formed,
#    events after each enable, none after each disable; the program's
#    own SIGTRAP and SIGSEGV handlers get their signals.
#  - function_graph: the return address is the function's %i7 in the
#    save area flushw wrote (rt.h); oracle.c against its enter and exit
#    log, and hazards.c and unwind.cc (longjmp, siglongjmp, fork,
#    backtrace, pthread_exit, cancellation, C++ exceptions).
#  - Function events: args.c's arguments in the function's %i0-%i5 and
#    its caller's argument area, against args.c's own log, -O2 and -O0.
#  - Lua 5.4 built through mcount-cc with every function traced.
#  - Hooks (mcount_hook(3), SysTrace's hooks): hooks.c linked with the
#    static library, -pg (_mcount after the function's save: its
#    arguments are its window's %i0-%i5, which mcount_regs_arg reads, and
#    the caller's argument area: cf_xregs's eight words, read in each
#    clobber round); its clobber round has eight functions, the return
#    trampoline keeping %o0-%o3 and %f0-%f7 (cf_quad's four doubles back
#    in %d0-%d6, cf_long_double's in %q0) and cf_d16's sixteen doubles
#    in %d0-%d30 on the way in; no redirect (ENOTSUP).
# Everything runs in one boot.
use strict;
use warnings;
use Test::More;

use TestUtil qw(must run_cmd slurp);
use SysTrace qw(plug_trace_is);

# guest(ROW): what SysTrace's guest_run takes of this guest.
sub guest {
    # name, compile flags, link flags, 'so' or 'a'; each also under
    # function_graph
    return { variants => [['pie-preloaded', [], [], 'so'], ['nopie-preloaded', ['-fno-pie'], ['-no-pie'], 'so',
            { LD_BIND_NOW => 1 }], ['pie-linked', [], [], 'a'], ['nopie-linked', ['-fno-pie'], ['-no-pie'], 'a'],
            ['static-linked', [], ['-static'], 'a']],
        # live switching, one word a site: -static, and with the shared library
        toggles => [{}, { name => 'toggle-so', shared => 1 }],
        # function events at -O2 by DWARF, at -O0 by prototypes
        args => [{ name => 'args', cflags => ['-g'], dwarf => 1 }, { name => 'args-O0', cflags => ['-g', '-O0'] }],
        # hooks (SysTrace's): the five common functions, cf_fregs,
        # cf_xregs and cf_d16 a clobber round
        hooks => [{ name => 'hooks', clobber => 8 }],
        # entries that are no calls to the hook: refused, never written
        refused => [['bad_local', 'a call to something other than the hook'],
            ['bad_stub', "a call with no save before it (the hook needs the function's register window)"],
            ['bad_next', 'a NOP already (another tool changed it)'], ['bad_word', 'not a call instruction'],
            ['bad_more1', "a call through a PLT entry that is not the hook's"]],
        forms => \&forms, checks => \&checks };
}

# the site forms objdump shows
sub forms {
    my ($c) = @_;
    my $dir = $c->{dir};
    # ---- the tracer: the oracle ----
    # objdump's view of each variant's calls to the hook: `call _mcount`
    # (preloaded: its PLT entry), with the function's save before it (no
    # return in between).
    for my $v (@{ $c->{variants} }) {
        my ($name, undef, undef, $mode) = @$v;
        my $to = $mode eq 'so' ? '_mcount@plt' : '_mcount';
        my ($dst, $dis) = run_cmd([$c->{objdump}, '-d', "$dir/$name"]);
        my (%form, $saved);
        for (split /\n/, $dis) {
            $saved = 0, next if /\A[0-9a-f]+ <[^>]+>:\z/;
            next unless /\A\s*[0-9a-f]+:\s+(?:[0-9a-f]{2} ){4}\s*(\S+)\s*(.*)/;
            my ($op, $rest) = ($1, $2);
            $saved = 1 if $op eq 'save' && $rest =~ /\A%sp, \S+, %sp\z/;
            $saved = 0 if $op eq 'ret' || $op eq 'retl' || $op eq 'return';
            $form{ $saved ? "save; call $1" : "call $1, no save" }++ if $op eq 'call' && $rest =~ /<(_mcount(?:\@plt)?)>/;
        }
        ok($form{"save; call $to"} && $form{"save; call $to"} >= 8 && keys %form == 1,
            "$name: objdump shows its sites as save; call $to ("
            . join(', ', map { "$_ $form{$_}" } sort keys %form) . ')');
    }
    return;
}

# the library without a PLT; the forms of a bound PLT entry and the
# plug set's programs under qemu-sparc64
sub checks {
    my ($c) = @_;
    my ($dir, $LIB, $CC) = @$c{qw(dir lib cc)};
    my ($QEMU_USER, $SYSROOT) = @{ $c->{guest} }{qw(qemu_user sysroot)};
    # ---- the shared library: no PLT, so nothing writable and executable ----
    my ($pst, $ph) = run_cmd(['sparc64-linux-gnu-readelf', '-lSW', "$LIB/libmcount-trace.so"]);
    my @load = grep { /\A\s*LOAD\s/ } split /\n/, $ph // '';
    ok(@load >= 2 && !grep({ /\sRWE\s/ } @load), 'libmcount-trace.so: no LOAD segment writable and executable ('
        . scalar(@load) . ' LOAD segments)');
    unlike($ph, qr/\s\.plt\s/, 'libmcount-trace.so: no .plt (rt/noplt.h)');

    # ---- each form of a bound PLT entry (qemu-sparc64) ----
    # glibc's dynamic linker binds the PLT entry of _mcount by one of five
    # forms, by where the library is (doc/architectures.md); the guest sees
    # an unbound entry (lazily bound PIE) and the far form (non-PIE with
    # BIND_NOW, the library at 0xfff8...).  The others, under qemu-sparc64,
    # with the library linked where each applies and every entry bound at
    # start-up: the sites are written before any of them runs, which
    # qemu-user does see.  (Each placement gives its form: with the reading
    # of that form taken out of rt/arch-sparc64.c, its run refuses every
    # site, "a call through a PLT entry of a form not known".)
    my @objs = glob "$LIB/rt/so/*.o";
    ok(@objs >= 10, 'the shared library\'s objects (' . scalar(@objs) . ') in build/sparc64/rt/so');
    for my $f (['ba,a,pt %icc (within 1 MiB)', 'nopie-preloaded', '0x320000'],
        ['ba,a (within 8 MiB)', 'nopie-preloaded', '0x800000'],
        ['sethi; jmp (below 4 GiB)', 'nopie-preloaded', '0x40000000'],
        ['mov %o7; call; mov (within 2 GiB)', 'pie-preloaded', undef]) {
        my ($form, $prog, $at) = @$f;
        my $so = "$dir/at-" . ($at // 'any') . '.so';
        must($CC, '-shared', '-Wl,-z,now', '-nostartfiles', '-Wl,-Bsymbolic-functions',
            defined $at ? ("-Wl,-Ttext-segment=$at", '-Wl,-z,max-page-size=0x2000') : (), '-o', $so, @objs, '-lpthread');
        unlink "$dir/form.json", "$dir/form.cyg";
        my ($st, $out, $err) = run_cmd(['timeout', '120', $QEMU_USER, '-L', $SYSROOT, '-E', "LD_PRELOAD=$so",
            '-E', 'LD_BIND_NOW=1', '-E', 'MCOUNT_TRACE_FILTER=*', '-E', 'MCOUNT_TRACE_FORMAT=json',
            '-E', "MCOUNT_TRACE_OUTPUT=$dir/form.json", '-E', "CYG_LOG=$dir/form.cyg", "$dir/$prog", 3]);
        my $events = () = (-e "$dir/form.json" ? slurp("$dir/form.json") : '') =~ /"func":/g;
        my $entered = () = (-e "$dir/form.cyg" ? slurp("$dir/form.cyg") : '') =~ /^0x/mg;
        ok($st == 0 && $err eq '' && $entered > 30 && $events == $entered,
            "$form: $prog, every entry bound at start-up, the library at " . ($at // 'its own place')
            . ": no site refused, an event for each of the $entered functions entered ($events)") or diag $err;
    }

    # ---- a -pg shared library beside the program ----
    # In the guest (the libraries at 0xfff8...: the plug set's) and under
    # qemu-sparc64 (the libraries low).
    for my $how ('lazy', 'now') {
        my @qemu = ('timeout', '120', $QEMU_USER, '-L', $SYSROOT, '-E', "LD_LIBRARY_PATH=$dir");
        my ($ust, $uplug) = run_cmd([@qemu, "$dir/plug_main", 5]);
        unlink "$dir/plug.json";
        my ($st, $out, $err) = run_cmd([@qemu, '-E', "LD_PRELOAD=$LIB/libmcount-trace.so",
            $how eq 'now' ? ('-E', 'LD_BIND_NOW=1') : (), '-E', 'MCOUNT_TRACE_FILTER=*', '-E', 'MCOUNT_TRACE_FORMAT=json',
            '-E', "MCOUNT_TRACE_OUTPUT=$dir/plug.json", "$dir/plug_main", 5]);
        plug_trace_is("qemu-sparc64, bound $how", $st, $out, $err, $ust == 0 ? $uplug : "exit $ust", $dir,
            -e "$dir/plug.json" ? slurp("$dir/plug.json") : undef);
    }

    return;
}

1;
