/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arch-x86_64.h - mcount-attach's knowledge of the x86_64 process it
 * calls a function in: the registers ptrace gives, the call set up by
 * the psABI (arguments in %rdi and %rsi, %rsp 16-byte aligned at the
 * call, so 8 off at the function's first instruction, a red zone of
 * 128 bytes below %rsp that a leaf function may use, the direction
 * flag clear), and a system call a thread was stopped in.
 *
 * A thread stopped inside a system call (a sleep, a read, a futex
 * wait) shows the call's number in orig_rax and, in rax, the kernel's
 * -ERESTART* value when the call is to be restarted; rip is past the
 * syscall instruction.  The kernel restarts it (rip back 2 bytes, rax
 * the number again; -ERESTART_RESTARTBLOCK: restart_syscall) when the
 * thread goes on from a stop with orig_rax >= 0 and no handler to run.
 * So the injected call is given orig_rax = -1: no restart is made of
 * it, and the registers the thread is given back, orig_rax included,
 * have the kernel restart the call as it would have.  The vector
 * registers (and x87) are saved and given back whole, XSAVE's area
 * (NT_X86_XSTATE: AVX and AVX-512 too), else FXSAVE's
 * (PTRACE_GETFPREGS). */
#ifndef ATTACH_ARCH_X86_64_H
#define ATTACH_ARCH_X86_64_H

#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>

#define ARCH_NAME "x86_64"
#define ARCH_MACHINE EM_X86_64
#define ARCH_CLASS ELFCLASS64
#define ARCH_RED_ZONE 128

struct arch_regs {
	struct user_regs_struct r;
	unsigned char fp[64 * 1024];  /* the XSAVE area (or FXSAVE's) */
	size_t fp_len;
	bool xstate;
};

static inline int arch_get(pid_t tid, struct arch_regs *a)
{
	if (ptrace(PTRACE_GETREGS, tid, 0, &a->r))
		return -1;
	struct iovec v = { a->fp, sizeof a->fp };
	if (!ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &v)) {
		a->xstate = true;
		a->fp_len = v.iov_len;
		return 0;
	}
	a->xstate = false;
	a->fp_len = sizeof(struct user_fpregs_struct);
	return ptrace(PTRACE_GETFPREGS, tid, 0, a->fp) ? -1 : 0;
}

static inline int arch_set(pid_t tid, const struct arch_regs *a)
{
	if (ptrace(PTRACE_SETREGS, tid, 0, &a->r))
		return -1;
	if (a->xstate) {
		struct iovec v = { (void *)a->fp, a->fp_len };
		return ptrace(PTRACE_SETREGSET, tid, (void *)NT_X86_XSTATE, &v) ? -1 : 0;
	}
	return ptrace(PTRACE_SETFPREGS, tid, 0, (void *)a->fp) ? -1 : 0;
}

static inline uintptr_t arch_pc(const struct arch_regs *a) { return a->r.rip; }
static inline uintptr_t arch_sp(const struct arch_regs *a) { return a->r.rsp; }
static inline uintptr_t arch_result(const struct arch_regs *a) { return a->r.rax; }
/* The system call the thread was stopped in (-1: none). */
static inline long arch_syscall(const struct arch_regs *a) { return (long)a->r.orig_rax; }

/* The registers of a call of fn(a0, a1) from the saved ones, with its
 * stack pointer sp (the return address's word, 16-byte aligned + 8)
 * already holding the return address. */
static inline void arch_call(struct arch_regs *c, const struct arch_regs *saved, uintptr_t fn,
			     uintptr_t sp, uintptr_t a0, uintptr_t a1)
{
	*c = *saved;                        /* (the vector state as it is: MXCSR's masks too) */
	c->r.rip = fn;
	c->r.rsp = sp;
	c->r.rdi = a0;
	c->r.rsi = a1;
	c->r.rax = 0;
	c->r.orig_rax = (unsigned long)-1;  /* no restart of a system call */
	c->r.eflags &= ~0x400ul;            /* DF clear */
}

/* Whether code at a pc (its first byte) may be inside a run of NOP
 * instructions that the library, once loaded, makes one (GCC's
 * -fpatchable-function-entry: five 0x90 at an entry, two after a
 * prefix): a thread there is stepped on first. */
static inline bool arch_nop_run(unsigned char first) { return first == 0x90; }

/* Where the return address goes (the word at the call's sp), and that
 * sp, given the lowest address the call's data took. */
static inline uintptr_t arch_call_sp(uintptr_t below)
{
	return ((below - 8) & ~(uintptr_t)15) - 8;
}

#endif
