#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: system
# libmcount-trace on big-endian ppc64 (ELFv1: build/ppc64/), under
# full-system emulation: a kernel built from Debian's linux-source-6.1
# (scripts/build-kernel ppc64: Debian 12 ships no big-endian ppc64
# kernel) booted by qemu-system-ppc64 on the pseries machine, a POWER9,
# two CPUs, through SLOF.  The checks are t/87's (t/lib/PPC64Trace.pm
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
use strict;
use warnings;
use lib 't/lib';
use PPC64Trace qw(ppc64_trace);

ppc64_trace('ppc64');
