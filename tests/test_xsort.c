/* SPDX-License-Identifier: MIT */
/* The inline merge sort and its nearly-sorted variant against qsort: the same order on
 * random, sorted, reversed, few-valued and sorted-but-for-a-few inputs of many sizes, and
 * stable (equal keys keep their input order). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "xsort.h"

struct item {
	int32_t key;
	uint32_t pos; /* input position: ties must keep this order */
};

#define ITEM_LESS(a, b) ((a)->key < (b)->key)
XSORT_DEFINE_NEARLY(sort_items, struct item, ITEM_LESS)

static int cmp_stable(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static void test_matches_qsort(void **state)
{
	(void)state;
	uint64_t rng = 88172645463325252ULL;
	static const size_t sizes[] = {0, 1, 2, 3, 15, 16, 17, 31, 33, 100, 1000, 4097, 100000};
	for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
		size_t n = sizes[si];
		for (int shape = 0; shape < 6 * 2; shape++) {
			struct item *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
			for (size_t i = 0; i < n; i++) {
				rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
				int s = shape / 2;
				int32_t k = s == 0 ? (int32_t)(rng % 1000000) /* random */
					    : s == 1 ? (int32_t)i                  /* sorted */
					    : s == 2 ? (int32_t)(n - i)            /* reversed */
					    : s == 3 ? (int32_t)(rng % 3)          /* few values: ties */
					    /* sorted with some out of place: few (1 in 50), too many (1 in 5) */
					    : rng % (s == 4 ? 50 : 5) == 0 ? (int32_t)(rng % (n + 1))
									: (int32_t)(i / 4 * 4); /* ties in runs */
				a[i] = b[i] = (struct item){k, (uint32_t)i};
			}
			if (shape % 2) /* both sorts: the nearly-sorted one and the plain one */
				sort_items_nearly(a, n);
			else
				sort_items(a, n);
			if (n)
				qsort(b, n, sizeof *b, cmp_stable);
			assert_memory_equal(a, b, n * sizeof *a);
			free(a);
			free(b);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_matches_qsort)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
