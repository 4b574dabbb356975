#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# Section names longer than any buffer the helper might keep them in:
#   - a C++ inline function with a ~600-character mangled name lives in a
#     COMDAT group; two objects holding it must still link, with the
#     group's call site left out (and said so);
#   - a long-named section that is not in a group is recorded;
#   - messages that name a long section print the whole name.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP run_cmd must record_pl tmpdir spit leftovers);
use Oracle qw(table_sites);

my $dir = tmpdir();
my $long = 'a_function_with_a_long_name_' . ('x' x 580);

# a COMDAT group whose member's name is far beyond 512 characters
{
    spit("$dir/inl.h", "inline __attribute__((noinline)) int $long(int x) { return 2 * x; }\n");
    spit("$dir/u1.cc", "#include \"inl.h\"\nint u1(int x) { return $long(x) + 1; }\n");
    spit("$dir/u2.cc", "#include \"inl.h\"\nint u1(int);\n"
        . "int main(int c, char **) { return $long(c) + u1(c) - 4 * c - 1; }\n");
    my $sec = '.text._Z' . length($long) . $long . 'i';
    ok(length($sec) > 600, 'the COMDAT section name is over 600 characters');
    for my $u (qw(u1 u2)) {
        must('g++', '-O2', '-pg', '-c', "$dir/$u.cc", '-o', "$dir/$u.o");
        my ($st, $out, $err) = record_pl("$dir/$u.o", []);
        is($st, 0, "$u: recorded") or diag $err;
        like($err, qr/warning: \Q$sec\E: 1 call site not recorded: the section is in a COMDAT group/,
            "$u: the long-named COMDAT section's site is left out with a warning");
        ok(!grep({ /^\Q$sec\E\+/ } @{ table_sites("$dir/$u.o") }), "$u: no entry in the COMDAT section");
        ok(scalar(grep { /^\.text(?:\.startup)?\+/ } @{ table_sites("$dir/$u.o") }),
            "$u: its other sites are recorded");
    }
    spit("$dir/stub.s", ".text\n.globl mcount\nmcount: ret\n.section .note.GNU-stack,\"\",\@progbits\n");
    my ($st, $out, $err) = run_cmd(['g++', '-o', "$dir/cxx", "$dir/u1.o", "$dir/u2.o", "$dir/stub.s"]);
    is($st, 0, 'the two objects link') or diag $err;
    unlike($err, qr/discarded section/, 'no reference to a discarded section');
    ($st) = run_cmd(["$dir/cxx"]);
    is($st, 0, 'the program runs');
}

# a long-named section outside any group is recorded like any other
{
    my $sec = ".text.$long";
    spit("$dir/plain.c", "int g(int);\n__attribute__((section(\"$sec\"))) int f(int x) { return g(x) + 1; }\n");
    must('gcc', '-O2', '-pg', '-mfentry', '-c', "$dir/plain.c", '-o', "$dir/plain.o");
    my ($st, $out, $err) = record_pl("$dir/plain.o", []);
    is($st, 0, 'long-named section: recorded') or diag $err;
    is($err, '', 'long-named section: nothing said');
    is_deeply(table_sites("$dir/plain.o"), ["$sec+0x0"], 'long-named section: its call site is in the table');
}

# a refusal names the whole section
{
    my $sec = ".text.$long";
    spit("$dir/bad.s", ".section $sec,\"ax\",\@progbits\n.globl f\nf: nop\n.quad mcount\n"
        . ".section .note.GNU-stack,\"\",\@progbits\n");
    must('as', '--64', '-o', "$dir/bad.o", "$dir/bad.s");
    my ($st, $out, $err) = record_pl("$dir/bad.o", []);
    is($st >> 8, 1, 'a data word against the hook in a long-named section: refused');
    like($err, qr/^recordmcount: \Q$dir\E\/bad\.o: \Q$sec\E: relocation R_X86_64_64 against the profiling hook at \Q$sec\E\+0x1 is not a call form known for x86_64$/m,
        'the message names the whole section, twice');
    ($st, $out, $err) = run_cmd(["$TOP/build/mcount-scan", '--object', "$dir/bad.o", '--plan', '-o', '/dev/null'],
        stdin => must('objdump', '-h', '-t', '-r', "$dir/bad.o"));
    like($err, qr/ at \Q$sec\E\+0x1 is not a call form/, 'the helper itself names the whole section');
}

is_deeply([leftovers($dir)], [], 'no temporary files left');
done_testing();
