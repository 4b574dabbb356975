#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# --pass-over, for recording a whole image in one step (the kernel's
# vmlinux.o, whose ftrace code takes the hook's address): a reference to
# the hook that is no call is passed over with a note, the calls are
# recorded.  Without it the object is refused and left unchanged.  The
# expected table is the assembler's: each call stands at a function's
# first byte, so its entry is that function's symbol.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP must tmpdir run_cmd spit slurp record_pl);
use Oracle qw(table_sites);

my $dir = tmpdir();
spit("$dir/img.S", <<'EOF');
	.text
	.globl calls_a, calls_b, takes_address
	.type calls_a, @function
calls_a:
	call __fentry__
	ret
	.size calls_a, .-calls_a
	.type takes_address, @function
takes_address:
	mov $__fentry__, %rax           # R_X86_64_32S: no call
	lea __fentry__(%rip), %rdx      # R_X86_64_PC32 on a lea: no call
	ret
	.size takes_address, .-takes_address
	.type calls_b, @function
calls_b:
	call __fentry__
	ret
	.size calls_b, .-calls_b
	.section .note.GNU-stack,"",@progbits
EOF
must('gcc', '-c', "$dir/img.S", '-o', "$dir/img.o");
my $orig = slurp("$dir/img.o");
my %sym = map { (split ' ')[7] => hex((split ' ')[1]) } grep { /FUNC/ } split /\n/, must('readelf', '-sW', "$dir/img.o");

my @args = ('x86_64', 'little', '64', 'objdump', 'objcopy', 'gcc', 'ld', 'nm', '', '', '0', "$dir/img.o");
my ($st, undef, $err) = run_cmd(["$TOP/recordmcount.pl", @args]);
is($st >> 8, 1, 'without --pass-over: refused');
like($err, qr/relocation R_X86_64_32S against the profiling hook at \.text\+0x\w+ is not a call form known/,
    'without --pass-over: says which reference');
is(slurp("$dir/img.o"), $orig, 'without --pass-over: the object is unchanged');

($st, undef, $err) = run_cmd(["$TOP/recordmcount.pl", '--pass-over', @args]);
is($st, 0, '--pass-over: recorded') or diag $err;
my @notes = $err =~ /^recordmcount: \S+: note: .*$/mg;
is(scalar @notes, 2, '--pass-over: a note for each of the two references') or diag $err;
is_deeply([sort @{ table_sites("$dir/img.o") }],
    [sort map { sprintf '.text+0x%x', $sym{$_} } qw(calls_a calls_b)],
    '--pass-over: the table holds the two calls, at their functions');

# mcount-record --pass-over says the same
must('gcc', '-c', "$dir/img.S", '-o', "$dir/img2.o");
($st, my $out, $err) = run_cmd(["$TOP/bin/mcount-record", '--pass-over', "$dir/img2.o"]);
is($st, 0, 'mcount-record --pass-over: recorded') or diag $err;
like($out, qr/1 object recorded, 2 call sites/, 'mcount-record --pass-over: two call sites');

done_testing();
