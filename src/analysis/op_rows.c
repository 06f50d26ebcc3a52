/* SPDX-License-Identifier: MIT */
/* An op's instances and the timeline's per-op rows (op_rows.h). */
#include "op_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evkind.h"
#include "i18n.h"
#include "lanes.h"
#include "xalloc.h"

bool op_rows_lane_in_scope(int scope, enum lane_group g)
{
	if (scope == SCOPE_DEVICE)
		return g == LANE_DEVICE;
	if (scope == SCOPE_HOST)
		return lanes_group_is_host(g);
	return g == LANE_DEVICE || lanes_group_is_host(g);
}

/* by start, then by event index */
static int cmp_by_start(const void *a, const void *b, void *ctx)
{
	const struct rank_store *rs = ctx;
	uint32_t ea = *(const uint32_t *)a, eb = *(const uint32_t *)b;
	int64_t x = store_ts(rs, ea), y = store_ts(rs, eb);
	return x != y ? (x < y ? -1 : 1) : (ea > eb) - (ea < eb);
}

const char *op_rows_label(const char *name, const char *group, char *buf, size_t size)
{
	if (group)
		/* TRANSLATORS: a row of whole collectives: their kind, then their communication group */
		snprintf(buf, size, _("%s (group %s)"), name, group);
	else
		snprintf(buf, size, "%s", name);
	return buf;
}

/* The whole collectives of a rank by row: their names' keys memoised (evkind.h), kinds and
 * groups interned in a table of its own. */
struct coll_match {
	struct coll_rows rows;
	struct strtab *strs;
	bool group_lanes;
	const struct ev_class *cls;
};

static void coll_match_init(struct coll_match *m, const struct rank_store *rs, const struct ev_class *cls)
{
	m->strs = strtab_new();
	m->group_lanes = evkind_has_group_lanes(rs);
	m->cls = cls;
	evkind_coll_rows_init(&m->rows, strtab_count(rs->strs), m->group_lanes, m->strs);
}

static void coll_match_free(struct coll_match *m)
{
	evkind_coll_rows_free(&m->rows);
	strtab_free(m->strs);
}

/* The key of the collective row ev counts in, NULL when ev is no whole collective. */
static const struct coll_row_key *coll_match_ev(struct coll_match *m, const struct rank_store *rs, uint32_t ev)
{
	if (!m->cls || !analysis_is_collective(rs, m->cls, ev, m->group_lanes))
		return NULL;
	uint32_t k = evkind_coll_row(&m->rows, rs->ev_name[ev], store_ev_name(rs, ev));
	return k == UINT32_MAX ? NULL : &m->rows.keys[k];
}

static bool coll_key_is(const struct coll_row_key *k, const char *name, const char *group)
{
	return !strcmp(k->kind, name) && !analysis_group_cmp(k->group, group);
}

size_t op_rows_instances(const struct rank_store *rs, const struct ev_class *cls, struct op_key key, int scope,
			 uint32_t **out)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	if (key.collective) {
		/* on group lanes or device lanes alike: a collective is device work */
		struct coll_match m;
		coll_match_init(&m, rs, cls);
		for (size_t ev = 0; scope != SCOPE_HOST && ev < rs->n_ev; ev++) {
			const struct coll_row_key *k = coll_match_ev(&m, rs, (uint32_t)ev);
			if (!k || !coll_key_is(k, key.name, key.group))
				continue;
			xgrow(out, &cap, n + 1, sizeof **out);
			(*out)[n++] = (uint32_t)ev;
		}
		coll_match_free(&m);
	} else {
		uint32_t id = strtab_find(rs->strs, key.name, strlen(key.name));
		for (size_t ev = 0; id != STRTAB_NONE && ev < rs->n_ev; ev++) {
			if (rs->ev_name[ev] != id || !op_rows_lane_in_scope(scope, store_ev_lane(rs, ev)->group))
				continue;
			xgrow(out, &cap, n + 1, sizeof **out);
			(*out)[n++] = (uint32_t)ev;
		}
	}
	xqsort_r(*out, n, sizeof **out, cmp_by_start, (void *)rs);
	return n;
}

bool op_rows_csv_name_in(struct op_key key, const char *name)
{
	if (!key.collective)
		return !strcmp(name, key.name);
	char kb[512], gb[128];
	return !strcmp(evkind_op_type_key(name, NULL, kb, sizeof kb), key.name) &&
	       !analysis_group_cmp(evkind_collective_group(name, gb, sizeof gb), key.group);
}

int64_t op_rows_by_step(const struct rank_analysis *ra, const struct rank_store *rs, const uint32_t *evs,
			size_t n, int64_t *step_ns, size_t *calls)
{
	int64_t max_dur = 0;
	memset(step_ns, 0, ra->n_steps * sizeof *step_ns);
	memset(calls, 0, ra->n_steps * sizeof *calls);
	for (size_t i = 0; i < n; i++) {
		int64_t dur = store_dur(rs, evs[i]);
		if (dur > max_dur)
			max_dur = dur;
		size_t k = result_step_at(ra, store_ts(rs, evs[i]));
		if (k != SIZE_MAX) {
			step_ns[k] += dur;
			calls[k]++;
		}
	}
	return max_dur;
}

static int cmp_rows(const void *a, const void *b, void *ctx)
{
	enum op_rows_sort sort = *(const enum op_rows_sort *)ctx;
	const struct op_row *x = a, *y = b;
	switch (sort) {
	case OP_ROWS_BY_COUNT: if (x->n != y->n) return x->n > y->n ? -1 : 1; break;
	case OP_ROWS_BY_MAX: if (x->max != y->max) return x->max > y->max ? -1 : 1; break;
	case OP_ROWS_BY_TOTAL: if (x->total != y->total) return x->total > y->total ? -1 : 1; break;
	default: break;
	}
	int c = strcmp(x->name, y->name);
	return c ? c : analysis_group_cmp(x->group, y->group);
}

/* by start alone: instances of one op starting together keep the sort's order */
static int cmp_ev_start(const void *a, const void *b, void *ctx)
{
	const struct rank_store *rs = ctx;
	int64_t x = store_ts(rs, *(const uint32_t *)a), y = store_ts(rs, *(const uint32_t *)b);
	return x < y ? -1 : x > y;
}

void op_rows_sort(struct op_row *rows, size_t n, enum op_rows_sort sort)
{
	xqsort_r(rows, n, sizeof *rows, cmp_rows, &sort);
}

size_t op_rows_build(const struct rank_analysis *ra, const struct rank_store *rs, const struct ev_class *cls,
		     size_t max_rows, enum op_rows_sort sort, struct op_row **out)
{
	*out = NULL;
	if (!ra)
		return 0;
	struct op_row *rows = NULL;
	size_t n = 0, cap = 0;
	uint32_t nstr = strtab_count(rs->strs);
	int32_t *slot = xmalloc((nstr ? nstr : 1) * sizeof *slot);
	for (uint32_t i = 0; i < nstr; i++)
		slot[i] = -1;
	size_t n_coll = 0, *room = NULL, room_cap = 0; /* room: each row's instances allocated */
	for (size_t i = 0; i < ra->n_ops && n < max_rows; i++) {
		const struct op_stat *o = &ra->ops[i];
		if (o->scope != SCOPE_DEVICE || o->phase != PHASE_UNKNOWN)
			continue;
		uint32_t id = o->collective ? STRTAB_NONE : strtab_find(rs->strs, o->name, strlen(o->name));
		if (id == STRTAB_NONE && !o->collective)
			continue;
		xgrow(&rows, &cap, n + 1, sizeof *rows);
		xgrow(&room, &room_cap, n + 1, sizeof *room);
		room[n] = o->count;
		rows[n] = (struct op_row){o->name, o->group, xmalloc((o->count ? o->count : 1) * sizeof(uint32_t)), 0,
					  o->total_ns, o->max_ns, o->category, o->collective};
		if (o->collective)
			n_coll++;
		else
			slot[id] = (int32_t)n;
		n++;
	}
	/* collectives by their calls' kind and group, the rest by name */
	struct coll_match m;
	coll_match_init(&m, rs, n_coll ? cls : NULL);
	for (size_t ev = 0; n && ev < rs->n_ev; ev++) {
		const struct coll_row_key *k = coll_match_ev(&m, rs, (uint32_t)ev);
		for (size_t r = 0; k && r < n; r++) {
			struct op_row *o = &rows[r];
			if (o->collective && o->n < room[r] && coll_key_is(k, o->name, o->group))
				o->evs[o->n++] = (uint32_t)ev;
		}
		int32_t s = slot[rs->ev_name[ev]];
		if (k || s < 0 || store_ev_lane(rs, ev)->group != LANE_DEVICE || (cls[ev].flags & EVF_WAIT))
			continue;
		struct op_row *o = &rows[s];
		o->evs[o->n++] = (uint32_t)ev;
	}
	coll_match_free(&m);
	free(room);
	for (size_t i = 0; i < n; i++)
		xqsort_r(rows[i].evs, rows[i].n, sizeof(uint32_t), cmp_ev_start, (void *)rs);
	op_rows_sort(rows, n, sort);
	free(slot);
	*out = rows;
	return n;
}

void op_rows_free(struct op_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(rows[i].evs);
	free(rows);
}

int64_t op_rows_cover(const struct rank_store *rs, const uint32_t *evs, size_t n, int64_t max_dur, int64_t a,
		      int64_t b, int cap, int *seen)
{
	/* instances overlapping [a, b): start from the first starting at or after a - max */
	size_t lo = store_evs_lower_bound(rs, evs, 0, n, a - max_dur);
	int64_t cov = 0;
	*seen = 0;
	for (size_t k = lo; k < n && *seen < cap; k++) {
		uint32_t ev = evs[k];
		int64_t ea = store_ts(rs, ev), eb = ea + store_dur(rs, ev);
		if (ea >= b)
			break;
		if (eb <= a)
			continue;
		(*seen)++;
		cov += (eb < b ? eb : b) - (ea > a ? ea : a);
	}
	return cov;
}
