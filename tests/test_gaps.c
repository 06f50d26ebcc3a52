/* SPDX-License-Identifier: MIT */
/* The device-idle gaps and their causes (gaps.h): on generated captures the planted host
 * gaps are found in the planted decode steps with a host cause, the edges are capture_edge
 * to the ns of the generator's edge_idle_ns, and the gaps' time is the device-idle time
 * counted two ways: the attribution's device-idle buckets, and the gaps of the union of
 * device tasks and collectives read here from the store's lanes. The real level 1 and level 2
 * captures the same, with the causes their files allow. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "capture.h"
#include "category.h"
#include "testutil.h"
#include "xalloc.h"

static int cmp_start(const void *x, const void *y)
{
	int64_t a = ((const int64_t *)x)[0], b = ((const int64_t *)y)[0];
	return (a > b) - (a < b);
}

/* The window's time outside every device task (waits excepted) and collective, read from
 * the lanes without the rank's sets: their union swept in start order. */
static int64_t idle_from_events(const struct rank_store *rs, const struct ev_class *cls, int64_t lo, int64_t hi)
{
	size_t n = 0;
	int64_t (*iv)[2] = xmalloc((rs->n_ev ? rs->n_ev : 1) * sizeof *iv);
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *l = &rs->lanes[li];
		if (l->group != LANE_DEVICE && l->group != LANE_COMM)
			continue;
		for (uint32_t k = 0; k < l->n_events; k++) {
			uint32_t ev = l->events[k];
			if (l->group == LANE_DEVICE && (cls[ev].flags & EVF_WAIT))
				continue;
			int64_t a = store_ts(rs, ev), b = a + store_dur(rs, ev);
			a = a < lo ? lo : a;
			b = b > hi ? hi : b;
			if (b > a) {
				iv[n][0] = a;
				iv[n][1] = b;
				n++;
			}
		}
	}
	qsort(iv, n, sizeof *iv, cmp_start);
	int64_t busy = 0, cur = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		int64_t a = iv[i][0] > cur ? iv[i][0] : cur;
		if (iv[i][1] > a)
			busy += iv[i][1] - a;
		if (iv[i][1] > cur)
			cur = iv[i][1];
	}
	free(iv);
	return (hi - lo) - busy;
}

static int64_t attr_idle(const struct attribution *a)
{
	static const enum attr_bucket idle[] = {ATTR_HOST_SYNC, ATTR_HOST_COPY, ATTR_HOST_DISPATCH,
						ATTR_HOST_PYTHON, ATTR_IDLE,      ATTR_EDGE_IDLE};
	return attribution_sum(a, idle, sizeof idle / sizeof idle[0]);
}

/* The totals: by cause sums to the gaps' time, which is the attribution's device-idle time
 * and, with a trace, the idle time read from the events; the top is longest first. */
static void check_totals(const struct capture *cap, const struct rank_analysis *ra)
{
	const struct gap_analysis *g = &ra->gaps;
	assert_true(g->valid);
	int64_t sum = 0;
	for (int c = 0; c < GAP_CAUSE_COUNT; c++)
		sum += g->by_cause[c];
	assert_int_equal(sum, g->total_ns);
	int64_t host = 0;
	for (int h = 0; h < GAP_HOST_COUNT; h++)
		host += g->no_dispatch_by_host[h];
	assert_int_equal(host, g->by_cause[GAP_NO_DISPATCH]);
	assert_int_equal(g->total_ns, attr_idle(&ra->attr));
	const struct rank_store *rs = &cap->ranks[ra->rank_index].store;
	if (ra->has_trace)
		assert_int_equal(g->total_ns, idle_from_events(rs, ra->cls, rs->window_start, rs->window_end));
	assert_true(g->n_top <= GAPS_TOP && g->n_top <= g->count);
	for (size_t i = 0; i < g->n_top; i++) {
		assert_true(g->top[i].dur > 0);
		assert_true(g->top[i].dur <= g->by_cause[g->top[i].cause]);
		assert_true(g->top[i].step >= -1 && g->top[i].step < (int32_t)ra->n_steps);
		if (i)
			assert_true(g->top[i].dur <= g->top[i - 1].dur);
	}
}

/* --host-gap-us 2000 plants 2 ms of host work before the first launch of every decode step,
 * --edge-us 3000 3 ms of host work at each edge: the edges are capture_edge (the generator's
 * edge_idle_ns to the ns), and each decode step has one gap of 2 ms or more, in that step,
 * with a host cause (no_dispatch), covering its planted host work; no other step has one. */
static void test_planted_host_gaps(void **state)
{
	(void)state;
	static const char *const args[] = {
		"--seed 3 --steps 8 --prefill 2 --ops 60 --host-gap-us 2000 --edge-us 3000",
		"--shape vllm --seed 3 --steps 8 --prefill 2 --ops 60 --host-gap-us 2000 --edge-us 3000",
		"--shape vllm,graph --seed 3 --steps 10 --prefill 2 --ops 60 --host-gap-us 2000 --edge-us 3000",
	};
	for (size_t a = 0; a < sizeof args / sizeof args[0]; a++) {
		struct tu_capture l;
		tu_capture_load(&l, args[a], true);
		const struct rank_analysis *ra = &l.an->ranks[0];
		const struct gap_analysis *g = &ra->gaps;
		check_totals(l.cap, ra);
		assert_int_equal(g->by_cause[GAP_CAPTURE_EDGE], tu_truth_int(l.truth, "rank.0.edge_idle_ns"));
		assert_int_equal(ra->n_steps, tu_truth_int(l.truth, "rank.0.steps"));
		size_t decode = 0, found = 0;
		for (size_t k = 0; k < ra->n_steps; k++) {
			bool planted = !strcmp(tu_truth_str(l.truth, "rank.0.step.%zu.phase", k), "decode");
			decode += planted;
			int64_t p0 = tu_truth_int(l.truth, "rank.0.step.%zu.start_ns", k), p1 = p0 + 2000000;
			size_t in_step = 0;
			for (size_t i = 0; i < g->n_top; i++) {
				const struct gap *t = &g->top[i];
				if (t->cause == GAP_CAPTURE_EDGE || t->dur < 2000000 || t->step != (int32_t)k)
					continue;
				in_step++;
				assert_int_equal(t->cause, GAP_NO_DISPATCH);
				assert_true(t->host == GAP_HOST_PYTHON || t->host == GAP_HOST_DISPATCH);
				int64_t a0 = t->start > p0 ? t->start : p0, a1 = t->start + t->dur < p1 ? t->start + t->dur : p1;
				assert_true(a1 - a0 >= 1900000); /* the planted host work, give or take its markers */
			}
			assert_int_equal(in_step, planted ? 1 : 0);
			found += in_step;
		}
		assert_int_equal(found, decode);
		assert_true(g->by_cause[GAP_NO_DISPATCH] >= (int64_t)decode * 2000000);
		tu_capture_free(&l);
	}
}

/* Steps from markers (ProfilerStep, engine ops) leave host scheduling between them; steps
 * read from the device (the kernel sequence) have no host bounds: nothing lies between. On
 * graph captures the device waits for replays inside the piecewise steps. */
static void test_causes_by_shape(void **state)
{
	(void)state;
	struct tu_capture l;
	tu_capture_load(&l, "--seed 4 --steps 8 --ops 60", true);
	check_totals(l.cap, &l.an->ranks[0]);
	assert_true(l.an->ranks[0].gaps.by_cause[GAP_BETWEEN_STEPS] > 0);
	/* a kernel launched before the device freed up waits its launch on (the generator's
	 * queue latency) */
	assert_true(l.an->ranks[0].gaps.by_cause[GAP_LAUNCH_LATENCY] > 0);
	tu_capture_free(&l);
	tu_capture_load(&l, "--shape vllm,graph --seed 4 --steps 12 --prefill 3 --ops 60", true);
	const struct rank_analysis *ra = &l.an->ranks[0];
	check_totals(l.cap, ra);
	assert_int_equal(ra->step_source, STEP_SRC_OP_SEQUENCE);
	assert_int_equal(ra->gaps.by_cause[GAP_BETWEEN_STEPS], 0);
	assert_true(ra->gaps.by_cause[GAP_BETWEEN_GRAPH_REPLAYS] > 0);
	tu_capture_free(&l);
}

/* A slow rank: the others wait for it inside their collectives, which is the attribution's
 * comm_wait, not device-idle time: no gap of theirs is a peer wait, and the sums hold. */
static void test_slow_rank(void **state)
{
	(void)state;
	struct tu_capture l;
	tu_capture_load(&l, "--ranks 2 --seed 5 --steps 6 --ops 60 --comm --slow-rank 1 --slow-factor 2", true);
	for (size_t r = 0; r < l.an->n_ranks; r++) {
		const struct rank_analysis *ra = &l.an->ranks[r];
		check_totals(l.cap, ra);
		if (ra->rank == 0) {
			assert_true(ra->attr.ns[ATTR_COMM_WAIT] > 0);
			assert_int_equal(ra->gaps.by_cause[GAP_PEER_WAIT], 0);
		}
	}
	tu_capture_free(&l);
}

static struct analysis *open_real(const char *dir, struct capture **cap)
{
	*cap = capture_open(dir, NULL);
	assert_true((*cap)->usable);
	capture_load(*cap);
	return analysis_run(*cap);
}

/* level 1 (traces with host lanes and launch flows): the edges, launches that ran before
 * their gap began, device waits for peers and host-bound gaps, each rank's totals two ways. */
static void test_real_level1(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(dir, "msinsight/test/data/pytorch/text/level1");
	struct capture *cap;
	struct analysis *an = open_real(dir, &cap);
	assert_int_equal(an->n_ranks, 2);
	for (size_t r = 0; r < an->n_ranks; r++) {
		const struct rank_analysis *ra = &an->ranks[r];
		check_totals(cap, ra);
		const struct gap_analysis *g = &ra->gaps;
		assert_true(g->by_cause[GAP_CAPTURE_EDGE] > 0);
		assert_true(g->by_cause[GAP_LAUNCH_LATENCY] > 0);
		assert_true(g->by_cause[GAP_PEER_WAIT] > 0);
		assert_true(g->by_cause[GAP_NO_DISPATCH] > 0);
		assert_int_equal(g->by_cause[GAP_UNKNOWN], 0);
		/* the longest is the capture's start, before the first device task */
		assert_int_equal(g->top[0].cause, GAP_CAPTURE_EDGE);
		assert_int_equal(g->top[0].start, ra->attr.span_lo - g->top[0].dur);
	}
	analysis_free(an);
	capture_free(cap);
	free(dir);
}

/* level 2 (kernel tables without a trace on two ranks, none on the others): gaps with their
 * totals, but no host to read a cause from: unknown, never a guess. */
static void test_real_level2(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(dir, "msinsight/test/st/level2");
	struct capture *cap;
	struct analysis *an = open_real(dir, &cap);
	size_t with = 0;
	for (size_t r = 0; r < an->n_ranks; r++) {
		const struct rank_analysis *ra = &an->ranks[r];
		if (!ra->gaps.valid) {
			assert_false(ra->attr.valid && ra->has_timeline);
			continue;
		}
		with++;
		check_totals(cap, ra);
		assert_false(ra->has_trace);
		assert_true(ra->gaps.count > 100);
		assert_int_equal(ra->gaps.by_cause[GAP_UNKNOWN] + ra->gaps.by_cause[GAP_CAPTURE_EDGE], ra->gaps.total_ns);
	}
	assert_int_equal(with, 2);
	analysis_free(an);
	capture_free(cap);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_planted_host_gaps),
		cmocka_unit_test(test_causes_by_shape),
		cmocka_unit_test(test_slow_rank),
		cmocka_unit_test(test_real_level1),
		cmocka_unit_test(test_real_level2),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
