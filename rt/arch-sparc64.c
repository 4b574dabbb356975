/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arch-sparc64.c - the instruction of a sparc64 call site.
 *
 * GCC's -pg calls _mcount after the function's `save`, which gave the
 * function its register window:
 *	save	%sp, -N, %sp		0x9de3a000 | simm13 (or %g1 for a large frame)
 *	call	_mcount			0x40000000 | disp30
 *	 nop				the delay slot (GCC may fill it)
 * (src/arch.c's sparc64 row: R_SPARC_WPLT30 or R_SPARC_WDISP30 on the
 * call).  The table's entry is the call, 4 bytes.  Its target must be our
 * _mcount or a function named like a hook: the library is linked into
 * the program (libmcount-trace.a), and is not built as a shared object
 * for sparc64, since the ABI's PLT is code the dynamic linker writes
 * (.plt is writable and executable in every sparc64 object that has
 * one), so a preloadable library would bring a writable and executable
 * segment.  A call through a PLT entry is refused, with that reason.
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

MT_HIDDEN extern void mt_mcount_code(void);   /* _mcount (hook-sparc64.S) */

/* The instruction at a (big-endian, as the processor is). */
static uint32_t word(uintptr_t a)
{
	return mt_code32(a);
}

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
		uint32_t i = word(a);
		if (is_save_sp(i))
			return true;
		if (i == RET_I7 || i == RETURN_I7 || i == RETL || (i & F3_MASK) == RESTORE_OP)
			return false;
	}
	return false;
}

static const char *sparc64_decode(struct mt_site *s, const struct mt_object *o)
{
	if (s->addr & 3)
		return "not at an instruction boundary (not 4-byte aligned)";
	if (!mt_in_exec(o, s->addr) || !mt_in_exec(o, s->addr + 7))
		return "not in the object's code";
	uint32_t i = word(s->addr);
	if (i == SPARC_NOP)
		return "a NOP already (another tool changed it)";
	if ((i & F3_MASK) == TCC_OP)
		return "a trap instruction (a debugger or another tool changed it)";
	if ((i & CALL_MASK) != CALL_OP)
		return "not a call instruction";
	s->len = 4;
	s->target = call_target(s->addr, i);
	memcpy(s->orig, (const void *)s->addr, 4);
	if (s->target != (uintptr_t)mt_mcount_code) {
		const struct mt_sym *sym = mt_sym_at(o, s->target);
		if (!sym || sym->addr != s->target || !mt_is_hook_name(sym->name))
			return mt_in_plt(o, s->target)
				? "a call through a PLT entry (sparc64: the library is linked in, never preloaded)"
				: "a call to something other than the hook";
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
