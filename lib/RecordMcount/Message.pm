# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Message;
# How the commands speak, in one place: the only module that prints a
# message line, the one error class the library throws, and a child's
# wait status in words.
#
# Messages follow binutils: "PROG: FILE: message" for an error,
# "PROG: FILE: warning: message" and "PROG: FILE: note: message" (FILE
# where there is one); a usage error adds "Try 'CMD --help' for more
# information." and exits 2.  A tool's own words go indented under the
# line that names it.
#
# A failure is thrown with throw("LABEL: MESSAGE") as a
# RecordMcount::Error, which prints as its message (with a newline at
# its end) and may carry more: {usage} (bad arguments: an unknown ARCH, a bad
# section list), {link_status} and {link_stderr} (a link command that
# failed by itself).  A catcher takes caught($@): always such an object,
# a die of perl's own included, for error() to print.
use strict;
use warnings;

use RecordMcount::Exports;
our @EXPORT_OK = qw(set_program program command error warning inform fatal bad_usage
    option_complaint_for throw caught status_text tool_name tool_text tool_failure helper_message);

my ($PROG, $CMD) = ('recordmcount', 'recordmcount');

# The name messages start with, and the command the usage hint names.
sub set_program { ($PROG, $CMD) = ($_[0], $_[1] // $_[0]); return }
sub program { return $PROG }
sub command { return $CMD }

# One message line (or more: a tool's own words indented under it).
# MSG is a string or a caught error.
sub error {
    my ($msg) = @_;
    $msg = "$msg";
    $msg =~ s/\n?\z/\n/;
    print STDERR "$PROG: $msg";
    return;
}

sub warning {
    my ($file, $msg) = @_;
    error(defined $file ? "$file: warning: $msg" : "warning: $msg");
    return;
}

# What a command says it does when asked to (mcount-cc's
# MCOUNT_CC_VERBOSE): a line of the same form.
sub inform { error($_[0]); return }

sub fatal {
    my ($status, $msg) = @_;
    error($msg);
    exit $status;
}

sub bad_usage {
    my ($msg) = @_;
    error($msg) if defined $msg;
    print STDERR "Try '$CMD --help' for more information.\n";
    exit 2;
}

# A complaint of Getopt::Long's, said in GNU getopt's words (they name
# the option as it is written): local $SIG{__WARN__} =
# option_complaint_for(\@ARGV) while the options are read from @ARGV.
# The word it was reading (which tells a long option of one letter,
# "--x", from a letter in a bundle) is the last one taken off the array
# so far (the array is only ever shortened from its front while options
# are read).  The words are RecordMcount::MessageText's, loaded with the
# first complaint: a command that reads no option does not compile them.
sub option_complaint_for {
    my ($args) = @_;
    my @words = @$args;
    return sub {
        my $taken = @words - @$args;
        require RecordMcount::MessageText;
        error(RecordMcount::MessageText::gnu_words($_[0], $taken > 0 ? $words[$taken - 1] : ''));
    };
}

# --- the error class ------------------------------------------------------

# The class prints as its message.  overload.pm costs a record step more
# than all of this module, and most runs throw nothing: it is loaded with
# the first error.
my $CLASS = 'RecordMcount::Error';
my $class_ready;
sub _error_class {
    return if $class_ready;
    $class_ready = 1;
    package RecordMcount::Error;
    require overload;
    overload->import('""' => sub { $_[0]{msg} }, fallback => 1);
    return;
}

# An error that prints as MSG (one newline at its end), with ATTRS.
sub _new_error {
    my ($msg, %attrs) = @_;
    _error_class();
    $msg =~ s/\n?\z/\n/;
    return bless { %attrs, msg => $msg }, $CLASS;
}

# Throw MSG ("FILE: message", the form every failure of a file takes).
sub throw { my ($msg, %attrs) = @_; die _new_error($msg, %attrs) }

# What a catcher holds: ERR (a caught $@) as a RecordMcount::Error, a
# die of perl's own (a module that would not load) with its own words.
sub caught {
    my ($err) = @_;
    return $err if ref $err && ref $err eq $CLASS;
    return _new_error($err // '');
}

# --- a child's end, and a tool's words, in a message ---------------------
# (RecordMcount::MessageText's, compiled with the first: they are said of
# a failure, and most runs have none)

# "exited 1", "killed by signal 9 (KILL)" for a wait status.
sub status_text { require RecordMcount::MessageText; return RecordMcount::MessageText::status_text(@_) }

# The name of a tool's command, for a message.
sub tool_name { require RecordMcount::MessageText; return RecordMcount::MessageText::tool_name(@_) }

# A tool's stderr, indented under our own message line.
sub tool_text { require RecordMcount::MessageText; return RecordMcount::MessageText::tool_text(@_) }

# "LABEL: WHAT failed (TOOL exited 1)" and the tool's own words under it.
sub tool_failure { require RecordMcount::MessageText; return RecordMcount::MessageText::tool_failure(@_) }

# The helper's message ("PROG: FILE: text" and lines after it) as
# "text" and the rest, for a front end to put its own name and label on.
sub helper_message { require RecordMcount::MessageText; return RecordMcount::MessageText::helper_message(@_) }

1;
