/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vermain.c - calls each function of libverlib.so (verlib.c) three
 * times, vfun's old version by its version (as a program linked
 * against the library's first release does).  With an argument DIR,
 * then creates DIR/ready and waits (60 s at most) for DIR/go.
 */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "ready.h"

int vfun(int);
int valias(int);
int vplain(int);
int vfun_old(int);
__asm__(".symver vfun_old, vfun@VL_1.0");

int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += vfun(i) + vfun_old(i) + valias(i) + vplain(i);
	printf("%d\n", s);
	fflush(stdout);
	if (argc > 1)
		ready_then_wait(argv[1]);
	return 0;
}
