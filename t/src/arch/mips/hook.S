/* SPDX-License-Identifier: GPL-2.0-or-later */
/* _mcount for the mips runtime oracles (o32 big and little endian, n64).
 * Every call form does `move $1, $31` first (at = the function's own
 * return address) and reaches us by jal or jalr: ra is the return point.
 * o32 call sites also take 8 bytes of stack in the delay slot, which we
 * give back.  Keep the argument registers and $gp. */
	.set noreorder
	.set noat
	.text
	.globl _mcount
	.ent _mcount
	.type _mcount, @function
_mcount:
#if _MIPS_SIM == _ABIO32
	addiu $sp, $sp, -48
	sw $4, 16($sp)
	sw $5, 20($sp)
	sw $6, 24($sp)
	sw $7, 28($sp)
	sw $1, 32($sp)
	sw $31, 36($sp)
	sw $28, 40($sp)
	sw $2, 44($sp)
	lui $25, %hi(mcount_check)
	addiu $25, $25, %lo(mcount_check)
	move $4, $31            /* not in the delay slot: jalr has set $31 by then */
	jalr $25
	 nop
	lw $4, 16($sp)
	lw $5, 20($sp)
	lw $6, 24($sp)
	lw $7, 28($sp)
	lw $1, 32($sp)
	lw $25, 36($sp)
	lw $28, 40($sp)
	lw $2, 44($sp)
	move $31, $1
	jr $25
	 addiu $sp, $sp, 56      /* ours and the call site's 8 */
#else
	daddiu $sp, $sp, -112
	sd $4, 0($sp)
	sd $5, 8($sp)
	sd $6, 16($sp)
	sd $7, 24($sp)
	sd $8, 32($sp)
	sd $9, 40($sp)
	sd $10, 48($sp)
	sd $11, 56($sp)
	sd $1, 64($sp)
	sd $31, 72($sp)
	sd $28, 80($sp)
	sd $2, 88($sp)
	lui $25, %highest(mcount_check)
	daddiu $25, $25, %higher(mcount_check)
	dsll $25, $25, 16
	daddiu $25, $25, %hi(mcount_check)
	dsll $25, $25, 16
	daddiu $25, $25, %lo(mcount_check)
	move $4, $31            /* not in the delay slot: jalr has set $31 by then */
	jalr $25
	 nop
	ld $4, 0($sp)
	ld $5, 8($sp)
	ld $6, 16($sp)
	ld $7, 24($sp)
	ld $8, 32($sp)
	ld $9, 40($sp)
	ld $10, 48($sp)
	ld $11, 56($sp)
	ld $1, 64($sp)
	ld $25, 72($sp)
	ld $28, 80($sp)
	ld $2, 88($sp)
	move $31, $1
	jr $25
	 daddiu $sp, $sp, 112
#endif
	.end _mcount
	.size _mcount, .-_mcount
	.section .note.GNU-stack,"",@progbits
