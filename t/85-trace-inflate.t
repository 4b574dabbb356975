#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# rt/inflate.c on its own (t/src/trace/inflate_test.c links it alone),
# against zlib as Perl ships it (Compress::Zlib, Compress::Raw::Zlib):
# the oracle makes the streams (levels 0, 1, 6, 9: stored, and dynamic
# Huffman blocks; the Z_FIXED strategy: fixed ones) of random,
# repetitive, text, empty and one-byte data, and every stream inflates
# to the original bytes.  Streams zlib cannot be asked for are written
# here bit by bit (a match 32768 bytes back, 258 long; dynamic codes of
# a chosen shape; invalid ones), and zlib's uncompress is the judge of
# each: the valid ones give zlib's bytes, the invalid ones (over-
# subscribed and incomplete codes, symbols 286 and 287, distances 30
# and 31 and before the start, code length repeats past their count,
# bad headers, a wrong Adler-32) are refused by both.  Truncated, bit-
# flipped streams and wrong output sizes under ASan and UBSan: refused,
# or (a flip zlib also accepts) zlib's bytes, never a report.  And the
# speed: 10 MB, well under a second.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP must run_cmd tmpdir slurp spit);
use Compress::Zlib qw(compress uncompress adler32);
use Compress::Raw::Zlib qw(Z_OK Z_STREAM_END Z_FINISH Z_FIXED Z_DEFAULT_STRATEGY);

my $dir = tmpdir();
my @WARN = qw(-std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Werror);
my @SRC = ("$TOP/t/src/trace/inflate_test.c", "$TOP/rt/inflate.c");
must('cc', @WARN, '-O2', '-o', "$dir/plain", @SRC);
must('cc', @WARN, '-O1', '-g', '-fsanitize=address,undefined', '-fno-sanitize-recover=all', '-fno-omit-frame-pointer',
    '-o', "$dir/san", @SRC);
my %SAN_ENV = (ASAN_OPTIONS => 'detect_leaks=1:abort_on_error=0:exitcode=99',
    UBSAN_OPTIONS => 'print_stacktrace=1:halt_on_error=1:exitcode=98');

# inflate(BUILD, STREAM, SIZE) -> (exit status, bytes or undef, stderr)
my $n = 0;
sub inflate {
    my ($build, $stream, $size) = @_;
    $n++;
    spit("$dir/in$n", $stream);
    unlink "$dir/out$n";
    my ($st, undef, $err) = run_cmd(["$dir/$build", "$dir/in$n", $size, "$dir/out$n"], env => \%SAN_ENV);
    my $out = $st == 0 ? slurp("$dir/out$n") : undef;
    unlink "$dir/in$n", "$dir/out$n";
    return ($st >> 8 | ($st & 127) << 8, $out, $err);
}

# Both builds give exactly $want, with no message.
sub gives {
    my ($what, $stream, $want) = @_;
    for my $b ('plain', 'san') {
        my ($st, $out, $err) = inflate($b, $stream, length $want);
        ok($st == 0 && defined $out && $out eq $want && $err eq '', "$what ($b): inflates to the original bytes")
            or diag("exit $st, " . (defined $out ? length($out) . ' bytes' : 'nothing') . ", $err");
    }
}

# Both builds refuse it (exit 1: nothing written), with no message.
sub refused {
    my ($what, $stream, $size) = @_;
    for my $b ('plain', 'san') {
        my ($st, $out, $err) = inflate($b, $stream, $size);
        ok($st == 1 && !defined $out && $err eq '', "$what ($b): refused") or diag("exit $st, $err");
    }
}

# The first block's type (BTYPE) of a zlib stream.
sub btype { return (ord(substr($_[0], 2, 1)) >> 1) & 3 }

# ---- data, and zlib's streams of it ----
srand(85);
my %DATA = (
    'random 300000'     => join('', map { chr int rand 256 } 1 .. 300000),
    'repetitive 1 MB'   => ('0123456789abcdef' x 32768) . ("\0" x 300000) . ('x' x 123),
    'text'              => join('', map { slurp("$TOP/$_") } qw(rt/dwarf.c rt/elf.c rt/debugfile.c doc/mcount-trace.pod)),
    'empty'             => '',
    'one byte'          => 'A',
    # 1 + 256 * 255 + 240 = 65521: A = 0, so a zero byte more leaves
    # the Adler-32 as it is (the output's size is checked on its own)
    'Adler-32 A 0'      => ("\xff" x 256) . "\xf0",
);
sub zlib_stream {
    my ($data, $level, $strategy) = @_;
    my ($d, $st) = Compress::Raw::Zlib::Deflate->new(-Level => $level, -Strategy => $strategy, -AppendOutput => 1);
    die "deflateInit: $st" unless $st == Z_OK;
    my $out = '';
    $d->deflate($data, $out) == Z_OK or die 'deflate';
    $d->flush($out, Z_FINISH) == Z_OK or die 'flush';
    return $out;
}
my %STREAMS;
for my $what (sort keys %DATA) {
    for my $level (0, 1, 6, 9) {
        $STREAMS{"$what, level $level"} = [compress($DATA{$what}, $level), $DATA{$what}];
    }
    $STREAMS{"$what, fixed codes"} = [zlib_stream($DATA{$what}, 6, Z_FIXED), $DATA{$what}];
}
my %TYPES;
for my $what (sort keys %STREAMS) {
    my ($z, $data) = @{ $STREAMS{$what} };
    $TYPES{ btype($z) }++;
    gives("zlib's $what", $z, $data);
}
is(btype($STREAMS{'random 300000, level 0'}[0]), 0, 'level 0: stored blocks (BTYPE 0)');
{
    # walk the stored blocks: each a byte of header, LEN, NLEN, LEN bytes
    my ($z, $at, $blocks, $last) = ($STREAMS{'random 300000, level 0'}[0], 2, 0, 0);
    while (!$last && $at + 5 <= length $z) {
        my ($h, $len) = unpack('Cv', substr($z, $at, 3));
        last if ($h >> 1) & 3;
        ($last, $at) = ($h & 1, $at + 5 + $len);
        $blocks++;
    }
    ok($last && $at == length($z) - 4 && $blocks >= 5, "level 0: stored blocks only ($blocks), each at most 65535 bytes");
}
is(btype($STREAMS{'text, fixed codes'}[0]), 1, 'Z_FIXED: fixed Huffman codes (BTYPE 1)');
is(btype($STREAMS{'text, level 9'}[0]), 2, 'level 9: dynamic Huffman codes (BTYPE 2)');
is_deeply([sort keys %TYPES], [0, 1, 2], 'all three block types inflated');

# ---- streams written bit by bit ----
# A DEFLATE bit string, least significant bit first (RFC 1951, 3.1.1).
{
    package Bits;
    sub new { return bless { s => '' }, shift }
    sub put { my ($w, $v, $n) = @_; $w->{s} .= join '', map { ($v >> $_) & 1 } 0 .. $n - 1; return $w }
    # a Huffman code: its most significant bit first
    sub code { my ($w, $c, $n) = @_; $w->{s} .= join '', map { ($c >> ($n - 1 - $_)) & 1 } 0 .. $n - 1; return $w }
    sub align { my ($w) = @_; $w->{s} .= '0' x ((8 - length($w->{s}) % 8) % 8); return $w }
    sub bytes { my ($w) = @_; $w->align; return pack('b*', $w->{s}) }
}
# the zlib stream around DEFLATE data: header 78 01, the data's Adler-32
sub zwrap { my ($deflate, $data) = @_; return "\x78\x01" . $deflate . pack('N', adler32($data)) }

# Lengths 3..258 and distances 1..32768: symbol, extra bits, their value.
my @LBASE = (3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258);
my @LEXTRA = (0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0);
my @DBASE = (1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
    4097, 6145, 8193, 12289, 16385, 24577);
my @DEXTRA = map { $_ < 4 ? 0 : ($_ >> 1) - 1 } 0 .. 29;
sub lsym { my ($l) = @_; my $i = $#LBASE; $i-- while $LBASE[$i] > $l; return (257 + $i, $LEXTRA[$i], $l - $LBASE[$i]) }
sub dsym { my ($d) = @_; my $i = $#DBASE; $i-- while $DBASE[$i] > $d; return ($i, $DEXTRA[$i], $d - $DBASE[$i]) }

# The canonical codes of a list of lengths (RFC 1951, 3.2.2).
sub canon {
    my @len = @_;
    my @count = (0) x 16;
    $count[$_]++ for grep { $_ } @len;
    my ($code, @next) = (0);
    for my $b (1 .. 15) { $code = ($code + ($b > 1 ? $count[$b - 1] : 0)) << 1; $next[$b] = $code }
    return map { $_ ? $next[$_]++ : undef } @len;
}

# Symbols through the fixed codes; items: a byte value or [length, distance].
sub fixed_lit {
    my ($w, $s) = @_;
    return $s < 144 ? $w->code(0x30 + $s, 8) : $s < 256 ? $w->code(0x190 + $s - 144, 9)
        : $s < 280 ? $w->code($s - 256, 7) : $w->code(0xc0 + $s - 280, 8);
}
sub fixed_block {
    my ($w, $final, @items) = @_;
    $w->put($final, 1)->put(1, 2);
    for my $it (@items) {
        if (!ref $it) { fixed_lit($w, $it); next }
        my ($l, $d, $raw) = @$it;
        my ($ls, $le, $lv) = lsym($l);
        fixed_lit($w, $ls)->put($lv, $le);
        my ($ds, $de, $dv) = $raw ? ($d, 0, 0) : dsym($d);
        $w->code($ds, 5)->put($dv, $de);
    }
    return fixed_lit($w, 256);
}
# What the items are (copying byte by byte: a match may overlap itself).
sub expand {
    my $out = '';
    for my $it (@_) {
        if (!ref $it) { $out .= chr $it; next }
        my ($l, $d) = @$it;
        $out .= substr($out, length($out) - $d, 1) for 1 .. $l;
    }
    return $out;
}

# zlib's verdict on a stream: its bytes, or undef.
sub zlib_says { my ($z) = @_; return scalar uncompress($z) }

# A valid hand-made stream: zlib agrees it is what the items say, and
# both builds give the same bytes.
sub agreed {
    my ($what, $z, $want) = @_;
    my $zl = zlib_says($z);
    ok(defined $zl && $zl eq $want, "$what: zlib inflates it to what it was written for");
    gives($what, $z, $want);
}
# An invalid one: zlib refuses it, and both builds do.
sub invalid {
    my ($what, $z, $size) = @_;
    ok(!defined zlib_says($z), "$what: zlib refuses it");
    refused($what, $z, $size);
}

# the longest match, as far back as DEFLATE reaches (zlib's deflate
# never goes that far), and overlapping copies
{
    my @lit = map { int rand 256 } 1 .. 32768;
    my @items = (@lit, ([258, 32768]) x 3, [258, 1], [258, 2], 7, [3, 1], [258, 32768], [100, 777]);
    my $want = expand(@items);
    my $z = zwrap(fixed_block(Bits->new, 1, @items)->bytes, $want);
    agreed('distance 32768, length 258 (fixed codes)', $z, $want);
    is(length $want, 32768 + 6 * 258 + 1 + 3 + 100, 'the long matches: their length');
    # one byte short of the distance: before the start
    my @bad = (@lit[0 .. 32766], [258, 32768]);
    invalid('distance 32768 after 32767 bytes', zwrap(fixed_block(Bits->new, 1, @bad)->bytes, ''), 32767 + 258);
}

# fixed codes: symbols 286, 287 and distances 30, 31 are codes, not valid
for my $case (['length symbol 286', [65, 66, 67], sub { fixed_lit($_[0], 286)->code(0, 5) }],
    ['length symbol 287', [65, 66, 67], sub { fixed_lit($_[0], 287)->code(0, 5) }],
    ['distance symbol 30', [65, 66, 67], sub { fixed_lit($_[0], 257)->code(30, 5) }],
    ['distance symbol 31', [65, 66, 67], sub { fixed_lit($_[0], 257)->code(31, 5) }],
    ['distance beyond the output', [65, 66, 67], sub { fixed_lit($_[0], 257)->code(3, 5) }]) {
    my ($what, $lits, $tail) = @$case;
    my $w = Bits->new->put(1, 1)->put(1, 2);
    fixed_lit($w, $_) for @$lits;
    $tail->($w);
    fixed_lit($w, 256);
    invalid("fixed codes: $what", zwrap($w->bytes, 'ABC'), 3 + 3);
}
# ... and distance 4 after three bytes, fine with one more
{
    my @items = (65, 66, 67, 68, [3, 4]);
    agreed('fixed codes: distance = the output so far', zwrap(fixed_block(Bits->new, 1, @items)->bytes, 'ABCDABC'), 'ABCDABC');
}

# Dynamic blocks: HLIT, HDIST, HCLEN (all 19), the code length code's
# lengths, its symbols ([symbol, extra] or a length), then the items.
my @ORDER = (16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15);
my @CL_LEN = ((4) x 13, (5) x 6);     # 0..12: 4 bits, 13..18: 5 (complete)
sub dynamic_block {
    my (%a) = @_;
    my ($w, $lit, $dist) = ($a{w} // Bits->new, $a{lit}, $a{dist});
    my @cl = @{ $a{cl} // \@CL_LEN };
    $w->put($a{final} // 1, 1)->put(2, 2)->put(($a{hlit} // @$lit) - 257, 5)->put(($a{hdist} // @$dist) - 1, 5)->put(15, 4);
    $w->put($cl[$_], 3) for @ORDER;
    my @clc = canon(@cl);
    for my $s (@{ $a{seq} // [@$lit, @$dist] }) {
        my ($sym, $x) = ref $s ? @$s : ($s, 0);
        $w->code($clc[$sym], $cl[$sym]);
        $w->put($x, { 16 => 2, 17 => 3, 18 => 7 }->{$sym}) if $sym >= 16;
    }
    my @lc = canon(@$lit);
    my @dc = canon(@$dist);
    for my $it (@{ $a{items} // [] }) {
        if (!ref $it) { $w->code($lc[$it], $lit->[$it]); next }
        my ($ls, $le, $lv) = lsym($it->[0]);
        my ($ds, $de, $dv) = dsym($it->[1]);
        $w->code($lc[$ls], $lit->[$ls])->put($lv, $le)->code($dc[$ds], $dist->[$ds])->put($dv, $de);
    }
    $w->code($lc[256], $lit->[256]) unless $a{no_end};
    return $w;
}
# literals 64..91, 256, 257, 284, 285: 32 codes of 5 bits (complete);
# distances 0..14: 4 bits, 28 and 29: 5 (complete)
my @LIT = (0) x 286;
$LIT[$_] = 5 for 64 .. 91, 256, 257, 284, 285;
my @DIST = (0) x 30;
$DIST[$_] = 4 for 0 .. 14;
$DIST[$_] = 5 for 28, 29;
my @ITEMS = ((map { 64 + $_ % 28 } 0 .. 999), [258, 1], [3, 100], [258, 190], [227, 5], 65, [3, 192]);
{
    my $want = expand(@ITEMS);
    agreed('dynamic codes written here', zwrap(dynamic_block(lit => \@LIT, dist => \@DIST, items => \@ITEMS)->bytes, $want), $want);
    # the same lengths run-length coded: 16 (repeat), 17 and 18 (zeros)
    my @seq = ([18, 64 - 11], 5, ([16, 6 - 3]) x 4, [16, 3 - 3], [18, 138 - 11], [18, 26 - 11], 5, 5, [18, 26 - 11], 5, 5,
        4, ([16, 6 - 3]) x 2, 4, 4, [17, 10 - 3], [17, 3 - 3], 5, 5);
    agreed('dynamic codes: lengths run-length coded', zwrap(dynamic_block(lit => \@LIT, dist => \@DIST, items => \@ITEMS,
        seq => \@seq)->bytes, $want), $want);
    # two blocks, the second's matches reaching into the first's output
    my $w = dynamic_block(lit => \@LIT, dist => \@DIST, items => [@ITEMS[0 .. 999]], final => 0);
    my $z = zwrap(dynamic_block(w => $w, lit => \@LIT, dist => \@DIST, items => [@ITEMS[1000 .. $#ITEMS]])->bytes, $want);
    agreed('dynamic codes: two blocks', $z, $want);
    # one distance code, of one bit: allowed
    my @one = (0) x 30;
    $one[0] = 1;
    my @items = (65, 66, [258, 1], 67);
    agreed('dynamic codes: a distance code of one code', zwrap(dynamic_block(lit => \@LIT, dist => \@one, items => \@items)->bytes,
        expand(@items)), expand(@items));
    # no distance codes at all: literals only
    my @none = (0);
    # nor (as zlib has it) one literal/length code, the end's: an empty block
    my @lit1 = (0) x 257;
    $lit1[256] = 1;
    agreed('dynamic codes: an empty block, of one literal/length code', zwrap(dynamic_block(lit => \@lit1, dist => \@one)
        ->bytes, ''), '');
    agreed('dynamic codes: no distance code', zwrap(dynamic_block(lit => \@LIT, dist => \@none, items => [65 .. 90])->bytes,
        expand(65 .. 90)), expand(65 .. 90));
    # but a match through it is not
    invalid('dynamic codes: a match without distance codes', zwrap(dynamic_block(lit => \@LIT, dist => \@none,
        items => [65, 66], no_end => 1)->code(0b11110, 5)->bytes, 'AB'), 5);
}
{
    my %bad;
    my @over = @LIT;
    $over[92] = 5;
    $bad{'literal/length code over-subscribed'} = { lit => \@over };
    my @under = @LIT;
    $under[91] = 0;
    $bad{'literal/length code incomplete'} = { lit => \@under, items => [64 .. 90] };
    my @lit2 = (0) x 257;
    $lit2[256] = 2;
    $bad{'literal/length code of one code of two bits'} = { lit => \@lit2, items => [] };
    my @lit1a = (0) x 257;
    $lit1a[65] = 1;
    $bad{'literal/length code of one code, a literal'} = { lit => \@lit1a, items => [65], no_end => 1 };
    my @dover = @DIST;
    $dover[27] = 5;
    $bad{'distance code over-subscribed'} = { dist => \@dover };
    my @dunder = @DIST;
    $dunder[29] = 0;
    $bad{'distance code incomplete'} = { dist => \@dunder, items => [65] };
    my @dtwo = (2, 2);
    $bad{'distance code of two codes, incomplete'} = { dist => \@dtwo, items => [65] };
    my @dlong = (0) x 30;
    $dlong[0] = 2;
    $bad{'distance code of one code of two bits'} = { dist => \@dlong, items => [65] };
    $bad{'code length code over-subscribed'} = { cl => [(4) x 19] };
    $bad{'code length code incomplete'} = { cl => [(4) x 13, (0) x 6], seq => [@LIT, @DIST] };
    $bad{'repeat (16) with no length before it'} = { seq => [[16, 0], @LIT[3 .. $#LIT], @DIST] };
    # runs past the count that give the right lengths up to it: the
    # distance lengths end with 5, 5 (16), or with 13 zeros (17, 18)
    my @dz = ((4) x 15, 5, 5, (0) x 13);
    $bad{'zeros (18) past the count'} = { dist => \@dz, seq => [@LIT, @dz[0 .. 16], [18, 14 - 11]] };
    $bad{'zeros (17) past the count'} = { dist => \@dz, seq => [@LIT, @dz[0 .. 26], [17, 4 - 3]] };
    $bad{'repeat (16) past the count'} = { seq => [@LIT, @DIST[0 .. 28], [16, 3 - 3]] };
    my @noend = @LIT;
    $noend[256] = 0;
    $noend[92] = 5;
    $bad{'no end-of-block code'} = { lit => \@noend, items => [64 .. 90], no_end => 1 };
    $bad{'HLIT 287'} = { lit => [@LIT, 0], items => [64 .. 90] };
    $bad{'HLIT 288'} = { lit => [@LIT, 0, 0], items => [64 .. 90] };
    $bad{'HDIST 31'} = { dist => [@DIST, 0] };
    $bad{'HDIST 32'} = { dist => [@DIST, 0, 0] };
    for my $what (sort keys %bad) {
        my %a = (lit => \@LIT, dist => \@DIST, items => \@ITEMS, %{ $bad{$what} });
        my $w = dynamic_block(%a);
        $w->put(0, 7) if $a{no_end};
        # the size and Adler-32 of what the items are: only the codes wrong
        my $data = expand(@{ $a{items} });
        invalid("dynamic codes: $what", zwrap($w->bytes, $data), length $data);
    }
}

# ---- stored blocks, zlib's header ----
{
    my $data = 'stored bytes';
    my $blk = sub { my ($len, $nlen, $body) = @_; return "\x01" . pack('vv', $len, $nlen) . $body };
    agreed('stored block written here', zwrap($blk->(12, 12 ^ 0xffff, $data), $data), $data);
    agreed('stored blocks: an empty one first', zwrap("\x00" . pack('vv', 0, 0xffff) . $blk->(12, 12 ^ 0xffff, $data), $data), $data);
    invalid('stored block: NLEN not LEN\'s complement', zwrap($blk->(12, 12 ^ 0xfffe, $data), $data), 12);
    invalid('stored block: LEN past the input', "\x78\x01" . $blk->(200, 200 ^ 0xffff, $data), 200);
    invalid('block type 3', zwrap("\x07" . ("\0" x 20), ''), 0);
    my $good = compress($data);
    my $cm7 = "\x77" . chr((31 - 0x7700 % 31) % 31) . substr($good, 2);
    invalid('zlib header: CM 7 (FCHECK right)', $cm7, 12);
    my $cinfo8 = "\x88" . chr((31 - 0x8800 % 31) % 31) . substr($good, 2);
    invalid('zlib header: CINFO 8', $cinfo8, 12);
    my $fdict = "\x78" . chr(0x20 + (31 - ((0x7800 + 0x20) % 31)) % 31) . "\0\0\0\1" . substr($good, 2);
    ok((ord(substr($fdict, 1, 1)) & 0x20) && unpack('n', $fdict) % 31 == 0, 'the FDICT header: FDICT set, FCHECK right');
    refused('zlib header: a preset dictionary (FDICT)', $fdict, 12);
    # FDICT set, no DICTID: the rest a valid stream
    refused('zlib header: FDICT set', substr($fdict, 0, 2) . substr($good, 2), 12);
    invalid('zlib header: FCHECK wrong', "\x78\x02" . substr($good, 2), 12);
    my $cinfo0 = "\x08" . chr(0xc0 + (31 - 0x08c0 % 31) % 31) . substr($good, 2);
    ok(unpack('n', $cinfo0) % 31 == 0 && (ord(substr($cinfo0, 1, 1)) & 0xe0) == 0xc0, 'the CINFO 0 header: FLEVEL 3, FCHECK right');
    gives('zlib header: CINFO 0, FLEVEL 3', $cinfo0, $data);
}

# ---- damage: wrong Adler-32, wrong size, truncated, flipped bits ----
{
    is(adler32($DATA{'Adler-32 A 0'} . "\0"), adler32($DATA{'Adler-32 A 0'}), 'Adler-32 A 0: a zero byte more, the same Adler-32');
    my @which = ('text, level 9', 'text, fixed codes', 'random 300000, level 0', 'repetitive 1 MB, level 6',
        'Adler-32 A 0, level 6');
    for my $what (@which) {
        my ($z, $data) = @{ $STREAMS{$what} };
        my $bad = $z;
        substr($bad, -1, 1) = chr(ord(substr($bad, -1, 1)) ^ 1);
        invalid("$what: Adler-32 wrong", $bad, length $data);
        refused("$what: one byte more wanted", $z, length($data) + 1);
        refused("$what: one byte less wanted", $z, length($data) - 1);
        refused("$what: the Adler-32 cut short", substr($z, 0, length($z) - 1), length $data);
        refused("$what: cut in half", substr($z, 0, length($z) / 2), length $data);
    }
    # every cut of a small stream of each block type
    my $small = substr($DATA{text}, 0, 3000);
    my %kind = (0 => 'stored', 1 => 'fixed codes', 2 => 'dynamic codes');
    for my $z (compress($small, 0), compress($small, 9), zlib_stream($small, 9, Z_FIXED)) {
        spit("$dir/cut", $z);
        my ($st, $out, $err) = run_cmd(["$dir/san", '-c', "$dir/cut", length $small], env => \%SAN_ENV);
        my $k = length $z;
        is("$st $out$err", "0 0 of $k cuts inflated\n", "ASan+UBSan: every cut of a small stream ($kind{btype($z)}) refused");
    }
    # random bits flipped: refused, or zlib's bytes where zlib takes it too
    my ($runs, $fine, $refused) = (0, 0, 0);
    for my $k (1 .. 150) {
        my ($z, $data) = @{ $STREAMS{ $which[$k % @which] } };
        $z = compress(substr($data, 0, 20000), $k % 10) if $k % 3;
        $data = substr($data, 0, 20000) if $k % 3;
        my $flips = 1 + int rand 3;
        for (1 .. $flips) {
            my $at = int rand length $z;
            substr($z, $at, 1) = chr(ord(substr($z, $at, 1)) ^ (1 << int rand 8));
        }
        my ($st, $out, $err) = inflate('san', $z, length $data);
        $runs++;
        $refused++ if $st == 1;
        my $zl = zlib_says($z);
        $fine++ if $err eq '' && (($st == 1) || ($st == 0 && defined $zl && $zl eq $out));
    }
    is($fine, $runs, "ASan+UBSan: $runs bit-flipped streams refused or inflated as zlib does ($refused refused)");
    ok($refused > $runs / 2, 'bit flips: most are refused');
}

# ---- speed: 10 MB ----
{
    my $mb = join('', map { my $l = substr($DATA{text}, int rand(length($DATA{text}) - 4096), 4096); $l } 1 .. 2560);
    my $z = compress($mb, 6);
    spit("$dir/big.z", $z);
    my ($st, $out, $err) = run_cmd(["$dir/plain", "$dir/big.z", length $mb, "$dir/big", 5]);
    is($st, 0, 'speed: 10 MB inflated') or diag($err);
    is(slurp("$dir/big"), $mb, 'speed: its bytes');
    chomp $out;
    ok($out =~ /^\d/ && $out < 1, sprintf('speed: %.1f MB (%d compressed) in %s s of processor time, under a second', length($mb) / 1e6, length $z, $out));
}

done_testing();
