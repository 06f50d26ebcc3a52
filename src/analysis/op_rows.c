/* SPDX-License-Identifier: MIT */
/* An op's instances and the timeline's per-op rows (op_rows.h). */
#include "op_rows.h"

#include <stdlib.h>
#include <string.h>

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

size_t op_rows_instances(const struct rank_store *rs, const char *name, int scope, uint32_t **out)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	uint32_t id = strtab_find(rs->strs, name, strlen(name));
	for (size_t ev = 0; id != STRTAB_NONE && ev < rs->n_ev; ev++) {
		if (rs->ev_name[ev] != id || !op_rows_lane_in_scope(scope, store_ev_lane(rs, ev)->group))
			continue;
		xgrow(out, &cap, n + 1, sizeof **out);
		(*out)[n++] = (uint32_t)ev;
	}
	xqsort_r(*out, n, sizeof **out, cmp_by_start, (void *)rs);
	return n;
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
		size_t k = analysis_step_at(ra, store_ts(rs, evs[i]));
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
	case OP_ROWS_BY_NAME: return strcmp(x->name, y->name);
	case OP_ROWS_BY_MAX: if (x->max != y->max) return x->max > y->max ? -1 : 1; break;
	default: if (x->total != y->total) return x->total > y->total ? -1 : 1; break;
	}
	return strcmp(x->name, y->name);
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
	for (size_t i = 0; i < ra->n_ops && n < max_rows; i++) {
		const struct op_stat *o = &ra->ops[i];
		if (o->scope != SCOPE_DEVICE || o->phase != PHASE_UNKNOWN)
			continue;
		uint32_t id = strtab_find(rs->strs, o->name, strlen(o->name));
		if (id == STRTAB_NONE)
			continue;
		xgrow(&rows, &cap, n + 1, sizeof *rows);
		rows[n] = (struct op_row){o->name, xmalloc((o->count ? o->count : 1) * sizeof(uint32_t)), 0,
					  o->total_ns, o->max_ns, o->category};
		slot[id] = (int32_t)n++;
	}
	for (size_t ev = 0; n && ev < rs->n_ev; ev++) {
		int32_t s = slot[rs->ev_name[ev]];
		if (s < 0 || store_ev_lane(rs, ev)->group != LANE_DEVICE || (cls[ev].flags & EVF_WAIT))
			continue;
		struct op_row *o = &rows[s];
		o->evs[o->n++] = (uint32_t)ev;
	}
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
