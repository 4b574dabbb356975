#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# arm: push {lr}; bl __gnu_mcount_nc in Thumb-2 (R_ARM_THM_CALL, Debian's default) and ARM (R_ARM_CALL), PIC, -mlong-calls and kernel-style code.
use strict;
use warnings;
use lib 't/lib';
use ArchTest qw(check_target);

check_target(name => 'arm', hook => 'arm',
    models => [['-O2'], ['-O2', '-marm', '-fno-pic'], ['-Os', '-mthumb', '-fPIC', '-ffunction-sections'],
        ['-O0', '-marm', '-mlong-calls']],
    thumb => 1);
