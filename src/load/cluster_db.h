/* SPDX-License-Identifier: MIT */
/* msprof-analyze's cluster_analysis.db, opened read-only and immutable as db_open.c opens a Db
 * export. Tables are found by name and columns by name (case-insensitive: schemas drift):
 *   ClusterTimeSummary (us): rank, step, stepTime, computation,
 *       communicationNotOverlapComputation, free, communicationWaitStageTime,
 *       communicationTransmitStageTime (-m cluster_time_summary); else ClusterStepTraceTime
 *       (the columns of cluster_step_trace_time.csv: step, type, index, computing,
 *       communication_not_overlapped, overlapped, communication, free, stage; rows of type
 *       "rank"): rank rows per step, as cluster_out.h reads them;
 *   SlowRank(rankId, slowAffectCount): msprof-analyze's own slow ranks (-m slow_rank);
 *   HcclTopOpStats(OpName, Count, MeanNs, MinNs, MaxNs, SumNs, MinRank, MaxRank): the
 *       collectives with the longest mean (-m hccl_sum);
 *   CommunicationGroupMapping(type, rank_set, group_name, group_id, pg_name)
 *       (-m communication_group_map; CommunicationGroup in older files).
 * Its communication tables (ClusterCommAnalyzer* or ClusterCommunication*) are read by
 * db_cluster_comm_load (db.h) as cluster_communication*.json would be.
 * A missing table is named in an info message and the rest is read; a table without a
 * column it needs, a corrupt, truncated or encrypted file are errors with the file and the
 * table named. */
#ifndef ASCPROF_CLUSTER_DB_H
#define ASCPROF_CLUSTER_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster_out.h"
#include "diag.h"

#define CLUSTER_ANALYSIS_DB "cluster_analysis.db"

struct cluster_db_slow {
	int rank;
	int64_t affect_count; /* collectives it slowed, as msprof-analyze counts them */
};

struct cluster_db_top {
	char *name; /* owned */
	int64_t count; /* -1 when absent */
	double mean_ns, min_ns, max_ns, sum_ns; /* NAN when absent */
	int min_rank, max_rank; /* -1 when absent */
};

struct cluster_db_group {
	char *type, *rank_set, *name, *id, *pg_name; /* owned; "" when absent */
};

struct cluster_db {
	char *path;                    /* owned */
	const char *rows_table;        /* static: the table the rank rows came from, or NULL */
	struct cluster_out_row *rows;  /* owned; by rank, then step */
	size_t n_rows;
	bool has_slow;                 /* a SlowRank table was read (it may hold no rank) */
	struct cluster_db_slow *slow;  /* owned; by affect count, most first */
	size_t n_slow;
	struct cluster_db_top *top;    /* owned; as the table orders them */
	size_t n_top;
	struct cluster_db_group *groups; /* owned */
	size_t n_groups;
};

/* The cluster_analysis.db directly under dir, as an owned path, or NULL. */
char *cluster_db_find(const char *dir, struct diag_list *dl);
/* Reads path into db (zeroed first). Returns 0 when any table was read, -1 (with the
 * reason in dl) when the file cannot be opened or holds none of the tables. */
int cluster_db_read(const char *path, struct cluster_db *db, struct diag_list *dl);
void cluster_db_free(struct cluster_db *db);

#endif
