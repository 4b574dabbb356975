#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: cross
# mcount-cc as a process: the compiler's exit status, stdout, stderr and
# signals pass through; a failing record step; hook flags; masquerade mode
# and the recursion guard; usage; a cross compiler.
use strict;
use warnings;
use Test::More;
use Config;
use TestUtil qw($TOP tmpdir spit slurp run_cmd leftovers);
use CcTest qw($MCC mcc fake_dir logging_gcc read_log oracle_ok);

delete $ENV{$_} for qw(MCOUNT_CC_FLAGS MCOUNT_CC_ACTIVE MCOUNT_CC_VERBOSE OBJDUMP OBJCOPY LD AS CROSS_COMPILE);
my %signo;
@signo{ split ' ', $Config{sig_name} } = split ' ', $Config{sig_num};

my $dir = tmpdir();
spit("$dir/a.c", "static int two(int x) { return 2 * x; }\nint fa(int x) { return two(x) + 1; }\n");
spit("$dir/main.c", "int fa(int);\nint main(void) { return fa(-1) + 1; }\n");

# A compiler that says something on both streams and exits as told, or
# kills itself with a signal; with -o it writes junk there.
my $fake = fake_dir(fakecc => <<'SH');
#!/bin/sh
echo "fakecc stdout: $*"
echo "fakecc stderr: $*" >&2
out=
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
[ -n "$out" ] && [ -n "$FAKE_JUNK" ] && echo junk > "$out"
[ -n "$FAKE_SIGNAL" ] && kill -s "$FAKE_SIGNAL" $$
exit "${FAKE_EXIT:-0}"
SH
my $PATHF = "$fake:$ENV{PATH}";

# --- exit status, stdout and stderr pass through -------------------------
for my $case (['link', [qw(a.o main.o -o p)]], ['compile', [qw(-c a.c -o a.o)]]) {
    my ($what, $args) = @$case;
    for my $code (0, 1, 3, 77) {
        my ($st, $out, $err) = mcc(['fakecc', @$args], dir => $dir,
            env => { PATH => $PATHF, FAKE_EXIT => $code });
        my $argv = join ' ', ($what eq 'compile' ? '-pg' : ()), @$args;
        if ($what eq 'compile' && $code == 0) {
            # the "object" is missing: a record failure, reported as ours
            is($st >> 8, 100, "$what, compiler exits 0 without an object: status 100");
            like($err, qr/^mcount-cc: a\.o: the compiler succeeded but wrote no such object$/m,
                "$what: missing object named");
            next;
        }
        is($st >> 8, $code, "$what: exit status $code passes through");
        is($out, "fakecc stdout: $argv\n", "$what, exit $code: stdout unchanged");
        is($err, "fakecc stderr: $argv\n", "$what, exit $code: stderr unchanged");
    }
    for my $sig (qw(TERM USR1 INT)) {
        my ($st, $out, $err) = mcc(['fakecc', @$args], dir => $dir,
            env => { PATH => $PATHF, FAKE_SIGNAL => $sig });
        is($st & 127, $signo{$sig}, "$what: compiler killed by SIG$sig: mcount-cc dies of SIG$sig");
        unlike($err, qr/mcount-cc/, "$what, SIG$sig: nothing added on stderr");
    }
}

# --- a failing record step -------------------------------------------------
{
    my ($st, $out, $err) = mcc(['gcc', '-O2', '-c', 'a.c', '-o', 'a.o'], dir => $dir,
        env => { LD => '/bin/false' });
    is($st >> 8, 100, 'record failure: exit status 100');
    like($err, qr/^mcount-cc: a\.o: relinking \(ld -r\) failed \(false exited 1\)$/m,
        'record failure: mcount-cc: FILE: what failed');
    like($err, qr/^mcount-cc: the object was removed; to reproduce: gcc -pg -O2 -c a\.c -o a\.o && LD=\/bin\/false mcount-record --writable-table a\.o$/m,
        'record failure: the exact commands that reproduce it (the table writable, as mcount-cc makes it)');
    ($st, $out, $err) = mcc(['gcc', '-O2', '-c', 'a.c', '-o', 'a.o'], dir => $dir,
        env => { LD => '/bin/false', MCOUNT_CC_TABLE => 'readonly', MCOUNT_CC_SECTIONS => 'all' });
    like($err, qr/to reproduce: gcc -pg -O2 -c a\.c -o a\.o && LD=\/bin\/false mcount-record --sections=all a\.o$/m,
        'record failure: ... with the settings of MCOUNT_CC_TABLE and MCOUNT_CC_SECTIONS');
    ok(!-e "$dir/a.o", 'record failure: the object is removed (make will retry)');
    is_deeply([leftovers($dir)], [], 'record failure: no temporary files left');

    ($st, $out, $err) = mcc(['fakecc', '-c', 'a.c', '-o', 'junk.o'], dir => $dir,
        env => { PATH => $PATHF, FAKE_JUNK => 1 });
    is($st >> 8, 100, 'not an object: exit status 100');
    like($err, qr/^mcount-cc: junk\.o: .*ELF/mi, 'not an object: the helper says why');
    ok(!-e "$dir/junk.o", 'not an object: removed');
}

# --- an installation without the record pipeline ---------------------------
# The pipeline's modules load while the compiler runs: a broken install is
# reported after the compile, as a record failure, and a link (which never
# loads them) still works.
{
    my $inst = tmpdir();
    mkdir "$inst/$_" or die "mkdir $inst/$_: $!" for qw(bin lib lib/RecordMcount);
    spit("$inst/bin/mcount-cc", slurp($MCC));
    chmod 0755, "$inst/bin/mcount-cc";
    spit("$inst/lib/RecordMcount/$_.pm", slurp("$TOP/lib/RecordMcount/$_.pm")) for qw(Argv Exports Front Message Names Run Wrapper WrapperLink WrapperRecord);
    # (the modules mcount-cc loads as it starts, and for a compile that
    # records before the pipeline)
    # (prove -I puts this tree's lib/ on PERL5LIB)
    my %noinc = (PERL5LIB => '', PERLLIB => '');
    my ($st, $out, $err) = mcc(['gcc', '-O2', '-c', 'a.c', '-o', 'broken.o'], dir => $dir,
        prog => "$inst/bin/mcount-cc", env => \%noinc);
    is($st >> 8, 100, 'no RecordMcount::Pipeline: exit status 100');
    like($err, qr/^mcount-cc: cannot load the record pipeline \(is recordmcount installed completely\?\): Can't locate RecordMcount\/Pipeline\.pm in \@INC/m,
        'no RecordMcount::Pipeline: says what is missing');
    is(scalar(() = $err =~ /\n/g), 1, 'no RecordMcount::Pipeline: one line');
    ok(!-e "$dir/broken.o", 'no RecordMcount::Pipeline: the object is removed');
    run_cmd(['gcc', '-c', "$dir/$_.c", '-o', "$dir/plain_$_.o"]) for qw(a main);
    ($st, $out, $err) = mcc(['gcc', 'plain_a.o', 'plain_main.o', '-o', 'linked'], dir => $dir,
        prog => "$inst/bin/mcount-cc", env => \%noinc);
    # (what the target's objects need at the link is the helper's to say)
    is($st >> 8, 100, 'no RecordMcount::Tools: a link of objects: exit status 100');
    like($err, qr/^mcount-cc: cannot load the record pipeline \(is recordmcount installed completely\?\): Can't locate RecordMcount\/Tools\.pm in \@INC/m,
        'no RecordMcount::Tools: says what is missing');
    ok(!-e "$dir/linked", 'no RecordMcount::Tools: no program');
    # a link that compiles its sources (split into compiles and a link):
    # said once, before anything is compiled
    ($st, $out, $err) = mcc(['gcc', 'a.c', 'main.c', '-o', 'linked2'], dir => $dir,
        prog => "$inst/bin/mcount-cc", env => \%noinc);
    is($st >> 8, 100, 'no RecordMcount::Pipeline: a link of sources: exit status 100');
    like($err, qr/\Amcount-cc: cannot load the record pipeline \(is recordmcount installed completely\?\): Can't locate RecordMcount\/Pipeline\.pm in \@INC[^\n]*\n\z/,
        'no RecordMcount::Pipeline: a link of sources: said once');
    ok(!-e "$dir/linked2", 'no RecordMcount::Pipeline: a link of sources: no program');
}

# --- what a compile passed on loads -----------------------------------------
# A compile that only gets the hook flags (link-time mode: a C++ driver)
# and a command passed on (-E) are exec'd: an installation of only the
# modules the decision needs runs them, with the hook's calls in the
# object as the compiler writes them (objdump its oracle).
{
    my $inst = tmpdir();
    mkdir "$inst/$_" or die "mkdir $inst/$_: $!" for qw(bin lib lib/RecordMcount);
    spit("$inst/bin/mcount-cc", slurp($MCC));
    chmod 0755, "$inst/bin/mcount-cc";
    spit("$inst/lib/RecordMcount/$_.pm", slurp("$TOP/lib/RecordMcount/$_.pm")) for qw(Argv Exports Message Names Wrapper);
    my %noinc = (PERL5LIB => '', PERLLIB => '');
    spit("$dir/pass.cc", "int twice(int x) { return 2 * x; }\n");
    my ($st, $out, $err) = mcc(['g++', '-O2', '-c', 'pass.cc', '-o', 'pass.o'], dir => $dir,
        prog => "$inst/bin/mcount-cc", env => \%noinc);
    is($st, 0, 'a compile passed on: runs with the decision\'s modules only') or diag($err);
    is($err, '', 'a compile passed on: nothing said');
    my ($dst, $dis) = run_cmd(['objdump', '-dr', "$dir/pass.o"]);
    is($dst, 0, 'a compile passed on: objdump reads the object');
    like($dis, qr/\bR_\w+\s+_*mcount\b/, 'a compile passed on: the object calls the hook (-pg)');
    ($st, $out, $err) = mcc(['gcc', '-E', 'a.c'], dir => $dir, prog => "$inst/bin/mcount-cc", env => \%noinc);
    is($st, 0, 'a command passed on (-E): runs with the decision\'s modules only') or diag($err);
    like($out, qr/int fa\(int x\)/, 'a command passed on (-E): the compiler\'s output');
}

# --- hook flags ------------------------------------------------------------
{
    my $log = "$dir/hook.log";
    my $lg = fake_dir(gcc => logging_gcc($log));
    my ($st, $out, $err) = mcc(['gcc', '-O2', '-c', 'a.c', '-o', 'f.o'], dir => $dir,
        env => { PATH => "$lg:$ENV{PATH}", MCOUNT_CC_FLAGS => '-pg -mfentry' });
    is($st, 0, 'MCOUNT_CC_FLAGS=-pg -mfentry: compiles') or diag($err);
    is_deeply(read_log($log)->[0], [qw(-pg -mfentry -O2 -c a.c -o f.o)], '... with both flags');
    oracle_ok("$dir/f.o", "$dir/a.c", ['-O2', '-mfentry'], '-mfentry object');
    unlink $log;
    ($st) = mcc(['gcc', '-mfentry', '-pg', '-c', 'a.c', '-o', 'g.o'], dir => $dir,
        env => { PATH => "$lg:$ENV{PATH}", MCOUNT_CC_FLAGS => '-pg -mfentry' });
    is_deeply(read_log($log)->[0], [qw(-mfentry -pg -c a.c -o g.o)], 'flags already given are not added twice');
    ($st, $out, $err) = mcc(['gcc', '-c', 'a.c', '-o', 'v.o'], dir => $dir,
        env => { MCOUNT_CC_VERBOSE => 1 });
    like($err, qr/^mcount-cc: v\.o: recorded \(\d+ call sites?\) with \S*objdump/m, 'MCOUNT_CC_VERBOSE says what was done');
}

# --- masquerade mode and the recursion guard -------------------------------
{
    my $log = "$dir/masq.log";
    my $real = fake_dir(gcc => logging_gcc($log));
    my $masq = tmpdir();
    symlink($MCC, "$masq/gcc") or die;
    my $path = "$masq:$masq:$real:$ENV{PATH}";
    my ($st, $out, $err) = mcc(['-c', 'a.c', '-o', 'm.o'], prog => "$masq/gcc", dir => $dir,
        env => { PATH => $path });
    is($st, 0, 'masquerade: gcc -> mcount-cc compiles') or diag($err);
    is_deeply(read_log($log)->[0], [qw(-pg -c a.c -o m.o)], 'masquerade: the real gcc ran, with -pg');
    oracle_ok("$dir/m.o", "$dir/a.c", [], 'masquerade object');
    unlink $log;
    run_cmd(['gcc', '-c', "$dir/main.c", '-o', "$dir/masq_main.o"]);
    ($st, $out, $err) = mcc(['masq_main.o', 'm.o', '-o', 'mp'], prog => "$masq/gcc", dir => $dir,
        env => { PATH => $path });
    is($st, 0, 'masquerade: link passes through');
    is_deeply(read_log($log), [[qw(masq_main.o m.o -o mp)]], 'masquerade: link argv unchanged');
    is((run_cmd(["$dir/mp"]))[0], 0, 'masquerade: the program runs');

    # A compiler wrapper after us that looks "gcc" up on PATH again leads
    # back to us: the guard stops the loop.
    my $naive = fake_dir(gcc => "#!/bin/sh\nexec gcc \"\$@\"\n");
    ($st, $out, $err) = mcc(['-c', 'a.c', '-o', 'loop.o'], prog => "$masq/gcc", dir => $dir,
        env => { PATH => "$masq:$naive:$ENV{PATH}" });
    is($st >> 8, 111, 'recursion: exit status 111');
    like($err, qr/^mcount-cc: gcc: recursive invocation \(MCOUNT_CC_ACTIVE=4\)/m,
        'recursion: said clearly');

    # mcount-cc inside mcount-cc adds and records once.
    unlink $log;
    ($st, $out, $err) = mcc([$MCC, 'gcc', '-c', 'a.c', '-o', 'n.o'], dir => $dir,
        env => { PATH => "$real:$ENV{PATH}" });
    is($st, 0, 'nested mcount-cc: compiles') or diag($err);
    is_deeply(read_log($log)->[0], [qw(-pg -c a.c -o n.o)], 'nested mcount-cc: -pg added once');
    oracle_ok("$dir/n.o", "$dir/a.c", [], 'nested mcount-cc object');

    my $lone = tmpdir();
    symlink($MCC, "$lone/no-such-cc") or die;
    ($st, $out, $err) = mcc(['-c', 'a.c'], prog => "$lone/no-such-cc", dir => $dir,
        env => { PATH => "$lone:$ENV{PATH}" });
    is($st >> 8, 110, 'masquerade without a real compiler: exit status 110');
    like($err, qr/^mcount-cc: no-such-cc: no real compiler of that name on PATH/m, '... said clearly');
}

# --- usage -------------------------------------------------------------------
{
    my ($st, $out, $err) = mcc([]);
    is($st >> 8, 2, 'no compiler: exit status 2');
    like($err, qr/^mcount-cc: no compiler given/, 'no compiler: said');
    ($st, $out, $err) = mcc(['--bogus', 'gcc']);
    is($st >> 8, 2, 'unknown option: exit status 2');
    ($st, $out) = mcc(['--help']);
    is($st, 0, '--help: exit 0');
    like($out, qr/^Usage: mcount-cc /, '--help: usage on stdout');
    ($st, $out) = mcc(['--version']);
    like($out, qr/^mcount-cc \(recordmcount\) \d/, '--version');
    ($st, $out) = mcc(['--classify', 'ccache', 'gcc', '-c', 'x.c', 'y.c']);
    is($out, "record compile x.o y.o\nadd: -pg\nmode: object (auto)\n", '--classify prints the decision');
    ($st, $out, $err) = mcc(['no-such-compiler-here', '-c', 'a.c'], dir => $dir);
    is($st >> 8, 110, 'compiler not found: exit status 110');
    like($err, qr/^mcount-cc: cannot run no-such-compiler-here: /m, 'compiler not found: said');
}

# --- a cross compiler: the matching binutils ---------------------------------
{
    my ($st, $out, $err) = mcc(['aarch64-linux-gnu-gcc-12', '-O2', '-c', 'a.c', '-o', 'arm.o'],
        dir => $dir, env => { MCOUNT_CC_VERBOSE => 1 });
    my ($lst, $arches) = run_cmd(["$TOP/build/mcount-scan", '--list-arches']);
    if ($arches =~ /^aarch64\t/m) {
        is($st, 0, 'aarch64: recorded') or diag($err);
        like($err, qr/^mcount-cc: arm\.o: recorded .* with aarch64-linux-gnu-objdump, aarch64-linux-gnu-objcopy, aarch64-linux-gnu-ld, aarch64-linux-gnu-as$/m,
            'aarch64: with aarch64-linux-gnu binutils');
    } else {
        # The helper does not know aarch64 yet (a later issue adds it):
        # the failure must be that one, clearly, with the cross binutils.
        is($st >> 8, 100, 'aarch64 (helper without aarch64): exit status 100');
        like($err, qr/^mcount-cc: arm\.o: unsupported architecture \(aarch64/m,
            'aarch64: the helper\'s unsupported-architecture error');
        like($err, qr/AS=aarch64-linux-gnu-as LD=aarch64-linux-gnu-ld OBJCOPY=aarch64-linux-gnu-objcopy OBJDUMP=aarch64-linux-gnu-objdump mcount-record arm\.o$/m,
            'aarch64: aarch64-linux-gnu binutils were chosen');
        ok(!-e "$dir/arm.o", 'aarch64: the unrecorded object is removed');
    }
    ($st, $out, $err) = mcc(['aarch64-linux-gnu-gcc-12', 'a.c', 'main.c', '-o', 'arm-prog'], dir => $dir);
    is($st, 0, 'aarch64: a link passes through') or diag($err);
    like((run_cmd(['readelf', '-h', "$dir/arm-prog"]))[1], qr/Machine:\s+AArch64/, 'aarch64: linked for AArch64');
}

done_testing();
