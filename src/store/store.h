/* SPDX-License-Identifier: MIT */
/* The per-rank store: what the loaders produce and everything downstream reads.
 *
 * Events are columnar (struct-of-arrays) so an X event costs 20 bytes of columns (and 4
 * more as its lane's index): the start in nanoseconds on the file's own clock (exact: 32
 * bits over a block base), the duration in 32 bits (longer ones aside), an interned name,
 * one index for its lane and attribute pair (cat, Task Type), and the element's byte
 * offset in the file as 32 bits over a block base, from which the full args are parsed lazily on drill-down. Lanes are (pid, tid) pairs named by
 * the trace's metadata; each holds its events sorted by start. Once published, a store is
 * immutable: readers on other threads need no locks. */
#ifndef ASCPROF_STORE_H
#define ASCPROF_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lower_bound.h"
#include "strtab.h"

/* What a lane is, from its process name (see lanes.c for the rules). */
enum lane_group {
	LANE_HOST_PYTHON, /* "Python": framework ops, python_function frames */
	LANE_HOST_CANN,   /* "CANN": AscendCL, Node, Runtime APIs */
	LANE_HOST_GC,     /* "Python GC" */
	LANE_DEVICE,      /* "Ascend Hardware": one lane per stream */
	LANE_COMM,        /* "HCCL" / "Communication": collectives and their planes */
	LANE_OVERLAP,     /* "Overlap Analysis": the exporter's own Computing/Free lanes */
	LANE_OTHER,
	LANE_GROUP_COUNT
};

struct lane {
	uint32_t pid_text;     /* the pid as it appears (number or string); strtab id */
	uint32_t tid_text;
	uint32_t process_name; /* strtab id, 0 when the trace names no process */
	uint32_t thread_name;
	uint32_t process_labels;
	int64_t process_sort, thread_sort;
	bool has_process_sort, has_thread_sort;
	enum lane_group group;
	bool group_guessed; /* no process_name: the group came from cat / args */
	int stream;         /* "Stream N" on device lanes, else -1 */
	uint32_t n_events;
	uint32_t *events; /* owned; event indices sorted by (start, longer first) */
	int64_t first_ts, last_end; /* over its events; 0 when empty */
	int depth_max;    /* nesting levels seen (1 for flat lanes) */
	uint8_t *depth;   /* owned; per event in `events` order: nesting level from 0 */
	int64_t *block_end; /* owned; per LANE_BLOCK events in `events` order: their latest end
			     * (finds the events still running at a time without a scan) */
};

#define LANE_BLOCK 64

/* A counter track: (pid, counter name). */
struct counter_track {
	uint32_t pid_text;
	uint32_t name;         /* the event's name, else its top-level processName */
	uint32_t process_name; /* from metadata, 0 when absent */
	uint32_t value_key;    /* the args key the value came from ("MHz", "KB", ...) */
	uint32_t n_samples;
	uint32_t *samples; /* owned; indices into the counter columns, sorted by ts */
};

/* A flow end ("s" start, "f" finish, "t" step) as read, kept only until the loader has
 * resolved them into links and then freed: a third of a trace's elements are flow ends,
 * so this is 20 bytes (packed to 4-byte alignment, not padded to 24: they are the load's
 * largest transient). Ids that fit in 64 bits are kept as numbers; longer decimal ids
 * (they reach 20 digits) and string ids are kept by their exact text. */
enum flow_ph { FLOW_START, FLOW_FINISH, FLOW_STEP };

struct __attribute__((packed, aligned(4))) flow {
	int64_t ts;
	uint64_t id; /* the number, or the strtab id of the text when id_is_text */
	uint32_t lane;
	uint32_t cat : 29; /* strtab id */
	uint32_t id_is_text : 1;
	uint32_t ph : 2; /* enum flow_ph */
};

/* A resolved flow: the host-side event that launched the device-side one. */
struct flow_link {
	uint32_t from_ev, to_ev;
};

/* Attribute pairs are few (a few hundred distinct cat × Task Type), so events store an
 * index into this table instead of two strings. */
struct ev_attr {
	uint32_t cat;       /* strtab id of "cat", 0 when absent */
	uint32_t task_type; /* strtab id of args."Task Type", 0 when absent */
};

/* Event counts by "ph". */
struct ph_counts {
	uint64_t by_char[128]; /* single-character ph values */
	uint64_t other;        /* missing, multi-character or non-ASCII ph */
	uint64_t not_object;   /* array elements that were not objects */
	uint64_t rejected;     /* objects dropped (bad ts, bad JSON); see warnings */
};

/* One file of a rank's timeline. msprof writes long timelines as msprof_slice_N_*.json
 * parts; they are read as one trace whose byte offsets run on across the parts. */
struct trace_part {
	char *path;    /* owned */
	uint64_t base; /* offset of the part's first byte in the rank's offset space */
	uint64_t size;
	bool truncated;
};

struct trace_file {
	char *path;        /* owned: the first part */
	uint64_t size;     /* over all parts */
	struct trace_part *parts; /* owned; one entry for a single file */
	size_t n_parts;
	uint64_t parsed_bytes; /* up to the last complete element */
	bool truncated;
	int64_t cut_offset; /* where the truncation was noticed, or -1 */
	bool wrapped;       /* {"traceEvents": [...]} rather than a bare array */
	double load_seconds;
	double walk_seconds, merge_seconds, finish_seconds; /* phases of load_seconds */
	int threads_used;
	int rewalked_ranges; /* guessed range starts that proved wrong (see trace.c) */
	int split_ranges;    /* ranges split off while walking (see trace.c); not in the index */
	uint64_t fast_elements; /* elements read by the fast scanner (the rest went to jsmn) */
	const char *mem; /* borrowed: the buffer of trace_load_buffer, else NULL */
	bool db; /* read from a Db export (db.h): offsets name rows, not bytes */
	/* built from a table's rows (the tables source's kernel timeline): what the offsets
	 * index, borrowed (a csv_table, which the store does not know); else NULL */
	const void *rows;
	uint64_t db_base[9]; /* Db: per table (db.c's order), the offset of its rowid 0 */
	size_t mem_len;
};

/* An event's lane and attribute pair: a rank has a few hundred distinct pairs, so events
 * store one index for both. */
struct ev_kind {
	uint32_t lane, attr;
};

/* A duration too long for the 32-bit column (4.29 s and up): kept aside, by event. */
struct long_dur {
	uint32_t ev;
	int64_t dur;
};

#define STORE_LONG_DUR UINT32_MAX /* ev_dur value: look in long_durs */
#define STORE_TS_SHIFT 8          /* events per start block: 256 */
#define STORE_TS_FAR INT64_MIN    /* ev_ts_base value: the block's starts are in ev_ts_far */
#define STORE_OFF_SHIFT 12        /* events per offset block: 4096 */

struct rank_store {
	struct strtab *strs; /* owned: every name, cat, pid text ... */

	/* X events: 20 bytes each in these columns. Read them through the accessors below. The column, lane
	 * event, track sample and link arrays below are owned by the store, or mapped from
	 * its index file (map) and valid until store_free. */
	size_t n_ev;
	/* Starts: 32 bits over the least start of each block of 256 events. A block whose
	 * starts span more than 4.29 s (where the file goes from one process's events to the
	 * next) keeps its starts in full in ev_ts_far, and its first ev_ts_lo entry says
	 * where. See store_ts. */
	uint32_t *ev_ts_lo;   /* owned or mapped (above), n_ev */
	int64_t *ev_ts_base;  /* owned or mapped, a block each */
	int64_t *ev_ts_far;   /* owned or mapped, n_ts_far_blocks blocks */
	size_t n_ts_far_blocks;
	uint32_t *ev_name; /* owned or mapped: strs ids */
	uint32_t *ev_kind; /* owned or mapped: index into kinds */
	uint32_t *ev_dur;  /* owned or mapped: ns, or STORE_LONG_DUR */
	/* Byte offsets rise with the event index (events are in file order): each is its
	 * block's first offset plus 32 bits. When a step does not fit, ev_off_wide holds them
	 * all and the other two are NULL. */
	uint32_t *ev_off_lo;    /* owned or mapped */
	uint64_t *ev_off_block; /* owned or mapped */
	uint64_t *ev_off_wide;  /* owned or mapped */
	struct long_dur *long_durs; /* owned or mapped; sorted by ev */
	size_t n_long_durs;
	struct ev_kind *kinds; /* owned or mapped */
	size_t n_kinds;

	struct ev_attr *attrs; /* owned or mapped */
	size_t n_attrs;

	struct lane *lanes; /* owned (their event arrays may be mapped) */
	size_t n_lanes;

	/* C events */
	size_t n_ctr;
	int64_t *ctr_ts;       /* owned or mapped, n_ctr */
	double *ctr_value;     /* owned or mapped, n_ctr */
	uint32_t *ctr_track;   /* owned or mapped, n_ctr */
	uint64_t *ctr_off;     /* owned or mapped, n_ctr */
	struct counter_track *tracks; /* owned (their samples may be mapped) */
	size_t n_tracks;

	struct flow *flows; /* owned or mapped; NULL once links are resolved */
	size_t n_flows;     /* flow ends read (kept after flows is freed) */
	struct flow_link *links; /* owned or mapped: resolved s->f pairs, sorted by from_ev */
	size_t n_links;
	size_t unmatched_flows;

	struct ph_counts ph;
	struct trace_file trace; /* path NULL when the rank has no trace */

	int64_t window_start, window_end; /* over X events; both 0 when there are none */
	bool has_events;

	/* The index file the columns, lane and track arrays and links are mapped from
	 * (trace_index.h), read-only, or NULL when they are owned; strs, lanes, tracks and
	 * the trace's paths are owned either way. */
	const void *map; /* owned mapping (munmap in store_free), or NULL */
	size_t map_len;
};

void store_init(struct rank_store *rs);
void store_free(struct rank_store *rs);
/* Memory held by the event columns, lanes and strings (for bytes per event). */
size_t store_bytes(const struct rank_store *rs);
/* The starts are laid out in two passes: store_ts_begin (n_ev set) allocates the columns
 * (ev_ts_lo lazily: the caller makes it usable ahead of its writes with spill_ensure) and
 * returns a scratch array for store_ts_bound, called for every event in index order
 * (each block's least and greatest start), then store_ts_plan (which frees the scratch)
 * sets the far blocks aside, then store_put_ts writes each event's start, in any order. */
int64_t *store_ts_begin(struct rank_store *rs);
static inline void store_ts_bound(struct rank_store *rs, int64_t *hi, size_t ev, int64_t ts)
{
	size_t b = ev >> STORE_TS_SHIFT;
	bool first = (ev & (((size_t)1 << STORE_TS_SHIFT) - 1)) == 0;
	if (first || ts < rs->ev_ts_base[b])
		rs->ev_ts_base[b] = ts;
	if (first || ts > hi[b])
		hi[b] = ts;
}
void store_ts_plan(struct rank_store *rs, int64_t *hi);
/* The one-pass alternative for a loader that fills the events in index order: the starts
 * of block first >> STORE_TS_SHIFT (count of them, a whole block but for the last) laid
 * out as store_ts_plan and store_put_ts would; ev_ts_lo and ev_ts_base are sized by the
 * caller, ev_ts_far grows here (*cap_far_blocks: its capacity in blocks). */
void store_ts_put_block(struct rank_store *rs, size_t first, const int64_t *ts, size_t count,
			size_t *cap_far_blocks);
static inline void store_put_ts(struct rank_store *rs, size_t ev, int64_t ts)
{
	int64_t base = rs->ev_ts_base[ev >> STORE_TS_SHIFT];
	if (base != STORE_TS_FAR) {
		rs->ev_ts_lo[ev] = (uint32_t)(ts - base);
		return;
	}
	size_t first = ev & ~(((size_t)1 << STORE_TS_SHIFT) - 1);
	rs->ev_ts_far[((size_t)rs->ev_ts_lo[first] << STORE_TS_SHIFT) + (ev - first)] = ts;
}
/* Sets event ev's offset while the columns are filled in index order (n_ev already set,
 * ev_off_block sized for it); widens to ev_off_wide when a step does not fit. */
void store_put_off_wide(struct rank_store *rs, size_t ev, uint64_t off);
static inline void store_put_off(struct rank_store *rs, size_t ev, uint64_t off)
{
	if (!rs->ev_off_wide) {
		uint64_t *base = &rs->ev_off_block[ev >> STORE_OFF_SHIFT];
		if ((ev & ((1u << STORE_OFF_SHIFT) - 1)) == 0)
			*base = off;
		if (off >= *base && off - *base <= UINT32_MAX) {
			rs->ev_off_lo[ev] = (uint32_t)(off - *base);
			return;
		}
	}
	store_put_off_wide(rs, ev, off);
}

static inline const char *store_str(const struct rank_store *rs, uint32_t id)
{
	return strtab_str(rs->strs, id);
}
static inline const char *store_ev_name(const struct rank_store *rs, size_t ev)
{
	return strtab_str(rs->strs, rs->ev_name[ev]);
}
/* Column accessors: everything outside the loader reads events through these, so the
 * column layout can stay compact without touching the analysis or the views. */
int64_t store_long_dur(const struct rank_store *rs, size_t ev);
static inline int64_t store_ts(const struct rank_store *rs, size_t ev)
{
	int64_t base = rs->ev_ts_base[ev >> STORE_TS_SHIFT];
	if (base != STORE_TS_FAR)
		return base + rs->ev_ts_lo[ev];
	size_t first = ev & ~(((size_t)1 << STORE_TS_SHIFT) - 1);
	return rs->ev_ts_far[((size_t)rs->ev_ts_lo[first] << STORE_TS_SHIFT) + (ev - first)];
}
static inline int64_t store_dur(const struct rank_store *rs, size_t ev)
{
	uint32_t d = rs->ev_dur[ev];
	return d != STORE_LONG_DUR ? (int64_t)d : store_long_dur(rs, ev);
}
static inline uint32_t store_ev_lane_id(const struct rank_store *rs, size_t ev)
{
	return rs->kinds[rs->ev_kind[ev]].lane;
}
static inline uint32_t store_ev_attr_id(const struct rank_store *rs, size_t ev)
{
	return rs->kinds[rs->ev_kind[ev]].attr;
}
static inline uint64_t store_ev_off(const struct rank_store *rs, size_t ev)
{
	if (rs->ev_off_wide)
		return rs->ev_off_wide[ev];
	return rs->ev_off_block[ev >> STORE_OFF_SHIFT] + rs->ev_off_lo[ev];
}
static inline const struct ev_attr *store_ev_attr(const struct rank_store *rs, size_t ev)
{
	return &rs->attrs[store_ev_attr_id(rs, ev)];
}
static inline const struct lane *store_ev_lane(const struct rank_store *rs, size_t ev)
{
	return &rs->lanes[store_ev_lane_id(rs, ev)];
}

/* Events in start order (a lane's, or any list of event indices sorted by start): the
 * first of evs[lo, hi) starting at or after t (store_evs_lower_bound) or after t
 * (store_evs_upper_bound); hi when none. evs is borrowed for the call. */
struct store_evs {
	const struct rank_store *rs; /* borrowed */
	const uint32_t *evs;         /* borrowed */
};
#define STORE_EV_STARTS_BEFORE_(c, i, t) (store_ts((c).rs, (c).evs[i]) < (t))
#define STORE_EV_STARTS_BY_(c, i, t) (store_ts((c).rs, (c).evs[i]) <= (t))
LOWER_BOUND_DEFINE(store_evs_lower_bound_, struct store_evs, int64_t, STORE_EV_STARTS_BEFORE_)
LOWER_BOUND_DEFINE(store_evs_upper_bound_, struct store_evs, int64_t, STORE_EV_STARTS_BY_)
static inline size_t store_evs_lower_bound(const struct rank_store *rs, const uint32_t *evs, size_t lo, size_t hi,
					   int64_t t)
{
	return store_evs_lower_bound_((struct store_evs){rs, evs}, t, lo, hi);
}
static inline size_t store_evs_upper_bound(const struct rank_store *rs, const uint32_t *evs, size_t lo, size_t hi,
					   int64_t t)
{
	return store_evs_upper_bound_((struct store_evs){rs, evs}, t, lo, hi);
}
/* Index of the first lane event starting at or after t. */
uint32_t store_lane_lower_bound(const struct rank_store *rs, const struct lane *lane, int64_t t);
/* A counter track's samples: the first at or after t. */
uint32_t store_track_lower_bound(const struct rank_store *rs, const struct counter_track *tr, int64_t t);
/* The least and greatest value of the track; false without samples. */
bool store_track_minmax(const struct rank_store *rs, const struct counter_track *tr, double *lo, double *hi);
/* The greatest value the track holds in [t0, t1): its samples there and the value set by
 * the last sample before t0 (a counter holds until its next sample); false before its
 * first sample. Past 512 samples in the window, every k-th is read. */
bool store_track_max_in(const struct rank_store *rs, const struct counter_track *tr, int64_t t0, int64_t t1,
			double *out);

#endif
