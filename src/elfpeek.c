/* elfpeek.c - the few facts the scanner reads from the object file itself:
 * the ELF identification and header fields, and bytes at a file offset
 * (call instructions to check, notes to copy).  Everything else comes from
 * objdump's listing. */
#define _POSIX_C_SOURCE 200809L
#include "model.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static unsigned get16(const unsigned char *p, bool big)
{
	return big ? (unsigned)(p[0] << 8 | p[1]) : (unsigned)(p[1] << 8 | p[0]);
}

bool elf_read_ident(int fd, struct elf_ident *id, char *why, size_t whylen)
{
	unsigned char h[20];
	long n = elf_read_at(fd, 0, h, sizeof(h));
	if (n < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		return false;
	}
	if (n == 0) {
		snprintf(why, whylen, "empty file");
		return false;
	}
	if (n < 4 || memcmp(h, "\177ELF", 4) != 0) {
		snprintf(why, whylen, "not an ELF file");
		return false;
	}
	if (n < (long)sizeof(h)) {
		snprintf(why, whylen, "truncated ELF header");
		return false;
	}
	if ((h[4] != 1 && h[4] != 2) || (h[5] != 1 && h[5] != 2)) {
		snprintf(why, whylen, "bad ELF class or byte order");
		return false;
	}
	id->elf_class = h[4] == 1 ? 32 : 64;
	id->big_endian = h[5] == 2;
	id->type = get16(h + 16, id->big_endian);
	id->machine = get16(h + 18, id->big_endian);
	return true;
}

long elf_read_at(int fd, uint64_t off, void *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (long)got;
}
