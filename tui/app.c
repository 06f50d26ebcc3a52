/* SPDX-License-Identifier: MIT */
/* Main loop, loader thread, view stack, prompt line and the scripted headless driver. */
#include "config.h"
#include "app.h"

#include <curses.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "csvw.h"
#include "i18n.h"
#include "digest.h"
#include "script.h"
#include "sbuf.h"
#include "stagetime.h"
#include "summary.h"
#include "xalloc.h"

#define MIN_W 60
#define MIN_H 12

static const struct view_ops *view_table[VIEW_COUNT] = {
	[VIEW_OVERVIEW] = &overview_view_ops,
	[VIEW_TIMELINE] = &timeline_view_ops,
	[VIEW_OPS] = &ops_view_ops,
	[VIEW_STEPS] = &steps_view_ops,
	[VIEW_RANKS] = &ranks_view_ops,
	[VIEW_BOTTLENECK] = &bottleneck_view_ops,
	[VIEW_MEMORY] = &memory_view_ops,
	[VIEW_COMM] = &comm_view_ops,
	[VIEW_HELP] = &help_view_ops,
	[VIEW_DOCS] = &docs_view_ops,
	[VIEW_OP_DETAIL] = &op_detail_view_ops,
	[VIEW_COMPARE] = &compare_view_ops,
	[VIEW_COMPARE_OP] = &compare_op_view_ops,
	[VIEW_COMM_DETAIL] = &comm_detail_view_ops,
	[VIEW_CLUSTER] = &cluster_view_ops,
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- loader thread (never calls curses) ---------------------------------------------- */

/* A rank's timeline index, built by the analysis as soon as the rank's events are
 * classified (each rank writes only its own slot). */
static void build_lod(void *ctx, size_t rank_index, const struct rank_store *rs, const struct ev_class *cls)
{
	struct lane_lod **lods = ctx;
	lods[rank_index] = lod_build(rs, cls);
}

/* The analysis of a capture, with the timeline index of every rank that has a trace. */
static struct analysis *analyse_and_index(const struct capture *cap, struct lane_lod ***lods)
{
	*lods = xcalloc(cap->n_ranks ? cap->n_ranks : 1, sizeof **lods);
	struct analysis_hook hook = {.classified = build_lod, .ctx = *lods};
	return analysis_run_with(cap, &hook);
}

static void free_lods(const struct capture *cap, struct lane_lod **lods)
{
	for (size_t i = 0; lods && i < cap->n_ranks; i++)
		if (lods[i])
			lod_free(lods[i], cap->ranks[i].store.n_lanes);
	free(lods);
}

static void *loader_main(void *arg)
{
	struct app *app = arg;
	if (app->digests) { /* read already: nothing to load, no timeline index */
		struct published *pub = xcalloc(1, sizeof *pub);
		pub->an = app->digests;
		pub->lods = xcalloc(app->cap->n_ranks ? app->cap->n_ranks : 1, sizeof *pub->lods);
		if (app->opts.compare == CMP_ARG_RANKS) {
			const int *r = app->opts.compare_ranks;
			pub->cmp = compare_ranks(pub->an, r[0], r[1]);
			if (!pub->cmp)
				snprintf(pub->cmp_error, sizeof pub->cmp_error,
					 _("no comparison: rank %d or %d is not in the digests"), r[0], r[1]);
		}
		app->t_loaded = app->t_analysed = app->t_indexed = now_s() - app->t_start;
		atomic_store_explicit(&app->pub, pub, memory_order_release);
		return NULL;
	}
	capture_load(app->cap);
	if (app->cap_b && !atomic_load(&app->cap->cancel))
		capture_load(app->cap_b);
	if (atomic_load(&app->cap->cancel))
		return NULL;
	app->t_loaded = now_s() - app->t_start;
	struct published *pub = xcalloc(1, sizeof *pub);
	pub->an = analyse_and_index(app->cap, &pub->lods);
	if (app->cap_b)
		pub->an_b = analyse_and_index(app->cap_b, &pub->lods_b);
	app->t_analysed = now_s() - app->t_start;
	if (app->cap_b) {
		pub->cmp = compare_captures(pub->an, pub->an_b);
	} else if (app->opts.compare == CMP_ARG_RANKS) {
		const int *r = app->opts.compare_ranks;
		pub->cmp = compare_ranks(pub->an, r[0], r[1]);
		if (!pub->cmp)
			snprintf(pub->cmp_error, sizeof pub->cmp_error,
				 _("no comparison: rank %d or %d is not in the capture"), r[0], r[1]);
	}
	app->t_indexed = now_s() - app->t_start;
	atomic_store_explicit(&app->pub, pub, memory_order_release);
	return NULL;
}

const struct capture *app_capture(const struct app *app) { return app->cap; }

size_t app_rank_count(const struct app *app) { return app->cap->n_ranks; }

const struct rank_data *app_rank_data_of(const struct app *app, size_t rank_index)
{
	return &app->cap->ranks[rank_index];
}

struct diag_list *app_diags(struct app *app) { return &app->cap->diags; }

size_t app_rank_index(const struct app *app) { return app->rank; }

void app_select_rank(struct app *app, size_t rank_index) { app->rank = rank_index; }

enum align_mode app_align(const struct app *app) { return app->align; }

const struct published *app_pub(const struct app *app)
{
	return atomic_load_explicit(&((struct app *)app)->pub, memory_order_acquire);
}

const struct rank_analysis *app_rank_analysis_of(const struct app *app, size_t rank_index)
{
	const struct published *pub = app_pub(app);
	if (!pub)
		return NULL;
	for (size_t i = 0; i < pub->an->n_ranks; i++)
		if (pub->an->ranks[i].rank_index == rank_index)
			return &pub->an->ranks[i];
	return NULL;
}

const struct rank_analysis *app_rank_analysis(const struct app *app)
{
	return app_rank_analysis_of(app, app->rank);
}

const struct rank_data *app_rank_data(const struct app *app)
{
	return app->cap->n_ranks ? &app->cap->ranks[app->rank] : NULL;
}

const struct lane_lod *app_lods(const struct app *app, size_t rank_index)
{
	const struct published *pub = app_pub(app);
	return pub && rank_index < app->cap->n_ranks ? pub->lods[rank_index] : NULL;
}

/* ---- compare mode ------------------------------------------------------------------- */

bool app_comparing(const struct app *app) { return app->opts.compare != CMP_ARG_NONE; }

const struct comparison *app_comparison(const struct app *app)
{
	const struct published *pub = app_pub(app);
	return pub ? pub->cmp : NULL;
}

const struct compare_pair *app_compare_pair(const struct app *app)
{
	const struct comparison *c = app_comparison(app);
	/* --compare follows the selected rank; --compare-ranks has its one pair */
	return c && c->mode == CMP_CAPTURES ? compare_pair_for(c, app->rank) : c && c->n_pairs ? &c->pairs[0] : NULL;
}

bool app_compare_side(const struct app *app, int side, struct compare_side *out)
{
	const struct compare_pair *p = app_compare_pair(app);
	if (!p)
		return false;
	const struct comparison *c = app_comparison(app);
	const struct published *pub = app_pub(app);
	bool after = side == 1 && c->mode == CMP_CAPTURES;
	const struct capture *cap = after ? app->cap_b : app->cap;
	size_t ri = p->rank_index[side];
	out->label = c->label[side];
	out->rd = &cap->ranks[ri];
	out->ra = p->ra[side];
	out->lods = (after ? pub->lods_b : pub->lods)[ri];
	return true;
}

/* ---- views -------------------------------------------------------------------------- */

static void *app_view(struct app *app, enum view_id v)
{
	if (!app->view_state[v])
		app->view_state[v] = view_table[v]->create(app);
	return app->view_state[v];
}

static enum view_id top_view(const struct app *app) { return app->stack[app->depth - 1]; }

/* The view the explorer starts on, where q quits (as in htop, tig and less). */
static enum view_id first_view(const struct app *app) { return app_comparing(app) ? VIEW_COMPARE : VIEW_OVERVIEW; }

static bool at_first_view(const struct app *app) { return app->depth == 1 && top_view(app) == first_view(app); }


/* The numbered views: the Compare view is the ninth, in compare mode only. */
static int main_views(const struct app *app) { return VIEW_MAIN_COUNT + app_comparing(app); }

void app_push(struct app *app, enum view_id v)
{
	void *st = app_view(app, v);
	if (app->depth && top_view(app) == v)
		return;
	/* a view already on the stack is brought forward rather than stacked twice */
	for (int i = 0; i < app->depth; i++)
		if (app->stack[i] == v) {
			memmove(&app->stack[i], &app->stack[i + 1], (size_t)(app->depth - i - 1) * sizeof app->stack[0]);
			app->depth--;
			break;
		}
	if (app->depth == (int)(sizeof app->stack / sizeof app->stack[0])) {
		memmove(&app->stack[0], &app->stack[1], (size_t)(app->depth - 1) * sizeof app->stack[0]);
		app->depth--;
	}
	app->stack[app->depth++] = v;
	if (view_table[v]->update)
		view_table[v]->update(st, app);
	app->dirty = true;
}

void app_open(struct app *app, enum view_id v, const struct view_target *target)
{
	const struct view_ops *vo = view_table[v];
	if (target && vo->open)
		vo->open(app_view(app, v), app, target);
	app_push(app, v);
}

static void refresh_views(struct app *app)
{
	for (int v = 0; v < VIEW_COUNT; v++)
		if (app->view_state[v] && view_table[v]->update)
			view_table[v]->update(app->view_state[v], app);
	app->dirty = true;
}

void app_message(struct app *app, enum style st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(app->message, sizeof app->message, fmt, ap);
	va_end(ap);
	app->message_style = st;
	app->dirty = true;
}

const char *app_fmt_dur(int64_t ns, char *buf, size_t size)
{
	return summary_duration(ns, buf, size);
}

/* ---- list helper -------------------------------------------------------------------- */

void listbox_clamp(struct listbox *lb, int height)
{
	lb->height = height > 0 ? height : 1;
	if (lb->n == 0) {
		lb->sel = lb->top = 0;
		return;
	}
	if (lb->sel >= lb->n)
		lb->sel = lb->n - 1;
	if (lb->sel < lb->top)
		lb->top = lb->sel;
	if (lb->sel >= lb->top + (size_t)lb->height)
		lb->top = lb->sel - (size_t)lb->height + 1;
}

/* The last search's place among its matches, for the status line ("match k of n"); set by
 * listbox_search and app_search_matches, read by run_search (main thread only). */
static size_t match_k, match_n;

void app_search_matches(struct app *app, size_t k, size_t n)
{
	(void)app;
	match_k = k;
	match_n = n;
}

bool listbox_search(struct listbox *lb, int dir, bool (*match)(const void *ctx, size_t row, const char *text),
		    const void *ctx, const char *text)
{
	size_t n = lb->n;
	for (size_t k = dir == 0 ? 0 : 1; k <= n && n; k++) {
		size_t i = dir < 0 ? (lb->sel + n - k % n) % n : (lb->sel + k) % n;
		if (match(ctx, i, text)) {
			lb->sel = i;
			listbox_clamp(lb, lb->height);
			/* which match this is, counting in row order */
			match_k = match_n = 0;
			for (size_t r = 0; r < n; r++)
				if (match(ctx, r, text)) {
					match_n++;
					if (r == i)
						match_k = match_n;
				}
			return true;
		}
	}
	return false;
}

int listbox_handle(struct listbox *lb, enum action act)
{
	size_t page = lb->height > 1 ? (size_t)lb->height - 1 : 1;
	switch (act) {
	case ACT_DOWN:
		if (lb->sel + 1 < lb->n)
			lb->sel++;
		break;
	case ACT_UP:
		if (lb->sel > 0)
			lb->sel--;
		break;
	case ACT_PAGE_DOWN:
		lb->sel = lb->sel + page < lb->n ? lb->sel + page : (lb->n ? lb->n - 1 : 0);
		break;
	case ACT_PAGE_UP:
		lb->sel = lb->sel > page ? lb->sel - page : 0;
		break;
	case ACT_TOP: lb->sel = 0; break;
	case ACT_BOTTOM: lb->sel = lb->n ? lb->n - 1 : 0; break;
	default: return VH_UNHANDLED;
	}
	listbox_clamp(lb, lb->height);
	return VH_HANDLED;
}

/* ---- drawing ------------------------------------------------------------------------ */

static const char *view_title(enum view_id v) { return view_table[v]->title; }

static void draw_title(struct app *app, struct canvas *cv)
{
	canvas_fill(cv, 0, 0, cv->w, 1, ' ', ST_TITLE);
	enum view_id cur = top_view(app);
	char tabs[VIEW_COUNT][32], r[96] = "";
	int tabs_w = 0, rw = 0;
	for (int v = 0; v < main_views(app); v++) {
		snprintf(tabs[v], sizeof tabs[v], " %d %s ", v + 1, _(view_title((enum view_id)v)));
		tabs_w += canvas_width(tabs[v]);
	}
	if (app->cap->n_ranks) {
		const struct rank_plan *rp = app->cap->ranks[app->rank].plan;
		snprintf(r, sizeof r, _(" rank %d (%zu/%zu) "), rp->rank, app->rank + 1, app->cap->n_ranks);
		rw = canvas_width(r);
	}
	/* the program's name gives way first, so that every tab (then the rank) fits */
	static const char name[] = " ascprof-tui ";
	int x = 0;
	if (canvas_width(name) + tabs_w + rw <= cv->w || tabs_w > cv->w)
		x = canvas_text(cv, 0, 0, cv->w, ST_TITLE, name);
	for (int v = 0; v < main_views(app) && x < cv->w; v++)
		x += canvas_text(cv, x, 0, cv->w - x, v == (int)cur ? ST_TAB : ST_TITLE, tabs[v]);
	if (rw && x + rw <= cv->w)
		canvas_text(cv, cv->w - rw, 0, rw, ST_TITLE, r);
}

/* The first rank of cap still loading, as a status line (prefixed with `which` in compare
 * mode); false when every rank is ready. */
static bool capture_loading(const struct capture *cap, const char *which, char *buf, size_t size)
{
	size_t ready = 0;
	for (size_t i = 0; i < cap->n_ranks; i++)
		ready += capture_rank_state(&cap->ranks[i]) == RANK_READY;
	for (size_t i = 0; i < cap->n_ranks; i++) {
		const struct rank_data *rd = &cap->ranks[i];
		int st = capture_rank_state(rd);
		if (st == RANK_READY)
			continue;
		uint64_t done = atomic_load(&((struct rank_data *)rd)->trace_bytes_done);
		char b1[32], b2[32];
		if (st == RANK_TRACE_LOADING && rd->trace_bytes_total)
			snprintf(buf, size, _("%sloading rank %d: trace %s of %s (%.0f%%), %zu/%zu ranks ready"), which,
				 rd->plan->rank, summary_bytes(done, b1, sizeof b1),
				 summary_bytes(rd->trace_bytes_total, b2, sizeof b2),
				 100.0 * (double)done / (double)rd->trace_bytes_total, ready, cap->n_ranks);
		else
			snprintf(buf, size, _("%sloading rank %d: %s, %zu/%zu ranks ready"), which, rd->plan->rank,
				 st == RANK_TRACE_LOADED ? _("CSV tables") : _("waiting for the trace"), ready, cap->n_ranks);
		return true;
	}
	return false;
}

static void loading_status(struct app *app, char *buf, size_t size)
{
	if (capture_loading(app->cap, app->cap_b ? _("before: ") : "", buf, size) ||
	    (app->cap_b && capture_loading(app->cap_b, _("after: "), buf, size)))
		return;
	snprintf(buf, size, _("analysing %zu rank(s)..."), app->cap->n_ranks + (app->cap_b ? app->cap_b->n_ranks : 0));
}

static void draw_status(struct app *app, struct canvas *cv)
{
	int y = cv->h - 1;
	canvas_fill(cv, 0, y, cv->w, 1, ' ', ST_STATUS);
	if (app->prompt_kind) {
		char buf[300];
		snprintf(buf, sizeof buf, "%c%.*s", app->prompt_kind, (int)app->prompt_len, app->prompt);
		int x = canvas_text(cv, 0, y, cv->w - 1, ST_STATUS, buf);
		canvas_set(cv, x, y, 0x2588, ST_STATUS); /* a block for the cursor */
		return;
	}
	char left[300];
	enum style st = ST_STATUS;
	if (app->message[0]) {
		snprintf(left, sizeof left, "%s", app->message);
	} else if (!app_pub(app)) {
		loading_status(app, left, sizeof left);
	} else {
		const char *hint = view_table[top_view(app)]->hint;
		snprintf(left, sizeof left, "%s", hint ? _(hint) : "");
	}
	const char *keys = at_first_view(app) ? _("? help  q quit ") : _("? help  q back  Q quit ");
	int kw = canvas_width(keys);
	canvas_text(cv, 1, y, cv->w - kw - 2, st, left);
	canvas_text_right(cv, cv->w - kw, y, kw, ST_STATUS, keys);
}

static void render(struct app *app)
{
	int w, h;
	term_size(&w, &h);
	if (w != app->cv.w || h != app->cv.h)
		canvas_resize(&app->cv, w, h);
	struct canvas *cv = &app->cv;
	canvas_clear(cv);
	if (w < MIN_W || h < MIN_H) {
		canvas_text(cv, 0, 0, w, ST_WARN, _("terminal too small"));
		char need[64];
		snprintf(need, sizeof need, _("%dx%d, need %dx%d"), w, h, MIN_W, MIN_H);
		canvas_text(cv, 0, 1, w, ST_NORMAL, need);
		canvas_text(cv, 0, 2, w, ST_DIM, _("Q quits"));
		app->frames++;
		return;
	}
	draw_title(app, cv);
	enum view_id v = top_view(app);
	view_table[v]->draw(app_view(app, v), app, cv, 0, 1, w, h - 2);
	draw_status(app, cv);
	app->frames++;
}

/* ---- commands and prompt ------------------------------------------------------------ */

/* :export FILE: the top view's table as CSV, written only where the user said and never
 * inside a capture; an existing file only with :export! */
static void export_table(struct app *app, const char *path, bool overwrite)
{
	enum view_id v = top_view(app);
	const struct view_ops *vo = view_table[v];
	if (!*path) {
		app_message(app, ST_WARN, _("export wants a file name: :export FILE.csv"));
		return;
	}
	if (!vo->export_csv || !app_pub(app)) {
		app_message(app, ST_WARN, _("%s has no table to export%s"), _(vo->title), app_pub(app) ? "" : _(" yet"));
		return;
	}
	const char *roots[2] = {app->cap->plan.path, app->cap_b ? app->cap_b->plan.path : NULL};
	char err[512];
	FILE *f = csvw_open(path, roots, 2, overwrite, err, sizeof err);
	if (!f) {
		app_message(app, ST_WARN, "%s", err);
		return;
	}
	size_t rows = vo->export_csv(app_view(app, v), app, f);
	bool bad = ferror(f) != 0;
	if (fclose(f) != 0 || bad)
		app_message(app, ST_WARN, _("writing %s failed"), path);
	else
		app_message(app, ST_NORMAL, _("%s: %zu row(s) written to %s"), _(vo->title), rows, path);
}

/* Searches the top view for text (dir 0: from the selection on, 1 next, -1 previous) and
 * says which match of how many it landed on. */
static void run_search(struct app *app, const char *text, int dir)
{
	enum view_id v = top_view(app);
	const struct view_ops *vo = view_table[v];
	if (dir == 0)
		snprintf(app->last_search, sizeof app->last_search, "%s", text);
	match_k = match_n = 0;
	if (!vo->search) {
		app_message(app, ST_WARN, _("%s has no search"), _(vo->title));
	} else if (!vo->search(app_view(app, v), app, text, dir)) {
		app_message(app, ST_WARN, dir ? _("no more matches for %s") : _("no match for %s"), text);
	} else if (match_n) {
		app_message(app, ST_NORMAL, _("match %zu of %zu for %s"), match_k, match_n, text);
	}
}

/* The `:` commands' handlers, one per row of the command table (commands.h). */
void cmd_quit(struct app *app, const char *word, const char *rest)
{
	(void)word, (void)rest;
	app->quit = true;
}

void cmd_rank(struct app *app, const char *word, const char *rest)
{
	(void)word;
	long r = strtol(rest, NULL, 10);
	for (size_t i = 0; i < app->cap->n_ranks; i++)
		if (app->cap->ranks[i].plan->rank == r) {
			app->rank = i;
			refresh_views(app);
			return;
		}
	app_message(app, ST_WARN, _("no rank %ld"), r);
}

void cmd_view(struct app *app, const char *word, const char *rest)
{
	(void)word;
	for (int v = 0; v < VIEW_COUNT; v++)
		if (!strcasecmp(rest, view_title((enum view_id)v))) {
			app_push(app, (enum view_id)v);
			return;
		}
	app_message(app, ST_WARN, _("no view named %s"), rest);
}

/* :goto MS and :zoom MS MS: a window of the Timeline in ms from the rank's first event */
static void timeline_window(struct app *app, const char *word, const char *rest, bool zoom)
{
	const struct rank_analysis *ra = app_rank_analysis(app);
	if (!ra) {
		app_message(app, ST_WARN, _("still loading"));
		return;
	}
	char *end;
	double a = strtod(rest, &end), b = a + 1;
	if (end == rest) {
		app_message(app, ST_WARN, _("%s wants milliseconds from the rank's start"), word);
		return;
	}
	if (zoom)
		b = strtod(end, NULL);
	int64_t t0 = ra->t0 + (int64_t)(a * 1e6), t1 = ra->t0 + (int64_t)(b * 1e6);
	if (!zoom) {
		t0 -= 500000;
		t1 = t0 + 1000000;
	}
	app_open(app, VIEW_TIMELINE,
		 &(struct view_target){.timeline = {app->rank, t0, t1 > t0 ? t1 : t0 + 1000, UINT32_MAX}});
}

void cmd_goto(struct app *app, const char *word, const char *rest)
{
	timeline_window(app, word, rest, false);
}

void cmd_zoom(struct app *app, const char *word, const char *rest)
{
	timeline_window(app, word, rest, true);
}

void cmd_search(struct app *app, const char *word, const char *rest)
{
	(void)word;
	run_search(app, rest, 0);
}

void cmd_export(struct app *app, const char *word, const char *rest)
{
	export_table(app, rest, word[strlen(word) - 1] == '!');
}

static void run_command(struct app *app, const char *line)
{
	char word[64] = "";
	const char *rest = line;
	while (*rest == ' ')
		rest++;
	size_t n = strcspn(rest, " ");
	if (n >= sizeof word)
		n = sizeof word - 1;
	memcpy(word, rest, n);
	word[n] = '\0';
	rest += n;
	while (*rest == ' ')
		rest++;
	const struct command_def *cmd = commands_lookup(word);
	if (cmd) {
		cmd->run(app, word, rest);
	} else if (word[0]) {
		char names[256];
		/* TRANSLATORS: between the command names of "unknown command: %s (try %s)" */
		commands_names(names, sizeof names, _(", "));
		app_message(app, ST_WARN, _("unknown command: %s (try %s)"), word, names);
	}
}

static void prompt_submit(struct app *app)
{
	char text[256];
	snprintf(text, sizeof text, "%.*s", (int)app->prompt_len, app->prompt);
	char kind = app->prompt_kind;
	app->prompt_kind = 0;
	enum view_id v = top_view(app);
	const struct view_ops *vo = view_table[v];
	if (kind == ':') {
		run_command(app, text);
	} else if (kind == '/') {
		run_search(app, text, 0);
	} else if (kind == '\\') {
		if (vo->filter)
			vo->filter(app_view(app, v), app, text);
		else
			app_message(app, ST_WARN, _("%s has no filter (the Ops view has)"), _(vo->title));
	}
	app->dirty = true;
}

static void prompt_key(struct app *app, int key)
{
	if (key == 27) {
		app->prompt_kind = 0;
	} else if (key == '\r' || key == '\n' || key == KEYCODE_FN(KEY_ENTER)) {
		prompt_submit(app);
	} else if (key == 127 || key == 8 || key == KEYCODE_FN(KEY_BACKSPACE)) {
		/* drop one UTF-8 character */
		while (app->prompt_len > 0) {
			unsigned char c = (unsigned char)app->prompt[--app->prompt_len];
			if ((c & 0xC0) != 0x80)
				break;
		}
	} else if (key >= 32 && key < 0x110000 && key != 127) {
		char enc[4];
		int n = 0;
		if (key < 0x80)
			enc[n++] = (char)key;
		else if (key < 0x800) {
			enc[n++] = (char)(0xC0 | (key >> 6));
			enc[n++] = (char)(0x80 | (key & 0x3F));
		} else if (key < 0x10000) {
			enc[n++] = (char)(0xE0 | (key >> 12));
			enc[n++] = (char)(0x80 | ((key >> 6) & 0x3F));
			enc[n++] = (char)(0x80 | (key & 0x3F));
		} else {
			enc[n++] = (char)(0xF0 | (key >> 18));
			enc[n++] = (char)(0x80 | ((key >> 12) & 0x3F));
			enc[n++] = (char)(0x80 | ((key >> 6) & 0x3F));
			enc[n++] = (char)(0x80 | (key & 0x3F));
		}
		if (app->prompt_len + (size_t)n < sizeof app->prompt) {
			memcpy(app->prompt + app->prompt_len, enc, (size_t)n);
			app->prompt_len += (size_t)n;
		}
	}
	app->dirty = true;
}

/* ---- key dispatch ------------------------------------------------------------------- */

static void close_view(struct app *app, int key)
{
	if (key == 27 && at_first_view(app))
		return; /* Esc never quits: it is pressed to get out of things */
	if (app->depth > 1)
		app->depth--;
	else if (top_view(app) != first_view(app))
		app->stack[0] = first_view(app);
	else
		app->quit = true;
	app->dirty = true;
}

static void change_rank(struct app *app, int dir)
{
	if (app->cap->n_ranks < 2)
		return;
	app->rank = (app->rank + app->cap->n_ranks + (size_t)(dir > 0 ? 1 : app->cap->n_ranks - 1)) %
		    app->cap->n_ranks;
	refresh_views(app);
}

static void handle_key(struct app *app, int key)
{
	app->message[0] = '\0';
	if (app->prompt_kind) {
		prompt_key(app, key);
		return;
	}
	if (key == KEYCODE_FN(KEY_RESIZE)) {
		/* the terminal may have cleared or reflowed what it showed (a storm of resizes
		 * coalesces into one KEY_RESIZE): repaint every cell, not just the changes */
		if (app->opts.mode == TERM_REAL)
			clearok(curscr, TRUE);
		app->dirty = true;
		return;
	}
	enum view_id v = top_view(app);
	const struct view_ops *vo = view_table[v];
	enum action act = actions_lookup(key, vo->scopes | KS_GLOBAL);
	if (act == ACT_NONE) {
		app_message(app, ST_DIM, _("%s: no action here (? for help)"), actions_key_name(key));
		return;
	}
	/* the view first: it may give a global key its own meaning */
	if (vo->handle && act != ACT_QUIT && vo->handle(app_view(app, v), app, act) == VH_HANDLED) {
		app->dirty = true;
		return;
	}
	switch (act) {
	case ACT_QUIT: app->quit = true; break;
	case ACT_CLOSE: close_view(app, key); break;
	case ACT_HELP: app_push(app, VIEW_HELP); break;
	case ACT_DOCS: app_push(app, VIEW_DOCS); break;
	case ACT_COMMAND:
	case ACT_SEARCH:
	case ACT_FILTER:
		app->prompt_kind = act == ACT_COMMAND ? ':' : act == ACT_SEARCH ? '/' : '\\';
		app->prompt_len = 0;
		break;
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
		if (app->last_search[0])
			run_search(app, app->last_search, act == ACT_SEARCH_NEXT ? 1 : -1);
		break;
	case ACT_VIEW_OVERVIEW:
	case ACT_VIEW_TIMELINE:
	case ACT_VIEW_OPS:
	case ACT_VIEW_STEPS:
	case ACT_VIEW_RANKS:
	case ACT_VIEW_BOTTLENECK:
	case ACT_VIEW_MEMORY:
	case ACT_VIEW_COMM: app_push(app, (enum view_id)(act - ACT_VIEW_OVERVIEW)); break;
	case ACT_VIEW_CLUSTER: app_push(app, VIEW_CLUSTER); break;
	case ACT_VIEW_COMPARE:
		if (app_comparing(app))
			app_push(app, VIEW_COMPARE);
		else
			app_message(app, ST_WARN, _("no comparison: start with --compare BEFORE AFTER or --compare-ranks R1 R2"));
		break;
	case ACT_NEXT_VIEW:
	case ACT_PREV_VIEW: {
		int n = main_views(app);
		int cur = (int)v < n ? (int)v : 0;
		int next = (cur + (act == ACT_NEXT_VIEW ? 1 : n - 1)) % n;
		app_push(app, (enum view_id)next);
		break;
	}
	case ACT_NEXT_RANK: change_rank(app, 1); break;
	case ACT_PREV_RANK: change_rank(app, -1); break;
	case ACT_ALIGN_MODE:
		app->align = (enum align_mode)((app->align + 1) % ALIGN_COUNT);
		app_message(app, ST_NORMAL, _("alignment: %s"), analysis_align_name(app->align));
		refresh_views(app);
		break;
	case ACT_REDRAW:
		if (app->opts.mode == TERM_REAL)
			clearok(curscr, TRUE);
		break;
	default:
		app_message(app, ST_DIM, _("%s does nothing in this view"), action_defs[act].name);
		break;
	}
	app->dirty = true;
}

/* ---- main loop ---------------------------------------------------------------------- */

/* ---- benchmarks --------------------------------------------------------------------- */

static void bench_published(struct app *app, const struct published *pub)
{
	size_t events = 0, lanes = 0, store = 0, ops = 0;
	for (size_t i = 0; i < app->cap->n_ranks; i++) {
		const struct rank_store *rs = &app->cap->ranks[i].store;
		events += rs->n_ev + rs->n_ctr + rs->n_flows;
		lanes += rs->n_lanes;
		store += store_bytes(rs);
	}
	for (size_t i = 0; i < pub->an->n_ranks; i++)
		ops += pub->an->ranks[i].n_ops;
	fprintf(app->bench, "loaded_ms %.1f\nanalysed_ms %.1f\nindexed_ms %.1f\n", app->t_loaded * 1e3,
		app->t_analysed * 1e3, app->t_indexed * 1e3);
	fprintf(app->bench, "events %zu\nlanes %zu\nops %zu\nstore_bytes %zu\n", events, lanes, ops,
		store);
	stagetime_print(app->bench);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Draws the screen n times; reports the median and worst draw, and for the first frame
 * also the time since start. */
static void bench_frames(struct app *app, const char *label, int n)
{
	double *t = xmalloc((size_t)n * sizeof *t);
	for (int i = 0; i < n; i++) {
		double a = now_s();
		render(app);
		t[i] = now_s() - a;
	}
	xqsort(t, (size_t)n, sizeof *t, cmp_double);
	if (app->bench)
		fprintf(app->bench, "frame %s median_ms %.3f max_ms %.3f since_start_ms %.1f\n", label,
			t[n / 2] * 1e3, t[n - 1] * 1e3, (now_s() - app->t_start) * 1e3);
	free(t);
}

static void publish_check(struct app *app)
{
	const struct published *pub = app_pub(app);
	if (pub != app->seen) {
		app->seen = pub;
		refresh_views(app);
		if (app->bench && pub)
			bench_published(app, pub);
	}
}

static void dump_screen(struct app *app, const char *path)
{
	render(app);
	char *text = canvas_dump(&app->cv);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	} else {
		fprintf(stderr, _("ascprof-tui: cannot write %s: %s\n"), path, strerror(errno));
	}
	free(text);
}

static void wait_loaded(struct app *app)
{
	while (!app_pub(app) && app->loader_started)
		usleep(2000);
	publish_check(app);
}

/* Executes script steps until one produces a key; returns the key or -1 at the end. */
static int script_next_key(struct app *app, struct script *sc)
{
	for (;;) {
		struct script_step step;
		if (!script_next(sc, &step))
			return -1;
		switch (step.kind) {
		case SCRIPT_KEY:
			if (!sc->nowait)
				wait_loaded(app);
			return step.key;
		case SCRIPT_DUMP:
			if (!sc->nowait)
				wait_loaded(app);
			dump_screen(app, step.arg);
			break;
		case SCRIPT_RESIZE:
			term_set_size(step.w, step.h);
			app->dirty = true;
			break;
		case SCRIPT_WAIT:
			wait_loaded(app);
			break;
		case SCRIPT_NOWAIT:
			sc->nowait = true;
			break;
		case SCRIPT_FRAMES:
			publish_check(app);
			bench_frames(app, step.arg, step.w);
			break;
		}
	}
}

int app_main(const char *path, const struct app_opts *opts)
{
	struct app *app = xcalloc(1, sizeof *app);
	app->opts = *opts;
	app->t_start = now_s();
	struct script *sc = NULL;
	if (opts->script) {
		sc = script_load(opts->script);
		if (!sc) {
			free(app);
			return 2;
		}
	}
	if (opts->compare != CMP_ARG_CAPTURES && (app->digests = digest_open_summaries(path))) {
		app->cap = (struct capture *)app->digests->cap;
	} else {
		app->cap = capture_open(path, &opts->capture);
	}
	if (opts->compare == CMP_ARG_CAPTURES)
		app->cap_b = capture_open(opts->compare_path, &opts->capture);
	if (!app->cap->usable || (app->cap_b && !app->cap_b->usable)) {
		/* nothing to explore: say why, as the report would, and leave */
		summary_print_diags(&app->cap->diags, stderr, "");
		if (app->cap_b)
			summary_print_diags(&app->cap_b->diags, stderr, "");
		fputs(_("ascprof-tui: nothing to load here\n"), stderr);
		if (app->digests)
			analysis_free(app->digests);
		else
			capture_free(app->cap);
		capture_free(app->cap_b);
		script_free(sc);
		free(app);
		return 1;
	}
	if (term_open(opts->mode, opts->term_out, opts->width, opts->height) != 0) {
		if (app->digests)
			analysis_free(app->digests);
		else
			capture_free(app->cap);
		capture_free(app->cap_b);
		script_free(sc);
		free(app);
		return 1;
	}
	const char *bench_path = getenv("ASCPROF_BENCH_OUT");
	if (bench_path && opts->script && !(app->bench = fopen(bench_path, "w")))
		fprintf(stderr, _("ascprof-tui: cannot write %s: %s\n"), bench_path, strerror(errno));
	canvas_init(&app->cv, 80, 24);
	app->stack[0] = first_view(app);
	app->depth = 1;
	app->align = ALIGN_COLLECTIVE;
	app->loader_started = pthread_create(&app->loader, NULL, loader_main, app) == 0;
	if (!app->loader_started)
		loader_main(app);
	app->dirty = true;
	double last_progress = 0;
	while (!app->quit && !term_quit_signal) {
		publish_check(app);
		bool loading = !app_pub(app);
		if (loading && now_s() - last_progress > 0.1) {
			last_progress = now_s();
			app->dirty = true;
		}
		if (app->dirty) {
			/* headless too: views settle their layout (scroll positions) as they draw,
			 * so a dump must see the same sequence of frames a terminal would */
			render(app);
			if (opts->mode != TERM_HEADLESS)
				term_draw(&app->cv);
			app->dirty = false;
		}
		int key;
		if (sc) {
			key = script_next_key(app, sc);
			if (key < 0)
				break;
			if (app->bench) {
				/* a key's cost as a user sees it: its handling and the next frame */
				double a = now_s();
				handle_key(app, key);
				render(app);
				fprintf(app->bench, "key %s ms %.3f\n", actions_key_name(key), (now_s() - a) * 1e3);
				continue;
			}
		} else {
			key = term_key(loading ? 100 : 1000);
			if (key < 0)
				continue;
		}
		handle_key(app, key);
	}
	term_close();
	int rc = term_quit_signal ? 128 + term_quit_signal : 0;
	if (app->loader_started) {
		if (app_pub(app)) {
			pthread_join(app->loader, NULL);
		} else {
			/* Q during loading quits at once: the loader may be deep in a trace or, once
			 * the capture is loaded (cap->done), in the analysis and the LOD indexes,
			 * which it publishes only at the end; the process is ending anyway */
			atomic_store(&app->cap->cancel, true);
			if (app->cap_b)
				atomic_store(&app->cap_b->cancel, true);
			_exit(rc);
		}
	}
	struct published *pub = atomic_load(&app->pub);
	for (int v = 0; v < VIEW_COUNT; v++)
		if (app->view_state[v])
			view_table[v]->destroy(app->view_state[v]);
	if (pub) {
		compare_free(pub->cmp);
		free_lods(app->cap, pub->lods);
		analysis_free(pub->an);
		if (app->cap_b) {
			free_lods(app->cap_b, pub->lods_b);
			analysis_free(pub->an_b);
		}
		free(pub);
	}
	canvas_free(&app->cv);
	if (!app->digests) /* else freed with its analysis */
		capture_free(app->cap);
	capture_free(app->cap_b);
	script_free(sc);
	if (app->bench)
		fclose(app->bench);
	free(app);
	return rc;
}
