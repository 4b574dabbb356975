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
# (arches.tab's tracer column: RecordMcount::Arch's arch_of_elf, which
# names what no row describes too, mips n32 say, or "machine N"); undef
# for a file that is none (a script) or cannot be read.
sub elf_arch {
    my ($file) = @_;
    require RecordMcount::Elf;
    return _arch_of_header(RecordMcount::Elf::elf_header($file));
}

# The same of a header elf_header read (undef: none).
sub _arch_of_header {
    my ($h) = @_;
    return undef unless $h && defined $h->{machine};
    require RecordMcount::Arch;
    return RecordMcount::Arch::arch_of_elf(@$h{qw(class data machine)}, $h->{flags} // 0);
}

# The tracing library for PROGRAM (a path): trace_lib_path's, or where
# the program is of another architecture than that one, the library
# built for its own beside it, in ARCH/ (build/i386/ in the tree); or,
# where trace_lib_path's is a symbolic link to a library directory (a
# Debian package's: /usr/lib/x86_64-linux-gnu/libmcount-trace.so.0),
# the one of the program's architecture among that directory's
# siblings (libmcount-trace0:i386's /usr/lib/i386-linux-gnu/).
# Returns (path, undef) or (undef, message).
sub trace_lib_for {
    my ($prog) = @_;
    my $lib = trace_lib_path();
    return ($lib, undef) if defined $ENV{RECORDMCOUNT_TRACE_LIB};
    # (the library's own kind of ELF file: no need of arches.tab)
    require RecordMcount::Elf;
    my ($hp, $hl) = map { RecordMcount::Elf::elf_header($_) } $prog, $lib;
    return ($lib, undef) if !$hp || !$hl
        || join(':', map { $_ // '' } @$hp{qw(class data machine flags)})
        eq join(':', map { $_ // '' } @$hl{qw(class data machine flags)});
    my ($want, $have) = map { _arch_of_header($_) } $hp, $hl;
    return ($lib, undef) if !defined $want || !defined $have || $want eq $have;
    return (undef, "$prog: a program for $want, which libmcount-trace is not built for")
        unless RecordMcount::Arch::arch_traced($want);
    my $other = ($lib =~ s{[^/]*\z}{}r) . "$want/libmcount-trace.so";
    return ($other, undef) if -f $other;
    my $multi = _multiarch_lib($lib, $want);
    return ($multi, undef) if defined $multi;
    return (undef, "$prog: a program for $want, and no tracing library for it at $other "
        . "(make rt-$want, or set RECORDMCOUNT_TRACE_LIB)");
}

# The library of architecture WANT beside the one LIB links to, in
# another directory of the same parent: DIR/*/NAME, NAME the link's
# target's (undef: none, or LIB no link).
sub _multiarch_lib {
    my ($lib, $want) = @_;
    return undef unless -l $lib;
    require Cwd;
    my $real = Cwd::abs_path($lib) // return undef;
    my ($parent, $name) = $real =~ m{\A(.*)/[^/]+/([^/]+)\z} or return undef;
    opendir(my $dh, $parent) or return undef;
    for my $cand (map { "$parent/$_/$name" } sort grep { !/\A\.\.?\z/ } readdir $dh) {
        next if $cand eq $real || !-f $cand;
        my $arch = _arch_of_header(RecordMcount::Elf::elf_header($cand));
        return $cand if defined $arch && $arch eq $want;
    }
    return undef;
}

1;
