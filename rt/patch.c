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
 * for the batch, and no trap is ever written.  Where neither is safe
 * (riscv64), the batch is written behind fenced pages: each page that
 * holds a site of the batch is made read-only (not executable) for the
 * writes, a thread that reaches one meanwhile takes a SIGSEGV whose
 * handler waits until the pages are executable again and returns to
 * the instruction, which runs anew; the kernel's own stop_machine,
 * one page at a time.  A thread that
 * reaches a site meanwhile traps; the SIGTRAP handler recognises every
 * recorded site (a trap may be delivered after its pass has ended) and
 * emulates the site's new instruction.  Any other trap goes to the
 * program's own SIGTRAP handler, or ends the process as it would have.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64          /* pwrite at an address above 2 GiB (32-bit) */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cpu.h"
#include "rt.h"

/* /proc/self/mem, open only during a pass: a descriptor kept open could
 * be closed by the program and its number given to one of the
 * program's files, which a pass would then write into. */
static int mem_fd = -1;
static bool can_write;            /* the kernel let this process open it for writing */
static bool have_sync_core;
/* No SYNC_CORE, and the architecture serialises a thread that returns
 * from the IPI of PRIVATE_EXPEDITED (mt_arch.expedited): that one. */
static bool have_expedited;
static uintptr_t page_size;

/* The signals this library takes first: SIGTRAP (the breakpoint
 * protocol's traps) and, where sites are written behind fenced pages,
 * SIGSEGV (a thread that reached one).  Every other trap or fault goes
 * on to the program's own action for it, kept in user. */
struct claim {
	int sig;
	void (*handler)(int, siginfo_t *, void *);
	struct sigaction user;
	atomic_bool claimed;
};
static void trap_handler(int sig, siginfo_t *si, void *uc);
static void fence_handler(int sig, siginfo_t *si, void *uc);
static struct claim claims[] = { { .sig = SIGTRAP, .handler = trap_handler },
				 { .sig = SIGSEGV, .handler = fence_handler } };
#define NCLAIMS (sizeof claims / sizeof claims[0])
#define TRAP_CLAIM (&claims[0])
#define FENCE_CLAIM (&claims[1])

static struct claim *claim_of(int sig)
{
	for (size_t i = 0; i < NCLAIMS; i++)
		if (claims[i].sig == sig && atomic_load(&claims[i].claimed))
			return &claims[i];
	return NULL;
}

#ifdef MT_SHARED
#include <dlfcn.h>
/* libc's functions behind the wrappers below, found at start-up (dlsym
 * is no call for a signal handler). */
static __typeof__(sigaction) *real_sigaction;
static __typeof__(sigprocmask) *real_sigprocmask;
static __typeof__(pthread_sigmask) *real_pthread_sigmask;
static int (*real_signalfd)(int, const sigset_t *, int);

static void find_reals(void)
{
	real_sigaction = (__typeof__(sigaction) *)dlsym(RTLD_NEXT, "sigaction");
	real_sigprocmask = (__typeof__(sigprocmask) *)dlsym(RTLD_NEXT, "sigprocmask");
	real_pthread_sigmask = (__typeof__(pthread_sigmask) *)dlsym(RTLD_NEXT, "pthread_sigmask");
	real_signalfd = (int (*)(int, const sigset_t *, int))dlsym(RTLD_NEXT, "signalfd");
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
		unsigned long *w = (unsigned long *)&copy;
		for (unsigned sig = 32; sig <= 33; sig++)          /* bit sig - 1, in words of longs */
			w[(sig - 1) / (8 * sizeof *w)] &= ~(1ul << (sig - 1) % (8 * sizeof *w));
		set = &copy;
	}
	long r = syscall(SYS_rt_sigprocmask, how, set, old, (size_t)(_NSIG / 8));   /* the kernel's set: 16 bytes on mips */
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

/* libc's signalfd is the system call with the kernel's size of a set */
static int real_signalfd(int fd, const sigset_t *mask, int flags)
{
	return (int)syscall(SYS_signalfd4, fd, mask, (size_t)(_NSIG / 8), flags);
}
#endif

static void sync_all(void)
{
	if (have_sync_core)
		syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
	else if (have_expedited)
		syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
	mt_arch.sync_self(0, 0);
}

/* Fenced pages (mt_arch.fence_pages; below). */
static _Atomic unsigned fence_gen;         /* odd while pages are fenced */
/* Every page ever fenced is in [fence_lo, fence_hi). */
static _Atomic uintptr_t fence_lo = UINTPTR_MAX, fence_hi;
static __thread bool fencing __attribute__((tls_model("initial-exec")));
/* The fault this thread last returned from once, outside a pass. */
static __thread uintptr_t retried_at __attribute__((tls_model("initial-exec")));
static __thread unsigned retried_gen __attribute__((tls_model("initial-exec")));
extern const char __start_mt_fence_text[], __stop_mt_fence_text[];

/* Until no pass has pages fenced, unless this thread is making one: a
 * handler of the program's may be on a fenced page. */
static inline __attribute__((always_inline)) void fence_wait(void)
{
	unsigned g;
	while (!fencing && ((g = atomic_load(&fence_gen)) & 1))
		mt_raw6(SYS_futex, (long)&fence_gen, FUTEX_WAIT_PRIVATE, (long)g, 0, 0, 0);
}

/* A signal that is not ours, as the kernel would have delivered it to
 * the program's action. */
static void pass_on(struct claim *c, int sig, siginfo_t *si, void *uc)
{
	struct sigaction user = c->user;
	bool handler = (user.sa_flags & SA_SIGINFO) ||
		(user.sa_handler != SIG_DFL && user.sa_handler != SIG_IGN);
	if (handler) {
		if (user.sa_flags & SA_RESETHAND) {
			memset(&c->user, 0, sizeof c->user);
			c->user.sa_handler = SIG_DFL;
		}
		/* The program's handler runs with the mask the program asked
		 * for: the interrupted one and its sa_mask. */
		sigset_t old, m = ((const ucontext_t *)uc)->uc_sigmask;
		sigorset(&m, &m, &user.sa_mask);
		if (!(user.sa_flags & SA_NODEFER))
			sigaddset(&m, sig);
		pthread_sigmask(SIG_SETMASK, &m, &old);
		if (user.sa_flags & SA_SIGINFO)
			user.sa_sigaction(sig, si, uc);
		else
			user.sa_handler(sig);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	} else if (user.sa_handler == SIG_IGN && si->si_code <= 0) {
		/* Sent (kill, raise): ignored.  A trap or fault the kernel
		 * raised is fatal even when ignored, as below. */
	} else {
		/* As without us: the default action, once this handler
		 * returns.  A fault the kernel raised happens again when the
		 * instruction runs again (and the core shows it as it was);
		 * a trap is past its instruction, and a sent signal is sent
		 * again. */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		mt_real_sigaction(sig, &dfl, NULL);
		atomic_store(&c->claimed, false);
		if (sig != SIGSEGV || si->si_code <= 0)
			raise(sig);
	}
}

static MT_FENCE_TEXT void trap_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	fence_wait();
	if (mt_arch.trap_len && (si->si_code == SI_KERNEL || si->si_code == TRAP_BRKPT)) {
		/* (counted while it reads the view: sites.c, retire_views) */
		atomic_fetch_add(&mt_view_readers, 1);
		atomic_thread_fence(memory_order_seq_cst);
		const struct mt_site *s = mt_site_at(mt_arch.trap_site(uc));
		bool ours = s && !atomic_load_explicit(&s->refused, memory_order_relaxed);
		if (ours)
			mt_arch.emulate(s, (enum mt_state)atomic_load_explicit(&s->state, memory_order_acquire), uc);
		atomic_fetch_sub_explicit(&mt_view_readers, 1, memory_order_release);
		if (ours) {
			errno = saved;
			return;
		}
	}
	errno = saved;
	pass_on(TRAP_CLAIM, sig, si, uc);
}

/* Install the handlers, keeping whatever the program installed
 * meanwhile as the action for the signals that are not ours. */
void mt_claim_signals(void)
{
	for (size_t i = 0; i < NCLAIMS; i++) {
		struct claim *c = &claims[i];
		if (c->sig == SIGSEGV && !mt_arch.fence_pages)
			continue;
		struct sigaction cur, act;
		if (mt_real_sigaction(c->sig, NULL, &cur))
			continue;
		if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == c->handler)
			continue;
		memset(&act, 0, sizeof act);
		act.sa_sigaction = c->handler;
		act.sa_flags = SA_SIGINFO | SA_RESTART;
		/* Every other signal waits while it runs: another signal's
		 * handler that reached a site being changed now would trap in
		 * it.  But SIGTRAP, never blocked (a thread that blocks it is
		 * killed by a breakpoint, and one that blocks it keeps a
		 * breakpoint from being written, traps_begin): a trap in the
		 * program's own handler, which the trap handler passes a
		 * signal on to, comes back to it.  And for SIGSEGV where pages
		 * are fenced: a thread in either handler may reach a fenced
		 * page, and must wait there. */
		sigfillset(&act.sa_mask);
		sigdelset(&act.sa_mask, SIGTRAP);
		if (c->sig == SIGTRAP)
			act.sa_flags |= SA_NODEFER;
		if (mt_arch.fence_pages) {
			sigdelset(&act.sa_mask, SIGSEGV);
			if (c->sig == SIGSEGV)
				act.sa_flags |= SA_NODEFER;
		}
		c->user = cur;
		if (!mt_real_sigaction(c->sig, &act, NULL))
			atomic_store(&c->claimed, true);
	}
}

/* A trap or fault on a thread that blocks its signal kills the process
 * (the kernel resets a blocked synchronous signal to its default
 * action), and any thread may reach a site while it is being changed:
 * so a claimed signal is kept out of the masks the program sets, and of
 * a handler's sa_mask.  But for SIGTRAP once the program reads it
 * itself (trap_read, below), in a mask (keep_trap). */
static atomic_int trap_read;       /* (a word: riscv64 has no byte-wide exchange without libatomic) */
static const sigset_t *without_claimed(const sigset_t *set, sigset_t *copy, bool keep_trap)
{
	if (!set)
		return set;
	const sigset_t *r = set;
	for (size_t i = 0; i < NCLAIMS; i++) {
		if (!atomic_load(&claims[i].claimed) || !sigismember(r, claims[i].sig) ||
		    (keep_trap && claims[i].sig == SIGTRAP))
			continue;
		if (r == set) {
			*copy = *set;
			r = copy;
		}
		sigdelset(copy, claims[i].sig);
	}
	return r;
}

/* SIGTRAP in the program's own hands.  A program that reads SIGTRAP
 * through a signalfd needs it blocked (the kernel queues a blocked
 * signal for the descriptor; an unblocked one goes to the handler):
 * from its first signalfd of SIGTRAP on (trap_read), its masks keep
 * SIGTRAP, and the thread that makes it blocks it again if the program
 * had asked it to (trap_wanted: what the program last set, whether the
 * library kept it out or not; the mask the program reads back says
 * it).  A thread that blocks SIGTRAP, by these or by any other means (a
 * mask set by the system call itself, inherited through execve), would
 * be killed by a breakpoint at a site: before a pass writes one, no
 * thread may block it (traps_blocked), and a thread that is about to
 * block it through the wrappers waits for the pass to end
 * (block_begin): trap_gen is odd from the check to the end of the pass,
 * trap_blockers counts the threads between their look at it and their
 * mask's change. */
static __thread bool trap_wanted __attribute__((tls_model("initial-exec")));
static __thread bool trap_passing __attribute__((tls_model("initial-exec")));
static _Atomic unsigned trap_gen, trap_blockers;

static void block_begin(void)
{
	for (;;) {
		atomic_fetch_add(&trap_blockers, 1);
		unsigned g = atomic_load(&trap_gen);
		if (!(g & 1) || trap_passing)
			return;
		atomic_fetch_sub(&trap_blockers, 1);
		mt_raw6(SYS_futex, (long)&trap_gen, FUTEX_WAIT_PRIVATE, (long)g, 0, 0, 0);
	}
}

static void block_end(void)
{
	atomic_fetch_sub(&trap_blockers, 1);
}

static int masked(int (*real)(int, const sigset_t *, sigset_t *), int how, const sigset_t *set,
		  sigset_t *old)
{
	sigset_t copy;
	bool keep = atomic_load(&trap_read), was = trap_wanted;
	bool in = set && sigismember(set, SIGTRAP) == 1;      /* (old may be set) */
	bool blocks = keep && in && how != SIG_UNBLOCK;
	if (blocks)
		block_begin();
	int r = real(how, how == SIG_UNBLOCK ? set : without_claimed(set, &copy, keep), old);
	if (blocks)
		block_end();
	if (r)
		return r;
	if (old && was)
		sigaddset(old, SIGTRAP);
	if (set)
		trap_wanted = how == SIG_BLOCK ? was || in : how == SIG_UNBLOCK ? was && !in : in;
	return r;
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

/* The program's own action for a claimed signal is kept, not
 * installed: ours stays first and passes on every trap or fault that
 * is not ours. */
int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction copy;
	sigset_t m;
	if (act && without_claimed(&act->sa_mask, &m, false) != &act->sa_mask) {
		copy = *act;
		copy.sa_mask = m;
		act = &copy;
	}
	struct claim *c = claim_of(sig);
	if (!c)
		return mt_real_sigaction(sig, act, old);
	struct sigaction prev = c->user;
	if (act)
		c->user = *act;
	if (old)
		*old = prev;
	return 0;
}

/* (a program may pass NULL: the system call says EFAULT) */
static bool holds_trap(const sigset_t *set)
{
	return set && sigismember(set, SIGTRAP) == 1;
}

/* The program reads SIGTRAP itself: its masks keep it from now on, and
 * this thread blocks it again if the program asked it to. */
int signalfd(int fd, const sigset_t *mask, int flags)
{
#ifdef MT_SHARED
	if (!real_signalfd)
		find_reals();
	if (!real_signalfd) {
		errno = ENOSYS;
		return -1;
	}
#endif
	if (holds_trap(mask) && !atomic_exchange(&trap_read, 1) && trap_wanted) {
		sigset_t t;
		sigemptyset(&t);
		sigaddset(&t, SIGTRAP);
		block_begin();
		real_pthread_sigmask(SIG_BLOCK, &t, NULL);
		block_end();
	}
	return real_signalfd(fd, mask, flags);
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
	else if (mt_arch.expedited && q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
		 !syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0))
		have_expedited = true;
	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	mt_claim_signals();
	return 0;
}

void mt_patch_after_fork(void)
{
	/* the child's only thread is in no wrapper and no pass */
	atomic_store(&trap_blockers, 0);
	atomic_store(&trap_gen, 0);
	trap_passing = false;
	if (have_sync_core)
		syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
	else if (have_expedited)
		syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0);
}

/* n bytes at addr, through /proc/self/mem (open during a pass, or while
 * a trampoline is written: both have the registry's lock, so the
 * descriptor's offset is theirs).
 * pwrite refuses an offset beyond off_t's range (Linux: EINVAL for a
 * negative one), and sparc64 maps shared objects there (0xfff8...):
 * the file takes any offset by lseek, then write. */
static ssize_t mem_write(const void *b, size_t n, uintptr_t addr)
{
	off_t off = (off_t)addr;
	if (off >= 0)
		return pwrite(mem_fd, b, n, off);
	errno = 0;
	if (lseek(mem_fd, off, SEEK_SET) == -1 && errno)
		return -1;
	return write(mem_fd, b, n);
}

bool mt_late;

/* A slot is one aligned word, written through /proc/self/mem (under
 * RELRO the GOT is read-only once relocated) as code is: a thread's
 * call through it reads it whole, the C library's hook or ours (whose
 * call from a site in no table is only counted). */
int mt_hook_slots_ours(void)
{
	int fd = -1, rc = 0;
	for (size_t i = 0; i < mt_reg.nobjs; i++) {
		const struct mt_object *o = mt_reg.objs[i];
		if (!o->live || o->own_hook)
			continue;
		for (size_t j = 0; j < o->nhook_slots; j++) {
			uintptr_t ours = o->hook_slot_ours[j];
			if (!ours || *(volatile const uintptr_t *)o->hook_slots[j] == ours)
				continue;
			if (fd < 0 && (fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC)) < 0)
				return -1;
			if (pwrite(fd, &ours, sizeof ours, (off_t)o->hook_slots[j]) != (ssize_t)sizeof ours) {
				int err = errno ? errno : EIO;
				mt_msg("%s: cannot give the GOT slot at %#lx our hook: %s", o->name ? o->name : "(program)",
				       (unsigned long)o->hook_slots[j], strerror(err));
				errno = err;
				rc = -1;
			}
		}
	}
	if (fd >= 0)
		close(fd);
	return rc;
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
		ssize_t w = mem_write(buf, hi - lo, lo);
		if (w != (ssize_t)(hi - lo)) {
			if (w >= 0)
				errno = EIO;
			return -1;
		}
		i = j;
	}
	return 0;
}

/* A site refused for good: its bytes (p, as read) are not this
 * library's, or its page holds the code that writes sites. */
static void refused_now(struct mt_site *s, bool changed, const unsigned char *p)
{
	const struct mt_object *o = mt_reg.objs[s->obj];
	atomic_store(&s->refused, true);
	mt_reg.bad_sites++;
	unsigned char b[5] = { 0 };
	memcpy(b, p, s->len < sizeof b ? s->len : sizeof b);
	if (changed)
		mt_msg("%s: %#lx <%s>: changed by someone else (bytes %02x %02x %02x %02x %02x): left alone",
		       o->name, (unsigned long)s->addr, mt_reg.funcs[s->func].name, b[0], b[1], b[2], b[3], b[4]);
	else
		mt_msg("%s: %#lx <%s>: on a page of the tracer's own code that writes sites: left alone",
		       o->name, (unsigned long)s->addr, mt_reg.funcs[s->func].name);
}

/* Why the last pass failed to change a site it could not read (EFAULT),
 * for the caller's error (registry lock held). */
static char apply_why[256];

const char *mt_apply_why(void)
{
	return apply_why;
}

/* The bytes of a site as memory holds them (s->len of them into b),
 * through /proc/self/mem, which cannot fault: where process_vm_readv
 * is refused.  0, or -1 with errno. */
static int site_read_mem(const struct mt_site *s, unsigned char *b)
{
	int fd = mem_fd >= 0 ? mem_fd : open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	off_t off = (off_t)s->addr;
	ssize_t n;
	if (off >= 0) {
		n = pread(fd, b, s->len, off);
	} else {
		errno = 0;                /* (sparc64's high addresses: see mem_write) */
		n = lseek(fd, off, SEEK_SET) == -1 && errno ? -1 : read(fd, b, s->len);
	}
	int e = n == (ssize_t)s->len ? 0 : n >= 0 ? EFAULT : errno;
	if (fd != mem_fd)
		close(fd);
	errno = e;
	return e ? -1 : 0;
}

/* The bytes of the sites batch[0..n) as memory holds them, into
 * pk[i].b (pk[i].n: their number; 0 and err[i] set: that site cannot
 * be read).  Read by the kernel as /proc/self/mem writes them, never by
 * a load of the library's, which a page the program made inaccessible
 * would turn into a SIGSEGV: process_vm_readv on this process, which
 * fails (EFAULT) where the program itself could not read, as on a
 * PROT_NONE page.  Its cost is each remote piece's (its pages pinned
 * one piece at a time): sites less than READ_GAP apart are read as one
 * piece of memory, the bytes between them into a scratch buffer, a
 * thousand pieces a call (one call a site would slow a start-up with
 * many; IOV_MAX local pieces a call).  It stops at the first piece it cannot read whole; that
 * piece's sites are read again one piece each, up to the first that
 * cannot be read, whose bytes are then not taken (READ_GAP is less than
 * a page: the bytes between two sites are unreadable only where the
 * second is).  Where that system call is refused (ENOSYS, or EPERM from
 * a seccomp filter), /proc/self/mem itself.  Registry lock held. */
#define READ_BATCH 1024
#define READ_GAP 256
static void sites_read(struct mt_site *const *batch, size_t n, struct poke *pk, int *err)
{
	static struct iovec local[READ_BATCH], remote[READ_BATCH];
	static unsigned short gap_before[READ_BATCH];
	static bool piece_start[READ_BATCH];
	static unsigned char scratch[READ_GAP];
	bool by_mem = false;
	size_t one_by_one = 0;            /* sites before this index: a piece each */
	long pid = (long)getpid();
	for (size_t i = 0; i < n;) {
		if (by_mem) {
			pk[i].n = site_read_mem(batch[i], pk[i].b) ? 0 : batch[i]->len;
			err[i] = pk[i].n ? 0 : errno;
			i++;
			continue;
		}
		bool merge = i >= one_by_one;
		size_t k = 0, nl = 0, nr = 0, want = 0;
		uintptr_t hi = 0;
		while (i + k < n && nl + 2 <= READ_BATCH) {
			const struct mt_site *s = batch[i + k];
			gap_before[k] = 0;
			piece_start[k] = !(merge && nr && s->addr >= hi && s->addr - hi <= READ_GAP);
			if (!piece_start[k]) {
				gap_before[k] = (unsigned short)(s->addr - hi);
				if (gap_before[k])
					local[nl++] = (struct iovec){ scratch, gap_before[k] };
				remote[nr - 1].iov_len += s->addr + s->len - hi;
			} else {
				remote[nr++] = (struct iovec){ (void *)s->addr, s->len };
			}
			local[nl++] = (struct iovec){ pk[i + k].b, s->len };
			want += gap_before[k] + s->len;
			hi = s->addr + s->len;
			k++;
		}
		long r = syscall(SYS_process_vm_readv, pid, local, (long)nl, remote, (long)nr, 0L);
		if (r < 0 && (errno == ENOSYS || errno == EPERM)) {
			by_mem = true;
			continue;
		}
		int e = r < 0 ? errno : EFAULT;
		size_t got = r > 0 ? (size_t)r : 0, j = 0;
		/* whole sites, in order, up to the first that could not be read */
		for (; j < k && got >= gap_before[j] + batch[i + j]->len; j++) {
			got -= gap_before[j] + batch[i + j]->len;
			pk[i + j].n = batch[i + j]->len;
			err[i + j] = 0;
		}
		if ((size_t)r == want || j == k) {
			i += k;
			continue;
		}
		/* (the piece that failed, from its first site: a piece each) */
		while (j > 0 && !piece_start[j])
			j--;
		if (j + 1 < k && !piece_start[j + 1]) {
			one_by_one = i + k;
			i += j;
			continue;
		}
		pk[i + j].n = 0;
		err[i + j] = e;
		i += j + 1;
	}
}

/* A site this pass cannot read: said, left in its state (not refused:
 * the program may make its page readable again, and a later change of
 * its function tries again).  Its function is wanted as the site is, as
 * after any change that fails (want_as_is): status says what the code
 * does, and the next pass brings the function's other sites back to it
 * (the caller makes every site dirty). */
static void unreadable_now(const struct mt_site *s, int err)
{
	const struct mt_object *o = mt_reg.objs[s->obj];
	if (!(mt_reg.funcs[s->func].hooks & ~MT_TRACED))
		mt_set_traced(&mt_reg.funcs[s->func], atomic_load(&s->state) != MT_NOP);
	char why[sizeof apply_why];
	snprintf(why, sizeof why, "%s: %#lx <%s>: cannot be read (%s): left as it is", o->name,
		 (unsigned long)s->addr, mt_reg.funcs[s->func].name, strerror(err));
	mt_msg("%s", why);
	if (!*apply_why)
		memcpy(apply_why, why, sizeof why);
}

/* ---- fenced pages (mt_arch.fence_pages) ---- */

struct range {
	uintptr_t lo, hi;
};

static uintptr_t page_of(uintptr_t a)
{
	return a & ~(page_size - 1);
}

/* A fetch from a fenced page: wait until the pass that fenced it ends,
 * then run the instruction again.  A fault there just after a pass
 * (the handler ran late) is run again once; one that happens again is
 * not ours.  Any other fault waits for the pass too before it goes on to
 * the program's handler, which may be on a fenced page.  Runs on the
 * faulting thread, which may be anywhere in the program: in the fence
 * section, calling only the kernel, until no page is fenced; with
 * SA_NODEFER, so that a fault on a page a later pass fences, in code
 * this handler goes on to, waits in turn. */
static MT_FENCE_TEXT void fence_handler(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	bool maybe = si->si_code == SEGV_ACCERR && !fencing && a >= atomic_load(&fence_lo) &&
		     a < atomic_load(&fence_hi);
	unsigned g = atomic_load(&fence_gen);
	if ((g & 1) && !fencing) {
		fence_wait();
		if (maybe)
			return;
		g = atomic_load(&fence_gen);
	}
	if (maybe && (retried_at != a || retried_gen != g)) {
		retried_at = a;
		retried_gen = g;
		return;
	}
	int saved = errno;
	pass_on(FENCE_CLAIM, sig, si, uc);
	errno = saved;
}

/* The writes of a fenced pass: every page of rg made read-only, each
 * poke written, the pages executable again, every thread's instruction
 * fetch brought up to date.  Calls only the kernel (and sync_self, in
 * the same section).  Returns how many pokes were written: all unless
 * the kernel refused something (*err its errno). */
static MT_FENCE_TEXT size_t fence_write(const struct range *rg, size_t nrg, const struct poke *p, size_t n,
					 int fd, long *err)
{
	size_t k = 0, w = 0;
	long r = 0;
	for (; k < nrg && !r; k++)
		r = mt_raw6(SYS_mprotect, (long)rg[k].lo, (long)(rg[k].hi - rg[k].lo), PROT_READ, 0, 0, 0);
	if (r)
		k--;
	for (; !r && w < n; w++) {
		long q = mt_raw_pwrite(fd, p[w].b, p[w].n, p[w].addr);
		if (q != (long)p[w].n) {
			r = q < 0 ? q : -EIO;
			break;
		}
	}
	/* The new code for every thread's instruction fetch, before any
	 * thread can run it (arm flushes each range's caches; riscv64's
	 * one call covers them all). */
	for (size_t i = 0; i < k; i++) {
		mt_arch.sync_self(rg[i].lo, rg[i].hi);
		if (mt_arch.sync_whole)
			break;
	}
	/* Executable again, whatever it takes: a thread waits for it. */
	for (size_t i = 0; i < k; i++)
		for (int tries = 0; tries < 1000; tries++)
			if (!mt_raw6(SYS_mprotect, (long)rg[i].lo, (long)(rg[i].hi - rg[i].lo), PROT_READ | PROT_EXEC,
				     0, 0, 0))
				break;
	*err = -r;
	return w;
}

/* Sharing a page with the code above, a site cannot be fenced: only
 * where the library is linked into the program. */
static bool near_fence_code(const struct mt_site *s)
{
	return page_of(s->addr) < page_of((uintptr_t)__stop_mt_fence_text + page_size - 1) &&
	       page_of((uintptr_t)__start_mt_fence_text) < s->addr + s->len;
}

/* A batch behind fenced pages: the pages of its sites as ranges, the
 * sites' new bytes, one fenced write.  The thread takes no signal
 * meanwhile (a handler of the program's may be on a fenced page).  A
 * site that was not written keeps its old bytes and state. */
static int apply_fenced(struct mt_site **batch, size_t n, struct poke *pk, struct range *rg)
{
	size_t nrg = 0;
	for (size_t i = 0; i < n; i++) {
		struct mt_site *s = batch[i];
		uintptr_t lo = page_of(s->addr), hi = page_of(s->addr + s->len + page_size - 1);
		if (nrg && lo <= rg[nrg - 1].hi)
			rg[nrg - 1].hi = hi > rg[nrg - 1].hi ? hi : rg[nrg - 1].hi;
		else
			rg[nrg++] = (struct range){ lo, hi };
		pk[i].addr = s->addr;
		pk[i].n = s->len;
		mt_arch.bytes(s, (enum mt_state)s->next, pk[i].b);
	}
	if (rg[0].lo < atomic_load(&fence_lo))
		atomic_store(&fence_lo, rg[0].lo);
	if (rg[nrg - 1].hi > atomic_load(&fence_hi))
		atomic_store(&fence_hi, rg[nrg - 1].hi);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	fencing = true;
	atomic_fetch_add(&fence_gen, 1);
	long err;
	size_t w = fence_write(rg, nrg, pk, n, mem_fd, &err);
	atomic_fetch_add(&fence_gen, 1);
	mt_raw6(SYS_futex, (long)&fence_gen, FUTEX_WAKE_PRIVATE, INT32_MAX, 0, 0, 0);
	fencing = false;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (size_t i = 0; i < w; i++)
		atomic_store_explicit(&batch[i]->state, batch[i]->next, memory_order_release);
	if (w < n) {
		errno = (int)err;
		return -1;
	}
	return 0;
}


/* ---- SIGTRAP blocked (trap_read, above) ---- */

_Atomic long mt_library_tid;

/* /proc/self/task/TID/NAME read into buf (size bytes, a NUL after what
 * was read): its length, or -1 with errno. */
static ssize_t task_file(long tid, const char *name, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%ld/%s", tid, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, size - 1);
	int err = errno;
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	errno = err;
	return n;
}

/* Each other thread of the process (not this one, nor the library's own
 * control thread, which never runs a site): fn(tid, its stat line from
 * the closing parenthesis of its name on, arg), until fn returns
 * non-zero, which is returned; 0 when every thread was seen; -1 with
 * errno where /proc/self/task or a thread's stat cannot be read (a
 * thread gone meanwhile is passed over: it runs nothing). */
static long each_other_thread(long (*fn)(long tid, const char *st, void *arg), void *arg)
{
	int dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -1;
	long self = syscall(SYS_gettid), r = 0;
	static char ents[4096];
	long got;
	while (!r && (got = syscall(SYS_getdents64, dir, ents, sizeof ents)) > 0) {
		for (long off = 0; off < got && !r;) {
			/* struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name */
			unsigned short reclen;
			memcpy(&reclen, ents + off + 16, sizeof reclen);
			const char *name = ents + off + 19;
			off += reclen;
			char *end;
			long tid = strtol(name, &end, 10);
			if (*end || tid <= 0 || tid == self || tid == atomic_load(&mt_library_tid))
				continue;
			/* (stat, not status: the kernel makes it in half the
			 * time) */
			char st[1024];
			ssize_t n = task_file(tid, "stat", st, sizeof st);
			if (n == 0 || (n < 0 && (errno == ENOENT || errno == ESRCH)))
				continue;             /* gone meanwhile */
			const char *b = n > 0 ? strrchr(st, ')') : NULL;
			if (!b && n > 0)
				errno = EIO;          /* (no name in it: not a stat line) */
			r = b ? fn(tid, b, arg) : -1;
		}
	}
	int err = errno;
	close(dir);
	errno = err;
	return got < 0 && !r ? -1 : r;
}

/* each_other_thread's: tid if it blocks SIGTRAP now (the 32nd field of
 * its stat, the 30th after the name, its blocked signals in decimal),
 * else 0.  Loaded by mcount-attach, whose ptrace keeps every other
 * thread in tracing stop, 't', until the call that runs this pass
 * returns, the library asks no such thread: it meets no breakpoint,
 * whatever it blocks (as glibc's new thread blocks every signal for a
 * moment). */
static long blocks_trap(long tid, const char *b, void *arg)
{
	(void)arg;
	if (mt_late && b[1] == ' ' && b[2] == 't')
		return 0;
	for (int field = 2; b && field < 32; field++)
		b = strchr(b + 1, ' ');
	return b && strtoull(b + 1, NULL, 10) >> (SIGTRAP - 1) & 1 ? tid : 0;
}

/* The ID of a thread of the process other than this one (and the
 * library's own control thread) that blocks SIGTRAP now; 0 if none (or
 * -1 with errno if they cannot be read). */
static long trap_blocker(void)
{
	return each_other_thread(blocks_trap, NULL);
}

/* Before a pass writes breakpoints: from now until traps_end, a thread
 * that would block SIGTRAP through the wrappers waits; then no thread
 * may block it.  A thread may for a moment (as glibc starts a new one,
 * or in a handler of the program's whose sa_mask came through the
 * system call): looked at again after pauses that double, two seconds
 * in all (a moment can be long: a new thread not yet given a processor
 * on an emulated machine, its others busy, held one past a quarter of a
 * second).  0, or the ID of the thread that blocks it (-1: /proc could
 * not be read). */
static long traps_begin(void)
{
	trap_passing = true;
	atomic_fetch_add(&trap_gen, 1);
	while (atomic_load(&trap_blockers))
		syscall(SYS_sched_yield);
	long t = 0;
	for (long wait = 0; wait <= 1024000000; wait = wait ? 2 * wait : 1000000) {
		struct timespec ts = { wait / 1000000000, wait % 1000000000 };
		if (wait)
			nanosleep(&ts, NULL);         /* 1 ms, 2, 4... 2047 ms in all */
		if ((t = trap_blocker()) <= 0)
			break;
	}
	return t;
}

static void traps_end(void)
{
	atomic_fetch_add(&trap_gen, 1);
	mt_raw6(SYS_futex, (long)&trap_gen, FUTEX_WAKE_PRIVATE, INT32_MAX, 0, 0, 0);
	trap_passing = false;
}

/* A pass that would put breakpoints in the way of thread tid, which
 * blocks SIGTRAP: said, once a thread. */
static void trap_refused(long tid, size_t n)
{
	static long said;
	if (tid == said)
		return;
	said = tid;
	if (tid < 0)
		mt_msg("cannot read the threads' signal masks in /proc/self/task (%s): no site changed, since one that "
		       "blocks SIGTRAP would be killed by a breakpoint", strerror(errno));
	else
		mt_msg("thread %ld blocks SIGTRAP (%s): a breakpoint at a site would kill it, so %zu site%s "
		       "stay%s as %s: the change is refused while a thread blocks it", tid,
		       atomic_load(&trap_read) ? "the program reads it through a signalfd"
					       : "its mask was set otherwise than through sigprocmask or pthread_sigmask",
		       n, n == 1 ? "" : "s", n == 1 ? "s" : "", n == 1 ? "it is" : "they are");
}

struct collect {
	struct mt_site **batch;
	size_t n;
};

static bool own_stub(struct mt_site *s);

/* A site whose function's flags say another state joins the batch, the
 * state in s->next: a NOP where no user wants it, its function's own
 * trampoline where one hook alone does and it can have one, else the
 * call to the hook. */
static void collect_site(struct mt_site *s, void *arg)
{
	struct collect *c = arg;
	/* (its users as the hot path will see them, before its code changes) */
	mt_ops_publish(s->func);
	const struct mt_func *f = &mt_reg.funcs[s->func];
	enum mt_state want = !mt_func_on(f) ? MT_NOP
		: mt_arch.own_fits && mt_ops_own(f) && mt_arch.own_fits(s, f->addr) && own_stub(s) ? MT_OWN : MT_CALL;
	enum mt_state now = (enum mt_state)atomic_load(&s->state);
	if (now == want || atomic_load(&s->refused))
		return;
	s->next = (uint8_t)want;
	c->batch[c->n++] = s;
}

/* Of the sites collected, those whose bytes are what this library left
 * there stay in the batch (compacted): never write over a debugger's
 * breakpoint, another tool's patch, nor a site that cannot be read
 * (counted in *unreadable).  pk and err: room for n. */
static size_t check_batch(struct mt_site **batch, size_t n, struct poke *pk, int *err, size_t *unreadable)
{
	sites_read(batch, n, pk, err);
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		struct mt_site *s = batch[i];
		if (!pk[i].n) {
			unreadable_now(s, err[i]);
			++*unreadable;
			continue;
		}
		unsigned char b[16];
		mt_arch.bytes(s, (enum mt_state)atomic_load(&s->state), b);
		bool changed = memcmp(pk[i].b, b, s->len) != 0;
		if (changed || (mt_arch.fence_pages && near_fence_code(s))) {
			refused_now(s, changed, pk[i].b);
			continue;
		}
		batch[kept++] = s;
	}
	return kept;
}

/* Where the architecture allows a site's two states to replace each
 * other while it runs (mt_arch.trap_len 0): each site is one pwrite of
 * its whole instruction, never merged into a span (a longer copy in the
 * kernel need not store each instruction in one access), then the cache
 * maintenance for it (sync_self over the site); one sync for the batch.  A site whose write failed
 * keeps its old bytes and state. */
static int apply_single_stores(struct mt_site **batch, size_t n)
{
	int rc = 0, err = 0;
	/* A site whose NOP is still the compiler's (bare) first becomes the
	 * NOP of its call, which differs from the compiler's in more than
	 * one store can change while it runs, but is a NOP either way; every
	 * thread serialises, and only then does the call's store follow. */
	bool bared = false;
	for (size_t i = 0; i < n; i++) {
		struct mt_site *s = batch[i];
		if (!s->bare)
			continue;
		if (!have_sync_core && !have_expedited) {
			/* no way to make every thread see the NOP of the call
			 * before its call: the site stays off */
			if (!rc)
				err = ENOSYS;
			rc = -1;
			continue;
		}
		unsigned char b[16];
		s->bare = false;
		mt_arch.bytes(s, MT_NOP, b);
		ssize_t w = mem_write(b, s->len, s->addr);
		if (w != (ssize_t)s->len) {
			s->bare = true;   /* it keeps its state; a later pass tries again */
			if (!rc)
				err = w >= 0 ? EIO : errno;
			rc = -1;
			continue;
		}
		mt_arch.sync_self(s->addr, s->addr + s->len);
		bared = true;
	}
	if (bared)
		sync_all();
	for (size_t i = 0; i < n; i++) {
		struct mt_site *s = batch[i];
		if (s->bare)
			continue;
		enum mt_state old = (enum mt_state)atomic_load(&s->state);
		enum mt_state to = (enum mt_state)s->next;
		unsigned char b[16];
		mt_arch.bytes(s, to, b);
		atomic_store_explicit(&s->state, to, memory_order_release);
		ssize_t w = mem_write(b, s->len, s->addr);
		if (w != (ssize_t)s->len) {
			atomic_store_explicit(&s->state, old, memory_order_release);
			if (!rc)
				err = w >= 0 ? EIO : errno;
			rc = -1;
			continue;
		}
		mt_arch.sync_self(s->addr, s->addr + s->len);
	}
	sync_all();
	if (rc)
		errno = err;
	return rc;
}

/* The trampoline pages made so far, and the code each holds. */
static struct {
	uintptr_t page;
	const void *code;
} tramps[16];
static size_t ntramps;

/* Is [a, a + len) within reach of near, both ways? */
static bool within(uintptr_t near, uintptr_t reach, uintptr_t a, size_t len)
{
	uintptr_t end = a + len - 1;
	if (end < a)
		return false;
	uintptr_t d1 = a < near ? near - a : a - near, d2 = end < near ? near - end : end - near;
	return d1 <= reach && d2 <= reach;
}

/* Pages at hint exactly, readable and executable from the start (never
 * writable: as a site, their code is written through /proc/self/mem,
 * which a policy that forbids making memory executable after writing
 * it, such as MemoryDenyWriteExecute, allows), holding code[0..len)
 * (or made by fill, given their address, where code is NULL); 0 if they
 * cannot be. */
static uintptr_t tramp_at(uintptr_t hint, const void *code, size_t len,
			  void (*fill)(unsigned char *out, uintptr_t at, void *arg), void *arg)
{
	size_t mlen = (len + page_size - 1) & ~(page_size - 1);
	void *m = mmap((void *)hint, mlen, PROT_READ | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (m == MAP_FAILED)
		return 0;
	unsigned char *made = NULL;
	if ((uintptr_t)m == hint && !code && (made = malloc(len)) != NULL) {
		fill(made, hint, arg);
		code = made;
	}
	/* A kernel older than 4.17 takes MAP_FIXED_NOREPLACE for a hint. */
	bool own = mem_fd < 0 && (uintptr_t)m == hint;
	if (own)
		mem_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	ssize_t w = (uintptr_t)m == hint && mem_fd >= 0 && code ? mem_write(code, len, hint) : -1;
	if (own && mem_fd >= 0) {
		close(mem_fd);
		mem_fd = -1;
	}
	free(made);
	if (w != (ssize_t)len) {
		munmap(m, mlen);
		return 0;
	}
	mt_arch.sync_self(hint, hint + len);
	return hint;
}

uintptr_t mt_tramp_near(uintptr_t near, uintptr_t reach, const void *code, size_t len)
{
	static bool none;                 /* a search failed: every other would */
	if (!page_size || len > page_size || none)
		return 0;
	for (size_t k = 0; k < ntramps; k++)
		if (tramps[k].code == code && within(near, reach, tramps[k].page, len))
			return tramps[k].page;
	if (ntramps == sizeof tramps / sizeof tramps[0])
		return 0;
	const uintptr_t step = (uintptr_t)1 << 20;
	uintptr_t base = near & ~(step - 1);
	for (int up = 0; up < 2; up++)
		for (uintptr_t d = step; d + step <= reach; d += step) {
			uintptr_t hint = up ? base + d : base - d;
			if (up ? hint < base : hint > base || hint < step)
				break;                /* wrapped, or into the first MB */
			/* within reach: near is less than a step from base,
			 * and d + step <= reach */
			uintptr_t t = tramp_at(hint, code, len, NULL, NULL);
			if (t) {
				tramps[ntramps].page = t;
				tramps[ntramps++].code = code;
				return t;
			}
		}
	none = true;
	return 0;
}

/* ---- own trampolines (mt_arch.own_fits) ---- */

struct own_fill {
	uint32_t first, n;
};

static void own_fill(unsigned char *out, uintptr_t at, void *arg)
{
	const struct own_fill *f = arg;
	mt_arch.own_region(out, at, f->first, f->n);
}

/* The region of an object's own trampolines: one for each of its
 * functions (an object's are added together: an interval of indices),
 * in free pages within reach of all its code, below it first, in steps
 * of 1 MB; made once, never unmapped (a thread may be in it), its code
 * never changed (a function's stub names the function alone: which
 * hook it serves is read at each call). */
static bool own_region_of(struct mt_object *o, uint16_t oi)
{
	if (o->own_base || o->own_failed)
		return o->own_base != 0;
	o->own_failed = true;
	uint32_t first = 0, n = 0;
	for (size_t i = 0; i < mt_reg.nfuncs; i++)
		if (mt_reg.funcs[i].obj == oi) {
			if (!n)
				first = (uint32_t)i;
			n = (uint32_t)(i - first + 1);
		}
	if (!n || !o->nexec || !page_size)
		return false;
	struct own_fill fl = { first, n };
	size_t len = mt_arch.own_head + (size_t)n * mt_arch.own_stride;
	uintptr_t lo = o->exec_lo[0], hi = o->exec_hi[o->nexec - 1], reach = mt_arch.own_reach;
	const uintptr_t step = (uintptr_t)1 << 20;
	uintptr_t span = (len + step - 1) & ~(step - 1);
	for (int up = 0; up < 2; up++)
		for (uintptr_t d = 0; d <= reach; d += step) {
			uintptr_t h = up ? ((hi + step - 1) & ~(step - 1)) + d : (lo & ~(step - 1)) - span - d;
			if (up ? h < hi : h > lo || h < step)
				break;                /* wrapped, or into the first MB */
			if (!within(lo, reach, h, len) || !within(hi, reach, h, len))
				break;                /* (farther on is farther still) */
			uintptr_t at = tramp_at(h, NULL, len, own_fill, &fl);
			if (at) {
				o->own_base = at;
				o->own_first = first;
				o->own_n = n;
				o->own_failed = false;
				return true;
			}
		}
	return false;
}

void mt_own_unmap_dead(void)
{
	for (size_t k = 0; k < mt_reg.nobjs; k++) {
		struct mt_object *o = mt_reg.objs[k];
		if (o->live || !o->own_base)
			continue;
		size_t len = mt_arch.own_head + (size_t)o->own_n * mt_arch.own_stride;
		munmap((void *)o->own_base, (len + page_size - 1) & ~(page_size - 1));
		o->own_base = 0;
		o->own_failed = true;
	}
}

/* The site's own trampoline, made if it has none yet: false if it
 * cannot have one (the call to the hook serves it then). */
static bool own_stub(struct mt_site *s)
{
	if (s->own)
		return true;
	struct mt_object *o = mt_reg.objs[s->obj];
	if (!own_region_of(o, s->obj) || s->func < o->own_first || s->func - o->own_first >= o->own_n)
		return false;
	s->own = o->own_base + mt_arch.own_head + (uintptr_t)(s->func - o->own_first) * mt_arch.own_stride;
	return true;
}

/* After a pass that failed: a function one of whose sites did not
 * change (its write failed, or /proc/self/mem could not be opened: a
 * chroot without /proc) is wanted as that site is, so that status says
 * what its code does; the next pass brings its other sites back to it,
 * and a new enable or disable tries again.  (batch: in address order,
 * so a function's sites are next to each other.) */
static void want_as_is(struct mt_site **batch, size_t n)
{
	for (size_t i = 0; i < n;) {
		struct mt_func *f = &mt_reg.funcs[batch[i]->func];
		bool want = mt_traced(f);
		size_t j = i;
		/* (a function a hook selects keeps its flags: the pass tries
		 * again each time) */
		for (; j < n && batch[j]->func == batch[i]->func; j++)
			if ((atomic_load(&batch[j]->state) != MT_NOP) != want && !(f->hooks & ~MT_TRACED))
				mt_set_traced(f, !want);
		i = j;
	}
	mt_sites_all_dirty();
}

/* ---- -fpatchable-function-entry's sites made ready (mt_arch.prep) ---- */

/* stopped_pcs's, through each_other_thread */
struct pcs {
	uintptr_t *pc;
	size_t n, cap;
};

static long stopped_pc(long tid, const char *b, void *arg)
{
	struct pcs *p = arg;
	if (b[1] != ' ' || b[2] != 't' || p->n >= p->cap)
		return -1;
	/* (syscall: "NR ARGS... SP PC", "-1 SP PC" out of one; its own
	 * thread group may read it) */
	char st[512];
	const char *pc = task_file(tid, "syscall", st, sizeof st) > 0 ? strrchr(st, ' ') : NULL;
	if (!pc || strncmp(pc + 1, "0x", 2))
		return -1;
	p->pc[p->n++] = (uintptr_t)strtoull(pc + 1, NULL, 16);
	return 0;
}

/* The PCs of the other threads of the process (but the library's
 * control thread), if each is stopped by a tracer ('t' in its stat:
 * mcount-attach's, which runs this thread), into pcs (at most cap);
 * their number, or -1 if one runs (or may run at any time: stopped by
 * a signal, which SIGCONT ends), or its PC cannot be read.  At start-up
 * there is no other thread (0). */
static long stopped_pcs(uintptr_t *pcs, size_t cap)
{
	struct pcs p = { pcs, 0, cap };
	return each_other_thread(stopped_pc, &p) ? -1 : (long)p.n;
}

/* The raw sites (mt_raw_pending) made ready: each site's writes
 * (mt_arch.prep), the quiet ones only where no other thread can run and
 * none stopped is inside them; a site that cannot be is refused, said
 * (once an object, with a count).  Registry lock held. */
static void prep_raw(struct mt_view *v)
{
	mt_raw_pending = false;
	uintptr_t pcs[256];
	long npc = -2;                    /* not looked yet */
	size_t refused = 0, done = 0;
	uint16_t last_obj = 0;
	bool opened = false;
	for (size_t i = 0; i < v->n; i++) {
		struct mt_site *s = &v->sites[i];
		if (!s->raw || atomic_load(&s->refused) || !mt_arch.prep)
			continue;
		struct mt_prep w[MT_PREP_MAX];
		unsigned nw = mt_arch.prep(s, w);
		const char *why = NULL;
		for (unsigned k = 0; k < nw && !why; k++) {
			if (!w[k].quiet)
				continue;
			if (npc == -2)
				npc = stopped_pcs(pcs, sizeof pcs / sizeof pcs[0]);
			if (npc < 0)
				why = "-fpatchable-function-entry NOPs loaded while other threads run: never made one "
				      "instruction (a thread may be inside them)";
			for (long t = 0; t < npc && !why; t++)
				if (pcs[t] > w[k].at && pcs[t] < w[k].at + w[k].n)
					why = "-fpatchable-function-entry NOPs that a stopped thread is inside";
		}
		if (!why && !opened) {
			if (mem_fd < 0 && (mem_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC)) < 0)
				why = "/proc/self/mem cannot be opened";
			else
				opened = true;
		}
		for (unsigned k = 0; k < nw && !why; k++) {
			if (mem_write(w[k].b, w[k].n, w[k].at) != (ssize_t)w[k].n)
				why = "its NOPs could not be written";
			else if (!mt_arch.trap_len && !mt_arch.sync_whole)
				mt_arch.sync_self(w[k].at, w[k].at + w[k].n);   /* (as apply_single_stores) */
		}
		if (!why) {
			s->raw = false;
			done++;
			continue;
		}
		atomic_store(&s->refused, true);
		mt_reg.bad_sites++;
		if (refused && s->obj != last_obj)
			refused = 0;
		if (!refused++)
			mt_msg("%s: %#lx <%s>: %s: left alone", mt_reg.objs[s->obj]->name, (unsigned long)s->addr,
			       mt_reg.funcs[s->func].name, why);
		else if (refused == 2)
			mt_msg("%s: and more sites of it likewise", mt_reg.objs[s->obj]->name);
		last_obj = s->obj;
	}
	if (opened) {
		close(mem_fd);
		mem_fd = -1;
	}
	if (done)
		sync_all();
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
	mt_claim_signals();
	/* Kept from pass to pass (the lock is held): one function's
	 * change must not cost an allocation the size of every site. */
	static struct mt_site **batch_mem;
	static struct poke *pk;
	static struct range *rg;
	static int *errs;
	static size_t cap;
	if (cap < v->n) {
		struct mt_site **nb = realloc(batch_mem, v->n * sizeof *nb);
		if (nb)
			batch_mem = nb;
		struct poke *np = nb ? realloc(pk, v->n * sizeof *np) : NULL;
		if (np)
			pk = np;
		struct range *nr = np ? realloc(rg, v->n * sizeof *nr) : NULL;
		if (nr)
			rg = nr;
		int *ne = nr ? realloc(errs, v->n * sizeof *ne) : NULL;
		if (ne)
			errs = ne;
		if (!ne) {
			errno = ENOMEM;
			return -1;
		}
		cap = v->n;
	}
	if (mt_raw_pending)
		prep_raw(v);
	struct collect c = { batch_mem, 0 };
	apply_why[0] = 0;
	mt_each_changed_site(collect_site, &c);
	struct mt_site **batch = c.batch;
	size_t unreadable = 0;
	size_t n = check_batch(batch, c.n, pk, errs, &unreadable);
	for (size_t i = 1; i < n; i++) {
		if (batch[i - 1]->addr > batch[i]->addr) {
			qsort(batch, n, sizeof *batch, site_ptr_cmp);
			break;
		}
	}
	if (n && (mem_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC)) < 0) {
		int err = errno;
		want_as_is(batch, n);
		errno = err;
		return -1;
	}
	int rc = 0;
	long blocker;
	if (n && mt_arch.fence_pages) {
		rc = apply_fenced(batch, n, pk, rg);
	} else if (n && !mt_arch.trap_len) {
		rc = apply_single_stores(batch, n);
	} else if (n && (blocker = traps_begin()) != 0) {
		int err = blocker < 0 ? errno : EBUSY;
		traps_end();
		trap_refused(blocker, n);
		errno = err;
		rc = -1;
	} else if (n) {
		/* 1: the trap on the first byte; traps now emulate the new state. */
		for (size_t i = 0; i < n; i++) {
			struct mt_site *s = batch[i];
			atomic_store_explicit(&s->state, s->next, memory_order_release);
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
		traps_end();
		if (!rc)
			rc = rc3;
	}
	if (n) {
		int saved = errno;
		close(mem_fd);
		mem_fd = -1;
		if (rc)
			want_as_is(batch, n);
		errno = saved;
	}
	if (unreadable) {
		mt_sites_all_dirty();     /* (unreadable_now changed what is wanted) */
		if (!rc) {
			errno = EFAULT;   /* the others were changed: apply_why says which not */
			rc = -1;
		}
	}
	return rc;
}
