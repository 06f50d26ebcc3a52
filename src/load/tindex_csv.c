/* SPDX-License-Identifier: MIT */
/* The trace index's kind for CSV tables: typed columns and row offsets (trace_index_internal.h). */
#include "trace_index_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "i18n.h"
#include "xalloc.h"

/* ---- CSV tables --------------------------------------------------------------------- */

struct csv_ctx {
	const char *path;
	tindex_csv_loader load_fn;
	void *load_ctx;
	struct csv_table *t; /* the result */
};

static int load_csv(void *ctx, struct diag_list *dl, struct sbuf *why)
{
	struct csv_ctx *c = ctx;
	c->t = c->load_fn(c->path, c->load_ctx, dl);
	if (!c->t) {
		sbuf_addf(why, "the table could not be read");
		return -1;
	}
	/* cells are read again from the file itself: a table held in memory (converted from
	 * UTF-16, made from a Db) or joined from slices is not indexed */
	if (c->t->mem || c->t->mem_owned || c->t->data_fd >= 0 || c->t->n_parts || strcmp(c->t->path, c->path)) {
		sbuf_addf(why, "the table is not read from its file as it is");
		return -1;
	}
	return 0;
}

static size_t csv_type_size(enum csv_type t)
{
	switch (t) {
	case CSVT_STR: return sizeof(uint32_t);
	case CSVT_TIME: return sizeof(int64_t);
	case CSVT_NUM: return sizeof(double);
	case CSVT_RATIO: return sizeof(float);
	}
	return 0;
}

static void w_steps(struct tix_writer *w, const struct csvt_steps *st)
{
	tix_w_u64(w, st->n);
	for (size_t i = 0; i < st->n; i++) {
		tix_w_u64(w, st->at[i].row);
		tix_w_u64(w, (uint64_t)st->at[i].v);
	}
}

static void write_csv(struct tix_writer *w, void *ctx, const struct diag_list *dl, size_t diag0, size_t dropped0)
{
	struct csv_ctx *c = ctx;
	const struct csv_table *t = c->t;
	uint64_t head[] = {t->kind, t->ncols, t->n_typed, t->nrows, t->file_size, t->bom, t->crlf, t->gbk,
			   t->ragged_rows, t->excel_numbers, t->bad_numbers};
	tix_w_arr(w, head, sizeof head);
	for (size_t i = 0; i < t->ncols; i++)
		tix_w_str(w, t->headers[i], strlen(t->headers[i]));
	tix_w_align(w);
	for (size_t i = 0; i < t->ncols; i++) {
		int32_t v = t->header_col[i];
		tix_w_raw(w, &v, sizeof v);
	}
	tix_w_align(w);
	for (size_t i = 0; i < CSV_COL_COUNT; i++) {
		int32_t v = t->col_at[i];
		tix_w_raw(w, &v, sizeof v);
	}
	for (size_t i = 0; i < t->n_typed; i++) {
		const struct csv_column *col = &t->cols[i];
		tix_w_u64(w, (uint64_t)col->col);
		tix_w_u64(w, (uint64_t)col->type);
		tix_w_u64(w, (uint64_t)(int64_t)col->index);
		tix_w_arr(w, col->v.str, t->nrows * csv_type_size(col->type));
	}
	tix_w_arr(w, t->row_off_lo, t->nrows * sizeof *t->row_off_lo);
	w_steps(w, &t->off_high);
	w_steps(w, &t->line_skew);
	tix_w_strtab(w, t->strs);
	const char *paths[] = {c->path};
	tix_w_diags(w, paths, 1, dl, diag0, dropped0);
}

static bool r_steps(struct tix_reader *r, struct csvt_steps *st, size_t nrows)
{
	uint64_t n = tix_r_u64(r);
	if (r->bad || n > nrows + 1)
		return false;
	st->at = xcalloc(n ? n : 1, sizeof *st->at);
	st->n = st->cap = n;
	for (size_t i = 0; i < n; i++) {
		st->at[i].row = tix_r_u64(r);
		st->at[i].v = (int64_t)tix_r_u64(r);
		if (i && st->at[i].row <= st->at[i - 1].row)
			return false;
	}
	return !r->bad;
}

/* Every index the table holds points inside it (see store_sane). */
static bool csv_sane(const struct csv_table *t)
{
	uint32_t n_str = strtab_count(t->strs);
	for (size_t i = 0; i < t->ncols; i++)
		if (t->header_col[i] < -1 || t->header_col[i] >= CSV_COL_COUNT)
			return false;
	for (size_t i = 0; i < CSV_COL_COUNT; i++)
		if (t->col_at[i] < -1 || t->col_at[i] >= (int)t->n_typed)
			return false;
	for (size_t i = 0; i < t->n_typed; i++) {
		const struct csv_column *col = &t->cols[i];
		if (col->index < 0 || (size_t)col->index >= t->ncols || t->col_at[col->col] != (int)i)
			return false;
		if (col->type == CSVT_STR && !tix_all_below(col->v.str, t->nrows, n_str))
			return false;
	}
	return true;
}

static bool read_csv_payload(struct csv_table *t, struct tix_reader *r, const char *path, struct diag_list *dl)
{
	const uint64_t *head = tix_r_arr(r, 11, 8);
	if (!head || head[0] >= CSV_KIND_COUNT || head[1] > (1u << 20) || head[2] > head[1] || head[2] > CSV_COL_COUNT ||
	    head[3] > UINT32_MAX * (uint64_t)16)
		return false;
	t->kind = (enum csv_kind)head[0];
	t->ncols = head[1];
	size_t n_typed = head[2];
	t->nrows = t->cap_rows = head[3];
	t->file_size = head[4];
	t->bom = head[5];
	t->crlf = head[6];
	t->gbk = head[7];
	t->ragged_rows = head[8];
	t->excel_numbers = head[9];
	t->bad_numbers = head[10];
	t->headers = xcalloc(t->ncols ? t->ncols : 1, sizeof *t->headers);
	for (size_t i = 0; i < t->ncols; i++)
		if (!(t->headers[i] = tix_r_str(r)))
			return false;
	const int32_t *hc = tix_r_arr(r, t->ncols, 4);
	const int32_t *ca = tix_r_arr(r, CSV_COL_COUNT, 4);
	if (!hc || !ca)
		return false;
	t->header_col = xcalloc(t->ncols ? t->ncols : 1, sizeof *t->header_col);
	for (size_t i = 0; i < t->ncols; i++)
		t->header_col[i] = hc[i];
	for (size_t i = 0; i < CSV_COL_COUNT; i++)
		t->col_at[i] = ca[i];
	t->cols = xcalloc(n_typed ? n_typed : 1, sizeof *t->cols);
	for (size_t i = 0; i < n_typed; i++) {
		struct csv_column *col = &t->cols[i];
		uint64_t cc = tix_r_u64(r), type = tix_r_u64(r), index = tix_r_u64(r);
		if (r->bad || cc >= CSV_COL_COUNT || type != (uint64_t)csv_schema_type((enum csv_col)cc) ||
		    index > INT32_MAX)
			return false;
		col->col = (enum csv_col)cc;
		col->type = (enum csv_type)type;
		col->index = (int)index;
		col->v.str = (uint32_t *)tix_r_arr(r, t->nrows, csv_type_size(col->type));
		if (!col->v.str)
			return false;
		t->n_typed = i + 1;
	}
	t->row_off_lo = (uint32_t *)tix_r_arr(r, t->nrows, 4);
	if (!t->row_off_lo || !r_steps(r, &t->off_high, t->nrows) || !r_steps(r, &t->line_skew, t->nrows) ||
	    !tix_r_strtab(r, t->strs))
		return false;
	const char *paths[] = {path};
	return tix_r_diags(r, paths, 1, dl) && csv_sane(t);
}

static bool read_csv(struct tix_reader *r, void *map, size_t len, void *ctx, struct diag_list *dl)
{
	struct csv_ctx *c = ctx;
	struct csv_table *t = xcalloc(1, sizeof *t);
	t->path = xstrdup(c->path);
	t->strs = strtab_new();
	t->data_fd = -1;
	t->map = map;
	t->map_len = len;
	for (size_t i = 0; i < CSV_COL_COUNT; i++)
		t->col_at[i] = -1;
	if (!read_csv_payload(t, r, c->path, dl)) {
		csvt_free(t); /* unmaps */
		return false;
	}
	c->t = t;
	return true;
}

/* A deferred write keeps the table (the caller's, alive until the writes have run). */
static void *keep_csv(void *ctx, const char *const *paths, size_t n)
{
	(void)n;
	const struct csv_ctx *c = ctx;
	struct csv_ctx *kept = xmalloc(sizeof *kept);
	*kept = (struct csv_ctx){.path = paths[0], .t = c->t};
	return kept;
}

static void say_csv(struct diag_list *dl, const char *file, const char *index, const char *why)
{
	if (index)
		diag_add(dl, DIAG_WARN, file, 0, -1, _("the table's index %s was not written: %s"), index, why);
	else
		diag_add(dl, DIAG_INFO, file, 0, -1, _("%s; the table is read again and its index rebuilt"), why);
}

static const struct tix_kind csv_kind = {
	.name = "csv", .what = "table", .limit = "--max-csv-bytes",
	.say = say_csv,
	.load = load_csv, .write = write_csv, .read = read_csv, .keep = keep_csv, .drop = free};

struct csv_table *tindex_load_csv(const char *path, tindex_csv_loader load, void *ctx, uint64_t max_file_bytes,
				  const struct tindex_opts *io, struct tindex_status *st, struct diag_list *dl)
{
	struct csv_ctx c = {.path = path, .load_fn = load, .load_ctx = ctx};
	const char *paths[] = {path};
	tix_load(&csv_kind, &c, paths, 1, max_file_bytes, io, st, dl);
	return c.t;
}
