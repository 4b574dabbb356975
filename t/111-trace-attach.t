#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# mcount-trace attach: libmcount-trace.so brought into a process that
# was started plainly (t/src/trace/attachee.c: built with -pg -mfentry
# through mcount-cc, neither linked to the library nor preloaded; 4
# workers fenced in rounds, a spinner that never stops, SIGALRM every
# 2 ms, each call and signal counted by the program itself):
#  - attach while SIGRTMIN is sent to the process every half millisecond
#    (queued signals: none merged), and while it is blocked reading its
#    commands (a read interrupted by the attach, which must be
#    restarted: SA_RESTART, so a failed read is an error of its own):
#    attach prints the status (the library's), the library is mapped,
#    the program answers as before, and it counted every SIGRTMIN sent;
#  - enable work, a round of 4 x 1000 calls, show: the trace's calls of
#    work are the program's own count of them, none of leaf (not
#    enabled); disable, a round: none more; a second attach says the
#    library is loaded already and prints the status;
#  - the program's output and exit status are those of a run with the
#    same commands and no attach;
#  - the lock hazard, made on purpose: a thread sleeps 3 s in a
#    dl_iterate_phdr callback, holding the lock of the dynamic linker's
#    list of objects that dlopen takes: attach succeeds once it is let
#    go (the other threads let go after 2 s), its sleep (its thread
#    blocks every signal the program has a handler for) was restarted
#    by the kernel where the attach interrupted it (3 s in all, no
#    EINTR), and the trace of a round is the program's count;
#  - a program that waits for its input as most do (t/src/trace/
#    linereader.c: stdio's fgets, its buffer from malloc, whose return
#    addresses its frames still hold): attach in its read, enable its
#    function, the trace's calls are its lines, its output as before;
#  - a thread that blocks SIGTRAP by the system call (as glibc's new
#    thread does for a moment), in tracing stop through the attach:
#    every site made a NOP all the same (read in its memory);
#  - the library preloaded from another path: that copy is the one,
#    said, and no second library is loaded beside it;
#  - refusals, each said, the target untouched (its /proc/PID/maps the
#    same, and it goes on): a process under strace (by whom), a PID
#    with no process, a static program (no dlopen in it), another
#    user's process (attach run as nobody), a bad PID.
use strict;
use warnings;
use Test::More;
use File::Copy ();
use POSIX ();
use lib 't/lib';
use TestUtil qw(tmpdir slurp);
use TraceTest qw($SO $TSRC clean_env mcc_build link_prog start_bg stop_bg wait_for mt_cli site_bytes);

clean_env();
my $dir = tmpdir();
chmod 0755, $dir;
my $ctl = "$dir/ctl";
mkdir $ctl, 0700 or die "$ctl: $!";
my %DIR = (MCOUNT_TRACE_DIR => $ctl);

my $prog = "$dir/attachee";
mcc_build('-pg -mfentry', "$prog.o", "$TSRC/attachee.c", '-O2');
link_prog($prog, "$prog.o", '-lpthread');

# A session with the program: (PID, command handle, reply handle); its
# stdout and stderr in FILE.out, FILE.err.
my $n = 0;
sub start_session {
    my (@wrap) = @_;
    $n++;
    my ($c, $r) = ("$dir/cmd$n", "$dir/reply$n");
    POSIX::mkfifo($_, 0600) or die "mkfifo $_: $!" for $c, $r;
    my $pid = start_bg([@wrap, $prog, $c, $r], out => "$dir/s$n.out", err => "$dir/s$n.err", env => { %DIR });
    open(my $ch, '>', $c) or die "$c: $!";
    open(my $rh, '<', $r) or die "$r: $!";
    $ch->autoflush(1);
    return ($pid, $ch, $rh, "$dir/s$n");
}

# A command's answer (undef: none in 20 s).
sub ask {
    my ($s, $line) = @_;
    my ($ch, $rh) = @$s[1, 2];
    print {$ch} "$line\n";
    local $SIG{ALRM} = sub { die "no answer\n" };
    alarm 20;
    my $a = eval { scalar <$rh> };
    alarm 0;
    chomp $a if defined $a;
    return $a;
}

# The end of a session: (exit status, stdout, stderr).
sub end_session {
    my ($s) = @_;
    my $bye = ask($s, 'quit');
    close $s->[1];
    close $s->[2];
    my $st = stop_bg($s->[0], 30);
    return ($st, slurp("$s->[3].out"), slurp("$s->[3].err"), $bye);
}

my $script = sub {
    my ($s, $between) = @_;
    my @a = (ask($s, 'run 100'));
    $between->() if $between;
    push @a, ask($s, 'run 1000'), ask($s, 'run 100');
    return @a;
};

# ---- a run with no attach ------------------------------------------------------
my ($base_st, $base_out, $base_err, @base);
{
    my @s = start_session();
    @base = $script->(\@s);
    ($base_st, $base_out, $base_err) = end_session(\@s);
    is($base_st, 0, 'plain run: exit 0') or diag $base_err;
    is_deeply(\@base, ['done work=400 leaf=400', 'done work=4000 leaf=4000', 'done work=400 leaf=400'],
        'plain run: the rounds the program counts');
}

# ---- attach ----------------------------------------------------------------------
{
    my @s = start_session();
    my $pid = $s[0];
    my @answers;
    my ($ok_sigs, $sent, $status, $att_err, $att_st, $shown, $after);
    my @a = $script->(\@s, sub {
        my $maps = slurp("/proc/$pid/maps");
        unlike($maps, qr/libmcount-trace/, 'before attach: the library is not in the process');
        # SIGRTMIN every half millisecond through the attach
        my $stop = "$dir/stop-sender";
        my $count = "$dir/sent";
        my $sender = fork // die "fork: $!";
        if (!$sender) {
            my $k = 0;
            until (-e $stop) {
                kill(POSIX::SIGRTMIN(), $pid) or last;
                $k++;
                select undef, undef, undef, 0.0005;
            }
            if (open(my $fh, '>', $count)) { print {$fh} $k; close $fh }
            POSIX::_exit(0);
        }
        select undef, undef, undef, 0.05;
        my $t0 = time;
        ($att_st, $status, $att_err) = mt_cli({ %DIR }, 'attach', $pid);
        if (open(my $fh, '>', $stop)) { close $fh }
        waitpid $sender, 0;
        $sent = slurp($count);
        is($att_st, 0, 'attach: exit 0') or diag $att_err;
        is($att_err, '', 'attach: nothing on standard error');
        like($status, qr/^pid: $pid\nprogram: attachee\nobjects with tables: 1\n/, 'attach prints the status');
        like($status, qr/^sites: 11$/m, 'the status: the program\'s 11 sites');
        like($status, qr/^sites refused: 0$/m, 'the status: none refused');
        like(slurp("/proc/$pid/maps"), qr/libmcount-trace\.so/, 'after attach: the library is mapped');
        cmp_ok($sent, '>', 10, "SIGRTMIN sent through the attach: $sent");
        # (queued signals not yet taken are taken soon: asked again)
        my $sigs;
        wait_for(5, sub { $sigs = ask(\@s, 'sigs'); ($sigs // '') =~ /rt=(\d+)/ && $1 >= $sent });
        like($sigs, qr/^sigs rt=$sent alarm=[1-9]\d*$/, 'every SIGRTMIN sent was handled, once; SIGALRM too');
        ($att_st, $status, $att_err) = mt_cli({ %DIR }, 'status', $pid);
        like($status, qr/^functions traced: 0$/m, 'status: nothing traced yet');
        ($att_st, my $o, my $e) = mt_cli({ %DIR }, 'enable', $pid, 'work');
        is($att_st, 0, 'enable work: exit 0') or diag $e;
        (undef, $o) = mt_cli({ %DIR }, 'show', $pid);
        is($o, '', 'show: nothing traced before the round');
    });
    is($a[1], 'done work=4000 leaf=4000', 'the round after enable: the program counts 4000 calls of work');
    {
        my ($st, $o, $e) = mt_cli({ %DIR }, 'show', $pid);
        is($st, 0, 'show: exit 0') or diag $e;
        my $works = () = $o =~ /^\s*attachee-\d+\s+\[\d+\]\s+[\d.]+: work <-worker$/mg;
        my $leaves = () = $o =~ /: leaf <-/g;
        # (the rounds before and after: 400 each, enabled for the middle one only)
        is($works, 4000 + 400, "the trace's calls of work: the program's own count, 4000 + 400 (the round after)")
            or diag substr($o, 0, 2000);
        is($leaves, 0, 'no call of leaf (not enabled)');
    }
    my ($st, $o, $e) = mt_cli({ %DIR }, 'disable', $pid, 'work');
    is($st, 0, 'disable work: exit 0') or diag $e;
    is(ask(\@s, 'run 50'), 'done work=200 leaf=200', 'a round after disable');
    (undef, $o) = mt_cli({ %DIR }, 'show', $pid);
    is($o, '', 'show: no call after disable');
    ($st, $o, $e) = mt_cli({ %DIR }, 'attach', $pid);
    is($st, 0, 'a second attach: exit 0');
    like($e, qr/^mcount-trace: $pid: libmcount-trace\.so is loaded in it already$/, 'a second attach says so');
    like($o, qr/^pid: $pid$/m, 'and prints the status');
    my ($end_st, $end_out, $end_err) = end_session(\@s);
    is($end_st, 0, 'attached: exit 0, as the plain run') or diag $end_err;
    my $want = $base_out =~ s/(work calls: )(\d+)/$1 . ($2 + 200)/er =~ s/(leaf calls: )(\d+)/$1 . ($2 + 200)/er;
    is($end_out, $want, 'attached: its output is the plain run\'s (with the round after disable)');
    is($end_err, '', 'attached: nothing on standard error');
}

# ---- the lock hazard ----------------------------------------------------------------
{
    my @s = start_session();
    my $pid = $s[0];
    is(ask(\@s, 'hold 3000'), 'holding', 'a thread holds the lock of the list of objects, for 3 s');
    my $t0 = time;
    my ($st, $o, $e) = mt_cli({ %DIR }, 'attach', $pid);
    is($st, 0, 'attach while the lock is held: exit 0, once it is let go') or diag $e;
    like($o, qr/^sites: 11$/m, 'attach while the lock is held: the status');
    like(ask(\@s, 'held'), qr/^held (?:3\d{3}) ms$/,
        'the holder slept its 3 s, its sleep (no signal handler on its thread) restarted by the kernel where the attach stopped it, no EINTR');
    mt_cli({ %DIR }, 'enable', $pid, 'leaf');
    is(ask(\@s, 'run 25'), 'done work=100 leaf=100', 'the program goes on');
    (undef, $o) = mt_cli({ %DIR }, 'show', $pid);
    my $leaves = () = $o =~ /: leaf <-/g;
    is($leaves, 100, "the trace's calls of leaf: the program's count");
    my ($end_st, undef, $end_err) = end_session(\@s);
    is($end_st, 0, 'exit 0') or diag $end_err;
}

# ---- refusals ------------------------------------------------------------------------
# maps before and after, the program still answering
sub refused_ok {
    my ($what, $s, $pid, $re) = @_;
    my $maps = slurp("/proc/$pid/maps");
    my ($st, $o, $e) = @_[4 .. 6];
    is($st, 1, "$what: exit 1");
    like($e, $re, "$what: says why");
    is($o, '', "$what: no status printed");
    is(slurp("/proc/$pid/maps"), $maps, "$what: the process's maps unchanged");
    is(ask($s, 'run 10'), 'done work=40 leaf=40', "$what: the program goes on") if $s;
    return;
}

{
    my @s = start_session('strace', '-f', '-o', '/dev/null');
    my $spid = $s[0];
    # the program: strace's child, once it is running
    my $pid;
    wait_for(10, sub {
        ($pid) = map { /(\d+)/ } grep { /\S/ } map { split ' ', slurp($_) // '' }
            glob "/proc/$spid/task/*/children";
        $pid;
    });
    ok($pid, "the program under strace ($spid) runs: $pid");
    ask(\@s, 'run 1');
    my $maps = slurp("/proc/$pid/maps");
    my ($st, $o, $e) = mt_cli({ %DIR }, 'attach', $pid);
    is($st, 1, 'under strace: exit 1');
    like($e, qr/^mcount-trace: $pid: refused: traced already by process $spid \(strace\)/,
        'under strace: refused, naming strace and its PID');
    is($o, '', 'under strace: no status printed');
    is(slurp("/proc/$pid/maps"), $maps, "under strace: the process's maps unchanged");
    is(ask(\@s, 'run 10'), 'done work=40 leaf=40', 'under strace: the program goes on');
    my ($end_st) = end_session(\@s);
    is($end_st, 0, 'under strace: exit 0');
}

{
    my $gone = fork // die "fork: $!";
    POSIX::_exit(0) unless $gone;
    waitpid $gone, 0;
    my ($st, $o, $e) = mt_cli({ %DIR }, 'attach', $gone);
    is($st, 1, 'no such process: exit 1');
    like($e, qr/^mcount-trace: $gone: refused: no such process$/, 'no such process: said');
}

{
    my $static = "$dir/attachee-static";
    link_prog($static, "$prog.o", '-static', '-lpthread');
    # (it waits in the open of its command FIFO, which no one opens)
    POSIX::mkfifo("$dir/nofifo-c", 0600) or die "mkfifo: $!";
    my $pid = start_bg([$static, "$dir/nofifo-c", "$dir/nofifo-r"], env => { %DIR }, err => "$dir/static.err");
    # (blocked there: its FILE made, the open waiting)
    wait_for(10, sub { (slurp("/proc/$pid/stat") // '') =~ /\) S / && (slurp("/proc/$pid/maps") // '') =~ /\[heap\]/ });
    my $maps = slurp("/proc/$pid/maps");
    my ($st, $o, $e) = mt_cli({ %DIR }, 'attach', $pid);
    is($st, 1, 'a static program: exit 1');
    like($e, qr/^mcount-trace: $pid: refused: no dlopen in any object it has mapped \(a statically linked program\)/,
        'a static program: refused, saying why');
    is(slurp("/proc/$pid/maps"), $maps, "a static program: the process's maps unchanged");
    ok(kill(0, $pid), 'a static program: it runs on');
    kill 'KILL', $pid;
    stop_bg($pid, 10);
}

{
    # another user's process: attach run as nobody (setpriv), the target
    # the tests' own (root's); when the tests do not run as root, PID 1
    my @s = start_session();
    my $pid = $> == 0 ? $s[0] : 1;
    my $maps = slurp("/proc/$pid/maps") // '';
    my ($st, $e);
    {
        local %ENV = (%ENV, %DIR);
        my @as = $> == 0 ? ('setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--') : ();
        my $out = `@as $^X $TraceTest::MT attach $pid 2>&1`;
        ($st, $e) = ($? >> 8, $out);
    }
    is($st, 1, "another user's process: exit 1");
    like($e, qr/^mcount-trace: $pid: refused: another user's process \(user \d+\)/,
        "another user's process: refused, naming its user") or diag $e;
    is(slurp("/proc/$pid/maps") // '', $maps, "another user's process: its maps unchanged");
    is(ask(\@s, 'run 10'), 'done work=40 leaf=40', "another user's process: the program goes on");
    end_session(\@s);
}

# ---- a program waiting in read() for its input, after stdio's malloc ----
{
    my $lr = "$dir/linereader";
    mcc_build('-pg -mfentry', "$lr.o", "$TSRC/linereader.c", '-O2');
    link_prog($lr, "$lr.o");
    my $in = "$dir/lr.in";
    POSIX::mkfifo($in, 0600) or die "mkfifo $in: $!";
    my $pid = start_bg([$lr], in => $in, out => "$dir/lr.out", err => "$dir/lr.err", env => { %DIR });
    open(my $w, '>', $in) or die "$in: $!";
    $w->autoflush(1);
    ok(wait_for(10, sub { -e "$dir/lr.out" && slurp("$dir/lr.out") =~ /^ready$/m }), 'linereader: ready, about to read');
    select undef, undef, undef, 0.1;
    my ($st, $o, $e) = mt_cli({ %DIR }, 'attach', $pid);
    is($st, 0, 'a program waiting in read() after stdio took its buffer: attach exits 0') or diag $e;
    ($st, $o, $e) = mt_cli({ %DIR }, 'enable', $pid, 'line_seen');
    is($st, 0, 'linereader: enable line_seen') or diag $e;
    print {$w} "line $_\n" for 1 .. 7;
    my $calls = 0;
    wait_for(10, sub {
        my ($s2, $t) = mt_cli({ %DIR }, 'show', $pid);
        $calls = () = ($t // '') =~ /\bline_seen <-/g;
        $calls >= 7;
    });
    is($calls, 7, "linereader: the trace's calls of line_seen are its 7 lines");
    close $w;
    is(stop_bg($pid, 30), 0, 'linereader: exit 0');
    is(slurp("$dir/lr.out"), "ready\nlines 7\n", 'linereader: its output as without the attach');
}

# ---- a thread that blocks SIGTRAP, stopped by the attach ----
{
    my $tb = "$dir/trapblocker";
    mcc_build('-pg -mfentry', "$tb.o", "$TSRC/trapblocker.c", '-O2');
    link_prog($tb, "$tb.o", '-lpthread');
    my $in = "$dir/tb.in";
    POSIX::mkfifo($in, 0600) or die "mkfifo $in: $!";
    my $pid = start_bg([$tb], in => $in, out => "$dir/tb.out", err => "$dir/tb.err", env => { %DIR });
    open(my $w, '>', $in) or die "$in: $!";
    ok(wait_for(10, sub { -e "$dir/tb.out" && slurp("$dir/tb.out") =~ /^ready$/m }), 'trapblocker: ready');
    my @before = site_bytes($pid, $tb);
    is(scalar(grep { /^(?:e8|ff15)/ } @before), 3, "trapblocker: its 3 sites call the C library's hook")
        or diag "@before";
    my ($st, $o, $e) = mt_cli({ %DIR }, 'attach', $pid);
    is($st, 0, 'a thread blocks SIGTRAP (stopped meanwhile): attach exits 0') or diag $e;
    my @after = site_bytes($pid, $tb);
    is(scalar(grep { /^(?:e8|ff15)/ } @after), 0, 'trapblocker: every site made a NOP all the same')
        or diag "@after";
    close $w;
    is(stop_bg($pid, 30), 0, 'trapblocker: exit 0');
    unlike(slurp("$dir/tb.err") // '', qr/blocks SIGTRAP|cannot change the code/,
        'trapblocker: the library refused no change');
}

# ---- the library preloaded from another path: that copy is the one ----
{
    my $copy = "$dir/copy-of-the-library.so";
    # (a copy, not a link: another file, as another build's would be)
    File::Copy::copy($SO, $copy) or die "copy $SO: $!";
    my $in = "$dir/lr2.in";
    POSIX::mkfifo($in, 0600) or die "mkfifo $in: $!";
    my $pid = start_bg(["$dir/linereader"], in => $in, out => "$dir/lr2.out", err => "$dir/lr2.err",
        env => { %DIR, LD_PRELOAD => $copy });
    open(my $w, '>', $in) or die "$in: $!";
    ok(wait_for(10, sub { -e "$dir/lr2.out" && slurp("$dir/lr2.out") =~ /^ready$/m }), 'preloaded copy: ready');
    select undef, undef, undef, 0.1;
    my ($st, $o, $e) = mt_cli({ %DIR }, 'attach', $pid);
    is($st, 0, 'the library preloaded from another path: attach exits 0') or diag $e;
    like($e, qr/^mcount-trace: $pid: copy-of-the-library\.so is loaded in it already$/m,
        'preloaded copy: said, that copy taken as the library');
    my @libs = grep { /\.so/ && /library|libmcount-trace/ } split /\n/, slurp("/proc/$pid/maps") // '';
    is(scalar(grep { !/copy-of-the-library/ } @libs), 0, 'preloaded copy: no second library loaded beside it')
        or diag join "\n", @libs;
    close $w;
    is(stop_bg($pid, 30), 0, 'preloaded copy: exit 0');
}

{
    my ($st, $o, $e) = mt_cli({ %DIR }, 'attach', 'x1');
    is($st, 2, 'a bad PID: usage error');
    like($e, qr/'x1' is not a process ID/, 'a bad PID: said');
    ($st, $o, $e) = mt_cli({ %DIR }, 'attach');
    is($st, 2, 'no PID: usage error');
}

done_testing();
