/* SPDX-License-Identifier: MIT */
/* Interval sets on the nanosecond axis: the one way busy time is computed. Parallel
 * streams overlap; adding their durations would count the same nanosecond twice, so
 * every busy, idle and overlap figure goes through a union first. Sets are half-open
 * [start, end) and, once normalised, sorted and disjoint. */
#ifndef ASCPROF_INTERVALS_H
#define ASCPROF_INTERVALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ivset {
	int64_t *start, *end; /* owned */
	size_t n, cap;
	bool normal; /* sorted and disjoint */
};

void ivset_init(struct ivset *s);
void ivset_free(struct ivset *s);
void ivset_clear(struct ivset *s);
/* Appends [start, end); empty or inverted intervals are ignored. */
void ivset_add(struct ivset *s, int64_t start, int64_t end);
/* Sorts and merges touching or overlapping intervals: O(n log n). */
void ivset_normalize(struct ivset *s);
/* Total covered length (normalises first). */
int64_t ivset_total(struct ivset *s);
/* out = a ∩ b, out = a ∪ b, out = a \ b (all normalised; out is overwritten). */
void ivset_intersect(struct ivset *a, struct ivset *b, struct ivset *out);
void ivset_union(struct ivset *a, struct ivset *b, struct ivset *out);
void ivset_subtract(struct ivset *a, struct ivset *b, struct ivset *out);
/* Covered length inside [lo, hi): O(log n) plus the intervals inside. */
int64_t ivset_total_in(struct ivset *s, int64_t lo, int64_t hi);
/* The index of the first interval ending after t (s normalized), s->n when none. */
size_t ivset_first_ending_after(const struct ivset *s, int64_t t);
/* The gaps of s inside [lo, hi) (edges count as gaps) of length >= min_gap: their count
 * and total length; *small_total gets the length of the shorter ones. */
void ivset_gaps(struct ivset *s, int64_t lo, int64_t hi, int64_t min_gap, size_t *count,
		int64_t *total, int64_t *small_total);
void ivset_copy(struct ivset *dst, const struct ivset *src);

#endif
