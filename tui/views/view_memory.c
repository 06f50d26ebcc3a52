/* SPDX-License-Identifier: MIT */
/* Memory: the device curve as a sparkline, peaks per component (memory_record) and per
 * driver module (npu_module_mem), and the largest allocations (operator_memory), all in MB.
 * Enter shows the CSV row behind the selected figure (file, line, every cell). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "csv_table.h"
#include "csvw.h"
#include "num.h"
#include "views.h"
#include "xalloc.h"

enum row_kind { R_HEAD, R_COMP, R_MOD, R_ALLOC, R_BLANK, R_NOTE };

struct mrow {
	enum row_kind kind;
	size_t index;
	const char *head; /* R_HEAD, R_NOTE */
};

struct memory_view {
	struct listbox lb; /* over rows; the cursor skips headings and blanks */
	const struct rank_analysis *ra;
	struct mrow *rows;
	size_t n_rows;
	bool detail;            /* the CSV row of the selection is shown */
	int hskip;              /* columns scrolled out after each table's first (Right/l, Left/h) */
	struct csv_cells cells; /* of that row */
	const struct csv_table *cells_table;
	size_t cells_row;
	char head_comp[128], head_mod[128], note_mod[96]; /* headings made with the rows' formats */
};

/* One format for a component or module row and its heading, so that they line up. */
#define PEAK_ROW_FMT "%13s  %13s %13s %8s %12s  "

static void *create(struct app *app)
{
	(void)app;
	return xcalloc(1, sizeof(struct memory_view));
}

static void destroy(void *p)
{
	struct memory_view *v = p;
	csvt_cells_free(&v->cells);
	free(v->rows);
	free(v);
}

static void add(struct memory_view *v, size_t *cap, enum row_kind k, size_t index, const char *head)
{
	xgrow(&v->rows, cap, v->n_rows + 1, sizeof *v->rows);
	v->rows[v->n_rows++] = (struct mrow){k, index, head};
}

static bool selectable(const struct mrow *r) { return r->kind != R_HEAD && r->kind != R_BLANK && r->kind != R_NOTE; }

static void build(struct memory_view *v)
{
	free(v->rows);
	v->rows = NULL;
	v->n_rows = 0;
	size_t cap = 0;
	const struct mem_analysis *m = app_ra_mem(v->ra);
	if (m->record) {
		/* the titles of PEAK_ROW_FMT's columns, whole: a translation keeps each column's cells */
		snprintf(v->head_comp, sizeof v->head_comp, "%s",
			 /* TRANSLATORS: column titles: each keeps the cells of its column */
			 _("   peak alloc  peak reserved   peak active  samples   peak at ms  component"));
		add(v, &cap, R_HEAD, 0, v->head_comp);
		for (size_t i = 0; i < m->n_comps; i++)
			add(v, &cap, R_COMP, i, NULL);
		add(v, &cap, R_BLANK, 0, NULL);
	}
	if (m->modules) {
		snprintf(v->head_mod, sizeof v->head_mod, "%s",
			 /* TRANSLATORS: column titles: each keeps the cells of its column */
			 _("               peak reserved                samples   peak at ms  module"));
		add(v, &cap, R_HEAD, 0, v->head_mod);
		/* most driver modules hold nothing: they are counted, not listed */
		size_t empty = 0;
		for (size_t i = 0; i < m->n_mods; i++) {
			if (!(m->mods[i].peak_reserved_mb >= 0.05)) {
				empty++;
				continue;
			}
			add(v, &cap, R_MOD, i, NULL);
		}
		if (empty) {
			snprintf(v->note_mod, sizeof v->note_mod, _("%zu more module(s) below 0.05 MB at their peak, not listed"),
				 empty);
			add(v, &cap, R_NOTE, 0, v->note_mod);
		}
		add(v, &cap, R_BLANK, 0, NULL);
	}
	if (m->ops && m->n_top) {
		/* TRANSLATORS: column titles: each keeps the cells of its column */
		add(v, &cap, R_HEAD, 0, _("      size MB        held ms                 at ms            allocation"));
		for (size_t i = 0; i < m->n_top; i++)
			add(v, &cap, R_ALLOC, i, NULL);
	}
	v->lb.n = v->n_rows;
	v->lb.sel = 0;
	while (v->lb.sel < v->n_rows && !selectable(&v->rows[v->lb.sel]))
		v->lb.sel++;
	v->lb.top = 0;
}

static void update(void *p, struct app *app)
{
	struct memory_view *v = p;
	const struct rank_analysis *ra = app_rank_analysis(app);
	if (ra != v->ra) {
		v->ra = ra;
		v->detail = false;
		if (ra)
			build(v);
		else
			v->n_rows = v->lb.n = 0;
	}
}

/* The table and row behind a view row. */
static const struct csv_table *row_source(const struct memory_view *v, const struct mrow *r, size_t *row)
{
	const struct mem_analysis *m = app_ra_mem(v->ra);
	switch (r->kind) {
	case R_COMP: *row = m->comps[r->index].peak_row; return m->record;
	case R_MOD: *row = m->mods[r->index].peak_row; return m->modules;
	case R_ALLOC: *row = m->top[r->index].row; return m->ops;
	default: return NULL;
	}
}

static void curve(const struct mem_analysis *m, const struct rank_analysis *ra, struct canvas *cv, int x, int y,
		  int w)
{
	static const uint32_t levels[8] = {0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588};
	double lo = INFINITY, hi = -INFINITY;
	for (int i = 0; i < m->n_curve; i++) {
		lo = fmin(lo, m->curve[i]);
		hi = fmax(hi, m->curve[i]);
	}
	canvas_textf(cv, x, y, w, ST_BOLD, _("%s %s: %.1f .. %.1f MB, %.3f .. %.3f ms"), m->curve_component,
		     m->curve_field, lo, hi,
		     (double)(m->curve_t0 - app_ra_t0(ra)) / 1e6,
		     (double)(m->curve_t1 - app_ra_t0(ra)) / 1e6);
	for (int c = 0; c < w; c++) {
		int a = c * m->n_curve / w, b = (c + 1) * m->n_curve / w;
		double val = -INFINITY;
		for (int i = a; i < b || i == a; i++)
			val = fmax(val, m->curve[i]);
		int lv = hi > lo ? num_level((val - lo) / (hi - lo), 7) : 7;
		canvas_set(cv, x + c, y + 1, levels[lv], ST_CAT_COPY);
	}
}

static void mb_cell(char *buf, size_t size, double v)
{
	if (isnan(v))
		snprintf(buf, size, "%13s", "-");
	else
		snprintf(buf, size, "%13.1f", v);
}

/* A figure row's text, its name last; "" for headings, notes and blanks. */
static void row_line(const struct memory_view *v, const struct mrow *r, char *line, size_t size)
{
	const struct mem_analysis *m = app_ra_mem(v->ra);
	int64_t t0 = app_ra_t0(v->ra);
	char a[24], b[24], c[24];
	line[0] = '\0';
	if (r->kind == R_COMP || r->kind == R_MOD) {
		const struct mem_component *k = r->kind == R_COMP ? &m->comps[r->index] : &m->mods[r->index];
		mb_cell(a, sizeof a, k->peak_allocated_mb);
		mb_cell(b, sizeof b, k->peak_reserved_mb);
		mb_cell(c, sizeof c, k->peak_active_mb);
		if (r->kind == R_MOD)
			a[0] = c[0] = '\0';
		char n[24], at[24];
		snprintf(n, sizeof n, "%zu", k->samples);
		snprintf(at, sizeof at, "%.3f", k->peak_ts ? (double)(k->peak_ts - t0) / 1e6 : 0.0);
		snprintf(line, size, PEAK_ROW_FMT "%s", a, b, c, n, at, k->name);
	} else if (r->kind == R_ALLOC) {
		const struct mem_alloc *al = &m->top[r->index];
		char held[24] = "-", at[24] = "-";
		if (al->duration_ns >= 0)
			snprintf(held, sizeof held, "%.3f", (double)al->duration_ns / 1e6);
		if (al->alloc_ts != INT64_MIN)
			snprintf(at, sizeof at, "%.3f", (double)(al->alloc_ts - t0) / 1e6);
		snprintf(line, size, "%13.3f  %13s %21s            %s", al->size_mb, held, at, al->name);
	}
}

static void draw_row(const struct memory_view *v, const struct mrow *r, struct canvas *cv, int x, int y, int w,
		     bool sel, const struct hscroll *hs)
{
	enum style st = sel ? ST_SELECTED : ST_NORMAL;
	if (sel)
		canvas_fill(cv, x, y, w, 1, ' ', ST_SELECTED);
	char line[768];
	switch (r->kind) {
	case R_HEAD:
		canvas_fill(cv, x, y, w, 1, ' ', ST_HEADER);
		view_hscroll_text(cv, x + 1, y, w - 2, ST_HEADER, r->head, hs);
		return;
	case R_BLANK: return;
	case R_NOTE: canvas_text(cv, x + 1, y, w - 2, ST_DIM, r->head); return;
	default:
		row_line(v, r, line, sizeof line);
		view_hscroll_text(cv, x + 1, y, w - 2, st, line, hs);
	}
}

/* Each table's column scroll (h l), headed by rows[from]: its own clamp of v->hskip,
 * which ends as the most any table takes. Returns the row after the table. */
static size_t table_scroll(struct memory_view *v, size_t from, int w, int *skip_max, struct hscroll *hs)
{
	size_t to = from + 1, n = 0;
	while (to < v->n_rows && v->rows[to].kind != R_HEAD)
		to++;
	char **lines = xcalloc(to - from, sizeof *lines);
	for (size_t i = from + 1; i < to; i++)
		if (v->rows[i].kind != R_BLANK && v->rows[i].kind != R_NOTE) {
			char line[768];
			row_line(v, &v->rows[i], line, sizeof line);
			lines[n++] = xstrdup(line);
		}
	int skip = v->hskip;
	view_hscroll_setup(hs, v->rows[from].head, (const char *const *)lines, n, 1, &skip, w);
	*skip_max = skip > *skip_max ? skip : *skip_max;
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	return to;
}

/* The selected row's CSV cells, header by header. */
static void draw_detail(struct memory_view *v, struct canvas *cv, int x, int y, int w, int h)
{
	const struct mrow *r = &v->rows[v->lb.sel];
	size_t row;
	const struct csv_table *t = row_source(v, r, &row);
	if (!t)
		return;
	if (t != v->cells_table || row != v->cells_row) {
		csvt_cells_free(&v->cells);
		if (csvt_row_cells(t, row, &v->cells) != 0)
			v->cells.n = 0;
		v->cells_table = t;
		v->cells_row = row;
	}
	canvas_fill(cv, x, y, w, 1, ' ', ST_HEADER);
	const char *path = csvt_row_path(t, row);
	const char *base = strrchr(path, '/');
	canvas_textf(cv, x + 1, y, w - 2, ST_HEADER, _("%s line %u (Enter or q closes)"), base ? base + 1 : path,
		     csvt_line(t, row));
	int cols = w >= 100 ? 2 : 1, colw = (w - 2) / cols;
	for (size_t i = 0; i < v->cells.n && i < t->ncols; i++) {
		int cy = y + 1 + (int)(i / (size_t)cols), cx = x + 1 + (int)(i % (size_t)cols) * colw;
		if (cy >= y + h)
			break;
		int used = canvas_textf(cv, cx, cy, colw - 1, ST_DIM, "%s: ", t->headers[i]);
		canvas_text(cv, cx + used, cy, colw - 1 - used, ST_NORMAL, v->cells.cells[i]);
	}
}

static void draw(void *p, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	struct memory_view *v = p;
	update(v, app);
	const struct rank_analysis *ra = v->ra;
	if (!ra) {
		canvas_text(cv, x + 1, y + 1, w - 2, ST_DIM, _("loading..."));
		return;
	}
	const struct mem_analysis *m = app_ra_mem(ra);
	if (!m->record && !m->modules && !m->ops) {
		canvas_text(cv, x + 1, y + 1, w - 2, ST_NORMAL, _("no memory tables for this rank"));
		canvas_text(cv, x + 1, y + 2, w - 2, ST_DIM,
			    _("memory_record.csv and operator_memory.csv need profile_memory=True; npu_module_mem.csv "
			    "comes with Level1 and above"));
		return;
	}
	canvas_textf(cv, x + 1, y, w - 2, ST_BOLD, _("device memory, MB%s"), m->record_in_kb || m->modules_in_kb
			     ? _(" (Class B tables in KB, converted)") : "");
	int top = y + 1;
	if (m->n_curve) {
		curve(m, ra, cv, x + 1, top, w - 2);
		top += 3;
	}
	if (m->ops)
		canvas_textf(cv, x + 1, top++, w - 2, ST_DIM,
			     _("%zu allocations, %.1f MB in all, %zu negative sizes, %zu not released in the capture"),
			     m->n_allocs, m->total_alloc_mb, m->negative_sizes, m->never_released);
	int detail_h = v->detail ? (h - (top - y)) / 2 : 0;
	int body = h - (top - y) - detail_h;
	/* the selected row's name in full under the table when its column cut it */
	const char *sel_name = NULL;
	int name_x = 0;
	if (!v->detail && v->lb.sel < v->n_rows) {
		const struct mrow *r = &v->rows[v->lb.sel];
		const struct mem_analysis *ma = app_ra_mem(v->ra);
		sel_name = r->kind == R_COMP ? ma->comps[r->index].name : r->kind == R_MOD ? ma->mods[r->index].name
			   : r->kind == R_ALLOC ? ma->top[r->index].name : NULL;
		name_x = r->kind == R_ALLOC ? 62 : 66; /* the numbers' widths before the name */
	}
	/* too wide: h l scroll each table's columns after its first, the names last */
	struct hscroll hs[8], none = {0, 0, false, false};
	size_t table_of[8];
	int n_tables = 0, skip_max = 0;
	for (size_t i = 0; i < v->n_rows && n_tables < 8;)
		if (v->rows[i].kind == R_HEAD) {
			table_of[n_tables] = i;
			i = table_scroll(v, i, w - 2, &skip_max, &hs[n_tables++]);
		} else {
			i++;
		}
	v->hskip = skip_max;
	const struct hscroll *sel_hs = &none;
	for (int t = 0; t < n_tables; t++)
		if (table_of[t] < v->lb.sel)
			sel_hs = &hs[t];
	int name_at = view_hscroll_col(sel_hs, name_x);
	int drawer = view_text_drawer_lines(w, body, w - 2 - (name_at < 0 ? 0 : name_at), sel_name);
	body -= drawer;
	view_text_drawer(cv, x, top + body, w, drawer, sel_name);
	listbox_clamp(&v->lb, body);
	for (int r = 0, t = -1; r < body && v->lb.top + (size_t)r < v->n_rows; r++) {
		size_t i = v->lb.top + (size_t)r;
		while (t + 1 < n_tables && table_of[t + 1] <= i)
			t++;
		draw_row(v, &v->rows[i], cv, x, top + r, w, i == v->lb.sel, t < 0 ? &none : &hs[t]);
	}
	if (v->detail && v->lb.sel < v->n_rows)
		draw_detail(v, cv, x, top + body, w, detail_h);
}

static int handle(void *p, struct app *app, enum action act)
{
	struct memory_view *v = p;
	if (!v->ra || !v->n_rows)
		return VH_UNHANDLED;
	if (act == ACT_CLOSE && v->detail) {
		v->detail = false;
		return VH_HANDLED;
	}
	if (act == ACT_OPEN) {
		v->detail = !v->detail;
		return VH_HANDLED;
	}
	if (view_hscroll_handle(&v->hskip, act))
		return VH_HANDLED;
	size_t before = v->lb.sel;
	if (!listbox_handle(&v->lb, act))
		return VH_UNHANDLED;
	/* land on a figure, moving on in the direction of travel */
	bool back = act == ACT_UP || act == ACT_PAGE_UP || act == ACT_BOTTOM;
	size_t s = v->lb.sel;
	while (s < v->n_rows && !selectable(&v->rows[s]))
		s = back ? (s ? s - 1 : v->n_rows) : s + 1;
	if (s >= v->n_rows) {
		s = before;
		while (s < v->n_rows && !selectable(&v->rows[s]))
			s++;
	}
	v->lb.sel = s < v->n_rows ? s : before;
	listbox_clamp(&v->lb, v->lb.height);
	(void)app;
	return VH_HANDLED;
}

static const char *row_name(const struct memory_view *v, const struct mrow *r)
{
	const struct mem_analysis *m = app_ra_mem(v->ra);
	switch (r->kind) {
	case R_COMP: return m->comps[r->index].name;
	case R_MOD: return m->mods[r->index].name;
	case R_ALLOC: return m->top[r->index].name;
	default: return NULL;
	}
}

static bool row_matches(const void *ctx, size_t i, const char *text)
{
	const struct memory_view *v = ctx;
	const char *name = row_name(v, &v->rows[i]);
	return name && strcasestr(name, text);
}

static bool search(void *p, struct app *app, const char *text, int dir)
{
	(void)app;
	struct memory_view *v = p;
	return v->ra && listbox_search(&v->lb, dir, row_matches, v, text);
}

static void mb_field(char *b, size_t size, double v)
{
	if (isnan(v))
		b[0] = '\0';
	else
		snprintf(b, size, "%.3f", v);
}

/* Components, every module (the empty ones too) and the largest allocations, one table
 * with the kind in the first column. */
static size_t export_csv(void *p, struct app *app, FILE *out)
{
	struct memory_view *v = p;
	update(v, app);
	if (!v->ra)
		return 0;
	const struct mem_analysis *m = app_ra_mem(v->ra);
	static const char *const head[] = {"table", "name", "peak_allocated_mb", "peak_reserved_mb", "peak_active_mb",
					   "samples", "peak_at_ms", "size_mb", "held_ms", "at_ms"};
	csvw_row(out, head, sizeof head / sizeof head[0]);
	size_t rows = 0;
	char b[8][32];
	for (int t = 0; t < 2; t++) {
		size_t n = t == 0 ? (m->record ? m->n_comps : 0) : (m->modules ? m->n_mods : 0);
		for (size_t i = 0; i < n; i++) {
			const struct mem_component *k = t == 0 ? &m->comps[i] : &m->mods[i];
			mb_field(b[0], 32, k->peak_allocated_mb);
			mb_field(b[1], 32, k->peak_reserved_mb);
			mb_field(b[2], 32, k->peak_active_mb);
			snprintf(b[3], 32, "%zu", k->samples);
			if (k->peak_ts)
				snprintf(b[4], 32, "%.6f", (double)(k->peak_ts - app_ra_t0(v->ra)) / 1e6);
			else
				b[4][0] = '\0';
			const char *row[] = {t == 0 ? "component" : "module", k->name, b[0], b[1], b[2], b[3], b[4],
					     "", "", ""};
			csvw_row(out, row, sizeof row / sizeof row[0]);
			rows++;
		}
	}
	for (size_t i = 0; m->ops && i < m->n_top; i++) {
		const struct mem_alloc *al = &m->top[i];
		mb_field(b[5], 32, al->size_mb);
		if (al->duration_ns >= 0)
			snprintf(b[6], 32, "%.6f", (double)al->duration_ns / 1e6);
		else
			b[6][0] = '\0';
		if (al->alloc_ts != INT64_MIN)
			snprintf(b[7], 32, "%.6f", (double)(al->alloc_ts - app_ra_t0(v->ra)) / 1e6);
		else
			b[7][0] = '\0';
		const char *row[] = {"allocation", al->name, "", "", "", "", "", b[5], b[6], b[7]};
		csvw_row(out, row, sizeof row / sizeof row[0]);
		rows++;
	}
	return rows;
}

const struct view_ops memory_view_ops = {
	.title = N_("Memory"),
	.scopes = KS_LIST,
	.create = create,
	.destroy = destroy,
	.draw = draw,
	.handle = handle,
	.update = update,
	.search = search,
	.hint = N_("Enter: the CSV row behind the figure   h l columns   / search names"),
	.export_csv = export_csv,
};
