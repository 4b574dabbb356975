/* SPDX-License-Identifier: GPL-2.0-or-later */
/* calc.h - a tiny reverse-Polish calculator library (the example for
 * mcount-cc: a library and a program in several directories). */
#ifndef CALC_H
#define CALC_H

#define CALC_STACK_MAX 32

struct calc {
	long stack[CALC_STACK_MAX];
	int depth;
	const char *error;
};

void calc_init(struct calc *c);
/* Evaluate one token ("12", "+", "dup", ...); 0 on success, -1 on error
 * (c->error says why). */
int calc_token(struct calc *c, const char *tok);
/* Evaluate a whole expression of space-separated tokens. */
int calc_eval(struct calc *c, const char *expr, long *result);

/* Arithmetic helpers (lib/calc/arith.c). */
long calc_apply(char op, long a, long b, const char **error);
int calc_parse_number(const char *s, long *out);

#endif
