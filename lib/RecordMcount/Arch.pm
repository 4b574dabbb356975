# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Arch;
# The architectures, as arches.tab lists them (one row each; the file
# says what each column means): read once, from the tree's top or the
# installation's PKGDIR, where it sits beside bin/ and lib/.
use strict;
use warnings;

use RecordMcount::Exports;
our @EXPORT_OK = qw(arch_rows arch_row arch_of_elf arch_traced);

my @COLUMNS = qw(name tracer kernel machine class endian eflags triple qemu debian rt hook build);

# The table's path: arches.tab two directories above this module.
sub _table_path {
    my $root = __FILE__ =~ s{/*[^/]+/+[^/]+/+[^/]+\z}{}r;
    return (length $root ? $root : '.') . '/arches.tab';
}

my @ROWS;

# A table that cannot be read: the tree or the installation is broken.
sub _broken {
    require RecordMcount::Message;
    RecordMcount::Message::fatal(1, $_[0]);
}

# The rows in the table's order: hashes of the columns ("-" becomes
# undef; "little"/"big" stay words) and of the KEY=WORD fields, each an
# array of its words (hot, cflags, so_cflags, so_ldflags).
sub arch_rows {
    return @ROWS if @ROWS;
    my $path = _table_path();
    open(my $fh, '<', $path) or _broken("$path: $!");
    while (my $line = <$fh>) {
        next if $line =~ /^\s*(?:#|$)/;
        my @f = split ' ', $line;
        _broken("$path:$.: fewer than " . scalar(@COLUMNS) . ' columns') if @f < @COLUMNS;
        my %row;
        @row{@COLUMNS} = map { $_ eq '-' ? undef : $_ } splice(@f, 0, scalar @COLUMNS);
        for (@f) {
            my ($k, $v) = /\A(\w+)=(.*)\z/s or _broken("$path:$.: not KEY=WORD: $_");
            push @{ $row{$k} }, $v;
        }
        push @ROWS, \%row;
    }
    return @ROWS;
}

# The row of a recorder's or a tracer's name (ppc32 or ppc), or undef.
sub arch_row {
    my ($name) = @_;
    for my $r (arch_rows()) {
        return $r if $r->{name} eq $name || ($r->{tracer} // '') eq $name;
    }
    return undef;
}

# Does a row's e_flags condition (MASK=VALUE, or none) hold for FLAGS?
sub _eflags_ok {
    my ($cond, $flags) = @_;
    return 1 unless defined $cond;
    my ($mask, $value) = map { oct } split /=/, $cond;
    return (($flags // 0) & $mask) == $value;
}

# An ELF file's architecture as the tracer names it, from its header:
# EI_CLASS (1, 2), EI_DATA (1 little, 2 big), e_machine and e_flags.
# The row that matches all four; else, for messages, a name for what no
# row describes (mips n32, big-endian mips64, riscv32, s390, sparc, sh
# of the other byte order), the tracer name of the first row of that
# machine (of that byte order if one is), or "machine N".
sub arch_of_elf {
    my ($class, $data, $machine, $flags) = @_;
    my $bits = $class == 2 ? 64 : 32;
    my $endian = $data == 2 ? 'big' : 'little';
    my @same = grep { $_->{machine} == $machine } arch_rows();
    for my $r (@same) {
        return $r->{tracer} if $r->{class} == $bits && $r->{endian} eq $endian
            && _eflags_ok($r->{eflags}, $flags);
    }
    if ($machine == 8) {    # EM_MIPS: n32 (EF_MIPS_ABI2) and the 64-bit ABIs no row has
        return ($bits == 64 ? 'mips64' : (($flags // 0) & 0x20) ? 'mipsn32' : 'mips') . ($data == 1 ? 'el' : '');
    }
    my %other = (2 => 'sparc', 18 => 'sparc', 42 => 'sh', '22:32' => 's390', '243:32' => 'riscv32');
    my $name = $other{"$machine:$bits"} // $other{$machine};
    return $name if defined $name;
    my ($r) = (grep({ $_->{endian} eq $endian } @same), @same);
    return $r ? $r->{tracer} : "machine $machine";
}

# Is libmcount-trace built for this tracer name (make rt-NAME, or the
# host's own)?
sub arch_traced {
    my ($name) = @_;
    my $r = arch_row($name);
    return $r && defined $r->{rt} && $r->{tracer} eq $name ? 1 : 0;
}

1;
