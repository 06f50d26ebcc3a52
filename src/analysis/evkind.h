/* SPDX-License-Identifier: MIT */
/* What an event or a kernel table row is beyond its category: whole collectives (not
 * their sub-tasks) and their payload, and a kernel row's class computed once per distinct
 * (name, core). Shared by the metrics, the op statistics and the alignment. */
#ifndef ASCPROF_EVKIND_H
#define ASCPROF_EVKIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "category.h"
#include "csv_table.h"
#include "store.h"
#include "u64map.h"

/* Collectives: whole collective operations, not their sub-tasks. */
bool analysis_has_group_lanes(const struct rank_store *rs);
bool analysis_is_collective_named(const struct rank_store *rs, const struct ev_class *cls, uint32_t ev,
				  bool have_group_lanes);
/* Lane and class first, inline: the scans over every event ask this of each one, and few
 * are on a lane that can hold collectives. */
static inline bool analysis_is_collective(const struct rank_store *rs, const struct ev_class *cls, uint32_t ev,
					  bool have_group_lanes)
{
	const struct lane *l = store_ev_lane(rs, ev);
	if (have_group_lanes ? l->group != LANE_COMM : l->group != LANE_DEVICE || cls[ev].cat != CAT_COMM)
		return false;
	return analysis_is_collective_named(rs, cls, ev, have_group_lanes);
}
/* A collective's payload from its args (count x data_type size), in bytes; 0 unknown. */
double analysis_collective_bytes(const struct rank_store *rs, uint32_t ev);

/* A kernel table row's class (category_of on its name and accelerator core), computed once
 * per distinct (name, core) pair of string ids: category_of tries the rule table's
 * substring rules, thousands of instructions a row on a table of a million rows. Start
 * with {0}; analysis_kernel_memo_free after. */
struct kernel_memo {
	struct u64map map; /* name id << 32 | core id -> 1 << 16 | flags << 8 | cat */
	/* owned: per name id, the last core id looked up with it << 32 | its map value (0:
	 * none yet); most names run on one core, so most rows skip the map's hash */
	uint64_t *by_name;
	uint32_t n_names;
};
struct ev_class analysis_kernel_class(struct kernel_memo *m, const struct csv_table *k, size_t row);
void analysis_kernel_memo_free(struct kernel_memo *m);

#endif
