/* SPDX-License-Identifier: MIT */
/* spill.h: arrays past SPILL_MIN_BYTES move to an unlinked file and keep their contents
 * through growth and shrinking; their pages are file cache, not the process's private
 * memory (RssAnon does not grow with them); several columns of different element sizes
 * grown to one shared capacity (as the loader's segments and CSV tables do) all get it;
 * small arrays stay malloc'ed; spill_free frees either kind; the descriptors they hold
 * stay within half the open-file limit; released pages leave a spilled array's file; a
 * lazily grown array holds only what was asked for. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <unistd.h>

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
	/* shrinking keeps the head */
	a = spill_realloc(a, (n / 2) * sizeof *a);
	assert_int_equal(a[n / 2 - 1], (uint32_t)((n / 2 - 1) * 2654435761u));
	spill_free(a);
	assert_int_equal(spill_bytes(), before);
}

/* Pages of the mapping [p, p + len) in the file cache (mincore). */
static size_t resident_pages(const void *p, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = (len + pg - 1) / pg, r = 0;
	unsigned char *vec = malloc(n);
	assert_int_equal(mincore((void *)p, len, vec), 0);
	for (size_t i = 0; i < n; i++)
		r += vec[i] & 1;
	free(vec);
	return r;
}

/* Releasing whole pages of a spilled array punches them out of its file: they leave the
 * file cache and read as zeros; the bytes of partly released pages and those past the
 * range stay. The returned position is where the next release starts. */
static void test_release_punches(void **state)
{
	(void)state;
	if (!disk_dir())
		skip();
	size_t n = 1u << 20, pg = (size_t)sysconf(_SC_PAGESIZE);
	uint32_t *a = spill_alloc(n * sizeof *a);
	assert_true(spill_is(a));
	for (size_t i = 0; i < n; i++)
		a[i] = (uint32_t)i + 1;
	size_t half = n / 2 * sizeof *a + 100; /* not a page boundary */
	assert_int_equal(resident_pages(a, n * sizeof *a), n * sizeof *a / pg);
	size_t done = spill_release(a, 0, half);
	assert_int_equal(done, half / pg * pg);
	/* the released pages are gone from memory, the others are not */
	assert_int_equal(resident_pages(a, done), 0);
	assert_int_equal(resident_pages((char *)a + done, n * sizeof *a - done), (n * sizeof *a - done) / pg);
	assert_int_equal(a[done / sizeof *a], (uint32_t)(done / sizeof *a) + 1);
	assert_int_equal(a[n - 1], (uint32_t)n);
	assert_int_equal(a[0], 0);
	/* a range within one page gives nothing back and says so */
	assert_int_equal(spill_release(a, done, done + 10), done);
	spill_free(a);
}

/* A lazily grown array is mapped at its new size but holds in memory only what was asked
 * for (spill_ensure), front to back; its old contents stay; a malloc'ed one is unaffected. */
static void test_lazy_growth(void **state)
{
	(void)state;
	if (!disk_dir())
		skip();
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = 4u << 20;
	size_t before = spill_bytes();
	uint32_t *a = spill_alloc_lazy(n * sizeof *a);
	assert_true(spill_is(a));
	assert_int_equal(spill_bytes() - before, n * sizeof *a);
	assert_int_equal(resident_pages(a, n * sizeof *a), 0);
	size_t chunk = n / 16;
	for (size_t o = 0; o < n / 2; o += chunk) {
		a = spill_ensure(a, (o + chunk) * sizeof *a);
		/* written a chunk ahead at most */
		assert_true(resident_pages(a, n * sizeof *a) <= (o + chunk) * sizeof *a / pg + 1);
		for (size_t i = o; i < o + chunk; i++)
			a[i] = (uint32_t)(i * 40503u);
	}
	/* grown again lazily: the first half kept, the rest made usable and filled */
	a = spill_realloc_lazy(a, 2 * n * sizeof *a);
	assert_true(resident_pages(a, 2 * n * sizeof *a) <= n / 2 * sizeof *a / pg + 1);
	a = spill_ensure(a, 2 * n * sizeof *a);
	for (size_t i = n / 2; i < 2 * n; i++)
		a[i] = (uint32_t)(i * 40503u);
	for (size_t i = 0; i < 2 * n; i += 13)
		assert_int_equal(a[i], (uint32_t)(i * 40503u));
	/* asking for less than is there, or for a NULL or malloc'ed array, changes nothing */
	assert_ptr_equal(spill_ensure(a, 10), a);
	assert_null(spill_ensure(NULL, 100));
	char *small = spill_alloc_lazy(100);
	assert_false(spill_is(small));
	assert_ptr_equal(spill_ensure(small, 100), small);
	spill_free(small);
	spill_free(a);
	assert_int_equal(spill_bytes(), before);
}

/* The loader's merge: a column copied a chunk at a time from one spilled array into a
 * lazily grown one, each source chunk released once copied: the copy is exact and the
 * source's pages leave memory as the destination's arrive. */
static void test_chunked_move(void **state)
{
	(void)state;
	if (!disk_dir())
		skip();
	size_t n = 3u << 20, chunk = n / 8, pg = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t *src = spill_alloc(n * sizeof *src);
	for (size_t i = 0; i < n; i++)
		src[i] = i * 0x9E3779B97F4A7C15ull;
	/* the destination already holds a first part, as an adopted segment column does */
	size_t first = 12345;
	uint64_t *dst = spill_alloc(first * sizeof *dst);
	for (size_t i = 0; i < first; i++)
		dst[i] = ~(uint64_t)i;
	dst = spill_realloc_lazy(dst, (first + n) * sizeof *dst);
	size_t done = 0;
	for (size_t o = 0; o < n; o += chunk) {
		size_t c = n - o < chunk ? n - o : chunk;
		dst = spill_ensure(dst, (first + o + c) * sizeof *dst);
		memcpy(dst + first + o, src + o, c * sizeof *src);
		done = spill_release(src, done, (o + c) * sizeof *src);
		assert_true(resident_pages(src, n * sizeof *src) <= (n - o - c) * sizeof *src / pg + 1);
	}
	for (size_t i = 0; i < first; i++)
		assert_int_equal(dst[i], ~(uint64_t)i);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(dst[first + i], i * 0x9E3779B97F4A7C15ull);
	spill_free(src);
	spill_free(dst);
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
		cmocka_unit_test(test_release_punches),
		cmocka_unit_test(test_lazy_growth),
		cmocka_unit_test(test_chunked_move),
		cmocka_unit_test(test_shared_capacity),
		cmocka_unit_test(test_file_budget),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
