# SPDX-License-Identifier: GPL-2.0-or-later
package ArmSystem;
# Running 32-bit Arm (armhf) programs under full-system emulation
# (t/86): Debian's arm64 kernel (build/aarch64/vmlinuz, fetched by
# scripts/fetch-kernel arm64), which runs them at AArch32 EL0, booted by
# qemu-system-aarch64 on a Cortex-A57; QemuSystem does it and says why
# not qemu-user.
use strict;
use warnings;

use Exporter 'import';
use QemuSystem qw(%SYS sys_boot);

our @EXPORT_OK = qw($ARMCC $ARMSYSROOT arm_boot);

our $ARMCC = $SYS{arm}{cc};
our $ARMSYSROOT = $SYS{arm}{sysroot};

# arm_boot(OPTIONS): QemuSystem's sys_boot with the armhf programs.
sub arm_boot { return sys_boot('arm', @_) }

1;
