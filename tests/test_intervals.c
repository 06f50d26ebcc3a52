/* SPDX-License-Identifier: MIT */
/* Interval algebra against a brute-force bitmap over a small axis, the category rule
 * table on real task names, and nearest-rank percentiles. */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "category.h"
#include "cmp.h"
#include "intervals.h"
#include "testutil.h"

#define AXIS 400

static uint64_t rng = 88172645463325252ULL;
static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

static void random_set(struct ivset *s, bool bits[AXIS])
{
	memset(bits, 0, AXIS);
	int n = (int)(next_rand() % 12);
	for (int i = 0; i < n; i++) {
		int a = (int)(next_rand() % AXIS), len = (int)(next_rand() % 60);
		int b = a + len > AXIS ? AXIS : a + len;
		ivset_add(s, a, b);
		for (int k = a; k < b; k++)
			bits[k] = true;
	}
}

static int64_t count_bits(const bool bits[AXIS], int lo, int hi)
{
	int64_t c = 0;
	for (int i = lo; i < hi; i++)
		c += bits[i];
	return c;
}

static void test_algebra_matches_brute_force(void **state)
{
	(void)state;
	for (int round = 0; round < 2000; round++) {
		struct ivset a, b, out;
		ivset_init(&a);
		ivset_init(&b);
		ivset_init(&out);
		bool ba[AXIS], bb[AXIS], want[AXIS];
		random_set(&a, ba);
		random_set(&b, bb);
		assert_int_equal(ivset_total(&a), count_bits(ba, 0, AXIS));
		for (size_t i = 1; i < a.n; i++)
			assert_true(a.start[i] > a.end[i - 1]); /* disjoint, not even touching */
		ivset_intersect(&a, &b, &out);
		for (int i = 0; i < AXIS; i++)
			want[i] = ba[i] && bb[i];
		assert_int_equal(ivset_total(&out), count_bits(want, 0, AXIS));
		ivset_union(&a, &b, &out);
		for (int i = 0; i < AXIS; i++)
			want[i] = ba[i] || bb[i];
		assert_int_equal(ivset_total(&out), count_bits(want, 0, AXIS));
		ivset_subtract(&a, &b, &out);
		for (int i = 0; i < AXIS; i++)
			want[i] = ba[i] && !bb[i];
		assert_int_equal(ivset_total(&out), count_bits(want, 0, AXIS));
		int lo = (int)(next_rand() % AXIS), hi = lo + (int)(next_rand() % (AXIS - lo + 1));
		assert_int_equal(ivset_total_in(&a, lo, hi), count_bits(ba, lo, hi));
		/* gaps: runs of uncovered cells inside [lo, hi) */
		int64_t min_gap = 1 + next_rand() % 20;
		size_t cnt = 0, want_cnt = 0;
		int64_t tot = 0, small = 0, want_tot = 0, want_small = 0;
		ivset_gaps(&a, lo, hi, min_gap, &cnt, &tot, &small);
		for (int i = lo; i < hi;) {
			if (ba[i]) {
				i++;
				continue;
			}
			int j = i;
			while (j < hi && !ba[j])
				j++;
			if (j - i >= min_gap) {
				want_cnt++;
				want_tot += j - i;
			} else {
				want_small += j - i;
			}
			i = j;
		}
		assert_int_equal(cnt, want_cnt);
		assert_int_equal(tot, want_tot);
		assert_int_equal(small, want_small);
		ivset_free(&a);
		ivset_free(&b);
		ivset_free(&out);
	}
}

static void test_categories_of_real_tasks(void **state)
{
	(void)state;
	struct {
		enum lane_group g;
		const char *name, *cat, *tt;
		enum ev_category want;
		uint8_t flags;
	} cases[] = {
		/* task types and names seen in the real level1 capture */
		{LANE_DEVICE, "aclnnMuls_MulAiCore_Mul", "", "AI_CORE", CAT_COMPUTE, 0},
		{LANE_DEVICE, "ReduceSum", "", "MIX_AIV", CAT_COMPUTE, 0},
		{LANE_DEVICE, "aclnnDropoutGenMaskV2_DSAGenBitMask_DSAGenBitMask", "", "DSA_SQE", CAT_COMPUTE, 0},
		{LANE_DEVICE, "MEMCPY_ASYNC", "", "PCIE_DMA_SQE", CAT_COPY, 0},
		{LANE_DEVICE, "MEMCPY_ASYNC", "", "SDMA_SQE", CAT_COPY, 0},
		{LANE_DEVICE, "SDMA", "", "SDMA", CAT_COMM, 0},
		{LANE_DEVICE, "Notify Wait", "", "Notify Wait", CAT_OTHER, EVF_WAIT},
		{LANE_DEVICE, "Write Value", "", "Write Value", CAT_OTHER, EVF_WAIT},
		{LANE_DEVICE, "EVENT_WAIT", "", "EVENT_WAIT_SQE", CAT_OTHER, EVF_WAIT},
		{LANE_DEVICE, "EVENT_RECORD", "", "EVENT_RECORD_SQE", CAT_OTHER, EVF_WAIT},
		{LANE_DEVICE, "PROFILING_ENABLE", "", "PLACE_HOLDER_SQE", CAT_OTHER, EVF_WAIT},
		{LANE_DEVICE, "BroadcastTo", "", "AI_VECTOR_CORE", CAT_COMPUTE, 0}, /* not a collective */
		{LANE_DEVICE, "hcom_allReduce__586_0_1", "", "", CAT_COMM, 0},
		{LANE_DEVICE, "hcom_allReduce__170_1_1", "", "COMMUNICATION", CAT_COMM, 0},
		{LANE_COMM, "Notify_Wait", "", "", CAT_COMM, 0},
		{LANE_OVERLAP, "Computing", "", "", CAT_OTHER, 0},
		{LANE_HOST_PYTHON, "aten::_to_copy", "cpu_op", "", CAT_COPY, EVF_DISPATCH},
		{LANE_HOST_PYTHON, "aten::item", "cpu_op", "", CAT_COPY, EVF_SYNC | EVF_D2H | EVF_DISPATCH},
		{LANE_HOST_PYTHON, "aten::mm", "cpu_op", "", CAT_SCHED, EVF_DISPATCH},
		{LANE_HOST_PYTHON, "ProfilerStep#50", "cpu_op", "", CAT_OTHER, EVF_STEP_MARK},
		{LANE_HOST_PYTHON, "torch/nn/modules/module.py(1527): _call_impl", "python_function", "", CAT_SCHED, 0},
		{LANE_HOST_PYTHON, "Dequeue@acl_memcpy_host_to_device", "dequeue", "", CAT_COPY, EVF_H2D},
		{LANE_HOST_CANN, "AscendCL@aclrtSynchronizeStreamWithTimeout", "", "", CAT_SCHED, EVF_SYNC},
		{LANE_HOST_CANN, "HcclAllreduce", "", "", CAT_COMM, 0},
		{LANE_HOST_PYTHON, "aten::broadcast_tensors", "cpu_op", "", CAT_SCHED, EVF_DISPATCH},
		/* MC2: communication inside a compute-typed kernel */
		{LANE_DEVICE, "MoeDistributeDispatchV2", "", "MIX_AIV", CAT_COMM, EVF_FUSED_COMM},
		{LANE_DEVICE, "MoeDistributeCombineV2", "", "MIX_AIV", CAT_COMM, EVF_FUSED_COMM},
		{LANE_DEVICE, "MatmulAllReduceAddRmsNormAicpu", "", "AI_CPU", CAT_COMM, EVF_FUSED_COMM},
		{LANE_DEVICE, "AllGatherMatmul", "", "MIX_AIC", CAT_COMM, EVF_FUSED_COMM},
		{LANE_DEVICE, "GroupedMatmul", "", "AI_CORE", CAT_COMPUTE, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ev_class c = category_of(cases[i].g, cases[i].name, cases[i].cat, cases[i].tt);
		if (c.cat != cases[i].want || c.flags != cases[i].flags)
			fail_msg("%s: got %s/%#x, want %s/%#x", cases[i].name, category_name((enum ev_category)c.cat),
				 c.flags, category_name(cases[i].want), cases[i].flags);
	}
	assert_non_null(strstr(category_rules_text(), "device wait task"));
}

/* The hinted step lookup gives what the binary search gives, whatever the order of times:
 * rising (its fast path), falling, random; windows with gaps, touching and overlapping. */
static void test_step_at_near(void **state)
{
	(void)state;
	uint64_t seed = 99;
	for (int round = 0; round < 200; round++) {
		struct step steps[40];
		struct rank_analysis ra;
		memset(&ra, 0, sizeof ra);
		memset(steps, 0, sizeof steps);
		ra.steps = steps;
		ra.n_steps = (size_t)(round % 40);
		int64_t at = 0;
		for (size_t i = 0; i < ra.n_steps; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			at += (int64_t)(seed >> 60); /* 0..15: equal starts happen */
			steps[i].win_start = at;
			steps[i].win_end = at + (int64_t)((seed >> 40) % 30); /* may overlap the next */
		}
		size_t hint = 0;
		for (int k = 0; k < 300; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			int64_t t = round % 3 == 0 ? k - 5 : round % 3 == 1 ? 400 - k : (int64_t)((seed >> 33) % 500) - 20;
			assert_true(analysis_step_at_near(&ra, t, &hint) == result_step_at(&ra, t));
		}
	}
}

/* The linear-time percentile (and pair of percentiles) equals the sorted one, for every size up to 300 with few or
 * many distinct values, sorted, reversed and organ-pipe inputs included. */
static void test_nearest_rank_select(void **state)
{
	(void)state;
	const double qs[] = {0, 0.01, 0.5, 0.95, 0.999, 1};
	uint64_t seed = 12345;
	int64_t a[300], b[300];
	for (size_t n = 1; n <= 300; n++) {
		for (int shape = 0; shape < 5; shape++) {
			for (size_t i = 0; i < n; i++) {
				seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
				int64_t r = (int64_t)(seed >> 33);
				a[i] = shape == 0 ? r % 4 : shape == 1 ? r : shape == 2 ? (int64_t)i
				       : shape == 3 ? (int64_t)(n - i) : (int64_t)(i < n / 2 ? i : n - i);
			}
			memcpy(b, a, n * sizeof *a);
			qsort(b, n, sizeof *b, cmp_i64);
			for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
				int64_t c[300];
				memcpy(c, a, n * sizeof *a);
				assert_true(nearest_rank_select(c, n, qs[k]) == nearest_rank(b, n, qs[k]));
				/* the pair: the lower rank first, the higher among the values above it */
				for (size_t h = k; h < sizeof qs / sizeof qs[0]; h++) {
					int64_t lo = -1, hi = -1;
					memcpy(c, a, n * sizeof *a);
					nearest_rank_select2(c, n, qs[k], qs[h], &lo, &hi);
					assert_true(lo == nearest_rank(b, n, qs[k]));
					assert_true(hi == nearest_rank(b, n, qs[h]));
				}
			}
		}
	}
	assert_true(nearest_rank_select(a, 0, 0.5) == 0);
	int64_t lo = -1, hi = -1;
	nearest_rank_select2(a, 0, 0.5, 0.95, &lo, &hi);
	assert_true(lo == 0 && hi == 0);
}

/* The pair of percentiles over many values (the histogram path): equal to the sorted ones
 * for random 63-bit values, few distinct values, sorted, reversed and organ-pipe input,
 * negative ones, the int64 extremes, and a tight cluster with one far outlier (most values
 * in one bucket: the levels below narrow it). */
static void test_nearest_rank_select_many(void **state)
{
	(void)state;
	const size_t sizes[] = {4095, 4096, 4097, 10007, 60000};
	const double qs[][2] = {{0.5, 0.95}, {0, 1}, {0.5, 0.5}, {0.01, 0.999}, {0.95, 0.95}};
	uint64_t seed = 99;
	size_t nmax = 60000;
	int64_t *a = malloc(nmax * sizeof *a), *b = malloc(nmax * sizeof *b), *c = malloc(nmax * sizeof *c);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
		size_t n = sizes[si];
		for (int shape = 0; shape < 8; shape++) {
			for (size_t i = 0; i < n; i++) {
				seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
				int64_t r = (int64_t)(seed >> 1);
				switch (shape) {
				case 0: a[i] = r; break;
				case 1: a[i] = r % 4; break;
				case 2: a[i] = (int64_t)i; break;
				case 3: a[i] = (int64_t)(n - i); break;
				case 4: a[i] = (int64_t)(i < n / 2 ? i : n - i); break;
				case 5: a[i] = (r % 2001) - 1000; break;
				case 6: a[i] = r % 3 == 0 ? INT64_MIN : r % 3 == 1 ? INT64_MAX : r % 7; break;
				default: a[i] = i == n / 3 ? (int64_t)1 << 50 : 5000 + r % 64; break;
				}
			}
			memcpy(b, a, n * sizeof *a);
			qsort(b, n, sizeof *b, cmp_i64);
			for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
				int64_t lo = -1, hi = -1;
				memcpy(c, a, n * sizeof *a);
				nearest_rank_select2(c, n, qs[k][0], qs[k][1], &lo, &hi);
				assert_true(lo == nearest_rank(b, n, qs[k][0]));
				assert_true(hi == nearest_rank(b, n, qs[k][1]));
				/* the values are only reordered */
				qsort(c, n, sizeof *c, cmp_i64);
				assert_memory_equal(b, c, n * sizeof *b);
				/* given the least and the greatest (the op statistics know them) */
				memcpy(c, a, n * sizeof *a);
				lo = hi = -1;
				nearest_rank_select2_in(c, n, b[0], b[n - 1], qs[k][0], qs[k][1], &lo, &hi);
				assert_true(lo == nearest_rank(b, n, qs[k][0]));
				assert_true(hi == nearest_rank(b, n, qs[k][1]));
				qsort(c, n, sizeof *c, cmp_i64);
				assert_memory_equal(b, c, n * sizeof *b);
			}
		}
	}
	free(a);
	free(b);
	free(c);
}

/* A lane's nested calls arrive sorted by start: they merge into the enclosing span as they
 * are added, so the set holds top-level spans only, and the union is unchanged. */
static void test_nested_adds_merge_in_place(void **state)
{
	(void)state;
	struct ivset s;
	ivset_init(&s);
	ivset_add(&s, 0, 100);
	ivset_add(&s, 10, 20);  /* nested */
	ivset_add(&s, 20, 30);  /* nested, touching the previous nested one */
	ivset_add(&s, 90, 120); /* overlapping the end */
	ivset_add(&s, 120, 130); /* touching */
	assert_int_equal(s.n, 1);
	assert_true(s.normal);
	ivset_add(&s, 200, 210);
	ivset_add(&s, 50, 60); /* out of order: merged later */
	assert_false(s.normal);
	ivset_normalize(&s);
	assert_int_equal(s.n, 2);
	assert_true(s.start[0] == 0 && s.end[0] == 130 && s.start[1] == 200 && s.end[1] == 210);
	assert_true(ivset_total(&s) == 140);
	ivset_free(&s);
}

static void test_nearest_rank(void **state)
{
	(void)state;
	int64_t v[20];
	for (int i = 0; i < 20; i++)
		v[i] = (i + 1) * 10;
	assert_int_equal(nearest_rank(v, 20, 0.5), 100);  /* ceil(10) = 10th */
	assert_int_equal(nearest_rank(v, 20, 0.95), 190); /* ceil(19) = 19th */
	assert_int_equal(nearest_rank(v, 19, 0.95), 190); /* ceil(18.05) = 19th */
	assert_int_equal(nearest_rank(v, 1, 0.5), 10);
	assert_int_equal(nearest_rank(v, 0, 0.5), 0);
}

/* Big sets made of several sorted runs (one per lane) and of random intervals: the
 * normalized set equals the union computed on a bitmap, whichever way the sort goes. */
static void test_normalize_many_runs(void **state)
{
	(void)state;
	enum { SPAN = 200000 };
	bool *bits = malloc(SPAN);
	for (int shape = 0; shape < 3; shape++) {
		memset(bits, 0, SPAN);
		struct ivset s;
		ivset_init(&s);
		int runs = shape == 0 ? 4 : shape == 1 ? 40 : 1;
		for (int r = 0; r < runs; r++) {
			int64_t t = next_rand() % 1000;
			for (int i = 0; i < 3000; i++) {
				int64_t a = shape == 2 ? next_rand() % (SPAN - 100) : t;
				int64_t b = a + 1 + next_rand() % 40;
				if (b > SPAN)
					break;
				ivset_add(&s, a, b);
				for (int64_t k = a; k < b; k++)
					bits[k] = true;
				t = b + next_rand() % 30;
			}
		}
		ivset_normalize(&s);
		size_t want_n = 0;
		int64_t want_total = 0;
		for (int64_t k = 0; k < SPAN; k++) {
			want_total += bits[k];
			want_n += bits[k] && (k == 0 || !bits[k - 1]);
		}
		assert_int_equal(s.n, want_n);
		assert_int_equal(ivset_total(&s), want_total);
		for (size_t i = 0; i < s.n; i++) {
			assert_true(bits[s.start[i]] && bits[s.end[i] - 1]);
			assert_true(s.start[i] == 0 || !bits[s.start[i] - 1]);
			assert_true(s.end[i] == SPAN || !bits[s.end[i]]);
		}
		ivset_free(&s);
	}
	free(bits);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_algebra_matches_brute_force),
		cmocka_unit_test(test_categories_of_real_tasks),
		cmocka_unit_test(test_nearest_rank),
		cmocka_unit_test(test_nested_adds_merge_in_place),
		cmocka_unit_test(test_nearest_rank_select),
		cmocka_unit_test(test_nearest_rank_select_many),
		cmocka_unit_test(test_step_at_near),
		cmocka_unit_test(test_normalize_many_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
