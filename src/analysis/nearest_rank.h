/* SPDX-License-Identifier: MIT */
/* Percentiles by nearest rank, as every figure of the tool takes them: the ceil(q * n)-th
 * smallest of n values. Knows nothing of profiling: the stages and the serving analysis
 * use it without the analysis's types. */
#ifndef ASCPROF_NEAREST_RANK_H
#define ASCPROF_NEAREST_RANK_H

#include <stddef.h>
#include <stdint.h>

/* Percentile by nearest rank of a sorted array: the ceil(q*n)-th smallest. */
int64_t nearest_rank(const int64_t *sorted, size_t n, double q);
/* The same of unsorted values, in linear time (the values are reordered). */
int64_t nearest_rank_select(int64_t *values, size_t n, double q);
/* Two percentiles of unsorted values, q_lo <= q_hi (the values are reordered; both 0 when
 * n is 0): a histogram pass for many values, quickselect for few. */
void nearest_rank_select2(int64_t *values, size_t n, double q_lo, double q_hi, int64_t *lo,
				   int64_t *hi);
/* The same of values whose least and greatest are known (min, max: one pass fewer). */
void nearest_rank_select2_in(int64_t *values, size_t n, int64_t min, int64_t max, double q_lo,
				      double q_hi, int64_t *lo, int64_t *hi);

#endif
