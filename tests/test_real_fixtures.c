/* SPDX-License-Identifier: MIT */
/* Every file in ../shared/fixtures-real loads without a crash, with the counts that
 * matter equal to what Python's json and csv modules read from the same bytes
 * (tests/real_expect.inc, made by tests/tools/real_expect.py). Skipped when the real
 * fixtures are absent (a fresh clone has none). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include "analysis.h"
#include "capture.h"
#include "comm_json.h"
#include "kernel_timeline.h"
#include "lanes.h"
#include "sbuf.h"
#include "memory.h"
#include "csv_table.h"
#include "trace.h"
#include "testutil.h"

struct lane_count {
	const char *process;
	int lanes;
};
struct real_trace {
	const char *rel;
	long x, m, s, f, c, total;
	struct lane_count lanes[16];
};
struct real_csv {
	const char *rel;
	long rows, cols;
	const char *kind; /* what the file name says, "" when it says nothing */
};
struct real_mem {
	const char *rel, *component;
	double peak_allocated_mb, peak_reserved_mb; /* NAN when the component has none */
};
struct real_comm {
	const char *rel;
	int matrix, cluster;
	long steps, ops, totals, bws, bins, links;
	long long transit_ns, wait_ns, sync_ns;
	double size_mb, link_mb;
};
#include "real_expect.inc"

static void test_every_real_trace(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(root, "");
	for (size_t i = 0; i < sizeof real_traces / sizeof real_traces[0]; i++) {
		const struct real_trace *e = &real_traces[i];
		char *path = tu_real(e->rel);
		assert_non_null(path);
		struct rank_store rs;
		struct diag_list dl;
		store_init(&rs);
		diag_init(&dl);
		assert_int_equal(trace_load(&rs, path, NULL, &dl), 0);
		uint64_t total = rs.ph.other;
		for (int c = 0; c < 128; c++)
			total += rs.ph.by_char[c];
		if (rs.ph.by_char['X'] != (uint64_t)e->x || rs.ph.by_char['M'] != (uint64_t)e->m ||
		    rs.ph.by_char['s'] != (uint64_t)e->s || rs.ph.by_char['f'] != (uint64_t)e->f ||
		    rs.ph.by_char['C'] != (uint64_t)e->c || total != (uint64_t)e->total)
			fail_msg("%s: counts X %llu M %llu s %llu f %llu C %llu total %llu", e->rel,
				 (unsigned long long)rs.ph.by_char['X'], (unsigned long long)rs.ph.by_char['M'],
				 (unsigned long long)rs.ph.by_char['s'], (unsigned long long)rs.ph.by_char['f'],
				 (unsigned long long)rs.ph.by_char['C'], (unsigned long long)total);
		assert_int_equal(rs.n_ev, e->x);
		/* lanes per process name, "" for lanes whose pid has no process_name */
		size_t expected_lanes = 0;
		for (size_t k = 0; k < 16 && e->lanes[k].process; k++) {
			int have = 0;
			for (size_t l = 0; l < rs.n_lanes; l++)
				have += !strcmp(store_str(&rs, rs.lanes[l].process_name), e->lanes[k].process);
			if (have != e->lanes[k].lanes)
				fail_msg("%s: %d lanes of \"%s\", expected %d", e->rel, have,
					 e->lanes[k].process, e->lanes[k].lanes);
			expected_lanes += (size_t)e->lanes[k].lanes;
		}
		assert_int_equal(rs.n_lanes, expected_lanes);
		assert_false(rs.trace.truncated);
		store_free(&rs);
		diag_free(&dl);
		free(path);
	}
	free(root);
}

static void test_every_real_csv(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(root, "");
	for (size_t i = 0; i < sizeof real_csvs / sizeof real_csvs[0]; i++) {
		const struct real_csv *e = &real_csvs[i];
		char *path = tu_real(e->rel);
		assert_non_null(path);
		struct diag_list dl;
		diag_init(&dl);
		struct csv_table *t = csvt_load(path, &dl);
		assert_non_null(t);
		if ((long)t->nrows != e->rows || (long)t->ncols != e->cols)
			fail_msg("%s: %zu rows %zu columns, expected %ld and %ld", e->rel, t->nrows, t->ncols,
				 e->rows, e->cols);
		if (e->kind[0] && strcmp(csv_kind_name(t->kind), e->kind))
			fail_msg("%s: recognised as %s by its columns, named as %s", e->rel,
				 csv_kind_name(t->kind), e->kind);
		csvt_free(t);
		diag_free(&dl);
		free(path);
	}
	free(root);
}

/* Every communication file: entries, transports, size bins, links and the summed times and
 * sizes, against Python's reading (Decimal: the times are exact to the ns). */
static void test_every_real_comm_file(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(root, "");
	assert_true(sizeof real_comms / sizeof real_comms[0] >= 21);
	for (size_t i = 0; i < sizeof real_comms / sizeof real_comms[0]; i++) {
		const struct real_comm *e = &real_comms[i];
		char *path = tu_real(e->rel);
		struct comm_data cd = {0};
		struct diag_list dl;
		diag_init(&dl);
		assert_int_equal(comm_json_load(&cd, path, 0, &dl), 0);
		assert_int_equal(diag_count(&dl, DIAG_WARN), 0);
		const struct comm_file *f = &cd.files[0];
		long totals = 0, bws = 0, bins = 0;
		long long t[COMM_T_COUNT] = {0};
		double size = 0, link_size = 0;
		for (size_t k = 0; k < cd.n_ops; k++) {
			const struct comm_op *op = &cd.ops[k];
			if (op->entry == COMM_ENTRY_TOTAL) {
				totals++;
				continue;
			}
			for (int x = 0; x < COMM_T_COUNT; x++)
				t[x] += op->t[x];
			bws += op->n_bw;
			for (uint32_t b = 0; b < op->n_bw; b++) {
				bins += cd.bws[op->bw0 + b].n_bins;
				size += cd.bws[op->bw0 + b].size_mb;
			}
		}
		for (size_t k = 0; k < cd.n_links; k++)
			link_size += cd.links[k].size_mb;
		if (f->matrix != e->matrix || f->cluster != e->cluster || (long)f->n_steps != e->steps ||
		    (long)cd.n_ops != e->ops || totals != e->totals || bws != e->bws || bins != e->bins ||
		    (long)cd.n_links != e->links || t[COMM_T_TRANSIT] != e->transit_ns ||
		    t[COMM_T_WAIT] != e->wait_ns || t[COMM_T_SYNC] != e->sync_ns ||
		    !tu_close(size, e->size_mb, 1e-9, 1e-9) || !tu_close(link_size, e->link_mb, 1e-9, 1e-9))
			fail_msg("%s: matrix %d cluster %d steps %zu ops %zu totals %ld bws %ld bins %ld links %zu "
				 "transit %lld wait %lld sync %lld size %.6f link size %.6f",
				 e->rel, f->matrix, f->cluster, f->n_steps, cd.n_ops, totals, bws, bins, cd.n_links,
				 t[COMM_T_TRANSIT], t[COMM_T_WAIT], t[COMM_T_SYNC], size, link_size);
		assert_int_equal(f->skipped, 0);
		comm_data_free(&cd);
		diag_free(&dl);
		free(path);
	}
	free(root);
}

static bool diag_at(struct diag_list *dl, const char *needle, long line)
{
	for (size_t i = 0; i < dl->n; i++)
		if (strstr(dl->items[i].msg, needle) && (line < 0 || dl->items[i].line == line))
			return true;
	return false;
}

/* The damaged real files: a ragged row at line 17 (31 of 32 fields, found with python's
 * csv module) and Excel-rewritten timestamps (grep -c "E+" gives 30 in memory_record). */
static void test_damaged_real_files(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(k, "msinsight/server/src/test/test_data/test_rank_0/ASCEND_PROFILER_OUTPUT/kernel_details.csv");
	struct diag_list dl;
	diag_init(&dl);
	struct csv_table *t = csvt_load(k, &dl);
	assert_non_null(t);
	assert_int_equal(t->ragged_rows, 1);
	assert_true(diag_at(&dl, "31 cells under a 32-column header", 17));
	csvt_free(t);
	diag_free(&dl);
	free(k);

	char *m = tu_real("msinsight/server/src/test/test_data/test_rank_1/ASCEND_PROFILER_OUTPUT/memory_record.csv");
	assert_non_null(m);
	diag_init(&dl);
	t = csvt_load(m, &dl);
	assert_non_null(t);
	assert_int_equal(t->excel_numbers, 30);
	assert_true(diag_at(&dl, "exponent form", 2));
	csvt_free(t);
	diag_free(&dl);
	free(m);
}

/* 0-byte msprof outputs: each is warned and skipped, and the rest of the capture loads. */
static void test_zero_byte_files_are_skipped(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(dir, "msinsight/server/src/test/test_data/msprof/normal/mindstudio_profiler_output");
	char *json = tu_real("msinsight/server/src/test/test_data/msprof/normal/mindstudio_profiler_output/msprof_20230919172305.json");
	struct rank_store rs;
	struct diag_list dl;
	store_init(&rs);
	diag_init(&dl);
	assert_int_equal(trace_load(&rs, json, NULL, &dl), -1);
	assert_true(diag_at(&dl, "empty file (0 bytes)", -1));
	store_free(&rs);
	diag_free(&dl);
	struct capture *cap = capture_open(dir, NULL);
	capture_load(cap);
	assert_int_equal(cap->n_ranks, 1);
	size_t empties = 0;
	for (size_t i = 0; i < cap->diags.n; i++)
		empties += strstr(cap->diags.items[i].msg, "empty file (0 bytes)") != NULL;
	assert_int_equal(empties, 4); /* the four files of that directory, each named once */
	capture_free(cap);
	free(json);
	free(dir);
}

/* A whole real two-rank capture through the capture loader. */
static void test_level1_capture(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(dir, "msinsight/test/data/pytorch/text/level1");
	struct capture *cap = capture_open(dir, NULL);
	assert_true(cap->usable);
	capture_load(cap);
	assert_int_equal(cap->n_ranks, 2);
	for (size_t r = 0; r < 2; r++) {
		assert_int_equal(capture_rank_state(&cap->ranks[r]), RANK_READY);
		assert_non_null(cap->ranks[r].by_kind[CSV_KERNEL]);
		assert_non_null(cap->ranks[r].by_kind[CSV_STEP_TRACE]);
		assert_non_null(cap->ranks[r].by_kind[CSV_OP_STATISTIC]);
		assert_non_null(cap->ranks[r].by_kind[CSV_OPERATOR_DETAILS]);
		/* every flow end lands on an event; HostToDevice ids of 20 digits included */
		assert_int_equal(cap->ranks[r].store.unmatched_flows, 0);
		assert_int_equal(cap->ranks[r].store.n_links, 611);
	}
	/* kernel_details rows share the trace's clock: the first row's start is a trace ts */
	const struct csv_table *k = cap->ranks[0].by_kind[CSV_KERNEL];
	const struct rank_store *rs = &cap->ranks[0].store;
	size_t matched = 0;
	for (size_t row = 0; row < k->nrows; row++) {
		int64_t ts;
		if (!csvt_time(k, row, COL_START, &ts))
			continue;
		for (size_t e = 0; e < rs->n_ev; e++)
			if (store_ts(rs, e) == ts) {
				matched++;
				break;
			}
	}
	/* real-data-notes.md: 188 of 191 rows have an X event with the identical ts */
	assert_int_equal(matched, 188);
	capture_free(cap);
	free(dir);
}

/* Where the bottleneck evidence points on the level1 capture: the longest host sync is one
 * aten::item of 91.951 ms (the _local_scalar_dense inside it is shorter and must not win);
 * the task selected for the longest idle gap starts where the gap ends, on a device lane;
 * copy and exposed-communication events overlap their intervals. */
static void test_level1_landmarks(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(dir, "msinsight/test/data/pytorch/text/level1");
	struct capture *cap = capture_open(dir, NULL);
	capture_load(cap);
	struct analysis *an = analysis_run(cap);
	const struct rank_analysis *ra = &an->ranks[0];
	const struct rank_store *rs = &cap->ranks[ra->rank_index].store;
	uint32_t ev = query_landmark_event(ra, rs, LANDMARK_SYNC);
	assert_int_not_equal(ev, UINT32_MAX);
	assert_string_equal(store_ev_name(rs, ev), "aten::item");
	assert_int_equal((store_dur(rs, ev) + 500) / 1000, 91951); /* us */
	assert_int_equal(store_ts(rs, ev), ra->longest_sync[0]);
	assert_int_equal(store_ts(rs, ev) + store_dur(rs, ev), ra->longest_sync[1]);
	ev = query_landmark_event(ra, rs, LANDMARK_IDLE);
	assert_int_not_equal(ev, UINT32_MAX);
	assert_int_equal(store_ts(rs, ev), ra->longest_idle[1]);
	assert_true(store_ev_lane(rs, ev)->group == LANE_DEVICE || store_ev_lane(rs, ev)->group == LANE_COMM);
	const int64_t *ivs[2] = {ra->longest_copy, ra->longest_exposed};
	enum landmark lms[2] = {LANDMARK_COPY, LANDMARK_EXPOSED};
	for (int i = 0; i < 2; i++) {
		ev = query_landmark_event(ra, rs, lms[i]);
		assert_int_not_equal(ev, UINT32_MAX);
		assert_true(store_ts(rs, ev) < ivs[i][1] && store_ts(rs, ev) + store_dur(rs, ev) > ivs[i][0]);
		assert_int_equal(ra->cls[ev].cat, lms[i] == LANDMARK_COPY ? CAT_COPY : CAT_COMM);
	}
	/* host self time: never negative, never above the op's total, and the two sync ops
	 * that share 92 ms split it (aten::item keeps about 1 ms of its own) */
	int64_t *self = query_host_self_ns(rs);
	size_t checked = 0;
	for (size_t i = 0; i < ra->n_ops; i++) {
		const struct op_stat *o = &ra->ops[i];
		if (o->scope != SCOPE_HOST || o->phase != PHASE_UNKNOWN)
			continue;
		int64_t s = self[strtab_find(rs->strs, o->name, strlen(o->name))];
		assert_true(s >= 0 && s <= o->total_ns);
		if (!strcmp(o->name, "aten::item"))
			assert_true(s < o->total_ns / 50);
		if (!strcmp(o->name, "aten::_local_scalar_dense"))
			assert_true(s > o->total_ns * 9 / 10);
		checked++;
	}
	assert_true(checked > 100);
	free(self);
	/* the events overlapping a window, against every event of the lane checked one by one,
	 * on the lanes of rank 0 at 200 windows: the Python lane nests improperly (a
	 * record_function op outlives the frames it started in) and must still be right */
	uint64_t seed = 12345;
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *l = &rs->lanes[li];
		for (int w = 0; w < 200 && l->n_events; w++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			int64_t t0 = rs->window_start + (int64_t)((seed >> 33) % (uint64_t)(rs->window_end - rs->window_start));
			int64_t t1 = t0 + 1 + (int64_t)((seed >> 13) % 5000000);
			size_t want = 0, want_before = 0, before;
			for (uint32_t k = 0; k < l->n_events; k++) {
				int64_t a = store_ts(rs, l->events[k]), b = a + store_dur(rs, l->events[k]);
				want += (a >= t0 && a < t1) || (a < t0 && b > t0);
				want_before += a < t0 && b > t0;
			}
			assert_int_equal(lanes_events_in(rs, l, t0, t1, &before), want);
			assert_int_equal(before, want_before);
		}
	}
	analysis_free(an);
	capture_free(cap);
	free(dir);
}

/* A rank without a trace gets a timeline from its kernel table: one event per row with a
 * start and a duration, at the row's exact start, a lane per Stream ID named as the
 * trace's ("Stream 2"), the durations adding up to the table's. */
static void test_kernel_table_timeline(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(dir, "msinsight/test/st/level2");
	struct capture *cap = capture_open(dir, NULL);
	capture_load(cap);
	const struct rank_data *rd = &cap->ranks[0];
	assert_false(rd->store.has_events);
	const struct csv_table *k = rd->by_kind[CSV_KERNEL];
	assert_non_null(k);
	struct kernel_timeline *kt = kernel_timeline_build(k);
	assert_non_null(kt);
	assert_int_equal(kt->rows_used + kt->rows_skipped, k->nrows);
	assert_int_equal(kt->store.n_ev, kt->rows_used);
	int64_t want_total = 0, got_total = 0, first = INT64_MAX;
	size_t streams = 0;
	const char *seen[64];
	for (size_t r = 0; r < k->nrows; r++) {
		int64_t ts, dur;
		if (!csvt_time(k, r, COL_START, &ts) || !csvt_time(k, r, COL_DURATION, &dur))
			continue;
		want_total += dur;
		first = ts < first ? ts : first;
		const char *s = csvt_str(k, r, COL_STREAM_ID);
		bool dup = false;
		for (size_t i = 0; i < streams && !dup; i++)
			dup = !strcmp(seen[i], s);
		if (!dup && streams < 64)
			seen[streams++] = s;
	}
	for (size_t e = 0; e < kt->store.n_ev; e++)
		got_total += store_dur(&kt->store, e);
	assert_int_equal(got_total, want_total);
	assert_int_equal(kt->store.window_start, first);
	assert_int_equal(kt->store.n_lanes, streams);
	for (size_t li = 0; li < kt->store.n_lanes; li++) {
		const struct lane *l = &kt->store.lanes[li];
		assert_int_equal(l->group, LANE_DEVICE);
		assert_true(!strncmp(store_str(&kt->store, l->thread_name), "Stream ", 7));
	}
	/* the args come back from the row, through the tables source, with the row's line;
	 * the entry text is that row as the trace element it stands for */
	struct sbuf args = SBUF_INIT;
	assert_ptr_equal(capture_source_of(&kt->store), &source_tables);
	assert_int_equal(capture_event_args(&kt->store, 0, &args), 5);
	assert_non_null(strstr(sbuf_str(&args), "file: kernel_details.csv"));
	char want_line[40];
	snprintf(want_line, sizeof want_line, "line: %u\n", csvt_line(k, (size_t)store_ev_off(&kt->store, 0)));
	assert_non_null(strstr(sbuf_str(&args), want_line));
	assert_int_equal(capture_entry_text(&kt->store, store_ev_off(&kt->store, 0), &args), 0);
	assert_non_null(strstr(sbuf_str(&args), "\"cat\":\"kernel_details\""));
	assert_non_null(strstr(sbuf_str(&args), store_ev_name(&kt->store, 0)));
	sbuf_free(&args);
	kernel_timeline_free(kt);
	/* a rank whose kernel table is absent has none */
	assert_null(kernel_timeline_build(cap->ranks[1].by_kind[CSV_KERNEL]));
	capture_free(cap);
	free(dir);
}

/* A lone kernel_details.csv (issue 40, item 7): the report's op heading says the rows are
 * the tables' own, not "(trace; CSV total beside it)" without a trace. */
static void test_lone_kernel_table_heading(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(dir, "msinsight/server/src/test/test_data/test_rank_1/ASCEND_PROFILER_OUTPUT/kernel_details.csv");
	struct capture *cap = capture_open(dir, NULL);
	capture_load(cap);
	struct analysis *an = analysis_run(cap);
	assert_int_equal(an->n_ranks, 1);
	assert_false(an->ranks[0].has_trace);
	char *text = tu_report_text(an);
	assert_null(strstr(text, "(trace; CSV total beside it)"));
	assert_non_null(strstr(text, "top ops by total time (kernel table and operator_details rows: no trace)"));
	free(text);
	analysis_free(an);
	capture_free(cap);
	free(dir);
}

static const struct real_comm *real_comm_of(const char *rel)
{
	for (size_t i = 0; i < sizeof real_comms / sizeof real_comms[0]; i++)
		if (!strcmp(real_comms[i].rel, rel))
			return &real_comms[i];
	fail_msg("no expectation for %s", rel);
	return NULL;
}

/* The communication analysis of the level1 capture against the sums Python read: the
 * ratios of summed times, the sizes, and every matrix link of both ranks. */
static void test_level1_communication(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(dir, "msinsight/test/data/pytorch/text/level1");
	struct capture *cap = capture_open(dir, NULL);
	capture_load(cap);
	struct analysis *an = analysis_run(cap);
	const struct comm_analysis *ca = an->comm;
	assert_true(ca->present);
	assert_false(ca->from_cluster);
	long long wait = 0, transit = 0, sync = 0;
	double size = 0;
	for (int r = 0; r < 2; r++) {
		char rel[160];
		snprintf(rel, sizeof rel, "msinsight/test/data/pytorch/text/level1/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/communication.json", r);
		const struct real_comm *e = real_comm_of(rel);
		wait += e->wait_ns;
		transit += e->transit_ns;
		sync += e->sync_ns;
		size += e->size_mb;
		const struct rank_analysis *ra = &an->ranks[r];
		assert_true(ra->have[M_COMM_WAIT_RATIO]);
		assert_true(tu_close(ra->v[M_COMM_WAIT_RATIO], (double)e->wait_ns / (double)(e->wait_ns + e->transit_ns), 1e-12, 0));
		assert_true(tu_close(ra->v[M_COMM_SYNC_RATIO], (double)e->sync_ns / (double)(e->sync_ns + e->transit_ns), 1e-12, 0));
		/* HCCS and SDMA carry the same bytes in these files: counted once */
		assert_true(tu_close(ra->v[M_COMM_TRANSIT_MB], e->size_mb / 2, 1e-9, 0));
		assert_int_equal((long)ra->v[M_COMM_SLOW_LINKS], 0);
	}
	assert_int_equal(ca->t[COMM_T_WAIT], wait);
	assert_int_equal(ca->t[COMM_T_TRANSIT], transit);
	assert_int_equal(ca->t[COMM_T_SYNC], sync);
	assert_true(tu_close(ca->wait_ratio, (double)wait / (double)(wait + transit), 1e-12, 0));
	assert_int_equal(ca->entries, 8); /* 4 allReduce per rank; "Total Op Info" left out */
	assert_int_equal(ca->n_ops, 1);
	assert_true(tu_close(ca->tr[COMM_TR_HCCS].size_mb, size / 2, 1e-9, 0));
	/* the matrix: each rank's own row of the allreduce-total entry, 8 links each */
	assert_int_equal(ca->n_groups, 1);
	assert_int_equal(ca->n_links, 16);
	assert_int_equal(ca->groups[0].n_ranks, 8);
	assert_int_equal(ca->groups[0].global[1], 1);
	analysis_free(an);
	capture_free(cap);
	free(dir);
}

/* Peaks per component of every real memory_record / npu_module_mem table, against
 * Python's reading of the same file. */
static void test_every_real_memory_table(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(root, "");
	const char *loaded = NULL;
	struct csv_table *t = NULL;
	struct mem_analysis m = {0};
	struct diag_list dl;
	diag_init(&dl);
	for (size_t i = 0; i < sizeof real_mems / sizeof real_mems[0]; i++) {
		const struct real_mem *e = &real_mems[i];
		if (!loaded || strcmp(loaded, e->rel)) {
			memory_free(&m);
			csvt_free(t);
			char *path = tu_real(e->rel);
			t = csvt_load(path, &dl);
			free(path);
			assert_non_null(t);
			bool modules = t->kind == CSV_NPU_MODULE_MEM;
			memory_analyse(modules ? NULL : t, modules ? t : NULL, NULL, &m);
			loaded = e->rel;
		}
		const struct mem_component *c = NULL;
		const struct mem_component *list = m.record ? m.comps : m.mods;
		size_t n = m.record ? m.n_comps : m.n_mods;
		for (size_t k = 0; k < n; k++)
			if (!strcmp(list[k].name, e->component))
				c = &list[k];
		if (!c)
			fail_msg("%s: no component %s", e->rel, e->component);
		if (isnan(e->peak_allocated_mb) != isnan(c->peak_allocated_mb) ||
		    (!isnan(e->peak_allocated_mb) && fabs(c->peak_allocated_mb - e->peak_allocated_mb) > 1e-9) ||
		    isnan(e->peak_reserved_mb) != isnan(c->peak_reserved_mb) ||
		    (!isnan(e->peak_reserved_mb) && fabs(c->peak_reserved_mb - e->peak_reserved_mb) > 1e-9))
			fail_msg("%s %s: peaks %.6f / %.6f MB, expected %.6f / %.6f", e->rel, e->component,
				 c->peak_allocated_mb, c->peak_reserved_mb, e->peak_allocated_mb, e->peak_reserved_mb);
	}
	memory_free(&m);
	csvt_free(t);
	diag_free(&dl);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_real_trace),
		cmocka_unit_test(test_every_real_csv),
		cmocka_unit_test(test_every_real_comm_file),
		cmocka_unit_test(test_every_real_memory_table),
		cmocka_unit_test(test_damaged_real_files),
		cmocka_unit_test(test_zero_byte_files_are_skipped),
		cmocka_unit_test(test_level1_capture),
		cmocka_unit_test(test_level1_communication),
		cmocka_unit_test(test_level1_landmarks),
		cmocka_unit_test(test_kernel_table_timeline),
		cmocka_unit_test(test_lone_kernel_table_heading),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
