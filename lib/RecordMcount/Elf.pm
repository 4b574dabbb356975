# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Elf;
# The one place on the Perl side that reads an ELF file's header, section
# table and program headers, two ways:
#   - by itself, without a process (a quick look: is it ELF, of which
#     machine; has it a section of a name; is a program static), for
#     the commands that look at many files or start often: elf_header,
#     elf_machine, elf_has_section, elf_static;
#   - as readelf says it, read once (an object, a program, a shared
#     library or a kernel image), and the questions --list and --verify
#     ask of it: bytes at an offset or address, the section holding an
#     address, the function holding an address: read_elf and the rest.
# (RecordMcount::Run, which readelf's view needs, is loaded with the
# first read_elf: mcount-trace takes the quick look and runs no tool.)
use strict;
use warnings;
no warnings 'portable';

use RecordMcount::Exports;
use RecordMcount::Message qw(throw);

our @EXPORT_OK = qw(elf_header elf_machine elf_has_section elf_static
    read_elf file_bytes word_format section_by_name section_at bytes_at describe where);

# --- the file itself ------------------------------------------------------

# FILE's ELF header, as far as the file has one: undef for a file that
# cannot be read or does not start with the ELF magic; else { fh (the
# file, open), len (bytes read of the header), class, data (1 or 2 as
# e_ident says; undef where the file ends before), and where e_ident's
# byte order is known and the file holds them: machine (at 20 bytes);
# is64, e (pack's byte order flag), flags (e_flags), and with the whole
# header (complete): type, phoff, shoff, phentsize, phnum, shentsize,
# shnum, shstrndx }.
sub elf_header {
    my ($file) = @_;
    return undef unless defined $file;
    open(my $fh, '<:raw', $file) or return undef;
    my $len = read($fh, my $h, 64) // 0;
    return undef unless $len >= 4 && substr($h, 0, 4) eq "\x7fELF";
    my %h = (fh => $fh, len => $len);
    @h{qw(class data)} = unpack 'x4 C C', $h if $len >= 6;
    return \%h unless $len >= 20 && ($h{data} == 1 || $h{data} == 2);
    my $e = $h{data} == 2 ? '>' : '<';
    my $is64 = $h{class} == 2;
    @h{qw(e is64 machine)} = ($e, $is64, unpack("x18 S$e", $h));
    $h{flags} = unpack("L$e", substr($h, $is64 ? 48 : 36, 4)) if $len >= ($is64 ? 52 : 40);
    return \%h unless $len >= ($is64 ? 64 : 52);
    $h{complete} = 1;
    # e_type; e_phoff, e_shoff; (after e_flags and e_ehsize) e_phentsize,
    # e_phnum, e_shentsize, e_shnum, e_shstrndx
    $h{type} = unpack("x16 S$e", $h);
    @h{qw(phoff shoff phentsize phnum shentsize shnum shstrndx)} = $is64
        ? unpack("x32 Q$e Q$e x6 S$e S$e S$e S$e S$e", $h) : unpack("x28 L$e L$e x6 S$e S$e S$e S$e S$e", $h);
    return \%h;
}

# An ELF file's class, byte order and machine ("2:1:62"), or undef.
sub elf_machine {
    my $h = elf_header($_[0]) or return undef;
    return defined $h->{machine} ? "$h->{class}:$h->{data}:$h->{machine}" : undef;
}

# LEN bytes of the open file at OFF, or undef.
sub _read_at {
    my ($fh, $off, $len) = @_;
    seek($fh, $off, 0) or return undef;
    my $buf;
    return (read($fh, $buf, $len) // 0) == $len ? $buf : undef;
}

# Does the ELF file have a section of this name?  Read from its section
# headers alone (a link's inputs are looked at quickly); undef for a
# file that is no ELF or cannot be read.
sub elf_has_section {
    my ($file, $want) = @_;
    my $h = elf_header($file) or return undef;
    return undef unless $h->{complete};
    my ($e, $is64, $shentsize, $shnum) = @$h{qw(e is64 shentsize shnum)};
    return undef if !$h->{shoff} || $shentsize < ($is64 ? 64 : 40) || !$shnum || $h->{shstrndx} >= $shnum;
    my $all = _read_at($h->{fh}, $h->{shoff}, $shnum * $shentsize) // return undef;
    # (sh_name, sh_offset, sh_size)
    my @sh = map { [$is64 ? unpack("L$e x20 Q$e Q$e", substr($all, $_ * $shentsize, $shentsize))
        : unpack("L$e x12 L$e L$e", substr($all, $_ * $shentsize, $shentsize))] } 0 .. $shnum - 1;
    my ($stroff, $strsize) = @{ $sh[ $h->{shstrndx} ] }[1, 2];
    my $str = _read_at($h->{fh}, $stroff, $strsize) // return undef;
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
    my $h = elf_header($file) or return undef;
    return undef unless $h->{complete};
    my ($fh, $e, $is64, $type) = @$h{qw(fh e is64 type)};
    my ($W, $wsize) = $is64 ? ("Q$e", 8) : ("L$e", 4);
    return undef unless $type == 2 || $type == 3;    # ET_EXEC, ET_DYN
    my ($phoff, $phentsize, $phnum) = @$h{qw(phoff phentsize phnum)};
    if ($phnum == 0xffff) {    # PN_XNUM: the count is section 0's sh_info
        return undef unless $h->{shoff};
        $phnum = unpack("L$e", _read_at($fh, $h->{shoff} + ($is64 ? 44 : 28), 4) // return undef);
    }
    return undef if !$phoff || !$phnum || $phentsize < ($is64 ? 56 : 32) || $phnum > 65536;
    my $all = _read_at($fh, $phoff, $phnum * $phentsize) // return undef;
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

# --- readelf's view -------------------------------------------------------

sub _num { my ($v) = @_; return $v =~ /^0x/i ? hex $v : $v + 0 }

# Everything readelf says that --list and --verify need; with WHAT
# 'sections', only the header and the section headers.
sub read_elf {
    my ($readelf, $file, $label, $what) = @_;
    my @what = ($what // '') eq 'sections' ? ('-h', '-S') : ('-h', '-S', '-s', '-r', '-d');
    require RecordMcount::Run;
    my $out = RecordMcount::Run::tool_output($label, 'reading the file', [@$readelf, '-W', @what, $file]);
    my %e = (file => $file, secs => [], symtab => [], dynsym => [], relocs => {}, dynamic => {});
    my ($mode, $table, $relsec, $relat) = ('');
    for (split /\n/, $out) {
        if (/^\s+Class:\s+ELF(32|64)/)            { $e{bits} = $1; next }
        if (/^\s+Data:.*(little|big) endian/)     { $e{endian} = $1; next }
        if (/^\s+Type:\s+(\S+)/)                  { $e{type} = $1; next }
        if (/^Section Headers:/)                  { $mode = 'S'; next }
        if (/^Symbol table '([^']*)'/) {
            $mode = 's';
            $table = $1 eq '.dynsym' ? 'dynsym' : 'symtab';
            next;
        }
        if (/^Dynamic section at offset/)         { $mode = 'd'; next }
        if (/^Relocation section '([^']*)'(?: at offset (0x[0-9a-f]+))?/) {
            $mode = 'r';
            $relsec = $1;
            $e{relocs}{$relsec} //= [];
            # (sections of one name, as clang makes one per function: by offset)
            $relat = defined $2 ? ($e{relocs_at}{ hex $2 } = []) : undef;
            next;
        }
        if (/^\S/ && !($mode eq 'r' && /^[0-9a-f]+\s/)) { $mode = ''; next }
        if ($mode eq 'S' && /^\s*\[\s*(\d+)\]\s(.*)$/) {
            my ($idx, $rest) = ($1, $2);
            next unless $rest =~ /^\s*(\S*)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([A-Za-z]*)\s+(\d+)\s+(\d+)\s+(\d+)\s*$/;
            $e{secs}[$idx] = { idx => $idx, name => $1, type => $2, addr => hex $3,
                off => hex $4, size => hex $5, flags => $7, info => $9 };
        } elsif ($mode eq 's') {
            # st_other's other bits: ppc64 [<localentry>: 8] (ELFv2: the
            # entry a call from the same TOC takes), aarch64 [VARIANT_PCS]
            my $local = s/ \[<localentry>: (\d+)\] / / ? $1 : 0;
            s/ \[[^\]]*\] / /;
            next unless /^\s*(\d+):\s+([0-9a-f]+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)(?:\s+(.*))?$/;
            my %s = (num => $1, value => hex $2, size => _num($3), type => $4, bind => $5,
                ndx => $7, name => $8 // '');
            $s{localentry} = $local if $local;
            $s{name} =~ s/ \(\d+\)$//;
            $e{$table}[ $s{num} ] = \%s;
        } elsif ($mode eq 'r' && /^([0-9a-f]+)\s+([0-9a-f]+)\s+(\S+)\s*(.*)$/) {
            my ($off, $info, $type, $rest) = (hex $1, hex $2, $3, $4);
            my %r = (off => $off, type => $type,
                sym => $e{bits} == 64 ? $info >> 32 : $info >> 8);
            if ($rest =~ /^[0-9a-f]+\s+(.*?)\s+([+-])\s+([0-9a-f]+)$/) {
                @r{qw(name addend)} = ($1, ($2 eq '-' ? -1 : 1) * hex $3);
            } elsif ($rest =~ /^([0-9a-f]+)$/) {           # no symbol: addend only
                $r{addend} = hex $1;
            } elsif ($rest =~ /^[0-9a-f]+\s+(.*?)\s*$/) {   # REL: no addend shown
                $r{name} = $1;
            }
            $r{name} =~ s/ \(\d+\)$// if defined $r{name};
            push @{ $e{relocs}{$relsec} }, \%r;
            push @$relat, \%r if $relat;
        } elsif ($mode eq 'd' && /^\s*0x[0-9a-f]+\s+\((\w+)\)\s+(0x[0-9a-f]+|\d+)\b/) {
            $e{dynamic}{$1} = _num($2);    # the tags --verify needs are numbers
        }
    }
    throw("$label: readelf printed no section headers") unless @{ $e{secs} };
    $e{rel} = ($e{type} // '') eq 'REL';
    # each relocation section's relocations, by its index
    for my $s (grep { $_ && $_->{type} =~ /^RELA?$/ } @{ $e{secs} }) {
        $e{relocs_of}{ $s->{idx} } = $e{relocs_at}{ $s->{off} } // $e{relocs}{ $s->{name} } // [];
    }
    return \%e;
}

sub file_bytes {
    my ($e, $off, $len) = @_;
    open(my $fh, '<:raw', $e->{file}) or throw("$e->{file}: cannot open: $!");
    sysseek($fh, $off, 0) or throw("$e->{file}: cannot seek: $!");
    my $got = sysread($fh, my $buf, $len) // -1;
    throw("$e->{file}: file truncated") if $got != $len;
    return $buf;
}

sub word_format {
    my ($e, $signed) = @_;
    my $f = $e->{bits} == 64 ? 'q' : 'l';
    $f = uc $f unless $signed;
    return $f . ($e->{endian} eq 'big' ? '>' : '<');
}

sub section_by_name {
    my ($e, $name) = @_;
    my ($s) = grep { $_ && $_->{name} eq $name } @{ $e->{secs} };
    return $s;
}

# The section (of a linked file) holding an address; code sections first.
sub section_at {
    my ($e, $addr) = @_;
    my $hit;
    for my $s (@{ $e->{secs} }) {
        next unless $s && $s->{flags} =~ /A/ && $s->{size};
        next unless $addr >= $s->{addr} && $addr < $s->{addr} + $s->{size};
        return $s if $s->{flags} =~ /X/;
        $hit //= $s;
    }
    return $hit;
}

# The bytes of a linked file at an address (undef outside its contents).
sub bytes_at {
    my ($e, $addr, $len) = @_;
    for my $s (@{ $e->{secs} }) {
        next unless $s && $s->{flags} =~ /A/ && $s->{type} ne 'NOBITS' && $s->{size};
        next unless $addr >= $s->{addr} && $addr + $len <= $s->{addr} + $s->{size};
        $s->{data} //= file_bytes($e, $s->{off}, $s->{size});
        return substr($s->{data}, $addr - $s->{addr}, $len);
    }
    return undef;
}

# Functions by section, sorted by address, for describe().
sub _func_index {
    my ($e) = @_;
    return $e->{funcs} if $e->{funcs};
    my %by;
    my @syms = @{ $e->{symtab} } ? @{ $e->{symtab} } : @{ $e->{dynsym} };
    my %rank = (GLOBAL => 0, WEAK => 1, LOCAL => 2);
    # ppc64 ELFv1: a function's symbol is its descriptor in .opd, whose
    # first word is the address of its code
    my $opd = $e->{rel} ? undef : section_by_name($e, '.opd');
    for my $s (@syms) {
        next unless $s && $s->{ndx} =~ /^\d+$/ && $s->{type} =~ /^(FUNC|IFUNC|NOTYPE)$/;
        next if $s->{name} eq '' || $s->{name} =~ /^\.L|^\$/;
        if ($opd && $s->{ndx} == $opd->{idx}) {
            my $w = bytes_at($e, $s->{value}, 8) // next;
            my $code = unpack word_format($e), $w;
            my ($cs) = grep { $_ && $_->{flags} =~ /X/ && $code >= $_->{addr} && $code < $_->{addr} + $_->{size} }
                @{ $e->{secs} } or next;
            push @{ $by{ $cs->{idx} } }, { %$s, value => $code, ndx => $cs->{idx} };
            next;
        }
        push @{ $by{ $s->{ndx} } }, $s;
    }
    for my $list (values %by) {
        @$list = sort {
            $a->{value} <=> $b->{value}
                || ($b->{type} ne 'NOTYPE') <=> ($a->{type} ne 'NOTYPE')
                || ($b->{size} > 0) <=> ($a->{size} > 0)
                || ($rank{ $a->{bind} } // 3) <=> ($rank{ $b->{bind} } // 3)
                || $a->{name} cmp $b->{name}
        } @$list;
    }
    return $e->{funcs} = \%by;
}

# The function holding an address: { name, off, size } or undef.
sub describe {
    my ($e, $sec, $addr) = @_;
    return undef unless $sec;
    my $list = _func_index($e)->{ $sec->{idx} } or return undef;
    my ($lo, $hi) = (0, $#$list);
    return undef if $hi < 0 || $list->[0]{value} > $addr;
    while ($lo < $hi) {     # last symbol whose value <= addr
        my $mid = int(($lo + $hi + 1) / 2);
        if ($list->[$mid]{value} <= $addr) { $lo = $mid } else { $hi = $mid - 1 }
    }
    # among the symbols at that value, the first in sort order is preferred
    my $v = $list->[$lo]{value};
    $lo-- while $lo > 0 && $list->[ $lo - 1 ]{value} == $v;
    # a sized symbol must contain the address; look back for one that does
    for (my $i = $lo; $i >= 0 && $lo - $i < 64; $i--) {
        my $s = $list->[$i];
        next if $s->{size} && $addr >= $s->{value} + $s->{size};
        next if !$s->{size} && $s->{value} != $v;
        return { name => $s->{name}, off => $addr - $s->{value}, size => $s->{size} };
    }
    return undef;
}

# "0xADDR func+0x4/0x20" (linked) or "SECTION+0xOFF func+0x4/0x20"
# (object): where an address is, for messages.
sub where {
    my ($e, $sec, $addr) = @_;
    my $d = describe($e, $sec, $addr);
    my $f = $d ? sprintf('%s+0x%x/0x%x', $d->{name}, $d->{off}, $d->{size}) : '?';
    return $e->{rel} ? sprintf('%s+0x%x %s', $sec ? $sec->{name} : '?', $addr, $f)
                     : sprintf('0x%x %s', $addr, $f);
}

1;
