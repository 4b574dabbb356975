/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cycler_fix.c - a replacement for cycler.c's work_b that counts no
 * call (t/112: a live patch seen in the program's own counts). */
void work_b(int i);

void work_b(int i)
{
	__asm__ volatile("" : : "r"(i) : "memory");
}
