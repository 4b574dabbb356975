/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arch-arm.c - the instructions of a 32-bit Arm call site (armhf: ARM
 * and Thumb-2 state).
 *
 * GCC's -pg puts, after the prologue, in either state:
 *	push	{lr}			// the caller's return address (the parent)
 *	bl	__gnu_mcount_nc		// lr := the address after the site
 * and the table records the bl (src/arch.c's arm row: R_ARM_CALL,
 * R_ARM_THM_CALL), with bit 0 set where its anchor is a Thumb symbol.
 * The push that comes before it tells the state: a site is
 *   ARM    e52de004 (str lr, [sp, #-4]!) then bl (0xeb) or blx (0xfa, 0xfb)
 *   Thumb  b500 (push {lr}) then a 32-bit bl or blx, only 2-byte aligned
 * both 4 bytes (form 0 ARM, form 1 Thumb).  Its target is our
 * __gnu_mcount_nc (linked in), a function named like a hook, or a PLT
 * entry (ARM state: add ip, pc; add ip, ip; ldr pc, [ip, #n]!), reached
 * from Thumb by blx or through the `bx pc; nop` stub before it, whose
 * GOT slot the dynamic linker fills with a hook (R_ARM_JUMP_SLOT,
 * R_ARM_GLOB_DAT).  Switched off, the call becomes what the kernel
 * writes: an instruction that drops the pushed word, `pop {lr}`
 * (e8bd4000) in ARM state, `pop.w {lr}` (ldr.w lr, [sp], #4: f85d eb04)
 * in Thumb; lr already holds that word.
 *
 * A Thumb site is only 2-byte aligned, so its write need not be one
 * access, and the architecture's rule for concurrently modified
 * instructions (the Arm ARM lists B, BL, NOP, ... for ARMv8's AArch32,
 * and not a load) covers neither state's pair: sites are written behind
 * fenced pages (patch.c; arch-riscv64.c says how), and sync_self runs
 * the cacheflush system call over each range written.  No trap is ever
 * written (trap_len 0): every SIGTRAP is the program's.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <string.h>

#include "cpu.h"
#include "rt.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "arm: the instruction words below are read as little-endian"
#endif

#define ARM_PUSH_LR   0xe52de004u   /* str lr, [sp, #-4]! */
#define ARM_POP_LR    0xe8bd4000u   /* ldmia sp!, {lr}: the kernel's NOP */
#define ARM_BKPT_MASK 0xfff000f0u
#define ARM_BKPT      0xe1200070u
#define T_PUSH_LR     0xb500u       /* push {lr} */
#define T_POP_LR_1    0xf85du       /* ldr.w lr, [sp], #4 */
#define T_POP_LR_2    0xeb04u
#define T_BKPT_MASK   0xff00u
#define T_BKPT        0xbe00u
#define FORM_ARM   0
#define FORM_THUMB 1

#ifndef __ARM_NR_cacheflush
#define __ARM_NR_cacheflush 0x0f0002
#endif

/* ARM bl / blx at `at`: the target, bit 0 set where it is Thumb code. */
static uintptr_t arm_target(uintptr_t at, uint32_t i)
{
	uintptr_t t = at + 8 + (uintptr_t)(mt_sext(i & 0xffffff, 24) * 4);
	if ((i & 0xfe000000u) == 0xfa000000u)                 /* blx: to Thumb, H is bit 1 */
		t += ((i >> 24) & 1) * 2 + 1;
	return t;
}

/* Thumb bl / blx (halfwords h1, h2) at `at`: the same. */
static uintptr_t thumb_target(uintptr_t at, uint16_t h1, uint16_t h2)
{
	uint32_t s = (h1 >> 10) & 1, j1 = (h2 >> 13) & 1, j2 = (h2 >> 11) & 1;
	uint32_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
	uint32_t imm = s << 24 | i1 << 23 | i2 << 22 | (uint32_t)(h1 & 0x3ff) << 12 | (uint32_t)(h2 & 0x7ff) << 1;
	int64_t off = mt_sext(imm, 25);
	if (h2 & 0x1000)                                      /* bl: stays Thumb */
		return at + 4 + (uintptr_t)off + 1;
	return ((at + 4) & ~(uintptr_t)3) + (uintptr_t)off;  /* blx: to ARM */
}

/* An ARM data-processing immediate: imm8 rotated right by twice rot. */
static uint32_t arm_imm(uint32_t i)
{
	uint32_t v = i & 0xff, r = ((i >> 8) & 0xf) * 2;
	return r ? v >> r | v << (32 - r) : v;
}

/* t: a target, bit 0 set for Thumb code. */
static bool hook_target(const struct mt_object *o, uintptr_t t)
{
	uintptr_t a = t & ~(uintptr_t)1;
	if (a == mt_hooks[0])
		return true;
	if (mt_is_hook_sym(o, a))
		return true;
	/* A Thumb caller's way into an ARM PLT entry: bx pc; nop. */
	if ((t & 1) && mt_in_plt(o, a) && mt_in_exec(o, a + 3) && mt_code16(a) == 0x4778 &&
	    mt_code16(a + 2) == 0x46c0) {
		a += 4;
		t = a;
	}
	if ((t & 3) || !mt_in_plt(o, a) || !mt_in_exec(o, a + 11))
		return false;
	/* add ip, pc, #i0; add ip, ip, #i1; ldr pc, [ip, #n]! */
	uint32_t i0 = mt_code32(a), i1 = mt_code32(a + 4), i2 = mt_code32(a + 8);
	if ((i0 & 0xfffff000u) != 0xe28fc000u || (i1 & 0xfffff000u) != 0xe28cc000u ||
	    (i2 & 0xfffff000u) != 0xe5bcf000u)
		return false;
	return mt_is_hook_slot(o, a + 8 + arm_imm(i0) + arm_imm(i1) + (i2 & 0xfff));
}

/* Thumb-2's modified immediate (i:imm3:imm8 as imm12). */
static uint32_t thumb_imm(uint32_t imm12)
{
	uint32_t b = imm12 & 0xff;
	if (!(imm12 & 0xc00)) {
		switch ((imm12 >> 8) & 3) {
		case 0: return b;
		case 1: return b << 16 | b;
		case 2: return b << 24 | b << 8;
		default: return b << 24 | b << 16 | b << 8 | b;
		}
	}
	uint32_t v = 0x80 | (imm12 & 0x7f), r = imm12 >> 7;
	return v >> r | v << (32 - r);
}

/* A register list's bytes; -1 where it has sp or pc (no prologue's). */
static int push_bytes(uint32_t list)
{
	return list & 0xa000 ? -1 : 4 * __builtin_popcount(list & 0xffff);
}

/* One instruction of a prologue at a: its length, the bytes it pushes
 * or subtracts from sp (*down) and whether it stores lr as its highest
 * word (*lr); 0 for anything else (no prologue we know).  The others
 * allowed set a frame pointer from sp: add r7/fp, sp, #imm and mov r7,
 * sp. */
static unsigned prologue_step(uintptr_t a, bool thumb, int *down, bool *lr)
{
	*down = 0;
	*lr = false;
	if (thumb) {
		uint16_t h = mt_code16(a), h2;
		if ((h & 0xfe00) == 0xb400) {                          /* push {list[, lr]} */
			*down = push_bytes((h & 0xff) | (h & 0x100) << 6);
			*lr = h & 0x100;
			return 2;
		}
		if ((h & 0xff80) == 0xb080) {                          /* sub sp, #imm7 * 4 */
			*down = (h & 0x7f) * 4;
			return 2;
		}
		if ((h & 0xff00) == 0xaf00 || h == 0x466f)             /* add r7, sp, #imm; mov r7, sp */
			return 2;
		h2 = mt_code16(a + 2);
		if (h == 0xe92d) {                                     /* push.w {list} */
			*down = push_bytes(h2);
			*lr = h2 & 0x4000;
			return *down < 0 ? 0 : 4;
		}
		if ((h & 0xffbf) == 0xed2d && (h2 & 0x0e00) == 0x0a00) { /* vpush {s/d list} */
			*down = (h2 & 0xff) * 4;
			return 4;
		}
		if ((h & 0xfbff) == 0xf1ad && (h2 & 0x8f00) == 0x0d00) { /* sub.w sp, sp, #const */
			*down = (int)thumb_imm((uint32_t)(h & 0x400) << 1 | (h2 & 0x7000) >> 4 | (h2 & 0xff));
			return *down < 0 ? 0 : 4;
		}
		if ((h & 0xfbff) == 0xf2ad && (h2 & 0x8f00) == 0x0d00) { /* subw sp, sp, #imm12 */
			*down = (int)((uint32_t)(h & 0x400) << 1 | (h2 & 0x7000) >> 4 | (h2 & 0xff));
			return 4;
		}
		return 0;
	}
	uint32_t i = mt_code32(a);
	if ((i & 0xffff0000u) == 0xe92d0000u) {                         /* push {list} */
		*down = push_bytes(i);
		*lr = i & 0x4000;
		return *down < 0 ? 0 : 4;
	}
	if ((i & 0xffff0fffu) == 0xe52d0004u) {                         /* str rt, [sp, #-4]!: push {rt} */
		*down = push_bytes(1u << ((i >> 12) & 15));
		*lr = i == ARM_PUSH_LR;
		return *down < 0 ? 0 : 4;
	}
	if ((i & 0xfffff000u) == 0xe24dd000u) {                         /* sub sp, sp, #const */
		*down = (int)arm_imm(i);
		return *down < 0 ? 0 : 4;
	}
	if ((i & 0xffbf0e00u) == 0xed2d0a00u) {                         /* vpush */
		*down = (int)(i & 0xff) * 4;
		return 4;
	}
	if ((i & 0xfffff000u) == 0xe28db000u || (i & 0xfffff000u) == 0xe28d7000u || /* add fp/r7, sp, #imm */
	    i == 0xe1a0b00du || i == 0xe1a0700du)                      /* mov fp/r7, sp */
		return 4;
	return 0;
}

/* The bytes the prologue of the function of the site whose push {lr} is
 * at `push` put on the stack before it (mt_site.frame), -1 for a
 * prologue we cannot read.  *lr_at: how far above the word the site
 * pushes the prologue saved lr (mt_site.lr_at: a push stores lr as its
 * highest word, just below what the pushes before it took), 0 where it
 * did not save it (rt.h: lr keeps the return then). */
static int frame_of(const struct mt_object *o, uintptr_t push, bool thumb, int *lr_at)
{
	uintptr_t a = mt_prologue_of(o, push, thumb ? 2 : 4);
	*lr_at = 0;
	if (!a)
		return -1;
	int frame = 0, lr_below = -1;
	while (a < push) {
		int down;
		bool lr;
		unsigned n = mt_in_exec(o, a + 3) ? prologue_step(a, thumb, &down, &lr) : 0;
		if (!n || down < 0 || frame + down > 0xfffc || (lr && lr_below >= 0))
			return -1;
		if (lr)
			lr_below = frame;
		frame += down;
		a += n;
	}
	if (a != push)
		return -1;
	if (lr_below >= 0)
		*lr_at = frame - lr_below;
	return frame;
}

static bool thumb_call(uint16_t h1, uint16_t h2)
{
	return (h1 & 0xf800) == 0xf000 && ((h2 & 0xd000) == 0xd000 || (h2 & 0xd001) == 0xc000);
}

static const char *arm_decode(struct mt_site *s, const struct mt_object *o)
{
	uintptr_t a = s->addr & ~(uintptr_t)1;
	s->addr = a;
	if (!mt_in_exec(o, a) || !mt_in_exec(o, a + 3))
		return "not in the object's code";
	bool thumb = mt_in_exec(o, a - 2) && mt_code16(a - 2) == T_PUSH_LR;
	bool arm = !(a & 3) && mt_in_exec(o, a - 4) && mt_code32(a - 4) == ARM_PUSH_LR;
	uint32_t i = mt_code32(a);
	uint16_t h1 = mt_code16(a), h2 = mt_code16(a + 2);
	s->len = 4;
	memcpy(s->orig, &i, 4);
	if (thumb && thumb_call(h1, h2)) {
		s->form = FORM_THUMB;
		s->target = thumb_target(a, h1, h2);
	} else if (arm && ((i & 0xff000000u) == 0xeb000000u || (i & 0xfe000000u) == 0xfa000000u)) {
		s->form = FORM_ARM;
		s->target = arm_target(a, i);
	} else if ((thumb && h1 == T_POP_LR_1 && h2 == T_POP_LR_2) || (arm && i == ARM_POP_LR)) {
		return "a NOP already (another tool changed it)";
	} else if ((thumb && (h1 & T_BKPT_MASK) == T_BKPT) || (arm && (i & ARM_BKPT_MASK) == ARM_BKPT)) {
		return "a breakpoint (a debugger or another tool changed it)";
	} else if (!thumb && !arm) {
		return "not after push {lr} (not a __gnu_mcount_nc call site)";
	} else {
		return "not a call instruction";
	}
	if (!hook_target(o, s->target))
		return "a call to something other than the hook";
	int lr_at;
	int frame = frame_of(o, a - (s->form == FORM_THUMB ? 2 : 4), s->form == FORM_THUMB, &lr_at);
	s->framed = frame >= 0;
	s->nohook = frame < 0;
	s->frame = frame < 0 ? 0 : (uint16_t)frame;
	s->lr_at = (uint16_t)lr_at;
	return NULL;
}

static void arm_bytes(const struct mt_site *s, enum mt_state st, unsigned char *out)
{
	static const uint32_t arm_nop = ARM_POP_LR;
	static const uint16_t thumb_nop[2] = { T_POP_LR_1, T_POP_LR_2 };
	if (st == MT_CALL)
		memcpy(out, s->orig, 4);
	else if (s->form == FORM_THUMB)
		memcpy(out, thumb_nop, 4);
	else
		memcpy(out, &arm_nop, 4);
}

/* The written range's data cache cleaned and instruction cache
 * invalidated (the kernel does it for every CPU); the return from the
 * system call synchronises this thread's context.  The other threads
 * are held off the fenced pages until after this (patch.c). */
static MT_FENCE_TEXT void arm_sync_self(uintptr_t lo, uintptr_t hi)
{
	if (lo < hi)
		mt_raw6(__ARM_NR_cacheflush, (long)lo, (long)hi, 0, 0, 0, 0);
}

/* The library's unwind tables (the unwinder goes through its wrappers'
 * frames, control.c) name the EHABI's compact personality routines for
 * the static linker only, which would tie every program that uses the
 * library, preloaded or linked in, to libgcc_s: they are defined here,
 * weak (a static link's unwinder, if it has one, comes first) and
 * hidden.  Nothing calls them: an unwinder interprets a compact entry
 * with its own. */
#define NO_PR(n)                                                                   \
	__attribute__((weak, visibility("hidden"))) void __aeabi_unwind_cpp_pr##n(void); \
	void __aeabi_unwind_cpp_pr##n(void)                                          \
	{                                                                            \
		__builtin_trap();                                                    \
	}
NO_PR(0)
NO_PR(1)
NO_PR(2)

const struct mt_arch mt_arch = {
	.name = "arm",
	.trap_len = 0,
	.fence_pages = true,
	.jump_slot = R_ARM_JUMP_SLOT,
	.glob_dat = R_ARM_GLOB_DAT,
	.func_bits = 1,
	.decode = arm_decode,
	.bytes = arm_bytes,
	.sync_self = arm_sync_self,
};
