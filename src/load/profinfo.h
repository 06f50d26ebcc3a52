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
int profinfo_load(struct profinfo *pi, const char *path, struct diag_list *dl);
void profinfo_free(struct profinfo *pi);

#endif
