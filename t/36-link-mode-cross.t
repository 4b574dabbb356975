#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# Link-time mode on the other architectures whose linked images the scan
# knows: a static program of the corpus and the target's own hook
# (t/src/arch: the hook checks at every call that its site is in the
# table, and at exit that every entry was reached), linked through
# mcount-record --link and run under qemu-user; mcount-record --verify
# agrees.  riscv64 is linked the default way: the linker relaxes each
# auipc+jalr into a jal and moves the code after it, which the per-object
# table cannot follow (its anchor + delta entries then point at the wrong
# places) and the link-time table is built from; and with --no-relax.
# Each output is the plain link of the same command but for the table
# (t/lib/LinkDiff.pm).  Each link says which method made its table (-v):
# the one link, everywhere but riscv64's relaxing link, which is refused
# before it runs (its calls are not where its inputs have them) and
# takes the links with -q.  Last, the tracing
# library linked into a program at the link, on each architecture, and
# its signal mask wrappers as libc's (t/src/trace/sigmask.c).
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP $SRC must tmpdir run_cmd run_prog have spit);
use TraceTest qw(read_json);
use LinkDiff qw(link_diff);
use RecordMcount::Arch qw(arch_row);

my $dir = tmpdir();
# name (arches.tab's row, unless arch names it), rt => 1 (the tracing
# library's test too), hook (t/src/arch/HOOK), ...; the row gives the
# triple, qemu-user and the library's name (rt)
my @targets = (
    { name => 'aarch64', rt => 1, hook => 'aarch64' },
    { name => 'riscv64', rt => 1, hook => 'riscv64' },
    # linked without relaxation, the calls stay where the inputs have them
    { name => 'riscv64 --no-relax', arch => 'riscv64', hook => 'riscv64', lflags => ['-Wl,--no-relax'],
      one => 1 },
    # ... unless a --relax after it turns relaxation on again
    { name => 'riscv64 --no-relax --relax', arch => 'riscv64', hook => 'riscv64',
      lflags => ['-Wl,--no-relax', '-Wl,--relax'] },
    # Thumb-2 (the compiler's default) and ARM state: a link-time
    # table's entries are the bl's address, even in Thumb code too (both
    # methods; only the per-object tables' anchor + delta has bit 0)
    { name => 'arm', rt => 1, hook => 'arm' },
    { name => 'arm -marm', arch => 'arm', hook => 'arm', cflags => ['-marm'] },
    { name => 'ppc64le', rt => 1, hook => 'powerpc' },
    # ELFv1: functions are descriptors in .opd, the calls go to their code
    { name => 'ppc64', rt => 1, hook => 'powerpc' },
    { name => 'ppc32', rt => 1, hook => 'powerpc' },
    # PIC calls through the GOT (lw/ld t9 from gp), or jal (-fno-pic);
    # dynamic: also a dynamic program, below
    { name => 'mips', rt => 1, hook => 'mips', dynamic => 1 },
    { name => 'mipsel', rt => 1, hook => 'mips', dynamic => 1 },
    { name => 'mips64el', rt => 1, hook => 'mips', dynamic => 1 },
    # PIC -mlong-calls: the GOT load of R_MIPS_GOT16 (o32) or
    # R_MIPS_GOT_DISP (n64), no companion
    { name => 'mips -mlong-calls', arch => 'mips', hook => 'mips', cflags => ['-mlong-calls'] },
    { name => 'mips64el -mlong-calls', arch => 'mips64el', hook => 'mips', cflags => ['-mlong-calls'] },
    # the kernel's module code: lui of R_MIPS_HI16 + its LO16 (o32),
    # lui of HIGHEST + HIGHER, HI16, LO16 (n64): a site and its
    # companions, placed by the site alone.  Only the corpus is built so
    # (static glibc is abicalls code; ld warns of the mix, naming them),
    # prog_main first, whose flags the table's object restates
    { name => 'mips kernel-style', arch => 'mips', hook => 'mips',
      corpus_cflags => ['-mno-abicalls', '-fno-pic', '-mlong-calls'] },
    { name => 'mips64el kernel-style', arch => 'mips64el', hook => 'mips',
      corpus_cflags => ['-mno-abicalls', '-fno-pic', '-mlong-calls'] },
    # call _mcount after the save (through the PLT in a dynamic program)
    { name => 'sparc64', rt => 1, hook => 'sparc64', dynamic => 1 },
    # _mcount's sequence (the entry is its stg, 6 bytes before the call)
    # and -mfentry's brasl %r0
    { name => 's390x', rt => 1, hook => 's390x' },
    { name => 's390x -mfentry', arch => 's390x', hook => 's390x', cflags => ['-mfentry'] },
    # the literal word a jmp @r1 uses (-fPIC: its GOT offset); compiled
    # with t/50-arch.t's GCC plugin for sh4, and static programs without
    # Debian 12's sh4 glibc, which runs nothing under qemu-sh4 (t/50)
    { name => 'sh4', hook => 'sh4', dynamic => 1,
      plugin => "$TOP/build/sh4/treg-off.so", freestanding => ['start.S', 'mini_libc.c'] },
);
# The method a link of each target takes (mcount-record -v's words,
# MCOUNT_CC_VERBOSE's): the one link, or the links with -q and why.
my $ONE = qr/[:;] one link, the table filled in place \(\d+ of \d+ slots; build ID sha1\)$/m;
my $relax = join ' ', 'links with -q, then the link with the table (one link could not: a link of',
    'riscv64 moves code inside its input sections (linker relaxation) unless it has -Wl,--no-relax)';
my %method = (riscv64 => qr/[:;] \Q$relax\E$/m);
sub one_link {
    my ($t) = @_;
    return $t->{one} || !$method{ $t->{arch} // $t->{name} };
}
sub method_ok {
    my ($t, $name, $err) = @_;
    my $want = one_link($t) ? $ONE : $method{ $t->{arch} // $t->{name} };
    like($err, $want, "$name: " . (one_link($t) ? 'one link' : 'the links with -q, and why'))
        or diag $err;
}

for my $t (@targets) {
    my $row = arch_row($t->{arch} // $t->{name}) // die "$t->{name}: no row in arches.tab\n";
    @$t{qw(triple qemu)} = @$row{qw(triple qemu)};
    $t->{rt} = $row->{tracer} if $t->{rt};
}

for my $t (@targets) {
    my @missing = grep { !have($_) } "$t->{triple}-gcc-12", "$t->{triple}-objdump", $t->{qemu};
    if (@missing) {
        fail("$t->{name}: not installed: @missing (run scripts/install-deps)");
        $t->{failed} = 1;
        next;
    }
    if ($t->{plugin} && !-f $t->{plugin}) {
        fail("$t->{name}: no GCC plugin $t->{plugin} (make $t->{plugin})");
        $t->{failed} = 1;
        next;
    }
    my @gcc = ("$t->{triple}-gcc-12", $t->{plugin} ? "-fplugin=$t->{plugin}" : ());
    my @fs = @{ $t->{freestanding} // [] };
    for my $m (['-O2'], ['-O0', '-fno-pic'], ['-Os', '-ffunction-sections']) {
        my $model = [@$m, @{ $t->{cflags} // [] }];
        my $name = "$t->{name} @$model";
        my $d = "$dir/" . ($name =~ s/[^A-Za-z0-9]+/_/gr);
        mkdir $d or die;
        my @corpus = (@$model, @{ $t->{corpus_cflags} // [] });
        must(@gcc, '-pg', $_ eq 'prog_main' ? @$model : @corpus, '-c', "$SRC/$_.c", '-o', "$d/$_.o")
            for qw(corpus prog_main dup_a dup_b);
        my @cf = grep { !/^-ffunction-sections$/ } @$model;
        must(@gcc, @cf, '-c', "$TOP/t/src/arch/$t->{hook}/hook.S", '-o', "$d/hook.o");
        must(@gcc, @cf, '-O2', '-DEXOTIC_RECORDED=1', '-c', "$TOP/t/src/arch/check.c", '-o', "$d/check.o");
        # an archive whose member the link leaves out: its call is in
        # the bound, so the one link's table has a hole at its end
        spit("$d/unused.c", "int mcount_unused(int x);\nint mcount_unused(int x) { return x + 1; }\n");
        must(@gcc, '-pg', @corpus, '-c', "$d/unused.c", '-o', "$d/unused.o");
        must("$t->{triple}-ar", 'rcs', "$d/libunused.a", "$d/unused.o");
        my @own;
        for my $x (@fs) {
            (my $o = $x) =~ s/\.[cS]\z/.o/;
            must(@gcc, @cf, '-O2', '-c', "$TOP/t/src/arch/$t->{hook}/$x", '-o', "$d/$o");
            push @own, "$d/$o";
        }
        my @link = (@gcc, '-static', @fs ? ('-nostdlib') : (), @{ $t->{lflags} // [] },
            (grep { /^-ffunction-sections$/ } @$model) ? '-Wl,--gc-sections' : (),
            '-o', "$d/prog", (map { "$d/$_.o" } $t->{corpus_cflags}
                ? qw(prog_main corpus dup_a dup_b hook check) : qw(corpus prog_main dup_a dup_b hook check)),
            @own, "$d/libunused.a", @fs ? ('-lgcc') : ());
        my ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-record", '--link', '-v', '--', @link]);
        is($st, 0, "$name: mcount-record --link succeeds") or diag $err;
        method_ok($t, $name, $err);
        # (mips: the table's object restates the link's e_flags, or ld
        # warns of "linking abicalls files with non-abicalls files"; a
        # note would be a reference to the hook that is no call)
        # (but of the kernel-style objects mixed with abicalls code)
        my @said = grep { /abicalls|note:/ && !($t->{corpus_cflags} &&
            m{/(?:corpus|dup_a|dup_b)\.o: warning: linking abicalls files with non-abicalls files$}) }
            split /\n/, $err;
        is_deeply(\@said, [], "$name: the links warn of no table's object, note nothing") or diag $err;
        # (ppc32: ld warns of the RWX segment its BSS PLT makes, naming
        # the program, not the pass's temporary link output)
        unlike($err, qr/\.tmp_mc_/, "$name: the links' words name no temporary file") or diag $err;
        # the oracle: the same command linked plainly
        must(map { $_ eq "$d/prog" ? "$d/plain" : $_ } @link);
        is_deeply([link_diff(["$t->{triple}-readelf"], "$d/prog", "$d/plain")], [],
            "$name: the same as the plain link but for the table");
        ($st, $out, $err) = run_prog(["$d/prog"], qemu => $t->{qemu});
        my ($summary) = $out =~ /^(entries=.*)$/m;
        is($st, 0, "$name: under $t->{qemu}, every call site is in the table, every entry reached")
            or diag "$out$err";
        like($summary // '',
            qr/^entries=(\d+) reached=\1 calls=\d+ unknown=0 duplicates=0 excluded_calls=\d+ odd_entries=0 /,
            "$name: " . ($summary // 'no summary'));
        my $holes = one_link($t) ? 1 : 0;
        like($summary // '', qr/ holes=$holes$/,
            "$name: $holes hole" . ($holes ? ', the archive member left out' : 's'));
        ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-record", '--verify', '--sections=all', "$d/prog"]);
        is($st, 0, "$name: mcount-record --verify passes") or diag "$out$err";
    }
}

# A hook out of the calls' reach (its own section, placed far away):
# each call to it goes through a stub the linker makes (aarch64's and
# arm's veneers, arm's interworking stubs, powerpc's long-branch stubs),
# and the entry is still the call, as the links with -q record it.  The
# oracles: the program's own check under qemu-user, --verify, and the
# table of the links with -q (MCOUNT_LINK_METHOD=multi), entry for entry.
# (ppc32 is left out: its long-branch stubs follow each input section's
# code, unnamed, and neither --verify nor the links with -q, which pass
# over the stubs' own relocations against the hook, know them)
for my $f (['aarch64', 0x10000000], ['arm', 0x4000000], ['arm -marm', 0x4000000], ['ppc64le', 0x14000000],
           ['ppc64', 0x14000000]) {
    my ($t) = grep { $_->{name} eq $f->[0] && !$_->{failed} } @targets or next;
    my $name = "$t->{name} far hook";
    my $d = "$dir/" . ($name =~ s/[^A-Za-z0-9]+/_/gr);
    mkdir $d or die;
    my $gcc = "$t->{triple}-gcc-12";
    my @cf = ('-O2', @{ $t->{cflags} // [] });
    must($gcc, '-pg', @cf, '-c', "$SRC/$_.c", '-o', "$d/$_.o") for qw(corpus prog_main dup_a dup_b);
    must($gcc, @cf, '-c', "$TOP/t/src/arch/$t->{hook}/hook.S", '-o', "$d/hook0.o");
    must("$t->{triple}-objcopy", '--rename-section', '.text=.hookfar,alloc,code,readonly,contents',
        "$d/hook0.o", "$d/hook.o");
    must($gcc, @cf, '-DEXOTIC_RECORDED=1', '-c', "$TOP/t/src/arch/check.c", '-o', "$d/check.o");
    my %list;
    for my $m (qw(auto multi)) {
        my ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-record", '--link', '-v', '--', $gcc, '-static',
            sprintf('-Wl,--section-start=.hookfar=%#x', $f->[1]), '-o', "$d/$m",
            map { "$d/$_.o" } qw(corpus prog_main dup_a dup_b hook check)],
            env => { MCOUNT_LINK_METHOD => $m });
        is($st, 0, "$name, $m: mcount-record --link succeeds") or diag $err;
        method_ok($t, $name, $err) if $m eq 'auto';
        ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-record", '--list', "$d/$m"]);
        $list{$m} = $out;
    }
    my ($st, $out, $err) = run_cmd(["$t->{triple}-objdump", '-d', "$d/auto"]);
    my $stub = qr/[^>]*(?:veneer|_from_thumb|_from_arm|long_branch|plt_branch)[^>]*/;
    my $stubs = () = $out =~ /^\s*[0-9a-f]+:.*\bblx?\s+[0-9a-f]+ <$stub>/mg;
    cmp_ok($stubs, '>', 0, "$name: $stubs calls go through the linker's stubs");
    ($st, $out, $err) = run_prog(["$d/auto"], qemu => $t->{qemu});
    my ($summary) = $out =~ /^(entries=.*)$/m;
    like($summary // '', qr/^entries=(\d+) reached=\1 calls=\d+ unknown=0 duplicates=0/,
        "$name: under $t->{qemu}, " . ($summary // 'no summary')) or diag "$out$err";
    ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-record", '--verify', '--sections=all', "$d/auto"]);
    is($st, 0, "$name: mcount-record --verify passes") or diag "$out$err";
    is($list{auto}, $list{multi}, "$name: the table is the links' with -q, entry for entry");
}

# What the link-time table mends: the same riscv64 objects recorded one by
# one (recordmcount.pl) and linked the default, relaxing way fail the
# program's own check, entries pointing where the code was before the
# linker moved it.
{
    my $gcc = 'riscv64-linux-gnu-gcc-12';
    die "$gcc or qemu-riscv64 is not installed (run scripts/install-deps)\n"
        unless have($gcc) && have('qemu-riscv64');
    my $d = "$dir/riscv64-per-object";
    mkdir $d or die;
    must($gcc, '-pg', '-O2', '-c', "$SRC/$_.c", '-o', "$d/$_.o") for qw(corpus prog_main dup_a dup_b);
    for my $o (qw(corpus prog_main dup_a dup_b)) {
        must("$TOP/recordmcount.pl", 'riscv', 'little', '64', 'riscv64-linux-gnu-objdump',
            'riscv64-linux-gnu-objcopy', "$gcc -O2", 'riscv64-linux-gnu-ld', 'riscv64-linux-gnu-nm',
            '', '', '0', "$d/$o.o");
    }
    must($gcc, '-c', "$TOP/t/src/arch/riscv64/hook.S", '-o', "$d/hook.o");
    must($gcc, '-O2', '-c', "$TOP/t/src/arch/check.c", '-o', "$d/check.o");
    must($gcc, '-static', '-o', "$d/prog", map { "$d/$_.o" } qw(corpus prog_main dup_a dup_b hook check));
    my ($st, $out) = run_prog(["$d/prog"], qemu => 'qemu-riscv64');
    isnt($st, 0, 'riscv64 per object, relaxing link: the program finds the table wrong');
    like($out, qr/never reached|not in the table/, 'riscv64 per object, relaxing link: and says so');
}

# mcount-cc in per-object mode links riscv64 objects with -Wl,--no-relax
# (the row's object-link-flags) without being asked: the same default
# link command then gives a program whose table is right.
{
    my $gcc = 'riscv64-linux-gnu-gcc-12';
    die "$gcc or qemu-riscv64 is not installed (run scripts/install-deps)\n"
        unless have($gcc) && have('qemu-riscv64');
    my $d = "$dir/riscv64-mcount-cc";
    mkdir $d or die;
    my %env = (MCOUNT_CC_MODE => 'object');
    for my $c (qw(corpus prog_main dup_a dup_b)) {
        my ($st, undef, $err) = run_cmd(["$TOP/bin/mcount-cc", $gcc, '-O2', '-c', "$SRC/$c.c", '-o', "$d/$c.o"],
            env => \%env);
        die "mcount-cc $c.c: $err" if $st != 0;
    }
    must($gcc, '-c', "$TOP/t/src/arch/riscv64/hook.S", '-o', "$d/hook.o");
    must($gcc, '-O2', '-c', "$TOP/t/src/arch/check.c", '-o', "$d/check.o");
    my ($st, undef, $err) = run_cmd(["$TOP/bin/mcount-cc", $gcc, '-static', '-o', "$d/prog",
        map { "$d/$_.o" } qw(corpus prog_main dup_a dup_b hook check)], env => \%env);
    is($st, 0, 'riscv64 through mcount-cc per object: linked') or diag $err;
    my $out;
    ($st, $out) = run_prog(["$d/prog"], qemu => 'qemu-riscv64');
    is($st, 0, 'riscv64 through mcount-cc per object: every call in the table, every entry reached')
        or diag $out;
}

# A link-time link of riscv64 objects of which some bring their own
# tables (recorded in per-object mode): mcount-cc links them without
# relaxation too, or those tables would point where the code was.
{
    my $gcc = 'riscv64-linux-gnu-gcc-12';
    my $d = "$dir/riscv64-mixed";
    mkdir $d or die;
    for my $c (['corpus', 'object'], ['prog_main', 'link'], ['dup_a', 'object'], ['dup_b', 'link']) {
        my ($st, undef, $err) = run_cmd(["$TOP/bin/mcount-cc", $gcc, '-O2', '-c', "$SRC/$c->[0].c", '-o', "$d/$c->[0].o"],
            env => { MCOUNT_CC_MODE => $c->[1] });
        die "mcount-cc $c->[0].c: $err" if $st != 0;
    }
    must($gcc, '-c', "$TOP/t/src/arch/riscv64/hook.S", '-o', "$d/hook.o");
    # (the pass records the section the per-object table left out)
    must($gcc, '-O2', '-DEXOTIC_RECORDED=1', '-c', "$TOP/t/src/arch/check.c", '-o', "$d/check.o");
    my ($st, undef, $err) = run_cmd(["$TOP/bin/mcount-cc", $gcc, '-static', '-o', "$d/prog",
        map { "$d/$_.o" } qw(corpus prog_main dup_a dup_b hook check)], env => { MCOUNT_CC_MODE => 'link' });
    is($st, 0, 'riscv64 mixed, link time: linked') or diag $err;
    my $out;
    ($st, $out) = run_prog(["$d/prog"], qemu => 'qemu-riscv64');
    is($st, 0, 'riscv64 mixed, link time: every call in the table, every entry reached') or diag $out;
}

# Dynamic programs call the C library's _mcount: mips's through the
# GOT's global part, which has no relocations (its slots follow the
# dynamic symbols), sparc64's through the PLT, sh4's literal word holds
# the address of mcount's PLT entry (not PIC) or the offset of its GOT
# slot (PIE).  (They are not run: sh4's C library runs nothing under
# qemu-sh4, the others' tracers run theirs, the mips guests of the aarch64 guest.)  The table a link-time
# pass builds from the relocations -q keeps, and the one of the objects
# recorded one by one and linked the same way, must be the same table,
# and mcount-record --verify must find every entry a call to the hook.
for my $t (grep { $_->{dynamic} && !$_->{failed} } @targets) {
    my @gcc = ("$t->{triple}-gcc-12", $t->{plugin} ? "-fplugin=$t->{plugin}" : ());
    for my $pie (['-pie', '-fPIE'], ['-no-pie', '-fno-pie']) {
        my $name = "$t->{name} dynamic $pie->[0]";
        my $d = "$dir/" . ($name =~ s/[^A-Za-z0-9]+/_/gr);
        mkdir $d or die;
        my @cf = grep { /^-f/ } @$pie;
        my @lf = grep { !/^-f/ } @$pie;
        spit("$d/main.c", "int main(void) { return 0; }\n");
        must(@gcc, '-pg', '-O2', @cf, '-c', "$SRC/$_.c", '-o', "$d/$_.o") for qw(corpus dup_a dup_b);
        must(@gcc, '-pg', '-O2', @cf, '-c', "$d/main.c", '-o', "$d/main.o");
        my @objs = map { "$d/$_.o" } qw(corpus main dup_a dup_b);
        my ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-record", '--link', '-v', '--',
            @gcc, @lf, '-o', "$d/linked", @objs]);
        is($st, 0, "$name: mcount-record --link succeeds") or diag $err;
        method_ok($t, $name, $err);
        unlike($err, qr/warning|note:/, "$name: the links warn of nothing") or diag $err;
        must(@gcc, @lf, '-o', "$d/plain", @objs);
        is_deeply([link_diff(["$t->{triple}-readelf"], "$d/linked", "$d/plain")], [],
            "$name: the same as the plain link but for the table");
        ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-record", "--sections=all", @objs]);
        is($st, 0, "$name: mcount-record records each object") or diag $err;
        must(@gcc, @lf, '-o', "$d/per-object", @objs);
        my %list;
        for my $p (qw(linked per-object)) {
            ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-record", '--verify', '--sections=all', "$d/$p"]);
            is($st, 0, "$name: $p: mcount-record --verify passes") or diag "$out$err";
            ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-record", '--list', "$d/$p"]);
            # each entry by its function and offset (the layouts differ)
            $list{$p} = [sort map { (split ' ')[1] } split /\n/, $out];
        }
        cmp_ok(scalar @{ $list{linked} }, '>=', 18, "$name: " . scalar(@{ $list{linked} }) . ' entries');
        is_deeply($list{linked}, $list{'per-object'},
            "$name: the link-time table is the per-object one, entry for entry");
    }
}

# PIE and shared libraries of the targets the block above leaves out:
# each slot of the table has a relative dynamic relocation (RELA: its
# addend is the entry; arm's REL: the word), the calls go through the
# PLT or ppc's call stubs.  The oracles: --verify, and the table of the
# links with -q (MCOUNT_LINK_METHOD=multi), entry for entry.  (The
# per-object tables and t/lib/LinkDiff.pm are no oracle here: a shared
# library's per-object entries are relocated against global symbols, and
# LinkDiff misreads ppc64le's local entry points and some ppc and sparc
# relocations, for the links with -q as much.)
for my $t (grep { !$_->{dynamic} && !$_->{failed} && !$_->{arch} && $_->{name} ne 'riscv64' } @targets) {
    my $gcc = "$t->{triple}-gcc-12";
    for my $pie (['-pie', '-fPIE'], ['-shared', '-fPIC']) {
        my $name = "$t->{name} $pie->[0]";
        my $d = "$dir/" . ($name =~ s/[^A-Za-z0-9]+/_/gr);
        mkdir $d or die;
        spit("$d/main.c", "int main(void) { return 0; }\n");
        for my $c ((map { "$SRC/$_.c" } qw(corpus dup_a dup_b)), "$d/main.c") {
            (my $o = $c) =~ s{.*/|\.c\z}{}g;
            must($gcc, '-pg', '-O2', $pie->[1], '-c', $c, '-o', "$d/$o.o");
        }
        my %list;
        for my $m (qw(auto multi)) {
            my ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-record", '--link', '-v', '--', $gcc, $pie->[0],
                '-o', "$d/$m", map { "$d/$_.o" } qw(corpus main dup_a dup_b)], env => { MCOUNT_LINK_METHOD => $m });
            is($st, 0, "$name, $m: mcount-record --link succeeds") or diag $err;
            method_ok($t, $name, $err) if $m eq 'auto';
            ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-record", '--list', "$d/$m"]);
            $list{$m} = $out;
        }
        my ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-record", '--verify', '--sections=all', "$d/auto"]);
        is($st, 0, "$name: mcount-record --verify passes") or diag "$out$err";
        cmp_ok(scalar(() = $list{auto} =~ /\n/g), '>=', 18, "$name: the table has the corpus's calls");
        is($list{auto}, $list{multi}, "$name: the table is the links' with -q, entry for entry");
    }
}

# The tracing library linked in, recorded at the link (mcount-cc's
# link-time mode): its own code refers to its hooks only through data,
# so the pass notes nothing and records only the program's calls.  The
# oracles: the program's objects recorded one by one and linked the same
# way (their tables know nothing of the library), entry for entry, and
# --verify's reading of each image.  Each program calls none of the
# library's functions and is linked with the archive as it is, nothing
# more on the command line: the hook its -pg code calls must take the
# library in (on ppc32, the archive's own _mcount: glibc's, linked after
# it, would get the C library's __mcount_internal), so that under
# qemu-user the start-up filter alone traces it, every function on (no
# site written: qemu-user's /proc/self/mem is not the program's memory).
# Oracle: the program's own count of its calls.
for my $t (grep { $_->{rt} && !$_->{failed} } @targets) {
    my $gcc = "$t->{triple}-gcc-12";
    my $lib = "$TOP/build/$t->{rt}/libmcount-trace.a";
    if (!-f $lib) {
        fail("$t->{name}: no $lib (make rt-$t->{rt})");
        next;
    }
    my $d = "$dir/$t->{name}-linked-in";
    mkdir $d or die;
    my %list;
    for my $mode (qw(link object)) {
        my %env = (MCOUNT_CC_MODE => $mode);
        my ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-cc", $gcc, '-O2', '-c', "$SRC/trace/static_env.c",
            '-o', "$d/$mode.o"], env => \%env);
        is($st, 0, "$t->{name} linked-in, $mode: compiled") or diag $err;
        # (link mode: MCOUNT_CC_VERBOSE's lines say which method ran,
        # and nothing else is said)
        ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-cc", $gcc, '-o', "$d/$mode", "$d/$mode.o", $lib,
            '-lpthread'], env => { %env, $mode eq 'link' ? (MCOUNT_CC_VERBOSE => 1) : () });
        is($st, 0, "$t->{name} linked-in, $mode: linked") or diag $err;
        if ($mode eq 'link') {
            method_ok($t, "$t->{name} linked-in, $mode", $err);
            $err =~ s/^mcount-cc: (?:link \(MCOUNT_CC_MODE=link\): |\Q$d\E\/link: \d+ call sites?, ).*\n//mg;
        }
        is($err, '', "$t->{name} linked-in, $mode: nothing said");
        ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-record", '--verify', "$d/$mode"]);
        is($st, 0, "$t->{name} linked-in, $mode: mcount-record --verify passes") or diag "$out$err";
        my $trace = "$d/$mode.json";
        ($st, $out, $err) = run_cmd(['timeout', '-k', '5', '60', $t->{qemu}, '-L', "/usr/$t->{triple}",
            "$d/$mode", '37'], env => { MCOUNT_TRACE_FILTER => '*', MCOUNT_TRACE_OUTPUT => $trace,
            MCOUNT_TRACE_FORMAT => 'json', MCOUNT_TRACE_CONTROL => 0 });
        is("$st $out$err", "0 37 calls, 1405\n",
            "$t->{name} linked-in, $mode: under $t->{qemu}, its output its own, no message");
        my ($ev, $bad) = -f $trace ? read_json($trace) : ([], ['no trace file']);
        my %n;
        $n{ $_->{func} eq 'main' ? 'main' : "$_->{func} <- $_->{parent}" }++ for grep { defined $_->{func} } @$ev;
        is_deeply([\%n, $bad], [{ 'count_me <- main' => 37, 'other <- main' => 1, main => 1 }, []],
            "$t->{name} linked-in, $mode: traced with the archive alone: count_me 37 times, other and main once")
            or diag explain [\%n, $bad];
        ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-record", '--list', "$d/$mode"]);
        # each entry by its function and offset (riscv64's relaxing link
        # makes the functions shorter than the per-object --no-relax one)
        $list{$mode} = [sort map { (split ' ')[1] =~ s{/0x[0-9a-f]+\z}{}r } split /\n/, $out];
    }
    cmp_ok(scalar @{ $list{link} }, '>=', 3, "$t->{name} linked-in: " . scalar(@{ $list{link} }) . ' entries');
    is_deeply($list{link}, $list{object}, "$t->{name} linked-in: the link-time table is the per-object one");
    # the library's sigprocmask and pthread_sigmask (it keeps SIGTRAP
    # from being blocked behind its back) work as libc's: a static
    # program blocks SIGUSR1 and reads it back, with and without it
    my %said;
    for my $with ('plain', 'linked in') {
        must($gcc, '-O2', '-static', '-o', "$d/sigmask", "$SRC/trace/sigmask.c", $with eq 'plain' ? () : $lib,
            '-pthread');
        my ($st, $out, $err) = run_cmd([$t->{qemu}, "$d/sigmask"]);
        is($st, 0, "$t->{name} sigmask, $with: exits 0") or diag $err;
        $said{$with} = $out;
    }
    is($said{plain}, "sigprocmask 0 pthread_sigmask 0 usr1 blocked 1\n", "$t->{name} sigmask, plain: the mask set");
    is($said{'linked in'}, $said{plain}, "$t->{name} sigmask, linked in: the same");
}

done_testing();
