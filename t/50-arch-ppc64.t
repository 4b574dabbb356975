#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# ppc64 big-endian (ELFv1): bl _mcount; .text has no code symbols (only .opd descriptors), so every anchor is added.
use strict;
use warnings;
use lib 't/lib';
use ArchTest qw(check_target);

check_target(name => 'ppc64', hook => 'powerpc',
    models => [['-O2'], ['-Os', '-fno-pic', '-ffunction-sections'], ['-O0', '-fPIC']]);
