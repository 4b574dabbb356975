# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Control;
# The client side of libmcount-trace's control protocol; the server is
# rt/control.c, and doc/control-protocol.md is the protocol: where a
# process's socket is, the checks made before connecting to it, one
# request line "VERB[ ARG...]\n", then a first answer line "ok", "ok N"
# or "error: MESSAGE", then payload until the server closes the
# connection.  Also how a filter's globs are put on the request line.
#
# What stops a request (no such process, no channel, a directory or a
# socket that is not the user's, no answer in time, a connection closed
# without an answer, an answer of another version) dies with
# "PID: message\n"; an answer "error: MESSAGE" is returned, not died of.
use strict;
use warnings;

use Socket qw(AF_UNIX SOCK_STREAM pack_sockaddr_un);
use RecordMcount::Exports;
use RecordMcount::Front qw(plural);
use RecordMcount::Message qw(throw);

our @EXPORT_OK = qw(control_dir open_control send_request read_answer control_request
    request_line request_too_long split_globs REQUEST_MAX);

# A request is one line of at most 4095 bytes with its newline (the
# library's buffer); a socket's address holds a path of 107 bytes.
sub REQUEST_MAX () { 4095 }
sub SUN_PATH_MAX () { 107 }

# The socket directory, as the library chooses it.
sub control_dir {
    return $ENV{MCOUNT_TRACE_DIR} if length($ENV{MCOUNT_TRACE_DIR} // '');
    return "$ENV{XDG_RUNTIME_DIR}/mcount-trace" if length($ENV{XDG_RUNTIME_DIR} // '');
    return '/tmp/mcount-trace-' . $<;
}

# One failure of the request to PID.
sub _fail { my ($pid, $msg) = @_; throw("$pid: $msg") }

# The request line of VERB and its ARGS, newline included.
sub request_line {
    my ($verb, @args) = @_;
    return join(' ', $verb, @args) . "\n";
}

# Why the request VERB ARGS is more than a process takes, or undef.
sub request_too_long {
    my $len = length request_line(@_);
    return undef if $len <= REQUEST_MAX;
    return "the request is $len bytes, more than the " . REQUEST_MAX
        . ' a process takes: give the globs in several calls';
}

# ---- globs on the request line ----------------------------------------------

# The globs of an argument, as the library reads a filter (rt/sites.c,
# mcount-trace(1) FILTERS): an argument holds several, separated by
# commas that are neither escaped (a backslash: the next character as it
# is) nor inside the brackets of a name, ( ) < > [ ] { }, an operator's
# own characters not counted ("operator<", "operator,"); its white space
# is the glob's ("peek() const"), but around a glob.  Each is given with
# the white space the library would split at (outside brackets) escaped;
# empty ones are left out.
my @OPS = ('->*', '<<=', '>>=', '<=>', '()', '[]', '->', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||',
    '++', '--', '+=', '-=', '*=', '/=', '%=', '^=', '&=', '|=', qw(+ - * / % ^ & | ~ ! = < >), ',');
my %OPEN = ('(' => ')', '<' => '>', '[' => ']', '{' => '}');
my %CLOSE = reverse %OPEN;

# The length of an operator's token after "operator" at $i of $s (0: none).
sub _op_token {
    my ($s, $i) = @_;
    return 0 unless substr($s, $i, 8) eq 'operator' && ($i == 0 || substr($s, $i - 1, 1) !~ /\w/)
        && substr($s, $i + 8, 1) !~ /\w/;
    for my $op (@OPS) {
        return length $op if substr($s, $i + 8, length $op) eq $op;
    }
    return 0;
}

sub split_globs {
    my ($s) = @_;
    my (@g, @cur);                 # @cur: the units of the glob so far
    my %depth = map { $_ => 0 } keys %OPEN;
    my $i = 0;
    my $end = sub {
        # (white space around a glob is no part of it)
        shift @cur while @cur && $cur[0] =~ /\A[ \t\n]\z/;
        pop @cur while @cur && $cur[-1] =~ /\A[ \t\n]\z/;
        push @g, join '', map { /\A[ \t\n]\z/ ? "\\$_" : $_ } @cur;
        @cur = ();
    };
    while ($i < length $s) {
        my $c = substr($s, $i, 1);
        my $t = _op_token($s, $i);
        if ($c eq '\\' && $i + 1 < length $s) {
            push @cur, substr($s, $i, 2);
            $i += 2;
        } elsif ($t) {
            push @cur, substr($s, $i, 8 + $t);
            $i += 8 + $t;
        } elsif ($c eq ',' && !grep { $_ } values %depth) {
            $end->();
            $i++;
        } else {
            my $top = !grep { $_ } values %depth;
            $depth{$c}++ if $OPEN{$c};
            $depth{ $CLOSE{$c} }-- if $CLOSE{$c} && $depth{ $CLOSE{$c} };
            # white space the library would split at, marked for the escape
            push @cur, $top && $c =~ /[ \t\n]/ ? $c : $c =~ /[ \t\n]/ ? "\0$c" : $c;
            $i++;
        }
    }
    $end->();
    return map { s/\0//gr } grep { length } @g;
}

# ---- the socket -------------------------------------------------------------

# Why the process PID can have no control channel of ours, from
# /proc/PID: it is a zombie, or another user's (the library answers only
# its own user: its real user ID, the one compared with the peer's;
# NOT_OURS: kill(PID, 0) was refused); undef when neither is seen.
sub _no_channel_why {
    my ($pid, $not_ours) = @_;
    my ($uid, $threads);
    if (open(my $fh, '<', "/proc/$pid/status")) {
        while (<$fh>) {
            ($uid) = /^Uid:\s+([0-9]+)/ if /^Uid:/;
            ($threads) = /^Threads:\s+([0-9]+)/ if /^Threads:/;
        }
    }
    if (open(my $fh, '<', "/proc/$pid/stat")) {
        # the state follows the last ')', that of the command's name
        # (which may hold one itself); a process whose first thread
        # ended (pthread_exit) shows Z while its other threads run
        my ($state) = (do { local $/; <$fh> } // '') =~ /.*\)\s+(\S)/s;
        return 'a zombie (exited, not yet reaped)' if ($state // '') eq 'Z' && ($threads // 1) <= 1;
    }
    $uid //= (stat "/proc/$pid")[4];
    return "another user's process (user $uid)" if defined $uid && $uid != $>;
    return "another user's process" if $not_ours;
    return undef;
}

# open_control(PID, TIMEOUT) -> a socket connected to PID's control
# channel.  The process first (a socket left by one that is gone says
# nothing), then the directory and the socket, checked from inside: what
# is checked is what is used, whatever the path leads to when it is
# looked at again (a directory in /tmp can be replaced by anyone who
# could create its name first).  The working directory is the control
# directory's meanwhile, and given back after when it could be opened.
# TIMEOUT (seconds, 0: none) bounds the connect, which a full backlog
# (a process that stopped accepting) blocks.
sub open_control {
    my ($pid, $timeout) = @_;
    my $dir = control_dir();
    my $sock = "$dir/$pid";
    # the library opens no channel at a longer path (it says so), and
    # never one at a path cut short (which would be another directory's)
    _fail($pid, "control directory $dir is too long for a socket: $sock has " . length($sock)
        . ' bytes, more than the ' . SUN_PATH_MAX . " of a socket's address") if length($sock) > SUN_PATH_MAX;
    my $not_ours;
    if (!kill(0, $pid)) {
        _fail($pid, 'no such process') if $!{ESRCH};
        $not_ours = $!{EPERM};
    }
    my $off = 'not traced by mcount-trace, or its control channel is off';
    my $back;
    opendir($back, '.') or undef $back;
    my $fh = eval {
        if (!chdir $dir) {
            _fail($pid, _no_channel_why($pid, $not_ours) // "$off (no directory $dir)") if $!{ENOENT};
            _fail($pid, "cannot enter the control directory $dir: $!");
        }
        my @d = stat '.' or _fail($pid, "cannot read the control directory $dir: $!");
        _fail($pid, "control directory $dir belongs to user $d[4], not to you (refused)") if $d[4] != $>;
        _fail($pid, sprintf('control directory %s is open to others (mode %04o, not 0700; refused)',
            $dir, $d[2] & 07777)) if $d[2] & 077;
        my @s = lstat $pid;
        if (!@s) {
            _fail($pid, _no_channel_why($pid, $not_ours) // "$off (no socket $sock)") if $!{ENOENT};
            _fail($pid, "cannot read the socket $sock: $!");
        }
        _fail($pid, "$sock is not a socket (refused)") unless -S _;
        _fail($pid, "socket $sock belongs to user $s[4], not to you (refused)") if $s[4] != $>;
        socket(my $s, AF_UNIX, SOCK_STREAM, 0) or _fail($pid, "cannot create a socket: $!");
        my $connected = do {
            local $SIG{ALRM} = sub { _fail($pid, 'no answer for ' . plural($timeout, 'second')
                . ' (is the process stopped?)') };
            alarm $timeout;
            my $ok = eval { connect($s, pack_sockaddr_un($pid)) };
            my ($e, $err) = ($@, $!);
            alarm 0;
            die $e if $e;
            $! = $err;
            $ok;
        };
        if (!$connected) {
            _fail($pid, _no_channel_why($pid, $not_ours)
                // "nothing answers on $sock (left by an earlier process with this PID?)") if $!{ECONNREFUSED};
            _fail($pid, "cannot connect to $sock: $!");
        }
        $s;
    };
    my $e = $@;
    chdir $back if $back;
    die $e unless $fh;
    return $fh;
}

# send_request(FH, PID, BYTES): BYTES (a request line, or anything
# else) written whole -> 1; 0 with $! set if the process closed the
# connection first (it may have said why: a refusal is sent and closed
# before any request is read).
sub send_request {
    my ($fh, $pid, $request) = @_;
    local $SIG{PIPE} = 'IGNORE';
    my $at = 0;
    while ($at < length $request) {
        my $n = syswrite($fh, $request, length($request) - $at, $at);
        return 0 if !defined $n && ($!{EPIPE} || $!{ECONNRESET});
        _fail($pid, "cannot send the request: $!") unless defined $n;
        $at += $n;
    }
    return 1;
}

# The next bytes from FH ('' at its end); fails after TIMEOUT seconds
# without any (0: waits for ever).
sub _next_bytes {
    my ($fh, $pid, $timeout) = @_;
    my $rbits = '';
    vec($rbits, fileno($fh), 1) = 1;
    while (1) {
        if ($timeout) {
            my $n = select(my $r = $rbits, undef, undef, $timeout);
            next if $n < 0 && $!{EINTR};
            _fail($pid, "cannot wait for the answer: $!") if $n < 0;
            _fail($pid, 'no answer for ' . plural($timeout, 'second') . ' (is the process stopped?)') if $n == 0;
        }
        my $n = sysread($fh, my $buf, 65536);
        next if !defined $n && $!{EINTR};
        _fail($pid, "cannot read the answer: $!") unless defined $n;
        return $buf;
    }
}

# read_answer(FH, PID, TIMEOUT, PAYLOAD) -> { count => N or undef,
# lines => payload lines } after an "ok" or "ok N", the payload given to
# PAYLOAD (a sub) as it comes until the server closes the connection; or
# { error => MESSAGE } after an "error: MESSAGE".  TIMEOUT: seconds
# without a byte after which it gives up (0: never).
sub read_answer {
    my ($fh, $pid, $timeout, $payload) = @_;
    my ($buf, $eof) = ('', 0);
    while ($buf !~ /\n/) {
        my $more = _next_bytes($fh, $pid, $timeout);
        if (!length $more) {
            _fail($pid, 'the process closed the connection without answering') unless length $buf;
            $eof = 1;
            last;
        }
        $buf .= $more;
    }
    $buf =~ s/\A([^\n]*)\n?//;
    my $first = $1;
    my $count;
    if ($first =~ /^error: ?(.*)\z/s) {
        return { error => length $1 ? $1 : 'the request failed (the library gave no reason)' };
    } elsif ($first =~ /^ok(?: ([0-9]+))?\z/) {
        $count = $1;
    } else {
        _fail($pid, "unexpected answer '$first' (is this process's library another version?)");
    }
    # the payload, as it comes (the first line may have come alone)
    my $lines = 0;
    until ($eof) {
        $lines += $buf =~ tr/\n//;
        $payload->($buf) if $payload && length $buf;
        $buf = _next_bytes($fh, $pid, $timeout);
        $eof = !length $buf;
    }
    return { count => $count, lines => $lines };
}

# control_request(PID, VERB, [ARGS], timeout => SECONDS, payload => SUB)
# -> read_answer's answer to the request VERB ARGS sent to PID (dies
# when it cannot be sent or answered; timeout: 10 s unless given).
sub control_request {
    my ($pid, $verb, $args, %o) = @_;
    my $request = request_line($verb, @{ $args // [] });
    my $long = request_too_long($verb, @{ $args // [] });
    _fail($pid, $long) if defined $long;
    my $timeout = $o{timeout} // 10;
    my $fh = open_control($pid, $timeout);
    if (!send_request($fh, $pid, $request)) {
        # the refusal it sent before closing, if it did
        my $why = "$!";
        my $answer = eval { read_answer($fh, $pid, $timeout) };
        close $fh;
        return $answer if $answer && $answer->{error};
        _fail($pid, "cannot send the request: $why");
    }
    my $answer = read_answer($fh, $pid, $timeout, $o{payload});
    close $fh;
    return $answer;
}

1;
