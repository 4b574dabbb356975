# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Tools;
# Which binutils record, list or verify an object.  One place for the
# lookup order, used by mcount-record and mcount-cc (recordmcount.pl is
# always told its tools).  For each tool, the first of:
#   1. an explicit option, then its environment variable (OBJDUMP, OBJCOPY,
#      LD, AS, READELF; CC, if given, assembles instead of AS);
#   2. a cross prefix: --cross PREFIX, else CROSS_COMPILE;
#   3. the GNU triple of the object's machine, when <triple>-TOOL is on PATH;
#   4. for objdump: the host objdump when it is multi-target and reads the
#      object's format (Debian's binutils-multiarch), checked with -f;
#   5. the host tool.
# The architecture facts themselves (triple, ld emulation, hook names) come
# from mcount-scan --identify; nothing here knows an architecture.
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Run qw(find_program run_tool shell_quote);
use RecordMcount::Plan qw(parse_plan);
use RecordMcount::Front qw(helper_path);
use RecordMcount::Elf qw(elf_machine);
use RecordMcount::Message qw(throw helper_message);

our @EXPORT_OK = qw(find_tools identify_object tool_problem object_tools compiler_triple
    object_link_flags tool_env);

my @TOOLS = qw(objdump objcopy ld as readelf);
my %ENVVAR = (objdump => 'OBJDUMP', objcopy => 'OBJCOPY', ld => 'LD', as => 'AS',
    readelf => 'READELF', cc => 'CC');

# The architecture facts mcount-scan reads from an object's ELF header
# (a plan, see RecordMcount::Plan: arch, bits, endian, triple,
# ld-emulation, hooks, call-forms, ...); throws "FILE: the helper's
# message".
sub identify_object {
    my ($helper, $file) = @_;
    my ($st, $err, $out) = run_tool(cmd => [$helper, '--identify', '--object', $file],
        capture_stdout => 1);
    if ($st != 0) {
        my ($first, $rest) = helper_message($err, $file);
        throw(length $first ? "$file: $first\n$rest" : "$file: cannot identify the object");
    }
    return parse_plan($out);
}

sub _env_cmd {
    my ($tool) = @_;
    my $v = $ENV{ $ENVVAR{$tool} };
    return undef unless defined $v && $v =~ /\S/;
    require Text::ParseWords;    # only when the variable is set
    return [Text::ParseWords::shellwords($v)];
}

# Does this objdump read FILE as its real format (not as generic ELF)?
my %reads;
sub _objdump_reads {
    my ($objdump, $file) = @_;
    return $reads{"$objdump\0$file"} //= do {
        my ($st, undef, $out) = run_tool(cmd => [$objdump, '-f', $file], capture_stdout => 1);
        ($st == 0 && $out =~ /file format (\S+)/ && $1 !~ /^elf(32|64)-(little|big)\z/) ? 1 : 0;
    };
}

# find_tools(explicit => {tool => [cmd...]}, cross => PREFIX, triple => TRIPLE,
#            file => OBJECT)
# -> { objdump, objcopy, ld, as, readelf => [cmd...], cc => [cmd...] (only
#      when given by option or $CC), why => { tool => how it was chosen } }
# file is used only to check a host objdump in step 4.
sub find_tools {
    my (%a) = @_;
    my (%found, %why);
    my $cross = $a{cross} // $ENV{CROSS_COMPILE};
    $cross = undef if defined $cross && !length $cross;
    for my $tool (@TOOLS) {
        my $cmd;
        if ($cmd = $a{explicit}{$tool}) {
            ($found{$tool}, $why{$tool}) = ([@$cmd], 'option');
        } elsif ($cmd = _env_cmd($tool)) {
            ($found{$tool}, $why{$tool}) = ($cmd, "\$$ENVVAR{$tool}");
        } elsif (defined $cross) {
            ($found{$tool}, $why{$tool}) = (["$cross$tool"], 'cross prefix');
        } elsif ($a{triple} && find_program("$a{triple}-$tool")) {
            ($found{$tool}, $why{$tool}) = (["$a{triple}-$tool"], 'object triple');
        } elsif ($tool eq 'objdump' && defined $a{file} && find_program('objdump')
                 && _objdump_reads('objdump', $a{file})) {
            ($found{$tool}, $why{$tool}) = (['objdump'], 'multi-target');
        } else {
            ($found{$tool}, $why{$tool}) = ([$tool], 'host');
        }
    }
    # A compiler driver assembles the table instead of as, when it is given
    # explicitly and as is not.
    if (!$a{explicit}{as} && !_env_cmd('as')) {
        if (my $cc = $a{explicit}{cc} // _env_cmd('cc')) {
            ($found{cc}, $why{cc}) = ([@$cc], $a{explicit}{cc} ? 'option' : '$CC');
        }
    }
    $found{why} = \%why;
    return \%found;
}

# Why these tools cannot work on an object with these facts (undef if they
# can, as far as can be told without running them): the linker must know
# the object's emulation and objdump must read its format.
my %emulations;
sub tool_problem {
    my ($tools, $id, $file, @need) = @_;
    my $hint = "install binutils for $id->{triple}, or give --cross PREFIX";
    for my $tool (@need) {
        my $cmd = $tools->{$tool};
        next if $tool eq 'as' && $tools->{cc};
        return "$cmd->[0]: not found (needed as $tool; $hint)" unless find_program($cmd->[0]);
    }
    if (grep { $_ eq 'objdump' } @need) {
        my $o = $tools->{objdump}[0];
        return "$o cannot read this $id->{arch} object ($hint)"
            if $tools->{why}{objdump} eq 'host' && defined $file && !_objdump_reads($o, $file);
    }
    if ((grep { $_ eq 'ld' } @need) && $id->{'ld-emulation'} && $tools->{why}{ld} eq 'host') {
        my $ld = $tools->{ld}[0];
        my $list = $emulations{$ld} //= do {
            my ($st, undef, $out) = run_tool(cmd => [$ld, '-V'], capture_stdout => 1);
            $st == 0 ? $out : '';
        };
        return "$ld cannot link $id->{arch} objects (no emulation $id->{'ld-emulation'}; $hint)"
            if length $list && $list !~ /^\s+\Q$id->{'ld-emulation'}\E\s*$/m;
    }
    return undef;
}

# What a mode of mcount-record needs of one FILE: its facts (mcount-scan
# --identify) and its tools, those of NEED checked with tool_problem;
# dies with "FILE: message".  HOW: helper, explicit (tool => [cmd...],
# the options), cross.
sub object_tools {
    my ($file, $how, @need) = @_;
    require RecordMcount::Pipeline;
    RecordMcount::Pipeline::readable_file($file);    # a FIFO would block the helper
    my $id = identify_object($how->{helper}, $file);
    my $tools = find_tools(explicit => $how->{explicit}, cross => $how->{cross},
        triple => $id->{triple}, file => $file);
    if (my $why = tool_problem($tools, $id, $file, @need)) {
        throw("$file: $why");
    }
    return ($id, $tools);
}

# The GNU triple a compiler (COMPILER as named, PATH where it is, ARGS
# its arguments) targets: from --target/-target, its name, or its own
# -dumpmachine when that names another machine than this one (a native
# compiler records with the plain binutils).  An OBJECT for the machine
# this perl runs on needs no -dumpmachine (a process per compile): its
# compiler is native.
sub compiler_triple {
    my ($compiler, $path, $args, $object) = @_;
    for my $i (0 .. $#$args) {
        return $1 if $args->[$i] =~ /^--?target=(.+)/;
        return $args->[$i + 1] if $args->[$i] eq '-target' && $i < $#$args;
    }
    require RecordMcount::Argv;
    my $t = RecordMcount::Argv::triple_from_compiler($compiler);
    return $t if defined $t;
    my $native = elf_machine($object);
    return undef if defined $native && $native eq (elf_machine('/proc/self/exe') // '');
    my ($st, undef, $out) = run_tool(cmd => [$path, '-dumpmachine'], capture_stdout => 1);
    return undef if $st != 0 || !defined $out;
    $out =~ s/\s+\z//;
    return undef unless $out =~ /^([A-Za-z0-9_.+]+)-[A-Za-z0-9_.+-]+\z/;
    require POSIX;
    return undef if $1 eq (POSIX::uname())[4];
    return $out;
}

# The flags the row of the first object of a link (ARGS; OBJ if the
# caller has found it) says objects with per-object tables need at the
# link (mcount-scan --identify: object-link-flags; riscv: no relaxation,
# which would move the code their entries point into), but those ARGS
# has; () when there are none or no object tells.
sub object_link_flags {
    my ($args, $obj) = @_;
    ($obj) = grep { !/^-/ && /\.o\z/ && defined elf_machine($_) } @$args unless defined $obj;
    return () unless defined $obj;
    my $id = eval { identify_object(helper_path(), $obj) } or return ();
    my %have = map { $_ => 1 } @$args;
    return grep { !$have{$_} } split ' ', $id->{'object-link-flags'} // '';
}

# The environment variables that give these TOOLS (of find_tools) to
# mcount-record, as shell words (VAR=value, quoted as needed): one for
# each of objdump, objcopy, ld and as that is not the plain tool.
sub tool_env {
    my ($tools) = @_;
    my @env;
    for my $t (qw(as ld objcopy objdump)) {
        my $cmd = join ' ', @{ $tools->{$t} };
        push @env, "$ENVVAR{$t}=" . shell_quote($cmd) if $cmd ne $t;
    }
    return @env;
}

1;
