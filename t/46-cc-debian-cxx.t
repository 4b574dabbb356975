#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: slow
# A real C++ project through mcount-cc as Debian builds it: JsonCpp
# (Debian's source, scripts/fetch-source libjsoncpp; CMake with Ninja and
# debian/rules' options), with dpkg-buildflags' hardening=+all
# optimize=+lto flags (-flto=auto -ffat-lto-objects) and the hook flags,
# in mcount-cc's default mode (auto: a C++ driver records at its links).
# The oracle is the same build without mcount-cc, the hook flags in
# CXXFLAGS (which CMake also gives the links, so that LTO keeps the
# calls): the shared library must be that build's but for the table
# (LinkDiff: sections, segments, dynamic symbols, .dynamic, dynamic
# relocations) with its exports in the same sections and sizes (objdump
# -T), and the library's and both programs' tables exact (mcount-record
# --verify --expect-calls: an entry for each call objdump -d shows).
# Each link says which method ran (MCOUNT_CC_VERBOSE).  The project's own
# tests (ctest: its unit tests, and its reader/writer round trips over
# its test data, run by Python) pass on the build through mcount-cc, and
# a program of those tests runs under mcount-trace with every function
# traced (-w: none lost).  The cpu time of both builds is noted (the figure `make bench`
# would give; no assertion on time).
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP must run_cmd tmpdir);
use CcTest qw($MCC debian_flags dynamic_symbols);
use LinkDiff qw(link_diff);

delete $ENV{$_} for qw(MCOUNT_CC_FLAGS MCOUNT_CC_ACTIVE MCOUNT_CC_VERBOSE MCOUNT_CC_MODE OBJDUMP
    OBJCOPY LD AS CROSS_COMPILE RECORDMCOUNT_HELPER DEB_BUILD_MAINT_OPTIONS CXXFLAGS CFLAGS LDFLAGS
    CPPFLAGS CMAKE_GENERATOR);
my $MR = "$TOP/bin/mcount-record";
my $MT = "$TOP/bin/mcount-trace";
my $dir = tmpdir();

my ($st, $src, $err) = run_cmd(["$TOP/scripts/fetch-source", 'libjsoncpp']);
chomp $src;
is($st, 0, "fetch-source libjsoncpp: $src") or BAIL_OUT("no JsonCpp source: $err");

# Debian's flags, as dpkg-buildflags gives them.
my %deb = %{ debian_flags('hardening=+all optimize=+lto') };
like($deb{CXXFLAGS} // '', qr/-flto=auto/, "Debian's flags: $deb{CXXFLAGS}");

# The cpu seconds of this test's finished child processes.
sub cpu { my @t = times; return $t[2] + $t[3] }

# build(NAME, CXX, EXTRA CXXFLAGS, ENV) -> (its build directory, the
# build's output)
sub build {
    my ($name, $cxx, $cxxflags, $env) = @_;
    my $b = "$dir/$name";
    my %env = (%$env, CXX => $cxx, CXXFLAGS => $cxxflags, LDFLAGS => $deb{LDFLAGS}, CPPFLAGS => $deb{CPPFLAGS});
    my ($t0, $c0) = (time, cpu());
    # debian/rules' options; dh_auto_configure's build type (None: the
    # flags are dpkg-buildflags' alone)
    my ($st, $out, $err) = run_cmd(['cmake', '-G', 'Ninja', '-S', $src, '-B', $b, '-DCMAKE_BUILD_TYPE=None',
        '-DBUILD_STATIC_LIBS=OFF', '-DBUILD_OBJECT_LIBS=OFF', '-DCMAKE_INSTALL_INCLUDEDIR=include/jsoncpp'],
        env => \%env);
    is($st, 0, "$name: cmake configured") or diag $out . $err;
    ($st, $out, $err) = run_cmd(['cmake', '--build', $b, '-j', '2'], env => \%env);
    is($st, 0, sprintf('%s: built (%d s, %.1f s cpu)', $name, time - $t0, cpu() - $c0)) or diag $out . $err;
    return ($b, $out . $err);
}

my $lib = 'lib/libjsoncpp.so.1.9.5';
my @progs = ('bin/jsoncpp_test', 'bin/jsontestrunner_exe');
my ($plain) = build('plain', 'g++', "$deb{CXXFLAGS} -pg -mfentry", {});
my ($mc, $log) = build('mcount-cc', "$MCC g++", $deb{CXXFLAGS},
    { MCOUNT_CC_FLAGS => '-pg -mfentry', MCOUNT_CC_VERBOSE => 1 });
ok(-f "$mc/$lib", "$lib is built");

# which method each link ran
my %said;
while ($log =~ /^mcount-cc: (\S+): (\d+) call sites, (.*)$/mg) {
    $said{$1} = "$2 call sites, $3";
}
for my $f ($lib, @progs) {
    ok($said{$f}, "$f: mcount-cc -v says how its link recorded: " . ($said{$f} // 'nothing'));
    # (LTO's code generation once: the objects it wrote read for the table)
    like($said{$f} // '', qr/, 1 link; one link \(LTO: its code generation once, its objects read\), /,
        "$f: one link, LTO's code generated once");
}

($st, my $out) = run_cmd([$MR, '--verify', '--expect-calls', map { "$mc/$_" } $lib, @progs]);
is($st, 0, '--verify --expect-calls passes on the library and both programs') or diag $out;
my @ok = $out =~ /^\S+: OK, (\d+) entries for \1 calls to the hook$/mg;
is(scalar @ok, 3, "the three tables are exact: $out");
cmp_ok($ok[0] // 0, '>', 300, "the library has an entry for each of its " . ($ok[0] // 0) . ' calls');
($st, undef, $err) = run_cmd([$MR, '--verify', "$plain/$lib"]);
like($err, qr/: no __mcount_loc table \([1-9]\d* calls to the hook\)$/m, 'the plain build has the calls and no table');
is_deeply([link_diff(['readelf'], "$mc/$lib", "$plain/$lib")], [], "the library is the plain build's but for the table");

my $x = dynamic_symbols("$mc/$lib");
cmp_ok(scalar @$x, '>', 100, scalar(@$x) . ' dynamic symbols');
is_deeply($x, dynamic_symbols("$plain/$lib"), "objdump -T: the plain build's dynamic symbols, sections and sizes");

# the project's own tests, on the build through mcount-cc
($st, $out, $err) = run_cmd(['ctest', '--test-dir', $mc, '--output-on-failure']);
like($out, qr/^100% tests passed, 0 tests failed out of ([3-9]|\d\d+)$/m, 'ctest: every test of the project passes')
    or diag "$out$err";
is($st, 0, 'ctest exits 0');
like($out, qr/jsoncpp_readerwriter\b.*Passed/, "ctest ran the reader/writer round trips (Python's)");

# one of them traced: every function, the function tracer
($st, $out, $err) = run_cmd([$^X, $MT, 'run', '-w', '-f', '*', '-o', "$dir/trace.txt", '--', "$mc/bin/jsoncpp_test"],
    env => { MCOUNT_TRACE_DIR => $dir });
is($st, 0, 'jsoncpp_test passes under mcount-trace, every function traced') or diag $err;
my %seen;
if (open my $fh, '<', "$dir/trace.txt") {
    while (<$fh>) { $seen{$1}++ if /^\s*\S+\s+\[\d+\]\s+[\d.]+: (.+?) <-/ }
}
cmp_ok(scalar keys %seen, '>', 200, scalar(keys %seen) . ' functions seen in the trace');
ok((grep { /^Json::Reader::parse/ || /^Json::Value::Value/ } keys %seen), "the library's functions among them");

done_testing();
