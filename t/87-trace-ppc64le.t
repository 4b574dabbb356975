#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: system
# libmcount-trace on ppc64le (ELFv2: build/ppc64le/), under full-system
# emulation: Debian's ppc64el kernel booted by qemu-system-ppc64 on the
# pseries machine, a POWER9, through SLOF (t/lib/QemuSystem.pm says why
# not qemu-user).  The checks are t/94's (t/lib/PPC64Trace.pm runs both),
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
use strict;
use warnings;
use lib 't/lib';
use PPC64Trace qw(ppc64_trace);

ppc64_trace('ppc64le');
