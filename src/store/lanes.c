/* SPDX-License-Identifier: MIT */
/* Lane classification, per-lane ordering and nesting, counters and flow resolution. */
#include "lanes.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "i18n.h"
#include "spill.h"
#include "stagetime.h"
#include "xalloc.h"
#include "xsort.h"
#include "xthread.h"

/* Below this many events and flow ends, finishing stays on one thread. */
#define FINISH_THREADED_MIN 200000

/* The one rule table: process name -> lane group. Real captures name the communication
 * process "HCCL"; newer exports call it "Communication". */
static const struct { const char *process; enum lane_group group; } group_rules[] = {
	{"Python", LANE_HOST_PYTHON},
	{"CANN", LANE_HOST_CANN},
	{"Python GC", LANE_HOST_GC},
	{"Ascend Hardware", LANE_DEVICE},
	{"HCCL", LANE_COMM},
	{"Communication", LANE_COMM},
	{"Overlap Analysis", LANE_OVERLAP},
};

enum lane_group lanes_group_for_process(const char *name)
{
	for (size_t i = 0; i < sizeof group_rules / sizeof group_rules[0]; i++)
		if (strcasecmp(name, group_rules[i].process) == 0)
			return group_rules[i].group;
	return LANE_OTHER;
}

const char *lanes_group_name(enum lane_group g)
{
	switch (g) {
	case LANE_HOST_PYTHON: return "host-python";
	case LANE_HOST_CANN: return "host-cann";
	case LANE_HOST_GC: return "host-gc";
	case LANE_DEVICE: return "device";
	case LANE_COMM: return "communication";
	case LANE_OVERLAP: return "overlap";
	case LANE_OTHER: return "other";
	case LANE_GROUP_COUNT: break;
	}
	return "?";
}

bool lanes_group_is_host(enum lane_group g)
{
	return g == LANE_HOST_PYTHON || g == LANE_HOST_CANN || g == LANE_HOST_GC;
}

/* Without a process name, the events tell: a Task Type or cat "kernel" means device
 * tasks; torch's own cats mean host. */
static enum lane_group guess_group(const struct rank_store *rs, const struct lane *l)
{
	size_t device = 0, host = 0;
	for (uint32_t i = 0; i < l->n_events; i++) {
		const struct ev_attr *a = store_ev_attr(rs, l->events[i]);
		const char *cat = store_str(rs, a->cat);
		if (a->task_type || strcasecmp(cat, "kernel") == 0)
			device++;
		else if (!strcmp(cat, "cpu_op") || !strcmp(cat, "python_function") ||
			 !strcmp(cat, "enqueue") || !strcmp(cat, "dequeue") ||
			 !strcmp(cat, "user_annotation"))
			host++;
	}
	if (device > host)
		return LANE_DEVICE;
	if (host > 0)
		return LANE_HOST_PYTHON;
	return LANE_OTHER;
}

static int parse_stream(const char *thread_name)
{
	if (strncasecmp(thread_name, "Stream ", 7) != 0)
		return -1;
	char *end;
	long v = strtol(thread_name + 7, &end, 10);
	return end != thread_name + 7 && v >= 0 && v < 1000000 ? (int)v : -1;
}

static int cmp_event(const void *a, const void *b, void *ctx)
{
	const struct rank_store *rs = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (store_ts(rs, x) != store_ts(rs, y))
		return store_ts(rs, x) < store_ts(rs, y) ? -1 : 1;
	if (store_dur(rs, x) != store_dur(rs, y))
		return store_dur(rs, x) > store_dur(rs, y) ? -1 : 1; /* the enclosing one first */
	return x < y ? -1 : x > y;
}

/* cmp_event's order, sorting the lane's event indices in place: start, then longer first,
 * then event index. Exporters write an enclosing event after the events it encloses (on
 * its end), and a host lane's operators and its enqueues as blocks per step: mostly one
 * sorted run, so few are set aside. The comparison reads the columns through
 * lane_sort_store, the store of the rank this thread is ordering: 24-byte sort keys of a
 * big host lane were the load's peak (36 MB for 1.5 M events). */
static _Thread_local const struct rank_store *lane_sort_store;
static inline bool event_less(const struct rank_store *rs, uint32_t x, uint32_t y)
{
	if (store_ts(rs, x) != store_ts(rs, y))
		return store_ts(rs, x) < store_ts(rs, y);
	int64_t dx = store_dur(rs, x), dy = store_dur(rs, y);
	return dx != dy ? dx > dy : x < y;
}
#define EVENT_INDEX_LESS(a, b) event_less(lane_sort_store, *(a), *(b))
XSORT_DEFINE_NEARLY(sort_lane_events, uint32_t, EVENT_INDEX_LESS)

static void sort_lane(const struct rank_store *rs, struct lane *l)
{
	lane_sort_store = rs;
	sort_lane_events_nearly(l->events, l->n_events);
	lane_sort_store = NULL;
}

static bool lane_sorted(const struct rank_store *rs, const struct lane *l)
{
	for (uint32_t i = 1; i < l->n_events; i++)
		if (cmp_event(&l->events[i - 1], &l->events[i], (void *)rs) > 0)
			return false;
	return true;
}

/* Depth per event. */
static void nest_lane(const struct rank_store *rs, struct lane *l)
{
	enum { MAX_DEPTH = 255 };
	int64_t stack[MAX_DEPTH];
	int top = 0;
	l->depth = spill_alloc(l->n_events ? l->n_events : 1);
	free(l->block_end);
	l->block_end = xmalloc(((l->n_events + LANE_BLOCK - 1) / LANE_BLOCK + 1) * sizeof *l->block_end);
	l->depth_max = l->n_events ? 1 : 0;
	l->first_ts = l->n_events ? store_ts(rs, l->events[0]) : 0;
	l->last_end = 0;
	for (uint32_t i = 0; i < l->n_events; i++) {
		uint32_t ev = l->events[i];
		int64_t ts = store_ts(rs, ev), end = ts + store_dur(rs, ev);
		while (top > 0 && stack[top - 1] <= ts)
			top--;
		l->depth[i] = (uint8_t)(top < MAX_DEPTH ? top : MAX_DEPTH - 1);
		if (top < MAX_DEPTH)
			stack[top++] = end;
		if (top > l->depth_max)
			l->depth_max = top;
		if (end > l->last_end)
			l->last_end = end;
		if (i % LANE_BLOCK == 0 || end > l->block_end[i / LANE_BLOCK])
			l->block_end[i / LANE_BLOCK] = end;
	}
}

static void count_lane_events(struct rank_store *rs)
{
	for (size_t i = 0; i < rs->n_lanes; i++)
		rs->lanes[i].n_events = 0;
	for (size_t e = 0; e < rs->n_ev; e++)
		rs->lanes[store_ev_lane_id(rs, e)].n_events++;
}

static void fill_lane_events(struct rank_store *rs)
{
	for (size_t i = 0; i < rs->n_lanes; i++) {
		struct lane *l = &rs->lanes[i];
		l->events = spill_alloc((l->n_events ? l->n_events : 1) * sizeof *l->events);
		l->n_events = 0;
	}
	for (size_t e = 0; e < rs->n_ev; e++) {
		struct lane *l = &rs->lanes[store_ev_lane_id(rs, e)];
		l->events[l->n_events++] = (uint32_t)e;
	}
}

/* The lanes to order, biggest first, each taken by whichever thread is free. */
struct lane_work {
	struct rank_store *rs;
	struct lane_size {
		uint32_t n_events, lane;
	} *by_size;
	atomic_size_t next;
};

static int cmp_lane_size(const void *a, const void *b)
{
	const struct lane_size *x = a, *y = b;
	if (x->n_events != y->n_events)
		return x->n_events > y->n_events ? -1 : 1;
	return x->lane < y->lane ? -1 : x->lane > y->lane;
}

static void lane_work_init(struct lane_work *w, struct rank_store *rs)
{
	w->rs = rs;
	w->by_size = xmalloc((rs->n_lanes ? rs->n_lanes : 1) * sizeof *w->by_size);
	for (size_t i = 0; i < rs->n_lanes; i++)
		w->by_size[i] = (struct lane_size){rs->lanes[i].n_events, (uint32_t)i};
	xqsort(w->by_size, rs->n_lanes, sizeof *w->by_size, cmp_lane_size);
	atomic_init(&w->next, 0);
}

/* Per lane: events sorted and nested. */
static void order_lanes(struct lane_work *w)
{
	for (size_t k; (k = atomic_fetch_add(&w->next, 1)) < w->rs->n_lanes;) {
		uint32_t i = w->by_size[k].lane;
		struct lane *l = &w->rs->lanes[i];
		if (!lane_sorted(w->rs, l))
			sort_lane(w->rs, l);
		nest_lane(w->rs, l);
	}
}

static void classify(struct rank_store *rs)
{
	for (size_t i = 0; i < rs->n_lanes; i++) {
		struct lane *l = &rs->lanes[i];
		const char *pname = store_str(rs, l->process_name);
		if (l->process_name) {
			l->group = lanes_group_for_process(pname);
			l->group_guessed = false;
		} else {
			l->group = guess_group(rs, l);
			l->group_guessed = true;
		}
		if (l->group == LANE_DEVICE) {
			l->stream = parse_stream(store_str(rs, l->thread_name));
			if (l->stream < 0) {
				char *end;
				const char *tid = store_str(rs, l->tid_text);
				long v = strtol(tid, &end, 10);
				if (*tid && !*end && v >= 0 && v < 1000000)
					l->stream = (int)v;
			}
		}
	}
}

static void build_window(struct rank_store *rs)
{
	rs->has_events = rs->n_ev > 0;
	rs->window_start = rs->window_end = 0;
	for (size_t e = 0; e < rs->n_ev; e++) {
		int64_t ts = store_ts(rs, e), end = ts + store_dur(rs, e);
		if (e == 0 || ts < rs->window_start)
			rs->window_start = ts;
		if (e == 0 || end > rs->window_end)
			rs->window_end = end;
	}
}

static int cmp_sample(const void *a, const void *b, void *ctx)
{
	const struct rank_store *rs = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (rs->ctr_ts[x] != rs->ctr_ts[y])
		return rs->ctr_ts[x] < rs->ctr_ts[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void build_tracks(struct rank_store *rs)
{
	for (size_t t = 0; t < rs->n_tracks; t++)
		rs->tracks[t].n_samples = 0;
	for (size_t c = 0; c < rs->n_ctr; c++)
		rs->tracks[rs->ctr_track[c]].n_samples++;
	for (size_t t = 0; t < rs->n_tracks; t++) {
		struct counter_track *tr = &rs->tracks[t];
		tr->samples = xmalloc((tr->n_samples ? tr->n_samples : 1) * sizeof *tr->samples);
		tr->n_samples = 0;
	}
	for (size_t c = 0; c < rs->n_ctr; c++) {
		struct counter_track *tr = &rs->tracks[rs->ctr_track[c]];
		tr->samples[tr->n_samples++] = (uint32_t)c;
	}
	for (size_t t = 0; t < rs->n_tracks; t++)
		xqsort_r(rs->tracks[t].samples, rs->tracks[t].n_samples, sizeof(uint32_t), cmp_sample, rs);
}

/* The innermost event enclosing ts on lane l, given after = the number of its events
 * starting at or before ts. */
static uint32_t enclosing_event(const struct rank_store *rs, const struct lane *l, uint32_t after,
				int64_t ts)
{
	/* walk back to the innermost enclosing event; nesting is shallow */
	for (uint32_t k = after, steps = 0; k > 0 && steps < 256; k--, steps++) {
		uint32_t ev = l->events[k - 1];
		if (store_ts(rs, ev) + store_dur(rs, ev) >= ts)
			return ev;
		if (l->depth[k - 1] == 0)
			break; /* a top-level event that ended before ts: nothing earlier encloses */
	}
	return UINT32_MAX;
}

size_t lanes_visit_in(const struct rank_store *rs, const struct lane *l, int64_t t0, int64_t t1,
		      void (*fn)(void *ctx, uint32_t ev), void *ctx, size_t *from_before)
{
	uint32_t a = store_lane_lower_bound(rs, l, t0), b = store_lane_lower_bound(rs, l, t1);
	size_t before = 0;
	/* those starting before t0 and still running, latest first: back over the lane, blocks
	 * that all ended by t0 skipped, down to an event with nothing open at its start
	 * (depth 0) that ended by t0: everything before it ended before it began. Improperly
	 * nested events (a child outliving its parent) are found too. */
	for (uint32_t k = a; k > 0;) {
		uint32_t blk = (k - 1) / LANE_BLOCK;
		if (l->block_end[blk] <= t0) {
			k = blk * LANE_BLOCK;
			continue;
		}
		bool done = false;
		for (; k > blk * LANE_BLOCK; k--) {
			uint32_t ev = l->events[k - 1];
			bool open = store_ts(rs, ev) + store_dur(rs, ev) > t0;
			if (open) {
				before++;
				if (fn)
					fn(ctx, ev);
			} else if (l->depth[k - 1] == 0) {
				done = true;
				break;
			}
		}
		if (done)
			break;
	}
	for (uint32_t k = a; fn && k < b; k++)
		fn(ctx, l->events[k]);
	if (from_before)
		*from_before = before;
	return (size_t)(b - a) + before;
}

size_t lanes_events_in(const struct rank_store *rs, const struct lane *l, int64_t t0, int64_t t1,
		       size_t *from_before)
{
	return lanes_visit_in(rs, l, t0, t1, NULL, NULL, from_before);
}

uint32_t lanes_event_at(const struct rank_store *rs, uint32_t lane_idx, int64_t ts)
{
	if (lane_idx >= rs->n_lanes)
		return UINT32_MAX;
	const struct lane *l = &rs->lanes[lane_idx];
	/* last event starting at or before ts */
	uint32_t lo = (uint32_t)store_evs_upper_bound(rs, l->events, 0, l->n_events, ts);
	return enclosing_event(rs, l, lo, ts);
}

/* The number of the lane's events starting at or before t (they are in start order),
 * searched outward from hint, where the last search on the lane ended: flow ends come
 * mostly in time order, so this is a step or two rather than a binary search. The start
 * times are read through the lane's event indices: a copy of them would be the load's
 * peak (8 bytes an event) for a few milliseconds saved. */
static uint32_t count_starts_upto(const struct rank_store *rs, const struct lane *l, int64_t t, uint32_t hint)
{
	const uint32_t *ev = l->events;
	uint32_t n = l->n_events, lo, hi, step = 1;
	if (hint > n)
		hint = n;
	if (hint < n && store_ts(rs, ev[hint]) <= t) {
		lo = hint + 1; /* gallop forward: start of lo - 1 <= t */
		while (lo + step - 1 < n && store_ts(rs, ev[lo + step - 1]) <= t) {
			lo += step;
			step *= 2;
		}
		hi = lo + step - 1 < n ? lo + step - 1 : n;
	} else {
		hi = hint; /* gallop backward: hi == n or start of hi > t */
		while (hi >= step && store_ts(rs, ev[hi - step]) > t) {
			hi -= step;
			step *= 2;
		}
		lo = hi >= step ? hi - step + 1 : 0;
	}
	return (uint32_t)store_evs_upper_bound(rs, ev, lo, hi, t);
}

static int flow_id_cmp(const struct flow *a, const struct flow *b)
{
	if (a->cat != b->cat)
		return a->cat < b->cat ? -1 : 1;
	if (a->id_is_text != b->id_is_text)
		return a->id_is_text ? 1 : -1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* Groups by id, then starts before finishes and steps, then by time. */
#define FLOW_LESS(a, b)                                                                    \
	((a)->cat != (b)->cat ? (a)->cat < (b)->cat                                        \
	 : (a)->id_is_text != (b)->id_is_text ? (a)->id_is_text < (b)->id_is_text          \
	 : (a)->id != (b)->id ? (a)->id < (b)->id                                           \
	 : (a)->ph != (b)->ph ? (a)->ph < (b)->ph : (a)->ts < (b)->ts)
/* Flow ends come mostly in id order within a cat (each 's' beside its 'f'), but a trace
 * interleaves two or three cats, so the nearly-sorted sort sets about a quarter of them
 * aside. That copy is why they are sorted before the lanes' event lists exist (the two
 * were the load's peak). Sorted through 4-byte indices instead, the ends had to be moved
 * into their order afterwards at random, which took four times the sort. */
XSORT_DEFINE_NEARLY(sort_flow_ends, struct flow, FLOW_LESS)

static void *sort_flows_job(void *arg)
{
	struct rank_store *rs = arg;
	sort_flow_ends_nearly(rs->flows, rs->n_flows);
	return NULL;
}

static void *order_lanes_job(void *arg)
{
	order_lanes(arg);
	return NULL;
}

#define LINK_LESS(a, b) ((a)->from_ev != (b)->from_ev ? (a)->from_ev < (b)->from_ev : (a)->to_ev < (b)->to_ev)
XSORT_DEFINE(sort_links, struct flow_link, LINK_LESS)

/* Links from a run of the sorted flow ends [begin, end) that starts and ends at group
 * boundaries; each half of a big trace's flows is one job. */
struct link_job {
	const struct rank_store *rs;
	const struct flow *sorted; /* the rank's, released as they are resolved */
	size_t begin, end;
	uint32_t *hint; /* per lane: where the last search on it ended */
	struct flow_link *links;
	size_t n_links, cap, unmatched;
};

static uint32_t job_event_at(struct link_job *j, uint32_t lane, int64_t ts)
{
	if (lane >= j->rs->n_lanes)
		return UINT32_MAX;
	const struct lane *l = &j->rs->lanes[lane];
	uint32_t after = count_starts_upto(j->rs, l, ts, j->hint[lane]);
	j->hint[lane] = after;
	return enclosing_event(j->rs, l, after, ts);
}

static void *resolve_links(void *arg)
{
	struct link_job *job = arg;
	const struct flow *sorted = job->sorted;
	job->hint = xcalloc(job->rs->n_lanes ? job->rs->n_lanes : 1, sizeof *job->hint);
	/* an eighth of the job between two releases: each is a round of TLB shootdowns */
	size_t released = job->begin * sizeof *sorted, last = job->begin;
	size_t step = (job->end - job->begin) / 8 > 16384 ? (job->end - job->begin) / 8 : 16384;
	for (size_t i = job->begin; i < job->end;) {
		/* the ends behind are done with: their pages go back while the links grow (the
		 * two together were the load's peak) */
		if (i - last >= step) {
			released = spill_release((void *)sorted, released, i * sizeof *sorted);
			last = i;
		}
		size_t j = i + 1;
		while (j < job->end && flow_id_cmp(&sorted[i], &sorted[j]) == 0)
			j++;
		/* one group: the 's' events come first, then 't'/'f' */
		const struct flow *start = sorted[i].ph == FLOW_START ? &sorted[i] : NULL;
		bool linked = false;
		if (start) {
			uint32_t from = job_event_at(job, start->lane, start->ts);
			for (size_t k = i + 1; k < j; k++) {
				if (sorted[k].ph != FLOW_FINISH)
					continue;
				uint32_t to = job_event_at(job, sorted[k].lane, sorted[k].ts);
				if (from != UINT32_MAX && to != UINT32_MAX) {
					spill_grow(&job->links, &job->cap, job->n_links + 1, sizeof *job->links);
					job->links[job->n_links++] = (struct flow_link){from, to};
					linked = true;
				}
			}
		}
		if (!linked)
			job->unmatched += j - i;
		i = j;
	}
	free(job->hint);
	sort_links(job->links, job->n_links);
	return NULL;
}

/* Resolves the sorted flow ends into links, in two halves when threaded (split at a group
 * boundary). Each half sorts its links; merging them with ties from the first half is the
 * stable sort of the whole, so the result is the serial one. */
static void build_links(struct rank_store *rs, bool threaded)
{
	if (rs->n_flows == 0)
		return;
	const struct flow *sorted = rs->flows;
	size_t mid = threaded ? rs->n_flows / 2 : rs->n_flows;
	while (mid > 0 && mid < rs->n_flows && flow_id_cmp(&sorted[mid - 1], &sorted[mid]) == 0)
		mid++;
	struct link_job jobs[2] = {
		{.rs = rs, .sorted = sorted, .begin = 0, .end = mid},
		{.rs = rs, .sorted = sorted, .begin = mid, .end = rs->n_flows},
	};
	struct xthread helper;
	xthread_start(&helper, resolve_links, &jobs[1], threaded && mid < rs->n_flows);
	resolve_links(&jobs[0]);
	xthread_join(&helper);
	/* the flow ends are needed only up to here: freed before the halves are joined, which
	 * would otherwise be the load's peak */
	spill_free(rs->flows);
	rs->flows = NULL;
	const struct flow_link *a = jobs[0].links, *b = jobs[1].links;
	size_t na = jobs[0].n_links, nb = jobs[1].n_links;
	if (nb == 0) {
		rs->links = jobs[0].links;
	} else {
		rs->links = spill_alloc((na + nb) * sizeof *rs->links);
		size_t i = 0, j = 0, k = 0;
		while (i < na && j < nb)
			rs->links[k++] = LINK_LESS(&b[j], &a[i]) ? b[j++] : a[i++];
		memcpy(rs->links + k, a + i, (na - i) * sizeof *a);
		memcpy(rs->links + k + (na - i), b + j, (nb - j) * sizeof *b);
		spill_free(jobs[0].links);
	}
	rs->n_links = na + nb;
	spill_free(jobs[1].links);
	rs->unmatched_flows += jobs[0].unmatched + jobs[1].unmatched;
}

#define LINK_BEFORE(links, i, k) ((links)[i].from_ev < (k))
LOWER_BOUND_DEFINE(link_lower_bound, const struct flow_link *, uint32_t, LINK_BEFORE)

size_t lanes_links_from(const struct rank_store *rs, uint32_t ev, uint32_t *out, size_t max)
{
	size_t lo = link_lower_bound(rs->links, ev, 0, rs->n_links);
	size_t n = 0;
	for (size_t i = lo; i < rs->n_links && rs->links[i].from_ev == ev; i++, n++)
		if (n < max)
			out[n] = rs->links[i].to_ev;
	return n;
}

size_t lanes_links_to(const struct rank_store *rs, uint32_t ev, uint32_t *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < rs->n_links; i++)
		if (rs->links[i].to_ev == ev) {
			if (n < max)
				out[n] = rs->links[i].from_ev;
			n++;
		}
	return n;
}

static int group_rank(enum lane_group g)
{
	switch (g) {
	case LANE_HOST_PYTHON: return 0;
	case LANE_HOST_CANN: return 1;
	case LANE_HOST_GC: return 2;
	case LANE_DEVICE: return 3;
	case LANE_COMM: return 4;
	case LANE_OVERLAP: return 5;
	default: return 6;
	}
}

static int cmp_display(const void *a, const void *b, void *ctx)
{
	const struct rank_store *rs = ctx;
	const struct lane *x = &rs->lanes[*(const uint32_t *)a], *y = &rs->lanes[*(const uint32_t *)b];
	int gx = group_rank(x->group), gy = group_rank(y->group);
	if (gx != gy)
		return gx - gy;
	if (x->process_name != y->process_name) {
		int c = strcmp(store_str(rs, x->process_name), store_str(rs, y->process_name));
		if (c)
			return c;
	}
	if (x->group == LANE_DEVICE && x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->has_thread_sort && y->has_thread_sort && x->thread_sort != y->thread_sort)
		return x->thread_sort < y->thread_sort ? -1 : 1;
	int c = strcmp(store_str(rs, x->thread_name), store_str(rs, y->thread_name));
	if (c)
		return c;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

void lanes_display_order(const struct rank_store *rs, uint32_t *order)
{
	for (size_t i = 0; i < rs->n_lanes; i++)
		order[i] = (uint32_t)i;
	xqsort_r(order, rs->n_lanes, sizeof *order, cmp_display, (void *)rs);
}

void lanes_finish(struct rank_store *rs, const char *name, struct diag_list *dl)
{
	/* a second thread when the walk used one and there is enough to share */
	double t0 = stagetime_now();
	bool threaded = rs->trace.threads_used > 1 && rs->n_ev + rs->n_flows >= FINISH_THREADED_MIN;
	/* The flow ends are sorted beside the lanes' event lists: both are spilled (spill.h),
	 * so together they no longer make the peak of private memory they once did (the
	 * lists were filled after the sort then, with a core idle). */
	struct xthread helper;
	xthread_start(&helper, sort_flows_job, rs, threaded);
	count_lane_events(rs);
	build_window(rs);
	build_tracks(rs);
	fill_lane_events(rs);
	xthread_join(&helper);
	struct lane_work work;
	lane_work_init(&work, rs);
	xthread_start(&helper, order_lanes_job, &work, threaded);
	order_lanes(&work);
	xthread_join(&helper);
	classify(rs); /* reads the events of lanes without metadata: after every lane is ordered */
	double t_links = stagetime_add(STAGE_LANES, t0);
	build_links(rs, threaded);
	stagetime_add(STAGE_LINKS, t_links);
	free(work.by_size);
	size_t guessed = 0;
	for (size_t i = 0; i < rs->n_lanes; i++)
		guessed += rs->lanes[i].group_guessed && rs->lanes[i].n_events > 0;
	if (guessed)
		diag_add(dl, DIAG_INFO, name, 0, -1,
			 _("%zu lane(s) have no process_name metadata; grouped by their events' cat and "
			 "Task Type"),
			 guessed);
}
