#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: slow
# A real project's shared library through mcount-cc, as Debian builds it:
# GNU FriBidi (Debian's source, scripts/fetch-source fribidi; autotools
# and libtool), with dpkg-buildflags' hardening=+all optimize=+lto flags
# and the hook flags, in mcount-cc's default mode (auto: link time for
# -flto).  The oracle is the same build without mcount-cc, the hook flags
# in CFLAGS (which libtool also gives the links, so that LTO keeps the
# calls): the library must be that build's but for the table (LinkDiff:
# sections, segments, dynamic symbols, .dynamic, dynamic relocations),
# its exports in the same sections with the same sizes (objdump -T), its
# table exact (--verify --expect-calls), and a program that reads its
# exported data (fribidi_version_info, fribidi_unicode_version) and calls
# it must link against it and print what it prints against the plain
# one.  Then the same project with -ffunction-sections and
# --gc-sections, no LTO, whose fribidi program once failed to link
# against a library the pass had written (DT_TEXTREL, a BFD assertion).
# The project's own tests (make check) pass on both.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP must run_cmd tmpdir spit);
use CcTest qw($MCC debian_flags dynamic_symbols);
use LinkDiff qw(link_diff);

delete $ENV{$_} for qw(MCOUNT_CC_FLAGS MCOUNT_CC_ACTIVE MCOUNT_CC_VERBOSE MCOUNT_CC_MODE OBJDUMP
    OBJCOPY LD AS CROSS_COMPILE RECORDMCOUNT_HELPER DEB_BUILD_MAINT_OPTIONS);
my $MR = "$TOP/bin/mcount-record";
my $dir = tmpdir();

my ($st, $src, $err) = run_cmd(["$TOP/scripts/fetch-source", 'fribidi']);
chomp $src;
is($st, 0, "fetch-source fribidi: $src") or BAIL_OUT("no FriBidi source: $err");

# Debian's flags, as dpkg-buildflags gives them.
my %deb = %{ debian_flags('hardening=+all optimize=+lto') };
like($deb{CFLAGS} // '', qr/-flto=auto/, "Debian's flags: $deb{CFLAGS}");

# build(NAME, CC, EXTRA CFLAGS, EXTRA LDFLAGS, ENV) -> its directory
sub build {
    my ($name, $cc, $cflags, $ldflags, $env) = @_;
    my $d = "$dir/$name";
    # (timestamps kept: make would otherwise run autoconf)
    must('cp', '-a', $src, $d);
    my ($st, $out, $err) = run_cmd(['sh', '-c', 'cd "$1" && shift && ./configure --disable-docs --disable-static '
            . '"$@" >configure.log && make -j2 >make.log 2>&1 || { tail -30 make.log; exit 1; }', 'sh', $d,
            "CC=$cc", "CFLAGS=$cflags", "LDFLAGS=$ldflags", "CPPFLAGS=$deb{CPPFLAGS}"], env => $env);
    is($st, 0, "$name: configured and built") or diag "$out$err";
    return $d;
}

my $lib = 'lib/.libs/libfribidi.so.0';
my $plain = build('plain', 'gcc', "$deb{CFLAGS} -pg -mfentry", $deb{LDFLAGS}, {});
my $mc = build('mcount-cc', "$MCC gcc", $deb{CFLAGS}, $deb{LDFLAGS}, { MCOUNT_CC_FLAGS => '-pg -mfentry' });

($st, my $out) = run_cmd([$MR, '--verify', '--expect-calls', "$mc/$lib", "$mc/bin/.libs/fribidi"]);
like($out, qr/\A\Q$mc\/$lib\E: OK, (\d+) entries for \1 calls to the hook\n\Q$mc\E\/bin\/\.libs\/fribidi: OK, (\d+) entries for \2 calls/,
    "the library's and the program's tables are exact: $out");
is($st, 0, '--verify --expect-calls passes');
($st, undef, $err) = run_cmd([$MR, '--verify', "$plain/$lib"]);
like($err, qr/: no __mcount_loc table \([1-9]\d* calls to the hook\)$/m, 'the plain build has the calls and no table');
is_deeply([link_diff(['readelf'], "$mc/$lib", "$plain/$lib")], [], "the library is the plain build's but for the table");

my $x = dynamic_symbols("$mc/$lib");
cmp_ok(scalar @$x, '>', 50, scalar(@$x) . ' exports');
is_deeply($x, dynamic_symbols("$plain/$lib"), "objdump -T: the plain build's exports, sections and sizes");
ok((grep { /^fribidi_version_info \.data / } @$x), 'fribidi_version_info is data, in .data');

# a program that reads the library's exported data
spit("$dir/uses.c", <<'C');
#include <stdio.h>
#include <fribidi.h>
int main(void) {
    FriBidiChar in[] = { 'a', 0x5d0, 0x5d1, 'b' }, out[4];
    FriBidiParType dir = FRIBIDI_PAR_ON;
    fribidi_log2vis(in, 4, &dir, out, NULL, NULL, NULL);
    printf("%s|%s|%x %x %x %x\n", fribidi_unicode_version, fribidi_version_info, (unsigned)out[0],
        (unsigned)out[1], (unsigned)out[2], (unsigned)out[3]);
    return 0;
}
C
my %ran;
for my $b ([plain => $plain], ['mcount-cc' => $mc]) {
    my ($name, $d) = @$b;
    ($st, undef, $err) = run_cmd(['gcc', '-O2', "-I$d/lib", '-o', "$dir/uses-$name", "$dir/uses.c",
        "-L$d/lib/.libs", '-lfribidi']);
    is("$st $err", '0 ', "$name: a program using the library's data links, nothing said");
    ($st, $ran{$name}) = run_cmd(["$dir/uses-$name"], env => { LD_LIBRARY_PATH => "$d/lib/.libs" });
    is($st, 0, "$name: it runs");
}
like($ran{'mcount-cc'}, qr/^\d+\.\d+\.\d+\|\(GNU FriBidi\) /, "it reads the version data: $ran{'mcount-cc'}");
is($ran{'mcount-cc'}, $ran{plain}, "it prints what it prints against the plain build's library");

# -ffunction-sections and --gc-sections, no LTO (auto: link time)
my $gc = build('gc-sections', "$MCC gcc", '-O2 -g -ffunction-sections', '-Wl,--gc-sections',
    { MCOUNT_CC_FLAGS => '-pg -mfentry' });
($st, $out) = run_cmd([$MR, '--verify', '--expect-calls', "$gc/$lib", "$gc/bin/.libs/fribidi"]);
is($st, 0, "--gc-sections: the library and its program, tables exact: $out");
my (undef, $dyn) = run_cmd(['readelf', '-d', "$gc/bin/.libs/fribidi", "$gc/$lib"]);
like($dyn, qr/\(NEEDED\).*\n(?:.*\n)*.*\(NEEDED\)/, '--gc-sections: the program and the library are there');
unlike($dyn, qr/TEXTREL/, '--gc-sections: no text relocations');

# the project's own tests (make check: its reference outputs, Unicode's
# conformance tests) pass against the libraries built through mcount-cc
for my $d ($mc, $gc) {
    ($st, $out, $err) = run_cmd(['make', '-C', $d, 'check'], env => { MCOUNT_CC_FLAGS => '-pg -mfentry' });
    my @fail = $out =~ /^# FAIL:\s+([1-9]\d*)/mg;
    ok($st == 0 && !@fail && $out =~ /^# PASS:/m, "$d: make check passes") or diag "$out$err";
}

done_testing();
