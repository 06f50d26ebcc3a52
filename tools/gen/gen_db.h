/* SPDX-License-Identifier: MIT */
/* The generator's Db writer: a rank's text export written again as torch_npu's Db export
 * (ascend_pytorch_profiler_<rank>.db and analysis.db), so tests can read the same capture
 * as text and as Db and compare. */
#ifndef ASCPROF_GEN_DB_H
#define ASCPROF_GEN_DB_H

#include <stdbool.h>

/* worker_dir holds profiler_info_<rank>.json and ASCEND_PROFILER_OUTPUT/ with the text
 * export. Writes the Db files beside it; without keep_text, removes the text files the Db
 * replaces (trace_view.json, the CSV tables, communication*.json) and says "db" in
 * profiler_info's _export_type. Returns 0, or -1 with a message on stderr. */
int gen_db_export(const char *worker_dir, int rank, bool keep_text);

/* --cluster-db: out/cluster_analysis_output/cluster_analysis.db as msprof-analyze writes it,
 * from the planted truth (out/ground_truth.txt): ClusterTimeSummary (each rank's steps in
 * us: stepTime, computation, communicationNotOverlapComputation, free), SlowRank (the
 * planted slow rank, when there is one) and CommunicationGroupMapping (every rank). */
int gen_cluster_db(const char *out, int slow_rank);

#endif
