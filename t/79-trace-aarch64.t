#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# libmcount-trace on aarch64 (build/aarch64/), under full-system emulation:
# Debian's arm64 kernel booted by qemu-system-aarch64 (t/lib/A64System.pm
# says why not qemu-user; the first job shows the machine runs code
# changed through /proc/self/mem, as the tracer changes it).
#
#  - The -finstrument-functions oracle of t/71: t/src/trace/oracle.c cross-
#    compiled with -pg and -finstrument-functions through mcount-cc; traced
#    with every function on, the trace is the __cyg_profile_func_enter log,
#    function and parent, event for event; names are nm's; the output is
#    that of a plain aarch64 build.  Preloaded (switched on at start-up;
#    the sites are `bl` to _mcount's PLT entry), and linked in as PIE and
#    -static (switched on from main by the C API: live, after a
#    constructor has already run leaf with its site a NOP).  With no
#    filter: no event.
#  - Live switching under load (t/src/trace/a64/toggle.c): threads run
#    hot_b/hot_a while main switches them on and off; no crash, every
#    event well formed and from a switched-on function with nm's address
#    and a parent in its caller; after each enable every worker's events
#    appear, after each disable (and the calls under way) none, in 8
#    rounds written out and 100 counted by the program; after each switch
#    the sites read as the library wrote them; the
#    program's own SIGTRAP handler gets its brk and raise() traps; the
#    output is that of a plain build.  The emulator can keep running a
#    block translated from a site's old bytes after the site was written
#    (toggle.c says when and why): events while the memory says `nop`,
#    before the program writes the page again, are counted and shown, not
#    failed; every event after that write is a failure.
use strict;
use warnings;
no warnings 'portable';    # 64-bit addresses through hex()
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP must run_cmd tmpdir slurp spit);
use TraceTest qw($MCC $RTINC $TSRC read_json nm_funcs func_at bias_of show_seq first_diff against_cyg);
use A64System qw($A64CC a64_missing a64_boot);

my $A64 = "$TOP/build/aarch64";
my $missing = a64_missing();
$missing .= ($missing ? '; ' : '') . "$A64/libmcount-trace.so and .a: run make"
    unless -f "$A64/libmcount-trace.so" && -f "$A64/libmcount-trace.a";
if ($missing) {
    fail($missing);
    done_testing();
    exit;
}
delete $ENV{$_} for grep { /^(MCOUNT_TRACE_|MCOUNT_CC_)/ } keys %ENV;

my $dir = tmpdir();

# mcount-cc with the cross compiler (the object gets its table).
sub mcc {
    my ($out, $src, @cflags) = @_;
    my ($st, $o, $e) = run_cmd([$MCC, $A64CC, @cflags, '-c', $src, '-o', $out]);
    die "mcount-cc $A64CC @cflags -c $src failed ($st):\n$o$e" if $st != 0;
    return $out;
}

# ---- builds ----
must($A64CC, '-O2', '-static', '-o', "$dir/smc", "$TSRC/a64/smc.c");
my %files = ('/lib/mt/libmcount-trace.so' => "$A64/libmcount-trace.so", '/smc' => "$dir/smc");
must($A64CC, '-O2', '-o', "$dir/plain", "$TSRC/oracle.c");
must($A64CC, '-O2', '-c', "$TSRC/cyg.c", '-o', "$dir/cyg.o");
$files{'/plain'} = "$dir/plain";

# name, compile flags, link flags, 'so' or 'a'
my @variants = (['pie-preloaded', [], [], 'so'], ['pie-linked', [], [], 'a'],
    ['static-linked', [], ['-static'], 'a']);
my @jobs = ({ name => 'smc', argv => ['/smc'] }, { name => 'plain', argv => ['/plain', 3] });
for my $v (@variants) {
    my ($name, $cf, $lf, $mode) = @$v;
    my @api = $mode eq 'a' ? ('-DWITH_API', "-I$RTINC") : ();
    mcc("$dir/$name.o", "$TSRC/oracle.c", '-O2', '-finstrument-functions', @api, @$cf);
    must($A64CC, '-o', "$dir/$name", "$dir/$name.o", "$dir/cyg.o",
        $mode eq 'a' ? "$A64/libmcount-trace.a" : (), @$lf);
    $files{"/$name"} = "$dir/$name";
    my %on = $mode eq 'a' ? (ORACLE_ENABLE => '*') : (MCOUNT_TRACE_FILTER => '*');
    my %pre = $mode eq 'so' ? (LD_PRELOAD => '/lib/mt/libmcount-trace.so') : ();
    my %common = (%pre, MCOUNT_TRACE_FORMAT => 'json', MCOUNT_TRACE_DIR => '/tmp/ctl');
    push @jobs, { name => $name, argv => ["/$name", 3], env => { %common, %on,
        CYG_LOG => "/tmp/$name.cyg", MCOUNT_TRACE_OUTPUT => "/tmp/$name.json" },
        files => ["/tmp/$name.cyg", "/tmp/$name.json"] },
        { name => "$name-off", argv => ["/$name", 3], env => { %common,
        CYG_LOG => "/tmp/$name-off.cyg", MCOUNT_TRACE_OUTPUT => "/tmp/$name-off.json" },
        files => ["/tmp/$name-off.cyg", "/tmp/$name-off.json"] };
}

# the live switching program, and its plain build
mcc("$dir/toggle.o", "$TSRC/a64/toggle.c", '-O2', '-DWITH_API', "-I$RTINC");
must($A64CC, '-static', '-no-pie', '-o', "$dir/toggle", "$dir/toggle.o", "$A64/libmcount-trace.a",
    '-lpthread');
must($A64CC, '-O2', '-static', '-no-pie', '-o', "$dir/toggle-plain", "$TSRC/a64/toggle.c", '-lpthread');
$files{'/toggle'} = "$dir/toggle";
$files{'/toggle-plain'} = "$dir/toggle-plain";
my $QUICK = 100;
my @tfiles = ('/tmp/rapid.json',
    map { ("/tmp/on-$_.json", "/tmp/settle-$_.json", "/tmp/stale-$_.json", "/tmp/off-$_.json") } 0 .. 7);
push @jobs, { name => 'toggle-plain', argv => ['/toggle-plain'] },
    { name => 'toggle', argv => ['/toggle'], env => { TOGGLE_DIR => '/tmp', MCOUNT_TRACE_BUFFER => 256,
        MCOUNT_TRACE_DIR => '/tmp/ctl', TOGGLE_QUICK => $QUICK }, files => [@tfiles, '/tmp/quick.txt'] };

# ---- one boot ----
my $t0 = time;
my ($r, $console, $qst) = a64_boot(files => \%files, jobs => \@jobs, timeout => 900);
ok($r->{'(done)'}, 'the machine booted, ran every job and powered off (' . (time - $t0) . ' s)')
    or diag "qemu status $qst; console:\n" . substr($console, -3000);

is($r->{smc}{stdout}, "f 1 2 3\n",
    'the emulated machine runs code changed through /proc/self/mem (as the tracer writes it)');
my $want_out = $r->{plain}{stdout} // '';
like($want_out, qr/\Aresult -?\d+ \d+\.\d{4}\n\z/, "the plain aarch64 program prints $want_out");

# ---- the oracle ----
sub read_cyg {
    my ($data) = @_;
    my @l = split /\n/, $data // '';
    my ($main) = (shift(@l) // '') =~ /\Amain (0x[0-9a-f]+)\z/ or return (undef, []);
    return (hex $main, [map { /\A(0x[0-9a-f]+) (0x[0-9a-f]+)\z/ ? [hex $1, hex $2] : [0, 0] } @l]);
}

sub json_of {
    my ($data) = @_;
    return ([], ['no trace file']) unless defined $data;
    my $f = "$dir/json." . rand();
    spit($f, $data);
    return read_json($f);
}

for my $v (@variants) {
    my ($name, undef, undef, $mode) = @$v;
    my $j = $r->{$name} // {};
    my $syms = nm_funcs("$dir/$name");
    is($j->{status}, 0, "$name: exits 0 traced") or diag $j->{stderr};
    is($j->{stderr}, '', "$name: the library says nothing");
    is($j->{stdout}, $want_out, "$name: the output of the plain build");
    my ($ev, $errs) = json_of($j->{files}{"/tmp/$name.json"});
    is_deeply($errs, [], "$name: every trace line is a well-formed event");
    my ($main_at, $cyg) = read_cyg($j->{files}{"/tmp/$name.cyg"});
    ok(defined $main_at, "$name: the -finstrument-functions log") or next;
    my $bias = bias_of($syms, 'main', $main_at);
    my ($want, $got, $names) = against_cyg($syms, $bias, $cyg, $ev, $mode eq 'a');
    ok(defined $want, "$name: main is in the log") if $mode eq 'a';
    my @want = @{ $want // [] };
    my @names = @{ $names // [] };
    push @names, map { "line $_->{line}: comm $_->{comm}" } grep { !exists $_->{lost} && $_->{comm} ne $name } @$ev;
    cmp_ok(scalar @want, '>', 30, "$name: the program entered " . scalar(@want) . ' functions');
    is(first_diff($got // [], \@want), '',
        "$name: the trace is the -finstrument-functions log, function and parent, event for event");
    is_deeply(\@names, [], "$name: each event's function and parent are nm's, its command the program's");
    ok(!grep({ exists $_->{lost} } @$ev), "$name: no event lost");

    my $o = $r->{"$name-off"} // {};
    is($o->{status}, 0, "$name, no filter: exits 0") or diag $o->{stderr};
    is($o->{stdout}, $want_out, "$name, no filter: the output of the plain build");
    is($o->{files}{"/tmp/$name-off.json"} // '', '', "$name, no filter: no event");
    my ($m0, $cyg0) = read_cyg($o->{files}{"/tmp/$name-off.cyg"});
    splice @$cyg0, 0, scalar(@$cyg0) - scalar(@$cyg) if $mode eq 'a';
    is_deeply([show_seq($syms, bias_of($syms, 'main', $m0 // 0), $cyg0)], \@want,
        "$name, no filter: the same functions entered");
}

# ---- live switching ----
{
    my $p = $r->{'toggle-plain'} // {};
    my $t = $r->{toggle} // {};
    like($p->{stdout} // '', qr/\A(worker \d sum -?\d+\n){3}traps 2\n\z/,
        'toggle, plain build: three sums and both traps');
    is($t->{status}, 0, 'toggle: exits 0 (no crash)') or diag $t->{stderr};
    is($t->{stderr}, '', 'toggle: nothing on stderr');
    is($t->{stdout}, $p->{stdout}, 'toggle: the output of the plain build (sums, traps)');
    my $syms = nm_funcs("$dir/toggle");
    my %caller = (hot_a => 'hot_b', hot_b => 'worker');
    my (@bad, %on_funcs, @off, %stale);
    my $events = 0;
    for my $f (@tfiles) {
        my ($ev, $errs) = json_of($t->{files}{$f});
        push @bad, map { "$f: $_" } @$errs;
        for my $e (@$ev) {
            if (exists $e->{lost}) {
                push @off, "$f: lost $e->{lost}" if $f =~ /off-/;
                $stale{$f} += $e->{lost} if $f =~ /stale-/;
                next;
            }
            $events++;
            my $fn = func_at($syms, hex $e->{addr});
            my $pa = func_at($syms, hex $e->{parent_addr});
            push @bad, "$f line $e->{line}: $e->{func} at $e->{addr}, nm: " . ($fn ? $fn->[2] : '-')
                unless $fn && $fn->[2] eq $e->{func} && $caller{$e->{func}};
            push @bad, "$f line $e->{line}: $e->{func} <-$e->{parent} ($e->{parent_addr})"
                unless $caller{$e->{func}} && $pa && $pa->[2] eq $caller{$e->{func}};
            $on_funcs{$1}{$e->{tid}}{$e->{func}} = 1 if $f =~ m{/on-(\d+)\.json\z};
            push @off, "$f line $e->{line}: $e->{func} (tid $e->{tid})" if $f =~ /off-/;
            $stale{$f}++ if $f =~ /stale-/;
        }
    }
    cmp_ok($events, '>', 100, "toggle: $events events");
    is_deeply(\@bad, [], 'toggle: every event well formed, of hot_a or hot_b, at nm\'s address, '
        . 'from its caller');
    # hot_a's events alone may show a worker: after an enable the
    # emulator has also been seen to run hot_b's old `nop` on, even after
    # toggle.c wrote the page back (cause not known; see
    # doc/architectures.md).
    is_deeply([map { scalar keys %{ $on_funcs{$_} // {} } } 0 .. 7], [(3) x 8],
        'toggle: after each of 8 live enables, events from all 3 workers');
    splice @off, 10 if @off > 10;
    is_deeply(\@off, [], 'toggle: after each live disable (and the calls under way), no event');
    my ($rounds, $q_on, $q_stale, $q_stale_rounds, $q_off) = ($t->{files}{'/tmp/quick.txt'} // '')
        =~ /\Arounds (\d+) on (\d+) stale (\d+) stale-rounds (\d+) off (\d+)\n\z/;
    is($rounds, $QUICK, "toggle: $QUICK more rounds, counted by the program");
    is($q_on, $QUICK, 'toggle: events after each of their enables');
    is($q_off, 0, 'toggle: no event after any of their disables');
    # The emulator's (toggle.c): shown, so that its rate stays visible.
    my $st = join ', ', map { "$_ $stale{$_}" } sort keys %stale;
    note 'emulator: a block translated from the old bytes ran on after a disable in '
        . ($q_stale_rounds // '?') . " of $QUICK counted rounds (" . ($q_stale // '?') . ' events)'
        . ($st ? "; in the written rounds: $st" : '');
}

done_testing();
