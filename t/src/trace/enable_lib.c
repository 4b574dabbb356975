/* SPDX-License-Identifier: GPL-2.0-or-later */
/* enable_lib.c - the library robust.c's ctor mode (t/99) opens and
 * closes again and again while another thread does the same with
 * another library: its constructor, which dlopen() runs, asks through
 * the C API for its own function to be traced, as a plugin that traces
 * itself would.  A call that fails is said on standard error. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mcount-trace.h"

static volatile long sink;

__attribute__((noinline, noipa)) void enabled_fn(long i) { sink += i; __asm__ volatile(""); }

/* (not compiled with a call of the hook: dlopen() runs it before the
 * library's table is read, and the call would be counted, and said, as
 * one from a site in no table) */
__attribute__((constructor, no_instrument_function)) static void lib_init(void)
{
	if (mcount_trace_enable("enabled_fn") < 0)
		fprintf(stderr, "enable_lib: mcount_trace_enable: %s\n", strerror(errno));
}
