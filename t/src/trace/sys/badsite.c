/* SPDX-License-Identifier: GPL-2.0-or-later */
/* badsite.c - calls the functions of an architecture's badsite.S (t/87:
 * t/src/trace/ppc64le/badsite.S), whose table entries the library must
 * refuse and leave alone: each returns 42 + its number when its code
 * ran as written.  Prints "bad 42 43 44 45". */
#include <stdio.h>

long bad_local(void);
long bad_stub(void);
long bad_next(void);
long bad_word(void);

int main(void)
{
	printf("bad %ld %ld %ld %ld\n", bad_local(), bad_stub(), bad_next(), bad_word());
	return 0;
}
