/* SPDX-License-Identifier: MIT */
/* Ascend-specific advice, like msprof-analyze's advisor: a table of rules (on-the-fly
 * operator compilation, AI CPU tasks, TransData format casts, small-kernel dispatch storms,
 * stream synchronisation, GC inside steps), each evaluated per rank over the store and the
 * events' classes. A finding carries its evidence figures, the event to show and a
 * confidence. These are advice items, not a fifth bottleneck score: where a finding quotes
 * time it names the attribution bucket that time already sits in, and claims no gain. */
#ifndef ASCPROF_ADVICE_H
#define ASCPROF_ADVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "result.h"
#include "intervals.h"

enum advice_rule_id {
	ADV_ONLINE_COMPILE,
	ADV_AICPU,
	ADV_TRANSDATA,
	ADV_DISPATCH_STORM,
	ADV_STREAM_SYNC,
	ADV_GC,
	ADV_ENV_VARIABLES,
	ADV_AICORE_FREQ,
	ADV_BLOCK_DIM,
	ADV_PIPE_BOUND,
	ADV_DYNAMIC_SHAPE,
	ADV_MEMORY_OPS,
	ADV_SMALL_TRANSFERS,
	ADV_FUSABLE_OPS,
	ADV_AFFINITY_API,
	ADV_COUNT
};

/* One rule: what it looks for, the figure it thresholds and why that threshold. The
 * table is static, and so are its strings. */
struct advice_rule {
	const char *id;        /* static: "online_compile": JSON key and CSV value */
	const char *title;     /* static: "on-the-fly operator compilation" */
	const char *looks_for; /* static: which events */
	const char *figure;    /* static: what value is thresholded */
	const char *unit;      /* static: "%", "count" */
	double threshold;      /* the finding is a problem at value >= threshold */
	const char *why;       /* static: why the threshold, and why it matters */
	const char *try_this;  /* static: what to try */
};
extern const struct advice_rule advice_rules[ADV_COUNT];

/* struct advice_finding is declared in result.h (rank_analysis holds them). */

/* What each rule found on a rank (rank_analysis.advice_status): a user must tell "checked,
 * fine" from "not checked". */
enum advice_status {
	ADV_STATUS_UNKNOWN,       /* the rules did not run (no timeline) */
	ADV_STATUS_TRIGGERED,     /* a finding at or over its threshold */
	ADV_STATUS_CHECKED,       /* checked: no instance, or a finding below its threshold */
	ADV_STATUS_NOT_APPLICABLE, /* the capture lacks what the rule reads (advice_reason says what) */
	ADV_STATUS_COUNT
};
/* "triggered", "checked", "not applicable" (JSON words), "unknown" */
const char *advice_status_name(int status);

/* Evaluates every rule on one rank whose store, classes, steps and attribution are done.
 * sets: the rank's interval sets (rank_sets.h; borrowed, normalised here): host time
 * outside their occupied set, inside the device span, is what the host-bound buckets hold,
 * split as the attribution splits it. A rank without a trace is
 * judged from its kernel table (kernels, may be NULL): the device rules only, each
 * finding naming a CSV line. Appends a finding per rule that saw any instance to
 * ra->advice (owned by ra; freed by result_rank_free). */
struct csv_table;
struct rank_sets;
void advice_rank(const struct rank_store *rs, const struct csv_table *kernels, struct rank_analysis *ra,
		 struct rank_sets *sets);
/* The environment the profiled process ran with (profiler_metadata.json's ENV_VARIABLES,
 * rp->env): a finding when a setting known to cost performance is there, quoting it; every
 * rank, timeline or not (it reads no event). Sets the rule's status. */
struct rank_plan;
void advice_env(const struct rank_plan *rp, struct rank_analysis *ra);
/* The kernel table's rules (advice_kernel.c: block_dim, pipe_bound, dynamic_shape) and
 * memory_ops (the host's device memory calls), right after advice_rank, whose sets it
 * borrows: the core count comes from the capture's device record (npu_cores.h, read
 * through rp and db_path, which may be NULL). Sets the four rules' statuses; leaves them
 * unknown when advice_rank did not run. */
void advice_kernels(const struct rank_plan *rp, const char *db_path, const struct rank_store *rs,
		    const struct csv_table *kernels, struct rank_analysis *ra, struct rank_sets *sets);
/* The keys of advice_finding.host_ns: host_sync, host_copy, host_dispatch, host_python. */
extern const enum attr_bucket advice_host_buckets[4];
/* A finding of rule r appended to ra->advice: triggered when value reaches the rule's
 * threshold, count instances, event to show (UINT32_MAX: none), confidence high (the
 * sequence rules, advice_seq.c, make theirs with it). */
struct advice_finding *advice_add(struct rank_analysis *ra, int r, uint64_t count, uint32_t event, double value);
/* The findings that reach their threshold. */
size_t advice_triggered(const struct rank_analysis *ra);

#endif
