#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# sh4: the relocation (R_SH_DIR32) is on the literal word that jmp @r1 uses; the entry is that word, the kernel's convention.
#
# Debian 12's sh4-linux-gnu-gcc-12 (12.2.0-13) deletes the load and the
# test of `if (*p)` at -O1 and above (its sh_treg_combine passes take the
# load for a store of the T bit): objdump of a probe shows it, and the
# corpus's -O2 program crashes under qemu-sh4.  Every compile here loads
# the GCC plugin of scripts/gcc-sh4-treg-off.cc (make
# build/sh4/treg-off.so), which turns those passes off; then the -O2 and
# -Os code runs and checks its table as the -O0 code does.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use ArchTest qw(check_target);
use TestUtil qw($TOP must run_cmd tmpdir spit have);

my $plugin = "$TOP/build/sh4/treg-off.so";
my $gcc = 'sh4-linux-gnu-gcc-12';
if (have($gcc) && -f $plugin) {
    # the probe: with the plugin the function loads *p and tests it
    my $dir = tmpdir();
    spit("$dir/probe.c", "int probe(int *p) { return *p ? 7 : 9; }\n");
    my %ops;
    for my $with (0, 1) {
        must($gcc, '-O2', $with ? "-fplugin=$plugin" : (), '-c', '-o', "$dir/probe$with.o", "$dir/probe.c");
        my (undef, $dis) = run_cmd(['sh4-linux-gnu-objdump', '-d', "$dir/probe$with.o"]);
        my ($body) = $dis =~ /<probe>:\n(.*?)(?:\n\n|\z)/s;
        $ops{$with} = join '; ', map { /\A\s*[0-9a-f]+:\s+[0-9a-f]{2} [0-9a-f]{2}\s+(\S+(?:\s+\S+)?)/ ? $1 =~ s/\s+/ /r : () }
            split /\n/, $body // '';
    }
    like($ops{1}, qr/mov\.l \@r4,r\d+;.*\btst\b/,
        "with the plugin, $gcc -O2 loads *p and tests it ($ops{1})");
    # what the compiler does without it (a note: a fixed compiler is no failure)
    note(($ops{0} =~ /mov\.l \@r4,/ ? 'without the plugin it loads *p too' : 'without the plugin it loads nothing')
        . " ($ops{0})");
}

check_target(name => 'sh4', hook => 'sh4',
    models => [['-O0', '-fno-pic'], ['-O0', '-fPIC', '-ffunction-sections'], ['-O2'], ['-Os', '-fPIC']],
    plugin => $plugin,
    # Debian 12's sh4 glibc programs hang or crash at start under qemu-sh4
    # 7.2 (a plain hello world does; its C library was built by the same
    # compiler): the program brings its own start-up
    freestanding => ['start.S', 'mini_libc.c'], link => ['-nostdlib']);
