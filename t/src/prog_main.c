/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The runtime oracle's program: reach every instrumented function, then
 * let the hook's bookkeeping say whether each call site was in the table
 * and each table entry was reached. */
#include <stdio.h>
#include "corpus.h"

extern void (*const asm_ptrs[])(void);
int mcount_report(void);

int main(int argc, char **argv)
{
	(void)argv;
	/* a large argument takes maybe_slow() into its outlined .part clone,
	 * -12345 corpus_checked() into its .cold part (called from here, so
	 * that corpus_run() stays as GCC clones it) */
	int r = corpus_run(argc) + corpus_run(argc + 5000) + corpus_checked(-12345) +
		dup_a(argc) + dup_b(argc);
	for (int i = 0; asm_ptrs[i]; i++)
		asm_ptrs[i]();
	printf("corpus result %d\n", r);
	return mcount_report();
}
