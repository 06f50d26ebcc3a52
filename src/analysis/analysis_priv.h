/* SPDX-License-Identifier: MIT */
/* Internal to the analysis modules (analysis.c, steps.c, opstats.c, align.c): the
 * interval sets one rank's metrics are computed from. */
#ifndef ASCPROF_ANALYSIS_PRIV_H
#define ASCPROF_ANALYSIS_PRIV_H

#include "analysis.h"
#include "intervals.h"
#include "u64map.h"
#include "xthread.h"

struct rank_sets {
	struct ivset device_busy; /* device tasks except waits */
	struct ivset compute;     /* device compute tasks */
	struct ivset dev_copy;    /* device copy tasks */
	struct ivset comm;        /* communication lanes, else device communication tasks */
	int64_t host_total;       /* host lanes' busy time, step marks excluded (rank_sets_derive) */
	struct ivset host_copy;
	struct ivset sync;
	struct ivset h2d, d2h;    /* copies with a known direction (device side if any) */
	struct ivset compute_or_comm;
	/* Derived once the others are built (rank_sets_derive): the device is "occupied" when
	 * it runs a task or takes part in a collective (waiting for peers included), and host
	 * work (host lanes, step marks excluded) outside that and outside sync ops is
	 * host-only. The host work itself is never held as a set: a million spans. */
	struct ivset occupied, host_only;
	struct ivset host_dispatch; /* host-only time inside framework ops or CANN API calls */
	bool comm_from_lanes;     /* comm came from HCCL/Communication lanes */
	bool dir_from_device;
};

void rank_sets_build(const struct rank_store *rs, const struct ev_class *cls, struct rank_sets *s);
void rank_sets_free(struct rank_sets *s);

/* Sets a helper thread may still be building while the steps are found: the steps need
 * them only when the trace marks none (idle-gap steps), and then wait for them. */
struct pending_sets {
	struct rank_sets *sets;
	struct xthread builder;
	const struct rank_store *rs;
	const struct ev_class *cls;
};
struct rank_sets *rank_sets_wait(struct pending_sets *p);

/* Collectives: whole collective operations, not their sub-tasks. */
bool analysis_has_group_lanes(const struct rank_store *rs);
bool analysis_is_collective(const struct rank_store *rs, const struct ev_class *cls, uint32_t ev,
			    bool have_group_lanes);
/* A collective's payload from its args (count x data_type size), in bytes; 0 unknown. */
double analysis_collective_bytes(const struct rank_store *rs, uint32_t ev);

/* A kernel table row's class (category_of on its name and accelerator core), computed once
 * per distinct (name, core) pair of string ids: category_of tries the rule table's
 * substring rules, thousands of instructions a row on a table of a million rows. Start
 * with {0}; analysis_kernel_memo_free after. */
struct kernel_memo {
	struct u64map map; /* name id << 32 | core id -> 1 << 16 | flags << 8 | cat */
};
struct ev_class analysis_kernel_class(struct kernel_memo *m, const struct csv_table *k, size_t row);
void analysis_kernel_memo_free(struct kernel_memo *m);

/* Sets a metric when v is finite. */
void analysis_set_metric(struct rank_analysis *ra, enum metric_id m, double v, enum confidence conf,
			 const char *source);
/* Per-rank communication metrics from the capture's communication analysis (comm.c). */
void analysis_comm_metrics(struct analysis *an);
/* Splits every rank's exposed communication into wait and transfer (comm.c): by the rank's
 * communication.json wait share, else by the spread of the same collectives' durations
 * across ranks (align.c's matches). */
void analysis_attribution_comm(struct analysis *an);
/* The split's source when it came from the collectives across ranks (a digest keeps that
 * communication unsplit: the split is made again over every digest). */
#define ANALYSIS_SPLIT_SPREAD "spread of the same collectives' durations across ranks (least = transfer)"
#define ANALYSIS_SPLIT_SPREAD_CAPPED                                                              \
	"spread of the same collectives' durations across ranks (least = transfer, at most the payload at 1 GB/s)"
/* Every rank's late_rank: the rank the others wait for, from the split attributions. */
void analysis_late_rank(struct analysis *an);

/* Step detection and phases (steps.c). */
void analysis_steps(const struct capture *cap, size_t rank_index, struct rank_analysis *ra,
		    struct pending_sets *sets, struct diag_list *dl);
/* Ranks whose own files show no workload (no trace, no kernel table) take training from a
 * peer of the same capture when no rank shows inference. */
void analysis_workload_peers(struct rank_analysis *ranks, size_t n);
/* Op statistics (opstats.c). With fewer ranks than cores they run on a helper thread
 * beside the window and per-step metrics (analysis.c analyse_rank): they may read the
 * store, the CSV tables, ra->rank, ra->cls and the steps' windows and phases, and write
 * only ra->ops, ra->n_ops, ra->ops_source, ra->op_types, ra->op_shapes (and their counts) and their messages. threaded: the rows of half
 * the names are computed on a helper thread of their own (the caller's core is free by
 * then); the rows come out in the same order either way. */
void analysis_ops(const struct capture *cap, size_t rank_index, struct rank_analysis *ra,
		  struct diag_list *dl, bool threaded);
/* Capture-level passes (align.c, bottleneck.c). */
void analysis_align(const struct capture *cap, struct rank_analysis *ranks, size_t n, struct coll_inst **cs,
		    size_t *ncs);
void analysis_slow_ranks(struct analysis *an);
void analysis_bottlenecks(struct rank_analysis *ra);

#endif
