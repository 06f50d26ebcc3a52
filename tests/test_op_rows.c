/* SPDX-License-Identifier: MIT */
/* The model the timeline and the op views draw from, built in the core: an op's instances
 * (op_rows_instances), the per-op rows and what a row covers of a span (op_rows.h), and the
 * kernel table by start (kernel_index.h). Checked against the generator's ground truth
 * (op.<r>.<kernel>.count and total_ns, the kernel_details row count) and against a brute
 * force over every event. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "capture.h"
#include "kernel_index.h"
#include "op_rows.h"
#include "testutil.h"

/* A small generated capture, analysed: its first rank's analysis and store. */
static const struct rank_analysis *load_rank0(struct tu_capture *c, int seed, const struct rank_store **rs)
{
	char args[64];
	snprintf(args, sizeof args, "--ops 40 --steps 4 --prefill 1 --seed %d", seed);
	tu_capture_load(c, args, true);
	assert_true(c->an->n_ranks >= 1);
	const struct rank_analysis *ra = &c->an->ranks[0];
	*rs = &c->cap->ranks[ra->rank_index].store;
	return ra;
}

struct truth_ops {
	const struct rank_store *rs;
	const struct op_row *rows;
	size_t n_rows;
	size_t checked;
};

/* op.0.<kernel>.count=<n>: the row of that kernel holds n instances totalling total_ns */
static void check_op(const char *key, const char *value, void *ctx)
{
	struct truth_ops *t = ctx;
	const char *name = key + strlen("op.0.");
	const char *dot = strrchr(name, '.');
	if (!dot || strcmp(dot, ".count"))
		return;
	size_t len = (size_t)(dot - name);
	for (size_t i = 0; i < t->n_rows; i++) {
		const struct op_row *o = &t->rows[i];
		if (strlen(o->name) != len || strncmp(o->name, name, len))
			continue;
		if (o->n != strtoull(value, NULL, 10))
			fail_msg("%s: a row of %zu instances, ground truth %s", key, o->n, value);
		t->checked++;
		return;
	}
	fail_msg("%s: no op row", key);
}

static void test_rows_against_truth(void **state)
{
	(void)state;
	struct tu_capture c;
	const struct rank_store *rs;
	const struct rank_analysis *ra = load_rank0(&c, 5, &rs);
	struct op_row *rows;
	size_t n = op_rows_build(ra, rs, ra->cls, 200, OP_ROWS_BY_TOTAL, &rows);
	assert_true(n > 0);
	struct truth_ops t = {rs, rows, n, 0};
	tu_truth_each(c.truth, "op.0.", check_op, &t);
	assert_true(t.checked >= 5);
	for (size_t i = 0; i < n; i++) {
		const struct op_row *o = &rows[i];
		int64_t sum = 0;
		for (size_t k = 0; k < o->n; k++) {
			uint32_t ev = o->evs[k];
			assert_string_equal(store_ev_name(rs, ev), o->name);
			assert_int_equal(store_ev_lane(rs, ev)->group, LANE_DEVICE);
			assert_false(ra->cls[ev].flags & EVF_WAIT);
			if (k)
				assert_true(store_ts(rs, o->evs[k - 1]) <= store_ts(rs, ev));
			sum += store_dur(rs, ev);
		}
		char key[256];
		snprintf(key, sizeof key, "op.0.%s.total_ns", o->name);
		long long truth = tu_truth_int_or(c.truth, -1, "%s", key);
		if (truth >= 0)
			assert_int_equal(sum, truth);
		if (i)
			assert_true(rows[i - 1].total > o->total ||
				    (rows[i - 1].total == o->total && strcmp(rows[i - 1].name, o->name) < 0));
	}
	/* the other orders, each with names breaking ties */
	op_rows_sort(rows, n, OP_ROWS_BY_COUNT);
	for (size_t i = 1; i < n; i++)
		assert_true(rows[i - 1].n > rows[i].n ||
			    (rows[i - 1].n == rows[i].n && strcmp(rows[i - 1].name, rows[i].name) < 0));
	op_rows_sort(rows, n, OP_ROWS_BY_NAME);
	for (size_t i = 1; i < n; i++)
		assert_true(strcmp(rows[i - 1].name, rows[i].name) < 0);
	op_rows_sort(rows, n, OP_ROWS_BY_MAX);
	for (size_t i = 1; i < n; i++)
		assert_true(rows[i - 1].max >= rows[i].max);
	/* at most max_rows, the busiest first */
	struct op_row *few;
	size_t n3 = op_rows_build(ra, rs, ra->cls, 3, OP_ROWS_BY_TOTAL, &few);
	assert_int_equal(n3, 3);
	op_rows_sort(rows, n, OP_ROWS_BY_TOTAL);
	for (size_t i = 0; i < n3; i++)
		assert_string_equal(few[i].name, rows[i].name);
	op_rows_free(few, n3);
	/* no analysis: no rows */
	struct op_row *none = (struct op_row *)1;
	assert_int_equal(op_rows_build(NULL, rs, NULL, 200, OP_ROWS_BY_TOTAL, &none), 0);
	assert_null(none);
	op_rows_free(rows, n);
	tu_capture_free(&c);
}

/* What a row covers of [a, b), summed by brute force over every instance. */
static void test_cover_brute_force(void **state)
{
	(void)state;
	struct tu_capture c;
	const struct rank_store *rs;
	const struct rank_analysis *ra = load_rank0(&c, 6, &rs);
	struct op_row *rows;
	size_t n = op_rows_build(ra, rs, ra->cls, 200, OP_ROWS_BY_TOTAL, &rows);
	int64_t span = rs->window_end - rs->window_start;
	size_t tried = 0, hit = 0;
	for (size_t i = 0; i < n; i++)
		for (int w = 1; w <= 400; w *= 3)
			for (int c0 = 0; c0 < w; c0++) {
				int64_t a = rs->window_start + span * c0 / w, b = rs->window_start + span * (c0 + 1) / w;
				int64_t want = 0;
				int want_n = 0;
				for (size_t k = 0; k < rows[i].n; k++) {
					int64_t ea = store_ts(rs, rows[i].evs[k]), eb = ea + store_dur(rs, rows[i].evs[k]);
					if (eb > a && ea < b) {
						want += (eb < b ? eb : b) - (ea > a ? ea : a);
						want_n++;
					}
				}
				int seen;
				const struct op_row *o = &rows[i];
				int64_t got = op_rows_cover(rs, o->evs, o->n, o->max, a, b, 1 << 30, &seen);
				assert_int_equal(seen, want_n);
				assert_int_equal(got, want);
				/* a cap stops the count there */
				op_rows_cover(rs, rows[i].evs, rows[i].n, rows[i].max, a, b, 2, &seen);
				assert_int_equal(seen, want_n < 2 ? want_n : 2);
				tried++;
				hit += want_n > 0;
			}
	assert_true(tried > 1000 && hit > 100);
	op_rows_free(rows, n);
	tu_capture_free(&c);
}

/* op_rows_instances: every event of the name on the scope's lanes, by start then index. */
static void test_instances(void **state)
{
	(void)state;
	struct tu_capture c;
	const struct rank_store *rs;
	load_rank0(&c, 7, &rs);
	uint32_t *evs;
	size_t n = op_rows_instances(rs, NULL, (struct op_key){.name = "RmsNorm"}, SCOPE_DEVICE, &evs);
	assert_int_equal(n, tu_truth_int(c.truth, "op.0.RmsNorm.count"));
	for (size_t k = 1; k < n; k++)
		assert_true(store_ts(rs, evs[k - 1]) < store_ts(rs, evs[k]) ||
			    (store_ts(rs, evs[k - 1]) == store_ts(rs, evs[k]) && evs[k - 1] < evs[k]));
	free(evs);
	/* each scope's count by brute force */
	for (int scope = SCOPE_DEVICE; scope < SCOPE_COUNT; scope++) {
		n = op_rows_instances(rs, NULL, (struct op_key){.name = "RmsNorm"}, scope, &evs);
		size_t want = 0;
		for (size_t ev = 0; ev < rs->n_ev; ev++)
			want += !strcmp(store_ev_name(rs, ev), "RmsNorm") &&
				op_rows_lane_in_scope(scope, store_ev_lane(rs, ev)->group);
		assert_int_equal(n, want);
		free(evs);
	}
	assert_int_equal(op_rows_instances(rs, NULL, (struct op_key){.name = "no such op"}, SCOPE_ALL, &evs), 0);
	assert_null(evs);
	tu_capture_free(&c);
}

/* An op's time and calls per step: each step's sums over the instances starting in its
 * window, found by a scan of the windows; the longest instance. */
static void test_by_step(void **state)
{
	(void)state;
	struct tu_capture c;
	const struct rank_store *rs;
	const struct rank_analysis *ra = load_rank0(&c, 9, &rs);
	assert_int_equal(ra->n_steps, tu_truth_int(c.truth, "rank.0.steps"));
	uint32_t *evs;
	size_t n = op_rows_instances(rs, NULL, (struct op_key){.name = "RmsNorm"}, SCOPE_DEVICE, &evs);
	int64_t *ns = malloc(ra->n_steps * sizeof *ns);
	size_t *calls = malloc(ra->n_steps * sizeof *calls);
	memset(ns, 0xff, ra->n_steps * sizeof *ns); /* zeroed by the call */
	int64_t max = op_rows_by_step(ra, rs, evs, n, ns, calls);
	int64_t want_max = 0;
	size_t in_steps = 0;
	for (size_t k = 0; k < ra->n_steps; k++) {
		int64_t sum = 0;
		size_t cnt = 0;
		for (size_t i = 0; i < n; i++) {
			int64_t ts = store_ts(rs, evs[i]);
			if (ts >= ra->steps[k].win_start && ts < ra->steps[k].win_end) {
				sum += store_dur(rs, evs[i]);
				cnt++;
			}
		}
		assert_int_equal(ns[k], sum);
		assert_int_equal(calls[k], cnt);
		assert_true(cnt > 0); /* every step runs the model's norms */
		in_steps += cnt;
	}
	for (size_t i = 0; i < n; i++)
		if (store_dur(rs, evs[i]) > want_max)
			want_max = store_dur(rs, evs[i]);
	assert_int_equal(max, want_max);
	assert_true(in_steps <= n && in_steps > n / 2);
	assert_int_equal(op_rows_by_step(ra, rs, evs, 0, ns, calls), 0);
	for (size_t k = 0; k < ra->n_steps; k++)
		assert_true(ns[k] == 0 && calls[k] == 0);
	free(ns);
	free(calls);
	free(evs);
	tu_capture_free(&c);
}

/* The kernel table by start: every row with a start once, sorted, found at its start; the
 * device kernels of the trace each have their row. */
static void test_kernel_index(void **state)
{
	(void)state;
	struct tu_capture c;
	const struct rank_store *rs;
	const struct rank_analysis *ra = load_rank0(&c, 8, &rs);
	const struct rank_data *rd = &c.cap->ranks[ra->rank_index];
	const struct csv_table *k = rd->by_kind[CSV_KERNEL];
	assert_non_null(k);
	struct kernel_index ki;
	kernel_index_build(&ki, k);
	assert_ptr_equal(ki.table, k);
	assert_int_equal(ki.n, tu_truth_int(c.truth, "rank.0.csv.kernel_details.rows"));
	bool *seen = calloc(k->nrows ? k->nrows : 1, 1);
	for (size_t i = 0; i < ki.n; i++) {
		int64_t s;
		assert_true(csvt_time(k, ki.row[i], COL_START, &s));
		assert_int_equal(ki.start[i], s);
		assert_false(seen[ki.row[i]]);
		seen[ki.row[i]] = true;
		if (i)
			assert_true(ki.start[i - 1] <= ki.start[i]);
		size_t at = kernel_index_at(&ki, s);
		assert_true(at <= i && ki.start[at] == s && (at == 0 || ki.start[at - 1] < s));
	}
	free(seen);
	assert_int_equal(kernel_index_at(&ki, ki.start[ki.n - 1] + 1), ki.n);
	assert_int_equal(kernel_index_at(&ki, INT64_MIN), 0);
	/* a compute kernel of the trace finds its row at its start */
	size_t found = 0, kernels = 0;
	for (size_t ev = 0; ev < rs->n_ev; ev++) {
		if (store_ev_lane(rs, ev)->group != LANE_DEVICE || ra->cls[ev].cat != CAT_COMPUTE)
			continue;
		kernels++;
		for (size_t i = kernel_index_at(&ki, store_ts(rs, ev)); i < ki.n && ki.start[i] == store_ts(rs, ev); i++)
			if (!strcmp(csvt_str(k, ki.row[i], COL_NAME), store_ev_name(rs, ev))) {
				found++;
				break;
			}
	}
	assert_true(kernels > 100);
	assert_int_equal(found, kernels);
	kernel_index_free(&ki);
	assert_null(ki.table);
	assert_int_equal(ki.n, 0);
	/* no table: an empty index */
	kernel_index_build(&ki, NULL);
	assert_null(ki.table);
	assert_int_equal(kernel_index_at(&ki, 0), 0);
	kernel_index_free(&ki);
	tu_capture_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_against_truth),
		cmocka_unit_test(test_cover_brute_force),
		cmocka_unit_test(test_instances),
		cmocka_unit_test(test_by_step),
		cmocka_unit_test(test_kernel_index),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
