#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# Bad input: a "recordmcount: FILE: message" line, a non-zero exit, the
# file byte-identical afterwards, and no temporary file left behind.
# Also names that a shell would mangle, symlinks, tool failures and signals.
use strict;
use warnings;
no warnings 'portable';
use Test::More;
use File::Copy qw(copy);
use POSIX ();
use lib 't/lib';
use TestUtil qw($TOP $SRC run_cmd must compile record_pl tmpdir slurp spit leftovers);
use Oracle qw(table_sites filter_sites kernel_section);

my $dir = tmpdir();
chmod 0755, $dir;
my $good = compile("$SRC/corpus.c", "$dir/good.o", '-O2', '-pg', '-mfentry');
my $gcc = compile("$SRC/corpus.c", "$dir/good.gcc.o", '-O2', '-pg', '-mfentry', '-mrecord-mcount');
my $oracle = filter_sites(table_sites($gcc), \&kernel_section);
my $bytes = slurp($good);

sub rec12 {
    my ($file, %o) = @_;
    return run_cmd(["$TOP/recordmcount.pl", 'x86', 'little', $o{bits} // '64',
        $o{objdump} // 'objdump', $o{objcopy} // 'objcopy', $o{cc} // 'gcc', $o{ld} // 'ld',
        'nm', '', '', '0', $file], env => $o{env});
}

# each: name, how to make the file, expected message
my @cases = (
    ['empty file', sub { spit($_[0], '') }, qr/empty file/],
    ['text file', sub { spit($_[0], "hello, world\n" x 20) }, qr/not an ELF file/],
    ['random bytes', sub { srand 7; spit($_[0], join '', map { chr int rand 256 } 1 .. 4096) }, qr/not an ELF file/],
    (map { my $len = $_; ["ELF truncated to $len bytes", sub { spit($_[0], substr($bytes, 0, $len)) },
        qr/truncated|file format not recognized|objdump failed|not an ELF/] }
        10, 40, 63, 64, 500, int(length($bytes) / 2), length($bytes) - 1),
    ['corrupt section header table', sub {
        my $b = $bytes;
        substr($b, 0x28, 8) = pack('Q<', 0x7fffffff00);    # e_shoff far past the end
        spit($_[0], $b) }, qr/objdump failed|file format not recognized|truncated/],
    ['executable', sub { copy('/bin/true', $_[0]) or die }, qr/not a relocatable object \(ELF type DYN/],
    ['i386 object for x86 64-bit', sub {
        compile("$SRC/corpus.c", $_[0], '-m32', '-O2', '-pg') }, qr/object is for i386, 32-bit little-endian, not x86_64/],
    ['another machine', sub {
        my $b = $bytes;
        substr($b, 18, 2) = pack('v', 183);                 # EM_AARCH64
        spit($_[0], $b) }, qr/object is for aarch64, 64-bit little-endian, not x86_64/],
    ['LTO object', sub { compile("$SRC/corpus.c", $_[0], '-O2', '-pg', '-flto') }, qr/an LTO object has no machine code/],
);

for my $c (@cases) {
    my ($name, $make, $re) = @$c;
    my $f = "$dir/case.o";
    unlink $f;
    $make->($f);
    my $before = slurp($f);
    my ($st, $out, $err) = rec12($f);
    is($st >> 8, 1, "$name: exit 1") or diag $err;
    like($err, qr/^recordmcount: \Q$f\E: (?:.*)?$re/m, "$name: message") or diag $err;
    ok(slurp($f) eq $before, "$name: file unchanged");
    is_deeply([leftovers($dir)], [], "$name: no temporary files");
}

# strip leaves a relocatable object no symbols and no relocations: nothing
# to record, and nothing is changed
{
    my $f = "$dir/stripped.o";
    copy($good, $f) or die;
    must('strip', $f);
    my $before = slurp($f);
    my ($st, $out, $err) = rec12($f);
    is($st, 0, 'stripped object: exit 0 (no call sites left)');
    ok(slurp($f) eq $before, 'stripped object: unchanged');
}

# not a file at all
{
    my ($st, $out, $err) = rec12("$dir/missing.o");
    is($st >> 8, 1, 'missing file: exit 1');
    like($err, qr/^recordmcount: \Q$dir\E\/missing\.o: no such file$/m, 'missing file: message');
    mkdir "$dir/adir";
    ($st, $out, $err) = rec12("$dir/adir");
    like($err, qr/: is a directory$/m, 'directory: message');
    POSIX::mkfifo("$dir/fifo", 0644) or die;
    ($st, $out, $err) = rec12("$dir/fifo");
    like($err, qr/: not a regular file$/m, 'FIFO: message (and no hang)');
}

# write-protected file, and (as a user who cannot write there) a read-only directory
{
    my $f = "$dir/ro.o";
    copy($good, $f) or die;
    chmod 0444, $f;
    my ($st, $out, $err) = rec12($f);
    is($st >> 8, 1, 'write-protected file: exit 1');
    like($err, qr/: file is not writable$/m, 'write-protected file: message');
    ok(slurp($f) eq $bytes, 'write-protected file: unchanged');
    chmod 0644, $f;

    my $rodir = "$dir/rodir";
    mkdir $rodir or die;
    copy($good, "$rodir/x.o") or die;
    my @as_user;
    if ($> == 0) {
        # root may write anywhere: run as nobody, who owns the file but not the directory
        my $nobody = getpwnam('nobody') // die 'no user nobody';
        chown $nobody, -1, "$rodir/x.o";
        @as_user = ('setpriv', "--reuid=$nobody", '--regid=' . ((getpwnam('nobody'))[3]), '--clear-groups', '--');
    } else {
        chmod 0555, $rodir;
    }
    ($st, $out, $err) = run_cmd([@as_user, "$TOP/recordmcount.pl", 'x86', 'little', '64', 'objdump',
        'objcopy', 'gcc', 'ld', 'nm', '', '', '0', "$rodir/x.o"]);
    is($st >> 8, 1, 'read-only directory: exit 1');
    like($err, qr/directory \Q$rodir\E is not writable/, 'read-only directory: message') or diag $err;
    ok(slurp("$rodir/x.o") eq $bytes, 'read-only directory: unchanged');
    chmod 0755, $rodir;
}

# missing and failing tools
{
    my $f = "$dir/tools.o";
    for my $t (['objdump', 'no-such-objdump'], ['ld', 'no-such-ld'], ['cc', 'no-such-cc']) {
        copy($good, $f) or die;
        my ($st, $out, $err) = rec12($f, $t->[0] => $t->[1]);
        is($st >> 8, 1, "missing $t->[0]: exit 1");
        like($err, qr/^recordmcount: \Q$f\E: \Q$t->[1]\E: not found/m, "missing $t->[0]: message") or diag $err;
        ok(slurp($f) eq $bytes, "missing $t->[0]: unchanged");
    }
    spit("$dir/fail-ld", "#!/bin/sh\necho 'fail-ld: disk on fire' >&2\nexit 3\n");
    chmod 0755, "$dir/fail-ld";
    copy($good, $f) or die;
    my ($st, $out, $err) = rec12($f, ld => "$dir/fail-ld");
    is($st >> 8, 1, 'failing ld: exit 1');
    like($err, qr/^recordmcount: \Q$f\E: relinking \(ld -r\) failed \(fail-ld exited 3\)\n  fail-ld: disk on fire$/m,
        'failing ld: message names the step, the tool, its status and its words');
    ok(slurp($f) eq $bytes, 'failing ld: unchanged');
    is_deeply([leftovers($dir)], [], 'failing ld: no temporary files');
}

# killed while a tool runs: the object is the original, nothing left behind
for my $sig (qw(INT TERM)) {
    my $f = "$dir/sig.o";
    copy($good, $f) or die;
    spit("$dir/slow-ld", "#!/bin/sh\ntouch '$dir/ld-started'\nexec sleep 30\n");
    chmod 0755, "$dir/slow-ld";
    unlink "$dir/ld-started";
    my $pid = fork // die;
    if ($pid == 0) {
        open STDERR, '>', '/dev/null';
        { no warnings 'exec'; exec "$TOP/recordmcount.pl", 'x86', 'little', '64', 'objdump',
            'objcopy', 'gcc', "$dir/slow-ld", 'nm', '', '', '0', $f; }
        POSIX::_exit(127);
    }
    for (1 .. 200) { last if -e "$dir/ld-started"; select undef, undef, undef, 0.05 }
    ok(-e "$dir/ld-started", "SIG$sig: the pipeline reached ld");
    kill $sig, $pid;
    waitpid $pid, 0;
    is($? & 127, POSIX->can("SIG$sig")->(), "SIG$sig: died of the same signal");
    ok(slurp($f) eq $bytes, "SIG$sig: object unchanged");
    is_deeply([leftovers($dir)], [], "SIG$sig: no temporary files");
}

# names a shell would mangle, and a leading '-'
for my $base ("with space.o", q{quote'and"dq.o}, 'semi;colon.o', '$(touch pwned).o', "new\nline.o", '-dash.o') {
    my $f = "$dir/$base";
    copy($good, $f) or die;
    my ($st, $out, $err) = rec12($f);
    (my $shown = $base) =~ s/\n/\\n/g;
    is($st, 0, "name '$shown': recorded") or diag $err;
    is_deeply(table_sites($f), $oracle, "name '$shown': table equals GCC's");
    unlink $f;
}
ok(!-e 'pwned' && !-e "$dir/pwned", 'no shell ever ran a file name');
{
    # relative name with a leading dash, from inside the directory
    copy($good, "$dir/-rel.o") or die;
    my ($st, $out, $err) = run_cmd(['sh', '-c', 'cd "$1" && exec "$2" x86 little 64 objdump objcopy gcc ld nm "" "" 0 -rel.o',
        'sh', $dir, "$TOP/recordmcount.pl"]);
    is($st, 0, "relative '-rel.o': recorded") or diag $err;
    is_deeply(table_sites("$dir/-rel.o"), $oracle, "relative '-rel.o': table equals GCC's");
}

# a symlink: the target is recorded, the link stays a link
{
    copy($good, "$dir/target.o") or die;
    symlink 'target.o', "$dir/link.o" or die;
    my ($st, $out, $err) = rec12("$dir/link.o");
    is($st, 0, 'symlink: recorded') or diag $err;
    ok(-l "$dir/link.o", 'symlink: still a link');
    is_deeply(table_sites("$dir/target.o"), $oracle, 'symlink: the target has the table');
}

# a hard link: the other name keeps the old content
{
    copy($good, "$dir/h1.o") or die;
    link "$dir/h1.o", "$dir/h2.o" or die;
    my ($st, $out, $err) = rec12("$dir/h1.o");
    is($st, 0, 'hard link: recorded');
    is_deeply(table_sites("$dir/h1.o"), $oracle, 'hard link: recorded name has the table');
    ok(slurp("$dir/h2.o") eq $bytes, 'hard link: the other name is unchanged');
}

is_deeply([leftovers($dir)], [], 'no temporary files left at all');
done_testing();
