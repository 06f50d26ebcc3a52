/* SPDX-License-Identifier: MIT */
/* The cluster analysis's types (cluster.h has the analysis and its rules): what struct
 * analysis holds of it (result.h), apart from the analysis, which reads the ranks. */
#ifndef ASCPROF_CLUSTER_TYPES_H
#define ASCPROF_CLUSTER_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a rank's device did just before a collective started (comm_split.h). */
enum coll_before { BEFORE_UNKNOWN, BEFORE_COMPUTE, BEFORE_COLLECTIVE, BEFORE_HOST, BEFORE_IDLE, BEFORE_COUNT };

struct strtab;

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
	 * then waited_rank is -1 (comm_ranks_late_rank decides it, after the split); else -1 */
	int waited_hidden_rank;
	double waited_exposed_pct; /* the others' mean exposed wait (comm_wait), % of their window */
	int waited_before;       /* enum coll_before: what it did before joining, most of the wait */
	double waited_before_pct; /* the share of the others' wait behind that */
	struct strtab *strs;     /* owned: group names */
};

#endif
