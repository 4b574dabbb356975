#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# What the linker says through the one link is what it says to the plain
# link.  The one link asks for the linker's map with its symbols left
# mangled (demangling them was a third of the map's cost), and GNU ld's
# --no-demangle also leaves its messages' symbols mangled: a link that
# names a symbol is linked again as the command asks.  The oracle is the
# plain link of the same command: its exit status and its stderr, byte
# for byte, for
#   - a warning that names C++ functions (.gnu.warning.SYMBOL), on a link
#     that succeeds: two links, the table still exact;
#   - a warning that names no symbol (an unknown -z keyword): one link;
#   - a link that fails on an undefined C++ function;
#   - a command that asks for --no-demangle itself: its mangled words,
#     one link;
#   - a GNU ld older than --no-print-map-discarded, which the one link
#     also asks for;
# through mcount-cc and mcount-record --link.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP must run_cmd spit tmpdir);

my $dir = tmpdir();
my $CC = "$TOP/bin/mcount-cc";
my $MR = "$TOP/bin/mcount-record";

spit("$dir/old.cc", <<'EOF');
namespace ns { int old_api(int x) { return x + 1; } }
// ld warns of each reference to ns::old_api(int), naming the function it is in
__attribute__((section(".gnu.warning._ZN2ns7old_apiEi"), used))
static const char warn_old[] = "ns::old_api is deprecated";
EOF
spit("$dir/use.cc", <<'EOF');
namespace ns { int old_api(int x); }
struct Widget { int use(int v); };
int Widget::use(int v) { return ns::old_api(v); }
int main(int argc, char **) { Widget w; return w.use(argc) - 2; }
EOF
spit("$dir/missing.cc", <<'EOF');
namespace ns { int missing(int); }
int call_missing(int v) { return ns::missing(v); }
EOF
must('g++', '-O1', '-pg', '-c', "$dir/$_.cc", '-o', "$dir/$_.o") for qw(old use missing);

# (the plain link first, its output beside the pass's: the words name
# the inputs, not the output)
sub plain {
    my (@cmd) = @_;
    return run_cmd(["g++", @cmd, "-o", "$dir/plain"]);
}

my @o = map { "$dir/$_.o" } qw(old use);
my @cases = (
    # name, link arguments, status, links, stderr must match
    ['a warning naming C++ functions', [@o], 0, 2, qr/in function `Widget::use\(int\)':.*warning: ns::old_api is deprecated/s],
    ['a failed link', [@o, "$dir/missing.o"], 1, undef, qr/undefined reference to `ns::missing\(int\)'/],
    ['the command\'s own --no-demangle', [@o, '-Wl,--no-demangle'], 0, 1, qr/in function `_ZN6Widget3useEi'/],
    ['the command\'s own -Xlinker --no-demangle', [@o, '-Xlinker', '--no-demangle'], 0, 1, qr/in function `_ZN6Widget3useEi'/],
);
push @cases, ['a warning naming no symbol', ["$dir/plain-main.o", '-Wl,-z,bogus'], 0, 1, qr/warning: -z bogus ignored/];
spit("$dir/plain-main.c", "int main(void) { return 0; }\n");
must('gcc', '-O1', '-pg', '-c', "$dir/plain-main.c", '-o', "$dir/plain-main.o");

for my $c (@cases) {
    my ($name, $args, $want_st, $links, $said) = @$c;
    my ($pst, undef, $perr) = plain(@$args);
    is($pst >> 8, $want_st, "$name: the plain link's status");
    like($perr, $said, "$name: the plain link says so");
    for my $how (['mcount-cc', [$CC, 'g++', @$args, '-o', "$dir/pass"], {}],
                 ['mcount-record --link', [$MR, '--link', '-q', '--', 'g++', @$args, '-o', "$dir/pass"], {}]) {
        my ($who, $cmd, $env) = @$how;
        unlink "$dir/pass";
        my ($st, undef, $err) = run_cmd($cmd, env => $env);
        is($st, $pst, "$name, $who: the plain link's status");
        if ($pst && $who ne 'mcount-cc') {
            # (mcount-record says whose link failed, the linker's words
            # indented under it)
            is(join('', map { s/^  //r } grep { /^  / } split /^/, $err), $perr, "$name, $who: the plain link's words");
            next;
        }
        is($err, $perr, "$name, $who: the plain link's words, byte for byte");
        next if $pst;
        my ($vst, $vout, $verr) = run_cmd([$MR, '--verify', '--strict', "$dir/pass"]);
        is($vst, 0, "$name, $who: the table is exact (--verify --strict)") or diag "$vout$verr";
    }
    next if $pst;
    # how many links: mcount-cc's verbose line
    my ($st, undef, $err) = run_cmd([$CC, 'g++', @$args, '-o', "$dir/pass"], env => { MCOUNT_CC_VERBOSE => 1 });
    my ($n) = $err =~ /: \d+ call sites?, (\d+) links?; /;
    is($n, $links, "$name: $links link" . ($links > 1 ? 's' : '')) or diag $err;
    like($err, qr/two links \(the linker named a symbol: linked again for its demangled words\)/,
        "$name: says why it linked twice") if $links > 1;
}

# A GNU ld before 2.34 knows no --no-print-map-discarded, which the one
# link asks of GNU ld: it stops at the option, as such an ld does, and
# the pass links once without it.
{
    mkdir "$dir/old-ld" or die;
    spit("$dir/old-ld/ld", <<'SH');
#!/bin/sh
for a; do
    case $a in --no-print-map-discarded)
        echo "ld: unrecognized option '$a'" >&2
        echo "ld: use the --help option for usage information" >&2
        exit 1;;
    esac
done
exec /usr/bin/ld "$@"
SH
    chmod 0755, "$dir/old-ld/ld" or die;
    my @args = ("-B$dir/old-ld/", "$dir/plain-main.o");
    my ($pst, undef, $perr) = plain(@args);
    my ($st, undef, $err) = run_cmd([$CC, 'g++', @args, '-o', "$dir/pass"], env => { MCOUNT_CC_VERBOSE => 1 });
    is($st, $pst, "an ld without --no-print-map-discarded: the plain link's status");
    like($err, qr/: \d+ call sites?, 1 link; one link, /, "an ld without --no-print-map-discarded: one link made the table")
        or diag $err;
    is($err =~ s/^mcount-cc: .*\n//mgr, $perr, "an ld without --no-print-map-discarded: the plain link's words");
    my ($vst, $vout, $verr) = run_cmd([$MR, '--verify', '--strict', "$dir/pass"]);
    is($vst, 0, 'an ld without --no-print-map-discarded: the table is exact') or diag "$vout$verr";
}

done_testing();
