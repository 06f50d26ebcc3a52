/* SPDX-License-Identifier: MIT */
/* The serving analysis (see service.h). */
#include "config.h"
#include "service.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "nearest_rank.h"
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
	nearest_rank_select2(v, n, 0.50, 0.90, &d.p50, &d.p90);
	d.p99 = nearest_rank_select(v, n, 0.99);
	d.max = nearest_rank_select(v, n, 1.0);
	return d;
}

int64_t service_request_tpot(const struct serving_request *q)
{
	if (q->ttft_ns == SERVING_NONE_NS || q->exec_ns == SERVING_NONE_NS || q->reply_tokens < 2 ||
	    q->exec_ns < q->ttft_ns)
		return SERVING_NONE_NS;
	return (q->exec_ns - q->ttft_ns) / (q->reply_tokens - 1);
}

static void service_requests(struct service_analysis *sa, const struct serving *sv)
{
	/* the 2024 dump, or a current chrome_tracing.json read alone (its spans only) */
	const char *no_table = sv->gen == SERVING_2024 ? N_("no request table in this output (the 2024 dump has none)")
						       : N_("no request table in this output (a service trace alone has none)");
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
		if (service_request_tpot(q) != SERVING_NONE_NS)
			tpot[np++] = service_request_tpot(q);
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

const char *const service_ttft_parts[4] = {N_("queue wait"), N_("prefill execution"), N_("scheduling"),
					   N_("waiting behind other batches")};
const char *const service_tpot_parts[4] = {N_("decode execution"), N_("prefill batches in between"),
					   N_("bubbles between forwards"), NULL};

/* The median of n values (reordered), -1 with none. */
static int64_t service_median(int64_t *v, size_t n) { return n ? nearest_rank_select(v, n, 0.5) : -1; }

/* The part that holds 40 % or more of base (the parts partition it), by name; no verdict
 * otherwise. */
static void service_bound_of(struct service_bound *b, int64_t base, const int64_t parts[4],
			     const char *const names[4], const char *missing)
{
	memset(b, 0, sizeof *b);
	b->median = base;
	memcpy(b->parts, parts, sizeof b->parts);
	if (base <= 0) {
		b->why = missing ? missing : N_("none of its parts is in the output");
		return;
	}
	int top = -1;
	for (int i = 0; i < 4; i++)
		if (names[i] && parts[i] >= 0 && (top < 0 || parts[i] > parts[top]))
			top = i;
	b->part = names[top];
	b->share_pct = 100.0 * (double)parts[top] / (double)base;
	if (b->share_pct < 40.0) {
		b->why = N_("no part holds 40 percent of it");
		return;
	}
	b->valid = true;
}

static void service_bounds(struct service_analysis *sa, const struct serving *sv)
{
	size_t nb = sv->n_batch + sv->n_fwd + 1;
	int64_t *pre = xmalloc(nb * sizeof *pre), *dec = xmalloc(nb * sizeof *dec), *form = xmalloc(nb * sizeof *form),
		*pre_only = xmalloc(nb * sizeof *pre_only), *bub_all = xmalloc(nb * sizeof *bub_all),
		*dsize = xmalloc(nb * sizeof *dsize), *q = xmalloc((sv->n_req + 1) * sizeof *q); /* per request */
	size_t npre = 0, ndec = 0, nform = 0, npre_only = 0, nbub_all = 0, nds = 0, nq = 0;
	/* executions: the forwards where there are, else the executed batches. dec: those that
	 * make decode tokens (decode and mixed); pre: those that carry prompts (prefill and
	 * mixed); pre_only: prompts alone */
	bool fwd = sv->n_fwd > 0;
	size_t n = fwd ? sv->n_fwd : sv->n_batch;
	for (size_t i = 0; i < n; i++) {
		int64_t a = fwd ? sv->fwd[i].start_ns : sv->batch[i].start_ns, b = fwd ? sv->fwd[i].end_ns : sv->batch[i].end_ns;
		uint8_t type = fwd ? sv->fwd[i].type : sv->batch[i].type;
		int32_t size = fwd ? sv->fwd[i].size : sv->batch[i].size;
		if (!fwd && !sv->batch[i].exec) {
			if (a != SERVING_NONE_NS && b != SERVING_NONE_NS)
				form[nform++] = b - a;
			continue;
		}
		if (a == SERVING_NONE_NS || b == SERVING_NONE_NS)
			continue;
		if (type == SBT_DECODE || type == SBT_MIXED)
			dec[ndec++] = b - a;
		if (type == SBT_DECODE && size >= 0)
			dsize[nds++] = size;
		if (type == SBT_PREFILL || type == SBT_MIXED)
			pre[npre++] = b - a;
		if (type == SBT_PREFILL)
			pre_only[npre_only++] = b - a;
		if (fwd && sv->fwd[i].bubble_ns != SERVING_NONE_NS && sv->fwd[i].bubble_ns > 0) {
			bub_all[nbub_all++] = sv->fwd[i].bubble_ns;
			if (sa->worst_forward == SIZE_MAX || sv->fwd[i].bubble_ns > sv->fwd[sa->worst_forward].bubble_ns)
				sa->worst_forward = i;
		}
	}
	for (size_t i = 0; fwd && i < sv->n_batch; i++) /* the batches formed beside the forwards */
		if (!sv->batch[i].exec && sv->batch[i].start_ns != SERVING_NONE_NS && sv->batch[i].end_ns != SERVING_NONE_NS)
			form[nform++] = sv->batch[i].end_ns - sv->batch[i].start_ns;
	for (size_t i = 0; i < sv->n_req; i++) {
		if (sv->req[i].queue_ns != SERVING_NONE_NS)
			q[nq++] = sv->req[i].queue_ns;
		if (sv->req[i].ttft_ns != SERVING_NONE_NS &&
		    (sa->worst_request == SIZE_MAX || sv->req[i].ttft_ns > sv->req[sa->worst_request].ttft_ns))
			sa->worst_request = i;
	}
	/* TTFT: its median's parts, the rest what none of them holds */
	int64_t tp[4] = {service_median(q, nq), service_median(pre, npre), service_median(form, nform), -1};
	int64_t ttft = sa->ttft.valid ? sa->ttft.p50 : -1, known = 0;
	for (int i = 0; i < 3; i++)
		known += tp[i] > 0 ? tp[i] : 0;
	if (ttft > 0)
		tp[3] = ttft > known ? ttft - known : 0;
	/* without TTFT no verdict: the parts' sum is not a first token's latency (the 2024 dump's
	 * one request waited seconds, its parts' medians add to 0.15 ms) */
	service_bound_of(&sa->ttft_bound, ttft > 0 ? (ttft > known ? ttft : known) : 0, tp, service_ttft_parts,
			 sa->ttft.valid ? NULL : sa->ttft.why);
	if (ttft > 0)
		sa->ttft_bound.median = ttft;
	/* TPOT: a decode token is made once per decode or mixed forward; the time between two of
	 * them is their execution, the prompt-only batches run between them and the bubbles, each
	 * per token-making forward (the three partition the forwards' span) */
	int64_t exec_sum = 0, pre_sum = 0, bub_sum = 0;
	for (size_t i = 0; i < ndec; i++)
		exec_sum += dec[i];
	for (size_t i = 0; i < npre_only; i++)
		pre_sum += pre_only[i];
	for (size_t i = 0; i < nbub_all; i++)
		bub_sum += bub_all[i];
	int64_t dp[4] = {-1, -1, -1, -1}, per = 0;
	if (ndec) {
		dp[0] = exec_sum / (int64_t)ndec;
		dp[1] = pre_sum / (int64_t)ndec;
		dp[2] = nbub_all ? bub_sum / (int64_t)ndec : -1;
		per = dp[0] + dp[1] + (dp[2] > 0 ? dp[2] : 0);
	}
	service_bound_of(&sa->tpot_bound, sa->tpot.valid ? per : -1, dp, service_tpot_parts,
			 sa->tpot.valid ? NULL : sa->tpot.why);
	sa->decode_size_p50 = service_median(dsize, nds);
	free(pre);
	free(dec);
	free(form);
	free(pre_only);
	free(bub_all);
	free(dsize);
	free(q);
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
	sa->worst_request = sa->worst_forward = SIZE_MAX;
	service_bounds(sa, sv);
	return sa;
}

void service_free(struct service_analysis *sa) { free(sa); }

/* batch order for service_request_batches: by start, then index */
static int service_batch_cmp(const void *a, const void *b, void *ctx)
{
	const struct serving *sv = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int64_t x = sv->batch[i].start_ns, y = sv->batch[j].start_ns;
	return x < y ? -1 : x > y ? 1 : (i > j) - (i < j);
}

size_t service_request_batches(const struct serving *sv, size_t req, size_t *out, size_t max)
{
	if (req >= sv->n_req)
		return 0;
	const struct serving_request *q = &sv->req[req];
	if (q->start_ns == SERVING_NONE_NS || q->queue_ns == SERVING_NONE_NS || q->exec_ns == SERVING_NONE_NS)
		return 0;
	/* 1 µs either side: three decimals of ms, a sum of two truncated values */
	int64_t from = q->start_ns + q->queue_ns - 1000, to = q->start_ns + q->exec_ns + 1000;
	size_t n = 0, *all = xmalloc((sv->n_batch ? sv->n_batch : 1) * sizeof *all);
	for (size_t i = 0; i < sv->n_batch; i++) {
		const struct serving_batch *b = &sv->batch[i];
		if (b->exec && b->start_ns >= from && b->end_ns <= to)
			all[n++] = i;
	}
	xqsort_r(all, n, sizeof *all, service_batch_cmp, (void *)sv);
	if (max)
		memcpy(out, all, (n < max ? n : max) * sizeof *out);
	free(all);
	return n;
}
