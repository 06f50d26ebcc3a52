/* SPDX-License-Identifier: MIT */
/* A device timeline from kernel_details.csv (see kernel_timeline.h). */
#include "config.h"
#include "kernel_timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "num.h"
#include "store_build.h"
#include "xalloc.h"

/* The row's file, for the args: the table's name without its directories. */
static const char *kernel_timeline_file(const struct csv_table *k, size_t row)
{
	const char *path = k->nrows ? csvt_row_path(k, row) : "";
	const char *base = strrchr(path, '/');
	return base ? base + 1 : path;
}

/* Lane names as the trace's, "Stream N", for the first 4,096 streams the rows name. */
static char **kernel_timeline_streams(const struct csv_table *k, size_t *n)
{
	char **seen = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t r = 0; r < k->nrows; r++) {
		const char *s = csvt_str(k, r, COL_STREAM_ID);
		bool dup = false;
		for (size_t i = 0; i < *n && !dup; i++)
			dup = !strcmp(seen[i], s);
		if (dup || !*s || *n >= 4096)
			continue;
		xgrow(&seen, &cap, *n + 1, sizeof *seen);
		seen[(*n)++] = (char *)s;
	}
	return seen;
}

struct kernel_timeline *kernel_timeline_build(const struct csv_table *k)
{
	if (!k)
		return NULL;
	struct kernel_timeline *kt = xcalloc(1, sizeof *kt);
	kt->table = k;
	bool by_stream = csvt_has(k, COL_STREAM_ID);
	size_t n_named = 0;
	char **named = by_stream ? kernel_timeline_streams(k, &n_named) : NULL;
	store_init(&kt->store);
	kt->store.trace.rows = k;
	struct store_build b;
	store_build_begin(&b, &kt->store);
	uint32_t cat = store_build_str(&b, "kernel_details");
	for (size_t r = 0; r < k->nrows; r++) {
		int64_t ts, dur;
		if (!csvt_time(k, r, COL_START, &ts) || !csvt_time(k, r, COL_DURATION, &dur) || dur < 0) {
			kt->rows_skipped++;
			continue;
		}
		kt->rows_used++;
		const char *core = csvt_str(k, r, COL_ACCEL_CORE);
		const char *lane = by_stream ? csvt_str(k, r, COL_STREAM_ID) : core;
		char thread[64 + 8] = "";
		for (size_t i = 0; i < n_named && !*thread; i++)
			if (!strcmp(named[i], lane))
				snprintf(thread, sizeof thread, "Stream %.64s", lane);
		uint32_t l = store_build_lane(&b, "1", *lane ? lane : "?", "Ascend Hardware", *thread ? thread : NULL);
		uint32_t kind = store_build_kind(&b, l, cat, store_build_str(&b, core));
		store_build_event(&b, ts, dur, store_build_str(&b, csvt_str(k, r, COL_NAME)), kind, r);
	}
	free(named);
	kt->store.ph.by_char['M'] = 1 + n_named; /* as the trace it once was written as */
	store_build_end(&b, kernel_timeline_file(k, 0), NULL);
	if (!kt->rows_used || !kt->store.n_ev) {
		kernel_timeline_free(kt);
		return NULL;
	}
	kt->cls = xmalloc(kt->store.n_ev * sizeof *kt->cls);
	category_classify(&kt->store, kt->cls);
	kt->lods = lod_build(&kt->store, kt->cls);
	return kt;
}

void kernel_timeline_free(struct kernel_timeline *kt)
{
	if (!kt)
		return;
	if (kt->lods)
		lod_free(kt->lods, kt->store.n_lanes);
	free(kt->cls);
	store_free(&kt->store);
	free(kt);
}

/* The row's cells that matter, in order: key and value. */
static size_t kernel_timeline_cells(const struct csv_table *k, size_t row, const char *kv[][2], char *line,
				    size_t line_size)
{
	snprintf(line, line_size, "%u", csvt_line(k, row));
	const char *cells[][2] = {
		{"Task Type", csvt_str(k, row, COL_ACCEL_CORE)},
		{"OP Type", csvt_str(k, row, COL_TYPE)},
		{"Input Shapes", csvt_str(k, row, COL_INPUT_SHAPES)},
		{"file", kernel_timeline_file(k, row)},
		{"line", line},
	};
	memcpy(kv, cells, sizeof cells);
	return sizeof cells / sizeof *cells;
}

int kernel_timeline_row_args(const struct rank_store *rs, size_t ev, struct sbuf *out)
{
	const struct csv_table *k = rs->trace.rows;
	sbuf_reset(out);
	if (!k || ev >= rs->n_ev || store_ev_off(rs, ev) >= k->nrows) {
		sbuf_adds(out, "no such event");
		return -1;
	}
	const char *kv[5][2];
	char line[24];
	size_t n = kernel_timeline_cells(k, (size_t)store_ev_off(rs, ev), kv, line, sizeof line);
	for (size_t i = 0; i < n; i++) {
		sbuf_adds(out, kv[i][0]);
		sbuf_adds(out, ": ");
		sbuf_adds(out, kv[i][1]);
		sbuf_addc(out, '\n');
	}
	return (int)n;
}

int kernel_timeline_row_json(const struct rank_store *rs, uint64_t off, struct sbuf *out)
{
	const struct csv_table *k = rs->trace.rows;
	sbuf_reset(out);
	int64_t ts, dur;
	if (!k || off >= k->nrows || !csvt_time(k, (size_t)off, COL_START, &ts) ||
	    !csvt_time(k, (size_t)off, COL_DURATION, &dur)) {
		sbuf_addf(out, "row %llu of the kernel table can no longer be read", (unsigned long long)off);
		return -1;
	}
	size_t row = (size_t)off;
	const char *lane = csvt_has(k, COL_STREAM_ID) ? csvt_str(k, row, COL_STREAM_ID) : csvt_str(k, row, COL_ACCEL_CORE);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return -1;
	struct jsonw w;
	jsonw_init(&w, f, false);
	jsonw_obj_begin(&w);
	jsonw_kstr(&w, "ph", "X");
	jsonw_kstr(&w, "name", csvt_str(k, row, COL_NAME));
	jsonw_kint(&w, "pid", 1);
	jsonw_kstr(&w, "tid", *lane ? lane : "?");
	char t_us[40], d_us[40];
	num_format_ns_as_us(ts, t_us, sizeof t_us);
	num_format_ns_as_us(dur, d_us, sizeof d_us);
	jsonw_kstr(&w, "ts", t_us);
	jsonw_kstr(&w, "dur", d_us);
	jsonw_kstr(&w, "cat", "kernel_details");
	jsonw_key(&w, "args");
	jsonw_obj_begin(&w);
	const char *kv[5][2];
	char line[24];
	size_t n = kernel_timeline_cells(k, row, kv, line, sizeof line);
	for (size_t i = 0; i < n; i++)
		jsonw_kstr(&w, kv[i][0], kv[i][1]);
	jsonw_obj_end(&w);
	jsonw_obj_end(&w);
	fclose(f);
	sbuf_add(out, buf, len);
	free(buf);
	return 0;
}
