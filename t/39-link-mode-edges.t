#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# The link-time pass on what a link command may ask besides the program,
# each against the same command linked plainly (the oracle: what the
# linker does without the pass):
#   -s, -x (ld cannot strip with -q: the last link, without it, strips;
#   t/lib/LinkDiff.pm compares it with the plain link)
#   -Wl,-Map (also ld's -Map=DIR/ and -Map=%.map) and --dependency-file,
#   with ld.bfd, gold and lld, an output name with a space (they name the
#   output, not a temporary file, and list no temporary input), -Wl,-M
#   printed once
#   an output that is a symbolic link (as the linker treats it: written
#   through; a loop refused in the linker's words), an old output when
#   the link fails (removed, as ld removes it)
#   --output=FILE, @response files, a command longer than exec takes
#   (through the pass, and split into compiles and a plain link)
#   a linker that fails only with -q, a layout without the ELF header the
#   table's entries are against (the linker's words, said as the pass's)
#   a tail jump to the hook (no call: the pass and --verify agree)
#   lld's code moved by .eh_frame's order without -q (the entries follow)
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP $SRC must compile tmpdir run_cmd leftovers spit slurp);
use LinkDiff qw(link_diff);

my $dir = tmpdir();
my $MR = "$TOP/bin/mcount-record";
my $MCC = "$TOP/bin/mcount-cc";

spit("$dir/a.c", <<'C');
#include <stdio.h>
int sq(int x);
__attribute__((noinline)) int twice(int x) { return 2 * x; }
int main(void) { printf("%d\n", sq(twice(3))); return 0; }
C
spit("$dir/b.c", "__attribute__((noinline)) int sq(int x) { return x * x; }\n");
compile("$dir/$_.c", "$dir/$_.o", '-O2', '-pg', '-mfentry') for qw(a b);
my @objs = ("$dir/a.o", "$dir/b.o");

# link through the pass; the program's output, --verify's status
sub linked {
    my ($name, @cmd) = @_;
    my ($st, $out, $err) = run_cmd([$MR, '-q', '--link', '--', @cmd]);
    is($st, 0, "$name: linked") or diag $err;
    return ($out, $err);
}
sub works {
    my ($name, $prog) = @_;
    my ($st, $out) = run_cmd([$prog]);
    is("$st $out", "0 36\n", "$name: the program runs");
    ($st, $out) = run_cmd([$MR, '--verify', $prog]);
    is($st, 0, "$name: --verify passes") or diag $out;
    return;
}
sub symbols {
    my ($prog, $bind) = @_;
    my (undef, $out) = run_cmd(['readelf', '-W', '-s', $prog]);
    my %s;
    for (split /\n/, $out) {
        my @f = split ' ';
        next unless @f >= 8 && $f[4] eq $bind && $f[3] ne 'FILE';
        $s{ $f[7] } = 1;
    }
    return [sort keys %s];
}

# ---- stripping --------------------------------------------------------------
for my $ld ([], ['-fuse-ld=gold'], ['-fuse-ld=lld']) {
    for my $s (['-s'], ['-Wl,--strip-all'], ['-Xlinker', '-s']) {
        my $name = "@$ld @$s" =~ s/^ //r;
        my $p = "$dir/strip" . ($name =~ s/[^A-Za-z0-9]+/_/gr);
        linked($name, 'gcc', @$ld, @$s, '-o', $p, @objs);
        works($name, $p);
        my $sec = must('readelf', '-W', '-S', $p);
        unlike($sec, qr/ \.symtab /, "$name: no symbol table, as the command asks");
        unlike($sec, qr/\.rela?\.text\b/, "$name: no relocation of the -q link left");
        must('gcc', @$ld, @$s, '-o', "$p-plain", @objs);
        is_deeply([link_diff(['readelf'], $p, "$p-plain")], [], "$name: the plain link's but for the table");
    }
}
{
    # -x: no local symbol but those the plain link keeps, and
    # __ehdr_start, which the table's words are written against
    must('gcc', '-Wl,-x', '-o', "$dir/x-plain", @objs);
    linked('-Wl,-x', 'gcc', '-Wl,-x,-z,now', '-o', "$dir/x", @objs);
    works('-Wl,-x', "$dir/x");
    my %plain = map { $_ => 1 } @{ symbols("$dir/x-plain", 'LOCAL') };
    is_deeply([grep { !$plain{$_} } @{ symbols("$dir/x", 'LOCAL') }], ['__ehdr_start'],
        '-Wl,-x: no local symbol the plain link drops (.LC0, sections) but the table\'s __ehdr_start');
    like(must('readelf', '-d', "$dir/x"), qr/\(FLAGS\)\s+BIND_NOW/, '-Wl,-x,-z,now: the rest of the -Wl kept');
}

# ---- lld's .eh_frame under -q -------------------------------------------------
# lld orders .eh_frame and .eh_frame_hdr otherwise under -q, which moves
# the code after them in some links: the entries move with the code, the
# command is linked once more, and the table is checked against the
# output's disassembly.  Small shared libraries of N functions, some of
# which take that way (a fourth link), by the links with -q
# (MCOUNT_LINK_METHOD=multi: lld links once otherwise, without -q, and
# the same libraries are linked so too).
{
    my $moved = 0;
    for my $n (1 .. 8) {
        my $c = join('', map { "int f$_(int x) { if (x > $_) return f$_(x - 1) * 3; return x; }\n" } 1 .. $n)
            . 'int all(int c) { return ' . join(' + ', map { "f$_(c)" } 1 .. $n) . "; }\n";
        spit("$dir/eh$n.c", $c);
        compile("$dir/eh$n.c", "$dir/eh$n.o", '-O2', '-pg', '-mfentry', '-fPIC');
        my $name = "lld -shared, $n functions";
        my ($st, $out, $err) = run_cmd([$MR, '--link', '--', 'gcc', '-fuse-ld=lld', '-shared', '-o', "$dir/eh$n-once.so",
            "$dir/eh$n.o"]);
        is($st, 0, "$name: linked once") or diag $err;
        like($out, qr/: \d+ call sites, 1 link$/m, "$name: one link");
        ($st, $out) = run_cmd([$MR, '--verify', "$dir/eh$n-once.so"]);
        is($st, 0, "$name, one link: --verify passes") or diag $out;
        ($st, $out, $err) = run_cmd([$MR, '--link', '--', 'gcc', '-fuse-ld=lld', '-shared', '-o', "$dir/eh$n.so",
            "$dir/eh$n.o"], env => { MCOUNT_LINK_METHOD => 'multi' });
        is($st, 0, "$name: linked") or diag $err;
        $moved++ if $out =~ /: \d+ call sites, 4 links$/m;
        ($st, $out) = run_cmd([$MR, '--verify', "$dir/eh$n.so"]);
        is($st, 0, "$name: --verify passes") or diag $out;
        must('gcc', '-fuse-ld=lld', '-shared', '-o', "$dir/eh$n-plain.so", "$dir/eh$n.o");
        is_deeply([link_diff(['readelf'], "$dir/eh$n.so", "$dir/eh$n-plain.so")], [],
            "$name: the plain link's but for the table");
        is_deeply([link_diff(['readelf'], "$dir/eh$n-once.so", "$dir/eh$n-plain.so")], [],
            "$name, one link: the plain link's but for the table");
    }
    cmp_ok($moved, '>', 0, "lld: $moved of 8 libraries had their code moved without -q, and the entries with it");
}

# ---- what else the linker writes -----------------------------------------
for my $ld ([], ['-fuse-ld=gold'], ['-fuse-ld=lld']) {
    my $name = "@$ld" || 'ld.bfd';
    my $p = "$dir/side " . ($name =~ s/\W/_/gr);
    must('gcc', @$ld, '-o', "$p-plain", @objs, "-Wl,--dependency-file=$p-plain.d");
    linked("$name, map and dependency file", 'gcc', @$ld, '-o', $p, @objs, "-Wl,--dependency-file=$p.d",
        "-Wl,-Map,$p.map");
    works("$name, map and dependency file", $p);
    my ($dep, $plain) = (slurp("$p.d"), slurp("$p-plain.d"));
    $plain =~ s/\Q$p-plain\E/$p/g;
    is($dep, $plain, "$name: the dependency file is the plain link's: the output, no temporary input");
    unlike(slurp("$p.map"), qr/\.tmp_mc_[^ ]*\.(?:fq|img|out)\b/, "$name: the map names no temporary output");
}
{
    my $p = "$dir/side";
    mkdir "$dir/maps" or die;
    linked('-Map=DIR/', 'gcc', '-o', $p, @objs, "-Wl,-Map=$dir/maps/");
    linked('-Map=%.map', 'gcc', '-o', "$p-pc", @objs, '-Wl,-Map=%.x.map');
    opendir(my $dh, "$dir/maps") or die;
    is_deeply([sort grep { !/^\./ } readdir $dh], ['side.map'], '-Map=DIR/: DIR/OUTPUT.map, as ld names it');
    ok(-s "$p-pc.x.map", '-Map=%.x.map: OUTPUT.x.map');
    like(slurp("$dir/maps/side.map"), qr/^OUTPUT\(\Q$p\E /m, 'the map names the output');
    my ($out) = linked('-Wl,-M', 'gcc', '-o', "$p-M", @objs, '-Wl,-M');
    is(scalar(() = $out =~ /^Linker script and memory map/mg), 1, '-Wl,-M: one map printed, the output\'s');
}
{
    my $t = "$dir/target";
    spit($t, '');
    symlink('target', "$dir/link") or die;
    linked('a symbolic link as the output', 'gcc', '-o', "$dir/link", @objs);
    ok(-l "$dir/link", 'a symbolic link as the output: still a link');
    ok(-x $t, 'a symbolic link as the output: its target executable');
    works('a symbolic link as the output', $t);
    symlink('loop2', "$dir/loop1") && symlink('loop1', "$dir/loop2") or die;
    # (timeout: it looped for ever once)
    my ($st, undef, $err) = run_cmd(['timeout', '60', $MR, '--link', '--', 'gcc', '-o', "$dir/loop1", @objs]);
    is($st >> 8, 1, 'a loop of symbolic links as the output: a failure');
    like($err, qr/\Q$dir\E\/loop1: Too many levels of symbolic links/, "... said, in the linker's words");
}
{
    spit("$dir/u.c", "int undefined_fn(void);\nint main(void) { return undefined_fn(); }\n");
    compile("$dir/u.c", "$dir/u.o", '-pg');
    spit("$dir/old", "an old program\n");
    my ($st, undef, $err) = run_cmd([$MCC, 'gcc', '-o', "$dir/old", "$dir/u.o"], env => { MCOUNT_CC_MODE => 'link' });
    is($st >> 8, 1, 'a link that fails: its status');
    like($err, qr/undefined reference to `undefined_fn'/, 'a link that fails: its words');
    ok(!-e "$dir/old", 'a link that fails: the old output is gone, as ld removes it');
}

# ---- how the command names things ------------------------------------------
{
    my ($st, undef, $err) = run_cmd([$MCC, 'gcc', "--output=$dir/long-o", @objs], env => { MCOUNT_CC_MODE => 'link' });
    is("$st $err", '0 ', '--output=FILE: linked');
    works('--output=FILE', "$dir/long-o");
    ok(!-e 'a.out', '--output=FILE: no a.out');
    spit("$dir/l.rsp", "-o $dir/from-rsp @objs\n");
    my $out;
    ($st, $out, $err) = run_cmd([$MR, '--link', '--', 'gcc', "\@$dir/l.rsp"]);
    is($st, 0, '@file: linked') or diag $err;
    like($out, qr/^mcount-record: \Q$dir\E\/from-rsp: 3 call sites, \d links?$/m, '@file: its -o read');
    works('@file', "$dir/from-rsp");
    # more than exec takes (2.4 MB of words): the links get a response
    # file again
    my $far = "$dir/" . ('d' x 200);
    mkdir $far or die;
    compile("$dir/b.c", "$far/b.o", '-O2');
    my $path = join('/', $far, ('..', $far =~ s{.*/}{}r) x 9, 'b.o');
    spit("$dir/big.rsp", join(' ', '-o', "$dir/big", "$dir/a.o", "$dir/b.o", ($path) x 1200) . "\n");
    cmp_ok(-s "$dir/big.rsp", '>', 2_200_000, 'a long link: its response file is over 2.2 MB');
    linked('a long link', 'gcc', '-Wl,--allow-multiple-definition', "\@$dir/big.rsp");
    works('a long link', "$dir/big");
    # the same with the sources: split into compiles and a plain link
    spit("$dir/bigs.rsp", join(' ', '-O2', '-o', "$dir/bigs", "$dir/a.c", "$dir/b.c", ($path) x 1200) . "\n");
    ($st, undef, $err) = run_cmd([$MCC, 'gcc', '-Wl,--allow-multiple-definition', "\@$dir/bigs.rsp"],
        env => { MCOUNT_CC_MODE => 'object', MCOUNT_CC_FLAGS => '-pg -mfentry' });
    is("$st $err", '0 ', 'a long one-step command, per object: compiled and linked');
    works('a long one-step command', "$dir/bigs");
}

# ---- a linker that fails only with -q ------------------------------------------
{
    my $fake = "$dir/fake-ld";
    mkdir $fake or die;
    spit("$fake/ld", "#!/bin/sh\nfor a in \"\$@\"; do [ \"\$a\" = -q ] && { echo 'ld: internal error with -q' >&2; exit 1; }; done\n"
        . "exec /usr/bin/ld \"\$@\"\n");
    chmod 0755, "$fake/ld";
    must('gcc', "-B$fake/", '-o', "$dir/q-plain", @objs);
    # (the links with -q: the one-link method needs none)
    my ($st, undef, $err) = run_cmd([$MCC, 'gcc', "-B$fake/", '-o', "$dir/q", @objs],
        env => { MCOUNT_CC_MODE => 'link', MCOUNT_LINK_METHOD => 'multi' });
    is($st >> 8, 100, 'a linker that fails with -q only: the pass\'s failure, 100');
    like($err, qr/\Amcount-cc: \Q$dir\E\/q: the link fails with -q \(its relocations kept\), which the link-time pass needs, and not without it: .*\n  ld: internal error with -q\n/,
        'a linker that fails with -q only: said, with its words');
    ok(!-e "$dir/q", 'a linker that fails with -q only: no output');
}
{
    # a freestanding program linked -N: no segment maps the ELF header
    spit("$dir/fs.c", "void __fentry__(void) {}\nint f(int);\n"
        . "void _start(void) { __asm__ volatile(\"mov \$60, %%eax; syscall\" :: \"D\"(f(1) - 2) : \"rax\"); for (;;) ; }\n");
    spit("$dir/fsf.c", "int f(int x) { return x + 1; }\n");
    compile("$dir/fsf.c", "$dir/fsf.o", '-O2', '-pg', '-mfentry');
    compile("$dir/fs.c", "$dir/fs.o", '-O2', '-fno-pie');
    my @l = ('gcc', '-nostdlib', '-static', '-Wl,-N', '-Wl,--no-warn-rwx-segments', '-o');
    must(@l, "$dir/fs-plain", "$dir/fsf.o", "$dir/fs.o");
    my ($st) = run_cmd(["$dir/fs-plain"]);
    is($st, 0, 'linked -N, plainly: the program runs');
    my $err;
    ($st, undef, $err) = run_cmd([$MCC, @l, "$dir/fs", "$dir/fsf.o", "$dir/fs.o"], env => { MCOUNT_CC_MODE => 'link' });
    is($st >> 8, 100, 'linked -N through the pass: the pass\'s failure, 100');
    like($err, qr/: the link fails with the table's object \(__mcount_loc, entries against __ehdr_start\), and not without it: .*undefined reference to `__ehdr_start'/s,
        'linked -N through the pass: said, with the linker\'s words');
}

# ---- a missing tool: one link needs none of the binutils but the
# linker; the links with -q say it before any link -------------------------
{
    my $bin = "$dir/no-objdump";
    mkdir $bin or die;
    for my $t (qw(gcc perl readelf objcopy as ld)) {
        my $p = (grep { -x "$_/$t" } split /:/, $ENV{PATH})[0] or next;
        symlink("$p/$t", "$bin/$t") or die;
    }
    my ($st, undef, $err) = run_cmd([$^X, $MCC, 'gcc', '-o', "$dir/noobj", @objs],
        env => { MCOUNT_CC_MODE => 'link', PATH => $bin, MCOUNT_CC_VERBOSE => 1 });
    is($st, 0, 'no objdump: one link needs none') or diag $err;
    like($err, qr/; one link, the table filled in place/, 'no objdump: by the one-link method');
    ($st) = run_cmd([$MR, '--verify', "$dir/noobj"]);
    is($st, 0, 'no objdump: the table is exact');
    ($st, undef, $err) = run_cmd([$^X, $MCC, 'gcc', '-o', "$dir/noobj", @objs],
        env => { MCOUNT_CC_MODE => 'link', PATH => $bin, MCOUNT_LINK_METHOD => 'multi' });
    is($st >> 8, 100, 'no objdump, the links with -q: the pass\'s failure, 100');
    is($err, "mcount-cc: $dir/noobj: objdump: not found (needed as objdump; is it installed and on PATH?)\n",
        'no objdump, the links with -q: said as the record step says it');
}

# ---- a tail jump to the hook ---------------------------------------------------
{
    spit("$dir/tail.S", <<'S');
	.text
	.globl tailer
	.type tailer, @function
tailer:
	call __fentry__
	jmp __fentry__
	.size tailer, .-tailer
	.section .note.GNU-stack, "", @progbits
S
    compile("$dir/tail.S", "$dir/tail.o");
    my ($st, undef, $err) = run_cmd([$MR, '-q', '--link', '--', 'gcc', '-o', "$dir/tail", @objs, "$dir/tail.o"]);
    is($st, 0, 'a tail jump to the hook: linked');
    like($err, qr/R_X86_64_PLT32 relocation against the profiling hook at 0x[0-9a-f]+ is not on a call: passed over/,
        'a tail jump to the hook: the pass passes it over, said');
    my $out;
    ($st, $out) = run_cmd([$MR, '--verify', "$dir/tail"]);
    is("$st $out", "0 $dir/tail: OK, 4 entries for 4 calls to the hook\n", 'a tail jump to the hook: --verify agrees');
}

is_deeply([leftovers($dir)], [], 'no temporary files');
done_testing();
