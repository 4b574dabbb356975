/* SPDX-License-Identifier: GPL-2.0-or-later */
/* badsite.c - calls the functions of an architecture's badsite.S (the ppc64le guest:
 * t/src/trace/ppc64le/badsite.S), whose table entries the library must
 * refuse and leave alone: each returns 42 + its number when its code
 * ran as written.  Prints "bad 42 43 44 45", then 46 where badsite.S
 * has bad_more1 (ppc32). */
#include <stdio.h>

long bad_local(void);
long bad_stub(void);
long bad_next(void);
long bad_word(void);
long bad_more1(void) __attribute__((weak));

int main(void)
{
	printf("bad %ld %ld %ld %ld", bad_local(), bad_stub(), bad_next(), bad_word());
	if (bad_more1)
		printf(" %ld", bad_more1());
	printf("\n");
	return 0;
}
