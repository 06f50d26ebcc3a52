/* SPDX-License-Identifier: MIT */
/* Per-rank store lifetime and small queries. */
#include "store.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "spill.h"
#include "xalloc.h"

void store_init(struct rank_store *rs)
{
	memset(rs, 0, sizeof *rs);
	rs->strs = strtab_new();
	rs->trace.cut_offset = -1;
}

/* The arrays an index maps (store.h: map) when the store was read from one. */
static void free_columns(struct rank_store *rs)
{
	spill_free(rs->ev_ts_lo);
	spill_free(rs->ev_ts_base);
	spill_free(rs->ev_ts_far);
	spill_free(rs->ev_dur);
	spill_free(rs->ev_name);
	spill_free(rs->ev_kind);
	spill_free(rs->ev_off_lo);
	spill_free(rs->ev_off_block);
	spill_free(rs->ev_off_wide);
	spill_free(rs->long_durs);
	spill_free(rs->kinds);
	spill_free(rs->attrs);
	for (size_t i = 0; i < rs->n_lanes; i++) {
		spill_free(rs->lanes[i].events);
		spill_free(rs->lanes[i].depth);
		spill_free(rs->lanes[i].block_end);
	}
	spill_free(rs->ctr_ts);
	spill_free(rs->ctr_value);
	spill_free(rs->ctr_track);
	spill_free(rs->ctr_off);
	for (size_t i = 0; i < rs->n_tracks; i++)
		spill_free(rs->tracks[i].samples);
	spill_free(rs->flows);
	spill_free(rs->links);
}

void store_free(struct rank_store *rs)
{
	if (!rs)
		return;
	strtab_free(rs->strs);
	if (rs->map)
		munmap((void *)rs->map, rs->map_len);
	else
		free_columns(rs);
	free(rs->lanes);
	free(rs->tracks);
	free(rs->trace.path);
	for (size_t i = 0; i < rs->trace.n_parts; i++)
		free(rs->trace.parts[i].path);
	free(rs->trace.parts);
	memset(rs, 0, sizeof *rs);
}

/* The figure store.h and the README give for a complete event's columns: change them with it. */
#define STORE_EV_COL(f) sizeof(((const struct rank_store *)0)->f[0])
_Static_assert(STORE_EV_COL(ev_ts_lo) + STORE_EV_COL(ev_name) + STORE_EV_COL(ev_kind) + STORE_EV_COL(ev_dur) +
			       STORE_EV_COL(ev_off_lo) ==
		       20,
	       "an X event's columns are no longer 20 bytes: say so in store.h and README.md");

size_t store_bytes(const struct rank_store *rs)
{
	size_t b = strtab_bytes(rs->strs);
	b += rs->n_ev * (sizeof *rs->ev_ts_lo + sizeof *rs->ev_name + sizeof *rs->ev_kind + sizeof *rs->ev_dur);
	b += ((rs->n_ev >> STORE_TS_SHIFT) + 1) * sizeof *rs->ev_ts_base;
	b += rs->n_ts_far_blocks * ((size_t)1 << STORE_TS_SHIFT) * sizeof *rs->ev_ts_far;
	if (rs->ev_off_wide)
		b += rs->n_ev * sizeof *rs->ev_off_wide;
	else
		b += rs->n_ev * sizeof *rs->ev_off_lo +
		     ((rs->n_ev >> STORE_OFF_SHIFT) + 1) * sizeof *rs->ev_off_block;
	b += rs->n_long_durs * sizeof *rs->long_durs + rs->n_kinds * sizeof *rs->kinds;
	b += rs->n_attrs * sizeof *rs->attrs;
	for (size_t i = 0; i < rs->n_lanes; i++)
		b += sizeof rs->lanes[i] + rs->lanes[i].n_events * (sizeof(uint32_t) + 1);
	b += rs->n_ctr * (sizeof(int64_t) + sizeof(double) + sizeof(uint32_t) + sizeof(uint64_t));
	for (size_t i = 0; i < rs->n_tracks; i++)
		b += sizeof rs->tracks[i] + rs->tracks[i].n_samples * sizeof(uint32_t);
	b += (rs->flows ? rs->n_flows * sizeof *rs->flows : 0) + rs->n_links * sizeof *rs->links;
	return b;
}

#define LONG_DUR_BEFORE(d, i, k) ((d)[i].ev < (k))
LOWER_BOUND_DEFINE(long_dur_lower_bound, const struct long_dur *, size_t, LONG_DUR_BEFORE)

int64_t store_long_dur(const struct rank_store *rs, size_t ev)
{
	size_t lo = long_dur_lower_bound(rs->long_durs, ev, 0, rs->n_long_durs);
	return lo < rs->n_long_durs && rs->long_durs[lo].ev == ev ? rs->long_durs[lo].dur : STORE_LONG_DUR;
}

int64_t *store_ts_begin(struct rank_store *rs)
{
	size_t n = rs->n_ev, n_blocks = (n >> STORE_TS_SHIFT) + 1;
	rs->ev_ts_lo = spill_alloc_lazy((n ? n : 1) * sizeof *rs->ev_ts_lo);
	rs->ev_ts_base = xmalloc(n_blocks * sizeof *rs->ev_ts_base);
	rs->ev_ts_far = NULL;
	rs->n_ts_far_blocks = 0;
	return xmalloc(n_blocks * sizeof(int64_t));
}

void store_ts_plan(struct rank_store *rs, int64_t *hi)
{
	enum { BLOCK = 1 << STORE_TS_SHIFT };
	for (size_t b = 0; b * BLOCK < rs->n_ev; b++)
		/* a block whose least start is the marker itself is kept in full too (loaders
		 * clamp times to +-3e18 ns, so it cannot happen today) */
		if ((uint64_t)hi[b] - (uint64_t)rs->ev_ts_base[b] > UINT32_MAX || rs->ev_ts_base[b] == STORE_TS_FAR) {
			rs->ev_ts_base[b] = STORE_TS_FAR;
			rs->ev_ts_lo = spill_ensure(rs->ev_ts_lo, (b * BLOCK + 1) * sizeof *rs->ev_ts_lo);
			rs->ev_ts_lo[b * BLOCK] = (uint32_t)rs->n_ts_far_blocks++;
		}
	free(hi);
	if (rs->n_ts_far_blocks)
		rs->ev_ts_far = xcalloc(rs->n_ts_far_blocks * BLOCK, sizeof *rs->ev_ts_far);
}

void store_ts_put_block(struct rank_store *rs, size_t first, const int64_t *ts, size_t count,
			size_t *cap_far_blocks)
{
	enum { BLOCK = 1 << STORE_TS_SHIFT };
	if (!count)
		return;
	int64_t lo = ts[0], hi = ts[0];
	for (size_t i = 1; i < count; i++) {
		lo = ts[i] < lo ? ts[i] : lo;
		hi = ts[i] > hi ? ts[i] : hi;
	}
	size_t b = first >> STORE_TS_SHIFT;
	if ((uint64_t)hi - (uint64_t)lo <= UINT32_MAX && lo != STORE_TS_FAR) {
		rs->ev_ts_base[b] = lo;
		for (size_t i = 0; i < count; i++)
			rs->ev_ts_lo[first + i] = (uint32_t)(ts[i] - lo);
		return;
	}
	/* as store_ts_plan: the block's starts in full, zeros past the last */
	size_t cap = *cap_far_blocks * BLOCK;
	xgrow(&rs->ev_ts_far, &cap, (rs->n_ts_far_blocks + 1) * BLOCK, sizeof *rs->ev_ts_far);
	*cap_far_blocks = cap / BLOCK;
	int64_t *dst = rs->ev_ts_far + rs->n_ts_far_blocks * BLOCK;
	memcpy(dst, ts, count * sizeof *ts);
	memset(dst + count, 0, (BLOCK - count) * sizeof *ts);
	rs->ev_ts_base[b] = STORE_TS_FAR;
	rs->ev_ts_lo[first] = (uint32_t)rs->n_ts_far_blocks++;
}

void store_put_off_wide(struct rank_store *rs, size_t ev, uint64_t off)
{
	if (!rs->ev_off_wide) {
		/* an element of gigabytes, or offsets out of order: every offset in full */
		rs->ev_off_wide = spill_alloc((rs->n_ev ? rs->n_ev : 1) * sizeof *rs->ev_off_wide);
		for (size_t k = 0; k < ev; k++)
			rs->ev_off_wide[k] = rs->ev_off_block[k >> STORE_OFF_SHIFT] + rs->ev_off_lo[k];
		spill_free(rs->ev_off_lo);
		free(rs->ev_off_block);
		rs->ev_off_lo = NULL;
		rs->ev_off_block = NULL;
	}
	rs->ev_off_wide[ev] = off;
}

/* A track's samples: indices into the counter columns, in time order. */
struct samples {
	const int64_t *ts;
	const uint32_t *idx;
};
#define SAMPLE_BEFORE(s, i, t) ((s).ts[(s).idx[i]] < (t))
LOWER_BOUND_DEFINE(sample_lower_bound, struct samples, int64_t, SAMPLE_BEFORE)

uint32_t store_track_lower_bound(const struct rank_store *rs, const struct counter_track *tr, int64_t t)
{
	return (uint32_t)sample_lower_bound((struct samples){rs->ctr_ts, tr->samples}, t, 0, tr->n_samples);
}

bool store_track_minmax(const struct rank_store *rs, const struct counter_track *tr, double *lo, double *hi)
{
	if (!tr->n_samples)
		return false;
	*lo = *hi = rs->ctr_value[tr->samples[0]];
	for (uint32_t i = 1; i < tr->n_samples; i++) {
		double v = rs->ctr_value[tr->samples[i]];
		*lo = v < *lo ? v : *lo;
		*hi = v > *hi ? v : *hi;
	}
	return true;
}

bool store_track_max_in(const struct rank_store *rs, const struct counter_track *tr, int64_t t0, int64_t t1,
			double *out)
{
	uint32_t a = store_track_lower_bound(rs, tr, t0), b = store_track_lower_bound(rs, tr, t1);
	bool any = false;
	double m = 0;
	if (a > 0 && (a == b || rs->ctr_ts[tr->samples[a]] > t0)) { /* the value holding at t0 */
		m = rs->ctr_value[tr->samples[a - 1]];
		any = true;
	}
	uint32_t step = b - a > 512 ? (b - a) / 512 : 1;
	for (uint32_t i = a; i < b; i += step) {
		double v = rs->ctr_value[tr->samples[i]];
		if (!any || v > m)
			m = v;
		any = true;
	}
	*out = m;
	return any;
}

uint32_t store_lane_lower_bound(const struct rank_store *rs, const struct lane *lane, int64_t t)
{
	return (uint32_t)store_evs_lower_bound(rs, lane->events, 0, lane->n_events, t);
}
