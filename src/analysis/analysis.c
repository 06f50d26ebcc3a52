/* SPDX-License-Identifier: MIT */
/* The driver: each rank's stages in order (some beside each other on a helper thread),
 * ranks on a pool of threads, then the capture-level passes, published as one analysis. */
#include "analysis.h"
#include "cluster_db.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "i18n.h"
#include "metrics.h"
#include "rank_sets.h"
#include "stagetime.h"
#include "xalloc.h"
#include "xthread.h"

struct rank_stage {
	const struct capture *cap;
	size_t ri;
	struct rank_analysis *ra;
	struct diag_list *dl;
	bool threaded;
};
/* Figures from the CSV tables alone (kernel PMU columns, memory): nothing of the trace. */
static void *csv_metrics(void *arg)
{
	struct rank_stage *st = arg;
	metrics_csv(&st->cap->ranks[st->ri], st->ra);
	return NULL;
}

/* Op statistics read the classes and the steps' windows and phases, and write only the
 * ops: they run beside the window and per-step metrics (which write neither). */
static void *op_stats(void *arg)
{
	struct rank_stage *st = arg;
	double t0 = stagetime_now();
	analysis_ops(st->cap, st->ri, st->ra, st->dl, st->threaded);
	stagetime_add(STAGE_OPSTATS, t0);
	return NULL;
}

/* threaded: a core is free (fewer ranks than cores), so independent stages share two.
 * Messages come in the same order either way: only the steps and the op statistics add
 * any once the sets are built. */
static void analyse_rank(const struct capture *cap, size_t ri, struct rank_analysis *ra, struct diag_list *dl,
			 bool threaded, const struct analysis_hook *hook)
{
	memset(ra, 0, sizeof *ra);
	ra->late_rank = -1; /* set by the capture-level pass (analysis_attribution_comm) */
	const struct rank_data *rd = &cap->ranks[ri];
	const struct rank_store *rs = &rd->store;
	ra->rank = rd->plan->rank;
	ra->rank_index = ri;
	ra->has_trace = rs->has_events;
	struct rank_stage stage = {cap, ri, ra, dl, threaded};
	struct xthread csv_helper, ops_helper;
	xthread_start(&csv_helper, csv_metrics, &stage, threaded);
	ra->cls = xmalloc((rs->n_ev ? rs->n_ev : 1) * sizeof *ra->cls);
	double t = stagetime_now();
	category_classify(rs, ra->cls);
	t = stagetime_add(STAGE_CLASSIFY, t);

	struct rank_sets s;
	struct pending_sets pending = {.sets = &s, .rs = rs, .cls = ra->cls};
	int64_t lo = rs->window_start, hi = rs->window_end;
	const char *src_dev = N_("Ascend Hardware lanes"), *src_host = N_("Python/CANN lanes");
	bool have_timeline = ra->has_trace;
	if (ra->has_trace) {
		/* beside the steps, which need the sets only without step markers */
		rank_sets_start(&pending, threaded);
	} else {
		have_timeline = rank_sets_from_csv(rd->by_kind[CSV_KERNEL], &s, &lo, &hi);
		src_dev = N_("kernel_details.csv (no trace)");
		if (have_timeline)
			diag_add(dl, DIAG_INFO, NULL, 0, -1,
				 _("rank %d has no trace: device figures come from the kernel table's rows"), ra->rank);
	}
	ra->t0 = lo;
	ra->has_timeline = have_timeline;
	t = stagetime_now();
	analysis_steps(cap, ri, ra, have_timeline ? &pending : NULL, dl);
	stagetime_add(STAGE_STEPS, t);
	xthread_start(&ops_helper, op_stats, &stage, threaded);
	rank_sets_wait(&pending);
	t = stagetime_now();
	if (have_timeline) {
		if (!ra->has_trace)
			rank_sets_derive(&s, rs, ra->cls, false);
		metrics_window(rs, ra, &s, lo, hi, src_dev, src_host);
		metrics_attribution(&s, ra, lo, hi);
		metrics_landmarks(&s, ra, lo, hi);
		advice_rank(rs, rd->by_kind[CSV_KERNEL], ra, &s);
		metrics_per_step(ra, &s);
		if (ra->has_trace)
			metrics_overlap_lane_check(rs, &s, ra);
		metrics_step_trace_check(rd->by_kind[CSV_STEP_TRACE], &s, ra, lo, hi);
	}
	else
		metrics_step_trace_attribution(rd->by_kind[CSV_STEP_TRACE], ra);
	bool dir_from_device = s.dir_from_device;
	rank_sets_free(&s); /* while the op records are built: the two were the analysis's peak */
	t = stagetime_add(STAGE_METRICS, t);
	/* after the sets are freed, so the timeline index does not add to them */
	if (hook && hook->classified && rs->has_events) {
		hook->classified(hook->ctx, ri, rs, ra->cls); /* while the op statistics finish */
		stagetime_add(STAGE_TIMELINE, t);
	}
	xthread_join(&csv_helper);
	if (ra->n_steps)
		metrics_step_summary(ra, dir_from_device);
	xthread_join(&ops_helper);
}

void analysis_rank(const struct capture *cap, size_t ri, struct rank_analysis *ra, struct diag_list *dl)
{
	analyse_rank(cap, ri, ra, dl, false, NULL);
	analysis_bottlenecks(ra);
}

struct rank_job {
	size_t rank_index;
	struct diag_list diags;
};

struct rank_pool {
	const struct capture *cap;
	struct analysis *an;
	struct rank_job *jobs;
	size_t n_jobs;
	bool split_ranks; /* fewer ranks than cores: each rank uses a helper thread */
	const struct analysis_hook *hook;
	atomic_size_t next;
};

static void *rank_worker(void *arg)
{
	struct rank_pool *pool = arg;
	for (;;) {
		size_t j = atomic_fetch_add(&pool->next, 1);
		if (j >= pool->n_jobs)
			return NULL;
		analyse_rank(pool->cap, pool->jobs[j].rank_index, &pool->an->ranks[j], &pool->jobs[j].diags,
			     pool->split_ranks, pool->hook);
		if (pool->hook && pool->hook->ranks_done)
			atomic_fetch_add(pool->hook->ranks_done, 1);
	}
}

struct analysis *analysis_run(const struct capture *cap) { return analysis_run_with(cap, NULL); }

struct analysis *analysis_run_with(const struct capture *cap, const struct analysis_hook *hook)
{
	struct analysis *an = xcalloc(1, sizeof *an);
	an->cap = cap;
	diag_init(&an->diags);
	an->ranks = xcalloc(cap->n_ranks ? cap->n_ranks : 1, sizeof *an->ranks);
	struct rank_pool pool = {.cap = cap, .an = an, .hook = hook};
	pool.jobs = xcalloc(cap->n_ranks ? cap->n_ranks : 1, sizeof *pool.jobs);
	for (size_t i = 0; i < cap->n_ranks; i++) {
		if (capture_rank_state(&cap->ranks[i]) < RANK_READY)
			continue;
		pool.jobs[pool.n_jobs].rank_index = i;
		diag_init(&pool.jobs[pool.n_jobs].diags);
		pool.n_jobs++;
	}
	atomic_init(&pool.next, 0);
	/* ranks are independent until alignment: one per core, messages kept in rank order */
	size_t nthreads = (size_t)xthread_cpus();
	pool.split_ranks = pool.n_jobs < nthreads;
	if (nthreads > pool.n_jobs)
		nthreads = pool.n_jobs;
	if (nthreads > 16)
		nthreads = 16;
	pthread_t tids[16];
	size_t started = 0;
	for (size_t t = 1; t < nthreads; t++)
		if (pthread_create(&tids[started], NULL, rank_worker, &pool) == 0)
			started++;
	rank_worker(&pool);
	for (size_t t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	for (size_t j = 0; j < pool.n_jobs; j++) {
		diag_append(&an->diags, &pool.jobs[j].diags);
		diag_free(&pool.jobs[j].diags);
	}
	an->n_ranks = pool.n_jobs;
	free(pool.jobs);
	double t0 = stagetime_now();
	analysis_workload_peers(an->ranks, an->n_ranks);
	an->colls = xcalloc(an->n_ranks ? an->n_ranks : 1, sizeof *an->colls);
	an->n_colls = xcalloc(an->n_ranks ? an->n_ranks : 1, sizeof *an->n_colls);
	analysis_align(cap, an->ranks, an->n_ranks, an->colls, an->n_colls);
	analysis_slow_ranks(an);
	an->comm = comm_analyse(cap);
	analysis_comm_metrics(an);
	/* the verdicts need every rank's exposed communication split into wait and transfer */
	analysis_attribution_comm(an);
	for (size_t i = 0; i < an->n_ranks; i++)
		analysis_bottlenecks(&an->ranks[i]);
	stagetime_add(STAGE_CAPTURE, t0);
	an->cluster = cluster_analyse(an);
	return an;
}

void analysis_free(struct analysis *an)
{
	if (!an)
		return;
	for (size_t i = 0; i < an->n_ranks; i++)
		analysis_rank_free(&an->ranks[i]);
	for (size_t i = 0; an->colls && i < an->n_ranks; i++)
		free(an->colls[i]);
	free(an->colls);
	free(an->n_colls);
	free(an->ranks);
	comm_analysis_free(an->comm);
	cluster_free(an->cluster);
	cluster_db_free(an->cluster_db);
	free(an->cluster_db);
	diag_free(&an->diags);
	if (an->keep_free)
		an->keep_free(an->keep);
	if (an->from_digests)
		capture_free((struct capture *)an->cap);
	free(an);
}
