/* SPDX-License-Identifier: MIT */
/* Questions the explorer asks of one analysed rank: the event a landmark points at, host
 * self time per name, what a time range holds. */
#ifndef ASCPROF_QUERY_H
#define ASCPROF_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "category.h"
#include "result.h"
#include "store.h"

/* The places the bottleneck evidence points at (rank_analysis longest_*), each as one
 * event to select: the longest idle gap by the device task that ends it (the work the device
 * waited for), the longest exposed collective, device copy and host sync by the event of
 * their kind overlapping the interval most (ties: the longer, so an .item() wins over the
 * _local_scalar_dense inside it). UINT32_MAX when there is none. */
enum landmark { LANDMARK_IDLE, LANDMARK_EXPOSED, LANDMARK_COPY, LANDMARK_SYNC };
uint32_t query_landmark_event(const struct rank_analysis *ra, const struct rank_store *rs, enum landmark lm);
/* Self time of host events per name: each event's duration less the parts of it its
 * nested events (on the same lane, one level down) cover, summed by name id (an owned
 * array of strtab_count(rs->strs) entries). aten::item and the _local_scalar_dense inside
 * it share their total time; self time is where each one's own time went. */
int64_t *query_host_self_ns(const struct rank_store *rs);
/* What a time range of one rank holds (the Timeline's range selection): per category the
 * time at least one event of it runs (a union, lanes of the exporter's Overlap Analysis
 * and step marks left out), device and host busy time, and per op name (call-stack
 * frames, cat python_function, are not ops; whole collectives by kind and group, as the op
 * statistics count them) the events overlapping the range with the part of their durations
 * inside it. */
struct range_op {
	const char *name;  /* borrowed from the store, or a collective's kind from the totals' keys */
	const char *group; /* a collective's group, borrowed as name; else NULL */
	uint8_t category; /* of the first event seen */
	bool device;      /* on a device lane (else host or communication) */
	uint32_t count;   /* events overlapping the range */
	int64_t in_ns;    /* sum of their durations clipped to the range */
};
struct range_totals {
	int64_t t0, t1;
	int64_t cat_ns[CAT_COUNT];
	int64_t device_busy_ns, host_busy_ns; /* device: tasks other than waits; host: host lanes */
	size_t n_events;
	struct range_op *ops; /* owned; by in_ns, largest first, then name */
	size_t n_ops;
	struct strtab *keys; /* owned: the collectives' kinds and groups, or NULL */
};
void query_range(const struct rank_store *rs, const struct ev_class *cls, int64_t t0, int64_t t1,
		    struct range_totals *out);
void query_range_free(struct range_totals *rt);

#endif
