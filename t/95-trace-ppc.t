#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# libmcount-trace on ppc32 (build/ppc/), under full-system emulation:
# 32-bit programs on t/94's kernel (scripts/build-kernel ppc64, COMPAT)
# on qemu-system-ppc64's pseries machine, a POWER9, two CPUs.  Fewer
# checks than t/87 and t/94 (t/lib/PPC64Trace.pm runs all three): every
# -pg program links glibc's own _mcount from libc_nonshared.a, so a
# preloaded library never gets its calls; programs are traced with the
# library linked in (.a) or linked shared (-lmcount-trace, through the
# BSS PLT entry ld makes then), and the checks of programs that are only
# preloaded (stripped, hazards, function events, Lua) are not run here.
#  - The machine runs code changed through /proc/self/mem
#    (t/src/trace/sys/smc.c: "f 1 2 3"); a dynamically linked ppc32
#    program runs in the guest (/lib/ld.so.1) as under qemu-ppc.
#  - The -finstrument-functions oracle (SysTrace): oracle.c built
#    through mcount-cc, linked with the shared library (every function
#    on at start-up), linked in as PIE and -static (on live from main),
#    gives the enter log event for event; with no filter, no event.  The
#    site, which objdump shows: `stw r0,4(r1); bl _mcount` (our hook) or
#    `bl _mcount@plt`; off, `nop` (lr stays the parent).
#  - Table entries that are no calls to the hook
#    (t/src/trace/ppc/badsite.S): each refused with a message, never
#    written; the calls still run.
#  - Live switching under load (toggle.c, SysTrace): threads on two CPUs,
#    one aligned store a site (bl <-> nop), -static and with the shared
#    library; no crash, events after each enable, none after each
#    disable, the program's own SIGTRAP and SIGSEGV handlers get theirs.
#    The cache maintenance after each store is read from the library.
#  - function_graph: oracle.c against its enter and exit log, each
#    variant (the slot is the word the site stored lr in, which the hook
#    reloads lr from: rt/hook-ppc.S).
use strict;
use warnings;
use lib 't/lib';
use PPC64Trace qw(ppc64_trace);

ppc64_trace('ppc');
