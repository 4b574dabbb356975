# SPDX-License-Identifier: GPL-2.0-or-later
package SysTrace;
# The tracer's checks in booted guests (t/79-trace-system.t, a row of
# guests.tab each), in one boot each: the jobs' builds (a cross compiler
# through mcount-cc) and, after the boot, the checks of their results;
# the check sets a row names, run by guest_run (at the end), are written
# once, here:
#
#  oracle: t/src/trace/oracle.c built with -pg and -finstrument-functions;
#    traced with every function on, the trace is the enter log, function
#    and parent, event for event, names nm's; no filter, no event; the
#    output is the plain build's.  Variants: [NAME, CFLAGS, LDFLAGS, so|a,
#    {ENV of the job}, {ENV of mcount-cc}, GRAPH]: preloaded (switched on
#    at start-up) or linked in (switched on live from main by the C API,
#    after a constructor ran a site as NOP).  Under function_graph (a
#    variant with GRAPH, or every one): the trace against the enter and
#    exit log (cyg_graph.c).
#  hazards: function_graph through what a hijacked return must survive,
#    preloaded: longjmp, siglongjmp, fork, backtrace(), pthread_exit,
#    cancellation (t/src/trace/hazards.c), C++ exceptions through the
#    unwinder's interposers (unwind.cc): frames left are marked unwound,
#    never given an exit; each against its enter and exit log.
#  toggle: t/src/trace/toggle.c, threads running hot functions while main
#    switches them on and off (the file says how; its checks below).
#  tear: t/src/trace/sys/tear.c, how often another thread sees a 4-byte
#    write through /proc/self/mem half made, the word 4-byte and 2-byte
#    aligned: why a site may change by one store (aarch64) or not
#    (riscv64).  Shown, not judged: it is the machine's business.
#  stale: t/src/trace/sys/stale.c, whether the machine runs the code a
#    process has after the kernel copied its page, when another process
#    had other code at the same address (QemuSystem's own_text).
#  plug: a -pg shared library (t/src/trace/plug.c) beside a program
#    that calls it, preloaded: its own PLT entry or GOT slot of the hook,
#    bound lazily or at start-up; each event of its functions, by name,
#    with its parent.
#  hooks: t/src/trace/hooks.c, a program that hooks its own functions
#    (mcount_hook(3)) and counts their calls itself, linked with the
#    static library, each build the module names: two hooks' counts
#    against the functions' own while 8 threads run and a filter
#    changes; register and unregister cycles under load; longjmp through
#    hooked frames; callbacks that change every register a called
#    function may (the arguments and values the functions check
#    themselves); live patching, or ENOTSUP where the site is after the
#    prologue; the errors of mcount-hooks.h.
#  stat: the function profiler (MCOUNT_TRACE_STAT, mcount-trace run
#    --stat) on t/src/trace/statcount.c, whose functions count their own
#    calls, built as the guest's first hooks build (whose returns the hooks
#    find), preloaded and linked in: no call left or lost, none without a
#    time (on mips, every call of a function that calls none), each
#    function's hits its own count, no function's own time more than its
#    time (and its time less its callees' where those are not in one
#    another), each caller's time at least its callees' together, the table
#    in the order of its key, a filter's functions alone; where the counts
#    would be 32-bit words, the profiler refused (ENOTSUP) and the program
#    run as it is.
use strict;
use warnings;
no warnings 'portable';    # 64-bit addresses through hex()
use Test::More;

use Exporter 'import';
use TestUtil qw($TOP must run_cmd spit tmpdir have);
use QemuSystem qw(%SYS sys_missing sys_boot);
use RecordMcount::Arch qw(arch_row);
use TraceTest qw($MCC $RTINC $TSRC read_json nm_funcs func_at bias_of show_seq first_diff against_cyg
    graph_compare graph_from_main hazards_unwound $HAZARDS_UNWOUND $UNWIND_UNWOUND
    read_log read_text_args read_json_args against_log @ARGS_PROTO %ARGS_NAMES trace_seqs read_graph_json read_cyg_graph
    stat_table);

our @EXPORT_OK = qw(entry_log_ok sys_start boot_checks machine_checks mcc_cc json_of read_cyg job_files oracle_jobs
    oracle_checks graph_checks hazards_jobs hazards_checks @HAZARDS_LIBS %GRAPH_ENV toggle_jobs toggle_checks
    tear_jobs tear_notes static_ldflags args_jobs args_checks lua_jobs lua_checks trace_bias badsite_job
    badsite_checks stripped_job stripped_checks plug_jobs plug_checks plug_trace_is hooks_jobs hooks_checks stat_jobs
    stat_checks guest_run
    @CHECK_SETS);

# sys_start(GUEST, lib => DIR of libmcount-trace.{so,a}, tools => [[TOOL,
# its package]...]) -> a temporary directory, or undef: what is missing
# to test the tracer in GUEST (a row of guests.tab) fails the test,
# named (no skip); the tracer's and mcount-cc's variables are cleared.
my $ARCH;    # the guest sys_start named

sub sys_start {
    my ($arch, %o) = @_;
    $ARCH = $arch;
    my @m = grep { $_ ne '' } sys_missing($arch);
    push @m, map { "$_->[0] ($_->[1])" } grep { !have($_->[0]) } @{ $o{tools} // [] };
    push @m, "$o{lib}/libmcount-trace.so and .a: run make rt-$SYS{$arch}{tracer}"
        unless -f "$o{lib}/libmcount-trace.so" && -f "$o{lib}/libmcount-trace.a";
    if (@m) {
        fail(join '; ', @m);
        return undef;
    }
    delete $ENV{$_} for grep { /^(MCOUNT_TRACE_|MCOUNT_CC_)/ } keys %ENV;
    return tmpdir();
}


# static_ldflags() -> the flags that link a static program for the
# system: '-static', and where the machine may run stale code
# (QemuSystem's own_text) an address of the program's own for its text,
# a new one at each call.
my $own_text = 0x1000000;
sub static_ldflags {
    return ('-static', $SYS{$ARCH}{own_text} ? sprintf('-Wl,-Ttext-segment=%#x', $own_text += 0x1000000) : ());
}

# boot_checks(LABEL, BOOT_FN, OPTIONS...) -> the boot's results: the
# boot (QemuSystem's sys_boot for a guest, or sys_native) with OPTIONS,
# and that it ran every job and that every file came whole over the
# console (QemuSystem).
sub boot_checks {
    my ($label, $boot, @opt) = @_;
    my $t0 = time;
    my ($r, $console, $st) = $boot->(@opt);
    ok($r->{'(done)'}, "${label}the machine booted, ran every job and powered off (" . (time - $t0) . ' s)')
        or diag "qemu status $st; console:\n" . substr($console, -3000);
    is_deeply($r->{'(damaged)'} // [], [], "${label}every file came whole over the console");
    ok(!$r->{'(hung)'}, "${label}no job outlived its time limit")
        or diag join '', map { "$_\n" } 'killed at the limit (job, thread, state, wchan, /proc syscall, '
            . 'where its program counter is):', hung_where($r->{'(hung)'}, {@opt}->{files} // {});
    # (where the boot's time went, for prove -v)
    note(sprintf '%-24s %8d ms ran %8d ms sent', @$_) for @{ $r->{'(time)'} // [] };
    return $r;
}

# hung_where([init.c's '@@@hung' lines], { GUEST_PATH => HOST_FILE }) ->
# the threads' lines, each with its program counter's function and line
# where addr2line finds them in the mapped file (an ET_EXEC program at
# the address itself, any other object at its offset in the mapping),
# then the mappings.
sub hung_where {
    my ($lines, $files) = @_;
    my (@maps, @out);
    for (@$lines) {
        push @maps, [hex $1, hex $2, hex $3, $4] if /\A\S+ map ([0-9a-f]+)-([0-9a-f]+) \S+ ([0-9a-f]+) \S+ \d+\s+(\S+)/;
    }
    my $a2l = ($ARCH ? "$SYS{$ARCH}{triple}-" : '') . 'addr2line';
    for my $l (grep { !/\A\S+ map / } @$lines) {
        my ($pc) = $l =~ /(0x[0-9a-f]+)\z/;
        my ($m) = grep { defined $pc && hex($pc) >= $_->[0] && hex($pc) < $_->[1] } @maps;
        my $host = $m && $files->{ $m->[3] };
        if ($host && -f $host && open(my $fh, '<:raw', $host)) {
            read($fh, my $eh, 18);
            my $exec = length($eh) == 18 && unpack('C', substr($eh, 5, 1)) == 2
                ? unpack('n', substr($eh, 16, 2)) == 2 : unpack('v', substr($eh, 16, 2)) == 2;
            my $at = sprintf '%#x', $exec ? hex $pc : hex($pc) - $m->[0] + $m->[2];
            my (undef, $w) = run_cmd([$a2l, '-f', '-C', '-e', $host, $at]);
            $l .= " ($m->[3]+$at: " . join(' ', split /\n/, $w) . ')';
        }
        push @out, $l;
    }
    return (@out, grep { /\A\S+ map / } @$lines);
}

# machine_checks($r, dir => TMP, qemu_user => QEMU, sysroot => the cross
# C library's, ldso => the dynamic linker's path, from the root: the
# interpreter its programs name, as "lib/ld-linux-aarch64.so.1") -> the plain program's
# output under qemu-user.  The machine runs code changed through
# /proc/self/mem (the smc job: "f 1 2 3"; qemu-user "f 1 1 1"), tear.c's
# notes, and the plain build of oracle.c (oracle_jobs) runs in the guest
# through its dynamic linker as under qemu-user.
sub machine_checks {
    my ($r, %o) = @_;
    my ($dir, $qemu) = @o{qw(dir qemu_user)};
    is($r->{smc}{status}, 0, 'smc exits 0') or diag $r->{smc}{stderr} // '';
    is($r->{smc}{stdout}, "f 1 2 3\n",
        'the emulated machine runs code changed through /proc/self/mem (as the tracer writes it)');
    tear_notes($r);
    my ($sst, $sout) = run_cmd(['timeout', '60', $qemu, "$dir/smc"]);
    is($sout, "f 1 1 1\n", "$qemu does not (why the test boots a kernel)");
    my ($rst, $rel) = run_cmd(['readelf', '-l', "$dir/plain"]);
    like($rel, qr{program interpreter: /\Q$o{ldso}\E\]},
        'the plain program is dynamically linked, through the interpreter the guest has');
    my ($ust, $uout, $uerr) = run_cmd(['timeout', '60', $qemu, '-L', $o{sysroot}, "$dir/plain", 3]);
    is($ust, 0, "under $qemu the plain program exits 0") or diag $uerr;
    like($uout, qr/\Aresult -?\d+ \d+\.\d{4}\n\z/, "under $qemu it prints one result line") or diag $uout;
    my $p = $r->{plain} // {};
    is($p->{status}, $ust, 'in the guest it exits as under qemu-user') or diag $p->{stderr} // '';
    is($p->{stdout}, $uout, 'in the guest it prints what it prints under qemu-user');
    is($p->{stderr}, '', 'and nothing on stderr');
    return ($uout, $ust);
}

# mcount-cc with a cross compiler (the object gets its table; g++
# records at the link, so a C++ program is linked through it too).
sub mcc_cc {
    my ($cc, $out, @args) = @_;
    my ($st, $o, $e) = run_cmd([$MCC, $cc, @args, '-o', $out]);
    die "mcount-cc $cc @args failed ($st):\n$o$e" if $st != 0;
    return $out;
}

# A trace file's data (undef: not written) read as JSON lines.
sub json_of {
    my ($dir, $data) = @_;
    return ([], ['no trace file']) unless defined $data;
    my $f = "$dir/json." . rand();
    spit($f, $data);
    return read_json($f);
}

# cyg.c's log: (main's address, [[function, parent]...]).
sub read_cyg {
    my ($data) = @_;
    my @l = split /\n/, $data // '';
    my ($main) = (shift(@l) // '') =~ /\Amain (0x[0-9a-f]+)\z/ or return (undef, []);
    return (hex $main, [map { /\A(0x[0-9a-f]+) (0x[0-9a-f]+)\z/ ? [hex $1, hex $2] : [0, 0] } @l]);
}

# oracle_jobs(cc => CC, lib => DIR of libmcount-trace.{so,a}, dir => TMP,
#   files => \%files, variants => [...], graph => every variant also as
#   NAME-g, with the enter and exit log, under function_graph) -> jobs;
#   the plain build is /plain, its job 'plain'.
sub oracle_jobs {
    my (%o) = @_;
    my ($cc, $dir, $files) = @o{qw(cc dir files)};
    must($cc, '-O2', '-o', "$dir/plain", "$TSRC/oracle.c");
    must($cc, '-O2', '-c', "$TSRC/cyg.c", '-o', "$dir/cyg.o");
    must($cc, '-O2', '-c', "$TSRC/cyg_graph.c", '-o', "$dir/cygg.o");
    $files->{'/plain'} = "$dir/plain";
    $files->{'/lib/mt/libmcount-trace.so'} = "$o{lib}/libmcount-trace.so";
    my @jobs = ({ name => 'plain', argv => ['/plain', 3] });
    for my $v (@{ $o{variants} }) {
        my ($name, $cf, $lf, $mode, $env, $ccenv, $graph) = @$v;
        local @ENV{ keys %{ $ccenv // {} } } = values %{ $ccenv // {} };
        my @api = $mode eq 'a' ? ('-DWITH_API', "-I$RTINC") : ();
        mcc_cc($cc, "$dir/$name.o", '-O2', '-finstrument-functions', @api, @$cf, '-c', "$TSRC/oracle.c");
        $graph ||= $o{graph};
        for my $g ('', $graph ? '-g' : ()) {
            mcc_cc($cc, "$dir/$name$g", "$dir/$name.o", $g ? "$dir/cygg.o" : "$dir/cyg.o",
                $mode eq 'a' ? "$o{lib}/libmcount-trace.a" : (),
                map { $_ eq '-static' ? static_ldflags() : $_ } @$lf);
            $files->{"/$name$g"} = "$dir/$name$g";
        }
        my %on = $mode eq 'a' ? (ORACLE_ENABLE => '*') : (MCOUNT_TRACE_FILTER => '*');
        my %pre = $mode eq 'so' ? (LD_PRELOAD => '/lib/mt/libmcount-trace.so') : ();
        my %common = (%pre, %{ $env // {} }, MCOUNT_TRACE_FORMAT => 'json', MCOUNT_TRACE_DIR => '/tmp/ctl');
        my $job = sub {
            my ($jn, $prog, %e) = @_;
            return { name => $jn, argv => ["/$prog", 3], env => { %common, %e, CYG_LOG => "/tmp/$jn.cyg",
                MCOUNT_TRACE_OUTPUT => "/tmp/$jn.json" }, files => ["/tmp/$jn.cyg", "/tmp/$jn.json"] };
        };
        push @jobs, $job->($name, $name, %on), $job->("$name-off", $name);
        push @jobs, $job->("$name-g", "$name-g", %on, MCOUNT_TRACE_TRACER => 'function_graph') if $graph;
    }
    return @jobs;
}

# plug_jobs(cc => CC, dir => TMP, files => \%files) -> jobs plug-plain,
#   plug-lazy and plug-now: a -pg shared library (t/src/trace/plug.c
#   compiled and linked through mcount-cc; /lib/mt/libplug.so) beside a
#   program that calls it (plug_main.c, no -pg), untraced, then traced
#   with every function on, preloaded: the library calls the hook
#   through its own PLT entry or GOT slot, bound lazily or at start-up
#   (LD_BIND_NOW); after oracle_jobs.
sub plug_jobs {
    my (%o) = @_;
    my ($cc, $dir) = @o{qw(cc dir)};
    mcc_cc($cc, "$dir/plug.o", '-O2', '-fPIC', '-c', "$TSRC/plug.c");
    mcc_cc($cc, "$dir/libplug.so", '-shared', "$dir/plug.o");    # (riscv64: --no-relax)
    must($cc, '-O2', '-o', "$dir/plug_main", "$TSRC/plug_main.c", "-L$dir", '-lplug');
    $o{files}{'/lib/mt/libplug.so'} = "$dir/libplug.so";
    $o{files}{'/plug_main'} = "$dir/plug_main";
    # (the library found by LD_LIBRARY_PATH, which sys_native moves
    # under its root with the files, as it cannot move a run path)
    my %env = (LD_LIBRARY_PATH => '/lib/mt', LD_PRELOAD => '/lib/mt/libmcount-trace.so', MCOUNT_TRACE_FILTER => '*',
        MCOUNT_TRACE_FORMAT => 'json', MCOUNT_TRACE_DIR => '/tmp/ctl');
    return ({ name => 'plug-plain', argv => ['/plug_main', 5], env => { LD_LIBRARY_PATH => '/lib/mt' } },
        map { { name => "plug-$_->[0]", argv => ['/plug_main', 5], env => { %env, @$_[1 .. $#$_],
            MCOUNT_TRACE_OUTPUT => "/tmp/plug-$_->[0].json" }, files => ["/tmp/plug-$_->[0].json"] } }
            ['lazy'], ['now', LD_BIND_NOW => 1]);
}

# plug_checks($r, dir => TMP): each traced run has the untraced run's
# output and says nothing (no site refused); its trace is plug_a <-main
# and plug_b <-plug_a, 5 times each (plug_main calls plug_a 5 times, and
# plug_a calls plug_b).
sub plug_checks {
    my ($r, %o) = @_;
    my $p = $r->{'plug-plain'} // {};
    is(($p->{status} // 'not run') . ' ' . ($p->{stderr} // ''), '0 ', 'plug: the untraced run exits 0, silent');
    for my $how ('lazy', 'now') {
        my $j = $r->{"plug-$how"} // {};
        plug_trace_is("bound $how", $j->{status}, $j->{stdout}, $j->{stderr}, $p->{stdout},
            $o{dir}, $j->{files}{"/tmp/plug-$how.json"});
    }
}

# plug_trace_is(LABEL, STATUS, STDOUT, STDERR, the untraced run's output,
# TMP, the JSON trace): plug_checks' checks of one run.
sub plug_trace_is {
    my ($label, $st, $out, $err, $want, $dir, $trace) = @_;
    is(($st // 'not run') . ' ' . ($err // ''), '0 ', "plug, $label: exits 0 traced, nothing said (no site refused)");
    is($out, $want, "plug, $label: the untraced run's output");
    my ($ev, $errs) = json_of($dir, $trace);
    is_deeply($errs, [], "plug, $label: every trace line well formed");
    my %n;
    $n{"$_->{func} <-$_->{parent}"}++ for grep { !exists $_->{lost} } @$ev;
    is_deeply(\%n, { 'plug_a <-main' => 5, 'plug_b <-plug_a' => 5 },
        "plug, $label: plug_a <-main and plug_b <-plug_a, 5 times each") or diag explain \%n;
}

# oracle_checks($r, dir => TMP, variants => [...], want_out => the plain
# build's output).
sub oracle_checks {
    my ($r, %o) = @_;
    my $dir = $o{dir};
    for my $v (@{ $o{variants} }) {
        my ($name, undef, undef, $mode) = @$v;
        my $j = $r->{$name} // {};
        my $syms = nm_funcs("$dir/$name");
        is($j->{status}, 0, "$name: exits 0 traced") or diag $j->{stderr};
        is($j->{stderr}, '', "$name: the library says nothing");
        is($j->{stdout}, $o{want_out}, "$name: the output of the plain build");
        my ($ev, $errs) = json_of($dir, $j->{files}{"/tmp/$name.json"});
        is_deeply($errs, [], "$name: every trace line is a well-formed event");
        my ($main_at, $cyg) = read_cyg($j->{files}{"/tmp/$name.cyg"});
        ok(defined $main_at, "$name: the -finstrument-functions log") or next;
        my $bias = bias_of($syms, 'main', $main_at);
        my ($want, $got, $names) = against_cyg($syms, $bias, $cyg, $ev, $mode eq 'a');
        ok(defined $want, "$name: main is in the log") if $mode eq 'a';
        my @want = @{ $want // [] };
        my @names = @{ $names // [] };
        push @names, map { "line $_->{line}: comm $_->{comm}" }
            grep { !exists $_->{lost} && $_->{comm} ne $name } @$ev;
        cmp_ok(scalar @want, '>', 30, "$name: the program entered " . scalar(@want) . ' functions');
        is(first_diff($got // [], \@want), '',
            "$name: the trace is the -finstrument-functions log, function and parent, event for event");
        is_deeply(\@names, [], "$name: each event's function and parent are nm's, its command the program's");
        ok(!grep({ exists $_->{lost} } @$ev), "$name: no event lost");

        my $off = $r->{"$name-off"} // {};
        is($off->{status}, 0, "$name, no filter: exits 0") or diag $off->{stderr};
        is($off->{stdout}, $o{want_out}, "$name, no filter: the output of the plain build");
        is($off->{files}{"/tmp/$name-off.json"} // '', '', "$name, no filter: no event");
        my ($m0, $cyg0) = read_cyg($off->{files}{"/tmp/$name-off.cyg"});
        splice @$cyg0, 0, scalar(@$cyg0) - scalar(@$cyg) if $mode eq 'a';
        is_deeply([show_seq($syms, bias_of($syms, 'main', $m0 // 0), $cyg0)], \@want,
            "$name, no filter: the same functions entered");
    }
}

# entry_log_ok(DIR, JOB, NAME, PLAIN OUTPUT, LINKED): a traced oracle
# job whose program logged its entries (-finstrument-functions, NAME.cyg)
# and wrote its trace (NAME.json): exit 0, silent, the plain build's
# output, and the trace the log, function and parent, event for event.
sub entry_log_ok {
    my ($dir, $j, $n, $uout, $linked) = @_;
    is($j->{status}, 0, "$n: exits 0 traced") or diag $j->{stderr};
    is($j->{stderr}, '', "$n: the library says nothing");
    is($j->{stdout}, $uout, "$n: the output of the plain build");
    my $f = job_files($dir, $j, $n);
    my ($ev, $errs) = $f->{"/tmp/$n.json"} ? read_json($f->{"/tmp/$n.json"}) : ([], ['no trace']);
    is_deeply($errs, [], "$n: every trace line is a well-formed event");
    my $syms = nm_funcs("$dir/$n");
    my ($main_at, $log) = $f->{"/tmp/$n.cyg"} ? read_cyg_graph($f->{"/tmp/$n.cyg"}) : (0, []);
    my @enter = map { [$_->[1], $_->[2]] } grep { $_->[0] eq '>' } @$log;
    my ($want, $got, $names) = against_cyg($syms, bias_of($syms, 'main', $main_at), \@enter, $ev, $linked);
    cmp_ok(scalar @{ $want // [] }, '>', 20, "$n: the program entered " . scalar(@{ $want // [] }) . ' functions');
    is(first_diff($got // [], $want // []), '', "$n: the trace is the -finstrument-functions enter log, "
        . 'function and parent, event for event');
    is_deeply($names // [], [], "$n: each event's function and parent are nm's");
    return;
}

# A job's files on the host, under their guest names' last component
# (FILE.PID stays a forked child's): { GUEST_PATH => HOST_PATH }.
sub job_files {
    my ($dir, $job, $tag) = @_;
    my $d = "$dir/files-$tag";
    mkdir $d;
    my %p;
    for my $g (keys %{ $job->{files} // {} }) {
        (my $b = $g) =~ s{.*/}{};
        spit("$d/$b", $job->{files}{$g});
        $p{$g} = "$d/$b";
    }
    return \%p;
}

# graph_checks($r, dir => TMP, variants => [...], graph => every one,
# want_out => the plain build's output, noexit => [the functions whose
# returns cannot be hooked]): each NAME-g job's trace against its enter
# and exit log.
sub graph_checks {
    my ($r, %o) = @_;
    for my $v (grep { $o{graph} || $_->[6] } @{ $o{variants} }) {
        my $name = "$v->[0]-g";
        my $j = $r->{$name} // {};
        is($j->{status}, 0, "$name: exits 0 under function_graph") or diag $j->{stderr};
        is($j->{stderr}, '', "$name: the library says nothing");
        is($j->{stdout}, $o{want_out}, "$name: the output of the plain build");
        my $f = job_files($o{dir}, $j, $name);
        my ($log, $trace) = grep { defined } @$f{"/tmp/$name.cyg", "/tmp/$name.json"};
        ok(defined $trace, "$name: the enter and exit log and the trace") or next;
        # linked in, tracing starts in main (whose own return is not hooked)
        my $ev = graph_compare($name, "$o{dir}/$name", $log, [$trace], 0,
            $v->[3] eq 'a' ? \&graph_from_main : undef);
        noexit_is($name, $ev, $o{noexit});
    }
}

# The functions whose entries say noexit (graph_compare leaves their
# returns out of the log), as the caller knows them from the sources.
sub noexit_is {
    my ($name, $ev, $want) = @_;
    my %n = map { ($_->{func} => 1) } grep { $_->{noexit} } @$ev;
    is(join(' ', sort keys %n), join(' ', sort @{ $want // [] }),
        "$name: the functions whose returns the library could not hook are " . join(', ', @{ $want // [] }));
}

# A function_graph job of the preloaded library, every function on.
our %GRAPH_ENV = (LD_PRELOAD => '/lib/mt/libmcount-trace.so', MCOUNT_TRACE_FILTER => '*',
    MCOUNT_TRACE_TRACER => 'function_graph', MCOUNT_TRACE_FORMAT => 'json', MCOUNT_TRACE_DIR => '/tmp/ctl');
# What the hazards' programs need in the guest besides the C library
# (glibc's pthread_cancel loads libgcc_s).
our @HAZARDS_LIBS = ('libgcc_s.so.1', 'libstdc++.so.6');

# hazards_jobs(cc => CC, cxx => CXX, dir => TMP, files => \%files,
#   cflags => [...], ldflags => [...] of the traced programs' links)
#   -> jobs; after oracle_jobs (its cyg_graph.o).  C++ gets its table at
#   the link (mcount-cc's default for it), COMDAT functions included.
sub hazards_jobs {
    my (%o) = @_;
    my ($cc, $cxx, $dir) = @o{qw(cc cxx dir)};
    my @cf = @{ $o{cflags} // [] };
    mcc_cc($cc, "$dir/hazards.o", '-O2', '-finstrument-functions', @cf, '-c', "$TSRC/hazards.c");
    my @lf = @{ $o{ldflags} // [] };
    mcc_cc($cc, "$dir/hazards", "$dir/hazards.o", "$dir/cygg.o", @lf, '-lpthread');
    must($cc, '-O2', '-o', "$dir/hazards-plain", "$TSRC/hazards.c", '-lpthread');
    mcc_cc($cxx, "$dir/unwind.o", '-O2', '-finstrument-functions', @cf, '-c', "$TSRC/unwind.cc");
    mcc_cc($cxx, "$dir/unwind", "$dir/unwind.o", "$dir/cygg.o", @lf);
    must($cxx, '-O2', '-o', "$dir/unwind-plain", "$TSRC/unwind.cc");
    $o{files}{"/$_"} = "$dir/$_" for qw(hazards hazards-plain unwind unwind-plain);
    return ({ name => 'hazards-plain', argv => ['/hazards-plain'] },
        { name => 'hazards', argv => ['/hazards'], env => { %GRAPH_ENV, CYG_LOG => '/tmp/hazards.cyg',
            MCOUNT_TRACE_OUTPUT => '/tmp/hazards.json' }, files => ['/tmp/hazards.cyg', '/tmp/hazards.json*'] },
        { name => 'unwind-plain', argv => ['/unwind-plain'] },
        { name => 'unwind', argv => ['/unwind'], env => { %GRAPH_ENV, CYG_LOG => '/tmp/unwind.cyg',
            MCOUNT_TRACE_OUTPUT => '/tmp/unwind.json' }, files => ['/tmp/unwind.cyg', '/tmp/unwind.json'] });
}

# hazards_checks($r, dir => TMP, noexit => [the functions of both
# programs whose returns cannot be hooked, as in graph_checks])
sub hazards_checks {
    my ($r, %o) = @_;
    my $dir = $o{dir};
    my $p = $r->{'hazards-plain'} // {};
    my $j = $r->{hazards} // {};
    like($p->{stdout} // '', qr/\Ajumper \d+\n.*\ncancel testcancel 1 \d+\n/s,
        'hazards, plain build: it ran through');
    is($j->{status}, 0, 'hazards: exits 0 under function_graph') or diag $j->{stderr};
    is($j->{stderr}, '', 'hazards: the library says nothing');
    is($j->{stdout}, $p->{stdout}, 'hazards: the output of the plain build');
    my $f = job_files($dir, $j, 'hazards');
    my @traces = map { $f->{$_} } sort grep { m{\A/tmp/hazards\.json} } keys %$f;
    is(scalar @traces, 2, 'hazards: a trace of the parent and of the forked child');
    if ($f->{'/tmp/hazards.cyg'}) {
        my $ev = graph_compare('hazards', "$dir/hazards", $f->{'/tmp/hazards.cyg'}, \@traces, 0);
        noexit_is('hazards', $ev, $o{noexit});
        is(hazards_unwound($ev), $HAZARDS_UNWOUND,
            'hazards: frames left by longjmp, siglongjmp and pthread_exit marked unwound');
    } else {
        fail('hazards: no enter and exit log');
    }

    $p = $r->{'unwind-plain'} // {};
    $j = $r->{unwind} // {};
    like($p->{stdout} // '', qr/\S/, 'unwind.cc, plain build: it prints what it computed');
    is($j->{status}, 0, 'unwind.cc: exits 0 under function_graph (no std::terminate)') or diag $j->{stderr};
    is($j->{stderr}, '', 'unwind.cc: the library says nothing');
    is($j->{stdout}, $p->{stdout}, 'unwind.cc: the output of the plain build');
    $f = job_files($dir, $j, 'unwind');
    if ($f->{'/tmp/unwind.cyg'} && $f->{'/tmp/unwind.json'}) {
        my $ev = graph_compare('unwind.cc', "$dir/unwind", $f->{'/tmp/unwind.cyg'}, [$f->{'/tmp/unwind.json'}], 1);
        noexit_is('unwind.cc', $ev, $o{noexit});
        is(scalar(grep { $_->{unwound} } @$ev), $UNWIND_UNWOUND,
            'unwind.cc: the frames left by the throws marked unwound');
    } else {
        fail('unwind.cc: no enter and exit log, or no trace');
    }
}

# badsite_job(cc => CC, dir => TMP, files => \%files, asm => an
# architecture's badsite.S) -> a job: t/src/trace/sys/badsite.c and the
# functions of badsite.S, whose table entries are no calls to the hook,
# preloaded with no filter: a site taken would become a NOP and stay one.
sub badsite_job {
    my (%o) = @_;
    must($o{cc}, '-O2', '-o', "$o{dir}/badsite", "$TSRC/sys/badsite.c", $o{asm});
    $o{files}{'/badsite'} = "$o{dir}/badsite";
    return { name => 'badsite', argv => ['/badsite'], env => { LD_PRELOAD => '/lib/mt/libmcount-trace.so',
        MCOUNT_TRACE_OUTPUT => '/tmp/badsite.txt' } };
}

# badsite_checks($r, refused => [[FUNCTION, REASON]...]): each entry
# refused with its reason and left alone (the functions' calls ran as
# written: "bad 42 43 44 45"), nothing else said.
sub badsite_checks {
    my ($r, %o) = @_;
    my $j = $r->{badsite} // {};
    is($j->{status}, 0, 'badsite: exits 0') or diag $j->{stderr} // '';
    is($j->{stdout}, 'bad ' . join(' ', map { 42 + $_ } 0 .. $#{ $o{refused} }) . "\n",
        'badsite: every refused site still does what it did');
    my @got = map { /\Amcount-trace: badsite: 0x[0-9a-f]+ <(\w+)\+(?:0x[0-9a-f]+|0)>: (.*?) \(bytes [0-9a-f ]+\): left alone\z/
        ? "$1: $2" : "other: $_" } split /\n/, $j->{stderr} // '';
    is_deeply(\@got, [map { "$_->[0]: $_->[1]" } @{ $o{refused} }],
        'badsite: each entry refused, with what it is instead');
}

# stripped_job(dir => TMP, files => \%files, strip => STRIP, from =>
# VARIANT) -> a job: oracle_jobs' pie-preloaded (or VARIANT) with every
# symbol stripped (strip
# --strip-all: its functions have no names, its table is still there),
# traced with every function on; after oracle_jobs.
sub stripped_job {
    my (%o) = @_;
    must($o{strip}, '--strip-all', '-o', "$o{dir}/stripped", "$o{dir}/" . ($o{from} // 'pie-preloaded'));
    $o{files}{'/stripped'} = "$o{dir}/stripped";
    return { name => 'stripped', argv => ['/stripped', 3], env => { LD_PRELOAD => '/lib/mt/libmcount-trace.so',
        MCOUNT_TRACE_FILTER => '*', MCOUNT_TRACE_FORMAT => 'json', MCOUNT_TRACE_DIR => '/tmp/ctl',
        CYG_LOG => '/tmp/stripped.cyg', MCOUNT_TRACE_OUTPUT => '/tmp/stripped.json' },
        files => ['/tmp/stripped.cyg', '/tmp/stripped.json'] };
}

# stripped_checks($r, dir => TMP, want_out => the plain build's output):
# no site refused, and the trace is the enter log event for event, each
# event at a site at most 512 bytes into the function the log entered
# (no names to compare: the library names a function by its site).
sub stripped_checks {
    my ($r, %o) = @_;
    my $j = $r->{stripped} // {};
    is($j->{status}, 0, 'stripped: exits 0 traced') or diag $j->{stderr};
    is($j->{stderr}, '', 'stripped: the library says nothing (no site refused)');
    is($j->{stdout}, $o{want_out}, 'stripped: the output of the plain build');
    my ($ev, $errs) = json_of($o{dir}, $j->{files}{'/tmp/stripped.json'});
    is_deeply($errs, [], 'stripped: every trace line is a well-formed event');
    my (undef, $cyg) = read_cyg($j->{files}{'/tmp/stripped.cyg'});
    my @ev = grep { !exists $_->{lost} } @$ev;
    cmp_ok(scalar @$cyg, '>', 30, 'stripped: the program entered ' . scalar(@$cyg) . ' functions');
    my @bad;
    for my $i (0 .. ($#ev > $#$cyg ? $#ev : $#$cyg)) {
        my ($e, $c) = ($ev[$i], $cyg->[$i]);
        my $d = $e && $c ? hex($e->{addr}) - $c->[0] : -1;
        push @bad, "event $i: " . ($e ? $e->{addr} : 'none') . ', log ' . ($c ? sprintf('%#x', $c->[0]) : 'none')
            unless $d >= 0 && $d < 512;
    }
    splice @bad, 5 if @bad > 5;
    is_deeply(\@bad, [], 'stripped: each event at a site in the function the log entered, in its order');
}

# args_jobs(cc => CC, dir => TMP, files => \%files, name => NAME,
#   cflags => [...], ldflags => [...], dwarf => 1) -> jobs
#   NAME-{plain,json,text,graph}: t/src/trace/args.c built through
#   mcount-cc, its functions' prototypes given by MCOUNT_TRACE_EVENTS,
#   preloaded, under each tracer; dwarf: NAME-dwarf too, bare globs.
sub args_jobs {
    my (%o) = @_;
    my ($cc, $dir, $name) = @o{qw(cc dir name)};
    my @cf = @{ $o{cflags} // [] };
    must($cc, '-O2', @cf, @{ $o{ldflags} // [] }, '-o', "$dir/$name-plain", "$TSRC/args.c");
    mcc_cc($cc, "$dir/$name.o", '-O2', @cf, '-c', "$TSRC/args.c");
    mcc_cc($cc, "$dir/$name", "$dir/$name.o", @{ $o{ldflags} // [] });
    $o{files}{"/$_"} = "$dir/$_" for $name, "$name-plain";
    my $job = sub {
        my ($jn, $prog, %env) = @_;
        return { name => $jn, argv => ["/$prog", 11, "/tmp/$jn.log", 40], env => \%env,
            files => ["/tmp/$jn.log", "/tmp/$jn.out"] };
    };
    my %ev = (LD_PRELOAD => '/lib/mt/libmcount-trace.so', MCOUNT_TRACE_EVENTS => join(';', @ARGS_PROTO),
        MCOUNT_TRACE_DIR => '/tmp/ctl');
    my @dwarf = $o{dwarf} ? (['dwarf', MCOUNT_TRACE_FORMAT => 'json', MCOUNT_TRACE_EVENTS => join(';', sort keys %ARGS_NAMES)])
        : ();
    return ($job->("$name-plain", "$name-plain"),
        map { $job->("$name-$_->[0]", $name, %ev, MCOUNT_TRACE_OUTPUT => "/tmp/$name-$_->[0].out", @$_[1 .. $#$_]) }
            ['json', MCOUNT_TRACE_FORMAT => 'json'], ['text', MCOUNT_TRACE_FORMAT => 'text'],
            ['graph', MCOUNT_TRACE_FORMAT => 'json', MCOUNT_TRACE_TRACER => 'function_graph'], @dwarf);
}

# The parameters' names in t/src/trace/args.c, as its DWARF gives them
# (a bare glob's prototype).
my %DWARF_NAMES = (%ARGS_NAMES, flags => [qw(on u8 u16 p)]);

# args_checks($r, dir => TMP, name => NAME[, dwarf => 1]): each job's
# recorded arguments, read from the trace, against the program's own log
# of them (dwarf: the job of bare globs, its types and names from the
# program's DWARF, too).
sub args_checks {
    my ($r, %o) = @_;
    my ($dir, $name) = @o{qw(dir name)};
    my $plain = $r->{"$name-plain"} // {};
    is($plain->{status}, 0, "$name, plain build: exits 0") or diag $plain->{stderr};
    for my $k ('json', 'text', 'graph', $o{dwarf} ? 'dwarf' : ()) {
        my $names = $k eq 'dwarf' ? \%DWARF_NAMES : \%ARGS_NAMES;
        my $tag = "$name-$k";
        my $j = $r->{$tag} // {};
        is($j->{status}, 0, "$tag: exits 0") or diag $j->{stderr};
        is($j->{stderr}, '', "$tag: the library says nothing");
        is($j->{stdout}, $plain->{stdout}, "$tag: the output of the plain build");
        my $f = job_files($dir, $j, $tag);
        my ($log, $out) = @$f{"/tmp/$tag.log", "/tmp/$tag.out"};
        ok($log && $out, "$tag: its log and its trace") or next;
        my ($ev, $bad) = $k eq 'text' ? read_text_args($out) : read_json_args($out, $names);
        is_deeply($bad, [], "$tag: every line well formed") or diag(explain([@$bad[0 .. 2]]));
        against_log($tag, $ev, read_log($log), $names);
    }
}

# A Lua script of the interpreter's everyday work (tables, strings,
# closures, a pcall), small enough to trace every function of it: its
# trace crosses the guest's console (about 16,000 calls, 2.5 MB of JSON
# lines under the function tracer), and a larger workload reaches no
# function more (322 on x86_64).
my $LUA_SCRIPT = <<'LUA';
local t = {}
for i = 1, 60 do t[i] = (i * 7919) % 10007 end
table.sort(t)
local h = {}
for i = 1, 40 do h["k" .. i] = i * i end
local s = 0
for k, v in pairs(h) do s = s + v + #k end
local words = {}
for w in ("the quick brown fox"):gmatch("%a+") do words[#words + 1] = w:upper() end
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local ok, e = pcall(error, "no")
print(t[1], t[#t], s, table.concat(words, "-"), fib(8), ok, e, string.format("%.3f", math.pi))
LUA

# lua_jobs(cc => CC, dir => TMP, files => \%files, name => NAME, cflags =>
#   [...], ldflags => [...]) -> jobs NAME-{plain,func,graph}: Lua 5.4 from
#   Debian's source (scripts/fetch-source), every file of src/ but luac.c
#   compiled through mcount-cc, a script run plainly, then preloaded with
#   every function traced, under each tracer.
sub lua_jobs {
    my (%o) = @_;
    my ($cc, $dir, $name) = @o{qw(cc dir name)};
    my ($st, $src, $err) = run_cmd(["$TOP/scripts/fetch-source", 'lua5.4']);
    chomp $src;
    die "fetch-source lua5.4: $err" if $st != 0;
    my $d = "$dir/$name.build";
    mkdir $d;
    my @o;
    for my $c (grep { !m{/luac\.c\z} } glob "$src/src/*.c") {
        (my $obj = $c) =~ s{.*/(.*)\.c\z}{$d/$1.o};
        mcc_cc($cc, $obj, '-O2', @{ $o{cflags} // [] }, '-DLUA_USE_POSIX', '-c', $c);
        push @o, $obj;
    }
    # linked through mcount-cc too: a relaxing link (riscv64's default)
    # would move code under the per-object tables
    mcc_cc($cc, "$dir/$name", @o, '-lm', @{ $o{ldflags} // [] });
    spit("$dir/$name.lua", $LUA_SCRIPT);
    $o{files}{"/$name"} = "$dir/$name";
    $o{files}{'/script.lua'} = "$dir/$name.lua";
    my %pre = (LD_PRELOAD => '/lib/mt/libmcount-trace.so', MCOUNT_TRACE_FILTER => '*',
        MCOUNT_TRACE_FORMAT => 'json', MCOUNT_TRACE_BUFFER => 1 << 20, MCOUNT_TRACE_DIR => '/tmp/ctl');
    return ({ name => "$name-plain", argv => ["/$name", '/script.lua'] },
        map { { name => "$name-$_->[0]", argv => ["/$name", '/script.lua'],
            env => { %pre, MCOUNT_TRACE_TRACER => $_->[1], MCOUNT_TRACE_OUTPUT => "/tmp/$name-$_->[0].json" },
            files => ["/tmp/$name-$_->[0].json"] } } ['func', 'function'], ['graph', 'function_graph']);
}

# The load address of the program a trace is of: main's entry's, to its
# page (0 where main is not in it).
sub trace_bias {
    my ($syms, $ev) = @_;
    my ($m) = grep { ($_->{func} // '') eq 'main' } @$ev;
    return $m ? bias_of($syms, 'main', hex $m->{addr}) & ~0xfff : 0;
}

# lua_checks($r, dir => TMP, name => NAME, noexit => [the functions
# whose returns cannot be hooked, or undef: not checked]): the output
# of the plain run; every event well formed, of a function nm shows;
# under function_graph each exit closes its thread's innermost call and
# every function hooked returns, or is left by a longjmp, as often as it
# was entered.
sub lua_checks {
    my ($r, %o) = @_;
    my ($dir, $name) = @o{qw(dir name)};
    my $p = $r->{"$name-plain"} // {};
    like($p->{stdout} // '', qr/\A\d+\t\d+\t\d+\tTHE-QUICK-BROWN-FOX\t21\tfalse\tno\t3\.142\n\z/,
        "$name: lua runs the script plainly") or diag $p->{stderr} // '';
    my $syms = nm_funcs("$dir/$name");
    my %nm = map { ($_->[2] => 1) } @$syms;
    for my $k ('func', 'graph') {
        my $tag = "$name-$k";
        my $j = $r->{$tag} // {};
        is($j->{status}, 0, "$tag: exits 0") or diag $j->{stderr};
        is($j->{stderr}, '', "$tag: the library says nothing");
        is($j->{stdout}, $p->{stdout}, "$tag: the output of the plain run");
        my $f = job_files($dir, $j, $tag);
        my ($ev, $errs) = read_graph_json(grep { defined } $f->{"/tmp/$tag.json"});
        is_deeply([@$errs[0 .. ($#$errs < 4 ? $#$errs : 4)]], [], "$tag: every line well formed");
        my (%calls, %rets, %noexit, @bad);
        for my $e (@$ev) {
            push @bad, 'lost ' . $e->{lost} if exists $e->{lost};
            $calls{ $e->{func} }++ if exists $e->{func};
            $noexit{ $e->{func} } = 1 if $e->{noexit};
            $rets{ $e->{exit} }++ if exists $e->{exit};
        }
        push @bad, grep { !$nm{$_} } sort keys %calls;
        is_deeply(\@bad, [], "$tag: no event lost, every function one nm shows");
        cmp_ok(scalar keys %calls, '>', 100, "$tag: " . scalar(keys %calls) . ' functions of lua traced');
        next if $k eq 'func';
        # (a tail call's parent is not the enclosing entry's function;
        # Lua's errors longjmp out of frames, written as unwound)
        my (undef, $nest) = trace_seqs($syms, trace_bias($syms, $ev), [grep { !exists $_->{lost} } @$ev], 0);
        $nest = [grep { !/ called from / } @$nest];
        is_deeply([@$nest[0 .. ($#$nest < 4 ? $#$nest : 4)]], [], "$tag: each exit closes its thread's innermost call");
        my @odd = map { "$_ entered $calls{$_}, returned " . ($rets{$_} // 0) }
            grep { !$noexit{$_} && $_ ne 'main' && ($rets{$_} // 0) != $calls{$_} } sort keys %calls;
        is_deeply(\@odd, [], "$tag: each function hooked returns (or is left by a longjmp) as often as it is entered");
        # (of the functions the caller names, those the script called)
        is(join(' ', sort keys %noexit), join(' ', sort grep { $calls{$_} } @{ $o{noexit} }),
            "$tag: the functions whose returns could not be hooked (" . scalar(keys %noexit) . ')')
            if $o{noexit};
        note "$tag: not hooked: " . join(' ', sort keys %noexit) if !$o{noexit} && %noexit;
    }
}

# (the quick rounds: 20 by default, 100 with STRESS_FULL=1; a round
# costs a loaded emulated machine seconds)
my $QUICK = $ENV{STRESS_FULL} ? 100 : 20;
my @TFILES = ('/tmp/rapid.json',
    map { ("/tmp/on-$_.json", "/tmp/settle-$_.json", "/tmp/stale-$_.json", "/tmp/off-$_.json") } 0 .. 7);

# toggle_jobs(cc => CC, lib => DIR, dir => TMP, files => \%files, name =>
# NAME (default toggle), cflags => [...], shared => 1: a PIE linked with
# the shared library, /lib/mt/libmcount-trace.so (oracle_jobs puts it
# there), whose hook it calls through the PLT; ccenv => { mcount-cc's
# variables }) -> jobs NAME (linked in, static unless shared) and
# NAME-plain.
sub toggle_jobs {
    my (%o) = @_;
    my ($cc, $dir) = @o{qw(cc dir)};
    local @ENV{ keys %{ $o{ccenv} // {} } } = values %{ $o{ccenv} // {} };
    my $n = $o{name} // 'toggle';
    my @cf = @{ $o{cflags} // [] };
    my @lf = $o{shared} ? ("-L$o{lib}", '-lmcount-trace', '-Wl,-rpath,/lib/mt') : ("$o{lib}/libmcount-trace.a");
    # (the program needs the library by its SONAME)
    $o{files}{'/lib/mt/libmcount-trace.so.0'} = "$o{lib}/libmcount-trace.so" if $o{shared};
    my @st = $o{shared} ? () : ('-no-pie');
    mcc_cc($cc, "$dir/$n.o", '-O2', @cf, '-DWITH_API', "-I$RTINC", '-c', "$TSRC/toggle.c");
    mcc_cc($cc, "$dir/$n", @st, $o{shared} ? () : static_ldflags(), @cf, "$dir/$n.o", @lf, '-lpthread');
    must($cc, '-O2', @cf, @st, $o{shared} ? () : static_ldflags(), '-o', "$dir/$n-plain", "$TSRC/toggle.c",
        '-lpthread');
    $o{files}{"/$n"} = "$dir/$n";
    $o{files}{"/$n-plain"} = "$dir/$n-plain";
    return ({ name => "$n-plain", argv => ["/$n-plain"] },
        { name => $n, argv => ["/$n"], env => { TOGGLE_DIR => '/tmp', MCOUNT_TRACE_BUFFER => 256,
            MCOUNT_TRACE_DIR => '/tmp/ctl', TOGGLE_QUICK => $QUICK }, files => [@TFILES, '/tmp/quick.txt'] });
}

# toggle_checks($r, dir => TMP, name => NAME of toggle_jobs): no crash,
# the plain build's output (the program's own SIGTRAP and SIGSEGV
# handlers got their signals), every event well formed and from a switched-on function and its caller,
# events from every worker after each enable and none after each
# disable; the emulator's stale blocks (toggle.c) counted and shown.
sub toggle_checks {
    my ($r, %o) = @_;
    my $dir = $o{dir};
    my $n = $o{name} // 'toggle';
    my $p = $r->{"$n-plain"} // {};
    my $t = $r->{$n} // {};
    like($p->{stdout} // '', qr/\A(worker \d sum -?\d+\n){3}traps 2\nfaults: each write to the read-only page faulted once\n\z/,
        "$n, plain build: three sums, both traps, each fault");
    is($t->{status}, 0, "$n: exits 0 (no crash)")
        or diag "status $t->{status}; stdout: $t->{stdout}; stderr: $t->{stderr}";
    is($t->{stderr}, '', "$n: nothing on stderr");
    is($t->{stdout}, $p->{stdout}, "$n: the output of the plain build (sums, traps, faults)");
    my $syms = nm_funcs("$dir/$n");
    my %caller = (hot_a => 'hot_b', hot_b => 'worker');
    my (@bad, %on_funcs, @off, %stale, $bias);
    my $events = 0;
    for my $f (@TFILES) {
        my ($ev, $errs) = json_of($dir, $t->{files}{$f});
        push @bad, map { "$f: $_" } @$errs;
        for my $e (@$ev) {
            if (exists $e->{lost}) {
                push @off, "$f: lost $e->{lost}" if $f =~ /off-/;
                $stale{$f} += $e->{lost} if $f =~ /stale-/;
                next;
            }
            $events++;
            # a PIE's load bias, from its first event of a function nm
            # knows, to its page (an event's address is its site's)
            $bias //= eval { bias_of($syms, $e->{func}, hex $e->{addr}) & ~0xfff };
            my $fn = func_at($syms, hex($e->{addr}) - ($bias // 0));
            my $pa = func_at($syms, hex($e->{parent_addr}) - ($bias // 0));
            push @bad, "$f line $e->{line}: $e->{func} at $e->{addr}, nm: " . ($fn ? $fn->[2] : '-')
                unless $fn && $fn->[2] eq $e->{func} && $caller{$e->{func}};
            push @bad, "$f line $e->{line}: $e->{func} <-$e->{parent} ($e->{parent_addr})"
                unless $caller{$e->{func}} && $pa && $pa->[2] eq $caller{$e->{func}};
            $on_funcs{$1}{$e->{tid}}{$e->{func}} = 1 if $f =~ m{/on-(\d+)\.json\z};
            push @off, "$f line $e->{line}: $e->{func} (tid $e->{tid})" if $f =~ /off-/;
            $stale{$f}++ if $f =~ /stale-/;
        }
    }
    cmp_ok($events, '>', 100, "$n: $events events");
    is_deeply(\@bad, [], "$n: every event well formed, of hot_a or hot_b, at nm's address, "
        . 'from its caller');
    # hot_a's events alone may show a worker: after an enable
    # qemu-system-aarch64 has also been seen to run hot_b's old `nop` on,
    # even after toggle.c wrote the page back (cause not known; see
    # doc/architectures.md).
    is_deeply([map { scalar keys %{ $on_funcs{$_} // {} } } 0 .. 7], [(3) x 8],
        "$n: after each of 8 live enables, events from all 3 workers");
    splice @off, 10 if @off > 10;
    is_deeply(\@off, [], "$n: after each live disable (and the calls under way), no event");
    my ($rounds, $q_on, $q_stale, $q_stale_rounds, $q_off) = ($t->{files}{'/tmp/quick.txt'} // '')
        =~ /\Arounds (\d+) on (\d+) stale (\d+) stale-rounds (\d+) off (\d+)\n\z/;
    is($rounds, $QUICK, "$n: $QUICK more rounds, counted by the program");
    is($q_on, $QUICK, "$n: events after each of their enables");
    is($q_off, 0, "$n: no event after any of their disables");
    # The emulator's (toggle.c): shown, so that its rate stays visible.
    my $st = join ', ', map { "$_ $stale{$_}" } sort keys %stale;
    note 'emulator: a block translated from the old bytes ran on after a disable in '
        . ($q_stale_rounds // '?') . " of $QUICK counted rounds (" . ($q_stale // '?') . ' events)'
        . ($st ? "; in the written rounds: $st" : '');
    return $q_stale_rounds;
}

# tear_jobs(cc => CC, dir => TMP, files => \%files) -> jobs tear64,
# tear66, and stale.c's: its two builds one after the other, STALE_RUNS
# times each, at the same address (stale-same-*) and, where static
# programs get addresses of their own, as they are linked (stale-own-*:
# static_ldflags; elsewhere that is the same address, and the same runs)
my $STALE_RUNS = 6;
sub stale_run {
    my ($k) = @_;
    return $k eq 'own' && !$SYS{$ARCH}{own_text} ? 'same' : $k;
}
sub tear_jobs {
    my (%o) = @_;
    must($o{cc}, '-O2', static_ldflags(), '-o', "$o{dir}/tear", "$TSRC/sys/tear.c", '-lpthread');
    $o{files}{'/tear'} = "$o{dir}/tear";
    # (20,000 writes each, 200,000 with STRESS_FULL=1: a note, and each
    # write is a system call that costs the emulated machine a millisecond)
    my @jobs = map { { name => "tear$_", argv => ['/tear', $_, $ENV{STRESS_FULL} ? 200_000 : 20_000] } } 64, 66;
    my @kinds = ('same', stale_run('own') eq 'own' ? 'own' : ());
    for my $v (1, 2) {
        my @cf = ('-O2', '-fno-toplevel-reorder', "-DV=$v", "$TSRC/sys/stale.c");
        must($o{cc}, @cf, $_ eq 'own' ? static_ldflags() : '-static', '-o', "$o{dir}/stale-$_$v") for @kinds;
    }
    for my $k (@kinds) {
        $o{files}{"/stale-$k$_"} = "$o{dir}/stale-$k$_" for 1, 2;
        push @jobs, map { my $i = $_; map { { name => "stale-$k$_-$i", argv => ["/stale-$k$_"] } } 1, 2 }
            1 .. $STALE_RUNS;
    }
    return @jobs;
}

# tear_notes($r): tear.c's counts as notes (machine_checks runs it), and
# stale.c's checks (below)
sub tear_notes {
    my ($r) = @_;
    for my $o (64, 66) {
        my $t = $r->{"tear$o"} // {};
        like($t->{stdout} // '', qr/\Aoffset $o reads \d+ torn \d+\n\z/, "tear.c ran with the word at offset $o")
            or diag $t->{stderr} // '';
        note "a 4-byte write through /proc/self/mem, seen by another thread: $1" if ($t->{stdout} // '') =~ /(.*)/;
    }
    stale_checks($r);
}

# stale.c's runs: each well formed; linked as static programs are here,
# no stale code.  At one address, that is a check too where static
# programs may share their addresses, a note where they may not.
sub stale_checks {
    my ($r) = @_;
    my %stale = (same => 0, own => 0);
    for my $k (qw(same own)) {
        my $bad = 0;
        my $run = stale_run($k);
        for my $name (map { ("stale-${run}1-$_", "stale-${run}2-$_") } 1 .. $STALE_RUNS) {
            my $j = $r->{$name} // { status => 'none', stdout => '', stderr => '' };
            if ($j->{status} eq '0' && $j->{stdout} =~ /\Astale (\d+) of 128\n\z/) {
                $stale{$k} += $1;
            } else {
                $bad++;
                diag "$name: status $j->{status}: $j->{stdout}$j->{stderr}";
            }
        }
        is($bad, 0, "stale.c ran $STALE_RUNS times each build, text at "
            . ($k eq 'same' ? 'one address' : 'static_ldflags\' addresses') . ', and printed its count');
    }
    is($stale{own}, 0, 'where static programs are linked, each runs the code it has after the kernel copied its text');
    my $what = "programs at one address, one after the other: $stale{same} calls of "
        . (2 * 128 * $STALE_RUNS) . ' ran the other program\'s code after the kernel copied a page';
    if ($SYS{$ARCH}{own_text}) {
        note "$what (why static programs get their own addresses here)";
    } else {
        is($stale{same}, 0, "$what (static programs may share their addresses)");
    }
}

# hooks_jobs(cc => CC, lib => DIR, dir => TMP, files => \%files, builds
#   => [{ name => NAME, cflags => [...], ldflags => [...], ccenv => {
#   mcount-cc's variables }, redirect => 1 (a site at the entry: live
#   patching; else ENOTSUP), args => 'ENOTSUP' (mcount_regs_arg's
#   answer there; else the words read and checked), clobber => the
#   functions of a clobber round }...]) -> jobs NAME-MODE, a mode of
#   hooks.c each (the counts smaller than t/106's: an emulated machine)
my %HOOKS_RUN = (count => [20, 100], unreg => [50], unwind => [3000], errors => [], clobber => [500]);
sub hooks_jobs {
    my (%o) = @_;
    my ($cc, $dir) = @o{qw(cc dir)};
    my @jobs;
    for my $b (@{ $o{builds} }) {
        my $n = $b->{name};
        local @ENV{ keys %{ $b->{ccenv} // {} } } = values %{ $b->{ccenv} // {} };
        mcc_cc($cc, "$dir/$n.o", '-O2', @{ $b->{cflags} // [] }, "-I$RTINC", '-c', "$TSRC/hooks.c");
        mcc_cc($cc, "$dir/$n", "$dir/$n.o", @{ $b->{ldflags} // [] }, "$o{lib}/libmcount-trace.a", '-lpthread');
        $o{files}{"/$n"} = "$dir/$n";
        push @jobs, map { { name => "$n-$_", argv => ["/$n", $_, @{ $HOOKS_RUN{$_} }] } } sort keys %HOOKS_RUN;
        push @jobs, { name => "$n-redirect", argv => ["/$n", 'redirect', $b->{redirect} ? 10 : (1, 'enotsup')] };
    }
    return @jobs;
}

# hooks_checks($r, builds => [as hooks_jobs']): each mode exits 0, says
# nothing on stderr, and prints its ok line: every count the functions'
# own, every argument and value as the functions had them.
sub hooks_checks {
    my ($r, %o) = @_;
    for my $b (@{ $o{builds} }) {
        my $n = $b->{name};
        my ($rounds, $churn) = @{ $HOOKS_RUN{count} };
        my $calls = $rounds * 3200;
        my $args = $b->{args} // '[1-9]\d*';
        my $cl = $HOOKS_RUN{clobber}[0];
        my %want = (
            count => qr/^ok fenced rounds=$rounds calls=$calls\n.*^ok churn=$churn A-hits=[1-9]\d* arguments=$args calls=\d+$/ms,
            unreg => qr/^ok unreg cycles=$HOOKS_RUN{unreg}[0] callbacks=[1-9]\d*$/m,
            unwind => qr/^ok unwind rounds=3000 longjmps=1000 exits=7000$/m,
            errors => qr/^ok errors$/m,
            clobber => qr/^ok clobber rounds=$cl calls=@{[$cl * $b->{clobber}]}$/m,
            redirect => $b->{redirect} ? qr/^ok redirect rounds=10 calls=[1-9]\d* redirected=[1-9]\d*$/m
                : qr/^ok redirect ENOTSUP$/m);
        my %what = (count => "two hooks' counts against the functions' own, $rounds fenced rounds and $churn "
                . 'filter changes under 8 threads' . ($b->{args} ? ", mcount_regs_arg $b->{args}" : ', arguments checked'),
            unreg => "$HOOKS_RUN{unreg}[0] register/unregister cycles under load",
            unwind => '1,000 longjmps through hooked frames, an exit for each function that returned',
            errors => 'the errors of mcount-hooks.h',
            clobber => "callbacks that change every register a callee may: $b->{clobber} functions' arguments "
                . 'and values kept',
            redirect => $b->{redirect} ? '10 redirects and unredirects under load, each answer as the switch says'
                : 'no redirect where the site is after the prologue (ENOTSUP)');
        for my $m (sort keys %want) {
            my $j = $r->{"$n-$m"} // {};
            is($j->{status}, 0, "$n $m: exits 0") or diag(($j->{stdout} // '') . ($j->{stderr} // ''));
            unlike($j->{stdout} // '', qr/^FAIL/m, "$n $m: no FAIL") or diag $j->{stdout};
            is($j->{stderr} // '', '', "$n $m: nothing on stderr");
            like($j->{stdout} // '', $want{$m}, "$n: $what{$m}") or diag $j->{stdout} // '';
        }
    }
}

# stat_jobs(cc => CC, lib => DIR, dir => TMP, files => \%files, build =>
#   { cflags, ldflags, ccenv } as a build of hooks_jobs: the guest's
#   first, whose functions' returns the hooks find) -> jobs stat-NAME,
#   statcount.c under the profiler, as %STAT_RUN says: NAME its build
#   (so: preloaded, a: libmcount-trace.a linked in), the functions
#   (MCOUNT_TRACE_STAT) and the key (MCOUNT_TRACE_STAT_SORT; none: time,
#   the default).
my @STAT_ARGS = (3, 30);    # statcount's threads beside main, and rounds
my %STAT_RUN = (time => ['so', '*'], hits => ['so', 'mid_*,leaf_*', 'hits'], self => ['a', '*', 'self']);
sub stat_jobs {
    my (%o) = @_;
    my ($cc, $dir, $b) = @o{qw(cc dir build)};
    local @ENV{ keys %{ $b->{ccenv} // {} } } = values %{ $b->{ccenv} // {} };
    mcc_cc($cc, "$dir/statcount.o", '-O2', @{ $b->{cflags} // [] }, '-c', "$TSRC/statcount.c");
    mcc_cc($cc, "$dir/statcount-so", "$dir/statcount.o", @{ $b->{ldflags} // [] }, '-lpthread');
    mcc_cc($cc, "$dir/statcount-a", "$dir/statcount.o", @{ $b->{ldflags} // [] }, "$o{lib}/libmcount-trace.a",
        '-lpthread');
    $o{files}{"/statcount-$_"} = "$dir/statcount-$_" for qw(so a);
    $o{files}{'/lib/mt/libmcount-trace.so'} = "$o{lib}/libmcount-trace.so";
    return map {
        my ($build, $funcs, $key) = @{ $STAT_RUN{$_} };
        { name => "stat-$_", argv => ["/statcount-$build", @STAT_ARGS], env => {
            $build eq 'so' ? (LD_PRELOAD => '/lib/mt/libmcount-trace.so') : (), MCOUNT_TRACE_CONTROL => 0,
            MCOUNT_TRACE_STAT => $funcs, $key ? (MCOUNT_TRACE_STAT_SORT => $key) : () } }
    } sort keys %STAT_RUN;
}

# stat_checks($r): statcount's own counts as its source makes them; in
# each run the profiler's table (where it runs: 64-bit words) or its
# refusal, as stat_jobs says.  (A caller's time holds its callees'
# because each of their calls is inside one of its own, and every time
# is read from one monotonic clock; the table shows whole nanoseconds,
# so its own time is its time less theirs, to the nanosecond.)
sub stat_checks {
    my ($r) = @_;
    my ($t, $n) = @STAT_ARGS;
    my $w = $t + 1;
    my %want = (main => 1, worker => $w, outer => $w * $n, mid_a => 3 * $w * $n, mid_b => 2 * $w * $n,
        leaf_a => 6 * $w * $n, leaf_b => 2 * $w * $n, rec => 5 * $w);
    my $row = arch_row($SYS{$ARCH}{arch});
    my $words = $row->{class};
    # The functions whose returns the hooks cannot find, each call of
    # theirs in Hit without a time: on mips those whose prologue does not
    # store ra in their frame, the ones that call none (mcount-trace(1)):
    # statcount's leaves.
    my @untimed = $row->{kernel} eq 'mips' ? qw(leaf_a leaf_b) : ();
    my %callees = (worker => ['outer'], outer => [qw(mid_a mid_b)], mid_a => ['leaf_a'], mid_b => ['leaf_b']);
    for my $run (sort keys %STAT_RUN) {
        my ($build, $funcs, $key) = @{ $STAT_RUN{$run} };
        my $j = $r->{"stat-$run"} // {};
        my $what = "stat-$run ($build, MCOUNT_TRACE_STAT=$funcs" . ($key ? ", sorted by $key)" : ')');
        is($j->{status}, 0, "$what: exits 0") or diag(($j->{stdout} // '') . ($j->{stderr} // ''));
        my %own = ($j->{stdout} // '') =~ /\b(\w+)=(\d+)/g;
        is_deeply(\%own, \%want, "$what: the functions' own counts are the source's, @STAT_ARGS")
            or diag $j->{stdout} // '';
        if ($words != 64) {
            is($j->{stderr} // '', "mcount-trace: MCOUNT_TRACE_STAT: '$funcs': Operation not supported\n",
                "$what: $words-bit counts: the profiler refused (ENOTSUP), said once, no table");
            next;
        }
        my ($tab, $order, $untimed, $other) = stat_table($j->{stderr} // '');
        is_deeply($other, [], "$what: the table alone on stderr (no call left, lost or dropped)")
            or diag $j->{stderr} // '';
        my @named = $funcs eq '*' ? sort keys %want : grep { /^(mid|leaf)_/ } sort keys %want;
        my %named = map { ($_ => 1) } @named;
        is_deeply($untimed, { map { ($_ => $own{$_}) } grep { $named{$_} } @untimed },
            "$what: the calls without a time: " . (@untimed ? "every call of @untimed, no other" : 'none'))
            or diag $j->{stderr} // '';
        is_deeply({ map { ($_ => $tab->{$_}{hits}) } keys %$tab }, { map { ($_ => $own{$_}) } @named },
            "$what: each function's hits are its own count of its calls (@named)") or diag $j->{stderr} // '';
        my @bad = map { "$_: self $tab->{$_}{self} us, time $tab->{$_}{time} us" }
            grep { $tab->{$_}{self} > $tab->{$_}{time} } sort keys %$tab;
        is_deeply(\@bad, [], "$what: no function's own time is more than its time");
        @bad = ();
        for my $f (grep { $tab->{$_} } sort keys %callees) {
            my @c = grep { $tab->{$_} } @{ $callees{$f} };
            next unless @c;
            my $sum = 0;
            $sum += $tab->{$_}{time} for @c;
            push @bad, "$f $tab->{$f}{time} us < @c $sum us" if $tab->{$f}{time} + 0.0005 < $sum;
        }
        my $pairs = join ', ', map { "$_ >= " . join('+', @{ $callees{$_} }) }
            grep { my $f = $_; $tab->{$f} && grep { $tab->{$_} } @{ $callees{$f} } } sort keys %callees;
        is_deeply(\@bad, [], "$what: each caller's time at least its callees' ($pairs)") if $pairs;
        # Self: the time less the callees' (those not in one another:
        # worker's rec is), each the sum of the same clock's readings
        @bad = ();
        my @exact = grep { my $f = $_; $tab->{$f} && !grep { !$tab->{$_} } @{ $callees{$f} // [] } }
            qw(outer mid_a mid_b leaf_a leaf_b);
        for my $f (@exact) {
            my $less = $tab->{$f}{time};
            $less -= $tab->{$_}{time} for @{ $callees{$f} // [] };
            push @bad, "$f: self $tab->{$f}{self} us, time less callees' $less us"
                if abs($tab->{$f}{self} - $less) > 0.002;
        }
        is_deeply(\@bad, [], "$what: each own time is the time less the callees' (@exact)");
        my $col = $key // 'time';
        my @v = map { $tab->{$_}{$col} } @$order;
        is_deeply(\@v, [sort { $b <=> $a } @v], "$what: the rows in the order of $col, largest first")
            or diag $j->{stderr} // '';
        note $j->{stderr} if $run eq 'time';    # (the table, for prove -v)
    }
}

# guest_run(GUEST): every check of one guest, a row of guests.tab, in
# its boot: the check sets its row names, written here once, with what
# its module (t/lib/MODULE.pm, the row's) gives them.  MODULE::guest(ROW)
# returns { variants => [oracle_jobs' code models], graph_all => every
# variant also under function_graph (default 1), hazards_cflags =>
# [...], toggles => [toggle_jobs' options, a build each] (default one:
# toggle), badsite => its assembly (default t/src/trace/GUEST/badsite.S),
# refused => [badsite_checks' refused], args => [args_jobs' options, a
# build each] (default args with -g, args-O0 with -g -O0, both by
# DWARF), hooks => [hooks_jobs' builds] (default one, -pg: hooks with
# the site after the prologue, no redirect; the first is stat's too), lua_cflags => [...],
# lua_noexit => [...], graph_noexit =>
# [...], hazards_noexit => [...] or a function of the context; and
# functions of the context (a hash: guest => ROW, dir, files, jobs, cc,
# cxx, lib, objdump, variants; after the boot r (its results), uout (the
# plain program's output) and ust (its exit status under qemu-user)):
# jobs (builds and jobs of its own, after the sets'), forms (after the
# machine's checks: the site forms objdump shows), graph (in place of
# the graph set's checks), checks (its own, last), runs (in place of the
# one boot: [[LABEL, BOOT]...], each run a subtest of that label), run
# (in place of everything after sys_start) }.
our @CHECK_SETS = qw(machine smc oracle graph hazards toggle badsite stripped args lua plug hooks stat);
sub guest_run {
    my ($name) = @_;
    my $g = $SYS{$name} // die "SysTrace: no guest '$name'";
    my %set = map { ($_ => 1) } @{ $g->{checks} };
    my %known = map { ($_ => 1) } @CHECK_SETS;
    die "SysTrace: $name: no check set '$_' (guests.tab)\n" for grep { !$known{$_} } sort keys %set;
    require "$g->{module}.pm";
    my $m = $g->{module}->can('guest')->($g);
    my ($cc, $cxx, $lib) = @$g{qw(cc cxx lib)};
    my $objdump = "$g->{triple}-objdump";
    my $dir = sys_start($name, lib => $lib, tools => [$set{machine} ? [$g->{qemu_user}, 'qemu-user'] : (),
        %set ? ([$objdump, "binutils-$g->{triple}"], [$cxx, "g++-12-$g->{triple}"]) : ()]) // return;
    my (%files, @jobs);
    my $c = { guest => $g, dir => $dir, files => \%files, jobs => \@jobs, cc => $cc, cxx => $cxx, lib => $lib,
        objdump => $objdump, variants => $m->{variants} };
    return $m->{run}->($c) if $m->{run};
    my %c = (cc => $cc, dir => $dir, files => \%files);
    my @toggles = @{ $m->{toggles} // [{}] };
    my @args = @{ $m->{args} // [{ name => 'args', cflags => ['-g'], dwarf => 1 },
        { name => 'args-O0', cflags => ['-g', '-O0'], dwarf => 1 }] };
    my $graph_all = $set{graph} ? $m->{graph_all} // 1 : 0;

    # ---- builds: the sets' jobs, then the guest's own ----
    if ($set{machine} || $set{smc}) {
        # the machine runs code changed through /proc/self/mem; tear.c, stale.c
        must($cc, '-O2', static_ldflags(), '-o', "$dir/smc", "$TSRC/sys/smc.c");
        $files{'/smc'} = "$dir/smc";
        push @jobs, { name => 'smc', argv => ['/smc'] }, tear_jobs(%c);
    }
    push @jobs, oracle_jobs(%c, lib => $lib, variants => $m->{variants}, graph => $graph_all) if $set{oracle};
    push @jobs, hazards_jobs(%c, cxx => $cxx, cflags => $m->{hazards_cflags}) if $set{hazards};
    push @jobs, map { toggle_jobs(%c, lib => $lib, %$_) } @toggles if $set{toggle};
    push @jobs, badsite_job(%c, asm => $m->{badsite} // "$TSRC/$name/badsite.S") if $set{badsite};
    push @jobs, stripped_job(%c, strip => "$g->{triple}-strip", from => $m->{variants}[0][0]) if $set{stripped};
    push @jobs, map { args_jobs(%c, %$_) } @args if $set{args};
    push @jobs, lua_jobs(%c, name => 'lua', cflags => $m->{lua_cflags}) if $set{lua};
    push @jobs, plug_jobs(%c) if $set{plug};
    my @hooks = @{ $m->{hooks} // [{ name => 'hooks', clobber => 6 }] };
    push @jobs, hooks_jobs(%c, lib => $lib, builds => \@hooks) if $set{hooks};
    push @jobs, stat_jobs(%c, lib => $lib, build => $hooks[0]) if $set{stat};
    $m->{jobs}->($c) if $m->{jobs};

    # ---- one boot (or the module's runs), and the checks ----
    my @runs = $m->{runs} ? $m->{runs}->($c) : (['', sub { sys_boot($name, @_) }]);
    for my $run (@runs) {
        my ($how, $boot) = @$run;
        my $checks = sub {
            my $r = $c->{r} = boot_checks($how eq '' ? '' : "$how: ", $boot, files => \%files, jobs => \@jobs,
                timeout => $g->{timeout}, libs => \@HAZARDS_LIBS);
            my $uout;
            if ($set{machine}) {
                ($uout, $c->{ust}) = machine_checks($r, dir => $dir, qemu_user => $g->{qemu_user},
                    sysroot => $g->{sysroot}, ldso => $g->{ldso});
            } elsif ($set{smc}) {
                is($r->{smc}{stdout}, "f 1 2 3\n",
                    'the emulated machine runs code changed through /proc/self/mem (as the tracer writes it)');
                tear_notes($r);
                $uout = $r->{plain}{stdout} // '';
                like($uout, qr/\Aresult -?\d+ \d+\.\d{4}\n\z/, "the plain $g->{arch} program prints $uout");
            }
            $c->{uout} = $uout;
            $m->{forms}->($c) if $m->{forms};
            oracle_checks($r, dir => $dir, variants => $m->{variants}, want_out => $uout) if $set{oracle};
            stripped_checks($r, dir => $dir, want_out => $uout) if $set{stripped};
            badsite_checks($r, refused => $m->{refused}) if $set{badsite};
            if ($set{graph}) {
                if ($m->{graph}) {
                    $m->{graph}->($c);
                } else {
                    graph_checks($r, dir => $dir, variants => $m->{variants}, graph => $graph_all, want_out => $uout,
                        noexit => $m->{graph_noexit});
                }
            }
            if ($set{hazards}) {
                my $noexit = $m->{hazards_noexit};
                hazards_checks($r, dir => $dir, noexit => ref $noexit eq 'CODE' ? $noexit->($c) : $noexit);
            }
            if ($set{toggle}) {
                toggle_checks($r, dir => $dir, name => $_->{name}) for @toggles;
            }
            if ($set{args}) {
                args_checks($r, dir => $dir, name => $_->{name}, dwarf => $_->{dwarf}) for @args;
            }
            lua_checks($r, dir => $dir, name => 'lua', noexit => $m->{lua_noexit}) if $set{lua};
            plug_checks($r, dir => $dir) if $set{plug};
            hooks_checks($r, builds => \@hooks) if $set{hooks};
            stat_checks($r) if $set{stat};
            $m->{checks}->($c) if $m->{checks};
        };
        if ($how eq '') {
            $checks->();
        } else {
            subtest $how => $checks;
        }
    }
    return;
}

1;
