#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# mcount-trace run and the library for the program's own architecture
# (the other architectures' programs built with their cross compilers,
# their libraries in build/ARCH/, which make check-cross builds): an
# i386 program gets build/i386/'s library, a mips64el one
# build/mips64el/'s, a mipsel one build/mipsel/'s, a mips one
# build/mips/'s, a ppc one build/ppc/'s, a sparc64 one build/sparc64/'s
# (-v shows LD_PRELOAD before the program runs, whether or not this host
# can run it), found through PATH too; a program for an architecture the
# library has no port to (mips n32) is not run, nor one whose library is
# not built; RECORDMCOUNT_TRACE_LIB is taken as it is.  (The rest of
# mcount-trace's command line: t/70-trace-cli.t.)
use strict;
use warnings;
use Test::More;
use Cwd ();
use lib 't/lib';
use TestUtil qw($TOP run_cmd tmpdir spit need);
use TraceTest qw(clean_env mt_cli);
use RecordMcount::Arch qw(arch_row);

# each architecture's C compiler, by its row of arches.tab
my %gcc = map { $_ => arch_row($_)->{triple} . '-gcc-12' } qw(i386 mips mips64el mipsel ppc sparc64);

clean_env();
need(map { $gcc{$_} } sort keys %gcc);
my $tmp = tmpdir();
my $ctl = "$tmp/ctl";
mkdir $ctl or die "$ctl: $!";
chmod 0700, $ctl or die;
# every mcount-trace run: its control directory this test's own
my %DIR = (MCOUNT_TRACE_DIR => $ctl);

{
    my $c = "$tmp/m.c";
    spit($c, "int main(void) { return 0; }\n");
    my %cc = map { $_ => $gcc{$_} } qw(i386 mips mips64el mipsel);
    for my $a (sort keys %cc) {
        my ($st, $o, $e) = run_cmd([$cc{$a}, '-o', "$tmp/prog-$a", $c]);
        is($st, 0, "$cc{$a} builds a program for $a") or diag $e;
    }
    my $i386 = Cwd::abs_path("$TOP/build/i386/libmcount-trace.so");
    my ($st, $o, $e) = mt_cli({ %DIR }, 'run', '-v', '-o', '/dev/null', '--', "$tmp/prog-i386");
    my ($pre) = $e =~ /^mcount-trace: LD_PRELOAD=(\S+)$/m;
    is($pre, $i386, 'run: an i386 program preloads build/i386/libmcount-trace.so');
    ($st, $o, $e) = mt_cli({ %DIR, PATH => "$tmp:$ENV{PATH}" }, 'run', '-v', '-o', '/dev/null', '--', 'prog-i386');
    ($pre) = $e =~ /^mcount-trace: LD_PRELOAD=(\S+)$/m;
    is($pre, $i386, 'run: so does one found through PATH');
    ($st, $o, $e) = mt_cli({ %DIR, RECORDMCOUNT_TRACE_LIB => "$TOP/build/libmcount-trace.so" },
        'run', '-v', '-o', '/dev/null', '--', "$tmp/prog-i386");
    ($pre) = $e =~ /^mcount-trace: LD_PRELOAD=(\S+)$/m;
    is($pre, Cwd::abs_path("$TOP/build/libmcount-trace.so"), 'run: RECORDMCOUNT_TRACE_LIB is taken as it is');
    # a mips64el program (EM_MIPS, 64-bit, little-endian) gets build/mips64el/'s
    ($st, $o, $e) = mt_cli({ %DIR }, 'run', '-v', '-o', '/dev/null', '--', "$tmp/prog-mips64el");
    ($pre) = $e =~ /^mcount-trace: LD_PRELOAD=(\S+)$/m;
    is($pre, Cwd::abs_path("$TOP/build/mips64el/libmcount-trace.so"),
        'run: a mips64el program preloads build/mips64el/libmcount-trace.so');
    # a mipsel one (EM_MIPS, 32-bit, little-endian) build/mipsel/'s
    ($st, $o, $e) = mt_cli({ %DIR }, 'run', '-v', '-o', '/dev/null', '--', "$tmp/prog-mipsel");
    ($pre) = $e =~ /^mcount-trace: LD_PRELOAD=(\S+)$/m;
    is($pre, Cwd::abs_path("$TOP/build/mipsel/libmcount-trace.so"),
        'run: a mipsel program preloads build/mipsel/libmcount-trace.so');
    # an n32 one (32-bit, little-endian too, EF_MIPS_ABI2) is not mipsel's (o32)
    ($st, $o, $e) = run_cmd([$gcc{mips64el}, '-mabi=n32', '-nostdlib', '-static', '-e', 'main',
        '-o', "$tmp/prog-n32", $c]);
    is($st, 0, "$gcc{mips64el} -mabi=n32 builds a program (no C library)") or diag $e;
    ($st, $o, $e) = mt_cli({ %DIR }, 'run', '-v', '-o', '/dev/null', '--', "$tmp/prog-n32");
    is($e, "mcount-trace: $tmp/prog-n32: a program for mipsn32el, which libmcount-trace is not built for\n",
        'run: an n32 program: not run, and why (not given the o32 library)');
    # a mips one (EM_MIPS, 32-bit, big-endian) build/mips/'s
    ($st, $o, $e) = mt_cli({ %DIR }, 'run', '-v', '-o', '/dev/null', '--', "$tmp/prog-mips");
    ($pre) = $e =~ /^mcount-trace: LD_PRELOAD=(\S+)$/m;
    is($pre, Cwd::abs_path("$TOP/build/mips/libmcount-trace.so"),
        'run: a mips program preloads build/mips/libmcount-trace.so');
    # a ppc32 one, whose -pg code calls the C library's own _mcount,
    # linked in: the library gets the calls through __mcount_internal
    # (the ppc guest), so it is preloaded as elsewhere
    ($st, $o, $e) = run_cmd([$gcc{ppc}, '-pg', '-o', "$tmp/prog-ppc", $c]);
    is($st, 0, "$gcc{ppc} builds a -pg program") or diag $e;
    ($st, $o, $e) = mt_cli({ %DIR }, 'run', '-v', '-o', '/dev/null', '--', "$tmp/prog-ppc");
    ($pre) = $e =~ /^mcount-trace: LD_PRELOAD=(\S+)$/m;
    is($pre, Cwd::abs_path("$TOP/build/ppc/libmcount-trace.so"),
        'run: a ppc program preloads build/ppc/libmcount-trace.so');
    # a sparc64 one gets build/sparc64/'s (a library with no PLT:
    # rt/noplt.h); linked dynamically, with a PT_INTERP (a static one is
    # refused)
    ($st, $o, $e) = run_cmd([$gcc{sparc64}, '-nostdlib', '-e', 'main',
        '-o', "$tmp/prog-sparc64", $c]);
    is($st, 0, "$gcc{sparc64} builds a program (no C library)") or diag $e;
    ($st, $o, $e) = mt_cli({ %DIR }, 'run', '-v', '-o', '/dev/null', '--', "$tmp/prog-sparc64");
    ($pre) = $e =~ /^mcount-trace: LD_PRELOAD=(\S+)$/m;
    is($pre, Cwd::abs_path("$TOP/build/sparc64/libmcount-trace.so"),
        'run: a sparc64 program preloads build/sparc64/libmcount-trace.so');
    # a copy of the commands (bin/, lib/ and the arches.tab their modules
    # read) beside a build/ that has no i386 library
    my $tree = "$tmp/tree";
    mkdir $_ or die "$_: $!" for $tree, "$tree/build";
    system('cp', '-R', "$TOP/bin", "$TOP/lib", "$TOP/arches.tab", $tree) == 0 or die 'cp';
    system('cp', "$TOP/build/libmcount-trace.so", "$tree/build/") == 0 or die 'cp';
    ($st, $o, $e) = run_cmd([$^X, "$tree/bin/mcount-trace", 'run', '-o', '/dev/null', '--', "$tmp/prog-i386"]);
    is($st >> 8, 1, 'run: an i386 program without its library: exit status 1');
    is($e, "mcount-trace: $tmp/prog-i386: a program for i386, and no tracing library for it at "
        . "$tree/bin/../build/i386/libmcount-trace.so (make rt-i386, or set RECORDMCOUNT_TRACE_LIB)\n",
        'run: an i386 program without its library: not run, and why');
}

done_testing();
