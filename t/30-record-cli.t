#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# mcount-record's command line: -j 4 over a directory gives what -j 1 gives;
# tool detection for x86_64 and i386 objects (lookup order, with a PATH of
# our own); every option's bad use is a clear error with exit status 2.
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use lib 't/lib';
use TestUtil qw($TOP must tmpdir slurp spit leftovers which);
use Oracle qw(table_sites);
use RecordTest qw(mr build_objects FLAG_SETS);

# ---- -j 4 versus -j 1 ------------------------------------------------------
my $src = tmpdir();
my @objs;
for my $i (0 .. 3) {
    my $d = "$src/$i";
    mkdir $d or die;
    build_objects($d, (FLAG_SETS)[$i]);
    for my $s (qw(one two main)) {
        copy("$d/$s.o", "$src/$s-$i.o") or die;
        push @objs, "$s-$i.o";
    }
}
my (%tab, %sum);
for my $j (1, 4) {
    my $d = tmpdir();
    copy("$src/$_", "$d/$_") or die for @objs;
    my ($st, $out, $err) = mr('-j', $j, map { "$d/$_" } @objs);
    is($st, 0, "-j $j: exit 0") or diag $err;
    $sum{$j} = $out;
    $tab{$j} = { map { $_ => table_sites("$d/$_") } @objs };
    is_deeply([leftovers($d)], [], "-j $j: no temporary files left");
}
like($sum{1}, qr/^mcount-record: 12 objects recorded, \d+ call sites, 0 unchanged, 0 errors$/, '-j 1 summary');
is($sum{4}, $sum{1}, '-j 4 prints the same summary as -j 1');
is_deeply($tab{4}, $tab{1}, '-j 4 gives every object the same table as -j 1');
{
    my $d = tmpdir();
    copy("$src/one-0.o", "$d/a.o") or die;
    spit("$d/a.c", "int x;\n");       # not ELF
    spit("$d/b.o", '');                # empty
    my ($st, $out, $err) = mr('-j', 4, "$d/a.o", "$d/a.c", "$d/b.o");
    is($st, 1, '-j 4 with bad files: exit 1');
    like($out, qr/1 object recorded, .*, 0 unchanged, 2 errors$/, '-j 4 counts the errors');
    like($err, qr/^mcount-record: \Q$d\E\/b\.o: /m, '-j 4 passes on the worker\'s message');
    ($st, $out, $err) = mr('-j', 2, '--dry-run', "$src/one-0.o", "$src/two-2.o");
    is($st, 0, '-j 2 --dry-run: exit 0');
    like($out, qr{\A/\* \Q$src\E/one-0\.o \*/\n.*\.quad.*/\* \Q$src\E/two-2\.o \*/\n.*\.long}s,
        '-j 2 --dry-run prints each file\'s assembly, named, in the order of the files');
}

# ---- tool detection -------------------------------------------------------
my $bin = tmpdir();
my @real = qw(objdump objcopy ld as readelf);
sub link_tool {
    my ($name, $target) = @_;
    my $path = which($target) // die "no $target";
    symlink($path, "$bin/$name") or die "$bin/$name: $!";
}
link_tool($_, $_) for @real;
link_tool("x86_64-linux-gnu-$_", $_) for @real;
my $x64 = "$src/one-0.o";
my $i386 = "$src/one-2.o";
my %env = (PATH => $bin, OBJDUMP => '', OBJCOPY => '', LD => '', AS => '', CC => '',
    READELF => '', CROSS_COMPILE => '');

sub tools_of {
    my ($file, $env, @opt) = @_;
    my ($st, $out, $err) = mr({ env => { %env, %{ $env // {} } } }, '--tools', @opt, $file);
    my %t = map { /^  (\w+):\s+(.*?)  \((.*)\)$/ ? ($1 => "$2 ($3)") : () } split /\n/, $out;
    $t{_status} = $st;
    $t{_out} = $out . $err;
    return \%t;
}
my $t = tools_of($x64);
is($t->{objdump}, 'x86_64-linux-gnu-objdump (object triple)', 'x86_64 object: objdump by triple');
is($t->{ld}, 'x86_64-linux-gnu-ld (object triple)', 'x86_64 object: ld by triple');
like($t->{_out}, qr/^\Q$x64\E: x86_64 \(64-bit little-endian, x86_64-linux-gnu\)$/m, 'x86_64 object identified');
$t = tools_of($i386);
like($t->{_out}, qr/^\Q$i386\E: i386 \(32-bit little-endian, i686-linux-gnu\)$/m, 'i386 object identified');
is($t->{objdump}, 'objdump (multi-target)', 'i386 object: host objdump, which reads elf32-i386');
is($t->{ld}, 'ld (host)', 'i386 object: host ld');
is($t->{as}, 'as (host)', 'i386 object: host as');
unlike($t->{_out}, qr/problem:/, 'i386 object: host ld has the elf_i386 emulation');
link_tool("i686-linux-gnu-$_", $_) for @real;
$t = tools_of($i386);
is($t->{objdump}, 'i686-linux-gnu-objdump (object triple)', 'i386 object: triple tools win when on PATH');
$t = tools_of($i386, { CROSS_COMPILE => 'x86_64-linux-gnu-' });
is($t->{objcopy}, 'x86_64-linux-gnu-objcopy (cross prefix)', 'CROSS_COMPILE beats the triple');
$t = tools_of($i386, { CROSS_COMPILE => 'x86_64-linux-gnu-' }, '--cross', 'i686-linux-gnu-');
is($t->{objcopy}, 'i686-linux-gnu-objcopy (cross prefix)', '--cross beats CROSS_COMPILE');
$t = tools_of($x64, { OBJDUMP => 'objdump --wide' }, '--cross', 'i686-linux-gnu-');
is($t->{objdump}, 'objdump --wide ($OBJDUMP)', '$OBJDUMP (with flags) beats --cross');
$t = tools_of($x64, { OBJDUMP => 'objdump' }, '--objdump', 'x86_64-linux-gnu-objdump');
is($t->{objdump}, 'x86_64-linux-gnu-objdump (option)', '--objdump beats $OBJDUMP');
$t = tools_of($x64, { CC => 'gcc -m64' });
is($t->{cc}, 'gcc -m64 ($CC)', '$CC assembles when no assembler is given');
$t = tools_of($x64, { CC => 'gcc', AS => 'as' });
ok(!$t->{cc}, '$AS beats $CC');
$t = tools_of($x64, {}, '--cross', 'nosuch-');
like($t->{_out}, qr/problem: nosuch-objdump: not found/, 'a missing cross tool is named');
{
    my $d = tmpdir();
    copy($x64, "$d/x.o") or die;
    my ($st, $out, $err) = mr({ env => \%env }, '--cross', 'nosuch-', "$d/x.o");
    is($st, 1, 'recording with a missing tool fails');
    like($err, qr/^mcount-record: \Q$d\E\/x\.o: nosuch-objdump: not found \(needed as objdump; install binutils for x86_64-linux-gnu, or give --cross PREFIX\)$/m,
        'and says which tool and what to do');
    is(slurp("$d/x.o"), slurp($x64), 'and leaves the object unchanged');
    # both objects really record with what was detected
    copy($i386, "$d/i.o") or die;
    ($st, $out, $err) = mr({ env => \%env }, "$d/x.o", "$d/i.o");
    is($st, 0, 'x86_64 and i386 objects record with the detected tools') or diag $err;
    is_deeply(table_sites("$d/i.o"), table_sites("$src/2/one.gcc.o"), 'i386 table equals GCC\'s');
}

# ---- usage ----------------------------------------------------------------
my $f = $x64;
my @bad = (
    [[], qr/no FILE given/],
    [['--bogus', $f], qr/unrecognized option '--bogus'/],
    [['-Z', $f], qr/invalid option -- 'Z'/],
    [['--Z', $f], qr/unrecognized option '--Z'/],
    [['--Z=1', $f], qr/unrecognized option '--Z'/],
    [['--verify=1', $f], qr/option '--verify' doesn't allow an argument/],
    [['--ver', $f], qr/option '--ver' is ambiguous; possibilities: '--verbose' '--verify' '--version'/],
    [['-j', 0, $f], qr/--jobs must be a positive number, not '0'/],
    [['--jobs=x', $f], qr/--jobs must be a positive number, not 'x'/],
    [['-j'], qr/option requires an argument -- 'j'/],
    [['--jobs'], qr/option '--jobs' requires an argument/],
    [['--entry=middle', $f], qr/--entry must be call or reloc, not 'middle'/],
    [['--format=xml', '--list', $f], qr/--format must be text or json, not 'xml'/],
    [['--format=json', $f], qr/--format applies to --list only/],
    [['--link', '--entry=reloc', '--sections=all', '--', 'gcc', '-o', 'p', $f], qr/--entry, --sections do not apply to --link/],
    [['--link', '--writable-table', '--', 'gcc', '-o', 'p', $f], qr/--writable-table does not apply to --link/],
    [['--list', '--verify', $f], qr/options --list and --verify cannot be combined/],
    [['--remove', '--dry-run', $f], qr/options --dry-run and --remove cannot be combined/],
    [['-j', 2, '--list', $f], qr/--jobs applies to recording only/],
    [['--sections=', $f], qr/bad --sections list ''/],
    [['--sections=.text,,.init.text', $f], qr/bad --sections list '.text,,.init.text'/],
    [['--cross=', $f], qr/--cross needs a prefix/],
    [['--objdump=', $f], qr/--objdump needs a command/],
    [['--ld', ' ', $f], qr/--ld needs a command/],
);
for my $b (@bad) {
    my ($args, $re) = @$b;
    my ($st, $out, $err) = mr(@$args);
    is($st, 2, "bad usage (@$args): exit 2");
    like($err, qr/^mcount-record: $re/m, "bad usage (@$args): clear message");
    like($err, qr/Try 'mcount-record --help' for more information\./, "bad usage (@$args): points at --help");
}
my ($st, $out, $err) = mr('--help');
is($st, 0, '--help exits 0');
like($out, qr/^Usage: mcount-record \[OPTION\]\.\.\. FILE\.\.\./, '--help prints usage on stdout');
# the architectures --help and the man page name are the helper's rows
{
    my @rows = map { /^(\S+)\t/ ? $1 : () } split /\n/, must("$TOP/build/mcount-scan", '--list-arches');
    my $names = sub { my ($t) = @_; $t = "$t."; $t =~ s/\s+/ /g; $t =~ s/ \([^()]*\)//g; [sort $t =~ /\b([a-z][a-z0-9_]+)\b(?=,| or| and|\.)/g] };
    my ($help) = $out =~ /ELF header: (.*?)\.\n/s;
    is_deeply($names->($help // ''), [sort @rows], '--help names every architecture of the helper, and no other');
    my ($pod) = slurp("$TOP/doc/mcount-record.pod") =~ /The architectures: (.*?\.)\s/s;
    is_deeply($names->(($pod // '') =~ s/\s*\(what each one.*//sr), [sort @rows],
        'the man page names every architecture of the helper, and no other');
}
($st, $out) = mr('--version');
is($out, "mcount-record (recordmcount) 0.1.0\n", '--version');

# An object that asks for an executable stack (a GCC nested function
# whose address is taken: a trampoline on the stack): ld -r's warning
# about the temporary files is not passed on, the request is kept.
{
    my $d = tmpdir();
    spit("$d/n.c", "int f(int x) { int g(int y) { return x + y; } int (*p)(int) = g; return p(1); }\n");
    must('gcc', '-O0', '-pg', '-c', "$d/n.c", '-o', "$d/n.o");
    my $stack = sub { (must('readelf', '-SW', "$d/n.o") =~ /(\.note\.GNU-stack\s.*)$/m)[0] // '' };
    like($stack->(), qr/\sX\s/, 'execstack: the compiled object asks for an executable stack');
    my ($st2, $out2, $err2) = mr("$d/n.o");
    is($st2, 0, 'execstack: recorded');
    is($out2 . $err2, "mcount-record: 1 object recorded, 2 call sites, 0 unchanged, 0 errors\n",
        'execstack: nothing but the summary said');
    like($stack->(), qr/\sX\s/, 'execstack: the object still asks for it');
}

done_testing();
