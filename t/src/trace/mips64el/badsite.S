/* SPDX-License-Identifier: GPL-2.0-or-later */
/* badsite.S - __mcount_loc entries at words that are not calls to the
 * hook, for t/90 (mips64el, n64, PIC): the library must refuse each
 * with a message and never write it.  Each function returns 42 plus its
 * number only if its code ran as written (t/src/trace/sys/badsite.c
 * prints them).
 *   bad_local   ld t9 from the GOT, jalr t9: the slot holds a function
 *               that is no hook
 *   bad_stub    ld t9 from the GOT, then bal to a function that is no
 *               hook (the form a link gives a call to a local _mcount)
 *   bad_next    ld t9 from the GOT, then neither jalr t9 nor bal
 *   bad_word    no ld t9 at all
 * Assembled as it is (not through mcount-cc). */
	.abicalls
	.text
	.set	noreorder

	.globl	ret_one
	.type	ret_one, @function
	.p2align 3
	.ent	ret_one
ret_one:
	jr	$31
	li	$2, 1
	.end	ret_one
	.size	ret_one, .-ret_one

#define FUNC(name)					\
	.globl	name;					\
	.type	name, @function;			\
	.p2align 3;					\
	.ent	name;					\
name:							\
	daddiu	$sp, $sp, -16;				\
	sd	$31, 8($sp);				\
	sd	$28, 0($sp);				\
	lui	$28, %hi(%neg(%gp_rel(name)));		\
	daddu	$28, $28, $25;				\
	daddiu	$28, $28, %lo(%neg(%gp_rel(name)));	\
	move	$2, $0;					\
	move	$1, $31

#define END(name, n)					\
	addiu	$2, $2, 42 + n - 1;			\
	ld	$31, 8($sp);				\
	ld	$28, 0($sp);				\
	jr	$31;					\
	daddiu	$sp, $sp, 16;				\
	.end	name;					\
	.size	name, .-name

FUNC(bad_local)
bad_local_spot:
	ld	$25, %call16(ret_one)($28)
	jalr	$25
	nop
END(bad_local, 0)

FUNC(bad_stub)
bad_stub_spot:
	ld	$25, %call16(ret_one)($28)
	bal	ret_one
	nop
END(bad_stub, 1)

FUNC(bad_next)
bad_next_spot:
	ld	$25, %call16(ret_one)($28)
	addiu	$2, $2, 1
END(bad_next, 2)

FUNC(bad_word)
bad_word_spot:
	addiu	$2, $2, 1
	nop
END(bad_word, 3)

	.section __mcount_loc, "aw", @progbits
	.p2align 3
	.dword	bad_local_spot
	.dword	bad_stub_spot
	.dword	bad_next_spot
	.dword	bad_word_spot
	.section .note.GNU-stack, "", @progbits
