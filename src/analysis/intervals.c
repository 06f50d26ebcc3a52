/* SPDX-License-Identifier: MIT */
/* Sorted-merge interval algebra. */
#include "intervals.h"

#include <stdlib.h>
#include <string.h>

#include "lower_bound.h"
#include "xalloc.h"
#include "xsort.h"

void ivset_init(struct ivset *s) { memset(s, 0, sizeof *s); s->normal = true; }

void ivset_free(struct ivset *s)
{
	free(s->start);
	free(s->end);
	ivset_init(s);
}

void ivset_clear(struct ivset *s)
{
	s->n = 0;
	s->normal = true;
}

static void push(struct ivset *s, int64_t a, int64_t b)
{
	if (s->n == s->cap) {
		size_t c = s->cap;
		xgrow(&s->start, &c, s->n + 1, sizeof *s->start);
		c = s->cap;
		xgrow(&s->end, &c, s->n + 1, sizeof *s->end);
		s->cap = c;
	}
	s->start[s->n] = a;
	s->end[s->n] = b;
	s->n++;
}

void ivset_add(struct ivset *s, int64_t start, int64_t end)
{
	if (end <= start)
		return;
	if (s->n && start >= s->start[s->n - 1] && start <= s->end[s->n - 1]) {
		/* within, overlapping or touching the last one (a lane's nested events): their
		 * union in place, so a host lane's millions of calls cost its top-level spans */
		if (end > s->end[s->n - 1])
			s->end[s->n - 1] = end;
		return;
	}
	if (s->n && start < s->end[s->n - 1])
		s->normal = false; /* out of order or overlapping: merge later */
	push(s, start, end);
}

/* Sets are small since host work is not kept as one (rank_sets.c host_work_minus): a copy
 * as pairs for the sort is the quick way. */
struct pair { int64_t a, b; };

#define PAIR_LESS(p, q) ((p)->a != (q)->a ? (p)->a < (q)->a : (p)->b < (q)->b)
XSORT_DEFINE(sort_pairs, struct pair, PAIR_LESS)

void ivset_normalize(struct ivset *s)
{
	if (s->normal)
		return;
	struct pair *v = xmalloc((s->n ? s->n : 1) * sizeof *v);
	for (size_t i = 0; i < s->n; i++)
		v[i] = (struct pair){s->start[i], s->end[i]};
	sort_pairs(v, s->n);
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (k && v[i].a <= s->end[k - 1]) {
			if (v[i].b > s->end[k - 1])
				s->end[k - 1] = v[i].b;
		} else {
			s->start[k] = v[i].a;
			s->end[k] = v[i].b;
			k++;
		}
	}
	s->n = k;
	s->normal = true;
	free(v);
}

int64_t ivset_total(struct ivset *s)
{
	ivset_normalize(s);
	int64_t t = 0;
	for (size_t i = 0; i < s->n; i++)
		t += s->end[i] - s->start[i];
	return t;
}

void ivset_intersect(struct ivset *a, struct ivset *b, struct ivset *out)
{
	ivset_normalize(a);
	ivset_normalize(b);
	ivset_clear(out);
	size_t i = 0, j = 0;
	while (i < a->n && j < b->n) {
		int64_t lo = a->start[i] > b->start[j] ? a->start[i] : b->start[j];
		int64_t hi = a->end[i] < b->end[j] ? a->end[i] : b->end[j];
		if (hi > lo)
			push(out, lo, hi);
		if (a->end[i] < b->end[j])
			i++;
		else
			j++;
	}
	out->normal = true;
}

void ivset_union(struct ivset *a, struct ivset *b, struct ivset *out)
{
	ivset_normalize(a);
	ivset_normalize(b);
	ivset_clear(out);
	size_t i = 0, j = 0;
	while (i < a->n || j < b->n) {
		int64_t s0, e0;
		if (j >= b->n || (i < a->n && a->start[i] <= b->start[j])) {
			s0 = a->start[i];
			e0 = a->end[i++];
		} else {
			s0 = b->start[j];
			e0 = b->end[j++];
		}
		if (out->n && s0 <= out->end[out->n - 1]) {
			if (e0 > out->end[out->n - 1])
				out->end[out->n - 1] = e0;
		} else {
			push(out, s0, e0);
		}
	}
	out->normal = true;
}

void ivset_subtract(struct ivset *a, struct ivset *b, struct ivset *out)
{
	ivset_normalize(a);
	ivset_normalize(b);
	ivset_clear(out);
	size_t j = 0;
	for (size_t i = 0; i < a->n; i++) {
		int64_t cur = a->start[i], end = a->end[i];
		while (j < b->n && b->end[j] <= cur)
			j++;
		size_t k = j;
		while (k < b->n && b->start[k] < end) {
			if (b->start[k] > cur)
				push(out, cur, b->start[k]);
			if (b->end[k] > cur)
				cur = b->end[k];
			k++;
		}
		if (cur < end)
			push(out, cur, end);
	}
	out->normal = true;
}

size_t ivset_first_ending_after(const struct ivset *s, int64_t t)
{
	return i64_upper_bound(s->end, t, 0, s->n);
}

int64_t ivset_total_in(struct ivset *s, int64_t lo, int64_t hi)
{
	ivset_normalize(s);
	int64_t t = 0;
	for (size_t i = ivset_first_ending_after(s, lo); i < s->n && s->start[i] < hi; i++) {
		int64_t a = s->start[i] > lo ? s->start[i] : lo;
		int64_t b = s->end[i] < hi ? s->end[i] : hi;
		if (b > a)
			t += b - a;
	}
	return t;
}

void ivset_gaps(struct ivset *s, int64_t lo, int64_t hi, int64_t min_gap, size_t *count,
		int64_t *total, int64_t *small_total)
{
	ivset_normalize(s);
	size_t c = 0;
	int64_t t = 0, small = 0;
	int64_t cur = lo;
	for (size_t i = ivset_first_ending_after(s, lo); i <= s->n; i++) {
		int64_t next = i < s->n && s->start[i] < hi ? s->start[i] : hi;
		if (next > cur) {
			int64_t g = next - cur;
			if (g >= min_gap) {
				c++;
				t += g;
			} else {
				small += g;
			}
		}
		if (i >= s->n || s->start[i] >= hi)
			break;
		if (s->end[i] > cur)
			cur = s->end[i];
		if (cur >= hi)
			break;
	}
	*count = c;
	*total = t;
	if (small_total)
		*small_total = small;
}

void ivset_copy(struct ivset *dst, const struct ivset *src)
{
	ivset_clear(dst);
	for (size_t i = 0; i < src->n; i++)
		push(dst, src->start[i], src->end[i]);
	dst->normal = src->normal;
}
