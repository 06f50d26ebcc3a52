/* SPDX-License-Identifier: MIT */
/* The explorer's core: the view stack over the view table the main loop gives it, the
 * accessors views read the model through, the title and status bars, key dispatch and
 * search. It sits below its other parts and never calls them: mainloop.c (the loop,
 * start and end), loader.c (the loader thread), prompt.c (the prompt line), commands.c
 * (the `:` commands), driver.c (headless scripts and benchmarks) call into it. */
#include "config.h"
#include "app.h"
#include "app_parts.h"

#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "i18n.h"
#include "summary.h"

#define MIN_W 60
#define MIN_H 12

const struct view_ops *app_view_ops(const struct app *app, enum view_id v) { return app->views[v]; }

double app_clock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const struct capture *app_capture(const struct app *app) { return app->cap; }

size_t app_rank_count(const struct app *app) { return app->cap->n_ranks; }

const struct rank_data *app_rank_data_of(const struct app *app, size_t rank_index)
{
	return &app->cap->ranks[rank_index];
}

int app_event_args(const struct rank_store *rs, size_t ev, struct sbuf *out) { return capture_event_args(rs, ev, out); }

const struct service_analysis *app_service(const struct app *app)
{
	const struct published *pub = app_pub(app);
	return pub && pub->an ? pub->an->service : NULL;
}

const struct serving *app_serving(const struct app *app)
{
	/* published: the capture is loaded, its serving output read */
	return app_pub(app) ? app->cap->serving : NULL;
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

void *app_view_state(struct app *app, enum view_id v)
{
	if (!app->view_state[v])
		app->view_state[v] = app->views[v]->create(app);
	return app->view_state[v];
}

enum view_id app_top_view(const struct app *app) { return app->stack[app->depth - 1]; }

/* The view the explorer starts on, where q quits (as in htop, tig and less). */
static enum view_id first_view(const struct app *app) { return app_comparing(app) ? VIEW_COMPARE : VIEW_OVERVIEW; }

static bool at_first_view(const struct app *app) { return app->depth == 1 && app_top_view(app) == first_view(app); }


/* The numbered views: the Compare view is the ninth, in compare mode only. */
static int main_views(const struct app *app) { return VIEW_MAIN_COUNT + app_comparing(app); }

void app_push(struct app *app, enum view_id v)
{
	void *st = app_view_state(app, v);
	if (app->depth && app_top_view(app) == v)
		return;
	/* a view reached again is not a new level: the history goes back to where it stood
	 * (so it holds each view once, and the first view, always at the bottom, is reached
	 * again as the root: q there quits, as at the start) */
	for (int i = 0; i < app->depth; i++)
		if (app->stack[i] == v) {
			app->depth = i;
			break;
		}
	if (app->depth == (int)(sizeof app->stack / sizeof app->stack[0])) {
		memmove(&app->stack[0], &app->stack[1], (size_t)(app->depth - 1) * sizeof app->stack[0]);
		app->depth--;
	}
	app->stack[app->depth++] = v;
	if (app->views[v]->update)
		app->views[v]->update(st, app);
	app->dirty = true;
}

void app_open(struct app *app, enum view_id v, const struct view_target *target)
{
	const struct view_ops *vo = app->views[v];
	if (target && vo->open)
		vo->open(app_view_state(app, v), app, target);
	app_push(app, v);
}

void app_refresh_views(struct app *app)
{
	for (int v = 0; v < VIEW_COUNT; v++)
		if (app->view_state[v] && app->views[v]->update)
			app->views[v]->update(app->view_state[v], app);
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

void app_search_matches(struct app *app, size_t k, size_t n)
{
	(void)app;
	listbox_set_matches(k, n);
}

bool app_publish_check(struct app *app)
{
	const struct published *pub = app_pub(app);
	if (pub == app->seen)
		return false;
	app->seen = pub;
	app_refresh_views(app);
	return true;
}

void app_search(struct app *app, const char *text, int dir)
{
	enum view_id v = app_top_view(app);
	const struct view_ops *vo = app->views[v];
	if (dir == 0)
		snprintf(app->last_search, sizeof app->last_search, "%s", text);
	listbox_set_matches(0, 0);
	size_t match_k, match_n;
	if (!vo->search) {
		app_message(app, ST_WARN, _("%s has no search"), _(vo->title));
	} else if (!vo->search(app_view_state(app, v), app, text, dir)) {
		app_message(app, ST_WARN, dir ? _("no more matches for %s") : _("no match for %s"), text);
	} else if (listbox_matches(&match_k, &match_n), match_n) {
		app_message(app, ST_NORMAL, _("match %zu of %zu for %s"), match_k, match_n, text);
	}
}

/* ---- drawing ------------------------------------------------------------------------ */

static const char *view_title(const struct app *app, enum view_id v) { return app->views[v]->title; }

/* The views in the tab bar and the Tab cycle: the numbered ones, then the Cluster view
 * (key 0), then the Serving view (key V) when the capture holds serving output. Returns
 * how many, filled into ids. */
static int tab_views(const struct app *app, enum view_id ids[VIEW_COUNT])
{
	int n = 0;
	for (int v = 0; v < main_views(app); v++)
		ids[n++] = (enum view_id)v;
	ids[n++] = VIEW_CLUSTER;
	if (app_serving(app))
		ids[n++] = VIEW_SERVING;
	return n;
}

static void draw_title(struct app *app, struct canvas *cv)
{
	canvas_fill(cv, 0, 0, cv->w, 1, ' ', ST_TITLE);
	enum view_id cur = app_top_view(app), ids[VIEW_COUNT];
	int n = tab_views(app, ids);
	char tabs[VIEW_COUNT][48], shorts[VIEW_COUNT][16], r[96] = "";
	int tabs_w = 0, rw = 0;
	for (int k = 0; k < n; k++) {
		char key[16] = "V";
		if (ids[k] != VIEW_SERVING)
			snprintf(key, sizeof key, "%d", ids[k] == VIEW_CLUSTER ? 0 : (int)ids[k] + 1);
		snprintf(tabs[k], sizeof tabs[k], " %s %s ", key, _(view_title(app, ids[k])));
		snprintf(shorts[k], sizeof shorts[k], " %s ", key);
		tabs_w += canvas_width(tabs[k]);
	}
	if (app->cap->n_ranks) {
		const struct rank_plan *rp = app->cap->ranks[app->rank].plan;
		snprintf(r, sizeof r, _(" rank %d (%zu/%zu) "), rp->rank, app->rank + 1, app->cap->n_ranks);
		rw = canvas_width(r);
	}
	/* the program's name gives way first, then the tabs' titles from the last one on (their
	 * keys stay, and the current tab's title), so that every key and the rank fit */
	static const char name[] = " ascprof-tui ";
	int x = 0;
	bool full[VIEW_COUNT];
	for (int k = 0; k < n; k++)
		full[k] = true;
	if (canvas_width(name) + tabs_w + rw <= cv->w)
		x = canvas_text(cv, 0, 0, cv->w, ST_TITLE, name);
	for (int k = n - 1; k >= 0 && tabs_w + rw > cv->w; k--)
		if (ids[k] != cur) {
			full[k] = false;
			tabs_w -= canvas_width(tabs[k]) - canvas_width(shorts[k]);
		}
	for (int k = 0; k < n && x < cv->w; k++)
		x += canvas_text(cv, x, 0, cv->w - x, ids[k] == cur ? ST_TAB : ST_TITLE, full[k] ? tabs[k] : shorts[k]);
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
		const char *hint = app->views[app_top_view(app)]->hint;
		snprintf(left, sizeof left, "%s", hint ? _(hint) : "");
	}
	const char *keys = at_first_view(app) ? _("? help  q quit ") : _("? help  q back  Q quit ");
	int kw = canvas_width(keys);
	canvas_text(cv, 1, y, cv->w - kw - 2, st, left);
	canvas_text_right(cv, cv->w - kw, y, kw, ST_STATUS, keys);
}

void app_render(struct app *app)
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
	enum view_id v = app_top_view(app);
	app->views[v]->draw(app_view_state(app, v), app, cv, 0, 1, w, h - 2);
	draw_status(app, cv);
	app->frames++;
}

/* ---- key dispatch ------------------------------------------------------------------- */

static void close_view(struct app *app, int key)
{
	if (key == 27 && at_first_view(app))
		return; /* Esc never quits: it is pressed to get out of things */
	if (app->depth > 1)
		app->depth--;
	else if (app_top_view(app) != first_view(app))
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
	app_refresh_views(app);
}

void app_handle_key(struct app *app, int key)
{
	if (key == KEYCODE_FN(KEY_RESIZE)) {
		/* the terminal may have cleared or reflowed what it showed (a storm of resizes
		 * coalesces into one KEY_RESIZE): repaint every cell, not just the changes */
		if (app->opts.mode == TERM_REAL)
			clearok(curscr, TRUE);
		app->dirty = true;
		return;
	}
	enum view_id v = app_top_view(app);
	const struct view_ops *vo = app->views[v];
	enum action act = actions_lookup(key, vo->scopes | KS_GLOBAL);
	if (act == ACT_NONE) {
		app_message(app, ST_DIM, _("%s: no action here (? for help)"), actions_key_name(key));
		return;
	}
	/* the view first: it may give a global key its own meaning */
	if (vo->handle && act != ACT_QUIT && vo->handle(app_view_state(app, v), app, act) == VH_HANDLED) {
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
			app_search(app, app->last_search, act == ACT_SEARCH_NEXT ? 1 : -1);
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
	case ACT_VIEW_SERVING: app_push(app, VIEW_SERVING); break;
	case ACT_VIEW_MOE: app_push(app, VIEW_MOE); break;
	case ACT_VIEW_COMPARE:
		if (app_comparing(app))
			app_push(app, VIEW_COMPARE);
		else
			app_message(app, ST_WARN, _("no comparison: start with --compare BEFORE AFTER or --compare-ranks R1 R2"));
		break;
	case ACT_NEXT_VIEW:
	case ACT_PREV_VIEW: { /* the tab bar's order, the Cluster view last */
		enum view_id ids[VIEW_COUNT];
		int n = tab_views(app, ids), cur = 0;
		for (int k = 0; k < n; k++)
			if (ids[k] == v)
				cur = k;
		app_push(app, ids[(cur + (act == ACT_NEXT_VIEW ? 1 : n - 1)) % n]);
		break;
	}
	case ACT_NEXT_RANK: change_rank(app, 1); break;
	case ACT_PREV_RANK: change_rank(app, -1); break;
	case ACT_ALIGN_MODE:
		app->align = (enum align_mode)((app->align + 1) % ALIGN_COUNT);
		app_message(app, ST_NORMAL, _("alignment: %s"), result_align_name(app->align));
		app_refresh_views(app);
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

/* ---- start and end ------------------------------------------------------------------ */

void app_start_views(struct app *app, const struct view_ops *const *views)
{
	app->views = views;
	canvas_init(&app->cv, 80, 24);
	app->stack[0] = first_view(app);
	app->depth = 1;
	app->align = ALIGN_COLLECTIVE;
}

void app_end_views(struct app *app)
{
	for (int v = 0; v < VIEW_COUNT; v++)
		if (app->view_state[v])
			app->views[v]->destroy(app->view_state[v]);
	canvas_free(&app->cv);
}
