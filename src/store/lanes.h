/* SPDX-License-Identifier: MIT */
/* Lanes: from the trace's (pid, tid) pairs and its process/thread metadata to the
 * swimlanes everyone reads (Host, Device, Communication, Overlap Analysis), each with its
 * events sorted by start; plus counter tracks and launch flows resolved to events. */
#ifndef ASCPROF_LANES_H
#define ASCPROF_LANES_H

#include "diag.h"
#include "store.h"

/* After a trace is merged into rs: classify lanes, sort and nest their events, compute
 * the window, sort counter samples and resolve flows. */
void lanes_finish(struct rank_store *rs, const char *name, struct diag_list *dl);
/* The group for a process name (the rule table); LANE_OTHER when unknown. */
enum lane_group lanes_group_for_process(const char *process_name);
const char *lanes_group_name(enum lane_group g); /* static */
/* Host groups (Python, CANN, GC). */
bool lanes_group_is_host(enum lane_group g);
/* A display order: groups Host, Device, Communication, Overlap, Other; then sort indices. */
void lanes_display_order(const struct rank_store *rs, uint32_t *order /* n_lanes */);
/* The event a flow end binds to on its lane: the innermost event enclosing ts, or
 * UINT32_MAX. */
uint32_t lanes_event_at(const struct rank_store *rs, uint32_t lane, int64_t ts);
/* The lane's events overlapping [t0, t1): those starting in it and those started before t0
 * and running past it (*from_before, may be NULL). */
size_t lanes_events_in(const struct rank_store *rs, const struct lane *l, int64_t t0, int64_t t1,
		       size_t *from_before);
/* The same, calling fn on each of those events (NULL: only counts). */
size_t lanes_visit_in(const struct rank_store *rs, const struct lane *l, int64_t t0, int64_t t1,
		      void (*fn)(void *ctx, uint32_t ev), void *ctx, size_t *from_before);
/* Links of event ev: the device events it launched (from == ev) or the host events that
 * launched it (to == ev). Writes up to max event indices; returns how many there are. */
size_t lanes_links_from(const struct rank_store *rs, uint32_t ev, uint32_t *out, size_t max);
size_t lanes_links_to(const struct rank_store *rs, uint32_t ev, uint32_t *out, size_t max);

#endif
