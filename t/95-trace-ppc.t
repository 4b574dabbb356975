#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: system
# libmcount-trace on ppc32 (build/ppc/), under full-system emulation:
# 32-bit programs on t/94's kernel (scripts/build-kernel ppc64, COMPAT)
# on qemu-system-ppc64's pseries machine, a POWER9, two CPUs.  t/87's
# and t/94's checks (t/lib/PPC64Trace.pm runs all three).  Every -pg
# program links glibc's own _mcount from libc_nonshared.a, which calls
# __mcount_internal: the library defines that instead of _mcount (which
# would give it ld's BSS PLT, an RWX segment: its program headers are
# read), and is preloaded or linked in as on ppc64.
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
use strict;
use warnings;
use lib 't/lib';
use PPC64Trace qw(ppc64_trace);

ppc64_trace('ppc');
