/* SPDX-License-Identifier: GPL-2.0-or-later */
/* read.c - a process directory of a recording (doc/trace-format.md),
 * read as untrusted input: every size and offset checked against the
 * file it is in, a refused file said as "mcount-read: FILE: why" and
 * the rest read on. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read.h"

int read_status;

void complain(const char *file, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "mcount-read: %s: ", file);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	read_status = 1;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("mcount-read: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("mcount-read: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

uint64_t name_hash(uint64_t seed, const char *s)
{
	uint64_t h = 14695981039346656037u ^ seed;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

/* A whole file in memory (a NUL after it); NULL and errno if it cannot
 * be read (ENOENT: absent). */
static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096, n = 0;
	char *b = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap)
			b = xrealloc(b, cap *= 2);
		ssize_t r = read(fd, b + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(b);
			close(fd);
			errno = e;
			return NULL;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	b[n] = 0;
	*len = n;
	return b;
}

static char *path_of(const struct proc *p, const char *name)
{
	char *s;
	if (asprintf(&s, "%s/%s", p->dir, name) < 0) {
		fputs("mcount-read: out of memory\n", stderr);
		exit(1);
	}
	return s;
}

/* The whole lines of a text file, each NUL-terminated in place; a last
 * line without its '\n' is dropped (counted in *torn). */
static size_t split_lines(char *b, size_t len, char ***lines, size_t *torn)
{
	size_t n = 0, cap = 16;
	char **l = xmalloc(cap * sizeof *l);
	size_t i = 0;
	while (i < len) {
		char *nl = memchr(b + i, '\n', len - i);
		if (!nl) {
			(*torn)++;
			break;
		}
		*nl = 0;
		if (n == cap)
			l = xrealloc(l, (cap *= 2) * sizeof *l);
		l[n++] = b + i;
		i = (size_t)(nl - b) + 1;
	}
	*lines = l;
	return n;
}

/* Unsigned numbers of text, the whole field: false if not one. */
static bool num(const char *s, int base, uint64_t *v)
{
	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, base);
	if (errno || end == s || *end)
		return false;
	*v = x;
	return true;
}

/* The next space-separated field of *s, cut in place. */
static char *field(char **s)
{
	char *f = *s;
	if (!f)
		return NULL;
	char *sp = strchr(f, ' ');
	if (sp) {
		*sp = 0;
		*s = sp + 1;
	} else {
		*s = NULL;
	}
	return f;
}

static uint64_t swap64(uint64_t v)
{
	return __builtin_bswap64(v);
}

static uint64_t get64(const unsigned char *b, bool swap)
{
	uint64_t v;
	memcpy(&v, b, 8);
	return swap ? swap64(v) : v;
}

static uint32_t get32(const unsigned char *b, bool swap)
{
	uint32_t v;
	memcpy(&v, b, 4);
	return swap ? __builtin_bswap32(v) : v;
}

/* A text file of the process's directory, read whole and split into
 * its whole lines (a last one cut short: torn); false if it cannot be
 * read (said, but where it is missing and need not be there). */
struct text {
	char *path, *buf, **l;
	size_t n, torn;
};

/* A file of the process's directory read whole (its path in *path,
 * the caller's to free); NULL, said unless it is missing and need not
 * be there, if it cannot be read. */
static char *read_file(struct proc *p, const char *name, bool needed, size_t *len, char **path)
{
	*path = path_of(p, name);
	char *b = slurp(*path, len);
	if (!b) {
		if (needed || errno != ENOENT)
			complain(*path, "%s", strerror(errno));
		free(*path);
	}
	return b;
}

static bool text_open(struct proc *p, const char *name, bool needed, struct text *x)
{
	size_t len;
	x->buf = read_file(p, name, needed, &len, &x->path);
	if (!x->buf)
		return false;
	x->torn = 0;
	x->n = split_lines(x->buf, len, &x->l, &x->torn);
	return true;
}

/* Its memory freed; its torn line counted (count). */
static void text_close(struct proc *p, struct text *x, bool count)
{
	if (count)
		p->torn_lines += x->torn;
	free(x->l);
	free(x->buf);
	free(x->path);
}

static int load_info(struct proc *p)
{
	struct text tf;
	if (!text_open(p, "info", true, &tf))
		return -1;
	char *path = tf.path, **l = tf.l;
	size_t n = tf.n;
	int rc = 0;
	if (!n || strncmp(l[0], "mcount-trace-data ", 18)) {
		complain(path, "not a recording's info (its first line is not \"mcount-trace-data 1\")");
		rc = -1;
	} else if (strcmp(l[0] + 18, "1")) {
		complain(path, "the format's version %.20s, which this reader does not know (it reads 1)", l[0] + 18);
		rc = -1;
	}
	bool order = false, bits = false;
	for (size_t i = 1; i < n && !rc; i++) {
		char *v = strchr(l[i], ' ');
		if (!v)
			continue;
		*v++ = 0;
		const char *k = l[i];
		uint64_t x;
		if (!strcmp(k, "byte-order")) {
			order = !strcmp(v, "little") || !strcmp(v, "big");
			p->big = !strcmp(v, "big");
			if (!order) {
				complain(path, "byte-order %.20s: neither little nor big", v);
				rc = -1;
			}
		} else if (!strcmp(k, "word-bits")) {
			bits = !strcmp(v, "64") || !strcmp(v, "32");
			p->word_bits = *v == '3' ? 32 : 64;
			if (!bits) {
				complain(path, "word-bits %.20s: neither 64 nor 32", v);
				rc = -1;
			}
		} else if (!strcmp(k, "pid") && num(v, 10, &x) && x < 1u << 31) {
			p->pid = (long)x;
		} else if (!strcmp(k, "ppid") && num(v, 10, &x) && x < 1u << 31) {
			p->ppid = (long)x;
		} else if (!strcmp(k, "program")) {
			free(p->program);
			p->program = xstrdup(v);
		} else if (!strcmp(k, "argv")) {
			free(p->argv);
			p->argv = xstrdup(v);
		} else if (!strcmp(k, "arch")) {
			free(p->arch);
			p->arch = xstrdup(v);
		} else if (!strcmp(k, "tracer")) {
			free(p->tracer);
			p->tracer = xstrdup(v);
		} else if (!strcmp(k, "clock")) {
			free(p->clock);
			p->clock = xstrdup(v);
			p->monotonic = !strcmp(v, "monotonic");
		} else if (!strcmp(k, "start")) {
			free(p->start);
			p->start = xstrdup(v);
		}
	}
	if (!rc && (!order || !bits)) {
		complain(path, "no %s line", order ? "word-bits" : "byte-order");
		rc = -1;
	}
	text_close(p, &tf, false);
	return rc;
}

static int by_ticks(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	return x->ticks < y->ticks ? -1 : x->ticks > y->ticks;
}

static void load_clock(struct proc *p)
{
	struct text tf;
	if (!text_open(p, "clock", false, &tf))
		return;
	char *path = tf.path, **l = tf.l;
	size_t n = tf.n;
	p->clk = xmalloc(n * sizeof *p->clk);
	for (size_t i = 0; i < n; i++) {
		char *s = l[i], *t = field(&s);
		uint64_t ticks, ns;
		if (!t || !s || !num(t, 10, &ticks) || !num(s, 10, &ns)) {
			complain(path, "line %zu: not TICKS NS", i + 1);
			continue;
		}
		p->clk[p->nclk].ticks = ticks;
		p->clk[p->nclk++].ns = (double)ns;
	}
	qsort(p->clk, p->nclk, sizeof *p->clk, by_ticks);
	text_close(p, &tf, true);
}

double ev_seconds(const struct proc *p, uint64_t ticks)
{
	if (p->monotonic || p->nclk < 2)
		return (double)ticks / 1e9;
	/* the two pairs around it, the nearest two outside */
	size_t lo = 0, hi = p->nclk;
	while (hi - lo > 1) {
		size_t m = (lo + hi) / 2;
		if (p->clk[m].ticks <= ticks)
			lo = m;
		else
			hi = m;
	}
	size_t a = lo + 1 < p->nclk ? lo : lo - 1;
	const struct pair *x = &p->clk[a], *y = &p->clk[a + 1];
	if (y->ticks == x->ticks)
		return x->ns / 1e9;
	double rate = (y->ns - x->ns) / ((double)y->ticks - (double)x->ticks);
	return (x->ns + ((double)ticks - (double)x->ticks) * rate) / 1e9;
}

int64_t ev_ns(const struct proc *p, uint64_t ticks)
{
	if (p->monotonic || p->nclk < 2)
		return (int64_t)ticks;
	return (int64_t)llround(ev_seconds(p, ticks) * 1e9);
}

static int by_addr(const void *a, const void *b)
{
	const struct func *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static void load_funcs(struct proc *p)
{
	struct text tf;
	if (!text_open(p, "funcs", false, &tf))
		return;
	char *path = tf.path, **l = tf.l;
	size_t n = tf.n;
	struct func *f = xmalloc(n * sizeof *f);
	size_t nf = 0;
	for (size_t i = 0; i < n; i++) {
		char *s = l[i];
		char *k = field(&s), *a = field(&s), *z = field(&s), *o = field(&s);
		uint64_t addr, size, obj;
		if (!k || strcmp(k, "F") || !a || !z || !o || !s || !num(a, 16, &addr) || !num(z, 10, &size) ||
		    !num(o, 10, &obj)) {
			complain(path, "line %zu: not F ADDR SIZE ID NAME", i + 1);
			continue;
		}
		f[nf].addr = addr;
		f[nf].end = size && addr + size > addr ? addr + size : 0;
		f[nf].obj = (unsigned long)obj;
		f[nf].line = i;
		f[nf].index = 0;
		f[nf++].name = xstrdup(s);
	}
	qsort(f, nf, sizeof *f, by_addr);
	/* an address named again: the latest line */
	size_t m = 0;
	for (size_t i = 0; i < nf; i++) {
		if (m && f[m - 1].addr == f[i].addr) {
			free(f[m - 1].name);
			f[m - 1] = f[i];
		} else {
			f[m++] = f[i];
		}
	}
	/* SIZE 0: up to the next function of its object; the last one of
	 * an object, up to where another object is loaded (its bias) */
	for (size_t i = 0; i < m; i++) {
		if (f[i].end)
			continue;
		f[i].end = UINT64_MAX;
		for (size_t j = i + 1; j < m; j++)
			if (f[j].obj == f[i].obj) {
				f[i].end = f[j].addr;
				break;
			}
		for (size_t k = 0; k < p->no; k++)
			if (p->o[k].id != f[i].obj && p->o[k].bias > f[i].addr && p->o[k].bias < f[i].end)
				f[i].end = p->o[k].bias;
	}
	p->f = f;
	p->nf = m;
	text_close(p, &tf, true);
}

const struct func *func_of(const struct proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nf;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (p->f[m].addr <= addr)
			lo = m + 1;
		else
			hi = m;
	}
	if (!lo)
		return NULL;
	const struct func *f = &p->f[lo - 1];
	return addr < f->end ? f : NULL;
}

/* An address's name: its function's; else, as the live tracer names
 * an address of no symbol, FILE+0xOFFSET in the object loaded nearest
 * below it (the object of the greatest bias not above it: objects
 * gives no object's extent); else the address. */
const char *addr_name(const struct proc *p, uint64_t addr, char *buf, size_t len)
{
	const struct func *f = func_of(p, addr);
	if (f)
		return f->name;
	const struct object *o = NULL;
	for (size_t k = 0; k < p->no && p->o[k].bias <= addr; k++)
		o = &p->o[k];
	if (o)
		snprintf(buf, len, "%s+%#llx", o->name, (unsigned long long)(addr - o->bias));
	else
		snprintf(buf, len, "%#llx", (unsigned long long)addr);
	return buf;
}

static int by_bias(const void *a, const void *b)
{
	const struct object *x = a, *y = b;
	return x->bias < y->bias ? -1 : x->bias > y->bias;
}

void load_objects(struct proc *p)
{
	struct text tf;
	if (!text_open(p, "objects", false, &tf))
		return;
	char *path = tf.path, **l = tf.l;
	size_t n = tf.n;
	p->o = xmalloc((n ? n : 1) * sizeof *p->o);
	for (size_t i = 0; i < n; i++) {
		char *s = l[i], *k = field(&s), *id = field(&s);
		uint64_t idv, bias;
		if (k && !strcmp(k, "U") && id && !s && num(id, 10, &idv))
			continue;             /* (its functions' lines stay: the latest wins) */
		char *bs = field(&s), *bid = field(&s);
		if (!k || strcmp(k, "O") || !id || !bs || !bid || !s || !num(id, 10, &idv) || !num(bs, 16, &bias)) {
			complain(path, "line %zu: not O ID BIAS BUILD-ID PATH or U ID", i + 1);
			continue;
		}
		/* the program's own path, not /proc/self/exe */
		const char *file = !strcmp(s, "/proc/self/exe") && p->program ? p->program : s;
		const char *slash = strrchr(file, '/');
		p->o[p->no].id = (unsigned long)idv;
		p->o[p->no].bias = bias;
		p->o[p->no++].name = xstrdup(slash && slash[1] ? slash + 1 : file);
	}
	if (p->no)
		qsort(p->o, p->no, sizeof *p->o, by_bias);
	text_close(p, &tf, true);
}

/* One parameter of a prototype: its kind and width, and its name (the
 * last word), from C's spelling of it. */
static void param_of(struct proto *pr, char *s, unsigned word)
{
	size_t i = pr->nargs;
	while (*s == ' ')
		s++;
	size_t n = strlen(s);
	while (n && s[n - 1] == ' ')
		s[--n] = 0;
	size_t k = n;
	while (k && (s[k - 1] == '_' || (s[k - 1] >= '0' && s[k - 1] <= '9') || (s[k - 1] >= 'a' && s[k - 1] <= 'z') ||
		     (s[k - 1] >= 'A' && s[k - 1] <= 'Z')))
		k--;
	pr->a[i].name = xstrdup(s + k);
	s[k] = 0;
	unsigned bits = word;
	enum mt_arg_kind kind = MT_ARG_INT;
	if (strchr(s, '*'))
		kind = strstr(s, "char") && strchr(s, '*') == strrchr(s, '*') ? MT_ARG_STR : MT_ARG_HEX;
	else if (strstr(s, "bool"))
		kind = MT_ARG_BOOL, bits = 8;
	else {
		if (strstr(s, "unsigned") || strstr(s, "size_t") || strstr(s, "uint"))
			kind = MT_ARG_UINT;
		if (strstr(s, "ssize_t"))
			kind = MT_ARG_INT;
		if (strstr(s, "long long") || strstr(s, "64"))
			bits = 64;
		else if (strstr(s, "long") || strstr(s, "size_t") || strstr(s, "ptr"))
			bits = word;
		else if (strstr(s, "short") || strstr(s, "16"))
			bits = 16;
		else if (strstr(s, "char") || strstr(s, "8_t"))
			bits = 8;
		else
			bits = 32;
	}
	pr->a[i].kind = kind;
	pr->a[i].bits = bits;
	pr->nargs++;
}

static void load_protos(struct proc *p)
{
	struct text tf;
	if (!text_open(p, "protos", false, &tf))
		return;
	char *path = tf.path, **l = tf.l;
	size_t n = tf.n;
	p->p = xmalloc(n * sizeof *p->p);
	for (size_t i = 0; i < n; i++) {
		char *s = l[i], *k = field(&s), *key = field(&s);
		uint64_t kv;
		char *open = s ? strchr(s, '(') : NULL, *close = open ? strrchr(open, ')') : NULL;
		if (!k || strcmp(k, "P") || !key || !num(key, 16, &kv) || !close) {
			complain(path, "line %zu: not P KEY PROTO", i + 1);
			continue;
		}
		struct proto *pr = &p->p[p->np++];
		memset(pr, 0, sizeof *pr);
		pr->key = kv;
		*close = 0;
		char *list = open + 1;
		if (!strcmp(list, "void") || !*list)
			continue;
		for (char *save, *prm = strtok_r(list, ",", &save); prm && pr->nargs < 16;
		     prm = strtok_r(NULL, ",", &save))
			param_of(pr, prm, p->word_bits);
	}
	text_close(p, &tf, true);
}

const struct proto *proto_of(const struct proc *p, uint64_t key)
{
	const struct proto *r = NULL;
	for (size_t i = 0; i < p->np; i++)
		if (p->p[i].key == key)
			r = &p->p[i];     /* (the latest) */
	return r;
}

static void load_done(struct proc *p)
{
	struct text tf;
	if (!text_open(p, "done", false, &tf))
		return;
	char **l = tf.l;
	size_t n = tf.n;
	p->done = n > 0;
	for (size_t i = 0; i < n; i++) {
		char *v = strchr(l[i], ' ');
		if (!v)
			continue;
		*v++ = 0;
		if (!strcmp(l[i], "events"))
			num(v, 10, &p->done_events);
		else if (!strcmp(l[i], "lost"))
			num(v, 10, &p->done_lost);
		else if (!strcmp(l[i], "drain"))
			num(v, 10, &p->done_drain);
		else if (!strcmp(l[i], "end")) {
			free(p->done_end);
			p->done_end = xstrdup(v);
		}
	}
	text_close(p, &tf, false);
}

static struct thread *thread_of(struct proc *p, long tid, unsigned long gen, const char *name)
{
	for (size_t i = 0; i < p->nt; i++)
		if (!strcmp(p->t[i].name, name))
			return &p->t[i];
	p->t = xrealloc(p->t, (p->nt + 1) * sizeof *p->t);
	struct thread *t = &p->t[p->nt++];
	memset(t, 0, sizeof *t);
	t->tid = tid;
	t->gen = gen;
	snprintf(t->name, sizeof t->name, "%s", name);
	return t;
}

/* A file of the process's directory opened for reading: a regular file
 * (its size in *len); -1, said unless it is missing and need not be
 * there, if not. */
static int open_file(struct proc *p, const char *name, uint64_t *len, char **path)
{
	*path = path_of(p, name);
	int fd = open(*path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
		errno = EINVAL;
	}
	if (fd < 0) {
		if (errno != ENOENT)
			complain(*path, "%s", strerror(errno));
		free(*path);
		*path = NULL;
		return -1;
	}
	*len = (uint64_t)st.st_size;
	return fd;
}

/* size bytes at off of fd, all of them. */
static bool read_at(int fd, void *buf, size_t size, uint64_t off)
{
	size_t got = 0;
	while (got < size) {
		ssize_t r = pread(fd, (char *)buf + got, size - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

/* The stream's size: its whole events, and a cut one at its end. */
static void load_stream(struct proc *p, struct thread *t)
{
	char name[64], *path;
	snprintf(name, sizeof name, "stream-%s", t->name);
	uint64_t len;
	int fd = open_file(p, name, &len, &path);
	if (fd < 0)
		return;
	close(fd);
	t->from_stream = (size_t)(len / EV_BYTES);
	t->torn = len % EV_BYTES != 0;
	free(path);
}

/* A field of the ring's header: the file offset at off of the header,
 * size bytes there within the file. */
static bool at_offset(const unsigned char *h, uint64_t len, size_t off, size_t size, bool swap, uint64_t *where)
{
	uint64_t o = get64(h + off, swap);
	if (o > len || size > len - o)
		return false;
	*where = o;
	return true;
}

/* The ring's header, its counters, and where its remainder is: the
 * slots after the stream's (or from tail, the stream stopping short of
 * it: a gap) up to head. */
static void load_ring(struct proc *p, struct thread *t)
{
	char name[64], *path;
	snprintf(name, sizeof name, "ring-%s", t->name);
	uint64_t len;
	int fd = open_file(p, name, &len, &path);
	if (fd < 0)
		return;
	t->has_ring = true;
	t->ring_bad = true;
	bool swap = false;
	unsigned char h[104], w8[8];
	uint64_t o_head, o_tail, o_mask, o_ev, o_lost, o_comm, o_nosh, o_unw, o_untab, o_rec;
	if (len < 104 || !read_at(fd, h, sizeof h, 0)) {
		complain(path, "%llu bytes: shorter than a ring's header", (unsigned long long)len);
		goto out;
	}
	if (memcmp(h, "MCTRING\0", 8)) {
		complain(path, "not a ring (bad magic)");
		goto out;
	}
	uint32_t bom;
	memcpy(&bom, h + 8, 4);
	if (bom == 0x04030201u)
		swap = true;
	else if (bom != 0x01020304u) {
		complain(path, "byte-order mark %08x: neither order's", (unsigned)bom);
		goto out;
	}
	bool big = p->host_big != swap;
	if (big != p->big) {
		complain(path, "a %s-endian ring in a %s-endian recording", big ? "big" : "little",
			 p->big ? "big" : "little");
		goto out;
	}
	uint32_t version = get32(h + 12, swap), width = get32(h + 16, swap), tid = get32(h + 20, swap);
	if (version != 1) {
		complain(path, "ring version %u, which this reader does not know (it reads 1)", (unsigned)version);
		goto out;
	}
	if (width != 8 && width != 4) {
		complain(path, "sequence width %u: neither 8 nor 4", (unsigned)width);
		goto out;
	}
	if ((long)tid != t->tid) {
		complain(path, "the header's thread is %u", (unsigned)tid);
		goto out;
	}
	if (!at_offset(h, len, 24, width, swap, &o_head) || !at_offset(h, len, 32, width, swap, &o_tail) ||
	    !at_offset(h, len, 40, 8, swap, &o_mask) || !at_offset(h, len, 48, 0, swap, &o_ev) ||
	    !at_offset(h, len, 56, 8, swap, &o_lost) || !at_offset(h, len, 64, 16, swap, &o_comm) ||
	    !at_offset(h, len, 72, 8, swap, &o_nosh) || !at_offset(h, len, 80, 8, swap, &o_unw) ||
	    !at_offset(h, len, 88, 8, swap, &o_untab) || !at_offset(h, len, 96, 8, swap, &o_rec)) {
		complain(path, "a field's offset out of the file (%llu bytes)", (unsigned long long)len);
		goto out;
	}
	/* (each field read where the header says; a read that fails: the
	 * file shrank, and is read as far as it goes) */
#define FIELD(o, size) (read_at(fd, w8, (size), (o)) ? (size) == 8 ? get64(w8, swap) : get32(w8, swap) : 0)
	uint64_t mask = FIELD(o_mask, 8);
	if (mask & (mask + 1) || mask >= (len - o_ev) / EV_BYTES) {
		complain(path, "mask %#llx: not a power of two less one, or a ring larger than the file",
			 (unsigned long long)mask);
		goto out;
	}
	uint64_t head = FIELD(o_head, width), tail = FIELD(o_tail, width);
	uint64_t wrap = width == 8 ? UINT64_MAX : UINT32_MAX;
	if (!read_at(fd, t->comm, 16, o_comm))
		memset(t->comm, 0, 16);
	t->comm[16] = 0;
	for (char *c = t->comm; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	t->lost = FIELD(o_lost, 8);
	t->noshadow = FIELD(o_nosh, 8);
	t->unwound = FIELD(o_unw, 8);
	t->untabled = FIELD(o_untab, 8);
	t->recursion = FIELD(o_rec, 8);
#undef FIELD
	t->ring_bad = false;
	/* (in the sequence's own width: o32's wraps at 2^32) */
	uint64_t L = (uint64_t)t->from_stream & wrap;
	uint64_t held = (head - tail) & wrap;
	if (held > mask + 1) {
		complain(path, "head %llu and tail %llu: more than the ring holds", (unsigned long long)head,
			 (unsigned long long)tail);
		t->ring_bad = true;
		goto out;
	}
	uint64_t from;
	if (((L - tail) & wrap) <= held) {
		from = L;                         /* in [tail, head]: the rest */
	} else if (((tail - L) & wrap) <= (wrap >> 1)) {
		t->gap = (tail - L) & wrap;       /* the stream stops short of tail */
		from = tail;
	} else {
		complain(path, "the stream (%zu events) goes past the ring's head %llu", t->from_stream,
			 (unsigned long long)head);
		goto out;
	}
	t->recovered = (size_t)((head - from) & wrap);
	t->ring_from = from;
	t->ring_wrap = wrap;
	t->ring_mask = mask;
	t->ring_ev = o_ev;
out:
	close(fd);
	free(path);
}

/* ---- the cursor ---- */

#define CHUNK 512                     /* slots read at once */

struct cursor {
	char *stream, *ring;          /* the files' paths */
	bool swap, cut, done;
	uint64_t s_off, s_left;       /* the stream: the next byte, the slots left */
	uint64_t seq, wrap, mask, ev, r_left;   /* the ring: the next slot's sequence, ... */
	unsigned char raw[CHUNK * EV_BYTES];
	size_t bi, bn;                /* raw's next slot, its slots */
	struct ev *pay;               /* the payload of the last event */
	size_t paycap;
};

static char *thread_file(const struct proc *p, const char *kind, const struct thread *t)
{
	char *s;
	if (asprintf(&s, "%s/%s-%s", p->dir, kind, t->name) < 0) {
		fputs("mcount-read: out of memory\n", stderr);
		exit(1);
	}
	return s;
}

struct cursor *cur_open(const struct proc *p, const struct thread *t)
{
	struct cursor *c = xmalloc(sizeof *c);
	memset(c, 0, offsetof(struct cursor, raw));
	c->bi = c->bn = 0;
	c->pay = NULL;
	c->paycap = 0;
	c->stream = thread_file(p, "stream", t);
	c->ring = thread_file(p, "ring", t);
	c->swap = p->big != p->host_big;
	c->s_left = t->from_stream;
	if (t->has_ring && !t->ring_bad) {
		c->seq = t->ring_from;
		c->wrap = t->ring_wrap;
		c->mask = t->ring_mask;
		c->ev = t->ring_ev;
		c->r_left = t->recovered;
	}
	return c;
}

/* n slots of path at off into raw (whole slots only): how many. */
static size_t read_slots(struct cursor *c, const char *path, uint64_t off, size_t n)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t got = 0, want = n * EV_BYTES;
	while (got < want) {
		ssize_t r = pread(fd, c->raw + got, want - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	return got / EV_BYTES;
}

/* The next chunk of slots: the stream's, then the ring's remainder. */
static bool refill(struct cursor *c)
{
	c->bi = c->bn = 0;
	if (c->done)
		return false;
	if (c->s_left) {
		size_t n = c->s_left < CHUNK ? (size_t)c->s_left : CHUNK;
		size_t got = read_slots(c, c->stream, c->s_off, n);
		if (got < n)
			c->s_left = c->r_left = 0;    /* shrank: the events end there */
		else
			c->s_left -= n;
		c->s_off += got * EV_BYTES;
		c->bn = got;
	} else if (c->r_left) {
		uint64_t i = c->seq & c->mask;
		uint64_t n = c->r_left < CHUNK ? c->r_left : CHUNK;
		if (n > c->mask + 1 - i)
			n = c->mask + 1 - i;  /* (to the ring's end: then its start) */
		if (n > c->wrap - c->seq + 1 && c->wrap - c->seq + 1)
			n = c->wrap - c->seq + 1;   /* (to the sequence's wrap) */
		size_t got = read_slots(c, c->ring, c->ev + i * EV_BYTES, (size_t)n);
		if (got < n)
			c->r_left = 0;
		else
			c->r_left -= n;
		c->seq = (c->seq + n) & c->wrap;
		c->bn = got;
	}
	return c->bn > 0;
}

static bool get_slot(struct cursor *c, struct ev *e)
{
	if (c->bi == c->bn && !refill(c))
		return false;
	const unsigned char *b = c->raw + c->bi++ * EV_BYTES;
	e->ts = get64(b, c->swap);
	e->ip = get64(b + 8, c->swap);
	e->parent = get64(b + 16, c->swap);
	return true;
}

bool cur_next(struct cursor *c, struct event *e)
{
	if (c->done || !get_slot(c, &e->e)) {
		c->done = true;
		return false;
	}
	e->nslots = 0;
	e->slots = c->pay;
	if (!(e->e.ip & EV_ARGS))
		return true;
	/* an exit's value: a slot; an entry's payload: as many as its
	 * first slot says (0: 1) */
	size_t k = 1;
	for (size_t i = 0; i < k; i++) {
		if (i == c->paycap) {
			c->paycap = c->paycap ? 2 * c->paycap : 16;
			c->pay = xrealloc(c->pay, c->paycap * sizeof *c->pay);
		}
		if (!get_slot(c, &c->pay[i])) {
			c->cut = c->done = true;
			return false;
		}
		if (!i && !(e->e.ip & EV_EXIT)) {
			k = (size_t)((c->pay[0].ip >> 16) & 0xffff);
			if (!k)
				k = 1;
		}
	}
	e->slots = c->pay;
	e->nslots = k;
	return true;
}

bool cur_cut(const struct cursor *c)
{
	return c->cut;
}

struct cursor *cur_dup(const struct cursor *c)
{
	struct cursor *d = xmalloc(sizeof *d);
	memcpy(d, c, sizeof *d);
	d->stream = xstrdup(c->stream);
	d->ring = xstrdup(c->ring);
	d->pay = NULL;
	d->paycap = 0;
	return d;
}

void cur_close(struct cursor *c)
{
	if (!c)
		return;
	free(c->stream);
	free(c->ring);
	free(c->pay);
	free(c);
}

void thread_count(const struct proc *p, struct thread *t)
{
	if (t->counted)
		return;
	struct cursor *c = cur_open(p, t);
	struct event e;
	t->nr = 0;
	while (cur_next(c, &e)) {
		if (!t->nr || e.e.ts < t->first)
			t->first = e.e.ts;
		if (!t->nr || e.e.ts > t->last)
			t->last = e.e.ts;
		t->nr++;
	}
	t->cut = cur_cut(c);
	t->counted = true;
	cur_close(c);
}

static int by_tid(const void *a, const void *b)
{
	const struct thread *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

int proc_load(struct proc *p, const char *dir)
{
	memset(p, 0, sizeof *p);
	uint32_t one = 1;
	unsigned char c;
	memcpy(&c, &one, 1);
	p->host_big = c == 0;
	p->dir = xstrdup(dir);
	if (load_info(p))
		return -1;
	load_clock(p);
	load_objects(p);
	load_funcs(p);
	load_protos(p);
	load_done(p);
	DIR *d = opendir(dir);
	if (!d) {
		complain(dir, "%s", strerror(errno));
		return -1;
	}
	for (struct dirent *de; (de = readdir(d));) {
		const char *n = de->d_name, *num_at = NULL;
		if (!strncmp(n, "ring-", 5))
			num_at = n + 5;
		else if (!strncmp(n, "stream-", 7))
			num_at = n + 7;
		/* TID, or TID.N: a later thread of a TID the system gave again */
		char nm[32];
		uint64_t tid, gen = 0;
		if (!num_at || strlen(num_at) >= sizeof nm)
			continue;
		strcpy(nm, num_at);
		char *dot = strchr(nm, '.');
		if (dot) {
			*dot = 0;
			if (!num(dot + 1, 10, &gen) || gen >= 1u << 31 || dot[1] == '0')
				continue;
		}
		if (num(nm, 10, &tid) && tid && tid < 1u << 31 && nm[0] != '0') {
			if (dot)
				*dot = '.';
			thread_of(p, (long)tid, (unsigned long)gen, nm);
		}
	}
	closedir(d);
	if (p->nt)
		qsort(p->t, p->nt, sizeof *p->t, by_tid);
	for (size_t i = 0; i < p->nt; i++) {
		load_stream(p, &p->t[i]);
		load_ring(p, &p->t[i]);
		if (!p->t[i].comm[0])
			snprintf(p->t[i].comm, sizeof p->t[i].comm, "<...>");
	}
	return 0;
}

void proc_free(struct proc *p)
{
	for (size_t i = 0; i < p->nf; i++)
		free(p->f[i].name);
	for (size_t i = 0; i < p->no; i++)
		free(p->o[i].name);
	free(p->o);
	for (size_t i = 0; i < p->np; i++)
		for (size_t j = 0; j < p->p[i].nargs; j++)
			free(p->p[i].a[j].name);
	free(p->t);
	free(p->f);
	free(p->p);
	free(p->clk);
	free(p->dir);
	free(p->program);
	free(p->argv);
	free(p->arch);
	free(p->tracer);
	free(p->clock);
	free(p->start);
	free(p->done_end);
}

/* ---- arguments, as the live tracer writes them (argfmt.c) ---- */

static const char *sym_name(uint64_t addr, char *buf, size_t len, void *ctx)
{
	return addr_name(ctx, addr, buf, len);
}

size_t args_format(const struct proc *p, const struct ev *slots, size_t nslots, bool json, char *out, size_t cap)
{
	size_t nw = nslots * 3;
	if (!cap)
		return 0;
	uint64_t *w = xmalloc((nw ? nw : 1) * sizeof *w);
	for (size_t i = 0; i < nslots; i++) {
		w[3 * i] = slots[i].ts;
		w[3 * i + 1] = slots[i].ip;
		w[3 * i + 2] = slots[i].parent;
	}
	const struct proto *pr = nw >= 2 && w[0] ? proto_of(p, w[0]) : NULL;
	struct mt_fmt_arg a[16];
	for (size_t i = 0; pr && i < pr->nargs; i++)
		a[i] = (struct mt_fmt_arg){ pr->a[i].name, (uint8_t)pr->a[i].kind, (uint8_t)pr->a[i].bits, false };
	size_t n = mt_fmt_args(out, cap - 1, pr ? a : NULL, pr ? pr->nargs : 0, w, nw, json, sym_name, (void *)p);
	free(w);
	out[n] = 0;
	return n;
}
