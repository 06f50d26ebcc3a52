/* SPDX-License-Identifier: MIT */
/* Element field extraction: the jsmn reference and the single-pass fast scanner. */
#include "trace_elem.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#if defined(__x86_64__) && defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#define ELEM_X86 1
#include <immintrin.h>
#else
#define ELEM_X86 0
#endif
/* Advanced SIMD is part of every aarch64 CPU: built in, nothing to detect at run time */
#if defined(__aarch64__) && defined(__ARM_NEON)
#define ELEM_NEON 1
#include <arm_neon.h>
#else
#define ELEM_NEON 0
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

/* Bytes a string body must stop at: the quote, a backslash, and NUL (jsmn stops there). */
static const unsigned char str_stop[256] = {['"'] = 1, ['\\'] = 1, [0] = 1};

enum { KEY_ARGS = EF_COUNT }; /* known_key's answer for "args" */

/* memset of the record compiles to rep stosq, whose start-up cost was a visible part of
 * an element's time: plain 16-byte stores instead. */
SCAN_INLINE void elem_clear(struct elem *out)
{
#if ELEM_X86
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

/* One body (trace_elem_scan.h) compiled per instruction set: the portable byte loops, SSE2
 * (the x86-64 baseline), AVX2 (run only where the CPU has it, and only when asked: see
 * elem_choose_isa), NEON (aarch64's Advanced SIMD, the SSE2 body's twin). */
#define SCAN_CAT2(a, b) a##_##b
#define SCAN_CAT(a, b) SCAN_CAT2(a, b)
#define SCAN_FN(name) SCAN_CAT(name, SCAN_SUFFIX)
/* bytes of a primitive read one at a time before the vector loop (primitive_end) */
#define SCAN_PRIM_BYTES 16

#define SCAN_SUFFIX scalar
#define SCAN_WIDTH 0
#include "trace_elem_scan.h"
#undef SCAN_SUFFIX
#undef SCAN_WIDTH

#if ELEM_X86
/* Bit k set when p[k] is a quote, a backslash or NUL (sixteen bytes from p). */
SCAN_INLINE unsigned stop_bits_sse2(const char *p)
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
SCAN_INLINE unsigned nonplain_bits_sse2(const char *p)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i f = _mm_or_si128(v, _mm_set1_epi8(0x20));
	__m128i odd = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(f, _mm_set1_epi8('"')), _mm_cmpeq_epi8(f, _mm_set1_epi8(','))),
				   _mm_or_si128(_mm_cmpeq_epi8(f, _mm_set1_epi8('{')), _mm_cmpeq_epi8(f, _mm_set1_epi8('}'))));
	odd = _mm_or_si128(odd, _mm_cmpeq_epi8(v, _mm_set1_epi8(127)));
	__m128i plain = _mm_andnot_si128(odd, _mm_cmpgt_epi8(v, _mm_set1_epi8(' ')));
	return ~(unsigned)_mm_movemask_epi8(plain) & 0xFFFFu;
}

#define SCAN_SUFFIX sse2
#define SCAN_WIDTH 16
#include "trace_elem_scan.h"
#undef SCAN_SUFFIX
#undef SCAN_WIDTH

/* The AVX2 set: its functions are compiled for AVX2 and only ever called after
 * __builtin_cpu_supports("avx2") said yes. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

/* stop_bits_sse2 on 32 bytes */
SCAN_INLINE unsigned stop_bits_avx2(const char *p)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
	__m256i m = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"')),
						     _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\'))),
				    _mm256_cmpeq_epi8(v, _mm256_setzero_si256()));
	return (unsigned)_mm256_movemask_epi8(m);
}

/* nonplain_bits_sse2 on 32 bytes */
SCAN_INLINE unsigned nonplain_bits_avx2(const char *p)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
	__m256i f = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
	__m256i odd = _mm256_or_si256(
		_mm256_or_si256(_mm256_cmpeq_epi8(f, _mm256_set1_epi8('"')), _mm256_cmpeq_epi8(f, _mm256_set1_epi8(','))),
		_mm256_or_si256(_mm256_cmpeq_epi8(f, _mm256_set1_epi8('{')), _mm256_cmpeq_epi8(f, _mm256_set1_epi8('}'))));
	odd = _mm256_or_si256(odd, _mm256_cmpeq_epi8(v, _mm256_set1_epi8(127)));
	__m256i plain = _mm256_andnot_si256(odd, _mm256_cmpgt_epi8(v, _mm256_set1_epi8(' ')));
	return ~(unsigned)_mm256_movemask_epi8(plain);
}

#define SCAN_SUFFIX avx2
#define SCAN_WIDTH 32
#include "trace_elem_scan.h"
#undef SCAN_SUFFIX
#undef SCAN_WIDTH

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif /* ELEM_X86 */

#if ELEM_NEON
/* _mm_movemask_epi8 for a compare's result (every byte 0 or 0xFF): NEON has no such
 * instruction, so each byte keeps its own bit of its half and each half is summed (the
 * bits are distinct, so the sum is their OR and cannot carry). Bit k: byte k. */
SCAN_INLINE unsigned movemask_neon(uint8x16_t m)
{
	static const uint8_t weight[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
	uint8x16_t b = vandq_u8(m, vld1q_u8(weight));
	return (unsigned)vaddv_u8(vget_low_u8(b)) | (unsigned)vaddv_u8(vget_high_u8(b)) << 8;
}

/* stop_bits_sse2 on NEON: the same sixteen bits */
SCAN_INLINE unsigned stop_bits_neon(const char *p)
{
	uint8x16_t v = vld1q_u8((const uint8_t *)p);
	uint8x16_t m =
		vorrq_u8(vorrq_u8(vceqq_u8(v, vdupq_n_u8('"')), vceqq_u8(v, vdupq_n_u8('\\'))), vceqzq_u8(v));
	return movemask_neon(m);
}

/* nonplain_bits_sse2 on NEON: the same sixteen bits, the same signed compare with the
 * space (bytes from 128 up are negative, so not plain) */
SCAN_INLINE unsigned nonplain_bits_neon(const char *p)
{
	uint8x16_t v = vld1q_u8((const uint8_t *)p);
	uint8x16_t f = vorrq_u8(v, vdupq_n_u8(0x20));
	uint8x16_t odd = vorrq_u8(vorrq_u8(vceqq_u8(f, vdupq_n_u8('"')), vceqq_u8(f, vdupq_n_u8(','))),
				  vorrq_u8(vceqq_u8(f, vdupq_n_u8('{')), vceqq_u8(f, vdupq_n_u8('}'))));
	odd = vorrq_u8(odd, vceqq_u8(v, vdupq_n_u8(127)));
	uint8x16_t plain = vbicq_u8(vcgtq_s8(vreinterpretq_s8_u8(v), vdupq_n_s8(' ')), odd);
	return ~movemask_neon(plain) & 0xFFFFu;
}

#define SCAN_SUFFIX neon
#define SCAN_WIDTH 16
#include "trace_elem_scan.h"
#undef SCAN_SUFFIX
#undef SCAN_WIDTH
#endif /* ELEM_NEON */

typedef enum elem_status (*elem_fast_fn)(const char *, size_t, struct elem *, size_t *);

static const struct {
	const char *name;
	elem_fast_fn fn; /* NULL: not built for this machine's architecture */
} isa_table[ELEM_ISA_COUNT] = {
	[ELEM_ISA_SCALAR] = {"scalar", elem_fast_scalar},
#if ELEM_X86
	[ELEM_ISA_SSE2] = {"sse2", elem_fast_sse2},
	[ELEM_ISA_AVX2] = {"avx2", elem_fast_avx2},
#else
	[ELEM_ISA_SSE2] = {"sse2", NULL},
	[ELEM_ISA_AVX2] = {"avx2", NULL},
#endif
#if ELEM_NEON
	[ELEM_ISA_NEON] = {"neon", elem_fast_neon},
#else
	[ELEM_ISA_NEON] = {"neon", NULL},
#endif
};

static enum elem_isa isa_chosen = ELEM_ISA_SCALAR;
static elem_fast_fn fast_chosen = elem_fast_scalar;

bool elem_isa_available(enum elem_isa isa)
{
	if ((unsigned)isa >= ELEM_ISA_COUNT || !isa_table[isa].fn)
		return false;
#if ELEM_X86
	if (isa == ELEM_ISA_AVX2) {
		__builtin_cpu_init();
		return __builtin_cpu_supports("avx2");
	}
#endif
	return true;
}

const char *elem_isa_name(enum elem_isa isa) { return (unsigned)isa < ELEM_ISA_COUNT ? isa_table[isa].name : "?"; }

enum elem_isa elem_isa_used(void) { return isa_chosen; }

/* Chosen once before main (no thread reads it before it is set): SSE2 where it is built,
 * NEON on aarch64 (as SSE2, with no figures of its own: no arm64 machine measured it),
 * AVX2 only when $ASCPROF_SCAN asks (scalar, sse2, avx2, neon: comparisons, benchmarks).
 * The strings and numbers of a trace are short (names, 20-digit timestamps): on the 100 MB
 * generated trace, elements alone on one thread took 0.034 s CPU with SSE2, 0.038 s with
 * AVX2 and 0.030 s with the byte loops; on a real trace with call stacks SSE2 was the
 * fastest (0.7 ms against 0.8 ms for both others). */
__attribute__((constructor)) static void elem_choose_isa(void)
{
	enum elem_isa best = ELEM_ISA_SCALAR;
	if (elem_isa_available(ELEM_ISA_SSE2))
		best = ELEM_ISA_SSE2;
	else if (elem_isa_available(ELEM_ISA_NEON))
		best = ELEM_ISA_NEON;
	const char *want = getenv("ASCPROF_SCAN");
	for (int i = 0; want && i < ELEM_ISA_COUNT; i++)
		if (!strcmp(want, isa_table[i].name) && elem_isa_available((enum elem_isa)i))
			best = (enum elem_isa)i;
	isa_chosen = best;
	fast_chosen = isa_table[best].fn;
}

enum elem_status elem_fast_isa(enum elem_isa isa, const char *js, size_t len, struct elem *out, size_t *used)
{
	return isa_table[isa].fn(js, len, out, used);
}

enum elem_status elem_fast(const char *js, size_t len, struct elem *out, size_t *used)
{
	return fast_chosen(js, len, out, used);
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

bool elem_equal(const struct elem *a, const struct elem *b, struct sbuf *why)
{
	static const char *names[EF_COUNT] = {"ph", "name", "pid", "tid", "ts", "dur", "cat", "id", "bp",
					      "processName", "args.Task Type", "args.name", "args.labels",
					      "args.sort_index", "args number key", "args number value"};
	if (a->is_object != b->is_object || a->args_object != b->args_object) {
		sbuf_addf(why, "object/args shape differs");
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
			sbuf_addf(why, "%s: present/kind differs", names[f]);
			return false;
		}
		if (!x->p)
			continue;
		/* raw text is what the loader reads (numbers are parsed from it): compare raw */
		if (x->len != y->len || memcmp(x->p, y->p, x->len)) {
			sbuf_addf(why, "%s: \"%.*s\" vs \"%.*s\"", names[f], (int)(x->len > 40 ? 40 : x->len), x->p,
				 (int)(y->len > 40 ? 40 : y->len), y->p);
			return false;
		}
	}
	return true;
}

/* The same spans (the same pointers into the input), field for field. */
static bool same_record(const struct elem *a, const struct elem *b)
{
	if (a->is_object != b->is_object || a->args_object != b->args_object)
		return false;
	for (int f = 0; f < EF_COUNT; f++) {
		const struct espan *x = &a->f[f], *y = &b->f[f];
		if (x->p != y->p || x->len != y->len || x->is_str != y->is_str || x->has_esc != y->has_esc)
			return false;
	}
	return true;
}

/* Every instruction set this CPU has against the portable one: the same status, length
 * and record. */
static bool isas_agree(const char *buf, size_t len, struct sbuf *why)
{
	struct elem ref, got;
	size_t ref_used = 0, got_used = 0;
	enum elem_status rs = elem_fast_isa(ELEM_ISA_SCALAR, buf, len, &ref, &ref_used);
	for (int i = ELEM_ISA_SCALAR + 1; i < ELEM_ISA_COUNT; i++) {
		if (!elem_isa_available((enum elem_isa)i))
			continue;
		enum elem_status gs = elem_fast_isa((enum elem_isa)i, buf, len, &got, &got_used);
		if (gs != rs || (rs == ELEM_OK && (got_used != ref_used || !same_record(&ref, &got)))) {
			sbuf_addf(why, "%s and scalar scanners differ (status %d/%d, length %zu/%zu): %.*s",
				 elem_isa_name((enum elem_isa)i), (int)gs, (int)rs, got_used, ref_used,
				 (int)(len > 200 ? 200 : len), buf);
			return false;
		}
	}
	return true;
}

enum elem_verdict elem_crosscheck(struct jtok *jt, const char *buf, size_t len, struct sbuf *why)
{
	struct elem a, b;
	size_t used = 0;
	int shown = (int)(len > 200 ? 200 : len);
	if (!isas_agree(buf, len, why))
		return ELEM_DISAGREE;
	enum elem_status fs = elem_fast(buf, len, &a, &used);
	if (fs == ELEM_UNSURE)
		return ELEM_LEFT_TO_JSMN;
	if (fs != ELEM_OK) {
		sbuf_addf(why, "the scanner claimed an error itself (%d): %.*s", (int)fs, shown, buf);
		return ELEM_DISAGREE;
	}
	size_t end = jscan_value_end(buf, len, 0);
	if (end != used) {
		sbuf_addf(why, "element end: fast %zu, boundary scan %zu: %.*s", used, end, shown, buf);
		return ELEM_DISAGREE;
	}
	int err;
	if (elem_from_jsmn(jt, buf, used, &b, &err) != ELEM_OK) {
		sbuf_addf(why, "fast accepted what jsmn rejects (%d): %.*s", err, shown, buf);
		return ELEM_DISAGREE;
	}
	struct sbuf what = SBUF_INIT;
	if (!elem_equal(&a, &b, &what)) {
		sbuf_addf(why, "fields differ: %s in %.*s", what.buf ? what.buf : "?", shown, buf);
		sbuf_free(&what);
		return ELEM_DISAGREE;
	}
	return ELEM_AGREE;
}
