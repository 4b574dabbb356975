#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# libmcount-trace against an oracle it has no part in: GCC's
# -finstrument-functions.  t/src/trace/oracle.c is compiled with -pg
# (-mfentry) and -finstrument-functions through mcount-cc, so each
# function calls the hook and then __cyg_profile_func_enter, whose log
# (t/src/trace/cyg.c, built without either) names the function entered
# and the return address in its caller.  Traced with every function on,
# the trace must hold exactly that sequence: the function (by nm, from the
# event's site address) and the parent address of each event, one for
# one, in order; the event's own names must be nm's.  The program's
# output must be that of a plain build (no -pg).  Under mcount (-pg) and
# __fentry__ (-mfentry), PIE and -no-pie, preloaded and linked in
# (libmcount-trace.a, tracing switched on from main through the C API),
# and -static.  With no filter: no event at all, the same output.  A
# parent in the C library (no table) is named as its dladdr() says.
#
# The call forms: the runtime's decoder (rt/arch-x86.c) and src/arch.c's
# x86_64 row (call-forms and linker-forms of mcount-scan --identify) must
# name the same forms, and for each form of the row a program whose sites
# have that form (checked in its bytes) is traced exactly.
use strict;
use warnings;
no warnings 'portable';    # 64-bit addresses through hex()
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP must run_cmd tmpdir slurp spit);
use TraceTest qw($SO $LIBA $RTINC $TSRC clean_env read_cyg mcc_build link_prog traced read_json read_text
    nm_funcs func_at bias_of hook_form show_seq first_diff against_cyg plan_call_forms rt_call_forms form_has);

clean_env();
my $dir = tmpdir();
my $ctl = "$dir/ctl";

# The answer: the same program built plainly.
must('gcc', '-O2', '-o', "$dir/plain", "$TSRC/oracle.c");
my $want_out = must("$dir/plain", 3);
like($want_out, qr/\Aresult -?\d+ \d+\.\d{4}\n\z/, "the plain program prints $want_out");

must('gcc', '-O2', '-c', "$TSRC/cyg.c", '-o', "$dir/cyg.o");

my %form_ok;    # call form => a variant with sites of that form was traced exactly

# One build: NAME, MCOUNT_CC_FLAGS, compile flags, link flags, 'so' or 'a',
# the call form its sites must have.
sub variant {
    my ($name, $hook, $cflags, $ldflags, $mode, $form) = @_;
    (my $tag = $name) =~ s/[^A-Za-z0-9]+/_/g;
    my $d = "$dir/$tag";
    mkdir $d or die;
    my @api = $mode eq 'a' ? ('-DWITH_API', "-I$RTINC") : ();
    mcc_build($hook, "$d/oracle.o", "$TSRC/oracle.c", '-O2', '-finstrument-functions', @api, @$cflags);
    my $prog = link_prog("$d/oracle", "$d/oracle.o", "$dir/cyg.o", $mode eq 'a' ? $LIBA : (), @$ldflags);
    my $syms = nm_funcs($prog);
    my %on = $mode eq 'a' ? (ORACLE_ENABLE => '*') : (MCOUNT_TRACE_FILTER => '*');
    my %preload = (preload => $mode eq 'so');

    # Everything traced.
    my ($st, $out, $err) = traced([$prog, 3], %preload, env => { %on, CYG_LOG => "$d/cyg.log",
        MCOUNT_TRACE_OUTPUT => "$d/trace.json", MCOUNT_TRACE_FORMAT => 'json',
        MCOUNT_TRACE_DIR => $ctl });
    is($st, 0, "$name: exits 0 traced") or diag $err;
    is($err, '', "$name: the library says nothing");
    is($out, $want_out, "$name: the output of the plain build");
    my ($ev, $errs) = -e "$d/trace.json" ? read_json("$d/trace.json") : ([], ['no trace file']);
    is_deeply($errs, [], "$name: every trace line is a well-formed event");
    my ($main_at, $cyg) = read_cyg("$d/cyg.log");
    my $bias = bias_of($syms, 'main', $main_at);
    # Linked in, tracing starts in main: what main calls after that.
    my ($want, $gotseq, $names) = against_cyg($syms, $bias, $cyg, $ev, $mode eq 'a')
        or die "$name: main is not in the -finstrument-functions log";
    my @want = @$want;
    my @gotseq = @$gotseq;
    my @names = @$names;
    cmp_ok(scalar @want, '>', 30, "$name: the program entered " . scalar(@want) . ' functions');
    is(first_diff(\@gotseq, \@want), '', "$name: the trace is the -finstrument-functions log, "
        . 'function and parent, event for event');
    is_deeply(\@names, [], "$name: each event's names are nm's");
    ok(!grep({ exists $_->{lost} } @$ev), "$name: no event lost");
    my ($leaf) = grep { $_->{func} eq 'leaf' } @$ev;
    my $got_form = $leaf ? hook_form($prog, hex($leaf->{addr}) - $bias) : '(no leaf event)';
    is($got_form, $form, "$name: the sites are $form calls");
    $form_ok{$form} = 1 if $got_form eq $form && !first_diff(\@gotseq, \@want) && !@names && @want;

    # Nothing traced: no event, the same output and the same functions entered.
    ($st, $out, $err) = traced([$prog, 3], %preload, env => { CYG_LOG => "$d/cyg0.log",
        MCOUNT_TRACE_OUTPUT => "$d/trace0.json", MCOUNT_TRACE_FORMAT => 'json',
        MCOUNT_TRACE_DIR => $ctl });
    is($st, 0, "$name: exits 0 with no filter") or diag $err;
    is($err, '', "$name: no filter: the library says nothing");
    is($out, $want_out, "$name: no filter: the output of the plain build");
    is(-e "$d/trace0.json" ? slurp("$d/trace0.json") : '(no file)', '', "$name: no filter: no event");
    my ($main0, $cyg0) = read_cyg("$d/cyg0.log");
    my $bias0 = bias_of($syms, 'main', $main0);
    splice @$cyg0, 0, scalar(@$cyg0) - scalar(@$cyg) if $mode eq 'a';
    is_deeply([show_seq($syms, $bias0, $cyg0)], \@want, "$name: no filter: the same functions entered");
    return;
}

my @fentry = ('-pg -mfentry');
my @mcount = ('-pg');
variant('fentry PIE preloaded', @fentry, [], [], 'so', 'ff15');
variant('fentry -no-pie preloaded', @fentry, ['-fno-pie'], ['-no-pie'], 'so', 'e8');
variant('mcount PIE preloaded', @mcount, [], [], 'so', 'ff15');
variant('mcount -no-pie preloaded', @mcount, ['-fno-pie'], ['-no-pie'], 'so', 'e8');
variant('fentry -fno-plt PIE preloaded', @fentry, ['-fno-plt'], [], 'so', 'ff15');
variant('fentry PIE linked in', @fentry, [], [], 'a', '67e8');
variant('mcount PIE linked in', @mcount, [], [], 'a', '67e8');
variant('fentry -no-pie linked in', @fentry, ['-fno-pie'], ['-no-pie'], 'a', 'e8');
variant('fentry -static linked in', @fentry, [], ['-static'], 'a', '67e8');
variant('mcount -static -no-pie linked in', @mcount, ['-fno-pie'], ['-static'], 'a', 'e8');
# GCC's -mnop-mcount (non-PIC only) and its own table (which mcount-cc
# leaves as it is): every site a NOP
# from the start, its call written when it is switched on; preloaded, the
# library is beyond a call's reach, and the call goes through a
# trampoline.  With -fcf-protection, __fentry__'s NOP follows an endbr64.
my @nop = ('-pg -mfentry -mnop-mcount -mrecord-mcount');
my @nop_mcount = ('-pg -mnop-mcount -mrecord-mcount');
variant('-mnop-mcount fentry -no-pie preloaded', @nop, ['-fno-pie'], ['-no-pie'], 'so', '0f1f');
variant('-mnop-mcount mcount -no-pie preloaded', @nop_mcount, ['-fno-pie'], ['-no-pie'], 'so', '0f1f');
variant('-mnop-mcount fentry, endbr64, -no-pie preloaded', @nop, ['-fno-pie', '-fcf-protection'], ['-no-pie'],
    'so', '0f1f');
variant('-mnop-mcount fentry -no-pie linked in', @nop, ['-fno-pie'], ['-no-pie'], 'a', '0f1f');
variant('-mnop-mcount mcount -static linked in', @nop_mcount, ['-fno-pie'], ['-static'], 'a', '0f1f');
# ld -z call-nop=prefix-0x90: the GOT call becomes nop; call hook
variant('fentry PIE linked in, call-nop=prefix-0x90', @fentry, [], ['-Wl,-z,call-nop=prefix-0x90'],
    'a', '90e8');

# The same program: NOTRACE takes functions out of '*' (the oracle: the
# log without them), and the text format names the same sequence.
{
    my $d = "$dir/fentry_PIE_preloaded";
    my $prog = "$d/oracle";
    my $syms = nm_funcs($prog);
    my ($st, $out, $err) = traced([$prog, 3], env => { CYG_LOG => "$d/cyg-nt.log",
        MCOUNT_TRACE_FILTER => '*', MCOUNT_TRACE_NOTRACE => 'leaf,rec', MCOUNT_TRACE_FORMAT => 'json',
        MCOUNT_TRACE_OUTPUT => "$d/nt.json", MCOUNT_TRACE_DIR => $ctl });
    is($st, 0, 'NOTRACE leaf,rec: exits 0') or diag $err;
    my ($main_at, $cyg) = read_cyg("$d/cyg-nt.log");
    my $bias = bias_of($syms, 'main', $main_at);
    my @want = grep { !/\A(leaf|rec) / } show_seq($syms, $bias, $cyg);
    my ($ev, $errs) = read_json("$d/nt.json");
    my @got = show_seq($syms, $bias, [map { my $f = func_at($syms, hex($_->{addr}) - $bias);
        [$f ? $f->[0] + $bias : 0, hex $_->{parent_addr}] } @$ev]);
    is(first_diff(\@got, \@want), '', 'NOTRACE leaf,rec: the log without leaf and rec');

    ($st, $out, $err) = traced([$prog, 3], env => { MCOUNT_TRACE_FILTER => '*', MCOUNT_TRACE_FORMAT => 'text',
        MCOUNT_TRACE_OUTPUT => "$d/t.txt", MCOUNT_TRACE_DIR => $ctl });
    is($st, 0, 'text format: exits 0') or diag $err;
    my ($tev, $terr) = read_text("$d/t.txt");
    is_deeply($terr, [], 'text format: every line well formed');
    my ($jev) = read_json("$d/trace.json");
    # (an unnamed parent is an address, which differs from run to run)
    my $seq = sub { join ' ', map { "$_->{func}<-" . ($_->{parent} =~ s/\A0x[0-9a-f]+\z/ADDR/r) } @_ };
    is($seq->(@$tev), $seq->(@$jev),
        'text format: the functions and parents of the JSON trace, in order');
    ok(!grep({ $_->{comm} ne 'oracle' } @$tev), 'text format: the command name is the program\'s');
}

# A parent in a library without a table (its symbols are read only when
# an event needs them): cmp called back by the C library's tsearch.  The
# trace's name for the parent must be a dynamic symbol of the file the C
# library's own dladdr() names, at the address of the symbol dladdr()
# gives (nm -D: aliases share an address).
{
    my $d = "$dir/libparent";
    mkdir $d or die;
    mcc_build('-pg -mfentry', "$d/libparent.o", "$TSRC/libparent.c", '-O2');
    link_prog("$d/libparent", "$d/libparent.o", '-ldl');
    my ($st, $out, $err) = traced(["$d/libparent"],
        env => { MCOUNT_TRACE_FILTER => 'cmp', MCOUNT_TRACE_OUTPUT => "$d/t.txt" });
    is($st, 0, 'libparent: runs traced') or diag($err);
    my ($lib, $want) = $out =~ /\A(\S+) (\S+)\n\z/ or diag("libparent printed '$out'");
    my ($ev, $errs) = read_text("$d/t.txt");
    is_deeply($errs, [], 'libparent: every line well formed');
    is(scalar(grep { $_->{func} eq 'cmp' } @$ev), scalar(@$ev), 'libparent: events of cmp only');
    cmp_ok(scalar(@$ev), '>=', 3, 'libparent: tsearch called cmp');
    my %addr;
    for (split /\n/, must('nm', '-D', '--defined-only', $lib // '/nonexistent')) {
        $addr{$2} = $1 if /\A([0-9a-f]+) [TtWwIi] (\S+?)(?:@.*)?\z/;
    }
    ok(defined $want && defined $addr{$want}, "nm -D $lib knows dladdr's $want");
    for my $p (sort { $a cmp $b } keys %{ { map { $_->{parent} => 1 } @$ev } }) {
        ok(defined $addr{$p} && defined $want && $addr{$p} eq ($addr{$want} // ''),
            "libparent: the parent '$p' is the C library's $want (nm -D)");
    }
}

# A shared library whose code has only global functions (preemptible),
# one of which, pre_first, the program defines too: the dynamic linker
# binds the library's call of pre_first to the program's, as ELF wants,
# but the library's table must stay on the library's own calls.  Traced:
# nothing left alone or refused, the output of a plain build, and the
# library's pre_outer (in nm -D of the library) entered once a call.
{
    my $d = "$dir/preempt";
    mkdir $d or die;
    must('gcc', '-O2', '-fPIC', '-shared', '-o', "$d/libplain.so", "$TSRC/preempt_lib.c");
    must('gcc', '-O2', '-o', "$d/plain", "$TSRC/preempt_main.c", "$d/libplain.so", "-Wl,-rpath,$d");
    my $want = must("$d/plain");
    mcc_build('-pg -mfentry', "$d/lib.o", "$TSRC/preempt_lib.c", '-O2', '-fPIC');
    link_prog("$d/libpre.so", '-shared', "$d/lib.o");
    mcc_build('-pg -mfentry', "$d/main.o", "$TSRC/preempt_main.c", '-O2');
    link_prog("$d/main", "$d/main.o", "$d/libpre.so", "-Wl,-rpath,$d");
    my ($st, $out, $err) = traced(["$d/main"],
        env => { MCOUNT_TRACE_FILTER => '*', MCOUNT_TRACE_OUTPUT => "$d/t.txt" });
    is("$st $out", "0 $want", 'preempt: the plain build\'s output traced');
    is($err, '', 'preempt: nothing said (no entry left alone)');
    my ($ev, $errs) = read_text("$d/t.txt");
    is_deeply($errs, [], 'preempt: every line well formed');
    my %n;
    $n{"$_->{func} <-$_->{parent}"}++ for grep { $_->{func} ne 'main' } @$ev;
    is_deeply(\%n, { 'pre_outer <-main' => 3, 'pre_first <-pre_outer' => 3 },
        'preempt: pre_outer <-main and pre_first <-pre_outer, 3 times each');
    like(must('nm', '-D', '--defined-only', "$d/libpre.so"), qr/^[0-9a-f]+ T pre_outer$/m,
        'preempt: pre_outer is the library\'s (nm -D)');
}

# The two tables of call forms: src/arch.c's x86_64 row, through the
# helper's plan, and rt/arch-x86.c's decoder (TraceTest).
my $plan = must("$TOP/build/mcount-scan", '--identify', "--object=$dir/fentry_PIE_preloaded/oracle.o");
like($plan, qr/^arch\tx86_64$/m, 'mcount-scan --identify: an x86_64 object');
my $plan_forms = plan_call_forms($plan);
my $rt_forms = rt_call_forms('x86_64');
cmp_ok(scalar keys %$rt_forms, '>=', 3, 'the decoder takes ' . join(' ', sort keys %$rt_forms));
is_deeply([sort keys %$rt_forms], [sort keys %$plan_forms],
    'the runtime decodes exactly the call forms of src/arch.c (opcode/mask/length)');
for my $f (sort keys %$plan_forms) {
    ok((grep { form_has($f, $_) } keys %form_ok), "form $f of src/arch.c: a program whose sites have it is traced exactly");
}

done_testing();
