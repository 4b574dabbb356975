# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Table;
# A __mcount_loc table read back, and checked against the calls to the
# hook, for mcount-record --list and --verify; or taken out (--remove).
#
# In an object an entry is a relocation against a symbol: it resolves to
# (section, offset).  In a linked program, shared library or kernel image it
# is an address: the words of the __mcount_loc section, or of the range
# __start_mcount_loc..__stop_mcount_loc, with the dynamic relocations
# applied: R_*_RELATIVE's addend, or a symbol of the file plus the addend
# (an entry anchored on a global symbol: in a shared library another
# object's definition of it would move the entry).
# The file is read by RecordMcount::Elf; the calls come from
# RecordMcount::Calls.
use strict;
use warnings;
no warnings 'portable';

use RecordMcount::Exports;
use RecordMcount::Elf qw(read_elf file_bytes word_format section_by_name section_at where bytes_at);
use RecordMcount::Message qw(error throw caught tool_failure);
use RecordMcount::Run qw(run_tool temp_path forget_temp);
use RecordMcount::Tools qw(object_tools);

our @EXPORT_OK = qw(table_entries section_selected verify_table verify_patchable remove_tables);

# The table's entries: [ { sec => section hash or undef, addr => offset in
# section (object) or address (linked), symbol => the dynamic symbol a
# linked entry is relocated against } ] in table order.  Problems found
# while reading it (undefined symbols, odd sizes) go to @$bad as strings.
# Undef if there is no table.  NAME: the table's section, __mcount_loc
# (the default) or __patchable_function_entries (compilers' own, in an
# object one section per function with clang).
sub table_entries {
    my ($e, $bad, $name) = @_;
    $name //= '__mcount_loc';
    my $word = $e->{bits} / 8;
    my @ent;
    if ($e->{rel}) {
        my @tabs = grep { $_ && $_->{name} eq $name } @{ $e->{secs} } or return undef;
        for my $tab (@tabs) {
            my ($rs) = grep { $_ && $_->{type} =~ /^RELA?$/ && $_->{info} == $tab->{idx} } @{ $e->{secs} };
            push @$bad, "$name has no relocations: its entries point nowhere" unless $rs;
            next unless $rs;
            my $relocs = $e->{relocs_of}{ $rs->{idx} } // [];
            my $data = $tab->{type} eq 'NOBITS' ? '' : file_bytes($e, $tab->{off}, $tab->{size});
            push @$bad, "$name is $tab->{size} bytes, not a whole number of $word-byte entries"
                if $tab->{size} % $word;
            for my $r (@$relocs) {
                my $sym = $e->{symtab}[ $r->{sym} ];
                # REL: the addend is the word in place.  RELA: the word in
                # place is 0, except where the assembler also puts the addend
                # there and the linker adds both (sh's R_SH_DIR32)
                my $addend = $r->{addend} // 0;
                $addend += unpack word_format($e, 1), substr($data, $r->{off}, $word)
                    if $r->{off} + $word <= length $data;
                if (!$sym || $sym->{ndx} !~ /^\d+$/) {
                    push @$bad, sprintf('entry at %s+0x%x refers to %s symbol %s', $name,
                        $r->{off}, $sym && $sym->{ndx} eq 'UND' ? 'the undefined' : 'no usable',
                        $sym ? $sym->{name} : "#$r->{sym}");
                    next;
                }
                push @ent, { sec => $e->{secs}[ $sym->{ndx} ], addr => $sym->{value} + ($addend // 0),
                    slot => $r->{off} };
            }
            my $n = int($tab->{size} / $word);
            push @$bad, "$name has $n entries but " . scalar(@$relocs) . ' relocations' if $n != @$relocs;
        }
        return \@ent;
    }

    # Linked: the section, or the kernel's __start/__stop symbols.
    my ($start, $len, $off);
    if (my $tab = section_by_name($e, $name)) {
        ($start, $len, $off) = ($tab->{addr}, $tab->{size}, $tab->{off});
    } elsif ($name ne '__mcount_loc') {
        return undef;
    } else {
        my %sym = map { $_->{name} => $_ } grep { $_ && $_->{name} =~ /^__(start|stop)_mcount_loc$/ }
            @{ $e->{symtab} }, @{ $e->{dynsym} };
        return undef unless $sym{__start_mcount_loc} && $sym{__stop_mcount_loc};
        $start = $sym{__start_mcount_loc}{value};
        $len = $sym{__stop_mcount_loc}{value} - $start;
        my $s = section_at($e, $start);
        return [] if $len == 0;
        throw("$e->{file}: __start_mcount_loc is in no section") unless $s && $len > 0;
        throw("$e->{file}: the table is in $s->{name}, which has no file contents")
            if $s->{type} eq 'NOBITS';
        $off = $s->{off} + $start - $s->{addr};
    }
    push @$bad, "the table is $len bytes, not a whole number of $word-byte entries" if $len % $word;
    my %dyn;   # dynamic relocations (in sections loaded with the image), by slot
    for my $rs (grep { $_ && $_->{type} =~ /^RELA?$/ && $_->{flags} =~ /A/ } @{ $e->{secs} }) {
        for my $r (@{ $e->{relocs}{ $rs->{name} } // [] }) {
            $dyn{ $r->{off} } = $r if $r->{off} >= $start && $r->{off} < $start + $len;
        }
    }
    my $data = $len ? file_bytes($e, $off, $len - $len % $word) : '';
    my $fmt = word_format($e, 0);
    for (my $i = 0; $i + $word <= length $data; $i += $word) {
        my $a = unpack $fmt, substr($data, $i, $word);
        my %ent = (slot => $start + $i);
        if (my $r = $dyn{ $start + $i }) {
            my $sym = $r->{sym} ? $e->{dynsym}[ $r->{sym} ] : undef;
            if ($r->{type} =~ /_RELATIVE$/ && defined $r->{addend}) {
                $a = $r->{addend};
            } elsif ($sym && $sym->{ndx} =~ /^\d+$/) {
                # RELA: the addend; REL: the word in place
                $a = $sym->{value} + ($r->{addend} // $a);
                $ent{symbol} = $sym->{name};
            }
        }
        # a hole (a slot the one-link method left unused): 0, the load
        # base once relocated; none of the table's entries
        next if !$a && !$ent{symbol};
        push @ent, { %ent, addr => $a, sec => section_at($e, $a) };
    }
    return \@ent;
}

# Does a section name match a --sections spec ('kernel' uses the scanner's
# list, given in $kernel as space-separated names; NAME* is a prefix)?
sub section_selected {
    my ($name, $spec, $kernel) = @_;
    return 1 if $spec eq 'all';
    my @pat = $spec eq 'kernel' ? split(' ', $kernel // '') : split(/,/, $spec);
    for my $p (@pat) {
        if ($p =~ /^(.*)\*\z/) { return 1 if substr($name, 0, length $1) eq $1 }
        elsif ($name eq $p)    { return 1 }
    }
    return 0;
}

# The bytes at an entry (undef past its section's contents).
sub _entry_bytes {
    my ($e, $ent, $len) = @_;
    my $sec = $ent->{sec};
    my $off = $e->{rel} ? $ent->{addr} : $ent->{addr} - $sec->{addr};
    return undef if $sec->{type} eq 'NOBITS' || $off < 0 || $off + $len > $sec->{size};
    return file_bytes($e, $sec->{off} + $off, $len);
}

# Check a table against the calls.  Returns (list of problem lines, number
# of entries, number of calls expected to have one, number of entries at
# the NOP GCC's -mnop-mcount leaves instead of a call: option nop, hex).
sub verify_table {
    my ($e, $entries, $calls, %o) = @_;
    my @bad;
    my $key = sub { my ($sec, $a) = @_; return $e->{rel} ? ($sec ? $sec->{idx} : -1) . ":$a" : "$a" };

    my (%call_at, %inside);
    for my $c (@$calls) {
        my $at = $o{entry} eq 'reloc' ? $c->{field} : $c->{addr};
        if (!defined $at) {
            throw("$o{label}: cannot tell where the relocated field of the call at "
                . where($e, $c->{sec}, $c->{addr}) . ' is (--entry=reloc)');
        }
        $c->{at} = $at;
        $call_at{ $key->($c->{sec}, $at) } = $c;
        $inside{ $key->($c->{sec}, $c->{addr} + $_) } = $c for 0 .. $c->{len} - 1;
    }
    # bits of an entry that are flags (arm: bit 0 for Thumb code)
    my $flags = 0 + ($o{flag_bits} // 0);
    my @ent = map { +{ %$_, addr => $_->{addr} & ~$flags } } @$entries;
    $entries = \@ent;
    my %count;
    $count{ $key->($_->{sec}, $_->{addr}) }++ for @$entries;
    my %said;
    # a shared library (no program interpreter): its global symbols are
    # preemptible
    my $shared = !$e->{rel} && !section_by_name($e, '.interp');
    my $nop = defined $o{nop} ? pack('H*', $o{nop}) : undef;
    my $nops = 0;
    for my $ent (sort { ($a->{sec} ? $a->{sec}{idx} : -1) <=> ($b->{sec} ? $b->{sec}{idx} : -1)
                        || $a->{addr} <=> $b->{addr} } @$entries) {
        my $k = $key->($ent->{sec}, $ent->{addr});
        next if $said{$k}++;
        my $w = where($e, $ent->{sec}, $ent->{addr});
        if (!$ent->{sec}) {
            push @bad, "$w: entry outside every section";
            next;
        }
        if ($ent->{sec}{flags} !~ /X/) {
            push @bad, "$w: entry outside text (in $ent->{sec}{name}, not code)";
            next;
        }
        push @bad, "$w: duplicate entry ($count{$k} times)" if $count{$k} > 1;
        push @bad, "$w: entry relocated against the global symbol $ent->{symbol}: another object's "
            . "$ent->{symbol} would move it at load time" if $shared && defined $ent->{symbol};
        # no tracer may write an entry that does not start an instruction
        # (mcount-trace(1)'s rule), as objdump decodes them: not even at
        # the bytes of a call an object's relocation says are there
        my $amid = $o{entry} eq 'call' && defined $ent->{insn} && $ent->{insn} != $ent->{addr};
        if ($amid && ($call_at{$k} || !$inside{$k})) {
            push @bad, sprintf('%s: entry is not at the start of an instruction (it is %d byte%s into the '
                . 'instruction at 0x%x)', $w, $ent->{addr} - $ent->{insn},
                $ent->{addr} - $ent->{insn} == 1 ? '' : 's', $ent->{insn});
            next;
        }
        next if $call_at{$k};
        if (my $c = $inside{$k}) {
            push @bad, sprintf('%s: entry is not a call to the hook (it is %d byte%s into the call at 0x%x)',
                $w, $ent->{addr} - $c->{addr}, $ent->{addr} - $c->{addr} == 1 ? '' : 's', $c->{addr})
                if $o{entry} eq 'call' || $ent->{addr} != $c->{at};
        } elsif (defined $nop && (_entry_bytes($e, $ent, length $nop) // '') eq $nop) {
            $nops++;        # GCC's -mnop-mcount: the call it did not write
        } else {
            push @bad, "$w: entry is not a call to the hook";
        }
    }
    # (strict: the rules link-time mode's tables keep, as the kernel's
    # build-time sort leaves vmlinux's since Linux 6.15: entries by
    # address, the unused slots after them, none in no function)
    if ($o{strict} && !$e->{rel}) {
        my $word = $e->{bits} / 8;
        my @by_slot = sort { $a->{slot} <=> $b->{slot} } grep { defined $_->{slot} } @$entries;
        for my $i (1 .. $#by_slot) {
            my ($p, $q) = @by_slot[$i - 1, $i];
            if ($q->{slot} != $p->{slot} + $word) {
                push @bad, sprintf('an unused slot before the entry at 0x%x (table slot 0x%x): the unused '
                    . 'slots are not all after the entries', $q->{addr}, $q->{slot});
                last;
            }
        }
        for my $i (1 .. $#by_slot) {
            my ($p, $q) = @by_slot[$i - 1, $i];
            next if $q->{addr} > $p->{addr};
            push @bad, sprintf('entries not sorted by address: 0x%x (table slot 0x%x) after 0x%x', $q->{addr},
                $q->{slot}, $p->{addr});
            last;
        }
        for my $ent (grep { $_->{sec} && _outside_functions($e, $_->{addr}) } @$entries) {
            push @bad, where($e, $ent->{sec}, $ent->{addr}) . ': entry in no function (the copy of a weak '
                . 'function another definition overrode?)';
        }
    }
    my $expected = 0;
    for my $c (sort { $a->{sec}{idx} <=> $b->{sec}{idx} || $a->{addr} <=> $b->{addr} } @$calls) {
        next unless section_selected($c->{sec}{name}, $o{sections}, $o{kernel});
        # the code of no function (the copy of a weak function another
        # definition overrode) needs no entry in a linked image
        next if !$e->{rel} && !$count{ $key->($c->{sec}, $c->{at}) } && _outside_functions($e, $c->{addr});
        $expected++;
        push @bad, where($e, $c->{sec}, $c->{addr}) . ": call to the hook has no entry"
            unless $count{ $key->($c->{sec}, $c->{at}) };
    }
    return (\@bad, scalar(@$entries), $expected, $nops);
}

# Is ADDR of a linked image in no function of its symbol table?  A
# function of no size (crtstuff's frame_dummy) holds only its first
# byte.  (An image without a symbol table: no; nor one whose function
# symbols are descriptors in .opd, ELFv1's, not their code.)
sub _outside_functions {
    my ($e, $addr) = @_;
    # (the functions sorted by start, each with the furthest end of it
    # and those before it: the last that starts at or before ADDR says)
    my $f = $e->{func_ranges} //= do {
        my @fn = grep { $_ && $_->{type} =~ /^I?FUNC\z/ && $_->{ndx} =~ /^\d+\z/ } @{ $e->{symtab} };
        my @r = (grep { ($e->{secs}[ $_->{ndx} ]{name} // '') eq '.opd' } @fn) ? ()
            : sort { $a->[0] <=> $b->[0] } map { [$_->{value}, $_->{value} + ($_->{size} || 1)] } @fn;
        my $far = 0;
        [map { $far = $_->[1] if $_->[1] > $far; [$_->[0], $far] } @r];
    };
    return 0 unless @$f;
    my ($lo, $hi) = (0, scalar @$f);
    while ($lo < $hi) {
        my $m = ($lo + $hi) >> 1;
        if ($f->[$m][0] <= $addr) { $lo = $m + 1 } else { $hi = $m }
    }
    return !($lo && $addr < $f->[ $lo - 1 ][1]);
}

# The compiler's own table of patchable entries (-fpatchable-function-entry=
# N,M: N NOPs at each function, M of them before its symbol, the entry at
# the first): each entry a run of the row's NOPs (patchable-nops) in
# executable code, a function's symbol at one of its NOPs or right after
# them, one entry a function; and in an object, no function that begins
# with the NOPs the others have after their symbols is without one.  N and M count
# what the compiler counts (patchable-unit: NOPs, or on x86 bytes); each
# entry's are read from its bytes (M: to its function; N: M and the NOPs
# from the function on), or given (o{n}, o{m}): then M must be exactly so
# and at least N-M NOPs follow the symbol.  Options: nops, unit (the row's),
# n, m, skip => { address (object: "secidx:offset") => 1 } (functions
# that start with another table's NOP: -mnop-mcount's).  A linked file
# without its symbol table (stripped) has only its dynamic symbols: an
# entry before none of them is checked for its NOPs alone (with n, that
# there are N of them).  Returns
# (problem lines, entries, functions with one, { "N,M" => entries of
# that shape }, in a stripped file the entries before no function known).
sub verify_patchable {
    my ($e, $entries, %o) = @_;
    my $table = '__patchable_function_entries';
    my @bad;
    defined $o{nops} or throw("$e->{file}: the NOPs of a patchable function entry are not known for this "
        . 'architecture: its table cannot be checked');
    my @forms;
    for my $h (split ' ', $o{nops}) {
        my $re = join '', map { $_ eq '..' ? '.' : quotemeta(chr hex $_) } $h =~ /(..)/g;
        push @forms, [qr/\A$re/s, length($h) / 2];
    }
    my $bytes = $o{unit} eq 'byte';
    # N of what the compiler counts, in words
    my $nops = sub { return $bytes ? "$_[0] bytes of NOPs" : $_[0] == 1 ? '1 NOP' : "$_[0] NOPs" };
    my $key = sub { my ($sec, $a) = @_; return $e->{rel} ? "$sec->{idx}:$a" : "$a" };
    # the functions, by section and where they start (object: offsets)
    # (ppc64 ELFv1: a function's symbol is its descriptor in .opd, whose
    # first word is its code's address: in an object, a relocation)
    my $opd = section_by_name($e, '.opd');
    my %opd_rel;
    if ($opd && $e->{rel}) {
        my ($rs) = grep { $_ && $_->{type} =~ /^RELA?$/ && $_->{info} == $opd->{idx} } @{ $e->{secs} };
        for my $r (@{ $rs ? $e->{relocs_of}{ $rs->{idx} } // [] : [] }) {
            my $t = $e->{symtab}[ $r->{sym} ];
            $opd_rel{ $r->{off} } //= [$e->{secs}[ $t->{ndx} ], $t->{value} + ($r->{addend} // 0)]
                if $t && $t->{ndx} =~ /^\d+$/ && $r->{type} =~ /ADDR64$/;
        }
    }
    my (%func, %fsec);
    for my $sym (@{ $e->{symtab} }, @{ $e->{symtab} } ? () : @{ $e->{dynsym} }) {
        next unless $sym && $sym->{type} =~ /^I?FUNC$/ && $sym->{ndx} =~ /^\d+$/ && length $sym->{name};
        my ($sec, $v) = ($e->{secs}[ $sym->{ndx} ], $sym->{value});
        if ($opd && $sec && $sec->{idx} == $opd->{idx}) {
            if ($e->{rel}) {
                ($sec, $v) = @{ $opd_rel{$v} // next };
            } else {
                my $w = bytes_at($e, $v, 8) // next;
                $v = unpack word_format($e), $w;
                $sec = section_at($e, $v);
            }
        }
        next unless $sec && $sec->{flags} =~ /X/;
        $func{ $key->($sec, $v) } //= $sym->{name};
        $fsec{ $key->($sec, $v) } //= [$sec, $v];
    }
    my $data = sub { my ($sec) = @_; return $sec->{data} //= $sec->{type} eq 'NOBITS' ? ''
        : file_bytes($e, $sec->{off}, $sec->{size}) };
    # the NOPs from offset OFF of a section's bytes, up to LIMIT bytes: their lengths
    my $run = sub {
        my ($d, $off, $limit) = @_;
        my @len;
        for (my $at = $off; $at >= 0 && $at < length $d && $at - $off < $limit;) {
            my ($f) = grep { substr($d, $at, $_->[1]) =~ $_->[0] } @forms or last;
            push @len, $f->[1];
            $at += $f->[1];
        }
        return @len;
    };
    my (%count, %of_func, %shape, %said);
    my $unknown = 0;
    $o{stripped} = !$e->{rel} && !section_by_name($e, '.symtab');
    $count{ $_->{sec} ? $key->($_->{sec}, $_->{addr}) : "?$_->{addr}" }++ for @$entries;
    my @k;      # NOPs after the symbol, of each entry's function
    for my $ent (sort { ($a->{sec} ? $a->{sec}{idx} : -1) <=> ($b->{sec} ? $b->{sec}{idx} : -1)
                        || $a->{addr} <=> $b->{addr} } @$entries) {
        my $sec = $ent->{sec};
        my $w = where($e, $sec, $ent->{addr});
        if (!$sec) { push @bad, "$w: entry of $table outside every section"; next }
        my $k = $key->($sec, $ent->{addr});
        next if $said{$k}++;
        if ($sec->{flags} !~ /X/) { push @bad, "$w: entry of $table outside text (in $sec->{name}, not code)"; next }
        push @bad, "$w: duplicate entry of $table ($count{$k} times)" if $count{$k} > 1;
        my $off = $e->{rel} ? $ent->{addr} : $ent->{addr} - $sec->{addr};
        my $d = $data->($sec);
        my @len = $run->($d, $off, 256);
        if (!@len) {
            my $b = substr($d, $off, 6);
            push @bad, "$w: entry of $table is not at a NOP (" . join(' ', map { sprintf '%02x', ord } split //, $b) . ')';
            next;
        }
        # the function whose entry it is: its symbol at one of the NOPs, or after the last
        my ($at, $i, $name) = ($off, 0);
        for (; ; $i++) {
            my $v = $e->{rel} ? $at : $at + $sec->{addr};
            last if defined($name = $func{ $key->($sec, $v) });
            last if $i == @len;
            $at += $len[$i];
        }
        # (a stripped file: its local functions are not known, nor where
        # they start; the NOPs are checked alone)
        if (!defined $name && $o{stripped}) {
            my $have = $bytes ? eval { my $t = 0; $t += $_ for @len; $t } : scalar @len;
            push @bad, sprintf('%s: entry of %s is at %s, fewer than %d', $w, $table, $nops->($have), $o{n})
                if defined $o{n} && $have < $o{n};
            $unknown++;
            next;
        }
        if (!defined $name) {
            push @bad, sprintf('%s: entry of %s is before no function: its %d NOP%s end%s at 0x%x, where none starts',
                $w, $table, scalar @len, @len == 1 ? '' : 's', @len == 1 ? 's' : '', ($e->{rel} ? $at : $at + $sec->{addr}));
            next;
        }
        my $m = $bytes ? $at - $off : $i;
        my @after = @len[$i .. $#len];
        my $after = $bytes ? eval { my $t = 0; $t += $_ for @after; $t } : scalar @after;
        if ($of_func{$name}++) {
            push @bad, "$w: a second entry of $table for $name";
            next;
        }
        if (defined $o{m} && $m != $o{m}) {
            push @bad, sprintf('%s: entry of %s is %s before %s, not %d', $w, $table, $nops->($m), $name, $o{m});
        }
        if (defined $o{n} && $after < $o{n} - ($o{m} // 0)) {
            push @bad, sprintf('%s: %s has %s after its entry of %s, fewer than %d', $w, $name, $nops->($after),
                $table, $o{n} - ($o{m} // 0));
        }
        $shape{ ($m + $after) . ",$m" }++;
        push @k, $after;
    }
    # a function that begins with the NOPs the others have after their
    # symbols (N-M of them, given or the fewest seen), but has no entry:
    # in an object, which one compiler wrote (a linked file holds the C
    # library's code too, or assembly, some of it beginning with NOPs)
    my $need = defined $o{n} ? $o{n} - ($o{m} // 0) : (sort { $a <=> $b } @k)[0];
    if ($need && $e->{rel}) {
        for my $fk (sort { $fsec{$a}[0]{idx} <=> $fsec{$b}[0]{idx} || $fsec{$a}[1] <=> $fsec{$b}[1] } keys %fsec) {
            my ($sec, $v) = @{ $fsec{$fk} };
            next if $of_func{ $func{$fk} } || $o{skip}{$fk};
            my $off = $e->{rel} ? $v : $v - $sec->{addr};
            my @len = $run->($data->($sec), $off, 256);
            my $have = $bytes ? eval { my $t = 0; $t += $_ for @len; $t } : scalar @len;
            push @bad, where($e, $sec, $v) . ": $func{$fk} begins with " . $nops->($have)
                . ", as the functions with an entry of $table do, but has none" if $have >= $need;
        }
    }
    return (\@bad, scalar @$entries, scalar keys %of_func, \%shape, $o{stripped} ? $unknown : undef);
}

# mcount-record --remove: each of FILES without its table (objcopy, the
# result renamed over the file); a file with none is left as it is.
# OPTIONS: for the tools, helper, explicit, cross.  Returns the exit
# status (0, or 1 if a file failed).
sub remove_tables {
    my ($files, $opt) = @_;
    my $failed = 0;
    for my $file (@$files) {
        my $ok = eval {
            my ($id, $tools) = object_tools($file, $opt, 'objcopy');
            my $e = read_elf($tools->{readelf}, $file, $file);
            if (!grep { $_ && $_->{name} eq '__mcount_loc' } @{ $e->{secs} }) {
                error("$file: note: no __mcount_loc table; left unchanged");
                return 1;
            }
            throw("$file: file is not writable") unless -w $file;
            my $tmp = temp_path($file, 'rm');
            my @cmd = (@{ $tools->{objcopy} }, map({ ('--remove-section', $_) }
                qw(__mcount_loc .rela__mcount_loc .rel__mcount_loc)), $file, $tmp);
            my ($st, $err) = run_tool(cmd => \@cmd);
            if ($st != 0) {
                unlink $tmp;
                throw(tool_failure($file, 'removing the table', \@cmd, $st, $err));
            }
            chmod((stat $file)[2] & 07777, $tmp);
            rename $tmp, $file or do { unlink $tmp; throw("$file: cannot replace the file: $!") };
            forget_temp($tmp);
            1;
        };
        if (!$ok) { error(caught($@)); $failed++ }
    }
    return $failed ? 1 : 0;
}

1;
