/* SPDX-License-Identifier: MIT */
/* Steps: where the steps came from, how the phases were decided, a sparkline of step
 * durations and the per-step breakdown. Enter zooms the timeline to the step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <uniwidth.h>

#include "csvw.h"
#include "num.h"
#include "views.h"
#include "xalloc.h"

struct steps_view {
	struct listbox lb;
	const struct rank_analysis *ra;
	int hskip; /* columns scrolled out after the step number (Right/l, Left/h) */
};

static void *create(struct app *app)
{
	(void)app;
	return xcalloc(1, sizeof(struct steps_view));
}

static void destroy(void *p) { free(p); }

static void update(void *p, struct app *app)
{
	struct steps_view *v = p;
	const struct rank_analysis *ra = app_rank_analysis(app);
	if (ra != v->ra) {
		v->ra = ra;
		v->lb.sel = v->lb.top = 0;
	}
	v->lb.n = ra ? app_ra_n_steps(ra) : 0;
}

/* One cell per step (or per group of steps when they do not fit): height is duration. */
static void sparkline(const struct rank_analysis *ra, struct canvas *cv, int x, int y, int w, size_t sel)
{
	static const uint32_t levels[8] = {0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588};
	if (!app_ra_n_steps(ra) || w < 1)
		return;
	int64_t maxd = 1;
	for (size_t i = 0; i < app_ra_n_steps(ra); i++)
		if (app_ra_steps(ra)[i].end - app_ra_steps(ra)[i].start > maxd)
			maxd = app_ra_steps(ra)[i].end - app_ra_steps(ra)[i].start;
	size_t per = (app_ra_n_steps(ra) + (size_t)w - 1) / (size_t)w;
	for (int c = 0; c < w; c++) {
		size_t a = (size_t)c * per;
		if (a >= app_ra_n_steps(ra))
			break;
		int64_t d = 0;
		bool prefill = false, mixed = false, has_sel = false;
		for (size_t i = a; i < a + per && i < app_ra_n_steps(ra); i++) {
			int64_t di = app_ra_steps(ra)[i].end - app_ra_steps(ra)[i].start;
			if (di > d)
				d = di;
			prefill |= app_ra_steps(ra)[i].phase == PHASE_PREFILL;
			mixed |= app_ra_steps(ra)[i].phase == PHASE_MIXED;
			has_sel |= i == sel;
		}
		int lv = (int)num_muldiv(d, 7, maxd); /* d × 7 passes int64 for a step of 1.3e18 ns */
		canvas_set(cv, x + c, y,
		           levels[lv < 0   ? 0
		                  : lv > 7 ? 7
		                           : lv],
		           has_sel   ? ST_SELECTED
		           : prefill ? ST_CAT_COMM
		           : mixed   ? ST_CAT_COPY
		                     : ST_CAT_COMPUTE);
	}
}

/* Step i's row of the table, owned. */
static char *step_line(const struct rank_analysis *ra, size_t i)
{
	const struct step *s = &app_ra_steps(ra)[i];
	char start[24] = "-";
	if (s->has_window)
		snprintf(start, sizeof start, "%.3f", (double)(s->start - app_ra_t0(ra)) / 1e6);
	char win[24] = "-", phase[32], conf[32], host[24] = "-", disp[24] = "-";
	if (s->has_window)
		snprintf(win, sizeof win, "%.3f", (double)(s->win_end - s->win_start) / 1e6);
	/* without a host trace these are unknown, not zero (the rank's metrics are n/a) */
	if (app_ra_have(ra)[M_HOST_ONLY_US])
		snprintf(host, sizeof host, "%.3f", (double)s->host_only_ns / 1e6);
	if (app_ra_have(ra)[M_DISPATCH_OPS])
		snprintf(disp, sizeof disp, "%zu", s->dispatch_ops);
	/* "training" is a byte wider than the column: the compute field gives it back */
	const char *ph = _(result_step_phase_name(s));
	int over = (int)u8_strwidth((const uint8_t *)ph, "UTF-8") - 7;
	over = over < 0 ? 0 : over > 4 ? 4 : over;
	return xasprintf("%4zu %9s %10.3f %10s  %s %*.3f %12.3f %10.3f %13s %9s  %-10s  %s  %s", i + 1, start,
			 (double)(s->end - s->start) / 1e6, win, view_padded(phase, sizeof phase, ph, 7), 11 - over,
			 (double)s->compute_ns / 1e6, (double)s->comm_not_overlapped_ns / 1e6, (double)s->free_ns / 1e6,
			 host, disp, result_phase_signal_name(s->phase_source),
			 view_padded(conf, sizeof conf, result_confidence_text(s->phase_conf), 6),
			 s->label ? s->label : "");
}

static void draw(void *p, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	struct steps_view *v = p;
	update(v, app);
	const struct rank_analysis *ra = v->ra;
	if (!ra) {
		canvas_text(cv, x + 1, y + 1, w - 2, ST_DIM, _("loading..."));
		return;
	}
	canvas_textf(cv, x + 1, y, w - 2, ST_BOLD, _("%zu step(s) from %s"), app_ra_n_steps(ra),
		     result_step_source_name(app_ra_step_source(ra)));
	canvas_text(cv, x + 3, y + 1, w - 4, ST_DIM,
		    app_ra_step_evidence(ra) ? app_ra_step_evidence(ra) : "");
	canvas_textf(cv, x + 1, y + 2, w - 2, ST_BOLD, _("workload %s; phases from %s, confidence %s"),
	             result_workload_name(app_ra_workload(ra)),
	             result_phase_source_name(app_ra_phase_source(ra)),
	             result_confidence_text(app_ra_phase_conf(ra)));
	canvas_text(cv, x + 3, y + 3, w - 4, ST_DIM,
		    app_ra_phase_evidence(ra) ? app_ra_phase_evidence(ra) : "");
	canvas_text(cv, x + 1, y + 4, 10, ST_DIM, _("durations"));
	sparkline(ra, cv, x + 12, y + 4, w - 14, v->lb.sel);
	if (v->lb.sel < app_ra_n_steps(ra)) { /* why the selected step has its phase */
		const struct step *s = &app_ra_steps(ra)[v->lb.sel];
		canvas_textf(cv, x + 1, y + 5, w - 2, ST_DIM, _("step %zu: %s from %s, confidence %s: %s"),
		             v->lb.sel + 1, _(result_step_phase_name(s)),
		             result_phase_source_name(s->phase_source),
		             result_confidence_text(s->phase_conf),
		             s->phase_evidence ? s->phase_evidence : "");
	}
	char phases[512]; /* a verdict per phase, one line (phase_verdict.h) */
	int by_phase = app_ra_n_by_phase(ra) ? 1 : 0;
	if (by_phase)
		canvas_text(cv, x + 1, y + 6, w - 2, ST_BOLD, view_phases_line(ra, phases, sizeof phases));
	int hy = y + 7 + by_phase;
	canvas_fill(cv, x, hy, w, 1, ' ', ST_HEADER);
	/* TRANSLATORS: column titles: each keeps the cells of its column */
	const char *head = _("   #  start ms     dur ms  window ms  phase    compute ms  comm-exp ms    free ms  "
			     "host-only ms  dispatch  signal      conf    label");
	/* the figures cover the step's window, which runs to the next step's start: they add
	 * up to it, not to the marker's duration */
	canvas_text(cv, x + 1, y + 6 + by_phase, w - 2, ST_DIM,
		    _("compute + comm-exp + free = window ms (the step's start to the next step's)"));
	int body = h - 8 - by_phase;
	listbox_clamp(&v->lb, body);
	int shown = 0;
	while (shown < body && v->lb.top + (size_t)shown < app_ra_n_steps(ra))
		shown++;
	char **lines = xcalloc(shown ? (size_t)shown : 1, sizeof *lines);
	for (int r = 0; r < shown; r++)
		lines[r] = step_line(ra, v->lb.top + (size_t)r);
	/* too wide: Right/l and Left/h scroll the columns after the step number */
	struct hscroll hs;
	view_hscroll_setup(&hs, head, (const char *const *)lines, (size_t)shown, 1, &v->hskip, w - 2);
	view_hscroll_text(cv, x + 1, hy, w - 2, ST_HEADER, head, &hs);
	for (int r = 0; r < shown; r++) {
		size_t i = v->lb.top + (size_t)r;
		const struct step *s = &app_ra_steps(ra)[i];
		bool sel = i == v->lb.sel;
		enum style st = sel ? ST_SELECTED : ST_NORMAL;
		if (sel)
			canvas_fill(cv, x, hy + 1 + r, w, 1, ' ', ST_SELECTED);
		view_hscroll_text(cv, x + 1, hy + 1 + r, w - 2, st, lines[r], &hs);
		int pc = view_hscroll_col(&hs, 38);
		if (!sel && pc >= 0 && (s->phase == PHASE_PREFILL || s->phase == PHASE_MIXED))
			canvas_restyle(cv, x + 1 + pc, hy + 1 + r, 7,
				       s->phase == PHASE_MIXED ? ST_CAT_COPY : ST_CAT_COMM);
		free(lines[r]);
	}
	free(lines);
	if (!app_ra_n_steps(ra))
		canvas_text(cv, x + 1, hy + 2, w - 2, ST_DIM, _("no steps"));
}

static int handle(void *p, struct app *app, enum action act)
{
	struct steps_view *v = p;
	if (listbox_handle(&v->lb, act) || view_hscroll_handle(&v->hskip, act))
		return VH_HANDLED;
	if (act != ACT_OPEN || !v->ra || !app_ra_n_steps(v->ra))
		return VH_UNHANDLED;
	const struct step *s = &app_ra_steps(v->ra)[v->lb.sel];
	if (!s->has_window) {
		app_message(app, ST_WARN, _("this step has no timestamps (step table without a trace)"));
		return VH_HANDLED;
	}
	struct view_target tg = {.timeline = {app_rank_index(app), s->win_start, s->win_end, s->marker_ev}};
	app_open(app, VIEW_TIMELINE, &tg);
	return VH_HANDLED;
}

static bool step_matches(const void *ctx, size_t i, const char *text)
{
	const struct step *s = &app_ra_steps(((const struct steps_view *)ctx)->ra)[i];
	return (s->label && strcasestr(s->label, text)) || strcasestr(result_step_phase_name(s), text);
}

static bool search(void *p, struct app *app, const char *text, int dir)
{
	(void)app;
	struct steps_view *v = p;
	return v->ra && listbox_search(&v->lb, dir, step_matches, v, text);
}

static size_t export_csv(void *p, struct app *app, FILE *out)
{
	struct steps_view *v = p;
	update(v, app);
	static const char *const head[] = {"step", "label", "phase", "start_ms", "dur_ms", "window_start_ms",
					   "window_ms", "compute_ms", "comm_exposed_ms", "free_ms", "host_only_ms",
					   "dispatch_ops"};
	csvw_row(out, head, sizeof head / sizeof head[0]);
	for (size_t i = 0; v->ra && i < app_ra_n_steps(v->ra); i++) {
		const struct step *s = &app_ra_steps(v->ra)[i];
		char b[10][32];
		snprintf(b[0], 32, "%zu", i + 1);
		snprintf(b[1], 32, s->has_window ? "%.6f" : "", (double)(s->start - app_ra_t0(v->ra)) / 1e6);
		snprintf(b[2], 32, "%.6f", (double)(s->end - s->start) / 1e6);
		snprintf(b[3], 32, s->has_window ? "%.6f" : "",
			 (double)(s->win_start - app_ra_t0(v->ra)) / 1e6);
		snprintf(b[4], 32, s->has_window ? "%.6f" : "", (double)(s->win_end - s->win_start) / 1e6);
		snprintf(b[5], 32, "%.6f", (double)s->compute_ns / 1e6);
		snprintf(b[6], 32, "%.6f", (double)s->comm_not_overlapped_ns / 1e6);
		snprintf(b[7], 32, "%.6f", (double)s->free_ns / 1e6);
		snprintf(b[8], 32, app_ra_have(v->ra)[M_HOST_ONLY_US] ? "%.6f" : "",
			 (double)s->host_only_ns / 1e6);
		snprintf(b[9], 32, app_ra_have(v->ra)[M_DISPATCH_OPS] ? "%zu" : "", s->dispatch_ops);
		const char *row[] = {b[0], s->label, result_step_phase_name(s), b[1], b[2], b[3], b[4], b[5], b[6],
				     b[7], b[8], b[9]};
		csvw_row(out, row, sizeof row / sizeof row[0]);
	}
	return v->ra ? app_ra_n_steps(v->ra) : 0;
}

const struct view_ops steps_view_ops = {
	.title = N_("Steps"),
	.scopes = KS_LIST,
	.create = create,
	.destroy = destroy,
	.draw = draw,
	.handle = handle,
	.update = update,
	.search = search,
	.hint = N_("Enter: zoom the timeline to the step   h l columns   / search labels or phases"),
	.export_csv = export_csv,
};
