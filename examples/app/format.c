/* SPDX-License-Identifier: GPL-2.0-or-later */
/* format.c - how the program prints results. */
#include "format.h"

#include <stdio.h>

static const char *sign(long v)
{
	return v < 0 ? "-" : "";
}

static unsigned long magnitude(long v)
{
	return v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
}

void print_result(const char *expr, long v)
{
	printf("%s = %s%lu\n", expr, sign(v), magnitude(v));
}
