#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# mcount-record: record, --list (text and JSON), --dry-run and --remove on a
# small multi-file project (static, global and weak functions, a section
# holding only a weak function), under x86_64/i386 and mcount/__fentry__.
# Every table is checked against GCC's own -mrecord-mcount table of the
# same source (identical code), never against this tool's output.
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use JSON::PP ();
use lib 't/lib';
use TestUtil qw(must tmpdir slurp spit leftovers arch_of_flags);
use Oracle qw(section_headers);
use RecordTest qw(mr build_objects gcc_sites gcc_program_addresses list_sites FLAG_SETS);

for my $flags (FLAG_SETS) {
    my $tag = "@$flags";
    my (undef, $bits) = arch_of_flags(@$flags);
    my $dir = tmpdir();
    my @stems = build_objects($dir, $flags);
    my %oracle = map { $_ => gcc_sites("$dir/$_.gcc.o") } @stems;
    my $total = 0;
    $total += @{ $oracle{$_} } for @stems;
    ok($total >= 7, "$tag: GCC's tables have the call sites ($total)");

    # dry run: assembly on stdout, the object untouched
    my $before = slurp("$dir/one.o");
    my ($st, $out, $err) = mr('--dry-run', "$dir/one.o");
    is($st, 0, "$tag: --dry-run exits 0");
    like($out, qr/^\t\.section __mcount_loc,"a",\@progbits$/m, "$tag: --dry-run prints the table section");
    my $dir_n = () = $out =~ /^\t\.(quad|long) /mg;
    is($dir_n, scalar @{ $oracle{one} }, "$tag: --dry-run prints one entry per call site");
    like($out, $bits == 64 ? qr/^\t\.quad /m : qr/^\t\.long /m, "$tag: entry size follows the object");
    is(slurp("$dir/one.o"), $before, "$tag: --dry-run leaves the object unchanged");
    my $n1 = @{ $oracle{one} };
    like($err, qr/^mcount-record: 1 object to record, $n1 call sites?, 0 unchanged, 0 errors$/m,
        "$tag: --dry-run summary on stderr");

    # record all three
    ($st, $out, $err) = mr(map { "$dir/$_.o" } @stems);
    is($st, 0, "$tag: record exits 0") or diag $err;
    is($out, "mcount-record: 3 objects recorded, $total call sites, 0 unchanged, 0 errors\n",
        "$tag: summary line");
    is_deeply([leftovers($dir)], [], "$tag: no temporary files left");

    for my $s (@stems) {
        ($st, $out, $err) = mr('--list', "$dir/$s.o");
        is($st, 0, "$tag: --list $s.o exits 0") or diag $err;
        is_deeply(list_sites($out), $oracle{$s}, "$tag: --list $s.o equals GCC's table");
        ($st, $out) = mr('--list', "$dir/$s.gcc.o");
        is_deeply(list_sites($out), $oracle{$s}, "$tag: --list of GCC's own $s.gcc.o equals its table");
    }
    ($st, $out) = mr('--list', "$dir/one.o");
    like($out, qr/^\S+\+0x[0-9a-f]+  helper\+0x[0-9a-f]+\/0x[0-9a-f]+  \.text$/m,
        "$tag: --list names the static function");
    like($out, qr/  weakfn\+0x[0-9a-f]+\/0x[0-9a-f]+  \.text$/m, "$tag: --list names the weak function");
    my @lines = split /\n/, $out;
    is_deeply(\@lines, [sort { (split /\+0x/, $a)[0] cmp (split /\+0x/, $b)[0]
        || hex((split /\+0x|  /, $a)[1]) <=> hex((split /\+0x|  /, $b)[1]) } @lines],
        "$tag: --list is sorted");

    # JSON
    ($st, $out) = mr('--list', '--format=json', "$dir/two.o");
    my $j = eval { JSON::PP->new->decode($out) };
    ok($j && ref $j eq 'ARRAY' && $j->[0]{type} eq 'object', "$tag: --format=json is an array of files");
    is_deeply([sort map { sprintf '%s+0x%x', $_->{section}, $_->{offset} } @{ $j->[0]{entries} }],
        $oracle{two}, "$tag: JSON entries equal GCC's table");
    ok((grep { ($_->{function} // '') eq 'onlyweak' } @{ $j->[0]{entries} }),
        "$tag: JSON names the function in the weak-only section");

    # a linked program: same addresses as the program linked from GCC's objects
    must('gcc', @$flags, '-o', "$dir/prog", map { "$dir/$_.o" } @stems);
    must('gcc', @$flags, '-o', "$dir/prog.gcc", map { "$dir/$_.gcc.o" } @stems);
    my $want = gcc_program_addresses("$dir/prog.gcc", $bits);
    ($st, $out, $err) = mr('--list', "$dir/prog");
    is($st, 0, "$tag: --list of a linked program exits 0") or diag $err;
    my @addr = map { /^([0-9a-f]+)  \S+  \.text$/ ? hex $1 : () } split /\n/, $out;
    is_deeply(\@addr, $want, "$tag: program addresses equal those of GCC's table, sorted");
    my $hexw = $bits / 4;
    like($out, qr/^[0-9a-f]{$hexw}  main\+0x[0-9a-f]+\/0x[0-9a-f]+  \.text$/m,
        "$tag: --list of a program names main");

    # recording again changes nothing; --remove then record gives the table back
    $before = slurp("$dir/two.o");
    ($st, $out, $err) = mr("$dir/two.o");
    is($st, 0, "$tag: recording twice exits 0");
    is($out, "mcount-record: 0 objects recorded, 0 call sites, 1 unchanged, 0 errors\n",
        "$tag: second record counts the object as unchanged");
    is(slurp("$dir/two.o"), $before, "$tag: second record leaves the object as it was");
    ($st, $out, $err) = mr('--remove', "$dir/two.o");
    is($st, 0, "$tag: --remove exits 0") or diag $err;
    ok(!(grep { $_->{name} =~ /__mcount_loc/ } @{ section_headers("$dir/two.o") }),
        "$tag: --remove takes out __mcount_loc and its relocations");
    ($st, $out, $err) = mr('--list', "$dir/two.o");
    is($st, 1, "$tag: --list without a table exits 1");
    like($err, qr/^mcount-record: \Q$dir\E\/two\.o: no __mcount_loc table$/m, "$tag: and says so");
    ($st, $out, $err) = mr('--remove', "$dir/two.o");
    like($err, qr/two\.o: note: no __mcount_loc table; left unchanged/, "$tag: --remove twice is a note");
    ($st, $out, $err) = mr("$dir/two.o");
    is($st, 0, "$tag: recording after --remove exits 0") or diag $err;
    ($st, $out) = mr('--list', "$dir/two.o");
    is_deeply(list_sites($out), $oracle{two}, "$tag: removed and recorded afresh equals GCC's table");
}

# objects without call sites are counted as unchanged; errors are counted
my $dir = tmpdir();
spit("$dir/nopg.c", "int f(int x) { return x + 1; }\n");
must('gcc', '-O2', '-c', "$dir/nopg.c", '-o', "$dir/nopg.o");
copy("$dir/nopg.c", "$dir/notelf.o");
my ($st, $out, $err) = mr("$dir/nopg.o", "$dir/notelf.o", "$dir/missing.o");
is($st, 1, 'a failed file makes the exit status 1');
is($out, "mcount-record: 0 objects recorded, 0 call sites, 1 unchanged, 2 errors\n", 'summary counts them');
like($err, qr/^mcount-record: \Q$dir\E\/notelf\.o: .*ELF/m, 'not ELF: GNU-style message');
like($err, qr/^mcount-record: \Q$dir\E\/missing\.o: no such file$/m, 'missing file: GNU-style message');
($st, $out) = mr('-q', "$dir/nopg.o");
is($out, '', '-q prints no summary');

done_testing();
