# SPDX-License-Identifier: GPL-2.0-or-later
package RecordTest;
# Helpers for the mcount-record tests (t/3?-record-*.t): a small
# multi-file project with static, global and weak functions, the flag sets
# it is built under, and running bin/mcount-record.
use strict;
use warnings;
no warnings 'portable';

use Exporter 'import';
use TestUtil qw($TOP run_cmd must tmpdir slurp spit);
use Oracle qw(table_sites filter_sites kernel_section code_bytes section_headers);

our @EXPORT_OK = qw(mr write_project build_objects gcc_sites gcc_program_addresses
    list_sites FLAG_SETS);

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

1;
