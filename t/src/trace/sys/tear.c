/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tear.c - is a 4-byte write through /proc/self/mem one access?  (the riscv64 guest)
 * A thread reads a word while main writes 0 and ~0 over it, alternately,
 * through /proc/self/mem (its page is read-only, as text is); a read of
 * anything else saw the write half made.  OFFSET (argv[1]) is the
 * word's place in its page: 64 (4-byte aligned) or 66 (2-byte aligned,
 * where riscv64's compressed code puts instructions); WRITES (argv[2],
 * default 200000) how many writes.  Prints the reads and the torn ones. */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64          /* a 32-bit program's addresses above 2 GiB */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const volatile unsigned char *word;
static atomic_int stop;
static unsigned long long reads, torn;

static void *reader(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		uint32_t v;
		memcpy(&v, (const void *)word, 4);
		reads++;
		if (v != 0 && v != 0xffffffffu)
			torn++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long off = argc > 1 ? atol(argv[1]) : 64;
	long writes = argc > 2 ? atol(argv[2]) : 200000;
	unsigned char *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	if (page == MAP_FAILED || fd < 0 || off < 0 || off > 4092) {
		perror("tear");
		return 1;
	}
	word = page + off;
	pthread_t t;
	pthread_create(&t, NULL, reader, NULL);
	for (long i = 0; i < writes; i++) {
		uint32_t v = (i & 1) ? 0xffffffffu : 0;
		/* pwrite takes no offset beyond off_t's range, where sparc64
		 * maps the page (0xfff8...); the file takes any by lseek */
		off_t at = (off_t)(uintptr_t)word;
		if ((at >= 0 ? pwrite(fd, &v, 4, at) : lseek(fd, at, SEEK_SET) == -1 ? -1 : write(fd, &v, 4)) != 4) {
			perror("tear: /proc/self/mem");
			return 1;
		}
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("offset %ld reads %llu torn %llu\n", off, reads, torn);
	return 0;
}
