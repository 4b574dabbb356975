/* SPDX-License-Identifier: GPL-2.0-or-later */
/* walk.c - a thread's calls from its events (read.h: struct call):
 * function_graph's entries matched to their exits by the exit's parent
 * word (its entry's time), a stack of the calls open; what report,
 * graph and flame count. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "read.h"

#define DEPTH 4096

struct frame {
	const struct func *f;
	uint64_t ts;                  /* its entry's ticks: its exit's parent */
	int64_t ns, child;
};

struct walk {
	const struct proc *p;
	struct cursor *c;
	struct frame st[DEPTH];
	const struct func *fs[DEPTH]; /* st's functions: struct call's outer */
	size_t n;
	/* calls left open by an exit of a call around them, or by the
	 * thread's end: given untimed, innermost first, from st[drop, n) */
	size_t drop, dropped_to;
	struct call held;             /* the call whose exit left them */
	bool has_held;
	size_t held_n;
	bool ended;
	uint64_t untabled;
};

struct walk *walk_open(const struct proc *p, const struct thread *t)
{
	struct walk *w = xmalloc(sizeof *w);
	w->p = p;
	w->c = cur_open(p, t);
	w->n = w->drop = w->dropped_to = w->held_n = 0;
	w->ended = w->has_held = false;
	w->untabled = 0;
	return w;
}

/* A call left open: untimed, at its depth. */
static void untimed(const struct walk *w, size_t k, struct call *c)
{
	*c = (struct call){ .f = w->st[k].f, .depth = (unsigned)k, .outer = w->fs, .start = w->st[k].ns };
}

bool walk_next(struct walk *w, struct call *c)
{
	for (;;) {
		/* the calls an exit (or the end) left open, innermost first;
		 * then the call that exit closed */
		if (w->drop > w->dropped_to) {
			untimed(w, --w->drop, c);
			return true;
		}
		if (w->has_held) {
			*c = w->held;
			w->has_held = false;
			w->n = w->held_n;
			return true;
		}
		if (w->ended)
			return false;
		struct event ev;
		if (!cur_next(w->c, &ev)) {
			w->ended = true;
			w->drop = w->n;
			w->dropped_to = 0;
			continue;
		}
		const struct ev *e = &ev.e;
		const struct func *f = func_of(w->p, e->ip & EV_SITE_MASK);
		if (!f) {
			w->untabled++;
			continue;
		}
		if (!(e->ip & EV_EXIT)) {
			int64_t ns = ev_ns(w->p, e->ts);
			if ((e->ip & (EV_GRAPH | EV_HOOKED)) == (EV_GRAPH | EV_HOOKED) && w->n < DEPTH) {
				w->fs[w->n] = f;
				w->st[w->n++] = (struct frame){ f, e->ts, ns, 0 };
				continue;
			}
			*c = (struct call){ .f = f, .depth = (unsigned)w->n, .outer = w->fs, .start = ns };
			return true;
		}
		size_t k = w->n;
		while (k > 0 && w->st[k - 1].ts != e->parent)
			k--;
		if (!k)
			continue;             /* an exit whose entry is not here */
		const struct frame *fr = &w->st[k - 1];
		int64_t dur = ev_ns(w->p, e->ts) - fr->ns;
		struct call tc = { .f = fr->f, .depth = (unsigned)(k - 1), .outer = w->fs, .start = fr->ns,
				   .timed = true, .dur = dur, .child = fr->child };
		if (k > 1)
			w->st[k - 2].child += dur;
		if (k < w->n) {
			w->drop = w->n;
			w->dropped_to = k;
			w->held = tc;
			w->has_held = true;
			w->held_n = k - 1;
			continue;
		}
		w->n = k - 1;
		*c = tc;
		return true;
	}
}

uint64_t walk_untabled(const struct walk *w)
{
	return w->untabled;
}

void walk_close(struct walk *w)
{
	if (!w)
		return;
	cur_close(w->c);
	free(w);
}
