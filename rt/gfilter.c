/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gfilter.c - function_graph's filters, as the kernel has them
 * (set_graph_function, max_graph_depth, tracing_thresh) and uftrace
 * (-F, -D, -t): what they are set to, from the environment at start-up
 * and the control verbs (control.c).  The hot path (trace.c) applies
 * them; each thread's part of them lives with its shadow stack
 * (buffer.c, rt.h).
 *
 * The graph functions are globs, as a filter's: the sites of the
 * functions they name are a map (struct mt_retmap) the hot path looks
 * a call up in when the thread is under none; rebuilt when objects come
 * (mt_gf_refresh) and replaced whole on a change, never freed (a thread
 * may be reading it), as the prototypes' map is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

struct gf_glob {
	char *glob, *mod;
};
static struct gf_glob *globs;
static size_t nglobs;
static char *globs_text;

static void update_on(void)
{
	atomic_store(&mt_gf_on, atomic_load(&mt_gf_funcs) || atomic_load(&mt_gf_depth) || mt_gf_thresh);
}

static bool is_graph_func(const struct mt_func *f)
{
	if (!mt_reg.objs[f->obj]->live)
		return false;
	for (size_t i = 0; i < nglobs; i++)
		if (mt_func_matches(globs[i].glob, globs[i].mod, f))
			return true;
	return false;
}

static const void *graph_site(const struct mt_site *s)
{
	return is_graph_func(&mt_reg.funcs[s->func]) ? s : NULL;
}

void mt_gf_refresh(void)
{
	if (!nglobs)
		return;
	struct mt_retmap *m = mt_retmap_of(graph_site);
	atomic_store_explicit(&mt_gf_map, m, memory_order_release);
}

/* (mt_filter_each: each glob kept) */
static long keep_glob(const char *glob, const char *mod, void *arg)
{
	struct gf_glob *v = arg;
	struct gf_glob *g = &v[nglobs];
	g->glob = strdup(glob);
	g->mod = mod ? strdup(mod) : NULL;
	if (!g->glob || (mod && !g->mod)) {
		free(g->glob);
		free(g->mod);
		errno = ENOMEM;
		return -1;
	}
	nglobs++;
	return 0;
}

static void drop_globs(struct gf_glob *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].glob);
		free(v[i].mod);
	}
	free(v);
}

long mt_gf_set_funcs(const char *filter)
{
	size_t len = strlen(filter);
	struct gf_glob *v = calloc(len / 2 + 1, sizeof *v);
	char *text = strdup(filter + strspn(filter, " \t\n,"));
	if (!v || !text) {
		free(v);
		free(text);
		errno = ENOMEM;
		return -1;
	}
	struct gf_glob *old = globs;
	size_t nold = nglobs;
	globs = v;
	nglobs = 0;
	if (*text && mt_filter_each(filter, keep_glob, v)) {
		int e = errno;
		drop_globs(v, nglobs);
		globs = old;
		nglobs = nold;
		free(text);
		errno = e;
		return -1;
	}
	drop_globs(old, nold);
	free(globs_text);
	globs_text = text;
	long n = 0;
	for (size_t i = 0; nglobs && i < mt_reg.nfuncs; i++)
		n += is_graph_func(&mt_reg.funcs[i]);
	if (nglobs) {
		/* the map first, then the flag that makes the hot path read it */
		atomic_store_explicit(&mt_gf_map, mt_retmap_of(graph_site), memory_order_release);
		atomic_store(&mt_gf_funcs, true);
	} else {
		atomic_store(&mt_gf_funcs, false);
		atomic_store_explicit(&mt_gf_map, NULL, memory_order_release);
	}
	update_on();
	return n;
}

const char *mt_gf_funcs_text(void)
{
	return globs_text ? globs_text : "";
}

void mt_gf_set_depth(unsigned depth)
{
	atomic_store(&mt_gf_depth, depth);
	update_on();
}

void mt_gf_set_thresh(uint64_t ns)
{
	uint64_t t = ns ? mt_ns_to_ticks(ns) : 0;
	mt_gf_thresh_ns = ns;
	*(volatile uint64_t *)&mt_gf_thresh = ns && !t ? 1 : t;
	update_on();
}

int64_t mt_parse_duration(const char *s)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1e3 } };
	const char *p = s;
	if (*p < '0' || *p > '9')
		return -1;
	double v = 0;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (*p++ - '0');
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		for (double f = 0.1; *p >= '0' && *p <= '9'; f /= 10)
			v += (*p++ - '0') * f;
	}
	for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
		if (strcmp(p, units[i].unit))
			continue;
		double ns = v * units[i].ns + 0.5;
		/* (at most an hour: a threshold, not a date) */
		return ns > 3600e9 ? -1 : (int64_t)ns;
	}
	return -1;
}
