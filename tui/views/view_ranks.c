/* SPDX-License-Identifier: MIT */
/* Ranks: clock offsets in each alignment mode with their residual skew, per-rank
 * computing/communication/free balance with slow-rank flags, and every rank's device
 * activity stacked over one aligned window. A switches the alignment mode; Enter opens
 * the selected rank's timeline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvw.h"
#include "lanes.h"
#include "views.h"
#include "xalloc.h"

struct ranks_view {
	struct listbox lb;
	int hskip; /* offset columns scrolled out after the rank (Right/l, Left/h) */
};

static void *create(struct app *app)
{
	(void)app;
	return xcalloc(1, sizeof(struct ranks_view));
}

static void destroy(void *p) { free(p); }

/* A rank's device activity over [a, b) of its own clock: the union of its device lanes. */
static void device_cell(struct app *app, size_t ri, int64_t a, int64_t b, struct lod_result *out)
{
	const struct rank_store *rs = &app_rank_data_of(app, ri)->store;
	const struct lane_lod *lods = app_lods(app, ri);
	const struct rank_analysis *ra = app_rank_analysis_of(app, ri);
	memset(out, 0, sizeof *out);
	if (!lods || !ra)
		return;
	/* compute shown as compute: communication beside it counts only where uncovered */
	struct lod_merge m = {0};
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *l = &rs->lanes[li];
		if (l->group != LANE_DEVICE && l->group != LANE_COMM)
			continue;
		struct lod_result r;
		lod_query(rs, app_ra_cls(ra), l, &lods[li], a, b, &r);
		lod_merge_add(&m, &r);
	}
	uint8_t cat = lod_merge_pick(&m, &out->coverage);
	out->mask = m.mask;
	out->top_cat = cat == CAT_COUNT ? CAT_OTHER : cat;
}

static void draw(void *p, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	struct ranks_view *v = p;
	const struct published *pub = app_pub(app);
	if (!pub) {
		canvas_text(cv, x + 1, y + 1, w - 2, ST_DIM, _("loading..."));
		return;
	}
	const struct analysis *an = pub->an;
	v->lb.n = an->n_ranks;
	canvas_textf(cv, x + 1, y, w - 2, ST_BOLD, _("alignment: %s (A to switch)   clock offsets vs rank %d; subtract to align"),
		     result_align_name(app_align(app)), an->n_ranks ? an->ranks[0].rank : 0);
	int hy = y + 1;
	canvas_fill(cv, x, hy, w, 1, ' ', ST_HEADER);
	/* TRANSLATORS: column titles: each keeps the cells of its column */
	const char *head = _("rank      first us        raw us  collective us  residual us  matched   compute / comm / free");
	int rows = (int)an->n_ranks;
	int table_h = rows < h / 2 ? rows : h / 2;
	listbox_clamp(&v->lb, table_h);
	int shown = 0;
	while (shown < table_h && v->lb.top + (size_t)shown < an->n_ranks)
		shown++;
	char **lines = xcalloc(shown ? (size_t)shown : 1, sizeof *lines);
	for (int r = 0; r < shown; r++) {
		const struct rank_analysis *ra = &an->ranks[v->lb.top + (size_t)r];
		lines[r] = xasprintf("%-4d %13.3f %13.3f %14.3f %12.3f %8zu%s", app_ra_rank(ra),
				     (double)app_ra_offset_ns(ra)[ALIGN_FIRST] / 1e3,
				     (double)app_ra_offset_ns(ra)[ALIGN_RAW] / 1e3,
				     (double)app_ra_offset_ns(ra)[ALIGN_COLLECTIVE] / 1e3,
				     (double)app_ra_residual_ns(ra) / 1e3,
				     app_ra_matched_collectives(ra), app_ra_collective_ok(ra) ? "" : "*");
	}
	/* too narrow for the bars: Right/l and Left/h scroll the offsets out, the rank stays */
	struct hscroll hs;
	view_hscroll_setup(&hs, head, (const char *const *)lines, (size_t)shown, 1, &v->hskip, w - 2);
	view_hscroll_text(cv, x + 1, hy, w - 2, ST_HEADER, head, &hs);
	double maxwin = 1;
	for (size_t i = 0; i < an->n_ranks; i++)
		if (an->ranks[i].have[M_WALL_US] && an->ranks[i].v[M_WALL_US] > maxwin)
			maxwin = an->ranks[i].v[M_WALL_US];
	for (int r = 0; r < shown; r++) {
		size_t i = v->lb.top + (size_t)r;
		const struct rank_analysis *ra = &an->ranks[i];
		int ry = hy + 1 + r;
		bool sel = i == v->lb.sel;
		if (sel)
			canvas_fill(cv, x, ry, w, 1, ' ', ST_SELECTED);
		int lw = view_hscroll_text(cv, x + 1, ry, w - 2, sel ? ST_SELECTED : ST_NORMAL, lines[r], &hs);
		free(lines[r]);
		/* compute | exposed comm | free, scaled to the longest window */
		int bx = x + 1 + lw + 3, bw = x + w - bx - 1;
		if (bw > 6 && app_ra_have(ra)[M_WALL_US]) {
			double scale = (double)bw / maxwin;
			int c1 = (int)(app_ra_v(ra)[M_COMPUTE_US] * scale + 0.5);
			int c2 = (int)(app_ra_v(ra)[M_COMM_NOT_OVERLAPPED_US] * scale + 0.5);
			int c3 = (int)(app_ra_v(ra)[M_FREE_US] * scale + 0.5);
			int cx = bx;
			for (int k = 0; k < c1 && cx < bx + bw; k++)
				canvas_set(cv, cx++, ry, 0x2588, ST_CAT_COMPUTE);
			for (int k = 0; k < c2 && cx < bx + bw; k++)
				canvas_set(cv, cx++, ry, 0x2593, ST_CAT_COMM);
			for (int k = 0; k < c3 && cx < bx + bw; k++)
				canvas_set(cv, cx++, ry, 0x00B7, ST_DIM);
		}
	}
	free(lines);
	int yy = hy + 1 + table_h;
	if (an->n_slow) {
		for (size_t i = 0; i < an->n_slow && yy < y + h; i++)
			canvas_textf(cv, x + 1, yy++, w - 2, ST_WARN, _("slow-rank flag: %s spread %.1f %% (highest rank %d, lowest rank %d)"),
				     an->slow[i].metric, an->slow[i].spread_pct, an->slow[i].max_rank, an->slow[i].min_rank);
	} else if (an->n_ranks > 1) {
		canvas_text(cv, x + 1, yy++, w - 2, ST_GOOD, _("no slow-rank flag: compute, communication and free within 5 %"));
	}
	canvas_text(cv, x + 1, yy++, w - 2, ST_DIM, _("legend: compute \u2588  exposed comm \u2593  free \u00b7   * no collectives matched"));
	/* stacked device activity over one aligned window */
	if (yy + 2 >= y + h || !an->n_ranks)
		return;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t i = 0; i < an->n_ranks; i++) {
		const struct rank_analysis *ra = &an->ranks[i];
		const struct rank_store *rs = &app_rank_data_of(app, app_ra_rank_index(ra))->store;
		if (!rs->has_events)
			continue;
		int64_t off = app_ra_offset_ns(ra)[app_align(app)];
		if (rs->window_start - off < lo)
			lo = rs->window_start - off;
		if (rs->window_end - off > hi)
			hi = rs->window_end - off;
	}
	if (lo >= hi)
		return;
	char b1[24];
	canvas_textf(cv, x + 1, yy++, w - 2, ST_HEADER, _("device activity, all ranks aligned (%s), %s"),
		     result_align_name(app_align(app)), app_fmt_dur(hi - lo, b1, sizeof b1));
	int label_w = 9, tw = w - label_w - 2;
	for (size_t i = 0; i < an->n_ranks && yy < y + h; i++, yy++) {
		const struct rank_analysis *ra = &an->ranks[i];
		canvas_textf(cv, x + 1, yy, label_w, i == v->lb.sel ? ST_BOLD : ST_NORMAL, _("rank %d"),
			     app_ra_rank(ra));
		int64_t off = app_ra_offset_ns(ra)[app_align(app)];
		for (int c = 0; c < tw; c++) {
			int64_t a = lo + (hi - lo) * c / tw, b = lo + (hi - lo) * (c + 1) / tw;
			struct lod_result r;
			device_cell(app, app_ra_rank_index(ra), a + off, b + off, &r);
			canvas_set(cv, x + 1 + label_w + c, yy, category_glyph(r.top_cat, r.coverage),
				   category_style(r.top_cat));
		}
	}
}

static int handle(void *p, struct app *app, enum action act)
{
	struct ranks_view *v = p;
	if (listbox_handle(&v->lb, act) || view_hscroll_handle(&v->hskip, act))
		return VH_HANDLED;
	const struct published *pub = app_pub(app);
	if (act == ACT_OPEN && pub && v->lb.sel < pub->an->n_ranks) {
		const struct rank_analysis *ra = &pub->an->ranks[v->lb.sel];
		view_open_rank_timeline(app, app_ra_rank_index(ra));
		return VH_HANDLED;
	}
	return VH_UNHANDLED;
}

/* Every rank: its clock offsets in each mode and its balance, the figures the rows and bars
 * show (empty where the rank has none). */
static size_t export_csv(void *p, struct app *app, FILE *out)
{
	(void)p;
	const struct published *pub = app_pub(app);
	static const char *const head[] = {"rank",       "first_us",    "raw_us",          "collective_us",
					   "residual_us", "matched",    "collective_ok",   "compute_ms",
					   "comm_exposed_ms", "free_ms", "wall_ms"};
	csvw_row(out, head, sizeof head / sizeof head[0]);
	for (size_t i = 0; pub && i < pub->an->n_ranks; i++) {
		const struct rank_analysis *ra = &pub->an->ranks[i];
		char b[10][40];
		snprintf(b[0], 40, "%d", app_ra_rank(ra));
		for (int m = 0; m < 3; m++)
			snprintf(b[1 + m], 40, "%.3f",
				 (double)app_ra_offset_ns(ra)[m == 0 ? ALIGN_FIRST : m == 1 ? ALIGN_RAW : ALIGN_COLLECTIVE] / 1e3);
		snprintf(b[4], 40, "%.3f", (double)app_ra_residual_ns(ra) / 1e3);
		snprintf(b[5], 40, "%zu", app_ra_matched_collectives(ra));
		static const int ms_of[] = {M_COMPUTE_US, M_COMM_NOT_OVERLAPPED_US, M_FREE_US, M_WALL_US};
		for (int m = 0; m < 4; m++)
			snprintf(b[6 + m], 40, app_ra_have(ra)[ms_of[m]] ? "%.6f" : "", app_ra_v(ra)[ms_of[m]] / 1e3);
		const char *row[] = {b[0], b[1], b[2], b[3], b[4], b[5], app_ra_collective_ok(ra) ? "yes" : "no",
				     b[6], b[7], b[8], b[9]};
		csvw_row(out, row, sizeof row / sizeof row[0]);
	}
	return pub ? pub->an->n_ranks : 0;
}

const struct view_ops ranks_view_ops = {
	.title = N_("Ranks"),
	.scopes = KS_LIST | KS_RANKS,
	.create = create,
	.destroy = destroy,
	.draw = draw,
	.handle = handle,
	.hint = N_("A alignment mode   Enter: the rank's timeline   h l columns"),
	.export_csv = export_csv,
};
