# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::OptionWords;
# Getopt::Long's complaints in GNU getopt's words, which name the option
# as it is written: for RecordMcount::Message's option_complaint_for,
# which prints them (this module prints nothing and calls nothing).
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

1;
