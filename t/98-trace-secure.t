#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# The tracer turned against the program or its user (t/src/trace/secure.c,
# preloaded and linked in), as a hostile user or an unlucky one would:
# - a set-user-ID root program linked with libmcount-trace.a, run by an
#   unprivileged user (made here, removed at the end) with the library's
#   variables set: they are ignored (said once), root writes no file and
#   makes no directory of the user's choosing, and the program's own use
#   of the C API still works;
# Oracle: the files, directories and messages each case must (not) leave.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use POSIX ();
use TestUtil qw(must run_cmd tmpdir slurp spit);
use TraceTest qw($SO $LIBA $RTINC $TSRC clean_env mcc_build link_prog traced wait_for start_bg stop_bg
    mt_cli);

die "t/98 runs as root: it makes a user and a set-user-ID root program\n" if $> != 0;
clean_env();
my $dir = tmpdir();
chmod 0755, $dir or die "$dir: $!";     # the user's programs are in it
my $ctl = "$dir/ctl";
$ENV{MCOUNT_TRACE_DIR} = $ctl;

# ---- an unprivileged user, removed at the end whatever happens ----
my $user = "mt98u$$";
my $made_user;
END {
    local $?;
    system('userdel', '-f', $user) if $made_user;
}
$SIG{$_} = sub { exit 1 } for qw(INT TERM HUP);
must('useradd', '-M', '-N', '-d', '/nonexistent', '-s', '/bin/sh', $user);
$made_user = 1;
my ($uid, $gid) = (getpwnam $user)[2, 3];
die "useradd $user: no such user afterwards\n" unless defined $uid;
my @as_user = ('setpriv', "--reuid=$uid", "--regid=$gid", '--clear-groups', '--');

mcc_build('-pg -mfentry', "$dir/secure.o", "$TSRC/secure.c", '-O2', "-I$RTINC");
my $prog = link_prog("$dir/secure", "$dir/secure.o");
my $prog_a = link_prog("$dir/secure-a", "$dir/secure.o", $LIBA, '-pthread');
my @ways = (['preloaded', $prog, 1], ['linked in', $prog_a, 0]);

# run_way(WAY, [ARGS], ENV, TIMEOUT) -> (status, stdout, stderr)
sub run_way {
    my ($way, $args, $env, $t) = @_;
    return traced([$way->[1], @$args], preload => $way->[2], env => $env, timeout => $t // 30);
}

# the sum secure.c prints for "calls N"
sub sum_of { my ($n) = @_; return "sum " . ($n * $n) . "\n" }

# ---- AT_SECURE: a set-user-ID root program, run by the user ----
{
    my $suid = "$dir/secure-suid";
    must('cp', $prog_a, $suid);
    chmod 04755, $suid or die "$suid: $!";
    my $vault = "$dir/vault";
    mkdir $vault, 0700 or die "$vault: $!";
    spit("$vault/secret", "root's own\n");
    my $made = "$dir/made-by-root";
    my ($st, $out, $err) = run_cmd(['timeout', '-k', '5', '30', @as_user, $suid, 'api'], env => {
        MCOUNT_TRACE_OUTPUT => "$vault/secret", MCOUNT_TRACE_DIR => $made, MCOUNT_TRACE_BUFFER => 'x',
        MCOUNT_TRACE_FILTER => 'work' });
    is($st, 0, 'set-user-ID: the program runs to its end') or diag $err;
    is(slurp("$vault/secret"), "root's own\n",
        'set-user-ID: MCOUNT_TRACE_OUTPUT does not have root write a file of the user\'s choosing');
    ok(!-e $made, 'set-user-ID: MCOUNT_TRACE_DIR does not have root make a directory');
    my @said = $err =~ /^(mcount-trace: \S+ ignored, as every variable of the tracer's: the program runs with privileges .*)$/mg;
    is(scalar @said, 1, 'set-user-ID: the variables ignored, said once') or diag $err;
    is_deeply([grep { !/ ignored, as every variable/ } split /\n/, $err], [], 'set-user-ID: nothing else said');
    like($out, qr/\Asum 25\n/, 'set-user-ID: the program\'s own output');
    is(scalar(() = $out =~ /: work <-main$/mg), 5, 'set-user-ID: the C API still traces, for the program itself');
    # with no variable set: nothing said, and no control directory made
    # by root in the user's name
    local %ENV = %ENV;
    delete $ENV{MCOUNT_TRACE_DIR};
    my $udir = "/tmp/mcount-trace-$uid";
    die "$udir: there before the user was made\n" if -e $udir;
    ($st, $out, $err) = run_cmd(['timeout', '-k', '5', '30', @as_user, $suid, 'api']);
    my $made_udir = -e $udir;
    system('rm', '-rf', $udir) if $made_udir;
    is($st, 0, 'set-user-ID, no variable: the program runs to its end') or diag $err;
    ok(!$made_udir, 'set-user-ID, no variable: no control directory made (as root, in the user\'s name)');
    is($err, '', 'set-user-ID, no variable: nothing said');
}

done_testing();
