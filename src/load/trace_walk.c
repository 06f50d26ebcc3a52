/* SPDX-License-Identifier: MIT */
/* The trace loader's ranges: a part walked element by element, split on demand (trace_internal.h). */
#include "config.h"
#include "trace_internal.h"

void trace_walk_resync_guarded(void *arg)
{
	struct resync_call *rc = arg;
	rc->at = jscan_resync(rc->buf, rc->len, rc->guess);
}

void trace_walk_job_start(struct range_job *job, const char *name, uint64_t base, size_t begin)
{
	trace_seg_init(&job->seg, name);
	job->seg.base = base;
	job->begin = begin;
	atomic_store_explicit(&job->at, begin, memory_order_relaxed);
}

/* Called by the thread walking job, at pos, when an idle thread asked for work: gives
 * the second half of what is left, from an element start found there, to a new range of
 * the queue; returns the job's stop (lowered when it gave). The thread that walks the
 * job is the only one that moves its stop, so no element is walked twice: if the guess
 * was not an element start after all, the confirmation after the walk re-walks the new
 * range from where this one really stopped, as for the first ranges. */
size_t trace_walk_range_split(struct range_job *job, size_t pos, size_t stop)
{
	struct range_queue *q = job->queue;
	size_t end = stop < job->len ? stop : job->len;
	size_t nb = NOT_FOUND;
	atomic_store_explicit(&job->split_wanted, false, memory_order_relaxed);
	/* the resync reads the file: outside the lock, and under a guard of its own (a
	 * page vanished ahead is no reason to end this walk where the guess was) */
	struct resync_call rc = {job->buf, job->len, pos + (end - pos) / 2, NOT_FOUND};
	if (end > pos && end - pos >= 2 * q->split_min && mapguard_run(job->buf, job->len, trace_walk_resync_guarded, &rc, NULL))
		nb = rc.at;
	pthread_mutex_lock(&q->mu);
	if (nb != NOT_FOUND && nb > pos && nb < end && q->n < q->cap) {
		struct range_job *nj = &q->jobs[q->n];
		memset(nj, 0, sizeof *nj);
		nj->buf = job->buf;
		nj->len = job->len;
		nj->progress = job->progress;
		nj->jsmn_only = job->jsmn_only;
		nj->queue = q;
		trace_walk_job_start(nj, job->seg.name_for_diag, job->seg.base, nb);
		atomic_store_explicit(&nj->stop, stop, memory_order_relaxed);
		atomic_store_explicit(&job->stop, nb, memory_order_relaxed);
		stop = nb;
		q->n++;
		q->splits++;
	}
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	return stop;
}

/* Every SPLIT_CHECK_BYTES of the walk: publishes how far it is, and gives half of the rest
 * away when asked. Returns the job's stop. */
static size_t range_checkpoint(struct range_job *job, size_t pos, size_t stop)
{
	atomic_store_explicit(&job->at, pos, memory_order_relaxed);
	if (job->queue && atomic_load_explicit(&job->split_wanted, memory_order_relaxed))
		stop = trace_walk_range_split(job, pos, stop);
	return stop;
}

static void range_walk_body(void *arg)
{
	struct range_job *job = arg;
	struct jscan js = {.buf = job->buf, .len = job->len, .pos = job->begin};
	size_t start, end;
	uint64_t reported = job->begin;
	job->reported = reported;
	job->last_complete_end = job->begin;
	/* read once: the calls below could change them as far as the compiler knows */
	const char *buf = job->buf;
	size_t len = job->len, stop = atomic_load_explicit(&job->stop, memory_order_relaxed);
	size_t check_bytes = job->queue ? job->queue->check_bytes : SPLIT_CHECK_BYTES;
	size_t check_at = job->begin + check_bytes;
	bool fast_ok = !job->jsmn_only;
	for (;;) {
		/* the fast scanner reads an element and finds its end in one pass; anything it is
		 * not sure of goes through the boundary scan and jsmn */
		size_t at = js.pos;
		if (len - at >= 3 && !memcmp(buf + at, ", {", 3)) {
			at += 2; /* between python's elements: no call */
		} else {
			at = jscan_skip_ws(buf, len, at);
			while (at < len && buf[at] == ',')
				at = jscan_skip_ws(buf, len, at + 1);
		}
		if (at >= check_at) {
			check_at = at + check_bytes;
			stop = range_checkpoint(job, at, stop);
		}
		if (fast_ok && at < stop && at < len && buf[at] == '{') {
			struct elem e;
			size_t used;
			if (elem_fast(buf + at, len - at, &e, &used) == ELEM_OK) {
				trace_seg_take_element(&job->seg, &e, at);
				js.pos = at + used;
				job->last_complete_end = js.pos;
				job->fast++;
				if (job->progress && js.pos - reported > (1u << 20)) {
					atomic_fetch_add(job->progress, js.pos - reported);
					job->reported = reported = js.pos;
				}
				continue;
			}
		}
		js.pos = at;
		enum jscan_status st = jscan_next(&js, &start, &end);
		if (st == JSCAN_ELEMENT) {
			if (start >= stop) {
				job->how = RANGE_STOPPED;
				job->next_start = start;
				break;
			}
			trace_seg_parse_element(&job->seg, job->buf, start, end);
			job->last_complete_end = end;
			if (job->progress && end - reported > (1u << 20)) {
				atomic_fetch_add(job->progress, end - reported);
				job->reported = reported = end;
			}
			continue;
		}
		job->end_pos = js.pos;
		job->how = st == JSCAN_END ? RANGE_ARRAY_END
			   : st == JSCAN_TRUNCATED ? RANGE_TRUNCATED
						  : RANGE_ERROR;
		if (job->how == RANGE_ERROR && js.pos < job->len)
			job->err_byte = (unsigned char)job->buf[js.pos];
		break;
	}
}

/* Walks one range; a file that shrinks under the walk ends the range where its bytes
 * vanished, keeping the complete elements before (the segment is only ever appended to
 * after an element's bytes were read). */
void *trace_walk_range(void *arg)
{
	struct range_job *job = arg;
	size_t fault;
	if (!mapguard_run(job->buf, job->len, range_walk_body, job, &fault)) {
		job->how = RANGE_VANISHED;
		job->end_pos = fault;
	}
	if (job->progress && job->last_complete_end > job->reported)
		atomic_fetch_add(job->progress, job->last_complete_end - job->reported);
	return NULL;
}
