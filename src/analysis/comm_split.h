/* SPDX-License-Identifier: MIT */
/* The one account of exposed communication (the attribution's comm buckets, which sum to
 * metrics.comm_not_overlapped_us): every exposed ns of a collective is
 *
 *   transfer   data moving: communication.json's Transit Time
 *   wait       waiting for a late captured peer: communication.json's Wait Time (notify
 *              waits, the synchronisation before the first transfer included), else the
 *              instance's duration less the least duration of the same collective across
 *              the captured ranks (the peer with the least arrived last)
 *   setup      the group's first collective (the index 0 in hcom_<kind>__<group>_<index>_<n>:
 *              the communicator's first use, link setup): what is neither transfer nor wait
 *   unsplit    what no data decides: communication.json's Idle Time outside setup, a least
 *              duration shared by every captured rank, collectives with neither
 *              communication.json nor a peer
 *
 * Each instance's exposed ns (the part of it no compute hides, each ns given to the
 * earliest started instance covering it) is split by its own figures, so a one-off setup
 * of 79 ms and a steady 2 ms allReduce are not averaged into one ratio. A rank without a
 * timeline (step_trace_time.csv only) splits its exposed total by its instances' summed
 * figures instead. */
#ifndef ASCPROF_COMM_SPLIT_H
#define ASCPROF_COMM_SPLIT_H

#include <stdbool.h>
#include <stdint.h>

#include "intervals.h"
#include "result.h"

/* The four words, defined once for the views (Docs) and the reports: the bucket key, the
 * word, its definition (marked N_()). */
struct comm_split_word {
	const char *bucket, *word, *definition;
};
extern const struct comm_split_word comm_split_words[4];

/* One collective instance at least this share of its rank's window exposed is a finding
 * of its own (setup, inputs not ready): it is named first when it costs more than the
 * candidates give back. */
#define COMM_OUTLIER_PCT 5.0
/* ... and stands out among its kind and group: this many times their median duration */
#define COMM_OUTLIER_FACTOR 3.0

/* struct comm_keep (result.h): what comm_split_keep keeps for comm_split_exposure. */

struct rank_sets;
/* Keeps what comm_split_exposure needs from the rank's sets (after its attribution). */
void comm_split_keep(struct rank_sets *s, struct rank_analysis *ra);
/* Each collective's exposed ns and "before" from the kept sets, which are then freed;
 * without them exposed stays -1 and before unknown. */
void comm_split_exposure(struct rank_analysis *ra, struct coll_inst *cs, size_t n);
/* The instance's index within its group when its name has the hcom form
 * (hcom_<kind>__<group>_<index>_<n>, or older CANN's hcom_<kind>__<group>_<index>), else -1. */
long comm_split_group_index(const char *name);
/* Splits the rank's exposed communication (all of it in comm_unsplit on entry, or moved
 * there: comm_split_merge) into the four parts, sets comm_split's source, the rank's
 * comm_unsplit_idle_ns and its outliers. an gives the peers and the communication data. */
struct analysis;
void comm_split_rank(struct analysis *an, size_t i);
/* Moves the four parts back into comm_unsplit (a digest keeps them so: the split is made
 * again over the peers present). */
void comm_split_merge(struct attribution *a);
/* "compute", "host work" ... for enum coll_before (static, marked N_()). */
const char *comm_before_name(int before);
/* "compute", "collective", "host", "idle", "unknown": the JSON's words (static) */
const char *comm_before_key(int before);

#endif
