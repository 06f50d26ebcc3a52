/* SPDX-License-Identifier: MIT */
/* The interval sets one rank's metrics are computed from (device busy, compute, copies,
 * communication, syncs, host-only time), built from the store and the events' classes or,
 * without a trace, from the kernel table. Host work is never held as a set (a million
 * spans): it is merged across the host lanes as it is subtracted. */
#ifndef ASCPROF_RANK_SETS_H
#define ASCPROF_RANK_SETS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "category.h"
#include "intervals.h"
#include "store.h"
#include "xthread.h"

struct csv_table;

struct rank_sets {
	struct ivset device_busy; /* device tasks except waits */
	struct ivset compute;     /* device compute tasks */
	struct ivset dev_copy;    /* device copy tasks */
	struct ivset comm;        /* communication lanes, else device communication tasks */
	int64_t host_total;       /* host lanes' busy time, step marks excluded (rank_sets_derive) */
	struct ivset host_copy;
	struct ivset sync;
	struct ivset h2d, d2h;    /* device copies with a direction (category_classify_links) */
	struct ivset compute_or_comm;
	/* Derived once the others are built (rank_sets_derive): the device is "occupied" when
	 * it runs a task or takes part in a collective (waiting for peers included), and host
	 * work (host lanes, step marks excluded) outside that and outside sync ops is
	 * host-only. The host work itself is never held as a set: a million spans. */
	struct ivset occupied, host_only;
	struct ivset host_dispatch; /* host-only time inside framework ops or CANN API calls */
	/* compute_or_comm (occupied) holds compute's (device_busy's) arrays, borrowed, when
	 * comm is empty: no copy of a set of hundreds of thousands of intervals */
	bool compute_or_comm_shared, occupied_shared;
	bool comm_from_lanes;     /* comm came from HCCL/Communication lanes */
	size_t copies_dir_before; /* device copies in h2d or d2h without a link (EVF_DIR_BEFORE) */
};

/* The sets of a rank with a trace (s is initialised here; rs and cls borrowed). */
void rank_sets_build(const struct rank_store *rs, const struct ev_class *cls, struct rank_sets *s);
/* Sets from the kernel table alone (k borrowed, may be NULL), for a rank without a trace;
 * [*lo, *hi) becomes the rows' span. False when no row has a start and a duration. */
bool rank_sets_from_csv(const struct csv_table *k, struct rank_sets *s, int64_t *lo, int64_t *hi);
/* The derived sets (occupied, host-only, host dispatch) once the others are built; host
 * work is read from rs only with has_trace. */
void rank_sets_derive(struct rank_sets *s, const struct rank_store *rs, const struct ev_class *cls,
		      bool has_trace);
void rank_sets_free(struct rank_sets *s);

/* Sets a helper thread may still be building while the steps are found: the steps need
 * them only when the trace marks none (idle-gap steps), and then wait for them. */
struct pending_sets {
	struct rank_sets *sets;       /* borrowed: filled by the builder */
	struct xthread builder;
	const struct rank_store *rs;  /* borrowed, until rank_sets_wait */
	const struct ev_class *cls;   /* borrowed, until rank_sets_wait */
	/* with a builder thread: then(then_arg) runs on it once the sets are ready (work that
	 * needs them and may wait for the caller; never run on the caller's thread) */
	void (*then)(void *);
	void *then_arg;
	bool threaded; /* the builder is a thread of its own: the fields below are used */
	pthread_mutex_t lock;
	pthread_cond_t built;
	bool ready;
};
/* Builds and derives p->sets on a helper thread (threaded, when one can be created) or at
 * once. True when on a thread: then p->then runs there, and rank_sets_join is needed. */
bool rank_sets_start(struct pending_sets *p, bool threaded);
/* Waits for the sets (not for p->then); returns p->sets (borrowed). */
struct rank_sets *rank_sets_wait(struct pending_sets *p);
/* Waits for the builder thread, p->then included. */
void rank_sets_join(struct pending_sets *p);

#endif
