# SPDX-License-Identifier: GPL-2.0-or-later
package ObjDiff;
# "Nothing else changes": describe an object with readelf/objdump in a form
# that two objects can be compared in, leaving out only what recording is
# allowed to change (the table section and its relocations, the order of
# sections and symbols, section symbols, and the added local anchors).
#
# .eh_frame is compared decoded: ld -r trims its trailing padding even with
# no other input, which is a change of bytes but not of meaning.
use strict;
use warnings;

use Exporter 'import';
use Oracle qw(readelf section_headers symbols);
our @EXPORT_OK = qw(describe diff_objects);

my $TABLE = qr/^(__mcount_loc|\.rela?__mcount_loc)$/;
my $META = qr/^(\.symtab|\.strtab|\.shstrtab|)$/;

sub _objdump_contents {
    my ($file) = @_;
    local $ENV{LC_ALL} = 'C';
    open(my $fh, '-|', 'objdump', '-s', $file) or die "objdump: $!";
    my (%c, $cur);
    while (<$fh>) {
        if (/^Contents of section (.*):$/) {
            $cur = $1;
            push @{ $c{$cur} }, '';
            next;
        }
        next unless defined $cur && /^ [0-9a-f]+ ((?:[0-9a-f]+ ){1,4})/;
        (my $h = $1) =~ s/ //g;
        $c{$cur}[-1] .= $h;
    }
    close $fh;
    return \%c;
}

sub _frames {
    my ($file) = @_;
    my @out;
    for (split /\n/, readelf('--debug-dump=frames', $file)) {
        next if /DW_CFA_nop/ || /^\s*$/ || /^Contents of/;
        s/^[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ (CIE|FDE)(?: cie=[0-9a-f]+)?/$1/;
        push @out, $_;
    }
    return join "\n", @out;
}

# A hash of comparable facts; each value a string or a sorted list.
sub describe {
    my ($file) = @_;
    my %d;
    my $h = readelf('-h', $file);
    $d{header} = join "\n", grep { /^\s*(Class|Data|Type|Machine|Flags|OS\/ABI|ABI Version):/ }
        split /\n/, $h;

    my $secs = section_headers($file);
    my $contents = _objdump_contents($file);
    my %seen;
    for my $s (@$secs) {
        next if $s->{name} =~ $TABLE || $s->{name} =~ $META || $s->{type} =~ /^RELA?$/;
        my $n = $seen{ $s->{name} }++;
        my $key = "section $s->{name}#$n";
        my $c = $s->{type} eq 'NOBITS' ? '' : ($contents->{ $s->{name} } // [])->[$n] // '';
        # a group's contents are section indexes, which ld -r renumbers;
        # membership is compared by name under "groups"
        $c = 'members' if $s->{type} eq 'GROUP';
        if ($s->{name} eq '.eh_frame') {
            $c = 'decoded';
            $d{'eh_frame'} = _frames($file);
        }
        my $size = $s->{name} eq '.eh_frame' ? '-' : $s->{size};
        $d{$key} = join ' ', $s->{type}, "flags=$s->{flags}", "size=$size", "align=$s->{align}",
            "entsize=$s->{entsize}", "contents=$c";
    }

    my $syms = symbols($file);
    my @symlist;
    for my $sym (grep { defined } @$syms) {
        next if $sym->{num} == 0 || $sym->{type} eq 'SECTION';
        my $sec = $sym->{ndx} =~ /^\d+$/ ? $secs->[ $sym->{ndx} ]{name} : $sym->{ndx};
        # .eh_frame is compared decoded, so a mapping symbol's place in it is not
        my $value = ($sec // '') eq '.eh_frame' ? '-' : $sym->{value};
        push @symlist, join ' ', map { $_ // '' } $sym->{name}, $value, $sym->{size},
            $sym->{type}, $sym->{bind}, $sym->{vis}, $sec;
    }
    $d{symbols} = [sort @symlist];

    # relocations of every section but the table, by target section name
    my (%rel, $cur);
    for (split /\n/, readelf('-r', $file)) {
        if (/^Relocation section '([^']*)'/) {
            $cur = $1 =~ $TABLE ? undef : $1;
            next;
        }
        next unless defined $cur;
        next unless /^([0-9a-f]+)\s+[0-9a-f]+\s+(\S+)\s+(?:[0-9a-f]+\s+)?(.*)$/;
        # compared sorted: order carries no meaning; nor, in the decoded
        # .eh_frame, do offsets (ld -r trims padding between input frames)
        my ($off, $type, $rest) = ($1, $2, $3);
        push @{ $rel{$cur} }, $cur =~ /^\.rela?\.eh_frame$/ ? "$type $rest" : "$off $type $rest";
    }
    $d{"relocs $_"} = join "\n", sort @{ $rel{$_} } for keys %rel;

    my $groups = readelf('-g', $file);
    $groups =~ s/^\s*\[\s*\d+\]\s+/  /mg;    # section indexes change with ld -r
    $groups =~ s/\[\s*(\d+)\]//g;
    $d{groups} = join "\n", sort grep { /\S/ } split /\n/, $groups;
    $d{notes} = readelf('-n', $file) =~ s/^.*Displaying notes found in.*$//mgr;
    return \%d;
}

# Differences between two descriptions, as readable lines; symbols the
# after-object may add (the anchors) are passed in $allowed_new.
sub diff_objects {
    my ($before, $after, $allowed_new) = @_;
    my $a = describe($before);
    my $b = describe($after);
    my @diffs;
    my %keys = map { $_ => 1 } keys %$a, keys %$b;
    for my $k (sort keys %keys) {
        my ($x, $y) = ($a->{$k}, $b->{$k});
        if ($k eq 'symbols') {
            my %count;
            $count{$_}++ for @$y;
            $count{$_}-- for @$x;
            for my $s (sort keys %count) {
                next unless $count{$s};
                next if $count{$s} > 0 && $allowed_new && $s =~ $allowed_new;
                push @diffs, ($count{$s} > 0 ? "added symbol: $s" : "lost symbol: $s");
            }
            next;
        }
        push @diffs, "$k only in $after" unless defined $x;
        push @diffs, "$k only in $before" unless defined $y;
        next unless defined $x && defined $y;
        push @diffs, "$k differs:\n  before: $x\n  after:  $y" if $x ne $y;
    }
    return @diffs;
}

1;
