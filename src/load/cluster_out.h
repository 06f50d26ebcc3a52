/* SPDX-License-Identifier: MIT */
/* msprof-analyze's cluster_analysis_output: cluster_step_trace_time.csv, one row per rank
 * (Type "rank") and step with the rank's Computing, Communication(Not Overlapped),
 * Overlapped, Communication, Free and Stage (the pipeline stage's time), in us; the step's
 * time is Computing + Communication(Not Overlapped) + Free. Rows of Type "stage" (per
 * pipeline stage) are not kept. */
#ifndef ASCPROF_CLUSTER_OUT_H
#define ASCPROF_CLUSTER_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define CLUSTER_STEP_TRACE "cluster_step_trace_time.csv"

struct cluster_out_row {
	int rank;
	int64_t step; /* -1 when the Step cell is empty (one row for the whole capture) */
	int64_t computing_ns, comm_not_overlapped_ns, overlapped_ns, comm_ns, free_ns, stage_ns;
	int64_t step_ns; /* computing + comm_not_overlapped + free */
	int64_t wait_ns, transmit_ns; /* cluster_analysis.db's ClusterTimeSummary; -1 elsewhere */
};

/* Reads path into *rows (owned), sorted by rank then step. Returns 0, or -1 with a
 * diagnostic when the file cannot be read or lacks the columns. Rows with a bad number are
 * left out with a diagnostic naming their line. */
int cluster_out_read(const char *path, struct cluster_out_row **rows, size_t *n, struct diag_list *dl);
/* The cluster_step_trace_time.csv directly under dir, as an owned path, or NULL. */
char *cluster_out_find(const char *dir);

#endif
