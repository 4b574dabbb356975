/* SPDX-License-Identifier: GPL-2.0-or-later */
/* patch_lib.c - the fix of patchme.c's answer(), under its own name and
 * under another. */
unsigned long answer(unsigned long x);
unsigned long answer_fixed(unsigned long x);

unsigned long answer(unsigned long x)
{
	return x * 2;
}

unsigned long answer_fixed(unsigned long x)
{
	return x * 2;
}
