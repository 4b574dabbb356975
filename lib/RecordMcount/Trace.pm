# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Trace;
# mcount-trace's modes: run (the program, with libmcount-trace.so
# preloaded and the library's variables set from the options, exec'd in
# this process's place), attach (the library loaded into a running
# process by the helper mcount-attach, then its status), the verbs of the control socket (list,
# enable, disable, notrace, show, tracer, event, args, retval, stop,
# status, detach): their arguments checked, the request sent through
# RecordMcount::Control, the answer printed as it comes; and replay,
# report and info, a recording read by mcount-read.
use strict;
use warnings;

use Errno qw(EISDIR EACCES ENOENT);
use RecordMcount::Exports;
use RecordMcount::Front qw(plural trace_lib_for attach_helper_path reader_path);
use RecordMcount::Message qw(error warning fatal bad_usage);
# (RecordMcount::Elf is loaded by run alone: the other verbs read no file)
use RecordMcount::Control qw(split_globs control_request request_too_long control_dir);

our @EXPORT_OK = qw(run_program attach_process control_command read_recording tracer_known);

my %TRACER = map { $_ => 1 } qw(function function_graph);

sub tracer_known { return $TRACER{ $_[0] } }

# The globs of the arguments (RecordMcount::Control's split_globs),
# checked for what the protocol cannot carry.
sub _globs {
    my (@args) = @_;
    my @g;
    for my $arg (@args) {
        my @parts = split_globs($arg);
        bad_usage("empty GLOB '$arg'") unless @parts;
        for my $g (@parts) {
            bad_usage("'$g': a leading ! is not supported (use disable or notrace)") if $g =~ /^!/;
            bad_usage("'$g': :mod: needs a module name, as in 'parse_*:mod:libfoo.so'")
                if $g =~ /(?<![:\\]):mod:\z/;
            push @g, $g;
        }
    }
    return @g;
}

# function_graph's filters (--graph-function, --depth, --time-threshold),
# checked: (the graph functions' globs, the depth, the threshold), and
# whether any is given.
my $DURATION = qr/\A[0-9]+(?:\.[0-9]+)?(?:ns|us|ms|s)?\z/;
sub _graph_filters {
    my ($opt) = @_;
    my @graph = _globs(@{ $opt->{graph_function} // [] });
    bad_usage("--depth must be a depth from 0 to 1000000, not '$opt->{depth}'")
        if defined $opt->{depth} && ($opt->{depth} !~ /\A[0-9]{1,7}\z/ || $opt->{depth} > 1000000);
    bad_usage("--time-threshold must be a duration (10us, 1.5ms, 2s; a bare number: microseconds), "
        . "not '$opt->{time_threshold}'")
        if defined $opt->{time_threshold} && $opt->{time_threshold} !~ $DURATION;
    my $any = @graph || defined $opt->{depth} || defined $opt->{time_threshold};
    bad_usage('--graph-function, --depth and --time-threshold are function_graph\'s: not with --tracer=function')
        if $any && defined $opt->{tracer} && $opt->{tracer} ne 'function_graph';
    return (\@graph, $any);
}

# Prototypes of function events, checked for what the protocol cannot
# carry (the library checks the rest).
sub _prototypes {
    my (@args) = @_;
    for my $p (@args) {
        bad_usage("'$p': a PROTOTYPE has no ';' or newline (give each one its own argument)")
            if $p =~ /[;\n]/;
        bad_usage("'$p': not FUNCTION(TYPE NAME, ...), GLOB or !GLOB")
            unless $p =~ /\)\s*\z/ || $p =~ /\A\s*!\S/ || $p =~ /\A\s*[^\s!()][^()]*\z/;
    }
    return @args;
}

# ---- run --------------------------------------------------------------------

# run_program(OPTIONS, [PROGRAM, ARG...]): PROGRAM exec'd with the
# library preloaded; returns only if it could not be, with the exit
# status to end with (1, or 126/127 as a shell's).  OPTIONS: the
# command's (filter, notrace, event, args, retval, output, format,
# tracer, buffer, wait, no_demangle, no_control, pid_file, verbose).
sub run_program {
    my ($opt, $argv) = @_;
    bad_usage('no PROGRAM given (mcount-trace run -- PROGRAM [ARG]...)') unless @$argv;
    my @filter = _globs(@{ $opt->{filter} });
    my @notrace = _globs(@{ $opt->{notrace} });
    my @event = _prototypes(@{ $opt->{event} });
    my ($graph, $graph_any) = _graph_filters($opt);
    # (each of them implies function_graph, as uftrace's -F, -D, -t do)
    $opt->{tracer} //= 'function_graph' if $graph_any;
    bad_usage("--args must be a number of argument words from 0 to 8, not '$opt->{args}'")
        if defined $opt->{args} && $opt->{args} !~ /^[0-8]\z/;
    # (the library's bounds)
    bad_usage("--buffer must be a number of events from 16 to 2^30, not '$opt->{buffer}'")
        if defined $opt->{buffer}
        && ($opt->{buffer} !~ /^[1-9][0-9]{0,9}\z/ || $opt->{buffer} < 16 || $opt->{buffer} > 2**30);
    bad_usage('--pid-file needs a file name') if defined $opt->{pid_file} && !length $opt->{pid_file};
    _sort_key($opt->{sort});
    bad_usage('--sort applies to --stat only') if defined $opt->{sort} && !defined $opt->{stat};
    _columns($opt->{columns});
    bad_usage('--columns applies to --stat only') if defined $opt->{columns} && !defined $opt->{stat};

    require Cwd;
    require File::Spec;
    # the program's own file, as exec finds it: the library is the one
    # built for its architecture (an i386 program on x86_64)
    my $file = $argv->[0];
    if ($file !~ m{/}) {
        ($file) = grep { -f $_ && -x _ } map { (length $_ ? $_ : '.') . "/$argv->[0]" }
            split /:/, $ENV{PATH} // '', -1;
    }
    # a program that links the library in (its code's own section) is
    # not given a second copy: two would each take the same sites
    require RecordMcount::Elf;
    if (!(defined $file && RecordMcount::Elf::elf_has_section($file, 'mt_fence_text'))) {
        my ($lib, $no_lib) = trace_lib_for($file // $argv->[0]);
        if (!defined $lib) {
            error($no_lib);
            return 1;
        }
        # no dynamic linker reads LD_PRELOAD for a static program: it
        # runs untraced (said), and passes the variables on to the
        # dynamic programs it runs, which are traced (a static shell,
        # busybox, a launcher)
        if (defined $file && RecordMcount::Elf::elf_static($file)) {
            warning($file, 'statically linked: LD_PRELOAD cannot load libmcount-trace.so into it, so it is '
                . 'not traced (the dynamic programs it runs are); link libmcount-trace.a in to trace it');
        }
        if (!-f $lib || !-r _) {
            error("$lib: tracing library not found (run make, or set RECORDMCOUNT_TRACE_LIB)");
            return 1;
        }
        $lib = Cwd::abs_path($lib) // $lib;
        # the program may change directory, and its children load it too
        if ($lib =~ /[\s:]/) {
            error("$lib: the library's path has a space or a colon, which LD_PRELOAD cannot hold");
            return 1;
        }
        my @preload = grep { length } split /[\s:]+/, $ENV{LD_PRELOAD} // '';
        $ENV{LD_PRELOAD} = join ' ', @preload, $lib unless grep { $_ eq $lib } @preload;
    } elsif ($opt->{verbose}) {
        error("$file links the library in: nothing preloaded");
    }

    # every variable of the library's is set from the options here, or
    # removed: none is inherited by chance (MCOUNT_TRACE_DIR excepted)
    my %env = (
        MCOUNT_TRACE_FILTER  => @filter ? join(' ', @filter) : undef,
        MCOUNT_TRACE_NOTRACE => @notrace ? join(' ', @notrace) : undef,
        MCOUNT_TRACE_EVENTS  => @event ? join(';', @event) : undef,
        MCOUNT_TRACE_ARGS    => $opt->{args},
        MCOUNT_TRACE_RETVAL  => $opt->{retval} ? 1 : undef,
        MCOUNT_TRACE_FORMAT  => $opt->{format},
        MCOUNT_TRACE_TRACER  => $opt->{tracer},
        MCOUNT_TRACE_GRAPH_FUNCTION => @$graph ? join(' ', @$graph) : undef,
        MCOUNT_TRACE_DEPTH   => $opt->{depth},
        MCOUNT_TRACE_THRESHOLD => $opt->{time_threshold},
        MCOUNT_TRACE_BUFFER  => $opt->{buffer},
        MCOUNT_TRACE_FULL    => $opt->{wait} ? 'wait' : undef,
        MCOUNT_TRACE_DEMANGLE => $opt->{no_demangle} ? '0' : undef,
        MCOUNT_TRACE_CONTROL => $opt->{no_control} ? '0' : undef,
        MCOUNT_TRACE_STAT    => defined $opt->{stat} ? (length $opt->{stat} ? join(' ', _globs($opt->{stat})) : '*')
            : undef,
        MCOUNT_TRACE_STAT_SORT => $opt->{sort},
        MCOUNT_TRACE_STAT_COLUMNS => $opt->{columns},
        # set by the library for the programs a traced one runs: the
        # program run here is a first traced process, whatever ran us
        MCOUNT_TRACE_OWNER   => undef,
        MCOUNT_TRACE_OPENED  => undef,
    );
    my $out = defined $opt->{record} ? '' : $opt->{output} // { text => 'mcount-trace.txt',
        json => 'mcount-trace.json', chrome => 'mcount-trace.chrome.json' }->{ $opt->{format} };
    # absolute: a child that forks after a chdir writes FILE.PID
    $env{MCOUNT_TRACE_OUTPUT} = !length $out ? undef : $out eq '-' ? '-' : File::Spec->rel2abs($out);
    if (defined $opt->{record}) {
        my $dir = _recording_dir($opt->{record}) // return 1;
        $env{MCOUNT_TRACE_RECORD} = $dir;
        error("recording into $dir") if $opt->{verbose};
    } else {
        $env{MCOUNT_TRACE_RECORD} = undef;
    }
    for my $k (sort keys %env) {
        if (defined $env{$k}) { $ENV{$k} = $env{$k} } else { delete $ENV{$k} }
    }
    if ($opt->{verbose}) {
        error("$_=$ENV{$_}") for grep { defined $ENV{$_} } 'LD_PRELOAD', sort keys %env;
    }
    # the trace's file, which the library opens: one that cannot be
    # written stops the run before the program starts, rather than the
    # trace being lost (looked at, not made: the program may never start)
    if (defined $env{MCOUNT_TRACE_OUTPUT} && $env{MCOUNT_TRACE_OUTPUT} ne '-') {
        my $f = $env{MCOUNT_TRACE_OUTPUT};
        my $d = $f =~ s{/[^/]*\z}{}r || '/';
        local $!;
        if (-e $f ? (-d _ ? ($! = EISDIR) : !-w _ ? ($! = EACCES) : 0)
            : !-d $d ? ($! = ENOENT) : !(-w _ && -x _) ? ($! = EACCES) : 0) {
            error("$f: cannot write the trace: $!");
            return 1;
        }
    }
    if (defined $opt->{pid_file}) {
        my $fh;
        unless (open($fh, '>', $opt->{pid_file}) && print({$fh} "$$\n") && close($fh)) {
            error("$opt->{pid_file}: cannot write the process ID: $!");
            return 1;
        }
    }
    my $prog = $argv->[0];
    { no warnings 'exec'; exec { $prog } @$argv; }
    my $why = $!;
    my $status = $!{ENOENT} ? 127 : 126;
    unlink $opt->{pid_file} if defined $opt->{pid_file};
    error("$prog: cannot run: $why");
    return $status;
}

# The recording's directory made (mode 0700), its absolute path; an old
# recording there first moved to DIR.old (an older DIR.old, if it is a
# recording, removed), as uftrace keeps one; undef (said) if that
# cannot be done.
sub _is_recording {
    my ($d) = @_;
    opendir(my $dh, $d) or return 0;
    my @sub = grep { !/^\.\.?\z/ } readdir $dh;
    closedir $dh;
    for my $p (@sub) {
        open(my $fh, '<', "$d/$p/info") or return 0;
        my $first = <$fh> // '';
        return 0 unless $first =~ /^mcount-trace-data /;
    }
    return 1;
}

sub _recording_dir {
    my ($d) = @_;
    require File::Spec;
    require File::Path;
    $d = File::Spec->rel2abs($d);
    if (-e $d || -l $d) {
        if (-l $d || !-d _ || !_is_recording($d)) {
            error("$d: exists and is not a recording: not overwritten");
            return undef;
        }
        my $old = "$d.old";
        if (-e $old || -l $old) {
            if (-l $old || !-d _ || !_is_recording($old)) {
                error("$old: exists and is not a recording: $d is not moved there");
                return undef;
            }
            File::Path::remove_tree($old, { error => \my $err });
            if (@$err) {
                my ($f, $m) = %{ $err->[0] };
                error("$old: cannot remove the older recording: $f: $m");
                return undef;
            }
        }
        unless (rename $d, $old) {
            error("$d: cannot move the last recording to $old: $!");
            return undef;
        }
    }
    unless (mkdir $d, 0700) {
        error("$d: cannot make the recording's directory: $!");
        return undef;
    }
    chmod 0700, $d;
    return $d;
}

# ---- attach -----------------------------------------------------------------

# attach_process(OPTIONS, [PID]) -> exit status (0, 1; bad usage exits
# 2): the library loaded into the running process PID by mcount-attach
# (which says why when it cannot be, or that it was loaded already),
# then the process's status printed once its control socket answers.
# OPTIONS: timeout, verbose.
sub attach_process {
    my ($opt, $argv) = @_;
    bad_usage("--timeout must be a number of seconds, not '$opt->{timeout}'")
        unless $opt->{timeout} =~ /^[0-9]+\z/;
    bad_usage('--format applies to show only') if $opt->{format} ne 'text';
    bad_usage('no PID given') unless @$argv;
    bad_usage('too many arguments: attach takes a PID only') if @$argv > 1;
    my $pid = $argv->[0];
    bad_usage("'$pid' is not a process ID") unless $pid =~ /^[1-9][0-9]{0,9}\z/;
    my ($graph, $graph_any) = _graph_filters($opt);
    # (the filters, then function_graph, by the verbs, once attached)
    my @then = $graph_any ? ((@$graph ? (['graph-function', $graph]) : ()),
        (defined $opt->{depth} ? (['depth', [$opt->{depth}]]) : ()),
        (defined $opt->{time_threshold} ? (['threshold', [$opt->{time_threshold}]]) : ()),
        ['tracer', ['function_graph']]) : ();
    for my $r (@then) {
        my $long = request_too_long($r->[0], @{ $r->[1] });
        bad_usage($long) if defined $long;
    }
    my $helper = attach_helper_path();
    if (!-x $helper) {
        error("$helper: not found: attach is made on x86_64 alone, yet (run make there)");
        return 1;
    }
    # the library built for the process's architecture (its file may be
    # unreadable: another user's process, which the helper refuses)
    my ($lib, $no_lib) = trace_lib_for("/proc/$pid/exe");
    if (!defined $lib) {
        error($no_lib =~ s{^/proc/[0-9]+/exe}{$pid}r);
        return 1;
    }
    if (!-f $lib || !-r _) {
        error("$lib: tracing library not found (run make, or set RECORDMCOUNT_TRACE_LIB)");
        return 1;
    }
    require Cwd;
    $lib = Cwd::abs_path($lib) // $lib;
    my @cmd = ($helper, '-n', 'mcount-trace', ($opt->{verbose} ? '-v' : ()), $pid, $lib);
    my $st = system { $cmd[0] } @cmd;
    if ($st != 0) {
        error("$helper: " . ($st < 0 ? "cannot run: $!" : 'failed, ' . ($st & 127 ? 'signal ' . ($st & 127)
            : 'exit status ' . ($st >> 8)))) if $st < 0 || ($st & 127) || ($st >> 8) > 2;
        return 1;
    }
    # the library's constructor opened the socket before dlopen returned,
    # unless its channel is off (a privileged process, MCOUNT_TRACE_CONTROL=0
    # in its environment): said by the library on its standard error
    my $sock = control_dir() . "/$pid";
    my $end = time + ($opt->{timeout} || 10);
    select undef, undef, undef, 0.02 until -S $sock || time > $end;
    if (!-S $sock) {
        error("$pid: the library is loaded, but no control socket $sock came up (its channel is off: "
            . 'a privileged process, or MCOUNT_TRACE_CONTROL=0 in its environment; its standard error says why)');
        return 1;
    }
    for my $r (@then) {
        my $answer = eval { control_request($pid, $r->[0], $r->[1], timeout => $opt->{timeout}, payload => sub { }) };
        fatal(1, $@) unless $answer;
        fatal(1, "$pid: $answer->{error}") if defined $answer->{error};
    }
    return control_command('status', $opt, [$pid]);
}

# ---- replay, report, info -----------------------------------------------------

# The report's sort keys (report --sort)
my %REPORT_SORT = map { $_ => 1 } qw(calls total self avg max name);

# read_recording(VERB, OPTIONS, [DIR]) -> exit status: mcount-read VERB
# on DIR (default mcount-trace.data), the options that VERB takes passed
# on; mcount-read says what it cannot read (status 1).  OPTIONS: format,
# output, function, tid, since, until, depth (replay); sort, threads,
# diff (report); depth (graph, whose words are [DIR] [FUNCTION]: a lone
# word that is a directory is DIR); output, folded (flame).
sub read_recording {
    my ($verb, $opt, $argv) = @_;
    my @words;
    if ($verb eq 'graph') {
        bad_usage('too many arguments: graph takes [DIR] [FUNCTION]') if @$argv > 2;
        @words = @$argv == 1 && !-d $argv->[0] ? ($argv->[0]) : @$argv[1 .. $#$argv];
        $argv = @$argv == 1 && !-d $argv->[0] ? [] : [$argv->[0] // ()];
    }
    bad_usage("too many arguments: $verb takes a DIR only") if @$argv > 1;
    my $dir = $argv->[0] // 'mcount-trace.data';
    my @args;
    if ($verb eq 'graph' && defined $opt->{depth}) {
        bad_usage("--depth must be a positive whole number, not '$opt->{depth}'") unless $opt->{depth} =~ /^[1-9][0-9]{0,9}\z/;
        push @args, "--depth=$opt->{depth}";
    }
    if ($verb eq 'flame') {
        bad_usage('-o/--output must name a file') if defined $opt->{output} && !length $opt->{output};
        push @args, '--format=folded' if $opt->{folded};
        push @args, "--output=$opt->{output}" if defined $opt->{output};
    }
    if ($verb eq 'replay') {
        push @args, "--format=$opt->{format}" if $opt->{format} ne 'text';
        for my $k (qw(tid depth)) {
            next unless defined $opt->{$k};
            bad_usage("--$k must be a positive whole number, not '$opt->{$k}'") unless $opt->{$k} =~ /^[1-9][0-9]{0,9}\z/;
            push @args, "--$k=$opt->{$k}";
        }
        for my $k (qw(since until)) {
            next unless defined $opt->{$k};
            bad_usage("--$k must be a time in seconds, not '$opt->{$k}'")
                unless $opt->{$k} =~ /^[0-9]+(?:\.[0-9]*)?\z/;
            push @args, "--$k=$opt->{$k}";
        }
        push @args, "--function=$opt->{function}" if defined $opt->{function};
        push @args, "--output=$opt->{output}" if defined $opt->{output};
        my ($graph) = _graph_filters($opt);
        bad_usage('--graph-function and --time-threshold: not with --format=perfetto (its slices keep every call)')
            if $opt->{format} eq 'perfetto' && (@$graph || defined $opt->{time_threshold});
        push @args, map { "--graph-function=$_" } @$graph;
        push @args, "--time-threshold=$opt->{time_threshold}" if defined $opt->{time_threshold};
    } else {
        bad_usage('--format applies to replay only') if $opt->{format} ne 'text';
    }
    if ($verb eq 'report') {
        if (defined $opt->{sort}) {
            bad_usage("--sort must be calls, total, self, avg, max or name, not '$opt->{sort}'")
                unless $REPORT_SORT{ $opt->{sort} };
            push @args, "--sort=$opt->{sort}";
        }
        push @args, '--threads' if $opt->{threads};
        if (defined $opt->{diff}) {
            bad_usage('--diff and --threads: one or the other') if $opt->{threads};
            bad_usage("$opt->{diff}: not a directory") if -e $opt->{diff} && !-d _;
            push @args, "--diff=$opt->{diff}";
        }
    }
    bad_usage("$dir: not a directory") if -e $dir && !-d _;
    my $reader = reader_path();
    if (!-x $reader) {
        error("$reader: not found (run make, or set RECORDMCOUNT_READ)");
        return 1;
    }
    # (a directory named as an option would be: ./-x)
    $dir = "./$dir" if $dir =~ /^-/;
    # (a function named as an option would be: -- is not mcount-read's)
    bad_usage("$words[0]: not a function's name") if @words && $words[0] =~ /^-/;
    my @cmd = ($reader, $verb, @args, $dir, @words);
    my $st = system { $cmd[0] } @cmd;
    return 0 if $st == 0;
    if ($st < 0 || ($st & 127)) {
        error("$reader: " . ($st < 0 ? "cannot run: $!" : 'signal ' . ($st & 127)));
        return 1;
    }
    return $st >> 8;
}

# ---- detach -------------------------------------------------------------------

# After the library's "ok N" to detach (the socket removed, its output
# closed): its threads waited for until they have ended (the control
# thread, the one that answered: named mcount-trace), so that the
# process is as it was when this returns.  -> exit status.
sub _detached {
    my ($pid, $count, $opt) = @_;
    my $end = time + ($opt->{timeout} || 10);
    my $left;
    for (;;) {
        $left = 0;
        opendir(my $dh, "/proc/$pid/task") or last;
        for my $tid (grep { /^[0-9]+\z/ } readdir $dh) {
            open(my $fh, '<', "/proc/$pid/task/$tid/comm") or next;
            my $name = <$fh> // '';
            $left++ if $name eq "mcount-trace\n";
        }
        last if !$left || time > $end;
        select undef, undef, undef, 0.01;
    }
    if ($left) {
        error("$pid: detached, but " . plural($left, 'thread') . " of the library's had not ended in "
            . ($opt->{timeout} || 10) . ' s');
        return 1;
    }
    error(plural($count // 0, 'function') . ' disabled; detached (the library stays loaded)') if $opt->{verbose};
    return 0;
}

# ---- the verbs of the control socket ---------------------------------------

# The profiler's sort keys (stat --sort, run --sort).
my %SORT = map { $_ => 1 } qw(hits time avg s2 self);
sub _sort_key {
    my ($k) = @_;
    bad_usage("--sort must be hits, time, avg, s2 or self, not '$k'") if defined $k && !$SORT{$k};
    return;
}

# The profiler's tables (stat --columns, run --columns): the kernel's
# columns, or report's.
sub _columns {
    my ($c) = @_;
    bad_usage("--columns must be kernel or report, not '$c'") if defined $c && $c !~ /\A(kernel|report)\z/;
    return;
}

# What a verb's "ok N" counts, for its messages.
my %DONE = (enable => 'enabled', disable => 'disabled', notrace => 'marked notrace',
    event => 'given or relieved of a prototype',
    stop => 'disabled; tracing stopped');

# control_command(VERB, OPTIONS, [PID, ARG...]) -> exit status (0; a
# failure exits 1, bad usage 2).  OPTIONS: format, timeout, verbose.
sub control_command {
    my ($verb, $opt, $argv) = @_;
    my @argv = @$argv;
    bad_usage("--timeout must be a number of seconds, not '$opt->{timeout}'")
        unless $opt->{timeout} =~ /^[0-9]+\z/;
    bad_usage('--format applies to show only') if $opt->{format} ne 'text' && $verb ne 'show';
    bad_usage('no PID given') unless @argv;
    my $pid = shift @argv;
    bad_usage("'$pid' is not a process ID") unless $pid =~ /^[1-9][0-9]{0,9}\z/;
    my @args;
    if ($verb =~ /^(enable|disable|notrace)\z/) {
        bad_usage("$verb needs a GLOB (mcount-trace $verb PID GLOB...)") unless @argv;
        @args = _globs(@argv);
    } elsif ($verb eq 'event') {
        bad_usage('event needs a PROTOTYPE (mcount-trace event PID PROTOTYPE...)') unless @argv;
        @args = (join ';', _prototypes(@argv));
    } elsif ($verb eq 'args') {
        bad_usage('too many arguments: args takes a PID and a number') if @argv > 1;
        bad_usage("'$argv[0]' is not a number of argument words from 0 to 8") if @argv && $argv[0] !~ /^[0-8]\z/;
        @args = @argv;
    } elsif ($verb eq 'retval') {
        bad_usage('too many arguments: retval takes a PID and on or off') if @argv > 1;
        bad_usage("'$argv[0]' is neither on nor off") if @argv && $argv[0] !~ /^(on|off)\z/;
        @args = @argv;
    } elsif ($verb eq 'graph-function') {
        @args = @argv == 1 && $argv[0] eq 'off' ? ('off') : _globs(@argv);
    } elsif ($verb eq 'depth') {
        bad_usage('too many arguments: depth takes a PID and a depth') if @argv > 1;
        bad_usage("'$argv[0]' is not a depth from 0 to 1000000")
            if @argv && ($argv[0] !~ /\A[0-9]{1,7}\z/ || $argv[0] > 1000000);
        @args = @argv;
    } elsif ($verb eq 'threshold') {
        bad_usage('too many arguments: threshold takes a PID and a duration') if @argv > 1;
        bad_usage("'$argv[0]' is not a duration (10us, 1.5ms, 2s; a bare number: microseconds)")
            if @argv && $argv[0] !~ $DURATION;
        @args = @argv;
    } elsif ($verb eq 'patch') {
        bad_usage('patch needs FUNCTION and LIBRARY[:SYMBOL] (mcount-trace patch PID FUNCTION LIBRARY[:SYMBOL])')
            unless @argv == 2;
        my ($func, $lib) = @argv;
        my $sym;
        ($lib, $sym) = ($1, $2) if $lib =~ m{\A(.+):([^/:]+)\z};
        bad_usage("'$func' is not a function's name (no white space)") if $func =~ /\s/ || $func eq '';
        # the process is given the file itself, by its absolute path
        require Cwd;
        my $abs = Cwd::abs_path($lib);
        fatal(1, "$lib: " . ($! || 'No such file or directory')) unless defined $abs && -f $abs;
        @args = ($func, defined $sym ? "$abs:$sym" : $abs);
    } elsif ($verb eq 'stat') {
        _sort_key($opt->{sort});
        bad_usage('--show and --off go alone') if $opt->{show} && $opt->{off};
        bad_usage('--show and --off take no GLOB') if ($opt->{show} || $opt->{off}) && @argv;
        bad_usage('--sort applies to --show and --off') if defined $opt->{sort} && !$opt->{show} && !$opt->{off};
        _columns($opt->{columns});
        bad_usage('--columns applies to --show and --off')
            if defined $opt->{columns} && !$opt->{show} && !$opt->{off};
        my @table = ($opt->{sort} // (), $opt->{columns} // ());
        @args = $opt->{off} ? ('off', @table) : $opt->{show} ? @table : ('on', _globs(@argv));
    } elsif ($verb eq 'detach') {
        bad_usage('too many arguments: detach takes a PID only') if @argv;
        @args = $opt->{force} ? ('force') : ();
    } elsif ($verb eq 'unpatch') {
        bad_usage('unpatch needs one FUNCTION (mcount-trace unpatch PID FUNCTION)') unless @argv == 1;
        @args = @argv;
    } elsif ($verb eq 'tracer') {
        bad_usage('too many arguments: tracer takes a PID and a tracer name') if @argv > 1;
        bad_usage("unknown tracer '$argv[0]' (function or function_graph)") if @argv && !$TRACER{ $argv[0] };
        @args = @argv;
    } else {
        bad_usage("too many arguments: $verb takes a PID only") if @argv;
        @args = ($opt->{format}) if $verb eq 'show' && $opt->{format} ne 'text';
    }
    my $long = request_too_long($verb, @args);
    bad_usage($long) if defined $long;

    # the payload printed as it comes
    local $| = 1;
    my $answer = eval { control_request($pid, $verb, \@args, timeout => $opt->{timeout},
        payload => sub { print $_[0] }) };
    fatal(1, $@) unless $answer;
    fatal(1, "$pid: $answer->{error}") if defined $answer->{error};
    my ($count, $lines) = @$answer{qw(count lines)};
    if ($verb eq 'list' && defined $count && $lines != $count) {
        fatal(1, "$pid: the list ended after $lines of $count functions");
    }
    error("$args[0] ${verb}ed") if $verb =~ /patch\z/ && $opt->{verbose};
    error('the profiler is on') if $verb eq 'stat' && $args[0] && $args[0] eq 'on' && $opt->{verbose};
    return _detached($pid, $count, $opt) if $verb eq 'detach';
    if ($verb eq 'graph-function' && defined $count && $args[0] ne 'off') {
        if ($count == 0) {
            warning($pid, 'the globs name no function yet (objects loaded later are searched too)');
        } elsif ($opt->{verbose}) {
            error(plural($count, 'graph function'));
        }
    }
    if ($DONE{$verb} && defined $count) {
        if ($count == 0 && $verb ne 'stop') {
            warning($pid, "no function $DONE{$verb}: no function matches, or each one already was");
        } elsif ($opt->{verbose}) {
            error(plural($count, 'function') . " $DONE{$verb}");
        }
    }
    return 0;
}

1;
