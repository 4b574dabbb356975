/* SPDX-License-Identifier: GPL-2.0-or-later */
/* graph.h - a recording's calls as a tree, the calls of a function
 * under the same callers merged into one node (graph.c), and what is
 * shown of it: mcount-read graph (graph.c), flame (flame.c). */
#ifndef MCOUNT_READ_GRAPH_H
#define MCOUNT_READ_GRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "read.h"

/* One thread's calls, as thread_calls gives them: an entry, or an exit
 * matched to its entry. */
struct gcall {
	bool exit;
	const struct func *f;         /* entry: its function */
	const struct func *caller;    /* entry: the function of its return address, or NULL */
	bool opens;                   /* entry: an exit follows (function_graph, hooked) */
	bool graph;                   /* entry: made under function_graph */
	size_t depth;                 /* exit: the entries left open, once it and those above it are closed */
	int64_t ns;                   /* its time (ns) */
};
typedef void call_fn(void *ctx, const struct gcall *c);
void thread_calls(const struct proc *p, const struct thread *t, call_fn *fn, void *ctx);

struct gnode {
	char *name;
	uint64_t calls, timed;        /* calls; those with an exit */
	int64_t total, self;          /* ns, of the timed calls */
	struct gnode *kid, *last, *next;  /* children in the order first called */
	size_t nkids;
	uint64_t value;               /* flame.c's: its frame's width */
};

struct gtree {
	struct gnode root;            /* its children: the tree's roots */
	struct gnode **slot;          /* (parent, name) -> child, open addressing */
	size_t nslot, n;
	bool timed;                   /* a call had an exit */
	uint64_t deep;                /* calls deeper than GRAPH_DEPTH: not in it */
};

/* The tree's depth at most (the function tracer's recursions nest
 * each call in the last: a chain as long as the calls) */
#define GRAPH_DEPTH 2048

/* The calls of ps merged: under a root a process's program (programs
 * true), or without them the threads' outermost calls; with function
 * (a glob), the calls of the functions it names that are not under
 * another of them, with what they called. */
void gtree_build(struct gtree *g, struct proc *ps, size_t n, const char *function, bool programs);
void gtree_free(struct gtree *g);

void time_text(char *b, size_t len, int64_t ns);
void graph(struct proc *ps, size_t n, const char *function, long depth);
enum flame_fmt { FLAME_SVG, FLAME_HTML, FLAME_FOLDED };
void flame(struct proc *ps, size_t n, enum flame_fmt fmt, FILE *out);

#endif
