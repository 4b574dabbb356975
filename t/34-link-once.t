#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# Link-time mode in one link (GNU ld, gold and lld, x86_64 and i386): the
# table is reserved at the link and filled in the output.  Checked against
# oracles outside the pass, on PIE, non-PIE, -shared and -m32 links of
# objects and an archive (one member pulled in, one not; PIE with RELR
# relocations too; lld's build IDs, its sha1 and its fast xxHash64 of a
# bare --build-id; GCC's LTO, clang's full and thin through the three),
# with a weak function that another object overrides:
#   - the linker: the output is byte for byte what ld (gold) writes when
#     it links a table object holding the same entries (build ID
#     included: the linker computes it over the table, the pass must have
#     done the same);
#   - objdump -d: the entries are the calls to the hook it shows, but for
#     the one in the overridden weak copy, which ld's map places;
#   - the build ID changes with the table and a second pass gives the
#     same output;
#   - the program runs.
use strict;
use warnings;
use Test::More;
use List::Util qw(uniq);
use lib 't/lib';
use TestUtil qw($TOP must run_cmd run_prog spit slurp tmpdir leftovers);

my $dir = $ENV{KEEP} // tmpdir();
my $MR = "$TOP/bin/mcount-record";

spit("$dir/main.c", <<'EOF');
int f(int), g(int), lib_used(int), lib_long_named(int);
static int __attribute__((noinline)) twice(int x) { return f(x) + f(x + 1); }
int main(int argc, char **argv) { (void)argv; return (twice(argc) + g(argc) + lib_used(argc) + lib_long_named(argc)) == 12345; }
EOF
# f is weak here and strong in strong.c: this copy stays in .text, never called
spit("$dir/weak.c", "__attribute__((weak)) int f(int x) { return x + 100; }\n");
spit("$dir/strong.c", "int f(int x) { return x + 1; }\nint g(int x) { return f(x) * 2; }\n");
# (a member whose name objdump prints where it could be an address: hex)
spit("$dir/add.c", "int lib_used(int x) { return x - 1; }\n");
spit("$dir/unused.c", "int lib_unused(int x) { return x * 3; }\n");
# (a member named in the archive's table of long names, pulled in)
spit("$dir/a_member_with_a_long_name.c", "int lib_long_named(int x) { return x - 2; }\n");
spit("$dir/lib.c", "int lib_a(int x) { return x + 7; }\nint lib_b(int x) { return lib_a(x) * 5; }\n");
# 3 MiB of data before the table: lld hashes its build ID a MiB at a time
spit("$dir/big.s", ".section .rodata\n.globl big\nbig: .fill 3145728, 1, 0x5a\n"
    . ".section .note.GNU-stack,\"\",\@progbits\n");

# The table's words (readelf -x), each a RELA relocation's addend where
# readelf -r has one for its slot (lld leaves the place 0 then; GNU ld
# writes both).
sub table_words {
    my ($file, $word) = @_;
    my $hex = join '', map { /^\s*0x[0-9a-f]+ ((?:[0-9a-f]{1,8} ){1,4})/ ? $1 =~ s/ //gr : () }
        split /\n/, must('readelf', '-x', '__mcount_loc', $file);
    my $b = pack 'H*', $hex;
    my @w = unpack($word == 8 ? 'Q<*' : 'V*', $b);
    my ($at) = must('readelf', '-SW', $file) =~ /\]\s+__mcount_loc\s+\S+\s+([0-9a-f]+)/;
    for (split /\n/, must('readelf', '-rW', $file)) {
        next unless /^([0-9a-f]+)\s+[0-9a-f]+\s+R_X86_64_RELATIVE\s+([0-9a-f]+)\s*$/;
        my $slot = (hex($1) - hex $at) / $word;
        $w[$slot] = hex $2 if $slot >= 0 && $slot < @w;
    }
    return \@w;
}

# The addresses of objdump -d's calls to the hook: those it names, and
# i386's calls through the GOT (call *DISP(%ebx), %ebx the GOT's address,
# _GLOBAL_OFFSET_TABLE_) to the slot readelf -r says is mcount's.
sub hook_calls {
    my ($file) = @_;
    my ($slot) = must('readelf', '-rW', $file) =~ /^([0-9a-f]+)\s+[0-9a-f]+\s+R_386_GLOB_DAT\s+[0-9a-f]+\s+mcount\b/m;
    my ($got) = must('nm', $file) =~ /^([0-9a-f]+) \w _GLOBAL_OFFSET_TABLE_$/m;
    my @a;
    for (split /\n/, must('objdump', '-d', $file)) {
        push @a, hex $1 if /^\s*([0-9a-f]+):.*\bcall\b.*<(?:mcount|__fentry__)(?:\@[^>]*)?>\s*$/;
        push @a, hex $1 if defined $slot && defined $got
            && /^\s*([0-9a-f]+):\s+ff 93 .*\bcall\s+\*(-?)0x([0-9a-f]+)\(%ebx\)\s*$/
            && hex($got) + ($2 ? -hex $3 : hex $3) == hex $slot;
    }
    return @a;
}

# The address range of FILE's .text in ld's map of a link (weak.o's copy;
# lld's map: VMA LMA Size Align, then FILE:(SECTION)).
sub map_range {
    my ($map, $obj) = @_;
    my $t = slurp($map);
    return $t =~ /^ \.text\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+\S*\Q$obj\E\n/m ? (hex($1), hex($1) + hex($2))
        : $t =~ /^\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+\S*\Q$obj\E:\(\.text\)\n/m ? (hex($1), hex($1) + hex($2))
        : ();
}

sub build_id {
    my ($file) = @_;
    return must('readelf', '-n', $file) =~ /Build ID: ([0-9a-f]+)/ ? $1 : '';
}

# An LTO link (LINK, writing OUT) through the pass: linked once as
# METHOD says, its table objdump -d's calls to the hook.  The output is
# left at OUT.pass; returns it, the table's words and its entries.
sub lto_linked {
    my ($name, $out, $link, $method) = @_;
    my ($st, $so, $err) = run_cmd([$MR, '--link', '-v', '--', @$link]);
    is($st, 0, "$name: linked through the pass") or diag $err;
    like($err, $method, "$name: by the one-link method, LTO's code generated once");
    like($so, qr/: \d+ call sites, 1 link$/m, "$name: one link");
    my $pass = "$out.pass";
    rename $out, $pass or die "$out: $!";
    my $w = table_words($pass, 8);
    my @ent = grep { $_ } @$w;
    is_deeply(\@ent, [sort { $a <=> $b } hook_calls($pass)], "$name: the table is objdump -d's calls to the hook, sorted");
    ok(@ent >= 2, "$name: calls to the hook after LTO (" . scalar(@ent) . ')');
    return ($pass, $w, @ent);
}

# The oracles of an LTO link through the pass (PASS, its table's words
# W and entries ENT): the linker's own LTO link (LINK, writing OUT) of the
# same objects and a table object of those entries (TAB, assembled with
# CF), byte for byte and build ID; the plain LTO link's count of calls;
# --verify.  PASS is moved back to OUT.
sub lto_oracles {
    my ($name, $tab, $cf, $link, $out, $pass, $w, @ent) = @_;
    my ($base) = must('readelf', '-lW', $pass) =~ /^\s+LOAD\s+0x0+\s+0x([0-9a-f]+)/m;
    must(@$link, table_object($tab, $cf, $base, 8, @ent, (0) x (@$w - @ent)));
    ok(slurp($pass) eq slurp($out), "$name: byte for byte the linker's own LTO link of a table object with those entries");
    is(build_id($pass), build_id($out), "$name: the build ID is the linker's own for that content");
    must(@$link);
    is(scalar(hook_calls($out)), scalar @ent, "$name: as many calls to the hook as the plain LTO link's");
    rename $pass, $out or die "$pass: $!";
    my ($st, undef, $err) = run_cmd([$MR, '--verify', $out]);
    is($st, 0, "$name: mcount-record --verify passes") or diag $err;
    return;
}

# A table object at FILE.o (FILE.s its assembly, assembled by gcc with
# CFLAGS) of the words V, each against __ehdr_start as the placeholder's
# are, the ELF header at BASE (a hex string: the first LOAD's address).
sub table_object {
    my ($file, $cf, $base, $word, @v) = @_;
    my $dir_ = $word == 8 ? '.quad' : '.long';
    spit("$file.s", join("\n", '.section __mcount_loc,"awR",@progbits', ".balign $word",
        (map { $_ >= hex $base ? sprintf("%s __ehdr_start + 0x%x", $dir_, $_ - hex $base)
                 : sprintf("%s __ehdr_start - 0x%x", $dir_, hex($base) - $_) } @v),
        '.section .note.GNU-stack,"",@progbits') . "\n");
    must('gcc', @$cf, '-c', "$file.s", '-o', "$file.o");
    return "$file.o";
}

my @variants = (['pie', []], ['no-pie', ['-fno-pie'], ['-no-pie']], ['shared', ['-fPIC'], ['-shared']],
    ['mfentry', ['-mfentry'], []], ['relr', [], ['-Wl,-z,pack-relative-relocs']], ['gold-pie', [], ['-fuse-ld=gold']],
    ['gold-no-pie', ['-fno-pie'], ['-no-pie', '-fuse-ld=gold']], ['gold-shared', ['-fPIC'], ['-shared', '-fuse-ld=gold']],
    # lld: a bare --build-id (the driver's) is its fast ID; lld 14 packs
    # RELR with --pack-dyn-relocs=relr (-z pack-relative-relocs: lld 15)
    ['lld-pie', [], ['-fuse-ld=lld']], ['lld-no-pie', ['-fno-pie'], ['-no-pie', '-fuse-ld=lld']],
    ['lld-shared', ['-fPIC'], ['-shared', '-fuse-ld=lld']], ['lld-sha1', [], ['-fuse-ld=lld', '-Wl,--build-id=sha1']],
    ['lld-relr', [], ['-fuse-ld=lld', '-Wl,--pack-dyn-relocs=relr']],
    ['lld-apply', [], ['-fuse-ld=lld', '-Wl,--apply-dynamic-relocs']]);
push @variants, ['m32', ['-m32', '-fno-pie'], ['-m32', '-no-pie']], ['m32-pie', ['-m32', '-fPIE'], ['-m32', '-pie']],
    ['lld-m32', ['-m32', '-fno-pie'], ['-m32', '-no-pie', '-fuse-ld=lld']],
    ['lld-m32-pie', ['-m32', '-fPIE'], ['-m32', '-pie', '-fuse-ld=lld', '-Wl,--build-id=sha1']],
    ['lld-m32-relr', ['-m32', '-fPIE'], ['-m32', '-pie', '-fuse-ld=lld', '-Wl,--pack-dyn-relocs=relr']]
    if (run_cmd(['gcc', '-m32', '-o', "$dir/probe32", "$dir/add.c", '-nostartfiles', '-e', 'lib_used']))[0] == 0;

for my $v (@variants) {
    my ($name, $cf, $lf) = @$v;
    $lf //= [];
    my $d = "$dir/$name";
    mkdir $d or die;
    my $m32 = grep { $_ eq '-m32' } @$cf;
    my $word = $m32 ? 4 : 8;
    my $shared = grep { $_ eq '-shared' } @$lf;
    my $pic = !grep { $_ eq '-no-pie' } @$lf;
    must('gcc', '-O2', '-pg', @$cf, '-c', "$dir/$_.c", '-o', "$d/$_.o") for qw(main weak strong add unused lib a_member_with_a_long_name);
    must('ar', 'rcs', "$d/libu.a", "$d/add.o", "$d/unused.o", "$d/a_member_with_a_long_name.o");
    my @objs = $shared ? ("$d/lib.o", "$d/weak.o", "$d/strong.o") : ("$d/main.o", "$d/weak.o", "$d/strong.o");
    if (grep { $_ eq '-fuse-ld=lld' } @$lf) {
        must('gcc', @$cf, '-c', "$dir/big.s", '-o', "$d/big.o");
        push @objs, "$d/big.o";
    }
    my @libs = $shared ? () : ("-L$d", '-lu');
    my $out = $shared ? "$d/libt.so" : "$d/prog";

    my ($st, $so, $err) = run_cmd([$MR, '--link', '-v', '--', 'gcc', @$lf, '-o', $out, @objs, @libs]);
    is($st, 0, "$name: linked through the pass") or diag $err;
    like($err, qr/: one link, the table filled in place \((\d+) of (\d+) slots, 1 of overridden weak/,
        "$name: by the one-link method, the weak copy left out");
    like($so, qr/: \d+ call sites, 1 link$/m, "$name: one link");
    # the bound: objdump -r's relocations against the hook in the inputs
    my ($slots) = $err =~ /of (\d+) slots/;
    my $nrel = () = must('objdump', '-r', @objs, $shared ? () : "$d/libu.a")
        =~ /^[0-9a-f]+\s+\S+\s+(?:mcount|__fentry__)(?:[-+]0x[0-9a-f]+)?\s*$/mg;
    is($slots, $nrel, "$name: the slots reserved are objdump -r's relocations against the hook in the inputs");

    # (every other link below writes the same path: gold writes it into a
    # shared library's .dynstr; the pass's output waits beside it)
    my $pass = "$out.pass";
    rename $out, $pass or die "$out: $!";
    if (grep { /pack-relative-relocs|pack-dyn-relocs=relr/ } @$lf) {
        like(must('readelf', '-SW', $pass), qr/ \.relr\.dyn /, "$name: its relative relocations are RELR");
        unlike(must('readelf', '-rW', $pass), qr/_RELATIVE/, "$name: none of them RELA or REL");
    }
    my $w = table_words($pass, $word);
    my @ent = grep { $_ } @$w;
    my ($base) = must('readelf', '-lW', $pass) =~ /^\s+LOAD\s+0x0+\s+0x([0-9a-f]+)/m;
    my $table = sub { my ($file, @v) = @_; return table_object($file, $cf, $base, $word, @v) };

    # objdump -d's calls, but the one in weak.o's copy: the linker's map
    # of the same link with a table of as many words says where it is
    must('gcc', @$lf, '-o', $out, @objs, $table->("$d/tab0", (0) x @$w), @libs, "-Wl,-Map=$d/twin.map");
    my ($lo, $hi) = map_range("$d/twin.map", 'weak.o');
    ok(defined $lo, "$name: the linker's map places weak.o's .text");
    my @calls = hook_calls($pass);
    my @weak = grep { $_ >= $lo && $_ < $hi } @calls;
    is(scalar @weak, 1, "$name: objdump shows one call in the weak copy");
    my @want = sort { $a <=> $b } grep { $_ < $lo || $_ >= $hi } @calls;
    is_deeply(\@ent, \@want, "$name: the table is objdump -d's calls to the hook, sorted, the weak copy's not")
        or diag sprintf("table %s\ncalls %s", join(' ', map { sprintf '%x', $_ } @ent),
            join(' ', map { sprintf '%x', $_ } @want));
    is_deeply([@$w[@ent .. $#$w]], [(0) x (@$w - @ent)], "$name: the unused slots, at the end, are 0");
    cmp_ok(scalar @$w, '>', scalar @ent, "$name: libu.a's unused member and the weak copy gave slots to spare");

    # the linker as oracle: the same objects and a table object of those
    # entries and holes of 0, each against __ehdr_start as the
    # placeholder's (the ELF header's address: the first LOAD's), linked
    # plainly
    must('gcc', @$lf, '-o', $out, @objs, $table->("$d/tab", @ent, (0) x (@$w - @ent)), @libs);
    ok(slurp($pass) eq slurp($out), "$name: byte for byte the linker's own link of a table object with those entries");
    my $id = build_id($pass);
    my $fast = grep({ $_ eq '-fuse-ld=lld' } @$lf) && !grep { /build-id=sha1/ } @$lf;
    like($id, $fast ? qr/^[0-9a-f]{16}\z/ : qr/^[0-9a-f]{40}\z/, "$name: has a " . ($fast ? 'fast' : 'sha1') . " build ID");
    is($id, build_id($out), "$name: the build ID is the linker's own for that content");
    must('gcc', @$lf, '-o', $out, @objs, @libs);
    isnt($id, build_id($out), "$name: the build ID is not the plain link's (the table is in it)");
    # a table of other entries (the first left out) gets another build ID
    must('gcc', @$lf, '-o', $out, @objs, $table->("$d/tab2", @ent[1 .. $#ent], (0) x (@$w - @ent + 1)), @libs);
    isnt(build_id($out), $id, "$name: (the linker: another table, another build ID)");

    # a second pass: the same output (reproducible)
    ($st, undef, $err) = run_cmd([$MR, '--link', '-q', '--', 'gcc', @$lf, '-o', $out, @objs, @libs]);
    is($st, 0, "$name: linked again") or diag $err;
    ok(slurp($pass) eq slurp($out), "$name: the second pass writes the same bytes, the same build ID");
    rename $pass, $out or die "$pass: $!";

    ($st, undef, $err) = run_cmd([$MR, '--verify', $out]);
    is($st, 0, "$name: mcount-record --verify passes") or diag $err;
    ($st, undef, $err) = run_cmd([$MR, '--verify', '--strict', $out]);
    is($st, 0, "$name: and --verify --strict: sorted, holes after, none in no function") or diag $err;
    # --strict can fail: the linker's links of tables that break each
    # rule, which --verify alone accepts (the weak copy's entry, entries
    # out of order, a hole among them)
    for my $bad (['the weak copy kept', qr/: entry in no function \(the copy of a weak function/,
                  sort { $a <=> $b } @ent, @weak],
                 ['out of order', qr/: entries not sorted by address: /, reverse @ent],
                 ['a hole among them', qr/: an unused slot before the entry at /, $ent[0], 0, @ent[1 .. $#ent]]) {
        my ($what, $said, @v) = @$bad;
        # (linked as the output, whose path gold writes into a library)
        my $f = "$d/strict-" . ($what =~ s/\W+/-/gr);
        rename $out, $pass or die "$out: $!";
        must('gcc', @$lf, '-o', $out, @objs, $table->("$f-tab", @v, (0) x (@$w - @v)), @libs);
        rename $out, $f or die "$out: $!";
        rename $pass, $out or die "$pass: $!";
        ($st, undef, $err) = run_cmd([$MR, '--verify', $f]);
        is($st, 0, "$name: $what: --verify passes");
        ($st, undef, $err) = run_cmd([$MR, '--verify', '--strict', $f]);
        is($st >> 8, 1, "$name: $what: --verify --strict fails");
        like($err, $said, "$name: $what: and says why");
    }
    # (glibc 2.36 runs no RELR without a GLIBC_ABI_DT_RELR dependency,
    # which lld adds from 15 on)
    my $runs = !$shared && !grep { /pack-dyn-relocs=relr/ } @$lf;
    if ($runs) {
        ($st) = run_prog([$out], arch => $m32 ? 'i386' : 'x86_64');
        is($st, 0, "$name: the program runs");
    }
    # the tracer reads the table, holes and all (relocated: the load base)
    if ($runs && !$m32) {
        ($st, undef, $err) = run_cmd(["$TOP/bin/mcount-trace", 'run', '-f', '*', '-o', "$d/trace.txt",
            '--no-control', '--', $out]);
        is($st, 0, "$name: traced") or diag $err;
        is($err, '', "$name: the tracer takes no hole for an entry");
        my @traced = sort(uniq(slurp("$d/trace.txt") =~ /: (\w+) <-/g));
        is("@traced", 'f g lib_long_named lib_used main twice', "$name: the tracer traced every function");
    }
}

# LTO (GCC, fat objects as Debian builds them): the code generation once,
# its objects kept for the table.  The oracles: the linker's own LTO link
# of the same objects and a table object of those entries (byte for byte,
# build ID included), objdump -d's calls to the hook.
# (lld runs no GCC plugin: it links the fat objects' own code, a plain
# one link)
for my $v (['lto', ['-flto'], []], ['lto-auto', ['-flto=auto'], []], ['lto-gold', ['-flto'], ['-fuse-ld=gold']],
           ['lto-shared', ['-flto=auto', '-fPIC'], ['-shared']], ['lto-lld', ['-flto'], ['-fuse-ld=lld']]) {
    my ($name, $cf, $lf) = @$v;
    my $d = "$dir/$name";
    mkdir $d or die;
    my $shared = grep { $_ eq '-shared' } @$lf;
    my @c = ('-O2', '-pg', '-ffat-lto-objects', @$cf);
    must('gcc', @c, '-c', "$dir/$_.c", '-o', "$d/$_.o") for qw(main strong add unused lib a_member_with_a_long_name);
    must('gcc-ar', 'rcs', "$d/libu.a", "$d/add.o", "$d/unused.o", "$d/a_member_with_a_long_name.o");
    my @objs = $shared ? ("$d/lib.o", "$d/strong.o") : ("$d/main.o", "$d/strong.o");
    my @libs = $shared ? () : ("-L$d", '-lu');
    my $out = $shared ? "$d/libt.so" : "$d/prog";
    my @link = ('gcc', '-O2', '-pg', @$cf, @$lf, '-o', $out, @objs, @libs);
    my ($pass, $w, @ent) = lto_linked($name, $out, \@link, grep({ $_ eq '-fuse-ld=lld' } @$lf)
        ? qr/: one link, the table filled in place \((\d+) of (\d+) slots/
        : qr/: one link \(LTO: its code generation once, its objects read\), the table filled in place \((\d+) of (\d+) slots/);
    is_deeply([@$w[@ent .. $#$w]], [(0) x (@$w - @ent)], "$name: the unused slots, at the end, are 0");
    lto_oracles($name, "$d/tab", $cf, \@link, $out, $pass, $w, @ent);
    unless ($shared) {
        my ($st) = run_prog([$out], arch => 'x86_64');
        is($st, 0, "$name: the program runs");
    }
    ok(!glob("$d/*.lto_wrapper_args") && !glob("$d/.tmp_mc_*"), "$name: LTO's kept files removed");
}

# clang's LTO (LLVM bitcode: full, thin, both) through lld, GNU ld and gold
# (LLVMgold.so): the code generation once, its objects kept (the
# plugin's obj-path, lld's ThinLTO cache) for the table.  The same
# oracles as GCC's: the linker's own LTO link of the same objects and a
# table object of those entries, byte for byte, build ID included;
# objdump -d's calls to the hook; the plain LTO link's count of them.
my $have_clang = (run_cmd(['clang', '--version']))[0] == 0;
for my $v (['clang-lto-lld', ['-flto'], ['-fuse-ld=lld']], ['clang-thin-lld', ['-flto=thin'], ['-fuse-ld=lld']],
           ['clang-mixed-lld', ['-flto'], ['-fuse-ld=lld'], ['-flto=thin']],
           ['clang-thin-lld-shared', ['-flto=thin', '-fPIC'], ['-shared', '-fuse-ld=lld']],
           ['clang-lto-bfd', ['-flto'], []], ['clang-thin-bfd', ['-flto=thin'], []],
           ['clang-lto-gold', ['-flto'], ['-fuse-ld=gold']], ['clang-mixed-gold', ['-flto'], ['-fuse-ld=gold'], ['-flto=thin']]) {
    last unless $have_clang;
    my ($name, $cf, $lf, $lib_cf) = @$v;
    my $d = "$dir/$name";
    mkdir $d or die;
    my $shared = grep { $_ eq '-shared' } @$lf;
    # (the archive's members compiled as $lib_cf says: a link of both kinds)
    must('clang', '-O2', '-pg', @$cf, '-c', "$dir/$_.c", '-o', "$d/$_.o") for qw(main strong lib);
    must('clang', '-O2', '-pg', @{ $lib_cf // $cf }, '-c', "$dir/$_.c", '-o', "$d/$_.o") for qw(add unused a_member_with_a_long_name);
    must('ar', 'rcs', "$d/libu.a", "$d/add.o", "$d/unused.o", "$d/a_member_with_a_long_name.o");
    my @objs = $shared ? ("$d/lib.o", "$d/strong.o") : ("$d/main.o", "$d/strong.o");
    my @libs = $shared ? () : ("-L$d", '-lu');
    my $out = $shared ? "$d/libt.so" : "$d/prog";
    my @link = ('clang', '-O2', '-pg', @$cf, @$lf, '-o', $out, @objs, @libs);
    my ($pass, $w, @ent) = lto_linked($name, $out, \@link,
        qr/: one link \(LTO: its code generation once, its objects read\), the table filled in place \((\d+) of (\d+) slots/);
    # (the table assembled as the pass assembles its placeholder: by GNU as)
    lto_oracles($name, "$d/tab", [], \@link, $out, $pass, $w, @ent);
    unless ($shared) {
        my ($st) = run_prog([$out], arch => 'x86_64');
        is($st, 0, "$name: the program runs");
    }
    ok(!glob("$d/.tmp_mc_*"), "$name: LTO's kept files removed");
}

# --bound's reading of LLVM bitcode against LLVM's own tools: llvm-nm's
# functions with a body (T, t, W), llvm-bcanalyzer's ThinLTO summary
# block; objects of the corpus, raw and in an archive, C++ too
if ($have_clang && (run_cmd(['llvm-nm', '--version']))[0] == 0 && (run_cmd(['llvm-bcanalyzer', '--help']))[0] == 0) {
    my $d = "$dir/bitcode";
    mkdir $d or die;
    spit("$d/t.cc", "#include <vector>\ntemplate <class T> T sum(const std::vector<T> &v) { T s{}; for (auto x : v) s += x; return s; }\n"
        . "static int twice(int x) { return 2 * x; }\nint run(int n) { std::vector<int> v(n, 1); return twice(sum(v)); }\n");
    my @bc;
    for my $lto ('-flto', '-flto=thin') {
        my $t = $lto =~ /thin/ ? 'thin' : 'full';
        for my $src ("$TOP/t/src/corpus.c", "$TOP/t/src/dup_a.c", "$TOP/t/src/prog_main.c", "$d/t.cc") {
            my $o = "$d/" . ($src =~ s{.*/}{}r) . ".$t.o";
            must($src =~ /\.cc\z/ ? 'clang++' : 'clang', '-O2', '-pg', $lto, '-c', $src, '-o', $o);
            push @bc, $o;
        }
    }
    my $H = "$TOP/build/mcount-scan";
    for my $o (@bc) {
        my ($st, $out, $err) = run_cmd([$H, '--arch=x86_64', '--bound', $o]);
        my %k = map { /^(\S+)\t(.*)$/ ? ($1 => $2) : () } split /\n/, $out;
        my $nm = grep { /^\S*\s+[TtWw] / } split /\n/, must('llvm-nm', '--defined-only', $o);
        my $summary = must('llvm-bcanalyzer', $o) =~ /(?<![A-Z_])GLOBALVAL_SUMMARY_BLOCK\b/ ? 1 : 0;
        my $n = $o =~ s{.*/}{}r;
        is($k{'bitcode-functions'}, $nm, "bitcode: $n: its functions with a body are llvm-nm's ($nm)") or diag $err;
        is($k{thin}, $summary, "bitcode: $n: ThinLTO's summary as llvm-bcanalyzer sees it ($summary)");
    }
    must('llvm-ar', 'rcs', "$d/lib.a", @bc);
    my ($st, $out) = run_cmd([$H, '--arch=x86_64', '--bound', "$d/lib.a"]);
    my $nm = grep { /^\S*\s+[TtWw] / } split /\n/, must('llvm-nm', '--defined-only', @bc);
    like($out, qr/^bitcode-functions\t$nm$/m, "bitcode: an archive of them: llvm-nm's $nm functions");
    like($out, qr/^bitcode\t${\ scalar @bc}$/m, 'bitcode: each member read');
}

# clang's bound is its bitcode's functions: 21 (20 noinline), more than
# the bound's slack alone, each with its call after LTO
if ($have_clang) {
    my $d = "$dir/clang-many";
    mkdir $d or die;
    spit("$d/many.c", join('', map { "__attribute__((noinline)) int h$_(int x) { return x * $_ + 3; }\n" } 1 .. 20)
        . "int main(int c, char **v) { (void)v; return 0" . join('', map { " + h$_(c)" } 1 .. 20) . "; }\n");
    must('clang', '-O2', '-pg', '-flto', '-c', "$d/many.c", '-o', "$d/many.o");
    my ($st, $so, $err) = run_cmd([$MR, '--link', '-v', '--', 'clang', '-O2', '-pg', '-flto', '-fuse-ld=lld',
        '-o', "$d/prog", "$d/many.o"]);
    is($st, 0, 'clang-many: linked') or diag $err;
    like($err, qr/: one link \(LTO: [^)]*\), the table filled in place \(21 of (\d+) slots/, 'clang-many: one link, 21 entries');
    is(scalar(hook_calls("$d/prog")), 21, 'clang-many: objdump -d shows 21 calls to the hook');
}

# clang's ThinLTO through gold: keeping its objects would change the
# output (gold adds the LTO part's object it has no module for): the
# links with -q, said
if ($have_clang) {
    my $d = "$dir/clang-thin-gold";
    mkdir $d or die;
    must('clang', '-O2', '-pg', '-flto=thin', '-c', "$dir/$_.c", '-o', "$d/$_.o") for qw(main strong add a_member_with_a_long_name);
    my ($st, $so, $err) = run_cmd([$MR, '--link', '-v', '--', 'clang', '-O2', '-pg', '-flto=thin', '-fuse-ld=gold',
        '-o', "$d/prog", map { "$d/$_.o" } qw(main strong add a_member_with_a_long_name)]);
    is($st, 0, 'clang-thin-gold: linked') or diag $err;
    like($err, qr/one link could not: clang's ThinLTO through gold \(keeping its objects adds one to the link\)\)/,
        'clang-thin-gold: the links with -q, said why');
    ($st, undef, $err) = run_cmd([$MR, '--verify', "$d/prog"]);
    is($st, 0, 'clang-thin-gold: mcount-record --verify passes') or diag $err;
}

# LTO that makes more calls than the bound: the links with -q, said.  A
# fat object whose code has lost its relocations (objcopy) gives a bound
# of its slack alone; LTO's code (from the intermediate language, intact)
# calls the hook in each of its 21 functions.
{
    my $d = "$dir/lto-over";
    mkdir $d or die;
    spit("$d/many.c", join('', map { "__attribute__((noinline)) int h$_(int x) { return x * $_ + 3; }\n" } 1 .. 20)
        . "int main(int c, char **v) { (void)v; return 0" . join('', map { " + h$_(c)" } 1 .. 20) . "; }\n");
    must('gcc', '-O2', '-pg', '-flto', '-ffat-lto-objects', '-c', "$d/many.c", '-o', "$d/many.o");
    must('objcopy', '--remove-section=.rela.text', "$d/many.o", "$d/norel.o");
    my ($st, $so, $err) = run_cmd([$MR, '--link', '-v', '--', 'gcc', '-O2', '-pg', '-flto', '-o', "$d/prog", "$d/norel.o"]);
    is($st, 0, 'lto-over: linked') or diag $err;
    my @calls = hook_calls("$d/prog");
    is(scalar @calls, 21, 'lto-over: objdump -d shows 21 calls to the hook');
    like($err, qr/: two links \(LTO made more calls than its inputs' bound: linked again with room for them\), the table filled in place \(21 of 21 slots/,
        'lto-over: linked again with room for the calls LTO made, said');
    like($so, qr/: 21 call sites, 2 links$/m, 'lto-over: two links, not the three with -q (and the first)');
    is_deeply(table_words("$d/prog", 8), [sort { $a <=> $b } @calls], 'lto-over: the table is objdump -d\'s calls');
    ($st, undef, $err) = run_cmd([$MR, '--verify', '--strict', "$d/prog"]);
    is($st, 0, 'lto-over: --verify --strict passes') or diag $err;
}

# A signal while the table is filled (LTO's objects kept, the output
# written): mcount-record dies of it, and leaves none of them behind (nor
# the output, nor the plugin's OUTPUT.lto_wrapper_args)
{
    my $d = "$dir/lto-signal";
    mkdir $d or die;
    must('gcc', '-O2', '-pg', '-flto', '-ffat-lto-objects', '-c', "$dir/$_.c", '-o', "$d/$_.o") for qw(main strong add a_member_with_a_long_name);
    spit("$d/helper", "#!/bin/sh\ncase \"\$*\" in *--fill-linked*) ls $d/.tmp_mc_*.lto/ > $d/kept; kill -TERM \$PPID; sleep 2;; esac\n"
        . "exec $TOP/build/mcount-scan \"\$@\"\n");
    chmod 0755, "$d/helper" or die;
    my ($st, undef, $err) = run_cmd([$MR, '--link', '-q', '--', 'gcc', '-O2', '-pg', '-flto', '-o', "$d/prog",
        map { "$d/$_.o" } qw(main strong add a_member_with_a_long_name)], env => { RECORDMCOUNT_HELPER => "$d/helper" });
    is($st & 127, 15, 'lto-signal: mcount-record died of SIGTERM') or diag $err;
    like(slurp("$d/kept"), qr/\.ltrans0\.ltrans\.o$/m, "lto-signal: LTO's objects were kept while the table was filled");
    unlink "$d/kept", "$d/helper";
    opendir(my $dh, $d) or die;
    my @left = grep { !/^\.\.?\z/ && !/\.o\z/ } readdir $dh;
    is("@left", '', 'lto-signal: nothing left but the objects');
}

# fat LTO objects linked without -flto: GCC generates their code at the
# link all the same (and with -fno-lto it links their fat code)
{
    my $d = "$dir/lto-implicit";
    mkdir $d or die;
    must('gcc', '-O2', '-pg', '-flto', '-ffat-lto-objects', '-c', "$dir/$_.c", '-o', "$d/$_.o") for qw(main strong add a_member_with_a_long_name);
    my @o = map { "$d/$_.o" } qw(main strong add a_member_with_a_long_name);
    for my $no ([], ['-fno-lto']) {
        my $what = @$no ? 'lto-implicit -fno-lto' : 'lto-implicit';
        my ($st, $so, $err) = run_cmd([$MR, '--link', '-v', '--', 'gcc', '-O2', '-pg', @$no, '-o', "$d/prog", @o]);
        is($st, 0, "$what: linked") or diag $err;
        like($err, @$no ? qr/: one link, the table filled in place/ : qr/: one link \(LTO: its code generation once/,
            "$what: one link" . (@$no ? '' : ', LTO\'s code generated once'));
        my $w = table_words("$d/prog", 8);
        is_deeply([grep { $_ } @$w], [sort { $a <=> $b } hook_calls("$d/prog")], "$what: the table is objdump -d's calls");
    }
}

# slim LTO objects give no bound: the links with -q, said
{
    my $d = "$dir/lto-slim";
    mkdir $d or die;
    must('gcc', '-O2', '-pg', '-flto', '-fno-fat-lto-objects', '-c', "$dir/$_.c", '-o', "$d/$_.o") for qw(main strong add a_member_with_a_long_name);
    my ($st, $so, $err) = run_cmd([$MR, '--link', '-v', '--', 'gcc', '-O2', '-pg', '-flto', '-o', "$d/prog",
        map { "$d/$_.o" } qw(main strong add a_member_with_a_long_name)]);
    is($st, 0, 'lto-slim: linked') or diag $err;
    like($err, qr/one link could not: LTO objects without their code \(-fno-fat-lto-objects\) give no bound\)/,
        'lto-slim: the links with -q, said why');
    ($st, undef, $err) = run_cmd([$MR, '--verify', "$d/prog"]);
    is($st, 0, 'lto-slim: mcount-record --verify passes') or diag $err;
}

# a command the one-link method does not take: the links with -q, said
{
    my $d = "$dir/multi";
    mkdir $d or die;
    my @o = qw(main weak strong add a_member_with_a_long_name);
    must('gcc', '-O2', '-pg', '-c', "$dir/$_.c", '-o', "$d/$_.o") for @o;
    my ($st, $so, $err) = run_cmd([$MR, '--link', '-v', '--', 'gcc', '-o', "$d/prog", map { "$d/$_.o" } @o],
        env => { MCOUNT_LINK_METHOD => 'multi' });
    is($st, 0, 'MCOUNT_LINK_METHOD=multi: linked') or diag $err;
    like($err, qr/: links with -q, then the link with the table \(1 of overridden weak functions left out; one link could not: MCOUNT_LINK_METHOD=multi\)/,
        'MCOUNT_LINK_METHOD=multi: the links with -q, the weak copy left out, said');
    like($so, qr/: \d+ call sites, 3 links$/m, 'MCOUNT_LINK_METHOD=multi: three links');
    ($st, undef, $err) = run_cmd([$MR, '--verify', '--strict', "$d/prog"]);
    is($st, 0, 'MCOUNT_LINK_METHOD=multi: --verify --strict passes (sorted, no entry in the weak copy)') or diag $err;
    # the one link's table of the same command: the same entries
    ($st, undef, $err) = run_cmd([$MR, '--link', '--', 'gcc', '-o', "$d/prog1", map { "$d/$_.o" } @o]);
    is($st, 0, 'the same linked once') or diag $err;
    my $list = sub { join ' ', map { (split ' ')[0] } grep { /^[0-9a-f]+\s/ } split /\n/, must($MR, '--list', $_[0]) };
    is($list->("$d/prog"), $list->("$d/prog1"), 'MCOUNT_LINK_METHOD=multi: the one link\'s entries');
}

# mcount-scan's two steps by themselves: --bound -o writes the object
# the assembler makes of --placeholder=N's table (x86_64, i386), or that
# assembly where the target's row leaves it to `as`; --fill-linked
# refuses a map whose input it cannot read, and then writes nothing
{
    my $d = "$dir/steps";
    mkdir $d or die;
    my @o = map { "$d/$_.o" } qw(main weak strong add a_member_with_a_long_name);
    must('gcc', '-O2', '-pg', '-c', "$dir/$_.c", '-o', "$d/$_.o") for qw(main weak strong add a_member_with_a_long_name);
    my $H = "$TOP/build/mcount-scan";
    # (the facts of the first object among the inputs, as --identify's:
    # an archive before it passed over)
    must('ar', 'rc', "$d/first.a", "$d/add.o");
    my ($st, $out, $err) = run_cmd([$H, '--bound', '-o', "$d/ph.o", '--', "$d/first.a", @o]);
    is($st, 0, 'steps: --bound') or diag $err;
    my ($n) = $out =~ /^bound\t(\d+)$/m;
    ok($n, "steps: a bound ($n)");
    like($out, qr/^placeholder\tobject$/m, 'steps: --bound -o writes the placeholder as an object');
    my ($idst, $id) = run_cmd([$H, '--identify', '--object', $o[0]]);
    is(join('', grep { !/^(?:status|sites)\t/ } split /^/, $id),
        join('', grep { /^[a-z-]+\t/ && !/^(?:status|sites|bound|calls|tabled|lto|lto-calls|slim|placeholder|bitcode|bitcode-functions|thin)\t/ } split /^/, $out),
        "steps: --bound says the first object's facts as --identify does");
    # the oracle: the assembler's object of --placeholder=N's assembly,
    # for each word size and relocation kind (RELA, REL)
    for my $m ('-m64', '-m32') {
        my @w = $m eq '-m32' ? ('-m32') : ();
        my @mo = map { "$d/$_$m.o" } qw(main strong add a_member_with_a_long_name);
        must('gcc', @w, '-O2', '-pg', '-c', "$dir/$_.c", '-o', "$d/$_$m.o") for qw(main strong add a_member_with_a_long_name);
        must($H, '--bound', '-o', "$d/ph$m.o", '--', @mo);
        my ($k) = must($H, '--bound', '--', @mo) =~ /^bound\t(\d+)$/m;
        must($H, "--placeholder=$k", '--object', $mo[0], '-o', "$d/as$m.s");
        must('gcc', @w, '-c', "$d/as$m.s", '-o', "$d/as$m.o");
        my $secs = sub {
            join("\n", map { s/^\s*\[\s*\d+\]\s*//r =~ s/^(\S+\s+\S+\s+)\S+\s+\S+\s+/$1/r =~ s/\s+\d+\s+\d+\s+(\d+)$/ $1/r }
                grep { /__mcount_loc|GNU-stack/ } split /\n/, must('readelf', '-SW', $_[0]));
        };
        is($secs->("$d/ph$m.o"), $secs->("$d/as$m.o"), "steps: $m: the placeholder's sections are the assembler's");
        my $rels = sub { join("\n", map { s/^\s*[0-9a-f]+\s+[0-9a-f]+\s+//r } grep { /^\s*[0-9a-f]{8,}\s/ } split /\n/,
            must('readelf', '-rW', $_[0])) };
        is($rels->("$d/ph$m.o"), $rels->("$d/as$m.o"), "steps: $m: and its relocations ($k)");
        like(must('readelf', '-hW', "$d/ph$m.o"), qr/OS\/ABI:\s+UNIX - GNU/, "steps: $m: GNU's OS/ABI, as the assembler gives for a retained section");
        for my $l ([], ['-no-pie'], ['-shared']) {
            must('gcc', @w, @$l, '-o', "$d/a$m.out", @mo, "$d/as$m.o");
            must('gcc', @w, @$l, '-o', "$d/b$m.out", @mo, "$d/ph$m.o");
            ok(slurp("$d/a$m.out") eq slurp("$d/b$m.out"), "steps: $m @$l: linked, the same output as the assembler's object");
        }
    }
    ($st, $out) = run_cmd([$H, '--bound', '-o', "$d/none.o", '--', "$dir/main.c"]);
    is($st, 0, 'steps: --bound of no ELF object: not a failure');
    like($out, qr/^refused\tno input is an ELF object/m, 'steps: --bound of no ELF object: refused, said why');
    # the slots' dynamic relocations --fill-linked finds: those readelf -r
    # lists in the table (RELR: each address its entries and bitmaps give;
    # 150 slots: three bitmaps after an address)
    must($H, '--placeholder=150', '--object', $o[0], '-o', "$d/ph150.s");
    must('gcc', '-c', "$d/ph150.s", '-o', "$d/ph150.o");
    for my $c (['lld RELR', ['-fuse-ld=lld', '-Wl,--pack-dyn-relocs=relr'], 'RELR', 'lld-fast'],
               ['GNU ld RELR', ['-Wl,-z,pack-relative-relocs'], 'RELR', 'bfd'],
               ['lld RELA', ['-fuse-ld=lld'], 'RELA', 'lld-fast'], ['GNU ld RELA', [], 'RELA', 'bfd'],
               ['lld, no PIE', ['-fuse-ld=lld', '-no-pie'], 'none', 'lld-fast']) {
        my ($what, $lf, $kind, $bid) = @$c;
        must('gcc', @$lf, '-o', "$d/r.prog", @o, "$d/ph150.o", "-Wl,-Map=$d/r.map");
        my ($at, $size) = must('readelf', '-SW', "$d/r.prog") =~ /\]\s+__mcount_loc\s+\S+\s+([0-9a-f]+)\s+\S+\s+([0-9a-f]+)/;
        my $listed = grep { $_ >= hex($at) && $_ < hex($at) + hex($size) }
            map { /^([0-9a-f]{8,})(?:\s+[0-9a-f]+\s+R_X86_64_RELATIVE\b.*)?$/ ? hex $1 : () }
            split /\n/, must('readelf', '-rW', "$d/r.prog");
        ($st, $out, $err) = run_cmd([$H, '--object', "$d/r.prog", "--fill-linked=$d/r.map", "--build-id=$bid"]);
        is($st, 0, "steps: $what: --fill-linked") or diag $err;
        is(($out =~ /^relocated\t(.*)$/m)[0], "$kind " . ($kind eq 'none' ? 0 : hex($size) / 8),
            "steps: $what: the slots' relocations found are readelf -r's ($listed)");
        is($listed, $kind eq 'none' ? 0 : hex($size) / 8, "steps: $what: (readelf -r: one a slot)");
    }
    must('gcc', '-o', "$d/prog", @o, "$d/ph.o", "-Wl,-Map=$d/prog.map");
    my $before = slurp("$d/prog");
    unlink "$d/add.o" or die;
    ($st, $out, $err) = run_cmd([$H, '--object', "$d/prog", "--fill-linked=$d/prog.map", '--build-id=bfd']);
    like($out, qr/^refused\tthe map names an input whose calls are not known: \S*add\.o$/m,
        'steps: --fill-linked refuses an input it cannot read') or diag $err;
    ok(slurp("$d/prog") eq $before, 'steps: and writes nothing');
}

is_deeply([leftovers($dir)], [], 'no temporary files');
done_testing();
