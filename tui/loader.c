/* SPDX-License-Identifier: MIT */
/* The loader thread (loader.h). */
#include "loader.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#ifdef __linux__
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "app_parts.h"
#include "digest.h"
#include "stagetime.h"
#include "xalloc.h"
#include "xthread.h"

/* A rank's timeline index, built by the analysis as soon as the rank's events are
 * classified (each rank writes only its own slot). */
static void build_lod(void *ctx, size_t rank_index, const struct rank_store *rs, const struct ev_class *cls)
{
	struct lane_lod **lods = ctx;
	lods[rank_index] = lod_build(rs, cls);
}

/* A rank's classes and timeline index for the index cache: the ones made already (a
 * first open's, by the analysis and its hook), else made here. */
struct tl_make {
	const struct rank_store *rs;
	struct ev_class *cls;  /* NULL: classify here */
	struct lane_lod *lods; /* NULL: build here */
};

static char *make_timeline(void *ctx, size_t *len, struct sbuf *why)
{
	(void)why;
	struct tl_make *m = ctx;
	if (!m->cls) {
		m->cls = xmalloc((m->rs->n_ev ? m->rs->n_ev : 1) * sizeof *m->cls);
		category_classify(m->rs, m->cls);
	}
	if (!m->lods)
		m->lods = lod_build(m->rs, m->cls);
	return lod_pack(m->rs, m->cls, m->lods, len);
}

/* A rank's timeline index through the index cache, keyed by the rank's trace files as its
 * trace index (so an edited trace rebuilds it); only for a store that is the indexed one
 * (read from or written to its trace index). With ra->cls and *lod made (a first open),
 * writes them when no index holds them; else reads them from the index (the classes and
 * the lanes' arrays used in place, in blob) or makes and writes them. */
static void timeline_through_index(struct capture *cap, struct rank_analysis *ra, struct lane_lod **lod,
				   struct tindex_blob *blob, enum tindex_state *state)
{
	const struct rank_data *rd = &cap->ranks[ra->rank_index];
	const struct rank_store *rs = &rd->store;
	struct tl_make m = {.rs = rs, .cls = ra->cls, .lods = *lod};
	enum tindex_state ts = rd->index.state;
	const char **paths = xcalloc(rd->plan->n_files ? rd->plan->n_files : 1, sizeof *paths);
	size_t n = 0;
	for (size_t i = 0; i < rd->plan->n_files; i++)
		if (rd->plan->files[i].role == ROLE_TRACE)
			paths[n++] = rd->plan->files[i].path;
	struct tindex_status st = {.state = TINDEX_OFF};
	if (n && (ts == TINDEX_USED || ts == TINDEX_WRITTEN || ts == TINDEX_REBUILT) &&
	    tindex_map_blob(blob, "timeline 1", paths, n, make_timeline, &m, &cap->opts.index, &st,
			    &cap->diags)) {
		const struct ev_class *cls = NULL;
		struct lane_lod *mapped = blob->from_index && !m.lods ? lod_unpack(rs, blob->bytes, blob->len, &cls) : NULL;
		if (mapped) {
			ra->cls = (struct ev_class *)cls; /* read-only mapping: never written */
			ra->cls_mapped = true;
			*lod = mapped;
		} else {
			/* made here (kept in m), or made already: the index's copy is not needed */
			if (blob->from_index && !m.lods)
				st.state = TINDEX_NOT_WRITTEN; /* it did not hold together for this store */
			tindex_blob_free(blob);
		}
	}
	free(paths);
	if (!*lod) { /* m's, or made now when no index was asked */
		if (!m.cls) {
			m.cls = xmalloc((rs->n_ev ? rs->n_ev : 1) * sizeof *m.cls);
			category_classify(rs, m.cls);
		}
		ra->cls = m.cls;
		*lod = m.lods ? m.lods : lod_build(rs, m.cls);
	}
	*state = st.state;
}

struct reclassify {
	struct capture *cap;
	struct analysis *an;
	struct lane_lod **lods;
	struct tindex_blob *blobs;
	enum tindex_state *states; /* per capture rank */
	_Atomic size_t next;
};

/* The ranks' timeline indexes through the index cache (and on a reopen the classes: the
 * analysis' figures are the index's; the views need every event's class). */
static void *timeline_ranks(void *arg)
{
	struct reclassify *rc = arg;
	for (;;) {
		size_t j = atomic_fetch_add(&rc->next, 1);
		if (j >= rc->an->n_ranks)
			return NULL;
		struct rank_analysis *ra = &rc->an->ranks[j];
		if (!rc->cap->ranks[ra->rank_index].store.has_events)
			continue;
		size_t ri = ra->rank_index;
		timeline_through_index(rc->cap, ra, &rc->lods[ri], &rc->blobs[ri], &rc->states[ri]);
	}
}

/* How the ranks' timeline indexes served, together: any rebuilt, written or not written
 * says so; USED when every one was read from the index. */
static enum tindex_state timeline_state(const enum tindex_state *v, size_t n)
{
	static const enum tindex_state order[] = {TINDEX_REBUILT, TINDEX_NOT_WRITTEN, TINDEX_WRITTEN, TINDEX_USED};
	for (size_t o = 0; o < sizeof order / sizeof *order; o++)
		for (size_t i = 0; i < n; i++)
			if (v[i] == order[o])
				return order[o];
	return TINDEX_OFF;
}

/* The analysis of a capture, with the timeline index of every rank that has a trace:
 * from the index cache when it holds the analysis (analysis_index_run), which leaves the
 * classes and the timeline index to read from their own index or make here. */
static struct analysis *analyse_and_index(struct capture *cap, struct lane_lod ***lods, struct tindex_blob **blobs,
					  enum tindex_state *state, enum tindex_state *tl_state)
{
	*lods = xcalloc(cap->n_ranks ? cap->n_ranks : 1, sizeof **lods);
	*blobs = xcalloc(cap->n_ranks ? cap->n_ranks : 1, sizeof **blobs);
	struct analysis_hook hook = {.classified = build_lod, .ctx = *lods};
	struct tindex_status st;
	struct analysis *an = analysis_index_run(cap, &hook, &st);
	*state = st.state;
	if (st.state == TINDEX_USED)
		capture_verify_columns(cap); /* the classes and the index read the columns */
	enum tindex_state *states = xcalloc(cap->n_ranks ? cap->n_ranks : 1, sizeof *states);
	struct reclassify rc = {.cap = cap, .an = an, .lods = *lods, .blobs = *blobs, .states = states};
	atomic_init(&rc.next, 0);
	struct xthread helper;
	xthread_start(&helper, timeline_ranks, &rc, an->n_ranks > 1 && xthread_cpus() > 1);
	timeline_ranks(&rc);
	xthread_join(&helper);
	*tl_state = timeline_state(states, cap->n_ranks);
	free(states);
	return an;
}

static void free_blobs(const struct capture *cap, struct tindex_blob *blobs)
{
	for (size_t i = 0; blobs && i < cap->n_ranks; i++)
		tindex_blob_free(&blobs[i]);
	free(blobs);
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
		atomic_store_explicit(&app->loader_done, true, memory_order_release);
		return NULL;
	}
	capture_load(app->cap);
	if (app->cap_b && !atomic_load(&app->cap->cancel))
		capture_load(app->cap_b);
	if (atomic_load(&app->cap->cancel))
		return NULL;
	app->t_loaded = app_clock() - app->t_start;
	struct published *pub = xcalloc(1, sizeof *pub);
	pub->an = analyse_and_index(app->cap, &pub->lods, &pub->tl_blobs, &pub->an_index, &pub->tl_index);
	if (app->cap_b)
		pub->an_b = analyse_and_index(app->cap_b, &pub->lods_b, &pub->tl_blobs_b, &(enum tindex_state){0},
					      &(enum tindex_state){0});
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
	app->cpu_indexed = stagetime_cpu();
	atomic_store_explicit(&app->pub, pub, memory_order_release);
	/* the indexes, now that the views have what they show: read-only, the store, the
	 * tables and the blobs they read are never changed after publication */
	struct tindex_defer *defer = app->opts.capture.index.defer;
	if (defer && tindex_defer_pending(defer)) {
#ifdef __linux__
		/* this thread only (Linux's nice is per thread): the views' frames come first */
		setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
#endif
		double t0 = app_clock();
		tindex_defer_run(defer);
		app->index_write_s = app_clock() - t0;
	}
	atomic_store_explicit(&app->loader_done, true, memory_order_release);
	return NULL;
}

void loader_free_published(struct app *app, struct published *pub)
{
	if (!pub)
		return;
	compare_free(pub->cmp);
	free_lods(app->cap, pub->lods);
	analysis_free(pub->an);
	free_blobs(app->cap, pub->tl_blobs); /* after what points into them */
	if (app->cap_b) {
		free_lods(app->cap_b, pub->lods_b);
		analysis_free(pub->an_b);
		free_blobs(app->cap_b, pub->tl_blobs_b);
	}
	free(pub);
}
