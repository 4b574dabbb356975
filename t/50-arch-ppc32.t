#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# ppc32: bl _mcount, R_PPC_PLTREL24 (PIC default, addend 0x8000 with -fPIC) and R_PPC_REL24 (-fno-pic).
use strict;
use warnings;
use lib 't/lib';
use ArchTest qw(check_target);

check_target(name => 'ppc32', hook => 'powerpc',
    models => [['-O2'], ['-O2', '-fno-pic'], ['-Os', '-fPIC'], ['-O0', '-fno-pic', '-ffunction-sections']]);
