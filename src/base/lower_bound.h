/* SPDX-License-Identifier: MIT */
/* LOWER_BOUND_DEFINE(name, CTX, KEY, BEFORE) defines
 *     static inline size_t name(CTX ctx, KEY key, size_t lo, size_t hi)
 * the first index i in [lo, hi) for which BEFORE(ctx, i, key) is false, or hi when there
 * is none. BEFORE is an expression true on a prefix of the range and false after it: with
 * "element i < key" it is C++'s lower_bound, with "element i <= key" its upper_bound.
 *
 * Every binary search of the tree is one of these (the timeline runs some per frame
 * column): the predicate is inlined, as in XSORT_DEFINE, not called through a pointer. */
#ifndef ASCPROF_LOWER_BOUND_H
#define ASCPROF_LOWER_BOUND_H

#include <stddef.h>
#include <stdint.h>

#define LOWER_BOUND_DEFINE(name, CTX, KEY, BEFORE)                                  \
	static inline size_t name(CTX ctx, KEY key, size_t lo, size_t hi)          \
	{                                                                           \
		while (lo < hi) {                                                   \
			size_t mid_ = lo + (hi - lo) / 2;                           \
			if (BEFORE(ctx, mid_, key))                                 \
				lo = mid_ + 1;                                      \
			else                                                        \
				hi = mid_;                                          \
		}                                                                   \
		return lo;                                                          \
	}

/* Ascending int64_t arrays: the first index in [lo, hi) whose value is at least t
 * (i64_lower_bound) or above t (i64_upper_bound); hi when none. */
#define LOWER_BOUND_I64_LT_(a, i, t) ((a)[i] < (t))
#define LOWER_BOUND_I64_LE_(a, i, t) ((a)[i] <= (t))
LOWER_BOUND_DEFINE(i64_lower_bound, const int64_t *, int64_t, LOWER_BOUND_I64_LT_)
LOWER_BOUND_DEFINE(i64_upper_bound, const int64_t *, int64_t, LOWER_BOUND_I64_LE_)

#endif
