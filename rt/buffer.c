/* SPDX-License-Identifier: GPL-2.0-or-later */
/* buffer.c - the hot path: one event per traced call, into the calling
 * thread's own buffer.
 *
 * Each thread writes only its own ring (single producer); a reader
 * (output.c) consumes it under its own lock, so the hot path takes no
 * lock: a load of the reader's tail, three stores and a release store of
 * the head.  A full ring drops the event and counts it.  A signal handler
 * that runs traced code while its thread is inside mt_entry() has its
 * event counted as lost too, rather than corrupting the ring.
 *
 * This file is compiled with general registers only and calls nothing in
 * libc on the hot path or on a thread's first event (its buffer comes
 * from a raw mmap system call): the hooks do not save the vector
 * registers, and a first event may come from a signal handler.
 *
 * The clock is the TSC read with rdtsc, and the CPU is rdpid's (the
 * kernel keeps it in TSC_AUX), or both from rdtscp; output.c converts
 * the ticks to CLOCK_MONOTONIC seconds when the trace is written.  Without rdtscp and an invariant
 * TSC it is clock_gettime(), which the vDSO serves with general
 * registers only.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>

#include "rt.h"

struct mt_tbuf *_Atomic mt_tbufs;
uint64_t mt_buffer_events = 131072;
bool mt_use_tsc;
bool mt_use_rdpid;
static __thread struct mt_tbuf *self __attribute__((tls_model("initial-exec")));
static __thread int self_dead __attribute__((tls_model("initial-exec")));

static long raw6(long n, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline uint64_t rdtscp(unsigned *cpu)
{
	unsigned lo, hi, aux;
	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	*cpu = aux & 0xfff;
	return ((uint64_t)hi << 32) | lo;
}

/* rdtsc and rdpid cost less than one rdtscp (whose ordering an entry
 * event does not need): on one VM, 12 + 2.5 ns against 24. */
static inline uint64_t rdtsc_rdpid(unsigned *cpu)
{
	unsigned lo, hi;
	uint64_t pid;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	__asm__ volatile("rdpid %0" : "=r"(pid));
	*cpu = (unsigned)pid & 0xfff;
	return ((uint64_t)hi << 32) | lo;
}

uint64_t mt_clock_now(unsigned *cpu)
{
	if (mt_use_rdpid)
		return rdtsc_rdpid(cpu);
	if (mt_use_tsc)
		return rdtscp(cpu);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	*cpu = 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct mt_tbuf *tbuf_new(void)
{
	uint64_t n = 1;
	while (n < mt_buffer_events)
		n <<= 1;
	/* A buffer an exited thread left, emptied and freed by a drain. */
	for (struct mt_tbuf *b = atomic_load(&mt_tbufs); b; b = b->next) {
		int free_state = MT_TBUF_FREE;
		if (b->mask == n - 1 && atomic_load_explicit(&b->state, memory_order_relaxed) == MT_TBUF_FREE &&
		    atomic_compare_exchange_strong(&b->state, &free_state, MT_TBUF_OWNED)) {
			b->tid = (int)raw6(SYS_gettid, 0, 0, 0, 0, 0, 0);
			raw6(SYS_prctl, PR_GET_NAME, (long)b->comm, 0, 0, 0, 0);
			self = b;
			return b;
		}
	}
	size_t size = sizeof(struct mt_tbuf) + n * sizeof(struct mt_event);
	long p = raw6(SYS_mmap, 0, (long)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p < 0 && p > -4096) {
		self_dead = 1;
		return NULL;
	}
	struct mt_tbuf *b = (struct mt_tbuf *)p;
	b->mask = n - 1;
	atomic_init(&b->state, MT_TBUF_OWNED);
	b->tid = (int)raw6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	raw6(SYS_prctl, PR_GET_NAME, (long)b->comm, 0, 0, 0, 0);
	struct mt_tbuf *head = atomic_load(&mt_tbufs);
	do
		b->next = head;
	while (!atomic_compare_exchange_weak(&mt_tbufs, &head, b));
	self = b;
	return b;
}

void mt_entry(uintptr_t ret, uintptr_t parent)
{
	struct mt_tbuf *b = self;
	if (__builtin_expect(!b, 0)) {
		if (!atomic_load_explicit(&mt_ready, memory_order_relaxed) || self_dead)
			return;
		b = tbuf_new();
		if (!b)
			return;
	}
	if (b->nest) {
		b->lost++;
		return;
	}
	b->nest = 1;
	atomic_signal_fence(memory_order_seq_cst);
	uint64_t h = atomic_load_explicit(&b->head, memory_order_relaxed);
	if (h - atomic_load_explicit(&b->tail, memory_order_acquire) > b->mask) {
		b->lost++;
	} else {
		unsigned cpu;
		struct mt_event *e = &b->ev[h & b->mask];
		e->ts = mt_clock_now(&cpu);
		e->ip = (uint64_t)ret | (uint64_t)cpu << MT_CPU_SHIFT;
		e->parent = parent;
		atomic_store_explicit(&b->head, h + 1, memory_order_release);
	}
	atomic_signal_fence(memory_order_seq_cst);
	b->nest = 0;
}

/* After fork(): the child has one thread, this one; the other threads'
 * buffers are the parent's to write out. */
void mt_buffers_after_fork(void)
{
	struct mt_tbuf *b = self;
	if (b) {
		atomic_store(&b->head, 0);
		atomic_store(&b->tail, 0);
		b->lost = b->lost_seen = 0;
		b->tid = (int)raw6(SYS_gettid, 0, 0, 0, 0, 0, 0);
		b->next = NULL;
	}
	atomic_store(&mt_tbufs, b);
}
