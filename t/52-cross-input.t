#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# An object for another architecture than the one asked for, made with
# the aarch64 cross compiler: recordmcount.pl asked for x86 refuses it
# with the object byte-identical afterwards, mcount-cc asked for x86
# (the host compiler) and handed it removes it (exit 100); and
# mcount-record given aarch64's tools (--cross) on an x86 object refuses
# that, naming the objdump to use.  (Bad and odd input on this machine:
# t/62-input.t.)
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use lib 't/lib';
use TestUtil qw($TOP $SRC run_cmd must compile tmpdir slurp leftovers need);
use Harden qw(front_end refused);

need('aarch64-linux-gnu-gcc-12', 'aarch64-linux-gnu-objdump');
my $cross = 'aarch64-linux-gnu-gcc-12';
my $dir = tmpdir();
my $wd = tmpdir();
my $good = compile("$SRC/corpus.c", "$wd/good.o", '-O2', '-pg', '-mfentry');
my $bytes = slurp($good);

my $f = "$dir/arch.o";
must($cross, '-O2', '-pg', '-c', "$SRC/corpus.c", '-o', $f);
my $before = slurp($f);
my ($st, undef, $err) = front_end('pl', $f);
refused($dir, 'pl', $f, 'aarch64 object, x86 asked', $st, $err,
    qr/object is for aarch64, 64-bit little-endian, not x86_64/, $before);
# mcount-cc asked for x86 (the host compiler) and handed an aarch64
# object; mcount-record asked for aarch64 tools on an x86 object
($st, undef, $err) = front_end('mcc', $f);
is($st >> 8, 100, 'mcc, aarch64 object from an x86 compiler: exit 100');
ok(!-e $f, 'mcc, aarch64 object from an x86 compiler: removed');
copy($good, $f) or die;
($st, undef, $err) = run_cmd(["$TOP/bin/mcount-record", '-q', '--cross=aarch64-linux-gnu-', $f]);
is($st >> 8, 1, 'mr, x86 object with aarch64 tools: exit 1');
ok(slurp($f) eq $bytes, 'mr, x86 object with aarch64 tools: unchanged');
is_deeply([leftovers($dir)], [], 'mr, x86 object with aarch64 tools: no temporary files');
like($err, qr/this objdump cannot decode x86_64 code \(it reads the object as generic elf64-little\): use x86_64-linux-gnu-objdump/,
    'mr, x86 object with aarch64 tools: the message names the objdump');

done_testing();
