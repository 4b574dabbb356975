#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: slow
# The users of the hooks (mcount_hook(3)) on a real program nobody here
# wrote: Lua 5.4 from Debian's source (scripts/fetch-source lua5.4),
# every file of src/ but luac.c, built twice with the same flags.
#
# The profiler against GCC's -finstrument-functions.  One build through
# mcount-cc with -pg -mfentry, the other with plain gcc
# -finstrument-functions and t/src/trace/cygcount.c linked in, which
# counts each function's entries and exits by its address.  The same
# deterministic script (tables, strings, a recursive function, C library
# calls) runs under `mcount-trace run --stat` on the first and plainly on
# the second, each build in its own directory as ./lua, so that argv and
# every string Lua makes are the same.  nm names the addresses of each
# binary.  For every function that both binaries define, the profiler's
# Hit (its calls that returned) must equal the number of times it
# returned under -finstrument-functions (absent from a table: 0); and
# under -finstrument-functions each function returned as many times as
# it was entered (the script raises no error: no longjmp).  Of a name
# that two static functions share, both sides count the sum.
#
# What makes the two counts the same thing: LuaBuild's lua_counted_builds.
#
# A C function of Lua patched live, seen in a script's output.  The -pg
# build (linked with -Wl,-E, as Debian links lua, so that a library it
# loads finds the Lua API) runs a script that prints math.abs(-7) once
# for each line it reads from a FIFO, which the test writes every 20 ms;
# `mcount-trace patch PID math_abs LIB:lua_fix_abs` sends the static
# math_abs of lmathlib.c to t/src/trace/lua_fix.c (the absolute value
# plus 1000, through luaL_checkinteger and lua_pushinteger), and
# `unpatch` back.  Every line is well formed and numbered in order; the
# values are 7s, then 1007s, then 7s: a line written before the patch
# began is 7, one whose call began after the patch returned 1007, one
# whose call began after the unpatch returned 7.
use strict;
use warnings;
no warnings 'portable';    # 64-bit addresses through hex()
use Test::More;
use POSIX ();
use lib 't/lib';
use TestUtil qw(run_cmd tmpdir slurp spit);
use LuaBuild qw(lua_source lua_tables_script lua_counted_builds cyg_counts);
use TraceTest qw($MCC $MT $TSRC clean_env link_prog nm_funcs wait_for start_bg stop_bg mt_cli);

clean_env();
my $dir = tmpdir();
my $ctl = "$dir/ctl";
mkdir $ctl, 0700 or die "$ctl: $!";
my %DIR = (MCOUNT_TRACE_DIR => $ctl);

my ($st, $src, $err, $c) = lua_source();
is($st, 0, "fetch-source lua5.4: $src") or BAIL_OUT("no Lua source: $err");
cmp_ok(scalar @$c, '>', 20, scalar(@$c) . ' C files of Lua');

my ($pg, $cyg, $fail) = lua_counted_builds($c, $dir);
is_deeply($fail, [], 'every file compiled twice: through mcount-cc (-pg -mfentry), and with '
    . '-finstrument-functions, with the same flags') or BAIL_OUT('Lua does not build');
my ($pgdir, $cygdir) = ("$dir/pg", "$dir/cyg");

# ---- the profiler against -finstrument-functions ----------------------------
my $script = lua_tables_script(3000, 1000,
    "local a = 0\nfor i = -50, 50 do a = a + math.abs(i) + #string.rep(\"ab\", i % 5) end\n",
    't[1], t[#t], #t, s, table.concat(words, "-"), fib(15), a, string.format("%.3f", math.pi)');
spit("$_/work.lua", $script) for $pgdir, $cygdir;
my $want = "7\t10006\t3000\t333837393\tTHE-QUICK-BROWN-FOX-JUMPS-OVER-THE-LAZY-DOG\t610\t2950\t3.142\n";
{
    my ($s1, $o1, $e1) = run_cmd(['timeout', '-k', '10', '600', 'env', '-C', $cygdir, './lua', 'work.lua'],
        env => { CYG_COUNT => "$dir/cyg.count" });
    is($s1, 0, 'the -finstrument-functions build runs the script') or diag $e1;
    is($o1, $want, 'and prints its answer');
    my ($s2, $o2, $e2) = run_cmd(['timeout', '-k', '10', '600', 'env', '-C', $pgdir, $^X, $MT, 'run', '--stat',
        '-o', '', '--', './lua', 'work.lua'], env => { %DIR });
    is($s2, 0, 'mcount-trace run --stat: the -pg build runs the script') or diag $e2;
    is($o2, $want, 'and prints the same answer');

    # The profiler's table, every line of standard error read.
    my (%hits, @other);
    my @e = split /\n/, $e2;
    push @other, shift @e unless @e && $e[0] eq 'mcount-trace: the function profile (MCOUNT_TRACE_STAT):';
    shift @e;
    push @other, shift @e unless @e && $e[0] =~ /^  Function\s+Hit\s+Time\s+Avg\s+s\^2 \(us\^2\)\s+Self$/;
    shift @e;
    push @other, shift @e unless @e && $e[0] =~ /^  --------\s+---\s+----\s+---\s+----------\s+----$/;
    shift @e;
    for (@e) {
        if (/^  (\S+)\s+(\d+)\s+[\d.]+ us\s+[\d.]+ us\s+[\d.]+\s+[\d.]+ us$/) {
            $hits{$1} += $2;
        } else {
            push @other, $_;
        }
    }
    is_deeply(\@other, [], 'standard error: the profile, its header and a row a function, nothing else');

    # The oracle's counts, by name.
    my ($enters, $exits, $stray) = cyg_counts($cyg, "$dir/cyg.count");
    my %enters = %$enters;
    my %exits = %$exits;
    is_deeply($stray, [], "every line of the counts well formed, each address a function's (nm)");
    my @left = map { "$_: entered $enters{$_}, returned $exits{$_}" }
        grep { $enters{$_} != $exits{$_} } sort keys %enters;
    is_deeply(\@left, [], 'under -finstrument-functions every function returned as often as it was entered');

    my %in_pg = map { ($_->[2] => 1) } @{ nm_funcs($pg) };
    my %in_cyg = map { ($_->[2] => 1) } @{ nm_funcs($cyg) };
    my (@diff, @one);
    my $n = 0;
    for my $f (sort keys %{ { %hits, %exits } }) {
        if (!$in_pg{$f} || !$in_cyg{$f}) {
            push @one, $f;
            next;
        }
        $n++;
        my ($h, $x) = ($hits{$f} // 0, $exits{$f} // 0);
        push @diff, "$f: profiler $h, -finstrument-functions $x" if $h != $x;
    }
    note('counted, and a function of one build only (not compared): ' . join(', ', @one)) if @one;
    cmp_ok($n, '>', 300, "$n functions counted and defined in both builds");
    is_deeply(\@diff, [], "each of them: the profiler's hits are -finstrument-functions' count")
        or diag(join "\n", scalar(@diff) . ' differ:', @diff[0 .. ($#diff < 9 ? $#diff : 9)]);
    my @seen = grep { ($hits{$_} // 0) > 0 } qw(main luaV_execute luaH_getshortstr auxsort math_abs str_rep);
    is_deeply(\@seen, [qw(main luaV_execute luaH_getshortstr auxsort math_abs str_rep)],
        'among them main, luaV_execute, luaH_getshortstr, auxsort, math_abs, str_rep: '
        . join(', ', map { "$_ x" . ($hits{$_} // 0) } @seen));
}

# ---- math_abs patched live --------------------------------------------------
{
    my $fix = "$dir/libluafix.so";
    link_prog($fix, '-shared', '-fPIC', '-O2', "-I$src/src", "$TSRC/lua_fix.c");
    chmod 0755, $fix or die "$fix: $!";
    my $fifo = "$dir/ticks";
    POSIX::mkfifo($fifo, 0600) or die "$fifo: $!";
    spit("$dir/abs.lua", <<'LUA');
io.stdout:setvbuf("line")
local n = 0
for _ in io.lines(arg[1]) do
  n = n + 1
  print(n, math.abs(-7), string.rep("x", 3))
end
print("done", n)
LUA
    my ($out, $pidf) = ("$dir/abs.out", "$dir/abs.pid");
    my $pid = start_bg([$^X, $MT, 'run', '-o', '', "--pid-file=$pidf", '--', $pg, "$dir/abs.lua", $fifo],
        out => $out, err => "$dir/abs.err", env => { %DIR });
    # A line into the FIFO every 20 ms, until killed.
    my $ticker = fork // die "fork: $!";
    if ($ticker == 0) {
        open my $w, '>', $fifo or POSIX::_exit(1);
        while (1) {
            syswrite($w, "t\n") == 2 or POSIX::_exit(0);
            select undef, undef, undef, 0.02;
        }
    }
    my $lines = sub {
        my $n = () = (-e $out ? slurp($out) : '') =~ /\n/g;
        return $n;
    };
    ok(wait_for(120, sub { $lines->() >= 10 && -S "$ctl/$pid" }), 'live: the script prints, its socket is there');
    my $k0 = $lines->();
    my ($code, $o, $e) = mt_cli({ %DIR }, '-v', 'patch', $pid, 'math_abs', "$fix:lua_fix_abs");
    is($code, 0, 'live: patch PID math_abs LIB:lua_fix_abs exits 0') or diag $e;
    like($e, qr/^mcount-trace: math_abs patched$/m, 'live: -v says so');
    my $k1 = $lines->();
    wait_for(60, sub { $lines->() >= $k1 + 20 });
    my $k2 = $lines->();
    ($code, $o, $e) = mt_cli({ %DIR }, 'unpatch', $pid, 'math_abs');
    is($code, 0, 'live: unpatch PID math_abs exits 0') or diag $e;
    my $k3 = $lines->();
    wait_for(60, sub { $lines->() >= $k3 + 20 });
    kill 'TERM', $ticker;
    waitpid $ticker, 0;
    is(stop_bg($pid, 60), 0, 'live: the script ends (its FIFO closed), exit 0')
        or diag slurp("$dir/abs.err");
    is(slurp("$dir/abs.err"), '', 'live: nothing on standard error');

    my @l = split /\n/, slurp($out), -1;
    my (@v, @bad);
    pop @l if @l && $l[-1] eq '';
    my $done = pop @l // '';
    for my $i (1 .. @l) {
        if ($l[$i - 1] =~ /\A$i\t(7|1007)\txxx\z/) {
            push @v, $1;
        } else {
            push @bad, "line $i: '$l[$i - 1]'";
        }
    }
    is($done, "done\t" . scalar(@l), "live: the last line counts the lines ($done)");
    is_deeply([@bad[0 .. ($#bad < 4 ? $#bad : 4)]], [], 'live: every line numbered in order, 7 or 1007, and xxx');
    my $seq = join ' ', @v;
    like($seq, qr/\A7(?: 7)*(?: 1007)+(?: 7)+\z/, 'live: 7s, then 1007s, then 7s: one change and one back');
    is_deeply([grep { $v[$_ - 1] ne '7' } 1 .. $k0], [], "live: lines 1-$k0, before the patch began: 7");
    is_deeply([grep { $v[$_ - 1] ne '1007' } $k1 + 2 .. $k2], [],
        'live: lines ' . ($k1 + 2) . "-$k2, their calls after the patch returned: 1007");
    is_deeply([grep { $v[$_ - 1] ne '7' } $k3 + 2 .. @v], [],
        'live: lines ' . ($k3 + 2) . '-' . scalar(@v) . ', their calls after the unpatch returned: 7');
    cmp_ok($k2 - $k1, '>=', 20, 'live: 1007 seen for 20 lines and more');
    cmp_ok(@v - $k3, '>=', 20, 'live: 7 again for 20 lines and more');
}

done_testing();
