#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# mcount-record --verify: passes on correct programs and objects (tables
# from this tool and from GCC), and catches a deliberately broken table
# with the right message: an entry moved by one byte, a missing entry, a
# duplicate, an entry outside text.  The broken tables are hand-written
# .s files whose entries come from GCC's own table of the same code.
# GCC's -mnop-mcount tables (x86_64, i386; s390x: t/52-cross-verify.t)
# verify, their NOPs counted.
use strict;
use warnings;
no warnings 'portable';
use Test::More;
use lib 't/lib';
use TestUtil qw(must tmpdir spit ld_emulation);
use Oracle qw(table_sites symbols);
use RecordTest qw(mr build_objects $VERIFY_C nop_mcount_ok);

for my $flags (['-O2', '-pg', '-fno-pie', '-no-pie'], ['-O2', '-pg', '-mfentry'],
               ['-m32', '-O2', '-pg'], ['-m32', '-O2', '-pg', '-mfentry', '-fno-pie', '-no-pie']) {
    my $tag = "@$flags";
    my $m32 = grep { $_ eq '-m32' } @$flags;
    my $word = $m32 ? '.long' : '.quad';
    my @cflags = grep { $_ ne '-no-pie' } @$flags;
    my $dir = tmpdir();
    spit("$dir/v.c", $VERIFY_C);
    must('gcc', @cflags, '-c', "$dir/v.c", '-o', "$dir/v.o");
    must('gcc', @cflags, '-mrecord-mcount', '-c', "$dir/v.c", '-o', "$dir/v.gcc.o");

    # GCC's entries as global symbol + offset (every function here is global)
    my @funcs = grep { $_->{type} eq 'FUNC' && $_->{bind} eq 'GLOBAL' } grep { $_ } @{ symbols("$dir/v.o") };
    my %secname;
    my @entries;
    for my $site (@{ table_sites("$dir/v.gcc.o") }) {
        my ($sec, $off) = $site =~ /^(.*)\+0x([0-9a-f]+)$/;
        $off = hex $off;
        my ($f) = grep { $off >= $_->{value} && $off < $_->{value} + $_->{size}
            && $sec eq section_name("$dir/v.o", $_->{ndx}) } @funcs;
        die "no function at $site" unless $f;
        push @entries, [$f->{name}, $off - $f->{value}];
    }
    is(scalar @entries, 5, "$tag: GCC's table has the 5 call sites");
    my ($fa) = grep { $_->[0] eq 'fa' } @entries;
    my ($fb) = grep { $_->[0] eq 'fb' } @entries;

    my $table = sub {
        my ($name, @e) = @_;
        spit("$dir/$name.s", "\t.section __mcount_loc,\"a\",\@progbits\n"
            . join('', map { "\t$word $_->[0] + $_->[1]\n" } @e)
            . "\t.section .note.GNU-stack,\"\",\@progbits\n");
        must('gcc', ($m32 ? '-m32' : ()), '-c', "$dir/$name.s", '-o', "$dir/$name.o");
        must('gcc', @$flags, '-pg', '-o', "$dir/$name", "$dir/v.o", "$dir/$name.o");
        return "$dir/$name";
    };
    my $addr = sub {    # address of fn + off in a linked program
        my ($prog, $fn, $off) = @_;
        my ($s) = grep { $_ && $_->{name} eq $fn } @{ symbols($prog) };
        return sprintf('0x%x', $s->{value} + $off);
    };

    # correct tables: GCC's, this tool's, and the hand-written one
    must('gcc', @$flags, '-o', "$dir/prog.gcc", "$dir/v.gcc.o");
    my ($st, $out, $err) = mr('--verify', "$dir/prog.gcc");
    is($st, 0, "$tag: GCC's program verifies") or diag $err;
    is($out, "$dir/prog.gcc: OK, 5 entries for 5 calls to the hook\n", "$tag: one-line summary");
    my $good = $table->('good', @entries);
    ($st, $out, $err) = mr('--verify', $good);
    is($st, 0, "$tag: hand-written correct table verifies") or diag $err;
    must('cp', "$dir/v.o", "$dir/rec.o");
    ($st, undef, $err) = mr("$dir/rec.o");
    is($st, 0, "$tag: recorded") or diag $err;
    ($st, $out, $err) = mr('--verify', "$dir/rec.o", "$dir/v.gcc.o");
    is($st, 0, "$tag: recorded object and GCC's object verify") or diag $err;
    must('gcc', @$flags, '-o', "$dir/prog.rec", "$dir/rec.o");
    ($st, $out, $err) = mr('--verify', "$dir/prog.rec");
    is($st, 0, "$tag: program from the recorded object verifies") or diag $err;

    # moved by one byte
    my $moved = $table->('moved', (grep { $_ != $fa } @entries), [$fa->[0], $fa->[1] + 1]);
    my $call = $addr->($moved, 'fa', $fa->[1]);
    my $at = $addr->($moved, 'fa', $fa->[1] + 1);
    ($st, $out, $err) = mr('--verify', $moved);
    is($st, 1, "$tag: moved entry: exit 1");
    like($err, qr/^mcount-record: \Q$moved\E: $at fa\+0x[0-9a-f]+\/0x[0-9a-f]+: entry is not a call to the hook \(it is 1 byte into the call at $call\)$/m,
        "$tag: moved entry: named with address and function");
    like($err, qr/^mcount-record: \Q$moved\E: $call fa\+0x[0-9a-f]+\/0x[0-9a-f]+: call to the hook has no entry$/m,
        "$tag: moved entry: its call is reported missing");
    like($err, qr/: 2 problems \(5 entries, 5 calls to the hook\)$/m, "$tag: moved entry: summary of problems");

    # missing
    my $missing = $table->('missing', grep { $_ != $fb } @entries);
    $call = $addr->($missing, 'fb', $fb->[1]);
    ($st, $out, $err) = mr('--verify', $missing);
    is($st, 1, "$tag: missing entry: exit 1");
    like($err, qr/^mcount-record: \Q$missing\E: $call fb\+0x[0-9a-f]+\/0x[0-9a-f]+: call to the hook has no entry$/m,
        "$tag: missing entry: named");
    like($err, qr/: 1 problem \(4 entries, 5 calls to the hook\)$/m, "$tag: missing entry: only problem");

    # duplicate
    my $dup = $table->('dup', @entries, $fb);
    ($st, $out, $err) = mr('--verify', $dup);
    is($st, 1, "$tag: duplicate entry: exit 1");
    like($err, qr/^mcount-record: \Q$dup\E: $call fb\+0x[0-9a-f]+\/0x[0-9a-f]+: duplicate entry \(2 times\)$/m,
        "$tag: duplicate entry: named");
    like($err, qr/: 1 problem \(6 entries, 5 calls to the hook\)$/m, "$tag: duplicate: only problem");

    # outside text
    my $data = $table->('data', @entries, ['table_data', 0]);
    ($st, $out, $err) = mr('--verify', $data);
    is($st, 1, "$tag: entry in data: exit 1");
    like($err, qr/^mcount-record: \Q$data\E: 0x[0-9a-f]+ \S+: entry outside text \(in \.data, not code\)$/m,
        "$tag: entry in data: named");

    # the same broken table in an object (ld -r): section+offset form
    must('ld', '-r', '-m', ld_emulation(@$flags), '-o', "$dir/moved-r.o", "$dir/v.o", "$dir/moved.o");
    ($st, $out, $err) = mr('--verify', "$dir/moved-r.o");
    is($st, 1, "$tag: moved entry in an object: exit 1");
    like($err, qr/^mcount-record: \Q$dir\E\/moved-r\.o: \.text\+0x[0-9a-f]+ fa\+0x[0-9a-f]+\/0x[0-9a-f]+: entry is not a call to the hook \(it is 1 byte into the call at 0x[0-9a-f]+\)$/m,
        "$tag: moved entry in an object: section+offset and function");

    # no table at all
    must('gcc', @$flags, '-o', "$dir/prog.none", "$dir/v.o");
    ($st, $out, $err) = mr('--verify', "$dir/prog.none");
    is($st, 1, "$tag: program without a table fails");
    like($err, qr/prog\.none: no __mcount_loc table \(5 calls to the hook\)/, "$tag: and says how many calls");
}

# GCC's -mnop-mcount with its own table (t/lib/RecordTest.pm); s390x's:
# t/52-cross-verify.t
nop_mcount_ok('x86_64', 'gcc', ['-fno-pie'], ['-no-pie'], '.quad');
nop_mcount_ok('i386', 'gcc', ['-m32', '-fno-pie'], ['-m32', '-no-pie'], '.long');

sub section_name {
    my ($obj, $ndx) = @_;
    my %n = map { $_->{idx} => $_->{name} } @{ Oracle::section_headers($obj) };
    return $n{$ndx} // '';
}

done_testing();
