/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scan.h - choosing sections, entries and anchors; writing the result. */
#ifndef MCOUNT_SCAN_H
#define MCOUNT_SCAN_H

#include "model.h"

enum entry_mode {
	ENTRY_CALL,     /* the address of the call instruction (kernel since 2009) */
	ENTRY_RELOC,    /* the address of the relocated field (2008) */
};

extern const char *const kernel_sections[];  /* NULL-terminated; NAME* is a prefix */
bool sections_spec_valid(const char *spec);
void scan_select(struct object *obj, const char *spec);
size_t scan_sites(struct object *obj, enum entry_mode mode);
void scan_drop_comdat(struct object *obj);
void scan_anchors(struct object *obj);
/* All of the above for a read listing; returns the plan's status:
 * recorded, no-sites, lto or already-recorded. */
const char *scan_object(struct object *obj, const char *sections, enum entry_mode mode);

/* --linked: the calls to the hook in an image linked with -q (an
 * executable or shared object), found by the bytes at each relocation
 * against the hook in executable sections; st->entry becomes the call's
 * address, the sites are sorted by it, one per call.  Returns the plan's
 * status: recorded or no-sites. */
const char *scan_linked(struct object *obj);
#define ENTRY_BASE "__ehdr_start"

/* An object with nothing read yet (no file open, no special sections);
 * object_free() releases what reading and scanning allocated, closes the
 * file and leaves the object as object_init() does. */
void object_init(struct object *obj);
void object_free(struct object *obj);

/* emit.c */
void emit_assembly(FILE *out, const struct object *obj);
void emit_plan(FILE *out, const struct object *obj, const char *status);
/* --linked: the table of obj's sites relative to __ehdr_start, and the plan */
void emit_linked_assembly(FILE *out, const struct object *obj);
void emit_linked_plan(FILE *out, const struct object *obj, const char *status);
/* --placeholder: n entries of __ehdr_start, laid out as the real table */
void emit_placeholder(FILE *out, const struct object *obj, unsigned long n);

#endif
