# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::TraceLib;
# Which tracing library a program takes (mcount-trace, through
# RecordMcount::Front's trace_lib_for and elf_arch, which hand on to
# this): the program's architecture read from its ELF header, the
# library built for it beside the default one or in a sibling multiarch
# directory.  A module of its own: the record steps, which load Front
# once per object, do not compile it.
use strict;
use warnings;

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

# The tracing library for PROGRAM (a path): LIB (RecordMcount::Front's
# trace_lib_path, not set by the user), or where the program is of
# another architecture than that one, the library
# built for its own beside it, in ARCH/ (build/i386/ in the tree); or,
# where trace_lib_path's is a symbolic link to a library directory (a
# Debian package's: /usr/lib/x86_64-linux-gnu/libmcount-trace.so.0),
# the one of the program's architecture among that directory's
# siblings (libmcount-trace0:i386's /usr/lib/i386-linux-gnu/).
# Returns (path, undef) or (undef, message).
sub trace_lib_for {
    my ($prog, $lib) = @_;
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
