#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: system
# libmcount-trace on riscv64 (build/riscv64/), under full-system
# emulation: Debian's riscv64 kernel booted by qemu-system-riscv64
# through OpenSBI (t/lib/QemuSystem.pm says why not qemu-user).
#
#  - The machine runs code changed through /proc/self/mem, as the tracer
#    changes it (t/src/trace/sys/smc.c: a function's first instruction
#    rewritten twice through /proc/self/mem, its page never writable,
#    the instruction cache synced by riscv_flush_icache): "f 1 2 3";
#    under qemu-riscv64 the same program prints "f 1 1 1".  tear.c shows
#    (a note, not a check) how often another thread reads such a 4-byte
#    write half made, at a 4-aligned and at a 2-aligned address.
#  - A dynamically linked riscv64 program (t/src/trace/oracle.c, -O2, no
#    tracer) runs in the guest through the dynamic linker and C library
#    the initramfs lays out as Debian does, and its output and exit
#    status are those of the same program under qemu-riscv64 with the
#    cross C library: an outside oracle that the boot, the dynamic
#    linking and the console capture work.  Run again with a library
#    (t/src/trace/plug.c) preloaded from /lib/mt/: the dynamic linker
#    says it loaded and initialised it (LD_DEBUG=files).
#  - The -finstrument-functions oracle (t/lib/SysTrace.pm): oracle.c
#    built through mcount-cc, traced with every function on, gives the
#    enter log event for event.  Both forms of a site: per-object tables
#    (mcount-cc links without relaxation: auipc ra + jalr ra) and
#    link-time mode (a relaxing link: jal ra), which objdump shows;
#    preloaded (through _mcount's PLT entry), linked in as PIE and
#    -static (switched on live from main by the C API).
#  - function_graph (SysTrace) where functions keep a frame pointer:
#    oracle.c against its enter and exit log, preloaded, linked in and
#    static; the variadic sum_va, whose return the library cannot find,
#    says noexit.  hazards.c and unwind.cc built the same way: longjmp,
#    siglongjmp, fork, backtrace, pthread_exit, cancellation and C++
#    exceptions through hijacked frames.
#  - Live switching under load (t/src/trace/toggle.c, SysTrace): threads
#    run the functions whose sites main switches on and off through the
#    library's fenced pages (rt/patch.c); no crash, every event well
#    formed, events after each enable, none after each disable; the
#    program's own SIGTRAP handler gets its ebreak and raise(), and its
#    own SIGSEGV handler each fault of a worker that writes to a
#    read-only page while the library's SIGSEGV handler is installed.
#  - Function events (SysTrace): t/src/trace/args.c's arguments against
#    its own log, built with -g at -O2 (moved into callee-saved
#    registers, or only "the entry value of a0" to DWARF, which the
#    library follows through the prologue's copies; the ninth on the
#    caller's stack) and at -O0 (the frame base from .debug_frame: GCC
#    writes no .eh_frame for C here); prototypes given and bare globs,
#    text, JSON and function_graph.
#  - Lua 5.4 (Debian's source, built through mcount-cc) running a script
#    with every function traced, under each tracer (SysTrace's
#    lua_checks): its output unchanged, every event of a function nm
#    shows, and under function_graph every hooked call returns (built with frame pointers).
# Everything runs in one boot: a check of another program is one more
# job in @jobs, its files in %files, and its checks after the boot.
#  - A -pg shared library beside its program, preloaded, bound lazily
#    and at start-up: every event of its functions (SysTrace's plug).
#  - Table entries that are no calls to the hook (riscv64/badsite.S),
#    one of them a call to a function named _mcount two bytes into a
#    4-byte instruction: each refused with a message, never written.
#  - The preloaded program stripped: no symbol and no .eh_frame for its
#    functions (GCC writes none for riscv64 C), every site still taken.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP must run_cmd);
use TraceTest qw($TSRC);
use RV64System qw($RV64CC $RV64CXX $RV64SYSROOT rv64_boot);
use SysTrace qw(sys_start boot_checks machine_checks oracle_jobs oracle_checks graph_checks hazards_jobs
    hazards_checks @HAZARDS_LIBS toggle_jobs toggle_checks tear_jobs args_jobs args_checks lua_jobs lua_checks
    plug_jobs plug_checks badsite_job badsite_checks stripped_job stripped_checks);

my $QEMU_USER = 'qemu-riscv64';
my $RV64 = "$TOP/build/riscv64";
my $dir = sys_start('riscv64', lib => $RV64,
    tools => [[$QEMU_USER, 'qemu-user'], [$RV64CXX, 'g++-12-riscv64-linux-gnu']]);

# ---- builds ----
must($RV64CC, '-O2', '-static', '-o', "$dir/smc", "$TSRC/sys/smc.c");
must($RV64CC, '-O2', '-shared', '-fPIC', '-o', "$dir/libplug.so", "$TSRC/plug.c");
my $PRE = '/lib/mt/libplug.so';
my %files = ('/smc' => "$dir/smc", $PRE => "$dir/libplug.so");
# name, compile flags, link flags, 'so' or 'a', job env, mcount-cc env
my %LINK = (MCOUNT_CC_MODE => 'link');
# (function_graph: the programs that keep a frame pointer, whose return
# addresses the library can find and hijack; SysTrace, rt.h)
my @FP = ('-fno-omit-frame-pointer');
my @variants = (['pie-preloaded', [], [], 'so'], ['pie-linked', [], [], 'a'],
    ['static-linked', [], ['-static'], 'a'], ['link-preloaded', [], [], 'so', {}, \%LINK],
    ['link-static', [], ['-static'], 'a', {}, \%LINK], ['fp-preloaded', \@FP, [], 'so', {}, {}, 1],
    ['fp-linked', \@FP, [], 'a', {}, {}, 1], ['fp-link-static', \@FP, ['-static'], 'a', {}, \%LINK, 1]);
my @jobs = ({ name => 'smc', argv => ['/smc'] }, tear_jobs(cc => $RV64CC, dir => $dir, files => \%files),
    { name => 'preload', argv => ['/plain', 3], env => { LD_PRELOAD => $PRE, LD_DEBUG => 'files' } },
    oracle_jobs(cc => $RV64CC, lib => $RV64, dir => $dir, files => \%files, variants => \@variants),
    hazards_jobs(cc => $RV64CC, cxx => $RV64CXX, dir => $dir, files => \%files, cflags => \@FP),
    toggle_jobs(cc => $RV64CC, lib => $RV64, dir => $dir, files => \%files));
# function events: args.c's arguments where its DWARF says they are
push @jobs, args_jobs(cc => $RV64CC, dir => $dir, files => \%files, name => 'args', cflags => ['-g'], dwarf => 1),
    args_jobs(cc => $RV64CC, dir => $dir, files => \%files, name => 'args-O0', cflags => ['-g', '-O0'], dwarf => 1);
# a real program nobody here wrote, with frame pointers (function_graph)
push @jobs, lua_jobs(cc => $RV64CC, dir => $dir, files => \%files, name => 'lua', cflags => \@FP);
# a -pg shared library beside the program
push @jobs, plug_jobs(cc => $RV64CC, dir => $dir, files => \%files);
# table entries that are no calls to the hook, or not at an instruction;
# the program stripped (no symbol, no .eh_frame for its functions: where
# its instructions start is read back from each site)
push @jobs, badsite_job(cc => $RV64CC, dir => $dir, files => \%files, asm => "$TSRC/riscv64/badsite.S"),
    stripped_job(dir => $dir, files => \%files, strip => 'riscv64-linux-gnu-strip', from => 'pie-preloaded');

# ---- one boot ----
my $r = boot_checks('', \&rv64_boot, files => \%files, jobs => \@jobs, timeout => 900, libs => \@HAZARDS_LIBS);

# ---- the machine runs the code it has; a dynamically linked program ----
# (tear.c's notes: why the library fences pages, rt/arch-riscv64.c)
my ($uout, $ust) = machine_checks($r, dir => $dir, qemu_user => $QEMU_USER, sysroot => $RV64SYSROOT,
    ldso => 'lib/ld-linux-riscv64-lp64d.so.1');
my $q = $r->{preload} // {};
is($q->{status}, $ust, "with $PRE preloaded it exits the same") or diag $q->{stderr} // '';
is($q->{stdout}, $uout, 'and prints the same');
like($q->{stderr} // '', qr{calling init: \Q$PRE\E}, "the dynamic linker loaded and initialised $PRE")
    or diag $q->{stderr} // '';

# ---- the tracer: the oracle, both forms of a site ----
# objdump's view of each variant's calls to the hook: the relaxed `jal`
# or the pair (whose jalr objdump annotates with the target).
for my $v (@variants) {
    my ($name, undef, undef, undef, undef, $ccenv) = @$v;
    my ($dst, $dis) = run_cmd(['riscv64-linux-gnu-objdump', '-d', "$dir/$name"]);
    my %form;
    for (split /\n/, $dis) {
        $form{jal}++ if /\tjal\s+\S+ <_?mcount(?:\@plt)?>/;
        $form{pair}++ if /\tjalr\s+(?:ra|-?\d+\(ra\)) # \S+ <_?mcount(?:\@plt)?>/;
    }
    my $link = %{ $ccenv // {} } ? 1 : 0;
    my $want = $link ? 'jal' : 'pair';
    ok($form{$want} && $form{$want} >= 8 && !$form{ $want eq 'jal' ? 'pair' : 'jal' },
        "$name: objdump shows its sites as " . ($link ? 'jal ra (a relaxing link)' : 'auipc ra + jalr ra')
        . ' (' . join(', ', map { "$_ $form{$_}" } sort keys %form) . ')');
}
oracle_checks($r, dir => $dir, variants => \@variants, want_out => $uout);

# ---- function_graph, where functions keep a frame pointer ----
# sum_va, variadic, saves its argument registers at the top of its frame
# and points s0 below them, not at the CFA: its return-address slot is
# not just below its caller's sp, where the trampoline would look
graph_checks($r, dir => $dir, variants => \@variants, want_out => $uout, noexit => ['sum_va']);
hazards_checks($r, dir => $dir);

# ---- live switching behind fenced pages ----
toggle_checks($r, dir => $dir);

# ---- function events ----
args_checks($r, dir => $dir, name => $_, dwarf => 1) for 'args', 'args-O0';

# ---- lua ----
lua_checks($r, dir => $dir, name => 'lua');
plug_checks($r, dir => $dir);

# ---- sites the library must leave alone; a stripped program ----
# (bad_more1's entry is a call to a function named _mcount, two bytes
# into a 4-byte instruction: --verify says the same of it, from objdump)
badsite_checks($r, refused => [['bad_local', 'a call to something other than the hook'],
    ['bad_stub', 'a call to something other than the hook'], ['bad_next', 'an auipc ra not followed by jalr ra'],
    ['bad_word', 'not a call instruction'], ['bad_more1', 'not at the start of an instruction (decoded back from it)']]);
{
    my ($st, undef, $err) = run_cmd([$^X, "$TOP/bin/mcount-record", '--verify', "$dir/badsite"]);
    like($err, qr/^mcount-record: \S+: 0x[0-9a-f]+ bad_more1\+0xa\/0x[0-9a-f]+: entry is not at the start of an instruction \(it is 2 bytes into the instruction at 0x[0-9a-f]+\)$/m,
        'badsite: mcount-record --verify: bad_more1\'s entry is 2 bytes into an instruction') or diag $err;
}
stripped_checks($r, dir => $dir, want_out => $uout);

done_testing();
