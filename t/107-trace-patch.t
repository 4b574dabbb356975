#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# Live patching through the command: `mcount-trace patch PID FUNCTION
# LIBRARY[:SYMBOL]` and `unpatch` against a running server with a bug
# (t/src/trace/patchme.c: four threads answer queries with answer(),
# which gives x * 2 + 1 for x * 2; each answer is checked by the thread
# that asked, and the program is told by a signal when the test has
# patched and unpatched it).  The oracle is the program's: every answer
# is the old one or the new one; one asked and answered between the
# patch's return and the unpatch is the new one, and one before the
# patch or after the unpatch the old one; both were seen.  The fix comes
# from a shared library (t/src/trace/patch_lib.c) under the function's
# own name, and under another (LIBRARY:SYMBOL).  A patch that cannot be
# made says why and changes nothing, the program still answering with
# its old code: no such function, no such file, no such symbol, a
# library others may write, a function patched already; and unpatch of
# a function not patched.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw(tmpdir slurp);
use TraceTest qw($SO $TSRC clean_env mcc_build link_prog start_bg stop_bg wait_for mt_cli);

clean_env();
my $dir = tmpdir();
my $ctl = "$dir/ctl";
mkdir $ctl, 0700 or die "$ctl: $!";
my %DIR = (MCOUNT_TRACE_DIR => $ctl);

my $prog = "$dir/patchme";
mcc_build('-pg -mfentry', "$prog.o", "$TSRC/patchme.c", '-O2');
link_prog($prog, "$prog.o", '-lpthread');
my $lib = "$dir/libfix.so";
link_prog($lib, '-shared', '-fPIC', '-O2', "$TSRC/patch_lib.c");
chmod 0755, $lib or die;

sub slurp_or { my ($f) = @_; return -e $f ? slurp($f) : '' }

# The program to step N, once it has said so.
sub step {
    my ($pid, $out, $n) = @_;
    kill 'USR1', $pid;
    wait_for(30, sub { slurp_or($out) =~ /^step $n$/m }) or die "the program did not reach step $n\n";
    return;
}

# serve(NAME, TARGET, CODE): patchme running; CODE(PID) between the
# start and the last step; the program's own summary checked.
sub serve {
    my ($name, $target) = @_;
    my $out = "$dir/$name.out";
    my $pid = start_bg([$prog], out => $out, err => "$dir/$name.err", env => { LD_PRELOAD => $SO, %DIR });
    ok(wait_for(30, sub { slurp_or($out) =~ /^ready$/m && -S "$ctl/$pid" }), "$name: the server is ready")
        or return;
    select undef, undef, undef, 0.2;
    step($pid, $out, 1);                # either answer, until patch returns
    my ($st, $o, $e) = mt_cli({ %DIR }, '-v', 'patch', $pid, 'answer', $target);
    is($st, 0, "$name: patch exits 0") or diag $e;
    like($e, qr/^mcount-trace: answer patched$/m, "$name: -v says so");
    step($pid, $out, 2);                # the new answer
    select undef, undef, undef, 0.3;
    ($st, $o, $e) = mt_cli({ %DIR }, 'patch', $pid, 'answer', $target);
    is($st, 1, "$name: a second patch of answer fails");
    like($e, qr/^mcount-trace: $pid: '?answer'?: patched already \(unpatch it first\)$/m, "$name: and says why")
        or diag $e;
    step($pid, $out, 3);                # either, until unpatch returns
    ($st, $o, $e) = mt_cli({ %DIR }, 'unpatch', $pid, 'answer');
    is($st, 0, "$name: unpatch exits 0") or diag $e;
    step($pid, $out, 4);                # the old answer again
    select undef, undef, undef, 0.3;
    step($pid, $out, 5);                # quit
    is(stop_bg($pid, 60), 0, "$name: the server exits 0 (no answer wrong)")
        or diag slurp_or($out) . slurp_or("$dir/$name.err");
    my ($n, $old, $new, $wrong) = slurp_or($out) =~ /^answers (\d+) old (\d+) new (\d+) wrong (\d+)$/m;
    ok($old && $new, "$name: old and new answers both seen ($n answers: $old old, $new new)");
    is($wrong, 0, "$name: no answer wrong for its step, none malformed");
    is(slurp_or("$dir/$name.err"), '', "$name: nothing on standard error");
}

serve('own name', $lib);
serve('another symbol', "$lib:answer_fixed");

# ---- patches that cannot be made: nothing changes --------------------------
{
    my $out = "$dir/refused.out";
    my $pid = start_bg([$prog, 'old'], out => $out, err => "$dir/refused.err",
        env => { LD_PRELOAD => $SO, %DIR });
    ok(wait_for(30, sub { slurp_or($out) =~ /^ready$/m && -S "$ctl/$pid" }), 'refused: the server is ready');
    my @cases = (
        ['no such function', ['no_such_function', "$lib:answer"], 1, qr/no function of a table has that name/],
        ['no such file', ['answer', "$dir/none.so"], 1, qr/none\.so: No such file or directory/],
        ['no such symbol', ['answer', "$lib:no_such_symbol"], 1, qr/no symbol 'no_such_symbol'/],
        ['a FUNCTION missing', ['answer'], 2, qr/patch needs FUNCTION and LIBRARY/],
    );
    for my $c (@cases) {
        my ($what, $args, $want, $re) = @$c;
        my ($st, $o, $e) = mt_cli({ %DIR }, 'patch', $pid, @$args);
        is($st, $want, "refused, $what: exit $want");
        like($e, $re, "refused, $what: says why") or diag $e;
    }
    my $ww = "$dir/libww.so";
    link_prog($ww, '-shared', '-fPIC', "$TSRC/patch_lib.c");
    chmod 0757, $ww or die;
    my ($st, $o, $e) = mt_cli({ %DIR }, 'patch', $pid, 'answer', $ww);
    is($st, 1, 'refused, a library others may write: exit 1');
    like($e, qr/writable by others: not loaded/, 'refused, a library others may write: says why') or diag $e;
    ($st, $o, $e) = mt_cli({ %DIR }, 'unpatch', $pid, 'answer');
    is($st, 1, 'unpatch of a function not patched: exit 1');
    like($e, qr/not patched/, 'unpatch of a function not patched: says so') or diag $e;
    step($pid, $out, $_) for 1 .. 5;
    is(stop_bg($pid, 60), 0, 'refused: the server exits 0: every answer the old one (the patch made no change)')
        or diag slurp_or($out);
    my ($new) = slurp_or($out) =~ / new (\d+) /;
    is($new, 0, 'refused: no new answer');
}

done_testing();
