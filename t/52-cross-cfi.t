#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# rt/cfi.c on its own on the other architectures whose frames function
# events follow (t/lib/CfiTest.pm; x86_64, and what the check is:
# t/91-trace-cfi.t): the canonical frame address's rule at the first and
# the last address of every row, of every FDE, against each
# architecture's own readelf --debug-dump=frames-interp, in the C
# libraries and C++ runtimes of aarch64, riscv64 and ppc64le (their
# cross toolchains') and in the tracing library built for each
# (build/ARCH/, which make check-cross builds).  The same in DWARF's own
# .debug_frame, which GCC writes alone without unwind tables (riscv64's
# C code by default): cfi_test built so by the aarch64 and riscv64
# cross compilers.  Then damaged copies of the aarch64 library's
# .eh_frame under ASan and UBSan: any answer, never a report.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP need);
use CfiTest qw(cfi_build debug_frame_ok frames_ok damaged_ok);

need('aarch64-linux-gnu-gcc-12', 'riscv64-linux-gnu-gcc-12',
    map { "$_-linux-gnu-readelf" } qw(aarch64 riscv64 powerpc64le));
cfi_build();
my @DF = (debug_frame_ok('aarch64', 'aarch64-linux-gnu-gcc-12'), debug_frame_ok('riscv64', 'riscv64-linux-gnu-gcc-12'));
frames_ok(@$_) for @DF,
    ['aarch64', '/usr/aarch64-linux-gnu/lib/libc.so.6'], ['aarch64', '/usr/aarch64-linux-gnu/lib/libstdc++.so.6'],
    ['aarch64', "$TOP/build/aarch64/libmcount-trace.so"],
    ['riscv64', '/usr/riscv64-linux-gnu/lib/libc.so.6'], ['riscv64', "$TOP/build/riscv64/libmcount-trace.so"],
    ['ppc64le', '/usr/powerpc64le-linux-gnu/lib/libc.so.6'], ['ppc64le', "$TOP/build/ppc64le/libmcount-trace.so"];

# ---- damaged copies, under ASan and UBSan ----
srand(91);
damaged_ok('aarch64', "$TOP/build/aarch64/libmcount-trace.so", '.eh_frame');

done_testing();
