#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# The core corpus under every flag set, against GCC's own table: the same
# source compiled with -mrecord-mcount has identical code, and its
# __mcount_loc is the exact multiset of (section, offset) our table must
# resolve to (restricted to the kernel's sections by default, all of it
# with --sections=all).  Each recorded object must also equal its input in
# everything but the table ("nothing else changes").
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use lib 't/lib';
use TestUtil qw($SRC run_cmd must compile record_pl tmpdir flag_matrix leftovers arch_of_flags
    ld_emulation);
use Oracle qw(table_sites filter_sites kernel_section section_headers code_bytes sections_bytes);
use ObjDiff qw(diff_objects);

my $ANCHOR = qr/^\$mcount_anchor\S* \d+ 0 NOTYPE LOCAL DEFAULT /;
my $dir = tmpdir();
my $n = 0;

sub code_sections {
    my ($obj) = @_;
    return map { $_->{name} } grep { $_->{flags} =~ /X/ } @{ section_headers($obj) };
}

# The bytes at each oracle entry tell where the relocated field sits in
# that call (e8 rel32: +1; ff 15 / ff 9x: +2): the 2008 convention's entry.
sub reloc_entries {
    my ($obj, $sites) = @_;
    my (@out, %code);
    for (@$sites) {
        my ($sec, $off) = /^(.*)\+0x([0-9a-f]+)$/ or die;
        my $code = $code{$sec} //= code_bytes($obj, $sec);
        my $b0 = ord substr($code, hex $off, 1);
        my $field = $b0 == 0xe8 ? 1 : $b0 == 0xff ? 2 : die "no call at $_";
        push @out, sprintf('%s+0x%x', $sec, hex($off) + $field);
    }
    return [sort @out];
}

# Build (plain, with GCC's table) for one flag set: the corpus, or the
# ld -r combination of the two dup sources.
sub build {
    my ($what, $flags, $tag) = @_;
    my @f = @$flags;
    my $plain = "$dir/$what-$tag.o";
    my $gcc = "$dir/$what-$tag.gcc.o";
    if ($what eq 'corpus') {
        compile("$SRC/corpus.c", $plain, @f);
        compile("$SRC/corpus.c", $gcc, @f, '-mrecord-mcount');
    } else {
        my @m = ('-m', ld_emulation(@f));
        for my $v ('', '.gcc') {
            my @extra = $v ? ('-mrecord-mcount') : ();
            compile("$SRC/dup_a.c", "$dir/a$v.o", @f, @extra);
            compile("$SRC/dup_b.c", "$dir/b$v.o", @f, @extra);
            must('ld', @m, '-r', '-o', $v ? $gcc : $plain, "$dir/a$v.o", "$dir/b$v.o");
        }
    }
    return ($plain, $gcc);
}

# The corpus must really contain the clone names it is meant to cover,
# or their handling would go untested without anyone noticing.
{
    my %seen;
    for my $opt ('-O2', '-Os') {
        compile("$SRC/corpus.c", "$dir/clones.o", $opt, '-pg');
        $seen{$_}++ for map { /\.(isra|constprop|part|cold)(?:\.\d+)?$/ ? "$1" : () }
            map { $_->{name} // () } @{ Oracle::symbols("$dir/clones.o") };
    }
    ok($seen{$_}, "the corpus has a .$_ clone at -O2 or -Os") for qw(isra constprop part cold);
}

for my $flags (flag_matrix()) {
    for my $what (qw(corpus dup)) {
        my $tag = join('', @$flags) =~ s/[^A-Za-z0-9]+/_/gr;
        my $name = "$what @$flags";
        my ($plain, $gcc) = build($what, $flags, $tag);

        # the oracle's premise: -mrecord-mcount changes no code
        my @secs = code_sections($plain);
        my @gcc_code = sections_bytes($gcc, @secs);
        my @plain_code = sections_bytes($plain, @secs);
        for my $i (0 .. $#secs) {
            is(unpack('H*', $gcc_code[$i] // ''), unpack('H*', $plain_code[$i]),
                "$name: GCC's oracle object has the same code in $secs[$i]");
        }
        my $oracle = table_sites($gcc);
        ok(@$oracle >= ($what eq 'corpus' ? 12 : 4), "$name: oracle has call sites (" . @$oracle . ')');

        # default: the kernel's sections, entries at the call
        my $rec = "$dir/$what-$tag.rec.o";
        copy($plain, $rec) or die;
        my ($st, $out, $err) = record_pl($rec, $flags);
        is($st, 0, "$name: recordmcount.pl succeeds") or diag $err;
        is($err, '', "$name: and says nothing");
        is_deeply(table_sites($rec), filter_sites($oracle, \&kernel_section),
            "$name: table equals GCC's, kernel sections");
        my @d = diff_objects($plain, $rec, $ANCHOR);
        ok(!@d, "$name: nothing else changed") or diag join "\n", @d;

        # every executable section
        my $all = "$dir/$what-$tag.all.o";
        copy($plain, $all) or die;
        ($st, $out, $err) = record_pl($all, $flags, '--sections=all');
        is($st, 0, "$name: --sections=all succeeds") or diag $err;
        is_deeply(table_sites($all), $oracle, "$name: --sections=all equals GCC's whole table");

        # the disassembly listing gives the same table
        if ($flags->[-1] eq '-fPIC' || $what eq 'dup') {
            my $dis = "$dir/$what-$tag.dis.o";
            copy($plain, $dis) or die;
            ($st, $out, $err) = record_pl($dis, $flags, '--disassemble');
            is($st, 0, "$name: --disassemble succeeds") or diag $err;
            is_deeply(table_sites($dis), filter_sites($oracle, \&kernel_section),
                "$name: --disassemble equals GCC's table");
        }

        # the 2008 argument list: every executable section, entry at the relocation
        if (grep { $_ eq '-O2' } @$flags) {
            my $old = "$dir/$what-$tag.2008.o";
            copy($plain, $old) or die;
            my ($arch) = arch_of_flags(@$flags);
            my $m = $arch eq 'i386' ? '32' : '64';
            ($st, $out, $err) = run_cmd(["$TestUtil::TOP/recordmcount.pl", $arch, 'objdump',
                'objcopy', "gcc -m$m", 'ld -m ' . ld_emulation(@$flags),
                'nm', 'rm', 'mv', $old]);
            is($st, 0, "$name: 2008 form succeeds") or diag $err;
            is_deeply(table_sites($old), reloc_entries($plain, $oracle),
                "$name: 2008 form points at each call's relocated field");
        }
        is_deeply([leftovers($dir)], [], "$name: no temporary files left");
        unlink glob("$dir/*.o");
        $n++;
    }
}
ok($n >= 60, "checked $n objects");
done_testing();
