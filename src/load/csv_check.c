/* SPDX-License-Identifier: MIT */
/* Row checks per table kind (csv_check.h). */
#include "csv_check.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "num.h"
#include "xalloc.h"

#define CHECK_EACH 5

/* One kind of problem: the first CHECK_EACH rows are named, the rest counted. */
struct check {
	const struct csv_table *t;
	struct diag_list *dl;
	size_t count;
};

static void check_row(struct check *c, size_t row, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void check_row(struct check *c, size_t row, const char *fmt, ...)
{
	if (c->count++ >= CHECK_EACH)
		return;
	char msg[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_add(c->dl, DIAG_WARN, c->t->path, (long)csvt_line(c->t, row), -1, "%s", msg);
}

static void check_done(struct check *c, const char *what)
{
	if (c->count > CHECK_EACH)
		diag_add(c->dl, DIAG_WARN, c->t->path, 0, -1, _("%zu rows in all with %s"), c->count, what);
}

struct step_at {
	int64_t id;
	size_t row;
};

static int cmp_step_at(const void *pa, const void *pb)
{
	const struct step_at *a = pa, *b = pb;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

/* Step ids: whole numbers from 0, each once, in order. Empty ids (a capture of one step)
 * are fine. */
static void check_steps(const struct csv_table *t, struct diag_list *dl)
{
	if (!csvt_has(t, COL_STEP))
		return;
	struct check bad = {t, dl, 0}, neg = {t, dl, 0}, back = {t, dl, 0}, dup = {t, dl, 0};
	struct step_at *ids = xmalloc((t->nrows ? t->nrows : 1) * sizeof *ids);
	size_t n = 0;
	bool have_prev = false;
	int64_t prev = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		const char *s = csvt_str(t, r, COL_STEP);
		size_t len = strlen(s);
		if (num_is_missing(s, len))
			continue;
		int64_t id;
		if (num_int64(s, len, &id) != NUM_OK) {
			check_row(&bad, r, _("Step \"%.40s\" is not a step number; the row is kept"), s);
			continue;
		}
		if (id < 0)
			check_row(&neg, r, _("Step %lld is negative; the row is kept"), (long long)id);
		if (have_prev && id < prev)
			check_row(&back, r, _("Step %lld comes after step %lld: the steps are out of order; the "
				  "row is kept"), (long long)id, (long long)prev);
		prev = id;
		have_prev = true;
		ids[n++] = (struct step_at){id, r};
	}
	qsort(ids, n, sizeof *ids, cmp_step_at);
	for (size_t i = 1; i < n; i++)
		if (ids[i].id == ids[i - 1].id)
			check_row(&dup, ids[i].row, _("Step %lld again (first at line %u): its times are counted "
				  "twice"), (long long)ids[i].id, csvt_line(t, ids[i - 1].row));
	free(ids);
	check_done(&bad, _("a step id that is not a number"));
	check_done(&neg, _("a negative step id"));
	check_done(&back, _("a step id lower than the one before"));
	check_done(&dup, _("a repeated step id"));
}

/* A size in MB or KB below zero. */
static void check_sign(struct check *c, size_t r, enum csv_col col)
{
	double v;
	if (csvt_has(c->t, col) && csvt_num(c->t, r, col, &v) && v < 0)
		check_row(c, r, _("%s is negative (%g); kept as read"), c->t->headers[c->t->cols[c->t->col_at[col]].index], v);
}

static void check_memory_record(const struct csv_table *t, struct diag_list *dl)
{
	struct check neg = {t, dl, 0}, no_time = {t, dl, 0};
	static const enum csv_col sizes[] = {COL_TOTAL_ALLOCATED_MB, COL_TOTAL_RESERVED_MB, COL_TOTAL_ALLOCATED_KB,
					     COL_TOTAL_RESERVED_KB};
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
			check_sign(&neg, r, sizes[k]);
		int64_t ts;
		if (csvt_has(t, COL_TIMESTAMP) && !csvt_time(t, r, COL_TIMESTAMP, &ts))
			check_row(&no_time, r, _("a sample without a readable Timestamp(us): a peak here has no time"));
	}
	check_done(&neg, _("a negative size"));
	check_done(&no_time, _("no readable timestamp"));
}

static void check_operator_memory(const struct csv_table *t, struct diag_list *dl)
{
	/* negative and empty sizes are legitimate here (allocated or released outside the
	 * window: ascend-profiling-formats.md); a release before its allocation is not */
	struct check order = {t, dl, 0};
	for (size_t r = 0; r < t->nrows; r++) {
		int64_t a, b;
		if (csvt_time(t, r, COL_ALLOCATION_TIME, &a) && csvt_time(t, r, COL_RELEASE_TIME, &b) && b < a)
			check_row(&order, r, _("released %.3f µs before it was allocated; kept as read"),
				  (double)(a - b) / 1e3);
	}
	check_done(&order, _("a release before its allocation"));
}

void csv_check_table(const struct csv_table *t, struct diag_list *dl)
{
	switch (t->kind) {
	case CSV_STEP_TRACE: check_steps(t, dl); break;
	case CSV_MEMORY_RECORD:
	case CSV_NPU_MODULE_MEM: check_memory_record(t, dl); break;
	case CSV_OPERATOR_MEMORY: check_operator_memory(t, dl); break;
	default: break;
	}
}
