/* SPDX-License-Identifier: MIT */
/* Serving: MS Service Profiler output (serving.h, service.h) as a serving engineer reads
 * it. What bounds TTFT and TPOT (Enter on either line goes to the worst request or
 * forward), lanes over the output's window (executions by batch type and their sizes,
 * the bubbles before forwards, KV cache usage, the waiting and running queues), then the
 * request table, sortable; Enter on a request lists the executions that carried it. The
 * figures are the core's (service.c); this view only lays them out. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvw.h"
#include "num.h"
#include "views.h"
#include "xalloc.h"

enum sv_col { SVC_ARRIVAL, SVC_QUEUE, SVC_TTFT, SVC_TPOT, SVC_IN, SVC_OUT, SVC_E2E, SVC_N };
static const char *const sv_col_names[SVC_N] = {"arrival", "queue", "TTFT", "TPOT", "in tokens", "out tokens",
						"e2e"};

/* The two verdict lines sit above the requests in one list: rows 0 and 1 are them. */
#define SV_HEAD_ROWS 2

struct serving_view {
	const struct serving *sv;
	const struct service_analysis *sa;
	size_t *rows; /* request indices in the sort's order */
	struct listbox lb; /* over SV_HEAD_ROWS + the requests */
	enum sv_col sort;
	bool reverse;
	bool detail;   /* the selected request's executions are shown */
	size_t *bat;   /* those executions (indices into sv->batch) */
	size_t n_bat;
	size_t bat_of; /* the request they are of, SIZE_MAX none */
	size_t mark_fwd; /* the forward marked on the lanes (the worst one's, after Enter), SIZE_MAX */
	size_t top_req;  /* the first request row shown (lb moves the selection, this scrolls) */
	int hskip;
};

static void *sv_create(struct app *app)
{
	(void)app;
	struct serving_view *v = xcalloc(1, sizeof *v);
	v->bat_of = v->mark_fwd = SIZE_MAX;
	return v;
}

static void sv_destroy(void *p)
{
	struct serving_view *v = p;
	free(v->rows);
	free(v->bat);
	free(v);
}

/* A request's figure in a column, in ns or tokens; SERVING_NONE_NS when it lacks it. */
static int64_t sv_cell(const struct serving *sv, size_t i, enum sv_col c)
{
	const struct serving_request *q = &sv->req[i];
	switch (c) {
	case SVC_ARRIVAL: return q->start_ns;
	case SVC_QUEUE: return q->queue_ns;
	case SVC_TTFT: return q->ttft_ns;
	case SVC_TPOT: return service_request_tpot(q);
	case SVC_IN: return q->recv_tokens < 0 ? SERVING_NONE_NS : q->recv_tokens;
	case SVC_OUT: return q->reply_tokens < 0 ? SERVING_NONE_NS : q->reply_tokens;
	case SVC_E2E: return q->exec_ns;
	default: return SERVING_NONE_NS;
	}
}

/* Row order: arrival earliest first, every other column largest first; a missing figure
 * last; the request's line breaks ties. */
static int sv_cmp(const void *a, const void *b, void *ctx)
{
	const struct serving_view *v = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int64_t x = sv_cell(v->sv, i, v->sort), y = sv_cell(v->sv, j, v->sort);
	int c = 0;
	if ((x == SERVING_NONE_NS) != (y == SERVING_NONE_NS))
		return x == SERVING_NONE_NS ? 1 : -1;
	if (x != y)
		c = (x < y) == (v->sort == SVC_ARRIVAL) ? -1 : 1;
	if (!c)
		c = (i > j) - (i < j);
	return v->reverse ? -c : c;
}

static void sv_sort_rows(struct serving_view *v)
{
	xqsort_r(v->rows, v->sv->n_req, sizeof *v->rows, sv_cmp, v);
}

static void sv_update(void *p, struct app *app)
{
	struct serving_view *v = p;
	const struct serving *sv = app_serving(app);
	if (sv == v->sv)
		return;
	v->sv = sv;
	v->sa = app_service(app);
	free(v->rows);
	v->rows = NULL;
	v->detail = false;
	v->bat_of = v->mark_fwd = SIZE_MAX;
	size_t n = sv ? sv->n_req : 0;
	v->rows = xmalloc((n ? n : 1) * sizeof *v->rows);
	for (size_t i = 0; i < n; i++)
		v->rows[i] = i;
	if (sv)
		sv_sort_rows(v);
	v->lb = (struct listbox){.n = SV_HEAD_ROWS + n, .sel = n ? SV_HEAD_ROWS : 0};
	v->top_req = 0;
}

static double sv_ms(int64_t ns) { return (double)ns / 1e6; }

/* A cell of the table: ms with three decimals, tokens whole, "-" when missing. */
static void sv_fmt(char *buf, size_t size, int64_t val, enum sv_col c, int64_t t0)
{
	if (val == SERVING_NONE_NS)
		snprintf(buf, size, "-");
	else if (c == SVC_IN || c == SVC_OUT)
		snprintf(buf, size, "%lld", (long long)val);
	else
		snprintf(buf, size, "%.3f", sv_ms(c == SVC_ARRIVAL ? val - t0 : val));
}

/* The table's row for request i (its line in request.csv first). */
static void sv_row_text(const struct serving_view *v, size_t i, char *line, size_t size)
{
	char c[SVC_N][32];
	for (int k = 0; k < SVC_N; k++)
		sv_fmt(c[k], sizeof c[k], sv_cell(v->sv, i, (enum sv_col)k), (enum sv_col)k, v->sa->first_ns);
	snprintf(line, size, "%6u %11s %10s %10s %10s %9s %10s %11s", v->sv->req[i].line, c[0], c[1], c[2], c[3], c[4],
		 c[5], c[6]);
}

/* The verdict line of a bound: its part and share, or why there is none; and the worst. */
static void sv_bound_text(const struct serving_view *v, bool ttft, char *line, size_t size)
{
	const struct service_bound *b = ttft ? &v->sa->ttft_bound : &v->sa->tpot_bound;
	const char *what = ttft ? "TTFT" : "TPOT";
	int n;
	if (b->valid)
		n = snprintf(line, size, _("%s bound by %s: %.0f%% of the median %.3f ms"), what, _(b->part),
			     b->share_pct, sv_ms(b->median));
	else
		n = snprintf(line, size, _("%s: no verdict (%s)"), what, _(b->why));
	if (n < 0 || (size_t)n >= size)
		return;
	const struct serving *sv = v->sv;
	if (ttft && v->sa->worst_request != SIZE_MAX)
		snprintf(line + n, size - (size_t)n, _("; worst request line %u, Enter"), sv->req[v->sa->worst_request].line);
	else if (!ttft && v->sa->worst_forward != SIZE_MAX)
		snprintf(line + n, size - (size_t)n, _("; longest bubble before forward %zu, Enter"),
			 v->sa->worst_forward + 1);
}

/* One lane over the window [t0, t0 + span): per column the largest value of the records
 * in it (val < 0: none), drawn as eighths of the lane's maximum. */
static void sv_spark(struct canvas *cv, int x, int y, int w, const double *col, enum style st)
{
	static const uint32_t levels[8] = {0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588};
	double hi = 0;
	for (int c = 0; c < w; c++)
		hi = fmax(hi, col[c]);
	for (int c = 0; c < w; c++) {
		if (col[c] < 0)
			continue;
		int lv = hi > 0 ? num_level(col[c] / hi, 7) : 0;
		canvas_set(cv, x + c, y, levels[lv], st);
	}
}

/* The column a time falls in, over w columns of the window. */
static int sv_col_of(const struct service_analysis *sa, int64_t t, int w)
{
	if (sa->window_ns <= 0)
		return 0;
	double f = (double)(t - sa->first_ns) / (double)sa->window_ns;
	/* held to the columns in double: a time far outside the window cast to int overflows */
	double c = f * w;
	return c > 0 ? (c < w ? (int)c : w - 1) : 0;
}

/* The lanes: label, then the window's columns; returns the rows drawn. */
static int sv_lanes(const struct serving_view *v, struct canvas *cv, int x, int y, int w)
{
	const struct serving *sv = v->sv;
	const struct service_analysis *sa = v->sa;
	enum { LABEL = 11 };
	int lw = w - LABEL;
	if (lw < 8)
		return 0;
	static const char *const labels[] = {N_("batches"), N_("size"), N_("bubbles"), N_("KV cache"), N_("waiting"),
					     N_("running")};
	for (int r = 0; r < 6; r++)
		canvas_text(cv, x, y + r, LABEL - 1, ST_DIM, _(labels[r]));
	double *col = xmalloc((size_t)lw * sizeof *col);
	view_serving_batches(cv, x + LABEL, y, lw, sv, sa->first_ns, sa->first_ns + sa->window_ns + 1, col);
	sv_spark(cv, x + LABEL, y + 1, lw, col, ST_NORMAL);
	for (int c = 0; c < lw; c++)
		col[c] = -1;
	for (size_t i = 0; i < sv->n_fwd; i++)
		if (sv->fwd[i].bubble_ns != SERVING_NONE_NS) {
			int c = sv_col_of(sa, sv->fwd[i].start_ns, lw);
			col[c] = fmax(col[c], (double)sv->fwd[i].bubble_ns);
		}
	sv_spark(cv, x + LABEL, y + 2, lw, col, ST_WARN);
	if (v->mark_fwd < sv->n_fwd)
		canvas_set(cv, x + LABEL + sv_col_of(sa, sv->fwd[v->mark_fwd].start_ns, lw), y + 2, '^', ST_MARK);
	for (int lane = 0; lane < 3; lane++) {
		const struct serving_sample *s = lane == 0 ? sv->kv : sv->queue;
		size_t n = lane == 0 ? sv->n_kv : sv->n_queue;
		for (int c = 0; c < lw; c++)
			col[c] = -1;
		for (size_t i = 0; i < n; i++) {
			int c = sv_col_of(sa, s[i].t_ns, lw);
			col[c] = fmax(col[c], s[i].v[lane == 2]);
		}
		sv_spark(cv, x + LABEL, y + 3 + lane, lw, col, lane == 0 ? ST_CAT_COPY : ST_NORMAL);
	}
	free(col);
	return 6;
}

/* The figures beside the lanes: the window, KV peak, queues, bubbles. */
static void sv_figures(const struct serving_view *v, struct canvas *cv, int x, int y, int w)
{
	const struct service_analysis *sa = v->sa;
	char kv[96], q[96], bub[128];
	if (sa->kv_valid)
		snprintf(kv, sizeof kv, _("KV peak %.1f%% at %.3f ms"), sa->kv_max_pct, sv_ms(sa->kv_max_at - sa->first_ns));
	else
		snprintf(kv, sizeof kv, "%s", _("KV n/a"));
	if (sa->queue_valid)
		snprintf(q, sizeof q, _("waiting max %.0f, running max %.0f"), sa->waiting_max, sa->running_max);
	else
		snprintf(q, sizeof q, "%s", _("queues n/a"));
	if (sa->forwards_valid)
		snprintf(bub, sizeof bub, _("bubbles %.3f ms (%.1f%% of the window), largest %.3f ms"), sv_ms(sa->bubble_ns),
			 sa->bubble_pct, sv_ms(sa->bubble_max_ns));
	else
		snprintf(bub, sizeof bub, "%s", _("bubbles n/a"));
	canvas_textf(cv, x, y, w, ST_DIM, _("0 .. %.3f ms; P prefill D decode M mixed; %s; %s; %s"), sv_ms(sa->window_ns),
		     kv, q, bub);
}

/* The executions that carried the selected request, one a line. */
static void sv_draw_detail(struct serving_view *v, struct canvas *cv, int x, int y, int w, int h)
{
	size_t i = v->rows[v->lb.sel - SV_HEAD_ROWS];
	if (v->bat_of != i) {
		v->n_bat = service_request_batches(v->sv, i, NULL, 0);
		free(v->bat);
		v->bat = xmalloc((v->n_bat ? v->n_bat : 1) * sizeof *v->bat);
		service_request_batches(v->sv, i, v->bat, v->n_bat);
		v->bat_of = i;
	}
	canvas_fill(cv, x, y, w, 1, ' ', ST_HEADER);
	canvas_textf(cv, x + 1, y, w - 2, ST_HEADER,
		     _("request line %u: %zu execution(s) from leaving the queue to its last token (Enter or q closes)"),
		     v->sv->req[i].line, v->n_bat);
	if (!v->n_bat) {
		canvas_text(cv, x + 1, y + 1, w - 2, ST_DIM, _("no execution: its arrival, queue wait or execution time is missing"));
		return;
	}
	/* TRANSLATORS: column titles: each keeps the cells of its column */
	canvas_text(cv, x + 1, y + 1, w - 2, ST_BOLD, _("     #     start ms       ms  type      size"));
	for (int r = 0; r + 2 < h && (size_t)r < v->n_bat; r++) {
		const struct serving_batch *b = &v->sv->batch[v->bat[r]];
		char size[16] = "-", type[48];
		if (b->size >= 0)
			snprintf(size, sizeof size, "%d", b->size);
		/* the type's name is a phase's (translated there) */
		view_padded(type, sizeof type, _(serving_batch_type_name((enum serving_batch_type)b->type)), 8);
		canvas_textf(cv, x + 1, y + 2 + r, w - 2, ST_NORMAL, "%6d %12.3f %8.3f  %s %5s", r + 1,
			     sv_ms(b->start_ns - v->sa->first_ns), sv_ms(b->end_ns - b->start_ns), type, size);
	}
}

/* The request table from row y, h rows (its header first). */
static void sv_draw_table(struct serving_view *v, struct canvas *cv, int x, int y, int w, int h)
{
	char head[256];
	/* TRANSLATORS: column titles: each keeps the cells of its column */
	snprintf(head, sizeof head, "%s", _("  line  arrival ms   queue ms    TTFT ms    TPOT ms in tokens out tokens      e2e ms"));
	size_t n = v->sv->n_req, shown = v->top_req;
	char **lines = xcalloc(n ? n : 1, sizeof *lines);
	size_t nl = 0;
	for (size_t r = shown; r < n && nl < (size_t)(h > 0 ? h : 0); r++) {
		char line[256];
		sv_row_text(v, v->rows[r], line, sizeof line);
		lines[nl++] = xstrdup(line);
	}
	struct hscroll hs;
	view_hscroll_setup(&hs, head, (const char *const *)lines, nl, 1, &v->hskip, w - 2);
	canvas_fill(cv, x, y, w, 1, ' ', ST_HEADER);
	view_hscroll_text(cv, x + 1, y, w - 2, ST_HEADER, head, &hs);
	for (size_t r = 0; r < nl && (int)r + 1 < h; r++) {
		bool sel = v->lb.sel == SV_HEAD_ROWS + shown + r;
		if (sel)
			canvas_fill(cv, x, y + 1 + (int)r, w, 1, ' ', ST_SELECTED);
		view_hscroll_text(cv, x + 1, y + 1 + (int)r, w - 2, sel ? ST_SELECTED : ST_NORMAL, lines[r], &hs);
	}
	for (size_t r = 0; r < nl; r++)
		free(lines[r]);
	free(lines);
}

static void sv_draw(void *p, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	struct serving_view *v = p;
	sv_update(v, app);
	if (!app_pub(app)) {
		canvas_text(cv, x + 1, y + 1, w - 2, ST_DIM, _("loading..."));
		return;
	}
	if (!v->sv || !v->sa) {
		canvas_text(cv, x + 1, y + 1, w - 2, ST_NORMAL, _("no serving output in this capture"));
		canvas_text(cv, x + 1, y + 2, w - 2, ST_DIM,
			    _("MS Service Profiler's parsed output (msserviceprofiler parse) in the directory, or its "
			      "path given after the capture's"));
		return;
	}
	const struct service_analysis *sa = v->sa;
	canvas_textf(cv, x + 1, y, w - 2, ST_BOLD, _("MS Service Profiler output (%s): %zu requests (%s), %zu forwards"),
		     serving_gen_name(sa->gen), sa->requests, sa->requests_valid ? _(sa->requests_from) : _("n/a"),
		     sa->forwards);
	char line[512];
	for (int k = 0; k < SV_HEAD_ROWS; k++) {
		bool sel = v->lb.sel == (size_t)k;
		sv_bound_text(v, k == 0, line, sizeof line);
		if (sel)
			canvas_fill(cv, x, y + 1 + k, w, 1, ' ', ST_SELECTED);
		canvas_text(cv, x + 1, y + 1 + k, w - 2, sel ? ST_SELECTED : ST_NORMAL, line);
	}
	int top = y + 1 + SV_HEAD_ROWS;
	top += sv_lanes(v, cv, x + 1, top, w - 2);
	sv_figures(v, cv, x + 1, top++, w - 2);
	int body = h - (top - y);
	if (!v->sv->n_req) {
		canvas_text(cv, x + 1, top, w - 2, ST_DIM, _(sa->ttft.valid ? N_("no request rows") : sa->ttft.why));
		return;
	}
	bool detail = v->detail && v->lb.sel >= SV_HEAD_ROWS;
	int detail_h = detail ? body / 2 : 0;
	/* the list's rows are the two verdicts and the requests; the table scrolls the requests */
	int vis = body - detail_h - 1;
	listbox_clamp(&v->lb, vis);
	if (v->lb.sel >= SV_HEAD_ROWS) {
		size_t r = v->lb.sel - SV_HEAD_ROWS;
		if (r < v->top_req)
			v->top_req = r;
		if (vis > 0 && r >= v->top_req + (size_t)vis)
			v->top_req = r - (size_t)vis + 1;
	}
	sv_draw_table(v, cv, x, top, w, body - detail_h);
	if (detail)
		sv_draw_detail(v, cv, x, top + body - detail_h, w, detail_h);
}

/* Enter: on a verdict, its worst request (selected) or forward (marked on the lanes); on a
 * request, its executions. */
static void sv_open(struct serving_view *v, struct app *app)
{
	if (v->lb.sel >= SV_HEAD_ROWS) {
		v->detail = !v->detail;
		return;
	}
	if (v->lb.sel == 0 && v->sa->worst_request != SIZE_MAX) {
		for (size_t r = 0; r < v->sv->n_req; r++)
			if (v->rows[r] == v->sa->worst_request)
				v->lb.sel = SV_HEAD_ROWS + r;
		v->detail = true;
	} else if (v->lb.sel == 1 && v->sa->worst_forward != SIZE_MAX) {
		const struct serving_forward *f = &v->sv->fwd[v->sa->worst_forward];
		v->mark_fwd = v->sa->worst_forward;
		app_message(app, ST_NORMAL, _("forward %zu at %.3f ms, %.3f ms after the one before (^ on the bubbles lane)"),
			    v->sa->worst_forward + 1, sv_ms(f->start_ns - v->sa->first_ns), sv_ms(f->bubble_ns));
	} else {
		app_message(app, ST_WARN, "%s", _("nothing to go to: the output lacks the figure"));
	}
}

static int sv_handle(void *p, struct app *app, enum action act)
{
	struct serving_view *v = p;
	if (!v->sv || !v->sa)
		return VH_UNHANDLED;
	switch (act) {
	case ACT_CLOSE:
		if (!v->detail)
			return VH_UNHANDLED;
		v->detail = false;
		return VH_HANDLED;
	case ACT_OPEN: sv_open(v, app); return VH_HANDLED;
	case ACT_SORT_NEXT:
	case ACT_SORT_REVERSE: {
		size_t at = v->lb.sel >= SV_HEAD_ROWS ? v->rows[v->lb.sel - SV_HEAD_ROWS] : SIZE_MAX;
		if (act == ACT_SORT_NEXT)
			v->sort = (enum sv_col)((v->sort + 1) % SVC_N);
		else
			v->reverse = !v->reverse;
		sv_sort_rows(v);
		for (size_t r = 0; at != SIZE_MAX && r < v->sv->n_req; r++)
			if (v->rows[r] == at)
				v->lb.sel = SV_HEAD_ROWS + r;
		app_message(app, ST_NORMAL, _("sorted by %s%s"), sv_col_names[v->sort], v->reverse ? _(" (reversed)") : "");
		return VH_HANDLED;
	}
	default:
		if (view_hscroll_handle(&v->hskip, act))
			return VH_HANDLED;
		return listbox_handle(&v->lb, act);
	}
}

/* Every request, every figure, in the order shown. */
static size_t sv_export(void *p, struct app *app, FILE *out)
{
	struct serving_view *v = p;
	sv_update(v, app);
	if (!v->sv || !v->sa)
		return 0;
	static const char *const head[] = {"line", "arrival_ms", "queue_ms", "ttft_ms", "tpot_ms", "in_tokens", "out_tokens",
					   "e2e_ms"};
	csvw_row(out, head, sizeof head / sizeof head[0]);
	for (size_t r = 0; r < v->sv->n_req; r++) {
		size_t i = v->rows[r];
		char c[SVC_N + 1][32];
		const char *row[SVC_N + 1];
		snprintf(c[0], sizeof c[0], "%u", v->sv->req[i].line);
		for (int k = 0; k < SVC_N; k++) {
			int64_t val = sv_cell(v->sv, i, (enum sv_col)k);
			if (val == SERVING_NONE_NS)
				c[k + 1][0] = '\0';
			else if (k == SVC_IN || k == SVC_OUT)
				snprintf(c[k + 1], sizeof c[k + 1], "%lld", (long long)val);
			else
				snprintf(c[k + 1], sizeof c[k + 1], "%.6f", sv_ms(k == SVC_ARRIVAL ? val - v->sa->first_ns : val));
		}
		for (int k = 0; k <= SVC_N; k++)
			row[k] = c[k];
		csvw_row(out, row, SVC_N + 1);
	}
	return v->sv->n_req;
}

const struct view_ops serving_view_ops = {
	.title = N_("Serving"),
	.scopes = KS_LIST | KS_SERVING,
	.create = sv_create,
	.destroy = sv_destroy,
	.draw = sv_draw,
	.handle = sv_handle,
	.update = sv_update,
	.hint = N_("s sort  S reverse  Enter: a request's executions, or the worst  h l columns"),
	.export_csv = sv_export,
};
