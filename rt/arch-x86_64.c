/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arch-x86_64.c - the bytes of an x86_64 call site.
 *
 * The forms a table entry may point at (the same as src/arch.c's x86_64
 * row and its linker-made forms; t/71 checks the two agree):
 *   e8 rel32          call hook (or its PLT entry)              5 bytes
 *   ff 15 disp32      call *hook@GOTPCREL(%rip)  (PIE, -fno-plt) 6 bytes
 *   67 e8 rel32       the same relaxed by the linker (addr32 call) 6 bytes
 *   90 e8 rel32       the same relaxed with -z call-nop=prefix-0x90 6 bytes
 * (-z call-nop=suffix-nop's `e8 rel32 90` is an e8 site: its last byte
 * is a NOP already) and the NOPs of the same length that the kernel uses.  The breakpoint
 * is int3; a trap is emulated by skipping the site (NOP) or by pushing
 * the return address and jumping to the call's target (call).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <string.h>
#include <ucontext.h>

#include "rt.h"

enum { FORM_E8, FORM_GOT, FORM_PREFIXED };

static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
static const unsigned char nop6[6] = { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 };

static int32_t rel32(const unsigned char *p)
{
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

extern void __fentry__(void), mcount(void), _mcount(void);

/* Is a direct call's target a hook: one of ours, a function of the
 * object named like a hook, or a PLT entry that jumps through a GOT slot
 * the dynamic linker fills with a hook? */
static bool hook_target(const struct mt_object *o, uintptr_t t)
{
	if (t == (uintptr_t)__fentry__ || t == (uintptr_t)mcount || t == (uintptr_t)_mcount)
		return true;
	const struct mt_sym *sym = mt_sym_at(o, t);
	if (sym && sym->addr == t && mt_is_hook_name(sym->name))
		return true;
	if (!mt_in_plt(o, t) || !mt_in_exec(o, t))
		return false;
	const unsigned char *p = (const unsigned char *)t;
	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		p += 4;                       /* endbr64 */
	if (p[0] == 0xf2)
		p++;                          /* bnd */
	if (p[0] != 0xff || p[1] != 0x25)
		return false;
	return mt_is_hook_slot(o, (uintptr_t)p + 6 + rel32(p + 2));
}

static const char *x86_decode(struct mt_site *s, const struct mt_object *o)
{
	const unsigned char *p = (const unsigned char *)s->addr;
	if (!mt_in_exec(o, s->addr) || !mt_in_exec(o, s->addr + 5))
		return "not in the object's code";
	if (p[0] == 0xe8) {
		s->len = 5;
		s->form = FORM_E8;
		s->target = s->addr + 5 + rel32(p + 1);
	} else if ((p[0] == 0x67 || p[0] == 0x90) && p[1] == 0xe8) {
		s->len = 6;
		s->form = FORM_PREFIXED;
		s->target = s->addr + 6 + rel32(p + 2);
	} else if (p[0] == 0xff && p[1] == 0x15) {
		s->len = 6;
		s->form = FORM_GOT;
		s->target = s->addr + 6 + rel32(p + 2);
		memcpy(s->orig, p, 6);
		return mt_is_hook_slot(o, s->target) ? NULL
			: "an indirect call through a GOT slot that holds no hook";
	} else if (!memcmp(p, nop5, 5) || !memcmp(p, nop6, 6)) {
		return "a NOP already (another tool changed it, or it was built with -mnop-mcount)";
	} else if (p[0] == 0xcc) {
		return "a breakpoint (a debugger or another tool changed it)";
	} else {
		return "not a call instruction";
	}
	memcpy(s->orig, p, s->len);
	return hook_target(o, s->target) ? NULL : "a call to something other than the hook";
}

static void x86_bytes(const struct mt_site *s, enum mt_state st, unsigned char *out)
{
	if (st == MT_CALL)
		memcpy(out, s->orig, s->len);
	else
		memcpy(out, s->len == 5 ? nop5 : nop6, s->len);
}

/* cpuid serialises; iretq would be cheaper where cpuid traps to a
 * hypervisor, but a patch pass happens rarely. */
static void x86_sync_self(uintptr_t lo, uintptr_t hi)
{
	(void)lo;
	(void)hi;
	unsigned a = 0, b, c = 0, d;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d) : : "memory");
}

static uintptr_t x86_trap_site(const void *ucv)
{
	const ucontext_t *uc = ucv;
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP] - 1;
}

static void x86_emulate(const struct mt_site *s, enum mt_state st, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	if (st == MT_NOP) {
		g[REG_RIP] = (greg_t)(s->addr + s->len);
		return;
	}
	uintptr_t to = s->target;
	if (s->form == FORM_GOT)
		to = *(const uintptr_t *)s->target;
	g[REG_RSP] -= 8;
	*(uintptr_t *)g[REG_RSP] = s->addr + s->len;
	g[REG_RIP] = (greg_t)to;
}

const struct mt_arch mt_arch = {
	.name = "x86_64",
	.trap = { 0xcc },
	.trap_len = 1,
	.jump_slot = R_X86_64_JUMP_SLOT,
	.glob_dat = R_X86_64_GLOB_DAT,
	.decode = x86_decode,
	.bytes = x86_bytes,
	.sync_self = x86_sync_self,
	.trap_site = x86_trap_site,
	.emulate = x86_emulate,
};
