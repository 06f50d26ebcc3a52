/* SPDX-License-Identifier: MIT */
/* Building a rank store from records a reader has in hand (rows of a table or a database),
 * without writing them as a trace to parse again: lanes by (pid, tid) text, an attribute
 * pair per event, events in the order given with their starts laid out a block at a time,
 * then the lanes as the trace loader leaves them (lanes_finish). An event's offset is the
 * reader's name for its record (a row number), read back through the reader's source
 * (capture.h). */
#ifndef ASCPROF_STORE_BUILD_H
#define ASCPROF_STORE_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "store.h"
#include "u64map.h"

struct store_build {
	struct rank_store *rs; /* borrowed: initialised and empty */
	int64_t blk[1 << STORE_TS_SHIFT]; /* the starts of the block being filled */
	size_t n, cap, cap_far, cap_long, cap_lanes, cap_kinds, cap_attrs;
	uint32_t *dur, *name, *kind; /* the columns as they grow, the store's at the end */
	struct u64map lane_map, kind_map, attr_map;
};

void store_build_begin(struct store_build *b, struct rank_store *rs);
/* s interned in the store (NULL as ""). */
uint32_t store_build_str(struct store_build *b, const char *s);
/* The lane of (pid, tid) as texts, made on first use with its process and thread names
 * (NULL: none) as a trace's metadata would name them. */
uint32_t store_build_lane(struct store_build *b, const char *pid, const char *tid, const char *process,
			  const char *thread);
/* The kind of an event on lane with attributes (cat, Task Type) as interned ids. */
uint32_t store_build_kind(struct store_build *b, uint32_t lane, uint32_t cat, uint32_t task_type);
/* One complete event, in the order the reader means (offsets must not fall). */
void store_build_event(struct store_build *b, int64_t start, int64_t dur, uint32_t name, uint32_t kind,
		       uint64_t off);
/* The columns into the store, then its lanes sorted, nested and classified (messages named
 * by name into dl, which may be NULL). */
void store_build_end(struct store_build *b, const char *name, struct diag_list *dl);

#endif
