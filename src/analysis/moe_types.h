/* SPDX-License-Identifier: MIT */
/* The MoE analysis's types (moe.h says what they hold), below result.h, which holds
 * struct analysis's moe by them. */
#ifndef ASCPROF_MOE_TYPES_H
#define ASCPROF_MOE_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a layer's tokens came from: the kernel table's Input Shapes, else the Input Dims of
 * the host op that launched the grouped matmul (the trace's args, the Db's PYTORCH_API row);
 * none: grouped-matmul time stands in. MIXED (the capture's only): some of each. */
enum moe_tok_src { MOE_TOK_NONE, MOE_TOK_SHAPES, MOE_TOK_DIMS, MOE_TOK_MIXED };

/* One MoE layer instance on one rank: the ord-th MoE layer of step `step` (a rank's list,
 * rank_analysis.moe, is in (step, ord) order; digests keep it, and the waits across the
 * ranks are drawn again from the lists). */
struct moe_inst {
	uint64_t step; /* UINT64_MAX: outside every step */
	uint32_t ord;
	int64_t tokens; /* -1 unknown */
	uint8_t tok_src; /* enum moe_tok_src: SHAPES or DIMS with tokens, else NONE */
	int64_t gmm, disp, comb, disp_wait, comb_wait;
	bool has_disp, has_comb, mc2, routed;
	uint32_t ev;
	int64_t ts;
};

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
	bool tokens_known; /* for every layer on every rank (tokens_from); else the imbalance is of gmm time */
	uint8_t tokens_from; /* enum moe_tok_src: every instance's source (NONE: not known) */
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

/* Phase index of by_phase for an enum phase (1..3), else -1. */
static inline int moe_phase_index(int phase) { return phase >= 1 && phase <= 3 ? phase - 1 : -1; }

#endif
