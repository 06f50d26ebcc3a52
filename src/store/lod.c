/* SPDX-License-Identifier: MIT */
/* Per-lane union segments and a coverage/category pyramid for fast timeline frames. */
#include "lod.h"

#include <stdlib.h>
#include <string.h>

#include "lower_bound.h"
#include "num.h"
#include "xalloc.h"
#include "xsort.h"

/* Lanes with fewer events are drawn from their segments directly. */
#define LOD_DIRECT_EVENTS 4096
#define LOD_MAX_BUCKETS 65536

/* Union segments of a lane: `top` holds the position (in lane->events) of the first event
 * of each segment; the segment runs to the next one's first event. Ends are kept apart. */
static void build_segments(const struct rank_store *rs, const struct lane *l, struct lane_lod *lod,
			   int64_t **ends)
{
	lod->top = xmalloc((l->n_events ? l->n_events : 1) * sizeof *lod->top);
	*ends = xmalloc((l->n_events ? l->n_events : 1) * sizeof **ends);
	uint32_t n = 0;
	int64_t cur_end = INT64_MIN;
	for (uint32_t i = 0; i < l->n_events; i++) {
		uint32_t ev = l->events[i];
		int64_t a = store_ts(rs, ev), b = a + store_dur(rs, ev);
		if (n == 0 || a > cur_end) {
			lod->top[n] = i;
			(*ends)[n] = b;
			n++;
			cur_end = b;
		} else if (b > cur_end) {
			cur_end = b;
			(*ends)[n - 1] = b;
		}
	}
	lod->n_top = n;
	lod->top = xrealloc(lod->top, (n ? n : 1) * sizeof *lod->top);
	*ends = xrealloc(*ends, (n ? n : 1) * sizeof **ends);
}

uint8_t lod_pick_category(uint8_t mask)
{
	static const uint8_t order[] = {CAT_COMM, CAT_COPY, CAT_COMPUTE, CAT_SCHED, CAT_OTHER};
	for (size_t i = 0; i < sizeof order; i++)
		if (mask & (1u << order[i]))
			return order[i];
	return CAT_OTHER;
}

void lod_merge_add(struct lod_merge *m, const struct lod_result *r)
{
	if (!r->mask)
		return;
	/* a lane's cell counts for the category it shows; a compute lane with a short
	 * collective in the cell counts for both */
	uint8_t cat = lod_pick_category(r->mask);
	if (r->coverage > m->cov[cat])
		m->cov[cat] = r->coverage;
	if ((r->mask & (1u << CAT_COMPUTE)) && r->coverage > m->cov[CAT_COMPUTE])
		m->cov[CAT_COMPUTE] = r->coverage;
	if (r->coverage > m->any)
		m->any = r->coverage;
	m->mask |= r->mask;
}

uint8_t lod_merge_pick(const struct lod_merge *m, double *coverage)
{
	*coverage = m->any;
	if (!m->mask)
		return CAT_COUNT;
	/* without compute in the cell, the usual order (lod_pick_category) */
	if (!(m->mask & (1u << CAT_COMPUTE)))
		return lod_pick_category(m->mask);
	/* with it, the one the usual order shows among the others only where it holds more of
	 * the cell than compute, and of communication only what compute leaves uncovered:
	 * short copies and collectives beside compute no longer paint a computing rank as
	 * something else */
	double c = m->cov[CAT_COMPUTE];
	uint8_t rest = m->mask & (uint8_t)~(1u << CAT_COMPUTE);
	if (!rest)
		return CAT_COMPUTE;
	uint8_t other = lod_pick_category(rest);
	double v = other == CAT_COMM ? (m->cov[other] > c ? m->cov[other] - c : 0) : m->cov[other];
	return v > c ? other : CAT_COMPUTE;
}

static uint32_t pow2_at_least(uint32_t v)
{
	uint32_t p = 1;
	while (p < v && p < LOD_MAX_BUCKETS)
		p <<= 1;
	return p;
}

/* Adds [a, b) to the level-0 buckets: coverage in ns and the category bit. Spans come in
 * start order, so the first bucket is found by stepping on from the last span's (*from)
 * rather than by a 64-bit division per event: that division was most of the index's
 * build time. */
static void add_span(struct lane_lod *lod, int64_t *cov_ns, uint32_t *from, int64_t a, int64_t b, uint8_t bit,
		     bool coverage)
{
	if (a < lod->t0)
		a = lod->t0;
	if (b > lod->t1)
		b = lod->t1;
	if (b <= a && !(a == b && a >= lod->t0 && a < lod->t1))
		return;
	int64_t w = lod->bucket0;
	uint32_t i0 = *from;
	int64_t lo = lod->t0 + (int64_t)i0 * w;
	while (i0 + 1 < lod->nb0 && lo + w <= a) {
		i0++;
		lo += w;
	}
	*from = i0;
	for (uint32_t i = i0; i < lod->nb0; i++, lo += w) {
		if (i > i0 && lo >= b)
			break;
		lod->mask[0][i] |= bit;
		if (coverage) {
			int64_t hi = lo + w;
			int64_t x = a > lo ? a : lo, y = b < hi ? b : hi;
			if (y > x)
				cov_ns[i] = num_sat_add(cov_ns[i], y - x);
		}
	}
}

static void build_pyramid(const struct rank_store *rs, const struct ev_class *cls, const struct lane *l,
			  struct lane_lod *lod, const int64_t *ends)
{
	lod->nb0 = pow2_at_least(lod->n_top * 2 > 256 ? lod->n_top * 2 : 256);
	int64_t span = lod->t1 - lod->t0;
	lod->bucket0 = span / lod->nb0 + 1;
	lod->mask[0] = xcalloc(lod->nb0, 1);
	lod->cov[0] = xcalloc(lod->nb0, sizeof *lod->cov[0]);
	int64_t *cov_ns = xcalloc(lod->nb0, sizeof *cov_ns);
	uint32_t from = 0;
	for (uint32_t s = 0; s < lod->n_top; s++) {
		uint32_t ev = l->events[lod->top[s]];
		add_span(lod, cov_ns, &from, store_ts(rs, ev), ends[s], 0, true);
	}
	from = 0;
	for (uint32_t i = 0; i < l->n_events; i++) {
		uint32_t ev = l->events[i];
		int64_t a = store_ts(rs, ev);
		add_span(lod, cov_ns, &from, a, a + store_dur(rs, ev), (uint8_t)(1u << cls[ev].cat), false);
	}
	for (uint32_t i = 0; i < lod->nb0; i++) {
		int64_t c = num_muldiv(cov_ns[i], 65535, lod->bucket0);
		lod->cov[0][i] = (uint16_t)(c > 65535 ? 65535 : c);
	}
	free(cov_ns);
	uint32_t nb = lod->nb0;
	lod->levels = 1;
	while (nb > 1 && lod->levels < LOD_MAX_LEVELS) {
		uint32_t half = nb / 2;
		int L = lod->levels;
		lod->cov[L] = xmalloc(half * sizeof *lod->cov[L]);
		lod->mask[L] = xmalloc(half);
		for (uint32_t i = 0; i < half; i++) {
			lod->cov[L][i] = (uint16_t)(((uint32_t)lod->cov[L - 1][2 * i] + lod->cov[L - 1][2 * i + 1]) / 2);
			lod->mask[L][i] = lod->mask[L - 1][2 * i] | lod->mask[L - 1][2 * i + 1];
		}
		nb = half;
		lod->levels++;
	}
}

struct lane_lod *lod_build(const struct rank_store *rs, const struct ev_class *cls)
{
	struct lane_lod *lods = xcalloc(rs->n_lanes ? rs->n_lanes : 1, sizeof *lods);
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *l = &rs->lanes[li];
		struct lane_lod *lod = &lods[li];
		int64_t *ends;
		build_segments(rs, l, lod, &ends);
		lod->t0 = l->n_events ? l->first_ts : 0;
		lod->t1 = l->n_events ? l->last_end : 0;
		if (lod->t1 <= lod->t0)
			lod->t1 = lod->t0 + 1;
		if (l->n_events > LOD_DIRECT_EVENTS)
			build_pyramid(rs, cls, l, lod, ends);
		lod->seg_end = ends;
	}
	return lods;
}

void lod_free(struct lane_lod *lods, size_t n)
{
	if (!lods)
		return;
	for (size_t i = 0; i < n; i++) {
		if (lods[i].mapped)
			continue;
		free(lods[i].top);
		free(lods[i].seg_end);
		for (int L = 0; L < lods[i].levels; L++) {
			free(lods[i].cov[L]);
			free(lods[i].mask[L]);
		}
	}
	free(lods);
}

size_t lod_bytes(const struct lane_lod *lods, size_t n)
{
	size_t b = n * sizeof *lods;
	for (size_t i = 0; i < n; i++) {
		b += (size_t)lods[i].n_top * 12;
		uint32_t nb = lods[i].nb0;
		for (int L = 0; L < lods[i].levels; L++, nb /= 2)
			b += (size_t)nb * 3;
	}
	return b;
}

void lod_query(const struct rank_store *rs, const struct ev_class *cls, const struct lane *l,
	       const struct lane_lod *lod, int64_t a, int64_t b, struct lod_result *out)
{
	memset(out, 0, sizeof *out);
	out->top_cat = CAT_OTHER;
	if (b <= a || !l->n_events)
		return;
	out->starts = store_lane_lower_bound(rs, l, b) - store_lane_lower_bound(rs, l, a);
	int64_t qa = a < lod->t0 ? lod->t0 : a, qb = b > lod->t1 ? lod->t1 : b;
	if (qb <= qa)
		return;
	int64_t width = b - a;
	if (lod->levels && qb - qa >= 2 * lod->bucket0) {
		/* the coarsest level whose buckets still fit twice in the range */
		int L = 0;
		/* bucket0 × 2^(L+2) <= qb - qa, without the shift passing 64 bits */
		while (L + 1 < lod->levels && lod->bucket0 <= (qb - qa) >> (L + 2))
			L++;
		int64_t w = lod->bucket0 << L;
		uint32_t nb = lod->nb0 >> L;
		int64_t i0 = (qa - lod->t0) / w, i1 = (qb - 1 - lod->t0) / w;
		if (i1 >= (int64_t)nb)
			i1 = nb - 1;
		double covered = 0;
		for (int64_t i = i0; i <= i1; i++) {
			int64_t lo = lod->t0 + i * w, hi = lo + w;
			int64_t x = qa > lo ? qa : lo, y = qb < hi ? qb : hi;
			covered += (double)lod->cov[L][i] / 65535.0 * (double)(y - x);
			out->mask |= lod->mask[L][i];
		}
		out->coverage = covered / (double)width;
	} else {
		const int64_t *ends = lod->seg_end;
		/* first segment ending after a */
		uint32_t lo = (uint32_t)i64_upper_bound(ends, a, 0, lod->n_top);
		int64_t covered = 0;
		for (uint32_t s = lo; s < lod->n_top; s++) {
			uint32_t first = lod->top[s];
			int64_t sa = store_ts(rs, l->events[first]);
			if (sa >= b)
				break;
			int64_t x = sa > a ? sa : a, y = ends[s] < b ? ends[s] : b;
			if (y > x)
				covered += y - x;
			uint32_t last = s + 1 < lod->n_top ? lod->top[s + 1] : l->n_events;
			for (uint32_t k = first; k < last; k++) {
				uint32_t ev = l->events[k];
				int64_t ea = store_ts(rs, ev), eb = ea + store_dur(rs, ev);
				if (ea >= b)
					break;
				if (eb > a || (eb == ea && ea >= a))
					out->mask |= (uint8_t)(1u << cls[ev].cat);
			}
		}
		out->coverage = (double)covered / (double)width;
	}
	if (out->coverage > 1)
		out->coverage = 1;
	out->top_cat = lod_pick_category(out->mask);
}

/* ---- the index cache's form --------------------------------------------------------- */

#define LOD_PACK_MAGIC UINT64_C(0x314c4e494c454d54) /* "TMELINL1" */

_Static_assert(sizeof(struct ev_class) == 2, "the packed classes are two bytes an event");

/* Appends len bytes at the next 8-byte boundary; with no buffer, only counts. */
struct lod_packer {
	char *p;
	size_t len;
};

static void pk_put(struct lod_packer *pk, const void *src, size_t len)
{
	size_t at = (pk->len + 7) & ~(size_t)7;
	if (pk->p) {
		memset(pk->p + pk->len, 0, at - pk->len);
		if (len)
			memcpy(pk->p + at, src, len);
	}
	pk->len = at + len;
}

static void pk_u64(struct lod_packer *pk, uint64_t v) { pk_put(pk, &v, sizeof v); }

static void pack_all(struct lod_packer *pk, const struct rank_store *rs, const struct ev_class *cls,
		     const struct lane_lod *lods)
{
	pk_u64(pk, LOD_PACK_MAGIC);
	pk_u64(pk, rs->n_ev);
	pk_u64(pk, rs->n_lanes);
	pk_put(pk, cls, rs->n_ev * sizeof *cls);
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane_lod *lod = &lods[li];
		int64_t head[] = {lod->t0, lod->t1, lod->bucket0, lod->n_top, lod->levels, lod->nb0};
		pk_put(pk, head, sizeof head);
		pk_put(pk, lod->top, (size_t)lod->n_top * sizeof *lod->top);
		pk_put(pk, lod->seg_end, (size_t)lod->n_top * sizeof *lod->seg_end);
		uint32_t nb = lod->nb0;
		for (int L = 0; L < lod->levels; L++, nb /= 2) {
			pk_put(pk, lod->cov[L], (size_t)nb * sizeof *lod->cov[L]);
			pk_put(pk, lod->mask[L], nb);
		}
	}
	pk_put(pk, NULL, 0); /* the last padding, zeroed too: the bytes are written out */
}

char *lod_pack(const struct rank_store *rs, const struct ev_class *cls, const struct lane_lod *lods, size_t *len)
{
	struct lod_packer count = {0};
	pack_all(&count, rs, cls, lods);
	struct lod_packer pk = {.p = xmalloc(count.len ? count.len : 1)};
	pack_all(&pk, rs, cls, lods);
	*len = pk.len;
	return pk.p;
}

struct lod_reader {
	const char *p;
	size_t len, pos;
	bool bad;
};

/* cnt items of size bytes at the next 8-byte boundary, in place; NULL (and bad) past the end. */
static const void *rd_take(struct lod_reader *r, uint64_t cnt, size_t size)
{
	r->pos = (r->pos + 7) & ~(size_t)7;
	if (r->bad || r->pos > r->len || (size && cnt > (r->len - r->pos) / size)) {
		r->bad = true;
		return NULL;
	}
	const void *p = r->p + r->pos;
	r->pos += (size_t)cnt * size;
	return p;
}

/* A lane's pyramid as lod_build makes it: nb0 a power of two, levels halving it to one,
 * buckets that cover [t0, t1). */
static bool pyramid_sane(const struct lane_lod *lod)
{
	if (!lod->levels)
		return true;
	if (lod->levels > LOD_MAX_LEVELS || !lod->nb0 || lod->nb0 > LOD_MAX_BUCKETS || (lod->nb0 & (lod->nb0 - 1)) ||
	    lod->bucket0 <= 0 || lod->t1 <= lod->t0)
		return false;
	int want = 1;
	for (uint32_t nb = lod->nb0; nb > 1 && want < LOD_MAX_LEVELS; nb /= 2)
		want++;
	return lod->levels == want && ((uint64_t)lod->t1 - (uint64_t)lod->t0) / lod->nb0 < (uint64_t)lod->bucket0;
}

struct lane_lod *lod_unpack(const struct rank_store *rs, const void *bytes, size_t len, const struct ev_class **cls)
{
	struct lod_reader r = {.p = bytes, .len = len};
	const uint64_t *head = rd_take(&r, 3, sizeof *head);
	if (!head || head[0] != LOD_PACK_MAGIC || head[1] != rs->n_ev || head[2] != rs->n_lanes)
		return NULL;
	const struct ev_class *c = rd_take(&r, rs->n_ev, sizeof *c);
	if (!c)
		return NULL;
	for (size_t i = 0; i < rs->n_ev; i++)
		if (c[i].cat >= CAT_COUNT)
			return NULL;
	struct lane_lod *lods = xcalloc(rs->n_lanes ? rs->n_lanes : 1, sizeof *lods);
	for (size_t li = 0; li < rs->n_lanes && !r.bad; li++) {
		const struct lane *l = &rs->lanes[li];
		struct lane_lod *lod = &lods[li];
		lod->mapped = true;
		const int64_t *h = rd_take(&r, 6, sizeof *h);
		if (!h || h[3] < 0 || h[3] > l->n_events || h[4] < 0 || h[4] > LOD_MAX_LEVELS || h[5] < 0 ||
		    h[5] > LOD_MAX_BUCKETS) {
			r.bad = true;
			break;
		}
		lod->t0 = h[0];
		lod->t1 = h[1];
		lod->bucket0 = h[2];
		lod->n_top = (uint32_t)h[3];
		lod->levels = (int)h[4];
		lod->nb0 = (uint32_t)h[5];
		lod->top = (uint32_t *)rd_take(&r, lod->n_top, sizeof *lod->top);
		lod->seg_end = (int64_t *)rd_take(&r, lod->n_top, sizeof *lod->seg_end);
		if (r.bad || !pyramid_sane(lod) || (lod->n_top && lod->top[0] != 0)) {
			r.bad = true;
			break;
		}
		/* segments in the lane's order, each a run of its events (lod_query walks them) */
		for (uint32_t s = 1; s < lod->n_top && !r.bad; s++)
			r.bad = lod->top[s] <= lod->top[s - 1] || lod->top[s] >= l->n_events;
		uint32_t nb = lod->nb0;
		for (int L = 0; L < lod->levels && !r.bad; L++, nb /= 2) {
			lod->cov[L] = (uint16_t *)rd_take(&r, nb, sizeof *lod->cov[L]);
			lod->mask[L] = (uint8_t *)rd_take(&r, nb, 1);
		}
	}
	if (r.bad) {
		lod_free(lods, rs->n_lanes);
		return NULL;
	}
	*cls = c;
	return lods;
}
