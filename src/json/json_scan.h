/* SPDX-License-Identifier: MIT */
/* Finds the elements of a Chrome-trace event array without building a DOM: a bare
 * array, or the array under "traceEvents" in a wrapper object. The scanner only tracks
 * strings and nesting depth to find each element's byte range; jsmn then tokenizes the
 * element alone. A missing tail (a killed export) ends the walk with JSCAN_TRUNCATED
 * after every complete element. */
#ifndef ASCPROF_JSON_SCAN_H
#define ASCPROF_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "sbuf.h"

enum jscan_shape { JSCAN_BARE_ARRAY, JSCAN_WRAPPED };

enum jscan_status {
	JSCAN_ELEMENT,   /* [start, end) holds one element */
	JSCAN_END,       /* the closing ']' was reached */
	JSCAN_TRUNCATED, /* the input ended first; `pos` is where the cut was noticed */
	JSCAN_ERROR,     /* a byte that cannot stand here; `pos` points at it */
};

struct jscan {
	const char *buf; /* borrowed */
	size_t len;
	size_t pos;         /* next byte to look at */
	size_t array_start; /* offset of the '[' */
	enum jscan_shape shape;
};

/* Locates the event array in buf (borrowed, kept in js: it must outlive the scan).
 * Returns false with a message in err (naming the byte offset) when the input holds no
 * event array. */
bool jscan_open(struct jscan *js, const char *buf, size_t len, struct sbuf *err);
/* Next element from js->pos. On JSCAN_ELEMENT, *start and *end bound it and pos moves on. */
enum jscan_status jscan_next(struct jscan *js, size_t *start, size_t *end);
/* End (exclusive) of the JSON value at buf[pos] (no leading whitespace), or (size_t)-1
 * when the input ends inside it. Strings, objects, arrays and primitives. */
size_t jscan_value_end(const char *buf, size_t len, size_t pos);
/* From an arbitrary offset, a plausible element start: the '{' of a "}, {" boundary at or
 * after pos, or (size_t)-1. Speculative (the pattern can sit inside a string); callers
 * confirm it against an exact walk. */
size_t jscan_resync(const char *buf, size_t len, size_t pos);
/* Offset past spaces, tabs, CR and LF. */
size_t jscan_skip_ws(const char *buf, size_t len, size_t pos);

#endif
