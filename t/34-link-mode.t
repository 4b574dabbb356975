#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# Link-time mode (mcount-record --link): a program linked through it has
# the table of the code the linker kept.  The runtime oracle of t/22 (the
# program's own hook checks at every call that the call site is in the
# table, and at exit that every entry was reached) runs on PIE, non-PIE,
# static, --gc-sections and relaxed-GOT-call builds, and mcount-record
# --verify passes on each.  Nothing of the -q link is left in the result,
# and it is what the plain link of the same objects is, but for the table
# (t/lib/LinkDiff.pm: sections, segments, dynamic symbols, entries and
# relocations).
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP $SRC must compile tmpdir run_cmd run_prog arch_of_flags leftovers spit);
use LinkDiff qw(link_diff);

my $dir = tmpdir();
my $MR = "$TOP/bin/mcount-record";

# [compile flags, link flags]
my @variants = (
    [['-O2', '-pg', '-mfentry'], []],
    [['-O2', '-pg'], []],
    [['-O0', '-pg', '-mfentry'], []],
    [['-O2', '-pg', '-mfentry', '-fno-pie'], ['-no-pie']],
    [['-O2', '-pg', '-fno-pie'], ['-no-pie']],
    [['-O2', '-pg', '-mfentry'], ['-static']],
    [['-O2', '-pg', '-mfentry', '-ffunction-sections'], ['-Wl,--gc-sections']],
    [['-O2', '-pg', '-fPIC'], []],
    [['-O2', '-pg', '-mfentry', '-fno-plt'], []],
);
push @variants, [['-O2', '-pg', '-mfentry'], ['-fuse-ld=gold']];
# lld refuses asm_cases.S's absolute words in a PIE: non-PIE and static
push @variants, [['-O2', '-pg', '-mfentry', '-fno-pie'], ['-no-pie', '-fuse-ld=lld']],
    [['-O2', '-pg', '-mfentry'], ['-static', '-fuse-ld=lld']],
    [['-O2', '-pg', '-fno-pie', '-ffunction-sections'], ['-no-pie', '-fuse-ld=lld', '-Wl,--gc-sections']];

# The corpus compiled with FLAGS, the hook and its bookkeeping without -pg;
# every code section is recorded at link time, exotic_text too.
sub objects {
    my ($d, @f) = @_;
    my @m = grep { /^-m(32|64)\z/ } @f;
    compile("$SRC/$_.c", "$d/$_.o", @f) for qw(corpus prog_main dup_a dup_b);
    compile("$SRC/asm_cases.S", "$d/asm_cases.o", @m, '-Wa,-L');
    compile("$SRC/hook.S", "$d/hook.o", @m);
    compile("$SRC/hook_check.c", "$d/hook_check.o", @m, '-O2', '-mgeneral-regs-only',
        '-DEXOTIC_RECORDED=1');
    return map { "$d/$_.o" } qw(corpus prog_main dup_a dup_b asm_cases hook hook_check);
}

for my $v (@variants) {
    my ($cflags, $lflags) = @$v;
    my $name = "@$cflags | @$lflags";
    my $tag = $name =~ s/[^A-Za-z0-9]+/_/gr;
    my $d = "$dir/$tag";
    mkdir $d or die;
    my @objs = objects($d, @$cflags);
    my @m = grep { /^-m(32|64)\z/ } @$cflags;
    my ($st, $out, $err) = run_cmd([$MR, '--link', '-v', '--', 'gcc', @m, @$lflags, '-o', "$d/prog", @objs]);
    is($st, 0, "$name: mcount-record --link succeeds") or diag $err;
    like($out, qr/^mcount-record: \Q$d\E\/prog: \d+ call sites, \d links?/m, "$name: and says what it did");
    # GNU ld, gold and lld link once
    like($err, qr/: one link, the table filled in place/, "$name: by the one-link method");
    note($err =~ /^(mcount-record: \S+: (?:one link|links with).*)$/m ? $1 : 'no method said');
    my ($arch) = arch_of_flags(@$cflags);
    ($st, $out) = run_prog(["$d/prog"], arch => $arch);
    my ($summary) = $out =~ /^(entries=.*)$/m;
    is($st, 0, "$name: every call site is in the table, every entry reached") or diag $out;
    like($summary // '', qr/^entries=(\d+) reached=\1 calls=\d+ unknown=0 duplicates=0/, "$name: $summary");
    ($st, $out, $err) = run_cmd([$MR, '--verify', "$d/prog"]);
    is($st, 0, "$name: mcount-record --verify passes") or diag "$out$err";
    my $sections = must('readelf', '-W', '-S', "$d/prog");
    unlike($sections, qr/\.rela?\.text\b/, "$name: no relocations of the -q link are left");
    is_deeply([leftovers($d)], [], "$name: no temporary files");
    # the oracle: the same command linked plainly
    must('gcc', @m, @$lflags, '-o', "$d/plain", @objs);
    is_deeply([link_diff(['readelf'], "$d/prog", "$d/plain")], [],
        "$name: the same as the plain link but for the table");
}

# --gc-sections in a program that never refers to its table: the table is
# kept (it is retained), and keeps no dead function alive.
{
    my $d = "$dir/gc";
    mkdir $d or die;
    my @f = ('-O2', '-pg', '-mfentry', '-ffunction-sections');
    compile("$SRC/corpus.c", "$d/corpus.o", @f);
    spit("$d/main.c", "int corpus_run(int);\nint main(int c, char **v) { (void)v; return corpus_run(c) & 0; }\n");
    compile("$d/main.c", "$d/main.o", @f);
    must('gcc', '-Wl,--gc-sections', '-o', "$d/plain", "$d/corpus.o", "$d/main.o");
    my ($st, $out, $err) = run_cmd([$MR, '--link', '--', 'gcc', '-Wl,--gc-sections', '-o', "$d/prog",
        "$d/corpus.o", "$d/main.o"]);
    is($st, 0, '--gc-sections, no reference to the table: linked') or diag $err;
    ($st, $out, $err) = run_cmd([$MR, '--verify', '--sections=all', "$d/prog"]);
    is($st, 0, '--gc-sections: the table survives and is exact') or diag "$out$err";
    my $funcs = sub { scalar grep { / [tT] / } split /\n/, must('nm', $_[0]) };
    is($funcs->("$d/prog"), $funcs->("$d/plain"), '--gc-sections: the table keeps no dead function alive');
}

# The oracle can fail: the same objects linked without the table.
{
    my $d = "$dir/plain";
    mkdir $d or die;
    my @objs = objects($d, '-O2', '-pg', '-mfentry');
    must('gcc', '-o', "$d/prog", @objs);
    my ($st, $out) = run_cmd(["$d/prog"]);
    isnt($st, 0, 'negative control: the program without a table fails its own check');
    like($out, qr/calls from sites not in the table/, 'negative control: and says why');
}

# The oracle can fail: removing a -q link's relocation sections with
# objcopy renumbers the sections but leaves the section indices of
# .dynsym stale (exports in .fini, data in .debug_*).
{
    my $d = "$dir/stale";
    mkdir $d or die;
    spit("$d/lib.c", "const char *ver = \"1.0\";\nint f(void) { return 1; }\n");
    compile("$d/lib.c", "$d/lib.o", '-O2', '-g', '-fPIC');
    must('gcc', '-shared', '-Wl,-q', '-o', "$d/q.so", "$d/lib.o");
    must('objcopy', '--remove-relocations=*', "$d/q.so", "$d/stale.so");
    must('gcc', '-shared', '-o', "$d/plain.so", "$d/lib.o");
    my @diff = link_diff(['readelf'], "$d/stale.so", "$d/plain.so");
    ok((grep { /^dynamic symbol .*'ver .* in=\.data / } @diff),
        'negative control: the oracle sees the stale .dynsym indices') or diag explain \@diff;
}

# A link the tool cannot use fails clearly and writes nothing.
{
    my $d = "$dir/bad";
    mkdir $d or die;
    my ($st, undef, $err) = run_cmd([$MR, '--link', '--', 'gcc', '-o', "$d/prog", "$d/missing.o"]);
    is($st >> 8, 1, 'a link that fails: exit 1');
    like($err, qr/^mcount-record: \Q$d\E\/prog: linking \(round 0\) failed \(gcc exited 1\)\n.*missing\.o/m,
        'a link that fails: said clearly, with the linker\'s words');
    ok(!-e "$d/prog", 'a link that fails: no output');
}

done_testing();
