/* SPDX-License-Identifier: MIT */
/* The comparison against ground truth: pairs of generated captures with planted
 * differences (a slower kernel, longer host gaps, an op that disappears, a slow rank), where
 * each side's ground_truth.txt says what the diff must find: the sign, and the size within
 * 1 %. Also the gain verdict, the comparability warnings and the reports as printed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "capture.h"
#include "compare.h"
#include "json_tok.h"
#include "testutil.h"

#define REL_TOL 0.01

static void check_close(const char *what, double got, double want, double abs_tol)
{
	if (!tu_close(got, want, REL_TOL, abs_tol))
		fail_msg("%s: got %.3f, ground truth %.3f", what, got, want);
}

/* ---- the planted differences -------------------------------------------------------- */

struct kernel_check {
	const struct compare_pair *p;
	const struct tu_truth *truth[2];
	int rank[2];
	size_t checked;
};

/* Every compute kernel of the ground truth: its diff must be the truths' difference. */
static void check_kernel(const char *key, const char *value, void *ctx)
{
	(void)value;
	struct kernel_check *k = ctx;
	char prefix[32];
	snprintf(prefix, sizeof prefix, "op.%d.", k->rank[0]);
	size_t len = strlen(key);
	if (len < 9 || strcmp(key + len - 9, ".total_ns"))
		return;
	char name[256];
	snprintf(name, sizeof name, "%.*s", (int)(len - 9 - strlen(prefix)), key + strlen(prefix));
	long long t[2], n[2];
	for (int s = 0; s < 2; s++) {
		t[s] = tu_truth_int_or(k->truth[s], 0, "op.%d.%s.total_ns", k->rank[s], name);
		n[s] = tu_truth_int_or(k->truth[s], 0, "op.%d.%s.count", k->rank[s], name);
	}
	const struct op_diff *d = compare_find_op(k->p, SCOPE_DEVICE, PHASE_UNKNOWN, (struct op_key){.name = name});
	if (!d)
		fail_msg("kernel %s: not in the diff", name);
	char what[300];
	snprintf(what, sizeof what, "kernel %s: delta total us", name);
	check_close(what, (double)d->delta_total_ns / 1e3, (double)(t[1] - t[0]) / 1e3, 1.0);
	assert_int_equal(d->delta_count, n[1] - n[0]);
	if (n[0] && n[1]) {
		snprintf(what, sizeof what, "kernel %s: delta avg us", name);
		check_close(what, d->delta_avg_ns / 1e3, ((double)t[1] / n[1] - (double)t[0] / n[0]) / 1e3, 0.01);
	}
	k->checked++;
}

static void check_kernels(const struct compare_pair *p, const struct tu_capture *a, const struct tu_capture *b, int ra, int rb)
{
	struct kernel_check k = {p, {a->truth, b->truth}, {ra, rb}, 0};
	char prefix[32];
	snprintf(prefix, sizeof prefix, "op.%d.", ra);
	tu_truth_each(a->truth, prefix, check_kernel, &k);
	assert_true(k.checked >= 5);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of the planted step durations of a phase, in us. */
static double truth_step_pct(const struct tu_truth *t, int rank, const char *phase, double q)
{
	long long steps = tu_truth_int(t, "rank.%d.steps", rank), d[4096];
	size_t n = 0;
	for (long long k = 0; k < steps && n < 4096; k++)
		if (!strcmp(tu_truth_str(t, "rank.%d.step.%lld.phase", rank, k), phase))
			d[n++] = tu_truth_int(t, "rank.%d.step.%lld.end_ns", rank, k) -
				 tu_truth_int(t, "rank.%d.step.%lld.start_ns", rank, k);
	assert_true(n > 0);
	qsort(d, n, sizeof *d, cmp_ll);
	size_t i = (size_t)ceil(q * (double)n);
	return (double)d[(i ? i : 1) - 1] / 1e3;
}

static void check_fig(const struct compare_pair *p, int fig, const struct tu_capture *a, const struct tu_capture *b,
		      const char *truth_key)
{
	double want = (double)(tu_truth_int(b->truth, "rank.0.%s", truth_key) -
			       tu_truth_int(a->truth, "rank.0.%s", truth_key)) / 1e3;
	check_close(compare_fig(fig).key, p->fig[fig].delta, want, 1.0);
}

static void test_planted_differences(void **state)
{
	(void)state;
	struct tu_capture a, b;
	tu_capture_load(&a, "--ranks 1 --seed 21 --steps 8 --prefill 2 --ops 60", true);
	tu_capture_load(&b, "--ranks 1 --seed 21 --steps 8 --prefill 2 --ops 60 --kernel-scale RmsNorm=1.4 "
		      "--drop-op Silu --host-gap-us 600", true);
	struct comparison *c = compare_captures(a.an, b.an);
	assert_int_equal(c->mode, CMP_CAPTURES);
	assert_int_equal(c->n_pairs, 1);
	assert_int_equal(c->n_warnings, 0); /* same seed, steps, phases, versions and shapes */
	const struct compare_pair *p = &c->pairs[0];

	/* a slower kernel: slower by total and per call, by what was planted */
	assert_int_equal(tu_truth_int(b.truth, "kernel_scale.RmsNorm"), 1400);
	const struct op_diff *d = compare_find_op(p, SCOPE_DEVICE, PHASE_UNKNOWN, (struct op_key){.name = "RmsNorm"});
	assert_non_null(d);
	assert_int_equal(d->change, OPC_SLOWER);
	assert_int_equal(d->avg_change, OPC_SLOWER);
	assert_true(d->delta_total_ns > 0);
	/* every kernel, the removed one included, moves by the truths' difference */
	check_kernels(p, &a, &b, 0, 0);

	/* an op that disappears: gone from the device and from the host, nothing added */
	assert_int_equal(tu_truth_int(b.truth, "drop_op.Silu"), 1);
	assert_int_equal(tu_truth_int_or(b.truth, -1, "op.0.Silu.count"), -1);
	d = compare_find_op(p, SCOPE_DEVICE, PHASE_UNKNOWN, (struct op_key){.name = "Silu"});
	assert_non_null(d);
	assert_int_equal(d->change, OPC_REMOVED);
	assert_null(d->s[1]);
	assert_int_equal(d->delta_count, -tu_truth_int(a.truth, "op.0.Silu.count"));
	d = compare_find_op(p, SCOPE_HOST, PHASE_UNKNOWN, (struct op_key){.name = "aten::silu"});
	assert_non_null(d);
	assert_int_equal(d->change, OPC_REMOVED);
	assert_int_equal(d->delta_count, -tu_truth_int(a.truth, "op.0.Silu.count")); /* one cpu_op per kernel */
	for (int ph = PHASE_UNKNOWN; ph <= PHASE_DECODE; ph++) {
		assert_int_equal(p->n_change[SCOPE_DEVICE][ph][OPC_ADDED], 0);
		assert_true(p->n_change[SCOPE_DEVICE][ph][OPC_REMOVED] == 1);
	}

	/* more host gaps: host-only time and device idle grow by what was planted, and worse */
	check_fig(p, M_HOST_ONLY_US, &a, &b, "host_only_ns");
	check_fig(p, M_NPU_IDLE_US, &a, &b, "npu_idle_ns");
	check_fig(p, M_WALL_US, &a, &b, "wall_ns");
	assert_true(p->fig[M_HOST_ONLY_US].delta > 0);
	assert_int_equal(p->fig[M_HOST_ONLY_US].verdict, CMP_WORSE);
	assert_int_equal(p->fig[M_NPU_IDLE_US].verdict, CMP_WORSE);
	/* 450 us more per decode step: the planted gap itself */
	check_close("host-only per decode step", p->fig[M_HOST_ONLY_US].delta / b.an->ranks[0].v[M_DECODE_STEPS], 450.0,
		    1.0);

	/* step times per phase from the planted step spans */
	static const struct { int fig; const char *phase; double q; } steps[] = {
		{CF_PREFILL_STEP_P50, "prefill", 0.5}, {CF_PREFILL_STEP_P95, "prefill", 0.95},
		{CF_DECODE_STEP_P50, "decode", 0.5},   {CF_DECODE_STEP_P95, "decode", 0.95},
	};
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		const struct compare_value *cv = &p->fig[steps[i].fig];
		check_close(compare_fig(steps[i].fig).key, cv->v[0], truth_step_pct(a.truth, 0, steps[i].phase, steps[i].q),
			    1.0);
		check_close(compare_fig(steps[i].fig).key, cv->v[1], truth_step_pct(b.truth, 0, steps[i].phase, steps[i].q),
			    1.0);
	}
	assert_int_equal(p->fig[CF_DECODE_STEP_P50].verdict, CMP_WORSE);
	compare_free(c);
	tu_capture_free(&a);
	tu_capture_free(&b);
}

static void test_rank_against_rank(void **state)
{
	(void)state;
	struct tu_capture s;
	tu_capture_load(&s, "--ranks 2 --seed 4 --steps 6 --prefill 1 --ops 40 --slow-rank 1 --slow-factor 1.3", true);
	assert_null(compare_ranks(s.an, 0, 7));
	struct comparison *c = compare_ranks(s.an, 0, 1);
	assert_non_null(c);
	assert_int_equal(c->mode, CMP_RANKS);
	assert_int_equal(c->n_pairs, 1);
	const struct compare_pair *p = &c->pairs[0];
	assert_false(p->have_gain); /* a gain is about a change, not about two ranks */
	struct tu_capture b = s; /* the same capture's truth for both ranks */
	check_kernels(p, &s, &b, 0, 1);
	/* every compute kernel of the slow rank is slower, by the planted factor */
	const struct op_diff *d = compare_find_op(p, SCOPE_DEVICE, PHASE_UNKNOWN, (struct op_key){.name = "MatMulV2"});
	assert_non_null(d);
	assert_int_equal(d->change, OPC_SLOWER);
	check_close("MatMulV2 delta %", d->delta_total_pct, 30.0, 0.5);
	assert_int_equal(p->fig[M_COMPUTE_US].verdict, CMP_WORSE);
	compare_free(c);
	tu_capture_free(&s);
}

static void test_gain_verdict(void **state)
{
	(void)state;
	struct tu_capture a, b;
	tu_capture_load(&a, "--ranks 1 --seed 9 --steps 10 --prefill 1 --ops 60 --host-gap-us 3000", true);
	tu_capture_load(&b, "--ranks 1 --seed 9 --steps 10 --prefill 1 --ops 60 --host-gap-us 150", true);
	for (int dir = 0; dir < 2; dir++) {
		const struct tu_capture *x = dir ? &b : &a, *y = dir ? &a : &b;
		struct comparison *c = compare_captures(x->an, y->an);
		const struct compare_pair *p = &c->pairs[0];
		const struct compare_gain *g = &p->gain;
		assert_true(p->have_gain);
		assert_string_equal(g->base_name, "mean step time");
		/* the measured change from the planted step spans */
		double mean[2];
		const struct tu_capture *sides[2] = {x, y};
		for (int s = 0; s < 2; s++) {
			long long n = tu_truth_int(sides[s]->truth, "rank.0.steps"), sum = 0;
			for (long long k = 0; k < n; k++)
				sum += tu_truth_int(sides[s]->truth, "rank.0.step.%lld.end_ns", k) -
				       tu_truth_int(sides[s]->truth, "rank.0.step.%lld.start_ns", k);
			mean[s] = (double)sum / (double)n / 1e3;
		}
		double actual = 100.0 * (mean[0] - mean[1]) / mean[0];
		check_close("actual gain %", g->actual_pct, actual, 0.05);
		enum gain_verdict want = actual <= 0 ? GAIN_MISSED : actual >= g->low_pct ? GAIN_ACHIEVED : GAIN_PARTLY;
		assert_int_equal(g->verdict, want);
		if (dir == 0) {
			/* long host gaps: host dispatch is the candidate, and shorter gaps deliver */
			assert_int_equal(g->kind, BN_HOST_DISPATCH);
			assert_true(g->triggered);
			assert_int_equal(g->verdict, GAIN_ACHIEVED);
			assert_true(g->score[1] < g->score[0]);
		} else {
			assert_int_equal(g->verdict, GAIN_MISSED);
		}
		assert_non_null(strstr(g->basis, g->name));
		compare_free(c);
	}
	tu_capture_free(&a);
	tu_capture_free(&b);
}

static bool has_warning(const struct comparison *c, const char *text)
{
	for (size_t i = 0; i < c->n_warnings; i++)
		if (strstr(c->warnings[i], text))
			return true;
	return false;
}

static void test_comparability_warnings(void **state)
{
	(void)state;
	struct tu_capture a, b;
	tu_capture_load(&a, "--ranks 2 --seed 21 --steps 6 --prefill 1 --ops 30", true);
	tu_capture_load(&b, "--ranks 1 --seed 22 --steps 8 --prefill 3 --ops 30", true);
	/* another CANN and profiler level on the after side, written into its own temp copy */
	assert_int_equal(tu_sh("cd '%s' && for f in */profiler_info_*.json; do sed -i "
			       "-e 's/\"cann_version\": \"[^\"]*\"/\"cann_version\": \"9.9.RC9\"/' "
			       "-e 's/\"_profiler_level\": \"[^\"]*\"/\"_profiler_level\": \"Level0\"/' \"$f\"; done",
			       b.dir),
			 0);
	capture_free(b.cap);
	analysis_free(b.an);
	b.cap = capture_open(b.dir, NULL);
	capture_load(b.cap);
	b.an = analysis_run(b.cap);
	struct comparison *c = compare_captures(a.an, b.an);
	assert_int_equal(c->n_pairs, 1);
	assert_true(has_warning(c, "2 rank(s) on before, 1 on after"));
	assert_true(has_warning(c, "rank 1 is on before only"));
	assert_true(has_warning(c, "6 step(s) on before, 8 on after"));
	assert_true(has_warning(c, "phase mix differs"));
	assert_true(has_warning(c, "CANN versions differ: 8.3.RC1 on before, 9.9.RC9 on after"));
	assert_true(has_warning(c, "profiler levels differ: Level1 on before, Level0 on after"));
	assert_true(has_warning(c, "other input shapes")); /* another seed, other token counts */
	compare_free(c);
	tu_capture_free(&a);
	tu_capture_free(&b);
	/* a training capture against an inference one: the workloads differ */
	tu_capture_load(&a, "--shape train --seed 23 --steps 3 --ops 30", true);
	tu_capture_load(&b, "--shape vllm,mixed=1 --seed 24 --steps 4 --prefill 1 --ops 30", true);
	c = compare_captures(a.an, b.an);
	assert_true(has_warning(c, "workload training on before, inference on after"));
	assert_false(has_warning(c, "phase mix differs")); /* training has no phase mix to compare */
	compare_free(c);
	tu_capture_free(&a);
	tu_capture_free(&b);
}

static void test_real_levels(void **state)
{
	(void)state;
	/* the same job captured at Level0 and Level1 (their profiler_info files say so) */
	char *a = tu_real("msinsight/test/data/pytorch/text/level0"), *b = tu_real("msinsight/test/data/pytorch/text/level1");
	if (!a || !b) {
		free(a);
		free(b);
		skip();
	}
	struct capture *cap[2] = {capture_open(a, NULL), capture_open(b, NULL)};
	struct analysis *an[2];
	for (int s = 0; s < 2; s++) {
		capture_load(cap[s]);
		an[s] = analysis_run(cap[s]);
	}
	struct comparison *c = compare_captures(an[0], an[1]);
	assert_int_equal(c->n_pairs, 2);
	assert_true(has_warning(c, "profiler levels differ: Level0 on before, Level1 on after"));
	assert_true(has_warning(c, "AI Core metrics differ: ACL_AICORE_NONE on before, ACL_AICORE_PIPE_UTILIZATION"));
	/* what was recorded: the levels differ, so host figures are not judged (Level1 records
	 * the CANN API on the host); the device's work still is */
	assert_true(c->recorded[REC_LEVEL].differs);
	assert_false(c->recorded[REC_STEPS].differs);
	for (size_t r = 0; r < c->n_pairs; r++) {
		assert_false(c->pairs[r].fig[M_HOST_BUSY_US].comparable);
		assert_non_null(strstr(c->pairs[r].fig[M_HOST_BUSY_US].reason, "profiler level Level0 on before"));
		assert_int_equal(c->pairs[r].fig[M_HOST_ONLY_US].verdict, CMP_NOT_COMPARABLE);
		assert_true(c->pairs[r].fig[M_COMPUTE_US].comparable);
		assert_true(c->pairs[r].fig[M_STEP_P50_US].comparable);
	}
	/* PMU ratios exist at Level1 only: no verdict without both sides */
	assert_int_equal(c->pairs[0].fig[M_PMU_MAC].verdict, CMP_NA);
	assert_true(c->pairs[0].fig[M_PMU_MAC].have[1]);
	/* the allReduce of each run, its group renumbered (868 at Level0, 586 at Level1): one
	 * diff of its kind, not one removed and one added */
	for (size_t r = 0; r < 2; r++) {
		const struct compare_pair *p = &c->pairs[r];
		const struct op_diff *d = compare_find_op(p, SCOPE_DEVICE, PHASE_UNKNOWN,
							  (struct op_key){"hcom_allReduce", "868/586", true});
		assert_non_null(d);
		assert_non_null(d->s[0]);
		assert_non_null(d->s[1]);
		assert_string_equal(d->s[0]->group, "868");
		assert_string_equal(d->s[1]->group, "586");
		assert_int_equal(d->delta_count, 0);
		assert_int_equal(d->delta_total_ns, d->s[1]->total_ns - d->s[0]->total_ns);
		assert_int_equal(p->n_change[SCOPE_DEVICE][PHASE_UNKNOWN][OPC_ADDED], 0);
		assert_int_equal(p->n_change[SCOPE_DEVICE][PHASE_UNKNOWN][OPC_REMOVED], 0);
	}
	compare_free(c);
	for (int s = 0; s < 2; s++) {
		analysis_free(an[s]);
		capture_free(cap[s]);
	}
	free(a);
	free(b);
}

static void test_every_figure_has_a_direction(void **state)
{
	(void)state;
	for (int f = 0; f < CF_COUNT; f++) {
		struct compare_fig_def d = compare_fig(f);
		if (d.dir == CMP_DIR_NONE)
			fail_msg("figure %s has no direction in the table", d.key);
		for (int g = 0; g < f; g++)
			assert_true(strcmp(compare_fig(g).key, d.key) != 0);
	}
}

/* ---- the reports as printed --------------------------------------------------------- */

static char *run_bin(const char *args, int *rc)
{
	const char *bin = getenv("ASCPROF_BIN");
	if (!bin)
		return NULL;
	char *dir = tu_tmpdir(), out[4096];
	snprintf(out, sizeof out, "%s/out", dir);
	*rc = tu_sh("'%s' %s > '%s' 2>/dev/null", bin, args, out);
	char *text = tu_read(out, NULL);
	tu_rmtree(dir);
	free(dir);
	return text;
}

static void test_reports(void **state)
{
	(void)state;
	if (!getenv("ASCPROF_BIN"))
		skip();
	struct tu_capture a, b;
	tu_capture_load(&a, "--ranks 1 --seed 3 --steps 5 --prefill 1 --ops 30 --hostile", true);
	tu_capture_load(&b, "--ranks 1 --seed 3 --steps 5 --prefill 1 --ops 30 --hostile --drop-op Silu", true);
	char args[8192];
	int rc;
	snprintf(args, sizeof args, "--report --compare '%s' '%s'", a.dir, b.dir);
	char *text = run_bin(args, &rc);
	assert_non_null(text);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(text, "top bottleneck of before"));
	assert_non_null(strstr(text, "    removed "));
	assert_non_null(strstr(text, "  Silu\n"));
	for (const char *p = text; *p; p++) /* hostile names reach no terminal as they are */
		assert_true(*p == '\n' || (unsigned char)*p >= 0x20);
	assert_null(strstr(text, "\xc2\x9b"));
	assert_null(strstr(text, "\xe2\x80\xae"));
	free(text);

	snprintf(args, sizeof args, "--report --json --compare '%s' '%s'", a.dir, b.dir);
	char *js = run_bin(args, &rc);
	assert_non_null(js);
	assert_int_equal(rc, 0);
	struct jtok jt;
	jtok_init(&jt);
	assert_true(jtok_parse(&jt, js, strlen(js)) > 0);
	int pairs = jtok_obj_get(&jt, js, 0, "pairs");
	assert_true(pairs > 0 && jt.t[pairs].size == 1);
	int pair = pairs + 1, ops = jtok_obj_get(&jt, js, pair, "ops");
	assert_true(ops > 0);
	bool found = false;
	for (int i = 0, tok = ops + 1; i < jt.t[ops].size; i++, tok = jtok_skip(&jt, tok)) {
		int name = jtok_obj_get(&jt, js, tok, "name"), change = jtok_obj_get(&jt, js, tok, "change");
		int scope = jtok_obj_get(&jt, js, tok, "scope"), phase = jtok_obj_get(&jt, js, tok, "phase");
		if (jtok_eq(js, &jt.t[name], "Silu") && jtok_eq(js, &jt.t[scope], "device") &&
		    jtok_eq(js, &jt.t[phase], "all")) {
			assert_true(jtok_eq(js, &jt.t[change], "removed"));
			found = true;
		}
	}
	assert_true(found);
	int figs = jtok_obj_get(&jt, js, pair, "figures");
	assert_true(jtok_obj_get(&jt, js, figs, "decode_step_p50_us") > 0);
	jtok_free(&jt);
	free(js);

	snprintf(args, sizeof args, "--report --compare-ranks 0 3 '%s'", a.dir);
	free(run_bin(args, &rc));
	assert_int_equal(rc, 1); /* no rank 3 */
	tu_capture_free(&a);
	tu_capture_free(&b);
}

/* ---- what each side recorded (issue 36) --------------------------------------------- */

/* A text report's figure rows and the gain line: no row reads better or worse, no gain is
 * achieved, partly achieved or missed. */
static void check_text_judges_nothing(const char *text)
{
	for (const char *l = text; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		char line[1024];
		snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), l);
		size_t len = strlen(line);
		if ((len > 7 && !strcmp(line + len - 7, " better")) || (len > 6 && !strcmp(line + len - 6, " worse")))
			fail_msg("a figure judged in the text report: %s", line);
		if (!strncmp(line, "top bottleneck of", 17) && !strstr(line, ": unknown"))
			fail_msg("a gain judged in the text report: %s", line);
		l = e ? e + 1 : NULL;
	}
	assert_non_null(strstr(text, "what each side recorded:"));
	assert_non_null(strstr(text, "not comparable, because:"));
}

/* The JSON: a top-level recorded, every figure with comparable (and a reason when false),
 * none better or worse, the gain unknown with its reason. */
static void check_json_judges_nothing(const char *js)
{
	struct jtok jt;
	jtok_init(&jt);
	assert_true(jtok_parse(&jt, js, strlen(js)) > 0);
	int rec = jtok_obj_get(&jt, js, 0, "recorded");
	assert_true(rec > 0);
	int steps = jtok_obj_get(&jt, js, rec, "step_source");
	assert_true(steps > 0);
	int differs = jtok_obj_get(&jt, js, steps, "differs");
	assert_true(differs > 0 && jtok_eq(js, &jt.t[differs], "true"));
	int pairs = jtok_obj_get(&jt, js, 0, "pairs");
	assert_true(pairs > 0 && jt.t[pairs].size >= 1);
	for (int i = 0, pair = pairs + 1; i < jt.t[pairs].size; i++, pair = jtok_skip(&jt, pair)) {
		int figs = jtok_obj_get(&jt, js, pair, "figures");
		assert_true(figs > 0 && jt.t[figs].size == CF_COUNT);
		size_t not_comparable = 0;
		for (int f = 0, tok = figs + 1; f < jt.t[figs].size; f++) {
			int val = tok + 1;
			int verdict = jtok_obj_get(&jt, js, val, "verdict"), comp = jtok_obj_get(&jt, js, val, "comparable");
			assert_true(verdict > 0 && comp > 0);
			if (jtok_eq(js, &jt.t[verdict], "better") || jtok_eq(js, &jt.t[verdict], "worse"))
				fail_msg("figure %d judged in the JSON", f);
			if (jtok_eq(js, &jt.t[comp], "false")) {
				not_comparable++;
				assert_true(jtok_obj_get(&jt, js, val, "reason") > 0);
				assert_true(jtok_eq(js, &jt.t[verdict], "not comparable"));
			}
			tok = jtok_skip(&jt, val);
		}
		assert_true(not_comparable > 0);
		int gain = jtok_obj_get(&jt, js, pair, "gain");
		int gv = jtok_obj_get(&jt, js, gain, "verdict"), gc = jtok_obj_get(&jt, js, gain, "comparable");
		assert_true(gv > 0 && jtok_eq(js, &jt.t[gv], "unknown"));
		assert_true(gc > 0);
		int again = jtok_obj_get(&jt, js, pair, "steps_found_again");
		assert_true(again > 0 && jt.t[again].size == 2 && jtok_eq(js, &jt.t[again + 1], "true"));
	}
	jtok_free(&jt);
}

/* The text report of before against after judges nothing, nor (with json) the JSON, whose
 * before found its steps again without markers. */
static void reports_judge_nothing(const char *before, const char *after, bool json)
{
	if (!getenv("ASCPROF_BIN"))
		return;
	int rc;
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "--report --compare '%s' '%s'", before, after);
	char *text = run_bin(cmd, &rc);
	assert_int_equal(rc, 0);
	check_text_judges_nothing(text);
	free(text);
	if (!json)
		return;
	snprintf(cmd, sizeof cmd, "--report --json --compare '%s' '%s'", before, after);
	char *js = run_bin(cmd, &rc);
	assert_int_equal(rc, 0);
	check_json_judges_nothing(js);
	free(js);
}

/* A capture against its own copy in vLLM-Ascend's default export (issue 34's definition: no
 * ProfilerStep, no python_function, no shapes in the trace, no operator_details.csv): the
 * device work is identical, so no figure reads better or worse and no gain is judged; the
 * side with markers has its steps found again without them, so the step figures compare
 * under one definition; host figures and the window are not comparable, with their
 * reasons; every figure that is comparable reads the same. */
static void test_default_export_copy(void **state)
{
	(void)state;
	static const struct {
		const char *args;
		bool frames; /* the original records python_function frames */
	} shapes[] = {
		{"", true}, /* the marked shape: execute_model frames */
		{"--shape vllm,legacy --step-marks profilerstep", false},
		{"--shape vllm,graph,mixed=4 --step-marks profilerstep", false},
		{"--shape vllm,mla --step-marks profilerstep", false},
	};
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		for (int ranks = 2; ranks <= 4; ranks += 2) {
			char args[256];
			struct tu_capture a, b;
			snprintf(args, sizeof args, "%s --steps 20 --prefill 6 --ops 40 --ranks %d --seed %d", shapes[i].args,
				 ranks, (int)i + 3);
			tu_capture_load(&a, args, true);
			snprintf(args, sizeof args, "%s --default-export --steps 20 --prefill 6 --ops 40 --ranks %d --seed %d",
				 shapes[i].args, ranks, (int)i + 3);
			tu_capture_load(&b, args, true);
			struct comparison *c = compare_captures(a.an, b.an);
			assert_int_equal(c->n_pairs, (size_t)ranks);
			/* what was recorded, read first */
			assert_true(c->recorded[REC_STEPS].differs);
			assert_true(c->recorded[REC_SHAPES].differs); /* operator_details.csv dropped */
			assert_int_equal(c->recorded[REC_FRAMES].differs, shapes[i].frames);
			assert_false(c->recorded[REC_LEVEL].differs);
			assert_false(c->recorded[REC_EXPORT].differs);
			assert_false(c->recorded[REC_RANKS].differs);
			for (size_t k = 0; k < c->n_pairs; k++) {
				const struct compare_pair *p = &c->pairs[k];
				for (int f = 0; f < CF_COUNT; f++) {
					const struct compare_value *cv = &p->fig[f];
					if (cv->verdict == CMP_BETTER || cv->verdict == CMP_WORSE || cv->verdict == CMP_CHANGED)
						fail_msg("%s, rank %d: %s reads %s (%.3f -> %.3f)", args, p->ra[0]->rank,
							 compare_fig(f).key, compare_verdict_name(cv->verdict), cv->v[0], cv->v[1]);
					assert_int_equal(cv->comparable, cv->reason == NULL);
					if (!cv->comparable)
						assert_int_equal(cv->verdict, CMP_NOT_COMPARABLE);
					else /* the same device work: what is comparable is the same */
						assert_true(cv->verdict == CMP_SAME || cv->verdict == CMP_NA);
				}
				/* steps under one definition: the side with markers found them again without,
				 * as the copy did, and every step figure is comparable and the same */
				assert_true(p->steps_again[0]);
				assert_false(p->steps_again[1]);
				assert_int_equal(p->ra[0]->step_source, p->ra[1]->step_source);
				assert_true(p->ra[0]->marker_free);
				assert_int_equal(p->ra[0]->n_steps, p->ra[1]->n_steps);
				assert_int_equal(p->ra[0]->n_steps, tu_truth_int(a.truth, "rank.%d.steps", p->ra[0]->rank));
				static const int step_figs[] = {M_STEPS,	    M_STEP_P50_US,	   M_STEP_P95_US,
								M_DECODE_STEPS,	    M_PREFILL_STEPS,	   CF_DECODE_STEP_P50,
								CF_DECODE_STEP_P95, CF_PREFILL_STEP_P50, M_DISPATCH_PER_STEP};
				for (size_t j = 0; j < sizeof step_figs / sizeof step_figs[0]; j++) {
					assert_true(p->fig[step_figs[j]].comparable);
					assert_int_equal(p->fig[step_figs[j]].verdict, CMP_SAME);
				}
				/* the window, widened by host events on one side only, is not */
				assert_false(p->fig[M_WALL_US].comparable);
				assert_false(p->fig[M_FREE_US].comparable);
				/* host figures that depend on recorded frames: not judged without them */
				if (shapes[i].frames) {
					assert_false(p->fig[M_HOST_ONLY_US].comparable);
					assert_non_null(strstr(p->fig[M_HOST_ONLY_US].reason, "python_function frames"));
					assert_false(p->fig[M_HOST_BOUND_PCT].comparable);
					assert_false(p->bn_comparable[BN_HOST_DISPATCH]);
				}
				/* device work alone stays comparable, and the same */
				static const int device_figs[] = {M_NPU_BUSY_US, M_COMPUTE_US, M_COMM_US, M_DISPATCH_OPS};
				for (size_t j = 0; j < sizeof device_figs / sizeof device_figs[0]; j++) {
					assert_true(p->fig[device_figs[j]].comparable);
					assert_int_equal(p->fig[device_figs[j]].verdict, CMP_SAME);
				}
				/* the gain: measured on the mean step time under one definition, which did not
				 * move, and nothing else comparable did: no change to judge */
				assert_true(p->have_gain);
				assert_int_equal(p->gain.verdict, GAIN_UNKNOWN);
				assert_true(p->gain.comparable);
				assert_string_equal(p->gain.base_name, "mean step time");
				check_close("mean step time", p->gain.base[1], p->gain.base[0], 0.001);
				assert_non_null(strstr(p->gain.basis, "no change measured"));
				/* ops: nothing slower, faster, added or removed, in any phase (the steps are one
				 * definition now); collectives as one row per kind and group, on both sides
				 * (item 5) */
				size_t collectives = 0;
				for (size_t j = 0; j < p->n_ops; j++) {
					const struct op_diff *d = &p->ops[j];
					if (d->collective && d->scope == SCOPE_DEVICE && d->phase == PHASE_UNKNOWN) {
						collectives++;
						assert_true(d->s[0] && d->s[1]);
						assert_int_equal(d->delta_count, 0);
						assert_null(strstr(d->name, "__")); /* the kind, not a call's name */
					}
					assert_true(d->comparable);
					if (d->change != OPC_SAME)
						fail_msg("%s: op %s (phase %d) reads %s", args, d->name, d->phase,
							 compare_op_change_name(d->change));
				}
				assert_true(collectives >= 1);
			}
			compare_free(c);

			if (ranks == 2) /* the reports as printed */
				reports_judge_nothing(a.dir, b.dir, true);
			tu_capture_free(&a);
			tu_capture_free(&b);
		}
	}
}

/* Where the steps cannot be found one way on both sides (the side with a step table has no
 * trace to find them again in), they are not comparable, with the reason; a trace on one
 * side only leaves nothing comparable at all (the other side's figures come from its
 * tables), and nothing is judged, in text or JSON. */
static void test_steps_two_definitions(void **state)
{
	(void)state;
	struct tu_capture a, b;
	const char *args = "--shape vllm,legacy --step-marks profilerstep --step-trace rows --steps 12 --prefill 3 "
			   "--ops 40 --ranks 2 --seed 6";
	tu_capture_load(&a, args, false);
	assert_int_equal(tu_sh("find '%s' -name trace_view.json -delete", a.dir), 0);
	capture_free(a.cap);
	a.cap = capture_open(a.dir, NULL);
	capture_load(a.cap);
	a.an = analysis_run(a.cap);
	char args_b[256];
	snprintf(args_b, sizeof args_b, "%s --default-export", args);
	tu_capture_load(&b, args_b, true);
	struct comparison *c = compare_captures(a.an, b.an);
	assert_string_equal(c->recorded[REC_STEPS].value[0], "step table (durations only)");
	assert_string_equal(c->recorded[REC_EXPORT].value[0], "text, no trace");
	assert_true(c->recorded[REC_EXPORT].differs);
	assert_int_equal(c->n_pairs, 2);
	for (size_t k = 0; k < c->n_pairs; k++) {
		const struct compare_pair *p = &c->pairs[k];
		assert_false(p->steps_again[0] || p->steps_again[1]);
		assert_non_null(strstr(p->why[CDEP_STEPS], "two step definitions"));
		for (int f = 0; f < CF_COUNT; f++) {
			assert_false(p->fig[f].comparable);
			assert_non_null(strstr(p->fig[f].reason, "a trace on after only"));
		}
		for (size_t j = 0; j < p->n_ops; j++)
			assert_false(p->ops[j].comparable);
		assert_int_equal(p->gain.verdict, GAIN_UNKNOWN);
		assert_false(p->gain.comparable);
	}
	compare_free(c);
	reports_judge_nothing(a.dir, b.dir, false);
	tu_capture_free(&a);
	tu_capture_free(&b);
}

/* Without markers on either side, the default export changes only what no figure reads
 * (operator_details.csv, Input Dims): every figure is comparable and the same, and the
 * gain is measured (a comparison is not made blind by being careful). */
static void test_default_export_alike(void **state)
{
	(void)state;
	struct tu_capture a, b;
	tu_capture_load(&a, "--shape vllm,legacy --step-marks none --steps 20 --prefill 6 --ops 40 --ranks 2 --seed 8", true);
	tu_capture_load(&b, "--shape vllm,legacy --step-marks none --default-export --steps 20 --prefill 6 --ops 40 "
			"--ranks 2 --seed 8", true);
	struct comparison *c = compare_captures(a.an, b.an);
	assert_false(c->recorded[REC_STEPS].differs);
	assert_false(c->recorded[REC_FRAMES].differs);
	for (size_t k = 0; k < c->n_pairs; k++) {
		const struct compare_pair *p = &c->pairs[k];
		for (int f = 0; f < CF_COUNT; f++) {
			assert_true(p->fig[f].comparable);
			assert_true(p->fig[f].verdict == CMP_SAME || p->fig[f].verdict == CMP_NA);
		}
		assert_true(p->gain.comparable);
		assert_string_equal(p->gain.base_name, "mean step time");
		check_close("actual gain %", p->gain.actual_pct, 0.0, 0.01);
	}
	compare_free(c);
	tu_capture_free(&a);
	tu_capture_free(&b);
}

/* A planted slowdown (one kernel 1.5 times longer) against its original, both recorded
 * alike: worse on the figures the kernel's time is in, the same on the work it does not
 * touch, and no share better only because the window it is a share of grew. */
static void test_planted_slowdown_found(void **state)
{
	(void)state;
	struct tu_capture a, b;
	tu_capture_load(&a, "--steps 12 --prefill 3 --ops 40 --ranks 2 --seed 5", true);
	tu_capture_load(&b, "--steps 12 --prefill 3 --ops 40 --ranks 2 --seed 5 --kernel-scale RmsNorm=1.5", true);
	struct comparison *c = compare_captures(a.an, b.an);
	assert_int_equal(c->n_recorded_differ, 0);
	assert_int_equal(c->n_pairs, 2);
	static const int worse[] = {M_WALL_US,     M_COMPUTE_US,        M_STEP_P50_US,       M_STEP_P95_US,
				    CF_DECODE_STEP_P50, CF_DECODE_STEP_P95, CF_PREFILL_STEP_P50, CF_PREFILL_STEP_P95};
	static const int same[] = {M_COLLECTIVES, M_COMM_US,     M_HOST_ONLY_US,   M_NPU_IDLE_US, M_NPU_IDLE_GAPS,
				   M_EDGE_IDLE_US, M_DISPATCH_OPS, M_DEVICE_COPY_US, M_H2D_PER_STEP_US, M_STEPS,
				   M_DECODE_STEPS, M_PREFILL_STEPS};
	for (size_t k = 0; k < c->n_pairs; k++) {
		const struct compare_pair *p = &c->pairs[k];
		for (int f = 0; f < CF_COUNT; f++)
			assert_true(p->fig[f].comparable);
		for (size_t j = 0; j < sizeof worse / sizeof worse[0]; j++)
			if (p->fig[worse[j]].verdict != CMP_WORSE)
				fail_msg("rank %d: %s reads %s", p->ra[0]->rank, compare_fig(worse[j]).key,
					 compare_verdict_name(p->fig[worse[j]].verdict));
		for (size_t j = 0; j < sizeof same / sizeof same[0]; j++)
			if (p->fig[same[j]].verdict != CMP_SAME)
				fail_msg("rank %d: %s reads %s", p->ra[0]->rank, compare_fig(same[j]).key,
					 compare_verdict_name(p->fig[same[j]].verdict));
		/* nothing else reads better but communication: the longer kernels hide more of the
		 * collectives (exposed and waiting time measured smaller, truly); no PMU mix, no
		 * share of a longer window */
		static const int comm_figs[] = {M_COMM_NOT_OVERLAPPED_US, M_COMM_NOT_OVERLAPPED_PCT, M_COMM_WAIT_PCT,
						M_COLLECTIVE_MEDIAN_US};
		for (int f = 0; f < CF_COUNT; f++) {
			bool comm = false;
			for (size_t j = 0; j < sizeof comm_figs / sizeof comm_figs[0]; j++)
				comm |= comm_figs[j] == f;
			if (p->fig[f].verdict == CMP_BETTER && !comm)
				fail_msg("rank %d: %s reads better after a slowdown", p->ra[0]->rank, compare_fig(f).key);
		}
		/* shares of the window: the window grew, the host-only and idle time did not */
		static const int diluted[] = {M_HOST_ONLY_PCT, M_NPU_IDLE_PCT, M_HOST_BOUND_PCT, M_COPY_EXPOSED_PCT,
					      M_HOST_COPY_EXPOSED_PCT};
		for (size_t j = 0; j < sizeof diluted / sizeof diluted[0]; j++)
			if (p->fig[diluted[j]].verdict == CMP_BETTER)
				fail_msg("rank %d: %s better only because the window grew", p->ra[0]->rank,
					 compare_fig(diluted[j]).key);
		/* the kernel: slower by what was planted; every compute kernel slower exactly where
		 * the ground truths' totals moved (the generator's TransData follows RmsNorm), the
		 * rest the same */
		size_t slower = 0;
		for (size_t j = 0; j < p->n_ops; j++) {
			const struct op_diff *d = &p->ops[j];
			if (d->scope != SCOPE_DEVICE || d->phase != PHASE_UNKNOWN || d->category != CAT_COMPUTE)
				continue;
			int r = p->ra[0]->rank;
			long long t0 = tu_truth_int_or(a.truth, 0, "op.%d.%s.total_ns", r, d->name);
			long long t1 = tu_truth_int_or(b.truth, 0, "op.%d.%s.total_ns", r, d->name);
			bool moved = t0 && fabs((double)(t1 - t0)) > (double)t0 * COMPARE_NOISE_PCT / 100.0;
			if (d->change != (moved ? OPC_SLOWER : OPC_SAME))
				fail_msg("rank %d: kernel %s reads %s (truth %lld -> %lld ns)", r, d->name,
					 compare_op_change_name(d->change), t0, t1);
			slower += moved;
		}
		assert_true(slower >= 1);
		const struct op_diff *d = compare_find_op(p, SCOPE_DEVICE, PHASE_UNKNOWN, (struct op_key){.name = "RmsNorm"});
		assert_non_null(d);
		assert_int_equal(d->avg_change, OPC_SLOWER);
		check_close("RmsNorm delta %", d->delta_total_pct, 50.0, 0.5);
		/* the gain: measured on comparable steps, and missed */
		assert_true(p->gain.comparable);
		assert_string_equal(p->gain.base_name, "mean step time");
		assert_int_equal(p->gain.verdict, GAIN_MISSED);
	}
	compare_free(c);
	tu_capture_free(&a);
	tu_capture_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_planted_differences),
		cmocka_unit_test(test_rank_against_rank),
		cmocka_unit_test(test_gain_verdict),
		cmocka_unit_test(test_comparability_warnings),
		cmocka_unit_test(test_real_levels),
		cmocka_unit_test(test_every_figure_has_a_direction),
		cmocka_unit_test(test_reports),
		cmocka_unit_test(test_default_export_copy),
		cmocka_unit_test(test_default_export_alike),
		cmocka_unit_test(test_steps_two_definitions),
		cmocka_unit_test(test_planted_slowdown_found),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
