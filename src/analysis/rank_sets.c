/* SPDX-License-Identifier: MIT */
/* A rank's interval sets and its host work (rank_sets.h). */
#include "rank_sets.h"

#include <stdlib.h>
#include <string.h>

#include "evkind.h"
#include "lanes.h"
#include "stagetime.h"
#include "xalloc.h"

/* Every set empty; the derived ones are set up by rank_sets_derive. */
static void sets_init(struct rank_sets *s)
{
	memset(s, 0, sizeof *s);
	ivset_init(&s->device_busy);
	ivset_init(&s->compute);
	ivset_init(&s->dev_copy);
	ivset_init(&s->comm);
	ivset_init(&s->host_copy);
	ivset_init(&s->sync);
	ivset_init(&s->h2d);
	ivset_init(&s->d2h);
	ivset_init(&s->compute_or_comm);
}

/* Lanes' heads as a binary min-heap on their current start: the device lanes' events in
 * start order (rank_sets_build), the host lanes' spans (host_work_minus). A capture may have
 * thousands of host threads (a lane each), and a scan of all of them per span made that
 * quadratic (review: 10000 lanes took 10 s). Entries are small: the start and the lane's
 * place in the caller's array. */
struct head {
	int64_t a;
	uint32_t lane;
};

static void heads_sift_down(struct head *q, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && q[l].a < q[m].a)
			m = l;
		if (l + 1 < n && q[l + 1].a < q[m].a)
			m = l + 1;
		if (m == i)
			return;
		struct head t = q[i];
		q[i] = q[m];
		q[m] = t;
		i = m;
	}
}

/* One device or communication event into the sets it belongs to. */
static inline __attribute__((always_inline)) void device_event(struct rank_sets *s, const struct lane *l,
							       struct ev_class c, int64_t a, int64_t b,
							       struct ivset *dev_comm, struct ivset *comm_lanes,
							       struct ivset *fused)
{
	if (l->group == LANE_COMM) {
		ivset_add(comm_lanes, a, b);
		return;
	}
	if (c.flags & EVF_WAIT)
		return;
	ivset_add(&s->device_busy, a, b);
	if (c.cat == CAT_COMPUTE)
		ivset_add(&s->compute, a, b);
	else if (c.cat == CAT_COPY) {
		ivset_add(&s->dev_copy, a, b);
		if (c.flags & EVF_H2D)
			ivset_add(&s->h2d, a, b);
		if (c.flags & EVF_D2H)
			ivset_add(&s->d2h, a, b);
		s->copies_dir_before += (c.flags & EVF_DIR_BEFORE) != 0;
	} else if (c.cat == CAT_COMM) {
		ivset_add(dev_comm, a, b);
		if (c.flags & EVF_FUSED_COMM)
			ivset_add(fused, a, b);
	}
}

/* The device and communication lanes' events merged in start order across the lanes (each
 * lane holds its events by start): every set built from them comes out sorted and disjoint
 * as it is added to (ivset_add joins in place), where lane after lane left them to be sorted
 * (a copy of each, a merge sort's buffer beside it, for a 1 GB trace's 400,000 tasks). */
static void device_lanes(const struct rank_store *rs, const struct ev_class *cls, struct rank_sets *s,
			 struct ivset *dev_comm, struct ivset *comm_lanes, struct ivset *fused)
{
	size_t n = 0;
	uint32_t *next = xmalloc((rs->n_lanes ? rs->n_lanes : 1) * sizeof *next);
	struct head *q = xmalloc((rs->n_lanes ? rs->n_lanes : 1) * sizeof *q);
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *l = &rs->lanes[li];
		next[li] = 0;
		if ((l->group == LANE_DEVICE || l->group == LANE_COMM) && l->n_events)
			q[n++] = (struct head){store_ts(rs, l->events[0]), (uint32_t)li};
	}
	for (size_t i = n / 2; i-- > 0;)
		heads_sift_down(q, n, i);
	while (n) {
		uint32_t li = q[0].lane;
		const struct lane *l = &rs->lanes[li];
		uint32_t k = next[li];
		/* this lane's events while they come before every other head */
		int64_t bound = n == 1 ? INT64_MAX : q[1].a;
		if (n > 2 && q[2].a < bound)
			bound = q[2].a;
		for (;;) {
			uint32_t ev = l->events[k];
			int64_t a = store_ts(rs, ev);
			if (a > bound)
				break;
			device_event(s, l, cls[ev], a, a + store_dur(rs, ev), dev_comm, comm_lanes, fused);
			if (++k == l->n_events)
				break;
		}
		next[li] = k;
		if (k < l->n_events)
			q[0].a = store_ts(rs, l->events[k]);
		else
			q[0] = q[--n];
		if (n)
			heads_sift_down(q, n, 0);
	}
	free(q);
	free(next);
}

/* out (initialised, empty) = a ∪ b; when b is empty out borrows a's arrays (*shared),
 * where a copy would fault in fresh pages for nothing (the sets are read, never added to,
 * once derived). */
static void union_or_share(struct ivset *a, struct ivset *b, struct ivset *out, bool *shared)
{
	*shared = !b->n;
	if (*shared) {
		ivset_normalize(a);
		*out = *a;
	} else {
		ivset_union(a, b, out);
	}
}

void rank_sets_build(const struct rank_store *rs, const struct ev_class *cls, struct rank_sets *s)
{
	struct ivset dev_comm, comm_lanes, fused;
	sets_init(s);
	ivset_init(&fused);
	ivset_init(&dev_comm);
	ivset_init(&comm_lanes);
	device_lanes(rs, cls, s, &dev_comm, &comm_lanes, &fused);
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *l = &rs->lanes[li];
		if (!lanes_group_is_host(l->group))
			continue;
		/* host lanes give only their copies and syncs here (host work: host_work_minus) */
		for (uint32_t k = 0; k < l->n_events; k++) {
			uint32_t ev = l->events[k];
			struct ev_class c = cls[ev];
			if ((c.flags & EVF_STEP_MARK) || (c.cat != CAT_COPY && !(c.flags & EVF_SYNC)))
				continue;
			int64_t a = store_ts(rs, ev), b = a + store_dur(rs, ev);
			/* copy directions are the device copies' alone (device_event): a host
			 * op's span holds its wait for the device, not the copy */
			if (c.cat == CAT_COPY)
				ivset_add(&s->host_copy, a, b);
			if (c.flags & EVF_SYNC)
				ivset_add(&s->sync, a, b);
		}
	}
	s->comm_from_lanes = comm_lanes.n > 0;
	/* the one kept is moved, not copied */
	struct ivset *keep = s->comm_from_lanes ? &comm_lanes : &dev_comm;
	s->comm = *keep;
	ivset_init(keep);
	/* MC2 kernels communicate without a collective on the HCCL lanes: theirs too */
	if (s->comm_from_lanes && fused.n) {
		struct ivset both;
		ivset_init(&both);
		ivset_union(&s->comm, &fused, &both);
		ivset_free(&s->comm);
		s->comm = both;
	}
	ivset_free(&fused);
	union_or_share(&s->compute, &s->comm, &s->compute_or_comm, &s->compute_or_comm_shared);
	ivset_free(&dev_comm);
	ivset_free(&comm_lanes);
}

/* Sets from kernel_details.csv alone, for captures exported without a trace. */
bool rank_sets_from_csv(const struct csv_table *k, struct rank_sets *s, int64_t *lo, int64_t *hi)
{
	sets_init(s);
	bool any = false;
	struct kernel_memo memo = {0};
	for (size_t r = 0; k && r < k->nrows; r++) {
		int64_t a, d;
		if (!csvt_time(k, r, COL_START, &a) || !csvt_time(k, r, COL_DURATION, &d) || d < 0)
			continue;
		struct ev_class c = evkind_kernel_class(&memo, k, r);
		if (c.flags & EVF_WAIT)
			continue;
		if (!any || a < *lo)
			*lo = a;
		if (!any || a + d > *hi)
			*hi = a + d;
		any = true;
		/* a collective's row spans its wait for peers: communication, not busy, as
		 * with a trace (where collectives sit on their own lanes) */
		if (c.cat == CAT_COMM) {
			ivset_add(&s->comm, a, a + d);
			continue;
		}
		ivset_add(&s->device_busy, a, a + d);
		if (c.cat == CAT_COPY)
			ivset_add(&s->dev_copy, a, a + d);
		else
			ivset_add(&s->compute, a, a + d);
	}
	evkind_kernel_memo_free(&memo);
	union_or_share(&s->compute, &s->comm, &s->compute_or_comm, &s->compute_or_comm_shared);
	return any;
}

void rank_sets_free(struct rank_sets *s)
{
	ivset_free(&s->device_busy);
	ivset_free(&s->compute);
	ivset_free(&s->dev_copy);
	ivset_free(&s->comm);
	ivset_free(&s->host_copy);
	ivset_free(&s->sync);
	ivset_free(&s->h2d);
	ivset_free(&s->d2h);
	if (!s->compute_or_comm_shared)
		ivset_free(&s->compute_or_comm);
	if (!s->occupied_shared)
		ivset_free(&s->occupied);
	ivset_free(&s->host_only);
	ivset_free(&s->host_dispatch);
}

/* ---- host work ---------------------------------------------------------------------- */

/* A host lane's work as merged spans, in start order: its events (step marks and empty
 * ones left out) with those that start within or at the end of the span so far joined to
 * it. Nested calls cost a comparison each. */
struct host_lane_spans {
	const struct rank_store *rs;
	const struct ev_class *cls;
	const struct lane *l;
	bool dispatch_only; /* only framework ops (cpu_op) and CANN API calls */
	uint32_t k;        /* the lane's next event */
	int64_t a, b;      /* the current span */
	bool has;
};

static inline __attribute__((always_inline)) bool host_event(struct host_lane_spans *h, uint32_t k, int64_t *a,
								 int64_t *b)
{
	uint32_t ev = h->l->events[k];
	if (h->cls[ev].flags & EVF_STEP_MARK)
		return false;
	if (h->dispatch_only && !(h->cls[ev].flags & EVF_DISPATCH) && h->l->group != LANE_HOST_CANN)
		return false;
	*a = store_ts(h->rs, ev);
	*b = *a + store_dur(h->rs, ev);
	return *b > *a;
}

static void host_lane_next(struct host_lane_spans *h)
{
	int64_t a, b;
	h->has = false;
	while (h->k < h->l->n_events && !host_event(h, h->k, &a, &b))
		h->k++;
	if (h->k >= h->l->n_events)
		return;
	h->a = a;
	h->b = b;
	h->has = true;
	for (h->k++; h->k < h->l->n_events; h->k++) {
		if (!host_event(h, h->k, &a, &b))
			continue;
		if (a > h->b)
			break;
		if (b > h->b)
			h->b = b;
	}
}

/* The first head's lane moves to its next span; a lane that has none leaves the heap. */
static void heads_advance(struct head *q, size_t *n, struct host_lane_spans *h)
{
	struct host_lane_spans *top = &h[q[0].lane];
	host_lane_next(top);
	if (top->has)
		q[0].a = top->a;
	else
		q[0] = q[--*n];
	if (*n)
		heads_sift_down(q, *n, 0);
}

/* Host-only work: the union of the host lanes' spans, merged across lanes as they come in
 * start order, minus `blocked` (normal), into out; returns the union's total. With
 * dispatch_only, only framework ops and CANN API calls count as work. */
static int64_t host_work_minus(const struct rank_store *rs, const struct ev_class *cls, struct ivset *blocked,
			       struct ivset *out, bool dispatch_only)
{
	size_t n = 0;
	struct host_lane_spans *h = xcalloc(rs->n_lanes ? rs->n_lanes : 1, sizeof *h);
	struct head *q = xmalloc((rs->n_lanes ? rs->n_lanes : 1) * sizeof *q);
	for (size_t li = 0; li < rs->n_lanes; li++)
		if (lanes_group_is_host(rs->lanes[li].group) && rs->lanes[li].n_events) {
			h[n] = (struct host_lane_spans){.rs = rs, .cls = cls, .l = &rs->lanes[li],
							.dispatch_only = dispatch_only};
			host_lane_next(&h[n]);
			if (h[n].has) {
				q[n] = (struct head){h[n].a, (uint32_t)n};
				n++;
			}
		}
	for (size_t i = n / 2; i-- > 0;)
		heads_sift_down(q, n, i);
	ivset_normalize(blocked);
	ivset_clear(out);
	int64_t total = 0, a = 0, b = 0;
	bool open = false;
	size_t j = 0; /* blocked intervals ending at or before the spans so far are passed */
	for (;;) {
		if (n && open && q[0].a <= b) {
			if (h[q[0].lane].b > b)
				b = h[q[0].lane].b;
			heads_advance(q, &n, h);
			continue;
		}
		if (open) {
			/* [a, b) is one interval of the union: its part outside blocked */
			total += b - a;
			int64_t cur = a;
			while (j < blocked->n && blocked->end[j] <= cur)
				j++;
			for (size_t k = j; k < blocked->n && blocked->start[k] < b; k++) {
				if (blocked->start[k] > cur)
					ivset_add(out, cur, blocked->start[k]);
				if (blocked->end[k] > cur)
					cur = blocked->end[k];
			}
			if (cur < b)
				ivset_add(out, cur, b);
		}
		if (!n)
			break;
		a = q[0].a;
		b = h[q[0].lane].b;
		open = true;
		heads_advance(q, &n, h);
	}
	free(q);
	free(h);
	out->normal = true;
	return total;
}

/* Only outside the occupied set is the device idle, and only then can it be waiting for
 * the host. Host time blocked in a sync op (.item, synchronize) is the host waiting for
 * the device, not work the device waits for. */
void rank_sets_derive(struct rank_sets *s, const struct rank_store *rs, const struct ev_class *cls,
			     bool has_trace)
{
	struct ivset blocked;
	bool blocked_shared;
	ivset_init(&s->occupied);
	ivset_init(&s->host_only);
	ivset_init(&s->host_dispatch);
	union_or_share(&s->device_busy, &s->comm, &s->occupied, &s->occupied_shared);
	s->host_total = 0;
	if (!has_trace)
		return;
	ivset_init(&blocked);
	union_or_share(&s->occupied, &s->sync, &blocked, &blocked_shared);
	s->host_total = host_work_minus(rs, cls, &blocked, &s->host_only, false);
	/* the attribution's split of host-only time: what of it is dispatch */
	host_work_minus(rs, cls, &blocked, &s->host_dispatch, true);
	if (!blocked_shared)
		ivset_free(&blocked);
}

/* The sets of a rank with a trace, derived ones included (host work is the slow part). */
static void *build_pending_sets(void *arg)
{
	struct pending_sets *p = arg;
	double t0 = stagetime_now();
	rank_sets_build(p->rs, p->cls, p->sets);
	rank_sets_derive(p->sets, p->rs, p->cls, true);
	stagetime_add(STAGE_SETS, t0);
	if (p->threaded) {
		pthread_mutex_lock(&p->lock);
		p->ready = true;
		pthread_cond_broadcast(&p->built);
		pthread_mutex_unlock(&p->lock);
		if (p->then)
			p->then(p->then_arg);
	}
	return NULL;
}

bool rank_sets_start(struct pending_sets *p, bool threaded)
{
	p->threaded = false;
	if (threaded) {
		pthread_mutex_init(&p->lock, NULL);
		pthread_cond_init(&p->built, NULL);
		p->ready = false;
		p->threaded = true;
		if (xthread_try_start(&p->builder, build_pending_sets, p))
			return true;
		pthread_cond_destroy(&p->built);
		pthread_mutex_destroy(&p->lock);
		p->threaded = false;
	}
	build_pending_sets(p);
	return false;
}

struct rank_sets *rank_sets_wait(struct pending_sets *p)
{
	if (p->threaded) {
		pthread_mutex_lock(&p->lock);
		while (!p->ready)
			pthread_cond_wait(&p->built, &p->lock);
		pthread_mutex_unlock(&p->lock);
	}
	return p->sets;
}

void rank_sets_join(struct pending_sets *p)
{
	if (!p->threaded)
		return;
	xthread_join(&p->builder);
	pthread_cond_destroy(&p->built);
	pthread_mutex_destroy(&p->lock);
	p->threaded = false;
}
