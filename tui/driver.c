/* SPDX-License-Identifier: MIT */
/* The headless script driver and the benchmarks' figures (driver.h). */
#include "driver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_parts.h"
#include "stagetime.h"
#include "xalloc.h"

/* The load's figures, once the loader has published pub. */
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
	fprintf(app->bench, "result_cpu_ms %.1f\n", app->cpu_indexed * 1e3);
	fprintf(app->bench, "events %zu\nlanes %zu\nops %zu\nstore_bytes %zu\n", events, lanes, ops,
		store);
	fprintf(app->bench, "analysis_index %s\n", tindex_state_name(pub->an_index));
	fprintf(app->bench, "timeline_index %s\n", tindex_state_name(pub->tl_index));
	stagetime_print(app->bench);
}

void driver_publish_check(struct app *app)
{
	if (app_publish_check(app) && app->bench && app->seen)
		bench_published(app, app->seen);
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
		double a = app_clock();
		app_render(app);
		t[i] = app_clock() - a;
	}
	xqsort(t, (size_t)n, sizeof *t, cmp_double);
	if (app->bench)
		fprintf(app->bench, "frame %s median_ms %.3f max_ms %.3f since_start_ms %.1f\n", label,
			t[n / 2] * 1e3, t[n - 1] * 1e3, (app_clock() - app->t_start) * 1e3);
	free(t);
}

static void dump_screen(struct app *app, const char *path)
{
	app_render(app);
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
	driver_publish_check(app);
}

/* Executes script steps until one produces a key; returns the key or -1 at the end. */
int driver_next_key(struct app *app, struct script *sc)
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
			driver_publish_check(app);
			bench_frames(app, step.arg, step.w);
			break;
		}
	}
}
