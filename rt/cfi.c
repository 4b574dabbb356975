/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cfi.c - the canonical frame address at a site, from the object's
 * .eh_frame (call frame information, as the DWARF standard and the LSB
 * describe it).
 *
 * Function events on a hook that runs after the body moved the
 * arguments (MT_ARGS_LOCATED) find an argument kept on the stack where
 * its DWARF location says: usually DW_OP_fbreg, an offset from the
 * frame base, which GCC makes DW_OP_call_frame_cfa.  The CFA at the site
 * is register + offset by the rules of the function's FDE up to the
 * site's address; the hook keeps that register (the stack or the frame
 * pointer), so the argument is memory at it + offset.
 *
 * The .eh_frame is read from the object's file (mapped read-only by
 * elf.c) with its section address, which pc-relative encodings need,
 * and so is its .debug_frame (the same rules in DWARF's own format: a
 * CIE's id is all ones, an FDE names its CIE by its offset, addresses
 * are absolute), which GCC writes alone where it makes no unwind
 * tables (riscv64's C code, -fno-asynchronous-unwind-tables): every
 * read bounds-checked, as dwarf.c reads.  The FDEs of both are indexed
 * once per object (sorted by their first address; .eh_frame's first);
 * only the CFA's rule is followed (the registers' rules do not matter
 * here).  Registry lock held, never on the hot path.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "cursor.h"

/* One of the two sections. */
struct frames {
	const unsigned char *p;
	size_t size;
	uint64_t addr;                /* the section's address */
	bool debug;                   /* .debug_frame */
};

struct fde {
	uint64_t lo, hi;              /* link-time addresses */
	size_t off;                   /* the FDE in its section */
	uint8_t sec;                  /* in mt_cfi.s */
};

struct mt_cfi {
	struct frames s[2];
	struct fde *f;
	size_t n;
};

/* A pointer of encoding enc (DW_EH_PE_*) at the cursor, whose section
 * starts at address base: absolute or pc-relative only (what a linked
 * object's FDEs use); false for another. */
static bool pointer(struct cur *c, unsigned enc, const unsigned char *sec, uint64_t base, uint64_t *out)
{
	uint64_t here = base + (uint64_t)(c->p - sec);
	uint64_t v;
	switch (enc & 0x0f) {
	case 0x00: v = rd(c, sizeof(void *)); break;
	case 0x01: v = uleb(c); break;
	case 0x02: v = rd(c, 2); break;
	case 0x03: v = rd(c, 4); break;
	case 0x04: v = rd(c, 8); break;
	case 0x09: v = (uint64_t)sleb(c); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)rd(c, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)rd(c, 4); break;
	case 0x0c: v = rd(c, 8); break;
	default: return false;
	}
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v += here; break;
	default: return false;
	}
	if (sizeof(void *) == 4 && (enc & 0x0f) == 0)
		v &= UINT32_MAX;
	*out = v;
	return !c->bad && !(enc & 0x80);
}

/* What an FDE needs of its CIE. */
struct cie {
	uint64_t code_align;
	int64_t data_align;
	unsigned fde_enc;
	bool z;                       /* augmentation data follow the FDE's range */
	const unsigned char *ins, *ins_end;
};

static bool read_cie(const struct frames *x, size_t off, struct cie *ci)
{
	if (off >= x->size)
		return false;
	struct cur c = { x->p + off, x->p + x->size, false };
	uint64_t len = rd(&c, 4);
	if (c.bad || len == 0 || len >= 0xfffffff0 || len > (size_t)(c.end - c.p))
		return false;
	c.end = c.p + len;
	if (rd(&c, 4) != (x->debug ? 0xffffffff : 0))
		return false;                 /* not a CIE */
	unsigned version = (unsigned)rd(&c, 1);
	if (version != 1 && version != 3 && version != 4)
		return false;
	const char *aug = (const char *)c.p;
	const unsigned char *nul = memchr(c.p, 0, (size_t)(c.end - c.p));
	if (!nul)
		return false;
	c.p = nul + 1;
	if (aug[0] == 'e' && aug[1] == 'h')
		rd(&c, sizeof(void *));
	if (version == 4) {
		rd(&c, 1);                    /* address size */
		rd(&c, 1);                    /* segment selector size */
	}
	ci->code_align = uleb(&c);
	ci->data_align = sleb(&c);
	if (version == 1)
		rd(&c, 1);
	else
		uleb(&c);                     /* return address register */
	ci->fde_enc = 0;                      /* .debug_frame's: absolute */
	ci->z = aug[0] == 'z';
	if (ci->z) {
		uint64_t alen = uleb(&c);
		if (c.bad || alen > (size_t)(c.end - c.p))
			return false;
		const unsigned char *after = c.p + alen;
		/* 'R' (the FDEs' encoding) is all that matters; the data of
		 * the letters after one not known are passed over */
		for (const char *a = aug + 1; *a && !c.bad; a++) {
			if (*a == 'R') {
				ci->fde_enc = (unsigned)rd(&c, 1);
			} else if (*a == 'L') {
				rd(&c, 1);
			} else if (*a == 'P') {
				uint64_t skip;
				unsigned enc = (unsigned)rd(&c, 1);
				if (!pointer(&c, enc & 0x7f, x->p, x->addr, &skip))
					return false;
			} else if (*a != 'S' && *a != 'B' && *a != 'G') {
				break;
			}
		}
		c.p = after;
	} else if (aug[0]) {
		return false;                 /* an augmentation not understood */
	}
	ci->ins = c.p;
	ci->ins_end = c.end;
	return !c.bad && ci->code_align;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct fde *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The FDE whose id field (the CIE pointer) is at idpos, with value id:
 * its CIE's offset, or SIZE_MAX for a CIE. */
static size_t cie_of(const struct frames *x, size_t idpos, uint64_t id)
{
	if (x->debug)
		return id == 0xffffffff ? SIZE_MAX : (size_t)id;
	return id && id <= idpos ? idpos - (size_t)id : SIZE_MAX;
}

/* Index the FDEs of section k of x (into x->f, of *cap entries). */
static void index_frames(struct mt_cfi *x, uint8_t k, size_t *cap)
{
	const struct frames *fr = &x->s[k];
	size_t off = 0;
	while (fr->p && off + 8 <= fr->size) {
		struct cur c = { fr->p + off, fr->p + fr->size, false };
		uint64_t len = rd(&c, 4);
		if (len == 0 && !fr->debug)
			break;                /* the terminator */
		if (len >= 0xfffffff0 || len > (size_t)(c.end - c.p) || len < 4)
			break;                /* the 64-bit format, or damaged */
		size_t next = off + 4 + (size_t)len;
		size_t idpos = (size_t)(c.p - fr->p);
		size_t cie = cie_of(fr, idpos, rd(&c, 4));
		struct cie ci;
		uint64_t lo, range;
		c.end = fr->p + next;
		if (cie != SIZE_MAX && read_cie(fr, cie, &ci) && pointer(&c, ci.fde_enc, fr->p, fr->addr, &lo) &&
		    pointer(&c, ci.fde_enc & 0x0f, fr->p, fr->addr, &range) && lo && range) {
			if (x->n == *cap) {
				size_t nc = *cap ? *cap * 2 : 64;
				struct fde *nv = realloc(x->f, nc * sizeof *nv);
				if (!nv)
					return;
				x->f = nv;
				*cap = nc;
			}
			x->f[x->n++] = (struct fde){ lo, lo + range, off, k };
		}
		off = next;
	}
}

static struct mt_cfi *load(const struct mt_object *o)
{
	struct mt_cfi *x = calloc(1, sizeof *x);
	if (!x)
		return NULL;
	static const char *const name[2] = { ".eh_frame", ".debug_frame" };
	size_t cap = 0;
	for (uint8_t k = 0; k < 2; k++) {
		x->s[k].debug = k == 1;
		x->s[k].p = mt_elf_section_at(o->file, o->file_size, name[k], &x->s[k].size, &x->s[k].addr);
		index_frames(x, k, &cap);
	}
	if (x->n)
		qsort(x->f, x->n, sizeof *x->f, fde_cmp);
	return x;
}

/* The CFA's rule: register + offset (or an expression, not followed). */
struct rule {
	unsigned reg;
	int64_t off;
	bool expr;                    /* DW_CFA_def_cfa_expression: not followed */
};


/* A factored offset times its factor, as DWARF's *_sf operations make
 * it: in two's complement, wrapping where damaged frames would overflow
 * (a nonsense rule, not undefined behaviour). */
static int64_t scaled(int64_t v, int64_t factor)
{
	return (int64_t)((uint64_t)v * (uint64_t)factor);
}
/* Follow the instructions [p, end) from *loc up to pc into r; false at
 * one that cannot be followed. */
static bool run(const struct cie *ci, const unsigned char *p, const unsigned char *end, uint64_t *loc,
		uint64_t pc, struct rule *r, const struct frames *x)
{
	struct rule stack[16];
	unsigned depth = 0;
	struct cur c = { p, end, false };
	while (c.p < c.end && !c.bad) {
		unsigned op = (unsigned)rd(&c, 1);
		uint64_t delta = 0;
		bool advance = false;
		switch (op >> 6) {
		case 1: delta = op & 0x3f; advance = true; break;
		case 2: uleb(&c); continue;           /* DW_CFA_offset */
		case 3: continue;                     /* DW_CFA_restore */
		default: break;
		}
		if (!advance) {
			switch (op) {
			case 0x00: break;                                           /* nop */
			case 0x01: {                                                /* set_loc */
				uint64_t a;
				if (!pointer(&c, ci->fde_enc, x->p, x->addr, &a))
					return false;
				if (a > pc)
					return true;
				*loc = a;
				break;
			}
			case 0x02: delta = rd(&c, 1); advance = true; break;
			case 0x03: delta = rd(&c, 2); advance = true; break;
			case 0x04: delta = rd(&c, 4); advance = true; break;
			case 0x05: uleb(&c); uleb(&c); break;                       /* offset_extended */
			case 0x06: case 0x07: case 0x08: uleb(&c); break;           /* restore_extended, undefined, same_value */
			case 0x09: uleb(&c); uleb(&c); break;                       /* register */
			case 0x0a:                                                  /* remember_state */
				if (depth == sizeof stack / sizeof *stack)
					return false;
				stack[depth++] = *r;
				break;
			case 0x0b:                                                  /* restore_state */
				if (!depth)
					return false;
				*r = stack[--depth];
				break;
			case 0x0c: r->reg = (unsigned)uleb(&c); r->off = (int64_t)uleb(&c); r->expr = false; break;
			case 0x0d: r->reg = (unsigned)uleb(&c); r->expr = false; break;
			case 0x0e: r->off = (int64_t)uleb(&c); break;
			case 0x0f: {                                                /* def_cfa_expression */
				uint64_t n = uleb(&c);
				if (n > (size_t)(c.end - c.p))
					return false;
				c.p += n;
				r->expr = true;
				break;
			}
			case 0x10: case 0x16: {                                     /* expression, val_expression */
				uleb(&c);
				uint64_t n = uleb(&c);
				if (n > (size_t)(c.end - c.p))
					return false;
				c.p += n;
				break;
			}
			case 0x11: uleb(&c); sleb(&c); break;                       /* offset_extended_sf */
			case 0x12:                                                  /* def_cfa_sf */
				r->reg = (unsigned)uleb(&c);
				r->off = scaled(sleb(&c), ci->data_align);
				r->expr = false;
				break;
			case 0x13: r->off = scaled(sleb(&c), ci->data_align); break;      /* def_cfa_offset_sf */
			case 0x14: uleb(&c); uleb(&c); break;                       /* val_offset */
			case 0x15: uleb(&c); sleb(&c); break;                       /* val_offset_sf */
			case 0x2d: break;                      /* GNU_window_save, AArch64 negate_ra_state */
			case 0x2e: uleb(&c); break;                                 /* GNU_args_size */
			case 0x2f: uleb(&c); uleb(&c); break;                       /* GNU_negative_offset_extended */
			default: return false;
			}
		}
		if (advance) {
			uint64_t to = *loc + delta * ci->code_align;
			if (to > pc)
				return !c.bad;
			*loc = to;
		}
	}
	return !c.bad;
}

/* The FDE that covers pc, or NULL. */
static const struct fde *fde_at(const struct mt_object *co, uint64_t pc, const struct mt_cfi **xp)
{
	struct mt_object *o = (struct mt_object *)co;      /* read once, as mt_sym_at reads */
	if (!o->cfi_read) {
		o->cfi_read = true;
		o->cfi = load(o);
	}
	const struct mt_cfi *x = *xp = o->cfi;
	if (!x || !x->n)
		return NULL;
	size_t lo = 0, hi = x->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->f[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || pc >= x->f[lo - 1].hi)
		return NULL;
	return &x->f[lo - 1];
}

/* The first address (link-time) of the FDE of the object's .eh_frame or
 * .debug_frame that covers pc: where its function starts; 0 if none. */
static uint64_t fde_start(const struct mt_object *o, uint64_t pc)
{
	const struct mt_cfi *x;
	const struct fde *f = fde_at(o, pc, &x);
	return f ? f->lo : 0;
}

uintptr_t mt_func_start(const struct mt_object *o, uintptr_t site)
{
	const struct mt_sym *f = mt_sym_at(o, site);
	uintptr_t start = f ? f->addr : 0;
	if (!start && site >= o->bias) {
		uint64_t lo = fde_start(o, site - o->bias);
		start = lo ? o->bias + (uintptr_t)lo : 0;
	}
	if (!start || start > site || site - start > MT_FUNC_REACH)
		return 0;
	for (unsigned i = 0; i < o->nexec; i++)
		if (site >= o->exec_lo[i] && site < o->exec_hi[i])
			return start >= o->exec_lo[i] ? start : 0;
	return 0;
}

bool mt_cfa_at(struct mt_object *o, uint64_t pc, unsigned *reg, int64_t *off)
{
	const struct mt_cfi *x;
	const struct fde *f = fde_at(o, pc, &x);
	if (!f)
		return false;
	const struct frames *fr = &x->s[f->sec];
	struct cur c = { fr->p + f->off, fr->p + fr->size, false };
	uint64_t len = rd(&c, 4);
	c.end = c.p + len;                    /* checked by index_frames */
	size_t idpos = (size_t)(c.p - fr->p);
	size_t cie = cie_of(fr, idpos, rd(&c, 4));
	struct cie ci;
	uint64_t start, range;
	if (c.bad || cie == SIZE_MAX || !read_cie(fr, cie, &ci) || !pointer(&c, ci.fde_enc, fr->p, fr->addr, &start) ||
	    !pointer(&c, ci.fde_enc & 0x0f, fr->p, fr->addr, &range))
		return false;
	if (ci.z) {
		uint64_t n = uleb(&c);
		if (c.bad || n > (size_t)(c.end - c.p))
			return false;
		c.p += n;
	}
	struct rule r = { 0, 0, true };
	uint64_t loc = start;
	if (!run(&ci, ci.ins, ci.ins_end, &loc, pc, &r, fr) || !run(&ci, c.p, c.end, &loc, pc, &r, fr) || r.expr)
		return false;
	*reg = r.reg;
	*off = r.off;
	return true;
}
