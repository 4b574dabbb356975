#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# mcount-trace, the client side of the tracer's control protocol, against
# a fake library: a child process serving DIR/ITS-PID as the library
# would, which writes down each request line and answers from a script.
# Every verb sends its exact request line and prints the payload; the
# library's errors and broken answers; the socket directory's checks; a
# zombie and another user's process; usage; and run's environment, PID
# and exit status, and what it says of a statically linked program.
# (The library run chooses for a program of another architecture:
# t/52-cross-trace-run.t.)
use strict;
use warnings;
use Test::More;
use POSIX ();
use Socket qw(AF_UNIX SOCK_STREAM pack_sockaddr_un);
use lib 't/lib';
use TestUtil qw($TOP run_cmd tmpdir slurp spit have);
use TraceTest qw(mt_cli);

delete $ENV{$_} for grep { /^MCOUNT_TRACE_/ } keys %ENV;
delete $ENV{$_} for qw(XDG_RUNTIME_DIR RECORDMCOUNT_TRACE_LIB LD_PRELOAD);

my $tmp = tmpdir();
my $ctl = "$tmp/ctl";
mkdir $ctl or die "$ctl: $!";
chmod 0700, $ctl or die;
my $log = "$tmp/requests";

# mcount-trace ARGS with the environment changed by %$env (undef: unset)
# -> (exit status, stdout, stderr).
sub mt {
    my (@args) = @_;
    return mt_cli({ MCOUNT_TRACE_DIR => $ctl, %{ ref $args[0] eq 'HASH' ? shift @args : {} } }, @args);
}

# The fake library: serves "$dir/PID" (PID its own) and answers one
# connection per element of @answers: a string is sent after the request
# line has been read, its first line alone, then the rest a moment later
# (as the library writes them); a reference to a string sends it in one
# write; undef closes without an answer; a number N waits N seconds and
# closes.  Returns its PID once it listens.
sub fake_server {
    my ($dir, @answers) = @_;
    unlink $log;
    pipe(my $r, my $w) or die "pipe: $!";
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        close $r;
        my $path = "$dir/$$";
        socket(my $l, AF_UNIX, SOCK_STREAM, 0) or POSIX::_exit(1);
        bind($l, pack_sockaddr_un($path)) or POSIX::_exit(1);
        chmod 0600, $path;
        listen($l, 5) or POSIX::_exit(1);
        syswrite $w, "ready\n";
        close $w;
        for my $a (@answers) {
            accept(my $c, $l) or last;
            my $line = <$c>;
            open(my $lf, '>>', $log) or POSIX::_exit(1);
            print {$lf} $line // "(no request)\n";
            close $lf;
            if (!defined $a)       { }
            elsif (ref $a)         { syswrite $c, $$a }
            elsif ($a =~ /^\d+\z/) { sleep $a }
            else {
                my ($first, $rest) = $a =~ /\A([^\n]*\n?)(.*)\z/s;
                syswrite $c, $first;
                if (length $rest) {
                    select(undef, undef, undef, 0.1);
                    syswrite $c, $rest;
                }
            }
            close $c;
        }
        unlink $path;
        POSIX::_exit(0);
    }
    close $w;
    die "the fake library did not start\n" unless defined <$r>;
    return $pid;
}

sub requests { return -e $log ? slurp($log) : '' }

sub reap { my ($pid) = @_; kill 'TERM', $pid; waitpid $pid, 0; return }

# ---- every verb: the request line, the payload on stdout --------------------
my @verbs = (
    # args, answer, request line, stdout, stderr
    [[qw(list)], "ok 3\nmain\nparse_line\nstrlen_x [libx.so]\n", "list\n",
        "main\nparse_line\nstrlen_x [libx.so]\n", ''],
    [['enable', 'parse_*', 'lex_?,tok*:mod:libtok.so.1'], "ok 4\n",
        "enable parse_* lex_? tok*:mod:libtok.so.1\n", '', ''],
    [['disable', '[a-c]*'], "ok 2\n", "disable [a-c]*\n", '', ''],
    [['notrace', 'hash_*', 'cmp'], "ok 1\n", "notrace hash_* cmp\n", '', ''],
    [[qw(show)], "ok\n  prog-7  [001] 12.000001: parse_line <-main\n", "show\n",
        "  prog-7  [001] 12.000001: parse_line <-main\n", ''],
    [[qw(show --format=json)], qq(ok\n{"func":"parse_line"}\n), "show json\n",
        qq({"func":"parse_line"}\n), ''],
    [[qw(--format=json show)], undef, undef, undef, undef],    # an option of show, before it: usage
    [[qw(stop)], "ok 5\n", "stop\n", '', ''],
    [[qw(stop)], "ok 0\n", "stop\n", '', ''],
    [[qw(status)], "ok\nfunctions: 12\ntraced: 3\n", "status\n", "functions: 12\ntraced: 3\n", ''],
);
for my $v (@verbs) {
    my ($args, $answer, $req, $out_want, $err_want) = @$v;
    next unless defined $answer;
    my $pid = fake_server($ctl, $answer);
    my @a = @$args;
    my ($verb) = grep { !/^-/ } @a;
    my ($st, $out, $err) = mt($verb, $pid, grep { $_ ne $verb } @a);
    reap($pid);
    is($st, 0, "@a: exit 0") or diag $err;
    is(requests(), $req, "@a: sends '" . ($req =~ s/\n//r) . "'");
    is($out, $out_want, "@a: prints the payload");
    is($err, $err_want, "@a: prints nothing else");
}
{
    my $pid = fake_server($ctl, \"ok\nabc\n");
    my ($st, $out, $err) = mt('show', $pid, '--format=json', '--timeout=5');
    reap($pid);
    is_deeply([$st, requests(), $out], [0, "show json\n", "abc\n"],
        'options of show after the PID; an answer in one piece');
}

# -v: the count on stderr, stdout untouched
for my $c (['enable', "ok 12\n", '12 functions enabled'], ['disable', "ok 1\n", '1 function disabled'],
           ['notrace', "ok 2\n", '2 functions marked notrace'],
           ['stop', "ok 7\n", '7 functions disabled; tracing stopped']) {
    my ($verb, $answer, $msg) = @$c;
    my $pid = fake_server($ctl, $answer);
    my ($st, $out, $err) = mt('-v', $verb, $pid, $verb eq 'stop' ? () : ('f*'));
    reap($pid);
    is_deeply([$st, $out, $err], [0, '', "mcount-trace: $msg\n"], "-v $verb: '$msg' on stderr");
}
# a count of 0: a warning, whatever -v says, and still exit 0
for my $verb (qw(enable disable notrace)) {
    my $pid = fake_server($ctl, "ok 0\n");
    my ($st, $out, $err) = mt($verb, $pid, 'nosuch*');
    reap($pid);
    is($st, 0, "$verb switching nothing: exit 0");
    like($err, qr/^mcount-trace: $pid: warning: no function (enabled|disabled|marked notrace): no function matches/,
        "$verb switching nothing: a warning");
}

# ---- the library's errors and broken answers ------------------------------
{
    my $pid = fake_server($ctl, "error: bad glob 'x['\n");
    my ($st, $out, $err) = mt('enable', $pid, 'x[');
    reap($pid);
    is_deeply([$st, $out, $err], [1, '', "mcount-trace: $pid: bad glob 'x['\n"],
        "error: from the library: exit 1, its message after the PID");
}
for my $c (["hello\n", qr/unexpected answer 'hello'/, 'an unknown first line'],
           [undef, qr/the process closed the connection without answering$/, 'no answer at all'],
           ["ok 3\nmain\n", qr/the list ended after 1 of 3 functions/, 'a short list'],
           ["error:\n", qr/the request failed \(the library gave no reason\)/, 'an error without a message'],
           [3, qr/no answer for 1 second \(is the process stopped\?\)$/, 'no answer within --timeout']) {
    my ($answer, $re, $what) = @$c;
    my $pid = fake_server($ctl, $answer);
    my ($st, $out, $err) = mt('list', '--timeout=1', $pid);
    reap($pid);
    is($st, 1, "$what: exit 1");
    like($err, qr/^mcount-trace: $pid: .*$re/, "$what: says so");
}

# ---- the process and its socket --------------------------------------------
# a PID no process has: one just reaped
my $gone = fork // die;
POSIX::_exit(0) if $gone == 0;
waitpid $gone, 0;
{
    my ($st, $out, $err) = mt('status', $gone);
    is_deeply([$st, $err], [1, "mcount-trace: $gone: no such process\n"], 'a PID that does not exist');
}
# a process without a socket: this one
{
    my ($st, $out, $err) = mt('list', $$);
    is($st, 1, 'a process without a socket: exit 1');
    like($err, qr/^mcount-trace: $$: not traced by mcount-trace, or its control channel is off \(no socket \Q$ctl\E\/$$\)$/,
        'a process without a socket: not traced');
    ($st, $out, $err) = mt({ MCOUNT_TRACE_DIR => "$tmp/none" }, 'list', $$);
    like($err, qr/not traced by mcount-trace.*\(no directory \Q$tmp\E\/none\)$/,
        'no socket directory: not traced');
}
# the directory: where it is, and its checks
{
    my $xdg = "$tmp/xdg";
    mkdir $xdg or die;
    mkdir "$xdg/mcount-trace", 0700 or die;
    chmod 0700, "$xdg/mcount-trace" or die;
    my $pid = fake_server("$xdg/mcount-trace", "ok\nx: 1\n", "ok\nx: 2\n");
    my ($st, $out) = mt({ MCOUNT_TRACE_DIR => undef, XDG_RUNTIME_DIR => $xdg }, 'status', $pid);
    is_deeply([$st, $out], [0, "x: 1\n"], '$XDG_RUNTIME_DIR/mcount-trace without MCOUNT_TRACE_DIR');
    ($st, $out) = mt({ MCOUNT_TRACE_DIR => '', XDG_RUNTIME_DIR => $xdg }, 'status', $pid);
    is_deeply([$st, $out], [0, "x: 2\n"], 'an empty MCOUNT_TRACE_DIR counts as unset');
    reap($pid);
    my $err;
    ($st, $out, $err) = mt({ MCOUNT_TRACE_DIR => undef, XDG_RUNTIME_DIR => '' }, 'list', $$);
    like($err, qr{ /tmp/mcount-trace-$<\b}, 'neither variable: /tmp/mcount-trace-UID');
}
{
    my $pid = fake_server($ctl, "ok\n");
    chmod 0755, $ctl or die;
    my ($st, $out, $err) = mt('status', $pid);
    chmod 0700, $ctl or die;
    is($st, 1, 'a directory of mode 0755: exit 1');
    like($err, qr/^mcount-trace: $pid: control directory \Q$ctl\E is open to others \(mode 0755, not 0700; refused\)$/,
        'a directory of mode 0755: refused');
    chmod 0710, $ctl or die;
    ($st, $out, $err) = mt('status', $pid);
    chmod 0700, $ctl or die;
    like($err, qr/is open to others \(mode 0710/, 'a group permission bit: refused');
    is(requests(), '', 'nothing was sent to a socket in a refused directory');
    # the socket is still served: the check was the only obstacle
    ($st) = mt('status', $pid);
    is($st, 0, 'the same socket once the directory is 0700 again');
    reap($pid);
}
SKIP: {
    skip 'ownership checks need root (to give a file away)', 4 unless $> == 0;
    my $nobody = getpwnam('nobody') // skip 'no user nobody', 4;
    my $d = "$tmp/other";
    mkdir $d, 0700 or die;
    my $pid = fake_server($d, "ok\n", "ok\n");
    chown $nobody, -1, $d or die;
    my ($st, $out, $err) = mt({ MCOUNT_TRACE_DIR => $d }, 'status', $pid);
    is($st, 1, "another user's directory: exit 1");
    like($err, qr/^mcount-trace: $pid: control directory \Q$d\E belongs to user $nobody, not to you \(refused\)$/,
        "another user's directory: refused");
    chown 0, -1, $d or die;
    chown $nobody, -1, "$d/$pid" or die;
    ($st, $out, $err) = mt({ MCOUNT_TRACE_DIR => $d }, 'status', $pid);
    like($err, qr/^mcount-trace: $pid: socket \Q$d\E\/$pid belongs to user $nobody, not to you \(refused\)$/,
        "another user's socket: refused");
    is(requests(), '', "nothing was sent to another user's socket");
    reap($pid);
}
{
    # a live process (a sleeping child) whose name holds a file, then a
    # socket nobody listens on
    my $pid = fork // die;
    if ($pid == 0) { sleep 30; POSIX::_exit(0) }
    spit("$ctl/$pid", '');
    my ($st, $out, $err) = mt('status', $pid);
    like($err, qr/^mcount-trace: $pid: \Q$ctl\E\/$pid is not a socket \(refused\)$/, 'a file that is not a socket');
    unlink "$ctl/$pid";
    socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die;
    bind($s, pack_sockaddr_un("$ctl/$pid")) or die;
    close $s;
    ($st, $out, $err) = mt('status', $pid);
    is($st, 1, 'a socket nobody listens on: exit 1');
    like($err, qr/^mcount-trace: $pid: nothing answers on \Q$ctl\E\/$pid \(left by an earlier process/,
        'a socket nobody listens on: says so');
    unlink "$ctl/$pid";
    # a socket listened on but never accepted from (a stopped process):
    # the first connection waits for its answer, the next for a place in
    # the queue, and both give up after --timeout
    socket($s, AF_UNIX, SOCK_STREAM, 0) or die;
    bind($s, pack_sockaddr_un("$ctl/$pid")) or die;
    listen($s, 0) or die;
    for my $n (1, 2) {
        # (--timeout before the command, the second time)
        ($st, $out, $err) = mt($n == 1 ? ('status', '--timeout=1', $pid) : ('--timeout=1', 'status', $pid));
        is($st, 1, "a process that does not accept, connection $n: exit 1");
        like($err, qr/^mcount-trace: $pid: no answer for 1 second \(is the process stopped\?\)$/,
            "a process that does not accept, connection $n: gives up");
    }
    close $s;
    unlink "$ctl/$pid";
    reap($pid);
}

# a zombie (a child that has exited, not reaped yet) and another user's
# process have no channel: said as such, rather than "not traced"
sub proc_state {
    my ($pid) = @_;
    open(my $fh, '<', "/proc/$pid/stat") or return '';
    my ($state) = do { local $/; <$fh> } =~ /.*\)\s+(\S)/s;
    return $state // '';
}
{
    my $z = fork // die "fork: $!";
    POSIX::_exit(0) if $z == 0;
    for (1 .. 200) { last if proc_state($z) eq 'Z'; select(undef, undef, undef, 0.05) }
    is(proc_state($z), 'Z', 'a child that exited and is not reaped is a zombie');
    my ($st, $out, $err) = mt('status', $z);
    is_deeply([$st, $out, $err], [1, '', "mcount-trace: $z: a zombie (exited, not yet reaped)\n"],
        'a zombie without a socket: exit 1, says it is a zombie');
    ($st, $out, $err) = mt({ MCOUNT_TRACE_DIR => "$tmp/none" }, 'enable', $z, 'f*');
    is_deeply([$st, $err], [1, "mcount-trace: $z: a zombie (exited, not yet reaped)\n"],
        'a zombie, no socket directory: says it is a zombie');
    # its socket left behind (a process killed before its library removed it)
    socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die;
    bind($s, pack_sockaddr_un("$ctl/$z")) or die;
    close $s;
    ($st, $out, $err) = mt('list', $z);
    is_deeply([$st, $err], [1, "mcount-trace: $z: a zombie (exited, not yet reaped)\n"],
        "a zombie with its socket left: says it is a zombie, not 'nothing answers'");
    unlink "$ctl/$z";
    waitpid $z, 0;
}
SKIP: {
    # a process of another user: as root, a child that becomes nobody;
    # else PID 1, if it is not ours
    my ($other, $uid);
    if ($> == 0) {
        $uid = getpwnam('nobody') // skip "no user nobody to make another user's process", 4;
        pipe(my $r, my $w) or die "pipe: $!";
        $other = fork // die "fork: $!";
        if ($other == 0) {
            close $r;
            my $gid = getgrnam('nogroup') // $uid;
            $) = "$gid $gid";
            POSIX::setgid($gid);
            POSIX::setuid($uid);
            POSIX::_exit(1) unless $< == $uid && $> == $uid;
            syswrite $w, "ready\n";
            close $w;
            sleep 60;
            POSIX::_exit(0);
        }
        close $w;
        defined <$r> or skip 'the child could not become nobody', 4;
    } else {
        open(my $fh, '<', '/proc/1/status') or skip 'no /proc/1/status', 4;
        ($uid) = do { local $/; <$fh> } =~ /^Uid:\s+([0-9]+)/m;
        skip "PID 1 is this user's: no other user's process to look at", 4
            unless defined $uid && $uid != $>;
        $other = 1;
    }
    my ($st, $out, $err) = mt('status', $other);
    is($st, 1, "another user's process: exit 1");
    is($err, "mcount-trace: $other: another user's process (user $uid)\n",
        "another user's process: says so, not 'not traced'");
    ($st, $out, $err) = mt({ MCOUNT_TRACE_DIR => "$tmp/none" }, 'list', $other);
    is($err, "mcount-trace: $other: another user's process (user $uid)\n",
        "another user's process, no socket directory: says so");
    # a socket of ours left by an earlier process with this PID
    if ($other != 1) {
        socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die;
        bind($s, pack_sockaddr_un("$ctl/$other")) or die;
        close $s;
        ($st, $out, $err) = mt('list', $other);
        unlink "$ctl/$other";
        is($err, "mcount-trace: $other: another user's process (user $uid)\n",
            "another user's process, a socket of ours left with its PID: says so");
        kill 'KILL', $other;
        waitpid $other, 0;
    } else {
        pass("another user's process, a socket left with its PID: not tried on PID 1");
    }
}

# ---- usage --------------------------------------------------------------------
{
    my ($st, $out, $err) = mt('--help');
    is($st, 0, '--help: exit 0');
    like($out, qr/^Usage: mcount-trace run .*^  enable .*default: mcount-trace\.txt in the current/ms,
        '--help: the usage, the default trace file');
    is($err, '', '--help: nothing on stderr');
    ($st, $out) = mt('show', '--help');
    like($out, qr/^Usage: mcount-trace/, '--help after a command');
    ($st, $out, $err) = mt('--version');
    is($st, 0, '--version: exit 0');
    like($out, qr/^mcount-trace \(recordmcount\) \d+\.\d+\.\d+\n\z/, '--version: the version');
}
for my $c ([[], qr/no command given/],
           [['frobnicate', 1], qr/unknown command 'frobnicate'/],
           [['list'], qr/no PID given/],
           [['list', 'abc'], qr/'abc' is not a process ID/],
           [['list', '0'], qr/'0' is not a process ID/],
           [['list', 1, 2], qr/too many arguments: list takes a PID only/],
           [['enable', 1], qr/enable needs a GLOB/],
           [['enable', 1, '!foo'], qr/'!foo': a leading ! is not supported/],
           [['disable', 1, 'foo:mod:'], qr/'foo:mod:': :mod: needs a module name/],
           [['notrace', 1, ','], qr/empty GLOB ','/],
           [['show', '--format=xml', 1], qr/--format must be text, json or chrome, not 'xml'/],
           [['list', '--format=json', 1], qr/--format applies to show only/],
           [['--format=xml', 'show', 1], qr/--format must be text, json or chrome, not 'xml'/],
           [['--timeout=1', 'run', 'true'], qr/--timeout is not an option of run/],
           [['run', '--timeout=3', 'true'], qr/--timeout is not an option of run/],
           [['run', '-v', '--timeout', '3', '--', 'true'], qr/--timeout is not an option of run/],
           [['run', '--timeout'], qr/--timeout is not an option of run/],
           [['--bogus', 'list', 1], qr/unrecognized option '--bogus'/],
           [['list', '--timeout=soon', 1], qr/--timeout must be a number of seconds, not 'soon'/],
           [['list', '--bogus', 1], qr/unrecognized option '--bogus'/],
           [['list', '-Z', 1], qr/invalid option -- 'Z'/],
           [['list', '--Z', 1], qr/unrecognized option '--Z'/],
           [['run', '-Z', 'prog', '--Z'], qr/invalid option -- 'Z'/],    # (the second is prog's)
           [['run'], qr/no PROGRAM given/],
           [['run', '-b', '0', 'true'], qr/--buffer must be a number of events from 16 to 2\^30, not '0'/],
           [['run', '-b', '15', 'true'], qr/--buffer must be a number of events from 16 to 2\^30, not '15'/],
           [['run', '-b', 2**30 + 1, 'true'], qr/--buffer must be a number of events from 16 to 2\^30, not '1073741825'/],
           [['run', '-f', '!x', 'true'], qr/'!x': a leading ! is not supported/],
           [['run', '--pid-file=', 'true'], qr/--pid-file needs a file name/],
           [['run', '-o'], qr/option requires an argument -- 'o'/],
           [['list', '--timeout'], qr/option '--timeout' requires an argument/]) {
    my ($args, $re) = @$c;
    my ($st, $out, $err) = mt(@$args);
    is($st, 2, "usage '@$args': exit 2");
    like($err, qr/^mcount-trace: $re.*\nTry 'mcount-trace --help' for more information\.\n\z/s,
        "usage '@$args': says why, and where to look");
    is($out, '', "usage '@$args': nothing on stdout");
}

# ---- run ------------------------------------------------------------------------
# the library: an empty shared object (a file ld.so cannot load would do,
# with its complaint on stderr)
my $lib = "$tmp/lib dir/libfake.so";
mkdir "$tmp/lib dir" or die;
my $lib2 = "$tmp/libfake.so";
spit("$tmp/empty.c", "int mcount_trace_fake;\n");
if (!(have('cc') && (run_cmd(['cc', '-shared', '-fPIC', '-o', $lib2, "$tmp/empty.c"]))[0] == 0)) {
    spit($lib2, '');
}
spit($lib, slurp($lib2));
my $work = "$tmp/work";
mkdir $work or die;
my $pidfile = "$tmp/pid";
# A program that prints its PID, the variables of interest and its
# arguments, and exits 3.
my @show = ($^X, '-e', 'print "pid=$$\n"; print "$_=$ENV{$_}\n" for sort grep { /^(MCOUNT_TRACE_|LD_PRELOAD)/ } keys %ENV;'
    . ' print "arg=$_\n" for @ARGV; exit 3', '--', '-f', 'x');

# mcount-trace run in $work -> (exit status, { variable => value, pid, args }, stderr)
sub run_env {
    my (@args) = @_;
    my $env = ref $args[0] eq 'HASH' ? shift @args : {};
    my ($st, $out, $err) = mt({ RECORDMCOUNT_TRACE_LIB => $lib2, %$env },
        'run', '--pid-file', $pidfile, @args);
    my %v;
    for (split /\n/, $out) {
        my ($k, $v) = /^([^=]+)=(.*)\z/ or next;
        if ($k eq 'arg') { push @{ $v{args} }, $v } else { $v{$k} = $v }
    }
    return ($st, \%v, $err);
}
{
    unlink $pidfile;
    my ($st, $v, $err) = run_env({ LD_PRELOAD => 'libother.so', MCOUNT_TRACE_FILTER => 'stale',
            MCOUNT_TRACE_CONTROL => '0', MCOUNT_TRACE_DIR => $ctl },
        '-f', 'parse_*,lex_*', '-f', 'tok:mod:libtok.so', '-N', 'hash_*', '-b', '4096',
        '-o', "$work/trace.txt", '--', @show);
    is($st, 3, "run: the program's exit status");
    is($v->{LD_PRELOAD}, "libother.so $lib2", 'run: the library appended to LD_PRELOAD, space separated');
    is($v->{MCOUNT_TRACE_FILTER}, 'parse_* lex_* tok:mod:libtok.so', 'run: -f into MCOUNT_TRACE_FILTER');
    is($v->{MCOUNT_TRACE_NOTRACE}, 'hash_*', 'run: -N into MCOUNT_TRACE_NOTRACE');
    is($v->{MCOUNT_TRACE_BUFFER}, '4096', 'run: -b into MCOUNT_TRACE_BUFFER');
    is($v->{MCOUNT_TRACE_FORMAT}, 'text', 'run: MCOUNT_TRACE_FORMAT text by default');
    is($v->{MCOUNT_TRACE_OUTPUT}, "$work/trace.txt", 'run: -o into MCOUNT_TRACE_OUTPUT');
    ok(!exists $v->{MCOUNT_TRACE_CONTROL}, 'run: an inherited MCOUNT_TRACE_CONTROL removed');
    is($v->{MCOUNT_TRACE_DIR}, $ctl, 'run: MCOUNT_TRACE_DIR left as it is');
    is_deeply($v->{args}, ['-f', 'x'], "run: the program's arguments are its own");
    ok(-s $pidfile, 'run: --pid-file written');
    is(slurp($pidfile), "$v->{pid}\n", "run: the program has mcount-trace's PID (--pid-file)");
}
{
    # relative paths made absolute, from the directory run is started in
    my ($st, $out, $err) = run_cmd(['sh', '-c', 'cd "$1" && shift && exec "$@"', 'sh', $work,
        $^X, "$TOP/bin/mcount-trace", 'run', '--', @show], env => { RECORDMCOUNT_TRACE_LIB => '../libfake.so' });
    my %v = map { /^([^=]+)=(.*)\z/ ? ($1 => $2) : () } split /\n/, $out;
    is($st >> 8, 3, 'run from another directory: exit status 3');
    is($v{LD_PRELOAD}, $lib2, 'run: the library path made absolute');
    is($v{MCOUNT_TRACE_OUTPUT}, "$work/mcount-trace.txt",
        'run: the default output, mcount-trace.txt in the current directory, absolute');
    ok(!exists $v{MCOUNT_TRACE_FILTER} && !exists $v{MCOUNT_TRACE_NOTRACE} && !exists $v{MCOUNT_TRACE_BUFFER},
        'run: no -f, -N, -b: their variables unset');
}
{
    my ($st, $v) = run_env({ MCOUNT_TRACE_OUTPUT => 'stale' }, '-o', '', '--format=json', '--no-control', @show);
    ok(!exists $v->{MCOUNT_TRACE_OUTPUT}, "run -o '': no MCOUNT_TRACE_OUTPUT");
    is($v->{MCOUNT_TRACE_FORMAT}, 'json', 'run --format=json');
    is($v->{MCOUNT_TRACE_CONTROL}, '0', 'run --no-control: MCOUNT_TRACE_CONTROL=0');
    ($st, $v) = run_env('-o', '-', @show);
    is($v->{MCOUNT_TRACE_OUTPUT}, '-', 'run -o -: standard error');
    ($st, $v) = run_env({ LD_PRELOAD => "$lib2:libz.so" }, '--format=json', @show);
    like($v->{MCOUNT_TRACE_OUTPUT}, qr{/mcount-trace\.json\z}, 'run --format=json: mcount-trace.json by default');
    is($v->{LD_PRELOAD}, "$lib2:libz.so", 'run: a library already in LD_PRELOAD is not added again');
    my $err;
    ($st, $v, $err) = run_env('-v', @show);
    like($err, qr/^mcount-trace: LD_PRELOAD=\Q$lib2\E\n.*^mcount-trace: MCOUNT_TRACE_OUTPUT=/ms,
        'run -v: the variables it sets, on stderr');
}
{
    unlink $pidfile;
    my ($st, $v, $err) = run_env({ RECORDMCOUNT_TRACE_LIB => "$tmp/nosuch.so" }, @show);
    is($st, 1, 'run without the library: exit 1');
    is($err, "mcount-trace: $tmp/nosuch.so: tracing library not found (run make, or set RECORDMCOUNT_TRACE_LIB)\n",
        'run without the library: says where it looked');
    ok(!-e $pidfile, 'run without the library: no PID file');
    ($st, $v, $err) = run_env({ RECORDMCOUNT_TRACE_LIB => $lib }, @show);
    is($st, 1, 'a library path with a space: exit 1');
    like($err, qr/the library's path has a space or a colon/, 'a library path with a space: refused');
    ($st, $v, $err) = run_env("$tmp/no-such-program");
    is($st, 127, 'run a program that does not exist: exit 127');
    is($err, "mcount-trace: $tmp/no-such-program: cannot run: No such file or directory\n",
        'run a program that does not exist: says so');
    ok(!-e $pidfile, 'run a program that does not exist: its PID file removed');
    ($st, $v, $err) = run_env($work);
    is($st, 126, 'run a directory: exit 126');
    ($st, $v, $err) = run_env({}, '--pid-file', "$tmp/nodir/pid", @show);
    is($st, 1, 'run with an unwritable --pid-file: exit 1');
    like($err, qr{^mcount-trace: \Q$tmp\E/nodir/pid: cannot write the process ID: }, 'an unwritable --pid-file: says so');
    # a request longer than the library's line: refused before anything
    my ($lst, undef, $lerr) = mt({}, 'enable', '1', join(',', map { "f$_" } 1 .. 1000));
    is($lst, 2, 'a request of 4900 bytes: usage error');
    like($lerr, qr/^mcount-trace: the request is 4900 bytes, more than the 4095 a process takes/,
        'a request of 4900 bytes: says so');
    # a trace file that cannot be written: the program is not run
    for my $bad (["$tmp/nodir/trace.txt", 'No such file or directory'], [$tmp, 'Is a directory']) {
        my ($f, $why) = @$bad;
        unlink $pidfile;
        ($st, $v, $err) = run_env({}, '-o', $f, @show);
        is($st, 1, "run -o $f: exit 1");
        is($err, "mcount-trace: $f: cannot write the trace: $why\n", "run -o $f: says so");
        ok(!-e $pidfile, "run -o $f: the program did not run");
    }
    ($st, $v, $err) = run_env({}, '-o', "$tmp/made.txt", "$tmp/no-such-program");
    is($st, 127, 'run -o FILE a program that does not exist: exit 127');
    ok(!-e "$tmp/made.txt", 'run -o FILE a program that does not exist: no FILE made');
}

# ---- run: a statically linked program ----
# No dynamic linker runs in it to read LD_PRELOAD: it runs untraced, and
# that is said (named by its path or found through PATH, and a static
# PIE too), but it passes the variables on: a dynamic program it runs is
# traced (the real library, a static launcher that execs it).  The same
# program linked dynamically, a script, and the dynamic linker run as a
# program (a shared object without PT_INTERP) run with nothing said.
SKIP: {
    skip 'no gcc', 19 unless have('gcc');
    my $c = "$tmp/marker.c";
    spit($c, "#include <stdio.h>\n"
        . "int main(int argc, char **argv) { FILE *f = argc > 1 ? fopen(argv[1], \"w\") : 0;\n"
        . "  if (f) fclose(f); return 0; }\n");
    my ($st, $o, $e) = run_cmd(['gcc', '-static', '-o', "$tmp/static_prog", $c]);
    is($st, 0, 'gcc -static builds a program') or diag $e;
    my $static_msg = sub { "mcount-trace: $_[0]: warning: statically linked: LD_PRELOAD cannot load "
        . "libmcount-trace.so into it, so it is not traced (the dynamic programs it runs are); link "
        . "libmcount-trace.a in to trace it\n" };
    my $v;
    unlink $pidfile, "$tmp/ran";
    ($st, $v, $e) = run_env('-f', 'main', '-o', "$work/st.txt", '--', "$tmp/static_prog", "$tmp/ran");
    is($st, 0, 'run a static program: its exit status');
    is($e, $static_msg->("$tmp/static_prog"), 'run a static program: says it is not traced, and what to do');
    ok(-e "$tmp/ran" && -e $pidfile, 'run a static program: it ran');
    unlink "$tmp/ran";
    ($st, $v, $e) = run_env({ PATH => "$tmp:$ENV{PATH}" }, '-o', '', 'static_prog', "$tmp/ran");
    is_deeply([$st, $e], [0, $static_msg->("$tmp/static_prog")], 'a static program found through PATH: said too');
    unlink "$tmp/ran";
    SKIP: {
        ($st, $o, $e) = run_cmd(['gcc', '-static-pie', '-o', "$tmp/static_pie", $c]);
        skip 'gcc -static-pie builds nothing here', 2 unless $st == 0;
        ($st, $v, $e) = run_env('-o', '', "$tmp/static_pie", "$tmp/ran");
        is_deeply([$st, $e], [0, $static_msg->("$tmp/static_pie")], 'run a static PIE: said');
        ok(-e "$tmp/ran", 'run a static PIE: it ran');
        unlink "$tmp/ran";
    }
    # a static launcher: the dynamic program it execs is traced
    spit("$tmp/launch.c", "#include <unistd.h>\nint main(int argc, char **argv) { (void)argc; "
        . "execv(argv[1], argv + 1); return 127; }\n");
    ($st, $o, $e) = run_cmd(['gcc', '-static', '-o', "$tmp/launch", "$tmp/launch.c"]);
    is($st, 0, 'gcc -static builds a launcher') or diag $e;
    spit("$tmp/leafy.c", "__attribute__((noinline)) int leaf(int x) { __asm__ volatile(\"\"); return x + 1; }\n"
        . "int main(void) { int s = 0; for (int i = 0; i < 4; i++) s += leaf(i); return s == 10 ? 0 : 1; }\n");
    ($st, $o, $e) = run_cmd(["$TOP/bin/mcount-cc", 'gcc', '-O2', '-o', "$tmp/leafy", "$tmp/leafy.c"]);
    is($st, 0, 'mcount-cc builds a dynamic program') or diag $e;
    ($st, $o, $e) = mt({ RECORDMCOUNT_TRACE_LIB => undef }, 'run', '-f', 'leaf', '-o', "$work/launched.txt", '--',
        "$tmp/launch", "$tmp/leafy");
    is_deeply([$st, $e], [0, $static_msg->("$tmp/launch")], 'run a static launcher: exit 0, said of the launcher');
    is(scalar(() = slurp("$work/launched.txt") =~ /: leaf <-main$/mg), 4,
        'run a static launcher: the dynamic program it execs is traced');
    ($st, $o, $e) = run_cmd(['gcc', '-o', "$tmp/dynamic_prog", $c]);
    is($st, 0, 'gcc builds the program linked dynamically') or diag $e;
    ($st, $v, $e) = run_env('-o', '', "$tmp/dynamic_prog", "$tmp/ran");
    is_deeply([$st, $e], [0, ''], 'run the dynamic program: exit 0, nothing said');
    ok(-e "$tmp/ran", 'run the dynamic program: it ran');
    unlink "$tmp/ran";
    spit("$tmp/script", "#!/bin/sh\n: > \"\$1\"\nexit 4\n");
    chmod 0755, "$tmp/script" or die;
    ($st, $v, $e) = run_env('-o', '', "$tmp/script", "$tmp/ran");
    is_deeply([$st, $e], [4, ''], 'run a #! script: run as before (its exit status, nothing said)');
    ok(-e "$tmp/ran", 'run a #! script: it ran');
    unlink "$tmp/ran";
    SKIP: {
        skip 'no readelf', 3 unless have('readelf');
        my ($interp) = (run_cmd(['readelf', '-l', "$tmp/dynamic_prog"]))[1] =~ /program interpreter: ([^\]\s]+)\]/;
        skip 'no dynamic linker found', 3 unless defined $interp && -x $interp;
        ($st, $o, $e) = run_cmd(['readelf', '-l', $interp]);
        unlike($o, qr/\bINTERP\b/, "the dynamic linker $interp has no PT_INTERP");
        ($st, $v, $e) = run_env('-o', '', $interp, "$tmp/dynamic_prog", "$tmp/ran");
        is_deeply([$st, $e], [0, ''], 'run the dynamic linker as a program: not refused');
        ok(-e "$tmp/ran", 'run the dynamic linker as a program: the program it loads ran');
        unlink "$tmp/ran";
    }
}
{
    # --timeout after PROGRAM is PROGRAM's
    my ($st, $v, $err) = run_env(@show[0 .. 3], '--timeout=3');
    is_deeply([$st, $v->{args}, $err], [3, ['--timeout=3'], ''], "run: --timeout after PROGRAM is PROGRAM's argument");
}

done_testing();
