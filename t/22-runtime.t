#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# The runtime oracle: a statically linked program made of the recorded
# corpus objects and a hook of its own.  At every call the hook checks that
# the call instruction ending at its return address is a table entry (or
# lies in the one section the table leaves out); at the end every entry
# must have been reached, none listed twice (t/src/hook_check.c).  The
# -m32 programs run under qemu-i386 where the host cannot run them.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use File::Copy qw(copy);
use TestUtil qw($SRC must compile record_pl tmpdir arch_of_flags ld_emulation run_prog);
use ObjDiff qw(diff_objects);

my $dir = tmpdir();

my @variants = (
    ['-O0', '-pg'], ['-O2', '-pg'], ['-Os', '-pg'],
    ['-O2', '-pg', '-mfentry'], ['-O0', '-pg', '-mfentry'],
    ['-O2', '-pg', '-fno-pie'], ['-O2', '-pg', '-mfentry', '-fno-pie'],
    ['-O2', '-pg', '-fPIC'], ['-Os', '-pg', '-mfentry', '-fPIC'],
    ['-O2', '-pg', '-mfentry', '-fcf-protection=full'],
    ['-O2', '-pg', '-ffunction-sections'],
    ['-m32', '-O2', '-pg'], ['-m32', '-O0', '-pg', '-fPIC'],
    ['-m32', '-O2', '-pg', '-mfentry', '-fno-pie'], ['-m32', '-Os', '-pg', '-fno-pie'],
    # clang: no -mrecord-mcount to compare with, so this oracle and the
    # invariance check are what prove its objects right
    ['clang', '-O2', '-pg'], ['clang', '-O0', '-pg', '-fPIC'], ['clang', '-O2', '-pg', '-mfentry'],
    ['clang', '-Os', '-pg', '-ffunction-sections'], ['clang', '-m32', '-O2', '-pg'],
);

# record(OBJ, FLAGS, OPTS...): OBJ recorded by recordmcount.pl as an
# object built with FLAGS, and nothing but its table changed (a copy of
# it before: OBJ.plain.o); dies otherwise.
sub record {
    my ($obj, $flags, @record_opts) = @_;
    (my $plain = $obj) =~ s/\.o\z/.plain.o/;
    copy($obj, $plain) or die;
    my ($st, undef, $err) = record_pl($obj, $flags, @record_opts);
    die "recording $obj (@$flags) failed: $err" if $st != 0;
    die "recording $obj (@$flags) said: $err" if length $err;
    my @d = diff_objects($plain, $obj, qr/^\$mcount_anchor\S* \d+ 0 NOTYPE LOCAL DEFAULT /);
    die "recording $obj (@$flags) changed more than the table:\n" . join("\n", @d) . "\n" if @d;
    return $obj;
}

# The objects whose input does not change with the optimisation or
# code model, built (and asm_cases.o recorded) once for each word size,
# recording command (its compiler assembles: gcc or clang) and options.
my %shared;
sub shared {
    my ($what, $key, $make) = @_;
    my $d = "$dir/shared-" . ("$what @$key" =~ s/[^A-Za-z0-9]+/_/gr);
    return $shared{$d} //= do { mkdir $d or die; $make->($d) };
}

sub build_and_run {
    my ($flags, $exotic, @record_opts) = @_;
    my @f = @$flags;
    my @cc = @f && $f[0] eq 'clang' ? (shift @f) : ();
    my ($arch, $bits) = arch_of_flags(@f);
    my @m = $bits == 32 ? ('-m32') : ();
    my $tag = join('', @cc, @f, @record_opts) =~ s/[^A-Za-z0-9]+/_/gr;
    my $d = "$dir/$tag";
    mkdir $d or die;
    compile("$SRC/$_.c", "$d/$_.o", @cc, @f) for qw(corpus prog_main dup_a dup_b);
    must('ld', '-m', ld_emulation(@f), '-r', '-o', "$d/dup.o",
        "$d/dup_a.o", "$d/dup_b.o");
    for my $o (qw(corpus prog_main dup)) {
        record("$d/$o.o", $flags, @record_opts);
    }
    my $asm = shared('asm', [@cc, @m, @record_opts], sub {
        record(compile("$SRC/asm_cases.S", "$_[0]/asm_cases.o", @m, '-Wa,-L'), $flags, @record_opts) });
    my $hook = shared('hook', [@m], sub { compile("$SRC/hook.S", "$_[0]/hook.o", @m) });
    my $check = shared('check', [@m, $exotic], sub {
        compile("$SRC/hook_check.c", "$_[0]/hook_check.o", @m, '-O2', '-mgeneral-regs-only',
            "-DEXOTIC_RECORDED=$exotic") });
    must('gcc', @m, '-static', '-o', "$d/prog", map({ "$d/$_.o" } qw(corpus prog_main dup)), $asm, $hook, $check);
    return run_prog(["$d/prog"], arch => $arch);
}

for my $v (@variants) {
    my ($st, $out) = build_and_run($v, 0);
    my ($summary) = $out =~ /^(entries=.*)$/m;
    is($st, 0, "@$v: every call site is in the table, every entry reached")
        or diag $out;
    like($summary // '', qr/^entries=(\d+) reached=\1 calls=\d+ unknown=0 duplicates=0 excluded_calls=[1-9]/,
        "@$v: $summary");
}

# With every executable section recorded, exotic_text's calls are entries too.
for my $v (['-O2', '-pg', '-mfentry'], ['-m32', '-O2', '-pg']) {
    my ($st, $out) = build_and_run($v, 1, '--sections=all');
    is($st, 0, "@$v --sections=all: the left-out section is now in the table") or diag $out;
}

# The oracle can fail: entries at the relocation instead of the call are
# each off by one or two bytes, and the program must say so.
{
    my ($st, $out) = build_and_run(['-O2', '-pg', '-mfentry'], 0, '--entry=reloc');
    isnt($st, 0, 'negative control: a table of relocation addresses is rejected');
    like($out, qr/never reached/, 'negative control: entries reported as never reached');
    like($out, qr/calls from sites not in the table/, 'negative control: call sites reported as unknown');
}

done_testing();
