#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# libmcount-trace on C++ (t/src/trace/cxx.cc: a namespace, a class with
# virtual and overloaded members, a template instantiated twice, an
# operator), compiled and linked through mcount-cc g++ with -pg -mfentry
# (link-time mode: the link records).  The names of the trace are the
# program's symbols as binutils' c++filt demangles them (the function and
# its parent, found by address with readelf); a filter on a demangled
# name (geo::Rect::scale*) traces exactly the functions whose c++filt
# names match it; MCOUNT_TRACE_DEMANGLE=0 keeps the symbols' own names;
# function_graph's text writes a demangled name with its own parameters.
# The program prints what a plain g++ build prints.
use strict;
use warnings;
no warnings 'portable';    # 64-bit addresses through hex()
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP must run_cmd tmpdir slurp spit);
use TraceTest qw($MCC $TSRC clean_env traced read_text read_json read_graph_text nm_funcs func_at);

clean_env();
my $dir = tmpdir();
my $src = "$TSRC/cxx.cc";

must('g++', '-O2', '-o', "$dir/plain", $src);
my $want = must("$dir/plain", 3);
like($want, qr/\Asum \d+ vec \d+ \d+\n\z/, "the plain program prints $want");

my %env = (MCOUNT_CC_FLAGS => '-pg -mfentry');
for my $cmd (['-O2', '-c', $src, '-o', "$dir/cxx.o"], ['-o', "$dir/cxx", "$dir/cxx.o"]) {
    my ($st, $o, $e) = run_cmd([$MCC, 'g++', @$cmd], env => \%env);
    is($st, 0, "mcount-cc g++ @$cmd") or diag("$o$e");
}
my ($lst) = run_cmd(["$TOP/bin/mcount-record", '--verify', "$dir/cxx"]);
is($lst, 0, 'mcount-record --verify: the table is right');

my $syms = nm_funcs("$dir/cxx");
my %raw = map { $_->[2] => 1 } @$syms;
my @names = sort keys %raw;
my @dem = split /\n/, must_stdin(join("\n", @names) . "\n", 'c++filt');
is(scalar @dem, scalar @names, 'c++filt demangles every symbol name');
my %cxxfilt;
@cxxfilt{@names} = @dem;

sub must_stdin {
    my ($in, @cmd) = @_;
    my ($st, $o, $e) = run_cmd([@cmd], stdin => $in);
    die "@cmd: $e" if $st;
    return $o;
}

# One run: (\@events of the JSON trace, the program's bias).
sub run_json {
    my ($tag, %e) = @_;
    my ($st, $out, $err) = traced(["$dir/cxx", 3],
        env => { MCOUNT_TRACE_FORMAT => 'json', MCOUNT_TRACE_OUTPUT => "$dir/$tag.json", %e });
    is($st, 0, "$tag: runs traced") or diag($err);
    is($out, $want, "$tag: prints what the plain build prints");
    my ($at) = $err =~ /^twice (0x[0-9a-f]+)$/m or diag("no address on stderr: $err");
    my ($s) = grep { $_->[2] eq '_ZN3geo5twiceIlEET_S1_' } @$syms;
    my ($ev, $errs) = read_json("$dir/$tag.json");
    is_deeply($errs, [], "$tag: every line is a JSON object");
    return ($ev, hex($at // 0) - ($s ? $s->[0] : 0));
}

# Every function, names demangled.
my ($ev, $bias) = run_json('all', MCOUNT_TRACE_FILTER => '*');
cmp_ok(scalar @$ev, '>=', 20, scalar(@$ev) . ' events');
my (@bad, %seen);
for my $e (@$ev) {
    my $f = func_at($syms, hex($e->{addr}) - $bias);
    my $w = $f ? $cxxfilt{ $f->[2] } : undef;
    push @bad, "$e->{addr}: trace '$e->{func}', c++filt '" . ($w // '?') . "'" if !defined $w || $w ne $e->{func};
    $seen{ $e->{func} }++;
    my $p = func_at($syms, hex($e->{parent_addr}) - $bias) or next;    # in the C library
    push @bad, "$e->{parent_addr}: parent '$e->{parent}', c++filt '$cxxfilt{$p->[2]}'"
        if $e->{parent} ne $cxxfilt{ $p->[2] };
}
is_deeply(\@bad, [], 'every function and parent is named as c++filt names its symbol');
for my $n ('geo::Rect::area() const', 'geo::Rect::scale(long, long) const', 'long geo::twice<long>(long)',
    'double geo::twice<double>(double)', 'geo::operator+(geo::Vec, geo::Vec)') {
    ok($seen{$n}, "traced: $n");
}

# A filter on demangled names.
my $glob = 'geo::Rect::scale*';
(my $re = quotemeta $glob) =~ s/\\\*/.*/g;
my %want_f = map { $cxxfilt{$_} => 1 } grep { $cxxfilt{$_} =~ /\A$re\z/ } @names;
cmp_ok(scalar keys %want_f, '==', 2, "c++filt names two functions $glob");
($ev) = run_json('scale', MCOUNT_TRACE_FILTER => $glob);
my %got_f = map { $_->{func} => 1 } @$ev;
is_deeply(\%got_f, \%want_f, "MCOUNT_TRACE_FILTER='$glob' traces exactly those");

# A function event on a demangled name, spaces and comma and all: only
# that function traced, with the arguments main gives it (r.scale(3, i)
# for i = 1..3).
{
    my $proto = 'geo::Rect::scale(long, long) const(void *self, long k, long m)';
    my ($pev) = run_json('event', MCOUNT_TRACE_EVENTS => $proto);
    my @got = map { "$_->{func}: k=" . ($_->{args}{k} // '?') . ' m=' . ($_->{args}{m} // '?')
        . (($_->{args}{self} // '') =~ /\A0x[0-9a-f]+\z/ ? '' : ' self?') } @$pev;
    is_deeply(\@got, [map { "geo::Rect::scale(long, long) const: k=3 m=$_" } 1 .. 3],
        "MCOUNT_TRACE_EVENTS='$proto': its three calls, with their arguments");
}

# Demangling off: the symbols' own names.
($ev, $bias) = run_json('raw', MCOUNT_TRACE_FILTER => '_ZNK3geo*', MCOUNT_TRACE_DEMANGLE => '0');
cmp_ok(scalar @$ev, '>=', 3, 'MCOUNT_TRACE_DEMANGLE=0: events of _ZNK3geo*');
@bad = ();
for my $e (@$ev) {
    my $f = func_at($syms, hex($e->{addr}) - $bias);
    push @bad, "$e->{func}" unless $f && $f->[2] eq $e->{func} && $e->{func} =~ /\A_ZNK3geo/;
}
is_deeply(\@bad, [], 'MCOUNT_TRACE_DEMANGLE=0: every name is the symbol\'s own');

# The text format with names that have spaces and parentheses.
my ($st, $out, $err) = traced(["$dir/cxx", 3],
    env => { MCOUNT_TRACE_FILTER => 'geo::*', MCOUNT_TRACE_OUTPUT => "$dir/t.txt" });
is($st, 0, 'text: runs traced') or diag($err);
my ($tev, $terr) = read_text("$dir/t.txt");
is_deeply($terr, [], 'text: every line well formed');
ok(!grep({ $_->{func} !~ /\A(?:\S+ )?geo::/ } @$tev), 'text: only functions of geo::');
ok(scalar(grep { $_->{func} eq 'geo::Rect::scale(long) const' && $_->{parent} eq 'geo::Rect::scale(long, long) const' }
    @$tev), 'text: geo::Rect::scale(long) const <-geo::Rect::scale(long, long) const');

# function_graph's text: a C++ name keeps its own parameter list
# ("geo::Rect::area() const;", "...scale(long) const {"), no "()" added.
($st, $out, $err) = traced(["$dir/cxx", 3], env => { MCOUNT_TRACE_FILTER => 'geo::*',
    MCOUNT_TRACE_TRACER => 'function_graph', MCOUNT_TRACE_OUTPUT => "$dir/g.txt" });
is($st, 0, 'function_graph: runs traced') or diag($err);
my %names = map { $_ => 1 } values %cxxfilt;
my (%gseen, @gbad);
my (undef, $gerr) = read_graph_text("$dir/g.txt");
is_deeply($gerr, [], 'function_graph: every line the kernel\'s (markers at changes of thread)');
for (grep { !/^#/ && !/\A -{42}\z/ && !/\A[ \d]\d\) .* => / && length } split /\n/, slurp("$dir/g.txt")) {
    next if /\|\s+\} \/\* /;                    # a return
    if (/\A.*\|\s{2,}(\S.*?)(;| \{)\z/ && $names{$1}) { $gseen{$1}++ } else { push @gbad, $_ }
}
is_deeply(\@gbad, [], 'function_graph: every call line is a c++filt name and ; or {');
ok($gseen{'geo::Rect::area() const'} && $gseen{'geo::Rect::scale(long, long) const'},
    'function_graph: geo::Rect::area() const and geo::Rect::scale(long, long) const');

done_testing();
