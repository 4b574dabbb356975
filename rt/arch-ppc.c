/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arch-ppc.c - the instruction of a ppc32 call site (the SysV ABI,
 * big-endian, glibc's secure-PLT userland).
 *
 * GCC's -pg puts the call before the prologue:
 *	mflr	r0
 *	stw	r0,4(r1)		// the parent, 4 bytes into the caller's frame
 *	bl	_mcount			// lr := the address after the site
 *	stwu	r1,-N(r1) ; mflr r0 ; ... stw r0,N+4(r1)
 * The prologue reads lr again after the call and saves it in the same
 * word, so the hook returns with lr the parent (read back from that
 * word: function_graph's slot, rt.h) and to the site + 4 by ctr.  The
 * table records the bl (src/arch.c's ppc32 row).  The word before it
 * must be the stw of the parent: the hook reads the parent back from
 * there.  Its target is glibc's _mcount, linked into every -pg program
 * from libc_nonshared.a (or libc.a), named or stripped (a -pg shared
 * library's copy through its PLT entry of _mcount), or in a program
 * linked with libmcount-trace.a the archive's own, which makes the same
 * frame (hook-ppc.S); the library gets the calls through the function
 * it calls, __mcount_internal (hook-ppc.S), so that _mcount's code is
 * read first (glibc_mcount): its frame must keep r3-r10 and the address
 * after the site where hook-ppc.S reads them, and its call must reach
 * the library's __mcount_internal, directly (the library linked in) or
 * through a PLT slot the dynamic linker fills with it (plt_slot: ld
 * gives a link the old BSS PLT or the secure PLT's call stubs, as it
 * sees fit).
 *
 * Switched off, the bl becomes a nop: lr stays the parent.  Live, as on
 * ppc64: bl and nop are in the Power ISA's patch class, each site is
 * one aligned word, one store, then dcbst, sync, icbi, isync.  No trap
 * is written (trap_len 0).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <string.h>

#include "cpu.h"
#include "rt.h"

#if !defined(__powerpc__) || defined(__powerpc64__)
#error "arch-ppc.c is ppc32's"
#endif

#define PPC_BL_MASK   0xfc000003u
#define PPC_BL        0x48000001u   /* bl: opcode 18, AA 0, LK 1 */
#define PPC_NOP       0x60000000u   /* ori 0,0,0 */
#define PPC_STW_R0_4  0x90010004u   /* stw r0,4(r1) */
#define PPC_TW_MASK   0xfc0007feu
#define PPC_TW        0x7c000008u
#define PPC_TWI_MASK  0xfc000000u
#define PPC_TWI       0x0c000000u
#define PPC_STWU_R1   0x94210000u   /* stwu r1,d(r1) */
#define PPC_MFLR      0x7c0802a6u   /* mflr rD: mfspr rD,8 */
#define PPC_MFCR      0x7c000026u   /* mfcr rD */
#define PPC_BCL_NEXT  0x429f0005u   /* bcl 20,31,.+4: lr := the next word */
#define PPC_LIS_R11   0x3d600000u   /* lis r11,hi: addis r11,0,hi */
#define PPC_ADDIS_R11_R30 0x3d7e0000u /* addis r11,r30,hi */
#define PPC_LWZ_R11_R30 0x817e0000u /* lwz r11,d(r30) */
#define PPC_LWZ_R11_R11 0x816b0000u /* lwz r11,d(r11) */
#define PPC_MTCTR_R11 0x7d6903a6u
#define PPC_BCTR      0x4e800420u
#define PPC_RD(i)     (((i) >> 21) & 31)
#define PPC_RA(i)     (((i) >> 16) & 31)
#define PPC_OP(i)     ((i) >> 26)

MT_HIDDEN void mt_mcount_internal(void);    /* hook-ppc.S */

/* The slot a call to x reads its target from, given what is known of
 * the caller's registers (val, where bit r of known): x itself, an entry
 * of ld's BSS PLT (code the dynamic linker rewrites), or the word one of
 * ld's secure-PLT call stubs loads, 0 if x is neither.  The stubs:
 *	lis r11,hi ; lwz r11,lo(r11) ; mtctr r11 ; bctr	(not PIC)
 *	lwz r11,d(r30) ; mtctr r11 ; bctr		(PIC: r30 the GOT)
 *	addis r11,r30,hi ; lwz r11,lo(r11) ; mtctr r11 ; bctr */
static uintptr_t plt_slot(const struct mt_object *o, uintptr_t x, const uintptr_t *val, unsigned known)
{
	if (mt_in_plt(o, x))
		return x;
	if (!mt_in_exec(o, x) || !mt_in_exec(o, x + 15))
		return 0;
	uint32_t w[4];
	for (int k = 0; k < 4; k++)
		w[k] = mt_code32(x + 4 * (uintptr_t)k);
	uintptr_t base;
	int at;                                 /* the lwz */
	if ((w[0] & 0xffff0000u) == PPC_LIS_R11) {
		base = (uintptr_t)(w[0] << 16);
		at = 1;
	} else if ((w[0] & 0xffff0000u) == PPC_LWZ_R11_R30 && (known & 1u << 30)) {
		base = val[30];
		at = 0;
	} else if ((w[0] & 0xffff0000u) == PPC_ADDIS_R11_R30 && (known & 1u << 30)) {
		base = val[30] + (uintptr_t)(w[0] << 16);
		at = 1;
	} else {
		return 0;
	}
	if (at == 1 && (w[1] & 0xffff0000u) != PPC_LWZ_R11_R11)
		return 0;
	if (w[at + 1] != PPC_MTCTR_R11 || w[at + 2] != PPC_BCTR)
		return 0;
	return base + (uintptr_t)mt_sext(w[at] & 0xffffu, 16);
}

/* The code of glibc's _mcount at t, from its first word to its call:
 * NULL if it saves r3-r10 at 12-40(r1) as they were and the address
 * after the site (lr on entry) at 44(r1), in a frame of its own, and
 * calls the library's __mcount_internal, else what it is instead.
 * Besides those stores, it may only set registers but r1 from its
 * frame, lr, CR and immediates (the PIC code's GOT pointer in r30,
 * followed here for the call stub that reads it). */
static const char *glibc_mcount(const struct mt_object *o, uintptr_t t)
{
	static const char other_regs[] = "a call to an _mcount that keeps the registers otherwise than glibc's";
	if (!mt_in_exec(o, t) || !mt_in_exec(o, t + 3))
		return "a call to something other than the hook";
	uint32_t i = mt_code32(t);
	if ((i & 0xffff8000u) != (PPC_STWU_R1 | 0x8000u))
		return "a call to something other than the hook";
	unsigned saved = 0, set = 0;           /* bit r: r as on entry, saved / set since */
	unsigned known = 0;                     /* bit r: r's value is val[r] */
	uintptr_t val[32] = { 0 }, lr = 0;
	bool lr_entry = true, lr_saved = false;
	int lr_in = -1;                         /* the register holding lr as on entry */
	for (uintptr_t a = t + 4; a < t + 4 * 48 && mt_in_exec(o, a + 3); a += 4) {
		i = mt_code32(a);
		unsigned rd = PPC_RD(i), ra = PPC_RA(i), d = i & 0xffff;
		if ((i & PPC_BL_MASK) == PPC_BL) {
			uintptr_t x = a + (uintptr_t)mt_sext(i & 0x03fffffcu, 26);
			if (saved != 0x7f8u || !lr_saved)
				return other_regs;
			if (x == (uintptr_t)mt_mcount_internal || mt_is_callee_slot(o, plt_slot(o, x, val, known)))
				return NULL;
			return "a call to an _mcount that does not call __mcount_internal";
		}
		if (PPC_OP(i) == 36 && ra == 1) {       /* stw rD,d(r1) */
			if (rd >= 3 && rd <= 10 && d == 12 + 4 * (rd - 3) && !(set & 1u << rd))
				saved |= 1u << rd;
			if (d == 44 && (int)rd == lr_in)
				lr_saved = true;
			continue;
		}
		if (i == PPC_BCL_NEXT) {
			lr_entry = false;
			lr = a + 4;
			continue;
		}
		bool is_known = false;
		uintptr_t v = 0;
		if ((i & 0xfc1fffffu) == PPC_MFLR) {
			if (lr_entry)
				lr_in = (int)rd;
			else
				is_known = true, v = lr;
		} else if (PPC_OP(i) == 14 || PPC_OP(i) == 15) {  /* addi, addis (li, lis: rA 0) */
			uintptr_t imm = (uintptr_t)mt_sext(d, 16) << (PPC_OP(i) == 15 ? 16 : 0);
			is_known = !ra || (known & 1u << ra);
			v = (ra ? val[ra] : 0) + imm;
		} else if (!(PPC_OP(i) == 32 && ra == 1) && (i & 0xfc1fffffu) != PPC_MFCR) {
			return other_regs;                  /* but lwz rD,d(r1) and mfcr */
		}
		if (rd == 1)                            /* the frame stays where it was made */
			return other_regs;
		set |= 1u << rd;
		known = is_known ? known | 1u << rd : known & ~(1u << rd);
		val[rd] = v;
		if (lr_in == (int)rd && !(lr_entry && (i & 0xfc1fffffu) == PPC_MFLR))
			lr_in = -1;
	}
	return other_regs;
}

static const char *ppc_decode(struct mt_site *s, const struct mt_object *o)
{
	if (s->addr & 3)
		return "not at an instruction boundary (not 4-byte aligned)";
	if (!mt_in_exec(o, s->addr) || !mt_in_exec(o, s->addr + 3))
		return "not in the object's code";
	uint32_t i = mt_code32(s->addr);
	if (i == PPC_NOP)
		return "a NOP already (another tool changed it)";
	if ((i & PPC_TW_MASK) == PPC_TW || (i & PPC_TWI_MASK) == PPC_TWI)
		return "a breakpoint (a debugger or another tool changed it)";
	if ((i & PPC_BL_MASK) != PPC_BL)
		return "not a call instruction";
	if (!mt_in_exec(o, s->addr - 4) || mt_code32(s->addr - 4) != PPC_STW_R0_4)
		return "a bl not after stw r0,4(r1)";
	s->len = 4;
	s->target = s->addr + (uintptr_t)mt_sext(i & 0x03fffffcu, 26);
	memcpy(s->orig, &i, 4);
	/* A -pg shared library calls the _mcount it links in (glibc's,
	 * from libc_nonshared.a) through an entry of its BSS PLT, which the
	 * dynamic linker binds to that one, or to one an object before it
	 * in the global scope exports: glibc's code as well. */
	uintptr_t t = s->target;
	if (mt_in_plt(o, t)) {
		if (!mt_is_hook_slot(o, t) || !o->own_hook)
			return "a call through a PLT entry that is not the hook's";
		t = o->own_hook;
	}
	return glibc_mcount(o, t);
}

static void ppc_bytes(const struct mt_site *s, enum mt_state st, unsigned char *out)
{
	static const uint32_t nop = PPC_NOP;
	memcpy(out, st == MT_CALL ? (const void *)s->orig : (const void *)&nop, 4);
}


const struct mt_arch mt_arch = {
	.name = "ppc",
	.trap_len = 0,
	.jump_slot = R_PPC_JMP_SLOT,
	.glob_dat = R_PPC_JMP_SLOT,       /* only a PLT entry is called */
	.hook_callee = "__mcount_internal",
	.decode = ppc_decode,
	.bytes = ppc_bytes,
	.sync_self = mt_ppc_sync_range,      /* cpu.h */
};
