/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hooks.c - the C API of mcount-hooks.h: a client of the hooks layer
 * (ops.c), the pass (patch.c) and the grace period (buffer.c), beside
 * the tracer's control (control.c).
 *
 * Each call that changes what functions a hook selects takes the
 * registry's lock, changes the flags (ops.c) and runs the pass, as a
 * filter of the tracer does.  Unregister waits, after it has let the
 * lock go, for the threads that may still be in the hook's callbacks
 * (mt_grace): a callback may call this API, or take a lock of the
 * program's that the caller holds, only while it is not being
 * unregistered by a thread it waits for. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

struct mcount_hook {
	struct mt_op op;              /* its callbacks, filter and notrace */
	int id;                       /* 0: not registered */
};

/* The locks of a change (control.c), where the library runs (the
 * code can be changed); *pass for unlock_with. */
static int lock_ready(bool *pass)
{
	if (!atomic_load(&mt_ready)) {
		errno = EPERM;
		return -1;
	}
	*pass = mt_change_begin();
	return 0;
}

static int unlock_with(bool pass, int r)
{
	mt_change_end(pass);
	return r;
}

/* Free what the hot path may have read before now (tables replaced). */
static void free_retired(void)
{
	pthread_mutex_lock(&mt_reg.lock);     /* (no pass: the registry's alone) */
	void **r = mt_ops_retired();
	pthread_mutex_unlock(&mt_reg.lock);
	if (!r)
		return;
	mt_grace();
	for (void **p = r; *p; p++)
		free(*p);
	free(r);
}

/* The same without waiting, a step each time the control thread comes
 * by and after each dlopen and dlclose: tables that refreshes replaced
 * (objects loaded and unloaded while a hook is registered, each a table
 * of every function) are freed once a grace period begun after they
 * were taken has ended.  A step another thread is taking is not
 * waited for. */
static pthread_mutex_t reclaim_lock = PTHREAD_MUTEX_INITIALIZER;

void mt_hooks_reclaim(void)
{
	static void **batch;
	static struct mt_grace_poll g;
	if (pthread_mutex_trylock(&reclaim_lock))
		return;
	if (batch && mt_grace_over(&g)) {
		for (void **p = batch; *p; p++)
			free(*p);
		free(batch);
		free(g.w);
		batch = NULL;
	}
	if (!batch) {
		pthread_mutex_lock(&mt_reg.lock);     /* (no pass: the registry's alone) */
		void **r = mt_ops_retired();
		pthread_mutex_unlock(&mt_reg.lock);
		g.cap = r ? mt_grace_room() : 0;
		g.w = r ? calloc(g.cap, sizeof *g.w) : NULL;
		if (g.w && !mt_grace_begin(&g)) {
			batch = r;
		} else if (r) {
			free(g.w);
			/* (no memory: the next step, or an unregister) */
			pthread_mutex_lock(&mt_reg.lock);
			mt_ops_unretire(r);
			pthread_mutex_unlock(&mt_reg.lock);
		}
	}
	pthread_mutex_unlock(&reclaim_lock);
}

struct mcount_hook *mcount_hook_create(mcount_hook_fn entry, mcount_hook_fn exit, void *data, unsigned flags)
{
	if ((!entry && !exit) || (flags & ~MCOUNT_HOOK_GENERAL_REGS)) {
		errno = EINVAL;
		return NULL;
	}
	if (!MT_HAVE_HOOKS || (exit && !MT_HAVE_GRAPH)) {
		errno = ENOTSUP;
		return NULL;
	}
	struct mcount_hook *h = calloc(1, sizeof *h);
	char *f = strdup(""), *n = strdup("");
	if (!h || !f || !n) {
		free(f);
		free(n);
		free(h);
		errno = ENOMEM;
		return NULL;
	}
	h->op = (struct mt_op){ .entry = entry, .exit = exit, .data = data, .flags = flags,
				 .filter = f, .notrace = n };
	return h;
}

/* A new filter (which 0) or notrace (1), applied where the hook is
 * registered. */
static int set_filter(struct mcount_hook *h, const char *filter, int which)
{
	if (!h || !filter) {
		errno = EINVAL;
		return -1;
	}
	bool pass;
	if (lock_ready(&pass))
		return -1;
	char *c = strdup(filter);
	if (!c) {
		errno = ENOMEM;
		return unlock_with(pass, -1);
	}
	/* (a hook not registered has its filter checked all the same) */
	if (mt_ops_check(c)) {
		free(c);
		return unlock_with(pass, -1);
	}
	char **slot = which ? &h->op.notrace : &h->op.filter, *old = *slot;
	*slot = c;
	if (h->id && mt_ops_select(h->id)) {
		*slot = old;          /* (no memory: the old one stands) */
		free(c);
		return unlock_with(pass, -1);
	}
	free(old);
	int r = h->id && mt_apply() ? -1 : 0;
	return unlock_with(pass, r);
}

int mcount_hook_filter(struct mcount_hook *h, const char *filter)
{
	return set_filter(h, filter, 0);
}

int mcount_hook_notrace(struct mcount_hook *h, const char *filter)
{
	return set_filter(h, filter, 1);
}

int mcount_hook_register(struct mcount_hook *h)
{
	if (!h) {
		errno = EINVAL;
		return -1;
	}
	bool pass;
	if (lock_ready(&pass))
		return -1;
	if (h->id) {
		errno = EINVAL;
		return unlock_with(pass, -1);
	}
	mt_grace_ready();
	int id = mt_ops_add(&h->op);
	if (id < 0)
		return unlock_with(pass, -1);
	h->id = id;
	if (mt_apply()) {
		/* (the code could not follow: nothing is left hooked) */
		int err = errno;
		mt_ops_remove(id);
		mt_apply();
		mt_ops_idle();
		h->id = 0;
		mt_change_end(pass);
		mt_grace();
		mt_ops_release(id);
		errno = err;
		return -1;
	}
	return unlock_with(pass, 0);
}

int mcount_hook_unregister(struct mcount_hook *h)
{
	if (!h) {
		errno = EINVAL;
		return -1;
	}
	/* (a callback, or a constructor or destructor inside the dynamic
	 * linker, whose lock a callback under way may wait for) */
	if (mt_in_callback() || mt_in_dl()) {
		errno = EDEADLK;
		return -1;
	}
	bool pass;
	if (lock_ready(&pass))
		return -1;
	if (!h->id) {
		errno = EINVAL;
		return unlock_with(pass, -1);
	}
	int id = h->id;
	mt_ops_remove(id);
	h->id = 0;
	/* (a pass that fails leaves sites calling for no one: said, and
	 * harmless; the hook is unregistered all the same) */
	if (mt_apply())
		mt_msg("mcount_hook_unregister: the code could not follow: %s", strerror(errno));
	mt_ops_idle();
	mt_change_end(pass);
	/* the hook's callbacks are never entered again, and those under
	 * way end before this returns; then its id may serve another */
	mt_grace();
	mt_ops_release(id);
	free_retired();
	return 0;
}

void mcount_hook_destroy(struct mcount_hook *h)
{
	if (!h || h->id)
		return;
	free(h->op.filter);
	free(h->op.notrace);
	free(h);
}

/* A redirect (to 0: none) and its pass; an unredirect waits for the
 * calls that read the old target in the hook (not for those already in
 * the replacement: its code must stay). */
static int set_redirect(const char *function, uintptr_t to)
{
	if (!MT_HAVE_REDIRECT) {
		errno = ENOTSUP;
		return -1;
	}
	if (!function) {
		errno = EINVAL;
		return -1;
	}
	if (!to && (mt_in_callback() || mt_in_dl())) {
		errno = EDEADLK;
		return -1;
	}
	bool pass;
	if (lock_ready(&pass))
		return -1;
	if (to)
		mt_grace_ready();
	if (mt_ops_redirect(function, to))
		return unlock_with(pass, -1);
	int r = 0;
	if (mt_apply()) {
		int err = errno;
		if (to) {
			/* (the code could not follow: no redirect is left, the
			 * target's calls under way end before this returns) */
			mt_ops_redirect(function, 0);
			mt_apply();
			mt_ops_idle();
			mt_change_end(pass);
			mt_grace();
			errno = err;
			return -1;
		}
		/* (unredirect: the redirect is gone whatever the code does) */
		mt_msg("mcount_hook_unredirect: the code could not follow: %s", strerror(err));
	}
	if (!to)
		mt_ops_idle();
	mt_change_end(pass);
	if (!to)
		mt_grace();
	return r;
}

int mcount_hook_redirect(const char *function, void *replacement)
{
	if (!replacement) {
		errno = EINVAL;
		return -1;
	}
#if MT_ELFV1
	/* (a pointer to a function is its descriptor: its code is the first word) */
	replacement = *(void **)replacement;
#endif
	return set_redirect(function, (uintptr_t)replacement);
}

int mcount_hook_unredirect(const char *function)
{
	return set_redirect(function, 0);
}
