/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arch-x86.c - the bytes of an x86 call site: x86_64 and i386.
 *
 * The forms a table entry may point at are the rows of x86_forms below,
 * the same as src/arch.c's x86_64 and i386 rows and their linker-made
 * forms (t/71 and the i386 guest read both tables and check that they agree):
 *   e8 rel32          call hook (or its PLT entry)              5 bytes
 *   x86_64:
 *   ff 15 disp32      call *hook@GOTPCREL(%rip)  (PIE, -fno-plt) 6 bytes
 *   i386:
 *   ff 9r disp32      call *hook@GOT(%reg)  (PIC, PIE)           6 bytes
 *                     disp32 is the slot's offset from the GOT's base
 *                     (_GLOBAL_OFFSET_TABLE_, which %reg holds)
 *   both:
 *   67 e8 rel32       the GOT call relaxed by the linker (addr32 call,
 *                     on i386 an addr16 prefix, which a call ignores)
 *   90 e8 rel32       the same relaxed with -z call-nop=prefix-0x90
 * (-z call-nop=suffix-nop's `e8 rel32 90` is an e8 site: its last byte
 * is a NOP already) and the NOPs of the same length that the kernel
 * uses.  The breakpoint is int3; a trap is emulated by skipping the site
 * (NOP) or by pushing the return address and jumping to the call's
 * target (call; a GOT call's target is what its slot holds then).
 *
 * GCC's -mnop-mcount (non-PIC code) writes the 5-byte NOP where the call
 * would be, and -mrecord-mcount records it: such a site is taken
 * switched off, as the kernel takes the NOPs objtool leaves, when it is
 * where GCC puts one: at the function's first instruction (after its
 * endbr), which -mfentry's __fentry__ is called from, or right after
 * the prologue that sets up the frame pointer (past_saves), where mcount
 * is.  Switched
 * on, it is `e8 rel32` to that hook: i386's rel32 reaches the whole
 * address space; on x86_64, when the hook is more than 2 GB away (the
 * library preloaded into a non-PIE program), to a trampoline page mapped
 * within reach that jumps on to it.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <string.h>
#include <ucontext.h>

#include "rt.h"

#if defined(__x86_64__)
#define REG_PC REG_RIP
#define REG_SP REG_RSP
#define X86_NAME "x86_64"
#define X86_JUMP_SLOT R_X86_64_JUMP_SLOT
#define X86_GLOB_DAT R_X86_64_GLOB_DAT
#define X86_ENDBR 0xfa                /* endbr64's last byte */
#elif defined(__i386__)
#define REG_PC REG_EIP
#define REG_SP REG_ESP                /* what the kernel restores (not REG_UESP) */
#define X86_NAME "i386"
#define X86_JUMP_SLOT R_386_JMP_SLOT
#define X86_GLOB_DAT R_386_GLOB_DAT
#define X86_ENDBR 0xfb                /* endbr32's */
#else
#error "arch-x86.c: x86_64 or i386 only"
#endif

/* (FORM_RUN5, FORM_NOP5C and FORM_PREFIX: -fpatchable-function-entry's
 * sites, below) */
enum { FORM_E8, FORM_GOT, FORM_PREFIXED, FORM_RUN5, FORM_NOP5C, FORM_PREFIX };

/* A call form: its first two bytes under a mask, its length and where
 * its 32-bit field is. */
struct x86_form {
	unsigned char op[2], mask[2];
	uint8_t len, field;
	uint8_t form;
};
static const struct x86_form x86_forms[] = {
	{ { 0xe8, 0x00 }, { 0xff, 0x00 }, 5, 1, FORM_E8 },
#if defined(__x86_64__)
	{ { 0xff, 0x15 }, { 0xff, 0xff }, 6, 2, FORM_GOT },
#else
	{ { 0xff, 0x90 }, { 0xff, 0xf8 }, 6, 2, FORM_GOT },
#endif
	{ { 0x67, 0xe8 }, { 0xff, 0xff }, 6, 2, FORM_PREFIXED },
	{ { 0x90, 0xe8 }, { 0xff, 0xff }, 6, 2, FORM_PREFIXED },
};

static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
static const unsigned char nop5c[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x08 };   /* clang's */
static const unsigned char run5[5] = { 0x90, 0x90, 0x90, 0x90, 0x90 };    /* GCC's */
static const unsigned char nop2[2] = { 0x66, 0x90 };
static const unsigned char nop6[6] = { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 };

static int32_t rel32(const unsigned char *p)
{
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* The GOT slot that a jmp or call through memory at p (its ModRM byte
 * at p[1], the 32-bit field at p[2]) reads: x86_64 %rip-relative, i386
 * absolute (mod 00, r/m 101) or relative to the GOT's base in a
 * register (mod 10; not %esp, whose form has a SIB byte); 0 if neither. */
static uintptr_t slot_of(const struct mt_object *o, const unsigned char *p)
{
#if defined(__x86_64__)
	(void)o;
	return (p[1] & 0xc7) == 0x05 ? (uintptr_t)p + 6 + (uintptr_t)(intptr_t)rel32(p + 2) : 0;
#else
	if ((p[1] & 0xc7) == 0x05)
		return (uintptr_t)rel32(p + 2);
	if ((p[1] & 0xc0) == 0x80 && (p[1] & 7) != 4 && o->got)
		return o->got + (uintptr_t)rel32(p + 2);
	return 0;
#endif
}

#if defined(__x86_64__)
#define X86_64 1
#else
#define X86_64 0
#endif

/* The length of the instruction at p, which has avail bytes readable
 * (at most 15 are read): its prefixes, REX, VEX or EVEX, opcode (maps
 * 0f, 0f 38, 0f 3a), ModRM, SIB, displacement and immediate, as the
 * Intel SDM's opcode tables give them; 0 where it needs more than avail
 * bytes or is not an instruction of user code that this knows. */
static unsigned insn_len(const unsigned char *p, size_t avail)
{
	size_t n = avail < 15 ? avail : 15, i = 0;
	bool opsz = false, adsz = false, wide = false, modrm = true;
	unsigned map = 0, imm = 0, op;
#define NEED(k) do { if (i + (k) > n) return 0; } while (0)
	for (;; i++) {
		NEED(1);
		op = p[i];
		if (op == 0x66)
			opsz = true;
		else if (op == 0x67)
			adsz = true;
		else if (op != 0xf0 && op != 0xf2 && op != 0xf3 && op != 0x2e && op != 0x3e && op != 0x26 &&
			 op != 0x36 && op != 0x64 && op != 0x65)
			break;
	}
	if (X86_64 && (op & 0xf0) == 0x40) {            /* REX */
		wide = op & 8;
		i++;
		NEED(1);
		op = p[i];
		if ((op & 0xf0) == 0x40)
			return 0;
	}
	unsigned z = opsz ? 2 : 4;                        /* an immediate of the operand size */
	i++;
	/* VEX (c4, c5) and EVEX (62); in 32-bit code only where the next
	 * byte could not be a ModRM byte of les, lds or bound (mod 11) */
	if ((op == 0xc4 || op == 0xc5 || op == 0x62) && (X86_64 || (i < n && p[i] >= 0xc0))) {
		unsigned len = op == 0xc5 ? 1 : op == 0xc4 ? 2 : 3;
		NEED(len + 1);
		map = op == 0xc5 ? 1 : op == 0xc4 ? p[i] & 0x1f : p[i] & 7;
		i += len;
		op = p[i++];
		if (map == 3 || (map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 || (op >= 0xc4 && op <= 0xc6))))
			imm = 1;
		if (map == 0 || map == 4 || map > 7)
			return 0;
		modrm = !(map == 1 && op == 0x77);            /* vzeroupper, vzeroall */
	} else if (op == 0x0f) {
		NEED(1);
		op = p[i++];
		map = 1;
		if (op == 0x38 || op == 0x3a) {
			NEED(1);
			map = op == 0x38 ? 2 : 3;
			imm = map == 3;
			op = p[i++];
		} else if (op == 0x0f || (op >= 0x70 && op <= 0x73) || op == 0xa4 || op == 0xac || op == 0xba ||
			   op == 0xc2 || (op >= 0xc4 && op <= 0xc6)) {
			imm = 1;
		} else if ((op >= 0x80 && op <= 0x8f)) {
			modrm = false;                        /* jcc rel */
			imm = X86_64 ? 4 : z;
		} else if ((op >= 0x05 && op <= 0x09) || op == 0x0b || op == 0x0e || (op >= 0x30 && op <= 0x37) ||
			   op == 0x77 || (op >= 0xa0 && op <= 0xa2) || (op >= 0xa8 && op <= 0xaa) ||
			   (op >= 0xc8 && op <= 0xcf)) {
			modrm = false;                        /* syscall, cpuid, bswap... */
		}
	} else {
		unsigned lo = op & 7;
		modrm = false;
		if (op < 0x40) {
			if (lo < 4)
				modrm = true;
			else if (lo == 4)
				imm = 1;
			else if (lo == 5)
				imm = z;
			else if (X86_64)
				return 0;                     /* push/pop of a segment, daa...: not in 64-bit code */
		} else if (op < 0x60) {
			;                                     /* inc, dec (32-bit), push, pop */
		} else if (op < 0x70) {
			switch (op) {
			case 0x62: case 0x63: modrm = true; break;    /* bound (32-bit), movsxd/arpl */
			case 0x68: imm = z; break;
			case 0x69: modrm = true; imm = z; break;
			case 0x6a: imm = 1; break;
			case 0x6b: modrm = true; imm = 1; break;
			case 0x60: case 0x61: if (X86_64) return 0; break;
			default: break;                           /* ins, outs */
			}
		} else if (op < 0x80) {
			imm = 1;                              /* jcc rel8 */
		} else if (op < 0x90) {
			modrm = true;
			imm = op == 0x81 ? z : (op == 0x80 || op == 0x82 || op == 0x83);
			if (op == 0x8f && i < n && (p[i] & 0x38))
				return 0;                     /* XOP */
		} else if (op < 0xa0) {
			if (op == 0x9a) {
				if (X86_64)
					return 0;
				imm = z + 2;                  /* call far ptr16:z */
			}
		} else if (op < 0xb0) {
			if (op <= 0xa3)
				imm = X86_64 ? (adsz ? 4 : 8) : (adsz ? 2 : 4);   /* mov moffs */
			else if (op == 0xa8)
				imm = 1;
			else if (op == 0xa9)
				imm = z;
		} else if (op < 0xc0) {
			imm = op < 0xb8 ? 1 : wide ? 8 : z;
		} else {
			switch (op) {
			case 0xc0: case 0xc1: case 0xc6: modrm = true; imm = 1; break;
			case 0xc7: modrm = true; imm = z; break;
			case 0xc4: case 0xc5: modrm = true; break;        /* les, lds (32-bit) */
			case 0xc2: case 0xca: imm = 2; break;
			case 0xc8: imm = 3; break;
			case 0xcd: case 0xd4: case 0xd5: imm = 1; break;
			case 0xd0: case 0xd1: case 0xd2: case 0xd3: modrm = true; break;
			case 0xe0: case 0xe1: case 0xe2: case 0xe3: case 0xe4: case 0xe5: case 0xe6: case 0xe7:
			case 0xeb: imm = 1; break;
			case 0xe8: case 0xe9: imm = X86_64 ? 4 : z; break;
			case 0xea: if (X86_64) return 0; imm = z + 2; break;
			case 0xf6: case 0xf7:
				NEED(1);
				modrm = true;
				if (!(p[i] & 0x30))
					imm = op == 0xf6 ? 1 : z;     /* test $imm */
				break;
			case 0xfe: case 0xff: modrm = true; break;
			default:
				modrm = op >= 0xd8 && op <= 0xdf;  /* x87 */
				break;
			}
		}
	}
	if (modrm) {
		NEED(1);
		unsigned m = p[i++], mod = m >> 6, rm = m & 7;
		if (!X86_64 && adsz) {                     /* 16-bit addressing */
			i += mod == 1 ? 1 : mod == 2 || (mod == 0 && rm == 6) ? 2 : 0;
		} else if (mod != 3) {
			if (rm == 4) {
				NEED(1);
				if (mod == 0 && (p[i] & 7) == 5)
					i += 4;
				i++;
			}
			i += mod == 1 ? 1 : mod == 2 || (mod == 0 && rm == 5) ? 4 : 0;
		}
	}
	i += imm;
	NEED(0);
#undef NEED
	return (unsigned)i;
}

/* Does an instruction start at the site?  Its function's instructions
 * decoded one after another from where the function starts (its
 * symbol, or its frame description in a stripped object) up to it:
 * where GCC and clang put the call (-mfentry's __fentry__ first, after
 * an endbr; mcount's after the prologue, whatever it holds), an
 * instruction ends right there; in the middle of one (the immediate of
 * a movabs that holds the bytes of a call), none does.  The site's own
 * bytes are checked to be in the object's code. */
static const char *x86_placed(const struct mt_site *s, const struct mt_object *o)
{
	uintptr_t a = mt_func_start(o, s->addr);
	if (!a)
		return "in no function that the symbol table or .eh_frame names, or too far into one: "
		       "where its instructions start cannot be told";
	while (a < s->addr) {
		unsigned n = insn_len((const unsigned char *)a, s->addr + 5 - a);
		if (!n)
			break;
		a += n;
	}
	return a == s->addr ? NULL : "not at the start of an instruction (decoded from its function's start)";
}

/* mt_hooks's order (hook-x86_64.S, hook-i386.S) */
enum { HOOK_FENTRY, HOOK_MCOUNT, HOOK__MCOUNT };

static bool endbr_at(const unsigned char *p)
{
	return p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == X86_ENDBR;
}

/* Is a direct call's target a hook: one of ours, a function of the
 * object named like a hook, or a PLT entry that jumps through a GOT slot
 * the dynamic linker fills with a hook? */
static bool hook_target(const struct mt_object *o, uintptr_t t)
{
	if (t == mt_hooks[HOOK_FENTRY] || t == mt_hooks[HOOK_MCOUNT] || t == mt_hooks[HOOK__MCOUNT])
		return true;
	if (mt_is_hook_sym(o, t))
		return true;
	if (!mt_in_plt(o, t) || !mt_in_exec(o, t))
		return false;
	const unsigned char *p = (const unsigned char *)t;
	if (endbr_at(p))
		p += 4;
	if (p[0] == 0xf2)
		p++;                          /* bnd */
	if (p[0] != 0xff || (p[1] & 0x38) != 0x20)
		return false;                 /* not jmp *mem */
	uintptr_t slot = slot_of(o, p);
	return slot && mt_is_hook_slot(o, slot);
}


#if defined(__x86_64__)
#define X86_FRAME "\x55\x48\x89\xe5"    /* push %rbp; mov %rsp, %rbp */
#else
#define X86_FRAME "\x55\x89\xe5"         /* push %ebp; mov %esp, %ebp */
#endif

/* The length of GCC's DRAP lead-in at p (the stack realigned through a
 * register before the frame is set up), or 0:
 *   x86_64  lea 8(%rsp), %r10 (or %r13); and $-N, %rsp; push -8(%r10)
 *   i386    lea 4(%esp), %reg; and $-N, %esp; push -4(%reg)
 * Then the frame's return address is a copy: function_graph must not
 * hijack it (nohook).  It reads 13 bytes. */
static size_t drap_len(const unsigned char *p)
{
#if defined(__x86_64__)
	if (p[0] == 0x4c && p[1] == 0x8d && (p[2] == 0x54 || p[2] == 0x6c) && p[3] == 0x24 && p[4] == 0x08 &&
	    p[5] == 0x48 && p[6] == 0x83 && p[7] == 0xe4 && p[9] == 0x41 && p[10] == 0xff &&
	    p[11] == (p[2] == 0x54 ? 0x72 : 0x75) && p[12] == 0xf8)
		return 13;
#else
	if (p[0] == 0x8d && (p[1] & 0xc7) == 0x44 && p[2] == 0x24 && p[3] == 0x04 && p[4] == 0x83 && p[5] == 0xe4 &&
	    p[7] == 0xff && (p[8] & 0xf8) == 0x70 && (p[8] & 7) == (p[1] >> 3 & 7) && p[9] == 0xfc)
		return 10;
#endif
	return 0;
}

/* The first instruction of the site's function past its endbr, or NULL
 * (no symbol for it, or the site too far into it). */
static const unsigned char *entry_of(const struct mt_site *s, const struct mt_object *o)
{
	uintptr_t f = mt_prologue_of(o, s->addr, 1);
	if (!f || !mt_in_exec(o, f + 4))
		return NULL;
	const unsigned char *p = (const unsigned char *)f;
	return endbr_at(p) ? p + 4 : p;
}

/* The DRAP lead-in's length at the function's entry e for a site after
 * it (mcount's; __fentry__'s is before it, with the real slot), or 0. */
static size_t drap_before(const unsigned char *e, const unsigned char *site)
{
	return e && site - e > 16 ? drap_len(e) : 0;
}

/* Past what GCC's prologue puts between the frame's set-up and the call
 * to mcount (or -mnop-mcount's NOP): pushes of registers, a sub from or
 * an and of the stack pointer; NULL at anything else before end. */
static const unsigned char *past_saves(const unsigned char *p, const unsigned char *end)
{
	while (p < end) {
		if ((p[0] & 0xf8) == 0x50)
			p += 1;                               /* push %reg */
#if defined(__x86_64__)
		else if (p[0] == 0x41 && (p[1] & 0xf8) == 0x50)
			p += 2;                               /* push %r8..%r15 */
		else if (p[0] == 0x48 && p[1] == 0x83 && (p[2] == 0xec || p[2] == 0xe4))
			p += 4;                               /* sub, and $imm8, %rsp */
		else if (p[0] == 0x48 && p[1] == 0x81 && (p[2] == 0xec || p[2] == 0xe4))
			p += 7;                               /* sub, and $imm32, %rsp */
#else
		else if (p[0] == 0x83 && (p[1] == 0xec || p[1] == 0xe4))
			p += 3;                               /* sub, and $imm8, %esp */
		else if (p[0] == 0x81 && (p[1] == 0xec || p[1] == 0xe4))
			p += 6;                               /* sub, and $imm32, %esp */
#endif
		else
			return NULL;
	}
	return p == end ? p : NULL;
}

#if defined(__x86_64__)
/* The trampolines of -mnop-mcount sites beyond rel32's reach of the
 * hook: for __fentry__ at 0 and mcount at 16, `jmp *0(%rip)` (ff 25
 * 00000000), the hook's address, two int3. */
static const unsigned char *x86_tramp_code(void)
{
	static unsigned char code[32];
	if (!code[0]) {
		const uintptr_t hook[2] = { mt_hooks[HOOK_FENTRY], mt_hooks[HOOK_MCOUNT] };
		memset(code, 0xcc, sizeof code);
		for (int i = 0; i < 2; i++) {
			memcpy(code + 16 * i, "\xff\x25\0\0\0\0", 6);
			memcpy(code + 16 * i + 6, &hook[i], sizeof hook[i]);
		}
	}
	return code;
}
#endif

/* The call (e8 rel32) at a to the hook, in call[0..5) and its target
 * in *to: the hook, or on x86_64, where it is beyond rel32's reach, a
 * trampoline mapped within it; false if there is no room for one. */
static bool hook_call_at(uintptr_t a, uintptr_t hook, unsigned char *call, uintptr_t *to)
{
	uintptr_t end = a + 5;
#if defined(__x86_64__)
	if ((intptr_t)(hook - end) != (int32_t)(hook - end)) {
		uintptr_t t = mt_tramp_near(end, INT32_MAX, x86_tramp_code(), 32);
		if (!t)
			return false;
		hook = t + (hook == mt_hooks[HOOK_FENTRY] ? 0 : 16);
	}
#endif
	int32_t rel = (int32_t)(uint32_t)(hook - end);
	*to = hook;
	call[0] = 0xe8;
	memcpy(call + 1, &rel, 4);
	return true;
}

/* A site GCC's -mnop-mcount left: its hook from where it is, its call to
 * it in s->orig, its state MT_NOP; or why it is not one. */
static const char *x86_nop_site(struct mt_site *s, const struct mt_object *o)
{
	static const char other[] = "a NOP already, where -mnop-mcount puts none (another tool changed it)";
	if (!mt_sym_at(o, s->addr))
		return MT_NOP_UNPLACED;
	const char *why = x86_placed(s, o);
	if (why)
		return why;
	const unsigned char *p = entry_of(s, o), *site = (const unsigned char *)s->addr;
	if (!p)
		return other;
	uintptr_t hook = mt_hooks[HOOK_FENTRY];
	if (p != site) {
		/* mcount's: after the frame's set-up and the saves that follow
		 * it, all of them before the site */
		hook = mt_hooks[HOOK_MCOUNT];
		size_t d = drap_before(p, site);
		s->nohook = d > 0;
		p += d;
		if (site - p < (ptrdiff_t)sizeof X86_FRAME - 1 || memcmp(p, X86_FRAME, sizeof X86_FRAME - 1) ||
		    !past_saves(p + sizeof X86_FRAME - 1, site))
			return other;
	}
	if (!hook_call_at(s->addr, hook, s->orig, &s->target))
		return "a -mnop-mcount NOP with no room within 2 GB for a trampoline to the hook";
	s->len = 5;
	s->form = FORM_E8;
	atomic_store_explicit(&s->state, MT_NOP, memory_order_relaxed);
	return NULL;
}

/* -fpatchable-function-entry=N[,M]: the table's entries point M NOPs
 * before each function's symbol (after its endbr where M is 0: GCC and
 * clang put the endbr first).  Two forms are taken, as GCC and clang
 * emit them:
 *   N=5, M=0: the site is the run at the entry, GCC's five 0x90 (raw:
 *     made one 5-byte NOP, 0f 1f 44 00 00, once and while no thread can
 *     be inside it: patch.c) or clang's one 5-byte NOP (0f 1f 44 00 08,
 *     kept as its NOP); switched on, `e8 rel32` to __fentry__, as
 *     -mnop-mcount's NOP at an entry is.
 *   M >= 7 NOPs (0x90) before the symbol and two bytes at the entry
 *     (GCC's 90 90, raw: made one 66 90; clang's 66 90), openSUSE's
 *     16,14: the site is the two bytes at the entry, switched on `jmp
 *     rel8` (eb) back to the NOPs, where `call __fentry__; jmp` the
 *     entry's end (e8 rel32, eb rel8) is written once before the site is
 *     first changed; the hook returns into the NOPs (s->ret_at), its
 *     stack as __fentry__'s.
 * The entry's bytes must be exactly those, and a prefix form's the
 * entry's two bytes and no NOP after them (N - M other than 2 is not
 * taken); anything else is refused. */
static const char *x86_patchable(struct mt_site *s, const struct mt_object *o)
{
	const unsigned char *p = (const unsigned char *)s->addr;
	/* (where functions start: their symbols, or in a stripped object
	 * their frame descriptions) */
	uintptr_t fs = mt_func_start(o, s->addr);
	if (fs && (s->addr == fs || (s->addr == fs + 4 && endbr_at((const unsigned char *)fs)))) {
		if (!memcmp(p, run5, 5))
			s->form = FORM_RUN5;
		else if (!memcmp(p, nop5c, 5))
			s->form = FORM_NOP5C;
		else
			return "NOPs at a function's entry that are not -fpatchable-function-entry=5's";
		if (!hook_call_at(s->addr, mt_hooks[HOOK_FENTRY], s->orig, &s->target))
			return "a -fpatchable-function-entry NOP with no room within 2 GB for a trampoline to the hook";
		s->len = 5;
		s->raw = s->form == FORM_RUN5;
		atomic_store_explicit(&s->state, MT_NOP, memory_order_relaxed);
		return NULL;
	}
	/* (GCC's entry is 90 90 too: the function is the first to start
	 * after 0x90s) */
	uintptr_t f = 0;
	for (size_t m = 0; m < 120 && mt_in_exec(o, s->addr + m + 1) && p[m] == 0x90 && !f; m++)
		if (m >= 6 && mt_func_start(o, s->addr + m + 1) == s->addr + m + 1)
			f = s->addr + m + 1;
	if (!f)
		return "NOPs that do not end at a function's start, 7 bytes or more after the entry";
	uintptr_t e = f + (endbr_at((const unsigned char *)f) ? 4 : 0);
	const unsigned char *q = (const unsigned char *)e;
	if (!mt_in_exec(o, e + 3) || (memcmp(q, nop2, 2) && memcmp(q, run5, 2)) || q[2] == 0x90 ||
	    e + 2 - s->addr > 128)
		return "a -fpatchable-function-entry prefix whose entry is not two bytes of NOP";
	uintptr_t t;
	unsigned char call[5];
	if (!hook_call_at(s->addr, mt_hooks[HOOK_FENTRY], call, &t))
		return "a -fpatchable-function-entry NOP with no room within 2 GB for a trampoline to the hook";
	s->raw = true;
	s->target = t;
	s->ret_at = (int8_t)-(intptr_t)(e - (s->addr + 5));
	s->orig[0] = 0xeb;
	s->orig[1] = (unsigned char)(int8_t)-(intptr_t)(e + 2 - s->addr);
	s->addr = e;
	s->len = 2;
	s->form = FORM_PREFIX;
	atomic_store_explicit(&s->state, MT_NOP, memory_order_relaxed);
	return NULL;
}

/* What is written once before a raw site is first changed (mt_arch.prep):
 * GCC's run made one NOP (quiet), and a prefix form's call and jump,
 * written before that (no thread runs them until the site jumps there). */
static unsigned x86_prep(const struct mt_site *s, struct mt_prep *out)
{
	unsigned n = 0;
	const unsigned char *p = (const unsigned char *)s->addr;
	if (s->form == FORM_PREFIX) {
		uintptr_t pre = s->addr + 2 + (uintptr_t)(intptr_t)(int8_t)s->orig[1];
		out[n] = (struct mt_prep){ .at = pre, .n = 7 };
		out[n].b[0] = 0xe8;
		int32_t rel = (int32_t)(uint32_t)(s->target - (pre + 5));
		memcpy(out[n].b + 1, &rel, 4);
		out[n].b[5] = 0xeb;
		out[n].b[6] = (unsigned char)(int8_t)(s->addr + 2 - (pre + 7));
		n++;
		if (!memcmp(p, run5, 2)) {
			out[n] = (struct mt_prep){ .at = s->addr, .n = 2, .quiet = true };
			memcpy(out[n].b, nop2, 2);
			n++;
		}
	} else if (s->form == FORM_RUN5) {
		out[n] = (struct mt_prep){ .at = s->addr, .n = 5, .quiet = true };
		memcpy(out[n].b, nop5, 5);
		n++;
	}
	return n;
}

static const char *x86_decode(struct mt_site *s, const struct mt_object *o)
{
	const unsigned char *p = (const unsigned char *)s->addr;
	if (!mt_in_exec(o, s->addr) || !mt_in_exec(o, s->addr + 5))
		return "not in the object's code";
	const struct x86_form *f = NULL;
	for (size_t i = 0; i < sizeof x86_forms / sizeof x86_forms[0] && !f; i++)
		if ((p[0] & x86_forms[i].mask[0]) == x86_forms[i].op[0] &&
		    (p[1] & x86_forms[i].mask[1]) == x86_forms[i].op[1])
			f = &x86_forms[i];
	if (!f) {
		if (!memcmp(p, nop5, 5))
			return x86_nop_site(s, o);
		if (p[0] == 0x90 || !memcmp(p, nop5c, 5))
			return x86_patchable(s, o);
		if (!memcmp(p, nop6, 6))
			return "a NOP already (another tool changed it)";
		if (p[0] == 0xcc)
			return "a breakpoint (a debugger or another tool changed it)";
		return "not a call instruction";
	}
	const char *why = x86_placed(s, o);
	if (why)
		return why;
	s->len = f->len;
	s->form = f->form;
	memcpy(s->orig, p, s->len);
	s->nohook = drap_before(entry_of(s, o), p) > 0;
	if (f->form == FORM_GOT) {
		s->target = slot_of(o, p);
		return s->target && mt_is_hook_slot(o, s->target) ? NULL
			: "an indirect call through a GOT slot that holds no hook";
	}
	s->target = s->addr + s->len + (uintptr_t)(intptr_t)rel32(p + f->field);
	if (!hook_target(o, s->target))
		return "a call to something other than the hook";
	return NULL;
}

static void x86_bytes(const struct mt_site *s, enum mt_state st, unsigned char *out)
{
	if (st == MT_CALL) {
		memcpy(out, s->orig, s->len);
	} else if (st == MT_OWN) {
		/* (a 6-byte site: addr32 call, as ld relaxes a call through
		 * the GOT to a direct one; the prefix changes nothing) */
		int32_t rel = (int32_t)(uint32_t)(s->own - (s->addr + s->len));
		unsigned k = s->len - 5;
		out[0] = 0x67;
		out[k] = 0xe8;
		memcpy(out + k + 1, &rel, 4);
	} else if (s->form == FORM_PREFIX) {
		memcpy(out, nop2, 2);
	} else {
		memcpy(out, s->form == FORM_NOP5C ? nop5c : s->len == 5 ? nop5 : nop6, s->len);
	}
}

/* cpuid serialises.  (An iret to the next instruction, as the kernel's
 * sync_core does, would take tens of nanoseconds where cpuid traps to a
 * hypervisor, about a microsecond: but under qemu's x86_64 with 5-level
 * page tables a process that did it was killed, t/79's la57 guest, and
 * a thread with a CET shadow stack would fault on it.) */
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
	return (uintptr_t)uc->uc_mcontext.gregs[REG_PC] - 1;
}

static void x86_emulate(const struct mt_site *s, enum mt_state st, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	if (st == MT_NOP) {
		g[REG_PC] = (greg_t)(s->addr + s->len);
		return;
	}
	if (st == MT_CALL && s->form == FORM_PREFIX) {
		g[REG_PC] = (greg_t)(s->addr + 2 + (uintptr_t)(intptr_t)(int8_t)s->orig[1]);   /* jmp rel8 */
		return;
	}
	uintptr_t to = st == MT_OWN ? s->own : s->target;
	if (st == MT_CALL && s->form == FORM_GOT)
		to = *(const uintptr_t *)s->target;
	g[REG_SP] -= (greg_t)sizeof(uintptr_t);
	*(uintptr_t *)g[REG_SP] = s->addr + s->len;
	g[REG_PC] = (greg_t)to;
}

/* The site is its function's first instruction (after an endbr):
 * -mfentry's __fentry__, called before the function has touched its
 * stack or its registers. */
static bool x86_at_entry(const struct mt_site *s, uintptr_t func)
{
	return s->addr == func || (s->addr == func + 4 && endbr_at((const unsigned char *)func));
}

#if defined(__x86_64__)
/* A function's own trampoline: at a call at its entry (-mfentry: the
 * stub and mt_own_tramp find the function's return address where
 * __fentry__ does), which becomes a call of the stub (e8 rel32, or
 * 67 e8 rel32 in 6 bytes), one instruction as the call and the NOP are.  The region: `jmp *0(%rip)` and
 * mt_own_tramp's address; then a stub a function, `mov $index, %r11d`
 * (41 bb imm32: %r11 is free at a call), `jmp` (e9 rel32) straight to
 * mt_own_tramp where it is in reach (the library linked into the
 * program), else to the head, int3s. */
#define X86_OWN_HEAD 16
#define X86_OWN_STRIDE 16
static bool x86_own_fits(const struct mt_site *s, uintptr_t func)
{
	return (s->len == 5 || s->len == 6) && x86_at_entry(s, func);
}

static void x86_own_region(unsigned char *out, uintptr_t at, uint32_t first, uint32_t n)
{
	uintptr_t tramp = (uintptr_t)mt_own_tramp;
	memset(out, 0xcc, X86_OWN_HEAD + (size_t)n * X86_OWN_STRIDE);
	memcpy(out, "\xff\x25\0\0\0\0", 6);
	memcpy(out + 6, &tramp, sizeof tramp);
	for (uint32_t i = 0; i < n; i++) {
		unsigned char *p = out + X86_OWN_HEAD + (size_t)i * X86_OWN_STRIDE;
		uint32_t index = first + i;
		uintptr_t next = at + (uintptr_t)(p - out) + 11;
		intptr_t d = (intptr_t)(tramp - next);
		int32_t rel = d >= INT32_MIN && d <= INT32_MAX ? (int32_t)d : (int32_t)(intptr_t)(at - next);
		p[0] = 0x41;
		p[1] = 0xbb;
		memcpy(p + 2, &index, 4);
		p[6] = 0xe9;
		memcpy(p + 7, &rel, 4);
	}
}
#endif

const struct mt_arch mt_arch = {
	.name = X86_NAME,
	.at_entry = x86_at_entry,
#if defined(__x86_64__)
	.own_fits = x86_own_fits,
	.own_region = x86_own_region,
	.own_head = X86_OWN_HEAD,
	.own_stride = X86_OWN_STRIDE,
	.own_reach = INT32_MAX - 64,
#endif
	.trap = { 0xcc },
	.trap_len = 1,
	.jump_slot = X86_JUMP_SLOT,
	.glob_dat = X86_GLOB_DAT,
	.hook_names = (const char *const[]){ "__fentry__", "mcount", "_mcount", NULL },  /* (HOOK_*) */
	.decode = x86_decode,
	.bytes = x86_bytes,
	.sync_self = x86_sync_self,
	.trap_site = x86_trap_site,
	.emulate = x86_emulate,
	.prep = x86_prep,
};
