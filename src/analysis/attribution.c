/* SPDX-License-Identifier: MIT */
/* The attribution of a window to disjoint buckets (attribution.h). */
#include "attribution.h"

#include "i18n.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

const struct attr_bucket_def attr_bucket_defs[ATTR_COUNT] = {
#define ATTR_DEF(id, key, label, letter) [ATTR_##id] = {key, label, letter},
	ATTR_BUCKETS(ATTR_DEF)
#undef ATTR_DEF
};

void attribution_partition(const struct attr_layer *layers, size_t n, int64_t lo, int64_t hi, int64_t span_lo,
			   int64_t span_hi, enum attr_bucket rest, struct attribution *out)
{
	memset(out->ns, 0, sizeof out->ns);
	if (hi < lo)
		hi = lo;
	out->wall_ns = hi - lo;
	int64_t a = span_lo > lo ? span_lo : lo, b = span_hi < hi ? span_hi : hi;
	if (b < a)
		b = a;
	out->span_lo = a;
	out->span_hi = b;
	out->ns[ATTR_EDGE_IDLE] = (hi - lo) - (b - a);
	/* one sweep over every layer's boundaries: each piece of [a, b) goes to the first layer
	 * holding it (a layer's intervals are sorted and disjoint once normalised); layer by
	 * layer, an intersection and a difference of the sets each, made and faulted in copies
	 * of the window's hundreds of thousands of gaps */
	size_t *at = xmalloc((n ? n : 1) * sizeof *at); /* per layer: its first interval ending after t */
	for (size_t i = 0; i < n; i++) {
		ivset_normalize(layers[i].set);
		at[i] = ivset_first_ending_after(layers[i].set, a);
	}
	for (int64_t t = a; t < b;) {
		int64_t next = b; /* the piece [t, next) has one owner */
		size_t k = 0;
		for (; k < n; k++) {
			const struct ivset *s = layers[k].set;
			size_t i = at[k];
			while (i < s->n && s->end[i] <= t)
				i++;
			at[k] = i;
			if (i == s->n)
				continue;
			if (s->start[i] <= t) { /* it holds t: it owns the piece until its interval ends */
				next = s->end[i] < next ? s->end[i] : next;
				break;
			}
			next = s->start[i] < next ? s->start[i] : next; /* an earlier layer takes over there */
		}
		out->ns[k < n ? layers[k].bucket : rest] += next - t;
		t = next;
	}
	free(at);
}

static void split(struct attribution *a, double wait, double rest, const char *source, bool rest_is_transfer)
{
	if (!(wait >= 0) || !(rest >= 0) || !(wait + rest > 0))
		return;
	int64_t u = a->ns[ATTR_COMM_UNSPLIT];
	int64_t w = (int64_t)llround((double)u * (wait / (wait + rest)));
	if (w > u)
		w = u;
	if (w < 0)
		w = 0;
	a->ns[ATTR_COMM_WAIT] += w;
	a->ns[ATTR_COMM_UNSPLIT] = u - w;
	if (rest_is_transfer) {
		a->ns[ATTR_COMM_TRANSFER] += u - w;
		a->ns[ATTR_COMM_UNSPLIT] = 0;
	}
	a->comm_split = source;
}

void attribution_split_comm(struct attribution *a, double wait, double transfer, const char *source)
{
	split(a, wait, transfer, source, true);
}

void attribution_split_wait(struct attribution *a, double wait, double rest, const char *source)
{
	split(a, wait, rest, source, false);
}

int64_t attribution_sum(const struct attribution *a, const enum attr_bucket *b, size_t n)
{
	int64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += a->ns[b[i]];
	return s;
}

double attribution_pct(const struct attribution *a, int64_t ns)
{
	return a->wall_ns > 0 ? 100.0 * (double)ns / (double)a->wall_ns : 0.0;
}

const char *attribution_why(const struct attribution *a)
{
	return a->invalid_why ? a->invalid_why : N_("no trace and no kernel table rows with start times");
}
