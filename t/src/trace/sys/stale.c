/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stale.c - after the kernel copies a page of text, does the machine run
 * what the copy holds?  Build it twice, -DV=1 and -DV=2, static and
 * -fno-toplevel-reorder: 128 pages each begin with a pad function and go
 * on with f, which returns V + its page's number.  main writes one byte
 * of each pad, unchanged, through /proc/self/mem (the kernel copies the
 * page, as it does when the tracer writes a site), then calls every f.
 * Run the two builds one after the other: an emulator that kept
 * translations of the code another process had at the same address in
 * the frame the copy reused runs the other build's f.  Prints "stale N of
 * 128": how many f returned another value. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef V
#error "build with -DV=1 or -DV=2"
#endif

#define PAGE(n)                                                            \
	__attribute__((noinline, aligned(4096))) static int pad##n(void)  \
	{                                                                  \
		return 0;                                                  \
	}                                                                  \
	__attribute__((noinline)) static int f##n(void)                   \
	{                                                                  \
		return V + n;                                              \
	}
#define PAGES8(n) PAGE(n##0) PAGE(n##1) PAGE(n##2) PAGE(n##3) PAGE(n##4) PAGE(n##5) PAGE(n##6) PAGE(n##7)
PAGES8(1) PAGES8(2) PAGES8(3) PAGES8(4) PAGES8(5) PAGES8(6) PAGES8(7) PAGES8(8)
PAGES8(9) PAGES8(10) PAGES8(11) PAGES8(12) PAGES8(13) PAGES8(14) PAGES8(15) PAGES8(16)

#define ROW(n) {pad##n, f##n, n}
#define ROWS8(n) ROW(n##0), ROW(n##1), ROW(n##2), ROW(n##3), ROW(n##4), ROW(n##5), ROW(n##6), ROW(n##7)
static const struct {
	int (*pad)(void), (*f)(void);
	int n;
} pages[] = {ROWS8(1),  ROWS8(2),  ROWS8(3),  ROWS8(4),  ROWS8(5),  ROWS8(6),  ROWS8(7),  ROWS8(8),
	     ROWS8(9), ROWS8(10), ROWS8(11), ROWS8(12), ROWS8(13), ROWS8(14), ROWS8(15), ROWS8(16)};
#define NPAGES (int)(sizeof pages / sizeof pages[0])

int main(void)
{
	int fd = open("/proc/self/mem", O_RDWR);
	if (fd < 0) {
		perror("stale: /proc/self/mem");
		return 2;
	}
	for (int i = 0; i < NPAGES; i++) {
		unsigned char b;
		off_t at = (off_t)(unsigned long)pages[i].pad;
		if (pread(fd, &b, 1, at) != 1 || pwrite(fd, &b, 1, at) != 1) {
			perror("stale: /proc/self/mem");
			return 2;
		}
	}
	int stale = 0;
	for (int i = 0; i < NPAGES; i++)
		stale += pages[i].f() != V + pages[i].n;
	printf("stale %d of %d\n", stale, NPAGES);
	return 0;
}
