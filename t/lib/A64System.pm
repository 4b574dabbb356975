# SPDX-License-Identifier: GPL-2.0-or-later
package A64System;
# Running aarch64 programs under full-system emulation (t/79): Debian's
# arm64 kernel (build/aarch64/vmlinuz, fetched by scripts/fetch-kernel
# arm64) booted by qemu-system-aarch64; QemuSystem does it and says why
# not qemu-user.
use strict;
use warnings;

use Exporter 'import';
use QemuSystem qw(%SYS sys_boot);

our @EXPORT_OK = qw($KERNEL $A64CC $A64CXX a64_boot);

our $KERNEL = $SYS{aarch64}{kernel};
our $A64CC = $SYS{aarch64}{cc};
our $A64CXX = $SYS{aarch64}{cxx};    # for C++ programs only (t/79's exceptions)

# a64_boot(OPTIONS): QemuSystem's sys_boot on aarch64; the CPU is a
# Cortex-A57 (ARMv8.0: no pointer authentication, no BTI) unless cpu
# says otherwise.
sub a64_boot { return sys_boot('aarch64', @_) }

1;
