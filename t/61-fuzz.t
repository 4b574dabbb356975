#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# The fuzzer's inputs as regression tests: every input under
# t/data/fuzz/regress (what fuzzing found) and every seed listing is
# replayed through the libFuzzer target (make fuzz-short builds it) and
# through the ASan+UBSan helper with each entry mode and section list.
# The helper may refuse an input (exit 1, or 3 for "not a listing"), never
# crash or trip a sanitizer; the seeds, real objdump output, must be read.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP run_cmd);

my $asan = "$TOP/build/asan/mcount-scan";
my $fuzzer = "$TOP/build/fuzz/fuzz_scan";
my %san_env = (ASAN_OPTIONS => 'detect_leaks=1:abort_on_error=0:exitcode=99',
    UBSAN_OPTIONS => 'print_stacktrace=1:halt_on_error=1:exitcode=98');

my @seeds = sort glob("$TOP/t/data/fuzz/seeds/*");
my @regress = sort grep { !/README/ } glob("$TOP/t/data/fuzz/regress/*");
ok(@seeds >= 10, scalar(@seeds) . ' seed listings');
ok(-x $asan, 'the ASan+UBSan helper exists (make check builds it)') or BAIL_OUT('no ASan build');

SKIP: {
    if (!-x $fuzzer) {
        die "no $fuzzer: make check builds it (scripts/deps/fuzz.list)\n" if $ENV{CI};
        diag "\n*** $fuzzer not built (make fuzz-short): the libFuzzer replay is SKIPPED ***\n";
        skip 'no fuzz target', 1;
    }
    my ($st, undef, $err) = run_cmd([$fuzzer, '-runs=1', @regress, @seeds]);
    is($st, 0, 'the libFuzzer target replays every regression input and seed') or diag substr($err, -3000);
}

for my $f (@regress, @seeds) {
    (my $name = $f) =~ s{^\Q$TOP\E/t/data/fuzz/}{};
    my @bad;
    for my $opts ([], ['--entry=reloc'], ['--sections=all'], ['--entry=reloc', '--sections=all']) {
        my ($st, undef, $err) = run_cmd([$asan, @$opts, '--plan', '-o', '/dev/null', $f], env => \%san_env);
        my $code = $st >> 8;
        push @bad, "@$opts: status $st\n$err" if ($st & 127) || !grep { $code == $_ } 0, 1, 3;
        if ($name =~ m{^seeds/} && !@$opts && $code != 0 && $err !~ /unsupported object format/) {
            push @bad, "a real listing was refused: $err";
        }
    }
    is_deeply(\@bad, [], "$name: read or refused, no crash, no sanitizer report");
}

done_testing();
