#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# The SHA-1 of the build IDs mcount-scan --fill-linked writes (src/hash.c,
# linked alone with t/src/hash_test.c), against coreutils' sha1sum and
# the examples of FIPS 180: every length from 0 to 200 bytes, lengths
# about the block's 64 and the padding's 56, 1 MiB and odd sizes past
# it, the bytes given whole and in pieces of 1, 7, 63, 64, 65 and 4096
# (the partial block kept between calls), runs of zeros (sha1_zeros);
# through both block functions: x86's SHA extensions, which must be the
# one chosen where /proc/cpuinfo lists sha_ni, ssse3 and sse4_1, and the
# C one (MCOUNT_SCAN_NO_SHA_NI=1); built plainly and under ASan and
# UBSan.  (The IDs in whole links: t/34-link-once.)
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP must run_cmd tmpdir slurp spit);

my $dir = tmpdir();
my @WARN = qw(-std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Werror);
my @SRC = ("-I$TOP/src", "$TOP/t/src/hash_test.c", "$TOP/src/hash.c");
must('cc', @WARN, '-O2', '-o', "$dir/plain", @SRC);
must('cc', @WARN, '-O1', '-g', '-fsanitize=address,undefined', '-fno-sanitize-recover=all', '-fno-omit-frame-pointer',
    '-o', "$dir/san", @SRC);
my %SAN = (ASAN_OPTIONS => 'detect_leaks=1:exitcode=99', UBSAN_OPTIONS => 'print_stacktrace=1:halt_on_error=1:exitcode=98');

# The processor's own word on the SHA extensions (x86 only).
my $x86 = `uname -m` =~ /^(x86_64|i[3-6]86)$/;
my ($flags) = (-r '/proc/cpuinfo' ? slurp('/proc/cpuinfo') : '') =~ /^flags\s*:(.*)$/m;
my %flag = map { $_ => 1 } split ' ', $flags // '';
my $ni = $x86 && $flag{sha_ni} && $flag{ssse3} && $flag{sse4_1};
diag($ni ? 'this processor has the SHA extensions' : 'no SHA extensions here: the C block function twice');

# (build, 'sha-ni' or 'c') -> (wait status, stdout, stderr)
sub hash_test {
    my ($build, $impl, @args) = @_;
    my %env = (%SAN, MCOUNT_SCAN_NO_SHA_NI => $impl eq 'c' ? '1' : '');
    return run_cmd(["$dir/$build", @args], env => \%env);
}

my @IMPLS = ('sha-ni', 'c');
for my $build ('plain', 'san') {
    my ($st, $out) = hash_test($build, 'sha-ni', 'impl');
    is($out, ($ni ? 'sha-ni' : 'c') . "\n", "$build: the SHA extensions used where the processor has them");
    ($st, $out) = hash_test($build, 'c', 'impl');
    is($out, "c\n", "$build: MCOUNT_SCAN_NO_SHA_NI=1: the C block function");
}

# The files: random bytes (the same each run), every length to 200, the
# block's edges, 1 MiB and beyond.
srand(34);
my $big = join('', map { chr(int(rand(256))) } 1 .. (1 << 20) + 4099);
my @len = ((0 .. 200), 255, 256, 257, 4095, 4096, 4097, 65536 + 55, 65536 + 56, (1 << 20) - 1, 1 << 20,
    (1 << 20) + 1, (1 << 20) + 13, (1 << 20) + 4099);
my @files;
for my $n (@len) {
    push @files, "$dir/f$n";
    spit($files[-1], substr($big, 0, $n));
}
# and FIPS 180's examples, with the digests it gives
my %fips = ('abc' => 'a9993e364706816aba3e25717850c26c9cd0d89d',
    'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq' => '84983e441c3bd26ebaae4aa1f95129e5e54670f1',
    'a' x 1000000 => '34aa973cd4c4daa4f61eeb2bdbad27316534016f');
my $k = 0;
for my $m (sort keys %fips) {
    spit("$dir/fips$k", $m);
    push @files, "$dir/fips$k";
    $k++;
}
my $want = must('sha1sum', @files);
$k = 0;
for my $m (sort keys %fips) {
    like($want, qr/^\Q$fips{$m}\E  \Q$dir\E\/fips$k$/m, "sha1sum gives FIPS 180's digest of example $k");
    $k++;
}

for my $build ('plain', 'san') {
    for my $impl (@IMPLS) {
        for my $chunk (0, 1, 7, 63, 64, 65, 4096) {
            my ($st, $out, $err) = hash_test($build, $impl, 'sha1', ($chunk ? ('-c', $chunk) : ()), @files);
            my $what = "$build, $impl, " . ($chunk ? "$chunk bytes at a time" : 'whole');
            is($st, 0, "$what: exit 0") or diag($err);
            if ($out eq $want) {
                pass("$what: sha1sum's digests of " . @files . ' files');
            } else {
                my @got = split /\n/, $out;
                my @exp = split /\n/, $want;
                my ($bad) = grep { ($got[$_] // '') ne $exp[$_] } 0 .. $#exp;
                fail("$what: sha1sum's digests of " . @files . ' files');
                diag("first difference: got '" . ($got[$bad] // '(nothing)') . "', sha1sum: '$exp[$bad]'");
            }
        }
    }
}

# Zeros, as the ID's own note is hashed.
my @zeros = (0, 1, 55, 64, 4095, 4096, 4097, (1 << 20) + 3);
my $zwant = '';
for my $n (@zeros) {
    spit("$dir/z", "\0" x $n);
    $zwant .= (split ' ', must('sha1sum', "$dir/z"))[0] . "\n";
}
for my $build ('plain', 'san') {
    for my $impl (@IMPLS) {
        my ($st, $out) = hash_test($build, $impl, 'zeros', @zeros);
        is($out, $zwant, "$build, $impl: runs of zeros (@zeros bytes) as sha1sum hashes them");
    }
}

done_testing();
