#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# Every message the Perl front ends and their modules can print is
# explained in a man page's DIAGNOSTICS, as t/26-helper.t checks for the
# helper's: the messages are found by reading the Perl sources (a small
# tokenizer below, enough for this code: strings, regexes, heredocs,
# comments), and each fixed piece of each message must be in the
# DIAGNOSTICS of the page the message belongs to.
#
# What is a message:
#   - die EXPR, print/printf STDERR EXPR, $@ = EXPR, push @bad/@$bad, EXPR
#     (the problems --list and --verify print), and a warning => EXPR
#     in a result (RecordMcount::Argv's, which mcount-cc prints);
#   - in a call of a sub whose parameters name a $msg or a $what (error,
#     warning, fatal, bad_usage, _fail, tool_failure, tool_output, ...),
#     the arguments in those places;
#   - and what flows into those: the return values of the subs such an
#     expression calls (lto_text, status_text, tool_failure, ...), and
#     the values assigned to a variable it interpolates (my $why =
#     tool_problem(...); die "$file: $why\n").
# The fixed text of each string there, split at interpolations, escapes
# and printf conversions, is a piece; pieces of fewer than 4 characters
# are not checked.
#
# Where a message belongs (the scheme the DIAGNOSTICS sections state): a
# command's own messages in its page; the record pipeline's shared
# modules in recordmcount.pl(1); the modules of --list, --verify and
# --remove in mcount-record(1); mcount-cc's classifier in mcount-cc(1);
# the message form (Message.pm) in every page.  mcount-trace runs no record
# pipeline, so its page does not point to recordmcount.pl(1).  A message reached through a
# sub of another file belongs where the expression that prints it is.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP slurp);

my @PAGES = qw(recordmcount.pl mcount-record mcount-cc mcount-trace);
# the pages of the commands that run the record pipeline
my @PIPELINE = qw(recordmcount.pl mcount-record mcount-cc);
my %HOME = (
    'recordmcount.pl'            => ['recordmcount.pl'],
    'bin/mcount-record'          => ['mcount-record'],
    'bin/mcount-cc'              => ['mcount-cc'],
    'bin/mcount-trace'           => ['mcount-trace'],
    'lib/RecordMcount/Front.pm'    => [@PAGES],
    'lib/RecordMcount/Message.pm'  => [@PAGES],
    'lib/RecordMcount/Pipeline.pm' => ['recordmcount.pl'],
    'lib/RecordMcount/Run.pm'      => ['recordmcount.pl'],
    'lib/RecordMcount/Plan.pm'     => ['recordmcount.pl'],
    'lib/RecordMcount/Tools.pm'    => ['mcount-record'],
    'lib/RecordMcount/Elf.pm'      => ['mcount-record'],
    'lib/RecordMcount/Calls.pm'    => ['mcount-record'],
    'lib/RecordMcount/Table.pm'    => ['mcount-record'],
    'lib/RecordMcount/Link.pm'     => ['mcount-record'],
    'lib/RecordMcount/LinkOnce.pm' => ['mcount-record'],
    'lib/RecordMcount/LinkCmd.pm'  => ['mcount-record'],
    'lib/RecordMcount/LinkMulti.pm' => ['mcount-record'],
    'lib/RecordMcount/Batch.pm'    => ['mcount-record'],
    'lib/RecordMcount/Inspect.pm'  => ['mcount-record'],
    'lib/RecordMcount/Argv.pm'     => ['mcount-cc'],
    'lib/RecordMcount/Split.pm'    => ['mcount-cc'],
    'lib/RecordMcount/Wrapper.pm'  => ['mcount-cc'],
    'lib/RecordMcount/WrapperRecord.pm' => ['mcount-cc'],
    'lib/RecordMcount/WrapperTable.pm' => ['mcount-cc'],
    'lib/RecordMcount/Trace.pm'    => ['mcount-trace'],
    'lib/RecordMcount/TraceLib.pm' => ['mcount-trace'],
    'lib/RecordMcount/Control.pm'  => ['mcount-trace'],
    # its only message refuses an unknown import name: a programming
    # error in this project, never a user's
    'lib/RecordMcount/Exports.pm'  => [],
    # names and words; mcount-cc's links, handed on: no message
    'lib/RecordMcount/Names.pm'    => [],
    'lib/RecordMcount/WrapperLink.pm' => [],
    # the text of Message.pm's rarer messages, which Message.pm prints
    # (and the callers' pieces are checked where they print them)
    'lib/RecordMcount/MessageText.pm' => [],
    # its messages: a tree or an installation whose arches.tab is
    # missing or broken, never a user's doing
    'lib/RecordMcount/Arch.pm'     => [],
);

# ---- a tokenizer for the Perl this project is written in ------------------

my %QUOTE = map { $_ => 1 } qw(q qq qw m qr s tr y);
my %OPEN = ('(' => ')', '[' => ']', '{' => '}', '<' => '>');

# The delimited text at pos($$s) (which is at the opening delimiter):
# returns it and leaves pos after the closing one.
sub delimited {
    my ($s) = @_;
    $$s =~ /\G(.)/gcs or die "unterminated quote\n";
    my $open = $1;
    my $close = $OPEN{$open} // $open;
    my ($depth, $text) = (1, '');
    while ($$s =~ /\G(\\.|.)/gcs) {
        my $c = $1;
        if ($c eq $close) { last unless --$depth }
        elsif ($c eq $open && $open ne $close) { $depth++ }
        $text .= $c;
    }
    die "unterminated quote\n" if $depth;
    return ($text, $open ne $close);
}

# A double-quoted string's text -> (fixed pieces, interpolated plain
# scalars' names).
sub interpolate {
    my ($s) = @_;
    my (@pieces, @vars);
    my $cur = '';
    pos($s) = 0;
    while (pos($s) < length $s) {
        if ($s =~ /\G\\(?:[nrtfae0]|x\{?[0-9a-fA-F]*\}?|c.|[0-7]{1,3})/gc) {
            push @pieces, $cur;
            $cur = '';
        } elsif ($s =~ /\G\\(.)/gcs) {
            $cur .= $1;
        } elsif ($s =~ /\G(?=\$[\w{\$!@\/\\&;,.?^]|@[\w{\$:])/gc) {
            push @pieces, $cur;
            $cur = '';
            $s =~ /\G([\$@])(\$*)/gc;
            my ($sigil, $deref) = ($1, $2);
            my $name;
            if ($s =~ /\G\{/gc) {
                pos($s)--;
                my ($inner) = delimited(\$s);
                $name = $inner =~ /^\s*(\w+)\s*\z/ ? $1 : '{}';
            } elsif ($s =~ /\G(\^\w|\w+(?:::\w+)*|.)/gcs) {
                $name = $1;
            }
            my $sub = 0;
            while ($s =~ /\G(?:->)?(?=[\[{])/gc) {
                delimited(\$s);
                $sub = 1;
            }
            push @vars, $name if $sigil eq '$' && !$sub && !length $deref
                && $name =~ /^[A-Za-z]\w*\z/;
        } else {
            $s =~ /\G(.)/gcs;
            $cur .= $1;
        }
    }
    push @pieces, $cur;
    return (\@pieces, \@vars);
}

# Perl source -> tokens { t => word|var|str|num|op|re|qw, v => text,
# line, pieces (str), vars (str) }.
sub tokenize {
    my ($src) = @_;
    my $lines = sub { "\n" x ($_[0] =~ tr/\n//) };
    $src =~ s/^__(?:END|DATA)__\n.*//ms;
    $src =~ s/^(=[a-zA-Z].*?(?:^=cut\b[^\n]*\n|\z))/$lines->($1)/msge;
    # a heredoc's body is no message (only usage texts are heredocs)
    $src =~ s{<<~?(["']?)([A-Za-z_]\w*)\1([^\n]*\n)(.*?^[ \t]*\2[ \t]*\n)}
             {"''" . $3 . $lines->($4)}msge;
    my @tok;
    my $line = 1;
    # after a value, / divides and % & are operators; after a word
    # (split, grep, keys, my, ...) or an operator they start a regex or
    # a variable
    my $term = sub {
        my $p = $tok[-1] or return 0;
        return 1 if $p->{t} =~ /^(var|str|num|qw)\z/;
        return 1 if $p->{t} eq 'op' && $p->{v} =~ /^[)\]}]\z/;
        return 0;
    };
    my $push = sub { push @tok, { line => $line, @_ }; };
    pos($src) = 0;
    while (pos($src) < length $src) {
        my $start = pos($src);
        if ($src =~ /\G\s+/gc || $src =~ /\G#[^\n]*/gc) {
            # nothing
        } elsif ($src =~ /\G'((?:[^'\\]|\\.)*)'/gcs) {
            (my $t = $1) =~ s/\\([\\'])/$1/g;
            $push->(t => 'str', v => $t, pieces => [$t], vars => []);
        } elsif ($src =~ /\G"((?:[^"\\]|\\.)*)"/gcs) {
            my ($p, $v) = interpolate($1);
            $push->(t => 'str', v => $1, pieces => $p, vars => $v);
        } elsif ($src =~ /\G(0x[0-9a-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?)/gc) {
            $push->(t => 'num', v => $1);
        } elsif ($src =~ /\G\$#(?=[\$\w{])/gc) {
            $src =~ /\G(\$*\w+)/gc;
            $push->(t => 'var', v => '$#' . ($1 // ''));
        } elsif ($src =~ /\G\$\$(?![\w{\$])/gc) {
            $push->(t => 'var', v => '$$');
        } elsif ($src =~ /\G(?=\$|@[\w{\$:])/gc || !$term->() && $src =~ /\G(?=[%&][\w{\$:^])/gc) {
            $src =~ /\G(.)(\$*)/gc;
            my ($sigil, $deref) = ($1, $2);
            if ($src =~ /\G(\^\w|[A-Za-z_]\w*(?:::\w+)*|::\w+|\d+|[!@\/\\|;,.?&<>0+-])/gc) {
                $push->(t => 'var', v => "$sigil$deref$1", name => $1, deref => $deref);
            } else {
                $push->(t => 'var', v => "$sigil$deref", name => '', deref => $deref);   # ${ ... }
            }
        } elsif ($src =~ /\G([A-Za-z_]\w*(?:::\w+)*)/gc) {
            my $w = $1;
            my $after_dash = $start > 0 && substr($src, $start - 1, 1) eq '-';
            my $prev = $tok[-1];
            if ($QUOTE{$w} && !$after_dash && !($prev && $prev->{t} eq 'op' && $prev->{v} eq '->')
                && $src =~ /\G\s*(?!=>)([^\w\s=,;)\]}>])/gc) {
                pos($src) -= length $1;
                $src =~ /\G\s*/gc;
                my ($text, $bracket) = delimited(\$src);
                if ($w =~ /^(s|tr|y)\z/) {
                    if ($bracket) { $src =~ /\G\s*/gc; delimited(\$src) }
                    else          { pos($src)--; delimited(\$src) }
                }
                $src =~ /\G[a-zA-Z]*/gc;
                if ($w eq 'q') {
                    (my $t = $text) =~ s/\\([\\'])/$1/g;
                    $push->(t => 'str', v => $t, pieces => [$t], vars => []);
                } elsif ($w eq 'qq') {
                    my ($p, $v) = interpolate($text);
                    $push->(t => 'str', v => $text, pieces => $p, vars => $v);
                } else {
                    $push->(t => $w eq 'qw' ? 'qw' : 're', v => $text);
                }
            } else {
                $push->(t => 'word', v => $w);
            }
        } elsif (substr($src, $start, 1) eq '/' && !$term->()) {
            delimited(\$src);
            $src =~ /\G[a-zA-Z]*/gc;
            $push->(t => 're', v => '');
        } elsif (substr($src, $start, 1) eq '<' && !$term->() && $src =~ /\G<\$?\w*>/gc) {
            $push->(t => 'var', v => '<>', name => '');    # readline
        } elsif ($src =~ m{\G(<=>|\*\*=|\|\|=|&&=|//=|<<=|>>=|\.\.\.|=>|->|\+\+|--|\*\*|=~|!~|==|!=|<=|>=
                            |&&|\|\||//|\.\.|::|<<|>>|[-+*/.%x|&^]=|[=!<>?:.,;()\[\]{}+\-*/%&|^~\\])}gcx) {
            $push->(t => 'op', v => $1);
        } else {
            die sprintf("line %d: cannot read '%s'\n", $line, substr($src, $start, 20));
        }
        $line += substr($src, $start, pos($src) - $start) =~ tr/\n//;
    }
    return \@tok;
}

# Index of the bracket matching each opening one.
sub match_brackets {
    my ($tok) = @_;
    my (%match, @stack);
    for my $i (0 .. $#$tok) {
        next unless $tok->[$i]{t} eq 'op';
        my $v = $tok->[$i]{v};
        if ($v =~ /^[(\[{]\z/) { push @stack, $i }
        elsif ($v =~ /^[)\]}]\z/) {
            my $o = pop @stack;
            die "line $tok->[$i]{line}: unbalanced '$v'\n"
                unless defined $o && $OPEN{ $tok->[$o]{v} } eq $v;
            $match{$o} = $i;
        }
    }
    die "unclosed '$tok->[$stack[-1]]{v}' at line $tok->[$stack[-1]]{line}\n" if @stack;
    return \%match;
}

my %ENDS_EXPR = map { $_ => 1 } qw(if unless while until for foreach or and xor);

# The expression starting at token $i: [first, last] indices (empty if
# last < first).  It ends at ; at an unbalanced closing bracket, at a
# statement modifier, and with $comma at a comma.
sub expr_at {
    my ($f, $i, $comma) = @_;
    my ($tok, $m) = @$f{qw(tok match)};
    my $j = $i;
    while ($j <= $#$tok) {
        my $t = $tok->[$j];
        if ($t->{t} eq 'op') {
            last if $t->{v} =~ /^[;)\]}]\z/;
            last if $comma && $t->{v} =~ /^(,|=>)\z/;
            if (defined $m->{$j}) { $j = $m->{$j} + 1; next }
        }
        last if $t->{t} eq 'word' && $ENDS_EXPR{ $t->{v} };
        $j++;
    }
    return [$i, $j - 1];
}

# The arguments of the call whose ( is at $open: [[first, last]...].
sub call_args {
    my ($f, $open) = @_;
    my ($tok, $m) = @$f{qw(tok match)};
    my @args;
    my $i = $open + 1;
    while ($i < $m->{$open}) {
        my $r = expr_at($f, $i, 1);
        push @args, $r;
        $i = $r->[1] + 2;
    }
    return \@args;
}

sub word_at {
    my ($tok, $i, $w) = @_;
    return $i >= 0 && $i < @$tok && $tok->[$i]{t} eq 'word' && (!defined $w || $tok->[$i]{v} eq $w);
}

sub op_at {
    my ($tok, $i, $v) = @_;
    return $i >= 0 && $i < @$tok && $tok->[$i]{t} eq 'op' && $tok->[$i]{v} eq $v;
}

sub short_name { return $_[0] =~ s/.*:://r }

# A file's named subs: name -> [{ name, open, close (the indices of the
# body's braces), params => [the names of my (...) = @_] }].
sub find_subs {
    my ($f) = @_;
    my ($tok, $m) = @$f{qw(tok match)};
    my %subs;
    for my $i (0 .. $#$tok) {
        next unless word_at($tok, $i, 'sub') && word_at($tok, $i + 1);
        my $o = $i + 2;
        $o = $m->{$o} + 1 if op_at($tok, $o, '(');    # a prototype
        next unless op_at($tok, $o, '{');
        my %s = (name => $tok->[$i + 1]{v}, open => $o, close => $m->{$o}, params => []);
        # my (PARAMS) = @_;
        if (word_at($tok, $o + 1, 'my') && op_at($tok, $o + 2, '(')) {
            my $c = $m->{ $o + 2 };
            if (op_at($tok, $c + 1, '=') && ($tok->[$c + 2]{v} // '') eq '@_') {
                $s{params} = [map { $_->{t} eq 'var' ? $_->{v} : () } @$tok[$o + 3 .. $c - 1]];
            }
        }
        push @{ $subs{ $s{name} } }, \%s;
    }
    return \%subs;
}

# Does the sub declare $NAME (my $NAME, my (..., $NAME, ...), for my $NAME)?
sub declares {
    my ($f, $s, $name) = @_;
    my $tok = $f->{tok};
    for my $i ($s->{open} + 1 .. $s->{close} - 1) {
        next unless word_at($tok, $i, 'my');
        my @vars = op_at($tok, $i + 1, '(') ? @$tok[$i + 2 .. $f->{match}{ $i + 1 } - 1] : ($tok->[$i + 1]);
        return 1 if grep { $_->{t} eq 'var' && $_->{v} eq "\$$name" } @vars;
    }
    return 0;
}

sub enclosing_sub {
    my ($f, $i) = @_;
    my $best;
    for my $list (values %{ $f->{subs} }) {
        for my $s (@$list) {
            next unless $s->{open} < $i && $i < $s->{close};
            $best = $s if !$best || $s->{open} > $best->{open};
        }
    }
    return $best;
}

# ---- the messages ---------------------------------------------------------

# A source's tokens, brackets and subs: { name, tok, match, subs }.
sub read_source {
    my ($name, $text) = @_;
    my $f = { name => $name, tok => tokenize($text) };
    $f->{match} = match_brackets($f->{tok});
    $f->{subs} = find_subs($f);
    return $f;
}

# The right-hand sides of `$NAME = EXPR` in a range of tokens.
sub assignments {
    my ($f, $name, $from, $to, $skip) = @_;
    my $tok = $f->{tok};
    my @r;
    for my $i ($from .. $to) {
        next if $skip && $skip->($i);
        my $t = $tok->[$i];
        next unless $t->{t} eq 'var' && $t->{v} eq "\$$name" && op_at($tok, $i + 1, '=');
        push @r, expr_at($f, $i + 2);
    }
    return @r;
}

# The messages of a set of sources: origin file -> [[file, line, text]...],
# and the names of the subs found to take a message.
sub messages {
    my (@src) = @_;
    # subs by name (over all files), and those taking a message: the
    # places of their $msg and $what parameters
    my (%defs, %msg_param);
    for my $f (@src) {
        for my $name (keys %{ $f->{subs} }) {
            for my $s (@{ $f->{subs}{$name} }) {
                push @{ $defs{$name} }, [$f, $s];
                my @p = grep { $s->{params}[$_] =~ /^\$(msg|what)\z/ } 0 .. $#{ $s->{params} };
                $msg_param{$name} = \@p if @p;
            }
        }
    }
    # the message expressions, to a fixpoint: [origin file, file, first, last]
    my (@queue, %seen, %pieces);
    my $add = sub {
        my ($origin, $f, $r) = @_;
        return if $r->[1] < $r->[0] || $seen{"$origin\0$f->{name}\0@$r"}++;
        push @queue, [$origin, $f, @$r];
    };
    for my $f (@src) {
        my $tok = $f->{tok};
        for my $i (0 .. $#$tok) {
            my $t = $tok->[$i];
            if ($t->{t} eq 'word' && !op_at($tok, $i - 1, '->') && !word_at($tok, $i - 1, 'sub')) {
                if ($t->{v} eq 'die' && !op_at($tok, $i + 1, '=>')) {
                    $add->($f->{name}, $f, expr_at($f, $i + 1));
                } elsif ($t->{v} =~ /^printf?\z/ && word_at($tok, $i + 1, 'STDERR')) {
                    $add->($f->{name}, $f, expr_at($f, $i + 2));
                } elsif ($t->{v} eq 'push' && $tok->[$i + 1]{t} eq 'var' && ($tok->[$i + 1]{name} // '') eq 'bad') {
                    $add->($f->{name}, $f, expr_at($f, $i + 1));
                } elsif ($t->{v} eq 'warning' && op_at($tok, $i + 1, '=>')) {
                    $add->($f->{name}, $f, expr_at($f, $i + 2, 1));
                } elsif ((my $p = $msg_param{ short_name($t->{v}) }) && op_at($tok, $i + 1, '(')) {
                    my $args = call_args($f, $i + 1);
                    $add->($f->{name}, $f, $args->[$_]) for grep { $_ < @$args } @$p;
                }
            } elsif ($t->{t} eq 'var' && $t->{v} eq '$@' && op_at($tok, $i + 1, '=')) {
                $add->($f->{name}, $f, expr_at($f, $i + 2));
            }
        }
    }
    while (my $q = shift @queue) {
        my ($origin, $f, $first, $last) = @$q;
        my $tok = $f->{tok};
        for my $i ($first .. $last) {
            my $t = $tok->[$i];
            if ($t->{t} eq 'str') {
                push @{ $pieces{$origin} }, map { [$f->{name}, $t->{line}, $_] } @{ $t->{pieces} };
                # what a variable it interpolates was given, in its sub
                # (else, if the sub does not declare it, in the top level)
                for my $v (@{ $t->{vars} }) {
                    my $s = enclosing_sub($f, $i);
                    my @rhs = $s ? assignments($f, $v, $s->{open}, $s->{close}) : ();
                    @rhs = assignments($f, $v, 0, $#$tok, sub { enclosing_sub($f, $_[0]) })
                        unless @rhs || $s && declares($f, $s, $v);
                    $add->($origin, $f, $_) for @rhs;
                }
            } elsif ($t->{t} eq 'word' && op_at($tok, $i + 1, '(') && !op_at($tok, $i - 1, '->')) {
                # a sub it calls: what that returns (its own file's, else any)
                my @d = @{ $defs{ short_name($t->{v}) } // [] };
                my @own = grep { $_->[0] == $f } @d;
                for my $d (@own ? @own : @d) {
                    my ($df, $s) = @$d;
                    for my $j ($s->{open} + 1 .. $s->{close} - 1) {
                        $add->($origin, $df, expr_at($df, $j + 1)) if word_at($df->{tok}, $j, 'return');
                    }
                }
            }
        }
    }
    return (\%pieces, [sort keys %msg_param]);
}

# A message's text -> the pieces checked: split at printf conversions,
# trimmed of blanks and colons, of 4 characters or more.
sub checked_pieces {
    my ($text) = @_;
    my @p;
    for my $piece (split /%[-+ #0-9.*]*(?:ll|l|z|h)?[a-zA-Z]/, $text) {
        $piece =~ s/^[\s:]+|[\s:]+\z//g;
        push @p, $piece if length $piece >= 4 && $piece =~ /[A-Za-z]/;
    }
    return @p;
}

# ---- the tokenizer and the extraction on what could mislead them ----------

{
    my $f = read_source('self-test', <<'END');
my $x = $y / 2; # it's a comment with "quotes", die "not this"
print {$fh} <<"EOT";
Don't read this: die "not a message\n";
EOT
$s =~ s{'}{"}g; $n = $#list + $h{s} + -s $file + keys %$h; $n = $n %$h{s} & &f;
my %h = (key => 'not a message either', s => 'nor this');
sub fail1 { my ($label, $msg) = @_; die "$label: $msg\n" }
sub other { my $why = 'not in this sub'; return 0 }
my $why = explain(1) // 'no reason';
fail1($f, "first '$why' second $h->{x} third") unless /it's/;
die sprintf('%s: fourth %d fifth', $a, $b) . qq{ sixth ${x} seventh\n} if $x eq 'not that';
sub explain { return "eighth: $_[0]" if $_[0]; my $v = 'not returned'; return 'ninth' }
$@ = "tenth $!";
push @$bad, "eleventh";
print STDOUT "not to stderr"; print STDERR "twelfth";
END
    is_deeply($f->{subs}{fail1}[0]{params}, ['$label', '$msg'], 'self-test: parameters');
    my ($call) = grep { word_at($f->{tok}, $_, 'fail1') && op_at($f->{tok}, $_ + 1, '(') } 0 .. $#{ $f->{tok} };
    is(scalar @{ call_args($f, $call + 1) }, 2, 'self-test: call arguments');
    my ($pieces, $subs) = messages($f);
    is_deeply($subs, ['fail1'], 'self-test: the sub taking a message');
    is_deeply([sort map { checked_pieces($_->[2]) } @{ $pieces->{'self-test'} }],
        [sort "first '", "' second", 'third', 'fourth', 'fifth', 'sixth', 'seventh',
            'no reason', 'eighth', 'ninth', 'tenth', 'eleventh', 'twelfth'],
        'self-test: the messages, and nothing else');
}

# ---- the sources ----------------------------------------------------------

my @files = ('recordmcount.pl', (map { s{^\Q$TOP\E/}{}r } glob("$TOP/bin/*"), glob("$TOP/lib/RecordMcount/*.pm")));
my @src;
for my $name (@files) {
    my $f = eval { read_source($name, slurp("$TOP/$name")) };
    ok($f, "$name: read") or diag $@;
    ok(exists $HOME{$name}, "$name: its messages have a man page (add it to \%HOME)");
    push @src, $f if $f;
}
is(scalar @src, scalar @files, 'every source was read');
my ($pieces, $msg_subs) = messages(@src);
ok(@$msg_subs >= 5, "the subs that take a message were found: @$msg_subs");

# ---- the man pages --------------------------------------------------------

my %diag;
for my $page (@PAGES) {
    my ($d) = slurp("$TOP/doc/$page.pod") =~ /^=head1 DIAGNOSTICS\n(.*?)(?=^=head1 |\z)/ms;
    ok(defined $d, "$page(1) has a DIAGNOSTICS section") or next;
    1 while $d =~ s/[A-Z]<<+\s+(.*?)\s+>>+/$1/gs;
    $d =~ s/E<lt>/</g;
    $d =~ s/E<gt>/>/g;
    $d =~ s/E<sol>/\//g;
    $d =~ s/E<verbar>/|/g;
    1 while $d =~ s/L<([^<>|]*)\|[^<>]*>/$1/g;
    1 while $d =~ s/[A-Z]<([^<>]*)>/$1/g;
    $d =~ s/\s+/ /g;
    $diag{$page} = $d;
}
for my $page (grep { $_ ne 'recordmcount.pl' } @PIPELINE) {
    like($diag{$page} // '', qr/recordmcount\.pl\(1\)/,
        "$page(1) DIAGNOSTICS points to recordmcount.pl(1) for the pipeline's messages");
}

my $total = 0;
for my $origin (sort keys %$pieces) {
    my %done;
    my $n = 0;
    for my $p (@{ $pieces->{$origin} }) {
        my ($file, $line, $text) = @$p;
        for my $piece (checked_pieces($text)) {
            for my $page (@{ $HOME{$origin} // [] }) {
                next if $done{"$page\0$piece"}++;
                $n++;
                ok(index($diag{$page} // '', $piece) >= 0,
                    "$origin ($file:$line): '$piece' is in $page(1) DIAGNOSTICS");
            }
        }
    }
    $total += $n;
    ok($n > 0, "$origin: messages found ($n pieces)") if @{ $HOME{$origin} // [] };
}
ok($total > 100, "the messages were found ($total pieces)");

done_testing();
