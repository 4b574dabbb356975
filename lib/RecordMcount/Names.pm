# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Names;
# Names of files and programs, and words of commands, with no process,
# signal or temporary file to them: what a compile that mcount-cc only
# passes on needs, without RecordMcount::Run's start-up (its signal
# handlers, its END).  RecordMcount::Run hands them on to its users.
use strict;
use warnings;

use RecordMcount::Exports;
our @EXPORT_OK = qw(basename dirname find_program shell_quote);

# File::Basename's answers for the names this project handles (no trailing
# slash), without loading it.
sub basename { return $_[0] =~ s{.*/}{}sr }
sub dirname {
    my ($p) = @_;
    return '.' unless $p =~ m{/};
    $p =~ s{/+[^/]*\z}{};
    return length $p ? $p : '/';
}

# The full path of a program, searching PATH when it has no slash.
# Looked up once per name (and PATH) in a process.
my %found;
sub find_program {
    my ($name) = @_;
    return undef unless defined $name && length $name;
    if ($name =~ m{/}) {
        return -f $name && -x _ ? $name : undef;
    }
    my $path = $ENV{PATH} // '';
    my $key = "$name\0$path";
    return $found{$key} if exists $found{$key};
    for my $dir (split /:/, $path, -1) {
        my $p = (length $dir ? $dir : '.') . "/$name";
        return $found{$key} = $p if -f $p && -x _;
    }
    return $found{$key} = undef;
}

# A word quoted for a POSIX shell, only when it needs it (a command shown
# to the user, to be pasted back).
sub shell_quote {
    my ($w) = @_;
    return $w if length $w && $w =~ m{^[A-Za-z0-9_@%+=:,./-]+\z};
    $w =~ s/'/'\\''/g;
    return "'$w'";
}

1;
