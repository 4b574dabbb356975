#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# mcount-cc MCOUNT_CC_MODE=compiler: the compiler writes the NOPs and
# its own table, nothing is recorded; and mcount-record --verify and
# --list of those tables.  The oracles are not ours: the flag GCC and
# clang are given (x86_64's row: -fpatchable-function-entry=5,0), nm's
# function symbols (each has exactly one entry), objdump's disassembly
# (five bytes of NOPs at each function: GCC's five `nop`, clang's one
# `nopl`), GCC's own -mnop-mcount -mrecord-mcount table, and tables
# broken on purpose (objcopy --update-section of a linked table, a NOP
# byte overwritten, an entry doubled) that --verify must refuse.
# Refused: a target with no flags chosen (-m32: i386), a compiler that
# lacks the flags (clang's -mnop-mcount on x86_64).
use strict;
use warnings;
no warnings 'portable';
use Test::More;
use TestUtil qw(tmpdir spit must run_cmd slurp $TOP);
use CcTest qw(mcc);
use RecordMcount::Argv qw(classify probe_args);

my $MR = "$TOP/bin/mcount-record";
my $dir = tmpdir();
spit("$dir/a.c", <<'EOF');
int g;
int fa(int x) { return x + 1; }
static __attribute__((noinline)) int fs(int x) { return x * g; }
int fb(int x) { return fs(x) + 2; }
__attribute__((patchable_function_entry(0, 0))) int fnone(int x) { return x - 1; }
EOF
spit("$dir/main.c", <<'EOF');
int fa(int), fb(int), fnone(int);
int main(void) { return fa(1) + fb(2) + fnone(3) - 3; }
EOF
# (what the probes find is kept in the test's own directory)
my %env = (MCOUNT_CC_MODE => 'compiler', MCOUNT_CC_CACHE => "$dir/cache");

# the classifier in compiler mode (pure): what gets the flags, what is split
{
    my @p = ('-fpatchable-function-entry=5,0');
    my @pg = ('-pg', '-mfentry', '-mnop-mcount', '-mrecord-mcount');
    for my $row (
        [[qw(-O2 -c a.c)], \@p, 'compile', 'compile', [qw(a.o)], \@p],
        [[qw(-O2 -flto -c a.c -o x.o)], \@p, 'compile', 'compile', [qw(x.o)], \@p],
        [[qw(-O2 -o prog a.c main.c)], \@p, 'compile', 'table-link', [qw(prog)], \@p],
        [[qw(-O2 -MD -o prog a.c)], \@p, 'compile', 'table-link', [qw(prog)], \@p],
        [[qw(-O2 -o prog a.c)], \@pg, 'split', 'compile-link', [qw(prog)], []],
        [[qw(-o prog a.o main.o)], \@p, 'pass', 'link', [], []],
        [[qw(-S a.c)], \@p, 'pass', 'assembly-output', [], [], undef],
        [['-c', 'a.c', '-fpatchable-function-entry=5,0'], \@p, 'compile', 'compile', [qw(a.o)], []],
    ) {
        my ($args, $flags, $action, $reason, $objects, $add, @mode) = @$row;
        my $d = classify($args, hook_flags => $flags, mode => 'compiler', compiler => 'gcc');
        is_deeply([@$d{qw(action reason objects add_flags mode)}], [$action, $reason, $objects, $add,
            @mode ? $mode[0] : 'compiler'],
            "classify @$args (@$flags): $action $reason");
    }
    # what a probe is compiled with: the target's and the code's options
    is_deeply(probe_args([qw(-O2 -m32 -fPIC -fno-pie -target aarch64-linux-gnu --sysroot /s -B/b), '-Wa,--noexecstack',
        qw(-MD -MF a.d -DX=1 -I inc -Wall -Werror -flto -fprofile-generate -fstack-usage -g -c a.c -o a.o -pg)]),
        [qw(-O2 -m32 -fPIC -fno-pie -target aarch64-linux-gnu --sysroot /s -B/b), '-Wa,--noexecstack', '-pg'],
        'probe_args: no input, output, dependency, preprocessor, warning, LTO or profile option');
}

# nm's defined function symbols of FILE (text, local or global)
sub nm_functions {
    my ($file) = @_;
    my %f;
    for (split /\n/, must('nm', '--defined-only', $file)) {
        $f{$2} = hex $1 if /^([0-9a-f]+) [tT] (\S+)$/;
    }
    return \%f;
}

# objdump -d's instructions of function FN in FILE: [ [bytes, mnemonic] ]
sub insns {
    my ($file, $fn) = @_;
    my $out = must('objdump', '-d', '-w', "--disassemble=$fn", $file);
    my @i;
    my $in;
    for (split /\n/, $out) {
        if (/^[0-9a-f]+ <(.*)>:$/) { $in = $1 eq $fn; next }
        push @i, [$1 =~ tr/ //dr, $2] if $in && /^\s*[0-9a-f]+:\t([0-9a-f ]+?)\s*\t(\S+)/;
    }
    return \@i;
}

sub list_json {
    my ($file) = @_;
    my ($st, $out, $err) = run_cmd([$MR, '--list', '--format=json', $file]);
    is($st, 0, "--list --format=json $file") or diag $err;
    require JSON::PP;
    return JSON::PP::decode_json($out)->[0];
}

for my $cc (qw(gcc clang)) {
    # the decision: the row's flags, nothing recorded
    my ($st, $out, $err) = mcc(['--classify', $cc, '-O2', '-c', 'a.c'], env => \%env, dir => $dir);
    is($st, 0, "$cc: --classify") or diag $err;
    is($out, "compile compile a.o\nadd: -fpatchable-function-entry=5,0\nmode: compiler (MCOUNT_CC_MODE=compiler)\n",
        "$cc: compiled with x86_64's -fpatchable-function-entry=5,0, nothing recorded");

    ($st, $out, $err) = mcc([$cc, '-O2', '-c', 'a.c', '-o', "a-$cc.o"], env => { %env, MCOUNT_CC_VERBOSE => 1 },
        dir => $dir);
    is($st, 0, "$cc: compiled") or diag $err;
    unlike($err, qr/^mcount-cc: record/m, "$cc: no record step");
    my $o = "$dir/a-$cc.o";
    my $secs = must('readelf', '-SW', $o);
    like($secs, qr/__patchable_function_entries/, "$cc: the compiler's table");
    unlike($secs, qr/__mcount_loc/, "$cc: no __mcount_loc");

    # every function but fnone has one entry (nm), at five bytes of NOPs (objdump)
    my $funcs = nm_functions($o);
    is_deeply([sort keys %$funcs], [qw(fa fb fnone fs)], "$cc: nm's functions");
    my $l = list_json($o);
    is_deeply($l->{tables}, ['__patchable_function_entries'], "$cc: --list names the table");
    is_deeply([sort map { $_->{function} } @{ $l->{entries} }], [qw(fa fb fs)],
        "$cc: --list: an entry for each function nm lists, fnone's attribute excepted");
    is_deeply([map { $_->{table} } @{ $l->{entries} }], [('__patchable_function_entries') x 3], "$cc: each entry's table");
    for my $e (@{ $l->{entries} }) {
        is($e->{offset}, $funcs->{ $e->{function} }, "$cc: $e->{function}'s entry at its symbol (nm)");
        is($e->{function_offset}, 0, "$cc: $e->{function}+0");
    }
    for my $fn (qw(fa fb fs)) {
        my $i = insns($o, $fn);
        my ($bytes, $n) = ('', 0);
        while ($n < @$i && $i->[$n][1] =~ /^(?:nop[lw]?|xchg)$/ && length($bytes) < 10) { $bytes .= $i->[$n++][0] }
        is(length($bytes) / 2, 5, "$cc: objdump: $fn begins with 5 bytes of NOPs ($bytes)");
    }
    my $i = insns($o, 'fnone');
    unlike($i->[0][1], qr/^nop/, "$cc: objdump: fnone begins with no NOP ($i->[0][1])");
    ($st, $out, $err) = run_cmd([$MR, '--verify', $o]);
    is($st, 0, "$cc: --verify of the object") or diag $err;
    is($out, "$o: OK, __patchable_function_entries: 3 entries for 3 functions (N,M 5,0: 3)\n", "$cc: said so");
    ($st, $out) = run_cmd([$MR, '--verify', '--patchable=5,0', $o]);
    is($st, 0, "$cc: --verify --patchable=5,0");
    ($st, undef, $err) = run_cmd([$MR, '--verify', '--patchable=6,1', $o]);
    is($st >> 8, 1, "$cc: --verify --patchable=6,1 fails");
    like($err, qr/^mcount-record: \Q$o\E: \.text\+0x[0-9a-f]+ fa\+0x0\/0x[0-9a-f]+: entry of __patchable_function_entries is 0 bytes of NOPs before fa, not 1$/m,
        "$cc: ... M is not 1");

    # a program compiled and linked in one step, and one linked from objects
    for my $pie ([], ['-fno-pie', '-no-pie']) {
        my $prog = "$dir/p-$cc" . (@$pie ? '-nopie' : '');
        ($st, $out, $err) = mcc([$cc, '-O2', @$pie, '-o', $prog, 'a.c', 'main.c'], env => \%env, dir => $dir);
        is($st, 0, "$cc @$pie: one-step program built") or diag $err;
        ($st) = run_cmd([$prog]);
        is($st >> 8, 3, "$cc @$pie: it runs (its own exit status: 2 + 2 + 2 - 3)");
        ok(!-e "$dir/gmon.out", "$cc @$pie: no gmon.out");
        ($st, $out, $err) = run_cmd([$MR, '--verify', $prog]);
        is($st, 0, "$cc @$pie: --verify of the program") or diag $err;
        like($out, qr/: OK, __patchable_function_entries: 4 entries for 4 functions \(N,M 5,0: 4\)$/,
            "$cc @$pie: fa, fb, fs and main");
        my $lp = list_json($prog);
        my $pf = nm_functions($prog);
        is_deeply({ map { $_->{function} => hex $_->{address} } @{ $lp->{entries} } },
            { map { $_ => $pf->{$_} } qw(fa fb fs main) }, "$cc @$pie: each entry at its function's address (nm)");
    }
}

# what the probes found, kept: the same compile asks the compiler no more,
# and gives the same object; with MCOUNT_CC_CACHE=off, nothing is kept
{
    my %e = (%env, MCOUNT_CC_CACHE => "$dir/cache2", MCOUNT_CC_VERBOSE => 1);
    my ($st, $out, $err) = mcc(['gcc', '-O2', '-c', 'a.c', '-o', 'k1.o'], env => \%e, dir => $dir);
    is($st, 0, 'kept: first compile') or diag $err;
    is(scalar(() = $err =~ /^mcount-cc: probe: /mg), 2, 'kept: first compile, two probes');
    my @kept = glob "$dir/cache2/cc-*";
    is(scalar @kept, 1, 'kept: one file');
    is(slurp($kept[0]), "x86_64\t-fpatchable-function-entry=5,0\n", 'kept: the target and its flags');
    ($st, $out, $err) = mcc(['gcc', '-O2', '-c', 'a.c', '-o', 'k2.o'], env => \%e, dir => $dir);
    is($st, 0, 'kept: second compile') or diag $err;
    unlike($err, qr/^mcount-cc: probe: /m, 'kept: second compile, no probe');
    like($err, qr/^mcount-cc: the compiler's table for x86_64: -fpatchable-function-entry=5,0, as a probe found it \(/m,
        'kept: said');
    is(slurp("$dir/k2.o"), slurp("$dir/k1.o"), 'kept: the same object');
    # other options, another file (-m32: refused, nothing kept)
    ($st, $out, $err) = mcc(['gcc', '-O2', '-fno-pie', '-c', 'a.c', '-o', 'k3.o'], env => \%e, dir => $dir);
    is($st, 0, 'kept: -fno-pie compiled') or diag $err;
    ($st) = mcc(['gcc', '-m32', '-c', 'a.c', '-o', 'k4.o'], env => \%e, dir => $dir);
    is($st >> 8, 100, 'kept: -m32 refused');
    is(scalar(() = glob "$dir/cache2/cc-*"), 2, 'kept: a file for -fno-pie, none for the refusal');
    ($st, $out, $err) = mcc(['gcc', '-O2', '-c', 'a.c', '-o', 'k5.o'],
        env => { %e, MCOUNT_CC_CACHE => 'off', HOME => "$dir/home" }, dir => $dir);
    is($st, 0, 'off: compiled') or diag $err;
    is(scalar(() = $err =~ /^mcount-cc: probe: /mg), 2, 'off: two probes');
    ok(!-e "$dir/home", 'off: nothing kept');
}

# x86_64 16,14 (MCOUNT_CC_FLAGS): 14 bytes before the symbol, 2 after
for my $cc (qw(gcc clang)) {
    my ($st, $out, $err) = mcc([$cc, '-O2', '-c', 'a.c', '-o', "a16-$cc.o"],
        env => { %env, MCOUNT_CC_FLAGS => '-fpatchable-function-entry=16,14' }, dir => $dir);
    is($st, 0, "$cc 16,14: compiled") or diag $err;
    my $o = "$dir/a16-$cc.o";
    ($st, $out, $err) = run_cmd([$MR, '--verify', '--patchable=16,14', $o]);
    is($st, 0, "$cc 16,14: --verify --patchable=16,14") or diag $err;
    like($out, qr/OK, __patchable_function_entries: 3 entries for 3 functions \(N,M 16,14: 3\)/, "$cc 16,14: said");
    my $funcs = nm_functions($o);
    my $l = list_json($o);
    for my $e (@{ $l->{entries} }) {
        is($e->{offset}, $funcs->{ $e->{function} } - 14, "$cc 16,14: $e->{function}'s entry 14 bytes before it (nm)");
    }
    ($st, $out) = run_cmd([$MR, '--list', $o]);
    like($out, qr/^\.text\+0x[0-9a-f]+  fa-0xe\/0x[0-9a-f]+  \.text  __patchable_function_entries$/m, "$cc 16,14: --list text");
}

# GCC's -mnop-mcount -mrecord-mcount (non-PIC): GCC's __mcount_loc, NOPs at each entry
{
    my ($st, $out, $err) = mcc(['gcc', '-O2', '-fno-pie', '-c', 'a.c', '-o', 'anop.o'],
        env => { %env, MCOUNT_CC_FLAGS => '-pg -mfentry -mnop-mcount -mrecord-mcount' }, dir => $dir);
    is($st, 0, 'gcc -mnop-mcount: compiled') or diag $err;
    ($st, $out, $err) = run_cmd([$MR, '--verify', "$dir/anop.o"]);
    is($st, 0, 'gcc -mnop-mcount: --verify') or diag $err;
    is($out, "$dir/anop.o: OK, 4 entries for 0 calls to the hook and 4 NOPs of GCC's -mnop-mcount\n",
        'gcc -mnop-mcount: the NOPs of each function nm lists');
    is(scalar keys %{ nm_functions("$dir/anop.o") }, 4, 'gcc -mnop-mcount: nm lists 4 functions');
    for my $fn (qw(fa fb fs fnone)) {
        is(insns("$dir/anop.o", $fn)->[0][1], 'nopl', "gcc -mnop-mcount: objdump: $fn begins with nopl");
    }
    # the same flags where GCC refuses them (PIE, Debian's default): refused
    ($st, $out, $err) = mcc(['gcc', '-O2', '-c', 'a.c', '-o', 'apie.o'],
        env => { %env, MCOUNT_CC_FLAGS => '-pg -mfentry -mnop-mcount -mrecord-mcount' }, dir => $dir);
    is($st >> 8, 100, 'gcc -mnop-mcount with PIE: exit status 100');
    like($err, qr/^mcount-cc: gcc: MCOUNT_CC_MODE=compiler: the compiler refuses -pg -mfentry -mnop-mcount -mrecord-mcount: .*-mnop-mcount/m,
        'gcc -mnop-mcount with PIE: GCC\'s reason');
    ok(!-e "$dir/apie.o", 'gcc -mnop-mcount with PIE: no object');
}

# refused: clang has no -mnop-mcount on x86_64; i386 has no flags chosen;
# flags that make no table of the compiler's
{
    my ($st, $out, $err) = mcc(['clang', '-c', 'a.c', '-o', 'ac.o'],
        env => { %env, MCOUNT_CC_FLAGS => '-pg -mfentry -mnop-mcount -mrecord-mcount' }, dir => $dir);
    is($st >> 8, 100, 'clang -mnop-mcount: exit status 100');
    like($err, qr/^mcount-cc: clang: MCOUNT_CC_MODE=compiler: the compiler refuses -pg -mfentry -mnop-mcount -mrecord-mcount: clang: error: .*'-mnop-mcount'/m,
        "clang -mnop-mcount: clang's reason");
    ($st, $out, $err) = mcc(['gcc', '-m32', '-c', 'a.c', '-o', 'a32.o'], env => \%env, dir => $dir);
    is($st >> 8, 100, 'i386: exit status 100');
    like($err, qr/^mcount-cc: gcc: MCOUNT_CC_MODE=compiler: no flags of a compiler-made table are chosen for i386: name them in MCOUNT_CC_FLAGS/m,
        'i386: no flags chosen, said');
    ok(!-e "$dir/a32.o", 'i386: no object');
    # ... which MCOUNT_CC_FLAGS names
    ($st, $out, $err) = mcc(['gcc', '-m32', '-O2', '-c', 'a.c', '-o', 'a32.o'],
        env => { %env, MCOUNT_CC_FLAGS => '-fpatchable-function-entry=5' }, dir => $dir);
    is($st, 0, 'i386 with MCOUNT_CC_FLAGS: compiled') or diag $err;
    ($st, $out, $err) = run_cmd([$MR, '--verify', "$dir/a32.o"]);
    is($st, 0, 'i386: --verify') or diag $err;
    ($st, $out, $err) = mcc(['gcc', '-c', 'a.c'], env => { %env, MCOUNT_CC_FLAGS => '-pg -mfentry' }, dir => $dir);
    is($st >> 8, 2, '-pg alone: bad usage');
    like($err, qr/^mcount-cc: MCOUNT_CC_FLAGS '-pg -mfentry' makes no table of the compiler's own/m, '-pg alone: said');
}

# broken on purpose: --verify refuses each
{
    my $prog = "$dir/p-gcc-nopie";
    my $e = must('readelf', '-SW', $prog);
    my ($off, $size) = $e =~ /__patchable_function_entries\s+PROGBITS\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)/
        or die "no table in $prog";
    my $raw = substr(slurp($prog), hex $off, hex $size);
    my @w = unpack 'Q<*', $raw;
    is(scalar @w, 4, 'the linked table: 4 words');
    my $f = nm_functions($prog);
    my %at = reverse %$f;
    my $broken = sub {
        my ($name, @words) = @_;
        spit("$dir/$name.bin", pack 'Q<*', @words);
        must('objcopy', '--update-section', "__patchable_function_entries=$dir/$name.bin", $prog, "$dir/$name");
        my ($st, $out, $err) = run_cmd([$MR, '--verify', "$dir/$name"]);
        is($st >> 8, 1, "$name: --verify fails");
        return $err;
    };
    my ($i) = grep { ($at{ $w[$_] } // '') eq 'fb' } 0 .. $#w;
    my @moved = @w;
    $moved[$i]++;
    my $err = $broken->('moved', @moved);
    like($err, qr/^mcount-record: \Q$dir\E\/moved: 0x[0-9a-f]+ fb\+0x1\/0x[0-9a-f]+: entry of __patchable_function_entries is before no function: its 4 NOPs end at 0x[0-9a-f]+, where none starts$/m,
        'moved by a byte: before no function');
    my ($j) = grep { ($at{ $w[$_] } // '') eq 'fa' } 0 .. $#w;
    my @dup = @w;
    $dup[$j] = $w[$i];
    $err = $broken->('doubled', @dup);
    like($err, qr/: duplicate entry of __patchable_function_entries \(2 times\)$/m, 'doubled: a duplicate');
    my @data = @w;
    $data[$j] = $f->{main} - 0x100000;      # no code there
    $err = $broken->('outside', @data);
    like($err, qr/: entry of __patchable_function_entries (?:outside every section|outside text)/m, 'outside: said');

    # an object's entry for fa made fb's (its relocation's addend, a
    # hand-edited word): fb has two, fa none, though it begins with the NOPs
    {
        my $o = "$dir/a-gcc.o";
        my $fn = nm_functions($o);
        my ($roff) = must('readelf', '-SW', $o) =~ /\]\s+\.rela__patchable_function_entries\s+RELA\s+[0-9a-f]+\s+([0-9a-f]+)/
            or die "no relocations of the table in $o";
        my $bytes = slurp($o);
        my @rela = map { [unpack 'Q<Q<q<', substr($bytes, hex($roff) + 24 * $_, 24)] } 0 .. 3;
        # (the two against one section's symbol: main's is in another)
        my ($ia, $ib);
        for my $x (0 .. $#rela) {
            for my $y (grep { $_ != $x } 0 .. $#rela) {
                ($ia, $ib) = ($x, $y) if $rela[$x][2] == $fn->{fa} && $rela[$y][2] == $fn->{fb}
                    && $rela[$x][1] == $rela[$y][1];
            }
        }
        ok(defined $ia && defined $ib, "the object's relocations of fa's and fb's entries (addends $fn->{fa}, $fn->{fb})");
        substr($bytes, hex($roff) + 24 * $ia + 16, 8) = pack 'q<', $fn->{fb};
        spit("$dir/twice.o", $bytes);
        my ($st, $out, $err) = run_cmd([$MR, '--verify', "$dir/twice.o"]);
        is($st >> 8, 1, "fa's entry made fb's: --verify fails");
        like($err, qr/^mcount-record: \Q$dir\E\/twice\.o: \.text\+0x[0-9a-f]+ fb\+0x0\/\S+: duplicate entry of __patchable_function_entries \(2 times\)$/m,
            "fa's entry made fb's: a duplicate");
        like($err, qr/^mcount-record: \Q$dir\E\/twice\.o: \.text\+0x[0-9a-f]+ fa\+0x0\/\S+: fa begins with 5 bytes of NOPs, as the functions with an entry of __patchable_function_entries do, but has none$/m,
            "fa's entry made fb's: fa without one");
    }

    # stripped (strip's): the NOPs alone are checked, and one overwritten is seen
    {
        my $prog = "$dir/p-gcc";
        must('strip', '-o', "$dir/stripped", $prog);
        my ($st, $out, $err) = run_cmd([$MR, '--verify', "$dir/stripped"]);
        is($st, 0, 'stripped: --verify') or diag $err;
        like($out, qr/: OK, __patchable_function_entries: 4 entries for \d functions; no symbol table: \d at NOPs of functions not known$/,
            'stripped: the functions without a dynamic symbol not known');
        my $fb = nm_functions($prog)->{fb};
        my ($va, $fo) = must('readelf', '-SW', $prog) =~ /\]\s+\.text\s+PROGBITS\s+([0-9a-f]+)\s+([0-9a-f]+)/;
        my $bytes = slurp("$dir/stripped");
        substr($bytes, $fb - hex($va) + hex($fo) + 2, 1) = "\xcc";
        spit("$dir/stripped-int3", $bytes);
        ($st, $out, $err) = run_cmd([$MR, '--verify', '--patchable=5,0', "$dir/stripped-int3"]);
        is($st >> 8, 1, 'stripped, a NOP overwritten: --verify --patchable=5,0 fails');
        like($err, qr/^mcount-record: \Q$dir\E\/stripped-int3: 0x[0-9a-f]+ \S+: entry of __patchable_function_entries is at 2 bytes of NOPs, fewer than 5$/m,
            'stripped, a NOP overwritten: its entry at 2 bytes of NOPs');
        substr($bytes, $fb - hex($va) + hex($fo), 1) = "\xcc";
        spit("$dir/stripped-int3", $bytes);
        ($st, $out, $err) = run_cmd([$MR, '--verify', "$dir/stripped-int3"]);
        is($st >> 8, 1, 'stripped, its first NOP overwritten: --verify fails');
        like($err, qr/: entry of __patchable_function_entries is not at a NOP \(cc 90 cc 90 90 /m,
            'stripped, its first NOP overwritten: said');
    }

    # a NOP byte of fa's overwritten in the object (int3)
    my $o = "$dir/a-gcc.o";
    my $fa = nm_functions($o)->{fa};
    my ($text) = must('readelf', '-SW', $o) =~ /\]\s+\.text\s+PROGBITS\s+[0-9a-f]+\s+([0-9a-f]+)/;
    my $bytes = slurp($o);
    substr($bytes, hex($text) + $fa, 1) = "\xcc";
    spit("$dir/int3.o", $bytes);
    my ($st, $out);
    ($st, $out, $err) = run_cmd([$MR, '--verify', "$dir/int3.o"]);
    is($st >> 8, 1, 'a NOP overwritten: --verify fails');
    like($err, qr/^mcount-record: \Q$dir\E\/int3\.o: \.text\+0x[0-9a-f]+ fa\+0x0\/\S+: entry of __patchable_function_entries is not at a NOP \(cc 90 90 90 90 /m,
        'a NOP overwritten: said');
}

# the flags of the table's rows, as the helper gives them from an ELF
# header (riscv64: four c.nop with the compressed instructions,
# EF_RISCV_RVC, else two nop: 8 bytes either way)
{
    my $helper = "$TOP/build/mcount-scan";
    my %want = ('62:0' => '-fpatchable-function-entry=5,0', '183:0' => '-fpatchable-function-entry=2,0',
        '243:5' => '-fpatchable-function-entry=4,0', '243:4' => '-fpatchable-function-entry=2,0', '3:0' => undef);
    for my $k (sort keys %want) {
        my ($machine, $flags) = split /:/, $k;
        my $class = $machine == 3 ? 1 : 2;
        my $hdr = "\x7fELF" . chr($class) . "\x01\x01" . ("\0" x 9) . pack('vv', 1, $machine)
            . ($class == 2 ? ("\0" x 28) . pack('V', $flags) . ("\0" x 12) : ("\0" x 16) . pack('V', $flags) . ("\0" x 12));
        spit("$dir/id-$machine-$flags.o", $hdr);
        my ($st, $out, $err) = run_cmd([$helper, '--identify', '--object', "$dir/id-$machine-$flags.o"]);
        is($st, 0, "--identify machine $machine, e_flags $flags") or diag $err;
        my ($got) = $out =~ /^cc-table-flags\t(.*)$/m;
        is($got, $want{$k}, "machine $machine, e_flags $flags: cc-table-flags " . ($want{$k} // 'none'));
    }
}

done_testing();
