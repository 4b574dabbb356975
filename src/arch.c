/* arch.c - the per-architecture table (see arch.h). */
#include "arch.h"

#include <stdio.h>
#include <string.h>

#define NFORMS(f) (sizeof(f) / sizeof((f)[0]))

/* x86: `call rel32` is e8 + 4-byte field; `call *disp32(%rip)` is ff 15 +
 * field (PIE/PIC, -mno-plt); i386 `call *sym@GOT(%reg)` is ff 9x + field. */
static const char *const x86_hooks[] = { "mcount", "__fentry__", NULL };

static const struct call_form x86_64_forms[] = {
	{ "R_X86_64_PLT32",     1, 5, { 0xe8 }, { 0xff }, 1 },
	{ "R_X86_64_PC32",      1, 5, { 0xe8 }, { 0xff }, 1 },
	{ "R_X86_64_GOTPCRELX", 2, 6, { 0xff, 0x15 }, { 0xff, 0xff }, 2 },
	{ "R_X86_64_GOTPCREL",  2, 6, { 0xff, 0x15 }, { 0xff, 0xff }, 2 },
};

static const struct call_form i386_forms[] = {
	{ "R_386_PC32",   1, 5, { 0xe8 }, { 0xff }, 1 },
	{ "R_386_PLT32",  1, 5, { 0xe8 }, { 0xff }, 1 },
	{ "R_386_GOT32X", 2, 6, { 0xff, 0x90 }, { 0xff, 0xf8 }, 2 },
	{ "R_386_GOT32",  2, 6, { 0xff, 0x90 }, { 0xff, 0xf8 }, 2 },
};

static const struct arch arches[] = {
	{
		.name = "x86_64", .kernel_arch = "x86_64|x86",
		.elf_machine = 62, .elf_class = 64, .big_endian = false,
		.bfd_format = "elf64-x86-64",
		.hooks = x86_hooks, .forms = x86_64_forms, .nforms = NFORMS(x86_64_forms),
		.entry_directive = ".quad", .entry_size = 8, .type_prefix = '@',
		.ld_emulation = "elf_x86_64", .cc_flag = "-m64", .as_flag = "--64",
		.triple = "x86_64-linux-gnu",
		.entry_doc = "the first byte of the call (e8, or ff 15 in PIC code)",
	},
	{
		.name = "i386", .kernel_arch = "i386|x86",
		.elf_machine = 3, .elf_class = 32, .big_endian = false,
		.bfd_format = "elf32-i386",
		.hooks = x86_hooks, .forms = i386_forms, .nforms = NFORMS(i386_forms),
		.entry_directive = ".long", .entry_size = 4, .type_prefix = '@',
		.ld_emulation = "elf_i386", .cc_flag = "-m32", .as_flag = "--32",
		.triple = "i686-linux-gnu",
		.entry_doc = "the first byte of the call (e8, or ff 9x in PIC code)",
	},
};

#define NARCHES (sizeof(arches) / sizeof(arches[0]))

static bool in_bar_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && memcmp(p, name, n) == 0)
			return true;
		p = bar ? bar + 1 : NULL;
	}
	return false;
}

const struct arch *arch_lookup(const char *name, unsigned bits)
{
	for (size_t i = 0; i < NARCHES; i++)
		if (strcmp(arches[i].name, name) == 0)
			return &arches[i];
	for (size_t i = 0; i < NARCHES; i++)
		if (in_bar_list(arches[i].kernel_arch, name) &&
		    (bits == 0 || bits == arches[i].elf_class))
			return &arches[i];
	return NULL;
}

const struct arch *arch_by_machine(unsigned machine, unsigned elf_class, bool big_endian)
{
	for (size_t i = 0; i < NARCHES; i++)
		if (arches[i].elf_machine == machine && arches[i].elf_class == elf_class &&
		    arches[i].big_endian == big_endian)
			return &arches[i];
	return NULL;
}

const struct arch *arch_by_bfd_format(const char *format)
{
	for (size_t i = 0; i < NARCHES; i++)
		if (strcmp(arches[i].bfd_format, format) == 0)
			return &arches[i];
	return NULL;
}

bool arch_is_hook(const struct arch *a, const char *name, size_t len)
{
	for (const char *const *h = a->hooks; *h; h++)
		if (strlen(*h) == len && memcmp(*h, name, len) == 0)
			return true;
	return false;
}

const struct call_form *arch_form(const struct arch *a, const char *reloc)
{
	for (size_t i = 0; i < a->nforms; i++)
		if (strcmp(a->forms[i].reloc, reloc) == 0)
			return &a->forms[i];
	return NULL;
}

void arch_list(void)
{
	for (size_t i = 0; i < NARCHES; i++) {
		const struct arch *a = &arches[i];
		printf("%s\tkernel ARCH %s, %u-bit %s-endian, %s, entries %s (%s)\n",
		       a->name, a->kernel_arch, a->elf_class,
		       a->big_endian ? "big" : "little", a->bfd_format,
		       a->entry_directive, a->entry_doc);
		for (size_t f = 0; f < a->nforms; f++)
			printf("\t%s: call of %u bytes, relocated field at +%u\n",
			       a->forms[f].reloc, a->forms[f].insn_len, a->forms[f].field_offset);
	}
}
