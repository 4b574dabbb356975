/* SPDX-License-Identifier: GPL-2.0-or-later */
/* linkonce.c - the one-link method's reading of ELF files, without objdump
 * (lib/RecordMcount/LinkOnce.pm runs it around the command's own link):
 *
 *   --bound FILE...   the calls to the hook the link's inputs (objects,
 *                     archives' members) can bring: an upper bound of the
 *                     table, the size of the placeholder linked in
 *   --fill-linked=MAP --object OUTPUT
 *                     after the link: where each input section went (the
 *                     linker's map), its calls to the hook (the input's
 *                     relocations), each checked against the output's
 *                     bytes; none outside every function symbol where it
 *                     is an overridden weak copy; sorted, written into the
 *                     output's table and the addends of the table's
 *                     dynamic relocations, the rest of the slots 0
 *
 * Both print "key<TAB>value" lines; --fill-linked prints "refused<TAB>WHY"
 * and writes nothing where it cannot stand behind a table (the front end
 * then links as before).  The per-architecture facts are arch.c's: the
 * hooks, the call forms, their relocation types' numbers. */
#define _POSIX_C_SOURCE 200809L
#include "linkonce.h"
#include "bitcode.h"
#include "hash.h"
#include "model.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHT_SYMTAB 2
#define SHT_RELA 4
#define SHT_NOBITS 8
#define SHT_REL 9
#define SHF_ALLOC 2
#define SHF_EXECINSTR 4

struct shdr {
	uint32_t name, type;
	uint64_t flags, addr, off, size;
	uint32_t link, info;
	uint64_t entsize;
};

/* An ELF file in memory (a whole file, or an archive's member). */
struct elfv {
	const unsigned char *d;
	size_t len;
	bool is64, big;
	bool mips64_info;       /* ELF64 r_info laid out as MIPS64's (arch.h) */
	unsigned type;
	uint64_t shoff, shnum, shentsize, shstrndx;
	struct shdr names;      /* the section names' string table's header */
};

#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BIG true
#else
#define HOST_BIG false
#endif

/* The n-byte field at off, in the file's byte order.  (Every section
 * header, symbol and relocation is read through here: a field in the
 * host's order is one load.) */
static inline uint64_t rd(const struct elfv *e, uint64_t off, unsigned n)
{
	const unsigned char *p = e->d + off;
	if (e->big == HOST_BIG) {
		uint64_t v8;
		uint32_t v4;
		uint16_t v2;
		switch (n) {
		case 8: memcpy(&v8, p, 8); return v8;
		case 4: memcpy(&v4, p, 4); return v4;
		case 2: memcpy(&v2, p, 2); return v2;
		case 1: return *p;
		}
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[e->big ? n - 1 - i : i] << (8 * i);
	return v;
}

static void wr(unsigned char *p, uint64_t v, unsigned n, bool big)
{
	for (unsigned i = 0; i < n; i++)
		p[big ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

static struct shdr sh_at(const struct elfv *e, uint64_t i);

/* Read the header of the ELF file at d; a reason on failure. */
static const char *elfv_open(struct elfv *e, const unsigned char *d, size_t len)
{
	memset(e, 0, sizeof(*e));
	e->d = d;
	e->len = len;
	if (len < 52 || memcmp(d, "\177ELF", 4) != 0 || (d[4] != 1 && d[4] != 2) ||
	    (d[5] != 1 && d[5] != 2))
		return "not an ELF file";
	e->is64 = d[4] == 2;
	e->big = d[5] == 2;
	if (e->is64 && len < 64)
		return "truncated ELF header";
	e->type = (unsigned)rd(e, 16, 2);
	e->shoff = e->is64 ? rd(e, 0x28, 8) : rd(e, 0x20, 4);
	e->shentsize = rd(e, e->is64 ? 0x3a : 0x2e, 2);
	e->shnum = rd(e, e->is64 ? 0x3c : 0x30, 2);
	e->shstrndx = rd(e, e->is64 ? 0x3e : 0x32, 2);
	if (!e->shoff)
		return NULL;
	if (e->shentsize < (e->is64 ? 64u : 40u) || e->shoff > len || len - e->shoff < e->shentsize)
		return "bad section header table";
	if (e->shnum == 0)
		e->shnum = e->is64 ? rd(e, e->shoff + 0x20, 8) : rd(e, e->shoff + 0x14, 4);
	if (e->shstrndx == 0xffff)
		e->shstrndx = rd(e, e->shoff + (e->is64 ? 0x28 : 0x18), 4);
	if (e->shnum > (len - e->shoff) / e->shentsize || e->shstrndx >= e->shnum)
		return "bad section header table";
	e->names = sh_at(e, e->shstrndx);
	return NULL;
}

static struct shdr sh_at(const struct elfv *e, uint64_t i)
{
	struct shdr s;
	uint64_t o = e->shoff + i * e->shentsize;
	s.name = (uint32_t)rd(e, o, 4);
	s.type = (uint32_t)rd(e, o + 4, 4);
	if (e->is64) {
		s.flags = rd(e, o + 8, 8);
		s.addr = rd(e, o + 16, 8);
		s.off = rd(e, o + 24, 8);
		s.size = rd(e, o + 32, 8);
		s.link = (uint32_t)rd(e, o + 40, 4);
		s.info = (uint32_t)rd(e, o + 44, 4);
		s.entsize = rd(e, o + 56, 8);
	} else {
		s.flags = rd(e, o + 8, 4);
		s.addr = rd(e, o + 12, 4);
		s.off = rd(e, o + 16, 4);
		s.size = rd(e, o + 20, 4);
		s.link = (uint32_t)rd(e, o + 24, 4);
		s.info = (uint32_t)rd(e, o + 28, 4);
		s.entsize = rd(e, o + 36, 4);
	}
	return s;
}

/* Does the section lie inside the file? */
static bool sh_inside(const struct elfv *e, const struct shdr *s)
{
	return s->type == SHT_NOBITS || (s->off <= e->len && s->size <= e->len - s->off);
}

/* The NUL-terminated string at index i of string table section st, or
 * NULL when it runs off the table. */
static const char *str_at(const struct elfv *e, const struct shdr *st, uint64_t i)
{
	if (!sh_inside(e, st) || i >= st->size)
		return NULL;
	const char *p = (const char *)e->d + st->off + i;
	return memchr(p, '\0', st->size - i) ? p : NULL;
}

static const char *sh_name(const struct elfv *e, const struct shdr *s)
{
	const char *n = e->shoff ? str_at(e, &e->names, s->name) : NULL;
	return n ? n : "";
}

struct sym {
	const char *name;
	uint64_t value, size;
	unsigned bind, type, shndx;
};

static struct sym sym_at(const struct elfv *e, const struct shdr *symtab, const struct shdr *strs,
			 uint64_t i)
{
	struct sym y;
	uint64_t o = symtab->off + i * (e->is64 ? 24 : 16);
	unsigned info;
	if (e->is64) {
		info = (unsigned)rd(e, o + 4, 1);
		y.shndx = (unsigned)rd(e, o + 6, 2);
		y.value = rd(e, o + 8, 8);
		y.size = rd(e, o + 16, 8);
	} else {
		y.value = rd(e, o + 4, 4);
		y.size = rd(e, o + 8, 4);
		info = (unsigned)rd(e, o + 12, 1);
		y.shndx = (unsigned)rd(e, o + 14, 2);
	}
	y.bind = info >> 4;
	y.type = info & 15;
	y.name = str_at(e, strs, rd(e, o, 4));
	if (!y.name)
		y.name = "";
	return y;
}

static uint64_t nsyms(const struct elfv *e, const struct shdr *symtab)
{
	return sh_inside(e, symtab) ? symtab->size / (e->is64 ? 24 : 16) : 0;
}

/* One relocation: where, its type, its symbol. */
struct rel {
	uint64_t off;
	unsigned type;
	uint64_t sym;
};

static struct rel rel_at(const struct elfv *e, const struct shdr *rs, uint64_t i)
{
	struct rel r;
	uint64_t w = e->is64 ? 8 : 4;
	uint64_t o = rs->off + i * (rs->type == SHT_RELA ? 3 * w : 2 * w);
	r.off = rd(e, o, (unsigned)w);
	if (e->mips64_info) {
		/* the symbol's 32 bits, then a byte each: a special symbol,
		 * the third, second and first type (the first names the
		 * relocation; the others, R_MIPS_NONE in a call's, compose
		 * an operation with it) */
		r.sym = rd(e, o + w, 4);
		r.type = (unsigned)rd(e, o + w + 7, 1);
		return r;
	}
	uint64_t info = rd(e, o + w, (unsigned)w);
	r.type = (unsigned)(e->is64 ? info & 0xffffffff : info & 0xff);
	r.sym = e->is64 ? info >> 32 : info >> 8;
	return r;
}

static uint64_t nrels(const struct elfv *e, const struct shdr *rs)
{
	uint64_t w = e->is64 ? 8 : 4;
	return sh_inside(e, rs) ? rs->size / (rs->type == SHT_RELA ? 3 * w : 2 * w) : 0;
}

/* --- the inputs: objects and archives -------------------------------------- */

/* One relocatable object, in a file or an archive. */
struct input {
	char *key;              /* FILE or ARCHIVE(MEMBER), as the map names it */
	struct elfv e;
	bool ok;                /* an ELF relocatable object read */
	unsigned char *hook_sym; /* per symbol: names a hook (the row's spelling's index + 1) */
	uint64_t nsym;
	struct shdr symtab, strs;
	struct strmap secs;     /* section name -> index, -1 if two have it */
	uint32_t *relsec;       /* per section: the index of its relocation section, or 0 */
	bool dup_member;        /* the archive has two members of this name */
};

struct file {
	char *path;
	unsigned char *data;
	size_t len;
};

static struct file *files;
static size_t nfiles, capfiles;

/* The file at path, read whole (mapped); NULL (errno set) if not. */
static struct file *load(const char *path)
{
	for (size_t i = 0; i < nfiles; i++)
		if (strcmp(files[i].path, path) == 0)
			return &files[i];
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	void *p = st.st_size ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	grow(&files, &capfiles, nfiles + 1, sizeof(*files));
	files[nfiles] = (struct file){ xstrndup(path, strlen(path)), p, (size_t)st.st_size };
	return &files[nfiles++];
}

/* Read the object at d into in: its symbols naming a hook, its sections
 * by name and their relocation sections.  A reason if it is no ELF
 * relocatable object of row a. */
static const char *input_read(struct input *in, const struct arch *a, const unsigned char *d,
			      size_t len, bool by_name)
{
	const char *why = elfv_open(&in->e, d, len);
	if (why)
		return why;
	const struct elfv *e = &in->e;
	if (e->type != 1)
		return "not a relocatable object";
	if ((e->is64 ? 64u : 32u) != a->elf_class || e->big != a->big_endian ||
	    rd(e, 18, 2) != a->elf_machine)
		return "an object of another architecture";
	in->e.mips64_info = a->mips64_r_info;
	in->relsec = calloc(e->shnum ? e->shnum : 1, sizeof(*in->relsec));
	if (!in->relsec)
		fatal("out of memory");
	for (uint64_t i = 1; i < e->shnum; i++) {
		struct shdr s = sh_at(e, i);
		if (!sh_inside(e, &s))
			return "a section runs past the end of the file";
		/* (by name: the sections a map can place, allocated ones) */
		int *slot = by_name && (s.flags & SHF_ALLOC) ? strmap_put(&in->secs, sh_name(e, &s), (int)i)
							     : NULL;
		if (slot && *slot != (int)i)
			*slot = -1;
		if (s.type == SHT_SYMTAB && !in->nsym) {
			in->symtab = s;
			if (s.link >= e->shnum)
				return "bad symbol table";
			in->strs = sh_at(e, s.link);
			in->nsym = nsyms(e, &s);
		}
		if ((s.type == SHT_RELA || s.type == SHT_REL) && s.info < e->shnum)
			in->relsec[s.info] = (uint32_t)i;
	}
	in->hook_sym = calloc(in->nsym ? in->nsym : 1, 1);
	if (!in->hook_sym)
		fatal("out of memory");
	for (uint64_t i = 1; i < in->nsym; i++) {
		struct sym y = sym_at(e, &in->symtab, &in->strs, i);
		/* (a section or file symbol has no hook's name) */
		for (size_t h = 0; a->hooks[h]; h++)
			if (strcmp(y.name, a->hooks[h]) == 0)
				in->hook_sym[i] = (unsigned char)(h + 1);
	}
	in->ok = true;
	return NULL;
}

static struct input *inputs;
static size_t ninputs, capinputs;

static struct input *input_new(const char *key)
{
	grow(&inputs, &capinputs, ninputs + 1, sizeof(*inputs));
	struct input *in = &inputs[ninputs++];
	memset(in, 0, sizeof(*in));
	in->key = xstrndup(key, strlen(key));
	return in;
}

/* Each member of the archive f: fn(member's name, data, size, arg); a
 * reason if the archive cannot be read. */
static const char *ar_each(const struct file *f,
			   void (*fn)(const char *name, const unsigned char *d, size_t len, void *arg),
			   void *arg)
{
	if (f->len >= 8 && memcmp(f->data, "!<thin>\n", 8) == 0)
		return "a thin archive";
	const unsigned char *longnames = NULL;
	size_t nlong = 0;
	size_t o = 8;
	while (o + 60 <= f->len) {
		const unsigned char *h = f->data + o;
		char sz[11];
		memcpy(sz, h + 48, 10);
		sz[10] = '\0';
		char *end;
		unsigned long long size = strtoull(sz, &end, 10);
		if (end == sz || h[58] != '`' || h[59] != '\n' || size > f->len - o - 60)
			return "a bad archive member header";
		unsigned long long whole = size;   /* (with a BSD name's bytes) */
		const unsigned char *d = h + 60;
		char name[4096];
		size_t nl = 0;
		if (h[0] == '/' && h[1] == '/' && h[2] == ' ') {
			longnames = d;
			nlong = (size_t)size;
		} else if (h[0] == '/' && (h[1] == ' ' || memcmp(h, "/SYM64/", 7) == 0)) {
			/* the symbol index */
		} else if (h[0] == '/' && h[1] >= '0' && h[1] <= '9') {
			char num[16];
			memcpy(num, h + 1, 15);
			num[15] = '\0';
			unsigned long at = strtoul(num, NULL, 10);
			if (!longnames || at >= nlong)
				return "a bad archive member name";
			while (at + nl < nlong && longnames[at + nl] != '/' && longnames[at + nl] != '\n' &&
			       nl < sizeof(name) - 1)
				nl++;
			memcpy(name, longnames + at, nl);
		} else if (h[0] == '#' && h[1] == '1' && h[2] == '/') {
			/* (BSD: the name's length, the name first in the data) */
			unsigned long n = strtoul((const char *)h + 3, NULL, 10);
			if (n > size || n >= sizeof(name))
				return "a bad archive member name";
			memcpy(name, d, n);
			nl = strnlen(name, n);
			d += n;
			size -= n;
		} else {
			while (nl < 16 && h[nl] != '/' && h[nl] != ' ')
				nl++;
			memcpy(name, h, nl);
		}
		name[nl] = '\0';
		if (nl)
			fn(name, d, (size_t)size, arg);
		o += 60 + (size_t)whole + (whole & 1);
	}
	return NULL;
}

/* --- --bound ---------------------------------------------------------------- */

struct bound {
	const struct arch *a;
	const char *file;
	struct link_bound r;
	const char *why;        /* the first member that could not be read */
};

/* The relocations against a hook in the object at d, and whether it
 * brings a table of its own. */
static void bound_object(const char *name, const unsigned char *d, size_t len, void *arg)
{
	struct bound *b = arg;
	struct input in;
	memset(&in, 0, sizeof(in));
	const char *why = input_read(&in, b->a, d, len, false);
	struct bitcode_info bc;
	if (why && bitcode_is(d, len)) {
		/* (LLVM's LTO: the functions it compiled with a call each) */
		const char *bw = bitcode_read(d, len, &bc);
		if (bw && !b->why)
			b->why = bw;
		if (!bw) {
			b->r.bitcode++;
			b->r.bitcode_functions += bc.functions;
			b->r.thin += bc.thin;
		}
	} else if (why) {
		/* (an archive's member that is no object of the target, such
		 * as a LTO-less archive's text file, is no input of the link;
		 * a named file that is none cannot be read) */
		if (!name && !b->why)
			b->why = why;
	} else {
		unsigned long long calls = 0;
		bool lto = false;
		for (uint64_t i = 1; i < in.e.shnum; i++) {
			struct shdr s = sh_at(&in.e, i);
			const char *sn = sh_name(&in.e, &s);
			if (strcmp(sn, "__mcount_loc") == 0)
				b->r.tabled = true;
			/* (GCC's intermediate language: an LTO object) */
			if (strncmp(sn, ".gnu.lto_", 9) == 0)
				lto = true;
			if ((s.type != SHT_RELA && s.type != SHT_REL) || s.link >= in.e.shnum)
				continue;
			/* (calls are in code: the map's code sections are all
			 * --fill-linked reads; not mips's .pdr, say, whose
			 * words name each function) */
			if (s.info >= in.e.shnum || (sh_at(&in.e, s.info).flags & (SHF_ALLOC | SHF_EXECINSTR)) !=
			    (SHF_ALLOC | SHF_EXECINSTR))
				continue;
			for (uint64_t r = 0, n = nrels(&in.e, &s); r < n; r++) {
				struct rel x = rel_at(&in.e, &s, r);
				if (!x.sym || x.sym >= in.nsym || !in.hook_sym[x.sym])
					continue;
				/* (the rest of a call sequence, as mips's jalr after
				 * its GOT load, is no call of its own) */
				const char *hook = b->a->hooks[in.hook_sym[x.sym] - 1];
				const char *tname = arch_reloc_name(b->a, x.type);
				const struct call_form *f = tname ? arch_form(b->a, tname, hook, strlen(hook)) : NULL;
				if (!f || f->kind != FORM_COMPANION)
					calls++;
			}
		}
		b->r.calls += calls;
		if (lto) {
			b->r.lto++;
			b->r.lto_calls += calls;
			/* (a slim object, -fno-fat-lto-objects, has no code of
			 * its own: its calls are not known before LTO) */
			for (uint64_t i = 1; i < in.nsym; i++)
				if (strcmp(sym_at(&in.e, &in.symtab, &in.strs, i).name, "__gnu_lto_slim") == 0) {
					b->r.slim++;
					break;
				}
		}
	}
	free(in.hook_sym);
	free(in.relsec);
	strmap_free(&in.secs);
}

void link_bound(const struct arch *a, int n, char **paths, struct link_bound *r)
{
	struct bound b = { .a = a };
	for (int i = 0; i < n; i++) {
		diag_file = paths[i];
		const struct file *f = load(paths[i]);
		if (!f)
			fatal("%s", strerror(errno));
		b.file = paths[i];
		if (f->len >= 8 && (memcmp(f->data, "!<arch>\n", 8) == 0 || memcmp(f->data, "!<thin>\n", 8) == 0)) {
			const char *why = ar_each(f, bound_object, &b);
			if (why)
				fatal("%s", why);
		} else {
			bound_object(NULL, f->data, f->len, &b);
		}
		if (b.why)
			fatal("%s", b.why);
	}
	diag_file = NULL;
	*r = b.r;
	/* The bound: each call an input's code has, and for the code LTO
	 * generates again, twice its fat objects' calls and some: LTO's
	 * inlining across units removes calls, its clones (.constprop,
	 * .isra, .part) add functions, each with a call of its own.  A bound
	 * LTO exceeds is found after the link (--fill-linked refuses). */
	r->bound = r->calls + (r->lto ? r->lto_calls + LTO_SLACK : 0);
	/* clang's: its bitcode's functions twice and some (its inlining
	 * across objects copies their calls) */
	if (r->bitcode)
		r->bound += 2 * r->bitcode_functions + LTO_SLACK;
}

/* --- the placeholder's object ---------------------------------------------------- */

/* What the assembler makes of emit_placeholder's assembly, without it:
 * __mcount_loc (allocated, writable, retained) of n zero words, a
 * relocation each against the undefined __ehdr_start (addend 0), the
 * symbol table, an empty .note.GNU-stack.  Its sections in the file:
 * the table, its relocations, the note, .symtab, .strtab, .shstrtab. */
bool link_placeholder_object(const struct arch *a, unsigned long n, const char *path)
{
	if (!a->word_reloc)
		return false;
	bool is64 = a->elf_class == 64, big = a->big_endian;
	unsigned word = a->entry_size;
	unsigned ehsize = is64 ? 64 : 52, shent = is64 ? 64 : 40, syment = is64 ? 24 : 16;
	unsigned relent = a->rela ? (is64 ? 24 : 12) : (is64 ? 16 : 8);
	static const char strtab[] = "\0__ehdr_start";
	const char *relname = a->rela ? ".rela__mcount_loc" : ".rel__mcount_loc";
	/* .shstrtab: "", the names in section order */
	const char *names[] = { "__mcount_loc", relname, ".note.GNU-stack", ".symtab", ".strtab",
				".shstrtab" };
	char shstr[128];
	size_t nshstr = 1, name_at[6];
	shstr[0] = '\0';
	for (int i = 0; i < 6; i++) {
		name_at[i] = nshstr;
		memcpy(shstr + nshstr, names[i], strlen(names[i]) + 1);
		nshstr += strlen(names[i]) + 1;
	}
#define UP(x) (((x) + word - 1) / word * word)
	uint64_t tab_off = UP(ehsize), tab_size = (uint64_t)n * word;
	uint64_t rel_off = UP(tab_off + tab_size), rel_size = (uint64_t)n * relent;
	uint64_t sym_off = UP(rel_off + rel_size), sym_size = 2 * (uint64_t)syment;
	uint64_t str_off = sym_off + sym_size, shs_off = str_off + sizeof(strtab);
	uint64_t sh_off = UP(shs_off + nshstr);
#undef UP
	FILE *f = fopen(path, "wb");
	if (!f)
		fatal("cannot write %s: %s", path, strerror(errno));
	unsigned char b[4096];
	/* the ELF header */
	memset(b, 0, sizeof(b));
	memcpy(b, "\177ELF", 4);
	b[4] = is64 ? 2 : 1;
	b[5] = big ? 2 : 1;
	b[6] = 1;
	b[7] = 3;                                       /* ELFOSABI_GNU: SHF_GNU_RETAIN */
	wr(b + 16, 1, 2, big);                          /* ET_REL */
	wr(b + 18, a->elf_machine, 2, big);
	wr(b + 20, 1, 4, big);
	wr(b + (is64 ? 0x28 : 0x20), sh_off, is64 ? 8 : 4, big);
	wr(b + (is64 ? 0x34 : 0x28), ehsize, 2, big);
	wr(b + (is64 ? 0x3a : 0x2e), shent, 2, big);
	wr(b + (is64 ? 0x3c : 0x30), 7, 2, big);
	wr(b + (is64 ? 0x3e : 0x32), 6, 2, big);
	fwrite(b, 1, tab_off, f);
	/* the table: zeros (REL's addends in place are 0 too) */
	memset(b, 0, sizeof(b));
	for (uint64_t left = tab_size; left; ) {
		size_t k = left < sizeof(b) ? (size_t)left : sizeof(b);
		fwrite(b, 1, k, f);
		left -= k;
	}
	fwrite(b, 1, rel_off - (tab_off + tab_size), f);
	/* the relocations: symbol 1 (__ehdr_start), the word's type */
	unsigned per = (unsigned)(sizeof(b) / relent);
	for (unsigned long i = 0; i < n; ) {
		unsigned k = 0;
		memset(b, 0, sizeof(b));
		for (; k < per && i < n; k++, i++) {
			unsigned char *p = b + (size_t)k * relent;
			wr(p, (uint64_t)i * word, is64 ? 8 : 4, big);
			if (is64)
				wr(p + 8, (uint64_t)1 << 32 | a->word_reloc, 8, big);
			else
				wr(p + 4, 1u << 8 | a->word_reloc, 4, big);
		}
		fwrite(b, relent, k, f);
	}
	memset(b, 0, sizeof(b));
	fwrite(b, 1, sym_off - (rel_off + rel_size), f);
	/* the symbols: the null one, __ehdr_start (global, undefined) */
	unsigned char *y = b + syment;
	wr(y, 1, 4, big);
	y[is64 ? 4 : 12] = 0x10;                        /* STB_GLOBAL, STT_NOTYPE */
	fwrite(b, 1, sym_size, f);
	fwrite(strtab, 1, sizeof(strtab), f);
	fwrite(shstr, 1, nshstr, f);
	memset(b, 0, sizeof(b));
	fwrite(b, 1, sh_off - (shs_off + nshstr), f);
	/* the section headers */
	struct { uint32_t type; uint64_t flags, off, size; uint32_t link, info; uint64_t align, entsize; } sh[7] = {
		{ 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 1 /* PROGBITS */, 0x200003 /* WA, GNU_RETAIN */, tab_off, tab_size, 0, 0, word, 0 },
		{ a->rela ? SHT_RELA : SHT_REL, 0x40 /* INFO_LINK */, rel_off, rel_size, 4, 1, word, relent },
		{ 1, 0, sym_off, 0, 0, 0, 1, 0 },
		{ SHT_SYMTAB, 0, sym_off, sym_size, 5, 1, word, syment },
		{ 3 /* STRTAB */, 0, str_off, sizeof(strtab), 0, 0, 1, 0 },
		{ 3, 0, shs_off, nshstr, 0, 0, 1, 0 },
	};
	for (int i = 0; i < 7; i++) {
		memset(b, 0, shent);
		unsigned w = is64 ? 8 : 4;
		wr(b, i ? name_at[i - 1] : 0, 4, big);
		wr(b + 4, sh[i].type, 4, big);
		wr(b + 8, sh[i].flags, w, big);
		wr(b + 8 + 2 * w, sh[i].off, w, big);
		wr(b + 8 + 3 * w, sh[i].size, w, big);
		wr(b + 8 + 4 * w, sh[i].link, 4, big);
		wr(b + 12 + 4 * w, sh[i].info, 4, big);
		wr(b + 16 + 4 * w, sh[i].align, w, big);
		wr(b + 16 + 5 * w, sh[i].entsize, w, big);
		fwrite(b, 1, shent, f);
	}
	if (fflush(f) != 0 || ferror(f) || fclose(f) != 0)
		fatal("write error on %s: %s", path, strerror(errno));
	return true;
}

/* --- --fill-linked ------------------------------------------------------------ */

static char refusal[1024];
/* --fill-linked --dropped=FILE: where the calls left out go (hex, a
 * line each), the image mapped privately (nothing written to it) */
static FILE *dropped_to;

static bool refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool refuse(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(refusal, sizeof(refusal), fmt, ap);
	va_end(ap);
	return false;
}

struct member_find {
	const char *want;
	const unsigned char *d;
	size_t len;
	unsigned found;
};

static void find_member(const char *name, const unsigned char *d, size_t len, void *arg)
{
	struct member_find *m = arg;
	if (strcmp(name, m->want) != 0)
		return;
	if (!m->found++) {
		m->d = d;
		m->len = len;
	}
}

/* The input the map names file (FILE or ARCHIVE(MEMBER)); NULL if it
 * is no file, with *why where it is one that cannot be read. */
static struct input *input_of(const char *file, const struct arch *a, const char **why)
{
	static struct strmap byname;
	int *slot = strmap_get(&byname, file);
	*why = NULL;
	if (slot)
		return *slot >= 0 ? &inputs[*slot] : NULL;
	slot = strmap_put(&byname, file, -1);
	size_t len = strlen(file);
	const struct file *f = NULL;
	const char *member = NULL;
	char *arpath = NULL;
	if (len > 2 && file[len - 1] == ')') {
		const char *open_ = strrchr(file, '(');
		if (open_ && open_ > file) {
			arpath = xstrndup(file, (size_t)(open_ - file));
			struct stat st;
			if (stat(arpath, &st) == 0 && S_ISREG(st.st_mode)) {
				f = load(arpath);
				member = open_ + 1;
			}
		}
	}
	if (!member) {
		struct stat st;
		if (stat(file, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(arpath);
			return NULL;
		}
		f = load(file);
	}
	free(arpath);
	if (!f) {
		*why = strerror(errno);
		return NULL;
	}
	const unsigned char *d = f->data;
	size_t dlen = f->len;
	struct input *in = input_new(file);
	if (member) {
		char *want = xstrndup(member, strlen(member) - 1);
		struct member_find m = { .want = want };
		const char *w = f->len >= 8 && memcmp(f->data, "!<arch>\n", 8) == 0 ? ar_each(f, find_member, &m)
			: "not an archive";
		free(want);
		if (w || !m.found) {
			*why = w ? w : "no such member";
			return NULL;
		}
		in->dup_member = m.found > 1;
		d = m.d;
		dlen = m.len;
	}
	*why = input_read(in, a, d, dlen, true);
	if (*why)
		return NULL;
	*slot = (int)(in - inputs);
	return in;
}

/* One input section the map lays out. */
struct laid {
	char *out, *name, *file;
	uint64_t addr, size;
};

/* lld's map: a head line naming its columns ("VMA LMA Size Align Out In
 * Symbol"; "Address Size Align ..." before lld 9), then a line per
 * output section (its name in the Out column), per input section
 * ("FILE:(SECTION)" in the In column; <internal> for the linker's own)
 * and per symbol (further right): the numbers in hex, no 0x.  A line
 * that is none of these (a script's assignment) is passed over.  NULL
 * with *count 0 when the text is no lld map. */
static struct laid *read_lld_map(char *text, size_t msize, const struct strmap *code, size_t *count)
{
	*count = 0;
	char *nl = memchr(text, '\n', msize);
	size_t hlen = nl ? (size_t)(nl - text) : msize;
	/* (the head: the numbers' columns before Out, Out's and In's place) */
	char *head = xstrndup(text, hlen);
	char *out_at = strstr(head, " Out "), *in_at = strstr(head, " In ");
	size_t nnum = 0;
	for (char *p = head; out_at && p < out_at; ) {
		while (p < out_at && *p == ' ')
			p++;
		if (p >= out_at)
			break;
		nnum++;
		while (p < out_at && *p != ' ')
			p++;
	}
	bool lld = out_at && in_at && in_at > out_at && strstr(in_at, " Symbol") &&
		   (nnum == 4 || nnum == 3) && strncmp(head + strspn(head, " "), nnum == 4 ? "VMA" : "Address", 3) == 0;
	size_t outcol = out_at ? (size_t)(out_at - head) + 1 : 0, incol = in_at ? (size_t)(in_at - head) + 1 : 0;
	free(head);
	if (!lld)
		return NULL;
	struct laid *r = NULL;
	size_t n = 0, cap = 0;
	char *out = NULL;
	bool out_code = false;
	for (char *line = nl ? nl + 1 : text + msize, *next; line < text + msize; line = next) {
		char *e = memchr(line, '\n', (size_t)(text + msize - line));
		next = e ? e + 1 : text + msize;
		size_t got = (size_t)((e ? e : text + msize) - line);
		while (got > 0 && (line[got - 1] == ' ' || line[got - 1] == '\r'))
			got--;
		line[got] = '\0';
		if (got > outcol && line[outcol] != ' ' && line[outcol - 1] == ' ') {
			/* an output section (or a script's assignment: no code) */
			free(out);
			out = xstrndup(line + outcol, got - outcol);
			out_code = strmap_get(code, out) != NULL;
			continue;
		}
		/* (most lines: a symbol's, right of the In column) */
		if (!out_code || got <= incol || line[incol] == ' ' || strspn(line + outcol, " ") != incol - outcol)
			continue;
		/* the numbers: the address first, the size before the alignment */
		char *w[4];
		char *p = line;
		for (size_t k = 0; k < nnum; k++) {
			p += strspn(p, " ");
			w[k] = p;
			p += strcspn(p, " ");
		}
		char *in = line + incol, *end = line + got;
		/* FILE:(SECTION); a piece of a section (+0x...) is no code's */
		char *sep = NULL;
		for (char *q = end - 2; q > in && !sep; q--)
			if (q[0] == ':' && q[1] == '(')
				sep = q;
		if (!sep || end[-1] != ')' || strncmp(in, "<internal>", 10) == 0)
			continue;
		*sep = '\0';
		end[-1] = '\0';
		char *x;
		uint64_t addr = strtoull(w[0], &x, 16);
		if (x == w[0])
			continue;
		grow(&r, &cap, n + 1, sizeof(*r));
		r[n++] = (struct laid){ xstrndup(out, strlen(out)), xstrndup(sep + 2, strlen(sep + 2)),
			xstrndup(in, strlen(in)), addr, strtoull(w[nnum - 2], NULL, 16) };
	}
	free(out);
	*count = n;
	return r ? r : xmalloc(1);
}

/* lld names each object its LTO wrote "lto.tmp": each input section so
 * named given the one of the nlto objects at lto (kept by the link) that
 * has a section of code of that name and size, where one alone has it
 * (else it stays unknown, and the table is refused if it calls the
 * hook). */
static void lld_lto_names(struct laid *laid, size_t n, char **lto, int nlto)
{
	struct strmap where = { 0 };    /* "SIZE NAME" -> the object's index, -1 if two have it */
	for (int k = 0; k < nlto; k++) {
		const struct file *f = load(lto[k]);
		struct elfv e;
		if (!f || elfv_open(&e, f->data, f->len) || e.type != 1)
			continue;
		for (uint64_t i = 1; i < e.shnum; i++) {
			struct shdr s = sh_at(&e, i);
			if (!(s.flags & SHF_EXECINSTR) || !(s.flags & SHF_ALLOC) || !s.size)
				continue;
			char key[4096];
			snprintf(key, sizeof(key), "%llx %s", (unsigned long long)s.size, sh_name(&e, &s));
			int *slot = strmap_put(&where, key, k);
			if (*slot != k)
				*slot = -1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(laid[i].file, "lto.tmp") != 0)
			continue;
		char key[4096];
		snprintf(key, sizeof(key), "%llx %s", (unsigned long long)laid[i].size, laid[i].name);
		int *k = strmap_get(&where, key);
		if (k && *k >= 0) {
			free(laid[i].file);
			laid[i].file = xstrndup(lto[*k], strlen(lto[*k]));
		}
	}
	strmap_free(&where);
}

/* The linker's map (GNU ld's, gold's, lld's): each input section laid
 * out. */
static struct laid *read_map(const char *path, const struct strmap *code, size_t *count, char **lto, int nlto)
{
	/* (read whole: a large program's map is megabytes of short lines) */
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		fatal("cannot read %s: %s", path, strerror(errno));
	size_t msize = (size_t)st.st_size;
	char *text = xmalloc(msize + 1);
	if (elf_read_at(fd, 0, text, msize) != (long)msize)
		fatal("cannot read %s: %s", path, strerror(errno));
	close(fd);
	text[msize] = '\0';
	struct laid *r = read_lld_map(text, msize, code, count);
	if (r) {
		free(text);
		lld_lto_names(r, *count, lto, nlto);
		return r;
	}
	size_t n = 0, cap = 0;
	char *out = NULL, *pend_out = NULL, *pend_in = NULL;
	bool body = false, out_code = false;
	for (char *line = text, *next; line < text + msize; line = next) {
		char *nl = memchr(line, '\n', (size_t)(text + msize - line));
		next = nl ? nl + 1 : text + msize;
		size_t got = (size_t)((nl ? nl : text + msize) - line);
		while (got > 0 && (line[got - 1] == ' ' || line[got - 1] == '\t' || line[got - 1] == '\r'))
			got--;
		line[got] = '\0';
		if (!body) {
			body = strcmp(line, "Linker script and memory map") == 0 || strcmp(line, "Memory map") == 0;
			continue;
		}
		/* (most lines: a symbol's, indented further than an input
		 * section's, and nothing pending that it could complete) */
		if (line[0] == ' ' && (line[1] == ' ' || line[1] == '\t') && !pend_in && !pend_out)
			continue;
		/* the words of the line */
		char *w[4] = { NULL };
		size_t nw = 0;
		char *p = line;
		bool indented = *p == ' ' || *p == '\t';
		bool one_space = p[0] == ' ' && p[1] && p[1] != ' ' && p[1] != '\t' && p[1] != '*';
		char *rest = NULL;      /* the line after the third word */
		while (*p && nw < 4) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (!*p)
				break;
			if (nw == 3) {
				rest = p;
				break;
			}
			w[nw++] = p;
			p += strcspn(p, " \t");
			if (*p)
				*p++ = '\0';
		}
		bool hex1 = nw >= 2 && strncmp(w[1], "0x", 2) == 0;
		bool hex0 = nw >= 1 && strncmp(w[0], "0x", 2) == 0;
		if (!indented && nw == 1) {
			free(pend_out);
			pend_out = xstrndup(w[0], strlen(w[0]));
			free(pend_in);
			pend_in = NULL;
			continue;
		}
		if (!indented && hex1) {
			free(out);
			out = xstrndup(w[0], strlen(w[0]));
			out_code = strmap_get(code, out) != NULL;
			free(pend_out);
			free(pend_in);
			pend_out = pend_in = NULL;
			continue;
		}
		if (pend_out && indented && nw == 2 && hex0 && hex1) {
			free(out);
			out = pend_out;
			out_code = strmap_get(code, out) != NULL;
			pend_out = NULL;
			continue;
		}
		free(pend_out);
		pend_out = NULL;
		if (one_space && nw == 1) {
			free(pend_in);
			pend_in = xstrndup(w[0], strlen(w[0]));
			continue;
		}
		const char *name = NULL, *addr = NULL, *size = NULL, *file = NULL;
		if (one_space && nw == 3 && rest && hex1 && strncmp(w[2], "0x", 2) == 0) {
			name = w[0], addr = w[1], size = w[2], file = rest;
		} else if (pend_in && indented && nw >= 3 && hex0 && hex1) {
			name = pend_in, addr = w[0], size = w[1], file = w[2];
			if (rest)
				w[2][strlen(w[2])] = ' '; /* (a file name with spaces: the rest of the line) */
		}
		/* (the sections laid out in code: the others hold no call) */
		if (name && out && out_code) {
			grow(&r, &cap, n + 1, sizeof(*r));
			r[n++] = (struct laid){ xstrndup(out, strlen(out)), xstrndup(name, strlen(name)),
				xstrndup(file, strlen(file)), strtoull(addr + 2, NULL, 16),
				strtoull(size + 2, NULL, 16) };
		}
		free(pend_in);
		pend_in = NULL;
	}
	free(text);
	free(out);
	free(pend_out);
	free(pend_in);
	*count = n;
	return r;
}

/* The output, mapped to be written in place. */
struct output {
	struct elfv e;
	unsigned char *w;
	struct shdr *sh;
};

/* The len bytes at address addr of the output's allocated contents, or
 * NULL. */
static const unsigned char *bytes_at(const struct output *o, uint64_t addr, uint64_t len)
{
	static uint64_t last;
	for (uint64_t k = 0; k < o->e.shnum; k++) {
		uint64_t i = (last + k) % o->e.shnum;
		const struct shdr *s = &o->sh[i];
		if (!(s->flags & SHF_ALLOC) || s->type == SHT_NOBITS || addr < s->addr ||
		    addr - s->addr > s->size || s->size - (addr - s->addr) < len || !sh_inside(&o->e, s))
			continue;
		last = i;
		return o->e.d + s->off + (addr - s->addr);
	}
	return NULL;
}

/* Does the output have a call of form f whose entry is at address start:
 * the form's opcode at one of its places (arch.h's check_at; sh's literal
 * word is checked at the jmp before it), and the call's own bytes there? */
static bool form_matches(const struct output *o, uint64_t start, const struct call_form *f)
{
	if (!bytes_at(o, start + f->lead, f->insn_len))
		return false;
	for (unsigned k = 0, places = f->ncheck == 2 ? 2 : 1; k < places; k++) {
		const unsigned char *b = bytes_at(o, start + (uint64_t)(int64_t)f->check_at[k], f->oplen);
		unsigned i = 0;
		while (b && i < f->oplen && (b[i] & f->opmask[i]) == f->opcode[i])
			i++;
		if (b && i == f->oplen)
			return true;
	}
	return false;
}

/* One relocation against a hook in an input section, and its form. */
struct hook_rel {
	uint64_t off;
	unsigned type;
	const struct call_form *f;
};

static int cmp_hook_rel(const void *x, const void *y)
{
	const struct hook_rel *a = x, *b = y;
	return a->off < b->off ? -1 : a->off > b->off;
}

struct site_at {
	uint64_t start;
	size_t in;              /* the index of its input */
	uint32_t sec;           /* the input section's index */
	uint64_t off, addr;     /* the call's offset in it; the section's address */
};

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

struct range {
	uint64_t lo, hi;
};

static int cmp_range(const void *x, const void *y)
{
	const struct range *a = x, *b = y;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Is addr in one of the n sorted ranges (looking back at most 64 for
 * one that starts before it and reaches it)? */
static bool covered(const struct range *r, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (r[m].lo > addr)
			hi = m;
		else
			lo = m + 1;
	}
	for (size_t i = lo, k = 0; i > 0 && k <= 64; i--, k++)
		if (addr < r[i - 1].hi)
			return true;
	return false;
}

#define SHT_RELR 19
#define SHT_ANDROID_REL 0x60000001
#define SHT_ANDROID_RELA 0x60000002
#define SHT_ANDROID_RELR 0x6fffff00

/* Each address a RELR section relocates (the slot holds its addend):
 * fn(address, arg).  An even word is an address, the next one a word
 * after it; an odd word a bitmap of the (8 * word - 1) words from there,
 * bit 1 for the first. */
static void relr_each(const struct elfv *e, const struct shdr *rs, unsigned word,
		      void (*fn)(uint64_t addr, void *arg), void *arg)
{
	uint64_t where = 0;
	for (uint64_t off = 0; off + word <= rs->size; off += word) {
		uint64_t v = rd(e, rs->off + off, word);
		if (!(v & 1)) {
			fn(v, arg);
			where = v + word;
			continue;
		}
		uint64_t at = where;
		for (v >>= 1; v; v >>= 1, at += word)
			if (v & 1)
				fn(at, arg);
		where += (8 * (uint64_t)word - 1) * word;
	}
}

struct relr_count {
	const struct shdr *tab;
	unsigned word;
	uint64_t in, odd;       /* slots relocated; addresses in the table but no slot's */
};

static void relr_count_one(uint64_t addr, void *arg)
{
	struct relr_count *c = arg;
	if (addr < c->tab->addr || addr >= c->tab->addr + c->tab->size)
		return;
	if ((addr - c->tab->addr) % c->word)
		c->odd++;
	else
		c->in++;
}

/* The table's entries and the dynamic relocations of its slots written:
 * relative ones (no symbol), in RELA, REL or RELR sections, a slot each
 * or none.  A REL or RELR slot holds its addend, a RELA one's addend is
 * in the relocation: the slot holds the entry too where the linker
 * writes the places of relative relocations (GNU ld and gold do, lld
 * only with --apply-dynamic-relocs): the first other relocation of the
 * table's type with an addend tells, the place holding it or 0.  False,
 * refusal[] said, before any write, where it cannot. */
static struct {
	const char *kind;       /* the slots' dynamic relocations: RELA, REL, RELR, or none */
	uint64_t n;
} table_dyn = { "none", 0 };

static bool table_relocs(struct output *o, const struct shdr *tab, unsigned word, const uint64_t *sites,
			 size_t ns)
{
	const struct elfv *e = &o->e;
	uint64_t slots = tab->size / word, covered_slots = 0;
	bool rela = false;
	unsigned rtype = 0;
	for (uint64_t i = 1; i < e->shnum; i++) {
		const struct shdr *rs = &o->sh[i];
		if (!(rs->flags & SHF_ALLOC))
			continue;
		if (rs->type == SHT_ANDROID_REL || rs->type == SHT_ANDROID_RELA || rs->type == SHT_ANDROID_RELR)
			return refuse("the output's dynamic relocations are packed (Android's), which this does "
				      "not read");
		if (rs->type == SHT_RELR) {
			struct relr_count c = { tab, word, 0, 0 };
			if (!sh_inside(e, rs))
				return refuse("the output's RELR relocations run past its end");
			relr_each(e, rs, word, relr_count_one, &c);
			if (c.odd)
				return refuse("the table's dynamic relocations are not relative");
			covered_slots += c.in;
			if (c.in)
				table_dyn.kind = "RELR";
			continue;
		}
		if (rs->type != SHT_RELA && rs->type != SHT_REL)
			continue;
		for (uint64_t r = 0, n = nrels(e, rs); r < n; r++) {
			struct rel x = rel_at(e, rs, r);
			if (x.off < tab->addr || x.off >= tab->addr + tab->size)
				continue;
			if (x.sym || (x.off - tab->addr) % word)
				return refuse("the table's dynamic relocations are not relative");
			covered_slots++;
			rtype = x.type;
			rela |= rs->type == SHT_RELA;
			table_dyn.kind = rs->type == SHT_RELA ? "RELA" : "REL";
		}
	}
	if (covered_slots && covered_slots != slots)
		return refuse("the table's dynamic relocations are not relative");
	table_dyn.n = covered_slots;
	bool in_place = true;
	for (uint64_t i = 1; rela && i < e->shnum; i++) {
		const struct shdr *rs = &o->sh[i];
		if (rs->type != SHT_RELA || !(rs->flags & SHF_ALLOC))
			continue;
		uint64_t decided = 0;
		for (uint64_t r = 0, n = nrels(e, rs); r < n && !decided; r++) {
			struct rel x = rel_at(e, rs, r);
			uint64_t addend = rd(e, rs->off + r * 3 * word + 2 * word, word);
			const unsigned char *b = x.sym || x.type != rtype || !addend ||
				(x.off >= tab->addr && x.off < tab->addr + tab->size) ? NULL : bytes_at(o, x.off, word);
			if (!b)
				continue;
			uint64_t v = 0;
			for (unsigned k = 0; k < word; k++)
				v |= (uint64_t)b[e->big ? word - 1 - k : k] << (8 * k);
			if (v == addend || v == 0) {
				in_place = v == addend;
				decided = 1;
			}
		}
		if (decided)
			break;
	}
	for (uint64_t i = 1; rela && i < e->shnum; i++) {
		const struct shdr *rs = &o->sh[i];
		if (rs->type != SHT_RELA || !(rs->flags & SHF_ALLOC))
			continue;
		for (uint64_t r = 0, n = nrels(e, rs); r < n; r++) {
			struct rel x = rel_at(e, rs, r);
			if (x.off < tab->addr || x.off >= tab->addr + tab->size)
				continue;
			uint64_t slot = (x.off - tab->addr) / word;
			wr(o->w + rs->off + r * 3 * word + 2 * word, slot < ns ? sites[slot] : 0, word, e->big);
		}
	}
	for (uint64_t i = 0; i < slots; i++)
		wr(o->w + tab->off + i * word, i < ns && in_place ? sites[i] : 0, word, e->big);
	return true;
}

/* The work of --fill-linked; false with refusal[] said where there is
 * no table to stand behind (nothing written then). */
/* (a refusal in fill(): what it holds freed on the way out) */
#define REFUSE_GOTO(...) do { refuse(__VA_ARGS__); goto fail; } while (0)

static bool fill(const struct arch *a, struct output *o, const struct laid *laid, size_t nlaid,
		 unsigned long long *nsites, unsigned long long *nslots, unsigned long long *ndropped)
{
	const struct elfv *e = &o->e;
	unsigned word = a->entry_size;
	struct site_at *at = NULL;
	size_t nat = 0, capat = 0;
	struct hook_rel *hr = NULL;
	size_t nhr = 0, caphr = 0;
	uint64_t *sites = NULL;
	/* the output's sections of code, by name */
	for (size_t k = 0; k < nlaid; k++) {
		const struct laid *l = &laid[k];
		const char *why;
		struct input *in = input_of(l->file, a, &why);
		if (!in) {
			/* (GNU ld's own input of the code it makes: veneers,
			 * long-branch and PLT call stubs, which call the hook
			 * only for a call of an input's, recorded there) */
			if (!l->size || (!why && strcmp(l->file, "linker stubs") == 0))
				continue;
			REFUSE_GOTO("the map names an input whose calls are not known: %s%s%s", l->file,
				    why ? ": " : "", why ? why : "");
		}
		int *sec = strmap_get(&in->secs, l->name);
		if (!sec)
			continue;
		if (in->dup_member)
			REFUSE_GOTO("the archive of %s has two members of that name", l->file);
		uint32_t rs_i = *sec > 0 ? in->relsec[*sec] : 0;
		struct shdr rs;
		if (*sec < 0) {
			/* (two sections of the name: the map does not say which;
			 * refused only where one calls the hook) */
			for (uint64_t i = 1; i < in->e.shnum; i++) {
				struct shdr s = sh_at(&in->e, i);
				if (strcmp(sh_name(&in->e, &s), l->name) != 0 || !in->relsec[i])
					continue;
				rs = sh_at(&in->e, in->relsec[i]);
				for (uint64_t r = 0, n = nrels(&in->e, &rs); r < n; r++) {
					struct rel x = rel_at(&in->e, &rs, r);
					if (x.sym < in->nsym && in->hook_sym[x.sym])
						REFUSE_GOTO("%s has two sections %s", l->file, l->name);
				}
			}
			continue;
		}
		if (!rs_i)
			continue;
		rs = sh_at(&in->e, rs_i);
		/* the section's relocations against a hook, by offset (a call
		 * sequence's companions after its site, as object mode reads
		 * them) */
		nhr = 0;
		for (uint64_t r = 0, n = nrels(&in->e, &rs); r < n; r++) {
			struct rel x = rel_at(&in->e, &rs, r);
			if (!x.sym || x.sym >= in->nsym || !in->hook_sym[x.sym])
				continue;
			const char *hook = a->hooks[in->hook_sym[x.sym] - 1];
			const char *tname = arch_reloc_name(a, x.type);
			const struct call_form *f = tname ? arch_form(a, tname, hook, strlen(hook)) : NULL;
			if (!f)
				REFUSE_GOTO("%s: relocation type %u at %s+0x%llx is no call to the hook",
					    l->file, x.type, l->name, (unsigned long long)x.off);
			grow(&hr, &caphr, nhr + 1, sizeof(*hr));
			hr[nhr++] = (struct hook_rel){ x.off, x.type, f };
		}
		if (nhr)
			qsort(hr, nhr, sizeof(*hr), cmp_hook_rel);
		uint64_t site_off = 0;
		bool have_site = false;
		for (size_t r = 0; r < nhr; r++) {
			const struct call_form *f = hr[r].f;
			uint64_t off = hr[r].off;
			if (have_site && off == site_off)
				continue;   /* (a second relocation at the site's place) */
			if (f->kind == FORM_COMPANION) {
				/* the rest of the call sequence of the site before it:
				 * no entry of its own */
				if (!have_site || off - site_off > f->span)
					REFUSE_GOTO("%s: relocation type %u at %s+0x%llx belongs to a call "
						    "sequence, but no call comes at most %u bytes before it",
						    l->file, hr[r].type, l->name, (unsigned long long)off, f->span);
				continue;
			}
			if (off < f->field_offset + f->lead)
				REFUSE_GOTO("%s: relocation type %u at %s+0x%llx has no room for its call "
					    "before it", l->file, hr[r].type, l->name, (unsigned long long)off);
			site_off = off;
			have_site = true;
			uint64_t start = l->addr + off - f->field_offset - f->lead;
			if (!form_matches(o, start, f)) {
				const struct call_form *g = NULL;
				for (size_t i = 0; i < a->nforms && !g; i++) {
					const struct call_form *c = &a->forms[i];
					if (c->linker_made && c->insn_len == f->insn_len &&
					    c->field_offset == f->field_offset && c->lead == f->lead &&
					    form_matches(o, start, c))
						g = c;
				}
				if (!g)
					REFUSE_GOTO("the call at 0x%llx (%s+0x%llx of %s) is not where the link "
						    "was expected to put it", (unsigned long long)start,
						    l->name, (unsigned long long)off, l->file);
				start += g->call_at;
			}
			grow(&at, &capat, nat + 1, sizeof(*at));
			at[nat++] = (struct site_at){ start, (size_t)(in - inputs), (uint32_t)*sec, off, l->addr };
		}
	}
	free(hr);
	hr = NULL;

	sites = xmalloc((nat ? nat : 1) * sizeof(*sites));
	for (size_t i = 0; i < nat; i++)
		sites[i] = at[i].start;
	qsort(sites, nat, sizeof(*sites), cmp_u64);
	size_t ns = 0;
	for (size_t i = 0; i < nat; i++)
		if (!ns || sites[ns - 1] != sites[i])
			sites[ns++] = sites[i];

	/* the table */
	const struct shdr *tab = NULL;
	for (uint64_t i = 1; i < e->shnum; i++)
		if (strcmp(sh_name(e, &o->sh[i]), "__mcount_loc") == 0)
			tab = &o->sh[i];
	uint64_t slots = tab ? tab->size / word : 0;
	if (tab && (tab->type == SHT_NOBITS || !sh_inside(e, tab) || tab->size % word))
		REFUSE_GOTO("the output's __mcount_loc is not a table of whole entries");
	if (ns > slots && !dropped_to)
		REFUSE_GOTO("the link has %zu calls to the hook, more than the %llu its inputs gave", ns,
			    (unsigned long long)slots);

	/* none in the copy of a weak function that another definition
	 * overrode: no function of the output's symbol table holds it, and
	 * its input's weak function symbol there has a global of its name
	 * elsewhere (without a symbol table, all kept) */
	struct shdr symtab = { 0 }, strs = { 0 };
	for (uint64_t i = 1; i < e->shnum; i++)
		if (o->sh[i].type == SHT_SYMTAB && o->sh[i].link < e->shnum) {
			symtab = o->sh[i];
			strs = o->sh[o->sh[i].link];
		}
	size_t dropped = 0;
	if (symtab.size && ns) {
		struct range *r = NULL;
		size_t nr = 0, capr = 0;
		struct strmap globals = { 0 };
		uint64_t *gval = NULL;
		size_t ng = 0, capg = 0;
		for (uint64_t i = 1, n = nsyms(e, &symtab); i < n; i++) {
			struct sym y = sym_at(e, &symtab, &strs, i);
			if ((y.type != 2 && y.type != 10) || !y.shndx)
				continue;
			grow(&r, &capr, nr + 1, sizeof(*r));
			r[nr++] = (struct range){ y.value, y.value + (y.size ? y.size : 1) };
			if (!y.bind)
				continue;
			int *g = strmap_put(&globals, y.name, (int)ng);
			if (*g == (int)ng) {
				grow(&gval, &capg, ng + 1, sizeof(*gval));
				gval[ng++] = y.value;
			}
		}
		if (nr)
			qsort(r, nr, sizeof(*r), cmp_range);
		uint64_t *gone = NULL;
		size_t ngone = 0, capgone = 0;
		for (size_t k = 0; k < nat; k++) {
			if (covered(r, nr, at[k].start))
				continue;
			const struct input *in = &inputs[at[k].in];
			for (uint64_t i = 1; i < in->nsym; i++) {
				struct sym y = sym_at(&in->e, &in->symtab, &in->strs, i);
				if (y.bind != 2 || y.type != 2 || y.shndx != at[k].sec || at[k].off < y.value ||
				    at[k].off - y.value >= y.size)
					continue;
				int *g = strmap_get(&globals, y.name);
				if (g && gval[*g] != at[k].addr + y.value) {
					grow(&gone, &capgone, ngone + 1, sizeof(*gone));
					gone[ngone++] = at[k].start;
				}
			}
		}
		if (ngone) {
			qsort(gone, ngone, sizeof(*gone), cmp_u64);
			for (size_t i = 0; dropped_to && i < ngone; i++)
				fprintf(dropped_to, "%llx\n", (unsigned long long)gone[i]);
			size_t keep = 0;
			for (size_t i = 0; i < ns; i++)
				if (!bsearch(&sites[i], gone, ngone, sizeof(*gone), cmp_u64))
					sites[keep++] = sites[i];
			dropped = ns - keep;
			ns = keep;
		}
		free(gone);
		free(r);
		free(gval);
		strmap_free(&globals);
	}

	if (tab && !table_relocs(o, tab, word, sites, ns))
		goto fail;
	free(sites);
	free(at);
	*nsites = ns;
	*nslots = slots;
	*ndropped = dropped;
	return true;
fail:
	/* (refused: refusal[] says why) */
	free(hr);
	free(at);
	free(sites);
	return false;
}

/* --- the build ID ----------------------------------------------------------- */

/* The output's GNU build-ID note (its descriptor's size at 4, its type
 * 3 at 8, the ID from 16), or NULL where it has none. */
static const struct shdr *id_note(const struct output *o)
{
	const struct elfv *e = &o->e;
	const struct shdr *note = NULL;
	for (uint64_t i = 1; i < e->shnum; i++)
		if (strcmp(sh_name(e, &o->sh[i]), ".note.gnu.build-id") == 0)
			note = &o->sh[i];
	if (!note || note->size < 16 || !sh_inside(e, note) || rd(e, note->off, 4) != 4 ||
	    rd(e, note->off + 8, 4) != 3)
		return NULL;
	return note;
}

/* The output's GNU build ID computed again (sha1) as the linker computes
 * it: GNU ld (bfd's checksum of the contents, ld/ldbuildid.c): the ELF
 * header with e_phoff and e_shoff 0, the program headers, then each
 * section header with sh_offset 0 followed by the section's contents,
 * but for sections with none (NOBITS) and those ld writes after the ID
 * (the symbol tables, their string tables, the section names), the note
 * all zeros; gold: the whole file with the ID's bytes 0.  "none" where
 * there is no ID, NULL where it is no sha1 one. */
static const char *build_id(struct output *o, bool gold)
{
	const struct elfv *e = &o->e;
	const struct shdr *note = id_note(o);
	if (!note)
		return "none";
	uint64_t idoff = note->off + 16, idlen = rd(e, note->off + 4, 4);
	if (idlen != 20 || idlen > note->size - 16)
		return NULL;
	memset(o->w + idoff, 0, idlen);
	struct sha1 c;
	sha1_init(&c);
	if (gold) {
		sha1_add(&c, e->d, e->len);
	} else {
		unsigned w = e->is64 ? 8 : 4;
		unsigned ehsize = e->is64 ? 64 : 52;
		unsigned char eh[64];
		memcpy(eh, e->d, ehsize);
		memset(eh + (e->is64 ? 32 : 28), 0, 2 * w);
		sha1_add(&c, eh, ehsize);
		uint64_t phoff = e->is64 ? rd(e, 0x20, 8) : rd(e, 0x1c, 4);
		uint64_t phsize = rd(e, e->is64 ? 0x36 : 0x2a, 2) * rd(e, e->is64 ? 0x38 : 0x2c, 2);
		if (phoff > e->len || phsize > e->len - phoff)
			return NULL;
		/* (the note's bytes: zero, where the program headers hold it) */
		sha1_add(&c, e->d + phoff, phsize);
		bool *late = calloc(e->shnum, sizeof(*late));
		if (!late)
			fatal("out of memory");
		late[e->shstrndx] = true;
		for (uint64_t i = 0; i < e->shnum; i++)
			if (o->sh[i].type == SHT_SYMTAB) {
				late[i] = true;
				if (o->sh[i].link < e->shnum)
					late[o->sh[i].link] = true;
			}
		for (uint64_t i = 0; i < e->shnum; i++) {
			const struct shdr *s = &o->sh[i];
			unsigned char hdr[256];
			uint64_t at = e->shoff + i * e->shentsize;
			size_t n = e->shentsize < sizeof(hdr) ? (size_t)e->shentsize : sizeof(hdr);
			memcpy(hdr, e->d + at, n);
			/* (the section headers never hold the note) */
			memset(hdr + (e->is64 ? 24 : 16), 0, w);
			sha1_add(&c, hdr, n);
			if (s->type == SHT_NOBITS || late[i] || !sh_inside(e, s))
				continue;
			if (s == note) {
				sha1_zeros(&c, s->size);
				continue;
			}
			sha1_add(&c, e->d + s->off, s->size);
		}
		free(late);
	}
	sha1_end(&c, o->w + idoff);
	return gold ? "sha1 (gold's)" : "sha1";
}

/* --- lld's build ID ------------------------------------------------------------ */

/* lld's ID (lld 14's Writer): the whole output, its ID's bytes 0, in
 * chunks of 1 MiB, each hashed, then the chunks' hashes one after
 * another hashed again: SHA-1 for sha1 (and tree), xxHash64 written
 * little-endian for fast (the style of a bare --build-id; lld 16 and
 * later hash fast with XXH3).  The linker's own ID is checked first
 * (another lld's hashing is refused: the table would be written under
 * an ID that is not the linker's); after the edits, only the chunks
 * they touched are hashed again. */
#define LLD_CHUNK (1u << 20)

struct lld_id {
	bool fast;
	unsigned hlen;          /* 20 or 8 */
	uint64_t idoff;
	size_t nchunks;
	unsigned char *hashes;
};

static void lld_hash(const struct lld_id *l, const unsigned char *p, size_t n, unsigned char *out)
{
	if (l->fast) {
		wr(out, xxh64(p, n), 8, false);
		return;
	}
	struct sha1 c;
	sha1_init(&c);
	sha1_add(&c, p, n);
	sha1_end(&c, out);
}

/* Chunk k's hash, the ID's bytes read as 0. */
static void lld_chunk(const struct lld_id *l, const struct elfv *e, size_t k, unsigned char *buf)
{
	uint64_t lo = (uint64_t)k * LLD_CHUNK;
	size_t n = e->len - lo < LLD_CHUNK ? (size_t)(e->len - lo) : LLD_CHUNK;
	const unsigned char *p = e->d + lo;
	if (l->idoff < lo + n && l->idoff + l->hlen > lo) {
		memcpy(buf, p, n);
		for (uint64_t i = l->idoff; i < l->idoff + l->hlen; i++)
			if (i >= lo && i < lo + n)
				buf[i - lo] = 0;
		p = buf;
	}
	lld_hash(l, p, n, l->hashes + k * l->hlen);
}

/* Before the edits: "none" where the output has no ID, NULL where the
 * linker's is the one computed here (l ready), else why not. */
static const char *lld_id_check(struct output *o, bool fast, struct lld_id *l)
{
	const struct elfv *e = &o->e;
	const struct shdr *note = id_note(o);
	if (!note)
		return "none";
	*l = (struct lld_id){ .fast = fast, .hlen = fast ? 8 : 20, .idoff = note->off + 16 };
	if (rd(e, note->off + 4, 4) != l->hlen || l->hlen > note->size - 16)
		return "the build ID is not of the size of the style the command asks lld for";
	l->nchunks = (size_t)((e->len + LLD_CHUNK - 1) / LLD_CHUNK);
	l->hashes = xmalloc(l->nchunks * l->hlen + 1);
	unsigned char *buf = xmalloc(LLD_CHUNK);
	for (size_t k = 0; k < l->nchunks; k++)
		lld_chunk(l, e, k, buf);
	free(buf);
	unsigned char id[20];
	lld_hash(l, l->hashes, l->nchunks * l->hlen, id);
	if (memcmp(id, e->d + l->idoff, l->hlen) != 0) {
		free(l->hashes);
		l->hashes = NULL;
		return "lld's build ID is not hashed as lld 14 hashes it (another version of lld?)";
	}
	return NULL;
}

/* After the edits: the chunks of the table's section and of the
 * relocation sections whose addends were written hashed again, the ID
 * written. */
static const char *lld_id_write(struct output *o, struct lld_id *l)
{
	const struct elfv *e = &o->e;
	bool *dirty = calloc(l->nchunks ? l->nchunks : 1, sizeof(*dirty));
	if (!dirty)
		fatal("out of memory");
	for (uint64_t i = 1; i < e->shnum; i++) {
		const struct shdr *s = &o->sh[i];
		if (s->type == SHT_NOBITS || !s->size || !sh_inside(e, s) ||
		    !(strcmp(sh_name(e, s), "__mcount_loc") == 0 || (s->type == SHT_RELA && (s->flags & SHF_ALLOC))))
			continue;
		for (uint64_t k = s->off / LLD_CHUNK; k <= (s->off + s->size - 1) / LLD_CHUNK && k < l->nchunks; k++)
			dirty[k] = true;
	}
	unsigned char *buf = xmalloc(LLD_CHUNK);
	for (size_t k = 0; k < l->nchunks; k++)
		if (dirty[k])
			lld_chunk(l, e, k, buf);
	free(buf);
	free(dirty);
	unsigned char id[20];
	lld_hash(l, l->hashes, l->nchunks * l->hlen, id);
	memcpy(o->w + l->idoff, id, l->hlen);
	free(l->hashes);
	l->hashes = NULL;
	return l->fast ? "fast (lld's)" : "sha1 (lld's)";
}

int link_fill(const struct arch *a, const char *map, const char *path, const char *bid, char **lto, int nlto,
	      const char *dropped)
{
	diag_file = path;
	int fd = open(path, dropped ? O_RDONLY : O_RDWR);
	if (fd < 0)
		fatal("%s", strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 64)
		fatal("not a linked image");
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, dropped ? MAP_PRIVATE : MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		fatal("%s", strerror(errno));
	struct output o = { .w = p };
	const char *why = elfv_open(&o.e, p, (size_t)st.st_size);
	if (why)
		fatal("%s", why);
	if ((o.e.type != 2 && o.e.type != 3) || rd(&o.e, 18, 2) != a->elf_machine ||
	    (o.e.is64 ? 64u : 32u) != a->elf_class)
		fatal("not a linked image of %s", a->name);
	o.e.mips64_info = a->mips64_r_info;
	o.sh = xmalloc((o.e.shnum ? o.e.shnum : 1) * sizeof(*o.sh));
	for (uint64_t i = 0; i < o.e.shnum; i++)
		o.sh[i] = sh_at(&o.e, i);
	/* the output's sections of code, by name (where the map's calls are) */
	struct strmap code = { 0 };
	for (uint64_t i = 1; i < o.e.shnum; i++)
		if (o.sh[i].flags & SHF_EXECINSTR)
			strmap_put(&code, sh_name(&o.e, &o.sh[i]), 1);
	size_t nlaid;
	struct laid *laid = read_map(map, &code, &nlaid, lto, nlto);
	strmap_free(&code);
	unsigned long long ns = 0, nslots = 0, nd = 0;
	if (dropped && !(dropped_to = fopen(dropped, "w")))
		fatal("cannot write %s: %s", dropped, strerror(errno));
	/* (the edits are made only once everything is known: a refusal
	 * comes before the first) */
	/* (lld's ID checked before any edit: its hashing is known only from
	 * its version's source) */
	bool lld = bid && strncmp(bid, "lld", 3) == 0;
	struct lld_id lid = { 0 };
	const char *lld_why = lld ? lld_id_check(&o, strcmp(bid, "lld-fast") == 0, &lid) : NULL;
	bool ran = false, filled = false;
	if (lld_why && strcmp(lld_why, "none") != 0) {
		printf("refused\t%s\n", lld_why);
	} else if (!nlaid) {
		/* (a map of a form not known: no input section of code) */
		printf("refused\tthe linker's map places no input section in code\n");
	} else {
		ran = true;
		filled = fill(a, &o, laid, nlaid, &ns, &nslots, &nd);
	}
	if (dropped_to && (fflush(dropped_to) != 0 || ferror(dropped_to) || fclose(dropped_to) != 0))
		fatal("write error on %s: %s", dropped, strerror(errno));
	if (filled && dropped) {
		printf("sites\t%llu\ndropped\t%llu\n", ns, nd);
	} else if (filled) {
		const char *style = !bid || !nslots ? "left" : lld ? (lld_why ? lld_why : lld_id_write(&o, &lid))
			: build_id(&o, strcmp(bid, "gold") == 0);
		if (style)
			printf("sites\t%llu\nslots\t%llu\ndropped\t%llu\nbuild-id\t%s\nrelocated\t%s %llu\n", ns,
			       nslots, nd, style, table_dyn.kind, (unsigned long long)table_dyn.n);
		else
			printf("refused\tthe build ID is no sha1 one\n");
	} else if (ran) {
		printf("refused\t%s\n", refusal);
	}
	free(lid.hashes);
	if (munmap(p, (size_t)st.st_size) != 0)
		fatal("%s", strerror(errno));
	for (size_t i = 0; i < nlaid; i++) {
		free(laid[i].out);
		free(laid[i].name);
		free(laid[i].file);
	}
	free(laid);
	free(o.sh);
	return fflush(stdout) == 0 ? HELPER_OK : HELPER_BAD_INPUT;
}
