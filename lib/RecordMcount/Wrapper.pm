# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Wrapper;
# What a compiler wrapper does around the compiler (mcount-cc; its link
# through the pass is RecordMcount::Link's wrapper_link): find the real
# compiler on PATH, run it as the user would, record the objects it
# wrote.  A module of its own so that recordmcount.pl and mcount-record,
# which load the record pipeline for every object, do not compile it.
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Run qw(spawn reap temp_path forget_temp basename);
use RecordMcount::Message qw(fatal throw caught);
# (RecordMcount::Pipeline is not loaded here: the wrapper requires it
# while the compiler runs, and only for a compile that records)

our @EXPORT_OK = qw(find_other_program run_inherit wrapper_record);

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

# Run a command as a compiler wrapper runs the compiler: with this
# process's standard handles and environment, the locale included (the
# compiler speaks to the user), and call while => SUB here as it runs.
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

1;
