# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Split;
# mcount-cc's way with a link that compiles C-family sources itself (cc
# -o prog a.c b.c: RecordMcount::Argv's action 'split'): each source is
# compiled to a temporary object by mcount-cc itself, as a compile is (its
# table, or in link-time mode its hook's calls), and the link gets those
# objects in the sources' places.  Every source is compiled, as the
# compiler does, before a failure ends the command.  The link is then
# done as a link is: through the link-time pass in link-time mode
# (RecordMcount::Link, by the caller), else as it is (link_objects).
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Run qw(temp_path exit_like response_file_cmd shell_quote run_inherit);
use RecordMcount::Tools qw(object_link_flags);

our @EXPORT_OK = qw(compile_sources link_objects);

# compile_sources(DECISION, OPTIONS) -> the link command's words, each
# source replaced by its object.  DECISION: classify's (command,
# sources, compile_args, objects, mode).  OPTIONS: self => the words
# that run mcount-cc as it was run (itself, then its launchers and the
# compiler unless in masquerade), compiler => the compiler's name,
# guard => [VAR, DEPTH] (a compile runs at the depth this command was
# called at), fail_status (when a compiler cannot be run), say =>
# a sub told what is done.  A compile that fails ends this process as the
# first that failed did, once every source is compiled; one killed by a
# signal, at once.
sub compile_sources {
    my ($d, %o) = @_;
    my @link = @{ $d->{command} };
    my $first_failure;
    for my $at (@{ $d->{sources} }) {
        my $obj = temp_path($d->{objects}[0], 'o');
        my @c = (@{ $d->{compile_args} }, '-c', $link[$at], '-o', $obj);
        $o{say}->("compile $link[$at] first: " . join(' ', map { shell_quote($_) } $o{compiler}, @c));
        # (as a compile is, in the mode the command's link is in)
        local $ENV{ $o{guard}[0] } = $o{guard}[1];
        local $ENV{MCOUNT_CC_MODE} = $d->{mode} if $d->{mode};
        my $c = response_file_cmd([@{ $o{self} }, @c], temp_path($d->{objects}[0], 'rsp'));
        my $st = run_inherit(cmd => $c, path => $o{self}[0], fail_status => $o{fail_status});
        exit_like($st) if $st & 127;
        $first_failure //= $st if $st != 0;
        $link[$at] = $obj;
    }
    exit_like($first_failure) if defined $first_failure;
    return @link;
}

# The link of LINK (compile_sources' words) in per-object mode, by
# linker => the compiler as the command names it (path => where it is),
# with what the target's row says objects with per-object tables need at
# the link; no launcher (a link is not cached).  Ends this process as the
# link ended.  OPTIONS as compile_sources takes them.
sub link_objects {
    my ($link, $d, %o) = @_;
    # (the compiler's own table needs nothing of the link)
    my @extra = ($d->{mode} // '') eq 'compiler' ? () : object_link_flags($link);
    $o{say}->("link with @extra, as per-object tables need for this target") if @extra;
    my @cmd = ($o{linker}, @$link, @extra);
    $o{say}->('link: ' . join(' ', map { shell_quote($_) } @cmd));
    my $c = response_file_cmd(\@cmd, temp_path($d->{objects}[0], 'rsp'));
    exit_like(run_inherit(cmd => $c, path => $o{path}, fail_status => $o{fail_status}));
}

1;
