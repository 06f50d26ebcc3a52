/* SPDX-License-Identifier: MIT */
/* What the trace loader's parts share (trace.h is the loader's interface): the per-thread
 * segment an element walk fills (trace_seg.c), the ranges the walk runs over
 * (trace_walk.c), the merge of segments into the rank's store (trace_merge.c); trace.c
 * holds the entry points and the lazy args. Private to those four files. */
#ifndef ASCPROF_TRACE_INTERNAL_H
#define ASCPROF_TRACE_INTERNAL_H

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <unistr.h>
#include "i18n.h"
#include "json_scan.h"
#include "json_tok.h"
#include "trace_elem.h"
#include "lanes.h"
#include "mapguard.h"
#include "num.h"
#include "spill.h"
#include "stagetime.h"
#include "u64map.h"
#include "xalloc.h"
#include "xthread.h"
#include "trace.h"


#define NOT_FOUND ((size_t)-1)
/* Below this size one thread is faster than splitting. */
#define PARALLEL_MIN_BYTES (4u << 20)
#define MAX_THREADS 16
/* A part is walked in one range per thread at first. A thread slowed by others (the CSV
 * tables load beside the traces) would leave the other cores idle at the end, so a
 * thread left without a range asks the busiest one to give it the second half of what
 * it has left (trace_walk_range_split), while that is worth a range more in the merge. Fixed tail
 * ranges (80 % in long ranges, then 12 and 8 %) left the second core idle 10-80 ms at
 * the end of a 1 GB trace's walk; split on demand, 1-22 ms. */
#define MAX_RANGES (MAX_THREADS + 32)
/* A walking thread looks for such a request every this many bytes, and gives half of its
 * rest only when that rest is at least twice SPLIT_MIN_BYTES. */
#define SPLIT_CHECK_BYTES ((size_t)256 << 10)
#define SPLIT_MIN_BYTES ((size_t)4 << 20)
/* Each kind of per-element complaint is listed this many times per range, then counted. */
#define WARN_EACH 5
#define INTERN_CACHE_BITS 9
#define INTERN_CACHE_SIZE (1u << INTERN_CACHE_BITS)
#define LANE_MEMO_BITS 6

static inline uint64_t pair_key(uint32_t a, uint32_t b) { return ((uint64_t)a << 32) | b; }

/* ---- per-thread segment ------------------------------------------------------------- */

enum meta_kind { META_PROCESS_NAME, META_PROCESS_LABELS, META_PROCESS_SORT, META_THREAD_NAME,
		 META_THREAD_SORT };

struct meta_rec {
	uint32_t pid, tid; /* strtab ids (segment-local until merged) */
	uint32_t str;      /* for names and labels */
	int64_t num;       /* for sort indices */
	uint64_t off;
	const char *file; /* the part it came from, for messages */
	uint8_t kind;
};

struct seg_lane { uint32_t pid, tid; };
struct seg_track { uint32_t pid, name, value_key; };

enum warn_kind { W_BAD_JSON, W_NOT_OBJECT, W_BAD_TS, W_BAD_DUR, W_NEG_DUR, W_NO_TS, W_BIG,
		 W_END_BEFORE_BEGIN, W_END_ALONE, W_NUL, W_TS_EXPONENT, W_KIND_COUNT };

/* "B" events waiting for their "E": a stack per lane, linked through prev (an index, or
 * BE_NONE). What is still open when the segment ends, and the "E" events that found no
 * "B" in it, are paired across segments when they are merged (pair_across_segments). */
#define BE_NONE UINT32_MAX
struct be_open {
	int64_t ts;
	uint64_t off;
	uint32_t name, lane, attr, prev;
	bool closed;
};
struct be_end {
	int64_t ts;
	uint64_t off;
	uint32_t lane;
};

/* Ids of recent (a, b) pairs in front of a u64map: events alternate between a few lanes
 * and attributes, and a look here is cheaper than the map. Keys are kept plus one (0:
 * empty). */
#define PAIR_CACHE_SIZE 16
struct pair_cache {
	uint64_t key[PAIR_CACHE_SIZE];
	uint32_t id[PAIR_CACHE_SIZE];
};

/* True with *id when key is cached; *at is its entry either way. */
static inline bool pair_cache_get(const struct pair_cache *pc, uint64_t key, size_t *at, uint32_t *id)
{
	*at = (size_t)(mix64(key) >> 60);
	*id = pc->id[*at];
	return pc->key[*at] == key + 1;
}

/* The longest "dur" kept: a day. */
#define TRACE_DUR_MAX_NS (INT64_C(86400) * 1000000000)

#define TS_JUMP INT32_MIN /* seg ts_step value: the start is in ts_jumps */

struct seg {
	struct strtab *strs;
	uint64_t base; /* added to stored offsets: the part's place in the rank's offset space */
	/* X, compact as in the store (store.h); offsets as steps from the previous event's */
	size_t n, cap;
	/* starts as steps from the previous event's (in file order they are mostly close);
	 * a step that does not fit in 32 bits is TS_JUMP and the start is in ts_jumps */
	int32_t *ts_step;
	int64_t ts_prev;
	struct ts_jump { uint32_t ev; int64_t ts; } *ts_jumps;
	size_t n_ts_jumps, cap_ts_jumps;
	uint32_t *name, *kind, *dur, *off_step;
	uint64_t off_prev;
	struct long_dur *long_durs;
	size_t n_long, cap_long;
	struct off_jump { uint32_t ev; uint64_t off; } *jumps; /* steps of 4 GB and more */
	size_t n_jumps, cap_jumps;
	struct ev_kind *kinds;
	size_t n_kinds, cap_kinds;
	struct u64map kind_map;
	uint64_t last_kind_key; /* consecutive events mostly share a lane and attributes */
	uint32_t last_kind;
	/* attrs */
	struct ev_attr *attrs;
	size_t n_attrs, cap_attrs;
	struct u64map attr_map;
	struct pair_cache attr_cache;
	/* lanes */
	struct seg_lane *lanes;
	size_t n_lanes, cap_lanes;
	struct u64map lane_map;
	struct pair_cache lane_cache;
	/* C */
	size_t n_ctr, cap_ctr;
	int64_t *ctr_ts;
	double *ctr_value;
	uint32_t *ctr_track;
	uint64_t *ctr_off;
	struct seg_track *tracks;
	size_t n_tracks, cap_tracks;
	struct u64map track_map;
	/* flows, metadata */
	struct flow *flows;
	size_t n_flows, cap_flows;
	struct meta_rec *meta;
	size_t n_meta, cap_meta;
	/* B/E pairs */
	struct be_open *opens;
	size_t n_opens, cap_opens;
	uint32_t *open_top; /* per lane: the innermost open "B", or BE_NONE */
	size_t cap_open_top;
	struct be_end *ends; /* "E" events with no "B" open on their lane in this segment */
	size_t n_ends, cap_ends;
	struct ph_counts ph;
	uint64_t warn_count[W_KIND_COUNT];
	uint64_t cur_off; /* the element being taken, for messages from deep inside */
	/* texts interned lately (names, pids, tids, cats) by their bytes: a few hundred
	 * distinct ones make up nearly every event, and this is cheaper than the table */
	struct intern_cache { uint64_t w0, w1; const char *text; uint32_t len, id; } cache[INTERN_CACHE_SIZE];
	/* lanes of recent (pid, tid) texts by their words (seg_lane_of); lens 0: empty, as
	 * no entry is made for an empty text */
	struct lane_memo { uint64_t p0, p1, t0, t1; uint32_t lens, lane; } lane_memo[1u << LANE_MEMO_BITS];
	/* walk state */
	struct jtok jt;
	struct sbuf scratch;
	const char *name_for_diag;
	/* Messages stay here until the range is confirmed: a range walked from a wrong
	 * guess is discarded with everything it said. */
	struct diag_list local;
};

/* Event i's start from event i - 1's (prev), read in index order; *jump is the next
 * unread entry of ts_jumps. */
static inline int64_t seg_next_ts(const struct seg *sg, size_t i, int64_t prev, size_t *jump)
{
	return sg->ts_step[i] != TS_JUMP ? prev + sg->ts_step[i] : sg->ts_jumps[(*jump)++].ts;
}

/* RANGE_VANISHED: a read faulted, the file shrank while it was read (mapguard.h) */
enum range_end { RANGE_STOPPED, RANGE_ARRAY_END, RANGE_TRUNCATED, RANGE_ERROR, RANGE_EMPTY, RANGE_VANISHED };

struct range_queue;

struct range_job {
	const char *buf;
	size_t len;
	size_t begin;      /* first byte to walk from (element start or after '[') */
	/* elements starting at or after this belong to the next range; lowered by the
	 * walking thread itself when it gives up the rest of its range (trace_walk_range_split) */
	_Atomic size_t stop;
	_Atomic size_t at;          /* how far the walk is, published every SPLIT_CHECK_BYTES */
	_Atomic bool split_wanted;  /* an idle thread asks for the second half of the rest */
	bool running;               /* under the queue's lock */
	struct range_queue *queue;  /* NULL: walked alone (a re-walk), never split */
	struct seg seg;
	enum range_end how;
	size_t next_start; /* RANGE_STOPPED: the first element not walked */
	size_t end_pos;    /* where the walk ended (cut or error offset) */
	size_t last_complete_end;
	unsigned char err_byte; /* RANGE_ERROR: the byte (read while the file was there) */
	uint64_t reported;      /* progress already counted */
	_Atomic uint64_t *progress;
	bool jsmn_only; /* the reference path only (tests) */
	size_t fast;    /* elements the fast scanner read */
};

/* The ranges of one part, handed out in file order to whichever thread is free; split
 * further while they are walked (trace_walk_range_split). Under mu: n, next, and each job's
 * running; cv is signalled when a range is added or ends. */
struct range_queue {
	struct range_job *jobs;
	int n, next, cap, splits;
	size_t split_min, check_bytes; /* SPLIT_MIN_BYTES and SPLIT_CHECK_BYTES but in tests */
	pthread_mutex_t mu;
	pthread_cond_t cv;
};


/* jscan_resync reads the file too: under its own guard */
struct resync_call {
	const char *buf;
	size_t len, guess, at;
};

struct merge_state {
	struct rank_store *rs;
	struct u64map lane_map, attr_map, track_map, kind_map;
	size_t cap_kinds;
	struct meta_rec *meta;
	size_t n_meta, cap_meta;
	size_t cap_lanes, cap_attrs, cap_tracks;
};
/* Columns move out of the segments a chunk at a time, each chunk's pages given back once
 * it is copied: moved whole, every column was held twice for a while, the load's peak.
 * The rank's columns are grown lazily (spill.h) and their space written a chunk ahead of
 * the copy, so it takes the pages the chunk before gave back rather than fresh ones.
 * An eighth of the column a chunk: each release is a round of TLB shootdowns on the other
 * cores, so not many more. */
static inline size_t merge_chunk(size_t n) { return n / 8 > 32768 ? n / 8 : 32768; }
/* Where the chunk that starts at i of n ends. */
static inline size_t chunk_end(size_t i, size_t n, size_t chunk) { return n - i < chunk ? n : i + chunk; }

#define ENSURE_COLUMN(col, n) ((col) = spill_ensure((col), (n) * sizeof *(col)))
#define MOVE_COLUMN(dst, at, src, n)                                                       \
	do {                                                                               \
		size_t done_ = 0, chunk_ = merge_chunk(n);                                 \
		for (size_t o_ = 0; o_ < (n); o_ += chunk_) {                              \
			size_t c_ = chunk_end(o_, (n), chunk_) - o_;                       \
			ENSURE_COLUMN(dst, (at) + o_ + c_);                                \
			memcpy((dst) + (at) + o_, (src) + o_, c_ * sizeof *(src));         \
			done_ = spill_release((src), done_, (o_ + c_) * sizeof *(src));   \
		}                                                                          \
		spill_free(src);                                                           \
		(src) = NULL;                                                              \
	} while (0)
#define MAP_COLUMN(dst, at, src, n, map)                                                   \
	do {                                                                               \
		size_t done_ = 0, chunk_ = merge_chunk(n);                                 \
		for (size_t o_ = 0; o_ < (n); o_ += chunk_) {                              \
			size_t c_ = chunk_end(o_, (n), chunk_) - o_;                       \
			ENSURE_COLUMN(dst, (at) + o_ + c_);                                \
			for (size_t i_ = o_; i_ < o_ + c_; i_++)                           \
				(dst)[(at) + i_] = (map)[(src)[i_]];                       \
			done_ = spill_release((src), done_, (o_ + c_) * sizeof *(src));   \
		}                                                                          \
		spill_free(src);                                                           \
		(src) = NULL;                                                              \
	} while (0)

#define MAP_IN_PLACE(col, n, map)                             \
	do {                                                  \
		for (size_t i_ = 0; i_ < (n); i_++)           \
			(col)[i_] = (map)[(col)[i_]];         \
	} while (0)
/* The first segment's columns become the rank's, grown in place: realloc of a large block
 * remaps its pages rather than copying them, so only the later segments are copied. */
#define ADOPT_COLUMN(dst, src, total)                                                   \
	do {                                                                            \
		(dst) = spill_realloc_lazy((src), ((total) ? (total) : 1) * sizeof *(src)); \
		(src) = NULL;                                                           \
	} while (0)


/* A segment's local ids (strings, lanes, attribute pairs, kinds, counter tracks) mapped to
 * the rank's: made in file order, so ids come out the same whatever the threads. */
struct seg_maps {
	uint32_t *smap, *lmap, *amap, *kmap, *tmap;
	size_t ev_at, ctr_at; /* where the segment's events and counters go */
	bool adopted;         /* the rank's columns are this segment's own (see ADOPT_COLUMN) */
};

/* The columns of the segments, in three jobs that share no column (trace_merge_worker): times
 * and offsets, ids, flows. Each segment column is freed once copied; the rank's columns
 * are grown lazily, so pages become resident only as they are written. */
struct merge_columns {
	struct rank_store *rs;
	struct seg **segs;
	struct seg_maps *maps;
	size_t n_segs;
};

/* The merge's jobs share no column; two threads take them biggest first (the flows, then
 * the times and offsets with the starts' layout, then the ids), whichever is free. Split
 * in two halves (times and offsets, ids and flows), the second ran 40 ms alone on the 1 GB
 * capture. */
struct merge_queue {
	struct merge_columns *mc;
	_Atomic int next;
};

/* trace_seg.c: one element into a segment */
void trace_seg_init(struct seg *sg, const char *name);
void trace_seg_free(struct seg *sg);
void trace_seg_warn(struct seg *sg, enum warn_kind kind, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
uint32_t trace_seg_lane(struct seg *sg, uint32_t pid, uint32_t tid);
uint32_t trace_seg_attr(struct seg *sg, uint32_t cat, uint32_t task_type);
void trace_seg_push_be_span(struct seg *sg, int64_t b_ts, uint64_t b_full_off, uint32_t name, uint32_t lane,
			 uint32_t attr, int64_t e_ts, uint64_t e_off);
void trace_seg_take_element(struct seg *sg, const struct elem *e, uint64_t off);
void trace_seg_parse_element(struct seg *sg, const char *buf, size_t start, size_t end);

/* trace_walk.c: a range of a part, element by element */
void trace_walk_resync_guarded(void *arg);
void trace_walk_job_start(struct range_job *job, const char *name, uint64_t base, size_t begin);
size_t trace_walk_range_split(struct range_job *job, size_t pos, size_t stop);
void *trace_walk_range(void *arg);

/* trace_merge.c: segments into the rank's store */
void trace_merge_maps_build(struct merge_state *ms, struct seg *sg, struct seg_maps *maps);
void trace_merge_maps_free(struct seg_maps *m);
void *trace_merge_worker(void *arg);
void trace_merge_apply_meta(struct merge_state *ms, const char *name, struct diag_list *dl);
void trace_merge_report_bad_utf8(const struct rank_store *rs, const char *name, struct diag_list *dl);

#endif
