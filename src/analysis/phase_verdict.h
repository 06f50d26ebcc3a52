/* SPDX-License-Identifier: MIT */
/* A verdict per phase (ranks[].by_phase): the steps of each phase (prefill, decode, mixed,
 * unknown; a training workload's steps are one "training" phase), their windows in the
 * attribution's buckets and the bottleneck rules over those buckets. A phase's buckets are
 * the window's partition restricted to its steps' windows (metrics_attribution_in per
 * step, summed), so they sum to its wall and, over the phases, never exceed the rank's
 * buckets (equal when the steps cover the window). On vLLM a prefill step's time and a
 * decode step's time are the device side of time to first token and time per output
 * token. */
#ifndef ASCPROF_PHASE_VERDICT_H
#define ASCPROF_PHASE_VERDICT_H

#include "rank_sets.h"
#include "result.h"

/* Each phase's steps, durations and partition (ra->by_phase), from the sets, once the
 * window's attribution is done (its span is the phases' too). Steps without a window (a
 * step table's rows) give no phase. */
void phase_partition(struct rank_sets *s, struct rank_analysis *ra);
/* Each phase's split of its exposed communication (the rank's, shared out by the phases'
 * unsplit time) and its verdict: run by bottleneck_candidates after the rank's. */
void phase_verdicts(struct rank_analysis *ra);
/* "prefill", "decode", "mixed", "unknown" or "training" (static, N_). */
const char *phase_verdict_name(const struct phase_verdict *pv);
/* What holds the phase back in a few words: its first candidate's name, or that none
 * triggers, or "insufficient data" (static or translated). */
const char *phase_verdict_short(const struct rank_analysis *ra, const struct phase_verdict *pv);
/* Under this share of a phase's wall free in device gaps under 50 us, no launch-bound
 * reading is given. */
#define PHASE_LAUNCH_BOUND_PCT 10.0

#endif
