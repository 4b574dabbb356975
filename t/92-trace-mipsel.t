#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: system
# libmcount-trace on mipsel (o32: build/mipsel/), under full-system
# emulation: Debian's 4kc-malta kernel booted by qemu-system-mipsel on
# the malta board, a 24Kf (MIPS32 release 2 with an FPU).  The checks
# are t/90's (t/lib/MipsTrace.pm runs both), on o32's sites:
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
use strict;
use warnings;
use lib 't/lib';
use MipsTrace qw(mips_trace);

mips_trace('mipsel');
