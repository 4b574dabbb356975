/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scan.c - from what objdump said to what the table must hold: which
 * sections are recorded, where each call site's entry points, and which
 * symbol anchors each section's entries. */
#define _POSIX_C_SOURCE 200809L
#include "scan.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The sections the Linux 6.1 recordmcount.pl records, plus every ".text.*". */
const char *const kernel_sections[] = {
	".text", ".init.text", ".ref.text", ".sched.text", ".spinlock.text",
	".irqentry.text", ".softirqentry.text", ".kprobes.text", ".cpuidle.text",
	".text.unlikely", ".text.*", NULL,
};

static bool name_matches(const char *name, const char *pattern, size_t plen)
{
	if (plen > 0 && pattern[plen - 1] == '*')
		return strncmp(name, pattern, plen - 1) == 0;
	return strlen(name) == plen && strncmp(name, pattern, plen) == 0;
}

static bool in_list(const char *name, const char *list)
{
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		if (len && name_matches(name, p, len))
			return true;
		p += len;
		if (*p == ',')
			p++;
	}
	return false;
}

bool sections_spec_valid(const char *spec)
{
	if (strcmp(spec, "kernel") == 0 || strcmp(spec, "all") == 0)
		return true;
	for (const char *p = spec; *p;) {
		size_t len = strcspn(p, ",");
		if (len == 0)
			return false;
		p += len;
		if (*p == ',' && !*++p)
			return false;
	}
	return *spec != '\0';
}

void scan_select(struct object *obj, const char *spec)
{
	bool all = strcmp(spec, "all") == 0, kernel = strcmp(spec, "kernel") == 0;
	for (size_t i = 0; i < obj->nsecs; i++) {
		struct section *s = &obj->secs[i];
		bool match;
		if (all) {
			match = s->code;
		} else if (kernel) {
			match = false;
			for (const char *const *k = kernel_sections; *k && !match; k++)
				match = name_matches(s->name, *k, strlen(*k));
		} else {
			match = in_list(s->name, spec);
		}
		/* Without section headers nothing says what is code; trust the name. */
		s->recorded = match && (s->code || !obj->saw_headers);
	}
}

static int site_cmp(const void *a, const void *b)
{
	const struct site *x = a, *y = b;
	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->reloc_off != y->reloc_off)
		return x->reloc_off < y->reloc_off ? -1 : 1;
	/* a site with instruction bytes (from -d) sorts first and survives */
	return (y->insn_start != NO_ADDR) - (x->insn_start != NO_ADDR);
}

static void hexbytes(char *out, size_t outlen, const unsigned char *b, unsigned n)
{
	size_t used = 0;
	out[0] = '\0';
	for (unsigned i = 0; i < n && used + 4 < outlen; i++)
		used += (size_t)snprintf(out + used, outlen - used, "%s%02x", i ? " " : "", b[i]);
}

static bool opcode_matches(const struct call_form *f, const unsigned char *bytes)
{
	for (unsigned i = 0; i < f->oplen; i++)
		if ((bytes[i] & f->opmask[i]) != f->opcode[i])
			return false;
	return true;
}

/* Where a relocation is, in messages: "SECTION+0xOFFSET", printed whole
 * however long the section's name is. */
#define AT_FMT "%s+0x%llx"
#define AT(sec, off) (sec)->name, (unsigned long long)(off)

/* A reference to the hook that is no call: with --pass-over a note and
 * false (the caller counts it), else the object is refused. */
static __attribute__((format(printf, 2, 3))) bool refuse(const struct object *obj,
							  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (!obj->pass_over)
		vfatal(fmt, ap);
	vnote_msg(fmt, ap);
	va_end(ap);
	return false;
}

/* The form's opcode at its place(s) from an entry candidate at section
 * offset start: PLACE_MATCH, PLACE_MISMATCH (bytes holds what the last
 * place read has), or PLACE_NO_ROOM (the last place lies outside the
 * section).  where: the relocation's offset, for the message of a
 * truncated file. */
enum place_result { PLACE_MATCH, PLACE_MISMATCH, PLACE_NO_ROOM };
static enum place_result match_places(const struct object *obj, const struct section *sec,
				      const struct call_form *f, uint64_t start, uint64_t where,
				      unsigned char bytes[8])
{
	unsigned nplaces = f->ncheck == 2 ? 2 : 1;
	for (unsigned k = 0; k < nplaces; k++) {
		int64_t at = (int64_t)start + f->check_at[k];
		if (at < 0 || (uint64_t)at + f->oplen > sec->size) {
			if (k + 1 < nplaces)
				continue;
			return PLACE_NO_ROOM;
		}
		if (elf_read_at(obj->fd, sec->fileoff + (uint64_t)at, bytes, f->oplen) != (long)f->oplen)
			fatal("cannot read the code at " AT_FMT ": file truncated", AT(sec, where));
		if (opcode_matches(f, bytes))
			return PLACE_MATCH;
	}
	return PLACE_MISMATCH;
}

/* Is this relocation really on a call of the form its type implies? */
static bool check_call(const struct object *obj, const struct site *st)
{
	const struct call_form *f = st->form;
	const struct section *sec = &obj->secs[st->sec];
	unsigned char bytes[8];
	unsigned n = 0;
	unsigned nplaces = f->ncheck == 2 ? 2 : 1;

	if (st->reloc_off < f->field_offset + f->lead)
		return refuse(obj, "%s: %s relocation at " AT_FMT " is too close to the section start for a call",
		      sec->name, st->reloc, AT(sec, st->reloc_off));
	uint64_t call = st->reloc_off - f->field_offset, start = call - f->lead;
	if (st->insn_start != NO_ADDR) {
		if (st->insn_start != call)
			return refuse(obj, "%s: %s relocation at " AT_FMT " is not on a call instruction "
			      "(it is at +%llu of the instruction at 0x%llx, a call has it at +%u)",
			      sec->name, st->reloc, AT(sec, st->reloc_off),
			      (unsigned long long)(st->reloc_off - st->insn_start),
			      (unsigned long long)st->insn_start, f->field_offset);
		if (f->check_at[0] == 0 && f->lead == 0) {
			n = st->nbytes;
			memcpy(bytes, st->bytes, sizeof(bytes));
		}
	}
	if (n >= f->oplen) {
		if (opcode_matches(f, bytes))
			return true;
		nplaces = 0; /* the disassembly's bytes are the answer */
	} else if (!(obj->fd >= 0 && sec->listed && sec->contents && f->oplen)) {
		return true; /* nothing to check against */
	}
	if (nplaces) {
		enum place_result r = match_places(obj, sec, f, start, st->reloc_off, bytes);
		if (r == PLACE_MATCH)
			return true;
		if (r == PLACE_NO_ROOM)
			return refuse(obj, "%s: %s relocation at " AT_FMT " has no room for its call "
				      "instruction in the section", sec->name, st->reloc,
				      AT(sec, st->reloc_off));
	}
	char got[40], want[40];
	hexbytes(got, sizeof(got), bytes, f->oplen);
	hexbytes(want, sizeof(want), f->opcode, f->oplen);
	if (f->check_at[0] != 0)
		return refuse(obj, "%s: %s relocation at " AT_FMT " is not used by a call (bytes %s %d bytes "
		      "away, where a call sequence has %s)", sec->name, st->reloc,
		      AT(sec, st->reloc_off), got,
		      -f->check_at[nplaces ? nplaces - 1 : 0], want);
	return refuse(obj, "%s: %s relocation at " AT_FMT " is not on a call instruction "
	      "(bytes %s where a call has %s)", sec->name, st->reloc, AT(sec, st->reloc_off),
	      got, want);
}

size_t scan_sites(struct object *obj, enum entry_mode mode)
{
	size_t out = 0;
	if (obj->nsites)
		qsort(obj->sites, obj->nsites, sizeof(*obj->sites), site_cmp);
	for (size_t i = 0; i < obj->nsites; i++) {
		struct site *st = &obj->sites[i];
		struct section *sec = &obj->secs[st->sec];
		if (!sec->recorded || (out > 0 && obj->sites[out - 1].sec == st->sec &&
					obj->sites[out - 1].reloc_off == st->reloc_off)) {
			free(st->reloc);
			continue;
		}
		if (!st->form && !refuse(obj, "%s: relocation %s against the profiling hook at "
					 AT_FMT " is not a call form known for %s", sec->name, st->reloc,
					 AT(sec, st->reloc_off), obj->arch->name)) {
			obj->passed_over++;
			free(st->reloc);
			continue;
		}
		if (st->form->kind == FORM_COMPANION) {
			/* the second relocation of a site already counted: no entry */
			const struct site *prev = out > 0 ? &obj->sites[out - 1] : NULL;
			if (!prev || prev->sec != st->sec || st->reloc_off - prev->reloc_off > st->form->span)
				fatal("%s: %s relocation at " AT_FMT " belongs to a call sequence, but no "
				      "call site relocation comes at most %u bytes before it",
				      sec->name, st->reloc, AT(sec, st->reloc_off), st->form->span);
			free(st->reloc);
			continue;
		}
		if (!check_call(obj, st)) {
			obj->passed_over++;
			free(st->reloc);
			continue;
		}
		st->entry = mode == ENTRY_CALL ? st->reloc_off - st->form->field_offset - st->form->lead
					       : st->reloc_off;
		sec->nsites++;
		obj->sites[out++] = *st;
	}
	obj->nsites = out;
	return out;
}

static bool usable_name(const char *name)
{
	/* .L: assembler temporaries; '@': a versioned name (foo@@V1), which
	 * GAS would read as a version reference */
	if (!*name || strncmp(name, ".L", 2) == 0 || strchr(name, '@'))
		return false;
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

/* The symbol that anchors a section's entries: a global, non-weak symbol
 * defined there, else a local one (globalized for the relink).  Its name
 * must be unique in the object, or objcopy would act on every namesake.
 * A writable table is for a PIE or a shared library, where a global
 * symbol of default visibility is preemptible: `.quad sym + delta` stays
 * a symbolic dynamic relocation, and another object's sym (the program's,
 * a preloaded library's) would move every entry.  So there only a hidden,
 * internal or protected global anchors; else a local or an added one,
 * whose entries the linker resolves (R_*_RELATIVE). */
static int pick_anchor(const struct object *obj, int sec, bool want_global)
{
	int best = -1;
	for (size_t i = 0; i < obj->nsyms; i++) {
		const struct symbol *s = &obj->syms[i];
		bool global = s->bind == 'g';
		if (s->sec != sec || s->weak || s->ifunc || s->section_sym || s->file_sym ||
		    s->debug || global != want_global || (!global && s->bind != 'l'))
			continue;
		if (global && s->default_vis && obj->writable_table)
			continue;
		if (!usable_name(s->name) || *strmap_get(&obj->names, s->name) != 1)
			continue;
		if (best < 0 || s->value < obj->syms[best].value)
			best = (int)i;
	}
	return best;
}

/* Added anchors start with '$': the kernel's kallsyms skips such names
 * (as it does ARM and MIPS local symbols), so ftrace keeps naming the
 * site after the weak function, and every assembler takes the quoted name. */
#define ANCHOR_PREFIX "$mcount_anchor"

static char *added_anchor_name(struct object *obj, const struct section *sec)
{
	size_t cap = strlen(sec->name) + 48;
	char *name = xmalloc(cap);
	bool plain = strcspn(sec->name, "=:,\"\\ \t") == strlen(sec->name);
	for (unsigned n = 0;; n++) {
		if (plain && n == 0)
			snprintf(name, cap, ANCHOR_PREFIX "%s%s", sec->name[0] == '.' ? "" : ".", sec->name);
		else if (plain)
			snprintf(name, cap, ANCHOR_PREFIX "%s%s.%u", sec->name[0] == '.' ? "" : ".",
				 sec->name, n);
		else
			snprintf(name, cap, ANCHOR_PREFIX ".%u", n);
		if (!strmap_get(&obj->names, name)) {
			strmap_put(&obj->names, name, 1);
			return name;
		}
	}
}

void scan_anchors(struct object *obj)
{
	for (size_t i = 0; i < obj->nsecs; i++) {
		struct section *sec = &obj->secs[i];
		if (!sec->nsites)
			continue;
		if (sec->ambiguous)
			fatal("more than one section is named %s: its %zu call site%s cannot be "
			      "anchored unambiguously", sec->name, sec->nsites, sec->nsites == 1 ? "" : "s");
		if (!obj->saw_symtab)
			fatal("the objdump listing has no symbol table (run objdump with -t)");
		sec->anchor = pick_anchor(obj, (int)i, true);
		if (sec->anchor < 0) {
			sec->anchor = pick_anchor(obj, (int)i, false);
			sec->anchor_local = sec->anchor >= 0;
		}
		if (sec->anchor < 0) {
			if (strchr(sec->name, ':'))
				fatal("section %s has call sites but no symbol to anchor them, and its "
				      "name cannot be given to objcopy --add-symbol", sec->name);
			sec->added_anchor = added_anchor_name(obj, sec);
		}
	}
}

void scan_drop_comdat(struct object *obj)
{
	size_t out = 0;
	for (size_t i = 0; i < obj->nsites; i++) {
		struct section *sec = &obj->secs[obj->sites[i].sec];
		if (sec->comdat) {
			if (sec->nsites) {
				warn_msg("%s: %zu call site%s not recorded: the section is in a COMDAT "
					 "group, and a table outside the group would break the final link "
					 "when the group is discarded (link-time mode records them: "
					 "mcount-cc, or mcount-record --link)", sec->name, sec->nsites,
					 sec->nsites == 1 ? "" : "s");
				sec->nsites = 0;
			}
			free(obj->sites[i].reloc);
			continue;
		}
		obj->sites[out++] = obj->sites[i];
	}
	obj->nsites = out;
}

const char *scan_object(struct object *obj, const char *sections, enum entry_mode mode)
{
	if (obj->has_mcount_loc) {
		note_msg("already has a __mcount_loc table; left unchanged");
		for (size_t i = 0; i < obj->nsites; i++)
			free(obj->sites[i].reloc);
		obj->nsites = 0;
		return "already-recorded";
	}
	elf_mark_comdat(obj, obj->arch->elf_class, obj->arch->big_endian);
	scan_select(obj, sections);
	scan_sites(obj, mode);
	scan_drop_comdat(obj);
	scan_anchors(obj);
	return obj->nsites ? "recorded" : obj->has_lto ? "lto" : "no-sites";
}

void object_init(struct object *obj)
{
	*obj = (struct object){ .fd = -1, .gnu_stack = -1, .gnu_property = -1, .arm_attributes = -1 };
}

void object_free(struct object *obj)
{
	for (size_t i = 0; i < obj->nsecs; i++) {
		free(obj->secs[i].name);
		free(obj->secs[i].added_anchor);
	}
	for (size_t i = 0; i < obj->nsyms; i++)
		free(obj->syms[i].name);
	for (size_t i = 0; i < obj->nsites; i++)
		free(obj->sites[i].reloc);
	free(obj->secs);
	free(obj->syms);
	free(obj->sites);
	free(obj->bfd_format);
	free(obj->tabled);
	strmap_free(&obj->secmap);
	strmap_free(&obj->names);
	if (obj->fd >= 0)
		close(obj->fd);
	object_init(obj);
}

/* --linked ------------------------------------------------------------ */

/* Does a call form of the row name this relocation type?  (companion:
 * set when only a companion form does) */
static bool linked_call_type(const struct arch *a, const char *reloc, bool *companion)
{
	bool comp = false;
	for (size_t i = 0; i < a->nforms; i++) {
		const struct call_form *f = &a->forms[i];
		if (!f->reloc || strcmp(f->reloc, reloc) != 0)
			continue;
		if (f->kind == FORM_SITE)
			return true;
		comp = true;
	}
	*companion = comp;
	return false;
}

/* The start of the code (a FUNC symbol) holding address addr: the
 * greatest value not above it, from funcs sorted by value; NO_ADDR if none. */
static uint64_t func_start(const uint64_t *funcs, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (funcs[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? funcs[lo - 1] : NO_ADDR;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Is x one of the n values at v (few: a linear look)? */
static bool u64_in(const uint64_t *v, size_t n, uint64_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct site *x = a, *y = b;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* Do the bytes of the section at entry (a call's entry candidate) match
 * the form's opcode, at either of its places? */
static bool linked_bytes_match(const struct object *obj, const struct section *sec,
			       const struct call_form *f, uint64_t entry, uint64_t reloc_off)
{
	unsigned char bytes[8];
	return f->oplen && sec->contents &&
	       match_places(obj, sec, f, entry, reloc_off, bytes) == PLACE_MATCH;
}

/* The entry (section offset) of the call the relocation at section offset
 * off belongs to, or NO_ADDR if it is on no call.  Every form of the row
 * is a candidate whatever the relocation's type (a linker that relaxes a
 * call may keep the type or change it): the bytes decide.  The candidate
 * that starts furthest back wins (`67 e8` or `90 e8` before the plain
 * `e8` they end with), but no candidate may start before the code of the
 * symbol holding the relocation, and with a -d listing the call must be
 * the instruction that holds the field (with a nop before it, that nop
 * starts the entry, under the same symbol). */
static uint64_t linked_entry(const struct object *obj, const struct site *st, uint64_t off,
			     uint64_t lowest, uint64_t insn, uint64_t prev, bool *ambiguous)
{
	const struct arch *a = obj->arch;
	const struct section *sec = &obj->secs[st->sec];
	const struct call_form *cand[32];
	size_t n = 0;
	for (size_t i = 0; i < a->nforms && n < sizeof(cand) / sizeof(cand[0]); i++) {
		const struct call_form *f = &a->forms[i];
		/* a form of one hook only (s390's) for that hook's calls */
		if (f->kind != FORM_SITE || (f->hook && strcmp(f->hook, st->hook) != 0))
			continue;
		/* deepest first, stable */
		size_t j = n++;
		while (j > 0 && cand[j - 1]->field_offset + cand[j - 1]->lead <
			       f->field_offset + f->lead) {
			cand[j] = cand[j - 1];
			j--;
		}
		cand[j] = f;
	}
	uint64_t found = NO_ADDR;
	*ambiguous = false;
	for (size_t i = 0; i < n; i++) {
		const struct call_form *f = cand[i];
		uint64_t depth = f->field_offset + f->lead;
		if (off < depth)
			continue;
		uint64_t entry = off - depth;
		if ((lowest != NO_ADDR && entry < lowest) || entry == found)
			continue;
		if (insn != NO_ADDR) {
			if (insn != entry + f->lead + f->call_at)
				continue;
			if (f->call_at && prev != entry + f->lead)
				continue;
		}
		if (!linked_bytes_match(obj, sec, f, entry, off))
			continue;
		/* with a -d listing the first match is the call; without one,
		 * a second match at another start leaves the choice to the
		 * disassembly */
		if (insn != NO_ADDR || obj->saw_disasm)
			return entry;
		if (found != NO_ADDR) {
			*ambiguous = true;
			return found;
		}
		found = entry;
	}
	return found;
}

const char *scan_linked(struct object *obj)
{
	const struct arch *a = obj->arch;
	if (!obj->saw_headers)
		fatal("the objdump listing has no section headers (run objdump with -h)");
	if (!obj->saw_symtab)
		fatal("the objdump listing has no symbol table (run objdump with -t)");
	int *base = strmap_get(&obj->names, ENTRY_BASE);
	size_t nfuncs = 0;
	bool have_base = false;
	for (size_t i = 0; i < obj->nsyms; i++) {
		const struct symbol *s = &obj->syms[i];
		nfuncs += s->func && s->sec >= 0;
		if (base && !have_base && strcmp(s->name, ENTRY_BASE) == 0 && !s->debug) {
			obj->entry_base = s->value;
			have_base = true;
		}
	}
	if (!have_base)
		fatal("no __ehdr_start in the symbol table: the image must be linked with the "
		      "placeholder table (mcount-scan --placeholder) that refers to it");
	uint64_t *funcs = xmalloc(nfuncs * sizeof(*funcs));
	/* the hook's own functions, linked in: their references to
	 * themselves (mips's glibc _mcount sets up gp from its own
	 * address) are no calls, and not worth a note */
	uint64_t *hookfns = xmalloc(nfuncs * sizeof(*hookfns));
	size_t nhookfns = 0;
	nfuncs = 0;
	for (size_t i = 0; i < obj->nsyms; i++) {
		const struct symbol *s = &obj->syms[i];
		if (!s->func || s->sec < 0)
			continue;
		funcs[nfuncs++] = s->value;
		if (arch_hook(a, s->name, strcspn(s->name, "@")))
			hookfns[nhookfns++] = s->value;
	}
	qsort(funcs, nfuncs, sizeof(*funcs), u64_cmp);

	size_t out = 0;
	for (size_t i = 0; i < obj->nsites; i++) {
		struct site *st = &obj->sites[i];
		const struct section *sec = &obj->secs[st->sec];
		bool companion = false;
		/* -r prints a linked image's relocation offsets from the
		 * section's start (bfd subtracts its address); -dr prints
		 * addresses, as the instructions have them */
		uint64_t off = st->reloc_off, insn = st->insn_start, prev = st->prev_insn;
		if (st->inline_reloc) {
			off -= sec->vma;
			insn = insn == NO_ADDR ? NO_ADDR : insn - sec->vma;
			prev = prev == NO_ADDR ? NO_ADDR : prev - sec->vma;
		}
		bool call_type = linked_call_type(a, st->reloc, &companion);
		if (!sec->listed || !sec->code || off >= sec->size || companion) {
			/* not code, or the second relocation of a call */
			free(st->reloc);
			continue;
		}
		uint64_t lowest = func_start(funcs, nfuncs, sec->vma + off);
		lowest = lowest == NO_ADDR || lowest < sec->vma ? NO_ADDR : lowest - sec->vma;
		uint64_t entry = NO_ADDR;
		bool ambiguous = false;
		if (call_type)
			entry = linked_entry(obj, st, off, lowest, insn, prev, &ambiguous);
		obj->ambiguous += ambiguous;
		if (entry == NO_ADDR && lowest != NO_ADDR &&
		    u64_in(hookfns, nhookfns, sec->vma + lowest)) {
			free(st->reloc);
			continue;
		}
		if (entry == NO_ADDR) {
			note_msg("%s: %s relocation against the profiling hook at 0x%llx is not on "
				 "a call: passed over", sec->name, st->reloc,
				 (unsigned long long)(sec->vma + off));
			obj->passed_over++;
			free(st->reloc);
			continue;
		}
		st->entry = sec->vma + entry;
		obj->sites[out++] = *st;
	}
	free(funcs);
	free(hookfns);
	obj->nsites = out;
	if (out)
		qsort(obj->sites, out, sizeof(*obj->sites), entry_cmp);
	if (obj->ntabled)
		qsort(obj->tabled, obj->ntabled, sizeof(*obj->tabled), u64_cmp);
	/* several relocations of one call (riscv's JAL and its NONE, or a
	 * relocation printed twice) give one entry; a call an object's own
	 * table already holds (recorded per object) gets none */
	out = 0;
	for (size_t i = 0; i < obj->nsites; i++) {
		uint64_t e = obj->sites[i].entry;
		bool dup = i && obj->sites[i - 1].entry == e;
		bool tabled = !dup && obj->ntabled &&
			      bsearch(&e, obj->tabled, obj->ntabled, sizeof(*obj->tabled), u64_cmp);
		obj->left_tabled += tabled;
		if (dup || tabled) {
			free(obj->sites[i].reloc);
			continue;
		}
		obj->sites[out++] = obj->sites[i];
	}
	obj->nsites = out;
	return out ? "recorded" : "no-sites";
}
