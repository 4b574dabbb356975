/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hook-sparc64.S - the profiling hook libmcount-trace provides on sparc64.
 *
 * GCC's -pg calls _mcount after the function's `save` (arch-sparc64.c),
 * so the function's own window is the current one: its %i0-%i5 are its
 * arguments, %i6 its frame pointer (its caller's %sp) and %i7 the
 * address of the call that called it (it returns to %i7 + 8); %o7 is
 * the site.  The hook makes a window of its own, then `flushw` writes
 * every other window to its save area, the first 128 bytes above its
 * %sp + 2047 (the stack bias): the function's %i0-%i7 are then at 64-127
 * of the hook's %fp + 2047, and are read from there when the hook
 * returns (`restore` finds no window left to restore, and the kernel
 * fills it from memory).  So that word of %i7 is the slot of the
 * function's return address, the word below it (its %i6, the caller's
 * %sp) the key (rt.h), and the six below that its argument registers as
 * they were at the site.  mt_entry gets the address after the site (its
 * delay slot: s->addr + s->len), the slot and those registers.
 * The function's %o registers are the hook's %i, which it keeps; it
 * keeps %g1-%g5 and %f0-%f31 (the floating-point argument registers,
 * which C code may use) in its frame: the 176 bytes of the ABI's save
 * and argument areas, %g1-%g5 at 176-215, %d0-%d30 at 216-343; 352
 * bytes.  Hooks' entry callbacks run inside mt_entry, inside those
 * saves.  (GCC's -pg call is an ordinary one, around which the function
 * itself stores the floating-point arguments it still needs: every
 * floating-point register is the caller's to keep.  They are kept here
 * all the same, for a site that does not.)
 */
#include "hook-table.h"
#define BIAS   2047
#define FRAME  352
#define G_AT   (BIAS + 176)
#define F_AT   (BIAS + 216)

	.register %g2, #scratch
	.register %g3, #scratch

	.macro	SAVE_FP base
	.irp	n, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
	std	%f\n, [%sp + \base + 4 * \n]
	.endr
	.endm
	.macro	LOAD_FP base
	.irp	n, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
	ldd	[%sp + \base + 4 * \n], %f\n
	.endr
	.endm

	MT_HOOKS .L_mcount

	.text
	.globl	_mcount
	.type	_mcount, #function
	.align	32
.L_mcount:
_mcount:
	.cfi_startproc
	save	%sp, -FRAME, %sp
	.cfi_window_save
	.cfi_register %o7, %i7
	.cfi_def_cfa_register %fp
	flushw
	stx	%g1, [%sp + G_AT]
	stx	%g2, [%sp + G_AT + 8]
	stx	%g3, [%sp + G_AT + 16]
	stx	%g4, [%sp + G_AT + 24]
	stx	%g5, [%sp + G_AT + 32]
	SAVE_FP	F_AT
	add	%i7, 4, %o0		! the address after the site
	add	%fp, BIAS + 120, %o1	! the slot: the function's %i7
	call	mt_entry
	 add	%fp, BIAS + 64, %o2	! its %i0-%i5
	LOAD_FP	F_AT
	ldx	[%sp + G_AT], %g1
	ldx	[%sp + G_AT + 8], %g2
	ldx	[%sp + G_AT + 16], %g3
	ldx	[%sp + G_AT + 24], %g4
	ldx	[%sp + G_AT + 32], %g5
	ret
	 restore
	.cfi_endproc
	.size	_mcount, .-_mcount

/* A hijacked function returns to its %i7 + 8, which entry set to
 * mt_return_trampoline: the code starts 8 bytes in (the two words before
 * it never run).  Its `restore` made its caller's window the current
 * one, so %sp is the caller's, the key (the function's %i6 was that
 * %sp), and the return values are in %o0-%o3 (the trampoline's %i0-%i3
 * after its save, which it keeps) and %f0-%f7 (a long double in %q0, a
 * structure of up to 32 bytes in %d0-%d6), kept around mt_exit and the
 * hooks' exit callbacks inside it.  The caller's %o7 (the
 * function's %i7) becomes the original return address again, and the
 * trampoline returns to it + 8.  As hook-aarch64.S's: no unwind
 * information, on purpose, and never unmapped.  The frame: the save
 * and argument areas, %d0-%d6 at 176-207; 208 bytes. */
#define TFRAME 208
#define TF_AT  (BIAS + 176)
	.globl	mt_return_trampoline
	.hidden	mt_return_trampoline
	.type	mt_return_trampoline, #function
	.align	32
mt_return_trampoline:
	illtrap	0
	illtrap	0
	save	%sp, -TFRAME, %sp
	std	%f0, [%sp + TF_AT]
	std	%f2, [%sp + TF_AT + 8]
	std	%f4, [%sp + TF_AT + 16]
	std	%f6, [%sp + TF_AT + 24]
	mov	%fp, %o0		! the key: the caller's %sp
	call	mt_exit
	 mov	%i0, %o1		! the return value
	ldd	[%sp + TF_AT], %f0
	ldd	[%sp + TF_AT + 8], %f2
	ldd	[%sp + TF_AT + 16], %f4
	ldd	[%sp + TF_AT + 24], %f6
	mov	%o0, %i7
	ret
	 restore
	.size	mt_return_trampoline, .-mt_return_trampoline

	.section .note.GNU-stack,"",@progbits
