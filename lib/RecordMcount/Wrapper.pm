# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Wrapper;
# What a compiler wrapper does around the compiler (mcount-cc: the
# command reads its options, run_wrapper does the rest; its link through
# the pass is RecordMcount::Link's wrapper_link): find the real compiler
# on PATH, decide (RecordMcount::Argv), run it as the user would, record
# the objects it wrote.  A module of its own so that recordmcount.pl and
# mcount-record, which load the record pipeline for every object, do not
# compile it.
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Run qw(run_inherit temp_path forget_temp basename find_program register_temp exit_like
    shell_quote run_tool);
use RecordMcount::Message qw(program error warning inform fatal bad_usage throw caught);
use RecordMcount::Front qw(helper_path lto_text sections_spec_ok plural);
use RecordMcount::Argv qw(split_command classify reason_text decision_text probe_args);
# (RecordMcount::Pipeline is not loaded here: the wrapper requires it
# while the compiler runs, and only for a compile that records)

our @EXPORT_OK = qw(run_wrapper);

# The first NAME on PATH that is not this program: neither the file $0
# is (symbolic links resolved) nor one whose real name matches SELF (a
# command named like the program it wraps finds that program).
sub find_other_program {
    my ($name, $self) = @_;
    require Cwd;
    my $me = Cwd::realpath($0) // '';
    for my $dir (split /:/, $ENV{PATH} // '', -1) {
        my $cand = (length $dir ? $dir : '.') . "/$name";
        next unless -f $cand && -x _;
        my $real = Cwd::realpath($cand) // next;
        next if $real eq $me || basename($real) =~ $self;
        return $cand;
    }
    return undef;
}

# record_object(OPTIONS) of every one of OBJECTS, which a compile has just
# written, none looking finished before its table is in it.  The caller
# has them registered as temporary files (RecordMcount::Run), so that
# whatever ends the process before then, a failure or a signal it can
# catch, removes them; one it cannot catch (KILL) finds them dated 1970,
# so make builds them again.  done => a sub told each object recorded and
# record_object's result.  Returns () when every object is recorded (its
# date back, no longer a temporary file); else (the object that failed,
# the message), that object and those after it removed.
sub wrapper_record {
    my ($objects, $o, %how) = @_;
    my @present;
    for my $obj (@$objects) {
        next unless -e $obj;
        eval { _own_object($obj); 1 } or next;    # told when its turn comes
        utime 0, 0, $obj;
        push @present, $obj;
    }
    for my $i (0 .. $#$objects) {
        my $obj = $objects->[$i];
        my $r = eval {
            throw("$obj: the compiler succeeded but wrote no such object") unless -e $obj;
            _own_object($obj);
            RecordMcount::Pipeline::record_object($obj, $o);
        };
        if (!$r) {
            my $err = caught($@);
            unlink @$objects[$i .. $#$objects];
            return ($obj, $err);
        }
        $how{done}->($obj, $r) if $how{done};
    }
    # the objects a record step did not replace get their date back
    utime undef, undef, @present;
    forget_temp(@$objects);
    return ();
}

# A launcher may hand over an object that is not the wrapper's alone:
# ccache with hard_link makes it a read-only link to its cache entry.
# Give the path a private, writable copy first, so that the entry can
# never change, not even its date (record_object would rename a new file
# over the path anyway).
sub _own_object {
    my ($obj) = @_;
    my @st = stat $obj or return;
    return if $st[3] <= 1 && ($st[2] & 0200) && -w _;
    my $tmp = temp_path($obj, 'own');
    require File::Copy;
    File::Copy::copy($obj, $tmp) or throw("$obj: cannot copy the object before recording: $!");
    chmod(($st[2] & 07777) | 0200, $tmp);
    rename $tmp, $obj or throw("$obj: cannot replace the object: $!");
    forget_temp($tmp);
    return;
}

# ---- mcount-cc: a command's words through the wrapper -------------------

my $GUARD = 'MCOUNT_CC_ACTIVE';   # how deep we are inside mcount-cc
my $GUARD_LIMIT = 4;

# Exit statuses of the wrapper's own failures (distcc's range; 2 is bad
# usage, from bad_usage()); everything else is the compiler's own status,
# or its signal.
my $EXIT_RECORD = 100;
my $EXIT_NO_COMPILER = 110;
my $EXIT_RECURSION = 111;

sub verbose {
    inform($_[0]) if $ENV{MCOUNT_CC_VERBOSE};
    return;
}

sub run_exec {
    my ($path, @cmd) = @_;
    { no warnings 'exec'; exec { $path } @cmd; }
    fatal($EXIT_NO_COMPILER, "cannot run $cmd[0]: $!");
}

# The record pipeline's modules are loaded only where they are needed; an
# installation that lacks one says so in one line, exit status 100.
sub pipeline_missing {
    my ($err) = @_;
    fatal($EXIT_RECORD, 'cannot load the record pipeline (is recordmcount installed completely?): '
        . ("$err" =~ s/\n.*//sr));
}

sub need_modules {
    my (@names) = @_;
    eval { require "RecordMcount/$_.pm" for @names; 1 } or pipeline_missing($@);
    return;
}

# The flags the row of the first object of a link says per-object tables
# need at the link, but those the command has (RecordMcount::Tools, loaded
# only for a link that names an object to ask).
sub object_link_flags {
    my ($args) = @_;
    return () unless grep { !/^-/ && /\.o\z/ } @$args;
    need_modules('Tools');
    return RecordMcount::Tools::object_link_flags($args);
}

# The compiler's own table (MCOUNT_CC_MODE=compiler): the flags that make
# COMPILER (PATH where it is) write NOPs and their table for the target
# ARGS select, and that target's name: GIVEN (MCOUNT_CC_FLAGS), else the
# cc-table-flags of the target's row (mcount-scan --identify of a probe
# compiled with ARGS' target and code options, Argv's probe_args).  A
# probe compiled with the flags must hold the table they make; where the
# target has no flags chosen or the compiler refuses them or makes no
# table, the command is refused (exit status 100), saying why.  What the
# probes found is kept (_probe_cache) and taken the next time.
sub table_flags {
    my ($compiler, $path, $args, $given) = @_;
    my @base = @{ probe_args($args) };
    my $cache = _probe_cache($path, \@base, $given);
    if (defined $cache && open(my $in, '<', $cache)) {
        my $line = <$in> // '';
        close $in;
        if ($line =~ /\A(\w+)\t(\S.*)\n\z/) {
            verbose("the compiler's table for $1: $2, as a probe found it ($cache)");
            return ([split ' ', $2], $1);
        }
    }
    need_modules('Tools');
    my $dir = length($ENV{TMPDIR} // '') && -d $ENV{TMPDIR} ? $ENV{TMPDIR} : '/tmp';
    my $src = temp_path("$dir/mcount-cc-probe", 'c');
    my @made = ($src);
    my $ok = open(my $fh, '>', $src);
    $ok &&= print $fh "void mcount_cc_probe(void);\nvoid mcount_cc_probe(void) { }\n";
    $ok &&= close $fh;
    fatal($EXIT_RECORD, "$compiler: MCOUNT_CC_MODE=compiler: cannot write the probe's source: $!") unless $ok;
    my $refuse = sub {
        unlink @made;
        fatal($EXIT_RECORD, "$compiler: MCOUNT_CC_MODE=compiler: $_[0]");
    };
    # a probe compiled with FLAGS: its object, or the compiler's complaint
    my $probe = sub {
        my (@flags) = @_;
        my $obj = temp_path("$dir/mcount-cc-probe", 'o');
        push @made, $obj;
        my @cmd = ($path, @base, @flags, '-c', '-x', 'c', $src, '-o', $obj);
        verbose('probe: ' . join(' ', map { shell_quote($_) } @cmd));
        my ($st, $err) = run_tool(cmd => \@cmd);
        return ($obj, undef) if $st == 0;
        my @lines = grep { /\berror\b/i } split /\n/, $err // '';
        @lines = grep { length } split /\n/, $err // '' unless @lines;
        return (undef, @lines ? join('; ', @lines[0 .. ($#lines < 2 ? $#lines : 2)])
            : 'it failed (' . RecordMcount::Message::status_text($st) . ')');
    };
    my $identify = sub {
        my ($obj) = @_;
        my $id = eval { RecordMcount::Tools::identify_object(helper_path(), $obj) };
        $refuse->('cannot tell the target of its code: ' . (caught($@) =~ s/^\Q$obj\E: //r)) unless $id;
        return $id;
    };
    my ($arch, @flags);
    if (@$given) {
        @flags = @$given;
    } else {
        my ($obj, $err) = $probe->();
        $refuse->("cannot compile a probe with this command's options: $err") unless $obj;
        my $id = $identify->($obj);
        $arch = $id->{arch};
        @flags = split ' ', $id->{'cc-table-flags'} // '';
        $refuse->("no flags of a compiler-made table are chosen for $arch: name them in MCOUNT_CC_FLAGS "
            . '(-fpatchable-function-entry=N[,M], or -mrecord-mcount with its hook flags)') unless @flags;
    }
    my ($obj, $err) = $probe->(@flags);
    $refuse->('the compiler refuses ' . join(' ', @flags) . (defined $arch ? " for $arch" : '') . ": $err")
        unless $obj;
    $arch //= $identify->($obj)->{arch};
    for my $table ((grep { /^-fpatchable-function-entry=/ } @flags) ? ('__patchable_function_entries') : (),
                   (grep { $_ eq '-mrecord-mcount' } @flags) ? ('__mcount_loc') : ()) {
        $refuse->('the compiler takes ' . join(' ', @flags) . " but writes no $table table for $arch")
            unless RecordMcount::Elf::elf_has_section($obj, $table);
    }
    unlink @made;
    forget_temp(@made);
    _keep_probe($cache, "$arch\t@flags\n") if defined $cache;
    return (\@flags, $arch);
}

# Where what the probes found for a command is kept: a file of the
# directory MCOUNT_CC_CACHE names (off: none; default
# $XDG_CACHE_HOME/recordmcount, else ~/.cache/recordmcount), named after
# the compiler (its real path, inode, size and date), the probe's words,
# the given flags and the helper (whose rows chose the flags).  Undef
# where there is none.
sub _probe_cache {
    my ($path, $base, $given) = @_;
    my $dir = $ENV{MCOUNT_CC_CACHE} // '';
    return undef if $dir eq 'off';
    if (!length $dir) {
        my $home = length($ENV{XDG_CACHE_HOME} // '') ? $ENV{XDG_CACHE_HOME}
            : length($ENV{HOME} // '') ? "$ENV{HOME}/.cache" : return undef;
        $dir = "$home/recordmcount";
    }
    require Cwd;
    require Digest::SHA;
    my $real = Cwd::realpath($path) // return undef;
    my @c = stat $real or return undef;
    my @h = stat helper_path() or return undef;
    return "$dir/cc-" . Digest::SHA::sha1_hex(join "\0", 'compiler-table 1', $real, @c[1, 7, 9], @h[1, 7, 9],
        scalar @$base, @$base, @$given);
}

# Keep TEXT in FILE (renamed into place: parallel compiles read it whole
# or not at all); where it cannot be written, it is not kept.
sub _keep_probe {
    my ($file, $text) = @_;
    require File::Path;
    my $dir = RecordMcount::Run::dirname($file);
    eval { File::Path::make_path($dir); 1 } or return;
    my $tmp = temp_path($file, 'new');
    my $ok = open(my $out, '>', $tmp);
    $ok &&= print $out $text;
    $ok &&= close $out;
    $ok &&= rename $tmp, $file;
    unlink $tmp unless $ok;
    forget_temp($tmp);
    return;
}

# run_wrapper(WORDS, masquerade => BOOL, classify_only => BOOL): mcount-cc
# on a command's words ([LAUNCHER]... COMPILER ARG...): the decision
# printed (classify_only), or the compiler run, exec'd in this process's
# place where nothing is recorded, and the objects or the link recorded.
# Does not return.
sub run_wrapper {
    my ($words, %how) = @_;
    my ($masquerade, $classify_only) = @how{qw(masquerade classify_only)};
    my $PROG = program();
    my @words = @$words;
    my $cmd = split_command(\@words);
    my ($compiler, @launchers) = ($cmd->{compiler}, @{ $cmd->{launchers} });
    my @args = @{ $cmd->{args} };

    my $depth = ($ENV{$GUARD} // '') =~ /^([0-9]+)\z/ ? $1 : 0;
    if ($depth >= $GUARD_LIMIT) {
        fatal($EXIT_RECURSION, "$compiler: recursive invocation ($GUARD=$depth): the "
            . "'$compiler' found on PATH leads back to mcount-cc; put the real compiler "
            . "first on PATH or name it by its full path");
    }

    # Where the compiler is: in masquerade mode the first one on PATH that is
    # not us; else as named (PATH is searched by exec).
    my $compiler_path = $compiler;
    if ($masquerade) {
        $compiler_path = find_other_program($compiler, qr/^mcount-cc\b/)
            // fatal($EXIT_NO_COMPILER, "$compiler: no real compiler of that name on PATH "
                . "(only mcount-cc itself)");
    } elsif ($compiler !~ m{/}) {
        $compiler_path = find_program($compiler) // $compiler;
    }

    my @given;
    if (defined $ENV{MCOUNT_CC_FLAGS}) {
        require Text::ParseWords;
        @given = Text::ParseWords::shellwords($ENV{MCOUNT_CC_FLAGS});
    }
    my @hook = @given ? @given : ('-pg');
    my $mode = $ENV{MCOUNT_CC_MODE} // '';
    $mode = 'auto' unless length $mode;
    bad_usage("MCOUNT_CC_MODE must be object, link, auto or compiler, not '$mode'")
        unless $mode =~ /^(?:object|link|auto|compiler)\z/;
    # the compiler's own table: the row's flags (found once a compile
    # needs them) or those given, which must make one
    if ($mode eq 'compiler') {
        bad_usage("MCOUNT_CC_FLAGS '@given' makes no table of the compiler's own (MCOUNT_CC_MODE=compiler): "
            . 'give -fpatchable-function-entry=N[,M], or -mrecord-mcount with its hook flags')
            if @given && !grep { /^-fpatchable-function-entry=[0-9]+(?:,[0-9]+)?\z/ || $_ eq '-mrecord-mcount' } @given;
        @hook = @given;
    }
    my $sections = $ENV{MCOUNT_CC_SECTIONS} // '';
    $sections = 'kernel' unless length $sections;
    bad_usage("MCOUNT_CC_SECTIONS must be kernel, all, or NAME,NAME*,..., not '$sections'")
        unless sections_spec_ok($sections);
    my $table = $ENV{MCOUNT_CC_TABLE} // '';
    $table = 'writable' unless length $table;
    bad_usage("MCOUNT_CC_TABLE must be writable or readonly, not '$table'") unless $table =~ /^(?:writable|readonly)\z/;
    my %cls = (nested => $depth > 0, mode => $mode, compiler => $compiler);
    my $d = classify(\@args, hook_flags => \@hook, %cls);
    my $table_arch;
    if ($mode eq 'compiler' && $d->{action} =~ /^(?:compile|split)\z/) {
        (my $flags, $table_arch) = table_flags($compiler, $compiler_path, \@args, \@given);
        $d = classify(\@args, hook_flags => $flags, %cls);
    }

    if ($classify_only) { print decision_text($d); exit 0 }

    $ENV{$GUARD} = $depth + 1;
    my @exec = @launchers ? (find_program($launchers[0]) // $launchers[0]) : ($compiler_path);
    my @run = (@launchers, $masquerade ? $compiler_path : $compiler);

    warning(undef, $d->{warning}) if $d->{warning};
    fatal($EXIT_RECORD, "$d->{objects}[0]: $d->{error}") if $d->{action} eq 'refuse';
    if ($d->{action} eq 'pass') {
        verbose("pass: " . reason_text($d->{reason}));
        # a link of objects with per-object tables: what the target's row says
        # such a link needs (riscv: no relaxation, which would move the code
        # the entries point into)
        my @extra = $d->{reason} eq 'link' && ($d->{mode} // '') eq 'object' ? object_link_flags(\@args) : ();
        verbose("link with @extra, as per-object tables need for this target") if @extra;
        run_exec(@exec, @run, @args, @extra);
    }
    my @cargs = @args;
    splice @cargs, $d->{insert_at}, 0, @{ $d->{add_flags} };
    if ($d->{action} eq 'compile') {
        # link-time mode: the objects get the calls, the link their table;
        # compiler mode: the objects get the NOPs and their table
        verbose(($d->{reason} eq 'autoconf-test' ? 'compile (' . reason_text($d->{reason}) . '): '
            : $d->{mode} eq 'compiler' ? "compile ($d->{mode_why}: the compiler's own table for $table_arch): "
            : "compile ($d->{mode_why}; the link records): ") . join(' ', map { shell_quote($_) } @run, @cargs));
        run_exec(@exec, @run, @cargs);
    }
    # link-time mode: the link command (no launcher: a link is not cached)
    # through the link-time pass
    my $link_through_pass = sub {
        my ($command) = @_;
        need_modules('Link');
        RecordMcount::Link::wrapper_link($masquerade ? $compiler_path : $compiler, $command, $EXIT_RECORD,
            prog => $PROG, why => $d->{mode_why}, label => $d->{objects}[0], say => \&verbose,
            triple => sub { RecordMcount::Tools::compiler_triple($compiler, $compiler_path, \@args, undef) });
        exit 0;
    };
    $link_through_pass->($d->{command}) if $d->{action} eq 'link';
    if ($d->{action} eq 'split') {
        # compiled and linked in one step: the sources compiled first (a broken
        # installation said once, before anything is compiled), then the link
        need_modules(($d->{mode} // '') eq 'link' ? ('Link') : ('Pipeline', 'Tools'), 'Split');
        my %o = (compiler => $compiler, fail_status => $EXIT_NO_COMPILER, say => \&verbose);
        my @link = RecordMcount::Split::compile_sources($d, %o, guard => [$GUARD, $depth],
            self => [$0, $masquerade ? () : (@launchers, $compiler)]);
        $link_through_pass->(\@link) if ($d->{mode} // '') eq 'link';
        RecordMcount::Split::link_objects(\@link, $d, %o, path => $compiler_path,
            linker => $masquerade ? $compiler_path : $compiler);
    }

    # compile, then record every object
    my @compile = (@run, @cargs);
    verbose("record: " . join(' ', map { shell_quote($_) } @compile));
    # The pipeline's modules load while the compiler runs; a failure to load
    # them (a broken installation) is reported once the compiler is done.
    my $load_error;
    my $st = run_inherit(cmd => \@compile, path => $exec[0], fail_status => $EXIT_NO_COMPILER, while => sub {
        eval { require RecordMcount::Pipeline; require RecordMcount::Tools; 1 } or $load_error = $@;
    });
    exit_like($st) if $st != 0;
    my @objects = @{ $d->{objects} };
    # no object may look finished before its table is in it: every way out
    # of this process before then removes them (Wrapper::wrapper_record)
    register_temp(@objects);
    pipeline_missing($load_error) if defined $load_error;
    my $tools = eval { RecordMcount::Tools::find_tools(triple => RecordMcount::Tools::compiler_triple(
        $compiler, $compiler_path, \@args, $objects[0])) } // fatal($EXIT_RECORD, caught($@));
    # (programs are PIE by default: a writable table needs no text relocations)
    my %opts = (prog => $PROG, helper => helper_path(), (map { $_ => $tools->{$_} } qw(objdump objcopy ld as)),
        entry => 'call', sections => $sections, listing => 'relocs', writable_table => $table eq 'writable');
    my ($failed, $err) = RecordMcount::Wrapper::wrapper_record(\@objects, \%opts, done => sub {
        my ($obj, $r) = @_;
        warning($obj, lto_text()) if $r->{status} eq 'lto';
        verbose("$obj: $r->{status}" . ($r->{sites} ? ' (' . plural($r->{sites}, 'call site') . ')' : '')
            . ' with ' . join(', ', map { $_->[0] } @{$tools}{qw(objdump objcopy ld as)}));
    });
    exit 0 unless defined $failed;
    error($err);
    # the commands that redo the failed step by hand, with its settings
    my @o = ($opts{writable_table} ? ('--writable-table') : (), $sections ne 'kernel' ? ("--sections=$sections") : ());
    error('the object was removed; to reproduce: ' . join(' ', map { shell_quote($_) } @compile) . ' && '
        . join(' ', RecordMcount::Tools::tool_env($tools), 'mcount-record', @o, shell_quote($failed)));
    exit $EXIT_RECORD;
}

1;
