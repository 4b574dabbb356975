/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cfi_test.c - rt/cfi.c (with rt/elf.c's section reader) on its own,
 * for t/91: the canonical frame address's rule at each address read
 * from standard input (hexadecimal, the file's link-time addresses), in
 * the ELF file FILE.
 *
 *   cfi_test FILE < ADDRESSES
 *
 * Prints one line per address: "ADDR REG OFFSET" (the DWARF register
 * number, the offset in decimal) or "ADDR -" (no rule: no FDE, or one
 * cfi.c does not follow).  Exit 0, or 2 (usage, unreadable file).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* What rt/elf.c needs of the rest of the library here. */
const struct mt_arch mt_arch = { .name = "test" };
const uintptr_t mt_hooks[1];

void mt_sort_by_addr(void *base, size_t n, size_t size, size_t off, size_t ksize,
		     int (*cmp)(const void *, const void *))
{
	(void)off;
	(void)ksize;
	qsort(base, n, size, cmp);
}

void mt_msg(const char *fmt, ...)
{
	(void)fmt;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: cfi_test FILE < ADDRESSES\n");
		return 2;
	}
	struct mt_object o;
	memset(&o, 0, sizeof o);
	o.file = mt_map_file(argv[1], &o.file_size, NULL);
	if (!o.file) {
		fprintf(stderr, "cfi_test: %s: cannot map it\n", argv[1]);
		return 2;
	}
	char line[64];
	while (fgets(line, sizeof line, stdin)) {
		uint64_t pc = strtoull(line, NULL, 16);
		unsigned reg;
		int64_t off;
		if (mt_cfa_at(&o, pc, &reg, &off))
			printf("%" PRIx64 " %u %" PRId64 "\n", pc, reg, off);
		else
			printf("%" PRIx64 " -\n", pc);
	}
	return 0;
}
