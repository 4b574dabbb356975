#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# mcount-cc in front of launchers: `mcount-cc ccache gcc` twice (the second
# build from the cache, whose entries must not change), with and without
# ccache's hard_link mode, and `mcount-cc distcc gcc` against a distccd
# this test starts on 127.0.0.1 only (killed at the end).  Each build ends
# in objects whose tables equal GCC's -mrecord-mcount ones and a working
# program.
use strict;
use warnings;
use Test::More;
use File::Find ();
use IO::Socket::INET ();
use POSIX ();
use Digest::MD5 ();
use TestUtil qw(tmpdir slurp run_cmd);
use CcTest qw($MCC @SOURCES oracle_ok copy_example in_dir program_ok no_leftovers);

delete $ENV{$_} for qw(MCOUNT_CC_FLAGS MCOUNT_CC_ACTIVE MCOUNT_CC_VERBOSE OBJDUMP OBJCOPY LD AS
    CROSS_COMPILE MAKEFLAGS MFLAGS CFLAGS CPPFLAGS LDFLAGS CC DISTCC_HOSTS);
delete $ENV{$_} for grep { /^CCACHE_/ } keys %ENV;

sub objects_ok {
    my ($ex, $name) = @_;
    for my $src (@SOURCES) {
        (my $obj = "build/$src") =~ s/\.c\z/.o/;
        oracle_ok("$ex/$obj", "$ex/$src", ['-O2', '-g', "-I$ex", "-I$ex/include", "-I$ex/app"], "$name: $obj");
    }
    return;
}

# name => md5 of every cache entry file (not the statistics).
sub cache_files {
    my ($dir) = @_;
    my %sum;
    File::Find::find(sub {
        return unless -f $_ && !/^(stats|CACHEDIR\.TAG|\.cleaned)\z/ && $File::Find::dir !~ m{/tmp\z};
        open(my $fh, '<:raw', $_) or die "$File::Find::name: $!";
        $sum{$File::Find::name} = Digest::MD5->new->addfile($fh)->hexdigest;
    }, $dir);
    return \%sum;
}

sub ccache_stat {
    my ($env, $key) = @_;
    my (undef, $out) = run_cmd(['ccache', '--print-stats'], env => $env);
    return $out =~ /^\Q$key\E\t(\d+)$/m ? $1 : -1;
}

# --- ccache, twice ----------------------------------------------------------
for my $mode ('default', 'hard_link') {
    my %env = (CCACHE_DIR => tmpdir(), CCACHE_NOHASHDIR => '1');
    $env{CCACHE_HARDLINK} = 1 if $mode eq 'hard_link';
    my $ex = copy_example();
    my $cc = "CC=$MCC ccache gcc";
    my ($st, $out, $err) = in_dir($ex, 'make', '-j2', $cc, \%env);
    is($st, 0, "ccache ($mode): first build") or diag($out . $err);
    is(ccache_stat(\%env, 'cache_miss'), 4, "ccache ($mode): first build: 4 misses");
    objects_ok($ex, "ccache ($mode) first build");
    my $before = cache_files($env{CCACHE_DIR});
    ok(scalar keys %$before, "ccache ($mode): the cache has entries");

    run_cmd(['ccache', '-z'], env => \%env);
    run_cmd(['rm', '-rf', "$ex/build"]);
    ($st, $out, $err) = in_dir($ex, 'make', '-j2', $cc, \%env);
    is($st, 0, "ccache ($mode): second build") or diag($out . $err);
    is(ccache_stat(\%env, 'direct_cache_hit'), 4, "ccache ($mode): second build: 4 hits from the cache");
    is(ccache_stat(\%env, 'cache_miss'), 0, "ccache ($mode): second build: no miss");
    objects_ok($ex, "ccache ($mode) second build");
    is_deeply(cache_files($env{CCACHE_DIR}), $before, "ccache ($mode): cache entries unchanged");
    program_ok("$ex/build/rpncalc", "ccache ($mode)");
    no_leftovers($ex, "ccache ($mode)");
}

# --- distcc against a local distccd -------------------------------------------
{
    my $tmp = tmpdir();
    my $port = do {
        my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 1)
            or die "no free port: $!";
        my $p = $s->sockport;
        close $s;
        $p;
    };
    my $log = "$tmp/distccd.log";
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        POSIX::setpgid(0, 0);
        open STDIN, '<', '/dev/null';
        open STDOUT, '>', $log;
        open STDERR, '>&', \*STDOUT;
        my @cmd = ('distccd', '--daemon', '--no-detach', '--listen', '127.0.0.1', '--port', $port,
            '--allow', '127.0.0.1', '--log-stderr', '--log-level', 'info', '--jobs', '2',
            '--enable-tcp-insecure');
        push @cmd, '--user', 'nobody' if $> == 0;
        exec @cmd or POSIX::_exit(127);
    }
    my $stop = sub {
        return unless $pid;
        kill 'TERM', -$pid;
        waitpid $pid, 0;
        $pid = 0;
    };
    local $SIG{ALRM} = sub { $stop->(); die "distcc test: timed out\n" };
    alarm 120;

    my $up;
    for (1 .. 50) {
        $up = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port) and last;
        select undef, undef, undef, 0.1;
    }
    ok($up, "distccd listens on 127.0.0.1:$port") or diag(slurp($log));
    close $up if $up;

    mkdir "$tmp/distcc" or die "$tmp/distcc: $!";
    my %env = (DISTCC_HOSTS => "127.0.0.1:$port/2", DISTCC_DIR => "$tmp/distcc",
        DISTCC_FALLBACK => 0, DISTCC_SKIP_LOCAL_RETRY => 1);
    my $ex = copy_example();
    my ($st, $out, $err) = in_dir($ex, 'make', '-j2', "CC=$MCC distcc gcc", \%env);
    is($st, 0, 'distcc: build') or diag($out . $err);
    $stop->();
    alarm 0;
    my $done = () = slurp($log) =~ /COMPILE_OK/g;
    is($done, 4, 'distcc: the 4 compiles ran on the distccd') or diag(slurp($log));
    objects_ok($ex, 'distcc');
    program_ok("$ex/build/rpncalc", 'distcc');
    no_leftovers($ex, 'distcc');
    END { $stop->() if $stop }
}

done_testing();
