/* SPDX-License-Identifier: MIT */
/* The fields of one trace element that the store keeps, as byte spans into the element,
 * extracted two ways: by jsmn (the reference: every element can go through it) and by a
 * single-pass scanner made for the hot path of multi-GB traces. The scanner answers only
 * when it is sure; anything unusual (bad syntax, escaped keys, odd nesting) makes it give
 * up and the element goes to jsmn. tests/test_trace_elem.c and fuzz/fuzz_elem.c check
 * that both produce the same record for the same bytes. */
#ifndef ASCPROF_TRACE_ELEM_H
#define ASCPROF_TRACE_ELEM_H

#include <stdbool.h>
#include <stddef.h>

#include "json_tok.h"
#include "sbuf.h"

/* A value: its raw text (strings without their quotes, escapes still in), or absent. */
struct espan {
	const char *p; /* borrowed: into the scanned element; NULL when absent */
	unsigned len;
	bool is_str;   /* a JSON string (may need unescaping) */
	bool has_esc;  /* a string containing a backslash */
};

enum elem_field {
	EF_PH,
	EF_NAME,
	EF_PID,
	EF_TID,
	EF_TS,
	EF_DUR,
	EF_CAT,
	EF_ID,
	EF_BP,
	EF_PROCESS_NAME, /* top-level "processName" of counters */
	EF_ARG_TASK_TYPE,
	EF_ARG_NAME,
	EF_ARG_LABELS,
	EF_ARG_SORT_INDEX,
	EF_ARG_NUM_KEY, /* the first args member whose value reads as a number ... */
	EF_ARG_NUM_VAL, /* ... and that value (defined for counters, "ph": "C", only) */
	EF_COUNT
};

struct elem {
	struct espan f[EF_COUNT];
	bool is_object;  /* the element is a JSON object */
	bool args_object; /* "args" is an object */
};

enum elem_status {
	ELEM_OK,
	ELEM_NOT_OBJECT, /* a valid value that is not an object */
	ELEM_BAD,        /* invalid JSON (jsmn's verdict) */
	ELEM_UNSURE,     /* the fast scanner gives up: ask jsmn */
};

/* Reference extraction through jsmn over js[0..len) (one whole element). */
enum elem_status elem_from_jsmn(struct jtok *jt, const char *js, size_t len, struct elem *out, int *jsmn_err);
/* Fast extraction of the element starting at js[0] (a '{'), reading at most len bytes.
 * On ELEM_OK, *used is the element's length. ELEM_UNSURE also covers an input that ends
 * inside the element. Runs the instruction set elem_isa_used names. */
enum elem_status elem_fast(const char *js, size_t len, struct elem *out, size_t *used);

/* The scanner is one body compiled per instruction set; all must give the same record. */
enum elem_isa {
	ELEM_ISA_SCALAR, /* portable byte loops (every architecture) */
	ELEM_ISA_SSE2,   /* 16 bytes at a time: the x86-64 baseline */
	ELEM_ISA_AVX2,   /* 32 bytes at a time, where the CPU has AVX2 (slower on traces) */
	ELEM_ISA_NEON,   /* 16 bytes at a time: aarch64's Advanced SIMD, SSE2's twin */
	ELEM_ISA_COUNT
};
/* True when this build and this CPU can run the set. */
bool elem_isa_available(enum elem_isa isa);
const char *elem_isa_name(enum elem_isa isa);
/* The set elem_fast runs: SSE2 where built, else NEON where built, else scalar; or
 * $ASCPROF_SCAN (scalar, sse2, avx2, neon) when that one is available. */
enum elem_isa elem_isa_used(void);
/* elem_fast through one set (which must be available). */
enum elem_status elem_fast_isa(enum elem_isa isa, const char *js, size_t len, struct elem *out, size_t *used);
/* Decodes a span: strings unescaped, primitives verbatim. */
void elem_text(const struct espan *s, struct sbuf *out);
/* True when two records carry the same fields (spans compared by decoded text). */
bool elem_equal(const struct elem *a, const struct elem *b, struct sbuf *why);

enum elem_verdict {
	ELEM_AGREE,       /* the scanner answered, exactly as jsmn and the boundary scan (and
			   * every instruction set answered the same) */
	ELEM_LEFT_TO_JSMN, /* the scanner was unsure */
	ELEM_DISAGREE,    /* a bug: why says what differs */
};
/* The scanner's contract for one input (an element at its start), checked against jsmn:
 * shared by tests/test_trace_elem.c and the fuzz harness tests/fuzz/fuzz_elem.c. */
enum elem_verdict elem_crosscheck(struct jtok *jt, const char *buf, size_t len, struct sbuf *why);

#endif
