/* SPDX-License-Identifier: GPL-2.0-or-later */
/* api_write.c - mcount_trace_write() to descriptors it cannot write
 * (t/76): it fails with EBADF and leaves the events for the next call,
 * which writes them all to standard output.  Prints what each call
 * returned, on standard error. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "mcount-trace.h"

__attribute__((noinline, noipa)) int leaf(int x) { return x * 3 + 1; }

int main(void)
{
	long s = 0;
	if (mcount_trace_enable("leaf") != 1)
		return 1;
	for (int i = 0; i < 3; i++)
		s += leaf(i);
	long r = mcount_trace_write(-1, MCOUNT_TRACE_TEXT);
	fprintf(stderr, "closed: %ld %s\n", r, r < 0 && errno == EBADF ? "EBADF" : "?");
	int ro = open("/dev/null", O_RDONLY);
	r = mcount_trace_write(ro, MCOUNT_TRACE_TEXT);
	fprintf(stderr, "read-only: %ld %s\n", r, r < 0 && errno == EBADF ? "EBADF" : "?");
	fflush(stderr);
	r = mcount_trace_write(1, MCOUNT_TRACE_TEXT);
	fprintf(stderr, "stdout: %ld\n", r);
	return s == 12 ? 0 : 1;
}
