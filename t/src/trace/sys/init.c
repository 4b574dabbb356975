/* SPDX-License-Identifier: GPL-2.0-or-later */
/* init.c - /init of the initramfs t/lib/QemuSystem.pm boots under
 * qemu-system-aarch64 and qemu-system-riscv64.  Mounts /proc (the tracer writes code through
 * /proc/self/mem), then runs the jobs of /jobs one after the other and
 * reports each on the console, then powers the machine off.
 *
 * /jobs, one directive a line:
 *   job NAME        a new job (its stdout and stderr go to files)
 *   arg WORD        the next word of its argv (the first is the program)
 *   env NAME=VALUE  its environment has only these
 *   file PATH       a file to report after it ran; PATH* each file of
 *                   PATH's directory whose name starts as PATH's does
 *                   (a forked child's trace file, FILE.PID)
 *   limit SECONDS   its time limit (default 300)
 *   run             run it
 * A job that outlives its limit is killed, after a line for each of its
 * threads, stopped: "@@@hung NAME TID STATE WCHAN SYSCALL" (/proc's
 * stat state, wchan and syscall: the call it waits in, or -1, then its
 * stack pointer and program counter), and "@@@hung NAME map LINE" for
 * each executable mapping; the jobs after it run.
 * The report, every line starting with "@@@" (kernel messages may come
 * in between): "@@@job NAME status N" (a wait status), then per file
 * "@@@file NAME PATH", its bytes as a zlib stream (RFC 1950) in base64
 * lines "@@@z B64", "@@@eof SIZE" (the file's size: a line a kernel
 * message broke is lost, and what inflates tells), then "@@@time NAME RUN SEND": the milliseconds the
 * job ran and its files took on the console; after the last job
 * "@@@done".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXW 64
#define LIMIT 300           /* a job's seconds, unless it says */

static long long ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000LL + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Raw deflate (RFC 1951) with the fixed codes: greedy LZ77 matches in a
 * 32 KiB window found through a hash of three bytes.  A trace shrinks to
 * a sixth or less, and the console, not the machine, is what a boot
 * waits on. */
struct bits {
	unsigned char *p;
	unsigned long acc;
	int n;
};

static void put(struct bits *b, unsigned long v, int n)
{
	b->acc |= v << b->n;
	b->n += n;
	while (b->n >= 8) {
		*b->p++ = (unsigned char)b->acc;
		b->acc >>= 8;
		b->n -= 8;
	}
}

/* A Huffman code: its first bit is the code's highest. */
static void put_code(struct bits *b, unsigned code, int len)
{
	unsigned r = 0;
	for (int i = 0; i < len; i++)
		r |= ((code >> i) & 1) << (len - 1 - i);
	put(b, r, len);
}

static void put_sym(struct bits *b, int c)
{
	if (c < 144)
		put_code(b, 0x30 + c, 8);
	else if (c < 256)
		put_code(b, 0x190 + c - 144, 9);
	else if (c < 280)
		put_code(b, c - 256, 7);
	else
		put_code(b, 0xc0 + c - 280, 8);
}

static const unsigned short len_base[29] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43,
	51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const unsigned char len_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
	4, 4, 4, 4, 5, 5, 5, 5, 0 };
static const unsigned short dist_base[30] = { 1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
	257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577 };
static const unsigned char dist_extra[30] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8,
	9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };

#define WIN 32768
#define HASH(p) ((((unsigned)(p)[0] << 10) ^ ((unsigned)(p)[1] << 5) ^ (p)[2]) & (WIN - 1))

/* in[0..n) deflated into out (room for n + n / 8 + 58 bytes): its size. */
static size_t deflate_fixed(const unsigned char *in, size_t n, unsigned char *out)
{
	static int head[WIN], prev[WIN];
	struct bits b = { out, 0, 0 };
	for (size_t i = 0; i < WIN; i++)
		head[i] = -1;
	put(&b, 1, 1);        /* the last block */
	put(&b, 1, 2);        /* fixed codes */
	size_t i = 0;
	while (i < n) {
		size_t best = 0, dist = 0;
		if (i + 3 <= n) {
			unsigned h = HASH(in + i);
			int c = head[h];
			for (int chain = 0; c >= 0 && i - (size_t)c <= WIN && chain < 32; chain++) {
				size_t l = 0, max = n - i < 258 ? n - i : 258;
				while (l < max && in[c + l] == in[i + l])
					l++;
				if (l > best) {
					best = l;
					dist = i - (size_t)c;
				}
				c = prev[c & (WIN - 1)];
			}
		}
		size_t step = best >= 3 ? best : 1;
		if (best >= 3) {
			int k = 28;
			while (len_base[k] > best)
				k--;
			put_sym(&b, 257 + k);
			put(&b, best - len_base[k], len_extra[k]);
			int d = 29;
			while (dist_base[d] > dist)
				d--;
			put_code(&b, (unsigned)d, 5);
			put(&b, dist - dist_base[d], dist_extra[d]);
		} else {
			put_sym(&b, in[i]);
		}
		for (size_t j = 0; j < step; j++, i++) {
			if (i + 3 > n)
				continue;
			unsigned h = HASH(in + i);
			prev[i & (WIN - 1)] = head[h];
			head[h] = (int)i;
		}
	}
	put_sym(&b, 256);
	put(&b, 0, 7);        /* to a byte */
	return (size_t)(b.p - out);
}

/* in[0..n) as a zlib stream (RFC 1950: its Adler-32 tells a stream that
 * lost a line) into out (room for n + n / 8 + 64 bytes): its size. */
static size_t zlib_fixed(const unsigned char *in, size_t n, unsigned char *out)
{
	unsigned long a = 1, b = 0;
	for (size_t i = 0; i < n; i++) {
		a = (a + in[i]) % 65521;
		b = (b + a) % 65521;
	}
	out[0] = 0x78;
	out[1] = 0x01;
	size_t z = 2 + deflate_fixed(in, n, out + 2);
	unsigned long ad = b << 16 | a;
	for (int i = 3; i >= 0; i--)
		out[z++] = (unsigned char)(ad >> (8 * i));
	return z;
}

/* The file as a zlib stream, in base64 lines "@@@z ..."; "@@@eof SIZE"
 * its size. */
static void report_file(const char *job, const char *path)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	printf("@@@file %s %s\n", job, path);
	int fd = open(path, O_RDONLY);
	struct stat st;
	unsigned char *in = NULL, *z = NULL;
	size_t n = 0;
	if (fd >= 0 && !fstat(fd, &st) && (in = malloc((size_t)st.st_size + 1))) {
		ssize_t r;
		while ((r = read(fd, in + n, (size_t)st.st_size + 1 - n)) > 0 && n + (size_t)r <= (size_t)st.st_size)
			n += (size_t)r;
	}
	if (fd < 0) {
		printf("@@@missing\n@@@eof 0\n");
	} else if (!in || !(z = malloc(n + n / 8 + 64))) {
		/* (nothing sent: the size tells it did not come) */
		printf("@@@eof %llu\n", (unsigned long long)st.st_size);
	} else {
		size_t zn = zlib_fixed(in, n, z);
		char l[5 + 76 + 2] = "@@@z ";
		for (size_t i = 0; i < zn; i += 57) {
			char *p = l + 5;
			for (size_t j = i; j < i + 57 && j < zn; j += 3) {
				unsigned v = (unsigned)z[j] << 16 | (j + 1 < zn ? z[j + 1] << 8 : 0) | (j + 2 < zn ? z[j + 2] : 0);
				*p++ = b64[v >> 18];
				*p++ = b64[(v >> 12) & 63];
				*p++ = j + 1 < zn ? b64[(v >> 6) & 63] : '=';
				*p++ = j + 2 < zn ? b64[v & 63] : '=';
			}
			*p++ = '\n';
			fwrite(l, 1, (size_t)(p - l), stdout);
		}
		printf("@@@eof %zu\n", n);
	}
	free(z);
	free(in);
	if (fd >= 0)
		close(fd);
}

/* /proc/PID/task/TID/WHAT's first line, without its newline ("-" if
 * there is none). */
static void proc_line(char *buf, size_t n, pid_t pid, const char *tid, const char *what)
{
	char path[128];
	snprintf(path, sizeof path, "/proc/%d/task/%s/%s", (int)pid, tid, what);
	FILE *f = fopen(path, "r");
	if (!f || !fgets(buf, (int)n, f))
		snprintf(buf, n, "-");
	buf[strcspn(buf, "\n")] = 0;
	if (f)
		fclose(f);
}

/* A job past its limit: where each of its threads is, and its code's
 * mappings (to read the program counters by). */
static void report_hung(const char *job, pid_t pid)
{
	char path[64], stat[512], wchan[128], sc[256];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		proc_line(stat, sizeof stat, pid, e->d_name, "stat");
		proc_line(wchan, sizeof wchan, pid, e->d_name, "wchan");
		proc_line(sc, sizeof sc, pid, e->d_name, "syscall");
		const char *st = strrchr(stat, ')');
		printf("@@@hung %s %s %c %s %s\n", job, e->d_name, st && st[1] ? st[2] : '?', wchan[0] ? wchan : "-", sc);
	}
	if (d)
		closedir(d);
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	char l[512];
	while (f && fgets(l, sizeof l, f)) {
		l[strcspn(l, "\n")] = 0;
		if (strstr(l, " r-xp ") || strstr(l, " rwxp "))
			printf("@@@hung %s map %s\n", job, l);
	}
	if (f)
		fclose(f);
}

/* The job's wait status, once it ended or (past limit seconds) was
 * killed. */
static int wait_job(const char *job, pid_t p, const sigset_t *chld, int limit)
{
	struct timespec end, now;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += limit;
	int st = -1;
	for (;;) {
		pid_t w = waitpid(p, &st, WNOHANG);
		if (w == p || (w < 0 && errno != EINTR))
			return st;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
		struct timespec left = { end.tv_sec - now.tv_sec, end.tv_nsec - now.tv_nsec };
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		sigtimedwait(chld, NULL, &left);
	}
	/* (stopped first: a thread that is not in a call shows its stack
	 * and program counter in /proc only while it is off the CPU) */
	kill(p, SIGSTOP);
	struct timespec settle = { 0, 300000000 };
	nanosleep(&settle, NULL);
	report_hung(job, p);
	kill(p, SIGKILL);
	waitpid(p, &st, 0);
	return st;
}

/* PATH, or with a final '*' each file whose path starts with the rest. */
static void report_files(const char *job, const char *path)
{
	size_t n = strlen(path);
	const char *slash = strrchr(path, '/');
	if (!n || path[n - 1] != '*' || !slash) {
		report_file(job, path);
		return;
	}
	char dir[300], full[600];
	snprintf(dir, sizeof dir, "%.*s", (int)(slash - path) + 1, path);
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		snprintf(full, sizeof full, "%s%s", dir, e->d_name);
		if (!strncmp(full, path, n - 1) && e->d_type == DT_REG)
			report_file(job, full);
	}
	if (d)
		closedir(d);
}

int main(void)
{
	static char *argv[MAXW + 1], *envp[MAXW + 1], *files[MAXW];
	int na = 0, ne = 0, nf = 0, limit = LIMIT;
	char name[256] = "", line[4096];
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* (SIGCHLD blocked: sigtimedwait takes it, a job's end, at once) */
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);        /* /dev/null */
	mkdir("/out", 0755);
	FILE *jobs = fopen("/jobs", "r");
	if (!jobs) {
		printf("@@@error no /jobs\n");
		goto off;
	}
	while (fgets(line, sizeof line, jobs)) {
		line[strcspn(line, "\n")] = 0;
		char *v = strchr(line, ' ');
		if (v)
			*v++ = 0;
		if (!strcmp(line, "job") && v) {
			snprintf(name, sizeof name, "%s", v);
			na = ne = nf = 0;
			limit = LIMIT;
		} else if (!strcmp(line, "arg") && v && na < MAXW) {
			argv[na++] = strdup(v);
		} else if (!strcmp(line, "env") && v && ne < MAXW) {
			envp[ne++] = strdup(v);
		} else if (!strcmp(line, "file") && v && nf < MAXW) {
			files[nf++] = strdup(v);
		} else if (!strcmp(line, "limit") && v && atoi(v) > 0) {
			limit = atoi(v);
		} else if (!strcmp(line, "run") && na) {
			char out[300], err[300];
			snprintf(out, sizeof out, "/out/%s.stdout", name);
			snprintf(err, sizeof err, "/out/%s.stderr", name);
			argv[na] = envp[ne] = NULL;
			struct timespec t0;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			pid_t p = fork();
			if (p == 0) {
				sigprocmask(SIG_UNBLOCK, &chld, NULL);
				int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
				int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
				int i = open("/dev/null", O_RDONLY);
				if (o < 0 || e < 0 || i < 0)
					_exit(126);
				dup2(i, 0);
				dup2(o, 1);
				dup2(e, 2);
				execve(argv[0], argv, envp);
				_exit(127);
			}
			int st = p > 0 ? wait_job(name, p, &chld, limit) : -1;
			long long ran = ms_since(&t0);
			printf("@@@job %s status %d\n", name, st);
			report_file(name, out);
			report_file(name, err);
			for (int i = 0; i < nf; i++)
				report_files(name, files[i]);
			printf("@@@time %s %lld %lld\n", name, ran, ms_since(&t0) - ran);
		} else {
			printf("@@@error bad line '%s'\n", line);
		}
	}
	printf("@@@done\n");
off:
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
