/* SPDX-License-Identifier: MIT */
/* The device-idle gaps' types (gaps.h has the analysis that fills them): what a rank's
 * analysis holds of its gaps (result.h), apart from the analysis, which reads the rank. */
#ifndef ASCPROF_GAP_TYPES_H
#define ASCPROF_GAP_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* X(id, "key"), in the order they are tried after the window's edges and the steps' bounds;
 * unknown: a rank without a trace (kernel table rows only) shows neither host nor launches */
#define GAP_CAUSES(X)                             \
	X(CAPTURE_EDGE, "capture_edge")           \
	X(BETWEEN_STEPS, "between_steps")         \
	X(PEER_WAIT, "peer_wait")                 \
	X(LAUNCH_LATENCY, "launch_latency")       \
	X(BETWEEN_GRAPH_REPLAYS, "between_graph_replays") \
	X(NO_DISPATCH, "no_dispatch")              \
	X(UNKNOWN, "unknown")

enum gap_cause {
#define GAP_CAUSE_ENUM(id, key) GAP_##id,
	GAP_CAUSES(GAP_CAUSE_ENUM)
#undef GAP_CAUSE_ENUM
	GAP_CAUSE_COUNT
};

/* What the host lanes show during a no_dispatch gap: the attribution's host layer holding
 * most of it (GC: the Python GC lane), none when the host is idle too, unknown without a
 * trace (no host lanes). */
#define GAP_HOSTS(X)             \
	X(NONE, "none")          \
	X(SYNC, "sync")          \
	X(COPY, "copy")          \
	X(DISPATCH, "dispatch")  \
	X(GC, "gc")              \
	X(PYTHON, "python")      \
	X(UNKNOWN, "unknown")

enum gap_host {
#define GAP_HOST_ENUM(id, key) GAP_HOST_##id,
	GAP_HOSTS(GAP_HOST_ENUM)
#undef GAP_HOST_ENUM
	GAP_HOST_COUNT
};

const char *gaps_cause_name(enum gap_cause c); /* static */
const char *gaps_host_name(enum gap_host h);   /* static */

#define GAPS_TOP 20

struct gap {
	int64_t start, dur; /* ns, the rank's clock */
	int32_t step;       /* the step whose window holds it, or -1 */
	uint8_t cause;      /* enum gap_cause */
	uint8_t host;       /* enum gap_host: what the host did (every cause, not only no_dispatch) */
};

struct gap_analysis {
	bool valid;                /* computed: the rank has a timeline */
	uint64_t count;            /* gaps (pieces) found */
	int64_t total_ns;          /* their time: the window's device-idle time */
	int64_t by_cause[GAP_CAUSE_COUNT];
	int64_t no_dispatch_by_host[GAP_HOST_COUNT]; /* by_cause[no_dispatch] split by host */
	struct gap top[GAPS_TOP];  /* the longest, longest first (ties: earliest first) */
	size_t n_top;
};

#endif
