#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# recordmcount.pl's argument lists: the kernel's 12 (6.1), 11 (2009) and
# 9 (2008) forms, CC and LD as command strings with flags, Kbuild's empty
# RM and MV, kernel ARCH names, options, usage errors and --help/--version.
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use lib 't/lib';
use TestUtil qw($TOP $SRC run_cmd compile tmpdir slurp);
use Oracle qw(table_sites filter_sites kernel_section);

my $dir = tmpdir();
my $pl = "$TOP/recordmcount.pl";
my $o64 = compile("$SRC/corpus.c", "$dir/c64.o", '-O2', '-pg', '-mfentry');
my $g64 = compile("$SRC/corpus.c", "$dir/c64.gcc.o", '-O2', '-pg', '-mfentry', '-mrecord-mcount');
my $o32 = compile("$SRC/corpus.c", "$dir/c32.o", '-m32', '-O2', '-pg');
my $g32 = compile("$SRC/corpus.c", "$dir/c32.gcc.o", '-m32', '-O2', '-pg', '-mrecord-mcount');
my %kernel = (64 => filter_sites(table_sites($g64), \&kernel_section),
              32 => filter_sites(table_sites($g32), \&kernel_section));

my @forms = (
    ['6.1, Kbuild style', 64, ['x86', 'little', '64', 'objdump', 'objcopy',
        'gcc -D__KERNEL__ -Wall -O2 -pg -mfentry -DCC_USING_FENTRY -m64',
        'ld -m elf_x86_64 -z noexecstack --no-warn-rwx-segments', 'nm', '', '', '0']],
    ['6.1, i386 via x86 and BITS', 32, ['x86', 'little', '32', 'objdump', 'objcopy', 'gcc -m32', 'ld -m elf_i386',
        'nm', '', '', '1']],
    ['6.1, ARCH x86_64, bare tools', 64, ['x86_64', 'little', '64', 'objdump', 'objcopy', 'gcc', 'ld',
        'nm', 'rm', 'mv', '0']],
    ['6.1, ARCH i386, bare tools (flags come from the object)', 32, ['i386', 'little', '32', 'objdump',
        'objcopy', 'gcc', 'ld', 'nm', 'rm', 'mv', '0']],
    ['2009', 64, ['x86_64', '64', 'objdump', 'objcopy', 'gcc', 'ld', 'nm', 'rm', 'mv', '0']],
    ['2009 i386', 32, ['i386', '32', 'objdump', 'objcopy', 'gcc -m32', 'ld -m elf_i386', 'nm', 'rm', 'mv', '0']],
);
for my $f (@forms) {
    my ($name, $bits, $args) = @$f;
    my $o = "$dir/form.o";
    copy($bits == 64 ? $o64 : $o32, $o) or die;
    my ($st, $out, $err) = run_cmd([$pl, @$args, $o]);
    is($st, 0, "$name: exit 0") or diag $err;
    is($out, '', "$name: nothing on stdout");
    is_deeply(table_sites($o), $kernel{$bits}, "$name: table equals GCC's");
}

# explicit --entry and --sections override the form's defaults
{
    my $o = "$dir/opt.o";
    copy($o64, $o) or die;
    my ($st, $out, $err) = run_cmd([$pl, '--entry=call', '--sections=.text,.text.*', 'x86_64',
        'objdump', 'objcopy', 'gcc', 'ld', 'nm', 'rm', 'mv', $o]);
    is($st, 0, '2008 form with --entry=call --sections=LIST') or diag $err;
    is_deeply(table_sites($o), [grep { /^\.text(\.|\+)/ } @{ table_sites($g64) }],
        'the option values win over the 2008 defaults');
}

# usage errors: exit 2, a message, and the file untouched
my $before = slurp($o64);
for my $bad (
    [[], qr/expected 12, 11 or 9 arguments, got 0/],
    [[('x') x 10], qr/expected 12, 11 or 9 arguments, got 10/],
    [['x86', 'middle', '64', 'objdump', 'objcopy', 'gcc', 'ld', 'nm', '', '', '0', $o64], qr/ENDIAN must be big or little/],
    [['x86', 'little', '48', 'objdump', 'objcopy', 'gcc', 'ld', 'nm', '', '', '0', $o64], qr/BITS must be 32 or 64/],
    [['--entry=middle', 'x86_64', 'objdump', 'objcopy', 'gcc', 'ld', 'nm', 'rm', 'mv', $o64], qr/--entry must be call or reloc/],
    [['--sections=,', 'x86_64', 'objdump', 'objcopy', 'gcc', 'ld', 'nm', 'rm', 'mv', $o64], qr/bad --sections list/],
    [['--bogus', 'x86_64', 'objdump', 'objcopy', 'gcc', 'ld', 'nm', 'rm', 'mv', $o64], qr/^recordmcount: unrecognized option '--bogus'$/m],
    [['--B', 'x86_64', 'objdump', 'objcopy', 'gcc', 'ld', 'nm', 'rm', 'mv', $o64], qr/^recordmcount: unrecognized option '--B'$/m],
    [['vax', 'little', '64', 'objdump', 'objcopy', 'gcc', 'ld', 'nm', '', '', '0', $o64], qr/unknown architecture 'vax'/],
) {
    my ($args, $re) = @$bad;
    my ($st, $out, $err) = run_cmd([$pl, @$args]);
    is($st >> 8, 2, "usage error exits 2: @$args[0 .. ($#$args < 2 ? $#$args : 2)]");
    like($err, $re, "usage error message: $re");
}
ok(slurp($o64) eq $before, 'the object was never touched by a usage error');

# wrong word size for the object is bad input, not bad usage
{
    my ($st, $out, $err) = run_cmd([$pl, 'x86', 'little', '32', 'objdump', 'objcopy', 'gcc', 'ld', 'nm',
        '', '', '0', $o64]);
    is($st >> 8, 1, 'x86 BITS=32 on a 64-bit object: exit 1');
    like($err, qr/object is for x86_64, 64-bit little-endian, not i386/, 'and says why');
}

for my $h (['--help'], ['-h']) {
    my ($st, $out, $err) = run_cmd([$pl, @$h]);
    is($st, 0, "@$h exits 0");
    like($out, qr/^Usage: recordmcount\.pl .*ARCH ENDIAN BITS OBJDUMP/m, "@$h prints usage on stdout");
}
my ($st, $out) = run_cmd([$pl, '--version']);
is($st, 0, '--version exits 0');
like($out, qr/^recordmcount\.pl \(recordmcount\) \d+\.\d+\.\d+$/, '--version prints the version');

done_testing();
