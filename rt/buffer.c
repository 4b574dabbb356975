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
 * The clock and the CPU number are the processor's (cpu.h: rdtsc and
 * rdpid on x86_64, cntvct_el0 and rseq's cpu_id_start on aarch64);
 * output.c converts the ticks to CLOCK_MONOTONIC seconds when the trace
 * is written.  Where the probe finds no usable counter it is
 * clock_gettime(), which the vDSO serves with general registers only.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>

#include "cpu.h"
#include "rt.h"

struct mt_tbuf *_Atomic mt_tbufs;
uint64_t mt_buffer_events = 131072;
bool mt_use_tsc;
bool mt_use_rdpid;
static __thread struct mt_tbuf *self __attribute__((tls_model("initial-exec")));
static __thread int self_dead __attribute__((tls_model("initial-exec")));

uint64_t mt_clock_now(unsigned *cpu)
{
	if (mt_use_tsc)
		return mt_cpu_ticks(cpu);
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
			b->tid = (int)mt_raw6(SYS_gettid, 0, 0, 0, 0, 0, 0);
			mt_raw6(SYS_prctl, PR_GET_NAME, (long)b->comm, 0, 0, 0, 0);
			self = b;
			return b;
		}
	}
	size_t size = sizeof(struct mt_tbuf) + n * sizeof(struct mt_event);
	long p = mt_raw6(SYS_mmap, 0, (long)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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
		b->tid = (int)mt_raw6(SYS_gettid, 0, 0, 0, 0, 0, 0);
		b->next = NULL;
	}
	atomic_store(&mt_tbufs, b);
}
