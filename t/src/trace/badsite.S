/* SPDX-License-Identifier: GPL-2.0-or-later */
/* badsite.S - table entries that are not calls to the hook, for
 * t/73-trace-process.t: one at a mov, one at a call of another function.
 * Assembled as it is (not through mcount-cc): its __mcount_loc words are
 * linked after the program's real table. */
	.text
	.globl bad_fn, bad_spot
	.type bad_fn, @function
bad_fn:
bad_spot:
	movl $42, %eax
	ret
	.size bad_fn, .-bad_fn

	.globl bad_call_fn, bad_call_spot
	.type bad_call_fn, @function
bad_call_fn:
	pushq %rbx
bad_call_spot:
	call bad_fn
	addl $1, %eax
	popq %rbx
	ret
	.size bad_call_fn, .-bad_call_fn

	.section __mcount_loc, "a", @progbits
	.quad bad_spot
	.quad bad_call_spot
	.section .note.GNU-stack, "", @progbits
