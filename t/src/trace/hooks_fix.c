/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hooks_fix.c - a fixed copy of hooks.c's f1 in a library of its own,
 * for `hooks unload`: redirected to, then unloaded. */
unsigned long fixed_far(unsigned long x)
{
	return x * 3 + 200;
}
