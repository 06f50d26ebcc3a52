/* SPDX-License-Identifier: MIT */
/* The capture-level passes that put the communication analysis (comm.h, an->comm) and the
 * cluster analysis (cluster.h, an->cluster) into each rank: its communication metrics, its
 * late rank (the cluster analysis's waited_for_rank); and whether a rank's exposed wait for
 * its peers is known. The driver splits each rank's exposed communication between them
 * (comm_split_rank). */
#ifndef ASCPROF_COMM_RANKS_H
#define ASCPROF_COMM_RANKS_H

#include <stdbool.h>

#include "result.h"

void comm_ranks_metrics(struct analysis *an);
void comm_ranks_late_rank(struct analysis *an);
/* The rank's exposed wait for peers is known (split per collective by communication.json
 * or by the peers), though part of its exposed communication may stay unsplit. */
bool comm_ranks_wait_known(const struct rank_analysis *ra);

#endif
