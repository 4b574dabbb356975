/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c - mcount-read: a recording of mcount-trace record
 * (doc/trace-format.md) read back: info, replay, report.
 *
 *   mcount-read info DIR
 *   mcount-read replay [--format=text|json|chrome|perfetto] [-o FILE]
 *                      [--function=GLOB] [--tid=N] [--since=S] [--until=S]
 *                      [--depth=N] [--graph-function=GLOB]...
 *                      [--time-threshold=DURATION] DIR
 *   mcount-read report [--sort=calls|total|self|avg|max|name] [--threads] DIR
 *   mcount-read report --diff=DIR2 [--sort=KEY] DIR
 *   mcount-read graph [--depth=N] DIR [FUNCTION]
 *   mcount-read flame [--format=svg|html|folded] [--output=FILE] DIR
 *
 * DIR is a process's directory (it has an info file) or a recording's,
 * whose process directories are read each in turn.  Exit status: 0; 1
 * where a file was refused (said on stderr, the rest read on) or
 * nothing could be read; 2 for a command line not understood. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read.h"
#include "graph.h"

#ifndef VERSION
#define VERSION "unknown"
#endif

static const char usage_text[] =
	"usage: mcount-read info DIR\n"
	"       mcount-read replay [--format=text|json|chrome|perfetto] [-o FILE] [--function=GLOB]\n"
	"                          [--tid=N] [--since=S] [--until=S] [--depth=N]\n"
	"                          [--graph-function=GLOB]... [--time-threshold=DURATION] DIR\n"
	"       mcount-read report [--sort=calls|total|self|avg|max|name] [--threads] DIR\n"
	"       mcount-read report --diff=DIR2 [--sort=KEY] DIR\n"
	"       mcount-read graph [--depth=N] DIR [FUNCTION]\n"
	"       mcount-read flame [--format=svg|html|folded] [--output=FILE] DIR\n"
	"A recording of mcount-trace record (doc/trace-format.md) read back: DIR is a\n"
	"process's directory or the recording's.  See mcount-trace(1): replay, report,\n"
	"info, graph, flame.\n";

static void usage(void)
{
	fputs(usage_text, stderr);
	exit(2);
}

static bool is_proc_dir(const char *d)
{
	char *p;
	if (asprintf(&p, "%s/info", d) < 0)
		return false;
	struct stat st;
	bool r = !stat(p, &st);
	free(p);
	return r;
}

static int by_pid(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The process directories of dir, loaded; their count. */
static size_t load_all(const char *dir, struct proc **out)
{
	struct proc *ps = NULL;
	size_t n = 0;
	if (is_proc_dir(dir)) {
		ps = xmalloc(sizeof *ps);
		if (!proc_load(ps, dir))
			n = 1;
		else
			proc_free(ps);
		*out = ps;
		return n;
	}
	DIR *d = opendir(dir);
	if (!d) {
		complain(dir, "%s", strerror(errno));
		*out = NULL;
		return 0;
	}
	for (struct dirent *de; (de = readdir(d));) {
		/* PID, or PID-N: a later process of a PID the system gave again */
		const char *s = de->d_name;
		size_t k = strspn(s, "0123456789");
		if (!k || (s[k] && (s[k] != '-' || !s[k + 1] || strspn(s + k + 1, "0123456789") != strlen(s + k + 1))))
			continue;
		char *sub;
		if (asprintf(&sub, "%s/%s", dir, s) < 0)
			break;
		if (is_proc_dir(sub)) {
			ps = xrealloc(ps, (n + 1) * sizeof *ps);
			if (!proc_load(&ps[n], sub))
				n++;
			else
				proc_free(&ps[n]);
		}
		free(sub);
	}
	closedir(d);
	if (!n && !read_status)
		complain(dir, "no process directory of a recording (with an info file) there");
	if (n)
		qsort(ps, n, sizeof *ps, by_pid);
	*out = ps;
	return n;
}

static void info(struct proc *p)
{
	printf("process %ld\n", p->pid);
	printf("  program   %s\n", p->program ? p->program : "?");
	printf("  argv      %s\n", p->argv ? p->argv : "?");
	printf("  pid       %ld (parent %ld)\n", p->pid, p->ppid);
	printf("  arch      %s, %s-endian, %u-bit\n", p->arch ? p->arch : "?", p->big ? "big" : "little", p->word_bits);
	printf("  tracer    %s\n", p->tracer ? p->tracer : "?");
	printf("  clock     %s\n", p->clock ? p->clock : "?");
	if (p->start)
		printf("  start     %s\n", p->start);
	uint64_t first = 0, last = 0, events = 0, recovered = 0, lost = 0;
	bool any = false;
	for (size_t i = 0; i < p->nt; i++) {
		struct thread *t = &p->t[i];
		thread_count(p, t);
		events += t->nr;
		recovered += t->recovered;
		lost += t->lost + t->gap;
		if (t->nr && (!any || t->first < first))
			first = t->first;
		if (t->nr && (!any || t->last > last))
			last = t->last;
		any |= t->nr > 0;
	}
	if (any)
		printf("  time      %.6f to %.6f s (%.6f s)\n", ev_seconds(p, first), ev_seconds(p, last),
		       ev_seconds(p, last) - ev_seconds(p, first));
	else
		printf("  time      no event\n");
	if (p->done)
		printf("  end       done: ended cleanly (%llu events drained, %llu lost)\n",
		       (unsigned long long)p->done_events, (unsigned long long)p->done_lost);
	else
		printf("  end       not done: the process died or still runs\n");
	if (p->done_drain && p->done_events)
		printf("  drain     %.6f s of cpu copying rings into streams (%.1f ns a slot)\n",
		       (double)p->done_drain / 1e9, (double)p->done_drain / (double)p->done_events);
	printf("  events    %llu, %llu slots recovered from rings, %llu lost\n", (unsigned long long)events,
	       (unsigned long long)recovered, (unsigned long long)lost);
	printf("  threads   %zu\n", p->nt);
	for (size_t i = 0; i < p->nt; i++) {
		const struct thread *t = &p->t[i];
		printf("  thread %s %s: events %zu, stream %zu slots, recovered %zu slots, lost %llu", t->name, t->comm, t->nr,
		       t->from_stream, t->recovered, (unsigned long long)t->lost);
		if (t->gap)
			printf(", gap %llu (the stream stops short of the ring's tail)", (unsigned long long)t->gap);
		if (t->torn)
			printf(", torn 1 (a cut event at the stream's end)");
		if (t->cut)
			printf(", cut %zu (an entry's payload cut short)", t->cut);
		if (!t->has_ring)
			printf(", no ring");
		else if (t->ring_bad)
			printf(", ring refused");
		printf(", noshadow %llu, unwound %llu, untabled %llu, recursion %llu\n",
		       (unsigned long long)t->noshadow, (unsigned long long)t->unwound,
		       (unsigned long long)t->untabled, (unsigned long long)t->recursion);
	}
	if (p->torn_lines)
		printf("  torn      %zu text lines cut short (ignored)\n", p->torn_lines);
}

/* flame's format by FILE's suffix: .html or .htm, .folded or .txt, else svg */
static enum flame_fmt flame_format_of(const char *file)
{
	const char *dot = file ? strrchr(file, '.') : NULL;
	if (dot && (!strcmp(dot, ".html") || !strcmp(dot, ".htm")))
		return FLAME_HTML;
	if (dot && (!strcmp(dot, ".folded") || !strcmp(dot, ".txt")))
		return FLAME_FOLDED;
	return FLAME_SVG;
}

/* flame into file (NULL: standard output), written whole under a
 * temporary name, then renamed to it; false when it could not be */
static bool flame_to(struct proc *ps, size_t n, const char *file, enum flame_fmt fmt)
{
	if (!file) {
		flame(ps, n, fmt, stdout);
		return true;
	}
	char *tmp;
	if (asprintf(&tmp, "%s.tmp%ld", file, (long)getpid()) < 0)
		return false;
	FILE *f = fopen(tmp, "w");
	bool ok = f != NULL;
	if (f) {
		flame(ps, n, fmt, f);
		ok = !ferror(f);
		ok = !fclose(f) && ok;
		ok = ok && !rename(tmp, file);
	}
	if (!ok) {
		complain(file, "%s", strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	return ok;
}

/* --NAME=VALUE: the value, or NULL. */
static const char *opt(const char *arg, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(arg, name, n) && arg[n] == '=' ? arg + n + 1 : NULL;
}

static bool number(const char *s, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	return *s && !*end && !errno;
}

/* A duration (DIGITS[.DIGITS] and ns, us, ms or s; bare: microseconds,
 * as the live --time-threshold) in seconds. */
static bool duration(const char *s, double *v)
{
	static const struct {
		const char *unit;
		double sec;
	} units[] = { { "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1 }, { "", 1e-6 } };
	size_t n = strspn(s, "0123456789");
	if (!n)
		return false;
	if (s[n] == '.') {
		size_t k = strspn(s + n + 1, "0123456789");
		if (!k)
			return false;
		n += 1 + k;
	}
	for (size_t i = 0; i < sizeof units / sizeof *units; i++)
		if (!strcmp(s + n, units[i].unit)) {
			*v = strtod(s, NULL) * units[i].sec;
			return *v <= 3600;
		}
	return false;
}

static bool whole(const char *s, long *v)
{
	char *end;
	errno = 0;
	*v = strtol(s, &end, 10);
	return *s && !*end && !errno && *v > 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("mcount-read (recordmcount) %s\n", VERSION);
		return 0;
	}
	const char *cmd = argv[1], *dir = NULL, *sort = "total", *dir2 = NULL, *output = NULL;
	struct replay_opts o = { 0 };
	bool threads = false;
	bool is_info = !strcmp(cmd, "info"), is_replay = !strcmp(cmd, "replay"), is_report = !strcmp(cmd, "report");
	bool is_graph = !strcmp(cmd, "graph"), is_flame = !strcmp(cmd, "flame");
	const char *function = NULL;
	enum flame_fmt ffmt = FLAME_SVG;
	bool has_ffmt = false;
	if (!is_info && !is_replay && !is_report && !is_graph && !is_flame) {
		fprintf(stderr, "mcount-read: %s: not a command (info, replay, report, graph, flame)\n", cmd);
		usage();
	}
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v;
		if (a[0] != '-' || !strcmp(a, "-")) {
			if (dir && is_graph && !function)
				function = a;
			else if (dir)
				usage();
			else
				dir = a;
		} else if (is_replay && (v = opt(a, "--format"))) {
			if (!strcmp(v, "text"))
				o.fmt = 0;
			else if (!strcmp(v, "json"))
				o.fmt = 1;
			else if (!strcmp(v, "chrome"))
				o.fmt = 2;
			else if (!strcmp(v, "perfetto"))
				o.fmt = 3;
			else {
				fprintf(stderr, "mcount-read: --format=%s: text, json, chrome or perfetto\n", v);
				usage();
			}
		} else if (is_replay && ((v = opt(a, "--output")) || !strcmp(a, "-o"))) {
			if (!v && !(v = argv[++i]))
				usage();
			output = v;
		} else if (is_replay && (v = opt(a, "--function"))) {
			o.function = v;
		} else if (is_replay && (v = opt(a, "--tid"))) {
			if (!whole(v, &o.tid)) {
				fprintf(stderr, "mcount-read: --tid=%s: not a thread's id\n", v);
				usage();
			}
		} else if (is_replay && (v = opt(a, "--since"))) {
			if (!number(v, &o.since))
				usage();
			o.has_since = true;
		} else if (is_replay && (v = opt(a, "--until"))) {
			if (!number(v, &o.until))
				usage();
			o.has_until = true;
		} else if ((is_replay || is_graph) && (v = opt(a, "--depth"))) {
			if (!whole(v, &o.depth)) {
				fprintf(stderr, "mcount-read: --depth=%s: not a depth (1 or more)\n", v);
				usage();
			}
		} else if (is_replay && (v = opt(a, "--graph-function"))) {
			o.gf.globs = xrealloc(o.gf.globs, (o.gf.nglobs + 1) * sizeof *o.gf.globs);
			o.gf.globs[o.gf.nglobs++] = v;
		} else if (is_replay && (v = opt(a, "--time-threshold"))) {
			if (!duration(v, &o.gf.thresh)) {
				fprintf(stderr, "mcount-read: --time-threshold=%s: not a duration (10us, 1.5ms, 2s)\n", v);
				usage();
			}
		} else if (is_report && (v = opt(a, "--sort"))) {
			static const char *const keys[] = { "calls", "total", "self", "avg", "max", "name" };
			size_t k = 0;
			while (k < 6 && strcmp(v, keys[k]))
				k++;
			if (k == 6) {
				fprintf(stderr, "mcount-read: --sort=%s: calls, total, self, avg, max or name\n", v);
				usage();
			}
			sort = keys[k];
		} else if (is_report && (v = opt(a, "--diff"))) {
			dir2 = v;
		} else if (is_report && !strcmp(a, "--threads")) {
			threads = true;
		} else if (is_flame && (v = opt(a, "--format"))) {
			static const char *const fmts[] = { "svg", "html", "folded" };
			size_t k = 0;
			while (k < 3 && strcmp(v, fmts[k]))
				k++;
			if (k == 3) {
				fprintf(stderr, "mcount-read: --format=%s: svg, html or folded\n", v);
				usage();
			}
			ffmt = (enum flame_fmt)k;
			has_ffmt = true;
		} else if (is_flame && (v = opt(a, "--output")) && *v) {
			output = v;
		} else {
			fprintf(stderr, "mcount-read: %s: not an option of %s\n", a, cmd);
			usage();
		}
	}
	if (!dir || (dir2 && threads))
		usage();
	o.gf.depth = o.depth;
	if (o.fmt == 3 && (o.gf.nglobs || o.gf.thresh > 0)) {
		fputs("mcount-read: --graph-function and --time-threshold: not with --format=perfetto\n", stderr);
		usage();
	}
	if (is_replay && output && !freopen(output, "w", stdout)) {
		fprintf(stderr, "mcount-read: %s: %s\n", output, strerror(errno));
		return 1;
	}
	if (o.fmt == 3 && !output && isatty(STDOUT_FILENO)) {
		fputs("mcount-read: --format=perfetto writes binary: not to a terminal (-o FILE)\n", stderr);
		return 2;
	}
	static char obuf[1 << 20];
	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
	struct proc *ps;
	size_t n = load_all(dir, &ps);
	if (is_info) {
		for (size_t i = 0; i < n; i++)
			info(&ps[i]);
	} else if (is_replay) {
		if (n)
			replay(ps, n, &o);
	} else if (is_report && dir2) {
		/* (both read, whatever either says) */
		struct proc *ps2;
		size_t n2 = load_all(dir2, &ps2);
		if (n && n2)
			report_diff(ps, n, dir, ps2, n2, dir2, sort);
		for (size_t i = 0; i < n2; i++)
			proc_free(&ps2[i]);
		free(ps2);
		if (!n2)
			n = 0;
	} else if (is_report) {
		if (n)
			report(ps, n, sort, threads);
	} else if (is_graph) {
		if (n)
			graph(ps, n, function, o.depth);
	} else if (n && !flame_to(ps, n, output, has_ffmt ? ffmt : flame_format_of(output))) {
		read_status = 1;
	}
	for (size_t i = 0; i < n; i++)
		proc_free(&ps[i]);
	free(ps);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "mcount-read: %s: %s\n", output ? output : "standard output", strerror(errno));
		return 1;
	}
	return read_status || !n ? 1 : 0;
}
