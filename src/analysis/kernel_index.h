/* SPDX-License-Identifier: MIT */
/* A rank's kernel table by start time: the rows behind a device event are the rows that
 * start at its ts (the same clock) with its name. Real kernel tables are not in time
 * order, so the rows are sorted once. */
#ifndef ASCPROF_KERNEL_INDEX_H
#define ASCPROF_KERNEL_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "csv_table.h"

struct kernel_index {
	const struct csv_table *table; /* borrowed: the rank's kernel table (lives with the capture) */
	uint32_t *row;                 /* owned: the rows with a start, by start */
	int64_t *start;                /* owned: their starts, ns */
	size_t n;
};

/* Indexes table (NULL: an empty index, table NULL). ki is overwritten: free it first. */
void kernel_index_build(struct kernel_index *ki, const struct csv_table *table);
/* Frees the arrays and empties ki (table NULL). */
void kernel_index_free(struct kernel_index *ki);
/* The first position whose start is ts or later (n when none): the rows starting at ts are
 * row[i] for i from there while start[i] == ts. */
size_t kernel_index_at(const struct kernel_index *ki, int64_t ts);

#endif
