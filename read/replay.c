/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replay.c - a recording's events in time order, merged across its
 * threads, in the forms the live tracer writes (rt/output.c): the
 * kernel's function and function_graph text, JSON lines, Chrome's JSON
 * trace format.  A live trace and a replay of the same run differ in
 * their timestamps only (and in where a live drain split a leaf). */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read.h"

/* What a thread's lines need as they go. */
struct tstate {
	struct thread *t;
	size_t at;                    /* next of t->r */
	uint64_t open[4096];          /* the entries' times, outermost first */
	unsigned nopen;
	char prefix[64], gprefix[112];
	bool lost_said;
	struct gf_thread gf;          /* (--graph-function, --time-threshold) */
};

struct doc {
	const struct proc *p;
	const struct replay_opts *o;
	int style;                    /* 0: none yet, 1 function, 2 graph */
	const struct thread *last;     /* the last line's thread */
	char last_task[112];
	bool first;                   /* Chrome: no event written yet */
	uint64_t untabled;
};

static void json_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
}

static void header(struct doc *d, int style)
{
	if (d->o->fmt != 0 || d->style == style)
		return;
	if (style == 2)
		fputs("# tracer: function_graph\n#\n"
		      "# CPU  TASK/PID         DURATION                  FUNCTION CALLS\n"
		      "# |     |    |           |   |                     |   |   |   |\n", stdout);
	else
		fputs("# tracer: function\n#\n"
		      "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n"
		      "#              | |         |         |         |\n", stdout);
	d->style = style;
	d->last = NULL;
}

/* Is the event to be shown: its thread's, function's, time's filters. */
static bool shown(const struct doc *d, const char *fn, double sec)
{
	const struct replay_opts *o = d->o;
	if (o->function && fnmatch(o->function, fn, 0))
		return false;
	if (o->has_since && sec < o->since)
		return false;
	if (o->has_until && sec > o->until)
		return false;
	return true;
}

static void put_switch(struct doc *d, const struct tstate *s, unsigned cpu)
{
	if (d->last == s->t)
		return;
	if (d->last) {
		static const char rule[] = " ------------------------------------------\n";
		printf("%s%2u) %s => %s\n%s\n", rule, cpu, d->last_task, s->gprefix, rule);
	}
	d->last = s->t;
	snprintf(d->last_task, sizeof d->last_task, "%s", s->gprefix);
}

static void put_graph(struct doc *d, const struct tstate *s, unsigned cpu, bool has_dur, double dur,
		      unsigned depth, const char *fn, const char *tail)
{
	put_switch(d, s, cpu);
	char df[MT_DURATION_FIELD + 1];
	df[mt_fmt_duration(df, has_dur, dur)] = 0;
	printf("%2u) %s |%s  %*s%s%s\n", cpu, s->gprefix, df, (int)depth * 2, "", fn, tail);
}

static void chrome_event(struct doc *d, const struct tstate *s, char ph, const char *fn, double sec,
			 const char *extra)
{
	printf("%s{\"name\":\"", d->first ? "" : ",\n");
	json_str(stdout, fn);
	printf("\",\"ph\":\"%c\",\"pid\":%ld,\"tid\":%ld,\"ts\":%.3f%s}", ph, d->p->pid, s->t->tid, sec * 1e6, extra);
	d->first = false;
}

/* With function_graph's filters (gfilter.c): the return of the entry e
 * just read, when no traced call comes between them (a leaf), or NULL. */
static const struct rec *gf_leaf_exit(const struct doc *d, const struct tstate *s, const struct ev *e,
				      uint64_t site)
{
	const struct thread *t = s->t;
	bool deep = gf_leaf_by_depth(&d->o->gf, &s->gf);
	for (size_t i = s->at; i < t->nr; i++) {
		const struct ev *x = &t->v[t->r[i].at];
		if ((x->ip & EV_EXIT) && x->parent == e->ts)
			return (x->ip & (EV_EXIT | EV_UNWOUND)) == EV_EXIT && (x->ip & EV_SITE_MASK) == site ? &t->r[i]
				: NULL;
		if (!deep)
			return NULL;
	}
	return NULL;
}

/* The thread's next event (two for a leaf), written if shown. */
static void step(struct doc *d, struct tstate *s)
{
	struct thread *t = s->t;
	const struct rec *r = &t->r[s->at++];
	const struct ev *e = &t->v[r->at];
	const struct replay_opts *o = d->o;
	unsigned cpu = (unsigned)((e->ip >> EV_CPU_SHIFT) & EV_CPU_MASK);
	bool exit = e->ip & EV_EXIT;
	uint64_t site = e->ip & EV_SITE_MASK;
	const struct func *f = func_of(d->p, site);
	int style = d->style ? d->style : 2;
	if (!exit)
		style = e->ip & EV_GRAPH ? 2 : 1;
	bool graph = style == 2;
	if (exit && !graph && o->fmt != 1) {
		for (unsigned i = s->nopen; i-- > 0;)
			if (s->open[i] == e->parent) {
				s->nopen = i;
				break;
			}
		return;
	}
	if (!f) {
		d->untabled++;
		return;
	}
	const char *fn = f->name;
	double sec = ev_seconds(d->p, e->ts);
	static char args[65536], named[70000];
	if (!exit) {
		bool hooked = e->ip & EV_HOOKED;
		char pb[32];
		const char *pn = addr_name(d->p, e->parent, pb, sizeof pb);
		*args = 0;
		if (r->nslots)
			args_format(d->p, e + 1, r->nslots, o->fmt != 0, args, sizeof args);
		const struct rec *xr = s->at < t->nr ? &t->r[s->at] : NULL;
		const struct ev *x = xr ? &t->v[xr->at] : NULL;
		bool leaf = graph && hooked && x && (x->ip & (EV_EXIT | EV_UNWOUND)) == EV_EXIT && x->parent == e->ts &&
			(x->ip & EV_SITE_MASK) == site && o->fmt != 1;
		unsigned depth = s->nopen;
		bool gf = graph && gf_active(&o->gf);
		int gv = GF_SHOWN;
		if (gf) {
			/* (a leaf's return is left for gf_exit to drop) */
			gv = gf_entry(&o->gf, &s->gf, fn, e->ts, hooked, &depth);
			xr = gv == GF_SHOWN && hooked && o->fmt != 1 ? gf_leaf_exit(d, s, e, site) : NULL;
			x = xr ? &t->v[xr->at] : NULL;
			leaf = xr != NULL;
			if (leaf)
				gf_merged(&s->gf);
		}
		if (hooked && !leaf && s->nopen < sizeof s->open / sizeof *s->open)
			s->open[s->nopen++] = e->ts;
		if (leaf && !gf)
			s->at++;
		bool show = gf ? gv == GF_SHOWN && shown(d, fn, sec)
			: shown(d, fn, sec) && !(o->depth && graph && depth >= (unsigned long)o->depth);
		if (!show)
			return;
		char rv[24] = "";
		if (leaf && xr->nslots)
			mt_fmt_retval(rv, sizeof rv, t->v[xr->at + 1].ts);
		if (o->fmt == 1) {
			printf("{\"comm\":\"");
			json_str(stdout, t->comm);
			printf("\",\"tid\":%ld,\"cpu\":%u,\"ts\":", t->tid, cpu);
			uint64_t ns = (uint64_t)(sec * 1e9 + 0.5);
			printf("%llu.%09llu,\"func\":\"", (unsigned long long)(ns / 1000000000u),
			       (unsigned long long)(ns % 1000000000u));
			json_str(stdout, fn);
			printf("\",\"parent\":\"");
			json_str(stdout, pn);
			printf("\",\"addr\":\"0x%llx\",\"parent_addr\":\"0x%llx\"", (unsigned long long)f->addr,
			       (unsigned long long)e->parent);
			if (*args)
				printf(",\"args\":%s", args);
			if (graph && !hooked)
				printf(",\"noexit\":true");
			printf("}\n");
			return;
		}
		if (o->fmt == 2) {
			char *extra = named;
			*extra = 0;
			const char *inner = *args == '{' && args[1] != '}' ? args + 1 : NULL;
			if (graph && hooked) {
				if (inner)
					snprintf(extra, sizeof named, ",\"args\":{%.*s}", (int)strlen(inner) - 1, inner);
				else if (*args == '[')
					snprintf(extra, sizeof named, ",\"args\":{\"args\":%s}", args);
				chrome_event(d, s, 'B', fn, sec, extra);
				if (leaf) {
					char ex[64] = "";
					if (xr->nslots)
						snprintf(ex, sizeof ex, ",\"args\":{\"retval\":\"0x%llx\"}",
							 (unsigned long long)t->v[xr->at + 1].ts);
					chrome_event(d, s, 'E', fn, ev_seconds(d->p, x->ts), ex);
				}
				return;
			}
			int n = snprintf(extra, sizeof named, ",\"s\":\"t\",\"args\":{\"parent\":\"");
			(void)n;
			char *q = extra + strlen(extra);
			for (const char *c = pn; *c && q < extra + sizeof named - 64; c++) {
				if (*c == '"' || *c == '\\')
					*q++ = '\\';
				*q++ = *c;
			}
			*q = 0;
			if (inner)
				snprintf(q, sizeof named - (size_t)(q - extra), "\",%.*s}", (int)strlen(inner) - 1, inner);
			else if (*args == '[')
				snprintf(q, sizeof named - (size_t)(q - extra), "\",\"args\":%s}", args);
			else
				snprintf(q, sizeof named - (size_t)(q - extra), "\"}");
			chrome_event(d, s, 'i', fn, sec, extra);
			return;
		}
		header(d, style);
		if (!graph) {
			uint64_t us = (uint64_t)(sec * 1e6 + 0.5);
			printf("%s[%03u] %6llu.%06llu: %s%s <-%s\n", s->prefix, cpu, (unsigned long long)(us / 1000000),
			       (unsigned long long)(us % 1000000), fn, args, pn);
			return;
		}
		bool params = *args || strchr(fn, '(');
		if (*args) {
			snprintf(named, sizeof named, "%s%s", fn, args);
			fn = named;
		}
		if (leaf) {
			char tl[64];
			snprintf(tl, sizeof tl, "%s%s%s%s", params ? ";" : "();", *rv ? " /* = " : "", rv, *rv ? " */" : "");
			put_graph(d, s, cpu, true, ev_seconds(d->p, x->ts) - sec, depth, fn, tl);
			return;
		}
		put_graph(d, s, cpu, false, 0, depth, fn, hooked ? (params ? " {" : "() {") : (params ? ";" : "();"));
		return;
	}
	/* a return, or a frame left without one */
	bool unwound = e->ip & EV_UNWOUND;
	char rv[24] = "";
	if (r->nslots)
		mt_fmt_retval(rv, sizeof rv, e[1].ts);
	unsigned i = s->nopen;
	while (i > 0 && s->open[i - 1] != e->parent)
		i--;
	bool known = i > 0;
	if (known)
		s->nopen = i - 1;
	unsigned depth = known ? i - 1 : 0;
	if (graph && gf_active(&o->gf)) {
		int gv = gf_exit(&o->gf, &s->gf, e->parent, sec - ev_seconds(d->p, e->parent), unwound, &depth);
		known = gv == GF_SHOWN;
		if (gv == GF_NOT || !shown(d, fn, sec))
			return;
	} else if (!shown(d, fn, sec) || (o->depth && graph && depth >= (unsigned long)o->depth)) {
		return;
	}
	if (o->fmt == 1) {
		printf("{\"comm\":\"");
		json_str(stdout, t->comm);
		printf("\",\"tid\":%ld,\"cpu\":%u,\"ts\":%.9f,\"exit\":\"", t->tid, cpu, sec);
		json_str(stdout, fn);
		if (unwound)
			printf("\",\"addr\":\"0x%llx\",\"unwound\":true}\n", (unsigned long long)f->addr);
		else if (r->nslots)
			printf("\",\"addr\":\"0x%llx\",\"duration\":%.9f,\"retval\":\"0x%llx\"}\n",
			       (unsigned long long)f->addr, sec - ev_seconds(d->p, e->parent),
			       (unsigned long long)e[1].ts);
		else
			printf("\",\"addr\":\"0x%llx\",\"duration\":%.9f}\n", (unsigned long long)f->addr,
			       sec - ev_seconds(d->p, e->parent));
		return;
	}
	if (o->fmt == 2) {
		char ex[64] = "";
		if (unwound)
			snprintf(ex, sizeof ex, ",\"args\":{\"unwound\":true}");
		else if (r->nslots)
			snprintf(ex, sizeof ex, ",\"args\":{\"retval\":\"0x%llx\"}", (unsigned long long)e[1].ts);
		if (known)
			chrome_event(d, s, 'E', fn, sec, ex);
		return;
	}
	header(d, 2);
	snprintf(named, sizeof named, " /* %s%s%s%s */", fn, unwound ? ": unwound" : "", *rv ? " = " : "", rv);
	put_graph(d, s, cpu, !unwound, sec - ev_seconds(d->p, e->parent), depth, "}", named);
}

static void put_lost(struct doc *d, struct tstate *s)
{
	struct thread *t = s->t;
	s->lost_said = true;
	uint64_t n = t->lost + t->gap;
	if (!n)
		return;
	if (d->o->fmt == 2) {
		uint64_t ts = t->nr ? t->v[t->r[t->nr - 1].at].ts : 0;
		printf("%s{\"name\":\"lost events\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%ld,\"tid\":%ld,"
		       "\"ts\":%.3f,\"args\":{\"lost\":%llu}}", d->first ? "" : ",\n", d->p->pid, t->tid,
		       ev_seconds(d->p, ts) * 1e6, (unsigned long long)n);
		d->first = false;
	} else if (d->o->fmt == 1) {
		printf("{\"lost\":%llu,\"comm\":\"", (unsigned long long)n);
		json_str(stdout, t->comm);
		printf("\",\"tid\":%ld}\n", t->tid);
	} else {
		header(d, d->style ? d->style : 1);
		printf("%s[LOST %llu EVENTS]\n", s->prefix, (unsigned long long)n);
	}
}

/* Is thread a's next event before thread b's? */
static bool earlier(const struct tstate *s, size_t a, size_t b)
{
	uint64_t x = s[a].t->v[s[a].t->r[s[a].at].at].ts, y = s[b].t->v[s[b].t->r[s[b].at].at].ts;
	return x != y ? x < y : a < b;
}

void replay(struct proc *ps, size_t np, const struct replay_opts *o)
{
	struct doc d = { .o = o, .first = true };
	if (o->fmt == 2)
		fputs("{\"traceEvents\":[\n", stdout);
	for (size_t pi = 0; pi < np; pi++) {
		struct proc *p = &ps[pi];
		d.p = p;
		d.last = NULL;
		struct tstate *s = xmalloc((p->nt ? p->nt : 1) * sizeof *s);
		size_t ns = 0;
		for (size_t i = 0; i < p->nt; i++) {
			struct thread *t = &p->t[i];
			if (o->tid && t->tid != o->tid)
				continue;
			struct tstate *x = &s[ns++];
			memset(x, 0, sizeof *x);
			x->t = t;
			snprintf(x->prefix, sizeof x->prefix, "%16.16s-%-7ld ", t->comm, t->tid);
			char ct[80];
			snprintf(ct, sizeof ct, "%.63s-%ld", t->comm, t->tid);
			int sp = 14 - (int)strlen(ct);
			snprintf(x->gprefix, sizeof x->gprefix, "%*s%s%*s", sp > 0 ? sp / 2 : 0, "", ct,
				 sp > 0 ? sp - sp / 2 : 0, "");
			if (o->fmt == 2) {
				printf("%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%ld,\"tid\":%ld,\"args\":{\"name\":\"",
				       d.first ? "" : ",\n", p->pid, t->tid);
				json_str(stdout, t->comm);
				printf("\"}}");
				d.first = false;
			}
		}
		/* a thread that has nothing: its losses first */
		for (size_t i = 0; i < ns; i++)
			if (!s[i].t->nr)
				put_lost(&d, &s[i]);
		/* a heap of the threads with events left, by their next
		 * event's time (then by their order: the same times, the
		 * same output) */
		size_t *h = xmalloc((ns ? ns : 1) * sizeof *h), nh = 0;
		for (size_t i = 0; i < ns; i++)
			if (s[i].t->nr) {
				h[nh++] = i;
				for (size_t c = nh - 1; c && earlier(s, h[c], h[(c - 1) / 2]); c = (c - 1) / 2) {
					size_t x = h[c];
					h[c] = h[(c - 1) / 2];
					h[(c - 1) / 2] = x;
				}
			}
		while (nh) {
			struct tstate *next = &s[h[0]];
			step(&d, next);
			if (next->at >= next->t->nr) {
				if (!next->lost_said)
					put_lost(&d, next);
				h[0] = h[--nh];
			}
			for (size_t c = 0;;) {
				size_t l = 2 * c + 1, r = l + 1, m = c;
				if (l < nh && earlier(s, h[l], h[m]))
					m = l;
				if (r < nh && earlier(s, h[r], h[m]))
					m = r;
				if (m == c)
					break;
				size_t x = h[c];
				h[c] = h[m];
				h[m] = x;
				c = m;
			}
		}
		free(h);
		for (size_t i = 0; i < ns; i++)
			gf_thread_free(&s[i].gf);
		free(s);
	}
	if (o->fmt == 2)
		fputs("\n]}\n", stdout);
}
