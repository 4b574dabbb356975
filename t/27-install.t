#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# make install puts working commands, the helper, the modules and the man
# pages under PREFIX; the installed commands run from anywhere without the
# source tree; make uninstall takes them away again.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP $SRC run_cmd must compile tmpdir);
use Oracle qw(table_sites filter_sites kernel_section);

delete $ENV{RECORDMCOUNT_TRACE_LIB};
my $dir = tmpdir();
my $prefix = "$dir/prefix";
my ($st, $out, $err) = run_cmd(['make', '-C', $TOP, '-s', 'install', "PREFIX=$prefix"]);
is($st, 0, 'make install succeeds') or diag $err;
for my $f ('bin/recordmcount.pl', 'bin/mcount-record', 'bin/mcount-cc', 'lib/recordmcount/libexec/mcount-scan') {
    ok(-x "$prefix/$f", "$f installed and executable");
}
for my $m (qw(recordmcount.pl mcount-record mcount-cc)) {
    ok(-s "$prefix/share/man/man1/$m.1", "man page $m.1 installed");
}

# run the installed recordmcount.pl from elsewhere, with no path to the tree
my $o = compile("$SRC/corpus.c", "$dir/c.o", '-O2', '-pg', '-mfentry');
my $g = compile("$SRC/corpus.c", "$dir/c.gcc.o", '-O2', '-pg', '-mfentry', '-mrecord-mcount');
($st, $out, $err) = run_cmd(['sh', '-c', 'cd / && exec "$@"', 'sh', "$prefix/bin/recordmcount.pl",
    'x86', 'little', '64', 'objdump', 'objcopy', 'gcc', 'ld', 'nm', '', '', '0', $o],
    env => { PERL5LIB => '' });
is($st, 0, 'installed recordmcount.pl runs') or diag $err;
is_deeply(table_sites($o), filter_sites(table_sites($g), \&kernel_section),
    'installed recordmcount.pl writes the right table');
($st, $out) = run_cmd(["$prefix/bin/mcount-record", '--version']);
is($st, 0, 'installed mcount-record --version');

# the tracing libraries: the machine's, and each other architecture's
# built (make check builds them) in libexec/ARCH/, which the installed
# mcount-trace preloads into a program of that architecture
my $libexec = "$prefix/lib/recordmcount/libexec";
ok(-f "$libexec/libmcount-trace.so" && -f "$libexec/libmcount-trace.a", 'libmcount-trace installed');
for my $a (qw(i386 aarch64 arm riscv64 ppc64le s390x sparc64)) {
    ok(-f "$libexec/$a/libmcount-trace.so" && -f "$libexec/$a/libmcount-trace.a", "libmcount-trace for $a installed");
}
{
    open my $fh, '>', "$dir/m.c" or die;
    print {$fh} "int main(void) { return 0; }\n";
    close $fh;
}
must('i686-linux-gnu-gcc-12', '-o', "$dir/m32", "$dir/m.c");
($st, $out, $err) = run_cmd(["$prefix/bin/mcount-trace", 'run', '-v', '-o', '/dev/null', '--', "$dir/m32"],
    env => { PERL5LIB => '' });
my ($pre) = $err =~ /^mcount-trace: LD_PRELOAD=(\S+)$/m;
is($pre, "$libexec/i386/libmcount-trace.so", 'the installed mcount-trace preloads the i386 library into an i386 program');
must('s390x-linux-gnu-gcc-12', '-o', "$dir/mz", "$dir/m.c");
($st, $out, $err) = run_cmd(["$prefix/bin/mcount-trace", 'run', '-v', '-o', '/dev/null', '--', "$dir/mz"],
    env => { PERL5LIB => '' });
($pre) = $err =~ /^mcount-trace: LD_PRELOAD=(\S+)$/m;
is($pre, "$libexec/s390x/libmcount-trace.so",
    'the installed mcount-trace preloads the s390x library into an s390x program');

($st, $out, $err) = run_cmd(['make', '-C', $TOP, '-s', 'uninstall', "PREFIX=$prefix"]);
is($st, 0, 'make uninstall succeeds') or diag $err;
my @left = split /\n/, must('find', $prefix, '-type', 'f');
is_deeply(\@left, [], 'make uninstall leaves no file behind');
done_testing();
