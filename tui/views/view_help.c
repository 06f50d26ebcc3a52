/* SPDX-License-Identifier: MIT */
/* Help (every key, from the action table) and Docs (every metric, from the metric table,
 * with the category rules and the bottleneck thresholds): scrollable text, a line too long
 * for the screen wrapped under its description (nothing cut). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "category.h"
#include "comm_split.h"
#include "commands.h"
#include "sbuf.h"
#include "views.h"
#include "xalloc.h"

struct line {
	enum style st;
	char *text;
	int indent;
	int hang; /* a wrapped line's rows go on under this column of its text (its description) */
};

struct textview {
	struct line *lines;
	size_t n, cap;
	struct listbox lb;
	size_t last; /* the top line that shows the end (the last draw's) */
};

static void add(struct textview *tv, enum style st, int indent, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The rows the line before this call takes when wrapped go on under column hang. */
static void hang(struct textview *tv, int col)
{
	tv->lines[tv->n - 1].hang = col;
}

static void add(struct textview *tv, enum style st, int indent, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	xgrow(&tv->lines, &tv->cap, tv->n + 1, sizeof *tv->lines);
	tv->lines[tv->n++] = (struct line){st, xstrdup(buf), indent, 0};
}

static void destroy(void *p)
{
	struct textview *tv = p;
	for (size_t i = 0; i < tv->n; i++)
		free(tv->lines[i].text);
	free(tv->lines);
	free(tv);
}

static void *create_help(struct app *app)
{
	(void)app;
	struct textview *tv = xcalloc(1, sizeof *tv);
	static const struct { unsigned scope; const char *title; } groups[] = {
		{KS_GLOBAL, N_("Everywhere")},
		{KS_LIST, N_("Lists and tables (Ops, Steps, Ranks, Bottleneck, Comm, Compare, Help, Docs)")},
		{KS_OPS, N_("Ops table (and Compare)")},
		{KS_COMM, N_("Communication view")},
		{KS_TIMELINE, N_("Timeline")},
		{KS_RANKS, N_("Ranks")},
		{KS_COMPARE, N_("Compare")},
	};
	add(tv, ST_BOLD, 0, "%s", _("Keys (the same table drives dispatch, this screen and --list-keys)"));
	for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
		add(tv, ST_NORMAL, 0, "%s", "");
		add(tv, ST_HEADER, 0, "%s", _(groups[g].title));
		for (int a = 1; a < ACT_COUNT; a++) {
			if (!(action_defs[a].scope & groups[g].scope))
				continue;
			add(tv, ST_NORMAL, 2, "%-16s %-16s %s", action_defs[a].keys, action_defs[a].name,
			    _(action_defs[a].help));
			hang(tv, 34);
		}
	}
	add(tv, ST_NORMAL, 0, "%s", "");
	add(tv, ST_HEADER, 0, "%s", _("Prompt (after / \\ or :)"));
	add(tv, ST_NORMAL, 2, "%s", _("Enter accepts, Esc cancels, Backspace deletes"));
	add(tv, ST_NORMAL, 0, "%s", "");
	add(tv, ST_DIM, 0, _("Timeline glyphs: compute %s  communication %s  copy #  scheduling =  other :"),
	    "\u2588", "\u2593");
	/* after the legend, so that the screens of the pages above stay as they were */
	add(tv, ST_NORMAL, 0, "%s", "");
	add(tv, ST_HEADER, 0, "%s", _("Commands (after :, the same table drives dispatch, this screen and --list-commands)"));
	for (int c = 0; c < CMD_COUNT; c++) {
		add(tv, ST_NORMAL, 2, "%-16s %-8s %s", command_defs[c].names, command_defs[c].args, _(command_defs[c].help));
		hang(tv, 26);
	}
	return tv;
}

static void *create_docs(struct app *app)
{
	(void)app;
	struct textview *tv = xcalloc(1, sizeof *tv);
	add(tv, ST_BOLD, 0, "%s", _("Metrics (the same table feeds the report, --json and the man page)"));
	for (int m = 0; m < M_COUNT; m++) {
		const struct metric_def *d = &metric_defs[m];
		add(tv, ST_NORMAL, 0, "%s", "");
		add(tv, ST_HEADER, 0, "%s  (%s, %s)", _(d->label), d->key, d->unit);
		add(tv, ST_NORMAL, 2, "%s", _(d->definition));
		add(tv, ST_DIM, 2, _("formula: %s"), _(d->formula));
		if (d->caveat[0])
			add(tv, ST_DIM, 2, _("caveat: %s"), _(d->caveat));
	}
	add(tv, ST_NORMAL, 0, "%s", "");
	/* the one account of exposed communication every view and report uses (comm_split.h) */
	add(tv, ST_BOLD, 0, "%s", _("Exposed communication, split one way (the parts sum to comm_not_overlapped_us)"));
	for (size_t i = 0; i < sizeof comm_split_words / sizeof comm_split_words[0]; i++)
		add(tv, ST_NORMAL, 2, "%s (%s): %s", _(comm_split_words[i].word), comm_split_words[i].bucket,
		    _(comm_split_words[i].definition));
	add(tv, ST_NORMAL, 0, "%s", "");
	add(tv, ST_BOLD, 0, "%s", _("Bottleneck thresholds (score 40 at the threshold, 100 at full)"));
	for (size_t i = 0; i < n_threshold_defs; i++) {
		add(tv, ST_NORMAL, 2, _("%-26s >= %-8g full at %-8g %s"), threshold_defs[i].metric, threshold_defs[i].threshold,
		    threshold_defs[i].full, _(threshold_defs[i].why));
		hang(tv, 56); /* under the why, after "%-26s >= %-8g full at %-8g " */
	}
	add(tv, ST_NORMAL, 0, "%s", "");
	add(tv, ST_BOLD, 0, "%s", _("Category rules (first match wins)"));
	const char *rules = category_rules_text();
	while (*rules) {
		size_t n = strcspn(rules, "\n");
		add(tv, ST_NORMAL, 2, "%.*s", (int)n, rules);
		rules += n + (rules[n] == '\n');
	}
	return tv;
}

/* Draws line l from row y in at most max rows of w columns (cv NULL: only measures); a
 * line too long for one row wraps, its rows after the first under its hang column (or two
 * columns in when that leaves too little room); max 0: as many as it takes. Returns the
 * rows it takes. */
static int draw_line(const struct line *l, struct canvas *cv, int x, int y, int w, int max)
{
	int tw = w - 2 - l->indent;
	if (max == 1 || canvas_width(l->text) <= tw) {
		if (cv)
			canvas_text(cv, x + 1 + l->indent, y, tw, l->st, l->text);
		return 1;
	}
	int col = l->hang && tw - l->hang >= 20 ? l->hang : 2;
	size_t b = canvas_byte_at(l->text, col);
	const char *rest = l->text + b;
	while (*rest == ' ')
		rest++;
	/* the first row: the text up to the column, then as much of the rest as fits */
	if (cv)
		canvas_textn(cv, x + 1 + l->indent, y, col, l->st, l->text, b);
	return canvas_wrap(cv, x + 1 + l->indent + col, y, tw - col, max, l->st, rest);
}

static void draw(void *p, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	(void)app;
	struct textview *tv = p;
	tv->lb.n = tv->n;
	listbox_clamp(&tv->lb, h);
	/* the top line that still fills the screen to the end: where G and scrolling stop */
	int rows = 0;
	tv->last = tv->n;
	while (tv->last > 0 && rows + draw_line(&tv->lines[tv->last - 1], NULL, x, 0, w, 0) <= h)
		rows += draw_line(&tv->lines[--tv->last], NULL, x, 0, w, 0);
	/* the cursor marks the scroll position: keep it at the top line */
	for (size_t i = tv->lb.top, r = 0; (int)r < h && i < tv->n; i++)
		r += (size_t)draw_line(&tv->lines[i], cv, x, y + (int)r, w, h - (int)r);
}

static int handle(void *p, struct app *app, enum action act)
{
	(void)app;
	struct textview *tv = p;
	/* scrolling moves the window, not a cursor */
	size_t page = tv->lb.height > 1 ? (size_t)tv->lb.height - 1 : 1;
	size_t last = tv->last;
	switch (act) {
	case ACT_DOWN: tv->lb.top = tv->lb.top < last ? tv->lb.top + 1 : last; break;
	case ACT_UP: tv->lb.top = tv->lb.top ? tv->lb.top - 1 : 0; break;
	case ACT_PAGE_DOWN: tv->lb.top = tv->lb.top + page < last ? tv->lb.top + page : last; break;
	case ACT_PAGE_UP: tv->lb.top = tv->lb.top > page ? tv->lb.top - page : 0; break;
	case ACT_TOP: tv->lb.top = 0; break;
	case ACT_BOTTOM: tv->lb.top = last; break;
	default: return VH_UNHANDLED;
	}
	tv->lb.sel = tv->lb.top;
	return VH_HANDLED;
}

static bool search(void *p, struct app *app, const char *text, int dir)
{
	(void)app;
	struct textview *tv = p;
	if (!tv->n)
		return false;
	size_t start = tv->lb.top;
	for (size_t k = 1; k <= tv->n; k++) {
		size_t i = dir < 0 ? (start + tv->n - k) % tv->n : (start + (dir == 0 ? k - 1 : k)) % tv->n;
		if (strcasestr(tv->lines[i].text, text)) {
			tv->lb.top = i;
			tv->lb.sel = i;
			return true;
		}
	}
	return false;
}

const struct view_ops help_view_ops = {
	.title = N_("Help"),
	.scopes = KS_LIST,
	.create = create_help,
	.destroy = destroy,
	.draw = draw,
	.handle = handle,
	.search = search,
	.hint = N_("j/k scroll  / search  q back"),
};

const struct view_ops docs_view_ops = {
	.title = N_("Docs"),
	.scopes = KS_LIST,
	.create = create_docs,
	.destroy = destroy,
	.draw = draw,
	.handle = handle,
	.search = search,
	.hint = N_("metric definitions  j/k scroll  / search  q back"),
};
