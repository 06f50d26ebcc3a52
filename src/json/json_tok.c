/* SPDX-License-Identifier: MIT */
/* The jsmn implementation lives here (header-only library), plus token helpers. */
#undef JSMN_HEADER
#define JSMN_STRICT
#define JSMN_PARENT_LINKS /* as json_tok.h says */
#include <jsmn.h>
#define JSMN_HEADER
#include "json_tok.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

#define JTOK_STR_(x) #x
#define JTOK_STR(x) JTOK_STR_(x)

void jtok_init(struct jtok *jt)
{
	jt->cap = 64;
	jt->t = xmalloc(jt->cap * sizeof *jt->t);
	jt->n = 0;
}

void jtok_free(struct jtok *jt)
{
	free(jt->t);
	jt->t = NULL;
	jt->cap = 0;
	jt->n = 0;
}

/* The end of the string whose opening quote is at p (the byte after its closing quote,
 * or end). */
static const char *string_end(const char *p, const char *end)
{
	for (p++; p < end;) {
		const char *q = memchr(p, '"', (size_t)(end - p));
		if (!q)
			return end;
		size_t bs = 0;
		while (q - bs > p && q[-1 - (ptrdiff_t)bs] == '\\')
			bs++;
		if (bs % 2 == 0)
			return q + 1;
		p = q + 1;
	}
	return end;
}

int jtok_depth(const char *js, size_t len, int limit)
{
	const char *p = js, *end = js + len;
	int depth = 0, max = 0;
	while (p < end) {
		char c = *p;
		if (c == '"') {
			p = string_end(p, end);
			continue;
		}
		if (c == '[' || c == '{') {
			if (++depth > max && (max = depth) > limit)
				return max;
		} else if ((c == ']' || c == '}') && depth > 0) {
			depth--;
		}
		p++;
	}
	return max;
}

size_t jtok_flatten_deep(char *js, size_t len, int keep)
{
	char *p = js, *end = js + len;
	int depth = 0;
	size_t n = 0;
	while (p < end) {
		char c = *p;
		if (c == '"') {
			p = (char *)string_end(p, end);
			continue;
		}
		if (c == '[' || c == '{') {
			if (++depth > keep) {
				/* to its matching bracket, then a 0 and spaces in its place */
				char *q = p + 1;
				int d = 1;
				while (q < end && d > 0) {
					if (*q == '"') {
						q = (char *)string_end(q, end);
						continue;
					}
					if (*q == '[' || *q == '{')
						d++;
					else if (*q == ']' || *q == '}')
						d--;
					q++;
				}
				*p = '0';
				memset(p + 1, ' ', (size_t)(q - p - 1));
				n++;
				depth--;
				p = q;
				continue;
			}
		} else if ((c == ']' || c == '}') && depth > 0) {
			depth--;
		}
		p++;
	}
	return n;
}

int jtok_parse(struct jtok *jt, const char *js, size_t len)
{
	if (jtok_depth(js, len, JTOK_MAX_DEPTH) > JTOK_MAX_DEPTH) {
		jt->n = 0;
		return JTOK_ERROR_DEPTH;
	}
	for (;;) {
		jsmn_parser p;
		jsmn_init(&p);
		int r = jsmn_parse(&p, js, len, jt->t, jt->cap);
		if (r != JSMN_ERROR_NOMEM) {
			jt->n = r < 0 ? 0 : r;
			return r;
		}
		if (jt->cap >= JTOK_MAX_TOKENS)
			return JSMN_ERROR_NOMEM;
		/* jsmn counts without a token array in one pass: size the array once rather
		 * than parse again at every growth (a count that fails leaves the error to
		 * the parse, which finds it where it always did) */
		jsmn_init(&p);
		int count = jsmn_parse(&p, js, len, NULL, 0);
		unsigned int want = jt->cap * 4;
		if (count > JTOK_MAX_TOKENS)
			return JSMN_ERROR_NOMEM;
		if (count > 0 && (unsigned int)count > want)
			want = (unsigned int)count;
		jt->cap = want > JTOK_MAX_TOKENS ? JTOK_MAX_TOKENS : want;
		jt->t = xrealloc(jt->t, jt->cap * sizeof *jt->t);
	}
}

int jtok_skip(const struct jtok *jt, int i)
{
	int pending = 1;
	while (pending > 0 && i < jt->n) {
		pending += jt->t[i].size - 1;
		i++;
	}
	return i;
}

bool jtok_eq(const char *js, const jsmntok_t *t, const char *s)
{
	size_t n = strlen(s);
	return (size_t)(t->end - t->start) == n && memcmp(js + t->start, s, n) == 0;
}

int jtok_obj_get(const struct jtok *jt, const char *js, int obj, const char *key)
{
	if (obj < 0 || obj >= jt->n || jt->t[obj].type != JSMN_OBJECT)
		return -1;
	int nkeys = jt->t[obj].size;
	int i = obj + 1;
	for (int k = 0; k < nkeys && i < jt->n; k++) {
		if (jt->t[i].type == JSMN_STRING && jtok_eq(js, &jt->t[i], key))
			return i + 1 < jt->n ? i + 1 : -1;
		i = jtok_skip(jt, i + 1);
	}
	return -1;
}

bool jtok_has_escape(const char *js, const jsmntok_t *t)
{
	return t->type == JSMN_STRING && memchr(js + t->start, '\\', (size_t)(t->end - t->start));
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static long read_hex4(const char *p, const char *end)
{
	if (end - p < 4)
		return -1;
	long v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(p[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

static void put_utf8(struct sbuf *out, unsigned long cp)
{
	char b[4];
	if (cp < 0x80) {
		b[0] = (char)cp;
		sbuf_add(out, b, 1);
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3F));
		sbuf_add(out, b, 2);
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F));
		sbuf_add(out, b, 3);
	} else {
		b[0] = (char)(0xF0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (char)(0x80 | (cp & 0x3F));
		sbuf_add(out, b, 4);
	}
}

void jtok_unescape(const char *js, const jsmntok_t *t, struct sbuf *out)
{
	if (t->type != JSMN_STRING) {
		sbuf_add(out, js + t->start, (size_t)(t->end - t->start));
		return;
	}
	json_unescape(js + t->start, (size_t)(t->end - t->start), out);
}

void json_unescape(const char *s, size_t len, struct sbuf *out)
{
	const char *p = s, *end = s + len;
	while (p < end) {
		const char *bs = memchr(p, '\\', (size_t)(end - p));
		if (!bs) {
			sbuf_add(out, p, (size_t)(end - p));
			return;
		}
		sbuf_add(out, p, (size_t)(bs - p));
		p = bs + 1;
		if (p >= end)
			return;
		char c = *p++;
		switch (c) {
		case 'n': sbuf_addc(out, '\n'); break;
		case 'r': sbuf_addc(out, '\r'); break;
		case 't': sbuf_addc(out, '\t'); break;
		case 'b': sbuf_addc(out, '\b'); break;
		case 'f': sbuf_addc(out, '\f'); break;
		case 'u': {
			long cp = read_hex4(p, end);
			if (cp < 0) {
				sbuf_add(out, "\\u", 2);
				break;
			}
			p += 4;
			if (cp >= 0xD800 && cp <= 0xDBFF && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
				long lo = read_hex4(p + 2, end);
				if (lo >= 0xDC00 && lo <= 0xDFFF) {
					p += 6;
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				}
			}
			if (cp >= 0xD800 && cp <= 0xDFFF)
				cp = 0xFFFD; /* a lone surrogate has no UTF-8 form */
			put_utf8(out, (unsigned long)cp);
			break;
		}
		default: sbuf_addc(out, c); break; /* \" \\ \/ */
		}
	}
}

const char *jtok_error_name(int err)
{
	switch (err) {
	case JSMN_ERROR_NOMEM: return "too deeply nested or too many values";
	case JSMN_ERROR_INVAL: return "invalid JSON";
	case JSMN_ERROR_PART: return "incomplete JSON";
	case JTOK_ERROR_DEPTH: return "nested more than " JTOK_STR(JTOK_MAX_DEPTH) " deep";
	default: return "JSON error";
	}
}
