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
void bottleneck_candidates(struct rank_analysis *ra);
/* Whether the attribution holds device time enough to be judged (the verdict says
 * "insufficient data" below it). */
bool bottleneck_device_sampled(const struct attribution *a);
/* Room for a verdict line (four candidates, a reason, a translation's wider bytes). */
#define VERDICT_MAX 1024
/* Room for the reason of bottleneck_verdict_reason. */
#define VERDICT_REASON_MAX 256
/* One line naming what holds the rank back: the triggered candidates in the order of
 * bottleneck_verdict_order, each with its expected gain, score and its buckets' share of the
 * window (and why, when a candidate scored above the first); or "no candidate reaches its
 * threshold", or "insufficient data" and why (no timeline; the device idle with no host
 * trace to say why). Written to buf (VERDICT_MAX bytes hold it). */
const char *bottleneck_verdict(const struct rank_analysis *ra, char *buf, size_t size);
/* Whether the verdict names a collective first (ra->outliers, comm_split.h): it costs more
 * than the first candidate gives back, or no candidate triggered. */
bool bottleneck_verdict_leads_collective(const struct rank_analysis *ra);
/* The candidates by score, highest first (a stable order: ties keep the enum order): the
 * report's list of candidates. */
void bottleneck_order(const struct rank_analysis *ra, int order[BN_COUNT]);
/* The verdict's order: the triggered candidates by expected gain (the midpoint of its
 * range: a user acts on the first name, so it is the one that gives back the most time),
 * ties by score, then the enum's order; a triggered candidate whose gain cannot be
 * estimated after those whose gain can; then the others by score. */
void bottleneck_verdict_order(const struct rank_analysis *ra, int order[BN_COUNT]);
/* Whether candidate k's expected gain is an estimate (no timeline, or host dispatch with no
 * host trace: it is not), and the midpoint of its range. */
bool bottleneck_gain_known(const struct rank_analysis *ra, int k);
double bottleneck_gain_mid(const struct bottleneck *b);
/* Why candidate k, triggered and scored above the verdict's first, comes after it: a short
 * phrase written to buf; NULL when k needs none. */
const char *bottleneck_verdict_reason(const struct rank_analysis *ra, int k, char *buf, size_t size);

/* The threshold table of the bottleneck scores (bottleneck.c; static). */
struct threshold_def {
	enum bottleneck_kind kind;
	const char *metric; /* static: metric key */
	double threshold;   /* score 40 at this value */
	double full;        /* score 100 at this value */
	bool scores;        /* false: context shown beside the score, never moving it */
	const char *why;    /* static: what a value at or above the threshold says */
	const char *why_not; /* static: what a value below it says (the evidence states the rule
			      * the way the value lies, not the crossing's claim when it fails) */
};
extern const struct threshold_def threshold_defs[];
extern const size_t n_threshold_defs;

#endif
