#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# libmcount-trace.a linked into a program that calls none of its API:
# the start-up filter alone must trace it, as the preloaded library does
# (the hooks must pull in the start-up code).  Oracle: the program's own
# count of its calls, for PIE, non-PIE and -static, -pg and -pg -mfentry;
# and built as the man page shows, recorded at the link.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP $SRC run_cmd must tmpdir slurp);

my $dir = tmpdir();
delete $ENV{$_} for grep { /^(MCOUNT_TRACE_|MCOUNT_CC_)/ } keys %ENV;
delete $ENV{LD_PRELOAD};
local $ENV{MCOUNT_TRACE_DIR} = "$dir/sock";

for my $hook (['-pg'], ['-pg', '-mfentry']) {
    my $obj = "$dir/static_env" . join('', @$hook) . '.o';
    my ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-cc", 'gcc', '-O2', '-c',
        "$SRC/trace/static_env.c", '-o', $obj], env => { MCOUNT_CC_FLAGS => "@$hook" });
    is($st, 0, "@$hook: builds through mcount-cc") or diag($out, $err);
    for my $link (['-pie'], ['-no-pie'], ['-static']) {
        my $tag = "@$hook $link->[0]";
        my $prog = "$obj$link->[0]";
        must('gcc', @$link, '-o', $prog, $obj, "$TOP/build/libmcount-trace.a", '-lpthread');
        my $trace = "$prog.txt";
        ($st, $out, $err) = run_cmd([$prog, '37'], env => {
            MCOUNT_TRACE_FILTER => 'count_me', MCOUNT_TRACE_OUTPUT => $trace });
        is($st, 0, "$tag: runs");
        is($out, "37 calls, 1405\n", "$tag: its output is its own");
        is($err, '', "$tag: no message");
        my @ev = grep { /: count_me <-main$/ } split /\n/, slurp($trace);
        my @other = grep { !/^#/ && !/: count_me <-main$/ } split /\n/, slurp($trace);
        is(scalar @ev, 37, "$tag: 37 count_me events, as many as calls");
        is(scalar @other, 0, "$tag: nothing else traced") or diag(join "\n", @other);
        ($st, $out) = run_cmd([$prog, '5'], env => { MCOUNT_TRACE_OUTPUT => "$prog.none" });
        is(slurp("$prog.none") =~ tr/\n//, 4, "$tag: no filter, no event (the header only)");
    }
}

# The man page's way, recorded at the link (link-time mode, through the
# pass): compiled with -c, then linked with the library.  The library's
# own code refers to the hooks only by hidden names of its own: nothing
# for the pass to note, and --verify counts only the program's calls.
{
    my $prog = "$dir/at_link";
    my %link = (MCOUNT_CC_MODE => 'link');
    my ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-cc", 'gcc', '-O2', '-c', '-o', "$prog.o",
        "$SRC/trace/static_env.c"], env => \%link);
    is($st, 0, 'at the link: compiled through mcount-cc') or diag($out, $err);
    ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-cc", 'gcc', '-o', $prog, "$prog.o",
        "$TOP/build/libmcount-trace.a", '-lpthread'], env => \%link);
    is($st, 0, 'at the link: linked through mcount-cc') or diag($out, $err);
    is($err, '', 'at the link: nothing said');
    ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-record", '--verify', $prog]);
    is($st, 0, 'at the link: --verify passes') or diag($out, $err);
    my $trace = "$prog.txt";
    ($st, $out, $err) = run_cmd([$prog, '37'], env => { MCOUNT_TRACE_FILTER => 'count_me', MCOUNT_TRACE_OUTPUT => $trace });
    is("$st $out$err", "0 37 calls, 1405\n", 'at the link: runs, its output its own, no message');
    is(scalar(grep { /: count_me <-main$/ } split /\n/, slurp($trace)), 37, 'at the link: 37 count_me events');
    # run on such a program preloads no second copy (two would each take
    # the same sites: "a NOP already" for the second)
    ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-trace", 'run', '-v', '-f', 'count_me', '-o', "$trace.run",
        '--', $prog, '37']);
    is("$st $out", "0 37 calls, 1405\n", 'run: the program runs');
    like($err, qr/^mcount-trace: \Q$prog\E links the library in: nothing preloaded$/m, 'run: preloads nothing');
    unlike($err, qr/^mcount-trace: (?!MCOUNT_TRACE_|\Q$prog\E links)/m, 'run: no other message');
    is(scalar(grep { /: count_me <-main$/ } split /\n/, slurp("$trace.run")), 37, 'run: 37 count_me events');
}

# mcount_trace_write() to a descriptor it cannot write: -1 with EBADF,
# and the events stay for the next call.
{
    my $obj = "$dir/api_write.o";
    my ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-cc", 'gcc', '-O2', "-I$TOP/rt", '-c',
        "$SRC/trace/api_write.c", '-o', $obj], env => { MCOUNT_CC_FLAGS => '-pg -mfentry' });
    is($st, 0, 'api_write.c builds through mcount-cc') or diag($out, $err);
    must('gcc', '-o', "$dir/api_write", $obj, "$TOP/build/libmcount-trace.a", '-lpthread');
    ($st, $out, $err) = run_cmd(["$dir/api_write"]);
    is($st, 0, 'mcount_trace_write: the program runs') or diag($err);
    is($err, "closed: -1 EBADF\nread-only: -1 EBADF\nstdout: 3\n",
        'mcount_trace_write: EBADF for a closed and a read-only descriptor, then the 3 events');
    is(scalar(() = $out =~ /: leaf <-main$/mg), 3, 'mcount_trace_write: the 3 events written, after the failures');
}

done_testing();
