# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::LinkCmd;
# A link command as the build gives it, for both methods of the link-time
# pass (RecordMcount::LinkOnce, RecordMcount::LinkMulti): its words read
# (the output, the linker, LTO, response files) and edited (the output
# renamed, a map named after it, -q's strips left out, files added), the
# side files it writes mended, and one link run with its failure said as
# the command's own or the pass's.
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Run qw(run_tool start_tool finish_tool temp_path basename response_file_cmd);
use RecordMcount::Message qw(throw caught tool_failure);

our @EXPORT_OK = qw(expand_response_files link_output is_ld ld_words keeps_relocs without_strip maps_named
    mend_side_files side_files link_cmd gcc_lto_cmd linker_of lto_words lto_link run_link start_link);

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
sub is_ld { return basename($_[0][0]) =~ /^(?:[\w.+]+-)?ld(?:\.\w+)?\z/ }

# Does the command already keep relocations (-q, --emit-relocs)?
sub keeps_relocs {
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
    my $ld = is_ld($cmd);
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

# The words the linker gets of CMD: every word of ld; a driver's
# -Wl,A,B,... and -Xlinker A.
sub ld_words {
    my ($cmd) = @_;
    my @w;
    _edit_ld_words($cmd, sub { push @w, $_[0]; return ($_[0]) });
    return @w;
}

# The command without the symbols it strips (ld -s, -x, -X, their long
# names; a driver's -s), which ld cannot do with -q: for the links that
# keep their relocations (the last link, without -q, strips them).
my %STRIP = map { $_ => 1 } qw(-s --strip-all -x --discard-all -X --discard-locals);
sub without_strip {
    my ($cmd) = @_;
    my @c = ($cmd->[0], grep { is_ld($cmd) || $_ ne '-s' } @$cmd[1 .. $#$cmd]);
    return _edit_ld_words(\@c, sub { $STRIP{ $_[0] } ? () : ($_[0]) });
}

# ld's -Map=DIR/ (DIR/OUTPUT.map) and -Map=...%... (% the output) name
# the map after the output, which the links write under temporary names:
# the command with those maps named after the real output.
sub maps_named {
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
sub side_files {
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
sub mend_side_files {
    my ($cmd, $tmp_o) = @_;
    # a name as the linkers write it: escaped or not (bfd escapes nothing),
    # with a leading ./ or not (lld drops it)
    my $norm = sub { $_[0] =~ s/\\(.)/$1/gr =~ s{^(?:\./)+}{}r };
    my $no = $norm->($tmp_o);
    for my $f (grep { $_->[0] eq 'dep' } side_files($cmd)) {
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
sub link_cmd {
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
sub gcc_lto_cmd {
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

# The linker the command runs: bfd, gold, or another's name.
sub linker_of {
    my ($cmd, $is_ld) = @_;
    if ($is_ld) {
        my $ld = basename($cmd->[0]);
        return $ld =~ /\bld\.(\w+)\z/ ? $1 : 'bfd';
    }
    my $l = 'bfd';
    for (@$cmd[1 .. $#$cmd]) {
        $l = $1 if /^-fuse-ld=(.*)\z/s;
        $l = 'the one --ld-path names' if /^--ld-path=/;
    }
    return $l;
}

# Does the compiler driver ask for LTO: 'on' (its last -flto), 'off'
# (-fno-lto), '' (neither: GCC still generates the code of objects that
# hold its intermediate language, fat ones too, at the link)?
sub lto_words {
    my ($cmd, $is_ld) = @_;
    return 'off' if $is_ld;
    my $lto = '';
    for (@$cmd[1 .. $#$cmd]) {
        $lto = 'on' if /^-flto(?:=|\z)/;
        $lto = 'off' if $_ eq '-fno-lto';
    }
    return $lto;
}
sub lto_link { return lto_words(@_) eq 'on' }

# Run one link.  Its warnings are shown once, for the link that makes the
# output (show); the first link's failure is the link command's own (its
# words and status, for a compiler wrapper to pass on: {link_status},
# {link_stderr}), a later one the pass's.  Where the linker names the
# file it writes (ld: "warning: FILE has a LOAD segment with RWX
# permissions"), it is given the output's name, not a temporary one's.
sub run_link {
    my ($job, $what, $cmd, %o) = @_;
    return start_link($job, $what, $cmd, %o)->();
}

# The same started: a sub that waits for it and does the rest (hold =>
# 1: returns what the linker said on stderr instead of printing it).
sub start_link {
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
    for my $t (grep { defined } map { $job->{tmp}{$_} } qw(img fq out)) {
        $err =~ s/\Q$t\E/$job->{out}/g;
    }
    throw(tool_failure($job->{label}, $what, $cmd, $st, $err),
        $o{first} ? (link_status => $st, link_stderr => $err) : ()) if $st != 0;
    return $err if $o{hold};
    print STDERR $err if $o{show} && length $err;
    return;
}

1;
