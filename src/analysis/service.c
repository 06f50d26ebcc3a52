/* SPDX-License-Identifier: MIT */
/* The serving analysis (see service.h). */
#include "config.h"
#include "service.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "result.h"
#include "xalloc.h"

/* The percentiles of v (n values, reordered), or why when there are none. */
static struct service_dist service_dist_of(int64_t *v, size_t n, const char *why)
{
	struct service_dist d = {.n = n};
	if (!n) {
		d.why = why;
		return d;
	}
	d.valid = true;
	analysis_nearest_rank_select2(v, n, 0.50, 0.90, &d.p50, &d.p90);
	d.p99 = analysis_nearest_rank_select(v, n, 0.99);
	d.max = analysis_nearest_rank_select(v, n, 1.0);
	return d;
}

static void service_requests(struct service_analysis *sa, const struct serving *sv)
{
	static const char *const no_table = N_("no request table in this output (the 2024 dump has none)");
	if (sv->have_requests) {
		sa->requests_valid = true;
		sa->requests_from = N_("request table");
		sa->requests = sv->n_req;
	} else if (sv->http_spans) {
		sa->requests_valid = true;
		sa->requests_from = N_("httpReq spans");
		sa->requests = sv->http_spans;
	}
	size_t n = sv->n_req;
	int64_t *ttft = xmalloc((n ? n : 1) * sizeof *ttft), *tpot = xmalloc((n ? n : 1) * sizeof *tpot),
		*e2e = xmalloc((n ? n : 1) * sizeof *e2e), *queue = xmalloc((n ? n : 1) * sizeof *queue);
	size_t nt = 0, np = 0, ne = 0, nq = 0;
	for (size_t i = 0; i < n; i++) {
		const struct serving_request *q = &sv->req[i];
		if (q->ttft_ns != SERVING_NONE_NS)
			ttft[nt++] = q->ttft_ns;
		if (q->exec_ns != SERVING_NONE_NS)
			e2e[ne++] = q->exec_ns;
		if (q->queue_ns != SERVING_NONE_NS)
			queue[nq++] = q->queue_ns;
		if (q->ttft_ns != SERVING_NONE_NS && q->exec_ns != SERVING_NONE_NS && q->reply_tokens >= 2 &&
		    q->exec_ns >= q->ttft_ns)
			tpot[np++] = (q->exec_ns - q->ttft_ns) / (q->reply_tokens - 1);
	}
	const char *why_col = N_("the request table has no such column");
	sa->ttft = service_dist_of(ttft, nt, sv->have_requests ? why_col : no_table);
	sa->tpot = service_dist_of(tpot, np,
				   sv->have_requests ? N_("no request with a first token latency, an execution time and "
							  "2 or more reply tokens")
						     : no_table);
	sa->e2e = service_dist_of(e2e, ne, sv->have_requests ? why_col : no_table);
	sa->queue = service_dist_of(queue, nq, sv->have_requests ? why_col : no_table);
	free(ttft);
	free(tpot);
	free(e2e);
	free(queue);
}

static void service_batches(struct service_analysis *sa, const struct serving *sv)
{
	if (!sv->have_batches) {
		sa->batches_why = N_("no batch table or batch spans in this output");
	} else {
		sa->batches_valid = true;
	}
	int64_t *sizes = xmalloc((sv->n_batch ? sv->n_batch : 1) * sizeof *sizes);
	size_t ns = 0;
	for (size_t i = 0; i < sv->n_batch; i++) {
		const struct serving_batch *b = &sv->batch[i];
		int64_t d = b->start_ns != SERVING_NONE_NS && b->end_ns != SERVING_NONE_NS && b->end_ns > b->start_ns
				    ? b->end_ns - b->start_ns
				    : 0;
		if (!b->exec) {
			sa->schedules++;
			sa->sched_ns += d;
			continue;
		}
		sa->batches[b->type < SBT_COUNT ? b->type : SBT_UNKNOWN]++;
		sa->exec_ns += d;
		if (b->size >= 0)
			sizes[ns++] = b->size;
	}
	sa->batch_size = service_dist_of(sizes, ns, N_("no batch size given"));
	free(sizes);
}

static void service_forwards(struct service_analysis *sa, const struct serving *sv)
{
	if (!sv->have_forwards) {
		sa->forwards_why = N_("no forward table in this output");
		return;
	}
	sa->forwards_valid = true;
	sa->forwards = sv->n_fwd;
	for (size_t i = 0; i < sv->n_fwd; i++) {
		int64_t b = sv->fwd[i].bubble_ns;
		if (b == SERVING_NONE_NS || b < 0)
			continue;
		sa->bubble_ns += b;
		if (b > sa->bubble_max_ns)
			sa->bubble_max_ns = b;
	}
	sa->bubble_pct = sa->window_ns > 0 ? 100.0 * (double)sa->bubble_ns / (double)sa->window_ns : 0;
}

static void service_samples(struct service_analysis *sa, const struct serving *sv)
{
	for (size_t i = 0; i < sv->n_kv; i++) {
		double pct = 100.0 * sv->kv[i].v[0];
		if (!sa->kv_valid || pct > sa->kv_max_pct) {
			sa->kv_max_pct = pct;
			sa->kv_max_at = sv->kv[i].t_ns;
		}
		sa->kv_valid = true;
	}
	for (size_t i = 0; i < sv->n_queue; i++) {
		sa->waiting_max = fmax(sa->queue_valid ? sa->waiting_max : 0, sv->queue[i].v[0]);
		sa->running_max = fmax(sa->queue_valid ? sa->running_max : 0, sv->queue[i].v[1]);
		sa->queue_valid = true;
	}
}

struct service_analysis *service_analyse(const struct serving *sv)
{
	if (!sv || sv->gen == SERVING_NONE || sv->gen == SERVING_RAW)
		return NULL;
	struct service_analysis *sa = xcalloc(1, sizeof *sa);
	sa->gen = sv->gen;
	sa->path = sv->dir;
	sa->first_ns = sv->first_ns;
	if (sv->first_ns != SERVING_NONE_NS && sv->last_end_ns != SERVING_NONE_NS)
		sa->window_ns = sv->last_end_ns - sv->first_ns;
	service_requests(sa, sv);
	service_batches(sa, sv);
	service_forwards(sa, sv);
	service_samples(sa, sv);
	return sa;
}

void service_free(struct service_analysis *sa) { free(sa); }
