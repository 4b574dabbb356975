#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# mips o32 big-endian: CALL16+JALR (abicalls default), jal (kernel: -mno-abicalls -fno-pic), HI16+LO16 (kernel modules: -mlong-calls), GOT16 (PIC -mlong-calls).
use strict;
use warnings;
use lib 't/lib';
use ArchTest qw(check_target);

check_target(name => 'mips', hook => 'mips', pic_runtime => 1,
    models => [['-O2'], ['-O2', '-mno-abicalls', '-fno-pic'],
        ['-O2', '-mno-abicalls', '-fno-pic', '-mlong-calls'], ['-Os', '-mlong-calls']]);
