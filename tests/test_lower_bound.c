/* SPDX-License-Identifier: MIT */
/* LOWER_BOUND_DEFINE against a linear scan (the first index whose predicate is false):
 * empty ranges, keys below all, above all and between, runs of duplicates, sub-ranges
 * [lo, hi) as the galloping searches use them, with "< key" (lower bound) and "<= key"
 * (upper bound) predicates, on random sorted arrays of many sizes. */
#include <stdint.h>
#include <stdlib.h>

#include "lower_bound.h"
#include "testutil.h"

#define LESS_KEY(a, i, key) ((a)[i] < (key))
#define LESS_EQ_KEY(a, i, key) ((a)[i] <= (key))
LOWER_BOUND_DEFINE(lb_i64, const int64_t *, int64_t, LESS_KEY)
LOWER_BOUND_DEFINE(ub_i64, const int64_t *, int64_t, LESS_EQ_KEY)

static size_t scan(const int64_t *a, int64_t key, size_t lo, size_t hi, bool or_equal)
{
	size_t i = lo;
	while (i < hi && (or_equal ? a[i] <= key : a[i] < key))
		i++;
	return i;
}

static void check_all(const int64_t *a, size_t n, int64_t key)
{
	/* every sub-range with ends at the edges, the middle and near them */
	size_t ends[] = {0, 1, n / 3, n / 2, n > 1 ? n - 1 : 0, n};
	for (size_t x = 0; x < 6; x++)
		for (size_t y = 0; y < 6; y++) {
			size_t lo = ends[x], hi = ends[y];
			if (lo > hi || hi > n)
				continue;
			assert_int_equal(lb_i64(a, key, lo, hi), scan(a, key, lo, hi, false));
			assert_int_equal(ub_i64(a, key, lo, hi), scan(a, key, lo, hi, true));
		}
}

static void test_edges(void **state)
{
	(void)state;
	static const int64_t one[] = {5};
	static const int64_t dups[] = {1, 3, 3, 3, 3, 7, 7, 9};
	/* empty */
	assert_int_equal(lb_i64(one, 5, 0, 0), 0);
	assert_int_equal(ub_i64(one, 5, 1, 1), 1);
	/* all less, all greater, equal */
	assert_int_equal(lb_i64(dups, 100, 0, 8), 8);
	assert_int_equal(ub_i64(dups, 100, 0, 8), 8);
	assert_int_equal(lb_i64(dups, -100, 0, 8), 0);
	assert_int_equal(ub_i64(dups, -100, 0, 8), 0);
	assert_int_equal(lb_i64(one, 5, 0, 1), 0);
	assert_int_equal(ub_i64(one, 5, 0, 1), 1);
	/* a run of duplicates: lower bound its first, upper bound past its last */
	assert_int_equal(lb_i64(dups, 3, 0, 8), 1);
	assert_int_equal(ub_i64(dups, 3, 0, 8), 5);
	assert_int_equal(lb_i64(dups, 7, 0, 8), 5);
	assert_int_equal(ub_i64(dups, 7, 0, 8), 7);
	/* between values, and inside a sub-range */
	assert_int_equal(lb_i64(dups, 4, 0, 8), 5);
	assert_int_equal(lb_i64(dups, 3, 3, 6), 3);
	assert_int_equal(ub_i64(dups, 3, 3, 6), 5);
	assert_int_equal(lb_i64(dups, 9, 2, 4), 4);
	for (int64_t key = -1; key <= 10; key++)
		check_all(dups, 8, key);
}

static void test_matches_scan(void **state)
{
	(void)state;
	uint64_t rng = 88172645463325252ULL;
	static const size_t sizes[] = {0, 1, 2, 3, 4, 7, 8, 9, 31, 32, 33, 100, 1000};
	for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
		size_t n = sizes[si];
		for (int spread = 1; spread <= 1000; spread *= 10) {
			int64_t *a = malloc((n ? n : 1) * sizeof *a);
			int64_t v = -500;
			for (size_t i = 0; i < n; i++) {
				rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
				v += (int64_t)(rng % (uint64_t)spread); /* spread 1: all equal */
				a[i] = v;
			}
			for (int k = 0; k < 50; k++) {
				rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
				int64_t key = n ? a[rng % n] + (int64_t)(rng >> 40) % 3 - 1 : (int64_t)(rng % 7);
				check_all(a, n, key);
			}
			check_all(a, n, INT64_MIN);
			check_all(a, n, INT64_MAX);
			free(a);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_matches_scan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
