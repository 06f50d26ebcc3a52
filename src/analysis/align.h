/* SPDX-License-Identifier: MIT */
/* Clock alignment across ranks (first event, raw, matched collectives), the collectives'
 * spread (waiting versus transfer) and the slow-rank flags. */
#ifndef ASCPROF_ALIGN_H
#define ASCPROF_ALIGN_H

#include <stdbool.h>
#include <stddef.h>

#include "capture.h"
#include "result.h"

/* A rank's collectives sorted by end (an owned array in *out), with their payloads (the
 * first 100,000: each is read from the trace again). Each rank's analysis finds its own
 * (analysis.c); thread-safe. */
size_t align_collectives(const struct capture *cap, const struct rank_analysis *ra, struct coll_inst **out);
/* Alignment and the collective spread (offsets, residuals, coll_wait/transfer) of ranks
 * from their collective lists; ranks[0] is the reference. */
void align_lists(struct rank_analysis *ranks, size_t n, struct coll_inst *const *cs, const size_t *ncs);
/* The figures that differ most across ranks (an->slow). */
void align_slow_ranks(struct analysis *an);

#endif
