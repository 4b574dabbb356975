/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elf.c - the loaded objects: their code, __mcount_loc tables, symbols.
 *
 * dl_iterate_phdr() lists what is loaded and where; the file of each
 * object (the program through /proc/self/exe) is mapped read-only to find
 * its __mcount_loc section (the table itself is read from memory, where
 * the dynamic linker has relocated it), its function symbols (.symtab,
 * else .dynsym), its PLT, its GOT's base (what i386's PIC code reaches
 * the GOT by) and the GOT slots that hold a hook.
 *
 * ppc64 ELFv1 (MT_ELFV1): a function symbol's value is the address of
 * its descriptor in .opd, three doublewords (the code's address, the TOC
 * pointer, an environment pointer nobody uses from C), which the file
 * holds as the linker wrote them: link-time addresses, which the load
 * bias relocates (R_PPC64_RELATIVE in a PIE or a library, none in a
 * fixed-address program).  The symbols are read as their code's
 * addresses, and the descriptors are kept (by code address) for the TOC
 * pointer a site runs with, which a PLT call stub needs (arch-ppc64.c):
 * .opd is allocated, so a stripped object keeps it.  GCC puts one
 * descriptor in .opd for every function (static ones too), 24 bytes
 * apart: the linker's optional 16-byte overlapping layout is not read.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt.h"

bool mt_is_hook_name(const char *name)
{
	static const char *const hooks[] = { "mcount", "_mcount", "__fentry__", "__gnu_mcount_nc" };
	size_t n = strcspn(name, "@");
	for (size_t i = 0; i < sizeof hooks / sizeof hooks[0]; i++)
		if (strlen(hooks[i]) == n && !memcmp(hooks[i], name, n))
			return true;
	return false;
}

bool mt_is_hook_sym(const struct mt_object *o, uintptr_t t)
{
	const struct mt_sym *sym = mt_sym_at(o, t);
	return sym && sym->addr == t && mt_is_hook_name(sym->name);
}

bool mt_in_exec(const struct mt_object *o, uintptr_t a)
{
	for (unsigned i = 0; i < o->nexec; i++)
		if (a >= o->exec_lo[i] && a < o->exec_hi[i])
			return true;
	return false;
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_DATA ELFDATA2LSB
#else
#define NATIVE_DATA ELFDATA2MSB
#endif

/* The objects are the process's own: its class's structures (arm's
 * 32-bit ones, with REL relocations). */
#if UINTPTR_MAX == UINT32_MAX
typedef Elf32_Ehdr Ehdr;
typedef Elf32_Shdr Shdr;
typedef Elf32_Sym Sym;
typedef Elf32_Rel Rel;
typedef Elf32_Rela Rela;
#define NATIVE_CLASS ELFCLASS32
#define ST_BIND ELF32_ST_BIND
#define ST_TYPE ELF32_ST_TYPE
#define R_TYPE ELF32_R_TYPE
#define R_SYM ELF32_R_SYM
#else
typedef Elf64_Ehdr Ehdr;
typedef Elf64_Shdr Shdr;
typedef Elf64_Sym Sym;
typedef Elf64_Rel Rel;
typedef Elf64_Rela Rela;
#define NATIVE_CLASS ELFCLASS64
#define ST_BIND ELF64_ST_BIND
#define ST_TYPE ELF64_ST_TYPE
#define R_TYPE ELF64_R_TYPE
#define R_SYM ELF64_R_SYM
#endif

/* The file mapped read-only, with bounds-checked views of it. */
struct file {
	const unsigned char *p;
	size_t size;
	const Ehdr *eh;
	const Shdr *sh;
	size_t shnum;
	const char *shstr;
	size_t shstr_size;
};

static const void *at(const struct file *f, uint64_t off, uint64_t len)
{
	if (off > f->size || len > f->size - off)
		return NULL;
	return f->p + off;
}

static const char *sec_name(const struct file *f, const Shdr *s)
{
	if (!f->shstr || s->sh_name >= f->shstr_size)
		return "";
	const char *n = f->shstr + s->sh_name;
	return memchr(n, 0, f->shstr_size - s->sh_name) ? n : "";
}

/* The views of a file mapped at p: header, section headers, their names. */
static int parse_file(const unsigned char *p, size_t size, struct file *f)
{
	memset(f, 0, sizeof *f);
	f->p = p;
	f->size = size;
	f->eh = (const Ehdr *)p;
	if (size < sizeof(Ehdr) || memcmp(f->eh->e_ident, ELFMAG, SELFMAG) ||
	    f->eh->e_ident[EI_CLASS] != NATIVE_CLASS || f->eh->e_ident[EI_DATA] != NATIVE_DATA)
		return -1;
	size_t shnum = f->eh->e_shnum;
	const Shdr *sh0 = at(f, f->eh->e_shoff, sizeof *sh0);
	if (!sh0 || f->eh->e_shentsize != sizeof(Shdr))
		return -1;
	if (!shnum)
		shnum = sh0->sh_size;
	f->sh = at(f, f->eh->e_shoff, shnum * sizeof(Shdr));
	if (!f->sh || shnum > 1000000)
		return -1;
	f->shnum = shnum;
	size_t stri = f->eh->e_shstrndx == SHN_XINDEX ? sh0->sh_link : f->eh->e_shstrndx;
	if (stri < shnum) {
		f->shstr = at(f, f->sh[stri].sh_offset, f->sh[stri].sh_size);
		f->shstr_size = f->shstr ? f->sh[stri].sh_size : 0;
	}
	return 0;
}

const unsigned char *mt_map_file(const char *path, size_t *size, struct stat *seen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size < sizeof(Ehdr)) {
		close(fd);
		return NULL;
	}
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	*size = (size_t)st.st_size;
	if (seen)
		*seen = st;
	return p;
}

static bool same_file(const struct mt_object *o, const struct stat *st)
{
	return o->file && o->file_dev == st->st_dev && o->file_ino == st->st_ino &&
	       o->file_size == (size_t)st->st_size && o->file_mtime.tv_sec == st->st_mtim.tv_sec &&
	       o->file_mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* The file of object o, parsed into f: the mapping of another object
 * read from that very file (same device, inode, size and time of
 * change) if there is one, else a new one.  Objects are never freed (an
 * object closed names the events it recorded), so a library opened and
 * closed again and again would otherwise map its file anew each time,
 * until the process had no mapping left (vm.max_map_count). */
static int object_file(struct mt_object *o, struct mt_object *const *objs, size_t nobjs, struct file *f)
{
	memset(f, 0, sizeof *f);
	struct stat st;
	if (stat(o->path, &st) == 0)
		for (size_t i = nobjs; i-- > 0;)
			if (same_file(objs[i], &st) && parse_file(objs[i]->file, objs[i]->file_size, f) == 0) {
				o->file_dev = objs[i]->file_dev;
				o->file_ino = objs[i]->file_ino;
				o->file_mtime = objs[i]->file_mtime;
				return 0;
			}
	size_t size;
	const unsigned char *p = mt_map_file(o->path, &size, &st);
	if (!p)
		return -1;
	if (parse_file(p, size, f) == 0) {
		o->file_dev = st.st_dev;
		o->file_ino = st.st_ino;
		o->file_mtime = st.st_mtim;
		return 0;
	}
	munmap((void *)p, size);
	return -1;
}

/* A compressed section's contents (ELFCOMPRESS_ZLIB), inflated into
 * memory kept for good; NULL if they cannot be. */
static const unsigned char *inflated(const unsigned char *b, size_t size, size_t *len)
{
	Elf64_Chdr ch;
	if (size < sizeof ch)
		return NULL;
	memcpy(&ch, b, sizeof ch);
	/* deflate makes at most 1032 bytes of one */
	if (ch.ch_type != ELFCOMPRESS_ZLIB || ch.ch_size / 1032 > size || ch.ch_size > SIZE_MAX)
		return NULL;
	unsigned char *out = malloc(ch.ch_size ? ch.ch_size : 1);
	if (!out || !mt_inflate(b + sizeof ch, size - sizeof ch, out, ch.ch_size)) {
		free(out);
		return NULL;
	}
	*len = ch.ch_size;
	return out;
}

/* The contents of section name (see rt.h); addr: its address too, and a
 * compressed one is passed over. */
static const unsigned char *section(const unsigned char *p, size_t size, const char *name, size_t *len,
				    bool *compressed, uint64_t *addr)
{
	struct file f;
	if (!p || parse_file(p, size, &f))
		return NULL;
	for (size_t i = 1; i < f.shnum; i++) {
		const Shdr *s = &f.sh[i];
		if (s->sh_type == SHT_NOBITS || strcmp(sec_name(&f, s), name))
			continue;
		const unsigned char *b = at(&f, s->sh_offset, s->sh_size);
		if (b && (s->sh_flags & SHF_COMPRESSED)) {
			if (!compressed || addr)
				continue;
			b = inflated(b, s->sh_size, len);
			*compressed = *compressed || !b;
			if (!b)
				continue;
			return b;
		}
		if (b) {
			*len = s->sh_size;
			if (addr)
				*addr = s->sh_addr;
			return b;
		}
	}
	return NULL;
}

const unsigned char *mt_elf_section(const unsigned char *p, size_t size, const char *name, size_t *len,
				    bool *compressed)
{
	return section(p, size, name, len, compressed, NULL);
}

const unsigned char *mt_elf_section_at(const unsigned char *p, size_t size, const char *name, size_t *len,
					 uint64_t *addr)
{
	return section(p, size, name, len, NULL, addr);
}

#if MT_ELFV1
/* The .opd section of a file (its index in *idx), or NULL. */
static const Shdr *opd_section(const struct file *f, size_t *idx)
{
	for (size_t i = 1; i < f->shnum; i++)
		if (f->sh[i].sh_type == SHT_PROGBITS && !strcmp(sec_name(f, &f->sh[i]), ".opd")) {
			*idx = i;
			return &f->sh[i];
		}
	return NULL;
}

/* The link-time code address of the descriptor at link-time address v
 * of .opd (as the file holds it), or 0. */
static uint64_t opd_entry(const struct file *f, const Shdr *opd, uint64_t v)
{
	if (v < opd->sh_addr || v - opd->sh_addr > opd->sh_size || opd->sh_size - (v - opd->sh_addr) < 16)
		return 0;
	const unsigned char *d = at(f, opd->sh_offset + (v - opd->sh_addr), 16);
	uint64_t e = 0;
	if (d)
		memcpy(&e, d, 8);
	return e;
}

static int desc_cmp(const void *a, const void *b)
{
	const struct mt_desc *x = a, *y = b;
	return x->entry != y->entry ? (x->entry < y->entry ? -1 : 1) : 0;
}

/* Every descriptor of .opd whose code is in the object's code, by code
 * address. */
static void read_descs(struct mt_object *o, const struct file *f)
{
	size_t idx;
	const Shdr *opd = opd_section(f, &idx);
	if (!opd || opd->sh_size / 24 == 0 || !at(f, opd->sh_offset, opd->sh_size))
		return;
	size_t n = opd->sh_size / 24;
	struct mt_desc *v = malloc(n * sizeof *v);
	if (!v)
		return;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t w[2];
		memcpy(w, f->p + opd->sh_offset + i * 24, sizeof w);
		if (!w[0] || !w[1] || !mt_in_exec(o, o->bias + (uintptr_t)w[0]))
			continue;
		v[k].entry = o->bias + (uintptr_t)w[0];
		v[k].toc = o->bias + (uintptr_t)w[1];
		k++;
	}
	mt_sort_by_addr(v, k, sizeof *v, offsetof(struct mt_desc, entry), sizeof v->entry, desc_cmp);
	o->descs = v;
	o->ndescs = k;
}

uintptr_t mt_toc_at(const struct mt_object *o, uintptr_t a)
{
	size_t lo = 0, hi = o->ndescs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->descs[mid].entry <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && mt_in_exec(o, a) ? o->descs[lo - 1].toc : 0;
}
#endif

/* The symbols of one symbol table section. */
struct symtab {
	const Sym *sym;
	size_t n;
	const char *str;
	size_t str_size;
};

static bool read_symtab(const struct file *f, size_t i, struct symtab *t)
{
	const Shdr *s = &f->sh[i];
	if (s->sh_entsize != sizeof(Sym) || s->sh_link >= f->shnum)
		return false;
	t->sym = at(f, s->sh_offset, s->sh_size);
	t->n = s->sh_size / sizeof(Sym);
	const Shdr *l = &f->sh[s->sh_link];
	t->str = at(f, l->sh_offset, l->sh_size);
	t->str_size = l->sh_size;
	return t->sym && t->str;
}

static const char *sym_name(const struct symtab *t, uint32_t off)
{
	if (off >= t->str_size)
		return "";
	const char *n = t->str + off;
	return memchr(n, 0, t->str_size - off) ? n : "";
}

/* Rank of a symbol when two share an address: a global one that other
 * objects see first (a hidden alias, such as this library's names for
 * its hooks, is global in a program's symbol table too), then weak,
 * then the rest. */
static int rank(const Sym *s)
{
	unsigned char vis = s->st_other & 3;
	switch (ST_BIND(s->st_info)) {
	case STB_GLOBAL: return vis == STV_DEFAULT || vis == STV_PROTECTED ? 0 : 2;
	case STB_WEAK: return 1;
	default: return 3;
	}
}

/* Symbol versions (the GNU scheme).  A versioned symbol of an object's
 * dynamic symbol table is its name and a version: the default one, to
 * which a reference without a version binds (readelf's name@@VERSION),
 * or a hidden one, which only a reference to that version reaches
 * (name@VERSION: the compatibility alias of an older interface).  The
 * linker writes them so into .symtab; .dynsym has the plain name and
 * the version in .gnu.version (the index of a definition of
 * .gnu.version_d; bit 15: hidden).
 *
 * A function is shown by its plain name where that is what it is
 * called by: its symbol the default version, or one with none; by
 * name@VERSION where only a hidden version names its address (an old
 * implementation of the interface, which the plain name is not).  Every
 * versioned name of its address, name@@VERSION and name@VERSION, is an
 * alias a filter may give (mt_sym.alias). */
struct versions {
	const unsigned char *versym;  /* 16 bits a .dynsym symbol; NULL: none */
	size_t nversym;
	const unsigned char *verdef;  /* .gnu.version_d, its names in str */
	size_t verdef_size, verdef_cnt;
};

static void read_versions(const struct file *f, size_t dynsym, struct versions *v)
{
	memset(v, 0, sizeof *v);
	for (size_t i = 1; i < f->shnum; i++) {
		const Shdr *s = &f->sh[i];
		if (s->sh_type == SHT_GNU_versym && s->sh_link == dynsym && s->sh_entsize == 2 &&
		    (v->versym = at(f, s->sh_offset, s->sh_size)))
			v->nversym = s->sh_size / 2;
		else if (s->sh_type == SHT_GNU_verdef && s->sh_link == f->sh[dynsym].sh_link &&
			 (v->verdef = at(f, s->sh_offset, s->sh_size))) {
			v->verdef_size = s->sh_size;
			v->verdef_cnt = s->sh_info;
		}
	}
	if (!v->verdef)
		v->versym = NULL;
}

/* .gnu.version's word of symbol i (its file may not align it). */
static unsigned versym_of(const struct versions *v, size_t i)
{
	uint16_t w;
	memcpy(&w, v->versym + 2 * i, sizeof w);
	return w;
}

/* The name of version index ndx, in .dynsym's string table (0: not a
 * definition of this object's). */
static uint32_t verdef_name(const struct versions *v, unsigned ndx)
{
	size_t off = 0;
	for (size_t i = 0; i < v->verdef_cnt && i < 0x8000; i++) {
		Elf64_Verdef d;               /* (Elf32_Verdef is the same) */
		if (off > v->verdef_size || v->verdef_size - off < sizeof d)
			return 0;
		memcpy(&d, v->verdef + off, sizeof d);
		if (d.vd_ndx == ndx && d.vd_cnt && !(d.vd_flags & VER_FLG_BASE)) {
			Elf64_Verdaux a;
			if (d.vd_aux > v->verdef_size - off || v->verdef_size - off - d.vd_aux < sizeof a)
				return 0;
			memcpy(&a, v->verdef + off + d.vd_aux, sizeof a);
			return a.vda_name;
		}
		if (!d.vd_next)
			return 0;
		off += d.vd_next;
	}
	return 0;
}

/* One function symbol, as read_functions weighs it. */
struct cand {
	uintptr_t addr, size;
	const char *name;             /* as the table has it */
	size_t base;                  /* the plain name's length */
	const char *ver;              /* its version (NULL: none), vlen bytes */
	size_t vlen;
	bool hidden;                  /* a hidden version (name@VERSION) */
	unsigned char key;            /* the lowest is shown */
};

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A symbol's weight: exported names first (global, then weak), of them
 * a plain or default version before a hidden one, then the others. */
static unsigned char cand_key(int r, bool hidden)
{
	return (unsigned char)((r <= 1 ? 0 : r - 1) << 2 | hidden << 1 | (r == 1));
}

/* "base@VER" or "base@@VER" of c, or its plain name (how 0); in the
 * table where it is spelled so, else made (kept for good); NULL: no
 * memory. */
static const char *cand_name(const struct cand *c, int how)
{
	if (how == 0 && !c->name[c->base])
		return c->name;
	size_t at = how == 0 ? 0 : how == 1 ? 1 : 2;
	if (how && c->name[c->base] == '@' && !strncmp(c->name + c->base + 1, "@", at - 1) &&
	    !strncmp(c->name + c->base + at, c->ver, c->vlen) && !c->name[c->base + at + c->vlen])
		return c->name;
	char *n = malloc(c->base + at + (how ? c->vlen : 0) + 1);
	if (!n)
		return NULL;
	memcpy(n, c->name, c->base);
	memcpy(n + c->base, "@@", at);
	if (how)
		memcpy(n + c->base + at, c->ver, c->vlen);
	n[c->base + at + (how ? c->vlen : 0)] = 0;
	return n;
}

/* The shown name and aliases of the symbols v[0, n) at one address
 * (aliases: with_aliases only). */
static void name_group(const struct cand *v, size_t n, bool with_aliases, struct mt_sym *out)
{
	const struct cand *best = &v[0];
	size_t nver = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].key < best->key)
			best = &v[i];
		nver += v[i].ver != NULL;
	}
	out->addr = best->addr;
	out->size = best->size;
	out->name = cand_name(best, best->hidden ? 1 : 0);
	if (!out->name)
		out->name = best->name;
	out->alias = NULL;
	if (!with_aliases || !nver)
		return;
	const char **a = malloc((nver + 1) * sizeof *a);
	if (!a)
		return;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *an = v[i].ver ? cand_name(&v[i], v[i].hidden ? 1 : 2) : NULL;
		bool dup = false;
		for (size_t j = 0; an && j < k && !dup; j++)
			dup = !strcmp(a[j], an);
		if (an && !dup)
			a[k++] = an;
		else if (an && an != v[i].name)
			free((char *)an);     /* (made, and had: .symtab's and .dynsym's) */
	}
	a[k] = NULL;
	out->alias = a;
}

/* The function symbols of table t as candidates, appended at c + *n;
 * with vers, .dynsym's, their versions read (only_versioned: those
 * with a version alone). */
static void add_cands(const struct mt_object *o, const struct file *f, const struct symtab *t,
		      const struct versions *vers, bool only_versioned, struct cand *c, size_t *n)
{
#if MT_ELFV1
	size_t opd_idx = 0;
	const Shdr *opd = opd_section(f, &opd_idx);
#else
	(void)f;
#endif
	for (size_t i = 1; i < t->n; i++) {
		const Sym *s = &t->sym[i];
		unsigned type = ST_TYPE(s->st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF || !s->st_value)
			continue;
		uint64_t value = s->st_value;
#if MT_ELFV1
		/* a descriptor: its code (a symbol of code itself, as an
		 * assembler's, stays what it is) */
		if (opd && s->st_shndx == opd_idx && !(value = opd_entry(f, opd, value)))
			continue;
#endif
		struct cand *x = &c[*n];
		x->addr = o->bias + ((uintptr_t)value & ~mt_arch.func_bits);
		x->size = s->st_size;
		x->name = sym_name(t, s->st_name);
		x->base = strcspn(x->name, "@");
		x->ver = NULL;
		x->vlen = 0;
		x->hidden = false;
		if (x->name[x->base] == '@' && x->base) {
			/* .symtab: name@VERSION, name@@VERSION */
			x->hidden = x->name[x->base + 1] != '@';
			x->ver = x->name + x->base + (x->hidden ? 1 : 2);
			x->vlen = strlen(x->ver);
			if (!x->vlen) {
				x->ver = NULL;
				x->hidden = false;
				x->base = strlen(x->name);
			}
		} else if (vers && vers->versym && i < vers->nversym && (versym_of(vers, i) & 0x7fff) > VER_NDX_GLOBAL) {
			unsigned w = versym_of(vers, i);
			uint32_t vn = verdef_name(vers, w & 0x7fff);
			const char *vs = vn ? sym_name(t, vn) : "";
			if (*vs) {
				x->ver = vs;
				x->vlen = strlen(vs);
				x->hidden = (w & 0x8000) != 0;
			}
		}
		if (only_versioned && !x->ver)
			continue;
		x->key = cand_key(rank(s), x->hidden);
		(*n)++;
	}
}

static void read_functions(struct mt_object *o, const struct file *f)
{
	size_t symtab = 0, dynsym = 0;
	for (size_t i = 1; i < f->shnum; i++) {
		if (f->sh[i].sh_type == SHT_SYMTAB)
			symtab = i;
		else if (f->sh[i].sh_type == SHT_DYNSYM)
			dynsym = i;
	}
	struct symtab t, d;
	bool have_t = symtab && read_symtab(f, symtab, &t);
	bool have_d = dynsym && read_symtab(f, dynsym, &d);
	if (!have_t && !have_d)
		return;
	struct versions vers = { 0 };
	if (have_d)
		read_versions(f, dynsym, &vers);
	/* .symtab, and for the versions that only .dynsym tells (a default
	 * version a version script gave is a plain name in .symtab), its
	 * versioned symbols, where filters may give them (a table) */
	bool both = have_t && have_d && vers.versym && o->table;
	size_t max = (have_t ? t.n : d.n) + (both ? d.n : 0);
	struct cand *c = malloc(max * sizeof *c + 1);
	if (!c)
		return;
	size_t n = 0;
	add_cands(o, f, have_t ? &t : &d, have_t ? NULL : &vers, false, c, &n);
	if (both)
		add_cands(o, f, &d, &vers, true, c, &n);
	mt_sort_by_addr(c, n, sizeof *c, offsetof(struct cand, addr), sizeof c->addr, cand_cmp);
	struct mt_sym *v = malloc(n * sizeof *v + 1);
	if (!v) {
		free(c);
		return;
	}
	size_t k = 0;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && c[j].addr == c[i].addr;)
			j++;
		name_group(&c[i], j - i, o->table != 0, &v[k++]);
	}
	free(c);
	o->syms = v;
	o->nsyms = k;
}

const struct mt_sym *mt_sym_at(const struct mt_object *o, uintptr_t a)
{
	if (!o->syms_read) {
		/* Symbols of an object without a table are read when first
		 * asked for (to name a parent, to see whether a call goes to
		 * a hook), always with the registry lock held. */
		struct mt_object *w = (struct mt_object *)o;
		struct file f;
		w->syms_read = true;
		if (o->file && parse_file(o->file, o->file_size, &f) == 0)
			read_functions(w, &f);
	}
	/* (the last answer, or the one after it, first: a hint any thread
	 * may have left, taken only where it holds) */
	size_t h = atomic_load_explicit(&((struct mt_object *)o)->sym_hint, memory_order_relaxed);
	for (size_t k = h; k < h + 2 && k < o->nsyms; k++)
		if (o->syms[k].addr <= a && (k + 1 == o->nsyms || a < o->syms[k + 1].addr)) {
			const struct mt_sym *s = &o->syms[k];
			if (k != h)
				atomic_store_explicit(&((struct mt_object *)o)->sym_hint, k, memory_order_relaxed);
			return s->size && a >= s->addr + s->size ? NULL : s;
		}
	size_t lo = 0, hi = o->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->syms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct mt_sym *s = &o->syms[lo - 1];
	atomic_store_explicit(&((struct mt_object *)o)->sym_hint, lo - 1, memory_order_relaxed);
	if (s->size && a >= s->addr + s->size)
		return NULL;
	return s;
}

uintptr_t mt_prologue_of(const struct mt_object *o, uintptr_t site, uintptr_t align)
{
	const struct mt_sym *f = mt_sym_at(o, site);
	if (!f || (f->addr & (align - 1)) || f->addr > site || site - f->addr > 4096 || !mt_in_exec(o, f->addr))
		return 0;
	return f->addr;
}

bool mt_in_plt(const struct mt_object *o, uintptr_t a)
{
	for (int i = 0; i < 2; i++)
		if (a >= o->plt_lo[i] && a < o->plt_hi[i])
			return true;
	return false;
}

static bool slot_in(const uintptr_t *v, size_t n, uintptr_t slot)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == slot)
			return true;
	return false;
}

bool mt_is_hook_slot(const struct mt_object *o, uintptr_t slot)
{
	return slot_in(o->hook_slots, o->nhook_slots, slot);
}

bool mt_is_callee_slot(const struct mt_object *o, uintptr_t slot)
{
	return slot_in(o->callee_slots, o->ncallee_slots, slot);
}

static bool slot_add(uintptr_t **v, size_t *n, uintptr_t slot)
{
	uintptr_t *nv = realloc(*v, (*n + 1) * sizeof *nv);
	if (!nv)
		return false;
	*v = nv;
	(*v)[(*n)++] = slot;
	return true;
}

/* The GOT slot and symbol of relocation j of a REL or RELA section. */
static bool reloc_at(const Shdr *s, const void *v, size_t j, uintptr_t *off, unsigned *type, size_t *sym)
{
	if (s->sh_type == SHT_RELA && s->sh_entsize == sizeof(Rela) && j < s->sh_size / sizeof(Rela)) {
		const Rela *r = (const Rela *)v + j;
		*off = r->r_offset;
		*type = R_TYPE(r->r_info);
		*sym = R_SYM(r->r_info);
		return true;
	}
	if (s->sh_type == SHT_REL && s->sh_entsize == sizeof(Rel) && j < s->sh_size / sizeof(Rel)) {
		const Rel *r = (const Rel *)v + j;
		*off = r->r_offset;
		*type = R_TYPE(r->r_info);
		*sym = R_SYM(r->r_info);
		return true;
	}
	return false;
}

/* A function that runs another program. */
static bool spawner(const char *name)
{
	static const char *const names[] = {
		"execve", "execv", "execvp", "execvpe", "execl", "execlp", "execle", "fexecve", "execveat",
		"posix_spawn", "posix_spawnp", "system", "popen",
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* Our hook of that name (a symbol's: NAME@VERSION), 0: none. */
static uintptr_t our_hook_named(const char *name)
{
	size_t n = strcspn(name, "@");
	for (size_t i = 0; mt_arch.hook_names && mt_arch.hook_names[i]; i++)
		if (strlen(mt_arch.hook_names[i]) == n && !memcmp(mt_arch.hook_names[i], name, n))
			return mt_hooks[i];
	return 0;
}

/* GOT slots the dynamic linker fills with a hook (JUMP_SLOT, GLOB_DAT),
 * and with the C library's function its own hook calls (rt.h's
 * mt_arch.hook_callee); a hook the object defines itself; whether it
 * calls a spawner(). */
static void read_hook_slots(struct mt_object *o, const struct file *f)
{
	for (size_t i = 1; i < f->shnum; i++) {
		const Shdr *s = &f->sh[i];
		if ((s->sh_type != SHT_RELA && s->sh_type != SHT_REL) || !(s->sh_flags & SHF_ALLOC))
			continue;
		struct symtab t;
		if (s->sh_link >= f->shnum || !read_symtab(f, s->sh_link, &t))
			continue;
		const void *r = at(f, s->sh_offset, s->sh_size);
		if (!r)
			continue;
		uintptr_t off;
		unsigned type;
		size_t si;
		for (size_t j = 0; reloc_at(s, r, j, &off, &type, &si); j++) {
			if ((type != mt_arch.jump_slot && type != mt_arch.glob_dat) || !si || si >= t.n)
				continue;
			const char *name = sym_name(&t, t.sym[si].st_name);
			bool ok = true;
			o->spawns = o->spawns || spawner(name);
			if (mt_is_hook_name(name)) {
				size_t n = o->nhook_slots;
				ok = slot_add(&o->hook_slot_ours, &n, our_hook_named(name)) &&
					slot_add(&o->hook_slots, &o->nhook_slots, o->bias + off);
				if (t.sym[si].st_shndx != SHN_UNDEF && t.sym[si].st_value)
					o->own_hook = o->bias + t.sym[si].st_value;
			} else if (mt_arch.hook_callee && !strcmp(name, mt_arch.hook_callee))
				ok = slot_add(&o->callee_slots, &o->ncallee_slots, o->bias + off);
			if (!ok)
				return;
		}
	}
}

#if defined(__mips__)
/* MIPS: the dynamic linker fills the GOT's global part from the dynamic
 * symbol table, with no relocation (the MIPS psABI): the entries after
 * the DT_MIPS_LOCAL_GOTNO local ones, from DT_PLTGOT on, are those of
 * the symbols from DT_MIPS_GOTSYM on, in order.  Such an entry holds
 * the symbol's address once bound, or a lazy stub's before. */
static void read_mips_got_slots(struct mt_object *o, const struct file *f)
{
	size_t dynsym = 0;
	const ElfW(Dyn) *dyn = NULL;
	size_t ndyn = 0;
	for (size_t i = 1; i < f->shnum; i++) {
		const Shdr *s = &f->sh[i];
		if (s->sh_type == SHT_DYNSYM)
			dynsym = i;
		else if (s->sh_type == SHT_DYNAMIC && (dyn = at(f, s->sh_offset, s->sh_size)))
			ndyn = s->sh_size / sizeof *dyn;
	}
	uintptr_t pltgot = 0, local = 0, gotsym = 0, symtabno = 0;
	for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
		if (dyn[i].d_tag == DT_PLTGOT)
			pltgot = dyn[i].d_un.d_ptr;
		else if (dyn[i].d_tag == DT_MIPS_LOCAL_GOTNO)
			local = dyn[i].d_un.d_val;
		else if (dyn[i].d_tag == DT_MIPS_GOTSYM)
			gotsym = dyn[i].d_un.d_val;
		else if (dyn[i].d_tag == DT_MIPS_SYMTABNO)
			symtabno = dyn[i].d_un.d_val;
	}
	struct symtab t;
	if (!pltgot || !dynsym || !read_symtab(f, dynsym, &t))
		return;
	for (size_t i = gotsym; i < symtabno && i < t.n; i++) {
		o->spawns = o->spawns || spawner(sym_name(&t, t.sym[i].st_name));
		if (!mt_is_hook_name(sym_name(&t, t.sym[i].st_name)))
			continue;
		if (!slot_add(&o->hook_slots, &o->nhook_slots, o->bias + pltgot + (local + i - gotsym) * sizeof(uintptr_t)))
			return;
	}
}
#endif

static void read_sections(struct mt_object *o, const struct file *f)
{
	unsigned nplt = 0;
	for (size_t i = 1; i < f->shnum; i++) {
		const Shdr *s = &f->sh[i];
		const char *name = sec_name(f, s);
		bool pfe = !strcmp(name, "__patchable_function_entries");
		if ((pfe || !strcmp(name, "__mcount_loc")) && (s->sh_flags & SHF_ALLOC) && s->sh_type == SHT_PROGBITS) {
			/* -fpatchable-function-entry's table is o->table where
			 * the object has no __mcount_loc, else o->ptable */
			uintptr_t at = o->bias + s->sh_addr;
			if (pfe && o->table) {
				o->ptable = at;
				o->ptable_size = s->sh_size;
				continue;
			}
			if (!pfe && o->table) {
				o->ptable = o->table;
				o->ptable_size = o->table_size;
			}
			o->table = at;
			o->table_size = s->sh_size;
		} else if ((!strcmp(name, ".plt") || !strcmp(name, ".plt.sec")) && nplt < 2) {
			o->plt_lo[nplt] = o->bias + s->sh_addr;
			o->plt_hi[nplt] = o->bias + s->sh_addr + s->sh_size;
			nplt++;
		} else if (!strcmp(name, ".got.plt") || (!strcmp(name, ".got") && !o->got)) {
			o->got = o->bias + s->sh_addr;
		}
	}
	/* The slots a link-time table left unused are at its end: 0, or the
	 * load base where the loader relocated them (doc/internals.md).
	 * They are no entries. */
	if (o->table && o->table_size % sizeof(uintptr_t) == 0) {
		const uintptr_t *t = (const uintptr_t *)o->table;
		size_t n = o->table_size / sizeof *t;
		while (n && (t[n - 1] == 0 || t[n - 1] == o->bias))
			n--;
		o->table_size = n * sizeof *t;
	}
}

struct walk {
	struct mt_object ***objs;
	size_t *nobjs;
	bool *seen;                   /* of the objects known before */
	size_t before;
	size_t added;
};

static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
	struct walk *w = data;
	(void)size;
	bool main = !info->dlpi_name || !info->dlpi_name[0];
	const char *name = main ? "" : info->dlpi_name;
	for (size_t i = 0; i < *w->nobjs; i++) {
		struct mt_object *o = (*w->objs)[i];
		if (o->live && o->bias == info->dlpi_addr && o->main == main &&
		    (main || !strcmp(o->path, name))) {
			if (i < w->before)
				w->seen[i] = true;
			return 0;
		}
	}
	/* (a site and a function name their object by a 16-bit index: an
	 * object beyond that many is left untraced, and said once) */
	if (*w->nobjs >= UINT16_MAX) {
		static bool told;
		if (!told)
			mt_msg("%s: not traced, nor any object loaded after it: the process has loaded %u objects "
			       "since it started, as many as the tracer tells apart", main ? "the program" : name,
			       (unsigned)UINT16_MAX);
		told = true;
		return 0;
	}
	struct mt_object *o = calloc(1, sizeof *o);
	if (!o)
		return 0;
	o->main = main;
	o->bias = info->dlpi_addr;
	o->live = true;
	if (main) {
		char buf[4096];
		ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
		buf[n > 0 ? n : 0] = 0;
		o->path = strdup("/proc/self/exe");
		const char *b = strrchr(buf, '/');
		o->name = strdup(b ? b + 1 : buf);
	} else {
		o->path = strdup(name);
		const char *b = strrchr(name, '/');
		o->name = strdup(b ? b + 1 : name);
	}
	for (unsigned i = 0; i < info->dlpi_phnum && o->nexec < MT_MAX_RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			o->exec_lo[o->nexec] = o->bias + ph->p_vaddr;
			o->exec_hi[o->nexec] = o->bias + ph->p_vaddr + ph->p_memsz;
			o->nexec++;
		}
	}
	struct file f;
	if (o->path && o->name && !object_file(o, *w->objs, *w->nobjs, &f)) {
		o->file = f.p;
		o->file_size = f.size;
		read_sections(o, &f);
		if (o->table) {
			read_functions(o, &f);    /* its sites need their functions now */
			o->syms_read = true;
		}
		read_hook_slots(o, &f);
#if MT_ELFV1
		read_descs(o, &f);
#endif
#if defined(__mips__)
		read_mips_got_slots(o, &f);
#endif
	}
	struct mt_object **nv = realloc(*w->objs, (*w->nobjs + 1) * sizeof *nv);
	if (!nv) {
		free(o);
		return 0;
	}
	*w->objs = nv;
	nv[(*w->nobjs)++] = o;
	w->added++;
	return 0;
}

size_t mt_objects_refresh(struct mt_object ***objs, size_t *nobjs)
{
	size_t before = *nobjs;
	struct walk w = { objs, nobjs, calloc(before + 1, 1), before, 0 };
	if (!w.seen)
		return 0;
	dl_iterate_phdr(visit, &w);
	for (size_t i = 0; i < before; i++)
		if (!w.seen[i])
			(*objs)[i]->live = false;
	free(w.seen);
	return w.added;
}
