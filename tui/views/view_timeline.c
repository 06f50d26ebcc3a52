/* SPDX-License-Identifier: MIT */
/* Timeline: Host / Device / Communication / Overlap swimlanes of one rank, zoomable and
 * pannable, one row per thread or stream (or one row per op), with a detail drawer for the
 * selected event (its args, read again from the file; its CSV rows; its flows). Each cell
 * is one lod_query, so a frame costs the screen's size whatever the trace's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "csvw.h"
#include "lanes.h"
#include "num.h"
#include "sbuf.h"
#include "views.h"
#include "kernel_index.h"
#include "kernel_timeline.h"
#include "op_rows.h"
#include "xalloc.h"

#define LABEL_W 22
#define MAX_UNDO 32
#define MAX_MARKS 16
#define OP_ROWS 200
#define STACK_ROWS 24          /* nesting levels shown as rows of their own, at most */
#define STACK_MAX_EVENTS 60000 /* events in view a call stack is drawn for, at most */

enum row_kind { ROW_GROUP, ROW_LANE, ROW_OP, ROW_COUNTER, ROW_DEPTH, ROW_RANK, ROW_SERVING };

struct tl_row {
	enum row_kind kind;
	uint32_t lane; /* ROW_LANE; ROW_COUNTER: the counter track */
	uint32_t op;   /* ROW_OP: index into ops; ROW_DEPTH: the nesting level shown;
			* ROW_RANK: which lanes (enum rank_row), of the rank index in lane;
			* ROW_SERVING: which of the serving output's lanes (enum serving_row) */
	int group;     /* ROW_GROUP */
};

struct timeline {
	size_t rank;
	const struct rank_analysis *ra;
	const struct rank_store *rs;
	bool have_window;
	int64_t t0, t1;
	int64_t undo[MAX_UNDO][2];
	int n_undo;
	struct tl_row *rows;
	size_t n_rows;
	struct listbox lb; /* over rows */
	uint32_t sel_ev;
	bool per_op;
	bool per_rank; /* every rank's device and communication on the aligned clock */
	struct app *app; /* for the ranks' rows (set when bound) */
	enum op_rows_sort op_sort;
	struct op_row *ops; /* owned (op_rows_free) */
	size_t n_ops;
	bool drawer;
	uint32_t drawer_ev;
	struct sbuf args;
	int n_args;
	int64_t marks[MAX_MARKS];
	int n_marks, mark_pos;
	struct kernel_index kidx;
	int last_w;
	/* the last flow followed: from which event, which way, which of its flows */
	uint32_t flow_src;
	bool flow_fwd;
	size_t flow_k;
	/* the range selection: 0 none, 1 started at range_a, 2 [range_a, range_b) with totals */
	int range_state;
	int64_t range_a, range_b;
	struct range_totals range;
	bool *stacked; /* per lane: its nesting levels shown as rows (e) */
	/* what is drawn: the rank's trace, or for a rank without one a timeline from its
	 * kernel table (kt, the capture's: rank_data.timeline) */
	const struct ev_class *cls;
	const struct lane_lod *lods;
	const struct kernel_timeline *kt;
};

static const char *op_sort_names[OP_ROWS_SORT_COUNT] = {"total", "count", "name", "max"};

static void *create(struct app *app)
{
	(void)app;
	struct timeline *t = xcalloc(1, sizeof *t);
	t->sel_ev = UINT32_MAX;
	t->drawer_ev = UINT32_MAX;
	t->flow_src = UINT32_MAX;
	t->rank = (size_t)-1;
	return t;
}

static void free_ops(struct timeline *t)
{
	op_rows_free(t->ops, t->n_ops);
	t->ops = NULL;
	t->n_ops = 0;
}

static void destroy(void *p)
{
	struct timeline *t = p;
	free(t->rows);
	free_ops(t);
	kernel_index_free(&t->kidx);
	sbuf_free(&t->args);
	query_range_free(&t->range);
	free(t->stacked);
	free(t);
}

/* ---- rows --------------------------------------------------------------------------- */

static int display_group(enum lane_group g)
{
	/* Host, Device, Communication, Overlap Analysis, Other */
	switch (g) {
	case LANE_HOST_PYTHON:
	case LANE_HOST_CANN:
	case LANE_HOST_GC: return 0;
	case LANE_DEVICE: return 1;
	case LANE_COMM: return 2;
	case LANE_OVERLAP: return 3;
	default: return 4;
	}
}

/* "Overlap Analysis" is torch_npu's process name for those lanes: kept as users see it elsewhere */
static const char *group_titles[] = {"Host", "Device", N_("Communication"), "Overlap Analysis", N_("Other"),
				     N_("Counters"), N_("Serving")};
#define GROUP_COUNTERS 5
#define GROUP_SERVING 6

/* The serving output's lanes, above the host's, on the epoch clock the traces share */
enum serving_row { SERVING_ROW_REQUESTS, SERVING_ROW_BATCHES, SERVING_ROW_FORWARDS, SERVING_ROW_COUNT };
static const char *const serving_row_names[SERVING_ROW_COUNT] = {N_("requests"), N_("batches"), N_("forwards")};

enum rank_row { RANK_ROW_DEVICE, RANK_ROW_COMM, RANK_ROW_COUNT };

static void add_row(struct timeline *t, size_t *cap, struct tl_row r)
{
	xgrow(&t->rows, cap, t->n_rows + 1, sizeof *t->rows);
	t->rows[t->n_rows++] = r;
}

/* One row per device op (the busiest OP_ROWS), each holding its instances. */
static void build_ops(struct timeline *t)
{
	free_ops(t);
	if (t->ra)
		t->n_ops = op_rows_build(t->ra, t->rs, t->cls, OP_ROWS, t->op_sort, &t->ops);
}

static void build_rows(struct timeline *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n_rows = 0;
	size_t cap = 0;
	const struct rank_store *rs = t->rs;
	if (!rs)
		return;
	if (t->per_rank) {
		/* the cluster: each rank's device and communication lanes merged, on the clock
		 * of the alignment mode */
		for (size_t ri = 0; ri < app_rank_count(t->app); ri++)
			for (uint32_t k = 0; k < RANK_ROW_COUNT; k++)
				add_row(t, &cap, (struct tl_row){ROW_RANK, (uint32_t)ri, k, 0});
	} else if (t->per_op) {
		if (!t->ops)
			build_ops(t);
		add_row(t, &cap, (struct tl_row){ROW_GROUP, 0, 0, 1});
		for (size_t i = 0; i < t->n_ops; i++)
			add_row(t, &cap, (struct tl_row){ROW_OP, 0, (uint32_t)i, 0});
	} else {
		if (app_serving(t->app)) {
			add_row(t, &cap, (struct tl_row){ROW_GROUP, 0, 0, GROUP_SERVING});
			for (uint32_t k = 0; k < SERVING_ROW_COUNT; k++)
				add_row(t, &cap, (struct tl_row){ROW_SERVING, 0, k, GROUP_SERVING});
		}
		uint32_t *order = xmalloc((rs->n_lanes ? rs->n_lanes : 1) * sizeof *order);
		lanes_display_order(rs, order);
		int last = -1;
		for (size_t i = 0; i < rs->n_lanes; i++) {
			const struct lane *l = &rs->lanes[order[i]];
			if (!l->n_events)
				continue;
			int g = display_group(l->group);
			if (g != last)
				add_row(t, &cap, (struct tl_row){ROW_GROUP, 0, 0, g});
			last = g;
			add_row(t, &cap, (struct tl_row){ROW_LANE, order[i], 0, g});
			if (t->stacked && t->stacked[order[i]])
				for (int d = 0; d < l->depth_max && d < STACK_ROWS; d++)
					add_row(t, &cap, (struct tl_row){ROW_DEPTH, order[i], (uint32_t)d, g});
		}
		free(order);
		/* counter tracks (HBM, DDR, frequencies ...) as sparklines, last */
		bool head = false;
		for (size_t i = 0; i < rs->n_tracks; i++) {
			if (!rs->tracks[i].n_samples)
				continue;
			if (!head)
				add_row(t, &cap, (struct tl_row){ROW_GROUP, 0, 0, GROUP_COUNTERS});
			head = true;
			add_row(t, &cap, (struct tl_row){ROW_COUNTER, (uint32_t)i, 0, GROUP_COUNTERS});
		}
	}
	t->lb.n = t->n_rows;
	if (t->lb.sel >= t->n_rows || t->rows[t->lb.sel].kind == ROW_GROUP) {
		/* the first lane (below the serving output's rows), else the second row */
		t->lb.sel = t->n_rows > 1 ? 1 : 0;
		for (size_t i = 0; i < t->n_rows; i++)
			if (t->rows[i].kind == ROW_LANE) {
				t->lb.sel = i;
				break;
			}
	}
}

static void set_window(struct timeline *t, int64_t a, int64_t b);

static void fit(struct timeline *t)
{
	if (!t->rs || !t->rs->has_events)
		return;
	int64_t span = t->rs->window_end - t->rs->window_start;
	int64_t pad = span / 100 + 1;
	set_window(t, t->rs->window_start - pad, t->rs->window_end + pad);
	t->have_window = true;
}

static void bind_rank(struct timeline *t, struct app *app, size_t rank)
{
	const struct rank_analysis *ra = app_rank_analysis_of(app, rank);
	if (t->rank == rank && t->ra == ra && t->rows)
		return;
	bool same_rank = t->rank == rank;
	/* another rank keeps the window, moved to its clock by the chosen alignment, so that
	 * the same moment is compared; marks and undo move with it */
	const struct rank_analysis *old_ra = t->ra;
	int64_t shift = 0;
	bool keep = !same_rank && t->have_window && old_ra && ra && t->rs && t->rs->has_events;
	if (keep)
		shift = app_ra_offset_ns(ra)[app_align(app)] - app_ra_offset_ns(old_ra)[app_align(app)];
	t->app = app;
	t->rank = rank;
	t->ra = ra;
	t->rs = &app_rank_data_of(app, rank)->store;
	t->cls = ra ? app_ra_cls(ra) : NULL;
	t->lods = app_lods(app, rank);
	t->kt = NULL;
	if (ra && !t->rs->has_events && app_ra_has_timeline(ra) && (t->kt = app_rank_data_of(app, rank)->timeline)) {
		/* no trace: the kernel table's rows as device lanes */
		t->rs = &t->kt->store;
		t->cls = t->kt->cls;
		t->lods = t->kt->lods;
	}
	free_ops(t);
	kernel_index_free(&t->kidx);
	if (!same_rank) {
		free(t->stacked);
		t->stacked = NULL;
		t->sel_ev = UINT32_MAX;
		t->range_state = 0; /* its totals were the other rank's */
		query_range_free(&t->range);
		if (keep) {
			char b[32];
			app_message(app, ST_NORMAL, _("rank %d: the same window, aligned by %s (%s%s)"),
				    app_ra_rank(ra),
				    result_align_name(app_align(app)), shift < 0 ? "-" : "+",
				    app_fmt_dur(shift < 0 ? -shift : shift, b, sizeof b));
			t->t0 += shift;
			t->t1 += shift;
			for (int i = 0; i < t->n_undo; i++) {
				t->undo[i][0] += shift;
				t->undo[i][1] += shift;
			}
			for (int i = 0; i < t->n_marks; i++)
				t->marks[i] += shift;
		} else {
			t->lb.sel = t->lb.top = 0;
			t->n_undo = 0;
			t->n_marks = 0;
			t->have_window = false;
		}
	}
	t->drawer_ev = UINT32_MAX;
	build_rows(t);
	if (!t->have_window)
		fit(t);
}

static void update(void *p, struct app *app) { bind_rank(p, app, app_rank_index(app)); }

/* ---- navigation --------------------------------------------------------------------- */

static void push_undo(struct timeline *t)
{
	if (t->n_undo == MAX_UNDO) {
		memmove(t->undo[0], t->undo[1], sizeof t->undo[0] * (MAX_UNDO - 1));
		t->n_undo--;
	}
	t->undo[t->n_undo][0] = t->t0;
	t->undo[t->n_undo][1] = t->t1;
	t->n_undo++;
}

/* Every window lies within these bounds: loaded times are within NUM_TIME_MAX_NS and
 * durations within a day, so that the window's ends, its span and the span's halves and
 * doubles are all int64 (a window of years once overflowed the ruler, which then looped). */
#define TL_MIN (-NUM_TIME_MAX_NS - NUM_TIME_MAX_NS / 2)
#define TL_MAX (NUM_TIME_MAX_NS + NUM_TIME_MAX_NS / 2)

/* a and b come from a window within the bounds moved by at most its span. */
static void set_window(struct timeline *t, int64_t a, int64_t b)
{
	if (b - a < 100)
		b = a + 100; /* 100 ns: below that nothing is resolved anyway */
	if (b - a > TL_MAX - TL_MIN) {
		a = TL_MIN;
		b = TL_MAX;
	}
	if (a < TL_MIN) {
		b += TL_MIN - a;
		a = TL_MIN;
	}
	if (b > TL_MAX) {
		a -= b - TL_MAX;
		b = TL_MAX;
	}
	t->t0 = a;
	t->t1 = b;
}

static size_t row_of_lane(const struct timeline *t, uint32_t lane)
{
	for (size_t i = 0; i < t->n_rows; i++)
		if (t->rows[i].kind == ROW_LANE && t->rows[i].lane == lane)
			return i;
	return (size_t)-1;
}

/* Selects ev, moves the cursor to its lane, and pans (keeping the zoom) to show it. */
static void select_event(struct timeline *t, uint32_t ev, bool center)
{
	if (ev == UINT32_MAX || ev >= t->rs->n_ev)
		return;
	t->sel_ev = ev;
	if (t->per_op || t->per_rank) {
		t->per_op = t->per_rank = false;
		build_rows(t);
	}
	size_t r = row_of_lane(t, store_ev_lane_id(t->rs, ev));
	if (r != (size_t)-1) {
		t->lb.sel = r;
		listbox_clamp(&t->lb, t->lb.height);
	}
	int64_t a = store_ts(t->rs, ev), b = a + store_dur(t->rs, ev);
	int64_t span = t->t1 - t->t0;
	if (center || a >= t->t1 || b <= t->t0) {
		if (b - a > span)
			span = b - a > (TL_MAX - TL_MIN) / 2 ? TL_MAX - TL_MIN : (b - a) * 2;
		int64_t mid = a + (b - a) / 2;
		set_window(t, mid - span / 2, mid + span / 2);
	}
}

static const struct lane *sel_lane(const struct timeline *t)
{
	if (t->lb.sel >= t->n_rows || (t->rows[t->lb.sel].kind != ROW_LANE && t->rows[t->lb.sel].kind != ROW_DEPTH))
		return NULL;
	return &t->rs->lanes[t->rows[t->lb.sel].lane];
}

static void step_event(struct timeline *t, struct app *app, int dir)
{
	const struct lane *l = sel_lane(t);
	if (!l || !l->n_events) {
		app_message(app, ST_DIM, _("select a lane first (j/k)"));
		return;
	}
	uint32_t pos;
	if (t->sel_ev != UINT32_MAX && store_ev_lane_id(t->rs, t->sel_ev) == (uint32_t)(l - t->rs->lanes)) {
		uint32_t k = store_lane_lower_bound(t->rs, l, store_ts(t->rs, t->sel_ev));
		while (k < l->n_events && l->events[k] != t->sel_ev)
			k++;
		if (k >= l->n_events)
			k = store_lane_lower_bound(t->rs, l, store_ts(t->rs, t->sel_ev));
		if (dir > 0)
			pos = k + 1 < l->n_events ? k + 1 : k;
		else
			pos = k > 0 ? k - 1 : 0;
	} else {
		pos = store_lane_lower_bound(t->rs, l, t->t0 + (t->t1 - t->t0) / 2);
		if (pos >= l->n_events)
			pos = l->n_events - 1;
	}
	select_event(t, l->events[pos], false);
}

static void longest_in_view(struct timeline *t, struct app *app)
{
	const struct lane *l = sel_lane(t);
	if (!l)
		return;
	uint32_t k = store_lane_lower_bound(t->rs, l, t->t0);
	/* an event starting before the window may reach into it: look back a little */
	uint32_t back = k > 64 ? k - 64 : 0;
	uint32_t best = UINT32_MAX;
	int64_t best_d = -1;
	for (uint32_t i = back, seen = 0; i < l->n_events && seen < 4000000; i++, seen++) {
		uint32_t ev = l->events[i];
		int64_t a = store_ts(t->rs, ev), b = a + store_dur(t->rs, ev);
		if (a >= t->t1)
			break;
		if (b <= t->t0)
			continue;
		if (store_dur(t->rs, ev) > best_d) {
			best_d = store_dur(t->rs, ev);
			best = ev;
		}
	}
	if (best == UINT32_MAX)
		app_message(app, ST_DIM, _("no event in view on this lane"));
	else
		select_event(t, best, false);
}

/* app_open: the rank becomes the selected one, zoomed to the target's window. */
static void open_target(void *st, struct app *app, const struct view_target *target)
{
	struct timeline *t = st;
	const struct timeline_target *tg = &target->timeline;
	app_select_rank(app, tg->rank_index);
	bind_rank(t, app, tg->rank_index);
	push_undo(t);
	set_window(t, tg->t0, tg->t1);
	t->have_window = true;
	if (tg->ev != UINT32_MAX)
		select_event(t, tg->ev, false);
}

#define MAX_FLOWS 256

static void follow_flow(struct timeline *t, struct app *app, bool forward)
{
	if (t->sel_ev == UINT32_MAX) {
		app_message(app, ST_DIM, _("select an event first (. or , or l)"));
		return;
	}
	uint32_t out[MAX_FLOWS];
	size_t n = forward ? lanes_links_from(t->rs, t->sel_ev, out, MAX_FLOWS)
			   : lanes_links_to(t->rs, t->sel_ev, out, MAX_FLOWS);
	if (!n) {
		app_message(app, ST_DIM, "%s", forward ? _("no outgoing flow from this event") : _("no incoming flow from this event"));
		return;
	}
	t->flow_src = t->sel_ev;
	t->flow_fwd = forward;
	t->flow_k = 0;
	select_event(t, out[0], false);
	if (n > 1)
		app_message(app, ST_NORMAL, _("followed flow 1 of %zu (} next, { previous)"), n);
}

/* The next (dir 1) or previous (-1) of the flows the last ] or [ could follow. */
static void other_flow(struct timeline *t, struct app *app, int dir)
{
	uint32_t out[MAX_FLOWS];
	size_t n = 0;
	if (t->flow_src != UINT32_MAX)
		n = t->flow_fwd ? lanes_links_from(t->rs, t->flow_src, out, MAX_FLOWS)
				: lanes_links_to(t->rs, t->flow_src, out, MAX_FLOWS);
	if (n > MAX_FLOWS)
		n = MAX_FLOWS;
	if (n < 2) {
		app_message(app, ST_DIM, _("no other flow to follow (] or [ first, on an event with several)"));
		return;
	}
	t->flow_k = (t->flow_k + n + (size_t)(dir > 0 ? 1 : n - 1)) % n;
	select_event(t, out[t->flow_k], false);
	app_message(app, ST_NORMAL, _("followed flow %zu of %zu from %s"), t->flow_k + 1, n,
		    store_ev_name(t->rs, t->flow_src));
}

/* v: starts a range at the selected event's start (or the view's middle), ends it at the
 * selected event's end (or the middle), then clears it. */
static void range_key(struct timeline *t, struct app *app)
{
	/* a selected event the view has left (a search, then :zoom or panning) is not where
	 * the user looks: the range takes the view's middle instead */
	bool sel = t->sel_ev != UINT32_MAX && store_ts(t->rs, t->sel_ev) < t->t1 &&
		   store_ts(t->rs, t->sel_ev) + store_dur(t->rs, t->sel_ev) > t->t0;
	int64_t mid = t->t0 + (t->t1 - t->t0) / 2;
	char b1[32];
	if (t->range_state == 2) {
		t->range_state = 0;
		query_range_free(&t->range);
		app_message(app, ST_DIM, _("range cleared"));
		return;
	}
	if (t->range_state == 0) {
		t->range_a = sel ? store_ts(t->rs, t->sel_ev) : mid;
		t->range_state = 1;
		app_message(app, ST_NORMAL, _("range starts at %s; select its end (. , l) and press v"),
			    app_fmt_dur(t->range_a - app_ra_t0(t->ra), b1, sizeof b1));
		return;
	}
	int64_t b = sel ? store_ts(t->rs, t->sel_ev) + store_dur(t->rs, t->sel_ev) : mid;
	if (b < t->range_a) { /* ended before it started: the other way round */
		t->range_b = t->range_a;
		t->range_a = sel ? store_ts(t->rs, t->sel_ev) : mid;
	} else {
		t->range_b = b;
	}
	if (t->range_b <= t->range_a)
		t->range_b = t->range_a + 1;
	query_range(t->rs, t->cls, t->range_a, t->range_b, &t->range);
	t->range_state = 2;
	app_message(app, ST_NORMAL, _("range of %s: totals below (v clears it)"),
		    app_fmt_dur(t->range_b - t->range_a, b1, sizeof b1));
}

/* ---- drawing ------------------------------------------------------------------------ */

static void ruler(struct timeline *t, struct canvas *cv, int x, int y, int w)
{
	int64_t span = t->t1 - t->t0;
	/* a 1-2-5 step giving a label every 12 columns or more */
	int64_t want = num_muldiv(span, 12, w > 0 ? w : 1);
	__int128 s = 1; /* up to 10 x want: 128 bits hold it */
	while (s < want) {
		if (s * 2 >= want) {
			s *= 2;
			break;
		}
		if (s * 5 >= want) {
			s *= 5;
			break;
		}
		s *= 10;
	}
	int64_t step = s > INT64_MAX ? INT64_MAX : (int64_t)s;
	int64_t base = t->ra ? app_ra_t0(t->ra) : t->rs->window_start;
	int64_t first = ((t->t0 - base) / step) * step + base;
	if (first < t->t0)
		first += step;
	const char *unit = step >= 1000000000 ? "s" : step >= 1000000 ? "ms" : step >= 1000 ? "us" : "ns";
	double div = step >= 1000000000 ? 1e9 : step >= 1000000 ? 1e6 : step >= 1000 ? 1e3 : 1;
	/* at most a tick per column: the bound holds whatever the step */
	for (int64_t tick = first, k = 0; tick < t->t1 && k <= w; tick = num_sat_add(tick, step), k++) {
		int c = (int)num_muldiv(tick - t->t0, w, span);
		if (c < 0 || c >= w)
			continue;
		canvas_set(cv, x + c, y, '|', ST_DIM);
		char lab[32];
		double v = (double)(tick - base) / div;
		snprintf(lab, sizeof lab, v == (int64_t)v ? "%.0f%s" : "%.3g%s", v, unit);
		canvas_text(cv, x + c + 1, y, w - c - 1, ST_DIM, lab);
	}
}

static void lane_label(const struct rank_store *rs, const struct lane *l, char *buf, size_t size)
{
	const char *p = store_str(rs, l->process_name), *th = store_str(rs, l->thread_name);
	if (!*th)
		th = store_str(rs, l->tid_text);
	const char *prefix = l->group == LANE_HOST_PYTHON ? "Py " : l->group == LANE_HOST_CANN ? "CANN "
			     : l->group == LANE_HOST_GC ? "GC " : "";
	if (l->group == LANE_OTHER && *p)
		snprintf(buf, size, "%s: %s", p, th);
	else
		snprintf(buf, size, "%s%s", prefix, th);
}

static void draw_op_row(struct timeline *t, const struct op_row *o, struct canvas *cv, int x, int y, int w)
{
	int64_t span = t->t1 - t->t0;
	for (int c = 0; c < w; c++) {
		int64_t a = t->t0 + num_muldiv(span, c, w), b = t->t0 + num_muldiv(span, c + 1, w);
		int seen;
		int64_t cov = op_rows_cover(t->rs, o->evs, o->n, o->max, a, b, 64, &seen);
		double f = seen >= 64 ? 1.0 : (double)cov / (double)(b - a > 0 ? b - a : 1);
		if (seen && f < 0.05)
			f = 0.05; /* a short op still shows */
		canvas_set(cv, x + c, y, category_glyph(o->cat, seen ? f : 0), category_style(o->cat));
	}
}

static void draw_lane_row(struct timeline *t, struct app *app, const struct lane *l, uint32_t li,
			  struct canvas *cv, int x, int y, int w)
{
	const struct lane_lod *lods = t->lods;
	int64_t span = t->t1 - t->t0;
	for (int c = 0; c < w; c++) {
		int64_t a = t->t0 + num_muldiv(span, c, w), b = t->t0 + num_muldiv(span, c + 1, w);
		struct lod_result r;
		if (lods) {
			lod_query(t->rs, t->cls, l, &lods[li], a, b, &r);
		} else {
			memset(&r, 0, sizeof r);
		}
		double f = r.mask && r.coverage < 0.05 ? 0.05 : r.coverage;
		canvas_set(cv, x + c, y, category_glyph(r.top_cat, r.mask ? f : 0), category_style(r.top_cat));
	}
	/* the selected event on top */
	if (t->sel_ev != UINT32_MAX && store_ev_lane_id(t->rs, t->sel_ev) == li) {
		int64_t a = store_ts(t->rs, t->sel_ev), b = a + store_dur(t->rs, t->sel_ev);
		int64_t x0 = num_muldiv(a - t->t0, w, span), x1 = num_muldiv(b - t->t0, w, span);
		int c0 = (int)(x0 < -1 ? -1 : x0 > w ? w : x0), c1 = (int)(x1 < -1 ? -1 : x1 > w ? w : x1);
		if (c1 == c0)
			c1 = c0 + 1;
		for (int c = c0 < 0 ? 0 : c0; c < c1 && c < w; c++)
			canvas_restyle(cv, x + c, y, 1, ST_SELECTED);
	}
}

static void counter_label(const struct rank_store *rs, const struct counter_track *tr, char *buf, size_t size)
{
	/* the args key is the unit ("KB", "MHz"), unless it only repeats the name */
	const char *name = store_str(rs, tr->name), *unit = store_str(rs, tr->value_key);
	if (!strcmp(unit, name) || !strcmp(unit, "value"))
		unit = "";
	snprintf(buf, size, "%s%s%s", name, *unit ? " " : "", unit);
}

/* A counter track as a sparkline: per cell the highest value it holds there, scaled
 * between the track's least and greatest value. */
static void draw_counter_row(struct timeline *t, const struct counter_track *tr, struct canvas *cv, int x, int y,
			     int w)
{
	static const uint32_t levels[8] = {0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588};
	double lo, hi;
	if (!store_track_minmax(t->rs, tr, &lo, &hi))
		return;
	int64_t span = t->t1 - t->t0;
	for (int c = 0; c < w; c++) {
		int64_t a = t->t0 + span * c / w, b = t->t0 + span * (c + 1) / w;
		double v;
		if (!store_track_max_in(t->rs, tr, a, b > a ? b : a + 1, &v))
			continue;
		/* a constant track: a low bar at zero, a middle one otherwise */
		int lv = hi > lo ? num_level((v - lo) / (hi - lo), 7) : v != 0 ? 3 : 0;
		canvas_set(cv, x + c, y, levels[lv], ST_CAT_COPY);
	}
}

struct stack_draw {
	struct timeline *t;
	struct canvas *cv;
	int x, w;
	const int *ys;     /* the screen row of each shown level, -1 when not on screen */
	bool used[256];    /* nesting depths with an event in view */
	int level[256];    /* depth to shown level (the used depths in order), -1 beyond */
	bool drawing;      /* the second sweep */
};

static int event_depth(const struct rank_store *rs, uint32_t ev)
{
	const struct lane *l = store_ev_lane(rs, ev);
	uint32_t k = store_lane_lower_bound(rs, l, store_ts(rs, ev));
	while (k < l->n_events && l->events[k] != ev)
		k++;
	return k < l->n_events ? l->depth[k] : -1;
}

/* One event of a lane shown as a call stack. The first sweep notes which depths have
 * events in view (improperly nested frames leave depths unused: they are not shown); the
 * second draws its span on its level's row, filled with its category's glyph, its name
 * over it where it fits. */
static void stack_event(void *p, uint32_t ev)
{
	struct stack_draw *s = p;
	struct timeline *t = s->t;
	int d = event_depth(t->rs, ev);
	if (d < 0)
		return;
	if (!s->drawing) {
		s->used[d] = true;
		return;
	}
	if (s->level[d] < 0 || s->ys[s->level[d]] < 0)
		return;
	int y = s->ys[s->level[d]];
	int64_t span = t->t1 - t->t0, a = store_ts(t->rs, ev), b = a + store_dur(t->rs, ev);
	int64_t c0 = (a - t->t0) * s->w / span, c1 = (b - t->t0) * s->w / span;
	if (c1 == c0)
		c1 = c0 + 1;
	if (c0 < 0)
		c0 = 0;
	if (c1 > s->w)
		c1 = s->w;
	int cat = t->cls[ev].cat;
	enum style st = ev == t->sel_ev ? ST_SELECTED : category_style(cat);
	for (int64_t c = c0; c < c1; c++)
		canvas_set(s->cv, s->x + (int)c, y, category_glyph(cat, 1), st);
	if (c1 - c0 >= 4)
		canvas_text(s->cv, s->x + (int)c0, y, (int)(c1 - c0), st, store_ev_name(t->rs, ev));
}

/* The levels of an expanded lane on the rows ys (indexed by level), in one sweep over the
 * events in view; too many of them and a hint says to zoom in. */
static void draw_stack(struct timeline *t, const struct lane *l, struct canvas *cv, int x, int w, const int *ys)
{
	size_t n = lanes_events_in(t->rs, l, t->t0, t->t1, NULL);
	if (n > STACK_MAX_EVENTS) {
		for (int d = 0; d < STACK_ROWS; d++)
			if (ys[d] >= 0) {
				canvas_textf(cv, x, ys[d], w, ST_DIM, _("%zu events in view: zoom in to see the call stack"), n);
				break;
			}
		return;
	}
	struct stack_draw s = {.t = t, .cv = cv, .x = x, .w = w, .ys = ys};
	lanes_visit_in(t->rs, l, t->t0, t->t1, stack_event, &s, NULL);
	for (int d = 0, shown = 0; d < 256; d++)
		s.level[d] = s.used[d] && shown < STACK_ROWS ? shown++ : -1;
	s.drawing = true;
	lanes_visit_in(t->rs, l, t->t0, t->t1, stack_event, &s, NULL);
}

/* What to add to this rank's times to get rank ri's at the same aligned moment. */
static int64_t rank_shift(const struct timeline *t, struct app *app, size_t ri)
{
	const struct rank_analysis *r = app_rank_analysis_of(app, ri);
	if (!r || !t->ra)
		return 0;
	return app_ra_offset_ns(r)[app_align(app)] - app_ra_offset_ns(t->ra)[app_align(app)];
}

/* Requests in flight per cell (arrival to last token), in eighths of the most in view. */
static void draw_serving_requests(const struct timeline *t, const struct serving *sv, struct canvas *cv, int x, int y,
				  int w)
{
	static const uint32_t levels[8] = {0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588};
	int *n = xcalloc((size_t)w, sizeof *n), hi = 0;
	int64_t span = t->t1 - t->t0;
	for (size_t i = 0; i < sv->n_req; i++) {
		const struct serving_request *q = &sv->req[i];
		if (q->start_ns == SERVING_NONE_NS || q->exec_ns == SERVING_NONE_NS)
			continue;
		int64_t a = q->start_ns, b = q->start_ns + q->exec_ns;
		if (b < t->t0 || a >= t->t1)
			continue;
		int64_t c0 = a <= t->t0 ? 0 : num_muldiv(a - t->t0, w, span), c1 = b >= t->t1 ? w - 1 : num_muldiv(b - t->t0, w, span);
		for (int64_t c = c0; c <= c1 && c < w; c++)
			hi = ++n[c] > hi ? n[c] : hi;
	}
	for (int c = 0; c < w; c++)
		if (n[c])
			canvas_set(cv, x + c, y, levels[(n[c] * 7 + hi / 2) / hi], ST_NORMAL);
	free(n);
}

static void draw_serving_row(const struct timeline *t, const struct app *app, enum serving_row which,
			     struct canvas *cv, int x, int y, int w)
{
	const struct serving *sv = app_serving(app);
	if (!sv || w <= 0)
		return;
	if (which == SERVING_ROW_REQUESTS)
		draw_serving_requests(t, sv, cv, x, y, w);
	else if (which == SERVING_ROW_BATCHES)
		view_serving_batches(cv, x, y, w, sv, t->t0, t->t1, NULL);
	else
		view_serving_forwards(cv, x, y, w, sv, t->t0, t->t1);
}

/* Rank ri's device (or communication) lanes merged into one row, on this rank's window
 * moved to its clock: each cell the category to show among its lanes and their greatest
 * coverage. */
static void draw_rank_row(struct timeline *t, struct app *app, size_t ri, enum rank_row which, struct canvas *cv,
			  int x, int y, int w)
{
	const struct rank_store *rs = &app_rank_data_of(app, ri)->store;
	const struct lane_lod *lods = app_lods(app, ri);
	const struct rank_analysis *ra = app_rank_analysis_of(app, ri);
	if (!lods || !ra || !rs->has_events) {
		canvas_text(cv, x, y, w, ST_DIM, _("(no trace)"));
		return;
	}
	int64_t shift = rank_shift(t, app, ri), span = t->t1 - t->t0;
	for (int c = 0; c < w; c++) {
		int64_t a = t->t0 + shift + span * c / w, b = t->t0 + shift + span * (c + 1) / w;
		struct lod_merge m = {0}; /* compute shown as compute (lod_merge_pick) */
		for (size_t li = 0; li < rs->n_lanes; li++) {
			const struct lane *l = &rs->lanes[li];
			if (!l->n_events || l->group != (which == RANK_ROW_DEVICE ? LANE_DEVICE : LANE_COMM) ||
			    l->last_end <= a || l->first_ts >= b)
				continue;
			struct lod_result r;
			lod_query(rs, app_ra_cls(ra), l, &lods[li], a, b, &r);
			lod_merge_add(&m, &r);
		}
		double cov;
		uint8_t cat = lod_merge_pick(&m, &cov);
		if (cat == CAT_COUNT)
			continue;
		canvas_set(cv, x + c, y, category_glyph(cat, cov < 0.05 ? 0.05 : cov), category_style(cat));
	}
}

static int draw_drawer(struct timeline *t, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	canvas_fill(cv, x, y, w, 1, ' ', ST_HEADER);
	uint32_t ev = t->sel_ev;
	if (ev == UINT32_MAX) {
		canvas_text(cv, x + 1, y, w - 2, ST_HEADER, _("detail: no event selected (. , l to select, ] [ follow flows)"));
		return 1;
	}
	const struct rank_store *rs = t->rs;
	const struct lane *l = store_ev_lane(rs, ev);
	char lab[128], b1[32], b2[40];
	lane_label(rs, l, lab, sizeof lab);
	num_format_ns_as_us(store_ts(rs, ev), b2, sizeof b2);
	canvas_textf(cv, x + 1, y, w - 2, ST_HEADER, _("%s  [%s]  rank %d  %s / %s"), store_ev_name(rs, ev),
		     _(category_name((enum ev_category)t->cls[ev].cat)),
		     app_rank_data_of(app, t->rank)->plan->rank, store_str(rs, l->process_name), lab);
	int row = y + 1;
	/* a kernel-table timeline's byte offsets are into the trace made in memory: its row's
	 * file and line are in the args instead */
	char off[48] = "";
	if (!t->kt)
		snprintf(off, sizeof off, _("   file byte %llu"), (unsigned long long)store_ev_off(rs, ev));
	canvas_textf(cv, x + 1, row++, w - 2, ST_NORMAL, _("start %.6f ms (ts %s us)   dur %s   cat %s%s"),
		     (double)(store_ts(rs, ev) - app_ra_t0(t->ra)) / 1e6, b2,
		     app_fmt_dur(store_dur(rs, ev), b1, sizeof b1),
		     store_str(rs, store_ev_attr(rs, ev)->cat)[0] ? store_str(rs, store_ev_attr(rs, ev)->cat) : "-", off);
	/* flows */
	uint32_t out[4];
	size_t nf = lanes_links_from(rs, ev, out, 4), nb;
	uint32_t in[4];
	nb = lanes_links_to(rs, ev, in, 4);
	if (nf || nb) {
		struct sbuf sb = SBUF_INIT;
		if (nf)
			sbuf_addf(&sb, _("flows out (]): %s"), store_ev_name(rs, out[0]));
		if (nf > 1)
			sbuf_addf(&sb, _(" and %zu more (] then })"), nf - 1);
		if (nf)
			sbuf_adds(&sb, "  ");
		if (nb)
			sbuf_addf(&sb, _("flows in ([): %s"), store_ev_name(rs, in[0]));
		if (nb > 1)
			sbuf_addf(&sb, _(" and %zu more ([ then })"), nb - 1);
		canvas_text(cv, x + 1, row++, w - 2, ST_NORMAL, sbuf_str(&sb));
		sbuf_free(&sb);
	}
	/* the CSV row(s) behind a device event */
	if (l->group == LANE_DEVICE) {
		if (!t->kidx.table)
			kernel_index_build(&t->kidx, app_rank_data_of(app, t->rank)->by_kind[CSV_KERNEL]);
		const struct csv_table *k = t->kidx.table;
		size_t lo = kernel_index_at(&t->kidx, store_ts(rs, ev));
		for (size_t i = lo; k && i < t->kidx.n && t->kidx.start[i] == store_ts(rs, ev) && row < y + h; i++) {
			size_t r = t->kidx.row[i];
			if (strcmp(csvt_str(k, r, COL_NAME), store_ev_name(rs, ev)))
				continue;
			double blk = 0, mac = 0;
			char block[24] = "-", extra[64] = "";
			if (csvt_num(k, r, COL_BLOCK_DIM, &blk))
				snprintf(block, sizeof block, "%.0f", blk);
			if (csvt_num(k, r, COL_AIC_MAC_RATIO, &mac))
				snprintf(extra, sizeof extra, _("  mac %.3f"), mac);
			const char *rpath = csvt_row_path(k, r);
			const char *base = strrchr(rpath, '/');
			canvas_textf(cv, x + 1, row++, w - 2, ST_GOOD, _("%s:%u  %s  %s  block %s%s  shapes %s"),
				     base ? base + 1 : rpath, csvt_line(k, r), csvt_str(k, r, COL_TYPE),
				     csvt_str(k, r, COL_ACCEL_CORE), block, extra, csvt_str(k, r, COL_INPUT_SHAPES));
		}
	}
	/* args, parsed now from the file */
	if (t->drawer_ev != ev) {
		t->drawer_ev = ev;
		t->n_args = app_event_args(rs, ev, &t->args);
	}
	if (t->n_args < 0) {
		canvas_text(cv, x + 1, row++, w - 2, ST_WARN, sbuf_str(&t->args));
	} else if (t->n_args == 0) {
		canvas_text(cv, x + 1, row++, w - 2, ST_DIM, _("(no args)"));
	} else {
		const char *s = sbuf_str(&t->args);
		while (*s && row < y + h) {
			size_t n = strcspn(s, "\n");
			canvas_textn(cv, x + 3, row++, w - 4, ST_NORMAL, s, n);
			s += n + (s[n] == '\n');
		}
	}
	return row - y;
}

static void pct_of(char *buf, size_t size, const char *label, int64_t ns, int64_t span)
{
	char b[32];
	snprintf(buf, size, "%s %s (%.1f%%)", label, app_fmt_dur(ns, b, sizeof b),
		 span > 0 ? 100.0 * (double)ns / (double)span : 0.0);
}

/* The range's totals: its span, busy time per side and category, then its ops by the
 * time they take inside it. */
static void draw_range(struct timeline *t, struct canvas *cv, int x, int y, int w, int h)
{
	const struct range_totals *r = &t->range;
	int64_t span = r->t1 - r->t0;
	char b1[32], b2[32], b3[32], part[96];
	canvas_fill(cv, x, y, w, 1, ' ', ST_HEADER);
	canvas_textf(cv, x + 1, y, w - 2, ST_HEADER, _("range %s .. %s (%s): %zu events   v clears it"),
		     app_fmt_dur(r->t0 - app_ra_t0(t->ra), b1, sizeof b1),
		     app_fmt_dur(r->t1 - app_ra_t0(t->ra), b2, sizeof b2),
		     app_fmt_dur(span, b3, sizeof b3), r->n_events);
	struct sbuf sb = SBUF_INIT;
	pct_of(part, sizeof part, _("device busy"), r->device_busy_ns, span);
	sbuf_adds(&sb, part);
	sbuf_adds(&sb, "   ");
	pct_of(part, sizeof part, _("host busy"), r->host_busy_ns, span);
	sbuf_adds(&sb, part);
	canvas_text(cv, x + 1, y + 1, w - 2, ST_BOLD, sbuf_str(&sb));
	sbuf_reset(&sb);
	for (int k = 0; k < CAT_COUNT; k++) {
		if (!r->cat_ns[k])
			continue;
		pct_of(part, sizeof part, _(category_name((enum ev_category)k)), r->cat_ns[k], span);
		sbuf_addf(&sb, "%s%s", sb.len ? "   " : "", part);
	}
	canvas_text(cv, x + 1, y + 2, w - 2, ST_NORMAL, sb.len ? sbuf_str(&sb) : _("nothing runs in the range"));
	sbuf_free(&sb);
	for (int i = 0, row = y + 3; (size_t)i < r->n_ops && row < y + h; i++, row++) {
		const struct range_op *o = &r->ops[i];
		char label[600];
		canvas_set(cv, x + 1, row, category_glyph(o->category, 1), category_style(o->category));
		canvas_textf(cv, x + 3, row, w - 4, ST_NORMAL, "%12s %6.1f%%  x%-6u %-6s %s",
			     app_fmt_dur(o->in_ns, b1, sizeof b1), span > 0 ? 100.0 * (double)o->in_ns / (double)span : 0.0,
			     o->count, o->device ? "device" : "host", op_rows_label(o->name, o->group, label, sizeof label));
	}
}

/* The line above the ruler: the view's span, what the rows are, the selected lane's or
 * counter's figures, the marks. */
static void draw_info(struct timeline *t, struct app *app, struct canvas *cv, int x, int y, int w, int label_w)
{
	char b1[32], b2[32], b3[32];
	const struct lane *sl = sel_lane(t);
	struct sbuf info = SBUF_INIT;
	sbuf_addf(&info, "%s .. %s  (%s)", app_fmt_dur(t->t0 - app_ra_t0(t->ra), b1, sizeof b1),
		  app_fmt_dur(t->t1 - app_ra_t0(t->ra), b2, sizeof b2),
		  app_fmt_dur(t->t1 - t->t0, b3, sizeof b3));
	if (t->per_op)
		sbuf_addf(&info, _("   rows: one per device op, by %s"), op_sort_names[t->op_sort]);
	if (t->per_rank)
		sbuf_addf(&info, _("   rows: every rank, %s-aligned"), result_align_name(app_align(app)));
	if (sl && !t->per_op) {
		size_t before, m = lanes_events_in(t->rs, sl, t->t0, t->t1, &before);
		char lab[128];
		lane_label(t->rs, sl, lab, sizeof lab);
		/* the lane's name here when its label column cut it */
		if (canvas_width(lab) > label_w - 1)
			sbuf_addf(&info, _("   lane %s: %zu event%s in view"), lab, m, m == 1 ? "" : "s");
		else
			sbuf_addf(&info, _("   lane: %zu event%s in view"), m, m == 1 ? "" : "s");
		if (before)
			sbuf_addf(&info, _(" (%zu from before)"), before);
	}
	if (t->lb.sel < t->n_rows && t->rows[t->lb.sel].kind == ROW_COUNTER) {
		/* the selected counter: its range over the view and over the capture */
		const struct counter_track *tr = &t->rs->tracks[t->rows[t->lb.sel].lane];
		char lab[128];
		double lo, hi, v;
		counter_label(t->rs, tr, lab, sizeof lab);
		if (store_track_minmax(t->rs, tr, &lo, &hi) && store_track_max_in(t->rs, tr, t->t0, t->t1, &v))
			sbuf_addf(&info, _("   %s: up to %.6g in view (%.6g .. %.6g in all)"), lab, v, lo, hi);
	}
	if (t->kt)
		sbuf_addf(&info, _("   from kernel_details.csv (no trace): %zu rows"), t->kt->rows_used);
	if (t->n_marks)
		sbuf_addf(&info, _("   %d mark(s)"), t->n_marks);
	if (t->n_marks >= 2) {
		int64_t d = t->marks[t->n_marks - 1] - t->marks[t->n_marks - 2];
		sbuf_addf(&info, _(", the last two %s apart"), app_fmt_dur(d < 0 ? -d : d, b1, sizeof b1));
	}
	canvas_text(cv, x + 1, y, w - 2, ST_BOLD, sbuf_str(&info));
	sbuf_free(&info);
}

/* The marks and the range on the ruler at row y. */
static void draw_ruler_marks(const struct timeline *t, struct canvas *cv, int tx, int y, int tw)
{
	/* marks on the ruler */
	for (int i = 0; i < t->n_marks; i++) {
		int64_t c = num_muldiv(t->marks[i] - t->t0, tw, t->t1 - t->t0);
		if (c >= 0 && c < tw)
			canvas_set(cv, tx + (int)c, y, 'v', ST_MARK);
	}
	/* the range on the ruler: [ at its start, ] at its end, the span between marked */
	if (t->range_state) {
		int64_t ra = t->range_a, rb = t->range_state == 2 ? t->range_b : t->range_a;
		/* through num_muldiv as the marks: (ra - t0) × tw passes int64 on a window of years */
		int64_t c0 = num_muldiv(ra - t->t0, tw, t->t1 - t->t0), c1 = num_muldiv(rb - t->t0, tw, t->t1 - t->t0);
		for (int64_t c = c0 < 0 ? 0 : c0 < tw ? c0 + 1 : tw; c < c1 && c < tw; c++)
			canvas_restyle(cv, tx + (int)c, y, 1, ST_MARK);
		if (c0 >= 0 && c0 < tw)
			canvas_set(cv, tx + (int)c0, y, '[', ST_MARK);
		if (t->range_state == 2 && c1 >= 0 && c1 < tw)
			canvas_set(cv, tx + (int)c1, y, ']', ST_MARK);
	}
}

static void draw(void *p, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	struct timeline *t = p;
	bind_rank(t, app, app_rank_index(app));
	if (t->ra && app_pub(app)->an->from_cluster_output) {
		canvas_textf(cv, x + 1, y + 1, w - 2, ST_DIM,
			     _("rank %d was read from msprof-analyze's cluster table: it holds no events; open "
			       "the rank's own capture"),
			     app_ra_rank(t->ra));
		return;
	}
	if (t->ra && app_pub(app)->an->from_digests) {
		canvas_textf(cv, x + 1, y + 1, w - 2, ST_DIM,
			     _("rank %d was read from a digest: no raw events here; open its capture: %s"),
			     app_ra_rank(t->ra),
			     app_rank_data_of(app, app_ra_rank_index(t->ra))->plan->output_dir);
		return;
	}
	if (!t->ra || !t->rs->has_events) {
		canvas_text(cv, x + 1, y + 1, w - 2, ST_DIM,
			    !app_pub(app) ? _("loading...")
					  : _("no trace for this rank, nor kernel_details.csv rows with times: see Ops and Steps"));
		return;
	}
	/* the range's totals take the drawer's place while there is a range */
	int drawer_h = t->drawer || t->range_state == 2 ? (h / 3 > 6 ? h / 3 : 6) : 0;
	int label_w = w / 4 < LABEL_W ? w / 4 : LABEL_W;
	int tx = x + label_w + 1, tw = w - label_w - 1;
	t->last_w = tw;
	draw_info(t, app, cv, x, y, w, label_w);
	ruler(t, cv, tx, y + 1, tw);
	draw_ruler_marks(t, cv, tx, y + 1, tw);
	int body = h - 2 - drawer_h;
	listbox_clamp(&t->lb, body);
	/* the call-stack rows on screen, by lane: drawn after the loop, one sweep per lane */
	int stack_ys[STACK_ROWS];
	uint32_t stack_lane = UINT32_MAX;
	for (int r = 0; r <= body && t->lb.top + (size_t)r <= t->n_rows; r++) {
		size_t i = t->lb.top + (size_t)r;
		bool more = r < body && i < t->n_rows;
		if (stack_lane != UINT32_MAX && (!more || t->rows[i].kind != ROW_DEPTH || t->rows[i].lane != stack_lane)) {
			draw_stack(t, &t->rs->lanes[stack_lane], cv, tx, tw, stack_ys);
			stack_lane = UINT32_MAX;
		}
		if (!more)
			break;
		const struct tl_row *row = &t->rows[i];
		int ry = y + 2 + r;
		bool sel = i == t->lb.sel;
		if (row->kind == ROW_DEPTH) {
			if (stack_lane == UINT32_MAX) {
				stack_lane = row->lane;
				for (int d = 0; d < STACK_ROWS; d++)
					stack_ys[d] = -1;
			}
			stack_ys[row->op] = ry;
			canvas_textf(cv, x + 1, ry, label_w - 1, sel ? ST_SELECTED : ST_DIM, "  %s %u",
				     row->op + 1 < (uint32_t)t->rs->lanes[row->lane].depth_max && row->op + 1 < STACK_ROWS ? "\u251C" : "\u2514",
				     row->op + 1);
			continue;
		}
		if (row->kind == ROW_GROUP) {
			canvas_fill(cv, x, ry, w, 1, ' ', ST_HEADER);
			canvas_text(cv, x + 1, ry, w - 2, ST_HEADER, t->per_op ? _("Device ops") : _(group_titles[row->group]));
			continue;
		}
		if (row->kind == ROW_RANK) {
			char lab[64];
			snprintf(lab, sizeof lab, _("rank %d %s"),
				 app_rank_data_of(t->app, row->lane)->plan->rank,
				 row->op == RANK_ROW_DEVICE ? "device" : "comm");
			canvas_text(cv, x + 1, ry, label_w - 1,
				    sel ? ST_SELECTED : row->lane == t->rank ? ST_BOLD : ST_NORMAL, lab);
			draw_rank_row(t, app, row->lane, (enum rank_row)row->op, cv, tx, ry, tw);
			continue;
		}
		if (row->kind == ROW_SERVING) {
			canvas_text(cv, x + 1, ry, label_w - 1, sel ? ST_SELECTED : ST_NORMAL, _(serving_row_names[row->op]));
			draw_serving_row(t, app, (enum serving_row)row->op, cv, tx, ry, tw);
			continue;
		}
		if (row->kind == ROW_COUNTER) {
			const struct counter_track *tr = &t->rs->tracks[row->lane];
			char lab[128];
			counter_label(t->rs, tr, lab, sizeof lab);
			canvas_text(cv, x + 1, ry, label_w - 1, sel ? ST_SELECTED : ST_NORMAL, lab);
			draw_counter_row(t, tr, cv, tx, ry, tw);
			continue;
		}
		if (row->kind == ROW_OP) {
			const struct op_row *o = &t->ops[row->op];
			char lab[600], grp[140];
			enum style st = sel ? ST_SELECTED : ST_NORMAL;
			/* a collective's group stays when the label is cut: its kind's rows differ by it */
			snprintf(grp, sizeof grp, " (%s)", o->group ? o->group : "");
			int gw = canvas_width(grp);
			op_rows_label(o->name, o->group, lab, sizeof lab);
			if (o->group && canvas_width(lab) > label_w - 1 && gw < label_w / 2) {
				canvas_text(cv, x + 1, ry, label_w - 1 - gw, st, o->name);
				canvas_text(cv, x + label_w - gw, ry, gw, st, grp);
			} else {
				canvas_text(cv, x + 1, ry, label_w - 1, st, lab);
			}
			draw_op_row(t, o, cv, tx, ry, tw);
			continue;
		}
		const struct lane *l = &t->rs->lanes[row->lane];
		char lab[128];
		lane_label(t->rs, l, lab, sizeof lab);
		canvas_text(cv, x + 1, ry, label_w - 1, sel ? ST_SELECTED : ST_NORMAL, lab);
		draw_lane_row(t, app, l, row->lane, cv, tx, ry, tw);
	}
	if (drawer_h && t->range_state == 2)
		draw_range(t, cv, x, y + h - drawer_h, w, drawer_h);
	else if (drawer_h)
		draw_drawer(t, app, cv, x, y + h - drawer_h, w, drawer_h);
}

/* ---- keys --------------------------------------------------------------------------- */

static int handle(void *p, struct app *app, enum action act)
{
	struct timeline *t = p;
	if (!t->rs || !t->rs->has_events)
		return VH_UNHANDLED;
	int64_t span = t->t1 - t->t0, mid = t->t0 + span / 2;
	if (t->sel_ev != UINT32_MAX && store_ts(t->rs, t->sel_ev) < t->t1 &&
	    store_ts(t->rs, t->sel_ev) + store_dur(t->rs, t->sel_ev) > t->t0)
		mid = store_ts(t->rs, t->sel_ev) + store_dur(t->rs, t->sel_ev) / 2;
	switch (act) {
	case ACT_DOWN:
	case ACT_UP:
	case ACT_PAGE_DOWN:
	case ACT_PAGE_UP:
	case ACT_TOP:
	case ACT_BOTTOM: {
		listbox_handle(&t->lb, act);
		/* group rows are headings: step over them */
		if (t->lb.sel < t->n_rows && t->rows[t->lb.sel].kind == ROW_GROUP) {
			if ((act == ACT_UP || act == ACT_PAGE_UP || act == ACT_BOTTOM) && t->lb.sel > 0 &&
			    act != ACT_BOTTOM)
				t->lb.sel--;
			else if (t->lb.sel + 1 < t->n_rows)
				t->lb.sel++;
			listbox_clamp(&t->lb, t->lb.height);
		}
		return VH_HANDLED;
	}
	case ACT_ZOOM_IN:
		push_undo(t);
		set_window(t, mid - span / 4, mid + span / 4);
		return VH_HANDLED;
	case ACT_ZOOM_OUT: {
		push_undo(t);
		int64_t whole = t->rs->window_end - t->rs->window_start;
		whole = whole > (TL_MAX - TL_MIN) / 4 ? TL_MAX - TL_MIN : whole * 4;
		int64_t ns = span > whole / 2 ? whole : span * 2;
		set_window(t, mid - ns / 2, mid + ns / 2);
		return VH_HANDLED;
	}
	case ACT_PAN_LEFT: set_window(t, t->t0 - span / 4, t->t1 - span / 4); return VH_HANDLED;
	case ACT_PAN_RIGHT: set_window(t, t->t0 + span / 4, t->t1 + span / 4); return VH_HANDLED;
	case ACT_FIT:
		push_undo(t);
		fit(t);
		return VH_HANDLED;
	case ACT_UNDO_ZOOM:
		if (t->n_undo) {
			t->n_undo--;
			set_window(t, t->undo[t->n_undo][0], t->undo[t->n_undo][1]);
		} else {
			app_message(app, ST_DIM, _("no earlier zoom"));
		}
		return VH_HANDLED;
	case ACT_NEXT_EVENT: step_event(t, app, 1); return VH_HANDLED;
	case ACT_PREV_EVENT: step_event(t, app, -1); return VH_HANDLED;
	case ACT_LONGEST: longest_in_view(t, app); return VH_HANDLED;
	case ACT_ROW_MODE:
		/* lanes, then one row per op, then every rank (with more than one) */
		if (t->per_rank) {
			t->per_rank = false;
		} else if (t->per_op) {
			t->per_op = false;
			t->per_rank = app_rank_count(app) > 1;
		} else {
			t->per_op = true;
		}
		t->lb.sel = t->per_rank ? 0 : 1;
		t->lb.top = 0;
		build_rows(t);
		if (t->per_rank)
			app_message(app, ST_NORMAL, _("every rank on the %s-aligned clock; Enter opens the rank's lanes"),
				    result_align_name(app_align(app)));
		return VH_HANDLED;
	case ACT_ROW_SORT:
		if (!t->per_op) {
			app_message(app, ST_DIM, _("row sort applies to per-op rows (r)"));
			return VH_HANDLED;
		}
		t->op_sort = (enum op_rows_sort)((t->op_sort + 1) % OP_ROWS_SORT_COUNT);
		op_rows_sort(t->ops, t->n_ops, t->op_sort);
		app_message(app, ST_NORMAL, _("op rows by %s"), op_sort_names[t->op_sort]);
		return VH_HANDLED;
	case ACT_MARK:
		if (t->n_marks < MAX_MARKS) {
			t->marks[t->n_marks++] = t->sel_ev != UINT32_MAX ? store_ts(t->rs, t->sel_ev) : mid;
			app_message(app, ST_NORMAL, _("mark %d set"), t->n_marks);
		}
		return VH_HANDLED;
	case ACT_NEXT_MARK:
		if (!t->n_marks) {
			app_message(app, ST_DIM, _("no marks (m sets one)"));
			return VH_HANDLED;
		}
		t->mark_pos = (t->mark_pos + 1) % t->n_marks;
		set_window(t, t->marks[t->mark_pos] - span / 2, t->marks[t->mark_pos] + span / 2);
		return VH_HANDLED;
	case ACT_DETAIL:
		if (t->per_rank && t->lb.sel < t->n_rows && t->rows[t->lb.sel].kind == ROW_RANK) {
			/* the rank's own lanes at the same moment */
			size_t ri = t->rows[t->lb.sel].lane;
			int64_t shift = rank_shift(t, app, ri);
			int64_t a = t->t0 + shift, b = t->t1 + shift;
			t->per_rank = false;
			struct view_target tg = {.timeline = {ri, a, b, UINT32_MAX}};
			app_open(app, VIEW_TIMELINE, &tg);
			return VH_HANDLED;
		}
		if (t->range_state == 2) {
			/* the detail drawer is under the range's totals: clear the range first */
			app_message(app, ST_DIM, _("v clears the range, then Enter shows the detail"));
			return VH_HANDLED;
		}
		t->drawer = !t->drawer;
		return VH_HANDLED;
	case ACT_RANGE: range_key(t, app); return VH_HANDLED;
	case ACT_STACK: {
		const struct lane *l = sel_lane(t);
		if (t->per_op || !l) {
			app_message(app, ST_DIM, _("select a lane first (j/k)"));
			return VH_HANDLED;
		}
		if (l->depth_max < 2) {
			app_message(app, ST_DIM, _("this lane's events do not nest"));
			return VH_HANDLED;
		}
		uint32_t li = (uint32_t)(l - t->rs->lanes);
		if (!t->stacked)
			t->stacked = xcalloc(t->rs->n_lanes ? t->rs->n_lanes : 1, sizeof *t->stacked);
		t->stacked[li] = !t->stacked[li];
		build_rows(t);
		size_t r = row_of_lane(t, li);
		if (r != (size_t)-1)
			t->lb.sel = r;
		listbox_clamp(&t->lb, t->lb.height);
		if (t->stacked[li])
			app_message(app, ST_NORMAL, _("%d nesting level(s) as rows%s; e folds them"), l->depth_max,
				    l->depth_max > STACK_ROWS ? _(" (the first 24)") : "");
		return VH_HANDLED;
	}
	case ACT_FLOW_NEXT: follow_flow(t, app, true); return VH_HANDLED;
	case ACT_FLOW_PREV: follow_flow(t, app, false); return VH_HANDLED;
	case ACT_FLOW_OTHER_NEXT: other_flow(t, app, 1); return VH_HANDLED;
	case ACT_FLOW_OTHER_PREV: other_flow(t, app, -1); return VH_HANDLED;
	default: return VH_UNHANDLED;
	}
}

static bool search(void *p, struct app *app, const char *text, int dir)
{
	struct timeline *t = p;
	const struct rank_store *rs = t->rs;
	if (!rs || !rs->n_ev)
		return false;
	/* events in file order, starting after the selection; names are interned, so each
	 * distinct name is tested once */
	uint32_t nstr = strtab_count(rs->strs);
	uint8_t *hit = xcalloc(nstr, 1); /* 0 unknown, 1 no, 2 yes */
	size_t n = rs->n_ev, start = t->sel_ev == UINT32_MAX ? 0 : t->sel_ev;
	bool found = false;
	for (size_t k = dir == 0 && t->sel_ev == UINT32_MAX ? 0 : 1; k <= n; k++) {
		size_t ev = dir < 0 ? (start + n - k) % n : (start + k) % n;
		uint32_t id = rs->ev_name[ev];
		if (!hit[id])
			hit[id] = strcasestr(store_str(rs, id), text) ? 2 : 1;
		if (hit[id] == 2) {
			select_event(t, (uint32_t)ev, true);
			found = true;
			break;
		}
	}
	if (found) {
		/* which match in file order, of how many: one more pass over the names */
		size_t k = 0, m = 0;
		for (size_t ev = 0; ev < n; ev++) {
			uint32_t id = rs->ev_name[ev];
			if (!hit[id])
				hit[id] = strcasestr(store_str(rs, id), text) ? 2 : 1;
			if (hit[id] == 2) {
				m++;
				if (ev == t->sel_ev)
					k = m;
			}
		}
		app_search_matches(app, k, m);
	}
	free(hit);
	return found;
}

/* ---- export ------------------------------------------------------------------------ */

struct export_ctx {
	FILE *out;
	const struct timeline *t;
	const struct lane *l;
	int64_t t0; /* the rank's first event, as the views' ms count from it */
	char rank[16];
	size_t n;
};

static void export_event(void *p, uint32_t ev)
{
	struct export_ctx *c = p;
	const struct rank_store *rs = c->t->rs;
	char b[3][40];
	int64_t ts = store_ts(rs, ev);
	snprintf(b[0], 40, "%.6f", (double)(ts - c->t0) / 1e6);
	snprintf(b[1], 40, "%.3f", (double)store_dur(rs, ev) / 1e3);
	num_format_ns_as_us(ts, b[2], sizeof b[2]);
	const char *row[] = {c->rank, store_str(rs, c->l->process_name), store_str(rs, c->l->thread_name),
			     store_ev_name(rs, ev),
			     c->t->cls ? category_name((enum ev_category)c->t->cls[ev].cat) : "", b[0], b[1], b[2]};
	csvw_row(c->out, row, sizeof row / sizeof row[0]);
	c->n++;
}

/* The selected rank's events in the range (v) when one is set, else in the view: every
 * lane's, in lane order, each lane's by start. */
static size_t export_csv(void *p, struct app *app, FILE *out)
{
	struct timeline *t = p;
	bind_rank(t, app, app_rank_index(app));
	static const char *const head[] = {"rank", "process", "thread", "name", "category", "start_ms", "dur_us", "ts_us"};
	csvw_row(out, head, sizeof head / sizeof head[0]);
	if (!t->rs || !t->ra)
		return 0;
	int64_t a = t->range_state == 2 ? t->range_a : t->t0, b = t->range_state == 2 ? t->range_b : t->t1;
	struct export_ctx c = {.out = out, .t = t, .t0 = app_ra_t0(t->ra)};
	snprintf(c.rank, sizeof c.rank, "%d", app_ra_rank(t->ra));
	for (size_t li = 0; li < t->rs->n_lanes; li++) {
		c.l = &t->rs->lanes[li];
		if (c.l->n_events)
			lanes_visit_in(t->rs, c.l, a, b, export_event, &c, NULL);
	}
	return c.n;
}

const struct view_ops timeline_view_ops = {
	.title = N_("Timeline"),
	.scopes = KS_TIMELINE,
	.create = create,
	.destroy = destroy,
	.draw = draw,
	.handle = handle,
	.update = update,
	.search = search,
	.hint = N_("w/s zoom  a/d pan  f fit  . , l select  Enter detail  ] [ flows  r rows"),
	.export_csv = export_csv,
	.open = open_target,
};
