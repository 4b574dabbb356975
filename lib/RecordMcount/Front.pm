# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Front;
# What the commands share: the version, where the helper is, how
# messages look, usage errors, and the messages more than one prints.
#
# Messages follow binutils: "PROG: FILE: message" for an error,
# "PROG: FILE: warning: message" and "PROG: FILE: note: message" (FILE
# where there is one); a usage error adds "Try 'CMD --help' for more
# information." and exits 2.
#
# Each command finds this module with the three lines of its BEGIN block
# (its own directory, symbolic links resolved, then lib/ or ../lib): they
# run before any module can be loaded, so they cannot live here.  The tree
# and an installation have the same layout (bin/, lib/, and the helper in
# build/ or libexec/), so nothing is rewritten when installing.
use strict;
use warnings;

use RecordMcount::Exports;
our @EXPORT_OK = qw(set_program program error warning fatal bad_usage print_version
    helper_path trace_lib_path lto_text);

our $VERSION = '0.1.0';

my ($PROG, $CMD) = ('recordmcount', 'recordmcount');

# The name messages start with, and the command the usage hint names.
sub set_program { ($PROG, $CMD) = ($_[0], $_[1] // $_[0]); return }
sub program { return $PROG }

sub print_version { print "$CMD (recordmcount) $VERSION\n"; return }

# One message line (or more: a tool's own words indented under it).
sub error {
    my ($msg) = @_;
    $msg =~ s/\n?\z/\n/;
    print STDERR "$PROG: $msg";
    return;
}

sub warning {
    my ($file, $msg) = @_;
    error(defined $file ? "$file: warning: $msg" : "warning: $msg");
    return;
}

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

sub lto_text {
    return 'an LTO object has no machine code to record '
        . '(compile without -flto, or with -ffat-lto-objects)';
}

# A file of the project's beside lib/ (where this module is): $ENV{VAR}
# if set, else the tree's build/NAME, else the installation's
# libexec/NAME.
sub _beside {
    my ($var, $name, $usable) = @_;
    return $ENV{$var} if defined $ENV{$var};
    my $root = __FILE__ =~ s{/*[^/]+/+[^/]+/+[^/]+\z}{}r;
    $root = '.' unless length $root;
    my $built = "$root/build/$name";
    return $usable->($built) ? $built : "$root/libexec/$name";
}

# mcount-scan ($RECORDMCOUNT_HELPER), and libmcount-trace.so, the library
# mcount-trace preloads ($RECORDMCOUNT_TRACE_LIB).
sub helper_path { return _beside('RECORDMCOUNT_HELPER', 'mcount-scan', sub { -x $_[0] }) }
sub trace_lib_path { return _beside('RECORDMCOUNT_TRACE_LIB', 'libmcount-trace.so', sub { -f $_[0] }) }

1;
