/* SPDX-License-Identifier: GPL-2.0-or-later */
/* debugfile.c - an object's separate debug file, found as gdb finds it.
 *
 * A program shipped stripped has its DWARF in another file
 * (objcopy --only-keep-debug, Debian's -dbgsym packages).  When the
 * object itself has none, dwarf.c asks here, and this looks, in gdb's
 * order, for:
 *
 *   DIR/.build-id/XX/REST.debug   by the object's NT_GNU_BUILD_ID note
 *                                 (XX its first byte in hex, REST the
 *                                 others), for each DIR; the file must
 *                                 carry the same build-id
 *   OBJDIR/NAME, OBJDIR/.debug/NAME, DIR/OBJDIR/NAME
 *                                 by its .gnu_debuglink section (NAME and
 *                                 the CRC-32 of the whole debug file,
 *                                 zlib's polynomial), which must match
 *
 * DIR the directories of MCOUNT_TRACE_DEBUG_DIR (colon-separated; gdb's
 * debug-file-directory), /usr/lib/debug by default; OBJDIR the directory
 * of the object's file, symbolic links resolved.  A file that is not the
 * object's (another build-id, another CRC) is not used, and told once.
 * The file used is mapped read-only for good, as elf.c maps the
 * object's own; its addresses are the object's link-time addresses.
 * Called with the registry lock held.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rt.h"

enum { NT_BUILD_ID = 3 };

/* The GNU debuglink CRC: CRC-32 (reflected 0xedb88320), as zlib's crc32(0, p, n). */
static uint32_t crc32_of(const unsigned char *p, size_t n)
{
	static uint32_t table[256];
	if (!table[1])
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320 ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	uint32_t c = 0xffffffff;
	for (size_t i = 0; i < n; i++)
		c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return ~c;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The build-id of the ELF file at p, its length in *len; NULL: none. */
static const unsigned char *build_id(const unsigned char *p, size_t size, size_t *len)
{
	size_t n = 0;
	const unsigned char *s = mt_elf_section(p, size, ".note.gnu.build-id", &n, NULL);
	while (s && n >= 12) {
		uint64_t namesz = le32(s), descsz = le32(s + 4), name4 = (namesz + 3) & ~(uint64_t)3,
			desc4 = (descsz + 3) & ~(uint64_t)3;
		if (name4 > n - 12 || desc4 > n - 12 - name4)
			return NULL;
		if (le32(s + 8) == NT_BUILD_ID && namesz == 4 && !memcmp(s + 12, "GNU", 4) && descsz) {
			*len = descsz;
			return s + 12 + name4;
		}
		s += 12 + name4 + desc4;
		n -= 12 + name4 + desc4;
	}
	return NULL;
}

/* The .gnu_debuglink of the ELF file at p: the debug file's name, its CRC in *crc. */
static const char *debuglink(const unsigned char *p, size_t size, uint32_t *crc)
{
	size_t n = 0;
	const unsigned char *s = mt_elf_section(p, size, ".gnu_debuglink", &n, NULL);
	const unsigned char *end = s ? memchr(s, 0, n) : NULL;
	if (!end || end == s)
		return NULL;
	size_t at = ((size_t)(end - s) + 4) & ~(size_t)3;
	if (at > n || n - at < 4)
		return NULL;
	*crc = le32(s + at);
	return (const char *)s;
}

/* What a candidate must be: the build-id's file, or the debuglink's. */
struct want {
	const struct mt_object *o;
	const unsigned char *id;       /* NULL: by the debuglink's crc */
	size_t idlen;
	uint32_t crc;
	const char *self;              /* the object's own file */
	FILE *looked;                  /* the paths tried, ", "-separated */
	bool any;
};

/* Use the file at path if it is the object's debug file. */
static bool try_file(struct want *w, const char *path, struct mt_debug_file *df)
{
	if (!path || (w->self && !strcmp(path, w->self)))
		return false;
	fprintf(w->looked, "%s%s", w->any ? ", " : "", path);
	w->any = true;
	size_t size = 0, idlen = 0;
	const unsigned char *p = mt_map_file(path, &size, NULL);
	if (!p)
		return false;
	char why[80];
	if (w->id) {
		const unsigned char *id = build_id(p, size, &idlen);
		snprintf(why, sizeof why, "%s", id ? "another build-id" : "no build-id");
		if (id && idlen == w->idlen && !memcmp(id, w->id, idlen))
			why[0] = 0;
	} else {
		uint32_t crc = crc32_of(p, size);
		snprintf(why, sizeof why, "its CRC is %08x, the debuglink's %08x", crc, w->crc);
		if (crc == w->crc)
			why[0] = 0;
	}
	if (why[0]) {
		if (!mt_told(path, " debug file"))
			mt_msg("%s: %s: not its debug file (%s): not used", w->o->name, path, why);
		munmap((void *)p, size);
		return false;
	}
	df->p = p;
	df->size = size;
	df->path = strdup(path);
	return true;
}

/* Each directory of MCOUNT_TRACE_DEBUG_DIR in turn: false when done. */
static bool next_dir(const char **list, char *dir, size_t len)
{
	const char *s = *list;
	while (*s == ':')
		s++;
	if (!*s)
		return false;
	size_t n = strcspn(s, ":");
	*list = s + n;
	size_t k = n;
	while (k > 1 && s[k - 1] == '/')
		k--;                          /* "/usr/lib/debug/" as "/usr/lib/debug" */
	if (k >= len) {
		/* never cut: a shorter name is another directory (said once) */
		static atomic_int said;    /* (a word: see mt_env) */
		if (!atomic_exchange(&said, 1))
			mt_msg("MCOUNT_TRACE_DEBUG_DIR: '%.40s...': a directory of more than %zu bytes: not searched",
			       s, len - 1);
		return next_dir(list, dir, len);
	}
	memcpy(dir, s, k);
	dir[k] = 0;
	return true;
}

void mt_debug_file(const struct mt_object *o, struct mt_debug_file *df)
{
	memset(df, 0, sizeof *df);
	size_t idlen = 0;
	uint32_t crc = 0;
	const unsigned char *id = build_id(o->file, o->file_size, &idlen);
	const char *link = debuglink(o->file, o->file_size, &crc);
	if (!id && !link)
		return;                       /* nothing to look for it by */
	const char *dirs = mt_env("MCOUNT_TRACE_DEBUG_DIR");
	if (!dirs || !*dirs)
		dirs = "/usr/lib/debug";
	char *real = realpath(o->path, NULL);
	size_t looked_len = 0;
	struct want w = { .o = o, .id = id, .idlen = idlen, .self = real,
			  .looked = open_memstream(&df->looked, &looked_len) };
	if (!w.looked) {
		free(real);
		return;
	}
	char dir[4096], *path = NULL;
	bool found = false;
	for (const char *l = dirs; id && !found && next_dir(&l, dir, sizeof dir);) {
		/* DIR/.build-id/XX/REST.debug */
		size_t plen = 0;
		FILE *m = open_memstream(&path, &plen);
		if (!m)
			break;
		fprintf(m, "%s/.build-id/", dir);
		for (size_t i = 0; i < idlen; i++)
			fprintf(m, "%02x%s", id[i], i ? "" : "/");
		fputs(".debug", m);
		if (fclose(m))
			break;
		found = try_file(&w, idlen > 1 ? path : NULL, df);
		free(path);
		path = NULL;
	}
	w.id = NULL;
	w.crc = crc;
	const char *from = real ? real : o->path;
	const char *slash = strrchr(from, '/');
	int dl = slash ? (int)(slash - from) : 1;
	const char *od = slash ? from : ".";
	for (int k = 0; link && !found && k < 2; k++) {
		/* OBJDIR/NAME, OBJDIR/.debug/NAME */
		if (asprintf(&path, "%.*s/%s%s", dl, od, k ? ".debug/" : "", link) < 0)
			break;
		found = try_file(&w, path, df);
		free(path);
	}
	for (const char *l = dirs; link && !found && next_dir(&l, dir, sizeof dir);) {
		/* DIR/OBJDIR/NAME */
		if (asprintf(&path, "%s%s%.*s/%s", dir, od[0] == '/' ? "" : "/", dl, od, link) < 0)
			break;
		found = try_file(&w, path, df);
		free(path);
	}
	fclose(w.looked);
	free(real);
	if (found || !looked_len) {
		free(df->looked);
		df->looked = NULL;
	}
}
