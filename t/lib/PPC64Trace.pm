# SPDX-License-Identifier: GPL-2.0-or-later
package PPC64Trace;
# The tracer's checks on ppc64 under qemu-system-ppc64 on the pseries
# machine, for the ABIs the library is built for: the guests ppc64le
# (ELFv2), ppc64 (big-endian, ELFv1) and ppc (ppc32 programs on the same
# kernel, fewer checks: below).  What differs between them is in %ABI:
# the TOC save slot a call stub uses and the restore after its site
# reads (24(r1), 40(r1)), how objdump names a call to _mcount in the
# same module (ELFv2: its local entry, _mcount+8; ELFv1: its code,
# ._mcount, after the descriptor), and badsite.S's words; C++ gets its
# table at the link on all three.
# ppc32's site comes before the frame, after `stw r0,4(r1)`, and calls
# glibc's own _mcount, which every -pg program links from
# libc_nonshared.a: the library gets the calls through the function that
# _mcount calls in libc.so.6, __mcount_internal, which it defines
# instead of _mcount, and is preloaded as on ppc64.
# The guests' check sets are SysTrace's (their rows of guests.tab).
# What each of these guests of t/79-trace-system.t checks:
#
# ppc64le:
# libmcount-trace on ppc64le (ELFv2: build/ppc64le/), under full-system
# emulation: Debian's ppc64el kernel booted by qemu-system-ppc64 on the
# pseries machine, a POWER9, through SLOF (t/lib/QemuSystem.pm says why
# not qemu-user).  The checks are the ppc64 guest's (t/lib/PPC64Trace.pm runs both),
# on ELFv2's sites:
#
#  - The machine runs code changed through /proc/self/mem, as the tracer
#    changes it (t/src/trace/sys/smc.c: a function's first instruction
#    rewritten twice, its page never writable, dcbst/sync/icbi/isync):
#    "f 1 2 3"; under qemu-ppc64le the same program prints "f 1 1 1".
#    tear.c shows (a note, not a check) how often another thread reads a
#    4-byte write through /proc/self/mem half made, 4- and 2-byte aligned
#    (instructions are 4-byte aligned: the library counts on one aligned
#    store, rt/arch-ppc64.c).
#  - A dynamically linked ppc64le program (oracle.c, no tracer) runs in
#    the guest through the dynamic linker and C library the initramfs
#    lays out as Debian does, as under qemu-ppc64le with the cross C
#    library.
#  - The -finstrument-functions oracle (t/lib/SysTrace.pm): oracle.c
#    built through mcount-cc, traced with every function on, gives the
#    enter log event for event; with no filter, no event.  Both forms of
#    a site, which objdump shows: `bl` to a PLT call stub and the TOC
#    restore `ld r2,24(r1)` after it (preloaded: switched off, `b .+8`),
#    and `bl` to _mcount's local entry and `nop` (linked in as PIE and
#    -static, switched on live from main by the C API; off, `nop`).
#  - The preloaded program stripped of every symbol: the TOC pointer
#    behind its call stubs found without one, no site refused, the
#    enter log event for event.
#  - Table entries that are no calls to the hook
#    (t/src/trace/ppc64le/badsite.S: a bl to another function, a bl to
#    a look-alike call stub whose slot holds another function, a bl
#    followed by neither nop nor the TOC restore, no bl at all): each
#    refused with a message, never written; the calls still run.
#  - Live switching under load (t/src/trace/toggle.c, SysTrace): threads
#    run the functions whose sites main switches on and off, each site
#    one aligned store (the Power ISA's patch class: b, bl, nop), in a
#    -static program (bl <-> nop) and in a PIE linked with the shared
#    library (through a call stub: bl <-> b .+8); no
#    crash, every event well formed, events after each enable, none
#    after each disable; the program's own SIGTRAP handler gets its trap
#    and raise(), and its own SIGSEGV handler each fault of a worker.
#    The cache maintenance after each store, which the emulator cannot
#    show missing, is read from the library's code.
#  - function_graph (SysTrace): oracle.c against its enter and exit log,
#    preloaded, linked in and static, no frame pointer needed (the slot
#    of the return address is the ABI's: 16 bytes into the caller's
#    frame); hazards.c and unwind.cc: longjmp, siglongjmp, fork,
#    backtrace, pthread_exit, cancellation and C++ exceptions through
#    hijacked frames (C++ recorded at the link: exact for COMDAT).
#  - Function events (SysTrace): t/src/trace/args.c's arguments against
#    its own log, built with -g at -O2 (moved into non-volatile registers
#    before the call to _mcount; the ninth in the caller's parameter
#    save area, through the back chain) and at -O0; prototypes given and
#    bare globs, text, JSON and function_graph.
#  - Lua 5.4 (Debian's source, built through mcount-cc) running a script
#    with every function traced, under each tracer (SysTrace's
#    lua_checks): its output unchanged, every event of a function nm
#    shows, and under function_graph every hooked call returns (every
#    function hooked: the slot is the ABI's).
# Everything runs in one boot: a check of another program is one more
# job in PPC64Trace's @jobs, its files in %files, and its checks after
# the boot.
#  - A -pg shared library beside its program, preloaded, bound lazily
#    and at start-up: every event of its functions (SysTrace's plug).
#  - Hooks (mcount_hook(3), SysTrace's hooks): hooks.c linked with the
#    static library: the callbacks' counts against the functions' own
#    under 8 threads, register and unregister cycles, longjmp through
#    hooked frames, callbacks that change every register a called
#    function may (r0, r3-r12, f0-f13, v0-v19, vs0-vs13, CR, ctr) around
#    functions whose arguments and values travel in f1-f13, v2-v13
#    (built for POWER8) and r3-r10; ppc64: mcount_regs_arg and a
#    redirect ENOTSUP (the site is after the prologue); ppc: the
#    arguments read from r3-r10, no redirect; the errors.
#
# ppc64:
# libmcount-trace on big-endian ppc64 (ELFv1: build/ppc64/), under
# full-system emulation: a kernel built from Debian's linux-source-6.1
# (scripts/build-kernel ppc64: Debian 12 ships no big-endian ppc64
# kernel) booted by qemu-system-ppc64 on the pseries machine, a POWER9,
# two CPUs, through SLOF.  The checks are the ppc64le guest's (t/lib/PPC64Trace.pm
# runs both), on ELFv1's sites, where a function's symbol and pointer
# are its descriptor in .opd:
#  - The machine runs code changed through /proc/self/mem
#    (t/src/trace/sys/smc.c, its f an ELFv1 descriptor whose code is
#    rewritten: "f 1 2 3"; qemu-ppc64 prints "f 1 1 1"); a dynamically
#    linked ppc64 program runs in the guest (/lib64/ld64.so.1) as under
#    qemu-ppc64.
#  - The -finstrument-functions oracle (t/lib/SysTrace.pm; cyg.c logs
#    each descriptor's code, nm_funcs reads the symbols' code from .opd):
#    oracle.c built through mcount-cc, traced with every function on,
#    gives the enter log event for event; with no filter, no event.
#    Both forms of a site, which objdump shows: `bl` to a PLT call stub
#    and the TOC restore `ld r2,40(r1)` after it (preloaded: switched
#    off, `b .+8`), and `bl ._mcount` (its code) and `nop` (linked in as
#    PIE and -static, switched on live from main by the C API; off,
#    `nop`).
#  - The preloaded program stripped of every symbol: the TOC pointer
#    behind its call stubs from .opd's descriptors, which stripping
#    keeps, no site refused, the enter log event for event.
#  - Table entries that are no calls to the hook
#    (t/src/trace/ppc64/badsite.S: a bl to another function, a bl to a
#    look-alike ELFv1 call stub whose slot holds another function's
#    descriptor, a bl followed by neither nop nor the TOC restore, no bl
#    at all): each refused with a message, never written; the calls
#    still run.
#  - Live switching under load (t/src/trace/toggle.c, SysTrace): threads
#    on two CPUs run the functions whose sites main switches on and off,
#    one aligned store each (bl, b .+8, nop: the Power ISA's patch
#    class), -static (bl <-> nop) and as a PIE with the shared library
#    (through a call stub, the thread-safe form ld makes for a program
#    that calls pthread_create: bl <-> b .+8); no crash, every event
#    well formed, events after each enable, none after each disable;
#    the program's own SIGTRAP and SIGSEGV handlers get their signals.
#    The cache maintenance after each store is read from the library's
#    code.
#  - function_graph (SysTrace): oracle.c against its enter and exit log,
#    preloaded, linked in and static (the slot of the return address is
#    16 bytes into the caller's frame in ELFv1's 48-byte header too);
#    hazards.c and unwind.cc: longjmp, siglongjmp, fork, backtrace,
#    pthread_exit, cancellation and C++ exceptions through hijacked
#    frames.
#  - Function events (SysTrace): t/src/trace/args.c's arguments against
#    its own log, by DWARF, at -O2 and -O0, prototypes and bare globs.
#  - Lua 5.4 (Debian's source, built through mcount-cc) with every
#    function traced, under each tracer (SysTrace's lua_checks).
#  - A -pg shared library beside its program, preloaded, bound lazily
#    and at start-up: every event of its functions (SysTrace's plug).
#  - Hooks (mcount_hook(3), SysTrace's hooks): hooks.c linked with the
#    static library: the callbacks' counts against the functions' own
#    under 8 threads, register and unregister cycles, longjmp through
#    hooked frames, callbacks that change every register a called
#    function may (r0, r3-r12, f0-f13, v0-v19, vs0-vs13, CR, ctr) around
#    functions whose arguments and values travel in f1-f13, v2-v13
#    (built for POWER8) and r3-r10; ppc64: mcount_regs_arg and a
#    redirect ENOTSUP (the site is after the prologue); ppc: the
#    arguments read from r3-r10, no redirect; the errors.
#
# ppc:
# libmcount-trace on ppc32 (build/ppc/), under full-system emulation:
# 32-bit programs on the ppc64 guest's kernel (scripts/build-kernel ppc64, COMPAT)
# on qemu-system-ppc64's pseries machine, a POWER9, two CPUs.  The ppc64le guest's
# and the ppc64 guest's checks (t/lib/PPC64Trace.pm runs all three).  Every -pg
# program links glibc's own _mcount from libc_nonshared.a, which calls
# __mcount_internal: the library defines that instead of _mcount (which
# would give it ld's BSS PLT, an RWX segment: its program headers are
# read), and is preloaded or linked in as on ppc64; the static library
# has an _mcount of its own too, with glibc's frame, so that a program's
# -pg calls take it in from the archive.
#  - The machine runs code changed through /proc/self/mem
#    (t/src/trace/sys/smc.c: "f 1 2 3"); a dynamically linked ppc32
#    program runs in the guest (/lib/ld.so.1) as under qemu-ppc.
#  - The -finstrument-functions oracle (SysTrace): oracle.c built
#    through mcount-cc, linked with the shared library (every function
#    on at start-up), linked in as PIE and -static (on live from main),
#    gives the enter log event for event; with no filter, no event.  The
#    site, which objdump shows: `stw r0,4(r1); bl _mcount` (glibc's, in
#    the program); off, `nop` (lr stays the parent).
#  - Table entries that are no calls to the hook
#    (t/src/trace/ppc/badsite.S), among them calls to code that is not
#    glibc's _mcount: each refused with a message, never written; the
#    calls still run.
#  - Live switching under load (toggle.c, SysTrace): threads on two CPUs,
#    one aligned store a site (bl <-> nop), -static and with the shared
#    library; no crash, events after each enable, none after each
#    disable, the program's own SIGTRAP and SIGSEGV handlers get theirs.
#    The cache maintenance after each store is read from the library.
#  - The shared variant stripped of every symbol: no site refused, the
#    enter log event for event.
#  - function_graph: oracle.c against its enter and exit log, each
#    variant (the slot is the word the site stored lr in, which the hook
#    reloads lr from: rt/hook-ppc.S); hazards.c and unwind.cc (its table
#    from the link): longjmp, siglongjmp, fork, backtrace, pthread_exit,
#    cancellation and C++ exceptions through hijacked frames.
#  - Function events: args.c's arguments against its own log, r3-r10 as
#    the caller left them (the site is before the prologue) and the
#    caller's stack, a 64-bit one in a pair of words, high word first;
#    at -O2 and -O0, prototypes given and bare globs (DWARF's types).
#  - Lua 5.4 (Debian's source, built through mcount-cc, linked with the
#    library) with every function traced, under each tracer.
#  - A -pg shared library beside its program, preloaded, bound lazily
#    and at start-up: every event of its functions (SysTrace's plug).
#  - Hooks (mcount_hook(3), SysTrace's hooks): hooks.c linked with the
#    static library: the callbacks' counts against the functions' own
#    under 8 threads, register and unregister cycles, longjmp through
#    hooked frames, callbacks that change every register a called
#    function may (r0, r3-r12, f0-f13, v0-v19, vs0-vs13, CR, ctr) around
#    functions whose arguments and values travel in f1-f13, v2-v13
#    (built for POWER8) and r3-r10; ppc64: mcount_regs_arg and a
#    redirect ENOTSUP (the site is after the prologue); ppc: the
#    arguments read from r3-r10, no redirect; the errors.
#  - The function profiler (SysTrace's stat) on statcount.c, preloaded
#    and linked with the static library plainly (no -u: the archive's
#    own _mcount takes it in): refused with ENOTSUP (32-bit counts), a
#    message only the library gives, and the program's own counts.
use strict;
use warnings;
use Test::More;

use TestUtil qw($TOP run_cmd);

my %ABI = (
    # hooks (SysTrace's): _mcount after the prologue, which has moved
    # the arguments (mcount_regs_arg: ENOTSUP; no redirect); ten
    # functions a clobber round: f1-f13, v2-v9 (VSX's doubles), v2 and
    # v3 (__float128) among their registers
    ppc64le => { toc => 24, local => qr/_mcount\+0x8/, local_name => "_mcount's local entry",
        hooks => [{ name => 'hooks', args => 'ENOTSUP', clobber => 10 }] },
    # the call stubs' endings (ELFv1): where the program calls
    # pthread_create, ld makes them thread-safe by itself
    ppc64 => { toc => 40, local => qr/\._mcount/, local_name => "_mcount's code (._mcount)",
        stubs => [['pie-preloaded', 'bctr'], ['toggle-so', 'cmpldi r2,0; bnectr+; b']],
        # the same, built for the guest's POWER8 and later (VSX, AltiVec's
        # vectors in v2-v13, __float128): Debian's ppc64 default has none
        hooks => [{ name => 'hooks', cflags => ['-mcpu=power8'], args => 'ENOTSUP', clobber => 10 }] },
    # ppc32's site is before the prologue: mcount_regs_arg reads r3-r10
    # and the caller's stack; built for POWER8 (VSX, v2-v9) too, eight
    # functions a clobber round
    ppc => { hooks => [{ name => 'hooks', cflags => ['-mcpu=power8'], clobber => 8 }] },
);

# guest(ROW): what SysTrace's guest_run takes of the guest.
sub guest {
    my ($g) = @_;
    my $a = $ABI{ $g->{name} } // die "PPC64Trace: no guest '$g->{name}'";
    my $toc = $a->{toc};           # ppc64's ABIs; none on ppc32
    my $restore = $toc ? "ld r2,$toc(r1)" : '';
    # name, compile flags, link flags, 'so' or 'a'; each also under
    # function_graph (the return address's slot is the ABI's, whatever the
    # function: no frame pointer needed)
    return { variants => [['pie-preloaded', [], [], 'so'], ['pie-linked', [], [], 'a'],
            ['static-linked', [], ['-static'], 'a']],
        # live switching, one aligned store a site: -static, and a PIE with
        # the shared library
        toggles => [{}, { name => 'toggle-so', shared => 1 }],
        # function events: args.c's arguments where its DWARF says they are
        # (ppc32: where the caller left them), at -O2 and -O0 (the default)
        # the return address's slot is the ABI's: every function hooked
        lua_noexit => [],
        # entries that are no calls to the hook: refused, never written
        refused => $toc ? [['bad_local', 'a call to something other than the hook'],
                ['bad_stub', 'a call to something other than the hook'],
                ['bad_next', "a bl followed by neither nop nor $restore"], ['bad_word', 'not a call instruction']]
                : [['bad_local', 'a call to something other than the hook'], ['bad_stub', 'a bl not after stw r0,4(r1)'],
                ['bad_next', "a call to an _mcount that keeps the registers otherwise than glibc's"],
                ['bad_word', 'not a call instruction'],
                ['bad_more1', 'a call to an _mcount that does not call __mcount_internal']],
        $a->{hooks} ? (hooks => $a->{hooks}) : (),
        forms => sub { forms($a, @_) }, checks => sub { checks($a, @_) } };
}

# forms(ABI, CONTEXT): the site forms objdump shows
sub forms {
    my ($a, $c) = @_;
    my ($dir, $OBJDUMP) = @$c{qw(dir objdump)};
    my $toc = $a->{toc};
    my $restore = $toc ? "ld r2,$toc(r1)" : '';
    # ---- the tracer: the oracle, both forms of a site ----
    # objdump's view of each variant's calls to the hook and the word after
    # each: through a PLT call stub (the TOC restore after it) or to
    # _mcount in the same module (a nop after it).
    for my $v ($toc ? @{ $c->{variants} } : ()) {
        my ($name, undef, undef, $mode) = @$v;
        my ($dst, $dis) = run_cmd([$OBJDUMP, '-d', "$dir/$name"]);
        my (%form, $call);
        for (split /\n/, $dis) {
            next unless /\A\s*[0-9a-f]+:\s+(?:[0-9a-f]{2} ){4}\s*(\S+)\s*(.*)/;
            my ($op, $rest) = ($1, $2);
            if ($call) {
                $form{ "$call " . ($op eq 'nop' ? 'nop' : $op eq 'ld' && $rest =~ /\Ar2,$a->{toc}\(r1\)/ ? 'toc'
                    : 'other') }++;
            }
            $call = undef;
            next unless $op eq 'bl';
            if ($rest =~ /<\w+\.plt_call\._mcount(?:\@\@GLIBC[\d._]+)?>/) {
                $call = 'stub';
            } elsif ($rest =~ /<$a->{local}>/) {
                $call = 'local';
            } elsif ($rest =~ /<\.?_mcount[^>]*>/) {
                $call = 'other';
            }
        }
        my $want = $mode eq 'so' ? 'stub toc' : 'local nop';
        ok($form{$want} && $form{$want} >= 8 && keys %form == 1,
            "$name: objdump shows its sites as " . ($mode eq 'so' ? "bl to a PLT call stub, then $restore"
                : "bl to $a->{local_name}, then nop") . ' (' . join(', ', map { "$_ $form{$_}" } sort keys %form)
            . ')');
    }
    # ppc32: each bl to _mcount after stw r0,4(r1), to glibc's _mcount
    # in the program, whichever way the library comes
    for my $v ($toc ? () : @{ $c->{variants} }) {
        my ($name, undef, undef, $mode) = @$v;
        my ($dst, $dis) = run_cmd([$OBJDUMP, '-d', "$dir/$name"]);
        my (%form, $prev);
        for (split /\n/, $dis) {
            next unless /\A\s*[0-9a-f]+:\s+(?:[0-9a-f]{2} ){4}\s*(\S+)\s*(.*)/;
            my ($op, $rest) = ($1, $2);
            if ($op eq 'bl' && $rest =~ /<(_mcount(?:\@plt)?)>/) {
                $form{ ($prev // '') eq 'stw r0,4(r1)' ? $1 : "$1 after " . ($prev // 'nothing') }++;
            }
            $prev = "$op $rest";
        }
        my $want = '_mcount';
        ok($form{$want} && $form{$want} >= 8 && keys %form == 1,
            "$name: objdump shows its sites as stw r0,4(r1); bl $want ("
            . join(', ', map { "$_ $form{$_}" } sort keys %form) . ')');
    }
    # the forms of the call stub to _mcount the library reads, as
    # objdump shows them
    for my $st (@{ $a->{stubs} // [] }) {
        my ($name, $end) = @$st;
        my ($dst, $dis) = run_cmd([$OBJDUMP, '-d', "$dir/$name"]);
        my ($body) = $dis =~ /<\w+\.plt_call\._mcount[^>]*>:\n(.*?)(?:\n\n|\z)/s;
        my @ops = map { /\A\s*[0-9a-f]+:\s+(?:[0-9a-f]{2} ){4}\s*(\S+)\s*(\S*)/ ? ($2 eq '' ? $1 : "$1 $2") : () }
            split /\n/, $body // '';
        my $seq = join '; ', map { s/ [0-9a-f]+\z//r } grep { !/\A\.long/ } @ops;
        like($seq, qr/\Astd r2,40\(r1\); (?:addis r11,r2,-?\d+; )?ld r12,-?\d+\(r(?:2|11)\); mtctr r12; ld r2,-?\d+\(r(?:2|11)\); \Q$end\E\z/,
            "$name: objdump shows its stub to _mcount ending in $end ($seq)");
    }
    return;
}

# checks(ABI, CONTEXT): the library's code after a store, its segments
# and what it defines
sub checks {
    my ($a, $c) = @_;
    my ($LIB, $OBJDUMP, $T) = ($c->{lib}, $c->{objdump}, $c->{guest}{triple});
    my $toc = $a->{toc};
    # The cache maintenance after each store cannot be seen in the guest:
    # qemu's TCG models no instruction cache (a write drops the blocks
    # translated from its page, whoever makes it), and the kernel flushes
    # for a write through /proc/self/mem anyway; the library without it
    # passes every check above.  GCC's __builtin___clear_cache is empty on
    # this target, so what the library runs after a store is read here
    # (ELFv1: objdump names the code after the descriptor, with a dot).
    for my $lib ('so', 'a') {
        my ($st, $dis) = run_cmd([$OBJDUMP, '-d', "$LIB/libmcount-trace.$lib"]);
        my ($body) = $dis =~ /<\.?mt_ppc_sync_range>:\n(.*?)(?:\n\n|\z)/s;
        my @ops = grep { /\A(?:dcbst|sync|hwsync|icbi|isync)\z/ }
            map { /\A\s*[0-9a-f]+:\s+(?:[0-9a-f]{2} ){4}\s*(\S+)/ ? $1 : () } split /\n/, $body // '';
        my $seq = join ' ', @ops;
        $seq =~ s/\b(\w+)(?: \1\b)+/$1/g;         # an unrolled loop's words once
        # (objdump says hwsync for sync; the path of an empty range has its
        # own sync and isync after the loops)
        like($seq, qr/\Adcbst (?:hw)?sync icbi isync\b/,
            "libmcount-trace.$lib: after a store, dcbst, sync, icbi, isync (rt/cpu.h: $seq)");
    }

    # Nothing of the library is mapped writable and executable at once.
    # ppc32: ld would make its BSS PLT, such a segment, for a library
    # that defines _mcount; it defines __mcount_internal instead.
    my ($pst, $ph) = run_cmd(["$T-readelf", '-lW', "$LIB/libmcount-trace.so"]);
    my @load = grep { /\A\s*LOAD\s/ } split /\n/, $ph // '';
    ok(@load >= 2 && !grep({ /\sRWE\s/ } @load), 'libmcount-trace.so: no LOAD segment writable and executable ('
        . scalar(@load) . ' LOAD segments)');
    my ($nst, $dsyms) = run_cmd(["$T-nm", '-D', '--defined-only', "$LIB/libmcount-trace.so"]);
    my %def = map { /\A[0-9a-f]+ [A-Za-z] (\S+)\z/ ? ($1 => 1) : () } split /\n/, $dsyms // '';
    my @want = $toc ? ('_mcount') : ('__mcount_internal');
    my @not = $toc ? () : ('_mcount');
    is_deeply([map { $def{$_} ? 1 : 0 } @want, @not], [(1) x @want, (0) x @not],
        'libmcount-trace.so defines ' . join(', ', @want) . (@not ? ', not ' . join(', ', @not) : ''));

    return;
}

1;
