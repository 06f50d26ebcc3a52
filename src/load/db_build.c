/* SPDX-License-Identifier: MIT */
/* The store a Db's rows become: lanes, kinds, events with their rows as offsets, flows
 * kept only where both ends are, counters; laid out as the text loader leaves a store. */
#include "db_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanes.h"
#include "spill.h"
#include "xalloc.h"
#include "xsort.h"

const char *const db_src_table[SRC_COUNT] = {
	"", "PYTORCH_API", "CANN_API", "TASK", "COMMUNICATION_OP", "COMMUNICATION_TASK_INFO",
	"OVERLAP_ANALYSIS", "MSTX_EVENTS", "GC_RECORD",
};
_Static_assert(SRC_COUNT <= sizeof ((struct rank_store *)0)->trace.db_base / sizeof(uint64_t),
	       "a base per table");
/* An event's offset is its table's base (trace.db_base, the rowids of the tables before it
 * laid end to end, in the order they are read) plus its rowid: offsets rise with the
 * event index, so the store keeps them in 32 bits over block bases. */
unsigned db_off_src(const struct rank_store *rs, uint64_t off, int64_t *rowid)
{
	for (unsigned src = SRC_COUNT - 1; src > SRC_NONE; src--)
		if (rs->trace.db_base[src] <= off) {
			*rowid = (int64_t)(off - rs->trace.db_base[src]);
			return src;
		}
	*rowid = 0;
	return SRC_NONE;
}

uint32_t db_build_str(struct db_build *b, const char *s)
{
	return strtab_intern_cstr(b->rs->strs, s ? s : "");
}


/* The name behind a STRING_IDS id in column c (resolved once per id: names repeat on
 * almost every row), or a TEXT column as written; "" for NULL or an unknown id. */
uint32_t db_build_sid(struct db_build *b, sqlite3_stmt *st, int c)
{
	/* the value fetched once (db_col_i64 says why): a few ids every row */
	sqlite3_value *val = sqlite3_column_value(st, c);
	int type = sqlite3_value_type(val);
	if (type == SQLITE_NULL)
		return db_build_str(b, "");
	if (type != SQLITE_INTEGER) {
		const unsigned char *t = sqlite3_value_text(val);
		return db_build_str(b, t ? (const char *)t : "");
	}
	int64_t id = sqlite3_value_int64(val);
	bool found;
	uint32_t *slot = u64map_slot(&b->sids, (uint64_t)id, &found);
	if (found)
		return *slot;
	uint32_t v = 0;
	v = db_build_str(b, db_keyed_get(&b->strings, id));
	/* the map may have grown while interning: look the slot up again */
	*u64map_slot(&b->sids, (uint64_t)id, &found) = v;
	return v;
}

uint32_t db_build_lane(struct db_build *b, const char *pid, const char *tid, uint32_t process,
			 const char *thread, int64_t psort, int64_t tsort)
{
	uint32_t p = db_build_str(b, pid), t = db_build_str(b, tid);
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
	l->process_name = process;
	l->thread_name = db_build_str(b, thread);
	l->process_sort = psort;
	l->has_process_sort = true;
	l->thread_sort = tsort;
	l->has_thread_sort = true;
	l->stream = -1;
	*slot = (uint32_t)rs->n_lanes;
	return (uint32_t)rs->n_lanes++;
}

uint32_t db_build_kind(struct db_build *b, uint32_t lane, uint32_t cat, uint32_t task_type)
{
	struct rank_store *rs = b->rs;
	/* consecutive rows mostly share a lane and attributes */
	if (b->last_kind != UINT32_MAX && b->last_kind_key[0] == lane && b->last_kind_key[1] == cat &&
	    b->last_kind_key[2] == task_type)
		return b->last_kind;
	b->last_kind_key[0] = lane;
	b->last_kind_key[1] = cat;
	b->last_kind_key[2] = task_type;
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
	return b->last_kind = *slot;
}

void db_build_event(struct db_build *b, int64_t start, int64_t end, uint32_t name, uint32_t kind,
		      enum db_src src, int64_t rowid)
{
	struct rank_store *rs = b->rs;
	if (b->n == b->cap) {
		/* more rows than counted (or no count): grow, the offsets' columns too */
		size_t c = b->cap;
		spill_grow(&b->dur, &c, b->n + 1, sizeof *b->dur);
		c = b->cap;
		spill_grow(&b->name, &c, b->n + 1, sizeof *b->name);
		spill_grow(&b->kind, &b->cap, b->n + 1, sizeof *b->kind);
		rs->n_ev = b->cap;
		/* the columns are spilled (spill.h), the offsets too */
		rs->ev_ts_lo = spill_realloc(rs->ev_ts_lo, b->cap * sizeof *rs->ev_ts_lo);
		rs->ev_ts_base = xrealloc(rs->ev_ts_base, ((b->cap >> STORE_TS_SHIFT) + 1) * sizeof *rs->ev_ts_base);
		if (rs->ev_off_wide) {
			rs->ev_off_wide = spill_realloc(rs->ev_off_wide, b->cap * sizeof *rs->ev_off_wide);
		} else {
			rs->ev_off_lo = spill_realloc(rs->ev_off_lo, b->cap * sizeof *rs->ev_off_lo);
			rs->ev_off_block = xrealloc(rs->ev_off_block,
						    ((b->cap >> STORE_OFF_SHIFT) + 1) * sizeof *rs->ev_off_block);
		}
	}
	int64_t d = end >= start ? end - start : 0;
	b->blk[b->n & ((1u << STORE_TS_SHIFT) - 1)] = start;
	if (d >= (int64_t)STORE_LONG_DUR) {
		xgrow(&b->rs->long_durs, &b->cap_long, b->rs->n_long_durs + 1, sizeof *b->rs->long_durs);
		b->rs->long_durs[b->rs->n_long_durs++] = (struct long_dur){(uint32_t)b->n, d};
		b->dur[b->n] = STORE_LONG_DUR;
	} else {
		b->dur[b->n] = (uint32_t)d;
	}
	b->name[b->n] = name;
	b->kind[b->n] = kind;
	store_put_off(rs, b->n, rs->trace.db_base[src] + (uint64_t)rowid);
	b->n++;
	if (!(b->n & ((1u << STORE_TS_SHIFT) - 1)))
		store_ts_put_block(rs, b->n - (1u << STORE_TS_SHIFT), b->blk, 1u << STORE_TS_SHIFT, &b->cap_far);
	b->per_src[src]++;
}

/* The connection ids a flow can finish at (TASK's and COMMUNICATION_OP's), read before
 * the starts: an end whose (cat, id) has no partner cannot be kept (drop_dangling_flows),
 * so it is not stored: every CANN API carries an id, half of them launched no task (on a
 * generated 1 GB-equivalent capture a sixth of the ends, 12 MB, could never match). Dense
 * ids (as TASK numbers them) are bits over their range, else a sorted array; a start per
 * cat sets a bit at the id's place. */

/* The place of id in the set, or -1 when no flow finishes at it. */
static int64_t fin_place(const struct finset *fs, uint64_t id)
{
	if (fs->member) {
		uint64_t k = id - fs->lo;
		return id >= fs->lo && k < fs->range && (fs->member[k / 64] >> (k % 64) & 1) ? (int64_t)k : -1;
	}
	size_t lo = 0, hi = fs->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (fs->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < fs->n && fs->ids[lo] == id ? (int64_t)lo : -1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* NULL when the ids cannot be read (no column): every end is stored then. */
struct finset *db_build_fin_load(sqlite3 *h)
{
	struct sbuf sql = SBUF_INIT;
	static const char *const tables[] = {"TASK", "COMMUNICATION_OP"};
	for (size_t i = 0; i < 2; i++) {
		if (!db_has_table(h, tables[i]))
			continue;
		struct db_cols c;
		if (!db_cols_load(h, tables[i], &c))
			continue;
		if (db_cols_has(&c, "connectionId"))
			sbuf_addf(&sql, "%sSELECT connectionId FROM %s WHERE connectionId IS NOT NULL",
				  sql.len ? " UNION ALL " : "", tables[i]);
		db_cols_free(&c);
	}
	sqlite3_stmt *st = NULL;
	if (!sql.len || sqlite3_prepare_v2(h, sbuf_str(&sql), -1, &st, NULL) != SQLITE_OK) {
		sbuf_free(&sql);
		return NULL;
	}
	sbuf_free(&sql);
	struct finset *fs = xcalloc(1, sizeof *fs);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t v;
		if (!db_col_i64(st, 0, &v))
			continue;
		xgrow(&fs->ids, &cap, fs->n + 1, sizeof *fs->ids);
		fs->ids[fs->n++] = (uint64_t)v;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		/* a set read only in part would drop ends that match: keep them all */
		free(fs->ids);
		free(fs);
		return NULL;
	}
	xqsort(fs->ids, fs->n, sizeof *fs->ids, cmp_u64);
	size_t u = 0;
	for (size_t i = 0; i < fs->n; i++)
		if (!u || fs->ids[u - 1] != fs->ids[i])
			fs->ids[u++] = fs->ids[i];
	fs->n = u;
	size_t places = u;
	if (u && fs->ids[u - 1] - fs->ids[0] < 16 * (uint64_t)u + 4096) {
		fs->lo = fs->ids[0];
		fs->range = fs->ids[u - 1] - fs->lo + 1;
		fs->member = xcalloc((size_t)(fs->range + 63) / 64, sizeof *fs->member);
		for (size_t i = 0; i < u; i++)
			fs->member[(fs->ids[i] - fs->lo) / 64] |= (uint64_t)1 << ((fs->ids[i] - fs->lo) % 64);
		free(fs->ids);
		fs->ids = NULL;
		places = (size_t)fs->range;
	}
	for (int k = 0; k < FIN_CATS; k++)
		fs->started[k] = xcalloc((places + 63) / 64 + 1, sizeof *fs->started[k]);
	return fs;
}

void db_build_fin_free(struct finset *fs)
{
	if (!fs)
		return;
	free(fs->member);
	free(fs->ids);
	for (int k = 0; k < FIN_CATS; k++)
		free(fs->started[k]);
	free(fs);
}

void db_build_flow(struct db_build *b, enum flow_ph ph, uint32_t cat, uint64_t id, uint32_t lane, int64_t ts)
{
	struct rank_store *rs = b->rs;
	int fc = cat == b->c_h2d ? FIN_H2D : cat == b->c_async_npu ? FIN_ASYNC : -1;
	if (b->fin && fc >= 0) {
		int64_t at = fin_place(b->fin, id);
		if (at < 0)
			return; /* no task or collective finishes at this id */
		uint64_t *w = &b->fin->started[fc][at / 64], bit = (uint64_t)1 << (at % 64);
		if (ph == FLOW_START)
			*w |= bit;
		else if (!(*w & bit))
			return; /* a finish without a start (starts are all read before) */
	}
	spill_grow(&rs->flows, &b->cap_flows, rs->n_flows + 1, sizeof *rs->flows);
	struct flow *f = &rs->flows[rs->n_flows++];
	f->ts = ts;
	f->id = id;
	f->lane = lane;
	f->cat = cat & ((1u << 29) - 1);
	f->id_is_text = 0;
	f->ph = ph;
}


/* The counter track (process, name) with its value key, made on first use. */
uint32_t db_build_ctr_track(struct db_build *b, const char *process, const char *name, const char *key)
{
	struct rank_store *rs = b->rs;
	uint32_t p = db_build_str(b, process), nm = db_build_str(b, name);
	for (size_t i = 0; i < rs->n_tracks; i++)
		if (rs->tracks[i].process_name == p && rs->tracks[i].name == nm)
			return (uint32_t)i;
	xgrow(&rs->tracks, &b->cap_tracks, rs->n_tracks + 1, sizeof *rs->tracks);
	struct counter_track *t = &rs->tracks[rs->n_tracks];
	memset(t, 0, sizeof *t);
	t->pid_text = p;
	t->process_name = p;
	t->name = nm;
	t->value_key = db_build_str(b, key);
	return (uint32_t)rs->n_tracks++;
}

void db_build_ctr_sample(struct db_build *b, uint32_t track, int64_t ts, double v)
{
	struct rank_store *rs = b->rs;
	if (rs->n_ctr == b->cap_ctr) {
		size_t c = b->cap_ctr;
		xgrow(&rs->ctr_ts, &c, rs->n_ctr + 1, sizeof *rs->ctr_ts);
		c = b->cap_ctr;
		xgrow(&rs->ctr_value, &c, rs->n_ctr + 1, sizeof *rs->ctr_value);
		c = b->cap_ctr;
		xgrow(&rs->ctr_off, &c, rs->n_ctr + 1, sizeof *rs->ctr_off);
		xgrow(&rs->ctr_track, &b->cap_ctr, rs->n_ctr + 1, sizeof *rs->ctr_track);
	}
	rs->ctr_ts[rs->n_ctr] = ts;
	rs->ctr_value[rs->n_ctr] = v;
	rs->ctr_off[rs->n_ctr] = 0; /* no element to show: the row is the sample */
	rs->ctr_track[rs->n_ctr] = track;
	rs->n_ctr++;
}

/* Flow ends are kept only where a start and a finish share (cat, id), and of several
 * finishes only the earliest: every CANN API and task carries a connection id, but the
 * text export draws one arrow per launch, to its first task, and no dangling ends (the
 * unmatched count stays meaningful). The ends are grouped by sorting 4-byte indices in
 * the order lanes_finish sorts them (lanes.c FLOW_LESS, stable), and the kept ones are
 * left in that order: read table by table they are far from it, and its sort would then
 * copy them all beside a set-aside buffer, the Db load's peak. */
/* The flow ends being sorted, this thread's (loads of several ranks run side by side). */
static _Thread_local const struct flow *flow_ix_ends;

/* i before j, as lanes_finish orders them, read order last: a total order */
static inline bool flow_ix_less(uint32_t i, uint32_t j)
{
	const struct flow *x = &flow_ix_ends[i], *y = &flow_ix_ends[j];
	if (x->cat != y->cat)
		return x->cat < y->cat;
	if (x->id_is_text != y->id_is_text)
		return x->id_is_text < y->id_is_text;
	if (x->id != y->id)
		return x->id < y->id;
	if (x->ph != y->ph)
		return x->ph < y->ph;
	if (x->ts != y->ts)
		return x->ts < y->ts;
	return i < j;
}
/* inlined, not qsort's call per comparison (half the sort's time) */
#define FLOW_IX_LESS(a, b) flow_ix_less(*(a), *(b))
XSORT_DEFINE(sort_flow_ix, uint32_t, FLOW_IX_LESS)

/* ix[0..n) = the ends' indices in flow_ix_less order. The cats come first in that order and
 * a Db holds a handful (async_npu, HostToDevice, the queue's, fwdbwd): the indices are
 * dealt into a run per cat in one stable pass, and each run, mostly in id order already
 * (starts then finishes, each as their table numbers them), costs its sort little; the
 * one sort over all ends went ~18 rounds through their interleaved tables (a third of
 * the Db build's finish on the 100 MB bench). More cats than that: the one sort. */
#define FLOW_CATS_MAX 16
static inline size_t flow_cat_rank(const uint32_t *cats, uint32_t cat)
{
	size_t k = 0;
	while (cats[k] != cat)
		k++;
	return k;
}

static void sort_flows_by_cat(const struct flow *fl, size_t n, uint32_t *ix)
{
	uint32_t cats[FLOW_CATS_MAX];
	size_t n_cats = 0, count[FLOW_CATS_MAX + 1] = {0};
	for (size_t i = 0; i < n && n_cats <= FLOW_CATS_MAX; i++) {
		size_t k = 0;
		while (k < n_cats && cats[k] != fl[i].cat)
			k++;
		if (k == n_cats && n_cats++ < FLOW_CATS_MAX)
			cats[k] = fl[i].cat;
	}
	if (n_cats > FLOW_CATS_MAX) {
		for (size_t i = 0; i < n; i++)
			ix[i] = (uint32_t)i;
		sort_flow_ix(ix, n);
		return;
	}
	/* the runs in cat order, each cat's ends in read order */
	xqsort(cats, n_cats, sizeof *cats, cmp_u32);
	/* each end's cat looked up twice (count, then place): no array beside ix */
	for (size_t i = 0; i < n; i++)
		count[flow_cat_rank(cats, fl[i].cat) + 1]++;
	for (size_t k = 0; k < n_cats; k++)
		count[k + 1] += count[k];
	size_t at[FLOW_CATS_MAX];
	memcpy(at, count, sizeof at);
	for (size_t i = 0; i < n; i++)
		ix[at[flow_cat_rank(cats, fl[i].cat)]++] = (uint32_t)i;
	for (size_t k = 0; k < n_cats; k++)
		sort_flow_ix(ix + count[k], count[k + 1] - count[k]);
}

#define BIT_SET(w, i) ((w)[(i) / 64] |= (uint64_t)1 << ((i) % 64))
#define BIT_GET(w, i) ((w)[(i) / 64] >> ((i) % 64) & 1)

static void drop_dangling_flows(struct db_build *b)
{
	struct rank_store *rs = b->rs;
	struct flow *fl = rs->flows;
	size_t n = rs->n_flows;
	if (!n || n >= UINT32_MAX)
		return;
	uint32_t *ix = xmalloc(n * sizeof *ix);
	flow_ix_ends = fl;
	sort_flows_by_cat(fl, n, ix);
	flow_ix_ends = NULL;
	size_t words = (n + 63) / 64;
	uint64_t *keep = xcalloc(words, sizeof *keep);
	for (size_t g = 0; g < n;) {
		const struct flow *first = &fl[ix[g]];
		size_t e = g, fin;
		while (e < n && fl[ix[e]].cat == first->cat && fl[ix[e]].id_is_text == first->id_is_text &&
		       fl[ix[e]].id == first->id)
			e++;
		for (fin = g; fin < e && fl[ix[fin]].ph == FLOW_START; fin++)
			;
		/* a group with both: its starts, and the finishes at the earliest finish's time */
		if (fin > g && fin < e) {
			for (size_t k = g; k < fin; k++)
				BIT_SET(keep, ix[k]);
			int64_t ts0 = fl[ix[fin]].ts;
			for (size_t k = fin; k < e && fl[ix[k]].ts == ts0; k++)
				BIT_SET(keep, ix[k]);
		}
		g = e;
	}
	/* the kept ends' places once compacted in read order: a count per 64 ends */
	uint32_t *before = xmalloc(words * sizeof *before);
	size_t out = 0;
	for (size_t w = 0; w < words; w++) {
		before[w] = (uint32_t)out;
		out += (size_t)__builtin_popcountll(keep[w]);
	}
	/* ix becomes the permutation: sorted place k takes the compacted end ix[k] */
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t o = ix[i];
		if (BIT_GET(keep, o))
			ix[k++] = before[o / 64] +
				  (uint32_t)__builtin_popcountll(keep[o / 64] & (((uint64_t)1 << (o % 64)) - 1));
	}
	free(before);
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		if (BIT_GET(keep, i))
			fl[c++] = fl[i];
	/* then moved into sorted order in place, cycle by cycle (keep marks the places done) */
	memset(keep, 0, words * sizeof *keep);
	for (size_t s0 = 0; s0 < out; s0++) {
		if (BIT_GET(keep, s0))
			continue;
		struct flow tmp = fl[s0];
		size_t j = s0;
		for (;;) {
			BIT_SET(keep, j);
			size_t src = ix[j];
			if (src == s0) {
				fl[j] = tmp;
				break;
			}
			fl[j] = fl[src];
			j = src;
		}
	}
	free(keep);
	free(ix);
	rs->n_flows = out;
	/* the dropped ends' pages go back before the lanes are built (shrinking a big
	 * block unmaps its tail) */
	rs->flows = spill_realloc(rs->flows, (out ? out : 1) * sizeof *rs->flows);
	b->cap_flows = out ? out : 1;
}

/* The columns from the builder's arrays, then the lanes as the text loader leaves them. */
void db_build_finish(struct db_build *b)
{
	struct rank_store *rs = b->rs;
	size_t n = b->n;
	rs->n_ev = n;
	size_t tail = n & ((1u << STORE_TS_SHIFT) - 1);
	store_ts_put_block(rs, n - tail, b->blk, tail, &b->cap_far);
	if (!rs->ev_ts_lo) {
		rs->ev_ts_lo = xmalloc(sizeof *rs->ev_ts_lo);
		rs->ev_ts_base = xmalloc(sizeof *rs->ev_ts_base);
	}
	rs->ev_dur = b->dur ? b->dur : xmalloc(sizeof *rs->ev_dur);
	rs->ev_name = b->name ? b->name : xmalloc(sizeof *rs->ev_name);
	rs->ev_kind = b->kind ? b->kind : xmalloc(sizeof *rs->ev_kind);
	if (!rs->ev_off_lo && !rs->ev_off_wide) {
		rs->ev_off_lo = xmalloc(sizeof *rs->ev_off_lo);
		rs->ev_off_block = xcalloc(1, sizeof *rs->ev_off_block);
	}
	if (!rs->long_durs)
		rs->long_durs = xmalloc(sizeof *rs->long_durs);
	drop_dangling_flows(b);
	rs->ph.by_char['X'] = n;
	for (size_t i = 0; i < rs->n_flows; i++)
		rs->ph.by_char[rs->flows[i].ph == FLOW_START ? 's' : 'f']++;
	lanes_finish(rs, b->path, b->dl);
}

/* The event columns sized once from the tables' row counts (an upper bound: rows may be
 * skipped), instead of doubling as rows come: the builder's arrays are the load's peak. */
void db_build_reserve(struct db_build *b)
{
	size_t n = 0;
	for (int src = SRC_PYTORCH_API; src < SRC_COUNT; src++) {
		if (!db_has_table(b->h, db_src_table[src]))
			continue;
		char *sql = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", db_src_table[src]);
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(b->h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
			n += (size_t)sqlite3_column_int64(st, 0);
			b->src_empty[src] = sqlite3_column_int64(st, 0) == 0;
		}
		sqlite3_finalize(st);
		sqlite3_free(sql);
	}
	if (!n)
		return;
	b->rs->ev_ts_lo = spill_alloc(n * sizeof *b->rs->ev_ts_lo);
	b->rs->ev_ts_base = xmalloc(((n >> STORE_TS_SHIFT) + 1) * sizeof *b->rs->ev_ts_base);
	b->dur = spill_alloc(n * sizeof *b->dur);
	b->name = spill_alloc(n * sizeof *b->name);
	b->kind = spill_alloc(n * sizeof *b->kind);
	b->cap = n;
	/* the offsets go straight into the store's columns (n_ev is the bound until the end) */
	b->rs->n_ev = n;
	b->rs->ev_off_lo = spill_alloc(n * sizeof *b->rs->ev_off_lo);
	b->rs->ev_off_block = xcalloc((n >> STORE_OFF_SHIFT) + 1, sizeof *b->rs->ev_off_block);
}

/* Each table's base offset: the tables' rowids laid end to end in the order they are read. */
void db_build_bases(struct db_build *b)
{
	uint64_t next = 0;
	for (int src = SRC_PYTORCH_API; src < SRC_COUNT; src++) {
		b->rs->trace.db_base[src] = next;
		if (!db_has_table(b->h, db_src_table[src]))
			continue;
		char *sql = sqlite3_mprintf("SELECT max(rowid) FROM \"%w\"", db_src_table[src]);
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(b->h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
		    sqlite3_column_int64(st, 0) > 0)
			next += (uint64_t)sqlite3_column_int64(st, 0) + 1;
		sqlite3_finalize(st);
		sqlite3_free(sql);
	}
}
