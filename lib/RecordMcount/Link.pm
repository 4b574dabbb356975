# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Link;
# The link-time single pass: the table of a program or shared library is
# built from the linked image itself, so it holds exactly the calls to the
# hook of the code the linker kept (the one copy of a C++ inline function,
# what LTO generated, only what --gc-sections left), at their final,
# relaxed addresses.
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
use RecordMcount::Run qw(run_tool start_tool finish_tool temp_path basename exit_like response_file_cmd register_temp forget_temp
    shell_quote);
use RecordMcount::Front qw(helper_path plural);
use RecordMcount::Message qw(program error fatal throw caught tool_failure);
use RecordMcount::Pipeline qw(scan assemble_cmd run_step cleanup_job check_tool);
use RecordMcount::Tools qw(identify_object find_tools object_link_flags);
use RecordMcount::Elf qw(elf_header elf_has_section elf_machine read_elf file_bytes);
use RecordMcount::LinkOnce qw(one_link_refusal one_link remove_lto_temps lto_link stand_in_object);

our @EXPORT_OK = qw(record_link link_output wrapper_link first_object link_command method_text);

my $MAX_ROUNDS = 4;

# RecordMcount::Argv's expand_response_files, loaded where a word is an
# @file (mcount-record --link needs Argv for nothing else).
sub expand_response_files {
    my ($args) = @_;
    return ([@$args], undef) unless grep { /^@/ } @$args;
    require RecordMcount::Argv;
    return RecordMcount::Argv::expand_response_files($args);
}

# The file a link command writes: its -o (--output), else a.out.
sub link_output {
    my ($cmd) = @_;
    my @a = @$cmd[1 .. $#$cmd];
    for my $i (0 .. $#a) {
        return $a[$i + 1] if ($a[$i] eq '-o' || $a[$i] eq '--output') && $i < $#a;
        return $1 if $a[$i] =~ /^(?:-o|--output=)(.+)\z/s;
    }
    return 'a.out';
}

# Is the command the linker itself rather than a compiler driver?
sub _is_ld { return basename($_[0][0]) =~ /^(?:[\w.+]+-)?ld(?:\.\w+)?\z/ }

# Does the command already keep relocations (-q, --emit-relocs)?
sub _keeps_relocs {
    my ($cmd) = @_;
    for my $a (@$cmd[1 .. $#$cmd]) {
        my @w = $a =~ /^-Wl,(.*)\z/s ? split(/,/, $1) : ($a);
        return 1 if grep { /^(?:-q|--?emit-relocs)\z/ } @w;
    }
    return 0;
}

# The command with each of the linker's own options (every word of ld;
# a driver's -Wl,A,B,... and -Xlinker A) put through EDIT(WORD, the word
# before it): the words it returns replace it (none: it goes).
sub _edit_ld_words {
    my ($cmd, $edit) = @_;
    my @c = ($cmd->[0]);
    my $ld = _is_ld($cmd);
    my $prev = '';
    for (my $i = 1; $i <= $#$cmd; $i++) {
        my $a = $cmd->[$i];
        if ($ld) {
            push @c, $edit->($a, $prev);
            $prev = $a;
        } elsif ($a =~ /^-Wl,(.*)\z/s) {
            my @w;
            for my $x (split /,/, $1) { push @w, $edit->($x, $prev); $prev = $x }
            push @c, '-Wl,' . join(',', @w) if @w;
        } elsif ($a eq '-Xlinker' && $i < $#$cmd) {
            my $x = $cmd->[++$i];
            push @c, map { ('-Xlinker', $_) } $edit->($x, $prev);
            $prev = $x;
        } else {
            push @c, $a;
        }
    }
    return \@c;
}

# The command without the symbols it strips (ld -s, -x, -X, their long
# names; a driver's -s), which ld cannot do with -q: for the links that
# keep their relocations (the last link, without -q, strips them).
my %STRIP = map { $_ => 1 } qw(-s --strip-all -x --discard-all -X --discard-locals);
sub _without_strip {
    my ($cmd) = @_;
    my @c = ($cmd->[0], grep { _is_ld($cmd) || $_ ne '-s' } @$cmd[1 .. $#$cmd]);
    return _edit_ld_words(\@c, sub { $STRIP{ $_[0] } ? () : ($_[0]) });
}

# ld's -Map=DIR/ (DIR/OUTPUT.map) and -Map=...%... (% the output) name
# the map after the output, which the links write under temporary names:
# the command with those maps named after the real output.
sub _maps_named {
    my ($cmd, $out) = @_;
    my $fix = sub {
        my ($v) = @_;
        return $v =~ s/%/$out/gr if $v =~ /%/;
        return ($v =~ s{/+\z}{}r) . '/' . basename($out) . '.map' if $v =~ m{/\z} || -d $v;
        return $v;
    };
    return _edit_ld_words($cmd, sub {
        my ($w, $prev) = @_;
        return $1 . $fix->($2) if $w =~ /^(--?Map=)(.+)\z/s;
        return $fix->($w) if $prev =~ /^--?Map\z/;
        return $w;
    });
}

# The files the linker writes beside the output that name it: its map
# (-Map) and its dependency file (--dependency-file): [KIND, FILE].
sub _side_files {
    my ($cmd) = @_;
    my @r;
    _edit_ld_words($cmd, sub {
        my ($w, $prev) = @_;
        if ($w =~ /^--?Map=(.+)\z/s) { push @r, ['map', $1] }
        elsif ($prev =~ /^--?Map\z/) { push @r, ['map', $w] }
        elsif ($w =~ /^--dependency-file=(.+)\z/s) { push @r, ['dep', $1] }
        elsif ($prev eq '--dependency-file') { push @r, ['dep', $w] }
        return ($w);
    });
    return @r;
}

# The dependency file lists the table's object among the inputs: none
# such is left (a build tool would find it missing and link again).  (The
# map names the table's object too, as it names every input: a map is
# read by people, and says what was linked.)
sub _mend_side_files {
    my ($cmd, $tmp_o) = @_;
    # a name as the linkers write it: escaped or not (bfd escapes nothing),
    # with a leading ./ or not (lld drops it)
    my $norm = sub { $_[0] =~ s/\\(.)/$1/gr =~ s{^(?:\./)+}{}r };
    my $no = $norm->($tmp_o);
    for my $f (grep { $_->[0] eq 'dep' } _side_files($cmd)) {
        my $file = $f->[1];
        open(my $in, '<', $file) or next;
        my @lines = <$in>;
        close $in;
        my @keep;
        for (my $i = 0; $i <= $#lines; $i++) {
            my $l = $lines[$i];
            if ($l =~ /^\s+(.*?)( \\)?\n?\z/ && $norm->($1) eq $no) {
                # the last input: the one before ends the rule
                $keep[-1] =~ s/ \\\n\z/\n/ if !defined $2 && @keep;
                next;
            }
            if ($l =~ /^(\S.*?):\n?\z/ && $norm->($1) eq $no) {
                $i++ if $i < $#lines && $lines[$i + 1] =~ /^\n\z/;
                next;
            }
            push @keep, $l;
        }
        open(my $w, '>', $file) or next;
        print {$w} @keep;
        close $w;
    }
    return;
}

# The command with its output, and what else it needs, replaced.
sub _link_cmd {
    my ($cmd, $out, @extra) = @_;
    my @a = @$cmd[1 .. $#$cmd];
    my @r = ($cmd->[0]);
    my $had_o;
    for (my $i = 0; $i <= $#a; $i++) {
        if (($a[$i] eq '-o' || $a[$i] eq '--output') && $i < $#a) { push @r, '-o', $out; $i++; $had_o = 1 }
        elsif ($a[$i] =~ /^(?:-o.|--output=)/s) { push @r, '-o', $out; $had_o = 1 }
        else                            { push @r, $a[$i] }
    }
    push @r, '-o', $out unless $had_o;
    return [@r, @extra];
}

# GCC's LTO drops -pg unless the link has it too, and -pg on a link also
# makes the driver start programs with gcrt1.o (gmon.out at exit).  For a
# GCC link with -flto: the command with -pg and -nostartfiles, and the
# start and end files the driver would use without -pg named by hand
# (from its -### output).  Any other command is returned as it is.
sub _gcc_lto_cmd {
    my ($cmd) = @_;
    return $cmd if basename($cmd->[0]) =~ /clang/ || basename($cmd->[0]) !~ /(?:gcc|g\+\+|c\+\+|^cc)(?:-[0-9.]+)?\z/;
    return $cmd if grep { /^-(?:pg|nostartfiles|nostdlib|r)\z/ } @$cmd[1 .. $#$cmd];
    return $cmd unless lto_link($cmd);
    my ($st, $err) = run_tool(cmd => [@$cmd, '-###']);
    return $cmd if $st != 0;
    my ($line) = grep { m{(?:collect2|/ld(?:\.\w+)?)\s} } split /\n/, $err;
    return $cmd unless defined $line;
    my @w = map { s/^"(.*)"\z/$1/sr } split ' ', $line;
    my @start = grep { basename($_) =~ /^(?:[gSM]?crt1|rcrt1|grcrt1|crti|crtbegin\w*)\.o\z/ } @w;
    my @end = grep { basename($_) =~ /^(?:crtend\w*|crtn)\.o\z/ } @w;
    return [$cmd->[0], '-pg', '-nostartfiles', @start, @$cmd[1 .. $#$cmd], @end];
}

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

# record_link(CMD, OPTIONS) -> { status, sites, links, passed_over, output }
# CMD is a link command (compiler driver or ld) as the build gives it.
# Options: helper, objdump, objcopy, as or cc, readelf (command lists),
# label, id (mcount-scan --identify of first_object(CMD), if the caller
# has it already).
sub record_link {
    my ($cmd, $o) = @_;
    # (@response files read, for the output's name and the inputs; the
    # links get theirs again when the command is long: _link)
    my ($words, $bad) = expand_response_files([@$cmd[1 .. $#$cmd]]);
    my $why = $words ? undef : "$bad: cannot read the response file: $!";
    $cmd = [$cmd->[0], @$words] if $words;
    my $out = link_output($cmd);
    my %job = (o => { %$o, listing => 'relocs' }, label => $o->{label} // $out, tmp => {}, out => $out);
    throw("$job{label}: $why") if defined $why;
    my $r = eval { _record_link($cmd, $out, \%job) };
    my $err = $r ? undef : caught($@);
    cleanup_job(\%job);
    # a link that fails by itself leaves no output, as ld removes it
    # first: an old one would look up to date to make
    unlink $out if defined $err && defined $err->{link_status} && -f $out && !-l $out;
    die $err if defined $err;
    return $r;
}

sub _record_link {
    my ($cmd, $out, $job) = @_;
    $cmd = _gcc_lto_cmd($cmd);
    my ($o, $label) = ($job->{o}, $job->{label});
    $job->{hold_notes} = 1;
    $job->{tmp}{$_} = temp_path($out, $_) for qw(s o ps po img fq out tab);
    my $keep = _keeps_relocs($cmd);
    my @q = $keep ? () : _is_ld($cmd) ? ('-q') : ('-Wl,-q');
    # (a missing tool said before any link, as the record step says it)
    check_tool($label, $o->{$_} // [$_], $_) for qw(objdump readelf);
    $cmd = _maps_named($cmd, $out);
    my $qcmd = @q ? _without_strip($cmd) : $cmd;
    # the target's facts: from an ELF object on the command line, else
    # (LTO bitcode, sources, archives) from a first link of the command
    my $first = first_object($cmd);
    # One link where the inputs give a bound (RecordMcount::LinkOnce),
    # else the links below; the result says which ran, and why.
    my $one = _try_one_link($job, $cmd, $first);
    return $one if ref $one;
    $job->{method_why} = $one;
    if (!defined $first) {
        _link($job, 'linking (round 0)', _link_cmd($cmd, $job->{tmp}{img}), first => 1);
        $first = $job->{tmp}{img};
    }
    my $id = $o->{id} && $first ne $job->{tmp}{img} ? $o->{id}
        : eval { identify_object($o->{helper}, $first) } // throw("$label: " . caught($@));

    # Link with a placeholder of the last count until the count holds.
    my ($n, $plan, $rounds) = (1, undef, 0);
    while (1) {
        throw("$label: the number of calls to the hook still changed after $MAX_ROUNDS links")
            if ++$rounds > $MAX_ROUNDS + 1;
        _placeholder($job, $id, $first, $n);
        my $round = _link_cmd($qcmd, $job->{tmp}{img}, @q, $job->{tmp}{po});
        if ($rounds == 1) {
            _first_link($job, "linking (round $rounds)", $cmd, $round, !!@q, $job->{tmp}{po});
        } else {
            _link($job, "linking (round $rounds)", $round);
        }
        $job->{target} = $job->{tmp}{img};
        $job->{scan_args} = ['--linked', _tabled($job, $n, $id)];
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
        _link($job, 'linking with the table', _link_cmd($cmd, $out, $job->{tmp}{o}), show => 1, first => 1);
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
        _link($job, 'linking', _link_cmd($cmd, $out), show => 1, first => 1);
    }
    forget_temp(delete $job->{tmp}{final} // ());
    _mend_side_files($cmd, $job->{tmp}{o});
    $result{links} = $job->{links};
    $result{output} = $out;
    $result{method} = 'links';
    $result{method_why} = $job->{method_why};
    return \%result;
}

# The one-link method of CMD, where it applies (MCOUNT_LINK_METHOD=multi:
# never): the result, or why not (the command's output then left to the
# links after, which also say whose failure a failed link is).
sub _try_one_link {
    my ($job, $cmd, $first) = @_;
    my ($o, $label, $out) = ($job->{o}, $job->{label}, $job->{out});
    my $method = $o->{link_method} // $ENV{MCOUNT_LINK_METHOD} // 'auto';
    return 'MCOUNT_LINK_METHOD=multi' if $method eq 'multi';
    # (clang's LTO of bitcode alone: the target from an empty object)
    $first //= stand_in_object($cmd, $job->{tmp}{first} = temp_path($out, 'first.o'))
        // return 'no ELF object on the command line';
    my $id = $o->{id} // eval { identify_object($o->{helper}, $first) }
        // return 'its first object cannot be identified';
    my $why = one_link_refusal($cmd, $id, _is_ld($cmd));
    return $why if defined $why;
    # (the placeholder's assembly: written by the bound's step)
    my $placeholder = sub {
        _placeholder($job, $id, $first, $_[0], 1);
        return $job->{tmp}{po};
    };
    # (started: the inputs' listing is read while it runs)
    my $link = sub {
        my ($what, $extra) = @_;
        my $fin = _link_start($job, $what, _link_cmd($cmd, $out, @$extra), first => 1, show => 1, hold => 1);
        return sub {
            my $err = $fin->();
            register_temp($job->{tmp}{final} = $out) if -f $out && !-l $out;
            return $err;
        };
    };
    my ($r, $reason) = eval { one_link($job, $cmd, $id, is_ld => scalar _is_ld($cmd), placeholder => $placeholder,
        link => $link, first => $first, placeholder_s => $job->{tmp}{ps}) };
    # (an LTO link's kept objects, whatever became of it)
    remove_lto_temps($job);
    if (!$r && !defined $reason) {
        my $e = caught($@);
        # (a link that fails: the links after tell whose failure it is,
        # the command's own or the table's object's)
        $reason = defined $e->{link_status} ? 'the link failed' : "$e" =~ s/\n.*\z//sr;
    }
    if (!$r) {
        # (the links after write the output again)
        unlink $out if defined $job->{tmp}{final};
        forget_temp(delete $job->{tmp}{final} // ());
        $job->{links} = 0;
        return $reason;
    }
    forget_temp(delete $job->{tmp}{final} // ());
    print STDERR delete $r->{stderr} if length($r->{stderr} // '');
    _mend_side_files($cmd, $job->{tmp}{po}) if $job->{tmp}{po};
    $r->{output} = $out;
    return $r;
}

# Run one link.  Its warnings are shown once, for the link that makes the
# output (show); the first link's failure is the link command's own (its
# words and status, for a compiler wrapper to pass on: {link_status},
# {link_stderr}), a later one the pass's.  Where the linker names the
# file it writes (ld: "warning: FILE has a LOAD segment with RWX
# permissions"), it is given the output's name, not a temporary one's.
sub _link {
    my ($job, $what, $cmd, %o) = @_;
    return _link_start($job, $what, $cmd, %o)->();
}

# The same started: a sub that waits for it and does the rest (hold =>
# 1: returns what the linker said on stderr instead of printing it).
sub _link_start {
    my ($job, $what, $cmd, %o) = @_;
    # a long command (the build gave it in a response file) in one again
    $cmd = eval { response_file_cmd($cmd, $job->{tmp}{rsp} //= temp_path($job->{out}, 'rsp')) }
        // throw("$job->{label}: writing the link's response file: " . caught($@));
    # (what the linker prints, a map with -M say, once: for the output)
    my $t = start_tool(cmd => $cmd, capture_stdout => !$o{show});
    return sub { _link_done($job, $what, $cmd, \%o, finish_tool($t)) };
}

sub _link_done {
    my ($job, $what, $cmd, $o, $st, $err, $out) = @_;
    my %o = %$o;
    $job->{links}++;
    print STDOUT $out if !$o{show} && $st != 0 && $o{first} && length($out // '');
    for my $t (grep { defined } @{ $job->{tmp} }{qw(img fq out)}) {
        $err =~ s/\Q$t\E/$job->{out}/g;
    }
    throw(tool_failure($job->{label}, $what, $cmd, $st, $err),
        $o{first} ? (link_status => $st, link_stderr => $err) : ()) if $st != 0;
    return $err if $o{hold};
    print STDERR $err if $o{show} && length $err;
    return;
}

# The first link with -q and the placeholder.  Its failure is the link
# command's own, unless the command links without them: then it is the
# pass's failure, with the linker's words, saying which of the two the
# link cannot take: -q (gold with --gc-sections: an internal error), or
# the table's object (a layout with no ELF header for __ehdr_start, or
# --orphan-handling=error and a script without __mcount_loc).
sub _first_link {
    my ($job, $what, $cmd, $round, $q, $po) = @_;
    return if eval { _link($job, $what, $round, first => 1); 1 };
    my $e = caught($@);
    die $e unless defined $e->{link_status};
    my $plain = sub {
        my ($st) = run_tool(cmd => _link_cmd($cmd, $job->{tmp}{out}, @_), capture_stdout => 1);
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

# Which method made the table of record_link's result, in words.
sub method_text {
    my ($r) = @_;
    return sprintf('one link%s, the table filled in place (%d of %d slots%s; build ID %s)',
        $r->{lto} ? ' (LTO: its code generation once, its objects read)' : '', $r->{sites},
        $r->{slots}, $r->{dropped} ? ", $r->{dropped} of overridden weak functions left out" : '',
        $r->{build_id}) if $r->{method} eq 'one link';
    return 'links with -q, then the link with the table (one link could not: '
        . ($r->{method_why} // '?') . ')';
}

# mcount-record --link: record_link of CMD with the binutils for the
# target of its first object (OPTIONS: helper, explicit, cross, as
# find_tools takes them), and the summary line unless quiet.  Returns the
# exit status.
sub link_command {
    my ($cmd, $opt) = @_;
    my $r = eval {
        # the target's tools from the object the pass takes its facts from
        my $first = first_object($cmd);
        # (one that cannot be identified is said by record_link)
        my $id = defined $first ? eval { identify_object($opt->{helper}, $first) } : undef;
        my $tools = find_tools(explicit => $opt->{explicit}, cross => $opt->{cross},
            triple => $id ? $id->{triple} : undef, file => $first);
        record_link([@$cmd], { prog => program(), helper => $opt->{helper}, id => $id,
            map { $_ => $tools->{$_} } grep { $tools->{$_} } qw(objdump objcopy as cc readelf) });
    };
    if (!$r) { error(caught($@)); return 1 }
    print STDERR program(), ': ', $r->{output}, ': ', method_text($r), "\n" if $opt->{verbose};
    unless ($opt->{quiet}) {
        printf "%s: %s: %s, %s%s\n", program(), $r->{output},
            plural($r->{sites}, 'call site'), plural($r->{links}, 'link'),
            $r->{passed_over} ? ", $r->{passed_over} other references to the hook passed over" : '';
    }
    return 0;
}

# For a compiler wrapper: the link of COMMAND (the words after the
# compiler, @response files read) by COMPILER, through record_link with
# the binutils for the target (triple => a sub giving its triple), and
# the wrapper's exit contract: a link that fails by itself ends this
# process as the compiler did (its words, its status); a failure of the
# pass is FAIL_STATUS, with the message.  Objects that bring their own
# tables (per-object mode) get what the target's row says a link of them
# needs (riscv: no relaxation, which would move the code their entries
# point into); the pass itself does without.  say => a sub told what is
# done (mcount-cc's MCOUNT_CC_VERBOSE), why => the reason for link-time
# mode, label => the output's name.  Returns what record_link returns.
sub wrapper_link {
    my ($compiler, $command, $fail_status, %o) = @_;
    my $say = $o{say} // sub {};
    my @extra = grep({ !/^-/ && /\.o\z/ && elf_has_section($_, '__mcount_loc') } @$command)
        ? object_link_flags($command) : ();
    $say->("link with @extra, as per-object tables need for this target") if @extra;
    my @link = ($compiler, @$command, @extra);
    $say->("link ($o{why}): " . join(' ', map { shell_quote($_) } @link));
    my $r = eval {
        # (objects for this machine: the compiler's triple is not asked
        # for, a process and POSIX's load less)
        my $first = first_object(\@link);
        my $native = defined $first && (elf_machine($first) // '') eq (elf_machine('/proc/self/exe') // '-');
        my $tools = find_tools(triple => $native ? undef : $o{triple}->());
        record_link(\@link, { prog => $o{prog}, helper => helper_path(),
            map { $_ => $tools->{$_} } qw(objdump objcopy as readelf) });
    };
    if ($r) {
        $say->("$o{label}: " . plural($r->{sites}, "call site") . ", " . plural($r->{links}, "link") . "; " . method_text($r));
        return $r;
    }
    my $e = caught($@);
    if (defined $e->{link_status}) {
        print STDERR $e->{link_stderr};
        exit_like($e->{link_status});
    }
    fatal($fail_status, $e);
}

# Objects recorded one by one (mcount-cc's per-object mode, GCC's
# -mrecord-mcount) bring their tables into the link: the image's table is
# theirs and the placeholder's N entries of WORD bytes.  Their calls must
# get no second entry: --tabled with the addresses their entries hold
# (read as mcount-record --list reads a program's), but the
# placeholder's (__ehdr_start).  None when the table is the placeholder's
# (then in no later round either: the inputs are the same).
sub _tabled {
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
    my @addr = grep { !defined $base || $_ != $base } map { $_->{addr} & ~$flags } @{ _table_entries($e, []) // [] };
    return () unless @addr;
    open(my $fh, '>', $job->{tmp}{tab}) or throw("$label: $job->{tmp}{tab}: $!");
    printf {$fh} "%x\n", $_ for @addr;
    close($fh) or throw("$label: $job->{tmp}{tab}: $!");
    return ("--tabled=$job->{tmp}{tab}");
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
    _link($job, 'linking with the table, its code moved', _link_cmd($cmd, $out, $tmp->{o}));
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
