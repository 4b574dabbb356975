# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Exports;
# The import() of the project's modules: `use RecordMcount::Exports;` in a
# module gives it an import that hands the subs a user names from the
# module's @EXPORT_OK, and refuses any other name, as Exporter does.
# Exporter.pm costs more to compile than a record step's own modules
# gain from it, and a record step starts once per object: this is all of
# it the project uses.
use strict;
use warnings;

sub import {
    no strict 'refs';
    *{ caller() . '::import' } = sub {
        my ($module, @names) = @_;
        my $to = caller;
        my %ok = map { $_ => 1 } @{"${module}::EXPORT_OK"};
        for my $name (@names) {
            die "\"$name\" is not exported by the $module module\n" unless $ok{$name};
            *{"${to}::$name"} = \&{"${module}::$name"};
        }
    };
    return;
}

1;
