/* SPDX-License-Identifier: GPL-2.0-or-later */
/* linereader.c - a program that waits for its input as most do: lines
 * read with stdio (whose buffer malloc gave), each counted by a
 * function of its own (line_seen, traced), "lines N" printed at the
 * end.  Its "ready" line says it is about to wait in read(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long lines;

__attribute__((noinline)) void line_seen(const char *s)
{
	lines += s[0] != '\0';
	__asm__ volatile("" : : : "memory");
}

int main(void)
{
	char buf[256];
	/* (the words its frames leave behind, as a program's work does) */
	char *scratch = strdup("scratch");
	free(scratch);
	printf("ready\n");
	fflush(stdout);
	while (fgets(buf, sizeof buf, stdin))
		line_seen(buf);
	printf("lines %lu\n", lines);
	return 0;
}
