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
#include "result.h"

#define CLUSTER_Z_SLOW 3.5
#define CLUSTER_MIN_EXCESS 0.05
/* the others' wait for the rank they wait for, per waiting rank, against the window */
#define CLUSTER_WAIT_MATTERS 0.02
/* ... and the others' exposed wait for it (the attribution's comm_wait), % of their window */
#define CLUSTER_EXPOSED_MATTERS_PCT 1.0

struct cluster_cell {
	int64_t dur_ns;     /* -1: the rank has no such step */
	int64_t exposed_ns; /* communication not hidden by compute */
	int64_t wait_ns;    /* collective wait starting in the step */
};

struct cluster_rank {
	int rank;
	size_t n_steps;
	bool has_x;          /* steps to judge it by */
	int64_t step_ns;     /* median step time */
	int64_t own_ns;      /* x: median of (step time - wait) */
	int64_t compute_ns;  /* median compute per step */
	int64_t wait_step_ns; /* median wait per step */
	int64_t exposed_ns, wait_ns, transfer_ns; /* totals */
	double z;            /* robust z of own_ns (INFINITY when the MAD is 0 and x differs) */
	double excess;       /* own_ns / median - 1 */
	bool slow;
	size_t last_count;   /* matched collectives where it arrived last while others waited */
	int64_t caused_ns;   /* the others' wait in those */
	int64_t before_ns[BEFORE_COUNT]; /* caused_ns by what it did just before joining */
};

struct cluster_group {
	/* borrowed from cluster_analysis strs: from the collective names
	 * (hcom_allReduce__718_...: "718"), else "all" */
	const char *name;
	size_t collectives;  /* instances matched on two ranks or more */
	size_t n_ranks;      /* ranks seen in it */
	int64_t wait_ns, transfer_ns; /* summed over ranks and instances */
	int waited_rank;     /* the rank last in more than half of its collectives, or -1 */
	size_t waited_count;
	int64_t waited_ns;   /* the others' wait where it was last */
};

struct cluster_analysis {
	size_t n_ranks, n_steps; /* n_steps: the most steps of any rank */
	struct cluster_rank *ranks; /* owned; parallel to analysis.ranks */
	/* owned: each rank's own steps, row after row (ranks of one step beside one of many
	 * cost their steps, not ranks x the most steps: 20,000 such ranks asked for 9.7 GB) */
	struct cluster_cell *cells;
	size_t *cell_at; /* owned: n_ranks + 1; rank r's row starts at cells + cell_at[r] */
	struct cluster_group *groups; /* owned */
	size_t n_groups;
	size_t matched;          /* collective instances matched across ranks */
	const char *own_basis;   /* static: what own work is (step time less what) */
	int64_t own_median_ns, own_mad_ns;
	size_t judged;           /* ranks with steps */
	size_t n_slow;
	int last_rank;           /* the rank last to arrive most often, or -1 */
	size_t waited_count;     /* in how many matched collectives it was last */
	int64_t waited_ns;       /* the others' wait in those */
	int waited_rank;         /* last_rank when it is last in more than half, and the others'
				  * wait matters (CLUSTER_WAIT_MATTERS): the rank everyone waits
				  * for; else -1. Every rank's late_rank is this one */
	/* the rank last in most collectives whose peers' wait for it is exposed less than
	 * CLUSTER_EXPOSED_MATTERS_PCT of their windows on average (it hides under their compute):
	 * then waited_rank is -1 (analysis_late_rank decides it, after the split); else -1 */
	int waited_hidden_rank;
	double waited_exposed_pct; /* the others' mean exposed wait (comm_wait), % of their window */
	int waited_before;       /* enum coll_before: what it did before joining, most of the wait */
	double waited_before_pct; /* the share of the others' wait behind that */
	struct strtab *strs;     /* owned: group names */
};

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
