# SPDX-License-Identifier: GPL-2.0-or-later
package PPC64Trace;
# The tracer's checks on ppc64 under qemu-system-ppc64 on the pseries
# machine, for the ABIs the library is built for: ppc64le (ELFv2, t/87),
# big-endian ppc64 (ELFv1, t/94) and ppc32 programs on the same kernel
# (t/95, fewer checks: below).  What differs between them is in
# %ABI: the TOC save slot a call stub uses and the restore after its
# site reads (24(r1), 40(r1)), how objdump names a call to _mcount in the
# same module (ELFv2: its local entry, _mcount+8; ELFv1: its code,
# ._mcount, after the descriptor), badsite.S's words and the tools'
# names; C++ gets its table at the link on all three.
# ppc32's site comes before the frame, after `stw r0,4(r1)`, and calls
# glibc's own _mcount, which every -pg program links from
# libc_nonshared.a: the library gets the calls through the function that
# _mcount calls in libc.so.6, __mcount_internal, which it defines
# instead of _mcount, and is preloaded as on ppc64.  The test files say
# what is checked.
use strict;
use warnings;
use Test::More;

use Exporter 'import';
use TestUtil qw($TOP must run_cmd);
use TraceTest qw($TSRC);
use QemuSystem qw(%SYS sys_boot);
use SysTrace qw(sys_start guest_jobs boot_checks machine_checks oracle_checks graph_checks hazards_checks
    @HAZARDS_LIBS toggle_checks args_checks badsite_checks stripped_checks lua_checks plug_checks);

our @EXPORT_OK = qw(ppc64_trace);

my %ABI = (
    ppc64le => { toc => 24, local => qr/_mcount\+0x8/, local_name => "_mcount's local entry",
        binutils => 'binutils-powerpc64le-linux-gnu', gxx => 'g++-12-powerpc64le-linux-gnu' },
    # the call stubs' endings (ELFv1): where the program calls
    # pthread_create, ld makes them thread-safe by itself
    ppc64 => { toc => 40, local => qr/\._mcount/, local_name => "_mcount's code (._mcount)",
        stubs => [['pie-preloaded', 'bctr'], ['toggle-so', 'cmpldi r2,0; bnectr+; b']],
        binutils => 'binutils-powerpc64-linux-gnu', gxx => 'g++-12-powerpc64-linux-gnu' },
    ppc => { binutils => 'binutils-powerpc-linux-gnu', gxx => 'g++-12-powerpc-linux-gnu', qemu_user => 'qemu-ppc' },
);

# ppc64_trace(ARCH): every check, in one boot.
sub ppc64_trace {
    my ($arch) = @_;
    my $a = $ABI{$arch} // die "PPC64Trace: no architecture '$arch'";
    my $s = $SYS{$arch};
    my ($CC, $CXX, $T) = ($s->{cc}, $s->{cxx}, $s->{triplet});
    my $QEMU_USER = $a->{qemu_user} // "qemu-$arch";
    my $OBJDUMP = "$T-objdump";
    my $LIB = "$TOP/build/$arch";
    my $toc = $a->{toc};           # ppc64's ABIs; none on ppc32
    my $dir = sys_start($arch, lib => $LIB, tools => [[$QEMU_USER, 'qemu-user'], [$OBJDUMP, $a->{binutils}],
        [$CXX, $a->{gxx}]]);
    my $restore = $toc ? "ld r2,$toc(r1)" : '';

    # ---- builds ----
    my %files;
    # name, compile flags, link flags, 'so' or 'a'; each also under
    # function_graph (the return address's slot is the ABI's, whatever the
    # function: no frame pointer needed)
    my @variants = (['pie-preloaded', [], [], 'so'], ['pie-linked', [], [], 'a'],
        ['static-linked', [], ['-static'], 'a']);
    # function events: args.c's arguments where its DWARF says they are
    # (ppc32: where the caller left them); lua, a real program nobody here
    # wrote
    my @jobs = guest_jobs(cc => $CC, cxx => $CXX, lib => $LIB, dir => $dir, files => \%files,
        variants => \@variants, badsite => "$TSRC/$arch/badsite.S", strip => "$T-strip",
        args2 => ['args-O0', ['-g', '-O0'], 1]);

    # ---- one boot ----
    my $r = boot_checks('', sub { sys_boot($arch, @_) }, files => \%files, jobs => \@jobs, timeout => 600,
        libs => \@HAZARDS_LIBS);

    # ---- the machine runs the code it has; a dynamically linked program ----
    my ($uout) = machine_checks($r, dir => $dir, qemu_user => $QEMU_USER, sysroot => $s->{sysroot},
        ldso => ($s->{interp_dir} // 'lib') . "/$s->{ldso}");

    # ---- the tracer: the oracle, both forms of a site ----
    # objdump's view of each variant's calls to the hook and the word after
    # each: through a PLT call stub (the TOC restore after it) or to
    # _mcount in the same module (a nop after it).
    for my $v ($toc ? @variants : ()) {
        my ($name, undef, undef, $mode) = @$v;
        my ($dst, $dis) = run_cmd([$OBJDUMP, '-d', "$dir/$name"]);
        my (%form, $call);
        for (split /\n/, $dis) {
            next unless /\A\s*[0-9a-f]+:\s+(?:[0-9a-f]{2} ){4}\s*(\S+)\s*(.*)/;
            my ($op, $rest) = ($1, $2);
            if ($call) {
                $form{ "$call " . ($op eq 'nop' ? 'nop' : $op eq 'ld' && $rest =~ /\Ar2,$a->{toc}\(r1\)/ ? 'toc'
                    : 'other') }++;
            }
            $call = undef;
            next unless $op eq 'bl';
            if ($rest =~ /<\w+\.plt_call\._mcount(?:\@\@GLIBC[\d._]+)?>/) {
                $call = 'stub';
            } elsif ($rest =~ /<$a->{local}>/) {
                $call = 'local';
            } elsif ($rest =~ /<\.?_mcount[^>]*>/) {
                $call = 'other';
            }
        }
        my $want = $mode eq 'so' ? 'stub toc' : 'local nop';
        ok($form{$want} && $form{$want} >= 8 && keys %form == 1,
            "$name: objdump shows its sites as " . ($mode eq 'so' ? "bl to a PLT call stub, then $restore"
                : "bl to $a->{local_name}, then nop") . ' (' . join(', ', map { "$_ $form{$_}" } sort keys %form)
            . ')');
    }
    # ppc32: each bl to _mcount after stw r0,4(r1), to glibc's _mcount
    # in the program, whichever way the library comes
    for my $v ($toc ? () : @variants) {
        my ($name, undef, undef, $mode) = @$v;
        my ($dst, $dis) = run_cmd([$OBJDUMP, '-d', "$dir/$name"]);
        my (%form, $prev);
        for (split /\n/, $dis) {
            next unless /\A\s*[0-9a-f]+:\s+(?:[0-9a-f]{2} ){4}\s*(\S+)\s*(.*)/;
            my ($op, $rest) = ($1, $2);
            if ($op eq 'bl' && $rest =~ /<(_mcount(?:\@plt)?)>/) {
                $form{ ($prev // '') eq 'stw r0,4(r1)' ? $1 : "$1 after " . ($prev // 'nothing') }++;
            }
            $prev = "$op $rest";
        }
        my $want = '_mcount';
        ok($form{$want} && $form{$want} >= 8 && keys %form == 1,
            "$name: objdump shows its sites as stw r0,4(r1); bl $want ("
            . join(', ', map { "$_ $form{$_}" } sort keys %form) . ')');
    }
    # the forms of the call stub to _mcount the library reads, as
    # objdump shows them
    for my $st (@{ $a->{stubs} // [] }) {
        my ($name, $end) = @$st;
        my ($dst, $dis) = run_cmd([$OBJDUMP, '-d', "$dir/$name"]);
        my ($body) = $dis =~ /<\w+\.plt_call\._mcount[^>]*>:\n(.*?)(?:\n\n|\z)/s;
        my @ops = map { /\A\s*[0-9a-f]+:\s+(?:[0-9a-f]{2} ){4}\s*(\S+)\s*(\S*)/ ? ($2 eq '' ? $1 : "$1 $2") : () }
            split /\n/, $body // '';
        my $seq = join '; ', map { s/ [0-9a-f]+\z//r } grep { !/\A\.long/ } @ops;
        like($seq, qr/\Astd r2,40\(r1\); (?:addis r11,r2,-?\d+; )?ld r12,-?\d+\(r(?:2|11)\); mtctr r12; ld r2,-?\d+\(r(?:2|11)\); \Q$end\E\z/,
            "$name: objdump shows its stub to _mcount ending in $end ($seq)");
    }
    oracle_checks($r, dir => $dir, variants => \@variants, want_out => $uout);

    # ---- a stripped program: a stub's TOC pointer without a symbol ----
    stripped_checks($r, dir => $dir, want_out => $uout);

    # ---- entries that are no calls to the hook: refused, never written ----
    badsite_checks($r, refused => $toc ? [['bad_local', 'a call to something other than the hook'],
        ['bad_stub', 'a call to something other than the hook'],
        ['bad_next', "a bl followed by neither nop nor $restore"], ['bad_word', 'not a call instruction']]
        : [['bad_local', 'a call to something other than the hook'], ['bad_stub', 'a bl not after stw r0,4(r1)'],
        ['bad_next', "a call to an _mcount that keeps the registers otherwise than glibc's"],
        ['bad_word', 'not a call instruction'],
        ['bad_more1', 'a call to an _mcount that does not call __mcount_internal']]);

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
    plug_checks($r, dir => $dir);
    toggle_checks($r, dir => $dir, name => 'toggle-so');

    # The cache maintenance after each store cannot be seen in the guest:
    # qemu's TCG models no instruction cache (a write drops the blocks
    # translated from its page, whoever makes it), and the kernel flushes
    # for a write through /proc/self/mem anyway; the library without it
    # passes every check above.  GCC's __builtin___clear_cache is empty on
    # this target, so what the library runs after a store is read here
    # (ELFv1: objdump names the code after the descriptor, with a dot).
    for my $lib ('so', 'a') {
        my ($st, $dis) = run_cmd([$OBJDUMP, '-d', "$LIB/libmcount-trace.$lib"]);
        my ($body) = $dis =~ /<\.?mt_ppc_sync_range>:\n(.*?)(?:\n\n|\z)/s;
        my @ops = grep { /\A(?:dcbst|sync|hwsync|icbi|isync)\z/ }
            map { /\A\s*[0-9a-f]+:\s+(?:[0-9a-f]{2} ){4}\s*(\S+)/ ? $1 : () } split /\n/, $body // '';
        my $seq = join ' ', @ops;
        $seq =~ s/\b(\w+)(?: \1\b)+/$1/g;         # an unrolled loop's words once
        # (objdump says hwsync for sync; the path of an empty range has its
        # own sync and isync after the loops)
        like($seq, qr/\Adcbst (?:hw)?sync icbi isync\b/,
            "libmcount-trace.$lib: after a store, dcbst, sync, icbi, isync (rt/cpu.h: $seq)");
    }

    # Nothing of the library is mapped writable and executable at once.
    # ppc32: ld would make its BSS PLT, such a segment, for a library
    # that defines _mcount; it defines __mcount_internal instead.
    my ($pst, $ph) = run_cmd(["$T-readelf", '-lW', "$LIB/libmcount-trace.so"]);
    my @load = grep { /\A\s*LOAD\s/ } split /\n/, $ph // '';
    ok(@load >= 2 && !grep({ /\sRWE\s/ } @load), 'libmcount-trace.so: no LOAD segment writable and executable ('
        . scalar(@load) . ' LOAD segments)');
    my ($nst, $dsyms) = run_cmd(["$T-nm", '-D', '--defined-only', "$LIB/libmcount-trace.so"]);
    my %def = map { /\A[0-9a-f]+ [A-Za-z] (\S+)\z/ ? ($1 => 1) : () } split /\n/, $dsyms // '';
    my @want = $toc ? ('_mcount') : ('__mcount_internal');
    my @not = $toc ? () : ('_mcount');
    is_deeply([map { $def{$_} ? 1 : 0 } @want, @not], [(1) x @want, (0) x @not],
        'libmcount-trace.so defines ' . join(', ', @want) . (@not ? ', not ' . join(', ', @not) : ''));

    done_testing();
}

1;
