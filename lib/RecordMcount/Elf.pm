# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Elf;
# What readelf says of an ELF file (an object, a program, a shared library
# or a kernel image), read once, and the questions --list and --verify ask
# of it: bytes at an offset or address, the section holding an address,
# the function holding an address.
use strict;
use warnings;
no warnings 'portable';

use RecordMcount::Exports;
use RecordMcount::Run qw(tool_output);
use RecordMcount::Message qw(throw);

our @EXPORT_OK = qw(read_elf file_bytes word_format section_by_name section_at bytes_at
    describe where);

sub _num { my ($v) = @_; return $v =~ /^0x/i ? hex $v : $v + 0 }

# Everything readelf says that --list and --verify need; with WHAT
# 'sections', only the header and the section headers.
sub read_elf {
    my ($readelf, $file, $label, $what) = @_;
    my @what = ($what // '') eq 'sections' ? ('-h', '-S') : ('-h', '-S', '-s', '-r', '-d');
    my $out = tool_output($label, 'reading the file', [@$readelf, '-W', @what, $file]);
    my %e = (file => $file, secs => [], symtab => [], dynsym => [], relocs => {}, dynamic => {});
    my ($mode, $table, $relsec) = ('');
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
        if (/^Relocation section '([^']*)'/) {
            $mode = 'r';
            $relsec = $1;
            $e{relocs}{$relsec} //= [];
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
        } elsif ($mode eq 'd' && /^\s*0x[0-9a-f]+\s+\((\w+)\)\s+(0x[0-9a-f]+|\d+)\b/) {
            $e{dynamic}{$1} = _num($2);    # the tags --verify needs are numbers
        }
    }
    throw("$label: readelf printed no section headers") unless @{ $e{secs} };
    $e{rel} = ($e{type} // '') eq 'REL';
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
