/* SPDX-License-Identifier: MIT */
/* MS Service Profiler output (serving.h, service.h): the generations recognised, every
 * serving figure of a generated current-generation output against its planted truth, the
 * real 2024 dump's spans, and what a raw or a missing figure says. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

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
/* An output read from its spans alone (path: a chrome_tracing.json or a profiler.db):
 * requests from the httpReq spans, executions by type from the spans' args, each at the time
 * the tables (sv) give it; TTFT is not in the spans: null. */
static void spans_alone(const char *path, const struct tu_truth *t, const struct serving *sv)
{
	struct opened c = open_path(path);
	assert_non_null(c.an);
	assert_int_equal(c.an->service->gen, SERVING_CURRENT);
	assert_int_equal(c.an->service->requests, tu_truth_int(t, "serving.requests"));
	assert_int_equal(c.an->service->batches[SBT_PREFILL], tu_truth_int(t, "serving.batches.prefill"));
	assert_int_equal(c.an->service->batches[SBT_DECODE], tu_truth_int(t, "serving.batches.decode"));
	assert_int_equal(c.an->service->batches[SBT_MIXED], tu_truth_int(t, "serving.batches.mixed"));
	assert_false(c.an->service->ttft.valid);
	assert_non_null(strstr(c.an->service->ttft.why, "a service trace alone has none"));
	const struct serving *cs = c.cap->serving;
	assert_int_equal(cs->n_batch, sv->n_batch);
	for (size_t i = 0; i < cs->n_batch; i++) {
		assert_int_equal(cs->batch[i].exec, sv->batch[i].exec);
		assert_true(llabs(cs->batch[i].start_ns - sv->batch[i].start_ns) <= 1000);
		assert_int_equal(cs->batch[i].size, sv->batch[i].size);
		assert_int_equal(cs->batch[i].type, sv->batch[i].type);
	}
	close_opened(&c);
}

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
		/* a request's executions (the Serving view's Enter): the generator gives each request
		 * one reply token per step from the one that admits it (its first token at that
		 * step's end) to its last, so they number its reply tokens, the first a prompt batch
		 * ending at its first token */
		for (size_t i = 0; i < sv->n_req; i++) {
			const struct serving_request *q = &sv->req[i];
			size_t got[64], n = service_request_batches(sv, i, got, 64);
			if ((int64_t)n != q->reply_tokens)
				fail_msg("request %zu: %zu executions, %" PRId64 " reply tokens", i, n, q->reply_tokens);
			assert_true(n >= 1 && n <= 64);
			assert_true(llabs(sv->batch[got[0]].end_ns - (q->start_ns + q->ttft_ns)) <= 1000);
			assert_int_not_equal(sv->batch[got[0]].type, SBT_DECODE);
			for (size_t k = 1; k < n; k++)
				assert_true(sv->batch[got[k]].start_ns >= sv->batch[got[k - 1]].end_ns);
		}
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
		/* its chrome_tracing.json alone (a bare array: the current generation): requests
		 * from its httpReq spans, executions by type from its modelExec spans' args, each
		 * at the time batch.csv gives it (the trace in µs, the table's "(ms)" column in µs
		 * too, both since the epoch); TTFT is not in the spans: null */
		assert_int_equal(tu_sh("mkdir '%s/ct' && cp '%s/%s/chrome_tracing.json' '%s/ct/'", dir, dir,
				       tu_truth_str(t, "serving.dir"), dir),
				 0);
		char *ct = xasprintf("%s/ct/chrome_tracing.json", dir);
		spans_alone(ct, t, sv);
		free(ct);
		/* its profiler.db alone (the output kept without its CSVs and trace): the same
		 * spans from the slice table (ns), so the same requests, batches and times, opened as
		 * its directory and as the file; the database is read, never written */
		assert_int_equal(tu_sh("mkdir '%s/pdb' && cp '%s/%s/profiler.db' '%s/pdb/' && chmod a-w '%s/pdb' "
				       "'%s/pdb/profiler.db'",
				       dir, dir, tu_truth_str(t, "serving.dir"), dir, dir, dir),
				 0);
		for (int as_file = 0; as_file < 2; as_file++) {
			char *pdb = xasprintf(as_file ? "%s/pdb/profiler.db" : "%s/pdb", dir);
			spans_alone(pdb, t, sv);
			free(pdb);
		}
		assert_int_equal(tu_sh("chmod u+w '%s/pdb'", dir), 0);
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
 * and as its chrome_tracing.json alone. Without TTFT, no verdict on what bounds it. */
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
		/* no TTFT, so nothing bounds it: the medians of its parts (scheduling 0.12 ms,
		 * prefill 0.03 ms) are not a first token's latency */
		assert_false(sa->ttft_bound.valid);
		assert_non_null(strstr(sa->ttft_bound.why, "no request table"));
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

/* Tied to the device: each forward of the serving output goes to the device step at the same
 * time (both on the epoch clock), and its batch type is that step's phase. A chunked-prefill
 * capture in vLLM-Ascend's default export without shapes (where no kernel tells prefill from
 * mixed: 10 % of steps wrong otherwise) reads every step on both ranks as planted, every one
 * from the serving forwards, high. Forwards an hour off the trace's clock (another run) fall
 * on no step: the signal says nothing rather than something wrong. */
static void test_phases_from_forwards(void **state)
{
	(void)state;
	if (!tu_gen())
		skip();
	char *dir = tu_generate("--ranks 2 --shape vllm,mixed=4 --steps 40 --prefill 8 --default-export --step-marks none "
				"--serving --seed 3");
	assert_int_equal(tu_sh("find '%s' -name kernel_details.csv -exec sed -i '1s/Input Shapes/Input Shapez/' {} +",
			       dir),
			 0);
	struct tu_truth *t = tu_truth_load(dir);
	struct opened o = open_path(dir);
	for (size_t r = 0; r < o.an->n_ranks; r++) {
		const struct rank_analysis *ra = &o.an->ranks[r];
		assert_int_equal(ra->n_steps, tu_truth_int(t, "rank.%d.steps", ra->rank));
		for (size_t k = 0; k < ra->n_steps; k++) {
			const struct step *s = &ra->steps[k];
			assert_int_equal(s->phase_source, PHASE_SRC_SERVING);
			assert_int_equal(s->phase_conf, CONF_HIGH);
			assert_string_equal(result_phase_name(s->phase),
					    tu_truth_str(t, "rank.%d.step.%zu.phase", ra->rank, k));
		}
	}
	close_opened(&o);
	/* the forwards an hour later: no step is theirs */
	assert_int_equal(tu_sh("cd '%s/serving' && awk -F, -v CONVFMT=%%.3f -v OFMT=%%.3f 'BEGIN{OFS=\",\"} NR>1{$13+=3600000; $14+=3600000} {print}' "
			       "forward.csv >f.tmp && mv f.tmp forward.csv",
			       dir),
			 0);
	o = open_path(dir);
	for (size_t r = 0; r < o.an->n_ranks; r++)
		for (size_t k = 0; k < o.an->ranks[r].n_steps; k++)
			assert_int_not_equal(o.an->ranks[r].steps[k].phase_source, PHASE_SRC_SERVING);
	close_opened(&o);
	tu_truth_free(t);
	tu_rmtree(dir);
	free(dir);
}

/* forward.csv in dir: the current exporter's header, then rows. */
static void forward_csv(const char *dir, const char *rows)
{
	size_t size = strlen(rows) + 128;
	char *text = xmalloc(size);
	snprintf(text, size, "name,during_time(ms),bubble_time(ms),batch_size,batch_type,start_time(ms),end_time(ms)\n%s",
		rows);
	free(tu_write_str(dir, "forward.csv", text));
	free(text);
}

/* What bounds TTFT and TPOT, on outputs made to say it: requests that wait 80 ms in the
 * queue for a 100 ms first token are bound by queueing; decode forwards of 10 ms with 30 ms
 * bubbles between them by bubbles; where no part holds 40 %, no verdict. The parts of a
 * TPOT partition the forwards' span (execution, prompt batches between, bubbles). */
static void test_bounds(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	free(tu_write_str(dir, "request.csv",
			  "http_rid,recv_token_size,reply_token_size,execution_time(ms),queue_wait_time(ms),"
			  "first_token_latency(ms),start_time(ms)\n"
			  "1,10,5,260.000,80.000,100.000,1736408890000.000\n"
			  "2,10,5,260.000,80.000,100.000,1736408890010.000\n"
			  "3,10,5,260.000,80.000,100.000,1736408890020.000\n"));
	forward_csv(dir,
		    "forward,10.000,0.000,3,Prefill,1736408890100.000,1736408890110.000\n"
		    "forward,10.000,30.000,3,Decode,1736408890140.000,1736408890150.000\n"
		    "forward,10.000,30.000,3,Decode,1736408890180.000,1736408890190.000\n"
		    "forward,10.000,30.000,3,Decode,1736408890220.000,1736408890230.000\n"
		    "forward,10.000,30.000,3,Decode,1736408890260.000,1736408890270.000\n");
	struct opened o = open_path(dir);
	const struct service_analysis *sa = o.an->service;
	assert_non_null(sa);
	assert_true(sa->ttft_bound.valid);
	assert_string_equal(sa->ttft_bound.part, "queue wait");
	assert_int_equal((int)(sa->ttft_bound.share_pct + 0.5), 80);
	assert_int_equal(sa->ttft_bound.parts[1], 10000000); /* the prefill forward */
	assert_int_equal(sa->ttft_bound.parts[3], 10000000); /* 100 - 80 - 10 */
	assert_true(sa->tpot_bound.valid);
	assert_string_equal(sa->tpot_bound.part, "bubbles between forwards");
	assert_int_equal(sa->tpot_bound.parts[0], 10000000);
	assert_int_equal(sa->tpot_bound.parts[1], 10000000 / 4); /* one prefill over four decodes */
	assert_int_equal(sa->tpot_bound.parts[2], 30000000);
	assert_int_equal(sa->tpot_bound.median, 10000000 + 2500000 + 30000000);
	assert_int_equal(sa->worst_forward, 1);
	close_opened(&o);
	/* queue 35, prefill execution 30 and 35 behind other batches of a 100 ms TTFT: no part
	 * holds 40 %, no verdict */
	tu_sh("sed -i 's/80.000,100.000/35.000,100.000/' '%s/request.csv'", dir);
	tu_sh("sed -i 's/1736408890100.000,1736408890110.000/1736408890100.000,1736408890130.000/' '%s/forward.csv'", dir);
	o = open_path(dir);
	assert_false(o.an->service->ttft_bound.valid);
	assert_non_null(o.an->service->ttft_bound.why);
	close_opened(&o);
	tu_rmtree(dir);
	free(dir);
}

/* No false device figures: a trace without one device lane (a host-only trace, a service
 * trace read as a trace) gives its host's figures and leaves every device figure unknown
 * (the text leaves them out, the steps table shows "-", JSON says null), and the verdict
 * says why there is none, not "NPU idle 100 %". */
static void test_no_device_lanes(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	free(tu_write_str(dir, "trace_view.json",
			  "[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"Python\"}},\n"
			  "{\"ph\":\"X\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":\"1700000000000000.000\","
			  "\"dur\":\"100.000\",\"cat\":\"cpu_op\"},\n"
			  "{\"ph\":\"X\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":\"1700000000000500.000\","
			  "\"dur\":\"50.000\",\"cat\":\"cpu_op\"}]\n"));
	struct opened o = open_path(dir);
	assert_int_equal(o.an->n_ranks, 1);
	const struct rank_analysis *ra = &o.an->ranks[0];
	assert_true(ra->have[M_HOST_BUSY_US]);
	assert_int_equal((int64_t)(ra->v[M_HOST_BUSY_US] * 1000 + 0.5), 150000);
	static const enum metric_id device[] = {M_NPU_BUSY_US, M_NPU_BUSY_PCT, M_COMPUTE_US, M_NPU_IDLE_US,
						M_NPU_IDLE_PCT, M_FREE_US, M_COMM_US, M_DEVICE_COPY_US};
	for (size_t i = 0; i < sizeof device / sizeof *device; i++)
		assert_false(ra->have[device[i]]);
	assert_false(ra->have[M_HOST_ONLY_US]); /* host work minus a device nobody saw */
	assert_false(ra->attr.valid);
	assert_non_null(strstr(attribution_why(&ra->attr), "no device lane"));
	char *text = tu_report_text(o.an);
	assert_null(strstr(text, "NPU idle"));
	assert_null(strstr(text, "100.00 %"));
	assert_non_null(strstr(text, "verdict: insufficient data: the trace has no device lane"));
	free(text);
	close_opened(&o);
	tu_rmtree(dir);
	free(dir);
}

/* A profiler.db is the service profiler's only with its slice table: another tool's file of
 * that name, or one that is not a database, opens nothing as serving output. */
static void test_foreign_profiler_db(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *db = xasprintf("%s/profiler.db", dir);
	sqlite3 *h = NULL;
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "CREATE TABLE runs(id INTEGER, created TEXT)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(serving_probe(dir), SERVING_NONE);
	assert_int_equal(serving_probe(db), SERVING_NONE);
	free(tu_write_str(dir, "x/profiler.db", "not a database at all"));
	char *x = xasprintf("%s/x", dir);
	assert_int_equal(serving_probe(x), SERVING_NONE);
	free(x);
	free(db);
	tu_rmtree(dir);
	free(dir);
}

/* A forward's batch_size past int32 is not given (-1), not wrapped: 4294967299 was read as
 * 3, a batch size that looks real. */
static void test_batch_size_past_int32(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	forward_csv(dir,
		    "forward,10.000,0.000,4294967299,Prefill,1736408890100.000,1736408890110.000\n"
		    "forward,10.000,30.000,2147483647,Decode,1736408890140.000,1736408890150.000\n"
		    "forward,10.000,30.000,7,Decode,1736408890180.000,1736408890190.000\n");
	struct opened o = open_path(dir);
	const struct serving *sv = o.cap->serving;
	assert_non_null(sv);
	assert_int_equal(sv->n_fwd, 3);
	assert_int_equal(sv->fwd[0].size, -1);
	assert_int_equal(sv->fwd[1].size, 2147483647);
	assert_int_equal(sv->fwd[2].size, 7);
	close_opened(&o);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generated_current),
		cmocka_unit_test(test_real_2024),
		cmocka_unit_test(test_generations),
		cmocka_unit_test(test_phases_from_forwards),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_batch_size_past_int32),
		cmocka_unit_test(test_no_device_lanes),
		cmocka_unit_test(test_foreign_profiler_db),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
