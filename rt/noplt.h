/* SPDX-License-Identifier: GPL-2.0-or-later */
/* noplt.h - a shared object with no PLT (sparc64's libmcount-trace.so).
 *
 * On sparc64 a PLT is code the dynamic linker writes, so every shared
 * object with one has a writable and executable segment, and GCC
 * ignores -fno-plt there.  The Makefile compiles each file of such a
 * library with this header first (-include): it includes every system
 * header the library uses (their guards keep later includes empty), then
 * makes each call of a C library function a call through the function's
 * GOT slot (a GLOB_DAT relocation in RELRO, not a PLT entry).  The
 * pointer goes through an empty asm, so that GCC cannot turn it back
 * into a direct call.  The library's own exported functions are bound
 * inside it (-Bsymbolic-functions), and the start files, which call
 * __gmon_start__ and __cxa_finalize, are left out (-nostartfiles):
 * __dso_handle is the library's own (control.c), and pthread_atfork,
 * a libc_nonshared.a function that calls __register_atfork through the
 * PLT, is that call made here.  A function added to the library's calls
 * must be added below: the sparc64 guest fails on a .plt in the library.
 */
#ifndef MCOUNT_NOPLT_H
#define MCOUNT_NOPLT_H

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <link.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

static inline void *mt_noplt(void *p)
{
	__asm__("" : "+r"(p));
	return p;
}
#define MT_GOT_CALL(f) ((__typeof__(&f))mt_noplt((void *)&f))

extern int __register_atfork(void (*)(void), void (*)(void), void (*)(void), void *);
extern void *__dso_handle __attribute__((visibility("hidden")));
#define pthread_atfork(prepare, parent, child) \
	MT_GOT_CALL(__register_atfork)(prepare, parent, child, __dso_handle)

extern int __cxa_atexit(void (*)(void *), void *, void *);
#define __cxa_atexit(...) MT_GOT_CALL(__cxa_atexit)(__VA_ARGS__)

#define abort(...) MT_GOT_CALL(abort)(__VA_ARGS__)
#define accept4(...) MT_GOT_CALL(accept4)(__VA_ARGS__)
#define asprintf(...) MT_GOT_CALL(asprintf)(__VA_ARGS__)
#define atol(...) MT_GOT_CALL(atol)(__VA_ARGS__)
#define bind(...) MT_GOT_CALL(bind)(__VA_ARGS__)
#define calloc(...) MT_GOT_CALL(calloc)(__VA_ARGS__)
#define chmod(...) MT_GOT_CALL(chmod)(__VA_ARGS__)
#define clock_gettime(...) MT_GOT_CALL(clock_gettime)(__VA_ARGS__)
#define close(...) MT_GOT_CALL(close)(__VA_ARGS__)
#define closedir(...) MT_GOT_CALL(closedir)(__VA_ARGS__)
#define connect(...) MT_GOT_CALL(connect)(__VA_ARGS__)
#define __ctype_b_loc(...) MT_GOT_CALL(__ctype_b_loc)(__VA_ARGS__)
#define dl_iterate_phdr(...) MT_GOT_CALL(dl_iterate_phdr)(__VA_ARGS__)
#define dladdr(...) MT_GOT_CALL(dladdr)(__VA_ARGS__)
#define dlerror(...) MT_GOT_CALL(dlerror)(__VA_ARGS__)
#define dlsym(...) MT_GOT_CALL(dlsym)(__VA_ARGS__)
#define __errno_location(...) MT_GOT_CALL(__errno_location)(__VA_ARGS__)
#define eventfd(...) MT_GOT_CALL(eventfd)(__VA_ARGS__)
#define fclose(...) MT_GOT_CALL(fclose)(__VA_ARGS__)
#define fcntl(...) MT_GOT_CALL(fcntl)(__VA_ARGS__)
#define fnmatch(...) MT_GOT_CALL(fnmatch)(__VA_ARGS__)
#define fprintf(...) MT_GOT_CALL(fprintf)(__VA_ARGS__)
#define fputs(...) MT_GOT_CALL(fputs)(__VA_ARGS__)
#define free(...) MT_GOT_CALL(free)(__VA_ARGS__)
#define fstat(...) MT_GOT_CALL(fstat)(__VA_ARGS__)
#define ftruncate(...) MT_GOT_CALL(ftruncate)(__VA_ARGS__)
#define fwrite(...) MT_GOT_CALL(fwrite)(__VA_ARGS__)
#define getauxval(...) MT_GOT_CALL(getauxval)(__VA_ARGS__)
#define getenv(...) MT_GOT_CALL(getenv)(__VA_ARGS__)
#define geteuid(...) MT_GOT_CALL(geteuid)(__VA_ARGS__)
#define getpid(...) MT_GOT_CALL(getpid)(__VA_ARGS__)
#define getppid(...) MT_GOT_CALL(getppid)(__VA_ARGS__)
#define getsockopt(...) MT_GOT_CALL(getsockopt)(__VA_ARGS__)
#define getuid(...) MT_GOT_CALL(getuid)(__VA_ARGS__)
#define kill(...) MT_GOT_CALL(kill)(__VA_ARGS__)
#define listen(...) MT_GOT_CALL(listen)(__VA_ARGS__)
#define lseek(...) MT_GOT_CALL(lseek)(__VA_ARGS__)
#define lstat(...) MT_GOT_CALL(lstat)(__VA_ARGS__)
#define malloc(...) MT_GOT_CALL(malloc)(__VA_ARGS__)
#define memchr(...) MT_GOT_CALL(memchr)(__VA_ARGS__)
#define memcmp(...) MT_GOT_CALL(memcmp)(__VA_ARGS__)
#define memcpy(...) MT_GOT_CALL(memcpy)(__VA_ARGS__)
#define memmove(...) MT_GOT_CALL(memmove)(__VA_ARGS__)
#define memset(...) MT_GOT_CALL(memset)(__VA_ARGS__)
#define mkdir(...) MT_GOT_CALL(mkdir)(__VA_ARGS__)
#define mkdirat(...) MT_GOT_CALL(mkdirat)(__VA_ARGS__)
#define mmap(...) MT_GOT_CALL(mmap)(__VA_ARGS__)
#define munmap(...) MT_GOT_CALL(munmap)(__VA_ARGS__)
#define nanosleep(...) MT_GOT_CALL(nanosleep)(__VA_ARGS__)
#define open(...) MT_GOT_CALL(open)(__VA_ARGS__)
#define openat(...) MT_GOT_CALL(openat)(__VA_ARGS__)
#define open_memstream(...) MT_GOT_CALL(open_memstream)(__VA_ARGS__)
#define opendir(...) MT_GOT_CALL(opendir)(__VA_ARGS__)
#define poll(...) MT_GOT_CALL(poll)(__VA_ARGS__)
#define pthread_attr_destroy(...) MT_GOT_CALL(pthread_attr_destroy)(__VA_ARGS__)
#define pthread_attr_init(...) MT_GOT_CALL(pthread_attr_init)(__VA_ARGS__)
#define pthread_attr_setdetachstate(...) MT_GOT_CALL(pthread_attr_setdetachstate)(__VA_ARGS__)
#define pthread_create(...) MT_GOT_CALL(pthread_create)(__VA_ARGS__)
#define pthread_key_create(...) MT_GOT_CALL(pthread_key_create)(__VA_ARGS__)
#define pthread_mutex_init(...) MT_GOT_CALL(pthread_mutex_init)(__VA_ARGS__)
#define pthread_mutex_lock(...) MT_GOT_CALL(pthread_mutex_lock)(__VA_ARGS__)
#define pthread_mutex_trylock(...) MT_GOT_CALL(pthread_mutex_trylock)(__VA_ARGS__)
#define pthread_mutex_unlock(...) MT_GOT_CALL(pthread_mutex_unlock)(__VA_ARGS__)
#define pthread_mutexattr_destroy(...) MT_GOT_CALL(pthread_mutexattr_destroy)(__VA_ARGS__)
#define pthread_mutexattr_init(...) MT_GOT_CALL(pthread_mutexattr_init)(__VA_ARGS__)
#define pthread_mutexattr_settype(...) MT_GOT_CALL(pthread_mutexattr_settype)(__VA_ARGS__)
#define pthread_once(...) MT_GOT_CALL(pthread_once)(__VA_ARGS__)
#define pthread_setname_np(...) MT_GOT_CALL(pthread_setname_np)(__VA_ARGS__)
#define pthread_setspecific(...) MT_GOT_CALL(pthread_setspecific)(__VA_ARGS__)
#define prctl(...) MT_GOT_CALL(prctl)(__VA_ARGS__)
#define pread(...) MT_GOT_CALL(pread)(__VA_ARGS__)
#define pwrite(...) MT_GOT_CALL(pwrite)(__VA_ARGS__)
#define qsort(...) MT_GOT_CALL(qsort)(__VA_ARGS__)
#define qsort_r(...) MT_GOT_CALL(qsort_r)(__VA_ARGS__)
#define raise(...) MT_GOT_CALL(raise)(__VA_ARGS__)
#define read(...) MT_GOT_CALL(read)(__VA_ARGS__)
#define readdir(...) MT_GOT_CALL(readdir)(__VA_ARGS__)
#define readlink(...) MT_GOT_CALL(readlink)(__VA_ARGS__)
#define realloc(...) MT_GOT_CALL(realloc)(__VA_ARGS__)
#define realpath(...) MT_GOT_CALL(realpath)(__VA_ARGS__)
#define secure_getenv(...) MT_GOT_CALL(secure_getenv)(__VA_ARGS__)
#define send(...) MT_GOT_CALL(send)(__VA_ARGS__)
#define setenv(...) MT_GOT_CALL(setenv)(__VA_ARGS__)
#define setsockopt(...) MT_GOT_CALL(setsockopt)(__VA_ARGS__)
#define sigaddset(...) MT_GOT_CALL(sigaddset)(__VA_ARGS__)
#define sigdelset(...) MT_GOT_CALL(sigdelset)(__VA_ARGS__)
#define sigemptyset(...) MT_GOT_CALL(sigemptyset)(__VA_ARGS__)
#define sigfillset(...) MT_GOT_CALL(sigfillset)(__VA_ARGS__)
#define sigismember(...) MT_GOT_CALL(sigismember)(__VA_ARGS__)
#define sigorset(...) MT_GOT_CALL(sigorset)(__VA_ARGS__)
#define snprintf(...) MT_GOT_CALL(snprintf)(__VA_ARGS__)
#define socket(...) MT_GOT_CALL(socket)(__VA_ARGS__)
#define stat(...) MT_GOT_CALL(stat)(__VA_ARGS__)
#define strcat(...) MT_GOT_CALL(strcat)(__VA_ARGS__)
#define strchr(...) MT_GOT_CALL(strchr)(__VA_ARGS__)
#define strcmp(...) MT_GOT_CALL(strcmp)(__VA_ARGS__)
#define strcpy(...) MT_GOT_CALL(strcpy)(__VA_ARGS__)
#define strcspn(...) MT_GOT_CALL(strcspn)(__VA_ARGS__)
#define strdup(...) MT_GOT_CALL(strdup)(__VA_ARGS__)
#define strerror(...) MT_GOT_CALL(strerror)(__VA_ARGS__)
#define strlen(...) MT_GOT_CALL(strlen)(__VA_ARGS__)
#define strncmp(...) MT_GOT_CALL(strncmp)(__VA_ARGS__)
#define strndup(...) MT_GOT_CALL(strndup)(__VA_ARGS__)
#define strpbrk(...) MT_GOT_CALL(strpbrk)(__VA_ARGS__)
#define strrchr(...) MT_GOT_CALL(strrchr)(__VA_ARGS__)
#define strspn(...) MT_GOT_CALL(strspn)(__VA_ARGS__)
#define strstr(...) MT_GOT_CALL(strstr)(__VA_ARGS__)
#define strtok_r(...) MT_GOT_CALL(strtok_r)(__VA_ARGS__)
#define strtol(...) MT_GOT_CALL(strtol)(__VA_ARGS__)
#define strtoul(...) MT_GOT_CALL(strtoul)(__VA_ARGS__)
#define strtoull(...) MT_GOT_CALL(strtoull)(__VA_ARGS__)
#define syscall(...) MT_GOT_CALL(syscall)(__VA_ARGS__)
#define sysconf(...) MT_GOT_CALL(sysconf)(__VA_ARGS__)
#define unlink(...) MT_GOT_CALL(unlink)(__VA_ARGS__)
#define vsnprintf(...) MT_GOT_CALL(vsnprintf)(__VA_ARGS__)
#define write(...) MT_GOT_CALL(write)(__VA_ARGS__)

#endif
