#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# The control protocol (doc/control-protocol.md) through its client,
# RecordMcount::Control, against a real traced program
# (t/src/trace/protocol.c, driven on its standard input): every verb,
# each answer checked against what the tool has no part in where there
# is such a thing: the program's own call counts, the arguments it
# passes and the values its functions return, its source's call graph,
# objdump's view of its code (the functions that call the hook, and
# those calls) and readelf's of its symbols (names and addresses).  Also
# the verbs' errors, a malformed request, an unknown verb, the limits (32
# connections, 5 s for the request line, 4095 bytes a line), and a
# connection open when the process exits.
use strict;
use warnings;
no warnings q(portable);    # (64-bit addresses)
use Test::More;
use JSON::PP ();
use POSIX ();
use Socket ();
use lib 't/lib';
use TestUtil qw(run_cmd tmpdir slurp spit);
use TraceTest qw($SO $TSRC clean_env mcc_build link_prog nm_funcs func_at bias_of wait_for read_text);
use RecordMcount::Control qw(control_dir control_request open_control send_request read_answer
    REQUEST_MAX);

clean_env();
my $dir = tmpdir();
my $ctl = "$dir/ctl";
mkdir $ctl, 0700 or die "$ctl: $!";
$ENV{MCOUNT_TRACE_DIR} = $ctl;

my $prog = "$dir/proto";
mcc_build('-pg -mfentry', "$prog.o", "$TSRC/protocol.c", '-O2');
link_prog($prog, "$prog.o");

# ---- the oracles from the program's file --------------------------------

# The functions the source defines.
my @DEFINED = sort qw(main p_alpha p_beta p_gamma p_delta);

# objdump's calls to the hook: { function => [file addresses of the calls] }.
sub hook_calls {
    my ($file) = @_;
    my ($st, $out, $err) = run_cmd(['objdump', '-d', '--no-show-raw-insn', $file], env => { LC_ALL => 'C' });
    die "objdump -d $file: $err" if $st != 0;
    my (%calls, $fn);
    for (split /\n/, $out) {
        if (/\A[0-9a-f]+ <([^>]+)>:\z/) { $fn = $1; next }
        push @{ $calls{$fn} }, hex $1 if defined $fn && /\A\s*([0-9a-f]+):\s+call\s+.*<__fentry__(?:\@[\w.]+)?>/;
    }
    return \%calls;
}
my $calls = hook_calls($prog);
my @HOOKED = sort keys %$calls;
my $SITES = 0;
$SITES += @$_ for values %$calls;
my $syms = nm_funcs($prog);
is_deeply(\@HOOKED, \@DEFINED, 'objdump: the functions that call the hook are those the source defines');

# ---- the program --------------------------------------------------------

my $JS = JSON::PP->new;
pipe(my $in_r, my $in_w) or die "pipe: $!";
pipe(my $out_r, my $out_w) or die "pipe: $!";
my $pid = fork // die "fork: $!";
if ($pid == 0) {
    open(STDIN, '<&', $in_r) && open(STDOUT, '>&', $out_w) && open(STDERR, '>', "$dir/prog.err")
        or POSIX::_exit(126);
    @ENV{qw(LD_PRELOAD MCOUNT_TRACE_OUTPUT)} = ($SO, '');
    { no warnings q(exec); exec { $prog } $prog; }
    POSIX::_exit(127);
}
close $in_r;
close $out_w;
$in_w->autoflush(1);

# A line to the program, and the N lines it answers (60 s at most).
sub ask {
    my ($line, $n) = @_;
    print {$in_w} "$line\n";
    my @got;
    local $SIG{ALRM} = sub { die "the program did not answer '$line'\n" };
    alarm 60;
    while (@got < $n) {
        my $l = <$out_r> // last;
        chomp $l;
        push @got, $l;
    }
    alarm 0;
    return @got;
}

# run N in the program: its own counts of each function's calls, since
# the last run.
my %total = map { $_ => 0 } @DEFINED;
sub run_prog {
    my ($n) = @_;
    my ($ran, @l) = ask("run $n", 5);
    die "the program said '$ran' to run $n" unless ($ran // '') eq "ran $n";
    my %now = map { split / / } @l;
    my %d = map { $_ => $now{$_} - $total{$_} } keys %now;
    $total{$_} = $now{$_} for keys %now;
    return \%d;
}

# One request: (answer, payload).
sub req {
    my ($verb, @args) = @_;
    my $payload = '';
    my $a = control_request($pid, $verb, \@args, payload => sub { $payload .= $_[0] });
    return ($a, $payload);
}

# A request whose answer is "ok" or "ok N": the answer; a test fails
# on an error.
sub ok_req {
    my ($name, $verb, @args) = @_;
    my ($a, $p) = req($verb, @args);
    ok(!defined $a->{error}, "$name: '$verb @args' answered ok") or diag("error: $a->{error}");
    return ($a, $p);
}

# status as { NAME => VALUE }.
sub status {
    my (undef, $p) = ok_req('status', 'status');
    return { map { /\A([^:]+): (.*)\z/ ? ($1, $2) : ("?$_", '') } split /\n/, $p };
}

# show in FORMAT: the events per function { func => count } and the
# events (JSON lines decoded; text's as read_text gives them).
sub show {
    my ($fmt) = @_;
    my ($a, $p) = ok_req("show $fmt", 'show', $fmt eq 'text' ? () : $fmt);
    my (@ev, %n);
    if ($fmt eq 'text') {
        spit("$dir/show.txt", $p);
        my ($ev, $err) = read_text("$dir/show.txt", header => 0);
        is_deeply($err, [], 'show text: every line an event, in the kernel\'s format');
        @ev = @$ev;
        $n{ $_->{func} }++ for @ev;
    } elsif ($fmt eq 'json') {
        @ev = map { $JS->decode($_) } split /\n/, $p;
        $n{ $_->{func} }++ for grep { exists $_->{func} } @ev;
    } else {
        my $doc = eval { $JS->decode($p) };
        ok($doc && ref $doc->{traceEvents} eq 'ARRAY', 'show chrome: a JSON document with its traceEvents')
            or diag($@);
        # (the function tracer's events are instants, function_graph's begin and end)
        @ev = grep { ($_->{ph} // '') =~ /\A[Bi]\z/ } @{ $doc->{traceEvents} // [] };
        $n{ $_->{name} }++ for @ev;
    }
    return (\%n, \@ev);
}

# The counts of the functions named, nonzero ones only.
sub only {
    my ($d, @f) = @_;
    return { map { $_ => $d->{$_} } grep { $d->{$_} } @f };
}

ok(wait_for(20, sub { -S "$ctl/$pid" }), 'the control socket is there');
is(control_dir(), $ctl, 'control_dir: MCOUNT_TRACE_DIR');
my ($main_at) = ask('start', 1);
($main_at) = ($main_at // '') =~ /\Amain (0x[0-9a-f]+)\z/;
my $bias = bias_of($syms, 'main', hex($main_at // 0));

# ---- list, status -------------------------------------------------------

{
    my ($a, $p) = ok_req('list', 'list');
    my @names = sort split /\n/, $p;
    is($a->{count}, scalar @HOOKED, 'list: "ok N", N the functions that call the hook');
    is($a->{lines}, $a->{count}, 'list: N lines follow');
    is_deeply(\@names, \@HOOKED, 'list: the functions objdump shows calling the hook, each once');
    my $s = status();
    is($s->{pid}, $pid, 'status: pid');
    is($s->{program}, 'proto', 'status: program (its file name)');
    is($s->{sites}, $SITES, "status: sites, objdump's calls to the hook ($SITES)");
    is($s->{'sites refused'}, 0, 'status: no site refused');
    is($s->{functions}, scalar @HOOKED, 'status: functions');
    is($s->{'functions traced'}, 0, 'status: none traced at the start');
    is($s->{tracer}, 'function', 'status: the function tracer');
    is($s->{output}, '(none)', 'status: no output file');
}

# ---- enable, show (text), disable, show json ----------------------------

my @P = grep { /\Ap_/ } @HOOKED;
{
    my ($a) = ok_req('enable', 'enable', 'p_*');
    is($a->{count}, scalar @P, 'enable p_*: "ok N", N the functions of that name');
    is(status()->{'functions traced'}, scalar @P, 'status: those are traced');
    ($a) = ok_req('enable again', 'enable', 'p_*');
    is($a->{count}, 0, 'enable p_* again: none changed');
    my $d = run_prog(5);
    my ($n, $ev) = show('text');
    is_deeply($n, only($d, @P), 'show text: an event for each call the program counted');
    my @bad = grep { $_->{func} eq 'p_delta' && $_->{parent} ne 'p_gamma' } @$ev;
    is(scalar @bad, 0, 'show text: p_delta called from p_gamma, as in the source');
    ($n) = show('text');
    is_deeply($n, {}, 'show: what was shown is consumed');

    ($a) = ok_req('disable', 'disable', 'p_gamma');
    is($a->{count}, 1, 'disable p_gamma: ok 1');
    $d = run_prog(3);
    ($n, $ev) = show('json');
    is_deeply($n, only($d, qw(p_alpha p_beta p_delta)), 'show json: the calls the program counted, p_gamma\'s not');
    my @wrong = grep {
        my $f = func_at($syms, hex($_->{addr}) - $bias);
        !$f || $f->[2] ne $_->{func} || $f->[0] + $bias != hex $_->{addr};
    } @$ev;
    is(scalar @wrong, 0, 'show json: each event\'s addr is its function\'s address in readelf\'s symbols')
        or diag(explain($wrong[0]));
    @wrong = grep { my $f = func_at($syms, hex($_->{parent_addr}) - $bias); !$f || $f->[2] ne 'p_gamma' }
        grep { $_->{func} eq 'p_delta' } @$ev;
    is(scalar @wrong, 0, 'show json: p_delta\'s parent_addr is in p_gamma');
}

# ---- notrace, stop, show chrome -----------------------------------------

{
    my ($a) = ok_req('notrace', 'notrace', 'main');
    is($a->{count}, 1, 'notrace main: ok 1');
    ($a) = ok_req('enable *', 'enable', '*');
    is($a->{count}, 1, 'enable *: ok 1, p_gamma alone (main is notrace)');
    is(status()->{'functions traced'}, scalar @P, 'status: the p_ functions traced, main not');
    my $d = run_prog(2);
    my ($n, $ev) = show('chrome');
    is_deeply($n, only($d, @P), 'show chrome: an event for each call the program counted');
    my @bad = grep { $_->{name} eq 'p_delta' && ($_->{args}{parent} // '') ne 'p_gamma' } @$ev;
    is(scalar @bad, 0, 'show chrome: p_delta called from p_gamma');
    ($a) = ok_req('stop', 'stop');
    is($a->{count}, scalar @P, 'stop: "ok N", N the functions traced');
    is(status()->{'functions traced'}, 0, 'status: none traced after stop');
    run_prog(2);
    ($n) = show('text');
    is_deeply($n, {}, 'show: nothing recorded after stop');
}

# ---- tracer, retval ------------------------------------------------------

{
    my ($a, $p) = ok_req('tracer', 'tracer');
    is($p, "function\n", 'tracer: function');
    ($a, $p) = ok_req('tracer function_graph', 'tracer', 'function_graph');
    is($p, "function_graph\n", 'tracer function_graph: the new tracer said');
    is(status()->{tracer}, 'function_graph', 'status: function_graph');
    ($a, $p) = ok_req('retval', 'retval');
    is($p, "off\n", 'retval: off');
    ($a, $p) = ok_req('retval on', 'retval', 'on');
    is($p, "on\n", 'retval on: on');
    ($a) = ok_req('enable two', 'enable', 'p_gamma,p_delta');
    is($a->{count}, 2, 'enable p_gamma,p_delta: ok 2');
    my $d = run_prog(2);
    my (undef, $ev) = show('json');
    my @enter = map { $_->{func} } grep { exists $_->{func} } @$ev;
    my @exit = map { [$_->{exit}, hex $_->{retval}] } grep { exists $_->{exit} } @$ev;
    # the source: for k = 1, 2: p_gamma(k) calls p_delta(k), p_delta(k + 1);
    # p_delta(k) returns k - 1, p_gamma the sum
    is_deeply(\@enter, [('p_gamma', 'p_delta', 'p_delta') x 2], 'function_graph: the entries, in the source\'s order');
    is_deeply(\@exit, [['p_delta', 0], ['p_delta', 1], ['p_gamma', 1], ['p_delta', 1], ['p_delta', 2],
        ['p_gamma', 3]], 'function_graph: the exits with the values the functions return');
    ($a, $p) = ok_req('retval off', 'retval', 'off');
    is($p, "off\n", 'retval off: off');
    ($a, $p) = ok_req('tracer function', 'tracer', 'function');
    is($p, "function\n", 'tracer function: back');
    ok_req('stop', 'stop');
}

# ---- args, event ----------------------------------------------------------

{
    my ($a, $p) = ok_req('args', 'args');
    is($p, "0\n", 'args: 0');
    ($a, $p) = ok_req('args 2', 'args', 2);
    is($p, "2\n", 'args 2: 2');
    is(status()->{'argument words of other functions'}, 2, 'status: 2 argument words');
    ($a) = ok_req('enable p_alpha', 'enable', 'p_alpha');
    is($a->{count}, 1, 'enable p_alpha: ok 1');
    ($a) = ok_req('event', 'event', 'p_beta(long a, long b)');
    is($a->{count}, 1, 'event p_beta(long a, long b): ok 1');
    is(status()->{'function event prototypes'}, 1, 'status: one prototype');
    run_prog(3);
    my (undef, $ev) = show('json');
    my @alpha = map { hex $_->{args}[0] } grep { $_->{func} eq 'p_alpha' } @$ev;
    my @beta = map { join ' ', @{ $_->{args} // {} }{qw(a b)} } grep { $_->{func} eq 'p_beta' } @$ev;
    is_deeply(\@alpha, [1, 2, 3], 'args 2: p_alpha\'s first word is the k the program passed');
    is_deeply(\@beta, ['1 3', '2 6', '3 9'], 'event: p_beta\'s a and b, as the program passed them');
    ($a) = ok_req('event !p_beta', 'event', '!p_beta');
    is($a->{count}, 1, 'event !p_beta: ok 1');
    ($a, $p) = ok_req('args 0', 'args', 0);
    is($p, "0\n", 'args 0: 0');
    ok_req('stop', 'stop');
    show('text');
}

# ---- errors -------------------------------------------------------------

{
    my @cases = (
        [['frobnicate'], "unknown request 'frobnicate'"],
        [['x' x 600], "unknown request '" . ('x' x 600) . "'"],
        [[''], "unknown request ''"],
        [['show', 'xml'], "unknown format 'xml'"],
        [['tracer', 'nope'], "unknown tracer 'nope' (function or function_graph)"],
        [['enable'], 'no filter given, or a glob it cannot take (a leading !, an empty :mod:)'],
        [['enable', '!p_alpha'], 'no filter given, or a glob it cannot take (a leading !, an empty :mod:)'],
        [['args', 9], "'9' is not a number of argument words from 0 to 6"],
        [['retval', 'maybe'], "'maybe': not on or off"],
        [['event'], 'no prototype given'],
        # (patch and unpatch at work: t/107)
        [['patch'], 'patch needs FUNCTION and LIBRARY[:SYMBOL]'],
        [['patch', 'p_alpha', 'lib.so'], 'lib.so: not an absolute path'],
        [['patch', 'p_alpha', "$dir/none.so"], "$dir/none.so: No such file or directory"],
        [['patch', 'p_alpha', $dir], "$dir: not a regular file"],
        [['unpatch'], 'unpatch needs FUNCTION'],
        [['unpatch', 'p_alpha'], "'p_alpha': not patched, or it names several functions"],
        [['unpatch', 'no_such_function'], "'no_such_function': no function of a table has that name"],
        # (stat at work: t/108)
        [['stat'], 'the profiler has not run (stat on)'],
        [['stat', 'off'], 'the profiler is not running'],
        [['stat', 'bogus'], "unknown sort key 'bogus' (hits, time, avg, s2 or self)"],
        [['stat', 'report', 'bogus'], "unknown sort key 'bogus' (hits, time, avg, s2 or self)"],
        [['stat', 'off', 'hits', 'time'], "unknown sort key 'time' (hits, time, avg, s2 or self)"],
        [['stat', 'report', 'kernel'], "unknown sort key 'kernel' (hits, time, avg, s2 or self)"],
        [['stat', 'on', '!p_alpha'], 'a glob it cannot take (a leading !, an empty :mod:)'],
    );
    for my $c (@cases) {
        my ($verb, @args) = @{ $c->[0] };
        my ($a, $p) = req($verb, @args);
        is($a->{error}, $c->[1], "'$verb @args': error: $c->[1]");
        is($p, '', "'$verb @args': nothing after the error line");
    }
    # malformed: a line without its newline, then the end of the request
    my $fh = open_control($pid, 10);
    send_request($fh, $pid, 'status');
    shutdown($fh, 1);
    is(read_answer($fh, $pid, 10)->{error}, 'no request line', 'a request without a newline: error: no request line');
    close $fh;
    # a line of more than the server's buffer
    $fh = open_control($pid, 10);
    send_request($fh, $pid, 'enable ' . ('x' x REQUEST_MAX));
    is(read_answer($fh, $pid, 10)->{error}, 'a request of more than ' . REQUEST_MAX . ' bytes',
        'a line longer than ' . REQUEST_MAX . ' bytes: refused');
    close $fh;
    ok(!eval { control_request($pid, 'enable', ['x' x REQUEST_MAX]); 1 }, 'the client refuses to send it');
    like($@, qr/\A$pid: the request is \d+ bytes, more than the ${\REQUEST_MAX} a process takes/, '... saying why');
    # the longest line there may be is taken
    my ($a) = req('enable', 'x' x (REQUEST_MAX - length("enable \n")));
    is_deeply($a, { count => 0, lines => 0 }, 'a line of ' . REQUEST_MAX . ' bytes with its newline: ok 0');
    # and data after the newline is not read
    $fh = open_control($pid, 10);
    send_request($fh, $pid, "tracer\nfrobnicate\n");
    my $payload = '';
    my $r = read_answer($fh, $pid, 10, sub { $payload .= $_[0] });
    ok(!defined $r->{error} && $payload eq "function\n", 'one request a connection: what follows the line is ignored');
    close $fh;
}

# ---- limits: connections, the request line's time ----------------------

{
    my @idle = map { open_control($pid, 10) } 1 .. 32;
    # (told at once, and closed)
    my $fh = open_control($pid, 10);
    is(read_answer($fh, $pid, 10)->{error}, '32 connections open already, the most there may be: try again',
        'a 33rd connection is refused');
    close $fh;
    # a request sent after the refusal was closed: the refusal is read
    # all the same, not a broken pipe
    $fh = open_control($pid, 10);
    select undef, undef, undef, 0.3;
    my $sent = send_request($fh, $pid, "status\n" x 100000);
    my $r0 = read_answer($fh, $pid, 10);
    is($r0->{error}, '32 connections open already, the most there may be: try again',
        'a request written to a refused connection: the refusal is read' . ($sent ? '' : ' (after EPIPE)'));
    close $fh;
    my $a33 = control_request($pid, 'status');
    is($a33->{error}, '32 connections open already, the most there may be: try again',
        'control_request on a refused connection: the refusal, not a broken pipe');
    my $t = time;
    my $r = read_answer($idle[0], $pid, 20);
    is($r->{error}, 'no request line in 5 s', 'a connection that sends nothing is closed, said so');
    ok(time - $t <= 8, 'after 5 s');
    close $_ for @idle;
    ok(wait_for(10, sub { !defined((req('tracer'))[0]{error}) }), 'and connections are taken again');
}

# ---- the process exits with a connection open ---------------------------

{
    my $reset = POSIX::strerror(POSIX::ECONNRESET());
    # (a connection the process has taken ends, one still in its
    # socket's backlog is reset: either may be seen)
    my $fh = open_control($pid, 10);
    send_request($fh, $pid, 'sta');
    select undef, undef, undef, 0.2;
    print {$in_w} "quit\n";
    ok(!eval { read_answer($fh, $pid, 20); 1 }, 'the process exits while a request is due: no answer');
    like($@, qr/\A$pid: (?:the process closed the connection without answering|cannot read the answer: \Q$reset\E)\n\z/,
        '... said so');
    close $fh;
    is(waitpid($pid, 0), $pid, 'the program ends');
    is($?, 0, 'the program exits 0');
    ok(!-e "$ctl/$pid", 'its socket is removed');
    ok(!eval { control_request($pid, 'status'); 1 }, 'no process: no request');
    is($@, "$pid: no such process\n", '... said so');
    is(slurp("$dir/prog.err"), '', 'the program said nothing on standard error');
}

done_testing();
