/* SPDX-License-Identifier: MIT */
/* Cell grid, sanitised text with libunistring widths, text dumps. */
#include "canvas.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistr.h>
#include <uniwidth.h>

#include "sanitize.h"
#include "sbuf.h"
#include "xalloc.h"

#define ELLIPSIS 0x2026

void canvas_init(struct canvas *cv, int w, int h)
{
	cv->w = cv->h = 0;
	cv->c = NULL;
	canvas_resize(cv, w, h);
}

void canvas_free(struct canvas *cv)
{
	free(cv->c);
	cv->c = NULL;
	cv->w = cv->h = 0;
}

void canvas_resize(struct canvas *cv, int w, int h)
{
	if (w < 1)
		w = 1;
	if (h < 1)
		h = 1;
	free(cv->c);
	cv->w = w;
	cv->h = h;
	cv->c = xmalloc((size_t)w * (size_t)h * sizeof *cv->c);
	canvas_clear(cv);
}

void canvas_clear(struct canvas *cv)
{
	for (int i = 0; i < cv->w * cv->h; i++)
		cv->c[i] = (struct cell){' ', ST_NORMAL, 1};
}

static struct cell *at(struct canvas *cv, int x, int y)
{
	if (x < 0 || y < 0 || x >= cv->w || y >= cv->h)
		return NULL;
	return &cv->c[y * cv->w + x];
}

/* Writing over half of a wide character blanks its other half. */
static void unsplit(struct canvas *cv, int x, int y)
{
	struct cell *c = at(cv, x, y);
	if (!c)
		return;
	if (c->ch == 0) {
		struct cell *l = at(cv, x - 1, y);
		if (l)
			*l = (struct cell){' ', l->style, 1};
	} else if (c->width == 2) {
		struct cell *r = at(cv, x + 1, y);
		if (r)
			*r = (struct cell){' ', c->style, 1};
	}
}

void canvas_set(struct canvas *cv, int x, int y, uint32_t ch, enum style st)
{
	struct cell *c = at(cv, x, y);
	if (!c)
		return;
	unsplit(cv, x, y);
	*c = (struct cell){ch, (uint8_t)st, 1};
}

static void set_wide(struct canvas *cv, int x, int y, uint32_t ch, enum style st)
{
	struct cell *c = at(cv, x, y), *r = at(cv, x + 1, y);
	if (!c || !r)
		return;
	unsplit(cv, x, y);
	unsplit(cv, x + 1, y);
	*c = (struct cell){ch, (uint8_t)st, 2};
	*r = (struct cell){0, (uint8_t)st, 0};
}

void canvas_fill(struct canvas *cv, int x, int y, int w, int h, uint32_t ch, enum style st)
{
	for (int j = y; j < y + h; j++)
		for (int i = x; i < x + w; i++)
			canvas_set(cv, i, j, ch, st);
}

void canvas_restyle(struct canvas *cv, int x, int y, int w, enum style st)
{
	for (int i = x; i < x + w; i++) {
		struct cell *c = at(cv, i, y);
		if (c)
			c->style = (uint8_t)st;
	}
}

/* Decodes the next displayable unit of s: a code point to show, or an escape text. */
struct unit {
	uint32_t cp;      /* when esc is empty */
	char esc[16];     /* the visible escape for an unsafe code point or byte */
	int width;
	size_t len;       /* bytes consumed */
};

static void next_unit(const uint8_t *p, const uint8_t *end, struct unit *u)
{
	u->esc[0] = '\0';
	ucs4_t uc;
	int n = u8_mbtoucr(&uc, p, (size_t)(end - p));
	if (n < 0) {
		snprintf(u->esc, sizeof u->esc, "\\x%02X", *p);
		u->len = 1;
		u->width = 4;
		return;
	}
	u->len = (size_t)n;
	if (sanitize_unsafe_codepoint(uc)) {
		struct sbuf sb = SBUF_INIT;
		sanitize_append(&sb, (const char *)p, (size_t)n);
		snprintf(u->esc, sizeof u->esc, "%s", sbuf_str(&sb));
		sbuf_free(&sb);
		u->width = (int)strlen(u->esc);
		return;
	}
	u->cp = uc;
	int w = uc_width(uc, "UTF-8");
	u->width = w < 0 ? 1 : w; /* unassigned: one cell */
}

static int width_n(const char *s, size_t len)
{
	const uint8_t *p = (const uint8_t *)s, *end = p + len;
	int w = 0;
	while (p < end) {
		struct unit u;
		next_unit(p, end, &u);
		w += u.width;
		p += u.len;
	}
	return w;
}

int canvas_textn(struct canvas *cv, int x, int y, int maxw, enum style st, const char *s, size_t len)
{
	if (maxw <= 0 || y < 0 || y >= cv->h)
		return 0;
	/* too wide: keep one column for the ellipsis */
	int limit = width_n(s, len) > maxw ? maxw - 1 : maxw;
	const uint8_t *p = (const uint8_t *)s, *end = p + len;
	int col = 0;
	while (p < end) {
		struct unit u;
		next_unit(p, end, &u);
		if (col + u.width > limit)
			break;
		if (u.esc[0]) {
			for (int i = 0; u.esc[i]; i++)
				canvas_set(cv, x + col + i, y, (unsigned char)u.esc[i], st);
		} else if (u.width == 2) {
			set_wide(cv, x + col, y, u.cp, st);
		} else if (u.width == 1) {
			canvas_set(cv, x + col, y, u.cp, st);
		} /* width 0 (combining marks) are dropped: their base stays */
		col += u.width;
		p += u.len;
	}
	if (limit < maxw) {
		canvas_set(cv, x + col, y, ELLIPSIS, st);
		col++;
	}
	return col;
}

int canvas_text(struct canvas *cv, int x, int y, int maxw, enum style st, const char *s)
{
	return canvas_textn(cv, x, y, maxw, st, s, strlen(s));
}

int canvas_textf(struct canvas *cv, int x, int y, int maxw, enum style st, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return canvas_text(cv, x, y, maxw, st, buf);
}

int canvas_width(const char *s) { return width_n(s, strlen(s)); }

size_t canvas_byte_at(const char *s, int col)
{
	const uint8_t *p = (const uint8_t *)s, *end = p + strlen(s);
	int w = 0;
	while (p < end && w < col) {
		struct unit u;
		next_unit(p, end, &u);
		w += u.width;
		p += u.len;
	}
	return (size_t)(p - (const uint8_t *)s);
}

/* Where a line may end: after a space, comma or semicolon (2), else inside a name (1);
 * canvas_wrap also ends a line after any wide (CJK) character (2). */
static int wrap_break(uint8_t c)
{
	return c == ' ' || c == ',' || c == ';' ? 2 : c == '/' || c == '_' || c == ':' ? 1 : 0;
}

int canvas_wrap(struct canvas *cv, int x, int y, int w, int max_lines, enum style st, const char *s)
{
	const uint8_t *p = (const uint8_t *)s, *end = p + strlen(s);
	int lines = 0;
	if (w <= 0)
		return 0;
	while (p < end && (max_lines <= 0 || lines < max_lines)) {
		/* the longest run that fits, then back to its last break when there is one */
		const uint8_t *q = p, *brk[3] = {NULL, NULL, NULL};
		int col = 0;
		while (q < end) {
			struct unit u;
			next_unit(q, end, &u);
			if (col + u.width > w)
				break;
			col += u.width;
			q += u.len;
			if (col * 3 > w) /* CJK text has no spaces: a line may end after any wide character */
				brk[u.width == 2 ? 2 : wrap_break(q[-1])] = q;
		}
		if (q < end && (brk[2] || brk[1]))
			q = brk[2] ? brk[2] : brk[1];
		if (q == p) { /* a character wider than the line */
			struct unit u;
			next_unit(p, end, &u);
			q = p + u.len;
		}
		bool last = max_lines > 0 && lines + 1 == max_lines && q < end;
		if (cv)
			canvas_textn(cv, x, y + lines, w, st, (const char *)p, last ? (size_t)(end - p) : (size_t)(q - p));
		lines++;
		p = q;
		while (p < end && *p == ' ')
			p++;
	}
	return lines;
}

void canvas_text_right(struct canvas *cv, int x, int y, int w, enum style st, const char *s)
{
	int tw = canvas_width(s);
	if (tw > w)
		canvas_text(cv, x, y, w, st, s);
	else
		canvas_text(cv, x + w - tw, y, tw, st, s);
}

char *canvas_dump(const struct canvas *cv)
{
	struct sbuf sb = SBUF_INIT;
	char enc[8];
	for (int y = 0; y < cv->h; y++) {
		size_t line_start = sb.len, last_non_space = sb.len;
		for (int x = 0; x < cv->w; x++) {
			const struct cell *c = &cv->c[y * cv->w + x];
			if (c->ch == 0)
				continue; /* the right half of a wide character */
			int n = u8_uctomb((uint8_t *)enc, c->ch, sizeof enc);
			if (n <= 0) {
				enc[0] = '?';
				n = 1;
			}
			sbuf_add(&sb, enc, (size_t)n);
			if (c->ch != ' ')
				last_non_space = sb.len;
		}
		(void)line_start;
		sb.len = last_non_space;
		sbuf_addc(&sb, '\n');
	}
	return sbuf_detach(&sb);
}
