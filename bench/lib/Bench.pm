# SPDX-License-Identifier: GPL-2.0-or-later
# Bench - what the benchmarks under bench/ share: messages, running a
# command for its output, hyperfine, medians.  A benchmark prints figures
# against a baseline of the same run and never fails on a figure; it fails
# only when it cannot measure (a tool missing, a build that broke).
#
#   use lib dirname(abs_path($0)) . '/lib';
#   use Bench;
#   Bench::init('bench-record');           # the name its messages carry
#   my $tmp = Bench::workdir();             # a temporary directory, removed at exit
package Bench;

use strict;
use warnings;

use Exporter 'import';
use File::Temp qw(tempdir);
use JSON::PP ();
use POSIX ();

our @EXPORT = qw(say_ section fail need run_cap run_cap_in run_ok write_file median quantile ms hyperfine
    hyperfine_in verdict loadavg);
our @EXPORT_OK = qw(cxx_project);

my $name = 'bench';
my $tmp;

sub init { ($name) = @_; $| = 1 }

# The machine's load: other work disturbs every figure, so it is printed.
sub loadavg {
    open my $fh, '<', '/proc/loadavg' or return '?';
    my @l = split ' ', <$fh>;
    return "@l[0 .. 2]";
}

sub say_ { print "$name: @_\n" }
sub section { say_(@_, ' [load average ' . loadavg() . ']') }
sub fail { print STDERR "$name: error: @_\n"; exit 1 }
sub verdict { $_[0] ? 'met' : 'NOT MET' }

# A temporary directory outside the project (TOP), kept with BENCH_KEEP=1.
sub workdir {
    my ($top) = @_;
    $tmp = tempdir("recordmcount-$name.XXXXXX", TMPDIR => 1, CLEANUP => !$ENV{BENCH_KEEP});
    fail("temporary directory $tmp is inside the project") if $top && index("$tmp/", "$top/") == 0;
    say_("work dir $tmp") if $ENV{BENCH_KEEP};
    return $tmp;
}

sub need {
    my ($what, $hint) = @_;
    for my $dir (split /:/, $ENV{PATH}) {
        return "$dir/$what" if -x "$dir/$what";
    }
    fail("$what not found ($hint; `make deps` installs scripts/deps/bench.list)");
}

# Run a command (argv) with extra environment; returns (status, stdout, stderr).
sub run_cap { return run_cap_in(undef, @_) }

# The same in directory DIR (undef: this one).
sub run_cap_in {
    my ($dir, $env, @cmd) = @_;
    my ($out, $err) = ("$tmp/.out", "$tmp/.err");
    my $pid = fork // fail("cannot fork: $!");
    if (!$pid) {
        $ENV{$_} = $env->{$_} for keys %$env;
        if (defined $dir && !chdir $dir) { print STDERR "cannot enter $dir: $!\n"; POSIX::_exit(127) }
        open STDOUT, '>', $out or POSIX::_exit(127);
        open STDERR, '>', $err or POSIX::_exit(127);
        exec { $cmd[0] } @cmd or POSIX::_exit(127);
    }
    waitpid $pid, 0;
    my $st = $?;
    local $/;
    my ($o, $e) = ('', '');
    if (open my $fh, '<', $out) { $o = <$fh> // '' }
    if (open my $fh, '<', $err) { $e = <$fh> // '' }
    return ($st, $o, $e);
}

sub run_ok {
    my ($what, @cmd) = @_;
    my ($st, $o, $e) = run_cap({}, @cmd);
    fail("$what failed: @cmd\n$o$e") if $st;
    return $o;
}

sub write_file {
    my ($path, $text, $mode) = @_;
    open my $fh, '>', $path or fail("cannot write $path: $!");
    print {$fh} $text;
    close $fh or fail("write $path: $!");
    chmod $mode, $path if $mode;
}

sub median {
    my @v = sort { $a <=> $b } @_;
    return undef unless @v;
    return @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2;
}

# The Q quantile of the values, interpolated between neighbours.
sub quantile {
    my ($q, @v) = @_;
    @v = sort { $a <=> $b } @v;
    my $pos = $q * (@v - 1);
    my $lo = POSIX::floor($pos);
    return $lo + 1 < @v ? $v[$lo] + ($pos - $lo) * ($v[$lo + 1] - $v[$lo]) : $v[$lo];
}

sub ms { sprintf '%.1f', $_[0] * 1e3 }

# hyperfine over commands [name, command line, prepare?], RUNS runs each
# after WARM warm-ups; without a shell (-N) unless a command needs one
# (then hyperfine subtracts its shell's start-up).  Returns { name => {
# times => [seconds...], cpu => mean user+system seconds } }.
sub hyperfine { return hyperfine_in(undef, {}, @_) }

# The same run in directory DIR (undef: this one) with extra environment ENV.
sub hyperfine_in {
    my ($dir, $env, $runs, $warm, @cmds) = @_;
    my $hf = need('hyperfine', 'Debian package hyperfine');
    my $json = "$tmp/hf.json";
    my @argv = ($hf, ((grep { $_->[1] =~ /[\$<>&|;]/ } @cmds) ? () : '-N'), '--style', 'none', '--warmup', $warm,
        '--runs', $runs, '--export-json', $json);
    if (grep { $_->[2] } @cmds) {
        push @argv, '--prepare', $_->[2] // 'true' for @cmds;
    }
    push @argv, '--command-name', $_->[0] for @cmds;
    push @argv, map { $_->[1] } @cmds;
    my ($st, $o, $e) = run_cap_in($dir, $env, @argv);
    fail("hyperfine failed:\n$o$e") if $st;
    open my $fh, '<', $json or fail("no hyperfine output: $!");
    local $/;
    my $j = JSON::PP::decode_json(<$fh>);
    return { map { $_->{command} => { times => $_->{times}, cpu => $_->{user} + $_->{system} } }
        @{ $j->{results} } };
}

# The generated C++ project of the benchmarks, in DIR: N files of
# templates, standard containers and inline functions shared through a
# header (COMDAT groups: the one copy a link keeps), main.cc calling each,
# and a Makefile (prog from main.o f1.o ... with $(CXX) and $(CXXFLAGS);
# clean).  Returns the sources, main.cc first.
sub cxx_project {
    my ($d, $n) = @_;
    write_file("$d/common.h", "#include <map>\n#include <string>\n#include <vector>\n"
        . "template <typename T> struct Acc { std::vector<T> v; void add(T x) { v.push_back(x); }\n"
        . "  T sum() const { T s{}; for (const T &x : v) s += x; return s; } };\n"
        . "inline int mix(int a, int b) { return (a * 31) ^ b; }\n"
        . join('', map { "int f$_(int n);\n" } 1 .. $n));
    for my $i (1 .. $n) {
        write_file("$d/f$i.cc", "#include \"common.h\"\nint f$i(int n) {\n  Acc<int> a; Acc<long> b; std::map<std::string, int> m;\n"
            . "  for (int i = 0; i < n; i++) { a.add(mix(i, $i)); b.add(i); m[std::to_string(i)] = i; }\n"
            . "  return a.sum() + (int)b.sum() + (int)m.size();\n}\n");
    }
    write_file("$d/main.cc", "#include <cstdio>\n#include \"common.h\"\nint main(int argc, char **) {\n  long s = 0;\n"
        . join('', map { "  s += f$_(argc + 10);\n" } 1 .. $n) . "  std::printf(\"%ld\\n\", s);\n  return 0;\n}\n");
    write_file("$d/Makefile", "# generated by bench/lib/Bench.pm\nOBJS = main.o" . join('', map { " f$_.o" } 1 .. $n)
        . "\nprog: \$(OBJS)\n\t\$(CXX) -o \$@ \$(OBJS)\n%.o: %.cc common.h\n\t\$(CXX) \$(CXXFLAGS) -c -o \$@ \$<\n"
        . "clean:\n\trm -f *.o prog\n");
    return map { "$d/$_.cc" } 'main', map { "f$_" } 1 .. $n;
}

1;
