/* SPDX-License-Identifier: MIT */
/* Cluster: every rank side by side (cluster.h). One row per rank: median step time, own
 * work, collective wait, robust z and SLOW, then its steps as cells (step time against the
 * median of that step across ranks; the wait's share of the step as the colour). Below,
 * the communication groups' wait against transfer. A frame draws only the rows in view, so
 * a thousand ranks cost what a screenful does. Enter opens the rank's timeline. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "comm_split.h"
#include "csvw.h"
#include "num.h"
#include "views.h"
#include "xalloc.h"

struct cluster_view {
	struct listbox lb;
	const struct cluster_analysis *seen; /* step medians are for this analysis */
	int64_t *step_med;                   /* per step: median time across ranks */
	int hskip;                           /* figure columns scrolled out after the rank (h l) */
	size_t step0;                        /* the first step shown, once no figure is left to scroll */
	bool steps_cut;                      /* the figures are all out and steps are cut on the right */
};

static void *create(struct app *app)
{
	(void)app;
	return xcalloc(1, sizeof(struct cluster_view));
}

static void destroy(void *p)
{
	struct cluster_view *v = p;
	free(v->step_med);
	free(v);
}

/* The median of each step's time across the ranks that have it (once per analysis). */
static void step_medians(struct cluster_view *v, const struct cluster_analysis *ca)
{
	if (v->seen == ca)
		return;
	free(v->step_med);
	v->step_med = xcalloc(ca->n_steps ? ca->n_steps : 1, sizeof *v->step_med);
	/* each step's column gathered from the ranks that have it: the cells there are, not
	 * ranks x the most steps (one rank of 20,000 steps beside 20,000 of one) */
	size_t *at = xcalloc(ca->n_steps + 1, sizeof *at), total = ca->cell_at[ca->n_ranks];
	for (size_t r = 0; r < ca->n_ranks; r++)
		for (size_t s = 0; s < ca->ranks[r].n_steps && s < ca->n_steps; s++)
			at[s + 1]++;
	for (size_t s = 0; s < ca->n_steps; s++)
		at[s + 1] += at[s];
	int64_t *col = xmalloc((total ? total : 1) * sizeof *col);
	size_t *fill = xmalloc((ca->n_steps ? ca->n_steps : 1) * sizeof *fill);
	memcpy(fill, at, ca->n_steps * sizeof *fill);
	for (size_t r = 0; r < ca->n_ranks; r++)
		for (size_t s = 0; s < ca->ranks[r].n_steps && s < ca->n_steps; s++)
			col[fill[s]++] = cluster_cell(ca, r, s)->dur_ns;
	for (size_t s = 0; s < ca->n_steps; s++) {
		/* a step a rank has but that has no time (dur_ns < 0) is left out, as before */
		size_t n = 0;
		for (size_t i = at[s]; i < at[s + 1]; i++)
			if (col[i] >= 0)
				col[at[s] + n++] = col[i];
		v->step_med[s] = n ? nearest_rank_select(col + at[s], n, 0.5) : 0;
	}
	free(fill);
	free(at);
	free(col);
	v->seen = ca;
}

static double ms(int64_t ns) { return (double)ns / 1e6; }

static void draw(void *p, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	struct cluster_view *v = p;
	const struct published *pub = app_pub(app);
	if (!pub) {
		canvas_text(cv, x + 1, y + 1, w - 2, ST_DIM, _("loading..."));
		return;
	}
	const struct analysis *an = pub->an;
	const struct cluster_analysis *ca = an->cluster;
	if (!ca) {
		canvas_text(cv, x + 1, y + 1, w - 2, ST_DIM, _("one rank: the cluster view compares two ranks or more"));
		return;
	}
	step_medians(v, ca);
	v->lb.n = ca->n_ranks;
	int yy = y;
	canvas_textf(cv, x + 1, yy++, w - 2, ST_BOLD, _("%zu ranks, up to %zu steps, %zu collectives matched%s"),
		     ca->n_ranks, ca->n_steps, ca->matched,
		     an->from_cluster_output ? _("   (from the cluster output)")
		     : an->from_digests      ? _("   (from digests)")
					     : "");
	const struct comm_group *big;
	size_t partial = comm_groups_partial(an->comm, &big);
	if (partial)
		canvas_textf(cv, x + 1, yy++, w - 2, ST_WARN,
			     _("%zu communication group(s) larger than the capture (the largest: group of %zu ranks, %zu "
			       "captured): judged among the captured ranks only"),
			     partial, big->n_ranks, big->n_captured);
	char layout[96];
	if (*comm_layout_text(an->comm, layout, sizeof layout))
		/* TRANSLATORS: %s lists tp, dp, pp, ep, dcp with a count each, kept as they are */
		canvas_textf(cv, x + 1, yy++, w - 2, ST_NORMAL, _("communication groups by parallel dimension: %s"), layout);
	char slow[160] = "";
	size_t k = 0;
	for (size_t r = 0; r < ca->n_ranks && k + 12 < sizeof slow; r++)
		if (ca->ranks[r].slow)
			k += (size_t)snprintf(slow + k, sizeof slow - k, "%s%d", k ? ", " : "", ca->ranks[r].rank);
	if (ca->judged < 3)
		canvas_text(cv, x + 1, yy++, w - 2, ST_DIM, _("slow ranks: not judged (fewer than 3 ranks with steps)"));
	else if (ca->n_slow)
		canvas_textf(cv, x + 1, yy++, w - 2, ST_WARN,
			     _("slow ranks: %s (own work per step, z > %.1f, > %.0f %% over the median %.3f ms)"),
			     slow, CLUSTER_Z_SLOW, CLUSTER_MIN_EXCESS * 100, ms(ca->own_median_ns));
	else
		canvas_textf(cv, x + 1, yy++, w - 2, ST_GOOD, _("no slow rank (own work per step: median %.3f ms, MAD %.3f ms)"),
			     ms(ca->own_median_ns), ms(ca->own_mad_ns));
	/* the one late-rank answer every view and report quotes (comm_ranks_late_rank) */
	if (ca->waited_rank >= 0)
		canvas_textf(cv, x + 1, yy++, w - 2, ST_WARN,
			     _("everyone waits for rank %d: last in %zu of %zu collectives, %.3f ms of the others' wait; "
			       "before joining: %s"),
			     ca->waited_rank, ca->waited_count, ca->matched, ms(ca->waited_ns),
			     _(comm_before_name(ca->waited_before)));
	else if (ca->waited_hidden_rank >= 0)
		canvas_textf(cv, x + 1, yy++, w - 2, ST_NORMAL,
			     _("no rank everyone waits for: rank %d is last in %zu of %zu collectives, but the wait hides "
			       "under the others' compute (%.2f %% of their window exposed)"),
			     ca->waited_hidden_rank, ca->waited_count, ca->matched, ca->waited_exposed_pct);
	else
		canvas_text(cv, x + 1, yy++, w - 2, ST_NORMAL, _("no rank everyone waits for"));
	canvas_text(cv, x + 1, yy++, w - 2, ST_DIM,
		    _("wait: waiting for a peer, a collective's time less the least of it across the ranks (median per "
		      "step, hidden or exposed; the Bottleneck view's share is the exposed part)"));

	canvas_fill(cv, x, yy, w, 1, ' ', ST_HEADER);
	/* TRANSLATORS: column titles: each keeps the cells of its column */
	const char *head = _("rank    step ms    own ms   wait ms      z  ");
	int head_w = canvas_width(head);
	/* too narrow for the steps: h l scroll the figures out (the rank stays), then the
	 * steps one at a time */
	int widths[] = {5, 10, 10, 10, head_w - 35, 0}, skip_more;
	widths[5] = (int)ca->n_steps;
	struct hscroll hs, probe;
	view_hscroll_setup_cols(&hs, widths, 6, 1, &v->hskip, w - 2);
	skip_more = v->hskip + 1;
	view_hscroll_setup_cols(&probe, widths, 6, 1, &skip_more, w - 2);
	int cells_x = x + 1 + view_hscroll_col(&hs, head_w), cells_w = x + w - 1 - cells_x;
	size_t fit = cells_w > 0 ? (size_t)cells_w : 0;
	if (v->step0 + fit > ca->n_steps)
		v->step0 = ca->n_steps > fit ? ca->n_steps - fit : 0;
	v->steps_cut = skip_more == v->hskip && v->step0 + fit < ca->n_steps;
	char title[256];
	if (v->step0 || v->step0 + fit < ca->n_steps)
		snprintf(title, sizeof title, _("%ssteps %zu-%zu of %zu: time vs the step's median (wait share: colour)"),
			 head, v->step0 + 1, v->step0 + fit, ca->n_steps);
	else
		snprintf(title, sizeof title, _("%ssteps: time vs the step's median (wait share: colour)"), head);
	view_hscroll_text(cv, x + 1, yy, w - 2, ST_HEADER, title, &hs);
	yy++;
	int groups = (int)(ca->n_groups < 4 ? ca->n_groups : 4);
	int table_h = y + h - yy - (groups ? groups + 2 : 1);
	if (table_h < 1)
		table_h = 1;
	listbox_clamp(&v->lb, table_h);
	for (int r = 0; r < table_h && v->lb.top + (size_t)r < ca->n_ranks; r++) {
		size_t i = v->lb.top + (size_t)r;
		const struct cluster_rank *cr = &ca->ranks[i];
		int ry = yy + r;
		bool sel = i == v->lb.sel;
		if (sel)
			canvas_fill(cv, x, ry, w, 1, ' ', ST_SELECTED);
		char z[16] = "-", line[96];
		if (isinf(cr->z))
			snprintf(z, sizeof z, "%s", cr->z > 0 ? "inf" : "-inf");
		else if (!isnan(cr->z))
			snprintf(z, sizeof z, "%.1f", cr->z);
		snprintf(line, sizeof line, "%-5d %9.3f %9.3f %9.3f %6s", cr->rank, ms(cr->step_ns), ms(cr->own_ns),
			 ms(cr->wait_step_ns), z);
		view_hscroll_text(cv, x + 1, ry, cells_x - x - 1, sel ? ST_SELECTED : cr->slow ? ST_WARN : ST_NORMAL, line,
				  &hs);
		/* one cell per step: a height glyph for the time against the step's median, in
		 * the colour of its wait share */
		static const uint32_t level[] = {0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588};
		for (int c = 0; c < cells_w && v->step0 + (size_t)c < ca->n_steps; c++) {
			size_t s = v->step0 + (size_t)c;
			const struct cluster_cell *cell = cluster_cell(ca, i, s);
			if (cell->dur_ns < 0) {
				canvas_set(cv, cells_x + c, ry, ' ', ST_DIM);
				continue;
			}
			double rel = v->step_med[s] > 0 ? (double)cell->dur_ns / (double)v->step_med[s] : 1;
			int lv = num_level((rel - 0.6) / 0.8, 7); /* 0.6x .. 1.4x of the median */
			double wait = cell->dur_ns > 0 ? (double)cell->wait_ns / (double)cell->dur_ns : 0;
			canvas_set(cv, cells_x + c, ry, level[lv],
				   wait >= 0.3 ? ST_CAT_COMM : wait >= 0.1 ? ST_WARN : ST_CAT_COMPUTE);
		}
	}
	yy += table_h;
	if (!groups) {
		canvas_text(cv, x + 1, yy, w - 2, ST_DIM, _("no collective matched across ranks"));
		return;
	}
	canvas_fill(cv, x, yy, w, 1, ' ', ST_HEADER);
	canvas_text(cv, x + 1, yy++, w - 2, ST_HEADER,
		    /* TRANSLATORS: column titles: each keeps the cells of its column */
		    _("group              collectives   fastest ms      wait ms  wait %  waited for"));
	for (int g = 0; g < groups && yy < y + h; g++) {
		const struct cluster_group *cg = &ca->groups[g];
		int64_t all = cg->wait_ns + cg->transfer_ns;
		char who[32] = "-";
		if (cg->waited_rank >= 0)
			snprintf(who, sizeof who, "rank %d", cg->waited_rank);
		char name[20];
		snprintf(name, sizeof name, "%s", cg->name);
		canvas_textf(cv, x + 1, yy++, w - 2, ST_NORMAL, "%-18s %11zu %12.3f %12.3f %6.1f  %s", name, cg->collectives,
			     ms(cg->transfer_ns), ms(cg->wait_ns), all > 0 ? 100.0 * (double)cg->wait_ns / (double)all : 0.0,
			     who);
	}
}

static int handle(void *p, struct app *app, enum action act)
{
	struct cluster_view *v = p;
	if (listbox_handle(&v->lb, act))
		return VH_HANDLED;
	/* Right past the figures moves the steps; Left brings the steps back first */
	if (act == ACT_COLUMN_RIGHT && v->steps_cut) {
		v->step0++;
		return VH_HANDLED;
	}
	if (act == ACT_COLUMN_LEFT && v->step0) {
		v->step0--;
		return VH_HANDLED;
	}
	if (view_hscroll_handle(&v->hskip, act))
		return VH_HANDLED;
	const struct published *pub = app_pub(app);
	if (act == ACT_OPEN && pub && v->lb.sel < pub->an->n_ranks) {
		const struct rank_analysis *ra = &pub->an->ranks[v->lb.sel];
		if (pub->an->from_cluster_output) {
			app_message(app, ST_WARN,
				    _("rank %d was read from msprof-analyze's cluster table: it holds no events; open "
				      "the rank's own capture"),
				    app_ra_rank(ra));
			return VH_HANDLED;
		}
		if (pub->an->from_digests) {
			app_message(app, ST_WARN,
				    _("rank %d was read from a digest: its raw events are in %s"),
				    app_ra_rank(ra),
				    app_rank_data_of(app, app_ra_rank_index(ra))->plan->output_dir);
			return VH_HANDLED;
		}
		view_open_rank_timeline(app, app_ra_rank_index(ra));
		return VH_HANDLED;
	}
	return VH_UNHANDLED;
}

/* One row per rank and step (a rank without steps: one row, its step fields empty): the
 * step's time, its wait and the step's median across ranks beside the rank's figures. */
static size_t export_csv(void *p, struct app *app, FILE *out)
{
	struct cluster_view *v = p;
	const struct published *pub = app_pub(app);
	const struct cluster_analysis *ca = pub ? pub->an->cluster : NULL;
	static const char *const head[] = {"rank",      "step",        "step_ms",     "step_wait_ms", "step_median_ms",
					   "rank_step_ms", "rank_own_ms", "rank_wait_ms", "z",            "slow"};
	csvw_row(out, head, sizeof head / sizeof head[0]);
	if (!ca)
		return 0;
	step_medians(v, ca);
	size_t rows = 0;
	for (size_t r = 0; r < ca->n_ranks; r++) {
		const struct cluster_rank *cr = &ca->ranks[r];
		char b[9][40];
		snprintf(b[0], 40, "%d", cr->rank);
		snprintf(b[5], 40, "%.6f", ms(cr->step_ns));
		snprintf(b[6], 40, "%.6f", ms(cr->own_ns));
		snprintf(b[7], 40, "%.6f", ms(cr->wait_step_ns));
		snprintf(b[8], 40, isnan(cr->z) ? "" : isinf(cr->z) ? (cr->z > 0 ? "inf" : "-inf") : "%.3f", cr->z);
		for (size_t s = 0; s < cr->n_steps || (s == 0 && !cr->n_steps); s++, rows++) {
			const struct cluster_cell *cell = s < cr->n_steps && s < ca->n_steps ? cluster_cell(ca, r, s) : NULL;
			bool timed = cell && cell->dur_ns >= 0;
			snprintf(b[1], 40, cell ? "%zu" : "", s + 1);
			snprintf(b[2], 40, timed ? "%.6f" : "", timed ? ms(cell->dur_ns) : 0.0);
			snprintf(b[3], 40, timed ? "%.6f" : "", timed ? ms(cell->wait_ns) : 0.0);
			snprintf(b[4], 40, cell ? "%.6f" : "", cell ? ms(v->step_med[s]) : 0.0);
			const char *row[] = {b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], cr->slow ? "yes" : "no"};
			csvw_row(out, row, sizeof row / sizeof row[0]);
		}
	}
	return rows;
}

const struct view_ops cluster_view_ops = {
	.title = N_("Cluster"),
	.scopes = KS_LIST,
	.create = create,
	.destroy = destroy,
	.draw = draw,
	.handle = handle,
	.hint = N_("Enter: the rank's timeline   h l columns   steps: time vs the step's median, colour: wait share"),
	.export_csv = export_csv,
};
