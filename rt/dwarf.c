/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwarf.c - function events' prototypes from the program's DWARF.
 *
 * A prototype given as a bare glob ("ints", "parse_*:mod:libfoo.so")
 * takes each function's parameters from the debug information of its
 * object, as the kernel's func-args takes them from BTF.  The object's
 * file (mapped read-only by elf.c), or its separate debug file
 * (debugfile.c), is read here, without libdw (zlib-compressed sections
 * inflated by inflate.c): its
 * .debug_info units (DWARF 2 to 5, the 32-bit format; a unit in the
 * 64-bit format is passed over), their abbreviations, and the string
 * sections.  The first time a bare glob is applied to a function of an
 * object, every unit is walked once and its subprograms indexed by
 * DW_AT_low_pc (or the starts of their DW_AT_ranges: a function split
 * into hot and cold parts); a
 * function's parameters are read from its DIE when first asked for, and
 * its prototype (never freed) is kept in the index.
 *
 * The types map onto the kinds of args.c: base types by encoding and
 * size, enums as signed integers of their size, pointers in hex and a
 * pointer to a one-byte character type as a string; typedefs and
 * qualifiers are followed.  A parameter the hooks cannot see (a struct
 * or union by value, a floating-point or wider than 64-bit value) makes
 * the function's arguments unrecorded, with a message: counting
 * argument words past it would be guessing.
 *
 * The data are the user's: every read is bounds-checked, and a unit that
 * does not parse is no information, never a crash.  Called with the
 * registry lock held (not the hot path).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "cursor.h"

/* ---- the DWARF constants used here ---- */
enum {
	TAG_class = 0x02, TAG_enum = 0x04, TAG_param = 0x05, TAG_pointer = 0x0f,
	TAG_reference = 0x10, TAG_compile_unit = 0x11, TAG_struct = 0x13,
	TAG_typedef = 0x16, TAG_union = 0x17, TAG_unspecified_params = 0x18, TAG_ptr_to_member = 0x1f,
	TAG_base = 0x24, TAG_const = 0x26, TAG_subprogram = 0x2e, TAG_volatile = 0x35,
	TAG_restrict = 0x37, TAG_unspecified_type = 0x3b, TAG_rvalue_reference = 0x42, TAG_atomic = 0x47,
	TAG_partial_unit = 0x3c, TAG_skeleton_unit = 0x4a,
};
enum {
	AT_location = 0x02, AT_name = 0x03, AT_byte_size = 0x0b, AT_frame_base = 0x40, AT_loclists_base = 0x8c, AT_low_pc = 0x11, AT_abstract_origin = 0x31,
	AT_declaration = 0x3c, AT_encoding = 0x3e, AT_specification = 0x47, AT_type = 0x49,
	AT_ranges = 0x55, AT_str_offsets_base = 0x72, AT_addr_base = 0x73, AT_rnglists_base = 0x74,
};
enum {
	ATE_boolean = 0x02, ATE_signed = 0x05, ATE_signed_char = 0x06, ATE_unsigned = 0x07,
	ATE_unsigned_char = 0x08, ATE_UTF = 0x10,
};
enum {
	FORM_addr = 0x01, FORM_block2 = 0x03, FORM_block4 = 0x04, FORM_data2 = 0x05, FORM_data4 = 0x06,
	FORM_data8 = 0x07, FORM_string = 0x08, FORM_block = 0x09, FORM_block1 = 0x0a, FORM_data1 = 0x0b,
	FORM_flag = 0x0c, FORM_sdata = 0x0d, FORM_strp = 0x0e, FORM_udata = 0x0f, FORM_ref_addr = 0x10,
	FORM_ref1 = 0x11, FORM_ref2 = 0x12, FORM_ref4 = 0x13, FORM_ref8 = 0x14, FORM_ref_udata = 0x15,
	FORM_indirect = 0x16, FORM_sec_offset = 0x17, FORM_exprloc = 0x18, FORM_flag_present = 0x19,
	FORM_strx = 0x1a, FORM_addrx = 0x1b, FORM_ref_sup4 = 0x1c, FORM_strp_sup = 0x1d,
	FORM_data16 = 0x1e, FORM_line_strp = 0x1f, FORM_ref_sig8 = 0x20, FORM_implicit_const = 0x21,
	FORM_loclistx = 0x22, FORM_rnglistx = 0x23, FORM_ref_sup8 = 0x24, FORM_strx1 = 0x25,
	FORM_strx2 = 0x26, FORM_strx3 = 0x27, FORM_strx4 = 0x28, FORM_addrx1 = 0x29, FORM_addrx2 = 0x2a,
	FORM_addrx3 = 0x2b, FORM_addrx4 = 0x2c, FORM_GNU_addr_index = 0x1f01, FORM_GNU_str_index = 0x1f02,
	FORM_GNU_ref_alt = 0x1f20, FORM_GNU_strp_alt = 0x1f21,
};

/* A section of the file: its bytes (NULL: none). */
struct sec {
	const unsigned char *p;
	size_t size;
};

struct abbrev {
	uint64_t code;
	uint32_t tag;
	bool children;
	uint32_t first, nattr;        /* in the unit's specs */
};
struct spec {
	uint32_t name, form;
	int64_t value;                /* DW_FORM_implicit_const */
};

/* One unit: its bounds in .debug_info and what reading it needs. */
struct unit {
	size_t off, die, end;         /* header, first DIE, end */
	uint16_t version;
	uint8_t addr_size;
	size_t abbrev_off;
	uint64_t str_base, addr_base, rng_base, loc_base;
	uint64_t base;                /* the unit's DW_AT_low_pc: ranges' base address */
	struct abbrev *ab;            /* read when first needed */
	size_t nab;
	struct spec *sp;
	bool ab_read, ab_bad;
};

/* A subprogram with code: where it is (where one of its parts is, for
 * one described by address ranges), and its prototype once made. */
struct entry {
	uint64_t low_pc;              /* relative to the load bias */
	uint32_t unit;
	size_t die;
	uint8_t state;                /* 0: not looked at, 1: proto, 2: refused */
	const struct mt_proto *proto;
	const struct mt_proto *given, *located;   /* a prototype given, located */
};

struct mt_dwarf {
	struct sec info, abbrev, str, line_str, str_offsets, addr, ranges, rnglists, loc, loclists;
	bool own;                     /* in the object's file */
	bool compressed;              /* some compressed sections could not be inflated */
	struct mt_debug_file debug;   /* else: its debug file, or where it was looked for */
	struct unit *units;
	size_t nunits;
	struct entry *e;
	size_t ne;
};

/* ---- the file's sections ---- */

static bool find_sections(struct mt_dwarf *d, const unsigned char *f, size_t size)
{
	static const char *const want[] = { ".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str",
					    ".debug_str_offsets", ".debug_addr", ".debug_ranges", ".debug_rnglists",
					    ".debug_loc", ".debug_loclists" };
	struct sec *out[] = { &d->info, &d->abbrev, &d->str, &d->line_str, &d->str_offsets, &d->addr,
			      &d->ranges, &d->rnglists, &d->loc, &d->loclists };
	for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
		out[k]->size = 0;
		out[k]->p = mt_elf_section(f, size, want[k], &out[k]->size, &d->compressed);
	}
	return d->info.p && d->abbrev.p;
}

/* ---- units and their abbreviations ---- */

/* The unit headers of .debug_info; a header that does not parse ends the list. */
static void read_units(struct mt_dwarf *d)
{
	struct cur c = { d->info.p, d->info.p + d->info.size, false };
	while (!c.bad && c.p < c.end) {
		size_t off = (size_t)(c.p - d->info.p);
		uint64_t len = rd(&c, 4);
		if (c.bad)
			break;
		if (len >= 0xfffffff0) {
			if (len != 0xffffffff)
				break;
			len = rd(&c, 8);      /* the 64-bit format: passed over */
			skip(&c, len);
			continue;
		}
		if (len > (size_t)(c.end - c.p) || len < 7)
			break;
		const unsigned char *end = c.p + len;
		struct unit u = { .off = off, .end = (size_t)(end - d->info.p) };
		u.version = (uint16_t)rd(&c, 2);
		uint8_t type = 1;
		if (u.version >= 2 && u.version <= 4) {
			u.abbrev_off = rd(&c, 4);
			u.addr_size = (uint8_t)rd(&c, 1);
		} else if (u.version == 5) {
			type = (uint8_t)rd(&c, 1);
			u.addr_size = (uint8_t)rd(&c, 1);
			u.abbrev_off = rd(&c, 4);
			if (type == 4 || type == 5)
				skip(&c, 8);  /* dwo_id */
			else if (type == 2 || type == 6)
				skip(&c, 12); /* type signature, type offset */
		} else {
			type = 0;
		}
		if (c.bad || c.p > end)
			break;
		u.die = (size_t)(c.p - d->info.p);
		c.p = end;
		/* compile and partial units only (type units hold no code) */
		if (type != 1 && type != 3)
			continue;
		if ((u.addr_size != 8 && u.addr_size != 4) || u.abbrev_off >= d->abbrev.size)
			continue;
		struct unit *nv = realloc(d->units, (d->nunits + 1) * sizeof *nv);
		if (!nv)
			break;
		d->units = nv;
		d->units[d->nunits++] = u;
	}
}

static int ab_cmp(const void *a, const void *b)
{
	const struct abbrev *x = a, *y = b;
	return x->code < y->code ? -1 : x->code > y->code;
}

static bool read_abbrevs(struct mt_dwarf *d, struct unit *u)
{
	if (u->ab_read)
		return !u->ab_bad;
	u->ab_read = true;
	u->ab_bad = true;
	struct cur c = { d->abbrev.p + u->abbrev_off, d->abbrev.p + d->abbrev.size, false };
	size_t cap = 0, scap = 0, nsp = 0;
	for (;;) {
		uint64_t code = uleb(&c);
		if (c.bad)
			return false;
		if (!code)
			break;
		if (u->nab == cap) {
			cap = cap ? cap * 2 : 64;
			struct abbrev *nv = realloc(u->ab, cap * sizeof *nv);
			if (!nv)
				return false;
			u->ab = nv;
		}
		struct abbrev *a = &u->ab[u->nab++];
		a->code = code;
		a->tag = (uint32_t)uleb(&c);
		a->children = rd(&c, 1) != 0;
		a->first = (uint32_t)nsp;
		a->nattr = 0;
		for (;;) {
			uint64_t name = uleb(&c), form = uleb(&c);
			int64_t value = form == FORM_implicit_const ? sleb(&c) : 0;
			if (c.bad || nsp > UINT32_MAX / 2)
				return false;
			if (!name && !form)
				break;
			if (nsp == scap) {
				scap = scap ? scap * 2 : 256;
				struct spec *nv = realloc(u->sp, scap * sizeof *nv);
				if (!nv)
					return false;
				u->sp = nv;
			}
			u->sp[nsp++] = (struct spec){ (uint32_t)name, (uint32_t)form, value };
			a->nattr++;
		}
	}
	bool sorted = true;
	for (size_t i = 1; i < u->nab; i++)
		sorted = sorted && u->ab[i - 1].code < u->ab[i].code;
	if (!sorted)
		qsort(u->ab, u->nab, sizeof *u->ab, ab_cmp);
	u->ab_bad = false;
	return true;
}

static const struct abbrev *abbrev_of(const struct unit *u, uint64_t code)
{
	if (code && code <= u->nab && u->ab[code - 1].code == code)
		return &u->ab[code - 1];
	size_t lo = 0, hi = u->nab;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (u->ab[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < u->nab && u->ab[lo].code == code ? &u->ab[lo] : NULL;
}

/* ---- attribute values ---- */

enum vkind { V_NONE, V_UINT, V_SINT, V_STR, V_REF, V_ADDR, V_STRX, V_ADDRX, V_RNGX, V_BLOCK, V_LOCX };
struct val {
	enum vkind kind;
	uint64_t u;                   /* the number, the reference (an offset in
				       * .debug_info), the string's offset, the
				       * block's length */
	const char *s;                /* the string, the block */
};

/* Read (or skip) one value of form f; false if the unit cannot be read on. */
static bool read_form(const struct mt_dwarf *d, const struct unit *u, struct cur *c, uint64_t form,
		      int64_t implicit, struct val *v)
{
	v->kind = V_NONE;
	for (int depth = 0; form == FORM_indirect; depth++) {
		form = uleb(c);
		if (depth > 4 || form == FORM_implicit_const)
			return false;
	}
	const unsigned char *s;
	switch (form) {
	case FORM_addr:
		v->kind = V_ADDR;
		v->u = rd(c, u->addr_size);
		break;
	case FORM_block1: v->u = rd(c, 1); goto block;
	case FORM_block2: v->u = rd(c, 2); goto block;
	case FORM_block4: v->u = rd(c, 4); goto block;
	case FORM_block: case FORM_exprloc:
		v->u = uleb(c);
	block:
		v->kind = V_BLOCK;
		v->s = (const char *)c->p;
		skip(c, v->u);
		break;
	case FORM_data1: case FORM_flag: v->kind = V_UINT; v->u = rd(c, 1); break;
	case FORM_data2: v->kind = V_UINT; v->u = rd(c, 2); break;
	case FORM_data4: v->kind = V_UINT; v->u = rd(c, 4); break;
	case FORM_data8: v->kind = V_UINT; v->u = rd(c, 8); break;
	case FORM_data16: skip(c, 16); break;
	case FORM_sdata: v->kind = V_SINT; v->u = (uint64_t)sleb(c); break;
	case FORM_udata: v->kind = V_UINT; v->u = uleb(c); break;
	case FORM_implicit_const: v->kind = V_SINT; v->u = (uint64_t)implicit; break;
	case FORM_flag_present: v->kind = V_UINT; v->u = 1; break;
	case FORM_string:
		s = c->p;
		while (c->p < c->end && *c->p)
			c->p++;
		if (!need(c, 1))
			return false;
		c->p++;
		v->kind = V_STR;
		v->s = (const char *)s;
		break;
	case FORM_strp:
	case FORM_line_strp: {
		uint64_t off = rd(c, 4);
		const struct sec *sec = form == FORM_strp ? &d->str : &d->line_str;
		if (sec->p && off < sec->size && memchr(sec->p + off, 0, sec->size - off)) {
			v->kind = V_STR;
			v->s = (const char *)sec->p + off;
		}
		break;
	}
	case FORM_strp_sup: case FORM_GNU_strp_alt: skip(c, 4); break;   /* another file's */
	case FORM_strx: case FORM_GNU_str_index: v->kind = V_STRX; v->u = uleb(c); break;
	case FORM_strx1: v->kind = V_STRX; v->u = rd(c, 1); break;
	case FORM_strx2: v->kind = V_STRX; v->u = rd(c, 2); break;
	case FORM_strx3: v->kind = V_STRX; v->u = rd(c, 3); break;
	case FORM_strx4: v->kind = V_STRX; v->u = rd(c, 4); break;
	case FORM_addrx: case FORM_GNU_addr_index: v->kind = V_ADDRX; v->u = uleb(c); break;
	case FORM_addrx1: v->kind = V_ADDRX; v->u = rd(c, 1); break;
	case FORM_addrx2: v->kind = V_ADDRX; v->u = rd(c, 2); break;
	case FORM_addrx3: v->kind = V_ADDRX; v->u = rd(c, 3); break;
	case FORM_addrx4: v->kind = V_ADDRX; v->u = rd(c, 4); break;
	case FORM_ref1: v->kind = V_REF; v->u = u->off + rd(c, 1); break;
	case FORM_ref2: v->kind = V_REF; v->u = u->off + rd(c, 2); break;
	case FORM_ref4: v->kind = V_REF; v->u = u->off + rd(c, 4); break;
	case FORM_ref8: v->kind = V_REF; v->u = u->off + rd(c, 8); break;
	case FORM_ref_udata: v->kind = V_REF; v->u = u->off + uleb(c); break;
	case FORM_ref_addr:
		v->kind = V_REF;
		v->u = rd(c, u->version == 2 ? u->addr_size : 4);
		break;
	case FORM_sec_offset: v->kind = V_UINT; v->u = rd(c, 4); break;
	case FORM_ref_sup4: case FORM_GNU_ref_alt: skip(c, 4); break;
	case FORM_ref_sup8: case FORM_ref_sig8: skip(c, 8); break;  /* a type unit's: not followed */
	case FORM_loclistx: v->kind = V_LOCX; v->u = uleb(c); break;
	case FORM_rnglistx: v->kind = V_RNGX; v->u = uleb(c); break;
	default:
		return false;                 /* its size is not known: nothing after it is */
	}
	return !c->bad;
}

/* A string value: strx resolved through .debug_str_offsets. */
static const char *str_of(const struct mt_dwarf *d, const struct unit *u, const struct val *v)
{
	if (v->kind == V_STR)
		return v->s;
	if (v->kind != V_STRX || !d->str_offsets.p || !d->str.p)
		return NULL;
	uint64_t base = u->str_base ? u->str_base : 8;
	if (v->u > (SIZE_MAX - base) / 4)
		return NULL;
	uint64_t at = base + v->u * 4;
	if (at > d->str_offsets.size || d->str_offsets.size - at < 4)
		return NULL;
	struct cur c = { d->str_offsets.p + at, d->str_offsets.p + at + 4, false };
	uint64_t off = rd(&c, 4);
	if (off >= d->str.size || !memchr(d->str.p + off, 0, d->str.size - off))
		return NULL;
	return (const char *)d->str.p + off;
}

static bool addr_of(const struct mt_dwarf *d, const struct unit *u, const struct val *v, uint64_t *out)
{
	if (v->kind == V_ADDR) {
		*out = v->u;
		return true;
	}
	if (v->kind != V_ADDRX || !d->addr.p || v->u > SIZE_MAX / 8)
		return false;
	uint64_t at = u->addr_base + v->u * u->addr_size;
	if (at < u->addr_base || at > d->addr.size || d->addr.size - at < u->addr_size)
		return false;
	struct cur c = { d->addr.p + at, d->addr.p + d->addr.size, false };
	*out = rd(&c, u->addr_size);
	return true;
}

/* ---- DIEs ---- */

/* The attributes of one DIE that matter here. */
struct die {
	uint32_t tag;
	bool children, declaration, has_low, has_ranges;
	struct val name, type, origin, spec, low, ranges, enc, size, loc, fbase;
	size_t next;                  /* offset of the DIE after its attributes */
};

/* Read the DIE at off of unit u; false at a null entry (end of
 * siblings: d->tag 0) or if it does not parse (*bad set). */
static bool read_die(struct mt_dwarf *d, struct unit *u, size_t off, struct die *e, bool *bad)
{
	memset(e, 0, sizeof *e);
	if (off < u->die || off >= u->end) {
		*bad = true;
		return false;
	}
	struct cur c = { d->info.p + off, d->info.p + u->end, false };
	uint64_t code = uleb(&c);
	if (c.bad) {
		*bad = true;
		return false;
	}
	if (!code) {
		e->next = (size_t)(c.p - d->info.p);
		return false;
	}
	const struct abbrev *a = read_abbrevs(d, u) ? abbrev_of(u, code) : NULL;
	if (!a) {
		*bad = true;
		return false;
	}
	e->tag = a->tag;
	e->children = a->children;
	for (uint32_t i = 0; i < a->nattr; i++) {
		const struct spec *s = &u->sp[a->first + i];
		struct val v;
		if (!read_form(d, u, &c, s->form, s->value, &v)) {
			*bad = true;
			return false;
		}
		switch (s->name) {
		case AT_name: e->name = v; break;
		case AT_type: e->type = v; break;
		case AT_abstract_origin: e->origin = v; break;
		case AT_specification: e->spec = v; break;
		case AT_low_pc: e->low = v; e->has_low = true; break;
		case AT_ranges: e->ranges = v; e->has_ranges = true; break;
		case AT_declaration: e->declaration = v.u != 0; break;
		case AT_encoding: e->enc = v; break;
		case AT_byte_size: e->size = v; break;
		case AT_location: e->loc = v; break;
		case AT_frame_base: e->fbase = v; break;
		case AT_loclists_base: if (v.kind == V_UINT) u->loc_base = v.u; break;
		case AT_str_offsets_base: if (v.kind == V_UINT) u->str_base = v.u; break;
		case AT_addr_base: if (v.kind == V_UINT) u->addr_base = v.u; break;
		case AT_rnglists_base: if (v.kind == V_UINT) u->rng_base = v.u; break;
		default: break;
		}
	}
	e->next = (size_t)(c.p - d->info.p);
	return true;
}

/* The unit that holds .debug_info offset off. */
static struct unit *unit_at(struct mt_dwarf *d, uint64_t off)
{
	size_t lo = 0, hi = d->nunits;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->units[mid].end <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nunits && off >= d->units[lo].die && off < d->units[lo].end ? &d->units[lo] : NULL;
}

/* The DIE a reference value names, with its unit. */
static bool follow(struct mt_dwarf *d, const struct val *ref, struct die *e, struct unit **u)
{
	bool bad = false;
	if (ref->kind != V_REF || !(*u = unit_at(d, ref->u)))
		return false;
	return read_die(d, *u, (size_t)ref->u, e, &bad);
}

/* Skip the children of a DIE whose attributes end at off; returns the
 * offset after them, or 0 if the unit does not parse. */
static size_t skip_children(struct mt_dwarf *d, struct unit *u, size_t off)
{
	unsigned depth = 1;
	while (depth) {
		struct die e;
		bool bad = false;
		bool real = read_die(d, u, off, &e, &bad);
		if (bad || depth > 4096)
			return 0;
		off = e.next;
		if (!real)
			depth--;
		else if (e.children)
			depth++;
	}
	return off;
}

/* ---- the index of subprograms ---- */

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return x->low_pc < y->low_pc ? -1 : x->low_pc > y->low_pc;
}

static void add_entry(struct mt_dwarf *d, size_t *cap, const struct entry *en)
{
	if (d->ne == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct entry *nv = realloc(d->e, nc * sizeof *nv);
		if (!nv)
			return;
		d->e = nv;
		*cap = nc;
	}
	d->e[d->ne++] = *en;
}

/* One entry of an address range list (DWARF 4's .debug_ranges and
 * .debug_loc, DWARF 5's .debug_rnglists and .debug_loclists, whose
 * entry kinds are numbered alike but for the location lists'
 * DW_LLE_default_location, 5).  Returns LIST_END, LIST_BASE (an entry
 * that only sets *base), LIST_RANGE ([*a, *b); LIST_SKIP: one whose
 * addresses could not be read) or LIST_DEFAULT. */
enum { LIST_END, LIST_BASE, LIST_RANGE, LIST_SKIP, LIST_DEFAULT };
static int list_entry(const struct mt_dwarf *d, const struct unit *u, struct cur *c, bool loclist,
		      uint64_t *base, uint64_t *a, uint64_t *b)
{
	uint64_t max = u->addr_size == 8 ? ~UINT64_C(0) : UINT32_MAX;
	struct val x = { .kind = V_ADDRX };
	bool ok = true;
	if (u->version < 5) {
		*a = rd(c, u->addr_size);
		*b = rd(c, u->addr_size);
		if (c->bad || (!*a && !*b))
			return LIST_END;
		if (*a == max) {
			*base = *b;
			return LIST_BASE;
		}
		*a += *base;
		*b += *base;
		return LIST_RANGE;
	}
	unsigned kind = (unsigned)rd(c, 1);
	if (loclist && kind == 5)
		return c->bad ? LIST_END : LIST_DEFAULT;
	if (loclist && kind > 5)
		kind--;
	switch (kind) {
	case 0: /* end_of_list */
		return LIST_END;
	case 1: /* base_addressx */
		x.u = uleb(c);
		if (addr_of(d, u, &x, a))
			*base = *a;
		return c->bad ? LIST_END : LIST_BASE;
	case 2: /* startx_endx */
		x.u = uleb(c);
		ok = addr_of(d, u, &x, a);
		x.u = uleb(c);
		ok = addr_of(d, u, &x, b) && ok;
		break;
	case 3: /* startx_length */
		x.u = uleb(c);
		ok = addr_of(d, u, &x, a);
		*b = *a + uleb(c);
		break;
	case 4: /* offset_pair */
		*a = *base + uleb(c);
		*b = *base + uleb(c);
		break;
	case 5: /* base_address */
		*base = rd(c, u->addr_size);
		return c->bad ? LIST_END : LIST_BASE;
	case 6: /* start_end */
		*a = rd(c, u->addr_size);
		*b = rd(c, u->addr_size);
		break;
	case 7: /* start_length */
		*a = rd(c, u->addr_size);
		*b = *a + uleb(c);
		break;
	default:
		return LIST_END;
	}
	return c->bad ? LIST_END : ok ? LIST_RANGE : LIST_SKIP;
}

/* The start of list v in section s (v: an offset, or DWARF 5's index
 * into the offsets after the list section's header at base); false if
 * it is not within it. */
static bool list_at(const struct sec *s, const struct val *v, uint64_t base, struct cur *c)
{
	uint64_t off = v->u;
	if (!s->p)
		return false;
	if (v->kind == V_RNGX || v->kind == V_LOCX) {
		if (off > (SIZE_MAX - base) / 4 || base + off * 4 > s->size || s->size - (base + off * 4) < 4)
			return false;
		struct cur oc = { s->p + base + off * 4, s->p + s->size, false };
		off = base + rd(&oc, 4);
	}
	if (off >= s->size)
		return false;
	*c = (struct cur){ s->p + off, s->p + s->size, false };
	return true;
}

/* An entry at each start of the address ranges r (DWARF 5's
 * .debug_rnglists, DWARF 4's .debug_ranges): a function split into hot
 * and cold parts is found by its hot part's address. */
static void add_ranges(struct mt_dwarf *d, struct unit *u, const struct val *r, struct entry en, size_t *cap)
{
	uint64_t base = u->base, a, b;
	struct cur c;
	if ((r->kind != V_UINT && r->kind != V_RNGX) ||
	    !list_at(u->version >= 5 ? &d->rnglists : &d->ranges, r, u->rng_base, &c))
		return;
	for (unsigned n = 0; n < 4096; n++) {
		int k = list_entry(d, u, &c, false, &base, &a, &b);
		if (k == LIST_END)
			return;
		if (k == LIST_RANGE && a && a != b) {
			en.low_pc = a;
			add_entry(d, cap, &en);
		}
	}
}

/* Walk one unit's DIEs; a unit that does not parse adds nothing. */
static void index_unit(struct mt_dwarf *d, uint32_t ui, size_t *cap)
{
	struct unit *u = &d->units[ui];
	size_t first = d->ne, off = u->die;
	unsigned depth = 0;
	bool top = true;
	while (off < u->end) {
		struct die e;
		bool bad = false;
		size_t at = off;
		bool real = read_die(d, u, off, &e, &bad);
		if (bad || depth > 4096)
			goto bad;
		off = e.next;
		if (!real) {
			if (!depth)
				break;    /* padding after the unit's DIE */
			depth--;
			continue;
		}
		if (top) {
			top = false;
			if (e.tag != TAG_compile_unit && e.tag != TAG_partial_unit && e.tag != TAG_skeleton_unit)
				goto bad;
			if (e.has_low && !addr_of(d, u, &e.low, &u->base))
				u->base = 0;
		}
		if (e.tag == TAG_subprogram && !e.declaration) {
			struct entry en = { .unit = ui, .die = at };
			if (e.has_low && addr_of(d, u, &e.low, &en.low_pc) && en.low_pc)
				add_entry(d, cap, &en);
			else if (e.has_ranges)
				add_ranges(d, u, &e.ranges, en, cap);
		}
		if (e.children)
			depth++;
		if (!depth)
			break;
	}
	return;
bad:
	d->ne = first;
}

static struct mt_dwarf *load(const struct mt_object *o)
{
	struct mt_dwarf *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	/* The object's own DWARF, else its debug file's (the same addresses) */
	d->own = find_sections(d, o->file, o->file_size) || d->compressed;
	if (!d->own) {
		mt_debug_file(o, &d->debug);
		if (!d->debug.p || !find_sections(d, d->debug.p, d->debug.size))
			return d;             /* none: d says where it was looked for */
	}
	if (!d->info.p || !d->abbrev.p)
		return d;                     /* compressed, not inflated */
	read_units(d);
	size_t cap = 0;
	for (size_t i = 0; i < d->nunits && i < UINT32_MAX; i++)
		index_unit(d, (uint32_t)i, &cap);
	mt_sort_by_addr(d->e, d->ne, sizeof *d->e, offsetof(struct entry, low_pc), sizeof d->e->low_pc, entry_cmp);
	return d;
}

/* ---- where a parameter is at the site (MT_ARGS_LOCATED) ---- */

/* What locating needs: the object, the site's link-time address, and
 * the frame base there (a register + offset, if known). */
struct where {
	struct mt_object *o;
	uint64_t pc;
	uintptr_t func, site;         /* run-time addresses */
	bool fb;
	unsigned fb_reg;
	int64_t fb_off;
	bool any_type;                /* a given prototype's: DWARF's types do not matter */
};

/* The expression of location v (an expression, or a location list) that
 * holds at pc; false if none does. */
static bool expr_at(const struct mt_dwarf *d, const struct unit *u, const struct val *v, uint64_t pc, struct cur *out)
{
	if (v->kind == V_BLOCK) {
		*out = (struct cur){ (const unsigned char *)v->s, (const unsigned char *)v->s + v->u, false };
		return true;
	}
	struct cur c, dflt = { NULL, NULL, true };
	if ((v->kind != V_UINT && v->kind != V_LOCX) ||
	    !list_at(u->version >= 5 ? &d->loclists : &d->loc, v, u->loc_base, &c))
		return false;
	uint64_t base = u->base, a = 0, b = 0;
	for (unsigned n = 0; n < 65536; n++) {
		int k = list_entry(d, u, &c, true, &base, &a, &b);
		if (k == LIST_END)
			break;
		if (k == LIST_BASE)
			continue;
		uint64_t len = u->version < 5 ? rd(&c, 2) : uleb(&c);
		if (c.bad || len > (size_t)(c.end - c.p))
			break;
		struct cur e = { c.p, c.p + len, false };
		if (k == LIST_RANGE && pc >= a && pc < b) {
			*out = e;
			return true;
		}
		if (k == LIST_DEFAULT)
			dflt = e;
		c.p += len;
	}
	*out = dflt;
	return !dflt.bad;
}

/* The DWARF register that holds at w's site the value register r had at
 * the function's entry: r itself, or a copy the code before the site
 * made (the argument registers are moved to callee-saved ones before
 * the call to the hook, and the one that holds the parent is changed),
 * among those the hook keeps; -1: none, or code that is not followed
 * (any control flow, an instruction not known). */
static int entry_holder(const struct where *w, unsigned r)
{
	if (!mt_arch.insn || !mt_arch.arg_reg || r >= MT_DWARF_REGS || w->site <= w->func ||
	    w->site - w->func > 4096)
		return -1;
	int8_t holds[MT_DWARF_REGS];  /* the entry register whose value each has */
	for (unsigned i = 0; i < MT_DWARF_REGS; i++)
		holds[i] = (int8_t)i;
	uintptr_t a = w->func;
	while (a < w->site) {
		struct mt_insn in = { 0 };
		mt_arch.insn(a, &in);
		if (in.stop || !in.len)
			return -1;
		if (in.move && in.dst[0] < MT_DWARF_REGS && in.src < MT_DWARF_REGS)
			holds[in.dst[0]] = holds[in.src];
		else
			for (unsigned k = 0; k < in.n; k++)
				holds[in.dst[k]] = -1;
		a += in.len;
	}
	if (a != w->site)
		return -1;
	if (holds[r] == (int8_t)r && mt_arch.arg_reg(r) >= 0)
		return (int)r;
	for (unsigned i = 0; i < MT_DWARF_REGS; i++)
		if (holds[i] == (int8_t)r && mt_arch.arg_reg(i) >= 0)
			return (int)i;
	return -1;
}

/* The hook's index of DWARF register r, as a base of memory too (the
 * stack or the frame pointer only); -1: not one. */
static int reg_of(unsigned r, bool base)
{
	if (base && r != mt_arch.dwarf_sp && r != mt_arch.dwarf_fp)
		return -1;
	return mt_arch.arg_reg ? mt_arch.arg_reg(r) : -1;
}

/* Where the value the expression at c describes is (one of the forms a
 * hook can read: a register, memory at the stack or frame pointer + an
 * offset, the frame base + an offset, a constant); l->how stays
 * MT_LOC_NONE for any other. */
static void locate_expr(struct cur c, const struct where *w, struct mt_loc *l)
{
	unsigned op = (unsigned)rd(&c, 1);
	int reg = -1;
	int64_t off = 0;
	uint64_t k = 0;
	bool konst = false;
	if (op >= 0x50 && op <= 0x6f) {                               /* DW_OP_reg0..31 */
		reg = reg_of(op - 0x50, false);
	} else if (op == 0x90) {                                      /* DW_OP_regx */
		reg = reg_of((unsigned)uleb(&c), false);
	} else if (op >= 0x70 && op <= 0x8f) {                        /* DW_OP_breg0..31 */
		reg = reg_of(op - 0x70, true);
		off = sleb(&c);
		l->how = MT_LOC_MEM;
	} else if (op == 0x92) {                                      /* DW_OP_bregx */
		reg = reg_of((unsigned)uleb(&c), true);
		off = sleb(&c);
		l->how = MT_LOC_MEM;
	} else if (op == 0x91) {                                      /* DW_OP_fbreg */
		reg = w->fb ? reg_of(w->fb_reg, true) : -1;
		off = w->fb_off + sleb(&c);
		l->how = MT_LOC_MEM;
	} else if (op == 0xa3 || op == 0xf3) {  /* DW_OP_entry_value, DW_OP_GNU_entry_value */
		/* of a register, as a value: where the code put that value */
		uint64_t n = uleb(&c);
		unsigned r = (unsigned)rd(&c, 1);
		if (n == 1 && r >= 0x50 && r <= 0x6f && rd(&c, 1) == 0x9f) {
			int h = entry_holder(w, r - 0x50);
			reg = h < 0 ? -1 : reg_of((unsigned)h, false);
		} else {
			c.bad = true;
		}
	} else if (op >= 0x30 && op <= 0x4f) {                        /* DW_OP_lit0..31 */
		k = op - 0x30;
		konst = true;
	} else if (op >= 0x08 && op <= 0x11) {                        /* DW_OP_const* */
		static const unsigned char size[] = { 1, 1, 2, 2, 4, 4, 8, 8 };
		konst = true;
		if (op == 0x10) {
			k = uleb(&c);
		} else if (op == 0x11) {
			k = (uint64_t)sleb(&c);
		} else {
			unsigned n = size[op - 0x08];
			k = rd(&c, n);
			if ((op & 1) && n < 8)                        /* the signed ones */
				k = (uint64_t)mt_sext(k, 8 * n);
		}
	}
	if (konst) {
		/* a value, not a place: DW_OP_stack_value must follow */
		if (rd(&c, 1) != 0x9f || c.bad || c.p != c.end)
			return;
		l->how = MT_LOC_CONST;
		l->off = (int64_t)k;
		return;
	}
	if (reg >= 0 && l->how == MT_LOC_MEM && c.p < c.end && *c.p == 0x06) {
		/* DW_OP_deref, DW_OP_plus_uconst N: memory at the word in the
		 * frame (ppc64le's back chain) + N */
		c.p++;
		int sp = reg_of(mt_arch.dwarf_sp, true);
		uint64_t plus = 0;
		if (c.p < c.end && *c.p == 0x23) {
			c.p++;
			plus = uleb(&c);
		}
		if (sp < 0 || plus > INT32_MAX) {
			l->how = MT_LOC_NONE;
			return;
		}
		l->how = MT_LOC_MEM2;
		l->sp = (uint8_t)sp;
		l->off2 = (int64_t)plus;
	}
	/* memory only near the stack or frame pointer: the frame, its caller's */
	if (reg < 0 || c.bad || c.p != c.end ||
	    (l->how != MT_LOC_NONE && (off < -(INT64_C(1) << 16) || off > (INT64_C(1) << 20)))) {
		l->how = MT_LOC_NONE;
		return;
	}
	if (l->how != MT_LOC_MEM && l->how != MT_LOC_MEM2)
		l->how = MT_LOC_REG;
	l->reg = (uint8_t)reg;
	l->off = off;
}

/* The frame base of the subprogram e at w->pc: DW_OP_call_frame_cfa
 * (the CFA by the object's .eh_frame), or a register + an offset. */
static void frame_base(const struct mt_dwarf *d, const struct unit *u, const struct die *e, struct where *w)
{
	struct cur c;
	w->fb = false;
	if (!expr_at(d, u, &e->fbase, w->pc, &c))
		return;
	unsigned op = (unsigned)rd(&c, 1);
	if (op == 0x9c && c.p == c.end && !c.bad) {                   /* DW_OP_call_frame_cfa */
		w->fb = mt_cfa_at(w->o, w->pc, &w->fb_reg, &w->fb_off);
	} else if (op >= 0x70 && op <= 0x8f) {                        /* DW_OP_bregN */
		w->fb_reg = op - 0x70;
		w->fb_off = sleb(&c);
		w->fb = !c.bad && c.p == c.end;
	} else if (op >= 0x50 && op <= 0x6f && c.p == c.end) {        /* DW_OP_regN: its value */
		w->fb_reg = op - 0x50;
		w->fb_off = 0;
		w->fb = true;
	}
}

/* ---- a function's prototype ---- */

/* The kind of a parameter's type; NULL, or what it is that is not recorded. */
static const char *kind_of(struct mt_dwarf *d, struct unit *u, const struct val *type, struct mt_arg *a)
{
	struct die t;
	struct val ref = *type;
	for (int hops = 0; hops < 32; hops++) {
		if (ref.kind == V_NONE)
			return "a type the debug information does not give";
		if (!follow(d, &ref, &t, &u))
			return "a type the debug information does not give";
		switch (t.tag) {
		case TAG_typedef: case TAG_const: case TAG_volatile: case TAG_restrict: case TAG_atomic:
			if (t.type.kind == V_NONE)
				return "void";
			ref = t.type;
			continue;
		case TAG_pointer: case TAG_reference: case TAG_rvalue_reference: case TAG_unspecified_type: {
			a->kind = MT_ARG_HEX;
			a->bits = __SIZEOF_POINTER__ * 8;
			/* a pointer to a one-byte character type (through its
			 * qualifiers and typedefs) is a string */
			struct val p = t.type;
			struct unit *pu = u;
			struct die pt;
			for (int k = 0; t.tag == TAG_pointer && p.kind == V_REF && k < 32; k++) {
				if (!follow(d, &p, &pt, &pu))
					break;
				if (pt.tag == TAG_base) {
					if (pt.size.u == 1 && (pt.enc.u == ATE_signed_char || pt.enc.u == ATE_unsigned_char))
						a->kind = MT_ARG_STR;
					break;
				}
				if (pt.tag != TAG_typedef && pt.tag != TAG_const && pt.tag != TAG_volatile &&
				    pt.tag != TAG_restrict && pt.tag != TAG_atomic)
					break;
				p = pt.type;
			}
			return NULL;
		}
		case TAG_enum:
			a->kind = MT_ARG_INT;
			if (t.size.kind && t.size.u != 1 && t.size.u != 2 && t.size.u != 4 && t.size.u != 8)
				return "an enum of an unusual size";
			a->bits = t.size.kind ? (uint8_t)(t.size.u * 8) : 32;
			return NULL;
		case TAG_base: {
			uint64_t size = t.size.u;
			bool integer = t.enc.u == ATE_signed || t.enc.u == ATE_signed_char || t.enc.u == ATE_unsigned ||
				t.enc.u == ATE_unsigned_char || t.enc.u == ATE_UTF || t.enc.u == ATE_boolean;
			if (!integer)
				return "a floating-point value (passed in a vector register, which the hook does not keep)";
			if (size != 1 && size != 2 && size != 4 && size != 8)
				return size > 8 ? "an integer wider than a register" : "a type of an unusual size";
			a->bits = (uint8_t)(size * 8);
			switch (t.enc.u) {
			case ATE_signed: case ATE_signed_char: a->kind = MT_ARG_INT; return NULL;
			case ATE_unsigned: case ATE_unsigned_char: case ATE_UTF: a->kind = MT_ARG_UINT; return NULL;
			case ATE_boolean: a->kind = MT_ARG_BOOL; return NULL;
			default: return "a floating-point value (passed in a vector register, which the hook does not keep)";
			}
		}
		case TAG_struct: case TAG_union: case TAG_class:
			return "a struct or union passed by value";
		case TAG_ptr_to_member:
			return "a pointer to member";
		default:
			return "a type that is not recorded";
		}
	}
	return "a type the debug information does not give";
}

/* The name of a DIE, or of the DIE it completes. */
static const char *name_of(struct mt_dwarf *d, struct unit *u, const struct die *e)
{
	const char *n = e->name.kind ? str_of(d, u, &e->name) : NULL;
	struct die o = *e;
	for (int hops = 0; !n && hops < 8; hops++) {
		const struct val *r = o.origin.kind ? &o.origin : o.spec.kind ? &o.spec : NULL;
		if (!r || !follow(d, r, &o, &u))
			break;
		n = o.name.kind ? str_of(d, u, &o.name) : NULL;
	}
	return n;
}

/* The type of a parameter, or of the one it completes. */
static const struct val *type_of(struct mt_dwarf *d, struct unit **u, struct die *e)
{
	for (int hops = 0; e->type.kind == V_NONE && hops < 8; hops++) {
		const struct val *r = e->origin.kind ? &e->origin : NULL;
		struct val ref;
		if (!r)
			break;
		ref = *r;
		if (!follow(d, &ref, e, u))
			break;
	}
	return &e->type;
}

/* A C identifier shorter than max (a name is written as it is, in
 * JSON too). */
static bool is_ident(const char *n, size_t max)
{
	if (!n || !(isalpha((unsigned char)*n) || *n == '_'))
		return false;
	size_t i = 1;
	while (n[i] && (isalnum((unsigned char)n[i]) || n[i] == '_'))
		i++;
	return !n[i] && i < max;
}

/* Fill p from the subprogram at en (and where w: where each parameter is
 * at w->pc); NULL or why its arguments are not recorded. */
static const char *params_of(struct mt_dwarf *d, const struct entry *en, struct mt_proto *p, struct where *w,
			     char *why, size_t len)
{
	struct unit *u = &d->units[en->unit];
	struct die e;
	bool bad = false;
	if (!read_die(d, u, en->die, &e, &bad))
		return "its debug information does not parse";
	if (w)
		frame_base(d, u, &e, w);
	/* A concrete instance without parameters of its own: its abstract one's. */
	size_t off = e.next;
	bool kids = e.children;
	for (int hops = 0; hops < 4 && e.origin.kind; hops++) {
		struct unit *ou = u;
		struct die o;
		bool any = false;
		if (kids) {
			struct die c;
			bool b = false;
			any = read_die(d, u, off, &c, &b) && c.tag == TAG_param;
			if (b)
				return "its debug information does not parse";
		}
		if (any || !follow(d, &e.origin, &o, &ou))
			break;
		e = o;
		u = ou;
		off = o.next;
		kids = o.children;
	}
	if (!kids)
		return NULL;                  /* no parameters */
	for (;;) {
		struct die c;
		bool b = false;
		bool real = read_die(d, u, off, &c, &b);
		if (b)
			return "its debug information does not parse";
		if (!real)
			break;
		size_t after = c.children ? skip_children(d, u, c.next) : c.next;
		if (!after)
			return "its debug information does not parse";
		if (c.tag == TAG_unspecified_params)
			break;                /* "...": the variable part is not known */
		if (c.tag == TAG_param) {
			if (p->n == MT_MAX_ARGS)
				break;        /* the rest are not recorded */
			struct mt_arg *a = &p->a[p->n];
			const char *n = name_of(d, u, &c);
			struct unit *tu = u;
			struct die t = c;
			const struct val *type = type_of(d, &tu, &t);
			if (is_ident(n, sizeof a->name))
				strcpy(a->name, n);
			else
				snprintf(a->name, sizeof a->name, "arg%u", p->n + 1);
			const char *no = kind_of(d, tu, type, a);
			if (no && !(w && w->any_type)) {
				snprintf(why, len, "parameter %s is %s", a->name, no);
				return why;
			}
			struct cur x;
			p->loc[p->n].how = MT_LOC_NONE;
			if (w && expr_at(d, u, &c.loc, w->pc, &x))
				locate_expr(x, w, &p->loc[p->n]);
			p->nstr += a->kind == MT_ARG_STR;
			p->n++;
		}
		off = after;
	}
	return NULL;
}

static const struct entry *find(const struct mt_dwarf *d, uint64_t pc)
{
	size_t lo = 0, hi = d->ne;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->e[mid].low_pc < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->ne && d->e[lo].low_pc == pc ? &d->e[lo] : NULL;
}

/* f's subprogram in its object's index (*dp: the object's DWARF), or
 * NULL, told why (once per object). */
static struct entry *entry_of(const struct mt_func *f, struct mt_dwarf **dp)
{
	struct mt_object *o = mt_reg.objs[f->obj];
	if (memchr(f->name, '.', strcspn(f->name, "@"))) {
		/* GCC's clones (name.isra.0, name.constprop.0) share their
		 * origin's description but may take other arguments (the dots
		 * of a version, name@VERSION, are not a clone's) */
		if (!mt_told(o->path, f->name))
			mt_msg("%s: %s: a compiler's clone, whose parameters may not be the source's: "
			       "its arguments are not recorded", o->name, mt_shown(f->name));
		return NULL;
	}
	if (!o->dwarf_read) {
		o->dwarf_read = true;
		o->dwarf = load(o);
	}
	struct mt_dwarf *d = *dp = o->dwarf;
	const struct entry *c = d ? find(d, f->addr - o->bias) : NULL;
	if (!c) {
		if (mt_told(o->path, NULL))
			return NULL;
		const char *n = mt_shown(f->name);
		const char *z = d && d->compressed ? " (compressed debug sections are not read)" : "";
		if (!d || d->own)
			mt_msg("%s: no DWARF information for %s%s: its arguments are not recorded", o->name, n, z);
		else if (d->debug.path)
			mt_msg("%s: no DWARF information for %s in its debug file %s%s: its arguments are not recorded",
			       o->name, n, d->debug.path, z);
		else if (d->debug.looked)
			mt_msg("%s: no DWARF information for %s, nor a debug file (looked for %s): its arguments "
			       "are not recorded", o->name, n, d->debug.looked);
		else
			mt_msg("%s: no DWARF information for %s, nor a build-id or debuglink to find a debug file "
			       "by: its arguments are not recorded", o->name, n);
		return NULL;
	}
	return (struct entry *)c;
}

/* Where f's site is: the address the arguments are located at. */
static bool where_of(const struct mt_func *f, struct where *w)
{
	struct mt_object *o = mt_reg.objs[f->obj];
	const struct mt_site *si = mt_func_site(f);
	*w = (struct where){ .o = o, .pc = si ? si->addr - o->bias : 0, .func = f->addr, .site = si ? si->addr : 0 };
	return si != NULL;
}

static void refused(const struct mt_func *f, const char *why)
{
	struct mt_object *o = mt_reg.objs[f->obj];
	if (!mt_told(o->path, f->name))
		mt_msg("%s: %s: %s: its arguments are not recorded", o->name, mt_shown(f->name), why);
}

const struct mt_proto *mt_dwarf_proto(const struct mt_func *f)
{
	struct mt_dwarf *d;
	struct entry *en = entry_of(f, &d);
	if (!en)
		return NULL;
	if (en->state)
		return en->proto;
	en->state = 2;
	struct mt_proto *p = calloc(1, sizeof *p);
	struct where w;
	char why[160];
	const char *no = !p ? "no memory"
		: MT_ARGS_LOCATED && !where_of(f, &w) ? "its call to the hook is not known"
		: params_of(d, en, p, MT_ARGS_LOCATED ? &w : NULL, why, sizeof why);
	if (no) {
		refused(f, no);
		free(p);
		return NULL;
	}
	p->located = MT_ARGS_LOCATED;
	mt_proto_sized(p);
	en->state = 1;
	en->proto = p;
	return p;
}

const struct mt_proto *mt_dwarf_locate(const struct mt_func *f, const struct mt_proto *r)
{
	struct mt_dwarf *d;
	struct entry *en = entry_of(f, &d);
	if (!en)
		return NULL;
	if (en->given == r)
		return en->located;
	struct mt_proto *dw = calloc(1, sizeof *dw), *q = malloc(sizeof *q);
	struct where w;
	char why[160];
	const char *no = !dw || !q ? "no memory"
		: !where_of(f, &w) ? "its call to the hook is not known"
		: (w.any_type = true, params_of(d, en, dw, &w, why, sizeof why));
	if (no) {
		refused(f, no);
		free(dw);
		free(q);
		return NULL;
	}
	/* the prototype's types, DWARF's places, parameter by parameter */
	*q = *r;
	q->located = true;
	for (unsigned i = 0; i < q->n; i++)
		q->loc[i] = i < dw->n ? dw->loc[i] : (struct mt_loc){ .how = MT_LOC_NONE };
	free(dw);
	en->given = r;
	en->located = q;
	return q;
}
