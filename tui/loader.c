/* SPDX-License-Identifier: MIT */
/* The loader thread (loader.h). */
#include "loader.h"

#include <stdio.h>
#include <stdlib.h>

#include "app_parts.h"
#include "xalloc.h"

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

void *loader_main(void *arg)
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
		app->t_loaded = app->t_analysed = app->t_indexed = app_clock() - app->t_start;
		atomic_store_explicit(&app->pub, pub, memory_order_release);
		return NULL;
	}
	capture_load(app->cap);
	if (app->cap_b && !atomic_load(&app->cap->cancel))
		capture_load(app->cap_b);
	if (atomic_load(&app->cap->cancel))
		return NULL;
	app->t_loaded = app_clock() - app->t_start;
	struct published *pub = xcalloc(1, sizeof *pub);
	pub->an = analyse_and_index(app->cap, &pub->lods);
	if (app->cap_b)
		pub->an_b = analyse_and_index(app->cap_b, &pub->lods_b);
	app->t_analysed = app_clock() - app->t_start;
	if (app->cap_b) {
		pub->cmp = compare_captures(pub->an, pub->an_b);
	} else if (app->opts.compare == CMP_ARG_RANKS) {
		const int *r = app->opts.compare_ranks;
		pub->cmp = compare_ranks(pub->an, r[0], r[1]);
		if (!pub->cmp)
			snprintf(pub->cmp_error, sizeof pub->cmp_error, _("no comparison: rank %d or %d is not in the capture"),
				 r[0], r[1]);
	}
	app->t_indexed = app_clock() - app->t_start;
	atomic_store_explicit(&app->pub, pub, memory_order_release);
	return NULL;
}

void loader_free_published(struct app *app, struct published *pub)
{
	if (!pub)
		return;
	compare_free(pub->cmp);
	free_lods(app->cap, pub->lods);
	analysis_free(pub->an);
	if (app->cap_b) {
		free_lods(app->cap_b, pub->lods_b);
		analysis_free(pub->an_b);
	}
	free(pub);
}
