#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# Hooks (mcount_hook(3)) through C++ exceptions, against the functions'
# own record (t/src/trace/hooks_cxx.cc): a hook with entry and exit
# callbacks on the functions of namespace ex ("ex::*", a demangled
# filter), which throw, catch and rethrow across hooked frames in 4
# threads: caught in the frame that threw, one frame up, five frames up
# through frames whose destructors call hooked functions and through a
# handler of another type; rethrown (throw;) twice, or a new exception
# thrown from a handler; a throw and catch inside a handler; an
# exception kept as a std::exception_ptr and rethrown in another thread
# (std::rethrow_exception) through three hooked frames.  What the page
# promises: every call gets its entry callback; every frame that
# returns, its exit callback, once, right after the return, with the
# value returned; a frame an exception leaves, none.  The program checks
# each callback against its own record as it comes, and the counts
# function by function at the end.
# Built with -pg -mfentry and with -pg (mcount), linked with the static
# library (a dynamically linked program: its weak unwinder wrappers),
# with the shared one, and under ASan and UBSan with build/asan's.
# The function_graph tracer beside the hook on the same functions: its
# trace has the calls, the returns and the frames left (marked unwound)
# that the program counted, each exit closing its thread's innermost
# open call.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP run_cmd tmpdir);
use TraceTest qw($SO $LIBA $RTINC $TSRC clean_env mcc_build link_prog read_graph_json);

clean_env();
my $dir = tmpdir();
my $src = "$TSRC/hooks_cxx.cc";
my $asan = "$TOP/build/asan/libmcount-trace.a";
die "$asan: run make check (or make $asan) first\n" unless -f $asan;
my $THREADS = 4;

my %prog;
for my $h (['fentry', '-pg -mfentry'], ['mcount', '-pg']) {
    my ($hn, $flags) = @$h;
    mcc_build($flags, "$dir/$hn.o", $src, '-O2', "-I$RTINC");
    $prog{"$hn-static"} = link_prog("$dir/$hn-static", "$dir/$hn.o", $LIBA, '-lstdc++', '-lpthread');
}
(my $sodir = $SO) =~ s{/[^/]+\z}{};
$prog{'fentry-shared'} = link_prog("$dir/fentry-shared", "$dir/fentry.o", "-L$sodir", '-lmcount-trace',
    "-Wl,-rpath,$sodir", '-lstdc++', '-lpthread');
mcc_build('-pg -mfentry', "$dir/san.o", $src, '-O1', '-g', "-I$RTINC", '-fsanitize=address,undefined');
$prog{asan} = link_prog("$dir/asan", "$dir/san.o", '-fsanitize=address,undefined', $asan, '-lstdc++',
    '-lpthread');

# run_prog(PROG, ARGS..., {env}) -> (status, stdout, stderr)
sub run_prog {
    my ($p, @args) = @_;
    my $env = ref $args[-1] eq 'HASH' ? pop @args : {};
    return run_cmd(['timeout', '-k', '10', '300', 'env', 'LC_ALL=C', map({ "$_=$env->{$_}" } sort keys %$env),
        $p, @args]);
}

# The program's line of counts: { calls, exits, unwound, ... }, after its
# checks passed.
sub clean_run {
    my ($name, $p, $rounds, $env) = @_;
    my ($st, $out, $err) = run_prog($p, $THREADS, $rounds, $env // {});
    is($st, 0, "$name: exit status 0 (no std::terminate, no crash)") or diag("$out$err");
    unlike($out, qr/^FAIL/m, "$name: every callback as the functions' own record") or diag($out);
    is($err, '', "$name: nothing on standard error") or diag($err);
    my ($line) = $out =~ /^ok cxx (.*)$/m;
    ok($line, "$name: the program's checks passed") or return {};
    my %n = $line =~ /(\S+)=(\d+)/g;
    my $passed = $THREADS * int(($rounds + 3) / 4);
    ok($n{threads} == $THREADS && $n{rounds} == $rounds && $n{passed} == $passed,
        "$name: $THREADS threads, $rounds rounds, $passed exceptions passed between threads");
    ok($n{exits} > 0 && $n{unwound} > 0 && $n{thrown} > 0 && $n{rethrown} > 0 && $n{'in-handler'} > 0,
        "$name: $n{exits} exits of frames that returned, $n{unwound} frames left by $n{thrown} throws"
        . " and $n{rethrown} rethrows, none with an exit");
    ok($n{calls} == $n{exits} + $n{unwound}, "$name: each call returned or was left");
    return \%n;
}

# The -mfentry program with the static library at the full count; the
# others at fewer rounds, and there the builds agree, count for count.
my %counts;
for my $k (sort keys %prog) {
    $counts{$k} = clean_run($k, $prog{$k}, $k eq 'fentry-static' ? 4000 : 2000);
}
for my $k ('fentry-shared', 'mcount-static') {
    is_deeply($counts{$k}, $counts{asan}, "$k: the counts of the ASan build at as many rounds");
}

# ---- the function_graph tracer beside the hook ----
for my $k ('fentry-static', 'fentry-shared') {
    my $file = "$dir/graph-$k.json";
    unlink $file;
    my $n = clean_run("$k with function_graph", $prog{$k}, 100,
        { MCOUNT_TRACE_TRACER => 'function_graph', MCOUNT_TRACE_FILTER => 'ex::*', MCOUNT_TRACE_FORMAT => 'json',
          MCOUNT_TRACE_OUTPUT => $file });
    my ($ev, $err) = read_graph_json($file);
    is_deeply($err, [], "$k function_graph: the trace is well formed");
    my (%open, @bad, %got);
    for my $e (@$ev) {
        if (exists $e->{lost}) {
            push @bad, "lost $e->{lost}";
        } elsif (exists $e->{func}) {
            $got{calls}++;
            push @bad, "$e->{func}: not of ex" unless $e->{func} =~ /\Aex::/;
            push @{ $open{ $e->{tid} } }, $e->{func};
        } else {
            $got{ $e->{unwound} ? 'unwound' : 'exits' }++;
            my $top = pop @{ $open{ $e->{tid} } } // '(none)';
            push @bad, "thread $e->{tid}: exit of $e->{exit}, innermost open call $top" if $top ne $e->{exit};
        }
    }
    push @bad, map { "thread $_: " . scalar(@{ $open{$_} }) . ' calls open at the end' } grep { @{ $open{$_} } }
        sort keys %open;
    is_deeply(\@bad, [], "$k function_graph: every exit closes its thread's innermost open call, nothing lost");
    is_deeply(\%got, { map { $_ => $n->{$_} } qw(calls exits unwound) },
        "$k function_graph: the trace's calls, returns and frames left are the program's");
}

done_testing();
