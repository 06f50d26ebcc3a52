/* SPDX-License-Identifier: MIT */
/* Exact decimal parsing: integer mantissa and decimal exponent, scaled in integers. */
#include "num.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void trim(const char **s, size_t *len)
{
	const char *p = *s;
	size_t n = *len;
	while (n && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) {
		p++;
		n--;
	}
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r' || p[n - 1] == '\n'))
		n--;
	*s = p;
	*len = n;
}

static bool ieq(const char *s, size_t len, const char *word)
{
	size_t wl = strlen(word);
	if (len != wl)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != word[i])
			return false;
	}
	return true;
}

bool num_is_missing(const char *s, size_t len)
{
	trim(&s, &len);
	return len == 0 || ieq(s, len, "n/a") || ieq(s, len, "na") || ieq(s, len, "null");
}

/* A leading sign at s[*i]: skips it, true when it is '-'. */
static bool sign(const char *s, size_t len, size_t *i)
{
	if (*i < len && (s[*i] == '-' || s[*i] == '+'))
		return s[(*i)++] == '-';
	return false;
}

bool num_has_exponent(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == 'e' || s[i] == 'E')
			return true;
	return false;
}

#define MAX_DIGITS 38 /* what an unsigned __int128 mantissa holds safely */

static const uint64_t pow10_u64[19] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
	1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
	1000000000000000000ULL,
};

/* The common shape, "-?digits(.digits)?" with at most 18 digits on each side, in 64-bit
 * arithmetic: trace timestamps and durations all look like this. Returns false for
 * anything else (the general path then decides, with the same result). */
/* Eight ASCII digits at s as a number, or false when they are not all digits. Trace
 * timestamps carry 16 to 20 digits: two or three of these instead of a loop per digit. */
static inline bool eight_digits(const char *s, uint64_t *out)
{
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	(void)s;
	(void)out;
	return false; /* the arithmetic below reads the first digit from the lowest byte */
#endif
	uint64_t v;
	memcpy(&v, s, 8);
	if ((v & 0xF0F0F0F0F0F0F0F0ULL) != 0x3030303030303030ULL ||
	    ((v + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) != 0x3030303030303030ULL)
		return false;
	v -= 0x3030303030303030ULL; /* byte k (little-endian) is the k-th digit */
	v = (v * 10) + (v >> 8);    /* pairs: 2-digit values in bytes 0, 2, 4, 6 */
	v = (((v & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
	     (((v >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >>
	    32;
	*out = v;
	return true;
}

/* A run of decimal digits from s[*i] into *v, eight at a time while they fit: false past 18
 * digits (an int64 of ns holds no more). *ndig counts them, *i ends after the run. */
static inline bool digit_run(const char *s, size_t len, size_t *i, uint64_t *v, size_t *ndig)
{
	uint64_t v8;
	while (len - *i >= 8 && *ndig + 8 <= 18 && eight_digits(s + *i, &v8)) {
		*v = *v * 100000000 + v8;
		*ndig += 8;
		*i += 8;
	}
	while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
		if (++*ndig > 18)
			return false;
		*v = *v * 10 + (uint64_t)(s[(*i)++] - '0');
	}
	return true;
}

static bool fast_decimal(const char *s, size_t len, int scale_exp, int64_t *out, bool *rounded)
{
	if (scale_exp < 0 || scale_exp > 9)
		return false;
	size_t i = 0;
	bool neg = false;
	if (i < len && s[i] == '-') {
		neg = true;
		i++;
	}
	uint64_t ip = 0, frac = 0;
	size_t idig = 0, fdig = 0;
	if (!digit_run(s, len, &i, &ip, &idig) || idig == 0)
		return false;
	if (i < len && s[i] == '.') {
		i++;
		if (!digit_run(s, len, &i, &frac, &fdig) || fdig == 0)
			return false;
	}
	if (i != len)
		return false;
	uint64_t scale = pow10_u64[scale_exp];
	if (ip > (uint64_t)INT64_MAX / scale)
		return false;
	uint64_t r = ip * scale;
	bool lost = false;
	if (fdig <= (size_t)scale_exp) {
		r += frac * pow10_u64[(size_t)scale_exp - fdig];
	} else {
		uint64_t div = pow10_u64[fdig - (size_t)scale_exp];
		uint64_t q = frac / div, rem = frac % div;
		if (rem)
			lost = true;
		if (rem * 2 >= div) /* half away from zero */
			q++;
		r += q;
	}
	if (r > (uint64_t)INT64_MAX)
		return false;
	if (rounded)
		*rounded = lost;
	*out = neg ? -(int64_t)r : (int64_t)r;
	return true;
}

enum num_status num_scaled_int(const char *s, size_t len, int scale_exp, int64_t *out,
			       bool *rounded)
{
	if (rounded)
		*rounded = false;
	trim(&s, &len);
	if (fast_decimal(s, len, scale_exp, out, rounded))
		return NUM_OK;
	if (num_is_missing(s, len))
		return NUM_MISSING;
	size_t i = 0;
	bool neg = sign(s, len, &i);
	unsigned __int128 mant = 0;
	int ndig = 0;        /* significant digits kept in mant */
	long exp10 = 0;      /* value = mant * 10^exp10 */
	bool any = false, sticky = false;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		any = true;
		if (ndig < MAX_DIGITS) {
			if (mant || s[i] != '0') {
				mant = mant * 10 + (unsigned)(s[i] - '0');
				ndig++;
			}
		} else {
			exp10++;
			sticky |= s[i] != '0';
		}
	}
	if (i < len && s[i] == '.') {
		i++;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			any = true;
			if (ndig < MAX_DIGITS) {
				if (mant || s[i] != '0')
					ndig++;
				mant = mant * 10 + (unsigned)(s[i] - '0');
				exp10--;
			} else {
				sticky |= s[i] != '0';
			}
		}
	}
	if (!any)
		return NUM_INVALID;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		bool eneg = false;
		if (i < len && (s[i] == '-' || s[i] == '+')) {
			eneg = s[i] == '-';
			i++;
		}
		if (i >= len || s[i] < '0' || s[i] > '9')
			return NUM_INVALID;
		long e = 0;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			if (e < 100000)
				e = e * 10 + (s[i] - '0');
		exp10 += eneg ? -e : e;
	}
	if (i != len)
		return NUM_INVALID;

	long e = exp10 + scale_exp;
	unsigned __int128 v = mant;
	if (mant == 0) {
		*out = 0;
		if (rounded)
			*rounded = sticky;
		return NUM_OK;
	}
	if (e >= 0) {
		for (long k = 0; k < e; k++) {
			if (v > (unsigned __int128)INT64_MAX)
				return NUM_RANGE;
			v *= 10;
		}
	} else {
		long drop = -e;
		if (drop > MAX_DIGITS + 1) {
			v = 0;
			sticky = true;
		} else {
			unsigned __int128 p = 1;
			for (long k = 0; k < drop; k++)
				p *= 10;
			unsigned __int128 q = v / p, r = v % p;
			if (r)
				sticky = true;
			/* half away from zero: compare twice the remainder with the divisor */
			if (r * 2 >= p)
				q++;
			v = q;
		}
	}
	if (v > (unsigned __int128)INT64_MAX + (neg ? 1 : 0))
		return NUM_RANGE;
	if (rounded)
		*rounded = sticky;
	*out = neg ? (int64_t)(0 - (uint64_t)v) : (int64_t)v;
	return NUM_OK;
}

enum num_status num_us_to_ns(const char *s, size_t len, int64_t *out, bool *rounded)
{
	return num_scaled_int(s, len, 3, out, rounded);
}

/* Plain decimals ("-12.345", "0.697") of up to 15 significant digits and 22 decimals:
 * mantissa and power of ten are exact doubles, so one division gives the correctly
 * rounded value strtod would (Clinger's fast path), without its call and copy. */
static bool fast_double(const char *s, size_t len, double *out)
{
	static const double pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
					 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
	const char *p = s, *e = s + len;
	bool neg = p < e && *p == '-';
	p += neg;
	/* the integer digits, then the fraction's into the same mantissa: at most 19 digits in
	 * all (no overflow), and a mantissa below 10^15 (at most 15 significant digits) */
	uint64_t mant = 0;
	const char *first = p;
	while (p < e && (unsigned)(*p - '0') < 10)
		mant = mant * 10 + (uint64_t)(*p++ - '0');
	size_t ndig = (size_t)(p - first), frac = 0;
	if (p < e && *p == '.') {
		const char *f0 = ++p;
		while (p < e && (unsigned)(*p - '0') < 10 && ndig + (size_t)(p - f0) < 19)
			mant = mant * 10 + (uint64_t)(*p++ - '0');
		frac = (size_t)(p - f0);
		ndig += frac;
	}
	/* exponents, signs, more digits and the rest go to strtod */
	if (p != e || ndig == 0 || ndig > 19 || frac > 22 || mant >= 1000000000000000ULL)
		return false;
	double v = (double)mant / pow10[frac];
	*out = neg ? -v : v;
	return true;
}

/* "digits.ddd": up to 16 digits, a point and exactly three decimals, the shape of every
 * trace timestamp and duration (whole ns, nothing to round), read without the general
 * path's trimming and digit counting. False for anything else, and for a value beyond
 * NUM_TIME_MAX_NS: the general path then gives the verdict. */
static inline bool time_us3(const char *s, size_t len, int64_t *out)
{
	if (len < 5 || len > 20 || s[len - 4] != '.')
		return false;
	size_t int_len = len - 4, i = 0;
	uint64_t ip = 0, v8;
	for (; int_len - i >= 8; i += 8) {
		if (!eight_digits(s + i, &v8))
			return false;
		ip = ip * 100000000 + v8;
	}
	for (; i < int_len; i++) {
		unsigned d = (unsigned)(unsigned char)s[i] - '0';
		if (d > 9)
			return false;
		ip = ip * 10 + d;
	}
	unsigned d0 = (unsigned)(unsigned char)s[len - 3] - '0', d1 = (unsigned)(unsigned char)s[len - 2] - '0',
		 d2 = (unsigned)(unsigned char)s[len - 1] - '0';
	if (d0 > 9 || d1 > 9 || d2 > 9)
		return false;
	uint64_t v = ip * 1000 + d0 * 100 + d1 * 10 + d2; /* 16 digits: below 2^64 */
	if (v > (uint64_t)NUM_TIME_MAX_NS)
		return false;
	*out = (int64_t)v;
	return true;
}

enum num_status num_time_ns(const char *s, size_t len, int64_t *out, bool *rounded)
{
	if (time_us3(s, len, out)) {
		if (rounded)
			*rounded = false;
		return NUM_OK;
	}
	int64_t v;
	enum num_status st = num_scaled_int(s, len, 3, &v, rounded);
	if (st == NUM_OK && (v > NUM_TIME_MAX_NS || v < -NUM_TIME_MAX_NS))
		return NUM_RANGE;
	if (st == NUM_OK)
		*out = v;
	return st;
}

enum num_status num_time_ns_exp(const char *s, size_t len, int64_t *out, bool *exponent)
{
	if (time_us3(s, len, out)) {
		*exponent = false; /* its shape has no letter */
		return NUM_OK;
	}
	*exponent = num_has_exponent(s, len);
	return num_time_ns(s, len, out, NULL);
}

enum num_status num_double(const char *s, size_t len, double *out)
{
	if (num_double_short(s, len, out))
		return NUM_OK;
	/* cells come trimmed: the loop only when an end is blank */
	if (len && ((unsigned char)s[0] <= ' ' || (unsigned char)s[len - 1] <= ' '))
		trim(&s, &len);
	if (fast_double(s, len, out))
		return NUM_OK;
	if (num_is_missing(s, len))
		return NUM_MISSING;
	char buf[128];
	if (len >= sizeof buf)
		return NUM_INVALID;
	/* strtod accepts hex, inf and nan; profile numbers are plain decimals only. */
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
			return NUM_INVALID;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	char *end;
	errno = 0;
	double v = strtod(buf, &end);
	if (end != buf + len || end == buf)
		return NUM_INVALID;
	if (!isfinite(v) || (errno == ERANGE && fabs(v) > 1.0))
		return NUM_RANGE;
	*out = v;
	return NUM_OK;
}

enum num_status num_int64(const char *s, size_t len, int64_t *out)
{
	trim(&s, &len);
	if (num_is_missing(s, len))
		return NUM_MISSING;
	size_t i = 0;
	bool neg = sign(s, len, &i);
	if (i == len)
		return NUM_INVALID;
	uint64_t v = 0;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return NUM_INVALID;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return NUM_RANGE;
		v = v * 10 + d;
	}
	if (v > (uint64_t)INT64_MAX + (neg ? 1 : 0))
		return NUM_RANGE;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return NUM_OK;
}

/* Up to 19 decimal digits (always within a uint64), eight at a time where it can. */
static bool digits_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t w = 0, v8;
	size_t i = 0;
	for (; len - i >= 8 && eight_digits(s + i, &v8); i += 8)
		w = w * 100000000 + v8;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		w = w * 10 + (uint64_t)(s[i] - '0');
	}
	*out = w;
	return true;
}

enum num_status num_u128(const char *s, size_t len, unsigned __int128 *out)
{
	trim(&s, &len);
	if (len == 0)
		return NUM_MISSING;
	if (len > 39)
		return NUM_RANGE;
	if (len <= 19) {
		/* one part: the trace's flow ids (millions of them) */
		uint64_t v;
		if (!digits_u64(s, len, &v))
			return NUM_INVALID;
		*out = v;
		return NUM_OK;
	}
	if (len <= 38) {
		/* two uint64 parts of at most 19 digits: below 10^38, no overflow to check */
		size_t high_len = len > 19 ? len - 19 : 0;
		uint64_t high = 0, low;
		if (!digits_u64(s, high_len, &high) || !digits_u64(s + high_len, len - high_len, &low))
			return NUM_INVALID;
		*out = (unsigned __int128)high * 10000000000000000000ULL + low;
		return NUM_OK;
	}
	unsigned __int128 v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return NUM_INVALID;
		unsigned __int128 nv = v * 10 + (unsigned)(s[i] - '0');
		if (nv / 10 != v)
			return NUM_RANGE;
		v = nv;
	}
	*out = v;
	return NUM_OK;
}

void num_format_ns_as_us(int64_t ns, char *buf, size_t size)
{
	/* "%s%llu.%03llu" by hand: a Db's kernel table writes millions of these */
	uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns, whole = a / 1000;
	unsigned frac = (unsigned)(a % 1000);
	char t[32];
	size_t at = sizeof t;
	t[--at] = (char)('0' + frac % 10);
	t[--at] = (char)('0' + frac / 10 % 10);
	t[--at] = (char)('0' + frac / 100);
	t[--at] = '.';
	do
		t[--at] = (char)('0' + whole % 10);
	while (whole /= 10);
	if (ns < 0)
		t[--at] = '-';
	if (!size)
		return;
	size_t n = sizeof t - at < size - 1 ? sizeof t - at : size - 1;
	memcpy(buf, t + at, n);
	buf[n] = '\0';
}

/* digits of u before end; returns the first */
static char *put_u64(char *end, uint64_t u)
{
	do
		*--end = (char)('0' + u % 10);
	while (u /= 10);
	return end;
}

void num_format_g9(double v, char *buf, size_t size) { num_format_g9_exact(v, buf, size); }

/* a whole number below 1e9 (not -0), which %.9g writes without a point; the range first: the cast of a
 * double past int64 (or NaN) is undefined */
static bool g9_whole(double v, double a) { return a < 1e9 && v == (double)(int64_t)v && (v != 0 || !signbit(v)); }
/* a = k / 10^6 to the nearest double, below 1000: at most nine significant digits (k
 * into *k). a * 1e6 is from 100 to 2^30 here, where adding 0.5 and truncating rounds as
 * llround does (no libm call: a Db kernel table asks this of every counter). */
static bool g9_micro(double a, int64_t *k)
{
	if (!(a >= 1e-4 && a < 1e3))
		return false;
	*k = (int64_t)(a * 1e6 + 0.5);
	return (double)*k / 1e6 == a;
}

/* decimal digits of u, by comparisons (no divisions) */
static size_t u64_digits(uint64_t u)
{
	size_t n = 1;
	for (uint64_t p = 10; n < 20 && u >= p; p *= 10)
		n++;
	return n;
}

size_t num_ns_as_us_len(int64_t ns)
{
	uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
	return (ns < 0) + u64_digits(a / 1000) + 4;
}

size_t num_g9_exact_len(double v)
{
	double a = fabs(v);
	size_t sign = v < 0;
	int64_t k;
	if (g9_whole(v, a))
		return sign + u64_digits((uint64_t)(int64_t)a);
	if (!g9_micro(a, &k))
		return 0;
	/* as num_format_g9_exact writes it: the whole part, then the fraction's places
	 * without their trailing zeros */
	int frac = (int)(k % 1000000), places = 6;
	while (frac && frac % 10 == 0) {
		frac /= 10;
		places--;
	}
	return sign + u64_digits((uint64_t)(k / 1000000)) + (frac ? 1 + (size_t)places : 0);
}

bool num_format_g9_exact(double v, char *buf, size_t size)
{
	double a = fabs(v);
	char t[40], *end = t + sizeof t - 1, *p;
	*end = '\0';
	int64_t k;
	if (g9_whole(v, a)) {
		p = put_u64(end, (uint64_t)(int64_t)a);
	} else if (g9_micro(a, &k)) {
		/* a = k / 10^6 to the nearest double: at most nine significant digits, which
		 * %.9g writes in fixed notation with its trailing zeros dropped */
		int frac = (int)(k % 1000000), places = 6;
		while (frac && frac % 10 == 0) {
			frac /= 10;
			places--;
		}
		p = end;
		if (frac) {
			for (int i = 0; i < places; i++, frac /= 10)
				*--p = (char)('0' + frac % 10);
			*--p = '.';
		}
		p = put_u64(p, (uint64_t)(k / 1000000));
	} else {
		snprintf(buf, size, "%.9g", v);
		return false;
	}
	if (v < 0)
		*--p = '-';
	size_t n = (size_t)(end - p);
	if (!size)
		return false;
	n = n < size - 1 ? n : size - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return true;
}
