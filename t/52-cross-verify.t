#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# mcount-record --verify on GCC's -mnop-mcount table of s390x (its
# cross compiler and binutils): each entry is at the NOP GCC left
# instead of the call, and the object verifies, its NOPs counted
# (t/lib/RecordTest.pm; x86_64 and i386, and the rest of --verify:
# t/32-record-verify.t).  And mcount-cc's MCOUNT_CC_MODE=compiler for
# aarch64 and riscv64, with GCC and clang (t/114-cc-patchable.t's on
# x86_64): the flags of the target's row, an entry for each function nm
# lists, at the NOPs objdump shows there, in the object and in the
# static program, which runs under qemu.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw(need tmpdir spit must run_cmd $TOP);
use RecordTest qw(nop_mcount_ok);
use CcTest qw(mcc);

need('s390x-linux-gnu-gcc-12', 's390x-linux-gnu-objdump');
nop_mcount_ok('s390x', 's390x-linux-gnu-gcc-12', [], undef, '.quad');

my $dir = tmpdir();
spit("$dir/a.c", <<'EOF');
int g = 3;
int fa(int x) { return x + 1; }
static __attribute__((noinline)) int fs(int x) { return x * g; }
int fb(int x) { return fs(x) + 2; }
int main(void) { return fa(1) + fb(2) - 3; }
EOF
# [ target, compiler words, the row's flags, NOPs at each function ]
for my $t (['aarch64', ['aarch64-linux-gnu-gcc-12'], '-fpatchable-function-entry=2,0', 2],
           ['aarch64', ['clang', '--target=aarch64-linux-gnu'], '-fpatchable-function-entry=2,0', 2],
           ['riscv64', ['riscv64-linux-gnu-gcc-12'], '-fpatchable-function-entry=4,0', 4],
           ['riscv64', ['clang', '--target=riscv64-linux-gnu'], '-fpatchable-function-entry=4,0', 4]) {
    my ($arch, $cc, $flags, $n) = @$t;
    my $triple = "$arch-linux-gnu";
    need($cc->[0], "$triple-objdump", "$triple-nm", "$triple-gcc-12", "qemu-$arch");
    my $tag = "$arch @$cc";
    my $stem = "$arch-$cc->[0]";
    my %env = (MCOUNT_CC_MODE => 'compiler', MCOUNT_CC_CACHE => "$dir/cache");
    my ($st, $out, $err) = mcc(['--classify', @$cc, '-O2', '-c', 'a.c'], env => \%env, dir => $dir);
    like($out, qr/^add: \Q$flags\E\n/m, "$tag: compiled with $flags") or diag $err;
    ($st, $out, $err) = mcc([@$cc, '-O2', '-c', 'a.c', '-o', "$stem.o"], env => \%env, dir => $dir);
    is($st, 0, "$tag: compiled") or diag $err;
    ($st, $out, $err) = mcc([@$cc, '-O2', '-static', '-o', $stem, 'a.c'], env => \%env, dir => $dir);
    is($st, 0, "$tag: static program built") or diag $err;
    for my $file ("$dir/$stem.o", "$dir/$stem") {
        ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-record", '--verify', "--patchable=$n", $file]);
        is($st, 0, "$tag: --verify --patchable=$n $file") or diag $err;
        like($out, qr/OK, __patchable_function_entries: /, "$tag: $file: the compiler's table");
    }
    # nm's functions of the object, each with its entry, at N nop (objdump)
    my %f;
    for (split /\n/, must("$triple-nm", '--defined-only', "$dir/$stem.o")) {
        $f{$2} = hex $1 if /^([0-9a-f]+) [tT] (\S+)$/;
    }
    is_deeply([sort keys %f], [qw(fa fb fs main)], "$tag: nm's functions");
    ($st, $out) = run_cmd(["$TOP/bin/mcount-record", '--list', "$dir/$stem.o"]);
    is_deeply([sort map { /  (\w+)\+0x0\// ? $1 : "?$_" } split /\n/, $out], [qw(fa fb fs main)],
        "$tag: an entry at each function");
    my $dis = must("$triple-objdump", '-d', "$dir/$stem.o");
    for my $fn (sort keys %f) {
        my ($body) = $dis =~ /^[0-9a-f]+ <\Q$fn\E>:\n((?:\s+[0-9a-f]+:.*\n)+)/m;
        my @m = map { /^\s+[0-9a-f]+:\t[0-9a-f ]+\t(\S+)/ ? $1 : '' } split /\n/, $body // '';
        is_deeply([@m[0 .. $n - 1]], [('nop') x $n], "$tag: objdump: $fn begins with $n nop");
    }
    ($st) = run_cmd(["qemu-$arch", "$dir/$stem"]);
    is($st >> 8, 7, "$tag: the program runs (its own exit status: 2 + 8 - 3)");
}

done_testing();
