#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# mcount-scan --linked on the other architectures (their cross compilers
# and binutils): a static program of aarch64 (bl _mcount,
# R_AARCH64_CALL26) and of riscv64 (auipc+jalr, or jal where the linker
# relaxed it; and linked with --no-relax), linked with -q beside the
# placeholder table, scanned through objdump's -r and -dr listings; the
# answer is the disassembly's calls to the hook's address
# (t/lib/LinkedScan.pm; x86_64 and i386: t/33-linked-scan.t).
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw(have);
use LinkedScan qw($DIR placeholder obj disasm_calls hook_addr linked_case);

for my $t (['aarch64', 'aarch64-linux-gnu', '_mcount', []],
           ['riscv64', 'riscv64-linux-gnu', '_mcount', []],
           ['riscv64', 'riscv64-linux-gnu', '_mcount', ['-Wl,--no-relax']]) {
    my ($arch, $triple, $hook, $extra) = @$t;
    my $cc = "$triple-gcc-12";
    my $objdump = "$triple-objdump";
    my $tag = "$arch" . (@$extra ? '-norelax' : '');
    {
        unless (have($cc) && have($objdump)) {
            fail("$cc or $objdump is not installed (run scripts/install-deps)");
            last;
        }
        my $ph = placeholder($arch, 8, [$cc]);
        my $o = obj([$cc], $tag, "$DIR/prog.c", qw(-O2 -pg));
        linked_case(name => "$tag-static", cc => [$cc], link => ['-static', @$extra],
            objs => [$o, $ph], objdump => $objdump,
            oracle => sub { disasm_calls($_[0], $_[1], hook_addr($_[0], $_[1], $hook)) });
    }
}

done_testing();
