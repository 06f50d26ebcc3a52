/* SPDX-License-Identifier: MIT */
/* One attribution of a rank's window: every nanosecond of [lo, hi) lands in exactly one
 * bucket, so the buckets sum to the window and no time is blamed twice. The buckets are
 * decided by a fixed priority (first match wins):
 *
 *   edge_idle      outside the span of device activity (before the first and after the
 *                  last device task or collective): profiler start and stop, setup
 *   compute        a device compute task runs
 *   comm_wait      a collective runs, no compute: waiting for a late peer } the exposed
 *   comm_transfer  the same: moving data                                  } communication,
 *   comm_setup     the same: the group's first collective (link setup)    } split per
 *   comm_unsplit   the same, what no data decides                         } collective
 *                                                                           (comm_split.h)
 *   copy           a device copy task runs (no compute, no collective)
 *   device_other   another device task runs (scheduling, unknown)
 *   host_sync      device idle, the host in a sync op (.item, synchronize)
 *   host_copy      device idle, the host in a copy op
 *   host_dispatch  device idle, the host in a framework op or a CANN API
 *   host_python    device idle, the host in other work (Python frames, GC)
 *   idle           device and host idle (inside the span)
 *
 * A sync waiting on a collective or on device work is therefore that collective's or that
 * work's time, never copy time. The module is pure interval arithmetic (intervals.h); the
 * analysis feeds it the rank's sets. */
#ifndef ASCPROF_ATTRIBUTION_H
#define ASCPROF_ATTRIBUTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "i18n.h"
#include "intervals.h"

/* X(id, "key", label, bar letter) in priority order after edge_idle; the label marked N_() and
 * shown through _() */
#define ATTR_BUCKETS(X)                                                      \
	X(COMPUTE, "compute", N_("device compute"), 'C')                     \
	X(COMM_WAIT, "comm_wait", N_("exposed comm: waiting for a peer"), 'W') \
	X(COMM_TRANSFER, "comm_transfer", N_("exposed comm: transfer"), 'T')   \
	X(COMM_SETUP, "comm_setup", N_("exposed comm: setup"), 'U')            \
	X(COMM_UNSPLIT, "comm_unsplit", N_("exposed comm: unsplit"), 'M')      \
	X(COPY, "copy", N_("exposed device copy"), 'Y')                      \
	X(DEVICE_OTHER, "device_other", N_("other device tasks"), 'O')       \
	X(HOST_SYNC, "host_sync", N_("host-bound: sync wait"), 'S')          \
	X(HOST_COPY, "host_copy", N_("host-bound: host copy"), 'H')          \
	X(HOST_DISPATCH, "host_dispatch", N_("host-bound: dispatch"), 'D')   \
	X(HOST_PYTHON, "host_python", N_("host-bound: Python/other"), 'P')   \
	X(IDLE, "idle", N_("idle (device and host)"), '.')                   \
	X(EDGE_IDLE, "edge_idle", N_("idle at the window's edges"), '-')

enum attr_bucket {
#define ATTR_ENUM(id, key, label, letter) ATTR_##id,
	ATTR_BUCKETS(ATTR_ENUM)
#undef ATTR_ENUM
	ATTR_COUNT
};

struct attr_bucket_def {
	const char *key, *label; /* static */
	char letter;
};
extern const struct attr_bucket_def attr_bucket_defs[ATTR_COUNT];

struct attribution {
	bool valid;             /* computed (the rank has a timeline) */
	bool host_known;        /* host lanes were seen: idle is idle, not "host unknown" */
	int64_t wall_ns;        /* hi - lo: the sum of ns[] */
	int64_t span_lo, span_hi; /* device activity's span (inside the window; lo == hi: none) */
	int64_t ns[ATTR_COUNT];
	const char *comm_split; /* static: where the wait/transfer split came from, or why none */
	const char *invalid_why; /* static, when not valid: why (NULL: no timeline at all) */
};
/* Why an attribution is not valid (static, untranslated: N_). */
const char *attribution_why(const struct attribution *a);

/* One layer of the priority order: the part of `set` not taken by earlier layers goes to
 * `bucket`. Sets are normalised in place. */
struct attr_layer {
	struct ivset *set; /* borrowed for attribution_partition (normalised there) */
	enum attr_bucket bucket;
};

/* Partitions [lo, hi): the part outside [span_lo, span_hi) is edge_idle, then each layer
 * in order takes what it covers of the rest, and what no layer covers goes to `rest`.
 * out->ns is overwritten; its sum is hi - lo. */
void attribution_partition(const struct attr_layer *layers, size_t n, int64_t lo, int64_t hi, int64_t span_lo,
			   int64_t span_hi, enum attr_bucket rest, struct attribution *out);

/* Splits comm_unsplit into comm_wait and comm_transfer: wait gets round(unsplit * wait /
 * (wait + transfer)) and transfer the rest, so the sum is kept to the ns. Nothing happens
 * when wait + transfer is not positive. source (static) is kept as a->comm_split. */
void attribution_split_comm(struct attribution *a, double wait, double transfer, const char *source);
/* The same with only the wait known: comm_wait gets round(unsplit * wait / (wait + rest))
 * and the rest stays comm_unsplit (transfer, or a wait the data cannot tell from it). */
void attribution_split_wait(struct attribution *a, double wait, double rest, const char *source);

/* Sum of some buckets, and that sum as a percentage of the window (0 when empty). */
int64_t attribution_sum(const struct attribution *a, const enum attr_bucket *b, size_t n);
double attribution_pct(const struct attribution *a, int64_t ns);

#endif
