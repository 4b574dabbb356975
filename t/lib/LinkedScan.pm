# SPDX-License-Identifier: GPL-2.0-or-later
package LinkedScan;
# Helpers for the tests of mcount-scan --linked and --placeholder
# (t/33-linked-scan.t: x86_64 and i386; t/52-cross-linked-scan.t: the
# other architectures' compilers and binutils): a directory holding the
# test program's source (prog.c), the objects and placeholder tables
# built there, the scan of an image linked with -q through objdump's
# listing, the calls the disassembly shows, and one linked case checked
# against its oracle.
use strict;
use warnings;

use Exporter 'import';
use Test::More;
use TestUtil qw($TOP run_cmd must tmpdir spit slurp);

our @EXPORT_OK = qw($HELPER $DIR placeholder obj scan base_of disasm_calls hook_addr sorted linked_case);

our $HELPER = "$TOP/build/mcount-scan";
our $DIR = tmpdir();

spit("$DIR/prog.c", <<'END');
static int __attribute__((noinline)) twice(int x) { return x * 2; }
int __attribute__((noinline)) add(int a, int b) { return twice(a) + b; }
int __attribute__((noinline, cold)) rare(int x) { return x - 7; }
int __attribute__((noinline)) pick(int x) { return x > 100 ? rare(x) : add(x, 1); }
int main(int argc, char **argv) { (void)argv; return pick(argc) == 3; }
END

# the placeholder's object for ARCH and N entries
sub placeholder {
    my ($arch, $n, $cc, @ccflags) = @_;
    my $s = "$DIR/ph-$arch-$n.s";
    must($HELPER, "--placeholder=$n", "--arch=$arch", '-o', $s);
    must(@$cc, @ccflags, '-c', $s, '-o', "$s.o");
    return "$s.o";
}

# helper --linked over objdump's -r or -dr listing:
# (exit status, {plan}, [entry addresses], stderr)
sub scan {
    my ($image, $objdump, $mode) = @_;
    my $listing = "$image.$mode.txt";
    spit($listing, must($objdump, '-h', '-t', $mode, $image));
    my ($st, $out, $err) = run_cmd([$HELPER, '--linked', '--object', $image, '--plan',
        '-o', "$image.s", $listing]);
    my %plan = map { split /\t/, $_, 2 } split /\n/, $out;
    my @entries;
    if ($st == 0) {
        my $base = base_of($image, $objdump);
        for (split /\n/, slurp("$image.s")) {
            push @entries, $base + hex($1) if /^\t\.(?:quad|long) __ehdr_start \+ 0x([0-9a-f]+)$/;
        }
    }
    return ($st, \%plan, \@entries, $err);
}

sub base_of {
    my ($image, $objdump) = @_;
    my ($v) = must($objdump, '-t', $image) =~ /^([0-9a-f]+) .*\s__ehdr_start$/m;
    return hex($v // 0);
}

# the calls to the hook in objdump -d: direct calls naming it, GOT calls
# whose slot names it (x86), bl/jal to its address, jalr of an auipc pair
sub disasm_calls {
    my ($image, $objdump, $hook_addr) = @_;
    my @calls;
    for (split /\n/, must($objdump, '-d', $image)) {
        next unless /^\s*([0-9a-f]+):\t/;
        my $at = hex $1;
        if (/\t(?:addr(?:16|32) )?call\s+\*?[^<]*<(?:__fentry__|mcount)(?:@[^>]*)?>/
            || (defined $hook_addr && /\t(?:bl|jal)\s+([0-9a-f]+) </ && hex($1) == $hook_addr)) {
            push @calls, $at;
        } elsif (defined $hook_addr && /\tjalr\s.*# ([0-9a-f]+) </ && hex($1) == $hook_addr) {
            push @calls, $at - 4;    # the entry is the auipc before it
        }
    }
    return [sort { $a <=> $b } @calls];
}

sub hook_addr {
    my ($image, $objdump, $name) = @_;
    my ($v) = must($objdump, '-t', $image) =~ /^([0-9a-f]+) .*\s\Q$name\E$/m;
    return defined $v ? hex $v : undef;
}

sub sorted { return [sort { $a <=> $b } @{ $_[0] }] }

# one linked case: link, scan with -r and -dr, compare with the oracles
sub linked_case {
    my (%c) = @_;
    my $name = $c{name};
    my $objdump = $c{objdump} // 'objdump';
    my $image = "$DIR/$name";
    my ($lst, $lout, $lerr) = run_cmd([@{ $c{cc} }, @{ $c{link} }, '-Wl,-q', '-o', $image,
        @{ $c{objs} }]);
    if ($lst != 0) {
        fail("$name: links (scripts/install-deps installs what it needs)");
        diag $lerr;
        return;
    }
    my $want = $c{oracle}->($image, $objdump);
    ok(@$want > 0, "$name: the oracle has calls (" . scalar(@$want) . ')');
    for my $mode ('-r', '-dr') {
        my ($st, $plan, $entries, $err) = scan($image, $objdump, $mode);
        is($st, 0, "$name $mode: exit 0") or diag $err;
        is($plan->{status}, 'recorded', "$name $mode: status recorded");
        is($plan->{'entry-base'}, '__ehdr_start', "$name $mode: entry-base");
        is($plan->{sites}, scalar(@$entries), "$name $mode: sites counts the entries");
        is($plan->{'passed-over'}, $c{passed} // 0, "$name $mode: passed-over");
        # without -d: the calls whose start only the disassembly can tell
        # (a relaxed `67 e8` or `90 e8` is also a plain e8 after a 0x67 or
        # 0x90 byte), for the pass to disassemble only when it must
        if ($mode eq '-dr') {
            ok(!exists $plan->{ambiguous}, "$name $mode: no ambiguous count with a disassembly");
        } elsif (defined $c{ambiguous}) {
            is($plan->{ambiguous}, $c{ambiguous} eq 'all' ? $plan->{sites} : $c{ambiguous},
                "$name $mode: ambiguous $c{ambiguous}");
        } else {
            ok(defined $plan->{ambiguous} && $plan->{ambiguous} =~ /^\d+\z/
                && $plan->{ambiguous} <= $plan->{sites}, "$name $mode: ambiguous counted");
        }
        is_deeply(sorted($entries), $want, "$name $mode: the sites are the oracle's")
            or diag sprintf "got %s\nwant %s", join(' ', map { sprintf '%x', $_ } @$entries),
                join(' ', map { sprintf '%x', $_ } @$want);
        my @notes = $err =~ /^mcount-scan: [^:]+: note: (.*)$/mg;
        is(scalar(@notes), $c{passed} // 0, "$name $mode: a note per reference passed over");
        like($_, qr/^\.text: R_\S+ relocation against the profiling hook at 0x[0-9a-f]+ is not on a call: passed over$/,
            "$name $mode: note names section, relocation, address") for @notes;
    }
    $c{also}->($image, $objdump) if $c{also};
    return $image;
}

# obj(CC, TAG, SRC, FLAGS...): SRC compiled by CC (a list) into TAG.o
sub obj {
    my ($cc, $tag, $src, @flags) = @_;
    my $out = "$DIR/$tag.o";
    must(@$cc, @flags, '-c', $src, '-o', $out);
    return $out;
}

1;
