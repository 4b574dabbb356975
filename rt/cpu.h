/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpu.h - what the hot path needs of the processor, one section per
 * architecture: a raw system call (the hot path calls nothing in libc),
 * the tick counter and CPU number read together, the start-up probe
 * that says whether the ticks can be used (and on i386 whether there
 * are SSE registers to keep around hooks' callbacks, on PowerPC and
 * s390x vector registers: mt_fp_vec), and the
 * floating-point registers' save and restore (mt_fp_save).  Included by buffer.c (the
 * hot path, general registers only), output.c (the probe, the clock's
 * rate) and control.c (the clock's name in `status`).
 *
 *   x86_64   the TSC: rdtsc and rdpid (the kernel keeps the CPU number in
 *            TSC_AUX), or rdtscp; used where cpuid says rdtscp and an
 *            invariant TSC.  Rate measured against CLOCK_MONOTONIC.
 *   i386     the same instructions; the raw system call is int $0x80
 *            (no vDSO entry to find), arguments in ebx, ecx, edx, esi,
 *            edi, ebp.
 *   aarch64  the generic timer's virtual count, cntvct_el0, which Linux
 *            lets user space read on every CPU and which runs at one rate
 *            on all of them.  No register gives user space its CPU number
 *            (tpidrro_el0 is not one: Linux clears it for 64-bit tasks), so
 *            the CPU is the cpu_id_start field of the thread's rseq area,
 *            which the kernel rewrites before the thread returns to user
 *            space on another CPU: one load at __rseq_offset from the
 *            thread pointer.  Where glibc registered no rseq area
 *            (__rseq_size 0: no kernel support, or an emulator without the
 *            system call) the CPU is written as 0.
 *   riscv64  the time CSR (rdtime), which Linux lets user space read and
 *            which counts at the platform's one timebase on every hart;
 *            the CPU from rseq as on aarch64 (tp is the thread pointer).
 *   ppc64le  the time base (mftb), which user space reads and which
 *            counts at one rate (512 MHz on POWER9 and later, and under
 *            qemu) on every CPU; the CPU from rseq as on aarch64 (r13 is
 *            the thread pointer).  The raw system call is sc, which says
 *            an error by cr0's summary-overflow bit with the positive
 *            errno in r3: returned negated, as the other ports return it.
 *   s390x    the TOD clock (stckf, store clock fast: problem state may
 *            use it; one clock for every CPU of the configuration, bit
 *            51 a microsecond); the CPU from rseq as on aarch64 (the
 *            thread pointer is in access registers a0:a1,
 *            __builtin_thread_pointer).  The raw system call is svc 0
 *            with the number in r1, the arguments in r2-r7.
 *   arm      (32-bit) no counter: cntvct is readable from user space only
 *            where the kernel allows it (an arm64 kernel running the
 *            program in AArch32 does, a 32-bit kernel need not), and no
 *            probe can tell without risking SIGILL, so the clock is
 *            clock_gettime() (mt_use_tsc false); the raw system call is
 *            svc 0 with the number in r7.
 *   mips64el, mipsel  clock_gettime() too (below), the CPU from rseq;
 *            syscall (o32: the fifth and sixth arguments on the stack).
 *   sparc64  clock_gettime() too, CPU 0 (no rseq); ta 0x6d.
 *
 * Where neither applies, mt_clock_now() falls back to clock_gettime(),
 * which the vDSO serves with general registers only.
 */
#ifndef MCOUNT_CPU_H
#define MCOUNT_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "rt.h"

#if defined(__powerpc__) || defined(__s390x__)
#include <sys/auxv.h>
/* Has the CPU the vector registers mt_fp_save keeps (AltiVec; s390x's
 * vector facility)?  Set by the start-up probe (output.c defines it). */
MT_HIDDEN extern bool mt_fp_vec;
#if defined(__powerpc__)
#define MT_FP_HWCAP 0x10000000ul      /* PPC_FEATURE_HAS_ALTIVEC */
#else
#define MT_FP_HWCAP 2048ul            /* HWCAP_S390_VXRS */
#endif
#define MT_FP_PROBE() (mt_fp_vec = (getauxval(AT_HWCAP) & MT_FP_HWCAP) != 0)
#else
#define MT_FP_PROBE() ((void)0)
#endif


#if !defined(__x86_64__) && !defined(__i386__) && !defined(__arm__)
/* glibc 2.35 and later (<sys/rseq.h>): where the thread's rseq area is. */
extern const ptrdiff_t __rseq_offset;
extern const unsigned int __rseq_size;

/* The CPU from the rseq area at tp (struct rseq's first field, __u32
 * cpu_id_start), or 0 where there is none. */
static inline unsigned mt_rseq_cpu(const char *tp)
{
	return __rseq_size ? *(const volatile uint32_t *)(tp + __rseq_offset) & 0xfff : 0;
}
#endif

#if defined(__powerpc__)
/* ppc32 and ppc64: the raw system call is sc; cr0's summary-overflow
 * bit says an error, r3 the positive errno (returned negated). */
static inline long mt_raw6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r0 __asm__("r0") = n;
	register long r3 __asm__("r3") = a;
	register long r4 __asm__("r4") = b;
	register long r5 __asm__("r5") = c;
	register long r6 __asm__("r6") = d;
	register long r7 __asm__("r7") = e;
	register long r8 __asm__("r8") = f;
	__asm__ volatile("sc\n\tbns+ 1f\n\tneg %1, %1\n1:"
			 : "+r"(r0), "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r6), "+r"(r7), "+r"(r8)
			 :
			 : "r9", "r10", "r11", "r12", "cr0", "ctr", "xer", "memory");
	return r3;
}

/* After a write of [lo, hi): each of its cache blocks written back from
 * the data cache (dcbst), that made visible (sync), the block dropped
 * from every processor's instruction cache (icbi: the ISA makes it
 * apply to all of them) and this thread's prefetched instructions
 * discarded (isync).  GCC's __builtin___clear_cache emits nothing on
 * these targets.  16 bytes is below every PowerPC cache block (the
 * 8xx's are 16, POWER's 128), so no block is passed over. */
static inline void mt_ppc_sync_range(uintptr_t lo, uintptr_t hi)
{
	for (uintptr_t a = lo & ~(uintptr_t)15; a < hi; a += 16)
		__asm__ volatile("dcbst 0, %0" : : "r"(a) : "memory");
	__asm__ volatile("sync" : : : "memory");
	for (uintptr_t a = lo & ~(uintptr_t)15; a < hi; a += 16)
		__asm__ volatile("icbi 0, %0" : : "r"(a) : "memory");
	__asm__ volatile("isync" : : : "memory");
}
#endif

#if defined(__x86_64__) || defined(__i386__)

#if defined(__i386__)
/* Does the CPU have SSE (the start-up probe's; mt_fp_save)? */
MT_HIDDEN extern bool mt_use_sse;
#endif

#if defined(__x86_64__)
static inline long mt_raw6(long n, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#else
/* ebp is the frame pointer and ebx the PIC register, which no asm may
 * name: both are kept on the stack, loaded from v (through eax, which
 * then takes the number) and restored. */
static inline long mt_raw6(long n, long a, long b, long c, long d, long e, long f)
{
	long v[3] = { f, a, n };
	long r = (long)v;
	__asm__ volatile("pushl %%ebp\n\tpushl %%ebx\n\t"
			 "movl (%%eax), %%ebp\n\tmovl 4(%%eax), %%ebx\n\tmovl 8(%%eax), %%eax\n\t"
			 "int $0x80\n\t"
			 "popl %%ebx\n\tpopl %%ebp"
			 : "+a"(r) : "c"(b), "d"(c), "S"(d), "D"(e), "m"(v) : "memory");
	return r;
}
#endif

static inline uint64_t mt_rdtscp(unsigned *cpu)
{
	unsigned lo, hi, aux;
	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	*cpu = aux & 0xfff;
	return ((uint64_t)hi << 32) | lo;
}

/* rdtsc and rdpid cost less than one rdtscp (whose ordering an entry
 * event does not need): on one VM, 12 + 2.5 ns against 24. */
static inline uint64_t mt_rdtsc_rdpid(unsigned *cpu)
{
	unsigned lo, hi;
	uintptr_t pid;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	__asm__ volatile("rdpid %0" : "=r"(pid));
	*cpu = (unsigned)pid & 0xfff;
	return ((uint64_t)hi << 32) | lo;
}

/* The ticks (mt_use_tsc set by the probe) and the CPU. */
static inline uint64_t mt_cpu_ticks(unsigned *cpu)
{
	if (mt_use_rdpid)
		return mt_rdtsc_rdpid(cpu);
	return mt_rdtscp(cpu);
}

static inline void mt_cpuid(unsigned leaf, unsigned r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(0));
}

static inline void mt_cpu_clock_probe(void)
{
	unsigned r[4];
	mt_cpuid(0x80000000u, r);
	if (r[0] >= 0x80000007u) {
		unsigned ext[4], pm[4];
		mt_cpuid(0x80000001u, ext);
		mt_cpuid(0x80000007u, pm);
		mt_use_tsc = (ext[3] & (1u << 27)) && (pm[3] & (1u << 8));   /* rdtscp, invariant */
	}
#if defined(__i386__)
	mt_cpuid(1, r);
	mt_use_sse = r[3] & (1u << 25);       /* xmm0-xmm7 (mt_fp_save) */
#endif
	mt_cpuid(0, r);
	if (mt_use_tsc && r[0] >= 7) {
		unsigned f[4];
		mt_cpuid(7, f);
		mt_use_rdpid = f[2] & (1u << 22);
	}
}

static inline const char *mt_cpu_clock_name(void)
{
	return mt_use_rdpid ? "tsc (rdtsc, rdpid)" : "tsc (rdtscp)";
}

#elif defined(__aarch64__) || (defined(__riscv) && __riscv_xlen == 64) || \
	defined(__powerpc64__) || defined(__s390x__)

static inline void mt_cpu_clock_probe(void)
{
	mt_use_tsc = true;
	mt_use_rdpid = false;
	MT_FP_PROBE();
}

#if defined(__aarch64__)
static inline long mt_raw6(long n, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}

static inline uint64_t mt_cpu_ticks(unsigned *cpu)
{
	uint64_t t;
	char *tp;
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(t));
	__asm__("mrs %0, tpidr_el0" : "=r"(tp));
	*cpu = mt_rseq_cpu(tp);
	return t;
}

static inline const char *mt_cpu_clock_name(void)
{
	return __rseq_size ? "cntvct_el0 (cpu from rseq)" : "cntvct_el0 (cpu not known)";
}
#elif defined(__powerpc64__)
static inline uint64_t mt_cpu_ticks(unsigned *cpu)
{
	uint64_t t;
	char *tp;
	__asm__ volatile("mftb %0" : "=r"(t));
	__asm__("mr %0, 13" : "=r"(tp));
	*cpu = mt_rseq_cpu(tp);
	return t;
}

static inline const char *mt_cpu_clock_name(void)
{
	return __rseq_size ? "timebase (cpu from rseq)" : "timebase (cpu not known)";
}
#elif defined(__s390x__)
static inline long mt_raw6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r1 __asm__("r1") = n;
	register long r2 __asm__("r2") = a;
	register long r3 __asm__("r3") = b;
	register long r4 __asm__("r4") = c;
	register long r5 __asm__("r5") = d;
	register long r6 __asm__("r6") = e;
	register long r7 __asm__("r7") = f;
	__asm__ volatile("svc 0" : "+r"(r2) : "r"(r1), "r"(r3), "r"(r4), "r"(r5), "r"(r6), "r"(r7)
			 : "memory");
	return r2;
}

static inline uint64_t mt_cpu_ticks(unsigned *cpu)
{
	uint64_t t;
	__asm__ volatile("stckf %0" : "=Q"(t) : : "cc");
	*cpu = mt_rseq_cpu(__builtin_thread_pointer());
	return t;
}

static inline const char *mt_cpu_clock_name(void)
{
	return __rseq_size ? "tod (stckf, cpu from rseq)" : "tod (stckf, cpu not known)";
}
#else
static inline long mt_raw6(long n, long a, long b, long c, long d, long e, long f)
{
	register long a7 __asm__("a7") = n;
	register long a0 __asm__("a0") = a;
	register long a1 __asm__("a1") = b;
	register long a2 __asm__("a2") = c;
	register long a3 __asm__("a3") = d;
	register long a4 __asm__("a4") = e;
	register long a5 __asm__("a5") = f;
	__asm__ volatile("ecall" : "+r"(a0) : "r"(a7), "r"(a1), "r"(a2), "r"(a3), "r"(a4), "r"(a5)
			 : "memory");
	return a0;
}

static inline uint64_t mt_cpu_ticks(unsigned *cpu)
{
	uint64_t t;
	char *tp;
	__asm__ volatile("rdtime %0" : "=r"(t));
	__asm__("mv %0, tp" : "=r"(tp));
	*cpu = mt_rseq_cpu(tp);
	return t;
}

static inline const char *mt_cpu_clock_name(void)
{
	return __rseq_size ? "time (cpu from rseq)" : "time (cpu not known)";
}
#endif

#elif defined(__mips__) && (_MIPS_SIM == _ABI64 || _MIPS_SIM == _ABIO32)

/* mips64el (n64) and mipsel (o32): no counter to read (rdhwr's cycle
 * counter is each CPU's own, at a rate the CPU's clock sets, and the
 * kernel may not let user space read it): the clock is clock_gettime()
 * (the vDSO's), mt_use_tsc false; the CPU is the rseq area's, as on
 * aarch64, at __rseq_offset from the thread pointer (rdhwr $29's
 * UserLocal, which the kernel emulates where the CPU has no such
 * register): MT_CLOCK_CPU, which buffer.c reads beside clock_gettime.
 * The raw system call is `syscall` with the number in v0 and the
 * arguments in a0-a5 (n64), or a0-a3 and the fifth and sixth at 16 and
 * 20 of sp (o32: the caller's argument area, made here); a3 says an
 * error, v0 then holds the positive errno (returned negated, as the
 * other ports return it); at, v1, $8-$15, t8, t9, hi and lo may
 * change. */
static inline long mt_raw6(long n, long a, long b, long c, long d, long e, long f)
{
	register long v0 __asm__("$2");
	register long a0 __asm__("$4") = a;
	register long a1 __asm__("$5") = b;
	register long a2 __asm__("$6") = c;
	register long a3 __asm__("$7") = d;
#if _MIPS_SIM == _ABI64
	register long a4 __asm__("$8") = e;
	register long a5 __asm__("$9") = f;
	__asm__ volatile(".set push\n\t.set noreorder\n\tmove $2, %[n]\n\tsyscall\n\t.set pop"
			 : "=&r"(v0), "+r"(a3), "+r"(a4), "+r"(a5)
			 : [n] "r"(n), "r"(a0), "r"(a1), "r"(a2)
			 : "$1", "$3", "$10", "$11", "$12", "$13", "$14", "$15", "$24", "$25", "hi", "lo", "memory");
#else
	__asm__ volatile(".set push\n\t.set noreorder\n\t"
			 "addiu $sp, $sp, -32\n\tsw %[e], 16($sp)\n\tsw %[f], 20($sp)\n\t"
			 "move $2, %[n]\n\tsyscall\n\taddiu $sp, $sp, 32\n\t.set pop"
			 : "=&r"(v0), "+r"(a3)
			 : [n] "r"(n), "r"(a0), "r"(a1), "r"(a2), [e] "r"(e), [f] "r"(f)
			 : "$1", "$3", "$8", "$9", "$10", "$11", "$12", "$13", "$14", "$15", "$24", "$25", "hi", "lo",
			   "memory");
#endif
	return a3 ? -v0 : v0;
}

#define MT_CLOCK_CPU() mt_rseq_cpu(__builtin_thread_pointer())

#define MT_CPU_NO_TICKS 1

#elif defined(__powerpc__)

/* ppc32: the clock is clock_gettime() (the vDSO's), the CPU rseq's at
 * __rseq_offset from the thread pointer (r2); the raw system call is
 * ppc64's (above). */

static inline unsigned mt_ppc32_cpu(void)
{
	char *tp;
	__asm__("mr %0, 2" : "=r"(tp));
	return mt_rseq_cpu(tp);
}
#define MT_CLOCK_CPU() mt_ppc32_cpu()

#define MT_CPU_NO_TICKS 1

#elif defined(__sparc__) && defined(__arch64__)

/* sparc64: the clock is clock_gettime() (the vDSO's, which reads %tick
 * or %stick as the kernel's clock source says: which one, and at what
 * rate, only it knows); Linux has no rseq on sparc, so the CPU is
 * written as 0.  The raw system call is ta 0x6d with the number in %g1
 * and the arguments in %o0-%o5; the carry of %xcc says an error, %o0
 * then holds the positive errno (returned negated, as the other ports
 * return it), and %o1 may change. */
static inline long mt_raw6(long n, long a, long b, long c, long d, long e, long f)
{
	register long g1 __asm__("g1") = n;
	register long o0 __asm__("o0") = a;
	register long o1 __asm__("o1") = b;
	register long o2 __asm__("o2") = c;
	register long o3 __asm__("o3") = d;
	register long o4 __asm__("o4") = e;
	register long o5 __asm__("o5") = f;
	__asm__ volatile("ta 0x6d\n\tbcc,pt %%xcc, 1f\n\t nop\n\tsub %%g0, %%o0, %%o0\n1:"
			 : "+r"(o0), "+r"(o1), "+r"(g1)
			 : "r"(o2), "r"(o3), "r"(o4), "r"(o5)
			 : "g2", "g3", "g4", "g5", "cc", "memory");
	return o0;
}

#define MT_CPU_NO_TICKS 1

#elif defined(__arm__)

/* r7 is Thumb code's frame pointer, which no asm may name: the number
 * goes in through ip, r7 kept there meanwhile. */
static inline long mt_raw6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r0 __asm__("r0") = a;
	register long r1 __asm__("r1") = b;
	register long r2 __asm__("r2") = c;
	register long r3 __asm__("r3") = d;
	register long r4 __asm__("r4") = e;
	register long r5 __asm__("r5") = f;
	__asm__ volatile("mov ip, r7\n\tmov r7, %[n]\n\tsvc #0\n\tmov r7, ip"
			 : "+r"(r0) : [n] "r"(n), "r"(r1), "r"(r2), "r"(r3), "r"(r4), "r"(r5) : "ip", "memory");
	return r0;
}

#define MT_CPU_NO_TICKS 1

#else
#error "libmcount-trace: no hot path for this architecture (rt/cpu.h)"
#endif

#ifdef MT_CPU_NO_TICKS
/* No counter the library reads itself: the time is clock_gettime's
 * (buffer.c), the CPU MT_CLOCK_CPU's where there is one. */
static inline uint64_t mt_cpu_ticks(unsigned *cpu)
{
	*cpu = 0;
	return 0;
}

static inline void mt_cpu_clock_probe(void)
{
	mt_use_tsc = false;
	mt_use_rdpid = false;
	MT_FP_PROBE();
}

static inline const char *mt_cpu_clock_name(void)
{
	return "clock_gettime";
}
#endif

/* The rings' head and tail (mt_seq, rt.h) as the hot path (buffer.c,
 * general registers only) reads and writes them: i386 has no 64-bit load or
 * store among its general-register instructions (GCC would use the x87
 * or SSE, else call libatomic), so lock cmpxchg8b, a full barrier: a load
 * compares with 0 and writes 0 back only where it found 0; a store
 * retries until the value it compared with was the one there. */
#if defined(__i386__)
static inline uint64_t mt_seq_load(_Atomic mt_seq *p, memory_order mo)
{
	(void)mo;
	uint64_t v = 0;
	__asm__ volatile("lock cmpxchg8b %1" : "+A"(v), "+m"(*(volatile uint64_t *)p) : "b"(0), "c"(0)
			 : "memory", "cc");
	return v;
}
static inline void mt_seq_store(_Atomic mt_seq *p, uint64_t v, memory_order mo)
{
	uint64_t old = mt_seq_load(p, mo);
	unsigned char done;
	do
		__asm__ volatile("lock cmpxchg8b %1\n\tsete %2"
				 : "+A"(old), "+m"(*(volatile uint64_t *)p), "=q"(done)
				 : "b"((uint32_t)v), "c"((uint32_t)(v >> 32)) : "memory", "cc");
	while (!done);
}
#else
#define mt_seq_load(p, mo) atomic_load_explicit(p, mo)
#define mt_seq_store(p, v, mo) atomic_store_explicit(p, v, mo)
#endif

/* pwrite64 as a raw system call (patch.c's fenced writes): 32-bit arm's
 * EABI passes a 64-bit argument in an even register pair, so the offset
 * skips r3 and is r4, r5; o32 the same, a3 skipped, the fifth and sixth
 * words (16 and 20 of sp).  The pair is the value's memory image: the
 * low word first on a little-endian machine, the high one first on a
 * big-endian one (mips). */
static inline __attribute__((always_inline)) long mt_raw_pwrite(int fd, const void *buf, size_t n, uintptr_t off)
{
#if (defined(__arm__) || (defined(__mips__) && _MIPS_SIM == _ABIO32)) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return mt_raw6(SYS_pwrite64, fd, (long)buf, (long)n, 0, 0, (long)off);
#elif defined(__arm__) || (defined(__mips__) && _MIPS_SIM == _ABIO32)
	return mt_raw6(SYS_pwrite64, fd, (long)buf, (long)n, 0, (long)off, 0);
#elif defined(__powerpc__) && !defined(__powerpc64__)
	/* ppc32: the pair r7 (high word), r8 (low word); r6 skipped */
	return mt_raw6(SYS_pwrite64, fd, (long)buf, (long)n, 0, 0, (long)off);
#else
	return mt_raw6(SYS_pwrite64, fd, (long)buf, (long)n, (long)off, 0, 0);
#endif
}

/* An anonymous mapping as a raw system call (buffer.c): mmap2 where
 * there is one (32-bit arm has only it; i386's SYS_mmap takes a pointer
 * to its six arguments), whose offset (0 here) counts pages. */
#if defined(SYS_mmap2)
#define MT_SYS_MMAP SYS_mmap2
#else
#define MT_SYS_MMAP SYS_mmap
#endif
/* size bytes of anonymous memory, read and write (a raw system call's
 * result: an error is -errno).  s390x's mmap is the old one, which
 * takes one pointer to its six arguments. */
static inline long mt_raw_mmap_anon(size_t size)
{
#if defined(__s390x__)
	long a[6] = { 0, (long)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0 };
	return mt_raw6(SYS_mmap, (long)a, 0, 0, 0, 0, 0);
#else
	return mt_raw6(MT_SYS_MMAP, 0, (long)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
#endif
}

/* The same, shared, of the file fd from its start (a recording's ring:
 * record.c). */
static inline long mt_raw_mmap_file(size_t size, long fd)
{
#if defined(__s390x__)
	long a[6] = { 0, (long)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0 };
	return mt_raw6(SYS_mmap, (long)a, 0, 0, 0, 0, 0);
#else
	return mt_raw6(MT_SYS_MMAP, 0, (long)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
#endif
}

/* The floating-point and vector registers that carry arguments and
 * return values, kept around a hook's callbacks (buffer.c): a callback
 * is the program's code, compiled to use them, and the hooks (hook-*.S)
 * save only the general registers.  At an entry (mt_fp_save):
 *   x86_64   xmm0-xmm7 (arguments; a variadic call's too, %al counts
 *            them); the upper halves of ymm and zmm are a callback's to
 *            keep (a function compiled for AVX passes __m256 in ymm0-7)
 *   i386     xmm0-xmm7 where the CPU has SSE (cpuid: mt_use_sse):
 *            vectors travel in xmm0-xmm2, and an sseregparm function's
 *            doubles; and the x87 registers in use (below), where
 *            __m64 arguments travel (mm0-mm2, the same registers).  A
 *            regparm function's arguments are in eax, edx and ecx,
 *            which the hook keeps.
 *   aarch64  q0-q7 (arguments and return values; the low halves of
 *            v8-v15 are callee-saved, and GCC's -pg keeps nothing else
 *            live across _mcount, an ordinary call to it)
 *   riscv64  fa0-fa7 (the lp64d convention's floating-point arguments,
 *            fa0 and fa1 its return values, 64 bits each; fs0-fs11 are
 *            callee-saved, and GCC's -pg, an ordinary call of _mcount,
 *            keeps nothing else live across it).  The vector registers
 *            carry no arguments in the standard convention (GCC 12
 *            has none that passes them there) and are not kept.
 *   ppc64le, ppc64 (ELFv2, ELFv1), ppc32: f1-f13 (the floating-point
 *            arguments, on ppc32 f1-f8, which its hook keeps too;
 *            f1-f8 a homogeneous aggregate's value; 64 bits each: a
 *            doubleword of vs1-vs13, whose other one carries none) and,
 *            where the CPU has AltiVec (AT_HWCAP: mt_fp_vec), v2-v13
 *            (vectors and ppc64le's __float128, in and out, a
 *            homogeneous vector aggregate's value in v2-v9); f14-f31 and
 *            v20-v31 are callee-saved, and GCC's -pg, an ordinary call
 *            of _mcount, keeps nothing else live across it (ppc32's
 *            site is before the prologue: the arguments are there).
 *            buffer.c is built with -mno-vsx -mno-altivec (ppc32:
 *            without AltiVec, its default): these are the only
 *            floating-point and vector registers it touches (.machine
 *            altivec for the assembler of a CPU without it).
 *   s390x    the hooks keep f0-f7 (the arguments, f0 and f2 the
 *            values), which are the leftmost halves of v0-v7; where the
 *            CPU has the vector facility (AT_HWCAP: mt_fp_vec), v24-v31
 *            too, whole: the vector ABI (-march=z13 and later) passes
 *            vectors in them and returns one in v24.  v16-v23 and the
 *            rest of v0-v15 carry nothing across a call.  buffer.c is
 *            built with -mno-vx (.machine z13 for the vector stores).
 *   sparc64  nothing here: the hook keeps %f0-%f31 (the arguments'),
 *            the return trampoline %f0-%f7 (the values'), and no other
 *            floating-point register carries anything across a call.
 * At an exit (mt_fp_save_ret) the return registers too, which are
 * these but on x86 the x87's st(0) and st(1): a long double's value
 * (on i386 a float's or a double's too), which a callback using the
 * eight registers of the empty stack the ABI gives it would push out.
 * There (x86_64) and at both (i386) the registers in use are popped to
 * memory and pushed back after.  How many are in use is 8 - TOP, TOP
 * read from the status word (fnstsw: a nanosecond): the stack is used
 * as a stack (a push takes TOP down, a pop up), and the x86_64 ABI
 * leaves at most two values on it at a call or a return, in x87 state.
 * Not fxam on st(0), which where the register is empty, as it mostly
 * is, takes a microcode assist (137-200 ns on a Xeon of 2026, most of a
 * hook's exit), nor fxsave and fxrstor (a few hundred nanoseconds).
 * i386 returns an __m64 in %mm0: MMX state, TOP 0 and every register
 * tagged in use; there TOP 0 is asked of fxam, register by register. */
#if defined(__powerpc__)
#define MT_FP_BYTES 304               /* v2-v13 (192), f1-f13 (104), 16-byte aligned */
#else
#define MT_FP_BYTES 128
#endif
struct mt_fp {
	unsigned char b[MT_FP_BYTES];
#if defined(__i386__)
	unsigned char st[8][16];      /* the x87 registers in use, st(0) first */
	unsigned n;
#endif
} __attribute__((aligned(16)));
#if defined(__x86_64__)
struct mt_fp_ret {
	struct mt_fp v;
	unsigned char st[8][16];
	unsigned n;
};
#else
#define mt_fp_ret mt_fp
#endif

#if defined(__x86_64__) || defined(__i386__)
/* The x87 registers in use popped into st (st(0) first), their count
 * into *n; and pushed back, the last first.  An 80-bit store and load
 * keep any content as it is, an MMX register's too. */
static inline __attribute__((always_inline)) void mt_x87_save(unsigned char (*st)[16], unsigned *n)
{
	unsigned short sw;
	__asm__ volatile("fnstsw %0" : "=a"(sw));
	unsigned k = (8u - ((sw >> 11) & 7u)) & 7u;   /* 8 - TOP: 0 for an empty stack */
#if defined(__i386__)
	if (!k) {             /* empty, or MMX state */
		for (; k < 8; k++) {
			__asm__ volatile("fxam\n\tfnstsw %0" : "=a"(sw));
			if ((sw & 0x4500) == 0x4100)
				break;        /* C3, C2, C0 = 1, 0, 1: st(0) empty */
			__asm__ volatile("fstpt (%0)" : : "r"(st[k]) : "memory");
		}
		*n = k;
		return;
	}
#endif
	for (unsigned i = 0; i < k; i++)
		__asm__ volatile("fstpt (%0)" : : "r"(st[i]) : "memory");
	*n = k;
}
static inline __attribute__((always_inline)) void mt_x87_restore(const unsigned char (*st)[16], unsigned n)
{
	while (n-- > 0)
		__asm__ volatile("fldt (%0)" : : "r"(st[n]) : "memory");
}
#endif

static inline __attribute__((always_inline)) void mt_fp_save(struct mt_fp *f)
{
#if defined(__x86_64__)
	__asm__ volatile("movdqu %%xmm0, 0(%0)\n\tmovdqu %%xmm1, 16(%0)\n\t"
			 "movdqu %%xmm2, 32(%0)\n\tmovdqu %%xmm3, 48(%0)\n\t"
			 "movdqu %%xmm4, 64(%0)\n\tmovdqu %%xmm5, 80(%0)\n\t"
			 "movdqu %%xmm6, 96(%0)\n\tmovdqu %%xmm7, 112(%0)"
			 : : "r"(f->b) : "memory");
#elif defined(__i386__)
	if (mt_use_sse)
		__asm__ volatile("movups %%xmm0, 0(%0)\n\tmovups %%xmm1, 16(%0)\n\t"
				 "movups %%xmm2, 32(%0)\n\tmovups %%xmm3, 48(%0)\n\t"
				 "movups %%xmm4, 64(%0)\n\tmovups %%xmm5, 80(%0)\n\t"
				 "movups %%xmm6, 96(%0)\n\tmovups %%xmm7, 112(%0)"
				 : : "r"(f->b) : "memory");
	mt_x87_save(f->st, &f->n);
#elif defined(__aarch64__)
	__asm__ volatile("stp q0, q1, [%0]\n\tstp q2, q3, [%0, #32]\n\t"
			 "stp q4, q5, [%0, #64]\n\tstp q6, q7, [%0, #96]"
			 : : "r"(f->b) : "memory");
#elif defined(__riscv) && __riscv_xlen == 64
	__asm__ volatile("fsd fa0, 0(%0)\n\tfsd fa1, 8(%0)\n\tfsd fa2, 16(%0)\n\tfsd fa3, 24(%0)\n\t"
			 "fsd fa4, 32(%0)\n\tfsd fa5, 40(%0)\n\tfsd fa6, 48(%0)\n\tfsd fa7, 56(%0)"
			 : : "r"(f->b) : "memory");
#elif defined(__powerpc__)
	__asm__ volatile("stfd 1, 192(%0)\n\tstfd 2, 200(%0)\n\tstfd 3, 208(%0)\n\tstfd 4, 216(%0)\n\t"
			 "stfd 5, 224(%0)\n\tstfd 6, 232(%0)\n\tstfd 7, 240(%0)\n\tstfd 8, 248(%0)\n\t"
			 "stfd 9, 256(%0)\n\tstfd 10, 264(%0)\n\tstfd 11, 272(%0)\n\tstfd 12, 280(%0)\n\t"
			 "stfd 13, 288(%0)"
			 : : "b"(f->b) : "memory");
	if (mt_fp_vec)
		__asm__ volatile(".machine push\n\t.machine altivec\n\t"
				 "li 0, 0\n\tstvx 2, %0, 0\n\tli 0, 16\n\tstvx 3, %0, 0\n\t"
				 "li 0, 32\n\tstvx 4, %0, 0\n\tli 0, 48\n\tstvx 5, %0, 0\n\t"
				 "li 0, 64\n\tstvx 6, %0, 0\n\tli 0, 80\n\tstvx 7, %0, 0\n\t"
				 "li 0, 96\n\tstvx 8, %0, 0\n\tli 0, 112\n\tstvx 9, %0, 0\n\t"
				 "li 0, 128\n\tstvx 10, %0, 0\n\tli 0, 144\n\tstvx 11, %0, 0\n\t"
				 "li 0, 160\n\tstvx 12, %0, 0\n\tli 0, 176\n\tstvx 13, %0, 0\n\t"
				 ".machine pop"
				 : : "b"(f->b) : "r0", "memory");
#elif defined(__s390x__)
	if (mt_fp_vec)
		__asm__ volatile(".machine push\n\t.machine z13\n\tvstm %%v24, %%v31, 0(%0)\n\t.machine pop"
				 : : "a"(f->b) : "memory");
#else
	(void)f;
#endif
}
static inline __attribute__((always_inline)) void mt_fp_restore(const struct mt_fp *f)
{
#if defined(__x86_64__)
	__asm__ volatile("movdqu 0(%0), %%xmm0\n\tmovdqu 16(%0), %%xmm1\n\t"
			 "movdqu 32(%0), %%xmm2\n\tmovdqu 48(%0), %%xmm3\n\t"
			 "movdqu 64(%0), %%xmm4\n\tmovdqu 80(%0), %%xmm5\n\t"
			 "movdqu 96(%0), %%xmm6\n\tmovdqu 112(%0), %%xmm7"
			 : : "r"(f->b) : "memory");
#elif defined(__i386__)
	mt_x87_restore(f->st, f->n);
	if (mt_use_sse)
		__asm__ volatile("movups 0(%0), %%xmm0\n\tmovups 16(%0), %%xmm1\n\t"
				 "movups 32(%0), %%xmm2\n\tmovups 48(%0), %%xmm3\n\t"
				 "movups 64(%0), %%xmm4\n\tmovups 80(%0), %%xmm5\n\t"
				 "movups 96(%0), %%xmm6\n\tmovups 112(%0), %%xmm7"
				 : : "r"(f->b) : "memory");
#elif defined(__aarch64__)
	__asm__ volatile("ldp q0, q1, [%0]\n\tldp q2, q3, [%0, #32]\n\t"
			 "ldp q4, q5, [%0, #64]\n\tldp q6, q7, [%0, #96]"
			 : : "r"(f->b) : "memory");
#elif defined(__riscv) && __riscv_xlen == 64
	__asm__ volatile("fld fa0, 0(%0)\n\tfld fa1, 8(%0)\n\tfld fa2, 16(%0)\n\tfld fa3, 24(%0)\n\t"
			 "fld fa4, 32(%0)\n\tfld fa5, 40(%0)\n\tfld fa6, 48(%0)\n\tfld fa7, 56(%0)"
			 : : "r"(f->b) : "memory");
#elif defined(__powerpc__)
	if (mt_fp_vec)
		__asm__ volatile(".machine push\n\t.machine altivec\n\t"
				 "li 0, 0\n\tlvx 2, %0, 0\n\tli 0, 16\n\tlvx 3, %0, 0\n\t"
				 "li 0, 32\n\tlvx 4, %0, 0\n\tli 0, 48\n\tlvx 5, %0, 0\n\t"
				 "li 0, 64\n\tlvx 6, %0, 0\n\tli 0, 80\n\tlvx 7, %0, 0\n\t"
				 "li 0, 96\n\tlvx 8, %0, 0\n\tli 0, 112\n\tlvx 9, %0, 0\n\t"
				 "li 0, 128\n\tlvx 10, %0, 0\n\tli 0, 144\n\tlvx 11, %0, 0\n\t"
				 "li 0, 160\n\tlvx 12, %0, 0\n\tli 0, 176\n\tlvx 13, %0, 0\n\t"
				 ".machine pop"
				 : : "b"(f->b) : "r0", "memory");
	__asm__ volatile("lfd 1, 192(%0)\n\tlfd 2, 200(%0)\n\tlfd 3, 208(%0)\n\tlfd 4, 216(%0)\n\t"
			 "lfd 5, 224(%0)\n\tlfd 6, 232(%0)\n\tlfd 7, 240(%0)\n\tlfd 8, 248(%0)\n\t"
			 "lfd 9, 256(%0)\n\tlfd 10, 264(%0)\n\tlfd 11, 272(%0)\n\tlfd 12, 280(%0)\n\t"
			 "lfd 13, 288(%0)"
			 : : "b"(f->b) : "memory");
#elif defined(__s390x__)
	if (mt_fp_vec)
		__asm__ volatile(".machine push\n\t.machine z13\n\tvlm %%v24, %%v31, 0(%0)\n\t.machine pop"
				 : : "a"(f->b) : "memory");
#else
	(void)f;
#endif
}
#if defined(__x86_64__)
static inline __attribute__((always_inline)) void mt_fp_save_ret(struct mt_fp_ret *f)
{
	mt_fp_save(&f->v);
	mt_x87_save(f->st, &f->n);
}
static inline __attribute__((always_inline)) void mt_fp_restore_ret(const struct mt_fp_ret *f)
{
	mt_x87_restore(f->st, f->n);
	mt_fp_restore(&f->v);
}
#else
#define mt_fp_save_ret mt_fp_save
#define mt_fp_restore_ret mt_fp_restore
#endif

#endif
