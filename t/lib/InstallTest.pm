# SPDX-License-Identifier: GPL-2.0-or-later
package InstallTest;
# Helpers for the tests of make install (t/27-install.t on this machine,
# t/52-cross-install.t with the other architectures' libraries): install
# into a prefix and uninstall from it, and which library the installed
# mcount-trace preloads into a program.
use strict;
use warnings;

use Exporter 'import';
use Test::More;
use TestUtil qw($TOP run_cmd must);

our @EXPORT_OK = qw(install_ok uninstall_ok libexec_of installed_preload);

# make install PREFIX=PREFIX, which must succeed.
sub install_ok {
    my ($prefix) = @_;
    my ($st, undef, $err) = run_cmd(['make', '-C', $TOP, '-s', 'install', "PREFIX=$prefix"]);
    is($st, 0, 'make install succeeds') or diag $err;
    return;
}

# make uninstall PREFIX=PREFIX, which must succeed and leave no file.
sub uninstall_ok {
    my ($prefix) = @_;
    my ($st, undef, $err) = run_cmd(['make', '-C', $TOP, '-s', 'uninstall', "PREFIX=$prefix"]);
    is($st, 0, 'make uninstall succeeds') or diag $err;
    my @left = split /\n/, must('find', $prefix, '-type', 'f');
    is_deeply(\@left, [], 'make uninstall leaves no file behind');
    return;
}

# Where the helper and the tracing libraries go.
sub libexec_of { return "$_[0]/lib/recordmcount/libexec" }

# The library the installed mcount-trace (run -v) preloads into PROGRAM,
# with no path to the tree: the LD_PRELOAD it shows, or undef.
sub installed_preload {
    my ($prefix, $prog) = @_;
    my (undef, undef, $err) = run_cmd(["$prefix/bin/mcount-trace", 'run', '-v', '-o', '/dev/null', '--', $prog],
        env => { PERL5LIB => '' });
    my ($pre) = $err =~ /^mcount-trace: LD_PRELOAD=(\S+)$/m;
    return $pre;
}

1;
