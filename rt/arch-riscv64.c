/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arch-riscv64.c - the instructions of a riscv64 call site.
 *
 * GCC's -pg calls _mcount as an ordinary function with one argument,
 * somewhere in the function's first block (after the prologue has saved
 * ra, possibly after other work):
 *	mv	a0, ra			// the caller's return address (the parent)
 *	call	_mcount			// ra := the address after the site
 * src/arch.c's riscv64 row: `call` is auipc ra + jalr ra (R_RISCV_CALL_PLT
 * with R_RISCV_RELAX), which the table records by its auipc.  A link
 * without relaxation (mcount-cc links per-object tables so) keeps the
 * pair; a relaxing link (link-time mode's tables follow it) makes it one
 * `jal ra`.  So a site is
 *   auipc ra, hi20 ; jalr ra, lo12(ra)     8 bytes   (form 0)
 *   jal ra, off                            4 bytes   (form 1)
 * whose target is our _mcount (linked in), a function named like a hook,
 * or a PLT entry (auipc t3; ld t3; jalr t1, t3; nop) whose GOT slot the
 * dynamic linker fills with a hook.  Switched off, the instruction that
 * calls becomes `nop` (addi x0, x0, 0); the pair keeps its auipc, which
 * only writes ra, a register the call clobbers anyway.
 *
 * Neither state can replace the other while another hart may run it:
 * a write of 4 bytes through /proc/self/mem is not one access here
 * (t/src/trace/sys/tear.c, in the riscv64 guest: another thread read such a word
 * half old, half new, 44,781 times in 549 million reads with the word
 * 2-byte aligned, as the C extension leaves instructions, and 368 times
 * even 4-byte aligned; on aarch64, 4-byte aligned, never).  RISC-V
 * gives no rule like Arm's for a concurrently modified instruction
 * either, and no breakpoint fits every site: the trap would have to be
 * written in two bytes over a 4-byte instruction whose other half then
 * decodes as anything.  So sites are written behind fenced pages
 * (patch.c): the pages are made non-executable for the writes, a thread
 * that reaches one waits in the SIGSEGV handler until they are
 * executable again, and the riscv_flush_icache system call makes every
 * hart fetch the new instructions.  No trap instruction is
 * ever written (trap_len 0): every SIGTRAP is the program's.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <string.h>

#include "cpu.h"
#include "rt.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "riscv64: the instruction words below are read as little-endian"
#endif

#define RV_NOP        0x00000013u   /* addi x0, x0, 0 */
#define RV_EBREAK     0x00100073u
#define RV_C_EBREAK   0x9002u
#define AUIPC_RA      0x00000097u   /* auipc ra, 0: the low 12 bits */
#define JALR_RA_RA    0x000080e7u   /* jalr ra, 0(ra): the low 20 bits */
#define JAL_RA        0x000000efu   /* jal ra: the low 12 bits */
#define FORM_PAIR 0
#define FORM_JAL  1
#define FORM_PFE  2

#ifndef __NR_riscv_flush_icache
#define __NR_riscv_flush_icache 259
#endif

static uintptr_t jal_target(uintptr_t at, uint32_t i)
{
	uint64_t imm = ((i >> 31) & 1) << 20 | ((i >> 12) & 0xff) << 12 | ((i >> 20) & 1) << 11 |
		       ((i >> 21) & 0x3ff) << 1;
	return at + (uintptr_t)mt_sext(imm, 21);
}

/* auipc rd, hi20 at `at` followed by an I-type lo12 in `lo`: the sum. */
static uintptr_t pcrel(uintptr_t at, uint32_t auipc, uint32_t lo)
{
	return at + (uintptr_t)mt_sext(auipc & 0xfffff000u, 32) + (uintptr_t)mt_sext(lo >> 20, 12);
}


static bool hook_target(const struct mt_object *o, uintptr_t t)
{
	if (t == mt_hooks[0])
		return true;
	if (mt_is_hook_sym(o, t))
		return true;
	if ((t & 1) || !mt_in_plt(o, t) || !mt_in_exec(o, t + 11))
		return false;
	/* auipc t3, hi; ld t3, lo(t3); jalr t1, t3 */
	uint32_t i0 = mt_code32(t), i1 = mt_code32(t + 4), i2 = mt_code32(t + 8);
	if ((i0 & 0xfff) != 0xe17 || (i1 & 0xfffff) != 0xe3e03 || i2 != 0x000e0367u)
		return false;
	return mt_is_hook_slot(o, pcrel(t, i0, i1));
}

/* Does the function of a site make s0 its frame pointer, the CFA, before
 * the site?  function_graph takes s0 - 8 as the slot of its return
 * address only then (rt.h, MT_REG_FP), so the other sites are nohook.
 * The prologue must lower sp by N (addi sp, sp, -N, c.addi, c.addi16sp) and
 * then set s0 = sp + N (addi or c.addi4spn), as GCC does with
 * -fno-omit-frame-pointer or at -O0; a frame too large for that, or any
 * other form, counts as no frame pointer. */
static bool keeps_fp(const struct mt_site *s, const struct mt_object *o)
{
	uintptr_t start = mt_prologue_of(o, s->addr, 2);
	if (!start)
		return false;
	int64_t down = 0;
	for (uintptr_t a = start; a < s->addr;) {
		uint16_t h = mt_code16(a);
		if ((h & 3) == 3) {
			uint32_t i = mt_code32(a);
			if ((i & 0xfffff) == 0x10113)                    /* addi sp, sp, imm */
				down -= mt_sext(i >> 20, 12);
			else if ((i & 0xfffff) == 0x10413)               /* addi s0, sp, imm */
				return down > 0 && mt_sext(i >> 20, 12) == down;
			a += 4;
			continue;
		}
		if ((h & 0xef83) == 0x0101) {                            /* c.addi sp, imm */
			down -= mt_sext((uint64_t)(((h >> 12) & 1) << 5 | ((h >> 2) & 0x1f)), 6);
		} else if ((h & 0xef83) == 0x6101) {                     /* c.addi16sp sp, imm */
			int64_t imm = (int64_t)(((h >> 12) & 1) << 9 | ((h >> 6) & 1) << 4 | ((h >> 5) & 1) << 6 |
						((h >> 3) & 3) << 7 | ((h >> 2) & 1) << 5);
			down -= mt_sext((uint64_t)imm, 10);
		} else if ((h & 0xe01f) == 0 && h) {                     /* c.addi4spn s0, sp, imm */
			int64_t imm = (int64_t)(((h >> 11) & 3) << 4 | ((h >> 7) & 0xf) << 6 | ((h >> 6) & 1) << 2 |
						((h >> 5) & 1) << 3);
			return down > 0 && imm == down;
		}
		a += 2;
	}
	return false;
}

/* Does an instruction start at a?  An instruction's length is in its
 * first halfword: low bits other than 11, 2 bytes; 11, 4 bytes (the
 * longer encodings are reserved, and no compiler makes them).  So the
 * halfword before a either starts a 2-byte instruction or is the second
 * half of a 4-byte one: either way an instruction starts at a, if that
 * halfword's low bits are not 11.  If they are, go back over every
 * halfword whose low bits are 11 to one whose are not (an instruction
 * starts after it) or to the function's start: from there each
 * instruction is 4 bytes, and a must be a multiple of 4 bytes on.
 * Unlike a decoding forward from the function's start, this needs no
 * symbol (GCC's riscv64 C code has no .eh_frame: a stripped program's
 * functions have no known start).  The reading back stays within
 * MT_FUNC_REACH bytes and the site's code. */
static const char *rv_placed(uintptr_t a, const struct mt_object *o)
{
	uintptr_t start = mt_func_start(o, a);
	uintptr_t p = a;
	for (;;) {
		if (p == start)
			break;
		if (a - p >= MT_FUNC_REACH || !mt_in_exec(o, p - 2) || !mt_in_exec(o, p - 1))
			return "after too long a run of halfwords that each could start a 4-byte instruction: "
			       "where its instructions start cannot be told";
		if ((mt_code16(p - 2) & 3) != 3)
			break;
		p -= 2;
	}
	return (a - p) % 4 ? "not at the start of an instruction (decoded back from it)" : NULL;
}

/* -fpatchable-function-entry=4 with compressed instructions (four
 * c.nop, 8 bytes; or 2 without them: two nop) at the function's start,
 * as Linux's later riscv ftrace uses t0: `auipc t0, hi; nop` written
 * once over them before any other change (mt_arch.prep, quiet: several
 * instructions made two, only while no other thread can run them), and
 * the site is the second word, `nop` <-> `jalr t0, lo(t0)`, to
 * mt_pfe_hook (hook-riscv64.S) or to a trampoline within auipc's 2 GB
 * (`auipc t1, 0; ld t1, 16(t1); jr t1` and the hook's address: t1 is
 * free at a function's entry, t0 holds the way back).  The hook runs
 * before the prologue, ra the parent, and returns through t0.  Its
 * frames are never hijacked (nohook). */
#define RV_C_NOP 0x0001u
MT_HIDDEN void mt_pfe_hook(void);

static uint32_t auipc_t0(uintptr_t at, uintptr_t to)
{
	int64_t off = (int64_t)(to - at);
	int64_t hi = (off + 0x800) >> 12;
	return ((uint32_t)hi << 12) | (5u << 7) | 0x17u;
}

static const char *rv_patchable(struct mt_site *s, const struct mt_object *o)
{
	(void)o;
	uintptr_t hook = (uintptr_t)mt_pfe_hook;
	int64_t d = (int64_t)(hook - s->addr);
	if (d < -(INT64_C(1) << 31) + 4096 || d >= (INT64_C(1) << 31) - 4096) {
		uint32_t code[6] = { 0x00000317u, 0x01033303u, 0x00030067u, RV_NOP, (uint32_t)hook,
				     (uint32_t)((uint64_t)hook >> 32) };
		hook = mt_tramp_near(s->addr, (UINT32_C(1) << 31) - 8192, code, sizeof code);
		if (!hook)
			return "a -fpatchable-function-entry NOP with no room within 2 GB for a trampoline to the hook";
		d = (int64_t)(hook - s->addr);
	}
	int64_t hi = (d + 0x800) >> 12, lo = d - hi * 4096;
	uint32_t jalr = ((uint32_t)(lo & 0xfff) << 20) | (5u << 15) | (5u << 7) | 0x67u;
	s->addr += 4;
	s->len = 4;
	s->form = FORM_PFE;
	s->target = hook;
	memcpy(s->orig, &jalr, 4);
	s->raw = true;
	s->nohook = true;
	atomic_store_explicit(&s->state, MT_NOP, memory_order_relaxed);
	return NULL;
}

static unsigned rv_prep(const struct mt_site *s, struct mt_prep *out)
{
	if (s->form != FORM_PFE)
		return 0;
	uint32_t w[2] = { auipc_t0(s->addr - 4, s->target), RV_NOP };
	out[0] = (struct mt_prep){ .at = s->addr - 4, .n = 8, .quiet = true };
	memcpy(out[0].b, w, 8);
	return 1;
}

static const char *rv_decode(struct mt_site *s, const struct mt_object *o)
{
	if (s->addr & 1)
		return "not at an instruction boundary (not 2-byte aligned)";
	if (!mt_in_exec(o, s->addr) || !mt_in_exec(o, s->addr + 3))
		return "not in the object's code";
	const char *why = rv_placed(s->addr, o);
	if (why)
		return why;
	uint32_t i = mt_code32(s->addr);
	if (mt_in_exec(o, s->addr + 7) && mt_func_start(o, s->addr) == s->addr &&
	    ((i == (RV_C_NOP | RV_C_NOP << 16) && mt_code32(s->addr + 4) == (RV_C_NOP | RV_C_NOP << 16)) ||
	     (i == RV_NOP && mt_code32(s->addr + 4) == RV_NOP)))
		return rv_patchable(s, o);
	if ((i & 0xfff) == AUIPC_RA) {
		if (!mt_in_exec(o, s->addr + 7))
			return "not in the object's code";
		uint32_t j = mt_code32(s->addr + 4);
		if (j == RV_NOP)
			return "a NOP already (another tool changed it)";
		if ((j & 0xfffff) != JALR_RA_RA)
			return "an auipc ra not followed by jalr ra";
		s->len = 8;
		s->form = FORM_PAIR;
		s->target = pcrel(s->addr, i, j);
		memcpy(s->orig, &i, 4);
		memcpy(s->orig + 4, &j, 4);
	} else if ((i & 0xfff) == JAL_RA) {
		s->len = 4;
		s->form = FORM_JAL;
		s->target = jal_target(s->addr, i);
		memcpy(s->orig, &i, 4);
	} else if (i == RV_NOP) {
		return "a NOP already (another tool changed it)";
	} else if (i == RV_EBREAK || (i & 0xffff) == RV_C_EBREAK) {
		return "a breakpoint (a debugger or another tool changed it)";
	} else {
		return "not a call instruction";
	}
	if (!hook_target(o, s->target))
		return "a call to something other than the hook";
	s->nohook = !keeps_fp(s, o);
	return NULL;
}

static void rv_bytes(const struct mt_site *s, enum mt_state st, unsigned char *out)
{
	static const uint32_t nop = RV_NOP;
	memcpy(out, s->orig, s->len);
	if (st == MT_NOP)
		memcpy(out + s->len - 4, &nop, 4);
}

/* Every hart of the process fetches what memory now holds: the kernel
 * runs fence.i on those running it and on the others before they next
 * run it (flags 0: not this thread only). */
static MT_FENCE_TEXT void rv_sync_self(uintptr_t lo, uintptr_t hi)
{
	(void)lo;
	(void)hi;
	mt_raw6(__NR_riscv_flush_icache, 0, 0, 0, 0, 0, 0);
}

/* DWARF's riscv64 registers (x0-x31: 0-31, f0-f31: 32-63) in the block
 * _mcount passes mt_entry (hook-riscv64.S): a0-a7, sp, s0-s11 and
 * fs0-fs11; -1 for the others (the hook's call has changed them). */
static int rv_arg_reg(unsigned r)
{
	if (r >= 10 && r <= 17)
		return (int)r - 10;           /* a0-a7 */
	if (r == 2)
		return 9;                     /* sp */
	if (r == 8 || r == 9)
		return (int)r + 2;            /* s0, s1 */
	if (r >= 18 && r <= 27)
		return (int)r - 6;            /* s2-s11 */
	if (r == 40 || r == 41)
		return (int)r - 18;           /* fs0, fs1 */
	if (r >= 50 && r <= 59)
		return (int)r - 26;           /* fs2-fs11 */
	return -1;
}

/* What the instruction at a does to the registers (DWARF's numbers:
 * x0-x31, then f0-f31 at 32): a copy (mv, c.mv), the registers it
 * writes, or stop (control flow; a form not known). */
static void rv_insn(uintptr_t a, struct mt_insn *o)
{
	uint16_t h = mt_code16(a);
	if ((h & 3) != 3) {
		unsigned rd = (h >> 7) & 31, rs2 = (h >> 2) & 31, rdp = 8 + ((h >> 2) & 7), rs1p = 8 + ((h >> 7) & 7);
		o->len = 2;
		switch ((h & 3) << 3 | h >> 13) {
		case 000: case 002: case 003: mt_insn_w(o, rdp); break;         /* c.addi4spn, c.lw, c.ld */
		case 001: mt_insn_w(o, 32 + rdp); break;                        /* c.fld */
		case 005: case 006: case 007: break;                            /* c.fsd, c.sw, c.sd */
		case 010: case 011: case 012: case 013: mt_insn_w(o, rd); break; /* c.addi(w), c.li, c.lui */
		case 014: mt_insn_w(o, rs1p); break;                            /* c.srli ... c.and */
		case 020: case 022: case 023: mt_insn_w(o, rd); break;          /* c.slli, c.lwsp, c.ldsp */
		case 021: mt_insn_w(o, 32 + rd); break;                         /* c.fldsp */
		case 024:
			if (rs2 && !(h & 0x1000)) {                             /* c.mv */
				o->move = true;
				o->src = (uint8_t)rs2;
				o->dst[0] = (uint8_t)rd;
			} else if (rs2) {
				mt_insn_w(o, rd);                               /* c.add */
			} else {
				o->stop = true;                                 /* c.jr, c.jalr, c.ebreak */
			}
			break;
		case 025: case 026: case 027: break;                            /* c.fsdsp, c.swsp, c.sdsp */
		default: o->stop = true; break;                                 /* c.j, c.beqz, c.bnez */
		}
		return;
	}
	uint32_t i = mt_code32(a);
	unsigned rd = (i >> 7) & 31;
	o->len = 4;
	switch (i & 0x7f) {
	case 0x13:                                                      /* op-imm */
		if (!(i & 0xfff07000)) {                                /* addi rd, rs1, 0: mv */
			o->move = true;
			o->src = (uint8_t)((i >> 15) & 31);
			o->dst[0] = (uint8_t)rd;
		} else {
			mt_insn_w(o, rd);
		}
		break;
	case 0x03: case 0x17: case 0x1b: case 0x2f: case 0x33: case 0x37: case 0x3b:
		mt_insn_w(o, rd);                                       /* loads, auipc, ops, amo, lui */
		break;
	case 0x07: case 0x43: case 0x47: case 0x4b: case 0x4f:
		mt_insn_w(o, 32 + rd);                                  /* fp loads, fused */
		break;
	case 0x53:
		mt_insn_w(o, rd);                                       /* fp ops: either file */
		mt_insn_w(o, 32 + rd);
		break;
	case 0x23: case 0x27: case 0x0f:
		break;                                                  /* stores, fence */
	default:
		o->stop = true;                                         /* branches, jumps, system */
		break;
	}
}

const struct mt_arch mt_arch = {
	.name = "riscv64",
	.arg_reg = rv_arg_reg,
	.dwarf_sp = 2,
	.dwarf_fp = 8,
	.insn = rv_insn,
	.trap_len = 0,
	.fence_pages = true,
	.jump_slot = R_RISCV_JUMP_SLOT,
	.glob_dat = R_RISCV_64,
	.decode = rv_decode,
	.bytes = rv_bytes,
	.prep = rv_prep,
	.sync_self = rv_sync_self,
	.sync_whole = true,
};
