#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# mcount-record --verify on GCC's -mnop-mcount table of s390x (its
# cross compiler and binutils): each entry is at the NOP GCC left
# instead of the call, and the object verifies, its NOPs counted
# (t/lib/RecordTest.pm; x86_64 and i386, and the rest of --verify:
# t/32-record-verify.t).
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw(need);
use RecordTest qw(nop_mcount_ok);

need('s390x-linux-gnu-gcc-12', 's390x-linux-gnu-objdump');
nop_mcount_ok('s390x', 's390x-linux-gnu-gcc-12', [], undef, '.quad');

done_testing();
