/* SPDX-License-Identifier: MIT */
/* The bottleneck verdict: the threshold table, each candidate's score, evidence and
 * expected gain from the attribution and the metrics, and the verdict line. */
#ifndef ASCPROF_BOTTLENECK_H
#define ASCPROF_BOTTLENECK_H

#include <stdbool.h>
#include <stddef.h>

#include "result.h"

/* Scores every candidate of one rank (ra->bn, the attribution's share metrics): after its
 * metrics, steps and communication split are done. */
void analysis_bottlenecks(struct rank_analysis *ra);
/* One line naming what holds the rank back: the triggered candidate(s) with their share of
 * the window, "no candidate reaches its threshold", or "insufficient data" and why (no
 * timeline; the device idle with no host trace to say why). Written to buf. */
const char *analysis_verdict(const struct rank_analysis *ra, char *buf, size_t size);
/* The candidates by score, highest first (a stable order: ties keep the enum order). */
void analysis_bottleneck_order(const struct rank_analysis *ra, int order[BN_COUNT]);

/* The threshold table of the bottleneck scores (bottleneck.c; static). */
struct threshold_def {
	enum bottleneck_kind kind;
	const char *metric; /* static: metric key */
	double threshold;   /* score 40 at this value */
	double full;        /* score 100 at this value */
	bool scores;        /* false: context shown beside the score, never moving it */
	const char *why;    /* static */
};
extern const struct threshold_def threshold_defs[];
extern const size_t n_threshold_defs;

#endif
