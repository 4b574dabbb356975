# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Argv;
# The compiler command-line classifier of mcount-cc.  Pure: it looks at the
# words only (and reads @response files), runs nothing, changes nothing.
#
#   split_command(WORDS)  -> { launchers => [...], compiler => NAME, args => [...] }
#   decision_text(DECISION) -> what mcount-cc --classify prints of it
#   classify(ARGS, OPTS)  -> { action => 'record' | 'compile' | 'link' | 'split'
#                                        | 'refuse' | 'pass', reason => NAME,
#                              objects => [...], add_flags => [...],
#                              insert_at => N, warning => TEXT?, error => TEXT? }
#
# 'record' means: a compile to object of C-family input; add add_flags at
# index insert_at of ARGS, run the compiler, then record every path in
# objects.  In link-time mode a compile is 'compile' (add the flags, record
# nothing: the link records; so is an autoconf test's in either mode) and
# a link of a program or shared library is 'link' (run through the
# link-time pass: command, the words with the @response files read).
# A link that compiles C-family sources itself is 'split' (each source
# compiled first, then the link of the objects), or 'refuse' where it
# cannot be split (error: why): its program would have no table.
# Anything else is 'pass': the compiler runs with ARGS untouched.
# Pass-through is the default for everything not understood.
#
# The mode (field mode, and mode_why) is object or link: as OPTS' mode
# says, or for mode auto, link when the build is one the per-object tables
# cannot be exact for: a C++ driver (inline and template functions in
# COMDAT groups), -flto (no machine code in the objects),
# -ffunction-sections or --gc-sections (sections the linker may drop with
# their calls), at compile and at link alike.  Mode compiler (only when
# OPTS' mode says so) records nothing: the hook flags make the compiler
# write NOPs and its own table, so a compile is 'compile', and a link
# that compiles its sources too gets them as it is ('compile', reason
# table-link), unless they have -pg (a link with it would write
# gmon.out), which is split as the other modes do.
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Names qw(basename);

our @EXPORT_OK = qw(split_command classify expand_response_files
    triple_from_compiler reason_text decision_text probe_args);

# Every decision has a name; mcount-cc --classify prints it, the tests
# check it, MCOUNT_CC_VERBOSE=1 shows its text.
our %REASONS = (
    'compile'         => 'compile to object',
    'link'            => 'called for link',
    'no-input'        => 'no input file',
    'query'           => 'compiler query (--version, -dumpmachine, -print-*, ...)',
    'dry-run'         => 'dry run (-###)',
    'preprocess'      => 'preprocessing only (-E, -M, -MM)',
    'assembly-output' => 'assembly output (-S)',
    'syntax-only'     => 'syntax check only (-fsyntax-only)',
    'stdout'          => 'output to stdout (-o -)',
    'dev-null'        => 'output to /dev/null',
    'stdin'           => 'input from stdin',
    'not-c'           => 'no C-family input (assembler, object or other)',
    'header'          => 'header input (precompiled header)',
    'lto'             => 'LTO compile: the object holds no machine code to record',
    'multiple-o'      => '-o with several inputs (the compiler refuses it)',
    'missing-arg'     => 'an option lacks its argument',
    'response-file'   => 'unreadable @response file',
    'nested'          => 'already inside mcount-cc',
    'partial-link'    => 'partial link (-r): the final link records',
    'compile-link'    => 'compiles its sources and links: each source compiled to object first',
    'unsplittable'    => 'compiles its sources and links, and cannot be split: refused',
    'autoconf-test'   => 'an autoconf test (conftest): compiled with the hook flags, no table; not split',
    'table-link'      => 'compiles its sources and links: the compiler writes their table itself, not split',
);

sub reason_text { return $REASONS{ $_[0] } // $_[0] }

# Launchers that take the compiler command as their arguments (mcount-cc
# itself too: the hook flags then go after the compiler, not after it).
my %LAUNCHER = map { $_ => 1 } qw(ccache distcc icecc sccache mcount-cc);

sub split_command {
    my ($words) = @_;
    my @w = @$words;
    my @launchers;
    while (@w > 1 && $LAUNCHER{ basename($w[0]) }) {
        push @launchers, shift @w;
    }
    my $compiler = shift @w;
    return { launchers => \@launchers, compiler => $compiler, args => \@w };
}

# The GNU triple a compiler's name carries: aarch64-linux-gnu-gcc-12 ->
# aarch64-linux-gnu; undef for gcc, cc, clang-14.
sub triple_from_compiler {
    my ($name) = @_;
    return undef unless defined $name;
    my $base = basename($name);
    return $1 if $base =~ /^([^-]+-[^-]+(?:-[^-]+)*?)-(?:gcc|cc|g\+\+|c\+\+|clang|clang\+\+|cpp)(?:-[0-9][0-9.]*)?\z/;
    return undef;
}

# Options whose argument is the next word (when not joined to them).
my %SEPARATE = map { $_ => 1 } qw(
    -o -x -MF -MT -MQ -MJ -I -D -U -L -l -A -B -T -u -e -z
    -include -imacros -idirafter -iprefix -iwithprefix -iwithprefixbefore
    -isystem -isysroot -imultilib -iquote -iframework -ivfsoverlay
    -include-pch -resource-dir -Xlinker -Xassembler -Xpreprocessor
    -Xclang -mllvm -target -gcc-toolchain --sysroot --param -aux-info
    -dumpbase -dumpdir -dumpbase-ext -arch -F --include --include-directory --output
    --define-macro --undefine-macro --include-directory-after --include-prefix
    --include-with-prefix --include-with-prefix-before --include-with-prefix-after
    --language --assert -iwithsysroot -isystem-after -cxx-isystem -Xanalyzer
    -Xopenmp-target -Xcuda-ptxas -Xcuda-fatbinary -Xarch_device -Xarch_host
);
# Of those, the ones that may also be written joined: -ofile, -xc, -MFdep.
my @JOINED = qw(-o -x -MF -MT -MQ -MJ -I -D -U -L -l -A -B -T -u -z);

# What only a link reads: left out of the compiles of a split one-step
# command (clang warns of each, and -Werror makes that an error).
my %LINK_ONLY = map { $_ => 1 } qw(-shared -pie -no-pie -static-pie -rdynamic -s -static
    -nostdlib -nostartfiles -nodefaultlibs -nolibc -nostdlib++ -symbolic -shared-libgcc
    -static-libgcc -static-libstdc++ -L -l -T -u -e -z -Xlinker);
# (This pattern, $SPLIT_BLOCKER and $PROBE_DROP are text, compiled
# with /x where they are first read: a compile to object reads none of
# them, and compiling them was 7% of this module's load.)
my $LINK_ONLY_PREFIX = '^(?:-Wl,|-fuse-ld=|--ld-path=|--?rtlib=|--?unwindlib=|-static-lib|-shared-lib|-L.|-l.|-T.|-u.|-z.)';
# What keeps mcount-cc from splitting a one-step command into compiles
# and a link: options that name or write files after the output's or the
# object's name (dependencies, dumps, coverage and profiles, split DWARF),
# -x (the objects would take the language), LTO (no code to record).
my $SPLIT_BLOCKER = '^(?:-x.*|--language.*|-M[DFTQPGJ]?.*|-Wp,-M.*|-save-temps.*|-flto(?:=.*)?|--coverage
    |-fprofile-.*|-ftest-coverage|-fauto-profile.*|-fcs-profile-generate.*|-fcoverage-mapping|-gsplit-dwarf.*
    |-fstack-usage|-fdump-.*|-fcallgraph-info.*|-fopt-info.*|-aux-info|-dumpbase.*|-dumpdir
    |-fsave-optimization-record.*|-ftime-trace.*)\z';

# One of those patterns, compiled the first time it is read.
my %compiled;
sub _pattern { return $compiled{ $_[0] } //= qr/$_[0]/x }

# C-family languages (-x) and source suffixes; headers give a PCH.
my %C_LANG = map { $_ => 1 } qw(c c++ objective-c objective-c++ cpp-output
    c++-cpp-output objc-cpp-output objective-c-cpp-output
    objc++-cpp-output objective-c++-cpp-output);
my %C_SUFFIX = map { $_ => 1 } qw(c i cc cp cxx cpp CPP c++ C ii m mi mm M mii);
my %HEADER_SUFFIX = map { $_ => 1 } qw(h hh H hp hxx hpp HPP h++ tcc);
my %ASM_SUFFIX = map { $_ => 1 } qw(s S sx asm);

# GCC's response-file syntax: words split at white space; '...' and "..."
# group; a backslash escapes the next character.
sub _parse_response {
    my ($text) = @_;
    my @words;
    my ($cur, $have) = ('', 0);
    my $quote;
    my @c = split //, $text;
    for (my $i = 0; $i < @c; $i++) {
        my $ch = $c[$i];
        if ($ch eq '\\' && $i + 1 < @c) {
            $cur .= $c[++$i];
            $have = 1;
        } elsif (defined $quote) {
            if ($ch eq $quote) { undef $quote } else { $cur .= $ch }
        } elsif ($ch eq '"' || $ch eq "'") {
            $quote = $ch;
            $have = 1;
        } elsif ($ch =~ /\s/) {
            push @words, $cur if $have;
            ($cur, $have) = ('', 0);
        } else {
            $cur .= $ch;
            $have = 1;
        }
    }
    push @words, $cur if $have;
    return @words;
}

# Replace every @file word by the words it holds (nested files too, as GCC
# does).  Returns (words, undef) or (undef, the unreadable file's name).
sub expand_response_files {
    my ($args, $depth) = @_;
    $depth //= 0;
    my @out;
    for my $a (@$args) {
        if ($a =~ /^@(.+)/s) {
            my $file = $1;
            return (undef, $file) if $depth > 10;
            open(my $fh, '<', $file) or return (undef, $file);
            local $/;
            my $text = <$fh> // '';
            close $fh;
            my ($inner, $bad) = expand_response_files([_parse_response($text)], $depth + 1);
            return (undef, $bad) unless $inner;
            push @out, @$inner;
        } else {
            push @out, $a;
        }
    }
    return (\@out, undef);
}

# The words of a one-step command that its compiles keep: every option
# but -o and what only a link reads, no input.  A word that is no option
# and names no file (by its suffix or on disk) is kept: the value of an
# option this table does not know (--some-option VALUE).
my %LINK_INPUT_SUFFIX = map { $_ => 1 } qw(o a so lo obj ld lds);
sub _compile_args {
    my ($w) = @_;
    my @keep;
    for (my $i = 0; $i < @$w; $i++) {
        my $a = $w->[$i];
        if ($a eq '-' || $a eq '' || $a !~ /^-/) {
            my $suf = _suffix($a);
            next if $a eq '-' || -e $a || $C_SUFFIX{$suf} || $ASM_SUFFIX{$suf} || $HEADER_SUFFIX{$suf}
                || $LINK_INPUT_SUFFIX{$suf} || $a =~ /\.so(?:\.\d+)+\z/;
            push @keep, $a;
            next;
        }
        my $sep = $SEPARATE{$a} || $a =~ /^-Xarch_/;
        if ($a eq '-o' || $a eq '--output' || $LINK_ONLY{$a}) {
            $i++ if $sep;
            next;
        }
        next if $a =~ /^(?:-o.|--output=)/ || ($a =~ _pattern($LINK_ONLY_PREFIX) && $a ne '-undef');
        push @keep, $a;
        push @keep, $w->[++$i] if $sep && $i + 1 < @$w;
    }
    return \@keep;
}

sub _pass {
    my ($reason, %extra) = @_;
    return { action => 'pass', reason => $reason, objects => [], add_flags => [],
        insert_at => 0, %extra };
}

sub _suffix {
    my ($file) = @_;
    my $base = basename($file);
    return $base =~ /\.([^.\/]+)\z/ ? $1 : '';
}

# The object GCC writes for input FILE under -c without -o: the base name
# in the current directory, its suffix replaced by .o.
sub _default_object {
    my ($file) = @_;
    my $base = basename($file);
    $base =~ s/\.[^.]*\z//;
    return "$base.o";
}

# Is the compiler a C++ driver (g++, c++, clang++, x86_64-linux-gnu-g++-12)?
sub _cxx_driver {
    my ($name) = @_;
    return defined $name && basename($name) =~ /(?:^|-)(?:g\+\+|c\+\+|clang\+\+)(?:-[0-9][0-9.]*)?\z/;
}

# The mode for a command: object or link, and why.
sub _mode {
    my ($o, $words) = @_;
    my $mode = $o->{mode} // 'object';
    return ($mode, "MCOUNT_CC_MODE=$mode") unless $mode eq 'auto';
    return ('link', 'auto: C++ driver') if _cxx_driver($o->{compiler});
    for my $a (@$words) {
        return ('link', 'auto: -flto') if $a =~ /^-flto(?:=|\z)/;
        return ('link', 'auto: -ffunction-sections') if $a eq '-ffunction-sections';
        return ('link', 'auto: --gc-sections')
            if $a =~ /^-Wl,(?:.*,)?--?gc-sections(?:,|\z)/ || $a =~ /^--?gc-sections\z/;
    }
    return ('object', 'auto');
}

# An autoconf test: every input is conftest.EXT in the current directory
# (or conftest2.EXT), and so is the output if named (conftest,
# conftest.o, conftest2.o, conftest.exe).  configure deletes them as soon
# as it has its answer, a table in them is never read, and recording them
# would double what a configure run costs: a compile gets the hook flags
# (its answer holds for the build's flags) and no table; a test compiled
# and linked in one step runs as it is, as a link does (no -pg at link:
# gcrt1.o's gmon.out), so its answer is that of a compile without them.
my $CONFTEST = qr/\Aconftest[0-9]*(?:\.\w+)?\z/;
sub _autoconf_test {
    my ($inputs, $output) = @_;
    return 0 if !@$inputs || grep { $_->[0] !~ $CONFTEST } @$inputs;
    return !defined $output || $output =~ $CONFTEST;
}

# classify(ARGS, OPTS): ARGS are the words after the compiler.
# OPTS: hook_flags => [...] (default ['-pg']), nested => 1 (inside
# mcount-cc already), mode => object|link|auto (default object),
# compiler => its name (for auto: a C++ driver).
sub classify {
    my ($args, %o) = @_;
    my @hook = @{ $o{hook_flags} // ['-pg'] };
    return _pass('nested') if $o{nested};

    my ($words, $bad) = expand_response_files($args);
    return _pass('response-file', file => $bad) unless $words;
    my ($mode_of, $why) = _mode(\%o, $words);
    my %m = (mode => $mode_of, mode_why => $why);

    my (%mode, @inputs, $output, %seen, $lto, $fat, @options);
    my $lang;    # current -x language, undef for "by suffix"
    my @w = @$words;
    for (my $i = 0; $i < @w; $i++) {
        my $a = $w[$i];
        $seen{$a} = 1;
        if ($a eq '-' ) {
            push @inputs, ['-', $lang, $i];
            next;
        }
        if ($a !~ /^-/ || $a eq '') {
            push @inputs, [$a, $lang, $i];
            next;
        }
        # (what keeps a one-step command from being split: an option,
        # never an option's value; looked for where a command links)
        push @options, $a;
        # Options with an argument: separate or joined.
        my ($opt, $val);
        if ($SEPARATE{$a} || $a =~ /^-Xarch_/) {
            return _pass('missing-arg', option => $a) if $i + 1 >= @w;
            ($opt, $val) = ($a, $w[++$i]);
        } elsif ($a =~ /^--sysroot=/ || $a =~ /^--param=/) {
            next;
        } elsif ($a =~ /^--output=(.*)\z/s) {
            ($opt, $val) = ('-o', $1);
        } else {
            for my $j (@JOINED) {
                # (-MD, -MMD, -MP, -MG match none of these prefixes.)
                if (index($a, $j) == 0 && length($a) > length($j)) {
                    ($opt, $val) = ($j, substr($a, length $j));
                    last;
                }
            }
        }
        if (defined $opt) {
            if    ($opt eq '-o' || $opt eq '--output') { $output = $val }
            elsif ($opt eq '-x') { $lang = $val eq 'none' ? undef : $val }
            elsif ($opt eq '-Xlinker' && $val =~ /^(?:-r|-i|--relocatable)\z/) { $mode{partial} = 1 }
            next;
        }
        if ($a eq '-c')              { $mode{c} = 1 }
        elsif ($a eq '-S')           { $mode{S} = 1 }
        elsif ($a eq '-E')           { $mode{E} = 1 }
        elsif ($a eq '-M' || $a eq '-MM') { $mode{E} = 1 }
        elsif ($a =~ /^-Wp,-MM?(?:,|\z)/) { $mode{E} = 1 }
        elsif ($a eq '-fsyntax-only') { $mode{syntax} = 1 }
        elsif ($a eq '-###')         { $mode{dry} = 1 }
        elsif ($a =~ /^-(?:-?print-|dump(?:machine|version|fullversion|specs)\z|-help\b|-target-help\z|-version\z)/) {
            $mode{query} = 1;
        }
        elsif ($a eq '-r' || $a =~ /^-Wl,(?:.*,)?(?:-r|-i|--relocatable)(?:,|\z)/) { $mode{partial} = 1 }
        elsif ($a =~ /^-flto(?:=|\z)/)          { $lto = 1 }
        elsif ($a eq '-fno-lto')                { $lto = 0 }
        elsif ($a eq '-ffat-lto-objects')       { $fat = 1 }
        elsif ($a eq '-fno-fat-lto-objects')    { $fat = 0 }
    }

    return _pass('query')   if $mode{query};
    return _pass('dry-run') if $mode{dry};
    return _pass('no-input') unless @inputs;
    my $conftest = _autoconf_test(\@inputs, $output);
    return _pass('preprocess') if $mode{E};
    return _pass('assembly-output') if $mode{S};
    return _pass('syntax-only') if $mode{syntax};
    if (!$mode{c}) {
        return _pass('partial-link', %m) if $mode{partial};
        return _pass('stdout', %m) if defined $output && $output eq '-';
        return _pass('dev-null', %m) if defined $output && $output eq '/dev/null';
        return _pass('autoconf-test', %m) if $conftest;
        # No hook flags on a link: -pg there would also link gcrt1.o
        # (gmon.out at exit).  C-family sources the link compiles itself
        # would get none either, and no table: such a command is split,
        # or refused.
        my @src = grep { defined $_->[1] ? $C_LANG{ $_->[1] } : $C_SUFFIX{ _suffix($_->[0]) } } @inputs;
        # the compiler's own table: the sources compiled with the flags
        # where the link may have them too (no -pg: gcrt1.o and gmon.out)
        if (@src && $mode_of eq 'compiler' && !grep { /^-pg?\z/ } @hook) {
            return { action => 'compile', reason => 'table-link', objects => [defined $output ? $output : 'a.out'],
                add_flags => [grep { !$seen{$_} } @hook], insert_at => 0, %m };
        }
        # such a command is split: each source compiled to an object
        # as a compile is, then the link of those, as a link is (not
        # with stdin, a header, or an option $SPLIT_BLOCKER names; LTO
        # only in link-time mode, whose pass links what LTO generates)
        my ($blocker) = grep { $mode_of eq 'object' || !/^-flto(?:=|\z)/ } grep { $_ =~ _pattern($SPLIT_BLOCKER) } @options;
        ($blocker) = map { $_->[0] } grep { $_->[0] eq '-' || (defined $_->[1] && $_->[1] =~ /-header\z/)
            || (!defined $_->[1] && $HEADER_SUFFIX{ _suffix($_->[0]) }) } @inputs
            if !defined $blocker;
        if (@src && !defined $blocker) {
            return { action => 'split', reason => 'compile-link', objects => [defined $output ? $output : 'a.out'],
                add_flags => [], insert_at => 0, command => [@$words], sources => [map { $_->[2] } @src],
                compile_args => _compile_args(\@w), %m };
        }
        # a program whose sources would get no hook and no table: refused,
        # not built without what the build asked for
        if (@src) {
            return { action => 'refuse', reason => 'unsplittable', objects => [defined $output ? $output : 'a.out'],
                add_flags => [], insert_at => 0, %m,
                error => "the sources this link compiles would get no hook and no table (mcount-cc does not "
                    . "split a link with $blocker): compile them with -c, then link"
                    . ($blocker =~ /^-flto/ ? ', or record at the link (MCOUNT_CC_MODE=auto or link)' : '') };
        }
        # (in link-time mode a link of no object or archive, of assembly
        # sources say, has no calls the pass could record: it runs as it is)
        my $objects = grep { !defined $_->[1] && $_->[0] =~ /\.(?:o|a|lo)\z/ } @inputs;
        return _pass('link', %m) if $mode_of ne 'link' || !$objects;
        # the pass links several times, reading its inputs each time
        return _pass('stdin', %m) if grep { $_->[0] eq '-' } @inputs;
        # (command: the words with @response files read, which the pass
        # looks into for -o, -flto and its inputs)
        return { action => 'link', reason => 'link', objects => [defined $output ? $output : 'a.out'],
            add_flags => [], insert_at => 0, command => [@$words], %m };
    }
    return _pass('stdin') if grep { $_->[0] eq '-' } @inputs;
    if (defined $output) {
        return _pass('stdout') if $output eq '-';
        return _pass('dev-null') if $output eq '/dev/null';
    }

    # Sort the inputs: C-family to record, headers, everything else.
    my (@c, $header);
    for my $in (@inputs) {
        my ($file, $l) = @$in;
        if (defined $l) {
            if ($C_LANG{$l})                { push @c, $file }
            elsif ($l =~ /-header\z/)       { $header = 1 }
            next;
        }
        my $suf = _suffix($file);
        if    ($C_SUFFIX{$suf})      { push @c, $file }
        elsif ($HEADER_SUFFIX{$suf}) { $header = 1 }
    }
    # GCC compiles every source input; -o with more than one is refused.
    my @sources = grep {
        my ($file, $l) = @$_;
        defined $l ? ($l !~ /-header\z/) : ($C_SUFFIX{ _suffix($file) } || $ASM_SUFFIX{ _suffix($file) });
    } @inputs;
    return _pass('multiple-o') if defined $output && @sources > 1;
    unless (@c) {
        return _pass('header') if $header;
        return _pass('not-c');
    }
    return _pass('header') if $header;
    my @objects = defined $output ? ($output) : map { _default_object($_) } @c;
    my @add = grep { !$seen{$_} } @hook;
    # GCC's -mnop-mcount writes NOPs, no call: only its own
    # -mrecord-mcount can record them (the last of -mX and -mno-X wins;
    # the hook flags go first)
    my %last;
    for (@add, @w) {
        $last{$2} = !defined $1 if /\A-m(no-)?(nop-mcount|record-mcount)\z/;
    }
    my @nop = $last{'nop-mcount'} && !$last{'record-mcount'}
        ? (warning => '-mnop-mcount leaves no call to record: add -mrecord-mcount, and GCC writes '
            . 'the table itself') : ();
    return { action => 'compile', reason => 'autoconf-test', objects => \@objects,
        add_flags => \@add, insert_at => 0, %m } if $conftest;
    # the compiler's own table: nothing to record (an LTO object's code,
    # and its table, are made at the link, from the functions' attributes)
    return { action => 'compile', reason => 'compile', objects => \@objects,
        add_flags => \@add, insert_at => 0, %m } if $mode_of eq 'compiler';
    # link-time mode: the objects get the hook's calls, the link their
    # table.  GCC's LTO objects get their code too where the command does
    # not choose (-ffat-lto-objects, as Debian builds): the link takes its
    # table's size from their calls and generates LTO's code once; slim
    # objects give no bound, and their link generates it three times.
    # (clang before 17 takes no -ffat-lto-objects.)
    if ($mode_of eq 'link') {
        push @add, '-ffat-lto-objects'
            if $lto && !defined $fat && !(defined $o{compiler} && basename($o{compiler}) =~ /clang/);
        return { action => 'compile', reason => 'compile', objects => \@objects,
            add_flags => \@add, insert_at => 0, %m, @nop };
    }
    if ($lto && !$fat) {
        return _pass('lto', %m, warning => 'LTO compile (-flto without -ffat-lto-objects): '
            . 'the object holds no machine code, nothing is recorded');
    }
    return { action => 'record', reason => 'compile', objects => \@objects,
        add_flags => \@add, insert_at => 0, %m, @nop };
}

# The words of a command that tell a compiler the target and how to make
# its code, for a compile of a probe of the compiler's own table (mcount-cc
# MCOUNT_CC_MODE=compiler): the machine options (-m...), the code
# generation ones (-f..., but those that name or write files and LTO's),
# the optimization level, -pg, the target (-target, --target=, -B,
# --sysroot, -specs=) and the assembler's options (-Wa,).  No input,
# output, warning, preprocessor or linker option.
my $PROBE_DROP = '^-f(?:no-)?(?:lto|fat-lto|profile|auto-profile|cs-profile|coverage|test-coverage|dump|callgraph-info
    |stack-usage|opt-info|save-optimization-record|time-trace|debug-prefix-map|file-prefix-map|macro-prefix-map
    |sanitize-blacklist|sanitize-ignorelist|plugin|diagnostics)';
sub probe_args {
    my ($args) = @_;
    my ($w) = expand_response_files($args);
    return [] unless $w;
    my @keep;
    for (my $i = 0; $i < @$w; $i++) {
        my $a = $w->[$i];
        if ($a eq '-target' || $a eq '-B' || $a eq '--sysroot' || $a eq '-gcc-toolchain') {
            push @keep, $a, $w->[++$i] if $i + 1 < @$w;
            next;
        }
        if ($SEPARATE{$a} || $a =~ /^-Xarch_/) {    # (and its value)
            $i++;
            next;
        }
        push @keep, $a if ($a =~ /^-[mf]./ && $a !~ _pattern($PROBE_DROP)) || $a =~ /^-O/ || $a =~ /^-pg?\z/
            || $a =~ /^(?:--?target=|-B.|--sysroot=|--?specs=|-Wa,|--gcc-toolchain=)/;
    }
    return \@keep;
}

# A decision as mcount-cc --classify prints it: "ACTION REASON OBJECT...",
# then what it adds, its mode, its warning and its error, a line each.
sub decision_text {
    my ($d) = @_;
    return join(' ', $d->{action}, $d->{reason}, @{ $d->{objects} }) . "\n"
        . (@{ $d->{add_flags} } ? "add: @{ $d->{add_flags} }\n" : '')
        . ($d->{mode} ? "mode: $d->{mode} ($d->{mode_why})\n" : '')
        . ($d->{warning} ? "warning: $d->{warning}\n" : '')
        . ($d->{error} ? "error: $d->{error}\n" : '');
}

1;
