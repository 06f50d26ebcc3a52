/* SPDX-License-Identifier: MIT */
/* A device timeline from kernel_details.csv (see kernel_timeline.h). */
#include "config.h"
#include "kernel_timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "num.h"
#include "trace.h"
#include "xalloc.h"

static void put_str(FILE *f, const char *key, const char *val)
{
	fprintf(f, "\"%s\": \"", key);
	jsonw_escape(f, val, strlen(val));
	fputc('"', f);
}

struct kernel_timeline *kernel_timeline_build(const struct csv_table *k)
{
	if (!k)
		return NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	struct kernel_timeline *kt = xcalloc(1, sizeof *kt);
	bool by_stream = csvt_has(k, COL_STREAM_ID);
	fputs("[{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": "
	      "\"Ascend Hardware\"}}",
	      f);
	const char *rpath = k->nrows ? csvt_row_path(k, 0) : "";
	const char *base = strrchr(rpath, '/');
	base = base ? base + 1 : rpath;
	for (size_t r = 0; r < k->nrows; r++) {
		int64_t ts, dur;
		if (!csvt_time(k, r, COL_START, &ts) || !csvt_time(k, r, COL_DURATION, &dur) || dur < 0) {
			kt->rows_skipped++;
			continue;
		}
		kt->rows_used++;
		char t_us[40], d_us[40], line[24];
		num_format_ns_as_us(ts, t_us, sizeof t_us);
		num_format_ns_as_us(dur, d_us, sizeof d_us);
		const char *core = csvt_str(k, r, COL_ACCEL_CORE);
		const char *lane = by_stream ? csvt_str(k, r, COL_STREAM_ID) : core;
		fputs(",\n{\"ph\": \"X\", ", f);
		put_str(f, "name", csvt_str(k, r, COL_NAME));
		fputs(", \"pid\": 1, ", f);
		put_str(f, "tid", *lane ? lane : "?");
		fprintf(f, ", \"ts\": \"%s\", \"dur\": \"%s\", \"cat\": \"kernel_details\", \"args\": {", t_us, d_us);
		put_str(f, "Task Type", core);
		fputs(", ", f);
		put_str(f, "OP Type", csvt_str(k, r, COL_TYPE));
		fputs(", ", f);
		put_str(f, "Input Shapes", csvt_str(k, r, COL_INPUT_SHAPES));
		snprintf(line, sizeof line, "%u", csvt_line(k, r));
		fputs(", ", f);
		put_str(f, "file", base);
		fputs(", ", f);
		put_str(f, "line", line);
		fputs("}}", f);
	}
	/* lane names as the trace's: "Stream N" */
	if (by_stream) {
		char **seen = NULL;
		size_t n_seen = 0, cap = 0;
		for (size_t r = 0; r < k->nrows; r++) {
			const char *s = csvt_str(k, r, COL_STREAM_ID);
			bool dup = false;
			for (size_t i = 0; i < n_seen && !dup; i++)
				dup = !strcmp(seen[i], s);
			if (dup || !*s || n_seen >= 4096)
				continue;
			xgrow(&seen, &cap, n_seen + 1, sizeof *seen);
			seen[n_seen++] = (char *)s;
			fputs(",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, ", f);
			put_str(f, "tid", s);
			fputs(", \"args\": {\"name\": \"Stream ", f);
			jsonw_escape(f, s, strlen(s));
			fputs("\"}}", f);
		}
		free(seen);
	}
	fputs("]\n", f);
	fclose(f);
	kt->json = buf;
	store_init(&kt->store);
	if (!kt->rows_used || trace_load_buffer(&kt->store, base, buf, len, NULL, NULL) != 0 || !kt->store.n_ev) {
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
	free(kt->json);
	free(kt);
}
