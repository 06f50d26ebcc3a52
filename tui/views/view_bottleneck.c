/* SPDX-License-Identifier: MIT */
/* Bottleneck: the four candidates as scored bars, their evidence (metric, value,
 * threshold, source), expected gains with confidence and what to try. Enter on an evidence
 * line goes where it can be seen: the longest idle gap, the longest exposed collective,
 * the longest copy or sync on the timeline; the steps or ops for the others. Below them
 * the longest device-idle gaps with their causes (gaps.h): Enter shows the gap on the
 * timeline; then the Ascend advice rules (advice.h): Enter on a finding shows its longest
 * instance. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advice.h"
#include "comm_split.h"
#include "csvw.h"
#include "sanitize.h"
#include "views.h"
#include "xalloc.h"

enum line_kind { L_HEAD, L_EVIDENCE, L_GAIN, L_ADVICE, L_BLANK, L_SUMMARY, L_VERDICT, L_ATTR, L_ATTR_LEGEND,
		L_INSUFFICIENT, L_REASON, L_ADV_HEAD, L_ADV, L_PHASES, L_PHASE, L_GAP_HEAD, L_GAP, L_OUT_HEAD, L_OUT };

struct bline {
	enum line_kind kind;
	int bn;    /* candidate */
	size_t ev; /* evidence index */
};

struct bn_view {
	struct bline *lines;
	size_t n, cap;
	struct listbox lb;
	const struct rank_analysis *ra;
};

static void *create(struct app *app)
{
	(void)app;
	return xcalloc(1, sizeof(struct bn_view));
}

static void destroy(void *p)
{
	struct bn_view *v = p;
	free(v->lines);
	free(v);
}

static void add(struct bn_view *v, enum line_kind k, int bn, size_t ev)
{
	xgrow(&v->lines, &v->cap, v->n + 1, sizeof *v->lines);
	v->lines[v->n++] = (struct bline){k, bn, ev};
}

static void rebuild(struct bn_view *v, struct app *app)
{
	v->ra = app_rank_analysis(app);
	v->n = 0;
	if (!v->ra)
		return;
	/* the candidates in the verdict's order: the triggered ones by expected gain */
	int order[BN_COUNT];
	bottleneck_verdict_order(v->ra, order);
	add(v, L_SUMMARY, -1, 0);
	if (BN_COUNT > 1 && app_ra_bn(v->ra)[order[1]].score >= 40) /* two triggered: say what ranks them */
		add(v, L_VERDICT, -1, 0);
	add(v, L_ATTR, -1, 0);
	if (app_ra_attr(v->ra)->valid)
		add(v, L_ATTR_LEGEND, -1, 0);
	if (app_ra_n_by_phase(v->ra)) { /* a verdict per phase (phase_verdict.h) */
		add(v, L_PHASES, -1, 0);
		for (size_t i = 0; i < app_ra_n_by_phase(v->ra); i++)
			add(v, L_PHASE, -1, i);
	}
	add(v, L_BLANK, -1, 0);
	if (app_ra_n_outliers(v->ra)) { /* the collectives named on their own (comm_split.h) */
		add(v, L_OUT_HEAD, -1, 0);
		for (size_t i = 0; i < app_ra_n_outliers(v->ra); i++)
			add(v, L_OUT, -1, i);
		add(v, L_BLANK, -1, 0);
	}
	for (int i = 0; i < BN_COUNT; i++) {
		const struct bottleneck *b = &app_ra_bn(v->ra)[order[i]];
		char why[VERDICT_REASON_MAX];
		add(v, L_HEAD, order[i], 0);
		if (bottleneck_verdict_reason(v->ra, order[i], why, sizeof why))
			add(v, L_REASON, order[i], 0);
		if (b->insufficient)
			add(v, L_INSUFFICIENT, order[i], 0);
		for (size_t e = 0; e < b->n_ev; e++)
			add(v, L_EVIDENCE, order[i], e);
		if (b->score >= 40) {
			add(v, L_GAIN, order[i], 0);
			add(v, L_ADVICE, order[i], 0);
		}
		add(v, L_BLANK, -1, 0);
	}
	if (app_ra_gaps(v->ra)->valid) {
		add(v, L_GAP_HEAD, -1, 0);
		for (size_t i = 0; i < app_ra_gaps(v->ra)->n_top; i++)
			add(v, L_GAP, -1, i);
		add(v, L_BLANK, -1, 0);
	}
	add(v, L_ADV_HEAD, -1, 0);
	/* the problems first, then what was seen below its threshold (dimmed, as evidence) */
	for (int pass = 1; pass >= 0; pass--)
		for (size_t i = 0; i < app_ra_n_advice(v->ra); i++)
			if (app_ra_advice(v->ra)[i].triggered == (bool)pass)
				add(v, L_ADV, -1, i);
	v->lb.n = v->n;
	/* start on the first evidence line */
	for (size_t i = 0; i < v->n; i++)
		if (v->lines[i].kind == L_EVIDENCE) {
			v->lb.sel = i;
			break;
		}
}

static void update(void *p, struct app *app) { rebuild(p, app); }

/* The gaps' total and the causes that hold time, largest first as the cause table lists
 * them (by its order). */
static void draw_gaps_head(struct canvas *cv, int x, int y, int w, const struct rank_analysis *ra)
{
	const struct gap_analysis *g = app_ra_gaps(ra);
	char causes[512] = "";
	size_t len = 0;
	for (int c = 0; c < GAP_CAUSE_COUNT && len < sizeof causes; c++)
		if (g->by_cause[c])
			len += (size_t)snprintf(causes + len, sizeof causes - len, "%s%s %.3f", len ? ", " : "",
						gaps_cause_name((enum gap_cause)c), (double)g->by_cause[c] / 1e6);
	canvas_textf(cv, x, y, w, ST_BOLD, _("device-idle gaps: %llu, %.3f ms (ms by cause: %s); Enter shows one"),
		     (unsigned long long)g->count, (double)g->total_ns / 1e6, causes);
}

static void draw_gap_line(struct canvas *cv, int x, int y, int w, bool sel, const struct rank_analysis *ra,
			  const struct gap *g)
{
	char step[48] = "-";
	if (g->step >= 0 && (size_t)g->step < app_ra_n_steps(ra))
		snprintf(step, sizeof step, "%d %s", g->step + 1,
			 _(result_step_phase_name(&app_ra_steps(ra)[g->step])));
	canvas_textf(cv, x, y, w, sel ? ST_SELECTED : ST_NORMAL, _("%10.3f us at %.3f ms, step %s: %s (host: %s)"),
		     (double)g->dur / 1e3, (double)(g->start - app_ra_t0(ra)) / 1e6, step,
		     gaps_cause_name((enum gap_cause)g->cause),
		     gaps_host_name((enum gap_host)g->host));
}

/* One collective named on its own: where, how much, and its parts. */
static void draw_outlier_line(struct canvas *cv, int x, int y, int w, bool sel, const struct rank_analysis *ra,
			      const struct coll_outlier *o)
{
	const struct attribution *a = app_ra_attr(ra);
	char *name = sanitize_dup(o->name ? o->name : "", o->name ? strlen(o->name) : 0);
	canvas_textf(cv, x, y, w, sel ? ST_SELECTED : ST_NORMAL,
		     _("%5.1f %% %s at %.3f ms: setup %.1f %%, waiting for a peer %.1f %%, transfer %.1f %%, unsplit %.1f %%%s"),
		     attribution_pct(a, o->exposed_ns), name, (double)(o->start - app_ra_t0(ra)) / 1e6,
		     attribution_pct(a, o->part_ns[2]), attribution_pct(a, o->part_ns[0]), attribution_pct(a, o->part_ns[1]),
		     attribution_pct(a, o->part_ns[3]), o->first_in_group ? _("; its group's first collective") : "");
	free(name);
}

/* The selected evidence or rule, its candidate's gain and what to try, in full in a drawer
 * at the bottom (at most half the height): the rows it took. */
static int draw_drawer(struct bn_view *v, struct canvas *cv, int x, int y, int w, int h)
{
	const struct bline *sl = v->lb.sel < v->n ? &v->lines[v->lb.sel] : NULL;
	const char *paras[3] = {NULL, NULL, NULL};
	char gain[512] = "", advice[512] = "", seen[1024] = "";
	if (sl && sl->kind == L_EVIDENCE) {
		const struct bottleneck *b = &app_ra_bn(v->ra)[sl->bn];
		paras[0] = b->ev[sl->ev].text;
		snprintf(gain, sizeof gain, _("%s: expected gain %.1f-%.1f %% of the window, confidence %s: %s"), b->name,
			 b->gain.low_pct, b->gain.high_pct, result_confidence_text(b->gain.conf), b->gain.basis);
		snprintf(advice, sizeof advice, _("try: %s"), b->advice);
		paras[1] = gain;
		paras[2] = advice;
	} else if (sl && sl->kind == L_ADV) {
		const struct advice_finding *f = &app_ra_advice(v->ra)[sl->ev];
		const struct advice_rule *r = &advice_rules[f->rule];
		snprintf(seen, sizeof seen,
			 f->triggered ? _("%s (%.1f %s >= %.1f, confidence %s): %s")
				      : _("%s (%.1f %s < threshold %.1f, confidence %s): %s"),
			 _(r->title), f->value, r->unit, r->threshold, result_confidence_text(f->conf), f->evidence);
		paras[0] = seen;
		snprintf(gain, sizeof gain, _("why: %s"), _(r->why));
		snprintf(advice, sizeof advice, _("try: %s"), _(r->try_this));
		paras[1] = gain;
		paras[2] = advice;
	}
	int drawer = 0, max_drawer = h / 2;
	for (int k = 0; k < 3 && paras[k]; k++)
		drawer += canvas_wrap(NULL, 0, 0, w - 2, 0, ST_NORMAL, paras[k]);
	if (drawer > max_drawer)
		drawer = max_drawer;
	if (drawer) {
		int dy = y + h - drawer;
		canvas_fill(cv, x, dy, w, drawer, ' ', ST_HEADER);
		for (int k = 0; k < 3 && paras[k] && dy < y + h; k++)
			dy += canvas_wrap(cv, x + 1, dy, w - 2, y + h - dy, ST_HEADER, paras[k]);
	}
	return drawer;
}

/* One line of the list at row ry. */
static void draw_line(struct bn_view *v, struct canvas *cv, int x, int ry, int w, const struct bline *l, bool sel)
{
	const struct bottleneck *b = l->bn >= 0 ? &app_ra_bn(v->ra)[l->bn] : NULL;
	switch (l->kind) {
	case L_SUMMARY:
		canvas_textf(cv, x + 1, ry, w - 2, ST_BOLD,
			     _("rank %d: score 0-100 from thresholded evidence (40 triggers); combined expected gain "
			     "%.1f-%.1f %% (capped at 70 %%)"),
			     app_ra_rank(v->ra), app_ra_combined_gain_low(v->ra),
			     app_ra_combined_gain_high(v->ra));
		break;
	case L_VERDICT: {
		/* the triggered candidates come in the verdict's order: say so, and name the first */
		int order[BN_COUNT];
		bottleneck_verdict_order(v->ra, order);
		canvas_textf(cv, x + 1, ry, w - 2, ST_WARN,
			     _("verdict: %s first; the triggered candidates by expected gain, not by score"),
			     app_ra_bn(v->ra)[order[0]].name);
		break;
	}
	case L_REASON: {
		int order[BN_COUNT];
		bottleneck_verdict_order(v->ra, order);
		char why[VERDICT_REASON_MAX];
		canvas_textf(cv, x + 5, ry, w - 6, sel ? ST_SELECTED : ST_NORMAL, _("after %s: %s"),
			     app_ra_bn(v->ra)[order[0]].name,
			     bottleneck_verdict_reason(v->ra, l->bn, why, sizeof why));
		break;
	}
	case L_ATTR:
		draw_attribution_bar(cv, x + 1, ry, w - 2, app_ra_attr(v->ra));
		break;
	case L_ATTR_LEGEND:
		draw_attribution_legend(cv, x + 1, ry, w - 2, app_ra_attr(v->ra));
		break;
	case L_PHASES: {
		char line[512];
		canvas_text(cv, x + 1, ry, w - 2, ST_BOLD, view_phases_line(v->ra, line, sizeof line));
		break;
	}
	case L_PHASE: {
		const struct phase_verdict *pv = &app_ra_by_phase(v->ra)[l->ev];
		int cx = x + 3 + canvas_textf(cv, x + 3, ry, w - 4, sel ? ST_SELECTED : ST_BOLD, _("%s: "),
					      _(phase_verdict_name(pv)));
		if (cx < x + w - 1)
			canvas_text(cv, cx, ry, x + w - 1 - cx, sel ? ST_SELECTED : ST_NORMAL, pv->verdict);
		break;
	}
	case L_INSUFFICIENT:
		canvas_text(cv, x + 5, ry, w - 6, sel ? ST_SELECTED : ST_DIM, b->insufficient);
		break;
	case L_HEAD: {
		int cx = x + 1;
		canvas_text(cv, cx, ry, 15, b->score >= 40 ? ST_WARN : ST_BOLD, b->name);
		cx += 15; /* by display width: a translated name is not padded in bytes */
		cx += canvas_textf(cv, cx, ry, 5, ST_BOLD, "%3d ", b->score);
		draw_bar(cv, cx, ry, 30, b->score / 100.0, b->score >= 40 ? ST_WARN : ST_GOOD);
		if (b->score < 40) {
			canvas_text(cv, cx + 31, ry, w - (cx + 31 - x), ST_DIM, _("below threshold"));
			break;
		}
		/* the figure the verdict orders by */
		if (bottleneck_gain_known(v->ra, l->bn))
			canvas_textf(cv, cx + 31, ry, w - (cx + 31 - x), ST_WARN,
				     _("TRIGGERED, expected gain %.1f-%.1f %%"), b->gain.low_pct, b->gain.high_pct);
		else
			canvas_text(cv, cx + 31, ry, w - (cx + 31 - x), ST_WARN, _("TRIGGERED, gain unknown"));
		break;
	}
	case L_EVIDENCE:
		canvas_text(cv, x + 3, ry, 2, sel ? ST_SELECTED : b->ev[l->ev].triggered ? ST_WARN : ST_DIM,
			    b->ev[l->ev].triggered ? "*" : "-");
		canvas_text(cv, x + 5, ry, w - 6, sel ? ST_SELECTED : ST_NORMAL, b->ev[l->ev].text);
		break;
	case L_GAIN:
		canvas_textf(cv, x + 5, ry, w - 6, sel ? ST_SELECTED : ST_GOOD,
			     _("expected gain %.1f-%.1f %% of the window, confidence %s: %s"), b->gain.low_pct,
			     b->gain.high_pct, result_confidence_text(b->gain.conf), b->gain.basis);
		break;
	case L_ADVICE:
		canvas_textf(cv, x + 5, ry, w - 6, sel ? ST_SELECTED : ST_DIM, _("try: %s"), b->advice);
		break;
	case L_ADV_HEAD: {
		/* every rule's status counted, so that "checked, fine" reads apart from "not checked" */
		size_t n = advice_triggered(v->ra), by[ADV_STATUS_COUNT] = {0};
		const uint8_t *status = app_ra_advice_status(v->ra);
		for (int k = 0; k < ADV_COUNT; k++)
			by[status[k] < ADV_STATUS_COUNT ? status[k] : 0]++;
		int cx = x + 1 + canvas_textf(cv, x + 1, ry, w - 2, n ? ST_WARN : ST_BOLD, _("advice (Ascend rules): %s"), n
			     ? _("time already in the buckets named, no extra gain; Enter shows the longest")
			     : app_ra_n_advice(v->ra) ? _("no rule reaches its threshold")
						      : _("no rule saw an instance"));
		if (cx < x + w - 1)
			canvas_textf(cv, cx, ry, x + w - 1 - cx, ST_DIM, _(" (%zu triggered, %zu checked, %zu not applicable)"),
				     by[ADV_STATUS_TRIGGERED], by[ADV_STATUS_CHECKED],
				     by[ADV_STATUS_NOT_APPLICABLE] + by[ADV_STATUS_UNKNOWN]);
		break;
	}
	case L_ADV: {
		const struct advice_finding *f = &app_ra_advice(v->ra)[l->ev];
		const struct advice_rule *rule = &advice_rules[f->rule];
		canvas_text(cv, x + 3, ry, 2, sel ? ST_SELECTED : f->triggered ? ST_WARN : ST_DIM,
			    f->triggered ? "*" : "-");
		int cx = x + 5;
		if (f->triggered)
			cx += canvas_textf(cv, cx, ry, w - 6, sel ? ST_SELECTED : ST_BOLD, _("%s: "), _(rule->title));
		else
			cx += canvas_textf(cv, cx, ry, w - 6, sel ? ST_SELECTED : ST_DIM, _("%s (%.1f %s < %.1f): "),
					   _(rule->title), f->value, rule->unit, rule->threshold);
		if (cx < x + w - 1)
			canvas_text(cv, cx, ry, x + w - 1 - cx, sel ? ST_SELECTED : f->triggered ? ST_NORMAL : ST_DIM,
				    f->evidence);
		break;
	}
	case L_GAP_HEAD:
		draw_gaps_head(cv, x + 1, ry, w - 2, v->ra);
		break;
	case L_GAP:
		draw_gap_line(cv, x + 3, ry, w - 4, sel, v->ra, &app_ra_gaps(v->ra)->top[l->ev]);
		break;
	case L_OUT_HEAD:
		canvas_textf(cv, x + 1, ry, w - 2, ST_HEADER,
			     _("collectives named on their own (%.0f %% of the window or more, %.0f x their kind's median): Enter shows one"),
			     COMM_OUTLIER_PCT, COMM_OUTLIER_FACTOR);
		break;
	case L_OUT:
		draw_outlier_line(cv, x + 3, ry, w - 4, sel, v->ra, &app_ra_outliers(v->ra)[l->ev]);
		break;
	case L_BLANK: break;
	}
}

static void draw(void *p, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	struct bn_view *v = p;
	if (v->ra != app_rank_analysis(app))
		rebuild(v, app);
	if (!v->ra) {
		canvas_text(cv, x + 1, y + 1, w - 2, ST_DIM, _("loading..."));
		return;
	}
	h -= draw_drawer(v, cv, x, y, w, h);
	listbox_clamp(&v->lb, h);
	for (int r = 0; r < h && v->lb.top + (size_t)r < v->n; r++) {
		size_t i = v->lb.top + (size_t)r;
		const struct bline *l = &v->lines[i];
		int ry = y + r;
		bool sel = i == v->lb.sel;
		if (sel)
			canvas_fill(cv, x, ry, w, 1, ' ', ST_SELECTED);
		draw_line(v, cv, x, ry, w, l, sel);
	}
}

/* Shows the interval on the timeline with the event behind it selected, so that Enter
 * there opens its detail. */
static bool jump_to(struct app *app, const struct rank_analysis *ra, enum landmark lm, const char *what)
{
	const int64_t *iv = lm == LANDMARK_IDLE      ? app_ra_longest_idle(ra)
			    : lm == LANDMARK_EXPOSED ? app_ra_longest_exposed(ra)
			    : lm == LANDMARK_COPY    ? app_ra_longest_copy(ra)
						     : app_ra_longest_sync(ra);
	if (iv[1] <= iv[0]) {
		app_message(app, ST_WARN, _("no %s to show in this capture"), what);
		return false;
	}
	const struct rank_data *rd = app_rank_data(app);
	uint32_t ev = rd ? query_landmark_event(ra, &rd->store, lm) : UINT32_MAX;
	int64_t pad = (iv[1] - iv[0]) / 2 + 1000;
	struct view_target tg = {.timeline = {app_rank_index(app), iv[0] - pad, iv[1] + pad, ev}};
	app_open(app, VIEW_TIMELINE, &tg);
	app_message(app, ST_NORMAL, _("the longest %s: %.3f ms%s%s"), what, (double)(iv[1] - iv[0]) / 1e6,
		    ev == UINT32_MAX      ? ""
		    : lm == LANDMARK_IDLE ? _(", selected: the task after it, ")
					  : _(", selected: "),
		    ev == UINT32_MAX ? "" : store_ev_name(&rd->store, ev));
	return true;
}

static int handle(void *p, struct app *app, enum action act)
{
	struct bn_view *v = p;
	if (act == ACT_DOWN || act == ACT_UP) {
		/* evidence lines are what Enter acts on: step from one to the next */
		int dir = act == ACT_DOWN ? 1 : -1;
		for (size_t i = v->lb.sel + (size_t)dir; i < v->n; i += (size_t)dir)
			if (v->lines[i].kind == L_EVIDENCE || v->lines[i].kind == L_ADV || v->lines[i].kind == L_GAP ||
			    v->lines[i].kind == L_OUT) {
				v->lb.sel = i;
				listbox_clamp(&v->lb, v->lb.height);
				break;
			}
		return VH_HANDLED;
	}
	if (listbox_handle(&v->lb, act))
		return VH_HANDLED;
	if (act != ACT_OPEN || !v->ra || v->lb.sel >= v->n)
		return VH_UNHANDLED;
	const struct bline *l = &v->lines[v->lb.sel];
	if (l->kind == L_ADV) {
		const struct advice_finding *f = &app_ra_advice(v->ra)[l->ev];
		const struct rank_data *rd = app_rank_data(app);
		if (f->event_ts == INT64_MIN || !rd) {
			app_message(app, ST_WARN, _("no event to show for %s"), _(advice_rules[f->rule].title));
			return VH_HANDLED;
		}
		int64_t pad = (f->event_end - f->event_ts) / 2 + 1000;
		/* without a trace the instance is a kernel table row: its time on the Timeline */
		struct view_target tg = {
			.timeline = {app_rank_index(app), f->event_ts - pad, f->event_end + pad, f->event}};
		app_open(app, VIEW_TIMELINE, &tg);
		if (f->event == UINT32_MAX)
			app_message(app, ST_NORMAL, _("%s: %.3f ms at kernel table line %u"), _(advice_rules[f->rule].title),
				    (double)(f->event_end - f->event_ts) / 1e6, f->csv_line);
		else
			app_message(app, ST_NORMAL, _("%s: %.3f ms, selected: %s"), _(advice_rules[f->rule].title),
				    (double)(f->event_end - f->event_ts) / 1e6, store_ev_name(&rd->store, f->event));
		return VH_HANDLED;
	}
	if (l->kind == L_OUT) {
		const struct coll_outlier *o = &app_ra_outliers(v->ra)[l->ev];
		const struct rank_data *rd = app_rank_data(app);
		uint32_t ev = rd && rd->store.has_events ? o->event : UINT32_MAX;
		int64_t pad = (o->end - o->start) / 2 + 1000;
		struct view_target tg = {.timeline = {app_rank_index(app), o->start - pad, o->end + pad, ev}};
		app_open(app, VIEW_TIMELINE, &tg);
		app_message(app, ST_NORMAL, _("a collective of %.3f ms, %.3f ms of it exposed"), (double)(o->end - o->start) / 1e6,
			    (double)o->exposed_ns / 1e6);
		return VH_HANDLED;
	}
	if (l->kind == L_GAP) {
		const struct gap *g = &app_ra_gaps(v->ra)->top[l->ev];
		int64_t pad = g->dur / 2 + 1000;
		struct view_target tg = {.timeline = {app_rank_index(app), g->start - pad, g->start + g->dur + pad, UINT32_MAX}};
		app_open(app, VIEW_TIMELINE, &tg);
		app_message(app, ST_NORMAL, _("device-idle gap of %.3f ms: %s (host: %s)"), (double)g->dur / 1e6,
			    gaps_cause_name((enum gap_cause)g->cause), gaps_host_name((enum gap_host)g->host));
		return VH_HANDLED;
	}
	if (l->kind != L_EVIDENCE) {
		app_message(app, ST_DIM, _("Enter on an evidence line shows where it can be seen"));
		return VH_HANDLED;
	}
	const char *m = app_ra_bn(v->ra)[l->bn].ev[l->ev].metric;
	if (!strcmp(m, "host_bound_pct") || !strcmp(m, "host_only_pct") || !strcmp(m, "npu_idle_pct"))
		jump_to(app, v->ra, LANDMARK_IDLE, _("device idle gap"));
	else if (!strncmp(m, "comm_", 5))
		jump_to(app, v->ra, LANDMARK_EXPOSED, _("exposed communication"));
	else if (!strcmp(m, "device_copy_pct"))
		jump_to(app, v->ra, LANDMARK_COPY, _("device copy"));
	else if (!strcmp(m, "copy_exposed_pct") || !strcmp(m, "host_copy_exposed_pct") || !strcmp(m, "sync_per_step"))
		jump_to(app, v->ra, LANDMARK_SYNC, _("host sync"));
	else if (!strcmp(m, "dispatch_per_step"))
		app_push(app, VIEW_STEPS);
	else
		app_push(app, VIEW_OPS);
	return VH_HANDLED;
}

/* One row per evidence line, with its candidate's score, gain and advice; then one per
 * advice finding. */
static size_t export_csv(void *p, struct app *app, FILE *out)
{
	struct bn_view *v = p;
	if (v->ra != app_rank_analysis(app))
		rebuild(v, app);
	static const char *const head[] = {"rank", "candidate", "score", "metric", "value", "threshold", "unit",
					   "triggered", "evidence", "gain_low_pct", "gain_high_pct", "confidence",
					   "advice"};
	csvw_row(out, head, sizeof head / sizeof head[0]);
	size_t rows = 0;
	for (int k = 0; v->ra && k < BN_COUNT; k++) {
		const struct bottleneck *b = &app_ra_bn(v->ra)[k];
		for (size_t e = 0; e < b->n_ev; e++) {
			char f[6][32];
			snprintf(f[0], 32, "%d", app_ra_rank(v->ra));
			snprintf(f[1], 32, "%d", b->score);
			snprintf(f[2], 32, "%.4f", b->ev[e].value);
			snprintf(f[3], 32, "%.4f", b->ev[e].threshold);
			snprintf(f[4], 32, "%.2f", b->gain.low_pct);
			snprintf(f[5], 32, "%.2f", b->gain.high_pct);
			const char *row[] = {f[0], b->name, f[1], b->ev[e].metric, f[2], f[3], b->ev[e].unit,
					     b->ev[e].triggered ? "yes" : "no", b->ev[e].text, f[4], f[5],
					     result_confidence_text(b->gain.conf), b->advice};
			csvw_row(out, row, sizeof row / sizeof row[0]);
			rows++;
		}
	}
	/* then the advice findings: candidate "advice", the rule's id as the metric, no score
	 * and no gain */
	for (size_t i = 0; v->ra && i < app_ra_n_advice(v->ra); i++) {
		const struct advice_finding *f = &app_ra_advice(v->ra)[i];
		const struct advice_rule *r = &advice_rules[f->rule];
		char f0[32], f1[32], f2[32];
		snprintf(f0, sizeof f0, "%d", app_ra_rank(v->ra));
		snprintf(f1, sizeof f1, "%.4f", f->value);
		snprintf(f2, sizeof f2, "%.4f", r->threshold);
		const char *row[] = {f0, "advice", "", r->id, f1, f2, r->unit, f->triggered ? "yes" : "no", f->evidence,
				     "", "", result_confidence_text(f->conf), r->try_this};
		csvw_row(out, row, sizeof row / sizeof row[0]);
		rows++;
	}
	return rows;
}

const struct view_ops bottleneck_view_ops = {
	.title = N_("Bottleneck"),
	.scopes = KS_LIST,
	.create = create,
	.destroy = destroy,
	.draw = draw,
	.handle = handle,
	.update = update,
	.hint = N_("Enter on evidence: show where it is seen   < > rank"),
	.export_csv = export_csv,
};
