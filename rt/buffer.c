/* SPDX-License-Identifier: GPL-2.0-or-later */
/* buffer.c - the hot path: each call's users called, the tracer among
 * them, with the calling thread's own buffer.
 *
 * Each thread has a buffer: a ring of events, which the tracer writes
 * (trace.c) and a reader (output.c) consumes, and a shadow stack.  A
 * call's users are the hooks layer's (ops.c): the tracer (user 0) and
 * the hooks; the entry calls their entry callbacks, the tracer's
 * first.  A signal handler that runs hooked code while its thread is
 * inside mt_entry() runs none (the tracer counts the event lost).
 *
 * Where a user wants the function's exit (function_graph, a hook's
 * exit callback), the entry also hijacks the function's return
 * address: it pushes the original and the stack slot that held it onto
 * the thread's shadow stack (in the same mapping as its ring) and
 * writes the address of the return trampoline (hook-*.S) into the
 * slot.  The trampoline calls mt_exit() with the frame's key (rt.h,
 * MT_KEY_IS_SLOT: the slot on x86_64, the caller's frame pointer on
 * aarch64, the word below the caller's sp on arm), which finds the
 * key's entry from the top, marks every entry above it as unwound
 * (frames a longjmp or an exception skipped, deeper in the stack:
 * their exits are not invented), calls the exit callbacks and returns
 * the original address.  Whatever the users are now, a hijacked frame
 * always returns this way.
 *
 * This file is compiled with general registers only and calls nothing in
 * libc on the hot path or on a thread's first event (its buffer comes
 * from a raw mmap system call): the hooks do not save the vector
 * registers, and a first event may come from a signal handler.
 *
 * The clock and the CPU number are the processor's (cpu.h: rdtsc and
 * rdpid on x86_64, cntvct_el0 and rseq's cpu_id_start on aarch64);
 * output.c converts the ticks to CLOCK_MONOTONIC seconds when the trace
 * is written.  Where the probe finds no usable counter it is
 * clock_gettime(), which the vDSO serves with general registers only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>

#include "cpu.h"
#include "rt.h"
#include <stddef.h>
#if defined(__x86_64__)
#include "hook-offsets.h"
_Static_assert(offsetof(struct mt_tbuf, nest) == MT_TB_NEST, "hook-offsets.h");
_Static_assert(offsetof(struct mt_tbuf, nest_sp) == MT_TB_NEST_SP, "hook-offsets.h");
_Static_assert(offsetof(struct mt_tbuf, sdepth) == MT_TB_SDEPTH, "hook-offsets.h");
_Static_assert(offsetof(struct mt_tbuf, held) == MT_TB_HELD, "hook-offsets.h");
_Static_assert(offsetof(struct mt_hooktab, n) == MT_HT_N, "hook-offsets.h");
_Static_assert(offsetof(struct mt_hooktab, f) == MT_HT_F, "hook-offsets.h");
_Static_assert(sizeof(struct mt_fhook) == MT_FH_SIZE, "hook-offsets.h");
_Static_assert(offsetof(struct mt_fhook, mask) == MT_FH_MASK, "hook-offsets.h");
_Static_assert(offsetof(struct mt_fhook, addr) == MT_FH_ADDR, "hook-offsets.h");
_Static_assert(offsetof(struct mt_fhook, redirect) == MT_FH_REDIRECT, "hook-offsets.h");
_Static_assert(offsetof(struct mt_op, entry) == MT_OP_ENTRY, "hook-offsets.h");
_Static_assert(offsetof(struct mt_op, data) == MT_OP_DATA, "hook-offsets.h");
_Static_assert(offsetof(struct mcount_regs, regs) == MT_RG_REGS, "hook-offsets.h");
_Static_assert(offsetof(struct mcount_regs, args) == MT_RG_ARGS, "hook-offsets.h");
_Static_assert(offsetof(struct mcount_regs, ret) == MT_RG_RET, "hook-offsets.h");
_Static_assert(offsetof(struct mcount_regs, exit) == MT_RG_EXIT, "hook-offsets.h");
_Static_assert(offsetof(struct mcount_regs, noexit) == MT_RG_NOEXIT, "hook-offsets.h");
_Static_assert(offsetof(struct mcount_regs, own) == MT_RG_OWN, "hook-offsets.h");
_Static_assert(offsetof(struct mcount_regs, depth) == MT_RG_DEPTH, "hook-offsets.h");
_Static_assert(offsetof(struct mcount_regs, frame) == MT_RG_FRAME, "hook-offsets.h");
_Static_assert(sizeof(struct mcount_regs) == MT_RG_SIZE, "hook-offsets.h");
_Static_assert(MT_OWN_SLOT == 9 && MT_KEY_IS_SLOT, "hook-x86_64.S: the slot at 72(regs), its own key");
#endif

struct mt_tbuf *_Atomic mt_tbufs;
atomic_int mt_ready;
struct mt_gone mt_gone;
uint64_t mt_buffer_events = 131072;
_Atomic unsigned long mt_nobuf_threads, mt_nobuf_lost;
_Atomic unsigned long mt_untabled_calls;
bool mt_use_tsc;
bool mt_use_rdpid;
#if defined(__i386__)
bool mt_use_sse;
#endif
/* The thread's buffer (hook-x86_64.S reads it too). */
__thread struct mt_tbuf *mt_self __attribute__((tls_model("initial-exec")));
static __thread int self_dead __attribute__((tls_model("initial-exec")));

uint64_t mt_clock_now(unsigned *cpu)
{
	if (mt_use_tsc)
		return mt_cpu_ticks(cpu);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
#ifdef MT_CLOCK_CPU
	*cpu = MT_CLOCK_CPU();                /* cpu.h: where the CPU comes apart */
#else
	*cpu = 0;
#endif
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The same on the hot path: the processor's counter read in line. */
static inline __attribute__((always_inline)) uint64_t clock_read(unsigned *cpu)
{
	if (__builtin_expect(mt_use_tsc, 1))
		return mt_cpu_ticks(cpu);
	return mt_clock_now(cpu);
}

int mt_rec_dir = -1;

/* Decimal digits of v at p; returns the end. */
static char *put_dec(char *p, unsigned long v)
{
	char d[24];
	int k = 0;
	do
		d[k++] = (char)('0' + v % 10);
	while (v /= 10);
	while (k)
		*p++ = d[--k];
	return p;
}

/* A recording's ring (doc/trace-format.md): ring-TID (ring-TID.N where
 * a thread of the same id had one), a file of the recording's directory
 * mapped shared, its header first; NULL if it cannot be had (the
 * thread's events are then drained all the same, from memory that dies
 * with the process). */
static struct mt_tbuf *rec_tbuf(uint64_t n, long tid)
{
	char name[40] = "ring-", *p = put_dec(name + 5, (unsigned long)tid);
	long fd = -1;
	for (unsigned k = 0; k < 100 && fd < 0; k++) {
		char *q = p;
		if (k) {
			*q++ = '.';
			q = put_dec(q, k);
		}
		*q = 0;
		fd = mt_raw6(SYS_openat, mt_rec_dir, (long)name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			     0600, 0, 0);
		if (fd < 0 && fd != -EEXIST)
			return NULL;
	}
	if (fd < 0)
		return NULL;
	size_t size = MT_REC_HEAD + sizeof(struct mt_tbuf) + n * sizeof(struct mt_event);
	long p0 = mt_raw6(SYS_ftruncate, fd, (long)size, 0, 0, 0, 0) < 0 ? -1 : mt_raw_mmap_file(size, fd);
	mt_raw6(SYS_close, fd, 0, 0, 0, 0, 0);
	if (p0 < 0 && p0 > -4096)
		return NULL;
	unsigned char *h = (unsigned char *)p0;
	struct mt_tbuf *b = (struct mt_tbuf *)(h + MT_REC_HEAD);
	uint32_t u32[4] = { 0x01020304u, 1, (uint32_t)sizeof(mt_seq), (uint32_t)tid };
	uint64_t off[10] = { offsetof(struct mt_tbuf, head), offsetof(struct mt_tbuf, tail),
			     offsetof(struct mt_tbuf, mask), offsetof(struct mt_tbuf, ev),
			     offsetof(struct mt_tbuf, lost), offsetof(struct mt_tbuf, comm),
			     offsetof(struct mt_tbuf, noshadow), offsetof(struct mt_tbuf, unwound),
			     offsetof(struct mt_tbuf, untabled), offsetof(struct mt_tbuf, recursion) };
	__builtin_memcpy(h, "MCTRING", 8);
	__builtin_memcpy(h + 8, u32, sizeof u32);
	for (unsigned i = 0; i < 10; i++)
		off[i] += MT_REC_HEAD;
	__builtin_memcpy(h + 24, off, sizeof off);
	/* (the stream's name: the ring's, from its TID on) */
	unsigned i = 0;
	for (const char *s = name + 5; *s && i + 1 < sizeof b->rec_name; s++)
		b->rec_name[i++] = *s;
	b->rec_name[i] = 0;
	return b;
}

static struct mt_tbuf *tbuf_new(void)
{
	uint64_t n = 1;
	while (n < mt_buffer_events)
		n <<= 1;
	/* A buffer an exited thread left, emptied and freed by a drain (not
	 * in a recording: each thread's ring is its file). */
	for (struct mt_tbuf *b = mt_rec_dir < 0 ? atomic_load(&mt_tbufs) : NULL; b; b = b->next) {
		int free_state = MT_TBUF_FREE;
		if (b->mask == n - 1 && atomic_load_explicit(&b->state, memory_order_relaxed) == MT_TBUF_FREE &&
		    atomic_compare_exchange_strong(&b->state, &free_state, MT_TBUF_OWNED)) {
			b->tid = (int)mt_raw6(SYS_gettid, 0, 0, 0, 0, 0, 0);
			mt_raw6(SYS_prctl, PR_GET_NAME, (long)b->comm, 0, 0, 0, 0);
			b->sdepth = 0;
			b->gf_depth = 0;
			b->gf_in = false;
			/* (a thread that ended inside a callback left it odd) */
			atomic_store(&b->held, (atomic_load(&b->held) | 1) + 1);
			mt_self = b;
			return b;
		}
	}
	struct mt_tbuf *rb = mt_rec_dir >= 0 ? rec_tbuf(n, mt_raw6(SYS_gettid, 0, 0, 0, 0, 0, 0)) : NULL;
	size_t size = sizeof(struct mt_tbuf) + n * sizeof(struct mt_event);
	long p = rb ? (long)rb : mt_raw_mmap_anon(size);
	if (p < 0 && p > -4096) {
		/* Too large for the memory there is: a small ring, whose
		 * overflows are counted lost as a full ring's are (said). */
		atomic_fetch_add_explicit(&mt_nobuf_threads, 1, memory_order_relaxed);
		n = MT_SMALL_RING;
		size = sizeof(struct mt_tbuf) + n * sizeof(struct mt_event);
		p = mt_raw_mmap_anon(size);
	}
	if (p < 0 && p > -4096) {
		self_dead = 1;
		return NULL;
	}
	struct mt_tbuf *b = (struct mt_tbuf *)p;
	b->mask = n - 1;
	atomic_init(&b->state, MT_TBUF_OWNED);
	b->tid = (int)mt_raw6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	mt_raw6(SYS_prctl, PR_GET_NAME, (long)b->comm, 0, 0, 0, 0);
	struct mt_tbuf *head = atomic_load(&mt_tbufs);
	do
		b->next = head;
	while (!atomic_compare_exchange_weak(&mt_tbufs, &head, b));
	mt_self = b;
	return b;
}

static void die(const char *msg, size_t len)
{
	mt_raw6(SYS_write, 2, (long)msg, (long)len, 0, 0, 0);
	__builtin_trap();
}

/* A struct mt_call, its fields set one by one (an initializer would
 * clear it with rep stos: slow to start, on the hot path): those the
 * tracer reads; the rest of its struct mcount_regs by hook_fields, for
 * the hooks. */
static inline __attribute__((always_inline)) void call_init(struct mt_call *c, const uintptr_t *regs,
							      const uintptr_t *args)
{
	c->r.regs = regs;
	c->r.args = args;
	c->r.noexit = false;
	c->r.depth = 0;
	c->site = 0;
	c->ts = 0;
	c->cpu = 0;
	c->noshadow = c->nested = c->unwound = false;
	c->wants = c->drop = 0;
}

static inline __attribute__((always_inline)) void hook_fields(struct mt_call *c, uintptr_t frame)
{
	c->r.ret = 0;
	c->r.exit = false;
	c->r.own = false;
	c->r.frame = frame;
}

/* The tracer's exit callback for the frame of shadow entry s (its
 * struct mt_call: the time, nested or unwound, set by the caller).  Its
 * op is never freed: no hold. */
static inline __attribute__((always_inline)) void tracer_exit(struct mt_tbuf *b, const struct mt_shadow *s,
								 struct mt_call *c)
{
	const struct mt_op *op = atomic_load_explicit(&mt_ops[MT_TRACER_ID], memory_order_acquire);
	c->site = s->ip;
	c->r.exit = true;
	c->r.depth = (uint32_t)(s - b->shadow);
	if (op && op->exit && op->gen <= s->gen)
		op->exit(s->ip, s->orig, op->data, &c->r);
}

/* Pop the entries from the top down to depth d, each marked unwound. */
static void pop_unwound(struct mt_tbuf *b, uint32_t d, bool nested, uint64_t now, unsigned cpu)
{
	while (b->sdepth > d) {
		struct mt_shadow *s = &b->shadow[--b->sdepth];
		if (s->users & MT_TRACED) {
			struct mt_call c;
			call_init(&c, NULL, NULL);
			hook_fields(&c, 0);
			c.ts = now;
			c.cpu = cpu;
			c.unwound = true;
			c.nested = nested;
			tracer_exit(b, s, &c);
		}
		b->unwound++;
	}
}

/* A frame's key (rt.h): of a shadow stack entry, of a slot the hook
 * passed (arm: the pushed word, until the entry finds the frame's). */
#if MT_KEY_IS_SLOT
#define KEY(s) ((s)->slot)
#define SLOT_KEY(slot) ((uintptr_t)(slot))
#elif defined(MT_SLOT_DEAD)
#define KEY(s) ((s)->key)
#define SLOT_KEY(slot) ((uintptr_t)(slot))
#else
#define KEY(s) ((s)->key)
#define SLOT_KEY(slot) ((slot)[-1])
#endif

/* The original return address of a slot that holds the trampoline (a
 * tail call from a hijacked function): the parent to report.  Where the
 * key is not the slot (aarch64, arm), the frame of the function that
 * made the tail call is gone, and its hijacked return now goes through
 * the new frame's slot (if it is one: not 0; with its marks): its
 * entries follow it there, as the unwinders' interposers must find it. */
static uintptr_t shadow_orig(struct mt_tbuf *b, uintptr_t key, uintptr_t slot)
{
#if !MT_KEY_IS_SLOT
	for (uint32_t i = b->sdepth; slot && i-- > 0 && KEY(&b->shadow[i]) <= key;)
		if (KEY(&b->shadow[i]) == key)
			b->shadow[i].slot = slot;
#else
	(void)slot;
#endif
	for (uint32_t i = b->sdepth; i-- > 0;)
		if ((KEY(&b->shadow[i]) & ~(uintptr_t)1) == key)
			return b->shadow[i].orig;
	return 0;
}

/* Whether the slot p of the entry s is still its frame's: where the key
 * is not the slot (aarch64), a slot a tail call left behind may be
 * another frame's now, and the frame record must still hold the key; on
 * arm (a tail call moves the entries' slot, shadow_orig) unless it is
 * dead. */
static inline bool still_its(const struct mt_shadow *s, const uintptr_t *p)
{
#if MT_KEY_IS_SLOT
	(void)s;
	(void)p;
	return true;
#elif defined(MT_SLOT_DEAD)
	(void)p;
	return !(s->slot & MT_SLOT_DEAD);
#else
	return p[-1] == s->key;
#endif
}

/* Is ret (the address after a hook call) in the code of an object with
 * a table?  (A few ranges: the program and the libraries recorded.) */
static inline bool in_tabled(uintptr_t ret)
{
	const struct mt_spans *sp = atomic_load_explicit(&mt_tabled, memory_order_acquire);
	for (size_t i = 0; sp && i < sp->n; i++)
		if (ret - sp->r[i].lo < sp->r[i].hi - sp->r[i].lo)
			return true;
	return false;
}

/* A call from a site in no table: no event, counted (a thread with no
 * buffer gets none for it). */
static __attribute__((noinline, cold)) void untabled_call(struct mt_tbuf *b)
{
	if (!atomic_load_explicit(&mt_ready, memory_order_relaxed))
		return;
	if (b)
		b->untabled++;
	else
		atomic_fetch_add_explicit(&mt_untabled_calls, 1, memory_order_relaxed);
}

/* ---- hooks' callbacks ----
 *
 * A thread runs them with its buffer's nest at 2 (a call they make of a
 * hooked function is counted as recursion and serves no one) and its
 * held count odd from before it looked its hooks up until after the
 * last callback returned: mt_grace waits for that.  The registers a
 * callback may change and the function still needs are kept around
 * them (cpu.h, MT_FP_SAVE). */
bool mt_fenced_holds;                 /* no membarrier: each hold is fenced */

static inline void hold(struct mt_tbuf *b)
{
	atomic_store_explicit(&b->held, atomic_load_explicit(&b->held, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	if (mt_fenced_holds)
		atomic_thread_fence(memory_order_seq_cst);
	else
		atomic_signal_fence(memory_order_seq_cst);
}

static inline void unhold(struct mt_tbuf *b)
{
	atomic_store_explicit(&b->held, atomic_load_explicit(&b->held, memory_order_relaxed) + 1,
			      memory_order_release);
}

/* The entry callbacks of the hooks in users (not the tracer's). */
/* (x86: a hook may be entered with the stack 8 bytes off the ABI's 16:
 * GCC calls a function of its own unit that needs no alignment without
 * aligning, and that function's -pg call follows.  The callbacks are
 * the program's code, which may need it: realigned here.) */
#if defined(__x86_64__) || defined(__i386__)
#define MT_REALIGN __attribute__((force_align_arg_pointer))
#else
#define MT_REALIGN
#endif

/* Must the floating-point and vector registers be kept around the
 * callbacks of these hooks (not all MCOUNT_HOOK_GENERAL_REGS)?  Read
 * while the thread holds its hooks (rt.h: mt_ops_genregs). */
static inline bool needs_fp(mt_users users)
{
	return (users & ~MT_TRACED & ~atomic_load_explicit(&mt_ops_genregs, memory_order_relaxed)) != 0;
}

static __attribute__((noinline)) MT_REALIGN void call_entries(struct mt_tbuf *b, mt_users users, unsigned long func,
						   uintptr_t parent, struct mcount_regs *r)
{
	struct mt_fp fp;
	bool vec = needs_fp(users);
	if (vec)
		mt_fp_save(&fp);
	b->nest = 2;
	atomic_signal_fence(memory_order_seq_cst);
	for (mt_users u = users; u; u &= u - 1) {
		struct mt_op *op = atomic_load_explicit(&mt_ops[__builtin_ctzl(u)], memory_order_acquire);
		if (op && op->entry)
			op->entry(func, parent, op->data, r);
	}
	atomic_signal_fence(memory_order_seq_cst);
	b->nest = 1;
	if (vec)
		mt_fp_restore(&fp);
}

/* The exit callbacks of a frame's hooks: those registered when it was
 * entered, and still. */
static __attribute__((noinline)) MT_REALIGN void call_exits(struct mt_tbuf *b, const struct mt_shadow *s,
							  uintptr_t retval)
{
	struct mt_fp_ret fp;
	hold(b);
	bool vec = needs_fp(s->users);
	if (vec)
		mt_fp_save_ret(&fp);
	int nested = b->nest;
	b->nest = 2;
	atomic_signal_fence(memory_order_seq_cst);
	struct mcount_regs r = { .regs = NULL, .args = NULL, .ret = retval, .exit = true,
				 .depth = (uint32_t)(s - b->shadow), .frame = KEY(s) & ~(uintptr_t)1 };
	struct mt_hooktab *t = atomic_load_explicit(&mt_hooktab, memory_order_acquire);
	const struct mt_fhook *fh = t ? mt_retmap_find(t->map, s->ip) : NULL;
	for (mt_users u = s->users & ~MT_TRACED; u; u &= u - 1) {
		struct mt_op *op = atomic_load_explicit(&mt_ops[__builtin_ctzl(u)], memory_order_acquire);
		if (op && op->exit && op->gen <= s->gen)
			op->exit(fh ? fh->addr : s->ip, s->orig, op->data, &r);
	}
	atomic_signal_fence(memory_order_seq_cst);
	b->nest = nested;
	unhold(b);
	if (vec)
		mt_fp_restore_ret(&fp);
}

/* A redirected function's call (mt_fhook.redirect): the hook returns
 * to `to`, not to the function's body.  Its own return address is the
 * word below the function's (MT_HAVE_REDIRECT), and must be the address
 * after the site (ret): a site at the function's entry. */
static inline void redirect_to(uintptr_t ret, uintptr_t *slot, uintptr_t to)
{
#if MT_HAVE_REDIRECT
	if (to && slot[-1] == ret)
		slot[-1] = to;
#else
	(void)ret;
	(void)slot;
	(void)to;
#endif
}

/* The same for a call the recursion guard stops (a callback's, or a
 * signal handler's inside the hook): redirected all the same (the
 * caller holds the table). */
static __attribute__((noinline, cold)) void redirect_nested(uintptr_t ret, uintptr_t *slot)
{
	struct mt_hooktab *t = atomic_load_explicit(&mt_hooktab, memory_order_acquire);
	const struct mt_fhook *fh = t ? mt_retmap_find(t->map, ret) : NULL;
	if (fh)
		redirect_to(ret, slot, atomic_load_explicit(&fh->redirect, memory_order_acquire));
}

/* A thread that left the library's code by a jump (a signal handler's
 * siglongjmp out of the hook, or out of a callback) leaves its nest and
 * its hold behind, and would run no callback, record nothing and hold
 * up every grace period from then on.  A later call from as high on
 * the stack as the one that set them, not on a signal stack, finds
 * them stale, and they are undone: a call nested in a callback or in a
 * signal handler is deeper, or on the handler's alternate stack.  (A
 * thread that jumped out and calls no hooked function from that high
 * again holds a grace period until it does.) */
static __attribute__((noinline, cold)) bool nest_left(struct mt_tbuf *b, uintptr_t at)
{
	if (at < b->nest_sp)
		return false;
	stack_t ss;
	if (!mt_raw6(SYS_sigaltstack, 0, (long)&ss, 0, 0, 0, 0) && (ss.ss_flags & SS_ONSTACK))
		return false;
	if (atomic_load_explicit(&b->held, memory_order_relaxed) & 1)
		unhold(b);
	atomic_signal_fence(memory_order_seq_cst);
	b->nest = 0;
	return true;
}

bool mt_in_callback(void)
{
	return mt_self && mt_self->nest == 2;
}

/* Every thread that held its hooks at the call has let them go: after
 * one barrier on every running thread (membarrier; without it each hold
 * is fenced), a thread whose count is even holds none it took before,
 * and one that takes them from now on reads what was published before
 * the call. */
static int barrier_cmd = -1;          /* the membarrier command, 0: none */

void mt_grace_ready(void)
{
	if (barrier_cmd < 0) {
		long q = mt_raw6(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0, 0, 0, 0);
		if (q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
		    !mt_raw6(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0, 0, 0, 0))
			barrier_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
		else if (q > 0 && (q & MEMBARRIER_CMD_GLOBAL))
			barrier_cmd = MEMBARRIER_CMD_GLOBAL;
		else
			barrier_cmd = 0;
		/* (before the first hook is registered: no thread holds one
		 * without the fence yet) */
		if (!barrier_cmd)
			mt_fenced_holds = true;
	}
}

/* The barrier a grace period begins with. */
static void grace_barrier(void)
{
	mt_grace_ready();
	if (barrier_cmd && mt_raw6(SYS_membarrier, barrier_cmd, 0, 0, 0, 0, 0) < 0) {
		/* (it failed: the holds are fenced from now on, and a thread
		 * that held before is waited for however long it takes) */
		mt_fenced_holds = true;
		barrier_cmd = 0;
	}
	atomic_thread_fence(memory_order_seq_cst);
}

void mt_grace(void)
{
	grace_barrier();
	struct mt_tbuf *me = mt_self;
	long pid = mt_raw6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	for (struct mt_tbuf *b = atomic_load(&mt_tbufs); b; b = b->next) {
		unsigned long h = atomic_load_explicit(&b->held, memory_order_acquire);
		if (b == me || !(h & 1) || atomic_load(&b->state) == MT_TBUF_FREE)
			continue;
		/* (a thread that ended inside a callback, by pthread_exit or
		 * cancellation, holds nothing: not waited for) */
		for (unsigned spins = 0; atomic_load_explicit(&b->held, memory_order_acquire) == h; spins++) {
			if ((spins & 63) == 63 && mt_raw6(SYS_tgkill, pid, b->tid, 0, 0, 0, 0) == -ESRCH)
				break;
			if (spins < 64) {
				mt_raw6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
			} else {
#ifdef SYS_nanosleep
				struct timespec ts = { 0, 100000 };
				mt_raw6(SYS_nanosleep, (long)&ts, 0, 0, 0, 0, 0);
#else
				mt_raw6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
#endif
			}
		}
	}
}

/* The same without waiting: begun with the barrier and a note of each
 * thread whose count is odd, in g->w (room for g->cap: mt_grace_room);
 * over once each of those counts has moved (or its buffer is free, or
 * its thread gone).  -1: more threads than room, not begun. */
size_t mt_grace_room(void)
{
	size_t n = 0;
	for (struct mt_tbuf *b = atomic_load(&mt_tbufs); b; b = b->next)
		n++;
	return n + 8;
}

int mt_grace_begin(struct mt_grace_poll *g)
{
	grace_barrier();
	size_t k = 0;
	for (struct mt_tbuf *b = atomic_load(&mt_tbufs); b; b = b->next) {
		unsigned long h = atomic_load_explicit(&b->held, memory_order_acquire);
		if ((h & 1) && atomic_load(&b->state) != MT_TBUF_FREE) {
			if (k == g->cap)
				return -1;
			g->w[k].b = b;
			g->w[k++].held = h;
		}
	}
	g->n = k;
	return 0;
}

bool mt_grace_over(struct mt_grace_poll *g)
{
	long pid = 0;
	for (size_t i = 0; i < g->n; i++) {
		struct mt_tbuf *b = g->w[i].b;
		if (!b)
			continue;
		if (atomic_load_explicit(&b->held, memory_order_acquire) == g->w[i].held &&
		    atomic_load(&b->state) != MT_TBUF_FREE) {
			if (!pid)
				pid = mt_raw6(SYS_getpid, 0, 0, 0, 0, 0, 0);
			if (mt_raw6(SYS_tgkill, pid, b->tid, 0, 0, 0, 0) != -ESRCH)
				return false;
		}
		g->w[i].b = NULL;
	}
	return true;
}

/* Argument word n at an entry (mcount-hooks.h). */
unsigned long mcount_regs_arg(struct mcount_regs *r, int n)
{
	if (!r || r->exit || n < 0 || n >= MT_MAX_ARGS) {
		errno = EINVAL;
		return 0;
	}
#if !MT_HAVE_ARGS || MT_ARGS_LOCATED
	errno = ENOTSUP;
	return 0;
#else
	bool on_stack = true;
#if MT_REG_ARGS
	on_stack = (unsigned)n >= MT_REG_ARGS;
#endif
	if (on_stack && !r->args) {
		errno = ENODATA;
		return 0;
	}
#if defined(__x86_64__)
	if (r->own)
		return (unsigned long)mt_arg_word(r->args - MT_OWN_SLOT, r->args, (unsigned)n);
#endif
	return (unsigned long)mt_arg_word(r->regs, r->args, (unsigned)n);
#endif
}

unsigned long mcount_regs_return(struct mcount_regs *r)
{
	if (!r || !r->exit) {
		errno = EINVAL;
		return 0;
	}
	return (unsigned long)r->ret;
}

/* The entry, in two copies: with_args is a constant, so that the common
 * one (no argument recording anywhere) carries none of its work.  Its
 * users, from the site's function's mask once a hook or a redirect
 * needs the look-up (mt_ops_on), else the tracer alone (every site that
 * calls is then its): the return taken where one of them wants its exit
 * (the frame's shadow entry, its time read once), then their entry
 * callbacks, the tracer's first.  A user that wants no exit after all
 * (the tracer, with no room for its event) gives the frame back if it
 * was the last. */
static inline __attribute__((always_inline)) void entry(uintptr_t ret, uintptr_t *slot, const uintptr_t *regs,
							 bool with_args)
{
	struct mt_tbuf *b = mt_self;
	if (__builtin_expect(!in_tabled(ret), 0)) {
		untabled_call(b);
		return;
	}
	if (__builtin_expect(!b, 0)) {
		if (!atomic_load_explicit(&mt_ready, memory_order_relaxed))
			return;
		if (!self_dead)
			b = tbuf_new();
		if (!b) {
			atomic_fetch_add_explicit(&mt_nobuf_lost, 1, memory_order_relaxed);
			return;
		}
	}
	if (b->nest && !nest_left(b, (uintptr_t)slot)) {
		if (b->nest == 2)
			b->recursion++;
		else
			b->lost++;
		if (MT_HAVE_REDIRECT && atomic_load_explicit(&mt_ops_on, memory_order_relaxed)) {
			/* (held already, or for the look-up alone) */
			bool mine = !(atomic_load_explicit(&b->held, memory_order_relaxed) & 1);
			if (mine)
				hold(b);
			redirect_nested(ret, slot);
			if (mine)
				unhold(b);
		}
		return;
	}
	b->nest = 1;
	b->nest_sp = (uintptr_t)slot;
	atomic_signal_fence(memory_order_seq_cst);
	mt_users users = MT_TRACED;
	const struct mt_fhook *fh = NULL;
	bool held = false;
	uintptr_t *const hook_slot = slot, redirect = 0;
	if (__builtin_expect(atomic_load_explicit(&mt_ops_on, memory_order_relaxed), 0)) {
		hold(b);
		held = true;
		struct mt_hooktab *t = atomic_load_explicit(&mt_hooktab, memory_order_acquire);
		fh = t ? mt_retmap_find(t->map, ret) : NULL;
		/* (a site of an object its pass has not reached yet: as before
		 * any hook, the tracer's) */
		users = fh ? atomic_load_explicit(&fh->mask, memory_order_relaxed) : MT_TRACED;
		redirect = fh ? atomic_load_explicit(&fh->redirect, memory_order_relaxed) : 0;
		if (!users)
			goto out;
	}
	mt_users exits = users & atomic_load_explicit(&mt_ops_exits, memory_order_relaxed);
	/* (arguments a hook may read, beside the tracer's) */
	bool hooks = users & ~MT_TRACED;
	/* A copy of the return address, not the frame's slot: never hijacked. */
	bool keep = MT_SLOT_COPY && ((uintptr_t)slot & MT_SLOT_KEEP);
	slot = (uintptr_t *)((uintptr_t)slot & ~(uintptr_t)(MT_SLOT_COPY ? MT_SLOT_KEEP : 0));
	uintptr_t key = SLOT_KEY(slot);
	uintptr_t parent = *slot;
	/* The return is taken for someone's exit. */
	bool frame = exits != 0;
#ifdef MT_REG_FP
	/* The frame's own slot, where its function keeps s0 at its CFA
	 * (rt.h): read only then. */
	if (keep && frame && !mt_retmap_find(atomic_load_explicit(&mt_nohook, memory_order_acquire), ret)) {
		uintptr_t *fs = (uintptr_t *)regs[MT_REG_FP] - 1;
		if (*fs == parent) {
			slot = fs;
			keep = false;
			key = SLOT_KEY(slot);
		}
	}
#endif
	/* Where the stack's arguments begin above (NULL: not known). */
	const uintptr_t *args_slot = slot;
	/* The marks of the frame's slot, in its shadow entry. */
	uintptr_t marks = 0;
#ifdef MT_SLOT_FRAME
	/* The word just below the caller's sp, that far above the pushed
	 * parent (rt.h): where the stack's arguments begin above (NULL: a
	 * prologue not read), the frame's own slot where the function is not
	 * nohook (mips64el), its key (arm). */
	uintptr_t *above = NULL;
	if (keep && (frame || with_args || hooks)) {
		const struct mt_site *si = mt_retmap_find(atomic_load_explicit(&mt_frames, memory_order_acquire), ret);
		uintptr_t *fs = NULL;
		if (si) {
			above = (uintptr_t *)((uintptr_t)slot + si->frame);
#ifdef MT_SLOT_DEAD
			/* where the prologue saved lr, or the pushed word */
			fs = (uintptr_t *)((uintptr_t)slot + si->lr_at);
			key = (uintptr_t)above;
			marks = si->lr_at ? 0 : MT_SLOT_DEAD;
#else
			fs = above;
#endif
		}
		if (si && frame && !si->nohook && *fs == parent) {
			slot = fs;
			keep = false;
#ifndef MT_SLOT_DEAD
			key = SLOT_KEY(slot);
#endif
		}
	}
	args_slot = above;
#endif
#ifdef MT_FRAME_AT_KEY
	/* the caller's frame (the key is its sp), not the function's */
	args_slot = (const uintptr_t *)(key + MT_FRAME_AT_KEY);
#endif
	if (__builtin_expect(parent == (uintptr_t)mt_return_trampoline, 0))
		parent = shadow_orig(b, key, keep ? 0 : (uintptr_t)slot | marks);
	bool hook = frame && !keep;
#if MT_HAVE_NOHOOK
	/* Looked up once: a frame never hijacked, and on i386 one whose slot
	 * is a copy with no arguments above it (MT_NOHOOK_NO_ARGS). */
	if ((hook || (MT_NOHOOK_NO_ARGS && (with_args || hooks))) &&
	    mt_retmap_find(atomic_load_explicit(&mt_nohook, memory_order_acquire), ret)) {
		hook = false;
		if (MT_NOHOOK_NO_ARGS)
			args_slot = NULL;
	}
#else
	(void)with_args;
#endif
	struct mt_call c;
	call_init(&c, regs, args_slot);
	c.site = ret;
	c.wants = exits;
	/* (the time of the frame's shadow entry, and the tracer's) */
	bool timed = hook || (users & MT_TRACED);
	if (timed)
		c.ts = clock_read(&c.cpu);
	/* A frame with the key of an older entry whose slot no longer holds
	 * the trampoline (not a tail call): that entry and those above it
	 * were left by a longjmp. */
	for (uint32_t i = b->sdepth; __builtin_expect(i > 0, 0) && (KEY(&b->shadow[i - 1]) & ~(uintptr_t)1) <= key; i--)
		if (KEY(&b->shadow[i - 1]) == key && *slot != (uintptr_t)mt_return_trampoline) {
			if (!timed)
				c.ts = clock_read(&c.cpu);
			pop_unwound(b, i - 1, false, c.ts, c.cpu);
			break;
		}
	if (hook && b->sdepth >= MT_SHADOW) {
		b->noshadow++;
		hook = false;
		c.noshadow = true;
	}
	struct mt_shadow *s = NULL;
	if (hook) {
		s = &b->shadow[b->sdepth];
		s->orig = *slot;
		s->slot = (uintptr_t)slot | marks;
		s->ip = ret;
		s->ts = c.ts;
		s->users = exits;
		s->gen = atomic_load_explicit(&mt_ops_gen, memory_order_relaxed);
		s->marks = 0;
#if !MT_KEY_IS_SLOT
		s->key = key;
#endif
		b->sdepth++;
		atomic_signal_fence(memory_order_seq_cst);
		*slot = (uintptr_t)mt_return_trampoline;
	}
	c.r.noexit = !hook;
	c.r.depth = b->sdepth - hook;
	if (users & MT_TRACED) {
		const struct mt_op *op = atomic_load_explicit(&mt_ops[MT_TRACER_ID], memory_order_acquire);
		if (op)
			op->entry(ret, parent, op->data, &c.r);
		if (__builtin_expect(c.drop && hook, 0)) {
			s->users &= ~c.drop;
			if (!s->users) {
				/* (no one's exit after all: the frame given back) */
				*slot = s->orig;
				atomic_signal_fence(memory_order_seq_cst);
				b->sdepth--;
				c.r.noexit = true;
				c.r.depth = b->sdepth;
			}
		}
	}
	if (hooks) {
		hook_fields(&c, key);
		call_entries(b, users & ~MT_TRACED, fh->addr, parent, &c.r);
	}
out:
	redirect_to(ret, hook_slot, redirect);
	if (held)
		unhold(b);
	atomic_signal_fence(memory_order_seq_cst);
	b->nest = 0;
}

static __attribute__((noinline)) void entry_with_args(uintptr_t ret, uintptr_t *slot, const uintptr_t *regs)
{
	entry(ret, slot, regs, true);
}

void mt_entry(uintptr_t ret, uintptr_t *slot, const uintptr_t *regs)
{
	if (MT_HAVE_ARGS && __builtin_expect(atomic_load_explicit(&mt_args_on, memory_order_relaxed), 0))
		entry_with_args(ret, slot, regs);
	else
		entry(ret, slot, regs, false);
}

/* A call through a function's own trampoline (MT_OWN, struct
 * mt_arch.own_fits): its hooks' entry callbacks (one: no list), the
 * function's users read from its entry in the table by index (no
 * look-up), as the pass published them before it made the site call
 * the stub.  Anything else (no buffer yet, a nested call, the site's
 * users changed since the call began, a frame returning through the
 * trampoline) goes the way of every call. */
MT_REALIGN void mt_own_entry(uint32_t func, uintptr_t ret, uintptr_t *regs)
{
	uintptr_t *slot = regs + MT_OWN_SLOT;
	struct mt_tbuf *b = mt_self;
	if (__builtin_expect(b && (!b->nest || nest_left(b, (uintptr_t)slot)), 1)) {
		b->nest = 1;
		b->nest_sp = (uintptr_t)slot;
		atomic_signal_fence(memory_order_seq_cst);
		hold(b);
		struct mt_hooktab *t = atomic_load_explicit(&mt_hooktab, memory_order_acquire);
		const struct mt_fhook *fh = t && func < t->n ? &t->f[func] : NULL;
		mt_users m = fh ? atomic_load_explicit(&fh->mask, memory_order_relaxed) : 0;
		uintptr_t parent = *slot;
		bool own = m && !(m & MT_TRACED) &&
			   !(m & atomic_load_explicit(&mt_ops_exits, memory_order_relaxed)) &&
			   !atomic_load_explicit(&fh->redirect, memory_order_relaxed) &&
			   parent != (uintptr_t)mt_return_trampoline;
		if (__builtin_expect(own, 1)) {
			struct mcount_regs r = { .regs = regs, .args = slot, .ret = 0, .exit = false,
						 .noexit = true, .depth = b->sdepth, .frame = SLOT_KEY(slot) };
			struct mt_fp fp;
			bool vec = needs_fp(m);
			if (vec)
				mt_fp_save(&fp);
			b->nest = 2;
			atomic_signal_fence(memory_order_seq_cst);
			do {
				const struct mt_op *op =
					atomic_load_explicit(&mt_ops[__builtin_ctzl(m)], memory_order_acquire);
				if (op && op->entry)
					op->entry(fh->addr, parent, op->data, &r);
			} while (m &= m - 1);
			atomic_signal_fence(memory_order_seq_cst);
			if (vec)
				mt_fp_restore(&fp);
		}
		unhold(b);
		atomic_signal_fence(memory_order_seq_cst);
		b->nest = 0;
		/* (no user left: a call begun before its site became a NOP) */
		if (__builtin_expect(own, 1) || !m)
			return;
	}
	/* (a stub is never the tracer's alone: with no hook registered nor
	 * redirect made, the call began before the site left its stub, and
	 * serves no one; not taken for the tracer's as mt_entry would) */
	if (atomic_load_explicit(&mt_ops_on, memory_order_relaxed))
		mt_entry(ret, slot, regs);
}

/* The shadow entry (its index + 1; 0: none) of the frame that returned
 * with this key: the one whose key it is or, where a return may pop
 * bytes (MT_RET_POPS), the one with the highest slot at or below it,
 * at most 64 KiB (ret's immediate) below, not given back (bit 0). */
static inline uint32_t exit_entry(const struct mt_tbuf *b, uintptr_t key)
{
	uint32_t i = b->sdepth;
#if MT_RET_POPS
	uint32_t found = 0;
	for (; i > 0 && KEY(&b->shadow[i - 1]) <= key; i--)
		if (!(KEY(&b->shadow[i - 1]) & 1) && key - KEY(&b->shadow[i - 1]) <= 0xffff)
			found = i;
	return found;
#else
	while (i > 0 && KEY(&b->shadow[i - 1]) != key)
		i--;
	return i;
#endif
}

uintptr_t mt_exit(uintptr_t key, uintptr_t retval)
{
	static const char nothing[] = "mcount-trace: a return through the trampoline that no "
		"shadow stack entry knows: cannot go on\n";
	struct mt_tbuf *b = mt_self;
	if (!b)
		die(nothing, sizeof nothing - 1);
	int nested = b->nest;
	b->nest = 1;
	if (!nested)
		b->nest_sp = key;
	atomic_signal_fence(memory_order_seq_cst);
	uint32_t i = exit_entry(b, key);
	if (!i)
		die(nothing, sizeof nothing - 1);
	unsigned cpu;
	uint64_t now = clock_read(&cpu);
	if (__builtin_expect(b->sdepth > i, 0))
		pop_unwound(b, i, nested, now, cpu);
	struct mt_shadow *s = &b->shadow[i - 1];
	uintptr_t orig = s->orig;
	if (s->users & MT_TRACED) {
		struct mt_call c;
		call_init(&c, NULL, NULL);
		hook_fields(&c, 0);
		c.r.ret = retval;
		c.ts = now;
		c.cpu = cpu;
		c.nested = nested;
		tracer_exit(b, s, &c);
	}
	if ((s->users & ~MT_TRACED) && !nested)
		call_exits(b, s, retval);
	b->sdepth = i - 1;
	atomic_signal_fence(memory_order_seq_cst);
	b->nest = nested;
	return orig;
}

/* Not the hot path: called by the unwinders' interposers (control.c),
 * before an exception or a forced unwind walks the stack (which must see
 * the real return addresses: the trampoline has no unwind information)
 * and when a handler catches it. */
/* Where a frame is, as the unwinders see it: its slot or, where that is
 * dead (MT_SLOT_DEAD), its key. */
static inline uintptr_t frame_at(const struct mt_shadow *s)
{
#if defined(MT_FRAME_AT_KEY)
	return KEY(s) + MT_FRAME_AT_KEY;
#elif defined(MT_SLOT_DEAD)
	if (s->slot & MT_SLOT_DEAD)
		return KEY(s);
#endif
	return s->slot & ~(uintptr_t)1;
}

/* The shadow entries of frames still live at stack pointer sp (their
 * slots at or above it); all: none. */
static uint32_t live_depth(const struct mt_tbuf *b, uintptr_t sp, bool all)
{
	uint32_t d = b->sdepth;
	while (d > 0 && (all || frame_at(&b->shadow[d - 1]) < sp))
		d--;
	return d;
}

void mt_shadow_unhook(uintptr_t sp, bool all)
{
	struct mt_tbuf *b = mt_self;
	if (!b || !b->sdepth)
		return;
	MT_FLUSH_WINDOWS();
	int nested = b->nest;
	b->nest = 1;
	atomic_signal_fence(memory_order_seq_cst);
	uint32_t d = live_depth(b, sp, all);
	for (uint32_t i = 0; i < b->sdepth; i++) {
		struct mt_shadow *s = &b->shadow[i];
		uintptr_t *p = (uintptr_t *)(s->slot & ~(uintptr_t)1);
		if (!(s->slot & 1) && frame_at(s) >= sp && still_its(s, p) && *p == (uintptr_t)mt_return_trampoline) {
			*p = s->orig;
			s->slot |= 1;
#ifdef MT_SLOT_ALIAS
			uintptr_t *q = (uintptr_t *)((uintptr_t)p + MT_SLOT_ALIAS);
			if (*q == (uintptr_t)mt_return_trampoline)
				*q = s->orig;
#endif
		}
	}
	unsigned cpu;
	uint64_t now = mt_clock_now(&cpu);
	pop_unwound(b, d, nested, now, cpu);
	atomic_signal_fence(memory_order_seq_cst);
	b->nest = nested;
}

void mt_shadow_rehook(uintptr_t sp)
{
	struct mt_tbuf *b = mt_self;
	if (!b || !b->sdepth)
		return;
	MT_FLUSH_WINDOWS();
	int nested = b->nest;
	b->nest = 1;
	atomic_signal_fence(memory_order_seq_cst);
	uint32_t d = live_depth(b, sp, false);
	unsigned cpu;
	uint64_t now = mt_clock_now(&cpu);
	pop_unwound(b, d, nested, now, cpu);
	for (uint32_t i = 0; i < b->sdepth; i++) {
		struct mt_shadow *s = &b->shadow[i];
		uintptr_t *p = (uintptr_t *)(s->slot & ~(uintptr_t)1);
		if ((s->slot & 1) && still_its(s, p) && *p == s->orig) {
			s->slot &= ~(uintptr_t)1;
			*p = (uintptr_t)mt_return_trampoline;
#ifdef MT_SLOT_ALIAS
			uintptr_t *q = (uintptr_t *)((uintptr_t)p + MT_SLOT_ALIAS);
			if (*q == s->orig)
				*q = (uintptr_t)mt_return_trampoline;
#endif
		}
	}
	atomic_signal_fence(memory_order_seq_cst);
	b->nest = nested;
}

/* After fork(): the child has one thread, this one; the other threads'
 * buffers are the parent's to write out. */
/* After fork, in a recording: the thread's buffer, a ring of the
 * parent's (a shared mapping), exchanged for one of the child's own,
 * with what the thread's frames need of it (the shadow stack). */
static struct mt_tbuf *rehome(struct mt_tbuf *old)
{
	uint64_t n = old->mask + 1;
	size_t size = sizeof(struct mt_tbuf) + n * sizeof(struct mt_event);
	struct mt_tbuf *b = mt_rec_dir >= 0 ? rec_tbuf(n, mt_raw6(SYS_gettid, 0, 0, 0, 0, 0, 0)) : NULL;
	if (!b) {
		long p = mt_raw_mmap_anon(size);
		if (p < 0 && p > -4096)
			return old;   /* (written by the child as the parent's: nothing better) */
		b = (struct mt_tbuf *)p;
	}
	b->mask = old->mask;
	atomic_init(&b->state, MT_TBUF_OWNED);
	__builtin_memcpy(b->comm, old->comm, sizeof b->comm);
	b->nest = old->nest;
	b->nest_sp = old->nest_sp;
	atomic_store(&b->held, atomic_load(&old->held));
	b->sdepth = old->sdepth;
	b->gf_depth = old->gf_depth;
	b->gf_in = old->gf_in;
	__builtin_memcpy(b->shadow, old->shadow, old->sdepth * sizeof *old->shadow);
	mt_raw6(SYS_munmap, (long)((char *)old - MT_REC_HEAD), (long)(MT_REC_HEAD + size), 0, 0, 0, 0);
	mt_self = b;
	return b;
}

void mt_buffers_after_fork(void)
{
	struct mt_tbuf *b = mt_self;
	if (b && b->rec_name[0])
		b = rehome(b);
	if (b) {
		mt_seq_store(&b->head, 0, memory_order_seq_cst);
		mt_seq_store(&b->tail, 0, memory_order_seq_cst);
		b->lost = b->lost_seen = 0;
		b->untabled = 0;
		b->tid = (int)mt_raw6(SYS_gettid, 0, 0, 0, 0, 0, 0);
		b->next = NULL;
	}
	atomic_store(&mt_nobuf_threads, self_dead || (b && b->mask + 1 < mt_buffer_events) ? 1ul : 0ul);
	atomic_store(&mt_nobuf_lost, 0ul);
	atomic_store(&mt_untabled_calls, 0ul);
	atomic_store(&mt_tbufs, b);
	mt_gone = (struct mt_gone){ 0 };
}
