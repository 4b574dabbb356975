# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Plan;
# The one reader of what mcount-scan tells the pipeline: the plan of
# --plan and the facts of --identify (the protocol is written down in
# doc/internals.md), and the helper's exit statuses (its messages are
# read by RecordMcount::Failure).  The
# values that only --verify needs (hooks, call-forms) are read by
# RecordMcount::Calls, which alone uses them.
use strict;
use warnings;

use RecordMcount::Exports;
our @EXPORT_OK = qw(parse_plan
    HELPER_OK HELPER_BAD_INPUT HELPER_USAGE HELPER_NO_LISTING);

# mcount-scan's exit statuses (src/util.h names them the same way).
sub HELPER_OK ()         { 0 }    # done (nothing to record included)
sub HELPER_BAD_INPUT ()  { 1 }    # the object or its listing cannot be recorded
sub HELPER_USAGE ()      { 2 }    # bad arguments
sub HELPER_NO_LISTING () { 3 }    # the listing is empty: objdump failed

# Keys that may repeat, with the number of fields each line has; every
# other key is one value.
my %LIST = (globalize => 1, 'remove-section' => 1, 'add-symbol' => 3, anchor => 3);

# "KEY\tVALUE..." lines -> { KEY => VALUE, or for the repeating keys
# KEY => [VALUE...] (one field) or [[FIELD...]...] }.
sub parse_plan {
    my ($text) = @_;
    my %plan = map { $_ => [] } keys %LIST;
    for my $line (split /\n/, $text) {
        my ($key, @f) = split /\t/, $line, -1;
        next unless defined $key && length $key;
        if (my $n = $LIST{$key}) { push @{ $plan{$key} }, $n == 1 ? $f[0] : [@f] }
        else                     { $plan{$key} = $f[0] }
    }
    return \%plan;
}

1;
