#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# The architectures' registry, arches.tab, against what derives from it
# and what it must agree with: the recorder's rows in src/arch.c
# (build/arch-check, which make runs, and mcount-scan --list-arches),
# the tracer's files in rt/ (every row's exist, and no file is no row's),
# the Makefile's cross builds (make rt-ARCH for the rows built "cross" or
# "both"), and the architecture the front ends give an ELF header
# (RecordMcount::Front's elf_arch, through RecordMcount::Arch): each
# row's own name, and a name for what no row describes.  And guests.tab,
# the booted guests (t/79-trace-system.t): each names a row of arches.tab
# the tracer is built for, a module of t/lib, SysTrace's check sets, and
# a kernel the Makefile has a rule for.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP run_cmd must tmpdir);
use RecordMcount::Arch qw(arch_rows arch_row arch_traced);
use RecordMcount::Front;

my @rows = arch_rows();
ok(@rows >= 2, 'arches.tab has rows (' . scalar(@rows) . ')');

# the recorder's rows: the same names, machines, classes, byte orders,
# triples and kernel ARCH names, none more (build/arch-check)
my ($st, $out, $err) = run_cmd(["$TOP/build/arch-check"]);
is($st, 0, 'build/arch-check: src/arch.c and arches.tab agree') or diag "$out$err";
my @listed = must("$TOP/build/mcount-scan", '--list-arches') =~ /^(\S+)\t/mg;
is_deeply(\@listed, [map { $_->{name} } @rows], 'mcount-scan --list-arches: the rows of arches.tab, in order');

# each row well formed
my %FIELD = map { ($_ => 1) } qw(name tracer kernel machine class endian eflags triple qemu debian rt hook build
    hot cflags so_cflags so_ldflags);
my (%name, %tracer, %kind);
for my $r (@rows) {
    my $n = $r->{name};
    ok(!$name{$n}++, "$n: one row of that name");
    ok(!$tracer{ $r->{tracer} }++, "$n: its tracer name ($r->{tracer}) is no other row's");
    like("$r->{machine} $r->{class} $r->{endian}", qr/^\d+ (?:32|64) (?:little|big)$/, "$n: machine, class, byte order");
    like($r->{eflags} // '', qr/^(?:|0x[0-9a-f]+=(?:0x[0-9a-f]+|\d+))$/, "$n: eflags is MASK=VALUE or -");
    like($r->{triple}, qr/^[a-z0-9_]+-linux-gnu\w*$/, "$n: a GNU triple");
    like($r->{qemu}, qr/^qemu-\w+$/, "$n: a qemu-user program");
    ok(defined $r->{rt} == defined $r->{hook} && defined $r->{rt} == defined $r->{build},
        "$n: rt, hook and build all given, or none");
    like($r->{build} // 'host', qr/^(?:host|cross|both)$/, "$n: build is host, cross or both");
    if (defined $r->{rt}) {
        ok(-f "$TOP/rt/arch-$r->{rt}.c", "$n: rt/arch-$r->{rt}.c exists");
        ok(-f "$TOP/rt/hook-$r->{hook}.S", "$n: rt/hook-$r->{hook}.S exists");
    }
    # rows of one machine, class and byte order: e_flags tells them apart
    push @{ $kind{"$r->{machine}:$r->{class}:$r->{endian}"} }, $r;
    my @extra = sort grep { !$FIELD{$_} } keys %$r;
    is_deeply(\@extra, [], "$n: no KEY=WORD field but hot, cflags, so_cflags and so_ldflags");
}
for my $k (sort keys %kind) {
    my @same = @{ $kind{$k} };
    next if @same < 2;
    ok(!grep({ !defined $_->{eflags} } @same), "machine:class:endian $k: each of its rows has eflags ("
        . join(', ', map { $_->{name} } @same) . ')');
}
# no file of the tracer's that no row names
my %used = map { ("rt/arch-$_->{rt}.c" => 1, "rt/hook-$_->{hook}.S" => 1) } grep { defined $_->{rt} } @rows;
for my $f (map { s{^\Q$TOP\E/}{}r } glob("$TOP/rt/arch-*.c $TOP/rt/hook-*.S")) {
    ok($used{$f}, "$f: a row of arches.tab names it");
}

# the Makefile: make rt-ARCH for exactly the rows built cross or both
{
    local %ENV = %ENV;
    delete @ENV{qw(MAKEFLAGS MFLAGS MAKELEVEL)};    # (under make check: a make of its own)
    ($st, $out, $err) = run_cmd(['make', '-C', $TOP, '-s', '-n', '-p', '-f', 'Makefile', 'build/arches.ok']);
}
my ($cross) = $out =~ /^RT_CROSS_NAMES = ?(.*)$/m;
my ($host) = $out =~ /^RT_HOST_NAMES = ?(.*)$/m;
# (what the Makefile builds a tracing library for, here or by rt-ARCH)
my %built = map { $_ => 1 } split ' ', ($cross // '') . ' ' . ($host // '');
is_deeply([split ' ', $cross // ''],
    [map { $_->{tracer} } grep { ($_->{build} // '') =~ /^(?:cross|both)$/ } @rows],
    "the Makefile's cross builds are the rows built cross or both (@{[ $cross // '' ]})");

# the guests: their rows of arches.tab, modules, check sets and kernels
{
    require QemuSystem;
    require SysTrace;
    my %sets = map { ($_ => 1) } @SysTrace::CHECK_SETS;
    my ($kernels) = $out =~ /^GUEST_KERNELS := ?(.*)$/m;
    my %rule = map { ($_ => 1) } split ' ', $kernels // '';
    ok(@QemuSystem::GUESTS >= 1, 'guests.tab has rows (' . scalar(@QemuSystem::GUESTS) . ')');
    for my $n (@QemuSystem::GUESTS) {
        my $g = $QemuSystem::SYS{$n};
        my $row = arch_row($g->{arch});
        ok($row && defined $row->{rt}, "guest $n: its arch, $g->{arch}, is a row of arches.tab with a tracer");
        ok(-f "$TOP/t/lib/$g->{module}.pm", "guest $n: its module, t/lib/$g->{module}.pm, exists");
        is_deeply([grep { !$sets{$_} } @{ $g->{checks} }], [], "guest $n: its check sets are SysTrace's");
        like($g->{source}, qr/\A(?:fetch|build):[\w.-]+\z/, "guest $n: its kernel's source is fetch: or build:");
        (my $k = $g->{kernel}) =~ s{\A\Q$TOP\E/}{};
        ok($rule{$k}, "guest $n: the Makefile has a rule for its kernel, $k");
    }
}

# the architecture the front ends read from an ELF header
my $dir = tmpdir();
my $i = 0;
sub arch_of {
    my ($class, $data, $machine, $flags) = @_;
    my ($h16, $h32) = $data == 2 ? ('n', 'N') : ('v', 'V');
    my $h = "\x7fELF" . pack('C C C', $class, $data, 1) . ("\0" x 9) . pack("$h16 $h16", 1, $machine);
    $h .= "\0" x (64 - length $h);
    substr($h, $class == 2 ? 48 : 36, 4) = pack($h32, $flags // 0);
    my $f = "$dir/h" . $i++;
    open(my $fh, '>:raw', $f) or die "$f: $!";
    print $fh $h;
    close $fh or die "$f: $!";
    return RecordMcount::Front::elf_arch($f);
}
for my $r (@rows) {
    my ($flags) = ($r->{eflags} // '0=0') =~ /=(\S+)$/;
    is(arch_of($r->{class} == 64 ? 2 : 1, $r->{endian} eq 'big' ? 2 : 1, $r->{machine}, oct $flags), $r->{tracer},
        "an ELF header of $r->{name}'s machine, class, byte order and e_flags: $r->{tracer}");
    is(arch_traced($r->{tracer}), $built{ $r->{tracer} } ? 1 : 0,
        "$r->{tracer}: " . ($built{ $r->{tracer} } ? 'the Makefile builds a tracing library for it'
            : 'the Makefile builds no tracing library for it'));
    is(arch_row($r->{tracer})->{name}, $r->{name}, "$r->{tracer}: its row is $r->{name}'s");
}
# what no row describes, named for the messages
my @other = ([1, 1, 8, 0x20, 'mipsn32el'], [1, 2, 8, 0x20, 'mipsn32'], [2, 2, 8, 0, 'mips64'],
    [1, 1, 243, 0, 'riscv32'], [1, 2, 22, 0, 's390'], [1, 2, 2, 0, 'sparc'], [1, 2, 18, 0, 'sparc'],
    [1, 2, 42, 0, 'sh'], [1, 1, 9999, 0, 'machine 9999']);
for my $o (@other) {
    my ($class, $data, $machine, $flags, $want) = @$o;
    is(arch_of($class, $data, $machine, $flags), $want, "machine $machine, class $class, data $data: $want");
    is(arch_traced($want), 0, "$want: no tracing library");
}

done_testing();
