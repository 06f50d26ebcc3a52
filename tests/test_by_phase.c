/* SPDX-License-Identifier: MIT */
/* A verdict per phase (phase_verdict.h, ranks[].by_phase) on generated captures: each
 * phase's steps and wall against the planted steps' windows and phases, its buckets
 * summing to its wall, the phases' buckets against the rank's (what they leave is exactly
 * the window before the first step), its compute against the planted per-step compute,
 * and a verdict that follows a planted cause; the JSON through the real binary. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "json_tok.h"
#include "testutil.h"

static const struct phase_verdict *phase_of(const struct rank_analysis *ra, const char *name)
{
	for (size_t i = 0; i < ra->n_by_phase; i++)
		if (!strcmp(phase_verdict_name(&ra->by_phase[i]), name))
			return &ra->by_phase[i];
	return NULL;
}

/* The planted step windows as the analysis draws them (marked shape: a step from its
 * marker's start to the next one's, the last to the window's end), by planted phase:
 * steps, summed windows and summed planted compute. */
struct planted {
	size_t steps;
	long long wall_ns, compute_ns;
};

static void planted_phase(const struct tu_truth *t, int r, const char *phase, struct planted *p)
{
	memset(p, 0, sizeof *p);
	long long n = tu_truth_int(t, "rank.%d.steps", r), lo = tu_truth_int(t, "rank.%d.first_ts_ns", r);
	long long hi = tu_truth_int(t, "rank.%d.last_end_ns", r);
	for (long long k = 0; k < n; k++) {
		if (strcmp(tu_truth_str(t, "rank.%d.step.%lld.phase", r, k), phase))
			continue;
		long long a = tu_truth_int(t, "rank.%d.step.%lld.start_ns", r, k);
		long long b = k + 1 < n ? tu_truth_int(t, "rank.%d.step.%lld.start_ns", r, k + 1) : hi;
		p->steps++;
		p->wall_ns += b - (a > lo ? a : lo);
		p->compute_ns += tu_truth_int(t, "rank.%d.step.%lld.compute_ns", r, k);
	}
}

/* Every phase's buckets sum to its wall; per bucket, the phases together hold at most the
 * rank's, and what they leave sums to the window before the first step. */
static void check_partition(const struct rank_analysis *ra)
{
	assert_true(ra->n_by_phase > 0);
	int64_t left = 0;
	for (int k = 0; k < ATTR_COUNT; k++) {
		int64_t sum = 0;
		for (size_t i = 0; i < ra->n_by_phase; i++)
			sum += ra->by_phase[i].attr.ns[k];
		if (sum > ra->attr.ns[k])
			fail_msg("rank %d: bucket %s: phases %lld ns > rank %lld ns", ra->rank, attr_bucket_defs[k].key,
				 (long long)sum, (long long)ra->attr.ns[k]);
		left += ra->attr.ns[k] - sum;
	}
	int64_t walls = 0;
	for (size_t i = 0; i < ra->n_by_phase; i++) {
		const struct phase_verdict *pv = &ra->by_phase[i];
		int64_t sum = 0;
		for (int k = 0; k < ATTR_COUNT; k++)
			sum += pv->attr.ns[k];
		assert_int_equal(sum, pv->attr.wall_ns);
		walls += pv->attr.wall_ns;
		assert_non_null(pv->verdict);
	}
	int64_t before_first = ra->steps[0].win_start - ra->t0;
	assert_true(before_first >= 0);
	assert_int_equal(left, before_first);
	assert_int_equal(walls + before_first, ra->attr.wall_ns);
}

/* Host gaps planted at the start of every decode step: decode is host-bound, prefill
 * compute-bound; a MatMul planted three times slower: both compute-bound. Steps, walls and
 * compute as planted. */
static void test_by_phase_follows_planted_causes(void **state)
{
	(void)state;
	static const struct {
		const char *args;
		int prefill_bn, decode_bn;
	} cases[] = {
		{"--steps 30 --prefill 6 --host-gap-us 3000 --seed 11", BN_NPU_COMPUTE, BN_HOST_DISPATCH},
		{"--steps 30 --prefill 6 --kernel-scale MatMulV2=3 --seed 11", BN_NPU_COMPUTE, BN_NPU_COMPUTE},
	};
	for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
		struct tu_capture c;
		tu_capture_load(&c, cases[n].args, true);
		const struct rank_analysis *ra = &c.an->ranks[0];
		check_partition(ra);
		assert_int_equal(ra->n_by_phase, 2);
		static const char *phases[] = {"prefill", "decode"};
		for (int p = 0; p < 2; p++) {
			const struct phase_verdict *pv = phase_of(ra, phases[p]);
			assert_non_null(pv);
			struct planted want;
			planted_phase(c.truth, ra->rank, phases[p], &want);
			assert_int_equal(pv->steps, want.steps);
			assert_int_equal(pv->attr.wall_ns, want.wall_ns);
			/* a second reading: the compute bucket against the compute planted per step */
			if (!tu_close((double)pv->attr.ns[ATTR_COMPUTE], (double)want.compute_ns, 0.01, 1000))
				fail_msg("%s: %s: compute %lld ns, planted %lld", cases[n].args, phases[p],
					 (long long)pv->attr.ns[ATTR_COMPUTE], want.compute_ns);
			assert_int_equal(pv->first, p ? cases[n].decode_bn : cases[n].prefill_bn);
			assert_true(pv->gain_high_pct > 0 && pv->gain_low_pct <= pv->gain_high_pct);
			assert_non_null(strstr(pv->verdict, ra->bn[pv->first].name));
			/* its gains are shares of the phase's steps, and it says so */
			assert_non_null(strstr(pv->verdict, "of the steps' time"));
			assert_null(strstr(pv->verdict, "of the window"));
		}
		assert_true(phase_of(ra, "prefill")->p50_ns > phase_of(ra, "decode")->p50_ns);
		tu_capture_free(&c);
	}
}

/* Two ranks with communication.json: each phase gets the rank's wait/transfer split of
 * its own exposed communication, and the phases' split adds up to at most the rank's. */
static void test_by_phase_comm_split(void **state)
{
	(void)state;
	struct tu_capture c;
	tu_capture_load(&c, "--ranks 2 --comm --steps 20 --prefill 4 --seed 5", true);
	for (size_t i = 0; i < c.an->n_ranks; i++) {
		const struct rank_analysis *ra = &c.an->ranks[i];
		check_partition(ra);
		int64_t exposed = 0;
		for (size_t p = 0; p < ra->n_by_phase; p++) {
			const struct attribution *a = &ra->by_phase[p].attr;
			exposed += a->ns[ATTR_COMM_WAIT] + a->ns[ATTR_COMM_TRANSFER];
			/* the same share of wait as the rank's, to the ns of rounding */
			double rank_share = (double)ra->attr.ns[ATTR_COMM_WAIT] /
					    (double)(ra->attr.ns[ATTR_COMM_WAIT] + ra->attr.ns[ATTR_COMM_TRANSFER]);
			int64_t u = a->ns[ATTR_COMM_WAIT] + a->ns[ATTR_COMM_TRANSFER];
			assert_true(llabs(a->ns[ATTR_COMM_WAIT] - llround(rank_share * (double)u)) <= 2);
		}
		assert_true(exposed > 0);
		/* the split was made (communication.json) */
		assert_int_equal(ra->attr.ns[ATTR_COMM_UNSPLIT], 0);
	}
	tu_capture_free(&c);
}

/* One prefill step is no sample; a training capture's steps are one "training" phase. */
static void test_by_phase_one_step_and_training(void **state)
{
	(void)state;
	struct tu_capture c;
	tu_capture_load(&c, "--shape vllm --steps 10 --prefill 1 --seed 2", true);
	const struct rank_analysis *ra = &c.an->ranks[0];
	const struct phase_verdict *pre = phase_of(ra, "prefill");
	assert_non_null(pre);
	assert_int_equal(pre->steps, 1);
	assert_int_equal(pre->first, -1);
	assert_true(!strncmp(pre->verdict, "insufficient data", 17));
	assert_int_equal(phase_of(ra, "decode")->steps, 9);
	tu_capture_free(&c);

	tu_capture_load(&c, "--shape train --steps 8 --seed 2", true);
	ra = &c.an->ranks[0];
	assert_int_equal(ra->n_by_phase, 1);
	assert_non_null(phase_of(ra, "training"));
	assert_int_equal(ra->by_phase[0].steps, ra->n_steps);
	check_partition(ra);
	tu_capture_free(&c);
}

/* --report --json through the binary: by_phase after the bottlenecks, each entry's keys,
 * its buckets summing to its wall_us (to the ns its three decimals hold). */
static void test_by_phase_json(void **state)
{
	(void)state;
	if (!tu_gen() || !getenv("ASCPROF_BIN"))
		skip();
	char *dir = tu_generate("--steps 30 --prefill 6 --host-gap-us 3000 --seed 11");
	size_t len;
	char *js = tu_report_json(dir, &len);
	struct jtok jt;
	jtok_init(&jt);
	assert_true(jtok_parse(&jt, js, len) > 0);
	int rank = jtok_obj_get(&jt, js, 0, "ranks") + 1;
	int bp = jtok_obj_get(&jt, js, rank, "by_phase");
	assert_true(bp > jtok_obj_get(&jt, js, rank, "combined_gain"));
	assert_int_equal(jt.t[bp].type, JSMN_ARRAY);
	assert_int_equal(jt.t[bp].size, 2);
	static const char *want_phase[] = {"prefill", "decode"}, *want_bn[] = {"NPU compute", "host dispatch"};
	static const long long want_steps[] = {6, 24};
	int e = bp + 1;
	for (int p = 0; p < 2; p++, e = jtok_skip(&jt, e)) {
		assert_true(jtok_eq(js, &jt.t[jtok_obj_get(&jt, js, e, "phase")], want_phase[p]));
		assert_true(jtok_eq(js, &jt.t[jtok_obj_get(&jt, js, e, "bottleneck")], want_bn[p]));
		assert_int_equal(strtoll(js + jt.t[jtok_obj_get(&jt, js, e, "steps")].start, NULL, 10), want_steps[p]);
		long long wall = llround(strtod(js + jt.t[jtok_obj_get(&jt, js, e, "wall_us")].start, NULL) * 1000);
		int at = jtok_obj_get(&jt, js, e, "attribution");
		assert_int_equal(jt.t[at].size, ATTR_COUNT);
		long long sum = 0;
		for (int k = 0; k < ATTR_COUNT; k++)
			sum += llround(strtod(js + jt.t[jtok_obj_get(&jt, js, at, attr_bucket_defs[k].key)].start, NULL) * 1000);
		assert_int_equal(sum, wall);
		for (const char *const *key = (const char *const[]){"verdict", "gain_pct", "step_p50_us", "step_p95_us", NULL};
		     *key; key++)
			assert_true(jtok_obj_get(&jt, js, e, *key) >= 0);
	}
	jtok_free(&jt);
	free(js);
	*strrchr(dir, '/') = '\0'; /* the generator's temp dir holds the capture and the JSON */
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_phase_follows_planted_causes),
		cmocka_unit_test(test_by_phase_comm_split),
		cmocka_unit_test(test_by_phase_one_step_and_training),
		cmocka_unit_test(test_by_phase_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
