/* SPDX-License-Identifier: MIT */
/* Per-rank store lifetime and small queries. */
#include "store.h"

#include <stdlib.h>
#include <string.h>

void store_init(struct rank_store *rs)
{
	memset(rs, 0, sizeof *rs);
	rs->strs = strtab_new();
	rs->trace.cut_offset = -1;
}

void store_free(struct rank_store *rs)
{
	if (!rs)
		return;
	strtab_free(rs->strs);
	free(rs->ev_ts);
	free(rs->ev_dur);
	free(rs->ev_name);
	free(rs->ev_lane);
	free(rs->ev_attr);
	free(rs->ev_off);
	free(rs->attrs);
	for (size_t i = 0; i < rs->n_lanes; i++) {
		free(rs->lanes[i].events);
		free(rs->lanes[i].depth);
	}
	free(rs->lanes);
	free(rs->ctr_ts);
	free(rs->ctr_value);
	free(rs->ctr_track);
	free(rs->ctr_off);
	for (size_t i = 0; i < rs->n_tracks; i++)
		free(rs->tracks[i].samples);
	free(rs->tracks);
	free(rs->flows);
	free(rs->links);
	free(rs->trace.path);
	for (size_t i = 0; i < rs->trace.n_parts; i++)
		free(rs->trace.parts[i].path);
	free(rs->trace.parts);
	memset(rs, 0, sizeof *rs);
}

size_t store_bytes(const struct rank_store *rs)
{
	size_t b = strtab_bytes(rs->strs);
	b += rs->n_ev * (2 * sizeof(int64_t) + 3 * sizeof(uint32_t) + sizeof(uint64_t));
	b += rs->n_attrs * sizeof *rs->attrs;
	for (size_t i = 0; i < rs->n_lanes; i++)
		b += sizeof rs->lanes[i] + rs->lanes[i].n_events * (sizeof(uint32_t) + 1);
	b += rs->n_ctr * (sizeof(int64_t) + sizeof(double) + sizeof(uint32_t) + sizeof(uint64_t));
	for (size_t i = 0; i < rs->n_tracks; i++)
		b += sizeof rs->tracks[i] + rs->tracks[i].n_samples * sizeof(uint32_t);
	b += (rs->flows ? rs->n_flows * sizeof *rs->flows : 0) + rs->n_links * sizeof *rs->links;
	return b;
}

uint32_t store_lane_lower_bound(const struct rank_store *rs, const struct lane *lane, int64_t t)
{
	uint32_t lo = 0, hi = lane->n_events;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (rs->ev_ts[lane->events[mid]] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
