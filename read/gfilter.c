/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gfilter.c - function_graph's filters at replay (--graph-function,
 * --time-threshold, --depth), as the live tracer applies
 * them (rt/trace.c), so that a replay of a recording made without them
 * shows the lines a recording made with them would: a thread's events
 * fed in order, one entry or exit at a time, each answered with whether
 * it is shown and at what depth.
 *
 *   - a call is traced under a graph function (its frame and all it
 *     calls while it runs), or when none is given;
 *   - and less deep than the depth (0: any) below the outermost traced
 *     frame, counting the traced frames only;
 *   - with a threshold, no entry is shown, and a traced call's return
 *     is shown when it took at least that long, at depth 0 (the live
 *     trace has no entries to indent it by), a frame left without
 *     returning not at all.
 *
 * A traced entry is a leaf when nothing traced comes before its return:
 * the return follows it, or the depth leaves its calls out (the live
 * tracer's ring then holds its entry and return side by side). */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "read.h"

enum { TRACED = 1, ROOT = 2, QUIET = 4, MERGED = 8 };

bool gf_active(const struct gfilter *g)
{
	return g->nglobs || g->thresh > 0 || g->depth > 0;
}

static bool is_graph_func(const struct gfilter *g, const char *fn)
{
	for (size_t i = 0; i < g->nglobs; i++)
		if (!fnmatch(g->globs[i], fn, 0))
			return true;
	return false;
}

static void push(struct gf_thread *t, uint64_t ts, uint8_t marks, unsigned shown_depth)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->f = xrealloc(t->f, t->cap * sizeof *t->f);
	}
	t->f[t->n++] = (struct gf_frame){ ts, marks, shown_depth };
	if (marks & TRACED) {
		t->depth++;
		t->shown += !(marks & QUIET);
		t->in |= (marks & ROOT) != 0;
	}
}

static struct gf_frame pop(struct gf_thread *t)
{
	struct gf_frame f = t->f[--t->n];
	if (f.marks & TRACED) {
		t->depth--;
		t->shown -= !(f.marks & QUIET);
		if (f.marks & ROOT)
			t->in = false;
	}
	return f;
}

int gf_entry(const struct gfilter *g, struct gf_thread *t, const char *fn, uint64_t ts, bool hooked,
	     unsigned *depth)
{
	bool root = false, admit = true;
	if (g->nglobs && !t->in) {
		admit = is_graph_func(g, fn);
		root = admit;
	}
	if (admit && g->depth && t->depth >= (unsigned long)g->depth)
		admit = false;
	bool quiet = g->thresh > 0;
	if (quiet && !hooked)
		admit = false;
	*depth = t->shown;
	if (hooked)
		push(t, ts, (uint8_t)(admit ? TRACED | (root ? ROOT : 0) | (quiet ? QUIET : 0) : 0), t->shown);
	return !admit ? GF_NOT : quiet ? GF_QUIET : GF_SHOWN;
}

bool gf_leaf_by_depth(const struct gfilter *g, const struct gf_thread *t)
{
	return g->depth && t->depth >= (unsigned long)g->depth;
}

void gf_merged(struct gf_thread *t)
{
	if (t->n)
		t->f[t->n - 1].marks |= MERGED;
}

int gf_exit(const struct gfilter *g, struct gf_thread *t, uint64_t parent, double dur, bool unwound,
	    unsigned *depth)
{
	unsigned i = t->n;
	while (i > 0 && t->f[i - 1].ts != parent)
		i--;
	*depth = 0;
	if (!i) {
		/* its entry not in the recording: shown where the live
		 * tracer would have traced a call here */
		if (g->nglobs && !t->in)
			return GF_NOT;
		return g->thresh > 0 && (unwound || dur < g->thresh) ? GF_NOT : GF_QUIET;
	}
	while (t->n > i)
		pop(t);               /* (their returns lost) */
	struct gf_frame f = pop(t);
	if (!(f.marks & TRACED) || (f.marks & MERGED))
		return GF_NOT;
	if (f.marks & QUIET)
		return !unwound && dur >= g->thresh ? GF_QUIET : GF_NOT;
	*depth = f.shown_depth;
	return GF_SHOWN;
}

void gf_thread_free(struct gf_thread *t)
{
	free(t->f);
	memset(t, 0, sizeof *t);
}
