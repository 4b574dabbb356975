package RecordMcount::Run;
# Child processes, temporary files and signals, for every front end.
#
# Children always run in list form (no shell).  A tool's stderr is captured,
# so a failure can be reported as one "prog: file: message" line with the
# tool's own words after it, and passed through unchanged on success.
# Temporary files are registered here and removed on every exit path:
# normal exit, die, and SIGINT/SIGTERM/SIGHUP (after which the process
# re-raises the signal, so make sees the death it expects).
use strict;
use warnings;

use Exporter 'import';
use Fcntl qw(F_GETFD F_SETFD FD_CLOEXEC);
# POSIX is loaded only where it is needed (a signal, a failed exec): it
# costs more start-up time than the rest of a record step's Perl.

our @EXPORT_OK = qw(run_tool start_tool finish_tool run_piped find_program status_text
    register_temp forget_temp cleanup_temps reset_after_fork tool_name);

my %temps;        # path => 1
my %children;     # pid => 1
my $cleanup_pid = $$;

sub register_temp { $temps{$_} = 1 for @_; return }
sub forget_temp   { delete $temps{$_} for @_; return }

# In a child forked without exec that goes on to record objects: make it
# the process that cleans up, owning none of its parent's temporary files
# or children (the parent still removes those).
sub reset_after_fork {
    %temps = ();
    %children = ();
    $cleanup_pid = $$;
    return;
}

sub cleanup_temps {
    return unless $$ == $cleanup_pid;
    for my $pid (keys %children) {
        kill 'TERM', $pid;
        waitpid $pid, 0;
    }
    %children = ();
    unlink $_ for keys %temps;
    %temps = ();
    return;
}

END { cleanup_temps() }

for my $sig (qw(INT TERM HUP)) {
    $SIG{$sig} = sub {
        cleanup_temps();
        require POSIX;
        # die of the same signal; it is blocked while its handler runs
        my $num = POSIX->can("SIG$sig")->();
        $SIG{$sig} = 'DEFAULT';
        POSIX::sigprocmask(POSIX::SIG_UNBLOCK(), POSIX::SigSet->new($num));
        kill $sig, $$;
        POSIX::_exit(128 + $num);
    };
}

# "exited 1", "killed by signal 9 (KILL)" for a wait status.
sub status_text {
    my ($st) = @_;
    return 'could not be run' if $st == -1;
    if ($st & 127) {
        my $n = $st & 127;
        require Config;
        my @names = split ' ', $Config::Config{sig_name};
        return "killed by signal $n" . ($names[$n] ? " ($names[$n])" : '');
    }
    return 'exited ' . ($st >> 8);
}

sub tool_name {
    my ($cmd) = @_;
    return $cmd->[0] =~ s{.*/}{}sr;
}

# The full path of a program, searching PATH when it has no slash.
sub find_program {
    my ($name) = @_;
    return undef unless defined $name && length $name;
    if ($name =~ m{/}) {
        return -f $name && -x _ ? $name : undef;
    }
    for my $dir (split /:/, $ENV{PATH} // '', -1) {
        my $p = (length $dir ? $dir : '.') . "/$name";
        return $p if -f $p && -x _;
    }
    return undef;
}

sub _anon_file {
    open(my $fh, '+>', undef) or die "cannot create a temporary file: $!\n";
    return $fh;
}

sub _slurp_back {
    my ($fh) = @_;
    seek $fh, 0, 0;
    local $/;
    my $text = <$fh> // '';
    close $fh;
    return $text;
}

# Start a child with the given handles as its stdin/stdout/stderr (undef:
# inherit).  Extra handles listed in keep => [...] stay open across exec.
sub _spawn {
    my (%o) = @_;
    my @cmd = @{ $o{cmd} };
    for my $fh (@{ $o{keep} // [] }) {
        my $flags = fcntl($fh, F_GETFD, 0);
        fcntl($fh, F_SETFD, $flags & ~FD_CLOEXEC) if defined $flags;
    }
    my $pid = fork;
    die "cannot fork: $!\n" unless defined $pid;
    if ($pid == 0) {
        local $SIG{__DIE__};
        $SIG{$_} = 'DEFAULT' for qw(INT TERM HUP PIPE);
        # dup2 onto 0, 1 and 2 (perl keeps the standard handles' numbers)
        open(STDIN, '<&', $o{in})   if $o{in};
        open(STDOUT, '>&', $o{out}) if $o{out};
        open(STDERR, '>&', $o{err}) if $o{err};
        $ENV{LC_ALL} = 'C';
        { no warnings 'exec'; exec { $cmd[0] } @cmd; }
        print STDERR "cannot run $cmd[0]: $!\n";
        require POSIX;
        POSIX::_exit(127);
    }
    $children{$pid} = 1;
    return $pid;
}

# $!{EINTR}, without loading Errno on every run (only a failed call asks).
sub _interrupted {
    my $err = $! + 0;
    require Errno;
    return $err == Errno::EINTR();
}

sub _reap {
    my ($pid) = @_;
    my $r;
    do { $r = waitpid $pid, 0 } while ($r == -1 && _interrupted());
    delete $children{$pid};
    return $r == $pid ? $? : -1;
}

# Run one tool.  Returns (wait status, captured stderr, captured stdout).
sub run_tool {
    my (%o) = @_;
    return finish_tool(start_tool(%o));
}

# The same in two halves, so that independent steps run at the same time:
# start_tool(same options) -> job; finish_tool(job) -> what run_tool returns.
sub start_tool {
    my (%o) = @_;
    my $err = _anon_file();
    my $out = $o{capture_stdout} ? _anon_file() : undef;
    my $pid = _spawn(cmd => $o{cmd}, err => $err, out => $out, keep => $o{keep});
    return { pid => $pid, err => $err, out => $out };
}

sub finish_tool {
    my ($job) = @_;
    my $st = _reap($job->{pid});
    return ($st, _slurp_back($job->{err}), $job->{out} ? _slurp_back($job->{out}) : undef);
}

# Run producer | consumer.  Returns (producer status, its stderr, consumer
# status, its stderr, its stdout).
sub run_piped {
    my (%o) = @_;
    pipe(my $r, my $w) or die "cannot create a pipe: $!\n";
    my ($perr, $cerr, $cout) = (_anon_file(), _anon_file(), _anon_file());
    my $ppid = _spawn(cmd => $o{producer}, out => $w, err => $perr, keep => $o{keep});
    my $cpid = _spawn(cmd => $o{consumer}, in => $r, out => $cout, err => $cerr, keep => $o{keep});
    close $r;
    close $w;
    my $cst = _reap($cpid);
    my $pst = _reap($ppid);
    return ($pst, _slurp_back($perr), $cst, _slurp_back($cerr), _slurp_back($cout));
}

1;
