# SPDX-License-Identifier: GPL-2.0-or-later
package ArchTest;
# The cross-architecture checks of t/50-arch.t, one target (a row of
# arches.tab, and its row there) at a time, in a subtest of its own.
# For each code model of a target: the core corpus compiled once with the
# cross GCC, recorded with recordmcount.pl in its kernel form (kernel ARCH
# name, ENDIAN, BITS, the cross tools, CC with the model's flags), then
#   - nothing else changed in each object (ObjDiff), beyond what `ld -r`
#     of the object alone changes (mips .reginfo's gp value and GPREL16
#     addends, the ppc64 ELFv1 ABI flag): that is the scheme's own;
#   - s390x: the table equals GCC's own -mrecord-mcount table;
#   - a static program of the recorded objects and a hook of the target's
#     own (t/src/arch/DIR/hook.S + t/src/arch/check.c), run under
#     qemu-user: every call site in the table, every entry reached, and
#     the corpus computed what a host build without -pg computes;
#   - mcount-record --verify passes on each object and on that program.
# Once per target, a negative control: the same program with one object
# left unrecorded must report calls from sites not in the table, and
# mcount-record --verify must fail on it.
# Where a GCC plugin is given, a probe's code shows what it changes.
# Missing cross tools skip the target, except under CI, where they fail it.
use strict;
use warnings;

use Exporter 'import';
use File::Copy qw(copy);
use Test::More;
use TestUtil qw($TOP $SRC run_cmd must have run_prog tmpdir spit);
use Oracle qw(table_sites filter_sites kernel_section section_headers);
use ObjDiff qw(diff_objects);
use RecordMcount::Arch qw(arch_row);

our @EXPORT_OK = qw(check_target);

# symbols a recorded object may gain: added anchors, and the mapping
# symbol ($d) the assembler puts at the start of the table on arm,
# aarch64 and riscv
my $ANCHOR = qr/^(\$mcount_anchor\S* \d+ 0 NOTYPE LOCAL DEFAULT |\$d 0 0 NOTYPE LOCAL DEFAULT __mcount_loc$)/;

# What prog_main prints as the corpus result, from the same sources built
# for the host without -pg: a hook that skipped or broke the functions it
# was called from would change it.
my $expected_result;
sub _expected_result {
    return $expected_result if defined $expected_result;
    my $d = tmpdir();
    spit("$d/stub.c", "int mcount_report(void) { return 0; }\nvoid (*const asm_ptrs[])(void) = { 0 };\n");
    must('gcc', '-O2', '-o', "$d/prog", (map { "$SRC/$_.c" } qw(corpus prog_main dup_a dup_b)),
        "$d/stub.c");
    ($expected_result) = must("$d/prog") =~ /^corpus result (-?\d+)$/m or die "no result";
    return $expected_result;
}

# The differences `ld -r` alone makes to an object (the scheme relinks it):
# the same lines in a recorded object's diff are the scheme's, not ours.
sub _ld_r_diffs {
    my ($ld, $orig) = @_;
    (my $plain = $orig) =~ s/\.orig\.o$/.ldr.o/;
    must($ld, '-r', '-o', $plain, $orig);
    return diff_objects($orig, $plain, $ANCHOR);
}

# Number of entries in FILE's table (from the section size).
sub _entries {
    my ($file, $word) = @_;
    my ($t) = grep { $_->{name} eq '__mcount_loc' } @{ section_headers($file) };
    return $t ? $t->{size} / $word : 0;
}

# The plugin's probe (check_target's probe): its instructions with the
# plugin and without.
sub _probe {
    my ($gcc, $objdump, $plugin, $p) = @_;
    my $dir = tmpdir();
    spit("$dir/probe.c", $p->{source});
    my %ops;
    for my $with (0, 1) {
        must($gcc, @{ $p->{flags} }, $with ? "-fplugin=$plugin" : (), '-c', '-o', "$dir/probe$with.o", "$dir/probe.c");
        my (undef, $dis) = run_cmd([$objdump, '-d', "$dir/probe$with.o"]);
        my ($body) = $dis =~ /<probe>:\n(.*?)(?:\n\n|\z)/s;
        $ops{$with} = join '; ', map { /\A\s*[0-9a-f]+:\s+[0-9a-f]{2} [0-9a-f]{2}\s+(\S+(?:\s+\S+)?)/ ? $1 =~ s/\s+/ /r : () }
            split /\n/, $body // '';
    }
    like($ops{1}, $p->{want}, "with the plugin, $gcc @{ $p->{flags} } $p->{what} ($ops{1})");
    # what the compiler does without it (a note: a fixed compiler is no failure)
    note(($ops{0} =~ $p->{without} ? "without the plugin it $p->{without_what}" : "without the plugin it $p->{without_else}")
        . " ($ops{0})");
    return;
}

# check_target(name => 'aarch64', hook => 'aarch64',
#   models => [[flags...], ...], link => [extra link flags], gcc_oracle => 0|1,
#   thumb => 1 (arm: Thumb-2 models must give entries with bit 0 set),
#   allow => [qr/diff line/...] (differences documented as the scheme's),
#   pic_runtime => 1 (prog_main, the hook and check.c in the default code
#   model, only the corpus in the model's),
#   record_only => [[flags...]...], record_only_why => '...' (models that
#   are recorded and compared, but whose programs cannot run),
#   freestanding => [sources in t/src/arch/HOOK/] (link without the C
#   library, with these instead; give link => ['-nostdlib']),
#   plugin => PATH (a GCC plugin every compile loads: -fplugin=PATH),
#   probe => { source => C, flags => [...], want => qr/the code with the
#   plugin/, what => its words, without => qr/without it/, without_what,
#   without_else: words for each case)
#   (a function compiled with and without the plugin: objdump's
#   instructions must match want with it; without it, a note));
# the rest is the row of arches.tab of that name: its triple (the cross
# tools), kernel ARCH (karch), endian, bits and qemu-user.
sub check_target {
    my (%t) = @_;
    my $row = arch_row($t{name}) // die "$t{name}: no row in arches.tab\n";
    %t = (triple => $row->{triple}, karch => $row->{kernel}, endian => $row->{endian},
        bits => $row->{class}, qemu => $row->{qemu}, %t);
    my $gcc = "$t{triple}-gcc-12";
    my @missing = grep { !have($_) } $gcc, "$t{triple}-objdump", "$t{triple}-ld", $t{qemu};
    # every compile, the recorder's too, with the plugin
    my @gcc = ($gcc, $t{plugin} ? "-fplugin=$t{plugin}" : ());
    if (@missing) {
        my $why = "$t{name}: not installed: @missing (run scripts/install-deps)";
        if ($ENV{CI}) {
            fail($why);
            done_testing();
            return;
        }
        plan(skip_all => $why);
    }
    if ($t{plugin} && !-f $t{plugin}) {
        fail("$t{name}: no GCC plugin $t{plugin} (make $t{plugin})");
        done_testing();
        return;
    }
    _probe($gcc, "$t{triple}-objdump", $t{plugin}, $t{probe}) if $t{probe};
    my $dir = tmpdir();
    my $word = $t{bits} / 8;
    my @tool = map { "$t{triple}-$_" } qw(objdump objcopy);
    my $n = 0;
    my %total = (sites => 0);
    my %inherent;
    my %record_only = map { $_ => 1 } @{ $t{record_only} // [] };
    for my $model (@{ $t{models} }, @{ $t{record_only} // [] }) {
        my @f = @$model;
        my $tag = join('', @f) =~ s/[^A-Za-z0-9]+/_/gr || 'default';
        my $name = "$t{name} " . (@f ? "@f" : '(defaults)');
        my $d = "$dir/$tag";
        mkdir $d or die "$d: $!";
        # the code the program's C library is called from: on mips, static
        # glibc (abicalls) cannot be called from kernel-style code
        my @rf = $t{pic_runtime} ? grep { /^-O/ } @f : @f;
        for my $c (qw(corpus prog_main dup_a dup_b)) {
            must(@gcc, '-pg', ($c eq 'prog_main' ? @rf : @f), '-c', "$SRC/$c.c", '-o', "$d/$c.o");
        }
        must("$t{triple}-ld", '-r', '-o', "$d/dup.o", "$d/dup_a.o", "$d/dup_b.o");
        my $sites = 0;
        for my $o (qw(corpus prog_main dup)) {
            copy("$d/$o.o", "$d/$o.orig.o") or die;
            my ($st, $out, $err) = run_cmd(["$TOP/recordmcount.pl", $t{karch}, $t{endian},
                $t{bits}, @tool, join(' ', @gcc, $o eq 'prog_main' ? @rf : @f), "$t{triple}-ld",
                "$t{triple}-nm", '', '',
                '0', "$d/$o.o"]);
            is($st, 0, "$name: $o.o recorded (kernel ARCH $t{karch})") or diag $err;
            my %ldr = map { $_ => 1 } _ld_r_diffs("$t{triple}-ld", "$d/$o.orig.o");
            my @diff = grep { my $l = $_; !$ldr{$l} && !grep { $l =~ $_ } @{ $t{allow} // [] } }
                diff_objects("$d/$o.orig.o", "$d/$o.o", $ANCHOR);
            ok(!@diff, "$name: $o.o: nothing else changed")
                or diag join "\n", @diff;
            note "$name: $o.o: what ld -r alone changes: ", join("\n", sort keys %ldr) if %ldr;
            $inherent{$_ =~ s/:\n.*//sr} = 1 for keys %ldr;
            $sites += _entries("$d/$o.o", $word);
            my ($vst, $vout, $verr) = run_cmd(["$TOP/bin/mcount-record", '--verify', "$d/$o.o"]);
            is($vst, 0, "$name: $o.o: mcount-record --verify passes") or diag "$vout$verr";
            # mcount-record assembles the table with the target's bare
            # assembler, not the compiler driver with the object's flags:
            # what the driver would have told it (PIC, ISA, floating-point
            # ABI) must come from the object itself
            copy("$d/$o.orig.o", "$d/$o.rec.o") or die;
            my ($rst, undef, $rerr) = run_cmd(["$TOP/bin/mcount-record", "$d/$o.rec.o"]);
            is($rst, 0, "$name: $o.o recorded by mcount-record") or diag $rerr;
            is($rerr, '', "$name: $o.o: mcount-record says nothing (no warning of its tools)");
            my @rdiff = grep { my $l = $_; !$ldr{$l} && !grep { $l =~ $_ } @{ $t{allow} // [] } }
                diff_objects("$d/$o.orig.o", "$d/$o.rec.o", $ANCHOR);
            ok(!@rdiff, "$name: $o.o: mcount-record changed nothing else") or diag join "\n", @rdiff;
            is_deeply(table_sites("$d/$o.rec.o"), table_sites("$d/$o.o"),
                "$name: $o.o: mcount-record's table is recordmcount.pl's");
        }
        ok($sites >= 12, "$name: $sites call sites recorded");
        $total{sites} += $sites;

        if ($t{gcc_oracle}) {
            for my $c (qw(corpus prog_main)) {
                must(@gcc, '-pg', '-mrecord-mcount', @f, '-c', "$SRC/$c.c", '-o', "$d/$c.gcc.o");
                is_deeply(table_sites("$d/$c.o"),
                    filter_sites(table_sites("$d/$c.gcc.o"), \&kernel_section),
                    "$name: $c.o: table equals GCC's -mrecord-mcount table");
            }
        }

        if ($record_only{$model}) {
            note "$name: recorded and compared only: $t{record_only_why}";
            $n++;
            next;
        }

        # the runtime oracle
        my @cf = grep { !/^-f(function|data)-sections$/ } @rf;
        must(@gcc, @cf, '-c', "$TOP/t/src/arch/$t{hook}/hook.S", '-o', "$d/hook.o");
        must(@gcc, @cf, $t{runtime_opt} // '-O2', '-c', "$TOP/t/src/arch/check.c", '-o', "$d/check.o");
        my @objs = map { "$d/$_.o" } qw(corpus prog_main dup hook check);
        for my $x (@{ $t{freestanding} // [] }) {
            (my $o = $x) =~ s/\.[cS]$/.o/;
            must(@gcc, @cf, $t{runtime_opt} // '-O2', '-c', "$TOP/t/src/arch/$t{hook}/$x", '-o', "$d/$o");
            push @objs, "$d/$o";
        }
        push @objs, '-lgcc' if $t{freestanding};
        must(@gcc, @cf, '-static', @{ $t{link} // [] }, '-o', "$d/prog", @objs);
        my ($st, $out, $err) = run_prog(["$d/prog"], qemu => $t{qemu});
        my ($summary) = $out =~ /^(entries=.*)$/m;
        is($st, 0, "$name: under $t{qemu}, every call site is in the table, every entry reached")
            or diag "$out$err";
        like($summary // '', qr/^entries=(\d+) reached=\1 calls=\d+ unknown=0 duplicates=0 excluded_calls=[1-9]/,
            "$name: " . ($summary // 'no summary'));
        my $want = _expected_result();
        like($out, qr/^corpus result \Q$want\E$/m, "$name: the instrumented code computed what it should");
        like($summary // '', qr/ odd_entries=[1-9]/, "$name: Thumb entries keep bit 0")
            if $t{thumb} && !grep { $_ eq '-marm' } @f;
        # the static oracle: mcount-record --verify reads the same program
        my ($vst, $vout, $verr) = run_cmd(["$TOP/bin/mcount-record", '--verify', "$d/prog"]);
        is($vst, 0, "$name: mcount-record --verify passes on the program") or diag "$vout$verr";

        if ($n == 0) {
            # negative control: prog_main.o without its table
            my @bad = map { $_ eq "$d/prog_main.o" ? "$d/prog_main.orig.o" : $_ } @objs;
            must(@gcc, @cf, '-static', @{ $t{link} // [] }, '-o', "$d/prog.bad", @bad);
            my ($bst, $bout) = run_prog(["$d/prog.bad"], qemu => $t{qemu});
            isnt($bst, 0, "$name: negative control: a program with an unrecorded object fails");
            like($bout, qr/calls from sites not in the table/,
                "$name: negative control: its call sites are reported as unknown");
            my (undef, undef, $verr) = run_cmd(["$TOP/bin/mcount-record", '--verify', "$d/prog.bad"]);
            # (ppc64 ELFv1 code has no function symbols to name main by)
            like($verr, qr/^mcount-record: \S+: 0x[0-9a-f]+ \S+: call to the hook has no entry\n.*: 1 problem /m,
                "$name: negative control: mcount-record --verify reports main's call without entry");
        }
        $n++;
    }
    ok($n == @{ $t{models} } + @{ $t{record_only} // [] },
        "$t{name}: $n code models checked, $total{sites} call sites");
    diag "$t{name}: changes ld -r makes by itself (allowed): ", join(', ', sort keys %inherent)
        if %inherent && $ENV{TEST_VERBOSE};
    done_testing();
    return;
}

1;
