#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# Function events typed by DWARF from a separate debug file: the
# program (t/src/trace/args.c) stripped with objcopy --strip-debug, its
# DWARF in the file objcopy --only-keep-debug makes, found as gdb finds
# it: by .gnu_debuglink beside the program, in its .debug/, and under
# MCOUNT_TRACE_DEBUG_DIR + the program's directory; by build-id under
# MCOUNT_TRACE_DEBUG_DIR/.build-id/.  The oracles: the program's own log
# of its arguments (t/81's and t/82's), gdb reading the same stripped
# program with the same debug directory (the parameters' names), readelf
# (the build-id, the debuglink's name and CRC) and zlib's CRC-32
# (Compress::Zlib) of the debug file.  Also: a debug file changed after
# the link (another CRC) is not used, and told once; a missing one is
# told with where it was looked for; a shared library with a debug file
# of its own; zlib-compressed debug sections (a debug file's, gcc -gz's)
# read, zstd's told; damaged and truncated debug files, compressed or
# not, under ASan and UBSan; valgrind.
use strict;
use warnings;
use Test::More;
use Compress::Zlib ();
use Cwd qw(realpath);
use POSIX ();
use File::Copy qw(copy);
use File::Path qw(make_path);
use lib 't/lib';
use TestUtil qw($TOP must run_cmd tmpdir slurp spit have);
use TraceTest qw($SO $TSRC clean_env mcc_build link_prog traced read_log read_text_args against_log san_prog
    source_params debug_unit);

clean_env();
for my $tool (qw(gdb valgrind)) {
    BAIL_OUT("$tool is not installed: run make deps") unless have($tool);
}
my $dir = realpath(tmpdir());
my $src = "$TSRC/args.c";
my @FUNCS = qw(ints strs many flags);
my $GLOBS = join ';', @FUNCS;
my %NAMES = %{ source_params($src) };
is_deeply([sort keys %NAMES], [sort @FUNCS], 'the source defines the four functions');
my $EMPTY = "$dir/empty";    # a debug directory with nothing in it
mkdir $EMPTY or die;

mcc_build('-pg -mfentry', "$dir/args.o", $src, '-O2', '-g');
link_prog("$dir/full", "$dir/args.o", '-Wl,--build-id');
my $want = must("$dir/full", 11, "$dir/plain.log", 40);

# The build-id readelf gives a file, in hex.
sub build_id {
    my ($f) = @_;
    my ($id) = must('env', 'LC_ALL=C', 'readelf', '-n', $f) =~ /Build ID: ([0-9a-f]+)/;
    return $id // '';
}

# A copy of $from at $prog, its DWARF moved to $debug (objcopy
# --only-keep-debug), itself stripped of it, with a debuglink to $debug
# unless link => 0.
sub split_debug {
    my ($from, $prog, $debug, %o) = @_;
    for my $d ($prog, $debug) {
        make_path($1) if $d =~ m{\A(.*)/[^/]+\z};
    }
    copy($from, $prog) or die "$prog: $!";
    chmod 0755, $prog;
    must('objcopy', '--only-keep-debug', $prog, $debug);
    must('objcopy', '--strip-debug', ($o{link} // 1 ? "--add-gnu-debuglink=$debug" : ()), $prog);
    return $prog;
}

# What gdb says of $prog with $ddir as its debug-file-directory: the
# parameter names of each function ({ fn => [names] }) and its output.
sub gdb_params {
    my ($prog, $ddir, @fns) = @_;
    my $out = must('env', 'LC_ALL=C', 'gdb', '-batch', '-nx', '-iex', "set debug-file-directory $ddir",
        (map { ('-ex', "ptype $_", '-ex', "info scope $_") } @fns), $prog);
    my @parts = split /^type = /m, $out;
    shift @parts;
    my %p;
    for my $i (0 .. $#fns) {
        my ($types) = ($parts[$i] // '') =~ /\A[^\n]*?\((.*)\)$/m;
        my @syms = map { /\A(\w+) is /s ? $1 : () } split /^Symbol /m, $parts[$i] // '';
        $p{ $fns[$i] } = [@syms[0 .. (split /, /, $types // '') - 1]];   # the locals after
    }
    return (\%p, $out);
}

# One traced run: (status, stdout, stderr, events, log).
sub run_traced {
    my ($tag, $prog, $env, @args) = @_;
    my ($st, $o, $e) = traced([$prog, 11, "$dir/$tag.log", 40, @args], preload => $env->{preload} // 1,
        timeout => $env->{timeout}, env => { MCOUNT_TRACE_OUTPUT => "$dir/$tag.txt", MCOUNT_TRACE_CONTROL => 0,
            MCOUNT_TRACE_DEBUG_DIR => $EMPTY, map { /\A(?:preload|timeout)\z/ ? () : ($_ => $env->{$_}) } keys %$env });
    my ($ev, $bad) = read_text_args("$dir/$tag.txt");
    is_deeply($bad, [], "$tag: every line of the trace well formed");
    return ($st, $o, $e, $ev, read_log("$dir/$tag.log"));
}

# ---- the debug file found by debuglink: beside, .debug/, DIR/OBJDIR ----
my %LINK = (
    beside => ["$dir/a/prog", "$dir/a/prog.debug", $EMPTY],
    dotdebug => ["$dir/b/prog", "$dir/b/.debug/prog.debug", $EMPTY],
    debugdir => ["$dir/c/prog", "$dir/dbg$dir/c/prog.debug", "$dir/nothere:$dir/dbg"],
);
for my $case (sort keys %LINK) {
    my ($prog, $debug, $ddir) = @{ $LINK{$case} };
    split_debug("$dir/full", $prog, $debug);
    my $sec = must('env', 'LC_ALL=C', 'readelf', '-SW', $prog);
    ok($sec !~ /\.debug_info/ && $sec =~ /\.gnu_debuglink/, "$case: the program has no DWARF, a debuglink (readelf)");
    my $links = must('env', 'LC_ALL=C', 'readelf', '--debug-dump=links', $prog);
    my ($name) = $links =~ /Separate debug info file: (\S+)/;
    my ($crc) = $links =~ /CRC value: (0x[0-9a-f]+)/;
    is($name, 'prog.debug', "$case: the debuglink names prog.debug (readelf)");
    is(hex($crc // 0), Compress::Zlib::crc32(slurp($debug)), "$case: its CRC is zlib's CRC-32 of the debug file");
    my ($gdb, $gout) = gdb_params($prog, $ddir, @FUNCS);
    is_deeply($gdb, \%NAMES, "$case: gdb reads the source's parameters from the debug file") or diag($gout);
    my ($st, $o, $e, $ev, $log) = run_traced($case, $prog, { MCOUNT_TRACE_EVENTS => $GLOBS,
        MCOUNT_TRACE_DEBUG_DIR => $ddir });
    is($st, 0, "$case: runs");
    is($o, $want, "$case: prints what the program prints");
    is($e, '', "$case: no message");
    against_log($case, $ev, $log, \%NAMES);
}

# ---- by build-id: DIR/.build-id/XX/REST.debug, no debuglink ----
{
    my $id = build_id("$dir/full");
    like($id, qr/\A[0-9a-f]{16,}\z/, 'build-id: the program has one (readelf -n)');
    my $debug = "$dir/ids/.build-id/" . substr($id, 0, 2) . '/' . substr($id, 2) . '.debug';
    my $prog = split_debug("$dir/full", "$dir/d/prog", $debug, link => 0);
    is(build_id($debug), $id, 'build-id: the debug file carries the same (readelf -n)');
    unlike(must('env', 'LC_ALL=C', 'readelf', '-SW', $prog), qr/\.debug_info|\.gnu_debuglink/,
        'build-id: the program has neither DWARF nor a debuglink');
    my ($gdb, $gout) = gdb_params($prog, "$dir/ids", @FUNCS);
    is_deeply($gdb, \%NAMES, 'build-id: gdb reads the source\'s parameters from the debug file') or diag($gout);
    my ($st, $o, $e, $ev, $log) = run_traced('buildid', $prog, { MCOUNT_TRACE_EVENTS => $GLOBS,
        MCOUNT_TRACE_DEBUG_DIR => "${EMPTY}::$dir/ids/" });
    is($st, 0, 'build-id: runs');
    is($o, $want, 'build-id: prints what the program prints');
    is($e, '', 'build-id: no message');
    against_log('build-id', $ev, $log, \%NAMES);

    # valgrind: the lookup's and the reader's reads in the debug file
    my ($vst, $vo, $ve) = run_cmd(['valgrind', '-q', '--error-exitcode=9', '--smc-check=all', '--leak-check=no',
        '--trace-children=yes', 'env', "LD_PRELOAD=$SO", $prog, 11, "$dir/vg.log", 10], env => { MCOUNT_TRACE_OUTPUT => "$dir/vg.txt",
        MCOUNT_TRACE_EVENTS => $GLOBS, MCOUNT_TRACE_CONTROL => 0, MCOUNT_TRACE_DEBUG_DIR => "$dir/nothere:$dir/ids" });
    is($vst, 0, 'build-id, valgrind: no error') or diag($ve);
    my ($vev, $vbad) = read_text_args("$dir/vg.txt");
    is_deeply($vbad, [], 'build-id, valgrind: every line well formed');
    against_log('build-id, valgrind', $vev, read_log("$dir/vg.log"), \%NAMES);

    # another build's debug file where the build-id leads: not used
    mcc_build('-pg -mfentry', "$dir/other.o", $src, '-O1', '-g');
    link_prog("$dir/other", "$dir/other.o", '-Wl,--build-id');
    isnt(build_id("$dir/other"), $id, 'another build: another build-id');
    must('objcopy', '--only-keep-debug', "$dir/other", $debug);
    ($st, $o, $e, $ev, $log) = run_traced('otherid', $prog, { MCOUNT_TRACE_EVENTS => $GLOBS,
        MCOUNT_TRACE_DEBUG_DIR => "$dir/ids" });
    is($st, 0, 'another build-id: runs');
    is($o, $want, 'another build-id: prints what the program prints');
    my $told = "mcount-trace: prog: $debug: not its debug file (another build-id): not used\n";
    like($e, qr/\A\Q$told\Emcount-trace: prog: no DWARF information for (?:ints|strs|many|flags), nor a debug file \(looked for \Q$debug\E\): its arguments are not recorded\n\z/,
        'another build-id: told, and where it looked') or diag($e);
    is(scalar(@$ev), scalar(@$log), 'another build-id: every call traced');
    is(scalar(grep { defined $_->[1] } @$ev), 0, 'another build-id: without arguments');
}

# The paths looked at for a program in $pd with a debuglink to
# prog.debug, with $EMPTY as the debug directory.
sub looked {
    my ($prog, $pd) = @_;
    my $id = build_id($prog);
    return join ', ', "$EMPTY/.build-id/" . substr($id, 0, 2) . '/' . substr($id, 2) . '.debug',
        "$pd/prog.debug", "$pd/.debug/prog.debug", "$EMPTY$pd/prog.debug";
}

# ---- a debug file changed after the link: its CRC is another ----
{
    my $prog = split_debug("$dir/full", "$dir/e/prog", "$dir/e/prog.debug");
    my ($crc) = must('env', 'LC_ALL=C', 'readelf', '--debug-dump=links', $prog) =~ /CRC value: 0x([0-9a-f]+)/;
    $crc = sprintf '%08x', hex($crc // 0);
    spit("$dir/e/prog.debug", slurp("$dir/e/prog.debug") . "changed\n");
    my $now = sprintf '%08x', Compress::Zlib::crc32(slurp("$dir/e/prog.debug"));
    isnt($now, $crc, 'wrong CRC: the debug file\'s CRC-32 is no longer the debuglink\'s');
    my (undef, $go, $ge) = run_cmd(['env', 'LC_ALL=C', 'gdb', '-batch', '-nx', '-iex',
        "set debug-file-directory $EMPTY", '-ex', 'info scope ints', $prog]);
    like($go . $ge, qr/does not match.*CRC mismatch/s, 'wrong CRC: gdb does not use it either') or diag($go . $ge);
    my ($st, $o, $e, $ev, $log) = run_traced('crc', $prog, { MCOUNT_TRACE_EVENTS => $GLOBS });
    is($st, 0, 'wrong CRC: runs');
    is($o, $want, 'wrong CRC: prints what the program prints');
    my $l = looked($prog, "$dir/e");
    my $told = "mcount-trace: prog: $dir/e/prog.debug: not its debug file (its CRC is $now, the debuglink's $crc): "
        . "not used\n";
    like($e, qr/\A\Q$told\Emcount-trace: prog: no DWARF information for (?:ints|strs|many|flags), nor a debug file \(looked for \Q$l\E\): its arguments are not recorded\n\z/,
        'wrong CRC: told once that it is not used, and once that there is no DWARF') or diag($e);
    is(scalar(@$ev), scalar(@$log), 'wrong CRC: every call traced');
    is(scalar(grep { defined $_->[1] } @$ev), 0, 'wrong CRC: without arguments');
}

# ---- no debug file where the debuglink leads ----
{
    my $prog = split_debug("$dir/full", "$dir/f/prog", "$dir/f/prog.debug");
    unlink "$dir/f/prog.debug" or die;
    my ($st, $o, $e, $ev, $log) = run_traced('missing', $prog, { MCOUNT_TRACE_EVENTS => $GLOBS });
    is($st, 0, 'missing: runs');
    is($o, $want, 'missing: prints what the program prints');
    my $l = looked($prog, "$dir/f");
    like($e, qr/\Amcount-trace: prog: no DWARF information for (?:ints|strs|many|flags), nor a debug file \(looked for \Q$l\E\): its arguments are not recorded\n\z/,
        'missing: one line, where it looked') or diag($e);
    is(scalar(@$ev), scalar(@$log), 'missing: every call traced');
    is(scalar(grep { defined $_->[1] } @$ev), 0, 'missing: without arguments');

    # a FIFO where the debuglink leads: not waited on
    POSIX::mkfifo("$dir/f/prog.debug", 0600) or die "mkfifo: $!";
    ($st, $o, $e, $ev, $log) = run_traced('fifo', $prog, { MCOUNT_TRACE_EVENTS => $GLOBS, timeout => 30 });
    is($st, 0, 'a FIFO as the debug file: runs, not blocked on it');
    like($e, qr/\Amcount-trace: prog: no DWARF information for \w+, nor a debug file \(looked for \Q$l\E\): its arguments are not recorded\n\z/,
        'a FIFO as the debug file: not read, told as missing') or diag($e);

    # neither build-id nor debuglink: nowhere to look
    link_prog("$dir/noid", "$dir/args.o", '-Wl,--build-id=none');
    must('objcopy', '--strip-debug', "$dir/noid");
    is(build_id("$dir/noid"), '', 'nowhere: the program has no build-id (readelf -n)');
    ($st, $o, $e, $ev, $log) = run_traced('nowhere', "$dir/noid", { MCOUNT_TRACE_EVENTS => $GLOBS });
    is($o, $want, 'nowhere: prints what the program prints');
    like($e, qr/\Amcount-trace: noid: no DWARF information for \w+, nor a build-id or debuglink to find a debug file by: its arguments are not recorded\n\z/,
        'nowhere: told, once');
}

# ---- compressed debug sections: zlib's inflated, zstd's told ----
my $COMPRESSED = qr/\.debug_info\s+PROGBITS\s+\S+\s+\S+\s+\S+\s+\S+\s+C\b/;    # readelf -SW's flag C
{
    for my $z ('zlib', 'zstd') {
        my $prog = split_debug("$dir/full", "$dir/$z/prog", "$dir/$z/prog.debug");
        must('objcopy', "--compress-debug-sections=$z", "$dir/$z/prog.debug");
        must('objcopy', '--remove-section=.gnu_debuglink', "--add-gnu-debuglink=$dir/$z/prog.debug", $prog);
        like(must('env', 'LC_ALL=C', 'readelf', '-SW', "$dir/$z/prog.debug"), $COMPRESSED,
            "$z: the debug file's .debug_info is compressed (readelf)");
        my ($gdb, $gout) = gdb_params($prog, $EMPTY, @FUNCS);
        is_deeply($gdb, \%NAMES, "$z: gdb reads the source's parameters from it") or diag($gout);
        my ($st, $o, $e, $ev, $log) = run_traced("c$z", $prog, { MCOUNT_TRACE_EVENTS => $GLOBS });
        is($st, 0, "$z debug file: runs");
        is($o, $want, "$z debug file: prints what the program prints");
        if ($z eq 'zlib') {
            is($e, '', "$z debug file: no message");
            against_log("$z debug file", $ev, $log, \%NAMES);
        } else {
            like($e, qr/\Amcount-trace: prog: no DWARF information for \w+ in its debug file \Q$dir\E\/$z\/prog\.debug \(compressed debug sections are not read\): its arguments are not recorded\n\z/,
                "$z debug file: found, told that it is not read") or diag($e);
            is(scalar(grep { defined $_->[1] } @$ev), 0, "$z debug file: traced without arguments");
            ok(@$ev && @$ev == @$log, "$z debug file: every call traced");
        }
    }

    # the program's own, compressed (gcc -gz; zstd by objcopy): no debug file looked for
    mcc_build('-pg -mfentry', "$dir/gz.o", $src, '-O2', '-g', '-gz');
    link_prog("$dir/gz", "$dir/gz.o", '-gz');
    link_prog("$dir/gzstd", "$dir/gz.o");
    must('objcopy', '--compress-debug-sections=zstd', "$dir/gzstd");
    for my $p ('gz', 'gzstd') {
        like(must('env', 'LC_ALL=C', 'readelf', '-SW', "$dir/$p"), $COMPRESSED, "$p: its .debug_info is compressed (readelf)");
        my ($st, $o, $e, $ev, $log) = run_traced($p, "$dir/$p", { MCOUNT_TRACE_EVENTS => $GLOBS });
        is($o, $want, "$p: prints what the program prints");
        if ($p eq 'gz') {
            is($e, '', "$p: no message");
            against_log($p, $ev, $log, \%NAMES);
        } else {
            like($e, qr/\Amcount-trace: $p: no DWARF information for \w+ \(compressed debug sections are not read\): its arguments are not recorded\n\z/,
                "$p: told that its own are compressed, nothing looked for") or diag($e);
        }
    }
}

# ---- a shared library with a debug file of its own (:mod:) ----
# t/73's proc dl: plug_a(x) (which calls plug_b(x)) with x = 0, 1, 2,
# then dlclose, and 20 times dlopen, plug_a(k), dlclose.
{
    mcc_build('-pg -mfentry', "$dir/proc.o", "$TSRC/proc.c", '-O2', '-pthread', '-Wno-prio-ctor-dtor');
    must('gcc', '-c', "$TSRC/badsite.S", '-o', "$dir/badsite.o");
    link_prog("$dir/proc", '-rdynamic', "$dir/proc.o", "$dir/badsite.o", '-pthread', '-ldl');
    mcc_build('-pg -mfentry', "$dir/plug.o", "$TSRC/plug.c", '-O2', '-fPIC', '-g');
    link_prog("$dir/libplug.so", '-shared', "$dir/plug.o");
    my $lib = split_debug("$dir/libplug.so", "$dir/lib/libplug.so", "$dir/lib/.debug/libplug.so.debug");
    my %plug = (plug_a => ['x'], plug_b => ['x']);
    my ($gdb, $gout) = gdb_params($lib, $EMPTY, 'plug_a', 'plug_b');
    is_deeply($gdb, \%plug, 'library: gdb reads plug_a\'s and plug_b\'s parameter from its debug file') or diag($gout);
    my $sync = "$dir/sync";
    mkdir $sync or die;
    spit("$sync/$_", '') for qw(listed done);
    my ($st, $o, $e) = traced(["$dir/proc", 'dl', $lib, $sync], env => { MCOUNT_TRACE_CONTROL => 0,
        MCOUNT_TRACE_EVENTS => 'plug_*:mod:libplug.so', MCOUNT_TRACE_OUTPUT => "$dir/dl.txt",
        MCOUNT_TRACE_DEBUG_DIR => $EMPTY });
    is($st, 0, 'library: runs') or diag($e);
    is($o, "dl 442\n", 'library: computes what it computes');
    is_deeply([grep { !/\Amcount-trace: proc: 0x[0-9a-f]+ <bad_\w+\+0x?[0-9a-f]*>: .*: left alone\z/ } split /\n/, $e],
        [], 'library: no message but t/73\'s about the program\'s bad sites');
    my ($ev, $bad) = read_text_args("$dir/dl.txt");
    is_deeply($bad, [], 'library: every line well formed');
    my %got;
    for my $x (grep { $_->[0] =~ /\Aplug_/ } @$ev) {
        my ($fn, $a) = @$x;
        push @{ $got{$fn} }, $a ? join(',', map { "$_=$a->{$_}" } sort keys %$a) : '';
    }
    my @x = sort { $a <=> $b } (0 .. 2, 0 .. 19);
    my %want = (plug_a => [map { "x=$_" } @x], plug_b => [map { "x=$_" } @x]);
    $_ = [sort { (($a =~ /(\d+)/)[0] // -1) <=> (($b =~ /(\d+)/)[0] // -1) } @$_] for values %got;
    is_deeply(\%got, \%want, 'library: each load\'s plug_a and plug_b with their argument x');
}

# ---- damaged debug files, under ASan and UBSan ----
# The program built with the sanitized library and stripped; its debug
# file found by build-id (which carries no CRC: the damage reaches the
# reader), damaged or cut short in copies; and one found by a debuglink
# whose CRC is the damaged file's own.  Each must run as the program
# does, its messages the library's own.
{
    san_prog("$dir/san", $src);
    my %san_env = (ASAN_OPTIONS => 'detect_leaks=0', UBSAN_OPTIONS => 'print_stacktrace=1:halt_on_error=1',
        preload => 0);
    my $id = build_id("$dir/san");
    my $debug = "$dir/sanids/.build-id/" . substr($id, 0, 2) . '/' . substr($id, 2) . '.debug';
    my $prog = split_debug("$dir/san", "$dir/s/san", $debug, link => 0);
    my ($st, $o, $e, $ev, $log) = run_traced('san', $prog, { %san_env, MCOUNT_TRACE_DEBUG_DIR => "$dir/sanids" },
        $GLOBS);
    is($st, 0, 'ASan+UBSan: runs') or diag($e);
    is($o, $want, 'ASan+UBSan: prints what the program prints');
    is($e, '', 'ASan+UBSan: no message');
    against_log('ASan+UBSan', $ev, $log, \%NAMES);

    my %sec;
    for (split /\n/, must('env', 'LC_ALL=C', 'readelf', '-SW', $debug)) {
        $sec{$1} = [hex $2, hex $3] if /\]\s+(\.debug_\w+)\s+PROGBITS\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)/;
    }
    ok($sec{'.debug_info'} && $sec{'.debug_abbrev'}, 'the debug file\'s sections to damage are there');
    my $img = slurp($debug);
    my $sig = sub { join "\n", map { my $a = $_->[1];
        "$_->[0] " . ($a ? join(',', map { "$_=$a->{$_}" } sort keys %$a) : '-') } @{ $_[0] } };
    my $good = $sig->($ev);
    my @cases = map { my $n = $_; ["cut to $n bytes", sub { substr($_[0], $n) = '' }] }
        0, 64, int(length($img) / 3), $sec{'.debug_info'}[0] + 40, length($img) - 1;
    srand(84);
    # args.c's own unit (readelf's), where the reader finds its
    # functions: the rest of .debug_info is the library's and libc's
    my @cu = debug_unit($debug, 'args.c');
    ok(@cu, 'readelf finds args.c\'s unit in the debug file\'s .debug_info');
    $sec{'args.c'} = [$sec{'.debug_info'}[0] + $cu[0], $cu[1]] if @cu;
    my @targets = grep { $sec{$_} } ('args.c') x 3, qw(.debug_info .debug_abbrev .debug_str);
    for my $k (1 .. 24) {
        my @flips = map { my $s = $sec{ $targets[rand @targets] };
            [$s->[0] + int(rand($s->[1])), int(rand(256))] } 1 .. 1 + int(rand(12));
        push @cases, ["random bytes $k", sub { substr($_[0], $_->[0], 1) = chr $_->[1] for @flips }];
    }
    my ($runs, $changed) = (0, 0);
    # the debug file compressed (zlib), its compressed sections damaged:
    # the header's size, bytes of the stream, the stream cut short
    must('objcopy', '--compress-debug-sections=zlib', $debug, "$dir/z.debug");
    my $zimg = slurp("$dir/z.debug");
    my %zsec;
    for (split /\n/, must('env', 'LC_ALL=C', 'readelf', '-SW', "$dir/z.debug")) {
        $zsec{$1} = [hex $2, hex $3] if /\]\s+(\.debug_\w+)\s+PROGBITS\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s.*\bC\b/;
    }
    ok($zsec{'.debug_info'} && $zsec{'.debug_abbrev'}, 'the compressed debug file\'s sections are compressed (readelf)');
    my ($zi, $zl) = @{ $zsec{'.debug_info'} // [0, 0] };
    push @cases, ['compressed, undamaged', sub { }, $zimg], ['compressed: header size + 1', sub { substr($_[0], $zi + 8, 8) = pack('Q<', unpack('Q<', substr($_[0], $zi + 8, 8)) + 1) }, $zimg],
        ['compressed: header size 2^62', sub { substr($_[0], $zi + 8, 8) = pack('Q<', 1 << 62) }, $zimg],
        ['compressed: stream cut (zeros)', sub { substr($_[0], $zi + 24 + $zl / 2, $zl - 24 - int($zl / 2)) = "\0" x ($zl - 24 - int($zl / 2)) }, $zimg],
        ['compressed: stream all 0xff', sub { substr($_[0], $zi + 24, $zl - 24) = "\xff" x ($zl - 24) }, $zimg];
    for my $k (1 .. 16) {
        my @flips = map { my $s = $zsec{ ('.debug_info', '.debug_abbrev')[rand 2] };
            [$s->[0] + 24 + int(rand($s->[1] - 24)), int(rand(256))] } 1 .. 1 + int(rand(4));
        push @cases, ["compressed: random bytes $k", sub { substr($_[0], $_->[0], 1) = chr $_->[1] for @flips }, $zimg];
    }
    my $ours = qr/\Amcount-trace: san: (?:no DWARF information for \w+(?: in its debug file \Q$debug\E(?: \(compressed debug sections are not read\))?|, nor a debug file \(looked for \Q$debug\E\))?|\w+: .*): its arguments are not recorded\z|\Amcount-trace: san: \Q$debug\E: not its debug file \((?:another|no) build-id\): not used\z/;
    for my $c (@cases) {
        my ($what, $damage, $base) = @$c;
        my $copy = $base // $img;
        $damage->($copy);
        spit($debug, $copy);
        ($st, $o, $e, $ev, $log) = run_traced('bad', $prog, { %san_env, MCOUNT_TRACE_DEBUG_DIR => "$dir/sanids" },
            $GLOBS);
        my @other = grep { !/$ours/ } split /\n/, $e;
        if ($st != 0 || $o ne $want || @other || @$ev != @$log) {
            fail("damaged ($what): runs as the program does") or diag("status $st\n$e");
            next;
        }
        $runs++;
        $changed++ if $what =~ /random/ && (length $e || $sig->($ev) ne $good);
        if ($what =~ /\Acompressed: (?:header|stream)/) {
            like($e, qr/\(compressed debug sections are not read\)/, "damaged ($what): not inflated, told");
        } elsif ($what eq 'compressed, undamaged') {
            is($e, '', "ASan+UBSan, $what: no message");
            against_log("ASan+UBSan, $what", $ev, $log, \%NAMES);
        }
    }
    is($runs, scalar @cases, 'damaged: every copy ran as the program does, its trace well formed');
    ok($changed >= 1, "damaged: random damage reached the reader ($changed of 40 copies told or traced other arguments)");

    # by debuglink, the CRC the damaged file's own: read, not refused
    my $copy = $img;
    substr($copy, $sec{'.debug_info'}[0], $sec{'.debug_info'}[1]) = "\xff" x $sec{'.debug_info'}[1];
    spit("$dir/s/san.debug", $copy);
    must('objcopy', "--add-gnu-debuglink=$dir/s/san.debug", $prog);
    unlink $debug or die;
    ($st, $o, $e, $ev, $log) = run_traced('badlink', $prog, { %san_env }, $GLOBS);
    is($st, 0, 'damaged, by debuglink: runs');
    is($o, $want, 'damaged, by debuglink: prints what the program prints');
    like($e, qr/\Amcount-trace: san: no DWARF information for \w+ in its debug file \Q$dir\E\/s\/san\.debug: its arguments are not recorded\n\z/,
        'damaged, by debuglink: read (its CRC matches), no DWARF found in it, told once') or diag($e);
    is(scalar(@$ev), scalar(@$log), 'damaged, by debuglink: every call traced');
}

done_testing();
