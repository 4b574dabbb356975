/* SPDX-License-Identifier: GPL-2.0-or-later */
/* _mcount and __fentry__ for the s390x runtime oracle.  _mcount: the
 * caller saved %r14 at 8(%r15) and did `brasl %r14,_mcount`; __fentry__:
 * `brasl %r0,__fentry__` first thing, %r14 still the caller's.  The
 * register save area of the caller's frame (16..) is free at that point. */
	.text
	.globl _mcount
	.type _mcount, @function
_mcount:
	stmg %r2, %r14, 16(%r15)
	lgr %r2, %r14
	lay %r15, -160(%r15)
	brasl %r14, mcount_check
	lay %r15, 160(%r15)
	lmg %r2, %r14, 16(%r15)
	br %r14
	.size _mcount, .-_mcount

	.globl __fentry__
	.type __fentry__, @function
__fentry__:
	stmg %r0, %r14, 16(%r15)
	lgr %r2, %r0
	lay %r15, -160(%r15)
	brasl %r14, mcount_check
	lay %r15, 160(%r15)
	lmg %r0, %r14, 16(%r15)
	lgr %r1, %r0            /* br %r0 would not branch: register 0 means none */
	br %r1
	.size __fentry__, .-__fentry__
	.section .note.GNU-stack,"",@progbits
