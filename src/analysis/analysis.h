/* SPDX-License-Identifier: MIT */
/* The analysis of a loaded capture, the driver: each rank's stages in order (steps.h,
 * opstats.h, metrics.h, advice.h), ranks on a pool of threads, then the capture-level
 * passes (align.h, comm.h, bottleneck.h, cluster.h), published as one struct analysis
 * (result.h has the types). The public entry of src/analysis: it brings in (directly or
 * through them) every stage's header but cluster.h, comm_split.h, metrics.h, op_rows.h
 * and kernel_index.h, which their few callers include themselves. Inside src/analysis
 * only the driver (analysis.c) and what runs the driver (digest.c) include it: the stages
 * include result.h and lower stages (tests/layering.sh). */
#ifndef ASCPROF_ANALYSIS_H
#define ASCPROF_ANALYSIS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "advice.h"
#include "align.h"
#include "bottleneck.h"
#include "phase_verdict.h"
#include "capture.h"
#include "comm.h"
#include "opstats.h"
#include "query.h"
#include "result.h"
#include "steps.h"

/* Analyses every rank that finished loading (an owned analysis: analysis_free). The
 * capture (borrowed) must stay alive and unchanged while the analysis is. */
struct analysis *analysis_run(const struct capture *cap);
/* Work a caller wants per rank once its events are classified (the explorer's timeline
 * index): it runs on the analysis's threads while the rest of that rank's analysis goes on,
 * and may read only the store and the classes. */
struct analysis_hook {
	void (*classified)(void *ctx, size_t rank_index, const struct rank_store *rs,
			   const struct ev_class *cls);
	void *ctx; /* borrowed: passed to classified; must outlive the run */
	/* borrowed, until the run returns; when not NULL, raised as each rank's analysis ends
	 * (progress) */
	_Atomic size_t *ranks_done;
	/* find every rank's steps as if it had no markers (ProfilerStep#N, the step table,
	 * engine ops set aside): the comparison's second look at a side with markers, so both
	 * sides' steps have one definition (rank_analysis.marker_free) */
	bool marker_free_steps;
};
/* The same with a hook (borrowed for the run); owned like analysis_run's. */
struct analysis *analysis_run_with(const struct capture *cap, const struct analysis_hook *hook);
void analysis_free(struct analysis *an);
/* The capture's warnings, one list: the input's diagnostics at warning level or above,
 * then the analysis' remarks at that level. JSON's "warnings", the text report's warning
 * lines and the Overview's count all come from it, so they never disagree. Calls fn on
 * each in order (fn may be NULL) with the list locked; returns how many there are. */
size_t analysis_warnings(const struct analysis *an, void (*fn)(const struct diag *d, void *ctx), void *ctx);
/* Per-rank analysis alone (used by analysis_run; exposed for tests). */
void analysis_rank(const struct capture *cap, size_t rank_index, struct rank_analysis *ra,
		   struct diag_list *dl);

#endif
