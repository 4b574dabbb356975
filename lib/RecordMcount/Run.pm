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
# Start-up time is most of a record step's Perl time, and every front end
# runs once per object: POSIX, Errno and Config are loaded only where they
# are needed (a signal, a failed call), Fcntl not at all (inherit_open
# keeps a handle across exec through $^F), File::Basename not at all
# (basename and dirname below).

our @EXPORT_OK = qw(run_tool start_tool finish_tool run_piped find_program status_text
    register_temp forget_temp register_child forget_child cleanup_temps reset_after_fork
    tool_name inherit_open interrupted basename dirname);

my %temps;        # path => 1
my %children;     # pid => 1
my $cleanup_pid = $$;

sub register_temp { $temps{$_} = 1 for @_; return }
sub forget_temp   { delete $temps{$_} for @_; return }
# Children started without _spawn (mcount-record's -j workers): stopped
# with TERM and waited for on the way out, as the tools are.
sub register_child { $children{$_} = 1 for @_; return }
sub forget_child   { delete $children{$_} for @_; return }

# In a child forked without exec that goes on to record objects: make it
# the process that cleans up, owning none of its parent's temporary files
# or children (the parent still removes those), with this module's
# signal handlers.
sub reset_after_fork {
    %temps = ();
    %children = ();
    $cleanup_pid = $$;
    _handle_signals();
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

sub _handle_signals {
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
    return;
}
_handle_signals();

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

# File::Basename's answers for the names this project handles (no trailing
# slash), without loading it.
sub basename { return $_[0] =~ s{.*/}{}sr }
sub dirname {
    my ($p) = @_;
    return '.' unless $p =~ m{/};
    $p =~ s{/+[^/]*\z}{};
    return length $p ? $p : '/';
}

# open(my $fh, '<', PATH), with the descriptor left open across exec, so
# that children can read it as /dev/fd/N (perl marks descriptors above $^F
# close-on-exec when it opens them).
sub inherit_open {
    my ($path) = @_;
    local $^F = 1 << 30;
    open(my $fh, '<', $path) or return undef;
    return $fh;
}

sub tool_name {
    my ($cmd) = @_;
    return $cmd->[0] =~ s{.*/}{}sr;
}

# The full path of a program, searching PATH when it has no slash.
# Looked up once per name (and PATH) in a process.
my %found;
sub find_program {
    my ($name) = @_;
    return undef unless defined $name && length $name;
    if ($name =~ m{/}) {
        return -f $name && -x _ ? $name : undef;
    }
    my $path = $ENV{PATH} // '';
    my $key = "$name\0$path";
    return $found{$key} if exists $found{$key};
    for my $dir (split /:/, $path, -1) {
        my $p = (length $dir ? $dir : '.') . "/$name";
        return $found{$key} = $p if -f $p && -x _;
    }
    return $found{$key} = undef;
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
# inherit); handles opened with inherit_open stay open in it.
sub _spawn {
    my (%o) = @_;
    my @cmd = @{ $o{cmd} };
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
        # by its path: the kernel's execvp would try each PATH entry in turn
        my $prog = find_program($cmd[0]) // $cmd[0];
        { no warnings 'exec'; exec { $prog } @cmd; }
        print STDERR "cannot run $cmd[0]: $!\n";
        require POSIX;
        POSIX::_exit(127);
    }
    $children{$pid} = 1;
    return $pid;
}

# $!{EINTR}, without loading Errno on every run (only a failed call asks).
sub interrupted {
    my $err = $! + 0;
    require Errno;
    return $err == Errno::EINTR();
}

sub _reap {
    my ($pid) = @_;
    my $r;
    do { $r = waitpid $pid, 0 } while ($r == -1 && interrupted());
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
    my $pid = _spawn(cmd => $o{cmd}, err => $err, out => $out);
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
    my $ppid = _spawn(cmd => $o{producer}, out => $w, err => $perr);
    my $cpid = _spawn(cmd => $o{consumer}, in => $r, out => $cout, err => $cerr);
    close $r;
    close $w;
    my $cst = _reap($cpid);
    my $pst = _reap($ppid);
    return ($pst, _slurp_back($perr), $cst, _slurp_back($cerr), _slurp_back($cout));
}

1;
