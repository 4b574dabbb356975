# SPDX-License-Identifier: GPL-2.0-or-later
package S390XSystem;
# Running s390x programs under full-system emulation (t/89): Debian's
# s390x kernel (build/s390x/vmlinuz, fetched by scripts/fetch-kernel
# s390x) booted by qemu-system-s390x on the s390-ccw-virtio machine;
# QemuSystem does it and says why not qemu-user.
use strict;
use warnings;

use Exporter 'import';
use QemuSystem qw(%SYS sys_boot);

our @EXPORT_OK = qw($S390XCC $S390XCXX $S390XSYSROOT s390x_boot);

our $S390XCC = $SYS{s390x}{cc};
our $S390XCXX = $SYS{s390x}{cxx};
our $S390XSYSROOT = $SYS{s390x}{sysroot};

# s390x_boot(OPTIONS): QemuSystem's sys_boot on qemu's most capable CPU
# (unless cpu says otherwise).
sub s390x_boot { return sys_boot('s390x', @_) }

1;
