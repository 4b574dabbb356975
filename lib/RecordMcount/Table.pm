package RecordMcount::Table;
# Reading a __mcount_loc table back, and the calls to the profiling hook it
# should describe, for mcount-record --list and --verify.
#
#   readelf -W -h -S -s -r FILE   sections, symbols, relocations (any ELF)
#   objdump -d -w [-r] FILE       the calls (objdump for the file's machine)
#
# In an object an entry is a relocation against a symbol: it resolves to
# (section, offset).  In a linked program, shared library or kernel image it
# is an address: the words of the __mcount_loc section, or of the range
# __start_mcount_loc..__stop_mcount_loc, with R_*_RELATIVE addends applied.
# The hook names and call forms come from mcount-scan --identify.
use strict;
use warnings;
no warnings 'portable';

use Exporter 'import';
use RecordMcount::Run qw(run_tool status_text tool_name);

our @EXPORT_OK = qw(read_elf table_entries hook_calls describe section_selected
    verify_table);

sub _run {
    my ($label, $cmd) = @_;
    my ($st, $err, $out) = run_tool(cmd => $cmd, capture_stdout => 1);
    if ($st != 0) {
        $err =~ s/\s+\z//;
        die "$label: " . tool_name($cmd) . ' failed (' . status_text($st) . ")\n"
            . join('', map { "  $_\n" } split /\n/, $err);
    }
    return $out;
}

sub _num { my ($v) = @_; return $v =~ /^0x/i ? hex $v : $v + 0 }

# Everything readelf says that --list and --verify need.
sub read_elf {
    my ($readelf, $file, $label) = @_;
    my $out = _run($label, [@$readelf, '-W', '-h', '-S', '-s', '-r', $file]);
    my %e = (file => $file, secs => [], symtab => [], dynsym => [], relocs => {});
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
        } elsif ($mode eq 's'
                 && s/ \[[^\]]*\] / /    # ppc64 [<localentry>: 8], aarch64 [VARIANT_PCS]
                    | 1
                 && /^\s*(\d+):\s+([0-9a-f]+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)(?:\s+(.*))?$/) {
            my %s = (num => $1, value => hex $2, size => _num($3), type => $4, bind => $5,
                ndx => $7, name => $8 // '');
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
        }
    }
    die "$label: readelf printed no section headers\n" unless @{ $e{secs} };
    $e{rel} = ($e{type} // '') eq 'REL';
    return \%e;
}

sub _bytes {
    my ($e, $off, $len) = @_;
    open(my $fh, '<:raw', $e->{file}) or die "$e->{file}: cannot open: $!\n";
    sysseek($fh, $off, 0) or die "$e->{file}: cannot seek: $!\n";
    my $got = sysread($fh, my $buf, $len) // -1;
    die "$e->{file}: file truncated\n" if $got != $len;
    return $buf;
}

sub _word_format {
    my ($e, $signed) = @_;
    my $f = $e->{bits} == 64 ? 'q' : 'l';
    $f = uc $f unless $signed;
    return $f . ($e->{endian} eq 'big' ? '>' : '<');
}

sub _section_by_name {
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

# The table's entries: [ { sec => section hash or undef, addr => offset in
# section (object) or address (linked) } ] in table order.  Problems found
# while reading it (undefined symbols, odd sizes) go to @$bad as strings.
# Undef if there is no table.
sub table_entries {
    my ($e, $bad) = @_;
    my $word = $e->{bits} / 8;
    my @ent;
    if ($e->{rel}) {
        my $tab = _section_by_name($e, '__mcount_loc') or return undef;
        my ($rs) = grep { $_ && $_->{type} =~ /^RELA?$/ && $_->{info} == $tab->{idx} } @{ $e->{secs} };
        push @$bad, "__mcount_loc has no relocations: its entries point nowhere" unless $rs;
        return [] unless $rs;
        my $data = $tab->{type} eq 'NOBITS' ? '' : _bytes($e, $tab->{off}, $tab->{size});
        push @$bad, "__mcount_loc is $tab->{size} bytes, not a whole number of $word-byte entries"
            if $tab->{size} % $word;
        for my $r (@{ $e->{relocs}{ $rs->{name} } }) {
            my $sym = $e->{symtab}[ $r->{sym} ];
            # REL: the addend is the word in place.  RELA: the word in
            # place is 0, except where the assembler also puts the addend
            # there and the linker adds both (sh's R_SH_DIR32)
            my $addend = $r->{addend} // 0;
            $addend += unpack _word_format($e, 1), substr($data, $r->{off}, $word)
                if $r->{off} + $word <= length $data;
            if (!$sym || $sym->{ndx} !~ /^\d+$/) {
                push @$bad, sprintf('entry at __mcount_loc+0x%x refers to %s symbol %s',
                    $r->{off}, $sym && $sym->{ndx} eq 'UND' ? 'the undefined' : 'no usable',
                    $sym ? $sym->{name} : "#$r->{sym}");
                next;
            }
            push @ent, { sec => $e->{secs}[ $sym->{ndx} ], addr => $sym->{value} + ($addend // 0),
                slot => $r->{off} };
        }
        my $n = int($tab->{size} / $word);
        push @$bad, "__mcount_loc has $n entries but " . scalar(@{ $e->{relocs}{ $rs->{name} } })
            . ' relocations' if $n != @{ $e->{relocs}{ $rs->{name} } };
        return \@ent;
    }

    # Linked: the section, or the kernel's __start/__stop symbols.
    my ($start, $len, $off);
    if (my $tab = _section_by_name($e, '__mcount_loc')) {
        ($start, $len, $off) = ($tab->{addr}, $tab->{size}, $tab->{off});
    } else {
        my %sym = map { $_->{name} => $_ } grep { $_ && $_->{name} =~ /^__(start|stop)_mcount_loc$/ }
            @{ $e->{symtab} }, @{ $e->{dynsym} };
        return undef unless $sym{__start_mcount_loc} && $sym{__stop_mcount_loc};
        $start = $sym{__start_mcount_loc}{value};
        $len = $sym{__stop_mcount_loc}{value} - $start;
        my $s = section_at($e, $start);
        return [] if $len == 0;
        die "$e->{file}: __start_mcount_loc is in no section\n" unless $s && $len > 0;
        die "$e->{file}: the table is in $s->{name}, which has no file contents\n"
            if $s->{type} eq 'NOBITS';
        $off = $s->{off} + $start - $s->{addr};
    }
    push @$bad, "the table is $len bytes, not a whole number of $word-byte entries" if $len % $word;
    my %relative;   # dynamic relocations applied at load time
    for my $list (values %{ $e->{relocs} }) {
        for my $r (@$list) {
            $relative{ $r->{off} } = $r->{addend}
                if $r->{type} =~ /_RELATIVE$/ && defined $r->{addend} && $r->{off} >= $start
                   && $r->{off} < $start + $len;
        }
    }
    my $data = $len ? _bytes($e, $off, $len - $len % $word) : '';
    my $fmt = _word_format($e, 0);
    for (my $i = 0; $i + $word <= length $data; $i += $word) {
        my $a = $relative{ $start + $i } // unpack $fmt, substr($data, $i, $word);
        push @ent, { addr => $a, sec => section_at($e, $a), slot => $start + $i };
    }
    return \@ent;
}

# Functions by section, sorted by address, for describe().
sub _func_index {
    my ($e) = @_;
    return $e->{funcs} if $e->{funcs};
    my %by;
    my @syms = @{ $e->{symtab} } ? @{ $e->{symtab} } : @{ $e->{dynsym} };
    my %rank = (GLOBAL => 0, WEAK => 1, LOCAL => 2);
    for my $s (@syms) {
        next unless $s && $s->{ndx} =~ /^\d+$/ && $s->{type} =~ /^(FUNC|IFUNC|NOTYPE)$/;
        next if $s->{name} eq '' || $s->{name} =~ /^\.L|^\$/;
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

# The call forms of mcount-scan --identify: RELOC/LEN/FIELD then options
# (companion, lead=N, hook=NAME, span=N, op=HEX, mask=HEX, at=N[,M],
# linked=KIND); see src/arch.h for what they mean.
sub call_forms {
    my ($id) = @_;
    my @forms;
    for (split ' ', $id->{'call-forms'} // '') {
        my ($reloc, $len, $field, @opt) = split m{/};
        my %f = (reloc => $reloc, len => $len, field => $field, lead => 0, span => 0,
            linked => 'named');
        for (@opt) {
            if ($_ eq 'companion') { $f{companion} = 1 }
            elsif (/^(\w+)=(.*)$/) { $f{$1} = $2 }
        }
        $f{at} = [split /,/, $f{at} // '0'];
        push @forms, \%f;
    }
    return \@forms;
}

# Do the bytes at $p (a string) match the form's opcode under its mask?
sub _op_match {
    my ($f, $bytes) = @_;
    return 1 unless defined $f->{op};
    my ($op, $mask) = (pack('H*', $f->{op}), pack('H*', $f->{mask}));
    return 0 if length $bytes < length $op;
    return (substr($bytes, 0, length $op) & $mask) eq $op;
}

# The bytes of a linked file at an address (undef outside its contents).
sub _bytes_at {
    my ($e, $addr, $len) = @_;
    for my $s (@{ $e->{secs} }) {
        next unless $s && $s->{flags} =~ /A/ && $s->{type} ne 'NOBITS' && $s->{size};
        next unless $addr >= $s->{addr} && $addr + $len <= $s->{addr} + $s->{size};
        $s->{data} //= _bytes($e, $s->{off}, $s->{size});
        return substr($s->{data}, $addr - $s->{addr}, $len);
    }
    return undef;
}

# Bits N..N+15 of an address as the mips %hi/%higher/%highest operators
# give them: rounded up for the sign-extended 16-bit parts added below.
sub _abs16 {
    my ($a, $n) = @_;
    my $adj = 0;
    for (my $k = 0; $k < $n; $k += 16) { $adj += 0x8000 << $k }
    return (($a + $adj) >> $n) & 0xffff;
}

# A linked file's sites of the forms found by their bytes, not by a name in
# the disassembly (linked=word, got:SYM, gprel:SYM, abs16:N): [ call ].
sub _scan_sites {
    my ($e, $forms, $hookdef, $sym) = @_;
    my @site = grep { !$_->{companion} && $_->{linked} =~ /^(word|got:|gprel:|abs16:)/ } @$forms;
    return [] unless @site && %$hookdef;
    my @abs_comp = grep { $_->{companion} && $_->{linked} =~ /^abs16:/ } @$forms;
    my $wfmt = _word_format($e, 0);
    my $word = $e->{bits} / 8;
    my $w32 = $e->{endian} eq 'big' ? 'N' : 'V';
    my $slot_is_hook = sub {
        my ($slot) = @_;
        my $b = _bytes_at($e, $slot, $word);
        return defined $b && $hookdef->{ unpack $wfmt, $b };
    };
    # a call sequence does not cross into the next function
    my %fstart = map { $_->{value} => 1 } grep { $_ && $_->{type} eq 'FUNC' } @{ $e->{symtab} };
    my (@calls, %seen);
    for my $sec (grep { $_ && $_->{flags} =~ /X/ && $_->{type} eq 'PROGBITS' && $_->{size} } @{ $e->{secs} }) {
        my $data = $sec->{data} //= _bytes($e, $sec->{off}, $sec->{size});
        my $base = $sec->{addr};
        for (my $o = (4 - $base % 4) % 4; $o + 4 <= length $data; $o += 4) {
            my $w = unpack $w32, substr($data, $o, 4);
            for my $f (@site) {
                next unless grep { my $at = $o + $_; $at >= 0 && _op_match($f, substr($data, $at, 4)) } @{ $f->{at} };
                my $ok;
                if ($f->{linked} eq 'word') {
                    $ok = $hookdef->{ unpack $wfmt, substr($data, $o, $word) };
                } elsif ($f->{linked} =~ /^got:(.*)$/) {
                    $ok = defined $sym->{$1} && $slot_is_hook->($sym->{$1} + unpack $wfmt, substr($data, $o, $word));
                } elsif ($f->{linked} =~ /^gprel:(.*)$/) {
                    my $d = $w & 0xffff;
                    $d -= 0x10000 if $d >= 0x8000;
                    $ok = defined $sym->{$1} && $slot_is_hook->($sym->{$1} + $d);
                } elsif ($f->{linked} =~ /^abs16:(\d+)$/) {
                    my $n = $1;
                    HOOK: for my $h (keys %$hookdef) {
                        next unless ($w & 0xffff) == _abs16($h, $n);
                        # every companion part of the address within its span
                        for my $c (@abs_comp) {
                            my ($m) = $c->{linked} =~ /(\d+)$/;
                            my @near;
                            for my $d (map { 4 * $_ } 1 .. $c->{span} / 4) {
                                last if $o + $d + 4 > length $data || $fstart{ $base + $o + $d };
                                push @near, $d;
                            }
                            next HOOK unless grep {
                                (unpack($w32, substr($data, $o + $_, 4)) & 0xffff) == _abs16($h, $m) } @near;
                        }
                        $ok = 1;
                        last;
                    }
                }
                next unless $ok;
                my $span = 0;
                $_->{span} > $span and $span = $_->{span} for grep { $_->{companion} } @$forms;
                push @calls, { sec => $sec, addr => $base + $o, len => 4, reach => $span,
                    field => $base + $o + $f->{field}, scanned => 1 } unless $seen{ $base + $o }++;
                last;
            }
        }
    }
    return \@calls;
}

# Every call to the hook: [ { sec, addr (where its entry must point),
# len (bytes of the call from there), field (the relocated field) } ].
#   object: an instruction carrying a relocation of a site form against a
#           hook (companions give none; the entry is `lead` bytes before);
#   linked: an instruction whose disassembly names a hook (directly,
#           through the PLT, a linker stub or a GOT slot holding it), or a
#           site found from its bytes as the call form says (linked=...).
sub hook_calls {
    my ($e, $objdump, $id, $label) = @_;
    my %hook = map { $_ => 1 } split ' ', $id->{hooks} // '';
    die "$label: mcount-scan did not name the hook for $id->{arch}\n" unless %hook;
    my $forms = call_forms($id);
    # a hook, its versioned name, or a linker's stub for it (mips
    # .pic._mcount, ppc *.plt_call._mcount, arm/aarch64 *_mcount_veneer)
    my $hook_of = sub {
        my ($n) = @_;
        $n =~ s/@.*//;
        return $n if $hook{$n};
        return $1 if $n =~ /\.([^.]+)$/ && $hook{$1};
        if ($n =~ /^_*(.+?)_veneer$/) {
            for my $h ($1, "_$1", "__$1") { return $h if $hook{$h} }
        }
        return undef;
    };
    my $form_of = sub {    # the site forms for a hook, found by name or not
        my ($h, @kinds) = @_;
        my %k = map { $_ => 1 } @kinds;
        return grep { !$_->{companion} && (!defined $_->{hook} || $_->{hook} eq ($h // ''))
            && $k{ $_->{linked} } } @$forms;
    };

    # Linked: addresses that mean "the hook": its definitions and stubs,
    # and the GOT slots the dynamic linker fills with it.
    my (%hookaddr, %hookdef, %hookslot, %sym, $gotbase);
    unless ($e->{rel}) {
        for my $s (@{ $e->{symtab} }, @{ $e->{dynsym} }) {
            next unless $s && $s->{ndx} =~ /^\d+$/;
            $sym{ $s->{name} } //= $s->{value};
            my $h = $hook_of->($s->{name}) or next;
            next unless $s->{value};
            $hookaddr{ $s->{value} } = $h;
            (my $n = $s->{name}) =~ s/@.*//;
            $hookdef{ $s->{value} } = $h if $hook{$n};
        }
        for my $list (values %{ $e->{relocs} }) {
            for my $r (@$list) {
                my $h = defined $r->{name} && $hook_of->($r->{name});
                $hookslot{ $r->{off} } = $h if $h;
            }
        }
        my $got = _section_by_name($e, '.got.plt') // _section_by_name($e, '.got');
        $gotbase = $got->{addr} if $got;
    }
    my $scanned = $e->{rel} ? [] : _scan_sites($e, $forms, \%hookdef, \%sym);
    # not in the hook itself or its stubs (mips .pic._mcount loads its address)
    @$scanned = grep { my $d = describe($e, $_->{sec}, $_->{addr}); !($d && $hook_of->($d->{name})) }
        @$scanned;
    my %scan_at = map { $_->{addr} => $_ } @$scanned;

    my @cmd = (@$objdump, '-d', '-w', ($e->{rel} ? '-r' : ()), $e->{file});
    my $out = _run($label, \@cmd);
    my %secidx;
    push @{ $secidx{ $_->{name} } }, $_ for grep { $_ } @{ $e->{secs} };
    my (@calls, @named, $sec, $skip, $last);
    for (split /\n/, $out) {
        if (/^Disassembly of section (.*):$/) {
            $sec = shift @{ $secidx{$1} };
            $skip = !$e->{rel} && $1 =~ /^\.(plt|iplt)/;
            $last = undef;
            next;
        }
        next unless $sec;
        if (/^([0-9a-f]+) <(.*)>:$/) {    # a label: skip the hook itself, its stubs, the PLT
            my ($a, $n) = (hex $1, $2);
            $skip = ($hook_of->($n) || $hookaddr{$a}) && !$e->{rel} ? 1
                : (!$e->{rel} && $sec->{name} =~ /^\.(plt|iplt)/) ? 1 : 0;
            next;
        }
        my @rel;
        # the bytes as objdump groups them: bytes, or words (arm, mips...)
        if (/^\s*([0-9a-f]+):\t([0-9a-f]+(?: [0-9a-f]+)*) *(?:\t(.*))?$/) {
            my ($a, $bytes, $text) = (hex $1, $2, $3 // '');
            my $len = length($bytes =~ tr/ //dr) / 2;
            $last = { addr => $a, len => $len, sec => $sec };
            while ($text =~ s/\t([0-9a-f]+): (R_\w+)\s+(\S+)//) { push @rel, [hex $1, $2, $3] }
            if (!$e->{rel} && !$skip) {
                my $hit;
                if ($text =~ /([0-9a-f]+) <([^>]+)>\s*$/) {
                    my ($t, $n) = (hex $1, $2);
                    $hit = ($n !~ /[+-]0x/ && $hook_of->($n)) || $hookaddr{$t} || $hookslot{$t};
                }
                # i386 PIC: call *DISP(%ebx), %ebx holding the GOT address
                if (!$hit && defined $gotbase && $text =~ /\*(-?)0x([0-9a-f]+)\(%ebx\)/) {
                    $hit = $hookslot{ $gotbase + ($1 ? -1 : 1) * hex $2 };
                }
                push @named, { %$last, hook => $hit, text => $text } if $hit;
            }
        } elsif (/^\s*([0-9a-f]+): (R_\w+)\s+(\S+)/) {
            push @rel, [hex $1, $2, $3];
        }
        for my $r (@rel) {
            my ($off, $type, $sym) = @$r;
            $sym =~ s/[+-]0x[0-9a-f]+$//;
            next unless $hook{$sym};
            my ($f) = grep { $_->{reloc} eq $type && (!defined $_->{hook} || $_->{hook} eq $sym) } @$forms;
            next if $f && $f->{companion};
            if ($f) {    # where the form says the call is (objdump prints `...` for zeros)
                my $at = $off - $f->{field};
                push @calls, { sec => $sec, addr => $at - $f->{lead}, len => $f->{len} + $f->{lead},
                    field => $off };
                next;
            }
            next unless $last && $off >= $last->{addr} && $off < $last->{addr} + $last->{len};
            push @calls, { %$last, field => $off };
        }
    }
    return \@calls if $e->{rel};

    # Linked: each named call is a site of a named form, or part of a
    # site found from its bytes (a companion: mips jalr/bal after the GOT
    # load, sh4's mov.l of the literal word).
    my $scan_forms = grep { !$_->{companion} && $_->{linked} !~ /^named/ } @$forms;
    for my $c (@named) {
        my @f = $form_of->($c->{hook}, 'named', 'named-end');
        my $bytes = _bytes_at($e, $c->{addr}, $c->{len}) // '';
        # where objdump names only a part of the call, check the opcode
        @f = grep { _op_match($_, $bytes) } @f if $scan_forms;
        my $covered = grep { $c->{addr} > $_->{addr} && $c->{addr} <= $_->{addr} + $_->{reach} } @$scanned;
        $covered ||= grep { $scan_at{ hex $_ } } $c->{text} =~ /\b([0-9a-f]{4,})\b/g;
        next if $covered && !@f;
        my ($f) = @f;
        my $start = $c->{addr};
        $start = $c->{addr} + $c->{len} - $f->{len}
            if $f && $f->{linked} eq 'named-end' && $f->{len} > $c->{len};
        my $lead = $f ? $f->{lead} : 0;
        push @calls, { sec => $c->{sec}, addr => $start - $lead, len => $c->{addr} + $c->{len} - $start + $lead,
            ($f ? (field => $start + $f->{field}) : ()) };
    }
    push @calls, @$scanned;
    return \@calls;
}

sub _where {
    my ($e, $sec, $addr) = @_;
    my $d = describe($e, $sec, $addr);
    my $f = $d ? sprintf('%s+0x%x/0x%x', $d->{name}, $d->{off}, $d->{size}) : '?';
    return $e->{rel} ? sprintf('%s+0x%x %s', $sec ? $sec->{name} : '?', $addr, $f)
                     : sprintf('0x%x %s', $addr, $f);
}

# Check a table against the calls.  Returns (list of problem lines, number
# of entries, number of calls expected to have one).
sub verify_table {
    my ($e, $entries, $calls, %o) = @_;
    my @bad;
    my $key = sub { my ($sec, $a) = @_; return $e->{rel} ? ($sec ? $sec->{idx} : -1) . ":$a" : "$a" };

    my (%call_at, %inside);
    for my $c (@$calls) {
        my $at = $o{entry} eq 'reloc' ? $c->{field} : $c->{addr};
        if (!defined $at) {
            die "$o{label}: cannot tell where the relocated field of the call at "
                . _where($e, $c->{sec}, $c->{addr}) . " is (--entry=reloc)\n";
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
    for my $ent (sort { ($a->{sec} ? $a->{sec}{idx} : -1) <=> ($b->{sec} ? $b->{sec}{idx} : -1)
                        || $a->{addr} <=> $b->{addr} } @$entries) {
        my $k = $key->($ent->{sec}, $ent->{addr});
        next if $said{$k}++;
        my $w = _where($e, $ent->{sec}, $ent->{addr});
        if (!$ent->{sec}) {
            push @bad, "$w: entry outside every section";
            next;
        }
        if ($ent->{sec}{flags} !~ /X/) {
            push @bad, "$w: entry outside text (in $ent->{sec}{name}, not code)";
            next;
        }
        push @bad, "$w: duplicate entry ($count{$k} times)" if $count{$k} > 1;
        next if $call_at{$k};
        if (my $c = $inside{$k}) {
            push @bad, sprintf('%s: entry is not a call to the hook (it is %d byte%s into the call at 0x%x)',
                $w, $ent->{addr} - $c->{addr}, $ent->{addr} - $c->{addr} == 1 ? '' : 's', $c->{addr})
                if $o{entry} eq 'call' || $ent->{addr} != $c->{at};
        } else {
            push @bad, "$w: entry is not a call to the hook";
        }
    }
    my $expected = 0;
    for my $c (sort { $a->{sec}{idx} <=> $b->{sec}{idx} || $a->{addr} <=> $b->{addr} } @$calls) {
        next unless section_selected($c->{sec}{name}, $o{sections}, $o{kernel});
        $expected++;
        push @bad, _where($e, $c->{sec}, $c->{addr}) . ": call to the hook has no entry"
            unless $count{ $key->($c->{sec}, $c->{at}) };
    }
    return (\@bad, scalar(@$entries), $expected);
}

1;
