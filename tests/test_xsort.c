/* SPDX-License-Identifier: MIT */
/* The inline merge sort and its nearly-sorted variant against qsort: the same order on
 * random, sorted, reversed, few-valued and sorted-but-for-a-few inputs of many sizes, and
 * stable (equal keys keep their input order). And xalloc_release, which the loader uses
 * on buffers it consumes front to back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Released pages are whole pages inside the range; the bytes after them keep their
 * content, those in them read as zeros, and calls chained through the return value
 * release a buffer read front to back without leaving pages behind. */
static void test_release_behind(void **state)
{
	(void)state;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	for (size_t size = 100000; size <= 3000000; size *= 30) {
		unsigned char *buf = xmalloc(size);
		memset(buf, 0xAB, size);
		size_t done = 0, chunk = 70001;
		for (size_t at = chunk; at < size; at += chunk) {
			size_t next = xalloc_release(buf, done, at);
			assert_true(next >= done && next <= at);
			assert_true(at - next < page || next == done); /* at most a page short */
			assert_true(((uintptr_t)buf + next) % page == 0 || next == done);
			for (size_t i = done == 0 ? page : done; i < next; i += 997)
				assert_int_equal(buf[i], 0);
			for (size_t i = next; i < size; i += 997)
				assert_int_equal(buf[i], 0xAB);
			done = next;
		}
		assert_true(done + chunk + page > size - size % chunk);
		assert_int_equal(xalloc_release(buf, 10, 20), 10); /* no whole page: nothing */
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_matches_qsort), cmocka_unit_test(test_release_behind)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
