# SPDX-License-Identifier: GPL-2.0-or-later
package ArmTrace;
# The arm guest of t/79-trace-system.t (its row of guests.tab; the
# check sets it names are SysTrace's, the rest is here).  What is checked:
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
#    on live from main by the C API); link-time mode's tables too
#    (preloaded in Thumb-2, -static in ARM state).
#  - Live switching under load (t/src/trace/toggle.c, SysTrace): threads
#    run the functions whose sites main switches on and off through the
#    library's fenced pages (rt/patch.c), Thumb-2 and ARM; no crash, every event well
#    formed, events after each enable, none after each disable; the
#    program's own SIGTRAP handler gets its breakpoint and raise(), and
#    its own SIGSEGV handler each fault of a worker.
#  - function_graph (SysTrace), every variant, against the enter and exit
#    log: the return address is found where the prologue pushed lr
#    (sum_va, variadic, pushes its argument registers first), or in lr
#    where it did not (rt/rt.h).  hazards.c and unwind.cc the same way:
#    longjmp, siglongjmp, fork, pthread_exit, cancellation, C++
#    exceptions through the Arm EHABI's unwinder.
#  - function_graph on functions that never save lr (leaves.c, -O2 and
#    -O0, Thumb-2 and ARM; objdump shows their prologues): every return
#    and its return value against the program's own log of them, tail
#    calls' returns after their callee's (from a function that pushed
#    nothing and from one that pushed registers).  leaves_eh.cc: C++ exceptions
#    through a tail call from a function that pushes nothing and through
#    a variadic one that saves lr after r0-r3 (its slot given back and
#    taken again by the unwinder wrappers).  graph_stress.c at -O0 (its leaves
#    push r7): threads, a profiling signal's handler and live switches
#    of the tracer, every result right.
#  - Function events (SysTrace): t/src/trace/args.c's arguments, typed by
#    prototypes, against its own log of them, in JSON and text and under
#    function_graph, both states: r0-r3 as __gnu_mcount_nc keeps them,
#    the rest from the caller's stack above the prologue's pushes, a
#    64-bit argument from an even pair of words (ints' f, on the stack).
#  - A -pg shared library beside its program, preloaded, bound lazily
#    and at start-up: every event of its functions (SysTrace's plug).
#  - Hooks (mcount_hook(3), SysTrace's hooks): hooks.c built with NEON,
#    Thumb-2 and ARM state, linked with the static library: the
#    callbacks' counts and the arguments they read (r0) against the
#    functions' own under 8 threads, register and unregister cycles,
#    longjmp through hooked frames, callbacks that change every register
#    a called function may (r0-r3, ip, d0-d7, d16-d31) around functions
#    whose arguments and values travel in d0-d7 (q0-q3) and r0-r3; no
#    redirect (ENOTSUP); the errors.
# Everything runs in one boot: a check of another program is one more
# job in @jobs, its files in %files, and its checks after the boot.
use strict;
use warnings;
use Test::More;

use TestUtil qw($TOP must run_cmd);
use TraceTest qw($TSRC nm_funcs read_graph_json trace_seqs);
use SysTrace qw(mcc_cc job_files %GRAPH_ENV trace_bias);

my @A32 = ('-marm');
# (the guest's, for the functions below: jobs and checks set them)
my ($cc, $cxx, $dir, $files, $jobs, $r);
my (@LEAVES, @EH, @GSTRESS);    # function_graph's builds (jobs)

# guest(ROW): what SysTrace's guest_run takes of this guest.
sub guest {
    # name, compile flags, link flags, 'so' or 'a', job env, mcount-cc env
    my %LINK = (MCOUNT_CC_MODE => 'link');
    return { variants => [['pie-preloaded', [], [], 'so'], ['pie-linked', [], [], 'a'],
            ['static-linked', [], ['-static'], 'a'], ['link-preloaded', [], [], 'so', {}, \%LINK],
            ['arm-preloaded', \@A32, [], 'so'], ['arm-linked', \@A32, [], 'a'],
            ['arm-static', \@A32, ['-static'], 'a'], ['arm-link-static', \@A32, ['-static'], 'a', {}, \%LINK]],
        toggles => [{}, { name => 'toggle-arm', cflags => \@A32 }],
        # function events: args.c's prototypes, both states
        args => [{ name => 'args' }, { name => 'args-arm', cflags => \@A32 }],
        # hooks (SysTrace's): __gnu_mcount_nc after the prologue, but
        # before the body: r0-r3 still hold the arguments (mcount_regs_arg
        # reads them, and the caller's stack where the prologue was read);
        # no redirect (ENOTSUP).  Built with NEON (the guest's Cortex-A57):
        # d16-d31 among what the callbacks change, vectors in q0-q3; eight
        # functions a clobber round; Thumb-2 and ARM state
        hooks => [{ name => 'hooks', cflags => ['-mfpu=neon'], clobber => 8 },
            { name => 'hooks-arm', cflags => ['-mfpu=neon', @A32], clobber => 8 }],
        # a real program nobody here wrote: Lua, Thumb-2
        lua_noexit => [], graph_noexit => [],
        jobs => \&jobs, forms => \&forms, checks => \&checks };
}

# A function_graph job NAME: SRC built through mcount-cc by CC with
# CFLAGS (LIBS at the link), run with ARGV, ENV added to %GRAPH_ENV; its
# trace in /tmp/NAME.json.
sub graph_build {
    my (%o) = @_;
    my $name = $o{name};
    mcc_cc($o{cc} // $cc, "$dir/$name.o", @{ $o{cflags} }, '-c', "$TSRC/$o{src}");
    mcc_cc($o{cc} // $cc, "$dir/$name", "$dir/$name.o", @{ $o{libs} // [] });
    $files->{"/$name"} = "$dir/$name";
    push @$jobs, { name => $name, argv => ["/$name", @{ $o{argv} }], env => { %GRAPH_ENV, %{ $o{env} // {} },
        MCOUNT_TRACE_OUTPUT => "/tmp/$name.json" }, files => ["/tmp/$name.json"] };
}

# function_graph on leaves, tail calls, exceptions, signals
sub jobs {
    my ($c) = @_;
    ($cc, $cxx, $dir, $files, $jobs) = @$c{qw(cc cxx dir files jobs)};
    # function_graph on oracle.c built with -pg alone, where some functions
    # are leaves (their return address stays in lr)
    graph_build(name => $_->[0], src => 'oracle.c', cflags => ['-O2', @{ $_->[1] }], argv => [3])
        for ['leaves', []], ['leaves-arm', \@A32];

    # function_graph with return values on leaves.c, both states, -O2 and -O0
    @LEAVES = (['lv-O2', ['-O2']], ['lv-O2-arm', ['-O2', @A32]], ['lv-O0', ['-O0']], ['lv-O0-arm', ['-O0', @A32]]);
    must($cc, '-O2', '-o', "$dir/lv-plain", "$TSRC/leaves.c");
    $files->{'/lv-plain'} = "$dir/lv-plain";
    push @$jobs, { name => 'lv-plain', argv => ['/lv-plain', 3] };
    graph_build(name => $_->[0], src => 'leaves.c', cflags => $_->[1], argv => [3], env => { MCOUNT_TRACE_RETVAL => 1 })
        for @LEAVES;

    # C++ exceptions through a tail call from a function that pushes nothing
    # and through a variadic one that saves lr after r0-r3, both states
    @EH = (['lveh', []], ['lveh-arm', \@A32]);
    must($cxx, '-O2', '-o', "$dir/lveh-plain", "$TSRC/leaves_eh.cc");
    $files->{'/lveh-plain'} = "$dir/lveh-plain";
    push @$jobs, { name => 'lveh-plain', argv => ['/lveh-plain', 3] };
    graph_build(name => $_->[0], cc => $cxx, src => 'leaves_eh.cc', cflags => ['-O2', @{ $_->[1] }], argv => [3])
        for @EH;

    # graph_stress.c at -O0, where its leaves push r7 and lower sp: threads,
    # a profiling signal's handler and live switches of the tracer
    @GSTRESS = (['gstress-O0', []], ['gstress-O0-arm', \@A32]);
    graph_build(name => $_->[0], src => 'graph_stress.c', cflags => ['-O0', @{ $_->[1] }], libs => ['-lpthread'],
        argv => [300, 2], env => { MCOUNT_TRACE_FILTER => 'g_*' }) for @GSTRESS;
    return;
}

# the plain program's class, the site forms objdump shows
sub forms {
    my ($c) = @_;
    my ($rst, $rel) = run_cmd(['readelf', '-h', "$dir/plain"]);
    like($rel, qr{Class:\s+ELF32}, 'the plain program is a 32-bit one');

    # ---- the tracer: the oracle, both states ----
    # objdump's view of each variant's calls to the hook: Thumb's 2-byte
    # `push {lr}` and 32-bit bl/blx, or ARM's 4-byte ones.
    for my $v (@{ $c->{variants} }) {
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
    return;
}

sub checks {
    my ($c) = @_;
    $r = $c->{r};
    my ($lib, $uout) = @$c{qw(lib uout)};
    # The library's unwind tables (its unwinder wrappers need them) name the
    # EHABI's personality routines, which it defines itself: neither it nor
    # a C program linked with it needs libgcc_s (the guest has it, for C++).
    for my $f ("$lib/libmcount-trace.so", "$dir/pie-linked", "$dir/arm-linked") {
        my ($st, $d) = run_cmd(['readelf', '-d', $f]);
        my @needed = $d =~ /\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g;
        is("@needed", 'libc.so.6', "$f needs the C library alone");
    }

    # ---- function_graph: leaves, tail calls, exceptions, signals ----
    leaves_checks($uout);
    return;
}

# objdump's view of each function's prologue in FILE, the instructions
# before its site's push {lr}: 'none', 'lr' (the first pushes lr),
# 'later' (a later one does) or 'nolr' (none does: lr keeps the return).
sub prologues {
    my ($file) = @_;
    my ($st, $dis) = run_cmd(['arm-linux-gnueabihf-objdump', '-d', $file]);
    my (%pro, $fn, @ins);
    my $lr = qr/\A(?:(?:push|stmdb sp!,) \{.*\blr\}|str lr, \[sp, #-4\]!)/;
    for (split /\n/, $dis) {
        if (/\A[0-9a-f]+ <(\w+)>:\z/) {
            ($fn, @ins) = ($1);
        } elsif ($fn && /\A\s*[0-9a-f]+:\s+[0-9a-f ]+\t(\S+)\s*(.*)/) {
            my ($op, $args) = ($1, $2);
            if ($op =~ /\Ablx?\z/ && $args =~ /<__gnu_mcount_nc(?:\@plt)?>/ && @ins
                && $ins[-1] =~ /\A(?:push \{lr\}|str lr, \[sp, #-4\]!)/) {
                pop @ins;
                $pro{$fn} = !@ins ? 'none' : $ins[0] =~ $lr ? 'lr' : (grep { $_ =~ $lr } @ins) ? 'later' : 'nolr';
                undef $fn;
            } else {
                push @ins, "$op $args";
            }
        }
    }
    return %pro;
}

# The checks a function_graph job NAME of the sections below starts with
# (its trace in /tmp/NAME.json): exit 0, the library silent, the output
# WANT (the plain build's), every trace line well formed.  Returns the
# events, objdump's prologues (as prologues) and nm's symbols.
sub graph_job {
    my ($name, $want) = @_;
    my $j = $r->{$name} // {};
    is($j->{status}, 0, "$name: exits 0 under function_graph") or diag $j->{stderr};
    is($j->{stderr}, '', "$name: the library says nothing");
    is($j->{stdout}, $want, "$name: the output of the plain build");
    my $f = job_files($dir, $j, $name);
    my ($ev, $errs) = read_graph_json(grep { defined } $f->{"/tmp/$name.json"});
    is_deeply($errs, [], "$name: every trace line is a well-formed event");
    return ($ev, { prologues("$dir/$name") }, nm_funcs("$dir/$name"));
}

# leaves_checks(the plain build's output): the function_graph jobs'
# checks (jobs)
sub leaves_checks {
    my ($uout) = @_;
    # The leaves: every function returns as often as it is entered, each
    # exit closing the innermost call.
    for my $name ('leaves', 'leaves-arm') {
        my ($ev, $pro, $syms) = graph_job($name, $uout);
        my %pro = %$pro;
        cmp_ok(scalar keys %pro, '>=', 8, "$name: objdump shows the sites of " . scalar(keys %pro) . ' functions');
        my @leaf = sort grep { $pro{$_} eq 'none' || $pro{$_} eq 'nolr' } keys %pro;
        ok(@leaf >= 4, "$name: functions whose prologue does not save lr: @leaf");
        my %in = map { ($_->{func} => 1) } grep { exists $_->{func} } @$ev;
        is_deeply([grep { !$in{$_} } sort keys %pro], [], "$name: every function entered");
        my (undef, $bad) = trace_seqs($syms, trace_bias($syms, $ev), $ev, 0);
        is_deeply($bad, [], "$name: each exit closes its thread's innermost call");
        my (%calls, %rets, %noexit);
        for my $e (@$ev) {
            $calls{ $e->{func} }++ if exists $e->{func};
            $noexit{ $e->{func} } = 1 if $e->{noexit};
            $rets{ $e->{exit} }++ if exists $e->{exit} && !$e->{unwound};
        }
        is(join(' ', sort keys %noexit), '', "$name: every function's return hooked");
        is_deeply({ map { ($_ => $rets{$_} // 0) } grep { $_ ne 'main' } keys %calls },
            { map { ($_ => $calls{$_}) } grep { $_ ne 'main' } keys %calls },
            "$name: each returns as often as it is entered (" . join(', ', map { "$_ $calls{$_}" } @leaf) . ')');
    }

    # leaves.c: the returns, with their values, are the program's own log
    # of them; tail's and tail_saved's (tail calls at -O2) come right after
    # bare's, with bare's value.
    my $lvlog = $r->{'lv-plain'}{stdout} // '';
    like($lvlog, qr/\Abare 0x1\n.*^result -?\d+\n\z/ms, 'leaves.c, plain build: its log and result');
    for my $l (@LEAVES) {
        my ($name) = @$l;
        my ($ev, $pro, $syms) = graph_job($name, $lvlog);
        my %pro = %$pro;
        my @nolr = sort grep { $pro{$_} eq 'nolr' } keys %pro;
        my @later = sort grep { $pro{$_} eq 'later' } keys %pro;
        ok(@nolr >= 2 && @later, "$name: objdump shows prologues that push but not lr (@nolr), "
            . "and lr pushed after the argument registers (@later)");
        ok(@$ev && !grep({ exists $_->{lost} || $_->{unwound} } @$ev), "$name: no event lost, no frame unwound");
        is(join(' ', sort keys %{ { map { ($_->{func} => 1) } grep { $_->{noexit} } @$ev } }), '',
            "$name: every function's return hooked");
        my (undef, $bad) = trace_seqs($syms, trace_bias($syms, $ev), $ev, 0);
        # bare, tail-called, returns to its caller's caller: that is its parent
        is_deeply([grep { !/: bare called from main inside tail(?:_saved)?\z/ } @$bad], [],
            "$name: each exit closes its thread's innermost call");
        my (@rets, @tailbad, %tails);
        for my $e (grep { exists $_->{exit} && $_->{exit} ne 'main' } @$ev) {
            my $v = defined $e->{retval} ? sprintf('0x%x', hex $e->{retval}) : 'none';
            if ($e->{exit} =~ /\Atail(?:_saved)?\z/) {
                $tails{ $e->{exit} }++;
                push @tailbad, "$e->{exit} $v after " . ($rets[-1] // 'nothing') unless @rets && $rets[-1] eq "bare $v";
            } else {
                push @rets, "$e->{exit} $v";
            }
        }
        (my $want = $lvlog) =~ s/^result.*\n//m;
        is(join('', map { "$_\n" } @rets), $want, "$name: its returns and their values are the program's log");
        is_deeply(\%tails, { tail => 3, tail_saved => 3 }, "$name: tail and tail_saved return once a round");
        is_deeply(\@tailbad, [], "$name: each of their returns right after bare's, with its value");
    }

    # leaves_eh.cc: each round's throw leaves thrower, tailer (whose tail
    # call handed its hijacked return to thrower's frame) and va_thrower,
    # marked unwound; catcher and leaf return; the output of the plain build.
    my $ehout = $r->{'lveh-plain'}{stdout} // '';
    like($ehout, qr/\Around 0 caught \d+\n.*^result \d+\n\z/ms, 'leaves_eh.cc, plain build: it ran through');
    for my $l (@EH) {
        my ($name) = @$l;
        my ($ev, $pro, $syms) = graph_job($name, $ehout);
        is(join(' ', map { "$_=" . ($pro->{$_} // '') } qw(_Z6taileri _Z10va_throweriz)), '_Z6taileri=none _Z10va_throweriz=later',
            "$name: objdump shows tailer pushing nothing, va_thrower pushing lr after r0-r3");
        my (undef, $bad) = trace_seqs($syms, trace_bias($syms, $ev), $ev, 1);
        # thrower, tail-called, has tailer's caller for its parent
        is_deeply([grep { !/: _Z7throweri called from _Z10va_throweriz inside _Z6taileri\z/ } @$bad], [],
            "$name: each exit or unwound mark closes its thread's innermost call");
        my %n;
        for my $e (grep { !$_->{child} } @$ev) {
            my ($fn) = ($e->{func} // $e->{exit}) =~ /\A(\w+)/;
            my $k = exists $e->{func} ? ($e->{noexit} ? 'noexit' : 'in') : $e->{unwound} ? 'unwound' : 'out';
            $n{$fn}{$k}++;
        }
        is(join(' ', map { my $fn = $_; "$fn:" . join(',', map { "$_=" . ($n{$fn}{$_} // 0) } qw(in out unwound noexit)) }
                qw(catcher va_thrower tailer thrower leaf)),
            'catcher:in=3,out=3,unwound=0,noexit=0 va_thrower:in=3,out=0,unwound=3,noexit=0 '
            . 'tailer:in=3,out=0,unwound=3,noexit=0 thrower:in=3,out=0,unwound=3,noexit=0 leaf:in=6,out=6,unwound=0,noexit=0',
            "$name: calls, returns and unwound frames per function, by the source");
    }

    # graph_stress: every result right (the program checks each) under live
    # switches and signals in hijacked leaves, every trace event well formed,
    # the leaves' returns traced.  Events are lost (a signal's events while
    # its thread is in the hook), so the trace's nesting is not checked here.
    for my $l (@GSTRESS) {
        my ($name) = @$l;
        my $j = $r->{$name} // {};
        is($j->{status}, 0, "$name: exits 0") or diag $j->{stderr};
        is($j->{stdout}, "stress done: bad 0 api errors 0 signals handled\n",
            "$name: every result right, every switch answered, signals handled");
        is_deeply([grep { !/\Amcount-trace: \d+ events lost: / } split /\n/, $j->{stderr} // ''], [],
            "$name: the library says nothing but events lost");
        my %pro = prologues("$dir/$name");
        is(join(' ', map { "$_=" . ($pro{$_} // '') } qw(g_leaf g_fp g_ld)), 'g_leaf=nolr g_fp=nolr g_ld=nolr',
            "$name: objdump shows its leaves' prologues push but not lr");
        my $f = job_files($dir, $j, $name);
        my ($ev, $errs) = read_graph_json(grep { defined } $f->{"/tmp/$name.json"});
        is_deeply($errs, [], "$name: every trace line is a well-formed event");
        my %rets;
        $rets{ $_->{exit} }++ for grep { exists $_->{exit} && !$_->{unwound} } @$ev;
        ok(($rets{g_leaf} // 0) > 0 && ($rets{g_fp} // 0) > 0 && ($rets{g_ld} // 0) > 0,
            "$name: the leaves' returns traced (" . join(', ', map { "$_ " . ($rets{$_} // 0) } qw(g_leaf g_fp g_ld)) . ')');
    }
    return;
}

1;
