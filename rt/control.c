/* SPDX-License-Identifier: GPL-2.0-or-later */
/* control.c - start-up, the environment, the control socket, the C API,
 * and what fork(), exec and dlopen() need.
 *
 * Start-up (before any other initialiser: mt_init): every valid site
 * becomes a NOP, then the functions MCOUNT_TRACE_FILTER names (less
 * MCOUNT_TRACE_NOTRACE) are switched to tracing; the end comes after
 * every finaliser (end_one).  A control thread serves the socket
 * DIR/PID (mode 0600, in a directory of mode 0700 that must be the
 * user's), checks the peer's uid, and drains the buffers into
 * MCOUNT_TRACE_OUTPUT while the program runs.  The protocol: one request
 * line `VERB[ ARG...]`, one status line (`ok`, `ok N` or `error: MESSAGE`),
 * then the verb's payload until the connection closes (mcount-trace(1)).
 * The control thread reads the request lines of every connection at once
 * and never waits on one; each request is answered by a thread of its
 * own (struct conn).
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64          /* a trace file past 2 GiB on a 32-bit system */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "mcount-trace.h"
#include "mcount-hooks.h"
#include "cpu.h"
#include "rt.h"

static char *out_path;                /* MCOUNT_TRACE_OUTPUT as given */
static int out_fd = -1;
static dev_t out_dev;                 /* what out_fd was opened on */
static ino_t out_ino;
static enum mt_fmt out_fmt;
/* What the file has so far: the tracer of its last header, whether a
 * Chrome event is in it, the thread of its last function_graph line. */
static struct mt_doc_state out_state = MT_DOC_STATE_INIT;
static bool out_ended;                /* the document was closed at exit */
static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;   /* the above */
static bool control_on = true;
/* mcount-trace detach: the library's state (rt.h), the requests being
 * served (a detach waits for the others), and what wakes the control
 * thread to end the channel. */
_Atomic int mt_attach_state;
static atomic_int serving;
static int wake_fd = -1;
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static int listen_fd = -1;
static pid_t owner;                   /* the process the socket and output belong to */
/* The process the library started in, or last saw forked (its atfork
 * handler ran).  Another PID is a process made without the library's
 * knowing (a raw clone or fork system call, glibc's _Fork): it has a
 * copy of the parent's buffers, descriptors and socket name, none of
 * them its own, so it writes no trace and removes no socket. */
static pid_t me;
#ifndef MCOUNT_NOPLT_H
/* The C++ ABI's registration of an exit handler (atexit takes the
 * calling object's handle; end_late wants none). */
int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);
#endif

static bool unseen_child(void)
{
	return getpid() != me;
}
static atomic_bool tracing_off;       /* the code cannot be changed */
/* The end of the process, once (finish): by the destructor, or for an
 * _exit by the control thread, asked by exit_request and told by
 * exit_done (a futex word), while control_running.  Words, not bytes:
 * a byte's exchange is a libatomic call on riscv64. */
static atomic_int finished, exit_request, exit_done, control_running;
static void finish(void);
static void stat_from_env(void);
/* Of the two ends at exit, those there are and those run (end_one). */
static atomic_int ends_due = 1, ends_seen;
#ifdef MT_SHARED
static void exit_real_init(void);
#endif

/* ---- the output file ---- */

/* Is there anything to write?  A process that never makes an event (a
 * shell the program runs, say) leaves no FILE.PID behind. */
static bool events_pending(void)
{
	for (struct mt_tbuf *b = atomic_load(&mt_tbufs); b; b = b->next)
		if (atomic_load(&b->head) != atomic_load(&b->tail) || b->lost != b->lost_seen)
			return true;
	return false;
}

/* Which process writes FILE itself, and which have opened their file,
 * across exec (which keeps the PID and the environment, and runs no
 * destructor): MCOUNT_TRACE_OWNER names the first process, whose file is
 * FILE; any other (a forked child, a program it runs) writes FILE.PID.
 * MCOUNT_TRACE_OPENED names the process that has opened its file, so that
 * the program it execs goes on writing it instead of truncating it. */
static bool env_is_me(const char *var)
{
	const char *v = mt_env(var);
	return v && atol(v) == (long)getpid();
}

/* What set_env_me put off while the environment is early (mt_env_is_early): a
 * variable and its process. */
static struct {
	const char *var;
	pid_t pid;
} env_due[2];

/* var=PID of process pid in the environment (at once, or when the C
 * library has set it up: env_now); at start-up, or with file_lock held. */
static void set_env_pid(const char *var, pid_t pid)
{
	if (mt_env_is_early()) {
		for (size_t i = 0; i < sizeof env_due / sizeof *env_due; i++)
			if (!env_due[i].var || !strcmp(env_due[i].var, var)) {
				env_due[i].var = var;
				env_due[i].pid = pid;
				break;
			}
		return;
	}
	char v[24];
	snprintf(v, sizeof v, "%d", (int)pid);
	setenv(var, v, 1);
}

static void set_env_me(const char *var)
{
	set_env_pid(var, getpid());
}

/* What set_env_pid put off, set now that the C library has set up the
 * environment: at the program's start (preloaded, __libc_start_main;
 * linked in, the program's constructors), and before an exec. */
static void env_now(void)
{
	if (!mt_env_is_early() || unseen_child())
		return;
	pthread_mutex_lock(&file_lock);
	mt_env_late();
	for (size_t i = 0; i < sizeof env_due / sizeof *env_due; i++)
		if (env_due[i].var) {
			set_env_pid(env_due[i].var, env_due[i].pid);
			env_due[i].var = NULL;
		}
	pthread_mutex_unlock(&file_lock);
}

/* MCOUNT_TRACE_OUTPUT=-: the standard error the program started with,
 * a copy of it taken at start-up, so that the trace does not follow the
 * program's own redirection of descriptor 2 (freopen of a log file). */
static int err_fd = 2;

static void keep_stderr(void)
{
	struct stat st;
	/* (high, out of the way of a program's own dup2 onto 3, 4...) */
	int fd = fcntl(2, F_DUPFD_CLOEXEC, 100);
	if (fd < 0)
		fd = fcntl(2, F_DUPFD_CLOEXEC, 3);
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	err_fd = fd;
	out_dev = st.st_dev;
	out_ino = st.st_ino;
}

/* Is out_fd still what the trace was opened on?  The program may have
 * closed it (a daemon closes every descriptor) and its number may now be
 * one of the program's own files: never write into those. */
static bool out_fd_ours(void)
{
	struct stat st;
	return out_fd <= 2 || (!fstat(out_fd, &st) && st.st_dev == out_dev && st.st_ino == out_ino);
}

/* The trace's file: never through a symbolic link (one planted where
 * the trace goes would have it write over what the link names), never
 * a FIFO, a device or anything but a regular file (looked at before it
 * is opened, and what was opened looked at again: opened without
 * waiting, so that a FIFO cannot hang the program before main), created
 * 0600 (the trace holds the program's strings).  FILE itself is
 * truncated; a child's FILE.PID must be new (its name is easy to guess),
 * unless the same process opened it before an exec.  The descriptor, or
 * -1 with errno, or -2 when the reason was said. */
static int open_file(const char *path, bool again)
{
	static const char *const refused[] = {
		"a symbolic link, not followed",
		"not a regular file (a FIFO, a device, a socket...)",
		"there already (another's, or left by an earlier run)",
	};
	struct stat st;
	int why = -1;
	bool child = !again && getpid() != owner;
	if (!lstat(path, &st))
		why = S_ISLNK(st.st_mode) ? 0 : !S_ISREG(st.st_mode) ? 1 : child ? 2 : -1;
	int fd = -1;
	if (why < 0) {
		int fl = O_WRONLY | O_CREAT | O_CLOEXEC | O_APPEND | O_NOFOLLOW | O_NONBLOCK;
		fd = open(path, fl | (again ? 0 : child ? O_EXCL : O_TRUNC), 0600);
		if (fd < 0)
			why = errno == ELOOP ? 0 : errno == ENXIO ? 1 : errno == EEXIST ? 2 : -1;
		else if (fstat(fd, &st) || !S_ISREG(st.st_mode))
			why = 1;
	}
	if (why < 0) {
		if (fd >= 0)
			fcntl(fd, F_SETFL, O_APPEND);   /* (waits again, as a file's writes do) */
		return fd;
	}
	if (fd >= 0)
		close(fd);
	mt_msg("%s: %s: %s trace is not written", path, refused[why], child ? "this process's" : "the");
	return -2;
}

static void open_output(void)
{
	if (!out_path || !*out_path)
		return;
	char *path = NULL;
	int r = getpid() == owner ? asprintf(&path, "%s", out_path)
		: asprintf(&path, "%s.%d", out_path, (int)getpid());
	if (r < 0)
		return;
	bool again = env_is_me("MCOUNT_TRACE_OPENED");
	struct stat st;
	if (!strcmp(out_path, "-")) {
		out_fd = err_fd;
		if (!out_fd_ours()) {
			mt_msg("standard error: closed by the program: the trace is not written");
			out_fd = -1;
			out_path = NULL;
			free(path);
			return;
		}
	} else {
		out_fd = open_file(path, again);
	}
	if (out_fd < 0) {
		if (out_fd == -1)
			mt_msg("%s: %s: the trace is not written", path, strerror(errno));
		out_fd = -1;
		out_path = NULL;        /* once */
	}
	out_state.style = atomic_load(&mt_tracer);
	out_state.last_tid = 0;
	if (out_fd >= 0 && !again) {
		mt_write_header(out_fd, out_fmt, out_state.style);     /* once, at the top of the file */
	} else if (out_fd >= 0 && out_fmt == MT_FMT_CHROME && !fstat(out_fd, &st)) {
		out_state.first = st.st_size <= (off_t)strlen("{\"traceEvents\":[\n");
	}
	if (out_fd >= 0 && out_fd != err_fd && !fstat(out_fd, &st)) {
		out_dev = st.st_dev;
		out_ino = st.st_ino;
	}
	if (out_fd >= 0)
		set_env_me("MCOUNT_TRACE_OPENED");
	free(path);
}

/* A thread got no buffer of the size asked for, only a small one: said
 * when first seen, and at exit (file_lock held). */
static void say_nobuf(bool at_exit)
{
	static unsigned long said;
	unsigned long n = atomic_load(&mt_nobuf_threads), dead = atomic_load(&mt_nobuf_lost);
	if (!n || (said && !at_exit))
		return;
	said = n;
	unsigned long long bytes = (unsigned long long)mt_buffer_events * sizeof(struct mt_event);
	if (at_exit)
		mt_msg("%lu thread%s got a buffer of %d events, not %llu (%llu MiB; MCOUNT_TRACE_BUFFER)%s", n,
		       n == 1 ? "" : "s", MT_SMALL_RING, (unsigned long long)mt_buffer_events, bytes >> 20,
		       dead ? ", some none at all: their events are lost" : "");
	else
		mt_msg("no memory for a buffer of %llu events (%llu MiB) for a thread: it gets one of %d, and "
		       "what does not fit is lost (a smaller MCOUNT_TRACE_BUFFER, or mcount-trace run -b)",
		       (unsigned long long)mt_buffer_events, bytes >> 20, MT_SMALL_RING);
	if (at_exit && dead)
		mt_msg("%lu events lost: their threads got no buffer", dead);
}

/* A write into the output that failed (a full file system: ENOSPC,
 * EDQUOT) is said once for each reason, not at every drain, which
 * tries again; what could not be written is counted, and the count said
 * at exit (file_lock held). */
static int write_errors_said[4];

static void say_write_error(int err)
{
	for (size_t i = 0; i < sizeof write_errors_said / sizeof *write_errors_said; i++) {
		if (write_errors_said[i] == err)
			return;
		if (!write_errors_said[i]) {
			write_errors_said[i] = err;
			break;
		}
	}
	mt_msg("%s: %s: events are lost until the trace can be written again (their number is said at exit)",
	       strcmp(out_path, "-") ? out_path : "standard error", strerror(err));
}

/* Returns the number of events written (file_lock held). */
static long drain_locked(void)
{
	if (unseen_child())
		return 0;
	say_nobuf(false);
	if (mt_rec_dir >= 0) {
		long r = mt_record_drain();
		return r;
	}
	if (out_ended)
		return 0;          /* after the end of a Chrome document: nothing */
	if (out_fd < 0 && out_path && *out_path && events_pending())
		open_output();
	if (out_fd >= 0 && !out_fd_ours()) {
		mt_msg("%s: closed by the program: the rest of the trace is not written",
		       strcmp(out_path, "-") ? out_path : "standard error");
		out_fd = -1;
		out_path = NULL;
		return 0;
	}
	/* (a switch of the tracer is marked by its header as its events come) */
	long n = out_fd >= 0 ? mt_drain(out_fd, out_fmt, &out_state, true, -1) : 0;
	if (n < 0)
		say_write_error(errno);
	return n;
}

static long drain_output(void)
{
	if (unseen_child())
		return 0;             /* (the lock may be a copy of one a thread held) */
	pthread_mutex_lock(&file_lock);
	long n = drain_locked();
	pthread_mutex_unlock(&file_lock);
	return n;
}

/* Selects the tracer.  The events recorded so far keep the style of the
 * one they were recorded under, which each entry carries (MT_EV_GRAPH):
 * however late they are written, in the file or by a show, and whatever
 * a thread was doing at the switch.  The output file gets them first. */
static void set_tracer(int t)
{
	/* (never waits for a drain in progress: the events keep their own
	 * style, written first or not) */
	if (pthread_mutex_trylock(&file_lock)) {
		mt_trace_style(t);
		return;
	}
	if (t != atomic_load(&mt_tracer)) {
		drain_locked();
		mt_trace_style(t);
	}
	pthread_mutex_unlock(&file_lock);
}

/* ---- the control socket ---- */

/* Connections open at once; the time a client has to send its request
 * line, from the accept; the time it has to take each 64 KiB of an
 * answer (mcount-trace(1), SECURITY). */
#define MT_CONN_MAX 32
#define MT_REQ_MS 5000
#define MT_SEND_MS 5000

/* The socket's path, DIR/PID, into sock_path: DIR is MCOUNT_TRACE_DIR,
 * else XDG_RUNTIME_DIR/mcount-trace, else /tmp/mcount-trace-UID, made
 * if it is not there.  A path that does not fit a socket's address is
 * refused whole, never cut (mcount-trace(1) refuses it too): a cut one
 * would be another directory, where no client looks. */
static int socket_path(void)
{
	const char *d = mt_env("MCOUNT_TRACE_DIR");
	const char *x = mt_env("XDG_RUNTIME_DIR");
	char dir[sizeof sock_path];
	int n = d && *d ? snprintf(dir, sizeof dir, "%s", d)
		: x && *x ? snprintf(dir, sizeof dir, "%s/mcount-trace", x)
		: snprintf(dir, sizeof dir, "/tmp/mcount-trace-%u", (unsigned)getuid());
	int m = n < 0 || (size_t)n >= sizeof dir ? -1
		: snprintf(sock_path, sizeof sock_path, "%s/%d", dir, (int)getpid());
	if (m < 0 || (size_t)m >= sizeof sock_path) {
		bool own = d && *d;           /* (the default path always fits) */
		mt_msg("%s: '%s': too long a directory for the control socket (DIR/PID has more than %zu "
		       "bytes): no control channel", own ? "MCOUNT_TRACE_DIR" : "XDG_RUNTIME_DIR",
		       own ? d : x ? x : "", sizeof sock_path - 1);
		sock_path[0] = 0;
		return -1;
	}
	if (mkdir(dir, 0700) && errno != EEXIST) {
		mt_msg("%s: %s: no control channel", dir, strerror(errno));
		sock_path[0] = 0;
		return -1;
	}
	struct stat st;
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077)) {
		mt_msg("%s: not a directory of this user's with mode 0700: no control channel", dir);
		sock_path[0] = 0;
		return -1;
	}
	return 0;
}

static void reply(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply(int fd, const char *fmt, ...)
{
	char small[512], *buf = small;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof small && (buf = malloc((size_t)n + 1))) {
		va_start(ap, fmt);
		vsnprintf(buf, (size_t)n + 1, fmt, ap);
		va_end(ap);
	} else if (n >= (int)sizeof small) {
		/* no memory: the line cut, but a line still */
		buf = small;
		n = sizeof small - 1;
		buf[n - 1] = '\n';
	}
	if (n > 0)
		mt_write_all(fd, buf, (size_t)n);
	if (buf != small)
		free(buf);
}

/* Why a pass failed, as it failed (registry lock held): the site it
 * could not read, or errno's reason. */
static void why_not(char *out, size_t len)
{
	int e = errno;
	const char *why = mt_apply_why();
	snprintf(out, len, "%s", e == EFAULT && *why ? why : strerror(e));
	errno = e;
}

/* A filter and the pass that makes the code follow it, for the socket
 * and the API alike: the functions changed, or -1 with errno set and
 * *bad saying whether the filter (not the pass) failed, and why a pass
 * failed in why (if not NULL; 256 bytes). */
static long filter_apply(const char *filter, int what, bool *bad, char *why)
{
	bool pass = mt_change_begin();
	long n = mt_filter(filter, what);
	*bad = n < 0;
	if (n >= 0 && mt_apply()) {
		n = -1;
		if (why)
			why_not(why, 256);
	}
	mt_change_end(pass);
	return n;
}

/* Function events: prototypes separated by ';' (as a filter takes
 * globs), and the pass; the functions given or relieved of a prototype,
 * or -1 with errno and the reason in err. */
static long events_apply(const char *list, char *err, size_t errlen)
{
	char *copy = strdup(list ? list : "");
	if (!copy) {
		errno = ENOMEM;
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	long total = 0;
	size_t given = 0;
	char *save = NULL;
	bool pass = mt_change_begin();
	for (char *s = strtok_r(copy, ";", &save); s && total >= 0; s = strtok_r(NULL, ";", &save)) {
		if (!s[strspn(s, " \t\n")])
			continue;
		given++;
		long n = mt_proto_apply(s, err, errlen);
		if (n < 0) {
			errno = MT_HAVE_ARGS ? EINVAL : ENOTSUP;
			total = -1;
		} else {
			total += n;
		}
	}
	if (!given) {
		snprintf(err, errlen, "no prototype given");
		errno = EINVAL;
		total = -1;
	}
	if (given && mt_apply()) {          /* what was given so far stands */
		char why[256];
		why_not(why, sizeof why);
		snprintf(err, errlen, "cannot change the code: %.200s", why);
		total = -1;
	}
	mt_change_end(pass);
	int e = errno;
	free(copy);
	errno = e;
	return total;
}

/* function_graph's return values on or off (where there are). */
static int mt_set_retval(bool on)
{
	if (on && !MT_HAVE_RETVAL) {
		errno = ENOTSUP;
		return -1;
	}
	atomic_store(&mt_retval, on);
	return 0;
}

static int format_of(const char *f)
{
	return !strcmp(f, "text") ? MT_FMT_TEXT : !strcmp(f, "json") ? MT_FMT_JSON
		: !strcmp(f, "chrome") ? MT_FMT_CHROME : -1;
}

static int tracer_of(const char *t)
{
	return !strcmp(t, "function") ? MT_TRACER_FUNCTION
		: !strcmp(t, "function_graph") && MT_HAVE_GRAPH ? MT_TRACER_GRAPH : -1;
}

/* A whole document of the trace so far (show, the API): text and JSON
 * lines have no head (the text header is the file's), Chrome's has its
 * array opened and closed. */
static long drain_output(void);
static long write_doc(int fd, enum mt_fmt fmt, int wait_ms)
{
	if (mt_rec_dir >= 0) {
		/* (a recording's events are the recording's: drained there) */
		drain_output();
		return 0;
	}
	if (fmt == MT_FMT_CHROME)
		mt_write_header(fd, fmt, 0);
	/* (no lock held: the drain writes with none, and a show's style is
	 * each entry's own; its state is its own) */
	struct mt_doc_state st = MT_DOC_STATE_INIT;
	long n = mt_drain(fd, fmt, &st, false, wait_ms);
	int err = errno;
	mt_write_end(fd, fmt);
	errno = err;
	return n;
}

static void verb_filter(int fd, const char *args, int what)
{
	bool bad;
	char why[256];
	long n = filter_apply(args, what, &bad, why);
	if (n < 0 && bad)
		reply(fd, "error: %s\n", errno == EINVAL ? "no filter given, or a glob it cannot take (a leading !, an "
		      "empty :mod:)" : strerror(errno));
	else if (n < 0)
		reply(fd, "error: cannot change the code: %s\n", why);
	else
		reply(fd, "ok %ld\n", n);
}

/* A client that did not take the next 64 KiB of its answer in time. */
static void say_dropped(const char *verb)
{
	mt_msg("control socket: a client read too slowly: dropped (%d s to take each 64 KiB of a %s)%s",
	       MT_SEND_MS / 1000, verb, strcmp(verb, "show") ? "" : ", with the events it was sent");
}

/* A payload of len bytes, 64 KiB at a time, each within MT_SEND_MS (a
 * client that reads too slowly is dropped, and said: verb's). */
static void send_text(int fd, const char *text, size_t len, const char *verb)
{
	for (size_t at = 0; at < len;) {
		size_t k = len - at < 65536 ? len - at : 65536;
		if (mt_send_all(fd, text + at, k, MT_SEND_MS)) {
			if (errno == ETIMEDOUT)
				say_dropped(verb);
			break;
		}
		at += k;
	}
}

/* Written after the lock is released: a client that reads slowly must
 * not hold up the program's own calls to the API; it has MT_SEND_MS to
 * take each 64 KiB, as a show's. */
static void verb_list(int fd, const char *args)
{
	(void)args;
	char *text = NULL;
	size_t len = 0, n = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m) {
		reply(fd, "error: %s\n", strerror(errno));
		return;
	}
	pthread_mutex_lock(&mt_reg.lock);
	for (size_t i = 0; i < mt_reg.nfuncs; i++) {
		const struct mt_func *f = &mt_reg.funcs[i];
		const struct mt_object *o = mt_reg.objs[f->obj];
		if (!o->live || f->unfit)
			continue;
		n++;
		/* each as a glob that names it alone (the filters' syntax) */
		const char *name = mt_shown(f->name);
		size_t cap = 2 * strlen(name) + 1;
		char small[512], *q = cap <= sizeof small ? small : malloc(cap);
		if (q)
			mt_glob_quote(name, q, cap);
		if (o->main)
			fprintf(m, "%s\n", q ? q : name);
		else
			fprintf(m, "%s [%s]\n", q ? q : name, o->name);
		if (q != small)
			free(q);
	}
	pthread_mutex_unlock(&mt_reg.lock);
	if (fclose(m)) {
		free(text);
		reply(fd, "error: %s\n", strerror(errno));
		return;
	}
	reply(fd, "ok %zu\n", n);
	send_text(fd, text, len, "list");
	free(text);
}

static void verb_status(int fd, const char *args)
{
	(void)args;
	/* The registry's counts with its lock, then the threads' with the
	 * drain's (a reaped thread's counts move to mt_gone), never both
	 * held at once: the drain's comes first (rt.h).  Written after both
	 * are released: a client that reads slowly holds up no one. */
	pthread_mutex_lock(&mt_reg.lock);
	size_t objs = 0, funcs = 0, on = 0, hooked = 0, sites = 0, threads = 0, bad = mt_reg.bad_sites;
	char program[256];
	snprintf(program, sizeof program, "%s", mt_reg.nobjs ? mt_reg.objs[0]->name : "?");
	for (size_t i = 0; i < mt_reg.nobjs; i++)
		objs += mt_reg.objs[i]->live && mt_reg.objs[i]->table;
	for (size_t i = 0; i < mt_reg.nfuncs; i++) {
		funcs += mt_reg.objs[mt_reg.funcs[i].obj]->live;
		on += mt_reg.objs[mt_reg.funcs[i].obj]->live && mt_traced(&mt_reg.funcs[i]);
		hooked += mt_reg.objs[mt_reg.funcs[i].obj]->live && (mt_reg.funcs[i].hooks & ~MT_TRACED);
	}
	size_t nhooks = 0;
	for (int i = 1; i < MT_OPS_MAX; i++)
		nhooks += atomic_load(&mt_ops[i]) != NULL;
	struct mt_view *v = atomic_load(&mt_view);
	sites = v ? v->n : 0;
	size_t protos = mt_protos_count();
	char gfuncs[1024];
	snprintf(gfuncs, sizeof gfuncs, "%s", mt_gf_funcs_text());
	pthread_mutex_unlock(&mt_reg.lock);
	mt_output_lock();
	uint64_t buffered = 0, lost = mt_gone.lost, noshadow = mt_gone.noshadow, unwound = mt_gone.unwound,
		 wait_failed = mt_gone.wait_failed, untabled = mt_untabled_total(), recursion = mt_gone.recursion;
	for (struct mt_tbuf *b = atomic_load(&mt_tbufs); b; b = b->next) {
		threads++;
		buffered += (mt_seq)(atomic_load(&b->head) - atomic_load(&b->tail));
		lost += b->lost;
		noshadow += b->noshadow;
		unwound += b->unwound;
		wait_failed += b->wait_failed;
		recursion += b->recursion;
	}
	mt_output_unlock();
	reply(fd, "ok\n");
	reply(fd, "pid: %d\n", (int)getpid());
	reply(fd, "program: %s\n", program);
	reply(fd, "objects with tables: %zu\n", objs);
	reply(fd, "sites: %zu\n", sites);
	reply(fd, "sites refused: %zu\n", bad);
	reply(fd, "functions: %zu\n", funcs);
	reply(fd, "functions traced: %zu\n", on);
	reply(fd, "threads: %zu\n", threads);
	reply(fd, "events buffered: %llu\n", (unsigned long long)buffered);
	reply(fd, "events lost: %llu\n", (unsigned long long)(lost + atomic_load(&mt_nobuf_lost)));
	reply(fd, "threads with a small buffer (no memory): %lu\n", atomic_load(&mt_nobuf_threads));
	reply(fd, "tracer: %s\n", atomic_load(&mt_tracer) == MT_TRACER_GRAPH ? "function_graph" : "function");
	reply(fd, "calls not recorded, shadow stack full: %llu\n", (unsigned long long)noshadow);
	reply(fd, "frames left without returning: %llu\n", (unsigned long long)unwound);
	reply(fd, "function event prototypes: %zu\n", protos);
	reply(fd, "argument words of other functions: %d\n", atomic_load(&mt_args_raw));
	reply(fd, "return values: %s\n", atomic_load(&mt_retval) ? "on" : "off");
	reply(fd, "graph functions: %s\n", *gfuncs ? gfuncs : "(any)");
	reply(fd, "graph depth: %u\n", atomic_load(&mt_gf_depth));
	reply(fd, "time threshold: %llu%s\n", (unsigned long long)mt_gf_thresh_ns, mt_gf_thresh_ns ? "ns" : "");
	if (mt_full_wait)
		reply(fd, "full buffers waited for in vain (0.1 s): %llu\n", (unsigned long long)wait_failed);
	reply(fd, "calls from sites in no table (not traced): %llu\n", (unsigned long long)untabled);
	reply(fd, "hooks registered: %zu\n", nhooks);
	reply(fd, "functions hooked: %zu\n", hooked);
	reply(fd, "calls from hooks' callbacks (not hooked): %llu\n", (unsigned long long)recursion);
	reply(fd, "output: %s\n", out_fd >= 0 ? out_path : "(none)");
	reply(fd, "clock: %s\n", mt_use_tsc ? mt_cpu_clock_name() : "clock_gettime");
}

static void verb_show(int fd, const char *args)
{
	int fmt = format_of(*args ? args : "text");
	if (fmt < 0) {
		reply(fd, "error: unknown format '%s'\n", args);
		return;
	}
	reply(fd, "ok\n");
	if (write_doc(fd, (enum mt_fmt)fmt, MT_SEND_MS) < 0 && errno == ETIMEDOUT)
		say_dropped("show");
}

static void verb_tracer(int fd, const char *args)
{
	int t = *args ? tracer_of(args) : atomic_load(&mt_tracer);
	if (t < 0) {
		reply(fd, "error: unknown tracer '%s' (function or function_graph)\n", args);
		return;
	}
	set_tracer(t);
	reply(fd, "ok\n%s\n", t == MT_TRACER_GRAPH ? "function_graph" : "function");
}

static void verb_event(int fd, const char *args)
{
	char err[256];
	long changed = events_apply(args, err, sizeof err);
	if (changed < 0)
		reply(fd, "error: %s\n", err);
	else
		reply(fd, "ok %ld\n", changed);
}

static void verb_args(int fd, const char *args)
{
	char *end;
	long words = *args ? strtol(args, &end, 10) : atomic_load(&mt_args_raw);
	if (*args && MT_ARGS_LOCATED && !*end && words) {
		reply(fd, "error: raw argument words are not recorded on %s: give a prototype\n", mt_arch.name);
		return;
	}
	if (*args && (*end || words > MT_RAW_WORDS || mt_args_set_raw((int)words))) {
		reply(fd, "error: '%s' is not a number of argument words from 0 to %d\n", args, MT_RAW_WORDS);
		return;
	}
	reply(fd, "ok\n%ld\n", words);
}

static void verb_retval(int fd, const char *args)
{
	bool on = !strcmp(args, "on");
	if (*args && ((!on && strcmp(args, "off")) || mt_set_retval(on))) {
		reply(fd, "error: '%s': %s\n", args, MT_HAVE_RETVAL ? "not on or off"
		      : "return values are not recorded on this architecture");
		return;
	}
	reply(fd, "ok\n%s\n", atomic_load(&mt_retval) ? "on" : "off");
}

/* graph-function [GLOBS|off]: function_graph traces the calls under
 * the functions GLOBS names only (the globs before replaced); off: every
 * call.  Without: the globs. */
static void verb_graph_function(int fd, const char *args)
{
	if (!*args) {
		pthread_mutex_lock(&mt_reg.lock);
		reply(fd, "ok\n%s\n", mt_gf_funcs_text());
		pthread_mutex_unlock(&mt_reg.lock);
		return;
	}
	bool pass = mt_change_begin();
	long n = mt_gf_set_funcs(strcmp(args, "off") ? args : "");
	int e = errno;
	mt_change_end(pass);
	if (n < 0)
		reply(fd, "error: %s\n", e == EINVAL ? "a glob it cannot take (a leading !, an empty :mod:)" : strerror(e));
	else
		reply(fd, "ok %ld\n", n);
}

/* depth [N]: function_graph's calls at most N deep (0: any depth). */
static void verb_depth(int fd, const char *args)
{
	if (*args) {
		char *end;
		errno = 0;
		unsigned long n = strtoul(args, &end, 10);
		if (*end || errno || *args == '-' || *args == ' ' || n > 1000000) {
			reply(fd, "error: '%s' is not a depth from 0 to 1000000\n", args);
			return;
		}
		mt_gf_set_depth((unsigned)n);
	}
	reply(fd, "ok\n%u\n", atomic_load(&mt_gf_depth));
}

/* threshold [DURATION]: function_graph writes only the returns of the
 * calls that took at least DURATION (0: every call, as it was). */
static void verb_threshold(int fd, const char *args)
{
	if (*args) {
		int64_t ns = mt_parse_duration(args);
		if (ns < 0) {
			reply(fd, "error: '%s' is not a duration (10us, 1.5ms, ...; at most 1 hour)\n", args);
			return;
		}
		mt_gf_set_thresh((uint64_t)ns);
	}
	uint64_t ns = mt_gf_thresh_ns;
	reply(fd, "ok\n%llu%s\n", (unsigned long long)ns, ns ? "ns" : "");
}

static void verb_enable(int fd, const char *args) { verb_filter(fd, args, 1); }
static void verb_disable(int fd, const char *args) { verb_filter(fd, args, 0); }
static void verb_notrace(int fd, const char *args) { verb_filter(fd, args, 2); }
static void verb_stop(int fd, const char *args) { (void)args; verb_filter(fd, "*", 0); }

/* patch FUNCTION LIBRARY[:SYMBOL]: LIBRARY (an absolute path) loaded
 * into the process and FUNCTION's calls sent to its SYMBOL (FUNCTION's
 * own name by default): live patching (mcount_hook_redirect).  The
 * library must be a regular file, not a link, owned by the process's
 * user or root and writable by no one else: the process runs what it
 * holds.  Never in a process that runs with privileges or that is not
 * dumpable.  The library stays loaded for good: a call may still be on
 * its way there after an unpatch (RTLD_NODELETE). */
static void verb_patch(int fd, const char *args)
{
	/* two words: FUNCTION, LIBRARY[:SYMBOL] */
	char func[256], lib[PATH_MAX];
	size_t fl = strcspn(args, " "), at = fl + strspn(args + fl, " "), ll = strcspn(args + at, " ");
	if (!fl || fl >= sizeof func || !ll || ll >= sizeof lib || args[at + ll]) {
		reply(fd, "error: patch needs FUNCTION and LIBRARY[:SYMBOL]\n");
		return;
	}
	memcpy(func, args, fl);
	func[fl] = 0;
	memcpy(lib, args + at, ll);
	lib[ll] = 0;
	if (mt_secure()) {
		reply(fd, "error: the process runs with privileges: it loads no library on request\n");
		return;
	}
	const char *sym = func;
	char *colon = strrchr(lib, ':');
	if (colon && !strchr(colon, '/')) {
		*colon = 0;
		sym = colon + 1;
	}
	/* (a process its user may not look into: not made to load code by
	 * a request) */
	if (!prctl(PR_GET_DUMPABLE, 0, 0, 0, 0)) {
		reply(fd, "error: the process is not dumpable: it loads no library on request\n");
		return;
	}
	/* The file checked is the file loaded: opened without following
	 * a link, checked through the descriptor, loaded by it. */
	struct stat st;
	int lfd = lib[0] == '/' ? open(lib, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	if (lfd < 0 || fstat(lfd, &st)) {
		reply(fd, "error: %s: %s\n", lib, lib[0] != '/' ? "not an absolute path"
		      : errno == ELOOP ? "a symbolic link: give the file itself" : strerror(errno));
		if (lfd >= 0)
			close(lfd);
		return;
	}
	if (!S_ISREG(st.st_mode) || (st.st_uid != geteuid() && st.st_uid != 0) || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		reply(fd, "error: %s: %s\n", lib, !S_ISREG(st.st_mode) ? "not a regular file"
		      : "owned by another user, or writable by others: not loaded");
		close(lfd);
		return;
	}
	char byfd[64];
	snprintf(byfd, sizeof byfd, "/proc/self/fd/%d", lfd);
	/* (never unloaded: a call may still be on its way into it) */
	void *h = dlopen(byfd, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	close(lfd);
	if (!h) {
		const char *e = dlerror();
		reply(fd, "error: cannot load it: %s\n", e ? e : lib);
		return;
	}
	void *to = *sym ? dlsym(h, sym) : NULL;
	if (!to) {
		reply(fd, "error: %s: no symbol '%s'\n", lib, sym);
		dlclose(h);
		return;
	}
	if (mcount_hook_redirect(func, to)) {
		int e = errno;
		reply(fd, "error: '%s': %s\n", func,
		      e == ENOENT ? "no function of a table has that name (mcount-trace list shows them)"
		      : e == EBUSY ? "patched already (unpatch it first)"
		      : e == ENOTSUP ? "its call site is not at its entry (built with -pg but without -mfentry?): "
				       "cannot be redirected"
		      : e == EINVAL ? "names several functions (add :mod:MODULE), or the symbol is no code"
		      : strerror(e));
		return;
	}
	reply(fd, "ok\n");
}

static void verb_unpatch(int fd, const char *args)
{
	if (!*args || strchr(args, ' ')) {
		reply(fd, "error: unpatch needs FUNCTION\n");
		return;
	}
	if (mcount_hook_unredirect(args))
		reply(fd, "error: '%s': %s\n", args, errno == EINVAL ? "not patched, or it names several functions"
		      : errno == ENOENT ? "no function of a table has that name" : strerror(errno));
	else
		reply(fd, "ok\n");
}

/* stat on [GLOBS] | stat off [KEY] [COLUMNS] | stat [KEY] [COLUMNS]: the
 * function profiler (profile.c) started on the functions the globs name
 * (all: none given), stopped, and its table so far sorted by KEY (hits,
 * time, avg, s2, self; time by default) with the COLUMNS of the
 * kernel's table (kernel, the default) or of mcount-read's report
 * (report), the two words in either order. */
static void verb_stat(int fd, const char *args)
{
	size_t n = strcspn(args, " ");
	const char *rest = args + n + strspn(args + n, " ");
	if (n == 2 && !strncmp(args, "on", 2)) {
		if (mt_prof_start(rest))
			reply(fd, "error: %s\n", errno == EINVAL ? "a glob it cannot take (a leading !, an empty :mod:)"
			      : errno == ENOTSUP ? "the profiler is not available on this architecture" : strerror(errno));
		else
			reply(fd, "ok\n");
		return;
	}
	bool off = n == 3 && !strncmp(args, "off", 3);
	const char *words = off ? rest : args;
	int k = 1, cols = MT_PROF_KERNEL;
	bool have_k = false, have_cols = false;
	while (*words) {
		char w[16];
		size_t len = strcspn(words, " ");
		snprintf(w, sizeof w, "%.*s", (int)(len < sizeof w ? len : sizeof w - 1), words);
		int c = len < sizeof w ? mt_prof_columns_of(w) : -1;
		int kk = len < sizeof w ? mt_prof_sort_of(w) : -1;
		if (c >= 0 && !have_cols) {
			cols = c;
			have_cols = true;
		} else if (kk >= 0 && !have_k) {
			k = kk;
			have_k = true;
		} else {
			reply(fd, "error: unknown sort key '%.*s' (hits, time, avg, s2 or self)\n",
			      (int)len, words);
			return;
		}
		words += len + strspn(words + len, " ");
	}
	if (off && mt_prof_stop()) {
		reply(fd, "error: %s\n", errno == EINVAL ? "the profiler is not running" : strerror(errno));
		return;
	}
	if (!mt_prof_ran()) {
		reply(fd, "error: the profiler has not run (stat on)\n");
		return;
	}
	char *text = mt_prof_table(k, cols);
	if (!text) {
		reply(fd, "error: %s\n", strerror(ENOMEM));
		return;
	}
	reply(fd, "ok\n");
	send_text(fd, text, strlen(text), "stat");
	free(text);
}

/* The functions patched (a redirect), as globs that name each alone
 * (GLOB:mod:OBJECT), one a line: a string to free; *n their number
 * (registry lock held). */
static char *redirected(size_t *n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	*n = 0;
	if (!m)
		return NULL;
	for (size_t i = 0; i < mt_reg.nfuncs; i++) {
		const struct mt_func *f = &mt_reg.funcs[i];
		const struct mt_object *o = mt_reg.objs[f->obj];
		if (!o->live || !f->redirect)
			continue;
		size_t cap = 2 * strlen(f->name) + 1;
		char *q = malloc(cap);
		if (q)
			mt_glob_quote(f->name, q, cap);
		fprintf(m, "%s:mod:%s\n", q ? q : f->name, o->name);
		free(q);
		(*n)++;
	}
	if (fclose(m)) {
		free(text);
		return NULL;
	}
	return text;
}

static void end_channel(void);

/* detach [force]: tracing ended in this process and its channel closed,
 * the library left mapped (it cannot be unloaded safely: a thread may be
 * on its way through its hook or return trampoline, and the objects'
 * GOT slots name its hook): mcount-trace(1) DETACH.  Refused while a
 * hook of the process's own code is registered (mcount_hook_register:
 * that code's to unregister) and while a function is patched
 * (mcount-trace patch), naming them, unless force, which unpatches
 * them.  The requests under way end first (10 s at most), and none is
 * taken from then on; the profiler stops, every site becomes a NOP, and
 * the threads in a hook's callback are waited for (mt_grace); then the
 * control thread writes the rest of the trace and ends the channel, no
 * lock of the library's held, and the answer comes: "ok N", N the
 * functions that were switched off.  A later mcount-trace attach
 * starts it again (mt_attach_start). */
static void verb_detach(int fd, const char *args)
{
	bool force = !strcmp(args, "force");
	if (*args && !force) {
		reply(fd, "error: detach takes force or nothing, not '%s'\n", args);
		return;
	}
	int was = MT_ATTACH_RUNNING;
	if (!atomic_compare_exchange_strong(&mt_attach_state, &was, MT_ATTACH_DETACHING)) {
		reply(fd, "error: detached already, or detaching\n");
		return;
	}
	for (int ms = 0; atomic_load(&serving) > 1 && ms < 10000; ms++)
		poll(NULL, 0, 1);
	pthread_mutex_lock(&mt_reg.lock);
	size_t nred, nhooks = 0;
	char *patched = redirected(&nred);
	for (int i = 1; i < MT_OPS_MAX; i++)
		nhooks += atomic_load(&mt_ops[i]) != NULL;
	pthread_mutex_unlock(&mt_reg.lock);
	bool prof = mt_prof_on();
	nhooks -= prof && nhooks;
	const char *why = NULL;
	if (nhooks)
		why = "hooks are registered (mcount_hook_register) by code in the process: it must unregister them first";
	else if (nred && !force)
		why = "functions are patched (mcount-trace patch): unpatch them first, or detach --force to unpatch them";
	else if (nred && !patched)
		why = strerror(ENOMEM);
	if (why) {
		if (patched && nred)
			for (char *p = patched; (p = strchr(p, '\n'));)
				*p = p[1] ? ' ' : 0;
		if (nhooks)
			reply(fd, "error: %zu %s\n", nhooks, why);
		else if (nred && !force)
			reply(fd, "error: %zu %s: %s\n", nred, why, patched);
		else
			reply(fd, "error: %s\n", why);
		free(patched);
		atomic_store(&mt_attach_state, MT_ATTACH_RUNNING);
		return;
	}
	for (char *p = patched, *e; p && *p; p = e + 1) {
		e = strchr(p, '\n');
		*e = 0;
		if (mcount_hook_unredirect(p))
			mt_msg("detach: %s: cannot unpatch it: %s", p, strerror(errno));
	}
	free(patched);
	if (prof && mt_prof_stop())
		mt_msg("detach: the profiler does not stop: %s", strerror(errno));
	bool bad = false;
	char failed[256];
	/* (a process whose code cannot be changed has none to undo) */
	long n = atomic_load(&tracing_off) ? 0 : filter_apply("*", 0, &bad, failed);
	if (n < 0) {
		reply(fd, "error: cannot change the code: %s\n", bad ? strerror(errno) : failed);
		atomic_store(&mt_attach_state, MT_ATTACH_RUNNING);
		return;
	}
	mt_grace();
	/* the control thread ends the channel: waited for (a second at a
	 * time, while it runs) */
	uint64_t one = 1;
	if (wake_fd < 0 || write(wake_fd, &one, sizeof one) != sizeof one || !atomic_load(&control_running))
		end_channel();
	for (int st; (st = atomic_load(&mt_attach_state)) != MT_ATTACH_DETACHED;) {
		long ts[2] = { 1, 0 };
		mt_raw6(SYS_futex, (long)&mt_attach_state, FUTEX_WAIT_PRIVATE, st, (long)ts, 0, 0);
	}
	reply(fd, "ok %ld\n", n);
}

/* The verbs: each with its arguments (the rest of the line), and
 * whether a process whose code cannot be changed still answers it. */
static const struct {
	const char *name;
	void (*serve)(int fd, const char *args);
	bool when_off;
} verbs[] = {
	{ "list", verb_list, true },        { "status", verb_status, true },
	{ "enable", verb_enable, false },   { "disable", verb_disable, false },
	{ "notrace", verb_notrace, false }, { "stop", verb_stop, false },
	{ "show", verb_show, false },       { "tracer", verb_tracer, false },
	{ "event", verb_event, false },     { "args", verb_args, false },
	{ "retval", verb_retval, false },   { "patch", verb_patch, false },
	{ "unpatch", verb_unpatch, false }, { "stat", verb_stat, false },
	{ "detach", verb_detach, true },
	{ "graph-function", verb_graph_function, false }, { "depth", verb_depth, false },
	{ "threshold", verb_threshold, false },
};

/* One request line (without its newline), answered on fd. */
static void serve(int fd, char *line)
{
	char *args = strchr(line, ' ');
	if (args)
		*args++ = 0;
	else
		args = line + strlen(line);
	for (size_t i = 0; i < sizeof verbs / sizeof *verbs; i++) {
		if (strcmp(line, verbs[i].name))
			continue;
		atomic_fetch_add(&serving, 1);
		if (atomic_load(&mt_attach_state) >= MT_ATTACH_DETACHING)
			reply(fd, "error: the library is detaching from this process (mcount-trace detach)\n");
		else if (atomic_load(&tracing_off) && !verbs[i].when_off)
			reply(fd, "error: tracing is off in this process (its code cannot be changed)\n");
		else
			verbs[i].serve(fd, args);
		atomic_fetch_sub(&serving, 1);
		return;
	}
	reply(fd, "error: unknown request '%s'\n", line);
}

/* The connections: a request line is read by the control thread, with
 * every other connection's, for at most MT_REQ_MS from the accept; then
 * a thread of its own answers it, whose writes to the client wait at
 * most MT_SEND_MS for the client to take each 64 KiB.  So no client, idle,
 * dribbling or not reading, stalls the drain or another client.  At
 * most MT_CONN_MAX are open at once; one more is told so and closed. */
struct conn {
	atomic_int fd1;               /* the socket + 1; 0: a free slot */
	bool reading;                 /* the control thread's: reading the line (set
				       * before fd1, cleared before its thread starts) */
	uint64_t deadline;            /* of the request line (ns, CLOCK_MONOTONIC) */
	dev_t dev;                    /* what the socket is: the program may close */
	ino_t ino;                    /* its number and give it to a file of its own */
	size_t n;
	char line[4096];
};
static struct conn conns[MT_CONN_MAX];

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A short answer to a connection no thread serves: never waits. */
static void tell(int fd, const char *msg)
{
	ssize_t r = send(fd, msg, strlen(msg), MSG_DONTWAIT | MSG_NOSIGNAL);
	(void)r;
}

/* Is c's descriptor still its socket?  (A program that closes every
 * descriptor may have given the number to a file of its own.) */
static bool conn_ours(const struct conn *c)
{
	struct stat st;
	return !fstat(atomic_load(&c->fd1) - 1, &st) && st.st_dev == c->dev && st.st_ino == c->ino;
}

/* The slot is free before the socket is closed: a fork in between
 * leaves the child a copy it does not know of (closed at its exec),
 * never a number it would close that is no longer a connection.  A
 * number that is no longer the socket is not closed. */
static void conn_close(struct conn *c)
{
	int fd = atomic_load(&c->fd1) - 1;
	bool ours = conn_ours(c);
	atomic_store(&c->fd1, 0);
	if (ours)
		close(fd);
}

static void *conn_thread(void *arg)
{
	struct conn *c = arg;
	int fd = atomic_load(&c->fd1) - 1;
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	struct timeval tv = { MT_SEND_MS / 1000, 0 };
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	serve(fd, c->line);
	conn_close(c);
	return NULL;
}

static void conn_accept(void)
{
	for (int k = 0; k < 2 * MT_CONN_MAX; k++) {
		int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno == EBADF || errno == ENOTSOCK || errno == EINVAL) {
				/* The program closed the socket (and may reuse its
				 * number): the control channel is gone. */
				mt_msg("%s: closed by the program: no control channel", sock_path);
				listen_fd = -1;
			}
			return;
		}
		struct ucred cred;
		socklen_t cl = sizeof cred;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) || cred.uid != getuid()) {
			tell(fd, "error: permission denied\n");
			close(fd);
			continue;
		}
		struct conn *c = NULL;
		for (size_t i = 0; i < MT_CONN_MAX && !c; i++)
			if (!atomic_load(&conns[i].fd1))
				c = &conns[i];
		if (!c) {
			char msg[128];
			snprintf(msg, sizeof msg, "error: %d connections open already, the most there may be: "
				 "try again\n", MT_CONN_MAX);
			tell(fd, msg);
			close(fd);
			continue;
		}
		struct stat st;
		if (fstat(fd, &st)) {
			close(fd);
			continue;
		}
		c->n = 0;
		c->deadline = now_ns() + (uint64_t)MT_REQ_MS * 1000000u;
		c->dev = st.st_dev;
		c->ino = st.st_ino;
		c->reading = true;
		atomic_store(&c->fd1, fd + 1);
	}
}

/* What the connection c sent: a whole line goes to a thread of its own. */
static void conn_read(struct conn *c)
{
	int fd = atomic_load(&c->fd1) - 1;
	ssize_t r = read(fd, c->line + c->n, sizeof c->line - 1 - c->n);
	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (r <= 0) {
		if (c->n)
			tell(fd, "error: no request line\n");
		conn_close(c);
		return;
	}
	c->n += (size_t)r;
	c->line[c->n] = 0;
	char *nl = memchr(c->line, '\n', c->n);
	if (!nl) {
		if (c->n == sizeof c->line - 1) {
			char msg[80];
			snprintf(msg, sizeof msg, "error: a request of more than %zu bytes\n", sizeof c->line - 1);
			tell(fd, msg);
			conn_close(c);
		}
		return;
	}
	*nl = 0;
	c->reading = false;
	pthread_t t;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	int e = pthread_create(&t, &at, conn_thread, c);
	pthread_attr_destroy(&at);
	if (e) {
		char msg[160];
		snprintf(msg, sizeof msg, "error: no thread to answer with: %s\n", strerror(e));
		tell(fd, msg);
		conn_close(c);
	}
}

/* The events left in the threads' buffers dropped (taken as a drain
 * takes them, but not written), with their counts of events lost: a
 * detach's, which no show will take now, and those made by the calls
 * that were on their way at the detach, at an attach again. */
static void drop_events(void)
{
	mt_output_lock();
	for (struct mt_tbuf *b = atomic_load(&mt_tbufs); b; b = b->next) {
		atomic_store_explicit(&b->tail, atomic_load_explicit(&b->head, memory_order_acquire),
				      memory_order_release);
		b->lost_seen = b->lost;
	}
	mt_output_unlock();
}

/* The end of the channel at a detach, by the control thread: the rest
 * of the trace written and the document ended, as at the process's end
 * (finish), what no file took dropped, the output closed, the socket
 * removed and closed, the connections still reading their line closed;
 * then the thread ends. */
static void end_channel(void)
{
	finish();
	drop_events();
	pthread_mutex_lock(&file_lock);
	if (out_fd >= 0 && out_fd != 2 && out_fd != err_fd && out_fd_ours())
		close(out_fd);
	out_fd = -1;
	pthread_mutex_unlock(&file_lock);
	if (listen_fd >= 0)
		close(listen_fd);
	listen_fd = -1;
	sock_path[0] = 0;
	for (size_t i = 0; i < MT_CONN_MAX; i++)
		if (atomic_load(&conns[i].fd1) && conns[i].reading)
			conn_close(&conns[i]);
	if (wake_fd >= 0)
		close(wake_fd);
	wake_fd = -1;
	atomic_store(&control_running, 0);
	atomic_store(&mt_attach_state, MT_ATTACH_DETACHED);
	mt_raw6(SYS_futex, (long)&mt_attach_state, FUTEX_WAKE_PRIVATE, INT32_MAX, 0, 0, 0);
}

/* Serve requests; with an output file, drain the buffers every 20 ms,
 * and every millisecond while drains find events: a thread calling a
 * traced function every 100 ns fills a default buffer in 13 ms, and a
 * drain late by a few scheduler ticks on a busy machine would lose it. */
/* Are the buffers drained into a file (the output, or a recording)? */
static bool drains_to_file(void)
{
	return (out_path && *out_path) || mt_rec_dir >= 0;
}

static void *control_thread(void *arg)
{
	(void)arg;
	atomic_store(&mt_library_tid, (long)mt_raw6(SYS_gettid, 0, 0, 0, 0, 0, 0));
	int wait = drains_to_file() ? 20 : 1000;
	uint64_t drained = now_ns();
	for (;;) {
		struct pollfd p[1 + MT_CONN_MAX];
		struct conn *pc[1 + MT_CONN_MAX];
		nfds_t np = 0;
		uint64_t now = now_ns(), next = drained + (uint64_t)wait * 1000000u;
		if (atomic_load(&mt_attach_state) == MT_ATTACH_DETACHING && wake_fd >= 0) {
			uint64_t v;
			if (read(wake_fd, &v, sizeof v) == sizeof v) {
				end_channel();
				return NULL;
			}
		}
		if (wake_fd >= 0) {
			p[np] = (struct pollfd){ wake_fd, POLLIN, 0 };
			pc[np++] = NULL;
		}
		if (listen_fd >= 0) {
			p[np] = (struct pollfd){ listen_fd, POLLIN, 0 };
			pc[np++] = NULL;
		}
		for (size_t i = 0; i < MT_CONN_MAX; i++) {
			struct conn *c = &conns[i];
			if (!atomic_load(&c->fd1) || !c->reading)
				continue;
			if (!conn_ours(c)) {
				conn_close(c);        /* (forgotten, not closed) */
				continue;
			}
			if (now >= c->deadline) {
				char msg[80];
				snprintf(msg, sizeof msg, "error: no request line in %d s\n", MT_REQ_MS / 1000);
				tell(atomic_load(&c->fd1) - 1, msg);
				conn_close(c);
				continue;
			}
			if (c->deadline < next)
				next = c->deadline;
			p[np] = (struct pollfd){ atomic_load(&c->fd1) - 1, POLLIN, 0 };
			pc[np++] = c;
		}
		int ms = next > now ? (int)((next - now) / 1000000u) + 1 : 0;
		/* (an _exit's request: see exit_finish) */
		int r = poll(p, np, atomic_load(&exit_request) && !atomic_load(&exit_done) ? 0 : ms);
		if (atomic_load(&exit_request) && !atomic_load(&exit_done)) {
			finish();
			atomic_store(&exit_done, 1);
			mt_raw6(SYS_futex, (long)&exit_done, FUTEX_WAKE_PRIVATE, INT32_MAX, 0, 0, 0);
		}
		for (nfds_t i = 0; r > 0 && i < np; i++) {
			if (!p[i].revents)
				continue;
			if (pc[i])
				conn_read(pc[i]);
			else if (p[i].fd == listen_fd)
				conn_accept();
		}
		now = now_ns();
		if (now - drained < (uint64_t)wait * 1000000u)
			continue;
		drained = now;
		mt_hooks_reclaim();
		long n = drain_output();
		if (drains_to_file())
			wait = n > 0 && (uint64_t)n > mt_buffer_events / 64 ? 1 : 20;
		else
			mt_reap();
	}
	return NULL;
}

/* Does nothing listen on the socket at path?  (A process's socket where
 * the process is gone refuses a connection.) */
static bool nobody_listens(const char *path)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return false;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	int r = connect(fd, (struct sockaddr *)&a, sizeof a), e = errno;
	close(fd);
	return r && e == ECONNREFUSED;
}

/* The sockets left in the control directory by processes that are gone
 * without their end (killed, a fatal signal, the exit system call
 * itself) are removed by the next process that makes its own: a name
 * that is the PID of no process, of a socket of this user's on which
 * nothing listens (not one of a process in another PID namespace that
 * shares the directory).  dir holds sock_path's directory. */
static void sweep_stale(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		const char *n = e->d_name;
		if (n[0] < '1' || n[0] > '9' || strspn(n, "0123456789") != strlen(n) || strlen(n) > 9)
			continue;
		pid_t pid = (pid_t)atol(n);
		if (pid == getpid() || !kill(pid, 0) || errno != ESRCH)
			continue;
		char path[sizeof sock_path];
		struct stat st;
		if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, n) >= sizeof path || lstat(path, &st) ||
		    !S_ISSOCK(st.st_mode) || st.st_uid != getuid() || !nobody_listens(path))
			continue;
		if (kill(pid, 0) && errno == ESRCH)   /* (still no process: not one just made, its socket new) */
			unlink(path);
	}
	closedir(d);
}

/* The socket and the control thread; sweep: the directory's sockets of
 * processes gone removed first (a process the program starts does it,
 * not every child it forks). */
static void start_control(bool sweep)
{
	if (!control_on && !drains_to_file())
		return;
	if (control_on && !socket_path()) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		memcpy(a.sun_path, sock_path, sizeof a.sun_path);
		if (sweep) {
			char dir[sizeof sock_path];
			snprintf(dir, sizeof dir, "%s", sock_path);
			*strrchr(dir, '/') = 0;
			sweep_stale(dir);
		}
		unlink(sock_path);
		listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&a, sizeof a) ||
		    chmod(sock_path, 0600) || listen(listen_fd, 2 * MT_CONN_MAX)) {
			mt_msg("%s: %s: no control channel", sock_path, strerror(errno));
			if (listen_fd >= 0)
				close(listen_fd);
			listen_fd = -1;
			sock_path[0] = 0;
		}
	}
	/* The thread takes no signal of the program's (but SIGTRAP, which
	 * no thread may block: see patch.c). */
	sigset_t all, old;
	sigfillset(&all);
	sigdelset(&all, SIGTRAP);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/* (high, out of the way of a program's own dup2 onto 3, 4...) */
	int w = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	wake_fd = w >= 0 ? fcntl(w, F_DUPFD_CLOEXEC, 100) : -1;
	if (w >= 0 && wake_fd >= 0)
		close(w);
	else
		wake_fd = w;
	pthread_t t;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	atomic_store(&control_running, 1);
	if (pthread_create(&t, &at, control_thread, NULL)) {
		atomic_store(&control_running, 0);
		mt_msg("cannot start the control thread: no control channel");
	} else {
		pthread_setname_np(t, "mcount-trace");
	}
	pthread_attr_destroy(&at);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* ---- start-up and exit ---- */

/* Not the file's lock, which a drain holds while it writes the file:
 * the child makes its own file, and takes nothing of the parent's but
 * the path. */
static __thread bool fork_pass __attribute__((tls_model("initial-exec")));

static void atfork_prepare(void)
{
	fork_pass = mt_pass_lock();
	mt_output_lock();
	pthread_mutex_lock(&mt_reg.lock);
	mt_refresh_bypass(fork_pass); /* (for the child too) */
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&mt_reg.lock);
	mt_output_unlock();
	mt_pass_unlock(fork_pass);
}

/* The child's thread is not the owner of the parent's locks (a
 * recursive mutex refuses an unlock from another thread): made anew. */
static void atfork_child(void)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&mt_reg.pass, &a);
	pthread_mutex_init(&mt_reg.lock, &a);
	pthread_mutexattr_destroy(&a);
	mt_change_after_fork();
	mt_output_reinit();
	pthread_mutex_init(&file_lock, NULL);
	me = getpid();
	out_state = (struct mt_doc_state)MT_DOC_STATE_INIT;
	atomic_store(&finished, 0);
	atomic_store(&ends_seen, 0);
	/* (the parent's file: not the child's to name, if still due) */
	for (size_t i = 0; i < sizeof env_due / sizeof *env_due; i++)
		if (env_due[i].var && !strcmp(env_due[i].var, "MCOUNT_TRACE_OPENED"))
			env_due[i].var = NULL;
	atomic_store(&exit_request, 0);
	atomic_store(&exit_done, 0);
	atomic_store(&control_running, 0);  /* (the parent's thread: start_control makes its own) */
	mt_unwritten_events = 0;            /* (the parent's to say) */
	mt_untabled_events = 0;
	memset(write_errors_said, 0, sizeof write_errors_said);
	mt_patch_after_fork();
	mt_record_after_fork();
	mt_buffers_after_fork();
	mt_trace_after_fork();
	if (out_fd >= 0 && out_fd != 2 && out_fd != err_fd)
		close(out_fd);              /* (the copy of stderr: the child's too) */
	out_fd = -1;
	if (listen_fd >= 0)
		close(listen_fd);
	listen_fd = -1;
	sock_path[0] = 0;
	if (wake_fd >= 0)
		close(wake_fd);
	wake_fd = -1;
	/* the parent's clients: their answers are the parent's to give */
	for (size_t i = 0; i < MT_CONN_MAX; i++)
		if (atomic_load(&conns[i].fd1))
			conn_close(&conns[i]);
	atomic_store(&serving, 0);
	/* (detached: the child too, its end made already) */
	if (atomic_load(&mt_attach_state) >= MT_ATTACH_DETACHING) {
		atomic_store(&mt_attach_state, MT_ATTACH_DETACHED);
		atomic_store(&finished, 1);
		return;
	}
	start_control(false);
}

static bool apply_env(const char *var, int what)
{
	const char *v = mt_env(var);
	if (v && *v && mt_filter(v, what) < 0) {
		mt_msg("%s: '%s' is not a list of globs (GLOB or GLOB:mod:MODULE; no leading !)", var, v);
		return false;
	}
	return true;
}

/* A start-up filter that traces nothing in a program with a table (a
 * misspelt name) is said, by the first process only (not by every
 * program it runs, which get the variable too), once the objects are
 * read (registry lock held). */
static void say_empty_filter(void)
{
	const char *v = mt_env("MCOUNT_TRACE_FILTER");
	if (!v || !*v || getpid() != owner)
		return;
	for (size_t i = 0; i < mt_reg.nfuncs; i++)
		if (mt_traced(&mt_reg.funcs[i]) && mt_reg.objs[mt_reg.funcs[i].obj]->live)
			return;
	/* (a program with no table says nothing: a shell or make that runs
	 * the programs to trace, which get the variable) */
	size_t tables = 0;
	for (size_t i = 0; i < mt_reg.nobjs; i++)
		tables += mt_reg.objs[i]->live && mt_reg.objs[i]->table;
	if (tables)
		mt_msg("MCOUNT_TRACE_FILTER: '%s' traces no function (objects loaded later are searched too)", v);
}

/* A program with no table that calls no hook (built without -pg), none
 * of whose libraries has a table either, has nothing to trace (a
 * program that only loads a recorded library is traced there): said by
 * the process run starts, as it starts
 * (first: no MCOUNT_TRACE_OWNER came with it), not after an exec (the
 * last command of a shell's -c) nor by its children, nor by a program
 * that runs others (it calls an exec or spawn function: a shell or
 * make around the programs to trace, which get the variables too), nor
 * by one that links the library in (its calls of the hook are not in
 * GOT slots, so they cannot be told); registry lock held. */
static void say_no_hook(bool first)
{
	const struct mt_object *o = NULL;
	for (size_t i = 0; i < mt_reg.nobjs && !o; i++)
		if (mt_reg.objs[i]->main)
			o = mt_reg.objs[i];
	if (!first || mt_secure() || !o || !o->file || o->nhook_slots || o->ncallee_slots || o->own_hook ||
	    o->spawns || mt_in_exec(o, (uintptr_t)say_no_hook))
		return;
	for (size_t i = 0; i < mt_reg.nobjs; i++)
		if (mt_reg.objs[i]->live && mt_reg.objs[i]->table)
			return;
	mt_msg("%s: has no __mcount_loc table and calls no hook (built without -pg?), nor has a library it "
	       "loaded a table: nothing can be traced but in a library it opens later", o->name);
}

/* function_graph's filters from MCOUNT_TRACE_GRAPH_FUNCTION (globs;
 * lock held), MCOUNT_TRACE_DEPTH (N) and MCOUNT_TRACE_THRESHOLD (a
 * duration; no lock held: its conversion to the clock's ticks takes the
 * drain's).  A bad one is said and left unset. */
static void gfilter_from_env(void)
{
	const char *g = mt_env("MCOUNT_TRACE_GRAPH_FUNCTION");
	if (g && *g) {
		long n = mt_gf_set_funcs(g);
		if (n < 0)
			mt_msg("MCOUNT_TRACE_GRAPH_FUNCTION: '%s': %s", g,
			       errno == EINVAL ? "a glob it cannot take (a leading !, an empty :mod:)" : strerror(errno));
		else if (!n)
			mt_msg("MCOUNT_TRACE_GRAPH_FUNCTION: '%s' names no function (objects loaded later are searched too)",
			       g);
	}
}

static void gfilter_rest_from_env(void)
{
	const char *d = mt_env("MCOUNT_TRACE_DEPTH");
	if (d && *d) {
		char *end;
		errno = 0;
		unsigned long n = strtoul(d, &end, 10);
		if (*end || errno || *d == '-' || n > 1000000)
			mt_msg("MCOUNT_TRACE_DEPTH: '%s' is not a depth from 0 to 1000000: any depth it is", d);
		else
			mt_gf_set_depth((unsigned)n);
	}
	const char *t = mt_env("MCOUNT_TRACE_THRESHOLD");
	if (t && *t) {
		int64_t ns = mt_parse_duration(t);
		if (ns < 0)
			mt_msg("MCOUNT_TRACE_THRESHOLD: '%s' is not a duration (10us, 1.5ms, ...; at most 1 hour): "
			       "none it is", t);
		else
			mt_gf_set_thresh((uint64_t)ns);
	}
}

/* MCOUNT_TRACE_EVENTS: prototypes separated by ';', each on its own (a
 * bad one is told and left out). */
static void apply_env_events(void)
{
	const char *v = mt_env("MCOUNT_TRACE_EVENTS");
	char *copy = v && *v ? strdup(v) : NULL, *save = NULL, err[256];
	for (char *p = copy ? strtok_r(copy, ";", &save) : NULL; p; p = strtok_r(NULL, ";", &save))
		if (p[strspn(p, " \t\n")] && mt_proto_apply(p, err, sizeof err) < 0)
			mt_msg("MCOUNT_TRACE_EVENTS: %s", err);
	free(copy);
}

/* The end of the process comes at whichever of two runs last: the
 * library's destructor (mt_fini), which the dynamic linker's pass over
 * every object's finalisers runs at the library's turn (linked
 * statically: the program's last destructor), and end_late, a handler
 * registered at start-up with no object's handle, which exit runs after
 * every handler registered later.  Registered while the dynamic linker
 * runs the initialisers (preloaded, or linked in through
 * DT_PREINIT_ARRAY), that is after the dynamic linker's own handler,
 * that pass, which the C library registers once they have run: so the
 * destructors and static objects' destructors of every object, and the
 * handlers registered after the library's start-up, are traced.  The
 * first of the two writes what there is so far (ends_due, ends_seen). */
static void end_one(void)
{
	if (atomic_fetch_add(&ends_seen, 1) + 1 >= atomic_load(&ends_due))
		finish();
	else
		drain_output();
}

static void end_late(void *arg)
{
	(void)arg;
	end_one();
}

/* Start-up, before any other initialiser of the process's: preloaded,
 * the library is its DF_1_INITFIRST object (-z initfirst), which the
 * dynamic linker initialises first, before the C library even, so that
 * the constructors of the program's libraries are traced (glibc gives
 * the place to the last object loaded that asks for it: mcount-trace(1));
 * linked in, a DT_PREINIT_ARRAY entry of the program's runs this
 * (mt_preinit), and the constructor at its own place only sets what had
 * to wait for the C library's initialiser (env_now).  The C library
 * gives each initialiser the environment the process started with
 * (envp).
 *
 * The same start-up again (again) where mcount-trace detach ended the
 * library's tracing and an attach starts it anew (mt_attach_start):
 * what is made once for the process (the exit handler, the clock, the
 * writer of the code and the SIGTRAP handler, the fork handlers) is
 * kept, the rest made again from the environment as at first: the
 * variables read, the tracer, argument words and return values as they
 * say (their defaults if unset), the objects read again and the pass
 * made, the output opened, the control thread and socket started. */
static void start_up(char **envp, bool again)
{
	if (!again) {
		/* (environ is set by the C library's initialiser; a
		 * program's own clearenv() before this is read as if it had
		 * not run, harmlessly) */
		if (!environ && envp)
			mt_env_early(envp);
		if (!__cxa_atexit(end_late, NULL, NULL))
			atomic_store(&ends_due, 2);
	} else {
		atomic_store(&finished, 0);
		out_ended = false;
		out_state = (struct mt_doc_state)MT_DOC_STATE_INIT;
		atomic_store(&exit_request, 0);
		atomic_store(&exit_done, 0);
		free(out_path);
		out_path = NULL;
		mt_args_set_raw(0);
		mt_set_retval(false);
		drop_events();
	}
	me = getpid();
	const char *own = mt_env("MCOUNT_TRACE_OWNER");
	bool first = !own || !*own;
	owner = own && *own ? (pid_t)atol(own) : getpid();
	if ((!own || !*own) && !mt_secure())
		set_env_me("MCOUNT_TRACE_OWNER");     /* (a privileged program's environment is its own) */
	const char *b = mt_env("MCOUNT_TRACE_BUFFER");
	if (b && *b) {
		char *end;
		unsigned long long n = strtoull(b, &end, 10);
		if (*end || n < 16 || n > (1ull << 30))
			mt_msg("MCOUNT_TRACE_BUFFER: '%s' is not a number of events from 16 to 2^30", b);
		else
			mt_buffer_events = n;
	}
	const char *f = mt_env("MCOUNT_TRACE_FORMAT");
	int fmt = f && *f ? format_of(f) : MT_FMT_TEXT;
	if (fmt < 0)
		mt_msg("MCOUNT_TRACE_FORMAT: '%s' is not text, json or chrome: text it is", f);
	out_fmt = fmt < 0 ? MT_FMT_TEXT : (enum mt_fmt)fmt;
	const char *tr = mt_env("MCOUNT_TRACE_TRACER");
	int tracer = tr && *tr ? tracer_of(tr) : MT_TRACER_FUNCTION;
	if (tracer < 0 && !strcmp(tr, "function_graph"))
		mt_msg("MCOUNT_TRACE_TRACER: no function_graph on %s yet: function it is", mt_arch.name);
	else if (tracer < 0)
		mt_msg("MCOUNT_TRACE_TRACER: '%s' is neither function nor function_graph: function it is", tr);
	mt_trace_init(tracer < 0 ? MT_TRACER_FUNCTION : tracer);
	const char *na = mt_env("MCOUNT_TRACE_ARGS");
	if (na && *na) {
		char *end;
		long n = strtol(na, &end, 10);
		if (MT_ARGS_LOCATED && !*end && n)
			mt_msg("MCOUNT_TRACE_ARGS: raw argument words are not recorded on %s: give a prototype",
			       mt_arch.name);
		else if (*end || n > MT_RAW_WORDS || mt_args_set_raw((int)n))
			mt_msg("MCOUNT_TRACE_ARGS: '%s' is not a number of argument words from 0 to %d", na, MT_RAW_WORDS);
	}
	const char *rv = mt_env("MCOUNT_TRACE_RETVAL");
	if (rv && *rv && ((strcmp(rv, "0") && strcmp(rv, "1")) || mt_set_retval(*rv == '1')))
		mt_msg("MCOUNT_TRACE_RETVAL: '%s': %s", rv, MT_HAVE_RETVAL ? "neither 0 nor 1: 0 it is"
		       : "return values are not recorded on this architecture");
	/* (no socket in a privileged program: its user would read and
	 * change it with the program's privileges) */
	const char *c = mt_env("MCOUNT_TRACE_CONTROL");
	control_on = !(c && !strcmp(c, "0")) && !mt_secure();
	const char *o = mt_env("MCOUNT_TRACE_OUTPUT");
	out_path = o ? strdup(o) : NULL;
	if (out_path && !strcmp(out_path, "-") && err_fd == 2)
		keep_stderr();
	const char *full = mt_env("MCOUNT_TRACE_FULL");
	const char *rec = again ? NULL : mt_env("MCOUNT_TRACE_RECORD");
	if (rec && !*rec)
		rec = NULL;
	if (rec && out_path) {
		mt_msg("MCOUNT_TRACE_RECORD and MCOUNT_TRACE_OUTPUT: the recording it is");
		free(out_path);
		out_path = NULL;
	}
	if (full && *full && strcmp(full, "drop") && strcmp(full, "wait"))
		mt_msg("MCOUNT_TRACE_FULL: '%s' is neither drop nor wait: drop it is", full);
	else if (full && !strcmp(full, "wait") && !(out_path && *out_path) && !rec)
		mt_msg("MCOUNT_TRACE_FULL=wait: no MCOUNT_TRACE_OUTPUT to drain the buffers into: drop it is");
	else
		mt_full_wait = full ? !strcmp(full, "wait") : rec != NULL;
	if (!again)
		mt_clock_init();
#ifdef MT_SHARED
	/* dlopen()ed after start-up (mcount-trace attach), not preloaded:
	 * not in the global scope, whose hook (the first of mt_hooks's
	 * names) is then another object's than ours (the C library's), and
	 * than the program's own (a program with its own hook keeps it);
	 * the objects' hook GOT slots hold that one, and each pass gives
	 * them ours (patch.c) */
	if (mt_arch.hook_names) {
		void *h = dlsym(RTLD_DEFAULT, mt_arch.hook_names[0]);
		Dl_info hi, pi;
		mt_late = h && (uintptr_t)h != mt_hooks[0] && dladdr(h, &hi) &&
			dladdr((void *)getauxval(AT_ENTRY), &pi) && hi.dli_fbase != pi.dli_fbase;
	}
#endif

	pthread_mutex_lock(&mt_reg.pass);
	pthread_mutex_lock(&mt_reg.lock);
	if (atomic_load(&tracing_off) || (!again && mt_patch_init())) {
		mt_msg("/proc/self/mem: %s: the code cannot be changed, nothing is traced", strerror(errno));
		atomic_store(&tracing_off, true);
	} else {
		apply_env("MCOUNT_TRACE_NOTRACE", 2);
		bool filter_ok = apply_env("MCOUNT_TRACE_FILTER", 1);
		apply_env_events();
		if (mt_refresh())
			mt_msg("cannot change the code: %s", strerror(errno));
		gfilter_from_env();
		if (filter_ok)
			say_empty_filter();
		say_no_hook(first);
	}
	pthread_mutex_unlock(&mt_reg.lock);
	pthread_mutex_unlock(&mt_reg.pass);
	gfilter_rest_from_env();
	/* (a recording's directory: each process's own, from its start) */
	if (rec && mt_record_open(rec))
		mt_full_wait = full && !strcmp(full, "wait") && out_path;
	if (getpid() == owner)
		open_output();        /* the others' files, at their first event */
	if (!again) {
#ifdef MT_SHARED
		exit_real_init();
#endif
		atomic_store(&mt_ready, !atomic_load(&tracing_off));
		pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	}
	start_control(true);
	stat_from_env();
	atomic_store(&mt_attach_state, MT_ATTACH_RUNNING);
}

__attribute__((constructor(101))) static void mt_init(int argc, char **argv, char **envp)
{
	static bool done;
	(void)argc;
	(void)argv;
	if (done) {
		env_now();
		return;
	}
	done = true;
	start_up(envp, false);
}

/* mcount-attach's call, in a thread of a process the library is mapped
 * in, once it has read mt_attach_state: the start-up again after a
 * detach.  (Its thread was stopped out of the dynamic linker, malloc
 * and this library's code.) */
int mt_attach_start(void)
{
	int was = MT_ATTACH_DETACHED;
	if (atomic_compare_exchange_strong(&mt_attach_state, &was, MT_ATTACH_STARTING)) {
		start_up(environ, true);
		return 0;
	}
	return was == MT_ATTACH_DETACHING ? -1 : 1;
}

/* MCOUNT_TRACE_STAT=GLOBS (mcount-trace run --stat): the profiler from
 * the start, on those functions ("" or "*": every one), its table on
 * standard error at the end, sorted by MCOUNT_TRACE_STAT_SORT, with the
 * columns MCOUNT_TRACE_STAT_COLUMNS names (kernel, report). */
static const char *stat_env;

static void stat_from_env(void)
{
	stat_env = mt_env("MCOUNT_TRACE_STAT");
	if (!stat_env || getpid() != owner)
		return;
	if (!atomic_load(&mt_ready) || mt_prof_start(strcmp(stat_env, "*") ? stat_env : "")) {
		mt_msg("MCOUNT_TRACE_STAT: '%s': %s", stat_env,
		       !atomic_load(&mt_ready) ? "the code cannot be changed" : strerror(errno));
		stat_env = NULL;
	}
}

static void stat_report(void)
{
	if (!stat_env || getpid() != owner || mt_prof_stop())
		return;
	const char *key = mt_env("MCOUNT_TRACE_STAT_SORT");
	int k = key && *key ? mt_prof_sort_of(key) : 1;
	const char *cols = mt_env("MCOUNT_TRACE_STAT_COLUMNS");
	int c = cols && *cols ? mt_prof_columns_of(cols) : MT_PROF_KERNEL;
	char *text = mt_prof_table(k < 0 ? 1 : k, c < 0 ? MT_PROF_KERNEL : c);
	if (text) {
		mt_msg("the function profile (MCOUNT_TRACE_STAT):");
		mt_write_all(2, text, strlen(text));
	}
	free(text);
}

/* The end of the process, once: the rest of the trace written (a Chrome
 * document closed), the socket removed, the counts said. */
static void finish(void)
{
	if (unseen_child())
		return;               /* nothing here is its own */
	if (atomic_exchange(&finished, 1))
		return;
	pthread_mutex_lock(&file_lock);
	drain_locked();
	mt_record_end();
	if (out_fd >= 0)
		mt_write_end(out_fd, out_fmt);     /* a program it execs does not get here */
	out_ended = true;
	pthread_mutex_unlock(&file_lock);
	if (sock_path[0])
		unlink(sock_path);
	mt_output_lock();             /* (a thread reaped moves its counts) */
	uint64_t lost = mt_gone.lost, untabled = mt_untabled_total();
	for (struct mt_tbuf *t = atomic_load(&mt_tbufs); t; t = t->next)
		lost += t->lost;
	mt_output_unlock();
	if (lost && out_fd >= 0)
		mt_msg("%llu events lost: their threads' buffers were full (MCOUNT_TRACE_BUFFER)",
		       (unsigned long long)lost);
	if (untabled && out_fd >= 0)
		mt_msg("%llu calls from sites in no table were not traced (code built with -pg but not recorded)",
		       (unsigned long long)untabled);
	pthread_mutex_lock(&file_lock);
	if (mt_unwritten_events)
		mt_msg("%s: %llu events lost: they could not be written (%s)",
		       !out_path ? "the trace" : strcmp(out_path, "-") ? out_path : "standard error",
		       (unsigned long long)mt_unwritten_events, strerror(write_errors_said[0]));
	say_nobuf(true);
	pthread_mutex_unlock(&file_lock);
}

__attribute__((destructor(101))) static void mt_fini(void)
{
	stat_report();
	end_one();
}

#ifndef MT_SHARED
/* Linked in: the start-up at the program's DT_PREINIT_ARRAY, which
 * only a program may have (a shared object cannot take the archive). */
__attribute__((section(".preinit_array"), used)) static void (*mt_preinit)(int, char **, char **) = mt_init;
#endif

/* _exit and _Exit run neither atexit handlers nor destructors, so the
 * end of the process is brought about here.  Not by the thread that
 * exits, which may be in a signal handler that stopped it in malloc or
 * holding a lock of the library's: it removes the socket itself
 * (unlink may be called there) and leaves the rest to the control
 * thread, which runs no signal handler and holds nothing while it
 * waits (it sees the request within a drain's period, 20 ms).  This
 * thread waits for that while the drain is getting on, and goes on to
 * exit after two seconds in which it did not (a busy machine may keep
 * the control thread waiting for a CPU that long).  Nothing to write
 * (no trace file, nothing recorded): no wait.  A process made without the
 * library's knowing (vfork, a raw clone: unseen_child) does nothing:
 * the memory may be its parent's. */
static void exit_finish(void)
{
	if (unseen_child() || atomic_load(&finished))
		return;
	if (sock_path[0])
		unlink(sock_path);
	if (mt_rec_dir < 0 && !(out_path && *out_path && !out_ended && (out_fd >= 0 || events_pending())))
		return;
	if (!atomic_load(&control_running)) {
		finish();
		return;
	}
	atomic_store(&exit_request, 1);
	unsigned long seen = atomic_load(&mt_drain_progress);
	for (int idle = 0; !atomic_load(&exit_done) && idle < 20;) {
		long ts[2] = { 0, 100000000 };  /* the kernel's timespec: 0.1 s */
		mt_raw6(SYS_futex, (long)&exit_done, FUTEX_WAIT_PRIVATE, 0, (long)ts, 0, 0);
		unsigned long now = atomic_load(&mt_drain_progress);
		idle = now == seen ? idle + 1 : 0;
		seen = now;
	}
}

/* ---- the C API ---- */

static int api_filter(const char *filter, int what)
{
	if (atomic_load(&tracing_off)) {
		errno = EPERM;
		return -1;
	}
	bool bad;
	return (int)filter_apply(filter, what, &bad, NULL);
}

int mcount_trace_enable(const char *filter) { return api_filter(filter, 1); }
int mcount_trace_disable(const char *filter) { return api_filter(filter, 0); }
int mcount_trace_notrace(const char *filter) { return api_filter(filter, 2); }
int mcount_trace_stop(void) { return api_filter("*", 0); }
long mcount_trace_write(int fd, int format)
{
	if (format < MCOUNT_TRACE_TEXT || format > MCOUNT_TRACE_CHROME) {
		errno = EINVAL;
		return -1;
	}
	/* (a descriptor that cannot be written: the events stay for the
	 * next call; a write that fails on the way loses what it took) */
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
		errno = EBADF;
		return -1;
	}
	return write_doc(fd, (enum mt_fmt)format, -1);
}

int mcount_trace_event(const char *protos)
{
	if (atomic_load(&tracing_off)) {
		errno = EPERM;
		return -1;
	}
	char err[256];
	long n = events_apply(protos, err, sizeof err);
	if (n < 0) {
		int e = errno;
		mt_msg("mcount_trace_event: %s", err);
		errno = e;
	}
	return (int)n;
}

int mcount_trace_set_args(int n)
{
	return mt_args_set_raw(n);
}

int mcount_trace_set_retval(int on)
{
	return mt_set_retval(on != 0);
}

int mcount_trace_set_tracer(const char *name)
{
	int t = name ? tracer_of(name) : -1;
	if (t < 0) {
		errno = EINVAL;
		return -1;
	}
	set_tracer(t);
	return 0;
}

#ifdef MCOUNT_NOPLT_H
/* Linked without the start files (noplt.h): the handle by which the C
 * library knows this object's atfork handlers. */
void *__dso_handle __attribute__((visibility("hidden"))) = &__dso_handle;

/* The copies GCC makes by calls of its own (a structure's assignment
 * or initialisation), which would go through the PLT: this object's
 * own, byte by byte (no loop GCC would make a call again). */
__attribute__((visibility("hidden"), optimize("no-tree-loop-distribute-patterns")))
void *(memcpy)(void *restrict d, const void *restrict s, size_t n)
{
	unsigned char *o = d;
	const unsigned char *i = s;
	while (n--)
		*o++ = *i++;
	return d;
}
__attribute__((visibility("hidden"), optimize("no-tree-loop-distribute-patterns")))
void *(memset)(void *d, int c, size_t n)
{
	unsigned char *o = d;
	while (n--)
		*o++ = (unsigned char)c;
	return d;
}
#endif

#ifndef MT_SHARED
/* Linked in, _exit cannot be wrapped but at the link: a program linked
 * with -Wl,--wrap=_exit,--wrap=_Exit calls these instead
 * (mcount-trace(1)), which end it as the C library's do. */
void __wrap__exit(int status) __attribute__((noreturn));
void __wrap__Exit(int status) __attribute__((noreturn));

void __wrap__exit(int status)
{
	exit_finish();
	for (;;)
		mt_raw6(SYS_exit_group, status, 0, 0, 0, 0, 0);
}

void __wrap__Exit(int status)
{
	__wrap__exit(status);
}
#endif

/* ---- exec and dlopen (the preloaded library) ---- */

#ifdef MT_SHARED
#include <dlfcn.h>

#define REAL(name) \
	static __typeof__(name) *real_##name; \
	if (!real_##name) \
		real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

/* The program's start, called by its _start once every library's
 * initialiser has run (the dynamic linker's), before its own
 * constructors: what the library's start-up could not set in the
 * environment before the C library's initialiser, set now (env_now).
 * Its arguments are seven words on every architecture, passed on. */
typedef uintptr_t mt_word;
int __libc_start_main(mt_word a, mt_word b, mt_word c, mt_word d, mt_word e, mt_word f, mt_word g);
int __libc_start_main(mt_word a, mt_word b, mt_word c, mt_word d, mt_word e, mt_word f, mt_word g)
{
	REAL(__libc_start_main);
	env_now();
	return real___libc_start_main(a, b, c, d, e, f, g);
}

/* exec replaces the process without running destructors: write the
 * trace first (and set in the environment what is due: env_now). */
int execve(const char *path, char *const argv[], char *const envp[])
{
	REAL(execve);
	env_now();
	drain_output();
	return real_execve(path, argv, envp);
}

int execv(const char *path, char *const argv[])
{
	REAL(execv);
	env_now();
	drain_output();
	return real_execv(path, argv);
}

int execvp(const char *file, char *const argv[])
{
	REAL(execvp);
	env_now();
	drain_output();
	return real_execvp(file, argv);
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
	REAL(execvpe);
	env_now();
	drain_output();
	return real_execvpe(file, argv, envp);
}

/* The execl family builds its argv and goes through the above. */
static char **collect_args(const char *arg0, va_list ap, char ***envp)
{
	size_t n = 1, cap = 16;
	char **argv = malloc(cap * sizeof *argv);
	if (!argv)
		return NULL;
	argv[0] = (char *)arg0;
	for (char *a = arg0 ? va_arg(ap, char *) : NULL;; a = va_arg(ap, char *)) {
		if (n + 1 >= cap) {
			char **nv = realloc(argv, (cap *= 2) * sizeof *nv);
			if (!nv) {
				free(argv);
				return NULL;
			}
			argv = nv;
		}
		argv[n++] = a;
		if (!a)
			break;
	}
	if (!arg0)
		argv[n++] = NULL;
	if (envp)
		*envp = va_arg(ap, char **);
	return argv;
}

/* argv from the list, then the vector form (which writes the trace). */
static int exec_list(int (*exec_v)(const char *, char *const[]), const char *p, const char *arg,
		     va_list ap)
{
	char **argv = collect_args(arg, ap, NULL);
	if (!argv)
		return -1;
	int r = exec_v(p, argv);
	free(argv);
	return r;
}

int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	int r = exec_list(execv, path, arg, ap);
	va_end(ap);
	return r;
}

int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	int r = exec_list(execvp, file, arg, ap);
	va_end(ap);
	return r;
}

int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	char **envp;
	va_start(ap, arg);
	char **argv = collect_args(arg, ap, &envp);
	va_end(ap);
	if (!argv)
		return -1;
	int r = execve(path, argv, envp);
	free(argv);
	return r;
}

int fexecve(int fd, char *const argv[], char *const envp[])
{
	REAL(fexecve);
	env_now();
	drain_output();
	return real_fexecve(fd, argv, envp);
}

/* _exit, _Exit: the end of the process first (exit_finish); the C
 * library's (or the next interposer's: a sanitizer's) found at start-up,
 * since dlsym may take locks and _exit may be called in a signal
 * handler. */
static void (*real__exit)(int), (*real__Exit)(int);

static void exit_real_init(void)
{
	real__exit = (void (*)(int))dlsym(RTLD_NEXT, "_exit");
	real__Exit = (void (*)(int))dlsym(RTLD_NEXT, "_Exit");
}

/* The end of the process, then the C library's own (or the system
 * call, had it none). */
static void __attribute__((noreturn)) end_by(void (*real)(int), int status)
{
	exit_finish();
	if (real)
		real(status);
	for (;;)
		mt_raw6(SYS_exit_group, status, 0, 0, 0, 0, 0);
}

void _exit(int status)
{
	end_by(real__exit, status);
}

void _Exit(int status)
{
	end_by(real__Exit, status);
}

/* A dlopen()ed object's sites become NOPs (or traced, by the filters so
 * far) before dlopen() returns; an object dlclose() unloads leaves the
 * registry before any pass can see what is mapped at its addresses
 * next.  The C library's dlclose runs the objects' destructors, which
 * may call the API (and write the trace: a drain, which names events
 * with the registry's lock): only the pass lock is held across it
 * (rt.h: the order of the locks; change.c: a constructor's or
 * destructor's pass while another thread's dlclose() waits). */
void *dlopen(const char *file, int flags)
{
	REAL(dlopen);
	mt_dl_enter();
	void *h = real_dlopen(file, flags);
	mt_dl_leave();
	if (h && atomic_load(&mt_ready)) {
		bool pass = mt_pass_lock();
		pthread_mutex_lock(&mt_reg.lock);
		if (mt_refresh())
			mt_msg("%s: cannot change its code: %s", file ? file : "(program)", strerror(errno));
		pthread_mutex_unlock(&mt_reg.lock);
		mt_pass_unlock(pass);
		mt_hooks_reclaim();
		mt_record_tables();
	}
	return h;
}

int dlclose(void *h)
{
	REAL(dlclose);
	bool pass = mt_close_begin();
	int r = real_dlclose(h);
	mt_close_end(pass);
	mt_hooks_reclaim();
	return r;
}
#endif /* MT_SHARED */

/* ---- unwinding through hijacked frames (function_graph, exit hooks) ----
 *
 * An unwinder that meets the return trampoline finds no frame
 * information there and stops: a C++ exception would end in
 * std::terminate, pthread_exit() would skip the rest.  So each way into
 * the unwinder gives the calling thread's live hijacked frames their
 * return addresses back first (and marks those below the caller, left
 * already, as unwound); the handler that catches an exception hooks the
 * survivors again.  These are the entry points a program or libstdc++
 * calls through the PLT; glibc's cancellation reaches the unwinder from
 * inside (see mcount-trace(1)).
 *
 * Linked in (libmcount-trace.a), the unwinder's entry points and
 * __cxa_begin_catch are defined weak: a dynamically linked program
 * exports them to libstdc++ (its PLT calls) and its own landing pads
 * and handlers call them; one that links libgcc and libstdc++ in
 * (-static, -static-libstdc++) gets their own, which its link brings in
 * for other symbols of the same objects (dlsym would find no next
 * definition there), and an exception through a hijacked frame ends in
 * std::terminate, as before.  The personality routine and pthread_exit are the preloaded
 * library's only: a static link need not bring in the real ones for
 * another symbol, and would keep wrappers with nothing behind them.
 * Without the personality's wrapper, the frames below a landing pad are
 * marked unwound when the pad resumes the unwinding or its handler
 * catches, after the pad's own calls.  The caller's stack pointer: two words
 * above this function's frame pointer on x86 (64 and 32-bit); elsewhere, where the
 * frame record need not be at the top of the frame, this function's CFA
 * (ppc64le: past the slot the caller's callees share).
 * Only where function_graph is: elsewhere no frame is ever hijacked. */
#if MT_HAVE_GRAPH
#if defined(__x86_64__) || defined(__i386__)
#define CALLER_SP() ((uintptr_t)__builtin_frame_address(0) + 2 * sizeof(void *))
#elif defined(__powerpc64__)
/* ppc64le: a frame's slot is 16 bytes into its caller's frame, and the
 * caller's own callees share the slot at its sp + 16: the caller's live
 * frames have their slots above that. */
#define CALLER_SP() ((uintptr_t)__builtin_dwarf_cfa() + 24)
#elif defined(__powerpc__)
/* ppc32: the same at 4 bytes into the caller's frame */
#define CALLER_SP() ((uintptr_t)__builtin_dwarf_cfa() + 8)
#else
#define CALLER_SP() ((uintptr_t)__builtin_dwarf_cfa())
#endif
#if MT_KEY_IS_SLOT && defined(__powerpc64__)
/* The frames live at a landing pad: from the slot of its function's
 * return address, 16 bytes into its caller's frame, at the CFA the
 * unwinder gives. */
#define PAD_LIVE(cfa) ((cfa) + 16)
#elif MT_KEY_IS_SLOT && defined(__powerpc__)
/* ppc32: 4 bytes into it */
#define PAD_LIVE(cfa) ((cfa) + 4)
#elif MT_KEY_IS_SLOT && defined(__s390x__)
/* The frames live at a landing pad: from its function's slot, 8 bytes
 * into the register save area at the r15 it was entered with, which is
 * 160 bytes below the CFA the unwinder gives (the ABI's CFA). */
#define PAD_LIVE(cfa) ((cfa) - 160 + 8)
#elif MT_KEY_IS_SLOT
/* The frames live at a landing pad: from the slot of the return address
 * into its frame (just below the CFA the unwinder gives). */
#define PAD_LIVE(cfa) ((cfa) - sizeof(void *))
#else
/* The frames live at a landing pad: those whose frame record is at or
 * above its frame's stack pointer (the CFA the unwinder gives is that
 * of the frame below, the one left). */
#define PAD_LIVE(cfa) (cfa)
#endif

#ifdef MT_SHARED
#define MT_UNW
#else
#define MT_UNW __attribute__((weak))
#endif

struct _Unwind_Exception;
typedef int (*mt_unw_fn)(struct _Unwind_Exception *);

static void *real_sym(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (!f) {
		mt_msg("%s: not found after libmcount-trace: cannot go on", name);
		abort();
	}
	return f;
}

MT_UNW int _Unwind_RaiseException(struct _Unwind_Exception *e);
int _Unwind_RaiseException(struct _Unwind_Exception *e)
{
	static mt_unw_fn real;
	if (!real)
		real = (mt_unw_fn)real_sym("_Unwind_RaiseException");
	mt_shadow_unhook(CALLER_SP(), false);
	return real(e);
}

MT_UNW int _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e);
int _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e)
{
	static mt_unw_fn real;
	if (!real)
		real = (mt_unw_fn)real_sym("_Unwind_Resume_or_Rethrow");
	mt_shadow_unhook(CALLER_SP(), false);
	return real(e);
}

MT_UNW void _Unwind_Resume(struct _Unwind_Exception *e);
#if defined(__arm__)
/* The Arm EHABI's _Unwind_Resume takes the stack pointer it is entered
 * with for the landing pad's frame's (the pad's address it has saved):
 * it must be entered from the pad itself, so this one jumps to it, with
 * sp, lr and r0 as it found them. */
MT_HIDDEN void *mt_resume_real(uintptr_t sp);
void *mt_resume_real(uintptr_t sp)
{
	static void *real;
	if (!real)
		real = real_sym("_Unwind_Resume");
	mt_shadow_unhook(sp, false);
	return real;
}

__attribute__((naked)) void _Unwind_Resume(struct _Unwind_Exception *e)
{
	(void)e;
	__asm__("push	{r0, lr}\n\t"
		"add	r0, sp, #8\n\t"       /* the pad's sp */
		"bl	mt_resume_real\n\t"
		"mov	ip, r0\n\t"
		"pop	{r0, lr}\n\t"
		"bx	ip\n\t");
}
#else
void _Unwind_Resume(struct _Unwind_Exception *e)
{
	static void (*real)(struct _Unwind_Exception *);
	if (!real)
		real = (void (*)(struct _Unwind_Exception *))real_sym("_Unwind_Resume");
	mt_shadow_unhook(CALLER_SP(), false);
	real(e);
	abort();
}
#endif

typedef int (*mt_unw_stop)(int, int, uint64_t, struct _Unwind_Exception *, void *, void *);
MT_UNW int _Unwind_ForcedUnwind(struct _Unwind_Exception *e, mt_unw_stop stop, void *arg);
int _Unwind_ForcedUnwind(struct _Unwind_Exception *e, mt_unw_stop stop, void *arg)
{
	static int (*real)(struct _Unwind_Exception *, mt_unw_stop, void *);
	if (!real)
		real = (int (*)(struct _Unwind_Exception *, mt_unw_stop, void *))real_sym("_Unwind_ForcedUnwind");
	mt_shadow_unhook(CALLER_SP(), false);
	return real(e, stop, arg);
}

#ifdef MT_SHARED
/* C++ frames: a landing pad about to run in a frame (the cleanup phase)
 * means every frame below it is gone; they are marked unwound now, in
 * the order the unwinder leaves them, before the pad's own calls. */
struct _Unwind_Context;
#if defined(__arm__)
/* The Arm EHABI's personality: (state, control block, context); the
 * pad's frame is the context's, its sp the lowest a live frame's slot
 * can be (a frame's slot is just below its caller's sp), and
 * _Unwind_GetCFA is no answer there (it returns 0). */
int __gxx_personality_v0(int state, struct _Unwind_Exception *e, struct _Unwind_Context *c);
int __gxx_personality_v0(int state, struct _Unwind_Exception *e, struct _Unwind_Context *c)
{
	static int (*real)(int, struct _Unwind_Exception *, struct _Unwind_Context *);
	static int (*vrs_get)(struct _Unwind_Context *, int, uint32_t, int, void *);
	if (!real) {
		vrs_get = (int (*)(struct _Unwind_Context *, int, uint32_t, int, void *))real_sym("_Unwind_VRS_Get");
		real = (int (*)(int, struct _Unwind_Exception *, struct _Unwind_Context *))
			real_sym("__gxx_personality_v0");
	}
	int r = real(state, e, c);
	uint32_t sp;
	/* not _US_VIRTUAL_UNWIND_FRAME, _URC_INSTALL_CONTEXT; _UVRSC_CORE r13 as _UVRSD_UINT32 */
	if ((state & 3) && r == 7 && vrs_get(c, 0, 13, 0, &sp) == 0)
		mt_shadow_unhook(sp, false);
	return r;
}
#else
int __gxx_personality_v0(int version, int actions, uint64_t cls, struct _Unwind_Exception *e,
			 struct _Unwind_Context *c);
int __gxx_personality_v0(int version, int actions, uint64_t cls, struct _Unwind_Exception *e,
			 struct _Unwind_Context *c)
{
	static int (*real)(int, int, uint64_t, struct _Unwind_Exception *, struct _Unwind_Context *);
	static uintptr_t (*get_cfa)(struct _Unwind_Context *);
	if (!real) {
		get_cfa = (uintptr_t (*)(struct _Unwind_Context *))real_sym("_Unwind_GetCFA");
		real = (int (*)(int, int, uint64_t, struct _Unwind_Exception *, struct _Unwind_Context *))
			real_sym("__gxx_personality_v0");
	}
	int r = real(version, actions, cls, e, c);
	if ((actions & 2) && r == 7)      /* _UA_CLEANUP_PHASE, _URC_INSTALL_CONTEXT */
		mt_shadow_unhook(PAD_LIVE(get_cfa(c)), false);
	return r;
}
#endif
#endif /* MT_SHARED */

MT_UNW void *__cxa_begin_catch(void *e);
void *__cxa_begin_catch(void *e)
{
	static void *(*real)(void *);
	if (!real)
		real = (void *(*)(void *))real_sym("__cxa_begin_catch");
	mt_shadow_rehook(CALLER_SP());
	return real(e);
}

#ifdef MT_SHARED
void pthread_exit(void *ret)
{
	static void (*real)(void *);
	if (!real)
		real = (void (*)(void *))real_sym("pthread_exit");
	mt_shadow_unhook(CALLER_SP(), true);
	real(ret);
	abort();
}
#endif /* MT_SHARED */
#endif /* MT_HAVE_GRAPH */
