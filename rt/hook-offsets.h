/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hook-offsets.h - where the fields of rt.h's structures are, for a hook
 * written in assembly that reads them itself (hook-x86_64.S: the own
 * trampolines' fast path).  buffer.c checks each against offsetof, so a
 * change of rt.h that moves one fails the build instead of the program.
 * x86_64 only. */
#ifndef MT_HOOK_OFFSETS_H
#define MT_HOOK_OFFSETS_H

/* struct mt_tbuf */
#define MT_TB_NEST 24
#define MT_TB_NEST_SP 32
#define MT_TB_SDEPTH 80
#define MT_TB_HELD 128
/* struct mt_hooktab and its struct mt_fhook f[] */
#define MT_HT_N 8
#define MT_HT_F 16
#define MT_FH_SIZE 24
#define MT_FH_MASK 0
#define MT_FH_ADDR 8
#define MT_FH_REDIRECT 16
/* struct mt_op */
#define MT_OP_ENTRY 0
#define MT_OP_DATA 16
/* struct mcount_regs: exit, noexit and own are bytes 0, 1 and 2 of the
 * word at MT_RG_EXIT, depth its upper half */
#define MT_RG_REGS 0
#define MT_RG_ARGS 8
#define MT_RG_RET 16
#define MT_RG_EXIT 24
#define MT_RG_NOEXIT 25
#define MT_RG_OWN 26
#define MT_RG_DEPTH 28
#define MT_RG_FRAME 32
#define MT_RG_SIZE 40

#endif
