/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Hand-written code for what compilers do not produce: code before the
 * first symbol of a section (negative deltas), a section whose only
 * symbols are .L temporaries (assembled with -Wa,-L so they reach the
 * symbol table), and a section whose only symbol is local.
 *
 * Every call to the hook goes through SITE, which also writes the call's
 * address into __mcount_expected: the assembler computes the expected
 * table, independently of the tool under test. */
#ifdef __x86_64__
# define WORD .quad
#else
# define WORD .long
#endif

	.macro SITE
771:	call mcount
	.pushsection __mcount_expected,"a",@progbits
	WORD 771b
	.popsection
	.endm

	.section .text.asm_early,"ax",@progbits
.Learly_top:			/* no symbol at offset 0 */
	SITE
	ret
	.globl asm_early_fn
	.type asm_early_fn,@function
asm_early_fn:
	SITE
	ret
	.size asm_early_fn, .-asm_early_fn

	.section .text.asm_lonly,"ax",@progbits
.Llonly_fn:
	SITE
	ret

	.section .text.asm_local,"ax",@progbits
	.type asm_local_fn,@function
asm_local_fn:
	SITE
	SITE
	ret
	.size asm_local_fn, .-asm_local_fn

	.section .data.asm_ptrs,"aw",@progbits
	.globl asm_ptrs
	.balign 8
asm_ptrs:
	WORD .Learly_top, asm_early_fn, .Llonly_fn, asm_local_fn, 0

	.section .note.GNU-stack,"",@progbits
