/* SPDX-License-Identifier: MIT */
/* Compare (--compare BEFORE AFTER, --compare-ranks R1 R2): the pair of ranks shown as
 * three tables, figures, ops and bottlenecks, with two value columns and a delta, sortable
 * by delta. Enter on an op shows it in both: its statistics side by side, its time in each
 * step, and the two timelines of the selected step stacked on one time scale. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lanes.h"
#include "op_rows.h"
#include "report.h"
#include "views.h"
#include "xalloc.h"

enum cmp_table { TBL_FIGURES, TBL_OPS, TBL_BOTTLENECKS, TBL_COUNT };

enum fig_sort { FS_TABLE, FS_DELTA, FS_VERDICT, FS_NAME, FS_N };
static const char *fig_sort_names[FS_N] = {N_("table order"), N_("delta %"), N_("verdict"), N_("name")};

enum op_sort { OS_DTOTAL, OS_DAVG, OS_DCOUNT, OS_DPCT, OS_CHANGE, OS_NAME, OS_N };
static const char *op_sort_names[OS_N] = {N_("delta total"), N_("delta avg"), N_("delta count"), N_("delta %"),
					  N_("change"),      N_("name")};

struct compare_view {
	enum cmp_table table;
	int sort[TBL_COUNT];
	bool reverse;
	int scope, phase;
	char filter[128];
	const struct compare_pair *pair;
	size_t *rows; /* figure ids, or indices into pair->ops */
	size_t n_rows;
	struct listbox lb;
};

static void *create(struct app *app)
{
	(void)app;
	struct compare_view *v = xcalloc(1, sizeof *v);
	v->scope = SCOPE_DEVICE;
	return v;
}

static void destroy(void *p)
{
	struct compare_view *v = p;
	free(v->rows);
	free(v);
}

/* ---- rows and sorting --------------------------------------------------------------- */

/* How much a figure changed, for sorting: relative, a change from zero counting most. */
static double fig_change(const struct compare_value *cv)
{
	if (cv->verdict == CMP_NA)
		return -1;
	if (isnan(cv->delta_pct))
		return cv->delta != 0 ? INFINITY : 0;
	return fabs(cv->delta_pct);
}

static int verdict_rank(enum compare_verdict v)
{
	static const int rank[] = {[CMP_WORSE] = 0, [CMP_BETTER] = 1,          [CMP_CHANGED] = 2,
				   [CMP_SAME] = 3,  [CMP_NOT_COMPARABLE] = 4, [CMP_NA] = 5};
	return rank[v];
}

static int cmp_num(double x, double y) { return x > y ? -1 : x < y; } /* largest first */

static int cmp_fig_rows(const void *a, const void *b, void *ctx)
{
	const struct compare_view *v = ctx;
	int fa = (int)*(const size_t *)a, fb = (int)*(const size_t *)b;
	const struct compare_value *x = &v->pair->fig[fa], *y = &v->pair->fig[fb];
	int c = 0;
	switch ((enum fig_sort)v->sort[TBL_FIGURES]) {
	case FS_DELTA: c = cmp_num(fig_change(x), fig_change(y)); break;
	case FS_VERDICT: c = verdict_rank(x->verdict) - verdict_rank(y->verdict); break;
	case FS_NAME: c = strcasecmp(compare_fig(fa).label, compare_fig(fb).label); break;
	default: break;
	}
	if (!c)
		c = fa - fb;
	return v->reverse ? -c : c;
}

static int cmp_op_rows(const void *a, const void *b, void *ctx)
{
	const struct compare_view *v = ctx;
	const struct op_diff *x = &v->pair->ops[*(const size_t *)a], *y = &v->pair->ops[*(const size_t *)b];
	int c = 0;
	switch ((enum op_sort)v->sort[TBL_OPS]) {
	case OS_DTOTAL: c = cmp_num(fabs((double)x->delta_total_ns), fabs((double)y->delta_total_ns)); break;
	case OS_DAVG: c = cmp_num(fabs(x->delta_avg_ns), fabs(y->delta_avg_ns)); break;
	case OS_DCOUNT: c = cmp_num(fabs((double)x->delta_count), fabs((double)y->delta_count)); break;
	case OS_DPCT:
		c = cmp_num(isnan(x->delta_total_pct) ? INFINITY : fabs(x->delta_total_pct),
			    isnan(y->delta_total_pct) ? INFINITY : fabs(y->delta_total_pct));
		break;
	case OS_CHANGE: c = (int)y->change - (int)x->change; break;
	default: break;
	}
	if (!c)
		c = strcmp(x->name, y->name);
	if (!c)
		c = analysis_group_cmp(x->group, y->group);
	return v->reverse ? -c : c;
}

static void rebuild(struct compare_view *v, struct app *app)
{
	v->pair = app_compare_pair(app);
	free(v->rows);
	v->rows = NULL;
	v->n_rows = 0;
	if (!v->pair)
		return;
	const struct compare_pair *p = v->pair;
	if (v->table == TBL_FIGURES) {
		v->rows = xmalloc(CF_COUNT * sizeof *v->rows);
		for (int f = 0; f < CF_COUNT; f++) {
			const struct compare_value *cv = &p->fig[f];
			if ((cv->have[0] && cv->v[0] != 0) || (cv->have[1] && cv->v[1] != 0))
				v->rows[v->n_rows++] = (size_t)f;
		}
		xqsort_r(v->rows, v->n_rows, sizeof *v->rows, cmp_fig_rows, v);
	} else if (v->table == TBL_OPS) {
		v->rows = xmalloc((p->n_ops ? p->n_ops : 1) * sizeof *v->rows);
		for (size_t i = 0; i < p->n_ops; i++) {
			const struct op_diff *d = &p->ops[i];
			char label[600];
			if (d->scope == v->scope && d->phase == v->phase &&
			    (!v->filter[0] || strcasestr(op_rows_label(d->name, d->group, label, sizeof label), v->filter)))
				v->rows[v->n_rows++] = i;
		}
		xqsort_r(v->rows, v->n_rows, sizeof *v->rows, cmp_op_rows, v);
	}
	v->lb.n = v->n_rows;
	listbox_clamp(&v->lb, v->lb.height);
}

static void update(void *p, struct app *app)
{
	struct compare_view *v = p;
	rebuild(v, app);
}

/* ---- drawing ------------------------------------------------------------------------ */

static enum style verdict_style(enum compare_verdict vd)
{
	return vd == CMP_BETTER ? ST_GOOD : vd == CMP_WORSE ? ST_WARN : ST_NORMAL;
}

static void draw_head(struct compare_view *v, struct app *app, struct canvas *cv, int x, int y, int w)
{
	const struct comparison *c = app_comparison(app);
	if (c->mode == CMP_CAPTURES)
		canvas_textf(cv, x + 1, y, w - 2, ST_BOLD, _("before %s   after %s"), c->an[0]->cap->plan.path,
			     c->an[1]->cap->plan.path);
	else
		canvas_textf(cv, x + 1, y, w - 2, ST_BOLD, _("%s against %s of %s"), c->label[1], c->label[0],
			     c->an[0]->cap->plan.path);
	char sort[96] = "";
	if (v->table != TBL_BOTTLENECKS)
		snprintf(sort, sizeof sort, _("   sort %s%s"),
			 _(v->table == TBL_FIGURES ? fig_sort_names[v->sort[TBL_FIGURES]] : op_sort_names[v->sort[TBL_OPS]]),
			 v->reverse ? _(" (reversed)") : "");
	char scope[256] = "";
	if (v->table == TBL_OPS)
		snprintf(scope, sizeof scope, _("   scope %s   phase %s%s%s"), result_scope_name((enum op_scope)v->scope),
			 v->phase == PHASE_UNKNOWN ? "all" : result_phase_name((enum phase)v->phase),
			 v->filter[0] ? _("   filter: ") : "", v->filter);
	canvas_textf(cv, x + 1, y + 1, w - 2, ST_NORMAL, _("table %s%s%s   rank %d vs %d   %zu warning(s)"),
		     v->table == TBL_FIGURES ? _("figures") : v->table == TBL_OPS ? C_("compare table", "ops") : _("bottlenecks"),
		     sort, scope, app_ra_rank(v->pair->ra[0]), app_ra_rank(v->pair->ra[1]), c->n_warnings);
}

/* What each side recorded, before any verdict: the items that differ (at most max lines),
 * or one line saying they are alike; returns the lines used. */
static int draw_recorded(struct app *app, struct canvas *cv, int x, int y, int w, int max)
{
	const struct comparison *c = app_comparison(app);
	if (!c->n_recorded_differ) {
		canvas_text(cv, x + 1, y, w - 2, ST_DIM,
			    _("recorded alike: level, Python frames, stack, shapes, steps, mstx, export, ranks"));
		return 1;
	}
	int used = 0;
	for (int k = 0; k < REC_COUNT && used < max; k++) {
		const struct compare_recorded *r = &c->recorded[k];
		if (r->differs)
			canvas_textf(cv, x + 1, y + used++, w - 2, ST_WARN, _("recorded: %s %s on %s, %s on %s"), _(r->label),
				     r->value[0], c->label[0], r->value[1], c->label[1]);
	}
	return used;
}

/* Comparability warnings, at most max lines; returns the lines used. */
static int draw_warnings(struct app *app, struct canvas *cv, int x, int y, int w, int max)
{
	const struct comparison *c = app_comparison(app);
	int used = 0;
	for (size_t i = 0; i < c->n_warnings && used < max; i++, used++) {
		if (used == max - 1 && i + 1 < c->n_warnings) {
			canvas_textf(cv, x + 1, y + used, w - 2, ST_WARN, _("! ... %zu more (--report --compare lists them)"),
				     c->n_warnings - i);
			return used + 1;
		}
		canvas_textf(cv, x + 1, y + used, w - 2, ST_WARN, "! %s", c->warnings[i]);
	}
	return used;
}

struct column {
	const char *title;
	int width;
};

static void header_row(struct canvas *cv, int x, int y, int w, const char *first, int first_w,
		       const struct column *cols, int n)
{
	canvas_fill(cv, x, y, w, 1, ' ', ST_HEADER);
	canvas_text(cv, x + 1, y, first_w, ST_HEADER, first[0] ? _(first) : "");
	int cx = x + 1 + first_w;
	for (int c = 0; c < n; c++) {
		/* a column title is a run's label (as given) or a marked title */
		canvas_text_right(cv, cx, y, cols[c].width - 1, ST_HEADER, cols[c].title);
		cx += cols[c].width;
	}
}

static void draw_figures(struct compare_view *v, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	const struct comparison *c = app_comparison(app);
	struct column cols[] = {{c->label[0], 14}, {c->label[1], 14}, {_("delta"), 14}, {_("delta %"), 10}, {_("verdict"), 15}};
	int ncols = 5, num_w = 67, name_w = w - num_w - 2;
	if (name_w < 18) {
		ncols = 4;
		name_w += 15;
	}
	header_row(cv, x, y, w, N_("figure"), name_w, cols, ncols);
	int body = h - 1;
	listbox_clamp(&v->lb, body);
	for (int r = 0; r < body && v->lb.top + (size_t)r < v->n_rows; r++) {
		size_t idx = v->lb.top + (size_t)r;
		int f = (int)v->rows[idx];
		const struct compare_value *val = &v->pair->fig[f];
		struct compare_fig_def d = compare_fig(f);
		bool sel = idx == v->lb.sel;
		int ry = y + 1 + r;
		enum style st = sel ? ST_SELECTED : ST_NORMAL;
		if (sel)
			canvas_fill(cv, x, ry, w, 1, ' ', ST_SELECTED);
		canvas_text(cv, x + 1, ry, name_w - 1, st, _(d.label));
		char b[5][32];
		report_value_text(val->have[0] ? val->v[0] : NAN, d.unit, false, b[0], sizeof b[0]);
		report_value_text(val->have[1] ? val->v[1] : NAN, d.unit, false, b[1], sizeof b[1]);
		report_value_text(val->delta, d.unit, true, b[2], sizeof b[2]);
		snprintf(b[3], sizeof b[3], isnan(val->delta_pct) ? "" : "%+.2f %%", val->delta_pct);
		snprintf(b[4], sizeof b[4], "%s", compare_verdict_name(val->verdict));
		int cx = x + 1 + name_w;
		for (int k = 0; k < ncols; k++) {
			enum style cs = !sel && k >= 2 ? verdict_style(val->verdict) : st;
			canvas_text_right(cv, cx, ry, cols[k].width - 1, cs, b[k]);
			cx += cols[k].width;
		}
	}
	if (!v->n_rows)
		canvas_text(cv, x + 1, y + 2, w - 2, ST_DIM, _("no figures on either side"));
}

/* Op columns, most telling first: as many as fit beside a name of 20 columns or more. */
enum op_col { OC_CHANGE, OC_DTOTAL, OC_DPCT, OC_COUNT_A, OC_COUNT_B, OC_TOTAL_A, OC_TOTAL_B, OC_DAVG, OC_AVG_A,
	      OC_AVG_B, OC_N };

static void op_cells(const struct op_diff *d, char b[OC_N][32])
{
	snprintf(b[OC_CHANGE], 32, "%s", compare_op_change_name(d->change));
	snprintf(b[OC_DTOTAL], 32, "%+.3f", (double)d->delta_total_ns / 1e6);
	snprintf(b[OC_DPCT], 32, isnan(d->delta_total_pct) ? "-" : "%+.1f%%", d->delta_total_pct);
	for (int s = 0; s < 2; s++) {
		const struct op_stat *o = d->s[s];
		snprintf(b[OC_COUNT_A + s], 32, o ? "%llu" : "-", o ? (unsigned long long)o->count : 0ULL);
		snprintf(b[OC_TOTAL_A + s], 32, o ? "%.3f" : "-", o ? (double)o->total_ns / 1e6 : 0.0);
		snprintf(b[OC_AVG_A + s], 32, o ? "%.3f" : "-", o ? o->avg_ns / 1e3 : 0.0);
	}
	snprintf(b[OC_DAVG], 32, d->s[0] && d->s[1] ? "%+.3f" : "-", d->delta_avg_ns / 1e3);
}

static void draw_ops(struct compare_view *v, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	const struct comparison *c = app_comparison(app);
	char t[OC_N][32];
	snprintf(t[OC_COUNT_A], 32, "n %s", c->label[0]);
	snprintf(t[OC_COUNT_B], 32, "n %s", c->label[1]);
	snprintf(t[OC_TOTAL_A], 32, _("ms %s"), c->label[0]);
	snprintf(t[OC_TOTAL_B], 32, _("ms %s"), c->label[1]);
	snprintf(t[OC_AVG_A], 32, _("avg %s"), c->label[0]);
	snprintf(t[OC_AVG_B], 32, _("avg %s"), c->label[1]);
	struct column all[OC_N] = {{_("change"), 9},	 {_("d total ms"), 12}, {"d %", 9},	 {t[OC_COUNT_A], 10},
				   {t[OC_COUNT_B], 10}, {t[OC_TOTAL_A], 12}, {t[OC_TOTAL_B], 12}, {_("d avg us"), 11},
				   {t[OC_AVG_A], 12},	 {t[OC_AVG_B], 12}};
	int ncols = 0, num_w = 0;
	while (ncols < OC_N && w - 2 - num_w - all[ncols].width >= 20)
		num_w += all[ncols++].width;
	int name_w = w - 2 - num_w;
	header_row(cv, x, y, w, N_("name"), name_w, all, ncols);
	int body = h - 1;
	listbox_clamp(&v->lb, body);
	for (int r = 0; r < body && v->lb.top + (size_t)r < v->n_rows; r++) {
		size_t idx = v->lb.top + (size_t)r;
		const struct op_diff *d = &v->pair->ops[v->rows[idx]];
		bool sel = idx == v->lb.sel;
		int ry = y + 1 + r;
		enum style st = sel ? ST_SELECTED : d->change == OPC_SAME ? ST_DIM : ST_NORMAL;
		if (sel)
			canvas_fill(cv, x, ry, w, 1, ' ', ST_SELECTED);
		canvas_set(cv, x, ry, category_glyph(d->category, 1), sel ? ST_SELECTED : category_style(d->category));
		char label[600];
		canvas_text(cv, x + 1, ry, name_w - 1, st, op_rows_label(d->name, d->group, label, sizeof label));
		char b[OC_N][32];
		op_cells(d, b);
		if (!d->comparable) /* a phase of steps defined two ways: no change to read */
			snprintf(b[OC_CHANGE], sizeof b[OC_CHANGE], "%s", _("n/c"));
		enum style cs = sel ? ST_SELECTED
				: !d->comparable || d->change == OPC_SAME ? ST_DIM
				: d->change == OPC_SLOWER || d->change == OPC_ADDED ? ST_WARN : ST_GOOD;
		int cx = x + 1 + name_w;
		for (int k = 0; k < ncols; k++) {
			canvas_text_right(cv, cx, ry, all[k].width - 1, k < OC_COUNT_A ? cs : st, b[k]);
			cx += all[k].width;
		}
	}
	if (!v->n_rows)
		canvas_text(cv, x + 1, y + 2, w - 2, ST_DIM, v->filter[0] ? _("no op matches the filter") : _("no ops here"));
}

static void draw_bottlenecks(struct compare_view *v, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	const struct comparison *c = app_comparison(app);
	const struct compare_pair *p = v->pair;
	int row = y, end = y + h;
	struct column cols[] = {{c->label[0], 10}, {c->label[1], 10}, {_("delta"), 8}};
	header_row(cv, x, row++, w, N_("bottleneck score (>= 40 triggers)"), 34, cols, 3);
	for (int k = 0; k < BN_COUNT && row < end; k++, row++) {
		canvas_text(cv, x + 1, row, 34, ST_NORMAL, app_ra_bn(p->ra[0])[k].name);
		int cx = x + 35;
		for (int s = 0; s < 2; s++, cx += 10)
			canvas_textf(cv, cx, row, 9, p->bn_score[s][k] >= 40 ? ST_WARN : ST_GOOD, "%9d", p->bn_score[s][k]);
		canvas_textf(cv, cx, row, 7, ST_NORMAL, "%+7d", p->bn_score[1][k] - p->bn_score[0][k]);
		if (!p->bn_comparable[k])
			canvas_text(cv, cx + 9, row, x + w - cx - 10, ST_DIM, _("not comparable"));
	}
	row++;
	if (p->have_gain && row < end) {
		const struct compare_gain *g = &p->gain;
		if (g->gain_known)
			canvas_textf(cv, x + 1, row++, w - 2, g->verdict == GAIN_ACHIEVED ? ST_GOOD : ST_WARN,
				     _("top bottleneck of %s: %s, expected gain %.1f-%.1f %%: %s"), c->label[0], g->name,
				     g->low_pct, g->high_pct, compare_gain_verdict_name(g->verdict));
		else
			canvas_textf(cv, x + 1, row++, w - 2, ST_WARN, _("top bottleneck of %s: %s, expected gain unknown: %s"),
				     c->label[0], g->name, compare_gain_verdict_name(g->verdict));
		/* the basis, wrapped at spaces */
		const char *s = g->basis;
		while (*s && row < end) {
			size_t n = strlen(s), max = (size_t)(w - 6 > 10 ? w - 6 : 10);
			if (n > max) {
				n = max;
				while (n > 0 && s[n] != ' ')
					n--;
				if (!n)
					n = max;
			}
			canvas_textn(cv, x + 3, row++, w - 4, ST_DIM, s, n);
			s += n;
			while (*s == ' ')
				s++;
		}
		row++;
	}
	if (row < end)
		canvas_textf(cv, x + 1, row++, w - 2, ST_HEADER, _("op time by category, %% of the scope (%s -> %s)"),
			     c->label[0], c->label[1]);
	for (int s = SCOPE_DEVICE; s <= SCOPE_HOST && row < end; s++, row++) {
		char line[256];
		canvas_text(cv, x + 1, row, w - 2, ST_NORMAL, report_compare_categories(p, s, line, sizeof line));
	}
	row++;
	for (int s = SCOPE_DEVICE; s <= SCOPE_HOST && row < end; s++, row++) {
		const size_t *n = p->n_change[s][PHASE_UNKNOWN];
		canvas_textf(cv, x + 1, row, w - 2, ST_NORMAL,
			     _("%s ops: %zu slower, %zu faster, %zu added, %zu removed, %zu same (t: the ops table)"),
			     result_scope_name((enum op_scope)s), n[OPC_SLOWER], n[OPC_FASTER], n[OPC_ADDED],
			     n[OPC_REMOVED], n[OPC_SAME]);
	}
}

static void draw(void *p, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	struct compare_view *v = p;
	if (v->pair != app_compare_pair(app))
		rebuild(v, app);
	const struct published *pub = app_pub(app);
	if (!pub) {
		canvas_text(cv, x + 1, y + 1, w - 2, ST_DIM, _("loading both sides..."));
		return;
	}
	if (!v->pair) {
		canvas_text(cv, x + 1, y + 1, w - 2, ST_WARN,
			    pub->cmp_error[0] ? pub->cmp_error : _("no ranks to compare (see the warnings of --report --compare)"));
		return;
	}
	draw_head(v, app, cv, x, y, w);
	int top = y + 2;
	if (v->table == TBL_FIGURES) {
		top += draw_recorded(app, cv, x, top, w, 3);
		top += draw_warnings(app, cv, x, top, w, 3);
	}
	if (v->table == TBL_FIGURES)
		draw_figures(v, app, cv, x, top, w, y + h - top);
	else if (v->table == TBL_OPS)
		draw_ops(v, app, cv, x, top, w, y + h - top);
	else
		draw_bottlenecks(v, app, cv, x, top, w, y + h - top);
}

/* ---- keys --------------------------------------------------------------------------- */

static int handle(void *p, struct app *app, enum action act)
{
	struct compare_view *v = p;
	if (!v->pair)
		return VH_UNHANDLED;
	if (v->table != TBL_BOTTLENECKS && listbox_handle(&v->lb, act))
		return VH_HANDLED;
	switch (act) {
	case ACT_COMPARE_TABLE:
		v->table = (enum cmp_table)((v->table + 1) % TBL_COUNT);
		v->lb.sel = v->lb.top = 0;
		break;
	case ACT_SORT_NEXT:
		if (v->table == TBL_BOTTLENECKS)
			return VH_UNHANDLED;
		v->sort[v->table] = (v->sort[v->table] + 1) % (v->table == TBL_FIGURES ? FS_N : OS_N);
		break;
	case ACT_SORT_REVERSE: v->reverse = !v->reverse; break;
	case ACT_OP_SCOPE:
	case ACT_PHASE:
		if (v->table != TBL_OPS) {
			app_message(app, ST_DIM, _("scope and phase apply to the ops table (t)"));
			return VH_HANDLED;
		}
		if (act == ACT_OP_SCOPE)
			v->scope = (v->scope + 1) % SCOPE_COUNT;
		else
			v->phase = (v->phase + 1) % 3; /* all, prefill, decode */
		break;
	case ACT_OPEN: {
		if (v->table != TBL_OPS || !v->n_rows)
			return VH_UNHANDLED;
		const struct op_diff *d = &v->pair->ops[v->rows[v->lb.sel]];
		struct view_target tg = {.compare_op = {d->name, d->scope, d->phase, d->group, d->collective}};
		app_open(app, VIEW_COMPARE_OP, &tg);
		return VH_HANDLED;
	}
	default: return VH_UNHANDLED;
	}
	rebuild(v, app);
	return VH_HANDLED;
}

static bool row_matches(const void *ctx, size_t i, const char *text)
{
	const struct compare_view *v = ctx;
	char label[600];
	const struct op_diff *d = v->table == TBL_FIGURES ? NULL : &v->pair->ops[v->rows[i]];
	const char *name = d ? op_rows_label(d->name, d->group, label, sizeof label) : compare_fig((int)v->rows[i]).label;
	return strcasestr(name, text) != NULL;
}

static bool search(void *p, struct app *app, const char *text, int dir)
{
	(void)app;
	struct compare_view *v = p;
	return v->pair && listbox_search(&v->lb, dir, row_matches, v, text);
}

static bool filter(void *p, struct app *app, const char *text)
{
	struct compare_view *v = p;
	snprintf(v->filter, sizeof v->filter, "%s", text);
	if (v->table != TBL_OPS)
		app_message(app, ST_DIM, _("the filter applies to the ops table (t)"));
	rebuild(v, app);
	return true;
}

const struct view_ops compare_view_ops = {
	.title = N_("Compare"),
	.scopes = KS_LIST | KS_OPS | KS_COMPARE,
	.create = create,
	.destroy = destroy,
	.draw = draw,
	.handle = handle,
	.update = update,
	.search = search,
	.filter = filter,
	.hint = N_("t table  s sort  S reverse  c scope  p phase  \\ filter  Enter: op in both"),
};

/* ---- one op in both ----------------------------------------------------------------- */

struct op_side {
	struct compare_side cs;
	bool ok;
	uint32_t *evs; /* the op's events, by start */
	size_t n;
	int64_t max_dur;
	int64_t *step_ns; /* per step of the side: the op's time and calls in its window */
	size_t *step_calls;
};

struct compare_op {
	char name[512];
	char group[128]; /* a collective row's group, "" none */
	bool collective;
	int scope, phase;
	const struct compare_pair *pair;
	struct op_side side[2];
	size_t n_steps; /* the longer side's */
	struct listbox lb; /* over steps, paired by index */
};

static struct op_key cop_key(const struct compare_op *o)
{
	return (struct op_key){o->name, o->group[0] ? o->group : NULL, o->collective};
}

static void *cop_create(struct app *app)
{
	(void)app;
	return xcalloc(1, sizeof(struct compare_op));
}

static void cop_clear(struct compare_op *o)
{
	for (int s = 0; s < 2; s++) {
		free(o->side[s].evs);
		free(o->side[s].step_ns);
		free(o->side[s].step_calls);
		memset(&o->side[s], 0, sizeof o->side[s]);
	}
	o->n_steps = 0;
}

static void cop_destroy(void *p)
{
	cop_clear(p);
	free(p);
}

static void cop_load(struct compare_op *o, struct app *app)
{
	cop_clear(o);
	o->pair = app_compare_pair(app);
	for (int s = 0; s < 2; s++) {
		struct op_side *sd = &o->side[s];
		sd->ok = app_compare_side(app, s, &sd->cs);
		if (!sd->ok)
			continue;
		const struct rank_store *rs = &sd->cs.rd->store;
		const struct rank_analysis *ra = sd->cs.ra;
		/* each side's own row: a collective paired across groups has a group per side */
		const struct op_diff *d = compare_find_op(o->pair, o->scope, o->phase, cop_key(o));
		struct op_key key = d && d->s[s] ? op_key_of(d->s[s]) : cop_key(o);
		sd->n = op_rows_instances(rs, app_ra_cls(ra), key, o->scope, &sd->evs);
		sd->step_ns = xcalloc(app_ra_n_steps(ra) ? app_ra_n_steps(ra) : 1, sizeof *sd->step_ns);
		sd->step_calls = xcalloc(app_ra_n_steps(ra) ? app_ra_n_steps(ra) : 1, sizeof *sd->step_calls);
		sd->max_dur = op_rows_by_step(ra, rs, sd->evs, sd->n, sd->step_ns, sd->step_calls);
		if (app_ra_n_steps(ra) > o->n_steps)
			o->n_steps = app_ra_n_steps(ra);
	}
	o->lb.n = o->n_steps;
	listbox_clamp(&o->lb, o->lb.height);
}

/* app_open: the op of the target, on the step where its time differs most. */
static void cop_open(void *st, struct app *app, const struct view_target *target)
{
	struct compare_op *o = st;
	snprintf(o->name, sizeof o->name, "%s", target->compare_op.name);
	snprintf(o->group, sizeof o->group, "%s", target->compare_op.group ? target->compare_op.group : "");
	o->collective = target->compare_op.collective;
	o->scope = target->compare_op.scope;
	o->phase = target->compare_op.phase;
	o->lb.sel = o->lb.top = 0;
	cop_load(o, app);
	/* start on the first step where the op's time differs most */
	int64_t best = -1;
	for (size_t k = 0; k < o->n_steps; k++) {
		int64_t d[2] = {0, 0};
		for (int s = 0; s < 2; s++)
			if (o->side[s].ok && k < app_ra_n_steps(o->side[s].cs.ra))
				d[s] = o->side[s].step_ns[k];
		if (llabs(d[1] - d[0]) > best) {
			best = llabs(d[1] - d[0]);
			o->lb.sel = k;
		}
	}
}

static void cop_update(void *p, struct app *app)
{
	struct compare_op *o = p;
	if (o->name[0] && o->pair != app_compare_pair(app))
		cop_load(o, app);
}

static void stat_rows(const struct op_diff *d, const struct comparison *c, struct canvas *cv, int x, int y, int w)
{
	struct column cols[] = {{c->label[0], 14}, {c->label[1], 14}, {_("delta"), 14}, {_("delta %"), 10}};
	header_row(cv, x, y, w, "", 12, cols, 4);
	static const char *names[] = {N_("calls"), N_("total"), N_("avg"), "p50", "p95", N_("max"), N_("share")};
	for (int r = 0; r < 7; r++) {
		double v[2] = {NAN, NAN};
		for (int s = 0; s < 2; s++) {
			const struct op_stat *o = d->s[s];
			if (!o)
				continue;
			double vals[7] = {(double)o->count, (double)o->total_ns, o->avg_ns, (double)o->p50_ns,
					  (double)o->p95_ns, (double)o->max_ns, o->share_pct};
			v[s] = vals[r];
		}
		const char *unit = r == 0 ? "count" : r == 6 ? "%" : "us";
		double k = r == 0 || r == 6 ? 1 : 1e3; /* ns to us */
		char b[4][32];
		report_value_text(v[0] / k, unit, false, b[0], sizeof b[0]);
		report_value_text(v[1] / k, unit, false, b[1], sizeof b[1]);
		report_value_text((isnan(v[0]) ? 0 : v[1] - v[0]) / k, unit, true, b[2], sizeof b[2]);
		snprintf(b[3], sizeof b[3], !isnan(v[0]) && !isnan(v[1]) && v[0] ? "%+.2f %%" : "",
			 100.0 * (v[1] - v[0]) / v[0]);
		if (isnan(v[1]))
			snprintf(b[2], sizeof b[2], "-");
		canvas_text(cv, x + 1, y + 1 + r, 12, ST_NORMAL, _(names[r]));
		int cx = x + 13;
		for (int i = 0; i < 4; i++, cx += cols[i - 1].width)
			canvas_text_right(cv, cx, y + 1 + r, cols[i].width - 1, ST_NORMAL, b[i]);
	}
}

/* One row of a stacked timeline: a lane group's union (host or device) or the op's own
 * instances, over [t0, t0 + span) in w cells; cells past `end` stay empty. */
enum tl_row { TL_HOST, TL_DEVICE, TL_OP };

static void timeline_row(const struct op_side *sd, enum tl_row kind, int64_t t0, int64_t end, int64_t span,
			 struct canvas *cv, int x, int y, int w)
{
	const struct rank_store *rs = &sd->cs.rd->store;
	for (int c = 0; c < w; c++) {
		int64_t a = t0 + span * c / w, b = t0 + span * (c + 1) / w;
		if (a >= end || b <= a)
			break;
		double cov = 0;
		uint8_t mask = 0;
		if (kind == TL_OP) {
			int seen;
			int64_t in = op_rows_cover(rs, sd->evs, sd->n, sd->max_dur, a, b, INT_MAX, &seen);
			cov = (double)in / (double)(b - a);
			if (in > 0 && cov < 0.05)
				cov = 0.05;
			canvas_set(cv, x + c, y, cov > 0 ? (cov >= 0.5 ? 0x2588 : 0x2584) : ' ', ST_MARK);
			continue;
		}
		for (size_t li = 0; sd->cs.lods && li < rs->n_lanes; li++) {
			const struct lane *l = &rs->lanes[li];
			if (kind == TL_HOST ? !lanes_group_is_host(l->group) : l->group != LANE_DEVICE)
				continue;
			struct lod_result r;
			lod_query(rs, app_ra_cls(sd->cs.ra), l, &sd->cs.lods[li], a, b, &r);
			if (r.coverage > cov)
				cov = r.coverage;
			mask |= r.mask;
		}
		int cat = lod_pick_category(mask);
		canvas_set(cv, x + c, y, category_glyph(cat, mask ? (cov < 0.05 ? 0.05 : cov) : 0), category_style(cat));
	}
}

/* The selected step of both sides, stacked on one time scale; returns the rows used. */
static int stacked_timelines(struct compare_op *o, struct canvas *cv, int x, int y, int w)
{
	size_t k = o->lb.sel;
	int64_t span = 1;
	for (int s = 0; s < 2; s++) {
		const struct rank_analysis *ra = o->side[s].ok ? o->side[s].cs.ra : NULL;
		const struct step *st = ra && k < app_ra_n_steps(ra) ? &app_ra_steps(ra)[k] : NULL;
		if (st && st->has_window && st->end - st->start > span)
			span = st->end - st->start;
	}
	int row = y;
	static const char *labels[] = {"host", "device", "op"};
	for (int s = 0; s < 2; s++) {
		const struct op_side *sd = &o->side[s];
		const struct rank_analysis *ra = sd->ok ? sd->cs.ra : NULL;
		if (!ra || k >= app_ra_n_steps(ra) || !app_ra_steps(ra)[k].has_window) {
			canvas_textf(cv, x + 1, row, w - 2, ST_DIM, _("%s: no step %zu with timestamps"),
				     sd->ok ? sd->cs.label : "?", k + 1);
			row += 4;
			continue;
		}
		const struct step *st = &app_ra_steps(ra)[k];
		char b1[24], b2[24];
		canvas_textf(cv, x + 1, row++, w - 2, ST_BOLD, _("%s, step %zu (%s): %s, the op %s in %zu call(s)%s"),
			     sd->cs.label, k + 1, _(result_phase_name(st->phase)), app_fmt_dur(st->end - st->start, b1, sizeof b1),
			     app_fmt_dur(sd->step_ns[k], b2, sizeof b2), sd->step_calls[k],
			     sd->cs.lods ? "" : _(" (no trace)"));
		for (int t = 0; t < 3; t++, row++) {
			canvas_text(cv, x + 2, row, 7, ST_DIM, labels[t]);
			timeline_row(sd, (enum tl_row)t, st->start, st->end, span, cv, x + 9, row, w - 10);
		}
	}
	return row - y;
}

static void cop_draw(void *p, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	struct compare_op *o = p;
	if (o->pair != app_compare_pair(app))
		cop_load(o, app);
	const struct comparison *c = app_comparison(app);
	const struct op_diff *d = compare_find_op(o->pair, o->scope, o->phase, cop_key(o));
	char label[700];
	canvas_textf(cv, x + 1, y, w - 2, ST_BOLD, "%s",
		     o->name[0] ? op_rows_label(o->name, cop_key(o).group, label, sizeof label) : _("(no op selected)"));
	if (!d || !c)
		return;
	char change[96];
	if (d->s[0] && d->s[1])
		snprintf(change, sizeof change, _("%s by total, %s per call"), compare_op_change_name(d->change),
			 compare_op_change_name(d->avg_change));
	else
		snprintf(change, sizeof change, _("only on %s"), c->label[d->s[0] ? 0 : 1]);
	canvas_textf(cv, x + 1, y + 1, w - 2, ST_NORMAL, _("%s scope, %s: %s"), result_scope_name((enum op_scope)o->scope),
		     o->phase == PHASE_UNKNOWN ? _("all phases") : _(result_phase_name((enum phase)o->phase)), change);
	stat_rows(d, c, cv, x, y + 2, w);
	int row = y + 11;
	row += stacked_timelines(o, cv, x, row, w);
	int body = y + h - row - 1;
	canvas_fill(cv, x, row, w, 1, ' ', ST_HEADER);
	canvas_textf(cv, x + 1, row++, w - 2, ST_HEADER, _("step  phase    %-12s %-12s  op in %-12s op in %s"), c->label[0],
		     c->label[1], c->label[0], c->label[1]);
	listbox_clamp(&o->lb, body);
	for (int r = 0; r < body && o->lb.top + (size_t)r < o->n_steps; r++) {
		size_t k = o->lb.top + (size_t)r;
		bool sel = k == o->lb.sel;
		if (sel)
			canvas_fill(cv, x, row + r, w, 1, ' ', ST_SELECTED);
		char dur[2][24] = {"-", "-"}, op[2][40] = {"-", "-"};
		const char *phase = "-";
		for (int s = 0; s < 2; s++) {
			const struct op_side *sd = &o->side[s];
			if (!sd->ok || k >= app_ra_n_steps(sd->cs.ra))
				continue;
			const struct step *st = &app_ra_steps(sd->cs.ra)[k];
			app_fmt_dur(st->end - st->start, dur[s], sizeof dur[s]);
			char b[24];
			snprintf(op[s], sizeof op[s], "%s / %zu", app_fmt_dur(sd->step_ns[k], b, sizeof b), sd->step_calls[k]);
			phase = _(result_phase_name(st->phase));
		}
		int pad = 7 - canvas_width(phase); /* by display width: a translated phase */
		canvas_textf(cv, x + 1, row + r, w - 2, sel ? ST_SELECTED : ST_NORMAL, "%4zu  %s%*s  %-12s %-12s  %-18s %s",
			     k + 1, phase, pad > 0 ? pad : 0, "", dur[0], dur[1], op[0], op[1]);
	}
}

static int cop_handle(void *p, struct app *app, enum action act)
{
	struct compare_op *o = p;
	if (listbox_handle(&o->lb, act))
		return VH_HANDLED;
	if (act != ACT_OPEN || !o->side[0].ok)
		return VH_UNHANDLED;
	const struct rank_analysis *ra = o->side[0].cs.ra;
	if (o->lb.sel >= app_ra_n_steps(ra) || !app_ra_steps(ra)[o->lb.sel].has_window) {
		app_message(app, ST_WARN, _("%s has no step %zu with timestamps"), o->side[0].cs.label, o->lb.sel + 1);
		return VH_HANDLED;
	}
	/* the explorer's timeline shows the first side's capture */
	const struct step *st = &app_ra_steps(ra)[o->lb.sel];
	struct view_target tg = {.timeline = {o->pair->rank_index[0], st->win_start, st->win_end,
					      UINT32_MAX}};
	app_open(app, VIEW_TIMELINE, &tg);
	return VH_HANDLED;
}

const struct view_ops compare_op_view_ops = {
	.title = N_("Compare op"),
	.scopes = KS_LIST,
	.create = cop_create,
	.destroy = cop_destroy,
	.draw = cop_draw,
	.handle = cop_handle,
	.update = cop_update,
	.hint = N_("j/k step: both timelines stacked   Enter: the step on the Timeline (first side)"),
	.open = cop_open,
};
