/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Process entry for the sh4 runtime oracle, which runs without glibc:
 * Debian 12's static and dynamic sh4 glibc 2.36 programs hang or crash
 * at start-up under qemu-sh4 7.2 (even a plain hello world does).
 * main(1, NULL), then exit with its status. */
	.text
	.align 2
	.globl _start
	.type _start, @function
_start:
	mov.l .Lmain, r0
	mov #1, r4
	jsr @r0
	 mov #0, r5
	mov r0, r4
	mov #1, r3              /* __NR_exit */
	trapa #0x11
	.align 2
.Lmain:
	.long main
	.size _start, .-_start
	.section .note.GNU-stack,"",@progbits
