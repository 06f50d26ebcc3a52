/* SPDX-License-Identifier: MIT */
/* msprof-analyze's cluster_analysis_output read as a capture of its own: one rank per
 * rank the cluster tables name, no events. Its rank rows come from cluster_analysis.db
 * where it has them (ClusterTimeSummary also gives each step's wait and transmit), else
 * from cluster_step_trace_time.csv; its communication from cluster_communication*.json,
 * else from the Db's communication tables. The analysis makes each rank's figures from
 * the rows (cluster.h's cluster_output_ranks). */
#ifndef ASCPROF_CLUSTER_OUTPUT_H
#define ASCPROF_CLUSTER_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "capture.h"
#include "cluster_db.h"
#include "cluster_out.h"

struct cluster_output {
	struct capture *cap;          /* owned: a rank per rank the rows name (rows_of) */
	struct cluster_db *db;        /* owned: its cluster_analysis.db, or NULL */
	struct cluster_out_row *rows; /* owned; by rank, then step */
	size_t n_rows;
	const char *rows_from; /* static, or borrowed from db: the table or file of the rows */
	char *csv;             /* owned: cluster_step_trace_time.csv's path when the rows are its */
	size_t *rows_of;       /* owned: rank k's rows start at rows_of[k] (n_ranks + 1 entries) */
};

/* A cluster output and no rank of its own: read as a cluster overview. */
bool cluster_output_is(const char *path);
/* Reads path's cluster output into co (zeroed first); the messages go to co->cap's. */
void cluster_output_read(const char *path, struct cluster_output *co);
/* Frees what co still owns (take cap and db to keep them). */
void cluster_output_free(struct cluster_output *co);

#endif
