/* SPDX-License-Identifier: GPL-2.0-or-later */
/* badsite.S - __mcount_loc entries at words that are not calls to the
 * hook, for the mips64el guest (n64) and the mipsel and mips guests (o32), PIC: the
 * library must refuse each with a message and never write it.  Each
 * function returns 42 plus its number only if its code ran as written
 * (t/src/trace/sys/badsite.c prints them).  On o32 each entry follows
 * `addiu sp, sp, -8`, as GCC's sites do (and each function undoes it).
 *   bad_local   ld t9 from the GOT, jalr t9: the slot holds a function
 *               that is no hook
 *   bad_stub    ld t9 from the GOT, then bal to a function that is no
 *               hook (the form a link gives a call to a local _mcount)
 *   bad_next    ld t9 from the GOT, then neither jalr t9 nor bal
 *   bad_word    no ld t9 at all
 * (o32: lw t9).  Assembled as it is (not through mcount-cc). */
#if _MIPS_SIM == _ABI64
#define LOAD	ld
#define STORE	sd
#define ADDIU	daddiu
#define ENTRY	.dword
/* gp from t9 (the function's address), kept (n64: callee-saved) */
#define SETGP(name)					\
	lui	$28, %hi(%neg(%gp_rel(name)));		\
	daddu	$28, $28, $25;				\
	daddiu	$28, $28, %lo(%neg(%gp_rel(name)))
#define PUSH
#define POP
#else
#define LOAD	lw
#define STORE	sw
#define ADDIU	addiu
#define ENTRY	.word
#define SETGP(name)
#define PUSH	addiu	$sp, $sp, -8
#define POP	addiu	$sp, $sp, 8
#endif
	.abicalls
	.text
	.set	noreorder
	.set	noat

	.globl	ret_one
	.type	ret_one, @function
	.p2align 3
	.ent	ret_one
ret_one:
	jr	$31
	li	$2, 1
	.end	ret_one
	.size	ret_one, .-ret_one

/* o32: gp from t9 by _gp_disp, whose lui must be the function's first
 * word (gp is the caller's to restore there) */
#if _MIPS_SIM == _ABI64
#define PROLOGUE(name)
#else
#define PROLOGUE(name)					\
	lui	$28, %hi(_gp_disp);			\
	addiu	$28, $28, %lo(_gp_disp);		\
	addu	$28, $28, $25
#endif

#define FUNC(name)					\
	.globl	name;					\
	.type	name, @function;			\
	.p2align 3;					\
	.ent	name;					\
name:							\
	PROLOGUE(name);					\
	ADDIU	$sp, $sp, -16;				\
	STORE	$31, 8($sp);				\
	STORE	$28, 0($sp);				\
	SETGP(name);					\
	move	$2, $0;					\
	move	$1, $31;				\
	PUSH

#define END(name, n)					\
	POP;						\
	addiu	$2, $2, 42 + n - 1;			\
	LOAD	$31, 8($sp);				\
	LOAD	$28, 0($sp);				\
	jr	$31;					\
	ADDIU	$sp, $sp, 16;				\
	.end	name;					\
	.size	name, .-name

FUNC(bad_local)
bad_local_spot:
	LOAD	$25, %call16(ret_one)($28)
	jalr	$25
	nop
END(bad_local, 0)

FUNC(bad_stub)
bad_stub_spot:
	LOAD	$25, %call16(ret_one)($28)
	bal	ret_one
	nop
END(bad_stub, 1)

FUNC(bad_next)
bad_next_spot:
	LOAD	$25, %call16(ret_one)($28)
	addiu	$2, $2, 1
END(bad_next, 2)

FUNC(bad_word)
bad_word_spot:
	addiu	$2, $2, 1
	nop
END(bad_word, 3)

	.section __mcount_loc, "aw", @progbits
	.p2align 3
	ENTRY	bad_local_spot
	ENTRY	bad_stub_spot
	ENTRY	bad_next_spot
	ENTRY	bad_word_spot
	.section .note.GNU-stack, "", @progbits
