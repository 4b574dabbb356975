/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arch-s390x.c - the instruction of an s390x (z/Architecture) call site.
 *
 * GCC's -pg puts, at the function's first byte, before the prologue,
 *	stg	%r14,8(%r15)		e3 e0 f0 08 00 24
 *	brasl	%r14,_mcount		c0 e5 + a signed halfword count
 *	lg	%r14,8(%r15)		e3 e0 f0 08 00 04
 * and the table records the stg (src/arch.c's s390x row; the kernel's
 * and GCC's own -mrecord-mcount convention).  With -mfentry it puts
 *	brasl	%r0,__fentry__		c0 05 + a halfword count
 * as the first instruction, and the table records it.  The site is the
 * brasl, 6 bytes: decode moves s->addr from the stg to it, so that the
 * address after the site is what the hook gets in r14 (or r0).  The
 * target is our hook, a function named like one, or a PLT entry
 *	larl	%r1,slot		c0 10 + halfword count
 *	lg	%r1,0(%r1)		e3 10 10 00 00 04
 *	br	%r1			07 f1
 * whose GOT slot the dynamic linker fills with a hook (R_390_JMP_SLOT,
 * R_390_GLOB_DAT): a PIE or a library with the library preloaded.
 *
 * Switched off, the site becomes `brcl 0,<same offset>` (c0 04 ...), a
 * branch whose mask selects no condition, never taken: only the second
 * byte of the instruction changes (the R1/M1 field), as in the kernel's
 * s390 ftrace.  Instructions are fetched by halfwords: a processor that
 * fetches the site while another writes it sees, halfword by halfword,
 * the old or the new contents, and since the two states differ in one
 * byte of one halfword, any mixture is one state or the other: no
 * breakpoint and no fenced page is needed.  patch.c writes each site
 * alone, one pwrite of its 6 bytes (the other four written with the
 * bytes they hold).  z/Architecture has no instruction cache to clean:
 * a processor observes stores into the instruction stream once it has
 * serialised (Principles of Operation, "CPU serialization": an
 * interruption, or bcr 14,0 / bcr 15,0, discards what it prefetched).
 * The writer serialises with bcr 15,0; every other thread of the
 * process is interrupted by membarrier: SYNC_CORE where the kernel has
 * it, else (Linux 6.1's s390 does not select it) PRIVATE_EXPEDITED,
 * whose IPI is an external interruption, serialising, and whose return
 * to user space is a load of the PSW, serialising too (patch.c's
 * sync_all, mt_arch.expedited).  So trap_len is 0: every SIGTRAP is the program's.
 *
 * GCC's -mnop-mcount (the kernel's s390 build; PIC code too) leaves
 * `brcl 0,0` (c0 04 00000000) at the function's first byte, three of
 * them for _mcount's sequence, and -mrecord-mcount records the first.
 * Either is taken as a __fentry__ site switched off (before the
 * prologue, r14 holds the return address, as -mfentry's call expects),
 * bare: its call is `brasl %r0` to our __fentry__ or, beyond the 4 GB a
 * brasl reaches (the library preloaded into a PIE), to a trampoline
 * within reach (larl %r1; lg %r1,0(%r1); br %r1, as a PLT entry, and the
 * hook's address).  Switched on the first time, the offset is written
 * while the site is still a NOP (no mixture of its halfwords branches),
 * every thread serialises, then the second byte is (patch.c).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <string.h>

#include "rt.h"

#define OP_BRASL_R14 0xc0e5u      /* first halfword: brasl %r14 */
#define OP_BRASL_R0  0xc005u      /* brasl %r0 */
#define OP_BRCL_0    0xc004u      /* brcl 0: never taken */
#define OP_LARL_R1   0xc010u
#define FORM_MCOUNT  0
#define FORM_FENTRY  1

static const unsigned char STG_R14[6] = { 0xe3, 0xe0, 0xf0, 0x08, 0x00, 0x24 };  /* stg %r14,8(%r15) */
static const unsigned char LG_R14[6] = { 0xe3, 0xe0, 0xf0, 0x08, 0x00, 0x04 };   /* lg %r14,8(%r15) */
static const unsigned char LG_R1_0_R1[6] = { 0xe3, 0x10, 0x10, 0x00, 0x00, 0x04 };
static const unsigned char BR_R1[2] = { 0x07, 0xf1 };

/* mt_hooks's order (hook-s390x.S) */
enum { HOOK__MCOUNT, HOOK_FENTRY };

/* The big-endian halfword at a and the 32-bit halfword count at a + 2
 * of a RIL-format instruction: its target. */
static uint16_t half(uintptr_t a)
{
	const unsigned char *p = (const unsigned char *)a;
	return (uint16_t)(p[0] << 8 | p[1]);
}
static uintptr_t ril_target(uintptr_t a)
{
	const unsigned char *p = (const unsigned char *)a + 2;
	uint32_t v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return a + (uintptr_t)(mt_sext(v, 32) * 2);
}

static bool hook_target(const struct mt_object *o, uintptr_t t)
{
	if (t == mt_hooks[HOOK__MCOUNT] || t == mt_hooks[HOOK_FENTRY])
		return true;
	if (mt_is_hook_sym(o, t))
		return true;
	if ((t & 1) || !mt_in_plt(o, t) || !mt_in_exec(o, t + 13))
		return false;
	if (half(t) != OP_LARL_R1 || memcmp((const void *)(t + 6), LG_R1_0_R1, 6) ||
	    memcmp((const void *)(t + 12), BR_R1, 2))
		return false;
	return mt_is_hook_slot(o, ril_target(t));
}

/* A trampoline to __fentry__: larl %r1,.+16; lg %r1,0(%r1); br %r1;
 * two bytes of padding; the hook's address. */
static const unsigned char *s390_tramp_code(void)
{
	static unsigned char code[24] = { 0xc0, 0x10, 0x00, 0x00, 0x00, 0x08, 0xe3, 0x10, 0x10, 0x00, 0x00, 0x04,
					  0x07, 0xf1, 0x07, 0x00 };
	uintptr_t h = mt_hooks[HOOK_FENTRY];
	memcpy(code + 16, &h, sizeof h);
	return code;
}

/* Does an instruction start at a?  An instruction's length is in the
 * first two bits of its opcode (00: 2 bytes, 01 and 10: 4, 11: 6): the
 * function's decoded from where it starts (its symbol, or its
 * .eh_frame FDE in a stripped object) up to a, one must end there.
 * GCC puts both sequences first in the function; a site that the
 * lengths do not lead to is in the middle of an instruction (the
 * immediate of another that holds the bytes of a brasl). */
static const char *s390_placed(uintptr_t a, const struct mt_object *o)
{
	uintptr_t p = mt_func_start(o, a);
	if (!p)
		return "in no function that the symbol table or .eh_frame names, or too far into one: "
		       "where its instructions start cannot be told";
	while (p < a) {
		unsigned op = *(const unsigned char *)p;
		p += op < 0x40 ? 2 : op < 0xc0 ? 4 : 6;
	}
	return p == a ? NULL : "not at the start of an instruction (decoded from its function's start)";
}

/* A site GCC's -mnop-mcount left (brcl 0,0 at the function's first
 * byte): switched off, bare, its call in s->orig; or why it is not one. */
static const char *s390_nop_site(struct mt_site *s, const struct mt_object *o)
{
	static const char other[] = "a NOP already (another tool changed it)";
	if (ril_target(s->addr) != s->addr)
		return other;                 /* GCC's is brcl 0,0 */
	if (!mt_sym_at(o, s->addr))
		return MT_NOP_UNPLACED;
	if (mt_prologue_of(o, s->addr, 2) != s->addr)
		return other;
	uintptr_t t = mt_hooks[HOOK_FENTRY];
	if (t - s->addr + ((uintptr_t)1 << 32) > ((uintptr_t)1 << 33) - 2)
		t = mt_tramp_near(s->addr, ((uintptr_t)1 << 32) - 2, s390_tramp_code(), 24);
	if (!t)
		return "a -mnop-mcount NOP with no room within 4 GB for a trampoline to the hook";
	uint32_t off = (uint32_t)((intptr_t)(t - s->addr) / 2);
	unsigned char call[6] = { OP_BRASL_R0 >> 8, OP_BRASL_R0 & 0xff, off >> 24, off >> 16 & 0xff, off >> 8 & 0xff,
				  off & 0xff };
	s->len = 6;
	s->form = FORM_FENTRY;
	s->target = t;
	s->bare = true;
	memcpy(s->orig, call, 6);
	atomic_store_explicit(&s->state, MT_NOP, memory_order_relaxed);
	return NULL;
}

static const char *s390_decode(struct mt_site *s, const struct mt_object *o)
{
	if (s->addr & 1)
		return "not at an instruction boundary (not 2-byte aligned)";
	if (!mt_in_exec(o, s->addr) || !mt_in_exec(o, s->addr + 5))
		return "not in the object's code";
	uint16_t h = half(s->addr);
	const char *why;
	if (!memcmp((const void *)s->addr, STG_R14, 6)) {
		if ((why = s390_placed(s->addr, o)))
			return why;
		/* _mcount's sequence: the call is the next instruction */
		if (!mt_in_exec(o, s->addr + 17))
			return "not in the object's code";
		uintptr_t call = s->addr + 6;
		h = half(call);
		if (h == OP_BRCL_0)
			return "a NOP already (another tool changed it)";
		if (h != OP_BRASL_R14)
			return "a stg %r14,8(%r15) not followed by brasl %r14";
		if (memcmp((const void *)(call + 6), LG_R14, 6))
			return "a brasl %r14 not followed by lg %r14,8(%r15)";
		s->addr = call;
		s->form = FORM_MCOUNT;
	} else if (h == OP_BRASL_R0) {
		if ((why = s390_placed(s->addr, o)))
			return why;
		s->form = FORM_FENTRY;
	} else if (h == OP_BRCL_0) {
		return s390_nop_site(s, o);
	} else if (h == 0x0001) {
		return "a breakpoint (a debugger or another tool changed it)";
	} else {
		return "not a call instruction";
	}
	s->len = 6;
	s->target = ril_target(s->addr);
	memcpy(s->orig, (const void *)s->addr, 6);
	if (!hook_target(o, s->target))
		return "a call to something other than the hook";
	return NULL;
}

static void s390_bytes(const struct mt_site *s, enum mt_state st, unsigned char *out)
{
	static const unsigned char brcl_0_0[6] = { 0xc0, 0x04 };
	memcpy(out, st == MT_NOP && s->bare ? brcl_0_0 : s->orig, 6);
	if (st == MT_NOP)
		out[1] = OP_BRCL_0 & 0xff;
}

/* After a write of [lo, hi), and after a batch (0, 0): this thread
 * serialises (bcr 15,0 discards the instructions it prefetched; no cache
 * to clean).  patch.c interrupts the others (mt_arch.expedited). */
static void s390_sync_self(uintptr_t lo, uintptr_t hi)
{
	(void)lo;
	(void)hi;
	__asm__ volatile("bcr 15,0" : : : "memory");
}

const struct mt_arch mt_arch = {
	.name = "s390x",
	.trap_len = 0,
	.expedited = true,
	.jump_slot = R_390_JMP_SLOT,
	.glob_dat = R_390_GLOB_DAT,
	.decode = s390_decode,
	.bytes = s390_bytes,
	.sync_self = s390_sync_self,
};
