/* SPDX-License-Identifier: MIT */
/* Ops: the op statistics table (sortable, scoped, phase-filtered, searchable) and the
 * detail of one op: its distribution, instances (Enter jumps to the timeline) and the
 * CSV rows behind it (Enter shows every cell). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "csvw.h"
#include "num.h"
#include "op_rows.h"
#include "views.h"
#include "xalloc.h"

enum sort_col { SORT_TOTAL, SORT_COUNT, SORT_AVG, SORT_P50, SORT_P95, SORT_MAX, SORT_NAME, SORT_DEV, SORT_N };
static const char *sort_names[SORT_N] = {"total", "count", "avg", "p50", "p95", "max", "name", "deviation"};

enum group_key { GROUP_NAME, GROUP_TYPE, GROUP_SHAPE, GROUP_N };
static const char *group_names[GROUP_N] = {"name", "type", "type+shape"};

struct ops_view {
	int scope;         /* enum op_scope */
	enum group_key group; /* name: the rank's ops; type: its op_types; type+shape: its op_shapes */
	int phase;         /* enum phase: UNKNOWN = all */
	enum sort_col sort;
	bool reverse;
	char filter[128];
	size_t *rows;      /* indices into the rank's ops */
	size_t n_rows;
	const struct rank_analysis *ra;
	struct listbox lb;
	int hskip; /* columns scrolled out after the name (Right/l, Left/h) */
	int64_t *self; /* host self time per name id of self_rs (query_host_self_ns), or NULL */
	const struct rank_store *self_rs;
};

static void *ops_create(struct app *app)
{
	(void)app;
	struct ops_view *v = xcalloc(1, sizeof *v);
	v->scope = SCOPE_DEVICE;
	return v;
}

static void ops_destroy(void *p)
{
	struct ops_view *v = p;
	free(v->rows);
	free(v->self);
	free(v);
}

static double sort_key(const struct op_stat *o, enum sort_col sort)
{
	switch (sort) {
	case SORT_TOTAL: return (double)o->total_ns;
	case SORT_COUNT: return (double)o->count;
	case SORT_AVG: return o->avg_ns;
	case SORT_P50: return (double)o->p50_ns;
	case SORT_P95: return (double)o->p95_ns;
	case SORT_MAX: return (double)o->max_ns;
	case SORT_DEV: return isnan(o->deviation_pct) ? -INFINITY : fabs(o->deviation_pct);
	default: return 0;
	}
}

/* Row order of the view (ctx): its sort column and direction, names breaking ties. */
static int cmp_rows(const void *a, const void *b, void *ctx)
{
	const struct ops_view *v = ctx;
	const struct op_stat *ops = app_ra_ops(v->ra);
	const struct op_stat *x = &ops[*(const size_t *)a], *y = &ops[*(const size_t *)b];
	double kx = sort_key(x, v->sort), ky = sort_key(y, v->sort);
	int c = kx > ky ? -1 : kx < ky ? 1 : 0; /* numbers: largest first; the name sorts as 0 */
	if (!c)
		c = strcmp(x->name, y->name);
	if (!c)
		c = analysis_group_cmp(x->group, y->group);
	return v->reverse ? -c : c;
}

/* The grouped rows of the current key: type (all phases) or type and shape (the kernel
 * table), in the scope (all: every scope), filtered, sorted by total, count or name. */
static const struct op_type_stat *group_rows(const struct ops_view *v, size_t *n)
{
	*n = v->group == GROUP_TYPE ? app_ra_n_op_types(v->ra) : app_ra_n_op_shapes(v->ra);
	return v->group == GROUP_TYPE ? app_ra_op_types(v->ra) : app_ra_op_shapes(v->ra);
}

/* Grouped row order of the view (ctx): name, count, or busy time. */
static int cmp_group_rows(const void *a, const void *b, void *ctx)
{
	const struct ops_view *v = ctx;
	size_t n;
	const struct op_type_stat *g = group_rows(v, &n);
	const struct op_type_stat *x = &g[*(const size_t *)a], *y = &g[*(const size_t *)b];
	int c = 0;
	if (v->sort == SORT_COUNT)
		c = x->count > y->count ? -1 : x->count < y->count;
	else if (v->sort != SORT_NAME)
		c = x->busy_ns > y->busy_ns ? -1 : x->busy_ns < y->busy_ns;
	if (!c)
		c = strcmp(x->name, y->name);
	if (!c)
		c = analysis_group_cmp(x->group, y->group);
	return v->reverse ? -c : c;
}

static void rebuild_groups(struct ops_view *v)
{
	size_t n;
	const struct op_type_stat *g = group_rows(v, &n);
	v->rows = xmalloc((n ? n : 1) * sizeof *v->rows);
	for (size_t i = 0; i < n; i++) {
		if (v->scope != SCOPE_ALL && g[i].scope != v->scope)
			continue;
		char label[600];
		if (v->filter[0] && !strcasestr(op_rows_label(g[i].name, g[i].group, label, sizeof label), v->filter))
			continue;
		v->rows[v->n_rows++] = i;
	}
	xqsort_r(v->rows, v->n_rows, sizeof *v->rows, cmp_group_rows, v);
	v->lb.n = v->n_rows;
	v->lb.sel = 0;
	listbox_clamp(&v->lb, v->lb.height);
}

/* A row's name as shown and searched: a collective's with its group. */
static const char *row_label(const struct ops_view *v, size_t i, char *buf, size_t size)
{
	const struct op_stat *o = &app_ra_ops(v->ra)[v->rows[i]];
	return op_rows_label(o->name, o->group, buf, size);
}

static void rebuild(struct ops_view *v, struct app *app)
{
	char keep_name[600] = ""; /* the selected row's, kept selected */
	if (v->group == GROUP_NAME && v->n_rows && v->ra && v->lb.sel < v->n_rows)
		row_label(v, v->lb.sel, keep_name, sizeof keep_name);
	v->ra = app_rank_analysis(app);
	free(v->rows);
	v->rows = NULL;
	v->n_rows = 0;
	const struct rank_data *rd = app_rank_data(app);
	if (v->self_rs != (rd ? &rd->store : NULL) || !v->ra) {
		free(v->self);
		v->self = NULL;
		v->self_rs = NULL;
	}
	if (!v->ra)
		return;
	if (!v->self && v->scope == SCOPE_HOST && app_ra_has_trace(v->ra)) {
		v->self = query_host_self_ns(&rd->store);
		v->self_rs = &rd->store;
	}
	if (v->group != GROUP_NAME) {
		rebuild_groups(v);
		return;
	}
	v->rows = xmalloc((app_ra_n_ops(v->ra) ? app_ra_n_ops(v->ra) : 1) * sizeof *v->rows);
	char label[600];
	for (size_t i = 0; i < app_ra_n_ops(v->ra); i++) {
		const struct op_stat *o = &app_ra_ops(v->ra)[i];
		if (o->scope != v->scope || o->phase != v->phase)
			continue;
		if (v->filter[0] && !strcasestr(op_rows_label(o->name, o->group, label, sizeof label), v->filter))
			continue;
		v->rows[v->n_rows++] = i;
	}
	xqsort_r(v->rows, v->n_rows, sizeof *v->rows, cmp_rows, v);
	v->lb.n = v->n_rows;
	v->lb.sel = 0;
	for (size_t i = 0; keep_name[0] && i < v->n_rows; i++)
		if (!strcmp(row_label(v, i, label, sizeof label), keep_name))
			v->lb.sel = i;
	listbox_clamp(&v->lb, v->lb.height);
}

static void ops_update(void *p, struct app *app) { rebuild(p, app); }

/* A decimal number wider than its column loses decimals, rounded, rather than being cut
 * to an ellipsis: "158553.2..." hid the digits that say how long a 158 ms collective took. */
static void fit_number(char *s, size_t size, int width)
{
	const char *dot = strchr(s, '.');
	if ((int)strlen(s) <= width || !dot || strchr(s, '%'))
		return;
	double v = strtod(s, NULL);
	for (int d = (int)strlen(dot + 1) - 1; d >= 0; d--) {
		char t[64];
		snprintf(t, sizeof t, "%.*f", d, v);
		size_t n = strlen(t);
		if ((int)n <= width || d == 0) {
			if (n < size) /* always: fewer decimals than s had */
				memcpy(s, t, n + 1);
			return;
		}
	}
}

/* The numbers of an op's row in column order: as shown, or for export (more decimals,
 * empty when absent, no signs or units). */
static void op_numbers(const struct op_stat *o, int64_t self_ns, char b[10][32], bool exact)
{
	snprintf(b[0], 32, "%llu", (unsigned long long)o->count);
	snprintf(b[1], 32, "%.*f", exact ? 6 : 3, (double)o->total_ns / 1e6);
	if (self_ns >= 0)
		snprintf(b[2], 32, "%.*f", exact ? 6 : 3, (double)self_ns / 1e6);
	else
		snprintf(b[2], 32, "%s", exact ? "" : "-");
	snprintf(b[3], 32, "%.3f", o->avg_ns / 1e3);
	snprintf(b[4], 32, "%.3f", (double)o->p50_ns / 1e3);
	snprintf(b[5], 32, "%.3f", (double)o->p95_ns / 1e3);
	snprintf(b[6], 32, "%.3f", (double)o->max_ns / 1e3);
	snprintf(b[7], 32, exact ? "%.3f" : "%.1f%%", o->share_pct);
	if (o->csv_total_ns >= 0)
		snprintf(b[8], 32, "%.*f", exact ? 6 : 3, (double)o->csv_total_ns / 1e6);
	else
		snprintf(b[8], 32, "%s", exact ? "" : "-");
	if (isnan(o->deviation_pct))
		snprintf(b[9], 32, "%s", exact ? "" : "-");
	else
		snprintf(b[9], 32, exact ? "%.3f" : "%+.1f", o->deviation_pct);
}

/* The op's self time (host scope, all phases), or -1. */
static int64_t op_self(const struct ops_view *v, const struct op_stat *o)
{
	if (!v->self || o->scope != SCOPE_HOST || o->phase != PHASE_UNKNOWN)
		return -1;
	uint32_t id = strtab_find(v->self_rs->strs, o->name, strlen(o->name));
	return id == STRTAB_NONE ? -1 : v->self[id];
}

static void draw_groups(struct ops_view *v, struct canvas *cv, int x, int y, int w, int h)
{
	static const struct { const char *title; int width; } cols[] = {
		{N_("count"), 9}, {N_("total ms"), 12}, {N_("busy ms"), 12}, {N_("share"), 7}, {N_("names"), 7}};
	int num_w = 0;
	for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
		num_w += cols[c].width;
	int name_w = w - num_w - 2 < 16 ? 16 : w - num_w - 2;
	canvas_fill(cv, x, y, w, 1, ' ', ST_HEADER);
	canvas_text(cv, x + 1, y, name_w, ST_HEADER, v->group == GROUP_TYPE ? _("type") : _("type [input shapes]"));
	int cx = x + 1 + name_w;
	for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
		canvas_text_right(cv, cx, y, cols[c].width - 1, ST_HEADER, _(cols[c].title));
		cx += cols[c].width;
	}
	size_t n;
	const struct op_type_stat *g = group_rows(v, &n);
	int body = h - 1;
	listbox_clamp(&v->lb, body);
	for (int r = 0; r < body && v->lb.top + (size_t)r < v->n_rows; r++) {
		size_t idx = v->lb.top + (size_t)r;
		const struct op_type_stat *t = &g[v->rows[idx]];
		int ry = y + 1 + r;
		bool sel = idx == v->lb.sel;
		enum style st = sel ? ST_SELECTED : ST_NORMAL;
		if (sel)
			canvas_fill(cv, x, ry, w, 1, ' ', ST_SELECTED);
		canvas_set(cv, x, ry, category_glyph(t->category, 1), sel ? ST_SELECTED : category_style(t->category));
		char label[600];
		canvas_text(cv, x + 1, ry, name_w - 1, st, op_rows_label(t->name, t->group, label, sizeof label));
		char b[5][32];
		snprintf(b[0], 32, "%llu", (unsigned long long)t->count);
		snprintf(b[1], 32, "%.3f", (double)t->total_ns / 1e6);
		snprintf(b[2], 32, "%.3f", (double)t->busy_ns / 1e6);
		snprintf(b[3], 32, "%.1f%%", t->share_pct);
		snprintf(b[4], 32, "%zu", t->n_names);
		cx = x + 1 + name_w;
		for (size_t c = 0; c < sizeof cols / sizeof cols[0] && cx + cols[c].width <= x + w; c++) {
			fit_number(b[c], sizeof b[c], cols[c].width - 1);
			canvas_text_right(cv, cx, ry, cols[c].width - 1, st, b[c]);
			cx += cols[c].width;
		}
	}
	if (!v->n_rows)
		canvas_text(cv, x + 1, y + 2, w - 2, ST_DIM,
			    v->group == GROUP_SHAPE ? _("no kernel table with Input Shapes") : _("no op types here"));
}

static void ops_draw(void *p, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	struct ops_view *v = p;
	if (v->ra != app_rank_analysis(app))
		rebuild(v, app);
	char head[256];
	char group[48] = ""; /* shown when not by name */
	if (v->group != GROUP_NAME)
		snprintf(group, sizeof group, _("   group %s"), group_names[v->group]);
	snprintf(head, sizeof head, _(" scope %s   phase %s%s   sort %s%s   %zu %s%s%s"), result_scope_name(v->scope),
		 v->group != GROUP_NAME ? "all" : v->phase == PHASE_UNKNOWN ? "all" : result_phase_name(v->phase),
		 group, sort_names[v->sort], v->reverse ? _(" (reversed)") : "", v->n_rows,
		 v->group == GROUP_NAME ? _("ops") : _("groups"), v->filter[0] ? _("   filter: ") : "", v->filter);
	canvas_text(cv, x, y, w, ST_BOLD, head);
	if (!v->ra) {
		canvas_text(cv, x + 1, y + 2, w - 2, ST_DIM, _("loading..."));
		return;
	}
	if (v->group != GROUP_NAME) {
		draw_groups(v, cv, x, y + 1, w, h - 1);
		return;
	}
	static const struct { const char *title; int width; enum sort_col col; } cols[] = {
		{N_("count"), 8, SORT_COUNT}, {N_("total ms"), 11, SORT_TOTAL}, {N_("self ms"), 10, SORT_N},
		{N_("avg us"), 10, SORT_AVG}, {N_("p50 us"), 10, SORT_P50},     {N_("p95 us"), 10, SORT_P95},
		{N_("max us"), 10, SORT_MAX}, {N_("share"), 7, SORT_N},        {N_("csv ms"), 10, SORT_N},
		{N_("dev %"), 8, SORT_DEV},
	};
	enum { NCOLS = sizeof cols / sizeof cols[0] };
	/* names matter more than numbers: the name column gets up to 40 % of the width (all
	 * of a name when shorter); the numbers that do not fit scroll by column (h l) */
	int longest = 4;
	char label[600];
	for (size_t i = 0; i < v->n_rows; i++) {
		int nw = canvas_width(row_label(v, i, label, sizeof label));
		if (nw > longest)
			longest = nw;
	}
	int want = w * 2 / 5 > 24 ? w * 2 / 5 : 24;
	if (want > longest + 2)
		want = longest + 2;
	bool shown[NCOLS];
	int num_w = 0, widths[NCOLS + 1], n_w = 1, start[NCOLS];
	for (int c = 0; c < NCOLS; c++) {
		/* self time is a host figure (host ops nest, kernels do not), over all phases */
		shown[c] = c != 2 || (v->scope == SCOPE_HOST && v->phase == PHASE_UNKNOWN && v->self);
		num_w += shown[c] ? cols[c].width : 0;
	}
	int name_w = w - num_w - 2 > want ? w - num_w - 2 : want;
	widths[0] = name_w;
	for (int c = 0, at = name_w; c < NCOLS; c++) {
		start[c] = at;
		if (shown[c]) {
			widths[n_w++] = cols[c].width;
			at += cols[c].width;
		}
	}
	struct hscroll hs;
	view_hscroll_setup_cols(&hs, widths, n_w, 1, &v->hskip, w - 2);
	char sel_label[600];
	const char *sel_name = v->lb.sel < v->n_rows ? row_label(v, v->lb.sel, sel_label, sizeof sel_label) : NULL;
	int drawer = view_text_drawer_lines(w, h - 2, name_w - 1, sel_name);
	int hy = y + 1;
	canvas_fill(cv, x, hy, w, 1, ' ', ST_HEADER);
	int cx = x + 1;
	canvas_textf(cv, cx, hy, name_w, ST_HEADER, _("name%s"),
		     v->sort == SORT_NAME ? (v->reverse ? " \u25B4" : " \u25BE") : "");
	for (int c = 0; c < NCOLS; c++) {
		cx = view_hscroll_col(&hs, start[c]);
		if (!shown[c] || cx < 0 || 1 + cx + cols[c].width > w)
			continue;
		char t[24];
		snprintf(t, sizeof t, "%s%s", _(cols[c].title),
			 cols[c].col == v->sort ? (v->reverse ? "\u25B4" : "\u25BE") : "");
		canvas_text_right(cv, x + 1 + cx, hy, cols[c].width - 1, ST_HEADER, t);
	}
	int body = h - 2 - drawer;
	listbox_clamp(&v->lb, body);
	for (int r = 0; r < body && v->lb.top + (size_t)r < v->n_rows; r++) {
		size_t idx = v->lb.top + (size_t)r;
		const struct op_stat *o = &app_ra_ops(v->ra)[v->rows[idx]];
		int ry = y + 2 + r;
		bool sel = idx == v->lb.sel;
		enum style st = sel ? ST_SELECTED : ST_NORMAL;
		if (sel)
			canvas_fill(cv, x, ry, w, 1, ' ', ST_SELECTED);
		canvas_set(cv, x, ry, category_glyph(o->category, 1), sel ? ST_SELECTED : category_style(o->category));
		canvas_text(cv, x + 1, ry, name_w - 1, st, row_label(v, idx, label, sizeof label));
		char b[NCOLS][32];
		op_numbers(o, op_self(v, o), b, false);
		for (int c = 0; c < NCOLS; c++) {
			cx = view_hscroll_col(&hs, start[c]);
			if (!shown[c] || cx < 0 || 1 + cx + cols[c].width > w)
				continue;
			enum style cs = st;
			if (c == 9 && !sel && !isnan(o->deviation_pct) && fabs(o->deviation_pct) > 20)
				cs = ST_WARN;
			fit_number(b[c], sizeof b[c], cols[c].width - 1);
			canvas_text_right(cv, x + 1 + cx, ry, cols[c].width - 1, cs, b[c]);
		}
	}
	view_text_drawer(cv, x, y + h - drawer, w, drawer, sel_name);
	if (!v->n_rows)
		canvas_text(cv, x + 1, y + 3, w - 2, ST_DIM, v->filter[0] ? _("no op matches the filter") : _("no ops here"));
}

static int ops_handle(void *p, struct app *app, enum action act)
{
	struct ops_view *v = p;
	if (listbox_handle(&v->lb, act) || view_hscroll_handle(&v->hskip, act))
		return VH_HANDLED;
	switch (act) {
	case ACT_SORT_NEXT:
		v->sort = (enum sort_col)((v->sort + 1) % SORT_N);
		rebuild(v, app);
		return VH_HANDLED;
	case ACT_SORT_REVERSE:
		v->reverse = !v->reverse;
		rebuild(v, app);
		return VH_HANDLED;
	case ACT_OP_SCOPE:
		v->scope = (v->scope + 1) % SCOPE_COUNT;
		rebuild(v, app);
		return VH_HANDLED;
	case ACT_PHASE:
		v->phase = v->phase == PHASE_UNKNOWN ? PHASE_PREFILL : v->phase == PHASE_PREFILL ? PHASE_DECODE
											      : PHASE_UNKNOWN;
		rebuild(v, app);
		return VH_HANDLED;
	case ACT_OP_GROUP:
		v->group = (enum group_key)((v->group + 1) % GROUP_N);
		rebuild(v, app);
		return VH_HANDLED;
	case ACT_OPEN:
		if (v->n_rows && v->ra && v->group != GROUP_NAME) {
			/* back to the ops, filtered by the group's type */
			size_t n;
			const struct op_type_stat *t = &group_rows(v, &n)[v->rows[v->lb.sel]];
			snprintf(v->filter, sizeof v->filter, "%.*s", (int)strcspn(t->name, " "), t->name);
			if (v->scope == SCOPE_ALL)
				v->scope = t->scope;
			v->group = GROUP_NAME;
			rebuild(v, app);
		} else if (v->n_rows && v->ra) {
			const struct op_stat *o = &app_ra_ops(v->ra)[v->rows[v->lb.sel]];
			struct view_target tg = {.op = {o->name, v->scope, o->group, o->collective}};
			app_open(app, VIEW_OP_DETAIL, &tg);
		}
		return VH_HANDLED;
	default: return VH_UNHANDLED;
	}
}

static bool ops_row_matches(const void *ctx, size_t i, const char *text)
{
	const struct ops_view *v = ctx;
	char label[600];
	if (v->group != GROUP_NAME) {
		size_t n;
		const struct op_type_stat *t = &group_rows(v, &n)[v->rows[i]];
		return strcasestr(op_rows_label(t->name, t->group, label, sizeof label), text) != NULL;
	}
	return strcasestr(row_label(v, i, label, sizeof label), text) != NULL;
}

static bool ops_search(void *p, struct app *app, const char *text, int dir)
{
	(void)app;
	struct ops_view *v = p;
	return v->ra && listbox_search(&v->lb, dir, ops_row_matches, v, text);
}

static size_t ops_export(void *p, struct app *app, FILE *out)
{
	struct ops_view *v = p;
	if (v->ra != app_rank_analysis(app))
		rebuild(v, app);
	if (v->group != GROUP_NAME) { /* the grouped rows as shown */
		static const char *const ghead[] = {"group", "scope", "category", "count", "total_ms", "busy_ms",
						    "share_pct", "names", "comm_group"};
		csvw_row(out, ghead, sizeof ghead / sizeof ghead[0]);
		size_t n;
		const struct op_type_stat *g = group_rows(v, &n);
		for (size_t i = 0; i < v->n_rows; i++) {
			const struct op_type_stat *t = &g[v->rows[i]];
			char b[5][32];
			snprintf(b[0], 32, "%llu", (unsigned long long)t->count);
			snprintf(b[1], 32, "%.6f", (double)t->total_ns / 1e6);
			snprintf(b[2], 32, "%.6f", (double)t->busy_ns / 1e6);
			snprintf(b[3], 32, "%.3f", t->share_pct);
			snprintf(b[4], 32, "%zu", t->n_names);
			const char *row[] = {t->name, result_scope_name(t->scope),
					     category_name((enum ev_category)t->category), b[0], b[1], b[2], b[3], b[4],
					     t->group ? t->group : ""};
			csvw_row(out, row, sizeof row / sizeof row[0]);
		}
		return v->n_rows;
	}
	/* the collectives' group last: the columns before it keep their places */
	static const char *const head[] = {"name",   "scope",  "phase",  "category",  "count",        "total_ms",
					   "self_ms", "avg_us", "p50_us", "p95_us",    "max_us",       "share_pct",
					   "csv_total_ms", "deviation_pct", "comm_group"};
	csvw_row(out, head, sizeof head / sizeof head[0]);
	for (size_t i = 0; i < v->n_rows; i++) {
		const struct op_stat *o = &app_ra_ops(v->ra)[v->rows[i]];
		char b[10][32];
		op_numbers(o, op_self(v, o), b, true);
		const char *row[] = {o->name, result_scope_name(o->scope),
				     o->phase == PHASE_UNKNOWN ? "all" : result_phase_name(o->phase),
				     category_name((enum ev_category)o->category), b[0], b[1], b[2], b[3], b[4], b[5], b[6],
				     b[7], b[8], b[9], o->group ? o->group : ""};
		csvw_row(out, row, sizeof row / sizeof row[0]);
	}
	return v->n_rows;
}

static bool ops_filter(void *p, struct app *app, const char *text)
{
	struct ops_view *v = p;
	snprintf(v->filter, sizeof v->filter, "%s", text);
	rebuild(v, app);
	return true;
}

const struct view_ops ops_view_ops = {
	.title = N_("Ops"),
	.scopes = KS_LIST | KS_OPS,
	.create = ops_create,
	.destroy = ops_destroy,
	.draw = ops_draw,
	.handle = ops_handle,
	.update = ops_update,
	.search = ops_search,
	.filter = ops_filter,
	.hint = N_("s sort  S reverse  c scope  p phase  y group  h l columns  / search  \\ filter  Enter detail"),
	.export_csv = ops_export,
};

/* ---- op detail ---------------------------------------------------------------------- */

struct instance {
	int64_t ts, dur;
	uint32_t ev; /* UINT32_MAX for CSV-only instances */
	size_t ord;  /* its number in time order, from 0 */
};

enum row_kind { ROW_INSTANCE, ROW_CSV };

struct detail_row {
	enum row_kind kind;
	size_t index; /* into instances, or the CSV row number */
	const struct csv_table *table;
};

struct op_detail {
	char name[512];
	char group[128]; /* a collective row's group, "" none */
	bool collective;
	int scope;
	size_t rank;
	struct instance *inst;
	size_t n_inst;
	struct detail_row *rows;
	size_t n_rows;
	struct listbox lb;
	int expanded; /* row whose CSV cells are shown, -1 none */
	struct csv_cells cells;
	bool by_dur, reverse; /* instance order: time or duration (longest first), reversed */
};

static void *detail_create(struct app *app)
{
	(void)app;
	struct op_detail *d = xcalloc(1, sizeof *d);
	d->expanded = -1;
	return d;
}

static void detail_destroy(void *p)
{
	struct op_detail *d = p;
	free(d->inst);
	free(d->rows);
	csvt_cells_free(&d->cells);
	free(d);
}

static struct op_key detail_key(const struct op_detail *d)
{
	return (struct op_key){d->name, d->group[0] ? d->group : NULL, d->collective};
}

static void detail_load(struct op_detail *d, struct app *app)
{
	free(d->inst);
	free(d->rows);
	d->inst = NULL;
	d->rows = NULL;
	d->n_inst = d->n_rows = 0;
	d->expanded = -1;
	csvt_cells_free(&d->cells);
	d->rank = app_rank_index(app);
	const struct rank_data *rd = app_rank_data(app);
	if (!rd)
		return;
	const struct rank_store *rs = &rd->store;
	const struct rank_analysis *ra = app_rank_analysis(app);
	uint32_t *evs;
	d->n_inst = op_rows_instances(rs, ra ? app_ra_cls(ra) : NULL, detail_key(d), d->scope, &evs);
	d->inst = xmalloc((d->n_inst ? d->n_inst : 1) * sizeof *d->inst);
	for (size_t i = 0; i < d->n_inst; i++)
		d->inst[i] = (struct instance){store_ts(rs, evs[i]), store_dur(rs, evs[i]), evs[i], i};
	free(evs);
	size_t rcap = 0;
	for (size_t i = 0; i < d->n_inst && i < 5000; i++) {
		xgrow(&d->rows, &rcap, d->n_rows + 1, sizeof *d->rows);
		d->rows[d->n_rows++] = (struct detail_row){ROW_INSTANCE, i, NULL};
	}
	/* the CSV rows of the same op: the kernel table for device ops, operator_details for host */
	const struct csv_table *tables[2] = {d->scope != SCOPE_HOST ? rd->by_kind[CSV_KERNEL] : NULL,
					     d->scope != SCOPE_DEVICE ? rd->by_kind[CSV_OPERATOR_DETAILS] : NULL};
	for (int t = 0; t < 2; t++) {
		const struct csv_table *tb = tables[t];
		if (!tb)
			continue;
		size_t shown = 0;
		for (size_t r = 0; r < tb->nrows && shown < 2000; r++) {
			if (!op_rows_csv_name_in(detail_key(d), csvt_str(tb, r, COL_NAME)))
				continue;
			xgrow(&d->rows, &rcap, d->n_rows + 1, sizeof *d->rows);
			d->rows[d->n_rows++] = (struct detail_row){ROW_CSV, r, tb};
			shown++;
		}
	}
	d->lb.n = d->n_rows;
	d->lb.sel = d->lb.top = 0;
}

/* app_open: the op of the target. */
static void detail_open(void *st, struct app *app, const struct view_target *target)
{
	struct op_detail *d = st;
	snprintf(d->name, sizeof d->name, "%s", target->op.name);
	snprintf(d->group, sizeof d->group, "%s", target->op.group ? target->op.group : "");
	d->collective = target->op.collective;
	d->scope = target->op.scope;
	detail_load(d, app);
}

static void detail_update(void *p, struct app *app)
{
	struct op_detail *d = p;
	if (d->name[0] && d->rank != app_rank_index(app))
		detail_load(d, app);
}

/* The list shows the rows with the expanded row's cells as lines of their own under it,
 * so that the cursor scrolls through them like through rows. */
static size_t disp_count(const struct op_detail *d)
{
	return d->n_rows + (d->expanded >= 0 ? d->cells.n : 0);
}

/* The row of display line i; *cell is the cell shown on that line, or -1 for the row. */
static size_t disp_row(const struct op_detail *d, size_t i, long *cell)
{
	*cell = -1;
	if (d->expanded < 0 || i <= (size_t)d->expanded)
		return i;
	size_t e = (size_t)d->expanded;
	if (i <= e + d->cells.n) {
		*cell = (long)(i - e - 1);
		return e;
	}
	return i - d->cells.n;
}

static const struct op_stat *find_stat(const struct rank_analysis *ra, struct op_key key, int scope, int phase)
{
	for (size_t i = 0; ra && i < app_ra_n_ops(ra); i++) {
		const struct op_stat *o = &app_ra_ops(ra)[i];
		if (o->scope == scope && o->phase == phase && o->collective == key.collective && !strcmp(o->name, key.name) &&
		    !analysis_group_cmp(o->group, key.group))
			return o;
	}
	return NULL;
}

/* Draws the histogram in at most h lines (cv NULL: only measures); returns the lines it
 * takes. */
static int draw_histogram(struct op_detail *d, struct canvas *cv, int x, int y, int w, int h)
{
	/* log2 buckets of duration */
	enum { NB = 40 };
	size_t counts[NB] = {0};
	int lo = NB, hi = -1;
	for (size_t i = 0; i < d->n_inst; i++) {
		int64_t du = d->inst[i].dur;
		int b = 0;
		while (b < NB - 1 && (1LL << (b + 1)) <= du)
			b++;
		counts[b]++;
		if (b < lo)
			lo = b;
		if (b > hi)
			hi = b;
	}
	if (hi < 0)
		return 0;
	if (!cv)
		return hi - lo + 2 < h ? hi - lo + 2 : h;
	size_t maxc = 1;
	for (int b = lo; b <= hi; b++)
		if (counts[b] > maxc)
			maxc = counts[b];
	canvas_text(cv, x, y, w, ST_HEADER, _("duration histogram (log2 buckets)"));
	for (int b = lo, row = 1; b <= hi && row < h; b++, row++) {
		char label[48], b1[24], b2[24];
		app_fmt_dur(1LL << b, b1, sizeof b1);
		app_fmt_dur(1LL << (b + 1), b2, sizeof b2);
		snprintf(label, sizeof label, "%10s-%-10s", b1, b2);
		canvas_text(cv, x, y + row, 22, ST_DIM, label);
		draw_bar(cv, x + 23, y + row, w - 32 > 8 ? w - 32 : 8, (double)counts[b] / (double)maxc, ST_CAT_COMPUTE);
		canvas_textf(cv, x + w - 8, y + row, 8, ST_NORMAL, "%zu", counts[b]);
	}
	return hi - lo + 2 < h ? hi - lo + 2 : h;
}

/* The text of display line idx; true for a line of the expanded row's cells. */
static bool detail_line(const struct op_detail *d, const struct rank_analysis *ra, const struct rank_data *rd,
			size_t idx, char *line, size_t size)
{
	long cell;
	const struct detail_row *dr = &d->rows[disp_row(d, idx, &cell)];
	char b1[24];
	if (cell >= 0) {
		const char *hdr = (size_t)cell < dr->table->ncols ? dr->table->headers[cell] : "?";
		snprintf(line, size, "    %s: %s", hdr, d->cells.cells[cell]);
		return true;
	}
	if (dr->kind == ROW_INSTANCE) {
		const struct instance *in = &d->inst[dr->index];
		const struct lane *l = store_ev_lane(&rd->store, in->ev);
		snprintf(line, size, _("#%-6zu at %12.3f ms  %12s  %s / %s"), in->ord + 1,
			 ra ? (double)(in->ts - app_ra_t0(ra)) / 1e6 : 0.0,
			 app_fmt_dur(in->dur, b1, sizeof b1),
			 store_str(&rd->store, l->process_name), store_str(&rd->store, l->thread_name));
		return false;
	}
	const struct csv_table *t = dr->table;
	const char *rpath = csvt_row_path(t, dr->index);
	const char *base = strrchr(rpath, '/');
	int64_t dur = 0;
	double blk = NAN, mac = NAN, vec = NAN;
	bool has_dur = csvt_time(t, dr->index, t->kind == CSV_KERNEL ? COL_DURATION : COL_HOST_TOTAL, &dur);
	csvt_num(t, dr->index, COL_BLOCK_DIM, &blk);
	csvt_num(t, dr->index, COL_AIC_MAC_RATIO, &mac);
	csvt_num(t, dr->index, COL_AIV_VEC_RATIO, &vec);
	const char *shapes = csvt_str(t, dr->index, COL_INPUT_SHAPES);
	char nb[3][24];
	snprintf(nb[0], sizeof nb[0], isnan(blk) ? "-" : "%.0f", blk);
	snprintf(nb[1], sizeof nb[1], isnan(mac) ? "-" : "%.3f", mac);
	snprintf(nb[2], sizeof nb[2], isnan(vec) ? "-" : "%.3f", vec);
	snprintf(line, size, _("%s:%u  %s  shapes %s  block %s  mac %s  vec %s"), base ? base + 1 : rpath,
		 csvt_line(t, dr->index), has_dur ? app_fmt_dur(dur, b1, sizeof b1) : "-", shapes[0] ? shapes : "-",
		 nb[0], nb[1], nb[2]);
	return false;
}

static void detail_draw(void *p, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	struct op_detail *d = p;
	const struct rank_analysis *ra = app_rank_analysis(app);
	char label[700];
	canvas_text(cv, x + 1, y, w - 2, ST_BOLD,
		    d->name[0] ? op_rows_label(d->name, detail_key(d).group, label, sizeof label) : _("(no op selected)"));
	const struct op_stat *all = find_stat(ra, detail_key(d), d->scope, PHASE_UNKNOWN);
	int row = y + 1;
	if (all) {
		char b1[24], b2[24], b3[24], b4[24], b5[24];
		canvas_textf(cv, x + 1, row++, w - 2, ST_NORMAL,
			     _("%s scope: %llu calls, total %s, avg %s, p50 %s, p95 %s, max %s, %.1f%% of the scope"),
			     result_scope_name(d->scope), (unsigned long long)all->count,
			     app_fmt_dur(all->total_ns, b1, sizeof b1), app_fmt_dur((int64_t)all->avg_ns, b2, sizeof b2),
			     app_fmt_dur(all->p50_ns, b3, sizeof b3), app_fmt_dur(all->p95_ns, b4, sizeof b4),
			     app_fmt_dur(all->max_ns, b5, sizeof b5), all->share_pct);
		for (int ph = PHASE_PREFILL; ph <= PHASE_DECODE; ph++) {
			const struct op_stat *o = find_stat(ra, detail_key(d), d->scope, ph);
			if (!o)
				continue;
			canvas_textf(cv, x + 3, row++, w - 4, ST_DIM, _("%s: %llu calls, p50 %s, p95 %s, max %s"),
				     _(result_phase_name(ph)), (unsigned long long)o->count,
				     app_fmt_dur(o->p50_ns, b1, sizeof b1), app_fmt_dur(o->p95_ns, b2, sizeof b2),
				     app_fmt_dur(o->max_ns, b3, sizeof b3));
		}
		if (all->csv_total_ns >= 0)
			canvas_textf(cv, x + 3, row++, w - 4, ST_DIM, _("CSV total %s (trace %+.1f%%)%s%s"),
				     app_fmt_dur(all->csv_total_ns, b1, sizeof b1), all->deviation_pct,
				     all->type ? ", OP Type " : "", all->type ? all->type : "");
	}
	int hist_h = h / 3 > 10 ? 10 : h / 3;
	if (d->n_inst > 1 && hist_h >= 3)
		row += draw_histogram(d, cv, x + 1, row, w - 2, draw_histogram(d, NULL, 0, 0, 0, hist_h));
	int body = y + h - row - 1;
	canvas_fill(cv, x, row, w, 1, ' ', ST_HEADER);
	canvas_textf(cv, x + 1, row++, w - 2, ST_HEADER,
		     _("%zu instance(s) by %s%s (s, S; Enter: timeline)  and CSV rows (Enter: all cells)"), d->n_inst,
		     d->by_dur ? _("duration") : _("time"), d->reverse ? _(", reversed") : "");
	d->lb.n = disp_count(d);
	const struct rank_data *rd = app_rank_data(app);
	char sel_line[600] = "";
	if (d->lb.sel < d->lb.n)
		detail_line(d, ra, rd, d->lb.sel, sel_line, sizeof sel_line);
	int drawer = view_text_drawer_lines(w, body, w - 2, sel_line);
	body -= drawer;
	listbox_clamp(&d->lb, body);
	for (int r = 0; r < body && d->lb.top + (size_t)r < d->lb.n; r++) {
		size_t idx = d->lb.top + (size_t)r;
		bool sel = idx == d->lb.sel;
		if (sel)
			canvas_fill(cv, x, row + r, w, 1, ' ', ST_SELECTED);
		char line[600];
		bool cell = detail_line(d, ra, rd, idx, line, sizeof line);
		canvas_text(cv, x + 1, row + r, w - 2, sel ? ST_SELECTED : cell ? ST_DIM : ST_NORMAL, line);
	}
	view_text_drawer(cv, x, y + h - drawer, w, drawer, sel_line);
}

static bool inst_reverse;

static int cmp_inst_time(const void *a, const void *b)
{
	const struct instance *x = a, *y = b;
	int c = (x->ord > y->ord) - (x->ord < y->ord);
	return inst_reverse ? -c : c;
}

static int cmp_inst_dur(const void *a, const void *b)
{
	const struct instance *x = a, *y = b;
	int c = x->dur != y->dur ? (x->dur > y->dur ? -1 : 1) : (x->ord > y->ord) - (x->ord < y->ord);
	return inst_reverse ? -c : c;
}

/* Orders the instances by time or by duration (longest first), reversed or not; the rows
 * show the first 5000 in that order. */
static void sort_instances(struct op_detail *d, struct app *app)
{
	inst_reverse = d->reverse;
	xqsort(d->inst, d->n_inst, sizeof *d->inst, d->by_dur ? cmp_inst_dur : cmp_inst_time);
	d->expanded = -1;
	csvt_cells_free(&d->cells);
	d->lb.sel = d->lb.top = 0;
	app_message(app, ST_NORMAL, _("instances by %s%s"), d->by_dur ? _("duration, longest first") : _("time"),
		    d->reverse ? _(", reversed") : "");
}

static int detail_handle(void *p, struct app *app, enum action act)
{
	struct op_detail *d = p;
	if (act == ACT_SORT_NEXT || act == ACT_SORT_REVERSE) {
		if (act == ACT_SORT_NEXT)
			d->by_dur = !d->by_dur;
		else
			d->reverse = !d->reverse;
		sort_instances(d, app);
		return VH_HANDLED;
	}
	d->lb.n = disp_count(d);
	if (listbox_handle(&d->lb, act))
		return VH_HANDLED;
	if (act != ACT_OPEN || !d->n_rows)
		return VH_UNHANDLED;
	long cell;
	size_t ri = disp_row(d, d->lb.sel, &cell);
	const struct detail_row *dr = &d->rows[ri];
	if (cell >= 0 || (int)ri == d->expanded) {
		/* Enter on the expanded row or its cells folds them */
		d->lb.sel = ri;
		d->expanded = -1;
		csvt_cells_free(&d->cells);
		d->lb.n = disp_count(d);
		listbox_clamp(&d->lb, d->lb.height);
		return VH_HANDLED;
	}
	if (dr->kind == ROW_INSTANCE) {
		const struct instance *in = &d->inst[dr->index];
		int64_t pad = in->dur > 0 ? in->dur : 1000;
		int64_t t0 = in->ts - pad * 2, t1 = in->ts + in->dur + pad * 2;
		struct view_target tg = {.timeline = {app_rank_index(app), t0, t1, in->ev}};
		app_open(app, VIEW_TIMELINE, &tg);
	} else {
		csvt_cells_free(&d->cells);
		if (d->expanded >= 0 && ri > (size_t)d->expanded)
			d->lb.sel = ri; /* the cells above it fold */
		d->expanded = -1;
		if (csvt_row_cells(dr->table, dr->index, &d->cells) == 0) {
			d->expanded = (int)ri;
		} else {
			app_message(app, ST_WARN, _("cannot read that row again (the file changed?)"));
		}
	}
	return VH_HANDLED;
}

/* Every instance in the order shown (not only the first 5000 rows). */
static size_t detail_export(void *p, struct app *app, FILE *out)
{
	struct op_detail *d = p;
	const struct rank_analysis *ra = app_rank_analysis(app);
	const struct rank_data *rd = app_rank_data(app);
	static const char *const head[] = {"op", "number", "start_ms", "dur_us", "ts_us", "process", "thread"};
	csvw_row(out, head, sizeof head / sizeof head[0]);
	for (size_t i = 0; rd && i < d->n_inst; i++) {
		const struct instance *in = &d->inst[i];
		const struct lane *l = store_ev_lane(&rd->store, in->ev);
		char b[4][40];
		snprintf(b[0], 40, "%zu", in->ord + 1);
		snprintf(b[1], 40, "%.6f", ra ? (double)(in->ts - app_ra_t0(ra)) / 1e6 : 0.0);
		snprintf(b[2], 40, "%.3f", (double)in->dur / 1e3);
		num_format_ns_as_us(in->ts, b[3], sizeof b[3]);
		const char *row[] = {d->name, b[0], b[1], b[2], b[3], store_str(&rd->store, l->process_name),
				     store_str(&rd->store, l->thread_name)};
		csvw_row(out, row, sizeof row / sizeof row[0]);
	}
	return d->n_inst;
}

const struct view_ops op_detail_view_ops = {
	.title = N_("Op"),
	.scopes = KS_LIST | KS_OPS,
	.create = detail_create,
	.destroy = detail_destroy,
	.draw = detail_draw,
	.handle = detail_handle,
	.update = detail_update,
	.hint = N_("Enter: instance on the timeline / CSV row cells   s by time or duration   q back"),
	.export_csv = detail_export,
	.open = detail_open,
};
