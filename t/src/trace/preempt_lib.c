/* SPDX-License-Identifier: GPL-2.0-or-later */
/* preempt_lib.c - a shared library whose code has only global functions
 * of default visibility: each is preemptible, and preempt_main.c defines
 * pre_first too.  Nothing here may anchor the library's table: the
 * dynamic linker would bind the entries to the program's pre_first. */
int pre_first(int x)
{
	return x + 1;
}

int pre_outer(int x)
{
	return pre_first(x) * 2;
}
