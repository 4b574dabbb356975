/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elfpeek.c - the few facts the scanner reads from the object file itself:
 * the ELF identification and header fields, and bytes at a file offset
 * (call instructions to check, notes to copy).  Everything else comes from
 * objdump's listing (linkonce.c reads linked images itself, for the one
 * link). */
#define _POSIX_C_SOURCE 200809L
#include "model.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned get16(const unsigned char *p, bool big)
{
	return big ? (unsigned)(p[0] << 8 | p[1]) : (unsigned)(p[1] << 8 | p[0]);
}

static uint32_t get32(const unsigned char *p, bool big)
{
	return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		   : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

const char *elf_read_ident(int fd, struct elf_ident *id)
{
	unsigned char h[64];	/* the 64-bit header; the 32-bit one is 52 bytes */
	long n = elf_read_at(fd, 0, h, sizeof(h));
	if (n < 0)
		return strerror(errno);
	if (n == 0)
		return "empty file";
	if (n < 4 || memcmp(h, "\177ELF", 4) != 0)
		return "not an ELF file";
	if (n < 20)
		return "truncated ELF header";
	if ((h[4] != 1 && h[4] != 2) || (h[5] != 1 && h[5] != 2))
		return "bad ELF class or byte order";
	id->elf_class = h[4] == 1 ? 32 : 64;
	id->big_endian = h[5] == 2;
	if (n < (id->elf_class == 32 ? 52 : 64))
		return "truncated ELF header";
	id->type = get16(h + 16, id->big_endian);
	id->machine = get16(h + 18, id->big_endian);
	id->flags = get32(h + (id->elf_class == 32 ? 36 : 48), id->big_endian);
	return NULL;
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

static uint64_t getn(const unsigned char *p, unsigned n, bool big)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[big ? n - 1 - i : i] << (8 * i);
	return v;
}

/* The section name string table, whole and NUL-terminated (so that a name
 * running off its end still ends), or NULL if it cannot be read: a table
 * that claims more bytes than the file holds is not believed. */
static char *read_strtab(int fd, uint64_t off, uint64_t size, uint64_t *len)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size < 0 || off > (uint64_t)st.st_size ||
	    size > (uint64_t)st.st_size - off || size >= SIZE_MAX)
		return NULL;
	char *tab = xmalloc((size_t)size + 1);
	if (elf_read_at(fd, off, tab, (size_t)size) != (long)size) {
		free(tab);
		return NULL;
	}
	tab[size] = '\0';
	*len = size;
	return tab;
}

/* Mark the sections that belong to a COMDAT group.  objdump's listing does
 * not say, so read the section headers and the SHT_GROUP sections.  A
 * malformed table is left to objdump to complain about. */
void elf_mark_comdat(struct object *obj, unsigned elf_class, bool big)
{
	unsigned char h[64];
	bool is64 = elf_class == 64;
	if (obj->fd < 0 || elf_read_at(obj->fd, 0, h, sizeof(h)) != (long)sizeof(h))
		return;
	uint64_t shoff = is64 ? getn(h + 0x28, 8, big) : getn(h + 0x20, 4, big);
	unsigned entsize = (unsigned)getn(h + (is64 ? 0x3a : 0x2e), 2, big);
	uint64_t shnum = getn(h + (is64 ? 0x3c : 0x30), 2, big);
	uint64_t strndx = getn(h + (is64 ? 0x3e : 0x32), 2, big);
	if (shoff == 0 || entsize < (is64 ? 64u : 40u) || entsize > 256)
		return;
	unsigned char sh[256];
	if (shnum == 0 || strndx == 0xffff) {
		if (elf_read_at(obj->fd, shoff, sh, entsize) != (long)entsize)
			return;
		if (shnum == 0)
			shnum = is64 ? getn(sh + 0x20, 8, big) : getn(sh + 0x14, 4, big);
		if (strndx == 0xffff)
			strndx = getn(sh + (is64 ? 0x28 : 0x18), 4, big);
	}
	if (shnum == 0 || shnum > (1u << 24) || strndx >= shnum)
		return;

	struct shdr { uint32_t name, type; uint64_t off, size; } *s = xmalloc(shnum * sizeof(*s));
	char *names = NULL;
	uint64_t nameslen = 0;
	bool groups = false;
	for (uint64_t i = 0; i < shnum; i++) {
		if (elf_read_at(obj->fd, shoff + i * entsize, sh, entsize) != (long)entsize)
			goto out;
		s[i].name = (uint32_t)getn(sh, 4, big);
		s[i].type = (uint32_t)getn(sh + 4, 4, big);
		s[i].off = is64 ? getn(sh + 0x18, 8, big) : getn(sh + 0x10, 4, big);
		s[i].size = is64 ? getn(sh + 0x20, 8, big) : getn(sh + 0x14, 4, big);
		groups |= s[i].type == 17 /* SHT_GROUP */;
	}
	/* most objects have no groups: then the names need not be read */
	if (!groups || !(names = read_strtab(obj->fd, s[strndx].off, s[strndx].size, &nameslen)))
		goto out;
	for (uint64_t g = 0; g < shnum; g++) {
		if (s[g].type != 17 /* SHT_GROUP */ || s[g].size < 4 || s[g].size > (1u << 24))
			continue;
		unsigned char *words = xmalloc((size_t)s[g].size);
		if (elf_read_at(obj->fd, s[g].off, words, (size_t)s[g].size) == (long)s[g].size &&
		    (getn(words, 4, big) & 1) /* GRP_COMDAT */) {
			for (uint64_t w = 4; w + 4 <= s[g].size; w += 4) {
				uint64_t m = getn(words + w, 4, big);
				if (m >= shnum || s[m].name >= nameslen)
					continue;
				int *slot = strmap_get(&obj->secmap, names + s[m].name);
				if (slot)
					obj->secs[*slot].comdat = true;
			}
		}
		free(words);
	}
out:
	free(names);
	free(s);
}
