# SPDX-License-Identifier: GPL-2.0-or-later
package Harden;
# Helpers for the hardening tests (t/6?-*.t): one way to run each of the
# three front ends on one object with any tool replaced, tool wrappers that
# signal the pipeline after the real tool ran, and the check that an object
# is either the original or completely recorded.
use strict;
use warnings;

use Exporter 'import';
use POSIX ();
use Test::More;
use TestUtil qw($TOP run_cmd tmpdir slurp spit leftovers);
use Oracle qw(table_sites filter_sites kernel_section);
use ObjDiff qw(diff_objects);

our @EXPORT_OK = qw(@FRONT_ENDS front_end fake_cc sig_wrapper oracle_of is_recorded
    state_of script refused);

# recordmcount.pl (pl), mcount-record (mr), mcount-cc (mcc)
our @FRONT_ENDS = qw(pl mr mcc);

# An executable script in DIR.
sub script {
    my ($path, $body) = @_;
    spit($path, $body);
    chmod 0755, $path or die "$path: $!";
    return $path;
}

# A "compiler" for mcount-cc: answers -dumpmachine like the host gcc and
# otherwise copies $HARDEN_OBJ to the -o file, so that mcount-cc records
# exactly the file a test prepared (good, damaged or odd).
sub fake_cc {
    my ($dir) = @_;
    return script("$dir/fakecc", <<'SH');
#!/bin/sh
out=
while [ $# -gt 0 ]; do
	case "$1" in
	-dumpmachine) exec gcc -dumpmachine ;;
	-o) out=$2; shift ;;
	esac
	shift
done
[ -n "$out" ] || { echo "fakecc: no -o" >&2; exit 1; }
exec cp "$HARDEN_OBJ" "$out"
SH
}

# A wrapper that runs REAL with its arguments, and when they contain MATCH
# touches MARK and sends SIG to its parent (the process running the
# pipeline); it then exits with the real tool's status.
sub sig_wrapper {
    my ($path, $real, $match, $sig, $mark) = @_;
    return script($path, <<"SH");
#!/bin/sh
'$real' "\$@"
st=\$?
case " \$* " in
*'$match'*)
	touch '$mark'
	kill -$sig \$PPID
	# give the signal time to land before this child is reaped
	sleep 0.2 ;;
esac
exit \$st
SH
}

# front_end(FE, FILE, tools => {objdump, objcopy, as, ld, helper}, env => {},
#           wrap => [CMD...], bits => 32|64) -> (wait status, stdout, stderr)
# Runs one front end on FILE with the given tools.  For mcount-cc, FILE is
# the -o of a compile by fake_cc (which copies $HARDEN_OBJ, default FILE's
# current contents saved next to it).  wrap is put in front (strace ...).
sub front_end {
    my ($fe, $file, %o) = @_;
    my %t = (objdump => 'objdump', objcopy => 'objcopy', as => 'as', ld => 'ld',
        %{ $o{tools} // {} });
    my %env = (%{ $o{env} // {} });
    $env{RECORDMCOUNT_HELPER} = $t{helper} if $t{helper};
    my @cmd;
    if ($fe eq 'pl') {
        my $bits = $o{bits} // 64;
        my $cc = $t{cc} // 'gcc';
        @cmd = ("$TOP/recordmcount.pl", 'x86', 'little', $bits, $t{objdump}, $t{objcopy},
            $bits == 32 ? "$cc -m32" : $cc, $t{ld}, 'nm', '', '', '0', $file);
    } elsif ($fe eq 'mr') {
        @env{qw(OBJDUMP OBJCOPY AS LD CC)} = (@t{qw(objdump objcopy as ld)}, '');
        @cmd = ("$TOP/bin/mcount-record", '-q', $file);
    } elsif ($fe eq 'mcc') {
        @env{qw(OBJDUMP OBJCOPY AS LD)} = @t{qw(objdump objcopy as ld)};
        my $dir = tmpdir();
        my $fake = fake_cc($dir);
        if (!$o{env}{HARDEN_OBJ}) {
            die "$file: missing" unless -e $file;
            spit("$dir/input.o", slurp($file));
            $env{HARDEN_OBJ} = "$dir/input.o";
        }
        spit("$dir/src.c", "int unused;\n");
        @cmd = ("$TOP/bin/mcount-cc", $fake, '-O2', '-c', "$dir/src.c", '-o', $file);
    } else {
        die "unknown front end $fe";
    }
    return run_cmd([@{ $o{wrap} // [] }, @cmd], env => \%env);
}

# refused(DIR, FE, FILE, NAME, STATUS, STDERR, RE, BEFORE): front end FE
# refused FILE (in DIR) as it must refuse bad input: exit 1 (mcount-cc:
# 100), its message naming FILE and matching RE, FILE as it was (BEFORE,
# its bytes; mcount-cc removes it) and no temporary file left in DIR.
my %PROG = (pl => 'recordmcount', mr => 'mcount-record', mcc => 'mcount-cc');
sub refused {
    my ($dir, $fe, $f, $name, $st, $err, $re, $before) = @_;
    my $want = $fe eq 'mcc' ? 100 : 1;
    is($st >> 8, $want, "$fe, $name: exit $want") or diag $err;
    like($err, qr/^\Q$PROG{$fe}\E: \Q$f\E: (?:.*)?$re/m, "$fe, $name: message") or diag $err;
    if ($fe eq 'mcc') {
        ok(!-e $f, "$fe, $name: the object is removed");
    } else {
        ok(slurp($f) eq $before, "$fe, $name: file unchanged");
    }
    is_deeply([leftovers($dir)], [], "$fe, $name: no temporary files");
    return;
}

# GCC's own table for SRC built with FLAGS, as the record step must make it.
sub oracle_of {
    my ($src, $out, @flags) = @_;
    my ($st, undef, $err) = run_cmd(['gcc', @flags, '-mrecord-mcount', '-c', $src, '-o', $out]);
    die "gcc -mrecord-mcount $src: $err" if $st;
    return filter_sites(table_sites($out), \&kernel_section);
}

my $ANCHOR = qr/^\$mcount_anchor\S* \d+ 0 NOTYPE LOCAL DEFAULT /;

# Is FILE the object ORIG (a path) completely recorded: GCC's table, and
# nothing else changed?  Returns the list of problems (empty: yes).
sub is_recorded {
    my ($file, $orig, $oracle) = @_;
    my $got = eval { table_sites($file) };
    return ("cannot read the table: $@") unless $got;
    my @p;
    push @p, "table differs from GCC's: got @$got" if join(' ', @$got) ne join(' ', @$oracle);
    push @p, diff_objects($orig, $file, $ANCHOR);
    return @p;
}

# 'original', 'recorded', 'missing' or 'other: why' for FILE against ORIG.
sub state_of {
    my ($file, $orig, $oracle) = @_;
    return 'missing' unless -e $file;
    return 'original' if slurp($file) eq slurp($orig);
    my @p = is_recorded($file, $orig, $oracle);
    return @p ? 'other: ' . join('; ', @p) : 'recorded';
}

1;
