#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# What libmcount-trace must never do to the program it runs in
# (t/src/trace/sites.c, built through mcount-cc with -pg -mfentry):
#   - write a table entry that does not start an instruction: two entries
#     inside the immediate of a movabs (t/src/trace/insite.S), one at
#     bytes that call __fentry__ through its GOT slot, one at the 5-byte NOP of GCC's
#     -mnop-mcount, are refused with a message by the library, preloaded
#     and linked in (their bytes and what their functions return stay
#     the same after enable '*'), and by mcount-record --verify, which
#     says the same of each;
#   - kill a thread that blocks SIGTRAP: a thread that blocks it with
#     pthread_sigmask and reads it through a signalfd, while it calls a
#     function that mcount-trace enables and disables from outside, gets
#     the SIGTRAP it raises on its signalfd, and the program exits 0;
#     each change that would have put a breakpoint in its way is refused,
#     with a message; the same for a thread that blocks SIGTRAP through
#     the system call itself, preloaded and linked in.
use strict;
use warnings;
use Test::More;
use POSIX ();
use lib 't/lib';
use TestUtil qw($TOP must run_cmd tmpdir slurp spit);
use TraceTest qw($SO $LIBA $TSRC clean_env mcc_build link_prog traced wait_for start_bg stop_bg mt_cli);

clean_env();
my $dir = tmpdir();
my $ctl = "$dir/ctl";
$ENV{MCOUNT_TRACE_DIR} = $ctl;
my $x86_64 = (POSIX::uname())[4] eq 'x86_64';

mcc_build('-pg -mfentry', "$dir/sites.o", "$TSRC/sites.c", '-O2', '-pthread');
my @objs = ("$dir/sites.o");
if ($x86_64) {
    must('gcc', '-c', "$TSRC/insite.S", '-o', "$dir/insite.o");
    push @objs, "$dir/insite.o";
}
my $prog = link_prog("$dir/sites", '-rdynamic', @objs, '-pthread', '-ldl');
my $prog_a = link_prog("$dir/sites_a", '-rdynamic', @objs, $LIBA, '-pthread', '-ldl');

# ---- a table entry inside an instruction ----
SKIP: {
    skip 'the movabs of insite.S is x86_64 code', 12 unless $x86_64;
    my $plain = '';
    for my $v (['preloaded', $prog, 1], ['linked in', $prog_a, 0]) {
        my ($name, $p, $preload) = @$v;
        my ($st, $out, $err) = traced([$p, 'insite'], preload => $preload, timeout => 120,
            env => { MCOUNT_TRACE_OUTPUT => '' });
        is($st, 0, "$name, entries inside a movabs: exits 0") or diag $err;
        my %why = $err =~ /^mcount-trace: sites(?:_a)?: 0x[0-9a-f]+ <(insite_\w+)\+0x2>: (.*): left alone$/mg;
        my $amid = qr/not at the start of an instruction \(decoded from its function's start\)/;
        like($why{insite_call_fn} // '', qr/\A$amid \(bytes (ff 15|67 e8)( [0-9a-f]{2}){3}\)\z/,
            "$name: the entry at the bytes of a call refused, saying why") or diag $err;
        like($why{insite_nop_fn} // '', qr/\A$amid \(bytes 0f 1f 44 00 00\)\z/,
            "$name: the entry at the bytes of a NOP refused, saying why") or diag $err;
        my ($before) = $out =~ /^before (.*)$/m;
        my ($after) = $out =~ /^after (.*)$/m;
        like($before // '', qr/^(ff 15|67 e8)( [0-9a-f]{2}){3} \| 0f 1f 44 00 00 \| 0x2211[0-9a-f]{8}(15ff|e867) 0x3322110000441f0f$/,
            "$name: the bytes the assembler wrote, the immediates the functions return");
        is($after, $before, "$name: bytes and immediates unchanged after enable '*'");
        like($out, qr/^enabled [1-9]\d* work 42$/m, "$name: the other functions enabled");
    }
}

# ---- mcount-record --verify: the same entries, the same rule ----
SKIP: {
    skip 'the movabs of insite.S is x86_64 code', 3 unless $x86_64;
    my ($st, $out, $err) = run_cmd([$^X, "$TOP/bin/mcount-record", '--verify', $prog]);
    is($st >> 8, 1, '--verify: exit 1');
    my @m = $err =~ /^mcount-record: \Q$prog\E: 0x[0-9a-f]+ (insite_\w+)\+0x2\/0xb: entry is not at the start of an instruction \(it is 2 bytes into the instruction at 0x[0-9a-f]+\)$/mg;
    is_deeply([sort @m], ['insite_call_fn', 'insite_nop_fn'], '--verify: both entries, inside the movabs')
        or diag $err;
    ($st, $out, $err) = run_cmd([$^X, "$TOP/bin/mcount-record", '--verify', "$dir/insite.o"]);
    is_deeply([sort $err =~ /^mcount-record: \Q$dir\E\/insite\.o: \.text\+0x[0-9a-f]+ (insite_\w+)\+0x2\/0xb: entry is not at the start of an instruction \(it is 2 bytes into the instruction at 0x[0-9a-f]+\)$/mg],
        ['insite_call_fn', 'insite_nop_fn'], '--verify of the object: both entries, though a relocation calls the hook from one')
        or diag $err;
}

# ---- a thread that blocks SIGTRAP ----
# It calls hot() all the time; from outside, mcount-trace enables and
# disables it 10 times: each enable would put a breakpoint in its way,
# so each is refused, said once by the program; nothing is traced; the
# thread, which blocks SIGTRAP through pthread_sigmask and reads it
# through a signalfd (sigfd), gets the SIGTRAP it raises there, or
# blocks it through the system call, which no wrapper sees (raw).
my %running;    # killed however the test ends
END { kill 'KILL', keys %running }
for my $v (['preloaded', $prog, 1], ['linked in', $prog_a, 0]) {
    my ($name, $p, $preload) = @$v;
    for my $mode (qw(sigfd raw)) {
        my $tag = "$name, $mode";
        my $stop = "$dir/stop-$mode-$preload";
        unlink "$dir/$mode.out";
        my $pid = start_bg([$p, $mode, $stop], out => "$dir/$mode.out", err => "$dir/$mode.err",
            env => { $preload ? (LD_PRELOAD => $SO) : (), MCOUNT_TRACE_OUTPUT => '' });
        $running{$pid} = 1;
        ok(wait_for(120, sub { -e "$dir/$mode.out" && slurp("$dir/$mode.out") =~ /^ready $pid$/m
            && -S "$ctl/$pid" }),
            "$tag: the thread blocks SIGTRAP, the socket is there");
        my @odd;
        for my $i (1 .. 10) {
            my ($code, $out, $err) = mt_cli('enable', $pid, 'hot');
            push @odd, "enable $i: exit $code: $out$err"
                if $code != 1 || $err ne "mcount-trace: $pid: cannot change the code: Device or resource busy\n";
            ($code, $out, $err) = mt_cli('disable', $pid, 'hot');
            push @odd, "disable $i: exit $code: $out$err" if $code != 0;
        }
        is_deeply(\@odd, [], "$tag: each of 10 enables refused (EBUSY), each disable a no-op");
        my ($code, $status) = mt_cli('status', $pid);
        like($status, qr/^functions traced: 0$/m, "$tag: status: no function traced");
        spit($stop, '');
        my $st = stop_bg($pid, 120);
        delete $running{$pid};
        my ($out, $err) = (slurp("$dir/$mode.out"), slurp("$dir/$mode.err"));
        is($st, 0, "$tag: exits 0") or diag "$out$err";
        like($out, $mode eq 'raw' ? qr/^hot [1-9]\d*$/m : qr/^hot [1-9]\d* read SIGTRAP$/m,
            $mode eq 'raw' ? "$tag: hot() ran" : "$tag: hot() ran, the SIGTRAP read from the signalfd");
        my $why = $mode eq 'raw' ? 'its mask was set otherwise than through sigprocmask or pthread_sigmask'
            : 'the program reads it through a signalfd';
        my @said = $err =~ /^mcount-trace: thread \d+ blocks SIGTRAP \(\Q$why\E\): a breakpoint at a site would kill it, so 1 site stays as it is: the change is refused while a thread blocks it$/mg;
        is(scalar @said, 1, "$tag: the refusal said once, and why") or diag $err;
    }
}

done_testing();
