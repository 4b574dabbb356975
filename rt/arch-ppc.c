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
 * word: function_graph's slot, rt.h) and to the site + 4 by ctr
 * (hook-ppc.S).  The table records the bl (src/arch.c's ppc32 row).
 * Its target is our _mcount (linked in), a function named like a hook
 * (glibc's, which every -pg program links from libc_nonshared.a: a
 * program linked so cannot be traced, as its hook is not ours), or an
 * entry of the old BSS PLT whose R_PPC_JMP_SLOT is against a hook: ld
 * makes one ("bss-plt forced by profiling") for a program linked with a
 * shared _mcount (-lmcount-trace), and the dynamic linker rewrites it
 * into a branch.  The word before the bl must be the stw of the parent:
 * the hook reads the parent back from there.
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

extern void _mcount(void);

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
	uintptr_t t = s->target;
	if (t == (uintptr_t)_mcount)
		return NULL;
	const struct mt_sym *sym = mt_sym_at(o, t);
	if (sym && sym->addr == t && mt_is_hook_name(sym->name))
		return NULL;
	if (mt_in_plt(o, t) && mt_is_hook_slot(o, t))
		return NULL;
	return "a call to something other than the hook";
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
	.decode = ppc_decode,
	.bytes = ppc_bytes,
	.sync_self = mt_ppc_sync_range,      /* cpu.h */
};
