/* SPDX-License-Identifier: MIT */
/* Streaming JSON output with strict escaping. */
#include "jsonw.h"

#include <math.h>
#include <string.h>
#include <unistr.h>

#include "sanitize.h"

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
	fputc('\n', w->out);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->out);
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

void jsonw_escape(FILE *out, const char *s, size_t len)
{
	const uint8_t *p = (const uint8_t *)s, *end = p + len;
	while (p < end) {
		uint8_t c = *p;
		if (c >= 0x20 && c < 0x7f) {
			if (c == '"' || c == '\\') {
				fputc('\\', out);
				fputc(c, out);
				p++;
				continue;
			}
			/* a run of printable ASCII that needs no escape: one write */
			const uint8_t *run = p;
			while (p < end && *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
				p++;
			fwrite(run, 1, (size_t)(p - run), out);
			continue;
		}
		ucs4_t uc;
		int n = u8_mbtoucr(&uc, p, (size_t)(end - p));
		if (n < 0) {
			fprintf(out, "\\\\x%02X", c); /* the text \xNN, as the TUI shows it */
			p++;
			continue;
		}
		switch (uc) {
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (sanitize_unsafe_codepoint(uc))
				fprintf(out, "\\u%04x", (unsigned)uc);
			else
				fwrite(p, 1, (size_t)n, out);
		}
		p += n;
	}
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

void jsonw_int(struct jsonw *w, int64_t v)
{
	before_item(w);
	fprintf(w->out, "%lld", (long long)v);
}

void jsonw_uint(struct jsonw *w, uint64_t v)
{
	before_item(w);
	fprintf(w->out, "%llu", (unsigned long long)v);
}

void jsonw_double(struct jsonw *w, double v, int decimals)
{
	before_item(w);
	if (!isfinite(v)) {
		fputs("null", w->out);
		return;
	}
	char buf[64];
	snprintf(buf, sizeof buf, "%.*f", decimals, v);
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
