/* SPDX-License-Identifier: MIT */
/* Capture loading: discovery, CSV tables, traces, in the order users need them. */
#include "capture.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "csv_check.h"
#include "csvw.h"
#include "i18n.h"
#include "spill.h"
#include "stagetime.h"
#include "kernel_timeline.h"
#include "xalloc.h"
#include "xthread.h"

/* ---- sources ------------------------------------------------------------------------ */

/* Db first: a rank with both exports reads the text one unless --source db says so,
 * which the Db probe decides (source_db.c); then a timeline; else the tables alone. */
static const struct source_ops *const capture_source_order[] = {&source_db, &source_text, &source_tables};

static const struct source_ops *capture_source_pick(struct rank_data *rd, enum capture_source want, struct diag_list *dl)
{
	for (size_t i = 0; i < sizeof capture_source_order / sizeof *capture_source_order; i++)
		if (capture_source_order[i]->probe(rd, want, dl))
			return capture_source_order[i];
	return &source_tables;
}

const struct source_ops *capture_source_of(const struct rank_store *rs)
{
	return rs->trace.db ? &source_db : rs->trace.rows ? &source_tables : &source_text;
}

int capture_entry_text(const struct rank_store *rs, uint64_t off, struct sbuf *out)
{
	return capture_source_of(rs)->entry_text(rs, off, out);
}

int capture_event_args(const struct rank_store *rs, size_t ev, struct sbuf *out)
{
	return capture_source_of(rs)->event_args(rs, ev, out);
}

size_t capture_read_dirs(const struct capture_plan *plan, const char **out, size_t max)
{
	size_t n = 0;
#define READ_DIR(d)                                                                        \
	do {                                                                               \
		if ((d) && n < max)                                                        \
			out[n++] = (d);                                                    \
	} while (0)
	READ_DIR(plan->path);
	READ_DIR(plan->cluster_dir);
	for (size_t i = 0; i < plan->n_ranks; i++) {
		READ_DIR(plan->ranks[i].worker_dir);
		READ_DIR(plan->ranks[i].output_dir);
	}
#undef READ_DIR
	return n;
}

const char *capture_dir_inside(const struct capture_plan *plan, const char *path)
{
	size_t max = 2 + 2 * plan->n_ranks;
	const char **dirs = xcalloc(max, sizeof *dirs);
	size_t n = capture_read_dirs(plan, dirs, max);
	const char *hit = NULL;
	for (size_t i = 0; i < n && !hit; i++)
		if (csvw_path_inside(path, dirs[i]))
			hit = dirs[i];
	free(dirs);
	return hit;
}

/* The index cache inside a directory this capture reads (--index-dir in it, a cache
 * directory linked into it): no index or spill file is ever made there; the run goes on
 * without an index, saying why. Checked before anything is loaded. */
static void refuse_index_inside(struct capture *cap)
{
	if (!cap->opts.index.enabled)
		return;
	char *dir = tindex_dir(&cap->opts.index);
	const char *in = dir ? capture_dir_inside(&cap->plan, dir) : NULL;
	if (in) {
		diag_add(&cap->diags, DIAG_ERROR, dir, 0, -1,
			 _("the index directory lies inside the capture (%s, which this run reads); indexes "
			 "never go into a capture: no index is read or written, give --index-dir outside it"),
			 in);
		cap->opts.index.enabled = false;
		spill_set_dir(NULL); /* spill files beside the indexes: not there either */
	}
	free(dir);
}

struct capture *capture_open(const char *path, const struct capture_opts *opts)
{
	struct capture *cap = xcalloc(1, sizeof *cap);
	diag_init(&cap->diags);
	if (opts)
		cap->opts = *opts;
	cap->usable = discover(path, &cap->plan, &cap->diags) == 0;
	refuse_index_inside(cap);
	cap->n_ranks = cap->plan.n_ranks;
	cap->ranks = xcalloc(cap->n_ranks ? cap->n_ranks : 1, sizeof *cap->ranks);
	for (size_t i = 0; i < cap->n_ranks; i++) {
		struct rank_data *rd = &cap->ranks[i];
		rd->plan = &cap->plan.ranks[i];
		store_init(&rd->store);
		diag_init(&rd->trace_diags);
		atomic_init(&rd->state, RANK_PENDING);
		atomic_init(&rd->csv_ready, false);
		rd->source = capture_source_pick(rd, cap->opts.source, &cap->diags);
		rd->trace_bytes_total = rd->source->load_bytes(rd);
	}
	return cap;
}

/* The same for a CSV table (typed known columns, row offsets, the distinct texts): 23 % of
 * the bench's operator_details and 34 % of its kernel_details in private memory, more for
 * tables of short rows; the same margin. */
#define CAPTURE_TABLE_PERCENT 75

/* A "Key: N kB" line of /proc/meminfo, in bytes; 0 when absent. */
static uint64_t meminfo_bytes(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	if (!f)
		return 0;
	char line[256];
	uint64_t v = 0;
	size_t kl = strlen(key);
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			v = strtoull(line + kl + 1, NULL, 10) * 1024;
			break;
		}
	fclose(f);
	return v;
}

/* The first number in a file (a cgroup's "max" or an absent file: 0). */
static uint64_t file_number(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char num[64] = "";
	uint64_t v = fgets(num, sizeof num, f) ? strtoull(num, NULL, 10) : 0;
	fclose(f);
	return v;
}

/* Memory left under this process's cgroup limit (as mounted in its namespace, v2 then
 * v1), or 0 when there is none. */
static uint64_t cgroup_left(void)
{
	static const char *const files[][2] = {
		{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
		{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"},
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		uint64_t max = file_number(files[i][0]);
		if (!max || max >= (UINT64_C(1) << 62)) /* v1 writes "no limit" as a huge number */
			continue;
		uint64_t cur = file_number(files[i][1]);
		return max > cur ? max - cur : 1;
	}
	return 0;
}

uint64_t capture_mem_available(void)
{
	const char *env = getenv("ASCPROF_MEM_AVAILABLE");
	if (env && *env)
		return strtoull(env, NULL, 10);
	uint64_t avail = meminfo_bytes("MemAvailable"), left = cgroup_left();
	return left && (!avail || left < avail) ? left : avail;
}

static uint64_t limit_for(uint64_t avail, unsigned percent)
{
	if (avail > UINT64_MAX / 100)
		return UINT64_MAX;
	return avail / percent * 100;
}

uint64_t capture_auto_csv_limit(uint64_t avail) { return limit_for(avail, CAPTURE_TABLE_PERCENT); }

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One CSV file to load; the tables are loaded by a small pool of threads, then attached to
 * their ranks in discovery order so the result and the messages never depend on timing. */
struct csv_job {
	struct rank_data *rd;
	const struct found_file *file;
	struct csv_table *table;
	struct diag_list diags;
	struct tindex_status index; /* whether the table came from its index */
};

struct csv_pool {
	struct csv_job *jobs;
	size_t n_jobs;
	atomic_size_t next;
	_Atomic bool *cancel;
	uint64_t max_bytes; /* capture_opts.max_csv_bytes */
	const struct tindex_opts *index;
	uint64_t index_min; /* smaller tables are read without an index */
};

/* Loads one table within the size limit: the one set, or the one the memory available now
 * allows (ranks' traces and other tables load at the same time and take their share). */
static struct csv_table *load_table(const char *path, uint64_t max_bytes, struct diag_list *dl)
{
	if (max_bytes == CAPTURE_NO_LIMIT)
		return csvt_load(path, dl);
	if (max_bytes)
		return csvt_load_limited(path, max_bytes, _("set by --max-csv-bytes"), dl);
	uint64_t avail = capture_mem_available();
	uint64_t limit = capture_auto_csv_limit(avail);
	if (!limit)
		return csvt_load(path, dl);
	char why[160];
	snprintf(why, sizeof why, _("that the %" PRIu64 " bytes of available memory allow (a table needs up to about "
		 "%d%% of its file)"), avail, CAPTURE_TABLE_PERCENT);
	return csvt_load_limited(path, limit, why, dl);
}

static struct csv_table *load_checked(const char *path, void *ctx, struct diag_list *dl)
{
	const struct csv_pool *pool = ctx;
	struct csv_table *t = load_table(path, pool->max_bytes, dl);
	if (t)
		csv_check_table(t, dl);
	return t;
}

/* Tables below this size parse about as fast as their index maps: read as they are. */
#define CAPTURE_CSV_INDEX_MIN (UINT64_C(64) << 10)

static void *csv_worker(void *arg)
{
	struct csv_pool *pool = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&pool->next, 1);
		if (i >= pool->n_jobs || atomic_load(pool->cancel))
			return NULL;
		struct csv_job *job = &pool->jobs[i];
		const char *path = job->file->path;
		/* slices are joined into one table after loading: each is read as it is */
		if (job->file->size >= pool->index_min && discover_slice_number(path) < 0) {
			uint64_t limit = pool->max_bytes == CAPTURE_NO_LIMIT ? 0 : pool->max_bytes;
			job->table = tindex_load_csv(path, load_checked, pool, limit, pool->index, &job->index, &job->diags);
		} else {
			job->table = load_checked(path, pool, &job->diags);
		}
	}
}

/* Job order for attaching: by rank, then by file name with the slice number left out, then
 * by slice number, so op_summary_slice_10 follows op_summary_slice_9. */
static int cmp_csv_job(const void *pa, const void *pb)
{
	const struct csv_job *a = pa, *b = pb;
	if (a->rd != b->rd)
		return a->rd < b->rd ? -1 : 1;
	const char *x = a->file->path, *y = b->file->path;
	const char *xs = strstr(x, "_slice_"), *ys = strstr(y, "_slice_");
	size_t xl = xs ? (size_t)(xs - x) : strlen(x), yl = ys ? (size_t)(ys - y) : strlen(y);
	int c = strncmp(x, y, xl < yl ? xl : yl);
	if (c || xl != yl)
		return c ? c : xl < yl ? -1 : 1;
	long sx = discover_slice_number(x), sy = discover_slice_number(y);
	return sx < sy ? -1 : sx > sy;
}

static void attach_csv(struct diag_list *dl, struct rank_data *rd, struct csv_table *t, size_t *cap_csvs)
{
	struct csv_table *prev = t->kind != CSV_UNKNOWN ? rd->by_kind[t->kind] : NULL;
	/* the next slice of a sliced table joins it */
	if (prev && discover_slice_number(t->path) > 0 && discover_slice_number(prev->path) == 0 && csvt_append(prev, t))
		return;
	xgrow(&rd->csvs, cap_csvs, rd->n_csvs + 1, sizeof *rd->csvs);
	rd->csvs[rd->n_csvs++] = t;
	if (t->kind == CSV_UNKNOWN)
		return;
	if (rd->by_kind[t->kind]) {
		diag_add(dl, DIAG_WARN, t->path, 0, -1,
			 _("a second %s table (the first is %s); this one is not used"),
			 csv_kind_name(t->kind), rd->by_kind[t->kind]->path);
		return;
	}
	rd->by_kind[t->kind] = t;
}

/* at most this many tables a reader makes for one rank (the Db's: kernels and db_csv_specs) */
#define CAPTURE_MADE_TABLES 32

static void load_csvs(struct capture *cap, bool wait_events, struct diag_list *dl)
{
	struct csv_pool pool = {.cancel = &cap->cancel, .max_bytes = cap->opts.max_csv_bytes, .index = &cap->opts.index};
	const char *min = getenv("ASCPROF_INDEX_CSV_MIN_BYTES"); /* tests: every table */
	pool.index_min = min && *min ? strtoull(min, NULL, 10) : CAPTURE_CSV_INDEX_MIN;
	for (size_t r = 0; r < cap->n_ranks; r++)
		for (size_t i = 0; i < cap->ranks[r].plan->n_files; i++)
			pool.n_jobs += cap->ranks[r].plan->files[i].role == ROLE_CSV && cap->ranks[r].source->csv_files;
	pool.jobs = xcalloc(pool.n_jobs ? pool.n_jobs : 1, sizeof *pool.jobs);
	size_t k = 0;
	for (size_t r = 0; r < cap->n_ranks; r++)
		for (size_t i = 0; i < cap->ranks[r].plan->n_files; i++)
			if (cap->ranks[r].plan->files[i].role == ROLE_CSV && cap->ranks[r].source->csv_files) {
				pool.jobs[k].rd = &cap->ranks[r];
				pool.jobs[k].file = &cap->ranks[r].plan->files[i];
				diag_init(&pool.jobs[k].diags);
				k++;
			}
	atomic_init(&pool.next, 0);

	int nthreads = cap->opts.threads > 0 ? cap->opts.threads : xthread_cpus();
	if ((size_t)nthreads > pool.n_jobs)
		nthreads = (int)pool.n_jobs;
	pthread_t tids[16];
	int started = 0;
	for (int i = 1; i < nthreads && i < 16; i++)
		if (pthread_create(&tids[started], NULL, csv_worker, &pool) == 0)
			started++;
	csv_worker(&pool); /* this thread works too, so nothing is lost if none started */
	for (int i = 0; i < started; i++)
		pthread_join(tids[i], NULL);

	xqsort(pool.jobs, pool.n_jobs, sizeof *pool.jobs, cmp_csv_job);
	size_t cap_csvs = 0;
	struct rank_data *cur = NULL;
	for (size_t j = 0; j < pool.n_jobs; j++) {
		struct csv_job *job = &pool.jobs[j];
		if (job->rd != cur) {
			cur = job->rd;
			cap_csvs = 0;
		}
		diag_append(dl, &job->diags);
		diag_free(&job->diags);
		job->rd->csv_index[job->index.state]++;
		job->rd->csv_deferred += job->index.deferred;
		if (job->table)
			attach_csv(dl, job->rd, job->table, &cap_csvs);
	}
	free(pool.jobs);
	/* the tables a reader makes itself (a Db rank's: analysis.db's StepTraceTime, the
	 * memory and the kernel tables, in the text export's form) */
	for (size_t r = 0; r < cap->n_ranks && !atomic_load(&cap->cancel); r++) {
		struct rank_data *rd = &cap->ranks[r];
		if (!rd->source->tables)
			continue;
		struct csv_table *made[CAPTURE_MADE_TABLES];
		size_t n = rd->source->tables(rd, &cap->cancel, wait_events, !cap->opts.no_counter_values, made,
						  CAPTURE_MADE_TABLES, dl);
		for (size_t i = 0; i < n; i++) {
			size_t have = rd->n_csvs;
			attach_csv(dl, rd, made[i], &have);
		}
	}
}

static struct source_load_ctx load_ctx(struct capture *cap, int threads)
{
	/* No limit unless one is set: what grows with a trace is spilled to disk (spill.h),
	 * so one larger than the memory available loads. */
	uint64_t limit = cap->opts.max_trace_bytes;
	return (struct source_load_ctx){
		.threads = threads,
		.max_trace_bytes = limit == CAPTURE_NO_LIMIT ? 0 : limit,
		.index = &cap->opts.index,
	};
}

static void load_trace(struct capture *cap, struct rank_data *rd, int threads, struct diag_list *dl)
{
	struct source_load_ctx ctx = load_ctx(cap, threads);
	if (rd->source->load)
		rd->source->load(rd, &ctx, dl);
}

void capture_verify_columns(struct capture *cap)
{
	for (size_t i = 0; i < cap->n_ranks; i++) {
		struct rank_data *rd = &cap->ranks[i];
		struct source_load_ctx ctx = load_ctx(cap, cap->opts.threads > 0 ? cap->opts.threads : xthread_cpus());
		if (rd->index.pending && rd->source->verify)
			rd->source->verify(rd, &ctx, &cap->diags);
	}
}

/* Communication files are small (KB to MB): read after the CSV tables, by the same thread. */
static void load_comm(struct capture *cap, struct diag_list *dl)
{
	for (size_t r = 0; r < cap->n_ranks && !atomic_load(&cap->cancel); r++) {
		struct rank_data *rd = &cap->ranks[r];
		for (size_t i = 0; i < rd->plan->n_files; i++) {
			const struct found_file *f = &rd->plan->files[i];
			if ((f->role == ROLE_COMM || f->role == ROLE_COMM_MATRIX) && rd->source->comm_files)
				comm_json_load(&rd->comm, f->path, rd->plan->rank, dl);
		}
		if (rd->source->comm)
			rd->source->comm(rd, dl);
	}
	for (size_t i = 0; i < cap->plan.n_cluster_files; i++)
		comm_json_load(&cap->cluster_comm, cap->plan.cluster_files[i].path, -1, dl);
}

/* The CSV tables and communication files, read beside the traces: their messages go to
 * their own list, so that the capture's messages keep one order whatever the timing. */
struct side_load {
	struct capture *cap;
	bool beside; /* on its own thread: it may wait for a rank's events */
	struct diag_list diags;
};

static void *side_main(void *arg)
{
	struct side_load *sl = arg;
	struct capture *cap = sl->cap;
	double t0 = stagetime_now();
	load_csvs(cap, sl->beside, &sl->diags);
	load_comm(cap, &sl->diags);
	if (cap->plan.serving_path && !atomic_load(&cap->cancel)) {
		cap->serving = xcalloc(1, sizeof *cap->serving);
		serving_read(cap->plan.serving_path, cap->serving, &sl->diags);
	}
	stagetime_add(STAGE_CSV, t0);
	for (size_t i = 0; i < cap->n_ranks; i++)
		atomic_store_explicit(&cap->ranks[i].csv_ready, true, memory_order_release);
	return NULL;
}

/* Ranks' traces are loaded several at a time, each walked by fewer threads: a rank's merge
 * and lane sorts run on one core, and another rank's walk keeps the other busy. Each rank
 * keeps its own messages, appended in rank order whatever the timing. */
struct trace_workers {
	struct capture *cap;
	_Atomic size_t next;
	int total_threads, workers;
};

static void *trace_worker(void *arg)
{
	struct trace_workers *tw = arg;
	struct capture *cap = tw->cap;
	for (;;) {
		size_t i = atomic_fetch_add(&tw->next, 1);
		if (i >= cap->n_ranks || atomic_load(&cap->cancel))
			return NULL;
		/* the last ranks, as many as the workers, get all the threads each: whichever
		 * ends first leaves every core to the others' walkers (which split their
		 * ranges among them, trace.c), and their merges run threaded. One thread
		 * each left a core idle 60-100 ms at the end of 8 x 250 MB (1.38 -> 1.32 s,
		 * 10 alternating pairs); all threads for every rank oversubscribed the cores
		 * throughout, 6 % slower. */
		size_t left = cap->n_ranks - i;
		int threads = left <= (size_t)tw->workers ? tw->total_threads : tw->total_threads / tw->workers;
		struct rank_data *rd = &cap->ranks[i];
		atomic_store_explicit(&rd->state, RANK_TRACE_LOADING, memory_order_release);
		load_trace(cap, rd, threads > 0 ? threads : 1, &rd->trace_diags);
		atomic_store_explicit(&rd->state, RANK_TRACE_LOADED, memory_order_release);
	}
}

static void load_traces(struct capture *cap)
{
	int total = cap->opts.threads > 0 ? cap->opts.threads : xthread_cpus();
	struct trace_workers tw = {.cap = cap, .total_threads = total};
	tw.workers = cap->n_ranks < (size_t)total ? (int)cap->n_ranks : total;
	if (tw.workers < 1)
		tw.workers = 1;
	pthread_t *tids = xcalloc((size_t)tw.workers, sizeof *tids);
	int started = 0;
	for (int w = 1; w < tw.workers; w++)
		if (pthread_create(&tids[w], NULL, trace_worker, &tw) == 0)
			started = w;
		else
			break;
	trace_worker(&tw);
	for (int w = 1; w <= started; w++)
		pthread_join(tids[w], NULL);
	free(tids);
}

void capture_load(struct capture *cap)
{
	double t0 = now_seconds();
	/* the tables and the traces load at the same time: the cores stay busy through both */
	struct side_load side = {.cap = cap};
	diag_init(&side.diags);
	pthread_t tid;
	side.beside = true;
	bool threaded = pthread_create(&tid, NULL, side_main, &side) == 0;
	if (!threaded) {
		side.beside = false;
		side_main(&side);
	}
	load_traces(cap);
	if (threaded)
		pthread_join(tid, NULL);
	diag_append(&cap->diags, &side.diags);
	diag_free(&side.diags);
	for (size_t i = 0; i < cap->n_ranks; i++) {
		diag_append(&cap->diags, &cap->ranks[i].trace_diags);
		diag_free(&cap->ranks[i].trace_diags);
		diag_init(&cap->ranks[i].trace_diags);
	}
	for (size_t i = 0; i < cap->n_ranks && cap->opts.timelines && !atomic_load(&cap->cancel); i++)
		if (cap->ranks[i].source->timeline)
			cap->ranks[i].timeline = cap->ranks[i].source->timeline(&cap->ranks[i]);
	for (size_t i = 0; i < cap->n_ranks && !atomic_load(&cap->cancel); i++)
		atomic_store_explicit(&cap->ranks[i].state, RANK_READY, memory_order_release);
	cap->load_seconds = now_seconds() - t0;
	atomic_store_explicit(&cap->done, true, memory_order_release);
}

void capture_free(struct capture *cap)
{
	if (!cap)
		return;
	for (size_t i = 0; i < cap->n_ranks; i++) {
		struct rank_data *rd = &cap->ranks[i];
		store_free(&rd->store);
		diag_free(&rd->trace_diags);
		for (size_t k = 0; k < rd->n_csvs; k++)
			csvt_free(rd->csvs[k]);
		free(rd->csvs);
		comm_data_free(&rd->comm);
		kernel_timeline_free(rd->timeline);
	}
	comm_data_free(&cap->cluster_comm);
	serving_free(cap->serving);
	free(cap->serving);
	free(cap->ranks);
	discover_free(&cap->plan);
	diag_free(&cap->diags);
	free(cap);
}

const struct csv_table *capture_csv(const struct capture *cap, size_t rank_index, enum csv_kind kind)
{
	if (rank_index >= cap->n_ranks)
		return NULL;
	const struct rank_data *rd = &cap->ranks[rank_index];
	if (!capture_rank_csv_ready(rd))
		return NULL;
	return rd->by_kind[kind];
}
