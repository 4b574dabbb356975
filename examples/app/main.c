/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c - rpncalc: evaluate each argument as a reverse-Polish expression.
 *   rpncalc "2 3 + 4 *"   prints   2 3 + 4 * = 20
 *   rpncalc -             evaluates each line of standard input
 *   rpncalc --config      says how it was configured */
#include "calc.h"
#include "format.h"
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

static int eval_one(const char *expr)
{
	struct calc c;
	long v;

	calc_init(&c);
	if (calc_eval(&c, expr, &v)) {
		fprintf(stderr, "rpncalc: %s: %s\n", expr, c.error);
		return 1;
	}
	print_result(expr, v);
	return 0;
}

int main(int argc, char **argv)
{
	int status = 0;

	if (argc == 2 && strcmp(argv[1], "--config") == 0) {
#ifdef RPNCALC_CONFIGURED
		printf("configured with CC=%s\n", RPNCALC_CONFIGURED);
#else
		printf("not configured\n");
#endif
		return 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: rpncalc EXPRESSION...\n");
		return 2;
	}
	if (argc == 2 && strcmp(argv[1], "-") == 0) {
		char line[1024];
		while (fgets(line, sizeof line, stdin)) {
			line[strcspn(line, "\n")] = 0;
			status |= eval_one(line);
			fflush(stdout);
		}
		return status;
	}
	for (int i = 1; i < argc; i++)
		status |= eval_one(argv[i]);
	return status;
}
