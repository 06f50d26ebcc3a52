/* SPDX-License-Identifier: MIT */
/* Per-rank metrics from the interval sets (window, device, host, communication, copies,
 * syncs, per step), the attribution and the landmarks, the cross-checks against the
 * exporter's own figures, and the figures of the CSV tables alone (PMU ratios, memory).
 * The driver (analysis.c) calls them in order; each writes only ra. */
#ifndef ASCPROF_METRICS_H
#define ASCPROF_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "rank_sets.h"
#include "result.h"

/* PMU ratios and Duration/AICore from the kernel table, memory from the memory tables
 * (rd borrowed): nothing of the trace, so it may run beside the rest. */
void metrics_csv(const struct rank_data *rd, struct rank_analysis *ra);
/* Device, host and communication figures over the window [lo, hi) (src_*: static text
 * naming where the figures come from), and each step's dispatched ops. Normalises some
 * of s. */
void metrics_window(const struct rank_store *rs, struct rank_analysis *ra, struct rank_sets *s, int64_t lo,
		    int64_t hi, const char *src_dev, const char *src_host);
/* Gaps shorter than this are launch jitter, not idleness. */
#define IDLE_MIN_GAP_NS 50000
/* The window in disjoint buckets (attribution.h); exposed communication left unsplit. */
void metrics_attribution(struct rank_sets *s, struct rank_analysis *ra, int64_t lo, int64_t hi);
/* The same partition of [lo, hi) with the device's span given (a part of the window keeps
 * the window's edges): what a phase's steps are summed from (phase_verdict.h). */
void metrics_attribution_in(struct rank_sets *s, int64_t lo, int64_t hi, int64_t span_lo, int64_t span_hi,
			    struct attribution *out);
/* The longest idle gap, exposed collective, device copy and host sync (ra->longest_*). */
void metrics_landmarks(struct rank_sets *s, struct rank_analysis *ra, int64_t lo, int64_t hi);
/* Each step's figures over its window (its dispatched ops: metrics_window, before). */
void metrics_per_step(struct rank_analysis *ra, struct rank_sets *s);
/* Cross-checks: the exporter's Overlap Analysis lane, and step_trace_time.csv (st
 * borrowed, may be NULL), each appended to ra->checks. */
void metrics_overlap_lane_check(const struct rank_store *rs, struct rank_sets *s, struct rank_analysis *ra);
void metrics_step_trace_check(const struct csv_table *st, struct rank_sets *s, struct rank_analysis *ra,
			      int64_t win_lo, int64_t win_hi);
/* A rank with neither a trace nor timed kernel rows: the attribution from
 * step_trace_time.csv (st borrowed, may be NULL). */
void metrics_step_trace_attribution(const struct csv_table *st, struct rank_analysis *ra);
/* Step count, phases and percentiles, and the per-step figures summed over the steps;
 * dir_before: device copies whose direction no link gave (rank_sets.copies_dir_before). */
void metrics_step_summary(struct rank_analysis *ra, size_t dir_before);

#endif
