/* SPDX-License-Identifier: MIT */
/* The text source: a rank's trace_view.json or msprof_*.json (one file, or slices read as
 * one trace), through the persistent index; its CSV tables and communication files are
 * the plan's. */
#include "config.h"
#include "capture.h"

#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "trace.h"
#include "xalloc.h"

/* By slice number (numerically: slice 10 after slice 9), then by name. */
static int source_text_cmp_slice(const void *a, const void *b)
{
	const char *pa = *(const char *const *)a, *pb = *(const char *const *)b;
	long x = discover_slice_number(pa), y = discover_slice_number(pb);
	if (x != y)
		return x < y ? -1 : 1;
	return strcmp(pa, pb);
}

/* The timeline files of a rank into *out (owned array of borrowed paths): every slice in
 * slice order when the export is sliced, else the one file (a second unsliced timeline is
 * reported and left out). */
static size_t source_text_files(struct diag_list *dl, const struct rank_data *rd, const char ***out)
{
	size_t n = 0, n_plain = 0;
	const char *plain = NULL;
	*out = xcalloc(rd->plan->n_files ? rd->plan->n_files : 1, sizeof **out);
	for (size_t i = 0; i < rd->plan->n_files; i++) {
		const struct found_file *f = &rd->plan->files[i];
		if (f->role != ROLE_TRACE)
			continue;
		if (discover_slice_number(f->path) >= 0)
			(*out)[n++] = f->path;
		else if (n_plain++ == 0)
			plain = f->path;
	}
	if (n) {
		qsort(*out, n, sizeof **out, source_text_cmp_slice);
		if (n_plain)
			diag_add(dl, DIAG_WARN, plain, 0, -1,
				 _("a timeline beside %zu slices of another; only the slices are read"), n);
		/* slices are numbered from 0 without gaps: say which are missing */
		long expect = 0;
		size_t gaps = 0;
		for (size_t i = 0; i < n; i++) {
			long k = discover_slice_number((*out)[i]);
			if (k == expect + 1 && gaps++ < 5)
				diag_add(dl, DIAG_WARN, (*out)[i], 0, -1, _("slice %ld is missing (read on without it)"),
					 expect);
			else if (k > expect + 1 && gaps++ < 5)
				diag_add(dl, DIAG_WARN, (*out)[i], 0, -1,
					 _("slices %ld to %ld are missing (read on without them)"), expect, k - 1);
			if (k >= expect)
				expect = k + 1;
		}
		return n;
	}
	if (!plain)
		return 0;
	if (n_plain > 1)
		diag_add(dl, DIAG_WARN, plain, 0, -1,
			 _("%zu timeline files in this directory; only this one is read"), n_plain);
	(*out)[0] = plain;
	return 1;
}

static bool source_text_probe(struct rank_data *rd, enum capture_source want, struct diag_list *dl)
{
	(void)want;
	(void)dl;
	return discover_find(rd->plan, ROLE_TRACE) != NULL;
}

static uint64_t source_text_load_bytes(const struct rank_data *rd)
{
	uint64_t n = 0;
	for (size_t k = 0; k < rd->plan->n_files; k++)
		if (rd->plan->files[k].role == ROLE_TRACE)
			n += rd->plan->files[k].size; /* over slices */
	return n;
}

static struct trace_load_opts source_text_opts(const struct source_load_ctx *ctx)
{
	return (struct trace_load_opts){.threads = ctx->threads, .max_file_bytes = ctx->max_trace_bytes};
}

static void source_text_load(struct rank_data *rd, const struct source_load_ctx *ctx, struct diag_list *dl)
{
	const char **paths;
	size_t n = source_text_files(dl, rd, &paths);
	if (n) {
		struct trace_load_opts topts = source_text_opts(ctx);
		topts.progress = &rd->trace_bytes_done;
		rd->trace_failed = tindex_load_trace(&rd->store, paths, n, &topts, ctx->index, &rd->index, dl) != 0;
	}
	free(paths);
}

static void source_text_verify(struct rank_data *rd, const struct source_load_ctx *ctx, struct diag_list *dl)
{
	struct diag_list scratch; /* the slices' messages were given when it loaded */
	diag_init(&scratch);
	const char **paths;
	size_t n = source_text_files(&scratch, rd, &paths);
	diag_free(&scratch);
	struct trace_load_opts topts = source_text_opts(ctx);
	rd->trace_failed = tindex_verify_trace(&rd->store, paths, n, &topts, ctx->index, &rd->index, dl) != 0;
	free(paths);
}

const struct source_ops source_text = {
	.name = "text",
	.probe = source_text_probe,
	.load_bytes = source_text_load_bytes,
	.load = source_text_load,
	.verify = source_text_verify,
	.csv_files = true,
	.comm_files = true,
	.entry_text = trace_element_json,
	.event_args = trace_event_args,
};
