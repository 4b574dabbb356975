/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arch-ppc64.c - the instruction of a ppc64 call site: ppc64le (the
 * ELFv2 ABI) and big-endian ppc64 (ELFv1), which differ in how a call
 * reaches another module (the call stub, the TOC save slot) and in what
 * a function's symbol is.  The instructions are the same; the words are
 * read in the process's own byte order, which is the code's.
 *
 * ELFv2.  GCC's -pg puts, after the prologue (which saved the link register,
 * the caller's return address, at 16 of the caller's stack frame, and
 * stored the back chain),
 *	bl	_mcount			// lr := the address after the site
 *	nop				// the linker's TOC restore slot
 * and the table records the bl (src/arch.c's ppc64le row:
 * R_PPC64_REL24).  The linker decides what the two words become:
 *   bl _mcount+8 ; nop              our _mcount in the same module
 *                                   (linked in, -static): to its local
 *                                   entry, past the TOC set-up (form 0)
 *   bl stub ; ld r2,24(r1)          another module's _mcount (the
 *                                   library preloaded, or libc's): a
 *                                   PLT call stub that saves the
 *                                   caller's TOC pointer at 24(r1) and
 *                                   jumps through the .plt slot the
 *                                   dynamic linker fills (form 1)
 * The site is the bl, 4 bytes; the word after it is never written but
 * must be one of those two.  The target is our _mcount (either entry),
 * a function named like a hook (either entry: a local entry is 8 bytes
 * in, after addis r2,r12 + addi r2,r2), or a call stub
 *	std r2,24(r1) ; [addis r12,r2,hi] ; ld r12,lo(r12|r2) ; mtctr r12 ; bctr
 * whose slot (the TOC pointer + hi:lo) is one the dynamic linker fills
 * with a hook (R_PPC64_JMP_SLOT, R_PPC64_GLOB_DAT).  The TOC pointer is
 * the one the site's function sets up at its global entry (addis r2,r12
 * + addi r2,r2: GCC sets it up in every function that calls, so in
 * every -pg one), found by its symbol or, in a stripped object, as the
 * nearest global entry before the site; a stub seen from code whose
 * TOC pointer is not found so is refused.
 *
 * Switched off, form 0 becomes `nop` (ori 0,0,0).  Form 1 cannot: the
 * stub's `std r2,24(r1)` would no longer run, and the `ld r2,24(r1)`
 * after the site would load whatever that slot of the frame holds into
 * the TOC pointer.  It becomes `b .+8` instead, which skips the restore
 * (the TOC pointer was never changed), as the kernel does for its
 * module calls.
 *
 * Switching live: the Power ISA (Book II, "Concurrent Modification and
 * Execution of Instructions") defines the "patch class" of instructions,
 * the I-form branch b[l][a] and the preferred no-op ori 0,0,0: where a
 * word-aligned location that another processor may be executing is
 * changed from one patch class instruction to another, by a single
 * (word) store, that processor executes either the old or the new
 * instruction, and the new one once its instruction storage is made
 * consistent (dcbst; sync; icbi; isync here, the kernel's own icbi for
 * a write through /proc/self/mem, and a context synchronisation of the
 * others).  bl, b .+8 and nop are all patch class, each site is one
 * aligned word, and patch.c writes each site alone (one pwrite of 4
 * bytes, which the ppc64le guest measures with t/src/trace/sys/tear.c), then
 * sync_self over it (dcbst, sync, icbi, isync: GCC's
 * __builtin___clear_cache is empty here), and one sync of every thread
 * for the batch (membarrier SYNC_CORE where the kernel has it, isync
 * here).  So no trap is ever
 * written (trap_len 0) and no page is fenced: every SIGTRAP and every
 * SIGSEGV is the program's.
 *
 * ELFv1 (big-endian ppc64, GCC 12, binutils 2.40).  The same prologue
 * and the same `bl _mcount; nop`, but a function's symbol is its
 * descriptor in .opd (code address, TOC pointer, environment: elf.c
 * reads the symbols as their code's addresses), there are no local
 * entry points (a function is entered with its TOC pointer in r2
 * already: its caller's, in one module, or loaded from its descriptor
 * by a call stub), and the TOC save slot is 40(r1).  The two words:
 *   bl ._mcount ; nop               our _mcount in the same module
 *                                   (linked in, -static): its code,
 *                                   which objdump names after the
 *                                   descriptor, with a dot (form 0)
 *   bl stub ; ld r2,40(r1)          another module's _mcount: a call
 *                                   stub that copies the .plt slot, a
 *                                   descriptor the dynamic linker fills
 *                                   (R_PPC64_JMP_SLOT), into ctr and r2
 *                                   (form 1)
 * The stub is
 *	std r2,40(r1) ; [addis r11,r2,hi] ; ld r12,lo(r2|r11) ; mtctr r12 ;
 *	[ld r11,lo+16(..)] ; ld r2,lo+8(..) ; [ld r11,lo+16(..)] ;
 *	bctr | cmpldi r2,0 ; bnectr+ ; b <lazy resolution>
 * (the environment pointer with --plt-static-chain; the last form where
 * the program may run threads while a slot is resolved: ld
 * --plt-thread-safe, on by default when it calls pthread_create).  Its
 * slot is the TOC pointer + hi:lo, the TOC pointer being that of the
 * site's function: the second word of the descriptor whose code starts
 * nearest before the site (elf.c keeps them all, symbols or not).
 * Switched off as on ELFv2: nop, or b .+8 past the TOC restore; the
 * same patch class words, one aligned store.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <string.h>

#include "cpu.h"
#include "rt.h"

#if !defined(__powerpc64__)
#error "arch-ppc64.c is ppc64's (ELFv2 or ELFv1)"
#endif

#define PPC_BL_MASK   0xfc000003u
#define PPC_BL        0x48000001u   /* bl: opcode 18, AA 0, LK 1 */
#define PPC_NOP       0x60000000u   /* ori 0,0,0: the preferred no-op */
#define PPC_B_8       0x48000008u   /* b .+8 */
#if MT_ELFV1
#define PPC_TOC_LD    0xe8410028u   /* ld r2,40(r1): the TOC restore */
#define PPC_TOC_STD   0xf8410028u   /* std r2,40(r1): the stub's TOC save */
#define TOC_LD_NAME   "ld r2,40(r1)"
#else
#define PPC_TOC_LD    0xe8410018u   /* ld r2,24(r1): the TOC restore */
#define PPC_TOC_STD   0xf8410018u   /* std r2,24(r1): the stub's TOC save */
#define TOC_LD_NAME   "ld r2,24(r1)"
#endif
#define PPC_TRAP      0x7fe00008u   /* tw 31,0,0 (trap) */
#define PPC_TW_MASK   0xfc0007feu   /* tw TO,rA,rB */
#define PPC_TW        0x7c000008u
#define PPC_TWI_MASK  0xfc000000u   /* twi, tdi */
#define PPC_TWI       0x0c000000u
#define PPC_TDI       0x08000000u
#define ADDIS_R2_R12  0x3c4c0000u   /* addis r2,r12,hi (the high 16 bits) */
#define ADDI_R2_R2    0x38420000u   /* addi r2,r2,lo */
#define ADDIS_R12_R2  0x3d820000u   /* addis r12,r2,hi */
#define LD_R12_R12    0xe98c0000u   /* ld r12,lo(r12) (DS form: lo & 0xfffc) */
#define LD_R12_R2     0xe9820000u   /* ld r12,lo(r2) */
#define MTCTR_R12     0x7d8903a6u
#define BCTR          0x4e800420u
#define ADDIS_R11_R2  0x3d620000u   /* addis r11,r2,hi */
#define LD_R12_R11    0xe98b0000u   /* ld r12,lo(r11) */
#define LD_R2_R11     0xe84b0000u   /* ld r2,lo(r11) */
#define LD_R2_R2      0xe8420000u   /* ld r2,lo(r2) */
#define LD_R11_R11    0xe96b0000u   /* ld r11,lo(r11) */
#define LD_R11_R2     0xe9620000u   /* ld r11,lo(r2) */
#define CMPLDI_R2_0   0x28220000u   /* cmpldi r2,0 */
#define BNECTR_PLUS   0x4ce20420u   /* bnectr+ */
#define PPC_B_MASK    0xfc000003u
#define PPC_B         0x48000000u   /* b: opcode 18, AA 0, LK 0 */
#define FORM_LOCAL 0
#define FORM_TOC   1

#if !MT_ELFV1
/* The TOC pointer a function at f sets up at its global entry (addis
 * r2,r12,hi; addi r2,r2,lo, with r12 = f), or 0. */
static uintptr_t toc_of(const struct mt_object *o, uintptr_t f)
{
	if (!f || !mt_in_exec(o, f + 7))
		return 0;
	uint32_t i0 = mt_code32(f), i1 = mt_code32(f + 4);
	if ((i0 & 0xffff0000u) != ADDIS_R2_R12 || (i1 & 0xffff0000u) != ADDI_R2_R2)
		return 0;
	return f + (uintptr_t)(mt_sext(i0 & 0xffff, 16) * 65536) + (uintptr_t)mt_sext(i1 & 0xffff, 16);
}

/* The TOC pointer at a site: the one its function sets up, or where the
 * object has no symbol for the function (stripped), the one the nearest
 * global entry before it sets up (every function of a module has the
 * same: the linker gives a program one TOC unless it is huge, and a
 * wrong one finds no hook's slot, so the site is refused).  GCC's -pg
 * call comes after the prologue's register saves: 512 bytes is more
 * than the longest (18 general and 18 floating-point saves). */
static uintptr_t site_toc(const struct mt_object *o, uintptr_t site)
{
	uintptr_t toc = toc_of(o, mt_prologue_of(o, site, 4));
	for (uintptr_t f = site - 8; !toc && f + 512 > site && mt_in_exec(o, f); f -= 4)
		toc = toc_of(o, f);
	return toc;
}

/* A function named like a hook, entered at t: its global entry, or its
 * local one after the TOC set-up. */
static bool hook_symbol(const struct mt_object *o, uintptr_t t)
{
	const struct mt_sym *sym = mt_sym_at(o, t);
	if (!sym || !mt_is_hook_name(sym->name))
		return false;
	return sym->addr == t || (sym->addr + 8 == t && toc_of(o, sym->addr));
}

/* A PLT call stub at t, reached from a function whose TOC pointer is
 * toc: its slot, or 0 if t is no such stub. */
static uintptr_t stub_slot(const struct mt_object *o, uintptr_t t, uintptr_t toc)
{
	if ((t & 3) || !toc || !mt_in_exec(o, t) || !mt_in_exec(o, t + 19))
		return 0;
	uint32_t i[5];
	for (int k = 0; k < 5; k++)
		i[k] = mt_code32(t + 4 * (uintptr_t)k);
	if (i[0] != PPC_TOC_STD)
		return 0;
	int64_t off;
	int k;
	if ((i[1] & 0xffff0000u) == ADDIS_R12_R2 && (i[2] & 0xffff0003u) == LD_R12_R12) {
		off = mt_sext(i[1] & 0xffff, 16) * 65536 + mt_sext(i[2] & 0xfffc, 16);
		k = 3;
	} else if ((i[1] & 0xffff0003u) == LD_R12_R2) {
		off = mt_sext(i[1] & 0xfffc, 16);
		k = 2;
	} else {
		return 0;
	}
	if (i[k] != MTCTR_R12 || i[k + 1] != BCTR)
		return 0;
	return toc + (uintptr_t)off;
}

static bool is_ours(uintptr_t t)
{
	return t == mt_hooks[0] || t == mt_hooks[0] + 8;
}
#else
/* The TOC pointer at a site: its function's, from its descriptor. */
static uintptr_t site_toc(const struct mt_object *o, uintptr_t site)
{
	return mt_toc_at(o, site);
}

/* A function named like a hook whose code is at t (elf.c: a symbol is
 * its code's address). */
static bool hook_symbol(const struct mt_object *o, uintptr_t t)
{
	return mt_is_hook_sym(o, t);
}

/* A PLT call stub at t (the forms above), reached from a function whose
 * TOC pointer is toc: its .plt slot, or 0 if t is no such stub. */
static uintptr_t stub_slot(const struct mt_object *o, uintptr_t t, uintptr_t toc)
{
	uint32_t i[10];
	unsigned n = 0;
	if ((t & 3) || !toc)
		return 0;
	while (n < 10 && mt_in_exec(o, t + 4 * n + 3)) {
		i[n] = mt_code32(t + 4 * n);
		n++;
	}
	if (n < 5 || i[0] != PPC_TOC_STD)
		return 0;
	unsigned k = 1;
	int64_t hi = 0;
	bool r11 = false;
	if ((i[1] & 0xffff0000u) == ADDIS_R11_R2) {
		hi = mt_sext(i[1] & 0xffff, 16) * 65536;
		r11 = true;
		k = 2;
	}
	if ((i[k] & 0xffff0003u) != (r11 ? LD_R12_R11 : LD_R12_R2))
		return 0;
	int64_t lo = mt_sext(i[k] & 0xfffc, 16);
	if (lo + 8 > INT16_MAX)
		return 0;
	uint32_t ld_r2 = (r11 ? LD_R2_R11 : LD_R2_R2) | (uint32_t)((lo + 8) & 0xfffc);
	uint32_t ld_r11 = (r11 ? LD_R11_R11 : LD_R11_R2) | (uint32_t)((lo + 16) & 0xfffc);
	if (++k >= n || i[k] != MTCTR_R12)
		return 0;
	bool env = ++k < n && i[k] == ld_r11;
	k += env;
	if (k >= n || i[k] != ld_r2)
		return 0;
	if (++k < n && !env && i[k] == ld_r11)
		k++;
	if (k < n && i[k] == BCTR)
		return toc + (uintptr_t)(hi + lo);
	if (k + 2 < n && i[k] == CMPLDI_R2_0 && i[k + 1] == BNECTR_PLUS && (i[k + 2] & PPC_B_MASK) == PPC_B)
		return toc + (uintptr_t)(hi + lo);
	return 0;
}

/* Our _mcount's code (mt_hooks holds it, not its descriptor). */
static bool is_ours(uintptr_t t)
{
	return t == mt_hooks[0];
}
#endif

static bool is_trap(uint32_t i)
{
	return (i & PPC_TW_MASK) == PPC_TW || (i & PPC_TWI_MASK) == PPC_TWI || (i & PPC_TWI_MASK) == PPC_TDI;
}

static const char *ppc_decode(struct mt_site *s, const struct mt_object *o)
{
	if (s->addr & 3)
		return "not at an instruction boundary (not 4-byte aligned)";
	if (!mt_in_exec(o, s->addr) || !mt_in_exec(o, s->addr + 7))
		return "not in the object's code";
	uint32_t i = mt_code32(s->addr), next = mt_code32(s->addr + 4);
	if (i == PPC_NOP || i == PPC_B_8)
		return "a NOP already (another tool changed it)";
	if (is_trap(i))
		return "a breakpoint (a debugger or another tool changed it)";
	if ((i & PPC_BL_MASK) != PPC_BL)
		return "not a call instruction";
	if (next == PPC_NOP)
		s->form = FORM_LOCAL;
	else if (next == PPC_TOC_LD)
		s->form = FORM_TOC;
	else
		return "a bl followed by neither nop nor " TOC_LD_NAME;
	s->len = 4;
	s->target = s->addr + (uintptr_t)mt_sext(i & 0x03fffffcu, 26);
	memcpy(s->orig, &i, 4);
	uintptr_t t = s->target;
	bool ours = is_ours(t);
	if (s->form == FORM_LOCAL) {
		if (!ours && !hook_symbol(o, t))
			return "a call to something other than the hook";
		return NULL;
	}
	/* A call through a stub: the ld r2 after the site restores what
	 * it saved. */
	uintptr_t toc = site_toc(o, s->addr);
	if (!toc)
		return "a call through a stub from a function whose TOC pointer is not known";
	uintptr_t slot = stub_slot(o, t, toc);
	if (!slot || !mt_is_hook_slot(o, slot))
		return "a call to something other than the hook";
	return NULL;
}

static void ppc_bytes(const struct mt_site *s, enum mt_state st, unsigned char *out)
{
	static const uint32_t nop = PPC_NOP, skip = PPC_B_8;
	if (st == MT_CALL)
		memcpy(out, s->orig, 4);
	else
		memcpy(out, s->form == FORM_TOC ? &skip : &nop, 4);
}


/* DWARF's ppc64 registers (r0-r31: 0-31, f0-f31: 32-63) in the block
 * _mcount passes mt_entry (hook-ppc64.S, either ABI): r3-r10, r1, r14-r31 and
 * f14-f31; -1 for the others (the hook's call has changed them). */
static int ppc_arg_reg(unsigned r)
{
	if (r >= 3 && r <= 10)
		return (int)r - 3;
	if (r == 1)
		return 8;
	if (r >= 14 && r <= 31)
		return (int)r - 5;
	if (r >= 46 && r <= 63)
		return (int)r - 19;
	return -1;
}

/* What the instruction at a does to the registers (DWARF's numbers:
 * r0-r31, then f0-f31 at 32): a copy (mr), the registers it writes (the
 * fields an instruction of its kind may write: more than it does is
 * only caution), or stop (control flow; a form not followed). */
static void ppc_insn(uintptr_t a, struct mt_insn *o)
{
	uint32_t i = mt_code32(a);
	unsigned op = i >> 26, rt = (i >> 21) & 31, ra = (i >> 16) & 31, rb = (i >> 11) & 31;
	o->len = 4;
	switch (op) {
	case 14: case 15:                                               /* addi, addis */
		mt_insn_w(o, rt);
		break;
	case 20: case 21: case 23: case 24: case 25: case 26: case 27: case 28: case 29: case 30:
		mt_insn_w(o, ra);                                       /* rotates, logical immediates */
		break;
	case 31:
		if ((i & 0x7fe) == 0x378 && rt == rb) {                 /* or ra, rs, rs: mr */
			o->move = true;
			o->src = (uint8_t)rt;
			o->dst[0] = (uint8_t)ra;
		} else {
			mt_insn_w(o, rt);                               /* arithmetic, mfspr, loads */
			mt_insn_w(o, ra);                               /* logical, update forms */
		}
		break;
	case 32: case 33: case 34: case 35: case 40: case 41: case 42: case 43: case 58:
		mt_insn_w(o, rt);                                       /* loads, their update forms */
		mt_insn_w(o, ra);
		break;
	case 48: case 49: case 50: case 51:
		mt_insn_w(o, 32 + rt);                                  /* floating-point loads */
		mt_insn_w(o, ra);
		break;
	case 36: case 37: case 38: case 39: case 44: case 45: case 52: case 53: case 54: case 55: case 62:
		mt_insn_w(o, ra);                                       /* stores, their update forms */
		break;
	default:
		o->stop = true;                                         /* branches, the rest */
		break;
	}
}

const struct mt_arch mt_arch = {
#if MT_ELFV1
	.name = "ppc64",
#else
	.name = "ppc64le",
#endif
	.arg_reg = ppc_arg_reg,
	.dwarf_sp = 1,
	.dwarf_fp = 31,
	.insn = ppc_insn,
	.trap_len = 0,
	.jump_slot = R_PPC64_JMP_SLOT,
#if MT_ELFV1
	/* a GLOB_DAT slot holds a descriptor's address: no stub calls it */
	.glob_dat = R_PPC64_JMP_SLOT,
#else
	.glob_dat = R_PPC64_GLOB_DAT,
#endif
	.decode = ppc_decode,
	.bytes = ppc_bytes,
	.sync_self = mt_ppc_sync_range,      /* cpu.h */
};
