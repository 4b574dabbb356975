# SPDX-License-Identifier: GPL-2.0-or-later
package RecordTest;
# Helpers for the mcount-record tests (t/3?-record-*.t): a small
# multi-file project with static, global and weak functions, the flag sets
# it is built under, and running bin/mcount-record.
use strict;
use warnings;
no warnings 'portable';

use Exporter 'import';
use Test::More;
use TestUtil qw($TOP run_cmd must tmpdir slurp spit);
use Oracle qw(table_sites filter_sites kernel_section code_bytes section_headers symbols);

our @EXPORT_OK = qw(mr write_project build_objects gcc_sites gcc_program_addresses
    list_sites FLAG_SETS $VERIFY_C nop_mcount_ok);

# x86_64 and i386, mcount and __fentry__, PIE (Debian's default) and not.
use constant FLAG_SETS => (
    ['-O2', '-pg'],
    ['-O2', '-pg', '-mfentry', '-fno-pie'],
    ['-m32', '-O2', '-pg'],
    ['-m32', '-O2', '-pg', '-mfentry', '-fno-pie'],
);

my %SRC = (
    'one.c' => <<'END',
extern int ext(int);
static __attribute__((noinline)) int helper(int x) { return ext(x) * 3; }
int one(int x) { return helper(x) + 1; }
__attribute__((weak)) int weakfn(int x) { return ext(x + 2); }
END
    'two.c' => <<'END',
extern int ext(int);
static __attribute__((noinline)) int twice(int x) { return ext(x) * 2; }
int two(int x) { return twice(x) - 1; }
__attribute__((section(".text.hot_path"))) int hot(int x) { return ext(x) ^ 5; }
__attribute__((weak, section(".text.weakonly"))) int onlyweak(int x) { return ext(x) + 9; }
END
    'main.c' => <<'END',
int one(int), two(int), weakfn(int), hot(int), onlyweak(int);
int ext(int x) { return x + 7; }
int data_word = 42;
int main(int c, char **v) { (void)v; return (one(c) + two(c) + weakfn(c) + hot(c) + onlyweak(c)) & 1; }
END
);

sub write_project {
    my ($dir) = @_;
    spit("$dir/$_", $SRC{$_}) for keys %SRC;
    return sort keys %SRC;
}

# Compile every source twice: NAME.o (plain) and NAME.gcc.o (with GCC's own
# table).  Returns the list of stems.
sub build_objects {
    my ($dir, $flags) = @_;
    my @stems;
    for my $src (write_project($dir)) {
        (my $stem = $src) =~ s/\.c$//;
        must('gcc', @$flags, '-c', "$dir/$src", '-o', "$dir/$stem.o");
        must('gcc', @$flags, '-mrecord-mcount', '-c', "$dir/$src", '-o', "$dir/$stem.gcc.o");
        push @stems, $stem;
    }
    return @stems;
}

# GCC's table of an object as sorted "section+0xoffset" (kernel sections).
sub gcc_sites {
    my ($obj) = @_;
    return filter_sites(table_sites($obj), \&kernel_section);
}

# GCC's table of a linked program: the words of its __mcount_loc section
# (read with readelf, relocations already applied by ld), sorted.
sub gcc_program_addresses {
    my ($prog, $bits) = @_;
    my $data = code_bytes($prog, '__mcount_loc') // '';
    my $fmt = $bits == 64 ? 'Q<*' : 'L<*';
    return [sort { $a <=> $b } unpack $fmt, $data];
}

# bin/mcount-record with arguments: (status, stdout, stderr).
sub mr {
    my (@args) = @_;
    my %o = ref $args[0] eq 'HASH' ? %{ shift @args } : ();
    my ($st, $out, $err) = run_cmd([$^X, "$TOP/bin/mcount-record", @args], %o);
    return (($st & 127) ? 128 + ($st & 127) : $st >> 8, $out, $err);
}

# --list of an object parsed back into sorted "section+0xoffset".
sub list_sites {
    my ($text) = @_;
    my @s;
    for (split /\n/, $text) {
        next unless /^(\S+)\+0x([0-9a-f]+)  (\S+)  (\S+)$/;
        push @s, sprintf('%s+0x%x', $1, hex $2);
    }
    return [sort @s];
}

# The program of the --verify tests (t/32-record-verify.t,
# t/52-cross-verify.t): five global functions, each with a call to the
# hook, and a word of data.
our $VERIFY_C = <<'END';
extern int ext(int);
int fa(int x) { return ext(x) + 1; }
int fb(int x) { return ext(x) * 2; }
int fc(int x) { return ext(x) - 3; }
int ext(int x) { return x ^ 1; }
int table_data = 5;
int main(int c, char **v) { (void)v; return (fa(c) + fb(c) + fc(c)) & 1; }
END

# nop_mcount_ok(ARCH, CC, CFLAGS, LDFLAGS, WORD): GCC's -mnop-mcount with
# its own table, built by CC with CFLAGS, with -mfentry (not on i386,
# where it is the same code elsewhere) and without: each entry is at the NOP GCC
# left instead of the call (src/arch.c's compiler-nop), and there is no
# call.  The count to expect is GCC's table's (readelf).  With LDFLAGS
# (undef: the object only), its program verifies too, and a program
# whose table has an entry a byte into one of those NOPs (WORD: .quad or
# .long) is still wrong.
sub nop_mcount_ok {
    my ($arch, $cc, $cf, $lf, $word) = @_;
    my $dir = tmpdir();
    spit("$dir/v.c", $VERIFY_C);
    for my $fentry ('-mfentry', undef) {
        my $tag = "$arch -mnop-mcount" . ($fentry ? " $fentry" : '');
        next if $arch eq 'i386' && $fentry;       # (the same code at another place)
        my @f = ('-O2', '-pg', $fentry // (), '-mnop-mcount', @$cf);
        must($cc, @f, '-mrecord-mcount', '-c', "$dir/v.c", '-o', "$dir/n.o");
        my $n = scalar @{ table_sites("$dir/n.o") };
        is($n, 5, "$tag: GCC's table has an entry for each of the 5 functions");
        my ($st, $out, $err) = mr('--verify', "$dir/n.o");
        is($st, 0, "$tag: GCC's object verifies") or diag $err;
        is($out, "$dir/n.o: OK, $n entries for 0 calls to the hook and $n NOPs of GCC's -mnop-mcount\n",
            "$tag: the summary counts the NOPs");
        next unless $lf;
        must($cc, @$lf, '-o', "$dir/prog", "$dir/n.o");
        ($st, $out, $err) = mr('--verify', "$dir/prog");
        is($out, "$dir/prog: OK, $n entries for 0 calls to the hook and $n NOPs of GCC's -mnop-mcount\n",
            "$tag: and its program") or diag $err;
        # a byte into fa's NOP: GCC's entries as FUNCTION + OFFSET (its
        # NOP is the function's first instruction with -mfentry, after
        # the frame's set-up without)
        must($cc, @f, '-c', "$dir/v.c", '-o', "$dir/bare.o");
        my $secs = section_headers("$dir/n.o");
        my @func = grep { $_->{type} eq 'FUNC' } @{ symbols("$dir/n.o") };
        my @at = map {
            my ($sec, $off) = /\A(.*)\+0x([0-9a-f]+)\z/;
            my ($fn) = sort { $b->{value} <=> $a->{value} }
                grep { $secs->[ $_->{ndx} ] && $secs->[ $_->{ndx} ]{name} eq $sec && $_->{value} <= hex $off } @func;
            [$fn->{name}, hex($off) - $fn->{value}]
        } @{ table_sites("$dir/n.o") };
        $_->[1] += $_->[0] eq 'fa' for @at;
        my ($fa) = map { sprintf '%x', $_->[1] } grep { $_->[0] eq 'fa' } @at;
        spit("$dir/moved.s", "\t.section __mcount_loc,\"a\",\@progbits\n"
            . join('', map { "\t$word $_->[0] + $_->[1]\n" } @at)
            . "\t.section .note.GNU-stack,\"\",\@progbits\n");
        must($cc, @$cf, '-c', "$dir/moved.s", '-o', "$dir/moved.o");
        must($cc, @$lf, '-o', "$dir/moved", "$dir/bare.o", "$dir/moved.o");
        ($st, $out, $err) = mr('--verify', "$dir/moved");
        is($st, 1, "$tag: an entry a byte into a NOP: exit 1");
        like($err, qr/^mcount-record: \Q$dir\E\/moved: 0x[0-9a-f]+ fa\+0x$fa\/0x[0-9a-f]+: entry is not at the start of an instruction \(it is 1 byte into the instruction at 0x[0-9a-f]+\)$/m,
            "$tag: an entry a byte into a NOP: named") or diag $err;
    }
    return;
}

1;
