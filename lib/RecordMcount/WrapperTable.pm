# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::WrapperTable;
# mcount-cc's MCOUNT_CC_MODE=compiler: the flags that make the compiler
# write NOPs and its own table, found by probes and kept.  A module of
# its own, loaded only in that mode.  W: the wrapper's command, as
# RecordMcount::WrapperRecord describes it.
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Run qw(temp_path forget_temp run_tool dirname);
use RecordMcount::Names qw(shell_quote);
use RecordMcount::Message qw(fatal caught);
use RecordMcount::Front qw(helper_path);
use RecordMcount::Argv qw(probe_args);

our @EXPORT_OK = qw(table_flags);

# The compiler's own table (MCOUNT_CC_MODE=compiler): the flags that make
# the compiler (W's compiler, at its path) write NOPs and their table for
# the target W's args select, and that target's name: GIVEN (MCOUNT_CC_FLAGS), else the
# cc-table-flags of the target's row (mcount-scan --identify of a probe
# compiled with ARGS' target and code options, Argv's probe_args).  A
# probe compiled with the flags must hold the table they make; where the
# target has no flags chosen or the compiler refuses them or makes no
# table, the command is refused (exit status 100), saying why.  What the
# probes found is kept (_probe_cache) and taken the next time.
sub table_flags {
    my ($w, $given) = @_;
    my ($compiler, $path, $args) = @$w{qw(compiler path args)};
    my @base = @{ probe_args($args) };
    my $cache = _probe_cache($path, \@base, $given);
    if (defined $cache && open(my $in, '<', $cache)) {
        my $line = <$in> // '';
        close $in;
        if ($line =~ /\A(\w+)\t(\S.*)\n\z/) {
            $w->{say}->("the compiler's table for $1: $2, as a probe found it ($cache)");
            return ([split ' ', $2], $1);
        }
    }
    $w->{load}->('Tools');
    my $dir = length($ENV{TMPDIR} // '') && -d $ENV{TMPDIR} ? $ENV{TMPDIR} : '/tmp';
    my $src = temp_path("$dir/mcount-cc-probe", 'c');
    my @made = ($src);
    my $ok = open(my $fh, '>', $src);
    $ok &&= print $fh "void mcount_cc_probe(void);\nvoid mcount_cc_probe(void) { }\n";
    $ok &&= close $fh;
    fatal($w->{exit_record}, "$compiler: MCOUNT_CC_MODE=compiler: cannot write the probe's source: $!") unless $ok;
    my $refuse = sub {
        unlink @made;
        fatal($w->{exit_record}, "$compiler: MCOUNT_CC_MODE=compiler: $_[0]");
    };
    # a probe compiled with FLAGS: its object, or the compiler's complaint
    my $probe = sub {
        my (@flags) = @_;
        my $obj = temp_path("$dir/mcount-cc-probe", 'o');
        push @made, $obj;
        my @cmd = ($path, @base, @flags, '-c', '-x', 'c', $src, '-o', $obj);
        $w->{say}->('probe: ' . join(' ', map { shell_quote($_) } @cmd));
        my ($st, $err) = run_tool(cmd => \@cmd);
        return ($obj, undef) if $st == 0;
        my @lines = grep { /\berror\b/i } split /\n/, $err // '';
        @lines = grep { length } split /\n/, $err // '' unless @lines;
        return (undef, @lines ? join('; ', @lines[0 .. ($#lines < 2 ? $#lines : 2)])
            : 'it failed (' . RecordMcount::Message::status_text($st) . ')');
    };
    my $identify = sub {
        my ($obj) = @_;
        my $id = eval { RecordMcount::Tools::identify_object(helper_path(), $obj) };
        $refuse->('cannot tell the target of its code: ' . (caught($@) =~ s/^\Q$obj\E: //r)) unless $id;
        return $id;
    };
    my ($arch, @flags);
    if (@$given) {
        @flags = @$given;
    } else {
        my ($obj, $err) = $probe->();
        $refuse->("cannot compile a probe with this command's options: $err") unless $obj;
        my $id = $identify->($obj);
        $arch = $id->{arch};
        @flags = split ' ', $id->{'cc-table-flags'} // '';
        $refuse->("no flags of a compiler-made table are chosen for $arch: name them in MCOUNT_CC_FLAGS "
            . '(-fpatchable-function-entry=N[,M], or -mrecord-mcount with its hook flags)') unless @flags;
    }
    my ($obj, $err) = $probe->(@flags);
    $refuse->('the compiler refuses ' . join(' ', @flags) . (defined $arch ? " for $arch" : '') . ": $err")
        unless $obj;
    $arch //= $identify->($obj)->{arch};
    for my $table ((grep { /^-fpatchable-function-entry=/ } @flags) ? ('__patchable_function_entries') : (),
                   (grep { $_ eq '-mrecord-mcount' } @flags) ? ('__mcount_loc') : ()) {
        $refuse->('the compiler takes ' . join(' ', @flags) . " but writes no $table table for $arch")
            unless RecordMcount::Elf::elf_has_section($obj, $table);
    }
    unlink @made;
    forget_temp(@made);
    _keep_probe($cache, "$arch\t@flags\n") if defined $cache;
    return (\@flags, $arch);
}

# Where what the probes found for a command is kept: a file of the
# directory MCOUNT_CC_CACHE names (off: none; default
# $XDG_CACHE_HOME/recordmcount, else ~/.cache/recordmcount), named after
# the compiler (its real path, inode, size and date), the probe's words,
# the given flags and the helper (whose rows chose the flags).  Undef
# where there is none.
sub _probe_cache {
    my ($path, $base, $given) = @_;
    my $dir = $ENV{MCOUNT_CC_CACHE} // '';
    return undef if $dir eq 'off';
    if (!length $dir) {
        my $home = length($ENV{XDG_CACHE_HOME} // '') ? $ENV{XDG_CACHE_HOME}
            : length($ENV{HOME} // '') ? "$ENV{HOME}/.cache" : return undef;
        $dir = "$home/recordmcount";
    }
    require Cwd;
    require Digest::SHA;
    my $real = Cwd::realpath($path) // return undef;
    my @c = stat $real or return undef;
    my @h = stat helper_path() or return undef;
    return "$dir/cc-" . Digest::SHA::sha1_hex(join "\0", 'compiler-table 1', $real, @c[1, 7, 9], @h[1, 7, 9],
        scalar @$base, @$base, @$given);
}

# Keep TEXT in FILE (renamed into place: parallel compiles read it whole
# or not at all); where it cannot be written, it is not kept.
sub _keep_probe {
    my ($file, $text) = @_;
    require File::Path;
    my $dir = dirname($file);
    eval { File::Path::make_path($dir); 1 } or return;
    my $tmp = temp_path($file, 'new');
    my $ok = open(my $out, '>', $tmp);
    $ok &&= print $out $text;
    $ok &&= close $out;
    $ok &&= rename $tmp, $file;
    unlink $tmp unless $ok;
    forget_temp($tmp);
    return;
}

1;
