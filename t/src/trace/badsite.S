/* SPDX-License-Identifier: GPL-2.0-or-later */
/* badsite.S - table entries that are not calls to the hook, for
 * t/73-trace-process.t: one at a mov, one at a call of another function,
 * two at a 5-byte NOP where GCC's -mnop-mcount puts none (after a mov,
 * in a function that sets up no frame pointer, and in one that does, but
 * after a mov that follows it); on i386 (the i386 guest) also one
 * at a call through the GOT slot of a function of the C library
 * (getpid: preemptible, so the linker leaves the ff 93 call as it is).
 * Assembled as it is (not through mcount-cc): its __mcount_loc words are
 * linked after the program's real table. */
	.text
	/* the same bytes on i386 and x86_64 */
	.globl bad_nop_fn, bad_nop_spot
	.type bad_nop_fn, @function
bad_nop_fn:
	movl $0, %eax
bad_nop_spot:
	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00
	ret
	.size bad_nop_fn, .-bad_nop_fn

	.globl bad_framed_fn, bad_framed_spot
	.type bad_framed_fn, @function
bad_framed_fn:
#if defined(__i386__)
	pushl %ebp
	movl %esp, %ebp
	movl $0, %eax
bad_framed_spot:
	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00
	popl %ebp
#else
	pushq %rbp
	movq %rsp, %rbp
	movl $0, %eax
bad_framed_spot:
	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00
	popq %rbp
#endif
	ret
	.size bad_framed_fn, .-bad_framed_fn

#if defined(__i386__)
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
	pushl %ebx
bad_call_spot:
	call bad_fn
	addl $1, %eax
	popl %ebx
	ret
	.size bad_call_fn, .-bad_call_fn

	.globl bad_got_fn, bad_got_spot
	.type bad_got_fn, @function
bad_got_fn:
	pushl %ebx
	call 1f
1:	popl %ebx
	addl $_GLOBAL_OFFSET_TABLE_+(.-1b), %ebx
bad_got_spot:
	call *getpid@GOT(%ebx)
	popl %ebx
	ret
	.size bad_got_fn, .-bad_got_fn

	.section __mcount_loc, "a", @progbits
	.long bad_spot
	.long bad_call_spot
	.long bad_got_spot
	.long bad_nop_spot
	.long bad_framed_spot
#else
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
	.quad bad_nop_spot
	.quad bad_framed_spot
#endif
	.section .note.GNU-stack, "", @progbits
