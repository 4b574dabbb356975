#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# Faults, through all three front ends: the pipeline killed (SIGINT,
# SIGTERM, SIGKILL) after each step and during the rename, a full disk,
# failing and missing tools.  Afterwards the object is the original or the
# completely recorded one (GCC's table, nothing else changed), and no
# temporary file is left except after SIGKILL, when the next run must still
# record correctly.  mcount-cc removes an object it could not record, so
# for it "missing" takes the place of "original" (except after SIGKILL).
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use POSIX ();
use lib 't/lib';
use TestUtil qw($TOP $SRC run_cmd must compile tmpdir slurp spit leftovers which);
use Harden qw(@FRONT_ENDS front_end sig_wrapper oracle_of is_recorded state_of script);

our $MOUNTED;    # unmounted however the test ends
END { system('umount', $MOUNTED) if $MOUNTED }

my $dir = tmpdir();
my $wd = tmpdir();    # wrappers and marks, away from the objects
my @flags = ('-O2', '-pg', '-mfentry', '-ffunction-sections');
my $orig = compile("$SRC/corpus.c", "$wd/orig.o", @flags);
my $oracle = oracle_of("$SRC/corpus.c", "$wd/gcc.o", @flags);
my $helper = "$TOP/build/mcount-scan";

my %real = (objdump => 'objdump', objcopy => 'objcopy', as => 'as', cc => 'gcc', ld => 'ld');
$_ = which($_) // die "$_ not found\n" for values %real;
$real{helper} = $helper;

# step => [tools replaced by the wrapper, what their arguments contain]
my @steps = (
    ['after objdump',    ['objdump'],   '/dev/fd/'],
    ['after the helper', ['helper'],    '--plan'],
    ['after assembling', ['as', 'cc'],  '.tmp_mc_'],
    ['after globalize',  ['objcopy'],   '--globalize-symbol'],
    ['after ld -r',      ['ld'],        ' -r '],
    ['after localize',   ['objcopy'],   '--localize-symbol'],
);

my $have_strace = -x '/usr/bin/strace';
if (!$have_strace) {
    die "strace is needed for the rename case (scripts/deps/fault.list)\n" if $ENV{CI};
    diag "\n*** strace not installed: the 'during the rename' cases are NOT tested ***\n";
}

sub expect_state {
    my ($fe, $sig, $state, $name, $may_be_recorded) = @_;
    my @ok = ($sig eq 'KILL' || $fe ne 'mcc') ? ('original') : ('missing');
    push @ok, 'recorded' if $may_be_recorded;
    ok((grep { $_ eq $state } @ok), "$name: object is " . join(' or ', @ok)) or diag "it is $state";
    return;
}

for my $fe (@FRONT_ENDS) {
    for my $sig (qw(INT TERM KILL)) {
        my $signum = POSIX->can("SIG$sig")->();
        for my $step (@steps, ['during the rename']) {
            my ($sname, $tools, $match) = @$step;
            my $name = "$fe, SIG$sig $sname";
            my $obj = "$dir/obj.o";
            copy($orig, $obj) or die;
            my (%tools, @wrap);
            my $mark = "$wd/mark";
            unlink $mark;
            if ($tools) {
                for my $t (@$tools) {
                    $tools{$t} = sig_wrapper("$wd/wrap-$t", $real{$t}, $match, $sig, $mark);
                }
            } else {
                next unless $have_strace;
                @wrap = ('strace', '-qq', '-o', '/dev/null', '-e', 'trace=rename,renameat,renameat2',
                    '-e', "inject=rename,renameat,renameat2:signal=$sig");
                spit($mark, '');
            }
            my ($st) = front_end($fe, $obj, tools => \%tools, wrap => \@wrap);
            ok(-e $mark, "$name: the step was reached");
            is($st & 127, $signum, "$name: died of SIG$sig") or diag "status $st";
            # before the rename the original is still in place; during it,
            # the rename is done or not (INT and TERM are handled after it)
            my $state = state_of($obj, $orig, $oracle);
            expect_state($fe, $sig, $state, $name, !$tools);
            select undef, undef, undef, 0.5 if $sig eq "KILL";    # orphans finish
            my @left = leftovers($dir);
            if ($sig ne 'KILL') {
                is_deeply(\@left, [], "$name: no temporary files");
                next;
            }
            # what SIGKILL leaves must not confuse the next run
            copy($orig, $obj) or die if $state ne 'original' && $state ne 'recorded';
            my ($st2, undef, $err2) = front_end($fe, $obj);
            is($st2, 0, "$name: the next run succeeds") or diag $err2;
            is_deeply([is_recorded($obj, $orig, $oracle)], [], "$name: and records the object completely");
            is_deeply([sort(leftovers($dir))], [sort @left], "$name: and adds no temporary file");
            unlink map { "$dir/$_" } @left;
        }
    }
}

# Killed while recording the same object again after a SIGKILL left files
# with exactly the names the next run will use: they are overwritten.
{
    my $obj = "$dir/again.o";
    copy($orig, $obj) or die;
    my $stem = "$dir/.tmp_mc_again.o";
    # the next child's PID cannot be known; plant leftovers for a range of them
    my $next = do { my $p = fork // die; if (!$p) { POSIX::_exit(0) } waitpid $p, 0; $p };
    my @planted;
    for my $pid ($next + 1 .. $next + 40) {
        for my $x (qw(s o g r l)) {
            spit("$stem.$pid.0.$x", "garbage from a killed run\n");
            push @planted, ".tmp_mc_again.o.$pid.0.$x";
        }
    }
    my ($st, undef, $err) = front_end('pl', $obj);
    is($st, 0, 'stale leftovers with the same names: recorded') or diag $err;
    note scalar(grep { !-e "$dir/$_" } @planted) . " planted leftovers had the names the run used";
    is_deeply([is_recorded($obj, $orig, $oracle)], [], 'stale leftovers with the same names: complete table');
    unlink map { "$dir/$_" } leftovers($dir);
}

# mcount-record -j 2 interrupted as make's Ctrl-C would be (the signal to
# the whole process group) while its workers, forked from it, relink:
# everyone dies of the signal, nothing is left behind, every object is the
# original or completely recorded.
# The same signal to mcount-record alone (kill PID): it stops its workers
# and waits for them before it dies, so nothing is left even at that
# moment.
for my $case (map { my $s = $_; map { [$s, $_] } qw(group parent) } qw(INT TERM)) {
    my ($sig, $to) = @$case;
    my @objs = map { "$dir/j$_.o" } 1 .. 6;
    copy($orig, $_) or die for @objs;
    my $mark = "$wd/mark-j";
    unlink $mark;
    # (the wrapper passes a signal on to its ld and waits for it, as
    # mcount-record does with its children: a shell that died alone
    # would leave its ld writing a temporary file after the worker that
    # named it removed it; $!, not $ld: a signal may come between the
    # fork and the assignment)
    my $ld = script("$wd/group-ld", <<"SH");
#!/bin/sh
ld=
trap '[ -n "\$!" ] && kill -TERM \$! 2>/dev/null; wait; exit 143' TERM INT
'$real{ld}' "\$@" &
ld=\$!
wait \$ld
st=\$?
ld=
touch '$mark'
if [ '$to' = group ]; then kill -$sig -\$(ps -o pgid= \$\$ | tr -d ' '); else kill -$sig \$MR_PID; fi
sleep 0.2
exit \$st
SH
    my $pid = fork // die;
    if (!$pid) {
        setpgrp(0, 0);
        open STDOUT, '>', '/dev/null';
        open STDERR, '>', "$wd/j.err";
        $ENV{LD} = $ld;
        $ENV{MR_PID} = $$;
        { no warnings "exec"; exec "$TOP/bin/mcount-record", "-q", "-j", "2", @objs; }
        POSIX::_exit(127);
    }
    waitpid $pid, 0;
    my $st = $?;
    my $name = "mcount-record -j 2, SIG$sig to the $to";
    # (a worker that outlived mcount-record would still have its files)
    my @left = leftovers($dir);
    ok(-e $mark, "$name: a worker relinked");
    is($st & 127, POSIX->can("SIG$sig")->(), "$name: died of it")
        or diag "status $st: " . slurp("$wd/j.err");
    is_deeply(\@left, [], "$name: no temporary files when it has died");
    select undef, undef, undef, 0.3;    # orphaned sleeps of the wrapper end
    my @bad = grep { state_of($_, $orig, $oracle) !~ /^(original|recorded)\z/ } @objs;
    is_deeply(\@bad, [], "$name: every object original or recorded");
    unlink @objs, map { "$dir/$_" } leftovers($dir);    # a failure here fails no later check
}

# The rename itself fails (as on a full or read-only file system): a clear
# error, the original in place, nothing left behind.
SKIP: {
    skip 'no strace', 3 * @FRONT_ENDS unless $have_strace;
    for my $fe (@FRONT_ENDS) {
        my $obj = "$dir/ren.o";
        copy($orig, $obj) or die;
        my ($st, undef, $err) = front_end($fe, $obj, wrap => ['strace', '-qq', '-o', '/dev/null',
            '-e', 'trace=rename,renameat,renameat2', '-e', 'inject=rename,renameat,renameat2:error=EIO']);
        is($st >> 8, $fe eq 'mcc' ? 100 : 1, "$fe, rename fails: exit status");
        like($err, qr/\Q$obj\E: cannot replace the object: Input\/output error/, "$fe, rename fails: message");
        is_deeply([leftovers($dir)], [], "$fe, rename fails: no temporary files");
        unlink $obj;
    }
}

# A full disk: a small tmpfs holding the object, filled so that each step in
# turn runs out of space.  Every run ends in a clear error with the
# original intact (mcount-cc: removed) and nothing left behind.
SKIP: {
    my $mnt = tmpdir();
    my $size = 1024 * 1024;
    my $mounted = $> == 0 && system('mount', '-t', 'tmpfs', '-o', "size=$size", 'tmpfs', $mnt) == 0;
    $MOUNTED = $mnt if $mounted;
    if (!$mounted) {
        die "disk-full test: cannot mount a tmpfs (needs root)\n" if $ENV{CI};
        diag "\n*** cannot mount a tmpfs (not root?): the disk-full test is SKIPPED ***\n";
        skip 'cannot mount a tmpfs', 1;
    }
    # a mid-sized object, so that free space can fall between the steps
    my $src = "$wd/mid.c";
    spit($src, join '', map { "static int s$_(int x) { return x * $_; }\n"
        . "int g$_(int x) { return s$_(x) + $_; }\n" } 1 .. 300);
    my @mflags = ('-O0', '-pg', '-ffunction-sections');
    my $mid = compile($src, "$wd/mid.o", @mflags);
    my $moracle = oracle_of($src, "$wd/mid.gcc.o", @mflags);
    my $len = length slurp($mid);
    my %failed_at;
    for my $fe (@FRONT_ENDS) {
        for my $free (4096, 16384, int($len / 2), $len + 16384, 2 * $len + 32768) {
            my $name = "$fe, disk full with $free bytes free";
            my $obj = "$mnt/obj.o";
            unlink $obj, "$mnt/fill";
            copy($mid, $obj) or die;
            # fill the rest; tmpfs counts whole pages
            my (undef, undef, undef, $avail) = split ' ', (split /\n/, `df -B1 $mnt`)[1];
            my $fill = $avail - $free;
            if ($fill > 0) {
                open(my $fh, '>', "$mnt/fill") or die;
                print {$fh} "\0" x $fill;
                close $fh;
            }
            my ($st, undef, $err) = front_end($fe, $obj);
            is($st >> 8, $fe eq 'mcc' ? 100 : 1, "$name: fails") or diag $err;
            like($err, qr/No space left on device|write error|file truncated|out of space/i,
                "$name: the message says so") or diag $err;
            $failed_at{$1}++ if $err =~ /^\S+: (?:error: )?\S+: (\S.*?) failed \(/m || $err =~ /: (cannot replace|write error|cannot write)/;
            my $state = state_of($obj, $mid, $moracle);
            is($state, $fe eq 'mcc' ? 'missing' : 'original', "$name: object unchanged");
            is_deeply([leftovers($mnt)], [], "$name: no temporary files");
        }
    }
    note 'steps that ran out of space: ' . join ', ', map { "$_ ($failed_at{$_})" } sort keys %failed_at;
    ok(keys %failed_at >= 2, 'the disk ran full at more than one step');
    system('umount', $mnt) == 0 and undef $MOUNTED;
}

# A failing or missing tool, through each front end.
for my $fe (@FRONT_ENDS) {
    my $obj = "$dir/tool.o";
    my $fail = script("$wd/fail-objcopy", "#!/bin/sh\necho 'fail-objcopy: no luck' >&2\nexit 1\n");
    for my $c (['objcopy exits 1', { objcopy => $fail }, qr/globalizing anchors failed \(fail-objcopy exited 1\)\n  fail-objcopy: no luck/],
               ['ld missing', { ld => "$wd/no-such-ld" }, qr/no-such-ld: not found|no-such-ld/],
               ['as missing', { as => "$wd/no-such-as", cc => "$wd/no-such-as" }, qr/no-such-as/],
               ['objdump missing', { objdump => "$wd/no-such-objdump" }, qr/no-such-objdump/]) {
        my ($cname, $tools, $re) = @$c;
        copy($orig, $obj) or die;
        my ($st, undef, $err) = front_end($fe, $obj, tools => $tools);
        is($st >> 8, $fe eq 'mcc' ? 100 : 1, "$fe, $cname: fails") or diag $err;
        like($err, $re, "$fe, $cname: message") or diag $err;
        is(state_of($obj, $orig, $oracle), $fe eq 'mcc' ? 'missing' : 'original', "$fe, $cname: object unchanged");
        is_deeply([leftovers($dir)], [], "$fe, $cname: no temporary files");
    }
}

done_testing();
