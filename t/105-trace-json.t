#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# The quick reader of JSON traces (TraceTest's json_flat, json_line and
# chrome_doc: the host's trace tests and every booted guest's checks
# read traces with it) reads what JSON::PP reads, value for value and
# type for type (a number stays a number, a string a string):
#  - on real traces of t/src/trace/jnames.c in every form the library
#    writes JSON in: JSON lines and Chrome's document, of the function
#    tracer and of function_graph (exits, durations, return values,
#    entries whose return is not hooked, frames left by longjmp), with
#    function events' arguments (strings with quotes, backslashes,
#    control characters, UTF-8 and bytes that are not UTF-8, cut short,
#    null, unreadable; integers of 64 bits, booleans), raw argument
#    words, lost events, a thread whose name needs escapes and UTF-8,
#    functions whose names are UTF-8; read as bytes (JSON::PP->new->utf8,
#    as read_json does) and as characters (JSON::PP->new, as
#    read_graph_json and chrome_doc's callers do), and with big numbers
#    (JSON::PP->new->allow_bignum, which json_line leaves to JSON::PP);
#  - on malformed lines: a list of them, and thousands made from the
#    real lines by cutting, dropping, doubling and inserting characters:
#    where JSON::PP fails, or reads no object, json_line reads nothing;
#    where the pattern takes a line, JSON::PP reads the same;
#  - on malformed Chrome documents: chrome_doc dies where JSON::PP dies
#    and reads the same where it does not.
use strict;
use warnings;
use Test::More;
use JSON::PP ();
use lib 't/lib';
use TestUtil qw(must tmpdir slurp);
use TraceTest qw($TSRC clean_env mcc_build link_prog traced json_line json_flat chrome_doc);

clean_env();
my $dir = tmpdir();

# (mcount: realign's return is not hooked)
mcc_build('-pg', "$dir/jnames.o", "$TSRC/jnames.c", '-O1', '-fno-optimize-sibling-calls');
link_prog("$dir/jnames", "$dir/jnames.o", '-lpthread');
my $plain;    # (what the program prints, untraced)

my $PROTO = 'say(const char *s, long n, unsigned long long u, bool b)';

# One traced run; the trace's text.
sub trace {
    my ($tag, $fmt, %env) = @_;
    my $out = "$dir/$tag.$fmt";
    my ($st, $o, $e) = traced(["$dir/jnames", 3],
        env => { MCOUNT_TRACE_FORMAT => $fmt, MCOUNT_TRACE_OUTPUT => $out, MCOUNT_TRACE_CONTROL => 0,
            MCOUNT_TRACE_FILTER => '*', %env });
    is($st, 0, "$tag ($fmt): runs") or diag($e);
    is($o, $plain //= must("$dir/jnames", 3), "$tag ($fmt): prints what the plain run prints");
    return slurp($out);
}

my %runs = (
    function => { MCOUNT_TRACE_EVENTS => $PROTO },
    graph => { MCOUNT_TRACE_EVENTS => $PROTO, MCOUNT_TRACE_TRACER => 'function_graph', MCOUNT_TRACE_RETVAL => 1 },
    raw => { MCOUNT_TRACE_ARGS => 3 },
    lost => { MCOUNT_TRACE_EVENTS => $PROTO, MCOUNT_TRACE_TRACER => 'function_graph', MCOUNT_TRACE_BUFFER => 64 },
);
my (%jsonl, %chrome);
for my $r (sort keys %runs) {
    $jsonl{$r} = trace($r, 'json', %{ $runs{$r} });
    $chrome{$r} = trace($r, 'chrome', %{ $runs{$r} });
}

# What the traces hold, that the readers are held to.
my $all = join '', values %jsonl;
my $alld = join '', values %chrome;
for my $c (['a thread name with a quote, a backslash, a control character and UTF-8',
        qr/"comm":"t\\"q\\\\b\\u0001\\u0009\xc3\xa9\xe2\x82\xac"/],
    ['a plain thread name', qr/"comm":"jnames"/],
    ['a function whose name is UTF-8', qr/"func":"na\xc3\xafve_\xce\xbb"/],
    ['a string argument with quotes and backslashes', qr/"s":"a \\"quoted\\" \\\\back\\\\slashed"/],
    ['a string argument with \n, \t and \u escapes', qr/"s":"new\\nline\\ttab\\u000dret\\u0001\\u001f\\u007f"/],
    ['a string argument in UTF-8', qr/"s":"caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e"/],
    ['a string argument of bytes that are not UTF-8', qr/"s":"not utf-8: \\u00ff\\u00fe \\u0080 \\u00c3"/],
    ['a string argument cut short', qr/"s":\{"cut":"a long one/],
    ['a null string argument', qr/"s":null/],
    ['an unreadable string argument', qr/"s":\{"fault":"0x10"\}/],
    ['a 64-bit unsigned argument', qr/"u":18446744073709551615\b/],
    ['a 64-bit negative argument', qr/"n":-9223372036854775808\b/],
    ['a boolean argument', qr/"b":true/],
    ['raw argument words', qr/"args":\["0x[0-9a-f]+","0x[0-9a-f]+","0x[0-9a-f]+"\]/],
    ['function_graph exits with a return value', qr/"exit":"say","addr":"0x[0-9a-f]+","duration":\d+\.\d{9},"retval":"0x0"/],
    ['an entry whose return is not hooked', qr/"noexit":true/],
    ['a frame left by longjmp', qr/"exit":"leap","addr":"0x[0-9a-f]+","unwound":true\}/],
    ['lost events', qr/\{"lost":[1-9]\d*,"comm":"/]) {
    ok($all =~ $c->[1], "the JSON lines have $c->[0]");
}
for my $c (['a thread name with escapes and UTF-8', qr/"name":"thread_name","ph":"M",.*"args":\{"name":"t\\"q\\\\b\\u0001/],
    ['entries with arguments', qr/"name":"say","ph":"B",.*"args":\{"s":/],
    ['exits with return values', qr/"name":"say","ph":"E",.*"args":\{"retval":"0x0"\}/],
    ['function events with arguments', qr/"name":"say","ph":"i",.*"s":"caf\xc3\xa9/],
    ['a frame left by longjmp', qr/"name":"leap","ph":"E",.*"args":\{"unwound":true\}/],
    ['lost events', qr/"name":"lost events","ph":"i",.*"args":\{"lost":[1-9]\d*\}/]) {
    ok($alld =~ $c->[1], "Chrome's documents have $c->[0]");
}

# What a reading is, to the last bit: its canonical JSON, ASCII only
# (strings and numbers told apart; undef: nothing read).
my $CANON = JSON::PP->new->canonical->ascii->allow_nonref->allow_bignum;
sub canon { return defined $_[0] ? $CANON->encode($_[0]) : 'undef' }

# (and a JSON::PP that reads fractions and long integers as Math::Big*:
# json_line leaves such lines to it)
my %js = (bytes => JSON::PP->new->utf8, chars => JSON::PP->new, bignum => JSON::PP->new->utf8->allow_bignum);

# Each line, in each reading (those named, else all): json_line and
# json_flat (where it takes the line) against JSON::PP; returns the lines
# json_flat took and a list of the differences.
sub compare_lines {
    my ($readers, @lines) = @_;
    my @k = @{ $readers // [sort keys %js] };
    my ($flat, @diff) = (0);
    for my $l (@lines) {
        for my $k (@k) {
            my $pp = eval { $js{$k}->decode($l) };
            my $ref = ref $pp eq 'HASH' ? canon($pp) : 'undef';
            my $f = $k eq 'bignum' ? undef : json_flat($l);
            if (defined $f) {
                $flat++;
                push @diff, "$k: json_flat read " . canon($f) . ", JSON::PP $ref: '$l'" if canon($f) ne $ref;
            }
            my $got = canon(json_line($js{$k}, $l));
            push @diff, "$k: json_line read $got, JSON::PP $ref: '$l'" if $got ne $ref;
        }
    }
    return ($flat, @diff);
}

# ---- the real traces ----

my @real;
for my $r (sort keys %jsonl) {
    my @l = split /\n/, $jsonl{$r};
    my ($flat, @diff) = compare_lines(undef, @l);
    is_deeply([@diff[0 .. ($#diff > 4 ? 4 : $#diff)]], [], "$r (JSON lines): every line read as JSON::PP reads it");
    # (raw's lines have arrays: JSON::PP reads them all)
    cmp_ok($flat, '>', 0, "$r (JSON lines): some of them by the pattern") if $r ne 'raw';
    push @real, @l;
}
for my $r (sort keys %chrome) {
    my $d = $chrome{$r};
    ok($d =~ qr/\A\{"traceEvents":\[\n.*\n\]\}\n\z/s, "$r (Chrome): a document of an event a line");
    my ($flat, @diff) = compare_lines(undef, map { s/,\z//r } grep { /\A\{"name"/ } split /\n/, $d);
    is_deeply([@diff[0 .. ($#diff > 4 ? 4 : $#diff)]], [], "$r (Chrome): every event read as JSON::PP reads it");
    cmp_ok($flat, '>', 0, "$r (Chrome): some of them by the pattern");
    for my $k (sort keys %js) {
        is(canon(chrome_doc($js{$k}, $d)), canon($js{$k}->decode($d)), "$r (Chrome, $k): chrome_doc reads the document as JSON::PP does");
    }
    push @real, map { s/,\z//r } grep { /\A\{"name"/ } split /\n/, $d;
}

# ---- malformed lines ----

my $line = (grep { /"func":"say".*"s":"plain"/ } split /\n/, $jsonl{function})[0];
my $noargs = (grep { /"func":"work"/ && !/"args"/ } split /\n/, $jsonl{function})[0];
ok(defined $line && defined $noargs, 'the lines the malformed ones are made of');
my @bad = (
    '', ' ', '{', '}', '{}', '[]', '[{"a":1}]', '"a"', '1', 'null', 'true', '{"a":1}{"b":2}', '{"a":1},',
    '{"a":1} ', ' {"a":1}', "{\"a\":1}\t", '{"a" :1}', '{"a": 1}', '{ "a":1}', '{"a":1 }', '{"a":1,}', '{,"a":1}',
    '{"a":1,,"b":2}', '{"a"}', '{"a":}', '{:1}', '{"a"::1}', '{"a":1:2}', '{a:1}', "{'a':1}", '{"a":\'x\'}',
    '{"a":01}', '{"a":-01}', '{"a":1.}', '{"a":.5}', '{"a":+1}', '{"a":-}', '{"a":1e}', '{"a":1e+}', '{"a":0x10}',
    '{"a":1.5e3}', '{"a":1E-3}', '{"a":-0}', '{"a":-0.0}', '{"a":1e400}', '{"a":123456789012345}',
    '{"a":1234567890123456}', '{"a":12345678901234567890}', '{"a":123456789012345678901234}', '{"a":-9223372036854775808}',
    '{"a":NaN}', '{"a":Infinity}', '{"a":-Infinity}', '{"a":nul}', '{"a":True}', '{"a":"x}', '{"a":"x\\"}',
    '{"a":"x\\q"}', '{"a":"\\u00"}', '{"a":"\\u00zz"}', '{"a":"\\ud800"}', '{"a":"\\ud834\\udd1e"}', '{"a":"\\/"}',
    "{\"a\":\"x\ty\"}", "{\"a\":\"x\ny\"}", "{\"a\":\"x\x7fy\"}", "{\"a\":\"\xc3\xa9\"}", "{\"a\":\"\xc3\"}",
    "{\"a\":\"\xff\"}", "{\"a\":\"\xed\xa0\x80\"}", "{\"\xc3\xa9\":1}", '{"a":1,"a":2}', '{"a":{"b":1},"a":"x"}',
    '{"a":{"b":1,"b":2}}', '{"a":{}}', '{"a":{"b":{}}}', '{"a":{"b":{"c":1}}}', '{"a":{"b":[1]}}', '{"a":[]}',
    '{"a":{"b":1}', '{"a":{"b":1}}}', '{"a":{"b":1,}}', '{"a":{"b"}}', '{"a":{"b":1} }', '{"":1}', '{"":""}',
    '{"a":"}","b":"{"}', '{"a":",\\"b\\":1"}', '{"a":"\\\\"}', '{"a":"\\\\\\""}', '{"a":1}x', "{\"a\":1}\0",
    "\x{feff}{\"a\":1}", "\xef\xbb\xbf{\"a\":1}", '{"a":true}', '{"a":false}', '{"a":null}', '{"a":[1,2]}',
    $line, $noargs, substr($line, 0, -1), "$line}", "$line,", ",$line", $line =~ s/"cpu":\d+/"cpu":01/r,
    $line =~ s/"tid":(\d+)/"tid":"$1/r, $line =~ s/"s":"plain"/"s":"pla\\in"/r, $line =~ s/"s":"plain"/"s":plain/r,
    $line =~ s/"args":\{/"args":[/r, $line =~ s/\}\}\z/}/r, $line =~ s/"comm"/"comm\\u0000"/r,
    $noargs =~ s/"ts":(\d+)\.(\d+)/"ts":$1.$2e5/r, $noargs =~ s/"ts":(\d+)\.(\d+)/"ts":$1$2$2/r,
);
my ($bflat, @bdiff) = compare_lines(undef, @bad);
is_deeply(\@bdiff, [], scalar(@bad) . ' lines made by hand: each read as JSON::PP reads it, or not at all');
cmp_ok($bflat, '>', 0, "... $bflat of them by the pattern");

# Lines made from the real ones, by one change or two each: cut short,
# a character dropped or doubled, one inserted (of those that make and
# break JSON); (what big numbers change, the real lines and those by
# hand had)
srand(104);
my @ins = ('"', '\\', ',', ':', '{', '}', '[', ']', ' ', "\t", '0', '1', '.', 'e', 'E', '-', '+', 'x', 'u', "\x01",
    "\x7f", "\x80", "\xc3", "\xc3\xa9", "\xe2\x82", "\n", 'null', 'true', '"a":1,', ',"a":{"b":1}', '\\u00e9', '\\"');
my @made;
for (1 .. 2500) {
    my $l = $real[rand @real];
    for (0 .. int rand 2) {
        my $n = length $l;
        my $p = int rand($n + 1);
        my $how = int rand 4;
        if ($how == 0) {
            $l = substr($l, 0, $p);
        } elsif ($how == 1 && $p < $n) {
            substr($l, $p, 1) = '';
        } elsif ($how == 2 && $p < $n) {
            substr($l, $p, 1) = substr($l, $p, 1) x 2;
        } else {
            substr($l, $p, 0) = $ins[rand @ins];
        }
    }
    push @made, $l;
}
my ($mflat, @mdiff) = compare_lines([qw(bytes chars)], @made);
is_deeply([@mdiff[0 .. ($#mdiff > 4 ? 4 : $#mdiff)]], [],
    scalar(@made) . ' lines made from the real ones: each read as JSON::PP reads it, or not at all');
cmp_ok($mflat, '>', 100, "... $mflat of them by the pattern");

# ---- malformed Chrome documents ----

my $doc = $chrome{function};
my @dl = split /\n/, $doc, -1;
my @docs = ('', "\n", '{"traceEvents":[', "{\"traceEvents\":[\n]}", "{\"traceEvents\":[\n\n]}\n",
    "{\"traceEvents\":[\n,\n]}\n", "{\"traceEvents\":[\n{\"a\":1}\n]}", "{\"traceEvents\":[\n{\"a\":1},\n]}\n",
    "{\"traceEvents\":[\n{\"a\":1},\n{\"b\":2}\n]}\n\n", "{\"traceEvents\":[\n{\"a\":1},\n{\"b\":2}\n]}x",
    "{\"traceEvents\":[\n{\"a\":1}, {\"b\":2}\n]}\n", "{\"traceEvents\":[\n{\"a\":1},\n[1]\n]}\n",
    "{\"traceEvents\":[\n{\"a\":1},\n2\n]}\n", "{\"traceEvents\":[\n{\"a\":1}\n,\n{\"b\":2}\n]}\n",
    "{\"traceEvents\":[\n {\"a\":1},\n{\"b\":2}\n]}\n", "{\"traceEvents\":[\n{\"a\":1},\n{\"b\":2}\n],\"x\":1}\n",
    "{\"traceEvents\":[\n{\"a\":1},\n{\"b\":\"x,\ny\"}\n]}\n", "{\"traceEvents\":[\n{\"a\":1,\n\"b\":2}\n]}\n",
    substr($doc, 0, -1), substr($doc, 0, -2), substr($doc, 0, -4), "$doc\n", "$doc,",
    join("\n", @dl[0 .. 2], @dl[4 .. $#dl]), join("\n", @dl[0 .. $#dl - 3], $dl[-2]),
    join("\n", @dl[0 .. 1]) . $dl[2] . join("\n", '', @dl[3 .. $#dl]),
    join("\n", @dl[0 .. 1], $dl[2] =~ s/,\z//r, @dl[3 .. $#dl]), join("\n", @dl[0 .. 1], "$dl[2],", @dl[3 .. $#dl]));
# (of a document of its first 12 events: JSON::PP reads a long one slowly)
my $small = join("\n", @dl[0 .. 12]) =~ s/,\z//r . "\n]}\n";
for (1 .. 200) {
    my $d = $small;
    my $p = int rand(length $d);
    my $how = int rand 3;
    if ($how == 0) {
        $d = substr($d, 0, $p);
    } elsif ($how == 1) {
        substr($d, $p, 1) = '';
    } else {
        substr($d, $p, 0) = $ins[rand @ins];
    }
    push @docs, $d;
}
my @ddiff;
my $dread = 0;
for my $d (@docs) {
    for my $k (qw(bytes chars)) {
        my $pp = eval { canon($js{$k}->decode($d)) } // 'dies';
        my $got = eval { canon(chrome_doc($js{$k}, $d)) } // 'dies';
        $dread++ if $pp ne 'dies';
        push @ddiff, "$k: chrome_doc: $got, JSON::PP: $pp: '" . substr($d, 0, 200) . "'" if $got ne $pp;
    }
}
is_deeply([@ddiff[0 .. ($#ddiff > 4 ? 4 : $#ddiff)]], [],
    scalar(@docs) . ' documents made from two: each read as JSON::PP reads it, or not at all');
cmp_ok($dread, '>', 0, "... $dread of the readings a document");

done_testing();
