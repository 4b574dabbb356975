/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plug_main.c - a program linked with libplug.so (plug.c): calls plug_a
 * argv[1] times and prints the sum, so a trace of the library's
 * functions has a known count and call tree. */
#include <stdio.h>
#include <stdlib.h>

int plug_a(int x);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	long sum = 0;
	for (int i = 0; i < n; i++)
		sum += plug_a(i);
	printf("%ld\n", sum);
	return 0;
}
