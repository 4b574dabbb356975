/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rt.h - libmcount-trace's internal interfaces.
 *
 * The runtime follows the kernel's dynamic ftrace: one record per call
 * site (struct mt_site: address, bytes, state), filters that only set
 * per-function flags (struct mt_func.hooks: which users want it, the
 * tracer one of them), and one pass (patch.c) that turns flags into
 * code changes, batched, with the breakpoint protocol.
 * Everything that knows an opcode is behind struct mt_arch (arch-*.c);
 * the hook trampolines are in hook-*.S.
 *
 *   base.c     messages, the environment, writes, sorting (calls no other)
 *   elf.c      the loaded objects, their __mcount_loc tables and symbols
 *   sites.c    the site and function registry, filters, start-up checks
 *   ops.c      the hooks layer: which users (the tracer, hooks) each
 *              function's sites serve
 *   patch.c    writing code (/proc/self/mem), the breakpoint protocol,
 *              the SIGTRAP handler, trampoline pages
 *   buffer.c   the clock, the per-thread buffers and shadow stacks,
 *              the hot path (entry hook and return trampoline) that
 *              calls each call's users
 *   trace.c    the tracer: user 0 of the hooks layer, its events put
 *              into the rings
 *   args.c     function events: argument prototypes, their sites, and
 *              how recorded arguments are written
 *   dwarf.c    prototypes from the objects' DWARF (bare-glob events)
 *   debugfile.c  an object's separate debug file (build-id, debuglink)
 *   inflate.c  compressed debug sections' zlib streams
 *   output.c   the trace formats (kernel text, JSON lines, Chrome JSON)
 *   change.c   a change of the code: its locks, the registry refreshed
 *   hooks.c    the C API of mcount-hooks.h
 *   profile.c  the function profiler (mcount-trace stat), a hook
 *   control.c  start-up, the control socket, the C API,
 *              fork/exec/dlopen
 */
#ifndef MCOUNT_RT_H
#define MCOUNT_RT_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#define MT_HIDDEN __attribute__((visibility("hidden")))

/* ppc64's ELFv1 ABI (big-endian): a function's symbol is its
 * descriptor in .opd (code address, TOC pointer, environment), not its
 * code; a pointer to a function is the descriptor's address. */
#if defined(__powerpc64__) && (!defined(_CALL_ELF) || _CALL_ELF == 1)
#define MT_ELFV1 1
#else
#define MT_ELFV1 0
#endif

/* ---- the bottom: messages, the environment, writes, sorting (base.c) ----
 * base.c calls into no other file of the library. */
MT_HIDDEN void mt_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Has this been told about the file at path (and what, or NULL: the file
 * itself)?  Remembered from the first call on. */
MT_HIDDEN bool mt_told(const char *path, const char *what);
/* A variable of the environment, NULL if it is not set, or if the
 * program runs with privileges (AT_SECURE): every variable the library
 * reads is read through this. */
MT_HIDDEN const char *mt_env(const char *name);
MT_HIDDEN bool mt_secure(void);                 /* AT_SECURE */
/* Before the C library has set environ, the environment is the one the
 * process started with (envp): mt_env_early(envp) until mt_env_late(). */
MT_HIDDEN void mt_env_early(char **envp);
MT_HIDDEN bool mt_env_is_early(void);
MT_HIDDEN void mt_env_late(void);
/* All n bytes to fd (EINTR retried), or -1. */
MT_HIDDEN int mt_write_all(int fd, const char *p, size_t n);
/* Sort n elements of size bytes by the address of ksize bytes at offset
 * off (a uintptr_t or a uint64_t; cmp compares two of them the same
 * way: the fallback without memory). */
MT_HIDDEN void mt_sort_by_addr(void *base, size_t n, size_t size, size_t off, size_t ksize,
			       int (*cmp)(const void *, const void *));

/* ---- architecture (arch-*.c) ---- */

/* What a site's code is: the call the compiler made (to the hook), a
 * NOP, or a call of its function's own trampoline (MT_OWN: a function
 * one hook alone uses, struct mt_arch.own_fits; its site's own). */
enum mt_state { MT_CALL = 0, MT_NOP = 1, MT_OWN = 2 };

struct mt_site;
struct mt_object;

/* A write mt_arch.prep asks for: n bytes of b at at. */
#define MT_PREP_MAX 2
struct mt_prep {
	uintptr_t at;
	unsigned n;
	bool quiet;
	unsigned char b[16];
};

/* What one instruction does to the registers (DWARF's numbers, below
 * MT_DWARF_REGS), as mt_arch.insn tells it: its length, and a copy
 * (move: dst[0] := src), or the registers it writes (dst[0..n)), or
 * stop (control flow, or not known). */
#define MT_DWARF_REGS 96
struct mt_insn {
	uint8_t len;
	bool move, stop;
	uint8_t n, src, dst[3];
};

struct mt_arch {
	const char *name;
	/* How a site changes while other threads may be running it: with
	 * the breakpoint protocol (trap[], trap_len), or, where trap_len is
	 * 0, with one naturally aligned store of the whole site (s->len
	 * bytes), which the architecture allows for the two states (see
	 * arch-*.c).  Neither a trap nor trap_site and emulate are used
	 * then: every SIGTRAP is the program's. */
	unsigned char trap[1];        /* the breakpoint instruction */
	unsigned trap_len;
	/* Neither: the two states cannot replace each other while another
	 * thread may run the site (riscv64: a 4-byte write is not one
	 * access, arch-riscv64.c).  patch.c writes
	 * behind fenced pages: non-executable while they are written, a
	 * thread that reaches one waits in the SIGSEGV handler, and
	 * sync_self makes every thread fetch the new code afterwards (it
	 * runs in MT_FENCE_TEXT, never on a fenced page). */
	bool fence_pages;
	/* Where the kernel has no SYNC_CORE command for membarrier (Linux
	 * 6.1 on s390x, sparc64), a thread interrupted by PRIVATE_EXPEDITED's
	 * IPI is serialised by the interruption and its return: patch.c
	 * uses that command then. */
	bool expedited;
	/* The relocation types by which the dynamic linker fills a GOT slot
	 * with a symbol's address (elf.c: slots that hold a hook). */
	unsigned jump_slot, glob_dat;
	/* Where the program's hook is the C library's own, linked into it,
	 * the function that hook calls, which the library defines instead
	 * (ppc32: glibc's _mcount calls __mcount_internal, rt/hook-ppc.S);
	 * elf.c reads the slots filled with it too.  NULL elsewhere. */
	const char *hook_callee;
	/* The names of mt_hooks's hooks, in its order, NULL-terminated: a
	 * GOT slot filled with another object's hook of one of those names
	 * is given ours when the library was loaded late (patch.c,
	 * mt_hook_slots_ours).  NULL: not said (none is given). */
	const char *const *hook_names;
	/* The bits of a function symbol's value that are not its address
	 * (arm: bit 0, set for Thumb code); elf.c clears them. */
	uintptr_t func_bits;
	/* Read the site's bytes at s->addr: fill s->len, s->orig, s->form and
	 * the call's target, and clear the bits of s->addr that are not the
	 * instruction's address (arm: a Thumb entry's bit 0).  0 if it is a
	 * call to a hook, else a static string saying what it is instead.
	 * A site the compiler left switched off (GCC's -mnop-mcount)
	 * is taken with s->state set to MT_NOP (the default is MT_CALL), and
	 * s->orig the call that switches it on. */
	const char *(*decode)(struct mt_site *s, const struct mt_object *o);
	/* The bytes of a site in a state (s->len of them). */
	void (*bytes)(const struct mt_site *s, enum mt_state st, unsigned char *out);
	/* Serialise this thread's instruction stream, after a write of
	 * [lo, hi) (0, 0: of any code), whose caches it makes consistent
	 * first (arm, aarch64, ppc64le: GCC's __builtin___clear_cache
	 * emits nothing there). */
	void (*sync_self)(uintptr_t lo, uintptr_t hi);
	/* sync_self does it for all code whatever the range (riscv64: the
	 * kernel's riscv_flush_icache takes none): once a pass is enough. */
	bool sync_whole;
	/* The interrupted context of a trap: its address, the site it stopped
	 * in (ip after the trap instruction), and the emulation of a site. */
	uintptr_t (*trap_site)(const void *uc);
	void (*emulate)(const struct mt_site *s, enum mt_state st, void *uc);
	/* Function events where the hook runs after the body moved the
	 * arguments (MT_ARGS_LOCATED): the index, in the registers the hook
	 * passes mt_entry, of DWARF register r as it was at the site, or -1
	 * where the hook does not keep it; and the DWARF numbers of the
	 * stack and frame pointers, the only bases of memory read. */
	int (*arg_reg)(unsigned r);
	unsigned dwarf_sp, dwarf_fp;
	/* The instruction at a (for an argument DWARF calls its register's
	 * value at the function's entry: dwarf.c follows the copies the
	 * code before the site made of it). */
	void (*insn)(uintptr_t a, struct mt_insn *out);
	/* Is the site at its function's (at func) entry, before the
	 * function has changed its stack or registers, so that the hook
	 * may send the call elsewhere (a redirect)?  NULL: never. */
	bool (*at_entry)(const struct mt_site *s, uintptr_t func);
	/* Own trampolines (the kernel's dynamic trampolines): a function
	 * that hooks alone use (mt_ops_own: no exit callback, no redirect,
	 * not the tracer's) has its site call a stub of its own, which
	 * goes to mt_own_tramp with the function's index, so that the hot
	 * path need not look the site up, and with one hook walks no list.  Can the site
	 * (of the function at func) call one (NULL: never)?  The stubs of
	 * an object's functions [first, first + n) are one region, within a
	 * call's reach of its code: own_region writes the region as it is
	 * to be at address at (own_head bytes, then own_stride a stub). */
	bool (*own_fits)(const struct mt_site *s, uintptr_t func);
	void (*own_region)(unsigned char *out, uintptr_t at, uint32_t first, uint32_t n);
	unsigned own_head, own_stride;
	uintptr_t own_reach;          /* how far a site may call, both ways */
	/* -fpatchable-function-entry's sites whose code is still what the
	 * compiler left (s->raw, set by decode): the writes made once
	 * before the site is first changed (patch.c, at the start of a
	 * pass), at most MT_PREP_MAX; returns how many.  A write is quiet
	 * where it makes several NOP instructions one (x86: GCC's five
	 * 0x90 made one 5-byte NOP), which must never happen while a
	 * thread's PC could be inside them: patch.c makes it only while
	 * every other thread of the process is stopped by a tracer with
	 * its PC outside (mcount-attach's; at start-up there is no other),
	 * else the site is refused.  Any other write is of code no thread
	 * runs until the site sends it there (x86: the call written in the
	 * NOPs before the function's symbol).  NULL: none. */
	unsigned (*prep)(const struct mt_site *s, struct mt_prep *out);
};
/* For the instruction decoders: register r written. */
static inline void mt_insn_w(struct mt_insn *o, unsigned r)
{
	if (o->n < 3 && r < MT_DWARF_REGS)
		o->dst[o->n++] = (uint8_t)r;
	else
		o->stop = true;
}
MT_HIDDEN extern const struct mt_arch mt_arch;

/* For the decoders (arch-*.c): the code at a as memory holds it, 4 or 2
 * bytes (an instruction may be only 2-byte aligned), and the low `bits`
 * bits of v sign-extended. */
static inline uint32_t mt_code32(uintptr_t a)
{
	uint32_t v;
	__builtin_memcpy(&v, (const void *)a, 4);
	return v;
}
static inline uint16_t mt_code16(uintptr_t a)
{
	uint16_t v;
	__builtin_memcpy(&v, (const void *)a, 2);
	return v;
}
static inline int64_t mt_sext(uint64_t v, unsigned bits)
{
	return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

/* The function_graph tracer needs the hook to pass the slot of the
 * function's return address and a return trampoline, and a key by which
 * the trampoline names the frame that returned through it:
 *   x86_64   the slot itself, just below %rsp after the return.
 *   i386     the same (4(%ebp) for mcount, 4(%esp) at __fentry__).
 *   aarch64  the slot is in the function's frame record (x29 + 8), which
 *            the epilogue popped; the key is the caller's frame pointer,
 *            saved in the record (slot - 8) and restored into x29 by the
 *            epilogue.  Where the record does not hold the return
 *            address the function was called with (pointer
 *            authentication signed it), the hook passes slot |
 *            MT_SLOT_KEEP, pointing at a copy {key, return address} in
 *            its own frame: the entry is recorded, the frame is never
 *            hijacked.  That check is not enough: a signature may be all
 *            zero bits (7 of them with EL0's top-byte-ignore, 1 address
 *            in 128), so a function whose prologue signs its return
 *            address is never hijacked at all (arch-aarch64.c marks its
 *            sites nohook; mt_nohook is the hot path's map of them).
 *   riscv64  the hook cannot know whether s0 is a frame pointer (GCC
 *            keeps one only with -fno-omit-frame-pointer, or at -O0), so
 *            it always passes a copy marked MT_SLOT_KEEP, and s0 as
 *            regs[MT_REG_FP].  Where the site's function made s0 its
 *            CFA in its prologue (arch-riscv64.c; the other sites are
 *            nohook) and s0 - 8 holds the parent, the entry takes that
 *            as the slot: just below the caller's stack pointer, as on
 *            x86_64, so the key is the slot, and the trampoline finds it
 *            just below sp after the return.
 *   arm      (32-bit) the hook passes the parent its site pushed, marked
 *            MT_SLOT_KEEP, and pops that word into lr when it returns.
 *            The decoder reads the prologue before the site (mt_site.frame:
 *            the bytes it pushed; mt_site.lr_at: how far above the
 *            pushed word it saved lr, arch-arm.c; sites whose prologue
 *            it cannot read are nohook).  Where the prologue saved lr,
 *            the slot is that word, taken once it holds the parent, and
 *            the epilogue returns through it.  Where it did not (a leaf,
 *            whatever else it pushed), the return is in lr, so the slot
 *            is the pushed word itself: what the entry writes there the
 *            hook pops into lr, and the function returns to it, or saves
 *            it later and returns through that copy.  That word is dead
 *            once the hook returned (MT_SLOT_DEAD: never written again).
 *            Either way the function returns with sp its caller's, so
 *            the key is the word just below the caller's sp, mt_site.frame
 *            bytes above the pushed word (MT_SLOT_FRAME), and the
 *            trampoline finds it at sp - 4 after the return.
 *   mips64el, mipsel (n64, o32) the hook passes a copy of the parent
 *            (at) marked MT_SLOT_KEEP; where the prologue stored ra at
 *            the top of its frame (sd ra, F-8(sp) after daddiu sp, sp,
 *            -F; o32: sw ra, F-4(sp) after addiu), just
 *            below the caller's sp, the decoder records how far above
 *            the copy that is (mt_site.frame, arch-mips.c; the
 *            other sites, leaves among them, are nohook) and the entry
 *            takes it once it holds the parent (MT_SLOT_FRAME, as arm;
 *            the key is the slot).
 *   ppc64le  (and ppc64, ELFv1: the same frame header's lr slot) the
 *            slot is where the ABI puts it: 16 bytes into the
 *            caller's frame (the function's back chain + 16), where the
 *            prologue saved the link register and from where the
 *            epilogue reloads it.  The key is the slot; the trampoline
 *            finds it 16 bytes above sp after the return.
 *   sparc64  the function's %i7 (it returns to %i7 + 8), which the
 *            hook's flushw wrote to the save area of the function's
 *            window (its sp + 2047 + 120) and from where the window is
 *            filled again when the hook returns.  The key is the word
 *            below it, the function's %i6: its caller's sp, which is
 *            the trampoline's fp after the return.  Slots are in their
 *            own frames, below the key: frame_at is the key plus the
 *            stack bias (MT_FRAME_AT_KEY), where the frame is, and the
 *            unwinders' writes go to memory after a flushw
 *            (MT_FLUSH_WINDOWS).
 *   s390x    the word at 8 of the function's r15 (the ABI reserves it in
 *            the register save area its caller provides): _mcount's
 *            site stores the return address there and reloads it from
 *            there, __fentry__ puts it there and reloads it itself.
 *            Both run before the prologue moves r15, so the key is the
 *            slot, and the trampoline finds it at 8 of r15 after the
 *            return.
 * MT_SLOT_COPY: the hook may pass such a copy.  MT_SLOT_FOUND: it
 * always does, and the entry finds the slot only for sites that are
 * not nohook. */
#if defined(__x86_64__) || defined(__i386__)
#define MT_HAVE_GRAPH 1
#define MT_KEY_IS_SLOT 1
#define MT_SLOT_COPY 0
#elif defined(__aarch64__)
#define MT_HAVE_GRAPH 1
#define MT_KEY_IS_SLOT 0
#define MT_SLOT_COPY 1
#elif defined(__powerpc__)
/* ppc32 too: its slot is the word its site stored lr in, 4 bytes into
 * the caller's frame (arch-ppc.c) */
#define MT_HAVE_GRAPH 1
#define MT_KEY_IS_SLOT 1
#define MT_SLOT_COPY 0
#elif defined(__s390x__)
#define MT_HAVE_GRAPH 1
#define MT_KEY_IS_SLOT 1
#define MT_SLOT_COPY 0
#elif defined(__sparc__) && defined(__arch64__)
#define MT_HAVE_GRAPH 1
#define MT_KEY_IS_SLOT 0
#define MT_SLOT_COPY 0
#define MT_FRAME_AT_KEY 2047
#define MT_FLUSH_WINDOWS() __asm__ volatile("flushw" : : : "memory")
#elif defined(__riscv) && __riscv_xlen == 64
#define MT_HAVE_GRAPH 1
#define MT_KEY_IS_SLOT 1
#define MT_SLOT_COPY 1
#define MT_REG_FP 10                  /* s0, where hook-riscv64.S saved it */
#define MT_SLOT_FOUND 1
#elif defined(__arm__)
#define MT_HAVE_GRAPH 1
#define MT_KEY_IS_SLOT 0
#define MT_SLOT_COPY 1
#define MT_SLOT_FRAME 1
#define MT_SLOT_FOUND 1
#define MT_SLOT_DEAD 2                /* mt_shadow.slot: the pushed word, dead */
#elif defined(__mips__) && (_MIPS_SIM == _ABI64 || _MIPS_SIM == _ABIO32)
#define MT_HAVE_GRAPH 1
#define MT_KEY_IS_SLOT 1
#define MT_SLOT_COPY 1
#define MT_SLOT_FRAME 1
#define MT_SLOT_FOUND 1
#else
#define MT_HAVE_GRAPH 0
#define MT_KEY_IS_SLOT 1
#define MT_SLOT_COPY 0
#endif
#ifndef MT_SLOT_FOUND
#define MT_SLOT_FOUND 0
#endif
#ifndef MT_FLUSH_WINDOWS
#define MT_FLUSH_WINDOWS() ((void)0)
#endif
#define MT_SLOT_KEEP 1
/* i386: a function may return by `ret $n` (one returning a structure
 * pops the hidden pointer to it, a stdcall one its arguments), which
 * leaves the stack pointer n bytes above where the trampoline looks for
 * the slot: the key it passes is then above the frame's slot, below the
 * caller's (which is above the popped bytes).  mt_exit takes the entry
 * with the highest slot at or below the key. */
#if defined(__i386__)
#define MT_RET_POPS 1
#else
#define MT_RET_POPS 0
#endif
/* s390x: the slot is only where the function's return address passes
 * through before its prologue saves r14 (at 112 of the r15 it was
 * entered with, the ABI's save area; a function that calls saves it
 * there), and the epilogue, and an unwinder, take it from there.  So
 * what gives a frame its return address back (mt_shadow_unhook) or the
 * trampoline again (mt_shadow_rehook) does it at the slot and, where it
 * holds the same, at the slot + MT_SLOT_ALIAS bytes. */
#if defined(__s390x__)
#define MT_SLOT_ALIAS 104
#endif

/* Some sites' frames are never hijacked (struct mt_site.nohook, the
 * hot path's mt_nohook): where the hook may pass a copy (MT_SLOT_COPY),
 * and on x86, where mcount's 4(%ebp) or 8(%rbp) is a copy of the return
 * address in a function that realigns its stack through a register
 * (GCC's DRAP: i386's main, for one), which returns through the real
 * slot. */
#if (MT_SLOT_COPY && !MT_SLOT_FOUND) || defined(__i386__) || defined(__x86_64__)
#define MT_HAVE_NOHOOK 1
#else
#define MT_HAVE_NOHOOK 0
#endif
/* x86: the copy has no arguments above it either (buffer.c). */
#if defined(__i386__) || defined(__x86_64__)
#define MT_NOHOOK_NO_ARGS 1
#else
#define MT_NOHOOK_NO_ARGS 0
#endif

/* ---- objects (elf.c) ---- */

#if MT_ELFV1
/* A function descriptor of .opd, relocated: the code's address and the
 * TOC pointer the function runs with. */
struct mt_desc {
	uintptr_t entry, toc;
};
#endif

/* A function of an object's symbol table: of the names at its address,
 * the one shown (its plain name where that is its default version or it
 * has none; name@VERSION where only hidden versions name it: elf.c), and
 * its versioned names (name@@VERSION, name@VERSION; NULL-terminated, or
 * NULL: none), which filters take too; read for objects with a table. */
struct mt_sym {
	uintptr_t addr;
	uintptr_t size;
	const char *name;
	const char *const *alias;
};

#define MT_MAX_RANGES 8
struct mt_object {
	char *path;                   /* file it was read from */
	char *name;                   /* basename: the :mod: name */
	uintptr_t bias;               /* load bias */
	bool main;                    /* the program itself */
	bool live;                    /* still loaded */
	unsigned nexec;
	uintptr_t exec_lo[MT_MAX_RANGES], exec_hi[MT_MAX_RANGES];
	const unsigned char *file;    /* the file, mapped read-only: one
				       * mapping for every object read from
				       * the same file (an object opened and
				       * closed again and again) */
	size_t file_size;
	dev_t file_dev;               /* that file, as fstat() saw it mapped */
	ino_t file_ino;
	struct timespec file_mtime;
	uintptr_t table;              /* run-time address of __mcount_loc, or of
				       * __patchable_function_entries where it
				       * has no __mcount_loc (0: neither) */
	size_t table_size;
	uintptr_t ptable;             /* __patchable_function_entries beside
				       * __mcount_loc (0: not both) */
	size_t ptable_size;
	struct mt_sym *syms;          /* functions, by address */
	size_t nsyms;
	_Atomic size_t sym_hint;      /* mt_sym_at's last answer: the sites come
				       * in address order, most in one function
				       * after another's */
	bool syms_read;               /* read at start-up where there is a table,
				       * else on the first mt_sym_at() */
	uintptr_t *hook_slots;        /* GOT slots the dynamic linker fills with a hook */
	uintptr_t *hook_slot_ours;    /* ... and for each, our hook of its name (0: none) */
	size_t nhook_slots;
	uintptr_t *callee_slots;      /* ... with mt_arch.hook_callee */
	size_t ncallee_slots;
	uintptr_t own_hook;           /* a function named like a hook that the
				       * object defines and calls through its
				       * PLT (0: none) */
	bool spawns;                  /* it calls (through a GOT slot) a function
				       * that runs another program: exec*,
				       * posix_spawn*, system, popen (a shell,
				       * make) */
	uintptr_t plt_lo[2], plt_hi[2];
	uintptr_t got;                /* the GOT's base (.got.plt: i386's
				       * _GLOBAL_OFFSET_TABLE_), 0: none */
#if MT_ELFV1
	struct mt_desc *descs;        /* its .opd's descriptors, by code address */
	size_t ndescs;
#endif
	struct mt_dwarf *dwarf;       /* its debug information's subprograms (dwarf.c) */
	bool dwarf_read;              /* looked for (on the first bare-glob prototype) */
	struct mt_cfi *cfi;           /* its .eh_frame's FDEs (cfi.c) */
	bool cfi_read;
	uintptr_t own_base;           /* its functions' own trampolines (patch.c:
				       * mt_arch.own_region), 0: none yet */
	uint32_t own_first, own_n;    /* for functions [own_first, own_first + own_n) */
	bool own_failed;              /* no room for them: never tried again */
};

/* Read the objects loaded now that are not known yet; returns how many
 * were added to *objs (reallocated).  Objects gone are marked !live. */
MT_HIDDEN size_t mt_objects_refresh(struct mt_object ***objs, size_t *nobjs);
MT_HIDDEN const struct mt_sym *mt_sym_at(const struct mt_object *o, uintptr_t addr);
/* The start of the function around a site, for reading its prologue
 * (arch-*.c): 0 unless the object names it, it is aligned to align and
 * in the object's code, and the site is at most 4 KiB into it. */
MT_HIDDEN uintptr_t mt_prologue_of(const struct mt_object *o, uintptr_t site, uintptr_t align);
MT_HIDDEN bool mt_in_exec(const struct mt_object *o, uintptr_t addr);
MT_HIDDEN bool mt_is_hook_name(const char *name);
/* The library's own hooks (hook-ARCH.S) by address, in the order the
 * architecture's code names: words in data, so that no instruction of
 * the library names a hook, which the link-time pass (linking the
 * library in) and --verify would take for a call of it. */
MT_HIDDEN extern const uintptr_t mt_hooks[];
/* A function named like a hook starts at t (its symbol's value). */
MT_HIDDEN bool mt_is_hook_sym(const struct mt_object *o, uintptr_t t);
MT_HIDDEN bool mt_in_plt(const struct mt_object *o, uintptr_t addr);
/* A GOT slot the dynamic linker fills with a hook; with
 * mt_arch.hook_callee. */
MT_HIDDEN bool mt_is_hook_slot(const struct mt_object *o, uintptr_t slot);
MT_HIDDEN bool mt_is_callee_slot(const struct mt_object *o, uintptr_t slot);
#if MT_ELFV1
/* The TOC pointer of the code at a: that of the descriptor whose code
 * starts nearest before it (0: none, or a is not in the object's code). */
MT_HIDDEN uintptr_t mt_toc_at(const struct mt_object *o, uintptr_t a);
#endif
/* A regular file mapped read-only (its size in *size), or NULL (a FIFO
 * is not waited on). */
MT_HIDDEN const unsigned char *mt_map_file(const char *path, size_t *size, struct stat *seen);
/* The contents of section name of the ELF file mapped at p (size bytes),
 * their length in *len: NULL if it has none in the file (no such section,
 * SHT_NOBITS) or they are not within it.  A compressed section is passed
 * over where compressed is NULL; else it is inflated (zlib) into memory
 * kept for good, and *compressed set if it cannot be (zstd, damaged). */
MT_HIDDEN const unsigned char *mt_elf_section(const unsigned char *p, size_t size, const char *name, size_t *len,
					      bool *compressed);
/* The same for an uncompressed section, and its address (sh_addr). */
MT_HIDDEN const unsigned char *mt_elf_section_at(const unsigned char *p, size_t size, const char *name, size_t *len,
						 uint64_t *addr);

/* ---- sites and functions (sites.c) ---- */

struct mt_site {
	uintptr_t addr;
	uintptr_t target;             /* the call's target, or its GOT slot */
	uint32_t func;                /* index in the function table */
	uint16_t obj;
	uint8_t len;
	uint8_t form;                 /* arch-specific */
	unsigned char orig[8];        /* the call, as the table found it (or as
				       * the library writes it: -mnop-mcount) */
	_Atomic uint8_t state;        /* enum mt_state: what the code is or is becoming */
	_Atomic bool refused;         /* its bytes were not what they should be: never
				       * written again, its traps not ours */
	bool nohook;                  /* function_graph never replaces its frame's
				       * return address (signed, or not found) */
	bool bare;                    /* its NOP is still the compiler's, not
				       * bytes(MT_NOP) of its call: with
				       * mt_arch.trap_len 0, patch.c writes
				       * that first, then the call (s390x) */
	bool framed;                  /* arm: its prologue was read, and */
	uint16_t frame;               /* pushed this much before the site (rt.h) */
	uint16_t lr_at;               /* arm: saved lr this far above the site's
				       * pushed word (0: did not save it) */
	uint8_t next;                 /* the state the pass is bringing it to */
	bool raw;                     /* its code is still the compiler's
				       * -fpatchable-function-entry NOPs: made
				       * ready (mt_arch.prep) before its first
				       * change, else refused */
	int8_t ret_at;                /* where the hook's call returns to, from
				       * addr, where that is not addr + len (0):
				       * a site whose call is elsewhere, which it
				       * jumps to (x86's call in the NOPs before a
				       * function's symbol, -fpatchable-function-
				       * entry=N,M): mt_site_ret */
	uintptr_t own;                /* its function's own trampoline (MT_OWN's
				       * call), 0 until it has one */
};

/* The address a site's hook call returns to: what the hook is given,
 * by which the hot path and the drain find the site. */
static inline uintptr_t mt_site_ret(const struct mt_site *s)
{
	return s->addr + (s->ret_at ? (uintptr_t)(intptr_t)s->ret_at : s->len);
}
/* sites.c found sites with raw set since the last pass (patch.c). */
MT_HIDDEN extern bool mt_raw_pending;

/* The users of a function's sites (ops.c), a bit each: bit 0 the
 * tracer, bit id a hook; a word, so that every CPU loads and stores it
 * whole without the C library's help (no 64-bit atomics on 32-bit
 * CPUs): 63 hooks, or 31 where a word has 32 bits. */
typedef unsigned long mt_users;
#define MT_OPS_MAX ((int)(8 * sizeof(mt_users)))
#define MT_USER(id) ((mt_users)1 << (id))

struct mt_proto;
struct mt_func {
	const char *name;
	const char *const *alias;     /* its versioned names (struct mt_sym) */
	uintptr_t addr;
	uintptr_t size;               /* its symbol's (0: not known) */
	uint16_t obj;
	mt_users hooks;               /* its users: bit id a hook's (ops.c), bit 0
				       * the tracer's (MT_TRACED: sites.c's rules) */
	uintptr_t redirect;           /* its calls go there instead (ops.c), or 0 */
	bool notrace;
	bool unfit;                   /* a site of it where no event can hold the
				       * address (mt_ev_holds): never traced */
	const struct mt_proto *proto; /* its arguments are recorded so (args.c) */
};

/* The tracer is user 0 of the hooks layer (trace.c): a function it
 * traces has bit 0 of its users. */
#define MT_TRACER_ID 0
#define MT_TRACED ((mt_users)1 << MT_TRACER_ID)
static inline bool mt_traced(const struct mt_func *f)
{
	return (f->hooks & MT_TRACED) != 0;
}
static inline void mt_set_traced(struct mt_func *f, bool on)
{
	f->hooks = on ? f->hooks | MT_TRACED : f->hooks & ~MT_TRACED;
}

/* Does any user want the function's sites to call the hook: the
 * tracer, a hook (ops.c), a redirect? */
static inline bool mt_func_on(const struct mt_func *f)
{
	return f->hooks || f->redirect;
}

/* A map for the hot path, from the address after a site (what the hook
 * is given) to a value: open addressing, replaced whole and never freed
 * (an entry may be reading an old one). */
struct mt_retmap {
	uint64_t mask;
	struct {
		uintptr_t ret;
		const void *v;
	} e[];
};
/* The index of ret in m, or of the empty entry where it would go. */
static inline uint64_t mt_retmap_at(const struct mt_retmap *m, uintptr_t ret)
{
	uint64_t i = ((uint64_t)ret * UINT64_C(0x9e3779b97f4a7c15) >> 40) & m->mask;
	while (m->e[i].ret && m->e[i].ret != ret)
		i = (i + 1) & m->mask;
	return i;
}
static inline const void *mt_retmap_find(const struct mt_retmap *m, uintptr_t ret)
{
	return m ? m->e[mt_retmap_at(m, ret)].v : NULL;
}
/* The map of the live sites for which value() is not NULL, or NULL if
 * there is none (or no memory: said); lock held. */
MT_HIDDEN struct mt_retmap *mt_retmap_of(const void *(*value)(const struct mt_site *));
/* The sites whose frames function_graph must not hijack (MT_HAVE_NOHOOK). */
MT_HIDDEN extern _Atomic(struct mt_retmap *) mt_nohook;
#ifdef MT_SLOT_FRAME
/* The sites whose prologues were read, to their records (arm). */
MT_HIDDEN extern _Atomic(struct mt_retmap *) mt_frames;
#endif

/* The sites as the trap handler sees them: sorted by address, replaced
 * whole when objects come and go.  Read without a lock by trap handlers
 * alone (and, where MT_SLOT_FRAME, by the hot path through mt_frames),
 * by everything else with the registry lock held: a view replaced is
 * freed once no trap handler is in one (mt_view_readers), or at a later
 * refresh; where MT_SLOT_FRAME, never. */
struct mt_view {
	struct mt_site *sites;
	size_t n;
	struct mt_view *prev;         /* views replaced, not yet freed */
};
MT_HIDDEN extern _Atomic(struct mt_view *) mt_view;
MT_HIDDEN extern atomic_ulong mt_view_readers;

/* The code of the objects that have a table (their executable
 * segments), for the hot path: a call of the hook from anywhere else
 * comes from a site no table records (code built with -pg but not
 * recorded), which nothing can switch off or name.  Such a call is no
 * event and takes no room in a buffer: it is only counted (in its
 * thread's buffer, or in mt_untabled_calls where the thread has none).
 * Replaced whole when objects come or go, never freed. */
struct mt_spans {
	size_t n;
	struct {
		uintptr_t lo, hi;
	} r[];
};
MT_HIDDEN extern _Atomic(struct mt_spans *) mt_tabled;
MT_HIDDEN extern _Atomic unsigned long mt_untabled_calls;

/* The library's locks, and the one order in which a thread takes them
 * (any of them alone, or several in this order, never back):
 *
 *   mt_reg.pass   a pass (mt_apply) and a change of the objects
 *                 (mt_sites_refresh), with mt_reg.lock inside: control.c's
 *                 filters, function events, start-up, dlopen() and
 *                 dlclose(), and fork() (its atfork handlers).  dlclose()
 *                 holds it across the C library's dlclose, whose
 *                 destructors run and which unmaps the objects, and its
 *                 refresh after: no pass writes into an object being
 *                 unmapped, and the objects unmapped leave the registry
 *                 before any pass sees their addresses again.  Recursive:
 *                 a destructor may call the API.  A constructor's or
 *                 destructor's call, which holds the dynamic linker's
 *                 lock, goes on without it while its holder is a
 *                 dlclose() that waits for that lock, the objects read
 *                 again first (control.c, pass_lock).
 *   file_lock     the output file (control.c)
 *   drain_lock    the threads' buffers, every drain (output.c,
 *                 mt_output_lock)
 *   mt_reg.lock   the registry below, every patch; a drain takes it to
 *                 name its events
 *
 * No lock but mt_reg.pass is held while code of the program's runs (a
 * library's constructors and destructors in dlopen() and dlclose()),
 * which may call the C API and so take any of the others: so no thread
 * that holds file_lock, drain_lock or mt_reg.lock ever waits for
 * mt_reg.pass. */
struct mt_registry {
	pthread_mutex_t pass;         /* passes and refreshes (above) */
	pthread_mutex_t lock;         /* everything below, and every patch */
	struct mt_object **objs;
	size_t nobjs;
	struct mt_func *funcs;
	size_t nfuncs;
	size_t bad_sites;             /* refused at start-up */
};
MT_HIDDEN extern struct mt_registry mt_reg;

/* Find the new objects and their sites (pass and lock held), the
 * filters given so far replayed on their functions (not yet in the
 * code: mt_apply); *first: the first new function's index. */
MT_HIDDEN int mt_sites_refresh(size_t *first);
MT_HIDDEN const struct mt_site *mt_site_at(uintptr_t addr);
/* A site of function f (the first), or NULL. */
MT_HIDDEN const struct mt_site *mt_func_site(const struct mt_func *f);
/* The site a hook call returned to (the address after the call). */
MT_HIDDEN const struct mt_site *mt_site_before(uintptr_t ret);
/* Every glob of a filter, checked first (none if one is bad: -1,
 * EINVAL), then passed to fn with its :mod: glob or NULL; fn's first
 * failure (not 0) ends the walk and is returned.  The glob and mod
 * passed are fn's for the call only. */
MT_HIDDEN long mt_filter_each(const char *filter, long (*fn)(const char *glob, const char *mod, void *arg),
			      void *arg);
/* Calls fn with each live function that a glob (and a :mod: glob or
 * NULL) names, from index from on (0: through the name index); lock
 * held. */
MT_HIDDEN void mt_glob_funcs(const char *glob, const char *mod, size_t from, void (*fn)(uint32_t, void *),
			     void *arg);
/* Function i's sites are looked at by the next pass. */
MT_HIDDEN void mt_func_dirty(uint32_t i);
/* Apply a filter: enable (1), disable (0) or notrace (2); lock held.
 * Returns the functions changed, -1 for a bad filter. */
MT_HIDDEN long mt_filter(const char *filter, int what);
/* The same for one glob as it is (no splitting at spaces or commas: a
 * demangled C++ name has both) and a :mod: glob or NULL. */
/* A function's name as a glob that names it alone, as a filter reads
 * it (sites.c: the characters of wildcards, and the separators outside
 * brackets, escaped), into out (cap bytes, cut to fit); its length. */
MT_HIDDEN size_t mt_glob_quote(const char *name, char *out, size_t cap);
MT_HIDDEN long mt_filter_glob(const char *glob, const char *mod, int what);
/* Does a glob (and a :mod: glob, or NULL) name the function? */
MT_HIDDEN bool mt_func_matches(const char *glob, const char *mod, const struct mt_func *f);
/* The sites whose function's flag changed since the last call (all of
 * them after objects came or went), each passed to fn. */
MT_HIDDEN void mt_sites_all_dirty(void);         /* the next pass looks at every site */
MT_HIDDEN void mt_each_changed_site(void (*fn)(struct mt_site *, void *), void *arg);
/* A symbol's name as shown: demangled where the program has a C++
 * runtime (MCOUNT_TRACE_DEMANGLE=0: never); registry lock held. */
MT_HIDDEN const char *mt_shown(const char *raw);
/* Name of the function at addr, for output; where no symbol holds it,
 * FILE+0xADDR (the object's file name, the address in its file) or, in
 * no object, 0xADDR, written in buf (MT_ADDR_NAME bytes hold any). */
#define MT_ADDR_NAME 320
MT_HIDDEN const char *mt_name_of(uintptr_t addr, char *buf, size_t len);

/* ---- hooks (ops.c): the users of each function's sites ----
 *
 * A function's sites serve the users whose filters select it
 * (mt_func.hooks, a bit each): the hooks of mcount-hooks.h (ids 1 to
 * MT_OPS_MAX - 1) and the tracer (id 0, trace.c: the function and
 * function_graph tracers and the function events, registered as one
 * more user, its functions chosen by the tracer's filters, sites.c).
 * A site calls the hook while any of them wants it (mt_func_on).  The
 * hot path learns a call's users from mt_hooktab, once a hook or a
 * redirect needs it (mt_ops_on; before, every call is the tracer's):
 * the address after the site gives its function's mask, published by
 * the pass (mt_ops_publish) before the site's code changes, so that a
 * call still under way when a user leaves serves no one it should not. */
#include "mcount-hooks.h"
/* A registered user as the hot path reads it; gen: its registration's
 * number (an exit runs only for a registration as old as its entry). */
struct mt_op {
	mcount_hook_fn entry, exit;
	void *data;
	unsigned long gen;
	unsigned flags;               /* mcount_hook_create's */
	unsigned iflags;              /* MT_OP_* */
	char *filter, *notrace;       /* its functions (hooks.c's, read by ops.c
				       * under the registry's lock) */
	uint32_t *sel;                /* those functions' indices, sorted (ops.c's) */
	size_t nsel;
};
/* The library's own user (the tracer, id 0): its callbacks are given a
 * struct mt_call (the site of each call, the time read once), and named
 * no function, so that a call needs no look-up while it is the only
 * user; its exit callback runs for every frame whose return it took,
 * nested or left (mt_call.nested, unwound), where it counts what it
 * could not record.  Never freed, never through an own trampoline
 * (hook-x86_64.S tests bit 0). */
#define MT_OP_SITE 1u
MT_HIDDEN extern _Atomic(struct mt_op *) mt_ops[MT_OPS_MAX];
MT_HIDDEN extern _Atomic unsigned long mt_ops_gen;
MT_HIDDEN extern atomic_bool mt_ops_on;
/* The ids of the registered hooks that have an exit callback. */
MT_HIDDEN extern _Atomic mt_users mt_ops_exits;
/* The ids of the registered hooks whose callbacks touch no
 * floating-point or vector register (MCOUNT_HOOK_GENERAL_REGS): a call
 * whose users are all among them skips mt_fp_save.  (A bit seen stale
 * is safe either way: a bit not yet set costs a save; one cleared by
 * mt_ops_remove stays clear until the id is given again, after a grace
 * period, as mt_ops_exits.) */
MT_HIDDEN extern _Atomic mt_users mt_ops_genregs;
/* Its complement among the registered hooks, for hook-x86_64.S's own
 * trampoline (one test): set before any function's users have the id,
 * cleared after mt_ops no longer has its op.  Read after the users, on
 * x86 (whose loads are not reordered with loads, nor stores with
 * stores) a bit seen clear is one not yet set (no user has the id) or
 * one cleared (mt_ops then has no op for it: no callback is called). */
MT_HIDDEN extern _Atomic mt_users mt_ops_vecsave;
struct mt_fhook {
	_Atomic mt_users mask;        /* its users: bit 0 the tracer, bit id a hook */
	uintptr_t addr;               /* the function's address (a callback's ip) */
	_Atomic uintptr_t redirect;   /* where its calls go instead, or 0 */
};
struct mt_hooktab {
	struct mt_retmap *map;        /* the address after a site -> &f[its function] */
	size_t n;
	struct mt_fhook f[];
};
MT_HIDDEN extern _Atomic(struct mt_hooktab *) mt_hooktab;
/* What a callback is given (mcount-hooks.h): the registers the hook
 * kept, where the stack's arguments begin (NULL: not known), and at an
 * exit the return value.  And for the profiler (profile.c), which must
 * pair each exit with its entry where some entries get none: the call's
 * frame (its key, at the entry and at the exit), and its place on the
 * thread's shadow stack: at an exit its entry's index; at an entry that
 * index where its return is hooked, else (noexit: no exit will come)
 * the entries then in use.  An entry at index i means that every entry
 * at i or above that had no exit never will. */
struct mcount_regs {
	const uintptr_t *regs;
	const uintptr_t *args;
	uintptr_t ret;
	bool exit;
	bool noexit;
	bool own;                     /* regs not written: MT_OWN_SLOT words
				       * below args (hook-x86_64.S) */
	uint32_t depth;
	uintptr_t frame;
};
/* What the library's own user (MT_OP_SITE) is given: the callback's
 * struct mcount_regs, and the call's site (the address after it), its
 * time and CPU (read once: the frame's shadow entry has the same);
 * at an entry the users that want its exit (wants: the hot path's view,
 * the frame's return taken or not, r.noexit), whether the shadow stack
 * was too full to take it (noshadow), and the users that want no exit
 * after all (drop: set by the callbacks); at an exit whether the hook
 * was entered already (a signal handler's function returning inside
 * it), and whether the frame was left without returning (unwound). */
struct mt_call {
	struct mcount_regs r;
	uintptr_t site;
	uint64_t ts;
	unsigned cpu;
	bool noshadow, nested, unwound;
	mt_users wants, drop;
};
/* Registry lock held for all of these. */
/* Function i's users as the hot path will see them (the pass, before
 * it changes i's sites). */
MT_HIDDEN void mt_ops_publish(uint32_t i);
/* Is the function the hooks' alone (not the tracer's), none of them
 * with an exit callback, not redirected: may its sites call its own
 * trampoline (MT_OWN)? */
MT_HIDDEN bool mt_ops_own(const struct mt_func *f);
/* A hook's id taken and its filter applied (the code: mt_apply); -1
 * with errno (ENOSPC, ENOMEM, EINVAL).  The library's own user
 * (MT_OP_SITE) takes id 0, its functions chosen elsewhere. */
MT_HIDDEN int mt_ops_add(struct mt_op *op);
/* Whether user id's exit callback is wanted from now on (the tracer's
 * style: its entries' returns taken or not). */
MT_HIDDEN void mt_ops_exits_set(int id, bool on);
/* Is a filter good (0), or not (-1, EINVAL)? */
MT_HIDDEN int mt_ops_check(const char *filter);
/* Its filter and notrace changed. */
MT_HIDDEN int mt_ops_select(int id);
/* It selects nothing any more (the code: mt_apply, then the grace
 * period before op may go: mt_grace), and its id is free once the
 * caller says the grace period has ended (mt_ops_release, no lock). */
MT_HIDDEN void mt_ops_remove(int id);
MT_HIDDEN void mt_ops_release(int id);
/* After the pass that followed the last removal: the hot path stops
 * looking sites up. */
MT_HIDDEN void mt_ops_idle(void);
/* After objects came (their functions from first on) or went: the
 * hooks' filters replayed on the new functions, the hot path's table
 * made anew. */
MT_HIDDEN int mt_ops_refresh(size_t first);
/* Calls of the one live function a glob names (FUNCTION or
 * FUNCTION:mod:MODULE) go to `to` instead, or (to 0) no longer.  -1
 * with errno: ENOENT (no such function), EINVAL (several, or `to` in no
 * object's code, or none set), EBUSY (one set already), ENOTSUP (its
 * site is not at its entry: MT_HAVE_REDIRECT). */
MT_HIDDEN int mt_ops_redirect(const char *function, uintptr_t to);
/* Tables the hot path may still read, handed over (with the lock) to
 * be freed after the next grace period; NULL-terminated list. */
MT_HIDDEN void **mt_ops_retired(void);
/* Such a list given back, to be taken again later. */
MT_HIDDEN void mt_ops_unretire(void **r);

/* ---- patching (patch.c) ---- */

MT_HIDDEN int mt_patch_init(void);
MT_HIDDEN void mt_patch_after_fork(void);
/* Bring every live site to its function's wanted state, with the
 * breakpoint protocol; pass and lock held.  Returns 0 or -1 with
 * errno.  A site's bytes are read only as they are written, through the
 * kernel (a page the program made unreadable is an error, never a
 * fault). */
MT_HIDDEN int mt_apply(void);
/* Loaded late (dlopen()ed after start-up: mcount-trace attach), so in
 * no object's scope: the objects' hook GOT slots hold the C library's
 * hooks (set by control.c's start-up). */
MT_HIDDEN extern bool mt_late;
/* Each object's hook GOT slots given our hook of the same name, where
 * they hold another (the C library's), but in an object that defines
 * its own; registry lock held.  0, or -1 (errno) when one could not be
 * written. */
MT_HIDDEN int mt_hook_slots_ours(void);
/* mcount-trace attach and detach (control.c): where the library is,
 * which mcount-attach reads in the process's memory, and the start-up
 * it calls in a thread of the process to start a detached library
 * again (a second dlopen runs no constructor).  Exported: the helper
 * finds both in the library's dynamic symbol table. */
enum { MT_ATTACH_STARTING, MT_ATTACH_RUNNING, MT_ATTACH_DETACHING, MT_ATTACH_DETACHED };
extern _Atomic int mt_attach_state;
/* 0: started again; 1: it was running (nothing done); -1: detaching. */
int mt_attach_start(void);
/* After mt_apply failed with EFAULT: which site it could not read (its
 * page made inaccessible by the program), as a message; the sites it
 * could read were changed. */
MT_HIDDEN const char *mt_apply_why(void);
MT_HIDDEN void mt_claim_signals(void);
/* The library's control thread (control.c), which runs no site: the
 * pass need not ask whether it blocks SIGTRAP (0: none yet). */
MT_HIDDEN extern _Atomic long mt_library_tid;
/* A trampoline: the address of code[0..len) in a page mapped within
 * reach bytes of near, both ways; a page made before for the same code,
 * or one mapped now in a free place (looked for below near first, in
 * steps of 1 MB: a non-PIE program's heap grows above its text), only
 * readable and executable (its code written through /proc/self/mem), and
 * never unmapped (a thread may be in it).  0 if there is no room (after
 * one failed search, always).  Registry lock held. */
MT_HIDDEN uintptr_t mt_tramp_near(uintptr_t near, uintptr_t reach, const void *code, size_t len);
/* The own trampolines of objects unloaded, unmapped: their sites are
 * gone with their code (a thread still in a stub was running the
 * object's code, which the dlclose took from it anyway).  Registry
 * lock held, after a refresh. */
MT_HIDDEN void mt_own_unmap_dead(void);
/* Why a NOP at a table entry is not taken as GCC's -mnop-mcount left it,
 * when the object has no symbol for its function (stripped): where the
 * function starts cannot be told. */
#define MT_NOP_UNPLACED "a NOP in no function of the symbol table (stripped?): not taken for -mnop-mcount's"
/* The code that runs while pages are fenced (patch.c): in a section of
 * its own, whose pages no site may share. */
#define MT_FENCE_TEXT __attribute__((section("mt_fence_text"), noinline))
MT_HIDDEN int mt_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

/* ---- events (buffer.c) ---- */

/* 24 bytes an event.  ip holds the address after the hook call (the
 * site: the function), the CPU at bits 48-59 and the type at bits 62-63:
 *   entry (function tracer)   parent = the caller's return address
 *   entry | MT_EV_HOOKED      the same, and the return address was
 *                             hijacked (function_graph): an exit follows
 *   MT_EV_EXIT                the function returned; parent = the ts of
 *                             its entry (the duration, and the pairing)
 *   MT_EV_EXIT | MT_EV_UNWOUND  the frame was left without returning
 *                             (longjmp, exception, thread exit): ts is
 *                             when that was found out, not an exit time
 * An entry recorded under function_graph has MT_EV_GRAPH (bit 60): a
 * drain writes each entry in the style of the tracer it was recorded
 * under, whatever the tracer is by then (a switch finds the ring full of
 * the other one's entries). */
struct mt_event {
	uint64_t ts;                  /* clock ticks */
	uint64_t ip;                  /* return address of the hook call | cpu << 48 | type */
	uint64_t parent;              /* the caller's return address, or the entry's ts */
};
#define MT_CPU_SHIFT 48
#define MT_IP_MASK ((UINT64_C(1) << MT_CPU_SHIFT) - 1)
#define MT_CPU_MASK UINT64_C(0xfff)
#define MT_EV_EXIT (UINT64_C(1) << 63)
#define MT_EV_UNWOUND (UINT64_C(1) << 62)   /* with MT_EV_EXIT */
#define MT_EV_HOOKED (UINT64_C(1) << 62)    /* without MT_EV_EXIT */
#define MT_EV_ARGS (UINT64_C(1) << 61)      /* an entry followed by its arguments,
					     * an exit by its return value */
#define MT_EV_GRAPH (UINT64_C(1) << 60)     /* an entry, under function_graph */
/* An event's address: its 48 bits.  User addresses are below 2^48 on
 * every architecture but sparc64, whose are below the VA hole or above
 * it, just under 2^64 (shared libraries at 0xfffff801...): there the
 * address is cut to 48 bits as it is stored, or its high bits would read
 * as the CPU and the type, and bit 47 is extended over the rest as it is
 * read. */
static inline uint64_t mt_ev_addr(uintptr_t ip)
{
#if defined(__sparc__)
	return (uint64_t)ip & MT_IP_MASK;
#else
	return (uint64_t)ip;
#endif
}
static inline uintptr_t mt_ev_ip(uint64_t ip)
{
#if defined(__sparc__)
	return (uintptr_t)((int64_t)(ip << (64 - MT_CPU_SHIFT)) >> (64 - MT_CPU_SHIFT));
#else
	return (uintptr_t)(ip & MT_IP_MASK);
#endif
}
/* Whether an event holds the address a.  Not where the kernel gives
 * user space more than 48 bits (x86_64's 5-level page tables, aarch64's
 * 52-bit VA, ppc64, riscv64's sv57) and code was mapped above 2^48, as a
 * shared library linked at such an address is: its sites stay off. */
static inline bool mt_ev_holds(uintptr_t a)
{
	return mt_ev_ip(mt_ev_addr(a)) == a;
}

/* ---- function events: arguments (args.c; recorded in buffer.c) ----
 *
 * An entry may carry the function's arguments, as the kernel's function
 * events do: either N raw words for every traced function
 * (MCOUNT_TRACE_ARGS), or typed ones for the functions a prototype names
 * ("name(int fd, char *path)").  They follow their entry in the ring as
 * payload slots (struct mt_event read as three words each):
 *   word 0   the prototype (0: raw words)
 *   word 1   the number of argument words | the payload's slots << 16
 *   then     the argument words, in the ABI's order
 *   then     for each string argument, its length (| MT_STR_CUT: cut at
 *            MT_STR_MAX bytes or at unreadable memory; MT_STR_FAULT:
 *            none of it could be read) and its bytes, 8 to a word.
 * Where the hook finds the arguments where the ABI put them: on x86_64
 * both hooks run before the function's body moves them (the registers,
 * then the caller's stack above the return address); on 32-bit Arm
 * __gnu_mcount_nc keeps r0-r3 by its contract, so the body has not
 * moved them, and the stack's words are above the slot the prologue's
 * pushes give (arch-arm.c: where the decoder reads the prologue;
 * elsewhere only the arguments in registers are recorded); on mips64el
 * GCC's call to _mcount is text it does not see as a call, so a0-a7 are
 * the caller's and the stack's words are above the slot of ra where the
 * decoder read the prologue (arch-mips.c), as on arm (o32: a0-a3, and
 * the caller's stack from 16 bytes above its sp, the home area of
 * a0-a3 below that: MT_STACK_WORD0); on i386 every
 * argument is on the caller's stack above the return address (none
 * where main realigned its stack: its 4(%ebp) is a copy); on ppc32 the
 * site comes before the prologue, so r3-r10 are the caller's, and the
 * stack's words are just above the slot (the caller's sp + 8); on s390x both
 * hooks run before the body, r2-r6 and the caller's parameter area
 * (MT_STACK_WORD0); on sparc64 the hook runs after `save`, before the
 * body: %i0-%i5 of the function's window, and the caller's argument
 * area from 176 bytes above its sp (MT_FRAME_AT_KEY: the key).  An argument
 * of 64 bits takes two words of a 32-bit ABI, from an even word where
 * MT_ARG_PAIR_EVEN (the AAPCS, o32), and one payload word.
 * GCC's aarch64, riscv64 and ppc64 (both ABIs) -pg call _mcount as an ordinary
 * function, after the body has moved them (MT_ARGS_LOCATED): each
 * argument is one word, read where the function's DWARF says it is at
 * the site (struct mt_loc, dwarf.c; the frame base from cfi.c), from the
 * registers the hook keeps, the callee-saved ones among them; only
 * prototyped functions with debug information have arguments there. */
#if defined(__x86_64__)
#define MT_HAVE_ARGS 1
#define MT_REG_ARGS 6                 /* rdi, rsi, rdx, rcx, r8, r9 */
#elif defined(__i386__)
#define MT_HAVE_ARGS 1
#define MT_REG_ARGS 0                 /* all on the stack */
#define MT_RAW_WORDS 6
#elif defined(__arm__)
#define MT_HAVE_ARGS 1
#define MT_REG_ARGS 4                 /* r0-r3 */
#define MT_ARG_PAIR_EVEN 1
#elif defined(__mips__) && _MIPS_SIM == _ABI64
#define MT_HAVE_ARGS 1
#define MT_REG_ARGS 8                 /* a0-a7 */
#elif defined(__mips__) && _MIPS_SIM == _ABIO32
#define MT_HAVE_ARGS 1
#define MT_REG_ARGS 4                 /* a0-a3 */
#define MT_ARG_PAIR_EVEN 1
#define MT_STACK_WORD0 5              /* the caller's sp + 16; the slot is at its sp - 4 */
#elif defined(__powerpc__) && !defined(__powerpc64__)
#define MT_HAVE_ARGS 1
#define MT_REG_ARGS 8                 /* r3-r10: the site is before the prologue */
#define MT_ARG_PAIR_EVEN 1            /* a 64-bit one in r3:r4, r5:r6, ... */
#elif defined(__sparc__) && defined(__arch64__)
#define MT_HAVE_ARGS 1
#define MT_REG_ARGS 6                 /* %i0-%i5 of the function's window */
#define MT_STACK_WORD0 22             /* the caller's sp + 2047 + 176 (the key's frame) */
#elif defined(__s390x__)
#define MT_HAVE_ARGS 1
#define MT_REG_ARGS 5                 /* r2-r6 */
#define MT_STACK_WORD0 19             /* the caller's r15 + 160, from 8(%r15) */
#elif defined(__aarch64__) || (defined(__riscv) && __riscv_xlen == 64) || defined(__powerpc64__)
#define MT_HAVE_ARGS 1
#define MT_REG_ARGS 0
#define MT_ARGS_LOCATED 1
#else
#define MT_HAVE_ARGS 0
#define MT_REG_ARGS 0
#endif
#ifndef MT_ARGS_LOCATED
#define MT_ARGS_LOCATED 0
#endif
/* Raw words for every function (MCOUNT_TRACE_ARGS) at most: the
 * argument registers, or i386's first stack words. */
#ifndef MT_RAW_WORDS
#define MT_RAW_WORDS MT_REG_ARGS
#endif
/* The first stack argument's word, counted from the slot of the return
 * address (rt.h's slot: mt_entry's): just above it, but on s390x, whose
 * slot is 8 into the register save area, 160 bytes above the caller's
 * stack pointer, and on o32, whose callers keep the 16 bytes above
 * their sp for a0-a3, 16 bytes above that. */
#ifndef MT_STACK_WORD0
#define MT_STACK_WORD0 1
#endif
/* Word i of a call's arguments: a register the hook kept, or a word
 * of the caller's stack above the return address (slot). */
static inline uintptr_t mt_arg_word(const uintptr_t *regs, const uintptr_t *slot, unsigned i)
{
#if MT_REG_ARGS
	if (i < MT_REG_ARGS)
		return regs[i];
#else
	(void)regs;
#endif
	return slot[MT_STACK_WORD0 + i - MT_REG_ARGS];
}
#define MT_MAX_ARGS 12                /* beyond the registers: the stack */
#include "argfmt.h"              /* MT_STR_*, enum mt_arg_kind */

struct mt_arg {
	char name[32];
	uint8_t kind;                 /* enum mt_arg_kind */
	uint8_t bits;                 /* of the integer: 8, 16, 32, 64 */
	uint8_t word;                 /* its first word in the ABI's order */
};
/* Where an argument is when the hook runs (MT_ARGS_LOCATED: a hook
 * called after the body moved the arguments, aarch64), as the
 * function's DWARF says for the address of its site: a register the
 * hook keeps (its index in the block the hook passes, mt_arch.arg_reg),
 * memory at such a register (the stack pointer or the frame pointer) +
 * off, memory at the word there + off2 (ppc64le's back chain: the
 * caller's frame, checked to be above the stack pointer, index sp), a
 * constant (off), or nowhere (optimized out: shown so). */
enum mt_loc_how { MT_LOC_NONE, MT_LOC_REG, MT_LOC_MEM, MT_LOC_MEM2, MT_LOC_CONST };
struct mt_loc {
	uint8_t how;                  /* enum mt_loc_how */
	uint8_t reg, sp;
	int64_t off, off2;
};
/* Whether an argument takes two words (64 bits in a 32-bit ABI). */
static inline bool mt_arg_pair(const struct mt_arg *a)
{
	return UINTPTR_MAX == UINT32_MAX && a->bits == 64;
}
/* Prototypes are never freed: an event in a ring may point at one. */
struct mt_proto {
	char *text;                   /* as given */
	char *glob, *mod;             /* the functions it is for */
	bool dwarf;                   /* a bare glob: each function gets the
				       * prototype its DWARF gives (dwarf.c) */
	unsigned n, nstr;             /* arguments; of them strings */
	unsigned max_slots;           /* payload slots at most */
	struct mt_arg a[MT_MAX_ARGS];
	bool located;                 /* one function's, with where each
				       * argument is (MT_ARGS_LOCATED) */
	struct mt_loc loc[MT_MAX_ARGS];
};
/* Set each argument's word and p->max_slots from its arguments: the
 * payload (see above) of the argument words and of each string's length
 * and MT_STR_MAX bytes (args.c's prototypes and dwarf.c's). */
static inline void mt_proto_sized(struct mt_proto *p)
{
	/* the ABI's words: a 64-bit argument takes two of 32 bits */
	unsigned w = 0;
	for (unsigned i = 0; i < p->n; i++) {
		bool pair = mt_arg_pair(&p->a[i]);
#ifdef MT_ARG_PAIR_EVEN
		w += pair && (w & 1);
#endif
		p->a[i].word = (uint8_t)w;
		w += pair ? 2 : 1;
	}
	p->max_slots = (2 + p->n + p->nstr * (1 + MT_STR_MAX / 8) + 2) / 3;
}

/* The hot path's view: the address after each site of a function with
 * a prototype, hashed; replaced whole (never freed) on every change. */
MT_HIDDEN extern _Atomic(struct mt_retmap *) mt_argmap;
MT_HIDDEN extern atomic_int mt_args_raw;        /* raw words for every function */
MT_HIDDEN extern atomic_bool mt_args_on;        /* either of the two */
/* Add a prototype (and enable its functions), or with "!GLOB" drop the
 * prototypes of those functions; lock held.  Returns the functions
 * given or relieved of a prototype, or -1 with a message in err. */
MT_HIDDEN long mt_proto_apply(const char *spec, char *err, size_t errlen);
/* Raw words for every traced function: 0 (none) to MT_REG_ARGS. */
MT_HIDDEN int mt_args_set_raw(int n);
/* The prototypes' rules on functions [from, nfuncs), and the hot path's
 * map rebuilt (after objects came or went); lock held. */
MT_HIDDEN void mt_protos_refresh(size_t from);
MT_HIDDEN size_t mt_protos_count(void);
/* The arguments of an entry's payload p (words), as "(a=1, s=\"x\")"
 * (json: as a JSON value: an object of typed ones, an array of raw
 * ones), into out; returns its length (cut to fit cap). */
MT_HIDDEN size_t mt_args_format(char *out, size_t cap, const uint64_t *p, size_t nwords, bool json);

/* The prototype the DWARF of f's object gives f (made once, never
 * freed), or NULL (told: no debug information, or a parameter the hooks
 * cannot see); registry lock held.  dwarf.c. */
MT_HIDDEN const struct mt_proto *mt_dwarf_proto(const struct mt_func *f);
/* MT_ARGS_LOCATED: prototype r for function f, with where each of its
 * arguments is at f's site from f's DWARF (made once, never freed), or
 * NULL (told). */
MT_HIDDEN const struct mt_proto *mt_dwarf_locate(const struct mt_func *f, const struct mt_proto *r);
/* The rule of the canonical frame address at address pc (of the object's
 * link-time addresses) from its .eh_frame: the DWARF register and the
 * offset; false if none is found or it is not register + offset. */
MT_HIDDEN bool mt_cfa_at(struct mt_object *o, uint64_t pc, unsigned *reg, int64_t *off);
/* The start of the function that holds a site, for finding where its
 * instructions start (arch-*.c): its symbol's, or where none holds the
 * site (a stripped object), its frame description's (.eh_frame or
 * .debug_frame); 0 if neither is known, or the site is more than
 * MT_FUNC_REACH bytes into it, or the two are not in one range of the
 * object's code. */
#define MT_FUNC_REACH 4096
MT_HIDDEN uintptr_t mt_func_start(const struct mt_object *o, uintptr_t site);
/* Inflate the zlib stream in (inlen bytes, untrusted) into exactly
 * outlen bytes at out; false if it is not a valid one (RFC 1950, 1951)
 * or its data are not of that size (inflate.c). */
MT_HIDDEN bool mt_inflate(const unsigned char *in, size_t inlen, unsigned char *out, size_t outlen);

/* An object's separate debug file (debugfile.c), when the object's own
 * file has no DWARF: by build-id, else by .gnu_debuglink. */
struct mt_debug_file {
	const unsigned char *p;       /* mapped read-only, for good; NULL: none */
	size_t size;
	char *path;                   /* its path */
	char *looked;                 /* none found: the paths tried (", "-separated),
				       * NULL if there was nothing to look by */
};
MT_HIDDEN void mt_debug_file(const struct mt_object *o, struct mt_debug_file *df);

/* The tracers (the kernel's current_tracer), trace.c: the tracer's
 * user registered (mt_trace_init), and its style: function_graph takes
 * each traced function's return, function does not. */
enum { MT_TRACER_FUNCTION, MT_TRACER_GRAPH };
MT_HIDDEN extern atomic_int mt_tracer;
MT_HIDDEN void mt_trace_init(int style);
MT_HIDDEN void mt_trace_style(int style);
MT_HIDDEN void mt_trace_after_fork(void);

/* function_graph's filters (the kernel's set_graph_function,
 * max_graph_depth and tracing_thresh; gfilter.c sets them, trace.c
 * applies them): only the calls under a graph function (the map of
 * their sites; NULL: every call), at most mt_gf_depth deep below the
 * outermost traced frame (0: any), and with a threshold (in the
 * clock's ticks; 0: none) only the returns of calls that took at least
 * that long, their entries not written.  mt_gf_on: any of them set (the
 * hot path's one test).  Per thread, the state lives with the shadow
 * stack: the tracer's frames counted (gf_depth), whether one of them is
 * a graph function's (gf_in), each frame's MT_SH_* marks. */
MT_HIDDEN extern atomic_bool mt_gf_on;
MT_HIDDEN extern _Atomic(struct mt_retmap *) mt_gf_map;
MT_HIDDEN extern atomic_bool mt_gf_funcs;       /* graph functions given (map or none) */
MT_HIDDEN extern _Atomic unsigned mt_gf_depth;
/* (plain words: no 64-bit atomics on 32-bit CPUs; set by the control
 * thread, read racily by the hot path, which a change may meet torn once) */
MT_HIDDEN extern uint64_t mt_gf_thresh;
MT_HIDDEN extern uint64_t mt_gf_thresh_ns;
enum { MT_SH_COUNTED = 1, MT_SH_ROOT = 2, MT_SH_QUIET = 4 };
/* gfilter.c: the graph functions set from a filter's globs (replacing
 * those before; "" none), the map rebuilt; lock held.  The functions
 * the globs name, or -1 (EINVAL: a bad glob; ENOMEM). */
MT_HIDDEN long mt_gf_set_funcs(const char *filter);
/* Their globs as given, joined by spaces ("" none). */
MT_HIDDEN const char *mt_gf_funcs_text(void);
/* The map rebuilt after objects came or went; lock held. */
MT_HIDDEN void mt_gf_refresh(void);
/* The depth (0: any), the threshold in nanoseconds (0: none). */
MT_HIDDEN void mt_gf_set_depth(unsigned depth);
MT_HIDDEN void mt_gf_set_thresh(uint64_t ns);
/* A duration as mcount-trace reads it (DIGITS[.DIGITS] and ns, us,
 * ms or s; a bare number: microseconds, as uftrace -t and the
 * kernel's tracing_thresh take it) in nanoseconds; -1 if it is not one. */
MT_HIDDEN int64_t mt_parse_duration(const char *s);
/* Nanoseconds in the clock's ticks (output.c). */
MT_HIDDEN uint64_t mt_ns_to_ticks(uint64_t ns);

/* A hijacked return: where the function would have returned, the stack
 * slot that held that address (bit 0: given back to the frame by an
 * unwinder interposer, see mt_shadow_unhook; MT_SLOT_DEAD: a word no
 * longer the frame's, arm), the function's site and its entry's time;
 * where the key is not the slot (aarch64, arm), the key. */
#define MT_SHADOW 1024
struct mt_shadow {
	uintptr_t orig;
	uintptr_t slot;
	uintptr_t ip;
	uint64_t ts;
	mt_users users;               /* whose exits run (bit 0 the tracer's) */
	unsigned long gen;            /* mt_ops_gen at the entry */
#if !MT_KEY_IS_SLOT
	uintptr_t key;
#endif
	uint8_t marks;                /* the tracer's MT_SH_* (function_graph's filters) */
};

enum { MT_TBUF_FREE, MT_TBUF_OWNED };

/* A ring's head and tail: counts of the events ever put and taken, 64
 * bits wide; 32 on o32 and ppc32, which have no 64-bit atomic load or
 * store (GCC would call libatomic, which may lock): they wrap there, so
 * they are only ever compared by their difference, or for equality. */
#if (defined(__mips__) && _MIPS_SIM == _ABIO32) || (defined(__powerpc__) && !defined(__powerpc64__))
typedef uint32_t mt_seq;
#else
typedef uint64_t mt_seq;
#endif

struct mt_tbuf {
	_Atomic mt_seq head;          /* written by the thread */
	atomic_int state;             /* MT_TBUF_*: a free one is taken by a new thread */
	uint64_t lost;
	volatile int nest;            /* in the hook (a signal handler re-entered it) */
	uintptr_t nest_sp;            /* how high on the stack the hook was entered
				       * (buffer.c: nest_left) */
	int tid;
	uint64_t mask;
	struct mt_tbuf *next;
	char comm[16];
	uint32_t sdepth;              /* shadow stack: entries in use */
	uint64_t noshadow;            /* function_graph calls not recorded: shadow stack full */
	uint64_t unwound;             /* hijacked frames left without returning */
	uint64_t wait_failed;         /* MCOUNT_TRACE_FULL=wait: waits given up (lost) */
	uint64_t untabled;            /* calls from sites in no table (mt_tabled): no events */
	uint64_t recursion;           /* calls from a hook's callback: no callback, no event */
	_Atomic unsigned long held;   /* odd while it runs hooks' callbacks (mt_grace) */
	uint32_t gf_depth;            /* function_graph's filters: the tracer's frames */
	bool gf_in;                   /* counted below, and one a graph function's */
	char pad[64];
	_Atomic mt_seq tail;          /* written by the reader */
	uint64_t lost_seen;
	int rec_fd;                   /* reader, recording: the thread's stream */
	bool rec_open, rec_gone;      /* (open; closed for good: the thread is gone) */
	uint64_t rec_len;             /* events in the stream */
	char rec_name[24];            /* TID, or TID.N: ring-NAME, stream-NAME */
	uint32_t nopen;               /* reader: this thread's open entries (their ts) */
	int named_tid;                /* reader: the thread, and its name, the */
	char named[16];               /* output file's Chrome document has */
	uint64_t open[MT_SHADOW];
	struct mt_shadow shadow[MT_SHADOW];
	struct mt_event ev[];
};

MT_HIDDEN extern struct mt_tbuf *_Atomic mt_tbufs;
/* ---- a recording (record.c; doc/trace-format.md) ----
 * Its process directory (-1: none): each thread's buffer is then a
 * file there (ring-NAME), shared-mapped after a header of MT_REC_HEAD
 * bytes, so that what the thread put survives the process; the drain
 * copies it into stream-NAME. */
#define MT_REC_HEAD 4096
MT_HIDDEN extern int mt_rec_dir;
MT_HIDDEN int mt_record_open(const char *dir);
/* The rings' events into the streams (and new objects' functions, a
 * clock pair, first); the events written, -1 (errno) if a write failed. */
MT_HIDDEN long mt_record_drain(void);
MT_HIDDEN void mt_record_end(void);
/* The functions of objects come since, written (after a dlopen). */
MT_HIDDEN void mt_record_tables(void);
/* In a child after fork: a directory of its own, its buffers not the
 * parent's (before mt_buffers_after_fork). */
MT_HIDDEN void mt_record_after_fork(void);
/* The full ring's wait, in rounds of 50 us (MCOUNT_TRACE_FULL=wait). */
MT_HIDDEN extern unsigned mt_full_wait_rounds;
/* The calling thread's buffer (NULL: none yet, or gone), and whether
 * every hold of a hook's callbacks is fenced (no membarrier): buffer.c's,
 * read by hook-x86_64.S's fast path too. */
MT_HIDDEN extern __thread struct mt_tbuf *mt_self __attribute__((tls_model("initial-exec")));
MT_HIDDEN extern bool mt_fenced_holds;
MT_HIDDEN extern atomic_int mt_ready;
/* What the buffers of threads gone (and reaped: output.c) had counted. */
struct mt_gone {
	uint64_t lost, noshadow, unwound, wait_failed, untabled, recursion;
};
MT_HIDDEN extern struct mt_gone mt_gone;
MT_HIDDEN extern uint64_t mt_buffer_events;
/* Threads whose buffer could not be mapped (too large a
 * MCOUNT_TRACE_BUFFER for the memory there is): each gets a ring of
 * MT_SMALL_RING events instead, and what does not fit is lost, counted
 * as a full ring's is; and the events of threads that got not even
 * that.  Said.  Word-sized: the hot path calls no library function (no
 * 64-bit atomics on 32-bit CPUs). */
#define MT_SMALL_RING 64
MT_HIDDEN extern _Atomic unsigned long mt_nobuf_threads, mt_nobuf_lost;
MT_HIDDEN extern bool mt_use_tsc;
MT_HIDDEN extern bool mt_use_rdpid;
MT_HIDDEN extern bool mt_full_wait;            /* a full ring waits for the drain */
MT_HIDDEN uint64_t mt_clock_now(unsigned *cpu);
MT_HIDDEN void mt_clock_init(void);             /* output.c */
MT_HIDDEN double mt_ticks_to_seconds(uint64_t ts);
/* CLOCK_MONOTONIC in ns; a reading of the events' clock and of it
 * together (the best of a few tries); has the thread exited?  (output.c) */
MT_HIDDEN uint64_t mt_mono_ns(void);
MT_HIDDEN void mt_clock_pair(uint64_t *ticks, uint64_t *ns);
MT_HIDDEN bool mt_thread_gone(int tid);
MT_HIDDEN void mt_buffers_after_fork(void);
/* The hooks: ret is the address after the hook call, slot the stack
 * slot of the function's return address (aarch64, riscv64: may be
 * marked MT_SLOT_KEEP, see MT_SLOT_COPY), regs the argument registers as
 * the hook saved them, in the ABI's order (where MT_HAVE_ARGS), and on
 * riscv64 s0 at MT_REG_FP. */
MT_HIDDEN void mt_entry(uintptr_t ret, uintptr_t *slot, const uintptr_t *regs);
/* The return trampoline (hook-*.S) calls this with the key of the frame
 * that returned (x86_64, riscv64: the slot it returned through;
 * aarch64: x29; arm: sp - 4); it returns the original return address. */
MT_HIDDEN uintptr_t mt_exit(uintptr_t key, uintptr_t retval);
/* function_graph's returns carry the function's return value (the
 * kernel's funcgraph-retval): the integer return register the
 * trampoline passes (x86_64: %rax; i386: %eax; aarch64: x0; riscv64: a0;
 * ppc64le, ppc64, ppc32: r3), as one payload slot
 * after the exit event (MT_EV_EXIT | MT_EV_ARGS).  A function that
 * returns nothing, or a floating-point value, leaves whatever the
 * register held. */
#define MT_HAVE_RETVAL MT_HAVE_GRAPH
MT_HIDDEN extern atomic_bool mt_retval;
MT_HIDDEN void mt_return_trampoline(void);
/* Where a function's own trampoline goes (hook-ARCH.S, mt_arch.own_fits):
 * it passes mt_own_entry the function's index, the address after the
 * site, and the registers as the hook passes mt_entry. */
MT_HIDDEN void mt_own_tramp(void);
/* The function's return address, in words above those registers
 * (x86_64: the eight mt_own_tramp saves, then the site's return address). */
#define MT_OWN_SLOT 9
MT_HIDDEN void mt_own_entry(uint32_t func, uintptr_t ret, uintptr_t *regs);
/* For the unwinders (control.c): the calling thread's hijacked frames
 * whose slot is below sp are gone (marked unwound); those at or above sp
 * get their return address back (unhook), or the trampoline again if it
 * is still theirs (rehook).  all: every frame is gone (thread exit).  A
 * frame whose slot is dead (MT_SLOT_DEAD: its key says whether it is
 * live) is never written: it keeps its entry, and returns through the
 * trampoline, which has its return address. */
MT_HIDDEN void mt_shadow_unhook(uintptr_t sp, bool all);
MT_HIDDEN void mt_shadow_rehook(uintptr_t sp);
/* Returns once no thread is still running a hook's callback it was
 * running, or had looked its hooks up for, at the call (the hooks'
 * grace period: internals.md). */
MT_HIDDEN void mt_grace(void);
/* The same without waiting (for tables a refresh replaced): room for
 * mt_grace_room() threads in w, mt_grace_begin (0, or -1 with nothing
 * begun: more threads meanwhile), then mt_grace_over until it says
 * true. */
struct mt_grace_poll {
	size_t n, cap;
	struct {
		struct mt_tbuf *b;
		unsigned long held;
	} *w;
};
MT_HIDDEN size_t mt_grace_room(void);
MT_HIDDEN int mt_grace_begin(struct mt_grace_poll *g);
/* The control thread's step (hooks.c): tables replaced freed after a
 * grace period it does not wait for. */
MT_HIDDEN void mt_hooks_reclaim(void);
MT_HIDDEN bool mt_grace_over(struct mt_grace_poll *g);
/* Before the first hook is registered: how mt_grace will reach every
 * thread (membarrier, or a fence at each hold where there is none). */
MT_HIDDEN void mt_grace_ready(void);
/* Is the calling thread in a hook's callback? */
MT_HIDDEN bool mt_in_callback(void);
/* Where hooks can run: the hook keeps every register a callback may
 * change that the function still needs (the hooks the general ones,
 * and on arm, mips, ppc32, s390x and sparc64 the floating-point ones
 * that carry arguments and values; buffer.c the other floating-point
 * and vector ones around callbacks, cpu.h: mt_fp_save), callbacks run
 * with the ABI's stack alignment (x86: MT_REALIGN), and the tests have
 * run them: t/106 on x86_64, its hooks.c in the booted guests of
 * SysTrace's hooks set (i386, there and on an x86_64 host; aarch64;
 * riscv64; ppc64le, ppc64, ppc32; s390x; arm; mips64el, mipsel, mips;
 * sparc64), its clobber mode callbacks that change every register a
 * callee may. */
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || (defined(__riscv) && __riscv_xlen == 64) || \
	defined(__powerpc__) || defined(__s390x__) || defined(__arm__) || \
	(defined(__mips__) && (_MIPS_SIM == _ABI64 || _MIPS_SIM == _ABIO32)) || \
	(defined(__sparc__) && defined(__arch64__))
#define MT_HAVE_HOOKS 1
#else
#define MT_HAVE_HOOKS 0
#endif
/* A redirect: at a site at its function's entry (mt_arch.at_entry) the
 * hook returns to the replacement instead of the function's body, the
 * stack and the argument registers as the caller left them (x86: the
 * hook's own return address is the word below the slot, which it
 * returns through after it restored every register).  aarch64's and
 * riscv64's _mcount run after the prologue, and aarch64's
 * -fpatchable-function-entry hook, which runs before it, has none yet:
 * ENOTSUP. */
#if defined(__x86_64__) || defined(__i386__)
#define MT_HAVE_REDIRECT MT_HAVE_HOOKS
#else
#define MT_HAVE_REDIRECT 0
#endif

/* ---- changes of the code (change.c) ---- */

/* Before a change of what the code does (a filter, prototypes, a
 * hook) and its pass: the pass lock and the registry's, in their order
 * (struct mt_registry), or the registry's alone where the pass lock's
 * holder waits for the dynamic linker this thread holds; returns
 * which, for mt_change_end.  errno is kept across the end. */
MT_HIDDEN bool mt_change_begin(void);
MT_HIDDEN void mt_change_end(bool pass);
/* Their parts: the pass lock (false: gone on without it), and, without
 * it, the registry read again (registry lock held). */
MT_HIDDEN bool mt_pass_lock(void);
MT_HIDDEN void mt_pass_unlock(bool held);
MT_HIDDEN void mt_refresh_bypass(bool held);
/* The objects loaded since the last time, their sites found and the
 * code made to follow (both locks held); -1 with errno. */
MT_HIDDEN int mt_refresh(void);
/* The C library's dlopen runs between these; its dlclose between
 * mt_close_begin, which returns whether it took the pass lock, and
 * mt_close_end, which refreshes the registry. */
MT_HIDDEN void mt_dl_enter(void);
/* Is the calling thread inside them (a constructor or destructor)? */
MT_HIDDEN bool mt_in_dl(void);
MT_HIDDEN void mt_dl_leave(void);
MT_HIDDEN bool mt_close_begin(void);
MT_HIDDEN void mt_close_end(bool pass);
MT_HIDDEN void mt_change_after_fork(void);

/* ---- the function profiler (profile.c: a client of the hooks) ---- */

/* Start it on the functions a filter selects ("": every one), its
 * counts zeroed, or give it a new filter; stop it (its counts stay).
 * 0, or -1 with errno (mcount-hooks.h's; EINVAL: not started). */
MT_HIDDEN int mt_prof_start(const char *filter);
MT_HIDDEN int mt_prof_stop(void);
/* Has it run in this process (is there a table)?  Does it run now? */
MT_HIDDEN bool mt_prof_ran(void);
MT_HIDDEN bool mt_prof_on(void);
/* Its sort keys, "hits", "time", "avg", "s2", "self": 0-4, -1 for another. */
MT_HIDDEN int mt_prof_sort_of(const char *key);
/* Its tables' columns: the kernel's trace_stat/function (and Self), or
 * mcount-read report's (calls, total, self, min, avg, p50, p90, p99,
 * max); "kernel", "report": one of them, -1 for another word. */
enum { MT_PROF_KERNEL, MT_PROF_REPORT };
MT_HIDDEN int mt_prof_columns_of(const char *word);
/* Its table so far, sorted by a key, with those columns, a string to
 * free (NULL: no memory). */
MT_HIDDEN char *mt_prof_table(int key, int columns);

/* ---- output (output.c) ---- */

enum mt_fmt { MT_FMT_TEXT, MT_FMT_JSON, MT_FMT_CHROME };
/* What a document written drain after drain (the output file) or at
 * once (a show, mcount_trace_write) has so far: each output its own. */
struct mt_doc_state {
	int style;                    /* the tracer whose style it is in (-1: none yet) */
	bool first;                   /* Chrome: no event in it yet (the next has no comma) */
	int last_tid;                 /* function_graph text: the thread of the last line
				       * (0: none since the last header) */
	char last_task[112];          /* and its field, as the line has it */
};
#define MT_DOC_STATE_INIT { -1, true, 0, "" }
/* Drain every buffer and write the events in time order, each in the
 * style of the tracer it was recorded under (function: entries only;
 * function_graph: calls and returns): first every thread's events up to
 * its first entry of the other style, then the rest, and so on.
 * st->style is the style of the document so far, and is left at its
 * last; in the text format a change of style is marked by the new
 * tracer's header, and under function_graph a change of thread by the
 * kernel's marker (st->last_tid).  Returns the number written, -1 on a
 * write error.  file: the document is the output file, written drain
 * after drain (Chrome: a thread's name once, and again when it
 * changes).  wait_ms >= 0: fd is a client's socket, and each 64 KiB
 * written to it must be taken within that time (else -1, ETIMEDOUT: the
 * rest is not written).  No lock is held while it writes. */
MT_HIDDEN long mt_drain(int fd, enum mt_fmt fmt, struct mt_doc_state *st, bool file, int wait_ms);
/* The head of a document (text: the tracer's header; Chrome: the
 * opening of the array) and the Chrome document's end. */
MT_HIDDEN void mt_write_header(int fd, enum mt_fmt fmt, int tracer);
MT_HIDDEN void mt_write_end(int fd, enum mt_fmt fmt);
/* Calls of the hook from sites in no table so far: those the hot path
 * saw (mt_tabled), and those a drain found among the events (a site a
 * table of the object does not have, or refused); drain_lock held
 * (mt_output_lock: a thread reaped moves its count to mt_gone). */
MT_HIDDEN uint64_t mt_untabled_total(void);
/* Free the empty buffers of threads that have exited, for new threads. */
MT_HIDDEN void mt_reap(void);
/* Events from call sites no table of their object records (or
 * refused): not written, not events; counted by the drain. */
MT_HIDDEN extern uint64_t mt_untabled_events;
/* Events a drain into the output file took but could not write (a full
 * file system): lost, counted (drain_lock held); a drain whose write
 * failed part way counts the events of that write and of every one
 * after it, not those it wrote before. */
MT_HIDDEN extern uint64_t mt_unwritten_events;
/* Bumped as a drain goes (each chunk of events formatted): whether one
 * is getting on, for a thread that waits for it (control.c's exit). */
MT_HIDDEN extern _Atomic unsigned long mt_drain_progress;
/* The same to a socket, each call done within ms milliseconds, or -1
 * with ETIMEDOUT; never SIGPIPE. */
MT_HIDDEN int mt_send_all(int fd, const char *p, size_t n, int ms);
MT_HIDDEN void mt_output_lock(void);            /* drain_lock: around fork(); counts */
MT_HIDDEN void mt_output_unlock(void);
MT_HIDDEN void mt_output_reinit(void);          /* in a forked child */

#endif
