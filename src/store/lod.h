/* SPDX-License-Identifier: MIT */
/* Level-of-detail index of a lane, so that drawing a timeline costs time in proportion to
 * the screen, not to the trace. For any time range [a, b) it answers, in O(log n) when
 * zoomed out and O(events in range) when zoomed in: how much of the range the lane's
 * events cover (their union), which categories occur there, and how many events start in
 * it. Built once per lane after loading; immutable afterwards. */
#ifndef ASCPROF_LOD_H
#define ASCPROF_LOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "category.h"
#include "store.h"

#define LOD_MAX_LEVELS 20

struct lane_lod {
	int64_t t0, t1;    /* the lane's extent */
	/* union segments of the lane's events: segment s starts with lane->events[top[s]],
	 * holds the events up to the next segment's first, and ends at seg_end[s] */
	uint32_t *top;     /* owned */
	int64_t *seg_end;  /* owned, parallel to top */
	uint32_t n_top;
	/* pyramid over [t0, t1): level 0 has nb0 buckets, each level halves the count */
	int levels;
	uint32_t nb0;
	int64_t bucket0; /* ns per level-0 bucket */
	uint16_t *cov[LOD_MAX_LEVELS];  /* owned: covered fraction of the bucket, 0..65535 */
	uint8_t *mask[LOD_MAX_LEVELS];  /* owned: categories present (1 << category) */
	/* top, seg_end, cov and mask are mapped (lod_unpack: borrowed from the caller's
	 * bytes until lod_free), not owned */
	bool mapped;
};

struct lod_result {
	double coverage;  /* 0..1 of [a, b) covered by the lane's events */
	uint8_t mask;     /* 1 << category for the categories present */
	uint8_t top_cat;  /* the category to show: the most telling one present */
	uint32_t starts;  /* events starting in [a, b) */
};

/* Builds the index of every lane of rs (classes from category_classify). Returns an array
 * of rs->n_lanes entries (owned). */
struct lane_lod *lod_build(const struct rank_store *rs, const struct ev_class *cls);
void lod_free(struct lane_lod *lods, size_t n);
void lod_query(const struct rank_store *rs, const struct ev_class *cls, const struct lane *lane,
	       const struct lane_lod *lod, int64_t a, int64_t b, struct lod_result *out);
/* The category shown when several occur: communication, copy, compute, scheduling, other. */
uint8_t lod_pick_category(uint8_t mask);

/* Several lanes merged into one cell (a rank's device row): each lane's result added, then
 * the category to show. Without compute in the cell, lod_pick_category's order; with it,
 * compute unless the one that order shows among the others holds more of the cell,
 * communication counting only what compute leaves uncovered: a collective running beside compute (its own stream, or
 * a group lane spanning the step) or a short copy no longer paints a computing rank as
 * something else. Each lane counts for the category it shows (and for compute when it
 * has some). Start with {0}. */
struct lod_merge {
	double cov[CAT_COUNT]; /* per category, the greatest coverage of a lane showing it */
	double any;            /* the greatest coverage of any lane */
	uint8_t mask;          /* the categories present */
};
void lod_merge_add(struct lod_merge *m, const struct lod_result *r);
/* The category to show (CAT_COUNT when no lane had an event there); *coverage the cell's. */
uint8_t lod_merge_pick(const struct lod_merge *m, double *coverage);
size_t lod_bytes(const struct lane_lod *lods, size_t n);

/* The timeline index of every lane of rs and the events' classes as bytes, for the index
 * cache (owned, *len of them): what lod_unpack reads. */
char *lod_pack(const struct rank_store *rs, const struct ev_class *cls, const struct lane_lod *lods, size_t *len);
/* The timeline index and the classes from lod_pack's bytes (8-byte aligned, kept by the
 * caller until lod_free), used in place: the lanes' arrays and *cls are borrowed from
 * bytes. NULL when the bytes do not hold together for rs (another store, cut short,
 * indexes out of range). Returns rs->n_lanes entries (owned, lod_free). */
struct lane_lod *lod_unpack(const struct rank_store *rs, const void *bytes, size_t len, const struct ev_class **cls);

#endif
