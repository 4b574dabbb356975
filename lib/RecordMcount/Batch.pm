# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::Batch;
# mcount-record's record mode (and --dry-run): every FILE through the
# record pipeline, one at a time or N at a time (-j, a child forked per
# file), with a progress line on a terminal, the assembly of --dry-run
# and the summary line.  Output comes in the order of the files whatever
# order the children finish in.
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Front qw(lto_text plural);
use RecordMcount::Message qw(program error throw caught status_text);
use RecordMcount::Pipeline qw(record_object);
use RecordMcount::Run qw(fork_child forget_child reset_after_fork slurp_fh);
use RecordMcount::Tools qw(object_tools);

our @EXPORT_OK = qw(record_files);

# record_files(FILES, OPTIONS) -> exit status (0, or 1 if a file failed)
# OPTIONS: mcount-record's: jobs, dry_run, quiet, entry, sections,
# writable, pass_over, and for the tools helper, explicit, cross.
sub record_files {
    my ($files, $opt) = @_;
    my $b = { files => $files, opt => $opt, done => 0,
        sum => { recorded => 0, sites => 0, unchanged => 0, errors => 0 },
        progress => -t STDERR && !$opt->{quiet} };
    if ($opt->{jobs} > 1 && @$files > 1) { _parallel($b) } else { _serial($b) }
    _clear_progress($b);
    my $sum = $b->{sum};
    unless ($opt->{quiet}) {
        my $fh = $opt->{dry_run} ? \*STDERR : \*STDOUT;
        printf {$fh} "%s: %s %s, %s, %d unchanged, %s\n", program(), plural($sum->{recorded}, 'object'),
            $opt->{dry_run} ? 'to record' : 'recorded', plural($sum->{sites}, 'call site'),
            $sum->{unchanged}, plural($sum->{errors}, 'error');
    }
    return $sum->{errors} ? 1 : 0;
}

# Record one file.  Returns (status, sites, assembly); throws "FILE: msg".
sub _record_one {
    my ($file, $opt) = @_;
    my ($id, $tools) = object_tools($file, $opt, $opt->{dry_run} ? ('objdump') : qw(objdump objcopy ld as));
    my %o = (prog => program(), helper => $opt->{helper}, label => $file, entry => $opt->{entry},
        sections => $opt->{sections}, dry_run => $opt->{dry_run}, writable_table => $opt->{writable},
        pass_over => $opt->{pass_over},
        map { $_ => $tools->{$_} } qw(objdump objcopy ld));
    if ($tools->{cc}) { $o{cc} = $tools->{cc} } else { $o{as} = $tools->{as} }
    my $r = record_object($file, \%o);
    throw("$file: " . lto_text()) if $r->{status} eq 'lto';
    return ($r->{status}, $r->{sites}, $r->{assembly});
}

sub _show_progress {
    my ($b, $file) = @_;
    return unless $b->{progress} && @{ $b->{files} } > 1;
    printf STDERR "\r\e[K%s: [%d/%d] %s", program(), $b->{done}, scalar(@{ $b->{files} }), $file // '';
    return;
}

sub _clear_progress {
    my ($b) = @_;
    print STDERR "\r\e[K" if $b->{progress} && @{ $b->{files} } > 1;
    return;
}

sub _account {
    my ($b, $file, $st, $n, $asm) = @_;
    my $sum = $b->{sum};
    $b->{done}++;
    if ($st eq 'error') { $sum->{errors}++ }
    elsif ($st eq 'recorded' || $st eq 'dry-run') { $sum->{recorded}++; $sum->{sites} += $n }
    else { $sum->{unchanged}++ }
    if (defined $asm && length $asm) {
        print "/* $file */\n" if @{ $b->{files} } > 1;
        print $asm;
    }
    return;
}

sub _serial {
    my ($b) = @_;
    for my $file (@{ $b->{files} }) {
        _show_progress($b, $file);
        _clear_progress($b);
        my ($st, $n, $asm) = eval { _record_one($file, $b->{opt}) };
        if (!defined $st) { error(caught($@)); $st = 'error' }
        _account($b, $file, $st, $n, $asm);
    }
    return;
}

# One file of a -j run, in a child forked from this process (what is loaded
# is shared; its temporary files, children and signals are its own): the
# result goes to stdout as "STATUS\tSITES\n" and the assembly, messages to
# stderr, both files the parent reads back.
sub _worker {
    my ($file, $opt, $out, $err) = @_;
    reset_after_fork();
    POSIX::dup2(fileno $out, 1) && POSIX::dup2(fileno $err, 2) or POSIX::_exit(127);
    my ($st, $n, $asm) = eval { _record_one($file, $opt) };
    if (!defined $st) { error(caught($@)); print "error\t0\n"; exit 1 }
    print "$st\t$n\n", $asm // '';
    exit 0;
}

# -j N: each file in a child of its own, output collected and printed in
# one piece, in the order of the files.
sub _parallel {
    my ($b) = @_;
    my ($files, $opt) = ($b->{files}, $b->{opt});
    my @queue = (0 .. $#$files);
    my %running;    # pid => [index, out fh, err fh]
    my (@ready, $next);    # finished results, printed in the order of the files
    $next = 0;
    require POSIX;
    # nothing buffered may be copied into a child and printed twice
    $| = 1;
    # a signal: Run.pm's handlers stop and wait for the registered
    # workers (which clean up after themselves), then die of the signal
    while (@queue || %running) {
        while (@queue && keys(%running) < $opt->{jobs}) {
            my $i = shift @queue;
            my $file = $files->[$i];
            my ($out, $err, $pid);
            eval {
                open($out, '+>', undef) or throw("cannot create a temporary file: $!");
                open($err, '+>', undef) or throw("cannot create a temporary file: $!");
                $pid = fork_child();
                1;
            } or do { error(caught($@)); exit 1 };
            _worker($file, $opt, $out, $err) if $pid == 0;
            $running{$pid} = [$i, $out, $err];
        }
        _show_progress($b);
        my $pid = waitpid(-1, 0);
        next unless $pid > 0 && $running{$pid};
        forget_child($pid);
        my ($i, $out, $err) = @{ delete $running{$pid} };
        $ready[$i] = [$?, slurp_fh($out), slurp_fh($err)];
        while ($next < @$files && $ready[$next]) {
            my ($status, $res, $etext) = @{ $ready[$next] };
            my $file = $files->[ $next++ ];
            _clear_progress($b);
            print STDERR $etext;
            my ($st, $n, $asm) = $res =~ /\A(\S+)\t(\d+)\n(.*)\z/s ? ($1, $2, $3) : ('error', 0, '');
            if ($st ne 'error' && $status != 0) { $st = 'error' }
            error("$file: worker " . status_text($status)) if $st eq 'error' && !length $etext;
            _account($b, $file, $st, $n, $asm);
        }
    }
    return;
}

1;
