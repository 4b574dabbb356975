# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Front;
# What the commands share: the version, where the helper and the tracing
# library are, and the words more than one of them says.  How a message
# looks is RecordMcount::Message's; an ELF file is read by
# RecordMcount::Elf.  The names mcount-trace takes from here for those
# (set_program, error, ..., elf_has_section, elf_static) are theirs,
# handed on.
#
# Each command finds this module with the three lines of its BEGIN block
# (its own directory, symbolic links resolved, then lib/ or ../lib): they
# run before any module can be loaded, so they cannot live here.  The tree
# and an installation have the same layout (bin/, lib/, and the helper in
# build/ or libexec/), so nothing is rewritten when installing.
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Message ();
our @EXPORT_OK = qw(print_version sections_spec_ok plural helper_path attach_helper_path reader_path trace_lib_path
    trace_lib_for lto_text);

our $VERSION = '0.1.0';

sub print_version { print RecordMcount::Message::command(), " (recordmcount) $VERSION\n"; return }

# A list of sections to record: kernel, all, or NAME,NAME*,...
sub sections_spec_ok { return $_[0] =~ /^(?:kernel|all)\z/ || $_[0] =~ /^[^,]+(?:,[^,]+)*\z/ }

# "1 call", "2 calls"
sub plural { my ($n, $w) = @_; return "$n $w" . ($n == 1 ? '' : 's') }

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

# mcount-scan ($RECORDMCOUNT_HELPER), mcount-attach, the helper of
# mcount-trace attach ($RECORDMCOUNT_ATTACH), mcount-read, the reader of
# a recording ($RECORDMCOUNT_READ), and libmcount-trace.so, the library
# mcount-trace preloads ($RECORDMCOUNT_TRACE_LIB).
sub helper_path { return _beside('RECORDMCOUNT_HELPER', 'mcount-scan', sub { -x $_[0] }) }
sub attach_helper_path { return _beside('RECORDMCOUNT_ATTACH', 'mcount-attach', sub { -x $_[0] }) }
sub reader_path { return _beside('RECORDMCOUNT_READ', 'mcount-read', sub { -x $_[0] }) }
sub trace_lib_path { return _beside('RECORDMCOUNT_TRACE_LIB', 'libmcount-trace.so', sub { -f $_[0] }) }

# The architecture of an ELF file, as the tracer's libraries are named
# (undef: none): RecordMcount::TraceLib's, loaded where it is asked.
sub elf_arch {
    require RecordMcount::TraceLib;
    return RecordMcount::TraceLib::elf_arch(@_);
}

# The tracing library for PROGRAM (a path), trace_lib_path's or one of
# the program's own architecture: (path, undef) or (undef, message), as
# RecordMcount::TraceLib finds it (only mcount-trace asks: the record
# steps do not compile it).
sub trace_lib_for {
    my ($prog) = @_;
    my $lib = trace_lib_path();
    return ($lib, undef) if defined $ENV{RECORDMCOUNT_TRACE_LIB};
    require RecordMcount::TraceLib;
    return RecordMcount::TraceLib::trace_lib_for($prog, $lib);
}

1;
