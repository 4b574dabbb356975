/* SPDX-License-Identifier: GPL-2.0-or-later */
/* read.h - mcount-read's model of a recording (doc/trace-format.md):
 * one process directory read whole, its threads' events in sequence
 * order, names and times ready to be looked up. */
#ifndef MCOUNT_READ_H
#define MCOUNT_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "argfmt.h"

/* The ip word's fields */
#define EV_SITE_MASK  ((UINT64_C(1) << 48) - 1)
#define EV_CPU_SHIFT  48
#define EV_CPU_MASK   0xfffu
#define EV_EXIT       (UINT64_C(1) << 63)
#define EV_UNWOUND    (UINT64_C(1) << 62)    /* exit: unwound */
#define EV_HOOKED     (UINT64_C(1) << 62)    /* entry: its exit follows */
#define EV_ARGS       (UINT64_C(1) << 61)
#define EV_GRAPH      (UINT64_C(1) << 60)

#define EV_BYTES 24

struct ev {
	uint64_t ts, ip, parent;
};

/* An event with its payload: sequence index of the event, the count of
 * its payload slots (all present: a cut one is dropped). */
struct rec {
	size_t at;
	size_t nslots;
};

struct func {
	uint64_t addr, end;
	unsigned long obj;
	size_t line;                  /* the line's number in funcs */
	char *name;
	size_t index;                 /* in the report's table */
};

struct proto {
	uint64_t key;
	size_t nargs;
	struct { char *name; enum mt_arg_kind kind; unsigned bits; } a[16];
};

struct thread {
	long tid;
	unsigned long gen;            /* N of ring-TID.N: a later thread of the same TID */
	char name[32];                /* TID or TID.N, as its files are named */
	char comm[17];
	struct ev *v;                 /* the stream's events, then the ring's */
	size_t n;
	size_t from_stream;           /* of v: those from the stream */
	size_t recovered;             /* of v: those from the ring */
	size_t torn;                  /* 1 if the stream ends in a cut event */
	uint64_t gap;                 /* events between stream and tail, lost */
	bool has_ring, ring_bad;
	uint64_t lost, noshadow, unwound, untabled, recursion;
	struct rec *r;                /* events with payloads resolved */
	size_t nr;
	size_t cut;                   /* entries with a payload cut short */
};

struct pair { uint64_t ticks; double ns; };

struct object {
	unsigned long id;
	uint64_t bias;
	char *name;                   /* the file's name, without its directory */
};

struct proc {
	char *dir;
	struct object *o;             /* by bias */
	size_t no;
	char *program, *argv, *arch, *tracer, *clock, *start;
	long pid, ppid;
	bool big, host_big;
	unsigned word_bits;
	bool monotonic;
	struct pair *clk;
	size_t nclk;
	struct func *f;
	size_t nf;
	struct proto *p;
	size_t np;
	struct thread *t;
	size_t nt;
	bool done;
	uint64_t done_events, done_lost;
	char *done_end;
	size_t torn_lines;
};

/* read.c */
extern int read_status;       /* 0, or 1 once a file was refused */
void complain(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
int proc_load(struct proc *p, const char *dir);
void proc_free(struct proc *p);
double ev_seconds(const struct proc *p, uint64_t ticks);
int64_t ev_ns(const struct proc *p, uint64_t ticks);
const struct func *func_of(const struct proc *p, uint64_t addr);
const struct proto *proto_of(const struct proc *p, uint64_t key);
const char *addr_name(const struct proc *p, uint64_t addr, char *buf, size_t len);
void load_objects(struct proc *p);
size_t args_format(const struct proc *p, const struct ev *slots, size_t nslots, bool json, char *out,
		   size_t cap);

/* gfilter.c: function_graph's filters at replay, as live (gf_entry's
 * answer: not traced, traced but its entry not shown, shown) */
struct gfilter {
	const char **globs;           /* the graph functions (--graph-function) */
	size_t nglobs;
	long depth;                   /* with them: the live --depth (0: any) */
	double thresh;                /* seconds (0: none) */
};
struct gf_frame {
	uint64_t ts;
	uint8_t marks;
	unsigned shown_depth;
};
struct gf_thread {                    /* a thread's frames (zeroed to start) */
	struct gf_frame *f;
	unsigned n, cap, depth, shown;
	bool in;
};
enum { GF_NOT, GF_QUIET, GF_SHOWN };
bool gf_active(const struct gfilter *g);
int gf_entry(const struct gfilter *g, struct gf_thread *t, const char *fn, uint64_t ts, bool hooked,
	     unsigned *depth);
/* After a shown entry: do the filters leave all its calls out?  Then
 * gf_merged says its return is shown with it (a leaf). */
bool gf_leaf_by_depth(const struct gfilter *g, const struct gf_thread *t);
void gf_merged(struct gf_thread *t);
/* A return (its entry's time, its duration): GF_NOT (not shown),
 * GF_QUIET (shown, its entry was not), GF_SHOWN. */
int gf_exit(const struct gfilter *g, struct gf_thread *t, uint64_t parent, double dur, bool unwound,
	    unsigned *depth);
void gf_thread_free(struct gf_thread *t);

/* replay.c, report.c, info (main.c) */
struct replay_opts {
	int fmt;                      /* 0 text, 1 json, 2 chrome */
	const char *function;
	long tid;
	bool has_since, has_until;
	double since, until;
	long depth;                   /* 0: any */
	struct gfilter gf;            /* (its depth: depth) */
};
void replay(struct proc *ps, size_t n, const struct replay_opts *o);
void report(struct proc *ps, size_t n, const char *sort, bool threads);

#endif
