#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: system
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
# Everything runs in one boot (t/lib/MipsTrace.pm, shared with t/92's
# mipsel): a check of another program is one more job there.
#  - A -pg shared library beside its program, preloaded, bound lazily
#    and at start-up: every event of its functions (SysTrace's plug).
use strict;
use warnings;
use lib 't/lib';
use MipsTrace qw(mips_trace);

mips_trace('mips64el');
