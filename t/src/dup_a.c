/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dup_a.c and dup_b.c each have a static "helper"; `ld -r` of both gives one
 * .text with two local symbols named helper and nothing else, so neither
 * may be globalized: the tool has to add an anchor of its own. */
#include "corpus.h"

static __attribute__((noinline)) int helper(int x)
{
	return x * 5 + 1;
}

__attribute__((noinline, section(".text.dup_entry_a"))) int dup_a(int x)
{
	return helper(x) + 1;
}
