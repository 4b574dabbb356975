#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# libmcount-trace on 32-bit Arm (armhf: build/arm/), under full-system
# emulation: Debian's arm64 kernel, which runs 32-bit programs at
# AArch32 EL0 (CONFIG_COMPAT), booted by qemu-system-aarch64 on a
# Cortex-A57 (t/lib/QemuSystem.pm says why not qemu-user).
#
#  - The machine runs code changed through /proc/self/mem, as the tracer
#    changes it (t/src/trace/sys/smc.c: an ARM-state function's first
#    instruction rewritten twice, the caches flushed by the cacheflush
#    system call): "f 1 2 3"; under qemu-arm the same program prints
#    "f 1 1 1".  tear.c shows (a note, not a check) how often another
#    thread reads a 4-byte write half made, 4- and 2-byte aligned (Thumb
#    code is only 2-byte aligned: why the library fences pages).
#  - A dynamically linked armhf program (oracle.c, no tracer) runs in the
#    guest through the dynamic linker and C library the initramfs lays
#    out as Debian does, as under qemu-arm with the cross C library.
#  - The -finstrument-functions oracle (t/lib/SysTrace.pm): oracle.c built
#    through mcount-cc, traced with every function on, gives the enter
#    log event for event; with no filter, no event.  Thumb-2 (the
#    compiler's default: `push {lr}; bl __gnu_mcount_nc`, a 32-bit bl or
#    blx at a 2-byte boundary) and ARM state (-marm); preloaded (through
#    __gnu_mcount_nc's PLT entry), linked in as PIE and -static (switched
#    on live from main by the C API).
#  - Live switching under load (t/src/trace/toggle.c, SysTrace): threads
#    run the functions whose sites main switches on and off through the
#    library's fenced pages (rt/patch.c), Thumb-2 and ARM; no crash, every event well
#    formed, events after each enable, none after each disable; the
#    program's own SIGTRAP handler gets its breakpoint and raise(), and
#    its own SIGSEGV handler each fault of a worker.
# No function_graph on arm yet (rt/rt.h): the tracer says so.
# Everything runs in one boot: a check of another program is one more
# job in @jobs, its files in %files, and its checks after the boot.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP must run_cmd);
use TraceTest qw($TSRC);
use ArmSystem qw($ARMCC $ARMSYSROOT arm_boot);
use SysTrace qw(sys_start boot_checks machine_checks oracle_jobs oracle_checks toggle_jobs toggle_checks tear_jobs
    graph_refused_job graph_refused_checks);

my $QEMU_USER = 'qemu-arm';
my $ARM = "$TOP/build/arm";
my $dir = sys_start('arm', lib => $ARM, tools => [[$QEMU_USER, 'qemu-user'],
    ['arm-linux-gnueabihf-objdump', 'binutils-arm-linux-gnueabihf']]);

# ---- builds ----
must($ARMCC, '-O2', '-static', '-o', "$dir/smc", "$TSRC/sys/smc.c");
my %files = ('/smc' => "$dir/smc");
# name, compile flags, link flags, 'so' or 'a' (no link-time mode: its
# tables come from a linked image, which mcount-record does not read for
# arm yet)
my @A32 = ('-marm');
my @variants = (['pie-preloaded', [], [], 'so'], ['pie-linked', [], [], 'a'],
    ['static-linked', [], ['-static'], 'a'],
    ['arm-preloaded', \@A32, [], 'so'], ['arm-linked', \@A32, [], 'a'],
    ['arm-static', \@A32, ['-static'], 'a']);
my @jobs = ({ name => 'smc', argv => ['/smc'] }, tear_jobs(cc => $ARMCC, dir => $dir, files => \%files),
    oracle_jobs(cc => $ARMCC, lib => $ARM, dir => $dir, files => \%files, variants => \@variants),
    toggle_jobs(cc => $ARMCC, lib => $ARM, dir => $dir, files => \%files),
    toggle_jobs(cc => $ARMCC, lib => $ARM, dir => $dir, files => \%files, name => 'toggle-arm',
        cflags => \@A32),
    graph_refused_job());

# ---- one boot ----
my $r = boot_checks('', \&arm_boot, files => \%files, jobs => \@jobs, timeout => 900);

# ---- the machine runs the code it has; a dynamically linked program ----
my ($uout) = machine_checks($r, dir => $dir, qemu_user => $QEMU_USER, sysroot => $ARMSYSROOT,
    ldso => 'lib/ld-linux-armhf.so.3');
my ($rst, $rel) = run_cmd(['readelf', '-h', "$dir/plain"]);
like($rel, qr{Class:\s+ELF32}, 'the plain program is a 32-bit one');

# ---- the tracer: the oracle, both states ----
# objdump's view of each variant's calls to the hook: Thumb's 2-byte
# `push {lr}` and 32-bit bl/blx, or ARM's 4-byte ones.
for my $v (@variants) {
    my ($name, $cf) = @$v;
    my ($dst, $dis) = run_cmd(['arm-linux-gnueabihf-objdump', '-d', "$dir/$name"]);
    my (%form, $push);
    for (split /\n/, $dis) {
        if (/\A\s*[0-9a-f]+:\s+([0-9a-f]{4}(?: [0-9a-f]{4})?|[0-9a-f]{8})\s+(\S+)\s+(.*)/) {
            my ($hex, $op, $rest) = ($1, $2, $3);
            $form{ length($hex) == 9 ? 'thumb' : 'arm' }++
                if $push && $op =~ /\Ablx?\z/ && $rest =~ /<__gnu_mcount_nc(?:\@plt)?>/;
            $push = $op eq 'push' && $rest =~ /\A\{lr\}/ ? $hex : undef;
        }
    }
    my $want = @$cf ? 'arm' : 'thumb';
    ok($form{$want} && $form{$want} >= 8 && !$form{ $want eq 'arm' ? 'thumb' : 'arm' },
        "$name: objdump shows its sites as push {lr} and a " . ($want eq 'arm' ? 'ARM' : 'Thumb-2')
        . ' bl/blx (' . join(', ', map { "$_ $form{$_}" } sort keys %form) . ')');
}
oracle_checks($r, dir => $dir, variants => \@variants, want_out => $uout);

# ---- function_graph: not on arm yet, and said so ----
graph_refused_checks($r, want_out => $uout);

# ---- live switching behind fenced pages ----
toggle_checks($r, dir => $dir);
toggle_checks($r, dir => $dir, name => 'toggle-arm');

done_testing();
