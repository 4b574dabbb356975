/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arith.c - the operators, behind static helpers.  divide() and power()
 * stay out of line even at -O2, so static functions get table entries too. */
#include "calc.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

static long add(long a, long b) { return a + b; }
static long sub(long a, long b) { return a - b; }
static long mul(long a, long b) { return a * b; }

static __attribute__((noinline)) long divide(long a, long b, const char **error)
{
	if (b == 0) {
		*error = "division by zero";
		return 0;
	}
	return a / b;
}

static __attribute__((noinline)) long power(long a, long b)
{
	long r = 1;
	while (b-- > 0)
		r = mul(r, a);
	return r;
}

long calc_apply(char op, long a, long b, const char **error)
{
	switch (op) {
	case '+': return add(a, b);
	case '-': return sub(a, b);
	case '*': return mul(a, b);
	case '/': return divide(a, b, error);
	case '^': return power(a, b);
	}
	*error = "unknown operator";
	return 0;
}

int calc_parse_number(const char *s, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno == ERANGE)
		return -1;
	*out = v;
	return 0;
}
