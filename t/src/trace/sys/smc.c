/* SPDX-License-Identifier: GPL-2.0-or-later */
/* smc.c - does the machine run code changed through /proc/self/mem?
 * (the booted guests of t/79-trace-system.t but la57: the emulator must,
 * or live switching cannot be tested on it.)  f returns 1; once it has
 * run often enough to be translated, its first instruction becomes one
 * that puts 2 in the return register and
 * then one that puts 3, written as the tracer writes code (the page
 * stays read and execute, never writable), the instruction cache synced
 * (__builtin___clear_cache: aarch64 cleans and invalidates the line;
 * riscv64's glibc makes the riscv_flush_icache system call, arm's and
 * mips64el's the cacheflush one; x86 needs nothing; ppc64le and ppc64:
 * dcbst, sync, icbi, isync by hand; s390x: bcr 15,0; sparc64: flush),
 * and f is called again.  Prints "f 1 2 3" on a machine that runs the code it has.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64          /* a 32-bit program's addresses above 2 GiB */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#if defined(__aarch64__)
__asm__(".text\n.globl f\n.type f, %function\n.p2align 4\nf:\n\tmov w0, #1\n\tret\n");
#define RET(n) (0x52800000u | (n) << 5)                 /* mov w0, #n */
#elif defined(__riscv) && __riscv_xlen == 64
/* norvc: a 4-byte addi, the word written over it below */
__asm__(".text\n.globl f\n.type f, %function\n.p2align 4\n.option push\n.option norvc\n"
	"f:\n\taddi a0, zero, 1\n\tret\n.option pop\n");
#define RET(n) (0x00000513u | (uint32_t)(n) << 20)      /* addi a0, zero, n */
#elif defined(__arm__)
/* ARM state (a 4-byte word at a 4-byte boundary), whatever the file's */
#if defined(__thumb__)
#define SMC_MODE ".thumb\n"
#else
#define SMC_MODE ".arm\n"
#endif
__asm__(".text\n.syntax unified\n.arm\n.globl f\n.type f, %function\n.p2align 4\n"
	"f:\n\tmov r0, #1\n\tbx lr\n" SMC_MODE);
#define RET(n) (0xe3a00000u | (n))                      /* mov r0, #n */
#elif defined(__i386__) || defined(__x86_64__)
/* mov $1, %eax: its opcode and the low three bytes of the immediate */
__asm__(".text\n.globl f\n.type f, @function\n.p2align 4\nf:\n\tmovl $1, %eax\n\tret\n");
#define RET(n) (0x000000b8u | (uint32_t)(n) << 8)      /* mov $n, %eax */
#elif (defined(__powerpc64__) && _CALL_ELF == 2) || (defined(__powerpc__) && !defined(__powerpc64__))
/* ELFv2: no TOC, the global entry is the local one; ppc32: no
 * descriptor either; the li is f's first word */
__asm__(".text\n.globl f\n.type f, @function\n.p2align 4\nf:\n\tli 3, 1\n\tblr\n");
#define RET(n) (0x38600000u | (n))                      /* li r3, n */
#elif defined(__powerpc64__)
/* ELFv1: f is a descriptor in .opd, its code at .L.f (CODE) */
__asm__(".section \".opd\", \"aw\"\n.p2align 3\n.globl f\nf:\n\t.quad .L.f, .TOC.@tocbase, 0\n.previous\n"
	".type f, @function\n.text\n.p2align 4\n.L.f:\n\tli 3, 1\n\tblr\n.size f, .-.L.f\n");
#define RET(n) (0x38600000u | (n))                      /* li r3, n */
#define CODE(fn) (*(const uintptr_t *)(uintptr_t)(fn))
#elif defined(__mips__)
/* li v0, 1 (addiu v0, zero, 1); the return's delay slot a nop */
__asm__(".text\n.globl f\n.type f, @function\n.p2align 4\n.set push\n.set noreorder\n"
	"f:\n\tli $2, 1\n\tjr $31\n\tnop\n.set pop\n");
#define RET(n) (0x24020000u | (n))                      /* li v0, n */
#elif defined(__s390x__)
/* big-endian: the word is the instruction's 4 bytes in order */
__asm__(".text\n.globl f\n.type f, @function\n.p2align 4\nf:\n\tlghi %r2, 1\n\tbr %r14\n");
#define RET(n) (0xa7290000u | (n))                      /* lghi %r2, n */
#elif defined(__sparc__) && defined(__arch64__)
/* mov 1, %o0 (or %g0, 1, %o0); the return's delay slot a nop */
__asm__(".text\n.globl f\n.type f, #function\n.p2align 4\n"
	"f:\n\tmov 1, %o0\n\tretl\n\tnop\n");
#define RET(n) (0x90102000u | (n))                      /* mov n, %o0 */
#else
#error "smc.c: aarch64, riscv64, arm, x86, ppc64le, ppc64, ppc, mips64el, s390x or sparc64"
#endif
#ifndef CODE
#define CODE(fn) ((uintptr_t)(fn))                      /* a function's address is its code's */
#endif
int f(void);

static void put(uint32_t insn)
{
	int fd = open("/proc/self/mem", O_RDWR);
	if (fd < 0 || pwrite(fd, &insn, 4, (off_t)CODE(f)) != 4) {
		perror("/proc/self/mem");
		_exit(2);
	}
	close(fd);
#if defined(__powerpc__)
	/* GCC's __builtin___clear_cache is empty on this target */
	__asm__ volatile("dcbst 0, %0\n\tsync\n\ticbi 0, %0\n\tisync" : : "r"(CODE(f)) : "memory");
#elif defined(__sparc__)
	/* GCC's __builtin___clear_cache is empty here too: flush the
	 * doubleword (the kernel's write flushed the I-cache already) */
	__asm__ volatile("flush %0" : : "r"(CODE(f)) : "memory");
#elif defined(__s390x__)
	/* no instruction cache to clean: serialise (discards what was prefetched) */
	__asm__ volatile("bcr 15, 0" : : : "memory");
#else
	__builtin___clear_cache((char *)CODE(f), (char *)CODE(f) + 4);
#endif
}

int main(void)
{
	int (*volatile fp)(void) = f;
	int a = 0, b, c;
	for (int i = 0; i < 1000; i++)
		a = fp();
	put(RET(2));
	b = fp();
	put(RET(3));
	c = fp();
	printf("f %d %d %d\n", a, b, c);
	return 0;
}
