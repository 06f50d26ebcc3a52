/* SPDX-License-Identifier: MIT */
/* Class B (msprof) layouts, built from the demo's Class A rank 0 so the truth is the
 * Class A reading of the same bytes: a PROF_* export with the timeline and op_summary in
 * slices and Class B header spellings, the legacy device_<id>/summary + timeline layout,
 * and Class B content under Class A names. Every layout must give the same events, the
 * same kernel rows and the same metrics as the original. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "capture.h"
#include "json_scan.h"
#include "testutil.h"
#include "trace.h"

#define DEMO_RANK0 "fixtures/demo/dp0_pp0_tp0_dcp0_ep0_rank0_20250109074811012_ascend_pt"

struct demo {
	char *trace, *kernel, *opstat;
	size_t trace_len, kernel_len, opstat_len;
	char *tmp;
};

static char *demo_file(const char *name, size_t *len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s/ASCEND_PROFILER_OUTPUT/%s", getenv("ASCPROF_SRCDIR"), DEMO_RANK0,
		 name);
	char *text = tu_read(path, len);
	assert_non_null(text);
	return text;
}

static int setup(void **state)
{
	struct demo *d = calloc(1, sizeof *d);
	d->trace = demo_file("trace_view.json", &d->trace_len);
	d->kernel = demo_file("kernel_details.csv", &d->kernel_len);
	d->opstat = demo_file("op_statistic.csv", &d->opstat_len);
	d->tmp = tu_tmpdir();
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct demo *d = *state;
	tu_rmtree(d->tmp);
	free(d->tmp);
	free(d->trace);
	free(d->kernel);
	free(d->opstat);
	free(d);
	return 0;
}

/* The trace as two valid arrays, cut between elements at about `at` of the elements. */
static void split_trace(const struct demo *d, double at, char **a, char **b)
{
	struct jscan js;
	struct sbuf err = SBUF_INIT;
	assert_true(jscan_open(&js, d->trace, d->trace_len, &err));
	size_t starts[1 << 14], n = 0, s, e;
	while (jscan_next(&js, &s, &e) == JSCAN_ELEMENT && n < sizeof starts / sizeof starts[0])
		starts[n++] = s;
	assert_true(n > 10);
	size_t cut = starts[(size_t)((double)n * at)];
	/* the element before the cut ends at the last '}' before it */
	size_t end_a = cut;
	while (end_a > 0 && d->trace[end_a - 1] != '}')
		end_a--;
	size_t first = starts[0];
	assert_true(asprintf(a, "[%.*s]\n", (int)(end_a - first), d->trace + first) > 0);
	size_t close = d->trace_len;
	while (close > 0 && d->trace[close - 1] != ']')
		close--;
	assert_true(asprintf(b, "[\n%.*s", (int)(close - cut), d->trace + cut) > 0);
}

/* The kernel table with Class B header spellings, as two slices (the header in both). */
static void split_kernels(const struct demo *d, char **a, char **b)
{
	static const char *renames[][2] = {
		{"Name", "Op Name"}, {"Type", "OP Type"}, {"Accelerator Core", "Task Type"},
		{"Start Time(us)", "Task Start Time(us)"}, {"Duration(us)", "Task Duration(us)"},
		{"Wait Time(us)", "Task Wait Time(us)"}, {"Block Dim", "Block Num"},
		{"Mix Block Dim", "Mix Block Num"},
	};
	const char *nl = memchr(d->kernel, '\n', d->kernel_len);
	assert_non_null(nl);
	char header[8192] = "";
	size_t hl = (size_t)(nl - d->kernel);
	char *line = strndup(d->kernel, hl);
	for (char *cell = strtok(line, ","); cell; cell = strtok(NULL, ",")) {
		const char *out = cell;
		for (size_t k = 0; k < sizeof renames / sizeof renames[0]; k++)
			if (!strcmp(cell, renames[k][0]))
				out = renames[k][1];
		if (header[0])
			strcat(header, ",");
		strcat(header, out);
	}
	free(line);
	/* rows: no quoted newlines in the demo's kernel table, so lines are rows */
	const char *rows = nl + 1, *end = d->kernel + d->kernel_len;
	size_t nrows = 0;
	for (const char *p = rows; p < end; p++)
		nrows += *p == '\n';
	const char *mid = rows;
	for (size_t i = 0; i < nrows / 2; i++)
		mid = memchr(mid, '\n', (size_t)(end - mid)) + 1;
	assert_true(asprintf(a, "%s\n%.*s", header, (int)(mid - rows), rows) > 0);
	assert_true(asprintf(b, "%s\n%.*s", header, (int)(end - mid), mid) > 0);
}

struct loaded {
	struct capture *cap;
	struct analysis *an;
};

static void load(struct loaded *l, const char *path)
{
	l->cap = capture_open(path, NULL);
	assert_true(l->cap->usable);
	capture_load(l->cap);
	l->an = analysis_run(l->cap);
}

static void unload(struct loaded *l)
{
	analysis_free(l->an);
	capture_free(l->cap);
}

static bool has_diag(const struct capture *cap, const char *file_part, const char *msg_part)
{
	for (size_t i = 0; i < cap->diags.n; i++) {
		const struct diag *dg = &cap->diags.items[i];
		if (dg->file && strstr(dg->file, file_part) && strstr(dg->msg, msg_part))
			return true;
	}
	return false;
}

/* The same events, kernel rows and headline metrics as the Class A original. */
static void assert_same_as_demo(const struct loaded *got, size_t got_rank_index)
{
	char orig_path[4096];
	snprintf(orig_path, sizeof orig_path, "%s/%s", getenv("ASCPROF_SRCDIR"), DEMO_RANK0);
	struct loaded orig;
	load(&orig, orig_path);
	const struct rank_store *a = &orig.cap->ranks[0].store, *b = &got->cap->ranks[got_rank_index].store;
	assert_int_equal(b->n_ev, a->n_ev);
	assert_int_equal(b->n_ctr, a->n_ctr);
	assert_int_equal(b->n_lanes, a->n_lanes);
	assert_int_equal(b->n_links, a->n_links);
	for (size_t ev = 0; ev < a->n_ev; ev++) {
		assert_true(store_ts(a, ev) == store_ts(b, ev));
		assert_true(store_dur(a, ev) == store_dur(b, ev));
		assert_string_equal(store_ev_name(a, ev), store_ev_name(b, ev));
	}
	const struct csv_table *ka = orig.cap->ranks[0].by_kind[CSV_KERNEL];
	const struct csv_table *kb = got->cap->ranks[got_rank_index].by_kind[CSV_KERNEL];
	assert_non_null(ka);
	assert_non_null(kb);
	assert_int_equal(kb->nrows, ka->nrows);
	for (size_t r = 0; r < ka->nrows; r++) {
		int64_t x, y;
		assert_true(csvt_time(ka, r, COL_DURATION, &x) && csvt_time(kb, r, COL_DURATION, &y));
		assert_true(x == y);
		assert_string_equal(csvt_str(ka, r, COL_NAME), csvt_str(kb, r, COL_NAME));
	}
	const struct rank_analysis *ra = &orig.an->ranks[0], *rb = NULL;
	for (size_t i = 0; i < got->an->n_ranks; i++)
		if (got->an->ranks[i].rank_index == got_rank_index)
			rb = &got->an->ranks[i];
	assert_non_null(rb);
	static const enum metric_id same[] = {M_WALL_US, M_NPU_BUSY_US, M_COMPUTE_US, M_NPU_IDLE_US,
					      M_HOST_ONLY_US, M_COMM_US, M_STEPS, M_DISPATCH_OPS};
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
		assert_true(ra->have[same[i]] && rb->have[same[i]]);
		if (ra->v[same[i]] != rb->v[same[i]])
			fail_msg("%s: Class A %.3f, this layout %.3f", metric_defs[same[i]].key, ra->v[same[i]],
				 rb->v[same[i]]);
	}
	unload(&orig);
}

static void test_sliced_export_with_class_b_headers(void **state)
{
	struct demo *d = *state;
	char *t0, *t1, *k0, *k1;
	split_trace(d, 0.6, &t0, &t1);
	split_kernels(d, &k0, &k1);
	char root[4096];
	snprintf(root, sizeof root, "%s/sliced/PROF_000001_20260101000000000_ABCDEFGH", d->tmp);
	const char *out = "mindstudio_profiler_output";
	char rel[512];
	free(tu_write_str(root, "device_3/start_info.3", "{}"));
	snprintf(rel, sizeof rel, "%s/msprof_slice_0_20260101000001.json", out);
	free(tu_write_str(root, rel, t0));
	snprintf(rel, sizeof rel, "%s/msprof_slice_1_20260101000002.json", out);
	free(tu_write_str(root, rel, t1));
	snprintf(rel, sizeof rel, "%s/op_summary_slice_0_20260101000001.csv", out);
	free(tu_write_str(root, rel, k0));
	snprintf(rel, sizeof rel, "%s/op_summary_slice_1_20260101000002.csv", out);
	free(tu_write_str(root, rel, k1));
	snprintf(rel, sizeof rel, "%s/op_statistic_20260101000001.csv", out);
	free(tu_write(root, rel, d->opstat, d->opstat_len));
	snprintf(rel, sizeof rel, "%s/memory_record_20260101000001.csv", out);
	free(tu_write_str(root, rel, "")); /* 0 bytes: reported and skipped */

	struct loaded l;
	char top[4096];
	snprintf(top, sizeof top, "%s/sliced", d->tmp);
	load(&l, top);
	assert_int_equal(l.cap->n_ranks, 1);
	const struct rank_data *rd = &l.cap->ranks[0];
	assert_int_equal(rd->plan->cls, CAPTURE_CLASS_B);
	assert_int_equal(rd->plan->rank, 3); /* from device_3/ */
	assert_int_equal(rd->plan->rank_source, RANK_FROM_DEVICE);
	assert_int_equal(rd->store.trace.n_parts, 2);
	assert_true(rd->store.trace.parts[1].base == rd->store.trace.parts[0].size);
	assert_true(has_diag(l.cap, "memory_record_20260101000001.csv", "empty file"));
	assert_same_as_demo(&l, 0);

	/* drill-down reaches the second slice: args of its last event, cells of its last row */
	const struct rank_store *rs = &rd->store;
	size_t last_ev = 0;
	for (size_t ev = 0; ev < rs->n_ev; ev++)
		if (store_ev_off(rs, ev) > store_ev_off(rs, last_ev))
			last_ev = ev;
	assert_true(store_ev_off(rs, last_ev) >= rs->trace.parts[1].base);
	struct sbuf raw = SBUF_INIT;
	assert_int_equal(trace_element_json(rs, store_ev_off(rs, last_ev), &raw), 0);
	assert_true(strstr(t1, sbuf_str(&raw)) != NULL);
	sbuf_free(&raw);
	const struct csv_table *k = rd->by_kind[CSV_KERNEL];
	assert_int_equal(k->n_parts, 2);
	size_t last_row = k->nrows - 1;
	assert_non_null(strstr(csvt_row_path(k, last_row), "op_summary_slice_1_"));
	assert_non_null(strstr(csvt_row_path(k, 0), "op_summary_slice_0_"));
	struct csv_cells cells;
	assert_int_equal(csvt_row_cells(k, last_row, &cells), 0);
	assert_int_equal(cells.n, k->ncols);
	assert_string_equal(cells.cells[1], csvt_str(k, last_row, COL_NAME));
	csvt_cells_free(&cells);
	/* the first slice's last row ends at its file's end, not inside the next slice */
	size_t first_tail = k->parts[1].first_row - 1;
	assert_int_equal(csvt_row_cells(k, first_tail, &cells), 0);
	assert_string_equal(cells.cells[1], csvt_str(k, first_tail, COL_NAME));
	csvt_cells_free(&cells);
	unload(&l);
	free(t0);
	free(t1);
	free(k0);
	free(k1);
}

/* More than 256 slices (issue 22): all are read, in slice order by number (slice 10 after
 * slice 9, not after slice 1), and a gap in the numbers is named. 300 slices of one event
 * each, slice k's event at ts k ms; slice 7 left out. */
static void test_many_slices_in_number_order(void **state)
{
	struct demo *d = *state;
	char root[4096];
	snprintf(root, sizeof root, "%s/many/PROF_000001_20260101000000000_ABCDEFGH", d->tmp);
	const int n = 300, gap = 7;
	for (int k = 0; k < n; k++) {
		if (k == gap)
			continue;
		char rel[256], text[256];
		snprintf(rel, sizeof rel, "mindstudio_profiler_output/msprof_slice_%d_20260101%06d.json", k, 999999 - k);
		snprintf(text, sizeof text,
			 "[{\"ph\": \"X\", \"name\": \"s%d\", \"pid\": 1, \"tid\": 1, \"ts\": \"%d000.0\", \"dur\": 1}]", k, k);
		free(tu_write_str(root, rel, text));
	}
	struct loaded l;
	char top[4096];
	snprintf(top, sizeof top, "%s/many", d->tmp);
	load(&l, top);
	const struct rank_store *rs = &l.cap->ranks[0].store;
	assert_int_equal(rs->n_ev, n - 1);
	assert_int_equal(rs->trace.n_parts, (size_t)n - 1);
	/* the parts in slice order: part i holds slice i (i + 1 past the gap) */
	for (size_t i = 0; i < rs->trace.n_parts; i++) {
		char want[64];
		snprintf(want, sizeof want, "/msprof_slice_%zu_", i < (size_t)gap ? i : i + 1);
		assert_non_null(strstr(rs->trace.parts[i].path, want));
	}
	/* every slice's event is there, with its offset inside its own part */
	for (size_t ev = 0; ev < rs->n_ev; ev++) {
		int k = atoi(store_ev_name(rs, ev) + 1);
		assert_true(store_ts(rs, ev) == (int64_t)k * 1000000);
		size_t part = (size_t)(k < gap ? k : k - 1);
		uint64_t off = store_ev_off(rs, ev);
		assert_true(off >= rs->trace.parts[part].base && off - rs->trace.parts[part].base < rs->trace.parts[part].size);
	}
	assert_true(has_diag(l.cap, "msprof_slice_8_", "slice 7 is missing (read on without it)"));
	assert_false(has_diag(l.cap, "msprof_slice", "only the first"));
	unload(&l);
}

static void test_legacy_device_layout(void **state)
{
	struct demo *d = *state;
	char *k0, *k1;
	split_kernels(d, &k0, &k1);
	char root[4096];
	snprintf(root, sizeof root, "%s/legacy/PROF_000002_20260101000000000_LEGACYAB", d->tmp);
	free(tu_write(root, "device_0/timeline/msprof_20260101000001.json", d->trace, d->trace_len));
	/* one op_summary, both halves, with one header */
	char *whole;
	const char *body = strchr(k1, '\n') + 1;
	assert_true(asprintf(&whole, "%s%s", k0, body) > 0);
	free(tu_write_str(root, "device_0/summary/op_summary_20260101000001.csv", whole));
	free(whole);
	struct loaded l;
	char top[4096];
	snprintf(top, sizeof top, "%s/legacy", d->tmp);
	load(&l, top);
	assert_int_equal(l.cap->n_ranks, 1);
	assert_int_equal(l.cap->ranks[0].plan->cls, CAPTURE_CLASS_B);
	assert_int_equal(l.cap->ranks[0].plan->rank, 0);
	assert_true(has_diag(l.cap, "device_0", "legacy summary/ and timeline/"));
	assert_same_as_demo(&l, 0);
	unload(&l);
	free(k0);
	free(k1);
}

/* A wrapper renamed Class B files to Class A names: the content decides. */
static void test_class_b_content_under_class_a_names(void **state)
{
	struct demo *d = *state;
	char *k0, *k1, *whole;
	split_kernels(d, &k0, &k1);
	assert_true(asprintf(&whole, "%s%s", k0, strchr(k1, '\n') + 1) > 0);
	char root[4096];
	snprintf(root, sizeof root, "%s/renamed/x_rank0_ascend_pt", d->tmp);
	free(tu_write(root, "ASCEND_PROFILER_OUTPUT/trace_view.json", d->trace, d->trace_len));
	free(tu_write_str(root, "ASCEND_PROFILER_OUTPUT/kernel_details.csv", whole));
	free(tu_write_str(root, "ASCEND_PROFILER_OUTPUT/analyse.done", ""));
	struct loaded l;
	load(&l, root);
	assert_int_equal(l.cap->ranks[0].plan->cls, CAPTURE_CLASS_A);
	assert_int_equal(l.cap->ranks[0].by_kind[CSV_KERNEL]->kind, CSV_KERNEL);
	assert_same_as_demo(&l, 0);
	unload(&l);
	free(whole);
	free(k0);
	free(k1);
}

/* And the reverse: Class A's kernel_details content under msprof's op_summary name. */
static void test_class_a_content_under_class_b_names(void **state)
{
	struct demo *d = *state;
	char root[4096];
	snprintf(root, sizeof root, "%s/reverse/PROF_000003_20260101000000000_REVERSEX", d->tmp);
	free(tu_write(root, "mindstudio_profiler_output/msprof_20260101000001.json", d->trace, d->trace_len));
	free(tu_write(root, "mindstudio_profiler_output/op_summary_20260101000001.csv", d->kernel, d->kernel_len));
	struct loaded l;
	load(&l, root);
	assert_int_equal(l.cap->ranks[0].plan->cls, CAPTURE_CLASS_B);
	assert_non_null(l.cap->ranks[0].by_kind[CSV_KERNEL]);
	assert_same_as_demo(&l, 0);
	unload(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sliced_export_with_class_b_headers),
		cmocka_unit_test(test_many_slices_in_number_order),
		cmocka_unit_test(test_legacy_device_layout),
		cmocka_unit_test(test_class_b_content_under_class_a_names),
		cmocka_unit_test(test_class_a_content_under_class_b_names),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
