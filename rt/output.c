/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output.c - the trace, written out: the kernel function tracer's text
 * format, JSON lines, or Chrome's JSON trace format (Perfetto,
 * chrome://tracing), names resolved now and not on the hot path.
 *
 *   # tracer: function
 *   #
 *   #           TASK-PID     CPU#     TIMESTAMP  FUNCTION
 *   #              | |         |         |         |
 *                lua-4242    [001]  5012.345678: luaV_execute <-luaD_call
 *
 * The function_graph tracer's, with the thread (the kernel's
 * funcgraph-proc option, as threads are merged) and the function's name
 * after each closing brace (funcgraph-tail):
 *
 *   # tracer: function_graph
 *   #
 *   # CPU  TASK/PID         DURATION                  FUNCTION CALLS
 *   # |     |    |           |   |                     |   |   |   |
 *    1)    lua-4242    |               |  luaH_resize() {
 *    1)    lua-4242    |   0.210 us    |    luaM_malloc_();
 *    1)    lua-4242    |   1.042 us    |  } (slash-star) luaH_resize (star-slash)
 *
 * A call whose return is the thread's next event in the same drain is
 * one line (a leaf); a frame left without returning (longjmp, an
 * exception, the thread's end) is closed by a brace with no duration and
 * "NAME: unwound" in its comment.  Indentation is the line's own
 * thread's depth.  Where a line's thread is not the previous line's, the
 * kernel's marker of a change of task comes first (trace_functions_graph.c,
 * verif_pid): a rule, the CPU and the two threads' fields as their lines
 * have them, a rule and an empty line,
 *
 *    ------------------------------------------
 *    1)    lua-4242    =>    lua-4243
 *    ------------------------------------------
 *
 * across drains too (the output's own struct mt_doc_state remembers the
 * last line's thread), but not before the first line of a document or
 * of a section under a new tracer's header.
 *
 * A drain consumes what every thread's buffer holds (the kernel's
 * trace_pipe), in time order; events a full buffer dropped are reported
 * as "comm-tid [LOST N EVENTS]" (JSON: {"lost":N,...}; Chrome: an
 * instant event), never silently, right after the thread's last event
 * of the drain: a full buffer drops the newest events, so the losses
 * since the last drain came after every event it kept (a thread that
 * kept none: at the top of the drain).
 * Each entry is written in the style of the tracer it was recorded
 * under (MT_EV_GRAPH), a style at a time (mt_drain).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpu.h"
#include "rt.h"

static pthread_mutex_t drain_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned drains;               /* under way (each may have let go of
				       * the lock to write): drain_lock */
uint64_t mt_untabled_events;
_Atomic unsigned long mt_drain_progress;
uint64_t mt_unwritten_events;

void mt_output_lock(void) { pthread_mutex_lock(&drain_lock); }
void mt_output_unlock(void) { pthread_mutex_unlock(&drain_lock); }
void mt_output_reinit(void)
{
	pthread_mutex_init(&drain_lock, NULL);
	drains = 0;
}

/* ---- the clock: ticks to CLOCK_MONOTONIC seconds ----
 *
 * A line through (ticks, ns) pairs read together: at start-up, then at
 * each drain (at least 10 ms apart), each new line starting where the
 * last one ended, at its last pair, and going through the new pair.  So
 * an event's time is as exact as a clock read however long the program
 * runs, follows CLOCK_MONOTONIC's own adjustments, and never goes back
 * from one drain to the next.  (A rate measured once, over the first
 * 20 ms, was 200 ppm off: 0.7 s an hour.)  drain_lock held. */

static uint64_t p_ticks, p_ns;       /* the latest pair */
static double a_ticks, a_ns, rate;   /* the line: ns = a_ns + (ticks - a_ticks) * rate
				      * (rate 0: none measured yet) */

uint64_t mt_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A (ticks, ns) pair read together: the ticks halfway round the clock
 * read, the best of a few tries (a first read of the clock can take
 * microseconds: the vDSO's data page faulted in). */
void mt_clock_pair(uint64_t *ticks, uint64_t *ns)
{
	unsigned cpu;
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 8; i++) {
		uint64_t a = mt_clock_now(&cpu);
		uint64_t n = mt_mono_ns();
		uint64_t b = mt_clock_now(&cpu);
		if (b - a < best) {
			best = b - a;
			*ticks = a + (b - a) / 2;
			*ns = n;
		}
	}
}

#if defined(__powerpc__) || defined(__s390x__)
bool mt_fp_vec;                       /* (cpu.h: mt_fp_save) */
#endif

void mt_clock_init(void)
{
	mt_cpu_clock_probe();
	mt_clock_pair(&p_ticks, &p_ns);
	a_ticks = (double)p_ticks;
	a_ns = (double)p_ns;
	rate = 0;
}

static void clock_refresh(bool wait)
{
	if (!mt_use_tsc)
		return;
	/* (too short a time measures the TSC's rate badly) */
	uint64_t gap = rate ? 10000000u : 20000000u, now = mt_mono_ns();
	if (now - p_ns < gap) {
		if (!wait)
			return;     /* (an event's conversion waits, the first time) */
		struct timespec d = { 0, (long)(gap - (now - p_ns)) };
		nanosleep(&d, NULL);
	}
	uint64_t ticks, ns;
	mt_clock_pair(&ticks, &ns);
	if (ticks <= p_ticks)
		return;
	/* the new line starts where the last one ends, at the last pair */
	a_ns += ((double)p_ticks - a_ticks) * rate;
	a_ticks = (double)p_ticks;
	rate = ((double)ns - a_ns) / ((double)ticks - a_ticks);
	p_ticks = ticks;
	p_ns = ns;
}

uint64_t mt_ns_to_ticks(uint64_t ns)
{
	if (!mt_use_tsc)
		return ns;
	pthread_mutex_lock(&drain_lock);
	if (!rate)
		clock_refresh(true);
	double t = rate ? (double)ns / rate : (double)ns;
	pthread_mutex_unlock(&drain_lock);
	return (uint64_t)(t + 0.5);
}

double mt_ticks_to_seconds(uint64_t ts)
{
	if (!mt_use_tsc)
		return (double)ts / 1e9;
	if (!rate)
		clock_refresh(true);
	return (a_ns + ((double)ts - a_ticks) * rate) / 1e9;
}

/* ---- writing ---- */

/* n bytes to the socket fd, each call done within ms milliseconds or
 * ETIMEDOUT: a client that does not read cannot hold the writer for
 * longer (MSG_NOSIGNAL: one that closed is EPIPE, not a signal). */
int mt_send_all(int fd, const char *p, size_t n, int ms)
{
	uint64_t end = mt_mono_ns() + (uint64_t)ms * 1000000u;
	while (n) {
		ssize_t w = send(fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w >= 0) {
			p += w;
			n -= (size_t)w;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		uint64_t now = mt_mono_ns();
		if (now >= end) {
			errno = ETIMEDOUT;
			return -1;
		}
		struct pollfd pf = { fd, POLLOUT, 0 };
		poll(&pf, 1, (int)((end - now) / 1000000u) + 1);
	}
	return 0;
}

/* What a drain formats, in memory: it grows to hold whatever one event
 * needs, and is written out (flush) only with no lock held. */
struct out {
	int fd;
	int err;
	int wait_ms;                  /* a client's socket: mt_send_all's bound; <0: a file */
	size_t len, cap;
	char *buf;
	uint64_t held;                /* events formatted into buf, not yet written */
	uint64_t lost;                /* events a failed write lost: those it held, and
				       * every one after it (err set: none formatted) */
};
/* A drain writes what it has formatted once it is this much. */
#define OUT_FLUSH 65536

static bool room(struct out *o, size_t need)
{
	if (o->err)
		return false;
	if (o->cap - o->len >= need)
		return true;
	size_t cap = o->cap ? o->cap : OUT_FLUSH + 16384;
	while (cap - o->len < need)
		cap *= 2;
	char *nb = realloc(o->buf, cap);
	if (!nb) {
		o->err = ENOMEM;
		return false;
	}
	o->buf = nb;
	o->cap = cap;
	return true;
}

/* No lock held. */
static void flush(struct out *o)
{
	if (o->len && !o->err) {
		int r = o->wait_ms >= 0 ? mt_send_all(o->fd, o->buf, o->len, o->wait_ms)
			: mt_write_all(o->fd, o->buf, o->len);
		if (r)
			o->err = errno ? errno : EIO;
	}
	if (o->err)
		o->lost += o->held;
	o->held = 0;
	o->len = 0;
}

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	if (!room(o, 4096))
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= o->cap - o->len) {
		if (!room(o, (size_t)n + 1))  /* a long one (arguments): again */
			return;
		va_start(ap, fmt);
		n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
	}
	o->len += (size_t)n;
}


/* One thread's events of a drain: v[at, end), already in time order. */
struct seg {
	size_t at, end;               /* end: of the events of the style being written */
	size_t stop;                  /* of all its events */
	struct mt_tbuf *b;
	char comm[64];
	char prefix[48];              /* text: "            comm-tid     " */
	size_t plen;
	char jprefix[128];            /* JSON: {"comm":"comm","tid":tid,"cpu": */
	size_t jplen;
	char gprefix[112];             /* function_graph: the thread, centred in 14 */
	uint64_t lost;                /* events its buffer lost since the last drain:
				       * said after its last event of this one */
};

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

/* The head of a document: its text, and its length in *len. */
static const char *header_of(enum mt_fmt fmt, int tracer, size_t *len)
{
	static const char fn[] = "# tracer: function\n#\n"
		"#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n"
		"#              | |         |         |         |\n";
	static const char graph[] = "# tracer: function_graph\n#\n"
		"# CPU  TASK/PID         DURATION                  FUNCTION CALLS\n"
		"# |     |    |           |   |                     |   |   |   |\n";
	static const char chrome[] = "{\"traceEvents\":[\n";
	const char *h = fmt == MT_FMT_TEXT && tracer == MT_TRACER_GRAPH ? graph
		: fmt == MT_FMT_TEXT ? fn : fmt == MT_FMT_CHROME ? chrome : "";
	*len = strlen(h);
	return h;
}

void mt_write_header(int fd, enum mt_fmt fmt, int tracer)
{
	size_t len;
	const char *h = header_of(fmt, tracer, &len);
	if (len)
		mt_write_all(fd, h, len);
}

void mt_write_end(int fd, enum mt_fmt fmt)
{
	if (fmt == MT_FMT_CHROME)
		mt_write_all(fd, "\n]}\n", 4);
}

bool mt_thread_gone(int tid)
{
	return syscall(SYS_tgkill, getpid(), tid, 0) && errno == ESRCH;
}

/* A buffer whose thread has exited, found empty after that, is reset and
 * freed (lock held: drain_lock).  The thread first: a buffer found empty
 * while its thread still ran may get the thread's last events before it
 * exits, and would be reset with them. */
static void reap_one(struct mt_tbuf *b)
{
	/* (a recording's ring keeps its counts: the file says them) */
	if (mt_rec_dir >= 0 || atomic_load(&b->state) != MT_TBUF_OWNED || !mt_thread_gone(b->tid) || b->lost != b->lost_seen ||
	    atomic_load(&b->head) != atomic_load(&b->tail))
		return;
	atomic_store(&b->head, 0);
	atomic_store(&b->tail, 0);
	mt_gone.lost += b->lost;
	mt_gone.noshadow += b->noshadow;
	mt_gone.unwound += b->unwound;
	mt_gone.wait_failed += b->wait_failed;
	mt_gone.untabled += b->untabled;
	mt_gone.recursion += b->recursion;
	b->lost = b->lost_seen = 0;
	b->noshadow = b->unwound = b->wait_failed = b->untabled = b->recursion = 0;
	b->nest = 0;
	/* (a thread that ended inside a callback left it odd: mt_grace) */
	atomic_store(&b->held, (atomic_load(&b->held) | 1) + 1);
	b->nopen = 0;
	b->sdepth = 0;
	atomic_store_explicit(&b->state, MT_TBUF_FREE, memory_order_release);
}

uint64_t mt_untabled_total(void)
{
	uint64_t n = mt_untabled_events + mt_gone.untabled + atomic_load(&mt_untabled_calls);
	for (struct mt_tbuf *b = atomic_load(&mt_tbufs); b; b = b->next)
		n += b->untabled;
	return n;
}

void mt_reap(void)
{
	pthread_mutex_lock(&drain_lock);
	int saved = errno;
	for (struct mt_tbuf *b = atomic_load(&mt_tbufs); b && !drains; b = b->next)
		reap_one(b);
	errno = saved;
	pthread_mutex_unlock(&drain_lock);
}

/* The kernel's line, without printf: this is most of a drain's time. */
static void put_text(struct out *o, const struct seg *g, unsigned cpu, double sec, const char *fn,
		     const char *args, const char *pn)
{
	size_t fl = strlen(fn), pl = strlen(pn), al = strlen(args);
	if (!room(o, g->plen + fl + pl + al + 64))
		return;
	char *p = o->buf + o->len;
	memcpy(p, g->prefix, g->plen);
	p += g->plen;
	*p++ = '[';
	p = mt_put_dec(p, cpu, 3, '0');
	*p++ = ']';
	*p++ = ' ';
	uint64_t us = (uint64_t)(sec * 1e6 + 0.5);
	p = mt_put_dec(p, us / 1000000, 6, ' ');
	*p++ = '.';
	p = mt_put_dec(p, us % 1000000, 6, '0');
	*p++ = ':';
	*p++ = ' ';
	memcpy(p, fn, fl);
	p += fl;
	memcpy(p, args, al);
	p += al;
	memcpy(p, " <-", 3);
	p += 3;
	memcpy(p, pn, pl);
	p += pl;
	*p++ = '\n';
	o->len = (size_t)(p - o->buf);
}

static char *put_hex(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;
	do
		tmp[n++] = digits[v & 15];
	while ((v >>= 4));
	*p++ = '0';
	*p++ = 'x';
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* A name as JSON string contents, written at p, which has room for six
 * bytes a byte of it: copied as it is when it needs no escape, which is
 * nearly always. */
static char *put_jname(char *p, const char *name, size_t len)
{
	size_t i = 0;
	while (i < len && (unsigned char)name[i] >= 0x20 && name[i] != '"' && name[i] != '\\')
		i++;
	memcpy(p, name, i);
	p += i;
	for (; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
		} else if (c < 0x20) {
			static const char hex[] = "0123456789abcdef";
			memcpy(p, "\\u00", 4);
			p[4] = hex[c >> 4];
			p[5] = hex[c & 15];
			p += 6;
		} else {
			*p++ = (char)c;
		}
	}
	return p;
}

/* A name as a JSON string's contents, in buf (cut to fit len). */
static const char *json_str(const char *s, char *buf, size_t len)
{
	size_t n = 0, room = len - 1;
	for (; s[n]; n++) {              /* the bytes that fit, escaped */
		unsigned char c = (unsigned char)s[n];
		size_t w = c == '"' || c == '\\' ? 2 : c < 0x20 ? 6 : 1;
		if (w > room)
			break;
		room -= w;
	}
	*put_jname(buf, s, n) = 0;
	return buf;
}

/* One JSON line, without printf. */
/* An entry; noexit: under function_graph, one whose return the library
 * could not hook, so that no exit follows. */
static void put_json(struct out *o, const struct seg *g, unsigned cpu, double sec, const char *fn,
		     const char *pn, uintptr_t at, uintptr_t parent, const char *args, bool noexit)
{
	size_t fl = strlen(fn), pl = strlen(pn), al = strlen(args);
	size_t need = g->jplen + 6 * (fl + pl) + al + 170;
	if (need > OUT_FLUSH) {
		/* Names of more than 5,000 bytes each: cut there. */
		fl = fl > 5000 ? 5000 : fl;
		pl = pl > 5000 ? 5000 : pl;
		need = g->jplen + 6 * (fl + pl) + al + 170;
	}
	if (!room(o, need))
		return;
	char *p = o->buf + o->len;
	memcpy(p, g->jprefix, g->jplen);
	p += g->jplen;
	p = mt_put_dec(p, cpu, 0, ' ');
	memcpy(p, ",\"ts\":", 6);
	p += 6;
	uint64_t ns = (uint64_t)(sec * 1e9 + 0.5);
	p = mt_put_dec(p, ns / 1000000000u, 0, ' ');
	*p++ = '.';
	p = mt_put_dec(p, ns % 1000000000u, 9, '0');
	memcpy(p, ",\"func\":\"", 9);
	p = put_jname(p + 9, fn, fl);
	memcpy(p, "\",\"parent\":\"", 12);
	p = put_jname(p + 12, pn, pl);
	memcpy(p, "\",\"addr\":\"", 10);
	p = put_hex(p + 10, at);
	memcpy(p, "\",\"parent_addr\":\"", 17);
	p = put_hex(p + 17, parent);
	*p++ = '"';
	if (al) {
		memcpy(p, ",\"args\":", 8);
		memcpy(p + 8, args, al);
		p += 8 + al;
	}
	if (noexit) {
		memcpy(p, ",\"noexit\":true", 14);
		p += 14;
	}
	memcpy(p, "}\n", 2);
	p += 2;
	o->len = (size_t)(p - o->buf);
}

/* Parents repeat: a small cache of their names, for one drain; a name
 * made of an address (FILE+0xADDR) is a copy of its own, freed with the
 * cache. */
struct name_cache {
	uintptr_t addr[512];
	const char *name[512];
	char *made[512];
};

static const char *parent_name(struct name_cache *c, uintptr_t a)
{
	size_t k = (a >> 2) % 512;
	if (c->addr[k] != a || !c->name[k]) {
		char buf[MT_ADDR_NAME];
		const char *n = mt_name_of(a, buf, sizeof buf);
		free(c->made[k]);
		c->made[k] = n == buf ? strdup(buf) : NULL;
		c->addr[k] = a;
		c->name[k] = n == buf ? c->made[k] : n;
		if (!c->name[k])
			return "?";           /* (no memory: tried again next time) */
	}
	return c->name[k];
}

static void name_cache_free(struct name_cache *c)
{
	for (size_t k = 0; k < 512; k++)
		free(c->made[k]);
	free(c);
}

/* A document being written: its format, the tracer whose style it has,
 * what it has so far (st: whether a Chrome event has been written, for
 * commas; the last function_graph line's thread), the process. */
struct doc {
	enum mt_fmt fmt;
	int tracer;
	struct mt_doc_state *st;
	int pid;
	struct name_cache *nc;
	size_t payload;               /* payload slots consumed: not events */
	uint64_t untabled;            /* events of no table's sites: not written */
};

/* The function of a site address, or NULL (counted: not written). */
static const char *site_name(struct doc *d, uintptr_t ret, uintptr_t *at)
{
	const struct mt_site *s = mt_site_before(ret);
	if (!s || atomic_load_explicit(&s->refused, memory_order_relaxed)) {
		/* A call from code no table records (or from a refused site)
		 * reaches the hook whatever the filters say. */
		mt_untabled_events++;
		d->untabled++;
		return NULL;
	}
	*at = s->addr;
	return mt_shown(mt_reg.funcs[s->func].name);
}

/* One Chrome trace event: ph, the name, the time (s), extra members. */
static void put_chrome(struct out *o, const struct doc *d, const struct seg *g, char ph, const char *fn,
		       double sec, const char *extra)
{
	char nb[4096];
	put(o, "%s{\"name\":\"%s\",\"ph\":\"%c\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f%s}", d->st->first ? "" : ",\n",
	    json_str(fn, nb, sizeof nb), ph, d->pid, g->b->tid, sec * 1e6, extra);
	d->st->first = false;
}

/* Where the lines of one thread follow those of another, the marker
 * the kernel's function_graph tracer writes at a change of task: the
 * CPU as the line has it, the previous task and this one as their lines
 * have them, between two rules and before an empty line.  Not before the
 * first line after a header. */
static void put_switch(struct out *o, struct doc *d, const struct seg *g, unsigned cpu)
{
	struct mt_doc_state *st = d->st;
	if (st->last_tid == g->b->tid)
		return;
	if (st->last_tid) {
		static const char rule[] = " ------------------------------------------\n";
		char c[24];
		*mt_put_dec(c, cpu, 2, ' ') = 0;
		put(o, "%s%s) %s => %s\n%s\n", rule, c, st->last_task, g->gprefix, rule);
	}
	st->last_tid = g->b->tid;
	snprintf(st->last_task, sizeof st->last_task, "%s", g->gprefix);
}

/* One function_graph line: the CPU, the thread, the duration (has_dur:
 * as the kernel prints it: a mark of how long, then microseconds with up
 * to three decimals, seven digits at most), the indent, the name and its tail; written
 * without printf, which the drain would spend most of its time in. */
static void put_graph(struct out *o, struct doc *doc, const struct seg *g, unsigned cpu, bool has_dur,
		      double dur, unsigned depth, const char *fn, const char *tail)
{
	put_switch(o, doc, g, cpu);
	char df[MT_DURATION_FIELD];   /* the duration's field, up to its '|' */
	size_t dl = mt_fmt_duration(df, has_dur, dur);
	size_t gl = strlen(g->gprefix), fl = strlen(fn), tl = strlen(tail), ind = (size_t)depth * 2;
	size_t need = gl + dl + fl + tl + ind + 16;
	if (!room(o, need))
		return;
	char *p = o->buf + o->len;
	p = mt_put_dec(p, cpu, 2, ' ');
	memcpy(p, ") ", 2);
	p += 2;
	memcpy(p, g->gprefix, gl);
	p += gl;
	memcpy(p, " |", 2);
	p += 2;
	memcpy(p, df, dl);
	p += dl;
	memset(p, ' ', 2 + ind);
	p += 2 + ind;
	memcpy(p, fn, fl);
	p += fl;
	memcpy(p, tail, tl);
	p += tl;
	*p++ = '\n';
	o->len = (size_t)(p - o->buf);
}

/* The payload slots that follow an event (an entry's arguments, an
 * exit's return value), of the left slots there are after it. */
static size_t slots_after(const struct mt_event *e, size_t left)
{
	if (!(e->ip & MT_EV_ARGS) || !left)
		return 0;
	size_t k = e->ip & MT_EV_EXIT ? 1 : (size_t)((e[1].ip >> 16) & 0xffff);
	return k < left ? k : left;
}

/* The payload slots that follow an entry with arguments (0: none). */
static size_t payload_at(const struct seg *g, size_t at, const struct mt_event *e)
{
	return at < g->end ? slots_after(e, g->end - at - 1) : 0;
}

/* The payload slots that follow an event: an entry's arguments, an
 * exit's return value (0: none). */
static size_t payload_of(const struct seg *g, const struct mt_event *e)
{
	return payload_at(g, g->at, e);
}

/* A return value as text writes it, the kernel's funcgraph-retval way
 * (an error code, -4095 to -1 of 64 or of 32 bits, in decimal, the rest
 * in hex), and as JSON and Chrome write it (hex). */
struct retval {
	char text[24], hex[24];
};
static void retval_of(uint64_t v, struct retval *r)
{
	snprintf(r->hex, sizeof r->hex, "0x%llx", (unsigned long long)v);
	mt_fmt_retval(r->text, sizeof r->text, v);
}

/* The arguments of an entry, as text ("(a=1, ...)") or as a JSON value,
 * in buf; "" if it has none. */
static const char *args_of(const struct mt_event *e, size_t k, bool json, char *buf, size_t len)
{
	if (!k) {
		*buf = 0;
		return buf;
	}
	uint64_t w[3 * 256];
	size_t n = 0;
	for (size_t i = 1; i <= k && n + 3 <= sizeof w / sizeof *w; i++) {
		w[n++] = e[i].ts;
		w[n++] = e[i].ip;
		w[n++] = e[i].parent;
	}
	size_t l = mt_args_format(buf, len - 1, w, n, json);
	buf[l] = 0;
	return buf;
}

/* Room for the arguments of one event in each form (drain_lock held):
 * twelve strings of MT_STR_MAX bytes, six characters a byte at worst. */
#define ARGS_MAX (MT_MAX_ARGS * (MT_STR_MAX * 6 + 80) + 16)
static struct {
	char args[ARGS_MAX];
	char cargs[ARGS_MAX + 16];
	char extra[ARGS_MAX + 4200];
	char named[ARGS_MAX + 4200];
} scratch;

/* Writes one event of g (two for a leaf: its entry and exit), with the
 * payload of its arguments; returns how many slots it consumed. */
static int write_event(struct out *o, struct doc *d, struct seg *g, const struct mt_event *e)
{
	uintptr_t ret = mt_ev_ip(e->ip);
	unsigned cpu = (unsigned)((e->ip >> MT_CPU_SHIFT) & MT_CPU_MASK);
	bool exit = e->ip & MT_EV_EXIT;
	bool graph = d->tracer == MT_TRACER_GRAPH;
	struct mt_tbuf *b = g->b;
	uintptr_t at = 0;
	size_t k = payload_of(g, e);
	d->payload += k;
	if (exit && !graph && d->fmt != MT_FMT_JSON) {
		/* The function tracer's style has no returns: the open
		 * entries are forgotten as the returns go by. */
		for (uint32_t i = b->nopen; i-- > 0;)
			if (b->open[i] == e->parent) {
				b->nopen = i;
				break;
			}
		return 1 + (int)k;
	}
	const char *fn = site_name(d, ret, &at);
	if (!fn)
		return 1 + (int)k;
	double sec = mt_ticks_to_seconds(e->ts);
	if (!exit) {
		bool hooked = e->ip & MT_EV_HOOKED;
		const char *pn = parent_name(d->nc, e->parent);
		const char *args = args_of(e, k, d->fmt != MT_FMT_TEXT, scratch.args, sizeof scratch.args);
		int used = 1 + (int)k;
		/* A leaf: its return is the thread's next event. */
		const struct mt_event *x = g->at + k + 1 < g->end ? e + 1 + k : NULL;
		bool leaf = hooked && x && (x->ip & (MT_EV_EXIT | MT_EV_UNWOUND)) == MT_EV_EXIT &&
			x->parent == e->ts && mt_ev_ip(x->ip) == ret;
		/* and the leaf's return value, if it came with one */
		size_t xk = leaf ? payload_at(g, g->at + k + 1, x) : 0;
		struct retval rv = { "", "" };
		if (xk)
			retval_of(x[1].ts, &rv);
		if (d->fmt == MT_FMT_JSON) {
			put_json(o, g, cpu, sec, fn, pn, at, e->parent, args, graph && !hooked);
			if (hooked && b->nopen < MT_SHADOW)
				b->open[b->nopen++] = e->ts;
			return used;
		}
		if (d->fmt == MT_FMT_CHROME) {
			/* Chrome's args: the typed arguments' members, or "args":
			 * the raw words; and the parent, in function mode. */
			char pb[4096], *extra = scratch.extra, *cargs = scratch.cargs;
			*cargs = 0;
			if (*args == '{' && args[1] != '}')
				snprintf(cargs, sizeof scratch.cargs, "%.*s", (int)strlen(args) - 2, args + 1);
			else if (*args == '[')
				snprintf(cargs, sizeof scratch.cargs, "\"args\":%s", args);
			if (graph && hooked) {
				if (*cargs)
					snprintf(extra, sizeof scratch.extra, ",\"args\":{%s}", cargs);
				put_chrome(o, d, g, 'B', fn, sec, *cargs ? extra : "");
				if (leaf) {
					char ex[64] = "";
					if (xk)
						snprintf(ex, sizeof ex, ",\"args\":{\"retval\":\"%s\"}", rv.hex);
					put_chrome(o, d, g, 'E', fn, mt_ticks_to_seconds(x->ts), ex);
					d->payload += xk;
					return used + 1 + (int)xk;
				}
				if (b->nopen < MT_SHADOW)
					b->open[b->nopen++] = e->ts;
				return used;
			}
			snprintf(extra, sizeof scratch.extra, ",\"s\":\"t\",\"args\":{\"parent\":\"%s\"%s%s}",
				 json_str(pn, pb, sizeof pb), *cargs ? "," : "", cargs);
			put_chrome(o, d, g, 'i', fn, sec, extra);
			if (hooked && b->nopen < MT_SHADOW)
				b->open[b->nopen++] = e->ts;
			return used;
		}
		if (!graph) {
			put_text(o, g, cpu, sec, fn, args, pn);
			if (hooked && b->nopen < MT_SHADOW)
				b->open[b->nopen++] = e->ts;
			return used;
		}
		/* foo(); as the kernel writes it, but a demangled C++ name has
		 * its parameters already: geo::Rect::area() const; with
		 * arguments, foo(a=1); */
		bool params = *args || strchr(fn, '(') != NULL;
		if (*args) {
			snprintf(scratch.named, sizeof scratch.named, "%s%s", fn, args);
			fn = scratch.named;
		}
		if (leaf) {
			char tl[64];
			snprintf(tl, sizeof tl, "%s%s%s%s", params ? ";" : "();", xk ? " /* = " : "", rv.text, xk ? " */" : "");
			put_graph(o, d, g, cpu, true, mt_ticks_to_seconds(x->ts) - sec, b->nopen, fn, tl);
			d->payload += xk;
			return used + 1 + (int)xk;
		}
		put_graph(o, d, g, cpu, false, 0, b->nopen, fn, hooked ? (params ? " {" : "() {") : (params ? ";" : "();"));
		if (hooked && b->nopen < MT_SHADOW)
			b->open[b->nopen++] = e->ts;
		return used;
	}
	/* A return, or a frame left without one: its entry is the open one
	 * with its time (those above it lost their returns to a full ring). */
	bool unwound = e->ip & MT_EV_UNWOUND;
	struct retval rv = { "", "" };
	if (k)
		retval_of(e[1].ts, &rv);
	uint32_t i = b->nopen;
	while (i > 0 && b->open[i - 1] != e->parent)
		i--;
	bool known = i > 0;
	if (known)
		b->nopen = i - 1;
	if (d->fmt == MT_FMT_JSON) {
		char nb[4096];
		if (unwound)
			put(o, "{\"comm\":\"%s\",\"tid\":%d,\"cpu\":%u,\"ts\":%.9f,\"exit\":\"%s\",\"addr\":\"0x%lx\","
			    "\"unwound\":true}\n", g->comm, b->tid, cpu, sec, json_str(fn, nb, sizeof nb), (unsigned long)at);
		else
			put(o, "{\"comm\":\"%s\",\"tid\":%d,\"cpu\":%u,\"ts\":%.9f,\"exit\":\"%s\",\"addr\":\"0x%lx\","
			    "\"duration\":%.9f%s%s%s}\n", g->comm, b->tid, cpu, sec, json_str(fn, nb, sizeof nb),
			    (unsigned long)at, sec - mt_ticks_to_seconds(e->parent), k ? ",\"retval\":\"" : "",
			    rv.hex, k ? "\"" : "");
		return 1 + (int)k;
	}
	if (d->fmt == MT_FMT_CHROME) {
		char ex[64];
		snprintf(ex, sizeof ex, ",\"args\":{\"retval\":\"%s\"}", rv.hex);
		if (known)   /* an end without its beginning would break the nesting */
			put_chrome(o, d, g, 'E', fn, sec, unwound ? ",\"args\":{\"unwound\":true}" : k ? ex : "");
		return 1 + (int)k;
	}
	char tail[4200];
	snprintf(tail, sizeof tail, " /* %s%s%s%s */", fn, unwound ? ": unwound" : "", k ? " = " : "", rv.text);
	put_graph(o, d, g, cpu, !unwound, sec - mt_ticks_to_seconds(e->parent), known ? i - 1 : 0, "}", tail);
	return 1 + (int)k;
}

struct heap {
	struct seg **s;
	size_t n;
	const struct mt_event *v;
};

static bool earlier(const struct heap *h, size_t a, size_t b)
{
	return h->v[h->s[a]->at].ts < h->v[h->s[b]->at].ts;
}

static void heap_swap(struct heap *h, size_t a, size_t b)
{
	struct seg *t = h->s[a];
	h->s[a] = h->s[b];
	h->s[b] = t;
}

static void heap_down(struct heap *h, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && earlier(h, l, m))
			m = l;
		if (r < h->n && earlier(h, r, m))
			m = r;
		if (m == i)
			return;
		heap_swap(h, i, m);
		i = m;
	}
}

static void heap_push(struct heap *h, struct seg *g)
{
	size_t i = h->n++;
	h->s[i] = g;
	while (i && earlier(h, i, (i - 1) / 2)) {
		heap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

/* Events are named in chunks, the registry lock taken for each: an
 * enable or disable waits for one chunk, not for a whole drain. */
#define CHUNK 2048

/* The style an entry was recorded in. */
static int style_of(const struct mt_event *e)
{
	return e->ip & MT_EV_GRAPH ? MT_TRACER_GRAPH : MT_TRACER_FUNCTION;
}

/* Where g's events of style s end: at its first entry of the other
 * style from g->at (its exits and payloads belong to no style). */
static size_t style_end(const struct seg *g, const struct mt_event *v, int s)
{
	size_t i = g->at;
	while (i < g->stop) {
		const struct mt_event *e = &v[i];
		if (!(e->ip & MT_EV_EXIT) && style_of(e) != s)
			break;
		i += 1 + slots_after(e, g->stop - i - 1);
	}
	return i;
}

/* The time of the last event of v[from, to), payload slots skipped. */
static uint64_t last_ts(const struct mt_event *v, size_t from, size_t to)
{
	uint64_t ts = v[from].ts;
	for (size_t i = from; i < to; i += 1 + slots_after(&v[i], to - i - 1))
		ts = v[i].ts;
	return ts;
}

/* What g's buffer lost since the last drain, said (text: in the
 * function tracer's form whatever the style; Chrome: an instant event
 * at ts, in ticks). */
static void put_lost(struct out *o, const struct doc *d, const struct seg *g, uint64_t ts)
{
	unsigned long long n = (unsigned long long)g->lost;
	if (d->fmt == MT_FMT_CHROME) {
		put(o, "%s{\"name\":\"lost events\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,"
		    "\"ts\":%.3f,\"args\":{\"lost\":%llu}}", d->st->first ? "" : ",\n", d->pid, g->b->tid,
		    mt_ticks_to_seconds(ts) * 1e6, n);
		d->st->first = false;
	} else if (d->fmt == MT_FMT_JSON) {
		put(o, "{\"lost\":%llu,\"comm\":\"%s\",\"tid\":%d}\n", n, g->comm, g->b->tid);
	} else {
		put(o, "%s[LOST %llu EVENTS]\n", g->prefix, n);
	}
}

/* Write the events of segs[0, nseg) in time order, through a heap of
 * the threads keyed by their next event's time, up to each one's end. */
/* What is formatted is written out with no lock held (drain_lock is
 * held on entry, and on return): a client that reads slowly, or a slow
 * file, holds up no thread of the program's (its fork waits for the
 * drain lock, its exit for it and the file's).  A client's drain stops
 * at a failed write; a file's goes on, formatting nothing, to count
 * what it loses (struct out). */
static void merge(struct out *o, struct doc *d, struct seg *segs, size_t nseg, struct heap *hp)
{
	hp->n = 0;
	for (size_t j = 0; j < nseg; j++)
		if (segs[j].at < segs[j].end)
			heap_push(hp, &segs[j]);
	while (hp->n && !(o->err && o->wait_ms >= 0)) {
		pthread_mutex_lock(&mt_reg.lock);
		for (size_t k = 0; k < CHUNK && hp->n && o->len < OUT_FLUSH; k++) {
			struct seg *g = hp->s[0];
			size_t payload = d->payload, at = g->at;
			uint64_t untabled = d->untabled;
			size_t used = (size_t)write_event(o, d, g, &hp->v[g->at]);
			g->at += used;
			o->held += used - (d->payload - payload) - (size_t)(d->untabled - untabled);
			/* A full ring drops the newest events: those its
			 * thread lost come after its last one kept. */
			if (g->at >= g->stop && g->lost)
				put_lost(o, d, g, last_ts(hp->v, at, g->at));
			if (g->at >= g->end)
				hp->s[0] = hp->s[--hp->n];
			heap_down(hp, 0);
		}
		pthread_mutex_unlock(&mt_reg.lock);
		atomic_fetch_add_explicit(&mt_drain_progress, 1, memory_order_relaxed);
		if (o->len >= OUT_FLUSH) {
			pthread_mutex_unlock(&drain_lock);
			flush(o);
			atomic_fetch_add_explicit(&mt_drain_progress, 1, memory_order_relaxed);
			pthread_mutex_lock(&drain_lock);
		}
	}
}

/* Room in *v for want events (no memory: false, *v as it was). */
static bool grow(struct mt_event **v, size_t *cap, size_t want)
{
	if (want <= *cap)
		return true;
	size_t nc = want * 2 + 1024;
	struct mt_event *nv = realloc(*v, nc * sizeof *nv);
	if (!nv)
		return false;
	*v = nv;
	*cap = nc;
	return true;
}

long mt_drain(int fd, enum mt_fmt fmt, struct mt_doc_state *st, bool file, int wait_ms)
{
	pthread_mutex_lock(&drain_lock);
	size_t cap = 0, n = 0, nseg = 0, segcap = 0;
	struct mt_event *v = NULL;
	struct seg *segs = NULL;
	struct out *o = malloc(sizeof *o);
	struct name_cache *nc = calloc(1, sizeof *nc);
	if (!o || !nc) {
		free(o);
		free(nc);
		pthread_mutex_unlock(&drain_lock);
		errno = ENOMEM;
		return -1;
	}
	*o = (struct out){ .fd = fd, .wait_ms = wait_ms };
	struct doc d = { fmt, st->style, st, (int)getpid(), nc, 0, 0 };
	drains++;
	clock_refresh(false);
	for (struct mt_tbuf *b = atomic_load(&mt_tbufs); b; b = b->next) {
		mt_seq h = atomic_load_explicit(&b->head, memory_order_acquire);
		mt_seq t = atomic_load_explicit(&b->tail, memory_order_relaxed);
		if (h == t && b->lost == b->lost_seen)
			continue;
		if (!grow(&v, &cap, n + (mt_seq)(h - t)))
			break;
		if (nseg == segcap) {
			size_t sc = segcap ? segcap * 2 : 16;
			struct seg *ns = realloc(segs, sc * sizeof *ns);
			if (!ns)
				break;
			segs = ns;
			segcap = sc;
		}
		struct seg *g = &segs[nseg++];
		g->b = b;
		g->at = n;
		/* What the thread put meanwhile is taken too, until its head
		 * stays: a loss is then one its full ring made after the last
		 * event taken here, or one after the tail's release (below). */
		for (mt_seq from = t;;) {
			for (mt_seq i = from; i != h; i++)        /* (mt_seq wraps on o32) */
				v[n++] = b->ev[i & b->mask];
			mt_seq h2 = atomic_load_explicit(&b->head, memory_order_acquire);
			if (h2 == h || !grow(&v, &cap, n + (mt_seq)(h2 - h)))
				break;
			from = h;
			h = h2;
		}
		g->end = g->stop = n;
		atomic_store_explicit(&b->tail, h, memory_order_release);
		char name[64];
		comm_of(b, name, sizeof name);
		json_str(name, g->comm, sizeof g->comm);
		int pl = snprintf(g->prefix, sizeof g->prefix, "%16.16s-%-7d ", name, b->tid);
		g->plen = pl > 0 && (size_t)pl < sizeof g->prefix ? (size_t)pl : strlen(g->prefix);
		pl = snprintf(g->jprefix, sizeof g->jprefix, "{\"comm\":\"%s\",\"tid\":%d,\"cpu\":",
			      g->comm, b->tid);
		g->jplen = pl > 0 && (size_t)pl < sizeof g->jprefix ? (size_t)pl : strlen(g->jprefix);
		char ct[80];
		snprintf(ct, sizeof ct, "%.63s-%d", name, b->tid);
		int sp = 14 - (int)strlen(ct);
		snprintf(g->gprefix, sizeof g->gprefix, "%*s%s%*s", sp > 0 ? sp / 2 : 0, "", ct,
			 sp > 0 ? sp - sp / 2 : 0, "");
		if (fmt == MT_FMT_CHROME && (!file || b->named_tid != b->tid || strncmp(b->named, name, sizeof b->named))) {
			put(o, "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
			    "\"args\":{\"name\":\"%s\"}}", st->first ? "" : ",\n", d.pid, b->tid, g->comm);
			st->first = false;
			if (file) {
				b->named_tid = b->tid;
				snprintf(b->named, sizeof b->named, "%.15s", name);
			}
		}
		/* (read after the tail's release: see above) */
		uint64_t lost = b->lost;
		g->lost = lost - b->lost_seen;
		b->lost_seen = lost;
		if (g->lost && g->at == g->stop) {
			/* no event kept: said now, before the others */
			unsigned cpu;
			put_lost(o, &d, g, mt_clock_now(&cpu));
			g->lost = 0;
		}
	}

	/* Each thread's events are in time order: merge them, a style at a
	 * time.  A thread takes up the tracer switched to at its next entry,
	 * and keeps it (until the next switch): so first every thread's
	 * events of the document's style so far, up to its first entry of
	 * the other, then those of the other, and so on; never a line in a
	 * style its event was not recorded in. */
	struct heap hp = { malloc((nseg + 1) * sizeof(struct seg *)), 0, v };
	if (d.tracer < 0) {
		/* no style yet: the first entry's (the tracer's if none) */
		const struct mt_event *e0 = NULL;
		for (size_t j = 0; j < nseg; j++)
			for (size_t i = segs[j].at; i < segs[j].stop; i++)
				if (!(v[i].ip & MT_EV_EXIT)) {
					if (!e0 || v[i].ts < e0->ts)
						e0 = &v[i];
					break;
				}
		d.tracer = e0 ? style_of(e0) : atomic_load(&mt_tracer);
	}
	while (hp.s) {
		bool some = false, more = false;
		for (size_t j = 0; j < nseg; j++) {
			segs[j].end = style_end(&segs[j], v, d.tracer);
			some |= segs[j].at < segs[j].end;
			more |= segs[j].end < segs[j].stop;
		}
		if (some)
			merge(o, &d, segs, nseg, &hp);
		if (!more || (o->err && o->wait_ms >= 0))
			break;
		d.tracer = d.tracer == MT_TRACER_GRAPH ? MT_TRACER_FUNCTION : MT_TRACER_GRAPH;
		if (fmt == MT_FMT_TEXT) {
			/* the tracer was switched: what follows has its header
			 * (formatted with the rest: written with no lock held) */
			size_t hl;
			const char *h = header_of(fmt, d.tracer, &hl);
			if (room(o, hl)) {
				memcpy(o->buf + o->len, h, hl);
				o->len += hl;
			}
			st->last_tid = 0;     /* (a new section: no marker before its first line) */
		}
	}
	st->style = d.tracer;
	free(hp.s);
	pthread_mutex_unlock(&drain_lock);
	flush(o);
	pthread_mutex_lock(&drain_lock);
	int saved = errno;
	/* (not while another drain has events of a buffer in hand) */
	for (struct mt_tbuf *b = atomic_load(&mt_tbufs); b && drains == 1; b = b->next)
		reap_one(b);
	drains--;
	errno = saved;
	int err = o->err;
	if (file)
		mt_unwritten_events += o->lost;
	free(o->buf);
	free(o);
	name_cache_free(nc);
	free(v);
	free(segs);
	n -= d.untabled + d.payload;
	pthread_mutex_unlock(&drain_lock);
	if (err) {
		errno = err;
		return -1;
	}
	return (long)n;
}
