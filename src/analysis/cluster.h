/* SPDX-License-Identifier: MIT */
/* The cluster analysis: every rank side by side, from what a digest carries (steps,
 * attribution, collectives), so it runs the same on captures and on digests.
 *
 * - Ranks x steps: each step's time, exposed communication and collective wait.
 * - Collective wait and transfer (msprof-analyze's cluster_time_summary): the same
 *   collective on every rank of its group (matched by name and occurrence: the k-th
 *   hcom_allReduce__718_3_1 of each rank) takes transfer = its least duration across
 *   those ranks; each rank's wait is its own duration minus that least. The rank with the
 *   least duration arrived last: the others waited for it.
 * - Slow ranks by a robust statistic: x = a rank's own work per step, the median over its
 *   steps of (step time - collective wait in the step). A rank that computes longer makes
 *   its peers wait, so its step time matches theirs while its own work stands out. With
 *   the median and the MAD (median absolute deviation) of x over the ranks, the robust
 *   z = (x - median) / (1.4826 x MAD) (1.4826 x MAD estimates the standard deviation of
 *   normal data, and one slow rank among many moves neither). A rank is slow when z > 3.5
 *   (Iglewicz and Hoaglin's outlier cut) and x exceeds the median by more than 5 % (so
 *   nanosecond jitter on a balanced run, where the MAD is near 0, flags nothing). */
#ifndef ASCPROF_CLUSTER_H
#define ASCPROF_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster_output.h"
#include "cluster_types.h"
#include "result.h"

#define CLUSTER_Z_SLOW 3.5
#define CLUSTER_MIN_EXCESS 0.05
/* the others' wait for the rank they wait for, per waiting rank, against the window */
#define CLUSTER_WAIT_MATTERS 0.02
/* ... and the others' exposed wait for it (the attribution's comm_wait), % of their window */
#define CLUSTER_EXPOSED_MATTERS_PCT 1.0

/* Owned (cluster_free); it borrows an's ranks' strings. NULL below two ranks. */
struct cluster_analysis *cluster_analyse(const struct analysis *an);
void cluster_free(struct cluster_analysis *ca);
/* A step the rank does not have: dur_ns -1. */
extern const struct cluster_cell cluster_cell_none;
static inline const struct cluster_cell *cluster_cell(const struct cluster_analysis *ca, size_t r, size_t s)
{
	return s < ca->cell_at[r + 1] - ca->cell_at[r] ? &ca->cells[ca->cell_at[r] + s] : &cluster_cell_none;
}
/* The ranks of msprof-analyze's cluster_analysis_output (co, read by the load floor:
 * cluster_output.h) as rank analyses of an, whose capture is co's: steps with Computing,
 * Communication(Not Overlapped), Free, Stage as the step time, no events. */
void cluster_output_ranks(struct analysis *an, const struct cluster_output *co);
/* The group key of a collective name, written to buf. */
const char *cluster_group_of(const char *name, char *buf, size_t size);

#endif
