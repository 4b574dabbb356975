/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model.h - what the scanner learns about one object from objdump's text. */
#ifndef MCOUNT_MODEL_H
#define MCOUNT_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arch.h"
#include "util.h"

#define NO_ADDR UINT64_MAX

struct section {
	char *name;
	uint64_t size, fileoff;
	uint64_t vma;           /* its address (0 in a relocatable object) */
	bool listed;            /* seen in the section headers (-h) */
	bool code;              /* executable (CODE in -h, or disassembled) */
	bool contents;          /* has file contents (not NOBITS) */
	bool comdat;            /* member of a COMDAT group (from the ELF file) */
	bool ambiguous;         /* more than one section has this name */
	bool recorded;          /* call sites here go into the table */
	size_t nsites;          /* call sites found here */
	int anchor;             /* chosen symbol (index into syms), or -1 */
	char *added_anchor;     /* name of a symbol to add at offset 0, or NULL */
	bool anchor_local;      /* the anchor must be globalized for the relink */
};

struct symbol {
	char *name;
	uint64_t value;
	int sec;                /* index into secs; -1 for *UND*, *ABS*, *COM* */
	char bind;              /* 'l' local, 'g' global, 'u' unique, '!' both, ' ' none */
	bool weak, ifunc, section_sym, file_sym, debug;
	bool func;              /* STT_FUNC */
	bool default_vis;       /* STV_DEFAULT: a global one is preemptible in a
				 * shared object */
};

struct site {
	int sec;
	uint64_t reloc_off;     /* offset of the relocated field */
	uint64_t insn_start;    /* start of the instruction holding it (-d input), or NO_ADDR */
	unsigned char bytes[8]; /* first bytes of that instruction (-d input) */
	unsigned nbytes;
	const struct call_form *form;
	uint64_t prev_insn;     /* -d input: the instruction before insn_start, if the
				 * same symbol's code holds both; else NO_ADDR */
	bool inline_reloc;      /* from -d (addresses as printed), not -r (offsets) */
	char *reloc;            /* relocation type name */
	const char *hook;       /* the hook it names, as the row spells it */
	uint64_t entry;         /* table entry (section offset), set by the scan */
};

struct object {
	const char *path;       /* --object file, or NULL */
	int fd;                 /* open on path, or -1 */
	const char *label;      /* the object's name in messages */
	const struct arch *arch;
	char *bfd_format;
	struct section *secs;
	size_t nsecs, capsecs;
	struct strmap secmap;   /* name -> index of first section of that name */
	struct symbol *syms;
	size_t nsyms, capsyms;
	struct strmap names;    /* symbol name -> how many symbols carry it */
	struct site *sites;
	size_t nsites, capsites;
	bool saw_headers, saw_symtab, saw_relocs, saw_disasm;
	bool has_mcount_loc, has_lto;
	bool writable_table;    /* emit the table as "aw" rather than "a" */
	bool linked;            /* --linked: a linked image; hook names may carry
				 * a version (__fentry__@GLIBC_2.13) */
	size_t passed_over;     /* references to the hook that are no call (--linked,
				 * or --pass-over) */
	bool pass_over;         /* --pass-over: pass such references over (counted, a
				 * note each) instead of refusing the object */
	uint64_t entry_base;    /* --linked: the value of __ehdr_start */
	uint64_t *tabled;       /* --linked --tabled: addresses the image's own
				 * tables (its objects') hold (scan_linked sorts them) */
	size_t ntabled;
	size_t left_tabled;     /* --linked: calls left out as tabled already */
	size_t ambiguous;       /* --linked, no -d listing: calls whose bytes match
				 * forms that start at different places */
	bool has_file_sym;      /* an STT_FILE symbol is in the table */
	bool has_plain_locals;  /* local symbols other than section/file ones */
	int gnu_stack, gnu_property;   /* section indexes or -1 */
	int arm_attributes;            /* .ARM.attributes, or -1 */
	uint32_t elf_flags;            /* the ELF header's e_flags */
};

/* objdump.c: read objdump -h/-t/-r/-d text (any mix) into obj. */
void objdump_read(FILE *in, struct object *obj);
int object_section(struct object *obj, const char *name, size_t len);

/* elfpeek.c: the few facts read from the object file itself. */
struct elf_ident {
	unsigned elf_class, machine, type;
	uint32_t flags;                /* e_flags */
	bool big_endian;
};
/* Read the ELF identification; NULL, or why the file is not ELF. */
const char *elf_read_ident(int fd, struct elf_ident *id);
/* Read len bytes at file offset off; returns bytes read, or -1. */
long elf_read_at(int fd, uint64_t off, void *buf, size_t len);
void elf_mark_comdat(struct object *obj, unsigned elf_class, bool big_endian);

#endif
