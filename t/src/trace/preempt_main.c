/* SPDX-License-Identifier: GPL-2.0-or-later */
/* preempt_main.c - linked with preempt_lib.c's library, whose pre_first
 * it defines again: the library's own call of pre_first comes here. */
#include <stdio.h>

int pre_outer(int x);

int pre_first(int x)
{
	return x - 1;
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += pre_outer(i);
	printf("%d\n", s);
	return 0;
}
