# SPDX-License-Identifier: GPL-2.0-or-later
package LuaBuild;
# Lua 5.4 from Debian's source, the real program nobody here wrote that
# the slow tier's tracer tests build (t/74, t/109, t/123): its source
# fetched once (scripts/fetch-source lua5.4), and its files compiled two
# at a time (the machine has two cores) by whatever command a test gives;
# and the pair of builds whose calls GCC's -finstrument-functions counts.
use strict;
use warnings;
no warnings 'portable';    # 64-bit addresses through hex()

use Exporter 'import';
use POSIX ();
use TestUtil qw($TOP run_cmd slurp);
use TraceTest qw($MCC $TSRC link_prog nm_funcs);

our @EXPORT_OK = qw(lua_source lua_compile lua_tables_script lua_counted_builds cyg_counts);

# lua_source() -> (fetch-source's wait status, the source's directory,
# its standard error, [the C files of src/ but luac.c, sorted]).
sub lua_source {
    my ($st, $src, $err) = run_cmd(["$TOP/scripts/fetch-source", 'lua5.4']);
    chomp $src;
    my @c = $st == 0 ? sort grep { !m{/luac\.c\z} } glob "$src/src/*.c" : ();
    return ($st, $src, $err, \@c);
}

# lua_compile(\@C_FILES, OUT_DIR, [COMMAND...], env => {NAME => VALUE})
# -> [failures]: each FILE.c compiled as COMMAND... -c FILE.c -o
# OUT_DIR/FILE.o, with the variables of env set; a failure is "OBJECT:
# status N: the command's output".
sub lua_compile {
    my ($files, $out, $cmd, %o) = @_;
    my (@fail, %run);
    my @queue = @$files;
    while (@queue || %run) {
        while (@queue && keys %run < 2) {
            my $c = shift @queue;
            (my $obj = $c) =~ s{.*/(.*)\.c\z}{$out/$1.o};
            my $pid = fork // die "fork: $!";
            if ($pid == 0) {
                $ENV{$_} = $o{env}{$_} for keys %{ $o{env} // {} };
                open STDOUT, '>', "$obj.log" or POSIX::_exit(126);
                open STDERR, '>&', \*STDOUT or POSIX::_exit(126);
                { no warnings 'exec'; exec { $cmd->[0] } @$cmd, '-c', $c, '-o', $obj; }
                POSIX::_exit(127);
            }
            $run{$pid} = $obj;
        }
        my $pid = wait;
        last if $pid < 0;
        my $obj = delete $run{$pid} // next;
        push @fail, "$obj: status $?: " . slurp("$obj.log") if $? != 0;
    }
    return \@fail;
}

# lua_tables_script(N, M, EXTRA, PRINT): the Lua script the tests run
# (table, string and closure work: N table entries sorted, M hashed),
# with EXTRA lines before its print, whose arguments are PRINT.
sub lua_tables_script {
    my ($n, $m, $extra, $print) = @_;
    return <<"LUA";
local t = {}
for i = 1, $n do t[i] = (i * 7919) % 10007 end
table.sort(t)
local h = {}
for i = 1, $m do h["k" .. i] = i * i end
local s = 0
for k, v in pairs(h) do s = s + v + #k end
local words = {}
for w in ("the quick brown fox jumps over the lazy dog"):gmatch("%a+") do
  words[#words + 1] = w:upper()
end
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
${extra}print($print)
LUA
}

# lua_counted_builds(\@C_FILES, DIR) -> (PG, CYG, \@failures): Lua built
# twice with the same flags, each in a directory of its own (DIR/pg,
# DIR/cyg, the program ./lua in each, so that argv and every string Lua
# makes are the same): PG through mcount-cc with -pg -mfentry, CYG with
# plain gcc -finstrument-functions and t/src/trace/cygcount.c linked in,
# which counts each function's entries and exits by its address (written
# to $CYG_COUNT at the end).  Both linked with -Wl,-E, as Debian links
# lua.  What makes the two builds' counts the same thing:
#  - no inlining and no IPA clones (-fno-inline -fno-ipa-cp -fno-ipa-sra
#    -fno-ipa-icf -fno-partial-inlining): -finstrument-functions counts
#    the calls of a function inlined elsewhere too (and keeps a copy of it
#    out of line), where -pg has a call of the hook in the out-of-line code
#    only, and a clone (foo.isra.0, foo.constprop.0, foo.part.0) or a
#    function folded into another is a function of its own name under -pg
#    but is counted under its origin's name by -finstrument-functions.
#    Tail calls are left to -O2 (a function entered by a jump must count);
#  - Lua's hashes not depending on addresses or the time: its string hash
#    seed fixed (-Dluai_makeseed(L)=0x5eedu) and the cache of the C API's
#    strings one set for every pointer (-DSTRCACHE_N=1 -DSTRCACHE_M=2; it
#    is indexed by the C string's address, which differs between the two
#    binaries).
sub lua_counted_builds {
    my ($c, $dir) = @_;
    my @cflags = ('-O2', '-DLUA_USE_POSIX', '-Dluai_makeseed(L)=0x5eedu', '-DSTRCACHE_N=1', '-DSTRCACHE_M=2',
        '-fno-inline', '-fno-ipa-cp', '-fno-ipa-sra', '-fno-ipa-icf', '-fno-partial-inlining');
    my ($pgdir, $cygdir) = ("$dir/pg", "$dir/cyg");
    mkdir $_ or die "$_: $!" for $pgdir, $cygdir;
    my @fail = @{ lua_compile($c, $pgdir, [$MCC, 'gcc', @cflags], env => { MCOUNT_CC_FLAGS => '-pg -mfentry' }) };
    push @fail, @{ lua_compile($c, $cygdir, ['gcc', @cflags, '-finstrument-functions']) };
    return (undef, undef, \@fail) if @fail;
    my $pg = link_prog("$pgdir/lua", glob("$pgdir/*.o"), '-Wl,-E', '-lm');
    link_prog("$dir/cygcount.o", '-c', '-O2', "$TSRC/cygcount.c");
    my $cyg = link_prog("$cygdir/lua", glob("$cygdir/*.o"), "$dir/cygcount.o", '-Wl,-E', '-lm');
    return ($pg, $cyg, []);
}

# cyg_counts(CYG, FILE) -> (\%enters, \%exits, \@stray): cygcount.c's
# counts of the program CYG (FILE: its $CYG_COUNT) by function name as nm
# names them; of a name that two static functions share, the sum.  Stray:
# the lines that are not well formed or name no function's start, and a
# first line that does not give main's address.
sub cyg_counts {
    my ($cyg, $file) = @_;
    my (%enters, %exits, @stray);
    my $syms = nm_funcs($cyg);
    my %at = map { ($_->[0] => $_->[2]) } @$syms;
    my ($main) = map { $_->[0] } grep { $_->[2] eq 'main' } @$syms;
    my @l = split /\n/, slurp($file);
    my ($mrt) = (shift(@l) // '') =~ /\Amain (0x[0-9a-f]+)\z/;
    return ({}, {}, ['no first line "main ADDR" matching nm\'s main']) unless defined $mrt && defined $main;
    my $bias = hex($mrt) - $main;
    for (@l) {
        my ($a, $in, $out) = /\A(0x[0-9a-f]+) (\d+) (\d+)\z/ or do { push @stray, "'$_'"; next };
        my $name = $at{ hex($a) - $bias } // do { push @stray, "$a: no function starts there"; next };
        $enters{$name} += $in;
        $exits{$name} += $out;
    }
    return (\%enters, \%exits, \@stray);
}

1;
