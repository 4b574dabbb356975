# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Inspect;
# mcount-record's modes that look at files and change nothing: --list (a
# table's entries, as text or JSON), --verify (the table against the
# calls to the hook) and --tools (the tools each file would get).  The
# table is read by RecordMcount::Table, the calls found by
# RecordMcount::Calls; this module prints what they say.
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Front qw(plural);
use RecordMcount::Message qw(error warning caught);
use RecordMcount::Tools qw(object_tools tool_problem);
use RecordMcount::Table qw(table_entries section_selected verify_table verify_patchable);
use RecordMcount::Elf qw(read_elf describe);
use RecordMcount::Calls qw(hook_calls call_forms);

our @EXPORT_OK = qw(list_files verify_files show_tools);

# Each mode: MODE(FILES, OPTIONS) -> exit status (0, or 1 if a file
# failed).  OPTIONS: mcount-record's (format, entry, sections,
# expect_calls), and for the tools helper, explicit, cross.

sub show_tools {
    my ($files, $opt) = @_;
    my $failed = 0;
    for my $file (@$files) {
        my ($id, $tools) = eval { object_tools($file, $opt) };
        if (!$id) { error(caught($@)); $failed++; next }
        print "$file: $id->{arch} ($id->{bits}-bit $id->{endian}-endian, $id->{triple})\n";
        for my $t (qw(objdump objcopy ld as cc readelf)) {
            next unless $tools->{$t};
            printf "  %-8s %s  (%s)\n", "$t:", join(' ', @{ $tools->{$t} }), $tools->{why}{$t};
        }
        my $p = tool_problem($tools, $id, $file, qw(objdump objcopy ld as));
        print "  problem: $p\n" if $p;
    }
    return $failed ? 1 : 0;
}

my $PATCHABLE = '__patchable_function_entries';

# A file's table, and with NEED_CALLS its calls to the hook: (facts, ELF
# view, entries, calls, problems met reading the table, the entries of
# the compiler's table of patchable entries or undef); throws
# "FILE: message".
sub _load {
    my ($file, $opt, $need_calls) = @_;
    my ($id, $tools) = object_tools($file, $opt, $need_calls ? ('objdump') : ());
    my $e = read_elf($tools->{readelf}, $file, $file);
    my @bad;
    my $ent = table_entries($e, \@bad);
    my $pfe = table_entries($e, \@bad, $PATCHABLE);
    # where each entry is among the instructions (its flag bits cleared)
    my $flags = 0 + ($id->{'entry-flag-bits'} // 0);
    my @at = map { +{ sec => $_->{sec}, addr => $_->{addr} & ~$flags } } @{ $ent // [] };
    my $calls = $need_calls ? hook_calls($e, $tools->{objdump}, $id, $file, \@at) : undef;
    $ent->[$_]{insn} = $at[$_]{insn} for grep { defined $at[$_]{insn} } 0 .. $#at;
    if ($need_calls && !$e->{rel} && $opt->{entry} eq 'reloc') {
        my %field;    # call length -> field offset, from the call forms
        $field{ $_->{len} }{ $_->{field} } = 1 for @{ call_forms($id) };
        for my $c (@$calls) {
            my @f = keys %{ $field{ $c->{len} } // {} };
            $c->{field} = $c->{addr} + $f[0] if @f == 1 && !defined $c->{field};
        }
    }
    return ($id, $e, $ent, $calls, \@bad, $pfe);
}

sub _entry_record {
    my ($e, $x, $table) = @_;
    my $d = describe($e, $x->{sec}, $x->{addr});
    # a patchable entry is before its function (M NOPs): the function at
    # or after it, when the one holding it does not start there
    if ($table ne '__mcount_loc' && $x->{sec} && !($d && $d->{off} == 0)) {
        my ($next) = sort { $a->{value} <=> $b->{value} } grep { $_ && $_->{type} =~ /^I?FUNC$/
            && $_->{ndx} =~ /^\d+$/ && $_->{ndx} == $x->{sec}{idx} && $_->{value} >= $x->{addr}
            && $_->{value} - $x->{addr} < 256 } @{ $e->{symtab} };
        $d = { name => $next->{name}, off => $x->{addr} - $next->{value}, size => $next->{size} } if $next;
    }
    return { address => $x->{addr}, section => $x->{sec} ? $x->{sec}{name} : undef,
        secidx => $x->{sec} ? $x->{sec}{idx} : -1,
        function => $d ? $d->{name} : undef, function_offset => $d ? $d->{off} : undef,
        function_size => $d ? $d->{size} : undef, table => $table };
}

sub list_files {
    my ($files, $opt) = @_;
    my $failed = 0;
    my @json;
    for my $file (@$files) {
        my ($id, $e, $ent, undef, $bad, $pfe) = eval { _load($file, $opt, 0) };
        if (!$id) { error(caught($@)); $failed++; next }
        warning($file, $_) for @$bad;
        if (!$ent && !$pfe) { error("$file: no __mcount_loc table"); $failed++; next }
        # __mcount_loc's entries, then the compiler's patchable ones
        my @rows;
        for ([$ent, '__mcount_loc'], [$pfe, $PATCHABLE]) {
            my ($list, $table) = @$_;
            my @r = sort { $a->{secidx} <=> $b->{secidx} || $a->{address} <=> $b->{address} }
                map { _entry_record($e, $_, $table) } @{ $list // [] };
            @r = sort { $a->{address} <=> $b->{address} } @r unless $e->{rel};
            push @rows, @r;
        }
        if ($opt->{format} eq 'json') {
            push @json, { file => $file, type => $e->{rel} ? 'object' : 'linked',
                arch => $id->{arch}, tables => [($ent ? ('__mcount_loc') : ()), ($pfe ? ($PATCHABLE) : ())],
                entries => [map {
                    my $r = $_;
                    +{ ($e->{rel} ? (offset => $r->{address}) : (address => sprintf('0x%x', $r->{address}))),
                       section => $r->{section}, function => $r->{function},
                       function_offset => $r->{function_offset}, function_size => $r->{function_size},
                       table => $r->{table} }
                } @rows] };
            next;
        }
        print "$file:\n" if @$files > 1;
        my $w = $e->{bits} / 4;
        for my $r (@rows) {
            my $f = defined $r->{function}
                ? sprintf('%s%s0x%x/0x%x', $r->{function}, $r->{function_offset} < 0 ? '-' : '+',
                    abs $r->{function_offset}, $r->{function_size})
                : '?';
            my $at = $e->{rel} ? sprintf('%s+0x%x', $r->{section} // '?', $r->{address})
                : sprintf('%0*x', $w, $r->{address});
            # (the compiler's patchable entries say so; __mcount_loc's as before)
            print "$at  $f  ", $r->{section} // '?', $r->{table} eq '__mcount_loc' ? '' : "  $r->{table}", "\n";
        }
    }
    if ($opt->{format} eq 'json') {
        require JSON::PP;
        print JSON::PP->new->canonical->pretty->encode(\@json);
    }
    return $failed ? 1 : 0;
}

sub verify_files {
    my ($files, $opt) = @_;
    my $failed = 0;
    for my $file (@$files) {
        my ($id, $e, $ent, $calls, $bad, $pfe) = eval { _load($file, $opt, 1) };
        if (!$id) { error(caught($@)); $failed++; next }
        my $n = grep { section_selected($_->{sec}{name}, $opt->{sections},
            $id->{'kernel-sections'}) } @$calls;
        # the compiler's own table; and calls to the hook need __mcount_loc too
        if ($pfe) {
            $failed++ unless _verify_patchable($file, $opt, $id, $e, $ent, $pfe, $ent ? [] : $bad);
            if (!$ent && $n) {
                error("$file: no __mcount_loc table (" . plural($n, 'call') . ' to the hook)');
                $failed++;
            }
            next unless $ent;
        }
        if (!$ent) {
            if ($n) {
                error("$file: no __mcount_loc table (" . plural($n, 'call') . ' to the hook)');
                $failed++;
            } elsif ($opt->{expect_calls}) {
                error("$file: no table and no calls to the hook (--expect-calls): was it compiled with -pg?");
                $failed++;
            } else {
                print "$file: no table and no calls to the hook\n";
            }
            next;
        }
        my ($problems, $nent, $ncall, $nops) = eval {
            verify_table($e, $ent, $calls, entry => $opt->{entry}, sections => $opt->{sections},
                kernel => $id->{'kernel-sections'}, label => $file,
                flag_bits => $id->{'entry-flag-bits'} // 0, nop => $id->{'compiler-nop'}, strict => $opt->{strict});
        };
        if (!$problems) { error(caught($@)); $failed++; next }
        my @all = (@$bad, @$problems);
        if (@all) {
            error("$file: $_") for @all;
            error("$file: " . plural(scalar @all, 'problem') . ' (' . plural($nent, 'entry')
                =~ s/entrys/entries/r . ', ' . plural($ncall, 'call') . ' to the hook)');
            $failed++;
        } elsif ($opt->{expect_calls} && !$ncall && !$nops) {
            error("$file: an empty table and no calls to the hook (--expect-calls): was it compiled with -pg?");
            $failed++;
        } else {
            print "$file: OK, " . (plural($nent, 'entry') =~ s/entrys/entries/r) . ' for '
                . plural($ncall, 'call') . ' to the hook'
                . ($nops ? ' and ' . plural($nops, "NOP") . " of GCC's -mnop-mcount" : '') . "\n";
        }
    }
    return $failed ? 1 : 0;
}

# --verify of the compiler's table of patchable entries (Table's
# verify_patchable), __mcount_loc's entries (ENT) at functions' starts
# being another table's; BAD: problems met reading the tables, said here
# when no __mcount_loc check says them.  Says what it found; 1 if OK.
sub _verify_patchable {
    my ($file, $opt, $id, $e, $ent, $pfe, $bad) = @_;
    my %skip = map { ($e->{rel} ? "$_->{sec}{idx}:$_->{addr}" : "$_->{addr}") => 1 } grep { $_->{sec} } @{ $ent // [] };
    my ($problems, $nent, $nfunc, $shape, $unknown) = eval {
        verify_patchable($e, $pfe, nops => $id->{'patchable-nops'}, unit => $id->{'patchable-unit'} // 'nop',
            n => $opt->{patchable_n}, m => $opt->{patchable_m}, skip => \%skip);
    };
    if (!$problems) { error(caught($@)); return 0 }
    my @all = (@$bad, @$problems);
    if (@all) {
        error("$file: $_") for @all;
        error("$file: " . plural(scalar @all, 'problem') . " ($PATCHABLE: " . plural($nent, 'entry')
            =~ s/entrys/entries/r . ')');
        return 0;
    }
    my @s = map { "$_: $shape->{$_}" } sort { $shape->{$b} <=> $shape->{$a} || $a cmp $b } keys %$shape;
    print "$file: OK, $PATCHABLE: " . (plural($nent, 'entry') =~ s/entrys/entries/r) . ' for '
        . plural($nfunc, 'function') . (@s ? ' (N,M ' . join('; ', @s) . ')' : '')
        . (defined $unknown ? "; no symbol table: $unknown at NOPs of functions not known" : '') . "\n";
    return 1;
}

1;
