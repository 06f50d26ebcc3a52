/* SPDX-License-Identifier: MIT */
/* A rank store from records in hand (see store_build.h). */
#include "config.h"
#include "store_build.h"

#include <string.h>

#include "lanes.h"
#include "spill.h"
#include "xalloc.h"

void store_build_begin(struct store_build *b, struct rank_store *rs)
{
	memset(b, 0, sizeof *b); /* the maps start empty */
	b->rs = rs;
	/* attr 0 is "no cat, no Task Type", as the loaders have it */
	xgrow(&rs->attrs, &b->cap_attrs, 1, sizeof *rs->attrs);
	rs->attrs[0] = (struct ev_attr){0, 0};
	rs->n_attrs = 1;
	bool found;
	*u64map_slot(&b->attr_map, 0, &found) = 0;
}

uint32_t store_build_str(struct store_build *b, const char *s) { return strtab_intern_cstr(b->rs->strs, s ? s : ""); }

uint32_t store_build_lane(struct store_build *b, const char *pid, const char *tid, const char *process,
			  const char *thread)
{
	uint32_t p = store_build_str(b, pid), t = store_build_str(b, tid);
	bool found;
	uint32_t *slot = u64map_slot(&b->lane_map, ((uint64_t)p << 32) | t, &found);
	if (found)
		return *slot;
	struct rank_store *rs = b->rs;
	xgrow(&rs->lanes, &b->cap_lanes, rs->n_lanes + 1, sizeof *rs->lanes);
	struct lane *l = &rs->lanes[rs->n_lanes];
	memset(l, 0, sizeof *l);
	l->pid_text = p;
	l->tid_text = t;
	l->process_name = process ? store_build_str(b, process) : 0;
	l->thread_name = thread ? store_build_str(b, thread) : 0;
	l->stream = -1;
	*slot = (uint32_t)rs->n_lanes;
	return (uint32_t)rs->n_lanes++;
}

uint32_t store_build_kind(struct store_build *b, uint32_t lane, uint32_t cat, uint32_t task_type)
{
	struct rank_store *rs = b->rs;
	bool found;
	uint32_t *slot = u64map_slot(&b->attr_map, ((uint64_t)cat << 32) | task_type, &found);
	if (!found) {
		xgrow(&rs->attrs, &b->cap_attrs, rs->n_attrs + 1, sizeof *rs->attrs);
		rs->attrs[rs->n_attrs] = (struct ev_attr){cat, task_type};
		*slot = (uint32_t)rs->n_attrs++;
	}
	uint32_t attr = *slot;
	slot = u64map_slot(&b->kind_map, ((uint64_t)lane << 32) | attr, &found);
	if (!found) {
		xgrow(&rs->kinds, &b->cap_kinds, rs->n_kinds + 1, sizeof *rs->kinds);
		rs->kinds[rs->n_kinds] = (struct ev_kind){lane, attr};
		*slot = (uint32_t)rs->n_kinds++;
	}
	return *slot;
}

void store_build_event(struct store_build *b, int64_t start, int64_t dur, uint32_t name, uint32_t kind, uint64_t off)
{
	struct rank_store *rs = b->rs;
	if (b->n == b->cap) {
		/* the columns grow as db.c's do: spilled (spill.h), the offsets too */
		size_t c = b->cap;
		spill_grow(&b->dur, &c, b->n + 1, sizeof *b->dur);
		c = b->cap;
		spill_grow(&b->name, &c, b->n + 1, sizeof *b->name);
		spill_grow(&b->kind, &b->cap, b->n + 1, sizeof *b->kind);
		rs->n_ev = b->cap; /* bounds the offsets' writes until the end */
		rs->ev_ts_lo = spill_realloc(rs->ev_ts_lo, b->cap * sizeof *rs->ev_ts_lo);
		rs->ev_ts_base = xrealloc(rs->ev_ts_base, ((b->cap >> STORE_TS_SHIFT) + 1) * sizeof *rs->ev_ts_base);
		if (rs->ev_off_wide) {
			rs->ev_off_wide = spill_realloc(rs->ev_off_wide, b->cap * sizeof *rs->ev_off_wide);
		} else {
			rs->ev_off_lo = spill_realloc(rs->ev_off_lo, b->cap * sizeof *rs->ev_off_lo);
			rs->ev_off_block =
				xrealloc(rs->ev_off_block, ((b->cap >> STORE_OFF_SHIFT) + 1) * sizeof *rs->ev_off_block);
		}
	}
	if (dur < 0)
		dur = 0;
	b->blk[b->n & ((1u << STORE_TS_SHIFT) - 1)] = start;
	if (dur >= (int64_t)STORE_LONG_DUR) {
		xgrow(&rs->long_durs, &b->cap_long, rs->n_long_durs + 1, sizeof *rs->long_durs);
		rs->long_durs[rs->n_long_durs++] = (struct long_dur){(uint32_t)b->n, dur};
		b->dur[b->n] = STORE_LONG_DUR;
	} else {
		b->dur[b->n] = (uint32_t)dur;
	}
	b->name[b->n] = name;
	b->kind[b->n] = kind;
	store_put_off(rs, b->n, off);
	b->n++;
	if (!(b->n & ((1u << STORE_TS_SHIFT) - 1)))
		store_ts_put_block(rs, b->n - (1u << STORE_TS_SHIFT), b->blk, 1u << STORE_TS_SHIFT, &b->cap_far);
}

void store_build_end(struct store_build *b, const char *name, struct diag_list *dl)
{
	struct rank_store *rs = b->rs;
	size_t n = b->n;
	rs->n_ev = n;
	size_t tail = n & ((1u << STORE_TS_SHIFT) - 1);
	if (!rs->ev_ts_lo) {
		rs->ev_ts_lo = xmalloc(sizeof *rs->ev_ts_lo);
		rs->ev_ts_base = xmalloc(sizeof *rs->ev_ts_base);
	}
	store_ts_put_block(rs, n - tail, b->blk, tail, &b->cap_far);
	rs->ev_dur = b->dur ? b->dur : xmalloc(sizeof *rs->ev_dur);
	rs->ev_name = b->name ? b->name : xmalloc(sizeof *rs->ev_name);
	rs->ev_kind = b->kind ? b->kind : xmalloc(sizeof *rs->ev_kind);
	if (!rs->ev_off_lo && !rs->ev_off_wide) {
		rs->ev_off_lo = xmalloc(sizeof *rs->ev_off_lo);
		rs->ev_off_block = xcalloc(1, sizeof *rs->ev_off_block);
	}
	if (!rs->long_durs)
		rs->long_durs = xmalloc(sizeof *rs->long_durs);
	rs->ph.by_char['X'] += n;
	u64map_free(&b->lane_map);
	u64map_free(&b->kind_map);
	u64map_free(&b->attr_map);
	b->dur = b->name = NULL;
	b->kind = NULL;
	lanes_finish(rs, name, dl);
}
