/* SPDX-License-Identifier: MIT */
/* Chrome-trace loader: parallel element walk, per-thread segments, ordered merge (the
 * parts: trace_internal.h); the entry points and the lazy args. */
#include "trace_internal.h"

/* ---- entry points ------------------------------------------------------------------- */

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Hands a confirmed range's messages on, then its counts of what was not listed. */
static void report_seg_counts(const struct seg *sg, const char *name, struct diag_list *dl)
{
	diag_append(dl, &sg->local);
	static const char *what[W_KIND_COUNT] = {
		[W_BAD_JSON] = N_("invalid elements"), [W_NOT_OBJECT] = N_("non-object elements"),
		[W_BAD_TS] = N_("unusable \"ts\" values"), [W_BAD_DUR] = N_("unusable \"dur\" values"),
		[W_NEG_DUR] = N_("negative \"dur\" values"), [W_NO_TS] = N_("events without \"ts\""),
		[W_BIG] = N_("oversized elements"), [W_END_BEFORE_BEGIN] = N_("\"E\" events before their \"B\""),
		[W_END_ALONE] = N_("\"E\" events without a \"B\""), [W_NUL] = N_("strings with \\u0000"),
		[W_TS_EXPONENT] = N_("\"ts\" values in exponent form"),
	};
	for (int k = 0; k < W_KIND_COUNT; k++)
		if (sg->warn_count[k] > WARN_EACH)
			diag_add(dl, DIAG_WARN, name, 0, -1, _("%llu more %s than listed above"),
				 (unsigned long long)(sg->warn_count[k] - WARN_EACH), _(what[k]));
}

/* One buffer's walk: its ranges, each confirmed to start where the one before ended. */
struct part_walk {
	const char *name;
	const char *buf;
	size_t len;
	bool mapped;         /* a file's pages, which vanish if it shrinks */
	bool wrapped;        /* the array is a wrapper object's "traceEvents" */
	struct range_job slots[MAX_RANGES]; /* the ranges, in the order they were made */
	struct range_job *jobs[MAX_RANGES]; /* the same in file order */
	int used;            /* confirmed ranges; 0 when the buffer is not a trace */
	size_t n_ev, n_ctr;  /* what the confirmed ranges hold */
};

static bool jsmn_only_wanted(const struct trace_load_opts *opts)
{
	/* ASCPROF_JSMN_ONLY=1 reads with the reference tokenizer alone (comparisons) */
	const char *env = getenv("ASCPROF_JSMN_ONLY");
	return (opts && opts->jsmn_only) || (env && !strcmp(env, "1"));
}

/* The running range with the most left to walk, if that is worth a split; under q->mu. */
static struct range_job *busiest_range(struct range_queue *q)
{
	struct range_job *best = NULL;
	size_t most = 0;
	for (int i = 0; i < q->next; i++) {
		struct range_job *job = &q->jobs[i];
		if (!job->running)
			continue;
		size_t stop = atomic_load_explicit(&job->stop, memory_order_relaxed);
		size_t at = atomic_load_explicit(&job->at, memory_order_relaxed);
		size_t end = stop < job->len ? stop : job->len;
		/* a split gives half of the rest, and the rest shrinks until the walker looks */
		if (end > at && end - at >= 2 * q->split_min + q->check_bytes && end - at > most) {
			most = end - at;
			best = job;
		}
	}
	return best;
}

/* Takes ranges in file order; with none left, asks the busiest walker for half of its
 * rest and waits for it, until no walker has enough left to be worth it. */
static void *range_worker(void *arg)
{
	struct range_queue *q = arg;
	pthread_mutex_lock(&q->mu);
	for (;;) {
		if (q->next < q->n) {
			struct range_job *job = &q->jobs[q->next++];
			job->running = true;
			pthread_mutex_unlock(&q->mu);
			trace_walk_range(job);
			pthread_mutex_lock(&q->mu);
			job->running = false;
			pthread_cond_broadcast(&q->cv);
			continue;
		}
		struct range_job *victim = q->n < q->cap ? busiest_range(q) : NULL;
		if (!victim)
			break;
		atomic_store_explicit(&victim->split_wanted, true, memory_order_relaxed);
		pthread_cond_wait(&q->cv, &q->mu);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* jscan_open reads the file too: under its own guard */
struct open_call {
	struct jscan *js;
	const char *buf;
	size_t len;
	struct sbuf *err;
	bool ok;
};

static void open_guarded(void *arg)
{
	struct open_call *oc = arg;
	oc->ok = jscan_open(oc->js, oc->buf, oc->len, oc->err);
}

static bool walk_part(struct rank_store *rs, struct part_walk *pw, uint64_t base,
		      const struct trace_load_opts *opts, struct diag_list *dl)
{
	const char *buf = pw->buf;
	size_t len = pw->len;
	struct sbuf err = SBUF_INIT;
	struct jscan js;
	struct open_call oc = {&js, buf, len, &err, false};
	size_t fault;
	if (!mapguard_run(buf, len, open_guarded, &oc, &fault)) {
		diag_add(dl, DIAG_ERROR, pw->name, 0, (int64_t)fault,
			 _("the file shrank while it was read (its bytes from this offset on are gone); "
			 "nothing loaded"));
		sbuf_free(&err);
		return false;
	}
	if (!oc.ok) {
		diag_add(dl, DIAG_ERROR, pw->name, 0, -1, _("not a Chrome trace: %s; nothing loaded"), err.buf ? err.buf : "");
		sbuf_free(&err);
		return false;
	}
	sbuf_free(&err);
	rs->trace.wrapped |= js.shape == JSCAN_WRAPPED;
	pw->wrapped = js.shape == JSCAN_WRAPPED;

	int nthreads = opts && opts->threads > 0 ? opts->threads : xthread_cpus();
	if (nthreads > MAX_THREADS)
		nthreads = MAX_THREADS;
	if (len < PARALLEL_MIN_BYTES)
		nthreads = 1;
	size_t body = js.pos;
	struct range_job *slots = pw->slots, **jobs = pw->jobs;
	/* one range per thread to start with; a thread that ends first takes half of what
	 * another has left (trace_walk_range_split) */
	int nranges = opts && opts->initial_ranges > 0 && opts->initial_ranges < nthreads ? opts->initial_ranges
											 : nthreads;
	int njobs = 0;
	size_t prev_begin = body;
	struct range_queue q = {.jobs = slots, .cap = MAX_RANGES, .split_min = SPLIT_MIN_BYTES,
				.check_bytes = SPLIT_CHECK_BYTES};
	if (opts && opts->split_min_bytes) {
		q.split_min = opts->split_min_bytes;
		q.check_bytes = q.split_min / 4 ? q.split_min / 4 : 1;
	}
	for (int i = 0; i < nranges; i++) {
		size_t begin;
		if (i == 0) {
			begin = body;
		} else {
			struct resync_call rc = {
				buf, len, body + (size_t)((unsigned __int128)(len - body) * (unsigned)i / (unsigned)nranges),
				NOT_FOUND};
			if (!mapguard_run(buf, len, trace_walk_resync_guarded, &rc, NULL))
				break; /* the file shrank: the ranges so far cover what is left */
			begin = rc.at;
			if (begin == NOT_FOUND || begin <= prev_begin)
				break;
		}
		struct range_job *job = &slots[njobs++];
		memset(job, 0, sizeof *job);
		job->buf = buf;
		job->len = len;
		job->stop = len + 1;
		job->progress = opts ? opts->progress : NULL;
		job->jsmn_only = jsmn_only_wanted(opts);
		job->queue = nthreads > 1 ? &q : NULL;
		trace_walk_job_start(job, pw->name, base, begin);
		if (njobs > 1)
			slots[njobs - 2].stop = begin;
		prev_begin = begin;
	}
	int workers = nthreads;
	if (workers > rs->trace.threads_used)
		rs->trace.threads_used = workers;
	q.n = njobs;
	pthread_mutex_init(&q.mu, NULL);
	pthread_cond_init(&q.cv, NULL);
	pthread_t tids[MAX_THREADS];
	bool started[MAX_THREADS] = {false};
	for (int i = 1; i < workers; i++)
		started[i] = pthread_create(&tids[i], NULL, range_worker, &q) == 0;
	range_worker(&q);
	for (int i = 1; i < workers; i++)
		if (started[i])
			pthread_join(tids[i], NULL);
	pthread_mutex_destroy(&q.mu);
	pthread_cond_destroy(&q.cv);
	/* ranges split off while walking were added at the end: in file order */
	njobs = q.n;
	rs->trace.split_ranges += q.splits;
	for (int i = 0; i < njobs; i++) {
		slots[i].queue = NULL; /* a re-walk below is not split */
		int k = i;
		for (; k > 0 && jobs[k - 1]->begin > slots[i].begin; k--)
			jobs[k] = jobs[k - 1];
		jobs[k] = &slots[i];
	}
	/* Confirm each guessed boundary against the exact walk before it; re-walk a range
	 * from the exact boundary when the guess was wrong (e.g. "}, {" inside a string). */
	int used = 1;
	for (int i = 1; i < njobs; i++) {
		struct range_job *prev = jobs[used - 1];
		if (prev->how != RANGE_STOPPED)
			break; /* the array ended, was cut or broke before this range */
		struct range_job *job = jobs[i];
		if (prev->next_start != job->begin) {
			trace_seg_free(&job->seg);
			trace_walk_job_start(job, pw->name, base, prev->next_start);
			trace_walk_range(job);
			rs->trace.rewalked_ranges++;
		}
		used = i + 1;
	}
	for (int i = used; i < njobs; i++)
		trace_seg_free(&jobs[i]->seg);
	pw->used = used;
	for (int i = 0; i < used; i++) {
		pw->n_ev += jobs[i]->seg.n;
		pw->n_ctr += jobs[i]->seg.n_ctr;
		rs->trace.fast_elements += jobs[i]->fast;
	}
	return true;
}

/* What follows the events' closing ']': a bare array ends there, and a wrapper object has
 * other keys, but no second "traceEvents". */
struct tail_call {
	const char *buf;
	size_t len, from;
	bool wrapped;
	size_t extra_at, second_at; /* NOT_FOUND when none */
};

static void tail_scan(void *arg)
{
	struct tail_call *tc = arg;
	size_t at = jscan_skip_ws(tc->buf, tc->len, tc->from);
	tc->extra_at = tc->second_at = NOT_FOUND;
	if (!tc->wrapped) {
		if (at < tc->len)
			tc->extra_at = at;
		return;
	}
	static const char key[] = "\"traceEvents\"";
	const char *k = memmem(tc->buf + at, tc->len - at, key, sizeof key - 1);
	if (k)
		tc->second_at = (size_t)(k - tc->buf);
}

static void report_tail(struct part_walk *pw, size_t end, struct diag_list *dl)
{
	struct tail_call tc = {pw->buf, pw->len, end, pw->wrapped, NOT_FOUND, NOT_FOUND};
	if (!mapguard_run(pw->buf, pw->len, tail_scan, &tc, NULL))
		return; /* shrank meanwhile: nothing after the events to speak of */
	if (tc.extra_at != NOT_FOUND)
		diag_add(dl, DIAG_WARN, pw->name, 0, (int64_t)tc.extra_at,
			 _("%zu bytes after the closing ']' of the events are not read"), pw->len - tc.extra_at);
	if (tc.second_at != NOT_FOUND)
		diag_add(dl, DIAG_WARN, pw->name, 0, (int64_t)tc.second_at,
			 _("a second \"traceEvents\" key after the events that were read; its events are "
			 "not read (only the first array is)"));
}

/* Says how the part ended when it did not end with its closing bracket. */
static void report_part_end(struct rank_store *rs, struct part_walk *pw, struct trace_part *part,
			    struct diag_list *dl)
{
	struct range_job *last = pw->jobs[pw->used - 1];
	size_t len = pw->len;
	rs->trace.parsed_bytes += last->last_complete_end;
	if (last->how == RANGE_ARRAY_END)
		report_tail(pw, last->end_pos, dl);
	if (last->how == RANGE_ARRAY_END || last->how == RANGE_STOPPED)
		return;
	part->truncated = true;
	if (!rs->trace.truncated) {
		rs->trace.truncated = true;
		rs->trace.cut_offset = (int64_t)last->end_pos;
	}
	/* a file cut while it was read ends in a fault, or in the zeros of its last page */
	struct stat st;
	if (pw->mapped && stat(pw->name, &st) == 0 && (uint64_t)st.st_size < len) {
		diag_add(dl, DIAG_WARN, pw->name, 0, (int64_t)last->last_complete_end,
			 _("the file shrank while it was read (from %zu to %llu bytes): kept %zu events and "
			 "%zu counter samples from the complete elements before byte %zu; the rest was "
			 "not read"),
			 len, (unsigned long long)st.st_size, pw->n_ev, pw->n_ctr, last->last_complete_end);
		return;
	}
	if (last->how == RANGE_VANISHED)
		diag_add(dl, DIAG_WARN, pw->name, 0, (int64_t)last->end_pos,
			 _("the file shrank while it was read (its bytes from this offset on are gone): "
			 "kept %zu events and %zu counter samples from the complete elements before byte "
			 "%zu; the rest was not read"),
			 pw->n_ev, pw->n_ctr, last->last_complete_end);
	else if (last->how == RANGE_ERROR)
		diag_add(dl, DIAG_WARN, pw->name, 0, (int64_t)last->end_pos,
			 _("unexpected byte 0x%02X between elements: kept the %zu events before it, "
			 "ignored the remaining %zu bytes"),
			 last->err_byte, pw->n_ev, len - last->end_pos);
	else
		diag_add(dl, DIAG_WARN, pw->name, 0, (int64_t)last->end_pos,
			 _("the file is cut short (no closing ']'): kept %zu events and %zu counter samples "
			 "from the complete elements before byte %zu; %zu trailing bytes dropped"),
			 pw->n_ev, pw->n_ctr, last->last_complete_end, len - last->last_complete_end);
}

/* "B" events still open at the end of a segment, carried to the next ones by their lane's
 * texts (segments intern separately). */
struct be_carried {
	int64_t ts;
	uint64_t full_off, off;
	const char *name, *cat, *task_type, *file; /* the earlier segment's, alive until merged */
	uint32_t prev;
};

/* Pairs the "E" events each segment could not close with the "B" events earlier segments
 * left open, in file order; the spans join the segment of the "E". What stays unpaired is
 * reported. */
static void pair_across_segments(struct part_walk *pws, size_t n_parts, struct diag_list *dl)
{
	struct strtab *texts = strtab_new();
	struct u64map tops = {0};
	struct be_carried *open = NULL;
	size_t n_open = 0, cap_open = 0;
	for (size_t p = 0; p < n_parts; p++)
		for (int i = 0; i < pws[p].used; i++) {
			struct seg *sg = &pws[p].jobs[i]->seg;
			for (size_t k = 0; k < sg->n_ends; k++) {
				const struct be_end *en = &sg->ends[k];
				const struct seg_lane *ln = &sg->lanes[en->lane];
				uint64_t key = pair_key(strtab_intern_cstr(texts, strtab_str(sg->strs, ln->pid)),
							strtab_intern_cstr(texts, strtab_str(sg->strs, ln->tid)));
				bool found;
				uint32_t *top = u64map_slot(&tops, key, &found);
				if (!found)
					*top = BE_NONE;
				if (*top == BE_NONE) {
					trace_seg_warn(sg, W_END_ALONE, en->off,
						 _("\"E\" event with no \"B\" open on its thread (pid %s, tid %s); dropped"),
						 strtab_str(sg->strs, ln->pid), strtab_str(sg->strs, ln->tid));
					continue;
				}
				struct be_carried *b = &open[*top];
				*top = b->prev;
				uint32_t attr = trace_seg_attr(sg, strtab_intern_cstr(sg->strs, b->cat),
							 strtab_intern_cstr(sg->strs, b->task_type));
				trace_seg_push_be_span(sg, b->ts, b->full_off, strtab_intern_cstr(sg->strs, b->name), en->lane,
					     attr, en->ts, en->off);
				b->file = NULL; /* closed */
			}
			for (size_t k = 0; k < sg->n_opens; k++) {
				const struct be_open *o = &sg->opens[k];
				if (o->closed)
					continue;
				const struct seg_lane *ln = &sg->lanes[o->lane];
				uint64_t key = pair_key(strtab_intern_cstr(texts, strtab_str(sg->strs, ln->pid)),
							strtab_intern_cstr(texts, strtab_str(sg->strs, ln->tid)));
				bool found;
				uint32_t *top = u64map_slot(&tops, key, &found);
				xgrow(&open, &cap_open, n_open + 1, sizeof *open);
				open[n_open] = (struct be_carried){o->ts, sg->base + o->off, o->off,
								   strtab_str(sg->strs, o->name),
								   strtab_str(sg->strs, sg->attrs[o->attr].cat),
								   strtab_str(sg->strs, sg->attrs[o->attr].task_type),
								   sg->name_for_diag, found ? *top : BE_NONE};
				*top = (uint32_t)n_open++;
			}
		}
	size_t unclosed = 0;
	for (size_t k = 0; k < n_open; k++) {
		if (!open[k].file)
			continue;
		if (unclosed++ < WARN_EACH)
			diag_add(dl, DIAG_WARN, open[k].file, 0, (int64_t)open[k].off,
				 _("\"B\" event (\"%.60s\") never ended by an \"E\" on its thread; dropped"), open[k].name);
	}
	if (unclosed > WARN_EACH)
		diag_add(dl, DIAG_WARN, pws[0].name, 0, -1, _("%zu more \"B\" events never ended than listed above"),
			 unclosed - WARN_EACH);
	free(open);
	u64map_free(&tops);
	strtab_free(texts);
}

/* The parts a load mapped, unmapped (their buf then NULL). */
struct unmap_job {
	struct part_walk *pws;
	size_t n;
};

static void *unmap_parts(void *arg)
{
	struct unmap_job *u = arg;
	for (size_t i = 0; i < u->n; i++)
		if (u->pws[i].mapped && u->pws[i].buf) {
			munmap((void *)u->pws[i].buf, u->pws[i].len);
			u->pws[i].buf = NULL;
		}
	return NULL;
}

/* Merges the confirmed ranges of every part, in file order, then resolves metadata, lanes
 * and flows over the whole.
 *
 * unmap: the parts' mappings, unmapped on a helper thread (started here, joined by the
 * caller) once the merge's columns are allocated. An munmap holds the address space's
 * lock while it clears a 1 GB trace's page tables (20-40 ms), and every mmap and mremap
 * waits for it: started before the merge, it held the merge's allocations up that long
 * with the second core idle. The merge itself then only writes and faults pages in. */
static void merge_parts(struct rank_store *rs, struct part_walk *pws, size_t n_parts, int threads,
			const char *name, struct diag_list *dl, struct xthread *unmapper, struct unmap_job *unmap)
{
	pair_across_segments(pws, n_parts, dl);
	size_t n_ev = 0, n_ctr = 0, n_flows = 0, n_long = 0;
	for (size_t p = 0; p < n_parts; p++)
		for (int i = 0; i < pws[p].used; i++) {
			n_ev += pws[p].jobs[i]->seg.n;
			n_long += pws[p].jobs[i]->seg.n_long;
			n_ctr += pws[p].jobs[i]->seg.n_ctr;
			n_flows += pws[p].jobs[i]->seg.n_flows;
		}
	struct seg *first = NULL;
	for (size_t p = 0; p < n_parts && !first; p++)
		if (pws[p].used)
			first = &pws[p].jobs[0]->seg;
	struct seg none = {0}, *adopt = first ? first : &none;
	ADOPT_COLUMN(rs->ev_dur, adopt->dur, n_ev);
	ADOPT_COLUMN(rs->ev_name, adopt->name, n_ev);
	ADOPT_COLUMN(rs->ev_kind, adopt->kind, n_ev);
	rs->ev_off_lo = spill_alloc_lazy((n_ev ? n_ev : 1) * sizeof *rs->ev_off_lo);
	rs->ev_off_block = xmalloc(((n_ev >> STORE_OFF_SHIFT) + 1) * sizeof *rs->ev_off_block);
	rs->long_durs = xmalloc((n_long ? n_long : 1) * sizeof *rs->long_durs);
	ADOPT_COLUMN(rs->ctr_ts, adopt->ctr_ts, n_ctr);
	ADOPT_COLUMN(rs->ctr_value, adopt->ctr_value, n_ctr);
	ADOPT_COLUMN(rs->ctr_track, adopt->ctr_track, n_ctr);
	ADOPT_COLUMN(rs->ctr_off, adopt->ctr_off, n_ctr);
	ADOPT_COLUMN(rs->flows, adopt->flows, n_flows);
	rs->n_ev = n_ev;
	rs->n_ctr = n_ctr;
	struct merge_state ms = {.rs = rs};
	rs->attrs = xmalloc(sizeof *rs->attrs);
	rs->attrs[0] = (struct ev_attr){0, 0};
	rs->n_attrs = 1;
	ms.cap_attrs = 1;
	bool found;
	*u64map_slot(&ms.attr_map, pair_key(0, 0), &found) = 0;
	size_t n_segs = 0, ev_at = 0, ctr_at = 0;
	for (size_t p = 0; p < n_parts; p++)
		n_segs += (size_t)pws[p].used;
	struct merge_columns mc = {.rs = rs, .n_segs = n_segs};
	mc.segs = xmalloc((n_segs ? n_segs : 1) * sizeof *mc.segs);
	mc.maps = xcalloc(n_segs ? n_segs : 1, sizeof *mc.maps);
	for (size_t p = 0, k = 0; p < n_parts; p++)
		for (int i = 0; i < pws[p].used; i++, k++) {
			struct seg *sg = mc.segs[k] = &pws[p].jobs[i]->seg;
			mc.maps[k].ev_at = ev_at;
			mc.maps[k].ctr_at = ctr_at;
			mc.maps[k].adopted = sg == first;
			trace_merge_maps_build(&ms, sg, &mc.maps[k]);
			report_seg_counts(sg, pws[p].name, dl);
			ev_at += sg->n;
			ctr_at += sg->n_ctr;
		}
	/* a large merge is memory traffic: its three jobs on two cores */
	struct merge_queue q = {.mc = &mc};
	atomic_init(&q.next, 0);
	xthread_start(unmapper, unmap_parts, unmap, threads > 1);
	struct xthread helper;
	xthread_start(&helper, trace_merge_worker, &q, threads > 1 && n_ev >= (1u << 18));
	trace_merge_worker(&q);
	xthread_join(&helper);
	for (size_t k = 0; k < n_segs; k++) {
		trace_merge_maps_free(&mc.maps[k]);
		trace_seg_free(mc.segs[k]);
	}
	free(mc.segs);
	free(mc.maps);
	trace_merge_apply_meta(&ms, name, dl);
	free(ms.meta);
	u64map_free(&ms.lane_map);
	u64map_free(&ms.attr_map);
	u64map_free(&ms.track_map);
	u64map_free(&ms.kind_map);
}

static void add_part(struct rank_store *rs, const char *path, uint64_t base, uint64_t size)
{
	rs->trace.parts = xrealloc(rs->trace.parts, (rs->trace.n_parts + 1) * sizeof *rs->trace.parts);
	rs->trace.parts[rs->trace.n_parts++] = (struct trace_part){xstrdup(path), base, size, false};
}

/* Walks the parts (already in memory) and merges them; 0 when at least one was a trace. */
static int load_walks(struct rank_store *rs, struct part_walk *pws, size_t n_parts,
		      const struct trace_load_opts *opts, struct diag_list *dl)
{
	double t0 = now_seconds();
	size_t walked = 0;
	for (size_t p = 0; p < n_parts; p++) {
		if (!walk_part(rs, &pws[p], rs->trace.parts[p].base, opts, dl))
			continue;
		report_part_end(rs, &pws[p], &rs->trace.parts[p], dl);
		walked++;
	}
	double t_walk = now_seconds();
	rs->trace.walk_seconds = t_walk - t0;
	stagetime_add(STAGE_WALK, t0);
	if (!walked)
		return -1;
	/* nothing after the walk reads the files' bytes: their mappings go on a helper thread
	 * while the merge runs (a 1 GB trace's unmap took 27 ms, on one core alone) */
	struct xthread unmapper;
	struct unmap_job unmap = {pws, n_parts};
	merge_parts(rs, pws, n_parts, rs->trace.threads_used, rs->trace.parts[0].path, dl, &unmapper, &unmap);
	double t_merge = now_seconds();
	rs->trace.merge_seconds = t_merge - t_walk;
	stagetime_add(STAGE_MERGE, t_walk);
	lanes_finish(rs, rs->trace.parts[0].path, dl);
	trace_merge_report_bad_utf8(rs, rs->trace.parts[0].path, dl);
	xthread_join(&unmapper);
	rs->trace.finish_seconds = now_seconds() - t_merge;
	rs->trace.load_seconds = now_seconds() - t0;
	return 0;
}

int trace_load_buffer(struct rank_store *rs, const char *name, const char *buf, size_t len,
		      const struct trace_load_opts *opts, struct diag_list *dl)
{
	free(rs->trace.path);
	rs->trace.path = xstrdup(name);
	rs->trace.size = len;
	rs->trace.mem = buf;
	rs->trace.mem_len = len;
	rs->trace.cut_offset = -1;
	add_part(rs, name, 0, len);
	struct part_walk *pw = xcalloc(1, sizeof *pw);
	*pw = (struct part_walk){.name = name, .buf = buf, .len = len};
	int r = load_walks(rs, pw, 1, opts, dl);
	free(pw);
	return r;
}

/* Maps one part; NULL (with a message) when it cannot be read or is empty. */
static void *map_part(const char *path, const struct trace_load_opts *opts, uint64_t *size,
		      struct diag_list *dl)
{
	void *map = NULL;
	int err = 0;
	uint64_t max = opts ? opts->max_file_bytes : 0;
	switch (mapguard_map_file(path, max, &map, size, NULL, &err)) {
	case MAP_FILE_OK:
		return map;
	case MAP_FILE_CANNOT_OPEN:
		diag_add(dl, DIAG_ERROR, path, 0, -1, _("cannot open: %s"), strerror(err));
		break;
	case MAP_FILE_NOT_REGULAR:
		diag_add(dl, DIAG_ERROR, path, 0, -1, _("not a regular file; skipped"));
		break;
	case MAP_FILE_EMPTY:
		diag_add(dl, DIAG_WARN, path, 0, -1, _("empty file (0 bytes); skipped"));
		break;
	case MAP_FILE_TOO_BIG:
		diag_add(dl, DIAG_ERROR, path, 0, -1,
			 _("%llu bytes is over the limit of %llu bytes set by --max-trace-bytes; skipped "
			 "(a larger N, or 0 for no limit, reads it)"),
			 (unsigned long long)*size, (unsigned long long)max);
		break;
	case MAP_FILE_CANNOT_MAP:
		diag_add(dl, DIAG_ERROR, path, 0, -1, _("cannot map: %s"), strerror(err));
		break;
	}
	return NULL;
}

int trace_load_parts(struct rank_store *rs, const char *const *paths, size_t n,
		     const struct trace_load_opts *opts, struct diag_list *dl)
{
	if (n == 0)
		return -1;
	free(rs->trace.path);
	rs->trace.path = xstrdup(paths[0]);
	rs->trace.cut_offset = -1;
	struct part_walk *pws = xcalloc(n, sizeof *pws);
	size_t kept = 0;
	uint64_t base = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t size = 0;
		void *map = map_part(paths[i], opts, &size, dl);
		rs->trace.size += size;
		if (!map)
			continue;
		add_part(rs, paths[i], base, size);
		pws[kept++] = (struct part_walk){.name = rs->trace.parts[rs->trace.n_parts - 1].path,
						 .buf = map, .len = (size_t)size, .mapped = true};
		base += size;
	}
	int r = kept ? load_walks(rs, pws, kept, opts, dl) : -1;
	unmap_parts(&(struct unmap_job){pws, kept}); /* those the load did not */
	free(pws);
	return r;
}

int trace_load(struct rank_store *rs, const char *path, const struct trace_load_opts *opts,
	       struct diag_list *dl)
{
	return trace_load_parts(rs, &path, 1, opts, dl);
}

/* ---- lazy args ---------------------------------------------------------------------- */

int trace_element_json(const struct rank_store *rs, uint64_t off, struct sbuf *out)
{
	sbuf_reset(out);
	if (rs->trace.mem) {
		if (off >= rs->trace.mem_len)
			goto gone;
		size_t e = jscan_value_end(rs->trace.mem, rs->trace.mem_len, (size_t)off);
		if (e == NOT_FOUND)
			goto gone;
		sbuf_add(out, rs->trace.mem + off, e - (size_t)off);
		return 0;
	}
	/* the part holding off: parts are few and in offset order */
	const struct trace_part *part = NULL;
	for (size_t i = 0; i < rs->trace.n_parts; i++)
		if (off >= rs->trace.parts[i].base && off - rs->trace.parts[i].base < rs->trace.parts[i].size)
			part = &rs->trace.parts[i];
	if (!part)
		goto gone;
	off -= part->base;
	int fd = open(part->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		sbuf_addf(out, "cannot reopen %s: %s", part->path, strerror(errno));
		return -1;
	}
	size_t want = 4096;
	const size_t limit = 256u << 20;
	char *buf = NULL;
	for (;;) {
		buf = xrealloc(buf, want);
		ssize_t n = pread(fd, buf, want, (off_t)off);
		if (n <= 0)
			break;
		size_t e = jscan_value_end(buf, (size_t)n, 0);
		if (e != NOT_FOUND && buf[0] == '{') {
			sbuf_add(out, buf, e);
			free(buf);
			close(fd);
			return 0;
		}
		if ((size_t)n < want || want >= limit)
			break;
		want *= 4;
	}
	free(buf);
	close(fd);
gone:
	sbuf_reset(out);
	sbuf_addf(out, "the element at byte %llu can no longer be read (the file changed?)",
		  (unsigned long long)off);
	return -1;
}

int trace_event_args(const struct rank_store *rs, size_t ev, struct sbuf *out)
{
	struct sbuf raw = SBUF_INIT;
	if (ev >= rs->n_ev || trace_element_json(rs, store_ev_off(rs, ev), &raw) != 0) {
		sbuf_reset(out);
		sbuf_adds(out, raw.len ? sbuf_str(&raw) : "no such event");
		sbuf_free(&raw);
		return -1;
	}
	struct jtok jt;
	jtok_init(&jt);
	int r = jtok_parse(&jt, raw.buf, raw.len);
	size_t flattened = 0;
	if (r == JTOK_ERROR_DEPTH) {
		flattened = jtok_flatten_deep(raw.buf, raw.len, JTOK_MAX_DEPTH);
		r = jtok_parse(&jt, raw.buf, raw.len);
	}
	int count = 0;
	sbuf_reset(out);
	if (flattened && r > 0)
		sbuf_addf(out, "(%zu value%s nested more than %d deep shown as 0)\n", flattened,
			  flattened == 1 ? "" : "s", JTOK_MAX_DEPTH);
	int args = r > 0 ? jtok_obj_get(&jt, raw.buf, 0, "args") : -1;
	if (args >= 0 && jt.t[args].type == JSMN_OBJECT) {
		int nkeys = jt.t[args].size;
		int i = args + 1;
		for (int k = 0; k < nkeys && i + 1 < jt.n; k++) {
			jtok_unescape(raw.buf, &jt.t[i], out);
			sbuf_adds(out, ": ");
			const jsmntok_t *v = &jt.t[i + 1];
			if (v->type == JSMN_STRING || v->type == JSMN_PRIMITIVE)
				jtok_unescape(raw.buf, v, out);
			else
				sbuf_add(out, raw.buf + v->start, (size_t)(v->end - v->start));
			sbuf_addc(out, '\n');
			count++;
			i = jtok_skip(&jt, i + 1);
		}
	} else if (r < 0) {
		sbuf_addf(out, "the element no longer parses: %s", jtok_error_name(r));
		count = -1;
	}
	jtok_free(&jt);
	sbuf_free(&raw);
	return count;
}
