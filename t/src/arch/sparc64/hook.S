/* SPDX-License-Identifier: GPL-2.0-or-later */
/* _mcount for the sparc64 runtime oracle: the call site is `call
 * _mcount; nop` after its save, so our %i7 (after our own save) is the
 * address of that call. */
	.text
	.globl _mcount
	.type _mcount, #function
_mcount:
	save %sp, -176, %sp
	call mcount_check
	 mov %i7, %o0
	ret
	 restore
	.size _mcount, .-_mcount
	.section .note.GNU-stack,"",@progbits
