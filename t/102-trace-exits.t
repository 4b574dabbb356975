#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# What a tracer user meets at the edges of a program
# (t/src/trace/qexit.c, which counts its own calls and says where its
# functions return to):
#  - A program that ends by _exit or _Exit (no atexit handler, no
#    destructor: a shell's -c, or f(); _exit(0)) loses no event of its
#    own count and leaves no socket in the control directory, run or
#    preloaded, in the text and Chrome formats (the document closed),
#    forked (the child's file too), behind sh -c, and linked in with
#    -Wl,--wrap=_exit,--wrap=_Exit.  A process killed by SIGKILL does
#    leave its socket (nothing of it runs), which the next process of
#    the user removes as it makes its own; and that one leaves alone
#    what is not a socket of a process gone: a live PID's, one that
#    something listens on, a file.
#  - A caller outside every symbol (main's, in the C library's start-up
#    code; a destructor's, in the dynamic linker) is named FILE+0xADDR,
#    in text, JSON and Chrome alike: FILE and ADDR are what the kernel's
#    /proc/PID/maps and readelf -l of the file make of the return
#    address the program itself saw.
#  - Calls of the hook from sites in no table (a program built with
#    gcc -pg -mfentry, not through mcount-cc) are not events: never
#    [LOST N EVENTS] nor "events lost", however small the buffers; they
#    are counted, and the count said at exit is the program's own count
#    of its calls.  A program with no table and no call of a hook (no
#    -pg at all) and no library recorded is said to be so, once, by the
#    first process, and not by a shell around it; one that calls a
#    recorded library is traced there, and nothing is said.
use strict;
use warnings;
no warnings 'portable';    # 64-bit addresses through hex()
use Test::More;
use JSON::PP ();
use lib 't/lib';
use POSIX ();
use Socket qw(AF_UNIX SOCK_STREAM pack_sockaddr_un);
use TestUtil qw(must run_cmd tmpdir slurp);
use TraceTest qw($MT $SO $LIBA $TSRC clean_env mcc_build link_prog traced read_text read_json wait_for start_bg stop_bg);

clean_env();
my $dir = tmpdir();
my $ctl = "$dir/ctl";

my $prog = link_prog("$dir/qexit", mcc_build('-pg -mfentry', "$dir/qexit.o", "$TSRC/qexit.c", '-O2'));

# The name FILE+0xADDR of a run-time address, from a copy of the
# process's /proc/PID/maps (the mapping that holds it: its file and the
# offset in the file) and the file's program headers (the PT_LOAD
# segment that holds that offset: the address in the file).
sub file_address {
    my ($maps, $at) = @_;
    for (split /\n/, $maps) {
        my ($lo, $hi, $perm, $off, $path) = /\A([0-9a-f]+)-([0-9a-f]+) (\S+) ([0-9a-f]+) \S+ \d+\s+(\/\S+)\z/
            or next;
        next unless $at >= hex($lo) && $at < hex($hi) && $perm =~ /x/;
        my $foff = $at - hex($lo) + hex($off);
        my ($st, $out) = run_cmd(['readelf', '-lW', $path], env => { LC_ALL => 'C' });
        for (split /\n/, $out) {
            my ($o, $va, $fs) = /\A\s+LOAD\s+0x([0-9a-f]+) 0x([0-9a-f]+) 0x[0-9a-f]+ 0x([0-9a-f]+) /
                or next;
            next unless $foff >= hex($o) && $foff < hex($o) + hex($fs);
            return ($path =~ s{.*/}{}r) . sprintf('+%#x', $foff - hex($o) + hex($va));
        }
    }
    return "no mapping holds $at";
}

# The control directory's entries.
sub sockets {
    opendir(my $d, $ctl) or return '';
    return join ' ', sort grep { !/\A\.\.?\z/ } readdir $d;
}

# The functions of a text trace and how many events each.
sub counts {
    my ($file) = @_;
    return { missing => $file } unless -e $file;
    my ($ev, $errs) = read_text($file);
    my %n;
    $n{ exists $_->{lost} ? 'LOST' : "$_->{func} <-$_->{parent}" }++ for @$ev;
    $n{"error: $_"}++ for @$errs;
    return \%n;
}

# ---- _exit and _Exit ----
{
    for my $how (qw(_exit _Exit)) {
        for my $via ('run', 'preloaded') {
            my $t = "$dir/q$how-$via.txt";
            unlink $t;
            my ($st, $out, $err) = $via eq 'run'
                ? run_cmd([$^X, $MT, 'run', '-f', 'f', '-o', $t, '--', $prog, $how, 1000], env => { MCOUNT_TRACE_DIR => $ctl })
                : traced([$prog, $how, 1000], env => { MCOUNT_TRACE_FILTER => 'f', MCOUNT_TRACE_OUTPUT => $t,
                    MCOUNT_TRACE_DIR => $ctl });
            is("$st $out$err", "0 main 1001\n", "$how, $via: runs, f called 1000 times");
            is_deeply(counts($t), { 'f <-main' => 1000 }, "$how, $via: every call of f in the trace");
            is(sockets(), '', "$how, $via: no socket left");
        }
    }
    # the Chrome document is closed
    my $t = "$dir/qexit.json";
    my ($st, $out, $err) = run_cmd([$^X, $MT, 'run', '-f', 'f', '--format=chrome', '-o', $t, '--', $prog, '_exit', 7],
        env => { MCOUNT_TRACE_DIR => $ctl });
    my $doc = eval { JSON::PP->new->decode(slurp($t)) } // {};
    is(scalar(grep { $_->{name} eq 'f' && $_->{ph} eq 'i' } @{ $doc->{traceEvents} // [] }), 7,
        '_exit, chrome: a whole document, every call of f in it');
    # forked, the child _exits too
    $t = "$dir/qfork.txt";
    ($st, $out, $err) = run_cmd([$^X, $MT, 'run', '-f', 'f', '-o', $t, '--', $prog, 'fork', 300],
        env => { MCOUNT_TRACE_DIR => $ctl });
    is("$st $out$err", "0 main 301\nchild 300\n", 'fork: runs');
    my @kids = glob("$t.*");
    is(scalar @kids, 1, 'fork: the child wrote a file of its own');
    is_deeply([counts($t), map { counts($_) } @kids], [{ 'f <-main' => 300 }, { 'f <-main' => 300 }],
        'fork: every call of f of each process in its file');
    is(sockets(), '', 'fork: no socket left');
    # behind sh -c (dash _exits: its socket, and the program's trace)
    $t = "$dir/qsh.txt";
    ($st, $out, $err) = run_cmd([$^X, $MT, 'run', '-f', 'f', '-o', $t, '--', 'sh', '-c', "$prog _exit 20; echo done"],
        env => { MCOUNT_TRACE_DIR => $ctl });
    is("$st $out$err", "0 main 21\ndone\n", 'sh -c: runs');
    @kids = glob("$t.*");
    is_deeply([map { counts($_) } @kids], [{ 'f <-main' => 20 }], 'sh -c: every call of f in the program\'s file');
    is(sockets(), '', 'sh -c: no socket left, the shell\'s nor the program\'s');
    # linked in, with the C library's _exit wrapped at the link
    my $qa = link_prog("$dir/qexit_a", "$dir/qexit.o", $LIBA, '-Wl,--wrap=_exit,--wrap=_Exit', '-pthread');
    for my $how (qw(_exit _Exit)) {
        $t = "$dir/qa$how.txt";
        ($st, $out, $err) = run_cmd([$qa, $how, 50], env => { MCOUNT_TRACE_DIR => $ctl, MCOUNT_TRACE_FILTER => 'f',
            MCOUNT_TRACE_OUTPUT => $t });
        is("$st $out$err", "0 main 51\n", "linked in, --wrap, $how: runs");
        is_deeply(counts($t), { 'f <-main' => 50 }, "linked in, --wrap, $how: every call of f in the trace");
        is(sockets(), '', "linked in, --wrap, $how: no socket left");
    }
}

# ---- what no exit can do: SIGKILL ----
{
    my $w = "$dir/wait";
    mkdir $w or die "$w: $!";
    my $pid = start_bg([$prog, 'wait', 1, $w], env => { LD_PRELOAD => $SO, MCOUNT_TRACE_DIR => $ctl,
        MCOUNT_TRACE_OUTPUT => '' }, out => "$w/out");
    ok(wait_for(60, sub { -e "$w/ready" }), 'SIGKILL: the program is running');
    ok(-S "$ctl/$pid", 'SIGKILL: its socket is there');
    kill 'KILL', $pid;
    stop_bg($pid);
    ok(-S "$ctl/$pid", 'SIGKILL: its socket is left (nothing of the process ran)');
    # what the next process must leave: a socket named by a live PID,
    # one of a PID gone that something listens on (another PID
    # namespace's), a file named by a PID gone; and what it removes, a
    # socket of a PID gone that nothing listens on
    my @gone;
    for (1 .. 3) {
        my $p = fork // die;
        POSIX::_exit(0) unless $p;
        waitpid $p, 0;
        push @gone, $p;
    }
    my $bind = sub {
        my ($name, $listen) = @_;
        socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die "socket: $!";
        bind($s, pack_sockaddr_un("$ctl/$name")) or die "bind $ctl/$name: $!";
        listen($s, 1) or die "listen: $!" if $listen;
        return $s;
    };
    my $live = $bind->($$, 0);
    my $listening = $bind->($gone[0], 1);
    { my $s = $bind->($gone[1], 0); close $s; }
    open(my $fh, '>', "$ctl/$gone[2]") or die;
    close $fh;
    my ($st, $out, $err) = traced([$prog, '_exit', 1], env => { MCOUNT_TRACE_DIR => $ctl, MCOUNT_TRACE_OUTPUT => '' });
    is("$st $out$err", "0 main 2\n", 'the next process runs');
    is(sockets(), join(' ', sort $$, $gone[0], $gone[2]), 'the next process removed the sockets of processes gone, '
        . 'and nothing else');
    close $live;
    close $listening;
    unlink "$ctl/$$", "$ctl/$gone[0]", "$ctl/$gone[2]";
}

# ---- callers outside every symbol ----
for my $fmt (qw(text json chrome)) {
    my $t = "$dir/names.$fmt";
    unlink "$dir/maps";
    my ($st, $out, $err) = traced([$prog, 'return', 3, $dir], env => { MCOUNT_TRACE_FILTER => 'main,prog_dtor',
        MCOUNT_TRACE_FORMAT => $fmt, MCOUNT_TRACE_OUTPUT => $t, MCOUNT_TRACE_DIR => $ctl });
    is("$st $err", '0 ', "names, $fmt: runs, nothing said");
    my %ret = $out =~ /^(main-ret|dtor-ret) (0x[0-9a-f]+)$/mg;
    my $maps = -e "$dir/maps" ? slurp("$dir/maps") : '';
    my %want = (main => file_address($maps, hex($ret{'main-ret'} // 0)),
        prog_dtor => file_address($maps, hex($ret{'dtor-ret'} // 0)));
    like($want{main}, qr/\Alibc\.so\.6\+0x[0-9a-f]+\z/, "names, $fmt: main returns into the C library");
    like($want{prog_dtor}, qr/\Ald-linux-x86-64\.so\.2\+0x[0-9a-f]+\z/,
        "names, $fmt: the destructor returns into the dynamic linker");
    my %got;
    if ($fmt eq 'text') {
        my ($ev, $errs) = read_text($t);
        is_deeply($errs, [], "names, $fmt: every line well formed");
        $got{ $_->{func} } = $_->{parent} for @$ev;
    } elsif ($fmt eq 'json') {
        my ($ev, $errs) = read_json($t);
        is_deeply($errs, [], "names, $fmt: every line well formed");
        for (@$ev) {
            $got{ $_->{func} } = $_->{parent};
            my $r = $ret{ $_->{func} eq 'main' ? 'main-ret' : 'dtor-ret' } // '';
            is($_->{parent_addr}, $r, "names, $fmt: $_->{func}'s parent_addr is where it returned to");
        }
    } else {
        my $doc = eval { JSON::PP->new->decode(slurp($t)) } // {};
        $got{ $_->{name} } = $_->{args}{parent} for grep { $_->{ph} eq 'i' } @{ $doc->{traceEvents} // [] };
    }
    is_deeply(\%got, \%want, "names, $fmt: each parent is FILE+0xADDR, the address in the file it returns to");
}

# ---- calls from sites in no table ----
{
    must('gcc', '-O2', '-pg', '-mfentry', '-c', "$TSRC/qexit.c", '-o', "$dir/notab.o");
    my $notab = link_prog("$dir/notab", "$dir/notab.o");
    my $t = "$dir/notab.txt";
    my ($st, $out, $err) = run_cmd([$^X, $MT, 'run', '-b', 16, '-f', '*', '-o', $t, '--', $notab, 'return', 1000],
        env => { MCOUNT_TRACE_DIR => $ctl });
    my ($main) = $out =~ /^main (\d+)$/m;
    is("$st " . ($main // 'none'), '0 1001', 'no table: runs, main and f entered 1001 times');
    # (and prog_dtor once more, at exit)
    is($err, "mcount-trace: notab: calls the hook but has no __mcount_loc table: none of its functions can be "
        . "traced (build it through mcount-cc, or with GCC's -mrecord-mcount)\n"
        . 'mcount-trace: ' . (($main // 0) + 1) . " calls from sites in no table were not traced (code built with "
        . "-pg but not recorded)\n", 'no table: said, and the calls counted as the program counts them, none lost');
    my ($ev, $errs) = -e $t ? read_text($t) : ([], ['no trace']);
    is_deeply([$ev, $errs], [[], []], 'no table: the trace has no event and no lost one');

    # no -pg at all
    must('gcc', '-O2', '-o', "$dir/plain", "$TSRC/qexit.c");
    my $said = "mcount-trace: plain: has no __mcount_loc table and calls no hook (built without -pg?), nor has a "
        . "library it loaded a table: nothing can be traced but in a library it opens later\n";
    ($st, $out, $err) = run_cmd([$^X, $MT, 'run', '-o', '', '--', "$dir/plain", '_exit', 3],
        env => { MCOUNT_TRACE_DIR => $ctl });
    is("$st $out$err", "0 main 4\n$said", 'no -pg (run): said, once');
    ($st, $out, $err) = traced(["$dir/plain", 'fork', 3], env => { MCOUNT_TRACE_DIR => $ctl, MCOUNT_TRACE_OUTPUT => '' });
    is("$st $out$err", "0 main 4\nchild 3\n$said", 'no -pg (preloaded, forks): said by the first process only');
    ($st, $out, $err) = run_cmd([$^X, $MT, 'run', '-o', '', '--', 'sh', '-c', "$dir/plain _exit 3; $dir/plain _exit 2"],
        env => { MCOUNT_TRACE_DIR => $ctl });
    is("$st $out$err", "0 main 4\nmain 3\n", 'no -pg, run by a shell: nothing said, by the shell or by the program');
    # one that calls a library recorded (t/101's): traced there, nothing said
    mcc_build('-pg -mfentry', "$dir/verlib.o", "$TSRC/verlib.c", '-O2', '-fPIC');
    link_prog("$dir/libverlib.so", '-shared', "$dir/verlib.o", "-Wl,--version-script=$TSRC/verlib.map");
    link_prog("$dir/vermain", "$TSRC/vermain.c", "-L$dir", "-Wl,-rpath,$dir", '-lverlib');
    ($st, $out, $err) = run_cmd([$^X, $MT, 'run', '-f', 'vplain', '-o', "$dir/ver.txt", '--', "$dir/vermain"],
        env => { MCOUNT_TRACE_DIR => $ctl });
    is($st . ' ' . $err, '0 ', 'no -pg, with a recorded library: nothing said');
    is_deeply(counts("$dir/ver.txt"), { 'vplain <-main' => 3 }, 'no -pg, with a recorded library: traced there');
}

done_testing();
