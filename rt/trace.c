/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace.c - the tracer: one user of the hooks layer among others.
 *
 * The function tracer, the function_graph tracer and the function
 * events are the callbacks of one user, id 0 (ops.c: MT_OP_SITE),
 * registered at start-up as every hook is, and called by the hot path
 * (buffer.c) as every hook is.  Its functions are those the tracer's
 * filters choose (sites.c); its entry callback puts an event into the
 * calling thread's ring, with the function's arguments where they are
 * recorded (a prototype, or raw words); function_graph wants each
 * traced function's exit too (mt_trace_style), and its exit callback
 * puts the exit event, or marks a frame left without returning.
 *
 * Each thread writes only its own ring (single producer); a reader
 * (output.c) consumes it under its own lock, so a callback takes no
 * lock: a load of the reader's tail, three stores and a release store
 * of the head.  A full ring drops the event and counts it (and the
 * frame's exit with it); so does a call nested in the hook (a signal
 * handler's).  Like buffer.c, compiled with general registers only,
 * and calls nothing in libc.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>

#include "cpu.h"
#include "rt.h"

_Atomic(struct mt_retmap *) mt_argmap;
atomic_bool mt_gf_on, mt_gf_funcs;
_Atomic(struct mt_retmap *) mt_gf_map;
_Atomic unsigned mt_gf_depth;
uint64_t mt_gf_thresh, mt_gf_thresh_ns;
atomic_int mt_args_raw;
atomic_bool mt_retval;
atomic_bool mt_args_on;
atomic_int mt_tracer;
bool mt_full_wait;
unsigned mt_full_wait_rounds = 2000;

/* A full ring, when the trace goes to a file and MCOUNT_TRACE_FULL=wait
 * (a recording's default): the thread waits for the drain (which runs
 * every millisecond while it finds events) rather than lose the event,
 * up to 0.1 s (a recording's: 10 s), so that a drain that cannot run (a
 * lock the waiting thread holds) costs time, not a deadlock.  Returns
 * whether there is room now. */
static __attribute__((noinline, cold)) bool wait_room(struct mt_tbuf *b, mt_seq h)
{
	struct timespec ts = { 0, 50000 };
	for (unsigned i = 0; i < mt_full_wait_rounds; i++) {
		mt_raw6(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, (long)&ts, 0, 0, 0);
		if ((mt_seq)(h - mt_seq_load(&b->tail, memory_order_acquire)) <= b->mask)
			return true;
	}
	b->wait_failed++;
	return false;
}

/* Is the ring too full for one more event at head h? */
static inline bool full(struct mt_tbuf *b, mt_seq h)
{
	if (__builtin_expect((mt_seq)(h - mt_seq_load(&b->tail, memory_order_acquire)) <= b->mask, 1))
		return false;
	return !(mt_full_wait && wait_room(b, h));
}

/* An exit event (or an unwound mark: kind MT_EV_UNWOUND) into the ring,
 * or counted lost; with its return value (ret: one payload slot) when
 * there is one. */
static void put_exit(struct mt_tbuf *b, bool nested, uint64_t now, unsigned cpu, uintptr_t ip, uint64_t kind,
		     uint64_t ts, const uintptr_t *ret)
{
	mt_seq h = mt_seq_load(&b->head, memory_order_relaxed);
	if (nested || full(b, h + (ret != NULL))) {
		b->lost++;
		return;
	}
	struct mt_event *e = &b->ev[h & b->mask];
	if (ret) {
		struct mt_event *p = &b->ev[(h + 1) & b->mask];
		p->ts = *ret;
		p->ip = p->parent = 0;
	}
	e->ts = now;
	e->ip = mt_ev_addr(ip) | (uint64_t)cpu << MT_CPU_SHIFT | MT_EV_EXIT | kind | (ret ? MT_EV_ARGS : 0);
	e->parent = ts;
	mt_seq_store(&b->head, h + 1 + (ret != NULL), memory_order_release);
}

/* Word i of the payload of the event at h (three words a slot). */
static inline void put_word(struct mt_tbuf *b, uint64_t h, unsigned i, uint64_t w)
{
	struct mt_event *s = &b->ev[(h + 1 + i / 3) & b->mask];
	if (i % 3 == 0)
		s->ts = w;
	else if (i % 3 == 1)
		s->ip = w;
	else
		s->parent = w;
}

/* The process, for process_vm_readv (a pid changes at fork). */
static long self_pid;

/* A string argument: up to MT_STR_MAX bytes of it, read by the kernel on
 * the process's behalf so that a bad pointer costs an error, not a
 * crash; the remote range split at the page boundary, as the system
 * call reads whole ranges or none.  Its length word (with MT_STR_* flags)
 * and its bytes go to the payload from word w; returns the next word. */
static unsigned put_str(struct mt_tbuf *b, uint64_t h, unsigned w, uintptr_t src)
{
	unsigned char buf[MT_STR_MAX];
	long got = -1;
	if (src) {
		if (!self_pid)
			self_pid = mt_raw6(SYS_getpid, 0, 0, 0, 0, 0, 0);
		uintptr_t first = 4096 - (src & 4095);
		struct iovec local = { buf, sizeof buf };
		struct iovec remote[2] = { { (void *)src, first < sizeof buf ? first : sizeof buf },
					   { (void *)(src + first), first < sizeof buf ? sizeof buf - first : 0 } };
		got = mt_raw6(SYS_process_vm_readv, self_pid, (long)&local, 1, (long)remote,
			      first < sizeof buf ? 2 : 1, 0);
	}
	uint64_t len = 0;
	if (got <= 0) {
		len = MT_STR_FAULT;
	} else {
		while (len < (uint64_t)got && buf[len])
			len++;
		if (len == (uint64_t)got)
			len |= MT_STR_CUT;
	}
	put_word(b, h, w++, len);
	unsigned n = (unsigned)(len & 0xffff);
	for (unsigned i = 0; i < n; i += 8) {
		uint64_t word = 0;
		for (unsigned j = 0; j < 8 && i + j < n; j++)
			word |= (uint64_t)buf[i + j] << (8 * j);
		put_word(b, h, w++, word);
	}
	return w;
}

/* The word after argument i of prototype p (raw word i without one). */
static inline unsigned arg_end(const struct mt_proto *p, unsigned i)
{
	return p ? p->a[i].word + 1u + mt_arg_pair(&p->a[i]) : i + 1;
}

#if MT_ARGS_LOCATED
/* How far above the stack pointer a frame the DWARF names may be. */
#define MT_STACK_REACH ((uintptr_t)1 << 20)
/* Argument a where l says, as the hook kept the registers. */
static inline uint64_t loc_value(const struct mt_loc *l, const struct mt_arg *a, const uintptr_t *regs)
{
	if (l->how == MT_LOC_REG)
		return regs[l->reg];
	if (l->how == MT_LOC_CONST)
		return (uint64_t)l->off;
	if (l->how != MT_LOC_MEM && l->how != MT_LOC_MEM2)
		return 0;
	/* in the function's frame (or its caller's): its own size only */
	const void *m = (const void *)(regs[l->reg] + (uintptr_t)l->off);
	if (l->how == MT_LOC_MEM2) {
		uintptr_t up;
		__builtin_memcpy(&up, m, sizeof up);
		if (up < regs[l->sp] || up - regs[l->sp] > MT_STACK_REACH)
			return 0;             /* no frame of this stack's */
		m = (const void *)(up + (uintptr_t)l->off2);
	}
	uint8_t b;
	uint16_t h;
	uint32_t w;
	uint64_t d;
	switch (a->bits) {
	case 8: __builtin_memcpy(&b, m, 1); return b;
	case 16: __builtin_memcpy(&h, m, 2); return h;
	case 32: __builtin_memcpy(&w, m, 4); return w;
	default: __builtin_memcpy(&d, m, 8); return d;
	}
}
#endif

/* Argument i of prototype p (raw word i without one). */
static inline uint64_t arg_value(const struct mt_proto *p, unsigned i, const uintptr_t *regs, const uintptr_t *slot)
{
#if MT_ARGS_LOCATED
	if (p && p->located)
		return loc_value(&p->loc[i], &p->a[i], regs);
#endif
	if (!p)
		return mt_arg_word(regs, slot, i);
	uint64_t v = mt_arg_word(regs, slot, p->a[i].word);
	if (mt_arg_pair(&p->a[i])) {
		/* the pair is the value's memory image: its first word the
		 * low half on a little-endian machine, the high one on a
		 * big-endian one */
		uint64_t next = mt_arg_word(regs, slot, p->a[i].word + 1u);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		v = v << 32 | next;
#else
		v |= next << 32;
#endif
	}
	return v;
}

/* The arguments after the entry at h, by prototype p or n raw words;
 * returns the payload's slots (at most p->max_slots).  Without the
 * caller's stack (slot NULL: arm, a prologue not read) only the
 * arguments all in registers. */
static unsigned put_args(struct mt_tbuf *b, uint64_t h, const struct mt_proto *p, unsigned n,
			 const uintptr_t *regs, const uintptr_t *slot)
{
	unsigned w = 2;
	if (p)
		n = p->n;
	while (!slot && n && !(p && p->located) && arg_end(p, n - 1) > MT_REG_ARGS)
		n--;
	for (unsigned i = 0; i < n; i++)
		put_word(b, h, w++, arg_value(p, i, regs, slot));
	for (unsigned i = 0; p && p->nstr && i < n; i++) {
		if (p->a[i].kind != MT_ARG_STR)
			continue;
		if (p->located && p->loc[i].how == MT_LOC_NONE)
			put_word(b, h, w++, MT_STR_FAULT);    /* nothing to read */
		else
			w = put_str(b, h, w, (uintptr_t)arg_value(p, i, regs, slot));
	}
	unsigned slots = (w + 2) / 3;
	put_word(b, h, 0, (uint64_t)(uintptr_t)p);
	put_word(b, h, 1, n | (uint64_t)slots << 16);
	return slots;
}

/* The prototype of the function whose site returns to ret, if any. */
static inline const struct mt_proto *proto_for(uintptr_t ret)
{
	return mt_retmap_find(atomic_load_explicit(&mt_argmap, memory_order_acquire), ret);
}
/* function_graph's filters (rt.h): whether the call at c is traced,
 * and whether it is a graph function's outermost frame (root).  Under a
 * graph function (a frame of one counted on the thread's shadow stack)
 * every call is; outside, a graph function's own; and none as deep as
 * the depth or deeper, the outermost traced frame being depth 0 (the
 * kernel's max_graph_depth: 1 traces the outermost frames alone). */
static inline bool gf_admit(const struct mt_tbuf *b, const struct mt_call *c, bool *root)
{
	if (atomic_load_explicit(&mt_gf_funcs, memory_order_relaxed) && !b->gf_in) {
		if (!mt_retmap_find(atomic_load_explicit(&mt_gf_map, memory_order_acquire), c->site))
			return false;
		*root = true;
	}
	unsigned max = atomic_load_explicit(&mt_gf_depth, memory_order_relaxed);
	return !max || b->gf_depth < max;
}

/* A traced frame whose return was taken, counted for the filters: its
 * marks (quiet: its entry not written, the threshold's). */
static inline void gf_count(struct mt_tbuf *b, const struct mt_call *c, bool root, bool quiet)
{
	if (c->r.noexit)
		return;
	b->shadow[c->r.depth].marks = (uint8_t)(MT_SH_COUNTED | (root ? MT_SH_ROOT : 0) | (quiet ? MT_SH_QUIET : 0));
	b->gf_depth++;
	if (root)
		b->gf_in = true;
}

/* The entry of a traced function: its event, unless the ring is full
 * (lost: and function_graph wants no exit of it then), or its return
 * could not be taken for want of shadow stack (function_graph: not
 * recorded, counted there).  An event of function_graph's says whether
 * its exit will follow (MT_EV_HOOKED).  In two copies, as the hot
 * path's: with_args a constant, so that the common one (no argument
 * recorded anywhere) carries none of that work. */
static inline __attribute__((always_inline)) void put_entry(unsigned long parent, struct mt_call *c,
							    bool with_args)
{
	struct mt_tbuf *b = mt_self;
	bool graph = c->wants & MT_TRACED;
	bool filtered = graph && atomic_load_explicit(&mt_gf_on, memory_order_relaxed), root = false, quiet = false;
	if (filtered) {
		/* (not traced: the frame given back, no event, nothing lost) */
		if (!gf_admit(b, c, &root)) {
			c->drop |= MT_TRACED;
			return;
		}
		/* with a threshold, the return decides: none without one */
		quiet = *(volatile uint64_t *)&mt_gf_thresh != 0;
		if (quiet && (c->r.noexit || c->noshadow)) {
			c->drop |= MT_TRACED;
			return;
		}
	}
	if (graph && c->noshadow) {
		b->lost++;
		return;
	}
	if (quiet) {
		gf_count(b, c, root, true);
		return;
	}
	const struct mt_proto *proto = NULL;
	unsigned raw = 0, extra = 0;
	if (with_args) {
		proto = proto_for(c->site);
		raw = proto ? 0 : (unsigned)atomic_load_explicit(&mt_args_raw, memory_order_relaxed);
		extra = proto ? proto->max_slots : raw ? (raw + 4) / 3 : 0;
	}
	mt_seq h = mt_seq_load(&b->head, memory_order_relaxed);
	if (full(b, h + extra)) {
		b->lost++;
		c->drop |= MT_TRACED;
		return;
	}
	uint64_t kind = (graph && !c->r.noexit ? MT_EV_HOOKED : 0) | (graph ? MT_EV_GRAPH : 0);
	mt_seq next = h + 1;
	if (proto || raw) {
		next += put_args(b, h, proto, raw, c->r.regs, c->r.args);
		kind |= MT_EV_ARGS;
	}
	struct mt_event *e = &b->ev[h & b->mask];
	e->ts = c->ts;
	e->ip = mt_ev_addr(c->site) | (uint64_t)c->cpu << MT_CPU_SHIFT | kind;
	e->parent = parent;
	mt_seq_store(&b->head, next, memory_order_release);
	if (filtered)
		gf_count(b, c, root, false);
}

static __attribute__((noinline)) void put_entry_args(unsigned long parent, struct mt_call *c)
{
	put_entry(parent, c, true);
}

static __attribute__((noinline)) void put_entry_slow(unsigned long parent, struct mt_call *c)
{
	put_entry(parent, c, false);
}

/* (its common case here, its others tail calls: no register to keep) */
static void trace_entry(unsigned long func, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)func;
	(void)data;
	struct mt_call *c = (struct mt_call *)r;
	if (MT_HAVE_ARGS && __builtin_expect(atomic_load_explicit(&mt_args_on, memory_order_relaxed), 0)) {
		put_entry_args(parent, c);
		return;
	}
	struct mt_tbuf *b = mt_self;
	mt_seq h = mt_seq_load(&b->head, memory_order_relaxed);
	if (__builtin_expect((mt_seq)(h - mt_seq_load(&b->tail, memory_order_acquire)) > b->mask || c->noshadow ||
			     atomic_load_explicit(&mt_gf_on, memory_order_relaxed), 0)) {
		put_entry_slow(parent, c);
		return;
	}
	bool graph = c->wants & MT_TRACED;
	struct mt_event *e = &b->ev[h & b->mask];
	e->ts = c->ts;
	e->ip = mt_ev_addr(c->site) | (uint64_t)c->cpu << MT_CPU_SHIFT |
		(graph && !r->noexit ? MT_EV_HOOKED : 0) | (graph ? MT_EV_GRAPH : 0);
	e->parent = parent;
	mt_seq_store(&b->head, h + 1, memory_order_release);
}

/* The exit of a frame whose return the tracer took: its exit event
 * (with the return value where they are recorded), or the mark of a
 * frame left without returning (unwound); nested in the hook, lost.
 * (Its common case here, its others a tail call.) */
static __attribute__((noinline)) void put_exit_slow(struct mt_call *c)
{
	struct mt_tbuf *b = mt_self;
	struct mt_shadow *s = &b->shadow[c->r.depth];
	if (s->marks) {
		uint8_t m = s->marks;
		s->marks = 0;
		if (b->gf_depth)
			b->gf_depth--;
		if (m & MT_SH_ROOT)
			b->gf_in = false;
		/* the threshold's: a return at least that long after its
		 * entry (which was not written), and no mark of a frame left
		 * without one */
		if ((m & MT_SH_QUIET) &&
		    (c->unwound || c->ts - s->ts < *(volatile uint64_t *)&mt_gf_thresh))
			return;
	}
	bool rv = !c->unwound && MT_HAVE_RETVAL && atomic_load_explicit(&mt_retval, memory_order_relaxed);
	put_exit(b, c->nested, c->ts, c->cpu, c->site, c->unwound ? MT_EV_UNWOUND : 0, b->shadow[c->r.depth].ts,
		 rv ? &c->r.ret : NULL);
}

static void trace_exit(unsigned long func, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)func;
	(void)parent;
	(void)data;
	struct mt_call *c = (struct mt_call *)r;
	struct mt_tbuf *b = mt_self;
	mt_seq h = mt_seq_load(&b->head, memory_order_relaxed);
	if (__builtin_expect(c->nested || c->unwound || b->shadow[r->depth].marks || (MT_HAVE_RETVAL &&
			     atomic_load_explicit(&mt_retval, memory_order_relaxed)) ||
			     (mt_seq)(h - mt_seq_load(&b->tail, memory_order_acquire)) > b->mask, 0)) {
		put_exit_slow(c);
		return;
	}
	struct mt_event *e = &b->ev[h & b->mask];
	e->ts = c->ts;
	e->ip = mt_ev_addr(c->site) | (uint64_t)c->cpu << MT_CPU_SHIFT | MT_EV_EXIT;
	e->parent = b->shadow[r->depth].ts;
	mt_seq_store(&b->head, h + 1, memory_order_release);
}

static struct mt_op tracer = { .entry = trace_entry, .exit = trace_exit, .flags = MCOUNT_HOOK_GENERAL_REGS,
			       .iflags = MT_OP_SITE };

void mt_trace_style(int style)
{
	atomic_store(&mt_tracer, style);
	mt_ops_exits_set(MT_TRACER_ID, style == MT_TRACER_GRAPH);
}

void mt_trace_init(int style)
{
	mt_ops_add(&tracer);
	mt_trace_style(style);
}

void mt_trace_after_fork(void)
{
	self_pid = 0;
}
