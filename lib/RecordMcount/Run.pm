# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Run;
# Child processes, temporary files and signals, for every front end.
#
# Children always run in list form (no shell).  A tool's stderr is captured,
# so a failure can be reported as one "prog: file: message" line with the
# tool's own words after it, and passed through unchanged on success.
# Temporary files are registered here and removed on every exit path:
# normal exit, die, and every signal that would end the process (after
# which the process re-raises the signal, so make sees the death it
# expects).
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Message qw(error throw tool_failure fatal caught);
# (basename, dirname, find_program and shell_quote are RecordMcount::Names',
# handed on to this module's users)
use RecordMcount::Names qw(basename dirname find_program shell_quote);
# Start-up time is most of a record step's Perl time, and every front end
# runs once per object: POSIX, Errno and Config are loaded only where they
# are needed (a signal, a failed call), Fcntl not at all (inherit_open
# keeps a handle across exec through $^F), File::Basename not at all
# (RecordMcount::Names' basename and dirname).

our @EXPORT_OK = qw(run_tool start_tool finish_tool run_piped find_program
    register_temp forget_temp fork_child forget_child cleanup_temps reset_after_fork
    inherit_open interrupted basename dirname slurp_fh temp_path spawn reap
    exit_like tool_output response_file_cmd shell_quote run_inherit run_step step_done cleanup_job);

my %temps;        # path => 1
my %children;     # pid => 1
my $cleanup_pid = $$;
my $temp_seq = 0;

# A new temporary file's name, next to PATH (so that a rename into place
# stays on one file system), registered for removal on every exit path:
# DIR/.tmp_mc_NAME.PID.N.SUFFIX.  The one spelling of temporary names.
sub temp_path {
    my ($path, $suffix) = @_;
    my $tmp = dirname($path) . '/.tmp_mc_' . basename($path) . ".$$." . $temp_seq++ . ".$suffix";
    $temps{$tmp} = 1;
    return $tmp;
}

sub register_temp { $temps{$_} = 1 for @_; return }
sub forget_temp   { delete $temps{$_} for @_; return }
# Children started by fork_child are stopped with TERM and waited for on
# the way out; one that was reaped is forgotten.
sub forget_child   { delete $children{$_} for @_; return }

# fork, with the child known to cleanup_temps before it does anything:
# it waits until this process has registered it, and exits at once if
# this process died first (a signal handled between fork and the
# registration would otherwise leave it running, unknown, and writing
# temporary files after they were removed).  Returns the child's PID here,
# 0 in the child; dies if the fork fails.
sub fork_child {
    pipe(my $r, my $w) or throw("cannot create a pipe: $!");
    my $pid = fork;
    throw("cannot fork: $!") unless defined $pid;
    if ($pid == 0) {
        close $w;
        if (!sysread $r, my $go, 1) {
            require POSIX;
            POSIX::_exit(127);
        }
        close $r;
        return 0;
    }
    $children{$pid} = 1;
    syswrite $w, 'g';
    close $w;
    close $r;
    return $pid;
}

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
    # (a directory of temporary files, an LTO link's kept objects: its
    # files, then itself; read with readdir: a glob would load File::Glob
    # when this module is compiled, on every run)
    for my $t (keys %temps) {
        if (!-l $t && -d _) {
            if (opendir(my $dh, $t)) {
                unlink map { "$t/$_" } grep { !/\A\./ } readdir $dh;
                closedir $dh;
            }
            rmdir $t;
        } else {
            unlink $t;
        }
    }
    %temps = ();
    return;
}

END { cleanup_temps() }

# The signals that end a process unless handled: each removes the
# temporary files first, then ends the process by the same signal.  PIPE
# is among them: a front end whose stderr is a closed pipe (`2>&1 | head`)
# must not leave a half-done step behind.
# A signal the process inherited as ignored stays ignored.
my @FATAL_SIGNALS = grep { ($SIG{$_} // '') ne 'IGNORE' }
    qw(INT TERM HUP QUIT PIPE ALRM USR1 USR2 XCPU XFSZ VTALRM PROF);

sub _handle_signals {
    for my $sig (@FATAL_SIGNALS) {
        $SIG{$sig} = sub {
            cleanup_temps();
            require POSIX;
            exit_like(POSIX->can("SIG$sig")->());
        };
    }
    return;
}
_handle_signals();

# End this process the way a child with wait status ST ended: by its
# signal (unblocked and with its default action, so the parent sees the
# death it expects), else with its exit status.
sub exit_like {
    my ($st) = @_;
    if (my $sig = $st & 127) {
        cleanup_temps();    # (END does not run after the signal)
        require POSIX;
        POSIX::sigaction($sig, POSIX::SigAction->new('DEFAULT'));
        POSIX::sigprocmask(POSIX::SIG_UNBLOCK(), POSIX::SigSet->new($sig));
        kill $sig, $$;
        POSIX::_exit(128 + $sig);
    }
    exit($st >> 8);
}

# A command longer than OVER bytes in all (default 100,000), given as
# CMD0 @FILE instead, in GCC's response-file syntax (which the compiler
# drivers, ld and lld read): FILE, a temporary path the caller owns, is
# written.  Any other command is returned as it is.
sub response_file_cmd {
    my ($cmd, $file, $over) = @_;
    my $len = 0;
    $len += length($_) + 1 for @$cmd;
    return $cmd if $len <= ($over // 100_000);
    open(my $fh, '>', $file) or throw("$file: $!");
    print {$fh} join(' ', map { length $_ ? s/([\\\s'"])/\\$1/gr : "''" } @$cmd[1 .. $#$cmd]), "\n";
    close($fh) or throw("$file: $!");
    return [$cmd->[0], "\@$file"];
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

# Run a tool for its output; a failed tool is thrown as
# RecordMcount::Message's tool_failure tells it.
sub tool_output {
    my ($label, $what, $cmd) = @_;
    my ($st, $err, $out) = run_tool(cmd => $cmd, capture_stdout => 1);
    throw(tool_failure($label, $what, $cmd, $st, $err)) if $st != 0;
    return $out;
}

sub _anon_file {
    open(my $fh, '+>', undef) or throw("cannot create a temporary file: $!");
    return $fh;
}

# What was written to a temporary file handle, from its start.
sub slurp_fh {
    my ($fh) = @_;
    seek $fh, 0, 0;
    local $/;
    my $text = <$fh> // '';
    close $fh;
    return $text;
}

# Start a child: cmd => [argv], with the given handles as its stdin,
# stdout and stderr (in, out, err; undef: inherit); handles opened with
# inherit_open stay open in it.  Tools run with LC_ALL=C (their output is
# parsed); locale => 'inherit' leaves the environment alone (a compiler
# speaking to the user).  path => the program to run (default: cmd's
# first word, looked up in PATH); if it cannot be run, the child says
# "cannot run NAME: why" (as this command's own message with own_failure,
# else bare, as a tool's words are) and exits fail_status (127).
sub spawn {
    my (%o) = @_;
    my @cmd = @{ $o{cmd} };
    my $pid = fork_child();
    if ($pid == 0) {
        local $SIG{__DIE__};
        $SIG{$_} = 'DEFAULT' for @FATAL_SIGNALS;
        # dup2 onto 0, 1 and 2 (perl keeps the standard handles' numbers)
        open(STDIN, '<&', $o{in})   if $o{in};
        open(STDOUT, '>&', $o{out}) if $o{out};
        open(STDERR, '>&', $o{err}) if $o{err};
        $ENV{LC_ALL} = 'C' unless ($o{locale} // '') eq 'inherit';
        # by its path: the kernel's execvp would try each PATH entry in turn
        my $prog = $o{path} // find_program($cmd[0]) // $cmd[0];
        { no warnings 'exec'; exec { $prog } @cmd; }
        my $why = "cannot run $cmd[0]: $!";
        if ($o{own_failure}) { error($why) } else { print STDERR "$why\n" }
        require POSIX;
        POSIX::_exit($o{fail_status} // 127);
    }
    return $pid;
}

# $!{EINTR}, without loading Errno on every run (only a failed call asks).
sub interrupted {
    my $err = $! + 0;
    require Errno;
    return $err == Errno::EINTR();
}

# Wait for a child started by spawn; its wait status (-1: none).
sub reap {
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
    my $pid = spawn(cmd => $o{cmd}, err => $err, out => $out);
    return { pid => $pid, err => $err, out => $out };
}

sub finish_tool {
    my ($job) = @_;
    my $st = reap($job->{pid});
    return ($st, slurp_fh($job->{err}), $job->{out} ? slurp_fh($job->{out}) : undef);
}

# Run producer | consumer.  Returns (producer status, its stderr, consumer
# status, its stderr, its stdout).
sub run_piped {
    my (%o) = @_;
    pipe(my $r, my $w) or throw("cannot create a pipe: $!");
    my ($perr, $cerr, $cout) = (_anon_file(), _anon_file(), _anon_file());
    my $ppid = spawn(cmd => $o{producer}, out => $w, err => $perr);
    my $cpid = spawn(cmd => $o{consumer}, in => $r, out => $cout, err => $cerr);
    close $r;
    close $w;
    my $cst = reap($cpid);
    my $pst = reap($ppid);
    return ($pst, slurp_fh($perr), $cst, slurp_fh($cerr), slurp_fh($cout));
}

# Run a command as a compiler wrapper runs the compiler (mcount-cc's
# compiles, the split's): with this process's standard handles and
# environment, the locale included (the compiler speaks to the user),
# and call while => SUB here as it runs.
# cmd, path as spawn takes them.  Returns the command's wait status.  A
# command that cannot be started or run is said as this command's own
# message, and ends this process with fail_status (the wrapper's own
# failure).
sub run_inherit {
    my (%o) = @_;
    my $pid = eval { spawn(cmd => $o{cmd}, path => $o{path}, locale => 'inherit',
        own_failure => 1, fail_status => $o{fail_status}) };
    fatal($o{fail_status}, caught($@)) unless defined $pid;
    $o{while}->() if $o{while};
    return reap($pid);
}

# A step of a job: run CMD, and die with the tool's words (LABEL: WHAT
# failed ...) if it fails, else pass its stderr (warnings) on.
sub run_step {
    my ($label, $what, $cmd) = @_;
    step_done($label, $what, $cmd, run_tool(cmd => $cmd));
    return;
}

# A finished step (its command, wait status and stderr), as run_step.
sub step_done {
    my ($label, $what, $cmd, $st, $err) = @_;
    throw(tool_failure($label, $what, $cmd, $st, $err)) if $st != 0;
    print STDERR $err if length $err;
    return;
}

# A job's temporary files ({tmp}: name => path) removed.
sub cleanup_job {
    my ($job) = @_;
    my @made = values %{ $job->{tmp} };
    unlink grep { -e } @made;
    forget_temp(@made);
    return;
}

1;
