/* SPDX-License-Identifier: MIT */
/* The explorer's main loop (mainloop.h): the top of the explorer's parts, the one that
 * calls the others. It opens the capture, gives the app its view table, starts the
 * loader thread, then takes what it publishes, draws frames and dispatches keys (to the
 * prompt line while it is open, else to the app), until q or a signal; then waits for the
 * index writes and frees it all. */
#include "config.h"
#include "mainloop.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_parts.h"
#include "digest.h"
#include "driver.h"
#include "i18n.h"
#include "loader.h"
#include "prompt.h"
#include "script.h"
#include "summary.h"
#include "xalloc.h"

/* The view table, given to the app (app_start_views): the app reaches views only
 * through it, so it never names one. */
static const struct view_ops *const view_table[VIEW_COUNT] = {
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
	[VIEW_SERVING] = &serving_view_ops,
	[VIEW_MOE] = &moe_view_ops,
};

/* A key: the prompt line's while it is open, else the app's. Either clears the status
 * line's message first. */
static void mainloop_key(struct app *app, int key)
{
	app->message[0] = '\0';
	if (app->prompt_kind)
		prompt_key(app, key);
	else
		app_handle_key(app, key);
}

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

int mainloop_run(const char *path, const struct app_opts *opts)
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
	app_start_views(app, view_table);
	app->loader_started = pthread_create(&app->loader, NULL, loader_main, app) == 0;
	if (!app->loader_started)
		loader_main(app);
	app->dirty = true;
	double last_progress = 0;
	while (!app->quit && !term_quit_signal) {
		driver_publish_check(app);
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
				mainloop_key(app, key);
				app_render(app);
				fprintf(app->bench, "key %s ms %.3f\n", actions_key_name(key), (app_clock() - a) * 1e3);
				continue;
			}
		} else {
			key = term_key(loading ? 100 : 1000);
			if (key < 0)
				continue;
		}
		mainloop_key(app, key);
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
	app_end_views(app);
	loader_free_published(app, atomic_load(&app->pub));
	if (!app->digests) /* else freed with its analysis */
		capture_free(app->cap);
	capture_free(app->cap_b);
	script_free(sc);
	if (app->bench)
		fclose(app->bench);
	free(app);
	return rc;
}
