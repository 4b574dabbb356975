# SPDX-License-Identifier: GPL-2.0-or-later
package MipsTrace;
# The tracer's checks on little-endian MIPS under qemu-system-ARCH on the
# malta board, for both ABIs the library is built for: mips64el (n64,
# t/90) and mipsel (o32, t/92).  What differs between them is in %ABI:
# the word's loads, stores and additions, o32's push of 8 bytes before
# the call to _mcount (and `addiu sp, sp, 8` as its site's word off),
# the dynamic linker's directory and the cacheflush system call's
# number.  The test files say what is checked.
use strict;
use warnings;
use Test::More;

use Exporter 'import';
use TestUtil qw($TOP must run_cmd);
use TraceTest qw($TSRC);
use QemuSystem qw(%SYS sys_boot);
use SysTrace qw(sys_start guest_jobs boot_checks machine_checks oracle_checks graph_checks hazards_checks
    @HAZARDS_LIBS toggle_checks badsite_checks stripped_checks args_checks lua_checks plug_checks);

our @EXPORT_OK = qw(mips_trace);

my %ABI = (
    mips64el => { load => 'ld', store => 'sd', addiu => 'daddiu', word => 8, push => 0,
        cacheflush => 5197, binutils => 'binutils-mips64el-linux-gnuabi64', gxx => 'g++-12-mips64el-linux-gnuabi64',
        args_where => 'a0-a7 and above the slot of ra' },
    mipsel => { load => 'lw', store => 'sw', addiu => 'addiu', word => 4, push => 1,
        cacheflush => 4147, binutils => 'binutils-mipsel-linux-gnu', gxx => 'g++-12-mipsel-linux-gnu',
        args_where => 'a0-a3 and from 16 bytes above the caller\'s sp' },
);
$ABI{mips} = { %{ $ABI{mipsel} }, binutils => 'binutils-mips-linux-gnu', gxx => 'g++-12-mips-linux-gnu' };

# mips_trace(ARCH): every check, in one boot.
sub mips_trace {
    my ($arch) = @_;
    my $a = $ABI{$arch} // die "MipsTrace: no architecture '$arch'";
    my $s = $SYS{$arch};
    my ($CC, $CXX, $T) = ($s->{cc}, $s->{cxx}, $s->{triplet});
    my $QEMU_USER = "qemu-$arch";
    my $OBJDUMP = "$T-objdump";
    my $LIB = "$TOP/build/$arch";
    my $dir = sys_start($arch, lib => $LIB, tools => [[$QEMU_USER, 'qemu-user'], [$OBJDUMP, $a->{binutils}],
        [$CXX, $a->{gxx}]]);

    # ---- builds ----
    my %files;
    # name, compile flags, link flags, 'so' or 'a'
    my @variants = (['pie-preloaded', [], [], 'so'], ['pie-linked', [], [], 'a'],
        ['static-linked', [], ['-static'], 'a']);
    # function events: args.c's arguments in the argument registers and
    # on the caller's stack; lua, a real program nobody here wrote
    my @jobs = guest_jobs(cc => $CC, cxx => $CXX, lib => $LIB, dir => $dir, files => \%files,
        variants => \@variants, badsite => "$TSRC/mips/badsite.S", strip => "$T-strip");

    # ---- one boot ----
    my $r = boot_checks('', sub { sys_boot($arch, @_) }, files => \%files, jobs => \@jobs, timeout => 600,
        libs => \@HAZARDS_LIBS);

    # ---- the machine runs the code it has; a dynamically linked program ----
    my ($uout) = machine_checks($r, dir => $dir, qemu_user => $QEMU_USER, sysroot => $s->{sysroot},
        ldso => ($s->{interp_dir} // 'lib') . "/$s->{ldso}");

    # ---- the tracer: the oracle, both forms of a site ----
    # objdump's view of each variant's calls to the hook: the word after
    # the ld (lw) t9 that follows `move at, ra` (o32: and `addiu sp,
    # sp, -8`), and what it calls.
    my $lead = $a->{push} ? 'move at,ra; addiu sp,sp,-8' : 'move at,ra';
    for my $v (@variants) {
        my ($name, undef, undef, $mode) = @$v;
        my ($dst, $dis) = run_cmd([$OBJDUMP, '-d', "$dir/$name"]);
        my (%form, $state);
        for (split /\n/, $dis) {
            next unless /\A\s*[0-9a-f]+:\s+[0-9a-f]{8}\s+(\S+)\s*(.*)/;
            my ($op, $rest) = ($1, $2);
            if (($state // '') eq 'load') {
                $form{ $op eq 'jalr' && $rest eq 't9' ? 'jalr t9' : $op eq 'bal' && $rest =~ /<_mcount>/
                    ? 'bal _mcount' : "other ($op $rest)" }++;
                $state = undef;
            } elsif (($state // '') eq 'push') {
                $state = $op eq $a->{load} && $rest =~ /\At9,-?\d+\(gp\)\z/ ? 'load' : undef;
            } elsif (($state // '') eq 'move') {
                $state = $a->{push} ? ("$op $rest" eq 'addiu sp,sp,-8' ? 'push' : undef)
                    : $op eq $a->{load} && $rest =~ /\At9,-?\d+\(gp\)\z/ ? 'load' : undef;
            } else {
                $state = $op eq 'move' && $rest eq 'at,ra' ? 'move' : undef;
            }
        }
        my $want = $mode eq 'so' ? 'jalr t9' : 'bal _mcount';
        ok($form{$want} && $form{$want} >= 8 && keys %form == 1,
            "$name: objdump shows its sites as $lead; $a->{load} t9,N(gp); $want ("
            . join(', ', map { "$_ $form{$_}" } sort keys %form) . ')');
    }
    oracle_checks($r, dir => $dir, variants => \@variants, want_out => $uout);

    # ---- a stripped program: gp without a symbol ----
    stripped_checks($r, dir => $dir, want_out => $uout);

    # ---- entries that are no calls to the hook: refused, never written ----
    badsite_checks($r, refused => [['bad_local', 'a call to something other than the hook'],
        ['bad_stub', 'a call to something other than the hook'],
        ['bad_next', "an $a->{load} t9 not followed by jalr t9 or bal"],
        ['bad_word', "not a call instruction (no $a->{load} t9 from the GOT)"]]);

    # ---- function_graph ----
    # The functions whose returns cannot be hooked, as objdump shows their
    # prologues: those that store no ra at the top of their frame
    # (daddiu sp,sp,-F then sd ra,F-8(sp); o32: addiu, sw ra,F-4(sp))
    # before their site, leaves among them.
    my %pro = prologues($OBJDUMP, $a, "$dir/pie-preloaded");
    my @noexit = sort grep { $pro{$_} eq 'other' } keys %pro;
    ok(keys %pro >= 8 && grep({ $pro{$_} eq 'frame' } keys %pro) >= 5,
        'objdump: the functions of oracle.c that store ra at their frame\'s top before their site ('
        . join(' ', sort grep { $pro{$_} eq 'frame' } keys %pro) . "), and the others (@noexit)");
    # (linked in, tracing starts in main, whose entry is not traced)
    graph_checks($r, dir => $dir, variants => [grep { $_->[3] eq 'so' } @variants], graph => 1, want_out => $uout,
        noexit => \@noexit);
    graph_checks($r, dir => $dir, variants => [grep { $_->[3] eq 'a' } @variants], graph => 1, want_out => $uout,
        noexit => [grep { $_ ne 'main' } @noexit]);

    my %hpro = (prologues($OBJDUMP, $a, "$dir/hazards"), prologues($OBJDUMP, $a, "$dir/unwind"));
    hazards_checks($r, dir => $dir, noexit => [sort grep { $hpro{$_} eq 'other' } keys %hpro]);

    # ---- live switching behind fenced pages ----
    toggle_checks($r, dir => $dir);
    toggle_checks($r, dir => $dir, name => 'toggle-so');

    # ---- function events ----
    args_checks($r, dir => $dir, name => 'args', dwarf => 1);
    args_checks($r, dir => $dir, name => 'args-O0');

    # ---- lua ----
    lua_checks($r, dir => $dir, name => 'lua');

    # ---- a -pg shared library beside the program ----
    plug_checks($r, dir => $dir);

    # The cache maintenance after each batch cannot be seen in the guest:
    # qemu's TCG models no instruction cache (a write drops the blocks
    # translated from its page, whoever makes it).  So what the library
    # runs after writing is read here: mips_sync_self makes the
    # cacheflush system call (the ABI's number into v0; syscall).
    for my $lib ('so', 'a') {
        my $sc = sync_calls($OBJDUMP, "$LIB/libmcount-trace.$lib");
        like($sc, qr/v0=$a->{cacheflush}; syscall/,
            "libmcount-trace.$lib: after writing, the cacheflush system call ($sc)");
    }

    done_testing();
}

# What mips_sync_self of FILE puts in v0 before each syscall, as
# objdump shows it: "v0=N; syscall", the number followed through the
# registers it was moved through (li s0,N; move v0,s0).
sub sync_calls {
    my ($objdump, $file) = @_;
    my ($st, $dis) = run_cmd([$objdump, '-d', $file]);
    my ($body) = $dis =~ /<mips_sync_self>:\n(.*?)(?:\n\n|\z)/s;
    my (%val, @sc);
    for (split /\n/, $body // '') {
        next unless /\A\s*[0-9a-f]+:\s+[0-9a-f]{8}\s+(\S+)\s*(\S*)/;
        my ($op, $args) = ($1, $2);
        if ($op =~ /\A(?:li|daddiu|addiu)\z/ && $args =~ /\A(\w+),(?:zero,)?(-?\d+)\z/) {
            $val{$1} = $2;
        } elsif ($op eq 'move' && $args =~ /\A(\w+),(\w+)\z/) {
            $val{$1} = $val{$2} // $2;
        } elsif ($op eq 'syscall') {
            push @sc, 'v0=' . ($val{v0} // '?'), 'syscall';
        }
    }
    return join '; ', @sc;
}

# Each function of FILE with a site (move at,ra; then the load of t9, on
# o32 after addiu sp,sp,-8) as objdump shows it (C++ names demangled,
# as the library shows them): 'frame' where its prologue stored ra at
# the top of its frame before the site (daddiu sp,sp,-F then sd
# ra,F-8(sp); o32: addiu, sw ra,F-4(sp)), else 'other'.
sub prologues {
    my ($objdump, $a, $file) = @_;
    my ($st, $dis) = run_cmd([$objdump, '-dC', $file]);
    my ($fn, $down, $ra, @prev, %pro);
    for (split /\n/, $dis) {
        if (/\A[0-9a-f]+ <(.+)>:\z/) {
            ($fn, $down, $ra, @prev) = ($1, 0, undef);
            next;
        }
        next unless defined $fn && /\A\s*[0-9a-f]+:\s+[0-9a-f]{8}\s+(\S+)\s*(\S*)/;
        my ($op, $args) = ($1, $2);
        my $at_site = $a->{push} ? @prev >= 2 && $prev[-2] eq 'move at,ra' && $prev[-1] eq 'addiu sp,sp,-8'
            : @prev >= 1 && $prev[-1] eq 'move at,ra';
        if ($at_site && $op eq $a->{load} && $args =~ /\At9,/ && !exists $pro{$fn}) {
            # (o32: the push before the load is the site's, not the prologue's)
            $down -= 8 if $a->{push};
            $pro{$fn} = defined $ra && $down > $a->{word} && $ra == $down - $a->{word} ? 'frame' : 'other';
        }
        $down -= $1 if "$op $args" =~ /\A\Q$a->{addiu}\E sp,sp,(-?\d+)\z/;
        $ra = $1 if "$op $args" =~ /\A\Q$a->{store}\E ra,(-?\d+)\(sp\)\z/;
        push @prev, "$op $args";
    }
    return %pro;
}

1;
