#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# Bad and odd input through all three front ends (t/24-bad-input.t does the
# kernel script alone; an aarch64 object: t/52-cross-input.t): the
# message, the exit status, and the object byte-identical afterwards
# (mcount-cc removes an object it cannot record, exit 100).  Then the big
# and the long: 4 KiB symbol and section names, and 100,000 functions in
# one object, checked against GCC's own table.
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use POSIX ();
use Time::HiRes qw(time);
use lib 't/lib';
use TestUtil qw($TOP $SRC run_cmd must compile tmpdir slurp spit leftovers);
use Oracle qw(table_sites);
use Harden qw(@FRONT_ENDS front_end oracle_of is_recorded state_of refused);

my $dir = tmpdir();
my $wd = tmpdir();
my @flags = ('-O2', '-pg', '-mfentry');
my $good = compile("$SRC/corpus.c", "$wd/good.o", @flags);
my $oracle = oracle_of("$SRC/corpus.c", "$wd/good.gcc.o", @flags);
my $bytes = slurp($good);
# name, how to make the file, message; the file is the compiler's output for mcount-cc
my @cases = (
    ['empty file', sub { spit($_[0], '') }, qr/empty file/],
    ['text file', sub { spit($_[0], "int main(void) { return 0; }\n" x 20) }, qr/not an ELF file/],
    ['random bytes', sub { srand 11; spit($_[0], join '', map { chr int rand 256 } 1 .. 8192) }, qr/not an ELF file/],
    (map { my $len = $_; ["ELF truncated to $len bytes", sub { spit($_[0], substr($bytes, 0, $len)) },
        qr/truncated|file format not recognized|not an ELF/] } 16, 64, 700, int(length($bytes) / 3)),
    ['section headers past the end', sub {
        my $b = $bytes;
        substr($b, 0x28, 8) = pack('Q<', length($b) - 8);
        spit($_[0], $b) }, qr/objdump|truncated|file format not recognized/],
    ['a zero section count', sub {
        my $b = $bytes;
        substr($b, 0x3c, 2) = pack('v', 0);
        spit($_[0], $b) }, qr/objdump|no symbol|not an objdump listing|truncated|format/],
    ['executable', sub { copy('/bin/true', $_[0]) or die }, qr/not a relocatable object \(ELF type DYN/],
    ['shared library', sub {
        must('gcc', '-O2', '-pg', '-fPIC', '-shared', "$SRC/corpus.c", '-o', $_[0]) },
        qr/not a relocatable object \(ELF type DYN, a shared object or PIE\)/],
    ['static executable', sub {
        must('gcc', '-O2', '-static', '-nostdlib', '-o', $_[0], '-x', 'c', '/dev/null',
            '-Wl,--defsym=_start=0') }, qr/not a relocatable object \(ELF type EXEC, an executable\)/],
);

for my $c (@cases) {
    my ($name, $make, $re) = @$c;
    for my $fe (@FRONT_ENDS) {
        my $f = "$dir/case.o";
        unlink $f;
        $make->($f);
        my $before = slurp($f);
        my ($st, undef, $err) = front_end($fe, $f);
        refused($dir, $fe, $f, $name, $st, $err, $re, $before);
    }
}

# an object for another architecture than the one asked for (aarch64's,
# and aarch64's tools on an x86 object: t/52-cross-input.t)
{
    my $f = "$dir/arch.o";
    compile("$SRC/corpus.c", $f, '-m32', '-O2', '-pg');
    my $before = slurp($f);
    my ($st, undef, $err) = front_end('pl', $f);
    refused($dir, 'pl', $f, 'i386 object, x86 64-bit asked', $st, $err,
        qr/object is (?:for i386, 32-bit little-endian, not x86_64|32-bit, not 64-bit)/, $before);
}

# LTO and stripped objects are not errors for mcount-cc (a warning, the
# object as the compiler made it); the others refuse LTO and leave it
{
    my $f = "$dir/lto.o";
    for my $fe (@FRONT_ENDS) {
        compile("$SRC/corpus.c", $f, '-O2', '-pg', '-flto');
        my $before = slurp($f);
        my ($st, undef, $err) = front_end($fe, $f);
        if ($fe eq 'mcc') {
            is($st, 0, 'mcc, LTO object: exit 0');
            like($err, qr/^mcount-cc: \Q$f\E: warning: an LTO object has no machine code/m, 'mcc, LTO object: warning');
        } else {
            is($st >> 8, 1, "$fe, LTO object: exit 1");
            like($err, qr/\Q$f\E: an LTO object has no machine code/, "$fe, LTO object: message");
        }
        ok(slurp($f) eq $before, "$fe, LTO object: unchanged");

        copy($good, $f) or die;
        must('strip', $f);
        $before = slurp($f);
        ($st, undef, $err) = front_end($fe, $f);
        is($st, 0, "$fe, stripped object: exit 0 (nothing to record)") or diag $err;
        ok(slurp($f) eq $before, "$fe, stripped object: unchanged");
    }
}

# what t/24 checks for the kernel script, for mcount-record: not a file,
# not writable, links, names a shell would mangle
{
    my $mr = sub { my ($f) = @_; return run_cmd(["$TOP/bin/mcount-record", '-q', $f]) };
    my ($st, undef, $err) = $mr->("$dir/missing.o");
    is($st >> 8, 1, 'mr, missing file: exit 1');
    like($err, qr/^mcount-record: \Q$dir\E\/missing\.o: no such file$/m, 'mr, missing file: message');
    mkdir "$dir/adir";
    ($st, undef, $err) = $mr->("$dir/adir");
    like($err, qr/^mcount-record: \Q$dir\E\/adir: is a directory$/m, 'mr, directory: message');
    POSIX::mkfifo("$dir/fifo", 0644) or die;
    ($st, undef, $err) = $mr->("$dir/fifo");
    is($st >> 8, 1, 'mr, FIFO: exit 1 (and no hang)');
    like($err, qr/^mcount-record: \Q$dir\E\/fifo: not a regular file$/m, 'mr, FIFO: message') or diag $err;
    unlink "$dir/fifo";
    rmdir "$dir/adir";

    copy($good, "$dir/ro.o") or die;
    chmod 0444, "$dir/ro.o";
    ($st, undef, $err) = $mr->("$dir/ro.o");
    is($st >> 8, 1, 'mr, write-protected file: exit 1');
    like($err, qr/: file is not writable$/m, 'mr, write-protected file: message');
    ok(slurp("$dir/ro.o") eq $bytes, 'mr, write-protected file: unchanged');
    unlink "$dir/ro.o";

    copy($good, "$dir/target.o") or die;
    symlink 'target.o', "$dir/link.o" or die;
    ($st, undef, $err) = $mr->("$dir/link.o");
    is($st, 0, 'mr, symlink: recorded') or diag $err;
    ok(-l "$dir/link.o", 'mr, symlink: still a link');
    is_deeply([is_recorded("$dir/target.o", $good, $oracle)], [], 'mr, symlink: the target is recorded');

    copy($good, "$dir/h1.o") or die;
    link "$dir/h1.o", "$dir/h2.o" or die;
    ($st, undef, $err) = $mr->("$dir/h1.o");
    is($st, 0, 'mr, hard link: recorded') or diag $err;
    ok(slurp("$dir/h2.o") eq $bytes, 'mr, hard link: the other name keeps the old content');
    unlink map { "$dir/$_" } qw(target.o link.o h1.o h2.o);
}
for my $fe (qw(mr mcc)) {
    for my $base ("with space.o", q{q'uo"te.o}, 'semi;colon.o', '$(touch pwned).o', "new\nline.o", '-dash.o') {
        my $f = "$dir/$base";
        copy($good, $f) or die;
        my ($st, undef, $err) = front_end($fe, $f);
        (my $shown = $base) =~ s/\n/\\n/g;
        is($st, 0, "$fe, name '$shown': recorded") or diag $err;
        is_deeply(table_sites($f), $oracle, "$fe, name '$shown': GCC's table");
        unlink $f;
    }
}
ok(!-e "$dir/pwned" && !-e 'pwned', 'no shell ever ran a file name');

# 4 KiB names: of global and static functions, and (-ffunction-sections)
# of their sections; static ones are globalized and localized by name
{
    my $long = 'f' . ('x' x 4090);
    my $src = "$wd/long.c";
    spit($src, <<"C");
extern int ext(int);
static __attribute__((noinline)) int ${long}_s(int x) { return ext(x) * 3; }
int ${long}_g(int x) { return ${long}_s(x) + 1; }
__attribute__((section(".text.${long}"))) int ${long}_h(int x) { return ext(x) ^ 5; }
int short_one(int x) { return ext(x) - 2; }
C
    for my $fl (['-O2', '-pg'], ['-O2', '-pg', '-mfentry', '-ffunction-sections']) {
        my $plain = compile($src, "$wd/long.o", @$fl);
        my $want = oracle_of($src, "$wd/long.gcc.o", @$fl);
        ok(@$want >= 4, "4 KiB names (@$fl): GCC records " . scalar(@$want) . ' sites');
        for my $fe (@FRONT_ENDS) {
            my $f = "$dir/long.o";
            copy($plain, $f) or die;
            my ($st, undef, $err) = front_end($fe, $f);
            is($st, 0, "$fe, 4 KiB names (@$fl): recorded") or diag substr($err, 0, 2000);
            is_deeply([is_recorded($f, $plain, $want)], [], "$fe, 4 KiB names (@$fl): GCC's table, nothing else changed");
            is_deeply([leftovers($dir)], [], "$fe, 4 KiB names (@$fl): no temporary files");
        }
    }
}

# 100,000 functions in one object.  GCC's assembly for 1,000 functions
# (with its own -mrecord-mcount table entries) is repeated 100 times with
# the names changed; the assembler then computes the table we must match.
{
    my $n = 1000;
    my $src = "$wd/k.c";
    spit($src, join '', "extern int ext(int);\n",
        map { $_ % 4 ? "int f$_(int x) { return ext(x) + $_; }\n"
                     : "static __attribute__((used, noinline)) int f$_(int x) { return ext(x) * $_; }\n" } 0 .. $n - 1);
    must('gcc', '-O2', '-pg', '-mrecord-mcount', '-S', $src, '-o', "$wd/k.s");
    my $asm = slurp("$wd/k.s");
    $asm =~ s/^\t\.(file|ident)\b.*\n//mg;
    $asm =~ s/^\t\.section\t\.note\.GNU-stack.*\n//mg;
    my $all = '';
    for my $k (0 .. 99) {
        (my $copy = $asm) =~ s/\bf(\d+)\b/f${k}_$1/g;
        $copy =~ s/\.L(\w+?)(\d+)\b/.L$1_${k}_$2/g;
        $all .= $copy;
    }
    $all .= "\t.section\t.note.GNU-stack,\"\",\@progbits\n";
    spit("$wd/big.s", $all);
    must('as', '--64', '-o', "$wd/big.gcc.o", "$wd/big.s");
    must('objcopy', '--remove-section=__mcount_loc', '--remove-section=.rela__mcount_loc',
        "$wd/big.gcc.o", "$wd/big.o");
    my $want = table_sites("$wd/big.gcc.o");
    is(scalar @$want, 100 * $n, '100k functions: the assembler made 100,000 entries');
    for my $fe (@FRONT_ENDS) {
        my $f = "$dir/big.o";
        copy("$wd/big.o", $f) or die;
        my $t0 = time;
        my ($st, undef, $err) = front_end($fe, $f);
        my $secs = time - $t0;
        is($st, 0, "$fe, 100k functions: recorded") or diag $err;
        cmp_ok($secs, '<', 60, "$fe, 100k functions: in reasonable time") ;
        note sprintf '%s: 100k functions recorded in %.1f s', $fe, $secs;
        my $got = table_sites($f);
        is(scalar @$got, scalar @$want, "$fe, 100k functions: 100,000 entries");
        ok(join("\n", @$got) eq join("\n", @$want), "$fe, 100k functions: the assembler's table exactly");
        is_deeply([leftovers($dir)], [], "$fe, 100k functions: no temporary files");
    }
}

done_testing();
