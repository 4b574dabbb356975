#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: slow
# Link-time mode on a real C++ project nobody here wrote: googletest
# (Debian's sources in /usr/src/googletest), its samples and a set of its
# own tests (32 translation units, 26 programs), configured by CMake
# with CXX="mcount-cc g++" (auto mode: link time for a C++ driver) and
# built by Ninja.  The oracles are the project's and binutils', not this
# tool's output:
#   - every program runs and its own tests pass (exit 0), and writes no
#     gmon.out (the programs are not gprof ones);
#   - mcount-record --verify: every entry is a call to the hook and every
#     call has one entry, per objdump's disassembly;
#   - the same build with plain `g++ -pg` compiles (and links without
#     -pg) has, per program, as many calls to the hook in its code (counted
#     from objdump -d) as the mcount-cc program has table entries (the
#     size of __mcount_loc): nothing lost, nothing added;
#   - no .rela.text left in the programs.
# Then the samples with clang++ and shared libraries (libgtest.so: a
# -shared link through the pass), with the same checks but the plain
# build's, and with g++ through CMake's compiler and linker launchers.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP run_cmd must tmpdir spit leftovers);
use CcTest qw($MCC);
use Time::HiRes qw(time);

delete $ENV{$_} for qw(MCOUNT_CC_FLAGS MCOUNT_CC_ACTIVE MCOUNT_CC_VERBOSE MCOUNT_CC_MODE MCOUNT_CC_TABLE
    OBJDUMP OBJCOPY LD AS CROSS_COMPILE RECORDMCOUNT_HELPER CXXFLAGS LDFLAGS CMAKE_GENERATOR);
my $GTEST = '/usr/src/googletest';    # scripts/deps/cc.list installs googletest
die "$GTEST/CMakeLists.txt: missing (install googletest: scripts/install-deps)\n"
    unless -f "$GTEST/CMakeLists.txt";
my $MR = "$TOP/bin/mcount-record";
my $dir = tmpdir();

my @samples = map { "sample${_}_unittest" } 1 .. 10;
# googletest's tests that link only libgtest or libgtest_main (no other
# build of gtest-all.cc) and check themselves when run with no arguments
# (the larger ones left out to keep the three builds within about two
# minutes on two cores)
my @tests = qw(googletest-death-test-test gtest_environment_test gtest_main_unittest
    googletest-message-test gtest_no_test_unittest googletest-options-test
    gtest_premature_exit_test gtest_prod_test gtest_repeat_test gtest_sole_header_test
    gtest_stress_test googletest-test-part-test gtest_throw_on_failure_ex_test
    gtest-unittest-api_test gtest_skip_in_environment_setup_test gtest_skip_test);

like(must($MCC, '--classify', 'g++', '-o', 'prog', 'a.o'), qr/^mode: link \(auto: C\+\+ driver\)$/m,
    'mcount-cc chooses link-time mode for a g++ link by itself');

# Configure and build googletest into $dir/NAME with the environment ENV
# and the cmake options OPTS, only TARGETS; returns the build directory
# and the seconds it took (wall, and the cpu of its processes).
sub build {
    my ($name, $env, $opts, @targets) = @_;
    my $b = "$dir/$name";
    my $t0 = time;
    my $c0 = cpu();
    my ($st, $out, $err) = run_cmd(['cmake', '-G', 'Ninja', '-S', $GTEST, '-B', $b,
        '-Dgtest_build_samples=ON', @$opts], env => $env);
    is($st, 0, "$name: cmake configured") or diag $out . $err;
    ($st, $out, $err) = run_cmd(['cmake', '--build', $b, '-j', '2', '--target', @targets], env => $env);
    my ($secs, $cpu) = (time - $t0, cpu() - $c0);
    is($st, 0, sprintf('%s: built (%.1f s, %.1f s cpu)', $name, $secs, $cpu)) or diag $out . $err;
    unlike($out . $err, qr/mcount-(?:cc|record)/, "$name: nothing from mcount-cc in the build's output");
    is_deeply([leftovers($b)], [], "$name: no temporary files");
    return ($b, $secs, $cpu);
}

# The cpu seconds of this test's finished child processes.
sub cpu { my @t = times; return $t[2] + $t[3] }

# The calls to the hook in FILE's code, counted from objdump -d.
sub hook_calls {
    my ($file) = @_;
    my $n = () = must('objdump', '-d', $file) =~ /\bcall\b.*<(?:mcount|__fentry__)(?:\@[^>]*)?>$/mg;
    return $n;
}

# FILE's sections (readelf -SW): name => size.
sub sections {
    my ($file) = @_;
    my %s;
    for (split /\n/, must('readelf', '-SW', $file)) {
        $s{$1} = hex $2 if /^\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s/;
    }
    return \%s;
}

# The words of FILE's __mcount_loc that are not 0 (readelf -x, 8 bytes
# each: every entry is in place in the file, relocated or not).
sub table_entries_in {
    my ($file) = @_;
    my $hex = join '', map { /^\s*0x[0-9a-f]+ ((?:[0-9a-f]{1,8} ){1,4})/ ? $1 =~ s/ //gr : () }
        split /\n/, must('readelf', '-x', '__mcount_loc', $file);
    return scalar grep { !/^0+\z/ } unpack('(A16)*', $hex);
}

# The checks of one ELF file built through mcount-cc (program or shared
# library); runs it if it is a program.  Returns its table's entries.
sub check_file {
    my ($file, $name, $run) = @_;
    my $secs = sections($file);
    # (the slots a one-link table left unused, holes of 0, are no entries)
    my $slots = ($secs->{__mcount_loc} // 0) / 8;
    my $entries = $slots ? table_entries_in($file) : 0;
    cmp_ok($entries, '>', 0, "$name: has a table ($entries entries, $slots slots)");
    ok(!exists $secs->{'.rela.text'}, "$name: no .rela.text left");
    my ($st, $out, $err) = run_cmd([$MR, '--verify', '--sections=all', $file]);
    is($st, 0, "$name: --verify passes") or diag $out . $err;
    chomp $out;
    like($out, qr/: OK, \Q$entries\E entries for \Q$entries\E calls to the hook$/m, "$name: $out");
    if ($run) {
        my $cwd = "$dir/run-" . ($name =~ s/\W+/_/gr);
        mkdir $cwd or die "$cwd: $!";
        ($st, $out, $err) = run_cmd(['sh', '-c', 'cd "$1" && exec timeout 120 "$2"', 'sh', $cwd, $file]);
        is($st, 0, "$name: runs and its tests pass") or diag $out . $err;
        ok(!-e "$cwd/gmon.out", "$name: writes no gmon.out");
    }
    return $entries;
}

# g++: through mcount-cc, and plainly with -pg compiles only (a launcher
# adds it: CMAKE_CXX_FLAGS would reach the links too).
my ($mcc, $mcc_secs, $mcc_cpu) = build('g++-link', { CXX => "$MCC g++" }, ['-Dgtest_build_tests=ON'],
    @samples, @tests);
spit("$dir/pg", "#!/bin/sh\nexec \"\$@\" -pg\n");
chmod 0755, "$dir/pg" or die;
my ($plain, $plain_secs, $plain_cpu) = build('g++-plain-pg', { CXX => 'g++' },
    ['-Dgtest_build_tests=ON', "-DCMAKE_CXX_COMPILER_LAUNCHER=$dir/pg"], @samples, @tests);
# which method linked them: the first program's link again, verbose
{
    my @c = grep { /\S/ } split /\n/, must('ninja', '-C', $mcc, '-t', 'commands', "googletest/$samples[0]");
    my ($st, undef, $err) = run_cmd(['sh', '-c', "cd '$mcc' && $c[-1]"], env => { MCOUNT_CC_VERBOSE => 1 });
    is($st, 0, "g++ $samples[0]: linked again, verbose") or diag $err;
    like($err, qr/\bone link, the table filled in place/, "g++ $samples[0]: by the one-link method");
    note($err =~ /^(.*(?:one link, the table|links with -q).*)$/m ? $1 : 'no method said');
}
my ($total, $progs) = (0, 0);
for my $p (@samples, @tests) {
    my $f = "$mcc/googletest/$p";
    my $entries = check_file($f, "g++ $p", 1);
    my $plain_calls = hook_calls("$plain/googletest/$p");
    is($plain_calls, $entries, "g++ $p: the plain -pg build has as many calls as the table entries");
    $total += $entries;
    $progs++;
}
# the plain build is what it says: every compile has -pg, the link not
{
    my @cmds = split /\n/, must('ninja', '-C', $plain, '-t', 'commands', 'googletest/sample1_unittest');
    my ($link) = grep { m{\s-o\s+googletest/sample1_unittest(?:\s|\z)} } @cmds;
    my @compiles = grep { /\s-c\s/ } @cmds;
    unlike($link // '-pg', qr/(?:^|\s)-pg(?:\s|\z)/, 'plain build: the link has no -pg');
    ok(@compiles && !grep({ !/^\Q$dir\E\/pg\s/ } @compiles), 'plain build: every compile gets -pg');
}
note(sprintf('g++: %d programs, %d entries; build through mcount-cc %.1f s (%.1f s cpu), '
    . 'plain -pg %.1f s (%.1f s cpu)', $progs, $total, $mcc_secs, $mcc_cpu, $plain_secs, $plain_cpu));

# clang++ with shared libraries: libgtest.so and libgtest_main.so are
# linked with -shared through the pass, the samples against them.
my ($clang) = build('clang++-link', { CXX => "$MCC clang++" }, ['-DBUILD_SHARED_LIBS=ON'], @samples);
for my $lib ('libgtest', 'libgtest_main') {
    my ($so) = grep { !-l } glob "$clang/lib/$lib.so*";
    check_file($so // "$clang/lib/$lib.so", "clang++ $lib.so", 0);
}
check_file("$clang/googletest/$_", "clang++ $_", 1) for @samples;

# CMake's launchers, as the man page gives them: the compiles through
# CMAKE_CXX_COMPILER_LAUNCHER get the hook flags and no table (a C++
# driver: link time), the links through CMAKE_CXX_LINKER_LAUNCHER (CMake
# 3.21) their tables.
my ($launched) = build('g++-launchers', { CXX => 'g++' },
    ["-DCMAKE_CXX_COMPILER_LAUNCHER=$MCC", "-DCMAKE_CXX_LINKER_LAUNCHER=$MCC"], @samples);
check_file("$launched/googletest/$_", "launchers $_", 1) for @samples;

done_testing();
