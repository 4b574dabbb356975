/* SPDX-License-Identifier: GPL-2.0-or-later */
/* yama.c SCOPE ATTACH LIBRARY - mcount-attach (ATTACH) under the Yama
 * security module, the kernel as the oracle (the la57 guest of
 * t/79-trace-system.t, run there as root).  Sets
 * /proc/sys/kernel/yama/ptrace_scope to SCOPE, then runs that scope's
 * cases (the table below), each with a target of its own: this program
 * run as "yama.c target [any]", which calls tick() and writes a byte to
 * fd 3 every 5 ms (with any, having named any process its tracer:
 * PR_SET_PTRACER), the library preloaded in one case.  The attacher is root or user 1000 (group 1000, no
 * supplementary groups, no capabilities), the target that user's or
 * root's, started by this process (not a descendant of the attacher)
 * or by the attacher itself, which then becomes ATTACH (its parent,
 * as Yama's scope 1 allows).  A case says, each line starting with its
 * name:
 *   "kernel: PTRACE_SEIZE R, process_vm_readv R": what the kernel
 *     answers a process of the same user and relation (R: ok or the
 *     errno's name), a target of its own in the child case;
 *   "exit N" (or "signal N"): ATTACH's status, "ATTACH: PID: ..." each
 *     line it wrote, the target's PID as "PID";
 *   "maps unchanged" or "maps changed, library mapped|not mapped" (the
 *     target's /proc/PID/maps before and after), then ", runs" or
 *     ", does not run" (a tick came or none in 10 s after ATTACH ended).
 * SCOPE 3 is for good: no write brings it down until reboot. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define USER 1000

static const char *self, *attach, *lib;

volatile unsigned long ticks;

/* the function the target calls (a site of mcount-cc's table) */
__attribute__((noinline)) void tick(void)
{
	ticks++;
}

static int target(int any)
{
	/* (Yama's exception at scope 1: a tracer the process names) */
	if (any && prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0))
		return 1;
	for (;;) {
		tick();
		if (write(3, "t", 1) < 0 && errno != EAGAIN)
			return 1;
		nanosleep(&(struct timespec){ 0, 5 * 1000000 }, NULL);
	}
}

static const char *err_name(int e)
{
	static char b[32];
	switch (e) {
	case 0:
		return "ok";
	case EPERM:
		return "EPERM";
	case EACCES:
		return "EACCES";
	case ESRCH:
		return "ESRCH";
	case EFAULT:
		return "EFAULT";
	default:
		snprintf(b, sizeof b, "errno %d", e);
		return b;
	}
}

/* the whole file, NUL-terminated (NULL: unreadable) */
static char *slurp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t n = 0, cap = 4096;
	char *s = malloc(cap);
	ssize_t r;
	while (s && (r = read(fd, s + n, cap - n - 1)) > 0) {
		n += (size_t)r;
		if (cap - n - 1 == 0) {
			char *t = realloc(s, cap *= 2);
			if (!t) {
				free(s);
				s = NULL;
			}
			s = t;
		}
	}
	close(fd);
	if (s)
		s[n] = 0;
	return s;
}

static char *maps_of(pid_t p)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)p);
	return slurp(path);
}

static void become(uid_t uid)
{
	if (uid == 0)
		return;
	if (setgroups(0, NULL) || setgid(USER) || setuid(uid)) {
		perror("yama: dropping root");
		_exit(125);
	}
}

enum { PRELOAD = 1, PTRACER_ANY = 2 };

/* A target, as the caller's user or uid's, how says (PRELOAD: with the
 * library preloaded; PTRACER_ANY: it calls PR_SET_PTRACER with
 * PR_SET_PTRACER_ANY): its PID; its ticks come on tick_w's pipe. */
static pid_t start_target(int uid, int tick_w, int how)
{
	pid_t t = fork();
	if (t == 0) {
		if (uid >= 0)
			become((uid_t)uid);
		int in = open("/dev/null", O_RDONLY);
		if (in < 0 || dup2(in, 0) < 0 || dup2(tick_w, 3) < 0)
			_exit(126);
		char pre[512];
		snprintf(pre, sizeof pre, "LD_PRELOAD=%s", lib);
		char *env[] = { how & PRELOAD ? pre : NULL, NULL };
		execve(self, (char *[]){ (char *)self, "target", how & PTRACER_ANY ? "any" : NULL, NULL }, env);
		_exit(127);
	}
	return t;
}

/* Whether a tick came on fd within ms, the ticks before it read. */
static int ticked(int fd, int ms)
{
	char b[4096];
	while (read(fd, b, sizeof b) > 0)
		;
	struct pollfd p = { fd, POLLIN, 0 };
	return poll(&p, 1, ms) == 1 && read(fd, b, 1) == 1;
}

/* PTRACE_SEIZE of t and a read of its first page: their errnos. */
static void try_kernel(pid_t t, int res[2])
{
	char *m = maps_of(t);
	unsigned long a = m ? strtoul(m, NULL, 16) : 0;
	free(m);
	char b[4];
	struct iovec l = { b, sizeof b }, r = { (void *)a, sizeof b };
	res[1] = process_vm_readv(t, &l, 1, &r, 1, 0) == (ssize_t)sizeof b ? 0 : errno;
	res[0] = ptrace(PTRACE_SEIZE, t, 0, 0) ? errno : 0;
	/* (a seized tracee is let go when its tracer exits) */
}

/* What the kernel answers uid about a target of its own (child) or t. */
static void probe(const char *name, int uid, pid_t t, int child)
{
	int rp[2];
	if (pipe2(rp, O_CLOEXEC))
		return;
	pid_t q = fork();
	if (q == 0) {
		become((uid_t)uid);
		int res[2] = { -1, -1 };
		if (child) {
			int tp[2];
			if (pipe2(tp, O_CLOEXEC | O_NONBLOCK))
				_exit(1);
			t = start_target(-1, tp[1], 0);
			if (t > 0 && ticked(tp[0], 30000))
				try_kernel(t, res);
			if (t > 0) {
				kill(t, SIGKILL);
				waitpid(t, NULL, 0);
			}
		} else {
			try_kernel(t, res);
		}
		if (write(rp[1], res, sizeof res) != (ssize_t)sizeof res)
			_exit(1);
		_exit(0);
	}
	close(rp[1]);
	int res[2] = { -1, -1 };
	if (q < 0 || read(rp[0], res, sizeof res) != (ssize_t)sizeof res || res[0] < 0 || res[1] < 0)
		printf("%s: kernel: the probe failed\n", name);
	else
		printf("%s: kernel: PTRACE_SEIZE %s, process_vm_readv %s\n", name, err_name(res[0]),
		       err_name(res[1]));
	close(rp[0]);
	if (q > 0)
		waitpid(q, NULL, 0);
}

/* ATTACH's words, read to their end from fd, each line under name, the
 * target's PID as "PID". */
static void said(const char *name, int fd, pid_t t)
{
	char buf[8192], pid[32];
	size_t n = 0;
	ssize_t r;
	while (n < sizeof buf - 1 && (r = read(fd, buf + n, sizeof buf - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = 0;
	int pl = snprintf(pid, sizeof pid, ": %d: ", (int)t);
	for (char *l = buf, *e; *l; l = e) {
		e = strchr(l, '\n');
		e = e ? (*e = 0, e + 1) : l + strlen(l);
		char *at = strstr(l, pid);
		if (at)
			printf("%s: %.*s: PID: %s\n", name, (int)(at - l), l, at + pl);
		else
			printf("%s: %s\n", name, l);
	}
}

static void status_line(const char *name, int st)
{
	if (WIFEXITED(st))
		printf("%s: exit %d\n", name, WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		printf("%s: signal %d\n", name, WTERMSIG(st));
	else
		printf("%s: status %#x\n", name, st);
}

static void exec_attach(pid_t t, int out)
{
	char p[32];
	snprintf(p, sizeof p, "%d", (int)t);
	int in = open("/dev/null", O_RDONLY);
	if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
		_exit(126);
	/* (-t: the call's limit, generous under emulation) */
	execve(attach, (char *[]){ (char *)attach, "-t", "20000", p, (char *)lib, NULL }, (char *[]){ NULL });
	_exit(127);
}

/* A case: uid attaches to a target of target_uid's, which it started
 * (child) or this process did, started as how says. */
static void run_case(const char *name, int uid, int target_uid, int child, int how)
{
	int tick[2], out[2], go[2], tp[2];
	if (pipe2(tick, O_CLOEXEC | O_NONBLOCK) || pipe2(out, O_CLOEXEC) || pipe2(go, O_CLOEXEC) || pipe2(tp, O_CLOEXEC)) {
		printf("%s: pipe: %s\n", name, strerror(errno));
		return;
	}
	pid_t t = -1, a = fork();
	if (a == 0) {
		/* the attacher: its own target first, or the one it is told */
		close(go[1]);
		close(child ? tp[0] : tp[1]);
		become((uid_t)uid);
		if (child) {
			t = start_target(-1, tick[1], how);
			if (write(tp[1], &t, sizeof t) != (ssize_t)sizeof t)
				_exit(1);
		} else if (read(tp[0], &t, sizeof t) != (ssize_t)sizeof t) {
			_exit(1);
		}
		char c;
		if (t <= 0 || read(go[0], &c, 1) != 1)
			_exit(1);
		exec_attach(t, out[1]);
	}
	close(go[0]);
	if (child) {
		close(tp[1]);
		if (read(tp[0], &t, sizeof t) != (ssize_t)sizeof t)
			t = -1;
	} else {
		t = start_target(target_uid, tick[1], how);
		if (write(tp[1], &t, sizeof t) != (ssize_t)sizeof t)
			t = -1;
	}
	close(tick[1]);
	close(out[1]);
	if (t > 0 && ticked(tick[0], 30000)) {
		probe(name, uid, t, child);
		char *before = maps_of(t);
		if (write(go[1], "g", 1) != 1)
			printf("%s: cannot start the attach\n", name);
		close(go[1]);
		said(name, out[0], t);
		int st = 0;
		waitpid(a, &st, 0);
		status_line(name, st);
		char *after = maps_of(t);
		int same = before && after && !strcmp(before, after);
		printf("%s: maps %s%s, %s\n", name, same ? "unchanged" : "changed, ",
		       same ? "" : after && strstr(after, lib) ? "library mapped" : "library not mapped",
		       ticked(tick[0], 10000) ? "runs" : "does not run");
		free(before);
		free(after);
	} else {
		printf("%s: the target did not start\n", name);
		close(go[1]);
		waitpid(a, NULL, 0);
	}
	if (t > 0) {
		kill(t, SIGKILL);
		/* (a child case's target is ours since its parent ended:
		 * PR_SET_CHILD_SUBREAPER) */
		waitpid(t, NULL, 0);
	}
	close(tick[0]);
	close(out[0]);
	close(tp[0]);
	if (!child)
		close(tp[1]);
}

static const struct {
	int scope;
	const char *name;
	int uid, target_uid, child, how;
} cases[] = {
	/* the same user, no Yama rule: the kernel lets it */
	{ 0, "user-other", USER, USER, 0, 0 },
	/* 1: ancestors only, or CAP_SYS_PTRACE */
	{ 1, "user-other", USER, USER, 0, 0 },
	{ 1, "user-child", USER, USER, 1, 0 },
	{ 1, "root-other", 0, 0, 0, 0 },
	/* the library there already (detached, or started with it): its
	 * state is read through process_vm_readv, which Yama rules too */
	{ 1, "user-other-preloaded", USER, USER, 0, PRELOAD },
	/* a tracer the target names (PR_SET_PTRACER_ANY: any) */
	{ 1, "user-other-named", USER, USER, 0, PTRACER_ANY },
	/* 2: CAP_SYS_PTRACE only, even for an ancestor */
	{ 2, "user-other", USER, USER, 0, 0 },
	{ 2, "user-child", USER, USER, 1, 0 },
	{ 2, "root-other", 0, 0, 0, 0 },
	/* 3: no one */
	{ 3, "root-other", 0, 0, 0, 0 },
	{ 3, "root-child", 0, 0, 1, 0 },
};

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "target"))
		return target(argc == 3 && !strcmp(argv[2], "any"));
	if (argc != 4)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	self = "/proc/self/exe";
	int scope = atoi(argv[1]);
	attach = argv[2];
	lib = argv[3];
	static char me[4096];
	ssize_t n = readlink(self, me, sizeof me - 1);
	if (n <= 0)
		return 1;
	self = me;
	const char *ys = "/proc/sys/kernel/yama/ptrace_scope";
	char *was = slurp(ys);
	if (!was) {
		printf("no Yama: %s: %s\n", ys, strerror(errno));
		return 1;
	}
	int fd = open(ys, O_WRONLY);
	char v[16];
	int vl = snprintf(v, sizeof v, "%d\n", scope);
	if (fd < 0 || write(fd, v, (size_t)vl) != vl)
		printf("cannot set ptrace_scope %d: %s\n", scope, strerror(errno));
	if (fd >= 0)
		close(fd);
	char *now = slurp(ys);
	was[strcspn(was, "\n")] = 0;
	printf("ptrace_scope %s (was %s)\n", now ? strtok(now, "\n") : "?", was);
	free(was);
	free(now);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		perror("yama: PR_SET_CHILD_SUBREAPER");
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		if (cases[i].scope == scope)
			run_case(cases[i].name, cases[i].uid, cases[i].target_uid, cases[i].child, cases[i].how);
	return 0;
}
