#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# The C helper on its own: built with ASan+UBSan and run under valgrind over
# real listings (every corpus object, -r and -dr) and mangled ones; the
# sanitized build must say exactly what the normal one says, and neither
# may crash, leak or read out of bounds.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP $SRC run_cmd must compile tmpdir spit slurp flag_matrix);

my $dir = tmpdir();
my $helper = "$TOP/build/mcount-scan";
my $asan = "$TOP/build/asan/mcount-scan";
ok(-x $asan, 'the ASan+UBSan build exists (make check builds it)') or BAIL_OUT('no ASan build');
my %san_env = (ASAN_OPTIONS => 'detect_leaks=1:abort_on_error=0:exitcode=99',
    UBSAN_OPTIONS => 'print_stacktrace=1:halt_on_error=1:exitcode=98');

# listings of real objects
my @objs;
my $i = 0;
for my $flags ((flag_matrix())[0, 4, 9, 17, 20, 25, -1]) {
    push @objs, compile("$SRC/corpus.c", "$dir/c$i.o", @$flags);
    $i++;
}
push @objs, compile("$SRC/asm_cases.S", "$dir/asm.o", '-Wa,-L');
push @objs, compile("$SRC/asm_cases.S", "$dir/asm32.o", '-m32', '-Wa,-L');

my @listings;
for my $o (@objs) {
    for my $mode (['-h', '-t', '-r'], ['-h', '-t', '-dr']) {
        my $l = "$o." . ($mode->[2] eq '-r' ? 'r' : 'dr') . '.txt';
        spit($l, must('objdump', @$mode, $o));
        push @listings, [$o, $l];
    }
}

# mangled listings: truncated at odd places, lines cut, fields dropped
my ($o0, $l0) = @{ $listings[1] };
my $text = slurp($l0);
my @lines = split /\n/, $text;
srand 11;
my @mangled;
for my $k (1 .. 12) {
    my $m = join "\n", map {
        my $r = rand;
        $r < 0.1 ? substr($_, 0, int rand length) :
        $r < 0.15 ? join("\t", reverse split /\t/) :
        $r < 0.2 ? "$_ " . ('x' x int rand 5000) :
        $r < 0.22 ? '' : $_
    } @lines;
    push @mangled, $m;
}
push @mangled, substr($text, 0, int(length($text) * $_ / 10)) for 1 .. 9;
push @mangled, "\0\0\0\n\t\t\t5: R_X86_64_PLT32\tmcount\n", "SYMBOL TABLE:\n" . ('0' x 40) . "\n",
    "x.o:     file format elf64-x86-64\n\nRELOCATION RECORDS FOR [.text]:\n0000000000000001 R_X86_64_PLT32 mcount-0x4\n";
for my $k (0 .. $#mangled) {
    spit("$dir/mangled$k.txt", $mangled[$k]);
    push @listings, [undef, "$dir/mangled$k.txt"];
}

for my $case (@listings) {
    my ($obj, $l) = @$case;
    my @args = ('--plan', '-o', '-', ($obj ? ('--object', $obj) : ('--arch', 'x86_64')), $l);
    (my $short = $l) =~ s{.*/}{};
    my ($st1, $out1, $err1) = run_cmd([$helper, @args]);
    my ($st2, $out2, $err2) = run_cmd([$asan, @args], env => \%san_env);
    ok(($st1 >> 8) =~ /^[013]$/ && !($st1 & 127), "$short: helper exits 0, 1 or 3 (" . ($st1 >> 8) . ')');
    is($st2, $st1, "$short: sanitized build exits the same") or diag $err2;
    is($out2, $out1, "$short: sanitized build prints the same");
    unlike($err2, qr/AddressSanitizer|runtime error|LeakSanitizer/, "$short: no sanitizer report");
}

# valgrind over a sample
for my $case (@listings[0, 1, 3, 5, -3, -2, -1]) {
    my ($obj, $l) = @$case;
    (my $short = $l) =~ s{.*/}{};
    # a successful run frees everything; one that stops with an error may
    # leave memory still reachable, but nothing lost
    my ($plain_st) = run_cmd([$helper, '--plan', '-o', '/dev/null',
        ($obj ? ('--object', $obj) : ('--arch', 'x86_64')), $l]);
    my $kinds = $plain_st == 0 ? 'all' : 'definite,indirect';
    my ($st, $out, $err) = run_cmd(['valgrind', '-q', '--error-exitcode=99', '--leak-check=full',
        "--errors-for-leak-kinds=$kinds", $helper, '--plan', '-o', '/dev/null',
        ($obj ? ('--object', $obj) : ('--arch', 'x86_64')), $l]);
    isnt($st >> 8, 99, "$short: valgrind finds no error or leak") or diag $err;
}

# a listing without a symbol table cannot name anchors
{
    my $o = $objs[1];
    spit("$dir/nosyms.txt", must('objdump', '-h', '-r', $o));
    my ($st, $out, $err) = run_cmd([$helper, '--object', $o, "$dir/nosyms.txt"]);
    is($st >> 8, 1, 'no -t in the listing: exit 1');
    like($err, qr/the objdump listing has no symbol table \(run objdump with -t\)/, 'no -t: says so');
}

# an ELF header (relocatable) for machine M, class C (1, 2), byte order D (1, 2)
sub elf_header {
    my ($m, $c, $d) = @_;
    return "\x7fELF" . chr($c) . chr($d) . "\x01" . ("\0" x 9)
        . pack($d == 2 ? 'nn' : 'vv', 1, $m) . ("\0" x 44);
}

# the facts for front ends: in --identify, a key only where the row has a value
{
    my $x86 = "driver-as\t1\ndriver-as-unless\t-m16 -msse2avx\nas-flag-family\t--32 --64 --x32\ncc-flag-family\t-m32 -m64 -mx32\n";
    my $ppc = "as-flag-family\t-a32 -a64\ncc-flag-family\t-m32 -m64\nhook-stubs\t*.%h\n";
    my $mips = "as-flag-family\t-EB -EL\ncc-flag-family\t-mabi=32 -mabi=n32 -mabi=64\n"
        . "hook-stubs\t*.%h\nscan-align\t4\n";
    my %facts = (
        x86_64   => [[62, 2, 1], $x86 . "compiler-nop\t0f1f440000\n"],
        i386     => [[3, 1, 1], $x86 . "got-register\t%ebx\ncompiler-nop\t0f1f440000\n"],
        aarch64  => [[183, 2, 1], "hook-stubs\t*%h_veneer\n"],
        arm      => [[40, 1, 1], "entry-flag-bits\t1\nhook-stubs\t*%h_veneer *%h_from_thumb *%h_from_arm\n"],
        riscv64  => [[243, 2, 1], "object-link-flags\t-Wl,--no-relax\n"],
        ppc64le  => [[21, 2, 1], $ppc],
        ppc64    => [[21, 2, 2], $ppc],
        ppc32    => [[20, 1, 2], $ppc],
        s390x    => [[22, 2, 2], "as-flag-family\t-m31 -m64\ncc-flag-family\t-m31 -m64\ncompiler-nop\tc00400000000\n"],
        mips     => [[8, 1, 2], $mips],
        mipsel   => [[8, 1, 1], $mips],
        mips64el => [[8, 2, 1], $mips],
        sparc64  => [[43, 2, 2], "as-flag-family\t-32 -64\ncc-flag-family\t-m32 -m64\n"],
        sh4      => [[42, 1, 1], "scan-align\t4\n"],
    );
    for my $name (sort keys %facts) {
        my ($hdr, $want) = @{ $facts{$name} };
        spit("$dir/id-$name.o", elf_header(@$hdr));
        my ($st, $out, $err) = run_cmd([$helper, '--identify', '--object', "$dir/id-$name.o"]);
        is($st, 0, "--identify $name: exit 0") or diag $err;
        like($out, qr/^arch\t\Q$name\E\n/, "--identify $name: the row");
        # the keys after call-forms and before kernel-sections, in this order
        like($out, qr/^call-forms\t[^\n]*\nlinker-forms\t/m, "--identify $name: linker-forms after call-forms");
        my ($got) = $out =~ /^call-forms\t[^\n]*\nlinker-forms\t[^\n]*\n(.*?)^kernel-sections\t/ms;
        is($got, $want, "--identify $name: front-end facts");
    }
    my ($o, $l) = @{ $listings[0] };
    my ($st, $out) = run_cmd([$helper, '--plan', '-o', '/dev/null', '--object', $o, $l]);
    like($out, qr/^call-forms\t[^\n]*\nlinker-forms\t[^\n]*\n\Q$x86\E(?:got-register\t%ebx\n)?compiler-nop\t0f1f440000\nstatus\t/m,
        '--plan prints them too');
}

# an object's machine is described by the table's rows (or its number)
{
    my $elf = \&elf_header;
    for my $case ([[2, 1, 2], [], 'unsupported architecture (machine 2, 32-bit big-endian)'],
                  [[8, 2, 2], [], 'unsupported architecture (mips, 64-bit big-endian)'],
                  [[42, 1, 1], ['--arch', 'x86_64'], 'object is for sh4, 32-bit little-endian, not x86_64'],
                  [[62, 2, 1], ['--arch', 'i386'], 'object is for x86_64, 64-bit little-endian, not i386']) {
        my ($hdr, $opt, $msg) = @$case;
        spit("$dir/machine.o", $elf->(@$hdr));
        my ($st, $out, $err) = run_cmd([$helper, '--identify', '--object', "$dir/machine.o", @$opt]);
        is($st >> 8, 1, "machine @$hdr: exit 1");
        is($err, "mcount-scan: $dir/machine.o: $msg\n", "machine @$hdr: $msg");
    }
}

# the same listing from stdin and from a file
{
    my ($o, $l) = @{ $listings[0] };
    my ($st1, $out1) = run_cmd([$helper, '--plan', '-o', '-', '--object', $o, $l]);
    my ($st2, $out2) = run_cmd([$helper, '--plan', '-o', '-', '--object', $o], stdin => slurp($l));
    is($out2, $out1, 'stdin and file give the same output');
}

# usage
for my $bad (['--entry=x'], ['--bits=48'], ['--arch=vax'], ['--sections='], ['--nope'], ['a', 'b']) {
    my ($st, $out, $err) = run_cmd([$helper, @$bad]);
    is($st >> 8, 2, "helper @$bad: exit 2");
    like($err, qr/^mcount-scan: /, "helper @$bad: message");
}
# an architecture it does not know: one line a front end can pass on as it is
{
    my ($st, $out, $err) = run_cmd([$helper, '--arch=vax']);
    my ($first) = split /\n/, $err;
    like($first, qr/^mcount-scan: unknown architecture 'vax' \(known: x86_64, i386, [^()]*; kernel ARCH names: x86, [^()]*\)$/,
        'unknown architecture: the known names, on one line');
    unlike($first, qr/--list-arches/, 'unknown architecture: no option of the helper named');
    my ($lst, $list) = run_cmd([$helper, '--list-arches']);
    my @rows = $list =~ /^(\S+)\t/mg;
    my ($known) = $first =~ /known: ([^;]*);/;
    is_deeply([split /, /, $known], \@rows, 'unknown architecture: every row, in order');
    for my $k (qw(x86 arm64 riscv powerpc ppc s390 mips sparc sh)) {
        # accepted: the empty listing is what is refused then
        my ($kst) = run_cmd([$helper, "--arch=$k"]);
        is($kst >> 8, 3, "kernel ARCH name $k is accepted");
    }
    ($st, $out, $err) = run_cmd([$helper, '--arch=mips', '--bits=64', '--endian=big']);
    is($st >> 8, 2, 'mips 64-bit big-endian: exit 2');
    like($err, qr/^mcount-scan: architecture 'mips' is not supported as 64-bit big-endian \(supported: mips 32-bit big-endian, mipsel 32-bit little-endian, mips64el 64-bit little-endian\)\n/,
        'mips 64-bit big-endian: the supported variants');
}

# every message of the helper is explained in recordmcount.pl(1): each
# fixed piece of each message format in src/*.c is in DIAGNOSTICS
{
    my ($diag) = slurp("$TOP/doc/recordmcount.pl.pod") =~ /^=head1 DIAGNOSTICS\n(.*?)^=head1 /ms;
    1 while $diag =~ s/[A-Z]<([^<>]*)>/$1/g;
    $diag =~ s/\s+/ /g;
    my $n = 0;
    for my $c (glob "$TOP/src/*.c") {
        my $src = slurp($c);
        while ($src =~ /\b(?:fatal|warn_msg|note_msg|bad_usage)\(\s*((?:"(?:[^"\\]|\\.)*"|AT_FMT|\s)+)/g) {
            (my $lit = $1) =~ s/AT_FMT/"%s+0x%llx"/g;
            (my $text = join '', $lit =~ /"((?:[^"\\]|\\.)*)"/g) =~ s/\\(.)/$1/g;
            for my $piece (split /%[-#0-9.]*(?:ll|l|z|h)?[a-zA-Z]/, $text) {
                $piece =~ s/^\s+|\s+\z//g;
                next if length $piece < 4;
                $n++;
                (my $short = $c) =~ s{.*/}{};
                ok(index($diag, $piece) >= 0, "$short: '$piece' is in DIAGNOSTICS");
            }
        }
    }
    ok($n > 40, "the messages were found ($n pieces)");
}

my ($st, $out) = run_cmd([$helper, '--help']);
is($st, 0, 'helper --help: exit 0');
like($out, qr/^Usage: mcount-scan/, 'helper --help: usage');

done_testing();
