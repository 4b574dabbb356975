/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sites.c - the call sites and functions, and the filters that choose them.
 *
 * Every entry of every loaded object's __mcount_loc table is checked to
 * be a call to the hook (mt_arch.decode) before it is ever written; an
 * entry that is not is reported once and never touched.  Each good site
 * belongs to the function symbol that holds it.  A filter only sets
 * the tracer's bit (MT_TRACED) and notrace on functions; mt_apply()
 * (patch.c) makes the code follow,
 * called by what set them.
 * The filters given so far are kept and replayed on the functions of
 * objects loaded later, so that dlopen()ed code obeys them too.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* Recursive: a library's destructors, run inside dlclose(), which holds
 * the pass lock, may call the API (rt.h: the order of the locks). */
struct mt_registry mt_reg = { .pass = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
			      .lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP };
_Atomic(struct mt_view *) mt_view;
bool mt_raw_pending;

/* The filters applied so far, in order. */
struct rule {
	char *glob;
	char *mod;                    /* NULL: any object */
	int what;                     /* 1 enable, 0 disable, 2 notrace */
};
static struct rule *rules;
static size_t nrules;

/* The first site of v at or after addr. */
static size_t lower_bound(const struct mt_view *v, uintptr_t addr)
{
	size_t lo = 0, hi = v->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v->sites[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct mt_site *mt_site_at(uintptr_t addr)
{
	struct mt_view *v = atomic_load_explicit(&mt_view, memory_order_acquire);
	if (!v)
		return NULL;
	size_t i = lower_bound(v, addr);
	return i < v->n && v->sites[i].addr == addr ? &v->sites[i] : NULL;
}

const struct mt_site *mt_func_site(const struct mt_func *f)
{
	struct mt_view *v = atomic_load_explicit(&mt_view, memory_order_acquire);
	if (!v)
		return NULL;
	/* its sites follow its address, a few instructions on (the prologue) */
	uint32_t fi = (uint32_t)(f - mt_reg.funcs);
	for (size_t i = lower_bound(v, f->addr), n = 0; i < v->n && n < 64; i++, n++)
		if (v->sites[i].func == fi)
			return &v->sites[i];
	return NULL;
}

/* Sites of unloaded objects, for naming the events they recorded
 * before they went (a dlclose() between two drains). */
static struct mt_view *grave;

static const struct mt_site *before_in(const struct mt_view *v, uintptr_t ret)
{
	if (!v)
		return NULL;
	size_t lo = lower_bound(v, ret);
	/* (a site whose call is elsewhere, before it: the first after ret) */
	if (lo < v->n && v->sites[lo].ret_at && mt_site_ret(&v->sites[lo]) == ret)
		return &v->sites[lo];
	if (!lo)
		return NULL;
	const struct mt_site *s = &v->sites[lo - 1];
	return mt_site_ret(s) == ret ? s : NULL;
}

const struct mt_site *mt_site_before(uintptr_t ret)
{
	const struct mt_site *s = before_in(atomic_load_explicit(&mt_view, memory_order_acquire), ret);
	return s ? s : before_in(grave, ret);
}

static int site_cmp(const void *a, const void *b)
{
	const struct mt_site *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* C++ names as people read them, from the demangler of the C++ runtime
 * the program has loaded (none in a C program: names stay as they are).
 * A cache from the symbol's name (a pointer into a file that stays
 * mapped) to its demangled form; registry lock held. */
static char *(*cxa_demangle)(const char *, char *, size_t *, int *);
static int demangle_state;            /* 0: not looked for, 1: found, -1: off */
struct shown {
	const char *raw;
	char *name;
};
static struct shown *shown_tab;
static size_t shown_cap, shown_n;

const char *mt_shown(const char *raw)
{
	if (raw[0] != '_' || raw[1] != 'Z' || demangle_state < 0)
		return raw;
	if (!demangle_state) {
		const char *e = mt_env("MCOUNT_TRACE_DEMANGLE");
		cxa_demangle = e && !strcmp(e, "0") ? NULL
			: (char *(*)(const char *, char *, size_t *, int *))dlsym(RTLD_DEFAULT, "__cxa_demangle");
		demangle_state = cxa_demangle ? 1 : -1;
		if (!cxa_demangle)
			return raw;
	}
	size_t h = ((uintptr_t)raw >> 3) * 0x9e3779b97f4a7c15u;
	for (size_t i = shown_cap ? h & (shown_cap - 1) : 0; shown_cap; i = (i + 1) & (shown_cap - 1)) {
		if (shown_tab[i].raw == raw)
			return shown_tab[i].name ? shown_tab[i].name : raw;
		if (!shown_tab[i].raw)
			break;
	}
	if ((shown_n + 1) * 2 > shown_cap) {
		size_t cap = shown_cap ? shown_cap * 2 : 1024;
		struct shown *nt = calloc(cap, sizeof *nt);
		if (!nt)
			return raw;
		for (size_t j = 0; j < shown_cap; j++) {
			if (!shown_tab[j].raw)
				continue;
			size_t k = (((uintptr_t)shown_tab[j].raw >> 3) * 0x9e3779b97f4a7c15u) & (cap - 1);
			while (nt[k].raw)
				k = (k + 1) & (cap - 1);
			nt[k] = shown_tab[j];
		}
		free(shown_tab);
		shown_tab = nt;
		shown_cap = cap;
	}
	int status = -1;
	char *d = NULL;
	size_t base = strcspn(raw, "@");
	char *plain = raw[base] ? strndup(raw, base) : NULL;   /* name@VERSION */
	if (!raw[base] || plain)
		d = cxa_demangle(plain ? plain : raw, NULL, NULL, &status);
	free(plain);
	if (status != 0) {
		free(d);
		d = NULL;                     /* not a name it knows: shown as it is */
	} else if (raw[base]) {
		char *dv = NULL;
		if (asprintf(&dv, "%s%s", d, raw + base) < 0)
			dv = NULL;
		free(d);
		d = dv;
	}
	size_t i = h & (shown_cap - 1);
	while (shown_tab[i].raw)
		i = (i + 1) & (shown_cap - 1);
	shown_tab[i] = (struct shown){ raw, d };
	shown_n++;
	return d ? d : raw;
}

/* A glob matches a function's symbol name (as shown: its plain name,
 * or name@VERSION), one of its versioned names, or its demangled name. */
bool mt_func_matches(const char *glob, const char *mod, const struct mt_func *f)
{
	if (mod && fnmatch(mod, mt_reg.objs[f->obj]->name, 0))
		return false;
	if (!fnmatch(glob, f->name, 0))
		return true;
	for (const char *const *a = f->alias; a && *a; a++)
		if (!fnmatch(glob, *a, 0))
			return true;
	const char *d = mt_shown(f->name);
	return d != f->name && !fnmatch(glob, d, 0);
}

static bool matches(const struct rule *r, const struct mt_func *f)
{
	return mt_func_matches(r->glob, r->mod, f);
}

/* The functions by name, for filters: a glob's literal prefix narrows
 * them to a range found by binary search, so that enabling one function
 * of ten thousand does not match ten thousand names. */
static uint32_t *by_name;
static size_t nby_name;

/* Functions whose flag changed since the last pass (mt_apply visits only
 * their sites), unless every site is to be looked at. */
static uint32_t *dirty;
static size_t ndirty, dirty_cap;
static bool all_dirty = true;

static int name_cmp(const void *a, const void *b)
{
	return strcmp(mt_reg.funcs[*(const uint32_t *)a].name, mt_reg.funcs[*(const uint32_t *)b].name);
}

/* The same for the functions whose demangled name differs. */
static uint32_t *by_shown;
static size_t nby_shown;

static int shown_cmp(const void *a, const void *b)
{
	return strcmp(mt_shown(mt_reg.funcs[*(const uint32_t *)a].name),
		      mt_shown(mt_reg.funcs[*(const uint32_t *)b].name));
}

/* The functions with versioned names (a few an object: its interface). */
static uint32_t *by_alias;
static size_t nby_alias;

static void index_names(void)
{
	uint32_t *nv = realloc(by_name, (mt_reg.nfuncs + 1) * sizeof *nv);
	uint32_t *sv = realloc(by_shown, (mt_reg.nfuncs + 1) * sizeof *sv);
	uint32_t *av = realloc(by_alias, (mt_reg.nfuncs + 1) * sizeof *av);
	if (nv)
		by_name = nv;
	if (sv)
		by_shown = sv;
	if (av)
		by_alias = av;
	if (!nv || !sv || !av)
		return;
	nby_shown = nby_alias = 0;
	for (size_t i = 0; i < mt_reg.nfuncs; i++) {
		by_name[i] = (uint32_t)i;
		if (mt_shown(mt_reg.funcs[i].name) != mt_reg.funcs[i].name)
			by_shown[nby_shown++] = (uint32_t)i;
		if (mt_reg.funcs[i].alias)
			by_alias[nby_alias++] = (uint32_t)i;
	}
	qsort(by_name, mt_reg.nfuncs, sizeof *by_name, name_cmp);
	qsort(by_shown, nby_shown, sizeof *by_shown, shown_cmp);
	nby_name = mt_reg.nfuncs;
}

/* The first index of v (n functions, by raw or demangled name) whose
 * name is not below key (compared on its first len bytes). */
static size_t name_bound(const uint32_t *v, size_t n, bool shown, const char *key, size_t len, bool upper)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *name = mt_reg.funcs[v[mid]].name;
		int c = strncmp(shown ? mt_shown(name) : name, key, len);
		if (c < 0 || (upper && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void mark_dirty(uint32_t f)
{
	if (all_dirty)
		return;
	if (ndirty == dirty_cap) {
		size_t cap = dirty_cap ? dirty_cap * 2 : 64;
		uint32_t *nv = realloc(dirty, cap * sizeof *nv);
		if (!nv) {
			all_dirty = true;
			return;
		}
		dirty = nv;
		dirty_cap = cap;
	}
	dirty[ndirty++] = f;
}

void mt_func_dirty(uint32_t i)
{
	mark_dirty(i);
}

static bool apply_one(const struct rule *r, uint32_t i)
{
	struct mt_func *f = &mt_reg.funcs[i];
	if (!mt_reg.objs[f->obj]->live || f->unfit || !matches(r, f))
		return false;
	bool want = mt_traced(f), marked = f->notrace;
	if (r->what == 2)
		f->notrace = true;
	mt_set_traced(f, r->what == 1 && !f->notrace);
	if (want != mt_traced(f))
		mark_dirty(i);
	/* (notrace changes a function it marks, traced or not) */
	return want != mt_traced(f) || marked != f->notrace;
}

/* Calls fn with each function from index from on that a glob (and a
 * :mod: glob) may name: every one from from on, or (from 0) those the
 * name index narrows it to by the glob's literal prefix (built on the
 * first walk after objects came: a program started without filters
 * never sorts its names).  fn checks the match itself. */
static void each_candidate(const char *glob, size_t from, void (*fn)(uint32_t, void *), void *arg)
{
	if (!from && nby_name != mt_reg.nfuncs)
		index_names();
	if (from || nby_name != mt_reg.nfuncs) {
		for (size_t i = from; i < mt_reg.nfuncs; i++)
			fn((uint32_t)i, arg);
		return;
	}
	size_t plen = strcspn(glob, "*?[\\");
	if (!glob[plen])
		plen++;                       /* no wildcard: the name itself, NUL included */
	size_t lo = name_bound(by_name, nby_name, false, glob, plen, false);
	size_t hi = name_bound(by_name, nby_name, false, glob, plen, true);
	for (size_t k = lo; k < hi; k++)
		fn(by_name[k], arg);
	lo = name_bound(by_shown, nby_shown, true, glob, plen, false);
	hi = name_bound(by_shown, nby_shown, true, glob, plen, true);
	for (size_t k = lo; k < hi; k++)
		fn(by_shown[k], arg);
	/* A versioned name (a glob whose fixed part has the @ of one; one
	 * whose fixed part ends before it finds its function above, whose
	 * plain name has that part too). */
	if (memchr(glob, '@', strcspn(glob, "*?[\\")))
		for (size_t k = 0; k < nby_alias; k++)
			fn(by_alias[k], arg);
}

struct rule_walk {
	const struct rule *r;
	long changed;
};

static void rule_one(uint32_t i, void *arg)
{
	struct rule_walk *w = arg;
	w->changed += apply_one(w->r, i);
}

/* Apply one rule to functions [from, nfuncs); returns how many changed. */
static long apply_rule(const struct rule *r, size_t from)
{
	struct rule_walk w = { r, 0 };
	each_candidate(r->glob, from, rule_one, &w);
	return w.changed;
}

struct glob_walk {
	const char *glob, *mod;
	void (*fn)(uint32_t, void *);
	void *arg;
};

static void glob_one(uint32_t i, void *arg)
{
	struct glob_walk *w = arg;
	const struct mt_func *f = &mt_reg.funcs[i];
	if (mt_reg.objs[f->obj]->live && !f->unfit && mt_func_matches(w->glob, w->mod, f))
		w->fn(i, w->arg);
}

void mt_glob_funcs(const char *glob, const char *mod, size_t from, void (*fn)(uint32_t, void *), void *arg)
{
	struct glob_walk w = { glob, mod, fn, arg };
	each_candidate(glob, from, glob_one, &w);
}

void mt_sites_all_dirty(void)
{
	ndirty = 0;
	all_dirty = true;
}

/* For mt_apply: the sites to look at.  Calls fn on each (fn NULL:
 * forget them); clears. */
void mt_each_changed_site(void (*fn)(struct mt_site *, void *), void *arg)
{
	struct mt_view *v = atomic_load_explicit(&mt_view, memory_order_acquire);
	if (!v || !fn) {
		ndirty = 0;
		return;
	}
	if (all_dirty || ndirty > v->n / 8) {
		/* Many: one sweep in address order beats sorting them. */
		for (size_t i = 0; i < v->n; i++)
			fn(&v->sites[i], arg);
	} else {
		for (size_t d = 0; d < ndirty; d++) {
			const struct mt_func *f = &mt_reg.funcs[dirty[d]];
			size_t i = lower_bound(v, f->addr);
			for (; i < v->n && v->sites[i].func == dirty[d]; i++)
				fn(&v->sites[i], arg);
		}
	}
	ndirty = 0;
	all_dirty = false;
}

static void report_bad(const struct mt_object *o, uintptr_t addr, const char *why, size_t *shown)
{
	mt_reg.bad_sites++;
	if ((*shown)++ >= 5)
		return;
	const struct mt_sym *s = mt_sym_at(o, addr);
	const unsigned char *p = mt_in_exec(o, addr) ? (const unsigned char *)addr : NULL;
	char bytes[32] = "";
	if (p && mt_in_exec(o, addr + 5))
		snprintf(bytes, sizeof bytes, " (bytes %02x %02x %02x %02x %02x)", p[0], p[1], p[2], p[3], p[4]);
	if (s)
		mt_msg("%s: %#lx <%s+%#lx>: %s%s: left alone", o->name, (unsigned long)addr, s->name,
		       (unsigned long)(addr - s->addr), why, bytes);
	else
		mt_msg("%s: %#lx: %s%s: left alone", o->name, (unsigned long)addr, why, bytes);
}

static int addr_cmp(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
	return x < y ? -1 : x > y;
}

static int add_func(const char *name, const char *const *alias, uintptr_t addr, uintptr_t size, uint16_t oi)
{
	if (!(mt_reg.nfuncs & (mt_reg.nfuncs + 1)) || !mt_reg.funcs) {
		size_t cap = (mt_reg.nfuncs + 1) * 2;
		struct mt_func *nv = realloc(mt_reg.funcs, cap * sizeof *nv);
		if (!nv)
			return -1;
		mt_reg.funcs = nv;
	}
	mt_reg.funcs[mt_reg.nfuncs] = (struct mt_func){ .name = name, .alias = alias, .addr = addr, .size = size,
							.obj = oi };
	return (int)mt_reg.nfuncs++;
}

/* The good sites of one object's table, sorted; their functions added. */
static struct mt_site *object_sites(uint16_t oi, size_t *count)
{
	struct mt_object *o = mt_reg.objs[oi];
	*count = 0;
	/* Compiled with -pg (it calls a hook through a slot) and no table:
	 * nothing of it can be traced, and its calls reach the hook all the
	 * time.  Said once, as it is found (not of this library itself). */
	if (!o->table && o->file && o->nhook_slots && !mt_in_exec(o, (uintptr_t)object_sites))
		mt_msg("%s: calls the hook but has no __mcount_loc table: none of its functions can be traced "
		       "(build it through mcount-cc, or with GCC's -mrecord-mcount)", o->name);
	if (!o->table || !o->table_size)
		return NULL;
	size_t n1 = o->table_size / sizeof(uintptr_t), n = n1 + o->ptable_size / sizeof(uintptr_t);
	const uintptr_t *tab = (const uintptr_t *)o->table, *ptab = (const uintptr_t *)o->ptable;
	uintptr_t *addrs = malloc((n + 1) * sizeof *addrs);
	struct mt_site *out = calloc(n + 1, sizeof *out);
	if (!addrs || !out) {
		free(addrs);
		free(out);
		return NULL;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		uintptr_t a = i < n1 ? tab[i] : ptab[i - n1];
		if (a)                        /* zero entries are padding, as in the kernel */
			addrs[k++] = a;
	}
	mt_sort_by_addr(addrs, k, sizeof *addrs, 0, sizeof *addrs, addr_cmp);
	size_t shown = 0, m = 0, unfit = 0;
	uintptr_t high = 0;
	const struct mt_sym *last = NULL;
	int func = -1;
	for (size_t i = 0; i < k; i++) {
		if (i && addrs[i] == addrs[i - 1])
			continue;
		struct mt_site *s = &out[m];
		s->addr = addrs[i];
		s->obj = oi;
		atomic_init(&s->state, MT_CALL);
		s->next = MT_CALL;
		s->own = 0;
		const char *why = mt_arch.decode(s, o);
		if (why) {
			report_bad(o, addrs[i], why, &shown);
			memset(s, 0, sizeof *s);
			continue;
		}
		const struct mt_sym *sym = mt_sym_at(o, s->addr);
		if (!sym || sym != last) {
			char *name = NULL;
			if (!sym && asprintf(&name, "%s+%#lx", o->name, (unsigned long)(s->addr - o->bias)) < 0)
				name = NULL;
			func = add_func(sym ? sym->name : name ? name : "?", sym ? sym->alias : NULL,
					sym ? sym->addr : s->addr, sym ? sym->size : 0, oi);
			last = sym;
			if (func < 0)
				break;
		}
		s->func = (uint32_t)func;
		mt_raw_pending |= s->raw;
		if (!mt_ev_holds(s->addr) || !mt_ev_holds(mt_site_ret(s))) {
			mt_reg.funcs[func].unfit = true;
			if (!unfit++)
				high = s->addr;
		}
		m++;
	}
	if (shown > 5)
		mt_msg("%s: %zu more entries of its table left alone", o->name, shown - 5);
	if (unfit)
		mt_msg("%s: %zu sites above 2^48 (the first at %#lx): no event can hold their addresses; they stay off",
		       o->name, unfit, (unsigned long)high);
	free(addrs);
	*count = m;
	return out;
}

/* Keep the sites of objects just unloaded (the last ones at an address
 * win: a later object may be loaded there). */
static void bury(const struct mt_view *old, size_t ndead)
{
	size_t had = grave ? grave->n : 0, k = 0;
	struct mt_view *g = malloc(sizeof *g);
	struct mt_site *all = malloc((had + ndead) * sizeof *all);
	if (!g || !all) {
		free(g);
		free(all);
		return;
	}
	for (size_t i = 0; i < old->n; i++)
		if (!mt_reg.objs[old->sites[i].obj]->live)
			memcpy(&all[k++], &old->sites[i], sizeof *all);
	for (size_t i = 0; i < had; i++) {
		const struct mt_site *s = &grave->sites[i];
		bool replaced = false;
		for (size_t j = 0; j < ndead && !replaced; j++)
			replaced = all[j].addr == s->addr;
		if (!replaced)
			memcpy(&all[k++], s, sizeof *all);
	}
	mt_sort_by_addr(all, k, sizeof *all, offsetof(struct mt_site, addr), sizeof all->addr, site_cmp);
	g->sites = all;
	g->n = k;
	g->prev = NULL;
	if (grave) {
		free(grave->sites);
		free(grave);
	}
	grave = g;
}

struct mt_retmap *mt_retmap_of(const void *(*value)(const struct mt_site *))
{
	struct mt_view *v = atomic_load_explicit(&mt_view, memory_order_acquire);
	size_t n = 0;
	for (size_t i = 0; v && i < v->n; i++)
		n += value(&v->sites[i]) != NULL;
	if (!n)
		return NULL;
	uint64_t cap = 16;
	while (cap < 2 * n)
		cap <<= 1;
	struct mt_retmap *m = calloc(1, sizeof *m + cap * sizeof m->e[0]);
	if (!m) {
		mt_msg("no memory for a map of %zu sites: %s", n, strerror(ENOMEM));
		return NULL;
	}
	m->mask = cap - 1;
	for (size_t i = 0; i < v->n; i++) {
		const struct mt_site *s = &v->sites[i];
		const void *val = value(s);
		if (!val)
			continue;
		uintptr_t ret = mt_site_ret(s);
		uint64_t k = mt_retmap_at(m, ret);
		m->e[k].ret = ret;
		m->e[k].v = val;
	}
	return m;
}

_Atomic(struct mt_retmap *) mt_nohook;
_Atomic(struct mt_spans *) mt_tabled;

static const void *nohook_of(const struct mt_site *s)
{
	return s->nohook ? s : NULL;
}

#ifdef MT_SLOT_FRAME
_Atomic(struct mt_retmap *) mt_frames;

static const void *frame_of(const struct mt_site *s)
{
	return s->framed ? s : NULL;
}
#endif

/* The code of the live objects with a table, for the hot path
 * (mt_tabled), made anew where it changed. */
static void tabled_refresh(void)
{
	size_t n = 0;
	for (size_t i = 0; i < mt_reg.nobjs; i++)
		if (mt_reg.objs[i]->live && mt_reg.objs[i]->table)
			n += mt_reg.objs[i]->nexec;
	struct mt_spans *sp = malloc(sizeof *sp + (n + 1) * sizeof sp->r[0]);
	if (!sp) {
		mt_msg("no memory for the code ranges of the objects with a table: %s", strerror(ENOMEM));
		return;
	}
	sp->n = 0;
	for (size_t i = 0; i < mt_reg.nobjs; i++) {
		const struct mt_object *o = mt_reg.objs[i];
		for (unsigned k = 0; o->live && o->table && k < o->nexec; k++) {
			sp->r[sp->n].lo = o->exec_lo[k];
			sp->r[sp->n].hi = o->exec_hi[k];
			sp->n++;
		}
	}
	const struct mt_spans *old = atomic_load_explicit(&mt_tabled, memory_order_acquire);
	if (old && old->n == sp->n && !memcmp(old->r, sp->r, sp->n * sizeof sp->r[0])) {
		free(sp);
		return;
	}
	/* (the old one stays allocated: a hook may be reading it) */
	atomic_store_explicit(&mt_tabled, sp, memory_order_release);
}

/* The views v replaced, freed where no trap handler reads one: a
 * handler counts itself in mt_view_readers before it loads mt_view, so
 * one that comes after this load of the count finds v (both sequentially
 * consistent).  Else they are kept, and freed by a later refresh. */
atomic_ulong mt_view_readers;

static void retire_views(struct mt_view *v)
{
#ifdef MT_SLOT_FRAME
	(void)v;                      /* (mt_frames' entries point into them) */
#else
	if (atomic_load(&mt_view_readers))
		return;
	for (struct mt_view *o = v->prev, *next; o; o = next) {
		next = o->prev;
		free(o->sites);
		free(o);
	}
	v->prev = NULL;
#endif
}

int mt_sites_refresh(size_t *first)
{
	size_t first_obj = mt_reg.nobjs, first_func = *first = mt_reg.nfuncs;
	size_t added = mt_objects_refresh(&mt_reg.objs, &mt_reg.nobjs);
	struct mt_view *old = atomic_load_explicit(&mt_view, memory_order_acquire);
	size_t total = 0, nold = old ? old->n : 0;
	struct mt_site **per = calloc(added + 1, sizeof *per);
	size_t *cnt = calloc(added + 1, sizeof *cnt);
	if (!per || !cnt) {
		free(per);
		free(cnt);
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < added; i++) {
		per[i] = object_sites((uint16_t)(first_obj + i), &cnt[i]);
		total += cnt[i];
	}
	tabled_refresh();
	struct mt_view *v = malloc(sizeof *v);
	struct mt_site *all = malloc((nold + total + 1) * sizeof *all);
	if (!v || !all) {
		free(v);
		free(all);
		for (size_t i = 0; i < added; i++)
			free(per[i]);
		free(per);
		free(cnt);
		errno = ENOMEM;
		return -1;
	}
	size_t n = 0, ndead = 0;
	for (size_t i = 0; i < nold; i++)
		ndead += !mt_reg.objs[old->sites[i].obj]->live;
	if (ndead)
		bury(old, ndead);
	for (size_t i = 0; i < nold; i++) {
		const struct mt_site *s = &old->sites[i];
		if (!mt_reg.objs[s->obj]->live)
			continue;             /* unloaded: its addresses may be reused */
		memcpy(&all[n], s, sizeof *s);
		atomic_init(&all[n].state, atomic_load(&s->state));
		n++;
	}
	for (size_t i = 0; i < added; i++) {
		for (size_t j = 0; j < cnt[i]; j++) {
			memcpy(&all[n], &per[i][j], sizeof all[n]);
			atomic_init(&all[n].state, atomic_load(&per[i][j].state));
			n++;
		}
		free(per[i]);
	}
	free(per);
	free(cnt);
	mt_sort_by_addr(all, n, sizeof *all, offsetof(struct mt_site, addr), sizeof all->addr, site_cmp);
	v->sites = all;
	v->n = n;
	v->prev = old;
	atomic_store(&mt_view, v);
	retire_views(v);
	all_dirty = true;
	for (size_t r = 0; r < nrules; r++)
		apply_rule(&rules[r], first_func);
	atomic_store_explicit(&mt_nohook, mt_retmap_of(nohook_of), memory_order_release);
#ifdef MT_SLOT_FRAME
	atomic_store_explicit(&mt_frames, mt_retmap_of(frame_of), memory_order_release);
#endif
	return 0;
}

/* An enable or disable of the same glob (or of every function) makes
 * the earlier enables and disables of it moot: forget them, so that a
 * filter toggled a million times is still one rule to replay.  A
 * notrace rule stays: it holds for good. */
static void forget_superseded(const char *glob, const char *mod, int what)
{
	if (what == 2)
		return;
	bool all = !strcmp(glob, "*") && !mod;
	size_t k = 0;
	for (size_t i = 0; i < nrules; i++) {
		struct rule *r = &rules[i];
		bool same = !strcmp(r->glob, glob) && (r->mod ? mod && !strcmp(r->mod, mod) : !mod);
		if (r->what != 2 && (all || same)) {
			free(r->glob);
			free(r->mod);
			continue;
		}
		rules[k++] = *r;
	}
	nrules = k;
}

/* A glob a filter may hold: not empty, no leading ! (the kernel's
 * negation has no counterpart here: disable, notrace), and after :mod:
 * a module. */
static bool glob_ok(const char *glob, const char *mod)
{
	return *glob && *glob != '!' && (!mod || *mod);
}

long mt_filter_glob(const char *glob, const char *mod, int what)
{
	if (!glob_ok(glob, mod)) {
		errno = EINVAL;
		return -1;
	}
	forget_superseded(glob, mod, what);
	struct rule *nv = realloc(rules, (nrules + 1) * sizeof *nv);
	char *g = strdup(glob), *m = mod ? strdup(mod) : NULL;
	if (!nv || !g || (mod && !m)) {
		if (nv)
			rules = nv;
		free(g);
		free(m);
		errno = ENOMEM;
		return -1;
	}
	rules = nv;
	struct rule *r = &rules[nrules++];
	*r = (struct rule){ g, m, what };
	return apply_rule(r, 0);
}

/* ---- the syntax of a filter ----
 *
 * A FILTER is globs, separated by commas and white space.  Names have
 * both (a demangled C++ name: "deep(int, int&)", "Stream::peek()
 * const"), so a separator is one that is not escaped by a backslash
 * (which fnmatch reads as "the next character as it is": the glob keeps
 * it) and is not inside the brackets of a name, ( ), < >, [ ], { }, an
 * operator's own characters not counted as brackets ("operator<",
 * "operator()", "operator,").  mcount-trace(1) splits its arguments the
 * same way, at commas only (a space in an argument is the glob's), and
 * escapes the white space a glob keeps; list prints each name escaped so
 * that it names that function alone (mt_glob_quote). */

struct gscan {
	unsigned paren, angle, square, brace;
};

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The length of an operator's token after "operator" at s + i (0: none
 * there), the longest first. */
static size_t op_token(const char *s, size_t i)
{
	static const char *const ops[] = {
		"->*", "<<=", ">>=", "<=>", "()", "[]", "->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
		"++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "+", "-", "*", "/", "%", "^", "&",
		"|", "~", "!", "=", "<", ">", ",",
	};
	if (strncmp(s + i, "operator", 8) || (i && ident_char(s[i - 1])) || ident_char(s[i + 8]))
		return 0;
	for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
		if (!strncmp(s + i + 8, ops[k], strlen(ops[k])))
			return strlen(ops[k]);
	return 0;
}

static bool gscan_top(const struct gscan *g)
{
	return !g->paren && !g->angle && !g->square && !g->brace;
}

/* A bracket of s[i] (a closer without its opener is none). */
static void gscan_char(struct gscan *g, char c)
{
	switch (c) {
	case '(': g->paren++; break;
	case ')': g->paren -= g->paren > 0; break;
	case '<': g->angle++; break;
	case '>': g->angle -= g->angle > 0; break;
	case '[': g->square++; break;
	case ']': g->square -= g->square > 0; break;
	case '{': g->brace++; break;
	case '}': g->brace -= g->brace > 0; break;
	default: break;
	}
}

/* One unit of glob s at i, as the scan sees it (an escaped character,
 * "operator" and its token, one character): its length, the brackets
 * counted; *sep: it is a separator (space: white space is one too). */
static size_t gscan_step(const char *s, size_t i, struct gscan *g, bool space, bool *sep)
{
	*sep = false;
	if (s[i] == '\\' && s[i + 1])
		return 2;
	size_t t = op_token(s, i);
	if (t)
		return 8 + t;
	if (gscan_top(g) && (s[i] == ',' || (space && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')))) {
		*sep = true;
		return 1;
	}
	gscan_char(g, s[i]);
	return 1;
}

/* The :mod: of glob g (NULL: none): the first ":mod:" not escaped and
 * not part of a C++ name's "::mod::". */
static char *mod_of(char *g)
{
	for (size_t i = 0; g[i];) {
		if (g[i] == '\\' && g[i + 1]) {
			i += 2;
			continue;
		}
		if (!strncmp(g + i, ":mod:", 5) && (!i || g[i - 1] != ':') && g[i + 5] != ':')
			return g + i;
		i++;
	}
	return NULL;
}

size_t mt_glob_quote(const char *name, char *out, size_t cap)
{
	struct gscan g = { 0, 0, 0, 0 };
	size_t n = 0;
	for (size_t i = 0; name[i];) {
		size_t t = op_token(name, i), len = t ? 8 + t : 1;
		for (size_t k = i; k < i + len; k++) {
			char c = name[k];
			bool esc = strchr("\\*?[", c) || (k == 0 && c == '!') ||
				(!t && gscan_top(&g) && (c == ',' || c == ' ' || c == '\t' || c == '\n'));
			/* (":mod:" outside a "::" would be taken for a module) */
			esc |= c == ':' && !strncmp(name + k, ":mod:", 5) && (!k || name[k - 1] != ':') &&
				name[k + 5] != ':';
			if (esc && n + 1 < cap)
				out[n++] = '\\';
			if (n + 1 < cap)
				out[n++] = c;
			if (!t && !esc)
				gscan_char(&g, c);
		}
		i += len;
	}
	if (cap)
		out[n < cap ? n : cap - 1] = 0;
	return n;
}

long mt_filter_each(const char *filter, long (*fn)(const char *glob, const char *mod, void *arg), void *arg)
{
	char *copy = strdup(filter ? filter : "");
	/* (a glob and its module a pair; a glob has a separator after it) */
	char **pair = copy ? malloc((strlen(copy) / 2 + 1) * 2 * sizeof *pair) : NULL;
	if (!pair) {
		free(copy);
		errno = ENOMEM;
		return -1;
	}
	/* every glob read and checked before any is applied: a bad one
	 * changes nothing */
	size_t n = 0;
	bool bad = false;
	struct gscan gs = { 0, 0, 0, 0 };
	char *g = copy;
	for (size_t i = 0;; ) {
		bool sep = false, end = !copy[i];
		size_t len = end ? 0 : gscan_step(copy, i, &gs, true, &sep);
		if (!sep && !end) {
			i += len;
			continue;
		}
		copy[i] = 0;
		if (*g) {
			char *mod = mod_of(g);
			if (mod) {
				*mod = 0;
				mod += 5;
			}
			bad |= !glob_ok(g, mod);
			pair[2 * n] = g;
			pair[2 * n++ + 1] = mod;
		}
		if (end)
			break;
		g = copy + ++i;
		gs = (struct gscan){ 0, 0, 0, 0 };
	}
	long r = bad ? -1 : 0;
	int err = EINVAL;
	for (size_t i = 0; i < n && !bad; i++) {
		r = fn(pair[2 * i], pair[2 * i + 1], arg);
		if (r) {
			err = errno;
			break;
		}
	}
	free(pair);
	free(copy);
	if (r)
		errno = err;
	return r;
}

struct filter_walk {
	int what;
	long changed;
	size_t done;
};

static long filter_one(const char *glob, const char *mod, void *arg)
{
	struct filter_walk *w = arg;
	long c = mt_filter_glob(glob, mod, w->what);
	if (c < 0)
		return -1;
	w->changed += c;
	w->done++;
	return 0;
}

long mt_filter(const char *filter, int what)
{
	struct filter_walk w = { what, 0, 0 };
	long r = mt_filter_each(filter, filter_one, &w);
	/* (a filter of no glob: EINVAL; the globs applied before one that
	 * failed stay applied, and count) */
	if (!w.done) {
		if (!r)
			errno = EINVAL;
		return -1;
	}
	return w.changed;
}

const char *mt_name_of(uintptr_t addr, char *buf, size_t len)
{
	/* The object mapped there now; else, where none is, one closed
	 * since (an event written after a dlclose), the last to go first:
	 * its symbols stay read. */
	const struct mt_object *mapped = NULL;
	for (int live = 1; live >= 0 && !mapped; live--) {
		for (size_t i = mt_reg.nobjs; i-- > 0;) {
			const struct mt_object *o = mt_reg.objs[i];
			if (o->live != live || !mt_in_exec(o, addr) || (!live && !o->syms_read))
				continue;
			const struct mt_sym *s = mt_sym_at(o, addr);
			if (s)
				return mt_shown(s->name);
			mapped = o;
			break;
		}
	}
	/* No symbol there (a stripped object, or a function the object
	 * keeps local, as the C library's start-up code): the object's
	 * file name and the address in its file, FILE+0xADDR, as a
	 * function without a symbol is named (and listed) after its
	 * site's, so that the two can be matched with objdump -d of the
	 * file.  An address in no object: itself. */
	if (mapped)
		snprintf(buf, len, "%s+%#lx", mapped->name, (unsigned long)(addr - mapped->bias));
	else
		snprintf(buf, len, "%#lx", (unsigned long)addr);
	return buf;
}
