/* SPDX-License-Identifier: MIT */
/* qsort comparators on one scalar, ascending: one definition for every file that sorts
 * plain numbers through qsort (xsort.h inlines its comparison instead). */
#ifndef ASCPROF_CMP_H
#define ASCPROF_CMP_H

#include <stdint.h>

/* static inline int NAME(const void *a, const void *b) on two T; a double NaN compares
 * equal to everything, as each copy this replaced did */
#define CMP_SCALAR_DEFINE(name, T)                                                                           \
	static inline int name(const void *a, const void *b)                                                 \
	{                                                                                                    \
		T x = *(const T *)a, y = *(const T *)b;                                                      \
		return x < y ? -1 : x > y;                                                                   \
	}

CMP_SCALAR_DEFINE(cmp_i64, int64_t)
CMP_SCALAR_DEFINE(cmp_u64, uint64_t)
CMP_SCALAR_DEFINE(cmp_i32, int32_t)
CMP_SCALAR_DEFINE(cmp_u32, uint32_t)
CMP_SCALAR_DEFINE(cmp_double, double)

#endif
