/* SPDX-License-Identifier: GPL-2.0-or-later */
/* graph.c - the call tree: each thread's calls walked with entries and
 * exits matched (thread_calls, the one reader of events here), merged
 * by name under the same callers (gtree_build), and printed as a graph
 * of total time and calls per node (mcount-read graph).
 *
 * A function_graph recording nests by its exits.  The function
 * tracer's entries have no exits: an entry goes under the innermost
 * open call of the function its return address lies in, the calls
 * above that one taken as returned; under no open call of that
 * function, it is a root (or under the innermost function_graph call). */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"

void thread_calls(const struct proc *p, const struct thread *t, call_fn *fn, void *ctx)
{
	uint64_t *open = NULL;        /* the open entries' times, outermost first */
	size_t n = 0, cap = 0;
	struct cursor *cu = cur_open(p, t);
	struct event ev;
	while (cur_next(cu, &ev)) {
		const struct ev *e = &ev.e;
		const struct func *f = func_of(p, e->ip & EV_SITE_MASK);
		if (!f)
			continue;             /* a site of no function: report counts them */
		struct gcall c = { .f = f, .ns = ev_ns(p, e->ts) };
		if (!(e->ip & EV_EXIT)) {
			c.graph = e->ip & EV_GRAPH;
			c.opens = c.graph && (e->ip & EV_HOOKED);
			if (!c.graph)
				c.caller = func_of(p, e->parent);
			if (c.opens) {
				if (n == cap)
					open = xrealloc(open, (cap = cap ? 2 * cap : 64) * sizeof *open);
				open[n++] = e->ts;
			}
			fn(ctx, &c);
			continue;
		}
		size_t k = n;
		while (k > 0 && open[k - 1] != e->parent)
			k--;
		if (!k)
			continue;             /* an exit whose entry is not here */
		n = k - 1;
		c.exit = true;
		c.depth = n;
		fn(ctx, &c);
	}
	cur_close(cu);
	free(open);
}

/* ---- the tree ---- */

static size_t hash(const struct gnode *parent, const char *s)
{
	uint64_t h = name_hash((uint64_t)(uintptr_t)parent, s);
	return (size_t)(h ^ (h >> 29));
}

/* A node as the table holds it: with its parent, the half of its key
 * that is not its name. */
struct keyed {
	struct gnode n;
	struct gnode *parent;
};

/* parent's child name, made if new */
static struct gnode *child(struct gtree *g, struct gnode *parent, const char *name)
{
	if (2 * (g->n + 1) > g->nslot) {
		size_t old = g->nslot;
		struct gnode **os = g->slot;
		g->nslot = old ? 2 * old : 1024;
		g->slot = xmalloc(g->nslot * sizeof *g->slot);
		memset(g->slot, 0, g->nslot * sizeof *g->slot);
		for (size_t i = 0; i < old; i++) {
			if (!os[i])
				continue;
			size_t h = hash(((struct keyed *)os[i])->parent, os[i]->name) & (g->nslot - 1);
			while (g->slot[h])
				h = (h + 1) & (g->nslot - 1);
			g->slot[h] = os[i];
		}
		free(os);
	}
	size_t h = hash(parent, name) & (g->nslot - 1);
	for (; g->slot[h]; h = (h + 1) & (g->nslot - 1)) {
		struct keyed *k = (struct keyed *)g->slot[h];
		if (k->parent == parent && !strcmp(k->n.name, name))
			return &k->n;
	}
	struct keyed *k = xmalloc(sizeof *k);
	memset(k, 0, sizeof *k);
	k->parent = parent;
	k->n.name = xstrdup(name);
	if (parent->last)
		parent->last->next = &k->n;
	else
		parent->kid = &k->n;
	parent->last = &k->n;
	parent->nkids++;
	g->slot[h] = &k->n;
	g->n++;
	return &k->n;
}

struct frame {
	struct gnode *n;              /* NULL: outside the calls shown */
	unsigned level;               /* n's in the tree (1: a root); GRAPH_DEPTH + 1: too deep */
	const struct func *f;
	bool graph;                   /* open until its exit (else: the function tracer's) */
	int64_t ns, kids;             /* its entry; its timed children's time */
};

struct walk {
	struct gtree *g;
	struct gnode *base;           /* the roots' parent; NULL: only the function's calls */
	const char *function;
	struct frame *st;
	size_t n, cap, ngraph;        /* frames; of them, function_graph's */
};

static void on_call(void *ctx, const struct gcall *c)
{
	struct walk *w = ctx;
	if (c->exit) {
		/* the frames above the exit's entry: returned, untimed */
		while (w->n && (w->ngraph > c->depth + 1 || !w->st[w->n - 1].graph)) {
			w->ngraph -= w->st[w->n - 1].graph;
			w->n--;
		}
		if (!w->n)
			return;
		struct frame *fr = &w->st[--w->n];
		w->ngraph--;
		int64_t d = c->ns - fr->ns;
		if (fr->n) {
			fr->n->timed++;
			fr->n->total += d;
			fr->n->self += d - fr->kids;
			w->g->timed = true;
		}
		/* (a call too deep: its time its caller's own) */
		if (w->n && fr->level <= GRAPH_DEPTH)
			w->st[w->n - 1].kids += d;
		return;
	}
	if (!c->graph) {
		/* under the innermost open call of its caller, not past a
		 * function_graph call (which returns by its exit) */
		size_t k = w->n;
		while (k > 0 && !w->st[k - 1].graph && w->st[k - 1].f != c->caller)
			k--;
		if (!(k > 0 && w->st[k - 1].f == c->caller && !w->st[k - 1].graph)) {
			k = w->n;
			while (k > 0 && !w->st[k - 1].graph)
				k--;
		}
		w->n = k;
	}
	struct gnode *parent = w->n ? w->st[w->n - 1].n : w->base, *node = NULL;
	unsigned level = w->n ? w->st[w->n - 1].level : 0;
	if (level >= GRAPH_DEPTH) {
		w->g->deep++;
		level = GRAPH_DEPTH + 1;
	} else if (parent) {
		node = child(w->g, parent, c->f->name);
		level++;
	} else if (!fnmatch(w->function, c->f->name, 0)) {
		node = child(w->g, &w->g->root, c->f->name);
		level = 1;
	}
	if (node)
		node->calls++;
	if (c->graph && !c->opens)
		return;                       /* no exit follows: a leaf */
	if (w->n == w->cap)
		w->st = xrealloc(w->st, (w->cap = w->cap ? 2 * w->cap : 64) * sizeof *w->st);
	w->st[w->n++] = (struct frame){ node, level, c->f, c->graph, c->ns, 0 };
	w->ngraph += c->graph;
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path && *path ? path : "?";
}

void gtree_build(struct gtree *g, struct proc *ps, size_t np, const char *function, bool programs)
{
	memset(g, 0, sizeof *g);
	g->root.name = xstrdup("");
	struct walk w = { .g = g, .function = function };
	for (size_t pi = 0; pi < np; pi++) {
		w.base = NULL;
		if (!function && programs) {
			w.base = child(g, &g->root, base_name(ps[pi].program));
			w.base->calls++;
		} else if (!function) {
			w.base = &g->root;
		}
		for (size_t i = 0; i < ps[pi].nt; i++) {
			w.n = w.ngraph = 0;
			thread_calls(&ps[pi], &ps[pi].t[i], on_call, &w);
		}
	}
	free(w.st);
}

static void node_free(struct gnode *n)
{
	for (struct gnode *k = n->kid, *next; k; k = next) {
		next = k->next;
		node_free(k);
		free(k->name);
		free((struct keyed *)k);
	}
}

void gtree_free(struct gtree *g)
{
	node_free(&g->root);
	free(g->root.name);
	free(g->slot);
	memset(g, 0, sizeof *g);
}

/* ---- mcount-read graph ---- */

/* ns as uftrace's graph shows a time: us, ms or s, three decimals (cut,
 * not rounded) */
void time_text(char *b, size_t len, int64_t ns)
{
	const char *sign = ns < 0 ? "-" : "";
	uint64_t v = ns < 0 ? (uint64_t)-ns : (uint64_t)ns;
	if (v < 1000000)
		snprintf(b, len, "%s%llu.%03llu us", sign, (unsigned long long)(v / 1000), (unsigned long long)(v % 1000));
	else if (v < 1000000000)
		snprintf(b, len, "%s%llu.%03llu ms", sign, (unsigned long long)(v / 1000000),
			 (unsigned long long)(v / 1000 % 1000));
	else
		snprintf(b, len, "%s%llu.%03llu  s", sign, (unsigned long long)(v / 1000000000),
			 (unsigned long long)(v / 1000000 % 1000));
}

struct prefix {
	char *s;
	size_t n, cap;
};

static void prefix_put(struct prefix *p, const char *s)
{
	size_t k = strlen(s);
	if (p->n + k + 1 > p->cap)
		p->s = xrealloc(p->s, p->cap = 2 * (p->n + k + 1));
	memcpy(p->s + p->n, s, k + 1);
	p->n += k;
}

static void line(const struct gnode *n, const char *lead)
{
	char t[40] = "";
	if (n->timed)
		time_text(t, sizeof t, n->total);
	printf("%12s : %s(%llu) %s\n", t, lead, (unsigned long long)n->calls, n->name);
}

/* n's children under cont (the prefix of n's descendants' lines); level:
 * theirs (1: the functions at the top) */
static void kids(const struct gnode *n, struct prefix *cont, long level, long depth)
{
	if (depth && level > depth)
		return;
	size_t at = cont->n;
	if (n->nkids == 1) {
		/* an only child: in its parent's column */
		line(n->kid, cont->s);
		kids(n->kid, cont, level + 1, depth);
		return;
	}
	for (const struct gnode *k = n->kid; k; k = k->next) {
		prefix_put(cont, " +-");
		line(k, cont->s);
		cont->s[cont->n = at] = 0;
		prefix_put(cont, k->next ? " | " : "   ");
		kids(k, cont, level + 1, depth);
		cont->s[cont->n = at] = 0;
		if (k->next)
			printf("%12s : %s |\n", "", cont->s);
	}
}

void graph(struct proc *ps, size_t np, const char *function, long depth)
{
	struct gtree g;
	gtree_build(&g, ps, np, function, true);
	if (function)
		printf("# call graph of %s\n", function);
	else
		printf("# call graph of every thread, under its program\n");
	printf("#%11s : %s\n", "TOTAL TIME", "(CALLS) FUNCTION");
	struct prefix cont = { 0 };
	prefix_put(&cont, "");
	for (const struct gnode *r = g.root.kid; r; r = r->next) {
		/* a program's time: its threads' outermost calls' */
		struct gnode shown = *r;
		if (!function) {
			shown.timed = shown.total = 0;
			for (const struct gnode *k = r->kid; k; k = k->next)
				if (k->timed) {
					shown.timed += k->timed;
					shown.total += k->total;
				}
		}
		line(&shown, "");
		kids(r, &cont, function ? 2 : 1, depth);
	}
	if (!g.root.kid && function)
		printf("# no call of %s\n", function);
	if (g.deep)
		printf("# %llu calls more than %d calls deep: not shown\n", (unsigned long long)g.deep, GRAPH_DEPTH);
	free(cont.s);
	gtree_free(&g);
}
