#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# aarch64: bl _mcount (R_AARCH64_CALL26), PIE default and kernel-style code.
use strict;
use warnings;
use lib 't/lib';
use ArchTest qw(check_target);

check_target(name => 'aarch64', hook => 'aarch64',
    models => [['-O2'], ['-O0', '-fno-pic'], ['-Os', '-fno-pic', '-ffunction-sections']]);
