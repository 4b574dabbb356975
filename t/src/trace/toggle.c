/* SPDX-License-Identifier: GPL-2.0-or-later */
/* toggle.c - switching sites live while other threads run them (the
 * booted guests of t/79-trace-system.t but la57).
 * NT workers call hot_b (which calls hot_a) and cold in a loop; main, built
 * with -DWITH_API and libmcount-trace.a, switches hot_* on and off through
 * the C API:
 *   1. RAPID times on and off without waiting: the sites change under the
 *      workers' feet; the events go to $TOGGLE_DIR/rapid.json;
 *   2. ROUNDS rounds that each show the change reached every worker:
 *      enable (and retranslate(), below); each worker runs 3 more
 *      loops; events to on-R.json;
 *      disable; each worker runs 3 more loops (a call that had passed the
 *      site before the change finishes); the events to settle-R.json;
 *      each worker runs 3 more loops; the events to stale-R.json (see
 *      below); each worker runs 3 more loops twice; the events of the
 *      second time to off-R.json, which must be empty;
 *   3. $TOGGLE_QUICK more rounds (0 if unset) the same way, counted here
 *      rather than written out: $TOGGLE_DIR/quick.txt says how many
 *      rounds, how many had events after an enable, how many stale events
 *      and how many off events there were.
 * After every switch both sites must read as the library says it wrote
 * them (`nop` off, the call on: aarch64 `bl`, riscv64 `jal ra` or the
 * `jalr ra` after `auipc ra`, arm `bl` or `blx`, ppc64le `bl`; arm's
 * `nop` is `pop {lr}`, in Thumb `pop.w {lr}`, ppc64le's `b .+8` where
 * the call goes through a stub), else the program says so and exits 5.
 *
 * Stale translations: qemu-system-aarch64 7.2's TCG can go on running a
 * block it translated from a site's old bytes after the site was
 * written: the memory says `nop`, every thread reads `nop`, the library
 * wrote it (its pwrite returned 4), and the old `bl` keeps running, for
 * good, until the page is written again.  No cache maintenance or
 * context synchronisation ends it (IC IVAU is a no-op to its system
 * emulation; only a write to a page drops the blocks translated from
 * it).  Seen only at hot_b's site, the second of a pass's two writes to
 * one page: as if a worker translated hot_b's block anew (the first
 * write dropped the page's blocks) from its `bl` while the second write
 * was being made, and the block was kept after that write.  Real CPUs
 * do not do this (the Arm ARM's concurrent modification rule).  So after
 * each switch the sites' words are written back as they are
 * (retranslate(): the pass ended with a membarrier, so no translation
 * begun before its writes is still under way, and one that races with a
 * write of the same bytes reads the new ones).  Events after a disable
 * and before that write, while the memory says `nop`, are the emulator's
 * (stale-R.json, counted, not a failure); events after it are a failure.
 * A site the library failed to write still reads `bl`, and fails the
 * check of its word.
 *
 * On riscv64 and arm the library writes sites behind fenced pages (its SIGSEGV
 * handler makes a thread that reaches one wait); the stale blocks above
 * have not been seen there, and retranslate() is harmless (the same
 * bytes).  On x86 it writes int3 first (the breakpoint protocol): a
 * worker that reaches a site meanwhile traps into the library's SIGTRAP
 * handler, while the program's own breakpoint and raise() must still
 * reach the program's handler.
 *
 * A SIGTRAP handler of the program's own handles a breakpoint (brk,
 * ebreak, int3) and a raise() meanwhile, and a SIGSEGV handler of its own the
 * faults of a worker that writes to a read-only page of its own every
 * SEGV_EVERY loops (the handler makes the page writable, the write is
 * made again and succeeds, the page is made read-only again): each
 * write must fault exactly once.  Each worker's sum covers its first LOOPS loops; the output
 * (sums, traps) is that of a build without -pg and without the API.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64          /* a 32-bit program's addresses above 2 GiB */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef WITH_API
#include "mcount-trace.h"
#endif

#define F __attribute__((noipa))
#define NT 3
#define LOOPS 20000L
#define RAPID 200
#define ROUNDS 8

F long hot_a(long x) { return x * 7 + 3; }
F long hot_b(long x) { return (x ^ 0x55) + hot_a(x); }
F long cold(long x) { return x - 1; }

#define SEGV_EVERY 997

static _Atomic long loops[NT];
static atomic_int stop;
static long sums[NT];
static volatile sig_atomic_t traps;
static volatile long *ro_page;
static long segvs, writes;

/* The instruction words: a breakpoint (past which the trap handler
 * moves the program counter), the call to the hook and `nop`. */
#if defined(__aarch64__)
#define BREAKPOINT() __asm__ volatile("brk #7")
#define PC(uc) ((uc)->uc_mcontext.pc)
#define BREAKPOINT_LEN 4
#define NOP_WORD 0xd503201fu
#define IS_CALL(w) (((w) & 0xfc000000u) == 0x94000000u)        /* bl */
#elif defined(__riscv)
#define BREAKPOINT() __asm__ volatile(".option push\n.option norvc\nebreak\n.option pop")
#define PC(uc) ((uc)->uc_mcontext.__gregs[0])
#define BREAKPOINT_LEN 4
#define NOP_WORD 0x00000013u
#define IS_CALL(w) (((w) & 0xfffu) == 0x0efu || ((w) & 0xfffffu) == 0x080e7u)   /* jal ra, jalr ra */
#elif defined(__arm__) && defined(__thumb__)
/* the undefined instructions Linux takes as breakpoints (SIGTRAP) */
#define BREAKPOINT() __asm__ volatile(".inst.n 0xde01")
#define PC(uc) ((uc)->uc_mcontext.arm_pc)
#define BREAKPOINT_LEN 2
#define NOP_WORD 0xeb04f85du                                     /* pop.w {lr} */
#define IS_CALL(w) (((w) & 0xf800u) == 0xf000u && ((w) & 0xc0000000u) == 0xc0000000u)  /* bl, blx */
#elif defined(__arm__)
#define BREAKPOINT() __asm__ volatile(".inst 0xe7f001f0")
#define PC(uc) ((uc)->uc_mcontext.arm_pc)
#define BREAKPOINT_LEN 4
#define NOP_WORD 0xe8bd4000u                                     /* pop {lr} */
#define IS_CALL(w) (((w) & 0xff000000u) == 0xeb000000u || ((w) & 0xfe000000u) == 0xfa000000u)
#elif defined(__i386__) || defined(__x86_64__)
/* int3 traps with the program counter after it already.  A site is 5 or
 * 6 bytes, its first four checked: the NOP of its length, 0f 1f 44 00 or
 * 66 0f 1f 44, and a call, e8, 67 e8, 90 e8, ff 15 or ff 9r. */
#define BREAKPOINT() __asm__ volatile("int3")
#if defined(__i386__)
#define PC(uc) ((uc)->uc_mcontext.gregs[REG_EIP])
#else
#define PC(uc) ((uc)->uc_mcontext.gregs[REG_RIP])
#endif
#define BREAKPOINT_LEN 0
#define IS_NOP(w) ((w) == 0x00441f0fu || (w) == 0x441f0f66u)
#define IS_CALL(w) (((w) & 0xffu) == 0xe8u || ((w) & 0xffffu) == 0xe867u || ((w) & 0xffffu) == 0xe890u || \
		    ((w) & 0xffffu) == 0x15ffu || ((w) & 0xf8ffu) == 0x90ffu)
#elif defined(__powerpc__)
#define BREAKPOINT() __asm__ volatile("trap")
#if defined(__powerpc64__)
#define PC(uc) ((uc)->uc_mcontext.gp_regs[32])                  /* PT_NIP */
#else
#define PC(uc) ((uc)->uc_mcontext.uc_regs->gregs[32])           /* ppc32: PT_NIP */
#endif
#define BREAKPOINT_LEN 4
/* off: nop before a nop (a call to the hook in the program), b .+8
 * before the TOC restore (through a call stub: the library shared) */
#define IS_NOP(w) ((w) == 0x60000000u || (w) == 0x48000008u)
#define IS_CALL(w) (((w) & 0xfc000003u) == 0x48000001u)          /* bl */
#elif defined(__mips__)
/* break 0 (BRK_USERBP: SIGTRAP; other codes mean SIGFPE and the like);
 * the word after the ld (o32: lw) t9 of a site: jalr t9, or bal linked
 * in; off, nop (o32: addiu sp, sp, 8, undoing the push before the lw) */
#define BREAKPOINT() __asm__ volatile("break 0")
#define PC(uc) ((uc)->uc_mcontext.pc)
#define BREAKPOINT_LEN 4
#if _MIPS_SIM == _ABIO32
#define NOP_WORD 0x27bd0008u
#else
#define NOP_WORD 0x00000000u
#endif
#define IS_CALL(w) ((w) == 0x0320f809u || ((w) & 0xffff0000u) == 0x04110000u)
#elif defined(__s390x__)
/* s390x has no instruction that raises SIGTRAP in a process nobody
 * traces (Linux makes its breakpoint, 0x0001, a SIGILL then): both
 * traps are raise()s.  A site's first word (big-endian): brasl %r14 or
 * brasl %r0 on, brcl 0 with the same offset off. */
#define BREAKPOINT() raise(SIGTRAP)
#define PC(uc) ((uc)->uc_mcontext.psw.addr)
#define BREAKPOINT_LEN 0
#define IS_NOP(w) ((w) >> 16 == 0xc004u)
#define IS_CALL(w) ((w) >> 16 == 0xc0e5u || (w) >> 16 == 0xc005u)
#elif defined(__sparc__) && defined(__arch64__)
/* ta 1 would need the trap handler to move both pc and npc: both traps
 * are raise()s, as on s390x.  A site: call on, nop off. */
#define BREAKPOINT() raise(SIGTRAP)
#define PC(uc) ((uc)->uc_mcontext.mc_gregs[MC_PC])
#define BREAKPOINT_LEN 0
#define NOP_WORD 0x01000000u
#define IS_CALL(w) (((w) & 0xc0000000u) == 0x40000000u)
#endif
#ifndef IS_NOP
#define IS_NOP(w) ((w) == NOP_WORD)
#endif

static void *worker(void *arg)
{
	int i = (int)(long)arg;
	long s = 0;
	for (long n = 0; n < LOOPS || !atomic_load(&stop); n++) {
		long v = hot_b(n) + cold(n);
		if (i == 0 && n % SEGV_EVERY == 0) {
			ro_page[0] = n;          /* faults: on_segv lets it through */
			writes++;
			mprotect((void *)ro_page, 4096, PROT_READ);
		}
		if (n < LOOPS)
			s += v;
		atomic_store(&loops[i], n + 1);
	}
	sums[i] = s;
	return NULL;
}

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	traps++;
	if (si->si_code != SI_TKILL && si->si_code != SI_USER)
		PC((ucontext_t *)ucv) += BREAKPOINT_LEN;      /* past the breakpoint */
}

static void on_segv(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	(void)ucv;
	if (si->si_addr != (void *)ro_page || mprotect((void *)ro_page, 4096, PROT_READ | PROT_WRITE))
		abort();
	segvs++;
}

#ifdef WITH_API
/* The word of fn's site that changes: after `mov x0, x30` on aarch64
 * (`bl _mcount`); after `mv a0, ra` on riscv64 (`jal ra`, or the `jalr
 * ra` after `auipc ra`); after `push {lr}` on arm (`bl __gnu_mcount_nc`,
 * Thumb code only 2-byte aligned; fn has the Thumb bit set); on x86 the
 * first four bytes of the site, a NOP when this runs (the library made
 * every site one at start-up), the first NOP of the function; on ppc64le
 * the first bl, nop or b .+8 after `mflr r0` (`bl _mcount`, to its local
 * entry or, with the library shared, to a call stub; the library has
 * switched it off by the time main runs; ppc64, ELFv1, the same in the
 * code fn's descriptor points at); on mips the word after the
 * `ld t9` (o32: `addiu sp, sp, -8; lw t9`) that follows `move at, ra`
 * (jalr t9, or bal linked in); on
 * s390x the brasl (or brcl 0) after `stg %r14,8(%r15)`, or at the first
 * byte with -mfentry (and -mnop-mcount's brcl 0,0); on sparc64 the
 * call (or nop) after the save. */
static volatile uint32_t *site_of(long (*fn)(long), const char *name)
{
#if defined(__powerpc64__) && (!defined(_CALL_ELF) || _CALL_ELF == 1)
	const uint16_t *p = (const uint16_t *)*(const uintptr_t *)(uintptr_t)fn;    /* the descriptor's code */
#else
	const uint16_t *p = (const uint16_t *)((uintptr_t)fn & ~(uintptr_t)1);
#endif
	for (int i = 0; i < 24; i++) {
#if defined(__aarch64__)
		if (!(i & 1) && p[i] == 0x03e0 && p[i + 1] == 0xaa1e)     /* mov x0, x30 */
			return (volatile uint32_t *)&p[i + 2];
#elif defined(__arm__) && defined(__thumb__)
		if (p[i] == 0xb500)                                          /* push {lr} */
			return (volatile uint32_t *)&p[i + 1];
#elif defined(__arm__)
		if (!(i & 1) && p[i] == 0xe004 && p[i + 1] == 0xe52d)      /* push {lr} (str lr, [sp, #-4]!) */
			return (volatile uint32_t *)&p[i + 2];
#elif defined(__i386__) || defined(__x86_64__)
		(void)p;
		const unsigned char *b = (const unsigned char *)fn;
		for (int k = 0; k < 48; k++) {
			uint32_t w;
			memcpy(&w, b + k, 4);
			if (IS_NOP(w) && b[k + 4] == 0x00)
				return (volatile uint32_t *)(b + k);
		}
		break;
#elif defined(__powerpc__)
		/* words, in the code's (the process's) byte order; ppc32:
		 * the stw r0,4(r1) between them */
		const uint32_t *w = (const uint32_t *)p;
		if (!(i & 1) && w[i / 2] == 0x7c0802a6u)                   /* mflr r0 */
			for (int j = i / 2 + 1; j < 24; j++)
				if ((w[j] & 0xfc000003u) == 0x48000001u ||          /* bl */
				    w[j] == 0x60000000u || w[j] == 0x48000008u)      /* nop, b .+8 */
					return (volatile uint32_t *)&w[j];
#elif defined(__mips__)
		uint32_t w;                                                  /* either byte order */
		memcpy(&w, &p[i], 4);
		if (!(i & 1) && w == 0x03e00825u)                            /* move at, ra */
			return (volatile uint32_t *)&p[_MIPS_SIM == _ABIO32 ? i + 6 : i + 4];
#elif defined(__s390x__)
		if (p[i] == 0xe3e0 && p[i + 1] == 0xf008 && p[i + 2] == 0x0024)   /* stg %r14,8(%r15) */
			return (volatile uint32_t *)&p[i + 3];
		if (i == 0 && (p[0] == 0xc005 || p[0] == 0xc004))              /* -mfentry: brasl %r0, brcl 0 */
			return (volatile uint32_t *)p;
#elif defined(__sparc__)
		/* the first call (or nop) after the save */
		const uint32_t *w = (const uint32_t *)p;
		if (!(i & 1) && (w[i / 2] & 0xc1f80000u) == 0x81e00000u)    /* save */
			for (int j = i / 2 + 1; j < 24; j++)
				if (IS_CALL(w[j]) || IS_NOP(w[j]))
					return (volatile uint32_t *)&w[j];
#else
		if (p[i] == 0x8506)                                          /* c.mv a0, ra */
			return (volatile uint32_t *)&p[(p[i + 1] & 0xfff) == 0x097 ? i + 3 : i + 1];
#endif
	}
	fprintf(stderr, "toggle: no move or push of the return address at the start of %s\n", name);
	exit(5);
}

static volatile uint32_t *sites[2];
static const char *const site_names[2] = { "hot_a", "hot_b" };

/* Both sites read the call (on) or `nop`. */
static void check_words(bool on, const char *when, int r)
{
	for (int i = 0; i < 2; i++) {
		uint32_t w;
		memcpy(&w, (const void *)sites[i], 4);
		if (on ? !IS_CALL(w) : !IS_NOP(w)) {
			fprintf(stderr, "toggle: round %d: %s's site reads %08x after %s\n", r, site_names[i], w,
				when);
			exit(5);
		}
	}
}

/* Write each site's word back as it is, through /proc/self/mem: the
 * emulator drops every block translated from the page (see above). */
static void retranslate(void)
{
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	for (int i = 0; i < 2; i++) {
		uint32_t w;
		memcpy(&w, (const void *)sites[i], 4);
		if (fd < 0 || pwrite(fd, &w, 4, (off_t)(uintptr_t)sites[i]) != 4) {
			perror("toggle: /proc/self/mem");
			exit(5);
		}
		__builtin___clear_cache((char *)sites[i], (char *)sites[i] + 4);
	}
	close(fd);
}

/* Until every worker has run K more loops. */
static void progress(int k)
{
	long at[NT];
	for (int i = 0; i < NT; i++)
		at[i] = atomic_load(&loops[i]);
	for (int i = 0; i < NT; i++)
		while (atomic_load(&loops[i]) < at[i] + k) {
			struct timespec d = { 0, 100000 };
			nanosleep(&d, NULL);
		}
}

/* The events so far to $TOGGLE_DIR/NAME.json; how many. */
static long dump(const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s.json", getenv("TOGGLE_DIR"), name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	long n = fd < 0 ? -1 : mcount_trace_write(fd, 1);
	if (n < 0) {
		perror(path);
		exit(4);
	}
	close(fd);
	return n;
}

static void must(int r, const char *what)
{
	if (r != 2) {
		fprintf(stderr, "toggle: %s switched %d functions, not 2\n", what, r);
		exit(3);
	}
}

/* One round; the names of its files, or "quick" (written over). */
static void round_of(int r, bool quick, long *on, long *stale, long *off)
{
	char name[32];
	must(mcount_trace_enable("hot_*"), "enable");
	check_words(true, "enable", r);
	retranslate();
	progress(3);
	snprintf(name, sizeof name, quick ? "quick" : "on-%d", r);
	*on = dump(name);
	must(mcount_trace_disable("hot_*"), "disable");
	check_words(false, "disable", r);
	progress(3);
	snprintf(name, sizeof name, quick ? "quick" : "settle-%d", r);
	dump(name);
	progress(3);
	snprintf(name, sizeof name, quick ? "quick" : "stale-%d", r);
	*stale = dump(name);
	retranslate();
	progress(3);
	dump("quick");
	progress(3);
	snprintf(name, sizeof name, quick ? "quick" : "off-%d", r);
	*off = dump(name);
	check_words(false, "the off window", r);
}
#endif

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	sa.sa_sigaction = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	ro_page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro_page == MAP_FAILED)
		return 6;
	pthread_t t[NT];
	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)i);
#ifdef WITH_API
	sites[0] = site_of(hot_a, "hot_a");
	sites[1] = site_of(hot_b, "hot_b");
	for (int r = 0; r < RAPID; r++) {
		must(mcount_trace_enable("hot_*"), "enable");
		if (r == RAPID / 2) {
			BREAKPOINT();
			raise(SIGTRAP);
		}
		must(mcount_trace_disable("hot_*"), "disable");
	}
	check_words(false, "the rapid switching", -1);
	retranslate();
	progress(3);
	dump("rapid");
	long on, stale, off;
	for (int r = 0; r < ROUNDS; r++)
		round_of(r, false, &on, &stale, &off);
	const char *q = getenv("TOGGLE_QUICK");
	long nq = q ? atol(q) : 0, q_on = 0, q_stale = 0, q_stale_rounds = 0, q_off = 0;
	for (long r = 0; r < nq; r++) {
		round_of(ROUNDS + (int)r, true, &on, &stale, &off);
		q_on += on > 0;
		q_stale += stale;
		q_stale_rounds += stale > 0;
		q_off += off;
	}
	char path[512];
	snprintf(path, sizeof path, "%s/quick.txt", getenv("TOGGLE_DIR"));
	FILE *f = fopen(path, "w");
	if (!f || fprintf(f, "rounds %ld on %ld stale %ld stale-rounds %ld off %ld\n", nq, q_on, q_stale,
			  q_stale_rounds, q_off) < 0 || fclose(f)) {
		perror(path);
		exit(4);
	}
#else
	BREAKPOINT();
	raise(SIGTRAP);
#endif
	atomic_store(&stop, 1);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NT; i++)
		printf("worker %d sum %ld\n", i, sums[i]);
	printf("traps %d\n", (int)traps);
	if (segvs == writes)
		printf("faults: each write to the read-only page faulted once\n");
	else
		printf("faults: %ld for %ld writes\n", segvs, writes);
	return 0;
}
