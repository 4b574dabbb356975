/* SPDX-License-Identifier: GPL-2.0-or-later */
/* record.c - a recording (mcount-trace record; doc/trace-format.md).
 *
 * MCOUNT_TRACE_RECORD=DIR: the process writes DIR/PID/ (DIR/PID-N where
 * that is taken: a program exec'd in the same process).  Each thread's
 * buffer is a file there (buffer.c: ring-NAME), shared-mapped, so that
 * the events the thread put are in the file whatever becomes of the
 * process; the drain (the control thread's, every millisecond while it
 * finds events) copies each ring's events into stream-NAME and moves
 * the ring's tail; before it, the functions of objects new since the
 * last (funcs, objects) and, every 100 ms, a pair of clock readings.
 * At the end, the last drain and `done`.  A child after fork records
 * into a directory of its own, its buffers new: the parent's rings are
 * shared mappings, which the child must not write.
 *
 * Every file is made with O_EXCL and O_NOFOLLOW in a directory the
 * library made itself (DIR itself must be the user's and writable by
 * no one else); each line of a text file is one write().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"

static int top_fd = -1;               /* DIR */
static int files[5] = { -1, -1, -1, -1, -1 };
enum { F_CLOCK, F_OBJECTS, F_FUNCS, F_PROTOS, F_DONE };
static const char *const file_names[] = { "clock", "objects", "funcs", "protos", "done" };
static size_t objs_written, funcs_written;
static bool *live_written;            /* objects said loaded and not yet unloaded */
static size_t live_cap;
static uint64_t last_pair_ns;
static int write_err;                 /* the first write that failed (said once) */
static uint64_t drain_cpu_ns;         /* the drain's thread cpu time copying rings */
static char exe[4096];                /* the program's file */

static void said_error(const char *what, int err)
{
	if (write_err)
		return;
	write_err = err;
	mt_msg("the recording: %s: %s: the recording is incomplete", what, strerror(err));
}

/* A file of the process's directory, made anew (-1: said). */
static int make_file(const char *name, int flags)
{
	int fd = openat(mt_rec_dir, name, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		said_error(name, errno);
	return fd;
}

/* Lines made while the registry's lock is held are kept here, and
 * written once it is let go (no lock the program's threads need is held
 * across a write); tables_lock keeps one writer of the tables at a time. */
static struct pending {
	char *p;
	size_t n, cap;
} pend[5];
static bool deferring;
static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;

static void keep(int which, const char *p, size_t n)
{
	struct pending *d = &pend[which];
	if (d->n + n > d->cap) {
		size_t nc = 2 * (d->n + n) + 4096;
		char *np = realloc(d->p, nc);
		if (!np) {
			said_error(file_names[which], ENOMEM);
			return;
		}
		d->p = np;
		d->cap = nc;
	}
	memcpy(d->p + d->n, p, n);
	d->n += n;
}

static void flush_pending(void)
{
	for (int i = 0; i < 5; i++) {
		if (pend[i].n && files[i] >= 0 && mt_write_all(files[i], pend[i].p, pend[i].n) < 0)
			said_error(file_names[i], errno);
		pend[i].n = 0;
	}
}

/* One line (or lines) into fd, by one write (or kept: deferring). */
static void put_line(int which, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_line(int which, const char *fmt, ...)
{
	if (files[which] < 0)
		return;
	char small[512], *p = small;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof small) {
		p = malloc((size_t)n + 1);
		if (!p)
			return;
		va_start(ap, fmt);
		vsnprintf(p, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	if (deferring)
		keep(which, p, (size_t)n);
	else if (mt_write_all(files[which], p, (size_t)n) < 0)
		said_error(file_names[which], errno);
	if (p != small)
		free(p);
}

static void clock_pair(void)
{
	uint64_t t, n;
	mt_clock_pair(&t, &n);
	last_pair_ns = n;
	put_line(F_CLOCK, "%llu %llu\n", (unsigned long long)t, (unsigned long long)n);
}

/* A C string literal of s (n bytes) into a new string. */
static char *c_literal(const char *s, size_t n)
{
	char *out = malloc(4 * n + 3), *p = out;
	if (!out)
		return NULL;
	*p++ = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
		} else if (c < 0x20 || c >= 0x7f) {
			p += snprintf(p, 5, "\\%03o", c);
		} else {
			*p++ = (char)c;
		}
	}
	*p++ = '"';
	*p = 0;
	return out;
}

static void write_info(void)
{
	int fd = make_file("info", O_WRONLY);
	if (fd < 0)
		return;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = 0;
	/* the arguments, from /proc/self/cmdline */
	char *args = NULL;
	size_t len = 0, cap = 0;
	int cf = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	for (ssize_t r = 1; cf >= 0 && r > 0;) {
		if (len + 4096 > cap) {
			char *na = realloc(args, cap = len + 8192);
			if (!na)
				break;
			args = na;
		}
		r = read(cf, args + len, cap - len);
		if (r > 0)
			len += (size_t)r;
	}
	if (cf >= 0)
		close(cf);
	size_t acap = 16, alen = 0;
	char *argv_line = malloc(acap);
	for (size_t i = 0; argv_line && args && i < len;) {
		size_t e = i;
		while (e < len && args[e])
			e++;
		char *lit = c_literal(args + i, e - i);
		size_t ll = lit ? strlen(lit) : 0;
		if (!lit)
			break;
		if (alen + ll + 2 > acap) {
			char *na = realloc(argv_line, acap = 2 * (alen + ll + 2));
			if (!na) {
				free(lit);
				break;
			}
			argv_line = na;
		}
		if (alen)
			argv_line[alen++] = ' ';
		memcpy(argv_line + alen, lit, ll);
		alen += ll;
		free(lit);
		i = e + 1;
	}
	if (argv_line)
		argv_line[alen] = 0;
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	files[F_DONE] = fd;           /* (put_line's: for the moment) */
	put_line(F_DONE,
		 "mcount-trace-data 1\nbyte-order %s\nword-bits %u\narch %s\npid %d\nppid %d\nprogram %s\nargv %s\n"
		 "tracer %s\nclock %s\nstart %lld.%09ld\n",
		 __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? "big" : "little", (unsigned)(8 * sizeof(void *)),
		 mt_arch.name, (int)getpid(), (int)getppid(), exe, argv_line ? argv_line : "",
		 atomic_load(&mt_tracer) == MT_TRACER_GRAPH ? "function_graph" : "function",
		 mt_use_tsc ? "ticks" : "monotonic", (long long)rt.tv_sec, rt.tv_nsec);
	files[F_DONE] = -1;
	close(fd);
	free(args);
	free(argv_line);
}

static void write_protos(void);

/* The objects and functions the files do not have yet (registry lock). */
static void write_tables(bool wait)
{
	if (files[F_OBJECTS] < 0 || files[F_FUNCS] < 0)
		return;
	/* (a program's thread after dlopen does not wait for the drain's
	 * writer: the drain writes them before any event of theirs) */
	if (wait)
		pthread_mutex_lock(&tables_lock);
	else if (pthread_mutex_trylock(&tables_lock))
		return;
	pthread_mutex_lock(&mt_reg.lock);
	deferring = true;
	if (mt_reg.nobjs > live_cap) {
		bool *nl = realloc(live_written, mt_reg.nobjs * 2 * sizeof *nl);
		if (nl) {
			memset(nl + live_cap, 0, (mt_reg.nobjs * 2 - live_cap) * sizeof *nl);
			live_written = nl;
			live_cap = mt_reg.nobjs * 2;
		}
	}
	for (size_t i = 0; i < mt_reg.nobjs && i < live_cap; i++) {
		const struct mt_object *o = mt_reg.objs[i];
		if (i >= objs_written && o->live) {
			put_line(F_OBJECTS, "O %zu %lx - %s\n", i, (unsigned long)o->bias,
				 o->main && exe[0] ? exe : o->path ? o->path : o->name);
			live_written[i] = true;
		} else if (live_written[i] && !o->live) {
			put_line(F_OBJECTS, "U %zu\n", i);
			live_written[i] = false;
		}
	}
	objs_written = mt_reg.nobjs < live_cap ? mt_reg.nobjs : live_cap;
	for (size_t i = funcs_written; i < mt_reg.nfuncs; i++) {
		const struct mt_func *f = &mt_reg.funcs[i];
		if (f->obj < objs_written && live_written[f->obj])
			put_line(F_FUNCS, "F %lx %lu %u %s\n", (unsigned long)f->addr, (unsigned long)f->size,
				 (unsigned)f->obj, mt_shown(f->name));
	}
	funcs_written = mt_reg.nfuncs;
	write_protos();
	deferring = false;
	pthread_mutex_unlock(&mt_reg.lock);
	flush_pending();
	pthread_mutex_unlock(&tables_lock);
}

/* The prototypes' lines: each one an event's payload may name (a
 * function's, by its address: never freed), written once; looked for
 * again only when functions or prototype rules came (registry lock). */
static const void **protos_seen;
static size_t protos_n, protos_cap, protos_funcs, protos_rules = (size_t)-1;

static bool proto_new(const void *p)
{
	for (size_t i = 0; i < protos_n; i++)
		if (protos_seen[i] == p)
			return false;
	if (protos_n == protos_cap) {
		size_t nc = protos_cap ? 2 * protos_cap : 64;
		const void **nv = realloc(protos_seen, nc * sizeof *nv);
		if (!nv)
			return false;
		protos_seen = nv;
		protos_cap = nc;
	}
	protos_seen[protos_n++] = p;
	return true;
}

static void write_protos(void)
{
	size_t rules = mt_protos_count();
	if (files[F_PROTOS] < 0 || (rules == protos_rules && mt_reg.nfuncs == protos_funcs))
		return;
	protos_rules = rules;
	protos_funcs = mt_reg.nfuncs;
	for (size_t i = 0; i < mt_reg.nfuncs; i++) {
		const struct mt_proto *p = mt_reg.funcs[i].proto;
		if (!p || !proto_new(p))
			continue;
		char line[MT_MAX_ARGS * 48 + 512];
		int n = snprintf(line, sizeof line, "P %lx %s(", (unsigned long)(uintptr_t)p,
				 mt_shown(mt_reg.funcs[i].name));
		for (unsigned k = 0; k < p->n && n > 0 && (size_t)n < sizeof line - 80; k++) {
			const struct mt_arg *a = &p->a[k];
			static const char *const sign[] = { "int", "uint" };
			char type[16];
			if (a->kind == MT_ARG_INT || a->kind == MT_ARG_UINT)
				snprintf(type, sizeof type, "%s%u_t ", sign[a->kind == MT_ARG_UINT], (unsigned)a->bits);
			else
				snprintf(type, sizeof type, "%s", a->kind == MT_ARG_BOOL ? "bool " :
					 a->kind == MT_ARG_STR ? "char *" : "void *");
			n += snprintf(line + n, sizeof line - (size_t)n, "%s%s%.31s", k ? ", " : "", type, a->name);
		}
		if (n > 0 && (size_t)n < sizeof line - 2)
			put_line(F_PROTOS, "%s)\n", line);
	}
}

void mt_record_tables(void)
{
	if (mt_rec_dir >= 0)
		write_tables(false);
}

/* DIR/PID (or PID-N) made and opened, its first files written. */
static int open_process_dir(void)
{
	char name[40];
	int pid = (int)getpid();
	for (int k = 0; k < 100; k++) {
		snprintf(name, sizeof name, k ? "%d-%d" : "%d", pid, k);
		if (!mkdirat(top_fd, name, 0700))
			break;
		if (errno != EEXIST || k == 99) {
			mt_msg("MCOUNT_TRACE_RECORD: %s: %s: nothing is recorded", name, strerror(errno));
			return -1;
		}
	}
	int d = openat(top_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d < 0) {
		mt_msg("MCOUNT_TRACE_RECORD: %s: %s: nothing is recorded", name, strerror(errno));
		return -1;
	}
	mt_rec_dir = d;
	objs_written = funcs_written = 0;
	memset(live_written, 0, live_cap * sizeof *live_written);
	protos_n = 0;
	protos_rules = (size_t)-1;
	write_err = 0;
	write_info();
	for (int i = F_CLOCK; i <= F_PROTOS; i++)
		files[i] = make_file(file_names[i], O_WRONLY | O_APPEND);
	clock_pair();
	write_tables(true);
	return 0;
}

int mt_record_open(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		mt_msg("MCOUNT_TRACE_RECORD: %s: %s: nothing is recorded", dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		mt_msg("MCOUNT_TRACE_RECORD: %s: not a directory of this user's that only it may write: "
		       "nothing is recorded", dir);
		close(fd);
		return -1;
	}
	top_fd = fd;
	if (open_process_dir()) {
		close(top_fd);
		top_fd = -1;
		return -1;
	}
	mt_full_wait_rounds = 200000;         /* 10 s */
	return 0;
}

/* Events [t, h) of b into its stream; returns where it got to. */
static mt_seq to_stream(struct mt_tbuf *b, mt_seq t, mt_seq h)
{
	if (!b->rec_open) {
		char name[48];
		if (b->rec_name[0])
			snprintf(name, sizeof name, "stream-%s", b->rec_name);
		else
			snprintf(name, sizeof name, "stream-%d", b->tid);
		b->rec_fd = make_file(name, O_WRONLY | O_APPEND);
		if (b->rec_fd < 0)
			return t;
		b->rec_open = true;
	}
	mt_seq done = t;
	while (done != h) {
		uint64_t i = done & b->mask, k = (mt_seq)(h - done);
		if (k > b->mask + 1 - i)
			k = b->mask + 1 - i;
		size_t want = (size_t)k * sizeof(struct mt_event);
		ssize_t w = write(b->rec_fd, &b->ev[i], want);
		if (w == (ssize_t)want) {
			b->rec_len += k;
			done += (mt_seq)k;
			continue;
		}
		int err = w < 0 ? errno : ENOSPC;
		if (w > 0) {
			/* whole events kept; a part of one taken back */
			uint64_t whole = (uint64_t)w / sizeof(struct mt_event);
			b->rec_len += whole;
			done += (mt_seq)whole;
			if (ftruncate(b->rec_fd, (off_t)(b->rec_len * sizeof(struct mt_event))))
				err = errno;
		}
		said_error("a stream", err);
		break;
	}
	return done;
}

long mt_record_drain(void)
{
	if (mt_rec_dir < 0)
		return 0;
	write_tables(true);
	if (mt_mono_ns() - last_pair_ns >= 100000000u)
		clock_pair();
	long n = 0;
	for (struct mt_tbuf *b = atomic_load(&mt_tbufs); b; b = b->next) {
		if (b->rec_gone)
			continue;
		mt_seq h = atomic_load_explicit(&b->head, memory_order_acquire);
		mt_seq t = atomic_load_explicit(&b->tail, memory_order_relaxed);
		if (h == t) {
			if (b->rec_open && mt_thread_gone(b->tid) && atomic_load(&b->head) == h) {
				close(b->rec_fd);
				b->rec_open = false;
				b->rec_gone = true;
			}
			continue;
		}
		struct timespec c0, c1;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
		mt_seq done = to_stream(b, t, h);
		atomic_store_explicit(&b->tail, done, memory_order_release);
		n += (long)(mt_seq)(done - t);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
		drain_cpu_ns += (uint64_t)((c1.tv_sec - c0.tv_sec) * 1000000000LL + (c1.tv_nsec - c0.tv_nsec));
	}
	return n;
}

void mt_record_end(void)
{
	if (mt_rec_dir < 0)
		return;
	mt_record_drain();
	clock_pair();
	files[F_DONE] = make_file("done", O_WRONLY);
	uint64_t events = 0, lost = mt_gone.lost;
	for (struct mt_tbuf *b = atomic_load(&mt_tbufs); b; b = b->next) {
		events += b->rec_len;
		lost += b->lost;
		put_line(F_DONE, "thread %s %d %llu %llu %llu %llu\n", b->rec_name[0] ? b->rec_name : "-", b->tid,
			 (unsigned long long)b->rec_len, (unsigned long long)b->lost,
			 (unsigned long long)b->noshadow, (unsigned long long)b->unwound);
	}
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	put_line(F_DONE, "events %llu\nlost %llu\ndrain %llu\nend %lld.%09ld\n", (unsigned long long)events,
		 (unsigned long long)lost, (unsigned long long)drain_cpu_ns, (long long)rt.tv_sec, rt.tv_nsec);
	if (files[F_DONE] >= 0)
		close(files[F_DONE]);
	files[F_DONE] = -1;
}

void mt_record_after_fork(void)
{
	if (mt_rec_dir < 0)
		return;
	/* the parent's buffers: its to drain, and never written here (a
	 * ring is a shared mapping: the parent's own memory, its fields
	 * too); this thread's moves to a ring of the child's own
	 * (mt_buffers_after_fork) */
	for (struct mt_tbuf *b = atomic_load(&mt_tbufs), *next; b; b = next) {
		next = b->next;
		if (b->rec_open)
			close(b->rec_fd);
		if (b == mt_self)
			continue;
		size_t size = sizeof(struct mt_tbuf) + (size_t)(b->mask + 1) * sizeof(struct mt_event);
		if (b->rec_name[0])
			munmap((char *)b - MT_REC_HEAD, MT_REC_HEAD + size);
		else
			munmap(b, size);
	}
	atomic_store(&mt_tbufs, mt_self);
	/* (the parent's writer of the tables may have held its lock, with
	 * lines kept for its files) */
	pthread_mutex_init(&tables_lock, NULL);
	for (int i = 0; i < 5; i++)
		pend[i].n = 0;
	deferring = false;
	drain_cpu_ns = 0;
	close(mt_rec_dir);
	mt_rec_dir = -1;
	for (int i = 0; i < 5; i++) {
		if (files[i] >= 0)
			close(files[i]);
		files[i] = -1;
	}
	if (open_process_dir()) {
		close(top_fd);
		top_fd = -1;
	}
}
