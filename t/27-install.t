#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# make install puts working commands, the helper, the modules, the
# machine's tracing library and the man pages under PREFIX; the installed
# commands run from anywhere without the source tree; make uninstall takes
# them away again.  (The other architectures' libraries, installed beside
# it: t/52-cross-install.t.)
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($SRC run_cmd compile tmpdir);
use Oracle qw(table_sites filter_sites kernel_section);
use InstallTest qw(install_ok uninstall_ok libexec_of);

delete $ENV{RECORDMCOUNT_TRACE_LIB};
my $dir = tmpdir();
my $prefix = "$dir/prefix";
install_ok($prefix);
for my $f ('bin/recordmcount.pl', 'bin/mcount-record', 'bin/mcount-cc', 'lib/recordmcount/libexec/mcount-scan') {
    ok(-x "$prefix/$f", "$f installed and executable");
}
for my $m (qw(recordmcount.pl mcount-record mcount-cc)) {
    ok(-s "$prefix/share/man/man1/$m.1", "man page $m.1 installed");
}
ok(-s "$prefix/share/man/man3/mcount_hook.3", 'man page mcount_hook.3 installed');

# run the installed recordmcount.pl from elsewhere, with no path to the tree
my $o = compile("$SRC/corpus.c", "$dir/c.o", '-O2', '-pg', '-mfentry');
my $g = compile("$SRC/corpus.c", "$dir/c.gcc.o", '-O2', '-pg', '-mfentry', '-mrecord-mcount');
my ($st, $out, $err) = run_cmd(['sh', '-c', 'cd / && exec "$@"', 'sh', "$prefix/bin/recordmcount.pl",
    'x86', 'little', '64', 'objdump', 'objcopy', 'gcc', 'ld', 'nm', '', '', '0', $o],
    env => { PERL5LIB => '' });
is($st, 0, 'installed recordmcount.pl runs') or diag $err;
is_deeply(table_sites($o), filter_sites(table_sites($g), \&kernel_section),
    'installed recordmcount.pl writes the right table');
($st, $out) = run_cmd(["$prefix/bin/mcount-record", '--version']);
is($st, 0, 'installed mcount-record --version');

# the tracing library: the machine's
my $libexec = libexec_of($prefix);
ok(-f "$libexec/libmcount-trace.so" && -f "$libexec/libmcount-trace.a", 'libmcount-trace installed');

uninstall_ok($prefix);
done_testing();
