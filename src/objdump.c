/* SPDX-License-Identifier: GPL-2.0-or-later */
/* objdump.c - a streaming reader for `LC_ALL=C objdump` text.
 *
 * Understands, in any mix and order, the parts printed by -h (section
 * headers), -t (symbol table), -r (relocation records) and -d with -r
 * (disassembly with the relocations inline).  Lines it does not recognise
 * are skipped, so the output of newer objdumps with extra lines still reads.
 * Only relocations that name the profiling hook are kept.
 */
#define _POSIX_C_SOURCE 200809L
#include "model.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum state { S_NONE, S_HEADERS, S_SYMTAB, S_RELOCS, S_DISASM };

struct reader {
	struct object *obj;
	enum state state;
	int cur_sec;                 /* section of the relocation list or disassembly */
	uint64_t insn_start;         /* last instruction seen in the disassembly */
	uint64_t prev_insn;          /* the one before it under the same label, or NO_ADDR */
	bool new_label;              /* a symbol's label came since the last instruction */
	unsigned char insn_bytes[8];
	unsigned insn_nbytes;
	int last_header;             /* section whose flags line comes next */
};

static bool is_hex(int c)
{
	return isxdigit((unsigned char)c) != 0;
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Parse hex digits at *pp; returns false if there are none. */
static bool parse_hex(const char **pp, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	if (!is_hex(*p))
		return false;
	for (; is_hex(*p); p++) {
		int c = tolower((unsigned char)*p);
		v = v * 16 + (uint64_t)(isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	*pp = p;
	*out = v;
	return true;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int object_section(struct object *obj, const char *name, size_t len)
{
	char *key = xstrndup(name, len);
	int *slot = strmap_get(&obj->secmap, key);
	if (slot) {
		free(key);
		return *slot;
	}
	grow(&obj->secs, &obj->capsecs, obj->nsecs + 1, sizeof(*obj->secs));
	struct section *s = &obj->secs[obj->nsecs];
	memset(s, 0, sizeof(*s));
	s->name = key;
	s->anchor = -1;
	*strmap_put(&obj->secmap, key, 0) = (int)obj->nsecs;
	return (int)obj->nsecs++;
}

/* "  3 .mysec        0000000f  0000000000000000  0000000000000000  00000080  2**4" */
static void header_line(struct reader *r, const char *line)
{
	struct object *obj = r->obj;
	const char *p = skip_ws(line);
	uint64_t idx, size, vma, lma, off;
	if (!isdigit((unsigned char)*p)) {
		/* the flags line of the previous entry */
		if (r->last_header < 0)
			return;
		struct section *s = &obj->secs[r->last_header];
		s->code = strstr(p, "CODE") != NULL;
		s->contents = strstr(p, "CONTENTS") != NULL;
		r->last_header = -1;
		return;
	}
	if (!parse_hex(&p, &idx) || *p != ' ')
		return;
	/* The name may contain spaces: take the five numeric fields from the end. */
	const char *end = p + strlen(p);
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	const char *fields[5];
	const char *q = end;
	for (int i = 4; i >= 0; i--) {
		while (q > p && !isspace((unsigned char)q[-1]))
			q--;
		fields[i] = q;
		while (q > p && isspace((unsigned char)q[-1]))
			q--;
	}
	const char *name = skip_ws(p);
	if (q <= name)
		return; /* fewer fields than a header line has */
	size_t nlen = (size_t)(q - name);
	const char *f = fields[0];
	if (nlen == 0 || !parse_hex(&f, &size))
		return;
	f = fields[1];
	parse_hex(&f, &vma);
	f = fields[2];
	parse_hex(&f, &lma);
	f = fields[3];
	if (!parse_hex(&f, &off))
		return;
	char *key = xstrndup(name, nlen);
	int existing = strmap_get(&obj->secmap, key) ? *strmap_get(&obj->secmap, key) : -1;
	free(key);
	int si;
	if (existing >= 0 && obj->secs[existing].listed) {
		/* a second section of that name: keep the first, flag the name */
		obj->secs[existing].ambiguous = true;
		r->last_header = -1;
		return;
	}
	si = object_section(obj, name, nlen);
	struct section *s = &obj->secs[si];
	s->listed = true;
	s->size = size;
	s->fileoff = off;
	s->vma = vma;
	r->last_header = si;
	obj->saw_headers = true;
	if (strcmp(s->name, "__mcount_loc") == 0)
		obj->has_mcount_loc = true;
	else if (starts_with(s->name, ".gnu.lto_"))
		obj->has_lto = true;
	else if (strcmp(s->name, ".note.GNU-stack") == 0)
		obj->gnu_stack = si;
	else if (strcmp(s->name, ".note.gnu.property") == 0)
		obj->gnu_property = si;
	else if (strcmp(s->name, ".ARM.attributes") == 0)
		obj->arm_attributes = si;
}

/* "0000000000000010 g     F .text\t0000000000000024 .hidden glob" */
static void symtab_line(struct reader *r, const char *line)
{
	struct object *obj = r->obj;
	const char *p = line;
	uint64_t value, size;
	if (!parse_hex(&p, &value) || *p != ' ')
		return;
	p++;
	if (strlen(p) < 9 || p[7] != ' ')
		return;
	const char *flags = p;
	p += 8;
	const char *tab = strchr(p, '\t');
	if (!tab)
		return;
	const char *secname = p;
	size_t seclen = (size_t)(tab - p);
	p = tab + 1;
	if (!parse_hex(&p, &size))
		return;
	if (*p == ' ')
		p++;
	/* a linked image's listing has a column for symbol versions here */
	if (obj->linked)
		p = skip_ws(p);
	static const char *const vis[] = { ".hidden ", ".internal ", ".protected " };
	bool default_vis = true;
	for (size_t i = 0; i < sizeof(vis) / sizeof(vis[0]); i++)
		if (starts_with(p, vis[i])) {
			p += strlen(vis[i]);
			default_vis = false;
		}
	if (p[0] == '0' && p[1] == 'x') {
		/* other st_other bits, printed as a number */
		const char *q = p + 2;
		uint64_t ignored;
		if (parse_hex(&q, &ignored) && *q == ' ')
			p = q + 1;
	}
	struct symbol sym = { 0 };
	sym.name = xstrndup(p, strlen(p));
	sym.value = value;
	sym.bind = flags[0];
	sym.weak = flags[1] == 'w';
	sym.ifunc = flags[4] == 'i';
	sym.debug = flags[5] == 'd';
	sym.file_sym = flags[6] == 'f';
	sym.func = flags[6] == 'F';
	sym.default_vis = default_vis;
	sym.sec = -1;
	if (!(seclen == 5 && (memcmp(secname, "*UND*", 5) == 0 || memcmp(secname, "*ABS*", 5) == 0 ||
			      memcmp(secname, "*COM*", 5) == 0))) {
		sym.sec = object_section(obj, secname, seclen);
		sym.section_sym = sym.debug && strcmp(sym.name, obj->secs[sym.sec].name) == 0;
	}
	if (sym.file_sym)
		obj->has_file_sym = true;
	else if (sym.bind == 'l' && !sym.section_sym)
		obj->has_plain_locals = true;
	int *count = strmap_put(&obj->names, sym.name, 0);
	(*count)++;
	grow(&obj->syms, &obj->capsyms, obj->nsyms + 1, sizeof(*obj->syms));
	obj->syms[obj->nsyms++] = sym;
	obj->saw_symtab = true;
}

/* The hook the relocation's value names ("mcount", "mcount-0x4", ...),
 * as the row spells it, or NULL. */
static const char *named_hook(const struct object *obj, const char *value)
{
	const struct arch *a = obj->arch;
	size_t len = strcspn(value, "+-\t ");
	const char *rest = value + len;
	/* a linked image's symbol table gives a hook from a shared library
	 * its version: __fentry__@GLIBC_2.13 */
	if (obj->linked && memchr(value, '@', len))
		len = (size_t)((const char *)memchr(value, '@', len) - value);
	const char *hook = arch_hook(a, value, len);
	if (!hook)
		return NULL;
	return *rest == '\0' || *rest == ' ' || *rest == '\t' ||
	       ((*rest == '+' || *rest == '-') && rest[1] == '0' && rest[2] == 'x') ? hook : NULL;
}

/* "OFFSET TYPE VALUE" from -r, or "\t\t\tOFFSET: TYPE\tVALUE" inside -d. */
static void reloc_line(struct reader *r, const char *line, bool inline_form)
{
	struct object *obj = r->obj;
	const char *p = skip_ws(line);
	uint64_t off;
	if (r->cur_sec < 0 || !parse_hex(&p, &off))
		return;
	if (inline_form) {
		if (*p != ':')
			return;
		p++;
	}
	p = skip_ws(p);
	const char *type = p;
	size_t tlen = strcspn(p, " \t");
	if (tlen == 0)
		return;
	p = skip_ws(p + tlen);
	const char *hook = obj->arch ? named_hook(obj, p) : NULL;
	if (!hook)
		return;
	struct site s = { 0 };
	s.sec = r->cur_sec;
	s.reloc_off = off;
	s.reloc = xstrndup(type, tlen);
	s.hook = hook;
	s.form = arch_form(obj->arch, s.reloc, hook, strlen(hook));
	s.insn_start = NO_ADDR;
	s.prev_insn = NO_ADDR;
	s.inline_reloc = inline_form;
	if (inline_form && r->insn_start != NO_ADDR && r->insn_start <= off) {
		s.insn_start = r->insn_start;
		s.prev_insn = r->prev_insn;
		s.nbytes = r->insn_nbytes;
		memcpy(s.bytes, r->insn_bytes, sizeof(s.bytes));
	}
	grow(&obj->sites, &obj->capsites, obj->nsites + 1, sizeof(*obj->sites));
	obj->sites[obj->nsites++] = s;
}

/* "   4:\tff 15 00 00 00 00    \tcall   *0x0(%rip)" */
static void insn_line(struct reader *r, const char *line)
{
	const char *p = skip_ws(line);
	uint64_t addr;
	if (!parse_hex(&p, &addr))
		return;
	if (p[0] == ' ' && p[1] == '<') {
		/* "0000000000001040 <main>:": code of another symbol begins */
		r->new_label = true;
		return;
	}
	if (*p != ':')
		return;
	p++;
	if (*p == ' ') {
		reloc_line(r, line, true);
		return;
	}
	if (*p != '\t')
		return;
	p++;
	/* Bytes, then a tab and the mnemonic; a line with bytes only continues
	 * the previous instruction. */
	const char *tab = strchr(p, '\t');
	bool continuation = !tab || *skip_ws(tab) == '\0';
	if (continuation)
		return;
	r->prev_insn = r->new_label ? NO_ADDR : r->insn_start;
	r->new_label = false;
	r->insn_start = addr;
	r->insn_nbytes = 0;
	while (p < tab && r->insn_nbytes < sizeof(r->insn_bytes)) {
		const char *q = p;
		uint64_t v;
		if (!parse_hex(&q, &v))
			break;
		if (q - p != 2) {
			/* words rather than bytes: byte order is not known here */
			r->insn_nbytes = 0;
			break;
		}
		r->insn_bytes[r->insn_nbytes++] = (unsigned char)v;
		p = q;
		while (*p == ' ')
			p++;
	}
}

static void strip_newline(char *line, ssize_t *len)
{
	while (*len > 0 && (line[*len - 1] == '\n' || line[*len - 1] == '\r'))
		line[--*len] = '\0';
}

void objdump_read(FILE *in, struct object *obj)
{
	struct reader r = { .obj = obj, .cur_sec = -1, .insn_start = NO_ADDR, .prev_insn = NO_ADDR,
			    .last_header = -1 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	const char *fmt_tag = ":     file format ";

	while ((len = getline(&line, &cap, in)) >= 0) {
		strip_newline(line, &len);
		char *fmt;
		if (len == 0) {
			if (r.state == S_SYMTAB || r.state == S_RELOCS)
				r.state = S_NONE;
			continue;
		}
		if ((fmt = strstr(line, fmt_tag)) != NULL && line[0] != ' ' && line[0] != '\t') {
			const char *name = fmt + strlen(fmt_tag);
			free(obj->bfd_format);
			obj->bfd_format = xstrndup(name, strlen(name));
			const struct arch *a = arch_by_bfd_format(name);
			/* An objdump built for another machine reads the object as
			 * generic ELF and cannot name its relocations. */
			if (obj->arch && !a && strncmp(name, "elf", 3) == 0 &&
			    (strstr(name, "-little") || strstr(name, "-big")))
				fatal("this objdump cannot decode %s code (it reads the object as generic "
				      "%s): use %s-objdump or a multi-target objdump",
				      obj->arch->name, name, obj->arch->triple);
			if (obj->arch && a && a != obj->arch)
				fatal("object format %s is not %s", name, obj->arch->name);
			if (!obj->arch && !a)
				fatal("unsupported object format %s", name);
			if (!obj->arch)
				obj->arch = a;
			r.state = S_NONE;
			continue;
		}
		if (starts_with(line, "In archive "))
			fatal("an archive, not an object: record its members one by one");
		if (strcmp(line, "Sections:") == 0) {
			r.state = S_HEADERS;
			continue;
		}
		if (strcmp(line, "SYMBOL TABLE:") == 0) {
			r.state = S_SYMTAB;
			obj->saw_symtab = true;
			continue;
		}
		if (starts_with(line, "RELOCATION RECORDS FOR [") && len > 26 &&
		    strcmp(line + len - 2, "]:") == 0) {
			const char *name = line + strlen("RELOCATION RECORDS FOR [");
			r.cur_sec = object_section(obj, name, (size_t)(line + len - 2 - name));
			r.state = S_RELOCS;
			obj->saw_relocs = true;
			continue;
		}
		if (starts_with(line, "Disassembly of section ") && line[len - 1] == ':') {
			const char *name = line + strlen("Disassembly of section ");
			r.cur_sec = object_section(obj, name, (size_t)(line + len - 1 - name));
			obj->secs[r.cur_sec].code = true;
			r.insn_start = NO_ADDR;
			r.new_label = true;
			r.state = S_DISASM;
			obj->saw_disasm = true;
			continue;
		}
		switch (r.state) {
		case S_HEADERS:
			if (!starts_with(line, "Idx "))
				header_line(&r, line);
			break;
		case S_SYMTAB:
			symtab_line(&r, line);
			break;
		case S_RELOCS:
			if (!starts_with(line, "OFFSET "))
				reloc_line(&r, line, false);
			break;
		case S_DISASM:
			insn_line(&r, line);
			break;
		case S_NONE:
			break;
		}
	}
	free(line);
	if (ferror(in))
		fatal("read error on the objdump listing");
}
