/* SPDX-License-Identifier: MIT */
/* Element field extraction: the jsmn reference and the single-pass fast scanner. */
#include "trace_elem.h"

#include <stdint.h>
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
static inline int top_field(const char *k, size_t n)
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
static inline int arg_field(const char *k, size_t n)
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

/* The scanner passes its position by value and gets the next one back (NULL: unsure), so
 * that the position lives in a register; its per-byte helpers are forced inline, as the
 * calls were a large part of the time per element. */
#define SCAN_INLINE static inline __attribute__((always_inline))

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

SCAN_INLINE const char *skip_ws(const char *p, const char *end)
{
	/* one compare settles every byte above the space, the usual case */
	while (p < end && (unsigned char)*p <= ' ' && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

/* Bytes a string body must stop at: the quote, a backslash, and NUL (jsmn stops there). */
static const unsigned char str_stop[256] = {['"'] = 1, ['\\'] = 1, [0] = 1};

#ifdef __SSE2__
/* Bit k set when p[k] is a quote, a backslash or NUL (sixteen bytes from p). */
SCAN_INLINE unsigned stop_bits(const char *p)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
				 _mm_cmpeq_epi8(v, _mm_setzero_si128()));
	return (unsigned)_mm_movemask_epi8(m);
}

/* Bit k set when p[k] is not plain in a primitive (prim_end not 0): a byte is plain when
 * it is above the space and below 127 (signed compares: bytes from 128 up are negative)
 * and none of '"', ',', '[', ']', '{', '}'; or-ing 0x20 folds the brackets onto the
 * braces, and the bytes it folds onto '"' and ',' are control bytes, not plain either. */
SCAN_INLINE unsigned nonplain_bits(const char *p)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i f = _mm_or_si128(v, _mm_set1_epi8(0x20));
	__m128i odd = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(f, _mm_set1_epi8('"')), _mm_cmpeq_epi8(f, _mm_set1_epi8(','))),
				   _mm_or_si128(_mm_cmpeq_epi8(f, _mm_set1_epi8('{')), _mm_cmpeq_epi8(f, _mm_set1_epi8('}'))));
	odd = _mm_or_si128(odd, _mm_cmpeq_epi8(v, _mm_set1_epi8(127)));
	__m128i plain = _mm_andnot_si128(odd, _mm_cmpgt_epi8(v, _mm_set1_epi8(' ')));
	return ~(unsigned)_mm_movemask_epi8(plain) & 0xFFFFu;
}
#endif

/* The first quote, backslash or NUL at or after p, or NULL. */
SCAN_INLINE const char *find_stop(const char *p, const char *end)
{
#ifdef __SSE2__
	for (; end - p >= 16; p += 16) {
		unsigned bits = stop_bits(p);
		if (bits)
			return p + __builtin_ctz(bits);
	}
#endif
	for (; p < end; p++)
		if (str_stop[(unsigned char)*p])
			return p;
	return NULL;
}

/* The closing quote of a string whose body holds a backslash or NUL at p: escapes checked
 * as jsmn checks them. NULL when unsure. Rare, so kept out of line. */
static __attribute__((noinline)) const char *string_end_escaped(const char *p, const char *end)
{
	for (;;) {
		if (*p == '"')
			return p;
		if (*p == '\0')
			return NULL; /* jsmn stops at NUL: let it give its verdict */
		if (p + 1 >= end)
			return NULL;
		char e = p[1];
		if (e == 'u') {
			if (end - p < 6)
				return NULL;
			for (int i = 2; i < 6; i++) {
				char h = p[i];
				if (!((h >= '0' && h <= '9') || (h >= 'A' && h <= 'F') || (h >= 'a' && h <= 'f')))
					return NULL;
			}
			p += 6;
		} else if (e == '"' || e == '/' || e == '\\' || e == 'b' || e == 'f' || e == 'r' || e == 'n' ||
			   e == 't') {
			p += 2;
		} else {
			return NULL;
		}
		p = find_stop(p, end);
		if (!p)
			return NULL;
	}
}

/* The closing quote of the string whose body starts at start; *esc tells whether it held
 * an escape. NULL when unsure. */
SCAN_INLINE const char *string_end(const char *start, const char *end, bool *esc)
{
	const char *q = find_stop(start, end);
	*esc = false;
	if (q && *q != '"') {
		*esc = true;
		q = string_end_escaped(q, end);
	}
	return q;
}

/* The end of the primitive at p, or NULL when unsure. */
SCAN_INLINE const char *primitive_end(const char *p, const char *end)
{
	char first = *p;
	if (!(first == '-' || (first >= '0' && first <= '9') || first == 't' || first == 'f' || first == 'n'))
		return NULL;
	/* prim_end: 1 ends it, 2 is not allowed in it (jsmn: below 32 or 127 and up) */
#ifdef __SSE2__
	for (; end - p >= 16; p += 16) {
		unsigned bits = nonplain_bits(p);
		if (bits) {
			p += __builtin_ctz(bits);
			return prim_end[(unsigned char)*p] == 2 ? NULL : p;
		}
	}
#endif
	while (p < end && prim_end[(unsigned char)*p] == 0)
		p++;
	if (p >= end || prim_end[(unsigned char)*p] == 2)
		return NULL;
	return p;
}

/* A member's key at p (its opening quote) and the colon after it: the key's body in *k,
 * *kn; returns the value's first byte, or NULL when unsure. */
SCAN_INLINE const char *scan_key(const char *p, const char *end, const char **k, size_t *kn)
{
	if (p >= end || *p != '"')
		return NULL;
	bool esc;
	const char *q = string_end(p + 1, end, &esc);
	if (!q)
		return NULL;
	*k = p + 1;
	*kn = (size_t)(q - (p + 1));
	/* python's json.dumps writes ": " then the value: checked in one go */
	if (end - q >= 4 && !memcmp(q + 1, ": ", 2) && (unsigned char)q[3] > ' ')
		return q + 3;
	p = skip_ws(q + 1, end);
	if (p >= end || *p != ':')
		return NULL;
	p = skip_ws(p + 1, end);
	return p < end ? p : NULL;
}

/* After a member: the next key after a ',' (*closed false) or the byte after the '}'
 * (*closed true); NULL when unsure. */
SCAN_INLINE const char *member_end(const char *p, const char *end, bool *closed)
{
	/* and ", " before the next key */
	if (end - p >= 3 && !memcmp(p, ", ", 2) && (unsigned char)p[2] > ' ') {
		*closed = false;
		return p + 2;
	}
	p = skip_ws(p, end);
	if (p >= end)
		return NULL;
	*closed = *p == '}';
	if (*p == ',')
		return skip_ws(p + 1, end);
	return *p == '}' ? p + 1 : NULL;
}

enum { KEY_ARGS = EF_COUNT }; /* known_key's answer for "args" */

/* The top-level keys of nearly every event, written as python writes them ("ph": ),
 * compared whole from the opening quote (memcmp of a constant length compiles to a word
 * compare or two): the field (or KEY_ARGS) in *field and the value's first byte. NULL for
 * anything else (escapes, other spacing, other keys): scan_key then reads the key the
 * long way. */
SCAN_INLINE const char *known_key(const char *p, const char *end, int *field)
{
	if (end - p < 9)
		return NULL;
	int f = -1;
	size_t n = 0;
#define KEY_CASE(lit, fld)                             \
	if (!memcmp(p, lit, sizeof lit - 1)) {         \
		f = (fld), n = sizeof lit - 1;         \
		break;                                 \
	}
	switch (p[1]) {
	case 'p': KEY_CASE("\"ph\": ", EF_PH) KEY_CASE("\"pid\": ", EF_PID) break;
	case 't': KEY_CASE("\"tid\": ", EF_TID) KEY_CASE("\"ts\": ", EF_TS) break;
	case 'n': KEY_CASE("\"name\": ", EF_NAME) break;
	case 'd': KEY_CASE("\"dur\": ", EF_DUR) break;
	case 'c': KEY_CASE("\"cat\": ", EF_CAT) break;
	case 'a': KEY_CASE("\"args\": ", KEY_ARGS) break;
	case 'i': KEY_CASE("\"id\": ", EF_ID) break;
	case 'b': KEY_CASE("\"bp\": ", EF_BP) break;
	default: break;
	}
#undef KEY_CASE
	if (f < 0)
		return NULL;
	p += n; /* inside the 9 bytes checked above */
	if ((unsigned char)*p <= ' ' && (p = skip_ws(p, end)) >= end)
		return NULL;
	*field = f;
	return p;
}

static const char *value_end(const char *p, const char *end, int depth);

/* Skips the container at p strictly (well-formed members and elements only). */
static const char *container_end(const char *p, const char *end, int depth)
{
	if (depth > 64)
		return NULL; /* deep nesting: jsmn decides */
	bool object = *p == '{';
	char close = object ? '}' : ']';
	p = skip_ws(p + 1, end);
	if (p < end && *p == close)
		return p + 1;
	for (;;) {
		if (object) {
			const char *k;
			size_t kn;
			if (!(p = scan_key(p, end, &k, &kn)))
				return NULL;
		}
		if (!(p = value_end(p, end, depth + 1)))
			return NULL;
		p = skip_ws(p, end);
		if (p >= end)
			return NULL;
		if (*p == ',') {
			p = skip_ws(p + 1, end);
			continue;
		}
		return *p == close ? p + 1 : NULL;
	}
}

/* Reads the value at p for a field: strings and primitives give a span, containers are
 * skipped (the span then covers them, marked not a string). Returns its end or NULL. */
SCAN_INLINE const char *field_value(const char *p, const char *end, struct espan *sp, int depth)
{
	if (p >= end)
		return NULL;
	if (*p == '"') {
		bool esc;
		const char *q = string_end(p + 1, end, &esc);
		if (!q)
			return NULL;
		*sp = (struct espan){p + 1, (unsigned)(q - (p + 1)), true, esc};
		return q + 1;
	}
	const char *e;
	if (*p == '{' || *p == '[') {
		if (!(e = container_end(p, end, depth)))
			return NULL;
	} else if (!(e = primitive_end(p, end))) {
		return NULL;
	}
	*sp = (struct espan){p, (unsigned)(e - p), false, false};
	return e;
}

static const char *value_end(const char *p, const char *end, int depth)
{
	struct espan ignored;
	return field_value(p, end, &ignored, depth);
}

/* The "args" object at p; want_num: look for the first numeric member (only counters use
 * it). Returns its end or NULL. */
static const char *scan_args(const char *p, const char *end, struct elem *out, bool want_num)
{
	/* a new "args" replaces what an earlier one gave */
	for (int f = EF_ARG_TASK_TYPE; f <= EF_ARG_NUM_VAL; f++)
		out->f[f] = (struct espan){0};
	out->args_object = true;
	p = skip_ws(p + 1, end);
	if (p < end && *p == '}')
		return p + 1;
	for (;;) {
		const char *k;
		size_t kn;
		struct espan v;
		if (!(p = scan_key(p, end, &k, &kn)) || !(p = field_value(p, end, &v, 2)))
			return NULL;
		int f = arg_field(k, kn);
		if (f >= 0 && !out->f[f].p)
			out->f[f] = v;
		bool scalar = v.is_str || (v.p[0] != '{' && v.p[0] != '[');
		if (want_num && !out->f[EF_ARG_NUM_VAL].p && scalar && reads_as_number(v.p, v.len)) {
			set_span(&out->f[EF_ARG_NUM_KEY], k, kn, true);
			out->f[EF_ARG_NUM_VAL] = v;
		}
		bool closed;
		if (!(p = member_end(p, end, &closed)) || closed)
			return p;
	}
}

/* memset of the record compiles to rep stosq, whose start-up cost was a visible part of
 * an element's time: plain 16-byte stores instead. */
SCAN_INLINE void elem_clear(struct elem *out)
{
#ifdef __SSE2__
	if (sizeof(struct espan) == 16) { /* one store per span (64-bit pointers) */
		__m128i zero = _mm_setzero_si128();
#pragma GCC unroll 16
		for (int f = 0; f < EF_COUNT; f++) {
			_mm_storeu_si128((__m128i *)(void *)&out->f[f], zero);
			__asm__("" : "+x"(zero)); /* or the compiler makes this loop a memset again */
		}
		out->is_object = out->args_object = false;
		return;
	}
#endif
	memset(out, 0, sizeof *out);
}

enum elem_status elem_fast(const char *js, size_t len, struct elem *out, size_t *used)
{
	elem_clear(out);
	if (!len || *js != '{')
		return ELEM_UNSURE;
	const char *end = js + len;
	out->is_object = true;
	const char *p = skip_ws(js + 1, end);
	if (p < end && *p == '}') {
		*used = (size_t)(p + 1 - js);
		return ELEM_OK;
	}
	/* the last "args" object, read without looking for a counter's number: whether the
	 * element is a counter is known only at its end (the last "ph" wins, device events
	 * write it last), and then the rare counter reads its args again */
	const char *args_at = NULL;
	for (;;) {
		int f;
		const char *v = known_key(p, end, &f);
		if (v) {
			p = v;
		} else {
			const char *k;
			size_t kn;
			if (!(p = scan_key(p, end, &k, &kn)))
				return ELEM_UNSURE;
			f = top_field(k, kn);
			if (f < 0 && kn == 4 && !memcmp(k, "args", 4))
				f = KEY_ARGS;
		}
		if (f >= 0 && f != KEY_ARGS) {
			p = field_value(p, end, &out->f[f], 1);
		} else if (f == KEY_ARGS) {
			if (*p == '{') {
				args_at = p;
				p = scan_args(p, end, out, false);
			} else {
				for (int a = EF_ARG_TASK_TYPE; a <= EF_ARG_NUM_VAL; a++)
					out->f[a] = (struct espan){0};
				out->args_object = false;
				args_at = NULL;
				p = value_end(p, end, 1);
			}
		} else {
			p = value_end(p, end, 1);
		}
		bool closed;
		if (!p || !(p = member_end(p, end, &closed)))
			return ELEM_UNSURE;
		if (closed) {
			const struct espan *ph = &out->f[EF_PH];
			if (args_at && ph->is_str && ph->len == 1 && ph->p[0] == 'C')
				scan_args(args_at, end, out, true); /* read once already: cannot fail */
			*used = (size_t)(p - js);
			return ELEM_OK;
		}
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
