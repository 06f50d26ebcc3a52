/* SPDX-License-Identifier: MIT */
/* Event categories: compute, communication, copy, scheduling (host framework work) and
 * other, decided by one ordered rule table over the lane group, the Task Type, the cat
 * and the name. Device wait and sync tasks (Notify Wait, EVENT_WAIT, EVENT_RECORD ...)
 * are "other" and flagged as waits: a task that waits is neither compute nor busy. */
#ifndef ASCPROF_CATEGORY_H
#define ASCPROF_CATEGORY_H

#include <stdbool.h>
#include <stdint.h>

#include "store.h"

enum ev_category { CAT_COMPUTE, CAT_COMM, CAT_COPY, CAT_SCHED, CAT_OTHER, CAT_COUNT };

/* Flags beside the category. */
enum {
	EVF_WAIT = 1 << 0,    /* device wait/sync task: not busy time */
	EVF_SYNC = 1 << 1,    /* host op that drains the device queue (.item, synchronize) */
	EVF_H2D = 1 << 2,     /* a copy from host to device */
	EVF_D2H = 1 << 3,     /* a copy from device to host */
	EVF_DISPATCH = 1 << 4, /* a host framework op (cat cpu_op): counts as one dispatch */
	EVF_STEP_MARK = 1 << 5, /* ProfilerStep#N */
	EVF_FUSED_COMM = 1 << 6, /* an MC2 kernel: communication inside a device kernel, not
				  * mirrored on the HCCL lanes (its time includes waiting for peers) */
	EVF_DIR_BEFORE = 1 << 7, /* a device copy no link reaches: its direction is the directed
				  * host copy op's begun last before it (category_classify_links) */
};

struct ev_class {
	uint8_t cat;   /* enum ev_category */
	uint8_t flags; /* EVF_* */
};

/* Classifies every event of the store: out[ev] for ev < rs->n_ev (caller allocates). The
 * decision depends on (lane group, name, attr) only, so it is computed once per distinct
 * triple. Direction flags of device copies come from the host op that launched them. */
void category_classify(const struct rank_store *rs, struct ev_class *out);
/* category_classify in two parts, so that ranges of events can be classified side by side:
 * out[from..to) from each event's own (lane group, name, attr), then, once every event
 * is, the direction of device copies from the host ops that launched them. */
void category_classify_range(const struct rank_store *rs, struct ev_class *out, size_t from, size_t to);
void category_classify_links(const struct rank_store *rs, struct ev_class *out);
/* One event's class from its parts (the table itself; exposed for tests and docs). */
struct ev_class category_of(enum lane_group group, const char *name, const char *cat,
			    const char *task_type);
const char *category_name(enum ev_category c); /* static */
/* A human description of the rule table, one rule per line (for --help-metrics / docs;
 * static). */
const char *category_rules_text(void);

#endif
