# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::MessageText;
# The text of the rarer messages, for RecordMcount::Message, which
# prints them and hands these subs on: Getopt::Long's complaints in GNU
# getopt's words (option_complaint_for), a child's end and a failed
# tool's words.  Compiled with the first of them (a bad option, a
# failure): most runs have none.  This module prints nothing and calls
# nothing of the project's.
use strict;
use warnings;

# gnu_words(COMPLAINT, WORD): COMPLAINT (Getopt::Long's warning: it names
# an unknown option without its dashes) in GNU getopt's words; WORD, the
# word it was reading, tells a long option of one letter ("--x") from a
# letter in a bundle.  Any other text is returned as it is.
sub gnu_words {
    my ($w, $word) = @_;
    my $long = sub { length $_[0] > 1 || ($word // '') =~ /^--/ };
    my $opt = sub { $long->($_[0]) ? "'--$_[0]'" : "'-$_[0]'" };
    $w =~ s/^Unknown option: (\S+)$/$long->($1) ? "unrecognized option '--$1'" : "invalid option -- '$1'"/me
        or $w =~ s/^Option (\S+) requires an argument$/$long->($1) ? "option '--$1' requires an argument"
            : "option requires an argument -- '$1'"/me
        or $w =~ s/^Option (\S+) does not take an argument$/'option ' . $opt->($1) . " doesn't allow an argument"/me
        or $w =~ s/^Option (\S+) is ambiguous \((.*)\)$/"option '--$1' is ambiguous; possibilities: "
            . join(' ', map { "'--$_'" } split m{, }, $2)/me;
    return $w;
}

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
