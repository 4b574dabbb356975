# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Link;
# Link-time mode: the table of a program or shared library is built at
# its link from what the linker kept (the one copy of a C++ inline
# function, what LTO generated, only what --gc-sections left), at the
# calls' final, relaxed addresses.  Two methods:
#
#   RecordMcount::LinkOnce    the command's own link with a placeholder
#                             as large as the inputs' calls can need, the
#                             table filled in place after it
#   RecordMcount::LinkMulti   where one link cannot (it says why): links
#                             with -q until the count holds, then the
#                             command's own link with the table
#
# Both edit and run the command through RecordMcount::LinkCmd.  The
# multi-link method, its tools and the record pipeline are loaded only
# where it runs: a link through the pass starts once per program.
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Run qw(temp_path exit_like shell_quote cleanup_job);
use RecordMcount::Front qw(helper_path plural);
use RecordMcount::Message qw(program error fatal throw caught);
use RecordMcount::LinkCmd qw(expand_response_files link_output gcc_lto_cmd);
use RecordMcount::LinkOnce qw(try_one_link);

our @EXPORT_OK = qw(record_link link_command wrapper_link method_text);

# record_link(CMD, OPTIONS) -> { status, sites, links, passed_over, output,
# method, ... }.  CMD is a link command (compiler driver or ld) as the
# build gives it.  Options: helper, label, link_method, and for the
# multi-link method: objdump, objcopy, as or cc, readelf (command
# lists), or tools => a sub returning them and words to add to the
# command (its objects' tables' needs), id (mcount-scan --identify of
# its first object, if the caller has it already).
sub record_link {
    my ($cmd, $o) = @_;
    # (@response files read, for the output's name and the inputs; the
    # links get theirs again when the command is long: run_link)
    my ($words, $bad) = expand_response_files([@$cmd[1 .. $#$cmd]]);
    my $why = $words ? undef : "$bad: cannot read the response file: $!";
    $cmd = [$cmd->[0], @$words] if $words;
    my $out = link_output($cmd);
    my %job = (o => { %$o, listing => 'relocs' }, label => $o->{label} // $out, tmp => {}, out => $out);
    throw("$job{label}: $why") if defined $why;
    # (the tools found once: a placeholder to assemble, then the links
    # with -q, may each ask)
    if (my $find = $o->{tools}) {
        my @found;
        $job{o}{tools} = sub { @found = $find->(@_) unless @found; return @found };
    }
    my $r = eval {
        $cmd = gcc_lto_cmd($cmd);
        # One link where the inputs give a bound, else the links with -q;
        # the result says which ran, and why.
        my $one = try_one_link(\%job, $cmd);
        return $one if ref $one;
        $job{method_why} = $one;
        my ($tools, @extra) = $job{o}{tools} ? $job{o}{tools}->($cmd) : ();
        $job{o} = { %{ $job{o} }, %$tools } if $tools;
        require RecordMcount::LinkMulti;
        RecordMcount::LinkMulti::multi_link(\%job, [@$cmd, @extra]);
    };
    my $err = $r ? undef : caught($@);
    cleanup_job(\%job);
    # a link that fails by itself leaves no output, as ld removes it
    # first: an old one would look up to date to make
    unlink $out if defined $err && defined $err->{link_status} && -f $out && !-l $out;
    die $err if defined $err;
    return $r;
}

# Which method made the table of record_link's result, in words.
sub method_text {
    my ($r) = @_;
    return sprintf('%s, the table filled in place (%d of %d slots%s; build ID %s)',
        $r->{again} ? 'two links (LTO made more calls than its inputs\' bound: linked again with room for them)'
        : $r->{for_words} ? 'two links (the linker named a symbol: linked again for its demangled words)'
        : $r->{lto} ? 'one link (LTO: its code generation once, its objects read)' : 'one link', $r->{sites},
        $r->{slots}, $r->{dropped} ? ", $r->{dropped} of overridden weak functions left out" : '',
        $r->{build_id}) if $r->{method} eq 'one link';
    return 'links with -q, then the link with the table ('
        . ($r->{dropped} ? "$r->{dropped} of overridden weak functions left out; " : '')
        . 'one link could not: ' . ($r->{method_why} // '?') . ')';
}

# mcount-record --link: record_link of CMD with the binutils for the
# target of its first object (OPTIONS: helper, explicit, cross, as
# find_tools takes them), and the summary line unless quiet.  Returns the
# exit status.
sub link_command {
    my ($cmd, $opt) = @_;
    my $r = eval {
        record_link([@$cmd], { prog => program(), helper => $opt->{helper}, tools => sub {
            # the target's tools from the object the pass takes its facts from
            require RecordMcount::LinkMulti;
            require RecordMcount::Tools;
            my $first = RecordMcount::LinkMulti::first_object($_[0]);
            # (one that cannot be identified is said by the links)
            my $id = defined $first ? eval { RecordMcount::Tools::identify_object($opt->{helper}, $first) } : undef;
            my $tools = RecordMcount::Tools::find_tools(explicit => $opt->{explicit}, cross => $opt->{cross},
                triple => $id ? $id->{triple} : undef, file => $first);
            return { id => $id, map { $_ => $tools->{$_} } grep { $tools->{$_} } qw(objdump objcopy as cc readelf) };
        } });
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
# tables (per-object mode: never linked once) get what the target's row
# says a link of them needs (riscv: no relaxation, which would move the
# code their entries point into); the pass itself does without.  say =>
# a sub told what is done (mcount-cc's MCOUNT_CC_VERBOSE), why => the
# reason for link-time mode, label => the output's name.  Returns what
# record_link returns.
sub wrapper_link {
    my ($compiler, $command, $fail_status, %o) = @_;
    my $say = $o{say} // sub {};
    my @link = ($compiler, @$command);
    $say->("link ($o{why}): " . join(' ', map { shell_quote($_) } @link));
    my $r = eval {
        record_link(\@link, { prog => $o{prog}, helper => helper_path(), tools => sub {
            require RecordMcount::LinkMulti;
            require RecordMcount::Tools;
            require RecordMcount::Elf;
            my @extra = grep({ !/^-/ && /\.o\z/ && RecordMcount::Elf::elf_has_section($_, '__mcount_loc') }
                @$command) ? RecordMcount::Tools::object_link_flags($command) : ();
            $say->("link with @extra, as per-object tables need for this target") if @extra;
            # (objects for this machine: the compiler's triple is not
            # asked for, a process and POSIX's load less)
            my $first = RecordMcount::LinkMulti::first_object($_[0]);
            my $native = defined $first && (RecordMcount::Elf::elf_machine($first) // '')
                eq (RecordMcount::Elf::elf_machine('/proc/self/exe') // '-');
            my $tools = RecordMcount::Tools::find_tools(triple => $native ? undef : $o{triple}->());
            return ({ map { $_ => $tools->{$_} } qw(objdump objcopy as readelf) }, @extra);
        } });
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

1;
