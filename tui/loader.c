/* SPDX-License-Identifier: MIT */
/* The loader thread (loader.h). */
#include "loader.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "app_parts.h"
#include "digest.h"
#include "xalloc.h"
#include "xthread.h"

/* A rank's timeline index, built by the analysis as soon as the rank's events are
 * classified (each rank writes only its own slot). */
static void build_lod(void *ctx, size_t rank_index, const struct rank_store *rs, const struct ev_class *cls)
{
	struct lane_lod **lods = ctx;
	lods[rank_index] = lod_build(rs, cls);
}

struct reclassify {
	const struct capture *cap;
	struct analysis *an;
	struct lane_lod **lods;
	_Atomic size_t next;
};

/* A rank of an analysis read from the index: its classes and its timeline index again
 * (the analysis' figures are the index's; the views need every event's class). */
static void *reclassify_ranks(void *arg)
{
	struct reclassify *rc = arg;
	for (;;) {
		size_t j = atomic_fetch_add(&rc->next, 1);
		if (j >= rc->an->n_ranks)
			return NULL;
		struct rank_analysis *ra = &rc->an->ranks[j];
		const struct rank_store *rs = &rc->cap->ranks[ra->rank_index].store;
		if (ra->cls || !rs->has_events)
			continue;
		ra->cls = xmalloc((rs->n_ev ? rs->n_ev : 1) * sizeof *ra->cls);
		category_classify(rs, ra->cls);
		rc->lods[ra->rank_index] = lod_build(rs, ra->cls);
	}
}

/* The analysis of a capture, with the timeline index of every rank that has a trace:
 * from the index cache when it holds the analysis (analysis_index_run), which leaves the
 * classes and the timeline index to make here. */
static struct analysis *analyse_and_index(struct capture *cap, struct lane_lod ***lods, enum tindex_state *state)
{
	*lods = xcalloc(cap->n_ranks ? cap->n_ranks : 1, sizeof **lods);
	struct analysis_hook hook = {.classified = build_lod, .ctx = *lods};
	struct tindex_status st;
	struct analysis *an = analysis_index_run(cap, &hook, &st);
	*state = st.state;
	if (st.state != TINDEX_USED)
		return an; /* analysed here: the hook built the timeline index */
	capture_verify_columns(cap); /* the classes read the columns */
	struct reclassify rc = {.cap = cap, .an = an, .lods = *lods};
	atomic_init(&rc.next, 0);
	struct xthread helper;
	xthread_start(&helper, reclassify_ranks, &rc, an->n_ranks > 1 && xthread_cpus() > 1);
	reclassify_ranks(&rc);
	xthread_join(&helper);
	return an;
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
	pub->an = analyse_and_index(app->cap, &pub->lods, &pub->an_index);
	if (app->cap_b)
		pub->an_b = analyse_and_index(app->cap_b, &pub->lods_b, &(enum tindex_state){0});
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
