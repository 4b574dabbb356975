#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# Anchors for the cases compilers rarely produce, checked against tables the
# assembler computes (asm_cases.S writes each call's address into
# __mcount_expected), in both listing modes and both word sizes:
#   - code before the first symbol (negative deltas);
#   - a section whose only symbols are .L temporaries (kept by -Wa,-L);
#   - a section whose only symbol is local (globalized, then local again);
#   - two local symbols of one name in one section (ld -r of two objects):
#     neither may be globalized, an anchor is added instead;
#   - a section whose only function is weak: an anchor is added.
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use lib 't/lib';
use TestUtil qw($SRC run_cmd must compile record_pl tmpdir ld_emulation);
use Oracle qw(table_sites symbols section_headers);
use ObjDiff qw(diff_objects);

my $dir = tmpdir();
my $ANCHOR = qr/^\$mcount_anchor\S* \d+ 0 NOTYPE LOCAL DEFAULT /;

sub sym_named {
    my ($obj, $name) = @_;
    return grep { defined && $_->{name} eq $name } @{ symbols($obj) };
}

for my $m ([], ['-m32']) {
    for my $mode ([], ['--disassemble']) {
        my $name = join ' ', 'asm', @$m, @$mode;
        my $plain = compile("$SRC/asm_cases.S", "$dir/asm.o", @$m, '-Wa,-L');
        ok(scalar(sym_named($plain, '.Llonly_fn')), "$name: .L symbol is in the symbol table");
        my $rec = "$dir/asm.rec.o";
        copy($plain, $rec) or die;
        my ($st, undef, $err) = record_pl($rec, $m, @$mode);
        is($st, 0, "$name: recorded") or diag $err;
        is_deeply(table_sites($rec), table_sites($plain, '__mcount_expected'),
            "$name: table equals the assembler's own");
        my @d = diff_objects($plain, $rec, $ANCHOR);
        ok(!@d, "$name: nothing else changed") or diag join "\n", @d;
        my ($local) = sym_named($rec, 'asm_local_fn');
        is($local->{bind}, 'LOCAL', "$name: the globalized anchor is local again");
        ok(scalar(sym_named($rec, '$mcount_anchor.text.asm_lonly')),
            "$name: a section with only .L symbols gets an added anchor");
        ok(!grep({ $_->{name} =~ /^\.L/ && $_->{bind} ne 'LOCAL' } grep { defined } @{ symbols($rec) }),
            "$name: no .L symbol was globalized");
    }
}

# duplicate local names: ld -r of two objects, each with a static "helper"
for my $m ([], ['-m32']) {
    my @emul = ('-m', ld_emulation(@$m));
    compile("$SRC/$_.c", "$dir/$_.o", @$m, '-O2', '-pg', '-mfentry', (@$m ? '-fno-pie' : ()))
        for qw(dup_a dup_b);
    compile("$SRC/$_.c", "$dir/$_.gcc.o", @$m, '-O2', '-pg', '-mfentry', (@$m ? '-fno-pie' : ()),
        '-mrecord-mcount') for qw(dup_a dup_b);
    must('ld', @emul, '-r', '-o', "$dir/dup.o", "$dir/dup_a.o", "$dir/dup_b.o");
    must('ld', @emul, '-r', '-o', "$dir/dup.gcc.o", "$dir/dup_a.gcc.o", "$dir/dup_b.gcc.o");
    my @helpers = sym_named("$dir/dup.o", 'helper');
    is(scalar @helpers, 2, "dup @$m: two local symbols named helper");
    my ($st, undef, $err) = record_pl("$dir/dup.o", ['-mfentry', @$m]);
    is($st, 0, "dup @$m: recorded") or diag $err;
    is_deeply(table_sites("$dir/dup.o"), table_sites("$dir/dup.gcc.o"), "dup @$m: table equals GCC's");
    is_deeply([map { $_->{bind} } sym_named("$dir/dup.o", 'helper')], ['LOCAL', 'LOCAL'],
        "dup @$m: both helpers still local");
    my ($anchor) = sym_named("$dir/dup.o", '$mcount_anchor.text');
    ok($anchor && $anchor->{bind} eq 'LOCAL' && $anchor->{value} == 0,
        "dup @$m: .text anchored by an added local symbol at offset 0");
}

# a section whose only function is weak
{
    compile("$SRC/corpus.c", "$dir/c.o", '-O2', '-pg');
    my ($weak) = sym_named("$dir/c.o", 'corpus_weak_only');
    is($weak->{bind}, 'WEAK', 'corpus_weak_only is weak');
    my ($st, undef, $err) = record_pl("$dir/c.o", []);
    is($st, 0, 'weak-only corpus recorded') or diag $err;
    my ($anchor) = sym_named("$dir/c.o", '$mcount_anchor.text.weakonly');
    ok($anchor && $anchor->{bind} eq 'LOCAL', 'the weak-only section got a local anchor, not the weak symbol');
    ($weak) = sym_named("$dir/c.o", 'corpus_weak_only');
    is($weak->{bind}, 'WEAK', 'the weak function is still weak');
}

done_testing();
