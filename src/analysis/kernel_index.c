/* SPDX-License-Identifier: MIT */
/* The kernel table by start time (kernel_index.h). */
#include "kernel_index.h"

#include <stdlib.h>
#include <string.h>

#include "lower_bound.h"
#include "xalloc.h"

static int cmp_start(const void *a, const void *b, void *ctx)
{
	const int64_t *start = ctx;
	int64_t x = start[*(const uint32_t *)a], y = start[*(const uint32_t *)b];
	return x < y ? -1 : x > y;
}

void kernel_index_build(struct kernel_index *ki, const struct csv_table *table)
{
	memset(ki, 0, sizeof *ki);
	if (!table)
		return;
	ki->table = table;
	size_t nrows = table->nrows ? table->nrows : 1;
	int64_t *starts = xmalloc(nrows * sizeof *starts);
	ki->row = xmalloc(nrows * sizeof *ki->row);
	for (size_t r = 0; r < table->nrows; r++) {
		int64_t s;
		if (!csvt_time(table, r, COL_START, &s))
			continue;
		starts[r] = s;
		ki->row[ki->n++] = (uint32_t)r;
	}
	xqsort_r(ki->row, ki->n, sizeof *ki->row, cmp_start, starts);
	ki->start = xmalloc((ki->n ? ki->n : 1) * sizeof *ki->start);
	for (size_t i = 0; i < ki->n; i++)
		ki->start[i] = starts[ki->row[i]];
	free(starts);
}

void kernel_index_free(struct kernel_index *ki)
{
	free(ki->row);
	free(ki->start);
	memset(ki, 0, sizeof *ki);
}

size_t kernel_index_at(const struct kernel_index *ki, int64_t ts)
{
	return i64_lower_bound(ki->start, ts, 0, ki->n);
}
