#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# ppc64le (ELFv2): bl _mcount (R_PPC64_REL24) after the global/local entry prologue.
use strict;
use warnings;
use lib 't/lib';
use ArchTest qw(check_target);

check_target(name => 'ppc64le', hook => 'powerpc',
    models => [['-O2'], ['-O0', '-fno-pic'], ['-Os', '-fPIC', '-ffunction-sections']]);
