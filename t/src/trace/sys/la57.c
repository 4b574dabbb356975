/* SPDX-License-Identifier: GPL-2.0-or-later */
/* la57.c ADDRESS - whether the machine has 5-level page tables (la57 in
 * /proc/cpuinfo's flags) and maps a page at ADDRESS when mmap's hint
 * asks for it (the la57 guest of t/79-trace-system.t). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[8192];
	int la57 = 0;
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "flags", 5) && strstr(line, " la57"))
			la57 = 1;
	void *want = (void *)strtoull(argv[1], NULL, 0);
	void *p = mmap(want, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	printf("la57 %d\nmapped at %p\n", la57, p);
	return 0;
}
