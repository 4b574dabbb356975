/* SPDX-License-Identifier: GPL-2.0-or-later */
/* args.c - function events: the arguments of traced functions.
 *
 * As the kernel's function events take them, a prototype names a
 * function (a glob, with an optional :mod:) and its arguments' types and
 * names:  "open_file(const char *path, int flags)".  Its functions are
 * traced, and each entry records their arguments (buffer.c, from the
 * registers the hook saved); strings are copied at the call, the rest is
 * formatted when the trace is written.  Without prototypes,
 * MCOUNT_TRACE_ARGS=N records the first N argument words of every traced
 * function, written raw.  Prototypes are rules like filters: replayed on
 * objects loaded later; "!GLOB" takes the prototype off those functions.
 *
 * The types: s8 s16 s32 s64, u8 ... u64 (decimal), x8 ... x64 (hex),
 * bool, string, symbol (an address, written as its function's name);
 * C's integer types (char, short, int, long, long long, their unsigned
 * forms, size_t, ssize_t, the <stdint.h> ones); any pointer (hex), and a
 * char pointer, which is a string.  Floating-point types are refused:
 * they are passed in vector registers, which the hooks do not keep.
 * A bare glob ("parse_*") gives each of its functions the prototype its
 * object's DWARF describes (dwarf.c).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

static struct mt_proto **protos;       /* the rules, in the order given */
static size_t nprotos;

/* The widths of the target's long and pointers (off_t: a program's own
 * build decides it; long's is taken). */
#define LONG_BITS (__SIZEOF_LONG__ * 8)
#define PTR_BITS (__SIZEOF_POINTER__ * 8)

/* The type of a C declaration's type words (with `const` and the like
 * gone and stars counted); false if it is not one. */
struct tname {
	const char *name;
	uint8_t kind, bits;
};
static const struct tname types[] = {
	{ "s8", MT_ARG_INT, 8 },   { "s16", MT_ARG_INT, 16 },  { "s32", MT_ARG_INT, 32 },
	{ "s64", MT_ARG_INT, 64 }, { "u8", MT_ARG_UINT, 8 },   { "u16", MT_ARG_UINT, 16 },
	{ "u32", MT_ARG_UINT, 32 }, { "u64", MT_ARG_UINT, 64 }, { "x8", MT_ARG_HEX, 8 },
	{ "x16", MT_ARG_HEX, 16 }, { "x32", MT_ARG_HEX, 32 }, { "x64", MT_ARG_HEX, 64 },
	{ "bool", MT_ARG_BOOL, 8 }, { "_Bool", MT_ARG_BOOL, 8 }, { "string", MT_ARG_STR, PTR_BITS },
	{ "symbol", MT_ARG_SYM, PTR_BITS }, { "char", MT_ARG_INT, 8 }, { "signed char", MT_ARG_INT, 8 },
	{ "unsigned char", MT_ARG_UINT, 8 }, { "short", MT_ARG_INT, 16 },
	{ "short int", MT_ARG_INT, 16 }, { "unsigned short", MT_ARG_UINT, 16 },
	{ "unsigned short int", MT_ARG_UINT, 16 }, { "int", MT_ARG_INT, 32 },
	{ "signed", MT_ARG_INT, 32 }, { "signed int", MT_ARG_INT, 32 },
	{ "unsigned", MT_ARG_UINT, 32 }, { "unsigned int", MT_ARG_UINT, 32 },
	{ "long", MT_ARG_INT, LONG_BITS }, { "long int", MT_ARG_INT, LONG_BITS }, { "long long", MT_ARG_INT, 64 },
	{ "long long int", MT_ARG_INT, 64 }, { "unsigned long", MT_ARG_UINT, LONG_BITS },
	{ "unsigned long int", MT_ARG_UINT, LONG_BITS }, { "unsigned long long", MT_ARG_UINT, 64 },
	{ "unsigned long long int", MT_ARG_UINT, 64 }, { "size_t", MT_ARG_UINT, PTR_BITS },
	{ "ssize_t", MT_ARG_INT, PTR_BITS }, { "ptrdiff_t", MT_ARG_INT, PTR_BITS }, { "off_t", MT_ARG_INT, LONG_BITS },
	{ "pid_t", MT_ARG_INT, 32 }, { "intptr_t", MT_ARG_INT, PTR_BITS }, { "uintptr_t", MT_ARG_HEX, PTR_BITS },
	{ "int8_t", MT_ARG_INT, 8 }, { "int16_t", MT_ARG_INT, 16 }, { "int32_t", MT_ARG_INT, 32 },
	{ "int64_t", MT_ARG_INT, 64 }, { "uint8_t", MT_ARG_UINT, 8 }, { "uint16_t", MT_ARG_UINT, 16 },
	{ "uint32_t", MT_ARG_UINT, 32 }, { "uint64_t", MT_ARG_UINT, 64 },
};

static bool is_float(const char *t)
{
	return strstr(t, "float") || strstr(t, "double") || strstr(t, "_Complex");
}

static int fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* One parameter, "const char *path" or "int" (named argN then). */
static int parse_arg(char *s, unsigned i, struct mt_arg *a, char *err, size_t errlen)
{
	unsigned stars = 0;
	char words[8][64];
	unsigned nw = 0;
	for (char *p = s; *p;) {
		if (isspace((unsigned char)*p)) {
			p++;
		} else if (*p == '*') {
			stars++;
			p++;
		} else if (isalnum((unsigned char)*p) || *p == '_') {
			size_t l = 0;
			while (isalnum((unsigned char)p[l]) || p[l] == '_')
				l++;
			if (l >= sizeof words[0] || nw == 8)
				return fail(err, errlen, "'%s': too long a parameter", s);
			if (!((l == 5 && !strncmp(p, "const", 5)) || (l == 8 && !strncmp(p, "volatile", 8)) ||
			      (l == 8 && !strncmp(p, "restrict", 8)))) {
				memcpy(words[nw], p, l);
				words[nw++][l] = 0;
			}
			p += l;
		} else {
			return fail(err, errlen, "'%s': not a parameter (a type and a name)", s);
		}
	}
	if (!nw)
		return fail(err, errlen, "parameter %u: no type", i + 1);
	/* The last word is the name, unless the words are a type as they
	 * stand (or there are stars after them: "char *"). */
	char type[200] = "";
	const char *name = NULL;
	for (unsigned k = 0; k < nw; k++) {
		if (k)
			strcat(type, " ");
		strcat(type, words[k]);
	}
	const struct tname *t = NULL;
	for (size_t k = 0; k < sizeof types / sizeof *types; k++)
		if (!strcmp(types[k].name, type))
			t = &types[k];
	bool struct_like = !strcmp(words[0], "struct") || !strcmp(words[0], "union") || !strcmp(words[0], "enum");
	if (!t && (nw > 1 || stars)) {
		name = words[nw - 1];
		type[strlen(type) - strlen(name)] = 0;
		if (*type)
			type[strlen(type) - 1] = 0;    /* the space before the name */
		for (size_t k = 0; k < sizeof types / sizeof *types; k++)
			if (!strcmp(types[k].name, type))
				t = &types[k];
	}
	if (is_float(type))
		return fail(err, errlen, "'%s': a floating-point argument is passed in a vector register, "
			    "which the hook does not keep", s);
	if (stars) {
		bool chars = !strcmp(type, "char") || !strcmp(type, "signed char") || !strcmp(type, "unsigned char");
		a->kind = stars == 1 && chars ? MT_ARG_STR : MT_ARG_HEX;
		a->bits = PTR_BITS;
	} else if (t) {
		a->kind = t->kind;
		a->bits = t->bits;
	} else if (struct_like && !strcmp(words[0], "enum")) {
		a->kind = MT_ARG_INT;
		a->bits = 32;
	} else if (struct_like) {
		return fail(err, errlen, "'%s': a struct or union passed by value is not recorded", s);
	} else if (!name || !*type) {
		return fail(err, errlen, "'%s': no such type (see mcount-trace(1), FUNCTION EVENTS)", s);
	} else {
		return fail(err, errlen, "'%s': no such type '%s' (see mcount-trace(1), FUNCTION EVENTS)", s, type);
	}
	if (name && strlen(name) >= sizeof a->name)
		return fail(err, errlen, "'%s': too long a name", s);
	if (name)
		strcpy(a->name, name);
	else
		snprintf(a->name, sizeof a->name, "arg%u", i + 1);
	return 0;
}

/* A prototype that did not come to be (p may be NULL). */
static void proto_free(struct mt_proto *p)
{
	if (p) {
		free(p->text);
		free(p->glob);
		free(p->mod);
		free(p);
	}
}

/* A new prototype of the text spec[0, len) for the functions that
 * spec[0, glen) names ("glob" or "glob:mod:M", spaces around it
 * dropped), or NULL with err set. */
static struct mt_proto *proto_new(const char *spec, size_t len, size_t glen, char *err, size_t errlen)
{
	struct mt_proto *p = calloc(1, sizeof *p);
	if (!p || !(p->text = strndup(spec, len)) || !(p->glob = strndup(spec, glen))) {
		fail(err, errlen, "%s", strerror(ENOMEM));
		goto bad;
	}
	while (*p->glob && isspace((unsigned char)*p->glob))
		memmove(p->glob, p->glob + 1, strlen(p->glob));
	for (size_t l = strlen(p->glob); l && isspace((unsigned char)p->glob[l - 1]);)
		p->glob[--l] = 0;
	char *mod = strstr(p->glob, ":mod:");
	if (mod) {
		*mod = 0;
		if (!(p->mod = strdup(mod + 5)) || !*p->mod) {
			fail(err, errlen, "'%s': no module after :mod:", p->text);
			goto bad;
		}
	}
	if (!*p->glob) {
		fail(err, errlen, "'%s': no function", p->text);
		goto bad;
	}
	return p;
bad:
	proto_free(p);
	return NULL;
}

/* A bare "glob[:mod:M]": its functions' prototypes come from their
 * DWARF (dwarf.c), each its own. */
static struct mt_proto *parse_bare(const char *spec, size_t len, char *err, size_t errlen)
{
	struct mt_proto *p = proto_new(spec, len, len, err, errlen);
	if (p && strpbrk(p->glob, " \t\n,")) {
		/* several globs as a filter takes them, given as one */
		fail(err, errlen, "'%s': one GLOB a prototype (give each its own)", p->text);
		proto_free(p);
		return NULL;
	}
	if (p)
		p->dwarf = true;
	return p;
}

/* "glob[:mod:M](params)" into a prototype, or NULL with err set. */
static struct mt_proto *parse(const char *spec, char *err, size_t errlen)
{
	size_t len = strlen(spec);
	while (len && isspace((unsigned char)spec[len - 1]))
		len--;
	if (len && !memchr(spec, '(', len) && !memchr(spec, ')', len))
		return parse_bare(spec, len, err, errlen);
	if (!len || spec[len - 1] != ')') {
		fail(err, errlen, "'%s': not FUNCTION(TYPE NAME, ...) or GLOB", spec);
		return NULL;
	}
	/* The parameters: the parenthesis that closes at the end (a
	 * demangled name has parentheses of its own before it). */
	size_t open = len - 1;
	int depth = 0;
	for (;;) {
		if (spec[open] == ')')
			depth++;
		else if (spec[open] == '(' && !--depth)
			break;
		if (!open--) {
			fail(err, errlen, "'%s': unbalanced parentheses", spec);
			return NULL;
		}
	}
	struct mt_proto *p = proto_new(spec, len, open, err, errlen);
	if (!p)
		return NULL;
	char *params = strndup(spec + open + 1, len - open - 2);
	if (!params) {
		fail(err, errlen, "%s", strerror(ENOMEM));
		goto bad;
	}
	char *rest = params;
	while (isspace((unsigned char)*rest))
		rest++;
	if (*rest && strcmp(rest, "void")) {
		char *save = NULL;
		for (char *a = strtok_r(params, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
			if (strstr(a, "...")) {
				break;                    /* the variable part is not known */
			}
			if (p->n == MT_MAX_ARGS) {
				fail(err, errlen, "'%s': more than %d arguments", spec, MT_MAX_ARGS);
				goto bad;
			}
			if (parse_arg(a, p->n, &p->a[p->n], err, errlen))
				goto bad;
			p->nstr += p->a[p->n].kind == MT_ARG_STR;
			p->n++;
		}
	}
	mt_proto_sized(p);
	free(params);
	return p;
bad:
	free(params);
	proto_free(p);
	return NULL;
}

static const void *proto_of(const struct mt_site *s)
{
	return mt_reg.funcs[s->func].proto;
}

/* The hot path's map, from the sites of the functions with prototypes. */
static void rebuild_map(void)
{
	struct mt_retmap *m = mt_retmap_of(proto_of);
	atomic_store_explicit(&mt_argmap, m, memory_order_release);
	atomic_store(&mt_args_on, m != NULL || atomic_load(&mt_args_raw) > 0);
}

/* Rule r on functions [from, nfuncs): returns how many changed. */
static long apply_proto(const struct mt_proto *r, bool drop, size_t from)
{
	long changed = 0;
	for (size_t i = from; i < mt_reg.nfuncs; i++) {
		struct mt_func *f = &mt_reg.funcs[i];
		if (!mt_reg.objs[f->obj]->live || !mt_func_matches(r->glob, r->mod, f))
			continue;
		const struct mt_proto *want = drop ? NULL : r->dwarf ? mt_dwarf_proto(f)
			: MT_ARGS_LOCATED ? mt_dwarf_locate(f, r) : r;
		changed += f->proto != want;
		f->proto = want;
	}
	return changed;
}

long mt_proto_apply(const char *spec, char *err, size_t errlen)
{
	if (!MT_HAVE_ARGS) {
		fail(err, errlen, "function arguments are not recorded on this architecture");
		return -1;
	}
	while (isspace((unsigned char)*spec))
		spec++;
	if (*spec == '!') {
		/* Off the functions a glob names, and no longer replayed. */
		struct mt_proto drop = { 0 };
		char *g = strdup(spec + 1);
		if (!g) {
			fail(err, errlen, "%s", strerror(ENOMEM));
			return -1;
		}
		char *mod = strstr(g, ":mod:");
		if (mod) {
			*mod = 0;
			mod += 5;
		}
		drop.glob = g;
		drop.mod = mod;
		long n = apply_proto(&drop, true, 0);
		size_t k = 0;
		for (size_t i = 0; i < nprotos; i++)
			if (strcmp(protos[i]->glob, g) || (protos[i]->mod ? !mod || strcmp(protos[i]->mod, mod) : !!mod))
				protos[k++] = protos[i];
		nprotos = k;
		free(g);
		rebuild_map();
		return n;
	}
	struct mt_proto *p = parse(spec, err, errlen);
	if (!p)
		return -1;
	struct mt_proto **nv = realloc(protos, (nprotos + 1) * sizeof *nv);
	if (!nv) {
		fail(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	protos = nv;
	protos[nprotos++] = p;
	long n = apply_proto(p, false, 0);
	/* Its functions are traced, as an enabled event's are: the glob as
	 * it is (a demangled name may have spaces and commas). */
	if (mt_filter_glob(p->glob, p->mod, 1) < 0) {
		fail(err, errlen, "'%s': cannot enable its functions", spec);
		return -1;
	}
	rebuild_map();
	return n;
}

void mt_protos_refresh(size_t from)
{
	if (!nprotos && !atomic_load(&mt_argmap))
		return;
	for (size_t i = 0; i < nprotos; i++)
		apply_proto(protos[i], false, from);
	rebuild_map();
}

size_t mt_protos_count(void)
{
	return nprotos;
}

int mt_args_set_raw(int n)
{
	/* MT_ARGS_LOCATED: the ABI's words are gone when the hook runs */
	if (n < 0 || n > MT_RAW_WORDS) {
		errno = EINVAL;
		return -1;
	}
	atomic_store(&mt_args_raw, n);
	atomic_store(&mt_args_on, atomic_load(&mt_argmap) != NULL || n > 0);
	return 0;
}

/* ---- writing them (argfmt.c) ---- */

static const char *sym_name(uint64_t addr, char *buf, size_t len, void *ctx)
{
	(void)ctx;
	return mt_name_of((uintptr_t)addr, buf, len);
}

size_t mt_args_format(char *out, size_t cap, const uint64_t *p, size_t nwords, bool json)
{
	const struct mt_proto *proto = nwords ? (const struct mt_proto *)(uintptr_t)p[0] : NULL;
	struct mt_fmt_arg a[MT_MAX_ARGS];
	for (unsigned i = 0; proto && i < proto->n; i++)
		a[i] = (struct mt_fmt_arg){ proto->a[i].name, proto->a[i].kind, proto->a[i].bits,
					    proto->located && proto->loc[i].how == MT_LOC_NONE };
	return mt_fmt_args(out, cap, proto ? a : NULL, proto ? proto->n : 0, p, nwords, json, sym_name, NULL);
}
