# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::LinkMulti;
# The link-time pass by links with -q, where one link cannot make the
# table (RecordMcount::LinkOnce says why): the table of a program or
# shared library is built from the linked image itself, so it holds
# exactly the calls to the hook of the code the linker kept, at their
# final, relaxed addresses.
#
#   link  CMD -Wl,-q placeholder(1)   -> image   (count the sites: M)
#   link  CMD -Wl,-q placeholder(M)   -> image   (their addresses, with the
#                                                 table's space reserved)
#     ... again while the count changes (the kernel's kallsyms scheme)
#   objdump -h -t -r image | mcount-scan --linked   -> table.s (M entries;
#                                    -dr where the bytes leave a call's start open)
#   as    table.s                     -> table.o
#   link  CMD table.o                 -> output  (the command's own link:
#                                                 no -q unless it asks)
#   check: the code of output is where and what it was in the image;
#          where a linker lays out the rest otherwise without -q (lld's
#          .eh_frame), the code may have moved as a whole: the entries
#          are moved with it, linked again and checked against the calls
#          of the output's own disassembly; then rename over the output
#
# The placeholder has the table's size and kind of entries (M words of
# __ehdr_start + 0: as many dynamic relocations in a PIE), so the second
# link lays everything out as the first.  The steps are the record
# pipeline's (RecordMcount::Pipeline: scan, assemble); this module only
# drives the links.
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Run qw(run_tool temp_path register_temp forget_temp run_step);
use RecordMcount::Message qw(throw caught);
use RecordMcount::Pipeline qw(scan assemble_cmd check_tool);
use RecordMcount::Tools qw(identify_object);
use RecordMcount::Elf qw(elf_header read_elf file_bytes);
use RecordMcount::LinkCmd qw(expand_response_files is_ld keeps_relocs without_strip maps_named
    mend_side_files link_cmd run_link side_files linker_of);

our @EXPORT_OK = qw(multi_link first_object);

my $MAX_ROUNDS = 4;

# The first input object of the command that is ELF (LTO objects of
# clang are LLVM bitcode), for the target's facts.
sub first_object {
    my ($cmd) = @_;
    my ($words) = expand_response_files([@$cmd[1 .. $#$cmd]]);
    for my $a (@{ $words // [] }) {
        next if $a =~ /^-/ || $a !~ /\.o\z/;
        return $a if elf_header($a);
    }
    return undef;
}

# multi_link(JOB, CMD): the links with -q, then the link with the table
# (JOB and the result as RecordMcount::Link's record_link's).
sub multi_link {
    my ($job, $cmd) = @_;
    my $out = $job->{out};
    my ($o, $label) = ($job->{o}, $job->{label});
    $job->{hold_notes} = 1;
    $job->{tmp}{$_} //= temp_path($out, $_) for qw(s o ps po img fq out tab);
    my $keep = keeps_relocs($cmd);
    my @q = $keep ? () : is_ld($cmd) ? ('-q') : ('-Wl,-q');
    # (a missing tool said before any link, as the record step says it)
    check_tool($label, $o->{$_} // [$_], $_) for qw(objdump readelf);
    $cmd = maps_named($cmd, $out);
    my $qcmd = @q ? without_strip($cmd) : $cmd;
    # the target's facts: from an ELF object on the command line, else
    # (LTO bitcode, sources, archives) from a first link of the command
    my $first = first_object($cmd);
    if (!defined $first) {
        run_link($job, 'linking (round 0)', link_cmd($cmd, $job->{tmp}{img}), first => 1);
        $first = $job->{tmp}{img};
    }
    my $id = $o->{id} && $first ne $job->{tmp}{img} ? $o->{id}
        : eval { identify_object($o->{helper}, $first) } // throw("$label: " . caught($@));

    # ld's map of each round, where the one link's rule can be had from
    # it (the command writes none of its own): no entry in the copy of a
    # weak function another definition overrode
    my $map = !grep({ $_->[0] eq 'map' } side_files($cmd)) && linker_of($cmd, is_ld($cmd)) =~ /^(?:bfd|gold)\z/
        ? ($job->{tmp}{map} //= temp_path($out, 'map')) : undef;
    my @map = !defined $map ? () : is_ld($cmd) ? ("-Map=$map") : ("-Wl,-Map=$map");

    # Link with a placeholder of the last count until the count holds.
    my ($n, $plan, $rounds) = (1, undef, 0);
    while (1) {
        throw("$label: the number of calls to the hook still changed after $MAX_ROUNDS links")
            if ++$rounds > $MAX_ROUNDS + 1;
        _placeholder($job, $id, $first, $n);
        my $round = link_cmd($qcmd, $job->{tmp}{img}, @q, $job->{tmp}{po}, @map);
        if ($rounds == 1) {
            _first_link($job, "linking (round $rounds)", $cmd, $round, !!@q, $job->{tmp}{po});
        } else {
            run_link($job, "linking (round $rounds)", $round);
        }
        $job->{target} = $job->{tmp}{img};
        my @dropped = defined $map ? _overridden($job, $id, $map) : ();
        $job->{dropped} = scalar @dropped;
        $job->{scan_args} = ['--linked', _tabled($job, $n, $id, @dropped)];
        # The first round only counts the calls.  The plan of a later one
        # makes the table: where the relocations and the bytes leave a
        # call's start open (ambiguous), it reads the disassembly, which
        # alone tells a call the linker relaxed to `90 e8` from a plain
        # `e8` that follows an instruction ending in a 0x90 byte (clang
        # -O0's spill to -0x70(%rbp) before the call to mcount: `48 89 7d
        # 90 e8 ...`).  objdump -d costs twice the link; most images need
        # none.
        $o->{listing} = 'relocs';
        $plan = scan($job);
        if ($rounds > 1 && $plan->{ambiguous}) {
            $o->{listing} = 'disasm';
            $plan = scan($job);
        }
        last if ($rounds > 1 && $plan->{sites} == $n) || !$plan->{sites};
        $n = $plan->{sites};
    }
    print STDERR $job->{notes} if length($job->{notes} // '');
    my %result = (status => $plan->{status}, sites => $plan->{sites},
        passed_over => $plan->{'passed-over'} // 0);

    # The last link writes the output itself, under the name the command
    # gives it (gold writes that name into a shared library's .dynstr),
    # as the command would; until it has been checked, a failure or a
    # signal removes what it wrote.
    if ($plan->{sites}) {
        # the real table in place of the placeholder, in the command's
        # own link: no -q (unless the command asks for it), its own
        # stripping, and nothing rewritten after it.  A tool that edits a
        # linked image must keep every index in it right, and objcopy
        # does not: removing the -q link's relocation sections renumbers
        # the sections but leaves .dynsym's section indices as they were.
        $job->{plan} = $plan;
        run_step($label, 'assembling the table', assemble_cmd($job));
        # (its failure is the command's own: a link that failed by
        # itself, writing its output, once the rounds could)
        run_link($job, 'linking with the table', link_cmd($cmd, $out, $job->{tmp}{o}), show => 1, first => 1);
        # (ld writes through a symbolic link, or replaces it, as it may)
        my ($wrote, $hops) = ($out, 0);
        $wrote = readlink($wrote) =~ s{^(?!/)}{$wrote =~ s{[^/]*\z}{}r}er while -l $wrote && ++$hops <= 40;
        register_temp($job->{tmp}{final} = $wrote) if -f $wrote && !-l $wrote;
        # (lld lays out .eh_frame otherwise under -q, which can move the
        # code after it: the entries follow it, and are checked again)
        my @moves = _code_moves($job, read_elf($job->{o}{readelf} // ['readelf'], $job->{tmp}{img}, $label,
            'sections'), $out);
        _shift_table($job, $id, $cmd, @moves) if grep { !$_->[3] } @moves;
    } else {
        # no call to the hook: the program as the command links it
        run_link($job, 'linking', link_cmd($cmd, $out), show => 1, first => 1);
    }
    forget_temp(delete $job->{tmp}{final} // ());
    mend_side_files($cmd, $job->{tmp}{o});
    $result{links} = $job->{links};
    $result{output} = $out;
    $result{method} = 'links';
    $result{method_why} = $job->{method_why};
    $result{dropped} = $job->{dropped} // 0;
    return \%result;
}

# The first link with -q and the placeholder.  Its failure is the link
# command's own, unless the command links without them: then it is the
# pass's failure, with the linker's words, saying which of the two the
# link cannot take: -q (gold with --gc-sections: an internal error), or
# the table's object (a layout with no ELF header for __ehdr_start, or
# --orphan-handling=error and a script without __mcount_loc).
sub _first_link {
    my ($job, $what, $cmd, $round, $q, $po) = @_;
    return if eval { run_link($job, $what, $round, first => 1); 1 };
    my $e = caught($@);
    die $e unless defined $e->{link_status};
    my $plain = sub {
        my ($st) = run_tool(cmd => link_cmd($cmd, $job->{tmp}{out}, @_), capture_stdout => 1);
        unlink $job->{tmp}{out};
        return $st == 0;
    };
    die $e unless $plain->();
    my $why = !$plain->($po)
        ? "the link fails with the table's object (__mcount_loc, entries against __ehdr_start), and not without it"
        : $q ? "the link fails with -q (its relocations kept), which the link-time pass needs, and not without it"
        : die $e;
    throw("$job->{label}: $why: link with another linker or layout, or record the objects "
        . "one by one (mcount-cc's MCOUNT_CC_MODE=object); the linker said:\n"
        . join('', map { "  $_\n" } split /\n/, $e->{link_stderr}));
}

# The calls of the image (its round's MAP) in overridden weak copies, as
# the one link leaves them out (mcount-scan --fill-linked --dropped: the
# image unchanged); none where that cannot tell (a target whose
# relocations it does not read, a map or an input it cannot).
sub _overridden {
    my ($job, $id, $map) = @_;
    my $file = $job->{tmp}{dropped} //= temp_path($job->{out}, 'dropped');
    my ($st, undef, $out) = run_tool(cmd => [$job->{o}{helper}, "--arch=$id->{arch}", "--fill-linked=$map",
        '--object', $job->{tmp}{img}, "--dropped=$file"], capture_stdout => 1);
    return () if $st != 0 || $out !~ /^sites\t/m || !open(my $fh, '<', $file);
    return map { /^([0-9a-f]+)$/ ? hex $1 : () } <$fh>;
}

# Objects recorded one by one (mcount-cc's per-object mode, GCC's
# -mrecord-mcount) bring their tables into the link: the image's table is
# theirs and the placeholder's N entries of WORD bytes.  Their calls must
# get no second entry: --tabled with the addresses their entries hold
# (read as mcount-record --list reads a program's), but the
# placeholder's (__ehdr_start), and those of the calls in overridden
# weak copies (DROPPED).  The objects' none when the table is the
# placeholder's (then in no later round either: the inputs are the same).
sub _tabled {
    my ($job, $n, $id, @dropped) = @_;
    my @addr = (_object_tables($job, $n, $id), @dropped);
    return () unless @addr;
    my $label = $job->{label};
    open(my $fh, '>', $job->{tmp}{tab}) or throw("$label: $job->{tmp}{tab}: $!");
    printf {$fh} "%x\n", $_ for @addr;
    close($fh) or throw("$label: $job->{tmp}{tab}: $!");
    return ("--tabled=$job->{tmp}{tab}");
}

# The addresses the tables of the image's objects hold (_tabled).
sub _object_tables {
    my ($job, $n, $id) = @_;
    return () if $job->{untabled};
    my $word = $id->{bits} / 8;
    # (an entry's flag bits, arm's Thumb bit, are no part of the address)
    my $flags = 0 + ($id->{'entry-flag-bits'} // 0);
    my ($readelf, $img, $label) = ($job->{o}{readelf} // ['readelf'], $job->{tmp}{img}, $job->{label});
    my ($tab) = grep { $_ && $_->{name} eq '__mcount_loc' } @{ read_elf($readelf, $img, $label, 'sections')->{secs} };
    return () if ($job->{untabled} = !($tab && $tab->{size} > $n * $word));
    my $e = read_elf($readelf, $img, $label);
    my ($base) = map { $_->{value} } grep { $_ && $_->{name} eq '__ehdr_start' } @{ $e->{symtab} };
    return grep { !defined $base || $_ != $base } map { $_->{addr} & ~$flags } @{ _table_entries($e, []) // [] };
}

# RecordMcount::Table's table_entries, loaded where the links with -q
# need it (the one link does without: less to compile at each start).
sub _table_entries {
    require RecordMcount::Table;
    return RecordMcount::Table::table_entries(@_);
}

# Assemble a placeholder table of N entries for the target of $id (its
# assembly WRITTEN already: mcount-scan --bound -o).
sub _placeholder {
    my ($job, $id, $first, $n, $written) = @_;
    my ($o, $label, $tmp) = ($job->{o}, $job->{label}, $job->{tmp});
    run_step($label, 'writing the placeholder table',
        [$o->{helper}, "--placeholder=$n", '--object', $first, '-o', $tmp->{ps}]) unless $written;
    my %ph = (o => $o, label => $label, plan => $id, tmp => { s => $tmp->{ps}, o => $tmp->{po} });
    run_step($label, 'assembling the placeholder table', assemble_cmd(\%ph));
    return;
}

# Where the output's code is against the image the table was made from:
# each executable section of the image must be in the output with the
# same size (no call can have changed form): [image address, size, how
# far it moved, whether its bytes are the same], a section each.  The
# rest of the output is the linker's own, as the command links it.
sub _code_moves {
    my ($job, $a, $out) = @_;
    my $label = $job->{label};
    my $b = read_elf($job->{o}{readelf} // ['readelf'], $out, $label, 'sections');
    my %by;
    push @{ $by{ $_->{name} } }, $_ for grep { $_ && $_->{flags} =~ /A/ } @{ $b->{secs} };
    my @moves;
    for my $s (grep { $_ && $_->{flags} =~ /A/ && $_->{flags} =~ /X/ && $_->{size} && $_->{type} ne 'NOBITS' }
               @{ $a->{secs} }) {
        my $where = sprintf '%s (0x%x, %d bytes)', $s->{name}, $s->{addr}, $s->{size};
        my $t = shift @{ $by{ $s->{name} } // [] }
            or throw("$label: the link without -q lost section $where");
        throw(sprintf('%s: the link without -q made %s %d bytes', $label, $where, $t->{size}))
            if $t->{size} != $s->{size};
        my $delta = $t->{addr} - $s->{addr};
        push @moves, [$s->{addr}, $s->{size}, $delta,
            !$delta && file_bytes($a, $s->{off}, $s->{size}) eq file_bytes($b, $t->{off}, $t->{size})];
    }
    return @moves;
}

# The output's code is not where and what the image's was: each code
# section must have moved as a whole (_code_moves), and each entry moves
# with its section.  The table is assembled and linked again; that link
# must lay out everything as the one before, and its entries must be the
# calls to the hook its own disassembly shows.
sub _shift_table {
    my ($job, $id, $cmd, @moves) = @_;
    my ($label, $tmp) = ($job->{label}, $job->{tmp});
    my $readelf = $job->{o}{readelf} // ['readelf'];
    my ($base) = map { $_->{value} } grep { $_ && $_->{name} eq '__ehdr_start' }
        @{ read_elf($readelf, $tmp->{img}, $label)->{symtab} };
    throw("$label: the image has no __ehdr_start") unless defined $base;
    my $flags = 0 + ($id->{'entry-flag-bits'} // 0);
    open(my $in, '<', $tmp->{s}) or throw("$label: $tmp->{s}: $!");
    my @lines = <$in>;
    close $in;
    for (@lines) {
        next unless /^(\s*\S+\s+__ehdr_start\s*)([+-])\s*0x([0-9a-fA-F]+)\s*\z/;
        my ($head, $e) = ($1, $2 eq '+' ? $base + hex $3 : $base - hex $3);
        my ($m) = grep { ($e & ~$flags) >= $_->[0] && ($e & ~$flags) < $_->[0] + $_->[1] } @moves;
        throw(sprintf('%s: the table entry 0x%x is in no code section', $label, $e)) unless $m;
        $e += $m->[2];
        $_ = sprintf("%s%s 0x%x\n", $head, $e >= $base ? '+' : '-', $e >= $base ? $e - $base : $base - $e);
    }
    open(my $w, '>', $tmp->{s}) or throw("$label: $tmp->{s}: $!");
    print {$w} @lines;
    close($w) or throw("$label: $tmp->{s}: $!");
    run_step($label, 'assembling the table, its code moved', assemble_cmd($job));
    my $out = $job->{out};
    require File::Copy;
    File::Copy::copy($out, $tmp->{fq}) or throw("$label: $out: cannot copy: $!");
    run_link($job, 'linking with the table, its code moved', link_cmd($cmd, $out, $tmp->{o}));
    _same_layout($job, $tmp->{fq}, $out);
    require RecordMcount::Calls;
    my $e = read_elf($readelf, $out, $label);
    my @bad;
    my $ent = _table_entries($e, \@bad) // [];
    my $calls = RecordMcount::Calls::hook_calls($e, $job->{o}{objdump} // ['objdump'], $id, $label);
    my ($problems) = RecordMcount::Table::verify_table($e, $ent, $calls, entry => 'call',
        sections => $job->{o}{sections} // 'kernel', kernel => $id->{'kernel-sections'}, label => $label, flag_bits => $flags,
        nop => $id->{'compiler-nop'});
    push @bad, @$problems;
    throw("$label: the table moved with the code does not match its calls: $bad[0]"
        . (@bad > 1 ? sprintf(' (and %d more)', @bad - 1) : '')) if @bad;
    return;
}

# The second link must lay out everything as the first: same allocated
# sections at the same addresses with the same sizes, and the same bytes
# but for the table, the addends of its dynamic relocations and the build
# ID.  Both links are made with -q (see _record_link).
sub _same_layout {
    my ($job, $img, $out) = @_;
    my $label = $job->{label};
    my $readelf = $job->{o}{readelf} // ['readelf'];
    my ($a, $b) = map { read_elf($readelf, $_, $label, 'sections') } $img, $out;
    my $laid = sub { grep { $_ && $_->{flags} =~ /A/ } @{ $_[0]{secs} } };
    my %in_b = map { $_->{name} => $_ } $laid->($b);
    for my $s ($laid->($a)) {
        my $t = delete $in_b{ $s->{name} };
        my $where = sprintf '%s (0x%x, %d bytes)', $s->{name}, $s->{addr}, $s->{size};
        throw("$label: the link with the table lost section $where") unless $t;
        throw(sprintf('%s: the link with the table moved %s to 0x%x, %d bytes', $label, $where,
            $t->{addr}, $t->{size})) if $t->{addr} != $s->{addr} || $t->{size} != $s->{size};
        # the table, its relocations' addends and the build ID (a hash of
        # the whole output) are what may differ
        next if $s->{type} eq 'NOBITS'
            || $s->{name} =~ /^(?:__mcount_loc|\.rela?\.dyn|\.note\.gnu\.build-id)\z/;
        throw("$label: the link with the table changed the contents of $where")
            if file_bytes($a, $s->{off}, $s->{size}) ne file_bytes($b, $t->{off}, $t->{size});
    }
    throw("$label: the link with the table added section " . join(', ', sort keys %in_b))
        if %in_b;
    return;
}

1;
