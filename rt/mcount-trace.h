/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mcount-trace.h - the C API of libmcount-trace.
 *
 * A program linked with libmcount-trace.a (or run with libmcount-trace.so
 * preloaded, see mcount-trace(1)) can switch its own functions to tracing
 * and back.  A FILTER is one or more globs separated by spaces or commas,
 * each with fnmatch(3) syntax and an optional ":mod:MODULE" suffix, as the
 * kernel's set_ftrace_filter takes them; a space or comma escaped by a
 * backslash, or inside the brackets of a C++ name ("deep(int, int&)"),
 * is the glob's own (FILTERS in mcount-trace(1)).  Every call is safe
 * from any thread at any time; none is async-signal-safe.
 */
#ifndef MCOUNT_TRACE_H
#define MCOUNT_TRACE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Switch the functions the filter names to tracing (not those a notrace
 * filter names).  Returns how many functions changed, or -1 with errno
 * set (EINVAL: a bad filter; EPERM: the code cannot be changed). */
int mcount_trace_enable(const char *filter);
/* Switch them back to NOPs. */
int mcount_trace_disable(const char *filter);
/* Never trace these functions from now on (disabling them if they are). */
int mcount_trace_notrace(const char *filter);
/* Switch every function back to a NOP. */
int mcount_trace_stop(void);
/* Write the trace so far to fd and consume it, in a format: the kernel's
 * text format (without its header), JSON lines, or a whole Chrome JSON
 * trace document (Perfetto, chrome://tracing).  Returns the number of
 * events written, or -1 with errno set (EINVAL: no such format; EBADF:
 * fd is not open for writing, and the events stay for the next call; a
 * write that fails on the way loses the events it had taken). */
#define MCOUNT_TRACE_TEXT 0
#define MCOUNT_TRACE_JSON 1
#define MCOUNT_TRACE_CHROME 2
long mcount_trace_write(int fd, int format);
/* Select the tracer, as the kernel's current_tracer: "function" (an
 * event at each call of a traced function; the default) or
 * "function_graph" (each call and its return, with its duration).
 * Calls in progress keep the tracer they started under; the output file
 * gets the events so far at the switch, in their tracer's style.
 * Returns 0, or -1 with errno EINVAL for another name. */
int mcount_trace_set_tracer(const char *name);

/* Function events: record the arguments of the functions a prototype
 * names, "open_file(const char *path, int flags)" (a FILTER's glob
 * before the parenthesis; several separated by ';'; the types are in
 * mcount-trace(1)), or a bare glob, "parse_*", whose functions take
 * their prototypes from the program's DWARF, switching those functions
 * to tracing; "!GLOB" records their arguments no more.  Returns how many functions changed,
 * or -1 with errno set (EINVAL: a bad prototype, the reason on standard
 * error; ENOTSUP: arguments are not recorded on this architecture;
 * EPERM: the code cannot be changed). */
int mcount_trace_event(const char *protos);
/* Record the first n argument words (raw) of every traced function
 * without a prototype: 0 (the default) to 6 on x86_64.  Returns 0, or
 * -1 with errno EINVAL. */
int mcount_trace_set_args(int n);
/* function_graph's returns carry the function's return value (its
 * integer return register), as the kernel's funcgraph-retval option
 * writes it: on (non-zero) or off (0, the default).  Returns 0, or -1
 * with errno ENOTSUP where return values are not recorded (x86_64 and
 * aarch64 have them). */
int mcount_trace_set_retval(int on);

#ifdef __cplusplus
}
#endif

#endif
