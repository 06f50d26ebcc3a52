/* SPDX-License-Identifier: MIT */
/* XSORT_DEFINE(name, T, LESS) defines `static void name(T *a, size_t n)`: a stable merge
 * sort with the comparison inlined. LESS(x, y) is an expression on two `const T *` that is
 * true when *x sorts before *y.
 *
 * The loader and the analysis sort millions of small records (lane events, flow ends, op
 * durations); qsort's call through a pointer per comparison was a tenth of a load. A run
 * that is already in order costs one comparison per merge, so nearly sorted lanes are cheap. */
#ifndef ASCPROF_XSORT_H
#define ASCPROF_XSORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

#define XSORT_DEFINE(name, T, LESS)                                                      \
	static void name##_rec(T *a, T *tmp, size_t n)                                       \
	{                                                                                    \
		if (n <= 16) {                                                               \
			for (size_t i_ = 1; i_ < n; i_++) {                                  \
				T v_ = a[i_];                                                \
				size_t j_ = i_;                                              \
				while (j_ > 0 && LESS((&v_), (&a[j_ - 1]))) {                \
					a[j_] = a[j_ - 1];                                   \
					j_--;                                                \
				}                                                            \
				a[j_] = v_;                                                  \
			}                                                                    \
			return;                                                              \
		}                                                                            \
		size_t h_ = n / 2;                                                           \
		name##_rec(a, tmp, h_);                                                      \
		name##_rec(a + h_, tmp, n - h_);                                             \
		if (!LESS((&a[h_]), (&a[h_ - 1])))                                           \
			return; /* the halves are already in order */                       \
		memcpy(tmp, a, h_ * sizeof(T));                                              \
		size_t i_ = 0, j_ = h_, k_ = 0;                                              \
		while (i_ < h_ && j_ < n)                                                    \
			a[k_++] = LESS((&a[j_]), (&tmp[i_])) ? a[j_++] : tmp[i_++];          \
		while (i_ < h_)                                                              \
			a[k_++] = tmp[i_++];                                                 \
	}                                                                                    \
	static void name(T *a, size_t n)                                                     \
	{                                                                                    \
		if (n < 2)                                                                   \
			return;                                                              \
		T *tmp_ = xmalloc((n / 2 + 1) * sizeof(T));                                  \
		name##_rec(a, tmp_, n);                                                      \
		free(tmp_);                                                                  \
	}

/* XSORT_DEFINE_NEARLY(name, T, LESS) defines name (as above) and `name##_nearly(T *a,
 * size_t n)`, the same stable sort for input that is mostly one sorted run: the elements
 * below the run so far are set aside, sorted alone (cheaply when they too come in order,
 * as when a trace writes two interleaved streams block by block) and merged back in one
 * pass, where the merge sort would move every element ~20 times. Past n/2 set aside it
 * sorts everything. Stable: an element set aside is below an earlier kept one, so every
 * kept element it equals came before it in the input and is merged ahead of it. */
#define XSORT_DEFINE_NEARLY(name, T, LESS)                                               \
	XSORT_DEFINE(name, T, LESS)                                                          \
	static void name##_nearly(T *a, size_t n)                                            \
	{                                                                                    \
		size_t max_aside_ = n / 2, kept_ = 0, aside_ = 0;                            \
		T *set_aside_ = xmalloc((max_aside_ + 1) * sizeof(T));                       \
		for (size_t i_ = 0; i_ < n; i_++) {                                          \
			if (kept_ == 0 || !LESS((&a[i_]), (&a[kept_ - 1])))                  \
				a[kept_++] = a[i_];                                          \
			else if (aside_ < max_aside_)                                        \
				set_aside_[aside_++] = a[i_];                                \
			else                                                                 \
				break;                                                       \
		}                                                                            \
		if (kept_ + aside_ < n) {                                                    \
			/* the set-aside elements back into the slots they freed (the ones  \
			 * not looked at yet are still in place), then everything sorted */  \
			memcpy(a + kept_, set_aside_, aside_ * sizeof(T));                   \
			name(a, n);                                                          \
			free(set_aside_);                                                    \
			return;                                                              \
		}                                                                            \
		name(set_aside_, aside_);                                                    \
		/* merge from the back: the write position never passes an unread kept one */ \
		size_t w_ = n, i_ = kept_, j_ = aside_;                                      \
		while (j_ > 0) {                                                             \
			if (i_ > 0 && LESS((&set_aside_[j_ - 1]), (&a[i_ - 1])))             \
				a[--w_] = a[--i_];                                           \
			else                                                                 \
				a[--w_] = set_aside_[--j_];                                  \
		}                                                                            \
		free(set_aside_);                                                            \
	}

#endif
