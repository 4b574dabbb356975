/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dtor_lib.c - the library robust.c's dtor mode (t/99) opens and closes
 * again and again: its functions make events, and its destructor, which
 * dlclose() runs, writes the trace through the C API, as a plugin that
 * saves what it traced when it is unloaded would.  A write that fails
 * is said on standard error. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mcount-trace.h"

static volatile long sink;

__attribute__((noinline, noipa)) void lib_leaf(long i) { sink += i; __asm__ volatile(""); }

__attribute__((noinline, noipa)) long lib_work(long n)
{
	for (long i = 0; i < n; i++)
		lib_leaf(i);
	return sink;
}

__attribute__((destructor)) static void lib_fini(void)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || mcount_trace_write(fd, MCOUNT_TRACE_TEXT) < 0)
		fprintf(stderr, "dtor_lib: mcount_trace_write: %s\n", strerror(errno));
	if (fd >= 0)
		close(fd);
}
