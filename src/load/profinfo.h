/* SPDX-License-Identifier: MIT */
/* profiler_info_<N>.json / profiler_info.json: the rank and what the capture could
 * contain (profiler level, AI Core metrics, schedule, versions). */
#ifndef ASCPROF_PROFINFO_H
#define ASCPROF_PROFINFO_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"

struct profinfo {
	bool loaded;
	char *path; /* owned */
	bool has_rank;
	int rank;
	char *torch_npu_version; /* owned strings; NULL when absent */
	char *cann_version;    /* owned */
	char *profiler_level; /* owned: "Level0", "Level1", "Level2", "Level_none" */
	char *aic_metrics;    /* owned: "ACL_AICORE_PIPE_UTILIZATION" ... */
	char *export_type;    /* owned */
	bool data_simplification;
	bool has_schedule; /* a schedule means ProfilerStep#N markers and Step Id columns */
	bool record_shapes, profile_memory, with_stack, with_modules;
	int64_t collection_end_ns; /* end_info.collectionTimeEnd, 0 when absent */
};

/* Reads the file; returns 0, or -1 (with a diagnostic) when it is not usable JSON. */
/* The parallel layout's dimensions, as torch_npu names a rank's directory
 * (dp0_pp0_tp1_dcp0_ep0_rank1_<time>_ascend_pt) and profiler_metadata.json its groups */
enum parallel_dim { PAR_TP, PAR_DP, PAR_PP, PAR_EP, PAR_DCP, PAR_COUNT };
/* "tp", "dp", "pp", "ep", "dcp"; static */
const char *parallel_dim_name(enum parallel_dim d);

/* One group of profiler_metadata.json's parallel_group_info that names a dimension
 * ({"group_name": "tp", "group_rank": 0, "global_ranks": [0, 1]}) */
struct parallel_group_info {
	int dim;         /* enum parallel_dim */
	int32_t *ranks;  /* owned: global ranks, ascending */
	size_t n_ranks;
};
/* The groups of path's parallel_group_info named tp, dp, pp, ep or dcp (others, such as mp,
 * dp_cp or default_group, are no one dimension); owned array (parallel_groups_free), *n
 * of them; NULL when there are none. */
struct parallel_group_info *parallel_groups_load(const char *path, size_t *n, struct diag_list *dl);
void parallel_groups_free(struct parallel_group_info *g, size_t n);
/* The groups as text, "tp:0,1;pp:0,2" (what a digest keeps of them): owned, NULL for none */
char *parallel_groups_format(const struct parallel_group_info *g, size_t n);
/* That text read back (owned array, *n of them; NULL when empty or malformed) */
struct parallel_group_info *parallel_groups_parse(const char *s, size_t *n);

/* One of profiler_metadata.json's ENV_VARIABLES: the environment the profiled process ran
 * with, as torch_npu recorded it ("" where unset). */
struct env_var {
	char *key, *value; /* owned, as the file has them (capture bytes: sanitise to show) */
};
/* The ENV_VARIABLES of path; owned array (env_vars_free), *n of them; *present says the
 * object was there (torch_npu writes every watched variable, set or not); NULL when none. */
struct env_var *env_vars_load(const char *path, size_t *n, bool *present, struct diag_list *dl);
void env_vars_free(struct env_var *v, size_t n);
/* The value of key among v (borrowed), or NULL. */
const char *env_vars_get(const struct env_var *v, size_t n, const char *key);

int profinfo_load(struct profinfo *pi, const char *path, struct diag_list *dl);
void profinfo_free(struct profinfo *pi);

#endif
