/* SPDX-License-Identifier: MIT */
/* Generated captures load with every count equal to the generator's ground truth, in
 * every byte-level variant real exports come in: wrapper, minified, pretty, cut short,
 * BOM, CRLF, trailing TABs, GBK, ragged rows, Excel-mangled numbers, Call stack args. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "testutil.h"

struct lane_check {
	const struct rank_store *rs;
	int rank;
	size_t checked;
};

/* rank.<r>.lane.<process>/<thread>=<X events> */
static void check_lane(const char *key, const char *value, void *ctx)
{
	struct lane_check *lc = ctx;
	char prefix[64];
	snprintf(prefix, sizeof prefix, "rank.%d.lane.", lc->rank);
	if (strncmp(key, prefix, strlen(prefix)))
		return;
	const char *pt = key + strlen(prefix);
	const char *slash = strchr(pt, '/');
	assert_non_null(slash);
	size_t plen = (size_t)(slash - pt);
	for (size_t i = 0; i < lc->rs->n_lanes; i++) {
		const struct lane *l = &lc->rs->lanes[i];
		const char *p = store_str(lc->rs, l->process_name), *t = store_str(lc->rs, l->thread_name);
		if (strlen(p) == plen && !strncmp(p, pt, plen) && !strcmp(t, slash + 1)) {
			if (l->n_events != strtoull(value, NULL, 10))
				fail_msg("%s: %u X events, ground truth %s", key, l->n_events, value);
			lc->checked++;
			return;
		}
	}
	fail_msg("%s: no such lane", key);
}

static void check_counts(struct tu_capture *g)
{
	for (size_t i = 0; i < g->cap->n_ranks; i++) {
		const struct rank_data *rd = &g->cap->ranks[i];
		const struct rank_store *rs = &rd->store;
		int r = rd->plan->rank;
		static const char phs[] = "XMsfC";
		uint64_t total = rs->ph.other;
		for (int c = 0; c < 128; c++)
			total += rs->ph.by_char[c];
		for (const char *p = phs; *p; p++)
			if ((long long)rs->ph.by_char[(unsigned char)*p] != tu_truth_int(g->truth, "rank.%d.events.%c", r, *p))
				fail_msg("rank %d: %llu '%c' events, ground truth %lld", r,
					 (unsigned long long)rs->ph.by_char[(unsigned char)*p], *p,
					 tu_truth_int(g->truth, "rank.%d.events.%c", r, *p));
		assert_int_equal(total, tu_truth_int(g->truth, "rank.%d.events.total", r));
		assert_true(rs->window_start == tu_truth_int(g->truth, "rank.%d.first_ts_ns", r));
		assert_true(rs->window_end == tu_truth_int(g->truth, "rank.%d.last_end_ns", r));
		struct lane_check lc = {rs, r, 0};
		tu_truth_each(g->truth, "rank.", check_lane, &lc);
		assert_true(lc.checked > 5);
		/* CSV rows per file */
		for (size_t k = 0; k < rd->n_csvs; k++) {
			const struct csv_table *t = rd->csvs[k];
			const char *base = strrchr(t->path, '/') + 1;
			char name[128];
			snprintf(name, sizeof name, "%.*s", (int)(strlen(base) - 4), base);
			long long want = tu_truth_int_or(g->truth, -1, "rank.%d.csv.%s.rows", r, name);
			if (want >= 0 && (long long)t->nrows != want)
				fail_msg("rank %d %s: %zu rows, ground truth %lld", r, base, t->nrows, want);
		}
		assert_non_null(rd->by_kind[CSV_KERNEL]);
		assert_int_equal(rs->unmatched_flows, 0);
	}
}

static void test_default_capture(void **state)
{
	(void)state;
	struct tu_capture g;
	tu_capture_load(&g, "--ranks 2 --seed 1 --steps 6", false);
	check_counts(&g);
	assert_int_equal(diag_count(&g.cap->diags, DIAG_WARN), 0);
	/* a kernel_details row's start is the trace event's ts on the same clock, exactly */
	const struct rank_data *rd = &g.cap->ranks[0];
	const struct csv_table *k = rd->by_kind[CSV_KERNEL];
	int64_t start = 0;
	assert_true(csvt_time(k, 0, COL_START, &start));
	bool found = false;
	for (size_t e = 0; e < rd->store.n_ev && !found; e++)
		found = store_ts(&rd->store, e) == start && !strcmp(store_ev_name(&rd->store, e), csvt_str(k, 0, COL_NAME));
	assert_true(found);
	tu_capture_free(&g);
}

static void test_json_shapes(void **state)
{
	(void)state;
	static const char *variants[] = {"--wrapper", "--minify", "--pretty", "--call-stack",
					 "--naming host", "--no-info --naming rank", "--no-info --naming host",
					 "--step-marks profilerstep"};
	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
		char args[128];
		snprintf(args, sizeof args, "--ranks 2 --seed %zu --steps 4 %s", i + 2, variants[i]);
		struct tu_capture g;
		tu_capture_load(&g, args, false);
		check_counts(&g);
		if (!strcmp(variants[i], "--wrapper"))
			assert_true(g.cap->ranks[0].store.trace.wrapped);
		/* the rank: from profiler_info, else the rank-shaped name, else the order of names */
		enum rank_source want = !strstr(variants[i], "--no-info") ? RANK_FROM_INFO
					: strstr(variants[i], "rank") ? RANK_FROM_NAME : RANK_FROM_ORDER;
		assert_int_equal(g.cap->ranks[1].plan->rank_source, want);
		if (want != RANK_FROM_ORDER)
			assert_int_equal(g.cap->ranks[1].plan->rank, 1);
		tu_capture_free(&g);
	}
}

static void test_cut_short(void **state)
{
	(void)state;
	struct tu_capture g;
	tu_capture_load(&g, "--ranks 1 --seed 4 --steps 4 --truncate-at 200000", false);
	const struct rank_store *rs = &g.cap->ranks[0].store;
	assert_true(rs->trace.truncated);
	assert_int_equal(tu_truth_int(g.truth, "rank.0.truncated"), 1);
	static const char phs[] = "XMsfC";
	for (const char *p = phs; *p; p++)
		assert_int_equal(rs->ph.by_char[(unsigned char)*p], tu_truth_int(g.truth, "rank.0.events.%c", *p));
	bool warned = false;
	for (size_t i = 0; i < g.cap->diags.n; i++) {
		const struct diag *d = &g.cap->diags.items[i];
		if (strstr(d->msg, "cut short") && d->offset >= 0 && d->offset <= 200000)
			warned = true;
	}
	assert_true(warned);
	tu_capture_free(&g);
}

static void test_csv_bytes(void **state)
{
	(void)state;
	struct tu_capture g;
	tu_capture_load(&g, "--ranks 1 --seed 6 --steps 4 --bom --crlf --tabs --gbk --ragged 3 --excel 2", false);
	const struct rank_data *rd = &g.cap->ranks[0];
	const struct csv_table *k = rd->by_kind[CSV_KERNEL];
	assert_non_null(k);
	assert_true(k->bom);
	assert_true(k->crlf);
	assert_true(k->gbk);
	assert_int_equal(k->nrows, tu_truth_int(g.truth, "rank.0.csv.kernel_details.rows"));
	assert_int_equal(k->ragged_rows, 3);
	assert_int_equal(k->excel_numbers, 2);
	/* each planted line is named in a warning */
	const char *lines = tu_truth_str(g.truth, "rank.0.kernel_details.ragged_lines");
	for (const char *p = lines; *p;) {
		long line = strtol(p, (char **)&p, 10);
		bool named = false;
		for (size_t i = 0; i < g.cap->diags.n; i++)
			named |= g.cap->diags.items[i].line == line && strstr(g.cap->diags.items[i].msg, "cells under");
		if (!named)
			fail_msg("ragged line %ld not reported", line);
		if (*p == ',')
			p++;
	}
	/* GBK names come out as UTF-8: the generator writes 自定义算子 names */
	bool chinese = false;
	for (size_t r = 0; r < k->nrows && !chinese; r++)
		chinese = strstr(csvt_str(k, r, COL_NAME), "\xE7\xAE\x97\xE5\xAD\x90") != NULL; /* 算子 */
	assert_true(chinese);
	/* trailing TABs do not disturb exact times: rows match the trace's ts */
	size_t matched = 0, with_time = 0;
	for (size_t r = 0; r < k->nrows; r++) {
		int64_t s;
		if (!csvt_time(k, r, COL_START, &s) || (k->excel_numbers && s % 1000000000 == 0))
			continue;
		with_time++;
		for (size_t e = 0; e < rd->store.n_ev; e++)
			if (store_ts(&rd->store, e) == s) {
				matched++;
				break;
			}
	}
	assert_true(with_time > 10);
	assert_int_equal(matched, with_time);
	tu_capture_free(&g);
}

static void test_raw_and_unfinished_exports(void **state)
{
	(void)state;
	if (!tu_gen())
		skip();
	char *dir = tu_generate("--ranks 1 --seed 2 --raw");
	struct capture *cap = capture_open(dir, NULL);
	assert_false(cap->usable);
	bool said = false;
	for (size_t i = 0; i < cap->diags.n; i++)
		said |= strstr(cap->diags.items[i].msg, "analyse(") != NULL;
	assert_true(said);
	capture_free(cap);
	*strrchr(dir, '/') = '\0'; /* the temp dir holding cap/ */
	tu_rmtree(dir);
	free(dir);
	struct tu_capture g;
	tu_capture_load(&g, "--ranks 1 --seed 2 --steps 3 --no-done", false);
	bool warned = false;
	for (size_t i = 0; i < g.cap->diags.n; i++)
		warned |= strstr(g.cap->diags.items[i].msg, "analyse.done") != NULL;
	assert_true(warned);
	check_counts(&g);
	tu_capture_free(&g);
}

static void test_demo_is_what_the_generator_makes(void **state)
{
	(void)state;
	/* fixtures/demo is committed; it must be exactly the output of --demo */
	const char *src = getenv("ASCPROF_SRCDIR");
	if (!tu_gen() || !src)
		skip();
	char *dir = tu_tmpdir();
	assert_int_equal(tu_sh("'%s' --demo --out '%s/demo' >/dev/null && diff -r '%s/fixtures/demo' '%s/demo' >/dev/null",
			       tu_gen(), dir, src, dir), 0);
	tu_rmtree(dir);
	free(dir);
}

/* --shape vllm and train: every count as planted, and the generator's own re-derivation of
 * its ground truth from the files (--self-check) agrees, with graph replays (no host events
 * of their own), split attention, MC2 kernels and annotation ranges. */
static void test_shapes(void **state)
{
	(void)state;
	static const char *const args[] = {
		"--shape vllm,mla,moe,graph,annotate,mixed=3 --ranks 3 --comm --steps 9 --prefill 3 --seed 4",
		"--shape vllm,short,mixed=2 --ranks 1 --steps 8 --seed 9",
		"--shape train --ranks 2 --steps 3 --seed 3",
	};
	for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
		struct tu_capture g;
		tu_capture_load(&g, args[i], false);
		check_counts(&g);
		assert_int_equal(tu_sh("'%s' --check --out '%s' 2>/dev/null", tu_gen(), g.dir), 0);
		tu_capture_free(&g);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_capture),
		cmocka_unit_test(test_json_shapes),
		cmocka_unit_test(test_cut_short),
		cmocka_unit_test(test_csv_bytes),
		cmocka_unit_test(test_raw_and_unfinished_exports),
		cmocka_unit_test(test_demo_is_what_the_generator_makes),
		cmocka_unit_test(test_shapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
