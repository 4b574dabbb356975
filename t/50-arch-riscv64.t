#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# riscv64: call _mcount (auipc+jalr, R_RISCV_CALL_PLT with R_RISCV_RELAX), PIE, PIC and -fno-pic; linked with --no-relax like the kernel.
use strict;
use warnings;
use lib 't/lib';
use ArchTest qw(check_target);

check_target(name => 'riscv64', hook => 'riscv64',
    models => [['-O2'], ['-O0', '-fno-pic'], ['-Os', '-fPIC', '-ffunction-sections']],
    link => ['-Wl,--no-relax']);
