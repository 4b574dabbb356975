# SPDX-License-Identifier: GPL-2.0-or-later
package CfiTest;
# Helpers for the tests of rt/cfi.c on its own (t/91-trace-cfi.t: x86_64;
# t/52-cross-cfi.t: aarch64, riscv64 and ppc64le, with their cross
# compilers and binutils): cfi_test (t/src/trace/cfi_test.c, which links
# rt/cfi.c with rt/elf.c's section reader) built plain and under ASan
# and UBSan, the oracle (binutils' readelf --debug-dump=frames-interp of
# the file's architecture, which interprets every FDE into its table of
# rows), and the checks each file gets: its rows against cfi_test's
# answers, and damaged copies under the sanitizers.
use strict;
use warnings;

use Exporter 'import';
use Test::More;
use TestUtil qw($TOP must run_cmd tmpdir slurp spit);

our @EXPORT_OK = qw(cfi_build debug_frame_ok frames_ok damaged_ok);

my $dir = tmpdir();
my @WARN = qw(-std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Werror);
my @SRC = ("$TOP/t/src/trace/cfi_test.c", "$TOP/rt/cfi.c", "$TOP/rt/elf.c", "$TOP/rt/inflate.c");
my %SAN_ENV = (ASAN_OPTIONS => 'detect_leaks=0:abort_on_error=0:exitcode=99',
    UBSAN_OPTIONS => 'print_stacktrace=1:halt_on_error=1:exitcode=98');

# DWARF's register numbers of the names readelf prints, per machine.
my %REGS = (
    x86_64  => { rax => 0, rdx => 1, rcx => 2, rbx => 3, rsi => 4, rdi => 5, rbp => 6, rsp => 7,
                 map { ("r$_" => $_) } 8 .. 15 },
    aarch64 => { sp => 31, map { ("x$_" => $_) } 0 .. 30 },
    riscv64 => { ra => 1, sp => 2, gp => 3, tp => 4, s0 => 8, s1 => 9, (map { ("a$_" => 10 + $_) } 0 .. 7),
                 (map { ("s$_" => 16 + $_) } 2 .. 11), (map { ("x$_" => $_) } 0 .. 31) },
    ppc64le => { map { ("r$_" => $_) } 0 .. 31 },
);
my %READELF = (x86_64 => 'readelf', aarch64 => 'aarch64-linux-gnu-readelf', riscv64 => 'riscv64-linux-gnu-readelf',
    ppc64le => 'powerpc64le-linux-gnu-readelf');

# cfi_test, plain and under ASan and UBSan (first, once).
sub cfi_build {
    must('cc', @WARN, '-O2', "-I$TOP/rt", '-o', "$dir/plain", @SRC);
    must('cc', @WARN, '-O1', '-g', '-fsanitize=address,undefined', '-fno-sanitize-recover=all',
        '-fno-omit-frame-pointer', "-I$TOP/rt", '-o', "$dir/san", @SRC);
    return;
}

# readelf's rows: { address => 'REG OFFSET' or '-' }, for the first and
# the last address of each row of each FDE (an FDE without rows: its
# CIE's initial row, over its whole range).
sub oracle {
    my ($arch, $file) = @_;
    my $out = must($READELF{$arch}, '-wN', '--debug-dump=frames-interp', $file);
    my (%want, %cie, $fde, @rows, $cur);
    my $flush = sub {
        return unless $fde;
        my ($lo, $hi, $cie) = @$fde;
        my @r = @rows ? @rows : ($cie{$cie} ? [$lo, $cie{$cie}] : ());
        for my $i (0 .. $#r) {
            my ($at, $rule) = @{ $r[$i] };
            my $end = $i < $#r ? $r[$i + 1][0] : $hi;
            next if $end <= $at;
            $want{ sprintf '%x', $at } = $rule;
            $want{ sprintf '%x', $end - 1 } = $rule;
        }
        ($fde, @rows) = ();
    };
    for (split /\n/, $out) {
        if (/^([0-9a-f]+) [0-9a-f]+ [0-9a-f]+ CIE/) {
            $flush->();
            $cur = hex $1;
            next;
        }
        if (/^[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ FDE cie=([0-9a-f]+) pc=([0-9a-f]+)\.\.([0-9a-f]+)/) {
            $flush->();
            ($cur, $fde) = (undef, [hex $2, hex $3, hex $1]);
            next;
        }
        next unless /^([0-9a-f]{8,}) (\S+)/;
        my ($at, $cfa) = (hex $1, $2);
        my $rule = '?';
        if ($cfa eq 'exp') {
            $rule = '-';
        } elsif ($cfa =~ /\A([a-z]\w*)([+-]\d+)\z/ && defined $REGS{$arch}{$1}) {
            $rule = "$REGS{$arch}{$1} " . ($2 + 0);
        }
        if (defined $cur) {
            $cie{$cur} = $rule;
        } else {
            push @rows, [$at, $rule];
        }
    }
    $flush->();
    delete @want{ grep { $want{$_} eq '?' } keys %want };
    return \%want;
}

# cfi_test's answers for the addresses: { address => 'REG OFFSET' or '-' }.
sub answers {
    my ($build, $file, @addrs) = @_;
    spit("$dir/addrs", join('', map { "$_\n" } @addrs));
    my ($st, $out, $err) = run_cmd(['sh', '-c', 'exec "$0" "$1" < "$2"', "$dir/$build", $file, "$dir/addrs"],
        env => \%SAN_ENV);
    my %got = map { /\A(\S+) (.*)\z/ ? ($1, $2) : () } split /\n/, $out;
    return ($st, \%got, $err);
}

# debug_frame_ok(ARCH, CC): a program with .debug_frame and no .eh_frame,
# cfi_test itself built by CC without unwind tables, has its functions'
# rules there.  Returns [ARCH, the program].
sub debug_frame_ok {
    my ($arch, $cc) = @_;
    my $so = "$dir/df-$arch";
    must($cc, '-O2', '-g', '-fno-asynchronous-unwind-tables', '-fno-unwind-tables', "-I$TOP/rt", '-o', $so,
        @SRC);
    my (undef, $df) = split /^Contents of the \.debug_frame section:$/m,
        must($READELF{$arch}, '-wN', '--debug-dump=frames-interp', $so);
    my $rows = () = ($df // '') =~ /^[0-9a-f]{16} /mg;
    cmp_ok($rows, '>', 100, "$arch: its functions' rules in .debug_frame ($rows rows; .eh_frame: the C library's start files')");
    return [$arch, $so];
}

# frames_ok(ARCH, FILE): at the first and the last address of every row,
# of every FDE, cfi_test gives readelf's rule for the CFA.
sub frames_ok {
    my ($arch, $file) = @_;
    ok(-r $file, "$arch: $file is there") or return;
    my $want = oracle($arch, $file);
    my @addrs = sort keys %$want;
    my $exprs = grep { $want->{$_} eq '-' } @addrs;
    cmp_ok(scalar(@addrs), '>', 100, "$file: readelf gives rows to compare (" . scalar(@addrs) .
        ", $exprs by an expression)");
    my ($st, $got, $err) = answers('plain', $file, @addrs);
    is($st, 0, "$file: cfi_test exits 0");
    my @diff = grep { ($got->{$_} // 'none') ne $want->{$_} } @addrs;
    is(scalar(@diff), 0, "$arch: $file: the CFA's rule at every row's first and last address is readelf's")
        or diag(join "\n", map { "$_: got " . ($got->{$_} // 'none') . ", readelf $want->{$_}" } @diff[0 .. 9]);
    return;
}

sub section_at {
    my ($arch, $file, $name) = @_;
    for (split /\n/, must($READELF{$arch}, '-S', '-W', $file)) {
        return (hex $1, hex $2) if /\s\Q$name\E\s+PROGBITS\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)/;
    }
    return;
}

# damaged_ok(ARCH, FILE, SECTION): 60 copies of FILE with SECTION damaged
# (bytes changed at random, from the caller's srand; every tenth copy
# cut short), each read by cfi_test under ASan and UBSan: any answer,
# never a report.
sub damaged_ok {
    my ($arch, $file, $sec) = @_;
    my ($off, $size) = section_at($arch, $file, $sec);
    ok($size, "$arch: $file: $sec found ($size bytes)") or return;
    my $bytes = slurp($file);
    my @addrs = sort keys %{ oracle($arch, $file) };
    my ($bad, $runs) = (0, 0);
    for my $k (1 .. 60) {
        my $copy = $bytes;
        if ($k % 10 == 0) {
            # the section's header claims more than the file has
            substr($copy, $off + $size - 64 * $k, 64 * $k) = '' if $k * 64 < $size;
        } else {
            substr($copy, $off + int(rand $size), 1) = chr int rand 256 for 1 .. 1 + $k % 7;
        }
        spit("$dir/damaged", $copy);
        my ($st, undef, $err) = answers('san', "$dir/damaged", @addrs);
        $runs++;
        if ($st != 0 || $err ne '') {
            $bad++;
            diag("copy $k: exit $st: $err") if $bad < 3;
        }
    }
    is($bad, 0, "$arch: $runs copies of $file with $sec damaged: answers, and no report from ASan or UBSan");
    return;
}

1;
