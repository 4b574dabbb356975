#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# mcount-cc's command-line classifier, as a table: each compiler command
# line with its expected decision, reason and objects.  Every row is
# checked twice: through RecordMcount::Argv::classify (pure), and through
# bin/mcount-cc with a gcc on PATH that logs the argv it receives and runs
# the real gcc: a pass-through row must reach gcc with exactly the same
# argv, a record row with -pg added and end in objects with a table; the
# exit status must be gcc's own.
use strict;
use warnings;
use Test::More;
use Cwd qw(getcwd);
use TestUtil qw(tmpdir spit must run_cmd);
use CcTest qw(mcc fake_dir logging_gcc read_log);
use RecordMcount::Argv qw(classify split_command triple_from_compiler);

my $dir = tmpdir();
mkdir "$dir/sub" or die;
spit("$dir/a.c", "int fa(int x) { return x + 1; }\n");
spit("$dir/b.c", "static int sb(int x) { return x * 3; }\nint fb(int x) { return sb(x) - 1; }\n");
spit("$dir/main.c", "int fa(int);\nint main(void) { return fa(-1); }\n");
spit("$dir/sub/c.c", "#include \"h.h\"\nint fc(void) { return H; }\n");
spit("$dir/sub/h.h", "#define H 7\n");
spit("$dir/noext", "int fn(void) { return 2; }\n");
spit("$dir/sp ace.c", "int fsp(void) { return 3; }\n");
spit("$dir/conftest.c", "int main(void) { return 0; }\n");
spit("$dir/conftest_util.c", "int util(void) { return 1; }\n");
spit("$dir/sub/conftest.c", "int main(void) { return 0; }\n");
spit("$dir/x.s", ".text\n.globl fx\nfx: ret\n");
spit("$dir/y.S", "#define R ret\n.text\n.globl fy\nfy: R\n");
spit("$dir/resp1", "-c a.c\n-o r.o\n");
spit("$dir/resp2", "-c 'sp ace.c' \@resp3\n");
spit("$dir/resp3", "-DFROM_NESTED=\"1\"\n");
must('gcc', '-c', "$dir/a.c", '-o', "$dir/apre.o");
must('gcc', '-c', "$dir/main.c", '-o', "$dir/mainpre.o");

# [ args, action, reason, objects, exit status ]
my @rows = (
    # compiles to object: recorded
    ['-c a.c',                               'record', 'compile', ['a.o']],
    ['-c a.c -o out.o',                      'record', 'compile', ['out.o']],
    ['-o out2.o -c a.c',                     'record', 'compile', ['out2.o']],
    ['-c -oout3.o a.c',                      'record', 'compile', ['out3.o']],
    ['-c a.c b.c',                           'record', 'compile', ['a.o', 'b.o']],
    ['-c sub/c.c',                           'record', 'compile', ['c.o']],
    ['-c -o sub/c.o sub/c.c',                'record', 'compile', ['sub/c.o']],
    ['-O2 -g -Wall -I sub -DX=1 -c b.c',     'record', 'compile', ['b.o']],
    ['-c -x c noext',                        'record', 'compile', ['noext.o']],
    ['-c -xc noext -o ne.o',                 'record', 'compile', ['ne.o']],
    ['-c a.c -MD',                           'record', 'compile', ['a.o']],
    ['-c b.c -MMD -MF deps.d -MT b.o',       'record', 'compile', ['b.o']],
    ['-c a.c -MD -MFdeps2.d -MQ $(x) -MP',   'record', 'compile', ['a.o']],
    ['-c a.c -Wp,-MD,deps3.d',               'record', 'compile', ['a.o']],
    ['-c a.c -pg',                           'record', 'compile', ['a.o']],
    ['@resp1',                               'record', 'compile', ['r.o']],
    ['-O2 @resp2',                           'record', 'compile', ['sp ace.o']],
    ['-c a.c x.s',                           'record', 'compile', ['a.o']],
    ['-c -x assembler-with-cpp y.S -x none b.c', 'record', 'compile', ['b.o']],
    ['-c a.c -flto -ffat-lto-objects',       'record', 'compile', ['a.o']],
    ['-c a.c -flto -fno-lto',                'record', 'compile', ['a.o']],
    ['-c -include sub/h.h a.c',              'record', 'compile', ['a.o']],
    ['-c a.c -isystem sub -o a2.o',          'record', 'compile', ['a2.o']],
    ['-c b.c -fPIC -o pic.o',                'record', 'compile', ['pic.o']],
    ['-m32 -O2 -c b.c -o b32.o',             'record', 'compile', ['b32.o']],
    ['-c b.c -fno-pie -Xpreprocessor -DQ -o np.o', 'record', 'compile', ['np.o']],
    # a link that compiles its sources: each compiled as a compile is,
    # then the link of the objects (the output gets the table)
    ['a.c main.c -o prog',                   'split', 'compile-link', ['prog']],
    ['a.c main.c',                           'split', 'compile-link', ['a.out']],
    ['-shared -fPIC b.c -o libb.so',         'split', 'compile-link', ['libb.so']],
    ['-O1 main.c apre.o -o prog3 -lm',       'split', 'compile-link', ['prog3']],
    # autoconf's tests (conftest.c, to conftest, conftest.o or
    # conftest2.o): compiled with the hook, no table; not split
    ['-c -g -O2 conftest.c',                 'compile', 'autoconf-test', ['conftest.o']],
    ['-c conftest.c -o conftest2.o',         'compile', 'autoconf-test', ['conftest2.o']],
    ['-o conftest -g -O2 conftest.c',        'pass', 'autoconf-test'],
    ['-o prog4 conftest.c',                  'split', 'compile-link', ['prog4']],
    ['-o conftest conftest.c a.c',           'split', 'compile-link', ['conftest']],
    # (not a name that only starts so, nor one in another directory)
    ['-c conftest_util.c -o conftest_util.o', 'record', 'compile', ['conftest_util.o']],
    ['-c sub/conftest.c -o conftest.o',      'record', 'compile', ['conftest.o']],
    ['-c conftest.c -o sub/conftest.o',      'record', 'compile', ['sub/conftest.o']],
    # everything else: the compiler runs untouched
    ['apre.o mainpre.o -o prog2',            'pass', 'link'],
    ['-r a.c -o part.o',                     'pass', 'partial-link'],
    ['a.c main.c -o /dev/null',              'pass', 'dev-null'],
    ['-E a.c',                               'pass', 'preprocess'],
    ['-E a.c -o a.i',                        'pass', 'preprocess'],
    ['-M a.c',                               'pass', 'preprocess'],
    ['-MM sub/c.c',                          'pass', 'preprocess'],
    ['-c -M a.c',                            'pass', 'preprocess'],
    ['-S a.c',                               'pass', 'assembly-output'],
    ['-c -S b.c -o b.s',                     'pass', 'assembly-output'],
    ['-fsyntax-only a.c',                    'pass', 'syntax-only'],
    ['-c -fsyntax-only b.c',                 'pass', 'syntax-only'],
    ['--version',                            'pass', 'query'],
    ['-dumpmachine',                         'pass', 'query'],
    ['-dumpversion',                         'pass', 'query'],
    ['-print-file-name=libc.a',              'pass', 'query'],
    ['-print-prog-name=as',                  'pass', 'query'],
    ['-print-search-dirs',                   'pass', 'query'],
    ['--help',                               'pass', 'query'],
    ['-### -c a.c',                          'pass', 'dry-run'],
    ['-v',                                   'pass', 'no-input'],
    ['',                                     'pass', 'no-input', [], 1],
    ['-c a.c -o /dev/null',                  'pass', 'dev-null'],
    ['-c a.c -o -',                          'pass', 'stdout', [], 1],  # gcc's own failure: as cannot write to stdout
    ['-x c -c - -o stdin.o',                 'pass', 'stdin'],
    ['-c x.s',                               'pass', 'not-c'],
    ['-c y.S -o y.o',                        'pass', 'not-c'],
    ['-c apre.o',                            'pass', 'not-c'],
    ['-c sub/h.h',                           'pass', 'header'],
    ['-c a.c -flto',                         'pass', 'lto'],
    ['-c b.c -O2 -flto=auto -o lto.o',       'pass', 'lto'],
    ['-c a.c b.c -o both.o',                 'pass', 'multiple-o', [], 1],
    ['-c a.c -o',                            'pass', 'missing-arg', [], 1],
    ['@missing.rsp',                         'pass', 'response-file', [], 1],
);
cmp_ok(scalar @rows, '>=', 40, 'the table has at least 40 command lines');

my $log = "$dir/gcc.log";
my $fake = fake_dir(gcc => logging_gcc($log));
# (the table is of the per-object mode's decisions; the modes follow it)
my %env = (PATH => "$fake:$ENV{PATH}", MCOUNT_CC_FLAGS => undef, MCOUNT_CC_ACTIVE => undef,
    MCOUNT_CC_MODE => 'object');
delete $env{$_} for grep { !defined $env{$_} } keys %env;
local $ENV{MCOUNT_CC_FLAGS};
local $ENV{MCOUNT_CC_ACTIVE};
delete $ENV{MCOUNT_CC_FLAGS};
delete $ENV{MCOUNT_CC_ACTIVE};

my $old = getcwd();
for my $row (@rows) {
    my ($line, $action, $reason, $objects, $exit) = @$row;
    my @args = $line eq '' ? () : split / /, $line;
    $objects //= [];
    $exit //= 0;
    my $name = "gcc $line";

    # The pure classifier (reads @files relative to the current directory).
    chdir $dir or die;
    my $d = classify(\@args);
    chdir $old or die;
    is("$d->{action} $d->{reason}", "$action $reason", "classify: $name");
    is_deeply($d->{objects}, $objects, "classify: $name: objects");

    # Through mcount-cc and the logging gcc.
    unlink $log, map { "$dir/$_" } @$objects;
    my ($st, $out, $err) = mcc(['gcc', @args], dir => $dir, env => \%env);
    is($st >> 8, $exit, "mcount-cc: $name: exit status $exit") or diag($err);
    my $calls = read_log($log);
    my @want = $action =~ /^(?:record|compile)\z/ && !grep({ $_ eq '-pg' } @args) ? ('-pg', @args) : @args;
    # (a link's argv, through the link-time pass: t/35)
    is_deeply($calls->[0] // [], \@want, "mcount-cc: $name: argv gcc received")
        if $action =~ /^(?:record|compile|pass)\z/;
    if ($action eq 'split') {
        # a compile of each source, as a compile with -c to a temporary
        # object is, then the link with each object in its source's place
        my @src = @args[ @{ $d->{sources} } ];
        is(scalar @$calls, @src + 1, "mcount-cc: $name: gcc ran for each source, then for the link");
        my @link = @args;
        for my $k (0 .. $#src) {
            my $c = $calls->[$k] // [];
            my $tmp = $c->[-1] // '';
            is_deeply($c, ['-pg', @{ $d->{compile_args} }, '-c', $src[$k], '-o', $tmp],
                "mcount-cc: $name: $src[$k] compiled with the hook, alone, to an object");
            like($tmp, qr{/\.tmp_mc_[^/]+\.o\z}, "mcount-cc: $name: $src[$k]: a temporary object");
            $link[ $d->{sources}[$k] ] = $tmp;
        }
        is_deeply($calls->[-1], \@link, "mcount-cc: $name: the link, with the objects for the sources");
        is_deeply([grep { /^\.tmp_mc_/ } do { opendir(my $dh, $dir) or die; readdir $dh }], [],
            "mcount-cc: $name: no temporary file left");
    }
    if ($action eq 'pass') {
        is(scalar @$calls, 1, "mcount-cc: $name: gcc ran once");
    }
    for my $obj (@$objects) {
        my ($rst, $sections) = run_cmd(['readelf', '-S', '-W', "$dir/$obj"]);
        if ($action eq 'compile') {
            unlike($sections, qr/ __mcount_loc /, "mcount-cc: $name: $obj has no table");
            my (undef, $syms) = run_cmd(['nm', "$dir/$obj"]);
            like($syms, qr/^\s+U mcount$/m, "mcount-cc: $name: $obj calls the hook");
        } else {
            like($sections, qr/ __mcount_loc /, "mcount-cc: $name: $obj has a table");
        }
    }
    if ($reason eq 'lto') {
        like($err, qr/^mcount-cc: warning: LTO compile/m, "mcount-cc: $name: says why nothing is recorded");
    } elsif (defined $d->{warning}) {
        is($err, "mcount-cc: warning: $d->{warning}\n", "mcount-cc: $name: says why nothing is recorded");
    } else {
        unlike($err, qr/mcount-cc/, "mcount-cc: $name: nothing from mcount-cc on stderr");
    }
}

# Hook flags from MCOUNT_CC_FLAGS, each added once.
{
    my $d = classify([qw(-c a.c)], hook_flags => [qw(-pg -mfentry)]);
    is_deeply($d->{add_flags}, [qw(-pg -mfentry)], 'MCOUNT_CC_FLAGS: both flags added');
    $d = classify([qw(-c a.c -mfentry -pg)], hook_flags => [qw(-pg -mfentry)]);
    is_deeply($d->{add_flags}, [], 'MCOUNT_CC_FLAGS: flags already there are not added twice');
    chdir $dir or die;
    $d = classify([qw(-c @resp1 -mfentry)], hook_flags => [qw(-pg -mfentry)]);
    chdir $old or die;
    is_deeply($d->{add_flags}, ['-pg'], 'hook flags: response files are read for flags too');
    is($d->{insert_at}, 0, 'hook flags go first, after the compiler');
    is(classify([qw(-c a.c)], nested => 1)->{reason}, 'nested', 'inside mcount-cc: pass');
}

# GCC's -mnop-mcount: no call to record, so a warning, unless GCC records
# its NOPs itself (-mrecord-mcount); the object shows why (readelf).
{
    my $nop = qr/^mcount-cc: warning: -mnop-mcount leaves no call to record: add -mrecord-mcount, and GCC writes the table itself$/m;
    for my $v (['-fno-pie -O2 -pg -mnop-mcount', undef, 1], ['-fno-pie -O2', '-pg -mfentry -mnop-mcount', 1],
               ['-fno-pie -O2 -pg -mnop-mcount -mrecord-mcount', undef, 0], ['-O2', undef, 0],
               # the last of -mX and -mno-X wins
               ['-fno-pie -O2 -pg -mnop-mcount -mrecord-mcount -mno-record-mcount', undef, 1],
               ['-fno-pie -O2 -pg -mnop-mcount -mno-nop-mcount', undef, 0],
               ['-fno-pie -O2 -mno-nop-mcount', '-pg -mnop-mcount', 0]) {
        my ($flags, $hook, $warns) = @$v;
        my $name = "mcount-cc gcc $flags" . ($hook ? " (MCOUNT_CC_FLAGS=$hook)" : '');
        unlink "$dir/nop.o";
        my ($st, $out, $err) = mcc(['gcc', split(' ', $flags), '-c', 'a.c', '-o', 'nop.o'], dir => $dir,
            env => { MCOUNT_CC_FLAGS => $hook, MCOUNT_CC_MODE => 'object' });
        is($st >> 8, 0, "$name: exit 0") or diag $err;
        if ($warns) {
            like($err, $nop, "$name: says why nothing is recorded");
            my (undef, $sections) = run_cmd(['readelf', '-S', '-W', "$dir/nop.o"]);
            unlike($sections, qr/ __mcount_loc /, "$name: and indeed the object has no table");
        } else {
            unlike($err, $nop, "$name: no warning");
        }
    }
}

# Launchers and compiler names.
is_deeply(split_command([qw(ccache gcc -c a.c)]),
    { launchers => ['ccache'], compiler => 'gcc', args => ['-c', 'a.c'] }, 'split: ccache gcc');
is_deeply(split_command([qw(/usr/bin/distcc ccache x86_64-linux-gnu-gcc -c)]),
    { launchers => ['/usr/bin/distcc', 'ccache'], compiler => 'x86_64-linux-gnu-gcc', args => ['-c'] },
    'split: two launchers');
is_deeply(split_command(['ccache']), { launchers => [], compiler => 'ccache', args => [] },
    'split: a lone launcher is the command');
is(triple_from_compiler('aarch64-linux-gnu-gcc-12'), 'aarch64-linux-gnu', 'triple: versioned cross gcc');
is(triple_from_compiler('/usr/bin/riscv64-linux-gnu-gcc'), 'riscv64-linux-gnu', 'triple: path');
is(triple_from_compiler('x86_64-pc-linux-gnu-clang'), 'x86_64-pc-linux-gnu', 'triple: clang');
is(triple_from_compiler('gcc-12'), undef, 'triple: none in gcc-12');
is(triple_from_compiler('clang-14'), undef, 'triple: none in clang-14');
is(triple_from_compiler('cc'), undef, 'triple: none in cc');

# The mode: MCOUNT_CC_MODE, or for auto (the default) link time when the
# per-object tables cannot be exact.  [compiler, args, mode setting,
# expected action, mode, why]
my @modes = (
    ['gcc', '-c a.c',                       'auto',   'record',  'object', 'auto'],
    ['gcc', '-o p a.o main.o',              'auto',   'pass',    'object', 'auto'],
    ['g++', '-c a.cc',                      'auto',   'compile', 'link',   'auto: C++ driver'],
    ['clang++', '-o p a.o',                 'auto',   'link',    'link',   'auto: C++ driver'],
    ['x86_64-linux-gnu-g++-12', '-c a.cc',  'auto',   'compile', 'link',   'auto: C++ driver'],
    ['gcc', '-c a.c -flto',                 'auto',   'compile', 'link',   'auto: -flto'],
    ['gcc', '-c a.c -flto=auto',            'auto',   'compile', 'link',   'auto: -flto'],
    ['gcc', '-c a.c -ffunction-sections',   'auto',   'compile', 'link',   'auto: -ffunction-sections'],
    ['gcc', '-Wl,--gc-sections -o p a.o',   'auto',   'link',    'link',   'auto: --gc-sections'],
    ['gcc', '-Wl,-O1,--gc-sections a.o',    'auto',   'link',    'link',   'auto: --gc-sections'],
    ['g++', '-c a.cc',                      'object', 'record',  'object', 'MCOUNT_CC_MODE=object'],
    ['gcc', '-c a.c -flto',                 'object', 'pass',    'object', 'MCOUNT_CC_MODE=object'],
    ['gcc', '-c a.c',                       'link',   'compile', 'link',   'MCOUNT_CC_MODE=link'],
    ['gcc', '-o p a.o main.o',              'link',   'link',    'link',   'MCOUNT_CC_MODE=link'],
    ['gcc', '-r -o p.o a.o main.o',         'link',   'pass',    'link',   'MCOUNT_CC_MODE=link'],
    ['gcc', '-E a.c',                       'link',   'pass',    undef,    undef],
);
# GCC's LTO objects made fat in link-time mode, unless the command
# chooses: [compiler, args, mode, the flags added]
for my $row (['gcc', '-c a.c -flto', 'auto', '-pg -ffat-lto-objects'],
             ['g++', '-c a.cc -O2 -flto=auto', 'auto', '-pg -ffat-lto-objects'],
             ['gcc', '-c a.c -flto', 'link', '-pg -ffat-lto-objects'],
             ['gcc', '-c a.c -flto -fno-fat-lto-objects', 'auto', '-pg'],
             ['gcc', '-c a.c -flto=auto -ffat-lto-objects', 'auto', '-pg'],
             ['gcc', '-c a.c -flto -fno-lto', 'link', '-pg'],
             ['g++', '-c a.cc', 'auto', '-pg'],
             ['clang', '-c a.c -flto', 'auto', '-pg'],
             ['clang++-14', '-c a.cc -flto=thin', 'auto', '-pg']) {
    my ($cc, $line, $setting, $flags) = @$row;
    my $d = classify([split / /, $line], mode => $setting, compiler => $cc);
    is("@{ $d->{add_flags} }", $flags, "LTO objects: $cc $line (MCOUNT_CC_MODE=$setting): adds $flags");
}

for my $row (@modes) {
    my ($cc, $line, $setting, $action, $mode, $why) = @$row;
    my $name = "$cc $line (MCOUNT_CC_MODE=$setting)";
    my $d = classify([split / /, $line], mode => $setting, compiler => $cc);
    is($d->{action}, $action, "mode: $name: $action");
    is($d->{mode}, $mode, "mode: $name: mode " . ($mode // 'none'));
    is($d->{mode_why}, $why, "mode: $name: because " . ($why // 'nothing'));
    my ($st, $out) = mcc(['--classify', $cc, split / /, $line], env => { MCOUNT_CC_MODE => $setting });
    like($out, qr/^\Q$action\E /, "mode: $name: mcount-cc --classify says $action");
    if (defined $mode) {
        like($out, qr/^mode: \Q$mode ($why)\E$/m, "mode: $name: and the mode");
    }
}
# A link that compiles C-family sources itself is split: each source
# compiled as a compile is (its index in sources, the words its compile
# keeps in compile_args), then the link.  Where something keeps it from
# being split (stdin, -x, a dependency or dump file named after the
# output; -flto in per-object mode), the command is refused, naming it:
# its program would have no table.  In link-time mode -flto is split,
# and the pass links what LTO makes.  [compiler, args, mode setting,
# action, refused for]
for my $row (['g++', '-o conftest conftest.cpp', 'auto', 'pass', undef],    # autoconf's
    ['g++', '-o p p.cpp', 'auto', 'split', undef],
    ['gcc', '-o p a.c b.o', 'link', 'split', undef],
    ['gcc', '-o p a.c', 'object', 'split', undef],
    ['gcc', '-o p -x c x -x none b.a', 'link', 'refuse', '-x'],
    ['gcc', '-o p -xc x', 'object', 'refuse', '-xc'],
    ['g++', '-o p a.o b.s', 'auto', 'link', undef],
    ['g++', '-o p -x c++ -', 'auto', 'refuse', '-x'],
    ['gcc', '-o p -', 'object', 'pass', undef],
    ['g++', '-o p a.cc -', 'auto', 'refuse', '-'],
    ['gcc', '-o p a.c -MD', 'object', 'refuse', '-MD'],
    ['gcc', '-o p a.c -Wp,-MD,a.d', 'object', 'refuse', '-Wp,-MD,a.d'],
    ['gcc', '-o p a.c --coverage', 'object', 'refuse', '--coverage'],
    ['gcc', '-o p a.c -fprofile-generate', 'object', 'refuse', '-fprofile-generate'],
    ['gcc', '-o p a.c -save-temps', 'object', 'refuse', '-save-temps'],
    ['gcc', '-o p a.c -flto', 'object', 'refuse', '-flto'],
    ['gcc', '-o p a.c -flto', 'auto', 'split', undef],
    ['gcc', '-O2 -flto=auto -ffat-lto-objects a.c -o a', 'link', 'split', undef],
    ['gcc', '-o p a.c -flto=auto -MD', 'link', 'refuse', '-MD'],
    ['gcc', '-o p a.c -gsplit-dwarf', 'object', 'refuse', '-gsplit-dwarf'],
    ['gcc', '-o p a.c -fdump-tree-all', 'object', 'refuse', '-fdump-tree-all'],
    ['gcc', '-o p a.c -fsave-optimization-record', 'object', 'refuse', '-fsave-optimization-record'],
    ['clang', '-o p a.c -ftime-trace', 'object', 'refuse', '-ftime-trace'],
    ['clang', '-o p a.c -gsplit-dwarf=split', 'object', 'refuse', '-gsplit-dwarf=split'],
    ['gcc', '-o p --language c a.c', 'object', 'refuse', '--language'],
    # (an option's value is no option: -Map here is ld's, not -M...)
    ['gcc', '-o p a.c -Xlinker -Map -Xlinker m.map', 'object', 'split', undef],
    ['gcc', '-o p a.c -Xlinker -x', 'object', 'split', undef],
    ['gcc', '-o p a.c b.h', 'object', 'refuse', 'b.h'],
    ['gcc', '-o /dev/null a.c', 'object', 'pass', undef],
    ['gcc', '-o p a.o', 'object', 'pass', undef]) {
    my ($cc, $line, $setting, $action, $why) = @$row;
    my $d = classify([split / /, $line], mode => $setting, compiler => $cc);
    is($d->{action}, $action, "$cc $line (MCOUNT_CC_MODE=$setting): $action");
    is($d->{warning}, undef, '... no warning');
    defined $why ? like($d->{error} // '', qr/^the sources this link compiles would get no hook and no table \(mcount-cc does not split a link with \Q$why\E\): compile them with -c, then link/,
        "... refused, for $why") : is($d->{error}, undef, '... not refused');
}
# A partial link however the linker is told (the final link records),
# and the output however it is named.
for my $line ('-nostdlib -Xlinker -r -o part.o a.o', '-Wl,--relocatable -o p.o a.o', '-Wl,-z,now,-i -o p.o a.o',
    '-Xlinker --relocatable -o p.o a.o') {
    my $d = classify([split ' ', $line], mode => 'link', compiler => 'gcc');
    is("$d->{action} $d->{reason}", 'pass partial-link', "gcc $line: a partial link");
}
for my $line ('--output=x a.o', '--output x a.o', 'a.c --output x') {
    my $d = classify([split ' ', $line], mode => 'link', compiler => 'gcc');
    is_deeply($d->{objects}, ['x'], "gcc $line: the output is x");
}
# What the compiles of a split keep: every option but -o and those only a
# link reads; no input.  (-undef is the preprocessor's, not -u's.)
{
    my $d = classify([split ' ', '-O2 -g -o p -Wall a.c -I inc -DX=1 b.o -lm -L /x -Lx -Wl,-z,now -Xlinker -q
        -static -pie -shared -rdynamic -s -T ld.script -fuse-ld=bfd -static-libgcc -pthread -undef -u sym -usym2 -znow
        -nostdlib -B /b c.cc -std=gnu11'], mode => 'object', compiler => 'gcc');
    is($d->{action}, 'split', 'a one-step command with link options: split');
    is_deeply($d->{compile_args}, [qw(-O2 -g -Wall -I inc -DX=1 -pthread -undef -B /b -std=gnu11)],
        '... its compiles keep the compile options, no input, no -o, no link option');
    is_deeply($d->{sources}, [5, 35], '... the sources, by their places');
    is_deeply($d->{objects}, ['p'], '... the output');
    # the values of options that take one, kept with them; a word that
    # names no file is the value of an option the table does not know
    $d = classify([split ' ', '-o p --define-macro V=1 -iwithsysroot /inc -Xarch_x86_64 -O2 --ld-path=/x/ld '
        . '--some-new-option V2 a.c b.o'], mode => 'object', compiler => 'clang');
    is_deeply($d->{compile_args}, [qw(--define-macro V=1 -iwithsysroot /inc -Xarch_x86_64 -O2 --some-new-option V2)],
        '... option values kept, --ld-path dropped');
}
{
    my ($st, undef, $err) = mcc(['gcc', '-c', 'a.c'], env => { MCOUNT_CC_MODE => 'sometimes' });
    is($st >> 8, 2, 'a bad MCOUNT_CC_MODE: exit status 2');
    like($err, qr/^mcount-cc: MCOUNT_CC_MODE must be object, link, auto or compiler, not 'sometimes'$/m,
        'a bad MCOUNT_CC_MODE: said');
    # the other settings, before anything runs
    for my $bad ([MCOUNT_CC_SECTIONS => 'a,,b', qr/MCOUNT_CC_SECTIONS must be kernel, all, or NAME,NAME\*,\.\.\., not 'a,,b'/],
        [MCOUNT_CC_TABLE => 'bogus', qr/MCOUNT_CC_TABLE must be writable or readonly, not 'bogus'/]) {
        ($st, undef, $err) = mcc(['gcc', '-c', 'a.c'], env => { $bad->[0] => $bad->[1] });
        is($st >> 8, 2, "a bad $bad->[0]: exit status 2");
        like($err, qr/^mcount-cc: $bad->[2]$/m, "a bad $bad->[0]: said");
    }
}

done_testing();
