#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# Every architecture of arches.tab recorded with its own cross tools and
# run under qemu-user (t/lib/ArchTest.pm says what is checked of each
# code model), a row of %TARGET below each: what its sites are, its code
# models, and what differs.  x86_64 and i386 are the host tier's
# (t/20-t/29); every other row of arches.tab must have a row here.
# MCOUNT_ARCHES=NAME[,NAME...] runs those rows only.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use ArchTest qw(check_target);
use TestUtil qw($TOP);
use RecordMcount::Arch qw(arch_rows);

# name => { what: its sites; hook: t/src/arch/HOOK/hook.S; models: the
# code models (compile flags); the rest: ArchTest's check_target's }
my %TARGET = (
    x86_64 => { host => 't/20-t/29' },
    i386 => { host => 't/20-t/29 (-m32)' },
    aarch64 => { what => 'bl _mcount (R_AARCH64_CALL26), PIE default and kernel-style code',
        hook => 'aarch64',
        models => [['-O2'], ['-O0', '-fno-pic'], ['-Os', '-fno-pic', '-ffunction-sections']] },
    arm => { what => 'push {lr}; bl __gnu_mcount_nc in Thumb-2 (R_ARM_THM_CALL, Debian\'s default) and ARM '
            . '(R_ARM_CALL), PIC, -mlong-calls and kernel-style code',
        hook => 'arm',
        models => [['-O2'], ['-O2', '-marm', '-fno-pic'], ['-Os', '-mthumb', '-fPIC', '-ffunction-sections'],
            ['-O0', '-marm', '-mlong-calls']],
        thumb => 1 },
    mips => { what => 'o32 big-endian: CALL16+JALR (abicalls default), jal (kernel: -mno-abicalls -fno-pic), '
            . 'HI16+LO16 (kernel modules: -mlong-calls), GOT16 (PIC -mlong-calls)',
        hook => 'mips', pic_runtime => 1,
        models => [['-O2'], ['-O2', '-mno-abicalls', '-fno-pic'],
            ['-O2', '-mno-abicalls', '-fno-pic', '-mlong-calls'], ['-Os', '-mlong-calls']] },
    mips64el => { what => 'n64: CALL16+JALR with R_MIPS_NONE lines, jal, HIGHEST/HIGHER/HI16/LO16 '
            . '(-mlong-calls), GOT_DISP (PIC -mlong-calls)',
        hook => 'mips', pic_runtime => 1,
        models => [['-O2'], ['-O2', '-mno-abicalls', '-fno-pic'],
            ['-O2', '-mno-abicalls', '-fno-pic', '-mlong-calls'], ['-Os', '-mlong-calls']],
        # the table's object brings its own ODK_REGINFO record, which ld -r
        # appends to .MIPS.options; the final link merges them into one
        allow => [qr/^section \.MIPS\.options#0 differs:/] },
    mipsel => { what => 'o32 little-endian: the same call forms as big-endian mips',
        hook => 'mips', pic_runtime => 1,
        models => [['-O2'], ['-O0', '-mno-abicalls', '-fno-pic'],
            ['-Os', '-mno-abicalls', '-fno-pic', '-mlong-calls', '-ffunction-sections']] },
    ppc32 => { what => 'bl _mcount, R_PPC_PLTREL24 (PIC default, addend 0x8000 with -fPIC) and R_PPC_REL24 (-fno-pic)',
        hook => 'powerpc',
        models => [['-O2'], ['-O2', '-fno-pic'], ['-Os', '-fPIC'], ['-O0', '-fno-pic', '-ffunction-sections']] },
    ppc64 => { what => 'big-endian (ELFv1): bl _mcount; .text has no code symbols (only .opd descriptors), '
            . 'so every anchor is added',
        hook => 'powerpc',
        models => [['-O2'], ['-Os', '-fno-pic', '-ffunction-sections'], ['-O0', '-fPIC']] },
    ppc64le => { what => 'ELFv2: bl _mcount (R_PPC64_REL24) after the global/local entry prologue',
        hook => 'powerpc',
        models => [['-O2'], ['-O0', '-fno-pic'], ['-Os', '-fPIC', '-ffunction-sections']] },
    riscv64 => { what => 'call _mcount (auipc+jalr, R_RISCV_CALL_PLT with R_RISCV_RELAX), PIE, PIC and -fno-pic; '
            . 'linked with --no-relax like the kernel',
        hook => 'riscv64',
        models => [['-O2'], ['-O0', '-fno-pic'], ['-Os', '-fPIC', '-ffunction-sections']],
        link => ['-Wl,--no-relax'] },
    s390x => { what => 'stg + brasl _mcount (entry: the stg) and brasl __fentry__ (-mfentry); tables equal GCC\'s '
            . '-mrecord-mcount',
        hook => 's390x', gcc_oracle => 1,
        models => [['-O2'], ['-O2', '-fno-pic'], ['-O0', '-mfentry'], ['-Os', '-mfentry', '-fPIC', '-ffunction-sections']] },
    # Debian 12's sh4-linux-gnu-gcc-12 (12.2.0-13) deletes the load and
    # the test of `if (*p)` at -O1 and above (its sh_treg_combine passes
    # take the load for a store of the T bit): objdump of a probe shows
    # it, and the corpus's -O2 program crashes under qemu-sh4.  Every
    # compile here loads the GCC plugin of scripts/gcc-sh4-treg-off.cc
    # (make build/sh4/treg-off.so), which turns those passes off; then
    # the -O2 and -Os code runs and checks its table as the -O0 code does.
    sh4 => { what => 'the relocation (R_SH_DIR32) is on the literal word that jmp @r1 uses; the entry is that word, '
            . 'the kernel\'s convention',
        hook => 'sh4',
        models => [['-O0', '-fno-pic'], ['-O0', '-fPIC', '-ffunction-sections'], ['-O2'], ['-Os', '-fPIC']],
        plugin => "$TOP/build/sh4/treg-off.so",
        # the probe: with the plugin the function loads *p and tests it
        # (without it: a note, a fixed compiler is no failure)
        probe => { source => "int probe(int *p) { return *p ? 7 : 9; }\n", flags => ['-O2'],
            want => qr/mov\.l \@r4,r\d+;.*\btst\b/, what => 'loads *p and tests it',
            without => qr/mov\.l \@r4,/, without_what => 'loads *p too', without_else => 'loads nothing' },
        # Debian 12's sh4 glibc programs hang or crash at start under
        # qemu-sh4 7.2 (a plain hello world does; its C library was built
        # by the same compiler): the program brings its own start-up
        freestanding => ['start.S', 'mini_libc.c'], link => ['-nostdlib'] },
    sparc64 => { what => 'call _mcount after the save, R_SPARC_WPLT30 (PIC default) and R_SPARC_WDISP30 (-fno-pic)',
        hook => 'sparc64',
        models => [['-O2'], ['-O2', '-fno-pic'], ['-Os', '-fPIC', '-ffunction-sections']] },
);

my @rows = map { $_->{name} } arch_rows();
my %row = map { ($_ => 1) } @rows;
is_deeply([grep { !$TARGET{$_} } @rows], [], 'every row of arches.tab has a row here');
is_deeply([grep { !$row{$_} } sort keys %TARGET], [], 'every row here is a row of arches.tab');

my %only = map { ($_ => 1) } split /[,\s]+/, $ENV{MCOUNT_ARCHES} // '';
my @unknown = grep { !$TARGET{$_} } sort keys %only;
is_deeply(\@unknown, [], 'MCOUNT_ARCHES names rows of arches.tab') if %only;
for my $name (grep { $TARGET{$_} } @rows) {
    next if %only && !$only{$name};
    my %t = %{ $TARGET{$name} };
    if ($t{host}) {
        note "$name: the host tier's ($t{host})";
        next;
    }
    subtest $name => sub {
        note "$name: " . delete $t{what};
        check_target(name => $name, %t);
    };
}

done_testing();
