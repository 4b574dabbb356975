# SPDX-License-Identifier: GPL-2.0-or-later
package LinkDiff;
# The oracle of the link-time pass: its output against the plain link of
# the same command (the linker's own result, without the pass).  They
# must agree in everything a loader, a linker or a debugger reads of a
# program or shared library: section names, types and flags; the
# segments, their kinds, flags, alignment and the sections in each; the
# dynamic symbols (name, version, type, binding, visibility, size, the
# section they are in and where in it; not their order, which gold takes
# from its own hash table, and the table's object is one input more);
# the dynamic section's entries;
# the dynamic relocations.  Addresses are compared as (section, offset),
# as the table's section and its relocations may move what follows them.
#
# What the table explains, and only that, may differ: the __mcount_loc
# section itself; the counts of DT_RELASZ, DT_RELSZ, DT_RELACOUNT,
# DT_RELCOUNT, DT_RELRSZ; the dynamic relocations whose place is in the
# table, or whose value is its address; __start___mcount_loc and
# __stop___mcount_loc (weak references of a program that reads its own
# table: dynamic and undefined without one); the sizes of the sections of
# dynamic linking (.dynsym, .dynstr, .got, ..., whose contents are
# compared as symbols and relocations) and DT_STRSZ; the sizes and
# addresses of the segments; the number of sections in
# DT_MIPS_UNREFEXTNO, .MIPS.options' size (a record per input object);
# on RISC-V, the size of the code and where functions are in it (the
# linker's relaxations against gp depend on where data lies).
use strict;
use warnings;
no warnings 'portable';

use Exporter 'import';
use TestUtil qw(must);

our @EXPORT_OK = qw(link_diff);

my $TABLE = '__mcount_loc';
my %COUNTS = map { $_ => 1 } qw(RELASZ RELSZ RELACOUNT RELCOUNT RELRSZ);
# (the size of .dynstr: its names are compared as the dynamic symbols')
my %NAMES = (STRSZ => 1);
# The sections of dynamic linking, whose size follows the number of
# dynamic symbols and relocations (their contents are compared as those)
my $DYNLINK = qr/^\.(?:dynsym|dynstr|gnu\.hash|hash|gnu\.version(?:_[rd])?|(?:rela?|relr)\.\S+|got(?:\.plt)?|plt(?:\.\S+)?)\z/;
# The symbols a program that reads its own table refers to, weak: defined
# by the linker where there is a table, dynamic and undefined where not
my %TABLE_SYM = map { $_ => 1 } qw(__start___mcount_loc __stop___mcount_loc);

sub _read {
    my ($readelf, $file) = @_;
    local $ENV{LC_ALL} = 'C';
    my $text = must(@$readelf, '-W', '-h', '-S', '-l', '-d', '-r', '--dyn-syms', $file);
    my %e = (secs => [], phdrs => [], map => [], dyn => [], rel => [], dynsym => []);
    my ($mode, $relsec) = ('');
    for (split /\n/, $text) {
        if (/^\s+Machine:\s+(.*?)\s*$/)          { $e{machine} = $1; next }
        if (/^\s+Class:\s+ELF(\d+)/)             { $e{bits} = $1; next }
        if (/^Section Headers:/)                 { $mode = 'sec'; next }
        if (/^Program Headers:/)                 { $mode = 'ph'; next }
        if (/^ Section to Segment mapping:/)     { $mode = 'map'; next }
        if (/^Dynamic section at/)               { $mode = 'dyn'; next }
        if (/^Relocation section '([^']+)'/)     { $mode = 'rel'; $relsec = $1; next }
        if (/^Symbol table '\.dynsym'/)          { $mode = 'sym'; next }
        if (/^Symbol table/ || /^Key to Flags/)  { $mode = ''; next }
        if ($mode eq 'sec' && /^\s+\[\s*(\d+)\]\s+(\S*)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+\S+\s+([A-Za-z]*)\s+\d+\s+\d+\s+\d+\s*$/) {
            push @{ $e{secs} }, { idx => $1, name => $2, type => $3, addr => hex $4, size => hex $6,
                flags => $7 };
        } elsif ($mode eq 'ph' && /^\s+([A-Z_0-9]+|LOOS\S*|LOPROC\S*)\s+0x[0-9a-f]+\s+0x[0-9a-f]+\s+0x[0-9a-f]+\s+0x[0-9a-f]+\s+0x[0-9a-f]+\s+(.{3})\s+(\S+)/) {
            push @{ $e{phdrs} }, "$1 $2 $3";
        } elsif ($mode eq 'map' && /^\s+(\d+)\s+(.*?)\s*$/) {
            push @{ $e{map} }, $2;
        } elsif ($mode eq 'dyn' && /^\s+0x[0-9a-f]+\s+\((\w+)\)\s+(.*?)\s*$/) {
            push @{ $e{dyn} }, [$1, $2];
        } elsif ($mode eq 'rel' && /^([0-9a-f]+)\s+[0-9a-f]+\s+(\S+)\s*(.*?)\s*$/) {
            push @{ $e{rel} }, { sec => $relsec, off => hex $1, type => $2, rest => $3 };
        } elsif ($mode eq 'sym' && /^\s+\d+:\s+([0-9a-f]+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*(.*?)\s*$/) {
            my %s = (value => hex $1, size => $2, type => $3, bind => $4, vis => $5, ndx => $6, name => $7);
            # (readelf's (N) after a version is the version's index,
            # which follows the symbols' order)
            $s{name} =~ s/\s+\(\d+\)\z//;
            push @{ $e{dynsym} }, \%s;
        }
    }
    return \%e;
}

# An address as (section, offset): the allocated section holding it (an
# empty one at its start too), or the bare number.
sub _where {
    my ($e, $a) = @_;
    my $empty;
    for my $s (@{ $e->{secs} }) {
        next unless $s->{flags} =~ /A/ && $s->{type} ne 'NULL';
        return sprintf('%s+0x%x', $s->{name}, $a - $s->{addr})
            if $a >= $s->{addr} && $a < $s->{addr} + $s->{size};
        $empty //= $s if !$s->{size} && $a == $s->{addr};
    }
    # (one past the end of a section: DT_FINI_ARRAY's end, _end, ...)
    for my $s (@{ $e->{secs} }) {
        next unless $s->{flags} =~ /A/ && $s->{size};
        return sprintf('%s+0x%x', $s->{name}, $s->{size}) if $a == $s->{addr} + $s->{size};
    }
    return $empty ? "$empty->{name}+0x0" : sprintf('0x%x', $a);
}

# RISC-V's linker relaxes accesses near __global_pointer$ (gp-relative),
# and where data lies decides which: a data section more, the table's,
# changes the size of the code and where each function is in it.
sub _relaxes { return $_[0]{machine} =~ /RISC-V/ }

sub _sections {
    my ($e) = @_;
    return map {
        # (.MIPS.options holds a record per input object: the table's
        # object is one more)
        my $sized = $_->{flags} =~ /A/ && $_->{name} !~ $DYNLINK && $_->{name} ne '.MIPS.options'
            && !(_relaxes($e) && $_->{flags} =~ /X/);
        "$_->{name} $_->{type} $_->{flags}" . ($sized ? " size=$_->{size}" : '')
    } grep { $_->{name} ne $TABLE && $_->{type} ne 'NULL' } @{ $e->{secs} };
}

# The sections of each segment, but the table and the empty ones (which
# readelf puts in a segment or not by where the next section starts).
sub _mapping {
    my ($e) = @_;
    my %empty = map { $_->{name} => 1 } grep { !$_->{size} } @{ $e->{secs} };
    return map { join ' ', grep { $_ ne $TABLE && !$empty{$_} } split ' ' } @{ $e->{map} };
}

sub _dynsyms {
    my ($e) = @_;
    my %by_idx = map { $_->{idx} => $_->{name} } @{ $e->{secs} };
    return map {
        my $s = $_;
        my $in = $s->{ndx} =~ /^\d+\z/ ? ($by_idx{ $s->{ndx} } // "index $s->{ndx}") : $s->{ndx};
        # (a TLS symbol's value is its offset in the TLS block)
        my $v = $s->{ndx} =~ /^\d+\z/ && $s->{type} ne 'TLS' ? _where($e, $s->{value})
            : $s->{value} && $s->{ndx} eq 'UND' ? _where($e, $s->{value}) : sprintf('0x%x', $s->{value});
        my $size = $s->{size};
        ($v, $size) = ('(relaxed)', '(relaxed)') if _relaxes($e) && $s->{type} eq 'FUNC' && $s->{ndx} ne 'UND';
        "$s->{name} $s->{type} $s->{bind} $s->{vis} size=$size in=$in at=$v"
    } grep { !$TABLE_SYM{ $_->{name} } } @{ $e->{dynsym} };
}

sub _dynamic {
    my ($e) = @_;
    my ($dyn) = grep { $_->{name} eq '.dynamic' } @{ $e->{secs} };
    my $i = -1;
    return map {
        my ($tag, $v) = @$_;
        $i++;
        # (bfd's DT_MIPS_UNREFEXTNO is the number of sections + 1; the
        # table's section is one more)
        $tag eq 'MIPS_UNREFEXTNO' && $v =~ /^(\d+)/ ? "$tag sections" . ($1 - @{ $e->{secs} })
        # (DT_MIPS_RLD_MAP_REL: from the entry's own address)
        : $tag eq 'MIPS_RLD_MAP_REL' && $dyn && $v =~ /^0x([0-9a-f]+)\z/
            ? "$tag " . _where($e, ($dyn->{addr} + $i * $e->{bits} / 4 + hex $1) % 2**$e->{bits})
        : $COUNTS{$tag} ? "$tag (count)" : $NAMES{$tag} ? "$tag (names)" : $v =~ /^0x([0-9a-f]+)\z/ && hex($1) ? "$tag " . _where($e, hex $1)
            : "$tag $v"
    } @{ $e->{dyn} };
}

sub _relocs {
    my ($e) = @_;
    my ($tab) = grep { $_->{name} eq $TABLE } @{ $e->{secs} };
    my @r;
    for my $r (@{ $e->{rel} }) {
        next if $tab && $r->{off} >= $tab->{addr} && $r->{off} < $tab->{addr} + $tab->{size};
        next if $r->{rest} =~ /^\S+\s+(\S+?)(?:\s|\z)/ && $TABLE_SYM{$1};
        my $rest = $r->{rest};
        # a relative relocation's addend is an address
        $rest = _where($e, hex $1) if $r->{type} =~ /_(?:I?RELATIVE|RELATIVE64)\z/ && $rest =~ /^([0-9a-f]+)\z/;
        # and a symbol's value, an address where it is defined here
        $rest = (hex($1) ? _where($e, hex $1) : '0') . " $2" if $rest =~ /^([0-9a-f]+)\s+(\S.*)\z/;
        # (a GOT slot's place follows how many there are)
        my $at = _where($e, $r->{off}) =~ s/^(\.got(?:\.plt)?)\+0x[0-9a-f]+\z/$1/r;
        # (a GOT slot holding the table's start or end: a program's
        # reference to __start___mcount_loc or __stop___mcount_loc)
        next if $rest =~ /^\Q$TABLE\E\+/;
        push @r, join(' ', $r->{sec}, $at, $r->{type}, $rest);
    }
    return sort @r;
}

# link_diff(READELF, PASS_OUTPUT, PLAIN_OUTPUT) -> the differences the
# table does not explain, as lines (none: equal).  READELF: a command list.
sub link_diff {
    my ($readelf, $pass, $plain) = @_;
    my ($a, $b) = map { _read($readelf, $_) } $pass, $plain;
    my @diff;
    my $cmp = sub {
        my ($what, $x, $y) = @_;
        my $n = @$x > @$y ? @$x : @$y;
        for my $i (0 .. $n - 1) {
            my ($p, $q) = ($x->[$i] // '(none)', $y->[$i] // '(none)');
            push @diff, "$what $i: pass '$p', plain '$q'" if $p ne $q;
        }
    };
    $cmp->('section', [_sections($a)], [_sections($b)]);
    $cmp->('segment', $a->{phdrs}, $b->{phdrs});
    $cmp->('segment sections', [_mapping($a)], [_mapping($b)]);
    $cmp->('dynamic symbol', [sort(_dynsyms($a))], [sort(_dynsyms($b))]);
    $cmp->('dynamic entry', [_dynamic($a)], [_dynamic($b)]);
    $cmp->('dynamic relocation', [_relocs($a)], [_relocs($b)]);
    return @diff;
}

1;
