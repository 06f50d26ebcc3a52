/* SPDX-License-Identifier: MIT */
/* spill.h: arrays past SPILL_MIN_BYTES move to an unlinked file and keep their contents
 * through growth and shrinking; their pages are file cache, not the process's private
 * memory (RssAnon does not grow with them); several columns of different element sizes
 * grown to one shared capacity (as the loader's segments and CSV tables do) all get it;
 * small arrays stay malloc'ed; spill_free frees either kind; the descriptors they hold
 * stay within half the open-file limit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <linux/magic.h>

#include "spill.h"
#include "testutil.h"

static char *dir;

/* Private memory of this process now, in kB. */
static long rss_anon_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "RssAnon:", 8))
			v = atol(line + 8);
	if (f)
		fclose(f);
	return v;
}

static int setup(void **state)
{
	(void)state;
	dir = tu_tmpdir();
	setenv("ASCPROF_SPILL_DIR", dir, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmtree(dir);
	free(dir);
	return 0;
}

/* True when the temp dir is on a disk file system (else nothing spills: tmpfs). */
static bool disk_dir(void)
{
	struct statfs sf;
	return statfs(dir, &sf) == 0 && sf.f_type != TMPFS_MAGIC && sf.f_type != RAMFS_MAGIC;
}

static void test_small_stays_malloc(void **state)
{
	(void)state;
	char *p = spill_alloc(1000);
	memset(p, 1, 1000);
	assert_false(spill_is(p));
	p = spill_realloc(p, 2000);
	assert_int_equal(p[999], 1);
	assert_false(spill_is(p));
	spill_free(p);
	spill_free(NULL);
}

/* Pushed one by one like a segment column: the values survive every move, the array ends
 * in a file, and private memory does not grow by its 24 MB. */
static void test_grows_into_file(void **state)
{
	(void)state;
	if (!disk_dir())
		skip();
	size_t before = spill_bytes();
	long anon0 = rss_anon_kb();
	uint32_t *a = NULL;
	size_t cap = 0, n = 6u << 20;
	for (size_t i = 0; i < n; i++) {
		spill_grow(&a, &cap, i + 1, sizeof *a);
		a[i] = (uint32_t)(i * 2654435761u);
	}
	assert_true(spill_is(a));
	assert_true(spill_bytes() - before >= n * sizeof *a);
	long anon1 = rss_anon_kb();
	/* the first MB was malloc'ed before the move; a few MB of slack for the allocator */
	assert_true(anon1 - anon0 < 8 * 1024);
	for (size_t i = 0; i < n; i += 7)
		assert_int_equal(a[i], (uint32_t)(i * 2654435761u));
	/* shrinking keeps the head; releasing is a no-op on a spilled array */
	a = spill_realloc(a, (n / 2) * sizeof *a);
	assert_int_equal(a[n / 2 - 1], (uint32_t)((n / 2 - 1) * 2654435761u));
	assert_int_equal(spill_release(a, 0, n / 2 * sizeof *a), 0);
	assert_int_equal(a[12345], (uint32_t)(12345 * 2654435761u));
	spill_free(a);
	assert_int_equal(spill_bytes(), before);
}

/* A malloc'ed array moved to a file keeps its bytes; then freed with spill_free. */
static void test_realloc_moves(void **state)
{
	(void)state;
	if (!disk_dir())
		skip();
	unsigned char *p = spill_alloc(4096);
	for (size_t i = 0; i < 4096; i++)
		p[i] = (unsigned char)(i * 31);
	p = spill_realloc(p, 3 * SPILL_MIN_BYTES);
	assert_true(spill_is(p));
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal(p[i], (unsigned char)(i * 31));
	p[3 * SPILL_MIN_BYTES - 1] = 7; /* the whole size is usable */
	spill_free(p);
}

/* The loader grows its columns (4 and 8 bytes an element) to one capacity, taken from
 * the first: every column must hold that many whatever its size or kind of memory. */
static void test_shared_capacity(void **state)
{
	(void)state;
	uint32_t *narrow = NULL;
	double *wide = NULL;
	uint8_t *tiny = NULL;
	size_t cap = 0;
	for (size_t n = 0; n < (3u << 20); n++) {
		if (n == cap) {
			size_t c = cap;
			spill_grow(&narrow, &c, n + 1, sizeof *narrow);
			size_t cw = cap, ct = cap;
			spill_grow(&wide, &cw, n + 1, sizeof *wide);
			spill_grow(&tiny, &ct, n + 1, sizeof *tiny);
			assert_int_equal(cw, c);
			assert_int_equal(ct, c);
			cap = c;
			narrow[cap - 1] = 1; /* each holds the shared capacity */
			wide[cap - 1] = 1;
			tiny[cap - 1] = 1;
		}
		narrow[n] = (uint32_t)n;
		wide[n] = (double)n;
		tiny[n] = (uint8_t)n;
	}
	size_t last = (3u << 20) - 1;
	assert_int_equal(narrow[last], last);
	assert_true(wide[last] == (double)last);
	assert_int_equal(tiny[last], (uint8_t)last);
	spill_free(narrow);
	spill_free(wide);
	spill_free(tiny);
}

/* Each spilled array holds a descriptor: at most half the open-file limit (40 here, set
 * before the first spill) go to them; the arrays past that stay in memory and work the
 * same; a freed one makes room again. */
#define FILE_LIMIT 40
static void test_file_budget(void **state)
{
	(void)state;
	if (!disk_dir())
		skip();
	enum { N = 30 };
	unsigned char *a[N];
	size_t spilled = 0;
	for (size_t i = 0; i < N; i++) {
		a[i] = spill_alloc(SPILL_MIN_BYTES);
		memset(a[i], (int)i, SPILL_MIN_BYTES);
		spilled += spill_is(a[i]);
	}
	assert_int_equal(spilled, FILE_LIMIT / 2);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(a[i][SPILL_MIN_BYTES - 1], (unsigned char)i);
	spill_free(a[0]);
	a[0] = spill_alloc(SPILL_MIN_BYTES);
	assert_true(spill_is(a[0]));
	for (size_t i = 0; i < N; i++)
		spill_free(a[i]);
}

int main(void)
{
	/* before any array spills: the budget is read once */
	struct rlimit rl = {FILE_LIMIT, FILE_LIMIT};
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_stays_malloc),
		cmocka_unit_test(test_grows_into_file),
		cmocka_unit_test(test_realloc_moves),
		cmocka_unit_test(test_shared_capacity),
		cmocka_unit_test(test_file_budget),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
