/* SPDX-License-Identifier: MIT */
/* Exact number parsing for profile data. Timestamps arrive as decimal strings of
 * microseconds ("1736408883674584.732") and must become int64 nanoseconds without ever
 * passing through a double. */
#ifndef ASCPROF_NUM_H
#define ASCPROF_NUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum num_status {
	NUM_OK,
	NUM_MISSING, /* empty, "N/A", "NA", "null" (after trimming) */
	NUM_INVALID, /* not a number: text, NaN, Infinity, trailing garbage */
	NUM_RANGE,   /* a number, but it does not fit */
};

/* Decimal microseconds (sign, fraction and exponent allowed; spaces, tabs, CR and LF
 * trimmed) to nanoseconds. Digits below 1 ns round half away from zero. *rounded (may
 * be NULL) tells whether any non-zero digit was dropped. */
enum num_status num_us_to_ns(const char *s, size_t len, int64_t *out, bool *rounded);
/* Times from files: num_us_to_ns, but NUM_RANGE beyond ±NUM_TIME_MAX_NS (1970 ± 95
 * years), so that a start plus a duration, or three parts of a step, never overflow. */
#define NUM_TIME_MAX_NS INT64_C(3000000000000000000)
enum num_status num_time_ns(const char *s, size_t len, int64_t *out, bool *rounded);
/* num_time_ns's common shapes inline, for the CSV tables (four cells a row of a kernel
 * table): 1 to 16 digits, then maybe a point and 1 to 3 decimals: whole ns, nothing to
 * round, no exponent. False for anything else and past NUM_TIME_MAX_NS, which num_time_ns
 * reads. */
static inline bool num_time_short(const char *s, size_t len, int64_t *out)
{
	static const uint32_t scale[4] = {1000, 100, 10, 1};
	uint64_t v = 0;
	size_t i = 0;
	while (i < len && (unsigned)(unsigned char)s[i] - '0' <= 9)
		v = v * 10 + ((unsigned)(unsigned char)s[i++] - '0');
	if (i == 0 || i > 16)
		return false;
	size_t frac = 0;
	if (i < len) {
		if (s[i] != '.')
			return false;
		size_t f0 = ++i;
		while (i < len && i - f0 < 3 && (unsigned)(unsigned char)s[i] - '0' <= 9)
			v = v * 10 + ((unsigned)(unsigned char)s[i++] - '0');
		frac = i - f0;
		if (i != len || frac == 0)
			return false;
	}
	v *= scale[frac]; /* below 10^19: no overflow */
	if (v > (uint64_t)NUM_TIME_MAX_NS)
		return false;
	*out = (int64_t)v;
	return true;
}
/* num_time_ns, and *exponent = num_has_exponent(s, len), which the common shape (digits
 * and a point) answers without a second pass over the text. */
enum num_status num_time_ns_exp(const char *s, size_t len, int64_t *out, bool *exponent);
/* a + b, held at INT64_MAX or INT64_MIN instead of overflowing: sums of values read
 * from files. */
static inline int64_t num_sat_add(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}
/* a × b / c (c != 0) through a 128-bit product, held at INT64_MAX or INT64_MIN: a time
 * span scaled to screen columns and back, where span × columns passes 64 bits once a
 * window is a few months long. */
static inline int64_t num_muldiv(int64_t a, int64_t b, int64_t c)
{
	__int128 r = (__int128)a * b / c;
	return r > INT64_MAX ? INT64_MAX : r < INT64_MIN ? INT64_MIN : (int64_t)r;
}
/* x (0..1 the useful range) as a level 0..top to the nearest, (int)(x × top + 0.5) as the
 * sparklines had it, but held to 0..top before the cast: a ratio far past 1 (a load a
 * million times the median) or NaN (an empty column at -inf, inf / inf) cast to int is
 * undefined, and was the clamp's input. NaN is level 0. */
static inline int num_level(double x, int top)
{
	double y = x * top + 0.5;
	return y >= 1 ? (y < top ? (int)y : top) : 0;
}
/* The same with a power-of-ten scale: value × 10^scale_exp, as an integer. num_us_to_ns
 * is num_scaled_int(s, len, 3, ...). Milliseconds to ns use 6. */
enum num_status num_scaled_int(const char *s, size_t len, int scale_exp, int64_t *out,
			       bool *rounded);
/* A finite double. */
enum num_status num_double(const char *s, size_t len, double *out);
/* num_double's common case, inline for the CSV tables' ratios (ten cells a row of a
 * kernel table): digits, then maybe a point and digits, 15 digits at most (the value,
 * exact below 2^53, and an exact power of ten: one rounding, as strtod's). False for
 * anything else, which num_double reads. */
static inline bool num_double_short(const char *s, size_t len, double *out)
{
	static const double pow10[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
					 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
	if (len == 0 || len > 16)
		return false;
	uint64_t mant = 0;
	size_t i = 0, point = len;
	for (; i < len; i++) {
		unsigned d = (unsigned)(unsigned char)s[i] - '0';
		if (d <= 9) {
			mant = mant * 10 + d;
		} else if (s[i] == '.' && point == len && i > 0 && i + 1 < len) {
			point = i;
		} else {
			return false;
		}
	}
	size_t frac = point == len ? 0 : len - point - 1, ndig = len - (point != len);
	if (ndig > 15)
		return false;
	/* zeros and whole numbers (most of a kernel table's cells) skip the division, the
	 * costliest step; the quotient would be the same value */
	*out = mant == 0 || frac == 0 ? (double)mant : (double)mant / pow10[frac];
	return true;
}
/* A whole number (no fraction, no exponent). */
enum num_status num_int64(const char *s, size_t len, int64_t *out);
/* Unsigned decimal of up to 39 digits (flow ids reach 20 digits, beyond uint64). */
enum num_status num_u128(const char *s, size_t len, unsigned __int128 *out);
bool num_is_missing(const char *s, size_t len);
/* True when the text uses exponent notation, e.g. Excel's "1.69512E+15". */
bool num_has_exponent(const char *s, size_t len);
/* Writes ns as a decimal µs string with three decimals ("1736408883674584.732"). */
void num_format_ns_as_us(int64_t ns, char *buf, size_t size);
/* Writes what snprintf's "%.9g" writes (size at least 32), without its floating-point
 * formatting for whole numbers below 1e9 and decimals of at most six places below 1000
 * (a Db's counters and ratios); other values go through snprintf. */
void num_format_g9(double v, char *buf, size_t size);
/* The same; true when it wrote one of those two shapes, whose text is v exactly (the
 * nearest double to the decimal is v): num_double_short reads it back to v when v >= 0. */
bool num_format_g9_exact(double v, char *buf, size_t size);
/* The length of what num_format_g9_exact writes for v when it writes one of those shapes,
 * without writing it; 0 when it does not. */
size_t num_g9_exact_len(double v);
/* The length of what num_format_ns_as_us writes for ns, without writing it. */
size_t num_ns_as_us_len(int64_t ns);

#endif
