#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: slow
# What a user of the tracer met on real programs, a check each:
#
#   switch_live.c  the tracer switched to function_graph while a thread
#                  is in mid-call and its buffer full: every entry is
#                  written in the style of the tracer it was recorded
#                  under (none of the function tracer's calls reads as a
#                  function_graph call whose return was lost: "noexit",
#                  or a text line without a duration), in a file while
#                  the program runs (the reproduction as the user ran
#                  it) and by show after the switch (no file)
#   verlib.c       symbol versions (a library of its own, with and
#                  without its .symtab; xz's liblzma, built from Debian's
#                  source): a function is listed and traced by its plain
#                  name where that is its default version (name@@V),
#                  by name@V where only a hidden version names it; a
#                  filter takes the plain name (the default version
#                  only), name@V and name@@V (aliases), globs, :mod:; a
#                  version's dot is not a compiler clone's (event)
#   names.cc       C++ names with spaces, commas, * and [ ], operators
#                  and templates: each name list prints, given back to
#                  enable as it is, enables that function alone (the
#                  trace names it, and nothing else); a name as the
#                  trace prints it, given to -f or MCOUNT_TRACE_FILTER,
#                  is one glob, not split at its spaces and commas
# and mcount-trace run, list, tracer, show, stop.
use strict;
use warnings;
use Test::More;
use JSON::PP ();
use lib 't/lib';
use TestUtil qw($TOP must run_cmd tmpdir slurp spit);
use TraceTest qw($MT $MCC $TSRC clean_env mcc_build link_prog traced wait_for start_bg stop_bg mt_cli read_text
    read_graph_text);

clean_env();
my $dir = tmpdir();
my $ctl = "$dir/ctl";
$ENV{MCOUNT_TRACE_DIR} = $ctl;
local $ENV{LC_ALL} = 'C';

# The entries and exits of a trace in JSON lines: (\@entries, \@exits).
sub json_events {
    my ($text) = @_;
    my $js = JSON::PP->new;
    my (@in, @out);
    for my $l (split /\n/, $text) {
        my $e = eval { $js->decode($l) } or next;
        push @in, $e if exists $e->{func};
        push @out, $e if exists $e->{exit};
    }
    return (\@in, \@out);
}

# ---- a switch of the tracer with calls in progress ----------------------------

mcc_build('-pg -mfentry', "$dir/sl.o", "$TSRC/switch_live.c", '-O2');
my $sl = link_prog("$dir/sl", "$dir/sl.o");

# No file: the program stops in mid(), after 100 calls of leaf under the
# function tracer, is switched to function_graph, makes 100 more, and
# its trace is read with show.
sub steps {
    my ($fmt) = @_;
    my $d = "$dir/steps-$fmt";
    mkdir $d or die "$d: $!";
    my $pid = start_bg([$^X, $MT, 'run', '-o', '', '-f', 'mid', '-f', 'leaf', '--', $sl, 'steps', $d],
        out => "$d/out", err => "$d/err");
    my $ready = wait_for(60, sub { -e "$d/ready" });
    my ($st, $out, $err) = mt_cli('tracer', $pid, 'function_graph');
    is("$st $out", "0 function_graph\n", "switch ($fmt): tracer PID function_graph, in mid-call") or diag $err;
    spit("$d/go", '');
    wait_for(60, sub { -e "$d/done" });
    ($st, $out, $err) = mt_cli("--format=$fmt", 'show', $pid);
    is($st, 0, "switch ($fmt): show") or diag $err;
    spit("$d/end", '');
    is(stop_bg($pid, 60), 0, "switch ($fmt): the program exits 0") or diag slurp("$d/err");
    ok($ready, "switch ($fmt): the program stopped in mid-call");
    return $out;
}

{
    my ($in, $ex) = json_events(steps('json'));
    my @noexit = grep { $_->{noexit} } @$in;
    is(scalar @noexit, 0, 'switch, show json: no entry of the function tracer\'s says noexit')
        or diag scalar(@noexit) . ' do, the first: ' . JSON::PP->new->canonical->encode($noexit[0]);
    is(scalar @$in, 201, 'switch, show json: 201 entries (mid, and leaf 100 times before the switch and after)');
    is(scalar(grep { $_->{exit} eq 'leaf' && defined $_->{duration} } @$ex), 100,
        'switch, show json: the 100 calls of leaf after the switch return');

    my $text = steps('text');
    spit("$dir/steps.txt", $text);
    my (undef, $terr) = read_graph_text("$dir/steps.txt", header => 0);
    is_deeply($terr, [], 'switch, show text: every line the kernel\'s, of either tracer');
    my ($before, $after) = $text =~ /\A(.*?)^# tracer: function_graph\n#\n#[^\n]*\n#[^\n]*\n(.*)\z/ms;
    ok(defined $after, 'switch, show text: the calls after the switch are under function_graph\'s header')
        or diag $text;
    is(scalar(() = ($before // '') =~ /^ +sl-\d+ +\[\d+\] +\d+\.\d+: leaf <-mid$/mg), 100,
        'switch, show text: before it, 100 lines of the function tracer\'s (leaf <-mid)');
    is(scalar(() = ($after // '') =~ /^ *\d+\) .*\| [ +!#*\@\$] [\d.]+ us +\| +leaf\(\);$/mg), 100,
        'switch, show text: after it, 100 calls of leaf with their durations');
    is(scalar(() = $text =~ /^ *\d+\) [^|]*\| {15}\| +leaf\(\);$/mg), 0,
        'switch, show text: no call of leaf without a duration');
}

# The user's reproduction: a thread that keeps a small buffer full
# (-w: it waits for the drain), switched to function_graph while its
# trace goes to a file.
{
    my $d = "$dir/tight";
    mkdir $d or die "$d: $!";
    my $pid = start_bg([$^X, $MT, 'run', '-w', '-b', '4096', '-f', 'mid', '-f', 'leaf', '--format=json', '-o',
        "$d/tj.json", '--', $sl, 'tight', 8], out => "$d/out", err => "$d/err");
    ok(wait_for(30, sub { -S "$ctl/$pid" }), 'tight: the program runs with its control socket');
    select undef, undef, undef, 1;
    my ($st, $out, $err) = mt_cli('tracer', $pid, 'function_graph');
    is($st, 0, 'tight: tracer PID function_graph') or diag $err;
    select undef, undef, undef, 0.3;
    ($st, $out, $err) = mt_cli('stop', $pid);
    is($st, 0, 'tight: stop PID') or diag $err;
    is(stop_bg($pid, 60), 0, 'tight: the program exits 0') or diag slurp("$d/err");
    # (a million lines: counted, not decoded)
    my $json = -e "$d/tj.json" ? slurp("$d/tj.json") : '';
    my $noexit = () = $json =~ /^\{"comm":.*,"noexit":true\}$/mg;
    my $in = () = $json =~ /^\{"comm":[^\n]*,"func":/mg;
    my $ex = () = $json =~ /^\{"comm":[^\n]*,"exit":/mg;
    is($noexit, 0, 'tight: no entry says noexit');
    ok($ex > 0 && $in > $ex, "tight: calls under both tracers ($in entries, $ex exits)");
}

# ---- symbol versions ------------------------------------------------------------

# Each function's calls in a text trace (\%counts, or undef: not read).
sub text_counts {
    my ($file) = @_;
    return undef unless -e $file;
    my ($ev, $err) = read_text($file);
    diag "$file: @$err" if @$err;
    return undef if @$err;
    my %n;
    $n{ $_->{func} =~ s/\(.*//sr }++ for grep { !exists $_->{lost} } @$ev;
    return \%n;
}

# run PROG traced with filters (-f each), to a text file: \%counts.
my $runs = 0;
sub run_counts {
    my ($prog, @f) = @_;
    my $t = "$dir/run" . ++$runs . '.txt';
    my ($st, $out, $err) = mt_cli('run', '-o', $t, map({ ('-f', $_) } @f), '--', $prog);
    diag "run -f @f: status $st: $err" if $st;
    return $st ? undef : text_counts($t);
}

# list PID of PROG DIR (it waits in DIR): the functions of the module
# MOD, sorted.
sub list_of {
    my ($prog, $mod, $tag) = @_;
    my $d = "$dir/list-$tag";
    mkdir $d or die "$d: $!";
    my $pid = start_bg([$^X, $MT, 'run', '-o', '', '--', $prog, $d], out => "$d/out", err => "$d/err");
    wait_for(60, sub { -e "$d/ready" });
    my ($st, $out, $err) = mt_cli('list', $pid);
    spit("$d/go", '');
    stop_bg($pid, 60);
    diag "list: $st $err" if $st;
    return [sort map { /\A(.*) \[\Q$mod\E\]\z/ ? $1 : () } split /\n/, $out];
}

mcc_build('-pg -mfentry', "$dir/verlib.o", "$TSRC/verlib.c", '-O2', '-g', '-fPIC');
for my $v ('', '-stripped') {
    mkdir "$dir/ver$v" or die;
    link_prog("$dir/ver$v/libverlib.so", '-shared', "$dir/verlib.o", "-Wl,--version-script=$TSRC/verlib.map");
    must('strip', "$dir/ver$v/libverlib.so") if $v;
    link_prog("$dir/vermain$v", "$TSRC/vermain.c", "-L$dir/ver$v", "-Wl,-rpath,$dir/ver$v", '-lverlib');
}
{
    my ($st, $out) = run_cmd(['readelf', '-sW', "$dir/ver/libverlib.so"], env => { LC_ALL => 'C' });
    like($out, qr/ vfun\@VL_1\.0\n.*/s, 'verlib: readelf shows vfun@VL_1.0') or diag $out;
    like($out, qr/ valias\@\@VL_2\.0\n/, 'verlib: readelf shows valias@@VL_2.0');
}
my %all = (vfun => 3, 'vfun@VL_1.0' => 3, valias => 3, vplain => 3);
for my $v ('', '-stripped') {
    my $prog = "$dir/vermain$v";
    my $what = $v ? 'versions, .dynsym only' : 'versions, .symtab';
    is_deeply(list_of($prog, 'libverlib.so', "ver$v"), [sort keys %all],
        "$what: list shows vfun, vfun\@VL_1.0 (the old one), valias, vplain");
    for my $case (['vfun', { vfun => 3 }, 'the plain name: the default version only'],
        ['vfun@@VL_2.0', { vfun => 3 }, 'the default version by its version'],
        ['vfun@VL_1.0', { 'vfun@VL_1.0' => 3 }, 'the hidden version, a function of its own'],
        ['valias', { valias => 3 }, 'a function with a compatibility alias, by its plain name'],
        ['valias@VL_1.0', { valias => 3 }, 'the same by its alias'],
        ['vplain:mod:libverlib.so', { vplain => 3 }, ':mod:'],
        ['vfun*:mod:libverlib.so', { vfun => 3, 'vfun@VL_1.0' => 3 }, 'a glob and :mod:'],
        ['*@VL_1.0', { 'vfun@VL_1.0' => 3, valias => 3, vplain => 3 },
            'a glob of versioned names (vplain@@VL_1.0 too)'],
        ['*@@VL_2.0', { vfun => 3, valias => 3 }, 'a glob of default versions'],
        ['v*', \%all, 'v*']) {
        my ($f, $want, $why) = @$case;
        is_deeply(run_counts($prog, $f), $want, "$what: -f '$f': $why");
    }
}
{
    # function events: each function's arguments from its DWARF
    my $t = "$dir/ver-event.txt";
    my ($st, $out, $err) = mt_cli('run', '-o', $t, '-e', 'v*', '--', "$dir/vermain");
    is("$st $err", '0 ', 'versions: run -e v*: no message (no version taken for a clone)');
    my $text = -e $t ? slurp($t) : '';
    is(scalar(() = $text =~ /: vfun\@VL_1\.0\(x=\d+\) <-main$/mg), 3, 'versions: vfun@VL_1.0(x=N), 3 calls')
        or diag $text;
    is(scalar(() = $text =~ /: valias\(x=\d+\) <-main$/mg), 3, 'versions: valias(x=N), 3 calls');
}

# xz's liblzma, built through mcount-cc with its own build (configure,
# the library only, its smallest set of coders) from Debian's source.
{
    my ($st, $src, $err) = run_cmd(["$TOP/scripts/fetch-source", 'xz-utils']);
    chomp $src;
    is($st, 0, "fetch-source xz-utils: $src") or diag $err;
    my $b = "$dir/xz";
    mkdir $b or die;
    my %cc = (MCOUNT_CC_FLAGS => '-pg -mfentry');
    ($st, my $out, $err) = run_cmd(['sh', '-c', 'cd "$1" && shift && exec "$@"', 'sh', $b, "$src/configure",
        "CC=$MCC gcc", 'CFLAGS=-O2 -g', qw(--disable-xz --disable-xzdec --disable-lzmadec --disable-lzmainfo
        --disable-lzma-links --disable-scripts --disable-doc --disable-nls --disable-static --enable-checks=crc32
        --disable-microlzma --disable-lzip-decoder --enable-small --enable-threads=posix --disable-sandbox
        --enable-symbol-versions=linux), '--enable-encoders=lzma1,lzma2', '--enable-decoders=lzma1,lzma2'],
        env => \%cc);
    is($st, 0, 'xz: configure (CC=mcount-cc gcc)') or diag "$out$err";
    ($st, $out, $err) = run_cmd(['make', '-j2', '-C', "$b/src/liblzma"], env => \%cc);
    is($st, 0, 'xz: make -C src/liblzma') or diag "$out$err";
    my $libs = "$b/src/liblzma/.libs";
    ($st, $out) = run_cmd(['readelf', '-sW', "$libs/liblzma.so.5"], env => { LC_ALL => 'C' });
    like($out, qr/ lzma_stream_encoder_mt\@XZ_5\.2\.2\n.*/s, 'xz: liblzma has lzma_stream_encoder_mt@XZ_5.2.2');
    my $lz = link_prog("$dir/lzuse", "-I$src/src/liblzma/api", "$TSRC/lzuse.c", "-L$libs", "-Wl,-rpath,$libs",
        '-llzma');

    my $list = list_of($lz, 'liblzma.so.5', 'xz');
    ok((grep { $_ eq 'lzma_stream_encoder_mt' } @$list), 'xz: list shows lzma_stream_encoder_mt');
    is_deeply([grep { /\@/ } @$list], [], 'xz: list shows no version (each has its default)');
    is_deeply(run_counts($lz, 'lzma_stream_encoder_mt'), { lzma_stream_encoder_mt => 1 },
        'xz: -f lzma_stream_encoder_mt traces it');
    is_deeply(run_counts($lz, 'lzma_stream_encoder_mt@XZ_5.2.2'), { lzma_stream_encoder_mt => 1 },
        'xz: -f lzma_stream_encoder_mt@XZ_5.2.2, its alias, traces it');
    is_deeply(run_counts($lz, 'lzma_cputhreads', 'lzma_block_uncomp_encode:mod:liblzma.so.5'),
        { lzma_cputhreads => 1, lzma_block_uncomp_encode => 1 }, 'xz: two more with versions, one by :mod:');

    my $t = "$dir/xz-event.txt";
    ($st, $out, $err) = mt_cli('run', '-o', $t, '-e', 'lzma_block_*', '--', $lz);
    is($st, 0, 'xz: run -e lzma_block_*') or diag $err;
    unlike($err, qr/clone/, 'xz: no version taken for a compiler\'s clone') or diag $err;
    like(-e $t ? slurp($t) : '', qr/: lzma_block_uncomp_encode\(block=0x[0-9a-f]+, in="mcount-trace.*, in_size=1000, /,
        'xz: lzma_block_uncomp_encode with its arguments');
}

# ---- names given back as filters ----------------------------------------------------

my $names = "$dir/names";
{
    my ($st, $o, $e) = run_cmd([$MCC, 'g++', '-O2', '-o', $names, "$TSRC/names.cc"],
        env => { MCOUNT_CC_FLAGS => '-pg -mfentry' });
    is($st, 0, 'names.cc: mcount-cc g++ -O2') or diag "$o$e";
}
sub unescape { return $_[0] =~ s/\\(.)/$1/gr }

# The functions a show names (text).
sub shown_funcs {
    my ($text) = @_;
    my %f;
    $f{$1}++ while $text =~ /^ *\S.*?-\d+ +\[\d+\] +\d+\.\d+: (.*) <-.*$/mg;
    return \%f;
}

{
    my $d = "$dir/roundtrip";
    mkdir $d or die "$d: $!";
    my $pid = start_bg([$^X, $MT, 'run', '-o', '', '--', $names, $d], out => "$d/out", err => "$d/err");
    ok(wait_for(60, sub { -e "$d/ready" }), 'names: the program runs');
    my ($st, $out, $err) = mt_cli('list', $pid);
    is($st, 0, 'names: list') or diag $err;
    my @list = grep { !/ \[[^\\\]]*\]\z/ } split /\n/, $out;
    my %raw = map { unescape($_) => 1 } @list;
    for my $n ('deep(int, int&)', 'geo::Vec::dot(geo::Vec const&) const', 'geo::Vec::operator*(int) const',
        'geo::Vec::operator[](int) const', 'geo::Vec::operator()(int, int&) const',
        'geo::Vec::operator<(geo::Vec const&) const', 'geo::Vec::operator,(geo::Vec const&) const',
        'geo::Vec::operator new(unsigned long)', 'int geo::pair_sum<int, long>(int, long)', 'a::mod::f(int)',
        'arr(int (&) [3])', 'f(char const*)') {
        ok($raw{$n}, "names: list has $n") or diag $out;
    }
    my @bad;
    for my $l (@list) {
        my $name = unescape($l);
        ($st, $out, $err) = mt_cli('-v', 'enable', $pid, $l);
        push @bad, "enable '$l': $st $err" unless $st == 0 && $err eq "mcount-trace: 1 function enabled\n";
        if ($name ne 'main') {
            # (tick calls each of them every millisecond)
            my $seen = {};
            wait_for(10, sub {
                my ($s2, $o2) = mt_cli('show', $pid);
                my $f = shown_funcs($o2);
                $seen->{$_} += $f->{$_} for keys %$f;
                return %$seen;
            });
            my @other = grep { $_ ne $name } sort keys %$seen;
            push @bad, "enable '$l': traced " . join(', ', map { "'$_'" } @other) if @other;
            push @bad, "enable '$l': '$name' not traced" unless $seen->{$name};
        }
        ($st, $out, $err) = mt_cli('-v', 'disable', $pid, $l);
        push @bad, "disable '$l': $st $err" unless $st == 0 && $err eq "mcount-trace: 1 function disabled\n";
        mt_cli('show', $pid);
    }
    cmp_ok(scalar @list, '>=', 20, 'names: list prints ' . scalar(@list) . ' functions');
    is_deeply(\@bad, [], 'names: each name list prints, given back to enable, enables that function alone');
    spit("$d/go", '');
    is(stop_bg($pid, 60), 0, 'names: the program exits 0') or diag slurp("$d/err");
}

# Names as the trace prints them, on the command line and in the
# environment: one glob each.
for my $case (['-f', 'geo::Vec::dot(geo::Vec const&) const', ['geo::Vec::dot(geo::Vec const&) const']],
    ['-f', 'deep(int, int&)', ['deep(int, int&)']],
    ['-f', 'geo::Vec::operator,(geo::Vec const&) const, tick(int)',
        ['geo::Vec::operator,(geo::Vec const&) const', 'tick(int)']],
    ['-f', 'int geo::pair_sum<int, long>(int, long),a::mod::f(int)',
        ['a::mod::f(int)', 'int geo::pair_sum<int, long>(int, long)']],
    ['env', 'deep(int, int&) a::mod::f(int)', ['a::mod::f(int)', 'deep(int, int&)']],
    ['env', 'geo::Vec::operator\\ int()\\ const,f(char\\*)', ['f(char*)', 'geo::Vec::operator int() const']]) {
    my ($how, $f, $want) = @$case;
    my $t = "$dir/names-" . ++$runs . '.txt';
    my ($st, $out, $err) = $how eq 'env'
        ? traced([$names], env => { MCOUNT_TRACE_FILTER => $f, MCOUNT_TRACE_OUTPUT => $t })
        : mt_cli('run', '-o', $t, '-f', $f, '--', $names);
    is("$st $err", '0 ', "names: " . ($how eq 'env' ? 'MCOUNT_TRACE_FILTER=' : '-f ') . "'$f': no message");
    is_deeply([sort keys %{ shown_funcs(-e $t ? slurp($t) : '') }], $want, "names: '$f' traces @$want");
}

done_testing();
