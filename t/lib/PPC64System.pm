# SPDX-License-Identifier: GPL-2.0-or-later
package PPC64System;
# Running ppc64le programs under full-system emulation (t/87): Debian's
# ppc64el kernel (build/ppc64le/vmlinux, fetched by scripts/fetch-kernel
# ppc64el) booted by qemu-system-ppc64 on the pseries machine through
# SLOF; QemuSystem does it and says why not qemu-user.
use strict;
use warnings;

use Exporter 'import';
use QemuSystem qw(%SYS sys_boot);

our @EXPORT_OK = qw($PPC64CC $PPC64CXX $PPC64SYSROOT ppc64_boot);

our $PPC64CC = $SYS{ppc64le}{cc};
our $PPC64CXX = $SYS{ppc64le}{cxx};
our $PPC64SYSROOT = $SYS{ppc64le}{sysroot};

# ppc64_boot(OPTIONS): QemuSystem's sys_boot on a POWER9 (unless cpu
# says otherwise).
sub ppc64_boot { return sys_boot('ppc64le', @_) }

1;
