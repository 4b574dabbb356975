/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hook-mips64el.S - the profiling hook libmcount-trace provides on
 * mips64el (n64).
 *
 * GCC's -pg calls _mcount at the end of the prologue (arch-mips64el.c):
 *	move	at, ra			// the parent
 *	ld	t9, %call16(_mcount)(gp)
 *	jalr	t9			// or bal _mcount, linked in
 *	nop
 * as text it does not see as a call: every register but at and ra is
 * the function's, so the hook keeps every one that mt_entry, an ordinary
 * n64 function, may change (v0-v1, a0-a7, t0-t3, t8-t9, gp, hi, lo, and
 * the floating-point argument registers f12-f19), and returns to ra with
 * ra = at, as the kernel's mips _mcount does (n64 pops nothing; o32's
 * callers push two words the hook would pop).  mt_entry gets ra - 4 (the
 * delay slot: the end of the site), a copy of the parent and the
 * argument registers a0-a7 (function_graph takes the function's own
 * slot, 32 bytes above the copy plus the prologue's offset of ra:
 * arch-mips64el.c).  The hook's own gp is computed from its own
 * address (bal), since t9 need not hold it (bal _mcount).  The frame,
 * 240 bytes: v0, v1, a0-a7 at 0-72 (a0 at 16: regs), t0-t3 at 80-104,
 * t8, t9 at 112, 120, hi, lo at 128, 136, f12-f19 at 144-200, the copy
 * of the parent at 208, gp at 216, at at 224, ra at 232.
 */
	.abicalls
	.text
	.set	nomips16
	.set	nomicromips
	.globl	_mcount
	.type	_mcount, @function
	.p2align 3
	.ent	_mcount
_mcount:
	.frame	$sp, 240, $31
	.cfi_startproc
	.set	push
	.set	noreorder
	.set	noat
	daddiu	$sp, $sp, -240
	.cfi_def_cfa_offset 240
	sd	$31, 232($sp)
	.cfi_offset 31, -8
	sd	$1, 224($sp)
	sd	$28, 216($sp)
	.cfi_offset 28, -24
	sd	$2, 0($sp)
	sd	$3, 8($sp)
	sd	$4, 16($sp)
	sd	$5, 24($sp)
	sd	$6, 32($sp)
	sd	$7, 40($sp)
	sd	$8, 48($sp)
	sd	$9, 56($sp)
	sd	$10, 64($sp)
	sd	$11, 72($sp)
	sd	$12, 80($sp)
	sd	$13, 88($sp)
	sd	$14, 96($sp)
	sd	$15, 104($sp)
	sd	$24, 112($sp)
	sd	$25, 120($sp)
	mfhi	$2
	sd	$2, 128($sp)
	mflo	$2
	sd	$2, 136($sp)
	sdc1	$f12, 144($sp)
	sdc1	$f13, 152($sp)
	sdc1	$f14, 160($sp)
	sdc1	$f15, 168($sp)
	sdc1	$f16, 176($sp)
	sdc1	$f17, 184($sp)
	sdc1	$f18, 192($sp)
	sdc1	$f19, 200($sp)
	sd	$1, 208($sp)		// the copy of the parent
	bal	.Lmt_here		// our own address, for gp
	nop
.Lmt_here:
	lui	$28, %hi(%neg(%gp_rel(.Lmt_here)))
	daddu	$28, $28, $31
	daddiu	$28, $28, %lo(%neg(%gp_rel(.Lmt_here)))
	ld	$4, 232($sp)
	daddiu	$4, $4, -4		// the end of the site
	daddiu	$5, $sp, 209		// the copy of the parent, MT_SLOT_KEEP
	daddiu	$6, $sp, 16		// a0-a7
	ld	$25, %got_disp(mt_entry)($28)
	jalr	$25
	nop
	ld	$2, 128($sp)
	mthi	$2
	ld	$2, 136($sp)
	mtlo	$2
	ldc1	$f12, 144($sp)
	ldc1	$f13, 152($sp)
	ldc1	$f14, 160($sp)
	ldc1	$f15, 168($sp)
	ldc1	$f16, 176($sp)
	ldc1	$f17, 184($sp)
	ldc1	$f18, 192($sp)
	ldc1	$f19, 200($sp)
	ld	$2, 0($sp)
	ld	$3, 8($sp)
	ld	$4, 16($sp)
	ld	$5, 24($sp)
	ld	$6, 32($sp)
	ld	$7, 40($sp)
	ld	$8, 48($sp)
	ld	$9, 56($sp)
	ld	$10, 64($sp)
	ld	$11, 72($sp)
	ld	$12, 80($sp)
	ld	$13, 88($sp)
	ld	$14, 96($sp)
	ld	$15, 104($sp)
	ld	$24, 112($sp)
	ld	$25, 120($sp)
	ld	$28, 216($sp)
	ld	$1, 224($sp)		// the parent
	ld	$31, 232($sp)		// where the site returns to
	daddiu	$sp, $sp, 240
	.cfi_def_cfa_offset 0
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
 * and a word of no function before it, on purpose, and never unmapped. */
	.globl	mt_return_trampoline
	.hidden	mt_return_trampoline
	.type	mt_return_trampoline, @function
	.p2align 3
	teq	$0, $0
mt_return_trampoline:
	.set	push
	.set	noreorder
	.set	noat
	daddiu	$sp, $sp, -48
	sd	$2, 0($sp)
	sd	$3, 8($sp)
	sdc1	$f0, 16($sp)
	sdc1	$f2, 24($sp)
	sd	$28, 32($sp)
	bal	.Lmt_tramp
	nop
.Lmt_tramp:
	lui	$28, %hi(%neg(%gp_rel(.Lmt_tramp)))
	daddu	$28, $28, $31
	daddiu	$28, $28, %lo(%neg(%gp_rel(.Lmt_tramp)))
	daddiu	$4, $sp, 40		// the key: the slot, just below the caller's sp
	move	$5, $2			// the return value
	ld	$25, %got_disp(mt_exit)($28)
	jalr	$25
	nop
	move	$31, $2
	ld	$2, 0($sp)
	ld	$3, 8($sp)
	ldc1	$f0, 16($sp)
	ldc1	$f2, 24($sp)
	ld	$28, 32($sp)
	jr	$31
	daddiu	$sp, $sp, 48
	.set	pop
	.size	mt_return_trampoline, .-mt_return_trampoline

	.section .note.GNU-stack,"",%progbits
