/* SPDX-License-Identifier: MIT */
/* The device-idle gaps of a rank's window and their causes (gaps.h). The gaps are walked
 * twice: the first walk notes the device task that ends each gap, the links are then read
 * once for those tasks (which host call launched them, and when), and the second walk reads
 * each gap's cause. The tasks are found by one cursor per device lane that only moves
 * forward: gaps come in time order. */
#include "gaps.h"

#include <stdlib.h>
#include <string.h>

#include "category.h"
#include "cmp.h"
#include "lanes.h"
#include "lower_bound.h"
#include "rank_sets.h"
#include "strtab.h"
#include "result.h"
#include "xalloc.h"

static const char *const cause_names[GAP_CAUSE_COUNT] = {
#define GAP_CAUSE_NAME(id, key) [GAP_##id] = key,
	GAP_CAUSES(GAP_CAUSE_NAME)
#undef GAP_CAUSE_NAME
};

static const char *const host_names[GAP_HOST_COUNT] = {
#define GAP_HOST_NAME(id, key) [GAP_HOST_##id] = key,
	GAP_HOSTS(GAP_HOST_NAME)
#undef GAP_HOST_NAME
};

const char *gaps_cause_name(enum gap_cause c)
{
	return (unsigned)c < GAP_CAUSE_COUNT ? cause_names[c] : "?";
}

const char *gaps_host_name(enum gap_host h)
{
	return (unsigned)h < GAP_HOST_COUNT ? host_names[h] : "?";
}

struct gap_walk {
	const struct rank_store *rs;
	const struct ev_class *cls;
	struct rank_sets *s;
	struct rank_analysis *ra;
	struct gap_analysis *out;
	bool trace;           /* events to read: lanes, links, host lanes */
	bool classify;        /* the second walk */
	struct ivset waits;   /* device wait tasks (Notify Wait ...): the device waits for a peer */
	struct ivset host_comm; /* host communication calls (HCCL APIs, hcom ops) */
	struct ivset gc;      /* the Python GC lane */
	struct ivset replays; /* host graph replay calls (aclmdlRIExecute*) */
	uint32_t *dev_lanes;  /* owned: device lanes with events */
	uint32_t *cursor;     /* owned: per device lane, its first event starting at or after the
			       * last time asked */
	size_t n_dev;
	int64_t *cuts;        /* owned: the steps' starts and ends, sorted, when the steps are
			       * the host's (markers, engine ops): bounds read from the device
			       * leave nothing between steps */
	size_t n_cuts;
	size_t step_hint;
	/* the tasks that end a gap, as a bit per event, and for each of them (by its rank among
	 * the set bits: a few bytes a gap, where a map would take tens) 1 + its
	 * earliest-starting launcher, 0 when no link reaches it */
	uint64_t *wanted;     /* owned */
	uint32_t *rank_base;  /* owned: set bits in the words before each word */
	uint32_t *launch;     /* owned */
	int64_t gap_end;      /* the gap being read ends here */
};

/* The device task (not a wait) starting at t, or UINT32_MAX; moves the cursors to t. */
static uint32_t task_starting_at(struct gap_walk *g, int64_t t)
{
	const struct rank_store *rs = g->rs;
	uint32_t found = UINT32_MAX;
	for (size_t i = 0; i < g->n_dev; i++) {
		const struct lane *l = &rs->lanes[g->dev_lanes[i]];
		uint32_t c = g->cursor[i];
		while (c < l->n_events && store_ts(rs, l->events[c]) < t)
			c++;
		g->cursor[i] = c;
		for (uint32_t k = c; k < l->n_events && store_ts(rs, l->events[k]) == t && found == UINT32_MAX; k++)
			if (!(g->cls[l->events[k]].flags & EVF_WAIT))
				found = l->events[k];
	}
	return found;
}

/* A host call that replays a captured graph; names memoised per string id (0 unknown, 1
 * no, 2 yes). */
static bool replay_call(const struct rank_store *rs, uint8_t *memo, uint32_t ev)
{
	uint32_t id = rs->ev_name[ev];
	if (!memo[id])
		memo[id] = strstr(store_str(rs, id), "aclmdlRIExecute") ? 2 : 1;
	return memo[id] == 2;
}

static void want(struct gap_walk *g, uint32_t ev)
{
	if (ev != UINT32_MAX)
		g->wanted[ev / 64] |= UINT64_C(1) << (ev % 64);
}

/* The rank of a wanted event among the wanted ones. */
static uint32_t wanted_rank(const struct gap_walk *g, uint32_t ev)
{
	uint64_t below = g->wanted[ev / 64] & ((UINT64_C(1) << (ev % 64)) - 1);
	return g->rank_base[ev / 64] + (uint32_t)__builtin_popcountll(below);
}

static bool is_wanted(const struct gap_walk *g, uint32_t ev)
{
	return ev < g->rs->n_ev && (g->wanted[ev / 64] >> (ev % 64) & 1);
}

/* 1 + the host event that launched ev (the earliest-starting), 0 when none does. */
static uint32_t launcher(const struct gap_walk *g, uint32_t ev)
{
	return ev != UINT32_MAX && is_wanted(g, ev) ? g->launch[wanted_rank(g, ev)] : 0;
}

/* What the host lanes show over [p, q): the attribution's host layer holding most of it. */
static enum gap_host host_during(struct gap_walk *g, int64_t p, int64_t q)
{
	if (!g->trace)
		return GAP_HOST_UNKNOWN;
	struct rank_sets *s = g->s;
	int64_t sync = ivset_total_in(&s->sync, p, q);
	int64_t copy = ivset_total_in(&s->host_copy, p, q);
	int64_t dispatch = ivset_total_in(&s->host_dispatch, p, q);
	int64_t gc = ivset_total_in(&g->gc, p, q);
	int64_t python = ivset_total_in(&s->host_only, p, q) - dispatch - gc;
	int64_t v[] = {0, sync, copy, dispatch, gc, python};
	enum gap_host h[] = {GAP_HOST_NONE, GAP_HOST_SYNC, GAP_HOST_COPY, GAP_HOST_DISPATCH, GAP_HOST_GC,
			     GAP_HOST_PYTHON};
	size_t best = 0;
	for (size_t k = 1; k < sizeof v / sizeof v[0]; k++)
		if (v[k] > v[best])
			best = k;
	return h[best];
}

static void record(struct gap_walk *g, int64_t p, int64_t q, enum gap_cause cause, enum gap_host host, size_t step)
{
	struct gap_analysis *o = g->out;
	int64_t dur = q - p;
	o->count++;
	o->total_ns += dur;
	o->by_cause[cause] += dur;
	if (cause == GAP_NO_DISPATCH)
		o->no_dispatch_by_host[host] += dur;
	/* the longest kept, longest first; an equal one found later stays after */
	if (o->n_top == GAPS_TOP && dur <= o->top[GAPS_TOP - 1].dur)
		return;
	size_t at = o->n_top < GAPS_TOP ? o->n_top++ : GAPS_TOP - 1;
	while (at > 0 && o->top[at - 1].dur < dur) {
		o->top[at] = o->top[at - 1];
		at--;
	}
	o->top[at] = (struct gap){.start = p, .dur = dur, .step = step == SIZE_MAX ? -1 : (int32_t)step,
				  .cause = (uint8_t)cause, .host = (uint8_t)host};
}

/* The step whose marker span holds [p, q) (cut at every span's bounds: inside or outside
 * each), or SIZE_MAX; *shown gets the step the piece is shown with: the one whose window
 * holds the gap's end (the step its next task runs in) when the bounds are the device's, or
 * when the piece lies between two spans, else the one holding p. */
static size_t step_holding(struct gap_walk *g, int64_t p, int64_t q, size_t *shown)
{
	const struct rank_analysis *ra = g->ra;
	*shown = SIZE_MAX;
	if (!ra->n_steps)
		return SIZE_MAX;
	size_t k = analysis_step_at_near(ra, p, &g->step_hint);
	/* the window's step, or the one before when markers overlap the next window */
	for (size_t n = 0, c = k; n < 2 && c < ra->n_steps; n++, c = c ? c - 1 : SIZE_MAX) {
		const struct step *st = &ra->steps[c];
		if (g->n_cuts && st->has_window && st->start <= p && q <= st->end) {
			*shown = c;
			return c;
		}
	}
	size_t next = result_step_at(ra, g->n_cuts ? q : g->gap_end);
	*shown = next != SIZE_MAX ? next : k;
	return SIZE_MAX;
}

/* One piece [p, q) of a gap that ends at b, where the task `after` starts: its cause from
 * what surrounds it. */
static void piece(struct gap_walk *g, int64_t p, int64_t q, int64_t b, uint32_t after)
{
	size_t win;
	size_t in_step = step_holding(g, p, q, &win);
	enum gap_host host = host_during(g, p, q);
	if (g->n_cuts && in_step == SIZE_MAX) {
		record(g, p, q, GAP_BETWEEN_STEPS, host, win);
		return;
	}
	int64_t len = q - p;
	if (g->trace) {
		int64_t waited = ivset_total_in(&g->waits, p, q), called = ivset_total_in(&g->host_comm, p, q);
		if (2 * (waited > called ? waited : called) >= len) {
			record(g, p, q, GAP_PEER_WAIT, host, win);
			return;
		}
		uint32_t l = q == b ? launcher(g, after) : 0;
		if (l && store_ts(g->rs, l - 1) <= p) {
			record(g, p, q, GAP_LAUNCH_LATENCY, host, win);
			return;
		}
		/* the host in a graph replay call: the device waits for the next replay's tasks */
		if (2 * ivset_total_in(&g->replays, p, q) >= len) {
			record(g, p, q, GAP_BETWEEN_GRAPH_REPLAYS, host, win);
			return;
		}
	}
	record(g, p, q, g->trace ? GAP_NO_DISPATCH : GAP_UNKNOWN, host, win);
}

/* One interior gap [a, b): the tasks beside it noted (first walk) or its pieces between the
 * steps' bounds read (second walk). */
static void gap(struct gap_walk *g, int64_t a, int64_t b)
{
	uint32_t after = g->trace ? task_starting_at(g, b) : UINT32_MAX;
	if (!g->classify) {
		want(g, after);
		return;
	}
	g->gap_end = b;
	int64_t p = a;
	size_t c = i64_upper_bound(g->cuts, a, 0, g->n_cuts);
	for (; c < g->n_cuts && g->cuts[c] < b; c++) {
		if (g->cuts[c] > p) {
			piece(g, p, g->cuts[c], b, after);
			p = g->cuts[c];
		}
	}
	piece(g, p, b, b, after);
}

static void walk(struct gap_walk *g, int64_t span_lo, int64_t span_hi)
{
	const struct ivset *occ = &g->s->occupied;
	if (g->n_dev) /* no device lane: no cursor array (memset of NULL is undefined, even for 0) */
		memset(g->cursor, 0, g->n_dev * sizeof *g->cursor);
	g->step_hint = 0;
	for (size_t i = 0; i + 1 < occ->n; i++) {
		int64_t a = occ->end[i] > span_lo ? occ->end[i] : span_lo;
		int64_t b = occ->start[i + 1] < span_hi ? occ->start[i + 1] : span_hi;
		if (a < b)
			gap(g, a, b);
	}
}

/* The helper sets and lanes read from the events: device waits, host communication calls,
 * the GC lane, the device lanes. */
static void walk_prepare(struct gap_walk *g)
{
	const struct rank_store *rs = g->rs;
	g->dev_lanes = xmalloc((rs->n_lanes ? rs->n_lanes : 1) * sizeof *g->dev_lanes);
	uint32_t n_names = strtab_count(rs->strs);
	uint8_t *replay_names = xcalloc(n_names ? n_names : 1, 1);
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *l = &rs->lanes[li];
		if (l->group == LANE_DEVICE && l->n_events)
			g->dev_lanes[g->n_dev++] = (uint32_t)li;
		if (l->group != LANE_DEVICE && !lanes_group_is_host(l->group))
			continue;
		for (uint32_t k = 0; k < l->n_events; k++) {
			uint32_t ev = l->events[k];
			int64_t t = store_ts(rs, ev), e = t + store_dur(rs, ev);
			if (l->group == LANE_DEVICE) {
				if (g->cls[ev].flags & EVF_WAIT)
					ivset_add(&g->waits, t, e);
			} else if (l->group == LANE_HOST_GC) {
				ivset_add(&g->gc, t, e);
			} else if (g->cls[ev].cat == CAT_COMM) {
				ivset_add(&g->host_comm, t, e);
			} else if (replay_call(rs, replay_names, ev)) {
				ivset_add(&g->replays, t, e);
			}
		}
	}
	ivset_normalize(&g->waits);
	ivset_normalize(&g->gc);
	ivset_normalize(&g->host_comm);
	ivset_normalize(&g->replays);
	free(replay_names);
	g->cursor = xcalloc(g->n_dev ? g->n_dev : 1, sizeof *g->cursor);
	g->wanted = xcalloc(rs->n_ev / 64 + 1, sizeof *g->wanted);
}

/* Each wanted task's earliest-starting launcher, from one pass over the links. */
static void read_launches(struct gap_walk *g)
{
	const struct rank_store *rs = g->rs;
	size_t words = rs->n_ev / 64 + 1;
	g->rank_base = xmalloc(words * sizeof *g->rank_base);
	uint32_t n = 0;
	for (size_t w = 0; w < words; w++) {
		g->rank_base[w] = n;
		n += (uint32_t)__builtin_popcountll(g->wanted[w]);
	}
	g->launch = xcalloc(n ? n : 1, sizeof *g->launch);
	for (size_t i = 0; i < rs->n_links; i++) {
		uint32_t to = rs->links[i].to_ev, from = rs->links[i].from_ev;
		if (from >= rs->n_ev || !is_wanted(g, to))
			continue;
		uint32_t *v = &g->launch[wanted_rank(g, to)];
		if (!*v || store_ts(rs, from) < store_ts(rs, *v - 1))
			*v = from + 1;
	}
}

void gaps_rank(const struct rank_store *rs, const struct ev_class *cls, struct rank_sets *s,
	       struct rank_analysis *ra, int64_t lo, int64_t hi)
{
	struct gap_analysis *o = &ra->gaps;
	memset(o, 0, sizeof *o);
	if (!ra->attr.valid || hi <= lo)
		return;
	o->valid = true;
	struct gap_walk g = {.rs = rs, .cls = cls, .s = s, .ra = ra, .out = o, .trace = ra->has_trace && rs->n_ev};
	ivset_init(&g.waits);
	ivset_init(&g.host_comm);
	ivset_init(&g.gc);
	ivset_init(&g.replays);
	g.cuts = xmalloc((2 * ra->n_steps + 1) * sizeof *g.cuts);
	bool host_bounds = ra->step_source == STEP_SRC_PROFILER_STEP || ra->step_source == STEP_SRC_MSTX ||
			   ra->step_source == STEP_SRC_ENGINE;
	for (size_t k = 0; host_bounds && k < ra->n_steps; k++) {
		if (!ra->steps[k].has_window)
			continue;
		g.cuts[g.n_cuts++] = ra->steps[k].start;
		g.cuts[g.n_cuts++] = ra->steps[k].end;
	}
	qsort(g.cuts, g.n_cuts, sizeof *g.cuts, cmp_i64);
	if (g.trace)
		walk_prepare(&g);
	int64_t span_lo = ra->attr.span_lo, span_hi = ra->attr.span_hi;
	size_t hint = 0;
	/* the edges first, then the gaps inside in time order (the top keeps earlier first) */
	if (span_lo > lo)
		record(&g, lo, span_lo, GAP_CAPTURE_EDGE, GAP_HOST_UNKNOWN,
		       ra->n_steps ? analysis_step_at_near(ra, lo, &hint) : SIZE_MAX);
	if (g.trace) {
		walk(&g, span_lo, span_hi);
		read_launches(&g);
	}
	g.classify = true;
	walk(&g, span_lo, span_hi);
	if (span_hi < hi) {
		hint = 0;
		record(&g, span_hi, hi, GAP_CAPTURE_EDGE, GAP_HOST_UNKNOWN,
		       ra->n_steps ? analysis_step_at_near(ra, span_hi, &hint) : SIZE_MAX);
	}
	/* the edges' host: what the host did there, read like the others' */
	for (size_t i = 0; i < o->n_top; i++)
		if (o->top[i].cause == GAP_CAPTURE_EDGE)
			o->top[i].host = (uint8_t)host_during(&g, o->top[i].start, o->top[i].start + o->top[i].dur);
	ivset_free(&g.waits);
	ivset_free(&g.host_comm);
	ivset_free(&g.gc);
	ivset_free(&g.replays);
	free(g.dev_lanes);
	free(g.cursor);
	free(g.wanted);
	free(g.rank_base);
	free(g.launch);
	free(g.cuts);
}
