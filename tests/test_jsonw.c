/* SPDX-License-Identifier: MIT */
/* The JSON writer's own number formatting against printf, the oracle: jsonw_fixed must
 * write the bytes "%.*f" writes (exact rounding of the binary value, ties to even, the
 * sign of a negative value that rounds to 0), and integers as "%lld"/"%llu" do. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "testutil.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void check(double v, int d)
{
	char want[512], got[512];
	snprintf(want, sizeof want, "%.*f", d, v);
	size_t n = jsonw_fixed(got, sizeof got, v, d);
	if (strcmp(want, got) || n != strlen(want))
		fail_msg("%.17g at %d decimals: printf %s, jsonw_fixed %s", v, d, want, got);
}

static void test_fixed_edges(void **state)
{
	(void)state;
	static const double vals[] = {0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, 0.125, 0.375, 0.0005, -0.0004, 1e-300,
				      -1e-300, DBL_MIN, 4.9e-324, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 123456.7895,
				      999.9995, 9.9999999995, 1e15, 1e18, 9.2e18, 1.8e19, 1e19, 1e20, 1e300,
				      DBL_MAX, -DBL_MAX, 4503599627370496.5, 9007199254740993.0, 17.5e-3, 1024.0625};
	for (size_t i = 0; i < sizeof vals / sizeof *vals; i++)
		for (int d = 0; d <= 12; d++) {
			check(vals[i], d);
			check(-vals[i], d);
		}
	/* every tie k + 1/2 at 0 decimals, k/2^j at j-1 decimals */
	for (int k = -1000; k <= 1000; k++) {
		check(k + 0.5, 0);
		for (int j = 1; j <= 9; j++)
			check(ldexp(2 * k + 1, -j), j - 1);
	}
}

/* Random values of every magnitude and the values reports hold (microseconds with three
 * decimals, percentages, ratios): a million in all. */
static void test_fixed_random(void **state)
{
	(void)state;
	for (int i = 0; i < 300000; i++) {
		uint64_t b = next();
		double v;
		memcpy(&v, &b, sizeof v);
		if (!isfinite(v))
			continue;
		check(v, (int)(next() % 10));
	}
	for (int i = 0; i < 400000; i++) {
		double v = (double)(int64_t)(next() % 20000000000ULL - 10000000000ULL) / 1000.0;
		check(v, (int)(next() % 10));
	}
	for (int i = 0; i < 300000; i++) {
		double v = ldexp((double)(next() >> 11), (int)(next() % 140) - 110);
		check(next() & 1 ? -v : v, (int)(next() % 10));
	}
}

static char *written(void (*emit)(struct jsonw *, const void *), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct jsonw w;
	jsonw_init(&w, f, false);
	emit(&w, arg);
	fclose(f);
	return buf;
}

static void emit_ints(struct jsonw *w, const void *arg)
{
	(void)arg;
	jsonw_arr_begin(w);
	static const int64_t v[] = {0, 1, -1, 9, 10, -10, 1234567890123LL, INT64_MAX, INT64_MIN};
	for (size_t i = 0; i < sizeof v / sizeof *v; i++)
		jsonw_int(w, v[i]);
	jsonw_uint(w, UINT64_MAX);
	jsonw_uint(w, 0);
	jsonw_double(w, 12.5, 3);
	jsonw_double(w, -0.0001, 3);
	jsonw_double(w, 3.0, 3);
	jsonw_str(w, "a\"b\\c\n\x01 plain ascii run \xe4\xb8\xad\xff end");
	jsonw_arr_end(w);
}

static void test_ints_and_strings(void **state)
{
	(void)state;
	char *s = written(emit_ints, NULL);
	assert_string_equal(s, "[0,1,-1,9,10,-10,1234567890123,9223372036854775807,-9223372036854775808,"
			       "18446744073709551615,0,12.5,0,3,\"a\\\"b\\\\c\\n\\u0001 plain ascii run "
			       "\xe4\xb8\xad\\\\xFF end\"]");
	free(s);
}

/* The escaping into a string (db_args.c's rows) is the writers' own: the same bytes as into a
 * FILE, and what test_ints_and_strings pins for one of them. */
static void test_escape_sbuf(void **state)
{
	(void)state;
	static const char *const cases[] = {
		"a\"b\\c\n\x01 plain ascii run \xe4\xb8\xad\xff end",
		"\r\t\x7f \xe2\x80\xae bidi \xc2\x85 C1",
		"",
		"\xf0\x9f\x98\x80 \xed\xa0\x80 surrogate",
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		jsonw_escape(f, cases[i], strlen(cases[i]));
		fclose(f);
		struct sbuf sb = SBUF_INIT;
		sbuf_adds(&sb, "");
		jsonw_escape_sbuf(&sb, cases[i], strlen(cases[i]));
		assert_int_equal(sb.len, len);
		assert_memory_equal(sb.buf, buf, len);
		if (i == 0)
			assert_string_equal(sb.buf, "a\\\"b\\\\c\\n\\u0001 plain ascii run \xe4\xb8\xad\\\\xFF end");
		sbuf_free(&sb);
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_edges),
		cmocka_unit_test(test_fixed_random),
		cmocka_unit_test(test_ints_and_strings),
		cmocka_unit_test(test_escape_sbuf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
