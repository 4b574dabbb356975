#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: slow
# Concurrency: make -j8 over 500 objects in one directory through
# mcount-cc, every object then checked in the linked program; two
# processes recording the same file at the same moment leave one valid
# recorded file; a forked child that records cleans up after itself.
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use POSIX ();
use Time::HiRes qw(time sleep);
use lib 't/lib';
use TestUtil qw($TOP $SRC run_cmd must compile tmpdir slurp spit leftovers);
use Harden qw(front_end oracle_of is_recorded script);
use RecordMcount::Pipeline qw(record_object);
use RecordMcount::Run qw(reset_after_fork);

# ---- make -j8, 500 objects, one directory --------------------------------
{
    my $n = 500;
    my $d = tmpdir();
    for my $i (1 .. $n) {
        spit(sprintf("$d/u%03d.c", $i), <<"C");
extern int ext(int);
static __attribute__((noinline)) int s$i(int x) { return ext(x) * $i; }
int g$i(int x) { return s$i(x) + 1; }
C
    }
    spit("$d/main.c", join '', "int ext(int x) { return x + 1; }\n",
        (map { "int g$_(int);\n" } 1 .. $n),
        "int main(int c, char **v) {\n\t(void)v;\n\tint r = 0;\n",
        (map { "\tr += g$_(c);\n" } 1 .. $n), "\treturn r == 0;\n}\n");
    spit("$d/Makefile", <<'MK');
OBJS := $(patsubst %.c,%.o,$(sort $(wildcard u*.c))) main.o
prog: $(OBJS)
	gcc -o $@ $(OBJS)
%.o: %.c
	$(CC) -O2 -c $< -o $@
MK
    my $t0 = time;
    my ($st, $out, $err) = run_cmd(['make', '-s', '-C', $d, '-j8', "CC=$TOP/bin/mcount-cc gcc"]);
    my $secs = time - $t0;
    is($st, 0, "make -j8: $n objects built through mcount-cc") or diag $err;
    note sprintf 'make -j8 over %d objects: %.1f s', $n + 1, $secs;
    is($err, '', 'make -j8: nothing on stderr');
    is_deeply([leftovers($d)], [], 'make -j8: no temporary files in the directory');
    my @missing = grep { !-e sprintf("$d/u%03d.o", $_) } 1 .. $n;
    is_deeply(\@missing, [], 'make -j8: every object is there');
    ($st, $out, $err) = run_cmd(["$TOP/bin/mcount-record", '--verify', "$d/prog"]);
    is($st, 0, 'the program passes mcount-record --verify') or diag "$out$err";
    my $want = 2 * $n + 2;    # g and s in each unit, ext and main
    like($out, qr/: OK, $want entries for $want calls to the hook/, "the program's table has all $want sites")
        or diag $out;
    ($st) = run_cmd(["$d/prog"]);
    is($st >> 8, 0, 'the program runs');
}

# ---- two processes, one file, the same moment ----------------------------
{
    my $d = tmpdir();
    my $wd = tmpdir();
    my @flags = ('-O2', '-pg', '-ffunction-sections');
    my $orig = compile("$SRC/corpus.c", "$wd/orig.o", @flags);
    my $oracle = oracle_of("$SRC/corpus.c", "$wd/gcc.o", @flags);
    my $f = "$d/same.o";
    my (%bad, $rounds);
    for my $pair (['pl', 'pl'], ['pl', 'mr'], ['mr', 'mr']) {
        for my $round (1 .. 6) {
            $rounds++;
            copy($orig, $f) or die;
            my @pids;
            for my $k (0, 1) {
                my $pid = fork // die;
                if ($pid == 0) {
                    sleep(rand 0.03) if $round > 3;    # vary the overlap
                    my ($st, undef, $err) = front_end($pair->[$k], $f);
                    print STDERR $err if $st;
                    POSIX::_exit($st ? 1 : 0);
                }
                push @pids, $pid;
            }
            my $fails = 0;
            for (@pids) { waitpid $_, 0; $fails++ if $? }
            my $name = "@$pair, round $round";
            $bad{"$name: a process failed"}++ if $fails;
            my @p = is_recorded($f, $orig, $oracle);
            $bad{"$name: @p"}++ if @p;
            $bad{"$name: temporary files left"}++ if leftovers($d);
        }
    }
    is_deeply(\%bad, {}, "$rounds races of two recordings of one file: both succeed, one valid table");
}

# ---- a forked child records, and is killed -------------------------------
{
    my $d = tmpdir();
    my $wd = tmpdir();
    my $obj = compile("$SRC/corpus.c", "$d/fork.o", '-O2', '-pg');
    my $before = slurp($obj);
    my $slow = script("$wd/slow-ld", "#!/bin/sh\ntouch '$wd/ld-started'\nexec sleep 30\n");
    for my $sig (qw(TERM INT)) {
        unlink "$wd/ld-started";
        my $pid = fork // die;
        if ($pid == 0) {
            reset_after_fork();
            open STDERR, '>', '/dev/null';
            record_object($obj, { helper => "$TOP/build/mcount-scan", objdump => ['objdump'],
                objcopy => ['objcopy'], as => ['as'], ld => [$slow], arch => 'x86_64' });
            POSIX::_exit(0);
        }
        for (1 .. 300) { last if -e "$wd/ld-started"; sleep 0.05 }
        ok(-e "$wd/ld-started", "forked child, SIG$sig: the child reached ld");
        kill $sig, $pid;
        waitpid $pid, 0;
        is($? & 127, POSIX->can("SIG$sig")->(), "forked child, SIG$sig: it died of the signal");
        is_deeply([leftovers($d)], [], "forked child, SIG$sig: it removed its temporary files");
        ok(slurp($obj) eq $before, "forked child, SIG$sig: the object is unchanged");
    }
}

# ---- mcount-record -j, stopped while its workers run ----------------------
{
    my $d = tmpdir();
    my $wd = tmpdir();
    my @objs = map { compile("$SRC/corpus.c", "$d/j$_.o", '-O2', '-pg') } 1 .. 4;
    my $before = slurp($objs[0]);
    my $slow = script("$wd/slow-ld", "#!/bin/sh\ntouch \"$wd/ld.\$\$\"\nexec sleep 30\n");
    my $pid = fork // die;
    if ($pid == 0) {
        open STDERR, '>', '/dev/null';
        $ENV{LD} = $slow;
        { no warnings 'exec'; exec "$TOP/bin/mcount-record", '-q', '-j', '2', @objs; }
        POSIX::_exit(127);
    }
    my @started;
    for (1 .. 300) { @started = glob("$wd/ld.*"); last if @started >= 2; sleep 0.05 }
    is(scalar @started, 2, 'mcount-record -j 2: two workers reached ld');
    kill 'TERM', $pid;
    waitpid $pid, 0;
    is($? & 127, POSIX::SIGTERM(), "mcount-record -j 2, SIGTERM: died of the signal") or diag "status $?";
    is_deeply([leftovers($d)], [], 'mcount-record -j 2, SIGTERM: the workers removed their temporary files');
    is_deeply([grep { slurp($_) ne $before } @objs], [], 'mcount-record -j 2, SIGTERM: every object unchanged');
}

done_testing();
