/* SPDX-License-Identifier: GPL-2.0-or-later */
/* emit.c - the temporary assembly file and the plan for the pipeline. */
#define _POSIX_C_SOURCE 200809L
#include "scan.h"

#include <inttypes.h>
#include <string.h>

/* A symbol name as a GAS quoted name. */
static void put_quoted(FILE *out, const char *name)
{
	fputc('"', out);
	for (const char *p = name; *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

static const char *anchor_name(const struct object *obj, const struct section *sec)
{
	return sec->added_anchor ? sec->added_anchor : obj->syms[sec->anchor].name;
}

static uint64_t anchor_value(const struct object *obj, const struct section *sec)
{
	return sec->added_anchor ? 0 : obj->syms[sec->anchor].value;
}

/* Copy a note section of the input byte for byte, so that ld -r, which
 * merges (for x86 and AArch64 feature bits: ANDs) the notes of its inputs,
 * leaves the object's own note as it was. */
static void copy_note(FILE *out, const struct object *obj, int si, const char *flags)
{
	const struct section *s = &obj->secs[si];
	const struct arch *a = obj->arch;
	unsigned char buf[4096];
	if (s->size > sizeof(buf) || obj->fd < 0)
		fatal("cannot copy %s (%" PRIu64 " bytes)", s->name, s->size);
	long got = elf_read_at(obj->fd, s->fileoff, buf, (size_t)s->size);
	if (got != (long)s->size)
		fatal("cannot read %s: file truncated", s->name);
	fprintf(out, "\t.section %s,\"%s\",%cnote\n\t.balign %u\n", s->name, flags,
		a->type_prefix, a->elf_class / 8);
	for (uint64_t i = 0; i < s->size; i++)
		fprintf(out, "%s0x%02x%s", i % 16 ? "," : "\t.byte ", buf[i],
			i % 16 == 15 || i + 1 == s->size ? "\n" : "");
}

static uint64_t uleb(const unsigned char *p, size_t n, size_t *i)
{
	uint64_t v = 0;
	for (unsigned shift = 0; *i < n && shift < 64; shift += 7) {
		unsigned char b = p[(*i)++];
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* Restate the object's ARM build attributes (the aeabi file attributes)
 * as .eabi_attribute directives: ld -r merges the attributes of its
 * inputs, and the table's object would otherwise lose some (such as
 * Tag_ABI_align_preserved, which holds only if every input says so). */
static void copy_arm_attributes(FILE *out, const struct object *obj)
{
	const struct section *s = &obj->secs[obj->arm_attributes];
	bool big = obj->arch->big_endian;
	unsigned char buf[4096];
	if (s->size > sizeof(buf) || s->size < 1 || obj->fd < 0)
		return;
	if (elf_read_at(obj->fd, s->fileoff, buf, (size_t)s->size) != (long)s->size || buf[0] != 'A')
		return;
	size_t n = (size_t)s->size;
	for (size_t sub = 1; sub + 4 < n;) {
		uint32_t len = big ? (uint32_t)buf[sub] << 24 | (uint32_t)buf[sub + 1] << 16 |
				     (uint32_t)buf[sub + 2] << 8 | buf[sub + 3]
				   : (uint32_t)buf[sub + 3] << 24 | (uint32_t)buf[sub + 2] << 16 |
				     (uint32_t)buf[sub + 1] << 8 | buf[sub];
		if (len < 4 || len > n - sub)
			return;
		size_t end = sub + len, i = sub + 4;
		bool aeabi = end - i >= 6 && memcmp(buf + i, "aeabi", 6) == 0;
		i += strnlen((const char *)buf + i, end - i) + 1;
		/* only a File (tag 1) sub-subsection is expected in an object */
		if (aeabi && i + 5 <= end && buf[i] == 1) {
			i += 5;
			while (i < end) {
				uint64_t tag = uleb(buf, end, &i);
				bool str = tag == 4 || tag == 5 || tag == 67 || (tag > 32 && tag % 2);
				if (tag == 32) {
					/* Tag_compatibility: a flag and a vendor name */
					uint64_t flag = uleb(buf, end, &i);
					size_t l = strnlen((const char *)buf + i, end - i);
					fprintf(out, "\t.eabi_attribute 32, %" PRIu64 ", \"%.*s\"\n", flag,
						(int)l, buf + i);
					i += l + 1;
				} else if (str) {
					size_t l = strnlen((const char *)buf + i, end - i);
					fprintf(out, "\t.eabi_attribute %" PRIu64 ", ", tag);
					fputc('"', out);
					for (size_t k = 0; k < l; k++) {
						if (buf[i + k] == '"' || buf[i + k] == '\\')
							fputc('\\', out);
						fputc(buf[i + k], out);
					}
					fputs("\"\n", out);
					i += l + 1;
				} else {
					fprintf(out, "\t.eabi_attribute %" PRIu64 ", %" PRIu64 "\n", tag,
						uleb(buf, end, &i));
				}
			}
		}
		sub = end;
	}
}

void emit_assembly(FILE *out, const struct object *obj)
{
	const struct arch *a = obj->arch;
	fprintf(out, "/* __mcount_loc table: %zu call sites, written by mcount-scan */\n",
		obj->nsites);
	arch_table_directives(a, obj->elf_flags, out);
	fprintf(out, "\t.section __mcount_loc,\"%s\",%cprogbits\n\t.balign %u\n",
		obj->writable_table ? "aw" : "a", a->type_prefix, a->entry_size);
	for (size_t i = 0; i < obj->nsites; i++) {
		const struct site *st = &obj->sites[i];
		const struct section *sec = &obj->secs[st->sec];
		uint64_t base = anchor_value(obj, sec);
		fprintf(out, "\t%s ", a->entry_directive);
		put_quoted(out, anchor_name(obj, sec));
		if (st->entry >= base)
			fprintf(out, " + 0x%" PRIx64 "\n", st->entry - base);
		else
			fprintf(out, " - 0x%" PRIx64 "\n", base - st->entry);
	}
	/* Keep the object's stack and property notes what they were: ld -r
	 * would otherwise mark the stack executable or drop IBT/SHSTK/BTI. */
	if (obj->gnu_stack >= 0)
		fprintf(out, "\t.section .note.GNU-stack,\"%s\",%cprogbits\n",
			obj->secs[obj->gnu_stack].code ? "x" : "", a->type_prefix);
	if (obj->gnu_property >= 0)
		copy_note(out, obj, obj->gnu_property, "a");
	if (obj->arm_attributes >= 0 && a->arm_attributes)
		copy_arm_attributes(out, obj);
}


/* The call forms of a row as the plan's call-forms (or, LINKER, the
 * linker-forms) value: RELOC/LEN/FIELD, then optional /companion (no
 * entry of its own), /lead=N (the entry is N bytes before the call),
 * /hook=NAME (only for calls to that hook), /call_at=N (the call
 * instruction is N bytes after the entry); for linked files /span=N (a
 * companion's greatest distance to its site), /op=HEX/mask=HEX/at=N[,M]
 * (the opcode checked at the entry + N), /linked=KIND (see arch.h). */
static void put_forms(FILE *out, const struct arch *a, bool linker)
{
	for (size_t i = 0, n = 0; i < a->nforms; i++) {
		const struct call_form *f = &a->forms[i];
		if (f->linker_made != linker)
			continue;
		fprintf(out, "%s%s/%u/%u%s", n++ ? " " : "", f->reloc ? f->reloc : "*", f->insn_len,
			f->field_offset, f->kind == FORM_COMPANION ? "/companion" : "");
		if (f->lead)
			fprintf(out, "/lead=%u", f->lead);
		if (f->hook)
			fprintf(out, "/hook=%s", f->hook);
		if (f->call_at)
			fprintf(out, "/call_at=%u", f->call_at);
		if (f->kind == FORM_COMPANION)
			fprintf(out, "/span=%u", f->span);
		if (f->oplen) {
			fputs("/op=", out);
			for (unsigned b = 0; b < f->oplen; b++)
				fprintf(out, "%02x", f->opcode[b]);
			fputs("/mask=", out);
			for (unsigned b = 0; b < f->oplen; b++)
				fprintf(out, "%02x", f->opmask[b]);
			fprintf(out, "/at=%d", f->check_at[0]);
			if (f->ncheck == 2)
				fprintf(out, ",%d", f->check_at[1]);
		}
		if (f->linked)
			fprintf(out, "/linked=%s", f->linked);
	}
}

/* The facts of the object's row, the same in every mode. */
static void emit_facts(FILE *out, const struct arch *a)
{
	fprintf(out, "arch\t%s\nbits\t%u\nendian\t%s\n", a->name, a->elf_class,
		a->big_endian ? "big" : "little");
	fprintf(out, "ld-emulation\t%s\ncc-flag\t%s\nas-flag\t%s\ntriple\t%s\n",
		a->ld_emulation, a->cc_flag, a->as_flag, a->triple);
	/* for checking linked programs: the hook names and call forms */
	fputs("hooks\t", out);
	for (const char *const *h = a->hooks; *h; h++)
		fprintf(out, "%s%s", h == a->hooks ? "" : " ", *h);
	fputs("\ncall-forms\t", out);
	put_forms(out, a, false);
	/* the forms only a linker makes (relaxed calls), for checking linked
	 * files: RELOC is * where the form goes with any relocation type */
	fputs("\nlinker-forms\t", out);
	put_forms(out, a, true);
	fputc('\n', out);
	if (a->entry_flag_bits)
		fprintf(out, "entry-flag-bits\t%u\n", a->entry_flag_bits);
	/* for choosing and running tools, and for linked files (see
	 * arch.h); a key only where the row has a value */
	const struct { const char *key, *value; } facts[] = {
		{ "driver-as", a->driver_as ? "1" : NULL },
		{ "driver-as-unless", a->driver_as_unless },
		{ "as-flag-family", a->as_flag_family },
		{ "cc-flag-family", a->cc_flag_family },
		{ "hook-stubs", a->hook_stubs },
		{ "got-register", a->got_register },
		{ "object-link-flags", a->object_link_flags },
		{ "compiler-nop", a->compiler_nop },
	};
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
		if (facts[i].value)
			fprintf(out, "%s\t%s\n", facts[i].key, facts[i].value);
	if (a->scan_align)
		fprintf(out, "scan-align\t%u\n", a->scan_align);
}

void emit_plan(FILE *out, const struct object *obj, const char *status)
{
	const struct arch *a = obj->arch;
	if (a)
		emit_facts(out, a);
	if (strcmp(status, "identified") == 0) {
		fputs("kernel-sections\t", out);
		for (const char *const *k = kernel_sections; *k; k++)
			fprintf(out, "%s%s", k == kernel_sections ? "" : " ", *k);
		fputc('\n', out);
		/* the compiler's own table: mcount-cc's flags, --verify's NOPs */
		const char *cc = a ? arch_cc_table_flags(a, obj->elf_flags) : NULL;
		if (cc)
			fprintf(out, "cc-table-flags\t%s\n", cc);
		if (a && a->patchable_nops)
			fprintf(out, "patchable-nops\t%s\npatchable-unit\t%s\n", a->patchable_nops,
				a->patchable_bytes ? "byte" : "nop");
	}
	fprintf(out, "status\t%s\nsites\t%zu\n", status, obj->nsites);
	/* for the table's own object, which ld -r merges into this one
	 * (link-time mode's tables are linked, not merged: none) */
	if (a && obj->nsites && strcmp(status, "recorded") == 0) {
		char asf[128];
		arch_object_as_flags(a, obj->elf_flags, asf, sizeof(asf));
		if (asf[0])
			fprintf(out, "as-object-flags\t%s\n", asf);
	}
	if (obj->pass_over)
		fprintf(out, "passed-over\t%zu\n", obj->passed_over);
	/* ld -r gives the local symbols of an input that has no STT_FILE
	 * symbol one named after the input file; the pipeline removes it. */
	if (obj->nsites && obj->has_plain_locals && !obj->has_file_sym)
		fputs("strip-ld-file-symbol\t1\n", out);
	/* the same for the table's object when it has a mapping symbol */
	if (obj->nsites && a && a->mapping_symbols)
		fputs("strip-table-file-symbol\t1\n", out);
	/* The assembler gives the table's object empty .text, .data and .bss;
	 * ld -r would add them to an object that has none (clang's often
	 * lack .data and .bss), so the pipeline removes them again. */
	static const char *const always[] = { ".text", ".data", ".bss" };
	for (size_t i = 0; obj->nsites && obj->saw_headers && i < 3; i++) {
		int *slot = strmap_get(&obj->secmap, always[i]);
		if (!slot || !obj->secs[*slot].listed)
			fprintf(out, "remove-section\t%s\n", always[i]);
	}
	for (size_t i = 0; i < obj->nsecs; i++) {
		const struct section *sec = &obj->secs[i];
		if (!sec->nsites)
			continue;
		fprintf(out, "anchor\t%s\t%s\t%zu\n", sec->name, anchor_name(obj, sec), sec->nsites);
		if (sec->added_anchor)
			fprintf(out, "add-symbol\t%s\t%s\t0\n", sec->added_anchor, sec->name);
		else if (sec->anchor_local)
			fprintf(out, "globalize\t%s\n", obj->syms[sec->anchor].name);
	}
}

/* The section a table is in, whatever fills it: always writable, so
 * that a PIE or shared library needs no text relocation for it, and
 * retained (SHF_GNU_RETAIN), so that --gc-sections keeps it although no
 * code refers to it; it refers to nothing but __ehdr_start, so it keeps
 * no function alive. */
/* A linked table's section, after what its object must say of itself
 * (the e_flags of the image, or of an object of the link, which ld
 * merges with the others' to the same result: mips, arch.c). */
static void linked_section(FILE *out, const struct object *obj)
{
	const struct arch *a = obj->arch;
	if (obj->path)
		arch_table_directives(a, obj->elf_flags, out);
	fprintf(out, "\t.section __mcount_loc,\"awR\",%cprogbits\n\t.balign %u\n",
		a->type_prefix, a->entry_size);
}

static void linked_end(FILE *out, const struct arch *a)
{
	fprintf(out, "\t.section .note.GNU-stack,\"\",%cprogbits\n", a->type_prefix);
}

void emit_linked_assembly(FILE *out, const struct object *obj)
{
	const struct arch *a = obj->arch;
	fprintf(out, "/* __mcount_loc table of a linked image: %zu call sites, written by "
		"mcount-scan */\n", obj->nsites);
	linked_section(out, obj);
	for (size_t i = 0; i < obj->nsites; i++) {
		uint64_t e = obj->sites[i].entry, b = obj->entry_base;
		fprintf(out, "\t%s " ENTRY_BASE " %c 0x%" PRIx64 "\n", a->entry_directive,
			e >= b ? '+' : '-', e >= b ? e - b : b - e);
	}
	linked_end(out, a);
}

void emit_placeholder(FILE *out, const struct object *obj, unsigned long n)
{
	const struct arch *a = obj->arch;
	fprintf(out, "/* __mcount_loc placeholder: %lu entries, written by mcount-scan */\n", n);
	linked_section(out, obj);
	/* (one line repeated: a bound of thousands costs the assembler
	 * nothing to read) */
	if (n)
		fprintf(out, "\t.rept %lu\n\t%s " ENTRY_BASE " + 0x0\n\t.endr\n", n, a->entry_directive);
	linked_end(out, a);
}

void emit_linked_plan(FILE *out, const struct object *obj, const char *status)
{
	emit_facts(out, obj->arch);
	fprintf(out, "status\t%s\nsites\t%zu\npassed-over\t%zu\ntabled\t%zu\nentry-base\t" ENTRY_BASE "\n",
		status, obj->nsites, obj->passed_over, obj->left_tabled);
	if (!obj->saw_disasm)
		fprintf(out, "ambiguous\t%zu\n", obj->ambiguous);
}
