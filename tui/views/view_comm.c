/* SPDX-License-Identifier: MIT */
/* Communication: what communication*.json says, in three panes (v switches): groups and
 * ops (sortable), transports against their reference figures, and the matrix: the heatmap
 * of the selected link's group above the list of links. Enter on any row lists the file
 * entries behind its numbers (Communication detail); Enter there shows an entry's text
 * with its file and byte offset. Times are ms as in the files, sizes MB, bandwidth GB/s. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "comm.h"
#include "sbuf.h"
#include "csvw.h"
#include "views.h"
#include "xalloc.h"

enum pane { PANE_OPS, PANE_TRANSPORTS, PANE_MATRIX, PANE_COUNT };
static const char *const pane_names[PANE_COUNT] = {N_("groups and ops"), N_("transports"), N_("matrix")};

enum op_sort { OS_ELAPSE, OS_WAIT, OS_SYNC, OS_GBPS, OS_COUNT, OS_SMALL, OS_NAME, OS_N };
static const char *const op_sort_names[OS_N] = {N_("elapse"), N_("wait ratio"), N_("sync ratio"), N_("bandwidth"),
						N_("count"),  N_("small packets"), N_("name")};
enum link_sort { LS_ORDER, LS_GBPS, LS_N };
static const char *const link_sort_names[LS_N] = {N_("group, src, dst"), N_("bandwidth")};

struct trow {
	int rank_i; /* index into ca->ranks; -1: every rank */
	int tr;
};

struct comm_view {
	enum pane pane;
	struct listbox lb[PANE_COUNT];
	int sort[PANE_COUNT];
	bool reverse[PANE_COUNT];
	char filter[128];
	const struct comm_analysis *ca;
	size_t *ops, *links;
	size_t n_ops, n_links;
	struct trow *trs;
	size_t n_trs;
	int hskip; /* number columns scrolled out after the name (Right/l, Left/h) */
};

static const struct comm_analysis *analysis_of(struct app *app)
{
	const struct published *pub = app_pub(app);
	return pub ? pub->an->comm : NULL;
}

/* ---- rows ------------------------------------------------------------------------------ */

struct sort_ctx {
	const struct comm_analysis *ca;
	int sort;
	bool reverse;
};

/* NAN sorts last whatever the direction. */
static int cmp_num(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return a > b ? -1 : a < b;
}

static double op_key(const struct comm_opagg *o, int sort)
{
	switch (sort) {
	case OS_WAIT: return o->wait_ratio;
	case OS_SYNC: return o->sync_ratio;
	case OS_GBPS: return o->bw_gbps;
	case OS_COUNT: return (double)o->count;
	case OS_SMALL: return o->small_pct;
	default: return (double)o->t[COMM_T_ELAPSE];
	}
}

static int cmp_ops(const void *pa, const void *pb, void *pc)
{
	const struct sort_ctx *c = pc;
	const struct comm_opagg *a = &c->ca->ops[*(const size_t *)pa], *b = &c->ca->ops[*(const size_t *)pb];
	int r = c->sort == OS_NAME ? strcmp(a->type, b->type) : cmp_num(op_key(a, c->sort), op_key(b, c->sort));
	if (!r)
		r = strcmp(a->group, b->group);
	return c->reverse ? -r : r;
}

static int cmp_links(const void *pa, const void *pb, void *pc)
{
	const struct sort_ctx *c = pc;
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	/* slowest first: the bandwidth ascending */
	int r = c->sort == LS_GBPS ? -cmp_num(c->ca->links[ia].bw_gbps, c->ca->links[ib].bw_gbps) : 0;
	if (!r)
		r = ia < ib ? -1 : ia > ib;
	return c->reverse ? -r : r;
}

static bool matches(const char *filter, const char *a, const char *b)
{
	return !filter[0] || strcasestr(a, filter) || (b && strcasestr(b, filter));
}

static void rebuild(struct comm_view *v, struct app *app)
{
	const struct comm_analysis *ca = analysis_of(app);
	v->ca = ca;
	v->n_ops = v->n_links = v->n_trs = 0;
	if (!ca)
		return;
	v->ops = xrealloc(v->ops, (ca->n_ops + 1) * sizeof *v->ops);
	for (size_t i = 0; i < ca->n_ops; i++)
		if (matches(v->filter, ca->ops[i].type, ca->ops[i].group))
			v->ops[v->n_ops++] = i;
	struct sort_ctx c = {ca, v->sort[PANE_OPS], v->reverse[PANE_OPS]};
	xqsort_r(v->ops, v->n_ops, sizeof *v->ops, cmp_ops, &c);

	v->links = xrealloc(v->links, (ca->n_links + 1) * sizeof *v->links);
	for (size_t i = 0; i < ca->n_links; i++)
		if (matches(v->filter, ca->links[i].group, ca->links[i].slow ? "slow" : NULL))
			v->links[v->n_links++] = i;
	c = (struct sort_ctx){ca, v->sort[PANE_MATRIX], v->reverse[PANE_MATRIX]};
	xqsort_r(v->links, v->n_links, sizeof *v->links, cmp_links, &c);

	v->trs = xrealloc(v->trs, (size_t)(ca->n_ranks + 1) * COMM_TR_COUNT * sizeof *v->trs);
	for (int r = -1; r < (int)ca->n_ranks; r++)
		for (int t = 0; t < COMM_TR_COUNT; t++)
			if ((r < 0 ? ca->tr : ca->ranks[r].tr)[t].entries)
				v->trs[v->n_trs++] = (struct trow){r, t};
	v->lb[PANE_OPS].n = v->n_ops;
	v->lb[PANE_TRANSPORTS].n = v->n_trs;
	v->lb[PANE_MATRIX].n = v->n_links;
	for (int p = 0; p < PANE_COUNT; p++)
		listbox_clamp(&v->lb[p], v->lb[p].height);
}

static void *create(struct app *app)
{
	(void)app;
	return xcalloc(1, sizeof(struct comm_view));
}

static void destroy(void *p)
{
	struct comm_view *v = p;
	free(v->ops);
	free(v->links);
	free(v->trs);
	free(v);
}

static void update(void *p, struct app *app) { rebuild(p, app); }

/* ---- drawing ----------------------------------------------------------------------------- */

/* A number with `decimals` (and a "%" when pct) right-aligned in w-1 cells, "-" when it is
 * not one. */
static void num_cell(struct canvas *cv, int x, int y, int w, enum style st, int decimals, bool pct, double v)
{
	char b[32];
	if (isfinite(v))
		snprintf(b, sizeof b, "%.*f%s", decimals, v, pct ? "%" : "");
	else
		snprintf(b, sizeof b, "-");
	canvas_text_right(cv, x, y, w - 1, st, b);
}

/* Starts a table row: the selection bar, and the style its text takes. */
static enum style row_style(struct canvas *cv, int x, int y, int w, bool sel)
{
	if (sel)
		canvas_fill(cv, x, y, w, 1, ' ', ST_SELECTED);
	return sel ? ST_SELECTED : ST_NORMAL;
}

struct col {
	const char *title;
	int width;
	int sort; /* the sort it shows, -1 none */
};

/* The screen column of column c of a table drawn from x in w columns, its name column
 * name_w wide, scrolled as hs says; -1 when c is scrolled out or does not fit. */
static int col_x(const struct hscroll *hs, int x, int w, int name_w, const struct col *cols, size_t c)
{
	int at = name_w;
	for (size_t k = 0; k < c; k++)
		at += cols[k].width;
	at = view_hscroll_col(hs, at);
	return at < 0 || 1 + at + cols[c].width > w ? -1 : x + 1 + at;
}

/* The header of a table of a name column and n number columns, which scroll by column
 * (h l: v->hskip) when they do not fit in w; *hs says where each column is drawn
 * (col_x). Returns the screen column after the last one drawn. */
static int header(struct comm_view *v, struct hscroll *hs, struct canvas *cv, int x, int y, int w, const char *name,
		  int name_w, const struct col *cols, size_t n, int sort, bool reverse)
{
	int widths[16] = {name_w}, nw = 1;
	for (size_t c = 0; c < n && nw < 16; c++)
		widths[nw++] = cols[c].width;
	view_hscroll_setup_cols(hs, widths, nw, 1, &v->hskip, w - 2);
	canvas_fill(cv, x, y, w, 1, ' ', ST_HEADER);
	canvas_textf(cv, x + 1, y, name_w, ST_HEADER, "%s%s", _(name), sort == OS_NAME ? (reverse ? " \u25B4" : " \u25BE") : "");
	int end = x + 1 + name_w;
	for (size_t c = 0; c < n; c++) {
		int cx = col_x(hs, x, w, name_w, cols, c);
		if (cx < 0)
			continue;
		char t[32];
		snprintf(t, sizeof t, "%s%s", cols[c].title[0] ? _(cols[c].title) : "",
			 sort >= 0 && cols[c].sort == sort ? (reverse ? "\u25B4" : "\u25BE") : "");
		canvas_text_right(cv, cx, y, cols[c].width - 1, ST_HEADER, t);
		end = cx + cols[c].width;
	}
	return end;
}

static void draw_ops(struct comm_view *v, struct canvas *cv, int x, int y, int w, int h)
{
	static const struct col cols[] = {
		{N_("count"), 6, OS_COUNT}, {N_("elapse ms"), 11, OS_ELAPSE}, {N_("transit ms"), 11, -1},
		{N_("wait ms"), 9, -1},     {N_("idle ms"), 9, -1},          {N_("sync ms"), 9, -1},
		{N_("wait"), 6, OS_WAIT},   {N_("sync"), 6, OS_SYNC},        {"GB/s", 7, OS_GBPS},
		{N_("small%"), 7, OS_SMALL},
	};
	static const int decimals[] = {0, 3, 3, 3, 3, 3, 3, 3, 2, 1};
	int num_w = 0;
	for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
		num_w += cols[c].width;
	/* the name gets room first: the last columns fall off a narrow screen */
	int name_w = w - 2 - num_w < 26 ? 26 : w - 2 - num_w;
	struct hscroll hs;
	header(v, &hs, cv, x, y, w, N_("op  kind  group"), name_w, cols, sizeof cols / sizeof cols[0], v->sort[PANE_OPS],
	       v->reverse[PANE_OPS]);
	struct listbox *lb = &v->lb[PANE_OPS];
	int foot = 1;
	if (lb->sel < v->n_ops) {
		/* the selected row in full, wrapped: group names are long hashes */
		const struct comm_opagg *o = &v->ca->ops[v->ops[lb->sel]];
		char full[512];
		snprintf(full, sizeof full, _("%s (%s) in group %s: %zu rank(s), %zu step(s), %.3f MB in %.3f ms of transfers"),
			 o->type, comm_kind_name((enum comm_kind)o->kind), o->group, o->n_ranks, o->n_steps, o->size_mb,
			 (double)o->bw_time_ns / 1e6);
		foot = canvas_wrap(NULL, 0, 0, w - 2, h > 8 ? 3 : 1, ST_DIM, full);
		canvas_wrap(cv, x + 1, y + h - foot, w - 2, foot, ST_DIM, full);
	}
	listbox_clamp(lb, h - 1 - foot);
	for (int r = 0; r < h - 1 - foot && lb->top + (size_t)r < v->n_ops; r++) {
		size_t idx = lb->top + (size_t)r;
		const struct comm_opagg *o = &v->ca->ops[v->ops[idx]];
		int ry = y + 1 + r;
		bool sel = idx == lb->sel;
		enum style st = row_style(cv, x, ry, w, sel);
		char name[512];
		snprintf(name, sizeof name, "%s  %s  %s", o->type, o->kind == COMM_KIND_P2P ? "p2p " : "coll", o->group);
		canvas_text(cv, x + 1, ry, name_w - 1, st, name);
		double vals[] = {(double)o->count,       (double)o->t[COMM_T_ELAPSE] / 1e6,
				 (double)o->t[COMM_T_TRANSIT] / 1e6, (double)o->t[COMM_T_WAIT] / 1e6,
				 (double)o->t[COMM_T_IDLE] / 1e6, (double)o->t[COMM_T_SYNC] / 1e6, o->wait_ratio,
				 o->sync_ratio, o->bw_gbps, o->small_pct};
		for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
			/* msprof's advisor flags a wait ratio above 0.2 */
			enum style cs = !sel && c == 6 && vals[c] > 0.2 ? ST_WARN : st;
			int cx = col_x(&hs, x, w, name_w, cols, c);
			if (cx >= 0)
				num_cell(cv, cx, ry, cols[c].width, cs, decimals[c], false, vals[c]);
		}
	}
	if (!v->n_ops)
		canvas_text(cv, x + 1, y + 2, w - 2, ST_DIM,
			    v->filter[0] ? _("no op matches the filter")
					 : _("no communication.json entries (the matrix pane may have links)"));
}

static void draw_transports(struct comm_view *v, struct canvas *cv, int x, int y, int w, int h)
{
	static const struct col cols[] = {
		{N_("size MB"), 11, -1}, {N_("time ms"), 10, -1}, {"GB/s", 9, -1},     {N_("ref GB/s"), 10, -1},
		{N_("of ref"), 8, -1},   {N_("entries"), 9, -1},  {N_("packets"), 9, -1}, {N_("small%"), 8, -1},
		{N_("large%"), 8, -1},
	};
	static const int decimals[] = {3, 3, 3, 1, 1, 0, 0, 1, 1};
	int name_w = 17;
	struct hscroll hs;
	int end = header(v, &hs, cv, x, y, w, N_("ranks  transport"), name_w, cols, sizeof cols / sizeof cols[0], -1, false);
	struct listbox *lb = &v->lb[PANE_TRANSPORTS];
	listbox_clamp(lb, h - 1);
	for (int r = 0; r < h - 1 && lb->top + (size_t)r < v->n_trs; r++) {
		size_t idx = lb->top + (size_t)r;
		const struct trow *tr = &v->trs[idx];
		const struct comm_tstat *s = &(tr->rank_i < 0 ? v->ca->tr : v->ca->ranks[tr->rank_i].tr)[tr->tr];
		int ry = y + 1 + r;
		bool sel = idx == lb->sel;
		enum style st = row_style(cv, x, ry, w, sel);
		char scope[24];
		if (tr->rank_i < 0)
			snprintf(scope, sizeof scope, _("all"));
		else
			snprintf(scope, sizeof scope, _("rank %d"), v->ca->ranks[tr->rank_i].rank);
		canvas_textf(cv, x + 1, ry, name_w, st, "%-7s%s", scope, comm_transport_name((enum comm_transport)tr->tr));
		double ref = comm_refs[tr->tr].gbps > 0 ? comm_refs[tr->tr].gbps : NAN;
		double large = s->packets > 0 && comm_refs[tr->tr].large_mb > 0 ? 100 * s->large_packets / s->packets : NAN;
		double vals[] = {s->size_mb, (double)s->time_ns / 1e6, s->bw_gbps, ref, 100 * s->util, (double)s->entries,
				 s->packets, s->packets > 0 ? 100 * s->small_packets / s->packets : NAN, large};
		for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
			int cx = col_x(&hs, x, w, name_w, cols, c);
			if (cx >= 0)
				num_cell(cv, cx, ry, cols[c].width, st, decimals[c], c == 4, vals[c]);
		}
		/* the share of the reference as a bar, where there is room */
		if (end + 8 <= x + w && isfinite(s->util))
			draw_bar(cv, end + 1, ry, x + w - end - 2, s->util, sel ? ST_SELECTED : ST_CAT_COMM);
	}
}

static const uint32_t heat_glyph[5] = {' ', 0x2591, 0x2592, 0x2593, 0x2588}; /* ░ ▒ ▓ █ */

static const struct comm_group *group_of(const struct comm_analysis *ca, size_t link)
{
	for (size_t g = 0; g < ca->n_groups; g++)
		if (link >= ca->groups[g].link0 && link < ca->groups[g].link0 + ca->groups[g].n_links)
			return &ca->groups[g];
	return NULL;
}

/* Where id sits in g's sorted ranks (0 when absent). */
static int rank_pos(const struct comm_group *g, int32_t id)
{
	for (size_t i = 0; i < g->n_ranks; i++)
		if (g->ranks[i] == id)
			return (int)i;
	return 0;
}

/* The first of `shown` positions out of n that keeps pos in view, centred when it can. */
static int window_start(int pos, int shown, int n)
{
	int a = pos - shown / 2;
	if (a > n - shown)
		a = n - shown;
	return a < 0 ? 0 : a;
}

/* The heatmap of g, the selected link's cell highlighted; returns the rows used. */
static int draw_heatmap(const struct comm_analysis *ca, const struct comm_group *g, size_t sel_link, struct canvas *cv,
			int x, int y, int w, int h)
{
	if (g->parallel >= 0)
		canvas_textf(cv, x + 1, y, w - 2, ST_BOLD,
			     /* TRANSLATORS: the second %s is tp, dp, pp, ep or dcp, kept as it is */
			     _("matrix of %s (%s, %zu links; %s group of %zu ranks, %zu captured): GB/s from the row's rank to the column's"),
			     g->name, comm_kind_name((enum comm_kind)g->kind), g->n_links,
			     parallel_dim_name((enum parallel_dim)g->parallel), g->n_ranks, g->n_captured);
	else
		canvas_textf(cv, x + 1, y, w - 2, ST_BOLD,
			     _("matrix of %s (%s, %zu links; group of %zu ranks, %zu captured): GB/s from the row's rank to the column's"),
			     g->name, comm_kind_name((enum comm_kind)g->kind), g->n_links, g->n_ranks, g->n_captured);
	int label_w = 8;
	int cell = (int)g->n_ranks * 7 + label_w + 2 <= w ? 7 : 3;
	int ncols = (w - label_w - 2) / cell;
	if (ncols > (int)g->n_ranks)
		ncols = (int)g->n_ranks;
	int nrows = h - 3 < (int)g->n_ranks ? h - 3 : (int)g->n_ranks;
	/* a window of the grid around the selected link's row and column */
	const struct comm_linkagg *sl = &ca->links[sel_link];
	int r0 = window_start(rank_pos(g, sl->src), nrows, (int)g->n_ranks);
	int c0 = window_start(rank_pos(g, sl->dst), ncols, (int)g->n_ranks);
	canvas_text(cv, x + 1, y + 1, label_w, ST_HEADER, _("src\\dst"));
	for (int c = 0; c < ncols; c++)
		canvas_textf(cv, x + 1 + label_w + c * cell, y + 1, cell, ST_HEADER, "%*d", cell - 1, g->ranks[c0 + c]);
	for (int r = 0; r < nrows; r++) {
		int ry = y + 2 + r;
		int32_t src = g->ranks[r0 + r];
		canvas_textf(cv, x + 1, ry, label_w, ST_HEADER, "%7d", src);
		for (int c = 0; c < ncols; c++) {
			int cx = x + 1 + label_w + c * cell;
			const struct comm_linkagg *l = comm_group_link(ca, g, src, g->ranks[c0 + c]);
			if (!l) {
				canvas_set(cv, cx + cell - 2, ry, 0x00B7, ST_DIM);
				continue;
			}
			bool local = l->transport == COMM_TR_LOCAL;
			enum style st = l == sl ? ST_SELECTED : l->slow ? ST_WARN : local ? ST_DIM : ST_CAT_COMM;
			uint32_t glyph = l->slow ? '!' : local ? 'L' : heat_glyph[comm_heat_level(l)];
			canvas_set(cv, cx, ry, glyph, st);
			if (cell > 3 && isfinite(l->bw_gbps))
				canvas_textf(cv, cx + 1, ry, cell - 1, st, l->bw_gbps < 999.95 ? "%5.1f" : "%5.0f", l->bw_gbps);
		}
	}
	int used = 2 + nrows;
	if (nrows < (int)g->n_ranks || ncols < (int)g->n_ranks)
		canvas_textf(cv, x + 1, y + used++, w - 2, ST_DIM,
			     _("rows %d-%d, columns %d-%d of %zu (around the selected link; --json has every link)"), r0 + 1,
			     r0 + nrows, c0 + 1, c0 + ncols, g->n_ranks);
	canvas_text(cv, x + 1, y + used++, w - 2, ST_DIM,
		    _("\u2588 >=80%  \u2593 >=50%  \u2592 >=25%  \u2591 <25% of the reference (else the median)  "
		    "! slow  L local copy"));
	return used;
}

static void draw_matrix(struct comm_view *v, struct canvas *cv, int x, int y, int w, int h)
{
	struct listbox *lb = &v->lb[PANE_MATRIX];
	if (!v->n_links) {
		canvas_text(cv, x + 1, y + 1, w - 2, ST_DIM,
			    v->filter[0] ? _("no link matches the filter")
					 : _("no communication_matrix.json links in this capture"));
		return;
	}
	size_t sel_link = v->links[lb->sel < v->n_links ? lb->sel : 0];
	const struct comm_group *g = group_of(v->ca, sel_link);
	int used = g ? draw_heatmap(v->ca, g, sel_link, cv, x, y, w, h / 2 + 2) : 0;
	y += used;
	h -= used;
	static const struct col cols[] = {
		{N_("transport"), 11, -1}, {N_("size MB"), 11, -1}, {N_("time ms"), 10, -1}, {"GB/s", 9, -1},
		{N_("med GB/s"), 10, -1},  {"", 6, -1},
	};
	int name_w = w - 2 - 57 < 24 ? 24 : w - 2 - 57;
	struct hscroll hs;
	header(v, &hs, cv, x, y, w, N_("src -> dst  group"), name_w, cols, sizeof cols / sizeof cols[0], -1, false);
	listbox_clamp(lb, h - 1);
	for (int r = 0; r < h - 1 && lb->top + (size_t)r < v->n_links; r++) {
		size_t idx = lb->top + (size_t)r;
		const struct comm_linkagg *l = &v->ca->links[v->links[idx]];
		int ry = y + 1 + r;
		bool sel = idx == lb->sel;
		enum style st = row_style(cv, x, ry, w, sel);
		canvas_textf(cv, x + 1, ry, name_w - 1, st, "%d -> %d  %s", l->src, l->dst, l->group);
		int cx = col_x(&hs, x, w, name_w, cols, 0);
		if (cx >= 0)
			canvas_text_right(cv, cx, ry, cols[0].width - 1, st,
					  comm_transport_name((enum comm_transport)l->transport));
		double vals[] = {l->size_mb, (double)l->time_ns / 1e6, l->bw_gbps, l->median_gbps};
		for (size_t c = 0; c < 4; c++)
			if ((cx = col_x(&hs, x, w, name_w, cols, c + 1)) >= 0)
				num_cell(cv, cx, ry, cols[c + 1].width, st, c < 2 ? 3 : 2, false, vals[c]);
		if (l->slow && (cx = col_x(&hs, x, w, name_w, cols, 5)) >= 0)
			canvas_text(cv, cx + 1, ry, 5, sel ? ST_SELECTED : ST_WARN, _("slow"));
	}
}

static double ms(int64_t ns) { return (double)ns / 1e6; }

static void draw(void *p, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	struct comm_view *v = p;
	if (v->ca != analysis_of(app))
		rebuild(v, app);
	const struct comm_analysis *ca = v->ca;
	if (!ca) {
		canvas_text(cv, x + 1, y + 1, w - 2, ST_DIM, _("loading..."));
		return;
	}
	if (!ca->present) {
		canvas_text(cv, x + 1, y + 1, w - 2, ST_BOLD, _("No communication files in this capture."));
		canvas_text(cv, x + 1, y + 3, w - 2, ST_NORMAL,
			    _("torch_npu writes communication.json and communication_matrix.json to ASCEND_PROFILER_OUTPUT"));
		canvas_text(cv, x + 1, y + 4, w - 2, ST_NORMAL,
			    _("with profiler_level Level1 or Level2 when more than one card takes part; msprof writes them"));
		canvas_text(cv, x + 1, y + 5, w - 2, ST_NORMAL, _("to PROF_*/analyze with --analyze=on."));
		return;
	}
	char wr[16], sr[16], sp[16];
	snprintf(wr, sizeof wr, isfinite(ca->wait_ratio) ? "%.3f" : "-", ca->wait_ratio);
	snprintf(sr, sizeof sr, isfinite(ca->sync_ratio) ? "%.3f" : "-", ca->sync_ratio);
	snprintf(sp, sizeof sp, isfinite(ca->small_pct) ? "%.1f %%" : "-", ca->small_pct);
	canvas_textf(cv, x + 1, y, w - 2, ST_BOLD, _("%zu entries of %zu rank(s) in %zu step(s), from %s"), ca->entries,
		     ca->n_ranks, ca->steps, ca->source);
	canvas_textf(cv, x + 1, y + 1, w - 2, ST_NORMAL,
		     _("wait ratio %s   sync ratio %s   small packets %s   %zu slow link(s)   (times ms, MB, GB/s)"), wr, sr,
		     sp, ca->n_slow);
	/* the rank's exposed communication in the attribution's words (comm_split.h), the same
	 * split the Bottleneck view and the reports give; the columns below are the files' */
	const struct rank_analysis *ra = app_rank_analysis(app);
	if (ra && app_ra_attr(ra)->valid) {
		const struct attribution *a = app_ra_attr(ra);
		canvas_textf(cv, x + 1, y + 2, w - 2, ST_NORMAL,
			     _("rank %d exposed: waiting for a peer %.3f, transfer %.3f, setup %.3f, unsplit %.3f ms (the "
			       "columns are communication.json's Wait, Idle, Synchronization Time)"),
			     app_ra_rank(ra), ms(a->ns[ATTR_COMM_WAIT]), ms(a->ns[ATTR_COMM_TRANSFER]),
			     ms(a->ns[ATTR_COMM_SETUP]),
			     ms(a->ns[ATTR_COMM_UNSPLIT]));
	}
	y++;
	h--;
	int tx = x + 1;
	for (int pn = 0; pn < PANE_COUNT; pn++) {
		char t[40];
		snprintf(t, sizeof t, " %s ", _(pane_names[pn]));
		tx += canvas_text(cv, tx, y + 2, x + w - tx, pn == (int)v->pane ? ST_TAB : ST_DIM, t) + 1;
	}
	char right[200];
	const char *sort = v->pane == PANE_OPS ? op_sort_names[v->sort[PANE_OPS]]
			   : v->pane == PANE_MATRIX ? link_sort_names[v->sort[PANE_MATRIX]] : NULL;
	snprintf(right, sizeof right, "%s%s%s%s%s", sort ? _("sort ") : "", sort ? _(sort) : "",
		 sort && v->reverse[v->pane] ? _(" (reversed)") : "", v->filter[0] ? _("  filter: ") : "", v->filter);
	canvas_text_right(cv, tx, y + 2, x + w - tx - 1, ST_DIM, right);
	int by = y + 3, bh = h - 3;
	if (v->pane == PANE_OPS)
		draw_ops(v, cv, x, by, w, bh);
	else if (v->pane == PANE_TRANSPORTS)
		draw_transports(v, cv, x, by, w, bh);
	else
		draw_matrix(v, cv, x, by, w, bh);
}

/* ---- keys ------------------------------------------------------------------------------- */

static void open_row(struct comm_view *v, struct app *app)
{
	const struct comm_analysis *ca = v->ca;
	struct listbox *lb = &v->lb[v->pane];
	char title[512];
	if (!ca || lb->sel >= lb->n)
		return;
	const struct comm_item *items;
	size_t n;
	if (v->pane == PANE_OPS) {
		const struct comm_opagg *o = &ca->ops[v->ops[lb->sel]];
		snprintf(title, sizeof title, _("%s (%s) in group %s: %zu entries"), o->type, comm_kind_name((enum comm_kind)o->kind),
			 o->group, o->count);
		items = &ca->items[o->item0];
		n = o->n_items;
	} else if (v->pane == PANE_TRANSPORTS) {
		const struct trow *tr = &v->trs[lb->sel];
		const struct comm_tstat *s = &(tr->rank_i < 0 ? ca->tr : ca->ranks[tr->rank_i].tr)[tr->tr];
		char scope[32];
		snprintf(scope, sizeof scope, "%s", _("every rank"));
		if (tr->rank_i >= 0)
			snprintf(scope, sizeof scope, _("rank %d"), ca->ranks[tr->rank_i].rank);
		snprintf(title, sizeof title, _("entries with %s traffic, %s: %zu"), comm_transport_name((enum comm_transport)tr->tr),
			 scope, s->n_items);
		items = &ca->items[s->item0];
		n = s->n_items;
	} else {
		const struct comm_linkagg *l = &ca->links[v->links[lb->sel]];
		snprintf(title, sizeof title, _("link %d -> %d (%s) in group %s: %zu matrix entries"), l->src, l->dst,
			 comm_transport_name((enum comm_transport)l->transport), l->group, l->n_items);
		items = &ca->items[l->item0];
		n = l->n_items;
	}
	struct view_target tg = {.comm_detail = {title, items, n}};
	app_open(app, VIEW_COMM_DETAIL, &tg);
}

static int handle(void *p, struct app *app, enum action act)
{
	struct comm_view *v = p;
	if (listbox_handle(&v->lb[v->pane], act) || view_hscroll_handle(&v->hskip, act))
		return VH_HANDLED;
	switch (act) {
	case ACT_COMM_PANE:
		v->pane = (enum pane)((v->pane + 1) % PANE_COUNT);
		v->hskip = 0; /* another table: its columns from the first */
		return VH_HANDLED;
	case ACT_SORT_NEXT:
	case ACT_SORT_REVERSE:
		if (v->pane == PANE_TRANSPORTS) {
			app_message(app, ST_DIM, _("the transports keep their order"));
			return VH_HANDLED;
		}
		if (act == ACT_SORT_REVERSE)
			v->reverse[v->pane] = !v->reverse[v->pane];
		else
			v->sort[v->pane] = (v->sort[v->pane] + 1) % (v->pane == PANE_OPS ? OS_N : LS_N);
		rebuild(v, app);
		return VH_HANDLED;
	case ACT_OPEN:
		open_row(v, app);
		return VH_HANDLED;
	default: return VH_UNHANDLED;
	}
}

static bool row_matches(const void *ctx, size_t i, const char *text)
{
	const struct comm_view *v = ctx;
	const char *a, *b = NULL;
	if (v->pane == PANE_OPS) {
		a = v->ca->ops[v->ops[i]].type;
		b = v->ca->ops[v->ops[i]].group;
	} else if (v->pane == PANE_TRANSPORTS) {
		a = comm_transport_name((enum comm_transport)v->trs[i].tr);
	} else {
		a = v->ca->links[v->links[i]].group;
		b = v->ca->links[v->links[i]].slow ? "slow" : NULL;
	}
	return strcasestr(a, text) || (b && strcasestr(b, text));
}

static bool search(void *p, struct app *app, const char *text, int dir)
{
	(void)app;
	struct comm_view *v = p;
	struct listbox *lb = &v->lb[v->pane];
	return v->ca && lb->n && listbox_search(lb, dir, row_matches, v, text);
}

static bool filter(void *p, struct app *app, const char *text)
{
	struct comm_view *v = p;
	snprintf(v->filter, sizeof v->filter, "%s", text);
	rebuild(v, app);
	return true;
}

static void num(char *b, size_t size, int decimals, double v)
{
	if (isfinite(v))
		snprintf(b, size, "%.*f", decimals, v);
	else
		b[0] = '\0';
}

/* The pane shown, every row in its order. */
static size_t export_csv(void *p, struct app *app, FILE *out)
{
	struct comm_view *v = p;
	if (v->ca != analysis_of(app))
		rebuild(v, app);
	if (!v->ca)
		return 0;
	char b[12][40];
	if (v->pane == PANE_OPS) {
		static const char *const head[] = {"op", "kind", "group", "count", "elapse_ms", "transit_ms", "wait_ms",
						   "idle_ms", "sync_ms", "wait_ratio", "sync_ratio", "gbps", "small_pct",
						   "size_mb"};
		csvw_row(out, head, sizeof head / sizeof head[0]);
		for (size_t i = 0; i < v->n_ops; i++) {
			const struct comm_opagg *o = &v->ca->ops[v->ops[i]];
			snprintf(b[0], 40, "%zu", o->count);
			const int ts[] = {COMM_T_ELAPSE, COMM_T_TRANSIT, COMM_T_WAIT, COMM_T_IDLE, COMM_T_SYNC};
			for (int k = 0; k < 5; k++)
				snprintf(b[1 + k], 40, "%.6f", (double)o->t[ts[k]] / 1e6);
			num(b[6], 40, 4, o->wait_ratio);
			num(b[7], 40, 4, o->sync_ratio);
			num(b[8], 40, 3, o->bw_gbps);
			num(b[9], 40, 2, o->small_pct);
			num(b[10], 40, 6, o->size_mb);
			const char *row[] = {o->type, comm_kind_name((enum comm_kind)o->kind), o->group, b[0], b[1], b[2],
					     b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10]};
			csvw_row(out, row, sizeof row / sizeof row[0]);
		}
		return v->n_ops;
	}
	if (v->pane == PANE_TRANSPORTS) {
		static const char *const head[] = {"ranks", "transport", "size_mb", "time_ms", "gbps", "of_ref_pct",
						   "entries", "packets", "small_packets"};
		csvw_row(out, head, sizeof head / sizeof head[0]);
		for (size_t i = 0; i < v->n_trs; i++) {
			const struct trow *tr = &v->trs[i];
			const struct comm_tstat *st = &(tr->rank_i < 0 ? v->ca->tr : v->ca->ranks[tr->rank_i].tr)[tr->tr];
			if (tr->rank_i < 0)
				snprintf(b[0], 40, _("all"));
			else
				snprintf(b[0], 40, "%d", v->ca->ranks[tr->rank_i].rank);
			num(b[1], 40, 6, st->size_mb);
			snprintf(b[2], 40, "%.6f", (double)st->time_ns / 1e6);
			num(b[3], 40, 3, st->bw_gbps);
			num(b[4], 40, 2, 100 * st->util);
			snprintf(b[5], 40, "%zu", st->entries);
			num(b[6], 40, 0, st->packets);
			num(b[7], 40, 0, st->small_packets);
			const char *row[] = {b[0], comm_transport_name((enum comm_transport)tr->tr), b[1], b[2], b[3], b[4],
					     b[5], b[6], b[7]};
			csvw_row(out, row, sizeof row / sizeof row[0]);
		}
		return v->n_trs;
	}
	static const char *const head[] = {"group", "src", "dst", "transport", "size_mb", "time_ms", "gbps",
					   "median_gbps", "slow"};
	csvw_row(out, head, sizeof head / sizeof head[0]);
	for (size_t i = 0; i < v->n_links; i++) {
		const struct comm_linkagg *l = &v->ca->links[v->links[i]];
		snprintf(b[0], 40, "%d", l->src);
		snprintf(b[1], 40, "%d", l->dst);
		num(b[2], 40, 6, l->size_mb);
		snprintf(b[3], 40, "%.6f", (double)l->time_ns / 1e6);
		num(b[4], 40, 3, l->bw_gbps);
		num(b[5], 40, 3, l->median_gbps);
		const char *row[] = {l->group, b[0], b[1], comm_transport_name((enum comm_transport)l->transport),
				     b[2], b[3], b[4], b[5], l->slow ? "yes" : "no"};
		csvw_row(out, row, sizeof row / sizeof row[0]);
	}
	return v->n_links;
}

const struct view_ops comm_view_ops = {
	.title = N_("Comm"),
	.scopes = KS_LIST | KS_COMM,
	.create = create,
	.destroy = destroy,
	.draw = draw,
	.handle = handle,
	.update = update,
	.search = search,
	.filter = filter,
	.hint = N_("v pane  s sort  S reverse  h l columns  / search  \\ filter  Enter: the file entries behind a row"),
	.export_csv = export_csv,
};

/* ---- detail: the entries behind a figure --------------------------------------------------- */

struct comm_detail {
	char title[512];
	const struct comm_item *items; /* borrowed from the published analysis */
	size_t n;
	struct listbox lb;
	long expanded; /* the row whose text is shown, -1: none */
	struct sbuf text;
};

static void *detail_create(struct app *app)
{
	(void)app;
	struct comm_detail *d = xcalloc(1, sizeof *d);
	d->expanded = -1;
	return d;
}

static void detail_destroy(void *p)
{
	struct comm_detail *d = p;
	sbuf_free(&d->text);
	free(d);
}

/* app_open: the entries of the target. */
static void detail_open(void *st, struct app *app, const struct view_target *target)
{
	(void)app;
	struct comm_detail *d = st;
	const struct comm_detail_target *tg = &target->comm_detail;
	snprintf(d->title, sizeof d->title, "%s", tg->title);
	d->items = tg->items;
	d->n = tg->n;
	d->lb = (struct listbox){.n = tg->n, .height = d->lb.height};
	d->expanded = -1;
}

/* One entry as a row under the header of its kind (a list holds ops or links, never both). */
/* TRANSLATORS: column titles: each keeps the cells of its column */
static const char *const op_header = N_("rank step    op                          elapse ms transit ms    wait ms    sync ms  byte");
/* TRANSLATORS: column titles: each keeps the cells of its column */
static const char *const link_header = N_("rank step    entry             src -> dst transport   size MB    time ms     GB/s  byte");

static void item_line(const struct comm_item *it, char *buf, size_t size)
{
	const struct comm_data *cd = it->cd;
	char rank[16] = "-";
	if (it->link) {
		const struct comm_link *l = &cd->links[it->index];
		char sd[32];
		if (l->rank >= 0)
			snprintf(rank, sizeof rank, "%d", l->rank);
		snprintf(sd, sizeof sd, "%d -> %d", l->src, l->dst);
		snprintf(buf, size, "%-4s %-7s %-17s %-10s %-7s %9.3f %10.3f %8.2f  %lld", rank, comm_str(cd, l->step),
			 comm_str(cd, l->name), sd, comm_transport_name((enum comm_transport)l->transport), l->size_mb,
			 (double)l->time_ns / 1e6, l->bw_gbps, (long long)l->off);
		return;
	}
	const struct comm_op *op = &cd->ops[it->index];
	if (op->rank >= 0)
		snprintf(rank, sizeof rank, "%d", op->rank);
	snprintf(buf, size, "%-4s %-7s %-26s %10.3f %10.3f %10.3f %10.3f  %lld", rank, comm_str(cd, op->step),
		 comm_str(cd, op->name), (double)op->t[COMM_T_ELAPSE] / 1e6, (double)op->t[COMM_T_TRANSIT] / 1e6,
		 (double)op->t[COMM_T_WAIT] / 1e6, (double)op->t[COMM_T_SYNC] / 1e6, (long long)op->off);
}

static void detail_draw(void *p, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	(void)app;
	struct comm_detail *d = p;
	canvas_text(cv, x + 1, y, w - 2, ST_BOLD, d->title[0] ? d->title : _("(nothing selected)"));
	canvas_text(cv, x + 1, y + 1, w - 2, ST_DIM,
		    _("the file entries (ms, MB and GB/s as the files give them); Enter: an entry's text and file"));
	canvas_fill(cv, x, y + 2, w, 1, ' ', ST_HEADER);
	canvas_text(cv, x + 1, y + 2, w - 2, ST_HEADER, _(d->n && d->items[0].link ? link_header : op_header));
	int body = h - 3;
	listbox_clamp(&d->lb, body);
	int row = y + 3;
	for (size_t idx = d->lb.top; idx < d->n && row < y + h; idx++) {
		char line[1024];
		item_line(&d->items[idx], line, sizeof line);
		canvas_text(cv, x + 1, row, w - 2, row_style(cv, x, row, w, idx == d->lb.sel), line);
		row++;
		if ((long)idx != d->expanded)
			continue;
		/* the entry's text, line by line, wrapped to the screen */
		const char *s = sbuf_str(&d->text), *end = s + d->text.len;
		int tw = w - 6 > 10 ? w - 6 : 10;
		while (s < end && row < y + h) {
			const char *nl = memchr(s, '\n', (size_t)(end - s));
			size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
			size_t take = n > (size_t)tw ? (size_t)tw : n;
			while (take < n && take > 0 && ((unsigned char)s[take] & 0xC0) == 0x80)
				take--; /* never split a UTF-8 character */
			canvas_textn(cv, x + 4, row++, tw, ST_DIM, s, take);
			s += take;
			if (take == n)
				s += nl ? 1 : 0;
		}
	}
	if (!d->n)
		canvas_text(cv, x + 1, y + 4, w - 2, ST_DIM, _("no entries"));
}

static int detail_handle(void *p, struct app *app, enum action act)
{
	struct comm_detail *d = p;
	if (listbox_handle(&d->lb, act))
		return VH_HANDLED;
	if (act != ACT_OPEN || !d->n)
		return VH_UNHANDLED;
	if ((long)d->lb.sel == d->expanded) {
		d->expanded = -1;
		return VH_HANDLED;
	}
	const struct comm_item *it = &d->items[d->lb.sel];
	const struct comm_data *cd = it->cd;
	const char *path;
	int64_t off;
	uint32_t len;
	if (it->link) {
		path = cd->files[cd->links[it->index].file].path;
		off = cd->links[it->index].off;
		len = cd->links[it->index].len;
	} else {
		path = cd->files[cd->ops[it->index].file].path;
		off = cd->ops[it->index].off;
		len = cd->ops[it->index].len;
	}
	struct sbuf lines = SBUF_INIT;
	if (comm_json_entry_lines(cd, path, off, len, 1u << 16, &lines) != 0)
		app_message(app, ST_WARN, "%s", sbuf_str(&lines));
	sbuf_reset(&d->text);
	sbuf_addf(&d->text, _("%s, byte %lld, %u bytes:\n"), path, (long long)off, len);
	sbuf_add(&d->text, lines.buf ? lines.buf : "", lines.len);
	sbuf_free(&lines);
	d->expanded = (long)d->lb.sel;
	return VH_HANDLED;
}

const struct view_ops comm_detail_view_ops = {
	.title = N_("Comm detail"),
	.scopes = KS_LIST,
	.create = detail_create,
	.destroy = detail_destroy,
	.draw = detail_draw,
	.handle = detail_handle,
	.hint = N_("Enter: the entry's text (file and byte offset)   q back"),
	.open = detail_open,
};
