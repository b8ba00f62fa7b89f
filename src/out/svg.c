// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The SVG flamegraph: every frame of the tree as a rectangle laid out
 * here (so the picture is there without scripts), a tooltip with its
 * samples, share and file:line, and an embedded script for zoom, search
 * and the details line. Colours say what a frame is (Ruby, C function,
 * native, GC, blocked or waiting...), varied by a hash of its name so
 * neighbours differ and the same profile gives the same bytes. In a
 * differential graph they say how a frame's share changed instead.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/flametree.h"
#include "rbflame/output.h"
#include "rbflame/svg.h"
#include "rbflame/utf8.h"
#include "rbflame/xmalloc.h"

#define IMAGE_WIDTH 1200
#define XPAD 10
#define FRAME_HEIGHT 16
#define FONT_SIZE 12
#define CHAR_WIDTH (FONT_SIZE * 0.59)	/* an average glyph, as drawn */
#define PLOT_TOP 84
#define BOTTOM_PAD 36
#define MIN_WIDTH 0.1	/* px: narrower frames are left out */
#define PLOT_WIDTH (IMAGE_WIDTH - 2 * XPAD)

struct ctx {
	const struct flametree *t;
	const struct svg_params *sp;
	FILE *f;
	uint64_t total;
	uint32_t height_depth;	/* deepest drawn depth */
	double max_delta;	/* diff: the largest change of share */
	size_t drawn, omitted;
};

/* utf8_len() without the two code points XML does not allow. */
static size_t
xml_utf8_len(const unsigned char *p, size_t n)
{
	uint32_t cp;
	size_t len = utf8_len(p, n, &cp);

	return cp == 0xfffe || cp == 0xffff ? 0 : len;
}

/*
 * Writes at most max characters of s as XML text: markup characters
 * escaped, control characters (not allowed in XML 1.0) as spaces, bytes
 * that are not UTF-8 as U+FFFD. Returns the characters written.
 */
static size_t
put_xml_n(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, chars = 0;

	while (i < n && chars < max) {
		size_t l = xml_utf8_len(p + i, n - i);

		chars++;
		if (l == 0) {
			fputs("\xef\xbf\xbd", f);
			i++;
			continue;
		}
		if (l > 1) {
			fwrite(p + i, 1, l, f);
			i += l;
			continue;
		}
		switch (p[i]) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			fputc(p[i] < 0x20 || p[i] == 0x7f ? ' ' : p[i], f);
		}
		i++;
	}
	return chars;
}

static void
put_xml(FILE *f, const char *s)
{
	put_xml_n(f, s, SIZE_MAX);
}

/* Characters (code points) in s, as a script counts them, roughly. */
static size_t
chars_of(const char *s)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		n += (*p & 0xc0) != 0x80;
	return n;
}

/* A number in 0..1 from a name, so colours vary but never by chance. */
static double
name_shade(const char *s)
{
	return (double)(intern_hash(s, strlen(s)) % 1000) / 1000.0;
}

static void
class_rgb(enum flametree_class c, double v, int rgb[3])
{
	static const struct {
		int base[3], span[3];
	} pal[FLAMETREE_CLASSES] = {
		[FLAMETREE_ROOTCLASS] = { { 215, 215, 215 }, { 0, 0, 0 } },
		[FLAMETREE_RUBY] = { { 215, 60, 40 }, { 35, 80, 30 } },
		[FLAMETREE_CFUNC] = { { 220, 190, 50 }, { 30, 50, 40 } },
		[FLAMETREE_NATIVE] = { { 80, 175, 190 }, { 50, 50, 50 } },
		[FLAMETREE_GC] = { { 160, 110, 215 }, { 40, 30, 35 } },
		[FLAMETREE_IDLE] = { { 140, 165, 200 }, { 30, 30, 30 } },
		[FLAMETREE_NOGVL] = { { 90, 190, 90 }, { 50, 40, 40 } },
		[FLAMETREE_THREAD] = { { 190, 190, 180 }, { 20, 20, 20 } },
		[FLAMETREE_MARKER] = { { 160, 160, 160 }, { 0, 0, 0 } },
		[FLAMETREE_OTHER] = { { 220, 120, 60 }, { 30, 90, 30 } },
	};

	if ((unsigned)c >= FLAMETREE_CLASSES)
		c = FLAMETREE_OTHER;
	for (int i = 0; i < 3; i++)
		rgb[i] = pal[c].base[i] + (int)(pal[c].span[i] * v);
}

static double
share(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

/* diff: how a node's share of all samples changed, in points. */
static double
delta_of(const struct ctx *c, const struct flametree_node *n)
{
	const struct flametree_node *r = &c->t->nodes[FLAMETREE_ROOT];

	return share(n->total[FLAMETREE_NEW], r->total[FLAMETREE_NEW]) -
	       share(n->total[FLAMETREE_BASE], r->total[FLAMETREE_BASE]);
}

static void
node_rgb(const struct ctx *c, const struct flametree_node *n, int rgb[3])
{
	if (c->sp->diff && n->depth > 0) {
		double d = delta_of(c, n);
		double v = c->max_delta > 0 ? (d < 0 ? -d : d) / c->max_delta
					    : 0;
		int fade = 235 - (int)(185 * v);

		rgb[0] = d > 0 ? 255 : fade;
		rgb[1] = fade;
		rgb[2] = d < 0 ? 255 : fade;
		return;
	}
	class_rgb(n->cls, name_shade(flametree_str(c->t, n->label)), rgb);
}

static double
node_y(const struct ctx *c, uint32_t depth)
{
	if (c->sp->icicle)
		return PLOT_TOP + (double)depth * FRAME_HEIGHT;
	return PLOT_TOP + (double)(c->height_depth - depth) * FRAME_HEIGHT;
}

static bool
wide_enough(const struct ctx *c, uint64_t n)
{
	return (double)n * PLOT_WIDTH / (double)c->total >= MIN_WIDTH;
}

/* The tooltip: text, samples and share, self, file:line, the change;
 * lines split by &#10;, so each frame stays on one line of the file. */
static void
put_title(const struct ctx *c, const struct flametree_node *n)
{
	const struct flametree *t = c->t;
	uint64_t tot = n->total[FLAMETREE_NEW], self = n->self[FLAMETREE_NEW];

	fputs("<title>", c->f);
	put_xml(c->f, flametree_str(t, n->text));
	fprintf(c->f, "&#10;%llu sample%s (%.2f%%), self %llu (%.2f%%)",
		(unsigned long long)tot, tot == 1 ? "" : "s",
		share(tot, c->total), (unsigned long long)self,
		share(self, c->total));
	/* Ruby frames' text carries file:line already. */
	if (n->file != PROFILE_NO_STR && n->depth > 0 && n->label == n->text) {
		fputs("&#10;", c->f);
		put_xml(c->f, flametree_str(t, n->file));
		if (n->line > 0)
			fprintf(c->f, ":%d", n->line);
	}
	if (n->depth > 0 && n->cls != FLAMETREE_OTHER)
		fprintf(c->f, "&#10;[%s]", flametree_class_name(n->cls));
	if (c->sp->diff && n->depth > 0) {
		const struct flametree_node *r = &t->nodes[FLAMETREE_ROOT];

		fprintf(c->f, "&#10;base %.2f%% -> new %.2f%% (%+.2f points)",
			share(n->total[FLAMETREE_BASE],
			      r->total[FLAMETREE_BASE]),
			share(tot, c->total), delta_of(c, n));
	}
	fputs("</title>", c->f);
}

/* One frame and, depth first, the frames above it; x0 in samples. */
static void
put_node(struct ctx *c, uint32_t id, uint64_t x0)
{
	const struct flametree *t = c->t;
	const struct flametree_node *n = &t->nodes[id];
	uint64_t w = n->total[FLAMETREE_NEW];
	double x = XPAD + (double)x0 * PLOT_WIDTH / (double)c->total;
	double wpx = (double)w * PLOT_WIDTH / (double)c->total;
	const char *label = flametree_str(t, n->label);
	size_t fit = wpx > 6 ? (size_t)((wpx - 6) / CHAR_WIDTH) : 0;
	size_t len = chars_of(label);
	int rgb[3];
	uint64_t cx = x0;

	node_rgb(c, n, rgb);
	fprintf(c->f, "<g class=\"f\" data-s=\"%llu\" data-n=\"%llu\" "
		"data-d=\"%u\"", (unsigned long long)x0,
		(unsigned long long)w, n->depth);
	if (len > fit) {
		fputs(" data-l=\"", c->f);
		put_xml(c->f, label);
		fputs("\"", c->f);
	}
	fputs(">", c->f);
	put_title(c, n);
	fprintf(c->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%d\" fill=\"rgb(%d,%d,%d)\"/>", x,
		node_y(c, n->depth), wpx, FRAME_HEIGHT - 1, rgb[0], rgb[1],
		rgb[2]);
	fprintf(c->f, "<text x=\"%.1f\" y=\"%.1f\">", x + 3,
		node_y(c, n->depth) + FRAME_HEIGHT - 4.5);
	/* The same rule as the script's: the label, cut with "..". */
	if (len <= fit)
		put_xml(c->f, label);
	else if (fit >= 3) {
		put_xml_n(c->f, label, fit - 2);
		fputs("..", c->f);
	}
	fputs("</text></g>\n", c->f);
	c->drawn++;
	for (uint32_t k = n->child; k != FLAMETREE_NONE;
	     k = t->nodes[k].next) {
		uint64_t kw = t->nodes[k].total[FLAMETREE_NEW];

		if (!kw)
			continue;	/* diff: only in the base */
		if (wide_enough(c, kw))
			put_node(c, k, cx);
		else
			c->omitted++;
		cx += kw;
	}
}

/* The deepest node wide enough to draw, and the largest change. */
static void
measure(struct ctx *c, uint32_t id)
{
	const struct flametree *t = c->t;
	const struct flametree_node *n = &t->nodes[id];

	if (n->depth > c->height_depth)
		c->height_depth = n->depth;
	if (c->sp->diff && id != FLAMETREE_ROOT) {
		double d = delta_of(c, n);

		if ((d < 0 ? -d : d) > c->max_delta)
			c->max_delta = d < 0 ? -d : d;
	}
	for (uint32_t k = n->child; k != FLAMETREE_NONE; k = t->nodes[k].next)
		if (t->nodes[k].total[FLAMETREE_NEW] &&
		    wide_enough(c, t->nodes[k].total[FLAMETREE_NEW]))
			measure(c, k);
}

static const char css[] =
	"<style type=\"text/css\"><![CDATA[\n"
	"text { font-family: Verdana, \"DejaVu Sans\", sans-serif; "
	"font-size: 12px; fill: #000; }\n"
	"#title { font-size: 17px; text-anchor: middle; }\n"
	"#subtitle { fill: #555; text-anchor: middle; }\n"
	".f text { pointer-events: none; }\n"
	".f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; }\n"
	".f.up rect { opacity: 0.55; }\n"
	".btn { cursor: pointer; fill: #036; }\n"
	".btn:hover { text-decoration: underline; }\n"
	"#unzoom { opacity: 0; }\n"
	"]]></style>\n";

/*
 * The script: frames keep their place in samples (data-s, data-n) and
 * depth (data-d); zooming to a frame redraws the frames inside it to the
 * full width and its ancestors across, and hides the rest. A search marks
 * the matching frames and shows the share of samples under them, each
 * sample counted once. "?s=REGEX" in the address searches on load,
 * "?z=REGEX" zooms to the first frame matching (a link to share). When
 * laid out it sets data-rbflame-ready on the root, which tests read.
 */
static const char script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"(function () {\n"
	"\"use strict\";\n"
	"var svg = document.documentElement, G = [], R = [], X = [], L = [],\n"
	"    F = [], TT = [], FILL = [], S = [], N = [], D = [], re = null;\n"
	"var details, matched, unzoom, searchBtn;\n"
	"function fit(i, w) {\n"
	"  var n = Math.floor((w - 6) / CW), l = L[i];\n"
	"  X[i].textContent = n < 3 && l.length > n ? \"\" :\n"
	"    l.length <= n ? l : l.substring(0, n - 2) + \"..\";\n"
	"}\n"
	"function place(i, x, w) {\n"
	"  if (w < 0) { G[i].style.display = \"none\"; return; }\n"
	"  G[i].style.display = \"\";\n"
	"  R[i].setAttribute(\"x\", x.toFixed(1));\n"
	"  R[i].setAttribute(\"width\", w.toFixed(1));\n"
	"  X[i].setAttribute(\"x\", (x + 3).toFixed(1));\n"
	"  fit(i, w);\n"
	"}\n"
	"function zoom(k) {\n"
	"  var zs = S[k], zn = N[k], zd = D[k], i;\n"
	"  for (i = 0; i < G.length; i++) {\n"
	"    G[i].classList.remove(\"up\");\n"
	"    if (D[i] < zd && S[i] <= zs && S[i] + N[i] >= zs + zn) {\n"
	"      place(i, XP, PW);\n"
	"      if (zd > 0) G[i].classList.add(\"up\");\n"
	"    } else if (D[i] >= zd && S[i] >= zs && S[i] + N[i] <= zs + zn) {\n"
	"      place(i, XP + (S[i] - zs) / zn * PW, N[i] / zn * PW);\n"
	"    } else {\n"
	"      place(i, 0, -1);\n"
	"    }\n"
	"  }\n"
	"  unzoom.style.opacity = zd > 0 ? 1 : 0;\n"
	"  svg.setAttribute(\"data-rbflame-zoom\", F[k]);\n"
	"}\n"
	"function search(r) {\n"
	"  var iv = [], hits = 0, sum = 0, end = -1, i;\n"
	"  re = r;\n"
	"  for (i = 0; i < G.length; i++) {\n"
	"    if (r && D[i] > 0 && r.test(F[i])) {\n"
	"      R[i].setAttribute(\"fill\", \"rgb(230,0,230)\");\n"
	"      iv.push([S[i], S[i] + N[i]]);\n"
	"      hits++;\n"
	"    } else {\n"
	"      R[i].setAttribute(\"fill\", FILL[i]);\n"
	"    }\n"
	"  }\n"
	"  iv.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
	"  for (i = 0; i < iv.length; i++) {\n"
	"    if (iv[i][1] <= end) continue;\n"
	"    sum += iv[i][1] - Math.max(iv[i][0], end);\n"
	"    end = iv[i][1];\n"
	"  }\n"
	"  var pct = TOTAL ? (100 * sum / TOTAL).toFixed(1) : \"0.0\";\n"
	"  matched.textContent = r ? \"Matched: \" + pct + \"% (\" + hits +\n"
	"    \" frames)\" : \"\";\n"
	"  searchBtn.textContent = r ? \"Reset Search\" : \"Search\";\n"
	"  if (r) svg.setAttribute(\"data-rbflame-matched\", pct);\n"
	"  else svg.removeAttribute(\"data-rbflame-matched\");\n"
	"}\n"
	"function ask() {\n"
	"  var s = window.prompt(\"Search frames (a regular expression):\", \"\");\n"
	"  if (!s) return;\n"
	"  try { search(new RegExp(s)); } catch (e) { window.alert(e.message); }\n"
	"}\n"
	"function frameOf(e) {\n"
	"  var g = e.target;\n"
	"  while (g && g !== svg && !(g.classList && g.classList.contains(\"f\")))\n"
	"    g = g.parentNode;\n"
	"  return g && g !== svg ? g : null;\n"
	"}\n"
	"function init() {\n"
	"  var gs = document.getElementsByClassName(\"f\"), i, q;\n"
	"  details = document.getElementById(\"details\");\n"
	"  matched = document.getElementById(\"matched\");\n"
	"  unzoom = document.getElementById(\"unzoom\");\n"
	"  searchBtn = document.getElementById(\"search\");\n"
	"  for (i = 0; i < gs.length; i++) {\n"
	"    var g = gs[i], t = g.getElementsByTagName(\"text\")[0];\n"
	"    G.push(g);\n"
	"    R.push(g.getElementsByTagName(\"rect\")[0]);\n"
	"    X.push(t);\n"
	"    L.push(g.getAttribute(\"data-l\") || t.textContent);\n"
	"    TT.push(g.getElementsByTagName(\"title\")[0].textContent);\n"
	"    F.push(TT[i].split(\"\\n\")[0]);\n"
	"    FILL.push(R[i].getAttribute(\"fill\"));\n"
	"    S.push(+g.getAttribute(\"data-s\"));\n"
	"    N.push(+g.getAttribute(\"data-n\"));\n"
	"    D.push(+g.getAttribute(\"data-d\"));\n"
	"    g.rbIndex = i;\n"
	"  }\n"
	"  svg.addEventListener(\"click\", function (e) {\n"
	"    var g = frameOf(e);\n"
	"    if (g) zoom(g.rbIndex);\n"
	"  });\n"
	"  svg.addEventListener(\"mouseover\", function (e) {\n"
	"    var g = frameOf(e);\n"
	"    details.textContent = g ? TT[g.rbIndex].replace(/\\n/g, \"; \") :\n"
	"      \" \";\n"
	"  });\n"
	"  unzoom.addEventListener(\"click\", function () { zoom(0); });\n"
	"  searchBtn.addEventListener(\"click\", function () {\n"
	"    if (re) search(null); else ask();\n"
	"  });\n"
	"  window.addEventListener(\"keydown\", function (e) {\n"
	"    if (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) &&\n"
	"        e.keyCode === 70)) {\n"
	"      e.preventDefault();\n"
	"      ask();\n"
	"    } else if (e.keyCode === 27) {\n"
	"      search(null);\n"
	"      if (G.length) zoom(0);\n"
	"    }\n"
	"  });\n"
	"  q = /[?&]s=([^&]*)/.exec(window.location.search);\n"
	"  if (q) {\n"
	"    try { search(new RegExp(decodeURIComponent(q[1]))); }\n"
	"    catch (e) { matched.textContent = e.message; }\n"
	"  }\n"
	"  q = /[?&]z=([^&]*)/.exec(window.location.search);\n"
	"  if (q) {\n"
	"    try {\n"
	"      var zr = new RegExp(decodeURIComponent(q[1]));\n"
	"      for (i = 0; i < G.length; i++)\n"
	"        if (D[i] > 0 && zr.test(F[i])) { zoom(i); break; }\n"
	"    } catch (e) { matched.textContent = e.message; }\n"
	"  }\n"
	"  svg.setAttribute(\"data-rbflame-ready\", String(G.length));\n"
	"}\n"
	"if (document.readyState === \"loading\")\n"
	"  window.addEventListener(\"load\", init);\n"
	"else\n"
	"  init();\n"
	"})();\n"
	"]]></script>\n";

/* A row of coloured squares naming the classes drawn, or the diff key. */
static void
put_legend(struct ctx *c, double y)
{
	bool seen[FLAMETREE_CLASSES] = { false };
	double x = XPAD;
	int rgb[3];

	if (c->sp->diff) {
		fprintf(c->f, "<rect x=\"%d\" y=\"%.1f\" width=\"12\" "
			"height=\"12\" fill=\"rgb(255,50,50)\"/><text "
			"x=\"%d\" y=\"%.1f\">grew</text>\n", XPAD, y - 10,
			XPAD + 16, y);
		fprintf(c->f, "<rect x=\"%d\" y=\"%.1f\" width=\"12\" "
			"height=\"12\" fill=\"rgb(50,50,255)\"/><text "
			"x=\"%d\" y=\"%.1f\">shrank (share of all samples, "
			"base to new; widths are the new profile)</text>\n",
			XPAD + 70, y - 10, XPAD + 86, y);
		return;
	}
	for (size_t i = 1; i < c->t->nnodes; i++)
		seen[c->t->nodes[i].cls] = true;
	for (int k = 1; k < FLAMETREE_CLASSES; k++) {
		const char *name = flametree_class_name(k);

		if (!seen[k])
			continue;
		class_rgb(k, 0.5, rgb);
		fprintf(c->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" "
			"height=\"12\" fill=\"rgb(%d,%d,%d)\"/><text "
			"x=\"%.1f\" y=\"%.1f\">%s</text>\n", x, y - 10,
			rgb[0], rgb[1], rgb[2], x + 16, y, name);
		x += 16 + strlen(name) * 7.2 + 16;
	}
}

int
svg_write(const struct flametree *t, const struct svg_params *sp, FILE *f)
{
	struct ctx c = { .t = t, .sp = sp, .f = f };
	const char *title = sp->title;
	int height;

	c.total = t->nodes[FLAMETREE_ROOT].total[FLAMETREE_NEW];
	if (!title)
		title = sp->diff     ? "Differential Flame Graph"
			: sp->icicle ? "Icicle Graph"
				     : "Flame Graph";
	if (c.total)
		measure(&c, FLAMETREE_ROOT);
	height = PLOT_TOP + (int)(c.height_depth + 1) * FRAME_HEIGHT +
		 BOTTOM_PAD;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" "
		"standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		IMAGE_WIDTH, height, IMAGE_WIDTH, height);
	fputs("<!-- Drawn by rbflame " PACKAGE_VERSION ". Click a frame to "
	      "zoom, Ctrl-F or Search to search, Escape to reset. -->\n", f);
	fputs("<defs><linearGradient id=\"bg\" y1=\"0\" y2=\"1\" x1=\"0\" "
	      "x2=\"0\"><stop stop-color=\"#eeeeee\" offset=\"5%\"/>"
	      "<stop stop-color=\"#eeeeb0\" offset=\"95%\"/>"
	      "</linearGradient></defs>\n", f);
	fputs(css, f);
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n"
		"var TOTAL = %llu, XP = %d, PW = %d, CW = %.2f;\n"
		"]]></script>\n", (unsigned long long)c.total, XPAD,
		PLOT_WIDTH, CHAR_WIDTH);
	fputs(script, f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		"fill=\"url(#bg)\"/>\n", IMAGE_WIDTH, height);
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"24\">", IMAGE_WIDTH / 2);
	put_xml(f, title);
	fputs("</text>\n", f);
	if (sp->subtitle) {
		fprintf(f, "<text id=\"subtitle\" x=\"%d\" y=\"44\">",
			IMAGE_WIDTH / 2);
		put_xml(f, sp->subtitle);
		fputs("</text>\n", f);
	}
	put_legend(&c, 68);
	fprintf(f, "<text id=\"unzoom\" class=\"btn\" x=\"%d\" y=\"24\">"
		"Reset Zoom</text>\n", XPAD);
	fprintf(f, "<text id=\"search\" class=\"btn\" x=\"%d\" y=\"24\">"
		"Search</text>\n", IMAGE_WIDTH - XPAD - 100);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", XPAD,
		height - 14);
	fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%d\"></text>\n",
		IMAGE_WIDTH - XPAD - 260, height - 14);
	if (!c.total)
		fprintf(f, "<text x=\"%d\" y=\"%d\">no samples</text>\n",
			XPAD, PLOT_TOP + 12);
	else
		put_node(&c, FLAMETREE_ROOT, 0);
	if (c.omitted)
		fprintf(f, "<!-- %zu frames narrower than %.1f px left out "
			"-->\n", c.omitted, MIN_WIDTH);
	fputs("</svg>\n", f);
	if (ferror(f)) {
		errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

/* "PID 123 'ruby x.rb', Ruby 3.1.2, wall mode, 99 Hz, 1234 samples". */
static char *
subtitle_of(const struct profile *p)
{
	const struct profile_meta *m = &p->meta;
	char buf[1024];
	size_t o = 0;

#define ADD(...)                                                        \
	do {                                                            \
		if (o < sizeof(buf))                                    \
			o += snprintf(buf + o, sizeof(buf) - o,         \
				      __VA_ARGS__);                     \
	} while (0)
	if (m->pid)
		ADD("PID %d, ", (int)m->pid);
	if (m->command)
		ADD("%.200s, ", m->command);
	if (m->ruby_version)
		ADD("Ruby %s, ", m->ruby_version);
	if (m->mode)
		ADD("%s mode, ", m->mode);
	if (p->stats.rate_hz > 0)
		ADD("%g Hz, ", p->stats.rate_hz);
	if (p->stats.duration_s > 0)
		ADD("%.1f s, ", p->stats.duration_s);
	ADD("%llu samples", (unsigned long long)profile_total(p));
#undef ADD
	return xstrdup(buf);
}

static int
svg_output(const struct profile *p, const struct output_opts *o, FILE *f)
{
	struct flametree *t = flametree_create();
	char *sub = subtitle_of(p);
	struct svg_params sp = {
		.title = o->title, .subtitle = sub, .icicle = o->icicle,
	};
	int ret;

	flametree_add(t, p, FLAMETREE_NEW);
	flametree_sort(t);
	ret = svg_write(t, &sp, f);
	free(sub);
	flametree_destroy(t);
	return ret;
}

const struct output_ops output_svg = {
	.name = "svg",
	.description = "flamegraph: one self-contained SVG file to open in "
		       "a browser",
	.write_opts = svg_output,
	.stacks_only = true,
	.suffixes = (const char *const[]){ ".svg", NULL },
};
