/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mcount-attach - load a library into a running process: mcount-trace
 * attach's helper (installed in libexec/, beside mcount-scan).
 *
 *   mcount-attach [-n NAME] [-t MILLISECONDS] PID LIBRARY
 *
 * Whether the process may be traced is looked at first, and a refusal
 * names its cause (Yama's ptrace_scope, another user's process, one
 * traced already: by whom, a program with no dlopen in any object it
 * has mapped).  Then every thread is stopped (PTRACE_SEIZE and
 * PTRACE_INTERRUPT, /proc/PID/task read again until it names no thread
 * not stopped), one thread stopped where it holds none of the locks
 * dlopen takes is made to call the process's own dlopen(LIBRARY,
 * RTLD_NOW) (the C library's, found in its dynamic symbol table and the
 * process's maps), returning to address 0, whose fault stops it again;
 * its registers, vector state and the stack words written are given
 * back as they were, and every thread is let go, each with the signal
 * it was stopped with, and the injected thread with those that came
 * meanwhile.  The locks: see choose() and run_call().
 *
 * Where LIBRARY is mapped already, its state is read in the process's
 * memory (mt_attach_state, rt.h): running, it is said and nothing is
 * done; detached (mcount-trace detach), the library's own start-up is
 * called again the same way (mt_attach_start, found in its dynamic
 * symbol table: a second dlopen would run no constructor), its code
 * added to where no thread may be stopped for the call.
 *
 * Exit status: 0 loaded or started again (or running already: said), 1 refused or failed
 * (said), 2 bad usage.  Messages: "NAME: PID: message" on standard
 * error, NAME being -n's (default mcount-attach). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#include "arch-x86_64.h"
#else
#error "mcount-attach: no such architecture yet (attach/arch-*.h)"
#endif

#ifndef PTRACE_EVENT_STOP
#define PTRACE_EVENT_STOP 128
#endif

static const char *prog = "mcount-attach";
static pid_t pid;
static const char *calling = "dlopen";     /* the function called, for messages */

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: %d: ", prog, (int)pid);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static bool verbose;
#define NOTE(...) do { if (verbose) say(__VA_ARGS__); } while (0)

/* How long the process was stopped (-v says it): from the first
 * interrupt of the round whose thread made the call to the last thread
 * let go. */
static struct timespec stop_t0;

static double ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* ---- what /proc says ---- */

static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 4096, n = 0;
	char *b = malloc(cap + 1);
	for (ssize_t r; b; n += (size_t)r) {
		if (n == cap && !(b = realloc(b, (cap *= 2) + 1)))
			break;
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			r = 0;
		else if (r <= 0)
			break;
	}
	close(fd);
	if (b) {
		b[n] = 0;
		if (len)
			*len = n;
	}
	return b;
}

/* The number after "KEY:" in /proc/P/status (-1: none). */
static long status_field(pid_t p, const char *key, int nth)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/status", (int)p);
	char *s = slurp(path, NULL);
	long v = -1;
	size_t kl = strlen(key);
	for (char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, kl) || l[kl] != ':')
			continue;
		char *p2 = l + kl + 1;
		for (int i = 0; i <= nth; i++)
			v = strtol(p2, &p2, 10);
		break;
	}
	free(s);
	return v;
}

static bool have_cap_sys_ptrace(void)
{
	char *s = slurp("/proc/self/status", NULL);
	char *c = s ? strstr(s, "\nCapEff:") : NULL;
	bool have = c && (strtoull(c + 8, NULL, 16) >> 19 & 1);
	free(s);
	return have;
}

/* "PID (comm)" of the tracer, what can be read of it. */
static void tracer_name(long t, char *out, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/comm", t);
	char *c = slurp(path, NULL);
	if (c)
		c[strcspn(c, "\n")] = 0;
	if (c && *c)
		snprintf(out, len, "process %ld (%s)", t, c);
	else
		snprintf(out, len, "process %ld", t);
	free(c);
}

/* Why this process may not ptrace PID, when it can be told beforehand;
 * NULL when nothing is against it. */
static const char *refusal(char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d", (int)pid);
	struct stat st;
	if (stat(path, &st))
		return errno == ENOENT ? "no such process" : (snprintf(buf, len, "%s: %s", path, strerror(errno)), buf);
	char *stat_s = (snprintf(path, sizeof path, "/proc/%d/stat", (int)pid), slurp(path, NULL));
	char *rp = stat_s ? strrchr(stat_s, ')') : NULL;
	bool zombie = rp && rp[1] == ' ' && rp[2] == 'Z';
	free(stat_s);
	if (zombie)
		return "a zombie (exited, not yet reaped)";
	if (pid == getpid())
		return "that is this process";
	bool cap = have_cap_sys_ptrace();
	long tracer = status_field(pid, "TracerPid", 0);
	if (tracer > 0) {
		char who[128];
		tracer_name(tracer, who, sizeof who);
		snprintf(buf, len, "traced already by %s: a process has one tracer at a time (a debugger, strace, "
			 "or an attach under way)", who);
		return buf;
	}
	uid_t me = getuid();
	/* (root too, which the kernel lets trace it: the library's socket
	 * answers the process's own user alone, and it would be loaded for
	 * no one's use) */
	for (int i = 0; i < 3; i++) {
		long u = status_field(pid, "Uid", i);
		if (u >= 0 && (uid_t)u != me) {
			snprintf(buf, len, "another user's process (user %ld): its control socket would answer that "
				 "user alone: run mcount-trace attach as that user", u);
			return buf;
		}
	}
	char *y = slurp("/proc/sys/kernel/yama/ptrace_scope", NULL);
	int scope = y ? atoi(y) : 0;
	free(y);
	if (scope >= 3)
		return "Yama's /proc/sys/kernel/yama/ptrace_scope is 3: no process may be attached to, until reboot";
	if (scope == 2 && !cap)
		return "Yama's /proc/sys/kernel/yama/ptrace_scope is 2: only root (CAP_SYS_PTRACE) may attach";
	return NULL;
}

/* Why PTRACE_SEIZE (or process_vm_readv, which the kernel lets or not
 * as it does PTRACE_SEIZE) failed with err, in words. */
static void seize_refused(int err)
{
	char *y = slurp("/proc/sys/kernel/yama/ptrace_scope", NULL);
	int scope = y ? atoi(y) : 0;
	free(y);
	long tracer = status_field(pid, "TracerPid", 0);
	if (err == EPERM && tracer > 0) {
		char who[128];
		tracer_name(tracer, who, sizeof who);
		say("refused: traced already by %s", who);
	} else if (err == EPERM && scope == 1 && !have_cap_sys_ptrace()) {
		say("refused: Yama's /proc/sys/kernel/yama/ptrace_scope is 1: only a process's ancestors (or one "
		    "it names with PR_SET_PTRACER) may attach to it; run as root, or set it to 0");
	} else if (err == EPERM) {
		say("refused: the kernel does not let this process trace it (%s): another user's, a privileged "
		    "(set-user-ID) or not dumpable one (PR_SET_DUMPABLE 0)", strerror(err));
	} else {
		say("cannot attach: %s", strerror(err));
	}
}

/* ---- maps and symbols ---- */

struct map {
	uintptr_t lo, hi, off;
	char perm[5];
	unsigned long long ino;
	char *path;
};
static struct map *maps;
static size_t nmaps;

static int read_maps(void)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	char *s = slurp(path, NULL);
	if (!s)
		return -1;
	for (char *l = s; *l;) {
		char *e = strchr(l, '\n');
		if (e)
			*e = 0;
		struct map m = { 0 };
		int at = 0;
		unsigned dmaj, dmin;
		if (sscanf(l, "%lx-%lx %4s %lx %x:%x %llu %n", &m.lo, &m.hi, m.perm, &m.off, &dmaj, &dmin, &m.ino,
			   &at) >= 7) {
			m.path = strdup(at ? l + at : "");
			struct map *n = realloc(maps, (nmaps + 1) * sizeof *maps);
			if (!n || !m.path)
				return -1;
			maps = n;
			maps[nmaps++] = m;
		}
		if (!e)
			break;
		l = e + 1;
	}
	free(s);
	return 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* A range of code: [lo, hi). */
struct range {
	uintptr_t lo, hi;
};
static struct range unsafe[64];     /* the dynamic linker's code, malloc's */
static size_t nunsafe;

static void add_unsafe(uintptr_t lo, uintptr_t hi)
{
	if (nunsafe < sizeof unsafe / sizeof *unsafe && lo < hi)
		unsafe[nunsafe++] = (struct range){ lo, hi };
}

static bool is_unsafe(uintptr_t a)
{
	for (size_t i = 0; i < nunsafe; i++)
		if (a >= unsafe[i].lo && a < unsafe[i].hi)
			return true;
	return false;
}

/* The C library's functions of its allocator: a thread inside one may
 * hold its arena's lock, which dlopen takes too. */
static const char *const alloc_fns[] = { "malloc", "free", "calloc", "realloc", "reallocarray", "memalign",
	"aligned_alloc", "posix_memalign", "valloc", "pvalloc", "malloc_trim", "malloc_usable_size", "mallinfo",
	"mallinfo2", "malloc_stats", "malloc_info", "mallopt", "__libc_malloc", "__libc_free", "__libc_calloc",
	"__libc_realloc", "__libc_memalign" };

/* One object mapped: its file read (through /proc/PID/root, the
 * process's own view of the file system), its load bias from the
 * mapping of its first bytes; finds dlopen, dlerror and the allocator's
 * extent.  Returns whether it is an ELF object with a dynamic symbol
 * table. */
struct found {
	uintptr_t dlopen, dlerror, mode_fn;  /* mode_fn: __libc_dlopen_mode (glibc < 2.34's libc) */
	const char *where;
	uintptr_t start, state;              /* the library's: mt_attach_start, mt_attach_state */
};

static bool read_object(const struct map *m, struct found *f)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "/proc/%d/root%s", (int)pid, m->path);
	size_t len;
	char *b = slurp(path, &len);
	if (!b)
		return false;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;
	bool ok = false;
	if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ARCH_CLASS ||
	    eh->e_machine != ARCH_MACHINE || eh->e_shoff >= len || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    (len - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum || eh->e_phoff >= len ||
	    (len - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum)
		goto out;
	/* the bias: the first PT_LOAD's page at the mapping of offset 0 */
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(b + eh->e_phoff);
	uintptr_t first = UINTPTR_MAX;
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0)
			first = ph[i].p_vaddr & ~(uintptr_t)4095;
	if (first == UINTPTR_MAX)
		goto out;
	uintptr_t bias = m->lo - first;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(b + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		/* (the symbol table too, for the library's two symbols alone:
		 * a program that links libmcount-trace.a in exports neither) */
		bool dyn = sh[i].sh_type == SHT_DYNSYM;
		if ((!dyn && sh[i].sh_type != SHT_SYMTAB) || sh[i].sh_link >= eh->e_shnum)
			continue;
		const Elf64_Shdr *str = &sh[sh[i].sh_link];
		if (sh[i].sh_offset > len || sh[i].sh_size > len - sh[i].sh_offset || str->sh_offset > len ||
		    str->sh_size > len - str->sh_offset || sh[i].sh_entsize != sizeof(Elf64_Sym))
			continue;
		ok = ok || dyn;
		const Elf64_Sym *sym = (const Elf64_Sym *)(b + sh[i].sh_offset);
		const char *names = b + str->sh_offset;
		uintptr_t alo = UINTPTR_MAX, ahi = 0;
		for (size_t j = 1; j < sh[i].sh_size / sizeof *sym; j++) {
			if (sym[j].st_shndx == SHN_UNDEF || sym[j].st_name >= str->sh_size ||
			    (ELF64_ST_TYPE(sym[j].st_info) != STT_FUNC && ELF64_ST_TYPE(sym[j].st_info) != STT_OBJECT))
				continue;
			const char *n = names + sym[j].st_name;
			if (strnlen(n, str->sh_size - sym[j].st_name) == str->sh_size - sym[j].st_name)
				continue;
			uintptr_t a = bias + sym[j].st_value;
			if (ELF64_ST_TYPE(sym[j].st_info) == STT_OBJECT) {
				if (!strcmp(n, "mt_attach_state"))
					f->state = a;
				continue;
			}
			if (!strcmp(n, "mt_attach_start"))
				f->start = a;
			if (!dyn)
				continue;
			if (!strcmp(n, "dlopen") && !f->dlopen) {
				f->dlopen = a;
				f->where = m->path;
			} else if (!strcmp(n, "dlerror") && !f->dlerror) {
				f->dlerror = a;
			} else if (!strcmp(n, "__libc_dlopen_mode") && !f->mode_fn) {
				f->mode_fn = a;
				if (!f->where)
					f->where = m->path;
			}
			for (size_t k = 0; k < sizeof alloc_fns / sizeof *alloc_fns; k++)
				if (!strcmp(n, alloc_fns[k])) {
					alo = a < alo ? a : alo;
					ahi = a + sym[j].st_size > ahi ? a + sym[j].st_size : ahi;
				}
		}
		/* (from the first of its functions to the end of the last:
		 * malloc.c's code is one object of the C library's, the
		 * functions it keeps to itself among them) */
		if (ahi)
			add_unsafe(alo, ahi);
	}
out:
	free(b);
	return ok;
}

/* ---- threads ---- */

struct thread {
	pid_t tid;
	int sig;              /* the signal it was stopped with, to deliver (0: none) */
	bool stopped, gone;
	bool group;           /* in a group stop (the process stopped: SIGSTOP) */
	struct arch_regs regs;
};
static struct thread *threads;
static size_t nthreads;

static struct thread *thread_of(pid_t tid)
{
	for (size_t i = 0; i < nthreads; i++)
		if (threads[i].tid == tid)
			return &threads[i];
	return NULL;
}

/* Waits for tid's next stop: its wait status; -1: gone (or an error);
 * -2: none in timeout_ms (-1: no limit).  waitpid blocks, a timer's
 * SIGALRM (a handler without SA_RESTART) ends it at the limit. */
static volatile sig_atomic_t timed_out;
static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

static int wait_stop(pid_t tid, int timeout_ms)
{
	static bool handler;
	if (!handler) {
		struct sigaction sa = { .sa_handler = on_alarm };   /* (no SA_RESTART) */
		sigemptyset(&sa.sa_mask);
		sigaction(SIGALRM, &sa, NULL);
		handler = true;
	}
	int st;
	/* (one already there: no timer) */
	pid_t r = waitpid(tid, &st, __WALL | WNOHANG);
	if (r == tid)
		return st;
	if (r < 0)
		return -1;
	if (timeout_ms == 0)
		return -2;
	timed_out = 0;
	if (timeout_ms > 0) {
		struct itimerval it = { { 0, 0 }, { timeout_ms / 1000, timeout_ms % 1000 * 1000 } };
		setitimer(ITIMER_REAL, &it, NULL);
	}
	for (;;) {
		r = waitpid(tid, &st, __WALL);
		if (r == tid || (r < 0 && errno != EINTR) || timed_out)
			break;
	}
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	if (r == tid)
		return st;
	return r < 0 && errno != EINTR ? -1 : -2;
}

/* Stop every thread of the process: seized and interrupted, waited
 * for; the task list read again until it names none not stopped (a
 * thread made meanwhile: only a running thread makes one, and its
 * thread is listed before it returns from clone). */
static int stop_all(void)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	for (bool more = true; more;) {
		more = false;
		DIR *d = opendir(path);
		if (!d) {
			say("%s: %s", path, strerror(errno));
			return -1;
		}
		for (struct dirent *e; (e = readdir(d));) {
			pid_t tid = (pid_t)atoi(e->d_name);
			if (tid <= 0 || thread_of(tid))
				continue;
			if (ptrace(PTRACE_SEIZE, tid, 0, 0)) {
				if (errno == ESRCH)
					continue;     /* (ended since) */
				int err = errno;
				closedir(d);
				seize_refused(err);
				return -1;
			}
			struct thread *n = realloc(threads, (nthreads + 1) * sizeof *threads);
			if (!n) {
				closedir(d);
				say("out of memory");
				return -1;
			}
			threads = n;
			threads[nthreads++] = (struct thread){ .tid = tid };
			if (nthreads == 1)
				clock_gettime(CLOCK_MONOTONIC, &stop_t0);
			ptrace(PTRACE_INTERRUPT, tid, 0, 0);
			more = true;
		}
		closedir(d);
		for (size_t i = 0; i < nthreads; i++) {
			struct thread *t = &threads[i];
			if (t->stopped || t->gone)
				continue;
			int st = wait_stop(t->tid, 2000);
			if (st == -2) {
				/* a thread that has ended (a first thread that
				 * called pthread_exit stays listed, a zombie), or
				 * one that does not leave the kernel */
				char sp[96];
				snprintf(sp, sizeof sp, "/proc/%d/task/%d/stat", (int)pid, (int)t->tid);
				char *ts = slurp(sp, NULL);
				char *rp = ts ? strrchr(ts, ')') : NULL;
				bool zombie = !ts || (rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'));
				free(ts);
				if (zombie) {
					t->gone = true;
					continue;
				}
				say("thread %d does not stop (in the kernel for 2 s: an uninterruptible wait?): "
				    "nothing done", (int)t->tid);
				return -1;
			}
			if (st < 0 || !WIFSTOPPED(st)) {
				t->gone = true;
				continue;
			}
			t->stopped = true;
			/* a signal-delivery-stop: the signal is delivered at the detach */
			if (st >> 16 == 0)
				t->sig = WSTOPSIG(st);
			else if (WSTOPSIG(st) != SIGTRAP)
				t->group = true;
			if (arch_get(t->tid, &t->regs)) {
				t->gone = errno == ESRCH;
				if (!t->gone) {
					say("cannot read the registers of thread %d: %s", (int)t->tid, strerror(errno));
					return -1;
				}
			}
		}
	}
	return 0;
}

/* Every thread let go, each with the signal it was stopped with. */
static void detach_all(pid_t except)
{
	for (size_t i = 0; i < nthreads; i++) {
		struct thread *t = &threads[i];
		if (t->tid == except)
			continue;
		if (!t->gone)
			ptrace(PTRACE_DETACH, t->tid, 0, (void *)(long)t->sig);
	}
	free(threads);
	threads = NULL;
	nthreads = 0;
}

/* ---- memory ---- */

static int mem_read(uintptr_t a, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)a, len };
	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -1;
}

static int mem_write(uintptr_t a, const void *buf, size_t len)
{
	struct iovec l = { (void *)buf, len }, r = { (void *)a, len };
	if (process_vm_writev(pid, &l, 1, &r, 1, 0) == (ssize_t)len)
		return 0;
	/* (a stack the process made read-only is none to call on) */
	return -1;
}

/* ---- threads out of NOP runs ---- */

/* Is thread t (stopped, its registers read) on a NOP that may be part of
 * a run the library makes one instruction (arch_nop_run)?  Not one
 * stopped in a system call: its pc is after the instruction, which a
 * step would run again. */
static bool on_nop(const struct thread *t)
{
	unsigned char b;
	return !t->gone && t->stopped && arch_syscall(&t->regs) < 0 && !mem_read(arch_pc(&t->regs), &b, 1) &&
	       arch_nop_run(b);
}

/* Each stopped thread whose pc is on such a NOP single-stepped until it
 * is not (64 steps at most): the library's start-up never rewrites
 * code a thread is inside, and the thread that calls dlopen has its pc
 * given back, which it could not see.  A signal that stops it
 * meanwhile is the one it is given when it is let go (if it has none
 * yet; else it is sent again).  A thread left on one is not chosen to
 * call, and the library leaves the run it is in alone. */
static void step_off_nops(void)
{
	for (size_t i = 0; i < nthreads; i++) {
		struct thread *t = &threads[i];
		for (int n = 0; n < 64 && on_nop(t); n++) {
			if (ptrace(PTRACE_SINGLESTEP, t->tid, 0, 0))
				break;
			int st = wait_stop(t->tid, 1000);
			if (st == -2) {
				ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
				st = wait_stop(t->tid, 1000);
			}
			if (st < 0 || !WIFSTOPPED(st)) {
				t->gone = st != -2;
				t->stopped = false;
				break;
			}
			int sig = WSTOPSIG(st);
			if (st >> 16 == 0 && sig != SIGTRAP) {
				if (!t->sig)
					t->sig = sig;
				else
					syscall(SYS_tgkill, pid, t->tid, sig);
			}
			if (arch_get(t->tid, &t->regs)) {
				t->gone = errno == ESRCH;
				break;
			}
		}
		if (on_nop(t))
			NOTE("thread %d stays on a NOP at %#lx", (int)t->tid, (unsigned long)arch_pc(&t->regs));
	}
}

/* ---- the thread to call in ---- */

/* Whether a thread stopped in system call nr waits there for the world
 * outside (input, a peer, a child, a clock, a signal): calls that
 * neither the allocator nor the dynamic linker makes through the C
 * library's wrappers (the dynamic linker's own reads are its own code:
 * its pc says so).  Such a thread needs no look at its stack, whose
 * frames often hold, in words not written since, the return addresses
 * of an earlier malloc: a program waiting for its input after stdio
 * took its buffers would be refused for ever. */
static bool waits_outside(long nr)
{
	static const long calls[] = {
		SYS_read, SYS_readv, SYS_pread64, SYS_preadv, SYS_recvfrom, SYS_recvmsg, SYS_recvmmsg,
		SYS_write, SYS_writev, SYS_sendto, SYS_sendmsg, SYS_accept, SYS_accept4, SYS_connect,
		SYS_ppoll, SYS_pselect6, SYS_epoll_pwait, SYS_clock_nanosleep, SYS_wait4, SYS_waitid,
		SYS_rt_sigsuspend, SYS_rt_sigtimedwait,
#ifdef SYS_poll
		SYS_poll, SYS_select, SYS_epoll_wait, SYS_nanosleep, SYS_pause,
#endif
	};
	for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
		if (nr == calls[i])
			return true;
	return false;
}

/* Whether thread t is stopped where a call of dlopen may not be made
 * (why: its words): its pc in the dynamic linker's code or the
 * allocator's, or, unless it waits in a system call for the world
 * outside (waits_outside), a return address into them in the 4 KiB
 * above its stack pointer (a word there that only looks like one makes
 * it refused all the same: the choice errs to the safe side), or
 * stopped for a signal (to be delivered, not run over).  What it does
 * not see (a lock held in a frame it let by) the call's time limit
 * catches: the other threads let go, the call given more time. */
static const char *unsafe_why(const struct thread *t)
{
	if (t->gone || !t->stopped)
		return "gone";
	if (t->sig)
		return "stopped for a signal";
	if (on_nop(t))
		return "on a NOP";
	if (is_unsafe(arch_pc(&t->regs)))
		return "inside the dynamic linker or malloc";
	if (waits_outside(arch_syscall(&t->regs)))
		return NULL;
	uintptr_t w[512];
	uintptr_t sp = arch_sp(&t->regs);
	size_t n = sizeof w / sizeof *w;
	/* (the stack may end sooner: read what there is, page by page) */
	while (n && mem_read(sp, w, n * sizeof *w))
		n = n > 64 ? n - 64 : 0;
	for (size_t i = 0; i < n; i++)
		if (is_unsafe(w[i]))
			return "called from the dynamic linker or malloc";
	return NULL;
}

/* The thread to call dlopen in: the process's first thread when it may
 * be, else the first that may (NULL: none now). */
static struct thread *choose(void)
{
	struct thread *first = thread_of(pid);
	if (first && !unsafe_why(first))
		return first;
	for (size_t i = 0; i < nthreads; i++)
		if (!unsafe_why(&threads[i]))
			return &threads[i];
	return NULL;
}

/* ---- the call ---- */

/* Signals that came to the calling thread while it ran the call
 * (every signal for the process does: the other threads are stopped):
 * taken from it, kept in order, and given back when it is let go. */
static siginfo_t *pend;
static size_t npend, pend_cap;
static size_t pend_given;             /* those before it given back already (give_back) */
static bool group_stopped;

static void keep_signal(const siginfo_t *si)
{
	/* A POSIX timer's signal whose last one is kept still: one signal,
	 * its overrun counting this one's expirations too, as the kernel
	 * makes of a timer's signal that is pending when the timer expires
	 * again (kept one by one, each expiration's signal dequeued by the
	 * thread's stop, they would be as many signals, and a standard
	 * signal's would merge as they are sent again: expirations lost) */
	if (si->si_code == SI_TIMER)
		for (size_t i = npend; i-- > pend_given;)
			if (pend[i].si_code == SI_TIMER && pend[i].si_signo == si->si_signo &&
			    pend[i].si_timerid == si->si_timerid) {
				pend[i].si_overrun += 1 + si->si_overrun;
				return;
			}
	if (npend == pend_cap) {
		size_t cap = pend_cap ? 2 * pend_cap : 64;
		siginfo_t *n = realloc(pend, cap * sizeof *n);
		if (!n) {
			/* (no memory: sent again now, its siginfo lost) */
			syscall(SYS_tgkill, pid, pid, si->si_signo);
			return;
		}
		pend = n;
		pend_cap = cap;
	}
	pend[npend++] = *si;
}

/* Starts fn(a0, a1) in thread t, whose saved registers are t->regs,
 * with its stack pointer sp (whose word is the return address, 0). */
static int start_call(struct thread *t, uintptr_t fn, uintptr_t sp, uintptr_t a0, uintptr_t a1)
{
	static struct arch_regs c;
	arch_call(&c, &t->regs, fn, sp, a0, a1);
	if (arch_set(t->tid, &c)) {
		say("cannot set the registers of thread %d: %s", (int)t->tid, strerror(errno));
		return -1;
	}
	if (ptrace(PTRACE_CONT, t->tid, 0, 0)) {
		say("cannot run thread %d: %s", (int)t->tid, strerror(errno));
		return -1;
	}
	return 0;
}

/* Waits for the call under way in thread t to return to address 0
 * (*ret: its result): 0 returned; -1 failed (said); -2 no return in
 * timeout_ms (the thread runs on); -3 (interrupted: when interrupted),
 * the thread stopped where it was.  The signals that come meanwhile
 * are kept (pend). */
static int wait_call(struct thread *t, uintptr_t *ret, int timeout_ms, bool interrupted)
{
	/* (one time limit for the whole call: a signal's stop, every 2 ms
	 * from a timer, does not start it again) */
	struct timespec t0, tn;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &tn);
		long left = timeout_ms - ((tn.tv_sec - t0.tv_sec) * 1000 + (tn.tv_nsec - t0.tv_nsec) / 1000000);
		int st = left > 0 ? wait_stop(t->tid, (int)left) : -2;
		if (st == -2)
			return -2;
		if (st < 0 || !WIFSTOPPED(st)) {
			t->gone = true;
			say("the process ended while it called %s", calling);
			return -1;
		}
		int sig = WSTOPSIG(st), ev = st >> 16;
		if (ev == PTRACE_EVENT_STOP) {
			if (interrupted)
				return -3;
			/* a group stop (SIGSTOP came): made again at the end */
			group_stopped = group_stopped || sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
				sig == SIGTTOU;
			ptrace(PTRACE_CONT, t->tid, 0, 0);
			continue;
		}
		struct arch_regs now;
		if (arch_get(t->tid, &now)) {
			say("cannot read the registers of thread %d: %s", (int)t->tid, strerror(errno));
			return -1;
		}
		if (sig == SIGSEGV && arch_pc(&now) == 0) {
			*ret = arch_result(&now);
			return 0;
		}
		siginfo_t si;
		bool have = !ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si);
		if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
		    (sig == SIGTRAP && have && si.si_code > 0 && si.si_code != SI_KERNEL)) {
			say("the call of %s faulted (signal %d at %#lx): the thread is given back its state, "
			    "but the process may not be whole", calling, sig, (unsigned long)arch_pc(&now));
			return -1;
		}
		/* a signal for the program: kept for later */
		if (have)
			keep_signal(&si);
		ptrace(PTRACE_CONT, t->tid, 0, 0);
	}
}

/* Calls fn(a0, a1) in thread t (the other threads stopped): 0 returned
 * (*ret), -1 failed, -2 it did not return in time and was left (the
 * thread stopped).  When it has not returned in timeout_ms, another
 * thread may hold a lock it waits for (the dynamic linker's, malloc's,
 * a lock of the program's that a constructor takes): the others are
 * let go (*others_gone set), and it has 5 times as long again; then it
 * is left where it is. */
static int call_in(struct thread *t, uintptr_t fn, uintptr_t sp, uintptr_t a0, uintptr_t a1, uintptr_t *ret,
		   int timeout_ms, bool *others_gone)
{
	if (start_call(t, fn, sp, a0, a1))
		return -1;
	int r = wait_call(t, ret, timeout_ms, false);
	if (r != -2)
		return r;
	NOTE("the call has not returned in %d ms: the other threads let go", timeout_ms);
	if (!*others_gone) {
		detach_all(t->tid);
		*others_gone = true;
	}
	r = wait_call(t, ret, 5 * timeout_ms, false);
	if (r != -2)
		return r;
	ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
	r = wait_call(t, ret, 1000, true);
	return r == -3 ? -2 : r;
}

/* Whether signal sig (a standard one) is pending for thread tid or its
 * process (SigPnd, ShdPnd of its status). */
static bool pending(pid_t tid, int sig)
{
	char path[96];
	snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)pid, (int)tid);
	char *s = slurp(path, NULL);
	bool p = false;
	for (const char *k = s; k && (k = strstr(k, "Pnd:\t")); k += 5)
		p = p || (strtoull(k + 5, NULL, 16) >> (sig - 1) & 1);
	free(s);
	return p;
}

/* Thread t given its state back and let go, with the signals kept for
 * it, each delivered as it came (its siginfo, its order), at a
 * signal-delivery-stop (at_signal: t is at one now): the first at this
 * one, each next at the stop of a marker sent to the thread, tgkill of
 * that same signal (one it takes: it took it before); a marker's place
 * is taken by the signal it stands for, and a signal of the program's
 * own that comes meanwhile is kept after the others.  Where no such
 * stop can be had (the call abandoned at an interrupt's stop), each is
 * sent again by tgkill (rt_tgsigqueueinfo with its siginfo, where the
 * kernel lets it be: si_code < 0). */
static void give_back(struct thread *t, uintptr_t sp, const void *saved_mem, size_t saved_len, bool at_signal)
{
	if (saved_len && mem_write(sp, saved_mem, saved_len))
		say("cannot restore the thread's stack at %#lx: %s", (unsigned long)sp, strerror(errno));
	if (arch_set(t->tid, &t->regs))
		say("cannot restore thread %d's registers: %s", (int)t->tid, strerror(errno));
	NOTE("%zu signals came to thread %d meanwhile: given back", npend, (int)t->tid);
	/* Signals that keep coming meanwhile are kept too, but markers are
	 * sent within a budget (a sender faster than the rounds would keep
	 * them going); past it, the markers out are waited for, then those
	 * left are sent again as below.  A standard signal pending already
	 * takes no marker (it would merge with it): that one's stop serves. */
	size_t head = 0, markers = 0, budget = 2 * npend + 16;
	for (size_t rounds = 0; at_signal; rounds++) {
		int give = 0;
		if (head < npend) {
			siginfo_t now = pend[head++];
			pend_given = head;
			if (ptrace(PTRACE_SETSIGINFO, t->tid, 0, &now)) {
				pend_given = --head;
				break;
			}
			give = now.si_signo;
			if (head < npend && rounds < budget &&
			    !(pend[head].si_signo < SIGRTMIN && pending(t->tid, pend[head].si_signo)) &&
			    !syscall(SYS_tgkill, pid, t->tid, pend[head].si_signo))
				markers++;
			if (!markers) {
				ptrace(PTRACE_DETACH, t->tid, 0, (void *)(long)give);
				t->gone = true;
				break;
			}
		} else if (!markers) {
			break;
		}
		ptrace(PTRACE_CONT, t->tid, 0, (void *)(long)give);
		for (;;) {
			int st = wait_stop(t->tid, 2000);
			if (st == -2) {
				/* (no marker's stop: stopped to be let go, the
				 * rest sent again) */
				at_signal = false;
				ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
				st = wait_stop(t->tid, 1000);
				if (st >= 0 && WIFSTOPPED(st) && !(st >> 16)) {
					siginfo_t si;
					if (!ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) &&
					    !(si.si_code == SI_TKILL && si.si_pid == getpid()))
						keep_signal(&si);
				}
				break;
			}
			if (st < 0 || !WIFSTOPPED(st)) {
				t->gone = true;
				break;
			}
			if (st >> 16) {       /* (an event's stop: on) */
				group_stopped = group_stopped || WSTOPSIG(st) == SIGSTOP;
				ptrace(PTRACE_CONT, t->tid, 0, 0);
				continue;
			}
			siginfo_t si;
			if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si)) {
				at_signal = false;
				break;
			}
			if (si.si_code == SI_TKILL && si.si_pid == getpid() && markers)
				markers--;
			else
				keep_signal(&si);
			break;
		}
		if (t->gone)
			break;
	}
	if (!t->gone) {
		ptrace(PTRACE_DETACH, t->tid, 0, 0);
		t->gone = true;
	}
	for (size_t i = head; i < npend; i++)
		if (pend[i].si_code >= 0 || pend[i].si_code == SI_TKILL ||
		    syscall(SYS_rt_tgsigqueueinfo, pid, t->tid, pend[i].si_signo, &pend[i]))
			syscall(SYS_tgkill, pid, t->tid, pend[i].si_signo);
	npend = 0;
	pend_given = 0;
	if (group_stopped)
		kill(pid, SIGSTOP);
}

/* Is maps[i] the first of an object's segments as the dynamic linker
 * mapped them (the next segment right after it)?  Not a mapping of the
 * whole file made to read it (libmcount-trace.so maps the objects' files
 * it reads), whose bias would be wrong: true for a mapping at offset 0
 * when no mapping of the same file is the first of such a run. */
static bool object_base(size_t i)
{
	const struct map *m = &maps[i];
	if (m->off)
		return false;
	bool run = false, other = false;
	for (size_t j = 0; j < nmaps; j++) {
		if (maps[j].ino != m->ino || strcmp(maps[j].path, m->path))
			continue;
		run = run || maps[j].lo == m->hi;
		for (size_t k = 0; k < nmaps && j != i && !maps[j].off; k++)
			other = other || (maps[k].lo == maps[j].hi && maps[k].ino == m->ino && !strcmp(maps[k].path, m->path));
	}
	return run || !other;
}

/* The mapping of LIBRARY's first bytes in the process, or NULL. */
static const struct map *lib_mapped(const char *lib)
{
	struct stat ls;
	if (stat(lib, &ls))
		return NULL;
	for (size_t i = 0; i < nmaps; i++)
		if (maps[i].ino == (unsigned long long)ls.st_ino && !strcmp(base_name(maps[i].path), base_name(lib)) &&
		    object_base(i))
			return &maps[i];
	return NULL;
}

/* The mapping of the first bytes of an object of the process that has
 * the library in it (its symbol table has mt_attach_state and
 * mt_attach_start), *program whether it is the program (which links the
 * library in), else a copy of the library from another path (preloaded
 * from there): that copy is the one, never a second beside it.  NULL:
 * none. */
static const struct map *object_with_library(bool *program)
{
	char exe[64], path[PATH_MAX];
	snprintf(exe, sizeof exe, "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(exe, path, sizeof path - 1);
	path[n > 0 ? n : 0] = 0;
	for (size_t i = 0; i < nmaps; i++)
		if (object_base(i)) {
			struct found pf = { 0 };
			if (read_object(&maps[i], &pf) && pf.state && pf.start) {
				*program = n > 0 && !strcmp(maps[i].path, path);
				return &maps[i];
			}
		}
	return NULL;
}

/* The library's states (rt.h, MT_ATTACH_*). */
enum { LIB_STARTING, LIB_RUNNING, LIB_DETACHING, LIB_DETACHED };

/* The library mapped at m: its state (-1: not read, said), its start-up
 * in *start; its code made a place no thread is stopped in for the
 * call (a thread there may hold its locks). */
static int lib_state(const struct map *m, uintptr_t *start, bool own_code)
{
	struct found lf = { 0 };
	int32_t st;
	if (!read_object(m, &lf) || !lf.state || !lf.start) {
		say("%s: no mt_attach_state and mt_attach_start in its dynamic symbols: not this tracer's library, "
		    "or an older one's", m->path);
		return -1;
	}
	if (mem_read(lf.state, &st, sizeof st)) {
		/* (the kernel checks process_vm_readv as it does PTRACE_SEIZE,
		 * Yama's rule included: the same refusal, explained so) */
		if (errno == EPERM)
			seize_refused(EPERM);
		else
			say("cannot read the library's state at %#lx: %s", (unsigned long)lf.state, strerror(errno));
		return -1;
	}
	for (size_t j = 0; j < nmaps && own_code; j++)
		if (maps[j].ino == m->ino && !strcmp(maps[j].path, m->path) && maps[j].perm[2] == 'x')
			add_unsafe(maps[j].lo, maps[j].hi);
	*start = lf.start;
	return st;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: mcount-attach [-v] [-n NAME] [-t MILLISECONDS] PID LIBRARY\n"
		"Load LIBRARY (an absolute path) into the running process PID through its own dlopen\n"
		"(or start it again there, after mcount-trace detach),\n"
		"every thread stopped meanwhile.  -t: how long the call may take (default 2000).\n");
}

int main(int argc, char **argv)
{
	int timeout_ms = 2000;
	int o;
	while ((o = getopt(argc, argv, "hvn:t:")) != -1) {
		if (o == 'n')
			prog = optarg;
		else if (o == 't')
			timeout_ms = atoi(optarg);
		else if (o == 'v')
			verbose = true;
		else if (o == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 2 || timeout_ms <= 0) {
		usage(stderr);
		return 2;
	}
	char *end;
	long p = strtol(argv[optind], &end, 10);
	const char *lib = argv[optind + 1];
	if (*end || p <= 0 || p > INT_MAX || lib[0] != '/') {
		usage(stderr);
		return 2;
	}
	pid = (pid_t)p;
	char why[512];
	const char *no = refusal(why, sizeof why);
	if (no) {
		say("refused: %s", no);
		return 1;
	}
	if (access(lib, R_OK)) {
		say("%s: %s", lib, strerror(errno));
		return 1;
	}
	if (read_maps()) {
		say("cannot read its maps: %s", strerror(errno));
		return 1;
	}
	const struct map *lm = lib_mapped(lib);
	/* a program that links the library in: that copy is the one (its
	 * code is the program's: not all of it kept out of the call) */
	bool linked_in = false;
	if (!lm && (lm = object_with_library(&linked_in)) && !linked_in)
		lib = lm->path;
	uintptr_t start = 0;
	if (lm) {
		int st = lib_state(lm, &start, !linked_in);
		if (st < 0)
			return 1;
		if (st == LIB_DETACHING) {
			say("%s is detaching from it (mcount-trace detach): try again", base_name(lib));
			return 1;
		}
		if (st != LIB_DETACHED) {
			if (linked_in)
				say("it links libmcount-trace.a in, which runs already");
			else
				say("%s is loaded in it already", base_name(lib));
			return 0;
		}
		calling = "the library's start-up";
	}
	/* its objects: dlopen, and the code no call may be made from */
	struct found f = { 0 };
	bool any = false;
	for (size_t i = 0; i < nmaps; i++) {
		const struct map *m = &maps[i];
		if (m->off || m->path[0] != '/' || !m->ino || !object_base(i))
			continue;
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = maps[j].ino == m->ino && !strcmp(maps[j].path, m->path) && object_base(j);
		if (seen)
			continue;
		bool dyn = read_object(m, &f);
		any = any || dyn;
		/* the dynamic linker: all of its code */
		if (strstr(base_name(m->path), "ld-linux") || strstr(base_name(m->path), "ld.so") ||
		    strstr(base_name(m->path), "ld64.so"))
			for (size_t j = 0; j < nmaps; j++)
				if (maps[j].ino == m->ino && maps[j].perm[2] == 'x')
					add_unsafe(maps[j].lo, maps[j].hi);
	}
	char exe[64];
	snprintf(exe, sizeof exe, "/proc/%d/exe", (int)pid);
	bool eh = false;
	{
		int fd = open(exe, O_RDONLY | O_CLOEXEC);
		unsigned char h[20];
		if (fd >= 0 && read(fd, h, sizeof h) == (ssize_t)sizeof h && !memcmp(h, ELFMAG, SELFMAG) &&
		    (h[EI_CLASS] != ARCH_CLASS || (h[18] | h[19] << 8) != ARCH_MACHINE))
			eh = true;
		if (fd >= 0)
			close(fd);
	}
	if (eh) {
		say("refused: not an %s program (attach is made to %s programs only, yet)", ARCH_NAME, ARCH_NAME);
		return 1;
	}
	uintptr_t fn = start ? start : f.dlopen ? f.dlopen : f.mode_fn;
	uintptr_t mode = f.dlopen ? (uintptr_t)2 /* RTLD_NOW */ : (uintptr_t)(2 | 0x80000000u) /* __RTLD_DLOPEN */;
	if (!fn) {
		say("refused: no dlopen in any object it has mapped (%s): nothing can load a library into it; "
		    "link libmcount-trace.a in to trace it",
		    any ? "no C library's" : "a statically linked program");
		return 1;
	}
	NOTE("%s at %#lx (%s); %zu ranges of code no call is made from", calling, (unsigned long)fn,
	     start ? lm->path : f.where, nunsafe);

	/* stop all, choose, call; when no thread may call now, all are let
	 * go a while and stopped again, 50 times at most */
	struct thread *t = NULL;
	int round;
	for (round = 0; round < 50; round++) {
		if (stop_all()) {
			detach_all(0);
			return 1;
		}
		step_off_nops();
		if ((t = choose()))
			break;
		NOTE("no thread may call %s now: let go and stopped again", calling);
		detach_all(0);
		nanosleep(&(struct timespec){ 0, 20 * 1000000 }, NULL);
	}
	if (!t) {
		say("no thread of it stopped out of the dynamic linker and malloc in 50 tries (1 s): nothing done; "
		    "try again");
		return 1;
	}
	NOTE("thread %d calls %s (stopped at %#lx, system call %ld)", (int)t->tid, calling,
	     (unsigned long)arch_pc(&t->regs), arch_syscall(&t->regs));

	/* below the red zone: the library's path, then the return address */
	size_t plen = strlen(lib) + 1;
	uintptr_t path_at = (arch_sp(&t->regs) - ARCH_RED_ZONE - plen) & ~(uintptr_t)15;
	uintptr_t sp = arch_call_sp(path_at);
	size_t saved_len = arch_sp(&t->regs) - ARCH_RED_ZONE - sp;
	unsigned char *saved = malloc(saved_len);
	unsigned char *frame = malloc(saved_len);
	if (!saved || !frame || mem_read(sp, saved, saved_len)) {
		say("cannot read thread %d's stack at %#lx: %s", (int)t->tid, (unsigned long)sp, strerror(errno));
		detach_all(0);
		return 1;
	}
	memcpy(frame, saved, saved_len);
	memset(frame, 0, sizeof(uintptr_t));                       /* the return address: 0 */
	memcpy(frame + (path_at - sp), lib, plen);
	if (mem_write(sp, frame, saved_len)) {
		say("cannot write thread %d's stack at %#lx: %s", (int)t->tid, (unsigned long)sp, strerror(errno));
		detach_all(0);
		return 1;
	}
	uintptr_t handle = 0, msg = 0;
	bool others_gone = false;
	struct thread me = *t;        /* (the list is freed when the others are let go) */
	t = &me;
	size_t stopped = nthreads;
	struct timespec call_t0;
	clock_gettime(CLOCK_MONOTONIC, &call_t0);
	int r = call_in(t, fn, sp, path_at, mode, &handle, timeout_ms, &others_gone);
	double call_ms = ms_since(&call_t0);
	char err[512] = "";
	if (r == 0 && !start && !handle && f.dlerror && !mem_write(sp, frame, sizeof(uintptr_t)) &&
	    call_in(t, f.dlerror, sp, 0, 0, &msg, timeout_ms, &others_gone) == 0 && msg) {
		/* (a page at a time: the string may end before the next) */
		size_t n = 0;
		while (n < sizeof err - 1) {
			size_t chunk = 4096 - ((msg + n) & 4095);
			if (chunk > sizeof err - 1 - n)
				chunk = sizeof err - 1 - n;
			if (mem_read(msg + n, err + n, chunk))
				break;
			err[n + chunk] = 0;
			if (memchr(err + n, 0, chunk))
				break;
			n += chunk;
		}
	}
	if (!others_gone)
		detach_all(me.tid);
	group_stopped = group_stopped || me.group;
	if (!me.gone)
		give_back(&me, sp, saved, saved_len, r != -2);
	NOTE("%zu threads stopped %.2f ms, the call %.2f ms of it (round %d)", stopped, ms_since(&stop_t0), call_ms,
	     round + 1);
	free(saved);
	free(frame);
	if (r == -2) {
		say("%s did not return in %d ms, even with every thread let go after %d ms: the call was "
		    "left where it was (a lock the dynamic linker holds while it loads may be held still)",
		    calling, 6 * timeout_ms, timeout_ms);
		return 1;
	}
	if (r)
		return 1;
	if (start) {
		/* (an int: 0 started, 1 running already, -1 detaching) */
		int32_t got = (int32_t)handle;
		if (got < 0)
			say("%s is detaching from it (mcount-trace detach): try again", base_name(lib));
		else
			NOTE("%s", got ? "running already" : "started again");
		return got < 0;
	}
	if (!handle) {
		say("dlopen(%s) failed: %s", lib, *err ? err : "(no reason given)");
		return 1;
	}
	NOTE("loaded: handle %#lx", (unsigned long)handle);
	return 0;
}
