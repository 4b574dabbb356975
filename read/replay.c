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
	struct cursor *c;
	struct event cur;             /* the next event (has) */
	bool has;
	uint64_t last_ts;             /* the last event's */
	uint64_t open[4096];          /* the entries' times, outermost first */
	unsigned nopen;
	char prefix[64], gprefix[112];
	bool lost_said;
	struct pf_seq *pf;            /* perfetto: the thread's sequence */
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
	struct perfetto *pf;          /* perfetto: the file's state */
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
bool replay_shown(const struct replay_opts *o, const char *fn, double sec)
{
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

static void advance(struct tstate *s)
{
	s->has = cur_next(s->c, &s->cur);
	if (s->has)
		s->last_ts = s->cur.e.ts;
}

/* With function_graph's filters (gfilter.c): the return of the entry e
 * just read, when no traced call comes between them (a leaf), into *x
 * (its return value, if it has one, into *value); false if there is none.  The
 * thread's cursor stays: a second one looks ahead, as far as the return
 * when the filters leave out every call under e (the depth), else one
 * event. */
static bool gf_leaf_exit(const struct doc *d, const struct tstate *s, const struct ev *e, uint64_t site,
			 struct ev *x, bool *has_value, uint64_t *value)
{
	if (!s->has)
		return false;
	bool deep = gf_leaf_by_depth(&d->o->gf, &s->gf);
	const struct event *n = &s->cur;
	struct cursor *ahead = NULL;
	struct event ev;
	bool found = false;
	for (;;) {
		const struct ev *y = &n->e;
		if ((y->ip & EV_EXIT) && y->parent == e->ts) {
			found = (y->ip & (EV_EXIT | EV_UNWOUND)) == EV_EXIT && (y->ip & EV_SITE_MASK) == site;
			if (found) {
				*x = *y;
				*has_value = n->nslots > 0;
				*value = *has_value ? n->slots[0].ts : 0;
			}
			break;
		}
		if (!deep)
			break;
		if (!ahead)
			ahead = cur_dup(s->c);
		if (!cur_next(ahead, &ev))
			break;
		n = &ev;
	}
	cur_close(ahead);
	return found;
}

/* The thread's next event (two for a leaf), written if shown. */
static void step(struct doc *d, struct tstate *s)
{
	struct thread *t = s->t;
	const struct ev ev = s->cur.e, *e = &ev;
	size_t nslots = s->cur.nslots;
	const struct replay_opts *o = d->o;
	if (o->fmt == 3) {
		perfetto_event(d->pf, s->pf, e, s->cur.slots, nslots, o);
		advance(s);
		return;
	}
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
		advance(s);
		return;
	}
	if (!f) {
		d->untabled++;
		advance(s);
		return;
	}
	const char *fn = f->name;
	double sec = ev_seconds(d->p, e->ts);
	static char args[65536], named[70000];
	/* (the payload read before the cursor moves on) */
	*args = 0;
	if (!exit && nslots)
		args_format(d->p, s->cur.slots, nslots, o->fmt != 0, args, sizeof args);
	uint64_t value = exit && nslots ? s->cur.slots[0].ts : 0;
	advance(s);
	if (!exit) {
		bool hooked = e->ip & EV_HOOKED;
		char pb[32];
		const char *pn = addr_name(d->p, e->parent, pb, sizeof pb);
		const struct event *xr = s->has ? &s->cur : NULL;
		const struct ev *x = xr ? &xr->e : NULL;
		bool has_rv = xr && xr->nslots;
		uint64_t x_value = has_rv ? xr->slots[0].ts : 0;
		uint64_t x_ts = x ? x->ts : 0;
		bool leaf = graph && hooked && x && (x->ip & (EV_EXIT | EV_UNWOUND)) == EV_EXIT && x->parent == e->ts &&
			(x->ip & EV_SITE_MASK) == site && o->fmt != 1;
		unsigned depth = s->nopen;
		bool gf = graph && gf_active(&o->gf);
		int gv = GF_SHOWN;
		struct ev gx;
		if (gf) {
			/* (a leaf's return is left for gf_exit to drop) */
			gv = gf_entry(&o->gf, &s->gf, fn, e->ts, hooked, &depth);
			leaf = gv == GF_SHOWN && hooked && o->fmt != 1 &&
				gf_leaf_exit(d, s, e, site, &gx, &has_rv, &x_value);
			has_rv = leaf && has_rv;
			x = leaf ? &gx : NULL;
			x_ts = leaf ? gx.ts : 0;
			if (leaf)
				gf_merged(&s->gf);
		}
		if (hooked && !leaf && s->nopen < sizeof s->open / sizeof *s->open)
			s->open[s->nopen++] = e->ts;
		if (leaf && !gf)
			advance(s);
		/* (--depth is the graph filters': gf for function_graph) */
		bool show = (!gf || gv == GF_SHOWN) && replay_shown(o, fn, sec);
		if (!show)
			return;
		char rv[24] = "";
		if (leaf && has_rv)
			mt_fmt_retval(rv, sizeof rv, x_value);
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
					if (has_rv)
						snprintf(ex, sizeof ex, ",\"args\":{\"retval\":\"0x%llx\"}",
							 (unsigned long long)x_value);
					chrome_event(d, s, 'E', fn, ev_seconds(d->p, x_ts), ex);
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
			put_graph(d, s, cpu, true, ev_seconds(d->p, x_ts) - sec, depth, fn, tl);
			return;
		}
		put_graph(d, s, cpu, false, 0, depth, fn, hooked ? (params ? " {" : "() {") : (params ? ";" : "();"));
		return;
	}
	/* a return, or a frame left without one */
	bool unwound = e->ip & EV_UNWOUND;
	char rv[24] = "";
	if (nslots)
		mt_fmt_retval(rv, sizeof rv, value);
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
		if (gv == GF_NOT || !replay_shown(o, fn, sec))
			return;
	} else if (!replay_shown(o, fn, sec)) {
		return;
	}
	if (o->fmt == 1) {
		printf("{\"comm\":\"");
		json_str(stdout, t->comm);
		printf("\",\"tid\":%ld,\"cpu\":%u,\"ts\":%.9f,\"exit\":\"", t->tid, cpu, sec);
		json_str(stdout, fn);
		if (unwound)
			printf("\",\"addr\":\"0x%llx\",\"unwound\":true}\n", (unsigned long long)f->addr);
		else if (nslots)
			printf("\",\"addr\":\"0x%llx\",\"duration\":%.9f,\"retval\":\"0x%llx\"}\n",
			       (unsigned long long)f->addr, sec - ev_seconds(d->p, e->parent),
			       (unsigned long long)value);
		else
			printf("\",\"addr\":\"0x%llx\",\"duration\":%.9f}\n", (unsigned long long)f->addr,
			       sec - ev_seconds(d->p, e->parent));
		return;
	}
	if (o->fmt == 2) {
		char ex[64] = "";
		if (unwound)
			snprintf(ex, sizeof ex, ",\"args\":{\"unwound\":true}");
		else if (nslots)
			snprintf(ex, sizeof ex, ",\"args\":{\"retval\":\"0x%llx\"}", (unsigned long long)value);
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
	if (d->o->fmt == 3) {
		perfetto_lost(d->pf, s->pf, s->last_ts, n);
	} else if (d->o->fmt == 2) {
		uint64_t ts = s->last_ts;
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
	uint64_t x = s[a].cur.e.ts, y = s[b].cur.e.ts;
	return x != y ? x < y : a < b;
}

void replay(struct proc *ps, size_t np, const struct replay_opts *o)
{
	struct doc d = { .o = o, .first = true };
	if (o->fmt == 2)
		fputs("{\"traceEvents\":[\n", stdout);
	if (o->fmt == 3)
		d.pf = perfetto_open(stdout);
	for (size_t pi = 0; pi < np; pi++) {
		struct proc *p = &ps[pi];
		d.p = p;
		d.last = NULL;
		if (d.pf)
			perfetto_process(d.pf, p);
		struct tstate *s = xmalloc((p->nt ? p->nt : 1) * sizeof *s);
		size_t ns = 0;
		for (size_t i = 0; i < p->nt; i++) {
			struct thread *t = &p->t[i];
			if (o->tid && t->tid != o->tid)
				continue;
			struct tstate *x = &s[ns++];
			memset(x, 0, sizeof *x);
			x->t = t;
			x->c = cur_open(p, t);
			advance(x);
			if (d.pf)
				x->pf = perfetto_thread(d.pf, p, t);
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
			if (!s[i].has)
				put_lost(&d, &s[i]);
		/* a heap of the threads with events left, by their next
		 * event's time (then by their order: the same times, the
		 * same output) */
		size_t *h = xmalloc((ns ? ns : 1) * sizeof *h), nh = 0;
		for (size_t i = 0; i < ns; i++)
			if (s[i].has) {
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
			if (!next->has) {
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
		for (size_t i = 0; i < ns; i++) {
			cur_close(s[i].c);
			gf_thread_free(&s[i].gf);
		}
		free(s);
	}
	if (o->fmt == 2)
		fputs("\n]}\n", stdout);
	if (d.pf)
		perfetto_close(d.pf);
}
