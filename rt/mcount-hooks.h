/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mcount-hooks.h - hooks on a program's own functions, from libmcount-trace.
 *
 * Any code of a program linked with libmcount-trace.a (or run with
 * libmcount-trace.so preloaded) can have its own callback run at the
 * call, and at the return, of every function a filter selects, as the
 * kernel's ftrace_ops let any user hook its functions.  The functions are
 * those of the objects with an __mcount_loc table (mcount-cc, or GCC's
 * -mrecord-mcount); a filter takes the globs of mcount_trace_enable()
 * (mcount-trace.h), ":mod:" included.  The tracer of mcount-trace(1) is
 * one more user of the same call sites: hooks and the tracer see the
 * same calls, each through its own filter.  mcount_hook(3) says it all.
 *
 * Every function returns 0 (or a count) or -1 with errno set:
 *   EINVAL   a NULL hook or function, a bad filter, no callback at all,
 *            a flag not below, a hook registered (or not) as the call
 *            needs
 *   ENOMEM   no memory
 *   ENOSPC   63 hooks are registered already (31 where a long is 32
 *            bits)
 *   ENOTSUP  not on this architecture (x86_64, i386, aarch64, riscv64,
 *            ppc64le, ppc64, ppc32, s390x, arm, mips64el, mipsel, mips
 *            and sparc64 have hooks)
 *   ENOENT   a redirect of a function that is in no table
 *   EPERM    the program's code cannot be changed (mcount-trace(1): no
 *            /proc/self/mem), or the library has not started
 *   EDEADLK  unregister from inside a hook's callback (it would wait
 *            for the callbacks under way, its own among them)
 * Every call is safe from any thread at any time but from a signal
 * handler; none is async-signal-safe.
 */
#ifndef MCOUNT_HOOKS_H
#define MCOUNT_HOOKS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The registers at the call (the arguments, the stack pointer) or at
 * the return (the return value): per architecture, read through the
 * functions below and only during the callback that was given it. */
struct mcount_regs;
struct mcount_hook;

/* ip: the function's address (its symbol's value, on arm without the
 * Thumb bit; on ppc64's ELFv1 its code's, not its descriptor's);
 * parent_ip: where it was called from (the return address of its
 * call); data: as given to mcount_hook_create. */
typedef void (*mcount_hook_fn)(unsigned long ip, unsigned long parent_ip, void *data,
			       struct mcount_regs *regs);

/* flags of mcount_hook_create.  MCOUNT_HOOK_GENERAL_REGS: the caller
 * promises that its callbacks (and all they call) touch no
 * floating-point or vector register: compiled with -mgeneral-regs-only
 * (x86, aarch64; as the kernel builds its ftrace callbacks without
 * SSE), calling nothing that uses one (memcpy and printf may).  A site
 * whose users all promise it then skips the save of the registers that
 * carry floating-point and vector arguments (x86_64's %xmm0-7 and so
 * on).  A callback that breaks the promise corrupts the traced
 * function's floating-point arguments and return values, silently. */
#define MCOUNT_HOOK_GENERAL_REGS 1u

/* A hook, not yet registered, with an empty filter (every function) and
 * no notrace.  entry runs at the call of each selected function, exit
 * (when not NULL) at its return; either may be NULL, not both.  flags:
 * 0 or MCOUNT_HOOK_GENERAL_REGS.  A frame left by longjmp or a C++
 * exception gets no exit; no callback may longjmp or throw out of
 * itself (mcount_hook(3)). */
struct mcount_hook *mcount_hook_create(mcount_hook_fn entry, mcount_hook_fn exit, void *data, unsigned flags);
/* The functions the hook selects: a FILTER, replacing the last one ("":
 * every function, as the kernel's empty filter).  notrace: the functions
 * never selected, whatever the filter says ("": none).  Either may
 * change while the hook is registered: the code follows before the call
 * returns.  Returns 0 or -1 (EINVAL: a bad filter, the old one kept). */
int mcount_hook_filter(struct mcount_hook *h, const char *filter);
int mcount_hook_notrace(struct mcount_hook *h, const char *filter);
/* From the return of register on, every call of a selected function
 * runs the callbacks.  When unregister returns, no thread is running one
 * of this hook's callbacks nor will ever enter one again: data may be
 * freed.  A frame entered before that returns without its exit
 * callback. */
int mcount_hook_register(struct mcount_hook *h);
int mcount_hook_unregister(struct mcount_hook *h);
/* Frees a hook that is not registered (NULL, or a registered one:
 * nothing). */
void mcount_hook_destroy(struct mcount_hook *h);

/* In an entry callback: the function's argument word n (0 the first), as
 * the calling convention passes it; 0 and errno EINVAL for n out of
 * range (0 to 11), ENODATA where the word cannot be found (a stack
 * argument in a frame the library cannot read), ENOTSUP where the hook
 * runs after the function has moved its arguments (aarch64, riscv64,
 * ppc64le, ppc64). */
unsigned long mcount_regs_arg(struct mcount_regs *r, int n);
/* In an exit callback: the value the function returns (its first
 * register); 0 and errno EINVAL in an entry callback. */
unsigned long mcount_regs_return(struct mcount_regs *r);

/* Calls of function (a glob that names one function, :mod: allowed) go
 * to replacement instead (live patching), and back, under the
 * breakpoint protocol while the program runs.  Hooks on the function
 * still see each call (and its return, from the replacement).  Errors:
 * ENOENT (no such function), EINVAL (a glob naming several, a
 * replacement in no object's code), EBUSY (a redirect there already),
 * ENOTSUP (the function's site is not at its entry: -pg without
 * -mfentry, and on every architecture but x86 every site).  The
 * replacement's code must stay: a call may still be on its way there
 * when unredirect returns. */
int mcount_hook_redirect(const char *function, void *replacement);
int mcount_hook_unredirect(const char *function);

#ifdef __cplusplus
}
#endif

#endif
