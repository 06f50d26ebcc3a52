/* SPDX-License-Identifier: MIT */
/* Mixture-of-experts layers and expert load across ranks (issue 42).
 *   layers    recognised from the device's kernels and collectives: MoeDistributeDispatch
 *             and MoeDistributeCombine (MC2, any version), GroupedMatmul (and its fused
 *             variants), the all-to-alls around the grouped matmuls, and the routing kernels
 *             (MoeGatingTopK*, MoeInitRouting*, MoeTokenPermute/Unpermute,
 *             MoeFinalizeRouting) that bound a layer; a layer is the n-th within its step,
 *             so the same layer can be compared across ranks
 *   tokens    routed to a rank's experts in a layer: the leading dimension of the layer's
 *             first GroupedMatmul input (the kernel table's Input Shapes, else the Input Dims
 *             of the host op that launched it, read on demand); without either the
 *             grouped-matmul time stands in for them, and says so
 *   waits     a layer's dispatch and combine on each rank against the same layer on the
 *             others (as align.c does for collectives): the least duration is the work,
 *             the rest is waiting for the rank with the least (the one the others wait for)
 *   verdict   the hot rank (most tokens), its tokens over the median's (nearest rank), and
 *             what the others wait for it in the combine: "expert load imbalance"
 * A rank without a timeline, or a capture without MoE kernels, has no MoE figures, and why. */
#ifndef ASCPROF_MOE_H
#define ASCPROF_MOE_H

#include "moe_types.h"

struct analysis;

/* Rank i's MoE layer instances (rank_analysis.moe) from its events, once its steps are
 * known; none from digests (they carry the list). */
void moe_rank_layers(struct analysis *an, size_t i);
/* The MoE figures from every rank's list (the waits across the ranks written into the
 * lists); never NULL. */
struct moe_analysis *moe_analyse(struct analysis *an);
void moe_free(struct moe_analysis *m);
/* The leading input dimension of kernel ev from the Input Dims of the host op that launched
 * it (or of that op's nearest ancestors), read again through the store's reader; -1 when
 * none. One kernel: the analysis reads a rank's in one pass over the links. */
struct rank_store;
int64_t moe_launch_tokens(const struct rank_store *rs, uint32_t ev);
#endif
