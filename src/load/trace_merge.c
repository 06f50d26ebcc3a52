/* SPDX-License-Identifier: MIT */
/* The trace loader's merge: segments into the rank's store in file order (trace_internal.h). */
#include "config.h"
#include "trace_internal.h"

static uint32_t global_lane(struct merge_state *ms, uint32_t pid, uint32_t tid)
{
	struct rank_store *rs = ms->rs;
	bool found;
	uint32_t *slot = u64map_slot(&ms->lane_map, pair_key(pid, tid), &found);
	if (!found) {
		xgrow(&rs->lanes, &ms->cap_lanes, rs->n_lanes + 1, sizeof *rs->lanes);
		struct lane *l = &rs->lanes[rs->n_lanes];
		memset(l, 0, sizeof *l);
		l->pid_text = pid;
		l->tid_text = tid;
		l->stream = -1;
		*slot = (uint32_t)rs->n_lanes++;
	}
	return *slot;
}

/* The rank's column col usable up to element n (see spill_ensure). */
static struct flow map_flow(struct flow fl, const uint32_t *smap, const uint32_t *lmap)
{
	fl.lane = lmap[fl.lane];
	/* cat has 29 bits: half a billion distinct strings cannot fit in memory anyway */
	fl.cat = smap[fl.cat] < (1u << 29) ? smap[fl.cat] : 0;
	if (fl.id_is_text)
		fl.id = smap[fl.id];
	return fl;
}


void trace_merge_maps_build(struct merge_state *ms, struct seg *sg, struct seg_maps *maps)
{
	struct rank_store *rs = ms->rs;
	uint32_t nstr = strtab_count(sg->strs);
	uint32_t *smap = xmalloc((nstr ? nstr : 1) * sizeof *smap);
	for (uint32_t i = 0; i < nstr; i++)
		smap[i] = strtab_intern(rs->strs, strtab_str(sg->strs, i), strtab_len(sg->strs, i));

	uint32_t *lmap = xmalloc((sg->n_lanes ? sg->n_lanes : 1) * sizeof *lmap);
	for (size_t i = 0; i < sg->n_lanes; i++)
		lmap[i] = global_lane(ms, smap[sg->lanes[i].pid], smap[sg->lanes[i].tid]);

	uint32_t *amap = xmalloc(sg->n_attrs * sizeof *amap);
	for (size_t i = 0; i < sg->n_attrs; i++) {
		uint32_t cat = smap[sg->attrs[i].cat], tt = smap[sg->attrs[i].task_type];
		bool found;
		uint32_t *slot = u64map_slot(&ms->attr_map, pair_key(cat, tt), &found);
		if (!found) {
			xgrow(&rs->attrs, &ms->cap_attrs, rs->n_attrs + 1, sizeof *rs->attrs);
			rs->attrs[rs->n_attrs] = (struct ev_attr){cat, tt};
			*slot = (uint32_t)rs->n_attrs++;
		}
		amap[i] = *slot;
	}

	uint32_t *kmap = xmalloc((sg->n_kinds ? sg->n_kinds : 1) * sizeof *kmap);
	for (size_t i = 0; i < sg->n_kinds; i++) {
		uint32_t lane = lmap[sg->kinds[i].lane], attr = amap[sg->kinds[i].attr];
		bool found;
		uint32_t *slot = u64map_slot(&ms->kind_map, pair_key(lane, attr), &found);
		if (!found) {
			xgrow(&rs->kinds, &ms->cap_kinds, rs->n_kinds + 1, sizeof *rs->kinds);
			rs->kinds[rs->n_kinds] = (struct ev_kind){lane, attr};
			*slot = (uint32_t)rs->n_kinds++;
		}
		kmap[i] = *slot;
	}

	uint32_t *tmap = xmalloc((sg->n_tracks ? sg->n_tracks : 1) * sizeof *tmap);
	for (size_t i = 0; i < sg->n_tracks; i++) {
		uint32_t pid = smap[sg->tracks[i].pid], name = smap[sg->tracks[i].name];
		bool found;
		uint32_t *slot = u64map_slot(&ms->track_map, pair_key(pid, name), &found);
		if (!found) {
			xgrow(&rs->tracks, &ms->cap_tracks, rs->n_tracks + 1, sizeof *rs->tracks);
			struct counter_track *t = &rs->tracks[rs->n_tracks];
			memset(t, 0, sizeof *t);
			t->pid_text = pid;
			t->name = name;
			t->value_key = smap[sg->tracks[i].value_key];
			*slot = (uint32_t)rs->n_tracks++;
		}
		tmap[i] = *slot;
	}

	for (size_t i = 0; i < sg->n_meta; i++) {
		struct meta_rec m = sg->meta[i];
		m.pid = smap[m.pid];
		m.tid = smap[m.tid];
		m.str = smap[m.str];
		if (m.kind == META_THREAD_NAME || m.kind == META_THREAD_SORT)
			global_lane(ms, m.pid, m.tid);
		xgrow(&ms->meta, &ms->cap_meta, ms->n_meta + 1, sizeof *ms->meta);
		ms->meta[ms->n_meta++] = m;
	}
	for (int k = 0; k < 128; k++)
		rs->ph.by_char[k] += sg->ph.by_char[k];
	rs->ph.other += sg->ph.other;
	rs->ph.not_object += sg->ph.not_object;
	rs->ph.rejected += sg->ph.rejected;

	maps->smap = smap;
	maps->lmap = lmap;
	maps->amap = amap;
	maps->kmap = kmap;
	maps->tmap = tmap;
}

void trace_merge_maps_free(struct seg_maps *m)
{
	free(m->smap);
	free(m->lmap);
	free(m->amap);
	free(m->kmap);
	free(m->tmap);
}


static void *merge_times_offsets(void *arg)
{
	struct merge_columns *mc = arg;
	struct rank_store *rs = mc->rs;
	/* the starts' blocks and far blocks first: a block may span two segments */
	int64_t *ts_hi = store_ts_begin(rs);
	for (size_t k = 0, ev = 0; k < mc->n_segs; k++) {
		const struct seg *sg = mc->segs[k];
		int64_t ts = 0;
		for (size_t i = 0, j = 0; i < sg->n; i++, ev++) {
			ts = seg_next_ts(sg, i, ts, &j);
			store_ts_bound(rs, ts_hi, ev, ts);
		}
	}
	store_ts_plan(rs, ts_hi);
	for (size_t k = 0; k < mc->n_segs; k++) {
		struct seg *sg = mc->segs[k];
		size_t at = mc->maps[k].ev_at, c = mc->maps[k].ctr_at;
		/* offsets: the steps summed back, re-based on the rank's blocks */
		uint64_t off = 0;
		size_t done_off = 0, chunk = merge_chunk(sg->n);
		for (size_t i = 0, j = 0; i < sg->n; i++) {
			if (i % chunk == 0)
				ENSURE_COLUMN(rs->ev_off_lo, at + chunk_end(i, sg->n, chunk));
			uint32_t step = sg->off_step[i];
			off = step != UINT32_MAX ? off + step : sg->jumps[j++].off;
			store_put_off(rs, at + i, off);
			if ((i + 1) % chunk == 0)
				done_off = spill_release(sg->off_step, done_off, (i + 1) * sizeof *sg->off_step);
		}
		spill_free(sg->off_step);
		sg->off_step = NULL;
		int64_t ts = 0;
		size_t done = 0;
		for (size_t i = 0, j = 0; i < sg->n; i++) {
			if (i % chunk == 0)
				ENSURE_COLUMN(rs->ev_ts_lo, at + chunk_end(i, sg->n, chunk));
			ts = seg_next_ts(sg, i, ts, &j);
			store_put_ts(rs, at + i, ts);
			if ((i + 1) % chunk == 0)
				done = spill_release(sg->ts_step, done, (i + 1) * sizeof *sg->ts_step);
		}
		spill_free(sg->ts_step);
		sg->ts_step = NULL;
		for (size_t i = 0; i < sg->n_long; i++)
			rs->long_durs[rs->n_long_durs++] =
				(struct long_dur){(uint32_t)(at + sg->long_durs[i].ev), sg->long_durs[i].dur};
		if (!mc->maps[k].adopted) {
			MOVE_COLUMN(rs->ev_dur, at, sg->dur, sg->n);
			MOVE_COLUMN(rs->ctr_ts, c, sg->ctr_ts, sg->n_ctr);
			MOVE_COLUMN(rs->ctr_value, c, sg->ctr_value, sg->n_ctr);
			MOVE_COLUMN(rs->ctr_off, c, sg->ctr_off, sg->n_ctr);
		}
	}
	/* every column written to its end (the last chunk did): a guard, free when so */
	ENSURE_COLUMN(rs->ev_off_lo, rs->n_ev);
	ENSURE_COLUMN(rs->ev_ts_lo, rs->n_ev);
	ENSURE_COLUMN(rs->ev_dur, rs->n_ev);
	ENSURE_COLUMN(rs->ctr_ts, rs->n_ctr);
	ENSURE_COLUMN(rs->ctr_value, rs->n_ctr);
	ENSURE_COLUMN(rs->ctr_off, rs->n_ctr);
	return NULL;
}

static void *merge_ids(void *arg)
{
	struct merge_columns *mc = arg;
	struct rank_store *rs = mc->rs;
	for (size_t k = 0; k < mc->n_segs; k++) {
		struct seg *sg = mc->segs[k];
		const struct seg_maps *m = &mc->maps[k];
		size_t at = m->ev_at, c = m->ctr_at;
		if (m->adopted) {
			MAP_IN_PLACE(rs->ev_name, sg->n, m->smap);
			MAP_IN_PLACE(rs->ev_kind, sg->n, m->kmap);
			MAP_IN_PLACE(rs->ctr_track, sg->n_ctr, m->tmap);
		} else {
			MAP_COLUMN(rs->ev_name, at, sg->name, sg->n, m->smap);
			MAP_COLUMN(rs->ev_kind, at, sg->kind, sg->n, m->kmap);
			MAP_COLUMN(rs->ctr_track, c, sg->ctr_track, sg->n_ctr, m->tmap);
		}
	}
	ENSURE_COLUMN(rs->ev_name, rs->n_ev);
	ENSURE_COLUMN(rs->ev_kind, rs->n_ev);
	ENSURE_COLUMN(rs->ctr_track, rs->n_ctr);
	return NULL;
}

static void *merge_flows(void *arg)
{
	struct merge_columns *mc = arg;
	struct rank_store *rs = mc->rs;
	for (size_t k = 0; k < mc->n_segs; k++) {
		struct seg *sg = mc->segs[k];
		const struct seg_maps *m = &mc->maps[k];
		if (m->adopted) {
			for (size_t i = 0; i < sg->n_flows; i++)
				rs->flows[i] = map_flow(rs->flows[i], m->smap, m->lmap);
			rs->n_flows = sg->n_flows;
			continue;
		}
		size_t done = 0, chunk = merge_chunk(sg->n_flows);
		for (size_t i = 0; i < sg->n_flows; i++) {
			if (i % chunk == 0)
				ENSURE_COLUMN(rs->flows, rs->n_flows - i + chunk_end(i, sg->n_flows, chunk));
			rs->flows[rs->n_flows++] = map_flow(sg->flows[i], m->smap, m->lmap);
			if ((i + 1) % chunk == 0)
				done = spill_release(sg->flows, done, (i + 1) * sizeof *sg->flows);
		}
		spill_free(sg->flows);
		sg->flows = NULL;
	}
	ENSURE_COLUMN(rs->flows, rs->n_flows);
	return NULL;
}


void *trace_merge_worker(void *arg)
{
	static void *(*const jobs[])(void *) = {merge_flows, merge_times_offsets, merge_ids};
	struct merge_queue *q = arg;
	for (int i; (i = atomic_fetch_add(&q->next, 1)) < (int)(sizeof jobs / sizeof jobs[0]);)
		jobs[i](q->mc);
	return NULL;
}

/* Applies process/thread metadata in file order (the last record wins, a change of a
 * process's name is reported). */
void trace_merge_apply_meta(struct merge_state *ms, const char *name, struct diag_list *dl)
{
	struct rank_store *rs = ms->rs;
	/* pid -> first lane index is not enough (a pid has many lanes): use a pid map to a
	 * record of process fields, then copy onto each lane. */
	struct proc { uint32_t pid, name, labels; int64_t sort; bool has_sort; };
	struct proc *procs = NULL;
	size_t n_procs = 0, cap_procs = 0;
	struct u64map pmap = {0};
	size_t renamed = 0;
	for (size_t i = 0; i < ms->n_meta; i++) {
		const struct meta_rec *m = &ms->meta[i];
		if (m->kind <= META_PROCESS_SORT) {
			bool found;
			uint32_t *slot = u64map_slot(&pmap, m->pid, &found);
			if (!found) {
				xgrow(&procs, &cap_procs, n_procs + 1, sizeof *procs);
				procs[n_procs] = (struct proc){m->pid, 0, 0, 0, false};
				*slot = (uint32_t)n_procs++;
			}
			struct proc *p = &procs[*slot];
			if (m->kind == META_PROCESS_NAME) {
				if (p->name && p->name != m->str && renamed++ < WARN_EACH)
					diag_add(dl, DIAG_WARN, m->file, 0, (int64_t)m->off,
						 _("process %s is named both \"%s\" and \"%s\"; the later name is used"),
						 store_str(rs, m->pid), store_str(rs, p->name),
						 store_str(rs, m->str));
				p->name = m->str;
			} else if (m->kind == META_PROCESS_LABELS) {
				p->labels = m->str;
			} else {
				p->sort = m->num;
				p->has_sort = true;
			}
		} else {
			const uint32_t *slot = u64map_get(&ms->lane_map, pair_key(m->pid, m->tid));
			if (!slot)
				continue;
			struct lane *l = &rs->lanes[*slot];
			if (m->kind == META_THREAD_NAME)
				l->thread_name = m->str;
			else {
				l->thread_sort = m->num;
				l->has_thread_sort = true;
			}
		}
	}
	for (size_t i = 0; i < rs->n_lanes; i++) {
		struct lane *l = &rs->lanes[i];
		const uint32_t *p = u64map_get(&pmap, l->pid_text);
		if (!p)
			continue;
		l->process_name = procs[*p].name;
		l->process_labels = procs[*p].labels;
		l->process_sort = procs[*p].sort;
		l->has_process_sort = procs[*p].has_sort;
	}
	for (size_t i = 0; i < rs->n_tracks; i++) {
		const uint32_t *p = u64map_get(&pmap, rs->tracks[i].pid_text);
		if (p)
			rs->tracks[i].process_name = procs[*p].name;
	}
	free(procs);
	u64map_free(&pmap);
}

/* Names that are not UTF-8 are kept as bytes and shown escaped; said once per file, at
 * the first event named with one (or whose lane is). */
void trace_merge_report_bad_utf8(const struct rank_store *rs, const char *name, struct diag_list *dl)
{
	uint32_t n = strtab_count(rs->strs);
	uint8_t *bad = NULL;
	size_t n_bad = 0;
	for (uint32_t id = 1; id < n; id++)
		if (u8_check((const uint8_t *)strtab_str(rs->strs, id), strtab_len(rs->strs, id))) {
			if (!bad)
				bad = xcalloc(n, 1);
			bad[id] = 1;
			n_bad++;
		}
	if (!n_bad)
		return;
	int64_t off = -1;
	for (size_t e = 0; e < rs->n_ev && off < 0; e++) {
		const struct lane *l = store_ev_lane(rs, e);
		if (bad[rs->ev_name[e]] || bad[l->process_name] || bad[l->thread_name] || bad[l->pid_text])
			off = (int64_t)store_ev_off(rs, e);
	}
	diag_add(dl, DIAG_WARN, name, 0, off,
		 _("%zu name(s) are not valid UTF-8%s; their bad bytes are shown as \\xNN"), n_bad,
		 off >= 0 ? _(" (the first event with one starts here)") : "");
	free(bad);
}
