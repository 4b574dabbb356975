/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "corpus.h"

static __attribute__((noinline)) int helper(int x)
{
	return x * 6 + 2;
}

__attribute__((noinline, section(".text.dup_entry_b"))) int dup_b(int x)
{
	return helper(x) + 1;
}
