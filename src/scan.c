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

/* Is this relocation really on a call of the form its type implies? */
static void check_call(const struct object *obj, const struct site *st)
{
	const struct call_form *f = st->form;
	const struct section *sec = &obj->secs[st->sec];
	unsigned char bytes[8];
	unsigned n = 0;
	unsigned nplaces = f->ncheck == 2 ? 2 : 1;

	if (st->reloc_off < f->field_offset + f->lead)
		fatal("%s: %s relocation at " AT_FMT " is too close to the section start for a call",
		      sec->name, st->reloc, AT(sec, st->reloc_off));
	uint64_t call = st->reloc_off - f->field_offset, start = call - f->lead;
	if (st->insn_start != NO_ADDR) {
		if (st->insn_start != call)
			fatal("%s: %s relocation at " AT_FMT " is not on a call instruction "
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
			return;
		nplaces = 0; /* the disassembly's bytes are the answer */
	} else if (!(obj->fd >= 0 && sec->listed && sec->contents && f->oplen)) {
		return; /* nothing to check against */
	}
	for (unsigned k = 0; k < nplaces; k++) {
		int64_t at = (int64_t)start + f->check_at[k];
		if (at < 0 || (uint64_t)at + f->oplen > sec->size) {
			if (k + 1 < nplaces)
				continue;
			fatal("%s: %s relocation at " AT_FMT " has no room for its call instruction in "
			      "the section", sec->name, st->reloc, AT(sec, st->reloc_off));
		}
		long got = elf_read_at(obj->fd, sec->fileoff + (uint64_t)at, bytes, f->oplen);
		if (got != (long)f->oplen)
			fatal("cannot read the code at " AT_FMT ": file truncated",
			      AT(sec, st->reloc_off));
		if (opcode_matches(f, bytes))
			return;
	}
	char got[40], want[40];
	hexbytes(got, sizeof(got), bytes, f->oplen);
	hexbytes(want, sizeof(want), f->opcode, f->oplen);
	if (f->check_at[0] != 0)
		fatal("%s: %s relocation at " AT_FMT " is not used by a call (bytes %s %d bytes "
		      "away, where a call sequence has %s)", sec->name, st->reloc,
		      AT(sec, st->reloc_off), got,
		      -f->check_at[nplaces ? nplaces - 1 : 0], want);
	fatal("%s: %s relocation at " AT_FMT " is not on a call instruction "
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
		if (!st->form)
			fatal("%s: relocation %s against the profiling hook at " AT_FMT " is not a "
			      "call form known for %s", sec->name, st->reloc, AT(sec, st->reloc_off),
			      obj->arch->name);
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
		check_call(obj, st);
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
 * must be unique in the object, or objcopy would act on every namesake. */
static int pick_anchor(const struct object *obj, int sec, bool want_global)
{
	int best = -1;
	for (size_t i = 0; i < obj->nsyms; i++) {
		const struct symbol *s = &obj->syms[i];
		bool global = s->bind == 'g';
		if (s->sec != sec || s->weak || s->ifunc || s->section_sym || s->file_sym ||
		    s->debug || global != want_global || (!global && s->bind != 'l'))
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
					 "when the group is discarded", sec->name, sec->nsites,
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
	strmap_free(&obj->secmap);
	strmap_free(&obj->names);
	if (obj->fd >= 0)
		close(obj->fd);
	object_init(obj);
}
