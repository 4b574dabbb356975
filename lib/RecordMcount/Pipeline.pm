package RecordMcount::Pipeline;
# The record pipeline: the one place that turns an object compiled with -pg
# into the same object plus a __mcount_loc table.  Every front end
# (recordmcount.pl, mcount-record, mcount-cc) calls record_object().
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

use Exporter 'import';
use RecordMcount::Run qw(run_tool start_tool finish_tool run_piped find_program status_text
    register_temp forget_temp tool_name inherit_open basename dirname);

our @EXPORT_OK = qw(record_object readable_file);

my $seq = 0;

sub _fail { my ($label, $msg) = @_; die "$label: $msg\n" }

# A tool's stderr, indented under our own message line.
sub _tool_text {
    my ($text) = @_;
    return '' unless defined $text && length $text;
    $text =~ s/\s+\z//;
    return join '', map { "  $_\n" } split /\n/, $text;
}

sub _check_tool {
    my ($label, $cmd, $what) = @_;
    _fail($label, "no $what command given") unless @$cmd && length $cmd->[0];
    find_program($cmd->[0])
        or _fail($label, "$cmd->[0]: not found (needed as $what; is it installed and on PATH?)");
    return;
}

sub _run_step {
    my ($label, $what, $cmd, %o) = @_;
    _step_done($label, $what, $cmd, run_tool(cmd => $cmd));
    return;
}

# A finished step: die with the tool's words if it failed, else pass its
# stderr (warnings) on.
sub _step_done {
    my ($label, $what, $cmd, $st, $err) = @_;
    if ($st != 0) {
        die "$label: $what failed (" . tool_name($cmd) . ' ' . status_text($st) . ")\n"
            . _tool_text($err);
    }
    print STDERR $err if length $err;
    return;
}

sub _has_flag {
    my ($cmd, $re) = @_;
    return scalar grep { $_ =~ $re } @$cmd[1 .. $#$cmd];
}

# The assembler command a GCC driver would run for the table, when CC is
# one whose flags cannot change that command: the driver's own process
# (about a third of the record step's tool time) is saved, the table
# object is the same.  x86 only, where the driver adds exactly --32/--64
# (from -m32/-m64) and -Wa, options; elsewhere it passes ABI and CPU
# options that also mark the object.  undef: let the driver assemble.
my $DRIVER_AS_STOP = qr/^(?:\@|-(?:B|Xassembler|specs|-specs|wrapper|v\z|\#\#\#|-help|-version|-target
    |dump|print-|E\z|S\z|M|o|save-temps|time|pass-exit-codes|gsplit-dwarf|msse2avx|m16\z|mx32\z))/x;
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
    my ($as_flag, $cc_flag) = ($plan->{'as-flag'} // '', $plan->{'cc-flag'} // '');
    return undef unless $as_flag =~ /^--(?:32|64)\z/ && $cc_flag =~ /^-m(?:32|64)\z/;
    my ($kind, $prefix) = _driver_kind($cc);
    return undef unless ($kind // '') eq 'gcc';
    my @as = ("${prefix}as");
    for my $arg (@$cc[1 .. $#$cc]) {
        return undef if $arg =~ $DRIVER_AS_STOP;
        return undef if $arg =~ /^-m(?:32|64)\z/ && $arg ne $cc_flag;
        push @as, split /,/, $1 if $arg =~ /^-Wa,(.*)\z/s;
        push @as, '-W' if $arg eq '-w';
    }
    find_program($as[0]) or return undef;
    return [$as[0], $as_flag, @as[1 .. $#as]];
}

# Check the file before anything runs; returns the path to work on (a
# symlink's target, so the link stays a link).
# The regular file FILE names (a symlink's target), or dies: what every
# front end checks before a tool opens the file (a FIFO would block it).
sub readable_file {
    my ($file, $label) = @_;
    $label //= $file;
    _fail($label, 'no such file') unless -e $file || -l $file;
    my $path = $file;
    if (-l $file) {
        require Cwd;
        $path = Cwd::realpath($file);
        _fail($label, 'dangling symbolic link') unless defined $path && -e $path;
    }
    _fail($label, 'is a directory') if -d $path;
    _fail($label, 'not a regular file') unless -f $path;
    _fail($label, 'permission denied (cannot read)') unless -r $path;
    return $path;
}

sub _check_input {
    my ($file, $label) = @_;
    my $path = readable_file($file, $label);
    # -w alone says yes to root; a file without write bits was made
    # read-only on purpose, and rename() would replace it all the same.
    _fail($label, 'file is not writable') unless -w $path && ((stat _)[2] & 0222);
    my $dir = dirname($path);
    _fail($label, "directory $dir is not writable (the new object is renamed into place)")
        unless -w $dir && -x $dir;
    return $path;
}

sub _parse_plan {
    my ($text) = @_;
    my %plan = (globalize => [], add_symbol => [], remove_section => []);
    for my $line (split /\n/, $text) {
        my ($key, @f) = split /\t/, $line, -1;
        next unless defined $key;
        if    ($key eq 'globalize')  { push @{ $plan{globalize} }, $f[0] }
        elsif ($key eq 'remove-section') { push @{ $plan{remove_section} }, $f[0] }
        elsif ($key eq 'add-symbol') { push @{ $plan{add_symbol} }, [@f] }
        elsif ($key eq 'anchor')     { }    # informational: section, anchor, count
        else                         { $plan{$key} = $f[0] }
    }
    return \%plan;
}

# record_object(FILE, OPTIONS) -> { status, sites, arch, plan, assembly? }
#   status: recorded | no-sites | already-recorded | lto | dry-run
# A failure dies with "FILE: message\n", or with a RecordMcount::Error
# (same text when printed) whose {usage} is true for bad arguments.
# Options: helper, objdump, objcopy, cc (or as), ld (command lists), arch,
# bits, endian, entry (call|reloc), sections, listing (relocs|disasm),
# writable_table (an "aw" table: no text relocations in a PIE or shared
# library), dry_run, label (name in messages).
sub record_object {
    my ($file, $o) = @_;
    my @made;
    my $r = eval { _record($file, $o, \@made) };
    my $err = $@;
    # every path ends here: remove what is left of the temporary files
    unlink grep { -e } @made;
    forget_temp(@made);
    die $err unless $r;
    return $r;
}

sub _record {
    my ($file, $o, $made) = @_;
    my $label = $o->{label} // $file;
    my $path = _check_input($file, $label);
    my $orig = inherit_open($path) or _fail($label, "cannot open: $!");
    my $snap = '/dev/fd/' . fileno($orig);
    my @st = stat $orig;

    _check_tool($label, $o->{objdump}, 'objdump');
    my $dir = dirname($path);
    my $stem = "$dir/.tmp_mc_" . basename($path) . ".$$." . $seq++;
    my %tmp = map { $_ => "$stem.$_" } qw(s o g r l);
    register_temp(values %tmp);
    push @$made, values %tmp;

    my @objdump = (@{ $o->{objdump} }, ($o->{listing} // 'relocs') eq 'disasm' ? ('-h', '-t', '-dr') : ('-h', '-t', '-r'), $snap);
    my @scan = ($o->{helper}, '--plan', '--object', $snap, '--file-name', $label,
        '--name', $o->{prog} // 'recordmcount', '-o', $tmp{s});
    push @scan, '--arch', $o->{arch}     if defined $o->{arch};
    push @scan, '--bits', $o->{bits}     if defined $o->{bits};
    push @scan, '--endian', $o->{endian} if defined $o->{endian};
    push @scan, '--entry', $o->{entry}   if defined $o->{entry};
    push @scan, '--sections', $o->{sections} if defined $o->{sections};
    push @scan, '--writable' if $o->{writable_table};

    my ($pst, $perr, $sst, $serr, $sout) =
        run_piped(producer => \@objdump, consumer => \@scan);
    $perr =~ s/\Q$snap\E/$label/g;
    # The scanner's complaint about the ELF header is the most precise;
    # with no listing to read (exit 3), objdump's own words are.
    if ($sst != 0 && ($sst >> 8) != 3) {
        $serr =~ s/\s+\z//;
        if (($sst >> 8) == 2 && $serr =~ /\S/) {
            # bad arguments (an unknown ARCH, a bad section list): usage
            my ($first) = split /\n/, $serr;
            $first =~ s/^[^:]+: //;
            $first =~ s/ \(see --list-arches\)//;
            die RecordMcount::Error->new("$first\n", usage => 1);
        }
        if (($sst >> 8) == 1 && $serr =~ /\S/) {
            my @lines = split /\n/, $serr;
            my $first = shift @lines;
            $first =~ s/^[^:]+: (?:\Q$label\E: )?//;
            die "$label: $first\n" . join('', map {"$_\n"} @lines);
        }
        die "$label: mcount-scan failed (" . status_text($sst) . ")\n" . _tool_text($serr);
    }
    if ($pst != 0 || $sst != 0) {
        my @lines = grep { /\S/ } split /\n/, $perr;
        my $first = shift(@lines) // 'no output';
        $first =~ s/^.*?\Q$label\E: //;
        die "$label: objdump: $first (" . tool_name(\@objdump) . ' ' . status_text($pst) . ")\n"
            . _tool_text(join "\n", @lines);
    }
    print STDERR $serr if length $serr;
    my $plan = _parse_plan($sout);
    my %result = (status => $plan->{status} // 'no-sites', sites => $plan->{sites} // 0,
        arch => $plan->{arch}, plan => $plan);
    return \%result if $result{status} ne 'recorded';

    if ($o->{dry_run}) {
        open(my $fh, '<', $tmp{s}) or _fail($label, "cannot read $tmp{s}: $!");
        local $/;
        $result{assembly} = <$fh>;
        $result{status} = 'dry-run';
        return \%result;
    }

    # Assemble the table.  Through the compiler driver (its flags choose the
    # target, e.g. -m32), forced to assembler input and no debug info, or
    # through the assembler itself.
    my @asm;
    if ($o->{as}) {
        _check_tool($label, $o->{as}, 'assembler');
        @asm = (@{ $o->{as} });
        push @asm, $plan->{'as-flag'} if $plan->{'as-flag'} && !_has_flag($o->{as}, qr/^--(32|64|x32)$/);
        push @asm, '-o', $tmp{o}, $tmp{s};
    } else {
        _check_tool($label, $o->{cc}, 'compiler (CC)');
        if (my $as = _driver_as($o->{cc}, $plan)) {
            @asm = (@$as, '-o', $tmp{o}, $tmp{s});
        } else {
            @asm = (@{ $o->{cc} });
            push @asm, $plan->{'cc-flag'} if $plan->{'cc-flag'} && !_has_flag($o->{cc}, qr/^-m(32|64|x32)$/);
            # clang's own assembler gives an empty .text 4-byte alignment,
            # and ld -r would pad the object's .text to it: use GNU as (which
            # takes no debug flags from clang); CC's compile flags unused
            # for assembling are not worth a warning
            if (((_driver_kind($o->{cc}))[0] // '') eq 'clang') {
                push @asm, '-fno-integrated-as', '-Qunused-arguments';
            } else {
                push @asm, '-g0';
            }
            push @asm, '-c', '-o', $tmp{o}, '-x', 'assembler', $tmp{s};
        }
    }
    # Anchors that are local, or that have to be made, must be global while
    # ld -r binds the table to them.  That objcopy runs while the table is
    # assembled (the two are independent); the assembler's result is
    # reported first, as if they had run one after the other.
    my @names = (@{ $plan->{globalize} }, map { $_->[0] } @{ $plan->{add_symbol} });
    my ($input, @objcopy) = ($snap);
    if (@names) {
        _check_tool($label, $o->{objcopy}, 'objcopy');
        @objcopy = (@{ $o->{objcopy} });
        push @objcopy, "--globalize-symbol=$_" for @{ $plan->{globalize} };
        push @objcopy, '--add-symbol', "$_->[0]=$_->[1]:$_->[2],global" for @{ $plan->{add_symbol} };
        push @objcopy, $snap, $tmp{g};
        $input = $tmp{g};
    }
    my $as_job = start_tool(cmd => \@asm);
    my @globalized = @objcopy ? run_tool(cmd => \@objcopy) : ();
    _step_done($label, 'assembling the table', \@asm, finish_tool($as_job));
    _step_done($label, 'globalizing anchors', \@objcopy, @globalized) if @objcopy;

    _check_tool($label, $o->{ld}, 'linker (LD)');
    my @ld = (@{ $o->{ld} });
    push @ld, '-m', $plan->{'ld-emulation'}
        if $plan->{'ld-emulation'} && !_has_flag($o->{ld}, qr/^-m/);
    push @ld, '-r', '-o', $tmp{r}, $input, $tmp{o};
    _run_step($label, 'relinking (ld -r)', \@ld);

    # ld -r names the file symbol it invents after its input's base name;
    # the table's object gets one too where the assembler writes mapping
    # symbols ($d on arm, aarch64, riscv).
    my @file_syms;
    push @file_syms, basename($input) if $plan->{'strip-ld-file-symbol'};
    push @file_syms, basename($tmp{o}) if $plan->{'strip-table-file-symbol'};
    my $final = $tmp{r};
    my @empty = @{ $plan->{remove_section} };    # sections only the table's object had
    if (@names || @file_syms || @empty) {
        _check_tool($label, $o->{objcopy}, 'objcopy');
        my @cmd = (@{ $o->{objcopy} });
        push @cmd, "--localize-symbol=$_" for @names;
        push @cmd, "--strip-symbol=$_" for @file_syms;
        push @cmd, "--remove-section=$_" for @empty;
        _run_step($label, @names ? 'localizing anchors' : 'removing what ld -r added',
            [@cmd, $tmp{r}, $tmp{l}]);
        $final = $tmp{l};
    }

    chmod $st[2] & 07777, $final;
    rename $final, $path or _fail($label, "cannot replace the object: $!");
    return \%result;
}

package RecordMcount::Error;
# An error that prints as its message and says whether it was bad usage.
# overload is loaded with the first such error (most runs have none).
my $overloaded;
sub new {
    my ($class, $msg, %a) = @_;
    $overloaded //= do {
        require overload;
        overload->import('""' => sub { $_[0]{msg} }, fallback => 1);
        1;
    };
    return bless { msg => $msg, %a }, $class;
}

1;
