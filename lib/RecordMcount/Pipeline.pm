# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Pipeline;
# The record pipeline: the one place that turns an object compiled with -pg
# into the same object plus a __mcount_loc table.  Every front end
# (recordmcount.pl, mcount-record, mcount-cc) calls record_object();
# (RecordMcount::Wrapper is a compiler wrapper's way to it, mcount-cc's.)
#
#   objdump -h -t -r OBJ | mcount-scan   -> table.s + plan
#   as table.s (or CC -c table.s)        -> table.o
#   objcopy --globalize-symbol/--add-symbol (only if an anchor is local or
#                                         missing; runs while as does)
#   ld -r OBJ table.o                    -> relinked
#   objcopy --localize-symbol            (only if the previous step ran, or to
#                                         remove a file symbol ld -r invented)
#   rename over OBJ                      (atomic; the original is never written)
#
# The original is read through one open file descriptor (/dev/fd/N), so a
# concurrent rename of OBJ by another process cannot mix two versions.
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Run qw(run_tool start_tool finish_tool run_piped find_program
    temp_path forget_temp inherit_open basename dirname run_step step_done cleanup_job);
use RecordMcount::Plan qw(parse_plan HELPER_OK HELPER_BAD_INPUT HELPER_USAGE
    HELPER_NO_LISTING);
use RecordMcount::Message qw(throw caught status_text tool_name tool_text tool_failure helper_message);

our @EXPORT_OK = qw(record_object readable_file scan assemble_cmd
    check_tool);

sub check_tool {
    my ($label, $cmd, $what) = @_;
    throw("$label: no $what command given") unless @$cmd && length $cmd->[0];
    find_program($cmd->[0])
        or throw("$label: $cmd->[0]: not found (needed as $what; is it installed and on PATH?)");
    return;
}

# Does the command (after its program) already have one of the words of
# a plan's flag family ("--32 --64 --x32")?
sub _has_family_flag {
    my ($cmd, $family) = @_;
    my %fam = map { $_ => 1 } split ' ', $family // '';
    return scalar grep { $fam{$_} } @$cmd[1 .. $#$cmd];
}

# The assembler command a GCC driver would run for the table, where the
# plan says the driver runs exactly `as AS-FLAG` plus its -Wa, options
# (driver-as) and CC has no option that could change that: the driver's
# own process (about a third of the record step's tool time) is saved, the
# table object is the same.  undef: let the driver assemble.
my $DRIVER_AS_STOP = qr/^(?:\@|-(?:B|Xassembler|specs|-specs|wrapper|v\z|\#\#\#|-help|-version|-target
    |dump|print-|E\z|S\z|M|o|save-temps|time|pass-exit-codes|gsplit-dwarf))/x;
# Which compiler driver CC is: ('gcc', PREFIX) or ('clang', ''), following
# symbolic links (cc -> /etc/alternatives/cc -> gcc); () when unknown.
# PREFIX is a cross compiler's (aarch64-linux-gnu-), used by its driver.
sub _driver_kind {
    my ($cc) = @_;
    my $gcc = qr/^((?:[\w.+]+-)*?)gcc(?:-[0-9.]+)?\z/;
    my $clang = qr/^(?:[\w.+]+-)*?clang(?:-[0-9.]+)?\z/;
    my ($prefix) = basename($cc->[0]) =~ $gcc;
    return ('gcc', $prefix) if defined $prefix;
    return ('clang', '') if basename($cc->[0]) =~ $clang;
    my $driver = $cc->[0];
    for (1 .. 8) {
        my $path = find_program($driver) // return ();
        my $to = readlink $path // last;
        $driver = $to =~ m{^/} ? $to : ($path =~ s{[^/]*\z}{}r) . $to;
    }
    return ('gcc', '') if basename($driver) =~ $gcc;    # the host's as, then
    return ('clang', '') if basename($driver) =~ $clang;
    return ();
}

sub _driver_as {
    my ($cc, $plan) = @_;
    return undef unless $plan->{'driver-as'};
    my ($as_flag, $cc_flag) = ($plan->{'as-flag'} // '', $plan->{'cc-flag'} // '');
    my %family = map { $_ => 1 } split ' ', $plan->{'cc-flag-family'} // '';
    my %stop = map { $_ => 1 } split ' ', $plan->{'driver-as-unless'} // '';
    my ($kind, $prefix) = _driver_kind($cc);
    return undef unless ($kind // '') eq 'gcc';
    my @as = ("${prefix}as");
    for my $arg (@$cc[1 .. $#$cc]) {
        return undef if $arg =~ $DRIVER_AS_STOP || $stop{$arg};
        return undef if $family{$arg} && $arg ne $cc_flag;
        push @as, split /,/, $1 if $arg =~ /^-Wa,(.*)\z/s;
        push @as, '-W' if $arg eq '-w';
    }
    find_program($as[0]) or return undef;
    return [$as[0], ($as_flag ne '' ? $as_flag : ()), @as[1 .. $#as]];
}

# The regular file FILE names (a symlink's target, so the link stays a
# link), or dies: what every front end checks before a tool opens the
# file (a FIFO would block it).
sub readable_file {
    my ($file, $label) = @_;
    $label //= $file;
    throw("$label: no such file") unless -e $file || -l $file;
    my $path = $file;
    if (-l $file) {
        require Cwd;
        $path = Cwd::realpath($file);
        throw("$label: dangling symbolic link") unless defined $path && -e $path;
    }
    throw("$label: is a directory") if -d $path;
    throw("$label: not a regular file") unless -f $path;
    throw("$label: permission denied (cannot read)") unless -r $path;
    return $path;
}

sub _check_input {
    my ($file, $label) = @_;
    my $path = readable_file($file, $label);
    # -w alone says yes to root; a file without write bits was made
    # read-only on purpose, and rename() would replace it all the same.
    throw("$label: file is not writable") unless -w $path && ((stat _)[2] & 0222);
    my $dir = dirname($path);
    throw("$label: directory $dir is not writable (the new object is renamed into place)")
        unless -w $dir && -x $dir;
    return $path;
}

# record_object(FILE, OPTIONS) -> { status, sites, arch, plan, assembly? }
#   status: recorded | no-sites | already-recorded | lto | dry-run
# A failure throws a RecordMcount::Error ("FILE: message"; {usage} for
# bad arguments: then the message has no FILE).
# Options: helper, objdump, objcopy, cc (or as), ld (command lists), arch,
# bits, endian, entry (call|reloc), sections, listing (relocs|disasm),
# writable_table (an "aw" table: no text relocations in a PIE or shared
# library), pass_over (references to the hook that are no call are passed
# over, counted in the result's passed_over: a whole image such as the
# kernel's vmlinux.o), dry_run, label (name in messages).
sub record_object {
    my ($file, $o) = @_;
    my %job = (o => $o, label => $o->{label} // $file, tmp => {});
    my $r = eval { _record($file, \%job) };
    my $err = $@;
    cleanup_job(\%job);
    die caught($err) unless $r;
    return $r;
}

# Every path of a job ends here: remove what is left of its temporary
# files ({tmp}: name => path).
# The steps, in order; each takes the job (options, label, the original
# open as /dev/fd/N, temporary names, plan) and adds to it.
sub _record {
    my ($file, $job) = @_;
    _open_input($file, $job);
    $job->{target} = $job->{snap};
    my $plan = scan($job);
    my %result = (status => $plan->{status} // 'no-sites', sites => $plan->{sites} // 0,
        arch => $plan->{arch}, plan => $plan, passed_over => $plan->{'passed-over'} // 0);
    return \%result if $result{status} ne 'recorded';
    if ($job->{o}{dry_run}) {
        open(my $fh, '<', $job->{tmp}{s}) or throw("$job->{label}: cannot read $job->{tmp}{s}: $!");
        local $/;
        $result{assembly} = <$fh>;
        $result{status} = 'dry-run';
        return \%result;
    }
    _assemble_and_globalize($job);
    _relink($job);
    _finish($job);
    return \%result;
}

# Check the file, open it once (read as /dev/fd/N from then on, so a
# concurrent rename of it by another process cannot mix two versions),
# name the temporary files.
sub _open_input {
    my ($file, $job) = @_;
    my $label = $job->{label};
    $job->{path} = _check_input($file, $label);
    $job->{orig} = inherit_open($job->{path}) or throw("$label: cannot open: $!");
    $job->{snap} = '/dev/fd/' . fileno($job->{orig});
    $job->{mode} = (stat $job->{orig})[2] & 07777;
    check_tool($label, $job->{o}{objdump}, 'objdump');
    # table.s, table.o, globalized copy, relinked, localized
    $job->{tmp}{$_} = temp_path($job->{path}, $_) for qw(s o g r l);
    return;
}

# objdump | mcount-scan of the job's target (an object open as /dev/fd/N,
# or a linked image, with {scan_args} such as --linked): writes table.s,
# returns the plan.
sub scan {
    my ($job) = @_;
    my ($o, $label, $target) = ($job->{o}, $job->{label}, $job->{target});
    my @objdump = (@{ $o->{objdump} }, '-h', '-t',
        ($o->{listing} // 'relocs') eq 'disasm' ? '-dr' : '-r', $target);
    my @scan = ($o->{helper}, '--plan', '--object', $target, '--file-name', $label,
        '--name', $o->{prog} // 'recordmcount', '-o', $job->{tmp}{s}, @{ $job->{scan_args} // [] });
    for my $opt (qw(arch bits endian entry sections)) {
        push @scan, "--$opt", $o->{$opt} if defined $o->{$opt};
    }
    push @scan, '--writable' if $o->{writable_table};
    push @scan, '--pass-over' if $o->{pass_over};

    my ($pst, $perr, $sst, $serr, $sout) =
        run_piped(producer => \@objdump, consumer => \@scan);
    my $code = $sst & 127 ? -1 : $sst >> 8;
    _scan_failed($job, \@objdump, $pst, $perr, $sst, $serr, $code)
        if $pst != 0 || $code != HELPER_OK;
    # (the link-time pass scans every round, and tells the last one's)
    if ($job->{hold_notes}) { $job->{notes} = $serr } elsif (length $serr) { print STDERR $serr }
    return $job->{plan} = parse_plan($sout);
}

# Die with the most precise words for a failed objdump | mcount-scan: the
# scanner's (it checks the ELF header), unless it had no listing to read
# (HELPER_NO_LISTING): then objdump's own.
sub _scan_failed {
    my ($job, $objdump, $pst, $perr, $sst, $serr, $code) = @_;
    my $label = $job->{label};
    if ($code != HELPER_OK && $code != HELPER_NO_LISTING) {
        my ($first, $rest) = helper_message($serr, $label);
        # bad arguments (an unknown ARCH, a bad section list): usage
        throw($first, usage => 1) if $code == HELPER_USAGE && length $first;
        throw("$label: $first\n$rest") if $code == HELPER_BAD_INPUT && length $first;
        throw("$label: mcount-scan failed (" . status_text($sst) . ")\n" . tool_text($serr));
    }
    $perr =~ s/\Q$job->{target}\E/$label/g;
    my @lines = grep { /\S/ } split /\n/, $perr;
    my $first = shift(@lines) // 'no output';
    $first =~ s/^.*?\Q$label\E: //;
    throw("$label: objdump: $first (" . tool_name($objdump) . ' ' . status_text($pst) . ")\n"
        . tool_text(join "\n", @lines));
}

# The command that assembles table.s into table.o: the assembler (with
# the plan's as-flag), or the compiler driver (its flags choose the
# target, e.g. -m32) forced to assembler input and no debug info.
sub assemble_cmd {
    my ($job) = @_;
    my ($o, $plan, $tmp) = ($job->{o}, $job->{plan}, $job->{tmp});
    if ($o->{as}) {
        check_tool($job->{label}, $o->{as}, 'assembler');
        my @asm = @{ $o->{as} };
        push @asm, $plan->{'as-flag'}
            if $plan->{'as-flag'} && !_has_family_flag($o->{as}, $plan->{'as-flag-family'});
        # what the compiler driver would have told it, from the object's
        # ELF header (the scan's as-object-flags)
        push @asm, split ' ', $plan->{'as-object-flags'} // '';
        return [@asm, '-o', $tmp->{o}, $tmp->{s}];
    }
    check_tool($job->{label}, $o->{cc}, 'compiler (CC)');
    if (my $as = _driver_as($o->{cc}, $plan)) {
        return [@$as, '-o', $tmp->{o}, $tmp->{s}];
    }
    my @asm = @{ $o->{cc} };
    push @asm, $plan->{'cc-flag'}
        if $plan->{'cc-flag'} && !_has_family_flag($o->{cc}, $plan->{'cc-flag-family'});
    # clang's own assembler gives an empty .text 4-byte alignment, and ld -r
    # would pad the object's .text to it: use GNU as (which takes no debug
    # flags from clang); CC's compile flags unused for assembling are not
    # worth a warning
    if (((_driver_kind($o->{cc}))[0] // '') eq 'clang') {
        push @asm, '-fno-integrated-as', '-Qunused-arguments';
    } else {
        push @asm, '-g0';
    }
    return [@asm, '-c', '-o', $tmp->{o}, '-x', 'assembler', $tmp->{s}];
}

# Assemble the table; meanwhile make the anchors that are local, or that
# have to be added, global in a copy of the object, for ld -r to bind the
# table to them (the two are independent).  The assembler's result is
# reported first, as if they had run one after the other.
sub _assemble_and_globalize {
    my ($job) = @_;
    my ($o, $plan, $label) = ($job->{o}, $job->{plan}, $job->{label});
    my $asm = assemble_cmd($job);
    $job->{names} = [@{ $plan->{globalize} }, map { $_->[0] } @{ $plan->{'add-symbol'} }];
    $job->{input} = $job->{snap};
    my @objcopy;
    if (@{ $job->{names} }) {
        check_tool($label, $o->{objcopy}, 'objcopy');
        @objcopy = (@{ $o->{objcopy} });
        push @objcopy, "--globalize-symbol=$_" for @{ $plan->{globalize} };
        push @objcopy, '--add-symbol', "$_->[0]=$_->[1]:$_->[2],global" for @{ $plan->{'add-symbol'} };
        push @objcopy, $job->{snap}, $job->{tmp}{g};
        $job->{input} = $job->{tmp}{g};
    }
    my $as_job = start_tool(cmd => $asm);
    my @globalized = @objcopy ? run_tool(cmd => \@objcopy) : ();
    step_done($label, 'assembling the table', $asm, finish_tool($as_job));
    step_done($label, 'globalizing anchors', \@objcopy, @globalized) if @objcopy;
    return;
}

sub _relink {
    my ($job) = @_;
    my ($o, $plan) = ($job->{o}, $job->{plan});
    check_tool($job->{label}, $o->{ld}, 'linker (LD)');
    my @ld = (@{ $o->{ld} });
    push @ld, '-m', $plan->{'ld-emulation'}
        if $plan->{'ld-emulation'} && !grep { /^-m/ } @ld[1 .. $#ld];
    push @ld, '-r', '-o', $job->{tmp}{r}, $job->{input}, $job->{tmp}{o};
    my ($st, $err) = run_tool(cmd => \@ld);
    # An object whose .note.GNU-stack asks for an executable stack (GCC's
    # nested functions) makes ld 2.39 and later warn about the temporary
    # files; the object's own link warns where it matters.
    $err =~ s/^[^\n]*: warning: [^\n]*: requires executable stack[^\n]*\n?//mg if $st == 0;
    step_done($job->{label}, 'relinking (ld -r)', \@ld, $st, $err);
    return;
}

# Make the anchors local again and take out what ld -r added (only when
# there is any: usually no process runs here), then rename the result
# over the object, with the original's mode.
sub _finish {
    my ($job) = @_;
    my ($o, $plan, $tmp, $label) = ($job->{o}, $job->{plan}, $job->{tmp}, $job->{label});
    my @names = @{ $job->{names} };
    # ld -r names the file symbol it invents after its input's base name;
    # the table's object gets one too where the assembler writes mapping
    # symbols ($d on arm, aarch64, riscv).
    my @file_syms;
    push @file_syms, basename($job->{input}) if $plan->{'strip-ld-file-symbol'};
    push @file_syms, basename($tmp->{o}) if $plan->{'strip-table-file-symbol'};
    my @empty = @{ $plan->{'remove-section'} };    # sections only the table's object had
    my $final = $tmp->{r};
    if (@names || @file_syms || @empty) {
        check_tool($label, $o->{objcopy}, 'objcopy');
        my @cmd = (@{ $o->{objcopy} });
        push @cmd, "--localize-symbol=$_" for @names;
        push @cmd, "--strip-symbol=$_" for @file_syms;
        push @cmd, "--remove-section=$_" for @empty;
        run_step($label, @names ? 'localizing anchors' : 'removing what ld -r added',
            [@cmd, $tmp->{r}, $tmp->{l}]);
        $final = $tmp->{l};
    }
    chmod $job->{mode}, $final;
    rename $final, $job->{path} or throw("$label: cannot replace the object: $!");
    return;
}

1;
