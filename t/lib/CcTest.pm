# SPDX-License-Identifier: GPL-2.0-or-later
package CcTest;
# Helpers for the mcount-cc tests (t/40-cc-*.t): a directory of fake tools
# on PATH, running bin/mcount-cc, and checking an object's table against
# GCC's own -mrecord-mcount table for the same source and flags.
use strict;
use warnings;

use Exporter 'import';
use Test::More;
use TestUtil qw($TOP must run_cmd tmpdir spit slurp leftovers);
use Oracle qw(table_sites filter_sites kernel_section);

our @EXPORT_OK = qw($MCC @SOURCES fake_dir logging_gcc read_log mcc oracle_ok verify_program
    copy_example in_dir program_ok no_leftovers debian_flags dynamic_symbols);

our $MCC = "$TOP/bin/mcount-cc";

# A directory to put first on PATH, holding executable scripts NAME => body.
sub fake_dir {
    my (%tools) = @_;
    my $dir = tmpdir();
    for my $name (keys %tools) {
        spit("$dir/$name", $tools{$name});
        chmod 0755, "$dir/$name" or die "$dir/$name: $!";
    }
    return $dir;
}

# A gcc that logs its argv (one word per line, then a blank line) to
# $LOG and runs the real gcc with it.
sub logging_gcc {
    my ($log) = @_;
    my $real = '/usr/bin/gcc';
    return <<"SH";
#!/bin/sh
{ for a in "\$@"; do printf '%s\\n' "\$a"; done; echo; } >> '$log'
exec $real "\$@"
SH
}

# The argv lists a logging tool saw, in order.
sub read_log {
    my ($log) = @_;
    return [] unless -e $log;
    my @calls = map { [split /\n/, $_] } split /\n\n/, slurp($log);
    return \@calls;
}

# mcc([ARGS], env => {...}, dir => DIR, stdin => TEXT) -> (status, out, err)
# runs bin/mcount-cc ARGS in DIR.
sub mcc {
    my ($args, %o) = @_;
    my @cmd = ($o{prog} // $MCC, @$args);
    @cmd = _in_dir_cmd($o{dir}, @cmd) if $o{dir};
    return run_cmd(\@cmd, env => $o{env}, stdin => $o{stdin});
}

# The object's table must hold exactly the call sites GCC records itself
# (-mrecord-mcount) for the same source and flags, in the sections
# mcount-cc records.
sub oracle_ok {
    my ($obj, $src, $flags, $name) = @_;
    my $dir = tmpdir();
    my ($st, undef, $err) = run_cmd(['gcc', @$flags, '-pg', '-mrecord-mcount', '-c', $src,
        '-o', "$dir/ref.o"]);
    die "oracle compile of $src failed: $err" if $st != 0;
    my $want = filter_sites(table_sites("$dir/ref.o"), \&kernel_section);
    my $got = table_sites($obj);
    ok(@$want > 0, "$name: the oracle has call sites");
    is_deeply($got, $want, "$name: table equals GCC's -mrecord-mcount table")
        or diag("got @$got\nwant @$want");
    return;
}

# bin/mcount-record --verify: every entry of the table is a call to the
# hook and every call has an entry (objects, programs).
sub verify_program {
    my ($prog, $name) = @_;
    my ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-record", '--verify', $prog]);
    is($st, 0, "$name: mcount-record --verify $prog") or diag($out . $err);
    return;
}

# The example project's sources (examples/).
our @SOURCES = qw(lib/calc/arith.c lib/calc/stack.c app/main.c app/format.c);

# A fresh copy of examples/ in a temporary directory.
sub copy_example {
    my $dir = tmpdir();
    my ($st, undef, $err) = run_cmd(['cp', '-R', "$TOP/examples/.", $dir]);
    die "cp: $err" if $st != 0;
    run_cmd(['rm', '-rf', "$dir/build", "$dir/config.mk", "$dir/config.h"]);
    return $dir;
}

# run_cmd has no cwd option: go through sh -c 'cd DIR && exec "$@"'.
sub _in_dir_cmd {
    my ($dir, @cmd) = @_;
    return ('/bin/sh', '-c', 'cd "$1" && shift && exec "$@"', 'sh', $dir, @cmd);
}

# in_dir(DIR, CMD..., {ENV}?) -> (status, stdout, stderr): run_cmd in DIR,
# with the environment changes of a trailing hash.
sub in_dir {
    my ($dir, @cmd) = @_;
    my $env = ref $cmd[-1] eq 'HASH' ? pop @cmd : {};
    return run_cmd([_in_dir_cmd($dir, @cmd)], env => $env);
}

# No temporary file of the front ends anywhere under DIR.
sub no_leftovers {
    my ($dir, $name) = @_;
    is_deeply([leftovers($dir)], [], "$name: no temporary files left");
    return;
}

# The example program works (and passes mcount-record --verify).
sub program_ok {
    my ($prog, $name) = @_;
    my ($st, $out) = run_cmd([$prog, '2 3 + 4 *', '2 10 ^ 24 -', '7 1 - 3 /']);
    is($st, 0, "$name: the program runs");
    is($out, "2 3 + 4 * = 20\n2 10 ^ 24 - = 1000\n7 1 - 3 / = 2\n", "$name: and computes right");
    ($st) = run_cmd([$prog, '1 0 /']);
    is($st >> 8, 1, "$name: and reports errors");
    verify_program($prog, $name);
    return;
}

# debian_flags(OPTIONS) -> {CFLAGS => ..., CXXFLAGS => ..., LDFLAGS => ...,
# CPPFLAGS => ...}: Debian's flags as dpkg-buildflags gives them with
# DEB_BUILD_MAINT_OPTIONS=OPTIONS (t/45, t/46: 'hardening=+all
# optimize=+lto').
sub debian_flags {
    my ($options) = @_;
    my %deb;
    local $ENV{DEB_BUILD_MAINT_OPTIONS} = $options;
    for (split /\n/, must('dpkg-buildflags', '--export=sh')) {
        $deb{$1} = $2 if /^export (\w+)="(.*)"$/;
    }
    return \%deb;
}

# dynamic_symbols(FILE) -> [sorted "NAME SECTION SIZE"]: objdump -T's
# dynamic symbols of FILE, each with its section and size.
sub dynamic_symbols {
    local $ENV{LC_ALL} = 'C';
    return [sort map { my @f = split ' '; @f >= 6 ? "$f[-1] $f[-4] $f[-3]" : () }
        grep { /^[0-9a-f]{8}/ } split /\n/, must('objdump', '-T', $_[0])];
}

1;
