#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# Function events: the arguments libmcount-trace records, against what
# the functions themselves were given.  t/src/trace/args.c calls four
# functions with arguments from a seeded generator (integers of every
# width and sign, strings with quotes, escapes, bytes above 0x7f, longer
# than the trace keeps, NULL and unreadable pointers, nine arguments of
# which three are on the stack) and each writes its arguments to a log
# first thing: the oracle.  For each hook (-mfentry, mcount), PIE and
# -no-pie, preloaded and linked in (the prototypes given by the C API),
# every call's recorded arguments, read from the text trace and from the
# JSON lines, are the logged ones.  Also: the raw words of
# MCOUNT_TRACE_ARGS; function_graph's entries; "!GLOB"; prototypes given
# live through mcount-trace event; refused prototypes and their
# messages; lost-event accounting with arguments; Chrome's args.
use strict;
use warnings;
no warnings 'portable';    # 64-bit values through hex()
use Test::More;
use JSON::PP ();
use Math::BigInt;
use lib 't/lib';
use TestUtil qw($TOP must run_cmd tmpdir slurp spit);
use TraceTest qw($MCC $SO $LIBA $RTINC $TSRC clean_env mcc_build link_prog traced start_bg stop_bg
    wait_for mt_cli read_log read_text_args read_json_args read_graph_text against_log san_prog @ARGS_PROTO
    %ARGS_NAMES);

clean_env();
my $dir = tmpdir();
my $src = "$TSRC/args.c";
my @PROTO = @ARGS_PROTO;
my $PROTOS = join ';', @PROTO;
my %NAMES = %ARGS_NAMES;

must('gcc', '-O2', '-o', "$dir/plain", $src);
my $want = must("$dir/plain", 11, "$dir/plain.log", 40);

# The return values logged: [[name, value]...].
sub read_returns {
    my ($file) = @_;
    return [map { /\A=(\w+)\t(-?\d+)\z/ ? [$1, $2] : ['?', ''] } grep { /^=/ } split /\n/, slurp($file)];
}

my $JS = JSON::PP->new->allow_bignum;

# ---- builds ----

my @hooks = (['fentry', '-pg -mfentry'], ['mcount', '-pg']);
for my $h (@hooks) {
    my ($hn, $flags) = @$h;
    mcc_build($flags, "$dir/$hn.o", $src, '-O2');
    link_prog("$dir/$hn", "$dir/$hn.o");
    mcc_build($flags, "$dir/$hn-nopie.o", $src, '-O2', '-fno-pie');
    link_prog("$dir/$hn-nopie", "$dir/$hn-nopie.o", '-no-pie');
    mcc_build($flags, "$dir/$hn-api.o", $src, '-O2', '-DWITH_API', "-I$RTINC");
    link_prog("$dir/$hn-api", "$dir/$hn-api.o", $LIBA, '-lpthread');
}

# One traced run: the program, its argv after SEED LOG ROUNDS, env.
sub run_traced {
    my ($tag, $prog, $fmt, $env, @extra) = @_;
    my $msg = delete $env->{msg} // qr/\A\z/;
    my $log = "$dir/$tag.log";
    my $out = "$dir/$tag.$fmt";
    my $preload = $prog !~ /-api\z/;
    my ($st, $o, $e) = traced([$prog, 11, $log, 40, @extra], preload => $preload,
        env => { MCOUNT_TRACE_FORMAT => $fmt, MCOUNT_TRACE_OUTPUT => $out, MCOUNT_TRACE_CONTROL => 0,
            %$env });
    is($st, 0, "$tag: runs") or diag($e);
    is($o, $want, "$tag: prints what the plain build prints");
    like($e, $msg, "$tag: the messages expected") or diag($e);
    return ($out, read_log($log));
}

for my $h (@hooks) {
    my $hn = $h->[0];
    for my $v (['', {}], ['-nopie', {}], ['-api', {}]) {
        my ($suffix) = @$v;
        my $prog = "$dir/$hn$suffix";
        my %env = $suffix eq '-api' ? () : (MCOUNT_TRACE_EVENTS => $PROTOS);
        my @extra = $suffix eq '-api' ? ($PROTOS) : ();
        for my $fmt ('text', 'json') {
            my $tag = "$hn$suffix-$fmt";
            my ($out, $log) = run_traced($tag, $prog, $fmt, \%env, @extra);
            my ($ev, $bad) = $fmt eq 'text' ? read_text_args($out) : read_json_args($out, \%NAMES);
            is_deeply($bad, [], "$tag: every line well formed") or diag(explain([@$bad[0 .. 2]]));
            against_log($tag, $ev, $log, \%NAMES);
        }
    }
}

# ---- raw words: MCOUNT_TRACE_ARGS=6, no prototype ----
{
    my ($out, $log) = run_traced('raw', "$dir/fentry", 'json', { MCOUNT_TRACE_FILTER => 'ints many',
        MCOUNT_TRACE_ARGS => 6 });
    my @want = grep { $_->[0] eq 'ints' || $_->[0] eq 'many' } @$log;
    my @ev = map { $JS->decode($_) } grep { length } split /\n/, slurp($out);
    is(scalar @ev, scalar @want, 'raw: an event for each call of ints and many');
    my $bad = 0;
    for my $i (0 .. $#want) {
        my ($fn, $vals) = @{ $want[$i] };
        my $w = $ev[$i]{args};
        if ($ev[$i]{func} ne $fn || ref $w ne 'ARRAY' || @$w != 6 || grep { !/\A0x[0-9a-f]+\z/ } @$w) {
            $bad++;
            diag("raw: event $i: $ev[$i]{func} (" . (ref $w eq "ARRAY" ? "@$w" : "no array") . "), logged $fn");
            next;
        }
        # a register's bits beyond its argument's width are anything
        my @bits = $fn eq 'many' ? (64) x 6 : (32, 64, 32, 16, 8, 64);
        for my $k (0 .. 5) {
            my $mask = Math::BigInt->new(2)->bpow($bits[$k])->bsub(1);
            my $got = Math::BigInt->from_hex($w->[$k])->band($mask);
            my $exp = Math::BigInt->new($vals->[$k]);
            $exp->badd(Math::BigInt->new(2)->bpow($bits[$k])) if $exp->is_neg;
            next if $got->bcmp($exp) == 0;
            $bad++;
            diag("raw: call $i of $fn, word $k: $w->[$k], logged $vals->[$k]");
        }
    }
    is($bad, 0, 'raw: the six argument words are the logged arguments');
}

# ---- function_graph: the entries carry the arguments ----
{
    my ($out, $log) = run_traced('graph', "$dir/fentry", 'json', { MCOUNT_TRACE_EVENTS => $PROTOS,
        MCOUNT_TRACE_TRACER => 'function_graph' });
    my ($ev, $bad) = read_json_args($out, \%NAMES);
    is_deeply($bad, [], 'graph: every line well formed');
    against_log('graph (JSON)', $ev, $log, \%NAMES);
    my ($tout) = run_traced('graph-text', "$dir/fentry", 'text', { MCOUNT_TRACE_EVENTS => $PROTOS,
        MCOUNT_TRACE_TRACER => 'function_graph' });
    my (undef, $gerr) = read_graph_text($tout);
    is_deeply($gerr, [], 'graph (text): every line the kernel\'s');
    my @lines = grep { /\|\s+(ints|strs|many|flags)\(/ } split /\n/, slurp($tout);
    is(scalar @lines, 160, 'graph (text): a line for each call, with its arguments');
    my $ok = grep { /\|\s+ints\(a=-?\d+, b=-?\d+, c=\d+, d=-?\d+, e=-?\d+, f=\d+\);\z/ } @lines;
    is($ok, 40, 'graph (text): ints(a=..., ...); for each leaf call of ints');
}

# ---- return values: function_graph's exits (MCOUNT_TRACE_RETVAL=1) ----
# Each function logs what it returns; an int's value is in the return
# register's low 32 bits (the ABI leaves the others undefined).
{
    my %rv = (MCOUNT_TRACE_TRACER => 'function_graph', MCOUNT_TRACE_FILTER => 'ints strs many flags',
        MCOUNT_TRACE_RETVAL => 1);
    my ($out) = run_traced('retval', "$dir/fentry", 'json', {%rv});
    my $rets = read_returns("$dir/retval.log");
    my @x = grep { defined $_->{exit} } map { $JS->decode($_) } grep { length } split /\n/, slurp($out);
    is(scalar @x, scalar @$rets, 'retval (JSON): an exit for each return');
    my $bits = sub { my ($fn) = @_; Math::BigInt->new(2)->bpow($fn eq 'many' ? 64 : 32) };
    my $want = sub { my ($fn, $v) = @_; Math::BigInt->new($v)->bmod($bits->($fn)) };
    my $bad = 0;
    for my $i (0 .. $#$rets) {
        my ($fn, $v) = @{ $rets->[$i] };
        my $x = $x[$i] // {};
        my $got = ($x->{retval} // '') =~ /\A0x[0-9a-f]+\z/ ? Math::BigInt->from_hex($x->{retval}) : undef;
        next if ($x->{exit} // '') eq $fn && $got && $got->bmod($bits->($fn))->bcmp($want->($fn, $v)) == 0;
        diag("retval: return $i of $fn: logged $v, exit " . ($x->{exit} // '?') . ' ' . ($x->{retval} // 'none'))
            if $bad++ < 3;
    }
    is($bad, 0, 'retval (JSON): each exit carries the return value logged');
    # text: funcgraph-retval's "name(); /* = V */", an error code in decimal
    my ($tout) = run_traced('retval-text', "$dir/fentry", 'text', { %rv,
        MCOUNT_TRACE_FILTER => "$rv{MCOUNT_TRACE_FILTER} main" });
    my (undef, $rerr) = read_graph_text($tout);
    is_deeply($rerr, [], 'retval (text): every line the kernel\'s');
    like(slurp($tout), qr/\|  \} \/\* main = 0x0 \*\/\n\z/, 'retval (text): } /* main = 0x0 */ at the end');
    my @v = map { /\| +(\w+)\(\); \/\* = (-?\d+|0x[0-9a-f]+) \*\/\z/ ? [$1, $2] : () } split /\n/, slurp($tout);
    is(scalar @v, scalar @$rets, 'retval (text): each call a leaf line with its value');
    my ($errs, $tbad) = (0, 0);
    for my $i (0 .. $#$rets) {
        my ($fn, $v) = @{ $rets->[$i] };
        my ($tfn, $t) = @{ $v[$i] // ['', ''] };
        my $ok = $tfn eq $fn && ($v < 0 && $v >= -4095 ? $t eq $v : $t =~ /\A0x/
            && Math::BigInt->from_hex($t)->bmod($bits->($fn))->bcmp($want->($fn, $v)) == 0);
        $errs++ if $v < 0 && $v >= -4095;
        $tbad++ unless $ok;
    }
    ok($errs > 0, "retval (text): the log has error codes ($errs)");
    is($tbad, 0, 'retval (text): each value as the kernel writes it (error codes in decimal, else hex)');
}

# ---- !GLOB: the prototype comes off; the function stays traced ----
{
    my ($out, $log) = run_traced('drop', "$dir/fentry", 'text', { MCOUNT_TRACE_EVENTS => "$PROTOS;!strs" });
    my ($ev, $bad) = read_text_args($out);
    is_deeply($bad, [], 'drop: every line well formed');
    my @s = grep { $_->[0] eq 'strs' } @$ev;
    is(scalar(@s), 40, 'drop: strs still traced');
    is(scalar(grep { defined $_->[1] } @s), 0, 'drop: without its arguments');
    is(scalar(grep { $_->[0] eq 'ints' && $_->[1] } @$ev), 40, 'drop: ints keeps its arguments');
}

# ---- Chrome: the typed arguments among the event's args ----
{
    my ($out, $log) = run_traced('chrome', "$dir/fentry", 'chrome', { MCOUNT_TRACE_EVENTS => $PROTO[0] });
    my $doc = eval { $JS->decode(slurp($out)) };
    ok($doc && ref $doc->{traceEvents} eq 'ARRAY', 'chrome: a JSON document') or diag($@);
    my @i = grep { ($_->{name} // '') eq 'ints' } @{ $doc->{traceEvents} // [] };
    my @want = grep { $_->[0] eq 'ints' } @$log;
    is(scalar @i, scalar @want, 'chrome: an event for each call of ints');
    my $bad = grep { my $w = shift @want;
        join(' ', map { "$_" } @{ $_->{args} }{qw(a b c d e f)}) ne join(' ', @{ $w->[1] }) } @i;
    is($bad, 0, 'chrome: the arguments are the logged ones');
}

# ---- lost events with arguments: counted as events ----
{
    my ($out, $log) = run_traced('lost', "$dir/fentry", 'json', { MCOUNT_TRACE_EVENTS => $PROTOS,
        MCOUNT_TRACE_BUFFER => 64, msg => qr/\Amcount-trace: (\d+) events lost: their threads' buffers were full/ });
    my ($kept, $lost) = (0, 0);
    for my $l (split /\n/, slurp($out)) {
        my $e = $JS->decode($l);
        if (exists $e->{lost}) { $lost += $e->{lost} } else { $kept++ }
    }
    ok($lost > 0, "lost: a 64-slot buffer loses events ($lost)");
    is($kept + $lost, scalar @$log, 'lost: events kept and events lost are the calls');
}

# ---- live: mcount-trace event on a running program ----
{
    my $ctl = "$dir/ctl";
    mkdir $ctl, 0700;
    local $ENV{MCOUNT_TRACE_DIR} = $ctl;
    my $gate = "$dir/gate";
    my $pid = start_bg(["$dir/fentry", 11, "$dir/live.log", 40], out => "$dir/live.out",
        err => "$dir/live.err", env => { LD_PRELOAD => $SO, MCOUNT_TRACE_DIR => $ctl,
            MCOUNT_TRACE_OUTPUT => "$dir/live.txt", ARGS_GATE => $gate });
    ok(wait_for(20, sub { -S "$ctl/$pid" }), 'live: the control socket is there');
    my ($c, $o, $e) = mt_cli('event', $pid, $PROTO[1], $PROTO[2]);
    is($c, 0, 'live: mcount-trace event PID PROTO PROTO') or diag($e);
    ($c, $o, $e) = mt_cli('event', $pid, 'ints(double x)');
    is($c, 1, 'live: a floating-point parameter is refused');
    like($e, qr/\Amcount-trace: $pid: 'double x': a floating-point argument is passed in a vector register/,
        'live: ... saying why');
    ($c, $o, $e) = mt_cli('event', $pid, 'ints(int a');
    is($c, 2, 'live: a prototype without its parenthesis is a usage error');
    ($c, $o, $e) = mt_cli('args', $pid, 9);
    is($c, 2, 'live: args 9 is a usage error');
    # (the command takes up to 8, which some architectures allow; x86_64 6)
    ($c, $o, $e) = mt_cli('args', $pid, 7);
    is($c, 1, 'live: args 7 is refused on x86_64');
    like($e, qr/\Amcount-trace: $pid: '7' is not a number of argument words from 0 to 6$/m, 'live: ... saying how many it takes');
    ($c, $o, $e) = mt_cli('status', $pid);
    like($o, qr/^function event prototypes: 2$/m, 'live: status counts the prototypes');
    spit($gate, '');
    is(stop_bg($pid, 120), 0, 'live: the program ends well');
    my ($ev, $bad) = read_text_args("$dir/live.txt");
    is_deeply($bad, [], 'live: every line well formed');
    my @log = grep { $_->[0] eq 'strs' || $_->[0] eq 'many' } @{ read_log("$dir/live.log") };
    against_log('live', $ev, \@log, \%NAMES);
}

# ---- under ASan and UBSan (the library built with them, the hot path
# excepted), and under valgrind: the same oracle ----
{
    san_prog("$dir/san", $src);
    my ($st, $o, $e) = traced(["$dir/san", 11, "$dir/san.log", 40, $PROTOS], preload => 0,
        env => { MCOUNT_TRACE_FORMAT => 'json', MCOUNT_TRACE_OUTPUT => "$dir/san.json",
            MCOUNT_TRACE_CONTROL => 0, ASAN_OPTIONS => 'detect_leaks=0',
            UBSAN_OPTIONS => 'print_stacktrace=1:halt_on_error=1' });
    is($st, 0, 'ASan+UBSan: runs') or diag($e);
    is($e, '', 'ASan+UBSan: no report') or diag($e);
    my ($ev, $bad) = read_json_args("$dir/san.json", \%NAMES);
    is_deeply($bad, [], 'ASan+UBSan: every line well formed');
    against_log('ASan+UBSan', $ev, read_log("$dir/san.log"), \%NAMES);

    ($st, $o, $e) = run_cmd(['valgrind', '-q', '--error-exitcode=9', '--smc-check=all', '--leak-check=no',
        '--trace-children=yes', 'env', "LD_PRELOAD=$SO", "$dir/fentry", 11, "$dir/vg.log", 10], env => {
        MCOUNT_TRACE_OUTPUT => "$dir/vg.txt", MCOUNT_TRACE_EVENTS => $PROTOS, MCOUNT_TRACE_CONTROL => 0 });
    is($st, 0, 'valgrind: no error') or diag($e);
    ($ev, $bad) = read_text_args("$dir/vg.txt");
    is_deeply($bad, [], 'valgrind: every line well formed');
    against_log('valgrind', $ev, read_log("$dir/vg.log"), \%NAMES);
}

# ---- refused prototypes, at start-up ----
for my $c (['f(float x)', qr/'float x': a floating-point argument/],
    ['ints(struct s v)', qr/'struct s v': a struct or union passed by value/],
    ['ints(frob x)', qr/'frob x': no such type 'frob'/],
    ['ints(int a', qr/'ints\(int a': not FUNCTION\(TYPE NAME, \.\.\.\)/],
    ['(int a)', qr/'\(int a\)': no function/]) {
    my ($p, $re) = @$c;
    my ($st, $o, $e) = traced(["$dir/fentry", 11, "$dir/bad.log", 2],
        env => { MCOUNT_TRACE_EVENTS => $p, MCOUNT_TRACE_OUTPUT => "$dir/bad.txt",
            MCOUNT_TRACE_CONTROL => 0 });
    is($st, 0, "refused '$p': the program still runs");
    like($e, qr/\Amcount-trace: MCOUNT_TRACE_EVENTS: $re/, "refused '$p': the message says why");
}

done_testing();
