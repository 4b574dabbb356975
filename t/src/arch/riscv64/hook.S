/* SPDX-License-Identifier: GPL-2.0-or-later */
/* _mcount for the riscv64 runtime oracle: `mv a0, ra; call _mcount`, so
 * ra is the auipc + 8. */
	.text
	.globl _mcount
	.type _mcount, @function
_mcount:
	addi sp, sp, -80
	sd ra, 72(sp)
	sd a0, 0(sp)
	sd a1, 8(sp)
	sd a2, 16(sp)
	sd a3, 24(sp)
	sd a4, 32(sp)
	sd a5, 40(sp)
	sd a6, 48(sp)
	sd a7, 56(sp)
	mv a0, ra
	call mcount_check
	ld a0, 0(sp)
	ld a1, 8(sp)
	ld a2, 16(sp)
	ld a3, 24(sp)
	ld a4, 32(sp)
	ld a5, 40(sp)
	ld a6, 48(sp)
	ld a7, 56(sp)
	ld ra, 72(sp)
	addi sp, sp, 80
	ret
	.size _mcount, .-_mcount
	.section .note.GNU-stack,"",@progbits
