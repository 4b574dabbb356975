#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# libmcount-trace on mips64el (n64: build/mips64el/), under full-system
# emulation: Debian's 5kc-malta kernel booted by qemu-system-mips64el on
# the malta board, a MIPS64 release 2 CPU (t/lib/QemuSystem.pm says why
# not qemu-user).
#
#  - The machine runs code changed through /proc/self/mem, as the tracer
#    changes it (t/src/trace/sys/smc.c: a function's first instruction
#    rewritten twice, its page never writable, the cacheflush system
#    call): "f 1 2 3"; under qemu-mips64el the same program prints
#    "f 1 1 1".  tear.c shows (a note, not a check) how often another
#    thread reads a 4-byte write through /proc/self/mem half made.
#  - A dynamically linked mips64el program (oracle.c, no tracer) runs in
#    the guest through the dynamic linker and C library the initramfs
#    lays out as Debian does, as under qemu-mips64el with the cross C
#    library.
#  - The -finstrument-functions oracle (t/lib/SysTrace.pm): oracle.c
#    built through mcount-cc, traced with every function on, gives the
#    enter log event for event; with no filter, no event.  Both forms of
#    a site, which objdump shows: `ld t9` from the GOT and `jalr t9`
#    (preloaded: the slot is in the GOT's global part, which the dynamic
#    linker fills without a relocation) and `ld t9` and `bal _mcount`
#    (linked in as PIE and -static, switched on live from main by the C
#    API); off, the second word is `nop`.
#  - The preloaded program stripped of every symbol: gp is then the
#    primary GOT's, no site refused, the enter log event for event.
#  - Table entries that are no calls to the hook
#    (t/src/trace/mips64el/badsite.S: a jalr through a GOT slot of
#    another function, a bal to another function, an ld t9 followed by
#    neither, no ld t9 at all): each refused with a message, never
#    written; the calls still run.
#  - Live switching under load (t/src/trace/toggle.c, SysTrace): threads
#    run the functions whose sites main switches on and off, behind
#    fenced pages, in a -static program (bal <-> nop) and in a PIE linked
#    with the shared library (jalr t9 <-> nop), on one CPU (the fence
#    holds no thread off here: qemu's CPU has no execute-inhibit bit, a
#    PROT_READ page runs; the writes, the cacheflush calls and the
#    library's SIGSEGV handling are what is shown); no crash, every event
#    well formed, events after each enable, none after each disable; the
#    program's own SIGTRAP handler gets its trap and raise(), and its own
#    SIGSEGV handler each fault of a worker.  The cacheflush system call
#    after each batch, which the emulator cannot show missing, is read
#    from the library's code.
#  - function_graph (SysTrace): oracle.c against its enter and exit log,
#    preloaded, linked in and static; the slot is the one the prologue
#    stored ra in at the top of its frame (read by the library); the
#    functions whose prologue stores none there (leaves, main: it saves
#    floating-point registers above ra) are recorded without their
#    returns (noexit), and they are exactly those objdump shows so;
#    hazards.c and unwind.cc: longjmp, siglongjmp, fork, backtrace,
#    pthread_exit, cancellation and C++ exceptions through hijacked
#    frames (C++ with per-object tables).
#  - Function events (SysTrace): t/src/trace/args.c's arguments against
#    its own log (a0-a7 as the caller left them: GCC's call to _mcount
#    is text it does not see as a call; the ninth above the slot of ra),
#    at -O2 and -O0, by prototype and by bare glob (DWARF's types).
#  - Lua 5.4 (Debian's source, built through mcount-cc) running a script
#    with every function traced, under each tracer (SysTrace's
#    lua_checks): its output unchanged, every event of a function nm
#    shows, and under function_graph every hooked call returns.
# Everything runs in one boot: a check of another program is one more
# job in @jobs, its files in %files, and its checks after the boot.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP must run_cmd);
use TraceTest qw($TSRC);
use QemuSystem qw(%SYS sys_boot);
use SysTrace qw(sys_start boot_checks machine_checks oracle_jobs oracle_checks graph_checks hazards_jobs
    hazards_checks @HAZARDS_LIBS toggle_jobs toggle_checks tear_jobs badsite_job badsite_checks stripped_job
    stripped_checks args_jobs args_checks lua_jobs lua_checks);

my $CC = $SYS{mips64el}{cc};
my $CXX = $SYS{mips64el}{cxx};
my $QEMU_USER = 'qemu-mips64el';
my $OBJDUMP = 'mips64el-linux-gnuabi64-objdump';
my $MIPS = "$TOP/build/mips64el";
my $dir = sys_start('mips64el', lib => $MIPS, tools => [[$QEMU_USER, 'qemu-user'],
    [$OBJDUMP, 'binutils-mips64el-linux-gnuabi64'], [$CXX, 'g++-12-mips64el-linux-gnuabi64']]);

# ---- builds ----
must($CC, '-O2', '-static', '-o', "$dir/smc", "$TSRC/sys/smc.c");
my %files = ('/smc' => "$dir/smc");
# name, compile flags, link flags, 'so' or 'a'
my @variants = (['pie-preloaded', [], [], 'so'], ['pie-linked', [], [], 'a'],
    ['static-linked', [], ['-static'], 'a']);
my @jobs = ({ name => 'smc', argv => ['/smc'] }, tear_jobs(cc => $CC, dir => $dir, files => \%files),
    oracle_jobs(cc => $CC, lib => $MIPS, dir => $dir, files => \%files, variants => \@variants, graph => 1),
    hazards_jobs(cc => $CC, cxx => $CXX, dir => $dir, files => \%files, cxx_object => 1),
    toggle_jobs(cc => $CC, lib => $MIPS, dir => $dir, files => \%files),
    toggle_jobs(cc => $CC, lib => $MIPS, dir => $dir, files => \%files, name => 'toggle-so', shared => 1),
    badsite_job(cc => $CC, dir => $dir, files => \%files, asm => "$TSRC/mips64el/badsite.S"),
    stripped_job(dir => $dir, files => \%files, strip => 'mips64el-linux-gnuabi64-strip'));
# function events: args.c's arguments in a0-a7 and above the slot of ra
push @jobs, args_jobs(cc => $CC, dir => $dir, files => \%files, name => 'args', cflags => ['-g'], dwarf => 1),
    args_jobs(cc => $CC, dir => $dir, files => \%files, name => 'args-O0', cflags => ['-g', '-O0']);
# a real program nobody here wrote
push @jobs, lua_jobs(cc => $CC, dir => $dir, files => \%files, name => 'lua');

# ---- one boot ----
my $r = boot_checks('', sub { sys_boot('mips64el', @_) }, files => \%files, jobs => \@jobs, timeout => 600,
    libs => \@HAZARDS_LIBS);

# ---- the machine runs the code it has; a dynamically linked program ----
my ($uout) = machine_checks($r, dir => $dir, qemu_user => $QEMU_USER, sysroot => '/usr/mips64el-linux-gnuabi64',
    ldso => 'lib64/ld.so.1');

# ---- the tracer: the oracle, both forms of a site ----
# objdump's view of each variant's calls to the hook: the word after the
# `ld t9` that follows `move at, ra`, and what it calls.
for my $v (@variants) {
    my ($name, undef, undef, $mode) = @$v;
    my ($dst, $dis) = run_cmd([$OBJDUMP, '-d', "$dir/$name"]);
    my (%form, $state);
    for (split /\n/, $dis) {
        next unless /\A\s*[0-9a-f]+:\s+[0-9a-f]{8}\s+(\S+)\s*(.*)/;
        my ($op, $rest) = ($1, $2);
        if (($state // '') eq 'ld') {
            $form{ $op eq 'jalr' && $rest eq 't9' ? 'jalr t9' : $op eq 'bal' && $rest =~ /<_mcount>/
                ? 'bal _mcount' : "other ($op $rest)" }++;
            $state = undef;
        } elsif (($state // '') eq 'move') {
            $state = $op eq 'ld' && $rest =~ /\At9,-?\d+\(gp\)\z/ ? 'ld' : undef;
        } else {
            $state = $op eq 'move' && $rest eq 'at,ra' ? 'move' : undef;
        }
    }
    my $want = $mode eq 'so' ? 'jalr t9' : 'bal _mcount';
    ok($form{$want} && $form{$want} >= 8 && keys %form == 1,
        "$name: objdump shows its sites as move at,ra; ld t9,N(gp); $want ("
        . join(', ', map { "$_ $form{$_}" } sort keys %form) . ')');
}
oracle_checks($r, dir => $dir, variants => \@variants, want_out => $uout);

# ---- a stripped program: gp without a symbol ----
stripped_checks($r, dir => $dir, want_out => $uout);

# ---- entries that are no calls to the hook: refused, never written ----
badsite_checks($r, refused => [['bad_local', 'a call to something other than the hook'],
    ['bad_stub', 'a call to something other than the hook'],
    ['bad_next', 'an ld t9 not followed by jalr t9 or bal'],
    ['bad_word', 'not a call instruction (no ld t9 from the GOT)']]);

# ---- function_graph ----
# The functions whose returns cannot be hooked, as objdump shows their
# prologues: those that store no ra at the top of their frame (daddiu
# sp,sp,-F then sd ra,F-8(sp)) before their site, leaves among them.
my %pro = prologues("$dir/pie-preloaded");
my @noexit = sort grep { $pro{$_} eq 'other' } keys %pro;
ok(keys %pro >= 8 && grep({ $pro{$_} eq 'frame' } keys %pro) >= 5,
    'objdump: the functions of oracle.c that store ra at their frame\'s top before their site ('
    . join(' ', sort grep { $pro{$_} eq 'frame' } keys %pro) . "), and the others (@noexit)");
# (linked in, tracing starts in main, whose entry is not traced)
graph_checks($r, dir => $dir, variants => [grep { $_->[3] eq 'so' } @variants], graph => 1, want_out => $uout,
    noexit => \@noexit);
graph_checks($r, dir => $dir, variants => [grep { $_->[3] eq 'a' } @variants], graph => 1, want_out => $uout,
    noexit => [grep { $_ ne 'main' } @noexit]);

my %hpro = (prologues("$dir/hazards"), prologues("$dir/unwind"));
hazards_checks($r, dir => $dir, noexit => [sort grep { $hpro{$_} eq 'other' } keys %hpro]);

# ---- live switching behind fenced pages ----
toggle_checks($r, dir => $dir);
toggle_checks($r, dir => $dir, name => 'toggle-so');

# ---- function events ----
args_checks($r, dir => $dir, name => 'args', dwarf => 1);
args_checks($r, dir => $dir, name => 'args-O0');

# ---- lua ----
lua_checks($r, dir => $dir, name => 'lua');

# The cache maintenance after each batch cannot be seen in the guest:
# qemu's TCG models no instruction cache (a write drops the blocks
# translated from its page, whoever makes it).  So what the library
# runs after writing is read here: mips_sync_self makes the cacheflush
# system call (n64's number, 5197, into v0; syscall).
for my $lib ('so', 'a') {
    my ($st, $dis) = run_cmd([$OBJDUMP, '-d', "$MIPS/libmcount-trace.$lib"]);
    my ($body) = $dis =~ /<mips_sync_self>:\n(.*?)(?:\n\n|\z)/s;
    my @ops = map { /\A\s*[0-9a-f]+:\s+[0-9a-f]{8}\s+(\S+\s*\S*)/ ? $1 : () } split /\n/, $body // '';
    my $sc = join '; ', grep { /\A(?:li|daddiu|addiu|move)\s+v0,/ || /\Asyscall/ } @ops;
    like($sc, qr/v0,(?:zero,)?5197;.*syscall/, "libmcount-trace.$lib: after writing, the cacheflush system call ($sc)");
}

done_testing();

# Each function of FILE with a site (move at,ra; ld t9,N(gp)) as objdump
# shows it (C++ names demangled, as the library shows them): 'frame'
# where its prologue stored ra at the top of its frame before the site
# (daddiu sp,sp,-F then sd ra,F-8(sp)), else 'other'.
sub prologues {
    my ($file) = @_;
    my ($st, $dis) = run_cmd([$OBJDUMP, '-dC', $file]);
    my ($fn, $down, $ra, $prev, %pro);
    for (split /\n/, $dis) {
        if (/\A[0-9a-f]+ <(.+)>:\z/) {
            ($fn, $down, $ra, $prev) = ($1, 0, undef, '');
            next;
        }
        next unless defined $fn && /\A\s*[0-9a-f]+:\s+[0-9a-f]{8}\s+(\S+)\s*(\S*)/;
        my ($op, $args) = ($1, $2);
        $down -= $1 if "$op $args" =~ /\Adaddiu sp,sp,(-?\d+)\z/;
        $ra = $1 if "$op $args" =~ /\Asd ra,(-?\d+)\(sp\)\z/;
        if ($prev eq 'move at,ra' && $op eq 'ld' && $args =~ /\At9,/ && !exists $pro{$fn}) {
            $pro{$fn} = defined $ra && $down > 8 && $ra == $down - 8 ? 'frame' : 'other';
        }
        $prev = "$op $args";
    }
    return %pro;
}
