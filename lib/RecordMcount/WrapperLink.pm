# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::WrapperLink;
# mcount-cc's links in link-time mode, and its split of a link that
# compiles its sources (RecordMcount::Split): a module of their own, so
# that a link loads neither the recording code of a compile
# (RecordMcount::WrapperRecord) nor a compile this.  W: the wrapper's
# command, as RecordMcount::WrapperRecord describes it.
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Message qw(program);

our @EXPORT_OK = qw(link_through_pass split_and_link);

# link-time mode: the link COMMAND of decision D (no launcher: a link is
# not cached) through the link-time pass.  Does not return.
sub link_through_pass {
    my ($w, $d, $command) = @_;
    my ($compiler, $path) = @$w{qw(compiler path)};
    $w->{load}->('Link');
    RecordMcount::Link::wrapper_link($w->{masquerade} ? $path : $compiler, $command, $w->{exit_record},
        prog => program(), why => $d->{mode_why}, label => $d->{objects}[0], say => $w->{say},
        triple => sub { RecordMcount::Tools::compiler_triple($compiler, $path, $w->{args}, undef) });
    exit 0;
}

# Decision D, a command that compiles its sources and links (action
# split): the sources compiled first (a broken installation said once,
# before anything is compiled), then the link.  Does not return.
sub split_and_link {
    my ($w, $d) = @_;
    my ($compiler, $path) = @$w{qw(compiler path)};
    my $link_mode = ($d->{mode} // '') eq 'link';
    $w->{load}->($link_mode ? ('Link') : ('Pipeline', 'Tools'), 'Split');
    my %o = (compiler => $compiler, fail_status => $w->{exit_no_compiler}, say => $w->{say});
    my @link = RecordMcount::Split::compile_sources($d, %o, guard => $w->{guard},
        self => [$0, $w->{masquerade} ? () : (@{ $w->{launchers} }, $compiler)]);
    link_through_pass($w, $d, \@link) if $link_mode;
    RecordMcount::Split::link_objects(\@link, $d, %o, path => $path,
        linker => $w->{masquerade} ? $path : $compiler);
    # (link_objects does not return)
}

1;
