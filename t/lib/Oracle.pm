# SPDX-License-Identifier: GPL-2.0-or-later
package Oracle;
# Reading __mcount_loc tables with readelf (not with anything this project
# ships), so that a table our tool wrote and one GCC wrote with
# -mrecord-mcount can be compared as multisets of "section+0xoffset".
use strict;
use warnings;
no warnings "portable";

use Exporter 'import';
our @EXPORT_OK = qw(readelf table_sites section_headers symbols code_bytes sections_bytes
    kernel_section filter_sites);

sub readelf {
    my (@args) = @_;
    local $ENV{LC_ALL} = 'C';
    open(my $fh, '-|', 'readelf', '-W', @args) or die "readelf: $!";
    local $/;
    my $out = <$fh> // '';
    close $fh;
    die "readelf @args failed\n" if $? != 0;
    return $out;
}

# [ { idx, name, type, off, size, flags, ... } ] in header order
sub section_headers {
    my ($file) = @_;
    my @secs;
    for (split /\n/, readelf('-S', $file)) {
        next unless /^\s*\[\s*(\d+)\]\s(.*)$/;
        my ($idx, $rest) = ($1, $2);
        # name may be empty (index 0); fields after it are fixed
        next unless $rest =~ /^\s*(\S*)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+(\S*)\s+(\d+)\s+(\d+)\s+(\d+)\s*$/;
        push @secs, { idx => $idx, name => $1, type => $2, addr => hex $3, off => hex $4,
            size => hex $5, entsize => hex $6, flags => $7, link => $8, info => $9, align => $10 };
    }
    return \@secs;
}

# [ { num, value, size, type, bind, vis, ndx, name } ] by symbol index
sub symbols {
    my ($file) = @_;
    my @syms;
    for (split /\n/, readelf('-s', $file)) {
        # ppc64 ELFv2 prints "[<localentry>: 8]" after the visibility
        next unless /^\s*(\d+):\s+([0-9a-f]+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(?:(\[[^\]]*\])\s+)?(\S+)\s?(.*)$/;
        $syms[$1] = { num => $1, value => hex $2, size => $3, type => $4, bind => $5,
            vis => $6 . (defined $7 ? " $7" : ''), ndx => $8, name => $9 };
    }
    return \@syms;
}

# The raw bytes of FILE's sections SECS (section_headers' entries), read
# by one readelf: { index => bytes }.
sub _dump {
    my ($file, @secs) = @_;
    my %name = map { $_->{idx} => $_->{name} } @secs;
    my @idx = sort { $a <=> $b } keys %name;
    return {} unless @idx;
    my (%hex, $cur);
    for (split /\n/, readelf(map({ ('-x', $_) } @idx), $file)) {
        if (/^Hex dump of section '(.*)':$/) {
            $cur = $1;
            $hex{$cur} //= '';
        } elsif (/^Section '(.*)' has no data to dump\.$/) {
            ($cur, $hex{$1}) = (undef, '');
        } elsif (defined $cur && /^\s+0x[0-9a-f]+ ((?:[0-9a-f]{2,8} ){1,4})/) {
            (my $h = $1) =~ s/ //g;
            $hex{$cur} .= $h;
        }
    }
    # (readelf names each dump by the section's name)
    return { map { $_ => pack('H*', $hex{ $name{$_} } // die "$file: readelf dumped no $name{$_}\n") } @idx };
}

# The raw bytes of a section, by name (first of that name).
sub code_bytes {
    my ($file, $name) = @_;
    return (sections_bytes($file, $name))[0];
}

# Several sections' bytes, read by one readelf: the bytes of each of
# NAMES in their order (undef where FILE has no section of the name).
sub sections_bytes {
    my ($file, @names) = @_;
    my %sec;
    $sec{ $_->{name} } //= $_ for @{ section_headers($file) };
    my $bytes = _dump($file, grep { defined } map { $sec{$_} } @names);
    return map { $sec{$_} ? $bytes->{ $sec{$_}{idx} } : undef } @names;
}

# The entries of FILE's table (section named $table, default __mcount_loc)
# resolved to "section+0xoffset" strings, sorted.
sub table_sites {
    my ($file, $table) = @_;
    $table //= '__mcount_loc';
    my $secs = section_headers($file);
    my ($tab) = grep { $_->{name} eq $table } @$secs;
    return [] unless $tab;
    my ($rel) = grep { $_->{type} =~ /^RELA?$/ && $_->{info} == $tab->{idx} } @$secs;
    die "$file: $table has no relocations\n" unless $rel;
    my $is_rela = $rel->{type} eq 'RELA';
    my $syms = symbols($file);
    my $head = readelf('-h', $file);
    my $class64 = $head =~ /Class:\s+ELF64/;
    my $e = $head =~ /Data:.*big endian/ ? '>' : '<';
    my $word = $class64 ? 8 : 4;
    my $data = _dump($file, $tab)->{ $tab->{idx} };
    die "$file: $table size $tab->{size} is not a multiple of $word\n" if $tab->{size} % $word;

    my @sites;
    my $in = 0;
    for (split /\n/, readelf('-r', $file)) {
        if (/^Relocation section '([^']*)'/) {
            $in = $1 eq $rel->{name};
            next;
        }
        next unless $in;
        next unless /^([0-9a-f]+)\s+([0-9a-f]+)\s+(\S+)\s+([0-9a-f]+)?\s*(.*)$/;
        my ($off, $info, $type, $rest) = (hex $1, hex $2, $3, $5);
        my $symidx = $class64 ? ($info >> 32) : ($info >> 8);
        my $sym = $syms->[$symidx] or die "$file: bad symbol index $symidx\n";
        my $addend;
        if ($is_rela) {
            $addend = 0;
            $addend = hex($2) * ($1 eq '-' ? -1 : 1) if $rest =~ /\s([+-])\s*([0-9a-f]+)\s*$/;
        } else {
            my $raw = substr($data, $off, $word);
            $addend = $word == 8 ? unpack("q$e", $raw) : unpack("l$e", $raw);
        }
        die "$file: table entry at $off refers to an undefined symbol $sym->{name}\n"
            if $sym->{ndx} eq 'UND';
        my $sec = $secs->[$sym->{ndx}] or die "$file: symbol $sym->{name} in unknown section\n";
        push @sites, sprintf('%s+0x%x', $sec->{name}, $sym->{value} + $addend);
    }
    my $n = $tab->{size} / $word;
    die "$file: $table has $n entries but " . scalar(@sites) . " relocations\n" if $n != @sites;
    return [sort @sites];
}

# The Linux 6.1 recordmcount.pl section list.
sub kernel_section {
    my ($name) = @_;
    return 1 if $name =~ /^\.text\./;
    return scalar grep { $_ eq $name } qw(.text .init.text .ref.text .sched.text
        .spinlock.text .irqentry.text .softirqentry.text .kprobes.text .cpuidle.text);
}

sub filter_sites {
    my ($sites, $keep) = @_;
    return [grep { my ($s) = /^(.*)\+0x/; $keep->($s) } @$sites];
}

1;
