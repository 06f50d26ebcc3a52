/* SPDX-License-Identifier: MIT */
/* A small streaming JSON writer for the report and summary. Strings are escaped so
 * that the output is valid UTF-8 and holds no raw control characters; bytes that are
 * not UTF-8 are written as the visible text \xNN. */
#ifndef ASCPROF_JSONW_H
#define ASCPROF_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sbuf.h"

#define JSONW_MAX_DEPTH 64

struct jsonw {
	FILE *out; /* borrowed */
	int depth;
	bool need_comma[JSONW_MAX_DEPTH];
	bool after_key;
	bool pretty;
};

/* out is borrowed, kept in w: it must stay open while w writes. */
void jsonw_init(struct jsonw *w, FILE *out, bool pretty);
void jsonw_obj_begin(struct jsonw *w);
void jsonw_obj_end(struct jsonw *w);
void jsonw_arr_begin(struct jsonw *w);
void jsonw_arr_end(struct jsonw *w);
void jsonw_key(struct jsonw *w, const char *key);
void jsonw_str(struct jsonw *w, const char *s);
void jsonw_strn(struct jsonw *w, const char *s, size_t len);
void jsonw_int(struct jsonw *w, int64_t v);
void jsonw_uint(struct jsonw *w, uint64_t v);
/* Finite values with up to `decimals` digits after the point; NaN/inf become null. */
void jsonw_double(struct jsonw *w, double v, int decimals);
/* v as snprintf's "%.*f" writes it, the same bytes (exact rounding, ties to even, the sign
 * of a negative value rounding to 0), without printf's cost for up to 9 decimals; buf holds
 * size bytes (48 or more for the fast path). Returns the length. */
size_t jsonw_fixed(char *buf, size_t size, double v, int decimals);
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);
/* A key and its value in one call: every writer through jsonw (src/report) writes each
 * key with a scalar value this way (a key before an object, an array or the null in
 * their place goes through jsonw_key). Escaped elsewhere with the same rules:
 * src/load/kernel_timeline.c (fprintf with jsonw_escape) and db_args.c's rows
 * (jsonw_escape_sbuf). key is
 * borrowed for the call, as are string values (s may be NULL: null). */
void jsonw_kstr(struct jsonw *w, const char *key, const char *s);
void jsonw_kint(struct jsonw *w, const char *key, int64_t v);
void jsonw_kuint(struct jsonw *w, const char *key, uint64_t v);
void jsonw_kdouble(struct jsonw *w, const char *key, double v, int decimals);
void jsonw_kbool(struct jsonw *w, const char *key, bool v);
void jsonw_knull(struct jsonw *w, const char *key);
/* v when present, else null. */
void jsonw_kint_or_null(struct jsonw *w, const char *key, int64_t v, bool present);
/* A time or duration in integer ns written in us, to the ns (3 decimals). */
void jsonw_kus(struct jsonw *w, const char *key, int64_t ns);
/* As jsonw_kdouble, but an infinity is the string "inf" or "-inf" (NaN is null). */
void jsonw_kdouble_inf(struct jsonw *w, const char *key, double v, int decimals);
/* Writes an already-serialised JSON value verbatim. */
void jsonw_raw(struct jsonw *w, const char *json);
/* Escaped string body (no quotes) appended to a FILE: shared with other writers. */
void jsonw_escape(FILE *out, const char *s, size_t len);
/* The same appended to a string (JSON built in memory: db_args.c's rows). */
void jsonw_escape_sbuf(struct sbuf *sb, const char *s, size_t len);

#endif
