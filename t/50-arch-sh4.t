#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# sh4: the relocation (R_SH_DIR32) is on the literal word that jmp @r1 uses; the entry is that word, the kernel's convention.
use strict;
use warnings;
use lib 't/lib';
use ArchTest qw(check_target);

check_target(name => 'sh4', triple => 'sh4-linux-gnu', karch => 'sh',
    endian => 'little', bits => 32, qemu => 'qemu-sh4', hook => 'sh4',
    models => [['-O0', '-fno-pic'], ['-O0', '-fPIC', '-ffunction-sections']],
    # GCC 12's sh4 code at -O1 and above tests the T bit after a call
    # without setting it (main's loop over asm_ptrs, check.c's ifs); the
    # same start-up code in Debian's glibc hangs: run -O0 code only
    record_only => [['-O2'], ['-Os', '-fPIC']], runtime_opt => '-O0',
    record_only_why => 'GCC 12 sh4 code above -O0 misbehaves under qemu-sh4',
    # Debian 12's sh4 glibc programs hang or crash at start under qemu-sh4
    # 7.2 (a plain hello world does): the program brings its own start-up
    freestanding => ['start.S', 'mini_libc.c'], link => ['-nostdlib']);
