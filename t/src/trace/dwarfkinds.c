/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwarfkinds.c - the shapes of debug information t/82-trace-dwarf.t
 * reads prototypes from: a function inlined in one place and kept out
 * of line for a pointer (its DIE completes an abstract one), an enum,
 * the character pointers that are strings (through a typedef and
 * qualifiers) and those that are not, a variadic function, and the
 * parameters the hooks cannot see (a struct by value, a double), and a
 * function GCC splits into hot and cold parts (described by address
 * ranges, not by one address).
 * Prints a checksum that does not depend on tracing.
 */
#include <stdbool.h>
#include <stdio.h>

typedef char text_t;
enum color { RED = -1, GREEN = 7 };
struct pt {
	int x, y;
};

static int helper(int k, const char *tag)
{
	return k * 3 + tag[0];
}
int (*volatile helper_ptr)(int, const char *) = helper;

__attribute__((noinline)) int kinds(enum color c, const text_t *t, unsigned char *u, const signed char *s,
				    long long **pp, bool b)
{
	return (int)c + t[0] + u[0] + s[0] + (pp != 0) + b;
}

__attribute__((noinline)) int vari(int n, const char *first, ...)
{
	return n + first[0];
}

__attribute__((noinline)) int bypt(struct pt p, int z)
{
	return p.x + p.y + z;
}

__attribute__((cold, noinline)) void oops(const char *why)
{
	fprintf(stderr, "oops %s\n", why);
}

__attribute__((noinline)) int split(int a, const char *why)
{
	int r = 0;
	for (int i = 0; i < a; i++) {
		if (i == 1000000) {
			oops(why);
			r -= 7;
		}
		r += i ^ a;
	}
	return r;
}

__attribute__((noinline)) int fl(int a, double d)
{
	return a + (int)d;
}

int main(int argc, char **argv)
{
	(void)argv;
	int r = helper(argc, "inline");
	r += helper_ptr(argc + 1, "pointer");
	r += kinds(GREEN, "text", (unsigned char *)"uchar", (const signed char *)"schar", NULL, true);
	r += kinds(RED, "t2", (unsigned char *)"u2", (const signed char *)"s2", NULL, false);
	r += vari(2, "va", 3, 4);
	struct pt p = { 1, 2 };
	r += bypt(p, 3) + fl(2, 1.5) + split(argc, "cold");
	printf("%d\n", r);
	return 0;
}
