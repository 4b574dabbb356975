#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: system
# libmcount-trace on mips, big-endian o32 (build/mips/), under
# full-system emulation: a kernel built from Debian's linux-source-6.1
# for the malta board (scripts/build-kernel mips: Debian 12 ships no
# big-endian mips kernel) booted by qemu-system-mips, a 24Kf, one CPU.
# The checks are t/92's, run by t/lib/MipsTrace.pm on the same o32
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
use lib 't/lib';
use MipsTrace qw(mips_trace);

mips_trace('mips');
