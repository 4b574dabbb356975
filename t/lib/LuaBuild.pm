# SPDX-License-Identifier: GPL-2.0-or-later
package LuaBuild;
# Lua 5.4 from Debian's source, the real program nobody here wrote that
# the slow tier's tracer tests build (t/74, t/109): its source fetched
# once (scripts/fetch-source lua5.4), and its files compiled two at a
# time (the machine has two cores) by whatever command a test gives.
use strict;
use warnings;

use Exporter 'import';
use POSIX ();
use TestUtil qw($TOP run_cmd slurp);

our @EXPORT_OK = qw(lua_source lua_compile lua_tables_script);

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

1;
