/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flame.c - a flame graph of the call tree (graph.c): one SVG file
 * that needs nothing else (or an HTML page around it), or the folded
 * stacks that flamegraph.pl, inferno and speedscope read.  A frame's
 * width is its calls' time (self time summed up its subtree) in a
 * function_graph recording, else its calls and those under it; the
 * folded stacks' counts are the self time in ns, or the calls. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"

#define WIDTH 1200                    /* the image's, px */
#define SIDE 10                       /* its margins */
#define FRAME 16                      /* a frame's height */
#define TOP 52                        /* above the frames: the heading */
#define BOTTOM 16
#define CHAR 7.2                      /* a character of 12px monospace, px (at most) */
#define MIN_PX 0.1                    /* narrower frames are not drawn */

struct flame {
	FILE *out;
	bool timed;
	uint64_t total;
	unsigned maxdepth;
	char **path;                  /* the folded stack's names */
	size_t npath, cap;
};

static uint64_t own(const struct flame *fl, const struct gnode *n)
{
	return fl->timed ? (n->self > 0 ? (uint64_t)n->self : 0) : n->calls;
}

static uint64_t weigh(const struct flame *fl, struct gnode *n)
{
	n->value = own(fl, n);
	for (struct gnode *k = n->kid; k; k = k->next)
		n->value += weigh(fl, k);
	return n->value;
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct gnode *const *)a)->name, (*(struct gnode *const *)b)->name);
}

/* n's children by name (as flame graphs order them); free it */
static struct gnode **sorted_kids(const struct gnode *n)
{
	struct gnode **v = xmalloc((n->nkids ? n->nkids : 1) * sizeof *v);
	size_t i = 0;
	for (struct gnode *k = n->kid; k; k = k->next)
		v[i++] = k;
	qsort(v, n->nkids, sizeof *v, by_name);
	return v;
}

/* ---- folded stacks ---- */

static void folded(struct flame *fl, const struct gnode *n)
{
	if (fl->npath == fl->cap)
		fl->path = xrealloc(fl->path, (fl->cap = fl->cap ? 2 * fl->cap : 64) * sizeof *fl->path);
	fl->path[fl->npath++] = n->name;
	uint64_t v = own(fl, n);
	if (v) {
		for (size_t i = 0; i < fl->npath; i++) {
			if (i)
				fputc(';', fl->out);
			/* (a ';' of a name would split its frame) */
			for (const char *s = fl->path[i]; *s; s++)
				fputc(*s == ';' ? ':' : *s, fl->out);
		}
		fprintf(fl->out, " %llu\n", (unsigned long long)v);
	}
	struct gnode **kid = sorted_kids(n);
	for (size_t i = 0; i < n->nkids; i++)
		folded(fl, kid[i]);
	free(kid);
	fl->npath--;
}

/* ---- SVG ---- */

/* The length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	if (!n || (n == 2 && s[0] < 0xc2) || (n == 4 && s[0] > 0xf4))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* The first chars characters of s (all: SIZE_MAX) as XML text: markup
 * escaped, a byte that is not UTF-8 or a control character as '?'. */
static void xml(FILE *f, const char *s, size_t chars)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t c = 0; *u && c < chars; c++) {
		size_t n = utf8_len(u);
		if (!n || *u < 0x20) {
			fputc('?', f);
			u += n ? n : 1;
			continue;
		}
		switch (*u) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fwrite(u, 1, n, f);
		}
		u += n;
	}
}

static size_t chars_of(const char *s)
{
	size_t c = 0;
	for (const unsigned char *u = (const unsigned char *)s; *u; c++) {
		size_t n = utf8_len(u);
		u += n ? n : 1;
	}
	return c;
}

/* a hot colour (red to yellow) of the name's own */
static void colour(const char *s, unsigned rgb[3])
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	rgb[0] = 205 + h % 51;
	rgb[1] = (h >> 8) % 231;
	rgb[2] = (h >> 20) % 56;
}

static unsigned depth_of(const struct gnode *n, unsigned d, uint64_t total)
{
	unsigned m = d;
	for (const struct gnode *k = n->kid; k; k = k->next)
		if (k->value && (double)k->value / total * (WIDTH - 2 * SIDE) >= MIN_PX) {
			unsigned e = depth_of(k, d + 1, total);
			if (e > m)
				m = e;
		}
	return m;
}

static void frame(struct flame *fl, const struct gnode *n, const char *name, unsigned depth, uint64_t at,
		  unsigned height)
{
	double fx = (double)at / fl->total, fw = (double)n->value / fl->total;
	double x = SIDE + fx * (WIDTH - 2 * SIDE), w = fw * (WIDTH - 2 * SIDE);
	if (w < MIN_PX)
		return;
	double y = height - BOTTOM - (depth + 1) * FRAME;
	unsigned rgb[3];
	colour(name, rgb);
	char v[48];
	if (fl->timed)
		time_text(v, sizeof v, (int64_t)n->value);
	else
		snprintf(v, sizeof v, "%llu call%s", (unsigned long long)n->value, n->value == 1 ? "" : "s");
	FILE *f = fl->out;
	fprintf(f, "<g class=\"f\" data-x=\"%.9f\" data-w=\"%.9f\" data-d=\"%u\" data-n=\"", fx, fw, depth);
	xml(f, name, SIZE_MAX);
	fputs("\"><title>", f);
	xml(f, name, SIZE_MAX);
	fprintf(f, ": %s, %.2f%%", v, 100.0 * n->value / fl->total);
	if (depth)
		fprintf(f, " (called %llu time%s)", (unsigned long long)n->calls, n->calls == 1 ? "" : "s");
	fprintf(f, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" rx=\"2\" fill=\"rgb(%u,%u,%u)\"/>",
		x, y, w, FRAME - 1, rgb[0], rgb[1], rgb[2]);
	fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + 11.5);
	long fit = (long)((w - 6) / CHAR);
	size_t len = chars_of(name);
	if (fit >= 0 && len <= (size_t)fit)
		xml(f, name, SIZE_MAX);
	else if (fit >= 3) {
		xml(f, name, (size_t)fit - 2);
		fputs("..", f);
	}
	fputs("</text></g>\n", f);
	struct gnode **kid = sorted_kids(n);
	for (size_t i = 0; i < n->nkids; i++) {
		frame(fl, kid[i], kid[i]->name, depth + 1, at, height);
		at += kid[i]->value;
	}
	free(kid);
}

static const char script[] =
	"(function () {\n"
	"var W = %d, L = %d, fs = document.querySelectorAll('g.f');\n"
	"function fit(g, w) {\n"
	"  var n = g.getAttribute('data-n'), k = Math.floor((w - 6) / %.1f);\n"
	"  g.querySelector('text').textContent = n.length <= k ? n : k >= 3 ? n.slice(0, k - 2) + '..' : '';\n"
	"}\n"
	"function zoom(z) {\n"
	"  var zx = +z.getAttribute('data-x'), zw = +z.getAttribute('data-w'), zd = +z.getAttribute('data-d'), e = 1e-9;\n"
	"  for (var i = 0; i < fs.length; i++) {\n"
	"    var g = fs[i], x = +g.getAttribute('data-x'), w = +g.getAttribute('data-w'), d = +g.getAttribute('data-d');\n"
	"    var show = d < zd ? x <= zx + e && x + w >= zx + zw - e : x >= zx - e && x + w <= zx + zw + e;\n"
	"    g.style.display = show ? '' : 'none';\n"
	"    if (!show) continue;\n"
	"    var px = L + (d < zd ? 0 : (x - zx) / zw) * W, pw = (d < zd ? 1 : w / zw) * W;\n"
	"    var r = g.querySelector('rect');\n"
	"    r.setAttribute('x', px);\n"
	"    r.setAttribute('width', pw);\n"
	"    g.querySelector('text').setAttribute('x', px + 3);\n"
	"    fit(g, pw);\n"
	"  }\n"
	"}\n"
	"for (var i = 0; i < fs.length; i++) fs[i].addEventListener('click', function () { zoom(this); });\n"
	"})();\n";

static void svg(struct flame *fl, struct gnode *root, const char *program, bool html, uint64_t deep)
{
	FILE *f = fl->out;
	unsigned depth = fl->total ? depth_of(root, 0, fl->total) : 0;
	unsigned height = TOP + (depth + 1) * FRAME + BOTTOM;
	if (html) {
		fputs("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>flame graph of ", f);
		xml(f, program, SIZE_MAX);
		fputs("</title>\n</head>\n<body style=\"margin:0\">\n", f);
	} else {
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", f);
	}
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%u\" "
		"viewBox=\"0 0 %d %u\">\n", WIDTH, height, WIDTH, height);
	fputs("<style>\n"
	      "text { font: 12px monospace; fill: #000; }\n"
	      "g.f text { pointer-events: none; }\n"
	      "g.f { cursor: pointer; }\n"
	      "g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	      "</style>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%u\" fill=\"#f8f8f0\"/>\n", WIDTH, height);
	fprintf(f, "<text x=\"%d\" y=\"22\" text-anchor=\"middle\" style=\"font-size:16px\">flame graph of ", WIDTH / 2);
	xml(f, program, SIZE_MAX);
	fputs("</text>\n", f);
	fprintf(f, "<text x=\"%d\" y=\"40\" text-anchor=\"middle\">%s (a click zooms to a frame, on all: back)</text>\n",
		WIDTH / 2, fl->timed ? "a frame's width: the time of its calls" : "a frame's width: its calls and those over it");
	if (deep)
		fprintf(f, "<text x=\"%d\" y=\"%u\">%llu calls more than %d calls deep: not shown</text>\n", SIDE,
			height - 3, (unsigned long long)deep, GRAPH_DEPTH);
	if (fl->total)
		frame(fl, root, "all", 0, 0, height);
	else
		fprintf(f, "<text x=\"%d\" y=\"%u\">no call recorded</text>\n", SIDE, height - BOTTOM - 4);
	fputs("<script type=\"text/ecmascript\"><![CDATA[\n", f);
	fprintf(f, script, WIDTH - 2 * SIDE, SIDE, CHAR);
	fputs("]]></script>\n</svg>\n", f);
	if (html)
		fputs("</body>\n</html>\n", f);
}

void flame(struct proc *ps, size_t np, enum flame_fmt fmt, FILE *out)
{
	struct gtree g;
	gtree_build(&g, ps, np, NULL, false);
	struct flame fl = { .out = out, .timed = g.timed };
	fl.total = weigh(&fl, &g.root);
	if (fmt == FLAME_FOLDED) {
		struct gnode **kid = sorted_kids(&g.root);
		for (size_t i = 0; i < g.root.nkids; i++)
			folded(&fl, kid[i]);
		free(kid);
	} else {
		const char *prog = np && ps[0].program ? ps[0].program : "?", *s = strrchr(prog, '/');
		svg(&fl, &g.root, s ? s + 1 : prog, fmt == FLAME_HTML, g.deep);
	}
	free(fl.path);
	gtree_free(&g);
}
