/* SPDX-License-Identifier: MIT */
/* A timeline from kernel_details.csv for a rank without a trace: one device lane per
 * Stream ID (else per Accelerator Core), one event per row with a start and a duration,
 * built straight into a store (store_build.h), so that the Timeline draws, indexes and
 * details it as it does a trace: an event's offset is its row, its args the row's cells
 * that matter with the row's file and line (read back through the tables source,
 * capture.h). The rank's analysis is not changed by it. */
#ifndef ASCPROF_KERNEL_TIMELINE_H
#define ASCPROF_KERNEL_TIMELINE_H

#include <stddef.h>

#include "category.h"
#include "csv_table.h"
#include "lod.h"
#include "sbuf.h"
#include "store.h"

struct kernel_timeline {
	struct rank_store store;
	const struct csv_table *table; /* borrowed: the kernel table (the capture's) */
	struct ev_class *cls;  /* owned, per event */
	struct lane_lod *lods; /* owned, per lane */
	size_t rows_used, rows_skipped; /* rows without a start or a duration are skipped */
};

/* Owned (kernel_timeline_free; k is borrowed for the call); NULL when the table has no
 * row with a start and a duration. */
struct kernel_timeline *kernel_timeline_build(const struct csv_table *k);
void kernel_timeline_free(struct kernel_timeline *kt);
/* What the tables source reads back of a kernel timeline's store: event ev's args as
 * "key: value" lines (their number, or -1 with a message), the row at offset off as the
 * trace element it stands for (0, or -1 with a message). */
int kernel_timeline_row_args(const struct rank_store *rs, size_t ev, struct sbuf *out);
int kernel_timeline_row_json(const struct rank_store *rs, uint64_t off, struct sbuf *out);

#endif
