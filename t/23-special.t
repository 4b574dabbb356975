#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# Objects the record step must leave alone or treat with care: no call
# sites, already recorded (by GCC or by us), LTO, CET property notes, stack
# notes, C++ COMDAT groups, and code for a shared library whose symbols
# are preemptible.
use strict;
use warnings;
no warnings 'portable';    # 64-bit relocation info through hex()
use Test::More;
use File::Copy qw(copy);
use lib 't/lib';
use TestUtil qw($SRC run_cmd must compile record_pl tmpdir slurp spit leftovers);
use TraceTest qw($TSRC);
use Oracle qw(table_sites readelf section_headers symbols);

my $dir = tmpdir();

# no call sites: byte-identical
{
    my $o = compile("$SRC/corpus.c", "$dir/nopg.o", '-O2');
    my $before = slurp($o);
    my ($st, $out, $err) = record_pl($o, []);
    is($st, 0, 'object without -pg: success');
    is($err, '', 'object without -pg: nothing said');
    ok(slurp($o) eq $before, 'object without -pg: byte-identical');
}

# already recorded: by GCC, and by a first run of our own
for my $case (['GCC -mrecord-mcount', '-mrecord-mcount'], ['recorded twice', undef]) {
    my ($what, $flag) = @$case;
    my $o = compile("$SRC/corpus.c", "$dir/rec.o", '-O2', '-pg', '-mfentry', $flag // ());
    if (!$flag) {
        my ($st) = record_pl($o, []);
        is($st, 0, "$what: first run succeeds");
    }
    my $before = slurp($o);
    my ($st, $out, $err) = record_pl($o, []);
    is($st, 0, "$what: exit 0");
    like($err, qr/^recordmcount: \Q$o\E: note: already has a __mcount_loc table; left unchanged$/m,
        "$what: a note says so");
    ok(slurp($o) eq $before, "$what: byte-identical");
}

# LTO: no machine code to record
{
    my $o = compile("$SRC/corpus.c", "$dir/lto.o", '-O2', '-pg', '-flto');
    my $before = slurp($o);
    my ($st, $out, $err) = record_pl($o, []);
    is($st >> 8, 1, 'LTO object: exit 1');
    like($err, qr/^recordmcount: \Q$o\E: an LTO object has no machine code to record/, 'LTO object: message');
    ok(slurp($o) eq $before, 'LTO object: unchanged');
    my $fat = compile("$SRC/corpus.c", "$dir/fat.o", '-O2', '-pg', '-flto', '-ffat-lto-objects');
    my $gcc = compile("$SRC/corpus.c", "$dir/fat.gcc.o", '-O2', '-pg', '-flto', '-ffat-lto-objects',
        '-mrecord-mcount');
    ($st, $out, $err) = record_pl($fat, []);
    is($st, 0, 'fat LTO object: recorded') or diag $err;
    is_deeply(table_sites($fat), [grep { !/exotic_text/ } @{ table_sites($gcc) }],
        "fat LTO object: its machine code's table equals GCC's");
}

# CET: IBT and SHSTK survive; the stack stays non-executable; ld says nothing
for my $m ([], ['-m32']) {
    my $o = compile("$SRC/corpus.c", "$dir/cet.o", @$m, '-O2', '-pg', '-fcf-protection=full');
    like(readelf('-n', $o), qr/x86 feature: IBT, SHSTK/, "CET @$m: input has IBT, SHSTK");
    my ($st, $out, $err) = record_pl($o, $m);
    is($st, 0, "CET @$m: recorded");
    is($err, '', "CET @$m: no warning from ld");
    like(readelf('-n', $o), qr/x86 feature: IBT, SHSTK/, "CET @$m: output still has IBT, SHSTK");
    my ($stack) = grep { $_->{name} eq '.note.GNU-stack' } @{ section_headers($o) };
    unlike($stack->{flags}, qr/X/, "CET @$m: stack note not executable");
    must('gcc', @$m, '-r', '-nostdlib', '-o', "$dir/cet-linked.o", $o);
}

# an object with no stack note keeps having none (and ld -r adds none)
{
    TestUtil::spit("$dir/nonote.s", ".text\n.globl f\nf: call mcount\nret\n");
    my $o = "$dir/nonote.o";
    must('as', '--64', '-o', $o, "$dir/nonote.s");
    my ($st, $out, $err) = record_pl($o, []);
    is($st, 0, 'no stack note: recorded') or diag $err;
    ok(!grep({ $_->{name} eq '.note.GNU-stack' } @{ section_headers($o) }), 'no stack note: still none');
    is_deeply(table_sites($o), ['.text+0x0'], 'no stack note: one entry at the call');
}

# C++ inline functions live in COMDAT groups: a table outside the group
# would break the link when the group is dropped, so those sites are left
# out with a warning, and two objects with the same inline function link.
{
    TestUtil::spit("$dir/inl.h", "inline __attribute__((noinline)) int twice(int x) { return 2 * x; }\n");
    TestUtil::spit("$dir/u1.cc", "#include \"inl.h\"\nint u1(int x) { return twice(x) + 1; }\n");
    TestUtil::spit("$dir/u2.cc", "#include \"inl.h\"\nint u1(int);\nint main(int c, char **) { return twice(c) + u1(c) - 4 * c - 1; }\n");
    for my $u (qw(u1 u2)) {
        must('g++', '-O2', '-pg', '-c', "$dir/$u.cc", '-o', "$dir/$u.o");
        my ($st, $out, $err) = record_pl("$dir/$u.o", []);
        is($st, 0, "C++ $u: recorded") or diag $err;
        like($err, qr/warning: \.text\._Z5twicei: 1 call site not recorded: the section is in a COMDAT group/,
            "C++ $u: the COMDAT section's site is left out with a warning");
        ok(scalar(grep { /^\.text\+/ || /^\.text\.startup\+/ } @{ table_sites("$dir/$u.o") }),
            "C++ $u: its other sites are recorded");
    }
    TestUtil::spit("$dir/stub.s", ".text\n.globl mcount\nmcount: ret\n.section .note.GNU-stack,\"\",\@progbits\n");
    must('g++', '-o', "$dir/cxx", "$dir/u1.o", "$dir/u2.o", "$dir/stub.s");
    my ($st) = run_cmd(["$dir/cxx"]);
    is($st, 0, 'C++: the two objects link and run');
}

# PIC code (a shared library, a PIE): a read-only table of absolute addresses needs text relocations;
# --writable-table gives ordinary dynamic relocations
{
    spit("$dir/hook.s", ".text\n.globl mcount\nmcount: ret\n.section .note.GNU-stack,\"\",\@progbits\n");
    for my $w ([], ['--writable-table']) {
        my $o = compile("$SRC/corpus.c", "$dir/pie.o", '-O2', '-pg', '-fPIC');
        my ($st, $out, $err) = run_cmd(["$TestUtil::TOP/bin/mcount-record", '-q', @$w, $o]);
        is($st, 0, "PIC @$w: recorded") or diag $err;
        ($st, $out, $err) = run_cmd(['gcc', '-shared', '-o', "$dir/pie", $o, "$dir/hook.s"]);
        is($st, 0, "PIC @$w: links into a shared library") or diag $err;
        my $textrel = readelf('-d', "$dir/pie") =~ /TEXTREL/;
        if (@$w) {
            ok(!$textrel, 'writable table: no DT_TEXTREL');
            unlike($err, qr/read-only section|TEXTREL/, 'writable table: the linker says nothing');
        } else {
            ok($textrel, 'read-only table (the default, as GCC writes it): DT_TEXTREL');
        }
    }
}

# A shared library whose code has only global functions of default
# visibility (t/src/trace/preempt_lib.c), each preemptible: an entry
# anchored on one becomes a symbolic dynamic relocation, which another
# object's definition of the symbol moves.  A writable table (for a PIE or
# a shared library) takes no such anchor: its relocations are against
# local symbols, and the library's are all R_X86_64_RELATIVE, at GCC's
# own table's places (readelf and nm, mapped through pre_first).  A
# read-only table (the kernel's convention) keeps the global anchor;
# --list reads its symbolic relocations right, and --verify says each
# entry could move.
{
    my $gcc = compile("$TSRC/preempt_lib.c", "$dir/pgcc.o", '-O2', '-pg', '-fPIC', '-mrecord-mcount');
    my $want = table_sites($gcc);
    my %value = map { $_->{name} => $_->{value} } grep { $_ && $_->{type} eq 'FUNC' } @{ symbols($gcc) };
    cmp_ok(scalar @$want, '==', 2, "GCC's table of preempt_lib.c: @$want");
    my %at;   # each library's addresses of GCC's entries
    for my $w (['--writable-table'], []) {
        my $what = @$w ? 'writable table' : 'read-only table';
        my $o = compile("$TSRC/preempt_lib.c", "$dir/pre.o", '-O2', '-pg', '-fPIC');
        my ($st, $out, $err) = run_cmd(["$TestUtil::TOP/bin/mcount-record", '-q', @$w, $o]);
        is($st, 0, "preempt_lib.c, $what: recorded") or diag $err;
        is_deeply(table_sites($o), $want, "preempt_lib.c, $what: GCC's entries");
        my $syms = symbols($o);
        my ($in, @anchor);
        for (split /\n/, readelf('-r', $o)) {
            $in = $1 eq '.rela__mcount_loc' if /^Relocation section '([^']*)'/;
            push @anchor, $syms->[ hex($1) >> 32 ] if $in && /^[0-9a-f]+\s+([0-9a-f]+)\s+R_X86_64_64\s/;
        }
        is(scalar @anchor, 2, "preempt_lib.c, $what: two relocations in .rela__mcount_loc");
        my $so = "$dir/libpre" . (@$w ? 'w' : 'r') . '.so';
        ($st, $out, $err) = run_cmd(['gcc', '-shared', '-o', $so, $o, "$dir/hook.s"]);
        is($st, 0, "preempt_lib.c, $what: links into a shared library") or diag $err;
        my %nm = map { $_->{name} => $_->{value} } grep { $_ && $_->{type} eq 'FUNC' } @{ symbols($so) };
        my $base = $nm{pre_first} - $value{pre_first};
        $at{$so} = [map { /\+0x([0-9a-f]+)\z/ ? $base + hex $1 : -1 } @$want];
        my ($tab) = grep { $_->{name} eq '__mcount_loc' } @{ section_headers($so) };
        my @dyn = grep { /^([0-9a-f]+)\s/ && hex($1) >= $tab->{addr} && hex($1) < $tab->{addr} + $tab->{size} }
            split /\n/, readelf('-r', $so);
        if (@$w) {
            ok(!grep({ $_->{bind} ne 'LOCAL' } @anchor), 'writable table: anchored on a local symbol ('
                . join(' ', map { "$_->{bind} $_->{name}" } @anchor) . ')');
            is_deeply([sort { $a <=> $b } map { /\sR_X86_64_RELATIVE\s+([0-9a-f]+)\s*\z/ ? hex $1 : -1 } @dyn],
                [sort { $a <=> $b } @{ $at{$so} }], 'writable table: each dynamic relocation of the library\'s '
                . 'table relative, to an entry of GCC\'s');
            ($st, $out, $err) = run_cmd(["$TestUtil::TOP/bin/mcount-record", '--verify', $so]);
            is("$st $err", '0 ', 'writable table: --verify passes the library');
        } else {
            is_deeply([map { "$_->{bind} $_->{name}" } @anchor], ['GLOBAL pre_first', 'GLOBAL pre_first'],
                'read-only table: anchored on the first global function, as the kernel\'s script does');
            is(scalar(grep { /\sR_X86_64_64\s+[0-9a-f]+\s+pre_first \+/ } @dyn), 2,
                'read-only table: two symbolic relocations against pre_first in the library');
            ($st, $out) = run_cmd(["$TestUtil::TOP/bin/mcount-record", '--list', $so]);
            is_deeply([map { /\A([0-9a-f]+)\s/ ? hex $1 : -1 } split /\n/, $out], [sort { $a <=> $b } @{ $at{$so} }],
                'read-only table: --list resolves them to the entries of GCC\'s');
            ($st, $out, $err) = run_cmd(["$TestUtil::TOP/bin/mcount-record", '--verify', $so]);
            is(scalar(() = $err =~ /: entry relocated against the global symbol pre_first: another object's pre_first would move it at load time$/mg),
                2, 'read-only table: --verify says each entry could move') or diag $err;
            isnt($st, 0, 'read-only table: --verify fails');
        }
    }
}

is_deeply([leftovers($dir)], [], 'no temporary files left');
done_testing();
