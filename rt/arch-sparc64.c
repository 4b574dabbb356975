/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arch-sparc64.c - the instruction of a sparc64 call site.
 *
 * GCC's -pg calls _mcount after the function's `save`, which gave the
 * function its register window:
 *	save	%sp, -N, %sp		0x9de3a000 | simm13 (or %g1 for a large frame)
 *	call	_mcount			0x40000000 | disp30
 *	 nop				the delay slot (GCC may fill it)
 * (src/arch.c's sparc64 row: R_SPARC_WPLT30 or R_SPARC_WDISP30 on the
 * call).  The table's entry is the call, 4 bytes.  Its target is our
 * _mcount or a function named like a hook (linked in), or, preloaded,
 * the PLT entry of _mcount: the ABI's PLT is code the dynamic linker
 * writes when it binds an entry (plt_target; the forms are in
 * doc/architectures.md), so .plt is writable and executable in every
 * object that has one, and the library's shared object has none
 * (noplt.h).
 *
 * The hook (hook-sparc64.S) needs the function's window: that the code
 * before the site made one by `save %sp, ..., %sp`.  The decoder looks
 * for it between the function's start and the site (GCC puts it first,
 * and at -O0 only stores of the arguments after it); a site without one
 * is refused.
 *
 * Switched off, the call becomes `nop` (0x01000000), as the kernel's
 * sparc64 ftrace does it; the delay slot's instruction runs either way.
 * A naturally aligned word store is one access, and a processor fetches
 * the word whole: another thread runs the old call or the new nop, never
 * a mixture, so no breakpoint and no fenced page are needed (trap_len
 * 0).  patch.c writes each site alone, 4 bytes at an aligned address,
 * which the kernel copies as one word (its memcpy's path for 16 bytes or
 * less, all three multiples of 4: lduw, stw).  The writer then runs
 * `flush` on the word (the instruction fetch of this processor sees the
 * store, and SPARC V9 propagates it to the others), and every other
 * thread is interrupted by membarrier (PRIVATE_EXPEDITED: Linux 6.1's
 * sparc has no SYNC_CORE command): a trap and its return are a
 * synchronisation point.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <string.h>

#include "rt.h"

#if !defined(__sparc__) || !defined(__arch64__)
#error "arch-sparc64.c: 64-bit SPARC only"
#endif

#define CALL_MASK   0xc0000000u
#define CALL_OP     0x40000000u
#define SPARC_NOP   0x01000000u   /* sethi 0, %g0 */
#define F3_MASK     0xc1f80000u   /* op and op3 of a format 3 instruction */
#define SAVE_OP     0x81e00000u   /* save */
#define RESTORE_OP  0x81e80000u   /* restore */
#define TCC_OP      0x81d00000u   /* tcc: ta 1 is the breakpoint */
#define RET_I7      0x81c7e008u   /* jmpl %i7 + 8, %g0 (ret) */
#define RETURN_I7   0x81cfe008u   /* return %i7 + 8 */
#define RETL        0x81c3e008u   /* jmpl %o7 + 8, %g0 (retl) */
#define REG_SP      14u
#define SAVE_SCAN   64            /* instructions before a site where its save may be */

static uintptr_t call_target(uintptr_t at, uint32_t i)
{
	return at + (uintptr_t)(mt_sext(i & 0x3fffffffu, 30) * 4);
}

static bool is_save_sp(uint32_t i)
{
	return (i & F3_MASK) == SAVE_OP && ((i >> 25) & 31) == REG_SP && ((i >> 14) & 31) == REG_SP;
}

/* The function's save before the site: found between its symbol's start
 * (where there is one) and the site, without passing a return or a
 * restore (the end of another function, in a stripped program). */
static bool saved_window(const struct mt_object *o, uintptr_t site)
{
	const struct mt_sym *sym = mt_sym_at(o, site);
	uintptr_t lo = sym && sym->addr <= site ? sym->addr : 0;
	for (unsigned n = 1; n <= SAVE_SCAN && site >= (uintptr_t)n * 4; n++) {
		uintptr_t a = site - (uintptr_t)n * 4;
		if (a < lo || !mt_in_exec(o, a))
			return false;
		uint32_t i = mt_code32(a);
		if (is_save_sp(i))
			return true;
		if (i == RET_I7 || i == RETURN_I7 || i == RETL || (i & F3_MASK) == RESTORE_OP)
			return false;
	}
	return false;
}

static bool hook_at(const struct mt_object *o, uintptr_t t)
{
	return t == mt_hooks[0] || mt_is_hook_sym(o, t);
}

/* The bits [lo, lo + n) of i, and sign-extended. */
#define BITS(i, n) ((uint64_t)(i) & ((UINT64_C(1) << (n)) - 1))
#define SBITS(i, n) ((uintptr_t)mt_sext(BITS(i, n), n))

/* Where the code of a bound PLT entry at a goes, as glibc's dynamic
 * linker writes it (sparc64_fixup_plt, doc/architectures.md), in the
 * first form that matches: 0 where it is none of them. */
static uintptr_t plt_bound(uintptr_t a)
{
	uint32_t w0 = mt_code32(a), w1 = mt_code32(a + 4), w2 = mt_code32(a + 8);
	if ((w0 & 0xfff80000u) == 0x30480000u)                  /* ba,a,pt %icc */
		return a + SBITS(w0, 19) * 4;
	if ((w0 & 0xffc00000u) == 0x30800000u)                  /* ba,a */
		return a + SBITS(w0, 22) * 4;
	if ((w0 & 0xffc00000u) == 0x03000000u && (w1 & 0xfffffc00u) == 0x81c06000u)
		return (uintptr_t)BITS(w0, 22) << 10 | BITS(w1, 10);    /* sethi %hi(v), %g1; jmp %g1 + %lo(v) */
	if (w0 == 0x8210000fu && (w1 & CALL_MASK) == CALL_OP && w2 == 0x9e100001u)
		return call_target(a + 4, w1);                  /* mov %o7, %g1; call v; mov %g1, %o7 */
	if ((w0 & 0xffc00000u) == 0x03000000u && (w1 & 0xffc00000u) == 0x0b000000u) {
		/* sethi %hh(v), %g1; sethi %lm(v), %g5; [or %g1, %hm(v), %g1;]
		 * or %g5, %lo(v), %g5 (either order with the sllx); sllx %g1,
		 * 32, %g1; jmp %g1 + %g5 */
		uint64_t hi = BITS(w0, 22) << 10, lo = BITS(w1, 22) << 10;
		uint32_t w3 = mt_code32(a + 12), w4 = mt_code32(a + 16), w5 = mt_code32(a + 20);
		if ((w2 & 0xfffffc00u) == 0x82106000u && (w3 & 0xfffffc00u) == 0x8a116000u &&
		    w4 == 0x83287020u && w5 == 0x81c04005u)
			return (uintptr_t)((hi | BITS(w2, 10)) << 32 | lo | BITS(w3, 10));
		if (w2 == 0x83287020u && (w3 & 0xfffffc00u) == 0x8a116000u && w4 == 0x81c04005u)
			return (uintptr_t)(hi << 32 | lo | BITS(w3, 10));
	}
	return 0;
}

/* A call's target t in the PLT: an entry whose R_SPARC_JMP_SLOT is a
 * hook's (elf.c's hook slots), and whose code, where the dynamic linker
 * has bound it, goes to a hook.  An ordinary entry's relocation is at
 * the entry; the code is bound from the entry (BIND_NOW) or from its
 * second word (lazily: the first is ld's sethi, and an unbound entry's
 * second is ld's b,a %xcc to PLT1).  An entry from the 32768th on is
 * code that jumps by a word of its own (ld's large entries), whose
 * relocation is at that word: nothing else is written there. */
static const char *plt_target(const struct mt_object *o, uintptr_t t)
{
	if ((t & 3) || !mt_in_exec(o, t + 28))
		return "a call into the PLT, not at an entry";
	if (mt_code32(t) == 0x8a10000fu && mt_code32(t + 4) == 0x40000002u && mt_code32(t + 8) == SPARC_NOP &&
	    (mt_code32(t + 12) & 0xffffe000u) == 0xc25be000u && mt_code32(t + 16) == 0x83c3c001u &&
	    mt_code32(t + 20) == 0x9e100005u)
		return mt_is_hook_slot(o, t + 4 + SBITS(mt_code32(t + 12), 13)) ? NULL
			: "a call through a PLT entry that is not the hook's";
	if (!mt_is_hook_slot(o, t))
		return "a call through a PLT entry that is not the hook's";
	uintptr_t to = plt_bound(t);
	if (!to && (mt_code32(t) & 0xffc00000u) == 0x03000000u) {
		if ((mt_code32(t + 4) & 0xfff80000u) == 0x30680000u)  /* b,a %xcc: not bound yet */
			return NULL;
		to = plt_bound(t + 4);
	}
	if (!to)
		return "a call through a PLT entry of a form not known";
	return hook_at(o, to) ? NULL : "a call through the hook's PLT entry, bound to another function";
}

static const char *sparc64_decode(struct mt_site *s, const struct mt_object *o)
{
	if (s->addr & 3)
		return "not at an instruction boundary (not 4-byte aligned)";
	if (!mt_in_exec(o, s->addr) || !mt_in_exec(o, s->addr + 7))
		return "not in the object's code";
	uint32_t i = mt_code32(s->addr);
	if (i == SPARC_NOP)
		return "a NOP already (another tool changed it)";
	if ((i & F3_MASK) == TCC_OP)
		return "a trap instruction (a debugger or another tool changed it)";
	if ((i & CALL_MASK) != CALL_OP)
		return "not a call instruction";
	s->len = 4;
	s->target = call_target(s->addr, i);
	memcpy(s->orig, (const void *)s->addr, 4);
	if (!hook_at(o, s->target)) {
		if (!mt_in_plt(o, s->target))
			return "a call to something other than the hook";
		const char *why = plt_target(o, s->target);
		if (why)
			return why;
	}
	if (!saved_window(o, s->addr))
		return "a call with no save before it (the hook needs the function's register window)";
	return NULL;
}

static void sparc64_bytes(const struct mt_site *s, enum mt_state st, unsigned char *out)
{
	static const unsigned char nop[4] = { 0x01, 0x00, 0x00, 0x00 };
	memcpy(out, st == MT_NOP ? nop : s->orig, 4);
}

/* After a write of [lo, hi): flush each doubleword of it (this
 * processor's instruction fetch sees the store).  After a batch (0, 0)
 * patch.c interrupts every other thread (mt_arch.expedited). */
static void sparc64_sync_self(uintptr_t lo, uintptr_t hi)
{
	for (uintptr_t a = lo & ~(uintptr_t)7; a < hi; a += 8)
		__asm__ volatile("flush %0" : : "r"(a) : "memory");
}

const struct mt_arch mt_arch = {
	.name = "sparc64",
	.trap_len = 0,
	.expedited = true,
	.jump_slot = R_SPARC_JMP_SLOT,
	.glob_dat = R_SPARC_GLOB_DAT,
	.decode = sparc64_decode,
	.bytes = sparc64_bytes,
	.sync_self = sparc64_sync_self,
};
