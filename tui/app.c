/* SPDX-License-Identifier: MIT */
/* The explorer's core: the view table and stack, the accessors views read the model
 * through, the title and status bars, key dispatch and the main loop. Its other parts:
 * loader.c (the loader thread), prompt.c (the prompt line and `:` commands), driver.c
 * (headless scripts and benchmarks), listbox.c (list behaviour). */
#include "config.h"
#include "app.h"
#include "app_parts.h"

#include <curses.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "i18n.h"
#include "digest.h"
#include "driver.h"
#include "loader.h"
#include "prompt.h"
#include "script.h"
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

const struct view_ops *app_view_ops(enum view_id v) { return view_table[v]; }

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
		app->view_state[v] = view_table[v]->create(app);
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
	if (view_table[v]->update)
		view_table[v]->update(st, app);
	app->dirty = true;
}

void app_open(struct app *app, enum view_id v, const struct view_target *target)
{
	const struct view_ops *vo = view_table[v];
	if (target && vo->open)
		vo->open(app_view_state(app, v), app, target);
	app_push(app, v);
}

void app_refresh_views(struct app *app)
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

void app_search_matches(struct app *app, size_t k, size_t n)
{
	(void)app;
	listbox_set_matches(k, n);
}

void app_publish_check(struct app *app)
{
	const struct published *pub = app_pub(app);
	if (pub != app->seen) {
		app->seen = pub;
		app_refresh_views(app);
		if (app->bench && pub)
			driver_bench_published(app, pub);
	}
}

/* ---- drawing ------------------------------------------------------------------------ */

static const char *view_title(enum view_id v) { return view_table[v]->title; }

/* The views in the tab bar and the Tab cycle: the numbered ones, then the Cluster view
 * (key 0). Returns how many, filled into ids. */
static int tab_views(const struct app *app, enum view_id ids[VIEW_COUNT])
{
	int n = 0;
	for (int v = 0; v < main_views(app); v++)
		ids[n++] = (enum view_id)v;
	ids[n++] = VIEW_CLUSTER;
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
		int key = ids[k] == VIEW_CLUSTER ? 0 : (int)ids[k] + 1;
		snprintf(tabs[k], sizeof tabs[k], " %d %s ", key, _(view_title(ids[k])));
		snprintf(shorts[k], sizeof shorts[k], " %d ", key);
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
		const char *hint = view_table[app_top_view(app)]->hint;
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
	view_table[v]->draw(app_view_state(app, v), app, cv, 0, 1, w, h - 2);
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
	enum view_id v = app_top_view(app);
	const struct view_ops *vo = view_table[v];
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
			prompt_search(app, app->last_search, act == ACT_SEARCH_NEXT ? 1 : -1);
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
		app_message(app, ST_NORMAL, _("alignment: %s"), analysis_align_name(app->align));
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

/* ---- main loop ---------------------------------------------------------------------- */

/* An app that never started (no terminal, nothing to load): its captures and script. */
static void free_unstarted(struct app *app, struct script *sc)
{
	if (app->digests)
		analysis_free(app->digests);
	else
		capture_free(app->cap);
	capture_free(app->cap_b);
	script_free(sc);
	free(app);
}

int app_main(const char *path, const struct app_opts *opts)
{
	struct app *app = xcalloc(1, sizeof *app);
	app->opts = *opts;
	app->t_start = app_clock();
	struct script *sc = NULL;
	if (opts->script) {
		sc = script_load(opts->script);
		if (!sc) {
			free(app);
			return 2;
		}
	}
	/* the Timeline draws a rank without a trace from its tables: made as it loads */
	struct capture_opts copts = opts->capture;
	copts.timelines = true;
	if (opts->compare != CMP_ARG_CAPTURES && (app->digests = analysis_open_summaries(path))) {
		app->cap = (struct capture *)app->digests->cap;
	} else {
		app->cap = capture_open(path, &copts);
	}
	if (opts->compare == CMP_ARG_CAPTURES)
		app->cap_b = capture_open(opts->compare_path, &copts);
	if (!app->cap->usable || (app->cap_b && !app->cap_b->usable)) {
		/* nothing to explore: say why, as the report would, and leave */
		summary_print_diags(&app->cap->diags, stderr, "");
		if (app->cap_b)
			summary_print_diags(&app->cap_b->diags, stderr, "");
		fputs(_("ascprof-tui: nothing to load here\n"), stderr);
		free_unstarted(app, sc);
		return 1;
	}
	if (term_open(opts->mode, opts->term_out, opts->width, opts->height) != 0) {
		free_unstarted(app, sc);
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
		app_publish_check(app);
		bool loading = !app_pub(app);
		if (loading && app_clock() - last_progress > 0.1) {
			last_progress = app_clock();
			app->dirty = true;
		}
		if (app->dirty) {
			/* headless too: views settle their layout (scroll positions) as they draw,
			 * so a dump must see the same sequence of frames a terminal would */
			app_render(app);
			if (opts->mode != TERM_HEADLESS)
				term_draw(&app->cv);
			app->dirty = false;
		}
		int key;
		if (sc) {
			key = driver_next_key(app, sc);
			if (key < 0)
				break;
			if (app->bench) {
				/* a key's cost as a user sees it: its handling and the next frame */
				double a = app_clock();
				handle_key(app, key);
				app_render(app);
				fprintf(app->bench, "key %s ms %.3f\n", actions_key_name(key), (app_clock() - a) * 1e3);
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
	struct tindex_defer *defer = opts->capture.index.defer;
	if (app->loader_started) {
		if (app_pub(app)) {
			/* the terminal is the user's again; the loader may still be writing the
			 * indexes (after publication): q lets it finish, so the next open has them;
			 * a signal, now or while it writes, abandons them (no index, no partial one:
			 * the temporary file goes) */
			double t0 = app_clock();
			bool said = false;
			while (!atomic_load_explicit(&app->loader_done, memory_order_acquire)) {
				if (term_quit_signal)
					tindex_defer_abandon(defer);
				if (!said && !term_quit_signal && app_clock() - t0 > 0.5 && isatty(STDERR_FILENO)) {
					/* the prompt does not come back at once: say why */
					fputs(_("ascprof-tui: finishing this capture's indexes (Ctrl-C leaves them unwritten)\n"),
					      stderr);
					said = true;
				}
				usleep(5000);
			}
			pthread_join(app->loader, NULL);
			if (term_quit_signal)
				rc = 128 + term_quit_signal;
			if (defer)
				summary_print_diags(tindex_defer_failures(defer), stderr, "");
			if (app->bench)
				fprintf(app->bench, "index_write_ms %.1f\n", app->index_write_s * 1e3);
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
	for (int v = 0; v < VIEW_COUNT; v++)
		if (app->view_state[v])
			view_table[v]->destroy(app->view_state[v]);
	loader_free_published(app, atomic_load(&app->pub));
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
