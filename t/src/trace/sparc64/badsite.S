/* SPDX-License-Identifier: GPL-2.0-or-later */
/* badsite.S - __mcount_loc entries at code that is not a call to the
 * hook, for the sparc64 guest: the library must refuse each with a message
 * and never write it.  Each function returns 42 plus its number only
 * if its code ran as written (t/src/trace/sys/badsite.c prints them).
 * An entry points at the call, as the tables do:
 *   bad_local   save; call of a function that is no hook
 *   bad_stub    a call of _mcount with no save before it (after a
 *               leaf's return: it never runs, since a leaf has no
 *               register the ABI keeps across a call through the PLT):
 *               the hook would take its caller's window for its own
 *   bad_next    a nop (another tool's, or the library's own off state,
 *               which it never wrote here)
 *   bad_word    no call at all
 *   bad_more1   save; call of another function's PLT entry (getpid's)
 * Assembled as it is (not through mcount-cc). */
	.text

	.type	ret_one, #function
	.align	4
ret_one:
	retl
	 mov	1, %o0
	.size	ret_one, .-ret_one

	.globl	bad_local
	.type	bad_local, #function
	.align	4
bad_local:
	save	%sp, -176, %sp
bad_local_site:
	call	ret_one
	 nop
	add	%o0, 41, %i0
	ret
	 restore
	.size	bad_local, .-bad_local

	.globl	bad_stub
	.type	bad_stub, #function
	.align	4
bad_stub:
	retl
	 mov	43, %o0
bad_stub_site:
	call	_mcount
	 nop
	.size	bad_stub, .-bad_stub

	.globl	bad_next
	.type	bad_next, #function
	.align	4
bad_next:
	save	%sp, -176, %sp
bad_next_site:
	nop
	nop
	mov	44, %i0
	ret
	 restore
	.size	bad_next, .-bad_next

	.globl	bad_word
	.type	bad_word, #function
	.align	4
bad_word:
	save	%sp, -176, %sp
bad_word_site:
	mov	45, %i0
	ret
	 restore
	.size	bad_word, .-bad_word

	.globl	bad_more1
	.type	bad_more1, #function
	.align	4
bad_more1:
	save	%sp, -176, %sp
bad_more1_site:
	call	getpid
	 nop
	mov	46, %i0
	ret
	 restore
	.size	bad_more1, .-bad_more1

	.section __mcount_loc, "aw", @progbits
	.align	8
	.xword	bad_local_site
	.xword	bad_stub_site
	.xword	bad_next_site
	.xword	bad_word_site
	.xword	bad_more1_site
	.section .note.GNU-stack, "", @progbits
