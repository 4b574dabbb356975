#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# s390x: stg + brasl _mcount (entry: the stg) and brasl __fentry__ (-mfentry); tables equal GCC's -mrecord-mcount.
use strict;
use warnings;
use lib 't/lib';
use ArchTest qw(check_target);

check_target(name => 's390x', hook => 's390x', gcc_oracle => 1,
    models => [['-O2'], ['-O2', '-fno-pic'], ['-O0', '-mfentry'], ['-Os', '-mfentry', '-fPIC', '-ffunction-sections']]);
