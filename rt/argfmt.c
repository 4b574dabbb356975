/* SPDX-License-Identifier: GPL-2.0-or-later */
/* argfmt.c - a function's recorded arguments written out (argfmt.h):
 * the one writer of the tracer's argument text and JSON, and of a
 * recording's replay; and of function_graph's return values and
 * durations, for both.  Calls only the C library. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "argfmt.h"

struct sink {
	char *p;
	size_t left;
};

static void emit(struct sink *k, const char *s, size_t n)
{
	if (n > k->left)
		n = k->left;
	memcpy(k->p, s, n);
	k->p += n;
	k->left -= n;
}

static void emitf(struct sink *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emitf(struct sink *k, const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n > 0)
		emit(k, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* Are the n bytes at s UTF-8 (no overlong forms, no surrogates)? */
static bool utf8_ok(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i], len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
			: (c & 0xf8) == 0xf0 ? 4 : 0;
		if (!len || i + len > n)
			return false;
		uint32_t cp = len == 1 ? c : c & (0x7f >> len);
		for (unsigned j = 1; j < len; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		static const uint32_t least[5] = { 0, 0, 0x80, 0x800, 0x10000 };
		if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += len;
	}
	return true;
}

/* A string's bytes, quoted: C's escapes in text (\xHH above 0x7e); in
 * JSON, UTF-8 as it is, else each byte the character of its value
 * (U+0080-U+00FF).  A null pointer, unreadable memory and a string cut
 * short: (null), (fault 0xADDR) and "..."... in text; null,
 * {"fault":"0xADDR"} and {"cut":"..."} in JSON. */
static void emit_str(struct sink *k, const unsigned char *s, size_t n, uint64_t flags, bool json, uint64_t ptr)
{
	if (flags & MT_STR_FAULT) {
		if (!ptr)
			emit(k, json ? "null" : "(null)", json ? 4 : 6);
		else if (json)
			emitf(k, "{\"fault\":\"0x%llx\"}", (unsigned long long)ptr);
		else
			emitf(k, "(fault 0x%llx)", (unsigned long long)ptr);
		return;
	}
	bool cut = flags & MT_STR_CUT;
	bool utf8 = json && utf8_ok(s, n);
	if (json && cut)
		emit(k, "{\"cut\":", 7);
	emit(k, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			emit(k, e, 2);
		} else if (c == '\n') {
			emit(k, "\\n", 2);
		} else if (c == '\t') {
			emit(k, "\\t", 2);
		} else if (c < 0x20 || c == 0x7f || (c >= 0x80 && !utf8)) {
			if (json)
				emitf(k, "\\u%04x", c);
			else
				emitf(k, "\\x%02x", c);
		} else {
			emit(k, (const char *)&c, 1);
		}
	}
	emit(k, "\"", 1);
	if (cut)
		emit(k, json ? "}" : "...", json ? 1 : 3);
}

static void emit_int(struct sink *k, const struct mt_fmt_arg *a, uint64_t w, bool json)
{
	uint64_t mask = a->bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << a->bits) - 1;
	uint64_t u = w & mask;
	switch (a->kind) {
	case MT_ARG_INT: {
		int64_t v = a->bits == 64 ? (int64_t)u : (u >> (a->bits - 1)) ? (int64_t)(u | ~mask) : (int64_t)u;
		emitf(k, "%lld", (long long)v);
		break;
	}
	case MT_ARG_UINT:
		emitf(k, "%llu", (unsigned long long)u);
		break;
	case MT_ARG_BOOL:
		emit(k, u ? "true" : "false", u ? 4 : 5);
		break;
	default:
		emitf(k, json ? "\"0x%llx\"" : "0x%llx", (unsigned long long)u);
		break;
	}
}

size_t mt_fmt_args(char *out, size_t cap, const struct mt_fmt_arg *a, size_t na, const uint64_t *p, size_t nwords,
		   bool json, mt_fmt_sym sym, void *ctx)
{
	struct sink k = { out, cap };
	size_t n = nwords >= 2 ? (size_t)(p[1] & 0xffff) : 0;
	if (2 + n > nwords)
		n = nwords > 2 ? nwords - 2 : 0;
	if (a && n > na)
		n = na;
	const uint64_t *w = p + 2, *str = p + 2 + n, *end = p + nwords;
	emit(&k, json ? (a ? "{" : "[") : "(", 1);
	for (size_t i = 0; i < n; i++) {
		if (i)
			emit(&k, json ? "," : ", ", json ? 1 : 2);
		if (!a) {
			emitf(&k, json ? "\"0x%llx\"" : "0x%llx", (unsigned long long)w[i]);
			continue;
		}
		if (json)
			emitf(&k, "\"%s\":", a[i].name);
		else
			emitf(&k, "%s=", a[i].name);
		if (a[i].nowhere) {
			/* nowhere the hook can read at the site (gdb's words) */
			if (a[i].kind == MT_ARG_STR && str < end)
				str++;
			if (json)
				emit(&k, "null", 4);
			else
				emit(&k, "<optimized out>", 15);
		} else if (a[i].kind == MT_ARG_STR) {
			uint64_t len = str < end ? *str++ : MT_STR_FAULT;
			size_t bytes = (size_t)(len & 0xffff), words = (bytes + 7) / 8;
			unsigned char s[MT_STR_MAX];
			if (bytes > sizeof s || words > (size_t)(end - str)) {
				bytes = words = 0;
				len = MT_STR_FAULT;
			}
			for (size_t j = 0; j < bytes; j++)
				s[j] = (unsigned char)(str[j / 8] >> (8 * (j % 8)));
			str += words;
			emit_str(&k, s, bytes, len, json, w[i]);
		} else if (a[i].kind == MT_ARG_SYM && sym) {
			char hex[320];
			const char *name = sym(w[i], hex, sizeof hex, ctx);
			if (json)
				emit_str(&k, (const unsigned char *)name, strlen(name), 0, true, 0);
			else
				emit(&k, name, strlen(name));
		} else {
			emit_int(&k, &a[i], w[i], json);
		}
	}
	emit(&k, json ? (a ? "}" : "]") : ")", 1);
	return cap - k.left;
}

void mt_fmt_retval(char *out, size_t cap, uint64_t v)
{
	int64_t err = (v & 0x80000000u) && !(v >> 32) ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
	if (err < 0 && err >= -4095)
		snprintf(out, cap, "%lld", (long long)err);
	else
		snprintf(out, cap, "0x%llx", (unsigned long long)v);
}

char *mt_put_dec(char *p, uint64_t v, int width, char fill)
{
	char tmp[24];
	int n = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	for (int i = n; i < width; i++)
		*p++ = fill;
	while (n)
		*p++ = tmp[--n];
	return p;
}

size_t mt_fmt_duration(char *df, bool has, double seconds)
{
	if (!has) {
		memcpy(df, "               |", 16);
		return 16;
	}
	uint64_t ns = seconds > 0 ? (uint64_t)(seconds * 1e9 + 0.5) : 0;
	static const struct { uint64_t over; char mark; } marks[] = {
		{ 1000000000u, '$' }, { 100000000u, '@' }, { 10000000u, '*' },
		{ 1000000u, '#' }, { 100000u, '!' }, { 10000u, '+' },
	};
	char mark = ' ';
	for (size_t k = 0; k < sizeof marks / sizeof marks[0]; k++)
		if (ns > marks[k].over) {
			mark = marks[k].mark;
			break;
		}
	char num[32], frac[4];
	char *q = mt_put_dec(num, ns / 1000, 0, ' ');
	size_t il = (size_t)(q - num);
	if (il < 7) {
		mt_put_dec(frac, ns % 1000, 3, '0');
		size_t fd = 7 - il < 3 ? 7 - il : 3;
		*q++ = '.';
		memcpy(q, frac, fd);
		q += fd;
	}
	size_t nl = (size_t)(q - num), pad = nl < 8 ? 8 - nl : 0;
	char *d = df;
	*d++ = ' ';
	*d++ = mark;
	*d++ = ' ';
	memcpy(d, num, nl);
	d += nl;
	memcpy(d, " us ", 4);
	d += 4;
	memset(d, ' ', pad);
	d += pad;
	*d++ = '|';
	return (size_t)(d - df);
}
