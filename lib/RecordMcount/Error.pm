# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Error;
# An error of the record pipeline that prints as its message and says
# whether it was bad usage ({usage}: an unknown ARCH, a bad section list).
# Loaded with the first such error: most runs have none.
use strict;
use warnings;
use overload '""' => sub { $_[0]{msg} }, fallback => 1;

sub new {
    my ($class, $msg, %a) = @_;
    return bless { msg => $msg, %a }, $class;
}

1;
