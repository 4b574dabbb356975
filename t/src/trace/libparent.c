/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libparent.c - a traced function called back from the C library (a
 * library without a table): tsearch calls cmp.  The program prints what
 * the C library's own dladdr() says of cmp's return address: the file
 * and the dynamic symbol it is in. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <search.h>
#include <stdio.h>

static void *ra;

static int cmp(const void *a, const void *b)
{
	ra = __builtin_return_address(0);
	return *(const int *)a - *(const int *)b;
}

int main(void)
{
	static int v[4] = { 3, 1, 2, 0 };
	void *root = NULL;
	for (int i = 0; i < 4; i++)
		tsearch(&v[i], &root, cmp);
	Dl_info d;
	if (!ra || !dladdr(ra, &d) || !d.dli_fname || !d.dli_sname)
		return 1;
	printf("%s %s\n", d.dli_fname, d.dli_sname);
	return 0;
}
