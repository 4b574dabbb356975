# SPDX-License-Identifier: GPL-2.0-or-later
package MipsTrace;
# The tracer's checks on little-endian MIPS under qemu-system-ARCH on the
# malta board, for both ABIs the library is built for: the guests
# mips64el (n64) and mipsel and mips (o32, either byte order).  What differs between them is in %ABI:
# the word's loads, stores and additions, o32's push of 8 bytes before
# the call to _mcount (and `addiu sp, sp, 8` as its site's word off),
# and the cacheflush system call's number (the dynamic linker's
# directory is the guests' rows').
# The guests' check sets are SysTrace's (their rows of guests.tab).
# What each of these guests of t/79-trace-system.t checks:
#
# mips64el:
# libmcount-trace on mips64el (n64: build/mips64el/), under full-system
# emulation: Debian's 5kc-malta kernel booted by qemu-system-mips64el on
# the malta board, a MIPS64 release 2 CPU (t/lib/QemuSystem.pm says why
# not qemu-user).
#
#  - The machine runs code changed through /proc/self/mem, as the tracer
#    changes it (t/src/trace/sys/smc.c: a function's first instruction
#    rewritten twice, its page never writable, the cacheflush system
#    call): "f 1 2 3"; under qemu-mips64el the same program prints
#    "f 1 1 1".  tear.c shows (a note, not a check) how often another
#    thread reads a 4-byte write through /proc/self/mem half made.
#  - A dynamically linked mips64el program (oracle.c, no tracer) runs in
#    the guest through the dynamic linker and C library the initramfs
#    lays out as Debian does, as under qemu-mips64el with the cross C
#    library.
#  - The -finstrument-functions oracle (t/lib/SysTrace.pm): oracle.c
#    built through mcount-cc, traced with every function on, gives the
#    enter log event for event; with no filter, no event.  Both forms of
#    a site, which objdump shows: `ld t9` from the GOT and `jalr t9`
#    (preloaded: the slot is in the GOT's global part, which the dynamic
#    linker fills without a relocation) and `ld t9` and `bal _mcount`
#    (linked in as PIE and -static, switched on live from main by the C
#    API); off, the second word is `nop`.
#  - The preloaded program stripped of every symbol: gp is then the
#    primary GOT's, no site refused, the enter log event for event.
#  - Table entries that are no calls to the hook
#    (t/src/trace/mips/badsite.S: a jalr through a GOT slot of
#    another function, a bal to another function, an ld t9 followed by
#    neither, no ld t9 at all): each refused with a message, never
#    written; the calls still run.
#  - Live switching under load (t/src/trace/toggle.c, SysTrace): threads
#    run the functions whose sites main switches on and off, behind
#    fenced pages, in a -static program (bal <-> nop) and in a PIE linked
#    with the shared library (jalr t9 <-> nop), on one CPU (the fence
#    holds no thread off here: qemu's CPU has no execute-inhibit bit, a
#    PROT_READ page runs; the writes, the cacheflush calls and the
#    library's SIGSEGV handling are what is shown); no crash, every event
#    well formed, events after each enable, none after each disable; the
#    program's own SIGTRAP handler gets its trap and raise(), and its own
#    SIGSEGV handler each fault of a worker.  The cacheflush system call
#    after each batch, which the emulator cannot show missing, is read
#    from the library's code.
#  - function_graph (SysTrace): oracle.c against its enter and exit log,
#    preloaded, linked in and static; the slot is the one the prologue
#    stored ra in at the top of its frame (read by the library); the
#    functions whose prologue stores none there (leaves, main: it saves
#    floating-point registers above ra) are recorded without their
#    returns (noexit), and they are exactly those objdump shows so;
#    hazards.c and unwind.cc: longjmp, siglongjmp, fork, backtrace,
#    pthread_exit, cancellation and C++ exceptions through hijacked
#    frames (C++ with its table from the link).
#  - Function events (SysTrace): t/src/trace/args.c's arguments against
#    its own log (a0-a7 as the caller left them: GCC's call to _mcount
#    is text it does not see as a call; the ninth above the slot of ra),
#    at -O2 and -O0, by prototype and by bare glob (DWARF's types).
#  - Lua 5.4 (Debian's source, built through mcount-cc) running a script
#    with every function traced, under each tracer (SysTrace's
#    lua_checks): its output unchanged, every event of a function nm
#    shows, and under function_graph every hooked call returns.
# Everything runs in one boot (t/lib/MipsTrace.pm, shared with the mipsel guest's
# mipsel): a check of another program is one more job there.
#  - A -pg shared library beside its program, preloaded, bound lazily
#    and at start-up: every event of its functions (SysTrace's plug).
#  - Hooks (mcount_hook(3), SysTrace's hooks): hooks.c linked with the
#    static library: the callbacks' counts and the arguments they read
#    against the functions' own under 8 threads, register and unregister
#    cycles, longjmp through hooked frames, callbacks that change every
#    register a called function may (v0, v1, a0-a3, t0-t9, hi, lo, the
#    caller-saved floating-point registers) around functions whose
#    arguments and values travel in the floating-point and argument
#    registers; exit callbacks for every call of the functions whose
#    prologue stores ra at its frame's top, none for the others
#    (objdump's); no redirect (ENOTSUP); the errors.
#
# mipsel:
# libmcount-trace on mipsel (o32: build/mipsel/), under full-system
# emulation: Debian's 4kc-malta kernel booted by qemu-system-mipsel on
# the malta board, a 24Kf (MIPS32 release 2 with an FPU).  The checks
# are the mips64el guest's (t/lib/MipsTrace.pm runs both), on o32's sites:
#  - The machine runs code changed through /proc/self/mem
#    (t/src/trace/sys/smc.c: "f 1 2 3"; qemu-mipsel prints "f 1 1 1");
#    a dynamically linked mipsel program runs in the guest as under
#    qemu-mipsel.
#  - The -finstrument-functions oracle (t/lib/SysTrace.pm): oracle.c
#    built through mcount-cc, traced with every function on, gives the
#    enter log event for event; with no filter, no event.  o32's site,
#    which objdump shows: `move at, ra; addiu sp, sp, -8` (two words the
#    hook pops), `lw t9` from the GOT and `jalr t9` (preloaded: the slot
#    in the GOT's global part) or `bal _mcount` (linked in as PIE and
#    -static, switched on live from main by the C API); off, the word
#    after the lw is `addiu sp, sp, 8`: the function's sp is what it
#    was, on or off (a wrong one breaks the gp reload after the site,
#    and every return).
#  - The preloaded program stripped of every symbol: gp is then the
#    primary GOT's, no site refused, the enter log event for event.
#  - Table entries that are no calls to the hook (t/src/trace/mips/
#    badsite.S, o32's words): each refused with a message, never
#    written; the calls still run.
#  - Live switching under load (t/src/trace/toggle.c, SysTrace): threads
#    run the functions whose sites main switches on and off, behind
#    fenced pages, -static (bal <-> addiu sp, sp, 8) and as a PIE with
#    the shared library (jalr t9 <-> addiu sp, sp, 8), on one CPU; no
#    crash, every event well formed, events after each enable, none
#    after each disable; the program's own SIGTRAP and SIGSEGV handlers
#    get their signals.  The cacheflush system call after each batch
#    (o32's number, 4147) is read from the library's code.
#  - function_graph (SysTrace): oracle.c against its enter and exit log,
#    preloaded, linked in and static; the slot is the one the prologue
#    stored ra in at the top of its frame (addiu sp, sp, -F; sw ra,
#    F-4(sp)); the others are recorded without their returns (noexit),
#    exactly those objdump shows so; hazards.c and unwind.cc: longjmp,
#    fork, backtrace, pthread_exit, cancellation and C++ exceptions
#    through hijacked frames.
#  - Function events (SysTrace): t/src/trace/args.c's arguments against
#    its own log (a0-a3 as the caller left them, the rest from 16 bytes
#    above the caller's sp; a 64-bit argument from an even word), at -O2
#    and -O0, by prototype and by bare glob (DWARF's types).
#  - Lua 5.4 (Debian's source, built through mcount-cc) with every
#    function traced, under each tracer (SysTrace's lua_checks).
#  - A -pg shared library beside its program, preloaded, bound lazily
#    and at start-up: every event of its functions (SysTrace's plug).
#  - Hooks (mcount_hook(3), SysTrace's hooks): hooks.c linked with the
#    static library: the callbacks' counts and the arguments they read
#    against the functions' own under 8 threads, register and unregister
#    cycles, longjmp through hooked frames, callbacks that change every
#    register a called function may (v0, v1, a0-a3, t0-t9, hi, lo, the
#    caller-saved floating-point registers) around functions whose
#    arguments and values travel in the floating-point and argument
#    registers; exit callbacks for every call of the functions whose
#    prologue stores ra at its frame's top, none for the others
#    (objdump's); no redirect (ENOTSUP); the errors.
#
# mips:
# libmcount-trace on mips, big-endian o32 (build/mips/), under
# full-system emulation: a kernel built from Debian's linux-source-6.1
# for the malta board (scripts/build-kernel mips: Debian 12 ships no
# big-endian mips kernel) booted by qemu-system-mips, a 24Kf, one CPU.
# The checks are the mipsel guest's, run by t/lib/MipsTrace.pm on the same o32
# sites, here in big-endian words: the machine runs code changed
# through /proc/self/mem; the -finstrument-functions oracle preloaded,
# linked in (bal) and -static, stripped; table entries that are no
# calls refused; live switching under load, -static and with the
# shared library; function_graph with its hazards and C++ exceptions;
# function events (a 64-bit argument's pair of words, its high half
# first here) against args.c's own log at -O2 and -O0; Lua with every
# function traced; a -pg shared library beside its program (SysTrace's
# plug).
use strict;
use warnings;
use Test::More;

use TestUtil qw($TOP run_cmd);
use TraceTest qw($TSRC);
use SysTrace qw(graph_checks);

my %ABI = (
    mips64el => { load => 'ld', store => 'sd', addiu => 'daddiu', word => 8, push => 0, cacheflush => 5197 },
    mipsel => { load => 'lw', store => 'sw', addiu => 'addiu', word => 4, push => 1, cacheflush => 4147 },
);
$ABI{mips} = $ABI{mipsel};

# guest(ROW): what SysTrace's guest_run takes of the guest.
sub guest {
    my ($g) = @_;
    my $a = $ABI{ $g->{name} } // die "MipsTrace: no guest '$g->{name}'";
    # name, compile flags, link flags, 'so' or 'a'
    return { variants => [['pie-preloaded', [], [], 'so'], ['pie-linked', [], [], 'a'],
            ['static-linked', [], ['-static'], 'a']],
        # live switching behind fenced pages: -static, and a PIE with the
        # shared library
        toggles => [{}, { name => 'toggle-so', shared => 1 }],
        badsite => "$TSRC/mips/badsite.S",
        # entries that are no calls to the hook: refused, never written
        refused => [['bad_local', 'a call to something other than the hook'],
            ['bad_stub', 'a call to something other than the hook'],
            ['bad_next', "an $a->{load} t9 not followed by jalr t9 or bal"],
            ['bad_word', "not a call instruction (no $a->{load} t9 from the GOT)"]],
        # function events: args.c's arguments in the argument registers and
        # on the caller's stack, at -O2 by DWARF and -O0 by prototypes
        args => [{ name => 'args', cflags => ['-g'], dwarf => 1 }, { name => 'args-O0', cflags => ['-g', '-O0'] }],
        # hooks (SysTrace's): _mcount after the prologue but before the
        # body, which GCC does not see as a call: the argument registers
        # still hold the arguments (mcount_regs_arg reads them, and the
        # caller's stack above the slot of ra); no redirect (ENOTSUP);
        # seven functions a clobber round, whose exit callbacks are
        # checked against their prologues below
        hooks => [{ name => 'hooks', clobber => 7 }],
        forms => sub { forms($a, @_) }, graph => sub { graph($a, @_) },
        hazards_noexit => sub {
            my ($c) = @_;
            my %hpro = (prologues($c->{objdump}, $a, "$c->{dir}/hazards"), prologues($c->{objdump}, $a, "$c->{dir}/unwind"));
            return [sort grep { $hpro{$_} eq 'other' } keys %hpro];
        },
        checks => sub { checks($a, @_) } };
}

# forms(ABI, CONTEXT): the site forms objdump shows
sub forms {
    my ($a, $c) = @_;
    my ($dir, $OBJDUMP) = @$c{qw(dir objdump)};
    # ---- the tracer: the oracle, both forms of a site ----
    # objdump's view of each variant's calls to the hook: the word after
    # the ld (lw) t9 that follows `move at, ra` (o32: and `addiu sp,
    # sp, -8`), and what it calls.
    my $lead = $a->{push} ? 'move at,ra; addiu sp,sp,-8' : 'move at,ra';
    for my $v (@{ $c->{variants} }) {
        my ($name, undef, undef, $mode) = @$v;
        my ($dst, $dis) = run_cmd([$OBJDUMP, '-d', "$dir/$name"]);
        my (%form, $state);
        for (split /\n/, $dis) {
            next unless /\A\s*[0-9a-f]+:\s+[0-9a-f]{8}\s+(\S+)\s*(.*)/;
            my ($op, $rest) = ($1, $2);
            if (($state // '') eq 'load') {
                $form{ $op eq 'jalr' && $rest eq 't9' ? 'jalr t9' : $op eq 'bal' && $rest =~ /<_mcount>/
                    ? 'bal _mcount' : "other ($op $rest)" }++;
                $state = undef;
            } elsif (($state // '') eq 'push') {
                $state = $op eq $a->{load} && $rest =~ /\At9,-?\d+\(gp\)\z/ ? 'load' : undef;
            } elsif (($state // '') eq 'move') {
                $state = $a->{push} ? ("$op $rest" eq 'addiu sp,sp,-8' ? 'push' : undef)
                    : $op eq $a->{load} && $rest =~ /\At9,-?\d+\(gp\)\z/ ? 'load' : undef;
            } else {
                $state = $op eq 'move' && $rest eq 'at,ra' ? 'move' : undef;
            }
        }
        my $want = $mode eq 'so' ? 'jalr t9' : 'bal _mcount';
        ok($form{$want} && $form{$want} >= 8 && keys %form == 1,
            "$name: objdump shows its sites as $lead; $a->{load} t9,N(gp); $want ("
            . join(', ', map { "$_ $form{$_}" } sort keys %form) . ')');
    }
    return;
}

# graph(ABI, CONTEXT): the graph set's checks, with the functions whose
# returns cannot be hooked
sub graph {
    my ($a, $c) = @_;
    my ($dir, $OBJDUMP, $r, $uout) = @$c{qw(dir objdump r uout)};
    # The functions whose returns cannot be hooked, as objdump shows their
    # prologues: those that store no ra at the top of their frame
    # (daddiu sp,sp,-F then sd ra,F-8(sp); o32: addiu, sw ra,F-4(sp))
    # before their site, leaves among them.
    my %pro = prologues($OBJDUMP, $a, "$dir/pie-preloaded");
    my @noexit = sort grep { $pro{$_} eq 'other' } keys %pro;
    ok(keys %pro >= 8 && grep({ $pro{$_} eq 'frame' } keys %pro) >= 5,
        'objdump: the functions of oracle.c that store ra at their frame\'s top before their site ('
        . join(' ', sort grep { $pro{$_} eq 'frame' } keys %pro) . "), and the others (@noexit)");
    # (linked in, tracing starts in main, whose entry is not traced)
    graph_checks($r, dir => $dir, variants => [grep { $_->[3] eq 'so' } @{ $c->{variants} }], graph => 1, want_out => $uout,
        noexit => \@noexit);
    graph_checks($r, dir => $dir, variants => [grep { $_->[3] eq 'a' } @{ $c->{variants} }], graph => 1, want_out => $uout,
        noexit => [grep { $_ ne 'main' } @noexit]);
    return;
}

# checks(ABI, CONTEXT): the library's code after writing
sub checks {
    my ($a, $c) = @_;
    my ($LIB, $OBJDUMP) = @$c{qw(lib objdump)};
    if (my $j = $c->{r}{'hooks-clobber'}) {
        # hooks' exit callbacks: every call of a function whose prologue
        # stores ra at its frame's top, none of the others (objdump's)
        my %pro = prologues($OBJDUMP, $a, "$c->{dir}/hooks");
        my ($line) = ($j->{stdout} // '') =~ /^clobber exits (.*)$/m;
        my %ex = map { split /=/, $_, 2 } split ' ', $line // '';
        my $rounds = 500;
        my @frame = sort grep { ($pro{$_} // '') eq 'frame' } keys %ex;
        is(join(' ', map { "$_=$ex{$_}" } sort keys %ex),
            join(' ', map { "$_=" . (($pro{$_} // '') eq 'frame' ? $rounds : 0) } sort keys %ex),
            "hooks clobber: an exit callback for each call of the functions that store ra at their frame's top (@frame), "
            . 'none for the others') or diag $j->{stdout} // '';
        ok(keys %ex == 7 && @frame >= 2, 'hooks clobber: seven functions, two or more of them with exits');
    }
    # The cache maintenance after each batch cannot be seen in the guest:
    # qemu's TCG models no instruction cache (a write drops the blocks
    # translated from its page, whoever makes it).  So what the library
    # runs after writing is read here: mips_sync_self makes the
    # cacheflush system call (the ABI's number into v0; syscall).
    for my $lib ('so', 'a') {
        my $sc = sync_calls($OBJDUMP, "$LIB/libmcount-trace.$lib");
        like($sc, qr/v0=$a->{cacheflush}; syscall/,
            "libmcount-trace.$lib: after writing, the cacheflush system call ($sc)");
    }
    return;
}

# What mips_sync_self of FILE puts in v0 before each syscall, as
# objdump shows it: "v0=N; syscall", the number followed through the
# registers it was moved through (li s0,N; move v0,s0).
sub sync_calls {
    my ($objdump, $file) = @_;
    my ($st, $dis) = run_cmd([$objdump, '-d', $file]);
    my ($body) = $dis =~ /<mips_sync_self>:\n(.*?)(?:\n\n|\z)/s;
    my (%val, @sc);
    for (split /\n/, $body // '') {
        next unless /\A\s*[0-9a-f]+:\s+[0-9a-f]{8}\s+(\S+)\s*(\S*)/;
        my ($op, $args) = ($1, $2);
        if ($op =~ /\A(?:li|daddiu|addiu)\z/ && $args =~ /\A(\w+),(?:zero,)?(-?\d+)\z/) {
            $val{$1} = $2;
        } elsif ($op eq 'move' && $args =~ /\A(\w+),(\w+)\z/) {
            $val{$1} = $val{$2} // $2;
        } elsif ($op eq 'syscall') {
            push @sc, 'v0=' . ($val{v0} // '?'), 'syscall';
        }
    }
    return join '; ', @sc;
}

# Each function of FILE with a site (move at,ra; then the load of t9, on
# o32 after addiu sp,sp,-8) as objdump shows it (C++ names demangled,
# as the library shows them): 'frame' where its prologue stored ra at
# the top of its frame before the site (daddiu sp,sp,-F then sd
# ra,F-8(sp); o32: addiu, sw ra,F-4(sp)), else 'other'.
sub prologues {
    my ($objdump, $a, $file) = @_;
    my ($st, $dis) = run_cmd([$objdump, '-dC', $file]);
    my ($fn, $down, $ra, @prev, %pro);
    for (split /\n/, $dis) {
        if (/\A[0-9a-f]+ <(.+)>:\z/) {
            ($fn, $down, $ra, @prev) = ($1, 0, undef);
            next;
        }
        next unless defined $fn && /\A\s*[0-9a-f]+:\s+[0-9a-f]{8}\s+(\S+)\s*(\S*)/;
        my ($op, $args) = ($1, $2);
        my $at_site = $a->{push} ? @prev >= 2 && $prev[-2] eq 'move at,ra' && $prev[-1] eq 'addiu sp,sp,-8'
            : @prev >= 1 && $prev[-1] eq 'move at,ra';
        if ($at_site && $op eq $a->{load} && $args =~ /\At9,/ && !exists $pro{$fn}) {
            # (o32: the push before the load is the site's, not the prologue's)
            $down -= 8 if $a->{push};
            $pro{$fn} = defined $ra && $down > $a->{word} && $ra == $down - $a->{word} ? 'frame' : 'other';
        }
        $down -= $1 if "$op $args" =~ /\A\Q$a->{addiu}\E sp,sp,(-?\d+)\z/;
        $ra = $1 if "$op $args" =~ /\A\Q$a->{store}\E ra,(-?\d+)\(sp\)\z/;
        push @prev, "$op $args";
    }
    return %pro;
}

1;
