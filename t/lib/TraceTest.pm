# SPDX-License-Identifier: GPL-2.0-or-later
package TraceTest;
# Helpers for the tests of libmcount-trace (t/71-*.t ... t/74-*.t):
# building programs through mcount-cc, running them under the library
# (preloaded or linked in), reading the trace strictly (text or JSON
# lines), and naming addresses with nm, which the library's own symbol
# reader has nothing to do with.
use strict;
use warnings;
no warnings 'portable';    # 64-bit addresses through hex()

use Exporter 'import';
use JSON::PP ();
use Math::BigInt;
use POSIX ();
use Test::More ();
use TestUtil qw($TOP run_cmd tmpdir slurp spit);

our @EXPORT_OK = qw($MCC $MT $SO $LIBA $RTINC $TSRC clean_env mcc_build link_prog traced
    read_text text_line each_text_event read_graph_text read_json json_line json_flat chrome_doc nm_funcs func_at bias_of wait_for start_bg stop_bg mt_cli mt_request site_bytes
    hook_form cxxfilt show_seq first_diff against_cyg read_cyg read_cyg_graph read_graph_json graph_compare
    trace_seqs cyg_seqs graph_from_main hazards_unwound $HAZARDS_UNWOUND $UNWIND_UNWOUND read_log read_text_args read_json_args
    against_log san_prog source_params debug_unit @ARGS_PROTO %ARGS_NAMES plan_call_forms rt_call_forms form_has
    stat_table);

our $MCC = "$TOP/bin/mcount-cc";
our $MT = "$TOP/bin/mcount-trace";
our $SO = "$TOP/build/libmcount-trace.so";
our $LIBA = "$TOP/build/libmcount-trace.a";
our $RTINC = "$TOP/rt";
our $TSRC = "$TOP/t/src/trace";

# No variable of the library's (or of mcount-cc's) is inherited by chance.
sub clean_env {
    delete $ENV{$_} for grep { /^(MCOUNT_TRACE_|MCOUNT_CC_)/ } keys %ENV;
    delete $ENV{$_} for qw(LD_PRELOAD XDG_RUNTIME_DIR RECORDMCOUNT_TRACE_LIB);
    die "$SO and $LIBA: run make first\n" unless -f $SO && -f $LIBA;
    return;
}

# mcc_build(HOOK_FLAGS, OUT.o, SRC, CFLAGS...): compile through mcount-cc
# gcc with MCOUNT_CC_FLAGS=HOOK_FLAGS (the object gets its table, or with
# -mrecord-mcount keeps GCC's, which mcount-cc notes); dies on failure or
# on any other message of mcount-cc's (the compiler's are the source's).
sub mcc_build {
    my ($hook, $out, $src, @cflags) = @_;
    my ($st, $o, $e) = run_cmd([$MCC, 'gcc', @cflags, '-c', $src, '-o', $out],
        env => { MCOUNT_CC_FLAGS => $hook });
    my $kept = $hook =~ /-mrecord-mcount/;
    my @msg = grep { /\Amcount-cc:/ && !($kept && /: note: already has a __mcount_loc table; left unchanged\z/) }
        split /\n/, $e;
    die "mcount-cc gcc @cflags -c $src ($hook) failed ($st):\n$o$e" if $st != 0 || @msg;
    return $out;
}

# link_prog(OUT, ARGS...): gcc -o OUT ARGS (no -pg: no gcrt1.o).
sub link_prog {
    my ($out, @args) = @_;
    my ($st, $o, $e) = run_cmd(['gcc', '-o', $out, @args]);
    die "gcc -o $out @args failed ($st):\n$o$e" if $st != 0;
    return $out;
}

# traced([CMD...], env => {...}, preload => 0|1, timeout => S)
# -> (wait status, stdout, stderr): CMD with the library preloaded (unless
# preload => 0) and the variables of env, killed after a generous time.
sub traced {
    my ($cmd, %o) = @_;
    my $t = $o{timeout} // 300;
    # timeout(1) itself must not get the library: env sets it for CMD only.
    return run_cmd(['timeout', '-k', '10', $t, 'env', ($o{preload} // 1 ? "LD_PRELOAD=$SO" : ()),
        map({ "$_=$o{env}{$_}" } sort keys %{ $o{env} // {} }), @$cmd], stdin => $o{stdin});
}

# The trace file in the kernel's text format, read strictly: the four
# header lines first, then one event a line as
#   %16.16s-%-7d [%03u] %6llu.%06llu: FUNC <-PARENT
# (names as $NAME below) or a "COMM-TID [LOST N EVENTS]" line (header => 0: no header, as show
# prints the trace).  Returns (\@events, \@errors);
# each event { comm, tid, cpu, sec (string), func, parent }; lost
# lines are { lost => N, comm, tid }.
# A function's name: a C symbol (name@VERSION: a hidden version's), an
# address in no symbol (FILE+0xADDR: an object's file name and the
# address in its file; 0xADDR: in no object), or a demangled C++ name
# (one with "::" or a parameter list; spaces allowed, no control
# character).
my $NAME = qr/[A-Za-z_][\w.]*(?:\@[\w.]+)?|[^\s\x00-\x1f\/]+\+0x[0-9a-f]+|0x[0-9a-f]+|(?=[^\x00-\x1f]*?(?:::|\())[^\s\x00-\x1f][^\x00-\x1f]*?/;

my @HEADER = ('# tracer: function', '#',
    '#           TASK-PID     CPU#     TIMESTAMP  FUNCTION',
    '#              | |         |         |         |');

sub read_text {
    my ($file, %o) = @_;
    my @ev;
    my $err = each_text_event($file, sub { push @ev, $_[0] }, %o);
    return (\@ev, $err);
}

# The same, read a few MB at a time: EACH(EVENT) for each event, in order;
# returns \@errors.  (A stress test's trace is gigabytes: its events are
# not all kept.)  fast => [REGEX, TAKE], for a test that knows the shape
# of most of its lines: a line after the header that REGEX matches is
# first offered to TAKE(LINE_NUMBER, CAPTURES...), which returns true
# where it took the line (did for it what EACH would do with its event)
# and false to have it read as any other.  TAKE must take no line that
# text_line refuses or reads otherwise.  (No hash an event, no general
# pattern: a trace of a million lines read in a third of the time.)
# block => [BODY, N, TAKE_ALL], for the same test: the file is read a
# few MB at a time, and the lines after the header that BODY (N
# captures, no anchors: /^BODY$/m must match a whole line) matches are
# offered many at once, each run of them between the others, to
# TAKE_ALL(FIRST_LINE_NUMBER, \@CAPTURES: N a line, in order), which
# returns true where it took them all (did for each what TAKE would)
# and false, having taken none, to have them read a line at a time.
# (One call and one match for thousands of lines: a third of the time
# again.)
sub each_text_event {
    my ($file, $each, %o) = @_;
    my @err;
    open(my $fh, '<:raw', $file) or die "$file: $!";
    my $n = 0;
    my $header = $o{header} // 1 ? scalar @HEADER : 0;
    my ($fast, $take) = @{ $o{fast} // [qr/(?!)/, undef] };
    my ($body, $nc, $take_all) = @{ $o{block} // [] };
    my $by_line = sub {
        for my $l (split /^/, $_[0]) {
            $n++;
            push @err, 'the file does not end with a newline' unless $l =~ s/\n\z//;
            if ($n <= $header) {
                push @err, "header line $n: '$l'" unless $l eq $HEADER[$n - 1];
                next;
            }
            if (my @c = $l =~ $fast) {
                next if $take->($n, @c);
            }
            if (my $e = text_line($l, $n)) {
                $each->($e);
            } else {
                push @err, "line $n: '$l'";
            }
        }
    };
    # (whole lines: the others found by one match, a line at a time, and
    # the runs of BODY's between them taken at once)
    my $by_block = sub {
        my ($chunk) = @_;
        my $at = 0;
        my $run = sub {
            my ($to) = @_;
            return if $to <= $at;
            my $piece = substr($chunk, $at, $to - $at);
            my @c = $piece =~ /^$body$/mg;
            my $lines = $piece =~ tr/\n//;
            if (@c == $lines * $nc && $take_all->($n + 1, \@c)) {
                $n += $lines;
            } else {
                $by_line->($piece);
            }
        };
        while ($chunk =~ /^(?!$body$).*\n/mg) {
            my ($from, $to) = ($-[0], $+[0]);
            $run->($from);
            $by_line->(substr($chunk, $from, $to - $from));
            $at = $to;
        }
        $run->(length $chunk);
    };
    my ($buf, $eof) = ('', 0);
    while (!$eof) {
        my $got = read($fh, $buf, 1 << 22, length $buf);
        die "$file: $!" unless defined $got;
        $eof = !$got;
        # (whole lines, the last one with or without its newline at the end)
        my $cut = $eof ? length $buf : rindex($buf, "\n") + 1;
        next unless $cut;
        my $chunk = substr($buf, 0, $cut, '');
        if ($body && $n >= $header && $chunk =~ /\n\z/) {
            $by_block->($chunk);
        } else {
            $by_line->($chunk);
        }
    }
    close $fh;
    for my $i ($n + 1 .. $header) {
        push @err, "header line $i: '(none)'";
    }
    return \@err;
}

# One line of the function tracer's text (or a lost line, in either
# tracer's) as each_text_event gives it, or undef.
sub text_line {
    my ($l, $n) = @_;
    if (my @m = $l =~ /\A(.{16})-(\d+)( *) \[(\d{3})\] ( *\d+)\.(\d{6}): ($NAME) <-($NAME)\z/) {
        my ($comm, $tid, $pad, $cpu, $s, $us, $func, $parent) = @m;
        return undef if length($tid . $pad) < 7 || $pad ne '' && length($tid . $pad) != 7 || length($s) < 6;
        $comm =~ s/\A +//;
        return { comm => $comm, tid => $tid, cpu => $cpu, sec => ($s =~ s/ //gr) . ".$us",
            func => $func, parent => $parent, line => $n };
    }
    if (my @l = $l =~ /\A(.{16})-(\d+)( *) \[LOST (\d+) EVENTS\]\z/) {
        my ($comm, $tid, $pad, $lost) = @l;
        return undef if length($tid . $pad) < 7;
        $comm =~ s/\A +//;
        return { lost => $lost, comm => $comm, tid => $tid, line => $n };
    }
    return undef;
}

my @GRAPH_HEADER = ('# tracer: function_graph', '#',
    '# CPU  TASK/PID         DURATION                  FUNCTION CALLS',
    '# |     |    |           |   |                     |   |   |   |');
my $RULE = ' ' . ('-' x 42);

# The function_graph tracer's text, read strictly (header => 0: none at
# the top, as show prints it), with the function tracer's sections that
# switches of the tracer leave in it, each under its tracer's header.
# A function_graph line is
#   CPU) TASK |DURATION|  INDENT WHAT
# (CPU two wide; TASK the thread's comm-tid, centred in 14 or wider;
# DURATION the kernel's (a mark, microseconds, "us") or blank); a lost
# line is as the function tracer's; and where a line's thread is not
# the previous function_graph line's (since the last header), the
# kernel's marker comes before it, four lines:
#    ------------------------------------------
#   CPU) PREVIOUS => TASK
#    ------------------------------------------
#   (empty)
# CPU and TASK as the next line has them, PREVIOUS as the previous one
# had it; and nowhere else.  Returns (\@events, \@errors): function_graph
# lines as { cpu, task (the field), comm, tid, dur (undef: none), indent
# (spaces), what, line }, markers as { marker => 1, from, to, line }, the
# function tracer's lines and lost lines as each_text_event gives them.
sub read_graph_text {
    my ($file, %o) = @_;
    my (@ev, @err);
    my @l = split /\n/, slurp($file), -1;
    push @err, 'the file does not end with a newline' if @l && $l[-1] ne '';
    pop @l if @l && $l[-1] eq '';
    my ($i, $prev, $mark) = (0, undef, undef);
    push @err, "line 1: '" . ($l[0] // '(none)') . "', not a header" if ($o{header} // 1) && ($l[0] // '') !~ /\A# tracer: /;
    while ($i < @l) {
        my ($n, $l) = ($i + 1, $l[$i]);
        if ($l =~ /\A# tracer: (.*)\z/) {
            my $h = $1 eq 'function_graph' ? \@GRAPH_HEADER : $1 eq 'function' ? \@HEADER : undef;
            if (!$h || join("\n", map { $_ // '' } @l[$i .. $i + 3]) ne join("\n", @$h)) {
                push @err, "line $n: a header that is not the kernel's";
            }
            push @err, "line $n: a header after a marker" if $mark;
            ($prev, $mark) = (undef, undef);
            $i += 4;
            next;
        }
        if ($l eq $RULE) {
            my ($c, $from, $to) = ($l[$i + 1] // '') =~ /\A([ \d]\d)\) (.+?) => (.+)\z/;
            if (!defined $to || ($l[$i + 2] // '') ne $RULE || ($l[$i + 3] // 'x') ne '') {
                push @err, "line $n: a marker that is not the kernel's";
                $i++;
                next;
            }
            push @err, "line $n: a marker after a marker" if $mark;
            push @err, "line $n: a marker before the first line of its section" unless defined $prev;
            push @err, "line $n: a marker from '$from', the previous line's task is '" . ($prev // '') . "'"
                if defined $prev && $from ne $prev;
            $mark = { marker => 1, cpu => $c, from => $from, to => $to, line => $n };
            push @ev, $mark;
            $i += 4;
            next;
        }
        $i++;
        if (my ($cpu, $task, $dur, $ind, $what) =
            $l =~ /\A([ \d]\d)\) (.+?) \|(?: [ +!#*\@\$] (\d+(?:\.\d+)?) us +| {15})\|  ( *)(\S.*)\z/) {
            my ($comm, $tid) = $task =~ /\A *(.*)-(\d+) *\z/;
            if (!defined $tid || length($task) < 14) {
                push @err, "line $n: '$l'";
                next;
            }
            if ($mark) {
                push @err, "line $n: after a marker to '$mark->{to}' on CPU $mark->{cpu}: '$l'"
                    unless $mark->{to} eq $task && $mark->{cpu} eq $cpu;
                push @err, "line $n: a marker where the task did not change" if defined $prev && $prev eq $task;
            } elsif (defined $prev && $prev ne $task) {
                push @err, "line $n: from '$prev' to '$task' without a marker";
            }
            ($prev, $mark) = ($task, undef);
            push @ev, { cpu => $cpu, task => $task, comm => $comm, tid => $tid, dur => $dur, indent => length $ind,
                what => $what, line => $n };
        } elsif (my $e = text_line($l, $n)) {
            push @err, "line $n: after a marker: '$l'" if $mark && !$e->{lost};
            push @ev, $e;
        } else {
            push @err, "line $n: '$l'";
        }
    }
    push @err, 'a marker at the end' if $mark;
    return (\@ev, \@err);
}

# json_line(JSON_PP, LINE): LINE decoded as JSON_PP (a JSON::PP object)
# decodes it, or undef where that fails or gives no object.  Most of a
# trace's lines are objects of printable ASCII strings with no escape,
# numbers, and objects of those (a Chrome event's args): those are read
# by a pattern, to the same hash (a number as JSON::PP makes it: a
# fraction divided by 1.0, any other 0+ itself); every other line goes
# to JSON_PP.  (JSON::PP takes 100 us and more a line: half a minute
# for the 270,000 lines of t/75's trace, 5 s this way.)
my $JSTR = qr/"[\x20\x21\x23-\x5b\x5d-\x7e]*"/;
my $JNUM = qr/-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/;
my $JVAL = qr/$JSTR|$JNUM/;
my $JOBJ = qr/\{(?:$JSTR:$JVAL(?:,$JSTR:$JVAL)*)?\}/;
my $JLINE = qr/\A\{(?:$JSTR:(?:$JVAL|$JOBJ)(?:,$JSTR:(?:$JVAL|$JOBJ))*)?\}\z/;

# The members of an object that $JLINE or $JOBJ matched, as a hash; undef
# for a long integer (JSON::PP's own rule: left to it).
sub json_members {
    my ($text) = @_;
    # (key, then a string, a number or an object: one of the three defined)
    my @m = $text =~ /\G[{,]"([^"]*)":(?:"([^"]*)"|(-?[0-9][^,}]*)|($JOBJ))/g;
    my %h;
    for (my $i = 0; $i < @m; $i += 4) {
        if (defined $m[$i + 1]) {
            $h{ $m[$i] } = $m[$i + 1];
        } elsif (defined(my $v = $m[$i + 2])) {
            if (index($v, '.') >= 0) {
                $h{ $m[$i] } = $v / 1.0;
            } elsif (length $v <= 15 || $v =~ /[eE]/) {
                $h{ $m[$i] } = 0 + $v;
            } else {
                return undef;
            }
        } else {
            $h{ $m[$i] } = json_members($m[$i + 3]) // return undef;
        }
    }
    return \%h;
}

# json_flat(LINE): LINE read by the pattern alone, as JSON::PP would
# read it; undef where the pattern does not take it (json_line then asks
# JSON::PP).  t/105 holds it to JSON::PP's reading.
sub json_flat {
    my ($l) = @_;
    return $l =~ $JLINE ? json_members($l) : undef;
}

# (a JSON::PP that makes big numbers of fractions reads them its way)
sub json_line {
    my ($js, $l) = @_;
    if (!$js->get_allow_bignum) {
        my $h = json_flat($l);
        return $h if $h;
    }
    my $e = eval { $js->decode($l) };
    return ref $e eq 'HASH' ? $e : undef;
}

# chrome_doc(JSON_PP, TEXT): TEXT decoded as JSON_PP decodes it (dies
# where that fails).  A Chrome document as the library writes one, an
# object of traceEvents, one event a line, has its events read by
# json_line; any other text, or one with a line that is no object, is
# JSON_PP's.  (JSON::PP took 8 s for t/78's 125,000 events.)
sub chrome_doc {
    my ($js, $text) = @_;
    if ($text =~ /\A\{"traceEvents":\[\n(.+)\n\]\}\n?\z/s) {
        my @ev = map { json_line($js, $_) } split /,\n/, $1, -1;
        return { traceEvents => \@ev } unless grep { !defined } @ev;
    }
    return $js->decode($text);
}

# The trace in JSON lines, each decoded strictly; (\@events, \@errors).
sub read_json {
    my ($file) = @_;
    my (@ev, @err);
    my $js = JSON::PP->new->utf8;
    my $data = slurp($file);
    push @err, 'the file does not end with a newline' if length $data && $data !~ /\n\z/;
    my $n = 0;
    for my $l (split /\n/, $data) {
        $n++;
        my $e = json_line($js, $l);
        if (!$e) {
            push @err, "line $n: not a JSON object: '$l'";
            next;
        }
        if (exists $e->{lost}) {
            push @err, "line $n: bad lost record '$l'" unless $e->{lost} =~ /\A[1-9]\d*\z/;
        } else {
            # a function event's, as it may be, or function_graph's
            # entry whose return the library could not hook
            my @k = sort grep { $_ ne 'args' && $_ ne 'noexit' } keys %$e;
            push @err, "line $n: keys @k" unless "@k" eq 'addr comm cpu func parent parent_addr tid ts';
            push @err, "line $n: noexit is not true" if exists $e->{noexit} && !JSON::PP::is_bool($e->{noexit});
            push @err, "line $n: bad args '$l'" if exists $e->{args} && ref $e->{args} !~ /\A(HASH|ARRAY)\z/;
            push @err, "line $n: bad addr '$l'" unless ($e->{addr} // '') =~ /\A0x[0-9a-f]+\z/
                && ($e->{parent_addr} // '') =~ /\A0x[0-9a-f]+\z/;
            push @err, "line $n: bad tid/cpu/ts '$l'" unless ($e->{tid} // '') =~ /\A\d+\z/
                && ($e->{cpu} // '') =~ /\A\d+\z/ && $l =~ /"ts":(\d+\.\d{9}),/;
            $e->{ts} = $1;      # as written: a double would lose digits
        }
        $e->{line} = $n;
        push @ev, $e;
    }
    return (\@ev, \@err);
}

# The function symbols of a linked file (FUNC and IFUNC, defined), read
# by readelf: sorted [addr, size, name]; of several names at one address
# the first global one (ppc64le's ELFv2 symbols: the global entry; readelf
# adds "[<localentry>: N]" after their visibility).  ppc64's ELFv1
# symbols are descriptors in .opd: each is given its code's address, the
# descriptor's first doubleword as the file holds it (opd_code).  ("nm"
# below: this list.)
sub nm_funcs {
    my ($file) = @_;
    my ($st, $out, $err) = run_cmd(['readelf', '-sW', $file], env => { LC_ALL => 'C' });
    die "readelf -s $file: $err" if $st != 0;
    my ($opd_ndx, $code) = opd_code($file);
    my %seen;
    my @f;
    for (split /\n/, $out) {
        my ($a, $s, $bind, $ndx, $n) =
            /\A\s*\d+:\s+([0-9a-f]+)\s+(\d+|0x[0-9a-f]+)\s+(?:FUNC|IFUNC)\s+(\w+)\s+\w+(?:\s+\[[^]]*\])?\s+(\w+)\s+(\S+)/
            or next;
        next if $ndx eq 'UND';
        if (defined $opd_ndx && $ndx eq $opd_ndx) {
            $a = $code->{ hex $a } // next;
            $a = sprintf '%x', $a;
        }
        $n =~ s/@.*//;
        next if $seen{"$a $n"}++;
        push @f, [hex $a, $s =~ /^0x/ ? hex $s : $s, $n, $bind eq 'LOCAL' ? 1 : 0];
    }
    @f = sort { $a->[0] <=> $b->[0] || $a->[3] <=> $b->[3] } @f;
    return \@f;
}

# A big-endian ELFv1 ppc64 file's .opd: (its section index, { descriptor's
# address => its code's address }), read by readelf; () for any other file.
sub opd_code {
    my ($file) = @_;
    my ($st, $h) = run_cmd(['readelf', '-hSW', $file], env => { LC_ALL => 'C' });
    return () unless $st == 0 && $h =~ /^\s*Data:.*big endian/m && $h =~ /^\s*Machine:\s+PowerPC64/m
        && $h =~ /^\s*Flags:\s+0x1\b/m;
    my ($ndx) = $h =~ /^\s*\[\s*(\d+)\]\s+\.opd\s/m or return ();
    my ($st2, $x) = run_cmd(['readelf', '-x', '.opd', $file], env => { LC_ALL => 'C' });
    die "readelf -x .opd $file" if $st2 != 0;
    my ($start, $hex);
    for (split /\n/, $x) {
        my ($a, @w) = /\A\s*0x([0-9a-f]+)((?: [0-9a-f]{8}){1,4})/ or next;
        $start //= hex $a;
        ($hex .= $w[0]) =~ s/ //g;
    }
    my %code;
    for (my $i = 0; defined $hex && ($i + 1) * 48 <= length $hex; $i++) {
        $code{ $start + 24 * $i } = hex substr($hex, 48 * $i, 16);
    }
    return ($ndx, \%code);
}

# The function of an nm list that holds ADDR (file address): [addr, size, name] or undef.
# show_seq(SYMS, BIAS, [[FN, SITE]...]): "NAME <-PARENT+OFFSET" strings of
# one call sequence, for comparing and for showing a difference (a return
# address outside the program, into the C library's start-up code,
# differs from run to run).
sub show_seq {
    my ($syms, $bias, $list) = @_;
    return map {
        my ($fn, $site) = @$_;
        my $f = func_at($syms, $fn - $bias);
        my $p = func_at($syms, $site - $bias);
        sprintf '%s <-%s', $f ? $f->[2] : sprintf('?%#x', $fn - $bias),
            $p ? sprintf('%s+%#x', $p->[2], $site - $bias - $p->[0]) : '(outside the program)';
    } @$list;
}

# against_cyg(SYMS, BIAS, CYG, EVENTS, FROM_MAIN) -> (\@want, \@got,
# \@name_errors): a -finstrument-functions log ([[FN, SITE]...], from
# its first main on with FROM_MAIN, for a program whose tracing starts in
# main; () if main is not in it) and the function tracer's JSON events,
# both as show_seq strings, and the events whose function or parent is
# not named as nm names it.
sub against_cyg {
    my ($syms, $bias, $cyg, $ev, $from_main) = @_;
    if ($from_main) {
        my ($i) = grep { my $f = func_at($syms, $cyg->[$_][0] - $bias); $f && $f->[2] eq 'main' } 0 .. $#$cyg;
        return () unless defined $i;
        splice @$cyg, 0, $i + 1;
    }
    my (@got, @names);
    for my $e (@$ev) {
        next if exists $e->{lost};
        my $f = func_at($syms, hex($e->{addr}) - $bias);
        push @got, [$f ? $f->[0] + $bias : hex $e->{addr}, hex $e->{parent_addr}];
        push @names, "line $e->{line}: func $e->{func}, nm says " . ($f ? $f->[2] : 'nothing')
            unless $f && $e->{func} eq $f->[2];
        my $p = func_at($syms, hex($e->{parent_addr}) - $bias);
        push @names, "line $e->{line}: parent $e->{parent}, nm says $p->[2]"
            if $p && $e->{parent} ne $p->[2];
    }
    return ([show_seq($syms, $bias, $cyg)], [show_seq($syms, $bias, \@got)], \@names);
}

# first_diff(\@GOT, \@WANT): where a trace and a -finstrument-functions
# log first differ ('' if nowhere).
sub first_diff {
    my ($got, $want) = @_;
    for my $i (0 .. ($#$got > $#$want ? $#$got : $#$want)) {
        my ($g, $w) = ($got->[$i] // '(end)', $want->[$i] // '(end)');
        return "event $i: trace '$g', -finstrument-functions '$w'" if $g ne $w;
    }
    return '';
}

# cxxfilt(NAME...) -> { NAME => binutils' c++filt of NAME }: how the
# tracer must show a symbol (it demangles C++ names).
sub cxxfilt {
    my @n = @_;
    return {} unless @n;
    my ($st, $out, $err) = run_cmd(['c++filt'], stdin => join("\n", @n) . "\n");
    die "c++filt: $err" if $st != 0;
    my @d = split /\n/, $out;
    die 'c++filt: ' . scalar(@d) . ' names for ' . scalar(@n) if @d != @n;
    my %m;
    @m{@n} = @d;
    return \%m;
}

sub func_at {
    my ($syms, $addr) = @_;
    my ($lo, $hi) = (0, scalar @$syms);
    while ($lo < $hi) {
        my $mid = int(($lo + $hi) / 2);
        if ($syms->[$mid][0] <= $addr) { $lo = $mid + 1 } else { $hi = $mid }
    }
    return undef unless $lo;
    my $s = $syms->[$lo - 1];
    # the first symbol at that address
    my $i = $lo - 1;
    $i-- while $i > 0 && $syms->[$i - 1][0] == $s->[0];
    $s = $syms->[$i];
    return undef if $s->[1] ? $addr >= $s->[0] + $s->[1] : $addr != $s->[0];
    return $s;
}

# The load bias: a symbol's run-time address less its nm address.
sub bias_of {
    my ($syms, $name, $runtime) = @_;
    my ($s) = grep { $_->[2] eq $name } @$syms;
    die "no symbol $name" unless $s;
    return $runtime - $s->[0];
}

# The hook call form at file address ADDR of FILE, from the file's bytes:
# "e8", "ff15", "67e8", "90e8", or the two bytes found.
sub hook_form {
    my ($file, $addr) = @_;
    my ($st, $out) = run_cmd(['readelf', '-SW', $file]);
    for (split /\n/, $out) {
        my ($type, $va, $off, $size) =
            /\]\s+\S+\s+(\w+)\s+([0-9a-f]{8,})\s+([0-9a-f]{6,})\s+([0-9a-f]{6,})\s/ or next;
        next unless $type eq 'PROGBITS' && $addr >= hex $va && $addr + 2 <= hex($va) + hex($size);
        open(my $fh, '<:raw', $file) or die "$file: $!";
        seek $fh, hex($off) + $addr - hex($va), 0 or die;
        read($fh, my $b, 2) == 2 or die;
        my $hex = unpack 'H4', $b;
        return $hex =~ /\Ae8/ ? 'e8' : $hex;
    }
    return '?';
}

# The call forms of src/arch.c's row for an object, from the plan of
# mcount-scan --identify (call-forms and linker-forms): { 'OP/MASK/LEN'
# => 1 }, OP and MASK the first bytes in hex (e8/ff/5, ff90/fff8/6);
# each key it cannot read is a failed test.
sub plan_call_forms {
    my ($plan) = @_;
    my %f;
    for my $key (qw(call-forms linker-forms)) {
        my ($v) = $plan =~ /^\Q$key\E\t(.*)$/m;
        Test::More::ok(defined $v, "the plan has $key");
        for my $w (split ' ', $v // '') {
            my ($len) = $w =~ m{\A[^/]+/(\d+)/};
            my ($op) = $w =~ m{/op=([0-9a-f]+)(?:/|\z)};
            my ($mask) = $w =~ m{/mask=([0-9a-f]+)(?:/|\z)};
            if (defined $len && defined $op && defined $mask) {
                $f{"$op/$mask/$len"} = 1;
            } else {
                Test::More::fail("$key: cannot read '$w'");
            }
        }
    }
    return \%f;
}

# The call forms rt/arch-x86.c's decoder takes on ARCH (x86_64, i386):
# the rows of its x86_forms table, those under `#if defined(__x86_64__)`
# for x86_64 only, under its `#else` for i386 only; the same keys.
sub rt_call_forms {
    my ($arch) = @_;
    my ($table) = slurp("$TOP/rt/arch-x86.c") =~ /^static const struct x86_form x86_forms\[\] = \{\n(.*?)^\};/ms;
    my (%f, $only);
    for (split /\n/, $table // '') {
        if (/\A#if defined\(__x86_64__\)/) {
            $only = 'x86_64';
        } elsif (/\A#else/) {
            $only = 'i386';
        } elsif (/\A#endif/) {
            $only = undef;
        } elsif (/\{ \{ 0x(\w\w), 0x(\w\w) \}, \{ 0x(\w\w), 0x(\w\w) \}, (\d+),/) {
            next if defined $only && $only ne $arch;
            my ($op, $mask) = $4 eq '00' ? ($1, $3) : ("$1$2", "$3$4");
            $f{"$op/$mask/$5"} = 1;
        }
    }
    return \%f;
}

# Do the first bytes HEX (hook_form's: e8, ff15, 67e8...) have the form
# 'OP/MASK/LEN'?
sub form_has {
    my ($form, $hex) = @_;
    my ($op, $mask) = split m{/}, $form;
    $hex = substr($hex . '00', 0, length $op);
    return (hex($hex) & hex($mask)) == hex($op);
}

# Wait up to SECONDS for CODE to return true; returns its last value.
sub wait_for {
    my ($seconds, $code) = @_;
    my $end = time + $seconds;
    while (1) {
        my $v = $code->();
        return $v if $v || time > $end;
        select undef, undef, undef, 0.05;
    }
}

# start_bg([CMD...], env => {...}, in => FILE, out => FILE, err => FILE,
# nice => N) -> PID of a child running CMD (exec'd: the PID is the traced
# program's), N nicer than the test where nice is given; its input FILE
# (a FIFO: the child waits in open for its writer), else /dev/null.
sub start_bg {
    my ($cmd, %o) = @_;
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDIN, '<', $o{in} // '/dev/null' or POSIX::_exit(126);
        open STDOUT, '>', $o{out} or POSIX::_exit(126) if $o{out};
        open STDERR, '>', $o{err} or POSIX::_exit(126) if $o{err};
        defined POSIX::nice($o{nice}) or POSIX::_exit(126) if $o{nice};
        $ENV{$_} = $o{env}{$_} for keys %{ $o{env} // {} };
        { no warnings 'exec'; exec { $cmd->[0] } @$cmd; }
        POSIX::_exit(127);
    }
    return $pid;
}

# Wait for a background child (killing it after SECONDS); its wait status.
sub stop_bg {
    my ($pid, $seconds) = @_;
    my $end = time + ($seconds // 120);
    while (1) {
        my $r = waitpid $pid, POSIX::WNOHANG();
        return $? if $r == $pid;
        return -1 if $r < 0;
        if (time > $end) {
            kill 'KILL', $pid;
            waitpid $pid, 0;
            return $?;
        }
        select undef, undef, undef, 0.05;
    }
}

# mt_cli([{NAME => VALUE}], ARGS): bin/mcount-trace ARGS, with the
# environment changed by the hash first if there is one (a VALUE of
# undef: NAME unset) -> (exit code, stdout, stderr)
sub mt_cli {
    my (@args) = @_;
    my $env = ref $args[0] eq 'HASH' ? shift @args : {};
    local %ENV = %ENV;
    for my $k (keys %$env) {
        if (defined $env->{$k}) { $ENV{$k} = $env->{$k} } else { delete $ENV{$k} }
    }
    my ($st, $out, $err) = run_cmd([$^X, $MT, @args]);
    return (($st & 127) ? 128 + ($st & 127) : $st >> 8, $out, $err);
}

# One request on the control socket DIR/PID, as mcount-trace(1) sends it:
# the whole answer (status line and payload) or undef.
sub mt_request {
    my ($dir, $pid, $line) = @_;
    require Socket;
    socket(my $s, Socket::AF_UNIX(), Socket::SOCK_STREAM(), 0) or return undef;
    connect($s, Socket::pack_sockaddr_un("$dir/$pid")) or return undef;
    syswrite $s, "$line\n";
    my $ans = '';
    my $rin = '';
    vec($rin, fileno($s), 1) = 1;
    while (1) {
        my $r = select(my $rout = $rin, undef, undef, 60);
        last unless $r && $r > 0;
        my $n = sysread $s, my $buf, 65536;
        last unless $n;
        $ans .= $buf;
    }
    close $s;
    return $ans;
}

# The function_graph tracer against GCC's -finstrument-functions enter
# and exit log of the same run (t/src/trace/cyg_graph.c), for t/78 and
# the aarch64 guest.
#
# read_cyg(FILE): t/src/trace/cyg.c's -finstrument-functions log of
# entries, as (main's run-time address, [[FN, SITE] as run-time numbers]).
sub read_cyg {
    my ($file) = @_;
    my @l = split /\n/, slurp($file);
    my ($main) = (shift(@l) // '') =~ /\Amain (0x[0-9a-f]+)\z/ or die "$file: no main line";
    return (hex $main, [map { /\A(0x[0-9a-f]+) (0x[0-9a-f]+)\z/ or die "$file: '$_'"; [hex $1, hex $2] } @l]);
}

# read_cyg_graph(FILE): the log as (main's run-time address, [[DIR, FN,
# SITE, TID]...]).
sub read_cyg_graph {
    my ($file) = @_;
    my @l = split /\n/, slurp($file);
    my ($main) = (shift(@l) // '') =~ /\Amain (0x[0-9a-f]+)\z/ or die "$file: no main line";
    return (hex $main, [map { /\A([<>]) (0x[0-9a-f]+) (0x[0-9a-f]+) (\d+)\z/ or die "$file: '$_'";
        [$1, hex $2, hex $3, $4] } @l]);
}

# The log as strings per thread: "> FUNC" and "< FUNC".  (Its call sites
# are no oracle here: __builtin_return_address(0), which GCC passes, is
# the trampoline in a hijacked function.)
sub cyg_seqs {
    my ($syms, $bias, $log) = @_;
    my %s;
    for my $e (@$log) {
        my ($d, $fn, $site, $tid) = @$e;
        my $f = func_at($syms, $fn - $bias);
        my $n = $f ? $f->[2] : sprintf('?%#x', $fn - $bias);
        push @{ $s{$tid} }, "$d $n";
    }
    return \%s;
}

# The JSON lines of the trace files given, strictly; (\@events, \@errors).
sub read_graph_json {
    my (@files) = @_;
    my (@ev, @err);
    my $js = JSON::PP->new;
    for my $file (@files) {
        my $n = 0;
        for my $l (split /\n/, slurp($file)) {
            $n++;
            my $e = json_line($js, $l);
            if (!$e) {
                push @err, "$file:$n: not a JSON object";
                next;
            }
            my $k = join ' ', sort keys %$e;
            push @err, "$file:$n: keys $k" unless $k eq 'addr comm cpu func parent parent_addr tid ts'
                || $k eq 'addr comm cpu func noexit parent parent_addr tid ts'
                || $k eq 'addr comm cpu duration exit tid ts' || $k eq 'addr comm cpu exit tid ts unwound'
                || $k eq 'addr comm cpu duration exit retval tid ts'
                || $k eq 'comm lost tid';
            push @err, "$file:$n: noexit is not true" if exists $e->{noexit} && !JSON::PP::is_bool($e->{noexit});
            push @err, "$file:$n: negative duration" if exists $e->{duration} && $e->{duration} < 0;
            $e->{child} = $file =~ /\.\d+\z/;    # FILE.PID: a forked child's
            push @ev, $e;
        }
    }
    return (\@ev, \@err);
}

# The trace as strings per thread, in the log's terms; unwound frames
# as exits (C++) or left out (C).  Also checks that each exit closes the
# innermost open entry of its thread, and that each entry's parent
# address is in the function of the enclosing open entry (when that is
# one of the program's): (\%seqs, \@nesting_errors).  A forked child's
# thread begins with the returns of the frames it inherited.
sub trace_seqs {
    my ($syms, $bias, $ev, $unwound_is_exit) = @_;
    my (%s, %open, @bad);
    my $shown = cxxfilt(map { $_->[2] } @$syms);    # the trace's names are demangled
    for my $e (@$ev) {
        next if exists $e->{lost};
        my $f = func_at($syms, hex($e->{addr}) - $bias);
        my $n = $f ? $f->[2] : "?$e->{addr}";
        my $tid = $e->{tid};
        # A function whose returns are not hooked (noexit, "!NAME" here)
        # stays open until a call from its caller, or its caller's exit,
        # shows it has returned.
        my $o = $open{$tid} //= [];
        if (exists $e->{exit}) {
            pop @$o while @$o && $o->[-1] =~ /\A!/;
            my $top = pop @$o;
            push @bad, "tid $tid: exit of $n, innermost open entry " . ($top // 'none')
                unless defined $top ? $top eq $n : $e->{child};
            push @bad, "tid $tid: exit named $e->{exit}, nm and c++filt say $shown->{$n}"
                if $e->{exit} ne ($shown->{$n} // $n);
            push @{ $s{$tid} }, "< $n" if !$e->{unwound} || $unwound_is_exit;
        } else {
            my $p = func_at($syms, hex($e->{parent_addr}) - $bias);
            my $from = sub { $p && $p->[2] =~ /\A\Q$_[0]\E(?:\.cold)?\z/ };
            pop @$o while @$o && $o->[-1] =~ /\A!(.*)/ && !$from->($1);
            my $up = @$o ? $o->[-1] =~ s/\A!//r : undef;
            push @bad, "tid $tid: $n called from " . ($p ? $p->[2] : $e->{parent_addr}) . " inside $up"
                if defined $up && $p && !$from->($up);
            push @$o, $e->{noexit} ? "!$n" : $n;
            push @bad, "tid $tid: entry named $e->{func}, nm and c++filt say $shown->{$n}"
                if $e->{func} ne ($shown->{$n} // $n);
            push @{ $s{$tid} }, "> $n";
        }
    }
    return (\%s, \@bad);
}

# graph_compare(NAME, PROG, LOG, [TRACE_FILE...], CXX, TRIM): every
# thread of the log against the trace (tests of Test::More); returns the
# events.  CXX: an unwound frame stands for an exit (GCC's exit hook runs
# in C++ landing pads), and each function's returns are counted, not
# ordered; TRIM (or undef) edits the log's sequences first.
sub graph_compare {
    my ($name, $prog, $log, $files, $cxx, $trim) = @_;
    my $syms = nm_funcs($prog);
    my ($main_at, $cyg) = read_cyg_graph($log);
    my $bias = bias_of($syms, 'main', $main_at);
    my $want = cyg_seqs($syms, $bias, $cyg);
    $trim->($want) if $trim;
    my ($ev, $errs) = read_graph_json(@$files);
    Test::More::is_deeply($errs, [], "$name: every trace line is a well-formed event");
    Test::More::ok(!grep({ exists $_->{lost} } @$ev), "$name: no event lost");
    my ($got, $bad) = trace_seqs($syms, $bias, $ev, $cxx);
    # A function whose return the library could not hook (noexit:
    # riscv64 without a frame pointer, aarch64 with a signed return
    # address) has its entries and none of its returns.
    my %noexit;
    for my $e (grep { $_->{noexit} } @$ev) {
        my $f = func_at($syms, hex($e->{addr}) - $bias);
        $noexit{ $f ? $f->[2] : "?$e->{addr}" } = 1;
    }
    @$_ = grep { !/\A< (.*)\z/ || !$noexit{$1} } @$_ for values %$want;
    Test::More::is_deeply($bad, [], "$name: each exit closes its thread's innermost call, names are nm's (through c++filt)");
    my $calls = grep { /^>/ } map { @$_ } values %$want;
    my $rets = grep { /^</ } map { @$_ } values %$want;
    Test::More::cmp_ok($rets, '>', 10, "$name: the log has $calls entries and $rets exits in "
        . scalar(keys %$want) . ' threads');
    my @d;
    for my $tid (sort keys %{ { %$want, %$got } }) {
        my ($g, $w) = ($got->{$tid} // [], $want->{$tid} // []);
        if ($cxx) {
            # GCC runs its exit hook in the landing pads in an order of
            # its own: the calls in order, and each function's returns
            # (an unwound frame's mark for one) counted.
            my (%gc, %wc);
            $gc{$_}++ for grep { /^</ } @$g;
            $wc{$_}++ for grep { /^</ } @$w;
            ($g, $w) = ([(grep { /^>/ } @$g), map { "$_ x$gc{$_}" } sort keys %gc],
                [(grep { /^>/ } @$w), map { "$_ x$wc{$_}" } sort keys %wc]);
        }
        my $d = first_diff($g, $w);
        push @d, "thread $tid: $d" if $d;
    }
    Test::More::is_deeply(\@d, [], "$name: each thread's trace is its -finstrument-functions log, call and return");
    return $ev;
}

# A TRIM for graph_compare: a program linked with the library switches
# tracing on in main, so the log from main's entry on, main's own exit
# left out (its return was not hooked).
sub graph_from_main {
    my ($w) = @_;
    for my $s (values %$w) {
        my ($i) = grep { $s->[$_] eq '> main' } 0 .. $#$s;
        splice @$s, 0, $i + 1 if defined $i;
        pop @$s if @$s && $s->[-1] eq '< main';
    }
    return;
}

# The frames t/src/trace/hazards.c and unwind.cc leave without returning,
# by their sources: a function_graph trace marks each one unwound.
# hazards.c: deep(5..0) left by longjmp, spin(4..0) and on_usr1 by
# siglongjmp, and per process (the forked child goes on with the rest
# of main) exit_deep(3..0) and exiter by pthread_exit.
our $HAZARDS_UNWOUND = 'deep=6 spin=5 on_usr1=1 exit_deep=8 exiter=2';
# unwind.cc: catcher(4..6) leaves thrower(n..0); outer(3..5) leaves
# plain_chain(n..0); and rethrower.
our $UNWIND_UNWOUND = (5 + 6 + 7) + (4 + 5 + 6) + 3;

# The unwound frames of hazards.c's events, as $HAZARDS_UNWOUND says them.
sub hazards_unwound {
    my ($ev) = @_;
    my %unw;
    $unw{$_->{exit}}++ for grep { $_->{unwound} } @$ev;
    return join ' ', map { "$_=" . ($unw{$_} // 0) } qw(deep spin on_usr1 exit_deep exiter);
}

# ---- function events against t/src/trace/args.c's own log (t/81, t/82) ----
# The program logs each call's arguments; the trace's, read back from the
# text or the JSON lines, must be those.  $names_of: {function => [the
# parameters' names, in order]}.

# The log: [[name, [values]]...]; strings are hex of their bytes, "-"
# NULL, "!" unreadable, a trailing "+": longer than the trace keeps.
# The prototypes of t/src/trace/args.c's functions, and their
# parameters' names.
our @ARGS_PROTO = ('ints(int a, long b, unsigned c, short d, signed char e, unsigned long long f)',
    'strs(const char *s, int n, char *t)',
    'many(long a1, long a2, long a3, long a4, long a5, long a6, long a7, long a8, long a9)',
    'flags(bool on, u8 b, uint16_t w, void *p)');
our %ARGS_NAMES = (ints => [qw(a b c d e f)], strs => [qw(s n t)], many => [map { "a$_" } 1 .. 9],
    flags => [qw(on b w p)]);

sub read_log {
    my ($file) = @_;
    return [map { my @f = split /\t/, $_, -1; [shift @f, \@f] } grep { !/^=/ } split /\n/, slurp($file)];
}

# A logged value in the trace's terms: integers as decimal strings (the
# bool and the pointer of flags as the prototype types them).
sub expect {
    my ($fn, $i, $v) = @_;
    return $v eq '1' ? 'true' : 'false' if $fn eq 'flags' && $i == 0;
    return sprintf('0x%s', Math::BigInt->new($v)->as_hex =~ s/^0x//r) if $fn eq 'flags' && $i == 3;
    return $v;
}

# ---- the text form: FUNC(name=value, ...) <-PARENT --------------------------

# A text string's bytes, C's escapes undone; undef if malformed.
sub unescape_c {
    my ($s) = @_;
    my $out = '';
    while (length $s) {
        if ($s =~ s/\A\\x([0-9a-f]{2})//) { $out .= chr hex $1 }
        elsif ($s =~ s/\A\\n//) { $out .= "\n" }
        elsif ($s =~ s/\A\\t//) { $out .= "\t" }
        elsif ($s =~ s/\A\\(["\\])//) { $out .= $1 }
        elsif ($s =~ s/\A([^\\"\x00-\x1f\x7f-\xff])//) { $out .= $1 }
        else { return undef }
    }
    return $out;
}

# The arguments of a text line: {name => value} with strings in the
# log's form, or undef.
sub text_args {
    my ($list) = @_;
    my %a;
    pos($list) = 0;
    while (pos($list) < length $list) {
        $list =~ /\G(\w+)=/gc or return undef;
        my $k = $1;
        if ($list =~ /\G"((?:[^"\\]|\\.)*)"(\.\.\.)?/gc) {
            my $b = unescape_c($1) // return undef;
            $a{$k} = unpack('H*', $b) . ($2 ? '+' : '');
        } elsif ($list =~ /\G\(null\)/gc) {
            $a{$k} = '-';
        } elsif ($list =~ /\G\(fault 0x[0-9a-f]+\)/gc) {
            $a{$k} = '!';
        } elsif ($list =~ /\G(0x[0-9a-f]+|-?\d+|true|false)/gc) {
            $a{$k} = $1;
        } else {
            return undef;
        }
        last if pos($list) == length $list;
        $list =~ /\G, /gc or return undef;
    }
    return \%a;
}

sub read_text_args {
    my ($file) = @_;
    my (@ev, @bad);
    for my $l (split /\n/, slurp($file)) {
        next if $l =~ /^#/;
        if ($l =~ /\A.{16}-\d+ +\[\d{3}\] +\d+\.\d{6}: (\w+)\((.*)\) <-(\w+)\z/) {
            my ($fn, $list) = ($1, $2);
            my $a = text_args($list);
            push @bad, $l unless $a;
            push @ev, [$fn, $a // {}];
        } elsif ($l =~ /\A.{16}-\d+ +\[\d{3}\] +\d+\.\d{6}: (\w+) <-(\w+)\z/) {
            push @ev, [$1, undef];
        } else {
            push @bad, $l;
        }
    }
    return (\@ev, \@bad);
}

# ---- the JSON form: "args":{"name":value...} ---------------------------------

# Read without ->utf8, every character of a string is one byte: a byte
# the library wrote as it was (UTF-8) and one it wrote as \u00XX alike.
# That the file is UTF-8 JSON is checked on its own ($JSU).
my $JS = JSON::PP->new->allow_bignum;
my $JSU = JSON::PP->new->utf8->allow_bignum;

# A JSON string argument in the log's form.
sub json_str {
    my ($v) = @_;
    return '-' unless defined $v;
    return '!' if ref $v eq 'HASH' && keys %$v == 1 && exists $v->{fault};
    my $cut = ref $v eq 'HASH' && keys %$v == 1 && exists $v->{cut};
    $v = $v->{cut} if $cut;
    return undef if ref $v || $v =~ /[^\x00-\xff]/;
    return unpack('H*', $v) . ($cut ? '+' : '');
}

sub read_json_args {
    my ($file, $names_of) = @_;
    my (@ev, @bad);
    for my $l (split /\n/, slurp($file)) {
        my $e = eval { $JS->decode($l) };
        if (!$e || ref $e ne 'HASH' || !defined $e->{func} && !defined $e->{exit} || !eval { $JSU->decode($l) }) {
            push @bad, $l;
            next;
        }
        next if defined $e->{exit};
        my $fn = $e->{func};
        if (!exists $e->{args}) {
            push @ev, [$fn, undef];
            next;
        }
        my %a;
        my $names = $names_of->{$fn} // [];
        for my $i (0 .. $#$names) {
            my $v = $e->{args}{ $names->[$i] };
            if ($fn eq 'strs' && $i != 1) {
                $a{ $names->[$i] } = json_str($v) // 'BAD';
            } else {
                $a{ $names->[$i] } = defined $v ? (ref $v && ref $v ne 'Math::BigInt' ? 'BAD' : "$v") : 'BAD';
                $a{ $names->[$i] } = $v ? 'true' : 'false' if JSON::PP::is_bool($v);
            }
        }
        push @bad, $l if keys %{ $e->{args} } != @$names;
        push @ev, [$fn, \%a];
    }
    return (\@ev, \@bad);
}

# san_prog(OUT, SRC): SRC built through mcount-cc (-pg -mfentry, -g, the
# C API) and linked with the library built under ASan and UBSan (its hot
# path excepted: make check builds it), the program itself sanitized.
sub san_prog {
    my ($out, $src) = @_;
    my $asan = "$TOP/build/asan/libmcount-trace.a";
    die "$asan: run make check (or make $asan) first\n" unless -f $asan;
    mcc_build('-pg -mfentry', "$out.o", $src, '-O1', '-g', '-DWITH_API', "-I$RTINC",
        '-fsanitize=address,undefined');
    return link_prog($out, "$out.o", '-fsanitize=address,undefined', $asan, '-lpthread');
}

# The parameter names of SRC's noinline functions, as its source gives
# them: { FUNCTION => [NAME, ...] } (t/src/trace/args.c's shape).
sub source_params {
    my ($src) = @_;
    my $text = slurp($src);
    my %names;
    while ($text =~ /__attribute__\(\(noinline\)\)\s+[\w ]+?\b(\w+)\(([^)]*)\)\s*\{/g) {
        my ($fn, $params) = ($1, $2);
        $names{$fn} = [map { /(\w+)\s*\z/ ? $1 : '?' } split /,/, $params];
    }
    return \%names;
}

# The compilation unit of SRC (its DW_AT_name's last component) in
# FILE's .debug_info, as readelf gives it: (offset in .debug_info,
# length), or ().
sub debug_unit {
    my ($file, $src) = @_;
    my @units;
    for (split /\n/, TestUtil::must('env', 'LC_ALL=C', 'readelf', '--debug-dump=info', $file)) {
        if (/Compilation Unit \@ offset (0x[0-9a-f]+):/) {
            push @units, [hex $1, 0, undef] }
        elsif (/^\s+Length:\s+(0x[0-9a-f]+)/ && @units) { $units[-1][1] = 4 + hex $1 }
        elsif (/DW_AT_name\s*:.*?(\S+)\s*$/ && @units && !defined $units[-1][2]) { $units[-1][2] = $1 }
    }
    my ($cu) = grep { ($_->[2] // '') =~ m{(?:^|/)\Q$src\E\z} } @units;
    return $cu ? @$cu[0, 1] : ();
}

# The events' arguments against the log, call for call; one test.
sub against_log {
    my ($tag, $ev, $log, $names_of) = @_;
    if (@$ev != @$log) {
        Test::More::fail("$tag: " . scalar(@$ev) . ' events, ' . scalar(@$log) . ' calls logged');
        return;
    }
    for my $i (0 .. $#$log) {
        my ($fn, $vals) = @{ $log->[$i] };
        my ($tfn, $a) = @{ $ev->[$i] };
        my $names = $names_of->{$fn};
        my @want = map { "$names->[$_]=" . expect($fn, $_, $vals->[$_]) } 0 .. $#$names;
        my @got = $a ? map { "$_=" . ($a->{$_} // 'NONE') } @$names : ('no arguments');
        if ($tfn ne $fn || "@got" ne "@want") {
            Test::More::fail("$tag: call " . ($i + 1) . ": $tfn(@got), logged $fn(@want)");
            return;
        }
    }
    Test::More::pass("$tag: the arguments of all " . scalar(@$log) . ' calls are the logged ones');
}

# The bytes of each site of the program FILE running as PID (its
# __mcount_loc table read in its memory, relocated; 6 bytes a site),
# hex, one string a site.
sub site_bytes {
    my ($pid, $file) = @_;
    my ($st, $sh) = run_cmd(['readelf', '-SW', $file]);
    my ($va, $size) = $sh =~ /\s__mcount_loc\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)/ or die "$file: no table";
    # (a PIE: the program's own mapping, the lowest of its file, is its
    # bias; the library maps the file too, to read it)
    no warnings 'portable';
    my ($base) = sort { $a <=> $b } map { /^([0-9a-f]+)-\S+ \S+ 00000000 .* \Q$file\E$/ ? hex $1 : () }
        split /\n/, slurp("/proc/$pid/maps");
    open(my $mem, '<:raw', "/proc/$pid/mem") or die "/proc/$pid/mem: $!";
    no warnings 'portable';       # (64-bit addresses)
    my $read = sub {
        my ($at, $len) = @_;
        sysseek($mem, $at, 0) or die "seek: $!";
        sysread($mem, my $b, $len) == $len or die "read $at: $!";
        return $b;
    };
    my @loc = unpack 'Q<*', $read->($base + hex $va, hex $size);
    return map { unpack 'H*', $read->($_, 6) } @loc;
}


# The profiler's table (doc/mcount-trace.pod, stat): ({ FUNCTION => {
# hits, time, avg, s2, self } } in us, [the functions in its order], {
# FUNCTION => its calls in Hit without a time }, the lines that are
# none of those nor the heading).
sub stat_table {
    my ($text) = @_;
    my (%t, @order, %untimed, @other);
    for (split /\n/, $text) {
        if (/^  (\S+)\s+(\d+)\s+([\d.]+) us\s+([\d.]+) us\s+([\d.]+)\s+([\d.]+) us$/) {
            push @other, "two rows of $1" if $t{$1};
            $t{$1} = { hits => $2, time => $3, avg => $4, s2 => $5, self => $6 };
            push @order, $1;
        } elsif (/^  \((\d+) calls in Hit without a time, their returns not hooked:((?: \S+ \d+)+)\)$/) {
            my ($all, $list) = ($1, $2);
            %untimed = $list =~ /(\S+) (\d+)/g;
            my $sum = 0;
            $sum += $_ for values %untimed;
            push @other, "$_ (the sum is $sum)" if $sum != $all;
        } elsif (!/^mcount-trace: the function profile \(MCOUNT_TRACE_STAT\):$/
            && !/^  Function\s+Hit\s+Time\s+Avg\s+s\^2 \(us\^2\)\s+Self$/ && !/^  [-\s]+$/) {
            push @other, $_;
        }
    }
    return (\%t, \@order, \%untimed, \@other);
}

1;
