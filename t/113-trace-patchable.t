#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# -fpatchable-function-entry builds traced, against the oracle of
# t/71-trace-oracle.t: GCC's and clang's -finstrument-functions.  The
# compiler's own table (__patchable_function_entries) is the only one:
# no -pg, no mcount-cc.  t/src/trace/oracle.c is built with GCC and
# with clang, -fpatchable-function-entry=5 (GCC's five 0x90 at the
# entry, after an endbr64 with -fcf-protection; clang's one 5-byte NOP)
# and 16,14 (fourteen 0x90 before the symbol, two bytes at the entry:
# GCC's 90 90, clang's 66 90), preloaded and linked in
# (libmcount-trace.a); traced with every function on, the trace must be
# the -finstrument-functions log, function and parent, event for event,
# each event named as nm names it, the output that of a plain build;
# with no filter, no event.  (clang has no noipa: its builds are
# -fno-inline, and its log is made after inlining, of the functions the
# code enters.)  A shared library built 16,14 (t/src/trace/pfe_lib.c)
# under a program built 5, preloaded and linked in, likewise, and both
# stripped (functions with no dynamic symbol found by their frame
# descriptions); function_graph (t/78's enter and exit log) and the
# profiler (its hits, the log's entries) on GCC's and clang's; and while
# it waits, its code read from /proc/PID/mem and disassembled by
# objdump: GCC's runs made one NOP (0f 1f 44 00 00, 66 90), the traced
# functions' entries a call (5) or a jmp into the NOPs before the
# symbol, which hold a call and a jmp back (16,14).  A library loaded
# by dlopen while another thread runs: GCC's runs, which would have to
# become one instruction, are left alone, said, and the program runs
# as it does untraced; clang's (one instruction already) are traced.
# mcount-trace attach to threads that spend their time in GCC's runs:
# none refused, each thread's calls counted, the function traced.
use strict;
use warnings;
no warnings 'portable';    # 64-bit addresses through hex()
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP must run_cmd tmpdir slurp spit);
use TraceTest qw($SO $LIBA $RTINC $TSRC clean_env read_cyg link_prog traced read_json read_text
    nm_funcs func_at bias_of show_seq first_diff against_cyg start_bg stop_bg wait_for mt_cli graph_compare
    graph_from_main);

plan skip_all => 'x86_64 only (the other architectures: their guests)' unless `uname -m` =~ /\Ax86_64\b/;

clean_env();
my $dir = tmpdir();
my $ctl = "$dir/ctl";

must('gcc', '-O2', '-o', "$dir/plain", "$TSRC/oracle.c");
my $want_out = must("$dir/plain", 3);
like($want_out, qr/\Aresult -?\d+ \d+\.\d{4}\n\z/, "the plain program prints $want_out");
must('gcc', '-O2', '-c', "$TSRC/cyg.c", '-o', "$dir/cyg.o");

# The compile command of CC for -fpatchable-function-entry=PFE.
sub cc_cmd {
    my ($cc, $pfe, @rest) = @_;
    my @c = ($cc, '-O2', "-fpatchable-function-entry=$pfe");
    push @c, $cc eq 'clang' ? ('-fno-inline', '-Wno-unknown-attributes', '-finstrument-functions-after-inlining')
        : '-finstrument-functions';
    return (@c, @rest);
}

# The bytes of FILE at file address ADDR (N of them), in hex.
sub file_bytes {
    my ($file, $addr, $n) = @_;
    my ($st, $out) = run_cmd(['readelf', '-SW', $file], env => { LC_ALL => 'C' });
    for (split /\n/, $out) {
        my ($type, $va, $off, $size) =
            /\]\s+\S+\s+(\w+)\s+([0-9a-f]{8,})\s+([0-9a-f]{6,})\s+([0-9a-f]{6,})\s/ or next;
        next unless $type eq 'PROGBITS' && $addr >= hex $va && $addr + $n <= hex($va) + hex($size);
        open(my $fh, '<:raw', $file) or die "$file: $!";
        seek $fh, hex($off) + $addr - hex($va), 0 or die;
        read($fh, my $b, $n) == $n or die;
        return unpack 'H*', $b;
    }
    return '?';
}

# The entry form of function NAME in FILE: the NOPs the compiler left
# there (and before it), as hex, after an endbr64 ("endbr+").
sub entry_form {
    my ($file, $syms, $name, $pfe) = @_;
    my ($f) = grep { $_->[2] eq $name } @$syms or return '(no symbol)';
    my $pre = $pfe eq '16,14' ? file_bytes($file, $f->[0] - 14, 14) . '|' : '';
    my $e = file_bytes($file, $f->[0], 9);
    my $endbr = $e =~ s/\Af30f1efa// ? 'endbr+' : '';
    return $pre . $endbr . substr($e, 0, $pfe eq '16,14' ? 4 : 10);
}

# One build of oracle.c: NAME, compiler, -fpatchable-function-entry's
# N[,M], more compile flags, link flags, 'so' or 'a', the entry form.
sub variant {
    my ($name, $cc, $pfe, $cflags, $ldflags, $mode, $form) = @_;
    (my $tag = $name) =~ s/[^A-Za-z0-9]+/_/g;
    my $d = "$dir/$tag";
    mkdir $d or die;
    my @api = $mode eq 'a' ? ('-DWITH_API', "-I$RTINC") : ();
    must(cc_cmd($cc, $pfe, @api, @$cflags, '-c', "$TSRC/oracle.c", '-o', "$d/oracle.o"));
    my $prog = link_prog("$d/oracle", "$d/oracle.o", "$dir/cyg.o", $mode eq 'a' ? $LIBA : (), @$ldflags);
    my $syms = nm_funcs($prog);
    is(entry_form($prog, $syms, 'leaf', $pfe), $form, "$name: leaf's entry is $form");
    my %on = $mode eq 'a' ? (ORACLE_ENABLE => '*') : (MCOUNT_TRACE_FILTER => '*');
    my %preload = (preload => $mode eq 'so');

    my ($st, $out, $err) = traced([$prog, 3], %preload, env => { %on, CYG_LOG => "$d/cyg.log",
        MCOUNT_TRACE_OUTPUT => "$d/trace.json", MCOUNT_TRACE_FORMAT => 'json',
        MCOUNT_TRACE_DIR => $ctl });
    is($st, 0, "$name: exits 0 traced") or diag $err;
    is($err, '', "$name: the library says nothing");
    is($out, $want_out, "$name: the output of the plain build");
    my ($ev, $errs) = -e "$d/trace.json" ? read_json("$d/trace.json") : ([], ['no trace file']);
    is_deeply($errs, [], "$name: every trace line is a well-formed event");
    my ($main_at, $cyg) = read_cyg("$d/cyg.log");
    my $bias = bias_of($syms, 'main', $main_at);
    my ($want, $got, $names) = against_cyg($syms, $bias, $cyg, $ev, $mode eq 'a')
        or die "$name: main is not in the -finstrument-functions log";
    cmp_ok(scalar @$want, '>', 20, "$name: the program entered " . scalar(@$want) . ' functions');
    is(first_diff($got, $want), '', "$name: the trace is the -finstrument-functions log, "
        . 'function and parent, event for event');
    is_deeply($names, [], "$name: each event's names are nm's");

    ($st, $out, $err) = traced([$prog, 3], %preload, env => { MCOUNT_TRACE_OUTPUT => "$d/trace0.json",
        MCOUNT_TRACE_FORMAT => 'json', MCOUNT_TRACE_DIR => $ctl });
    is("$st $err$out", "0 $want_out", "$name: no filter: exits 0, silent, the plain build's output");
    is(-e "$d/trace0.json" ? slurp("$d/trace0.json") : '(no file)', '', "$name: no filter: no event");
    return;
}

my $run5 = '9090909090';
my $pre14 = '90' x 14 . '|';
variant('gcc 5 PIE preloaded', 'gcc', '5', [], [], 'so', $run5);
variant('gcc 5 -fcf-protection -no-pie preloaded', 'gcc', '5', ['-fcf-protection', '-fno-pie'], ['-no-pie'], 'so',
    "endbr+$run5");
variant('gcc 5 PIE linked in', 'gcc', '5', [], [], 'a', $run5);
variant('clang 5 PIE preloaded', 'clang', '5', [], [], 'so', '0f1f440008');
variant('clang 5 -fcf-protection linked in', 'clang', '5', ['-fcf-protection'], [], 'a', 'endbr+0f1f440008');
variant('gcc 16,14 PIE preloaded', 'gcc', '16,14', [], [], 'so', "${pre14}9090");
variant('gcc 16,14 -fcf-protection linked in', 'gcc', '16,14', ['-fcf-protection'], [], 'a', "${pre14}endbr+9090");
variant('clang 16,14 PIE preloaded', 'clang', '16,14', [], [], 'so', "${pre14}6690");
variant('clang 16,14 -fcf-protection -no-pie linked in', 'clang', '16,14', ['-fcf-protection', '-fno-pie'],
    ['-no-pie'], 'a', "${pre14}endbr+6690");

# function_graph on the same builds, against -finstrument-functions'
# enter and exit log (t/src/trace/cyg_graph.c, t/78's): each thread's
# calls and returns; and the profiler (a hook of mcount_hook(3)) from
# the start, its hits of each function the log's count of its entries.
must('gcc', '-O2', '-c', "$TSRC/cyg_graph.c", '-o', "$dir/cyg_graph.o");
sub graph_variant {
    my ($name, $cc, $pfe, $cflags, $mode) = @_;
    (my $tag = $name) =~ s/[^A-Za-z0-9]+/_/g;
    my $d = "$dir/$tag";
    mkdir $d or die;
    my @api = $mode eq 'a' ? ('-DWITH_API', "-I$RTINC") : ();
    must(cc_cmd($cc, $pfe, @api, @$cflags, '-c', "$TSRC/oracle.c", '-o', "$d/oracle.o"));
    my $prog = link_prog("$d/oracle", "$d/oracle.o", "$dir/cyg_graph.o", $mode eq 'a' ? ($LIBA, '-lpthread') : ());
    my %on = $mode eq 'a' ? (ORACLE_ENABLE => '*') : (MCOUNT_TRACE_FILTER => '*');
    my ($st, $out, $err) = traced([$prog, 3], preload => $mode eq 'so', env => { %on,
        MCOUNT_TRACE_TRACER => 'function_graph', CYG_LOG => "$d/cyg.log", MCOUNT_TRACE_OUTPUT => "$d/trace.json",
        MCOUNT_TRACE_FORMAT => 'json', MCOUNT_TRACE_DIR => $ctl });
    is("$st $err$out", "0 $want_out", "$name: exits 0, silent, the plain build's output");
    graph_compare($name, $prog, "$d/cyg.log", ["$d/trace.json"], 0, $mode eq 'a' ? \&graph_from_main : undef);
    return if $mode eq 'a';
    ($st, $out, $err) = traced([$prog, 3], env => { MCOUNT_TRACE_STAT => '*', MCOUNT_TRACE_OUTPUT => "$d/stat.txt",
        CYG_LOG => "$d/cyg2.log", MCOUNT_TRACE_DIR => $ctl });
    is("$st $out", "0 $want_out", "$name, the profiler: exits 0, the plain build's output") or diag $err;
    my $syms = nm_funcs($prog);
    my ($main_at, $log) = TraceTest::read_cyg_graph("$d/cyg2.log");
    my $bias = bias_of($syms, 'main', $main_at);
    my %want;
    for (grep { $_->[0] eq '>' } @$log) {
        my $f = func_at($syms, $_->[1] - $bias);
        $want{ $f ? $f->[2] : '?' }++;
    }
    my %got = map { /\A\s*(\w+)\s+(\d+)\s/ ? ($1 => $2) : () } split /\n/, $err;
    is_deeply(\%got, \%want, "$name, the profiler: each function's hits, the log's entries of it") or diag $err;
    return;
}
graph_variant('function_graph, gcc 5 PIE preloaded', 'gcc', '5', [], 'so');
graph_variant('function_graph, gcc 16,14 -fcf-protection preloaded', 'gcc', '16,14', ['-fcf-protection'], 'so');
graph_variant('function_graph, clang 16,14 linked in', 'clang', '16,14', [], 'a');

# A shared library built 16,14 (GCC's), its program 5.
my $ld = "$dir/lib";
mkdir $ld or die;
must(cc_cmd('gcc', '16,14', '-fPIC', '-c', "$TSRC/pfe_lib.c", '-o', "$ld/pfe_lib.o"));
link_prog("$ld/libpfe.so", '-shared', "$ld/pfe_lib.o");
my $libsyms = nm_funcs("$ld/libpfe.so");
is(entry_form("$ld/libpfe.so", $libsyms, 'lib_leaf', '16,14'), "${pre14}9090", 'libpfe.so: lib_leaf\'s entry is GCC\'s 16,14');
must('gcc', '-O2', '-o', "$ld/plain", "$TSRC/pfe_main.c", "$TSRC/pfe_lib.c");
my $lib_out = must("$ld/plain", 3);
like($lib_out, qr/\Aresult -?\d+\n\z/, "the library's plain program prints $lib_out");

# nm of the program and of the library where it is loaded, as one list
# in the program's addresses (its bias: the log's main line).
sub both_syms {
    my ($prog, $syms, $main_at, $lib_at) = @_;
    my $bias = bias_of($syms, 'main', $main_at);
    my $lbias = bias_of($libsyms, 'lib_leaf', $lib_at);
    my @all = (@$syms, map { [$_->[0] + $lbias - $bias, @$_[1 .. 3]] } @$libsyms);
    return ([sort { $a->[0] <=> $b->[0] || $a->[3] <=> $b->[3] } @all], $bias);
}

# The code of a process at ADDR (N bytes) from /proc/PID/mem, as objdump
# disassembles it: "MNEMONIC OPERANDS" lines, addresses made relative.
sub code_of {
    my ($pid, $addr, $n, $base) = @_;
    $base //= $addr;
    open(my $fh, '<:raw', "/proc/$pid/mem") or return "(/proc/$pid/mem: $!)";
    sysseek($fh, $addr, 0) or return "(seek: $!)";
    sysread($fh, my $b, $n) == $n or return "(read: $!)";
    spit("$dir/code.bin", $b);
    my $dis = must('objdump', '-D', '-b', 'binary', '-m', 'i386:x86-64', "--adjust-vma=$addr", "$dir/code.bin");
    my @l;
    for (split /\n/, $dis) {
        my ($at, $text) = /\A\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(\S.*?)\s*\z/ or next;
        $text =~ s/\b0x([0-9a-f]+)\b(?!\()/sprintf '.%+d', hex($1) - $base/ge;   # (a target)
        $text =~ s/\s+#.*//;
        $text =~ s/\s+/ /g;
        push @l, sprintf '%+d: %s', hex($at) - $base, $text;
    }
    return join "\n", @l;
}

for my $mode ('so', 'a') {
    my $name = $mode eq 'so' ? 'libpfe.so, preloaded' : 'libpfe.so, linked in';
    my $d = "$ld/$mode";
    mkdir $d or die;
    my @api = $mode eq 'a' ? ('-DWITH_API', "-I$RTINC") : ();
    must(cc_cmd('gcc', '5', @api, '-c', "$TSRC/pfe_main.c", '-o', "$d/pfe_main.o"));
    my $prog = link_prog("$d/pfe_main", "$d/pfe_main.o", "$dir/cyg.o", $mode eq 'a' ? $LIBA : (),
        "$ld/libpfe.so", "-Wl,-rpath,$ld", '-rdynamic');
    my $syms = nm_funcs($prog);
    my %on = $mode eq 'a' ? (ORACLE_ENABLE => '*') : (MCOUNT_TRACE_FILTER => '*');
    my ($st, $out, $err) = traced([$prog, 3], preload => $mode eq 'so', env => { %on, CYG_LOG => "$d/cyg.log",
        PFE_AT => "$d/at", MCOUNT_TRACE_OUTPUT => "$d/trace.json", MCOUNT_TRACE_FORMAT => 'json',
        MCOUNT_TRACE_DIR => $ctl });
    is("$st $err$out", "0 $lib_out", "$name: exits 0, silent, the plain build's output");
    my ($ev, $errs) = read_json("$d/trace.json");
    is_deeply($errs, [], "$name: every trace line is a well-formed event");
    my ($main_at, $cyg) = read_cyg("$d/cyg.log");
    my ($lib_at) = slurp("$d/at") =~ /\Alib_leaf (0x[0-9a-f]+)\n/ or die "$d/at";
    my ($all, $bias) = both_syms($prog, $syms, $main_at, hex $lib_at);
    my ($want, $got, $names) = against_cyg($all, $bias, $cyg, $ev, $mode eq 'a') or die "$name: no main";
    my $inlib = grep { /\Alib_/ } @$want;
    cmp_ok($inlib, '>=', 20, "$name: $inlib of the " . scalar(@$want) . ' functions entered are the library\'s');
    is(first_diff($got, $want), '', "$name: the trace is the -finstrument-functions log, event for event");
    is_deeply($names, [], "$name: each event's names are nm's");
}

# The same, stripped (strip: no .symtab; the functions that have no
# dynamic symbol, pfe_main's round_of and the library's twice, found
# by their frame descriptions): nothing left alone, the same calls, and
# each function named by its dynamic symbol, else FILE+0xADDRESS (its
# site's address in the file).
{
    my $d = "$ld/stripped";
    mkdir $d or die;
    must('strip', '-o', "$d/libpfe.so", "$ld/libpfe.so");
    must('gcc', '-O2', '-fpatchable-function-entry=5', '-finstrument-functions', '-c', "$TSRC/pfe_main.c",
        '-o', "$d/pfe_main.o");
    link_prog("$d/pfe_main.full", "$d/pfe_main.o", "$dir/cyg.o", "$d/libpfe.so", "-Wl,-rpath,$d", '-rdynamic');
    must('strip', '-o', "$d/pfe_main", "$d/pfe_main.full");
    my ($st, $out, $err) = traced(["$d/pfe_main", 3], env => { MCOUNT_TRACE_FILTER => '*', CYG_LOG => "$d/cyg.log",
        PFE_AT => "$d/at", MCOUNT_TRACE_OUTPUT => "$d/trace.json", MCOUNT_TRACE_FORMAT => 'json',
        MCOUNT_TRACE_DIR => $ctl });
    is("$st $err$out", "0 $lib_out", "stripped: exits 0, silent (nothing left alone), the plain build's output");
    my ($ev) = read_json("$d/trace.json");
    my ($main_at, $cyg) = read_cyg("$d/cyg.log");
    my ($lib_at) = slurp("$d/at") =~ /\Alib_leaf (0x[0-9a-f]+)\n/ or die "$d/at";
    my $syms = nm_funcs("$d/pfe_main.full");
    my ($all, $bias) = both_syms("$d/pfe_main.full", $syms, $main_at, hex $lib_at);
    my ($want, $got) = against_cyg($all, $bias, $cyg, $ev, 0) or die 'stripped: no main';
    is(first_diff($got, $want), '', 'stripped: the trace is the -finstrument-functions log, event for event');
    my %dyn;
    for my $f ("$d/pfe_main", "$d/libpfe.so") {
        my @n = must('nm', '-D', '--defined-only', $f) =~ /^[0-9a-f]+ [TtWw] (\w+)$/mg;
        $dyn{$_} = 1 for @n;
    }
    my $lbias = bias_of($libsyms, 'lib_leaf', hex $lib_at) - $bias;
    my (@bad, %seen);
    for my $e (@$ev) {
        my $f = func_at($all, hex($e->{addr}) - $bias) or next;
        my $lib = $f->[2] =~ /\Alib_|\Atwice\z/;
        my $name = $dyn{ $f->[2] } ? $f->[2]
            : sprintf('%s+%#x', $lib ? 'libpfe.so' : 'pfe_main', hex($e->{addr}) - $bias - ($lib ? $lbias : 0));
        push @bad, "$e->{func} for $f->[2] (want $name)" if $e->{func} ne $name;
        $seen{ $f->[2] } = 1;
    }
    is_deeply(\@bad, [], 'stripped: each function named by its dynamic symbol or FILE+0xADDRESS');
    ok($seen{round_of} && $seen{twice}, 'stripped: round_of and twice (no dynamic symbol) traced');
}

# The running code: lib_leaf and back traced (a jmp into the NOPs
# before lib_leaf, a call at back's entry), lib_mid and round_of not
# (one NOP each, where GCC left two and five).
{
    my $d = "$ld/so";
    my $prog = "$d/pfe_main";
    unlink "$d/at", "$d/go";
    my $pid = start_bg(['env', "LD_PRELOAD=$SO", $prog, 2], out => "$d/wait.out", err => "$d/wait.err",
        env => { MCOUNT_TRACE_FILTER => 'lib_leaf,back', PFE_AT => "$d/at", PFE_WAIT => "$d/go",
            MCOUNT_TRACE_OUTPUT => "$d/wait.txt", MCOUNT_TRACE_DIR => $ctl });
    ok(wait_for(30, sub { -e "$d/at" && slurp("$d/at") =~ /ready\n/ }), 'the program waits, its first round done');
    my ($lib_at) = slurp("$d/at") =~ /\Alib_leaf (0x[0-9a-f]+)\n/;
    my $lbias = hex($lib_at // 0) - (grep({ $_->[2] eq 'lib_leaf' } @$libsyms))[0][0];
    # (the program's code: its executable mapping, whose file offsets
    # are its addresses in the file; the library maps the file again,
    # read-only, to read its sections)
    my ($pbias) = map { /\A([0-9a-f]+)-\S+ r-xp ([0-9a-f]+) \S+ \S+\s+\S+\/pfe_main\z/ ? hex($1) - hex($2) : () }
        split /\n/, slurp("/proc/$pid/maps");
    $pbias //= 0;
    my $sym = sub { my ($s, $n) = @_; (grep { $_->[2] eq $n } @$s)[0][0] };
    my $psyms = nm_funcs($prog);
    my $at = $lbias + $sym->($libsyms, 'lib_leaf');
    my $leaf = code_of($pid, $at - 14, 16, $at);
    like($leaf, qr/\A-14: call \S+\n-9: jmp \.\+2\n(?:-[1-7]: nop\n){7}\+0: jmp \.-14\z/,
        "lib_leaf, traced: a jmp into the NOPs before it, a call and a jmp back there (/proc/$pid/mem)")
        or diag $leaf;
    $at = $lbias + $sym->($libsyms, 'lib_mid');
    my $mid = code_of($pid, $at - 14, 16, $at);
    like($mid, qr/\A-14: call \S+\n-9: jmp \.\+2\n(?:-[1-7]: nop\n){7}\+0: xchg %ax,%ax\z/,
        'lib_mid, not traced: GCC\'s 90 90 made one 2-byte NOP (the call before it written once)') or diag $mid;
    my $back = code_of($pid, $pbias + $sym->($psyms, 'back'), 5);
    like($back, qr/\A\+0: call \S+\z/, 'back, traced: a call at its entry') or diag $back;
    my $round = code_of($pid, $pbias + $sym->($psyms, 'round_of'), 5);
    like($round, qr/\A\+0: nopl 0x0\(%rax,%rax,1\)\z/, 'round_of, not traced: GCC\'s five 0x90 made one 5-byte NOP')
        or diag $round;
    spit("$d/go", '');
    is(stop_bg($pid, 60), 0, 'the program ends, exit 0');
    is(slurp("$d/wait.err"), '', 'the library said nothing');
    my ($ev, $errs) = read_text("$d/wait.txt");
    is_deeply($errs, [], 'its trace: every line well formed');
    my %n;
    $n{$_->{func}}++ for @$ev;
    is_deeply(\%n, { lib_leaf => 6, back => 2 }, 'its trace: lib_leaf and back only, as often as the rounds call them');
}

# dlopen() while another thread runs.
{
    my $d = "$dir/dl";
    mkdir $d or die;
    # (built 5 itself: it has a table, merged at start-up, and no
    # function of it is traced)
    must('gcc', '-O2', '-fpatchable-function-entry=5', '-pthread', '-o', "$d/pfe_dl", "$TSRC/pfe_dl.c", '-ldl');
    for my $cc ('gcc', 'clang') {
        my @c = ($cc, '-O2', '-fPIC', '-shared', '-fpatchable-function-entry=16,14', '-o', "$d/lib$cc.so",
            "$TSRC/pfe_lib.c");
        push @c, '-fno-inline', '-Wno-unknown-attributes' if $cc eq 'clang';
        must(@c);
        my ($st, $out, $err) = traced(["$d/pfe_dl", "$d/lib$cc.so"],
            env => { MCOUNT_TRACE_FILTER => 'main,lib_*', MCOUNT_TRACE_OUTPUT => "$d/$cc.txt" });
        is("$st $out", "0 result 10\n", "$cc 16,14 dlopen()ed with a thread running: its result");
        my ($ev, $errs) = read_text("$d/$cc.txt");
        is_deeply($errs, [], "$cc: every trace line well formed");
        my %n;
        $n{$_->{func}}++ for @$ev;
        if ($cc eq 'gcc') {
            like($err, qr/\Amcount-trace: lib$cc\.so: 0x[0-9a-f]+ <\w+>: -fpatchable-function-entry NOPs loaded while other threads run: never made one instruction \(a thread may be inside them\): left alone\nmcount-trace: lib$cc\.so: and more sites of it likewise\n\z/,
                'gcc: its runs of 90 90 left alone, said') or diag $err;
            is_deeply(\%n, { main => 1 }, 'gcc: none of its functions traced (the program\'s main is)');
        } else {
            is($err, '', 'clang: nothing said (66 90 is one instruction)');
            is_deeply(\%n, { main => 1, lib_mid => 2, lib_leaf => 4 },
                'clang: lib_mid and lib_leaf traced, each call (and the program\'s main)');
        }
    }
}

# mcount-trace attach to a process whose five threads spend their time
# in GCC's runs of five 0x90 (t/src/trace/pfe_spin.c): mcount-attach
# steps each stopped thread off them before the library is loaded,
# whose start-up makes them one NOP with every other thread stopped and
# its PC outside (a thread stopped inside one: its site refused, seen
# in the status).  No site refused, and each thread's calls as the
# program counts them; hot traced once enabled.  Ten processes, one
# attach each (an interrupted thread is inside a run about one time in
# twenty).
{
    my $d = "$dir/attach";
    mkdir $d or die;
    chmod 0755, $dir, $d;
    my %dir = (MCOUNT_TRACE_DIR => "$d/ctl");
    mkdir "$d/ctl", 0700 or die;
    must('gcc', '-O2', '-fpatchable-function-entry=5', '-pthread', '-o', "$d/pfe_spin", "$TSRC/pfe_spin.c");
    is(entry_form("$d/pfe_spin", nm_funcs("$d/pfe_spin"), 'hot', '5'), $run5, 'pfe_spin: hot\'s entry is GCC\'s five 0x90');
    my ($refused, $ended, $said, $attached) = (0, 0, 0, 0);
    for my $k (1 .. 10) {
        unlink "$d/stop";
        my $pid = start_bg(["$d/pfe_spin", "$d/stop"], out => "$d/out$k", err => "$d/err$k", env => \%dir, nice => 19);
        # (its C library loaded and its threads started, on a loaded
        # machine too: main, the watcher and four spinning)
        wait_for(30, sub { my @t = glob "/proc/$pid/task/*"; @t >= 6 });
        select undef, undef, undef, 0.05;
        my ($st, $status, $e) = mt_cli({ %dir }, 'attach', $pid);
        $attached++ if $st == 0 && $e eq '';
        diag "attach $k: $st $e" if $st != 0 || $e ne '';
        $refused++ if $status !~ /^sites refused: 0$/m;
        if ($k == 1) {
            mt_cli({ %dir }, 'enable', $pid, 'hot');
            my $o = wait_for(10, sub { my (undef, $o) = mt_cli({ %dir }, 'show', $pid); $o =~ /: hot <-spin$/m });
            ok($o, 'hot traced once enabled');
        }
        spit("$d/stop", '');
        my $end = stop_bg($pid, 60);
        $ended++ if $end == 0 && slurp("$d/out$k") eq "ok 5\n";
        diag "run $k: $end " . slurp("$d/out$k") if $end != 0;
        $said++ if slurp("$d/err$k") =~ /left alone/;
        diag "run $k: " . slurp("$d/err$k") if slurp("$d/err$k") ne "";
    }
    is($attached, 10, 'attach: exit 0, nothing said, 10 times of 10');
    is($refused, 0, 'attach: no site refused in the status (no thread was left on a run)');
    is($ended, 10, 'each process ends as it would: every thread\'s calls counted, exit 0');
    is($said, 0, 'the library left nothing alone in any');
}

done_testing();
