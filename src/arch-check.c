/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arch-check.c - src/arch.c's rows against arches.tab: the same names,
 * and for each its ELF machine, class, byte order and GNU triple; no row
 * in one that the other lacks; and the kernel ARCH it lists first.  Built and run by make (build/arch-check,
 * from build/arches.h, which the Makefile writes from arches.tab).  And
 * within src/arch.c: each relocation type a row's call forms name has
 * its number there, once (the one-link method reads types by number). */
#include "arch.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct registry_row {
	const char *name;
	const char *kernel;
	unsigned machine;
	unsigned elf_class;
	bool big_endian;
	const char *triple;
};

static const struct registry_row registry[] = {
#define ARCHES_ROW(name, kernel, machine, elf_class, big_endian, triple) \
	{ name, kernel, machine, elf_class, big_endian, triple },
#include "arches.h"
#undef ARCHES_ROW
};

#define NREGISTRY (sizeof(registry) / sizeof(registry[0]))

int main(void)
{
	int bad = 0;
	for (size_t i = 0; i < NREGISTRY; i++) {
		const struct registry_row *r = &registry[i];
		const struct arch *a = NULL;
		for (size_t j = 0; arch_at(j) && !a; j++)
			if (strcmp(arch_at(j)->name, r->name) == 0)
				a = arch_at(j);
		if (!a) {
			fprintf(stderr, "arch-check: arches.tab: %s: src/arch.c has no row of that name\n",
				r->name);
			bad = 1;
			continue;
		}
		size_t klen = strcspn(a->kernel_arch, "|");
		if (strlen(r->kernel) != klen || strncmp(a->kernel_arch, r->kernel, klen) != 0) {
			fprintf(stderr, "arch-check: %s: src/arch.c's kernel ARCH names are %s; "
				"arches.tab's is %s\n", r->name, a->kernel_arch, r->kernel);
			bad = 1;
		}
		if (a->elf_machine != r->machine || a->elf_class != r->elf_class ||
		    a->big_endian != r->big_endian || strcmp(a->triple, r->triple) != 0) {
			fprintf(stderr, "arch-check: %s: src/arch.c has machine %u, %u-bit %s-endian, %s; "
				"arches.tab machine %u, %u-bit %s-endian, %s\n", r->name,
				a->elf_machine, a->elf_class, a->big_endian ? "big" : "little", a->triple,
				r->machine, r->elf_class, r->big_endian ? "big" : "little", r->triple);
			bad = 1;
		}
	}
	for (size_t j = 0; arch_at(j); j++) {
		const struct arch *a = arch_at(j);
		for (size_t f = 0; f < a->nforms; f++) {
			const char *n = a->forms[f].reloc;
			unsigned times = 0;
			for (const struct reloc_name *r = a->reloc_names; n && r && r->name; r++)
				times += strcmp(r->name, n) == 0;
			if (n && times != 1) {
				fprintf(stderr, "arch-check: src/arch.c: %s: %s has %s number in reloc_names\n",
					a->name, n, times ? "more than one" : "no");
				bad = 1;
			}
		}
		for (const struct reloc_name *r = a->reloc_names; r && r->name; r++)
			if (strcmp(arch_reloc_name(a, r->type), r->name) != 0) {
				fprintf(stderr, "arch-check: src/arch.c: %s: relocation type %u is both %s and %s\n",
					a->name, r->type, arch_reloc_name(a, r->type), r->name);
				bad = 1;
			}
	}
	for (size_t j = 0; arch_at(j); j++) {
		bool found = false;
		for (size_t i = 0; i < NREGISTRY && !found; i++)
			found = strcmp(registry[i].name, arch_at(j)->name) == 0;
		if (!found) {
			fprintf(stderr, "arch-check: src/arch.c: %s: arches.tab has no row of that name\n",
				arch_at(j)->name);
			bad = 1;
		}
	}
	return bad;
}
