/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output.c - the trace, written out: the kernel function tracer's text
 * format or JSON lines, names resolved now and not on the hot path.
 *
 *   # tracer: function
 *   #
 *   #           TASK-PID     CPU#     TIMESTAMP  FUNCTION
 *   #              | |         |         |         |
 *                lua-4242    [001]  5012.345678: luaV_execute <-luaD_call
 *
 * A drain consumes what every thread's buffer holds (the kernel's
 * trace_pipe), in time order; events a full buffer dropped are reported
 * as "comm-tid [LOST N EVENTS]" (JSON: {"lost":N,...}), never silently.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"

static pthread_mutex_t drain_lock = PTHREAD_MUTEX_INITIALIZER;
uint64_t mt_untabled_events;

void mt_output_lock(void) { pthread_mutex_lock(&drain_lock); }
void mt_output_unlock(void) { pthread_mutex_unlock(&drain_lock); }
void mt_output_reinit(void) { pthread_mutex_init(&drain_lock, NULL); }

/* ---- the clock: ticks to CLOCK_MONOTONIC seconds ---- */

static uint64_t t0_ticks, t0_ns, t1_ticks, t1_ns;

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void cpuid(unsigned leaf, unsigned r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(0));
}

/* A (ticks, ns) pair read together: the ticks halfway round the clock read. */
static void pair(uint64_t *ticks, uint64_t *ns)
{
	unsigned cpu;
	uint64_t a = mt_clock_now(&cpu);
	*ns = mono_ns();
	uint64_t b = mt_clock_now(&cpu);
	*ticks = a + (b - a) / 2;
}

void mt_clock_init(void)
{
	unsigned r[4];
	cpuid(0x80000000u, r);
	if (r[0] >= 0x80000007u) {
		unsigned ext[4], pm[4];
		cpuid(0x80000001u, ext);
		cpuid(0x80000007u, pm);
		mt_use_tsc = (ext[3] & (1u << 27)) && (pm[3] & (1u << 8));   /* rdtscp, invariant */
	}
	cpuid(0, r);
	if (mt_use_tsc && r[0] >= 7) {
		unsigned f[4];
		cpuid(7, f);
		mt_use_rdpid = f[2] & (1u << 22);
	}
	pair(&t0_ticks, &t0_ns);
	t1_ns = 0;
}

double mt_ticks_to_seconds(uint64_t ts)
{
	if (!mt_use_tsc)
		return (double)ts / 1e9;
	if (!t1_ns) {
		uint64_t now = mono_ns();
		if (now - t0_ns < 20000000u) {
			/* Too short a time to measure the TSC's rate: wait. */
			struct timespec d = { 0, (long)(20000000u - (now - t0_ns)) };
			nanosleep(&d, NULL);
		}
		pair(&t1_ticks, &t1_ns);
	}
	double rate = (double)(t1_ns - t0_ns) / (double)(t1_ticks - t0_ticks);
	return ((double)t0_ns + ((double)ts - (double)t0_ticks) * rate) / 1e9;
}

/* ---- writing ---- */

int mt_write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

struct out {
	int fd;
	int err;
	size_t len;
	char buf[65536];
};

static void flush(struct out *o)
{
	if (o->len && !o->err && mt_write_all(o->fd, o->buf, o->len))
		o->err = errno ? errno : EIO;
	o->len = 0;
}

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	if (sizeof o->buf - o->len < 4096)
		flush(o);
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->buf + o->len, sizeof o->buf - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n < sizeof o->buf - o->len ? (size_t)n : sizeof o->buf - o->len - 1;
}

/* A name as a JSON string's contents. */
static const char *json_str(const char *s, char *buf, size_t len)
{
	size_t k = 0;
	for (; *s && k + 8 < len; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			buf[k++] = '\\';
			buf[k++] = (char)c;
		} else if (c < 0x20) {
			k += (size_t)snprintf(buf + k, len - k, "\\u%04x", c);
		} else {
			buf[k++] = (char)c;
		}
	}
	buf[k] = 0;
	return buf;
}

struct rec {
	struct mt_event ev;
	const struct mt_tbuf *b;
	size_t seq;                   /* a thread's order, for equal times */
};

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->ev.ts != y->ev.ts)
		return x->ev.ts < y->ev.ts ? -1 : 1;
	if (x->b != y->b)
		return x->b->tid < y->b->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The thread's name now, or the one it had at its first event. */
static void comm_of(const struct mt_tbuf *b, char *out, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/comm", b->tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, out, len - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n > 0) {
		out[n] = 0;
		out[strcspn(out, "\n")] = 0;
	} else {
		snprintf(out, len, "%.15s", b->comm);
	}
}

static void header(struct out *o)
{
	put(o, "# tracer: function\n#\n");
	put(o, "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n");
	put(o, "#              | |         |         |         |\n");
}

static bool thread_gone(int tid)
{
	return syscall(SYS_tgkill, getpid(), tid, 0) && errno == ESRCH;
}

/* A buffer found empty whose thread has exited is reset and freed (lock
 * held: drain_lock). */
static void reap_one(struct mt_tbuf *b)
{
	if (atomic_load(&b->state) != MT_TBUF_OWNED || b->lost != b->lost_seen ||
	    atomic_load(&b->head) != atomic_load(&b->tail) || !thread_gone(b->tid))
		return;
	atomic_store(&b->head, 0);
	atomic_store(&b->tail, 0);
	b->lost = b->lost_seen = 0;
	b->nest = 0;
	atomic_store_explicit(&b->state, MT_TBUF_FREE, memory_order_release);
}

void mt_reap(void)
{
	pthread_mutex_lock(&drain_lock);
	int saved = errno;
	for (struct mt_tbuf *b = atomic_load(&mt_tbufs); b; b = b->next)
		reap_one(b);
	errno = saved;
	pthread_mutex_unlock(&drain_lock);
}

long mt_drain(int fd, bool json, bool with_header)
{
	pthread_mutex_lock(&drain_lock);
	size_t cap = 0, n = 0;
	struct rec *v = NULL;
	struct out *o = malloc(sizeof *o);
	if (!o) {
		pthread_mutex_unlock(&drain_lock);
		errno = ENOMEM;
		return -1;
	}
	o->fd = fd;
	o->err = 0;
	o->len = 0;
	if (with_header && !json)
		header(o);
	for (struct mt_tbuf *b = atomic_load(&mt_tbufs); b; b = b->next) {
		uint64_t h = atomic_load_explicit(&b->head, memory_order_acquire);
		uint64_t t = atomic_load_explicit(&b->tail, memory_order_relaxed);
		if (h - t > b->mask + 1)
			t = h - (b->mask + 1);
		if (n + (h - t) > cap) {
			size_t nc = (n + (h - t)) * 2 + 1024;
			struct rec *nv = realloc(v, nc * sizeof *nv);
			if (!nv)
				break;
			v = nv;
			cap = nc;
		}
		for (uint64_t i = t; i < h; i++) {
			v[n].ev = b->ev[i & b->mask];
			v[n].b = b;
			v[n].seq = n;
			n++;
		}
		atomic_store_explicit(&b->tail, h, memory_order_release);
	}
	if (n)
		qsort(v, n, sizeof *v, rec_cmp);

	uint64_t untabled = mt_untabled_events;
	pthread_mutex_lock(&mt_reg.lock);
	char cbuf[64], pbuf[32], j1[512], j2[512], j3[64];
	const struct mt_tbuf *last = NULL;
	for (struct mt_tbuf *b = atomic_load(&mt_tbufs); b; b = b->next) {
		uint64_t lost = b->lost;
		if (lost == b->lost_seen)
			continue;
		comm_of(b, cbuf, sizeof cbuf);
		if (json)
			put(o, "{\"lost\":%llu,\"comm\":\"%s\",\"tid\":%d}\n",
			    (unsigned long long)(lost - b->lost_seen), json_str(cbuf, j3, sizeof j3), b->tid);
		else
			put(o, "%16.16s-%-7d [LOST %llu EVENTS]\n", cbuf, b->tid,
			    (unsigned long long)(lost - b->lost_seen));
		b->lost_seen = lost;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rec *r = &v[i];
		if (r->b != last) {
			comm_of(r->b, cbuf, sizeof cbuf);
			last = r->b;
		}
		uintptr_t ret = (uintptr_t)(r->ev.ip & MT_IP_MASK);
		unsigned cpu = (unsigned)(r->ev.ip >> MT_CPU_SHIFT);
		const struct mt_site *s = mt_site_before(ret);
		if (!s || atomic_load_explicit(&s->refused, memory_order_relaxed)) {
			/* A call from code no table records (or from a refused
			 * site) reaches the hook whatever the filters say. */
			mt_untabled_events++;
			continue;
		}
		bool exact;
		uintptr_t at = s->addr;
		const char *fn = mt_reg.funcs[s->func].name;
		const char *pn = mt_name_of(r->ev.parent, pbuf, sizeof pbuf, &exact);
		double sec = mt_ticks_to_seconds(r->ev.ts);
		if (json) {
			put(o, "{\"comm\":\"%s\",\"tid\":%d,\"cpu\":%u,\"ts\":%.9f,\"func\":\"%s\","
			    "\"parent\":\"%s\",\"addr\":\"%#lx\",\"parent_addr\":\"%#lx\"}\n",
			    json_str(cbuf, j3, sizeof j3), r->b->tid, cpu, sec, json_str(fn, j1, sizeof j1),
			    json_str(pn, j2, sizeof j2), (unsigned long)at, (unsigned long)r->ev.parent);
		} else {
			unsigned long long us = (unsigned long long)(sec * 1e6 + 0.5);
			put(o, "%16.16s-%-7d [%03u] %6llu.%06llu: %s <-%s\n", cbuf, r->b->tid, cpu,
			    us / 1000000, us % 1000000, fn, pn);
		}
	}
	pthread_mutex_unlock(&mt_reg.lock);
	flush(o);
	int saved = errno;
	for (struct mt_tbuf *b = atomic_load(&mt_tbufs); b; b = b->next)
		reap_one(b);
	errno = saved;
	int err = o->err;
	free(o);
	free(v);
	n -= mt_untabled_events - untabled;
	pthread_mutex_unlock(&drain_lock);
	if (err) {
		errno = err;
		return -1;
	}
	return (long)n;
}
