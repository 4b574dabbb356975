/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arch-aarch64.c - the instruction of an aarch64 call site.
 *
 * GCC's -pg puts, after the prologue, `mov x0, x30` (the caller's return
 * address; with pointer authentication a `hint 7` (xpaclri) strips it
 * first) and then the site the table records, one instruction:
 *   bl _mcount                0x94000000 | imm26          4 bytes
 * (src/arch.c's aarch64 row: R_AARCH64_CALL26, 0x94 under mask 0xfc in
 * the top byte).  Its target is our _mcount (linked in), a function named
 * like a hook, a PLT entry that jumps through a GOT slot the dynamic
 * linker fills with a hook (a PIE or a library with the library
 * preloaded), or a linker veneer (bl out of range) whose target is one of
 * those.  Switched off it is `nop` (0xd503201f), as the kernel does it.
 *
 * Switching live needs no breakpoint protocol: the Arm ARM (B2.2.5,
 * concurrent modification and execution of instructions) lets one
 * thread change an instruction that others are executing, with no
 * synchronisation beforehand, when the instruction before and after the
 * change are each one of B, BL, BRK, HVC, ISB, NOP, SMC or SVC: another
 * CPU then executes either the old or the new one.  The store must be a
 * single-copy-atomic one, an aligned 32-bit word (patch.c writes each
 * site alone, 4 bytes at an aligned address, which the kernel's copy
 * does as word stores), and it is made visible to instruction fetch by
 * cache maintenance (the kernel cleans and invalidates for a write
 * through /proc/self/mem to executable pages; patch.c also does it at the
 * user address) and a context synchronisation of every thread: isb
 * here, membarrier SYNC_CORE for the others.  So trap_len is 0, and no
 * SIGTRAP is ever ours.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <string.h>
#include <sys/auxv.h>

#include "rt.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "aarch64_be: the instruction words below are read as little-endian"
#endif

#define BL_MASK 0xfc000000u
#define BL_OP   0x94000000u
#define A64_NOP 0xd503201fu
#define BRK_MASK 0xffe0001fu
#define BRK_OP  0xd4200000u
#define BTI_C   0xd503245fu
#define BTI_JC  0xd50324dfu

static uintptr_t bl_target(uintptr_t at, uint32_t i)
{
	int64_t off = (int64_t)((uint64_t)(i & 0x03ffffffu) << 38) >> 36;   /* imm26 * 4, signed */
	return at + (uintptr_t)off;
}

/* adrp xd: the 4 KiB page it computes, or 0 if i is not adrp xd. */
static uintptr_t adrp_page(uintptr_t at, uint32_t i, unsigned xd)
{
	if ((i & 0x9f00001fu) != (0x90000000u | xd))
		return 0;
	uint64_t imm = ((i >> 29) & 3) | (uint64_t)((i >> 5) & 0x7ffff) << 2;
	int64_t off = (int64_t)(imm << 43) >> 31;                             /* imm21 << 12, signed */
	return (at & ~(uintptr_t)0xfff) + (uintptr_t)off;
}


static bool hook_target(const struct mt_object *o, uintptr_t t, int depth)
{
	if (t == mt_hooks[0])
		return true;
	if (mt_is_hook_sym(o, t))
		return true;
	if ((t & 3) || !mt_in_exec(o, t) || !mt_in_exec(o, t + 15))
		return false;
	uintptr_t p = t;
	if (mt_code32(p) == BTI_C || mt_code32(p) == BTI_JC)
		p += 4;
	uint32_t i0 = mt_code32(p), i1 = mt_code32(p + 4), i2 = mt_code32(p + 8);
	if (mt_in_plt(o, t)) {
		/* adrp x16, slot; ldr x17, [x16, #lo12]; add x16, x16, #lo12; br x17 */
		uintptr_t page = adrp_page(p, i0, 16);
		if (!page || (i1 & 0xffc003ffu) != 0xf9400211u || (i2 & 0xffc003ffu) != 0x91000210u ||
		    mt_code32(p + 12) != 0xd61f0220u)
			return false;
		return mt_is_hook_slot(o, page + ((i1 >> 10) & 0xfff) * 8);
	}
	/* A veneer: adrp x16, hook; add x16, x16, #lo12; br x16. */
	uintptr_t page = adrp_page(p, i0, 16);
	if (!page || depth || (i1 & 0xffc003ffu) != 0x91000210u || i2 != 0xd61f0200u)
		return false;
	return hook_target(o, page + ((i1 >> 10) & 0xfff), depth + 1);
}

/* Does the function of a site sign its return address?  GCC's
 * -mbranch-protection=pac-ret makes the prologue sign x30 (paciasp,
 * pacibsp; pacia/pacib x30 with another modifier) and the epilogue check
 * it (autiasp): a return address replaced by the trampoline's fails that
 * check unless the signature happens to be all zeros, in which case the
 * hook's own test (the saved x30 is the parent) cannot tell it from an
 * unsigned one.  So on a CPU with pointer authentication such a
 * function's frames are never hijacked (nohook); not knowing where the
 * function begins counts as signing.  Without it the hint forms are NOPs
 * (and the others would not run at all). */
#define PACIASP 0xd503233fu
#define PACIBSP 0xd503237fu
#define PACIAZ  0xd503231fu
#define PACIBZ  0xd503235fu
#ifndef HWCAP_PACA
#define HWCAP_PACA (1ul << 30)
#endif
static bool cpu_pac(void)
{
	static int pac = -1;
	if (pac < 0)
		pac = (getauxval(AT_HWCAP) & HWCAP_PACA) != 0;
	return pac;
}

static bool signs_lr(const struct mt_site *s, const struct mt_object *o)
{
	uintptr_t start = mt_prologue_of(o, s->addr, 4);
	if (!start)
		return true;
	for (uintptr_t a = start; a < s->addr; a += 4) {
		uint32_t i = mt_code32(a);
		if (i == PACIASP || i == PACIBSP || i == PACIAZ || i == PACIBZ ||
		    (i & 0xfffff81fu) == 0xdac1001eu ||      /* pacia, pacib x30, xn|sp */
		    (i & 0xfffffbffu) == 0xdac123feu)        /* paciza, pacizb x30 */
			return true;
	}
	return false;
}

/* -fpatchable-function-entry=2 (M 0), as Linux's arm64 uses it: two
 * NOPs at the function's entry (after its bti c, or bti jc), the
 * table's entry the first.  The first becomes `mov x9, x30` once,
 * before any other change (mt_arch.prep, quiet: a NOP and a MOV are not
 * among the instructions the Arm ARM lets one store change under a
 * running CPU), so that x9 carries the function's return address; the
 * site is the second, NOP <-> `bl` mt_pfe_hook (hook-aarch64.S), or a
 * trampoline within the bl's 128 MB (`ldr x16, .+8; br x16` and the
 * hook's address), which runs before the prologue as __fentry__ does on
 * x86, and returns with x30 the function's return address again.  Its
 * frames are never hijacked (nohook: the return address is in a
 * register, not a slot of the frame). */
#define FORM_PFE 1
#define MOV_X9_X30 0xaa1e03e9u
MT_HIDDEN void mt_pfe_hook(void);

static const char *a64_patchable(struct mt_site *s, const struct mt_object *o)
{
	uintptr_t site = s->addr + 4, hook = (uintptr_t)mt_pfe_hook;
	int64_t d = (int64_t)(hook - site);
	if (d < -(INT64_C(1) << 27) || d >= (INT64_C(1) << 27)) {
		uint32_t code[4] = { 0x58000050u, 0xd61f0200u, (uint32_t)hook, (uint32_t)((uint64_t)hook >> 32) };
		hook = mt_tramp_near(site, (UINT32_C(1) << 27) - 16, code, sizeof code);
		if (!hook)
			return "a -fpatchable-function-entry NOP with no room within 128 MB for a trampoline to the hook";
		d = (int64_t)(hook - site);
	}
	(void)o;
	uint32_t bl = BL_OP | ((uint32_t)(d >> 2) & 0x03ffffffu);
	s->addr = site;
	s->len = 4;
	s->form = FORM_PFE;
	s->target = hook;
	memcpy(s->orig, &bl, 4);
	s->raw = true;
	s->nohook = true;
	atomic_store_explicit(&s->state, MT_NOP, memory_order_relaxed);
	return NULL;
}

static unsigned a64_prep(const struct mt_site *s, struct mt_prep *out)
{
	if (s->form != FORM_PFE)
		return 0;
	uint32_t mov = MOV_X9_X30;
	out[0] = (struct mt_prep){ .at = s->addr - 4, .n = 4, .quiet = true };
	memcpy(out[0].b, &mov, 4);
	return 1;
}

static const char *a64_decode(struct mt_site *s, const struct mt_object *o)
{
	if (s->addr & 3)
		return "not at an instruction boundary (not 4-byte aligned)";
	if (!mt_in_exec(o, s->addr) || !mt_in_exec(o, s->addr + 3))
		return "not in the object's code";
	uint32_t i = mt_code32(s->addr);
	if ((i & BL_MASK) == BL_OP) {
		s->len = 4;
		s->form = 0;
		s->target = bl_target(s->addr, i);
		memcpy(s->orig, &i, 4);
		if (!hook_target(o, s->target, 0))
			return "a call to something other than the hook";
		s->nohook = cpu_pac() && signs_lr(s, o);
		return NULL;
	}
	if (i == A64_NOP) {
		uintptr_t fs = mt_func_start(o, s->addr);
		if (fs && (s->addr == fs || (s->addr == fs + 4 && (mt_code32(fs) == BTI_C || mt_code32(fs) == BTI_JC))) &&
		    mt_in_exec(o, s->addr + 7) && mt_code32(s->addr + 4) == A64_NOP)
			return a64_patchable(s, o);
		return "a NOP already (another tool changed it)";
	}
	if ((i & BRK_MASK) == BRK_OP)
		return "a breakpoint (a debugger or another tool changed it)";
	return "not a call instruction";
}

static void a64_bytes(const struct mt_site *s, enum mt_state st, unsigned char *out)
{
	static const uint32_t nop = A64_NOP;
	memcpy(out, st == MT_CALL ? (const void *)s->orig : (const void *)&nop, 4);
}

/* The range's caches cleaned and invalidated (where one is given), then
 * a context synchronisation event for this thread. */
static void a64_sync_self(uintptr_t lo, uintptr_t hi)
{
	if (lo < hi)
		__builtin___clear_cache((char *)lo, (char *)hi);
	__asm__ volatile("isb" : : : "memory");
}

/* DWARF's aarch64 registers (x0-x30: 0-30, sp: 31, v0-v31: 64-95) in the
 * block _mcount passes mt_entry (hook-aarch64.S): the argument
 * registers, the callee-saved ones, the frame and stack pointers, and
 * the low halves of v8-v15; -1 for the others (the hook's call has
 * changed them). */
static int a64_arg_reg(unsigned r)
{
	if (r <= 7)
		return (int)r;
	if (r >= 19 && r <= 28)
		return (int)r - 11;
	if (r == 29 || r == 31)
		return r == 29 ? 18 : 19;
	if (r >= 72 && r <= 79)
		return (int)r - 52;
	return -1;
}

/* What the instruction at a does to the registers (DWARF's numbers:
 * x0-x30, sp 31, v0-v31 at 64): a copy (mov between general registers),
 * the registers it writes, or stop (control flow; a form not followed). */
static void a64_insn(uintptr_t a, struct mt_insn *o)
{
	uint32_t i = mt_code32(a);
	unsigned rd = i & 31, rn = (i >> 5) & 31, rt2 = (i >> 10) & 31;
	bool v = i & (1u << 26);
	o->len = 4;
	if ((i & 0x7fe0ffe0) == 0x2a0003e0) {                           /* mov xd/wd, xm/wm (orr, zr) */
		o->move = true;
		o->src = (uint8_t)((i >> 16) & 31);
		o->dst[0] = (uint8_t)rd;
	} else if ((i & 0x1c000000) == 0x10000000 || (i & 0x0e000000) == 0x0a000000) {
		mt_insn_w(o, rd);                                       /* data processing */
	} else if ((i & 0x0e000000) == 0x0e000000) {
		mt_insn_w(o, rd);                                       /* SIMD and FP: either file */
		mt_insn_w(o, 64 + rd);
	} else if ((i & 0xfffff01f) == 0xd503201f) {
		mt_insn_w(o, 16);                                       /* hints: nop, bti, pac*, xpaclri */
		mt_insn_w(o, 17);
		mt_insn_w(o, 30);
	} else if ((i & 0xfff00000) == 0xd5300000) {
		mt_insn_w(o, rd);                                       /* mrs */
	} else if ((i & 0x3a000000) == 0x28000000) {                    /* load/store pair */
		unsigned mode = (i >> 23) & 3;
		if (mode == 1 || mode == 3)
			mt_insn_w(o, rn);                               /* written back */
		if (i & (1u << 22)) {
			mt_insn_w(o, v ? 64 + rd : rd);
			mt_insn_w(o, v ? 64 + rt2 : rt2);
		}
	} else if ((i & 0x38000000) == 0x38000000) {                    /* load/store register */
		bool imm9 = !(i & (1u << 24)) && !(i & (1u << 21));
		if (!(i & (1u << 24)) && (i & (1u << 21)) && ((i >> 10) & 3) != 2)
			o->stop = true;                                 /* atomics */
		if (imm9 && ((i >> 10) & 1))
			mt_insn_w(o, rn);                               /* pre- or post-index */
		if ((i >> 22) & 3)
			mt_insn_w(o, v ? 64 + rd : rd);                 /* a load (or prfm) */
	} else if ((i & 0x3b000000) == 0x18000000) {
		mt_insn_w(o, v ? 64 + rd : rd);                         /* load literal */
	} else {
		o->stop = true;                                         /* branches, the rest */
	}
}

const struct mt_arch mt_arch = {
	.name = "aarch64",
	.arg_reg = a64_arg_reg,
	.dwarf_sp = 31,
	.dwarf_fp = 29,
	.insn = a64_insn,
	.trap_len = 0,
	.jump_slot = R_AARCH64_JUMP_SLOT,
	.glob_dat = R_AARCH64_GLOB_DAT,
	.decode = a64_decode,
	.bytes = a64_bytes,
	.sync_self = a64_sync_self,
	.prep = a64_prep,
};
