/* SPDX-License-Identifier: MIT */
/* MS Service Profiler output (serving.h, service.h): the generations recognised, every
 * serving figure of a generated current-generation output against its planted truth, the
 * real 2024 dump's spans, and what a raw or a missing figure says. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis.h"
#include "capture.h"
#include "testutil.h"
#include "xalloc.h"

struct opened {
	struct capture *cap;
	struct analysis *an;
};

static struct opened open_path(const char *path)
{
	struct opened o;
	o.cap = capture_open(path, NULL);
	capture_load(o.cap);
	o.an = o.cap->usable ? analysis_run(o.cap) : NULL;
	return o;
}

static void close_opened(struct opened *o)
{
	analysis_free(o->an);
	capture_free(o->cap);
}

/* A figure as the truth writes it: ms with three decimals. */
static void dist_equals(const struct tu_truth *t, const char *key, const struct service_dist *d)
{
	static const char *const q[] = {"p50", "p90", "p99", "max"};
	const int64_t got[] = {d->p50, d->p90, d->p99, d->max};
	assert_true(d->valid);
	for (int i = 0; i < 4; i++) {
		char buf[64];
		snprintf(buf, sizeof buf, "%.3f", (double)got[i] / 1e6);
		const char *want = tu_truth_str(t, "serving.%s.%s", key, q[i]);
		if (strcmp(buf, want))
			fail_msg("serving %s %s: %s, planted %s", key, q[i], buf, want);
	}
}

/* The current generation, generated with the run it profiled (ranks beside it): requests,
 * TTFT, TPOT, end to end, queue wait, batches by type, forwards and their bubbles, the KV
 * cache's peak, each equal to the truth the generator computed from what it wrote. Its
 * batch.csv writes µs under "(ms)" names (the trap one exporter sets): the figures hold
 * only if they are told by their size. The ranks' own analysis is there too. */
static void test_generated_current(void **state)
{
	(void)state;
	if (!tu_gen())
		skip();
	for (int seed = 1; seed <= 2; seed++) {
		char args[160];
		snprintf(args, sizeof args, "--ranks 2 --shape vllm,mixed=3 --steps 30 --prefill 6 --serving --seed %d",
			 seed);
		char *dir = tu_generate(args);
		struct tu_truth *t = tu_truth_load(dir);
		struct opened o = open_path(dir);
		assert_non_null(o.an);
		assert_int_equal(o.an->n_ranks, 2);
		const struct service_analysis *sa = o.an->service;
		assert_non_null(sa);
		assert_int_equal(sa->gen, SERVING_CURRENT);
		assert_true(sa->requests_valid);
		assert_int_equal(sa->requests, tu_truth_int(t, "serving.requests"));
		dist_equals(t, "ttft_ms", &sa->ttft);
		dist_equals(t, "tpot_ms", &sa->tpot);
		dist_equals(t, "e2e_ms", &sa->e2e);
		dist_equals(t, "queue_wait_ms", &sa->queue);
		assert_int_equal(sa->batches[SBT_PREFILL], tu_truth_int(t, "serving.batches.prefill"));
		assert_int_equal(sa->batches[SBT_DECODE], tu_truth_int(t, "serving.batches.decode"));
		assert_int_equal(sa->batches[SBT_MIXED], tu_truth_int(t, "serving.batches.mixed"));
		assert_int_equal(sa->batches[SBT_UNKNOWN], 0);
		assert_int_equal(sa->forwards, tu_truth_int(t, "serving.forwards"));
		char buf[64];
		snprintf(buf, sizeof buf, "%.3f", (double)sa->bubble_ns / 1e6);
		assert_string_equal(buf, tu_truth_str(t, "serving.forward_bubble_ms"));
		snprintf(buf, sizeof buf, "%.2f", sa->kv_max_pct);
		assert_string_equal(buf, tu_truth_str(t, "serving.kvcache_usage_max_pct"));
		/* the batches are on the epoch clock in ns whatever their columns say */
		const struct serving *sv = o.cap->serving;
		for (size_t i = 0; i < sv->n_batch; i++)
			assert_true(sv->batch[i].start_ns > 1600000000LL * 1000000000LL &&
				    sv->batch[i].start_ns < 2000000000LL * 1000000000LL);
		/* the serving output opened alone: the same figures, no rank */
		char *alone = xasprintf("%s/%s", dir, tu_truth_str(t, "serving.dir"));
		struct opened s = open_path(alone);
		assert_non_null(s.an);
		assert_int_equal(s.an->n_ranks, 0);
		assert_int_equal(s.an->service->requests, sa->requests);
		assert_int_equal(s.an->service->ttft.p99, sa->ttft.p99);
		close_opened(&s);
		free(alone);
		close_opened(&o);
		tu_truth_free(t);
		tu_rmtree(dir);
		free(dir);
	}
}

/* The real 2024 dump (MindIE, one request over 5 s): no request table, so TTFT, TPOT, end to
 * end and queue wait are null with the reason; its one request counted from its httpReq
 * span; 250 batches formed (BatchSchedule) and 250 executed (modelExec), the first a
 * prefill and the other 249 decodes, as their args say (batchType). Opened as the directory
 * and as its chrome_tracing.json alone. */
static void test_real_2024(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(dir, "msserviceprofiler/output");
	char *trace = xasprintf("%s/chrome_tracing.json", dir);
	const char *paths[] = {dir, trace};
	for (int i = 0; i < 2; i++) {
		assert_int_equal(serving_probe(paths[i]), SERVING_2024);
		struct opened o = open_path(paths[i]);
		assert_non_null(o.an);
		assert_int_equal(o.an->n_ranks, 0); /* no device figure: no rank at all */
		const struct service_analysis *sa = o.an->service;
		assert_non_null(sa);
		assert_true(sa->requests_valid);
		assert_int_equal(sa->requests, 1);
		assert_string_equal(sa->requests_from, "httpReq spans");
		assert_false(sa->ttft.valid);
		assert_non_null(strstr(sa->ttft.why, "no request table"));
		assert_false(sa->tpot.valid);
		assert_false(sa->queue.valid);
		assert_true(sa->batches_valid);
		assert_int_equal(sa->schedules, 250);
		assert_int_equal(sa->batches[SBT_PREFILL], 1);
		assert_int_equal(sa->batches[SBT_DECODE], 249);
		assert_int_equal(sa->batches[SBT_MIXED] + sa->batches[SBT_UNKNOWN], 0);
		assert_false(sa->forwards_valid);
		/* the report says n/a with the reason, never a figure of 0 */
		char *text = tu_report_text(o.an);
		assert_non_null(strstr(text, "time to first token   n/a: no request table"));
		assert_null(strstr(text, "NPU idle"));
		free(text);
		close_opened(&o);
	}
	free(trace);
	free(dir);
}

/* CANN 8.1/8.2's request.csv, in microseconds: read with its unit; a directory of raw
 * ms_service_*.db files says it was never parsed and what to run; a CSV that is not serving
 * output is not taken for one. */
static void test_generations(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *old = xasprintf("%s/old", dir), *raw = xasprintf("%s/raw", dir);
	tu_sh("mkdir -p '%s' '%s'", old, raw);
	free(tu_write_str(old, "request.csv",
			  "http_rid,start_time_httpReq(microsecond),recv_token_size,reply_token_size,"
			  "execution_time(microsecond),queue_wait_time(microsecond),first_token_latency(microsecond)\n"
			  "1,1727940490718339.5,10,5,120000,3000,40000\n"
			  "2,1727940490818339.5,10,1,50000,1000,50000\n"));
	assert_int_equal(serving_probe(old), SERVING_CANN81);
	struct opened o = open_path(old);
	const struct service_analysis *sa = o.an->service;
	assert_int_equal(sa->requests, 2);
	assert_int_equal(sa->ttft.max, 50000000);      /* 50,000 µs */
	assert_int_equal(sa->tpot.n, 1);               /* one request with 2+ reply tokens */
	assert_int_equal(sa->tpot.p50, 80000000 / 4);  /* (120 - 40) ms over 4 tokens */
	assert_int_equal(sa->queue.p50, 1000000);
	assert_int_equal(o.cap->serving->req[0].start_ns, 1727940490718339500LL);
	assert_false(sa->batches_valid);
	close_opened(&o);
	free(tu_write_str(raw, "ms_service_0.db", "SQLite format 3"));
	assert_int_equal(serving_probe(raw), SERVING_RAW);
	struct capture *cap = capture_open(raw, NULL);
	assert_false(cap->usable);
	bool named = false;
	for (size_t i = 0; i < cap->diags.n; i++)
		named |= strstr(cap->diags.items[i].msg, "msserviceprofiler parse") != NULL;
	assert_true(named);
	capture_free(cap);
	free(tu_write_str(dir, "request.csv", "Name,Count\nx,1\n"));
	assert_int_equal(serving_probe(dir), SERVING_NONE);
	tu_rmtree(dir);
	free(dir);
	free(old);
	free(raw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generated_current),
		cmocka_unit_test(test_real_2024),
		cmocka_unit_test(test_generations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
