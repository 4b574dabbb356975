#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# Cross targets: kernel ARCH names resolve to the object's row, and what the
# table does not describe is an error naming it, with the object untouched:
# a relocation type against the hook that is no call form, a site relocation
# not on its call, sh4's literal word no jmp uses, a mips companion with no
# site before it, a word size or byte order no row has.
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use lib 't/lib';
use TestUtil qw($TOP run_cmd must tmpdir slurp spit have);
use RecordMcount::Arch qw(arch_rows);

my $dir = tmpdir();
my $scan = "$TOP/build/mcount-scan";

# target, triple, kernel ARCH, endian, bits: every row of arches.tab
# but x86's (x86_64 and i386, the host tier's)
my @targets = map { [$_->{name}, $_->{triple}, $_->{kernel}, $_->{endian}, $_->{class}] }
    grep { $_->{name} ne 'x86_64' && $_->{name} ne 'i386' } arch_rows();

my $list = must($scan, '--list-arches');
for my $t (@targets, ['x86_64'], ['i386']) {
    like($list, qr/^\Q$t->[0]\E\t/m, "--list-arches lists $t->[0]");
}

my @missing = grep { !have("$_->[1]-gcc-12") || !have("$_->[1]-objdump") } @targets;
if (@missing) {
    my $why = 'not installed: ' . join(' ', map { "$_->[1]-gcc-12" } @missing)
        . ' (run scripts/install-deps)';
    if ($ENV{CI}) { fail($why) } else { diag "skipping the rest: $why" }
    done_testing();
    exit;
}

spit("$dir/f.c", "int g(int);\nint pub(int x) { return g(x) + 1; }\n");
for my $t (@targets) {
    my ($name, $triple, $karch, $endian, $bits) = @$t;
    must("$triple-gcc-12", '-O2', '-pg', '-c', "$dir/f.c", '-o', "$dir/$name.o");
    my $id = must($scan, '--identify', '--object', "$dir/$name.o", '--arch', $karch,
        '--bits', $bits, '--endian', $endian);
    like($id, qr/^arch\t\Q$name\E$/m, "kernel ARCH $karch $endian $bits is $name");
}

# recordmcount.pl on an object assembled from $src; must fail naming $re
sub refused {
    my ($what, $triple, $karch, $endian, $bits, $src, $re) = @_;
    spit("$dir/bad.s", $src);
    must("$triple-gcc-12", '-c', "$dir/bad.s", '-o', "$dir/bad.o");
    copy("$dir/bad.o", "$dir/bad.orig.o") or die;
    my ($st, undef, $err) = run_cmd(["$TOP/recordmcount.pl", $karch, $endian, $bits,
        map({ "$triple-$_" } qw(objdump objcopy gcc-12 ld)), 'nm', '', '', '0', "$dir/bad.o"]);
    is($st >> 8, 1, "$what: refused");
    like($err, $re, "$what: says why");
    is(slurp("$dir/bad.o"), slurp("$dir/bad.orig.o"), "$what: object untouched");
    return;
}

refused('aarch64 data word against _mcount', 'aarch64-linux-gnu', 'arm64', 'little', 64,
    "\t.text\n\t.globl f\nf:\tnop\n\t.quad _mcount\n",
    qr/relocation R_AARCH64_ABS64 against the profiling hook at \.text\+0x4 is not a call form known for aarch64/);
refused('aarch64 tail call to _mcount', 'aarch64-linux-gnu', 'arm64', 'little', 64,
    "\t.text\n\t.globl f\nf:\tnop\n\tb _mcount\n",
    qr/relocation R_AARCH64_JUMP26 .* not a call form known for aarch64/);
refused('aarch64 CALL26 on a nop', 'aarch64-linux-gnu', 'arm64', 'little', 64,
    "\t.text\n\t.globl f\nf:\tnop\n\t.reloc ., R_AARCH64_CALL26, _mcount\n\tnop\n",
    qr/R_AARCH64_CALL26 relocation at \.text\+0x4 is not on a call instruction \(bytes 1f 20 03 d5/);
refused('sh4 literal word no jmp uses', 'sh4-linux-gnu', 'sh', 'little', 32,
    "\t.text\n\t.globl f\nf:\tnop\n\tnop\n\t.align 2\n\t.long mcount\n",
    qr/R_SH_DIR32 relocation at \.text\+0x4 is not used by a call/);
refused('mips LO16 with no HI16 before it', 'mips-linux-gnu', 'mips', 'big', 32,
    "\t.text\n\t.globl f\nf:\taddiu \$2, \$2, %lo(_mcount)\n\tnop\n",
    qr/R_MIPS_LO16 relocation at \.text\+0x0 belongs to a call sequence, but no call site relocation/);

my ($st, undef, $err) = run_cmd(["$TOP/recordmcount.pl", 'mips', 'big', '64', 'objdump',
    'objcopy', 'gcc', 'ld', 'nm', '', '', '0', "$dir/mips.o"]);
is($st >> 8, 2, 'mips 64-bit big-endian: usage error');
like($err, qr/architecture 'mips' is not supported as 64-bit big-endian/, 'mips 64-bit big-endian: says so');

done_testing();
