/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arch-mips.c - the instructions of a MIPS call site: mips64el (n64),
 * mipsel and mips (o32, either byte order: an instruction is read and
 * written as a word of the machine's order).  n64 and o32 differ in the width of a
 * word (ld/sd/daddiu against lw/sw/addiu: the few definitions below)
 * and in what o32's callers do around the call (below).
 *
 * GCC's -pg (userspace default: -mabicalls, PIC) calls _mcount at the
 * end of the prologue, after gp is set up, as text GCC does not see as
 * a call (so every register but at and ra is the function's across it):
 *	move	at, ra			// the parent
 *	addiu	sp, sp, -8		// (o32 only) two words the hook pops
 *	ld	t9, %call16(_mcount)(gp)	// R_MIPS_CALL16: the table's entry
 *	jalr	t9			// R_MIPS_JALR
 *	nop				// the delay slot
 * (o32: lw t9).  _mcount returns to ra (after the delay slot) with ra =
 * at again, and on o32 with sp 8 higher: the function reloads gp from
 * its frame right after (GCC 12's output for PIE, non-PIE and PIC code
 * alike, doc/architectures.md).  src/arch.c records the first
 * instruction with a relocation against the hook: the ld (lw) t9.  The
 * linker keeps the pair where _mcount is another object's (a preloaded
 * library's: the slot is in the GOT's global part, filled by the
 * dynamic linker with no relocation, elf.c) and turns the jalr into
 * `bal _mcount` where the program links the library in (PIE, non-PIE
 * or -static).  So a site is
 *   ld t9, N(gp) ; jalr t9     8 bytes   (form 0)
 *   ld t9, N(gp) ; bal _mcount 8 bytes   (form 1)
 * and switched off, its second word becomes `nop` (sll zero, zero, 0)
 * on n64, `addiu sp, sp, 8` on o32 (what the hook would have popped):
 * the load only writes t9, which the call clobbers anyway.  o32 sites
 * are taken only where the word before is that `addiu sp, sp, -8`.  The
 * hook passes its return address less 4 (the delay slot's): the site's
 * end.
 *
 * gp is not known from the site alone: the function's prologue sets it
 * (n64: lui gp, hi; daddu gp, gp, t9; daddiu gp, gp, lo; o32: lui,
 * addiu, addu; t9 being the function's address; o32 code that is not
 * PIC, -fno-pie, has no addu: lui and addiu give gp itself), read where
 * the object names the function; else (stripped) the primary GOT's
 * gp, the GOT's base + 0x7ff0.  The slot must lie in the primary GOT's
 * 64 KiB (a program large enough for several GOTs has its other sites
 * refused, said).
 *
 * No concurrent-modification rule: the MIPS architecture says nothing
 * of an instruction another CPU changes while this one may fetch it,
 * and a write through /proc/self/mem is the kernel's copy, not a store
 * of the word.  So sites are written behind fenced pages (patch.c; as
 * on riscv64, arch-riscv64.c): the pages are non-executable while they
 * are written (a thread that reaches one waits in the SIGSEGV handler;
 * that needs the CPU's execute-inhibit bit, RIXI, which qemu's 64-bit
 * CPUs lack: doc/architectures.md), and then the
 * cacheflush system call writes the data cache back and invalidates the
 * instruction cache over the range, on every CPU (the kernel's
 * flush_icache_range); the return from it, an eret, is this thread's
 * instruction hazard barrier, and a waiting thread returns from its
 * handler the same way.  No trap instruction is ever written
 * (trap_len 0): every SIGTRAP is the program's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <string.h>
#include <sys/syscall.h>

#include "cpu.h"
#include "rt.h"

#if (_MIPS_SIM != _ABI64 && _MIPS_SIM != _ABIO32) || (_MIPS_SIM == _ABI64 && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
#error "arch-mips.c: the instruction words below are n64 (little-endian) or o32 code"
#endif

/* What differs with the word's width: the loads, stores and additions
 * of a word, the lazy stub's first word; o32's words around the site;
 * how far below the function's sp the hook keeps its copy of the
 * parent (hook-mips.S: its frame, and on o32 the 8 bytes the site
 * pushed). */
#if _MIPS_SIM == _ABI64
#define ARCH_NAME     "mips64el"
#define LOAD_T9_GP    0xdf990000u   /* ld t9, imm(gp): the high 16 bits */
#define ADDU_GP_T9    0x0399e02du   /* daddu gp, gp, t9 */
#define ADDIU_GP_GP   0x679c0000u   /* daddiu gp, gp, imm */
#define ADDIU_SP_SP   0x67bd0000u   /* daddiu sp, sp, imm */
#define STORE_RA_SP   0xffbf0000u   /* sd ra, imm(sp) */
#define STUB_LOAD     0xdf998010u   /* ld t9, -0x7ff0(gp) */
#define OFF_WORD      0x00000000u   /* nop (sll zero, zero, 0) */
#define COPY_BELOW    96
#define LOAD_NAME     "ld"
#define PUSHED        0
#else
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ARCH_NAME     "mips"
#else
#define ARCH_NAME     "mipsel"
#endif
#define LOAD_T9_GP    0x8f990000u   /* lw t9, imm(gp) */
#define ADDU_GP_T9    0x0399e021u   /* addu gp, gp, t9 */
#define ADDIU_GP_GP   0x279c0000u   /* addiu gp, gp, imm */
#define ADDIU_SP_SP   0x27bd0000u   /* addiu sp, sp, imm */
#define STORE_RA_SP   0xafbf0000u   /* sw ra, imm(sp) */
#define STUB_LOAD     0x8f998010u   /* lw t9, -0x7ff0(gp) */
#define PUSH_WORD     0x27bdfff8u   /* addiu sp, sp, -8: the word before the site */
#define OFF_WORD      0x27bd0008u   /* addiu sp, sp, 8 */
#define COPY_BELOW    40
#define LOAD_NAME     "lw"
#define PUSHED        4             /* the push's word: not the prologue's */
#endif
#define WORD          ((int64_t)sizeof(uintptr_t))
#define MIPS_NOP      0x00000000u   /* sll zero, zero, 0 */
#define JALR_T9       0x0320f809u   /* jalr ra, t9 */
#define BAL           0x04110000u   /* bgezal zero, off: the high 16 bits */
#define LUI_GP        0x3c1c0000u   /* lui gp, imm */
#define FORM_JALR 0
#define FORM_BAL  1
#define BCACHE 3                    /* cacheflush: both caches */

static bool is_break(uint32_t i)
{
	return (i & 0xfc00003fu) == 0x0000000du || (i & 0xfc00003fu) == 0x00000034u;  /* break, teq */
}

static bool hook_at(const struct mt_object *o, uintptr_t t)
{
	return t == mt_hooks[0] || mt_is_hook_sym(o, t);
}

/* A GOT slot of the hook that the dynamic linker has not bound yet (the
 * program is not linked -z now) holds the address of the object's lazy
 * stub (.MIPS.stubs: ld (lw) t9, -0x7ff0(gp); move $15, ra; jalr t9; li t8,
 * the symbol's index), which enters the dynamic linker's resolver on
 * the first call.  That resolver keeps the argument registers, not at
 * (GCC's text call counts on at, and the resolver is C code and may
 * make system calls, whose return Linux does not restore at through),
 * so a first call of _mcount could come with its parent lost: the mips64el guest
 * without this loses it under function_graph (the first function's
 * frame not taken) and in a threaded program (a parent of 0x1, or a
 * crash).  Such a slot is bound here,
 * to what the resolver would bind it to (the first definition in the
 * global scope, as LD_BIND_NOW would): one aligned store of the
 * address into the object's GOT, writable while it is lazily bound. */
static void bind_now(const struct mt_object *o, uintptr_t slot, uintptr_t v)
{
	if (hook_at(o, v) || !mt_in_exec(o, v) || (v & 3) || !mt_in_exec(o, v + 15) ||
	    mt_code32(v) != STUB_LOAD || mt_code32(v + 4) != 0x03e07825u || mt_code32(v + 8) != JALR_T9)
		return;
	void *f = dlsym(RTLD_DEFAULT, "_mcount");
	if (f)
		__atomic_store_n((uintptr_t *)slot, (uintptr_t)f, __ATOMIC_RELEASE);
}

/* gp in the site's function: what its prologue computed before the site
 * (0: no such prologue read), else the primary GOT's.  Without the
 * addition of t9 the prologue's gp is absolute (o32's non-PIC code). */
static uintptr_t gp_of(const struct mt_site *s, const struct mt_object *o)
{
	uintptr_t start = mt_prologue_of(o, s->addr, 4);
	if (start) {
		int64_t hi = 0, lo = 0;
		bool lui = false, add = false, low = false;
		for (uintptr_t a = start; a < s->addr; a += 4) {
			uint32_t i = mt_code32(a);
			if ((i & 0xffff0000u) == LUI_GP)
				lui = true, hi = mt_sext(i & 0xffff, 16) * 65536;
			else if (i == ADDU_GP_T9)
				add = true;
			else if ((i & 0xffff0000u) == ADDIU_GP_GP)
				low = true, lo = mt_sext(i & 0xffff, 16);
		}
		if (!lui || !low)
			return 0;
		return (add ? start : 0) + (uintptr_t)(hi + lo);
	}
	return o->got ? o->got + 0x7ff0 : 0;
}

/* function_graph: where the site's function keeps its return address.
 * GCC's prologue lowers sp by F (daddiu sp, sp, -F; o32: addiu) and, in
 * a function that calls, stores ra at the top of the frame (sd ra,
 * F-8(sp); o32: sw ra, F-4(sp)), just below its caller's sp, from where
 * every epilogue reloads it.  The hook's copy of the parent is
 * COPY_BELOW bytes below the function's sp (hook-mips.S), so the slot
 * is frame = COPY_BELOW + F - WORD bytes above it (rt.h, MT_SLOT_FRAME);
 * o32's push of 8 before the site is not the prologue's.  A leaf keeps ra in the
 * register (the hook gives it back from at), and any other prologue
 * (sp changed otherwise, ra stored elsewhere or not at all before the
 * site) is not read: those sites are nohook. */
static void read_frame(struct mt_site *s, const struct mt_object *o)
{
	s->nohook = true;
	uintptr_t start = mt_prologue_of(o, s->addr, 4);
	if (!start)
		return;
	int64_t down = 0, ra_at = -1;
	for (uintptr_t a = start; a < s->addr - PUSHED; a += 4) {
		uint32_t i = mt_code32(a);
		if ((i & 0xffff0000u) == ADDIU_SP_SP) {
			if (ra_at >= 0)
				return;
			down -= mt_sext(i & 0xffff, 16);
		} else if ((i & 0xffff0000u) == STORE_RA_SP) {
			ra_at = mt_sext(i & 0xffff, 16);
		} else if ((i >> 26) == 0 && ((i >> 11) & 31) == 29) {
			return;                                                 /* sp written otherwise */
		}
	}
	if (down <= WORD || ra_at != down - WORD || COPY_BELOW + ra_at > UINT16_MAX)
		return;
	s->framed = true;
	s->frame = (uint16_t)(COPY_BELOW + ra_at);
	s->nohook = false;
}

static const char *mips_decode(struct mt_site *s, const struct mt_object *o)
{
	if (s->addr & 3)
		return "not at an instruction boundary (not 4-byte aligned)";
	if (!mt_in_exec(o, s->addr) || !mt_in_exec(o, s->addr + 7))
		return "not in the object's code";
	uint32_t i = mt_code32(s->addr), j = mt_code32(s->addr + 4);
	if (is_break(i) || is_break(j))
		return "a breakpoint (a debugger or another tool changed it)";
	if ((i & 0xffff0000u) != LOAD_T9_GP)
		return "not a call instruction (no " LOAD_NAME " t9 from the GOT)";
#ifdef PUSH_WORD
	if (!mt_in_exec(o, s->addr - 4) || mt_code32(s->addr - 4) != PUSH_WORD)
		return "not after addiu sp, sp, -8 (o32's push before the call)";
#endif
	if (j == OFF_WORD || j == MIPS_NOP)
		return "a NOP already (another tool changed it)";
	if (j == JALR_T9) {
		uintptr_t gp = gp_of(s, o);
		uintptr_t slot = gp + (uintptr_t)mt_sext(i & 0xffff, 16);
		if (!gp || !o->got || slot < o->got || slot - o->got >= 0x10000 || (slot & (sizeof slot - 1)))
			return "a GOT load whose slot is not in the object's GOT";
		s->form = FORM_JALR;
		s->target = slot;
		uintptr_t v = *(const volatile uintptr_t *)slot;
		if (mt_is_hook_slot(o, slot))
			bind_now(o, slot, v);
		else if (!hook_at(o, v))
			return "a call to something other than the hook";
	} else if ((j & 0xffff0000u) == BAL) {
		s->form = FORM_BAL;
		s->target = s->addr + 8 + (uintptr_t)(mt_sext(j & 0xffff, 16) * 4);
		if (!hook_at(o, s->target))
			return "a call to something other than the hook";
	} else {
		return "an " LOAD_NAME " t9 not followed by jalr t9 or bal";
	}
	s->len = 8;
	memcpy(s->orig, &i, 4);
	memcpy(s->orig + 4, &j, 4);
	read_frame(s, o);
	return NULL;
}

static void mips_bytes(const struct mt_site *s, enum mt_state st, unsigned char *out)
{
	static const uint32_t off = OFF_WORD;
	memcpy(out, s->orig, s->len);
	if (st == MT_NOP)
		memcpy(out + 4, &off, 4);
}

/* The range's data cache written back and its instruction cache
 * invalidated on every CPU (the kernel's flush_icache_range); the eret
 * that returns from the system call is this thread's hazard barrier.
 * The other threads are held off the fenced pages until after this. */
static MT_FENCE_TEXT void mips_sync_self(uintptr_t lo, uintptr_t hi)
{
	if (lo < hi)
		mt_raw6(SYS_cacheflush, (long)lo, (long)(hi - lo), BCACHE, 0, 0, 0);
}

const struct mt_arch mt_arch = {
	.name = ARCH_NAME,
	.trap_len = 0,
	.fence_pages = true,
	/* n64's r_info is not ELF64_R_INFO's (the type is in its top bytes),
	 * and the GOT slots of functions have no relocations anyway (elf.c
	 * reads the GOT's global part): no relocation type is a slot's. */
	.jump_slot = UINT_MAX,
	.glob_dat = UINT_MAX,
	.decode = mips_decode,
	.bytes = mips_bytes,
	.sync_self = mips_sync_self,
};
