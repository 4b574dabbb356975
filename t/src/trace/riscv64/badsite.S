/* SPDX-License-Identifier: GPL-2.0-or-later */
/* badsite.S - __mcount_loc entries at code that is not a call to the
 * hook, for the riscv64 guest: the library must refuse each with a message
 * and never write it.  Each function returns 42 plus its number only
 * if its code ran as written (t/src/trace/sys/badsite.c prints them).
 *   bad_local   jal ra to a function that is no hook
 *   bad_stub    auipc ra + jalr ra to the same
 *   bad_next    auipc ra followed by something else than jalr ra
 *   bad_word    neither an auipc ra nor a jal ra
 *   bad_more1   auipc ra + jalr ra to a function named _mcount, a call
 *               to the hook as far as its own bytes and target tell,
 *               but two bytes into a 4-byte instruction (a halfword
 *               whose low bits are 11 before it), which the function
 *               jumps over
 * Every instruction here is 4 bytes (norvc), none relaxed away.
 * Assembled as it is (not through mcount-cc). */
	.option norvc
	.option norelax
	.text

	.type ret_one, @function
	.p2align 2
ret_one:
	li	a0, 1
	ret
	.size ret_one, .-ret_one

	.globl bad_local
	.type bad_local, @function
	.p2align 2
bad_local:
	addi	sp, sp, -16
	sd	ra, 8(sp)
.Lbad_local:
	jal	ra, ret_one
	ld	ra, 8(sp)
	addi	sp, sp, 16
	addi	a0, a0, 41
	ret
	.size bad_local, .-bad_local

	.globl bad_stub
	.type bad_stub, @function
	.p2align 2
bad_stub:
	addi	sp, sp, -16
	sd	ra, 8(sp)
.Lbad_stub:
	call	ret_one
	ld	ra, 8(sp)
	addi	sp, sp, 16
	addi	a0, a0, 42
	ret
	.size bad_stub, .-bad_stub

	.globl bad_next
	.type bad_next, @function
	.p2align 2
bad_next:
	mv	t0, ra
.Lbad_next:
	auipc	ra, 0
	li	a0, 1
	mv	ra, t0
	addi	a0, a0, 43
	ret
	.size bad_next, .-bad_next

	.globl bad_word
	.type bad_word, @function
	.p2align 2
bad_word:
	li	a0, 1
.Lbad_word:
	addi	a0, a0, 44
	ret
	.size bad_word, .-bad_word

/* Named like the hook and local: a call to it is a call to the hook as
 * far as a site's own bytes and target tell (never called). */
	.type _mcount, @function
	.p2align 2
_mcount:
	ret
	.size _mcount, .-_mcount

/* At _mcount + 4.  The site, at bad_more1 + 10, is auipc ra, 0 (0x00000097)
 * + jalr ra, -14(ra) (0xff2080e7): a call to _mcount.  Written as the
 * instructions objdump and the library decode from the function's start:
 * li; j; 0x00970013 (low half 0x0013, high half the auipc's low half);
 * 0x0000 (the auipc's high half, 2 bytes); the jalr; c.nop. */
	.globl bad_more1
	.type bad_more1, @function
bad_more1:
	li	a0, 1
	j	1f
	.insn	4, 0x00970013
	.insn	2, 0x0000
	.insn	4, 0xff2080e7
	.insn	2, 0x0001
1:
	addi	a0, a0, 45
	ret
	.size bad_more1, .-bad_more1
.Lbad_more1 = bad_more1 + 10

	.section __mcount_loc, "aw", @progbits
	.quad	.Lbad_local
	.quad	.Lbad_stub
	.quad	.Lbad_next
	.quad	.Lbad_word
	.quad	.Lbad_more1
	.section .note.GNU-stack, "", @progbits
