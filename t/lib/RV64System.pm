# SPDX-License-Identifier: GPL-2.0-or-later
package RV64System;
# Running riscv64 programs under full-system emulation (t/83): Debian's
# riscv64 kernel (build/riscv64/vmlinux, fetched by scripts/fetch-kernel
# riscv64) booted by qemu-system-riscv64 through OpenSBI; QemuSystem
# does it and says why not qemu-user.
use strict;
use warnings;

use Exporter 'import';
use QemuSystem qw(%SYS sys_boot);

our @EXPORT_OK = qw($RV64KERNEL $RV64CC $RV64CXX $RV64SYSROOT rv64_boot);

our $RV64KERNEL = $SYS{riscv64}{kernel};
our $RV64CC = $SYS{riscv64}{cc};
our $RV64CXX = $SYS{riscv64}{cxx};
our $RV64SYSROOT = $SYS{riscv64}{sysroot};

# rv64_boot(OPTIONS): QemuSystem's sys_boot on riscv64 (qemu's default
# CPU, rv64gc with the extensions qemu 7.2 enables, unless cpu says).
sub rv64_boot { return sys_boot('riscv64', @_) }

1;
