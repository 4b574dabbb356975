/* SPDX-License-Identifier: GPL-2.0-or-later */
/* drap.c - t/78: drapf realigns its stack through a register before it
 * sets up its frame (GCC's DRAP, for its variable-length array and its
 * 64-byte aligned array), between functions that do not.  Under mcount
 * its frame's return address is a copy: function_graph must leave it
 * alone and say so (noexit), and trace every other return.
 *
 *   drap N     outer(N + 8) three times; prints "drap SUM" */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define F __attribute__((noipa))
F int leaf(const char *p, int n) { return p[0] + n; }
F int drapf(int n)
{
	char vla[n];
	char big[64] __attribute__((aligned(64)));
	memset(vla, 1, (size_t)n);
	memset(big, 2, sizeof big);
	return leaf(vla, n) + leaf(big, 1);
}
F int outer(int n) { return drapf(n) + leaf("x", n); }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, r = 0;
	for (int i = 0; i < 3; i++)
		r += outer(n + 8);
	printf("drap %d\n", r);
	return 0;
}
