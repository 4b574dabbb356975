# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::WrapperRecord;
# What mcount-cc does around the compiler beyond running it as it is
# (RecordMcount::Wrapper: the decision, and a command passed on or a
# compile that records nothing, exec'd; RecordMcount::WrapperLink: a
# link; RecordMcount::WrapperTable: the flags of the compiler's own
# table): the compile that records, its objects through the record
# pipeline.  Loaded only by that: most of a build's commands are
# compiles that only get the hook flags.
#
# W, the wrapper's command as every sub here, in RecordMcount::WrapperLink
# and in RecordMcount::WrapperTable takes it: compiler (its name as
# given), path (where it is), args (the words after it),
# launchers, masquerade, say (a sub told what is done:
# MCOUNT_CC_VERBOSE), load (a sub that loads modules of the project, or
# says the installation lacks them), missing (that saying, of a load's
# error), exit_record, exit_no_compiler (the wrapper's exit statuses),
# guard ([VAR, DEPTH]: how deep in mcount-cc the command runs).
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Run qw(run_inherit temp_path forget_temp register_temp exit_like);
use RecordMcount::Names qw(shell_quote);
use RecordMcount::Message qw(program error warning fatal throw caught);
use RecordMcount::Front qw(helper_path lto_text plural);

our @EXPORT_OK = qw(record_compile);

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
