/* SPDX-License-Identifier: MIT */
/* Overview: one screen of triage. What was found, what loaded, the headline figures per
 * rank and the top bottleneck with its evidence. Shows what the CSV tables say while the
 * traces are still loading. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"
#include "report.h"
#include "sbuf.h"
#include "summary.h"
#include "views.h"
#include "xalloc.h"

struct overview {
	int scroll;    /* the first warning shown */
	size_t n_warn; /* as last drawn */
};

static void *create(struct app *app)
{
	(void)app;
	return xcalloc(1, sizeof(struct overview));
}

static void destroy(void *st) { free(st); }

/* The candidate the verdict names first: the most time to give back, not the top score. */
static const struct bottleneck *top_bottleneck(const struct rank_analysis *ra)
{
	int order[BN_COUNT];
	bottleneck_verdict_order(ra, order);
	return &app_ra_bn(ra)[order[0]];
}

/* What the table says of a rank no candidate triggered on: "none" only when the analysis
 * judged and found nothing; a verdict of insufficient data must not read as a clean run. */
static const char *untriggered_text(const struct rank_analysis *ra, bool *insufficient)
{
	char verdict[VERDICT_MAX];
	bottleneck_verdict(ra, verdict, sizeof verdict);
	*insufficient = strcmp(verdict, _("no candidate reaches its threshold")) != 0;
	return *insufficient ? _("insufficient data") : _("none");
}

static int draw_capture(struct app *app, struct canvas *cv, int x, int y, int w)
{
	const struct capture *cap = app_capture(app);
	const struct rank_plan *rp = cap->n_ranks ? cap->ranks[0].plan : NULL;
	canvas_text(cv, x, y, 10, ST_HEADER, _("Capture"));
	canvas_text(cv, x + 10, y, w - 10, ST_BOLD, cap->plan.path);
	y++;
	if (rp) {
		char line[256];
		snprintf(line, sizeof line, _("class %s, %zu rank(s)%s%s%s%s%s"), discover_class_name(rp->cls), cap->n_ranks,
			 rp->info.torch_npu_version ? ", torch_npu " : "",
			 rp->info.torch_npu_version ? rp->info.torch_npu_version : "",
			 rp->info.cann_version ? ", CANN " : "", rp->info.cann_version ? rp->info.cann_version : "",
			 rp->info.profiler_level ? "" : "");
		canvas_text(cv, x + 10, y, w - 10, ST_NORMAL, line);
		if (rp->info.profiler_level) {
			char lv[128];
			snprintf(lv, sizeof lv, _("  %s, aic_metrics %s"), rp->info.profiler_level,
				 rp->info.aic_metrics ? rp->info.aic_metrics : "none");
			canvas_text(cv, x + 10 + canvas_width(line), y, w - 10 - canvas_width(line), ST_DIM, lv);
		}
		y++;
	}
	return y;
}

static int draw_files(struct app *app, struct canvas *cv, int x, int y, int w, int max_lines)
{
	const struct capture *cap = app_capture(app);
	canvas_text(cv, x, y, 10, ST_HEADER, _("Files"));
	int lines = 0;
	/* more ranks than lines: the last line counts the others rather than dropping them */
	int shown = cap->n_ranks > (size_t)max_lines && max_lines > 1 ? max_lines - 1 : max_lines;
	for (size_t i = 0; i < cap->n_ranks && lines < shown; i++, lines++) {
		const struct rank_data *rd = &cap->ranks[i];
		int st = capture_rank_state(rd);
		struct sbuf sb = SBUF_INIT;
		sbuf_addf(&sb, _("rank %d: "), rd->plan->rank);
		/* the file the rank's timeline is read from: a Db export when that is its source */
		const struct found_file *tf = discover_find(rd->plan, ROLE_TRACE);
		for (size_t k = 0; rd->db_path && k < rd->plan->n_files; k++)
			if (rd->plan->files[k].path == rd->db_path)
				tf = &rd->plan->files[k];
		char b[32];
		if (tf)
			sbuf_addf(&sb, rd->db_path ? _("Db %s%s") : _("trace %s%s"), summary_bytes(tf->size, b, sizeof b),
				  st == RANK_READY ? (rd->store.trace.truncated ? _(" (cut short)") : "") : _(" (loading)"));
		else
			sbuf_adds(&sb, _("no trace"));
		if (capture_rank_csv_ready(rd)) {
			sbuf_addf(&sb, _(", %zu CSV"), rd->n_csvs);
			for (size_t k = 0; k < rd->n_csvs && k < 4; k++) {
				const struct csv_table *t = rd->csvs[k];
				sbuf_addf(&sb, "%s %s %zu", k ? "," : ":", csv_kind_name(t->kind), t->nrows);
			}
			if (rd->n_csvs > 4)
				sbuf_adds(&sb, ", ...");
		}
		if (!rd->plan->export_done)
			sbuf_adds(&sb, _("  [no analyse.done]"));
		canvas_text(cv, x + 10, y + lines, w - 10, st == RANK_READY ? ST_NORMAL : ST_DIM, sbuf_str(&sb));
		sbuf_free(&sb);
	}
	if ((size_t)lines < cap->n_ranks && lines < max_lines) {
		char more[128];
		snprintf(more, sizeof more, _("... %zu more ranks (--summary lists every file)"), cap->n_ranks - (size_t)lines);
		canvas_text(cv, x + 10, y + lines++, w - 10, ST_DIM, more);
	}
	return y + (lines ? lines : 1);
}

static int draw_table(struct app *app, struct canvas *cv, int x, int y, int w, int max_rows)
{
	static const struct { const char *head; int width; enum metric_id m; } cols[] = {
		{N_("Window"), 11, M_WALL_US},          {N_("NPU busy"), 9, M_NPU_BUSY_PCT},
		{N_("Host-only"), 10, M_HOST_ONLY_PCT}, {N_("Idle"), 9, M_NPU_IDLE_PCT},
		{N_("Comm exp."), 10, M_COMM_NOT_OVERLAPPED_PCT}, {N_("Steps"), 7, M_STEPS},
		{N_("Disp/step"), 10, M_DISPATCH_PER_STEP},
	};
	/* the bottleneck's name whole: the columns on the right give way to it */
	int need = canvas_width(_("Top bottleneck"));
	for (size_t i = 0; i < app_rank_count(app) && (int)i < max_rows; i++) {
		const struct rank_analysis *ra = app_rank_analysis_of(app, i);
		const struct bottleneck *bn = ra ? top_bottleneck(ra) : NULL;
		bool insufficient;
		int bw = 6;
		if (ra && bottleneck_verdict_leads_collective(ra))
			bw = canvas_width(_("one collective %.0f %%")) + 1;
		else if (bn && bn->score >= 40)
			bw = canvas_width(bn->name) + 4;
		else if (ra)
			bw = canvas_width(untriggered_text(ra, &insufficient));
		if (bw > need)
			need = bw;
	}
	size_t ncols = sizeof cols / sizeof cols[0];
	int used = 6;
	for (size_t c = 0; c < ncols; c++)
		used += cols[c].width;
	while (ncols > 3 && used + 1 + need > w)
		used -= cols[--ncols].width;
	int cx = x;
	canvas_text(cv, cx, y, 6, ST_HEADER, _("Rank"));
	cx += 6;
	for (size_t c = 0; c < ncols; c++) {
		canvas_text_right(cv, cx, y, cols[c].width - 1, ST_HEADER, _(cols[c].head));
		cx += cols[c].width;
	}
	canvas_text(cv, cx + 1, y, w - (cx + 1 - x), ST_HEADER, _("Top bottleneck"));
	y++;
	for (size_t i = 0; i < app_rank_count(app) && max_rows-- > 0; i++, y++) {
		const struct rank_analysis *ra = app_rank_analysis_of(app, i);
		enum style st = i == app_rank_index(app) ? ST_BOLD : ST_NORMAL;
		canvas_textf(cv, x, y, 6, st, "%d", app_rank_data_of(app, i)->plan->rank);
		if (!ra) {
			canvas_text(cv, x + 6, y, w - 6, ST_DIM, _("loading..."));
			continue;
		}
		cx = x + 6;
		for (size_t c = 0; c < ncols; c++) {
			char b[32];
			if (cols[c].m == M_STEPS && app_ra_have(ra)[M_STEPS])
				snprintf(b, sizeof b, "%.0f", app_ra_v(ra)[M_STEPS]);
			else if (cols[c].m == M_DISPATCH_PER_STEP && app_ra_have(ra)[cols[c].m])
				snprintf(b, sizeof b, "%.0f", app_ra_v(ra)[cols[c].m]);
			else
				report_metric_text(ra, cols[c].m, b, sizeof b);
			canvas_text_right(cv, cx, y, cols[c].width - 1, st, b);
			cx += cols[c].width;
		}
		const struct bottleneck *bn = top_bottleneck(ra);
		char b[64];
		bool insufficient = false;
		if (bottleneck_verdict_leads_collective(ra))
			snprintf(b, sizeof b, _("one collective %.0f %%"),
				 attribution_pct(app_ra_attr(ra), app_ra_outliers(ra)[0].exposed_ns));
		else if (bn->score >= 40)
			snprintf(b, sizeof b, "%s %d", bn->name, bn->score);
		else
			snprintf(b, sizeof b, "%s", untriggered_text(ra, &insufficient));
		canvas_text(cv, cx + 1, y, w - (cx + 1 - x),
			    bn->score >= 40 || insufficient || bottleneck_verdict_leads_collective(ra) ? ST_WARN : ST_GOOD, b);
	}
	return y;
}

static int draw_verdict(struct app *app, struct canvas *cv, int x, int y, int w, int max_lines)
{
	const struct rank_analysis *ra = app_rank_analysis(app);
	if (!ra || max_lines < 2)
		return y;
	const struct bottleneck *bn = top_bottleneck(ra);
	char verdict[VERDICT_MAX], head[VERDICT_MAX + 64];
	bottleneck_verdict(ra, verdict, sizeof verdict);
	snprintf(head, sizeof head, _("Verdict (rank %d): %s"), app_ra_rank(ra), verdict);
	if (bn->score < 40) {
		bool unknown = strcmp(verdict, _("no candidate reaches its threshold")) != 0;
		canvas_text(cv, x, y++, w, unknown ? ST_WARN : ST_GOOD, head);
		y += draw_attribution(cv, x + 2, y, w - 2, max_lines - 1, app_ra_attr(ra));
		return y;
	}
	/* the verdict whole (its order, and why a higher score comes later), on up to three
	 * lines when there is room; then the first candidate's evidence and gain */
	int extra = canvas_wrap(cv, x, y, w, max_lines >= 8 ? 3 : 1, ST_WARN, head) - 1;
	y += 1 + extra;
	y += draw_attribution(cv, x + 2, y, w - 2, max_lines - 3 - extra, app_ra_attr(ra));
	int shown = 0;
	for (size_t e = 0; e < bn->n_ev && shown < max_lines - 5 - extra; e++) {
		if (!bn->ev[e].triggered)
			continue;
		canvas_text(cv, x + 2, y, 2, ST_WARN, "*");
		canvas_text(cv, x + 4, y++, w - 4, ST_NORMAL, bn->ev[e].text);
		shown++;
	}
	char gain[200];
	snprintf(gain, sizeof gain, _("expected gain %.1f-%.1f %% of the window (%s confidence); all triggered: "
		 "%.1f-%.1f %%"), bn->gain.low_pct, bn->gain.high_pct, result_confidence_text(bn->gain.conf),
		 app_ra_combined_gain_low(ra), app_ra_combined_gain_high(ra));
	canvas_text(cv, x + 2, y++, w - 2, ST_NORMAL, gain);
	canvas_text(cv, x + 2, y++, w - 2, ST_DIM, _("6 evidence and gains   2 timeline   3 ops   4 steps   5 ranks"));
	return y;
}

struct warn_lines {
	char **v;
	size_t n, cap;
	const char *root;
};

static void collect_warning(const struct diag *d, void *ctx)
{
	struct warn_lines *wl = ctx;
	xgrow(&wl->v, &wl->cap, wl->n + 1, sizeof *wl->v);
	wl->v[wl->n++] = diag_format_under(d, wl->root);
}

/* The warnings, one list (analysis_warnings, what JSON's "warnings" holds) once the
 * analysis is out, the input's alone before; each whole, wrapped, its file named from the
 * capture (whose path is said above); j k scroll them when they do not all fit. */
static int draw_warnings(struct overview *ov, struct app *app, struct canvas *cv, int x, int y, int w,
			 int max_lines)
{
	if (max_lines < 1)
		return y;
	struct warn_lines wl = {.root = app_capture(app)->plan.path};
	const struct published *pub = app_pub(app);
	if (pub && pub->an) {
		analysis_warnings(pub->an, collect_warning, &wl);
	} else {
		struct diag_list *dl = app_diags(app);
		pthread_mutex_lock(&dl->lock);
		for (size_t i = 0; i < dl->n; i++)
			if (dl->items[i].level >= DIAG_WARN)
				collect_warning(&dl->items[i], &wl);
		pthread_mutex_unlock(&dl->lock);
	}
	ov->n_warn = wl.n;
	char head[64];
	snprintf(head, sizeof head, _("Warnings %zu"), wl.n);
	canvas_text(cv, x, y, 12, wl.n ? ST_WARN : ST_HEADER, head);
	if (!wl.n) {
		canvas_text(cv, x + 12, y, w - 12, ST_DIM, _("none"));
		return y + 1;
	}
	if (ov->scroll >= (int)wl.n)
		ov->scroll = (int)wl.n - 1;
	int tw = w - 12 > 1 ? w - 12 : 1, lines = 0;
	size_t i = (size_t)ov->scroll;
	/* the whole list fits from the first: no scroll line */
	int need = 0;
	for (size_t k = 0; k < wl.n; k++)
		need += canvas_wrap(NULL, 0, 0, tw, 0, ST_NORMAL, wl.v[k]);
	bool all = ov->scroll == 0 && need <= max_lines;
	int room = all ? max_lines : max_lines - 1;
	for (; i < wl.n && lines < room; i++)
		lines += canvas_wrap(cv, x + 12, y + lines, tw, room - lines, ST_NORMAL, wl.v[i]);
	if (!all && room >= 0)
		canvas_textf(cv, x + 12, y + lines, tw, ST_DIM, _("warnings %d-%zu of %zu   j k scroll them"),
			     ov->scroll + 1, i, wl.n);
	for (size_t k = 0; k < wl.n; k++)
		free(wl.v[k]);
	free(wl.v);
	return y + lines + !all;
}

static int handle(void *stp, struct app *app, enum action act)
{
	struct overview *ov = stp;
	(void)app;
	if (act == ACT_DOWN && ov->scroll + 1 < (int)ov->n_warn)
		ov->scroll++;
	else if (act == ACT_UP && ov->scroll > 0)
		ov->scroll--;
	else if (act == ACT_TOP)
		ov->scroll = 0;
	else if (act == ACT_BOTTOM && ov->n_warn)
		ov->scroll = (int)ov->n_warn - 1;
	else
		return VH_UNHANDLED;
	return VH_HANDLED;
}

/* The serving output's figures in three lines (the report has them all): what the
 * requests saw, the batches and forwards, what bounds TTFT and TPOT. Nothing without one. */
static int draw_serving(struct app *app, struct canvas *cv, int x, int y, int w)
{
	const struct service_analysis *sa = app_service(app);
	if (!sa)
		return y;
	char line[320];
	canvas_text(cv, x, y, 10, ST_HEADER, _("Serving"));
	if (sa->ttft.valid)
		snprintf(line, sizeof line, _("%zu requests; TTFT p50 %.3f p99 %.3f ms; TPOT p50 %.3f ms"), sa->requests,
			 (double)sa->ttft.p50 / 1e6, (double)sa->ttft.p99 / 1e6,
			 sa->tpot.valid ? (double)sa->tpot.p50 / 1e6 : NAN);
	else
		snprintf(line, sizeof line, _("%zu requests; TTFT n/a: %s"), sa->requests, _(sa->ttft.why));
	canvas_text(cv, x + 10, y++, w - 10, ST_NORMAL, line);
	snprintf(line, sizeof line, _("batches %zu prefill, %zu decode, %zu mixed; %zu forwards"),
		 sa->batches[SBT_PREFILL], sa->batches[SBT_DECODE], sa->batches[SBT_MIXED], sa->forwards);
	canvas_text(cv, x + 10, y++, w - 10, ST_NORMAL, line);
	snprintf(line, sizeof line, _("TTFT: %s; TPOT: %s (--report: serving)"),
		 _(sa->ttft_bound.valid ? sa->ttft_bound.part : N_("no verdict")),
		 _(sa->tpot_bound.valid ? sa->tpot_bound.part : N_("no verdict")));
	canvas_text(cv, x + 10, y++, w - 10, ST_DIM, line);
	return y;
}

/* The capture doctor (doctor.h): what the capture lacks and the setting that adds it, a
 * line each, as many as fit in max_lines (--report --json: doctor has them all). */
static int draw_doctor(struct app *app, struct canvas *cv, int x, int y, int w, int max_lines)
{
	const struct published *pub = app_pub(app);
	if (!pub || !pub->an || !pub->an->n_doctor || max_lines < 1)
		return y;
	canvas_text(cv, x, y, 10, ST_HEADER, _("Doctor"));
	char line[512];
	size_t n = pub->an->n_doctor, shown = n < (size_t)max_lines ? n : (size_t)max_lines;
	for (size_t i = 0; i < shown; i++) {
		const struct doctor_item *d = &pub->an->doctor[i];
		if (i + 1 == shown && shown < n)
			snprintf(line, sizeof line, _("%zu more (--report --json: doctor)"), n - i);
		else
			snprintf(line, sizeof line, _("missing %s: set %s"), _(d->what_missing), d->setting);
		canvas_text(cv, x + 10, y++, w - 10, ST_DIM, line);
	}
	return y;
}

static void draw(void *stp, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	struct overview *ov = stp;
	int bottom = y + h;
	x += 1;
	w -= 2;
	y = draw_capture(app, cv, x, y, w);
	int nr = (int)app_rank_count(app);
	y = draw_files(app, cv, x, y, w, nr < 4 ? nr : 4) + 1;
	int sy = draw_serving(app, cv, x, y, w);
	y = sy > y ? sy + 1 : y;
	if (y < bottom)
		y = draw_table(app, cv, x, y, w, bottom - y - 6 > 1 ? bottom - y - 6 : 1) + 1;
	if (y < bottom)
		y = draw_verdict(app, cv, x, y, w, bottom - y - 2) + 1;
	if (y + 3 < bottom) {
		int dy = draw_doctor(app, cv, x, y, w, bottom - y - 3 < 4 ? bottom - y - 3 : 4);
		y = dy > y ? dy + 1 : y;
	}
	if (y < bottom)
		draw_warnings(ov, app, cv, x, y, w, bottom - y);
}

const struct view_ops overview_view_ops = {
	.title = N_("Overview"),
	.scopes = KS_LIST,
	.create = create,
	.destroy = destroy,
	.handle = handle,
	.draw = draw,
	.hint = N_("1-8 views  Tab next  < > rank  : command"),
};
