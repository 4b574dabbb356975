# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Front;
# What the commands share: the version, where the helper and the tracing
# library are, the words more than one of them says, and a quick look at
# an ELF file.  How a message looks is RecordMcount::Message's; the names
# mcount-trace takes from here for it (set_program, error, ...) are its,
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
use RecordMcount::Message qw(set_program program error warning fatal bad_usage option_complaint_for);
our @EXPORT_OK = qw(print_version sections_spec_ok plural helper_path trace_lib_path trace_lib_for lto_text
    elf_machine elf_has_section elf_static
    set_program program error warning fatal bad_usage option_complaint_for);

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

# mcount-scan ($RECORDMCOUNT_HELPER), and libmcount-trace.so, the library
# mcount-trace preloads ($RECORDMCOUNT_TRACE_LIB).
sub helper_path { return _beside('RECORDMCOUNT_HELPER', 'mcount-scan', sub { -x $_[0] }) }
sub trace_lib_path { return _beside('RECORDMCOUNT_TRACE_LIB', 'libmcount-trace.so', sub { -f $_[0] }) }

# An ELF file's class, byte order and machine ("2:1:62"), or undef.
sub elf_machine {
    my ($file) = @_;
    return undef unless defined $file;
    open(my $fh, '<:raw', $file) or return undef;
    (read($fh, my $h, 20) // 0) == 20 or return undef;
    my ($magic, $class, $data) = unpack 'a4 C C', $h;
    return undef unless $magic eq "\x7fELF" && ($data == 1 || $data == 2);
    return "$class:$data:" . unpack($data == 2 ? 'n' : 'v', substr($h, 18, 2));
}

# Does the ELF file have a section of this name?  Read from its section
# headers alone (a link's inputs are looked at quickly); undef for a
# file that is no ELF or cannot be read.
# FILE opened for its ELF headers: (handle, the byte order's pack flag,
# 64-bit?, its first 64 bytes), or () for a file that is no ELF.
sub _elf_open {
    my ($file) = @_;
    my ($class, $data) = split /:/, elf_machine($file) // return ();
    open(my $fh, '<:raw', $file) or return ();
    my $is64 = $class == 2;
    (read($fh, my $h, 64) // 0) >= ($is64 ? 64 : 52) or return ();
    return ($fh, $data == 2 ? '>' : '<', $is64, $h);
}

sub elf_has_section {
    my ($file, $want) = @_;
    my ($fh, $e, $is64, $h) = _elf_open($file) or return undef;
    my ($shoff, $shentsize, $shnum, $shstrndx) = $is64
        ? unpack("x40 Q$e x10 S$e S$e S$e", $h) : unpack("x32 L$e x10 S$e S$e S$e", $h);
    return undef if !$shoff || $shentsize < ($is64 ? 64 : 40) || !$shnum || $shstrndx >= $shnum;
    seek($fh, $shoff, 0) or return undef;
    (read($fh, my $all, $shnum * $shentsize) // 0) == $shnum * $shentsize or return undef;
    my @sh = map { [$is64 ? unpack("L$e x20 Q$e Q$e", substr($all, $_ * $shentsize, $shentsize))
        : unpack("L$e x12 L$e L$e", substr($all, $_ * $shentsize, $shentsize))] } 0 .. $shnum - 1;
    my ($stroff, $strsize) = @{ $sh[$shstrndx] }[1, 2];
    seek($fh, $stroff, 0) or return undef;
    (read($fh, my $str, $strsize) // 0) == $strsize or return undef;
    for my $s (@sh) {
        my $end = index($str, "\0", $s->[0]);
        return 1 if $end >= 0 && substr($str, $s->[0], $end - $s->[0]) eq $want;
    }
    return 0;
}

# Is the ELF program FILE statically linked, one that no dynamic linker
# loads and so LD_PRELOAD cannot reach?  Read from its program headers:
# 1 for an ET_EXEC without PT_INTERP, or a static PIE (an ET_DYN without
# PT_INTERP whose dynamic section has DF_1_PIE in DT_FLAGS_1, or that
# has no dynamic section at all); 0 for a program with PT_INTERP, and
# for a shared object without it (a shared library, or the dynamic
# linker run as a program, which does honour LD_PRELOAD); undef for a
# file that is no ELF program (a script) or cannot be read.
sub elf_static {
    my ($file) = @_;
    my ($fh, $e, $is64, $h) = _elf_open($file) or return undef;
    my ($W, $wsize) = $is64 ? ("Q$e", 8) : ("L$e", 4);
    my $type = unpack("x16 S$e", $h);
    return undef unless $type == 2 || $type == 3;    # ET_EXEC, ET_DYN
    # e_phoff, e_shoff, then (after e_flags and e_ehsize) e_phentsize, e_phnum
    my ($phoff, $shoff, $phentsize, $phnum) = $is64
        ? unpack("x32 Q$e Q$e x6 S$e S$e", $h) : unpack("x28 L$e L$e x6 S$e S$e", $h);
    if ($phnum == 0xffff) {    # PN_XNUM: the count is section 0's sh_info
        return undef unless $shoff && seek($fh, $shoff + ($is64 ? 44 : 28), 0);
        (read($fh, my $info, 4) // 0) == 4 or return undef;
        $phnum = unpack("L$e", $info);
    }
    return undef if !$phoff || !$phnum || $phentsize < ($is64 ? 56 : 32) || $phnum > 65536;
    seek($fh, $phoff, 0) or return undef;
    (read($fh, my $all, $phnum * $phentsize) // 0) == $phnum * $phentsize or return undef;
    my @dynamic;
    for my $i (0 .. $phnum - 1) {
        my $ph = substr($all, $i * $phentsize, $phentsize);
        my ($p_type, $offset, $filesz) = $is64
            ? unpack("L$e x4 Q$e x16 Q$e", $ph) : unpack("L$e L$e x8 L$e", $ph);
        return 0 if $p_type == 3;                   # PT_INTERP
        @dynamic = ($offset, $filesz) if $p_type == 2;    # PT_DYNAMIC
    }
    return 1 if $type == 2 || !@dynamic;
    # an ET_DYN: a static PIE says so in its DT_FLAGS_1
    my ($offset, $size) = @dynamic;
    $size = 1 << 20 if $size > 1 << 20;
    seek($fh, $offset, 0) or return undef;
    my $n = read($fh, my $dyn, $size) // return undef;
    for (my $at = 0; $at + 2 * $wsize <= $n; $at += 2 * $wsize) {
        my ($tag, $val) = unpack("$W $W", substr($dyn, $at, 2 * $wsize));
        last if $tag == 0;                                     # DT_NULL
        return (($val & 0x08000000) ? 1 : 0) if $tag == 0x6ffffffb;    # DT_FLAGS_1, DF_1_PIE
    }
    return 0;
}

# The architecture of an ELF file, as the tracer's libraries are named
# (arches.tab's tracer column: RecordMcount::Arch's arch_of_elf, which
# names what no row describes too, mips n32 say, or "machine N"); undef
# for a file that is none (a script) or cannot be read.
sub elf_arch {
    my ($file) = @_;
    my ($class, $data, $m) = split /:/, elf_machine($file) // return undef;
    my $flags = 0;
    if (open(my $fh, '<:raw', $file)) {
        my $at = $class == 2 ? 48 : 36;    # e_flags
        my $h;
        $flags = unpack($data == 2 ? 'N' : 'V', substr($h, $at, 4))
            if (read($fh, $h, $at + 4) // 0) == $at + 4;
    }
    require RecordMcount::Arch;
    return RecordMcount::Arch::arch_of_elf($class, $data, $m, $flags);
}

# The tracing library for PROGRAM (a path): trace_lib_path's, or where
# the program is of another architecture than that one, the library
# built for its own beside it, in ARCH/ (build/i386/ in the tree).
# Returns (path, undef) or (undef, message).
sub trace_lib_for {
    my ($prog) = @_;
    my $lib = trace_lib_path();
    return ($lib, undef) if defined $ENV{RECORDMCOUNT_TRACE_LIB};
    my $want = elf_arch($prog);
    my $have = elf_arch($lib);
    return ($lib, undef) if !defined $want || !defined $have || $want eq $have;
    return (undef, "$prog: a program for $want, which libmcount-trace is not built for")
        unless RecordMcount::Arch::arch_traced($want);
    my $other = ($lib =~ s{[^/]*\z}{}r) . "$want/libmcount-trace.so";
    return ($other, undef) if -f $other;
    return (undef, "$prog: a program for $want, and no tracing library for it at $other "
        . "(make rt-$want, or set RECORDMCOUNT_TRACE_LIB)");
}

1;
