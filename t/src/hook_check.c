/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bookkeeping of the runtime oracle (compiled without -pg).  At each call
 * of the hook: the call instruction that ends at the return address must
 * be an entry of __mcount_loc (unless it lies in a section the table
 * leaves out, exotic_text when EXOTIC_RECORDED is 0).  At the end: every
 * entry was reached, none twice listed, and the left-out section was
 * really called. */
#include <stdio.h>

#ifndef EXOTIC_RECORDED
#define EXOTIC_RECORDED 0
#endif

extern const unsigned long __start___mcount_loc[] __attribute__((weak));
extern const unsigned long __stop___mcount_loc[] __attribute__((weak));
extern const unsigned char __start_exotic_text[] __attribute__((weak));
extern const unsigned char __stop_exotic_text[] __attribute__((weak));
extern const unsigned char __ehdr_start[] __attribute__((weak));

/* A slot a link-time table left unused: 0, or the load base once the
 * loader relocated it.  No entry. */
static int hole(unsigned long e)
{
	return e == 0 || e == (unsigned long)__ehdr_start;
}

#define MAXE 4096
static unsigned hits[MAXE];
static unsigned long calls, unknown, exotic_calls;
static unsigned long first_unknown;

/* Is there a call instruction at a that ends at ret? */
static int call_at(unsigned long a, unsigned long ret)
{
	const unsigned char *p = (const unsigned char *)a;
	unsigned long len = ret - a;
	if (len == 5 && p[0] == 0xe8)
		return 1;                                   /* call rel32 */
	if (len == 6 && p[0] == 0x67 && p[1] == 0xe8)
		return 1;                                   /* addr32 call (relaxed GOT call) */
	if (len == 6 && p[0] == 0xff && (p[1] == 0x15 || (p[1] & 0xf8) == 0x90))
		return 1;                                   /* call *disp32(%rip / %reg) */
	return 0;
}

void mcount_check(unsigned long ret);
void mcount_check(unsigned long ret)
{
	const unsigned long *e;
	calls++;
	for (e = __start___mcount_loc; e < __stop___mcount_loc; e++) {
		if (*e < ret && ret - *e <= 6 && call_at(*e, ret)) {
			if (e - __start___mcount_loc < MAXE)
				hits[e - __start___mcount_loc]++;
			return;
		}
	}
	if (!EXOTIC_RECORDED && (const unsigned char *)ret > __start_exotic_text &&
	    (const unsigned char *)ret <= __stop_exotic_text) {
		exotic_calls++;
		return;
	}
	if (!unknown++)
		first_unknown = ret;
}

int mcount_report(void);
int mcount_report(void)
{
	unsigned long n = (unsigned long)(__stop___mcount_loc - __start___mcount_loc);
	unsigned long reached = 0, dups = 0, holes = 0;
	int bad = 0;
	for (unsigned long i = 0; i < n && i < MAXE; i++) {
		if (hole(__start___mcount_loc[i]))
			holes++;
		else if (hits[i])
			reached++;
		else
			printf("entry %lu (%#lx) never reached\n", i, __start___mcount_loc[i]);
		for (unsigned long j = i + 1; j < n && !hole(__start___mcount_loc[i]); j++)
			if (__start___mcount_loc[i] == __start___mcount_loc[j])
				dups++;
	}
	if (unknown)
		printf("%lu calls from sites not in the table (first returns to %#lx)\n",
		       unknown, first_unknown);
	if (!EXOTIC_RECORDED && !exotic_calls) {
		printf("the left-out section was never called\n");
		bad = 1;
	}
	n -= holes;
	printf("entries=%lu reached=%lu calls=%lu unknown=%lu duplicates=%lu excluded_calls=%lu\n",
	       n, reached, calls, unknown, dups, exotic_calls);
	bad |= n == 0 || n > MAXE || reached != n || unknown || dups;
	return bad ? 3 : 0;
}
