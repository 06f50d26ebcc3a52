/* SPDX-License-Identifier: MIT */
/* Element field extraction: the jsmn reference and the single-pass fast scanner. */
#include "trace_elem.h"

#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "json_scan.h"
#include "num.h"

/* ---- shared ------------------------------------------------------------------------- */

static void set_span(struct espan *s, const char *p, size_t len, bool is_str)
{
	s->p = p;
	s->len = (unsigned)len;
	s->is_str = is_str;
	s->has_esc = is_str && memchr(p, '\\', len) != NULL;
}

/* Which top-level key this is (raw bytes, as jsmn's path compares them), or -1. */
static int top_field(const char *k, size_t n)
{
	switch (n) {
	case 2:
		if (k[0] == 'p' && k[1] == 'h')
			return EF_PH;
		if (k[0] == 't' && k[1] == 's')
			return EF_TS;
		if (k[0] == 'i' && k[1] == 'd')
			return EF_ID;
		if (k[0] == 'b' && k[1] == 'p')
			return EF_BP;
		return -1;
	case 3:
		if (!memcmp(k, "pid", 3))
			return EF_PID;
		if (!memcmp(k, "tid", 3))
			return EF_TID;
		if (!memcmp(k, "dur", 3))
			return EF_DUR;
		if (!memcmp(k, "cat", 3))
			return EF_CAT;
		return -1;
	case 4:
		if (!memcmp(k, "name", 4))
			return EF_NAME;
		return -1;
	case 11:
		if (!memcmp(k, "processName", 11))
			return EF_PROCESS_NAME;
		return -1;
	default: return -1;
	}
}

/* args members kept (the first of each name wins), or -1. */
static int arg_field(const char *k, size_t n)
{
	if (n == 9 && !memcmp(k, "Task Type", 9))
		return EF_ARG_TASK_TYPE;
	if (n == 4 && !memcmp(k, "name", 4))
		return EF_ARG_NAME;
	if (n == 6 && !memcmp(k, "labels", 6))
		return EF_ARG_LABELS;
	if (n == 10 && !memcmp(k, "sort_index", 10))
		return EF_ARG_SORT_INDEX;
	return -1;
}

static bool reads_as_number(const char *p, size_t n)
{
	double d;
	return num_double(p, n, &d) == NUM_OK;
}

/* ---- jsmn reference ----------------------------------------------------------------- */

static void tok_span(const char *js, const jsmntok_t *t, struct espan *s)
{
	set_span(s, js + t->start, (size_t)(t->end - t->start), t->type == JSMN_STRING);
}

enum elem_status elem_from_jsmn(struct jtok *jt, const char *js, size_t len, struct elem *out, int *jsmn_err)
{
	memset(out, 0, sizeof *out);
	int r = jtok_parse(jt, js, len);
	if (jsmn_err)
		*jsmn_err = r;
	if (r <= 0)
		return ELEM_BAD;
	if (jt->t[0].type != JSMN_OBJECT)
		return ELEM_NOT_OBJECT;
	out->is_object = true;
	int args = -1;
	int nkeys = jt->t[0].size;
	int i = 1;
	for (int k = 0; k < nkeys && i + 1 < jt->n; k++) {
		const jsmntok_t *key = &jt->t[i];
		int v = i + 1;
		size_t kl = (size_t)(key->end - key->start);
		int f = top_field(js + key->start, kl);
		if (f >= 0)
			tok_span(js, &jt->t[v], &out->f[f]);
		else if (kl == 4 && !memcmp(js + key->start, "args", 4))
			args = v; /* the last "args" wins, like every top-level key */
		i = jtok_skip(jt, v);
	}
	if (args >= 0 && jt->t[args].type == JSMN_OBJECT) {
		out->args_object = true;
		int na = jt->t[args].size;
		int j = args + 1;
		for (int k = 0; k < na && j + 1 < jt->n; k++) {
			const jsmntok_t *key = &jt->t[j], *val = &jt->t[j + 1];
			int f = arg_field(js + key->start, (size_t)(key->end - key->start));
			if (f >= 0 && !out->f[f].p)
				tok_span(js, val, &out->f[f]);
			if (!out->f[EF_ARG_NUM_VAL].p && (val->type == JSMN_PRIMITIVE || val->type == JSMN_STRING) &&
			    reads_as_number(js + val->start, (size_t)(val->end - val->start))) {
				tok_span(js, key, &out->f[EF_ARG_NUM_KEY]);
				tok_span(js, val, &out->f[EF_ARG_NUM_VAL]);
			}
			j = jtok_skip(jt, j + 1);
		}
	}
	return ELEM_OK;
}

/* ---- fast scanner ------------------------------------------------------------------- */

/* What stops a primitive (jsmn strict): tab, CR, LF, space, ',', ']', '}' (1); what may
 * not be in one (2): control bytes and bytes from 127 up (jsmn refuses them), and '"', '{'
 * and '[' (jsmn would take them into the primitive, the boundary scan would not: unsure). */
static const unsigned char prim_end[256] = {
	2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 2, 2, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};

struct cursor {
	const char *p, *end;
	bool esc; /* the last string scanned held an escape */
};

static inline void skip_ws(struct cursor *c)
{
	/* python's json.dumps writes ", " and ": ": one space is the common case */
	if (c->p < c->end && *c->p == ' ')
		c->p++;
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t'))
		c->p++;
}

/* Bytes a string body must stop at: the quote, a backslash, and NUL (jsmn stops there). */
static const unsigned char str_stop[256] = {['"'] = 1, ['\\'] = 1, [0] = 1};

/* Offset of the first quote, backslash or NUL at or after p, or (size_t)-1. */
static inline size_t find_stop(const char *p, const char *end)
{
	const char *q = p;
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), zero = _mm_setzero_si128();
	while (end - q >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
					 _mm_cmpeq_epi8(v, zero));
		int bits = _mm_movemask_epi8(m);
		if (bits)
			return (size_t)(q - p) + (size_t)__builtin_ctz((unsigned)bits);
		q += 16;
	}
#endif
	for (; q < end; q++)
		if (str_stop[(unsigned char)*q])
			return (size_t)(q - p);
	return (size_t)-1;
}

/* A string at c->p (the opening quote): its body in *s, *n; c->esc tells whether it
 * held an escape. False when unsure. */
static bool scan_string(struct cursor *c, const char **s, size_t *n)
{
	const char *start = c->p + 1, *p = start;
	c->esc = false;
	for (;;) {
		size_t k = find_stop(p, c->end);
		if (k == (size_t)-1)
			return false;
		p += k;
		if (*p == '"') {
			*s = start;
			*n = (size_t)(p - start);
			c->p = p + 1;
			return true;
		}
		if (*p == '\0')
			return false; /* jsmn stops at NUL: let it give its verdict */
		/* an escape, checked as jsmn checks it */
		c->esc = true;
		if (p + 1 >= c->end)
			return false;
		char e = p[1];
		if (e == 'u') {
			if (c->end - p < 6)
				return false;
			for (int i = 2; i < 6; i++) {
				char h = p[i];
				if (!((h >= '0' && h <= '9') || (h >= 'A' && h <= 'F') || (h >= 'a' && h <= 'f')))
					return false;
					}
			p += 6;
		} else if (e == '"' || e == '/' || e == '\\' || e == 'b' || e == 'f' || e == 'r' || e == 'n' ||
			   e == 't') {
			p += 2;
		} else {
			return false;
		}
	}
}

static bool scan_primitive(struct cursor *c, const char **s, size_t *n)
{
	const char *p = c->p;
	char first = *p;
	if (!(first == '-' || (first >= '0' && first <= '9') || first == 't' || first == 'f' || first == 'n'))
		return false;
	/* prim_end: 1 ends it, 2 is not allowed in it (jsmn: below 32 or 127 and up) */
	unsigned char k;
	while (p < c->end && (k = prim_end[(unsigned char)*p]) == 0)
		p++;
	if (p < c->end && k == 2)
		return false;
	if (p >= c->end)
		return false;
	*s = c->p;
	*n = (size_t)(p - c->p);
	c->p = p;
	return true;
}

static bool scan_value(struct cursor *c, int depth);

/* Skips a container strictly (well-formed members and elements only). */
static bool scan_container(struct cursor *c, int depth)
{
	if (depth > 64)
		return false; /* deep nesting: jsmn decides */
	bool object = *c->p == '{';
	char close = object ? '}' : ']';
	c->p++;
	skip_ws(c);
	if (c->p < c->end && *c->p == close) {
		c->p++;
		return true;
	}
	for (;;) {
		if (object) {
			const char *k;
			size_t kn;
			if (c->p >= c->end || *c->p != '"' || !scan_string(c, &k, &kn))
				return false;
			skip_ws(c);
			if (c->p >= c->end || *c->p != ':')
				return false;
			c->p++;
			skip_ws(c);
		}
		if (!scan_value(c, depth + 1))
			return false;
		skip_ws(c);
		if (c->p >= c->end)
			return false;
		if (*c->p == ',') {
			c->p++;
			skip_ws(c);
			continue;
		}
		if (*c->p == close) {
			c->p++;
			return true;
		}
		return false;
	}
}

static bool scan_value(struct cursor *c, int depth)
{
	if (c->p >= c->end)
		return false;
	const char *s;
	size_t n;
	switch (*c->p) {
	case '"': return scan_string(c, &s, &n);
	case '{':
	case '[': return scan_container(c, depth);
	default: return scan_primitive(c, &s, &n);
	}
}

/* Reads one value for a field: strings and primitives give a span, containers are
 * skipped (the span then covers them, marked not a string). */
static bool scan_field_value(struct cursor *c, struct espan *sp, int depth)
{
	if (c->p >= c->end)
		return false;
	const char *s;
	size_t n;
	if (*c->p == '"') {
		if (!scan_string(c, &s, &n))
			return false;
		sp->p = s;
		sp->len = (unsigned)n;
		sp->is_str = true;
		sp->has_esc = c->esc;
		return true;
	}
	if (*c->p == '{' || *c->p == '[') {
		const char *start = c->p;
		if (!scan_container(c, depth))
			return false;
		set_span(sp, start, (size_t)(c->p - start), false);
		return true;
	}
	if (!scan_primitive(c, &s, &n))
		return false;
	sp->p = s;
	sp->len = (unsigned)n;
	sp->is_str = false;
	sp->has_esc = false;
	return true;
}

/* want_num: look for the first numeric member (only counters use it). */
static bool scan_args(struct cursor *c, struct elem *out, bool want_num)
{
	/* a new "args" replaces what an earlier one gave */
	for (int f = EF_ARG_TASK_TYPE; f <= EF_ARG_NUM_VAL; f++)
		out->f[f] = (struct espan){0};
	out->args_object = true;
	c->p++;
	skip_ws(c);
	if (c->p < c->end && *c->p == '}') {
		c->p++;
		return true;
	}
	for (;;) {
		const char *k;
		size_t kn;
		if (c->p >= c->end || *c->p != '"' || !scan_string(c, &k, &kn))
			return false;
		skip_ws(c);
		if (c->p >= c->end || *c->p != ':')
			return false;
		c->p++;
		skip_ws(c);
		struct espan v = {0};
		if (!scan_field_value(c, &v, 2))
			return false;
		int f = arg_field(k, kn);
		if (f >= 0 && !out->f[f].p)
			out->f[f] = v;
		bool scalar = v.is_str || (v.p[0] != '{' && v.p[0] != '[');
		if (want_num && !out->f[EF_ARG_NUM_VAL].p && scalar && reads_as_number(v.p, v.len)) {
			set_span(&out->f[EF_ARG_NUM_KEY], k, kn, true);
			out->f[EF_ARG_NUM_VAL] = v;
		}
		skip_ws(c);
		if (c->p >= c->end)
			return false;
		if (*c->p == ',') {
			c->p++;
			skip_ws(c);
			continue;
		}
		if (*c->p == '}') {
			c->p++;
			return true;
		}
		return false;
	}
}

enum elem_status elem_fast(const char *js, size_t len, struct elem *out, size_t *used)
{
	memset(out, 0, sizeof *out);
	struct cursor c = {js, js + len, false};
	if (!len || *js != '{')
		return ELEM_UNSURE;
	out->is_object = true;
	c.p++;
	skip_ws(&c);
	if (c.p < c.end && *c.p == '}') {
		*used = (size_t)(c.p + 1 - js);
		return ELEM_OK;
	}
	bool num_skipped = false; /* args were read without looking for a counter's number */
	for (;;) {
		const char *k;
		size_t kn;
		if (c.p >= c.end || *c.p != '"' || !scan_string(&c, &k, &kn))
			return ELEM_UNSURE;
		skip_ws(&c);
		if (c.p >= c.end || *c.p != ':')
			return ELEM_UNSURE;
		c.p++;
		skip_ws(&c);
		if (c.p >= c.end)
			return ELEM_UNSURE;
		int f = top_field(k, kn);
		if (f == EF_PH && num_skipped)
			return ELEM_UNSURE; /* a second "ph" may make it a counter after all (fuzz_elem) */
		if (f >= 0) {
			if (!scan_field_value(&c, &out->f[f], 1))
				return ELEM_UNSURE;
		} else if (kn == 4 && !memcmp(k, "args", 4)) {
			if (*c.p == '{') {
				/* the number of a counter's args matters only for counters; when "ph"
				 * came first (torch_npu writes it first) the others skip the test */
				const struct espan *ph = &out->f[EF_PH];
				bool known_other = ph->p && !(ph->is_str && ph->len == 1 && ph->p[0] == 'C');
				if (!scan_args(&c, out, !known_other))
					return ELEM_UNSURE;
				num_skipped = known_other;
			} else {
				for (int a = EF_ARG_TASK_TYPE; a <= EF_ARG_NUM_VAL; a++)
					out->f[a] = (struct espan){0};
				out->args_object = false;
				if (!scan_value(&c, 1))
					return ELEM_UNSURE;
			}
		} else if (!scan_value(&c, 1)) {
			return ELEM_UNSURE;
		}
		skip_ws(&c);
		if (c.p >= c.end)
			return ELEM_UNSURE;
		if (*c.p == ',') {
			c.p++;
			skip_ws(&c);
			continue;
		}
		if (*c.p == '}') {
			*used = (size_t)(c.p + 1 - js);
			return ELEM_OK;
		}
		return ELEM_UNSURE;
	}
}

/* ---- comparing ---------------------------------------------------------------------- */

void elem_text(const struct espan *s, struct sbuf *out)
{
	if (!s->p)
		return;
	if (s->is_str && s->has_esc)
		json_unescape(s->p, s->len, out);
	else
		sbuf_add(out, s->p, s->len);
}

bool elem_equal(const struct elem *a, const struct elem *b, char *why, size_t whylen)
{
	static const char *names[EF_COUNT] = {"ph", "name", "pid", "tid", "ts", "dur", "cat", "id", "bp",
					      "processName", "args.Task Type", "args.name", "args.labels",
					      "args.sort_index", "args number key", "args number value"};
	if (a->is_object != b->is_object || a->args_object != b->args_object) {
		snprintf(why, whylen, "object/args shape differs");
		return false;
	}
	/* the first numeric args member is defined for counters only ("ph": "C") */
	const struct espan *ph = &a->f[EF_PH];
	bool counter = ph->p && ph->is_str && ph->len == 1 && ph->p[0] == 'C';
	for (int f = 0; f < EF_COUNT; f++) {
		if (!counter && (f == EF_ARG_NUM_KEY || f == EF_ARG_NUM_VAL))
			continue;
		const struct espan *x = &a->f[f], *y = &b->f[f];
		if (!x->p != !y->p || x->is_str != y->is_str) {
			snprintf(why, whylen, "%s: present/kind differs", names[f]);
			return false;
		}
		if (!x->p)
			continue;
		/* raw text is what the loader reads (numbers are parsed from it): compare raw */
		if (x->len != y->len || memcmp(x->p, y->p, x->len)) {
			snprintf(why, whylen, "%s: \"%.*s\" vs \"%.*s\"", names[f], (int)(x->len > 40 ? 40 : x->len), x->p,
				 (int)(y->len > 40 ? 40 : y->len), y->p);
			return false;
		}
	}
	return true;
}

enum elem_verdict elem_crosscheck(struct jtok *jt, const char *buf, size_t len, char *why, size_t whylen)
{
	struct elem a, b;
	size_t used = 0;
	int shown = (int)(len > 200 ? 200 : len);
	enum elem_status fs = elem_fast(buf, len, &a, &used);
	if (fs == ELEM_UNSURE)
		return ELEM_LEFT_TO_JSMN;
	if (fs != ELEM_OK) {
		snprintf(why, whylen, "the scanner claimed an error itself (%d): %.*s", (int)fs, shown, buf);
		return ELEM_DISAGREE;
	}
	size_t end = jscan_value_end(buf, len, 0);
	if (end != used) {
		snprintf(why, whylen, "element end: fast %zu, boundary scan %zu: %.*s", used, end, shown, buf);
		return ELEM_DISAGREE;
	}
	int err;
	if (elem_from_jsmn(jt, buf, used, &b, &err) != ELEM_OK) {
		snprintf(why, whylen, "fast accepted what jsmn rejects (%d): %.*s", err, shown, buf);
		return ELEM_DISAGREE;
	}
	char what[256];
	if (!elem_equal(&a, &b, what, sizeof what)) {
		snprintf(why, whylen, "fields differ: %s in %.*s", what, shown, buf);
		return ELEM_DISAGREE;
	}
	return ELEM_AGREE;
}
