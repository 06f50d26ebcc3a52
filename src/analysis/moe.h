/* SPDX-License-Identifier: MIT */
/* Mixture-of-experts layers and expert load across ranks (issue 42).
 *   layers    recognised from the device's kernels and collectives: MoeDistributeDispatch
 *             and MoeDistributeCombine (MC2, any version), GroupedMatmul (and its fused
 *             variants), the all-to-alls around the grouped matmuls, and the routing kernels
 *             (MoeGatingTopK*, MoeInitRouting*, MoeTokenPermute/Unpermute,
 *             MoeFinalizeRouting) that bound a layer; a layer is the n-th within its step,
 *             so the same layer can be compared across ranks
 *   tokens    routed to a rank's experts in a layer: the leading dimension of the layer's
 *             first GroupedMatmul input (the kernel table's Input Shapes); without shapes
 *             the grouped-matmul time stands in for them, and says so
 *   waits     a layer's dispatch and combine on each rank against the same layer on the
 *             others (as align.c does for collectives): the least duration is the work,
 *             the rest is waiting for the rank with the least (the one the others wait for)
 *   verdict   the hot rank (most tokens), its tokens over the median's (nearest rank), and
 *             what the others wait for it in the combine: "expert load imbalance"
 * A rank without a timeline, or a capture without MoE kernels, has no MoE figures, and why. */
#ifndef ASCPROF_MOE_H
#define ASCPROF_MOE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct analysis;

/* One rank's figures over some steps (the capture's, or one phase's). */
struct moe_rank_fig {
	int rank;
	size_t layers;   /* MoE layer instances seen */
	int64_t tokens;  /* -1: no shapes */
	int64_t gmm_ns, dispatch_ns, combine_ns, dispatch_wait_ns, combine_wait_ns;
};

/* A layer (the n-th of its step) on one rank, summed over the steps. */
struct moe_cell {
	int64_t tokens, gmm_ns, dispatch_wait_ns, combine_wait_ns;
	uint32_t event; /* the first GroupedMatmul of the layer's first instance, or UINT32_MAX */
	int64_t ts;     /* its start (rank clock), for the Timeline */
};

#define MOE_WORST 3

struct moe_analysis {
	bool present;
	const char *why;   /* static (N_), when not present */
	bool tokens_known; /* from shapes on every rank; else the imbalance is of gmm time */
	size_t n_ranks, n_layers; /* n_layers: the most MoE layers in one step */
	int hot_rank;      /* rank number, -1 none */
	double imbalance;  /* hot rank's tokens (or gmm time) over the median's */
	struct moe_rank_fig *ranks;    /* n_ranks, whole capture */
	struct moe_rank_fig *by_phase; /* 3 x n_ranks: prefill, decode, mixed (enum phase - 1) */
	bool phase_seen[3];
	struct moe_cell *cells; /* n_ranks x n_layers */
	size_t worst[MOE_WORST], n_worst; /* layer ordinals, most wait first */
	/* the ranks other than the hot one: their least and most combine wait (ns, and % of
	 * their windows) */
	int64_t wait_lo_ns, wait_hi_ns;
	double wait_lo_pct, wait_hi_pct;
	const char *combine_name; /* the combine seen (borrowed from a store) */
	char *verdict;            /* owned, translated; NULL when no imbalance */
};

/* The MoE figures of an analysis whose ranks have their steps; never NULL. */
struct moe_analysis *moe_analyse(const struct analysis *an);
void moe_free(struct moe_analysis *m);
/* Phase index of by_phase for an enum phase (1..3), else -1. */
static inline int moe_phase_index(int phase) { return phase >= 1 && phase <= 3 ? phase - 1 : -1; }

#endif
