# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Calls;
# Every call to the profiling hook in an object or a linked file, for
# mcount-record --verify: what a table should hold.
#
#   object: an instruction carrying a relocation of a site form against a
#           hook (companions give none; the entry is `lead` bytes before);
#   linked: an instruction whose disassembly names a hook (directly,
#           through the PLT, a linker stub or a GOT slot holding it), or a
#           site found from its bytes as its call form says (linked=...).
#
# What a hook, a stub, a call form and a GOT register are comes from
# mcount-scan --identify (RecordMcount::Plan); nothing here knows an
# architecture.
use strict;
use warnings;
no warnings 'portable';

use RecordMcount::Exports;
use RecordMcount::Run qw(tool_output);
use RecordMcount::Message qw(throw);
use RecordMcount::Elf qw(word_format file_bytes section_by_name bytes_at describe);

our @EXPORT_OK = qw(hook_calls call_forms);

# The hook names of a plan (mcount-scan --identify).
sub hook_names { return split ' ', $_[0]{hooks} // '' }

# The call-forms value (or KEY's: linker-forms): RELOC/LEN/FIELD then
# options (companion, lead=N, hook=NAME, call_at=N, span=N, op=HEX,
# mask=HEX, at=N[,M], linked=KIND); src/arch.h says what they mean.
# -> [ { reloc, len, field, lead, span, linked, companion?, hook?,
# call_at?, op?, mask?, at => [N...] } ]
sub call_forms {
    my ($plan, $key) = @_;
    $key //= 'call-forms';
    return $plan->{"_$key"} //= do {
        my @forms;
        for (split ' ', $plan->{$key} // '') {
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
        \@forms;
    };
}

# A function NAME -> the hook it stands for, or undef: a hook, its
# versioned name (__fentry__@GLIBC_2.13), or a linker's stub for it as
# the plan's hook-stubs patterns say (mips .pic._mcount, ppc
# NNNN.plt_call._mcount, arm/aarch64 __gnu_mcount_nc_veneer).
sub _hook_matcher {
    my ($id) = @_;
    my @hooks = sort { length $b <=> length $a } hook_names($id);
    my %hook = map { $_ => 1 } @hooks;
    my $any = join '|', map { quotemeta } @hooks;
    my @stubs;
    for my $pat (split ' ', $id->{'hook-stubs'} // '') {
        my $re = join '', map { $_ eq '*' ? '.*' : $_ eq '%h' ? "($any)" : quotemeta }
            grep { length } split /(\*|%h)/, $pat;
        push @stubs, qr/^$re\z/;
    }
    return sub {
        my ($n) = @_;
        $n =~ s/@.*//;
        return $n if $hook{$n};
        for my $re (@stubs) { return $1 if $n =~ $re && defined $1 }
        return undef;
    };
}

# Do the bytes at the start of $bytes match the form's opcode under its mask?
sub _op_match {
    my ($f, $bytes) = @_;
    return 1 unless defined $f->{op};
    my ($op, $mask) = (pack('H*', $f->{op}), pack('H*', $f->{mask}));
    return 0 if length $bytes < length $op;
    return (substr($bytes, 0, length $op) & $mask) eq $op;
}

# Bits N..N+15 of an address as the mips %hi/%higher/%highest operators
# give them: rounded up for the sign-extended 16-bit parts added below.
sub _abs16 {
    my ($a, $n) = @_;
    my $adj = 0;
    for (my $k = 0; $k < $n; $k += 16) { $adj += 0x8000 << $k }
    return (($a + $adj) >> $n) & 0xffff;
}

# Linked: what means "the hook" at an address.  hookaddr: its definitions
# and stubs; hookdef: its definitions; hookslot: the GOT slots the
# dynamic linker fills with it; sym: every defined symbol's value;
# gotbase: the GOT's address.
sub _hook_addresses {
    my ($e, $hook_of, $id) = @_;
    my %hook = map { $_ => 1 } hook_names($id);
    my %k = (hookaddr => {}, hookdef => {}, hookslot => {}, sym => {});
    for my $s (@{ $e->{symtab} }, @{ $e->{dynsym} }) {
        # a program's undefined function with a value: its PLT entry is
        # the function's address there (sh4's literal word holds it)
        my $plt = $s && $s->{ndx} eq 'UND' && $s->{value} && $s->{type} eq 'FUNC';
        next unless $s && ($s->{ndx} =~ /^\d+$/ || $s->{ndx} eq 'ABS' || $plt);
        $k{sym}{ $s->{name} } //= $s->{value} unless $plt;
        my $h = $hook_of->($s->{name}) or next;
        next unless $s->{value};
        $k{hookaddr}{ $s->{value} } = $h;
        # ppc64 ELFv2: a call from the same TOC goes to the local entry
        $k{hookaddr}{ $s->{value} + $s->{localentry} } = $h if $s->{localentry};
        (my $n = $s->{name}) =~ s/@.*//;
        $k{hookdef}{ $s->{value} } = $h if $hook{$n};
    }
    for my $list (values %{ $e->{relocs} }) {
        for my $r (@$list) {
            my $h = defined $r->{name} && $hook_of->($r->{name});
            $k{hookslot}{ $r->{off} } = $h if $h;
        }
    }
    # mips: the GOT's global part has no relocations; its entries, from
    # DT_MIPS_LOCAL_GOTNO words into DT_PLTGOT on, are those of the
    # dynamic symbols from DT_MIPS_GOTSYM on, in order
    my $d = $e->{dynamic} // {};
    if (defined $d->{MIPS_GOTSYM} && defined $d->{MIPS_LOCAL_GOTNO} && defined $d->{PLTGOT}) {
        for my $i ($d->{MIPS_GOTSYM} .. $#{ $e->{dynsym} }) {
            my $h = $e->{dynsym}[$i] && $hook_of->($e->{dynsym}[$i]{name}) or next;
            $k{hookslot}{ $d->{PLTGOT} + ($d->{MIPS_LOCAL_GOTNO} + $i - $d->{MIPS_GOTSYM}) * $e->{bits} / 8 } = $h;
        }
    }
    my $got = section_by_name($e, '.got.plt') // section_by_name($e, '.got');
    $k{gotbase} = $got->{addr} if $got;
    return \%k;
}

# Does the instruction word at offset $o of a section hold the hook's
# address as form $f says (linked=word, got:SYM, gprel:SYM, abs16:N)?
sub _scanned_form_matches {
    my ($s, $f, $data, $o) = @_;
    my ($e, $hookdef, $hookslot, $sym) = @$s{qw(e hookdef hookslot sym)};
    my $wfmt = word_format($e, 0);
    my $word = $e->{bits} / 8;
    my $w = unpack $s->{w32}, substr($data, $o, 4);
    my $slot_is_hook = sub {
        return 1 if $hookslot->{ $_[0] };    # filled by the dynamic linker
        my $b = bytes_at($e, $_[0], $word);
        return defined $b && $hookdef->{ unpack $wfmt, $b };
    };
    if ($f->{linked} eq 'word') {
        return $hookdef->{ unpack $wfmt, substr($data, $o, $word) };
    } elsif ($f->{linked} =~ /^got:(.*)$/) {
        return defined $sym->{$1} && $slot_is_hook->($sym->{$1} + unpack $wfmt, substr($data, $o, $word));
    } elsif ($f->{linked} =~ /^gprel:(.*)$/) {
        my $d = $w & 0xffff;
        $d -= 0x10000 if $d >= 0x8000;
        return defined $sym->{$1} && $slot_is_hook->($sym->{$1} + $d);
    } elsif ($f->{linked} =~ /^abs16:(\d+)$/) {
        my $n = $1;
        HOOK: for my $h (keys %$hookdef) {
            next unless ($w & 0xffff) == _abs16($h, $n);
            # every companion part of the address within its span
            for my $c (@{ $s->{abs_comp} }) {
                my ($m) = $c->{linked} =~ /(\d+)$/;
                my @near;
                for my $d (map { 4 * $_ } 1 .. $c->{span} / 4) {
                    last if $o + $d + 4 > length $data || $s->{fstart}{ $s->{base} + $o + $d };
                    push @near, $d;
                }
                next HOOK unless grep {
                    (unpack($s->{w32}, substr($data, $o + $_, 4)) & 0xffff) == _abs16($h, $m) } @near;
            }
            return 1;
        }
    }
    return 0;
}

# A linked file's sites of the forms found by their bytes, not by a name in
# the disassembly (linked=word, got:SYM, gprel:SYM, abs16:N): [ call ].
sub _scan_sites {
    my ($e, $id, $forms, $k) = @_;
    my @site = grep { !$_->{companion} && $_->{linked} =~ /^(word|got:|gprel:|abs16:)/ } @$forms;
    return [] unless @site && (%{ $k->{hookdef} } || %{ $k->{hookslot} });
    my $step = $id->{'scan-align'}
        or throw("$e->{file}: mcount-scan gave no scan-align for $id->{arch}, whose call forms need a scan");
    my %s = (e => $e, hookdef => $k->{hookdef}, hookslot => $k->{hookslot}, sym => $k->{sym},
        abs_comp => [grep { $_->{companion} && $_->{linked} =~ /^abs16:/ } @$forms],
        w32 => $e->{endian} eq 'big' ? 'N' : 'V',
        # a call sequence does not cross into the next function
        fstart => { map { $_->{value} => 1 } grep { $_ && $_->{type} eq 'FUNC' } @{ $e->{symtab} } });
    my $span = 0;
    $_->{span} > $span and $span = $_->{span} for grep { $_->{companion} } @$forms;
    my (@calls, %seen);
    for my $sec (grep { $_ && $_->{flags} =~ /X/ && $_->{type} eq 'PROGBITS' && $_->{size} } @{ $e->{secs} }) {
        my $data = $sec->{data} //= file_bytes($e, $sec->{off}, $sec->{size});
        my $base = $s{base} = $sec->{addr};
        for (my $o = ($step - $base % $step) % $step; $o + 4 <= length $data; $o += $step) {
            for my $f (@site) {
                next unless grep { my $at = $o + $_; $at >= 0 && _op_match($f, substr($data, $at, 4)) } @{ $f->{at} };
                next unless _scanned_form_matches(\%s, $f, $data, $o);
                push @calls, { sec => $sec, addr => $base + $o, len => 4, reach => $span,
                    field => $base + $o + $f->{field}, scanned => 1 } unless $seen{ $base + $o }++;
                last;
            }
        }
    }
    return \@calls;
}

# Read objdump -d -w [-r]: the object's calls found by their relocations
# (returned first), and, in a linked file, the instructions whose
# disassembly names the hook (second): [ { sec, addr, len, hook, text } ].
# Each entry of @$at ({ sec, addr }) that an instruction holds gets that
# instruction's address as insn (its own address where one starts there).
sub _disassembly {
    my ($e, $objdump, $id, $label, $hook_of, $k, $at) = @_;
    # the entries by section, in address order, and how far each list is read
    my (%want, %next);
    push @{ $want{ $_->{sec}{idx} } }, $_ for grep { $_->{sec} } @{ $at // [] };
    @$_ = sort { $a->{addr} <=> $b->{addr} } @$_ for values %want;
    my %hook = map { $_ => 1 } hook_names($id);
    my $forms = call_forms($id);
    my $gotreg = $id->{'got-register'};
    my $out = tool_output($label, 'disassembling',
        [@$objdump, '-d', '-w', ($e->{rel} ? '-r' : ()), $e->{file}]);
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
            $skip = ($hook_of->($n) || $k->{hookaddr}{$a}) && !$e->{rel} ? 1
                : (!$e->{rel} && $sec->{name} =~ /^\.(plt|iplt)/) ? 1 : 0;
            next;
        }
        my @rel;
        # the bytes as objdump groups them: bytes, or words (arm, mips...)
        if (/^\s*([0-9a-f]+):\t([0-9a-f]+(?: [0-9a-f]+)*) *(?:\t(.*))?$/) {
            my ($a, $bytes, $text) = (hex $1, $2, $3 // '');
            my $len = length($bytes =~ tr/ //dr) / 2;
            $last = { addr => $a, len => $len, sec => $sec };
            if (my $w = $want{ $sec->{idx} }) {
                my $i = \$next{ $sec->{idx} };
                $$i //= 0;
                $$i++ while $$i < @$w && $w->[$$i]{addr} < $a;
                $w->[$$i++]{insn} = $a while $$i < @$w && $w->[$$i]{addr} < $a + $len;
            }
            while ($text =~ s/\t([0-9a-f]+): (R_\w+)\s+(\S+)//) { push @rel, [hex $1, $2, $3] }
            if (!$e->{rel} && !$skip) {
                my $hit;
                if ($text =~ /([0-9a-f]+) <([^>]+)>\s*$/) {
                    my ($t, $n) = (hex $1, $2);
                    $hit = ($n !~ /[+-]0x/ && $hook_of->($n)) || $k->{hookaddr}{$t} || $k->{hookslot}{$t};
                }
                # a PIC call through the GOT whose address a register holds
                if (!$hit && defined $gotreg && defined $k->{gotbase}
                    && $text =~ /\*(-?)0x([0-9a-f]+)\(\Q$gotreg\E\)/) {
                    $hit = $k->{hookslot}{ $k->{gotbase} + ($1 ? -1 : 1) * hex $2 };
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
    return (\@calls, \@named);
}

# Linked: each named call is a site of a named form, or part of a site
# found from its bytes (a companion: mips jalr/bal after the GOT load,
# sh4's mov.l of the literal word), or a call a linker made of a site
# (a linker form whose opcode the instruction has: riscv's jal of a
# relaxed auipc+jalr, x86's addr32 call of a relaxed GOT call).
sub _named_sites {
    my ($e, $forms, $named, $scanned, $linker_forms) = @_;
    my %scan_at = map { $_->{addr} => $_ } @$scanned;
    my $scan_forms = grep { !$_->{companion} && $_->{linked} !~ /^named/ } @$forms;
    my @calls;
    for my $c (@$named) {
        my $bytes = bytes_at($e, $c->{addr}, $c->{len}) // '';
        my ($lf) = grep { !$_->{call_at} && $_->{len} == $c->{len} && _op_match($_, $bytes) }
            @$linker_forms;
        if ($lf) {
            push @calls, { sec => $c->{sec}, addr => $c->{addr}, len => $c->{len},
                field => $c->{addr} + $lf->{field} };
            next;
        }
        # the site forms for this hook, found by name
        my @f = grep { !$_->{companion} && (!defined $_->{hook} || $_->{hook} eq ($c->{hook} // ''))
            && $_->{linked} =~ /^named(?:-end)?\z/ } @$forms;
        # where objdump names only a part of the call, check the opcode;
        # an instruction that matches no form of the hook, where each
        # form is the instruction objdump names (not its end) and begins
        # with its opcode, is no call: a reference to the hook's address
        # (code that compares with it), or a jump to it (a tail call LTO
        # made, which the pass passes over)
        my @op = grep { _op_match($_, $bytes) } @f;
        my @whole = grep { defined $_->{op} && !$_->{lead} && "@{ $_->{at} }" eq '0' && $_->{linked} eq 'named' } @f;
        next if !$scan_forms && @f && @whole == @f && !@op;
        @f = @op if $scan_forms || @op;
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
    return @calls;
}

# Every call to the hook: [ { sec, addr (where its entry must point),
# len (bytes of the call from there), field (the relocated field) } ].
# Entries in @$at (optional: { sec, addr }) get insn, the address of the
# instruction that holds each, as objdump decodes them (_disassembly).
sub hook_calls {
    my ($e, $objdump, $id, $label, $at) = @_;
    throw("$label: mcount-scan did not name the hook for $id->{arch}") unless hook_names($id);
    my $hook_of = _hook_matcher($id);
    my $k = $e->{rel} ? { hookaddr => {} } : _hook_addresses($e, $hook_of, $id);
    my ($calls, $named) = _disassembly($e, $objdump, $id, $label, $hook_of, $k, $at);
    return $calls if $e->{rel};
    my $forms = call_forms($id);
    my $scanned = _scan_sites($e, $id, $forms, $k);
    # not in the hook itself or its stubs (mips .pic._mcount loads its address)
    @$scanned = grep { my $d = describe($e, $_->{sec}, $_->{addr}); !($d && $hook_of->($d->{name})) }
        @$scanned;
    return [@$calls, _named_sites($e, $forms, $named, $scanned, call_forms($id, 'linker-forms')),
        @$scanned];
}

1;
