/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bookkeeping of the cross-architecture runtime oracle (compiled without
 * -pg; the hook in t/src/arch/ARCH/hook.S calls mcount_check with what
 * its call site left in the link register).  At each call: exactly the
 * table entry of that call site must exist (entry_matches() knows where
 * each target's entry lies relative to the return address); calls from
 * exotic_text, which the kernel's section list leaves out, are counted
 * apart.  At the end: every entry reached, none listed twice; the holes
 * of a link-time table are no entries. */
#include <stdio.h>

/* 1 when the table records exotic_text too (a link-time table: every code
 * section of the program) */
#ifndef EXOTIC_RECORDED
#define EXOTIC_RECORDED 0
#endif

extern const unsigned long __start___mcount_loc[] __attribute__((weak));
extern const unsigned long __stop___mcount_loc[] __attribute__((weak));
extern const unsigned char __start_exotic_text[] __attribute__((weak));
extern const unsigned char __stop_exotic_text[] __attribute__((weak));
extern const unsigned char __ehdr_start[] __attribute__((weak));

/* A slot a link-time table left unused (the one-link method's table is
 * sized before the link): 0, or the load base once the loader relocated
 * it.  No entry. */
static int hole(unsigned long e)
{
	return e == 0 || e == (unsigned long)__ehdr_start;
}

/* t/src/prog_main.c calls these; the x86 hand-written cases are not built here */
void (*const asm_ptrs[])(void) = { 0 };

#define MAXE 4096
static unsigned hits[MAXE];
static unsigned long calls, unknown, exotic_calls, odd_entries;
static unsigned long first_unknown;

#if defined(__mips__)
static unsigned insn(unsigned long a)
{
	return *(const unsigned *)a;
}
/* The first instruction of the sequence: jal, lui, or a load from the GOT
 * (lw / ld base $gp); the call, 8 bytes before the return point, is jal,
 * jalr, or the bal that ld makes of a jalr marked R_MIPS_JALR.  The
 * sequences differ in length, so the entry is the nearest one before the
 * return point (mcount_check). */
static int mips_site(unsigned long e, unsigned long r)
{
	unsigned op, last;
	unsigned long d = r - e;
	if (e >= r || d > 0x30)
		return 0;
	op = insn(e) >> 26;
	last = insn(r - 8);
	if (!((last >> 26) == 0x03 || ((last >> 26) == 0 && (last & 0x3f) == 0x09) ||
	      (last >> 16) == 0x0411))
		return 0;
	if (op == 0x03)                                 /* jal; delay slot */
		return d == 8;
	if (op == 0x0f)                                 /* o32 lui, addiu, move, jalr, delay
							 * (-O0: move, addiu sp, jalr, nop);
							 * n64 lui x2, daddiu x2, dsll32, daddu, ... */
		return d == 20 || d == 24 || d == 36;
	if ((op == 0x23 || op == 0x37) && ((insn(e) >> 21) & 31) == 28)
		return d == 12 || d == 16 || d == 20;   /* GOT load, [move,] jalr, delay;
							 * -O0 -mlong-calls (GOT16): load,
							 * move, addiu sp, jalr, nop */
	return 0;
}
#define NEAREST 1
#endif

/* r: the hook's return address (sparc64: the address of the call) */
static int entry_matches(unsigned long e, unsigned long r)
{
#if defined(__aarch64__) || defined(__powerpc__)
	return e == r - 4;                      /* bl */
#elif defined(__arm__)
	return (e & ~1UL) == (r & ~1UL) - 4;    /* bl; Thumb entries keep bit 0 */
#elif defined(__riscv)
	/* auipc + jalr, or the jal a relaxing link makes of them */
	return e == r - 8 || (e == r - 4 && (*(const unsigned *)e & 0xfff) == 0x0ef);
#elif defined(__s390x__)
	/* stg %r14,8(%r15) (e3 e0 f0 08 00 24) + brasl %r14 (c0 e5), or
	 * brasl %r0 (c0 05: fentry); the bytes tell the two apart, so that
	 * an entry at the first's brasl is no fentry call */
	const unsigned char *p = (const unsigned char *)e;
	return (e == r - 12 && p[0] == 0xe3 && p[5] == 0x24 && p[6] == 0xc0 && p[7] == 0xe5) ||
	       (e == r - 6 && p[0] == 0xc0 && p[1] == 0x05);
#elif defined(__sparc__)
	return e == r;                          /* call */
#elif defined(__sh__)
	return e == r - 4 || e == r - 8;        /* the literal word before the return point
						 * (PIC: mcount@GOT, then a GOTPC word) */
#elif defined(__mips__)
	return mips_site(e, r);
#else
#error "no runtime oracle for this target"
#endif
}

void mcount_check(unsigned long ret);
void mcount_check(unsigned long ret)
{
	const unsigned long *e, *best = 0;
	calls++;
	for (e = __start___mcount_loc; e < __stop___mcount_loc; e++) {
		if (!hole(*e) && entry_matches(*e, ret)) {
#ifdef NEAREST
			if (best && *best > *e)
				continue;
#endif
			best = e;
#ifndef NEAREST
			break;
#endif
		}
	}
	if (best) {
		if (best - __start___mcount_loc < MAXE)
			hits[best - __start___mcount_loc]++;
		return;
	}
	if (!EXOTIC_RECORDED && (const unsigned char *)ret > __start_exotic_text &&
	    (const unsigned char *)ret <= __stop_exotic_text + 8) {
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
		if (hole(__start___mcount_loc[i])) {
			holes++;
			continue;
		}
		if (hits[i])
			reached++;
		else
			printf("entry %lu (%#lx) never reached\n", i, __start___mcount_loc[i]);
		if (__start___mcount_loc[i] & 1)
			odd_entries++;
		for (unsigned long j = i + 1; j < n; j++)
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
	printf("entries=%lu reached=%lu calls=%lu unknown=%lu duplicates=%lu excluded_calls=%lu "
	       "odd_entries=%lu holes=%lu\n", n, reached, calls, unknown, dups, exotic_calls, odd_entries,
	       holes);
	fflush(stdout);
	bad |= n == 0 || n > MAXE || reached != n || unknown || dups;
	return bad ? 3 : 0;
}
