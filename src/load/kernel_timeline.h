/* SPDX-License-Identifier: MIT */
/* A timeline from kernel_details.csv for a rank without a trace: one device lane per
 * Stream ID (else per Accelerator Core), one event per row with a start and a duration,
 * read through the trace loader from a trace written in memory, so that the Timeline
 * draws, indexes and details it as it does a trace (its args are the row's cells that
 * matter, with the row's file and line). The rank's analysis is not changed by it. */
#ifndef ASCPROF_KERNEL_TIMELINE_H
#define ASCPROF_KERNEL_TIMELINE_H

#include <stddef.h>

#include "category.h"
#include "csv_table.h"
#include "lod.h"
#include "store.h"

struct kernel_timeline {
	struct rank_store store;
	char *json;            /* owned: the trace the store was read from (args are read again from it) */
	struct ev_class *cls;  /* owned, per event */
	struct lane_lod *lods; /* owned, per lane */
	size_t rows_used, rows_skipped; /* rows without a start or a duration are skipped */
};

/* Owned (kernel_timeline_free; k is borrowed for the call); NULL when the table has no
 * row with a start and a duration. */
struct kernel_timeline *kernel_timeline_build(const struct csv_table *k);
void kernel_timeline_free(struct kernel_timeline *kt);

#endif
