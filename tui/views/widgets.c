/* SPDX-License-Identifier: MIT */
/* Small drawing helpers shared by the views. */
#include "views.h"
#include "report.h"
#include <string.h>

#include "num.h"
#include "xalloc.h"

void view_open_rank_timeline(struct app *app, size_t rank_index)
{
	const struct rank_store *rs = &app_rank_data_of(app, rank_index)->store;
	struct view_target tg = {.timeline = {rank_index, rs->window_start, rs->window_end, UINT32_MAX}};
	app_open(app, VIEW_TIMELINE, &tg);
}

/* Whether display column col of s is a space or past its end. */
static bool blank_at(const char *s, int col)
{
	const char *c = s + canvas_byte_at(s, col);
	return !*c || *c == ' ';
}

/* What setup and setup_cols share: n columns ending at ends[] (display columns), the
 * widest line `total` columns, w columns to draw them in. */
static void hscroll_clamp(struct hscroll *hs, const int *ends, int n, int keys, int total, int *skip, int w)
{
	*hs = (struct hscroll){0, 0, false, false};
	/* the last column always stays; no more skipped than brings it in */
	int max = total <= w || keys < 1 || n <= keys ? 0 : n - keys - 1, need = 0;
	while (need < max && total - (ends[keys - 1 + need] - ends[keys - 1]) > w)
		need++;
	if (*skip > need)
		*skip = need;
	if (*skip < 0)
		*skip = 0;
	if (*skip) {
		hs->from = ends[keys - 1];
		hs->to = ends[keys - 1 + *skip];
		hs->left = true;
	}
	hs->right = total - (hs->to - hs->from) > w;
}

void view_hscroll_setup(struct hscroll *hs, const char *header, const char *const *rows, size_t n_rows, int keys,
			int *skip, int w)
{
	/* the columns' ends: where a title ends (two spaces or more, or the end, after it),
	 * moved right while a row's cell runs on (a left-aligned cell wider than its title),
	 * so that a cut never splits a cell */
	int ends[64], n = 0, col = 0, total = canvas_width(header);
	for (const char *p = header; *p && n < 64;) {
		size_t b = canvas_byte_at(p, 1);
		if (!b)
			break;
		char one[16];
		snprintf(one, sizeof one, "%.*s", (int)b, p);
		bool title = *p != ' ';
		p += b;
		col += canvas_width(one);
		if (!title || !(!*p || (p[0] == ' ' && (p[1] == ' ' || !p[1]))))
			continue;
		int e = col;
		for (size_t r = 0; r < n_rows; r++)
			while (e < col + 16 && !blank_at(rows[r], e - 1) && !blank_at(rows[r], e))
				e++;
		ends[n++] = e;
	}
	for (size_t r = 0; r < n_rows; r++) {
		int rw = canvas_width(rows[r]);
		total = rw > total ? rw : total;
	}
	hscroll_clamp(hs, ends, n, keys, total, skip, w);
}

void view_hscroll_setup_cols(struct hscroll *hs, const int *widths, int n, int keys, int *skip, int w)
{
	int ends[64], total = 0;
	n = n > 64 ? 64 : n;
	for (int c = 0; c < n; c++)
		ends[c] = total += widths[c];
	hscroll_clamp(hs, ends, n, keys, total, skip, w);
}

int view_hscroll_text(struct canvas *cv, int x, int y, int w, enum style st, const char *line,
		      const struct hscroll *hs)
{
	if (hs->to <= hs->from)
		return canvas_text(cv, x, y, w, st, line);
	size_t a = canvas_byte_at(line, hs->from), b = canvas_byte_at(line, hs->to);
	int used = canvas_textn(cv, x, y, w < hs->from ? w : hs->from, st, line, a);
	return used + canvas_text(cv, x + used, y, w - used, st, line + b);
}

int view_hscroll_col(const struct hscroll *hs, int col)
{
	if (hs->to <= hs->from || col < hs->from)
		return col;
	return col < hs->to ? -1 : col - (hs->to - hs->from);
}

int view_hscroll_handle(int *skip, enum action act)
{
	if (act == ACT_COLUMN_RIGHT)
		(*skip)++;
	else if (act == ACT_COLUMN_LEFT && *skip > 0)
		(*skip)--;
	else
		return act == ACT_COLUMN_LEFT ? VH_HANDLED : VH_UNHANDLED;
	return VH_HANDLED;
}

const char *view_padded(char *buf, size_t size, const char *s, int width)
{
	int n = snprintf(buf, size, "%s", s);
	for (int w = canvas_width(buf); w < width && n >= 0 && (size_t)n + 1 < size; w++) {
		buf[n++] = ' ';
		buf[n] = '\0';
	}
	return buf;
}

const char *view_phases_line(const struct rank_analysis *ra, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < app_ra_n_by_phase(ra) && n < size; i++) {
		const struct phase_verdict *pv = &app_ra_by_phase(ra)[i];
		int m = snprintf(buf + n, size - n, i ? _("; %s (%zu step(s)): %s") : _("by phase: %s (%zu step(s)): %s"),
				 _(phase_verdict_name(pv)), pv->steps, phase_verdict_short(ra, pv));
		if (m > 0 && (size_t)m < size - n && pv->launch_pct > 0)
			m += snprintf(buf + n + m, size - n - (size_t)m, _(", launch-bound %.0f %%"), pv->launch_pct);
		if (m < 0)
			break;
		n += (size_t)m;
	}
	return buf;
}

enum style category_style(int cat)
{
	switch (cat) {
	case CAT_COMPUTE: return ST_CAT_COMPUTE;
	case CAT_COMM: return ST_CAT_COMM;
	case CAT_COPY: return ST_CAT_COPY;
	case CAT_SCHED: return ST_CAT_SCHED;
	default: return ST_CAT_OTHER;
	}
}

uint32_t category_glyph(int cat, double coverage)
{
	if (coverage <= 0)
		return ' ';
	/* the shape says the category, the fill says how much of the cell is covered */
	bool full = coverage >= 0.5;
	switch (cat) {
	case CAT_COMPUTE: return full ? 0x2588 : 0x2584;  /* █ ▄ */
	case CAT_COMM: return full ? 0x2593 : 0x2592;     /* ▓ ▒ */
	case CAT_COPY: return full ? '#' : '+';
	case CAT_SCHED: return full ? '=' : '-';
	default: return full ? ':' : '.';
	}
}

void draw_bar(struct canvas *cv, int x, int y, int w, double frac, enum style st)
{
	if (!(frac > 0)) /* NaN too: a 0/0 share cast to int is undefined */
		frac = 0;
	if (frac > 1)
		frac = 1;
	int eighths = (int)(frac * w * 8 + 0.5);
	for (int i = 0; i < w; i++) {
		int e = eighths - i * 8;
		uint32_t ch = e >= 8 ? 0x2588 : e <= 0 ? 0x00B7 : (uint32_t)(0x2590 - e); /* ▏..▉ */
		if (e > 0 && e < 8)
			ch = (uint32_t)(0x258F - (e - 1)); /* U+258F ▏ (1/8) .. U+2589 ▉ (7/8) */
		canvas_set(cv, x + i, y, ch, e > 0 ? st : ST_DIM);
	}
}

int view_text_drawer_lines(int w, int h, int shown, const char *text)
{
	if (!text || !*text || canvas_width(text) <= shown || h < 8)
		return 0;
	int max = h / 3 < 4 ? h / 3 : 4;
	while (*text == ' ')
		text++;
	int n = canvas_wrap(NULL, 0, 0, w - 2, max, ST_NORMAL, text);
	return n > max ? max : n;
}

void view_text_drawer(struct canvas *cv, int x, int y, int w, int lines, const char *text)
{
	if (lines <= 0)
		return;
	canvas_fill(cv, x, y, w, lines, ' ', ST_HEADER);
	while (*text == ' ')
		text++;
	canvas_wrap(cv, x + 1, y, w - 2, lines, ST_HEADER, text);
}

static enum style bucket_style(int k)
{
	switch (k) {
	case ATTR_COMPUTE: return ST_CAT_COMPUTE;
	case ATTR_COMM_WAIT:
	case ATTR_COMM_TRANSFER:
	case ATTR_COMM_UNSPLIT: return ST_CAT_COMM;
	case ATTR_COPY:
	case ATTR_HOST_SYNC:
	case ATTR_HOST_COPY: return ST_CAT_COPY;
	case ATTR_HOST_DISPATCH:
	case ATTR_HOST_PYTHON: return ST_CAT_SCHED;
	case ATTR_DEVICE_OTHER: return ST_CAT_OTHER;
	default: return ST_DIM;
	}
}

void draw_attribution_bar(struct canvas *cv, int x, int y, int w, const struct attribution *a)
{
	if (w < 12)
		return;
	if (!a->valid) {
		char why[200];
		snprintf(why, sizeof why, _("Time: insufficient data (%s)"), _(attribution_why(a)));
		canvas_text(cv, x, y, w, ST_DIM, why);
		return;
	}
	int bw = w - 8 > 100 ? 100 : w - 8;
	char bar[104];
	report_attribution_bar(a, bar, (size_t)bw);
	canvas_text(cv, x, y, 6, ST_HEADER, _("Time"));
	canvas_set(cv, x + 6, y, '[', ST_DIM);
	for (int i = 0; i < bw; i++) {
		int k = 0;
		while (k < ATTR_COUNT && attr_bucket_defs[k].letter != bar[i])
			k++;
		canvas_set(cv, x + 7 + i, y, (uint32_t)(unsigned char)bar[i], bucket_style(k));
	}
	canvas_set(cv, x + 7 + bw, y, ']', ST_DIM);
}

void draw_attribution_legend(struct canvas *cv, int x, int y, int w, const struct attribution *a)
{
	if (!a->valid)
		return;
	char item[ATTR_COUNT][64];
	int n[ATTR_COUNT], need = 0, present = 0;
	bool keep[ATTR_COUNT] = {0};
	for (int k = 0; k < ATTR_COUNT; k++) {
		n[k] = 0;
		if (!a->ns[k])
			continue;
		n[k] = snprintf(item[k], sizeof item[k], "%c %s %.1f%%", attr_bucket_defs[k].letter,
				attr_bucket_defs[k].key, attribution_pct(a, a->ns[k]));
		need += n[k] + 2;
		keep[k] = true;
		present++;
	}
	/* Too narrow for all: the largest buckets, not the first ones, so that a letter that
	 * fills much of the bar is never left unexplained; the rest are counted. */
	int room = w - 6;
	if (need - 2 > room) {
		char more[48];
		int used = snprintf(more, sizeof more, _("+%d more"), present);
		memset(keep, 0, sizeof keep);
		for (int kept = 0; kept < present; kept++) {
			int best = -1;
			for (int k = 0; k < ATTR_COUNT; k++)
				if (a->ns[k] && !keep[k] && (best < 0 || a->ns[k] > a->ns[best]))
					best = k;
			if (used + n[best] + 2 > room)
				break;
			keep[best] = true;
			used += n[best] + 2;
		}
	}
	int cx = x + 6, shown = 0;
	for (int k = 0; k < ATTR_COUNT; k++) {
		if (!keep[k])
			continue;
		canvas_text(cv, cx, y, n[k], bucket_style(k), item[k]);
		cx += n[k] + 2;
		shown++;
	}
	if (shown < present) {
		char more[48];
		int m = snprintf(more, sizeof more, _("+%d more"), present - shown);
		canvas_text(cv, cx, y, m, ST_DIM, more);
	}
}

int draw_attribution(struct canvas *cv, int x, int y, int w, int rows, const struct attribution *a)
{
	if (rows < 1 || w < 12)
		return 0;
	draw_attribution_bar(cv, x, y, w, a);
	if (rows < 2 || !a->valid)
		return 1;
	draw_attribution_legend(cv, x, y + 1, w, a);
	return 2;
}

/* The cells [*c0, *c1] a span [a, b] covers over [t0, t1) in w cells; false when outside. */
static bool serving_cells(int64_t a, int64_t b, int64_t t0, int64_t t1, int w, int *c0, int *c1)
{
	if (a == SERVING_NONE_NS || b == SERVING_NONE_NS || b < t0 || a >= t1 || t1 <= t0)
		return false;
	int64_t x0 = num_muldiv((a > t0 ? a : t0) - t0, w, t1 - t0), x1 = num_muldiv((b < t1 ? b : t1 - 1) - t0, w, t1 - t0);
	*c0 = (int)(x0 < 0 ? 0 : x0 >= w ? w - 1 : x0);
	*c1 = (int)(x1 < *c0 ? *c0 : x1 >= w ? w - 1 : x1);
	return true;
}

void view_serving_batches(struct canvas *cv, int x, int y, int w, const struct serving *sv, int64_t t0, int64_t t1,
			  double *sizes)
{
	static const char letter[SBT_COUNT] = {'?', 'P', 'D', 'M'};
	static const enum style type_style[SBT_COUNT] = {ST_DIM, ST_CAT_COMPUTE, ST_CAT_COMM, ST_CAT_SCHED};
	if (w <= 0)
		return;
	double *held = xcalloc((size_t)w * SBT_COUNT, sizeof *held);
	for (int c = 0; sizes && c < w; c++)
		sizes[c] = -1;
	for (size_t i = 0; i < sv->n_batch; i++) {
		const struct serving_batch *b = &sv->batch[i];
		int a, e;
		if (!b->exec || b->type >= SBT_COUNT || !serving_cells(b->start_ns, b->end_ns, t0, t1, w, &a, &e))
			continue;
		for (int c = a; c <= e; c++) {
			held[c * SBT_COUNT + b->type] += (double)(b->end_ns - b->start_ns) + 1;
			if (sizes && b->size > sizes[c])
				sizes[c] = b->size;
		}
	}
	for (int c = 0; c < w; c++) {
		int best = -1;
		for (int k = 0; k < SBT_COUNT; k++)
			if (held[c * SBT_COUNT + k] > 0 && (best < 0 || held[c * SBT_COUNT + k] > held[c * SBT_COUNT + best]))
				best = k;
		if (best >= 0)
			canvas_set(cv, x + c, y, (uint32_t)letter[best], type_style[best]);
	}
	free(held);
}

void view_serving_forwards(struct canvas *cv, int x, int y, int w, const struct serving *sv, int64_t t0, int64_t t1)
{
	for (size_t i = 0; i < sv->n_fwd; i++) {
		int a, e;
		if (!serving_cells(sv->fwd[i].start_ns, sv->fwd[i].end_ns, t0, t1, w, &a, &e))
			continue;
		for (int c = a; c <= e; c++)
			canvas_set(cv, x + c, y, 0x2588, ST_CAT_COMPUTE);
	}
}
