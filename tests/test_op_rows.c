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
#include "compare.h"
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

/* ---- whole collectives: one row per kind and group ------------------------------------ */

/* A real capture loaded and analysed (*cap: its capture; free both with real_free). */
static struct analysis *real_analysis(const char *dir, struct capture **cap)
{
	*cap = capture_open(dir, NULL);
	capture_load(*cap);
	return analysis_run(*cap);
}

static void real_free(struct analysis *an, struct capture *cap, char *dir)
{
	analysis_free(an);
	capture_free(cap);
	free(dir);
}

/* The device row of all phases of collectives of kind and group, or NULL. */
static const struct op_stat *coll_row(const struct rank_analysis *ra, const char *kind, const char *group)
{
	for (size_t i = 0; i < ra->n_ops; i++) {
		const struct op_stat *o = &ra->ops[i];
		if (o->scope == SCOPE_DEVICE && o->phase == PHASE_UNKNOWN && o->collective && !strcmp(o->name, kind) &&
		    o->group && !strcmp(o->group, group))
			return o;
	}
	return NULL;
}

/* The calls named prefix* on the trace's HCCL group lanes (threads "Group N Communication"),
 * by brute force over every event: their count and summed duration. */
static size_t trace_calls(const struct rank_store *rs, const char *prefix, int64_t *total)
{
	size_t n = 0;
	*total = 0;
	for (size_t ev = 0; ev < rs->n_ev; ev++) {
		const struct lane *l = store_ev_lane(rs, ev);
		if (strncmp(store_ev_name(rs, ev), prefix, strlen(prefix)) ||
		    !strstr(store_str(rs, l->thread_name), "Communication"))
			continue;
		n++;
		*total += store_dur(rs, ev);
	}
	return n;
}

/* The same from the kernel table's rows (Name and Duration(us)). */
static size_t csv_calls(const struct csv_table *k, const char *prefix, int64_t *total)
{
	size_t n = 0;
	*total = 0;
	for (size_t r = 0; r < k->nrows; r++) {
		int64_t d;
		if (strncmp(csvt_str(k, r, COL_NAME), prefix, strlen(prefix)) || !csvt_time(k, r, COL_DURATION, &d))
			continue;
		n++;
		*total += d;
	}
	return n;
}

/* No row of one call: no collective row's name keeps a per-call suffix. */
static void assert_no_call_rows(const struct rank_analysis *ra)
{
	for (size_t i = 0; i < ra->n_ops; i++)
		if (strstr(ra->ops[i].name, "hcom_") && strstr(ra->ops[i].name, "__"))
			fail_msg("a row of one call: %s", ra->ops[i].name);
}

/* A collective row's calls as the explorer finds them again (the op detail's instances, the
 * Timeline's per-op row): as many as the row counts, summing to its total. */
static void assert_calls_found(const struct rank_analysis *ra, const struct rank_store *rs, const struct op_stat *o)
{
	uint32_t *evs;
	size_t n = op_rows_instances(rs, ra->cls, op_key_of(o), SCOPE_DEVICE, &evs);
	assert_int_equal(n, o->count);
	int64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		sum += store_dur(rs, evs[k]);
		if (k)
			assert_true(store_ts(rs, evs[k - 1]) <= store_ts(rs, evs[k]));
	}
	assert_int_equal(sum, o->total_ns);
	free(evs);
	assert_int_equal(op_rows_instances(rs, ra->cls, op_key_of(o), SCOPE_HOST, &evs), 0);
	struct op_row *rows;
	size_t nr = op_rows_build(ra, rs, ra->cls, 200, OP_ROWS_BY_TOTAL, &rows), seen = 0;
	for (size_t i = 0; i < nr; i++) {
		if (!rows[i].collective || strcmp(rows[i].name, o->name) || strcmp(rows[i].group, o->group))
			continue;
		assert_int_equal(rows[i].n, o->count);
		seen++;
	}
	assert_int_equal(seen, 1);
	op_rows_free(rows, nr);
	/* what the Ops view shows and searches: "hcom" finds it */
	char label[600];
	assert_non_null(strstr(op_rows_label(o->name, o->group, label, sizeof label), "hcom"));
	assert_non_null(strstr(label, o->group));
}

/* msinsight's text level1: the 86 ms first allReduce of each rank (issue 35) is in the Ops
 * rows, one row of 4 calls named hcom_allReduce in group 586, counted and timed as the sum
 * of its calls on the trace's group lane and of the kernel table's rows. */
static void test_collectives_real_level1(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(dir, "msinsight/test/data/pytorch/text/level1");
	struct capture *cap;
	struct analysis *an = real_analysis(dir, &cap);
	assert_int_equal(an->n_ranks, 2);
	static const int64_t want_total[2] = {105991876, 100375284}; /* the CSV rows' sums, ns */
	for (size_t r = 0; r < 2; r++) {
		const struct rank_analysis *ra = &an->ranks[r];
		const struct rank_data *rd = &cap->ranks[ra->rank_index];
		const struct op_stat *o = coll_row(ra, "hcom_allReduce", "586");
		assert_non_null(o);
		assert_int_equal(o->category, CAT_COMM);
		int64_t trace_total, csv_total;
		assert_int_equal(o->count, trace_calls(&rd->store, "hcom_allReduce__586_", &trace_total));
		assert_int_equal(o->count, csv_calls(rd->by_kind[CSV_KERNEL], "hcom_allReduce__586_", &csv_total));
		assert_int_equal(o->count, 4);
		assert_int_equal(o->total_ns, trace_total);
		assert_int_equal(csv_total, want_total[r]);
		assert_true(llabs(o->total_ns - csv_total) <= 4 * 1000); /* the two exports round apart */
		/* the largest device row: 86.5 % and more of device busy */
		assert_ptr_equal(o, &ra->ops[0]);
		assert_true(o->share_pct > 85);
		assert_calls_found(ra, &rd->store, o);
		assert_no_call_rows(ra);
		/* the Timeline's range table over the whole window: the same row */
		struct range_totals rt;
		query_range(&rd->store, ra->cls, rd->store.window_start, rd->store.window_end + 1, &rt);
		size_t in_range = 0;
		for (size_t i = 0; i < rt.n_ops; i++) {
			assert_false(strstr(rt.ops[i].name, "hcom_") && strstr(rt.ops[i].name, "__"));
			if (!rt.ops[i].group)
				continue;
			assert_string_equal(rt.ops[i].name, "hcom_allReduce");
			assert_string_equal(rt.ops[i].group, "586");
			assert_int_equal(rt.ops[i].count, o->count);
			assert_int_equal(rt.ops[i].in_ns, o->total_ns);
			in_range++;
		}
		assert_int_equal(in_range, 1);
		query_range_free(&rt);
	}
	real_free(an, cap, dir);
}

/* A rank's kernel table as the test reads it: per (kind, group) of its collectives, parsed
 * here from "hcom_<kind>__<group>_<n>_<m>", and per Type of its other rows. */
struct csv_group {
	char key[160];
	size_t count;
	int64_t total;
};

static void csv_group_add(struct csv_group *g, size_t *n, const char *key, int64_t d)
{
	size_t i = 0;
	while (i < *n && strcmp(g[i].key, key))
		i++;
	if (i == *n) {
		assert_true(*n < 512);
		g[*n] = (struct csv_group){.count = 0};
		snprintf(g[(*n)++].key, sizeof g->key, "%s", key);
	}
	g[i].count++;
	g[i].total += d;
}

/* msinsight's st/level2, exported without a trace: rows by kind and group where the kernel
 * table has one row per call (15 of rank 0's), and op types by the Type column
 * (Add: 457 rows, 14,646.74 us), both equal to the sums read from the table here. */
static void test_collectives_and_types_without_trace(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(dir, "msinsight/test/st/level2");
	struct capture *cap;
	struct analysis *an = real_analysis(dir, &cap);
	size_t checked_ranks = 0;
	for (size_t r = 0; r < an->n_ranks; r++) {
		const struct rank_analysis *ra = &an->ranks[r];
		const struct csv_table *k = cap->ranks[ra->rank_index].by_kind[CSV_KERNEL];
		if (!k)
			continue; /* ranks 1 and 3: communication.json and step_trace_time only */
		assert_false(ra->has_trace);
		static struct csv_group coll[512], types[512];
		size_t n_coll = 0, n_types = 0, calls = 0;
		for (size_t row = 0; row < k->nrows; row++) {
			int64_t d;
			if (!csvt_time(k, row, COL_DURATION, &d))
				continue;
			const char *name = csvt_str(k, row, COL_NAME), *dd = strstr(name, "__");
			if (!strncmp(name, "hcom_", 5) && dd) {
				char key[160];
				snprintf(key, sizeof key, "%.*s|%.*s", (int)(dd - name), name, (int)strcspn(dd + 2, "_"), dd + 2);
				csv_group_add(coll, &n_coll, key, d);
				calls++;
			} else {
				csv_group_add(types, &n_types, csvt_str(k, row, COL_TYPE), d);
			}
		}
		assert_true(n_coll >= 4 && calls > n_coll);
		for (size_t i = 0; i < n_coll; i++) {
			char kind[160];
			snprintf(kind, sizeof kind, "%.*s", (int)strcspn(coll[i].key, "|"), coll[i].key);
			const struct op_stat *o = coll_row(ra, kind, strchr(coll[i].key, '|') + 1);
			if (!o)
				fail_msg("rank %d: no row for %s", ra->rank, coll[i].key);
			assert_int_equal(o->count, coll[i].count);
			assert_int_equal(o->total_ns, coll[i].total);
			assert_int_equal(o->category, CAT_COMM);
		}
		assert_no_call_rows(ra);
		size_t typed = 0;
		for (size_t i = 0; i < n_types; i++)
			for (size_t t = 0; t < ra->n_op_types; t++) {
				const struct op_type_stat *ty = &ra->op_types[t];
				if (ty->scope != SCOPE_DEVICE || ty->group || strcmp(ty->name, types[i].key))
					continue;
				assert_int_equal(ty->count, types[i].count);
				assert_int_equal(ty->total_ns, types[i].total);
				typed++;
			}
		assert_int_equal(typed, n_types);
		if (ra->rank == 0)
			for (size_t t = 0; t < ra->n_op_types; t++)
				if (!strcmp(ra->op_types[t].name, "Add")) {
					assert_int_equal(ra->op_types[t].count, 457);
					assert_int_equal(ra->op_types[t].total_ns, 14646740);
					assert_int_equal(ra->op_types[t].n_names, 2);
					checked_ranks += 100;
				}
		checked_ranks++;
	}
	assert_int_equal(checked_ranks, 102); /* ranks 0 and 2, Add on rank 0 */
	real_free(an, cap, dir);
}

/* A generated 8-rank capture with collectives: each rank's 24 allReduces are one row (not
 * 24 of one call), counted and timed as the ground truth's collectives (transfer plus wait)
 * and as the group lane's events; rank against rank diffs that row. */
static void test_collectives_generated(void **state)
{
	(void)state;
	struct tu_capture c;
	tu_capture_load(&c, "--ranks 8 --comm --seed 3 --steps 6 --prefill 1 --ops 40", true);
	assert_int_equal(c.an->n_ranks, 8);
	for (size_t r = 0; r < 8; r++) {
		const struct rank_analysis *ra = &c.an->ranks[r];
		const struct rank_store *rs = &c.cap->ranks[ra->rank_index].store;
		size_t rows = 0;
		const struct op_stat *o = NULL;
		for (size_t i = 0; i < ra->n_ops; i++)
			if (ra->ops[i].scope == SCOPE_DEVICE && ra->ops[i].phase == PHASE_UNKNOWN && ra->ops[i].collective) {
				rows++;
				o = &ra->ops[i];
			}
		assert_int_equal(rows, 1);
		assert_string_equal(o->name, "hcom_allReduce");
		long long calls = tu_truth_int(c.truth, "rank.%d.collectives", ra->rank);
		long long dur = tu_truth_int(c.truth, "rank.%d.coll_transfer_ns", ra->rank) +
				tu_truth_int(c.truth, "rank.%d.coll_wait_ns", ra->rank);
		assert_int_equal(o->count, calls);
		assert_int_equal(o->total_ns, dur);
		int64_t trace_total;
		char prefix[64];
		snprintf(prefix, sizeof prefix, "hcom_allReduce__%s_", o->group);
		assert_int_equal(trace_calls(rs, prefix, &trace_total), calls);
		assert_int_equal(trace_total, dur);
		assert_no_call_rows(ra);
		assert_calls_found(ra, rs, o);
	}
	struct comparison *cmp = compare_ranks(c.an, 0, 1);
	assert_non_null(cmp);
	const struct compare_pair *p = &cmp->pairs[0];
	size_t coll_diffs = 0;
	for (size_t i = 0; i < p->n_ops; i++)
		coll_diffs += p->ops[i].collective && p->ops[i].scope == SCOPE_DEVICE && p->ops[i].phase == PHASE_UNKNOWN;
	assert_int_equal(coll_diffs, 1);
	const struct op_diff *d = NULL;
	for (size_t i = 0; i < p->n_ops && !d; i++)
		if (p->ops[i].collective && p->ops[i].scope == SCOPE_DEVICE && p->ops[i].phase == PHASE_UNKNOWN)
			d = &p->ops[i];
	assert_ptr_equal(compare_find_op(p, SCOPE_DEVICE, PHASE_UNKNOWN, (struct op_key){d->name, d->group, true}), d);
	assert_non_null(d->s[0]);
	assert_non_null(d->s[1]);
	assert_int_equal(d->delta_count, 0);
	assert_int_equal(d->delta_total_ns, d->s[1]->total_ns - d->s[0]->total_ns);
	compare_free(cmp);
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
		cmocka_unit_test(test_collectives_real_level1),
		cmocka_unit_test(test_collectives_and_types_without_trace),
		cmocka_unit_test(test_collectives_generated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
