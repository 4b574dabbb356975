#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# sparc64: call _mcount after the save, R_SPARC_WPLT30 (PIC default) and R_SPARC_WDISP30 (-fno-pic).
use strict;
use warnings;
use lib 't/lib';
use ArchTest qw(check_target);

check_target(name => 'sparc64', hook => 'sparc64',
    models => [['-O2'], ['-O2', '-fno-pic'], ['-Os', '-fPIC', '-ffunction-sections']]);
