/* SPDX-License-Identifier: MIT */
/* Exact decimal parsing: µs strings to int64 ns with no double in between. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"
#include "testutil.h"

static int64_t ns_of(const char *s)
{
	int64_t v = 0;
	assert_int_equal(num_us_to_ns(s, strlen(s), &v, NULL), NUM_OK);
	return v;
}

static void test_trace_timestamps_are_exact(void **state)
{
	(void)state;
	/* 16 integer digits + 3 decimals: a double holds only ~15.9 significant digits, so
	 * these values would change through strtod; they must not here. */
	assert_true(ns_of("1736408883674584.732") == 1736408883674584732LL);
	assert_true(ns_of("1736408883674584.733") == 1736408883674584733LL);
	assert_true(ns_of("1704161511420306.491") == 1704161511420306491LL);
	assert_true(ns_of("9007199254740993.001") == 9007199254740993001LL); /* 2^53 + 1 */
	assert_true(ns_of("1736408883973810") == 1736408883973810000LL);    /* no decimals */
	assert_true(ns_of("  1736408883704643.212\t") == 1736408883704643212LL); /* CSV tab */
}

static void test_durations_round_half_away_from_zero(void **state)
{
	(void)state;
	assert_true(ns_of("840.07675") == 840077);  /* 840076.75 ns */
	assert_true(ns_of("0.60003125") == 600);    /* 600.03125 ns */
	assert_true(ns_of("0.0005") == 1);          /* 0.5 ns: half rounds away */
	assert_true(ns_of("0.0004999") == 0);
	assert_true(ns_of("-0.0005") == -1);
	assert_true(ns_of("13.08") == 13080);
	assert_true(ns_of("79089.52021875") == 79089520);
	bool rounded = false;
	int64_t v;
	assert_int_equal(num_us_to_ns("1.0001", 6, &v, &rounded), NUM_OK);
	assert_true(rounded);
	assert_int_equal(num_us_to_ns("1.001", 5, &v, &rounded), NUM_OK);
	assert_false(rounded);
}

static void test_signs_exponents_and_zero(void **state)
{
	(void)state;
	assert_true(ns_of("-0") == 0);
	assert_true(ns_of("-0.000") == 0);
	assert_true(ns_of("+12") == 12000);
	assert_true(ns_of("1.69512E+15") == 1695120000000000000LL); /* Excel's rewrite */
	assert_true(ns_of("1e3") == 1000000);
	assert_true(ns_of("2.5e-3") == 3); /* 2.5 ns -> 3 */
	assert_true(ns_of(".5") == 500);
	assert_true(ns_of("5.") == 5000);
}

static void test_rejects_what_is_not_a_number(void **state)
{
	(void)state;
	int64_t v;
	assert_int_equal(num_us_to_ns("N/A", 3, &v, NULL), NUM_MISSING);
	assert_int_equal(num_us_to_ns("", 0, &v, NULL), NUM_MISSING);
	assert_int_equal(num_us_to_ns(" \t", 2, &v, NULL), NUM_MISSING);
	assert_int_equal(num_us_to_ns("NaN", 3, &v, NULL), NUM_INVALID);
	assert_int_equal(num_us_to_ns("Infinity", 8, &v, NULL), NUM_INVALID);
	assert_int_equal(num_us_to_ns("12abc", 5, &v, NULL), NUM_INVALID);
	assert_int_equal(num_us_to_ns("1e", 2, &v, NULL), NUM_INVALID);
	assert_int_equal(num_us_to_ns("-", 1, &v, NULL), NUM_INVALID);
	assert_int_equal(num_us_to_ns("1e309", 5, &v, NULL), NUM_RANGE);
	assert_int_equal(num_us_to_ns("9223372036854776", 16, &v, NULL), NUM_RANGE); /* > int64 ns */
	assert_int_equal(num_us_to_ns("9223372036854775.807", 20, &v, NULL), NUM_OK);
	assert_true(v == INT64_MAX);
	assert_int_equal(num_us_to_ns("-9223372036854775.808", 21, &v, NULL), NUM_OK);
	assert_true(v == INT64_MIN);
	assert_int_equal(num_us_to_ns("1e-400", 6, &v, NULL), NUM_OK);
	assert_true(v == 0);
}

static void test_flow_ids_beyond_int64(void **state)
{
	(void)state;
	unsigned __int128 v;
	assert_int_equal(num_u128("40004068119343529983", 20, &v), NUM_OK);
	assert_true(v == (unsigned __int128)4000406811934352998ULL * 10 + 3);
	assert_int_equal(num_u128("1736408883839797773", 19, &v), NUM_OK);
	assert_true(v == 1736408883839797773ULL);
	assert_int_equal(num_u128("12a", 3, &v), NUM_INVALID);
	assert_int_equal(num_u128("1234567890123456789012345678901234567890", 40, &v), NUM_RANGE);
}

static void test_doubles_and_integers(void **state)
{
	(void)state;
	double d;
	assert_int_equal(num_double("0.186", 5, &d), NUM_OK);
	assert_true(d > 0.1859 && d < 0.1861);
	assert_int_equal(num_double("nan", 3, &d), NUM_INVALID);
	assert_int_equal(num_double("0x10", 4, &d), NUM_INVALID);
	assert_int_equal(num_double("1e309", 5, &d), NUM_RANGE);
	int64_t i;
	assert_int_equal(num_int64("4294967295", 10, &i), NUM_OK);
	assert_true(i == 4294967295LL);
	assert_int_equal(num_int64("1.5", 3, &i), NUM_INVALID);
	assert_int_equal(num_int64("99999999999999999999", 20, &i), NUM_RANGE);
	char buf[40];
	num_format_ns_as_us(1736408883674584732LL, buf, sizeof buf);
	assert_string_equal(buf, "1736408883674584.732");
	num_format_ns_as_us(-1500, buf, sizeof buf);
	assert_string_equal(buf, "-1.500");
}

/* The generated-number tests: a xorshift step per case, digits from an LCG seeded by it. */
static uint64_t next_case(uint64_t *rng)
{
	*rng ^= *rng << 13, *rng ^= *rng >> 7, *rng ^= *rng << 17;
	return *rng;
}

/* The hand-written formatter against the printf it replaced: edges, generated values and
 * short buffers (truncated as snprintf truncates). */
/* num_format_g9 against "%.9g": whole numbers, decimals of up to six places (its fast
 * paths and their edges) and any double (the fallback). */
static void test_format_g9_matches_printf(void **state)
{
	(void)state;
	static const double edge[] = {0.0, -0.0, 1, -1, 0.559, 0.05, 1e-4, 9.9999e-5, 0.000123, 999.999999,
				      1000, 999999999, 1e9, -999999999, 123456.5, 0.1, 0.3, 2.5e-7, 1e300};
	uint64_t rng = 0x2545f4914f6cdd1dULL;
	for (size_t i = 0; i < 300000; i++) {
		double v;
		uint64_t r = next_case(&rng);
		if (i < sizeof edge / sizeof edge[0])
			v = edge[i];
		else if (i % 4 == 0)
			v = (double)(int64_t)(r % 2000000001) - 1e9; /* whole */
		else if (i % 4 == 1)
			v = (double)(int64_t)(r % 2000000000 - 1000000000) / 1e6; /* six places, |v| < 1000 */
		else if (i % 4 == 2)
			v = (double)(int64_t)(r % 20000) / (double)(1 + r % 7 * 100); /* short and not */
		else {
			memcpy(&v, &r, sizeof v);
			if (v != v)
				v = 0.5;
		}
		char want[48], got[48];
		snprintf(want, sizeof want, "%.9g", v);
		num_format_g9(v, got, sizeof got);
		assert_string_equal(got, want);
	}
}

static void test_format_us_matches_printf(void **state)
{
	(void)state;
	static const int64_t edge[] = {0, 1, -1, 9, 10, 999, 1000, -999, -1000, 1001, 123456789,
				       INT64_MAX, INT64_MIN, INT64_MIN + 1, 4294967295LL};
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	for (size_t i = 0; i < 200000; i++) {
		int64_t v = i < sizeof edge / sizeof edge[0] ? edge[i] : (int64_t)next_case(&rng) >> (i % 60);
		uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
		char want[48], got[48];
		snprintf(want, sizeof want, "%s%llu.%03llu", v < 0 ? "-" : "", (unsigned long long)(a / 1000),
			 (unsigned long long)(a % 1000));
		num_format_ns_as_us(v, got, sizeof got);
		assert_string_equal(got, want);
		size_t small = i % 8;
		memset(got, 'x', sizeof got);
		num_format_ns_as_us(v, got, small);
		if (small) {
			/* snprintf keeps the first small - 1 bytes */
			assert_int_equal(strlen(got), strlen(want) < small - 1 ? strlen(want) : small - 1);
			assert_memory_equal(got, want, strlen(got));
		} else {
			assert_int_equal(got[0], 'x');
		}
	}
}

/* count digits at buf + n; returns the new length */
static size_t put_digits(char *buf, size_t n, size_t count, uint64_t *r)
{
	for (size_t d = 0; d < count; d++, *r = *r * 6364136223846793005ULL + 1442695040888963407ULL)
		buf[n++] = (char)('0' + (*r >> 33) % 10);
	return n;
}

/* num_double against strtod, bit for bit, over a million decimals of every length the
 * fast path takes and a few it hands on. */
static void test_doubles_match_strtod(void **state)
{
	(void)state;
	uint64_t rng = 0x9E3779B97F4A7C15ULL;
	char buf[64];
	for (int k = 0; k < 1000000; k++) {
		next_case(&rng);
		int int_digits = (int)(rng % 12), frac_digits = (int)((rng >> 8) % 20);
		size_t n = 0;
		if ((rng >> 20) & 1)
			buf[n++] = '-';
		uint64_t r = rng;
		n = put_digits(buf, n, (size_t)int_digits, &r);
		if (frac_digits || !int_digits) {
			buf[n++] = '.';
			n = put_digits(buf, n, (size_t)(frac_digits ? frac_digits : 1), &r);
		}
		buf[n] = '\0';
		double got, want = strtod(buf, NULL);
		assert_int_equal(num_double(buf, n, &got), NUM_OK);
		if (memcmp(&got, &want, sizeof got))
			fail_msg("%s: %.17g, strtod %.17g", buf, got, want);
	}
}

/* Microsecond decimals to ns against a digit-by-digit reference in 128 bits: every length
 * of integer and fraction part the fast paths split into eight-digit blocks, signs, half
 * way roundings and values at the int64 edge. */
static void test_us_to_ns_matches_reference(void **state)
{
	(void)state;
	uint64_t rng = 0xD1B54A32D192ED03ULL;
	char buf[64];
	for (int k = 0; k < 1000000; k++) {
		next_case(&rng);
		int idig = 1 + (int)(rng % 19), fdig = (int)((rng >> 8) % 14);
		bool neg = (rng >> 16) & 1;
		size_t n = 0;
		uint64_t r = rng;
		if (neg)
			buf[n++] = '-';
		n = put_digits(buf, n, (size_t)idig, &r);
		if (fdig) {
			buf[n++] = '.';
			n = put_digits(buf, n, (size_t)fdig, &r);
		}
		buf[n] = '\0';
		/* reference: value * 1000, rounded half away from zero */
		__int128 ip = 0, fr = 0, scale = 1;
		size_t i = neg;
		for (; buf[i] && buf[i] != '.'; i++)
			ip = ip * 10 + (buf[i] - '0');
		if (buf[i] == '.')
			for (i++; buf[i]; i++) {
				fr = fr * 10 + (buf[i] - '0');
				scale *= 10;
			}
		__int128 num = ip * scale * 1000 + fr * 1000; /* value * 1000 * scale */
		__int128 q = num / scale, rem = num % scale;
		if (rem * 2 >= scale)
			q++;
		int64_t got = 0;
		enum num_status st = num_us_to_ns(buf, n, &got, NULL);
		if (q > INT64_MAX) {
			if (st == NUM_OK)
				fail_msg("%s: expected out of range, got %lld", buf, (long long)got);
			continue;
		}
		int64_t want = neg ? -(int64_t)q : (int64_t)q;
		if (st != NUM_OK || got != want)
			fail_msg("%s: status %d value %lld, expected %lld", buf, (int)st, (long long)got, (long long)want);
	}
}

/* Runs one() on count cases, each given the next xorshift state from seed. */
static void for_each_case(uint64_t seed, int count, void (*one)(uint64_t rng))
{
	for (int k = 0; k < count; k++)
		one(next_case(&seed));
}

static void time_ns_case(uint64_t rng)
{
	static const char odd[] = "0123456789-+ .eE\tx/:";
	char buf[64];
	uint64_t r = rng;
	size_t n = put_digits(buf, 0, rng % 22, &r);
	if ((rng >> 16) % 4 == 0 && n)
		buf[0] = (char)('1' + (rng >> 20) % 9); /* near the top of the range */
	buf[n++] = '.';
	n = put_digits(buf, n, 1 + (rng >> 8) % 4, &r);
	if ((rng >> 24) % 3 == 0) /* one byte changed */
		buf[(rng >> 28) % n] = odd[(rng >> 40) % (sizeof odd - 1)];
	int64_t got = 0, want = 0;
	bool got_r = true, want_r = true;
	enum num_status st = num_time_ns(buf, n, &got, &got_r);
	enum num_status ref = num_scaled_int(buf, n, 3, &want, &want_r);
	if (ref == NUM_OK && (want > NUM_TIME_MAX_NS || want < -NUM_TIME_MAX_NS))
		ref = NUM_RANGE;
	if (st != ref || (st == NUM_OK && (got != want || got_r != want_r)))
		fail_msg("%.*s: status %d value %lld rounded %d, general path %d %lld %d", (int)n, buf, (int)st,
			 (long long)got, got_r, (int)ref, (long long)want, want_r);
	/* the one-pass variant the loaders use: the same status and value, and the exponent
	 * flag of a separate pass */
	int64_t got_e = 0;
	bool exp_e = false;
	enum num_status st_e = num_time_ns_exp(buf, n, &got_e, &exp_e);
	if (st_e != st || (st == NUM_OK && got_e != got) || exp_e != num_has_exponent(buf, n))
		fail_msg("%.*s: num_time_ns_exp status %d value %lld exponent %d, num_time_ns %d %lld", (int)n, buf,
			 (int)st_e, (long long)got_e, exp_e, (int)st, (long long)got);
}

/* num_time_ns reads "digits.ddd" on a path of its own: against num_scaled_int with the
 * same range check (what num_time_ns was before it), on that shape at every length and
 * around it (a byte changed, a sign, spaces, values past NUM_TIME_MAX_NS). */
static void test_time_ns_shape_matches_general_path(void **state)
{
	(void)state;
	for_each_case(0x9E3779B97F4A7C15ULL, 1000000, time_ns_case);
}

/* The CSV tables' inline shapes (num_time_short, num_double_short) against the general
 * paths over short strings of digits, points, signs, exponents and blanks: whatever a
 * short reader takes, the general one reads the same (and finds no exponent); and it
 * takes the plain decimals it is meant for. */
static void test_short_shapes_match_general(void **state)
{
	(void)state;
	static const char alphabet[] = "01234567890123456789012345678901234567890123456789..-+eE x";
	uint64_t rng = 0x243F6A8885A308D3ULL;
	char buf[32];
	size_t taken_time = 0, taken_double = 0;
	for (int k = 0; k < 2000000; k++) {
		next_case(&rng);
		size_t n = rng % 21;
		uint64_t r = rng;
		for (size_t i = 0; i < n; i++) {
			buf[i] = alphabet[(r ^ (r >> 29)) % (sizeof alphabet - 1)];
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		}
		buf[n] = '\0';
		int64_t ns = 0, want_ns = 0;
		bool exponent = true;
		if (num_time_short(buf, n, &ns)) {
			taken_time++;
			assert_int_equal(num_time_ns_exp(buf, n, &want_ns, &exponent), NUM_OK);
			if (ns != want_ns || exponent)
				fail_msg("%s: %lld, general %lld", buf, (long long)ns, (long long)want_ns);
		}
		double d, want;
		if (num_double_short(buf, n, &d)) {
			taken_double++;
			want = strtod(buf, NULL);
			if (memcmp(&d, &want, sizeof d))
				fail_msg("%s: %.17g, strtod %.17g", buf, d, want);
		}
	}
	assert_true(taken_time > 1000 && taken_double > 1000);
	int64_t ns;
	double d;
	assert_true(num_time_short("1736408883928021.846", 20, &ns) && ns == 1736408883928021846);
	assert_true(!num_time_short("3000000000000000.001", 20, &ns)); /* past NUM_TIME_MAX_NS */
	assert_true(!num_time_short("17364088839280211", 17, &ns));
	assert_true(num_time_short("883928021.846", 13, &ns) && ns == 883928021846);
	assert_true(num_time_short("0.0", 3, &ns) && ns == 0);
	assert_true(num_time_short("18.83", 5, &ns) && ns == 18830);
	assert_true(!num_time_short("1.2345", 6, &ns) && !num_time_short("1.", 2, &ns) && !num_time_short(".5", 2, &ns));
	assert_true(num_double_short("0.559", 5, &d) && d == 0.559);
	assert_true(!num_double_short("-0.5", 4, &d) && !num_double_short("1e5", 3, &d));
	/* zeros and whole numbers skip the division: the same values, +0.0 not -0.0 */
	assert_true(num_double_short("0.000", 5, &d) && d == 0 && !signbit(d));
	assert_true(num_double_short("000", 3, &d) && d == 0 && !signbit(d));
	assert_true(num_double_short("1319400", 7, &d) && d == 1319400.0);
	assert_true(num_double_short("123456789012345", 15, &d) && d == 123456789012345.0);
}

static void u128_case(uint64_t rng)
{
	char buf[48];
	size_t n = 1 + rng % 40;
	uint64_t r = rng;
	put_digits(buf, 0, n, &r);
	if ((rng >> 20) % 3 == 0)
		buf[(rng >> 24) % n] = "x-. 9/:"[(rng >> 40) % 7];
	unsigned __int128 want = 0;
	enum num_status ref = NUM_OK;
	const char *s = buf;
	size_t len = n;
	while (len && *s == ' ')
		s++, len--;
	while (len && s[len - 1] == ' ')
		len--;
	if (!len)
		ref = NUM_MISSING;
	else if (len > 39)
		ref = NUM_RANGE; /* more digits than 128 bits hold, whatever they are */
	for (size_t i = 0; i < len && ref == NUM_OK; i++) {
		if (s[i] < '0' || s[i] > '9')
			ref = NUM_INVALID;
		else if (want > (~(unsigned __int128)0 - (unsigned)(s[i] - '0')) / 10)
			ref = NUM_RANGE;
		else
			want = want * 10 + (unsigned)(s[i] - '0');
	}
	unsigned __int128 got = 0;
	enum num_status st = num_u128(buf, n, &got);
	if (st != ref || (st == NUM_OK && got != want))
		fail_msg("%.*s: status %d, reference %d", (int)n, buf, (int)st, (int)ref);
}

/* Flow ids: num_u128 against a digit-by-digit reading, at every length up to 40, with a
 * byte changed now and then. */
static void test_u128_matches_reference(void **state)
{
	(void)state;
	for_each_case(0x2545F4914F6CDD1DULL, 300000, u128_case);
}

/* span x columns / width for windows of years: exact where the quotient fits, held at
 * the int64 limits where it does not (issue 22: span * 12 overflowed in the ruler) */
static void test_muldiv(void **state)
{
	(void)state;
	assert_int_equal(num_muldiv(7, 3, 2), 10);
	assert_int_equal(num_muldiv(-7, 3, 2), -10);
	int64_t span = INT64_C(9000000000000000000);
	assert_int_equal(num_muldiv(span, 12, 100), INT64_C(1080000000000000000));
	assert_int_equal(num_muldiv(span, 99, 100), INT64_C(8910000000000000000));
	assert_true(num_muldiv(span, 12, 1) == INT64_MAX);
	assert_true(num_muldiv(-span, 12, 1) == INT64_MIN);
	assert_int_equal(num_muldiv(INT64_MAX, INT64_MAX, INT64_MAX), INT64_MAX);
}

/* A sparkline's level: where x × top + 0.5 fits an int, the truncation the views had,
 * held to 0..top (the old clamp, after a cast that is defined here); past that (a load a
 * million times the median, an empty column's -inf, inf / inf) the end it is nearest,
 * NaN 0, where the cast itself was undefined (-fsanitize=float-cast-overflow). */
static void test_level(void **state)
{
	(void)state;
	for (int top = 1; top <= 9; top++)
		for (int i = -400; i <= 600; i++) {
			double x = i / 200.0;
			int old = (int)(x * top + 0.5);
			assert_int_equal(num_level(x, top), old < 0 ? 0 : old > top ? top : old);
		}
	assert_int_equal(num_level(1e18, 7), 7);
	assert_int_equal(num_level(9.9e307, 7), 7);
	assert_int_equal(num_level(INFINITY, 7), 7);
	assert_int_equal(num_level(-1e18, 7), 0);
	assert_int_equal(num_level(-INFINITY, 7), 0);
	assert_int_equal(num_level(NAN, 7), 0);
	assert_int_equal(num_level(INFINITY / INFINITY, 9), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_timestamps_are_exact),
		cmocka_unit_test(test_durations_round_half_away_from_zero),
		cmocka_unit_test(test_signs_exponents_and_zero),
		cmocka_unit_test(test_rejects_what_is_not_a_number),
		cmocka_unit_test(test_flow_ids_beyond_int64),
		cmocka_unit_test(test_doubles_and_integers),
		cmocka_unit_test(test_doubles_match_strtod),
		cmocka_unit_test(test_us_to_ns_matches_reference),
		cmocka_unit_test(test_time_ns_shape_matches_general_path),
		cmocka_unit_test(test_short_shapes_match_general),
		cmocka_unit_test(test_u128_matches_reference),
		cmocka_unit_test(test_muldiv),
		cmocka_unit_test(test_level),
		cmocka_unit_test(test_format_us_matches_printf),
		cmocka_unit_test(test_format_g9_matches_printf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
