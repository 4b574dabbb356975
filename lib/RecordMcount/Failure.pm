# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Failure;
# How a failure is told, in one place, loaded only when something fails
# (a record step runs once per object and most never fail): a wait status
# in words, a failed tool's line with its own words indented under it,
# and the helper's message with its "PROG: FILE: " taken off.
use strict;
use warnings;

use RecordMcount::Exports;
our @EXPORT_OK = qw(status_text tool_name tool_text tool_failure helper_message);

# "exited 1", "killed by signal 9 (KILL)" for a wait status.
sub status_text {
    my ($st) = @_;
    return 'could not be run' if $st == -1;
    if ($st & 127) {
        my $n = $st & 127;
        require Config;
        my @names = split ' ', do { no warnings 'once'; $Config::Config{sig_name} };
        return "killed by signal $n" . ($names[$n] ? " ($names[$n])" : '');
    }
    return 'exited ' . ($st >> 8);
}

sub tool_name {
    my ($cmd) = @_;
    return $cmd->[0] =~ s{.*/}{}sr;
}

# A tool's stderr, indented under our own message line.
sub tool_text {
    my ($text) = @_;
    return '' unless defined $text && length $text;
    $text =~ s/\s+\z//;
    return join '', map { "  $_\n" } split /\n/, $text;
}

# "LABEL: WHAT failed (TOOL exited 1)" and the tool's own words under it.
sub tool_failure {
    my ($label, $what, $cmd, $st, $err) = @_;
    return "$label: $what failed (" . tool_name($cmd) . ' ' . status_text($st) . ")\n"
        . tool_text($err);
}

# The helper's message ("PROG: FILE: text" and lines after it) as
# "text" and the rest, for a front end to put its own name and label on.
sub helper_message {
    my ($stderr, $label) = @_;
    $stderr =~ s/\s+\z//;
    my ($first, @rest) = split /\n/, $stderr;
    $first //= '';
    $first =~ s/^[^:]+: //;
    $first =~ s/^\Q$label\E: // if defined $label;
    return ($first, join '', map { "$_\n" } @rest);
}

1;
