#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# Real builds of examples/ through mcount-cc: make -j2 with CC="mcount-cc
# gcc", CMake with CMAKE_C_COMPILER_LAUNCHER=mcount-cc, and the
# autoconf-style configure (whose compile-and-link probes must give the
# same answers as with gcc alone).  Every object's table must equal GCC's
# own -mrecord-mcount table for the same source and flags, and every
# program must work.
use strict;
use warnings;
use Test::More;
use JSON::PP ();
use Text::ParseWords qw(shellwords);
use TestUtil qw(slurp run_cmd);
use CcTest qw($MCC @SOURCES oracle_ok copy_example in_dir program_ok no_leftovers);

delete $ENV{$_} for qw(MCOUNT_CC_FLAGS MCOUNT_CC_ACTIVE MCOUNT_CC_VERBOSE OBJDUMP OBJCOPY LD AS
    CROSS_COMPILE MAKEFLAGS MFLAGS CFLAGS CPPFLAGS LDFLAGS CC);

# --- make -j2 CC="mcount-cc gcc" ----------------------------------------------
{
    my $ex = copy_example();
    my ($st, $out, $err) = in_dir($ex, 'make', '-j2', "CC=$MCC gcc");
    is($st, 0, 'make -j2 CC="mcount-cc gcc"') or diag($out . $err);
    unlike($err, qr/mcount-cc: (error|warning)/, 'make: no complaint from mcount-cc');
    for my $src (@SOURCES) {
        (my $obj = "build/$src") =~ s/\.c\z/.o/;
        oracle_ok("$ex/$obj", "$ex/$src", ['-O2', '-g', "-I$ex", "-I$ex/include", "-I$ex/app"], "make: $obj");
    }
    ok(-s "$ex/build/app/main.d", 'make: -MMD -MP dependency files written');
    ($st, $out, $err) = in_dir($ex, 'make', "CC=$MCC gcc", 'check');
    is($st, 0, 'make check') or diag($out . $err);
    program_ok("$ex/build/rpncalc", 'make');
    no_leftovers($ex, 'make');
}

# --- ./configure CC="mcount-cc gcc" && make -----------------------------------
{
    my $plain = copy_example();
    my ($st, $want, $err) = in_dir($plain, './configure', 'CC=gcc');
    is($st, 0, 'configure with gcc alone') or diag($want . $err);
    my $ex = copy_example();
    ($st, my $got, $err) = in_dir($ex, './configure', "CC=$MCC gcc");
    is($st, 0, 'configure CC="mcount-cc gcc"') or diag($got . $err);
    s/\Q$MCC\E gcc/gcc/g for $got;
    is($got, $want, 'configure: every probe answers as with gcc alone');
    like($got, qr/^checking for strtol\.\.\. yes$/m, 'configure: a link probe that must succeed does');
    like($got, qr/^checking for mcount_example_no_such_function\.\.\. no$/m,
        'configure: a link probe that must fail does');
    like($got, qr/^checking whether we are cross compiling\.\.\. no$/m, 'configure: its test program runs');
    (my $h = slurp("$ex/config.h")) =~ s/\Q$MCC\E gcc/gcc/g;
    is($h, slurp("$plain/config.h"), 'configure: the same config.h');
    ($st, my $out, $err) = in_dir($ex, 'make', '-j2');
    is($st, 0, 'make -j2 after configure') or diag($out . $err);
    for my $src (@SOURCES) {
        (my $obj = "build/$src") =~ s/\.c\z/.o/;
        oracle_ok("$ex/$obj", "$ex/$src", ['-O2', '-g', '-DHAVE_CONFIG_H', "-I$ex", "-I$ex/include", "-I$ex/app"],
            "configure: $obj");
    }
    ($st, $out) = run_cmd(["$ex/build/rpncalc", '--config']);
    is($out, "configured with CC=$MCC gcc\n", 'configure: the program saw config.h');
    ($st, $out, $err) = in_dir($ex, 'make', 'check');
    is($st, 0, 'configure: make check') or diag($out . $err);
    program_ok("$ex/build/rpncalc", 'configure');
    no_leftovers($ex, 'configure');
}

# --- CMake with CMAKE_C_COMPILER_LAUNCHER=mcount-cc ---------------------------
{
    my $ex = copy_example();
    my $b = "$ex/build-cmake";
    my ($st, $out, $err) = run_cmd(['cmake', '-S', $ex, '-B', $b, "-DCMAKE_C_COMPILER_LAUNCHER=$MCC",
        '-DCMAKE_C_COMPILER=gcc', '-DCMAKE_BUILD_TYPE=Release', '-DCMAKE_EXPORT_COMPILE_COMMANDS=ON']);
    is($st, 0, 'cmake configure with the launcher') or diag($out . $err);
    ($st, $out, $err) = run_cmd(['cmake', '--build', $b, '-j', '2']);
    is($st, 0, 'cmake --build -j 2') or diag($out . $err);
    unlike($out . $err, qr/mcount-cc: (error|warning)/, 'cmake: no complaint from mcount-cc');
    # compile_commands.json has each compile without the launcher: the
    # oracle compiles the same way with -mrecord-mcount.
    my $cc = JSON::PP::decode_json(slurp("$b/compile_commands.json"));
    is(scalar @$cc, 4, 'cmake: four compiles');
    for my $e (@$cc) {
        my @w = shellwords($e->{command});
        shift @w;
        my ($obj, $src, @flags);
        while (@w) {
            my $a = shift @w;
            if    ($a eq '-o') { $obj = shift @w }
            elsif ($a eq '-c') { $src = shift @w }
            else               { push @flags, $a }
        }
        oracle_ok("$e->{directory}/$obj", $src, \@flags, "cmake: $obj");
    }
    program_ok("$b/rpncalc", 'cmake');
    no_leftovers($ex, 'cmake');
}

done_testing();
