/* SPDX-License-Identifier: GPL-2.0-or-later */
/* switch_show.c - events recorded under one tracer and written after a
 * switch to the other (t/78-trace-graph.t).  Linked with
 * libmcount-trace.a: main runs mid (two calls of leaf) under
 * function_graph, switches to the function tracer and writes the trace
 * so far to stdout, which must show leaf's returns; then runs mid again
 * and writes that, in the function tracer's style.  With
 * MCOUNT_TRACE_OUTPUT the file gets both instead.
 */
#include <stdio.h>
#include "mcount-trace.h"

#define F __attribute__((noipa))

F int leaf(int x) { return x * 3 + 1; }
F int mid(int x) { return leaf(x) + leaf(x + 1); }

static int write_out(const char *tag)
{
	printf("--- %s\n", tag);
	fflush(stdout);
	return mcount_trace_write(1, MCOUNT_TRACE_TEXT) < 0;
}

int main(void)
{
	if (mcount_trace_set_tracer("function_graph") || mcount_trace_enable("leaf") != 1)
		return 3;
	int r = mid(1);
	if (mcount_trace_set_tracer("function") || write_out("graph"))
		return 4;
	r += mid(2);
	if (write_out("function"))
		return 4;
	printf("--- %d\n", r);
	return 0;
}
