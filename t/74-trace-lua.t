#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: slow
# libmcount-trace on a real program nobody here wrote: Lua 5.4 from
# Debian's source (scripts/fetch-source lua5.4), every file of src/ but
# luac.c compiled through mcount-cc with -pg -mfentry and linked plainly.
# mcount-record --verify passes on it.  A Lua script run plainly and under
# mcount-trace run -f 'luaH_*' prints the same; the trace holds luaH_*
# events only, each a function nm (readelf) shows, every line well formed.
# Then live by PID: a script that runs until a file exists, luaV_execute
# enabled from outside, show prints luaV_execute events, disable, status
# says 0 functions traced, and the script ends with the plain output.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP run_cmd tmpdir slurp spit);
use LuaBuild qw(lua_source lua_compile lua_tables_script);
use TraceTest qw($MCC $MT $SO clean_env link_prog traced read_text nm_funcs wait_for start_bg
    stop_bg mt_cli);

clean_env();
my $dir = tmpdir();
my $ctl = "$dir/ctl";
$ENV{MCOUNT_TRACE_DIR} = $ctl;

my ($st, $src, $err, $c) = lua_source();
is($st, 0, "fetch-source lua5.4: $src") or BAIL_OUT("no Lua source: $err");
cmp_ok(scalar @$c, '>', 20, scalar(@$c) . ' C files of Lua');
my $fail = lua_compile($c, $dir, [$MCC, 'gcc', '-O2', '-DLUA_USE_POSIX'],
    env => { MCOUNT_CC_FLAGS => '-pg -mfentry' });
is_deeply($fail, [], 'every file compiled through mcount-cc gcc -O2 -DLUA_USE_POSIX (-pg -mfentry)');
my $lua = link_prog("$dir/lua", glob("$dir/*.o"), '-lm');
($st, my $out) = run_cmd(["$TOP/bin/mcount-record", '--verify', $lua]);
is($st, 0, 'mcount-record --verify lua passes') or diag $out;

my $syms = nm_funcs($lua);
my %nm = map { ($_->[2] => 1) } @$syms;
ok($nm{luaH_get} && $nm{luaV_execute}, 'nm shows luaH_get and luaV_execute');

spit("$dir/tables.lua", lua_tables_script(20000, 5000, '',
    't[1], t[#t], #t, s, table.concat(words, "-"), fib(20), string.format("%.3f", math.pi)'));
($st, my $want) = run_cmd([$lua, "$dir/tables.lua"]);
is($st, 0, 'lua tables.lua runs plainly');
like($want, qr/\A\d+\t\d+\t20000\t\d+\tTHE-QUICK-BROWN-FOX-JUMPS-OVER-THE-LAZY-DOG\t6765\t3\.142\n\z/,
    "plainly: $want");

{
    my $t = "$dir/luaH.txt";
    my ($s2, $o2, $e2) = run_cmd(['timeout', '-k', '10', '600', $^X, $MT, 'run', '-f', 'luaH_*', '-o', $t,
        '--', $lua, "$dir/tables.lua"]);
    is($s2, 0, "mcount-trace run -f 'luaH_*': exit 0") or diag $e2;
    is($o2, $want, 'traced: the same output');
    my @msg = grep { !/\Amcount-trace: \d+ events lost: their threads' buffers were full/ } split /\n/, $e2;
    is_deeply(\@msg, [], 'traced: no message but a count of events lost');
    my ($ev, $errs) = read_text($t);
    is_deeply([@$errs[0 .. ($#$errs < 4 ? $#$errs : 4)]], [], 'traced: every line of the trace is well formed');
    my (%seen, @bad);
    for my $e (grep { !exists $_->{lost} } @$ev) {
        $seen{ $e->{func} }++;
        push @bad, "line $e->{line}: $e->{func}" unless $e->{func} =~ /\AluaH_/ && $nm{ $e->{func} };
        push @bad, "line $e->{line}: parent $e->{parent}"
            unless $nm{ $e->{parent} } || $e->{parent} =~ /\A(?:[^\s\/]+\+)?0x[0-9a-f]+\z/;
        last if @bad > 10;
    }
    is_deeply(\@bad, [], 'traced: luaH_* events only, each function (and named parent) one nm shows');
    ok($seen{luaH_get} || $seen{luaH_getint} || $seen{luaH_getshortstr},
        'traced: ' . join(', ', map { "$_ x$seen{$_}" } sort keys %seen));
}

# Live by PID.  Lua calls Lua functions without entering luaV_execute
# again; a function called from C (pcall) enters it.
spit("$dir/loop.lua", <<'LUA');
local stop = arg[1]
local n, acc = 0, 0
while true do
  local f = io.open(stop, "r")
  if f then f:close() break end
  for i = 1, 2000 do local t = {i, i + 1} acc = (acc + t[1] * t[2]) % 1000003 end
  -- a Lua function called from C (pcall): a new luaV_execute
  local ok, v = pcall(function(x) return x + 1 end, n)
  n = v
end
local t = {}
for i = 1, 1000 do t[i] = i % 17 end
local s = 0
for _, v in ipairs(t) do s = s + v end
print("done", s)
LUA
{
    my $stop = "$dir/stop-plain";
    spit($stop, '');
    (undef, my $want2) = run_cmd([$lua, "$dir/loop.lua", $stop]);
    is($want2, "done\t7993\n", "the loop script plainly: $want2");

    $stop = "$dir/stop";
    my $pidf = "$dir/lua.pid";
    my $pid = start_bg([$^X, $MT, 'run', '-o', '', "--pid-file=$pidf", '--', $lua, "$dir/loop.lua", $stop],
        out => "$dir/loop.out", err => "$dir/loop.err");
    ok(wait_for(120, sub { -s $pidf && -S "$ctl/$pid" }), 'live: lua runs under mcount-trace, its socket is there');
    is(slurp($pidf), "$pid\n", 'live: the PID file names the process');
    my ($code, $o, $e) = mt_cli('enable', $pid, 'luaV_execute');
    is($code, 0, 'live: enable PID luaV_execute') or diag $e;
    my $events = 0;
    my @bad;
    wait_for(120, sub {
        my ($c, $show, $se) = mt_cli('show', $pid);
        push @bad, "show: exit $c: $se" if $c != 0;
        spit("$dir/show.txt", $show);
        my ($ev, $errs) = read_text("$dir/show.txt", header => 0);
        push @bad, @$errs;
        for (grep { !exists $_->{lost} } @$ev) {
            $events++;
            push @bad, "show: $_->{func}" if $_->{func} ne 'luaV_execute';
        }
        return $events || @bad;
    });
    cmp_ok($events, '>', 0, "live: show prints luaV_execute events ($events)");
    is_deeply([@bad[0 .. ($#bad < 4 ? $#bad : 4)]], [], 'live: and only those, each line well formed');
    ($code, $o, $e) = mt_cli('disable', $pid, 'luaV_execute');
    is($code, 0, 'live: disable PID luaV_execute') or diag $e;
    ($code, $o, $e) = mt_cli('status', $pid);
    is($code, 0, 'live: status PID');
    like($o, qr/^functions traced: 0$/m, 'live: status says 0 functions traced');
    like($o, qr/^functions: [1-9]\d*$/m, 'live: status counts the functions');
    # notrace marks a function that is not traced: counted, and it holds
    ($code, $o) = mt_cli('list', $pid);
    my ($fn) = grep { $_ ne 'luaV_execute' } map { (split ' ')[0] } split /\n/, $o;
    ($code, $o, $e) = mt_cli('notrace', '-v', $pid, $fn);
    is("$code $e", "0 mcount-trace: 1 function marked notrace\n", "live: notrace $fn (not traced): marked");
    ($code, $o, $e) = mt_cli('enable', $pid, $fn);
    like($e, qr/: warning: no function enabled: /, "live: enable $fn: it stays off, said");
    ($code, $o, $e) = mt_cli('notrace', $pid, $fn);
    like($e, qr/: warning: no function marked notrace: /, "live: notrace $fn again: nothing to mark, said");
    spit($stop, '');
    my $s3 = stop_bg($pid, 300);
    is($s3, 0, 'live: lua ends, exit 0') or diag slurp("$dir/loop.err");
    is(slurp("$dir/loop.out"), $want2, 'live: the output is unchanged');
    is(slurp("$dir/loop.err"), '', 'live: no message');
}

done_testing();
