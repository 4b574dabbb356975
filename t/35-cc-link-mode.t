#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# mcount-cc's link-time mode on the builds the per-object tables cannot
# be exact for.  A C++ program of several translation units (templates,
# inline and virtual functions, static locals, the standard library's
# inline code) built by g++ and by clang++ through mcount-cc, in the
# default auto mode: the program's own hook (t/src/hook.S and
# hook_check.c, built without -pg) checks at every call that its site is
# in the table, and --verify that every entry is a call to the hook (not
# every instrumented function of a C++ program runs: a virtual destructor
# or a library function that is never called keeps its entry).
# The same build in per-object mode fails that check (the COMDAT calls
# have no entries): the oracle sees the difference.  Also a C build with
# --gc-sections, and a weak function overridden by a strong one; a
# program compiled and linked in one command.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP $SRC must compile tmpdir run_cmd spit leftovers);
use CcTest qw($MCC);
use LinkDiff qw(link_diff);

delete $ENV{$_} for qw(MCOUNT_CC_FLAGS MCOUNT_CC_ACTIVE MCOUNT_CC_VERBOSE MCOUNT_CC_MODE OBJDUMP
    OBJCOPY LD AS CROSS_COMPILE RECORDMCOUNT_HELPER);
my $dir = tmpdir();
my $MR = "$TOP/bin/mcount-record";

spit("$dir/shapes.h", <<'CC');
#include <vector>
#include <string>
template <typename T> T total(const std::vector<T> &v) { T s{}; for (const T &x : v) s += x; return s; }
inline int twice(int x) { return 2 * x; }
struct Shape { virtual ~Shape() {} virtual int area() const = 0; };
struct Square : Shape { int side; explicit Square(int s) : side(s) {} int area() const override { return side * side; } };
int counted();
int uses_shapes(int n);
CC
spit("$dir/a.cc", <<'CC');
#include "shapes.h"
int counted() { static int n = twice(1); return ++n; }
int uses_shapes(int n) {
    std::vector<int> v(n, 3);
    Square sq(n);
    const Shape &s = sq;
    return total(v) + twice(n) + s.area() + counted();
}
CC
spit("$dir/main.cc", <<'CC');
#include <cstdio>
#include "shapes.h"
extern "C" int mcount_report(void);
int main(int argc, char **) {
    std::vector<long> v(argc, 5L);
    Square sq(argc + 1);
    int r = (int)total(v) + twice(argc) + uses_shapes(argc) + sq.area() + counted();
    std::printf("result %d\n", r);
    return mcount_report();
}
CC

# The hook and its bookkeeping, without -pg; every code section is in the
# link-time table.
sub hook_objects {
    my ($d) = @_;
    compile("$SRC/hook.S", "$d/hook.o");
    compile("$SRC/hook_check.c", "$d/hook_check.o", '-O2', '-mgeneral-regs-only',
        '-DEXOTIC_RECORDED=1');
    return ("$d/hook.o", "$d/hook_check.o");
}

# mcount-record --verify passes on PROG (every entry a call to the hook,
# every call an entry) and its summary matches LIKE.
sub verify_ok {
    my ($prog, $name, $like) = @_;
    my ($st, $out) = run_cmd([$MR, '--verify', '--sections=all', $prog]);
    is($st, 0, "$name: --verify passes") or diag $out;
    like($out, $like, "$name: $out") if $like;
    return;
}

# What mcount-cc said (MCOUNT_CC_VERBOSE) of the link's method, for NAME:
# the one link, or the links with -q for the reason like WHY.
sub method_ok {
    my ($err, $name, $why) = @_;
    my ($said) = $err =~ /^mcount-cc: \S+: \d+ call sites?, \d+ links?; (.*)$/m;
    like($said // '', defined $why ? qr/^links with -q, then the link with the table \(one link could not: $why/
        : qr/^one link\b.*, the table filled in place/, "$name: " . ($said // 'no method said'));
    return;
}

# The corpus compiled with -flto by CC through mcount-cc (auto mode: link
# time) into a new directory NAME; returns the directory.
sub lto_corpus {
    my ($cc, $name, $lto) = @_;
    $lto //= '-flto';
    my $d = "$dir/$name";
    mkdir $d or die;
    for my $c (qw(corpus prog_main dup_a dup_b)) {
        my ($st, undef, $err) = run_cmd([$MCC, $cc, '-O2', $lto, '-c', "$SRC/$c.c", '-o', "$d/$c.o"],
            env => { MCOUNT_CC_FLAGS => '-pg -mfentry' });
        is($st, 0, "$cc $lto: $c.c compiled in auto mode") or diag $err;
    }
    return $d;
}

# Compile a.cc and main.cc and link them through mcount-cc CXX.
sub build_cxx {
    my ($d, $cxx, $mode, @flags) = @_;
    mkdir $d or die;
    my %env = (MCOUNT_CC_FLAGS => '-pg -mfentry', defined $mode ? (MCOUNT_CC_MODE => $mode) : ());
    for my $src (qw(a main)) {
        my ($st, undef, $err) = run_cmd([$MCC, $cxx, @flags, '-I', $dir, '-c', "$dir/$src.cc",
            '-o', "$d/$src.o"], env => \%env);
        die "compiling $src.cc: $err" if $st != 0;
    }
    my ($st, $out, $err) = run_cmd([$MCC, $cxx, '-o', "$d/prog", "$d/a.o", "$d/main.o",
        hook_objects($d)], env => { %env, MCOUNT_CC_VERBOSE => 1 });
    return ($st, $err);
}

my @cxx = ('g++');
push @cxx, 'clang++';    # scripts/deps/core.list installs it
for my $cxx (@cxx) {
    for my $flags (['-O0'], ['-O2']) {
        my $name = "$cxx @$flags";
        my $d = "$dir/" . ($name =~ s/[^A-Za-z0-9]+/_/gr);
        my ($st, $err) = build_cxx($d, $cxx, undef, @$flags);
        is($st, 0, "$name: built through mcount-cc (auto mode)") or diag $err;
        method_ok($err, $name);
        my ($rst, $out) = run_cmd(["$d/prog"]);
        my ($summary) = $out =~ /^(entries=.*)$/m;
        like($out, qr/^result \d+$/m, "$name: the program runs");
        like($summary // '', qr/^entries=\d+ reached=\d+ calls=[1-9]\d* unknown=0 duplicates=0/,
            "$name: every call site is in the table, none twice: $summary");
        verify_ok("$d/prog", $name);
        is_deeply([leftovers($d)], [], "$name: no temporary files");
        must($cxx, '-o', "$d/plain", "$d/a.o", "$d/main.o", "$d/hook.o", "$d/hook_check.o");
        is_deeply([link_diff(['readelf'], "$d/prog", "$d/plain")], [], "$name: the plain link's but for the table");
    }
}

# Compiled and linked in one step (configure's tests, make's built-in
# rule for a program of one source): the command is split, each source
# compiled as a compile is, then linked as a link is.  Oracle: the
# program's own hook, in link-time mode (g++'s) and per object (C).
for my $cxx (@cxx) {
    my $d = "$dir/one-step-$cxx" =~ s/\+/x/gr;
    mkdir $d or die;
    my ($st, $out, $err) = run_cmd([$MCC, $cxx, '-O2', '-I', $dir, '-o', "$d/prog", "$dir/a.cc", "$dir/main.cc",
        hook_objects($d)], env => { MCOUNT_CC_FLAGS => '-pg -mfentry' });
    is("$st $err", '0 ', "$cxx, one step: linked, nothing said");
    ($st, $out) = run_cmd(["$d/prog"]);
    my ($summary) = $out =~ /^(entries=.*)$/m;
    like($out, qr/^result \d+$/m, "$cxx, one step: the program runs");
    like($summary // '', qr/^entries=\d+ reached=\d+ calls=[1-9]\d* unknown=0 duplicates=0/,
        "$cxx, one step: every call site is in the table, none twice: " . ($summary // $out));
    verify_ok("$d/prog", "$cxx, one step");
    is_deeply([leftovers($d)], [], "$cxx, one step: no temporary files");
}
{
    my $d = "$dir/one-step-c";
    mkdir $d or die;
    # (no asm_cases.S: a per-object build records no assembler source;
    # the hook's check without the exotic section per-object tables leave out)
    spit("$d/stubs.c", "void (*const asm_ptrs[])(void) = { 0 };\n");
    compile("$SRC/hook.S", "$d/hook.o");
    compile("$SRC/hook_check.c", "$d/hook_check.o", '-O2', '-mgeneral-regs-only');
    my ($st, $out, $err) = run_cmd([$MCC, 'gcc', '-O2', '-o', "$d/prog",
        (map { "$SRC/$_.c" } qw(corpus prog_main dup_a dup_b)), "$d/stubs.c", "$d/hook.o", "$d/hook_check.o"],
        env => { MCOUNT_CC_FLAGS => '-pg -mfentry', MCOUNT_CC_MODE => 'object' });
    is("$st $err", '0 ', 'gcc, one step, per object: linked, nothing said');
    ($st, $out) = run_cmd(["$d/prog"]);
    my ($summary) = $out =~ /^(entries=.*)$/m;
    is($st, 0, 'gcc, one step, per object: every call site is in the table, every entry reached') or diag $out;
    like($summary // '', qr/^entries=(\d+) reached=\1 calls=[1-9]\d* unknown=0 duplicates=0/,
        'gcc, one step, per object: ' . ($summary // $out));
    is_deeply([leftovers($d)], [], 'gcc, one step, per object: no temporary files');

    # a source that does not compile: the compiler's words and status for
    # each source, no output, nothing left behind
    spit("$d/bad.c", "int main(void) { return nosuch; }\n");
    spit("$d/bad2.c", "int other(void) { return alsonot; }\n");
    ($st, $out, $err) = run_cmd([$MCC, 'gcc', '-o', "$d/bad", "$d/bad.c", "$d/bad2.c"]);
    is($st >> 8, 1, 'one step, compile errors: the compiler\'s status');
    like($err, qr/nosuch.*alsonot/s, 'one step, compile errors: the compiler\'s words, for both sources');
    ok(!-e "$d/bad", 'one step, compile errors: no output');
    is_deeply([leftovers($d)], [], 'one step, compile errors: no temporary files');

    # what keeps a command from being split: said, and nothing is built
    # (a program without its table would pass for one with it)
    spit("$d/m.c", "int main(void) { return 0; }\n");
    ($st, undef, $err) = run_cmd([$MCC, 'gcc', '-x', 'c', '-o', "$d/m", "$d/m.c"]);
    is($st >> 8, 100, 'one step with -x: refused, exit 100');
    is($err, "mcount-cc: $d/m: the sources this link compiles would get no hook and no table (mcount-cc does "
        . "not split a link with -x): compile them with -c, then link\n", 'one step with -x: said');
    ok(!-e "$d/m", 'one step with -x: no program');
}

# A link whose words are in a response file (as Ninja gives long ones):
# the pass reads it for the output's name and the inputs.
{
    my $d = "$dir/rsp";
    mkdir $d or die;
    my ($st, undef, $err) = build_cxx("$d/objs", 'g++', undef, '-O0');
    is($st, 0, 'response file: built') or diag $err;
    spit("$d/link.rsp", join(' ', '-o', "$d/prog", "$d/objs/a.o", "$d/objs/main.o", hook_objects($d)) . "\n");
    ($st, undef, $err) = run_cmd([$MCC, 'g++', "\@$d/link.rsp"], env => { MCOUNT_CC_FLAGS => '-pg -mfentry' });
    is("$st $err", '0 ', 'response file: linked through mcount-cc, nothing said');
    my ($rst, $out) = run_cmd(["$d/prog"]);
    my ($summary) = $out =~ /^(entries=.*)$/m;
    like($summary // '', qr/^entries=\d+ reached=\d+ calls=[1-9]\d* unknown=0 duplicates=0/,
        'response file: every call site is in the table, none twice: ' . ($summary // $out));
    ok(!-e 'a.out', 'response file: no a.out');
}

# A C++ program with C objects recorded one by one: by mcount-cc's
# object mode (auto's choice for gcc -c), and by GCC's own
# -mrecord-mcount.  Their tables come into the link; the link's table
# adds the other calls only, none twice (before, each C function had two
# entries, and --verify said "duplicate entry").
for my $how (['object mode', 'gcc', {}], ['-mrecord-mcount', 'gcc', { MCOUNT_CC_FLAGS => '-pg -mfentry -mrecord-mcount' }]) {
    my ($label, $cc, $env) = @$how;
    my $d = "$dir/mixed-" . ($label =~ s/\W+/_/gr);
    mkdir $d or die;
    spit("$d/c_part.c", "int c_twice(int x) { return 2 * x; }\nint c_counted(void) { static int n; return ++n; }\n");
    spit("$d/uses.cc", "extern \"C\" int c_twice(int); extern \"C\" int c_counted(void);\n"
        . "int counted() { return c_counted(); }\nint uses_shapes(int n) { return c_twice(n) + c_counted(); }\n");
    my ($st, undef, $err) = run_cmd([$MCC, $cc, '-O0', '-c', "$d/c_part.c", '-o', "$d/c_part.o"],
        env => { MCOUNT_CC_FLAGS => '-pg -mfentry', %$env });
    is($st, 0, "mixed, $label: the C object compiled") or diag $err;
    like(must('readelf', '-SW', "$d/c_part.o"), qr/__mcount_loc/, "mixed, $label: the C object has its own table");
    for my $src ("$d/uses.cc", "$dir/main.cc") {
        (my $o = $src) =~ s{.*/(\w+)\.cc\z}{$d/$1.o};
        ($st, undef, $err) = run_cmd([$MCC, 'g++', '-O0', '-I', $dir, '-c', $src, '-o', $o],
            env => { MCOUNT_CC_FLAGS => '-pg -mfentry' });
        is($st, 0, "mixed, $label: $src compiled (link-time mode)") or diag $err;
    }
    ($st, undef, $err) = run_cmd([$MCC, 'g++', '-o', "$d/prog", "$d/main.o", "$d/uses.o", "$d/c_part.o",
        hook_objects($d)], env => { MCOUNT_CC_FLAGS => '-pg -mfentry', MCOUNT_CC_VERBOSE => 1 });
    is($st, 0, "mixed, $label: linked through mcount-cc") or diag $err;
    method_ok($err, "mixed, $label", qr/an input brings its own table/);
    my ($rst, $out) = run_cmd(["$d/prog"]);
    my ($summary) = $out =~ /^(entries=.*)$/m;
    like($summary // '', qr/^entries=\d+ reached=\d+ calls=[1-9]\d* unknown=0 duplicates=0/,
        "mixed, $label: every call site is in the table, none twice: " . ($summary // $out));
    verify_ok("$d/prog", "mixed, $label");
}

# The oracle can tell: per object, the inline and template functions'
# calls are left out (their sections are in COMDAT groups).
{
    my $d = "$dir/per-object";
    my ($st, $err) = build_cxx($d, 'g++', 'object', '-O0');
    is($st, 0, 'per-object mode: built') or diag $err;
    my ($rst, $out) = run_cmd(["$d/prog"]);
    isnt($rst, 0, 'per-object mode: the program finds calls without entries');
    like($out, qr/calls from sites not in the table/, 'per-object mode: and says so');
}

# C with -ffunction-sections and --gc-sections: auto mode records at the
# link, the dead function has no entry and stays dead.
{
    my $d = "$dir/gc";
    mkdir $d or die;
    spit("$d/m.c", "int used(int x);\nint dead(int x) { return x * 7; }\n"
        . "int used(int x) { return x + 1; }\nint main(int c, char **v) { (void)v; return used(c) - c - 1; }\n");
    my ($st, undef, $err) = run_cmd([$MCC, 'gcc', '-O0', '-ffunction-sections', '-c', "$d/m.c", '-o', "$d/m.o"]);
    is($st, 0, '--gc-sections: compiled') or diag $err;
    ($st, undef, $err) = run_cmd([$MCC, 'gcc', '-Wl,--gc-sections', '-o', "$d/prog", "$d/m.o"],
        env => { MCOUNT_CC_VERBOSE => 1 });
    is($st, 0, '--gc-sections: linked') or diag $err;
    method_ok($err, '--gc-sections');
    my $nm = must('nm', "$d/prog");
    unlike($nm, qr/ dead$/m, '--gc-sections: the dead function is gone');
    verify_ok("$d/prog", '--gc-sections (main and used, not dead)', qr/OK, 2 entries for 2 calls/);
    ($st) = run_cmd(["$d/prog"]);
    is($st, 0, '--gc-sections: the program runs');
}

# A weak function overridden by a strong one: the weak copy's code stays
# in the program, never called, in no function of its symbol table: its
# call to the hook has no entry (one link leaves a hole in its place, as
# the kernel's sorttable does), and --verify reports the table exact.
{
    my $d = "$dir/weak";
    mkdir $d or die;
    spit("$d/w.c", "__attribute__((weak)) int f(int x) { return x + 100; }\n"
        . "int g(int x) { return f(x); }\n");
    spit("$d/s.c", "int f(int x) { return x + 1; }\nint g(int);\n"
        . "int main(int c, char **v) { (void)v; return g(c) - c - 1; }\n");
    for my $f ('w', 's') {
        my ($st, undef, $err) = run_cmd([$MCC, 'gcc', '-O2', '-c', "$d/$f.c", '-o', "$d/$f.o"],
            env => { MCOUNT_CC_MODE => 'link' });
        is($st, 0, "weak override: $f.c compiled") or diag $err;
    }
    my ($st, undef, $err) = run_cmd([$MCC, 'gcc', '-o', "$d/prog", "$d/w.o", "$d/s.o"],
        env => { MCOUNT_CC_MODE => 'link', MCOUNT_CC_VERBOSE => 1 });
    is($st, 0, 'weak override: linked') or diag $err;
    method_ok($err, 'weak override');
    like($err, qr/, 1 of overridden weak functions left out/, 'weak override: the weak copy left out, said');
    verify_ok("$d/prog", 'weak override (the strong f, g and main)', qr/OK, 3 entries for 3 calls/);
    ($st, my $vout, my $verr) = run_cmd([$MR, '--verify', '--strict', "$d/prog"]);
    is($st, 0, 'weak override: --verify --strict passes (no entry in the weak copy)') or diag $vout . $verr;
    ($st) = run_cmd(["$d/prog"]);
    is($st, 0, 'weak override: the strong f runs');
}

# GCC -flto: LTO drops the calls to the hook unless the link has -pg,
# which would also start the program with gcrt1.o (gmon.out at exit); the
# link-time pass links with -pg and the usual start files.  The runtime
# oracle of t/22 checks the result: every call in the table, every entry
# reached, and no gmon.out.
{
    my $d = lto_corpus('gcc', 'gcc-lto');
    my %env = (MCOUNT_CC_FLAGS => '-pg -mfentry');
    compile("$SRC/asm_cases.S", "$d/asm_cases.o", '-Wa,-L');
    my @objs = ((map { "$d/$_.o" } qw(corpus prog_main dup_a dup_b asm_cases)), hook_objects($d));
    my ($st, undef, $err) = run_cmd([$MCC, 'gcc', '-O2', '-flto', '-o', "$d/prog", @objs],
        env => { %env, MCOUNT_CC_VERBOSE => 1 });
    is($st, 0, 'gcc -flto: linked through the link-time pass') or diag $err;
    method_ok($err, 'gcc -flto');
    like($err, qr/; one link \(LTO: its code generation once/, 'gcc -flto: LTO\'s code generated once');
    ($st, my $out) = run_cmd(['sh', '-c', 'cd "$1" && exec ./prog', 'sh', $d]);
    my ($summary) = $out =~ /^(entries=.*)$/m;
    is($st, 0, 'gcc -flto: every call site is in the table, every entry reached') or diag $out;
    like($summary // '', qr/^entries=(\d+) reached=\1 calls=[1-9]\d* unknown=0 duplicates=0/, "gcc -flto: $summary");
    ok(!-e "$d/gmon.out", 'gcc -flto: the program is not a gprof one (no gmon.out)');
    verify_ok("$d/prog", 'gcc -flto');
    # the oracle can tell: linked as the command says, LTO drops the C
    # code's calls (those left are asm_cases.S's) and there is no table
    my ($calls) = ($summary // '') =~ / calls=(\d+)/;
    must('gcc', '-O2', '-flto', '-o', "$d/plain", @objs);
    ($st, $out) = run_cmd(["$d/plain"]);
    my ($plain) = $out =~ / calls=(\d+)/;
    isnt($st, 0, 'gcc -flto linked plainly: the program finds no table');
    cmp_ok($plain // 0, '<', $calls // 0, "gcc -flto linked plainly: fewer calls ($plain, not $calls): LTO dropped -pg");
}

# clang -flto and -flto=thin linked by lld, and by GNU ld and gold
# through LLVMgold.so (the plugin clang passes them with -plugin;
# Debian's clang-14 depends on llvm-14-linker-tools, which has it): every
# input is LLVM bitcode, so the target comes from an empty object the
# compiler assembles; the calls survive clang's LTO without -pg at the
# link.  The C library's __fentry__ serves them (the program runs);
# --verify checks the table.  One link each (MCOUNT_CC_VERBOSE says),
# but ThinLTO through gold: its kept objects would change the output.
for my $lto ('-flto', '-flto=thin') {
    my $d = lto_corpus('clang', "clang$lto", $lto);
    my %env = (MCOUNT_CC_FLAGS => '-pg -mfentry', MCOUNT_CC_VERBOSE => 1);
    spit("$d/stubs.c", "void (*const asm_ptrs[])(void) = { 0 };\nint mcount_report(void) { return 0; }\n");
    # (with -mfentry as the corpus: the C library's mcount, called without
    # gcrt1.o's set-up, crashes where ThinLTO leaves the call)
    my ($st, undef, $err) = run_cmd([$MCC, 'clang', '-O2', $lto, '-c', "$d/stubs.c", '-o', "$d/stubs.o"], env => \%env);
    is($st, 0, "clang $lto: stubs compiled") or diag $err;
    for my $ld ('lld', 'bfd', 'gold') {
        my $name = "clang $lto -fuse-ld=$ld";
        ($st, undef, $err) = run_cmd([$MCC, 'clang', $lto, "-fuse-ld=$ld", '-o', "$d/prog-$ld",
            map { "$d/$_.o" } qw(corpus prog_main dup_a dup_b stubs)], env => \%env);
        is($st, 0, "$name: linked through the link-time pass") or diag $err;
        my $once = !($lto eq '-flto=thin' && $ld eq 'gold');
        like($err, $once ? qr/[:;] one link \(LTO: its code generation once, its objects read\)/
            : qr/[:;] links with -q, then the link with the table \(one link could not: clang's ThinLTO through gold/,
            "$name: " . ($once ? 'in one link' : 'the links with -q, said why'));
        ($st) = run_cmd(["$d/prog-$ld"]);
        is($st, 0, "$name: the program runs");
        verify_ok("$d/prog-$ld", $name, qr/OK, [1-9]\d* entries for \d+ calls/);
        must('clang', $lto, "-fuse-ld=$ld", '-o', "$d/plain-$ld", map { "$d/$_.o" } qw(corpus prog_main dup_a dup_b stubs));
        is_deeply([link_diff(['readelf'], "$d/prog-$ld", "$d/plain-$ld")], [], "$name: the plain link's but for the table");
    }
}

# A plain `call mcount` (e8) after an instruction whose last byte is 0x90
# looks, by its bytes alone, like a GOT call the linker relaxed to `90
# e8` (-z call-nop=prefix-0x90), which starts one byte earlier.  clang
# -O0 makes one: it spills the argument to -0x70(%rbp) just before the
# call (`48 89 7d 90`).  The entry must be the call itself.
{
    my $d = "$dir/nop-byte";
    mkdir $d or die;
    spit("$d/spill.c", "int spill(long x) { volatile char buf[80]; volatile long n = x; "
        . "buf[0] = (char)n; return buf[0]; }\n"
        . "int main(int argc, char **argv) { (void)argv; return spill(argc) - argc; }\n");
    my %env = (MCOUNT_CC_FLAGS => '-pg', MCOUNT_CC_MODE => 'link');
    my ($st, undef, $err) = run_cmd([$MCC, 'clang', '-O0', '-c', "$d/spill.c", '-o', "$d/spill.o"],
        env => \%env);
    is($st, 0, 'a 0x90 byte before the call: compiled') or diag $err;
    ($st, undef, $err) = run_cmd([$MCC, 'clang', '-o', "$d/prog", "$d/spill.o"], env => \%env);
    is($st, 0, 'a 0x90 byte before the call: linked') or diag $err;
    my ($before) = must('objdump', '-d', "$d/prog") =~ /<spill>:\n(?:.*\n)*?(.*)\n.*\bcall\b.*<mcount/;
    like($before // '', qr/^\s*[0-9a-f]+:\t(?:[0-9a-f]{2} )*90 +\t/,
        'the instruction before the call ends in a 0x90 byte: ' . ($before // 'none'));
    verify_ok("$d/prog", 'a 0x90 byte before the call', qr/OK, 2 entries for 2 calls/);
    ($st) = run_cmd(["$d/prog"]);
    is($st, 0, 'a 0x90 byte before the call: the program runs');
}

# A shared library that exports data, functions and a thread-local
# variable, linked in link-time mode by gcc, then by g++ (bfd, gold and
# lld), and a program that reads each of them: the values it reads are
# the library's (through copy relocations, the GOT and TLS), and the
# library is the plain link of the same objects but for the table.
{
    my $d = "$dir/exports";
    mkdir $d or die;
    spit("$d/lib.c", <<'C');
const char *ver = "1.0";
int counter = 41;
long table[3] = { 7, 8, 9 };
__thread int tls_value = 5;
int bump(void) { return ++counter + tls_value; }
const char *version(void) { return ver; }
C
    spit("$d/main.c", <<'C');
#include <stdio.h>
#include <string.h>
extern const char *ver;
extern int counter;
extern long table[3];
extern __thread int tls_value;
int bump(void);
const char *version(void);
int main(void) {
    int bad = 0;
    bad |= strcmp(ver, "1.0") != 0;
    bad |= counter != 41;
    bad |= table[0] + table[1] + table[2] != 24;
    bad |= tls_value != 5;
    bad |= bump() != 47 || counter != 42;
    bad |= version() != ver;
    printf("%s %d %ld %d\n", ver, counter, table[2], tls_value);
    return bad;
}
C
    my %env = (MCOUNT_CC_FLAGS => '-pg -mfentry', MCOUNT_CC_MODE => 'link');
    my ($st, undef, $err) = run_cmd([$MCC, 'gcc', '-O2', '-g', '-fPIC', '-c', "$d/lib.c", '-o', "$d/lib.o"],
        env => \%env);
    is($st, 0, 'exports: the library compiled') or diag $err;
    for my $ld ([], ['-fuse-ld=gold'], ['-fuse-ld=lld']) {
        my $name = 'exports ' . ("@$ld" || 'bfd');
        my $lib = "$d/libx" . ($ld->[0] // '-bfd') =~ s/-fuse-ld=/-/r . '.so';
        ($st, undef, $err) = run_cmd([$MCC, 'gcc', @$ld, '-shared', '-o', $lib, "$d/lib.o"],
            env => { %env, MCOUNT_CC_VERBOSE => 1 });
        is($st, 0, "$name: the library linked through the pass") or diag $err;
        like($err, qr/[:;] one link, the table filled in place/, "$name: in one link");
        verify_ok($lib, $name, qr/OK, 2 entries for 2 calls/);
        must('gcc', @$ld, '-shared', '-o', "$lib.plain", "$d/lib.o");
        is_deeply([link_diff(['readelf'], $lib, "$lib.plain")], [], "$name: the plain link's but for the table");
        my $prog = "$lib.prog";
        ($st, undef, $err) = run_cmd(['gcc', '-O2', '-o', $prog, "$d/main.c", $lib]);
        is("$st $err", '0 ', "$name: a program that reads the library's data links, without text relocations");
        unlike(must('readelf', '-d', $prog), qr/TEXTREL/, "$name: no DT_TEXTREL in the program");
        my $out;
        ($st, $out) = run_cmd([$prog], env => { LD_LIBRARY_PATH => $d });
        is("$st $out", "0 1.0 42 9 5\n", "$name: the program reads the library's values");
    }
}

# make's built-in rule for a program of one source, with Debian's LTO
# flags, through mcount-cc: each program is compiled and linked in one
# step, split, and linked through the pass, which records what LTO
# generates; --verify --expect-calls checks each table against the calls
# of objdump -d.  Built as such a command once ran through mcount-cc (as
# it is, without the hook flags), the programs have no call to the hook:
# --expect-calls fails where --verify alone is content.
{
    my $d = "$dir/make-lto";
    mkdir $d or die;
    for my $p (qw(one two three)) {
        spit("$d/$p.c", "#include <stdio.h>\n__attribute__((noinline)) int ${p}_f(int x) { return x * 3; }\n"
            . "int main(int c, char **v) { (void)v; printf(\"%d\\n\", ${p}_f(c)); return 0; }\n");
    }
    spit("$d/Makefile", "all: one two three\n");
    my @flags = ('CFLAGS=-O2 -flto=auto -ffat-lto-objects', 'LDFLAGS=-flto=auto -ffat-lto-objects -Wl,-z,relro');
    my ($st, $out, $err) = run_cmd(['make', '-C', $d, "CC=$MCC gcc", @flags],
        env => { MCOUNT_CC_FLAGS => '-pg -mfentry' });
    is($st, 0, 'make, built-in rule, -flto: built through mcount-cc') or diag "$out$err";
    for my $p (qw(one two three)) {
        ($st, $out, $err) = run_cmd([$MR, '--verify', '--expect-calls', "$d/$p"]);
        like("$st $out", qr/^0 \Q$d\E\/$p: OK, 2 entries for 2 calls to the hook$/,
            "make -flto: $p has its table, every call of objdump -d in it") or diag $err;
        ($st, $out) = run_cmd(["$d/$p"]);
        is("$st $out", "0 3\n", "make -flto: $p runs");
    }
    is_deeply([leftovers($d)], [], 'make -flto: no temporary files');
    must('make', '-C', $d, '-B', 'CC=gcc', @flags);
    ($st, $out) = run_cmd([$MR, '--verify', "$d/one"]);
    is("$st $out", "0 $d/one: no table and no calls to the hook\n", 'negative control: --verify alone is content');
    ($st, undef, $err) = run_cmd([$MR, '--verify', '--expect-calls', "$d/one"]);
    is($st >> 8, 1, 'negative control: --expect-calls fails');
    like($err, qr/no table and no calls to the hook \(--expect-calls\)/, 'negative control: said');
}

# A link that fails by itself fails as the compiler does: its words, its
# status, nothing of mcount-cc's, no output.
{
    my $d = "$dir/bad";
    mkdir $d or die;
    spit("$d/u.c", "int missing_function(void);\nint main(void) { return missing_function(); }\n");
    my ($st, undef, $err) = run_cmd([$MCC, 'gcc', '-c', "$d/u.c", '-o', "$d/u.o"],
        env => { MCOUNT_CC_MODE => 'link' });
    is($st, 0, 'failing link: compiled');
    ($st, undef, $err) = run_cmd([$MCC, 'gcc', '-o', "$d/prog", "$d/u.o"], env => { MCOUNT_CC_MODE => 'link' });
    is($st >> 8, 1, "failing link: the compiler's exit status");
    like($err, qr/undefined reference to .missing_function/, "failing link: the linker's words");
    unlike($err, qr/mcount-cc/, 'failing link: nothing of mcount-cc');
    ok(!-e "$d/prog", 'failing link: no output');
    is_deeply([leftovers($d)], [], 'failing link: no temporary files');
}

done_testing();
