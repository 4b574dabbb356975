/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ops.c - the hooks layer: which users each function's sites serve.
 *
 * The kernel's ftrace_ops, for a program: each registered hook (an id,
 * 1 to MT_OPS_MAX - 1) has a filter and a notrace, which select
 * functions as the tracer's filters do; a function's bit id says the
 * hook selects it (struct mt_func.hooks).  The tracer is user 0
 * (trace.c, MT_OP_SITE), its bit set by its own filters (sites.c).
 * Nothing here writes code: the pass (patch.c) brings each
 * site to mt_func_on(), and publishes each changed function's users to
 * the hot path's table (mt_ops_publish) before it changes the site.
 *
 * The table (struct mt_hooktab) is made once a hook is registered, and
 * anew when objects come or go: the address after each site, to its
 * function's entry (an atomic mask of its users and the function's
 * address).  A table replaced, and a hook unregistered, may still be
 * read by a thread that looked it up before: what goes is freed after a
 * grace period (mt_grace, buffer.c), by the caller, never here. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

_Atomic(struct mt_op *) mt_ops[MT_OPS_MAX];
_Atomic unsigned long mt_ops_gen;
atomic_bool mt_ops_on;
_Atomic mt_users mt_ops_exits;
_Atomic mt_users mt_ops_genregs;
_Atomic mt_users mt_ops_vecsave;
_Atomic(struct mt_hooktab *) mt_hooktab;

static unsigned nregistered, nredirects;

/* Tables replaced, to be freed after the next grace period. */
static void **retired;
static size_t nretired;

void mt_ops_publish(uint32_t i)
{
	struct mt_hooktab *t = atomic_load_explicit(&mt_hooktab, memory_order_relaxed);
	if (!t || i >= t->n)
		return;
	const struct mt_func *f = &mt_reg.funcs[i];
	atomic_store_explicit(&t->f[i].redirect, f->redirect, memory_order_release);
	atomic_store_explicit(&t->f[i].mask, f->hooks, memory_order_release);
}

bool mt_ops_own(const struct mt_func *f)
{
	return f->hooks && !(f->hooks & (MT_TRACED | atomic_load(&mt_ops_exits))) && !f->redirect;
}

static struct mt_hooktab *building;

static const void *entry_of(const struct mt_site *s)
{
	return &building->f[s->func];
}

/* A table and its map, to be freed after the next grace period. */
static int retire(struct mt_hooktab *t)
{
	void **nv = realloc(retired, (nretired + 3) * sizeof *nv);
	if (!nv)
		return -1;
	retired = nv;
	if (t->map)
		retired[nretired++] = t->map;
	retired[nretired++] = t;
	retired[nretired] = NULL;
	return 0;
}

void **mt_ops_retired(void)
{
	void **r = retired;
	retired = NULL;
	nretired = 0;
	return r;
}

void mt_ops_unretire(void **r)
{
	size_t n = 0;
	while (r[n])
		n++;
	void **nv = realloc(retired, (nretired + n + 1) * sizeof *nv);
	if (!nv)
		return;               /* (no memory: those stay allocated) */
	retired = nv;
	memcpy(retired + nretired, r, (n + 1) * sizeof *r);
	nretired += n;
	free(r);
}

/* The hot path's table, made for the sites there are now. */
static int table_anew(void)
{
	size_t n = mt_reg.nfuncs;
	struct mt_hooktab *t = calloc(1, sizeof *t + (n + 1) * sizeof t->f[0]);
	if (!t) {
		errno = ENOMEM;
		return -1;
	}
	t->n = n;
	for (size_t i = 0; i < n; i++) {
		const struct mt_func *f = &mt_reg.funcs[i];
		atomic_init(&t->f[i].mask, f->hooks);
		atomic_init(&t->f[i].redirect, f->redirect);
		t->f[i].addr = f->addr;
	}
	building = t;
	t->map = mt_retmap_of(entry_of);
	building = NULL;
	struct mt_view *v = atomic_load_explicit(&mt_view, memory_order_acquire);
	if (!t->map && v && v->n) {
		free(t);
		errno = ENOMEM;
		return -1;
	}
	struct mt_hooktab *old = atomic_load_explicit(&mt_hooktab, memory_order_relaxed);
	if (old && retire(old)) {
		free(t->map);
		free(t);
		errno = ENOMEM;
		return -1;
	}
	atomic_store_explicit(&mt_hooktab, t, memory_order_release);
	return 0;
}

/* ---- a hook's functions ---- */

/* A hook's functions are a sorted list of indices (struct mt_op.sel),
 * so that what a change of its filter costs is what the filters name,
 * old and new, not every function there is (the empty filter aside). */
struct pick {
	uint32_t *v;
	size_t n, cap;
	size_t from;
	bool failed;
};

static void pick_one(uint32_t i, void *arg)
{
	struct pick *p = arg;
	if (i < p->from)
		return;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		uint32_t *nv = realloc(p->v, cap * sizeof *nv);
		if (!nv) {
			p->failed = true;
			return;
		}
		p->v = nv;
		p->cap = cap;
	}
	p->v[p->n++] = i;
}

static long pick_glob(const char *glob, const char *mod, void *arg)
{
	struct pick *p = arg;
	mt_glob_funcs(glob, mod, p->from, pick_one, p);
	return p->failed ? -1 : 0;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The functions [from, nfuncs) a filter names, sorted, each once ("":
 * every one that can be hooked); -1 with errno. */
static int pick_filter(const char *filter, size_t from, struct pick *p)
{
	*p = (struct pick){ .from = from };
	if (!filter[strspn(filter, " \t\n,")]) {
		for (size_t i = from; i < mt_reg.nfuncs; i++)
			if (mt_reg.objs[mt_reg.funcs[i].obj]->live && !mt_reg.funcs[i].unfit)
				pick_one((uint32_t)i, p);
	} else if (mt_filter_each(filter, pick_glob, p) && !p->failed) {
		free(p->v);
		return -1;
	}
	if (p->failed) {
		free(p->v);
		errno = ENOMEM;
		return -1;
	}
	if (p->n)
		qsort(p->v, p->n, sizeof *p->v, u32_cmp);
	size_t k = 0;
	for (size_t i = 0; i < p->n; i++)
		if (!k || p->v[k - 1] != p->v[i])
			p->v[k++] = p->v[i];
	p->n = k;
	return 0;
}

/* Function i gets hook id's bit, or loses it: the pass's. */
static void flip(uint32_t i, mt_users bit)
{
	mt_reg.funcs[i].hooks ^= bit;
	mt_func_dirty(i);
}

/* Hook id's bit on functions [from, nfuncs) as op's filter and notrace
 * say now; those that change are the pass's. */
static int select_from(int id, struct mt_op *op, size_t from)
{
	struct pick want, not;
	if (pick_filter(op->filter, from, &want))
		return -1;
	const char *notrace = op->notrace;
	if (notrace[strspn(notrace, " \t\n,")]) {
		if (pick_filter(notrace, from, &not)) {
			free(want.v);
			return -1;
		}
		size_t k = 0, j = 0;
		for (size_t i = 0; i < want.n; i++) {
			while (j < not.n && not.v[j] < want.v[i])
				j++;
			if (j == not.n || not.v[j] != want.v[i])
				want.v[k++] = want.v[i];
		}
		want.n = k;
		free(not.v);
	}
	/* the old list's part below from stays; the rest is compared */
	size_t keep = 0;
	while (keep < op->nsel && op->sel[keep] < from)
		keep++;
	uint32_t *nv = realloc(NULL, (keep + want.n + 1) * sizeof *nv);
	if (!nv) {
		free(want.v);
		errno = ENOMEM;
		return -1;
	}
	if (keep)
		memcpy(nv, op->sel, keep * sizeof *nv);
	if (want.n)
		memcpy(nv + keep, want.v, want.n * sizeof *nv);
	mt_users bit = MT_USER(id);
	size_t a = keep, b = 0;
	while (a < op->nsel || b < want.n) {
		if (b == want.n || (a < op->nsel && op->sel[a] < want.v[b]))
			flip(op->sel[a++], bit);          /* no longer */
		else if (a == op->nsel || want.v[b] < op->sel[a])
			flip(want.v[b++], bit);           /* newly */
		else
			a++, b++;
	}
	free(op->sel);
	op->sel = nv;
	op->nsel = keep + want.n;
	free(want.v);
	return 0;
}

/* (every glob is good once mt_filter_each has read them all) */
static long check_glob(const char *glob, const char *mod, void *arg)
{
	(void)glob;
	(void)mod;
	(void)arg;
	return 0;
}

int mt_ops_check(const char *filter)
{
	return filter[strspn(filter, " \t\n,")] && mt_filter_each(filter, check_glob, NULL) ? -1 : 0;
}

int mt_ops_select(int id)
{
	return select_from(id, atomic_load(&mt_ops[id]), 0);
}

/* Ids removed whose grace period has not ended: not taken again until
 * it has, or a call that read its function's users before the removal
 * would run the next hook of that id on a function its filter may not
 * select. */
static _Atomic mt_users ids_waiting;

void mt_ops_release(int id)
{
	atomic_fetch_and(&ids_waiting, ~MT_USER(id));
}

/* The library's own user: id 0, its functions chosen by the tracer's
 * filters, its exits switched by its style (mt_ops_exits_set); it
 * needs no look-up (mt_ops_on stays as it is). */
static int add_site_user(struct mt_op *op)
{
	if (atomic_load(&mt_ops[MT_TRACER_ID])) {
		errno = EBUSY;
		return -1;
	}
	op->gen = atomic_fetch_add(&mt_ops_gen, 1) + 1;
	if (op->flags & MCOUNT_HOOK_GENERAL_REGS)
		atomic_fetch_or(&mt_ops_genregs, MT_TRACED);
	else
		atomic_fetch_or(&mt_ops_vecsave, MT_TRACED);
	atomic_store_explicit(&mt_ops[MT_TRACER_ID], op, memory_order_release);
	return MT_TRACER_ID;
}

void mt_ops_exits_set(int id, bool on)
{
	if (on)
		atomic_fetch_or(&mt_ops_exits, MT_USER(id));
	else
		atomic_fetch_and(&mt_ops_exits, ~MT_USER(id));
}

int mt_ops_add(struct mt_op *op)
{
	if (op->iflags & MT_OP_SITE)
		return add_site_user(op);
	int id = 1;
	mt_users waiting = atomic_load(&ids_waiting);
	while (id < MT_OPS_MAX && (atomic_load(&mt_ops[id]) || (waiting & MT_USER(id))))
		id++;
	if (id == MT_OPS_MAX) {
		errno = ENOSPC;
		return -1;
	}
	if (!atomic_load(&mt_hooktab) && table_anew())
		return -1;
	/* (before any function's users have the id: rt.h) */
	bool vec = !(op->flags & MCOUNT_HOOK_GENERAL_REGS);
	if (vec)
		atomic_fetch_or(&mt_ops_vecsave, MT_USER(id));
	if (select_from(id, op, 0)) {
		if (vec)
			atomic_fetch_and(&mt_ops_vecsave, ~MT_USER(id));
		return -1;
	}
	op->gen = atomic_fetch_add(&mt_ops_gen, 1) + 1;
	if (op->exit)
		atomic_fetch_or(&mt_ops_exits, MT_USER(id));
	if (op->flags & MCOUNT_HOOK_GENERAL_REGS)
		atomic_fetch_or(&mt_ops_genregs, MT_USER(id));
	atomic_store_explicit(&mt_ops[id], op, memory_order_release);
	nregistered++;
	atomic_store(&mt_ops_on, true);
	return id;
}

void mt_ops_remove(int id)
{
	struct mt_op *op = atomic_load(&mt_ops[id]);
	atomic_fetch_or(&ids_waiting, MT_USER(id));
	atomic_store_explicit(&mt_ops[id], NULL, memory_order_release);
	atomic_fetch_and(&mt_ops_exits, ~MT_USER(id));
	atomic_fetch_and(&mt_ops_genregs, ~MT_USER(id));
	atomic_fetch_and(&mt_ops_vecsave, ~MT_USER(id));
	for (size_t i = 0; i < op->nsel; i++)
		flip(op->sel[i], MT_USER(id));
	free(op->sel);
	op->sel = NULL;
	op->nsel = 0;
	nregistered--;
}

void mt_ops_idle(void)
{
	/* (the hot path reads no table from the next call on; a call
	 * under way still may, which the caller's grace covers) */
	if (!nregistered && !nredirects)
		atomic_store(&mt_ops_on, false);
}

/* ---- redirects ---- */

/* Is a in the code of an object loaded now (a replacement's)? */
static bool in_loaded_code(uintptr_t a)
{
	for (size_t k = 0; k < mt_reg.nobjs; k++)
		if (mt_reg.objs[k]->live && mt_in_exec(mt_reg.objs[k], a))
			return true;
	return false;
}

struct found {
	uint32_t n, i;
};

static void found_one(uint32_t i, void *arg)
{
	struct found *f = arg;
	if (f->n && f->i == i)
		return;               /* (the name index may give one twice) */
	f->n++;
	f->i = i;
}

static long find_glob(const char *glob, const char *mod, void *arg)
{
	mt_glob_funcs(glob, mod, 0, found_one, arg);
	return 0;
}

int mt_ops_redirect(const char *function, uintptr_t to)
{
	struct found fd = { 0, 0 };
	if (!function || !*function || mt_filter_each(function, find_glob, &fd)) {
		errno = EINVAL;
		return -1;
	}
	if (!fd.n) {
		errno = ENOENT;
		return -1;
	}
	if (fd.n > 1) {
		errno = EINVAL;
		return -1;
	}
	struct mt_func *f = &mt_reg.funcs[fd.i];
	if (!to) {
		if (!f->redirect) {
			errno = EINVAL;
			return -1;
		}
		f->redirect = 0;
		nredirects--;
		mt_func_dirty(fd.i);
		return 0;
	}
	if (f->redirect) {
		errno = EBUSY;
		return -1;
	}
	const struct mt_site *s = mt_func_site(f);
	if (!MT_HAVE_REDIRECT || !mt_arch.at_entry || !s || !mt_arch.at_entry(s, f->addr)) {
		errno = ENOTSUP;
		return -1;
	}
	if (!in_loaded_code(to)) {
		errno = EINVAL;
		return -1;
	}
	if (!atomic_load(&mt_hooktab) && table_anew())
		return -1;
	f->redirect = to;
	nredirects++;
	mt_func_dirty(fd.i);
	atomic_store(&mt_ops_on, true);
	return 0;
}

int mt_ops_refresh(size_t first)
{
	if (!nregistered && !nredirects) {
		/* (made anew by the next hook registered) */
		struct mt_hooktab *old = atomic_load_explicit(&mt_hooktab, memory_order_relaxed);
		if (old && !retire(old))
			atomic_store(&mt_hooktab, NULL);
		return 0;
	}
	int r = 0;
	for (int id = 1; id < MT_OPS_MAX; id++) {
		struct mt_op *op = atomic_load(&mt_ops[id]);
		if (op && select_from(id, op, first))
			r = -1;
	}
	/* A redirect into code no longer loaded (its library closed, against
	 * mcount_hook(3)): dropped, said, the function's own body called
	 * again from the pass on; and that of a function unloaded. */
	for (size_t i = 0; nredirects && i < mt_reg.nfuncs; i++) {
		struct mt_func *f = &mt_reg.funcs[i];
		if (!f->redirect)
			continue;
		bool live = mt_reg.objs[f->obj]->live;
		if (live && in_loaded_code(f->redirect))
			continue;
		if (live)
			mt_msg("%s was redirected to %#lx, which is no longer loaded code: the redirect is dropped",
			       f->name, (unsigned long)f->redirect);
		/* (a function itself unloaded: its redirect goes with it) */
		f->redirect = 0;
		nredirects--;
		mt_func_dirty((uint32_t)i);
	}
	if (table_anew())
		r = -1;
	return r;
}
