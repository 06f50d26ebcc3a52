/* SPDX-License-Identifier: MIT */
/* Streaming JSON output with strict escaping. */
#include "jsonw.h"

#include <math.h>
#include <string.h>
#include <unistr.h>

#include "sanitize.h"

/* One writer per stream, on one thread: the unlocked calls spare a lock per character
 * (the lock was the larger part of writing a report of digests). */
#define fputc putc_unlocked
#define fputs fputs_unlocked
#define fwrite fwrite_unlocked

void jsonw_init(struct jsonw *w, FILE *out, bool pretty)
{
	memset(w, 0, sizeof *w);
	w->out = out;
	w->pretty = pretty;
}

static void newline(struct jsonw *w)
{
	if (!w->pretty)
		return;
	static const char indent[] = "\n                                                                "
				     "                                                                ";
	fwrite(indent, 1, 1 + 2 * (size_t)w->depth, w->out); /* depth < JSONW_MAX_DEPTH: 2 x 64 fit */
}

/* Separator and indentation before a value or key. */
static void before_item(struct jsonw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth > 0) {
		if (w->need_comma[w->depth])
			fputc(',', w->out);
		w->need_comma[w->depth] = true;
		newline(w);
	}
}

static void open_container(struct jsonw *w, char c)
{
	before_item(w);
	fputc(c, w->out);
	if (w->depth < JSONW_MAX_DEPTH - 1)
		w->depth++;
	w->need_comma[w->depth] = false;
}

static void close_container(struct jsonw *w, char c)
{
	bool had_items = w->need_comma[w->depth];
	if (w->depth > 0)
		w->depth--;
	if (had_items)
		newline(w);
	fputc(c, w->out);
}

void jsonw_obj_begin(struct jsonw *w) { open_container(w, '{'); }
void jsonw_obj_end(struct jsonw *w) { close_container(w, '}'); }
void jsonw_arr_begin(struct jsonw *w) { open_container(w, '['); }
void jsonw_arr_end(struct jsonw *w) { close_container(w, ']'); }

/* Where escaped text goes: a FILE (the writers) or a string (a reader that builds JSON in
 * memory, db_args.c): one escaping for both. */
struct esc_sink {
	FILE *f;
	struct sbuf *sb;
};

static void sink_put(const struct esc_sink *k, const void *p, size_t n)
{
	if (k->f)
		fwrite(p, 1, n, k->f);
	else
		sbuf_add(k->sb, p, n);
}

static void escape_into(const struct esc_sink *k, const char *s, size_t len)
{
	const uint8_t *p = (const uint8_t *)s, *end = p + len;
	char tmp[16];
	while (p < end) {
		uint8_t c = *p;
		if (c >= 0x20 && c < 0x7f) {
			/* a run of plain ASCII in one write */
			const uint8_t *q = p;
			while (q < end && *q >= 0x20 && *q < 0x7f && *q != '"' && *q != '\\')
				q++;
			if (q > p) {
				sink_put(k, p, (size_t)(q - p));
				p = q;
				continue;
			}
			tmp[0] = '\\';
			tmp[1] = (char)c;
			sink_put(k, tmp, 2);
			p++;
			continue;
		}
		ucs4_t uc;
		int n = u8_mbtoucr(&uc, p, (size_t)(end - p));
		if (n < 0) {
			snprintf(tmp, sizeof tmp, "\\\\x%02X", c); /* the text \xNN, as the TUI shows it */
			sink_put(k, tmp, strlen(tmp));
			p++;
			continue;
		}
		switch (uc) {
		case '\n': sink_put(k, "\\n", 2); break;
		case '\r': sink_put(k, "\\r", 2); break;
		case '\t': sink_put(k, "\\t", 2); break;
		default:
			if (sanitize_unsafe_codepoint(uc)) {
				snprintf(tmp, sizeof tmp, "\\u%04x", (unsigned)uc);
				sink_put(k, tmp, strlen(tmp));
			} else {
				sink_put(k, p, (size_t)n);
			}
		}
		p += n;
	}
}

void jsonw_escape(FILE *out, const char *s, size_t len)
{
	const struct esc_sink k = {.f = out};
	escape_into(&k, s, len);
}

void jsonw_escape_sbuf(struct sbuf *sb, const char *s, size_t len)
{
	const struct esc_sink k = {.sb = sb};
	escape_into(&k, s, len);
}

void jsonw_key(struct jsonw *w, const char *key)
{
	before_item(w);
	fputc('"', w->out);
	jsonw_escape(w->out, key, strlen(key));
	fputs(w->pretty ? "\": " : "\":", w->out);
	w->after_key = true;
}

void jsonw_strn(struct jsonw *w, const char *s, size_t len)
{
	before_item(w);
	fputc('"', w->out);
	jsonw_escape(w->out, s, len);
	fputc('"', w->out);
}

void jsonw_str(struct jsonw *w, const char *s)
{
	if (!s) {
		jsonw_null(w);
		return;
	}
	jsonw_strn(w, s, strlen(s));
}

/* Decimal digits of v, right-aligned ending at end; returns the first. */
static char *utoa_end(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

void jsonw_int(struct jsonw *w, int64_t v)
{
	before_item(w);
	char buf[24], *e = buf + sizeof buf;
	char *p = utoa_end(e, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
	if (v < 0)
		*--p = '-';
	fwrite(p, 1, (size_t)(e - p), w->out);
}

void jsonw_uint(struct jsonw *w, uint64_t v)
{
	before_item(w);
	char buf[24], *e = buf + sizeof buf;
	char *p = utoa_end(e, v);
	fwrite(p, 1, (size_t)(e - p), w->out);
}

size_t jsonw_fixed(char *buf, size_t size, double v, int decimals)
{
	static const uint64_t pow10[10] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
					   1000000000};
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	int bexp = (int)((bits >> 52) & 0x7ff);
	uint64_t m = bits & ((1ULL << 52) - 1);
	bool exact = isfinite(v) && decimals >= 0 && decimals <= 9 && size >= 48;
	uint64_t n = 0; /* v x 10^decimals, rounded to nearest, ties to even (as printf) */
	if (exact) {
		int e = bexp ? bexp - 1075 : -1074; /* v = m x 2^e */
		if (bexp)
			m |= 1ULL << 52;
		unsigned __int128 x = (unsigned __int128)m * pow10[decimals];
		if (e >= 0) {
			if (e > 30 || (x << e) >> 64)
				exact = false; /* beyond 64 bits: printf below */
			else
				n = (uint64_t)(x << e);
		} else if (-e < 128) {
			int sh = -e;
			unsigned __int128 q = x >> sh, r = x - (q << sh), half = (unsigned __int128)1 << (sh - 1);
			if (r > half || (r == half && (q & 1)))
				q++;
			if (q >> 64)
				exact = false;
			else
				n = (uint64_t)q;
		} /* else below 2^-74: rounds to 0 */
	}
	if (!exact)
		return (size_t)snprintf(buf, size, "%.*f", decimals, v);
	char tmp[48], *e = tmp + sizeof tmp, *p = e;
	uint64_t ip = n / pow10[decimals], fp = n % pow10[decimals];
	if (decimals) {
		for (int i = 0; i < decimals; i++) {
			*--p = (char)('0' + fp % 10);
			fp /= 10;
		}
		*--p = '.';
	}
	p = utoa_end(p, ip);
	if (bits >> 63)
		*--p = '-'; /* printf keeps the sign of a negative value that rounds to 0 */
	size_t len = (size_t)(e - p);
	memcpy(buf, p, len);
	buf[len] = 0;
	return len;
}

void jsonw_double(struct jsonw *w, double v, int decimals)
{
	before_item(w);
	if (!isfinite(v)) {
		fputs("null", w->out);
		return;
	}
	char buf[64];
	jsonw_fixed(buf, sizeof buf, v, decimals);
	/* trim trailing zeros of the fraction: 12.500 -> 12.5, 3.000 -> 3 */
	char *dot = strchr(buf, '.');
	if (dot) {
		char *e = buf + strlen(buf) - 1;
		while (e > dot && *e == '0')
			*e-- = '\0';
		if (e == dot)
			*e = '\0';
	}
	if (strcmp(buf, "-0") == 0)
		strcpy(buf, "0");
	fputs(buf, w->out);
}

void jsonw_bool(struct jsonw *w, bool v)
{
	before_item(w);
	fputs(v ? "true" : "false", w->out);
}

void jsonw_null(struct jsonw *w)
{
	before_item(w);
	fputs("null", w->out);
}

void jsonw_kstr(struct jsonw *w, const char *key, const char *s)
{
	jsonw_key(w, key);
	jsonw_str(w, s);
}

void jsonw_kint(struct jsonw *w, const char *key, int64_t v)
{
	jsonw_key(w, key);
	jsonw_int(w, v);
}

void jsonw_kuint(struct jsonw *w, const char *key, uint64_t v)
{
	jsonw_key(w, key);
	jsonw_uint(w, v);
}

void jsonw_kdouble(struct jsonw *w, const char *key, double v, int decimals)
{
	jsonw_key(w, key);
	jsonw_double(w, v, decimals);
}

void jsonw_kbool(struct jsonw *w, const char *key, bool v)
{
	jsonw_key(w, key);
	jsonw_bool(w, v);
}

void jsonw_knull(struct jsonw *w, const char *key)
{
	jsonw_key(w, key);
	jsonw_null(w);
}

void jsonw_kint_or_null(struct jsonw *w, const char *key, int64_t v, bool present)
{
	jsonw_key(w, key);
	if (present)
		jsonw_int(w, v);
	else
		jsonw_null(w);
}

void jsonw_kus(struct jsonw *w, const char *key, int64_t ns) { jsonw_kdouble(w, key, (double)ns / 1e3, 3); }

void jsonw_kdouble_inf(struct jsonw *w, const char *key, double v, int decimals)
{
	if (isinf(v))
		jsonw_kstr(w, key, v > 0 ? "inf" : "-inf");
	else
		jsonw_kdouble(w, key, v, decimals);
}

void jsonw_raw(struct jsonw *w, const char *json)
{
	before_item(w);
	fputs(json, w->out);
}
