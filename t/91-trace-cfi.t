#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# rt/cfi.c on its own (t/src/trace/cfi_test.c links it with rt/elf.c's
# section reader): the canonical frame address's rule, which function
# events on aarch64 follow to an argument on the stack (DW_OP_fbreg from
# DW_OP_call_frame_cfa), against binutils' readelf
# --debug-dump=frames-interp, which interprets every FDE of .eh_frame
# into its table of rows (t/lib/CfiTest.pm).  At the first and the last
# address of every row, of every FDE, in x86_64's C library and C++
# runtime (FDEs with personality routines and LSDAs, signal frames,
# remember/restore_state, advance_loc of every size) and in the tracing
# library itself: the same register and offset, or no rule where
# readelf shows an expression.  The same in DWARF's own .debug_frame,
# which GCC writes alone without unwind tables: cfi_test built so.  Then
# damaged copies (bytes of .eh_frame or .debug_frame changed at random,
# the section cut short) under ASan and UBSan: any answer, never a
# report.  The same on aarch64, riscv64 and ppc64le: t/52-cross-cfi.t.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP);
use CfiTest qw(cfi_build debug_frame_ok frames_ok damaged_ok);

cfi_build();
my $df = debug_frame_ok('x86_64', 'gcc');
frames_ok(@$_) for $df,
    ['x86_64', '/lib/x86_64-linux-gnu/libc.so.6'], ['x86_64', '/usr/lib/x86_64-linux-gnu/libstdc++.so.6'],
    ['x86_64', "$TOP/build/libmcount-trace.so"];

# ---- damaged copies, under ASan and UBSan ----
srand(91);
damaged_ok('x86_64', "$TOP/build/libmcount-trace.so", '.eh_frame');
damaged_ok('x86_64', $df->[1], '.debug_frame');

done_testing();
