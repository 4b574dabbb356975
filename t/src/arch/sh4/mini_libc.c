/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The little of a C library the sh4 runtime oracle uses (see start.S):
 * printf with %d %u %lu %lx %#lx %s %%, puts and putchar (what GCC makes
 * of some printf calls), fflush, memset, memcpy. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

FILE *stdout;

static void out(const char *s, size_t n)
{
	register long r3 __asm__("r3") = 4;     /* __NR_write */
	register long r4 __asm__("r4") = 1;
	register long r5 __asm__("r5") = (long)s;
	register long r6 __asm__("r6") = (long)n;
	__asm__ volatile("trapa #0x13" : "+r"(r3) : "r"(r4), "r"(r5), "r"(r6) : "r0", "memory");
}

static size_t number(char *buf, unsigned long v, unsigned base, int neg)
{
	char tmp[24];
	size_t n = 0, len = 0;
	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (neg)
		buf[len++] = '-';
	while (n)
		buf[len++] = tmp[--n];
	return len;
}

int printf(const char *fmt, ...)
{
	char buf[512];
	size_t len = 0;
	va_list ap;
	va_start(ap, fmt);
	for (const char *p = fmt; *p && len < sizeof(buf) - 40; p++) {
		if (*p != '%') {
			buf[len++] = *p;
			continue;
		}
		int alt = 0, lng = 0;
		p++;
		if (*p == '#')
			alt = 1, p++;
		if (*p == 'l')
			lng = 1, p++;
		switch (*p) {
		case 'd': {
			long v = lng ? va_arg(ap, long) : va_arg(ap, int);
			len += number(buf + len, v < 0 ? -(unsigned long)v : (unsigned long)v, 10, v < 0);
			break;
		}
		case 'u':
			len += number(buf + len, lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned), 10, 0);
			break;
		case 'x':
			if (alt)
				buf[len++] = '0', buf[len++] = 'x';
			len += number(buf + len, lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned), 16, 0);
			break;
		case 's':
			for (const char *s = va_arg(ap, const char *); *s && len < sizeof(buf) - 40; s++)
				buf[len++] = *s;
			break;
		default:
			buf[len++] = *p;
			break;
		}
	}
	va_end(ap);
	out(buf, len);
	return (int)len;
}

int puts(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	out(s, n);
	out("\n", 1);
	return 1;
}

int putchar(int c)
{
	char ch = (char)c;
	out(&ch, 1);
	return c;
}

int fflush(FILE *f)
{
	(void)f;
	return 0;
}

void *memset(void *d, int c, size_t n)
{
	unsigned char *p = d;
	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
	unsigned char *p = d;
	const unsigned char *q = s;
	while (n--)
		*p++ = *q++;
	return d;
}
