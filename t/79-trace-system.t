#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: system
# libmcount-trace in booted guests: for each row of guests.tab, a subtest
# that boots its kernel under qemu-system-ARCH (t/lib/QemuSystem.pm says
# why not qemu-user) with an initramfs of the programs its checks run, in
# one boot (SysTrace's guest_run).  The check sets a row names are
# written once, in t/lib/SysTrace.pm: the machine runs code changed
# through /proc/self/mem as the tracer changes it (smc.c; qemu-user
# does not), and a dynamically linked program runs there as under
# qemu-user; the -finstrument-functions oracle, each code model of the
# guest preloaded or linked in, with no filter no event; function_graph
# against the enter and exit log, and through longjmp, siglongjmp, fork,
# backtrace, pthread_exit, cancellation and C++ exceptions; live
# switching under load (toggle.c); table entries that are no calls to
# the hook, refused; a stripped program; function events against
# args.c's own log; Lua 5.4 with every function traced; a -pg shared
# library beside its program; hooks (mcount_hook(3)) against hooks.c's
# own counts, with callbacks that change every register a callee may; the
# function profiler's hits against statcount.c's own counts, each
# caller's time against its callees'.  What is a guest's own (the site forms
# objdump must show, its code models, its extra programs and boots) is
# in the module its row names, whose header says all that the guest
# checks: A64Trace (aarch64), RV64Trace (riscv64), ArmTrace (arm),
# PPC64Trace (ppc64le, ppc64, ppc), I386Trace (i386, in the guest and on
# this host), S390Trace (s390x), MipsTrace (mips64el, mipsel, mips),
# LA57Trace (la57: x86_64 with 5-level page tables, and mcount-attach
# under Yama's ptrace_scope), Sparc64Trace
# (sparc64).
#
# MCOUNT_GUESTS=NAME[,NAME...] runs those guests only (one boot each,
# 70 to 300 s); make check-system runs them all, one after the other.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use QemuSystem qw(%SYS @GUESTS);
use SysTrace qw(guest_run);

my %only = map { ($_ => 1) } split /[,\s]+/, $ENV{MCOUNT_GUESTS} // '';
is_deeply([grep { !$SYS{$_} } sort keys %only], [], 'MCOUNT_GUESTS names rows of guests.tab') if %only;
for my $name (@GUESTS) {
    next if %only && !$only{$name};
    subtest $name => sub {
        note "$name: $SYS{$name}{arch} programs, $SYS{$name}{qemu} -M $SYS{$name}{board}, "
            . ($SYS{$name}{kernel} =~ s{.*/build/}{build/}r) . " ($SYS{$name}{source}), $SYS{$name}{module}";
        # (a guest whose builds die fails, and the next guests run)
        eval { guest_run($name); 1 } or fail("$name: $@");
        done_testing();
    };
}

done_testing();
