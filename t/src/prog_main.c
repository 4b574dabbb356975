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
	int r = corpus_run(argc) + dup_a(argc) + dup_b(argc);
	for (int i = 0; asm_ptrs[i]; i++)
		asm_ptrs[i]();
	printf("corpus result %d\n", r);
	return mcount_report();
}
