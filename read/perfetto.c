/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perfetto.c - replay --format=perfetto: a recording's events as a
 * Perfetto trace in its own protobuf form, written here (no library).
 *
 * The file is one Trace message: a TracePacket after another, each as
 * field 1 of Trace.  Per process a packet with its TrackDescriptor
 * (ProcessDescriptor: pid, the program); per thread a sequence of its
 * own (trusted_packet_sequence_id): first its TrackDescriptor
 * (ThreadDescriptor: pid, tid, comm; parent the process's track), with
 * SEQ_INCREMENTAL_STATE_CLEARED, then its events, each with
 * SEQ_NEEDS_INCREMENTAL_STATE: a function_graph entry whose exit was
 * hooked is TYPE_SLICE_BEGIN, its exit TYPE_SLICE_END (a frame left
 * without its exit ends where an outer frame's exit comes); any other
 * entry, the function tracer's, is TYPE_INSTANT.  Event names are
 * interned: a name's iid (one per name for the whole file) is given in
 * InternedData.event_names on the first packet of a sequence that uses
 * it.  Timestamps are nanoseconds of the recording's clock, converted as
 * replay converts them (ev_ns), given on Perfetto's default clock
 * (BOOTTIME: the file has one clock, so it needs no other); small, as
 * Perfetto's own writer makes them: the thread's descriptor packet sets
 * the sequence's defaults (TracePacketDefaults: its track, and clock 64,
 * the sequence's own), a ClockSnapshot before its first event says
 * that clock 64 is incremental and where it starts, and each event's
 * timestamp is then the time since the sequence's last one (an event
 * earlier than that, which a thread's events never are, has its
 * absolute time on the default clock).
 * Arguments and return values are debug annotations: "args" (the text
 * replay writes), "retval", "unwound"; losses an instant "lost events"
 * with "lost".
 *
 * The field numbers, from Perfetto's .proto files (protos/perfetto/trace/
 * in its source tree: trace.proto, trace_packet.proto, track_event/
 * track_descriptor.proto, process_descriptor.proto, thread_descriptor.proto,
 * track_event.proto, debug_annotation.proto, interned_data/
 * interned_data.proto), the stable public part of the format:
 *   Trace             packet 1 (TracePacket, repeated)
 *   TracePacket       clock_snapshot 6, timestamp 8,
 *                     trusted_packet_sequence_id 10, track_event 11,
 *                     interned_data 12, sequence_flags 13
 *                     (SEQ_INCREMENTAL_STATE_CLEARED 1,
 *                     SEQ_NEEDS_INCREMENTAL_STATE 2), timestamp_clock_id 58,
 *                     trace_packet_defaults 59, track_descriptor 60
 *   TracePacketDefaults  track_event_defaults 11 (TrackEventDefaults:
 *                     track_uuid 11), timestamp_clock_id 58
 *   ClockSnapshot     clocks 1 (Clock: clock_id 1, timestamp 2,
 *                     is_incremental 3); BOOTTIME 6; 64 to 127: a
 *                     sequence's own clocks
 *   TrackDescriptor   uuid 1, name 2, process 3, thread 4, parent_uuid 5
 *   ProcessDescriptor pid 1, cmdline 2, process_name 6
 *   ThreadDescriptor  pid 1, tid 2, thread_name 5
 *   TrackEvent        debug_annotations 4, type 9 (TYPE_SLICE_BEGIN 1,
 *                     TYPE_SLICE_END 2, TYPE_INSTANT 3), name_iid 10,
 *                     track_uuid 11
 *   InternedData      event_names 2 (EventName: iid 1, name 2)
 *   DebugAnnotation   bool_value 2, uint_value 3, string_value 6, name 10
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read.h"

enum {
	TRACE_PACKET = 1,
	PKT_CLOCK_SNAPSHOT = 6, PKT_TIMESTAMP = 8, PKT_SEQUENCE = 10, PKT_TRACK_EVENT = 11, PKT_INTERNED = 12, PKT_FLAGS = 13,
	PKT_CLOCK_ID = 58, PKT_DEFAULTS = 59, PKT_TRACK_DESCRIPTOR = 60,
	DEF_TRACK_EVENT = 11, DEF_CLOCK_ID = 58, TED_TRACK = 11,
	CS_CLOCKS = 1, CLK_ID = 1, CLK_TIMESTAMP = 2, CLK_INCREMENTAL = 3,
	CLOCK_BOOTTIME = 6, CLOCK_SEQUENCE = 64,
	SEQ_CLEARED = 1, SEQ_NEEDS = 2,
	TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT = 5,
	PD_PID = 1, PD_CMDLINE = 2, PD_NAME = 6,
	THD_PID = 1, THD_TID = 2, THD_NAME = 5,
	TE_ANNOTATION = 4, TE_TYPE = 9, TE_NAME_IID = 10,
	TYPE_BEGIN = 1, TYPE_END = 2, TYPE_INSTANT = 3,
	ID_EVENT_NAMES = 2, EN_IID = 1, EN_NAME = 2,
	DA_BOOL = 2, DA_UINT = 3, DA_STRING = 6, DA_NAME = 10,
};

enum { VARINT = 0, LEN = 2 };

struct buf {
	unsigned char *b;
	size_t n, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->b = xrealloc(b->b, b->cap);
	}
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void varint(struct buf *b, uint64_t v)
{
	unsigned char x[10];
	size_t n = 0;
	do {
		x[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			x[n] |= 0x80;
		n++;
	} while (v);
	put(b, x, n);
}

static void tag(struct buf *b, unsigned field, unsigned wire)
{
	varint(b, (uint64_t)field << 3 | wire);
}

/* An integer field (int32, int64: a negative one as its 64 bits are) */
static void num(struct buf *b, unsigned field, uint64_t v)
{
	tag(b, field, VARINT);
	varint(b, v);
}

static void bytes(struct buf *b, unsigned field, const void *p, size_t n)
{
	tag(b, field, LEN);
	varint(b, n);
	put(b, p, n);
}

static void str(struct buf *b, unsigned field, const char *s)
{
	bytes(b, field, s, strlen(s));
}

static void msg(struct buf *b, unsigned field, const struct buf *m)
{
	bytes(b, field, m->b, m->n);
}

/* A thread's sequence: its track, the names given on it, its open
 * frames (the entry's time, and whether its slice was begun). */
struct pf_seq {
	uint32_t seq;
	uint64_t uuid;
	bool started;
	bool clocked;                 /* clock 64's snapshot given */
	int64_t last;                 /* clock 64: the last event's time */
	unsigned char *sent;          /* a bit an iid: its name given here */
	size_t nsent;                 /* bytes of sent */
	struct frame { uint64_t ts; bool begun; } *open;
	size_t nopen, capopen;
};

struct name { char *s; uint64_t iid; };

struct perfetto {
	FILE *out;
	uint32_t next_seq;
	uint64_t next_uuid, next_iid;
	struct name *h;               /* every name interned: open addressing */
	size_t hcap, hn;
	const struct proc *p;         /* the process of the events now */
	uint64_t *iid_of;             /* of p's functions, by index; 0: none yet */
	uint64_t proc_uuid;
	struct pf_seq **seqs;         /* p's threads' */
	size_t nseqs;
	struct buf pkt, body, inner, interned, ann, defaults;
};

struct perfetto *perfetto_open(FILE *out)
{
	struct perfetto *pf = xmalloc(sizeof *pf);
	memset(pf, 0, sizeof *pf);
	pf->out = out;
	pf->next_seq = 1;
	pf->next_uuid = 1;
	pf->next_iid = 1;
	pf->hcap = 1024;
	pf->h = xmalloc(pf->hcap * sizeof *pf->h);
	memset(pf->h, 0, pf->hcap * sizeof *pf->h);
	return pf;
}

/* The name's iid, the same for the whole file. */
static uint64_t intern(struct perfetto *pf, const char *s)
{
	if (2 * (pf->hn + 1) > pf->hcap) {
		struct name *old = pf->h;
		size_t oc = pf->hcap;
		pf->hcap *= 2;
		pf->h = xmalloc(pf->hcap * sizeof *pf->h);
		memset(pf->h, 0, pf->hcap * sizeof *pf->h);
		for (size_t i = 0; i < oc; i++)
			if (old[i].s) {
				size_t k = name_hash(0, old[i].s) & (pf->hcap - 1);
				while (pf->h[k].s)
					k = (k + 1) & (pf->hcap - 1);
				pf->h[k] = old[i];
			}
		free(old);
	}
	size_t k = name_hash(0, s) & (pf->hcap - 1);
	for (; pf->h[k].s; k = (k + 1) & (pf->hcap - 1))
		if (!strcmp(pf->h[k].s, s))
			return pf->h[k].iid;
	pf->h[k].s = xstrdup(s);
	pf->h[k].iid = pf->next_iid++;
	pf->hn++;
	return pf->h[k].iid;
}

/* One packet on sequence s: timestamp ts (if ts >= 0) on clock (0: the
 * sequence's default), the sequence's flags, the defaults and interned
 * data if any, the body as field. */
static void packet(struct perfetto *pf, struct pf_seq *s, int64_t ts, unsigned clock, unsigned field,
		   const struct buf *body)
{
	struct buf *k = &pf->pkt;
	k->n = 0;
	if (ts >= 0)
		num(k, PKT_TIMESTAMP, (uint64_t)ts);
	if (clock)
		num(k, PKT_CLOCK_ID, clock);
	num(k, PKT_SEQUENCE, s->seq);
	num(k, PKT_FLAGS, s->started ? SEQ_NEEDS : SEQ_CLEARED);
	s->started = true;
	if (pf->defaults.n)
		msg(k, PKT_DEFAULTS, &pf->defaults);
	if (pf->interned.n)
		msg(k, PKT_INTERNED, &pf->interned);
	msg(k, field, body);
	pf->interned.n = 0;
	pf->defaults.n = 0;
	/* Trace's field 1, its length, the packet */
	unsigned char hd[11];
	size_t n = 0;
	hd[n++] = TRACE_PACKET << 3 | LEN;
	for (uint64_t v = k->n;; v >>= 7) {
		hd[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		if (v <= 0x7f)
			break;
	}
	fwrite(hd, 1, n, pf->out);
	fwrite(k->b, 1, k->n, pf->out);
}

static struct pf_seq *new_seq(struct perfetto *pf)
{
	struct pf_seq *s = xmalloc(sizeof *s);
	memset(s, 0, sizeof *s);
	s->seq = pf->next_seq++;
	s->uuid = pf->next_uuid++;
	pf->seqs = xrealloc(pf->seqs, (pf->nseqs + 1) * sizeof *pf->seqs);
	pf->seqs[pf->nseqs++] = s;
	return s;
}

static void end_process(struct perfetto *pf)
{
	for (size_t i = 0; i < pf->nseqs; i++) {
		free(pf->seqs[i]->sent);
		free(pf->seqs[i]->open);
		free(pf->seqs[i]);
	}
	free(pf->seqs);
	pf->seqs = NULL;
	pf->nseqs = 0;
	free(pf->iid_of);
	pf->iid_of = NULL;
	pf->p = NULL;
}

/* The process's track: a sequence of its own, one packet. */
void perfetto_process(struct perfetto *pf, const struct proc *p)
{
	end_process(pf);
	pf->p = p;
	pf->iid_of = xmalloc((p->nf ? p->nf : 1) * sizeof *pf->iid_of);
	memset(pf->iid_of, 0, (p->nf ? p->nf : 1) * sizeof *pf->iid_of);
	struct pf_seq *s = new_seq(pf);
	pf->proc_uuid = s->uuid;
	struct buf *in = &pf->inner, *b = &pf->body;
	in->n = b->n = 0;
	num(in, PD_PID, (uint64_t)(int64_t)p->pid);
	if (p->program) {
		str(in, PD_CMDLINE, p->program);
		str(in, PD_NAME, p->program);
	}
	num(b, TD_UUID, s->uuid);
	msg(b, TD_PROCESS, in);
	packet(pf, s, -1, 0, PKT_TRACK_DESCRIPTOR, b);
}

/* A thread's sequence and track, its descriptor written. */
struct pf_seq *perfetto_thread(struct perfetto *pf, const struct proc *p, const struct thread *t)
{
	struct pf_seq *s = new_seq(pf);
	struct buf *in = &pf->inner, *b = &pf->body;
	in->n = b->n = 0;
	num(in, THD_PID, (uint64_t)(int64_t)p->pid);
	num(in, THD_TID, (uint64_t)(int64_t)t->tid);
	str(in, THD_NAME, t->comm);
	num(b, TD_UUID, s->uuid);
	num(b, TD_PARENT, pf->proc_uuid);
	msg(b, TD_THREAD, in);
	/* the sequence's defaults: this track, clock 64 */
	in->n = 0;
	num(in, TED_TRACK, s->uuid);
	msg(&pf->defaults, DEF_TRACK_EVENT, in);
	num(&pf->defaults, DEF_CLOCK_ID, CLOCK_SEQUENCE);
	packet(pf, s, -1, 0, PKT_TRACK_DESCRIPTOR, b);
	return s;
}

/* The iid of name, its EventName added to the packet's interned data
 * if the sequence has not had it. */
static uint64_t name_on(struct perfetto *pf, struct pf_seq *s, uint64_t iid, const char *name)
{
	size_t byte = (size_t)(iid / 8);
	if (byte >= s->nsent) {
		size_t n = (byte + 1) * 2;
		s->sent = xrealloc(s->sent, n);
		memset(s->sent + s->nsent, 0, n - s->nsent);
		s->nsent = n;
	}
	unsigned bit = 1u << (iid % 8);
	if (!(s->sent[byte] & bit)) {
		s->sent[byte] |= (unsigned char)bit;
		struct buf *in = &pf->inner;
		in->n = 0;
		num(in, EN_IID, iid);
		str(in, EN_NAME, name);
		msg(&pf->interned, ID_EVENT_NAMES, in);
	}
	return iid;
}

static void annotation(struct perfetto *pf, const char *name, int kind, uint64_t v, const char *sv)
{
	struct buf *a = &pf->ann;
	a->n = 0;
	str(a, DA_NAME, name);
	if (kind == DA_STRING)
		str(a, DA_STRING, sv);
	else
		num(a, (unsigned)kind, v);
	msg(&pf->body, TE_ANNOTATION, a);
}

/* Clock 64 of the sequence: incremental, at ns (BOOTTIME's ns) */
static void clock_snapshot(struct perfetto *pf, struct pf_seq *s, int64_t ns)
{
	struct buf cs = { 0 }, c = { 0 };
	num(&c, CLK_ID, CLOCK_BOOTTIME);
	num(&c, CLK_TIMESTAMP, (uint64_t)ns);
	msg(&cs, CS_CLOCKS, &c);
	c.n = 0;
	num(&c, CLK_ID, CLOCK_SEQUENCE);
	num(&c, CLK_TIMESTAMP, (uint64_t)ns);
	num(&c, CLK_INCREMENTAL, 1);
	msg(&cs, CS_CLOCKS, &c);
	struct buf saved = pf->interned;
	pf->interned = (struct buf){ 0 };
	packet(pf, s, ns, CLOCK_BOOTTIME, PKT_CLOCK_SNAPSHOT, &cs);
	pf->interned = saved;
	free(cs.b);
	free(c.b);
	s->clocked = true;
	s->last = ns;
}

/* The event (its annotations in body already) on the sequence's track
 * (its default), its time since the last one on clock 64. */
static void event(struct perfetto *pf, struct pf_seq *s, int64_t ns, unsigned type, uint64_t iid)
{
	struct buf *b = &pf->body;
	num(b, TE_TYPE, type);
	if (iid)
		num(b, TE_NAME_IID, iid);
	if (ns >= 0 && !s->clocked)
		clock_snapshot(pf, s, ns);
	if (ns >= 0 && ns >= s->last) {
		packet(pf, s, ns - s->last, 0, PKT_TRACK_EVENT, b);
		s->last = ns;
	} else {
		packet(pf, s, ns, CLOCK_BOOTTIME, PKT_TRACK_EVENT, b);
	}
}

/* replay's filters: the function's name, the time */
/* A thread's event e with its payload (nslots slots), in its turn. */
void perfetto_event(struct perfetto *pf, struct pf_seq *s, const struct ev *e, const struct ev *slots, size_t nslots,
		    const struct replay_opts *o)
{
	const struct proc *p = pf->p;
	const struct func *f = func_of(p, e->ip & EV_SITE_MASK);
	int64_t ns = ev_ns(p, e->ts);
	pf->body.n = 0;
	if (!(e->ip & EV_EXIT)) {
		bool graph = e->ip & EV_GRAPH, begin = graph && (e->ip & EV_HOOKED);
		size_t depth = s->nopen;
		bool show = f && replay_shown(o, f->name, ev_seconds(p, e->ts)) && !(o->depth && graph && depth >= (unsigned long)o->depth);
		if (begin) {
			if (s->nopen == s->capopen) {
				s->capopen = s->capopen ? 2 * s->capopen : 64;
				s->open = xrealloc(s->open, s->capopen * sizeof *s->open);
			}
			s->open[s->nopen++] = (struct frame){ e->ts, show };
		}
		if (!show)
			return;
		size_t k = (size_t)(f - p->f);
		if (!pf->iid_of[k])
			pf->iid_of[k] = intern(pf, f->name);
		uint64_t iid = name_on(pf, s, pf->iid_of[k], f->name);
		if (nslots) {
			static char args[65536];
			if (args_format(p, slots, nslots, false, args, sizeof args))
				annotation(pf, "args", DA_STRING, 0, args);
		}
		event(pf, s, ns, begin ? TYPE_BEGIN : TYPE_INSTANT, iid);
		return;
	}
	/* an exit: its entry's frame, and the frames above it left
	 * without theirs, end here */
	size_t i = s->nopen;
	while (i > 0 && s->open[i - 1].ts != e->parent)
		i--;
	if (!i)
		return;
	while (s->nopen >= i) {
		struct frame *fr = &s->open[--s->nopen];
		if (!fr->begun)
			continue;
		pf->body.n = 0;
		if (s->nopen == i - 1) {
			if (e->ip & EV_UNWOUND) {
				annotation(pf, "unwound", DA_BOOL, 1, NULL);
			} else if (nslots) {
				char rv[24];
				mt_fmt_retval(rv, sizeof rv, slots[0].ts);
				annotation(pf, "retval", DA_STRING, 0, rv);
			}
		}
		event(pf, s, ns, TYPE_END, 0);
	}
}

/* The thread's losses: an instant at ts, "lost events", lost N. */
void perfetto_lost(struct perfetto *pf, struct pf_seq *s, uint64_t ts, uint64_t n)
{
	static const char name[] = "lost events";
	uint64_t iid = name_on(pf, s, intern(pf, name), name);
	pf->body.n = 0;
	annotation(pf, "lost", DA_UINT, n, NULL);
	event(pf, s, ev_ns(pf->p, ts), TYPE_INSTANT, iid);
}

void perfetto_close(struct perfetto *pf)
{
	end_process(pf);
	for (size_t i = 0; i < pf->hcap; i++)
		free(pf->h[i].s);
	free(pf->h);
	free(pf->pkt.b);
	free(pf->body.b);
	free(pf->inner.b);
	free(pf->interned.b);
	free(pf->ann.b);
	free(pf->defaults.b);
	free(pf);
}
