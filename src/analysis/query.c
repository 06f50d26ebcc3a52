/* SPDX-License-Identifier: MIT */
/* Questions the explorer asks of one analysed rank (query.h). */
#include "query.h"

#include <stdlib.h>
#include <string.h>

#include "evkind.h"
#include "intervals.h"
#include "lanes.h"
#include "strtab.h"
#include "xalloc.h"
#include "xsort.h"

static bool landmark_kind(enum landmark lm, const struct lane *l, struct ev_class c)
{
	bool device = l->group == LANE_DEVICE && !(c.flags & EVF_WAIT);
	switch (lm) {
	case LANDMARK_IDLE: return device || l->group == LANE_COMM;
	case LANDMARK_EXPOSED: return (device || l->group == LANE_COMM) && c.cat == CAT_COMM;
	case LANDMARK_COPY: return device && c.cat == CAT_COPY;
	case LANDMARK_SYNC: return lanes_group_is_host(l->group) && (c.flags & EVF_SYNC);
	}
	return false;
}

uint32_t query_landmark_event(const struct rank_analysis *ra, const struct rank_store *rs, enum landmark lm)
{
	const int64_t *iv = lm == LANDMARK_IDLE ? ra->longest_idle : lm == LANDMARK_EXPOSED ? ra->longest_exposed
			    : lm == LANDMARK_COPY ? ra->longest_copy : ra->longest_sync;
	if (!ra->cls || iv[1] <= iv[0])
		return UINT32_MAX;
	uint32_t best = UINT32_MAX;
	int64_t best_key = INT64_MIN, best_dur = 0;
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *l = &rs->lanes[li];
		/* a lane's events start in order: skip those starting after the interval */
		uint32_t k = lm == LANDMARK_IDLE ? store_lane_lower_bound(rs, l, iv[1]) : 0;
		uint32_t end = lm == LANDMARK_IDLE ? l->n_events : store_lane_lower_bound(rs, l, iv[1]);
		for (; k < end; k++) {
			uint32_t ev = l->events[k];
			if (!landmark_kind(lm, l, ra->cls[ev]))
				continue;
			int64_t a = store_ts(rs, ev), d = store_dur(rs, ev), key;
			if (lm == LANDMARK_IDLE) {
				key = -a; /* the first to start when the gap ends */
				end = k + 1;
			} else {
				int64_t lo = a > iv[0] ? a : iv[0], hi = a + d < iv[1] ? a + d : iv[1];
				if (hi <= lo)
					continue;
				key = hi - lo;
			}
			if (key > best_key || (key == best_key && d > best_dur)) {
				best = ev;
				best_key = key;
				best_dur = d;
			}
		}
	}
	return best;
}

int64_t *query_host_self_ns(const struct rank_store *rs)
{
	uint32_t n_names = strtab_count(rs->strs);
	int64_t *self = xcalloc(n_names ? n_names : 1, sizeof *self);
	enum { MAX_DEPTH = 256 };
	uint32_t stack[MAX_DEPTH]; /* the innermost open event per depth */
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *l = &rs->lanes[li];
		if (!lanes_group_is_host(l->group))
			continue;
		for (uint32_t k = 0; k < l->n_events; k++) {
			uint32_t ev = l->events[k];
			int d = l->depth[k];
			int64_t a = store_ts(rs, ev), b = a + store_dur(rs, ev);
			self[rs->ev_name[ev]] += b - a;
			stack[d] = ev;
			if (d == 0)
				continue;
			/* the parent loses what this child covers of it */
			uint32_t parent = stack[d - 1];
			int64_t pe = store_ts(rs, parent) + store_dur(rs, parent);
			if ((b < pe ? b : pe) > a)
				self[rs->ev_name[parent]] -= (b < pe ? b : pe) - a;
		}
	}
	return self;
}

struct range_ctx {
	const struct ev_class *cls;
	const struct rank_store *rs;
	const struct lane *lane;
	int64_t t0, t1;
	struct ivset cat[CAT_COUNT], device, host;
	uint32_t *count;   /* per name id */
	int64_t *in_ns;    /* per name id */
	uint8_t *cat_of;   /* per name id, of the first event */
	bool *on_device;   /* per name id */
	bool *collective;  /* per name id: named whole collectives (evkind.h), by kind and group */
	bool group_lanes;
	size_t n_events;
	uint32_t frame_cat; /* the strtab id of cat "python_function": call-stack frames, not ops */
};

static void range_event(void *p, uint32_t ev)
{
	struct range_ctx *c = p;
	struct ev_class k = c->cls[ev];
	if (k.flags & EVF_STEP_MARK)
		return;
	int64_t a = store_ts(c->rs, ev), b = a + store_dur(c->rs, ev);
	a = a > c->t0 ? a : c->t0;
	b = b < c->t1 ? b : c->t1;
	if (b < a)
		return;
	c->n_events++;
	ivset_add(&c->cat[k.cat < CAT_COUNT ? k.cat : CAT_OTHER], a, b);
	if (c->lane->group == LANE_DEVICE && !(k.flags & EVF_WAIT))
		ivset_add(&c->device, a, b);
	if (lanes_group_is_host(c->lane->group))
		ivset_add(&c->host, a, b);
	if (c->frame_cat != STRTAB_NONE && store_ev_attr(c->rs, ev)->cat == c->frame_cat)
		return;
	uint32_t id = c->rs->ev_name[ev];
	if (!c->count[id]) {
		c->cat_of[id] = k.cat;
		c->on_device[id] = c->lane->group == LANE_DEVICE;
		c->collective[id] = analysis_is_collective(c->rs, c->cls, ev, c->group_lanes);
	}
	c->count[id]++;
	c->in_ns[id] += b - a;
}

static int cmp_range_op(const void *x, const void *y)
{
	const struct range_op *a = x, *b = y;
	if (a->in_ns != b->in_ns)
		return a->in_ns > b->in_ns ? -1 : 1;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	int c = strcmp(a->name, b->name);
	return c ? c : analysis_group_cmp(a->group, b->group);
}

void query_range(const struct rank_store *rs, const struct ev_class *cls, int64_t t0, int64_t t1,
		    struct range_totals *out)
{
	memset(out, 0, sizeof *out);
	out->t0 = t0;
	out->t1 = t1;
	if (!cls || t1 <= t0)
		return;
	uint32_t n_names = strtab_count(rs->strs);
	struct range_ctx c = {.cls = cls, .rs = rs, .t0 = t0, .t1 = t1};
	c.frame_cat = strtab_find(rs->strs, "python_function", strlen("python_function"));
	for (int k = 0; k < CAT_COUNT; k++)
		ivset_init(&c.cat[k]);
	ivset_init(&c.device);
	ivset_init(&c.host);
	c.count = xcalloc(n_names ? n_names : 1, sizeof *c.count);
	c.in_ns = xcalloc(n_names ? n_names : 1, sizeof *c.in_ns);
	c.cat_of = xcalloc(n_names ? n_names : 1, 1);
	c.on_device = xcalloc(n_names ? n_names : 1, sizeof *c.on_device);
	c.collective = xcalloc(n_names ? n_names : 1, sizeof *c.collective);
	c.group_lanes = evkind_has_group_lanes(rs);
	for (size_t li = 0; li < rs->n_lanes; li++) {
		c.lane = &rs->lanes[li];
		if (c.lane->group == LANE_OVERLAP || !c.lane->n_events)
			continue; /* the exporter's own derived tracks */
		lanes_visit_in(rs, c.lane, t0, t1, range_event, &c, NULL);
	}
	for (int k = 0; k < CAT_COUNT; k++) {
		out->cat_ns[k] = ivset_total(&c.cat[k]);
		ivset_free(&c.cat[k]);
	}
	out->device_busy_ns = ivset_total(&c.device);
	out->host_busy_ns = ivset_total(&c.host);
	ivset_free(&c.device);
	ivset_free(&c.host);
	out->n_events = c.n_events;
	size_t cap = 0;
	struct coll_rows coll = {0};
	size_t *key_op = NULL; /* per collective key: its op's index plus one, 0 none yet */
	for (uint32_t id = 0; id < n_names; id++) {
		if (!c.count[id])
			continue;
		uint32_t k = UINT32_MAX;
		if (c.collective[id]) {
			if (!out->keys) {
				out->keys = strtab_new();
				evkind_coll_rows_init(&coll, n_names, true, out->keys);
				key_op = xcalloc(n_names, sizeof *key_op);
			}
			k = evkind_coll_row(&coll, id, store_str(rs, id));
			if (key_op[k]) { /* another call of a collective row seen */
				out->ops[key_op[k] - 1].count += c.count[id];
				out->ops[key_op[k] - 1].in_ns += c.in_ns[id];
				continue;
			}
		}
		xgrow(&out->ops, &cap, out->n_ops + 1, sizeof *out->ops);
		struct range_op *o = &out->ops[out->n_ops++];
		*o = (struct range_op){store_str(rs, id), NULL, c.cat_of[id], c.on_device[id], c.count[id], c.in_ns[id]};
		if (k != UINT32_MAX) {
			*o = (struct range_op){coll.keys[k].kind, coll.keys[k].group, CAT_COMM, true, c.count[id], c.in_ns[id]};
			key_op[k] = out->n_ops;
		}
	}
	evkind_coll_rows_free(&coll);
	free(key_op);
	xqsort(out->ops, out->n_ops, sizeof *out->ops, cmp_range_op);
	free(c.count);
	free(c.in_ns);
	free(c.cat_of);
	free(c.on_device);
	free(c.collective);
}

void query_range_free(struct range_totals *rt)
{
	free(rt->ops);
	rt->ops = NULL;
	rt->n_ops = 0;
	if (rt->keys)
		strtab_free(rt->keys);
	rt->keys = NULL;
}
