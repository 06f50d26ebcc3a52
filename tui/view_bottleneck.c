/* SPDX-License-Identifier: MIT */
/* Bottleneck: the four candidates as scored bars, their evidence (metric, value,
 * threshold, source), expected gains with confidence and what to try. Enter on an evidence
 * line goes where it can be seen: the longest idle gap, the longest exposed collective,
 * the longest copy or sync on the timeline; the steps or ops for the others. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views.h"
#include "xalloc.h"

enum line_kind { L_HEAD, L_EVIDENCE, L_GAIN, L_ADVICE, L_BLANK, L_SUMMARY, L_ATTR, L_ATTR_LEGEND, L_INSUFFICIENT };

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
	int order[BN_COUNT];
	analysis_bottleneck_order(v->ra, order);
	add(v, L_SUMMARY, -1, 0);
	add(v, L_ATTR, -1, 0);
	if (v->ra->attr.valid)
		add(v, L_ATTR_LEGEND, -1, 0);
	add(v, L_BLANK, -1, 0);
	for (int i = 0; i < BN_COUNT; i++) {
		const struct bottleneck *b = &v->ra->bn[order[i]];
		add(v, L_HEAD, order[i], 0);
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
	v->lb.n = v->n;
	/* start on the first evidence line */
	for (size_t i = 0; i < v->n; i++)
		if (v->lines[i].kind == L_EVIDENCE) {
			v->lb.sel = i;
			break;
		}
}

static void update(void *p, struct app *app) { rebuild(p, app); }

static void draw(void *p, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	struct bn_view *v = p;
	if (v->ra != app_rank_analysis(app))
		rebuild(v, app);
	if (!v->ra) {
		canvas_text(cv, x + 1, y + 1, w - 2, ST_DIM, "loading...");
		return;
	}
	listbox_clamp(&v->lb, h);
	for (int r = 0; r < h && v->lb.top + (size_t)r < v->n; r++) {
		size_t i = v->lb.top + (size_t)r;
		const struct bline *l = &v->lines[i];
		int ry = y + r;
		bool sel = i == v->lb.sel;
		if (sel)
			canvas_fill(cv, x, ry, w, 1, ' ', ST_SELECTED);
		const struct bottleneck *b = l->bn >= 0 ? &v->ra->bn[l->bn] : NULL;
		switch (l->kind) {
		case L_SUMMARY:
			canvas_textf(cv, x + 1, ry, w - 2, ST_BOLD,
				     "rank %d: score 0-100 from thresholded evidence (40 triggers); combined expected gain "
				     "%.1f-%.1f %% (capped at 70 %%)",
				     v->ra->rank, v->ra->combined_gain_low, v->ra->combined_gain_high);
			break;
		case L_ATTR:
			draw_attribution_bar(cv, x + 1, ry, w - 2, &v->ra->attr);
			break;
		case L_ATTR_LEGEND:
			draw_attribution_legend(cv, x + 1, ry, w - 2, &v->ra->attr);
			break;
		case L_INSUFFICIENT:
			canvas_text(cv, x + 5, ry, w - 6, sel ? ST_SELECTED : ST_DIM, b->insufficient);
			break;
		case L_HEAD: {
			int cx = x + 1;
			cx += canvas_textf(cv, cx, ry, 16, b->score >= 40 ? ST_WARN : ST_BOLD, "%-15s", b->name);
			cx += canvas_textf(cv, cx, ry, 5, ST_BOLD, "%3d ", b->score);
			draw_bar(cv, cx, ry, 30, b->score / 100.0, b->score >= 40 ? ST_WARN : ST_GOOD);
			canvas_text(cv, cx + 31, ry, w - (cx + 31 - x), b->score >= 40 ? ST_WARN : ST_DIM,
				    b->score >= 40 ? "TRIGGERED" : "below threshold");
			break;
		}
		case L_EVIDENCE:
			canvas_text(cv, x + 3, ry, 2, sel ? ST_SELECTED : b->ev[l->ev].triggered ? ST_WARN : ST_DIM,
				    b->ev[l->ev].triggered ? "*" : "-");
			canvas_text(cv, x + 5, ry, w - 6, sel ? ST_SELECTED : ST_NORMAL, b->ev[l->ev].text);
			break;
		case L_GAIN:
			canvas_textf(cv, x + 5, ry, w - 6, sel ? ST_SELECTED : ST_GOOD,
				     "expected gain %.1f-%.1f %% of the window, confidence %s: %s", b->gain.low_pct,
				     b->gain.high_pct, analysis_confidence_name(b->gain.conf), b->gain.basis);
			break;
		case L_ADVICE:
			canvas_textf(cv, x + 5, ry, w - 6, sel ? ST_SELECTED : ST_DIM, "try: %s", b->advice);
			break;
		case L_BLANK: break;
		}
	}
}

static bool jump_to(struct app *app, const int64_t iv[2], const char *what)
{
	if (iv[1] <= iv[0]) {
		app_message(app, ST_WARN, "no %s to show in this capture", what);
		return false;
	}
	int64_t pad = (iv[1] - iv[0]) / 2 + 1000;
	app_goto_timeline(app, app->rank, iv[0] - pad, iv[1] + pad, UINT32_MAX);
	app_message(app, ST_NORMAL, "the longest %s: %.3f ms", what, (double)(iv[1] - iv[0]) / 1e6);
	return true;
}

static int handle(void *p, struct app *app, enum action act)
{
	struct bn_view *v = p;
	if (act == ACT_DOWN || act == ACT_UP) {
		/* evidence lines are what Enter acts on: step from one to the next */
		int dir = act == ACT_DOWN ? 1 : -1;
		for (size_t i = v->lb.sel + (size_t)dir; i < v->n; i += (size_t)dir)
			if (v->lines[i].kind == L_EVIDENCE) {
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
	if (l->kind != L_EVIDENCE) {
		app_message(app, ST_DIM, "Enter on an evidence line shows where it can be seen");
		return VH_HANDLED;
	}
	const char *m = v->ra->bn[l->bn].ev[l->ev].metric;
	if (!strcmp(m, "host_bound_pct") || !strcmp(m, "npu_idle_pct"))
		jump_to(app, v->ra->longest_idle, "device idle gap");
	else if (!strncmp(m, "comm_", 5))
		jump_to(app, v->ra->longest_exposed, "exposed communication");
	else if (!strcmp(m, "device_copy_pct"))
		jump_to(app, v->ra->longest_copy, "device copy");
	else if (!strcmp(m, "copy_exposed_pct") || !strcmp(m, "sync_per_step"))
		jump_to(app, v->ra->longest_sync, "host sync");
	else if (!strcmp(m, "dispatch_per_step"))
		app_push(app, VIEW_STEPS);
	else
		app_push(app, VIEW_OPS);
	return VH_HANDLED;
}

const struct view_ops bottleneck_view_ops = {
	.title = "Bottleneck",
	.scopes = KS_LIST,
	.create = create,
	.destroy = destroy,
	.draw = draw,
	.handle = handle,
	.update = update,
	.hint = "Enter on evidence: show where it is seen   < > rank",
};
