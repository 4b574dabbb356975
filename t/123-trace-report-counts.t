#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: slow
# `mcount-trace report` of a recording against GCC's
# -finstrument-functions on a real program nobody here wrote: Lua 5.4
# from Debian's source, built twice with the same flags (LuaBuild's
# lua_counted_builds: through mcount-cc with -pg -mfentry, and with
# -finstrument-functions and t/src/trace/cygcount.c, which counts each
# function's entries by its address).  The same deterministic script
# runs plainly on the second and under `mcount-trace record -f '*'` on the
# first, with the function_graph tracer and with the function tracer.
#
# For every function both binaries define, report's calls equal the
# number of times -finstrument-functions saw it entered (absent from a
# table: 0).  In every row self <= total, and min <= p50 <= p90 <= p99 <=
# max with the average between min and max.  main is the one root (no
# function of Lua runs before it or after it returns), so its total is
# the recording's span from its first event to its last, which `info`
# says.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw(run_cmd tmpdir spit);
use LuaBuild qw(lua_source lua_tables_script lua_counted_builds cyg_counts);
use TraceTest qw($MT clean_env nm_funcs);

clean_env();
my $dir = tmpdir();
$ENV{MCOUNT_TRACE_DIR} = "$dir/ctl";
mkdir "$dir/ctl", 0700 or die "$dir/ctl: $!";

my ($st, $src, $err, $c) = lua_source();
is($st, 0, "fetch-source lua5.4: $src") or BAIL_OUT("no Lua source: $err");
my ($pg, $cyg, $fail) = lua_counted_builds($c, $dir);
is_deeply($fail, [], 'every file compiled twice: through mcount-cc (-pg -mfentry), and with '
    . '-finstrument-functions, with the same flags') or BAIL_OUT('Lua does not build');
my ($pgdir, $cygdir) = ("$dir/pg", "$dir/cyg");

my $script = lua_tables_script(2000, 800,
    "local a = 0\nfor i = -30, 30 do a = a + math.abs(i) + #string.rep(\"ab\", i % 5) end\n",
    't[1], t[#t], #t, s, table.concat(words, "-"), fib(14), a');
spit("$_/work.lua", $script) for $pgdir, $cygdir;
my ($s1, $want, $e1) = run_cmd(['timeout', '-k', '10', '600', 'env', '-C', $cygdir, './lua', 'work.lua'],
    env => { CYG_COUNT => "$dir/cyg.count" });
is($s1, 0, 'the -finstrument-functions build runs the script') or diag $e1;
like($want, qr/\A\d+\t\d+\t2000\t\d+\tTHE-QUICK-BROWN-FOX-JUMPS-OVER-THE-LAZY-DOG\t377\t\d+\n\z/,
    "and prints its answer: $want");
my ($enters, undef, $stray) = cyg_counts($cyg, "$dir/cyg.count");
is_deeply($stray, [], "every line of the counts well formed, each address a function's (nm)");
my %in_pg = map { ($_->[2] => 1) } @{ nm_funcs($pg) };
my %in_cyg = map { ($_->[2] => 1) } @{ nm_funcs($cyg) };

# report's rows: name => {calls, total, self, min, avg, p50, p90, p99, max}
# (times in us, '-' where no call was timed); \@lines not understood.
sub report_rows {
    my ($text) = @_;
    my (%r, @bad);
    my @l = split /\n/, $text;
    push @bad, 'header: ' . ($l[0] // '(none)')
        unless ($l[0] // '') =~ /\A\s+calls\s+total\(us\)\s+self\(us\)\s+min\s+avg\s+p50\s+p90\s+p99\s+max\s+function\z/;
    for (@l[1 .. $#l]) {
        my @f = split ' ';
        # (an untimed row, the function tracer's, has '-' for each time)
        if (@f == 10 && $f[0] =~ /\A\d+\z/ && !grep { !/\A(?:[\d.]+|-)\z/ } @f[1 .. 8]) {
            my %row;
            @row{qw(calls total self min avg p50 p90 p99 max)} = @f[0 .. 8];
            push @bad, "$f[9]: two rows" if $r{ $f[9] };
            $r{ $f[9] } = \%row;
        } else {
            push @bad, "'$_'";
        }
    }
    return (\%r, \@bad);
}

for my $tracer (['function_graph', '-g'], ['function', ()]) {
    my ($name, @opt) = @$tracer;
    my $rec = "$dir/rec-$name";
    my ($s2, $o2, $e2) = run_cmd(['timeout', '-k', '10', '600', 'env', '-C', $pgdir, $^X, $MT, 'record', @opt,
        '-f', '*', '-d', $rec, '--', './lua', 'work.lua']);
    is($s2, 0, "$name: mcount-trace record -f '*' runs the script") or diag $e2;
    is($o2, $want, "$name: and it prints the same answer");
    is($e2, '', "$name: record says nothing (no event lost)");
    my ($s3, $o3, $e3) = run_cmd([$^X, $MT, 'report', $rec]);
    is($s3, 0, "$name: report exits 0") or diag $e3;
    my ($rows, $bad) = report_rows($o3);
    is_deeply($bad, [], "$name: every line of the report is a row of the table");

    my (@diff, @one);
    my $n = 0;
    for my $f (sort keys %{ { %$rows, %$enters } }) {
        if (!$in_pg{$f} || !$in_cyg{$f}) {
            push @one, $f;
            next;
        }
        $n++;
        my ($r, $x) = ($rows->{$f} ? $rows->{$f}{calls} : 0, $enters->{$f} // 0);
        push @diff, "$f: report $r, -finstrument-functions $x" if $r != $x;
    }
    note("$name: a function of one build only (not compared): " . join(', ', @one)) if @one;
    cmp_ok($n, '>', 300, "$name: $n functions compared");
    is_deeply(\@diff, [], "$name: each function's calls are -finstrument-functions' count of its entries")
        or diag(join "\n", scalar(@diff) . ' differ:', @diff[0 .. ($#diff < 9 ? $#diff : 9)]);

    my ($s4, $info) = run_cmd([$^X, $MT, 'info', $rec]);
    is($s4, 0, "$name: info exits 0");
    like($info, qr/^  end\s+done: ended cleanly \(\d+ events drained, 0 lost\)$/m, "$name: info: done, 0 lost");
    if ($name eq 'function') {
        my @timed = grep { $rows->{$_}{total} ne '-' } sort keys %$rows;
        is_deeply(\@timed, [], 'function: no row has a time (the function tracer has no exits)');
        next;
    }

    my @order;
    for my $f (sort keys %$rows) {
        my $r = $rows->{$f};
        push @order, "$f: self $r->{self} > total $r->{total}" if $r->{self} > $r->{total} + 0.0005;
        my @q = @$r{qw(min p50 p90 p99 max)};
        push @order, "$f: min p50 p90 p99 max @q" if grep { $q[$_] > $q[$_ + 1] + 0.0005 } 0 .. 3;
        push @order, "$f: avg $r->{avg} outside $r->{min}..$r->{max}"
            if $r->{avg} < $r->{min} - 0.0005 || $r->{avg} > $r->{max} + 0.0005;
    }
    is_deeply(\@order, [], 'function_graph: every row: self <= total, min <= p50 <= p90 <= p99 <= max, '
        . 'min <= avg <= max');
    my ($span) = $info =~ /^  time\s+[\d.]+ to [\d.]+ s \(([\d.]+) s\)$/m;
    ok(defined $span && $rows->{main}, 'function_graph: info gives the span, report a row for main');
    cmp_ok(abs(($rows->{main}{total} // 0) - ($span // 0) * 1e6), '<=', 2,
        "function_graph: main's total ($rows->{main}{total} us) is the recording's span ("
        . ($span // '?') . ' s): the one root');
    is($rows->{main}{calls}, 1, 'function_graph: main called once');
}

done_testing();
