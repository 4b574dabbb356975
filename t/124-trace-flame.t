#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# mcount-read graph and flame against recordings written here byte for
# byte (t/lib/RecordingWriter.pm) from call trees known in advance: graph's
# tree (each node's calls and total time, merged by name under the same
# callers, as uftrace graph draws it), of the whole program or of every
# call of a FUNCTION, --depth; --folded's stacks and counts (self time
# in ns, or calls for the function tracer's recording, whose nesting
# comes from its callers' addresses), all computed here from the trees.
# The SVG as a person sees it: xmllint reads it, each frame's width and
# tooltip are its subtree's share, headless Chromium draws it (the
# frames' colours over their area, decoded here from the PNG) and its
# DOM holds the functions' names; a click zooms.  Then a real run:
# t/src/trace/recorded.c's threads count their own calls, and graph's
# and the folded stacks' counts are those.
use strict;
use warnings;
no warnings 'portable';    # 64-bit addresses through hex()
use Test::More;
use POSIX ();
use List::Util qw(sum max min);
use Compress::Zlib ();
use lib 't/lib';
use TestUtil qw($TOP run_cmd must tmpdir slurp spit);
use RecordingWriter qw($T0 %FUNC $OUTSIDE $LIBK $OUTSIDE_NAME site ret_in);

sub write_proc { return RecordingWriter::known_writer(@_) }

my $READ = "$TOP/build/mcount-read";
plan skip_all => "no $READ (make all)" unless -x $READ;
my $dir = tmpdir();

# ---- the known calls ----

# a name that XML must escape, and a ';' that folded stacks cannot hold
my $TMPL = 'vec<int>::push&"pop"';
my $SEMI = 'op;semi';
my %ADDR = ((map { $_ => $FUNC{$_}[0] } keys %FUNC), $TMPL => 0x401400, $SEMI => 0x401440);
my $EXTRA = sprintf "F %x 64 0 %s\nF %x 64 0 %s\n", $ADDR{$TMPL}, $TMPL, $ADDR{$SEMI}, $SEMI;

# A call: [name, start, end (undef: an entry with no exit to follow),
# children...] (ns after T0); per process, per thread
my %PROC = (
    4242 => {
        1001 => [
            ['main', 1000, 900_000,
                ['alpha', 2000, 30_000,
                    ['beta', 3000, 3500],
                    ['beta', 4000, 5234],
                    ['alpha', 6000, 9000,
                        ['beta', 6500, 7000]]],
                ['gamma', 40_000, 41_000],
                ['libfn', 50_000, 850_000,
                    ['beta', 60_000, 61_700],
                    [$TMPL, 70_000, 80_000,
                        [$SEMI, 71_000, 72_000]]],
                ['alpha', 860_000, 870_000,
                    ['beta', 861_000, 862_000]]],
        ],
        1002 => [
            ['alpha', 3200, 100_000,
                ['beta', 3300, 3400]],
            ['libfn', 150_000, undef],
            ['gamma', 200_000, 12_200_000,
                [$TMPL, 300_000, 6_300_000]],
        ],
    },
    4243 => {
        2001 => [
            ['main', 500, 5500,
                ['beta', 600, 700],
                ['gamma', 800, 2_000_800]],
        ],
    },
);

# The events of a thread's calls: function_graph's entries and exits
# (an end of undef: an entry not hooked), or the function tracer's
# entries; the parent word the caller's return address.
sub events_of {
    my ($calls, $graph) = @_;
    my @ev;
    my $walk;
    $walk = sub {
        my ($c, $caller) = @_;
        my ($name, $s, $e, @kids) = @$c;
        my $ip = ($ADDR{$name} + 5) | (3 << 48);
        $ip |= (1 << 60) | (defined $e ? 1 << 62 : 0) if $graph;
        push @ev, [$T0 + $s, $ip, defined $caller ? $ADDR{$caller} + 0x10 : $OUTSIDE];
        $walk->($_, $name) for @kids;
        push @ev, [$T0 + $e, ($ADDR{$name} + 5) | (3 << 48) | (1 << 63), $T0 + $s] if $graph && defined $e;
    };
    $walk->($_, undef) for @$calls;
    return \@ev;
}

sub recording {
    my ($name, $graph) = @_;
    my $rec = "$dir/$name";
    mkdir $rec or die "$rec: $!";
    for my $pid (sort keys %PROC) {
        write_proc("$rec/$pid", pid => $pid, graph => $graph, done => 1, funcs_extra => $EXTRA,
            threads => { map { $_ => { events => events_of($PROC{$pid}{$_}, $graph), comm => "t$_" } }
                keys %{ $PROC{$pid} } });
    }
    return $rec;
}

# ---- the trees' own figures ----

# A merged node: {name, calls, timed, total, self, kids => [...] in the
# order first called}
sub node { return { name => $_[0], calls => 0, timed => 0, total => 0, self => 0, kids => [], at => {} } }
sub kid {
    my ($n, $name) = @_;
    return $n->{at}{$name} //= do { my $k = node($name); push @{ $n->{kids} }, $k; $k };
}

# add(NODE, CALL): the call and what it called, merged under NODE
sub add {
    my ($n, $c) = @_;
    my ($name, $s, $e, @kids) = @$c;
    $n->{calls}++;
    if (defined $e) {
        $n->{timed}++;
        $n->{total} += $e - $s;
        $n->{self} += $e - $s - sum(0, map { $_->[2] - $_->[1] } grep { defined $_->[2] } @kids);
    }
    add(kid($n, $_->[0]), $_) for @kids;
    return;
}

# The whole program: a node a program (each process one call of it);
# or with a function glob (a regex), its outermost calls
sub want_tree {
    my (%o) = @_;
    my $root = node('');
    for my $pid (sort keys %PROC) {
        my $base = $o{function} ? undef : $o{programs} // 1 ? kid($root, 'known') : $root;
        $base->{calls}++ if $base && $base != $root;
        for my $tid (sort keys %{ $PROC{$pid} }) {
            my $walk;
            $walk = sub {
                my ($c) = @_;
                return add(kid($root, $c->[0]), $c) if $c->[0] =~ $o{function};
                $walk->($_) for @$c[3 .. $#$c];
            };
            for my $c (@{ $PROC{$pid}{$tid} }) {
                $o{function} ? $walk->($c) : add(kid($base, $c->[0]), $c);
            }
        }
    }
    return $root;
}

sub time_text {
    my ($ns) = @_;
    return sprintf('%d.%03d us', int($ns / 1000), $ns % 1000) if $ns < 1e6;
    return sprintf('%d.%03d ms', int($ns / 1e6), int($ns / 1000) % 1000) if $ns < 1e9;
    return sprintf('%d.%03d  s', int($ns / 1e9), int($ns / 1e6) % 1000);
}

# graph's text from a tree: "TIME : LEAD(CALLS) NAME", an only child in
# its parent's column, siblings each after " +-" with " | " (or "   "
# for the last) before their descendants, a " |" line between them
sub want_graph {
    my ($root, $title, %o) = @_;
    my @out = ("# call graph of $title\n", "# TOTAL TIME : (CALLS) FUNCTION\n");
    my $line = sub {
        my ($n, $lead) = @_;
        push @out, sprintf("%12s : %s(%d) %s\n", $n->{timed} ? time_text($n->{total}) : '', $lead, $n->{calls},
            $n->{name});
    };
    my $kids;
    $kids = sub {
        my ($n, $cont, $level) = @_;
        return if $o{depth} && $level > $o{depth};
        my @k = @{ $n->{kids} };
        if (@k == 1) {
            $line->($k[0], $cont);
            return $kids->($k[0], $cont, $level + 1);
        }
        for my $i (0 .. $#k) {
            $line->($k[$i], "$cont +-");
            $kids->($k[$i], $cont . ($i < $#k ? ' | ' : '   '), $level + 1);
            push @out, sprintf("%12s : %s |\n", '', $cont) if $i < $#k;
        }
    };
    for my $r (@{ $root->{kids} }) {
        my %shown = %$r;
        if (!$o{function}) {
            my @t = grep { $_->{timed} } @{ $r->{kids} };
            @shown{qw(timed total)} = (scalar @t, sum(0, map { $_->{total} } @t));
        }
        $line->(\%shown, '');
        $kids->($r, '', $o{function} ? 2 : 1);
    }
    return join '', @out;
}

# the folded stacks: {"a;b;c" => N}, N the self time (ns) or the calls
sub want_folded {
    my ($root, $timed) = @_;
    my %f;
    my $walk;
    $walk = sub {
        my ($n, @path) = @_;
        push @path, $n->{name} =~ s/;/:/gr;
        my $v = $timed ? max(0, $n->{self}) : $n->{calls};
        $f{ join ';', @path } += $v if $v;
        $walk->($_, @path) for @{ $n->{kids} };
    };
    $walk->($_) for @{ $root->{kids} };
    return \%f;
}

sub parse_folded {
    my ($text) = @_;
    my %f;
    for (split /\n/, $text) {
        my ($stack, $n) = /\A(.+) (\d+)\z/ or return { bad_line => $_ };
        $f{$stack} += $n;
    }
    return \%f;
}

sub rd { return run_cmd([$READ, @_]) }

# ---- graph ----

my $rec = recording('graph', 1);
my ($st, $out, $err) = rd('graph', $rec);
is($st, 0, 'graph: status 0') or diag $err;
my $whole = want_tree();
is($out, want_graph($whole, 'every thread, under its program'),
    'graph: the trees merged under the program, calls and total time per node');
like($out, qr/^ +\d+\.\d{3} [um]s : \(2\) known\n +\d+\.\d{3} [um]s :  \+-\(2\) main\n/m, 'graph: the two processes\' main merged');
($st, $out) = rd('graph', '--depth=2', $rec);
is($out, want_graph($whole, 'every thread, under its program', depth => 2), 'graph --depth=2: two levels of calls');

for my $f (['alpha', qr/\Aalpha\z/], ['b*', qr/\Ab/], ['gamma', qr/\Agamma\z/], [$TMPL, qr/\A\Q$TMPL\E\z/]) {
    my $glob = $f->[0] =~ /\*/ ? $f->[0] : $f->[0] =~ s/([\[\]*?\\])/\\$1/gr;
    ($st, $out, $err) = rd('graph', $rec, $glob);
    is($out, want_graph(want_tree(function => $f->[1]), $glob, function => 1), "graph $glob: every call of it merged")
        or diag $err;
}
($st, $out) = rd('graph', '--depth=1', $rec, 'alpha');
is($out, want_graph(want_tree(function => qr/\Aalpha\z/), 'alpha', function => 1, depth => 1),
    'graph --depth=1 alpha: alpha alone');
($st, $out) = rd('graph', $rec, 'nothing');
is($out, "# call graph of nothing\n# TOTAL TIME : (CALLS) FUNCTION\n# no call of nothing\n",
    'graph of a function never called: said');
# (the figures themselves, not only the layout)
($st, $out) = rd('graph', $rec, 'alpha');
like($out, qr/^ +134\.800 us : \(3\) alpha\n +2\.834 us :  \+-\(4\) beta\n/m,
    'graph alpha: 3 calls, 28 + 10 + 96.8 us; under them beta 4 calls, 0.5 + 1.234 + 1 + 0.1 us');
like($out, qr/^ +3\.000 us :  \+-\(1\) alpha\n +0\.500 us : {4}\(1\) beta\n\z/m, 'graph alpha: the call inside itself, under it');

# ---- folded stacks ----

($st, $out, $err) = rd('flame', '--format=folded', $rec);
is($st, 0, 'flame --format=folded: status 0') or diag $err;
my $plain = want_tree(programs => 0);
is_deeply(parse_folded($out), want_folded($plain, 1), 'folded stacks: each stack\'s self time, in ns');
like($out, qr/^main;libfn;vec<int>::push&"pop";op:semi 1000$/m, "folded: a name's ';' as ':'");
ok(!($out =~ /^libfn /m), 'folded: an entry with no exit (no time) makes no stack of time');

my $frec = recording('function', 0);
($st, $out, $err) = rd('flame', '--format=folded', $frec);
is($st, 0, 'flame --format=folded of the function tracer: status 0') or diag $err;
is_deeply(parse_folded($out), want_folded($plain, 0),
    "function tracer: each stack's calls, the stacks from the callers' addresses");
($st, $out) = rd('graph', $frec);
my $untimed = want_graph($whole, 'every thread, under its program') =~ s/^ +\d+\.\d{3} [um]s : /sprintf '%12s : ', ''/gemr;
is($out, $untimed, 'graph of the function tracer: the same tree, no times');

# ---- the SVG ----

# frames(SVG) -> [{depth, name, x, y, w, fx, fw, title, text, fill}]
sub unxml { my ($s) = @_; $s =~ s/&lt;/</g; $s =~ s/&gt;/>/g; $s =~ s/&quot;/"/g; $s =~ s/&apos;/'/g; $s =~ s/&amp;/&/g; return $s }
sub frames {
    my ($svg) = @_;
    my @f;
    while ($svg =~ m{<g\ class="f"\ data-x="([\d.]+)"\ data-w="([\d.]+)"\ data-d="(\d+)"\ data-n="([^"]*)"(?:\ style="[^"]*")?><title>([^<]*)</title>
            <rect\ x="([\d.]+)"\ y="([\d.]+)"\ width="([\d.]+)"\ height="15"\ rx="2"\ fill="rgb\((\d+),(\d+),(\d+)\)"(?:/>|></rect>)
            <text\ x="[\d.]+"\ y="[\d.]+">([^<]*)</text></g>}gx) {
        push @f, { fx => $1, fw => $2, depth => $3, name => unxml($4), title => unxml($5), x => $6, y => $7, w => $8,
            fill => [$9, $10, $11], text => unxml($12) };
    }
    return \@f;
}

# the frames a tree should make: [depth, name, value, parent's name]
sub want_frames {
    my ($root, $timed) = @_;
    my @f;
    my $weigh;
    $weigh = sub {
        my ($n, $depth, $parent) = @_;
        my $v = ($timed ? max(0, $n->{self}) : $n->{calls}) + sum(0, map { $weigh->($_, $depth + 1, $n->{name}) } @{ $n->{kids} });
        push @f, [$depth, $n->{name}, $v, $parent, $n->{calls}] if $depth;
        return $v;
    };
    my $total = $weigh->($root, 0, undef);
    return (\@f, $total);
}

sub check_svg {
    my ($what, $svg, $root, $timed) = @_;
    my $frames = frames($svg);
    my ($want, $total) = want_frames($root, $timed);
    my ($all) = grep { $_->{depth} == 0 } @$frames;
    ok($all && $all->{name} eq 'all' && $all->{w} == 1180, "$what: the frame of all, 1180 px") or diag explain $all;
    my (%got, @bad);
    for my $f (grep { $_->{depth} } @$frames) {
        # its parent: the frame one lower whose range holds it
        my ($p) = grep { $_->{depth} == $f->{depth} - 1 && $_->{x} <= $f->{x} + 0.01 && $_->{x} + $_->{w} >= $f->{x} + $f->{w} - 0.02 } @$frames;
        push @{ $got{"$f->{depth} $f->{name}"} }, [$f, $p];
    }
    my $drawn = 0;
    for my $w (@$want) {
        my ($depth, $name, $v, $parent, $calls) = @$w;
        my $px = $v / $total * 1180;
        next if $px < 0.1;
        $drawn++;
        my ($hit) = grep { abs($_->[0]{w} - $px) < 0.006 && ($depth == 1 ? 'all' : $parent) eq ($_->[1] ? $_->[1]{name} : '') }
            @{ $got{"$depth $name"} // [] };
        if (!$hit) {
            push @bad, "no frame of $name at depth $depth, ${px}px under $parent";
            next;
        }
        my $f = $hit->[0];
        my $val = $timed ? time_text($v) : "$v call" . ($v == 1 ? '' : 's');
        my $title = sprintf '%s: %s, %.2f%% (called %d time%s)', $name, $val, 100 * $v / $total, $calls, $calls == 1 ? '' : 's';
        push @bad, "$name: title '$f->{title}', not '$title'" if $f->{title} ne $title;
        # the name where it fits (7.2 px a character, 3 px each side), else its start and ".."
        my $fit = int(($f->{fw} * 1180 - 6) / 7.2);
        my $text = length($name) <= $fit ? $name : $fit >= 3 ? substr($name, 0, $fit - 2) . '..' : '';
        push @bad, "$name: text '$f->{text}', not '$text'" if $f->{text} ne $text;
    }
    is(scalar(grep { $_->{depth} } @$frames), $drawn, "$what: a frame a node of 0.1 px or more");
    is("@bad", '', "$what: each frame's width its share of ${total}, its place above its caller's, its tooltip and text");
    return $frames;
}

($st, $out, $err) = rd('flame', $rec);
is($st, 0, 'flame: status 0') or diag $err;
like($out, qr/\A<\?xml version="1\.0" encoding="UTF-8" standalone="no"\?>\n<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" /,
    'flame: an SVG document');
unlike($out, qr/(?:href|src)=|url\(|\@import/, 'flame: nothing fetched from elsewhere');
my $svg = $out;
my $gframes = check_svg('flame of function_graph', $svg, $plain, 1);
my $fsvg = (rd('flame', $frec))[1];
check_svg('flame of the function tracer', $fsvg, $plain, 0);

my $XMLLINT = '/usr/bin/xmllint';
SKIP: {
    skip 'no xmllint (libxml2-utils: make deps)', 2 unless -x $XMLLINT;
    spit("$dir/g.svg", $svg);
    my ($xs, undef, $xe) = run_cmd([$XMLLINT, '--noout', "$dir/g.svg"]);
    is($xs, 0, 'xmllint reads the SVG') or diag $xe;
    spit("$dir/bad.svg", $svg =~ s/&lt;/</r);
    ($xs) = run_cmd([$XMLLINT, '--noout', "$dir/bad.svg"]);
    isnt($xs, 0, '(xmllint refuses it with a name unescaped)');
}

# --output: by the name's suffix; a file written whole or not at all
($st, undef, $err) = rd('flame', "--output=$dir/o.svg", $rec);
is(slurp("$dir/o.svg"), $svg, '--output=FILE.svg: the SVG') or diag $err;
($st) = rd('flame', "--output=$dir/o.html", $rec);
my $html = slurp("$dir/o.html");
like($html, qr/\A<!DOCTYPE html>\n<html>\n.*<body[^>]*>\n<svg /s, '--output=FILE.html: a page');
is(index($html, $svg =~ s/\A<\?xml[^\n]*\n//r), index($html, '<svg '), '--output=FILE.html: the SVG in it');
($st) = rd('flame', "--output=$dir/o.folded", $rec);
is_deeply(parse_folded(slurp("$dir/o.folded")), want_folded($plain, 1), '--output=FILE.folded: the folded stacks');
($st, undef, $err) = rd('flame', "--output=$dir/no/such.svg", $rec);
is($st >> 8, 1, '--output into no directory: status 1');
like($err, qr/^mcount-read: \Q$dir\E\/no\/such\.svg: No such file or directory$/m, '--output into no directory: said');
($st, $out) = rd('flame', '--format=folded', "$dir/none");
is($st >> 8, 1, 'flame of no recording: status 1');
ok(!-e "$dir/none.svg", 'flame of no recording: no file');
for my $u (['graph', $rec, 'a', 'b'], ['flame', '--format=png', $rec], ['flame', '--depth=2', $rec],
    ['graph', '--depth=0', $rec], ['flame', $rec, 'main']) {
    ($st) = rd(@$u);
    is($st >> 8, 2, "usage: @$u: status 2");
}

# ---- seen in a browser ----

# png(FILE) -> (width, height, [[r, g, b], ...] by rows): 8-bit RGB or
# RGBA, not interlaced
sub png {
    my ($b) = @_;
    return () unless substr($b, 0, 8) eq "\x89PNG\r\n\x1a\n";
    my ($w, $h, $bits, $ctype, $ilace, $idat) = (0, 0, 0, 0, 0, '');
    for (my $at = 8; $at + 8 <= length $b;) {
        my ($len, $type) = unpack('N a4', substr($b, $at, 8));
        my $data = substr($b, $at + 8, $len);
        ($w, $h, $bits, $ctype, undef, undef, $ilace) = unpack('N N C C C C C', $data) if $type eq 'IHDR';
        $idat .= $data if $type eq 'IDAT';
        $at += 12 + $len;
    }
    return () unless $bits == 8 && ($ctype == 2 || $ctype == 6) && !$ilace;
    my $bpp = $ctype == 6 ? 4 : 3;
    my $raw = Compress::Zlib::uncompress($idat) // return ();
    my $stride = $w * $bpp;
    my (@rows, @prev);
    @prev = (0) x $stride;
    for my $y (0 .. $h - 1) {
        my $f = ord substr($raw, $y * ($stride + 1), 1);
        my @c = unpack('C*', substr($raw, $y * ($stride + 1) + 1, $stride));
        for my $i (0 .. $stride - 1) {
            my $a = $i >= $bpp ? $c[$i - $bpp] : 0;
            my ($up, $ul) = ($prev[$i], $i >= $bpp ? $prev[$i - $bpp] : 0);
            my $p = $f == 0 ? 0 : $f == 1 ? $a : $f == 2 ? $up : $f == 3 ? int(($a + $up) / 2) : do {
                my $e = $a + $up - $ul;
                my ($pa, $pb, $pc) = (abs($e - $a), abs($e - $up), abs($e - $ul));
                $pa <= $pb && $pa <= $pc ? $a : $pb <= $pc ? $up : $ul;
            };
            $c[$i] = ($c[$i] + $p) & 255;
        }
        push @rows, [map { [@c[$_ * $bpp .. $_ * $bpp + 2]] } 0 .. $w - 1];
        @prev = @c;
    }
    return ($w, $h, \@rows);
}

my ($CHROMIUM) = grep { -x } qw(/usr/bin/chromium /usr/bin/chromium-browser);
SKIP: {
    skip 'no chromium (make deps)', 12 unless $CHROMIUM;
    my @chrome = ($CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--no-first-run',
        '--disable-dev-shm-usage', "--user-data-dir=$dir/chromium", '--force-device-scale-factor=1');
    my $shot = sub {
        my ($file, $png) = @_;
        my ($s, undef, $e) = run_cmd(['timeout', '120', @chrome, '--window-size=1200,400', "--screenshot=$png",
            "file://$file"]);
        return $s == 0 && -s $png ? slurp($png) : diag("chromium: $s\n$e");
    };
    for my $case (['SVG', "$dir/g.svg", $gframes], ['HTML', "$dir/o.html", $gframes]) {
        my ($kind, $file, $fr) = @$case;
        my ($w, $h, $rows) = png($shot->($file, "$dir/shot.png") // '');
        ok($rows, "$kind: chromium's screenshot, a PNG read here") or next;
        # each frame's fill over its area (less its text), nowhere else
        my ($area, $hot, $others) = (0, 0, 0);
        my %fill = map { join(',', @{ $_->{fill} }) => 1 } @$fr;
        for my $f (@$fr) {
            $area += int($f->{w}) * 15 if $f->{w} >= 1;
        }
        for my $y (0 .. $h - 1) {
            for my $x (0 .. $w - 1) {
                my $c = join ',', @{ $rows->[$y][$x] };
                $fill{$c} ? $hot++ : $others++;
            }
        }
        ok($hot >= 0.8 * $area && $hot <= 1.1 * $area, "$kind: frames' colours over ${hot}px, their area ${area}px")
            or diag "other pixels: $others";
        my @miss;
        for my $f (grep { $_->{w} >= 20 } @$fr) {
            my ($x, $y) = (int($f->{x} + $f->{w} / 2), int($f->{y}) + 1);
            my $c = $y < $h && $x < $w ? "@{ $rows->[$y][$x] }" : 'outside the image';
            push @miss, "$f->{name} at depth $f->{depth}: $c, not @{ $f->{fill} }" unless $c eq "@{ $f->{fill} }";
        }
        is("@miss", '', "$kind: each frame 20px wide or more drawn in its colour where it is");
    }
    my $dom = sub {
        my ($file) = @_;
        my ($s, $o, $e) = run_cmd(['timeout', '120', @chrome, '--dump-dom', "file://$file"]);
        diag "chromium --dump-dom: $s\n$e" if $s;
        return $o;
    };
    my $d = $dom->("$dir/o.html");
    my %texts = map { unxml($_) => 1 } $d =~ m{<text x="[\d.]+" y="[\d.]+">([^<]+)</text>}g;
    ok($texts{$_}, "the page's DOM shows $_ in a frame") for qw(all main libfn), $TMPL;
    # a click on libfn's frame: libfn the whole width, its callees
    # wider by as much, the frames beside it hidden
    my $click = "$dir/click.html";
    spit($click, $html =~ s{</body>}{<script>document.querySelector('g.f[data-n="libfn"]').dispatchEvent(new MouseEvent('click'));</script>\n</body>}r);
    my $fz = frames($dom->($click));
    my ($lib) = grep { $_->{name} eq 'libfn' } @$fz;
    my ($orig) = grep { $_->{name} eq 'libfn' } @$gframes;
    is($lib && $lib->{w}, 1180, 'a click on libfn: libfn the whole width') or diag explain $lib, $dom->($click);
    my ($t) = grep { $_->{name} eq $TMPL && $_->{depth} == 3 } @$fz;
    my ($t0) = grep { $_->{name} eq $TMPL && $_->{depth} == 3 } @$gframes;
    ok($t && abs($t->{w} - $t0->{w} * 1180 / $orig->{w}) < 0.01, 'a click on libfn: what it called as wider');
    ok($d !~ /display: none/ && $dom->($click) =~ /data-n="gamma" style="display: none;"/, 'a click on libfn: gamma beside it hidden');
}

# ---- mcount-trace graph, flame ----

my $MT = "$TOP/bin/mcount-trace";
($st, $out, $err) = run_cmd([$MT, 'graph', '--depth=2', $rec]);
is($out, want_graph($whole, 'every thread, under its program', depth => 2), 'mcount-trace graph --depth=2 DIR') or diag $err;
($st, $out) = run_cmd([$MT, 'graph', $rec, 'alpha']);
is($out, want_graph(want_tree(function => qr/\Aalpha\z/), 'alpha', function => 1), 'mcount-trace graph DIR FUNCTION');
($st, $out, $err) = run_cmd([$MT, 'flame', '--folded', $rec]);
is_deeply(parse_folded($out), want_folded($plain, 1), 'mcount-trace flame --folded DIR') or diag $err;
($st, $out, $err) = run_cmd([$MT, 'flame', $rec, '-o', "$dir/mt.html"]);
is(slurp("$dir/mt.html"), $html, 'mcount-trace flame DIR -o FILE.html') or diag $err;
{
    # the default DIR, and a lone word that is no directory: FUNCTION
    my $cwd = tmpdir();
    system('cp', '-r', $rec, "$cwd/mcount-trace.data") == 0 or die;
    my $pid = fork // die;
    if (!$pid) {
        chdir $cwd or POSIX::_exit(3);
        open STDOUT, '>', "$cwd/out" or POSIX::_exit(3);
        exec $MT, 'graph', 'alpha' or POSIX::_exit(4);
    }
    waitpid $pid, 0;
    is(slurp("$cwd/out"), want_graph(want_tree(function => qr/\Aalpha\z/), 'alpha', function => 1),
        'mcount-trace graph FUNCTION: mcount-trace.data');
}
for my $u (['graph', $rec, 'a', 'b'], ['graph', '--depth=x', $rec], ['flame', '--depth=2', $rec], ['flame', '-o', '', $rec],
    ['flame', '--sort=name', $rec], ['graph', $rec, '-x']) {
    ($st, undef, $err) = run_cmd([$MT, @$u]);
    is($st >> 8, 2, "mcount-trace @$u: bad usage, 2");
    like($err, qr/Try 'mcount-trace --help'/, "mcount-trace @$u: the usage hint");
}

# ---- deep, damaged: under ASan and UBSan ----

# the function tracer's recursion nests each call in the last: 5000
# calls of alpha from alpha, a chain as deep as the calls; and
# function_graph's 3000 calls deep; the tree stops at 2048 and says so
my $deep = "$dir/deep";
mkdir $deep or die;
my $chain = [map { [$T0 + 10 * $_, ($ADDR{alpha} + 5), $_ ? $ADDR{alpha} + 0x10 : $OUTSIDE] } 0 .. 4999];
my @nest = map { [$T0 + 10 * $_, ($ADDR{beta} + 5) | (5 << 60), $ADDR{beta} + 0x10] } 0 .. 2999;
push @nest, map { [$T0 + 40_000 + 10 * $_, ($ADDR{beta} + 5) | (1 << 63), $T0 + 10 * (2999 - $_)] } 0 .. 2999;
write_proc("$deep/1", pid => 1, graph => 0, done => 1, threads => { 1 => { events => $chain, comm => 'f' } });
write_proc("$deep/2", pid => 2, graph => 1, done => 1, threads => { 2 => { events => \@nest, comm => 'g' } });
SKIP: {
    my $asan = "$dir/mcount-read-asan";
    my ($cs, undef, $ce) = run_cmd(['cc', '-std=c11', '-O1', '-g', '-fsanitize=address,undefined',
        '-fno-sanitize-recover=all', "-I$TOP/rt", '-o', $asan, glob("$TOP/read/*.c"), "$TOP/rt/argfmt.c", '-lm']);
    # (a build that fails is a failure, not a reason to skip)
    ok(!$cs, 'mcount-read builds with ASan and UBSan') or diag($ce);
    skip "no ASan build: $ce", 4 if $cs;
    my $san = sub { return run_cmd([$asan, @_], env => { ASAN_OPTIONS => 'detect_leaks=1' }) };
    my ($s, $o, $e) = $san->('graph', "$deep/1");
    is($s, 0, 'graph of a chain of 5000 calls: status 0') or diag $e;
    is(scalar(() = $o =~ /^ +: \(1\) alpha$/mg), 2048, 'a chain of 5000 calls: 2048 levels');
    like($o, qr/^# 2952 calls more than 2048 calls deep: not shown$/m, 'a chain of 5000 calls: the rest said');
    ($s, $o, $e) = $san->('flame', '--format=folded', "$deep/2");
    # (the 2048th call: from 20,470 ns to 40,000 + 9,520)
    my %by_depth = map { my ($k, $v) = /\A(.*) (\d+)\z/; (scalar(() = $k =~ /;/g) + 1 => $v) } split /\n/, $o;
    is_deeply([$s, max(keys %by_depth), $by_depth{2048}], [0, 2048, 40_000 + 9520 - 20_470],
        'function_graph 3000 calls deep: stacks of 2048 at most, the deepest\'s the time of those above it') or diag $e;
    ($s, $o, $e) = $san->('flame', "$deep/2");
    like($o, qr/>952 calls more than 2048 calls deep: not shown</, 'flame: the calls not shown said') or diag $e;
    # names that are not UTF-8 (a sequence cut at the end), or hold a
    # control character: '?' in the SVG, which stays XML
    my %odd = ("cut\xe2\x82" => 'cut??', "ctl\x01z" => 'ctl?z', "ok\xc3\xa9" => "ok\xc3\xa9");
    my @odd = sort keys %odd;
    write_proc("$deep/3", pid => 3, graph => 0, done => 1,
        funcs => join('', map { sprintf "F %x 64 0 %s\n", 0x500000 + 64 * $_, $odd[$_] } 0 .. $#odd),
        threads => { 3 => { comm => 'o', events => [map { [$T0 + $_, 0x500005 + 64 * $_, $OUTSIDE] } 0 .. $#odd] } });
    ($s, $o, $e) = $san->('flame', "$deep/3");
    is($s, 0, 'flame of names not UTF-8: status 0') or diag $e;
    is_deeply([sort map { $_->{name} } grep { $_->{depth} } @{ frames($o) }], [sort values %odd],
        'flame of names not UTF-8: each byte of no character as ?');
    SKIP: {
        skip 'no xmllint', 1 unless -x $XMLLINT;
        spit("$dir/odd.svg", $o);
        is((run_cmd([$XMLLINT, '--noout', "$dir/odd.svg"]))[0], 0, 'xmllint reads the SVG of those names');
    }
    # random damage to every file of the recordings
    srand(119);
    my @files = map { glob("$_/*/*") } $rec, $frec;
    my %orig = map { $_ => slurp($_) } @files;
    my ($bad, $runs) = (0, 0);
    for my $i (1 .. 60) {
        my $f = $files[ int rand @files ];
        spit($f, RecordingWriter::damaged($orig{$f}, $i % 2 ? 0 : 1));
        for my $cmd (['graph'], ['graph', 'alpha'], ['flame'], ['flame', '--format=folded']) {
            my @a = ($cmd->[0], @$cmd[2 .. $#$cmd], ($cmd->[0] eq 'flame' ? @$cmd[1 .. $#$cmd] : ()));
            my ($s2, undef, $e2) = $san->($cmd->[0], ($cmd->[0] eq 'flame' ? @$cmd[1 .. $#$cmd] : ()),
                ($f =~ m{^\Q$frec\E/} ? $frec : $rec), ($cmd->[0] eq 'graph' ? @$cmd[1 .. $#$cmd] : ()));
            $runs++;
            if (($s2 >> 8) > 1 || ($s2 & 127) || $e2 =~ /Sanitizer|runtime error/) {
                $bad++;
                diag "$f (case $i), @$cmd: status $s2\n$e2" if $bad < 4;
            }
        }
        spit($f, $orig{$f});
    }
    is($bad, 0, "random damage: $runs runs of graph and flame, none crashed or erred under ASan/UBSan");
}

# ---- a real run ----

# recorded.c's threads call mid() (which calls leaf()) as many times as
# they say; worker() is each thread's first function
SKIP: {
    require TraceTest;
    no warnings 'once';
    ok(-f $TraceTest::SO, "$TraceTest::SO is built (make all)");
    skip "no $TraceTest::SO", 9 unless -f $TraceTest::SO;
    TraceTest::clean_env();
    my $prog = TraceTest::link_prog("$dir/recorded",
        TraceTest::mcc_build('-pg -mfentry', "$dir/recorded.o", "$TraceTest::TSRC/recorded.c", '-O2'), '-pthread');
    for my $graph (0, 1) {
        my $d = "$dir/run$graph";
        my ($s, $o, $e) = run_cmd(['timeout', '-k', '10', '300', $MT, 'record', '-d', $d, '-f', 'worker,mid,leaf',
            ($graph ? '-g' : ()), '--', $prog, 3, 2000 + 77 * $graph, 'exit']);
        is($s, 0, "recorded.c 3 threads, recorded" . ($graph ? ' (function_graph)' : '') . ': status 0') or diag $e;
        my @said = $o =~ /^calls \d+ (\d+)$/mg;
        my $n = sum(0, @said);
        is(scalar @said, 3, 'the program said its three threads\' counts');
        ($s, $o, $e) = run_cmd([$MT, 'flame', '--folded', $d]);
        my $f = parse_folded($o);
        if (!$graph) {
            is_deeply($f, { worker => 3, 'worker;mid' => $n, 'worker;mid;leaf' => $n },
                "folded stacks of the function tracer: worker 3, and under it mid and leaf $n times each, as counted")
                or diag $o, $e;
        } else {
            is_deeply([sort keys %$f], ['worker', 'worker;mid', 'worker;mid;leaf'], 'folded stacks under function_graph')
                or diag $o, $e;
        }
        ($s, $o, $e) = run_cmd([$MT, 'graph', $d, 'worker']);
        like($o, qr/^ *[\d.]+ [um]?s : \(3\) worker\n *[\d.]+ [um]?s : \($n\) mid\n *[\d.]+ [um]?s : \($n\) leaf\n\z/m,
            "graph worker: 3 calls, mid and leaf $n each") if $graph;
        ($s, $o, $e) = run_cmd([$MT, 'flame', $d, '-o', "$d.html"]);
        my %texts = map { $_ => 1 } slurp("$d.html") =~ m{<text x="[\d.]+" y="[\d.]+">([^<]+)</text>}g;
        ok($texts{worker} && $texts{mid}, 'the real run\'s flame graph: worker and mid in their frames') if $graph;
    }
}

done_testing();
