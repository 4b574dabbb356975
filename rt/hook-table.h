/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hook-table.h - for rt/hook-*.S: MT_HOOKS LABEL[, LABEL]... lists the
 * hooks' addresses the library's C reads (mt_hooks, rt.h), in the order
 * the architecture's code names: words in data against local labels at
 * the hooks, so that no instruction of the library names a hook (the
 * link-time pass, linking the library into a program, and --verify
 * would take one for a call of it). */
	.macro MT_HOOKS labels:vararg
	.pushsection .data.rel.ro, "aw"
	.p2align 3
	.globl mt_hooks
	.hidden mt_hooks
	.type mt_hooks, %object
mt_hooks:
	.dc.a \labels
	.size mt_hooks, .-mt_hooks
	.popsection
	.endm
