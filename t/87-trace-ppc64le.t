#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# libmcount-trace on ppc64le (ELFv2: build/ppc64le/), under full-system
# emulation: Debian's ppc64el kernel booted by qemu-system-ppc64 on the
# pseries machine, a POWER9, through SLOF (t/lib/QemuSystem.pm says why
# not qemu-user).
#
#  - The machine runs code changed through /proc/self/mem, as the tracer
#    changes it (t/src/trace/sys/smc.c: a function's first instruction
#    rewritten twice, its page never writable, dcbst/sync/icbi/isync):
#    "f 1 2 3"; under qemu-ppc64le the same program prints "f 1 1 1".
#    tear.c shows (a note, not a check) how often another thread reads a
#    4-byte write through /proc/self/mem half made, 4- and 2-byte aligned
#    (instructions are 4-byte aligned: the library counts on one aligned
#    store, rt/arch-ppc64le.c).
#  - A dynamically linked ppc64le program (oracle.c, no tracer) runs in
#    the guest through the dynamic linker and C library the initramfs
#    lays out as Debian does, as under qemu-ppc64le with the cross C
#    library.
#  - The -finstrument-functions oracle (t/lib/SysTrace.pm): oracle.c
#    built through mcount-cc, traced with every function on, gives the
#    enter log event for event; with no filter, no event.  Both forms of
#    a site, which objdump shows: `bl` to a PLT call stub and the TOC
#    restore `ld r2,24(r1)` after it (preloaded: switched off, `b .+8`),
#    and `bl` to _mcount's local entry and `nop` (linked in as PIE and
#    -static, switched on live from main by the C API; off, `nop`).
#  - The preloaded program stripped of every symbol: the TOC pointer
#    behind its call stubs found without one, no site refused, the
#    enter log event for event.
#  - Table entries that are no calls to the hook
#    (t/src/trace/ppc64le/badsite.S: a bl to another function, a bl to
#    a look-alike call stub whose slot holds another function, a bl
#    followed by neither nop nor the TOC restore, no bl at all): each
#    refused with a message, never written; the calls still run.
#  - Live switching under load (t/src/trace/toggle.c, SysTrace): threads
#    run the functions whose sites main switches on and off, each site
#    one aligned store (the Power ISA's patch class: b, bl, nop), in a
#    -static program (bl <-> nop) and in a PIE linked with the shared
#    library (through a call stub: bl <-> b .+8); no
#    crash, every event well formed, events after each enable, none
#    after each disable; the program's own SIGTRAP handler gets its trap
#    and raise(), and its own SIGSEGV handler each fault of a worker.
#    The cache maintenance after each store, which the emulator cannot
#    show missing, is read from the library's code.
#  - function_graph (SysTrace): oracle.c against its enter and exit log,
#    preloaded, linked in and static, no frame pointer needed (the slot
#    of the return address is the ABI's: 16 bytes into the caller's
#    frame); hazards.c and unwind.cc: longjmp, siglongjmp, fork,
#    backtrace, pthread_exit, cancellation and C++ exceptions through
#    hijacked frames (C++ recorded at the link: exact for COMDAT).
#  - Function events (SysTrace): t/src/trace/args.c's arguments against
#    its own log, built with -g at -O2 (moved into non-volatile registers
#    before the call to _mcount; the ninth in the caller's parameter
#    save area, through the back chain) and at -O0; prototypes given and
#    bare globs, text, JSON and function_graph.
#  - Lua 5.4 (Debian's source, built through mcount-cc) running a script
#    with every function traced, under each tracer (SysTrace's
#    lua_checks): its output unchanged, every event of a function nm
#    shows, and under function_graph every hooked call returns (every
#    function hooked: the slot is the ABI's).
# Everything runs in one boot: a check of another program is one more
# job in @jobs, its files in %files, and its checks after the boot.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP must run_cmd);
use TraceTest qw($TSRC);
use PPC64System qw($PPC64CC $PPC64CXX $PPC64SYSROOT ppc64_boot);
use SysTrace qw(sys_start boot_checks machine_checks oracle_jobs oracle_checks graph_checks hazards_jobs
    hazards_checks @HAZARDS_LIBS toggle_jobs toggle_checks tear_jobs args_jobs args_checks badsite_job badsite_checks
    stripped_job stripped_checks lua_jobs lua_checks);

my $QEMU_USER = 'qemu-ppc64le';
my $OBJDUMP = 'powerpc64le-linux-gnu-objdump';
my $PPC = "$TOP/build/ppc64le";
my $dir = sys_start('ppc64le', lib => $PPC, tools => [[$QEMU_USER, 'qemu-user'],
    [$OBJDUMP, 'binutils-powerpc64le-linux-gnu'], [$PPC64CXX, 'g++-12-powerpc64le-linux-gnu']]);

# ---- builds ----
must($PPC64CC, '-O2', '-static', '-o', "$dir/smc", "$TSRC/sys/smc.c");
my %files = ('/smc' => "$dir/smc");
# name, compile flags, link flags, 'so' or 'a'; each also under
# function_graph (the return address's slot is the ABI's, whatever the
# function: no frame pointer needed)
my @variants = (['pie-preloaded', [], [], 'so'], ['pie-linked', [], [], 'a'],
    ['static-linked', [], ['-static'], 'a']);
my @jobs = ({ name => 'smc', argv => ['/smc'] }, tear_jobs(cc => $PPC64CC, dir => $dir, files => \%files),
    oracle_jobs(cc => $PPC64CC, lib => $PPC, dir => $dir, files => \%files, variants => \@variants, graph => 1),
    hazards_jobs(cc => $PPC64CC, cxx => $PPC64CXX, dir => $dir, files => \%files),
    toggle_jobs(cc => $PPC64CC, lib => $PPC, dir => $dir, files => \%files),
    toggle_jobs(cc => $PPC64CC, lib => $PPC, dir => $dir, files => \%files, name => 'toggle-so', shared => 1),
    badsite_job(cc => $PPC64CC, dir => $dir, files => \%files, asm => "$TSRC/ppc64le/badsite.S"),
    stripped_job(dir => $dir, files => \%files, strip => 'powerpc64le-linux-gnu-strip'));
# function events: args.c's arguments where its DWARF says they are
push @jobs, args_jobs(cc => $PPC64CC, dir => $dir, files => \%files, name => 'args', cflags => ['-g'], dwarf => 1),
    args_jobs(cc => $PPC64CC, dir => $dir, files => \%files, name => 'args-O0', cflags => ['-g', '-O0'], dwarf => 1);
# a real program nobody here wrote
push @jobs, lua_jobs(cc => $PPC64CC, dir => $dir, files => \%files, name => 'lua');

# ---- one boot ----
my $r = boot_checks('', \&ppc64_boot, files => \%files, jobs => \@jobs, timeout => 600, libs => \@HAZARDS_LIBS);

# ---- the machine runs the code it has; a dynamically linked program ----
my ($uout) = machine_checks($r, dir => $dir, qemu_user => $QEMU_USER, sysroot => $PPC64SYSROOT,
    ldso => 'lib64/ld64.so.2');

# ---- the tracer: the oracle, both forms of a site ----
# objdump's view of each variant's calls to the hook and the word after
# each: through a PLT call stub (the TOC restore after it) or to
# _mcount's local entry (a nop after it).
for my $v (@variants) {
    my ($name, undef, undef, $mode) = @$v;
    my ($dst, $dis) = run_cmd([$OBJDUMP, '-d', "$dir/$name"]);
    my (%form, $call);
    for (split /\n/, $dis) {
        next unless /\A\s*[0-9a-f]+:\s+(?:[0-9a-f]{2} ){4}\s*(\S+)\s*(.*)/;
        my ($op, $rest) = ($1, $2);
        if ($call) {
            $form{ "$call " . ($op eq 'nop' ? 'nop' : $op eq 'ld' && $rest =~ /\Ar2,24\(r1\)/ ? 'toc' : 'other') }++;
        }
        $call = $op eq 'bl' && $rest =~ /<(?:\w+\.plt_call\.)?_mcount(?:\@\@GLIBC[\d._]+)?(\+0x8)?>/
            ? ($rest =~ /plt_call/ ? 'stub' : $1 ? 'local' : 'global') : undef;
    }
    my $want = $mode eq 'so' ? 'stub toc' : 'local nop';
    ok($form{$want} && $form{$want} >= 8 && keys %form == 1,
        "$name: objdump shows its sites as " . ($mode eq 'so' ? 'bl to a PLT call stub, then ld r2,24(r1)'
            : "bl to _mcount's local entry, then nop") . ' (' . join(', ', map { "$_ $form{$_}" } sort keys %form)
        . ')');
}
oracle_checks($r, dir => $dir, variants => \@variants, want_out => $uout);

# ---- a stripped program: a stub's TOC pointer without a symbol ----
stripped_checks($r, dir => $dir, want_out => $uout);

# ---- entries that are no calls to the hook: refused, never written ----
badsite_checks($r, refused => [['bad_local', 'a call to something other than the hook'],
    ['bad_stub', 'a call to something other than the hook'],
    ['bad_next', 'a bl followed by neither nop nor ld r2,24(r1)'], ['bad_word', 'not a call instruction']]);

# ---- function_graph ----
graph_checks($r, dir => $dir, variants => \@variants, graph => 1, want_out => $uout);
hazards_checks($r, dir => $dir);

# ---- live switching, one aligned store a site ----
toggle_checks($r, dir => $dir);

# ---- function events ----
args_checks($r, dir => $dir, name => $_, dwarf => 1) for 'args', 'args-O0';

# ---- lua ----
# the return address's slot is the ABI's: every function hooked
lua_checks($r, dir => $dir, name => 'lua', noexit => []);
toggle_checks($r, dir => $dir, name => 'toggle-so');

# The cache maintenance after each store cannot be seen in the guest:
# qemu's TCG models no instruction cache (a write drops the blocks
# translated from its page, whoever makes it), and the kernel flushes
# for a write through /proc/self/mem anyway; the library without it
# passes every check above.  GCC's __builtin___clear_cache is empty on
# this target, so what the library runs after a store is read here.
for my $lib ('so', 'a') {
    my ($st, $dis) = run_cmd([$OBJDUMP, '-d', "$PPC/libmcount-trace.$lib"]);
    my ($body) = $dis =~ /<ppc_sync_self>:\n(.*?)(?:\n\n|\z)/s;
    my @ops = grep { /\A(?:dcbst|sync|hwsync|icbi|isync)\z/ }
        map { /\A\s*[0-9a-f]+:\s+(?:[0-9a-f]{2} ){4}\s*(\S+)/ ? $1 : () } split /\n/, $body // '';
    my $seq = join ' ', @ops;
    $seq =~ s/\b(\w+)(?: \1\b)+/$1/g;         # an unrolled loop's words once
    # (objdump says hwsync for sync; the path of an empty range has its
    # own sync and isync after the loops)
    like($seq, qr/\Adcbst (?:hw)?sync icbi isync\b/,
        "libmcount-trace.$lib: after a store, dcbst, sync, icbi, isync (rt/arch-ppc64le.c: $seq)");
}

done_testing();
