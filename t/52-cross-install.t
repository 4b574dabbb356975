#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# make install with the other architectures' tracing libraries built
# (make check-cross builds them): each goes to libexec/ARCH/ (every one
# arches.tab has built "cross" or "both"), and the
# installed mcount-trace, run with no path to the tree, preloads the
# i386 library into an i386 program and the s390x one into an s390x
# program (built with their cross compilers), and finds them too in
# multiarch directories, as Debian's packages put them; make uninstall
# takes them away again.  (The rest of make install: t/27-install.t; the
# packages themselves: t/120-deb-package.t.)
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw(must tmpdir spit need);
use InstallTest qw(install_ok uninstall_ok libexec_of installed_preload);
use RecordMcount::Arch qw(arch_rows);

delete $ENV{RECORDMCOUNT_TRACE_LIB};
need('i686-linux-gnu-gcc-12', 's390x-linux-gnu-gcc-12');
my $dir = tmpdir();
my $prefix = "$dir/prefix";
install_ok($prefix);

my $libexec = libexec_of($prefix);
# every architecture arches.tab has the library cross-built for
for my $a (map { $_->{tracer} } grep { ($_->{build} // '') =~ /^(?:cross|both)\z/ } arch_rows()) {
    ok(-f "$libexec/$a/libmcount-trace.so" && -f "$libexec/$a/libmcount-trace.a", "libmcount-trace for $a installed");
}
spit("$dir/m.c", "int main(void) { return 0; }\n");
must('i686-linux-gnu-gcc-12', '-o', "$dir/m32", "$dir/m.c");
is(installed_preload($prefix, "$dir/m32"), "$libexec/i386/libmcount-trace.so",
    'the installed mcount-trace preloads the i386 library into an i386 program');
must('s390x-linux-gnu-gcc-12', '-o', "$dir/mz", "$dir/m.c");
is(installed_preload($prefix, "$dir/mz"), "$libexec/s390x/libmcount-trace.so",
    'the installed mcount-trace preloads the s390x library into an s390x program');

# Laid out as Debian's packages lay it out (debian/rules): each
# architecture's library in its own multiarch directory
# (libmcount-trace0:i386's /usr/lib/i386-linux-gnu/), none in
# libexec/ARCH/, and libexec/libmcount-trace.so a link to the machine's:
# mcount-trace finds the program's own beside the machine's.
my $ma = "$dir/multiarch";
must('mkdir', '-p', "$ma/bin", "$ma/lib");
must('cp', '-R', "$prefix/lib/recordmcount", "$ma/lib/");
my $mlibexec = "$ma/lib/recordmcount/libexec";
for my $a ('i386', 's390x') {
    must('mkdir', '-p', "$ma/lib/$a-linux-gnu");
    must('cp', "$libexec/$a/libmcount-trace.so", "$ma/lib/$a-linux-gnu/libmcount-trace.so.0");
}
must('mkdir', '-p', "$ma/lib/host-linux-gnu");
must('mv', "$mlibexec/libmcount-trace.so", "$ma/lib/host-linux-gnu/libmcount-trace.so.0");
must('rm', '-rf', "$mlibexec/libmcount-trace.so.0", grep { -d } glob("$mlibexec/*"));
symlink('../../host-linux-gnu/libmcount-trace.so.0', "$mlibexec/libmcount-trace.so") or die "$mlibexec: $!";
symlink('../lib/recordmcount/bin/mcount-trace', "$ma/bin/mcount-trace") or die "$ma/bin: $!";
is(installed_preload($ma, "$dir/m32"), "$ma/lib/i386-linux-gnu/libmcount-trace.so.0",
    'multiarch: the i386 library from its own directory into an i386 program');
is(installed_preload($ma, "$dir/mz"), "$ma/lib/s390x-linux-gnu/libmcount-trace.so.0",
    'multiarch: the s390x library into an s390x program');

uninstall_ok($prefix);
done_testing();
