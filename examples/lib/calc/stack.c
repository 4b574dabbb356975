/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stack.c - the evaluator: a fixed stack of longs. */
#include "calc.h"

#include <string.h>

static __attribute__((noinline)) int push(struct calc *c, long v)
{
	if (c->depth >= CALC_STACK_MAX) {
		c->error = "stack overflow";
		return -1;
	}
	c->stack[c->depth++] = v;
	return 0;
}

static int pop(struct calc *c, long *v)
{
	if (c->depth <= 0) {
		c->error = "stack underflow";
		return -1;
	}
	*v = c->stack[--c->depth];
	return 0;
}

void calc_init(struct calc *c)
{
	memset(c, 0, sizeof(*c));
}

int calc_token(struct calc *c, const char *tok)
{
	long a, b, v;

	if (calc_parse_number(tok, &v) == 0)
		return push(c, v);
	if (strcmp(tok, "dup") == 0) {
		if (pop(c, &a))
			return -1;
		return push(c, a) || push(c, a) ? -1 : 0;
	}
	if (strlen(tok) != 1) {
		c->error = "unknown token";
		return -1;
	}
	if (pop(c, &b) || pop(c, &a))
		return -1;
	v = calc_apply(tok[0], a, b, &c->error);
	if (c->error)
		return -1;
	return push(c, v);
}

int calc_eval(struct calc *c, const char *expr, long *result)
{
	char buf[256];
	char *save = NULL;

	if (strlen(expr) >= sizeof(buf)) {
		c->error = "expression too long";
		return -1;
	}
	strcpy(buf, expr);
	for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
		if (calc_token(c, t))
			return -1;
	if (c->depth != 1) {
		c->error = "expression leaves the stack unbalanced";
		return -1;
	}
	*result = c->stack[0];
	return 0;
}
