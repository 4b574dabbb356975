/* SPDX-License-Identifier: GPL-2.0-or-later */
/* smc.c - does the machine run code changed through /proc/self/mem?
 * (t/79: the emulator must, or live switching cannot be tested on it.)
 * f returns 1; once it has run often enough to be translated, its first
 * instruction becomes `mov w0, #2` and then `mov w0, #3`, written as the
 * tracer writes code, and f is called again.  Prints "f 1 2 3" on a
 * machine that runs the code it has.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

__asm__(".text\n.globl f\n.type f, %function\n.p2align 4\nf:\n\tmov w0, #1\n\tret\n");
int f(void);

static void put(uint32_t insn)
{
	int fd = open("/proc/self/mem", O_RDWR);
	if (fd < 0 || pwrite(fd, &insn, 4, (off_t)(uintptr_t)f) != 4) {
		perror("/proc/self/mem");
		_exit(2);
	}
	close(fd);
	__builtin___clear_cache((char *)f, (char *)f + 4);
}

int main(void)
{
	int (*volatile fp)(void) = f;
	int a = 0, b, c;
	for (int i = 0; i < 1000; i++)
		a = fp();
	put(0x52800040);        /* mov w0, #2 */
	b = fp();
	put(0x52800060);        /* mov w0, #3 */
	c = fp();
	printf("f %d %d %d\n", a, b, c);
	return 0;
}
