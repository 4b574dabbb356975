#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: slow
# The Debian packages (debian/, make deb) as a user gets them: built
# (lintian clean, make deb's own check), built again from a copy of the
# tree elsewhere (the same bytes), installed on this machine with
# apt-get, and used from a directory outside the tree with the tree's
# commands off PATH and no variable of the project set: the demo's
# steps (mcount-cc, mcount-record --list/--verify, mcount-trace run,
# list, enable, show), a program built with pkg-config's flags that
# traces itself through the C API (the shared library and the static
# one), man -w for every page.  Then apt-get purge, which must leave no
# file of the packages and the machine's packages as they were.  Runs as
# root (it installs packages), with none of the three installed before.
use strict;
use warnings;
use Test::More;
use Cwd qw(abs_path);
use POSIX ();
use lib 't/lib';
use TestUtil qw($TOP run_cmd must tmpdir slurp spit need which);

die "t/120 runs as root: it installs and purges packages with apt-get\n" if $> != 0;
need(qw(dpkg-buildpackage dh lintian apt-get gcc pkg-config man));
my @PKGS = qw(recordmcount libmcount-trace0 libmcount-trace-dev);

# installed packages: { name:arch => version }
sub installed {
    my $out = must('dpkg-query', '-W', '-f', '${db:Status-Abbrev}\t${binary:Package}\t${Version}\n');
    return { map { (split /\t/)[1, 2] } grep { /\Aii/ } split /\n/, $out };
}
my %before = %{ installed() };
my @already = grep { my $p = $_; grep { /\A\Q$p\E(?::|\z)/ } keys %before } @PKGS;
die "t/120: installed already (this test installs and purges them): @already\n" if @already;

# apt-get and dpkg wait for a lock another one holds
my @APT = ('timeout', '600', 'apt-get', '-o', 'DPkg::Lock::Timeout=300', '-y', '-q');
local $ENV{DEBIAN_FRONTEND} = 'noninteractive';

# ---- build, twice ----
my $dir = tmpdir();
my $t0 = time;
my ($st, $out, $err) = run_cmd(['make', '-C', $TOP, '-s', 'deb', 'JOBS=2']);
is($st, 0, 'make deb builds the packages, lintian reports no error or warning') or diag "$out$err";
my %deb;
for my $p (@PKGS) {
    ($deb{$p}) = glob("$TOP/build/deb/${p}_*.deb");
    ok(defined $deb{$p}, "$p: a .deb") or BAIL_OUT("no package $p");
}
my ($version) = must("$TOP/bin/mcount-record", '--version') =~ /\(recordmcount\) (\S+)$/m;
for my $p (@PKGS) {
    is(must('dpkg-deb', '-f', $deb{$p}, 'Version'), "$version\n", "$p: the project's version, $version");
}
# (the same sources in another directory, another build: the same bytes)
my $copy = "$dir/elsewhere/recordmcount";
must('mkdir', '-p', $copy);
must('sh', '-c', 'tar -C "$1" -cf - --exclude=./build --exclude=./.git . | tar -C "$2" -xf -', 'sh', $TOP, $copy);
($st, $out, $err) = run_cmd(['make', '-C', $copy, '-s', 'deb', 'JOBS=2']);
is($st, 0, 'make deb builds again from a copy of the tree elsewhere') or diag "$out$err";
for my $d (sort map { s{.*/}{}r } glob("$TOP/build/deb/*.deb")) {
    ok(-f "$copy/build/deb/$d" && slurp("$TOP/build/deb/$d") eq slurp("$copy/build/deb/$d"),
        "$d: the same bytes from either build");
}
note('built twice in ' . (time - $t0) . ' s');

# ---- installed ----
# the files the packages bring, and which of them exist before
my %paths;
for my $p (@PKGS) {
    for (split /\n/, must('dpkg-deb', '-c', $deb{$p})) {
        my ($path) = m{ \./(\S*)} or next;
        $path =~ s{/\z}{};
        $paths{"/$path"} = 1 if length $path;
    }
}
my %existed = map { $_ => (-e $_ || -l $_) } keys %paths;
ok(!grep({ $existed{$_} && !-d $_ } keys %paths), 'no file of the packages exists before');

# (purged: the packages, and those apt-get installed with them, its
# "NEW packages": at the end, or when the test dies)
my ($purged, @new) = (0, @PKGS);
sub purge {
    return (0, '', '') if $purged++;
    my %now = %{ installed() };
    my @there = grep { my $p = $_; grep { /\A\Q$p\E(?::|\z)/ } keys %now } @new;
    return @there ? run_cmd([@APT, 'purge', @there]) : (0, '', '');
}
END { purge() }

($st, $out, $err) = run_cmd([@APT, 'install', '--no-install-recommends', map { $deb{$_} } @PKGS]);
is($st, 0, 'apt-get install ./...deb') or diag "$out$err";
if ($out =~ /^The following NEW packages will be installed:\n((?:[ \t].*\n)+)/m) {
    my %seen = map { $_ => 1 } @new;
    push @new, grep { !$seen{$_}++ } split ' ', $1;
}
note("installed: @new");
my %listed;
for my $p (@PKGS) {
    $listed{$_} = 1 for grep { length } split /\n/, must('dpkg', '-L', $p);
}
ok(!grep({ !$listed{$_} } keys %paths), 'dpkg -L lists every file of the .debs');
like(must('ldconfig', '-p'), qr{libmcount-trace\.so\.0 .*=> (?:/usr)?/lib/\S+/libmcount-trace\.so\.0$}m,
    'the dynamic linker knows libmcount-trace.so.0');

# from elsewhere, with the tree's commands off PATH and nothing set
my $work = "$dir/work";
must('cp', '-R', "$TOP/examples", $work);
must('rm', '-rf', "$work/build", "$work/config.mk", "$work/config.h");
chdir $work or die "$work: $!";
local $ENV{PATH} = join ':', grep {
    my $d = length $_ ? abs_path($_) // $_ : '';
    length $d && $d ne $TOP && $d ne "$TOP/bin"
} split /:/, $ENV{PATH};
delete local @ENV{ grep { /\A(?:RECORDMCOUNT_|MCOUNT_|PERL5LIB\z|PERLLIB\z|LD_PRELOAD\z|LD_LIBRARY_PATH\z)/ }
    keys %ENV };
for my $c (qw(mcount-cc mcount-record mcount-trace recordmcount.pl)) {
    is(which($c), "/usr/bin/$c", "$c on PATH is the package's");
}

# the demo's steps
($st, $out, $err) = run_cmd(['make', '-j2', 'CC=mcount-cc gcc']);
is($st, 0, 'the example builds through mcount-cc') or diag "$out$err";
($st, $out, $err) = run_cmd(['mcount-record', '--list', 'build/lib/calc/arith.o']);
like($out, qr/^\.text\+0x\w+\s+divide\+/m, 'mcount-record --list shows the static divide') or diag $err;
my @objs = map { "build/$_" } qw(lib/calc/arith.o lib/calc/stack.o app/main.o app/format.o rpncalc);
($st, $out, $err) = run_cmd(['mcount-record', '--verify', @objs]);
is($st, 0, 'mcount-record --verify passes') or diag "$out$err";
is(scalar(() = $out =~ /: OK, \d+ entr(?:y|ies) for \d+ calls? to the hook$/mg), scalar @objs, 'each file OK');

# mcount-trace run, with rpncalc reading expressions from a pipe
($st, $out, $err) = run_cmd(['mcount-trace', 'run', '-v', '-o', '/dev/null', '--', 'build/rpncalc', '2 3 +']);
my ($pre) = $err =~ /LD_PRELOAD=(\S+)/;
like(abs_path($pre // '') // '', qr{\A/usr/lib/[^/]+/libmcount-trace\.so\.0\z},
    "mcount-trace run preloads the installed library ($pre)") or diag $err;
my $pidfile = "$work/rpncalc.pid";
pipe(my $r, my $w) or die "pipe: $!";
my $child = fork // die "fork: $!";
if ($child == 0) {
    close $w;
    open STDIN, '<&', $r or POSIX::_exit(126);
    open STDOUT, '>', "$work/out" or POSIX::_exit(126);
    open STDERR, '>', "$work/err" or POSIX::_exit(126);
    { no warnings 'exec'; exec 'timeout', '120', 'mcount-trace', 'run', '-o', '', "--pid-file=$pidfile", '--', 'build/rpncalc', '-'; }
    POSIX::_exit(127);
}
close $r;
$w->autoflush(1);
my $pid;
for (1 .. 300) {
    $pid = -s $pidfile ? slurp($pidfile) =~ s/\s+\z//r : undef;
    last if defined $pid && (run_cmd(['mcount-trace', 'status', $pid]))[0] == 0;
    select undef, undef, undef, 0.1;
}
ok(defined $pid, 'rpncalc runs under mcount-trace') or diag slurp("$work/err");
sub lines { my ($n) = @_; for (1 .. 200) { last if (() = slurp("$work/out") =~ /\n/g) >= $n; select undef, undef, undef, 0.05 } }
local $SIG{PIPE} = 'IGNORE';
SKIP: {
    skip 'rpncalc did not start under mcount-trace', 4 unless defined $pid;
    like(slurp("/proc/$pid/maps"), qr{ /usr/lib/[^/ ]+/libmcount-trace\.so\.0$}m, 'the installed library is mapped in it');
    ($st, $out, $err) = run_cmd(['mcount-trace', 'list', $pid]);
    like($out, qr/^calc_apply\b/m, 'mcount-trace list names calc_apply') or diag $err;
    print $w "2 3 + 4 *\n";
    lines(1);
    ($st, $out, $err) = run_cmd(['mcount-trace', 'enable', $pid, 'calc_apply']);
    is($st, 0, 'mcount-trace enable calc_apply') or diag $err;
    print $w "2 10 ^ 24 -\n7 2 - 9 *\n";
    lines(3);
    ($st, $out, $err) = run_cmd(['mcount-trace', 'show', $pid]);
    is(scalar(() = $out =~ /^\s*rpncalc-\d+\s+\[\d+\]\s+[\d.]+: calc_apply <-/mg), 4,
        'mcount-trace show: calc_apply once per operator since it was enabled') or diag "$out$err";
}
kill 'TERM', $child unless defined $pid;
close $w;
waitpid $child, 0;
is($?, 0, 'rpncalc and mcount-trace end well') or diag slurp("$work/err");
is(slurp("$work/out"), "2 3 + 4 * = 20\n2 10 ^ 24 - = 1000\n7 2 - 9 * = 45\n",
    'rpncalc computed as it does untraced');

# a program of its own, through pkg-config, tracing itself (C API)
spit("$work/self.c", <<'EOF');
#include <mcount-trace.h>
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) int work(int x) { __asm__ volatile(""); return x * 2 + 1; }
int main(void)
{
	int n = mcount_trace_enable("work"), s = 0;
	for (int i = 0; i < 3; i++)
		s += work(i);
	fflush(stdout);
	long ev = mcount_trace_write(1, MCOUNT_TRACE_TEXT);
	printf("enabled %d sum %d events %ld\n", n, s, ev);
	return 0;
}
EOF
my @pc = split ' ', must('pkg-config', '--cflags', '--libs', 'mcount-trace');
is_deeply([grep { !/\A-l/ } @pc], [], 'pkg-config: no path to add (the system\'s own directories)');
for my $way (['shared', [@pc]], ['static', ['-Wl,-Bstatic', @pc, '-Wl,-Bdynamic', '-lpthread']]) {
    my ($name, $libs) = @$way;
    ($st, $out, $err) = run_cmd(['mcount-cc', 'gcc', '-O2', '-o', "self-$name", 'self.c', @$libs]);
    is($st, 0, "$name: built with pkg-config --cflags --libs mcount-trace") or diag "$out$err";
    my $dyn = must('readelf', '-dW', "self-$name");
    if ($name eq 'shared') {
        like($dyn, qr/\(NEEDED\)\s+Shared library: \[libmcount-trace\.so\.0\]/, 'shared: needs libmcount-trace.so.0');
        unlike($dyn, qr/\((?:RPATH|RUNPATH)\)/, 'shared: with no run path');
    } else {
        unlike($dyn, qr/libmcount-trace/, 'static: the library linked in');
    }
    ($st, $out, $err) = run_cmd(["./self-$name"]);
    is($st, 0, "$name: runs") or diag $err;
    is(scalar(() = $out =~ /: work <-main$/mg), 3, "$name: each call of work traced") or diag "$out$err";
    like($out, qr/^enabled 1 sum 9 events 3$/m, "$name: 1 function enabled, 3 events") or diag $out;
}

# the manual pages
# (and a link to mcount_hook.3 for each function it names)
my @pages = grep { m{\A/usr/share/man/man\d/} && !-d $_ } sort keys %paths;
my @pods = map { s{.*/}{}r =~ s/\.pod\z//r } glob("$TOP/doc/*.pod");
is(scalar(grep { !-l $_ } @pages), scalar @pods, 'a page for each doc/*.pod') or diag "@pages";
my ($names) = slurp("$TOP/doc/mcount_hook.3.pod") =~ /^=head1 NAME\n\n(.*?) - /ms;
is_deeply([sort map { m{/([^/]+)\.3\.gz\z} } grep { m{/man3/} } @pages], [sort 'mcount_hook', split /,\s*/, $names],
    'section 3: a page for mcount_hook and each function its NAME lists');
for my $page (@pages) {
    my ($sec, $name) = $page =~ m{/man(\d)/(.+)\.\d\.gz\z} or next;
    ($st, $out) = run_cmd(['man', '-w', $sec, $name]);
    is($out, abs_path($page) . "\n", "man -w $sec $name");   # (a link: the page it links to)
}

# ---- purged ----
chdir '/' or die "/: $!";
($st, $out, $err) = purge();
is($st, 0, 'apt-get purge') or diag "$out$err";
my @left = grep { $_ ne '/.' && !$existed{$_} && (-e $_ || -l $_) } sort keys %listed;
is_deeply(\@left, [], 'no file of the packages left (dpkg -L before, the file system after)');
is_deeply(installed(), \%before, 'the machine\'s packages as they were');
unlike(must('ldconfig', '-p'), qr/libmcount-trace/, 'the dynamic linker forgot the library');

done_testing();
