/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arch.c - the per-architecture table (see arch.h). */
#include "arch.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

#define NFORMS(f) (sizeof(f) / sizeof((f)[0]))

/* A call form's trailing fields (kind, span, check_at) are zero unless a
 * row says otherwise: leaving them out is the point, not an oversight. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* x86: `call rel32` is e8 + 4-byte field; `call *disp32(%rip)` is ff 15 +
 * field (PIE/PIC, -mno-plt); i386 `call *sym@GOT(%reg)` is ff 9x + field. */
static const char *const x86_hooks[] = { "mcount", "__fentry__", NULL };

/* In a linked image (--linked) a GOT call to a hook the link defines is
 * relaxed to a direct call of the same length, its relocation kept as
 * R_X86_64_PC32 / R_386_PC32 by ld.bfd and as the GOT type by gold and
 * lld: `67 e8` (addr32 call, the default), `90 e8` with -z
 * call-nop=prefix-0x90 (prefix-nop too), or `e8 rel32 90` with
 * suffix-nop, whose relocation moves back one byte: that is the plain
 * `e8` form.  A plain e8 call keeps its PLT32 or PC32. */
#define X86_LINKER_MADE \
	{ NULL, 2, 6, { 0x67, 0xe8 }, { 0xff, 0xff }, 2, .linker_made = true }, \
	{ NULL, 2, 6, { 0x90, 0xe8 }, { 0xff, 0xff }, 2, .linker_made = true, .call_at = 1 }

static const struct call_form x86_64_forms[] = {
	{ "R_X86_64_PLT32",     1, 5, { 0xe8 }, { 0xff }, 1 },
	{ "R_X86_64_PC32",      1, 5, { 0xe8 }, { 0xff }, 1 },
	{ "R_X86_64_GOTPCRELX", 2, 6, { 0xff, 0x15 }, { 0xff, 0xff }, 2 },
	{ "R_X86_64_GOTPCREL",  2, 6, { 0xff, 0x15 }, { 0xff, 0xff }, 2 },
	X86_LINKER_MADE,
};

static const struct call_form i386_forms[] = {
	{ "R_386_PC32",   1, 5, { 0xe8 }, { 0xff }, 1 },
	{ "R_386_PLT32",  1, 5, { 0xe8 }, { 0xff }, 1 },
	{ "R_386_GOT32X", 2, 6, { 0xff, 0x90 }, { 0xff, 0xf8 }, 2 },
	{ "R_386_GOT32",  2, 6, { 0xff, 0x90 }, { 0xff, 0xf8 }, 2 },
	X86_LINKER_MADE,
};

/* Their numbers (the x86-64 and i386 psABIs). */
static const struct reloc_name x86_64_relocs[] = {
	{ 2, "R_X86_64_PC32" }, { 4, "R_X86_64_PLT32" }, { 9, "R_X86_64_GOTPCREL" },
	{ 41, "R_X86_64_GOTPCRELX" }, { 0, NULL },
};

static const struct reloc_name i386_relocs[] = {
	{ 2, "R_386_PC32" }, { 3, "R_386_GOT32" }, { 4, "R_386_PLT32" }, { 43, "R_386_GOT32X" },
	{ 0, NULL },
};

/* Below, one form per line: relocation, field offset, length, opcode and
 * mask (in the object's byte order), opcode bytes checked; then
 * .kind/.span for a relocation that accompanies a site, .check_at for an
 * opcode that is not at the entry. */

/* aarch64: `bl _mcount` (after `mov x0, x30`); the kernel's entry is the bl. */
static const char *const mcount_u_hooks[] = { "_mcount", NULL };
static const struct call_form aarch64_forms[] = {
	{ "R_AARCH64_CALL26", 0, 4, { 0, 0, 0, 0x94 }, { 0, 0, 0, 0xfc }, 4 },
};
static const struct reloc_name aarch64_relocs[] = { { 283, "R_AARCH64_CALL26" }, { 0, NULL } };

/* arm: `push {lr}; bl __gnu_mcount_nc` in ARM (R_ARM_CALL, old R_ARM_PC24)
 * or Thumb-2 (R_ARM_THM_CALL, a 32-bit bl/blx); the entry is the bl.  A
 * Thumb anchor has bit 0 set, so its entries do too (see doc/architectures.md). */
static const char *const arm_hooks[] = { "__gnu_mcount_nc", "mcount", NULL };
static const struct call_form arm_forms[] = {
	{ "R_ARM_THM_CALL", 0, 4, { 0, 0xf0, 0, 0xc0 }, { 0, 0xf8, 0, 0xc0 }, 4 },
	{ "R_ARM_CALL",     0, 4, { 0, 0, 0, 0x0b }, { 0, 0, 0, 0x0f }, 4 },
	{ "R_ARM_PC24",     0, 4, { 0, 0, 0, 0x0b }, { 0, 0, 0, 0x0f }, 4 },
};
static const struct reloc_name arm_relocs[] = {
	{ 1, "R_ARM_PC24" }, { 10, "R_ARM_THM_CALL" }, { 28, "R_ARM_CALL" }, { 0, NULL },
};

/* riscv: `call _mcount` = auipc ra + jalr ra, one relocation (plus an
 * R_RISCV_RELAX against *ABS*) on the auipc; the entry is the auipc. */
static const char *const riscv_hooks[] = { "_mcount", "mcount", NULL };
static const struct call_form riscv_forms[] = {
	{ "R_RISCV_CALL_PLT", 0, 8, { 0x17 }, { 0x7f }, 1, .linked = "named-end" },
	{ "R_RISCV_CALL",     0, 8, { 0x17 }, { 0x7f }, 1, .linked = "named-end" },
	/* a relaxing link turns the pair into `jal ra, HOOK` (a 4-byte jal,
	 * rd = ra), keeping R_RISCV_JAL on it (and an R_RISCV_NONE against
	 * *ABS* after it); linked with --no-relax, the pair keeps its type */
	{ "R_RISCV_JAL",      0, 4, { 0xef, 0x00 }, { 0xff, 0x0f }, 2, .linker_made = true },
};
static const struct reloc_name riscv_relocs[] = {
	{ 17, "R_RISCV_JAL" }, { 18, "R_RISCV_CALL" }, { 19, "R_RISCV_CALL_PLT" }, { 0, NULL },
};

/* powerpc: `bl _mcount` (opcode 18, AA=0, LK=1); the entry is the bl. */
static const char *const ppc64_hooks[] = { "_mcount", "._mcount", NULL };
static const struct call_form ppc64le_forms[] = {
	{ "R_PPC64_REL24",       0, 4, { 0x01, 0, 0, 0x48 }, { 0x03, 0, 0, 0xfc }, 4 },
	{ "R_PPC64_REL24_NOTOC", 0, 4, { 0x01, 0, 0, 0x48 }, { 0x03, 0, 0, 0xfc }, 4 },
};
static const struct call_form ppc64_forms[] = {
	{ "R_PPC64_REL24",       0, 4, { 0x48, 0, 0, 0x01 }, { 0xfc, 0, 0, 0x03 }, 4 },
	{ "R_PPC64_REL24_NOTOC", 0, 4, { 0x48, 0, 0, 0x01 }, { 0xfc, 0, 0, 0x03 }, 4 },
};
static const struct call_form ppc32_forms[] = {
	{ "R_PPC_REL24",    0, 4, { 0x48, 0, 0, 0x01 }, { 0xfc, 0, 0, 0x03 }, 4 },
	{ "R_PPC_PLTREL24", 0, 4, { 0x48, 0, 0, 0x01 }, { 0xfc, 0, 0, 0x03 }, 4 },
};
static const struct reloc_name ppc64_relocs[] = {
	{ 10, "R_PPC64_REL24" }, { 116, "R_PPC64_REL24_NOTOC" }, { 0, NULL },
};
static const struct reloc_name ppc32_relocs[] = {
	{ 10, "R_PPC_REL24" }, { 18, "R_PPC_PLTREL24" }, { 0, NULL },
};

/* s390x: `brasl %rN,HOOK` (c0 N5), the field at +2 (addend +2).  With
 * -mfentry the entry is the brasl %r0,__fentry__ at the function's start;
 * _mcount's sequence is `stg %r14,8(%r15); brasl %r14,_mcount;
 * lg %r14,8(%r15)` and the entry is the stg, where the sequence starts
 * (GCC's own -mrecord-mcount table and the kernel's C recordmcount, whose
 * adjustment of -14 covered an older sequence with a larl in it).
 * Checked there: the end of the stg (00 24) and brasl %r14 (c0 e5). */
static const char *const s390_hooks[] = { "_mcount", "__fentry__", NULL };
static const struct call_form s390x_forms[] = {
	{ "R_390_PLT32DBL", 2, 6, { 0x00, 0x24, 0xc0, 0xe5 }, { 0xff, 0xff, 0xff, 0xff }, 4,
	  .lead = 6, .check_at = { 4 }, .hook = "_mcount" },
	{ "R_390_PC32DBL",  2, 6, { 0x00, 0x24, 0xc0, 0xe5 }, { 0xff, 0xff, 0xff, 0xff }, 4,
	  .lead = 6, .check_at = { 4 }, .hook = "_mcount" },
	{ "R_390_PLT32DBL", 2, 6, { 0xc0, 0x05 }, { 0xff, 0x0f }, 2, .hook = "__fentry__" },
	{ "R_390_PC32DBL",  2, 6, { 0xc0, 0x05 }, { 0xff, 0x0f }, 2, .hook = "__fentry__" },
};
static const struct reloc_name s390x_relocs[] = {
	{ 19, "R_390_PC32DBL" }, { 20, "R_390_PLT32DBL" }, { 0, NULL },
};

/* mips: the entry is the first instruction of the call sequence that
 * carries a relocation against _mcount (the kernel's convention for jal
 * and for -mlong-calls' lui): jal (R_MIPS_26); lui of HI16 (o32) or
 * HIGHEST (n64) with the rest of the address as companions; the GOT load
 * of CALL16 / GOT16 (abicalls), with R_MIPS_JALR on the jalr as companion. */
#define MIPS_BE(op, mask) { op, 0, 0, 0 }, { mask, 0, 0, 0 }, 4
#define MIPS_LE(op, mask) { 0, 0, 0, op }, { 0, 0, 0, mask }, 4
/* a load based on gp ($28): the opcode's byte, then the base register's
 * low bits at the top of the next (a load elsewhere with the same
 * offset, from another base, is no GOT load of the hook) */
#define MIPS_GP_BE(op) { (op) | 3, 0x80, 0, 0 }, { 0xff, 0xe0, 0, 0 }, 4
#define MIPS_GP_LE(op) { 0, 0, 0x80, (op) | 3 }, { 0, 0, 0xe0, 0xff }, 4
#define MIPS_COMPANION(r, most) { r, 0, 4, { 0 }, { 0 }, 0, .kind = FORM_COMPANION, .span = most }
/* in a linked file: the address's parts in the low 16 bits (abs16:N),
 * the GOT load's offset from _gp (gprel:_gp) */
#define MIPS_ABS_COMPANION(r, most, n) { r, 0, 4, { 0 }, { 0 }, 0, .kind = FORM_COMPANION, \
	.span = most, .linked = "abs16:" #n }
static const struct call_form mips_forms[] = {
	{ "R_MIPS_26",     0, 4, MIPS_BE(0x0c, 0xfc) },   /* jal */
	{ "R_MIPS_HI16",   0, 4, MIPS_BE(0x3c, 0xfc), .linked = "abs16:16" },   /* lui */
	{ "R_MIPS_CALL16", 0, 4, MIPS_GP_BE(0x8c), .linked = "gprel:_gp" },   /* lw from the GOT */
	{ "R_MIPS_GOT16",  0, 4, MIPS_GP_BE(0x8c), .linked = "gprel:_gp" },
	MIPS_ABS_COMPANION("R_MIPS_LO16", 16, 0),
	MIPS_COMPANION("R_MIPS_JALR", 16),
};
static const struct call_form mipsel_forms[] = {
	{ "R_MIPS_26",     0, 4, MIPS_LE(0x0c, 0xfc) },
	{ "R_MIPS_HI16",   0, 4, MIPS_LE(0x3c, 0xfc), .linked = "abs16:16" },
	{ "R_MIPS_CALL16", 0, 4, MIPS_GP_LE(0x8c), .linked = "gprel:_gp" },
	{ "R_MIPS_GOT16",  0, 4, MIPS_GP_LE(0x8c), .linked = "gprel:_gp" },
	MIPS_ABS_COMPANION("R_MIPS_LO16", 16, 0),
	MIPS_COMPANION("R_MIPS_JALR", 16),
};
static const struct call_form mips64el_forms[] = {
	{ "R_MIPS_26",       0, 4, MIPS_LE(0x0c, 0xfc) },   /* jal */
	{ "R_MIPS_HIGHEST",  0, 4, MIPS_LE(0x3c, 0xfc), .linked = "abs16:48" },   /* lui */
	{ "R_MIPS_CALL16",   0, 4, MIPS_GP_LE(0xdc), .linked = "gprel:_gp" },   /* ld from the GOT */
	{ "R_MIPS_GOT_DISP", 0, 4, MIPS_GP_LE(0xdc), .linked = "gprel:_gp" },
	MIPS_ABS_COMPANION("R_MIPS_HIGHER", 24, 32),
	MIPS_ABS_COMPANION("R_MIPS_HI16", 24, 16),
	MIPS_ABS_COMPANION("R_MIPS_LO16", 24, 0),
	MIPS_COMPANION("R_MIPS_JALR", 16),
};
static const struct reloc_name mips_relocs[] = {
	{ 4, "R_MIPS_26" }, { 5, "R_MIPS_HI16" }, { 6, "R_MIPS_LO16" }, { 9, "R_MIPS_GOT16" },
	{ 11, "R_MIPS_CALL16" }, { 19, "R_MIPS_GOT_DISP" }, { 28, "R_MIPS_HIGHER" },
	{ 29, "R_MIPS_HIGHEST" }, { 37, "R_MIPS_JALR" }, { 0, NULL },
};

/* sparc64: `call _mcount` (op 01) after the save; the entry is the call. */
static const struct call_form sparc64_forms[] = {
	{ "R_SPARC_WPLT30",  0, 4, { 0x40 }, { 0xc0 }, 1 },
	{ "R_SPARC_WDISP30", 0, 4, { 0x40 }, { 0xc0 }, 1 },
};
static const struct reloc_name sparc64_relocs[] = {
	{ 7, "R_SPARC_WDISP30" }, { 18, "R_SPARC_WPLT30" }, { 0, NULL },
};

/* sh: `mov.l 1f,r1; sts.l pr,@-r15; mova 2f,r0; jmp @r1; lds r0,pr;
 * .align 2; 1: .long mcount; 2:` - the relocation is on the literal word,
 * and that word is the entry (the kernel's convention: ftrace rewrites
 * it).  Checked: `jmp @rN; lds r0,pr` ends 2 (or, with the alignment
 * nop, 4) bytes before it. */
static const char *const sh_hooks[] = { "mcount", NULL };
static const struct call_form sh4_forms[] = {
	{ "R_SH_DIR32", 0, 4, { 0x2b, 0x40, 0x2a, 0x40 }, { 0xff, 0xf0, 0xff, 0xff }, 4,
	  .check_at = { -6, -4 }, .ncheck = 2, .linked = "word" },
	/* -fPIC: the word holds mcount@GOT (a GOTPC word follows it) */
	{ "R_SH_GOT32", 0, 4, { 0x2b, 0x40, 0x2a, 0x40 }, { 0xff, 0xf0, 0xff, 0xff }, 4,
	  .check_at = { -6, -4 }, .ncheck = 2, .linked = "got:_GLOBAL_OFFSET_TABLE_" },
};
static const struct reloc_name sh4_relocs[] = {
	{ 1, "R_SH_DIR32" }, { 160, "R_SH_GOT32" }, { 0, NULL },
};


/* The compiler's own table (mcount-cc's MCOUNT_CC_MODE=compiler), the
 * Linux kernel's choices where it has them: aarch64 two NOPs at the
 * entry, riscv64 8 bytes of them, s390x GCC's -mnop-mcount with its own
 * __mcount_loc.  x86_64: five bytes of NOPs at the entry, where a call
 * fits (GCC writes five one-byte NOPs, clang one NOP of five bytes):
 * GCC's -mnop-mcount, which would write the single NOP the kernel's
 * objtool leaves, refuses -fPIC and -fPIE, and clang has it on s390x
 * only.  The NOPs of a patchable area: x86's as GCC and clang pad with
 * them (66 90, 0f 1f /0 with its ModRM forms, a 66 or cs prefix),
 * aarch64's nop, riscv's nop and c.nop, powerpc's ori 0,0,0, s390's
 * nopr (bcr 0,%r0). */
#define X86_NOPS "662e0f1f8400........ 660f1f8400........ 0f1f8400........ 0f1f80........ " \
	"660f1f4400.. 0f1f4400.. 0f1f40.. 0f1f00 6690 90"

static const struct arch arches[] = {
	{
		.name = "x86_64", .kernel_arch = "x86_64|x86",
		.elf_machine = 62, .elf_class = 64, .big_endian = false,
		.bfd_format = "elf64-x86-64",
		.hooks = x86_hooks, .forms = x86_64_forms, .nforms = NFORMS(x86_64_forms),
		.reloc_names = x86_64_relocs, .word_reloc = 1 /* R_X86_64_64 */, .rela = true,
		.entry_directive = ".quad", .entry_size = 8, .type_prefix = '@',
		.ld_emulation = "elf_x86_64", .cc_flag = "-m64", .as_flag = "--64",
		.triple = "x86_64-linux-gnu",
		.driver_as = true, .driver_as_unless = "-m16 -msse2avx",
		.as_flag_family = "--32 --64 --x32", .cc_flag_family = "-m32 -m64 -mx32",
		.entry_doc = "the first byte of the call (e8, or ff 15 in PIC code)",
		.compiler_nop = "0f1f440000",
		.cc_table_flags = "-fpatchable-function-entry=5,0",
		.patchable_nops = X86_NOPS, .patchable_bytes = true,
	},
	{
		.name = "i386", .kernel_arch = "i386|x86",
		.elf_machine = 3, .elf_class = 32, .big_endian = false,
		.bfd_format = "elf32-i386",
		.hooks = x86_hooks, .forms = i386_forms, .nforms = NFORMS(i386_forms),
		.reloc_names = i386_relocs, .word_reloc = 1 /* R_386_32 */,
		.entry_directive = ".long", .entry_size = 4, .type_prefix = '@',
		.ld_emulation = "elf_i386", .cc_flag = "-m32", .as_flag = "--32",
		.triple = "i686-linux-gnu",
		.driver_as = true, .driver_as_unless = "-m16 -msse2avx",
		.as_flag_family = "--32 --64 --x32", .cc_flag_family = "-m32 -m64 -mx32",
		.got_register = "%ebx",
		.entry_doc = "the first byte of the call (e8, or ff 9x in PIC code)",
		.compiler_nop = "0f1f440000",
		.patchable_nops = X86_NOPS, .patchable_bytes = true,
	},
	{
		.name = "aarch64", .kernel_arch = "arm64|aarch64",
		.elf_machine = 183, .elf_class = 64, .big_endian = false,
		.bfd_format = "elf64-littleaarch64",
		.hooks = mcount_u_hooks, .forms = aarch64_forms, .nforms = NFORMS(aarch64_forms),
		.reloc_names = aarch64_relocs,
		.entry_directive = ".quad", .entry_size = 8, .type_prefix = '%',
		.ld_emulation = "aarch64linux", .cc_flag = "", .as_flag = "",
		.triple = "aarch64-linux-gnu",
		.mapping_symbols = true,
		.hook_stubs = "*%h_veneer",
		.entry_doc = "the bl",
		.cc_table_flags = "-fpatchable-function-entry=2,0",
		.patchable_nops = "1f2003d5",
	},
	{
		.name = "arm", .kernel_arch = "arm",
		.elf_machine = 40, .elf_class = 32, .big_endian = false,
		.bfd_format = "elf32-littlearm",
		.hooks = arm_hooks, .forms = arm_forms, .nforms = NFORMS(arm_forms),
		.reloc_names = arm_relocs,
		.entry_directive = ".long", .entry_size = 4, .type_prefix = '%',
		.ld_emulation = "armelf_linux_eabi", .cc_flag = "", .as_flag = "",
		.triple = "arm-linux-gnueabihf",
		.mapping_symbols = true, .entry_flag_bits = 1, .arm_attributes = true,
		/* (ld's long-branch stubs; its interworking ones, which
		 * also reach a hook out of a bl's range) */
		.hook_stubs = "*%h_veneer *%h_from_thumb *%h_from_arm",
		.entry_doc = "the bl; bit 0 set in Thumb code, as the linker resolves a Thumb anchor",
	},
	{
		.name = "riscv64", .kernel_arch = "riscv",
		.elf_machine = 243, .elf_class = 64, .big_endian = false,
		.bfd_format = "elf64-littleriscv",
		.hooks = riscv_hooks, .forms = riscv_forms, .nforms = NFORMS(riscv_forms),
		.reloc_names = riscv_relocs,
		.entry_directive = ".quad", .entry_size = 8, .type_prefix = '@',
		.ld_emulation = "elf64lriscv", .cc_flag = "", .as_flag = "",
		.triple = "riscv64-linux-gnu",
		.mapping_symbols = true,
		.object_link_flags = "-Wl,--no-relax",
		.entry_doc = "the auipc of the auipc+jalr pair; link with --no-relax",
		.cc_table_flags = "-fpatchable-function-entry=4,0",
		.patchable_nops = "13000000 0100",
	},
	{
		.name = "ppc64le", .kernel_arch = "powerpc|ppc64le",
		.elf_machine = 21, .elf_class = 64, .big_endian = false,
		.bfd_format = "elf64-powerpcle",
		.hooks = ppc64_hooks, .forms = ppc64le_forms, .nforms = NFORMS(ppc64le_forms),
		.reloc_names = ppc64_relocs,
		.entry_directive = ".quad", .entry_size = 8, .type_prefix = '@',
		.ld_emulation = "elf64lppc", .cc_flag = "-m64", .as_flag = "-a64",
		.triple = "powerpc64le-linux-gnu",
		.as_flag_family = "-a32 -a64", .cc_flag_family = "-m32 -m64",
		.hook_stubs = "*.%h",
		.entry_doc = "the bl",
		.patchable_nops = "00000060",
	},
	{
		.name = "ppc64", .kernel_arch = "powerpc|ppc64",
		.elf_machine = 21, .elf_class = 64, .big_endian = true,
		.bfd_format = "elf64-powerpc",
		.hooks = ppc64_hooks, .forms = ppc64_forms, .nforms = NFORMS(ppc64_forms),
		.reloc_names = ppc64_relocs,
		.entry_directive = ".quad", .entry_size = 8, .type_prefix = '@',
		.ld_emulation = "elf64ppc", .cc_flag = "-m64", .as_flag = "-a64",
		.triple = "powerpc64-linux-gnu",
		.as_flag_family = "-a32 -a64", .cc_flag_family = "-m32 -m64",
		.hook_stubs = "*.%h",
		.entry_doc = "the bl (ELFv1: .text has no code symbols, so an anchor is added)",
		.patchable_nops = "60000000",
	},
	{
		.name = "ppc32", .kernel_arch = "powerpc|ppc",
		.elf_machine = 20, .elf_class = 32, .big_endian = true,
		.bfd_format = "elf32-powerpc",
		.hooks = ppc64_hooks, .forms = ppc32_forms, .nforms = NFORMS(ppc32_forms),
		.reloc_names = ppc32_relocs,
		.entry_directive = ".long", .entry_size = 4, .type_prefix = '@',
		.ld_emulation = "elf32ppclinux", .cc_flag = "-m32", .as_flag = "-a32",
		.triple = "powerpc-linux-gnu",
		.as_flag_family = "-a32 -a64", .cc_flag_family = "-m32 -m64",
		.hook_stubs = "*.%h",
		.entry_doc = "the bl",
		.patchable_nops = "60000000",
	},
	{
		.name = "s390x", .kernel_arch = "s390|s390x",
		.elf_machine = 22, .elf_class = 64, .big_endian = true,
		.bfd_format = "elf64-s390",
		.hooks = s390_hooks, .forms = s390x_forms, .nforms = NFORMS(s390x_forms),
		.reloc_names = s390x_relocs,
		.entry_directive = ".quad", .entry_size = 8, .type_prefix = '@',
		.ld_emulation = "elf64_s390", .cc_flag = "-m64", .as_flag = "-m64",
		.triple = "s390x-linux-gnu",
		.as_flag_family = "-m31 -m64", .cc_flag_family = "-m31 -m64",
		.entry_doc = "the stg that starts the _mcount sequence, or the brasl of __fentry__ (as GCC's -mrecord-mcount)",
		.compiler_nop = "c00400000000",
		.cc_table_flags = "-pg -mfentry -mnop-mcount -mrecord-mcount",
		.patchable_nops = "0700",
	},
	{
		.name = "mips", .kernel_arch = "mips",
		.elf_machine = 8, .elf_class = 32, .big_endian = true,
		.bfd_format = "elf32-tradbigmips",
		.hooks = mcount_u_hooks, .forms = mips_forms, .nforms = NFORMS(mips_forms),
		.reloc_names = mips_relocs,
		.entry_directive = ".long", .entry_size = 4, .type_prefix = '@',
		.ld_emulation = "elf32btsmip", .cc_flag = "-mabi=32", .as_flag = "-EB",
		.triple = "mips-linux-gnu",
		.as_flag_family = "-EB -EL", .cc_flag_family = "-mabi=32 -mabi=n32 -mabi=64",
		.hook_stubs = "*.%h", .scan_align = 4, .mips_flags = true,
		.entry_doc = "the jal, or the lui / GOT load that starts a long or PIC call",
	},
	{
		.name = "mipsel", .kernel_arch = "mips|mipsel",
		.elf_machine = 8, .elf_class = 32, .big_endian = false,
		.bfd_format = "elf32-tradlittlemips",
		.hooks = mcount_u_hooks, .forms = mipsel_forms, .nforms = NFORMS(mipsel_forms),
		.reloc_names = mips_relocs,
		.entry_directive = ".long", .entry_size = 4, .type_prefix = '@',
		.ld_emulation = "elf32ltsmip", .cc_flag = "-mabi=32", .as_flag = "-EL",
		.triple = "mipsel-linux-gnu",
		.as_flag_family = "-EB -EL", .cc_flag_family = "-mabi=32 -mabi=n32 -mabi=64",
		.hook_stubs = "*.%h", .scan_align = 4, .mips_flags = true,
		.entry_doc = "the jal, or the lui / GOT load that starts a long or PIC call",
	},
	{
		.name = "mips64el", .kernel_arch = "mips|mips64el",
		.elf_machine = 8, .elf_class = 64, .big_endian = false,
		.bfd_format = "elf64-tradlittlemips",
		.hooks = mcount_u_hooks, .forms = mips64el_forms, .nforms = NFORMS(mips64el_forms),
		.reloc_names = mips_relocs, .mips64_r_info = true,
		.entry_directive = ".dword", .entry_size = 8, .type_prefix = '@',
		.ld_emulation = "elf64ltsmip", .cc_flag = "-mabi=64", .as_flag = "-EL",
		.triple = "mips64el-linux-gnuabi64",
		.as_flag_family = "-EB -EL", .cc_flag_family = "-mabi=32 -mabi=n32 -mabi=64",
		.hook_stubs = "*.%h", .scan_align = 4, .mips_flags = true,
		.entry_doc = "the jal, or the lui / GOT load that starts a long or PIC call",
	},
	{
		.name = "sparc64", .kernel_arch = "sparc64|sparc",
		.elf_machine = 43, .elf_class = 64, .big_endian = true,
		.bfd_format = "elf64-sparc",
		.hooks = mcount_u_hooks, .forms = sparc64_forms, .nforms = NFORMS(sparc64_forms),
		.reloc_names = sparc64_relocs,
		.entry_directive = ".xword", .entry_size = 8, .type_prefix = '@',
		.ld_emulation = "elf64_sparc", .cc_flag = "-m64", .as_flag = "-64",
		.triple = "sparc64-linux-gnu",
		.as_flag_family = "-32 -64", .cc_flag_family = "-m32 -m64",
		.entry_doc = "the call",
	},
	{
		.name = "sh4", .kernel_arch = "sh",
		.elf_machine = 42, .elf_class = 32, .big_endian = false,
		.bfd_format = "elf32-sh-linux",
		.hooks = sh_hooks, .forms = sh4_forms, .nforms = NFORMS(sh4_forms),
		.reloc_names = sh4_relocs,
		.entry_directive = ".long", .entry_size = 4, .type_prefix = '@',
		.ld_emulation = "shlelf_linux", .cc_flag = "", .as_flag = "",
		.triple = "sh4-linux-gnu",
		.scan_align = 4,
		.entry_doc = "the literal word holding mcount's address, which the jmp before it uses",
	},
};

#define NARCHES (sizeof(arches) / sizeof(arches[0]))

const struct arch *arch_at(size_t i)
{
	return i < NARCHES ? &arches[i] : NULL;
}

/* Is the n-byte name one of the '|'-separated names in list? */
static bool in_bar_list_n(const char *list, const char *name, size_t n)
{
	for (const char *p = list; p && *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && memcmp(p, name, n) == 0)
			return true;
		p = bar ? bar + 1 : NULL;
	}
	return false;
}

static bool in_bar_list(const char *list, const char *name)
{
	return in_bar_list_n(list, name, strlen(name));
}

const struct arch *arch_lookup(const char *name, unsigned bits, int big_endian)
{
	/* a canonical name first; "mips" is also a kernel name of three rows */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < NARCHES; i++)
			if ((pass ? in_bar_list(arches[i].kernel_arch, name)
				  : strcmp(arches[i].name, name) == 0) &&
			    (bits == 0 || bits == arches[i].elf_class) &&
			    (big_endian < 0 || big_endian == arches[i].big_endian))
				return &arches[i];
	return NULL;
}

bool arch_has_name(const struct arch *a, const char *name)
{
	return strcmp(a->name, name) == 0 || in_bar_list(a->kernel_arch, name);
}

const struct arch *arch_by_machine(unsigned machine, unsigned elf_class, bool big_endian)
{
	for (size_t i = 0; i < NARCHES; i++)
		if (arches[i].elf_machine == machine && arches[i].elf_class == elf_class &&
		    arches[i].big_endian == big_endian)
			return &arches[i];
	return NULL;
}

const char *arch_machine_name(unsigned machine, unsigned elf_class, bool big_endian)
{
	const char *name = NULL;
	int best = -1;
	for (size_t i = 0; i < NARCHES; i++) {
		int score = (arches[i].elf_class == elf_class) + (arches[i].big_endian == big_endian);
		if (arches[i].elf_machine == machine && score > best) {
			name = arches[i].name;
			best = score;
		}
	}
	return name;
}

const struct arch *arch_by_bfd_format(const char *format)
{
	for (size_t i = 0; i < NARCHES; i++)
		if (strcmp(arches[i].bfd_format, format) == 0)
			return &arches[i];
	return NULL;
}

const char *arch_hook(const struct arch *a, const char *name, size_t len)
{
	for (const char *const *h = a->hooks; *h; h++)
		if (strlen(*h) == len && memcmp(*h, name, len) == 0)
			return *h;
	return NULL;
}

const char *arch_reloc_name(const struct arch *a, unsigned type)
{
	for (const struct reloc_name *r = a->reloc_names; r && r->name; r++)
		if (r->type == type)
			return r->name;
	return NULL;
}

const struct call_form *arch_form(const struct arch *a, const char *reloc,
				  const char *hook, size_t hooklen)
{
	for (size_t i = 0; i < a->nforms; i++) {
		const struct call_form *f = &a->forms[i];
		if (f->linker_made)
			continue;   /* only --linked looks at those (see scan_linked) */
		if (strcmp(f->reloc, reloc) == 0 &&
		    (!f->hook || (strlen(f->hook) == hooklen && memcmp(f->hook, hook, hooklen) == 0)))
			return f;
	}
	return NULL;
}

/* Append the n bytes at s to the allocated string *buf of length *len. */
static void append_n(char **buf, size_t *len, const char *s, size_t n)
{
	*buf = xrealloc(*buf, *len + n + 1);
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

static void append(char **buf, size_t *len, const char *s)
{
	append_n(buf, len, s, strlen(s));
}

char *arch_known_names(void)
{
	char *buf = NULL;
	size_t len = 0;
	append(&buf, &len, "");
	for (size_t i = 0; i < NARCHES; i++) {
		append(&buf, &len, i ? ", " : "");
		append(&buf, &len, arches[i].name);
	}
	/* then each kernel name that is no row's own name, once */
	const char *sep = "; kernel ARCH names: ";
	for (size_t i = 0; i < NARCHES; i++) {
		for (const char *p = arches[i].kernel_arch; *p;) {
			size_t n = strcspn(p, "|");
			bool seen = false;
			for (size_t j = 0; j < NARCHES && !seen; j++)
				seen = (strlen(arches[j].name) == n && memcmp(arches[j].name, p, n) == 0) ||
				       (j < i && in_bar_list_n(arches[j].kernel_arch, p, n));
			if (!seen) {
				append(&buf, &len, sep);
				append_n(&buf, &len, p, n);
				sep = ", ";
			}
			p += n + (p[n] == '|');
		}
	}
	return buf;
}

char *arch_variants(const char *name)
{
	char *buf = NULL;
	size_t len = 0;
	append(&buf, &len, "");
	for (size_t i = 0; i < NARCHES; i++) {
		const struct arch *a = &arches[i];
		if (!arch_has_name(a, name))
			continue;
		append(&buf, &len, len ? ", " : "");
		append(&buf, &len, a->name);
		append(&buf, &len, a->elf_class == 64 ? " 64-bit " : " 32-bit ");
		append(&buf, &len, a->big_endian ? "big-endian" : "little-endian");
	}
	return buf;
}

void arch_list(void)
{
	for (size_t i = 0; i < NARCHES; i++) {
		const struct arch *a = &arches[i];
		printf("%s\tkernel ARCH %s, %u-bit %s-endian, %s, entries %s (%s)\n",
		       a->name, a->kernel_arch, a->elf_class,
		       a->big_endian ? "big" : "little", a->bfd_format,
		       a->entry_directive, a->entry_doc);
		for (size_t f = 0; f < a->nforms; f++) {
			const struct call_form *cf = &a->forms[f];
			if (cf->linker_made) {
				printf("\t%s: in linked images only, a call of %u bytes made by the "
				       "linker (", cf->reloc ? cf->reloc : "any call relocation",
				       cf->insn_len);
				for (unsigned b = 0; b < cf->oplen; b++)
					printf("%s%02x", b ? " " : "", cf->opcode[b]);
				printf("), relocated field at +%u\n", cf->field_offset);
			}
			else if (cf->kind == FORM_COMPANION)
				printf("\t%s: companion of a call site at most %u bytes before it "
				       "(not a site)\n", cf->reloc, cf->span);
			else if (cf->lead)
				printf("\t%s: call of %u bytes to %s, relocated field at +%u, "
				       "entry %u bytes before the call\n", cf->reloc, cf->insn_len,
				       cf->hook ? cf->hook : "the hook", cf->field_offset, cf->lead);
			else
				printf("\t%s: call of %u bytes%s%s, relocated field at +%u\n",
				       cf->reloc, cf->insn_len, cf->hook ? " to " : "",
				       cf->hook ? cf->hook : "", cf->field_offset);
		}
	}
}

const char *arch_cc_table_flags(const struct arch *a, uint32_t e_flags)
{
	/* riscv64: four c.nop with the compressed instructions
	 * (EF_RISCV_RVC), else two nop: 8 bytes either way, an auipc and a
	 * jalr (the kernel's choice) */
	if (strcmp(a->name, "riscv64") == 0 && !(e_flags & 1))
		return "-fpatchable-function-entry=2,0";
	return a->cc_table_flags;
}

void arch_object_as_flags(const struct arch *a, uint32_t e_flags, char *buf, size_t len)
{
	buf[0] = '\0';
	if (strcmp(a->name, "riscv64") == 0) {
		/* The ISA the object's flags require at least: compressed
		 * instructions (EF_RISCV_RVC; else the table's empty .text is
		 * 4-byte aligned, and so would the object's be) and the
		 * floating-point ABI's extensions, with that ABI; no more, as
		 * ld -r merges the ISA attributes of both objects. */
		static const char *const abi[] = { "lp64", "lp64f", "lp64d", "lp64q" };
		static const char *const ext[] = { "", "f", "fd", "fdq" };
		unsigned fabi = (e_flags >> 1) & 3;
		snprintf(buf, len, "-march=rv64i%s%s -mabi=%s", ext[fabi], e_flags & 1 ? "c" : "", abi[fabi]);
	} else if (strcmp(a->name, "ppc32") == 0) {
		/* PIC code is marked EF_PPC_RELOCATABLE_LIB (the driver's
		 * -K PIC, which -mrelocatable-lib would be too, refusing the
		 * table's relocations in a read-only section), -mrelocatable
		 * code EF_PPC_RELOCATABLE: ld -r keeps either flag only if
		 * every input has it */
		if (e_flags & 0x10000)
			snprintf(buf, len, "-mrelocatable");
		else if (e_flags & 0x8000)
			snprintf(buf, len, "-K PIC");
	}
}

/* What the compiler driver would have told the assembler of a MIPS
 * object, from its e_flags: the ISA (a MIPS32r6 object cannot be linked
 * with a MIPS I one, the bare assembler's default), the NaN encoding,
 * abicalls and PIC (ld -r keeps PIC only if every input has it, and
 * warns of abicalls mixed with non-abicalls); and, as the table holds
 * no floating-point code, the floating-point ABI "any" (.gnu_attribute
 * 4, 0) and (o32) no use of odd single-precision registers, which leave
 * the object's own (say -mfpxx, and its .MIPS.abiflags) as they were. */
void arch_table_directives(const struct arch *a, uint32_t e_flags, FILE *out)
{
	if (!a->mips_flags)
		return;
	static const char *const isa[] = { "mips1", "mips2", "mips3", "mips4", "mips5", "mips32",
					   "mips64", "mips32r2", "mips64r2", "mips32r6", "mips64r6" };
	uint32_t f = e_flags, arch = f >> 28;
	if (arch < sizeof(isa) / sizeof(*isa))
		fprintf(out, "\t.module arch=%s\n", isa[arch]);
	fprintf(out, "\t.nan %s\n", f & 0x400 ? "2008" : "legacy");       /* EF_MIPS_NAN2008 */
	if (f & 0x4) {                                                     /* EF_MIPS_CPIC */
		fputs("\t.abicalls\n", out);
		if (!(f & 0x2))                                            /* EF_MIPS_PIC */
			fputs("\t.option pic0\n", out);
	}
	if (a->elf_class == 32)
		fputs("\t.module nooddspreg\n", out);   /* an error with a 64-bit ABI */
	fputs("\t.gnu_attribute 4, 0\n", out);
}
