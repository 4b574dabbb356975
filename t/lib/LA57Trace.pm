# SPDX-License-Identifier: GPL-2.0-or-later
package LA57Trace;
# The la57 guest of t/79-trace-system.t (its row of guests.tab), which
# runs none of SysTrace's check sets: all is here.  What is checked:
# libmcount-trace on x86_64 with 5-level page tables, where user space
# reaches 2^56: Debian's amd64 kernel under qemu-system-x86_64 on qemu's
# most capable CPU (la57), with this host's C library (QemuSystem's
# x86_64 row).  An event holds a function's address in 48 bits; a shared
# library linked at 2^52 (-Wl,-Ttext-segment) is mapped there, as the
# kernel grants the dynamic linker's request.  t/src/trace/plug.c as
# libplug.so, linked at the usual address and at 2^52, and plug_main.c
# built through mcount-cc, which calls plug_a 5 times:
#  - a probe that the machine maps at 2^52 when asked (la57 in
#    /proc/cpuinfo, mmap's hint honoured);
#  - the low library, every function on: main <-the C library once,
#    plug_a <-main and plug_b <-plug_a 5 times each, nothing said;
#  - the high library, every function on: the output unchanged, one
#    message naming its sites above 2^48, and only main's event.  (Before,
#    its sites were switched on and each event's address, cut to 48 bits,
#    named no site: the events were dropped from the trace, counted only
#    by status, with no message.)
# And mcount-attach (mcount-trace attach's helper) under the Yama
# security module, which the kernel has built in (CONFIG_SECURITY_YAMA,
# ptrace_scope 0 at boot): t/src/trace/sys/yama.c, built through
# mcount-cc with -pg -mfentry, sets ptrace_scope to 0, 1, 2 and 3, one
# job each, the last jobs of the boot (3 holds until it ends); the
# targets are yama.c's own loop, user 1000's or root's, started by it or
# by the attacher.  For each case, what the kernel answers a process of
# the same user and relation (PTRACE_SEIZE and process_vm_readv) is the
# oracle:
#  - refused (both EPERM): exit 1, the message naming the scope's rule,
#    the target's maps unchanged and it runs on: at 1 user 1000 attaching
#    to its process it did not start, also with the library preloaded
#    there (its state is read through process_vm_readv, which Yama rules
#    too); at 2 user 1000, even as the target's parent; at 3 root, even
#    as its parent;
#  - let (both ok): exit 0, libmcount-trace.so mapped, the target runs
#    on: at 0 user 1000 to its process it did not start (the same case
#    as 1's refused one); at 1 the user to its own child (Yama's
#    ancestor rule: the refusal is Yama's, not another) or to a process
#    that named any process its tracer (PR_SET_PTRACER, as the message
#    says), and root (CAP_SYS_PTRACE) to a process it did not start; at
#    2 root.
use strict;
use warnings;
no warnings 'portable';   # addresses above 2^32
use Test::More;

use TestUtil qw($TOP must);
use TraceTest qw($TSRC mcc_build link_prog);
use QemuSystem qw(sys_boot);
use SysTrace qw(boot_checks mcc_cc json_of);

my $HIGH = 2**52;

# guest(ROW): what SysTrace's guest_run takes of this guest: its run.
sub guest {
    return { run => \&run };
}

sub run {
    my ($c) = @_;
    my $dir = $c->{dir};
    must('gcc', '-O2', '-static', '-o', "$dir/probe", "$TSRC/sys/la57.c");
    mcc_cc('gcc', "$dir/plug.o", '-O2', '-fPIC', '-c', "$TSRC/plug.c");
    mkdir "$dir/$_" or die "$dir/$_: $!" for qw(lo hi);
    mcc_cc('gcc', "$dir/lo/libplug.so", '-shared', "$dir/plug.o");
    mcc_cc('gcc', "$dir/hi/libplug.so", '-shared', sprintf('-Wl,-Ttext-segment=%#x', $HIGH), "$dir/plug.o");
    mcc_cc('gcc', "$dir/plug_main.o", '-O2', '-c', "$TSRC/plug_main.c");
    mcc_build('-pg -mfentry', "$dir/yama.o", "$TSRC/sys/yama.c", '-O2');
    link_prog("$dir/yama", "$dir/yama.o");
    must('gcc', '-o', "$dir/plug_main", "$dir/plug_main.o", "-L$dir/lo", '-lplug');

    my %env = (LD_PRELOAD => '/lib/mt/libmcount-trace.so', MCOUNT_TRACE_FILTER => '*', MCOUNT_TRACE_FORMAT => 'json',
        MCOUNT_TRACE_DIR => '/tmp/ctl');
    my @jobs = ({ name => 'probe', argv => ['/probe', $HIGH] },
        map({ { name => "plain-$_", argv => ['/plug_main', 5], env => { LD_LIBRARY_PATH => "/lib/$_" } } } qw(lo hi)),
        map({ { name => "traced-$_", argv => ['/plug_main', 5],
            env => { %env, LD_LIBRARY_PATH => "/lib/$_", MCOUNT_TRACE_OUTPUT => "/tmp/$_.json" },
            files => ["/tmp/$_.json"] } } qw(lo hi)),
        # (last: scope 3 holds until the machine stops)
        map({ { name => "yama-$_", argv => ['/yama', $_, '/mcount-attach', '/lib/mt/libmcount-trace.so'] } } 0 .. 3));
    my $r = boot_checks('', sub { sys_boot('la57', @_) }, timeout => $c->{guest}{timeout}, jobs => \@jobs,
        files => { '/probe' => "$dir/probe", '/plug_main' => "$dir/plug_main", '/yama' => "$dir/yama",
            '/mcount-attach' => "$TOP/build/mcount-attach",
            '/lib/mt/libmcount-trace.so' => "$TOP/build/libmcount-trace.so",
            '/lib/lo/libplug.so' => "$dir/lo/libplug.so", '/lib/hi/libplug.so' => "$dir/hi/libplug.so" });

    my $p = $r->{probe} // {};
    is($p->{stdout} // '', sprintf("la57 1\nmapped at %#x\n", $HIGH), 'the machine has 5-level page tables and maps at 2^52')
        or diag $p->{stderr};

    for my $lib (qw(lo hi)) {
        my ($plain, $j) = map { $r->{"$_-$lib"} // {} } qw(plain traced);
        is(($plain->{status} // 'not run') . ' ' . ($plain->{stderr} // ''), '0 ', "$lib: the untraced run exits 0, silent");
        is($plain->{stdout}, "25\n", "$lib: the untraced run's output");
        is($j->{status}, 0, "$lib: exits 0 traced");
        is($j->{stdout}, $plain->{stdout}, "$lib: the untraced run's output, traced");
        my $n = calls($dir, $lib, $j->{files}{"/tmp/$lib.json"});
        my ($start) = grep { /\Amain </ } keys %$n;
        is($start && $n->{$start}, 1, "$lib: main, entered once from the C library") or diag explain $n;
        delete $n->{$start} if $start;
        if ($lib eq 'lo') {
            is($j->{stderr}, '', 'lo: the library says nothing');
            is_deeply($n, { 'plug_a <-main' => 5, 'plug_b <-plug_a' => 5 },
                'lo: plug_a <-main and plug_b <-plug_a, 5 times each') or diag explain $n;
            next;
        }
        my @msg = split /\n/, $j->{stderr} // '';
        is(scalar @msg, 1, 'hi: one message') or diag $j->{stderr};
        my ($sites, $first) = ($msg[0] // '') =~ m{\Amcount-trace: libplug\.so: (\d+) sites above 2\^48 \(the first at (0x[0-9a-f]+)\): no event can hold their addresses; they stay off\z};
        is($sites, 2, "hi: the message names the library's two sites") or diag $msg[0];
        ok($first && hex($first) > $HIGH && hex($first) < $HIGH + 2**20, "hi: the first above 2^52 ($first)");
        is_deeply($n, {}, 'hi: no event of the library (its sites stayed off)') or diag explain $n;
    }
    yama_checks($r);
    return;
}

# What mcount-attach says under each ptrace_scope (yama.c's cases), and
# what the kernel answers the same user in the same relation: refused
# (PTRACE_SEIZE and process_vm_readv EPERM) with Yama's message, exit 1,
# the target untouched and running; let (both ok) with the library
# loaded.
my $YAMA = "refused: Yama's /proc/sys/kernel/yama/ptrace_scope is";
my %YAMA_SAYS = (1 => "$YAMA 1: only a process's ancestors (or one it names with PR_SET_PTRACER) may attach to it; "
        . 'run as root, or set it to 0',
    2 => "$YAMA 2: only root (CAP_SYS_PTRACE) may attach",
    3 => "$YAMA 3: no process may be attached to, until reboot");
my @YAMA_CASES = (
    # scope, case, refused, why: a scope's rule, and what proves that
    # the rule is what refuses
    [0, 'user-other', 0, 'the same user, not its ancestor, with no rule of Yama\'s: let'],
    [1, 'user-other', 1, 'the same user, not its ancestor: refused'],
    [1, 'user-child', 0, 'the same user, its parent: let'],
    [1, 'root-other', 0, 'root (CAP_SYS_PTRACE), not its ancestor: let'],
    [1, 'user-other-preloaded', 1, 'the same user, not its ancestor, the library there already: refused'],
    [1, 'user-other-named', 0, 'the same user, not its ancestor, named its tracer (PR_SET_PTRACER): let'],
    [2, 'user-other', 1, 'the same user, not its ancestor: refused'],
    [2, 'user-child', 1, 'the same user, its parent: refused'],
    [2, 'root-other', 0, 'root (CAP_SYS_PTRACE): let'],
    [3, 'root-other', 1, 'root: refused'],
    [3, 'root-child', 1, 'root, its parent: refused'],
);

sub yama_checks {
    my ($r) = @_;
    for my $scope (0 .. 3) {
        my $j = $r->{"yama-$scope"} // {};
        my @l = split /\n/, $j->{stdout} // '';
        my $first = shift(@l) // '';
        is(($j->{status} // 'not run') . ' ' . ($j->{stderr} // ''), '0 ', "yama-$scope: exits 0, silent");
        like($first, qr/\Aptrace_scope $scope \(was \d\)\z/, "Yama's ptrace_scope set to $scope") or diag $first;
        note $first;
        my %got;
        push @{ $got{ s/: .*//sr } }, s/\A[^:]*: //r for @l;
        for my $c (grep { $_->[0] == $scope } @YAMA_CASES) {
            my (undef, $case, $refused, $why) = @$c;
            my @want = $refused
                ? ('kernel: PTRACE_SEIZE EPERM, process_vm_readv EPERM', "mcount-attach: PID: $YAMA_SAYS{$scope}", 'exit 1',
                    'maps unchanged, runs')
                : ('kernel: PTRACE_SEIZE ok, process_vm_readv ok', 'exit 0', 'maps changed, library mapped, runs');
            is(join("\n", @{ delete $got{$case} // [] }), join("\n", @want), "ptrace_scope $scope, $case: $why");
        }
        is_deeply([sort keys %got], [], "yama-$scope: no other case");
    }
    return;
}

# events as 'func <-parent' => count
sub calls {
    my ($dir, $label, $trace) = @_;
    my ($ev, $errs) = json_of($dir, $trace);
    is_deeply($errs, [], "$label: every trace line well formed");
    my %n;
    $n{"$_->{func} <-$_->{parent}"}++ for grep { !exists $_->{lost} } @$ev;
    return \%n;
}

1;
