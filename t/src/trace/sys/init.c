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
 *   run             run it
 * The report, every line starting with "@@@" (kernel messages may come
 * in between): "@@@job NAME status N" (a wait status), then per file
 * "@@@file NAME PATH", its bytes as "@@@x HEX" lines, "@@@eof SIZE"
 * (how many bytes were sent: a line a kernel message broke is lost, and
 * the size tells), then "@@@time NAME RUN SEND": the milliseconds the
 * job ran and its files took on the console; after the last job
 * "@@@done".
 */
#define _GNU_SOURCE
#include <dirent.h>
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

static long long ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000LL + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static void report_file(const char *job, const char *path)
{
	static const char hex[] = "0123456789abcdef";
	printf("@@@file %s %s\n", job, path);
	FILE *f = fopen(path, "rb");
	unsigned long long size = 0;
	if (f) {
		/* (one write a line, the digits from a table: printf a byte
		 * at a time cost more than the console under emulation) */
		unsigned char b[240];
		char l[6 + 2 * sizeof b + 1] = "@@@x ";
		size_t n;
		while ((n = fread(b, 1, sizeof b, f)) > 0) {
			char *p = l + 5;
			for (size_t i = 0; i < n; i++) {
				*p++ = hex[b[i] >> 4];
				*p++ = hex[b[i] & 15];
			}
			*p++ = '\n';
			fwrite(l, 1, (size_t)(p - l), stdout);
			size += n;
		}
		fclose(f);
	} else {
		printf("@@@missing\n");
	}
	printf("@@@eof %llu\n", size);
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
	int na = 0, ne = 0, nf = 0;
	char name[256] = "", line[4096];
	setvbuf(stdout, NULL, _IOLBF, 0);
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
		} else if (!strcmp(line, "arg") && v && na < MAXW) {
			argv[na++] = strdup(v);
		} else if (!strcmp(line, "env") && v && ne < MAXW) {
			envp[ne++] = strdup(v);
		} else if (!strcmp(line, "file") && v && nf < MAXW) {
			files[nf++] = strdup(v);
		} else if (!strcmp(line, "run") && na) {
			char out[300], err[300];
			snprintf(out, sizeof out, "/out/%s.stdout", name);
			snprintf(err, sizeof err, "/out/%s.stderr", name);
			argv[na] = envp[ne] = NULL;
			struct timespec t0;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			pid_t p = fork();
			if (p == 0) {
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
			int st = -1;
			if (p > 0)
				waitpid(p, &st, 0);
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
