/* SPDX-License-Identifier: GPL-2.0-or-later */
/* read.h - mcount-read's model of a recording (doc/trace-format.md):
 * a process directory's text files read whole (names, times, objects),
 * its threads' events streamed through a cursor, in sequence order, a
 * chunk at a time: memory does not grow with the recording. */
#ifndef MCOUNT_READ_H
#define MCOUNT_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* An event with its payload: the count of its payload slots (all
 * present: a cut one is dropped), which follow it in slots[]. */
struct event {
	struct ev e;
	const struct ev *slots;       /* the cursor's: valid until its next cur_next */
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
	size_t from_stream;           /* slots in the stream file */
	size_t recovered;             /* slots from the ring, after them */
	size_t torn;                  /* 1 if the stream ends in a cut event */
	uint64_t gap;                 /* events between stream and tail, lost */
	bool has_ring, ring_bad;
	uint64_t lost, noshadow, unwound, untabled, recursion;
	/* where the ring's remainder is: its first sequence number, the
	 * sequence's wrap (2^64-1 or 2^32-1), mask, the slots' offset */
	uint64_t ring_from, ring_wrap, ring_mask, ring_ev;
	/* thread_count's (info): its events with payloads; entries with a
	 * payload cut short; the first and last event's ticks */
	bool counted;
	size_t nr, cut;
	uint64_t first, last;
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
	uint64_t done_drain;          /* ns of cpu the drain spent; 0: not said */
	char *done_end;
	size_t torn_lines;
};

/* read.c */
extern int read_status;       /* 0, or 1 once a file was refused */
void complain(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* FNV-1a of s, its start seeded (0: plain): the tables of names */
uint64_t name_hash(uint64_t seed, const char *s);
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

/* ---- a thread's events, streamed (read.c) ----
 *
 * struct cursor *c = cur_open(p, t);
 * struct event e;
 * while (cur_next(c, &e)) ... e.e, and e.slots[0 .. e.nslots) ...
 * cur_close(c);
 *
 * cur_open: a cursor at t's first event: the stream file's slots, then
 * the ring's remainder (from t->ring_from: proc_load settled overlap,
 * gap and a refused ring), read a chunk of 512 slots at a time by
 * pread(2), the file opened for each chunk (no descriptor held between
 * calls); never NULL.  cur_next: the next event and its payload slots;
 * false at the end: then cur_cut says whether the last entry's payload
 * was cut short (dropped with it).  A file that cannot be read now, or
 * that shrank since proc_load, ends the events there.  A cursor holds a
 * chunk (12 KiB) and the longest payload seen (at most 65535 slots);
 * any number of cursors may be open at once.  cur_dup: a second cursor
 * at c's place, which moves on its own (a look ahead).
 * thread_count: one pass of a cursor over t, for info (nr, cut, first,
 * last). */
struct cursor;
struct cursor *cur_open(const struct proc *p, const struct thread *t);
bool cur_next(struct cursor *c, struct event *e);
bool cur_cut(const struct cursor *c);
struct cursor *cur_dup(const struct cursor *c);
void cur_close(struct cursor *c);
void thread_count(const struct proc *p, struct thread *t);

/* ---- a thread's calls (walk.c): function_graph's entries matched to
 * their exits as report, graph and flame count them ----
 *
 * struct walk *w = walk_open(p, t);
 * struct call c;
 * while (walk_next(w, &c)) ...
 * walk_close(w);
 *
 * Each call once: a timed one when its exit comes (after its callees:
 * post-order); one with no exit to follow (the function tracer's, or a
 * return not hooked) when its entry comes; one whose exit never comes
 * (the thread's end, or an exit of a call around it) then, untimed.
 * An exit is matched to the innermost open call whose entry time is its
 * parent word; an exit of no open call is dropped.  At most 4096 calls
 * are open at once (deeper ones: untimed).  Events at a site of no
 * function of funcs are skipped and counted (walk_untabled). */
struct call {
	const struct func *f;
	unsigned depth;               /* calls open around it */
	const struct func *const *outer;   /* those calls' functions, outermost
					    * first (till the next walk_next) */
	int64_t start;                /* its entry's time, ns */
	bool timed;
	int64_t dur, child;           /* timed: ns in it; of that, in its timed callees */
};
struct walk;
struct walk *walk_open(const struct proc *p, const struct thread *t);
bool walk_next(struct walk *w, struct call *c);
uint64_t walk_untabled(const struct walk *w);
void walk_close(struct walk *w);

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
	int fmt;                      /* 0 text, 1 json, 2 chrome, 3 perfetto */
	const char *function;
	long tid;
	bool has_since, has_until;
	double since, until;
	long depth;                   /* 0: any */
	struct gfilter gf;            /* (its depth: depth) */
};
void replay(struct proc *ps, size_t n, const struct replay_opts *o);
/* --function, --since, --until: is fn's event at sec shown? */
bool replay_shown(const struct replay_opts *o, const char *fn, double sec);
void report(struct proc *ps, size_t n, const char *sort, bool threads);
/* per function, A's figures, B's and the change; sorted by the key's change */
void report_diff(struct proc *a, size_t na, const char *dir_a, struct proc *b, size_t nb, const char *dir_b,
		 const char *sort);

/* perfetto.c: replay --format=perfetto, a process, its threads, each
 * thread's events in their order (any order across threads) */
struct perfetto;
struct pf_seq;
struct perfetto *perfetto_open(FILE *out);
void perfetto_process(struct perfetto *pf, const struct proc *p);
struct pf_seq *perfetto_thread(struct perfetto *pf, const struct proc *p, const struct thread *t);
void perfetto_event(struct perfetto *pf, struct pf_seq *s, const struct ev *e, const struct ev *slots, size_t nslots,
		    const struct replay_opts *o);
void perfetto_lost(struct perfetto *pf, struct pf_seq *s, uint64_t ts, uint64_t n);
void perfetto_close(struct perfetto *pf);

#endif
