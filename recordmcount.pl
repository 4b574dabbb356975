#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# recordmcount.pl - add a __mcount_loc table to an object compiled with -pg.
# A drop-in for the Linux kernel's scripts/recordmcount.pl; see
# recordmcount.pl(1) or `recordmcount.pl --help`.
use strict;
use warnings;

# Kbuild runs this once per object: it loads only what the record step
# needs (FindBin, Getopt::Long and Text::ParseWords would double the
# start-up time; they are loaded when the arguments need them).
BEGIN {   # lib/ beside this script, symbolic links resolved (see RecordMcount::Front)
    my $me = $0;
    $me = readlink($me) =~ s{^(?!/)}{$me =~ s{[^/]*\z}{}r}er while -l $me;
    unshift @INC, ($me =~ s{[^/]*\z}{}r || './') . 'lib';
}
use RecordMcount::Message qw(set_program option_complaint_for fatal bad_usage caught);
use RecordMcount::Front qw(print_version helper_path lto_text);
use RecordMcount::Pipeline qw(record_object);

# Text::ParseWords' shellwords, which only quotes and backslashes need.
sub shellwords {
    my ($s) = @_;
    return split ' ', $s unless $s =~ /['"\\]/;
    require Text::ParseWords;
    return Text::ParseWords::shellwords($s);
}

set_program('recordmcount', 'recordmcount.pl');

sub usage {
    my ($fh) = @_;
    print {$fh} <<"END";
Usage: recordmcount.pl [OPTION]... ARCH ENDIAN BITS OBJDUMP OBJCOPY CC LD NM RM MV IS_MODULE FILE
       recordmcount.pl [OPTION]... ARCH BITS OBJDUMP OBJCOPY CC LD NM RM MV IS_MODULE FILE
       recordmcount.pl [OPTION]... ARCH OBJDUMP OBJCOPY CC LD NM RM MV FILE
Add a __mcount_loc table of the calls to mcount/__fentry__ to FILE, an
object compiled with -pg, with the Linux kernel's argument lists (6.1,
2009 and 2008).  CC and LD are command strings and may carry flags; NM, RM
and MV are accepted and not used.  The 2008 form records every executable
section with entries at the relocation; the others record the kernel's
text sections with entries at the call instruction.

  --entry=call|reloc     where an entry points (default from the form)
  --sections=SPEC        kernel, all, or a comma-separated list (NAME* is a prefix)
  --disassemble          read objdump -dr instead of -r (slower; the call
                         instructions are then checked in the disassembly)
  --pass-over            pass over references to the hook that are no call
                         (a note each) instead of refusing FILE: for a
                         whole image such as the kernel's vmlinux.o
  -h, --help             show this help and exit
  -V, --version          show the version and exit

Exit status: 0 recorded or nothing to record, 1 the object could not be
recorded (it is left unchanged), 2 bad usage.
END
    return;
}

my %opt;
# Options come first (require_order): none unless the first argument is one.
if (@ARGV && $ARGV[0] =~ /^-/) {
    require Getopt::Long;
    Getopt::Long::Configure(qw(require_order no_ignore_case bundling));
    local $SIG{__WARN__} = option_complaint_for(\@ARGV);
    Getopt::Long::GetOptions(
        'entry=s'     => \$opt{entry},
        'sections=s'  => \$opt{sections},
        'disassemble' => \$opt{disasm},
        'pass-over'   => \$opt{pass_over},
        'help|h'      => sub { usage(\*STDOUT); exit 0 },
        'version|V'   => sub { print_version(); exit 0 },
    ) or bad_usage();
}
bad_usage("--entry must be call or reloc, not '$opt{entry}'")
    if defined $opt{entry} && $opt{entry} !~ /^(call|reloc)\z/;

my ($arch, $endian, $bits, $objdump, $objcopy, $cc, $ld, $file, $entry, $sections);
if (@ARGV == 12) {
    ($arch, $endian, $bits, $objdump, $objcopy, $cc, $ld, undef, undef, undef, undef, $file) = @ARGV;
    bad_usage("ENDIAN must be big or little, not '$endian'") unless $endian =~ /^(big|little)\z/;
} elsif (@ARGV == 11) {
    ($arch, $bits, $objdump, $objcopy, $cc, $ld, undef, undef, undef, undef, $file) = @ARGV;
} elsif (@ARGV == 9) {
    ($arch, $objdump, $objcopy, $cc, $ld, undef, undef, undef, $file) = @ARGV;
    ($entry, $sections) = ('reloc', 'all');
} else {
    bad_usage('expected 12, 11 or 9 arguments, got ' . scalar(@ARGV));
}
bad_usage("BITS must be 32 or 64, not '$bits'") if defined $bits && $bits !~ /^(32|64)\z/;

my %o = (
    prog     => 'recordmcount',
    helper   => helper_path(),
    arch     => $arch,
    bits     => $bits,
    endian   => $endian,
    entry    => $opt{entry} // $entry // 'call',
    sections => $opt{sections} // $sections // 'kernel',
    listing  => $opt{disasm} ? 'disasm' : 'relocs',
    pass_over => $opt{pass_over},
    objdump  => [shellwords($objdump)],
    objcopy  => [shellwords($objcopy)],
    cc       => [shellwords($cc)],
    ld       => [shellwords($ld)],
);

my $r = eval { record_object($file, \%o) };
if (!$r) {
    my $e = caught($@);
    bad_usage("$e") if $e->{usage};
    fatal(1, $e);
}
fatal(1, "$file: " . lto_text()) if $r->{status} eq 'lto';
exit 0;
