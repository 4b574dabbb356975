# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::WrapperRecord;
# What mcount-cc does around the compiler beyond running it as it is
# (RecordMcount::Wrapper: the decision, and a command passed on or a
# compile that records nothing, exec'd; RecordMcount::WrapperLink: a
# link): the compile that records, its objects through the record
# pipeline; the flags of the compiler's own table, found by probes
# (MCOUNT_CC_MODE=compiler).  Loaded only by those: most of a build's
# commands are compiles that only get the hook flags.
#
# W, the wrapper's command as every sub here and in
# RecordMcount::WrapperLink takes it: compiler (its
# name as given), path (where it is), args (the words after it),
# launchers, masquerade, say (a sub told what is done:
# MCOUNT_CC_VERBOSE), load (a sub that loads modules of the project, or
# says the installation lacks them), missing (that saying, of a load's
# error), exit_record, exit_no_compiler (the wrapper's exit statuses),
# guard ([VAR, DEPTH]: how deep in mcount-cc the command runs).
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Run qw(run_inherit temp_path forget_temp register_temp exit_like run_tool dirname);
use RecordMcount::Names qw(shell_quote);
use RecordMcount::Message qw(program error warning fatal throw caught);
use RecordMcount::Front qw(helper_path lto_text plural);
use RecordMcount::Argv qw(probe_args);

our @EXPORT_OK = qw(table_flags record_compile);

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

# The compiler's own table (MCOUNT_CC_MODE=compiler): the flags that make
# the compiler (W's compiler, at its path) write NOPs and their table for
# the target W's args select, and that target's name: GIVEN (MCOUNT_CC_FLAGS), else the
# cc-table-flags of the target's row (mcount-scan --identify of a probe
# compiled with ARGS' target and code options, Argv's probe_args).  A
# probe compiled with the flags must hold the table they make; where the
# target has no flags chosen or the compiler refuses them or makes no
# table, the command is refused (exit status 100), saying why.  What the
# probes found is kept (_probe_cache) and taken the next time.
sub table_flags {
    my ($w, $given) = @_;
    my ($compiler, $path, $args) = @$w{qw(compiler path args)};
    my @base = @{ probe_args($args) };
    my $cache = _probe_cache($path, \@base, $given);
    if (defined $cache && open(my $in, '<', $cache)) {
        my $line = <$in> // '';
        close $in;
        if ($line =~ /\A(\w+)\t(\S.*)\n\z/) {
            $w->{say}->("the compiler's table for $1: $2, as a probe found it ($cache)");
            return ([split ' ', $2], $1);
        }
    }
    $w->{load}->('Tools');
    my $dir = length($ENV{TMPDIR} // '') && -d $ENV{TMPDIR} ? $ENV{TMPDIR} : '/tmp';
    my $src = temp_path("$dir/mcount-cc-probe", 'c');
    my @made = ($src);
    my $ok = open(my $fh, '>', $src);
    $ok &&= print $fh "void mcount_cc_probe(void);\nvoid mcount_cc_probe(void) { }\n";
    $ok &&= close $fh;
    fatal($w->{exit_record}, "$compiler: MCOUNT_CC_MODE=compiler: cannot write the probe's source: $!") unless $ok;
    my $refuse = sub {
        unlink @made;
        fatal($w->{exit_record}, "$compiler: MCOUNT_CC_MODE=compiler: $_[0]");
    };
    # a probe compiled with FLAGS: its object, or the compiler's complaint
    my $probe = sub {
        my (@flags) = @_;
        my $obj = temp_path("$dir/mcount-cc-probe", 'o');
        push @made, $obj;
        my @cmd = ($path, @base, @flags, '-c', '-x', 'c', $src, '-o', $obj);
        $w->{say}->('probe: ' . join(' ', map { shell_quote($_) } @cmd));
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
    my $dir = dirname($file);
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

# Decision D's compile (COMPILE, the words run; EXEC, the program run:
# the compiler or its launcher), then every object it wrote recorded,
# with SECTIONS and TABLE (MCOUNT_CC_SECTIONS, MCOUNT_CC_TABLE).  Does
# not return.
sub record_compile {
    my ($w, $d, $exec, $compile, $sections, $table) = @_;
    my ($compiler, $path) = @$w{qw(compiler path)};
    my $say = $w->{say};
    my @compile = @$compile;
    $say->("record: " . join(' ', map { shell_quote($_) } @compile));
    # The pipeline's modules load while the compiler runs; a failure to load
    # them (a broken installation) is reported once the compiler is done.
    my $load_error;
    my $st = run_inherit(cmd => \@compile, path => $exec->[0], fail_status => $w->{exit_no_compiler}, while => sub {
        eval { require RecordMcount::Pipeline; require RecordMcount::Tools; 1 } or $load_error = $@;
    });
    exit_like($st) if $st != 0;
    my @objects = @{ $d->{objects} };
    # no object may look finished before its table is in it: every way out
    # of this process before then removes them (wrapper_record)
    register_temp(@objects);
    $w->{missing}->($load_error) if defined $load_error;
    my $tools = eval { RecordMcount::Tools::find_tools(triple => RecordMcount::Tools::compiler_triple(
        $compiler, $path, $w->{args}, $objects[0])) } // fatal($w->{exit_record}, caught($@));
    # (programs are PIE by default: a writable table needs no text relocations)
    my %opts = (prog => program(), helper => helper_path(), (map { $_ => $tools->{$_} } qw(objdump objcopy ld as)),
        entry => 'call', sections => $sections, listing => 'relocs', writable_table => $table eq 'writable');
    my ($failed, $err) = wrapper_record(\@objects, \%opts, done => sub {
        my ($obj, $r) = @_;
        warning($obj, lto_text()) if $r->{status} eq 'lto';
        $say->("$obj: $r->{status}" . ($r->{sites} ? ' (' . plural($r->{sites}, 'call site') . ')' : '')
            . ' with ' . join(', ', map { $_->[0] } @{$tools}{qw(objdump objcopy ld as)}));
    });
    exit 0 unless defined $failed;
    error($err);
    # the commands that redo the failed step by hand, with its settings
    my @o = ($opts{writable_table} ? ('--writable-table') : (), $sections ne 'kernel' ? ("--sections=$sections") : ());
    error('the object was removed; to reproduce: ' . join(' ', map { shell_quote($_) } @compile) . ' && '
        . join(' ', RecordMcount::Tools::tool_env($tools), 'mcount-record', @o, shell_quote($failed)));
    exit $w->{exit_record};
}

1;
