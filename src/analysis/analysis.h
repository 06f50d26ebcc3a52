/* SPDX-License-Identifier: MIT */
/* The analysis of a loaded capture, the driver: each rank's stages in order (steps.h,
 * opstats.h, metrics.h, advice.h), ranks on a pool of threads, then the capture-level
 * passes (align.h, comm.h, bottleneck.h, cluster.h), published as one struct analysis
 * (result.h has the types); digests, cluster outputs and the index cache opened as
 * analyses. The one driver: every mode goes from a path to an analysis through it, and no
 * stage runs another stage's passes. The public entry of src/analysis: it includes the
 * stages' headers a caller reads, so a caller (report, explorer, tests) includes this
 * one. Inside src/analysis only the driver (analysis.c) includes it: the stages include
 * result.h and lower stages (tests/layering.sh). */
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
#include "comm_ranks.h"
#include "digest.h"
#include "opstats.h"
#include "query.h"
#include "result.h"
#include "service.h"
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
/* What spans ranks, once every rank's own analysis is in: the alignment, slow ranks, the
 * communication analysis, the cluster analysis, the late rank and the split of exposed
 * communication, the bottlenecks. What a rank came from decides what is computed again: a
 * digest keeps its rank's communication metrics; msprof-analyze's cluster table has no
 * timelines or collectives to align. */
enum cross_from { CROSS_FROM_CAPTURE, CROSS_FROM_DIGESTS, CROSS_FROM_CLUSTER_TABLE };
void analysis_cross_ranks(struct analysis *an, enum cross_from from);

/* The digests of path (a digest file or a directory of them; a capture beside them is
 * analysed and taken in alike): an analysis like analysis_run's, with from_digests set
 * and a capture of its own (freed with it). Never NULL (owned); n_ranks may be 0, the
 * capture's diagnostics say why (digest.h). */
struct analysis *analysis_from_digests(const char *path);
/* msprof-analyze's cluster_analysis_output (cluster_output.h) as an analysis of its rank
 * rows. Never NULL (owned). */
struct analysis *analysis_from_cluster_output(const char *path);
/* What opens without loading a capture: digests, else a cluster output; owned
 * (analysis_free); NULL for anything else, which is a capture to open and load. */
struct analysis *analysis_open_summaries(const char *path);

/* A capture's analysis through the index cache (trace_index.h): the first --report of a
 * capture writes each rank's analysis in digest form with the analysis' own messages; the
 * next one reads them back and computes again only what spans ranks (as over digest
 * files), so a reopen neither parses nor analyses. The index is keyed by every file of the
 * capture (traces, CSV tables, communication, profiler_info and metadata files: identity,
 * size, mtime, ctime), the program, the messages' language and the options that change
 * what is loaded: any change and the analysis is made afresh. A capture whose load gave an
 * error (a refused or unreadable file) is not indexed. Beside the digests the index holds
 * what a digest file leaves out and the explorer shows (digest_index_encode). A rank read
 * from the index has no classes (cls NULL): the explorer classifies again. Returns
 * analysis_run_with(cap, hook), or the same analysis from the index; st (may be NULL)
 * says which; cap's messages get a corrupt index's message. */
struct analysis *analysis_index_run(struct capture *cap, const struct analysis_hook *hook, struct tindex_status *st);

/* Per-rank analysis alone (used by analysis_run; exposed for tests). */
void analysis_rank(const struct capture *cap, size_t rank_index, struct rank_analysis *ra,
		   struct diag_list *dl);

#endif
