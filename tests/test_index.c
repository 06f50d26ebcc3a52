/* SPDX-License-Identifier: MIT */
/* The trace index (src/load/trace_index.c) at the store level: a store mapped from an index
 * answers every accessor exactly as the store read from the trace, on traces made to use
 * each column layout (start blocks over 4.29 s kept in full, durations over 4.29 s kept
 * aside, counters, flows, metadata, a cut-short file and its message, two slices); a damaged index is
 * rebuilt; a disabled index reads and writes nothing. CSV tables through their own
 * indexes: every cell and message as read from the file. The explorer's timeline index,
 * used in place from its mapping: the same lanes, classes and queries as built. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <stddef.h>

#include "lod.h"
#include "store.h"
#include "trace.h"
#include "testutil.h"
#include "trace_index.h"
#include "xalloc.h"

/* Every accessor of a against b. */
static void assert_same_store(const struct rank_store *a, const struct rank_store *b)
{
	assert_int_equal(a->n_ev, b->n_ev);
	assert_int_equal(strtab_count(a->strs), strtab_count(b->strs));
	for (uint32_t i = 0; i < strtab_count(a->strs); i++)
		assert_string_equal(store_str(a, i), store_str(b, i));
	for (size_t ev = 0; ev < a->n_ev; ev++) {
		assert_int_equal(store_ts(a, ev), store_ts(b, ev));
		assert_int_equal(store_dur(a, ev), store_dur(b, ev));
		assert_int_equal(a->ev_name[ev], b->ev_name[ev]);
		assert_int_equal(store_ev_lane_id(a, ev), store_ev_lane_id(b, ev));
		assert_int_equal(store_ev_attr_id(a, ev), store_ev_attr_id(b, ev));
		assert_int_equal(store_ev_off(a, ev), store_ev_off(b, ev));
	}
	assert_int_equal(a->n_attrs, b->n_attrs);
	assert_memory_equal(a->attrs, b->attrs, a->n_attrs * sizeof *a->attrs);
	assert_int_equal(a->n_lanes, b->n_lanes);
	for (size_t i = 0; i < a->n_lanes; i++) {
		const struct lane *x = &a->lanes[i], *y = &b->lanes[i];
		assert_int_equal(x->n_events, y->n_events);
		assert_int_equal(x->group, y->group);
		assert_int_equal(x->stream, y->stream);
		assert_int_equal(x->process_name, y->process_name);
		assert_int_equal(x->thread_name, y->thread_name);
		assert_int_equal(x->first_ts, y->first_ts);
		assert_int_equal(x->last_end, y->last_end);
		assert_int_equal(x->depth_max, y->depth_max);
		assert_memory_equal(x->events, y->events, x->n_events * sizeof *x->events);
		if (x->n_events) {
			assert_memory_equal(x->depth, y->depth, x->n_events);
			assert_memory_equal(x->block_end, y->block_end,
					    (x->n_events + LANE_BLOCK - 1) / LANE_BLOCK * sizeof *x->block_end);
		}
	}
	assert_int_equal(a->n_ctr, b->n_ctr);
	for (size_t i = 0; i < a->n_ctr; i++) {
		assert_int_equal(a->ctr_ts[i], b->ctr_ts[i]);
		assert_memory_equal(&a->ctr_value[i], &b->ctr_value[i], sizeof(double));
		assert_int_equal(a->ctr_track[i], b->ctr_track[i]);
		assert_int_equal(a->ctr_off[i], b->ctr_off[i]);
	}
	assert_int_equal(a->n_tracks, b->n_tracks);
	for (size_t i = 0; i < a->n_tracks; i++) {
		assert_int_equal(a->tracks[i].name, b->tracks[i].name);
		assert_int_equal(a->tracks[i].n_samples, b->tracks[i].n_samples);
		assert_memory_equal(a->tracks[i].samples, b->tracks[i].samples,
				    a->tracks[i].n_samples * sizeof(uint32_t));
	}
	assert_int_equal(a->n_flows, b->n_flows);
	assert_int_equal(a->n_links, b->n_links);
	assert_memory_equal(a->links, b->links, a->n_links * sizeof *a->links);
	assert_int_equal(a->unmatched_flows, b->unmatched_flows);
	assert_memory_equal(&a->ph, &b->ph, sizeof a->ph);
	assert_int_equal(a->window_start, b->window_start);
	assert_int_equal(a->window_end, b->window_end);
	assert_int_equal(a->trace.size, b->trace.size);
	assert_int_equal(a->trace.parsed_bytes, b->trace.parsed_bytes);
	assert_int_equal(a->trace.truncated, b->trace.truncated);
	assert_int_equal(a->trace.cut_offset, b->trace.cut_offset);
	assert_string_equal(a->trace.path, b->trace.path);
	assert_int_equal(a->trace.n_parts, b->trace.n_parts);
	for (size_t i = 0; i < a->trace.n_parts; i++) {
		assert_string_equal(a->trace.parts[i].path, b->trace.parts[i].path);
		assert_int_equal(a->trace.parts[i].base, b->trace.parts[i].base);
	}
}

/* A trace of n events per lane over two lanes, a process every 10 s apart (so start blocks
 * span more than 4.29 s), every 7th event lasting 5 s (kept aside), counters, flows. */
static char *make_trace(size_t n, bool cut)
{
	struct sbuf sb = SBUF_INIT;
	sbuf_adds(&sb, "[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"Python\"}},\n"
		       "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"tid\":0,\"args\":{\"name\":\"Ascend Hardware\"}},\n"
		       "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2,\"tid\":3,\"args\":{\"name\":\"Stream 3\"}}");
	for (size_t i = 0; i < n; i++) {
		long long ts = 1000000 + (long long)(i / 100) * 10000000 + (long long)(i % 100) * 20;
		sbuf_addf(&sb, ",\n{\"name\":\"op%zu\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":\"%lld.125\",\"dur\":%s,"
			  "\"cat\":\"cpu_op\"}",
			  i % 13, ts, i % 7 == 0 ? "5000000" : "3.5");
		sbuf_addf(&sb, ",\n{\"name\":\"k%zu\",\"ph\":\"X\",\"pid\":2,\"tid\":3,\"ts\":\"%lld.5\",\"dur\":2,"
			  "\"args\":{\"Task Type\":\"AI_CORE\"}}",
			  i % 5, ts + 5);
		sbuf_addf(&sb, ",\n{\"name\":\"link\",\"ph\":\"s\",\"id\":%zu,\"pid\":1,\"tid\":1,\"ts\":\"%lld.125\","
			  "\"cat\":\"async_npu\"}",
			  i, ts);
		sbuf_addf(&sb, ",\n{\"name\":\"link\",\"ph\":\"f\",\"id\":%zu,\"bp\":\"e\",\"pid\":2,\"tid\":3,"
			  "\"ts\":\"%lld.5\",\"cat\":\"async_npu\"}",
			  i, ts + 5);
		if (i % 10 == 0)
			sbuf_addf(&sb, ",\n{\"name\":\"HBM\",\"ph\":\"C\",\"pid\":2,\"tid\":0,\"ts\":\"%lld\","
				  "\"args\":{\"MB\":%zu.25}}",
				  ts, i);
	}
	if (!cut)
		sbuf_adds(&sb, "\n]\n");
	else
		sbuf_adds(&sb, ",\n{\"name\":\"half");
	return sbuf_detach(&sb);
}

/* The texts as the parts of one timeline (msprof slices when more than one). */
static void load_twice(const char *const *texts, size_t n, bool expect_cut)
{
	char *dir = tu_tmpdir();
	char *paths[4];
	assert_true(n <= 4);
	for (size_t i = 0; i < n; i++) {
		char rel[64];
		snprintf(rel, sizeof rel, n > 1 ? "cap/msprof_slice_%zu_20260101000000.json" : "cap/trace_view.json", i);
		paths[i] = tu_write_str(dir, rel, texts[i]);
	}
	char idx[4200];
	snprintf(idx, sizeof idx, "%s/idx", dir);
	struct tindex_opts io = {.enabled = true, .dir = idx};
	struct trace_load_opts topts = {.threads = 2};

	struct rank_store plain, first, again;
	struct diag_list d0, d1, d2;
	diag_init(&d0);
	diag_init(&d1);
	diag_init(&d2);
	store_init(&plain);
	store_init(&first);
	store_init(&again);
	struct tindex_status st;
	const char *const *pp = (const char *const *)paths;
	assert_int_equal(trace_load_parts(&plain, pp, n, &topts, &d0), 0);
	assert_int_equal(tindex_load_trace(&first, pp, n, &topts, &io, &st, &d1), 0);
	assert_int_equal(st.state, TINDEX_WRITTEN);
	assert_int_equal(tindex_load_trace(&again, pp, n, &topts, &io, &st, &d2), 0);
	assert_int_equal(st.state, TINDEX_USED);
	assert_non_null(again.map);
	assert_null(first.map);

	assert_true(plain.n_ts_far_blocks > 0); /* the layouts this test is for are there */
	assert_true(plain.n_long_durs > 0);
	assert_true(plain.n_links > 0);
	assert_true(plain.n_ctr > 0);
	assert_int_equal(plain.trace.truncated, expect_cut);
	assert_int_equal(plain.trace.n_parts, n);
	assert_same_store(&plain, &first);
	assert_same_store(&plain, &again);
	assert_int_equal(d0.n, d2.n);
	assert_true(!expect_cut || d0.n > 0);
	for (size_t i = 0; i < d0.n; i++) {
		assert_string_equal(d0.items[i].msg, d2.items[i].msg);
		assert_string_equal(d0.items[i].file, d2.items[i].file);
		assert_int_equal(d0.items[i].offset, d2.items[i].offset);
		assert_int_equal(d0.items[i].level, d2.items[i].level);
	}

	/* a damaged byte in the data: rebuilt with a message, and right again */
	char cmd[8600];
	snprintf(cmd, sizeof cmd, "f=$(ls %s/*.idx) && printf 'Z' | dd of=\"$f\" bs=1 seek=$(($(wc -c <\"$f\") - 9)) "
				  "conv=notrunc 2>/dev/null",
		 idx);
	assert_int_equal(tu_sh("%s", cmd), 0);
	struct rank_store fixed;
	struct diag_list d3;
	diag_init(&d3);
	store_init(&fixed);
	assert_int_equal(tindex_load_trace(&fixed, pp, n, &topts, &io, &st, &d3), 0);
	assert_int_equal(st.state, TINDEX_REBUILT);
	assert_non_null(strstr(d3.items[0].msg, "fails its checksum"));
	assert_same_store(&plain, &fixed);

	/* a FIFO at the index's name (issue 41, item 6): opening it waited for a writer
	 * forever; now it is no index, and the one written replaces it */
	snprintf(cmd, sizeof cmd, "f=$(ls %s/*.idx) && rm \"$f\" && mkfifo \"$f\"", idx);
	assert_int_equal(tu_sh("%s", cmd), 0);
	struct rank_store past_fifo;
	struct diag_list d4;
	diag_init(&d4);
	store_init(&past_fifo);
	alarm(60);
	assert_int_equal(tindex_load_trace(&past_fifo, pp, n, &topts, &io, &st, &d4), 0);
	alarm(0);
	assert_int_equal(st.state, TINDEX_REBUILT);
	assert_same_store(&plain, &past_fifo);
	snprintf(cmd, sizeof cmd, "test -f \"$(ls %s/*.idx)\"", idx);
	assert_int_equal(tu_sh("%s", cmd), 0);
	store_free(&past_fifo);
	diag_free(&d4);

	store_free(&plain);
	store_free(&first);
	store_free(&again);
	store_free(&fixed);
	diag_free(&d0);
	diag_free(&d1);
	diag_free(&d2);
	diag_free(&d3);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	tu_rmtree(dir);
	free(dir);
}

static void test_index_layouts(void **state)
{
	(void)state;
	char *t = make_trace(3000, false);
	load_twice((const char *const[]){t}, 1, false);
	free(t);
}

static void test_index_cut_trace(void **state)
{
	(void)state;
	char *t = make_trace(700, true);
	load_twice((const char *const[]){t}, 1, true);
	free(t);
}

/* Two slices of one timeline: the parts, their bases and paths come back from the index. */
static void test_index_slices(void **state)
{
	(void)state;
	char *a = make_trace(500, false), *b = make_trace(800, false);
	load_twice((const char *const[]){a, b}, 2, false);
	free(a);
	free(b);
}

/* A trace of n events at rel in a new temporary *dir (owned), idx its index directory;
 * returns the trace's path (owned). */
static char *trace_in_tmp(size_t n, const char *rel, char **dir, char *idx, size_t idx_size)
{
	char *t = make_trace(n, false);
	*dir = tu_tmpdir();
	char *path = tu_write_str(*dir, rel, t);
	free(t);
	snprintf(idx, idx_size, "%s/idx", *dir);
	return path;
}

/* Disabled: the trace is read and nothing is written, even with a directory named. */
static void test_index_disabled(void **state)
{
	(void)state;
	char *dir, idx[4200];
	char *path = trace_in_tmp(10, "trace_view.json", &dir, idx, sizeof idx);
	struct tindex_opts io = {.enabled = false, .dir = idx};
	struct trace_load_opts topts = {.threads = 1};
	const char *paths[] = {path};
	struct rank_store rs;
	struct diag_list dl;
	diag_init(&dl);
	store_init(&rs);
	struct tindex_status st;
	assert_int_equal(tindex_load_trace(&rs, paths, 1, &topts, &io, &st, &dl), 0);
	assert_int_equal(st.state, TINDEX_OFF);
	assert_true(rs.n_ev > 0);
	struct stat sb;
	assert_int_not_equal(stat(idx, &sb), 0);
	store_free(&rs);
	diag_free(&dl);
	free(path);
	tu_rmtree(dir);
	free(dir);
}


/* Every typed cell, row offset, line and flag of a against b, and the cells read again. */
static void assert_same_table(const struct csv_table *a, const struct csv_table *b)
{
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->ncols, b->ncols);
	assert_int_equal(a->nrows, b->nrows);
	assert_int_equal(a->n_typed, b->n_typed);
	assert_int_equal(a->bom, b->bom);
	assert_int_equal(a->crlf, b->crlf);
	assert_int_equal(a->ragged_rows, b->ragged_rows);
	assert_int_equal(a->bad_numbers, b->bad_numbers);
	assert_int_equal(a->file_size, b->file_size);
	assert_memory_equal(a->col_at, b->col_at, sizeof a->col_at);
	for (size_t i = 0; i < a->ncols; i++) {
		assert_string_equal(a->headers[i], b->headers[i]);
		assert_int_equal(a->header_col[i], b->header_col[i]);
	}
	for (size_t r = 0; r < a->nrows; r++) {
		assert_int_equal(csvt_line(a, r), csvt_line(b, r));
		assert_int_equal(csvt_row_off(a, r), csvt_row_off(b, r));
		for (int c = 0; c < CSV_COL_COUNT; c++) {
			if (!csvt_has(a, (enum csv_col)c))
				continue;
			int64_t x = 0, y = 0;
			double u = 0, v = 0;
			assert_string_equal(csvt_str(a, r, (enum csv_col)c), csvt_str(b, r, (enum csv_col)c));
			assert_int_equal(csvt_time(a, r, (enum csv_col)c, &x), csvt_time(b, r, (enum csv_col)c, &y));
			assert_int_equal(x, y);
			assert_int_equal(csvt_num(a, r, (enum csv_col)c, &u), csvt_num(b, r, (enum csv_col)c, &v));
			assert_memory_equal(&u, &v, sizeof u);
		}
		struct csv_cells ca, cb;
		assert_int_equal(csvt_row_cells(a, r, &ca), csvt_row_cells(b, r, &cb));
		assert_int_equal(ca.n, cb.n);
		for (size_t k = 0; k < ca.n; k++)
			assert_string_equal(ca.cells[k], cb.cells[k]);
		csvt_cells_free(&ca);
		csvt_cells_free(&cb);
	}
}

static struct csv_table *load_plain(const char *path, void *ctx, struct diag_list *dl)
{
	(*(int *)ctx)++;
	return csvt_load(path, dl);
}

static void assert_same_diags(const struct diag_list *a, const struct diag_list *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		assert_string_equal(a->items[i].msg, b->items[i].msg);
		assert_string_equal(a->items[i].file, b->items[i].file);
		assert_int_equal(a->items[i].line, b->items[i].line);
	}
}

/* A kernel table through its index: written, then mapped (its loader not called) with
 * every cell, offset, line and message as read from the file (a BOM, CRLF, a ragged row, a
 * bad number, a quoted cell over two lines); a damaged byte is rebuilt with a message; the
 * file edited to the same size is read afresh. */
static void test_index_csv(void **state)
{
	(void)state;
	struct sbuf sb = SBUF_INIT;
	sbuf_adds(&sb, "\xEF\xBB\xBFName,Type,Start Time(us),Duration(us),Input Shapes,aic_mac_ratio\r\n");
	for (int i = 0; i < 400; i++)
		sbuf_addf(&sb, "MatMul_%d,MatMulV2,%d.%03d\t,%d.5,\"%d,%d\",0.%d\r\n", i % 17, 1700000000 + i * 7, i, i % 9,
			  i, i + 1, i % 10);
	sbuf_adds(&sb, "Add_1,Add,1800000000.000,oops,\"a\r\nb\",0.5\r\nragged,Add\r\n");
	char *dir = tu_tmpdir();
	char *path = tu_write_str(dir, "cap/kernel_details.csv", sb.buf);
	char idx[4200];
	snprintf(idx, sizeof idx, "%s/idx", dir);
	struct tindex_opts io = {.enabled = true, .dir = idx};
	struct diag_list d0, d1, d2, d3;
	diag_init(&d0);
	diag_init(&d1);
	diag_init(&d2);
	diag_init(&d3);
	int loads = 0;
	struct tindex_status st;
	struct csv_table *plain = csvt_load(path, &d0);
	assert_non_null(plain);
	assert_int_equal(plain->kind, CSV_KERNEL);
	assert_true(plain->ragged_rows > 0 && plain->bom && d0.n > 0);
	struct csv_table *first = tindex_load_csv(path, load_plain, &loads, 0, &io, &st, &d1);
	assert_int_equal(st.state, TINDEX_WRITTEN);
	assert_int_equal(loads, 1);
	struct csv_table *again = tindex_load_csv(path, load_plain, &loads, 0, &io, &st, &d2);
	assert_int_equal(st.state, TINDEX_USED);
	assert_int_equal(loads, 1);
	assert_non_null(again->map);
	assert_null(first->map);
	assert_same_table(plain, first);
	assert_same_table(plain, again);
	assert_same_diags(&d0, &d2);

	/* a damaged byte: rebuilt with a message, and right again */
	assert_int_equal(tu_sh("f=$(ls %s/*.idx) && printf 'Z' | dd of=\"$f\" bs=1 seek=$(($(wc -c <\"$f\") / 2)) "
			       "conv=notrunc 2>/dev/null",
			       idx),
			 0);
	struct csv_table *fixed = tindex_load_csv(path, load_plain, &loads, 0, &io, &st, &d3);
	assert_int_equal(st.state, TINDEX_REBUILT);
	assert_int_equal(loads, 2);
	assert_non_null(strstr(d3.items[0].msg, "fails its checksum"));
	assert_non_null(strstr(d3.items[0].msg, "the table is read again"));
	assert_same_table(plain, fixed);

	/* the same size, one op renamed: read afresh */
	char *p = strstr(sb.buf, "MatMul_3,");
	p[0] = 'X';
	FILE *f = fopen(path, "r+");
	assert_non_null(f);
	assert_int_equal(fwrite(sb.buf, 1, sb.len, f), sb.len);
	fclose(f);
	struct diag_list d4;
	diag_init(&d4);
	struct csv_table *edited = tindex_load_csv(path, load_plain, &loads, 0, &io, &st, &d4);
	assert_int_equal(st.state, TINDEX_REBUILT);
	assert_int_equal(loads, 3);
	assert_string_equal(csvt_str(edited, 3, COL_NAME), "XatMul_3");

	csvt_free(plain);
	csvt_free(first);
	csvt_free(again);
	csvt_free(fixed);
	csvt_free(edited);
	diag_free(&d0);
	diag_free(&d1);
	diag_free(&d2);
	diag_free(&d3);
	diag_free(&d4);
	sbuf_free(&sb);
	free(path);
	tu_rmtree(dir);
	free(dir);
}

/* A lazy open (--report, --summary) maps the index without verifying the event columns:
 * a byte damaged among them is not seen then; verifying them when they are first needed
 * finds it, says so, and reads the trace afresh into a store equal to the plain one, with
 * a new index that the next open uses. An undamaged lazy open verifies as a whole. */
static void test_index_lazy(void **state)
{
	(void)state;
	char *dir, idx[4200];
	char *path = trace_in_tmp(20000, "cap/trace_view.json", &dir, idx, sizeof idx);
	struct tindex_opts io = {.enabled = true, .dir = idx}, lazy = {.enabled = true, .dir = idx, .lazy = true};
	struct trace_load_opts topts = {.threads = 2};
	const char *pp[] = {path};
	struct rank_store plain, a, b, c;
	struct diag_list d0, d1, d2, d3;
	diag_init(&d0);
	diag_init(&d1);
	diag_init(&d2);
	diag_init(&d3);
	store_init(&plain);
	store_init(&a);
	store_init(&b);
	store_init(&c);
	struct tindex_status st;
	assert_int_equal(tindex_load_trace(&plain, pp, 1, &topts, &io, &st, &d0), 0);
	assert_int_equal(st.state, TINDEX_WRITTEN);
	assert_true(st.bytes > 8 * 65536); /* columns in chunks of their own */

	assert_int_equal(tindex_load_trace(&a, pp, 1, &topts, &lazy, &st, &d1), 0);
	assert_int_equal(st.state, TINDEX_USED);
	assert_true(st.pending);
	assert_int_equal(tindex_verify_trace(&a, pp, 1, &topts, &lazy, &st, &d1), 0);
	assert_false(st.pending);
	assert_int_equal(st.state, TINDEX_USED);
	assert_int_equal(d1.n, d0.n);
	assert_same_store(&plain, &a);

	/* a byte in the middle of the file: among the columns */
	assert_int_equal(tu_sh("f=$(ls %s/*.idx) && printf 'Z' | dd of=\"$f\" bs=1 seek=$(($(wc -c <\"$f\") / 2)) "
			       "conv=notrunc 2>/dev/null",
			       idx),
			 0);
	assert_int_equal(tindex_load_trace(&b, pp, 1, &topts, &lazy, &st, &d2), 0);
	assert_int_equal(st.state, TINDEX_USED); /* not seen yet */
	assert_true(st.pending);
	assert_int_equal(d2.n, d0.n);
	assert_int_equal(tindex_verify_trace(&b, pp, 1, &topts, &lazy, &st, &d2), 0);
	assert_int_equal(st.state, TINDEX_REBUILT);
	assert_false(st.pending);
	assert_true(d2.n > d0.n);
	assert_non_null(strstr(d2.items[d0.n].msg, "fails its checksum; the trace is read again"));
	assert_null(b.map);
	assert_same_store(&plain, &b);
	/* and a whole index again */
	assert_int_equal(tindex_load_trace(&c, pp, 1, &topts, &io, &st, &d3), 0);
	assert_int_equal(st.state, TINDEX_USED);
	assert_same_store(&plain, &c);

	store_free(&plain);
	store_free(&a);
	store_free(&b);
	store_free(&c);
	diag_free(&d0);
	diag_free(&d1);
	diag_free(&d2);
	diag_free(&d3);
	free(path);
	tu_rmtree(dir);
	free(dir);
}

/* The explorer's timeline index through the index cache (tindex_map_blob, lod_pack,
 * lod_unpack): written on the first call, then mapped and used in place, every lane's
 * arrays and every event's class equal to the built ones and every query the same; a
 * flipped byte is caught by its checksum and the index made again with a message; bytes
 * that do not hold together for the store (cut short, another store, a segment past the
 * lane) are refused. */
struct tl_ctx {
	const struct rank_store *rs;
	const struct ev_class *cls;
	const struct lane_lod *lods;
	int made;
};

static char *tl_make(void *ctx, size_t *len, struct sbuf *why)
{
	(void)why;
	struct tl_ctx *c = ctx;
	c->made++;
	return lod_pack(c->rs, c->cls, c->lods, len);
}

static void assert_same_lods(const struct rank_store *rs, const struct ev_class *cls_a, const struct lane_lod *a,
			     const struct ev_class *cls_b, const struct lane_lod *b)
{
	assert_memory_equal(cls_a, cls_b, rs->n_ev * sizeof *cls_a);
	bool pyramid = false;
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *l = &rs->lanes[li];
		assert_int_equal(a[li].n_top, b[li].n_top);
		assert_int_equal(a[li].levels, b[li].levels);
		assert_int_equal(a[li].nb0, b[li].nb0);
		assert_true(a[li].t0 == b[li].t0 && a[li].t1 == b[li].t1 && a[li].bucket0 == b[li].bucket0);
		if (a[li].n_top) {
			assert_memory_equal(a[li].top, b[li].top, a[li].n_top * sizeof *a[li].top);
			assert_memory_equal(a[li].seg_end, b[li].seg_end, a[li].n_top * sizeof *a[li].seg_end);
		}
		pyramid |= a[li].levels > 0;
		int64_t span = a[li].t1 - a[li].t0;
		for (int k = 0; k < 40; k++) { /* ranges from the whole lane down to a few ns */
			int64_t w = span >> (k / 2), at = a[li].t0 + (span - w) / 3 * (k % 3);
			struct lod_result ra, rb;
			lod_query(rs, cls_a, l, &a[li], at, at + w + 1, &ra);
			lod_query(rs, cls_b, l, &b[li], at, at + w + 1, &rb);
			assert_true(ra.coverage == rb.coverage);
			assert_int_equal(ra.mask, rb.mask);
			assert_int_equal(ra.starts, rb.starts);
		}
	}
	assert_true(pyramid); /* a lane long enough for its pyramid */
}

static void test_index_timeline(void **state)
{
	(void)state;
	char *dir, idx[4200];
	char *path = trace_in_tmp(20000, "cap/trace_view.json", &dir, idx, sizeof idx);
	struct tindex_opts io = {.enabled = true, .dir = idx};
	struct trace_load_opts topts = {.threads = 2};
	const char *pp[] = {path};
	struct rank_store rs;
	struct diag_list dl;
	diag_init(&dl);
	store_init(&rs);
	struct tindex_status st;
	assert_int_equal(tindex_load_trace(&rs, pp, 1, &topts, &io, &st, &dl), 0);
	struct ev_class *cls = xmalloc(rs.n_ev * sizeof *cls);
	category_classify(&rs, cls);
	struct lane_lod *lods = lod_build(&rs, cls);
	struct tl_ctx c = {.rs = &rs, .cls = cls, .lods = lods};

	struct tindex_blob b;
	assert_true(tindex_map_blob(&b, "timeline test", pp, 1, tl_make, &c, &io, &st, &dl));
	assert_int_equal(st.state, TINDEX_WRITTEN);
	assert_false(b.from_index);
	assert_int_equal(c.made, 1);
	tindex_blob_free(&b);

	assert_true(tindex_map_blob(&b, "timeline test", pp, 1, tl_make, &c, &io, &st, &dl));
	assert_int_equal(st.state, TINDEX_USED);
	assert_true(b.from_index);
	assert_int_equal(c.made, 1);
	assert_non_null(b.map);
	const struct ev_class *mcls = NULL;
	struct lane_lod *mapped = lod_unpack(&rs, b.bytes, b.len, &mcls);
	assert_non_null(mapped);
	assert_true((const char *)mcls >= (const char *)b.map && (const char *)mcls < (const char *)b.map + b.map_len);
	assert_same_lods(&rs, cls, lods, mcls, mapped);

	/* bytes that do not hold together for the store */
	const struct ev_class *dummy;
	assert_null(lod_unpack(&rs, b.bytes, b.len - 8, &dummy));
	rs.n_ev--;
	assert_null(lod_unpack(&rs, b.bytes, b.len, &dummy));
	rs.n_ev++;
	uint64_t *copy = xmalloc(b.len);
	memcpy(copy, b.bytes, b.len);
	size_t lane0 = (24 + rs.n_ev * sizeof *cls + 7) / 8; /* the first lane's head: n_top at 3 */
	copy[lane0 + 3] = rs.lanes[0].n_events + 1;
	assert_null(lod_unpack(&rs, copy, b.len, &dummy));
	memcpy(copy, b.bytes, b.len);
	((struct ev_class *)(copy + 3))[0].cat = CAT_COUNT;
	assert_null(lod_unpack(&rs, copy, b.len, &dummy));
	free(copy);
	lod_free(mapped, rs.n_lanes);
	tindex_blob_free(&b);

	/* a flipped byte in the middle: caught, made again, and right again */
	assert_int_equal(tu_sh("f=$(grep -l -a -x 'timeline test' %s/*.idx) && printf 'Z' | dd of=\"$f\" bs=1 "
			       "seek=$(($(wc -c <\"$f\") / 2)) conv=notrunc 2>/dev/null",
			       idx),
			 0);
	size_t n0 = dl.n;
	assert_true(tindex_map_blob(&b, "timeline test", pp, 1, tl_make, &c, &io, &st, &dl));
	assert_int_equal(st.state, TINDEX_REBUILT);
	assert_int_equal(c.made, 2);
	assert_true(dl.n > n0);
	assert_non_null(strstr(dl.items[n0].msg, "fails its checksum; the timeline index is built again"));
	tindex_blob_free(&b);
	assert_true(tindex_map_blob(&b, "timeline test", pp, 1, tl_make, &c, &io, &st, &dl));
	assert_int_equal(st.state, TINDEX_USED);
	mapped = lod_unpack(&rs, b.bytes, b.len, &mcls);
	assert_non_null(mapped);
	assert_same_lods(&rs, cls, lods, mcls, mapped);
	lod_free(mapped, rs.n_lanes);
	tindex_blob_free(&b);

	lod_free(lods, rs.n_lanes);
	free(cls);
	store_free(&rs);
	diag_free(&dl);
	free(path);
	tu_rmtree(dir);
	free(dir);
}

/* The index files (not temporary ones) in dir, and the temporary ones in *tmp. */
static size_t count_indexes(const char *dir, size_t *tmp)
{
	size_t n = 0;
	*tmp = 0;
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (!strncmp(de->d_name, ".tmp-", 5))
			(*tmp)++;
		else if (len > 4 && !strcmp(de->d_name + len - 4, ".idx"))
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

struct big_blob {
	size_t len;
	int made;
};

static char *make_big(void *ctx, size_t *len, struct sbuf *why)
{
	(void)why;
	struct big_blob *b = ctx;
	char *p = xmalloc(b->len);
	for (size_t i = 0; i < b->len; i++)
		p[i] = (char)(i * 131 + (i >> 12));
	*len = b->len;
	b->made++;
	return p;
}

static void *run_defer(void *d)
{
	tindex_defer_run(d);
	return NULL;
}

/* Writes put off (tindex_opts.defer): a trace's, a table's and a blob's index are queued as
 * they are read (WRITTEN and deferred, nothing in the directory yet, the blob's bytes taken),
 * written by tindex_defer_run (after the loader's message list is gone: the index keeps its
 * messages) and used on the next open; a trace changed between its read and the write gets
 * no index and a message; a write that cannot be made (a file where the directory was) a
 * message naming the index and why; abandoned before it runs, or while it writes (a blob of
 * 48 MB, abandoned once its temporary file is there), no index and no temporary file. */
static void test_index_deferred(void **state)
{
	(void)state;
	char *dir, idx[4200];
	char *t = make_trace(700, true);
	dir = tu_tmpdir();
	char *path = tu_write_str(dir, "cap/trace_view.json", t);
	free(t);
	snprintf(idx, sizeof idx, "%s/idx", dir);
	struct tindex_defer *d = tindex_defer_new();
	struct tindex_opts io = {.enabled = true, .dir = idx}, dio = io;
	dio.defer = d;
	struct trace_load_opts topts = {.threads = 2};
	const char *pp[] = {path};
	struct tindex_status st;

	struct rank_store plain, first, again;
	struct diag_list d0, d1, d2;
	struct rank_store *stores[] = {&plain, &first, &again};
	struct diag_list *lists[] = {&d0, &d1, &d2};
	for (int i = 0; i < 3; i++) { /* read plainly, through a deferred index, from it */
		store_init(stores[i]);
		diag_init(lists[i]);
	}
	assert_int_equal(trace_load_parts(&plain, pp, 1, &topts, &d0), 0);
	assert_true(d0.n > 0); /* the cut's message, which the index must keep */
	assert_int_equal(tindex_load_trace(&first, pp, 1, &topts, &dio, &st, &d1), 0);
	assert_int_equal(st.state, TINDEX_WRITTEN);
	assert_true(st.deferred);
	assert_int_equal(st.bytes, 0);
	diag_free(&d1); /* the capture takes its loader's messages: the write has its own copy */

	struct sbuf sb = SBUF_INIT;
	sbuf_adds(&sb, "Name,Start Time(us),Duration(us)\n");
	for (int i = 0; i < 300; i++)
		sbuf_addf(&sb, "k%d,%d.5,%d\n", i % 7, 1000 + i * 10, i % 5 + 1);
	char *csv = tu_write_str(dir, "cap/kernel_details.csv", sb.buf);
	sbuf_free(&sb);
	int loads = 0;
	struct diag_list dc;
	diag_init(&dc);
	struct csv_table *tab = tindex_load_csv(csv, load_plain, &loads, 0, &dio, &st, &dc);
	assert_non_null(tab);
	assert_int_equal(st.state, TINDEX_WRITTEN);
	assert_true(st.deferred);

	struct big_blob bb = {.len = 100000};
	size_t len = 1;
	bool from = true;
	char *bytes = tindex_load_blob("deferred blob", pp, 1, make_big, &bb, &len, &from, &dio, &st, &dc);
	assert_null(bytes); /* taken by the write */
	assert_int_equal(len, 0);
	assert_false(from);
	assert_int_equal(st.state, TINDEX_WRITTEN);
	assert_true(st.deferred);

	size_t tmp;
	assert_int_equal(count_indexes(idx, &tmp), 0);
	assert_int_equal(tindex_defer_pending(d), 3);
	assert_int_equal(tindex_defer_run(d), 3);
	assert_int_equal(tindex_defer_failures(d)->n, 0);
	assert_int_equal(tindex_defer_pending(d), 0);
	assert_int_equal(count_indexes(idx, &tmp), 3);
	assert_int_equal(tmp, 0);

	/* the next open uses each, as written inline */
	assert_int_equal(tindex_load_trace(&again, pp, 1, &topts, &io, &st, &d2), 0);
	assert_int_equal(st.state, TINDEX_USED);
	assert_same_store(&plain, &again);
	assert_same_diags(&d0, &d2);
	struct diag_list dc2;
	diag_init(&dc2);
	struct csv_table *tab2 = tindex_load_csv(csv, load_plain, &loads, 0, &io, &st, &dc2);
	assert_int_equal(st.state, TINDEX_USED);
	assert_int_equal(loads, 1);
	assert_same_table(tab, tab2);
	bytes = tindex_load_blob("deferred blob", pp, 1, make_big, &bb, &len, &from, &io, &st, &dc2);
	assert_int_equal(st.state, TINDEX_USED);
	assert_true(from);
	assert_int_equal(bb.made, 1);
	assert_int_equal(len, bb.len);
	for (size_t i = 0; i < len; i++)
		assert_int_equal(bytes[i], (char)(i * 131 + (i >> 12)));
	free(bytes);

	/* changed between the read and the write: no index, a message */
	struct rank_store rs;
	struct diag_list dl;
	diag_init(&dl);
	store_init(&rs);
	bb.len = 5000;
	bytes = tindex_load_blob("changed blob", pp, 1, make_big, &bb, &len, &from, &dio, &st, &dl);
	assert_null(bytes);
	assert_int_equal(tu_sh("touch -d '2003-03-03' '%s'", path), 0);
	assert_int_equal(tindex_defer_run(d), 0);
	struct diag_list *f = tindex_defer_failures(d);
	assert_int_equal(f->n, 1);
	assert_string_equal(f->items[0].file, path);
	assert_non_null(strstr(f->items[0].msg, "the analysis' index "));
	assert_non_null(strstr(f->items[0].msg, "was not written: the capture changed after it was read"));
	assert_int_equal(count_indexes(idx, &tmp), 3);

	/* a file where the directory was: the write fails, says which index and why */
	assert_int_equal(tindex_load_trace(&rs, pp, 1, &topts, &dio, &st, &dl), 0);
	assert_int_equal(st.state, TINDEX_REBUILT); /* the trace's mtime changed: its index is stale */
	assert_true(st.deferred);
	char moved[4300];
	snprintf(moved, sizeof moved, "%s.away", idx);
	assert_int_equal(rename(idx, moved), 0);
	free(tu_write_str(dir, "idx", "not a directory"));
	assert_int_equal(tindex_defer_run(d), 0);
	f = tindex_defer_failures(d);
	assert_int_equal(f->n, 1);
	assert_string_equal(f->items[0].file, path);
	assert_non_null(strstr(f->items[0].msg, "the trace's index "));
	assert_non_null(strstr(f->items[0].msg, idx));
	assert_non_null(strstr(f->items[0].msg, "was not written: cannot write in"));
	assert_non_null(strstr(f->items[0].msg, strerror(ENOTDIR)));
	assert_int_equal(unlink(idx), 0);
	assert_int_equal(rename(moved, idx), 0);

	/* abandoned before it runs: nothing written, nothing said */
	store_free(&rs);
	store_init(&rs);
	assert_int_equal(tindex_load_trace(&rs, pp, 1, &topts, &dio, &st, &dl), 0);
	assert_true(st.deferred);
	size_t before = count_indexes(idx, &tmp);
	tindex_defer_abandon(d);
	assert_int_equal(tindex_defer_run(d), 0);
	assert_int_equal(tindex_defer_failures(d)->n, 0);
	assert_int_equal(count_indexes(idx, &tmp), before);
	assert_int_equal(tmp, 0);
	tindex_defer_free(d);

	/* abandoned while it writes: its temporary file goes, no index */
	d = tindex_defer_new();
	dio.defer = d;
	bb.len = (size_t)48 << 20;
	bytes = tindex_load_blob("big blob", pp, 1, make_big, &bb, &len, &from, &dio, &st, &dl);
	assert_null(bytes);
	pthread_t tid;
	assert_int_equal(pthread_create(&tid, NULL, run_defer, d), 0);
	bool seen = false;
	for (int i = 0; i < 2000000 && !seen; i++) {
		size_t n = count_indexes(idx, &tmp);
		if (tmp)
			seen = true;
		else if (n > before)
			break; /* written before it was seen: too fast to abandon */
	}
	tindex_defer_abandon(d);
	pthread_join(tid, NULL);
	if (seen) {
		assert_int_equal(count_indexes(idx, &tmp), before);
		assert_int_equal(tmp, 0);
		assert_int_equal(tindex_defer_failures(d)->n, 0);
	} else {
		print_message("note: the 48 MB write ended before it could be abandoned\n");
	}
	tindex_defer_free(d);

	store_free(&rs);
	store_free(&plain);
	store_free(&first);
	store_free(&again);
	csvt_free(tab);
	csvt_free(tab2);
	diag_free(&d0);
	diag_free(&d2);
	diag_free(&dc);
	diag_free(&dc2);
	diag_free(&dl);
	free(csv);
	free(path);
	tu_rmtree(dir);
	free(dir);
}

/* Issue 40, item 4: a rank's merged device row draws compute as compute. A compute
 * stream covering 90 % of a cell beside a collective's lane covering all of it is
 * compute (the collective, under compute, is only 10 % exposed); a cell mostly exposed
 * communication is communication; a short copy beside compute is compute, one holding
 * more of the cell a copy; without compute, the usual order. */
static void test_merged_cell_compute(void **state)
{
	(void)state;
	struct lod_result comp = {.coverage = 0.9, .mask = 1u << CAT_COMPUTE};
	struct lod_result comm = {.coverage = 1.0, .mask = 1u << CAT_COMM};
	struct lod_result little = {.coverage = 0.2, .mask = 1u << CAT_COMPUTE};
	struct lod_result copy = {.coverage = 0.1, .mask = 1u << CAT_COPY};
	double cov;
	struct lod_merge m = {0};
	lod_merge_add(&m, &comp);
	lod_merge_add(&m, &comm);
	assert_int_equal(lod_merge_pick(&m, &cov), CAT_COMPUTE);
	assert_true(cov == 1.0);
	m = (struct lod_merge){0};
	lod_merge_add(&m, &little);
	lod_merge_add(&m, &comm);
	assert_int_equal(lod_merge_pick(&m, &cov), CAT_COMM);
	m = (struct lod_merge){0};
	lod_merge_add(&m, &comm);
	lod_merge_add(&m, &copy);
	assert_int_equal(lod_merge_pick(&m, &cov), CAT_COMM);
	lod_merge_add(&m, &comp); /* a short copy beside compute: compute */
	assert_int_equal(lod_merge_pick(&m, &cov), CAT_COMPUTE);
	m = (struct lod_merge){0};
	lod_merge_add(&m, &little);
	lod_merge_add(&m, &(struct lod_result){.coverage = 0.6, .mask = 1u << CAT_COPY});
	assert_int_equal(lod_merge_pick(&m, &cov), CAT_COPY); /* a copy holding more: copy */
	m = (struct lod_merge){0};
	assert_int_equal(lod_merge_pick(&m, &cov), CAT_COUNT);
}

/* Issue 41, item 8: an index with valid checksums whose header says something the events do
 * not (a window of 1 ns around them, a window at the ends of int64): refused and rebuilt,
 * lazily (--summary) and in full, never used. The header is rewritten here with its
 * checksums made to match, as a crafted file in a shared --index-dir would be. */
struct crafted_header { /* trace_index_internal.h's struct tix_header */
	char magic[8];
	uint32_t format, endian;
	uint64_t key_len, payload_off, payload_len, table_hash, header_hash;
};

static void craft_window(const char *idx_dir, const struct rank_store *rs, int64_t start, int64_t end)
{
	char *f = NULL;
	DIR *d = opendir(idx_dir);
	assert_non_null(d);
	for (struct dirent *de; (de = readdir(d));)
		if (strlen(de->d_name) > 4 && !strcmp(de->d_name + strlen(de->d_name) - 4, ".idx"))
			f = xasprintf("%s/%s", idx_dir, de->d_name);
	closedir(d);
	assert_non_null(f);
	size_t len;
	char *buf = tu_read(f, &len);
	assert_non_null(buf);
	struct crafted_header h;
	memcpy(&h, buf, sizeof h);
	uint8_t *payload = (uint8_t *)buf + h.payload_off;
	uint64_t head[25];
	memcpy(head, payload, sizeof head);
	/* the layout this test assumes: the store's scalars first */
	assert_int_equal(head[0], rs->n_ev);
	assert_int_equal((int64_t)head[13], rs->window_start);
	assert_int_equal((int64_t)head[14], rs->window_end);
	head[13] = (uint64_t)start;
	head[14] = (uint64_t)end;
	memcpy(payload, head, sizeof head);
	size_t table_off = (h.payload_off + h.payload_len + 7) & ~(size_t)7;
	uint64_t *table = (uint64_t *)(buf + table_off);
	size_t n_chunks = (len - table_off) / 8;
	table[0] = XXH3_64bits(payload, h.payload_len < 65536 ? h.payload_len : 65536);
	h.table_hash = XXH3_64bits(table, n_chunks * 8);
	XXH3_state_t *st = XXH3_createState();
	XXH3_64bits_reset(st);
	XXH3_64bits_update(st, &h, offsetof(struct crafted_header, header_hash));
	XXH3_64bits_update(st, buf + sizeof h, h.key_len);
	h.header_hash = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	memcpy(buf, &h, sizeof h);
	FILE *out = fopen(f, "wb");
	assert_non_null(out);
	assert_int_equal(fwrite(buf, 1, len, out), len);
	fclose(out);
	free(buf);
	free(f);
}

static void test_index_crafted_window(void **state)
{
	(void)state;
	char *text = make_trace(2000, false);
	char *dir = tu_tmpdir();
	char *path = tu_write_str(dir, "cap/trace_view.json", text);
	free(text);
	char idx[4200];
	snprintf(idx, sizeof idx, "%s/idx", dir);
	struct trace_load_opts topts = {.threads = 2};
	const char *const pp[1] = {path};
	struct rank_store plain;
	struct diag_list d0;
	diag_init(&d0);
	store_init(&plain);
	assert_int_equal(trace_load_parts(&plain, pp, 1, &topts, &d0), 0);
	static const struct {
		int64_t start, end; /* 0, 0: the last ns of the real window */
		bool lazy;
	} cases[] = {{0, 0, true}, {0, 0, false}, {INT64_MIN + 1, INT64_MAX, true}, {INT64_MIN + 1, INT64_MAX, false}};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct tindex_opts io = {.enabled = true, .dir = idx, .lazy = cases[c].lazy};
		struct tindex_status st;
		struct rank_store rs;
		struct diag_list dl;
		diag_init(&dl);
		store_init(&rs);
		assert_int_equal(tindex_load_trace(&rs, pp, 1, &topts, &io, &st, &dl), 0);
		/* a good index there (written, or the last case's rebuilt one) */
		assert_true(st.state == TINDEX_WRITTEN || st.state == TINDEX_USED);
		if (st.state == TINDEX_USED && cases[c].lazy)
			assert_int_equal(tindex_verify_trace(&rs, pp, 1, &topts, &io, &st, &dl), 0);
		store_free(&rs);
		store_init(&rs);
		diag_free(&dl);
		diag_init(&dl);
		int64_t a = cases[c].start ? cases[c].start : plain.window_end - 1;
		int64_t b = cases[c].start ? cases[c].end : plain.window_end;
		craft_window(idx, &plain, a, b);
		assert_int_equal(tindex_load_trace(&rs, pp, 1, &topts, &io, &st, &dl), 0);
		if (cases[c].lazy && st.state == TINDEX_USED) /* what --report does before the views */
			assert_int_equal(tindex_verify_trace(&rs, pp, 1, &topts, &io, &st, &dl), 0);
		print_message("window %lld..%lld, %s: %s\n", (long long)a, (long long)b, cases[c].lazy ? "lazy" : "full",
			      tindex_state_name(st.state));
		assert_int_equal(st.state, TINDEX_REBUILT);
		bool said = false;
		for (size_t i = 0; i < dl.n; i++)
			said |= strstr(dl.items[i].msg, "does not hold together") && strstr(dl.items[i].msg, "rebuilt");
		if (!said)
			for (size_t i = 0; i < dl.n; i++)
				print_message("  %s\n", dl.items[i].msg);
		assert_true(said);
		assert_int_equal(rs.window_start, plain.window_start);
		assert_int_equal(rs.window_end, plain.window_end);
		assert_same_store(&plain, &rs);
		store_free(&rs);
		diag_free(&dl);
	}
	store_free(&plain);
	diag_free(&d0);
	free(path);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_layouts),
		cmocka_unit_test(test_merged_cell_compute),
		cmocka_unit_test(test_index_cut_trace),
		cmocka_unit_test(test_index_slices),
		cmocka_unit_test(test_index_disabled),
		cmocka_unit_test(test_index_csv),
		cmocka_unit_test(test_index_lazy),
		cmocka_unit_test(test_index_timeline),
		cmocka_unit_test(test_index_deferred),
		cmocka_unit_test(test_index_crafted_window),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
