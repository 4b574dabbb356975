/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hook-ppc.S - what libmcount-trace provides on ppc32 for the hook.
 *
 * GCC's -pg calls _mcount before the prologue (arch-ppc.c):
 *	mflr	r0
 *	stw	r0,4(r1)		// the parent: the slot
 *	bl	_mcount			// lr := the address after the site
 * and every such program links glibc's own _mcount (libc_nonshared.a),
 * which the shared library does not replace: defining _mcount would give
 * it ld's BSS PLT, a segment writable and executable at once.  glibc's
 * _mcount calls __mcount_internal(frompc, selfpc), a function of
 * libc.so.6, which the library defines here (so a preloaded library gets
 * every call):
 *	stwu	r1,-N(r1)		// N: 64 in glibc 2.36, 48 before
 *	stw	r3,12(r1) ... stw r10,40(r1)
 *	mflr	r4 ; stw r4,44(r1)	// the address after the site
 *	lwz	r3,N+4(r1)		// the parent, from the slot
 *	mfcr ; stw ...,8(r1)
 *	bl	__mcount_internal
 *	(r3-r10 and CR reloaded; ctr := 44(r1); lr := N+4(r1), the slot)
 *	addi	r1,r1,N ; bctr		// to the site + 4
 * arch-ppc.c checks that much of the code a site calls before it lets
 * the site call it.  So here r1 is that _mcount's frame, whose back
 * chain is the sp at the site (the caller's): the slot is 4 bytes above
 * it and the arguments are at 12 bytes into the frame, in the ABI's
 * order (the block mt_entry gets).  Where the slot does not hold the
 * parent, or 44(r1) the address after the site, nothing is done.  Kept
 * besides: f1-f8 (arguments; mt_entry is C, which may use floating
 * point registers for copies).  The frame, 80 bytes: back chain, lr
 * save word of callees, f1-f8 at 16-79.
 *
 * An unwinder stops here (the return address undefined, the end of the
 * stack): above is glibc's _mcount, whose frame description gives the
 * link register it saved, the address after the site, and the site's
 * function has none for its `stw r0,4(r1)` (the parent is in lr at its
 * entry as it describes it): an unwinder that went on would take the
 * address after the site for the function's return, and the function
 * for its own caller, for ever.  So a hook's callback that ends its
 * thread (pthread_exit, a cancellation) ends it there: glibc jumps to
 * the thread's start at the end of the stack (pthread_cleanup_push's
 * handlers run; the thread's frames' own cleanups, C++ destructors and
 * cleanup attributes, do not).
 *
 * The static library (libmcount-trace.a, one object) defines _mcount as
 * well, below: the program's own -pg objects call _mcount, so a link
 * takes the library from the archive for it, before the C library, as
 * other architectures' links take it for their hooks.  Without it, a
 * program that calls none of the library's functions took nothing from
 * the archive: the only way in was __mcount_internal, which glibc's
 * _mcount asks for only once libc_nonshared.a (or libc.a) is read,
 * after the archive, and gets from the C library.  A program's calls of
 * its own _mcount are local, and ld keeps the secure PLT for them (it
 * falls back to the BSS PLT in a position-independent link whose
 * _mcount another module may provide, as a shared library that
 * defines one would): PIE, position-dependent and static programs
 * linked with the archive have no segment writable and executable.
 */
#include "hook-table.h"
	.text
	.globl __mcount_internal
	.type __mcount_internal, @function
	.globl mt_mcount_internal
	.hidden mt_mcount_internal
	.p2align 4
__mcount_internal:
mt_mcount_internal:
	.cfi_startproc
	.cfi_undefined lr
	stwu	1, -80(1)
	.cfi_def_cfa_offset 80
	mflr	0
	stw	0, 84(1)
	stfd	1, 16(1)
	stfd	2, 24(1)
	stfd	3, 32(1)
	stfd	4, 40(1)
	stfd	5, 48(1)
	stfd	6, 56(1)
	stfd	7, 64(1)
	stfd	8, 72(1)
	lwz	11, 0(1)		// _mcount's frame
	lwz	12, 0(11)		// the sp at the site
	addi	12, 12, 4		// the slot
	lwz	0, 0(12)
	cmplw	0, 3			// the parent?
	bne	1f
	lwz	0, 44(11)
	cmplw	0, 4			// the address after the site?
	bne	1f
	mr	3, 4			// the address after the site
	mr	4, 12			// the slot
	addi	5, 11, 12		// the argument registers
	bl	mt_entry
1:	lfd	1, 16(1)
	lfd	2, 24(1)
	lfd	3, 32(1)
	lfd	4, 40(1)
	lfd	5, 48(1)
	lfd	6, 56(1)
	lfd	7, 64(1)
	lfd	8, 72(1)
	lwz	0, 84(1)
	mtlr	0
	addi	1, 1, 80
	.cfi_def_cfa_offset 0
	blr
	.cfi_endproc
	.size __mcount_internal, .-__mcount_internal

#ifndef MT_SHARED
/* _mcount of the static library: the frame of glibc's, whose code
 * arch-ppc.c reads before it takes a site (48 bytes: back chain, lr save
 * word of callees, CR at 8, r3-r10 at 12-40, the address after the site
 * at 44), and a direct call of the library's __mcount_internal.  Back at
 * the site + 4 by ctr, with r3-r10 and CR as they were and lr the parent
 * read back from the slot (4 bytes into the caller's frame, 52(r1) here),
 * where function_graph may have put its return trampoline.  r0, r11,
 * r12 and ctr are the call's to change (volatile, and no argument).  An
 * unwinder stops here, as in __mcount_internal, for the same reason. */
	.globl _mcount
	.type _mcount, @function
	.p2align 4
_mcount:
	.cfi_startproc
	.cfi_undefined lr
	stwu	1, -48(1)
	.cfi_def_cfa_offset 48
	stw	3, 12(1)
	stw	4, 16(1)
	stw	5, 20(1)
	stw	6, 24(1)
	stw	7, 28(1)
	stw	8, 32(1)
	stw	9, 36(1)
	stw	10, 40(1)
	mflr	4			// selfpc: the address after the site
	stw	4, 44(1)
	lwz	3, 52(1)		// frompc: the parent, from the slot
	mfcr	5
	stw	5, 8(1)
	bl	mt_mcount_internal
	lwz	0, 8(1)
	mtcr	0
	lwz	0, 44(1)
	mtctr	0
	lwz	3, 12(1)
	lwz	4, 16(1)
	lwz	5, 20(1)
	lwz	6, 24(1)
	lwz	7, 28(1)
	lwz	8, 32(1)
	lwz	9, 36(1)
	lwz	10, 40(1)
	lwz	0, 52(1)
	mtlr	0
	addi	1, 1, 48
	.cfi_def_cfa_offset 0
	bctr
	.cfi_endproc
	.size _mcount, .-_mcount
#endif

/* A hijacked function returns here: r1 is its caller's sp again, and the
 * slot (the key, rt.h) 4 bytes above it.  Kept: r3, r4 (the return
 * value) and f1-f8 (a floating-point one: a long double's in f1 and f2,
 * a complex one's in f1-f4), around mt_exit and the hooks' exit
 * callbacks it runs, which are the program's code.  As the other
 * hooks': no unwind information and a word of no function before it, on
 * purpose.  The frame, 80 bytes: back chain, lr save word, r3, r4 at 8,
 * 12, f1-f8 at 16-79. */
	.globl mt_return_trampoline
	.hidden mt_return_trampoline
	.type mt_return_trampoline, @function
	.p2align 2
	trap
mt_return_trampoline:
	stwu	1, -80(1)
	stw	3, 8(1)
	stw	4, 12(1)
	.irp f, 1, 2, 3, 4, 5, 6, 7, 8
	stfd	\f, 8 + 8 * \f(1)
	.endr
	mr	4, 3			// the return value
	addi	3, 1, 80 + 4		// the key: the slot in the caller's frame
	bl	mt_exit
	mtlr	3
	lwz	3, 8(1)
	lwz	4, 12(1)
	.irp f, 1, 2, 3, 4, 5, 6, 7, 8
	lfd	\f, 8 + 8 * \f(1)
	.endr
	addi	1, 1, 80
	blr
	.size mt_return_trampoline, .-mt_return_trampoline

/* (the library's own of what ppc32's hook calls: no hook is ours here, and
 * mt_arch.hook_names is NULL; listed for the C that names mt_hooks) */
	MT_HOOKS mt_mcount_internal

	.section .note.GNU-stack,"",@progbits
