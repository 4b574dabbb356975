# SPDX-License-Identifier: GPL-2.0-or-later
package I386Trace;
# The i386 guest of t/79-trace-system.t (its row of guests.tab; the
# check sets it names are SysTrace's, the rest is here).  What is checked:
# libmcount-trace on i386 (build/i386/, make rt-i386), where the i386
# programs can run: always in a full-system guest, Debian's amd64 kernel
# (IA32 emulation) under qemu-system-x86_64 without KVM (QemuSystem's
# i386 row; qemu-i386 does not run code changed through /proc/self/mem,
# as smc.c shows), and also on this host itself where it runs them
# (TestUtil's host_runs_i386; RECORDMCOUNT_TEST_I386=qemu says it does
# not).  The same jobs and the same checks (SysTrace) in both:
#
#  - The -finstrument-functions oracle: oracle.c built through mcount-cc,
#    traced with every function on, gives the enter log event for event;
#    with no filter, no event.  Every call form of src/arch.c's i386 row
#    (which must be the forms rt/arch-x86.c decodes) is the form of every
#    site of some variant, read from its table and its bytes: PIE
#    preloaded (`call *mcount@GOT(%ebx)`, ff 93), -no-pie preloaded
#    (e8 to the PLT), -mfentry non-PIC preloaded (e8 to __fentry__'s PLT
#    entry), -fcf-protection with an IBT PLT (endbr32 before the PLT's
#    jmp and before main's realignment), linked in as PIE (the linker's `67 e8`, or `90 e8` with -z
#    call-nop=prefix-0x90), -mfentry -no-pie linked in, -static (67 e8)
#    and -static -fno-pie (e8).  GCC's -mnop-mcount with its own table:
#    NOPs from the start, called when switched on (mcount preloaded,
#    main's DRAP frame never hijacked; __fentry__ linked in).
#  - function_graph against the enter and exit log (cyg_graph.c), for
#    mcount (the slot at 4(%ebp)) and __fentry__ (at 4(%esp)), preloaded
#    and linked in; hazards.c and unwind.cc (longjmp, fork, pthread_exit,
#    cancellation, C++ exceptions through the unwinder's interposers).
#    A function returning a structure returns by `ret $4`; main, which
#    realigns its stack through %ecx, is entered but never hijacked
#    under mcount (its 4(%ebp) is a copy of the return address).
#  - Table entries that are no calls to the hook (badsite.S: a mov, a
#    call of another function, a call through the GOT slot of getpid, a
#    NOP where -mnop-mcount puts none):
#    each refused, with its reason, the program untouched.
#  - Live switching under threads (toggle.c; also over GCC's -mnop-mcount
#    sites): the int3 protocol, the
#    program's own SIGTRAP handler gets its int3 and raise(), its SIGSEGV
#    handler each fault of a worker; events after each enable, none after
#    each disable.
#  - Function events (SysTrace): t/src/trace/args.c's arguments, all on
#    the caller's stack above the return address (mcount's 4(%ebp),
#    __fentry__'s 4(%esp)), against its own log: 64-bit ones in two
#    words, nine of them; by prototype and by bare glob (DWARF's types).
#  - Lua 5.4 (Debian's source, built through mcount-cc) running a script
#    with every function traced, under each tracer (SysTrace's
#    lua_checks): its output unchanged, every event of a function nm
#    shows, and under function_graph every hooked call returns.
#  - A -pg shared library beside its program, preloaded, bound lazily
#    and at start-up: every event of its functions (SysTrace's plug).
#  - Hooks (mcount_hook(3), SysTrace's hooks): hooks.c built with
#    __fentry__ (non-PIC) and with mcount (PIE), with SSE: the callbacks'
#    counts against the functions' own, argument 0 read from the
#    caller's stack, callbacks that change every register a called
#    function may (eax, ecx, edx; the x87 stack, whose st(0) carries a
#    floating-point value back, and whose registers are MMX's;
#    xmm0-xmm7) around functions with regparm, sseregparm, vector,
#    __m64, variadic and long double arguments and values, one
#    returning a structure by `ret $4`; live patching
#    of the __fentry__ build, ENOTSUP for mcount's.
use strict;
use warnings;
use Test::More;

use TestUtil qw($TOP must run_cmd host_runs_i386);
use TraceTest qw($TSRC hook_form plan_call_forms rt_call_forms form_has);
use QemuSystem qw(sys_boot sys_native);
use Oracle qw(code_bytes);
use SysTrace qw(graph_checks);

my %FENTRY = (MCOUNT_CC_FLAGS => '-pg -mfentry');
# GCC's -mnop-mcount (non-PIC) and its own table: NOPs from the start
my %NOP = (MCOUNT_CC_FLAGS => '-pg -mnop-mcount -mrecord-mcount');
my %NOP_FENTRY = (MCOUNT_CC_FLAGS => '-pg -mfentry -mnop-mcount -mrecord-mcount');
my @NOPIE = (['-fno-pie'], ['-no-pie']);
# SysTrace's variants (name, compile flags, link flags, so|a, job's env,
# mcount-cc's env, function_graph too), and the first bytes every site
# of each must have
my @variants = (['pie-preloaded', [], [], 'so', undef, undef, 1],
    ['nopie-preloaded', @NOPIE, 'so', undef, undef, 1],
    ['fentry-preload', @NOPIE, 'so', undef, \%FENTRY, 1],
    ['cet-preload', ['-fno-pie', '-fcf-protection'], ['-no-pie', '-Wl,-z,ibtplt'], 'so', undef, undef, 1],
    ['pie-linked', [], [], 'a', undef, undef, 1],
    ['pie-linked-nop', [], ['-Wl,-z,call-nop=prefix-0x90'], 'a'],
    ['fentry-linked', @NOPIE, 'a', undef, \%FENTRY, 1],
    ['static-linked', [], ['-static'], 'a'],
    ['nopie-static', ['-fno-pie'], ['-static'], 'a'],
    ['mnop-preload', @NOPIE, 'so', undef, \%NOP, 1],
    ['mnop-fentry-a', @NOPIE, 'a', undef, \%NOP_FENTRY, 1]);
my %bytes = ('pie-preloaded' => 'ff93', 'nopie-preloaded' => 'e8', 'fentry-preload' => 'e8', 'cet-preload' => 'e8',
    'pie-linked' => '67e8', 'pie-linked-nop' => '90e8', 'fentry-linked' => 'e8', 'static-linked' => '67e8',
    'nopie-static' => 'e8', 'mnop-preload' => '0f1f', 'mnop-fentry-a' => '0f1f');
my @BAD = (['bad_nop_fn\+0x5', 'a NOP already, where -mnop-mcount puts none (another tool changed it)', '0f 1f'],
    ['bad_framed_fn\+0x8', 'a NOP already, where -mnop-mcount puts none (another tool changed it)', '0f 1f'],
    ['bad_fn\+0', 'not a call instruction', 'b8 2a'],
    ['bad_call_fn\+0x1', 'a call to something other than the hook', 'e8'],
    ['bad_got_fn\+0x[0-9a-f]+', 'an indirect call through a GOT slot that holds no hook', 'ff 93']);

# guest(ROW): what SysTrace's guest_run takes of this guest.
sub guest {
    return { variants => \@variants,
        # function_graph for the variants of a 1
        graph_all => 0,
        # and over GCC's -mnop-mcount sites, whose calls the library writes
        toggles => [{}, { name => 'toggle-nop', cflags => ['-fno-pie'], ccenv => \%NOP_FENTRY }],
        # function events: args.c's arguments on the caller's stack
        args => [{ name => 'args', cflags => ['-g'], dwarf => 1 },
            { name => 'args-fentry', cflags => ['-mfentry', '-fno-pie'], ldflags => ['-no-pie'] }],
        hazards_noexit => ['main'],
        # hooks: __fentry__ (non-PIC: the site at the entry, redirects)
        # and mcount in a PIE; with SSE, whose registers carry vectors
        # and sseregparm's doubles, and MMX (nine functions a clobber round)
        hooks => [{ name => 'hooks-fentry', cflags => ['-fno-pie', '-msse2'], ldflags => ['-no-pie'], ccenv => \%FENTRY,
            redirect => 1, clobber => 9 }, { name => 'hooks-mcount', cflags => ['-msse2'], clobber => 9 }],
        jobs => \&jobs, runs => \&runs, graph => \&graph, checks => \&checks };
}

# badsite.S's job; the call forms of the variants, before the boot
sub jobs {
    my ($c) = @_;
    my ($cc, $dir, $files, $jobs) = @$c{qw(cc dir files jobs)};
    # Table entries that are no calls to the hook (badsite.S): a mov, a call
    # of another function, a call through the GOT slot of getpid and NOPs
    # after a mov (with a frame set up before it, and without), each refused
    # with its reason; the program runs as built.
    must($cc, '-c', "$TSRC/badsite.S", '-o', "$dir/badsite.o");
    must($cc, '-o', "$dir/badsite", "$dir/pie-preloaded.o", "$dir/cyg.o", "$dir/badsite.o");
    $files->{'/badsite'} = "$dir/badsite";
    push @$jobs, { name => 'badsite', argv => ['/badsite', 3], env => { LD_PRELOAD => '/lib/mt/libmcount-trace.so',
        MCOUNT_TRACE_FILTER => '*', MCOUNT_TRACE_OUTPUT => '/tmp/badsite.txt', CYG_LOG => '/tmp/badsite.cyg' } };

    # ---- the call forms: src/arch.c's row, rt/arch-x86.c's decoder, the sites ----
    my $plan = must("$TOP/build/mcount-scan", '--identify', "--object=$dir/pie-preloaded.o");
    like($plan, qr/^arch\ti386$/m, 'mcount-scan --identify: an i386 object');
    my $plan_forms = plan_call_forms($plan);
    my $rt_forms = rt_call_forms('i386');
    is_deeply([sort keys %$rt_forms], [sort keys %$plan_forms],
        'the runtime decodes exactly the call forms of src/arch.c\'s i386 row (opcode/mask/length): '
        . join(' ', sort keys %$rt_forms));
    my %covered;
    for my $v (@{ $c->{variants} }) {
        my $name = $v->[0];
        my $table = code_bytes("$dir/$name", '__mcount_loc') // '';
        my %seen;
        $seen{ hook_form("$dir/$name", $_) }++ for unpack 'V*', $table;
        my $want = $bytes{$name};
        is_deeply(\%seen, { $want => scalar(keys %seen) ? $seen{$want} // 0 : 0 },
            "$name: every site of its table is $want (" . join(', ', map { "$_ $seen{$_}" } sort keys %seen) . ')');
        cmp_ok($seen{$want} // 0, '>=', 8, "$name: its table has the sites");
        $covered{$_} = 1 for grep { form_has($_, $want) } keys %$plan_forms;
    }
    is_deeply([sort keys %covered], [sort keys %$plan_forms], 'each form of the row is some variant\'s');
    my ($ost, $dis) = run_cmd(['i686-linux-gnu-objdump', '-d', "$dir/fentry-preload"]);
    like($dis, qr/<leaf>:\n\s*[0-9a-f]+:\s+e8 [0-9a-f ]+\s+call\s+[0-9a-f]+ <__fentry__\@plt>/,
        'fentry-preload: the site is the first instruction, a call to __fentry__\'s PLT entry');
    ($ost, $dis) = run_cmd(['i686-linux-gnu-objdump', '-d', "$dir/cet-preload"]);
    like($dis, qr/<mcount\@plt>:\n\s*[0-9a-f]+:\s+f3 0f 1e fb\s+endbr32\n\s*[0-9a-f]+:\s+ff 25 /,
        'cet-preload: mcount\'s PLT entry is endbr32, jmp *slot (.plt.sec)');
    like($dis, qr/<main>:\n\s*[0-9a-f]+:\s+f3 0f 1e fb\s+endbr32\n\s*[0-9a-f]+:\s+8d 4c 24 04\s+lea/,
        'cet-preload: main starts with endbr32, then realigns its stack through %ecx');

    return;
}

# the runs: in the guest, and on this host where it can
sub runs {
    my @runs = (['guest', sub { sys_boot('i386', @_) }]);
    if (host_runs_i386()) {
        push @runs, ['native', \&sys_native];
    } else {
        note('this host does not run i386 programs (or RECORDMCOUNT_TEST_I386=qemu): the guest only');
    }
    return @runs;
}

# main realigns its stack (GCC's DRAP): mcount's 4(%ebp) is a copy of
# its return address, never hijacked; __fentry__ has the slot, and
# linked in, tracing starts inside main
sub graph {
    my ($c) = @_;
    my ($dir, $r, $uout) = @$c{qw(dir r uout)};
    for my $v (grep { $_->[6] } @{ $c->{variants} }) {
        my $fentry = ($v->[5] // {})->{MCOUNT_CC_FLAGS} // '';
        my $noexit = $v->[3] eq 'so' && $fentry !~ /-mfentry/ ? ['main'] : [];
        graph_checks($r, dir => $dir, variants => [$v], want_out => $uout, noexit => $noexit);
    }
    return;
}

# badsite.S's entries, each refused with its reason
sub checks {
    my ($c) = @_;
    my ($r, $uout) = @$c{qw(r uout)};
    my $b = $r->{badsite} // {};
    is($b->{status}, 0, 'badsite: exits 0 traced') or diag $b->{stderr} // '';
    is($b->{stdout}, $uout, 'badsite: the output of the plain build');
    my @msg = split /\n/, $b->{stderr} // '';
    is(scalar @msg, scalar @BAD, 'badsite: one message a bad entry') or diag $b->{stderr} // '';
    for my $i (0 .. $#BAD) {
        my ($at, $why, $bytes) = @{ $BAD[$i] };
        like($msg[$i] // '', qr/\Amcount-trace: badsite: 0x[0-9a-f]+ <$at>: \Q$why\E \(bytes \Q$bytes\E[ 0-9a-f]*\): left alone\z/,
            "badsite: $why: refused");
    }
    return;
}

1;
