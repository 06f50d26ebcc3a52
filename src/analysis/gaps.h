/* SPDX-License-Identifier: MIT */
/* The device-idle gaps of a rank's window, each with the reason read from what surrounds
 * it: the largest ones kept, and the time of all of them by cause. A gap is a stretch of the
 * window where the device neither runs a task nor takes part in a collective (the gaps of
 * rank_sets' occupied set), cut where a step's span begins or ends, so that each piece lies
 * in one step or between two. The gaps together are the attribution's device-idle buckets
 * (host_sync, host_copy, host_dispatch, host_python, idle and edge_idle): the same time,
 * split by why rather than by what the host did. The types are gap_types.h's (result.h
 * holds them); the analysis (gaps_rank) runs once the rank's sets, steps and attribution
 * are known. */
#ifndef ASCPROF_GAPS_H
#define ASCPROF_GAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gap_types.h"

struct rank_store;
struct ev_class;
struct rank_sets;
struct rank_analysis;

/* Fills ra->gaps from the sets (occupied normalised, as metrics_attribution leaves it), the
 * steps and the attribution's span over [lo, hi). rs and cls are read only with a trace. */
void gaps_rank(const struct rank_store *rs, const struct ev_class *cls, struct rank_sets *s,
	       struct rank_analysis *ra, int64_t lo, int64_t hi);

#endif
