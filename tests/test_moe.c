/* SPDX-License-Identifier: MIT */
/* MoE expert load (moe.h) on generated captures (ascprof-gen --moe-hot): per rank the
 * tokens routed to its experts, grouped-matmul time, dispatch and combine and the combine's
 * wait for the hot rank against the generator's planted truth (moe.*, summed from the units
 * as placed: the wait is the last arrival minus the rank's own, which the analysis never
 * sees; it reads durations against the same layer on the other ranks), within 5 %; on the
 * MC2 path (decode batches) and the all-to-all path (prompts), with and without step
 * markers, with and without shapes; a balanced capture has no verdict and a capture
 * without MoE no figures, and says why. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "capture.h"
#include "digest.h"
#include "json_tok.h"
#include "lanes.h"
#include "moe.h"
#include "testutil.h"

#define TOL  0.05
#define FLOOR_NS 50000.0 /* 50 us: waits that are jitter only */

static void near(const char *what, int rank, double got, double want)
{
	if (!tu_close(got, want, TOL, FLOOR_NS))
		fail_msg("rank %d %s: %.0f, planted %.0f", rank, what, got, want);
}

static const struct moe_rank_fig *fig_of(const struct moe_rank_fig *f, size_t n, int rank)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].rank == rank && f[i].layers)
			return &f[i];
	return NULL;
}

/* Each rank's whole-capture figures against the planted ones; tokens only with shapes (the
 * kernel table's or the launching host op's), and then exact: both carry the planted count. */
static void check_ranks(const struct moe_analysis *m, const struct tu_truth *t, bool shapes)
{
	assert_true(m->n_ranks >= 2);
	for (size_t i = 0; i < m->n_ranks; i++) {
		const struct moe_rank_fig *f = &m->ranks[i];
		int r = f->rank;
		if (shapes)
			assert_int_equal(f->tokens, tu_truth_int(t, "moe.%d.tokens", r));
		else
			assert_true(f->tokens < 0);
		near("gmm", r, (double)f->gmm_ns, (double)tu_truth_int(t, "moe.%d.gmm_ns", r));
		near("dispatch", r, (double)f->dispatch_ns, (double)tu_truth_int(t, "moe.%d.dispatch_ns", r));
		near("combine", r, (double)f->combine_ns, (double)tu_truth_int(t, "moe.%d.combine_ns", r));
		near("combine wait", r, (double)f->combine_wait_ns, (double)tu_truth_int(t, "moe.%d.combine_wait_ns", r));
	}
}

/* By phase: the planted prompts (all-to-all above 512 tokens) and decode batches (MC2). */
static void check_phases(const struct moe_analysis *m, const struct tu_truth *t)
{
	static const char *const names[3] = {"prefill", "decode", "mixed"};
	int checked = 0;
	for (int p = 0; p < 3; p++)
		for (size_t i = 0; i < m->n_ranks; i++) {
			int r = m->ranks[i].rank;
			long long want = tu_truth_int_or(t, -1, "moe.%s.%d.gmm_ns", names[p], r);
			if (want < 0)
				continue;
			const struct moe_rank_fig *f = fig_of(&m->by_phase[(size_t)p * m->n_ranks], m->n_ranks, r);
			assert_non_null(f);
			near(names[p], r, (double)f->gmm_ns, (double)want);
			near("phase combine wait", r, (double)f->combine_wait_ns,
			     (double)tu_truth_int(t, "moe.%s.%d.combine_wait_ns", names[p], r));
			checked++;
		}
	assert_true(checked > 0);
}

/* The wait is the attribution's comm_wait on every rank (never unsplit), at least what was
 * planted in the dispatches and combines (other collectives may add theirs); the waiting
 * ranks' communication advice names the hot rank's experts, the hot rank's compute advice
 * its own. */
static void check_candidates(const struct analysis *an, const struct tu_truth *t, int hot)
{
	for (size_t i = 0; i < an->n_ranks; i++) {
		const struct rank_analysis *ra = &an->ranks[i];
		double planted = (double)(tu_truth_int(t, "moe.%d.combine_wait_ns", ra->rank) +
		                          tu_truth_int(t, "moe.%d.dispatch_wait_ns", ra->rank));
		if ((double)ra->attr.ns[ATTR_COMM_WAIT] < (1 - TOL) * planted - FLOOR_NS)
			fail_msg("rank %d: comm_wait %lld ns, planted MoE wait %.0f ns", ra->rank,
			         (long long)ra->attr.ns[ATTR_COMM_WAIT], planted);
		assert_true(ra->moe_imbalanced);
		assert_int_equal(ra->moe_hot_rank, hot);
		if (ra->rank == hot) {
			assert_non_null(strstr(ra->bn[BN_NPU_COMPUTE].advice, "expert load imbalance"));
		} else if (attribution_pct(&ra->attr, ra->attr.ns[ATTR_COMM_WAIT]) >= 1.0) {
			char want[32];
			snprintf(want, sizeof want, "for rank %d, whose experts", hot);
			assert_non_null(strstr(ra->bn[BN_COMMUNICATION].advice, want));
		}
		/* the verdict names it where the MoE wait is most of the rank's waiting */
		char verdict[VERDICT_MAX], who[64];
		bottleneck_verdict(ra, verdict, sizeof verdict);
		snprintf(who, sizeof who, "expert load imbalance: rank %d's experts", hot);
		if (ra->rank != hot && 2 * ra->moe_wait_ns >= ra->attr.ns[ATTR_COMM_WAIT] &&
		    !strncmp(verdict, "communication", 13))
			assert_non_null(strstr(verdict, who));
	}
}

/* The report says where the tokens came from, in words that name the source. */
static void check_source_said(const struct analysis *an, enum moe_tok_src src)
{
	static const char *const said[] = {[MOE_TOK_NONE] = "grouped-matmul time stands in",
	                                   [MOE_TOK_SHAPES] = "tokens from GroupedMatmul shapes\n",
	                                   [MOE_TOK_DIMS] = "tokens from the Input Dims of the host ops"};
	char *text = tu_report_text(an);
	if (!strstr(text, said[src]))
		fail_msg("the report does not say \"%s\"", said[src]);
	free(text);
}

/* src: where the tokens must come from (MOE_TOK_NONE: no source, time as the proxy);
 * mc2: whether the capture's combines include MC2 kernels (false: all-to-alls only) */
static void check_case(const struct tu_capture *cp, int hot, enum moe_tok_src src, bool phases, bool mc2)
{
	struct tu_capture c = *cp;
	bool shapes = src != MOE_TOK_NONE;
	const struct moe_analysis *m = c.an->moe;
	assert_non_null(m);
	assert_true(m->present);
	assert_int_equal(m->tokens_known, shapes);
	assert_int_equal(m->tokens_from, src);
	check_source_said(c.an, src);
	assert_int_equal(m->hot_rank, hot);
	assert_int_equal(tu_truth_int(c.truth, "moe.hot_rank"), hot);
	check_ranks(m, c.truth, shapes);
	if (phases)
		check_phases(m, c.truth);
	/* the hot rank waits least; the imbalance is of tokens (planted) or else gmm time */
	double want = shapes ? (double)tu_truth_int(c.truth, "moe.imbalance") / 1000 : 0;
	if (!shapes) { /* planted gmm time: most over the median (nearest rank) */
		long long v[64], most = 0;
		size_t n = m->n_ranks;
		for (size_t i = 0; i < n; i++) {
			v[i] = tu_truth_int(c.truth, "moe.%d.gmm_ns", m->ranks[i].rank);
			most = v[i] > most ? v[i] : most;
		}
		for (size_t i = 1; i < n; i++)
			for (size_t j = i; j > 0 && v[j] < v[j - 1]; j--) {
				long long x = v[j];
				v[j] = v[j - 1];
				v[j - 1] = x;
			}
		want = (double)most / (double)v[(n + 1) / 2 - 1];
	}
	assert_true(tu_close(m->imbalance, want, TOL, 0));
	assert_non_null(m->verdict);
	char who[32];
	snprintf(who, sizeof who, "rank %d's experts", hot);
	assert_non_null(strstr(m->verdict, who));
	assert_true(m->n_worst > 0);
	assert_int_equal(m->combine_name != NULL, mc2);
	check_candidates(c.an, c.truth, hot);
}

static void run_case(const char *args, int hot, enum moe_tok_src src, bool phases, bool mc2)
{
	struct tu_capture c;
	tu_capture_load(&c, args, true);
	check_case(&c, hot, src, phases, mc2);
	tu_capture_free(&c);
}

/* MC2 dispatch/combine in decode steps, all-to-all around the experts in prompts; no
 * markers (vLLM's own profiler wrapper) */
static void test_moe_mc2_and_a2a(void **state)
{
	(void)state;
	run_case("--shape vllm,moe --ranks 4 --steps 10 --prefill 3 --seed 7 --moe-hot 3:2.0", 3, true, true, true);
}

/* ProfilerStep markers, another hot rank and factor, decode only: the MC2 path alone */
static void test_moe_markers_mc2(void **state)
{
	(void)state;
	run_case("--shape vllm,moe --step-marks profilerstep --ranks 4 --steps 8 --prefill 0 --seed 11 "
	         "--moe-hot 1:1.6",
	         1, MOE_TOK_SHAPES, false, true);
}

/* prompts only: the all-to-all path */
static void test_moe_a2a_only(void **state)
{
	(void)state;
	run_case("--shape vllm,moe --ranks 2 --steps 4 --prefill 4 --seed 3 --moe-hot 0:2.5", 0, MOE_TOK_SHAPES, false, false);
}

/* no GroupedMatmul shapes: no tokens, the time stands in and the hot rank still shows */
static void test_moe_no_shapes(void **state)
{
	(void)state;
	run_case("--shape vllm,moe --ranks 4 --steps 8 --prefill 2 --seed 5 --moe-hot 2:2.0 --moe-no-shapes", 2,
	         MOE_TOK_NONE, false, true);
}

/* Where the tokens come from, each source on both paths, with and without markers:
 * kernel_details empty and record_shapes on, the Input Dims of the host ops that launch the
 * grouped matmuls (exact); neither, the time as the proxy, said so; both, the shapes. */
static void test_moe_sources(void **state)
{
	(void)state;
	static const struct {
		const char *args;
		int hot;
		enum moe_tok_src src;
		bool phases, mc2;
	} cases[] = {
	        /* Input Dims only: MC2 and all-to-all, no markers */
	        {"--shape vllm,moe --ranks 4 --steps 10 --prefill 3 --seed 7 --moe-hot 3:2.0 --moe-no-shapes --record-shapes",
	         3, MOE_TOK_DIMS, true, true},
	        /* Input Dims only: ProfilerStep markers, prompts only (the all-to-all path) */
	        {"--shape vllm,moe --step-marks profilerstep --ranks 2 --steps 4 --prefill 4 --seed 3 --moe-hot 0:2.5 "
	         "--moe-no-shapes --record-shapes",
	         0, MOE_TOK_DIMS, false, false},
	        /* neither: markers, both paths */
	        {"--shape vllm,moe --step-marks profilerstep --ranks 4 --steps 8 --prefill 2 --seed 21 --moe-hot 1:1.8 "
	         "--moe-no-shapes",
	         1, MOE_TOK_NONE, true, true},
	        /* both written: kernel_details' shapes win */
	        {"--shape vllm,moe --ranks 4 --steps 6 --prefill 2 --seed 17 --moe-hot 2:1.7 --record-shapes", 2,
	         MOE_TOK_SHAPES, true, true},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
		run_case(cases[k].args, cases[k].hot, cases[k].src, cases[k].phases, cases[k].mc2);
}

/* The Db export of each: the Db holds both sources (COMPUTE_TASK_INFO's inputShapes, the
 * launching PYTORCH_API row's shapes), and its MoE figures are the text twin's, and the
 * planted ones. */
static void test_moe_db(void **state)
{
	(void)state;
	static const struct {
		const char *args;
		int hot;
		enum moe_tok_src src;
		bool mc2;
	} cases[] = {
	        {"--shape vllm,moe --ranks 4 --steps 8 --prefill 2 --seed 5 --moe-hot 2:2.0", 2, MOE_TOK_SHAPES, true},
	        {"--shape vllm,moe --step-marks profilerstep --ranks 4 --steps 8 --prefill 2 --seed 5 --moe-hot 2:2.0 "
	         "--moe-no-shapes --record-shapes",
	         2, MOE_TOK_DIMS, true},
	        {"--shape vllm,moe --ranks 2 --steps 4 --prefill 4 --seed 3 --moe-hot 0:2.5 --moe-no-shapes", 0,
	         MOE_TOK_NONE, false},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		char db_args[512];
		snprintf(db_args, sizeof db_args, "%s --export db", cases[k].args);
		struct tu_capture text, db;
		tu_capture_load(&text, cases[k].args, true);
		tu_capture_load(&db, db_args, true);
		for (size_t i = 0; i < db.cap->n_ranks; i++)
			assert_ptr_equal(db.cap->ranks[i].source, &source_db);
		check_case(&db, cases[k].hot, cases[k].src, false, cases[k].mc2);
		const struct moe_analysis *a = text.an->moe, *b = db.an->moe;
		assert_int_equal(a->n_ranks, b->n_ranks);
		assert_int_equal(a->tokens_from, b->tokens_from);
		assert_int_equal(a->hot_rank, b->hot_rank);
		for (size_t i = 0; i < a->n_ranks; i++) {
			const struct moe_rank_fig *x = &a->ranks[i], *y = &b->ranks[i];
			assert_int_equal(x->rank, y->rank);
			assert_int_equal(x->layers, y->layers);
			assert_int_equal(x->tokens, y->tokens);
			assert_int_equal(x->gmm_ns, y->gmm_ns);
			assert_int_equal(x->dispatch_ns, y->dispatch_ns);
			assert_int_equal(x->combine_ns, y->combine_ns);
			assert_int_equal(x->dispatch_wait_ns, y->dispatch_wait_ns);
			assert_int_equal(x->combine_wait_ns, y->combine_wait_ns);
		}
		tu_capture_free(&text);
		tu_capture_free(&db);
	}
}

/* One rank without its kernel table (removed from the generated copy): its tokens from the
 * Input Dims, the others' from the shapes, all exact, and the source said to be both. */
static void test_moe_mixed_sources(void **state)
{
	(void)state;
	if (!tu_gen())
		skip();
	struct tu_capture c = {0};
	c.dir = tu_generate("--shape vllm,moe --ranks 4 --steps 6 --prefill 2 --seed 23 --moe-hot 1:2.2 --record-shapes");
	assert_int_equal(tu_sh("rm '%s'/$(ls '%s' | grep _ascend_pt | head -n 1)/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
	                       c.dir, c.dir),
	                 0);
	c.cap = capture_open(c.dir, NULL);
	assert_true(c.cap->usable);
	capture_load(c.cap);
	c.an = analysis_run(c.cap);
	c.truth = tu_truth_load(c.dir);
	const struct moe_analysis *m = c.an->moe;
	assert_true(m->present);
	assert_int_equal(m->tokens_from, MOE_TOK_MIXED);
	assert_int_equal(m->hot_rank, 1);
	check_ranks(m, c.truth, true);
	size_t dims = 0;
	for (size_t i = 0; i < c.an->n_ranks; i++)
		for (size_t j = 0; j < c.an->ranks[i].n_moe; j++)
			dims += c.an->ranks[i].moe[j].tok_src == MOE_TOK_DIMS;
	assert_int_equal(dims, m->ranks[0].layers); /* the one rank's layers (every rank has as many) */
	tu_capture_free(&c);
}

/* A real Db (torch_npu, two ranks): each compute task's tokens through its launching op's
 * Input Dims against SQL read here: the launcher is the PYTORCH_API row whose connection id
 * CONNECTION_IDS ties to the TASK row's; its shapes, else those of the innermost row around
 * it on its thread (the latest start, then the earliest end: rank 1's Db has no depth
 * column) that has some, are in inputDtypes (the dtypes are in
 * inputShapes); the leading dimension is SQLite's integer prefix. Every task SQL finds
 * tokens for has the same tokens in the store, found by its start. */
struct ts_tok {
	int64_t ts, tok;
};

static int ts_tok_cmp(const void *a, const void *b)
{
	const struct ts_tok *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static const char real_launch_sql[] =
        "WITH l AS (SELECT t.startNs ts, p.globalTid g, CAST(p.startNs AS INTEGER) s, CAST(p.endNs AS INTEGER) e "
        "FROM TASK t JOIN CONNECTION_IDS c ON c.connectionId = t.connectionId JOIN PYTORCH_API p ON p.connectionId = c.id "
        "WHERE t.globalTaskId IN (SELECT globalTaskId FROM COMPUTE_TASK_INFO)), "
        "a AS (SELECT ts, (SELECT CAST(d.value AS INTEGER) FROM PYTORCH_API q JOIN STRING_IDS d ON d.id = q.inputDtypes "
        "WHERE q.globalTid = l.g AND CAST(q.startNs AS INTEGER) <= l.s AND CAST(q.endNs AS INTEGER) >= l.e AND "
        "d.value GLOB '[0-9]*' AND CAST(d.value AS INTEGER) > 0 "
        "ORDER BY CAST(q.startNs AS INTEGER) DESC, CAST(q.endNs AS INTEGER) LIMIT 1) tok FROM l) "
        "SELECT ts, tok FROM a WHERE tok IS NOT NULL";

static void test_moe_launch_tokens_real_db(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(dir, "msinsight/test/data/pytorch/db/level1");
	struct capture *cap = capture_open(dir, NULL);
	assert_true(cap->usable);
	capture_load(cap);
	assert_int_equal(cap->n_ranks, 2);
	for (size_t r = 0; r < cap->n_ranks; r++) {
		const struct rank_data *rd = &cap->ranks[r];
		assert_ptr_equal(rd->source, &source_db);
		const struct rank_store *rs = &rd->store;
		struct ts_tok *v = calloc(rs->n_ev ? rs->n_ev : 1, sizeof *v);
		size_t n = 0, checked = 0;
		for (size_t ev = 0; ev < rs->n_ev; ev++) {
			int64_t tok = store_ev_lane(rs, ev)->group == LANE_DEVICE ? moe_launch_tokens(rs, (uint32_t)ev) : -1;
			if (tok >= 0)
				v[n++] = (struct ts_tok){store_ts(rs, ev), tok};
		}
		qsort(v, n, sizeof *v, ts_tok_cmp);
		char *uri = sqlite3_mprintf("file:%s?immutable=1", rd->db_path);
		sqlite3 *h = NULL;
		assert_int_equal(sqlite3_open_v2(uri, &h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL), SQLITE_OK);
		sqlite3_free(uri);
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(h, real_launch_sql, -1, &st, NULL) != SQLITE_OK)
			fail_msg("%s: %s", rd->db_path, sqlite3_errmsg(h));
		while (sqlite3_step(st) == SQLITE_ROW) {
			struct ts_tok want = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)};
			const struct ts_tok *got = bsearch(&want, v, n, sizeof *v, ts_tok_cmp);
			if (!got || got->tok != want.tok)
				fail_msg("rank %zu, task at %lld: %lld tokens, SQL %lld", r, (long long)want.ts,
				         got ? (long long)got->tok : -1LL, (long long)want.tok);
			checked++;
		}
		sqlite3_finalize(st);
		sqlite3_close(h);
		assert_true(checked >= 100); /* 173 compute tasks a rank in this capture */
		free(v);
	}
	capture_free(cap);
	free(dir);
}

/* Digests carry each layer's tokens and their source: the per-rank digests of an Input Dims
 * capture open with the same tokens, still said to come from the Input Dims. */
static void test_moe_digest(void **state)
{
	(void)state;
	struct tu_capture c;
	tu_capture_load(&c, "--shape vllm,moe --ranks 4 --steps 6 --prefill 2 --seed 7 --moe-hot 3:2.0 --moe-no-shapes "
	                    "--record-shapes", true);
	char *dir = tu_tmpdir();
	struct diag_list dl;
	diag_init(&dl);
	for (size_t r = 0; r < c.an->n_ranks; r++)
		assert_int_equal(digest_write(c.an, r, dir, &dl, NULL), 0);
	diag_free(&dl);
	struct analysis *dg = analysis_from_digests(dir);
	const struct moe_analysis *a = c.an->moe, *b = dg->moe;
	assert_int_equal(a->tokens_from, MOE_TOK_DIMS);
	assert_int_equal(b->tokens_from, MOE_TOK_DIMS);
	assert_int_equal(a->n_ranks, b->n_ranks);
	for (size_t i = 0; i < a->n_ranks; i++) {
		assert_int_equal(a->ranks[i].rank, b->ranks[i].rank);
		assert_int_equal(b->ranks[i].tokens, tu_truth_int(c.truth, "moe.%d.tokens", b->ranks[i].rank));
	}
	analysis_free(dg);
	tu_rmtree(dir);
	free(dir);
	tu_capture_free(&c);
}

/* balanced experts: figures, no verdict */
static void test_moe_balanced(void **state)
{
	(void)state;
	struct tu_capture c;
	tu_capture_load(&c, "--shape vllm,moe --ranks 4 --steps 6 --prefill 1 --seed 9 --moe-hot 0:1.0", true);
	const struct moe_analysis *m = c.an->moe;
	assert_true(m->present);
	check_ranks(m, c.truth, true);
	assert_true(m->imbalance < 1.2);
	assert_null(m->verdict);
	for (size_t i = 0; i < c.an->n_ranks; i++) {
		char verdict[VERDICT_MAX];
		assert_false(c.an->ranks[i].moe_imbalanced);
		assert_null(strstr(bottleneck_verdict(&c.an->ranks[i], verdict, sizeof verdict), "expert load"));
	}
	tu_capture_free(&c);
}

/* no MoE kernels: nothing found, and why */
static void test_moe_absent(void **state)
{
	(void)state;
	struct tu_capture c;
	tu_capture_load(&c, "--shape vllm --ranks 2 --steps 6 --prefill 1 --seed 9", true);
	const struct moe_analysis *m = c.an->moe;
	assert_non_null(m);
	assert_false(m->present);
	assert_non_null(m->why);
	assert_null(m->verdict);
	char *text = tu_report_text(c.an);
	assert_null(strstr(text, "expert load"));
	free(text);
	tu_capture_free(&c);
}

static long long json_int(const char *js, const struct jtok *jt, int obj, const char *key)
{
	int t = jtok_obj_get(jt, js, obj, key);
	assert_true(t >= 0);
	return strtoll(js + jt->t[t].start, NULL, 10);
}

/* JSON `moe` through the real binary: the keys, the hot rank and each rank's tokens
 * as planted (exact: the shapes carry them), the gmm and combine wait within 5 %; and null
 * with moe_absent on a capture without MoE. */
static void test_moe_json(void **state)
{
	(void)state;
	if (!tu_gen() || !getenv("ASCPROF_BIN"))
		skip();
	static const char *const args[2] = {"--shape vllm,moe --ranks 4 --steps 6 --prefill 2 --seed 13 --moe-hot 2:1.8",
	                                    "--shape vllm --ranks 2 --steps 4 --prefill 1 --seed 13"};
	for (int k = 0; k < 2; k++) {
		char *dir = tu_generate(args[k]);
		struct tu_truth *t = tu_truth_load(dir);
		size_t len;
		char *js = tu_report_json(dir, &len);
		struct jtok jt;
		jtok_init(&jt);
		assert_true(jtok_parse(&jt, js, len) > 0);
		int m = jtok_obj_get(&jt, js, 0, "moe");
		assert_true(m >= 0);
		if (k == 1) {
			assert_int_equal(jt.t[m].type, JSMN_PRIMITIVE);
			assert_true(jtok_eq(js, &jt.t[m], "null"));
			assert_true(jtok_obj_get(&jt, js, 0, "moe_absent") >= 0);
		} else {
			for (const char *const *key = (const char *const[]){"layers", "imbalance", "worst_layers", "by_phase", NULL};
			     *key; key++)
				assert_true(jtok_obj_get(&jt, js, m, *key) >= 0);
			assert_int_equal(json_int(js, &jt, m, "hot_rank"), 2);
			int from = jtok_obj_get(&jt, js, m, "tokens_from");
			assert_true(from >= 0 && jtok_eq(js, &jt.t[from], "kernel_details Input Shapes"));
			int ranks = jtok_obj_get(&jt, js, m, "ranks");
			assert_int_equal(jt.t[ranks].size, 4);
			int e = ranks + 1;
			for (int i = 0; i < 4; i++, e = jtok_skip(&jt, e)) {
				int r = (int)json_int(js, &jt, e, "rank");
				assert_int_equal(json_int(js, &jt, e, "tokens"), tu_truth_int(t, "moe.%d.tokens", r));
				int g = jtok_obj_get(&jt, js, e, "gmm_us"), w = jtok_obj_get(&jt, js, e, "combine_wait_us");
				near("json gmm", r, strtod(js + jt.t[g].start, NULL) * 1000, (double)tu_truth_int(t, "moe.%d.gmm_ns", r));
				near("json combine wait", r, strtod(js + jt.t[w].start, NULL) * 1000,
				     (double)tu_truth_int(t, "moe.%d.combine_wait_ns", r));
				for (const char *const *key = (const char *const[]){"dispatch_us", "combine_us", NULL}; *key; key++)
					assert_true(jtok_obj_get(&jt, js, e, *key) >= 0);
			}
		}
		jtok_free(&jt);
		free(js);
		tu_truth_free(t);
		*strrchr(dir, '/') = '\0'; /* the generator's temp dir holds the capture and the JSON */
		tu_rmtree(dir);
		free(dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_moe_mc2_and_a2a), cmocka_unit_test(test_moe_markers_mc2),
		cmocka_unit_test(test_moe_a2a_only),    cmocka_unit_test(test_moe_no_shapes),
		cmocka_unit_test(test_moe_sources),     cmocka_unit_test(test_moe_db),
		cmocka_unit_test(test_moe_mixed_sources), cmocka_unit_test(test_moe_digest),
		cmocka_unit_test(test_moe_launch_tokens_real_db),
		cmocka_unit_test(test_moe_balanced),    cmocka_unit_test(test_moe_absent),
		cmocka_unit_test(test_moe_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
