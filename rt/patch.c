/* SPDX-License-Identifier: GPL-2.0-or-later */
/* patch.c - changing code in the running process.
 *
 * Code is written through /proc/self/mem, as a debugger writes it: the
 * text stays mapped read+execute (never writable and executable), and the
 * kernel gives the process a private copy of each page it writes.  Other
 * threads may be running the code being changed, so every change follows
 * the kernel's breakpoint protocol (text_poke_bp_batch), for a whole
 * batch of sites at once:
 *   1. the trap instruction on each site's first byte;  serialise;
 *   2. the rest of each site's new bytes;                serialise;
 *   3. each site's new first byte;                       serialise.
 * Serialising is membarrier(PRIVATE_EXPEDITED_SYNC_CORE) for the other
 * threads and a serialising instruction for this one.  Where the
 * architecture lets a site's two instructions replace each other in one
 * aligned store while other threads run them (aarch64: BL and NOP), each
 * site is that one store, its cache maintenance, then one serialisation
 * for the batch, and no trap is ever written.  A thread that
 * reaches a site meanwhile traps; the SIGTRAP handler recognises every
 * recorded site (a trap may be delivered after its pass has ended) and
 * emulates the site's new instruction.  Any other trap goes to the
 * program's own SIGTRAP handler, or ends the process as it would have.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt.h"

/* /proc/self/mem, open only during a pass: a descriptor kept open could
 * be closed by the program and its number given to one of the
 * program's files, which a pass would then write into. */
static int mem_fd = -1;
static bool can_write;            /* the kernel let this process open it for writing */
static bool have_sync_core;
static struct sigaction user_trap;   /* the program's own SIGTRAP action */
static atomic_bool trap_claimed;

#ifdef MT_SHARED
#include <dlfcn.h>
/* libc's functions behind the wrappers below, found at start-up (dlsym
 * is no call for a signal handler). */
static __typeof__(sigaction) *real_sigaction;
static __typeof__(sigprocmask) *real_sigprocmask;
static __typeof__(pthread_sigmask) *real_pthread_sigmask;

static void find_reals(void)
{
	real_sigaction = (__typeof__(sigaction) *)dlsym(RTLD_NEXT, "sigaction");
	real_sigprocmask = (__typeof__(sigprocmask) *)dlsym(RTLD_NEXT, "sigprocmask");
	real_pthread_sigmask = (__typeof__(pthread_sigmask) *)dlsym(RTLD_NEXT, "pthread_sigmask");
}

int mt_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!real_sigaction)
		find_reals();
	if (!real_sigaction) {
		errno = ENOSYS;
		return -1;
	}
	return real_sigaction(sig, act, old);
}
#else
/* Linked in, the wrappers below are the program's own definitions (libc
 * defines these names weak, in libc.a too): libc's are reached through
 * __sigaction, which both libc.so and libc.a export, and the masks
 * through the system call itself, less the two signals glibc keeps for
 * itself, as its own functions do. */
extern int __sigaction(int, const struct sigaction *, struct sigaction *);

static void find_reals(void)
{
}

int mt_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return __sigaction(sig, act, old);
}

static int raw_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;
	if (set && how != SIG_UNBLOCK) {
		copy = *set;
		((unsigned long *)&copy)[0] &= ~(3ul << 31);      /* signals 32 and 33 */
		set = &copy;
	}
	long r = syscall(SYS_rt_sigprocmask, how, set, old, 8);
	return r ? errno : 0;
}

static int real_sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int e = raw_sigmask(how, set, old);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

static int real_pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return raw_sigmask(how, set, old);
}
#endif

static void sync_all(void)
{
	if (have_sync_core)
		syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
	mt_arch.sync_self();
}

static void trap_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	if (mt_arch.trap_len && (si->si_code == SI_KERNEL || si->si_code == TRAP_BRKPT)) {
		const struct mt_site *s = mt_site_at(mt_arch.trap_site(uc));
		if (s && !atomic_load_explicit(&s->refused, memory_order_relaxed)) {
			mt_arch.emulate(s, (enum mt_state)atomic_load_explicit(&s->state, memory_order_acquire), uc);
			errno = saved;
			return;
		}
	}
	errno = saved;
	/* As the kernel would have delivered it to the program's action. */
	struct sigaction user = user_trap;
	bool handler = (user.sa_flags & SA_SIGINFO) ||
		(user.sa_handler != SIG_DFL && user.sa_handler != SIG_IGN);
	if (handler) {
		if (user.sa_flags & SA_RESETHAND) {
			memset(&user_trap, 0, sizeof user_trap);
			user_trap.sa_handler = SIG_DFL;
		}
		/* The program's handler runs with the mask the program asked
		 * for: the interrupted one and its sa_mask. */
		sigset_t old, m = ((const ucontext_t *)uc)->uc_sigmask;
		sigorset(&m, &m, &user.sa_mask);
		if (!(user.sa_flags & SA_NODEFER))
			sigaddset(&m, SIGTRAP);
		pthread_sigmask(SIG_SETMASK, &m, &old);
		if (user.sa_flags & SA_SIGINFO)
			user.sa_sigaction(sig, si, uc);
		else
			user.sa_handler(sig);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	} else if (user.sa_handler == SIG_IGN && si->si_code <= 0) {
		/* Sent (kill, raise): ignored.  A trap the kernel raised is
		 * fatal even when ignored, as below. */
	} else {
		/* As without us: the default action, once this handler returns. */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		mt_real_sigaction(SIGTRAP, &dfl, NULL);
		atomic_store(&trap_claimed, false);
		raise(SIGTRAP);
	}
}

/* Install the trap handler, keeping whatever the program installed
 * meanwhile as the action for the traps that are not ours. */
void mt_claim_sigtrap(void)
{
	struct sigaction cur, act;
	if (mt_real_sigaction(SIGTRAP, NULL, &cur))
		return;
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == trap_handler)
		return;
	memset(&act, 0, sizeof act);
	act.sa_sigaction = trap_handler;
	act.sa_flags = SA_SIGINFO | SA_RESTART;
	/* Every signal waits while it runs: SIGTRAP is blocked in its own
	 * handler, and another signal's handler that reached a site being
	 * changed now would be killed by the kernel. */
	sigfillset(&act.sa_mask);
	user_trap = cur;
	if (!mt_real_sigaction(SIGTRAP, &act, NULL))
		atomic_store(&trap_claimed, true);
}

/* A trap on a thread that blocks SIGTRAP kills the process (the kernel
 * resets a blocked synchronous signal to its default action), and any
 * thread may reach a site while it is being changed: so SIGTRAP is
 * never blocked, by a mask or by a handler's sa_mask. */
static const sigset_t *without_trap(const sigset_t *set, sigset_t *copy)
{
	if (!set || !atomic_load(&trap_claimed) || !sigismember(set, SIGTRAP))
		return set;
	*copy = *set;
	sigdelset(copy, SIGTRAP);
	return copy;
}

static int masked(int (*real)(int, const sigset_t *, sigset_t *), int how, const sigset_t *set,
		  sigset_t *old)
{
	sigset_t copy;
	return real(how, how == SIG_UNBLOCK ? set : without_trap(set, &copy), old);
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
#ifdef MT_SHARED
	if (!real_sigprocmask)
		find_reals();
#endif
	return masked(real_sigprocmask, how, set, old);
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
#ifdef MT_SHARED
	if (!real_pthread_sigmask)
		find_reals();
#endif
	return masked(real_pthread_sigmask, how, set, old);
}

/* The program's own SIGTRAP action is kept, not installed: ours stays
 * first and passes on every trap that is not at a recorded site. */
int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction copy;
	if (act && atomic_load(&trap_claimed) && sigismember(&act->sa_mask, SIGTRAP)) {
		copy = *act;
		sigdelset(&copy.sa_mask, SIGTRAP);
		act = &copy;
	}
	if (sig != SIGTRAP || !atomic_load(&trap_claimed))
		return mt_real_sigaction(sig, act, old);
	struct sigaction prev = user_trap;
	if (act)
		user_trap = *act;
	if (old)
		*old = prev;
	return 0;
}

sighandler_t signal(int sig, sighandler_t h)
{
	struct sigaction act, old;
	memset(&act, 0, sizeof act);
	act.sa_handler = h;
	act.sa_flags = SA_RESTART;
	sigemptyset(&act.sa_mask);
	if (sigaction(sig, &act, &old))
		return SIG_ERR;
	return old.sa_handler;
}

int mt_patch_init(void)
{
	find_reals();
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	close(fd);
	can_write = true;
	long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	if (q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) &&
	    !syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0))
		have_sync_core = true;
	mt_claim_sigtrap();
	return 0;
}

void mt_patch_after_fork(void)
{
	if (have_sync_core)
		syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
}

/* One phase's writes: (address, bytes) in address order, written as few
 * spans as possible (bytes in between are rewritten as they are). */
struct poke {
	uintptr_t addr;
	unsigned char b[8];
	unsigned n;
};

#define SPAN_GAP 256
#define SPAN_MAX (256 * 1024)

static int write_pokes(const struct poke *p, size_t n)
{
	static unsigned char buf[SPAN_MAX + 16];
	size_t i = 0;
	while (i < n) {
		uintptr_t lo = p[i].addr, hi = p[i].addr + p[i].n;
		size_t j = i + 1;
		while (j < n && p[j].addr <= hi + SPAN_GAP && p[j].addr + p[j].n - lo <= SPAN_MAX) {
			if (p[j].addr + p[j].n > hi)
				hi = p[j].addr + p[j].n;
			j++;
		}
		memcpy(buf, (const void *)lo, hi - lo);
		for (size_t k = i; k < j; k++)
			memcpy(buf + (p[k].addr - lo), p[k].b, p[k].n);
		ssize_t w = pwrite(mem_fd, buf, hi - lo, (off_t)lo);
		if (w != (ssize_t)(hi - lo)) {
			if (w >= 0)
				errno = EIO;
			return -1;
		}
		i = j;
	}
	return 0;
}

static void refused_now(const struct mt_site *s)
{
	const struct mt_object *o = mt_reg.objs[s->obj];
	const unsigned char *p = (const unsigned char *)s->addr;
	mt_reg.bad_sites++;
	mt_msg("%s: %#lx <%s>: changed by someone else (bytes %02x %02x %02x %02x %02x): left alone",
	       o->name, (unsigned long)s->addr, mt_reg.funcs[s->func].name, p[0], p[1], p[2], p[3], p[4]);
}


struct collect {
	struct mt_site **batch;
	size_t n;
};

/* A site whose function's flag says another state joins the batch. */
static void collect_site(struct mt_site *s, void *arg)
{
	struct collect *c = arg;
	enum mt_state want = mt_reg.funcs[s->func].want ? MT_CALL : MT_NOP;
	enum mt_state now = (enum mt_state)atomic_load(&s->state);
	if (now == want || atomic_load(&s->refused))
		return;
	/* Never write over bytes that are not what this library left
	 * there: a debugger's breakpoint, another tool's patch. */
	unsigned char b[16];
	mt_arch.bytes(s, now, b);
	if (memcmp((const void *)s->addr, b, s->len)) {
		atomic_store(&s->refused, true);
		refused_now(s);
		return;
	}
	c->batch[c->n++] = s;
}

/* Where the architecture allows a site's two states to replace each
 * other while it runs (mt_arch.trap_len 0): each site is one pwrite of
 * its whole instruction, never merged into a span (a longer copy in the
 * kernel need not store each instruction in one access), then the cache
 * maintenance for it; one sync for the batch.  A site whose write failed
 * keeps its old bytes and state. */
static int apply_single_stores(struct mt_site **batch, size_t n)
{
	int rc = 0, err = 0;
	for (size_t i = 0; i < n; i++) {
		struct mt_site *s = batch[i];
		enum mt_state old = (enum mt_state)atomic_load(&s->state);
		enum mt_state to = old == MT_CALL ? MT_NOP : MT_CALL;
		unsigned char b[16];
		mt_arch.bytes(s, to, b);
		atomic_store_explicit(&s->state, to, memory_order_release);
		ssize_t w = pwrite(mem_fd, b, s->len, (off_t)s->addr);
		if (w != (ssize_t)s->len) {
			atomic_store_explicit(&s->state, old, memory_order_release);
			if (!rc)
				err = w >= 0 ? EIO : errno;
			rc = -1;
			continue;
		}
		__builtin___clear_cache((char *)s->addr, (char *)s->addr + s->len);
	}
	sync_all();
	if (rc)
		errno = err;
	return rc;
}

static int site_ptr_cmp(const void *a, const void *b)
{
	const struct mt_site *x = *(struct mt_site *const *)a, *y = *(struct mt_site *const *)b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int mt_apply(void)
{
	struct mt_view *v = atomic_load_explicit(&mt_view, memory_order_acquire);
	if (!v || !v->n || !can_write) {
		mt_each_changed_site(NULL, NULL);
		if (!can_write && v && v->n) {
			errno = EPERM;
			return -1;
		}
		return 0;
	}
	mt_claim_sigtrap();
	/* Kept from pass to pass (the lock is held): one function's
	 * change must not cost an allocation the size of every site. */
	static struct mt_site **batch_mem;
	static struct poke *pk;
	static size_t cap;
	if (cap < v->n) {
		struct mt_site **nb = realloc(batch_mem, v->n * sizeof *nb);
		if (nb)
			batch_mem = nb;
		struct poke *np = nb ? realloc(pk, v->n * sizeof *np) : NULL;
		if (np)
			pk = np;
		if (!nb || !np) {
			errno = ENOMEM;
			return -1;
		}
		cap = v->n;
	}
	struct collect c = { batch_mem, 0 };
	mt_each_changed_site(collect_site, &c);
	struct mt_site **batch = c.batch;
	size_t n = c.n;
	if (n && (mem_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC)) < 0) {
		mt_sites_all_dirty();     /* a later pass tries again */
		return -1;
	}
	for (size_t i = 1; i < n; i++) {
		if (batch[i - 1]->addr > batch[i]->addr) {
			qsort(batch, n, sizeof *batch, site_ptr_cmp);
			break;
		}
	}
	int rc = 0;
	if (n && !mt_arch.trap_len) {
		rc = apply_single_stores(batch, n);
	} else if (n) {
		/* 1: the trap on the first byte; traps now emulate the new state. */
		for (size_t i = 0; i < n; i++) {
			struct mt_site *s = batch[i];
			atomic_store_explicit(&s->state, atomic_load(&s->state) == MT_CALL ? MT_NOP : MT_CALL,
					      memory_order_release);
			pk[i].addr = s->addr;
			memcpy(pk[i].b, mt_arch.trap, mt_arch.trap_len);
			pk[i].n = mt_arch.trap_len;
		}
		rc = write_pokes(pk, n);
		sync_all();
		/* 2: the tail of each new instruction. */
		for (size_t i = 0; !rc && i < n; i++) {
			struct mt_site *s = batch[i];
			unsigned char b[16];
			mt_arch.bytes(s, (enum mt_state)atomic_load(&s->state), b);
			pk[i].addr = s->addr + mt_arch.trap_len;
			pk[i].n = s->len - mt_arch.trap_len;
			memcpy(pk[i].b, b + mt_arch.trap_len, pk[i].n);
		}
		if (!rc)
			rc = write_pokes(pk, n);
		sync_all();
		/* 3: the first byte.  After a failure, each site gets back
		 * whole bytes of one state or the other, never the trap. */
		for (size_t i = 0; i < n; i++) {
			struct mt_site *s = batch[i];
			unsigned char b[16];
			mt_arch.bytes(s, (enum mt_state)atomic_load(&s->state), b);
			pk[i].addr = s->addr;
			pk[i].n = rc ? s->len : mt_arch.trap_len;
			memcpy(pk[i].b, b, pk[i].n);
		}
		int rc3 = write_pokes(pk, n);
		sync_all();
		if (!rc)
			rc = rc3;
	}
	if (n) {
		int saved = errno;
		close(mem_fd);
		mem_fd = -1;
		errno = saved;
	}
	return rc;
}
