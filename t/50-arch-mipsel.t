#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# mips o32 little-endian: the same call forms as big-endian mips.
use strict;
use warnings;
use lib 't/lib';
use ArchTest qw(check_target);

check_target(name => 'mipsel', hook => 'mips', pic_runtime => 1,
    models => [['-O2'], ['-O0', '-mno-abicalls', '-fno-pic'],
        ['-Os', '-mno-abicalls', '-fno-pic', '-mlong-calls', '-ffunction-sections']]);
