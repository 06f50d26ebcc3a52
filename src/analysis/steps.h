/* SPDX-License-Identifier: MIT */
/* Step detection (markers, engine ops, the repeating op sequence, idle gaps), the workload
 * (inference or training) and each step's phase (prefill, decode, mixed) from the first
 * signal in order, with signal, confidence and evidence; the steps no signal settles are
 * read against those it did. */
#ifndef ASCPROF_STEPS_H
#define ASCPROF_STEPS_H

#include <stddef.h>

#include "capture.h"
#include "diag.h"
#include "rank_sets.h"
#include "result.h"

/* One rank's steps, workload and phases (ra->steps and the step_/phase_/workload_ fields).
 * sets: the rank's sets, perhaps still being built (waited for only for idle-gap steps);
 * NULL without a timeline. */
void steps_find(const struct capture *cap, size_t rank_index, struct rank_analysis *ra,
		    struct pending_sets *sets, struct diag_list *dl);
/* Ranks whose own files show no workload (no trace, no kernel table) take training from a
 * peer of the same capture when no rank shows inference. */
void steps_workload_peers(struct rank_analysis *ranks, size_t n);

#endif
