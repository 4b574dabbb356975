#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# The tracer turned against the program or its user (t/src/trace/secure.c,
# preloaded and linked in), as a hostile user or an unlucky one would:
# - a set-user-ID root program linked with libmcount-trace.a (or needing
#   libmcount-trace.so), run by an unprivileged user (made here, removed
#   at the end) with the library's variables set: they are ignored (said
#   once), root writes no file and makes no directory of the user's
#   choosing, and the program's own use of the C API still works;
# - the output file: a symbolic link another user planted in a shared
#   directory is not followed, a FIFO does not hang the program before
#   main, the trace is created 0600, and a forked child's FILE.PID found
#   there already is not written into;
# - a control directory too long for a socket's address is refused by
#   the library and by mcount-trace alike, never cut;
# - a full file system (a tmpfs of 64 KiB in a mount namespace) is said
#   once, and the events lost counted at exit;
# - in a chroot without /proc, an enable that fails leaves status saying
#   the function is not traced.
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
# (libmcount-trace.a linked in, and libmcount-trace.so as a library the
# program needs: LD_PRELOAD is not read for it)
{
    mkdir "$dir/lib" or die "$dir/lib: $!";
    must('cp', $SO, "$dir/lib/");
    symlink('libmcount-trace.so', "$dir/lib/libmcount-trace.so.0") or die "$dir/lib: $!";   # (its SONAME)
    my $prog_so = link_prog("$dir/secure-so", "$dir/secure.o", '-Wl,--no-as-needed', "-L$dir/lib", '-lmcount-trace',
        "-Wl,-rpath,$dir/lib");
    my $vault = "$dir/vault";
    mkdir $vault, 0700 or die "$vault: $!";
    for my $way (['linked in', $prog_a], ['shared library', $prog_so]) {
        my $tag = "set-user-ID, $way->[0]";
        my $suid = "$way->[1]-suid";
        must('cp', $way->[1], $suid);
        chmod 04755, $suid or die "$suid: $!";
        spit("$vault/secret", "root's own\n");
        my $made = "$dir/made-by-root";
        my ($st, $out, $err) = run_cmd(['timeout', '-k', '5', '30', @as_user, $suid, 'api'], env => {
            MCOUNT_TRACE_OUTPUT => "$vault/secret", MCOUNT_TRACE_DIR => $made, MCOUNT_TRACE_BUFFER => 'x',
            MCOUNT_TRACE_FILTER => 'work' });
        is($st, 0, "$tag: the program runs to its end") or diag $err;
        is(slurp("$vault/secret"), "root's own\n",
            "$tag: MCOUNT_TRACE_OUTPUT does not have root write a file of the user's choosing");
        ok(!-e $made, "$tag: MCOUNT_TRACE_DIR does not have root make a directory");
        my @said = $err =~ /^(mcount-trace: \S+ ignored, as every variable of the tracer's: the program runs with privileges .*)$/mg;
        is(scalar @said, 1, "$tag: the variables ignored, said once") or diag $err;
        is_deeply([grep { !/ ignored, as every variable/ } split /\n/, $err], [], "$tag: nothing else said");
        like($out, qr/\Asum 25\n/, "$tag: the program's own output");
        is(scalar(() = $out =~ /: work <-main$/mg), 5, "$tag: the C API still traces, for the program itself");
        # with no variable set: nothing said, and no control directory
        # made by root in the user's name
        local %ENV = %ENV;
        delete $ENV{MCOUNT_TRACE_DIR};
        my $udir = "/tmp/mcount-trace-$uid";
        system('rm', '-rf', $udir) if -e $udir;     # (a user removed before, of the same ID)
        ($st, $out, $err) = run_cmd(['timeout', '-k', '5', '30', @as_user, $suid, 'api']);
        my $made_udir = -e $udir;
        system('rm', '-rf', $udir) if $made_udir;
        is($st, 0, "$tag, no variable: the program runs to its end") or diag $err;
        ok(!$made_udir, "$tag, no variable: no control directory made (as root, in the user's name)");
        is($err, '', "$tag, no variable: nothing said");
    }
}

# ---- the output file ----
{
    my $shared = "$dir/shared";
    mkdir $shared or die "$shared: $!";
    chmod 0777, $shared or die "$shared: $!";        # no sticky bit: fs.protected_symlinks does not apply
    my $victim = "$dir/victim";
    must(@as_user, 'ln', '-s', $victim, "$shared/trace.txt");
    POSIX::mkfifo("$dir/fifo", 0600) or die "mkfifo: $!";
    for my $way (@ways) {
        my $tag = $way->[0];
        my $t = $tag =~ tr/ /-/r;
        # a symbolic link planted by another user
        spit($victim, "the victim's file\n");
        my ($st, $out, $err) = run_way($way, ['calls', 10], { MCOUNT_TRACE_OUTPUT => "$shared/trace.txt",
            MCOUNT_TRACE_FILTER => 'work' });
        is($st, 0, "$tag, planted symbolic link: the program runs to its end") or diag $err;
        is($out, sum_of(10), "$tag, planted symbolic link: its output is its own");
        is(slurp($victim), "the victim's file\n", "$tag, planted symbolic link: not followed");
        like($err, qr{^mcount-trace: \Q$shared\E/trace\.txt: a symbolic link, not followed: the trace is not written$}m,
            "$tag, planted symbolic link: said");
        # a FIFO: refused at once, not waited on before main
        my $t0 = time;
        ($st, $out, $err) = run_way($way, ['calls', 10], { MCOUNT_TRACE_OUTPUT => "$dir/fifo",
            MCOUNT_TRACE_FILTER => 'work' }, 8);
        is($st, 0, "$tag, a FIFO: the program runs to its end, at once") or diag "status $st after ", time - $t0, " s";
        is($out, sum_of(10), "$tag, a FIFO: its output is its own");
        like($err, qr{^mcount-trace: \Q$dir\E/fifo: not a regular file \(a FIFO, a device, a socket\.\.\.\): the trace is not written$}m,
            "$tag, a FIFO: said");
        # the trace: 0600, whatever the umask
        my $trace = "$dir/own-$t.txt";
        ($st, $out, $err) = run_way($way, ['calls', 10], { MCOUNT_TRACE_OUTPUT => $trace, MCOUNT_TRACE_FILTER => 'work' });
        is($st, 0, "$tag, new trace: the program runs to its end") or diag $err;
        is(scalar(() = slurp($trace) =~ /: work <-main$/mg), 10, "$tag, new trace: the events written");
        is(sprintf('%04o', (stat $trace)[2] & 07777), '0600', "$tag, new trace: created 0600");
        # a child's FILE.PID there before the child's first event
        my $pt = "$dir/planted-$t.txt";
        ($st, $out, $err) = run_way($way, ['planted', $pt], { MCOUNT_TRACE_OUTPUT => $pt, MCOUNT_TRACE_FILTER => 'work' });
        is($st, 0, "$tag, FILE.PID there already: the program and its child run to their end") or diag $err;
        my ($child) = $out =~ /^done (\d+)$/m;
        $child //= 'none';
        is(-e "$pt.$child" ? slurp("$pt.$child") : '(none)', "planted\n", "$tag, FILE.PID there already: not written into");
        like($err, qr{^mcount-trace: \Q$pt.$child\E: there already \(another's, or left by an earlier run\): this process's trace is not written$}m,
            "$tag, FILE.PID there already: said");
        is(scalar(() = slurp($pt) =~ /: work <-main$/mg), 1, "$tag, FILE.PID there already: the parent's trace is whole");
    }
}

# ---- a control directory too long for a socket's address ----
# (MCOUNT_TRACE_DIR, and XDG_RUNTIME_DIR, under which the directory is
# XDG_RUNTIME_DIR/mcount-trace)
{
    my $long = "$dir/" . ('d' x 120);
    for my $case (['MCOUNT_TRACE_DIR', $long], ['XDG_RUNTIME_DIR', "$long/mcount-trace"]) {
        my ($var, $cdir) = @$case;
        local %ENV = %ENV;
        delete $ENV{MCOUNT_TRACE_DIR};
        $ENV{$var} = $long;
        for my $way (@ways) {
            my $tag = "$way->[0], too long a $var";
            unlink "$dir/long.out", "$dir/long.err";
            my $pid = start_bg([$way->[1], 'wait'], out => "$dir/long.out", err => "$dir/long.err",
                env => { $way->[2] ? (LD_PRELOAD => $SO) : () });
            wait_for(20, sub { -s "$dir/long.out" });
            opendir(my $dh, $dir) or die "$dir: $!";
            my @cut = grep { /\Ad+\z/ } readdir $dh;
            closedir $dh;
            is_deeply(\@cut, [], "$tag: no directory made under a cut name");
            like(slurp("$dir/long.err"), qr{^mcount-trace: $var: '\Q$long\E': too long a directory for the control socket \(DIR/PID has more than 107 bytes\): no control channel$}m,
                "$tag: the library says so");
            my ($code, $out, $err) = mt_cli('status', $pid);
            is($code, 1, "$tag: mcount-trace status fails");
            like($err, qr{^mcount-trace: $pid: control directory \Q$cdir\E is too long for a socket: \Q$cdir/$pid\E has \d+ bytes, more than the 107 of a socket's address$}m,
                "$tag: mcount-trace says the same");
            kill 'TERM', $pid;
            stop_bg($pid, 20);
            system('rm', '-rf', map { "$dir/$_" } @cut) if @cut;
        }
    }
}

# ---- a full file system ----
{
    my $full = "$dir/full";
    mkdir $full or die "$full: $!";
    for my $way (@ways) {
        my $tag = $way->[0];
        my ($st, $out, $err) = run_cmd(['unshare', '-m', 'sh', '-c',
            'mount -t tmpfs -o size=64k mt98 "$1" && shift && exec "$@"', 'sh', $full,
            'timeout', '-k', '5', '30', 'env', $way->[2] ? "LD_PRELOAD=$SO" : (), "MCOUNT_TRACE_OUTPUT=$full/trace.txt",
            'MCOUNT_TRACE_FILTER=work', $way->[1], 'loop', 1500]);
        is($st, 0, "$tag, a full file system: the program runs to its end") or diag $err;
        is($out, "done\n", "$tag, a full file system: its output is its own");
        my @said = $err =~ /^(mcount-trace: \Q$full\E\/trace\.txt: No space left on device: events are lost until the trace can be written again .*)$/mg;
        is(scalar @said, 1, "$tag, a full file system: said once") or diag scalar(split /\n/, $err), " lines, such as:\n",
            join("\n", (split /\n/, $err)[0 .. 2]);
        like($err, qr{^mcount-trace: \Q$full\E/trace\.txt: [1-9]\d* events lost: they could not be written \(No space left on device\)$}m,
            "$tag, a full file system: the events lost counted at exit");
        # (the drains that fail may be slower than the calls: buffers fill)
        is_deeply([grep { !/events are lost until|events lost: (they could not be written|their threads' buffers were full)/ }
            split /\n/, $err], [], "$tag, a full file system: nothing else said");
    }
}

# ---- a chroot without /proc: a failed enable leaves status true ----
{
    my $jail = "$dir/jail";
    mkdir $jail or die "$jail: $!";
    for my $way (@ways) {
        my $tag = $way->[0];
        unlink "$dir/jail.out", "$dir/jail.err";
        my $pid = start_bg([$way->[1], 'chroot', $jail], out => "$dir/jail.out", err => "$dir/jail.err",
            env => { $way->[2] ? (LD_PRELOAD => $SO) : () });
        wait_for(20, sub { -s "$dir/jail.out" });
        my ($code, $out, $err) = mt_cli('enable', $pid, 'work');
        is($code, 1, "$tag, chroot without /proc: enable fails");
        like($err, qr/^mcount-trace: $pid: cannot change the code: /m, "$tag, chroot without /proc: and says why");
        ($code, $out, $err) = mt_cli('status', $pid);
        is($code, 0, "$tag, chroot without /proc: status answers") or diag $err;
        like($out, qr/^functions traced: 0$/m, "$tag, chroot without /proc: status says work is not traced");
        kill 'TERM', $pid;
        stop_bg($pid, 20);
    }
}

done_testing();
