/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hook-mips.S - the profiling hook libmcount-trace provides on MIPS,
 * little-endian: mips64el (n64) and mipsel (o32), one text for both
 * (the word's width and o32's differences by the macros below).
 *
 * GCC's -pg calls _mcount at the end of the prologue (arch-mips.c):
 *	move	at, ra			// the parent
 *	addiu	sp, sp, -8		// (o32 only)
 *	ld	t9, %call16(_mcount)(gp)	// (o32: lw)
 *	jalr	t9			// or bal _mcount, linked in
 *	nop
 * as text it does not see as a call: every register but at and ra is
 * the function's, so the hook keeps every one that mt_entry, an
 * ordinary function, may change (v0-v1, a0-a3, $8-$15 (n64: a4-a7,
 * t0-t3; o32: t0-t7), t8-t9, gp, hi, lo, and the floating-point
 * argument registers: f12-f19 on n64, f12 and f14 (each a double) on
 * o32), and returns to ra with ra = at, as the kernel's mips _mcount
 * does, on o32 with sp 8 higher (the two words the site pushed).
 * mt_entry gets ra - 4 (the delay slot: the end of the site), a copy of
 * the parent and the argument registers a0-a7 (o32: a0-a3) (function_graph
 * takes the function's own slot, COPY_BELOW bytes above the copy plus
 * the prologue's offset of ra: arch-mips.c).  The hook's own gp is
 * computed from its own address (bal), since t9 need not hold it (bal
 * _mcount).  The frame, in words from ARGS (o32 keeps the 16 bytes
 * below for mt_entry's own argument registers, its ABI's home area):
 * $2-$15 at 0-13 (a0 at 2: regs), t8, t9 at 14, 15, hi, lo at 16, 17,
 * the copy of the parent at 18, gp at 19, at at 20, ra at 21, then the
 * floating-point registers (8-byte aligned).  n64: 240 bytes, the copy
 * at 144, 96 below the function's sp; o32: 120 bytes, the copy at 88,
 * 40 below the function's sp (the hook's 120 and the site's 8).
 */
#include "hook-table.h"
#if _MIPS_SIM == _ABI64
#define SZREG	8
#define REG_S	sd
#define REG_L	ld
#define ADDIU	daddiu
#define ADDU	daddu
#define ARGS	0
#define FRAME	240
#define PUSHED	0
#else
#define SZREG	4
#define REG_S	sw
#define REG_L	lw
#define ADDIU	addiu
#define ADDU	addu
#define ARGS	16
#define FRAME	120
#define PUSHED	8
#endif
/* gp from our own address, which bal puts in ra: n64 by the label's
 * distance from _gp, o32 by _gp_disp (its lui at the label) */
#if _MIPS_SIM == _ABI64
#define OWN_GP(l)						\
	bal	l;						\
	nop;							\
l:	lui	$28, %hi(%neg(%gp_rel(l)));			\
	daddu	$28, $28, $31;					\
	daddiu	$28, $28, %lo(%neg(%gp_rel(l)))
#else
#define OWN_GP(l)						\
	bal	l;						\
	nop;							\
l:	lui	$28, %hi(_gp_disp);				\
	addiu	$28, $28, %lo(_gp_disp);			\
	addu	$28, $28, $31
#endif
#define R(n)	(ARGS + (n) * SZREG)
#define FPR	R(22)
#define TFP	((ARGS + 3 * SZREG + 7) & ~7)

	.abicalls
	MT_HOOKS .L_mcount

	.text
	.set	nomips16
	.set	nomicromips
	.globl	_mcount
	.type	_mcount, @function
	.p2align 3
	.ent	_mcount
.L_mcount:
_mcount:
	.frame	$sp, FRAME, $31
	.cfi_startproc
	.set	push
	.set	noreorder
	.set	noat
	ADDIU	$sp, $sp, -FRAME
	.cfi_def_cfa_offset FRAME
	REG_S	$31, R(21)($sp)
	.cfi_offset 31, R(21) - FRAME
	REG_S	$1, R(20)($sp)
	REG_S	$28, R(19)($sp)
	.cfi_offset 28, R(19) - FRAME
	REG_S	$2, R(0)($sp)
	REG_S	$3, R(1)($sp)
	REG_S	$4, R(2)($sp)
	REG_S	$5, R(3)($sp)
	REG_S	$6, R(4)($sp)
	REG_S	$7, R(5)($sp)
	REG_S	$8, R(6)($sp)
	REG_S	$9, R(7)($sp)
	REG_S	$10, R(8)($sp)
	REG_S	$11, R(9)($sp)
	REG_S	$12, R(10)($sp)
	REG_S	$13, R(11)($sp)
	REG_S	$14, R(12)($sp)
	REG_S	$15, R(13)($sp)
	REG_S	$24, R(14)($sp)
	REG_S	$25, R(15)($sp)
	mfhi	$2
	REG_S	$2, R(16)($sp)
	mflo	$2
	REG_S	$2, R(17)($sp)
#if _MIPS_SIM == _ABI64
	sdc1	$f12, FPR + 0($sp)
	sdc1	$f13, FPR + 8($sp)
	sdc1	$f14, FPR + 16($sp)
	sdc1	$f15, FPR + 24($sp)
	sdc1	$f16, FPR + 32($sp)
	sdc1	$f17, FPR + 40($sp)
	sdc1	$f18, FPR + 48($sp)
	sdc1	$f19, FPR + 56($sp)
#else
	sdc1	$f12, FPR + 0($sp)
	sdc1	$f14, FPR + 8($sp)
#endif
	REG_S	$1, R(18)($sp)		// the copy of the parent
	OWN_GP(.Lmt_here)		// our own address (ra), for gp
	REG_L	$4, R(21)($sp)
	ADDIU	$4, $4, -4		// the end of the site
	ADDIU	$5, $sp, R(18) + 1	// the copy of the parent, MT_SLOT_KEEP
	ADDIU	$6, $sp, R(2)		// a0-a7 (o32: a0-a3)
#if _MIPS_SIM == _ABI64
	ld	$25, %got_disp(mt_entry)($28)
#else
	lw	$25, %call16(mt_entry)($28)
#endif
	jalr	$25
	nop
	REG_L	$2, R(16)($sp)
	mthi	$2
	REG_L	$2, R(17)($sp)
	mtlo	$2
#if _MIPS_SIM == _ABI64
	ldc1	$f12, FPR + 0($sp)
	ldc1	$f13, FPR + 8($sp)
	ldc1	$f14, FPR + 16($sp)
	ldc1	$f15, FPR + 24($sp)
	ldc1	$f16, FPR + 32($sp)
	ldc1	$f17, FPR + 40($sp)
	ldc1	$f18, FPR + 48($sp)
	ldc1	$f19, FPR + 56($sp)
#else
	ldc1	$f12, FPR + 0($sp)
	ldc1	$f14, FPR + 8($sp)
#endif
	REG_L	$2, R(0)($sp)
	REG_L	$3, R(1)($sp)
	REG_L	$4, R(2)($sp)
	REG_L	$5, R(3)($sp)
	REG_L	$6, R(4)($sp)
	REG_L	$7, R(5)($sp)
	REG_L	$8, R(6)($sp)
	REG_L	$9, R(7)($sp)
	REG_L	$10, R(8)($sp)
	REG_L	$11, R(9)($sp)
	REG_L	$12, R(10)($sp)
	REG_L	$13, R(11)($sp)
	REG_L	$14, R(12)($sp)
	REG_L	$15, R(13)($sp)
	REG_L	$24, R(14)($sp)
	REG_L	$25, R(15)($sp)
	REG_L	$28, R(19)($sp)
	REG_L	$1, R(20)($sp)		// the parent
	REG_L	$31, R(21)($sp)		// where the site returns to
	ADDIU	$sp, $sp, FRAME + PUSHED	// (o32: and the site's push)
	.cfi_def_cfa_offset -PUSHED
	jr	$31
	move	$31, $1			// (delay slot) ra = the parent
	.set	pop
	.cfi_endproc
	.end	_mcount
	.size	_mcount, .-_mcount

/* A hijacked function returns here, after its epilogue: sp is its
 * caller's again, and the slot it returned through (the key, rt.h) is
 * just below it.  v0, v1, f0 and f2 (the return values) and gp (the
 * function gave its caller's back) are kept; ra gets the original
 * return address, mt_exit's.  The library's own gp from its own
 * address, as in _mcount.  As hook-aarch64.S's: no unwind information
 * and a word of no function before it, on purpose, and never unmapped.
 * The frame, 48 bytes: from ARGS v0, v1, gp, then f0 and f2 (TFP,
 * 8-byte aligned). */
	.globl	mt_return_trampoline
	.hidden	mt_return_trampoline
	.type	mt_return_trampoline, @function
	.p2align 3
	teq	$0, $0
mt_return_trampoline:
	.set	push
	.set	noreorder
	.set	noat
	ADDIU	$sp, $sp, -48
	REG_S	$2, R(0)($sp)
	REG_S	$3, R(1)($sp)
	REG_S	$28, R(2)($sp)
	sdc1	$f0, TFP($sp)
	sdc1	$f2, TFP + 8($sp)
	OWN_GP(.Lmt_tramp)
	ADDIU	$4, $sp, 48 - SZREG	// the key: the slot, just below the caller's sp
	move	$5, $2			// the return value
#if _MIPS_SIM == _ABI64
	ld	$25, %got_disp(mt_exit)($28)
#else
	lw	$25, %call16(mt_exit)($28)
#endif
	jalr	$25
	nop
	move	$31, $2
	REG_L	$2, R(0)($sp)
	REG_L	$3, R(1)($sp)
	REG_L	$28, R(2)($sp)
	ldc1	$f0, TFP($sp)
	ldc1	$f2, TFP + 8($sp)
	jr	$31
	ADDIU	$sp, $sp, 48
	.set	pop
	.size	mt_return_trampoline, .-mt_return_trampoline

	.section .note.GNU-stack,"",%progbits
