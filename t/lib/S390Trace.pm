# SPDX-License-Identifier: GPL-2.0-or-later
package S390Trace;
# The s390x guest of t/79-trace-system.t (its row of guests.tab; the
# check sets it names are SysTrace's, the rest is here).  What is checked:
# libmcount-trace on s390x (build/s390x/), under full-system emulation:
# Debian's s390x kernel booted by qemu-system-s390x on the
# s390-ccw-virtio machine, console on the SCLP's ttysclp0
# (t/lib/QemuSystem.pm says why not qemu-user).
#
#  - The machine runs code changed through /proc/self/mem, as the tracer
#    changes it (t/src/trace/sys/smc.c: a function's first instruction
#    rewritten twice, its page never writable, bcr 15,0): "f 1 2 3";
#    under qemu-s390x the same program prints "f 1 1 1".  tear.c shows
#    (a note, not a check) how often another thread reads a 4-byte write
#    through /proc/self/mem half made (the library's writes change one
#    byte: rt/arch-s390x.c).
#  - A dynamically linked s390x program (oracle.c, no tracer) runs in the
#    guest through the dynamic linker and C library the initramfs lays
#    out as Debian does, as under qemu-s390x with the cross C library.
#  - The -finstrument-functions oracle (t/lib/SysTrace.pm): oracle.c
#    built through mcount-cc, traced with every function on, gives the
#    enter log event for event; with no filter, no event.  Every form of
#    a site, which objdump shows: `stg %r14,8(%r15); brasl %r14,_mcount;
#    lg %r14,8(%r15)` through the PLT (preloaded) or to _mcount itself
#    (linked in, PIE and -static, switched on live from main by the C
#    API), and -mfentry's `brasl %r0,__fentry__` at the function's first
#    byte, through the PLT and to __fentry__ itself.  Off, each is `brcl
#    0` with the same offset.  GCC's -mnop-mcount with its own table
#    (`brcl 0,0` at each function's first byte, once or three times):
#    taken switched off, called when switched on, preloaded into a PIE
#    (through a trampoline) and linked in.
#  - A NOP where -mnop-mcount puts none is refused (badsite.S).
#  - The preloaded program stripped of every symbol: its PLT entries
#    found without a symbol, no site refused, the enter log event for
#    event.
#  - Table entries that are no calls to the hook
#    (t/src/trace/s390x/badsite.S): each refused with a message, never
#    written; the calls still run.
#  - Live switching under load (t/src/trace/toggle.c, SysTrace): threads
#    run the functions whose sites main switches on and off, each site
#    one write that changes one byte (brasl <-> brcl 0), in a -static
#    program and in a PIE linked with the shared library (through the
#    PLT); no crash, every event well formed, events after each enable,
#    none after each disable; the program's own SIGTRAP handler gets its
#    raise()s, and its own SIGSEGV handler each fault of a worker.
#  - function_graph (SysTrace): oracle.c against its enter and exit log,
#    every variant (the slot of the return address is the word at 8 of
#    the function's r15, both forms); hazards.c and unwind.cc: longjmp,
#    siglongjmp, fork, backtrace, pthread_exit, cancellation and C++
#    exceptions through hijacked frames (C++ recorded at the link:
#    exact for COMDAT).
#  - Lua 5.4 (Debian's source, built through mcount-cc) running a script
#    with every function traced, under each tracer (SysTrace's
#    lua_checks): its output unchanged, every event of a function nm
#    shows, and under function_graph every hooked call returns.
#  - Static programs each have text addresses of their own
#    (t/lib/QemuSystem.pm's own_text says why): stale.c shows the
#    emulator running another program's code otherwise (a note), and not
#    so (a check).
# Everything runs in one boot: a check of another program is one more
# job in @jobs, its files in %files, and its checks after the boot.
#  - A -pg shared library beside its program, preloaded, bound lazily
#    and at start-up: every event of its functions (SysTrace's plug).
#  - Hooks (mcount_hook(3), SysTrace's hooks): hooks.c built for z13
#    with _mcount and with -mfentry, linked with the static library: the
#    callbacks' counts and the arguments they read (r2-r6) against the
#    functions' own under 8 threads, register and unregister cycles,
#    longjmp through hooked frames, callbacks that change every register
#    a called function may (r0-r5, f0-f7, v0-v7, v16-v31) around
#    functions whose arguments and values travel in f0-f6, v24-v31 and
#    r2-r6; no redirect (ENOTSUP); the errors (pthread_exit in a
#    callback: the unwinder through __fentry__'s frame).
use strict;
use warnings;
use Test::More;

use TestUtil qw(run_cmd);

# guest(ROW): what SysTrace's guest_run takes of this guest.
sub guest {
    # name, compile flags, link flags, 'so' or 'a'; each also under
    # function_graph
    return { variants => [['pie-preloaded', [], [], 'so'], ['pie-linked', [], [], 'a'],
            ['static-linked', [], ['-static'], 'a'], ['fentry-so', ['-mfentry'], [], 'so'],
            ['fentry-static', ['-mfentry'], ['-static'], 'a'],
            # GCC's -mnop-mcount and its own table (mcount-cc leaves it alone):
            # brcl 0,0 at each function's first byte (three for _mcount's
            # sequence); preloaded into a PIE, the library is beyond a brasl's
            # reach, and the call goes through a trampoline
            ['mnop-so', [], [], 'so', undef, { MCOUNT_CC_FLAGS => '-pg -mfentry -mnop-mcount -mrecord-mcount' }],
            ['mnop-mcount-a', [], [], 'a', undef, { MCOUNT_CC_FLAGS => '-pg -mnop-mcount -mrecord-mcount' }]],
        # live switching, one byte a site: -static, with the shared
        # library, and over GCC's -mnop-mcount sites: each one's offset is
        # written while it is still a NOP, then its second byte
        toggles => [{}, { name => 'toggle-so', shared => 1 }, { name => 'toggle-nop', shared => 1,
            ccenv => { MCOUNT_CC_FLAGS => '-pg -mfentry -mnop-mcount -mrecord-mcount' } }],
        # function events: args.c's arguments in r2-r6 and the caller's
        # parameter area, with -mfentry too
        args => [{ name => 'args', cflags => ['-g'], dwarf => 1 }, { name => 'args-fentry', cflags => ['-mfentry'] }],
        # hooks (SysTrace's): both hooks run before the body, so
        # mcount_regs_arg reads r2-r6 and the caller's parameter area; no
        # redirect (ENOTSUP), the site's call is the hook's own return.
        # Built for the guest's z13 and later (the vector ABI: vectors in
        # v24-v31, which the library keeps), with _mcount and -mfentry;
        # eight functions a clobber round
        hooks => [{ name => 'hooks', cflags => ['-march=z13'], clobber => 8 },
            { name => 'hooks-fentry', cflags => ['-march=z13', '-mfentry'], clobber => 8 }],
        # entries that are no calls to the hook: refused, never written
        refused => [['bad_local', 'a call to something other than the hook'],
            ['bad_stub', 'a call to something other than the hook'],
            ['bad_next', 'a brasl %r14 not followed by lg %r14,8(%r15)'], ['bad_word', 'not a call instruction'],
            ['bad_more1', 'a NOP already (another tool changed it)']],
        forms => \&forms };
}

# the site forms objdump shows
sub forms {
    my ($c) = @_;
    my $dir = $c->{dir};
    # ---- the tracer: the oracle, every form of a site ----
    # objdump's view of each variant's calls to the hook: brasl %r14 between
    # the stg and the lg of _mcount's sequence, or brasl %r0 at a function's
    # first byte, to the PLT or to the hook itself.
    for my $v (@{ $c->{variants} }) {
        my ($name, $cf, undef, $mode) = @$v;
        my ($dst, $dis) = run_cmd([$c->{objdump}, '-d', "$dir/$name"]);
        my (%form, @prev, $first);
        for (split /\n/, $dis) {
            $first = 1, next if /\A[0-9a-f]+ <[^>]+>:\z/;
            next unless /\A\s*[0-9a-f]+:\s+((?:[0-9a-f]{2} )+)\s*(\S+)\s*(.*)/;
            my ($bytes, $op, $rest) = ($1, $2, $3);
            $form{nop}++ if $first && $op eq 'jgnop' && $rest =~ /\A([0-9a-f]+) <[^>+]+>\z/ && $bytes =~ /\Ac0 04 00 00 00 00/;
            if (@prev && $prev[0] eq 'brasl') {
                my ($preg, $ptarget, $pstg, $pfirst) = @prev[1 .. 4];
                my $form = $preg eq '%r14' && $pstg && $op eq 'lg' && $rest =~ /\A%r14,8\(%r15\)/ ? 'mcount'
                    : $preg eq '%r0' && $pfirst ? 'fentry' : undef;
                $form{"$form $ptarget"}++ if $form;
            }
            my $stg = @prev && $prev[0] eq 'stg' && $prev[5] =~ /\A%r14,8\(%r15\)/;
            @prev = ($op, ($rest =~ /\A(%r\d+),\S+ <(_mcount|__fentry__)(\@plt)?(?:\@\@GLIBC[\d._]+)?>/
                ? ($1, $3 ? 'plt' : 'direct') : ('', '')), $stg, $first, $rest);
            $first = 0;
        }
        my $want = ($v->[5] // {})->{MCOUNT_CC_FLAGS} ? 'nop'
            : ($cf->[0] ? 'fentry' : 'mcount') . ($mode eq 'so' ? ' plt' : ' direct');
        ok($form{$want} && $form{$want} >= 8 && keys %form == 1,
            "$name: objdump shows its sites as $want (" . join(', ', map { "$_ $form{$_}" } sort keys %form) . ')');
    }
    return;
}

1;
