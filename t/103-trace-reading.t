#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# Reading the trace of a program with threads (t/src/trace/mtread.c,
# whose threads count their own calls, with GCC's -finstrument-functions
# log of the same run, t/src/trace/cyg_graph.c):
#  - A full buffer drops the newest events: each thread's losses come
#    after its last event kept, and its [LOST N EVENTS] line (JSON's
#    {"lost":N}, Chrome's instant event, at that event's time) is right
#    after that event in the merged trace, not before every thread's
#    events; kept and lost add up to each thread's own count, and the
#    events kept are its first calls (their arguments say which).
#  - function_graph's text marks each change of thread as the kernel's
#    tracer marks a change of task (a rule, "CPU) PREVIOUS => NEXT" with
#    the tasks as their lines have them, a rule, an empty line), within a
#    drain and across drains of the output file, never before the first
#    line of a document or of a section under a new tracer's header; each
#    thread's lines are indented by its own depth, and are its
#    -finstrument-functions log, call for call and return for return.
#  - The ends of a process (t/src/trace/ctor_main.cc and ctor_lib.cc,
#    which log their own calls): a shared library's constructor and its
#    static objects' constructors, which run before the program's, are
#    traced, and so are the destructors, static objects' destructors
#    and exit handlers of the library and of the program, whatever their
#    order, preloaded, linked in and linked statically; the environment the library sets
#    for the programs the process runs survives the C library's
#    initialiser (a program system() runs writes FILE.PID).
use strict;
use warnings;
no warnings 'portable';    # 64-bit addresses through hex()
use Test::More;
use JSON::PP ();
use lib 't/lib';
use TestUtil qw(must run_cmd tmpdir slurp spit);
use TraceTest qw($MCC $LIBA $TSRC clean_env mcc_build link_prog traced read_text read_json read_graph_text nm_funcs bias_of
    read_cyg_graph cyg_seqs first_diff);

clean_env();
my $dir = tmpdir();
my $ctl = "$dir/ctl";

must('gcc', '-O2', '-c', "$TSRC/cyg_graph.c", '-o', "$dir/cyg.o");
my $prog = link_prog("$dir/mtread", mcc_build('-pg -mfentry', "$dir/mtread.o", "$TSRC/mtread.c", '-O2',
    '-finstrument-functions', '-pthread'), "$dir/cyg.o", '-pthread');

# The program's own count of each thread's calls: { TID => CALLS }.
sub counted {
    my ($err) = @_;
    return { map { /\A(\d+) (\d+)\z/ ? ($1 => $2) : ('bad' => $_) } split /\n/, $err };
}

# ---- losses: after the thread's last event kept ------------------------------
# Four threads at once, 40 calls of work (each calls leaf twice) each,
# into buffers of 16 events; the trace written once at the end
# (mcount_trace_write), a document of one drain.
my ($NT, $CALLS) = (4, 40);
my %burst = (MCOUNT_TRACE_FILTER => 'work leaf', MCOUNT_TRACE_BUFFER => 16, MCOUNT_TRACE_CONTROL => 0,
    MCOUNT_TRACE_DIR => $ctl);

# Each thread's lost line (LOST: is it one) against its events: the
# index of its last event and of the line after it.  (\%kept, \%lost, \@misplaced)
sub placed {
    my ($ev, $is_lost, $tid_of) = @_;
    my (%kept, %lost, %last, @bad);
    for my $i (0 .. $#$ev) {
        my $tid = $tid_of->($ev->[$i]) // next;
        if ($is_lost->($ev->[$i])) {
            $lost{$tid} += $is_lost->($ev->[$i]);
            push @bad, "thread $tid: its loss at " . ($i + 1) . ', its last event at '
                . (defined $last{$tid} ? $last{$tid} + 1 : 'none') unless defined $last{$tid} && $last{$tid} == $i - 1;
        } else {
            push @bad, "thread $tid: an event at " . ($i + 1) . ' after its loss' if $lost{$tid};
            $kept{$tid}++;
            $last{$tid} = $i;
        }
    }
    return (\%kept, \%lost, \@bad);
}

sub adds_up {
    my ($tag, $kept, $lost, $count) = @_;
    is(scalar(keys %$count), $NT, "$tag: $NT threads counted their calls") or diag explain $count;
    my @bad = grep { ($kept->{$_} // 0) + ($lost->{$_} // 0) != 3 * $count->{$_} } sort keys %$count;
    is_deeply(\@bad, [], "$tag: each thread's events kept and lost add up to its calls (3 events a call)")
        or diag join ' ', map { "$_: kept " . ($kept->{$_} // 0) . ' lost ' . ($lost->{$_} // 0) } sort keys %$count;
    ok(!grep({ !$lost->{$_} } keys %$count), "$tag: every thread lost events (16-event buffers)");
}

{
    my ($st, $out, $err) = traced([$prog, 'burst', $NT, $CALLS, 0], env => \%burst);
    is($st, 0, 'lost, text: exits 0') or diag $err;
    my $count = counted($err);
    my $f = "$dir/burst.txt";
    spit($f, $out);
    my ($ev, $errs) = read_text($f, header => 0);
    is_deeply($errs, [], 'lost, text: every line well formed');
    my ($kept, $lost, $bad) = placed($ev, sub { $_[0]{lost} // 0 }, sub { $_[0]{tid} });
    adds_up('lost, text', $kept, $lost, $count);
    is_deeply($bad, [], 'lost, text: each thread\'s [LOST N EVENTS] right after its last event');
}

{
    my ($st, $out, $err) = traced([$prog, 'burst', $NT, $CALLS, 1], env => { %burst, MCOUNT_TRACE_ARGS => 1 });
    is($st, 0, 'lost, JSON: exits 0') or diag $err;
    my $count = counted($err);
    my $f = "$dir/burst.json";
    spit($f, $out);
    my ($ev, $errs) = read_json($f);
    is_deeply($errs, [], 'lost, JSON: every line well formed');
    my ($kept, $lost, $bad) = placed($ev, sub { $_[0]{lost} // 0 }, sub { $_[0]{tid} });
    adds_up('lost, JSON', $kept, $lost, $count);
    is_deeply($bad, [], 'lost, JSON: each thread\'s {"lost":N} right after its last event');
    # work(I)'s argument: the calls kept are each thread's first
    my (%args, @not);
    push @{ $args{$_->{tid}} }, hex $_->{args}[0] for grep { ($_->{func} // '') eq 'work' } @$ev;
    for my $tid (sort keys %args) {
        my @a = @{ $args{$tid} };
        push @not, "thread $tid: @a" unless "@a" eq join ' ', 0 .. $#a;
    }
    is_deeply(\@not, [], 'lost, JSON: the calls of work kept are each thread\'s first (work(0), work(1)...)');
}

{
    my ($st, $out, $err) = traced([$prog, 'burst', $NT, $CALLS, 2], env => \%burst);
    is($st, 0, 'lost, Chrome: exits 0') or diag $err;
    my $count = counted($err);
    my $doc = eval { JSON::PP->new->decode($out) };
    ok($doc && ref $doc->{traceEvents} eq 'ARRAY', 'lost, Chrome: one JSON document') or diag $@;
    my @ev = grep { $_->{ph} ne 'M' } @{ $doc->{traceEvents} // [] };
    my $is_lost = sub { $_[0]{name} eq 'lost events' ? $_[0]{args}{lost} : 0 };
    my ($kept, $lost, $bad) = placed(\@ev, $is_lost, sub { $_[0]{tid} });
    adds_up('lost, Chrome', $kept, $lost, $count);
    is_deeply($bad, [], 'lost, Chrome: each thread\'s lost events right after its last event');
    my %last;
    my @when;
    for my $e (@ev) {
        if ($is_lost->($e)) {
            push @when, "thread $e->{tid}: at $e->{ts}, its last event at " . ($last{ $e->{tid} } // 'none')
                unless defined $last{ $e->{tid} } && $last{ $e->{tid} } == $e->{ts};
        } else {
            $last{ $e->{tid} } = $e->{ts};
        }
    }
    is_deeply(\@when, [], 'lost, Chrome: at the time of the thread\'s last event');
}

# ---- function_graph: changes of thread ---------------------------------------

# Each thread's calls and returns as the text has them ("> F", "< F"),
# and the lines not indented by their thread's own depth.
sub graph_seqs {
    my ($ev) = @_;
    my (%s, %depth, @bad);
    for my $e (grep { defined $_->{what} } @$ev) {
        my $t = $e->{tid};
        my $d = \$depth{$t};
        $$d //= 0;
        if ($e->{what} =~ /\A(\w+)\(\);\z/) {
            push @{ $s{$t} }, "> $1", "< $1";
        } elsif ($e->{what} =~ /\A(\w+)\(\) \{\z/) {
            push @{ $s{$t} }, "> $1";
            push @bad, "line $e->{line}: indented $e->{indent}, thread $t at depth $$d" if $e->{indent} != 2 * $$d;
            $$d++;
            next;
        } elsif ($e->{what} =~ m{\A\} /\* (\w+) \*/\z}) {
            push @{ $s{$t} }, "< $1";
            $$d-- if $$d;
        } else {
            push @bad, "line $e->{line}: '$e->{what}'";
        }
        push @bad, "line $e->{line}: indented $e->{indent}, thread $t at depth $$d" if $e->{indent} != 2 * $$d;
    }
    return (\%s, \@bad);
}

# The log's calls and returns of work and leaf, per thread.
sub logged {
    my ($log) = @_;
    my $syms = nm_funcs($prog);
    my ($main_at, $cyg) = read_cyg_graph($log);
    my $want = cyg_seqs($syms, bias_of($syms, 'main', $main_at), $cyg);
    return { map { my $s = [grep { /\A[<>] (?:work|leaf)\z/ } @{ $want->{$_} }]; @$s ? ($_ => $s) : () } keys %$want };
}

sub against_log {
    my ($tag, $got, $want) = @_;
    my @d;
    for my $tid (sort keys %{ { %$got, %$want } }) {
        my $d = first_diff($got->{$tid} // [], $want->{$tid} // []);
        push @d, "thread $tid: $d" if $d;
    }
    is_deeply(\@d, [], "$tag: each thread's lines are its -finstrument-functions log, call and return");
}

{
    my ($st, $out, $err) = traced([$prog, 'burst', $NT, 200, 0], env => { MCOUNT_TRACE_FILTER => 'work leaf',
        MCOUNT_TRACE_TRACER => 'function_graph', MCOUNT_TRACE_CONTROL => 0, MCOUNT_TRACE_DIR => $ctl,
        CYG_LOG => "$dir/graph.cyg" });
    is($st, 0, 'graph, one drain: exits 0') or diag $err;
    my $f = "$dir/graph.txt";
    open(my $fh, '>', $f) or die;
    print $fh $out;
    close $fh;
    my ($ev, $errs) = read_graph_text($f, header => 0);
    is_deeply($errs, [], 'graph, one drain: every line well formed; the kernel\'s marker at each change of '
        . 'thread, and nowhere else') or diag(join "\n", @$errs[0 .. ($#$errs < 9 ? $#$errs : 9)]);
    my @marks = grep { $_->{marker} } @$ev;
    cmp_ok(scalar @marks, '>=', $NT - 1, 'graph, one drain: ' . scalar(@marks) . " changes of thread marked");
    my ($seqs, $bad) = graph_seqs($ev);
    is_deeply($bad, [], 'graph, one drain: each line indented by its own thread\'s depth');
    against_log('graph, one drain', $seqs, logged("$dir/graph.cyg"));
}

# Threads one after another, 300 ms apart (the control thread drains
# the file every 20 ms), then a switch to the function tracer for one
# more and back to function_graph for the last.
{
    my $f = "$dir/phases.txt";
    my ($st, $out, $err) = traced([$prog, 'phases', 3], env => { MCOUNT_TRACE_FILTER => 'work leaf',
        MCOUNT_TRACE_TRACER => 'function_graph', MCOUNT_TRACE_OUTPUT => $f, MCOUNT_TRACE_DIR => $ctl,
        CYG_LOG => "$dir/phases.cyg" });
    is($st, 0, 'graph, drains: exits 0') or diag $err;
    my ($ev, $errs) = read_graph_text($f);
    is_deeply($errs, [], 'graph, drains: every line well formed, the marker at each change of thread')
        or diag(join "\n", @$errs);
    my %w = map { $_->{tid} => $_->{comm} } grep { defined $_->{tid} } @$ev;
    my @marks = map { my ($a, $b) = map { /\A *(\S+)-\d+ *\z/ ? $1 : $_ } @$_{qw(from to)}; "$a => $b" }
        grep { $_->{marker} } @$ev;
    is_deeply(\@marks, ['mtread-w0 => mtread-w1', 'mtread-w1 => mtread-w2'],
        'graph, drains: w0 => w1 and w1 => w2 marked, across drains; none before w4, the first of a new section');
    is(join(' ', map { $_->{comm} } grep { $_->{func} } @$ev), join(' ', ('mtread-w3') x 9),
        'graph, drains: the function tracer\'s section between, w3\'s 9 calls');
    my @heads = grep { /\A# tracer: / } split /\n/, slurp($f);
    is("@heads", '# tracer: function_graph # tracer: function # tracer: function_graph',
        'graph, drains: the headers of the three sections');
    my ($seqs, $bad) = graph_seqs($ev);
    is_deeply($bad, [], 'graph, drains: each line indented by its own thread\'s depth');
    my $want = logged("$dir/phases.cyg");
    my ($w3) = grep { $w{$_} eq 'mtread-w3' } keys %w;
    delete $want->{$w3} if defined $w3;
    against_log('graph, drains', $seqs, $want);
}

# ---- the ends of the process: initialisers and finalisers -------------------
# A shared library's constructor, its static objects' constructors
# (_GLOBAL__sub_I_*) and destructors (__tcf_0), its destructor and the
# atexit handler it registers, and the program's static object, its
# destructor and its atexit handler, each call a traced function that
# logs its call (t/src/trace/ctor_lib.cc, ctor_main.cc): the trace has
# every call the log has, in its order, preloaded (the library
# initialised first, DF_1_INITFIRST) and linked in (DT_PREINIT_ARRAY),
# and in a static program with the library's code in it; its end is
# written after every finaliser.
sub mcc_cxx {
    my ($st, $o, $e) = run_cmd([$MCC, 'g++', @_], env => { MCOUNT_CC_FLAGS => '-pg -mfentry' });
    die "mcount-cc g++ @_: $o$e" if $st != 0;
}
mcc_cxx('-O2', '-fPIC', '-shared', '-o', "$dir/libctor.so", "$TSRC/ctor_lib.cc");
mcc_cxx('-O2', '-o', "$dir/ctor", "$TSRC/ctor_main.cc", "-L$dir", '-lctor', "-Wl,-rpath,$dir");
mcc_cxx('-O2', '-o', "$dir/ctor_a", "$TSRC/ctor_main.cc", "-L$dir", '-lctor', "-Wl,-rpath,$dir", $LIBA, '-lpthread');
# (the library's code in the program itself, linked statically)
mcc_cxx('-O2', '-static', '-o', "$dir/ctor_s", "$TSRC/ctor_main.cc", "$TSRC/ctor_lib.cc", $LIBA, '-lpthread');

# The calls a trace in JSON lines has, as the log says them ("FUNC PHASE").
sub trace_calls {
    my ($file) = @_;
    my ($ev, $errs) = read_json($file);
    return ([map { "$_->{func} " . hex($_->{args}[0] // -1) } grep { $_->{func} } @$ev], $errs);
}

my %ends = (MCOUNT_TRACE_FILTER => 'main_work lib_work', MCOUNT_TRACE_ARGS => 1, MCOUNT_TRACE_FORMAT => 'json',
    MCOUNT_TRACE_CONTROL => 0, MCOUNT_TRACE_DIR => $ctl);
for my $v (['preloaded', "$dir/ctor", 1], ['linked in', "$dir/ctor_a", 0], ['static', "$dir/ctor_s", 0]) {
    my ($tag, $p, $pre) = @$v;
    (my $f = "$dir/ends-$tag.json") =~ s/ /-/g;
    my ($st, $out, $err) = traced([$p], preload => $pre, env => { %ends, MCOUNT_TRACE_OUTPUT => $f });
    is("$st $err", '0 ', "ends, $tag: exits 0, nothing said");
    my @log = split /\n/, $out;
    is(scalar(@log), 13, "ends, $tag: the program logs 13 calls");
    my ($got, $errs) = trace_calls($f);
    is_deeply($errs, [], "ends, $tag: every line well formed");
    is(first_diff($got, \@log), '', "ends, $tag: the trace has every call of the log, in order: the library's "
        . 'constructors and static objects\' before the program\'s, every destructor and exit handler after');
}

# The environment the library sets for the processes the program makes
# (MCOUNT_TRACE_OWNER: the first process writes FILE, the others
# FILE.PID) survives the C library's initialiser, which runs after the
# library's: a program run by system() (no exec of the program's own,
# through sh) knows it is not the first.
{
    my $f = "$dir/sys.json";
    my ($st, $out, $err) = traced(["$dir/ctor", "$dir/ctor > $dir/child.log"],
        env => { %ends, MCOUNT_TRACE_OUTPUT => $f });
    is("$st $err", '0 ', 'ends, system(): exits 0, nothing said');
    my @child = glob "$f.*";
    is(scalar @child, 1, 'ends, system(): the child\'s trace is FILE.PID, FILE the first process\'s');
    my ($got) = trace_calls($f);
    is(first_diff($got, [split /\n/, $out]), '', 'ends, system(): the first process\'s calls in FILE');
    ($got) = trace_calls($child[0] // "$f.none");
    is(first_diff($got, [split /\n/, slurp("$dir/child.log")]), '', 'ends, system(): the child\'s in FILE.PID');
}

done_testing();
