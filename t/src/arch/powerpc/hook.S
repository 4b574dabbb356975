/* SPDX-License-Identifier: GPL-2.0-or-later */
/* _mcount for the powerpc runtime oracles (ppc32, ppc64 ELFv1, ppc64le
 * ELFv2).  The call site is `bl _mcount`, so lr is the bl + 4; ppc32
 * calls it before its frame exists, with the arguments live, having saved
 * its lr at 4(r1), and expects lr to hold that value again afterwards:
 * return through ctr.  Our own lr is kept inside our own frame. */
#ifdef __powerpc64__
# if _CALL_ELF == 2
	.abiversion 2
#  define FRAME 160      /* 32 header + r3-r10 + lr, 16-aligned */
#  define SAVE 32
	.text
	.globl _mcount
	.type _mcount, @function
_mcount:
# else
#  define FRAME 192      /* 112 header + r3-r10 + lr */
#  define SAVE 112
	.section ".opd", "aw"
	.align 3
	.globl _mcount
	.type _mcount, @function
_mcount:
	.quad .L.mcount, .TOC.@tocbase, 0
	.text
.L.mcount:
# endif
	stdu 1, -FRAME(1)
	mflr 0
	std 0, SAVE+64(1)
	std 3, SAVE+0(1)
	std 4, SAVE+8(1)
	std 5, SAVE+16(1)
	std 6, SAVE+24(1)
	std 7, SAVE+32(1)
	std 8, SAVE+40(1)
	std 9, SAVE+48(1)
	std 10, SAVE+56(1)
	std 2, SAVE+72(1)
	mr 3, 0
	bl mcount_check
	nop
	ld 2, SAVE+72(1)
	ld 3, SAVE+0(1)
	ld 4, SAVE+8(1)
	ld 5, SAVE+16(1)
	ld 6, SAVE+24(1)
	ld 7, SAVE+32(1)
	ld 8, SAVE+40(1)
	ld 9, SAVE+48(1)
	ld 10, SAVE+56(1)
	ld 0, SAVE+64(1)
	mtlr 0
	addi 1, 1, FRAME
	blr
# if _CALL_ELF == 2
	.size _mcount, .-_mcount
# else
	.size _mcount, 24
# endif
#else
	.text
	.globl _mcount
	.type _mcount, @function
_mcount:
	stwu 1, -64(1)
	mflr 0
	stw 0, 52(1)
	stw 3, 16(1)
	stw 4, 20(1)
	stw 5, 24(1)
	stw 6, 28(1)
	stw 7, 32(1)
	stw 8, 36(1)
	stw 9, 40(1)
	stw 10, 44(1)
	mr 3, 0
	bl mcount_check
	lwz 3, 16(1)
	lwz 4, 20(1)
	lwz 5, 24(1)
	lwz 6, 28(1)
	lwz 7, 32(1)
	lwz 8, 36(1)
	lwz 9, 40(1)
	lwz 10, 44(1)
	lwz 0, 52(1)
	mtctr 0
	lwz 0, 68(1)            /* the function's lr, which it reads again */
	mtlr 0
	addi 1, 1, 64
	bctr
	.size _mcount, .-_mcount
#endif
	.section .note.GNU-stack,"",@progbits
