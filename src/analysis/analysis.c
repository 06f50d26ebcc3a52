/* SPDX-License-Identifier: MIT */
/* The driver: each rank's stages in order (some beside each other on a helper thread),
 * ranks on a pool of threads, then the capture-level passes, published as one analysis. */
#include "analysis.h"

#include "advice.h"
#include "advice_seq.h"
#include "align.h"
#include "cluster_db.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cluster.h"
#include "cluster_output.h"
#include "digest.h"
#include "doctor.h"
#include "gaps.h"
#include "i18n.h"
#include "metrics.h"
#include "moe.h"
#include "opstats.h"
#include "phase_verdict.h"
#include "comm_split.h"
#include "rank_sets.h"
#include "stagetime.h"
#include "xalloc.h"
#include "xthread.h"

struct rank_stage {
	const struct capture *cap;
	size_t ri;
	struct rank_analysis *ra;
	struct diag_list *dl;
	const struct analysis_hook *hook;
	/* the metrics wait for the steps (they may run on the sets' builder thread) */
	pthread_mutex_t lock;
	pthread_cond_t steps_known;
	bool steps_done;
	/* the metrics' inputs, set before the steps are known */
	struct rank_sets *sets;
	int64_t lo, hi;
	const char *src_dev, *src_host;
	bool have_timeline;
	size_t copies_dir_before; /* out: the sets' (they are freed) */
};

/* Figures from the CSV tables alone (kernel PMU columns, memory): nothing of the trace and
 * no message. On a third thread beside the classes' two halves: the two threads after them
 * end together, and these figures would then be the last on one core. */
static void *csv_metrics(void *arg)
{
	struct rank_stage *st = arg;
	metrics_csv(&st->cap->ranks[st->ri], st->ra);
	return NULL;
}

/* The second half of the events' classes (the first is the caller's): on the thread CPU
 * clock its time is the stage's too (stagetime.h). */
struct classify_half {
	const struct rank_store *rs;
	struct ev_class *cls;
	size_t from;
	pthread_t caller;
};

static void *classify_half(void *arg)
{
	struct classify_half *h = arg;
	bool own = stagetime_thread_clock() && !pthread_equal(pthread_self(), h->caller);
	double t0 = own ? stagetime_now() : 0;
	category_classify_range(h->rs, h->cls, h->from, h->rs->n_ev);
	if (own)
		stagetime_add(STAGE_CLASSIFY, t0);
	return NULL;
}

/* The window, attribution, landmark, advice and per-step figures from the sets and the
 * steps, then the sets freed; they add no message. */
static void rank_metrics(struct rank_stage *st)
{
	const struct rank_data *rd = &st->cap->ranks[st->ri];
	const struct rank_store *rs = &rd->store;
	struct rank_analysis *ra = st->ra;
	struct rank_sets *s = st->sets;
	int64_t lo = st->lo, hi = st->hi;
	double t = stagetime_now();
	/* a trace without one device lane (a host-only or a service trace) says nothing of
	 * the device: its device figures stay unknown, never 0 or 100 % */
	bool device = !ra->has_trace;
	for (size_t i = 0; i < rs->n_lanes && !device; i++)
		device = rs->lanes[i].group == LANE_DEVICE || rs->lanes[i].group == LANE_COMM;
	if (st->have_timeline) {
		if (!ra->has_trace)
			rank_sets_derive(s, rs, ra->cls, false);
		metrics_window(rs, ra, s, lo, hi, device ? st->src_dev : NULL, st->src_host);
		if (device) {
			metrics_attribution(s, ra, lo, hi);
			comm_split_keep(s, ra); /* each collective's exposed part, once they are listed */
			phase_partition(s, ra);
			gaps_rank(rs, ra->cls, s, ra, lo, hi);
		} else {
			ra->attr.invalid_why = N_("the trace has no device lane (Ascend Hardware, HCCL)");
		}
		metrics_landmarks(s, ra, lo, hi);
		advice_rank(rs, rd->by_kind[CSV_KERNEL], ra, s);
		advice_kernels(rd->plan, rd->db_path, rs, rd->by_kind[CSV_KERNEL], ra, s);
		metrics_per_step(ra, s);
		if (ra->has_trace)
			metrics_overlap_lane_check(rs, s, ra);
		metrics_step_trace_check(rd->by_kind[CSV_STEP_TRACE], s, ra, lo, hi);
	}
	else
		metrics_step_trace_attribution(rd->by_kind[CSV_STEP_TRACE], ra);
	st->copies_dir_before = s->copies_dir_before;
	rank_sets_free(s); /* while the op records are built: the two were the analysis's peak */
	t = stagetime_add(STAGE_METRICS, t);
	/* after the sets are freed, so the timeline index does not add to them */
	if (st->hook && st->hook->classified && rs->has_events) {
		st->hook->classified(st->hook->ctx, st->ri, rs, ra->cls); /* while the op statistics finish */
		stagetime_add(STAGE_TIMELINE, t);
	}
}

/* On the sets' builder thread once they are built: the metrics, when the steps are known. */
static void metrics_after_steps(void *arg)
{
	struct rank_stage *st = arg;
	pthread_mutex_lock(&st->lock);
	while (!st->steps_done)
		pthread_cond_wait(&st->steps_known, &st->lock);
	pthread_mutex_unlock(&st->lock);
	rank_metrics(st);
}

/* A rank's collectives for the alignment across ranks (align_collectives): found once
 * the events are classified, beside the rank's other stages rather than one rank after
 * another once all are done (on one core, about 10 ms of the 1 GB capture's 145 ms). */
struct collect_job {
	const struct capture *cap;
	const struct rank_analysis *ra;
	struct coll_inst *colls;
	size_t n;
};

static void *collect_collectives(void *arg)
{
	struct collect_job *cj = arg;
	double t0 = stagetime_now();
	cj->n = align_collectives(cj->cap, cj->ra, &cj->colls);
	stagetime_add(STAGE_CAPTURE, t0); /* the alignment's, as before it moved here */
	return NULL;
}

/* threaded: a core is free (fewer ranks than cores), so the stages share two: the events
 * are classified in two halves, then one thread builds the sets and takes the metrics
 * from them, the other finds the steps and the op statistics (whose first part needs only
 * the classes). Messages come in the same order either way: only the steps and then the
 * op statistics add any once the sets are built, both on the caller's thread. */
static void analyse_rank(const struct capture *cap, size_t ri, struct rank_analysis *ra, struct diag_list *dl,
			 bool threaded, const struct analysis_hook *hook, struct collect_job *collect)
{
	memset(ra, 0, sizeof *ra);
	ra->late_rank = -1; /* set by the capture-level pass (comm_ranks_late_rank) */
	ra->aligned_via = -1; /* and this one by the alignment (align_lists) */
	const struct rank_data *rd = &cap->ranks[ri];
	const struct rank_store *rs = &rd->store;
	ra->rank = rd->plan->rank;
	ra->rank_index = ri;
	ra->has_trace = rs->has_events;
	ra->marker_free = hook && hook->marker_free_steps;
	struct rank_sets s;
	struct rank_stage stage = {.cap = cap, .ri = ri, .ra = ra, .dl = dl, .hook = hook,
				   .sets = &s,
				   .src_dev = N_("Ascend Hardware lanes"), .src_host = N_("Python/CANN lanes")};
	pthread_mutex_init(&stage.lock, NULL);
	pthread_cond_init(&stage.steps_known, NULL);
	struct xthread csv_helper;
	xthread_start(&csv_helper, csv_metrics, &stage, threaded);
	ra->cls = xmalloc((rs->n_ev ? rs->n_ev : 1) * sizeof *ra->cls);
	double t = stagetime_now();
	/* each event's class depends on that event alone: the events in two halves, side by
	 * side, then the copies' directions (which read the host ops' classes) */
	struct classify_half half = {rs, ra->cls, rs->n_ev / 2, pthread_self()};
	struct xthread classify_helper;
	xthread_start(&classify_helper, classify_half, &half, threaded);
	category_classify_range(rs, ra->cls, 0, half.from);
	xthread_join(&classify_helper);
	category_classify_links(rs, ra->cls);
	t = stagetime_add(STAGE_CLASSIFY, t);
	struct xthread collect_helper;
	if (collect) {
		collect->cap = cap;
		collect->ra = ra;
		xthread_start(&collect_helper, collect_collectives, collect, threaded);
	}

	struct pending_sets pending = {.sets = &s, .rs = rs, .cls = ra->cls};
	int64_t lo = rs->window_start, hi = rs->window_end;
	bool have_timeline = ra->has_trace, metrics_beside = false;
	if (ra->has_trace) {
		/* beside the steps, which need the sets only without step markers; the builder
		 * takes the metrics on */
		pending.then = metrics_after_steps;
		pending.then_arg = &stage;
		metrics_beside = rank_sets_start(&pending, threaded);
	} else {
		have_timeline = rank_sets_from_csv(rd->by_kind[CSV_KERNEL], &s, &lo, &hi);
		stage.src_dev = N_("kernel_details.csv (no trace)");
		if (have_timeline)
			diag_add(dl, DIAG_INFO, NULL, 0, -1,
				 _("rank %d has no trace: device figures come from the kernel table's rows"), ra->rank);
	}
	ra->t0 = lo;
	ra->has_timeline = have_timeline;
	stage.lo = lo;
	stage.hi = hi;
	stage.have_timeline = have_timeline;
	t = stagetime_now();
	struct ops_prep *ops = opstats_prepare(cap, ri, ra);
	stagetime_add(STAGE_OPSTATS, t);
	t = stagetime_now();
	steps_find(cap, ri, ra, have_timeline ? &pending : NULL, dl);
	stagetime_add(STAGE_STEPS, t);
	pthread_mutex_lock(&stage.lock);
	stage.steps_done = true;
	pthread_cond_signal(&stage.steps_known);
	pthread_mutex_unlock(&stage.lock);
	t = stagetime_now();
	/* not split while the metrics run beside: two halves' buffers beside the sets raised
	 * the 1 GB capture's peak private memory by 2.5-3 MB, for no wall time measured */
	opstats_finish(cap, ri, ra, dl, threaded && !metrics_beside, ops);
	stagetime_add(STAGE_OPSTATS, t);
	if (!metrics_beside)
		rank_metrics(&stage);
	rank_sets_join(&pending); /* the metrics */
	xthread_join(&csv_helper); /* the CSV figures: the step summary reads them */
	if (collect)
		xthread_join(&collect_helper);
	pthread_cond_destroy(&stage.steps_known);
	pthread_mutex_destroy(&stage.lock);
	if (ra->n_steps)
		metrics_step_summary(ra, stage.copies_dir_before);
	advice_env(rd->plan, ra); /* reads no event: every rank, timeline or not */
	advice_seq(rd, ra); /* communication.json's sizes, the lanes' sequences */
}

/* A rank's verdicts: the bottleneck rules over its window, then the same rules over each
 * phase's steps (phase_verdict.h). */
static void judge_rank(struct rank_analysis *ra)
{
	bottleneck_candidates(ra);
	phase_verdicts(ra);
}

void analysis_rank(const struct capture *cap, size_t ri, struct rank_analysis *ra, struct diag_list *dl)
{
	analyse_rank(cap, ri, ra, dl, false, NULL, NULL);
	comm_split_exposure(ra, NULL, 0); /* no collective list here: the kept sets go */
	judge_rank(ra);
}

struct rank_job {
	size_t rank_index;
	struct diag_list diags;
	struct collect_job collect;
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
			     pool->split_ranks, pool->hook, &pool->jobs[j].collect);
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
	an->colls = xcalloc(pool.n_jobs ? pool.n_jobs : 1, sizeof *an->colls);
	an->n_colls = xcalloc(pool.n_jobs ? pool.n_jobs : 1, sizeof *an->n_colls);
	for (size_t j = 0; j < pool.n_jobs; j++) {
		diag_append(&an->diags, &pool.jobs[j].diags);
		diag_free(&pool.jobs[j].diags);
		an->colls[j] = pool.jobs[j].collect.colls;
		an->n_colls[j] = pool.jobs[j].collect.n;
		comm_split_exposure(&an->ranks[j], an->colls[j], an->n_colls[j]);
	}
	an->n_ranks = pool.n_jobs;
	free(pool.jobs);
	double t0 = stagetime_now();
	analysis_cross_ranks(an, CROSS_FROM_CAPTURE);
	stagetime_add(STAGE_CAPTURE, t0);
	return an;
}

void analysis_cross_ranks(struct analysis *an, enum cross_from from)
{
	if (from == CROSS_FROM_CLUSTER_TABLE) {
		/* ranks x steps from msprof-analyze's table: no timelines, no collectives */
		align_slow_ranks(an);
		an->comm = comm_analyse(an->cap);
		comm_ranks_metrics(an);
		for (size_t i = 0; i < an->n_ranks; i++)
			judge_rank(&an->ranks[i]);
		an->cluster = cluster_analyse(an);
		return;
	}
	steps_workload_peers(an->ranks, an->n_ranks);
	align_lists(an->ranks, an->n_ranks, an->colls, an->n_colls);
	align_slow_ranks(an);
	an->service = service_analyse(an->cap->serving);
	an->comm = comm_analyse(an->cap);
	if (from == CROSS_FROM_CAPTURE) /* a digest holds its rank's communication metrics */
		comm_ranks_metrics(an);
	/* the late rank is the cluster analysis's; the verdicts need every rank's exposed
	 * communication split (comm_split.h) */
	an->cluster = cluster_analyse(an);
	if (from == CROSS_FROM_CAPTURE)
		doctor_run(an);
	for (size_t i = 0; i < an->n_ranks; i++) /* each rank's exposed communication split */
		comm_split_rank(an, i);
	comm_ranks_late_rank(an);
	for (size_t i = 0; from != CROSS_FROM_DIGESTS && i < an->n_ranks; i++)
		moe_rank_layers(an, i);
	an->moe = moe_analyse(an);
	for (size_t i = 0; i < an->n_ranks; i++)
		judge_rank(&an->ranks[i]);
}

/* ---- opening: what a path holds, to an analysis ------------------------------------- */

static void cross_from_digests(struct analysis *an) { analysis_cross_ranks(an, CROSS_FROM_DIGESTS); }

struct analysis *analysis_from_digests(const char *path)
{
	/* a capture beside the digests is analysed as any capture, then taken in through the
	 * digests' encoding, so every rank is held alike */
	struct capture *mix = NULL;
	struct analysis *ma = NULL;
	struct stat st;
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		mix = capture_open(path, NULL);
		if (mix->usable && mix->n_ranks) {
			capture_load(mix);
			ma = analysis_run(mix);
		}
	}
	struct analysis *an = digest_read_dir(path, mix, ma);
	analysis_free(ma);
	capture_free(mix);
	double t0 = stagetime_now();
	cross_from_digests(an);
	stagetime_add(STAGE_CAPTURE, t0);
	return an;
}

struct analysis *analysis_from_cluster_output(const char *path)
{
	struct cluster_output co;
	cluster_output_read(path, &co);
	struct analysis *an = xcalloc(1, sizeof *an);
	an->cap = co.cap;
	co.cap = NULL;
	an->cluster_db = co.db;
	co.db = NULL;
	an->from_digests = true; /* no events: drill-down says so */
	an->from_cluster_output = true; /* ... naming what it was read from */
	diag_init(&an->diags);
	cluster_output_ranks(an, &co);
	cluster_output_free(&co);
	analysis_cross_ranks(an, CROSS_FROM_CLUSTER_TABLE);
	return an;
}

struct analysis *analysis_open_summaries(const char *path)
{
	if (digest_file_is(path))
		return analysis_from_digests(path);
	if (cluster_output_is(path))
		return analysis_from_cluster_output(path);
	return NULL;
}

/* ---- a capture's analysis in the index cache ---------------------------------------- */

struct index_make {
	struct capture *cap;
	const struct analysis_hook *hook;
	struct analysis *an; /* made here when the index could not give it */
};

static char *index_make(void *ctx, size_t *len, struct sbuf *why)
{
	struct index_make *c = ctx;
	capture_verify_columns(c->cap); /* the analysis reads the columns */
	c->an = analysis_run_with(c->cap, c->hook);
	for (size_t i = 0; i < c->cap->diags.n; i++)
		if (c->cap->diags.items[i].level == DIAG_ERROR) {
			/* a refused or unreadable file: the next open may read it */
			sbuf_adds(why, "the capture's load gave an error");
			return NULL;
		}
	return digest_index_encode(c->an, len);
}

static void add_path(const char ***v, size_t *n, size_t *cap, const char *p)
{
	if (!p)
		return;
	xgrow(v, cap, *n + 1, sizeof **v);
	(*v)[(*n)++] = p;
}

struct analysis *analysis_index_run(struct capture *cap, const struct analysis_hook *hook, struct tindex_status *st)
{
	struct tindex_status scratch;
	if (!st)
		st = &scratch;
	memset(st, 0, sizeof *st);
	if (!cap->opts.index.enabled || !cap->n_ranks) {
		capture_verify_columns(cap);
		struct analysis *an = analysis_run_with(cap, hook);
		return an;
	}
	/* every file the analysis may have read */
	const char **paths = NULL;
	size_t n = 0, npc = 0;
	for (size_t r = 0; r < cap->n_ranks; r++) {
		const struct rank_plan *rp = cap->ranks[r].plan;
		for (size_t i = 0; i < rp->n_files; i++)
			add_path(&paths, &n, &npc, rp->files[i].path);
		add_path(&paths, &n, &npc, rp->info.loaded ? rp->info.path : NULL);
		add_path(&paths, &n, &npc, rp->metadata_path);
	}
	for (size_t i = 0; i < cap->plan.n_cluster_files; i++)
		add_path(&paths, &n, &npc, cap->plan.cluster_files[i].path);
	/* the serving output's forwards decide the steps' phases */
	for (size_t i = 0; cap->serving && i < cap->serving->n_files; i++)
		add_path(&paths, &n, &npc, cap->serving->files[i]);
	char kind[160];
	snprintf(kind, sizeof kind, "analysis events source %d trace limit %" PRIu64 " csv limit %" PRIu64 " ranks %zu",
		 (int)cap->opts.source, cap->opts.max_trace_bytes, cap->opts.max_csv_bytes, cap->n_ranks);
	struct index_make c = {.cap = cap, .hook = hook};
	size_t len = 0;
	bool from_index = false;
	char *buf = tindex_load_blob(kind, paths, n, index_make, &c, &len, &from_index, &cap->opts.index, st, &cap->diags);
	free(paths);
	struct analysis *an = c.an;
	if (!an && buf && from_index) {
		bool bad;
		an = digest_index_decode(cap, buf, len, cross_from_digests, &bad); /* as over digest files */
		if (bad) {
			analysis_free(an);
			an = NULL;
		} else if (an) { /* the capture is here: its doctor reads it, as without the index */
			free(an->doctor);
			an->n_doctor = doctor_check(cap, an, &an->doctor);
		}
	}
	free(buf);
	if (!an) { /* an index whose digests do not read (written by a program that checked less) */
		st->state = TINDEX_NOT_WRITTEN;
		capture_verify_columns(cap);
		an = analysis_run_with(cap, hook);
	}
	return an;
}

static size_t warnings_of(struct diag_list *dl, void (*fn)(const struct diag *d, void *ctx), void *ctx)
{
	size_t n = 0;
	pthread_mutex_lock(&dl->lock);
	for (size_t i = 0; i < dl->n; i++)
		if (dl->items[i].level >= DIAG_WARN) {
			n++;
			if (fn)
				fn(&dl->items[i], ctx);
		}
	pthread_mutex_unlock(&dl->lock);
	return n;
}

size_t analysis_warnings(const struct analysis *an, void (*fn)(const struct diag *d, void *ctx), void *ctx)
{
	/* the lists are locked for their readers; the casts only take the lock */
	size_t n = an->cap ? warnings_of((struct diag_list *)&an->cap->diags, fn, ctx) : 0;
	return n + warnings_of((struct diag_list *)&an->diags, fn, ctx);
}

void analysis_free(struct analysis *an)
{
	if (!an)
		return;
	for (size_t i = 0; i < an->n_ranks; i++)
		result_rank_free(&an->ranks[i]);
	for (size_t i = 0; an->colls && i < an->n_ranks; i++)
		free(an->colls[i]);
	free(an->colls);
	free(an->n_colls);
	free(an->ranks);
	comm_analysis_free(an->comm);
	free(an->doctor);
	cluster_free(an->cluster);
	service_free(an->service);
	moe_free(an->moe);
	cluster_db_free(an->cluster_db);
	free(an->cluster_db);
	diag_free(&an->diags);
	if (an->keep_free)
		an->keep_free(an->keep);
	if (an->from_digests)
		capture_free((struct capture *)an->cap);
	free(an);
}
