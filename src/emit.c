/* emit.c - the temporary assembly file and the plan for the pipeline. */
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

void emit_assembly(FILE *out, const struct object *obj)
{
	const struct arch *a = obj->arch;
	fprintf(out, "/* __mcount_loc table: %zu call sites, written by mcount-scan */\n",
		obj->nsites);
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
}

void emit_plan(FILE *out, const struct object *obj, const char *status)
{
	const struct arch *a = obj->arch;
	if (a) {
		fprintf(out, "arch\t%s\nbits\t%u\nendian\t%s\n", a->name, a->elf_class,
			a->big_endian ? "big" : "little");
		fprintf(out, "ld-emulation\t%s\ncc-flag\t%s\nas-flag\t%s\ntriple\t%s\n",
			a->ld_emulation, a->cc_flag, a->as_flag, a->triple);
		/* for checking linked programs: the hook names and call forms */
		fputs("hooks\t", out);
		for (const char *const *h = a->hooks; *h; h++)
			fprintf(out, "%s%s", h == a->hooks ? "" : " ", *h);
		fputs("\ncall-forms\t", out);
		for (size_t i = 0; i < a->nforms; i++)
			fprintf(out, "%s%s/%u/%u%s", i ? " " : "", a->forms[i].reloc,
				a->forms[i].insn_len, a->forms[i].field_offset,
				a->forms[i].kind == FORM_COMPANION ? "/companion" : "");
		fputc('\n', out);
	}
	if (strcmp(status, "identified") == 0) {
		fputs("kernel-sections\t", out);
		for (const char *const *k = kernel_sections; *k; k++)
			fprintf(out, "%s%s", k == kernel_sections ? "" : " ", *k);
		fputc('\n', out);
	}
	fprintf(out, "status\t%s\nsites\t%zu\n", status, obj->nsites);
	/* ld -r gives the local symbols of an input that has no STT_FILE
	 * symbol one named after the input file; the pipeline removes it. */
	if (obj->nsites && obj->has_plain_locals && !obj->has_file_sym)
		fputs("strip-ld-file-symbol\t1\n", out);
	/* the same for the table's object when it has a mapping symbol */
	if (obj->nsites && a && a->mapping_symbols)
		fputs("strip-table-file-symbol\t1\n", out);
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
