/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.c - per function: calls, total and self time, and the spread
 * of a call's time (min, avg, p50, p90, p99, max), from function_graph
 * entry/exit pairs (walk.c); an entry with no exit to follow (the
 * function tracer's, or a return not hooked) counts as a call, untimed.
 * Memory: a row a function, and 4 bytes a timed call (its duration;
 * 8 for a function with a call of 4.3 s or more, or of a negative time
 * (a clock gone back): the percentiles are exact, selected in place). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read.h"

struct stat_row {
	char *name;
	uint64_t calls, timed;
	int64_t total, self;
	/* the timed calls' durations (ns): 4 bytes each while they fit
	 * (from 0 to 2^32-1), then 8 (wide) */
	void *d;
	bool wide;
	size_t nd, cap;
	int64_t min, max, p[3];       /* of the durations; p50, p90, p99 (percentiles) */
};

struct table {
	struct stat_row *r;
	size_t n, cap;
	size_t *slot;                 /* open addressing on the name */
	size_t nslot;
};

static struct stat_row *row_of(struct table *t, const char *name)
{
	if (2 * (t->n + 1) > t->nslot) {
		free(t->slot);
		t->nslot = t->nslot ? t->nslot * 2 : 256;
		t->slot = xmalloc(t->nslot * sizeof *t->slot);
		for (size_t i = 0; i < t->nslot; i++)
			t->slot[i] = SIZE_MAX;
		for (size_t i = 0; i < t->n; i++) {
			size_t h = name_hash(0, t->r[i].name) & (t->nslot - 1);
			while (t->slot[h] != SIZE_MAX)
				h = (h + 1) & (t->nslot - 1);
			t->slot[h] = i;
		}
	}
	size_t h = name_hash(0, name) & (t->nslot - 1);
	while (t->slot[h] != SIZE_MAX) {
		if (!strcmp(t->r[t->slot[h]].name, name))
			return &t->r[t->slot[h]];
		h = (h + 1) & (t->nslot - 1);
	}
	if (t->n == t->cap)
		t->r = xrealloc(t->r, (t->cap = t->cap ? t->cap * 2 : 64) * sizeof *t->r);
	struct stat_row *r = &t->r[t->n];
	memset(r, 0, sizeof *r);
	r->name = xstrdup(name);
	t->slot[h] = t->n++;
	return r;
}

static void add_time(struct stat_row *r, int64_t dur, int64_t self)
{
	if (!r->timed || dur < r->min)
		r->min = dur;
	if (!r->timed || dur > r->max)
		r->max = dur;
	r->timed++;
	r->total += dur;
	r->self += self;
	if (!r->wide && (dur < 0 || dur > UINT32_MAX)) {
		int64_t *w = xmalloc((r->cap ? r->cap : 1) * sizeof *w);
		for (size_t i = 0; i < r->nd; i++)
			w[i] = ((uint32_t *)r->d)[i];
		free(r->d);
		r->d = w;
		r->wide = true;
	}
	if (r->nd == r->cap) {
		r->cap = r->cap ? r->cap + r->cap / 2 : 16;
		r->d = xrealloc(r->d, r->cap * (r->wide ? 8 : 4));
	}
	if (r->wide)
		((int64_t *)r->d)[r->nd++] = dur;
	else
		((uint32_t *)r->d)[r->nd++] = (uint32_t)dur;
}

static void thread_rows(struct table *tb, const struct proc *p, const struct thread *t, uint64_t *untabled)
{
	/* each function's row, once looked up (+1; 0: not yet) */
	size_t *row = xmalloc((p->nf ? p->nf : 1) * sizeof *row);
	memset(row, 0, (p->nf ? p->nf : 1) * sizeof *row);
	struct walk *w = walk_open(p, t);
	struct call c;
	while (walk_next(w, &c)) {
		size_t fi = (size_t)(c.f - p->f);
		if (!row[fi])
			row[fi] = (size_t)(row_of(tb, c.f->name) - tb->r) + 1;
		struct stat_row *r = &tb->r[row[fi] - 1];
		r->calls++;
		if (c.timed)
			add_time(r, c.dur, c.dur - c.child);
	}
	*untabled += walk_untabled(w);
	walk_close(w);
	free(row);
}

static const char *sort_key;

static int64_t dur_at(const struct stat_row *r, size_t i)
{
	return r->wide ? ((const int64_t *)r->d)[i] : ((const uint32_t *)r->d)[i];
}

static int64_t avg_of(const struct stat_row *r)
{
	return r->timed ? r->total / (int64_t)r->timed : 0;
}

static int by_key(const void *a, const void *b)
{
	const struct stat_row *x = a, *y = b;
	int64_t u = 0, v = 0;
	if (!strcmp(sort_key, "calls"))
		u = (int64_t)x->calls, v = (int64_t)y->calls;
	else if (!strcmp(sort_key, "total"))
		u = x->total, v = y->total;
	else if (!strcmp(sort_key, "self"))
		u = x->self, v = y->self;
	else if (!strcmp(sort_key, "avg"))
		u = avg_of(x), v = avg_of(y);
	else if (!strcmp(sort_key, "max"))
		u = x->max, v = y->max;
	if (u != v)
		return u > v ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int by_ns(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* a[0, n) reordered so that a[k] is its k-th smallest (from 0), none
 * larger before it, none smaller after (Hoare's selection; a range
 * that will not shrink is sorted) */
#define SELECT(NAME, T, CMP)                                                                      \
	static void NAME(T *a, size_t n, size_t k)                                                \
	{                                                                                         \
		size_t lo = 0, hi = n - 1;                                                        \
		for (unsigned round = 0; lo < hi; round++) {                                      \
			if (round > 64) {                                                         \
				qsort(a + lo, hi - lo + 1, sizeof *a, CMP);                       \
				return;                                                           \
			}                                                                         \
			T x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi];                        \
			T m = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);  \
			size_t i = lo, j = hi;                                                    \
			for (;;) {                                                                \
				while (a[i] < m)                                                  \
					i++;                                                      \
				while (a[j] > m)                                                  \
					j--;                                                      \
				if (i >= j)                                                       \
					break;                                                    \
				T t = a[i];                                                       \
				a[i++] = a[j];                                                    \
				a[j--] = t;                                                       \
			}                                                                         \
			/* [lo, j] <= m <= (j, hi] */                                            \
			if (k <= j)                                                               \
				hi = j;                                                           \
			else                                                                      \
				lo = j + 1;                                                       \
		}                                                                                 \
	}
SELECT(select_u32, uint32_t, by_u32)
SELECT(select_ns, int64_t, by_ns)

/* The nearest-rank percentiles 50, 90, 99 of r's durations: each
 * selected in place, the next one below the one before (O(n), none
 * sorted). */
static void percentiles(struct stat_row *r)
{
	static const unsigned q[3] = { 99, 90, 50 };
	size_t n = r->nd;
	for (int i = 0; i < 3 && r->nd; i++) {
		size_t k = (q[i] * r->nd + 99) / 100;
		k = k ? k - 1 : 0;
		if (r->wide)
			select_ns(r->d, n, k);
		else
			select_u32(r->d, n, k);
		r->p[2 - i] = dur_at(r, k);
		n = k + 1;
	}
}

static void put_us(char *b, size_t len, int64_t ns)
{
	snprintf(b, len, "%s%lld.%03lld", ns < 0 ? "-" : "", (long long)(ns < 0 ? -ns : ns) / 1000,
		 (long long)(ns < 0 ? -ns : ns) % 1000);
}

static void print_table(struct table *tb)
{
	for (size_t i = 0; i < tb->n; i++)
		percentiles(&tb->r[i]);
	if (tb->n)
		qsort(tb->r, tb->n, sizeof *tb->r, by_key);
	printf("%10s %12s %12s %12s %12s %12s %12s %12s %12s  %s\n", "calls", "total(us)", "self(us)", "min", "avg",
	       "p50", "p90", "p99", "max", "function");
	for (size_t i = 0; i < tb->n; i++) {
		const struct stat_row *r = &tb->r[i];
		printf("%10llu", (unsigned long long)r->calls);
		if (!r->nd) {
			for (int k = 0; k < 8; k++)
				printf(" %12s", "-");
		} else {
			int64_t v[8] = { r->total, r->self, r->min, avg_of(r), r->p[0], r->p[1], r->p[2], r->max };
			for (int k = 0; k < 8; k++) {
				char b[32];
				put_us(b, sizeof b, v[k]);
				printf(" %12s", b);
			}
		}
		printf("  %s\n", r->name);
	}
}

static void table_free(struct table *tb)
{
	for (size_t i = 0; i < tb->n; i++) {
		free(tb->r[i].name);
		free(tb->r[i].d);
	}
	free(tb->r);
	free(tb->slot);
	memset(tb, 0, sizeof *tb);
}

void report(struct proc *ps, size_t np, const char *sort, bool threads)
{
	sort_key = sort;
	struct table tb = { 0 };
	uint64_t untabled = 0;
	for (size_t pi = 0; pi < np; pi++) {
		for (size_t i = 0; i < ps[pi].nt; i++) {
			thread_rows(&tb, &ps[pi], &ps[pi].t[i], &untabled);
			if (threads) {
				printf("%s# thread %s %s (process %ld)\n", pi || i ? "\n" : "", ps[pi].t[i].name,
				       ps[pi].t[i].comm, ps[pi].pid);
				print_table(&tb);
				table_free(&tb);
			}
		}
	}
	if (!threads)
		print_table(&tb);
	table_free(&tb);
	if (untabled)
		printf("# %llu events at sites of no function in funcs\n", (unsigned long long)untabled);
}

/* ---- report --diff: two recordings' tables side by side ---- */

struct pair_row {
	const char *name;
	const struct stat_row *a, *b;   /* NULL: not on that side */
	int64_t key;                  /* the sort key's change, made positive */
};

/* A side's figure k (0 calls, 1 total, 2 self, 3 avg, 4 max), and
 * whether it has one: a function not on the side has 0 of each; one
 * called but never timed has no time. */
static bool figure(const struct stat_row *r, int k, int64_t *v)
{
	*v = 0;
	if (!r)
		return true;
	if (!k) {
		*v = (int64_t)r->calls;
		return true;
	}
	if (!r->nd)
		return false;
	*v = k == 1 ? r->total : k == 2 ? r->self : k == 3 ? avg_of(r) : r->max;
	return true;
}

static int by_change(const void *x, const void *y)
{
	const struct pair_row *a = x, *b = y;
	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int by_row_name(const void *x, const void *y)
{
	const struct stat_row *a = x, *b = y;
	return strcmp(a->name, b->name);
}

static void tables_of(struct table *tb, struct proc *ps, size_t np, uint64_t *untabled)
{
	for (size_t pi = 0; pi < np; pi++)
		for (size_t i = 0; i < ps[pi].nt; i++)
			thread_rows(tb, &ps[pi], &ps[pi].t[i], untabled);
	for (size_t i = 0; i < tb->n; i++)
		percentiles(&tb->r[i]);
	if (tb->n)
		qsort(tb->r, tb->n, sizeof *tb->r, by_row_name);
}

static void put_figure(bool has, int64_t v, bool us, bool sign)
{
	char b[40];
	if (!has)
		snprintf(b, sizeof b, "-");
	else if (!us)
		snprintf(b, sizeof b, sign && v > 0 ? "+%lld" : "%lld", (long long)v);
	else {
		put_us(b + 1, sizeof b - 1, v);
		if (sign && v > 0)
			b[0] = '+';
		else
			memmove(b, b + 1, strlen(b + 1) + 1);
	}
	printf(" %*s", us ? 13 : 10, b);
}

void report_diff(struct proc *pa, size_t na, const char *da, struct proc *pb, size_t nb, const char *db,
		 const char *sort)
{
	struct table ta = { 0 }, tb = { 0 };
	uint64_t ua = 0, ub = 0;
	tables_of(&ta, pa, na, &ua);
	tables_of(&tb, pb, nb, &ub);
	/* the two sorted by name, merged */
	struct pair_row *m = xmalloc((ta.n + tb.n + 1) * sizeof *m);
	size_t n = 0, i = 0, j = 0;
	while (i < ta.n || j < tb.n) {
		int c = i == ta.n ? 1 : j == tb.n ? -1 : strcmp(ta.r[i].name, tb.r[j].name);
		m[n].a = c <= 0 ? &ta.r[i++] : NULL;
		m[n].b = c >= 0 ? &tb.r[j++] : NULL;
		m[n].name = (m[n].a ? m[n].a : m[n].b)->name;
		n++;
	}
	int k = !strcmp(sort, "calls") ? 0 : !strcmp(sort, "total") ? 1 : !strcmp(sort, "self") ? 2
		: !strcmp(sort, "avg") ? 3 : !strcmp(sort, "max") ? 4 : -1;
	for (size_t r = 0; r < n; r++) {
		int64_t x, y;
		m[r].key = 0;
		if (k >= 0) {
			bool hx = figure(m[r].a, k, &x), hy = figure(m[r].b, k, &y);
			int64_t d = hx && hy ? y - x : 0;
			m[r].key = d < 0 ? -d : d;
		}
	}
	if (n)
		qsort(m, n, sizeof *m, by_change);
	printf("# A: %s, B: %s; change: B - A; in: the function is in A, B or both\n", da, db);
	printf("%10s %10s %10s", "calls:A", "calls:B", "change");
	static const char *const col[] = { "total", "self", "avg" };
	for (int c = 0; c < 3; c++) {
		char h[3][24];
		snprintf(h[0], sizeof h[0], "%s(us):A", col[c]);
		snprintf(h[1], sizeof h[1], "%s(us):B", col[c]);
		printf(" %13s %13s %13s", h[0], h[1], "change");
	}
	printf("  %-4s  %s\n", "in", "function");
	for (size_t r = 0; r < n; r++) {
		for (int c = 0; c < 4; c++) {
			int64_t x, y;
			bool hx = figure(m[r].a, c, &x), hy = figure(m[r].b, c, &y);
			put_figure(hx && m[r].a, x, c > 0, false);
			put_figure(hy && m[r].b, y, c > 0, false);
			put_figure(hx && hy, y - x, c > 0, true);
		}
		printf("  %-4s  %s\n", m[r].a && m[r].b ? "both" : m[r].a ? "A" : "B", m[r].name);
	}
	if (ua || ub)
		printf("# events at sites of no function in funcs: %llu in A, %llu in B\n", (unsigned long long)ua,
		       (unsigned long long)ub);
	free(m);
	table_free(&ta);
	table_free(&tb);
}
