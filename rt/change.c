/* SPDX-License-Identifier: GPL-2.0-or-later */
/* change.c - how a change of the program's code is made: the pass lock
 * and the registry's lock taken in their order (rt.h, struct
 * mt_registry), the registry brought up to date with the objects loaded
 * (refresh), and the dynamic linker's entry points, inside which a
 * change may wait for no other thread's dlclose().  Below every client
 * that changes the code: control.c (start-up, the control socket, the
 * tracer's API, dlopen and dlclose, fork) and hooks.c (mcount-hooks.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <poll.h>
#include <stddef.h>
#include <string.h>

#include "rt.h"

/* The objects loaded since the last time, their sites and functions
 * found (each a NOP), the filters and function events given so far
 * replayed on them, and the code made to follow (mt_reg.pass and
 * mt_reg.lock held). */
/* The dynamic linker's counts of objects loaded and unloaded
 * (dl_iterate_phdr), as the last refresh saw them: a change reads the
 * objects again where they moved.  The preloaded library wraps dlopen
 * and dlclose, but the C library loads objects of its own (NSS, iconv)
 * past that, and the linked-in library wraps neither. */
static unsigned long long seen_adds, seen_subs;

struct dl_counts {
	unsigned long long adds, subs;
	bool known;
};

static int counts_of(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct dl_counts *c = arg;
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
		c->adds = info->dlpi_adds;
		c->subs = info->dlpi_subs;
		c->known = true;
	}
	return 1;
}

static struct dl_counts dl_counts(void)
{
	struct dl_counts c = { 0, 0, false };
	dl_iterate_phdr(counts_of, &c);
	return c;
}

/* Have objects come or gone since the last refresh (true where that
 * cannot be told)? */
static bool objects_moved(void)
{
	struct dl_counts c = dl_counts();
	return !c.known || c.adds != seen_adds || c.subs != seen_subs;
}

int mt_refresh(void)
{
	struct dl_counts c = dl_counts();
	seen_adds = c.adds;
	seen_subs = c.subs;
	size_t first;
	if (mt_sites_refresh(&first))
		return -1;
	mt_own_unmap_dead();
	mt_protos_refresh(first);
	mt_gf_refresh();
	int r = mt_ops_refresh(first);
	r = mt_apply() || r ? -1 : 0;
	/* (after the pass: each site of a new object is a NOP or traced) */
	return mt_late && mt_hook_slots_ours() ? -1 : r;
}

/* The pass lock (rt.h: the order of the locks), but for one case.  A
 * thread in the C library's dlopen or dlclose (through ours: in_dl)
 * runs the program's code there, constructors and destructors, holding
 * the dynamic linker's lock; another thread's dlclose() may hold the
 * pass lock while it waits for that lock, to enter the C library's
 * dlclose (closer_waits: the holder is at or in it, or has just come
 * out, its objects unmapped, the registry not yet told).  The first
 * does not wait for the second then, and goes on without the pass lock
 * (false is returned), the objects read again first (mt_refresh_bypass,
 * with the registry's lock): until it leaves the dynamic linker nothing
 * is mapped or unmapped, the closer runs no pass, and no other thread
 * holds the pass lock. */
static __thread unsigned in_dl __attribute__((tls_model("initial-exec")));
static atomic_int closer_waits;

bool mt_pass_lock(void)
{
	if (!in_dl) {
		pthread_mutex_lock(&mt_reg.pass);
		return true;
	}
	while (pthread_mutex_trylock(&mt_reg.pass))
		if (atomic_load(&closer_waits))
			return false;
		else
			poll(NULL, 0, 1);
	return true;
}

void mt_pass_unlock(bool held)
{
	if (held)
		pthread_mutex_unlock(&mt_reg.pass);
}

/* Without the pass lock (pass_lock returned false), or where objects
 * came or went past the wrappers of dlopen and dlclose: the registry
 * made to hold what is mapped now, before a pass (registry lock held). */
void mt_refresh_bypass(bool held)
{
	if (atomic_load(&mt_ready) && (!held || objects_moved()) && mt_refresh())
		mt_msg("cannot change the code: %s", strerror(errno));
}

bool mt_change_begin(void)
{
	bool pass = mt_pass_lock();
	pthread_mutex_lock(&mt_reg.lock);
	mt_refresh_bypass(pass);
	return pass;
}

void mt_change_end(bool pass)
{
	int err = errno;
	pthread_mutex_unlock(&mt_reg.lock);
	mt_pass_unlock(pass);
	errno = err;
}

bool mt_in_dl(void)
{
	return in_dl != 0;
}

void mt_dl_enter(void)
{
	in_dl++;
}

void mt_dl_leave(void)
{
	in_dl--;
}

bool mt_close_begin(void)
{
	bool pass = mt_pass_lock();
	if (pass)
		atomic_fetch_add(&closer_waits, 1);
	in_dl++;
	return pass;
}

void mt_close_end(bool pass)
{
	in_dl--;
	if (pass)
		atomic_fetch_sub(&closer_waits, 1);
	if (atomic_load(&mt_ready)) {
		pthread_mutex_lock(&mt_reg.lock);
		mt_refresh();
		pthread_mutex_unlock(&mt_reg.lock);
	}
	mt_pass_unlock(pass);
}

void mt_change_after_fork(void)
{
	atomic_store(&closer_waits, 0);
}
