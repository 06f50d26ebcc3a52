/* SPDX-License-Identifier: MIT */
/* A capture's analysis through the index cache (trace_index.h): the first --report of a
 * capture writes each rank's analysis in digest form (digest.h) with the analysis' own
 * messages; the next one reads them back and computes again only what spans ranks (as
 * over digest files), so a reopen neither parses nor analyses. The index is keyed by every
 * file of the capture (traces, CSV tables, communication, profiler_info and metadata
 * files: identity, size, mtime, ctime), the program, the messages' language and the
 * options that change what is loaded: any change and the analysis is made afresh. A
 * capture whose load gave an error (a refused or unreadable file) is not indexed.
 *
 * The explorer does not use it: its views need the per-event classes and the timeline
 * index, which a digest does not hold. */
#ifndef ASCPROF_ANALYSIS_INDEX_H
#define ASCPROF_ANALYSIS_INDEX_H

#include "analysis.h"

/* analysis_run_with(cap, hook), or the same analysis from the index; st (may be NULL)
 * says which. cap's messages get a corrupt index's message. */
struct analysis *analysis_index_run(struct capture *cap, const struct analysis_hook *hook, struct tindex_status *st);

#endif
