# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Wrapper;
# What a compiler wrapper does around the compiler (mcount-cc: the
# command reads its options, run_wrapper does the rest): find the real
# compiler on PATH, decide (RecordMcount::Argv), and where nothing is
# recorded exec it as the user would run it; the rest is
# RecordMcount::WrapperLink's (a link through the pass, a split),
# RecordMcount::WrapperRecord's (a compile that records its objects) and
# RecordMcount::WrapperTable's (the compiler's own table's flags).  A
# module of its own so that recordmcount.pl and mcount-record, which load
# the record pipeline for every object, do not compile it.
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Names qw(basename find_program shell_quote);
use RecordMcount::Message qw(warning inform fatal bad_usage);
use RecordMcount::Argv qw(split_command classify reason_text decision_text);
# (what a compile that only gets the hook flags, or a command passed on,
# does not need is loaded only by the others: RecordMcount::WrapperRecord
# (the compile that records), ::WrapperLink (a link, a split) and
# ::WrapperTable (the compiler's own table), and through them
# RecordMcount::Run and ::Front;
# RecordMcount::Pipeline while the compiler runs, and only for a compile
# that records)

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

# run_wrapper(WORDS, masquerade => BOOL, classify_only => BOOL): mcount-cc
# on a command's words ([LAUNCHER]... COMPILER ARG...): the decision
# printed (classify_only), or the compiler run, exec'd in this process's
# place where nothing is recorded, and the objects or the link recorded.
# Does not return.
sub run_wrapper {
    my ($words, %how) = @_;
    my ($masquerade, $classify_only) = @how{qw(masquerade classify_only)};
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
    # (RecordMcount::Front, which knows a list of sections, is loaded
    # only where there is one to check)
    bad_usage("MCOUNT_CC_SECTIONS must be kernel, all, or NAME,NAME*,..., not '$sections'")
        unless $sections eq 'kernel' || do { require RecordMcount::Front; RecordMcount::Front::sections_spec_ok($sections) };
    my $table = $ENV{MCOUNT_CC_TABLE} // '';
    $table = 'writable' unless length $table;
    bad_usage("MCOUNT_CC_TABLE must be writable or readonly, not '$table'") unless $table =~ /^(?:writable|readonly)\z/;
    my %cls = (nested => $depth > 0, mode => $mode, compiler => $compiler);
    my $d = classify(\@args, hook_flags => \@hook, %cls);
    my %w = (compiler => $compiler, path => $compiler_path, args => \@args, launchers => \@launchers,
        masquerade => $masquerade, say => \&verbose, load => \&need_modules, missing => \&pipeline_missing,
        exit_record => $EXIT_RECORD, exit_no_compiler => $EXIT_NO_COMPILER, guard => [$GUARD, $depth]);
    my $table_arch;
    if ($mode eq 'compiler' && $d->{action} =~ /^(?:compile|split)\z/) {
        need_modules('WrapperTable');
        (my $flags, $table_arch) = RecordMcount::WrapperTable::table_flags(\%w, \@given);
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
    # the rest: RecordMcount::WrapperLink's and ::WrapperRecord's (none of
    # them returns)
    if ($d->{action} =~ /^(?:link|split)\z/) {
        need_modules('WrapperLink');
        RecordMcount::WrapperLink::link_through_pass(\%w, $d, $d->{command}) if $d->{action} eq 'link';
        RecordMcount::WrapperLink::split_and_link(\%w, $d);
    }
    need_modules('WrapperRecord');
    RecordMcount::WrapperRecord::record_compile(\%w, $d, \@exec, [@run, @cargs], $sections, $table);
}

1;
