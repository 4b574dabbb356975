#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# Function events typed by the program's DWARF: a bare glob as the
# prototype ("ints", not "ints(int a, ...)").  t/src/trace/args.c, built
# with -g (GCC 12: DWARF 5) and -gdwarf-4 (and with Clang's DWARF 5,
# which uses the strx and addrx forms, and 4), is
# traced with the bare globs of its four functions: every call's
# recorded arguments are the ones the program logged, by the names of
# its source's parameters (t/81's oracle, t/lib/TraceTest.pm).  gdb, a
# second reader of the same debug information, gives the parameters'
# names, their types (whose kinds the trace's values must have) and the
# registers they arrive in.  Also: a program without debug information is
# traced without arguments and told once; "!GLOB"; the bare glob given
# live through mcount-trace event; a library dlopen()ed again and again;
# copies of the program with their debug sections damaged, run under
# ASan and UBSan, still run as the program does; valgrind.
# t/src/trace/dwarfkinds.c: the shapes of debug information and of
# types beyond those four functions'; C++'s members and this
# (t/src/trace/cxx.cc).
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP must run_cmd tmpdir slurp spit have);
use TraceTest qw($MT $SO $RTINC $TSRC clean_env mcc_build link_prog traced start_bg stop_bg wait_for
    mt_cli read_log read_text_args read_json_args against_log san_prog source_params debug_unit);

clean_env();
my $dir = tmpdir();
my $src = "$TSRC/args.c";
my @FUNCS = qw(ints strs many flags);
my $GLOBS = join ';', @FUNCS;

# What the program prints (its arguments' order of evaluation is the
# compiler's: one plain build for each).
# clang, gdb and valgrind are the project's dependencies (scripts/deps):
# a machine without one fails here rather than skip what needs it.
for my $tool (qw(clang gdb valgrind)) {
    BAIL_OUT("$tool is not installed: run make deps") unless have($tool);
}
my %WANT = map { must($_, '-O2', '-o', "$dir/plain-$_", $src); ($_ => must("$dir/plain-$_", 11, "$dir/plain.log", 40)) }
    ('gcc', 'clang');
my $want = $WANT{gcc};

# ---- the source's parameter names: the first oracle ----
my %NAMES = %{ source_params($src) };
{
    is_deeply([sort keys %NAMES], [sort @FUNCS], 'the source defines the four functions');
    is_deeply($NAMES{flags}, [qw(on u8 u16 p)], "flags' parameters as the source names them");
}

# ---- builds: DWARF 5 and 4 through mcount-cc, both hooks ----
my %BUILD = (
    'dw5'        => ['-pg -mfentry', 'gcc', '-g'],
    'dw4'        => ['-pg -mfentry', 'gcc', '-gdwarf-4'],
    'dw5-mcount' => ['-pg', 'gcc', '-g'],
    'dw4-nopie'  => ['-pg -mfentry', 'gcc', '-gdwarf-4'],
);
$BUILD{'clang-dw5'} = ['-pg -mfentry', 'clang', '-gdwarf-5'];
$BUILD{'clang-dw4'} = ['-pg -mfentry', 'clang', '-gdwarf-4'];
for my $b (sort keys %BUILD) {
    my ($hook, $cc, @cflags) = @{ $BUILD{$b} };
    my ($st, $o, $e) = run_cmd(["$TOP/bin/mcount-cc", $cc, '-O2', @cflags, ($b =~ /nopie/ ? '-fno-pie' : ()),
        '-c', $src, '-o', "$dir/$b.o"], env => { MCOUNT_CC_FLAGS => $hook });
    die "mcount-cc $cc @cflags failed ($st):\n$o$e" if $st;
    ($st, $o, $e) = run_cmd([$cc, '-o', "$dir/$b", "$dir/$b.o", ($b =~ /nopie/ ? '-no-pie' : ())]);
    die "$cc -o $dir/$b failed ($st):\n$o$e" if $st;
    my $v = $b =~ /dw(\d)/ ? $1 : 0;
    my $info = must('env', 'LC_ALL=C', 'readelf', '--debug-dump=info', "$dir/$b");
    my ($cu) = $info =~ /^\s*Version:\s+(\d+)$/m;
    is($cu, $v, "$b: its units are DWARF $v (readelf)");
}

# ---- gdb: the names, the types, the registers ----
my %KIND;    # fn => [bool|ptr|str|int per parameter], from gdb's types
{
    my @regs = qw(rdi rsi rdx rcx r8 r9);
    for my $fn (@FUNCS) {
        my $out = must('env', 'LC_ALL=C', 'gdb', '-batch', '-nx', '-ex', "ptype $fn", '-ex', "info scope $fn",
            "$dir/dw5");
        my ($types) = $out =~ /^type = [^(]*\((.*)\)$/m;
        my @types = split /, /, $types // '';
        my @syms = map { /\A(\w+) is (.*)\z/s ? [$1, $2] : () } split /^Symbol /m, $out;
        splice @syms, scalar @types;    # the parameters come first, the locals after
        is_deeply([map { $_->[0] } @syms], $NAMES{$fn}, "gdb: the parameters of $fn are the source's");
        my @first = map { $_->[1] =~ /a variable in \$(\w+)/ ? $1 : '?' } @syms;
        my $n = @first < 6 ? @first : 6;
        is_deeply([@first[0 .. $n - 1]], [@regs[0 .. $n - 1]], "gdb: the arguments of $fn arrive in the ABI's registers");
        $KIND{$fn} = [map { /\bchar \*\z/ ? 'str' : /\*\z/ ? 'ptr' : /\A_Bool\z/ ? 'bool' : 'int' } @types];
    }
}

# The trace's first call of each function: its values have the kinds of
# gdb's types (a string quoted or null or a fault, a pointer in hex, a
# bool true or false, an integer in decimal).
sub kinds_like_gdb {
    my ($tag, $file) = @_;
    return unless %KIND;
    my %seen;
    for my $l (split /\n/, slurp($file)) {
        next unless $l =~ /: (\w+)\((.*)\) <-\w+\z/ && $KIND{$1} && !$seen{$1}++;
        my ($fn, $list) = ($1, $2);
        my @v;
        while ($list =~ /\G(\w+)=("(?:[^"\\]|\\.)*"(?:\.\.\.)?|\(null\)|\(fault 0x[0-9a-f]+\)|[^,]*)(?:, |\z)/gc) {
            push @v, $2;
        }
        my %re = (str => qr/\A(?:".*|\(null\)|\(fault .*)\z/s, ptr => qr/\A0x[0-9a-f]+\z/, bool => qr/\A(?:true|false)\z/,
            int => qr/\A-?\d+\z/);
        my @bad = grep { ($v[$_] // '') !~ $re{ $KIND{$fn}[$_] } } 0 .. $#{ $KIND{$fn} };
        ok(!@bad && @v == @{ $KIND{$fn} }, "$tag: the values of $fn have the kinds of gdb's types") or diag($l);
    }
    is(scalar keys %seen, scalar keys %KIND, "$tag: each function seen");
}

# One traced run of build $b: (trace file, log).
sub run_traced {
    my ($tag, $prog, $fmt, $env, %o) = @_;
    my $log = "$dir/$tag.log";
    my $out = "$dir/$tag.$fmt";
    my ($st, $o, $e) = traced([$prog, 11, $log, 40, @{ $o{args} // [] }], preload => $o{preload} // 1,
        env => { MCOUNT_TRACE_FORMAT => $fmt, MCOUNT_TRACE_OUTPUT => $out, MCOUNT_TRACE_CONTROL => 0, %$env });
    is($st, 0, "$tag: runs") or diag($e);
    is($o, $tag =~ /clang/ ? $WANT{clang} : $want, "$tag: prints what the plain build prints");
    like($e, $o{msg} // qr/\A\z/, "$tag: the messages expected") or diag($e);
    return ($out, read_log($log));
}

for my $b (sort keys %BUILD) {
    for my $fmt ('text', 'json') {
        my $tag = "$b-$fmt";
        my ($out, $log) = run_traced($tag, "$dir/$b", $fmt, { MCOUNT_TRACE_EVENTS => $GLOBS });
        my ($ev, $bad) = $fmt eq 'text' ? read_text_args($out) : read_json_args($out, \%NAMES);
        is_deeply($bad, [], "$tag: every line well formed") or diag(explain([@$bad[0 .. 2]]));
        against_log($tag, $ev, $log, \%NAMES);
        kinds_like_gdb($tag, $out) if $fmt eq 'text';
    }
}

# ---- the shapes of t/src/trace/dwarfkinds.c: an out-of-line copy of an
# inlined function (its DIE completes an abstract one), an enum, strings
# through a typedef and qualifiers, a pointer to a pointer, a bool, a
# variadic function, a function split into hot and cold parts (its DIE
# has address ranges, not an address); refused: a struct by value, a
# double ----
for my $g ('-g', '-gdwarf-4') {
    my $tag = "kinds ($g)";
    mcc_build('-pg -mfentry', "$dir/kinds$g.o", "$TSRC/dwarfkinds.c", '-O2', $g);
    link_prog("$dir/kinds$g", "$dir/kinds$g.o");
    my ($helper) = map { /\A0*([0-9a-f]+) t helper\z/ ? $1 : () } split /\n/, must('nm', "$dir/kinds$g");
    my @dies = split /^ <1></m, must('env', 'LC_ALL=C', 'readelf', '--debug-dump=info', "$dir/kinds$g");
    my @h = grep { /DW_AT_low_pc\s*: 0x0*$helper\n/ } @dies;
    ok(@h == 1 && $h[0] =~ /DW_AT_abstract_origin/ && $h[0] !~ /DW_AT_name/,
        "$tag: helper's code is described by a DIE that completes an abstract one (readelf)");
    my @s = grep { /DW_AT_name\s*: (?:\(.*\): )?split\n/ } @dies;
    my ($own) = map { /\A(.*?)(?:^ <2>|\z)/ms } @s;    # its attributes, not its children's
    ok(@s == 1 && $own =~ /DW_AT_ranges/ && $own !~ /DW_AT_low_pc/, "$tag: split's DIE has address ranges (readelf)");
    my ($st, $o, $e) = traced(["$dir/kinds$g"], env => { MCOUNT_TRACE_EVENTS => 'helper;kinds;vari;bypt;fl;split',
        MCOUNT_TRACE_OUTPUT => "$dir/kinds$g.txt", MCOUNT_TRACE_CONTROL => 0 });
    is($st, 0, "$tag: runs");
    is($o, "1059\n", "$tag: computes what it computes");
    is($e, "mcount-trace: kinds$g: bypt: parameter p is a struct or union passed by value: its arguments "
        . "are not recorded\nmcount-trace: kinds$g: fl: parameter d is a floating-point value (passed in a "
        . "vector register, which the hook does not keep): its arguments are not recorded\n",
        "$tag: the struct and the double refused, saying why");
    my @calls = map { /\A.{16}-\d+ +\[\d{3}\] +\d+\.\d{6}: (.*) <-main\z/ ? $1 : "BAD $_" }
        grep { !/^#/ } split /\n/, slurp("$dir/kinds$g.txt");
    is_deeply(\@calls, ['helper(k=2, tag="pointer")', 'kinds(c=7, t="text", u="uchar", s="schar", pp=0x0, b=true)',
        'kinds(c=-1, t="t2", u="u2", s="s2", pp=0x0, b=false)', 'vari(n=2, first="va")', 'bypt', 'fl',
        'split(a=1, why="cold")'],
        "$tag: each call with the arguments its source gives, typed as its DWARF says");
}

# ---- C++ (t/src/trace/cxx.cc): member functions, whose code's DIE
# completes their declaration in the class (DW_AT_specification) and
# whose first parameter is the artificial this; a template; globs on
# the demangled names ----
{
    my %env = (MCOUNT_CC_FLAGS => '-pg -mfentry');
    for my $cmd (['-O2', '-g', '-c', "$TSRC/cxx.cc", '-o', "$dir/cxx.o"], ['-o', "$dir/cxx", "$dir/cxx.o"]) {
        my ($st, $o, $e) = run_cmd(["$TOP/bin/mcount-cc", 'g++', @$cmd], env => \%env);
        die "mcount-cc g++ @$cmd failed ($st):\n$o$e" if $st;
    }
    my $info = must('env', 'LC_ALL=C', 'readelf', '--debug-dump=info', "$dir/cxx");
    ok((grep { /DW_AT_specification/ && /DW_AT_low_pc/ } split /^ <1></m, $info) >= 3,
        'C++: the members\' code is described by DIEs that complete a declaration (readelf)');
    my ($st, $o, $e) = traced(["$dir/cxx", 3], env => { MCOUNT_TRACE_EVENTS => 'geo::*;*geo::twice*',
        MCOUNT_TRACE_OUTPUT => "$dir/cxx.txt", MCOUNT_TRACE_CONTROL => 0 });
    is($st, 0, 'C++: runs');
    is($o, "sum 150 vec 6 12\n", 'C++: computes what it computes');
    my %n;
    for (grep { !/^#/ } split /\n/, slurp("$dir/cxx.txt")) {
        my $l = /\A.{16}-\d+ +\[\d{3}\] +\d+\.\d{6}: (.*) <-\S.*\z/ ? $1 : "BAD $_";
        $n{ $l =~ s/this=0x[0-9a-f]+/this=P/r }++;
    }
    is_deeply(\%n, { 'geo::Rect::area() const(this=P)' => 9, 'geo::Rect::scale(long) const(this=P, k=2)' => 3,
        'geo::Rect::scale(long) const(this=P, k=3)' => 3, (map { ("geo::Rect::scale(long, long) const(this=P, k=3, m=$_)" => 1,
        "long geo::twice<long>(long)(x=$_)" => 1) } 1 .. 3), 'double geo::twice<double>(double)' => 3,
        'geo::operator+(geo::Vec, geo::Vec)' => 3 }, 'C++: this and the named parameters, by the members\' DWARF');
    is(join('', grep { /^mcount-trace:/ } split /^/, $e),
        "mcount-trace: cxx: geo::operator+(geo::Vec, geo::Vec): parameter a is a struct or union passed by value: "
        . "its arguments are not recorded\nmcount-trace: cxx: double geo::twice<double>(double): parameter x is a "
        . "floating-point value (passed in a vector register, which the hook does not keep): its arguments are not "
        . "recorded\n", 'C++: the Vec by value and the double refused, by their demangled names');
}

# ---- the command: run -e GLOB ----
{
    my ($st, $o, $e) = run_cmd([$MT, 'run', '-o', "$dir/cli.txt", (map { ('-e', $_) } @FUNCS), '--',
        "$dir/dw4", 11, "$dir/cli.log", 40]);
    is($st, 0, 'run -e GLOB: accepted, runs') or diag($e);
    my ($ev, $bad) = read_text_args("$dir/cli.txt");
    is_deeply($bad, [], 'run -e GLOB: every line well formed');
    against_log('run -e GLOB', $ev, read_log("$dir/cli.log"), \%NAMES);
    ($st, $o, $e) = run_cmd([$MT, 'run', '-o', "$dir/two.txt", '-e', 'ints strs', '--', "$dir/dw4", 11,
        "$dir/two.log", 1]);
    is($st, 0, 'run -e "GLOB GLOB": the program runs');
    like($e, qr/\Amcount-trace: MCOUNT_TRACE_EVENTS: 'ints strs': one GLOB a prototype \(give each its own\)\n/,
        'run -e "GLOB GLOB": refused, not half applied');
    ($st, $o, $e) = run_cmd([$MT, 'run', '-e', 'ints(int a', '--', 'true']);
    is($st >> 8, 2, 'run -e: an unclosed parameter list is still a usage error');
    like($e, qr/'ints\(int a': not FUNCTION\(TYPE NAME, \.\.\.\), GLOB or !GLOB/, '... saying what is taken');
}

# ---- a bare glob and a prototype by hand, :mod:, !GLOB ----
{
    my ($out, $log) = run_traced('mixed', "$dir/dw5", 'text', { MCOUNT_TRACE_EVENTS =>
        'ints:mod:dw5;strs:mod:nosuch.so;many(long x);flags;!flags' });
    my ($ev, $bad) = read_text_args($out);
    is_deeply($bad, [], 'mixed: every line well formed');
    my %n;
    for (@$ev) {
        my ($fn, $a) = @$_;
        $n{$fn}{ $a ? join(',', sort keys %$a) : '' }++;
    }
    is_deeply(\%n, { ints => { 'a,b,c,d,e,f' => 40 }, many => { x => 40 }, flags => { '' => 40 } },
        'mixed: ints by its DWARF (:mod: its program), many by hand, flags dropped, strs not traced');
}

# ---- no debug information: traced without arguments, told once ----
# (and where a debug file was looked for by the build-id GCC's link
# gives it: t/84)
my $BYID = qr{, nor a debug file \(looked for /usr/lib/debug/\.build-id/[0-9a-f]{2}/[0-9a-f]+\.debug\)};
{
    mcc_build('-pg -mfentry', "$dir/nodw.o", $src, '-O2', '-g0');
    link_prog("$dir/nodw", "$dir/nodw.o");
    my ($out, $log) = run_traced('nodw', "$dir/nodw", 'text', { MCOUNT_TRACE_EVENTS => $GLOBS },
        msg => qr/\Amcount-trace: nodw: no DWARF information for (?:ints|strs|many|flags)$BYID: its arguments are not recorded\n\z/);
    my ($ev, $bad) = read_text_args($out);
    is_deeply($bad, [], 'nodw: every line well formed');
    is(scalar @$ev, scalar @$log, 'nodw: every call traced');
    is(scalar(grep { defined $_->[1] } @$ev), 0, 'nodw: without arguments');
}

# ---- dlopen: the rule replayed on a library loaded later, 21 times ----
# t/73's proc dl: plug_a(x) (which calls plug_b(x)) with x = 0, 1, 2,
# then dlclose, and 20 times dlopen, plug_a(k), dlclose.
{
    mcc_build('-pg -mfentry', "$dir/proc.o", "$TSRC/proc.c", '-O2', '-pthread', '-Wno-prio-ctor-dtor');
    must('gcc', '-c', "$TSRC/badsite.S", '-o', "$dir/badsite.o");
    link_prog("$dir/proc", '-rdynamic', "$dir/proc.o", "$dir/badsite.o", '-pthread', '-ldl');
    my $badsite = qr/\Amcount-trace: proc: 0x[0-9a-f]+ <bad_\w+\+0x?[0-9a-f]*>: .*: left alone\z/;   # t/73's
    my @x = sort { $a <=> $b } (0 .. 2, 0 .. 19);
    for my $g ('-g', '-g0') {
        my $lib = "libplug$g.so";
        mcc_build('-pg -mfentry', "$dir/plug$g.o", "$TSRC/plug.c", '-O2', '-fPIC', $g);
        link_prog("$dir/$lib", '-shared', "$dir/plug$g.o");
        my $sync = "$dir/sync$g";
        mkdir $sync or die;
        spit("$sync/$_", '') for qw(listed done);
        my ($st, $o, $e) = traced(["$dir/proc", 'dl', "$dir/$lib", $sync], env => { MCOUNT_TRACE_CONTROL => 0,
            MCOUNT_TRACE_EVENTS => "plug_*:mod:$lib", MCOUNT_TRACE_OUTPUT => "$dir/dl$g.txt" });
        is($st, 0, "dlopen ($g): runs") or diag($e);
        is($o, "dl 442\n", "dlopen ($g): computes what it computes");
        my @msg = grep { !/$badsite/ } split /\n/, $e;
        my ($ev, $bad) = read_text_args("$dir/dl$g.txt");
        is_deeply($bad, [], "dlopen ($g): every line well formed");
        my %got;
        for (grep { $_->[0] =~ /\Aplug_/ } @$ev) {
            my ($fn, $a) = @$_;
            push @{ $got{$fn} }, $a ? join(',', map { "$_=$a->{$_}" } sort keys %$a) : '';
        }
        $_ = [sort { (($a =~ /(\d+)/)[0] // -1) <=> (($b =~ /(\d+)/)[0] // -1) } @$_] for values %got;
        if ($g eq '-g') {
            is_deeply(\%got, { plug_a => [map { "x=$_" } @x], plug_b => [map { "x=$_" } @x] },
                "dlopen ($g): each load's plug_a and plug_b with their argument x");
            is_deeply(\@msg, [], "dlopen ($g): no message");
        } else {
            is_deeply(\%got, { plug_a => [('') x 23], plug_b => [('') x 23] },
                "dlopen ($g): every call traced, without arguments");
            is(scalar @msg, 1, "dlopen ($g): told once, not once a load") or diag($e);
            like($msg[0] // '', qr/\Amcount-trace: $lib: no DWARF information for plug_[ab]$BYID: its arguments are not recorded\z/,
                "dlopen ($g): that the library has no DWARF information");
        }
    }
}

# ---- live: mcount-trace event PID GLOB ----
{
    my $ctl = "$dir/ctl";
    mkdir $ctl, 0700;
    local $ENV{MCOUNT_TRACE_DIR} = $ctl;
    my $gate = "$dir/gate";
    my $pid = start_bg(["$dir/dw5", 11, "$dir/live.log", 40], out => "$dir/live.out", err => "$dir/live.err",
        env => { LD_PRELOAD => $SO, MCOUNT_TRACE_DIR => $ctl, MCOUNT_TRACE_OUTPUT => "$dir/live.txt",
            ARGS_GATE => $gate });
    ok(wait_for(20, sub { -S "$ctl/$pid" }), 'live: the control socket is there');
    my ($c, $o, $e) = mt_cli('event', $pid, 'strs', 'many');
    is($c, 0, 'live: mcount-trace event PID GLOB GLOB') or diag($e);
    spit($gate, '');
    is(stop_bg($pid, 120), 0, 'live: the program ends well');
    is(slurp("$dir/live.err"), '', 'live: no message');
    my ($ev, $bad) = read_text_args("$dir/live.txt");
    is_deeply($bad, [], 'live: every line well formed');
    my @log = grep { $_->[0] eq 'strs' || $_->[0] eq 'many' } @{ read_log("$dir/live.log") };
    against_log('live', $ev, \@log, \%NAMES);
}

# ---- damaged debug information, under ASan and UBSan ----
# The library built with them (its hot path excepted) and linked in;
# the bare globs given through mcount_trace_event().  Each copy of the
# program has bytes of .debug_info, .debug_abbrev, .debug_rnglists or
# .debug_str changed: it must run as the program does, its trace well
# formed, its messages the library's own.
{
    san_prog("$dir/san", $src);
    my %san_env = (ASAN_OPTIONS => 'detect_leaks=0', UBSAN_OPTIONS => 'print_stacktrace=1:halt_on_error=1');
    my ($out, $log) = run_traced('san', "$dir/san", 'json', {%san_env}, preload => 0, args => [$GLOBS]);
    my ($ev, $bad) = read_json_args($out, \%NAMES);
    is_deeply($bad, [], 'ASan+UBSan: every line well formed');
    against_log('ASan+UBSan', $ev, $log, \%NAMES);

    my %sec;
    for (split /\n/, must('env', 'LC_ALL=C', 'readelf', '-SW', "$dir/san")) {
        $sec{$1} = [hex $2, hex $3] if /\]\s+(\.debug_\w+)\s+\S+\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)/;
    }
    ok($sec{'.debug_info'} && $sec{'.debug_abbrev'}, 'the sections to damage are there');
    my $img = slurp("$dir/san");
    my @cases = (
        # every unit's header kept (12 bytes in DWARF 5, 11 before),
        # its DIEs one LEB128 that never ends
        ['.debug_info DIEs all 0x80 (no LEB128 ends)', sub { my ($o, $l) = @{ $sec{'.debug_info'} };
            for (my $u = $o; $u + 6 <= $o + $l; ) {
                my $ul = unpack('V', substr($_[0], $u, 4));
                my $h = unpack('v', substr($_[0], $u + 4, 2)) >= 5 ? 12 : 11;
                substr($_[0], $u + $h, $ul + 4 - $h) = "\x80" x ($ul + 4 - $h) if $ul + 4 > $h;
                $u += 4 + $ul;
            } }, 1],
        ['unit length past the section', sub { substr($_[0], $sec{'.debug_info'}[0], 4) = pack('V', 0xfffffff0) }, 1],
        ['.debug_abbrev all 0xff', sub { my ($o, $l) = @{ $sec{'.debug_abbrev'} };
            substr($_[0], $o, $l) = "\xff" x $l }, 1],
        ['every unit of version 9', sub { my ($o, $l) = @{ $sec{'.debug_info'} };
            for (my $u = $o; $u + 6 <= $o + $l; $u += 4 + unpack('V', substr($_[0], $u, 4))) {
                substr($_[0], $u + 4, 2) = pack('v', 9);
            } }, 1],
    );
    srand(82);
    # args.c's own unit (readelf's), where the reader finds its
    # functions: the rest of .debug_info is the library's and libc's
    my @cu = debug_unit("$dir/san", 'args.c');
    ok(@cu, 'readelf finds args.c\'s unit in .debug_info');
    $sec{'args.c'} = [$sec{'.debug_info'}[0] + $cu[0], $cu[1]] if @cu;
    my @targets = grep { $sec{$_} } ('args.c') x 3, qw(.debug_info .debug_abbrev .debug_rnglists .debug_str);
    for my $k (1 .. 32) {
        my @flips = map { my $s = $sec{ $targets[rand @targets] };
            [$s->[0] + int(rand($s->[1])), int(rand(256))] } 1 .. 1 + int(rand(12));
        push @cases, ["random bytes $k", sub { substr($_[0], $_->[0], 1) = chr $_->[1] for @flips }, 0];
    }
    # what the undamaged program's trace says, arguments and all
    my ($bst) = traced(["$dir/san", 11, "$dir/bad.log", 40, $GLOBS], preload => 0,
        env => { %san_env, MCOUNT_TRACE_OUTPUT => "$dir/good.txt", MCOUNT_TRACE_CONTROL => 0 });
    my $sig = sub { my ($ev) = @_; join "\n", map { my $a = $_->[1];
        "$_->[0] " . ($a ? join(',', map { "$_=$a->{$_}" } sort keys %$a) : '-') } @$ev };
    my $good_sig = $sig->((read_text_args("$dir/good.txt"))[0]);
    my ($runs, $changed) = (0, 0);
    for my $c (@cases) {
        my ($what, $damage, $none) = @$c;
        my $copy = $img;
        $damage->($copy);
        spit("$dir/bad", $copy);
        chmod 0755, "$dir/bad";
        my ($st, $o, $e) = traced(["$dir/bad", 11, "$dir/bad.log", 40, $GLOBS], preload => 0,
            env => { %san_env, MCOUNT_TRACE_OUTPUT => "$dir/bad.txt", MCOUNT_TRACE_CONTROL => 0 });
        my @other = grep { !/\Amcount-trace: bad: (?:no DWARF information for \w+|\w+: .*): its arguments are not recorded\z/ }
            split /\n/, $e;
        my ($ev2, $bad2) = read_text_args("$dir/bad.txt");
        if ($st != 0 || $o ne $want || @other || @$bad2 || @$ev2 != @{ read_log("$dir/bad.log") }) {
            fail("damaged ($what): runs as the program does") or diag("status $st\n$e");
            next;
        }
        $runs++;
        # random damage that reached the reader: told, or other arguments
        $changed++ if !$none && (length $e || $sig->($ev2) ne $good_sig);
        like($e, qr/\Amcount-trace: bad: no DWARF information for \w+: its arguments are not recorded\n\z/,
            "damaged ($what): no DWARF information, told once") if $none;
    }
    is($runs, scalar @cases, 'damaged: every copy ran as the program does, its trace well formed');
    ok($changed >= 1, "damaged: random damage reached the reader ($changed of 32 copies told or "
        . 'traced other arguments)');
}

# ---- valgrind: the reader's reads ----
{
    my ($st, $o, $e) = run_cmd(['valgrind', '-q', '--error-exitcode=9', '--smc-check=all', '--leak-check=no',
        '--trace-children=yes', 'env', "LD_PRELOAD=$SO", "$dir/dw4", 11, "$dir/vg.log", 10], env => {
        MCOUNT_TRACE_OUTPUT => "$dir/vg.txt", MCOUNT_TRACE_EVENTS => $GLOBS, MCOUNT_TRACE_CONTROL => 0 });
    is($st, 0, 'valgrind: no error') or diag($e);
    my ($ev, $bad) = read_text_args("$dir/vg.txt");
    is_deeply($bad, [], 'valgrind: every line well formed');
    against_log('valgrind', $ev, read_log("$dir/vg.log"), \%NAMES);
}

done_testing();
