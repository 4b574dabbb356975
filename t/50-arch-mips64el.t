#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# mips64el n64: CALL16+JALR with R_MIPS_NONE lines, jal, HIGHEST/HIGHER/HI16/LO16 (-mlong-calls), GOT_DISP (PIC -mlong-calls).
use strict;
use warnings;
use lib 't/lib';
use ArchTest qw(check_target);

check_target(name => 'mips64el', hook => 'mips', pic_runtime => 1,
    models => [['-O2'], ['-O2', '-mno-abicalls', '-fno-pic'],
        ['-O2', '-mno-abicalls', '-fno-pic', '-mlong-calls'], ['-Os', '-mlong-calls']],
    # the table's object brings its own ODK_REGINFO record, which ld -r
    # appends to .MIPS.options; the final link merges them into one
    allow => [qr/^section \.MIPS\.options#0 differs:/]);
