/* SPDX-License-Identifier: MIT */
/* Per-rank metrics from interval sets and the CSV tables, and the cross-checks against
 * the exporter's own figures (metrics.h). */
#include "metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmp.h"
#include "evkind.h"
#include "i18n.h"
#include "lanes.h"
#include "num.h"
#include "sbuf.h"
#include "xalloc.h"
#include "xsort.h"


static double us(int64_t ns) { return (double)ns / 1000.0; }

static double pct(int64_t part, int64_t whole) { return whole > 0 ? 100.0 * (double)part / (double)whole : NAN; }

static void collective_metrics(const struct rank_store *rs, struct rank_analysis *ra)
{
	bool group_lanes = evkind_has_group_lanes(rs);
	int64_t *d = NULL;
	double *sizes = NULL;
	size_t n = 0, cap = 0, nsize = 0;
	for (size_t ev = 0; ev < rs->n_ev; ev++) {
		if (!analysis_is_collective(rs, ra->cls, (uint32_t)ev, group_lanes))
			continue;
		size_t c = cap;
		xgrow(&d, &c, n + 1, sizeof *d);
		xgrow(&sizes, &cap, n + 1, sizeof *sizes);
		d[n] = store_dur(rs, ev);
		if (n < 100000) {
			double b = evkind_collective_bytes(rs, (uint32_t)ev);
			if (b > 0)
				sizes[nsize++] = b;
		}
		n++;
	}
	result_set_metric(ra, M_COLLECTIVES, (double)n, CONF_HIGH,
	                    group_lanes ? N_("HCCL group lanes") : N_("device communication tasks"));
	if (n) {
		xqsort(d, n, sizeof *d, cmp_i64);
		result_set_metric(ra, M_COLLECTIVE_MEDIAN_US, us(nearest_rank(d, n, 0.5)),
		                    CONF_HIGH,
		                    group_lanes ? N_("HCCL group lanes") : N_("device communication tasks"));
	}
	if (nsize) {
		/* sort doubles via their bit pattern: all positive */
		int64_t *b = xmalloc(nsize * sizeof *b);
		for (size_t i = 0; i < nsize; i++)
			b[i] = (int64_t)sizes[i];
		xqsort(b, nsize, sizeof *b, cmp_i64);
		result_set_metric(ra, M_COLLECTIVE_MEDIAN_MB,
		                    (double)nearest_rank(b, nsize, 0.5) / 1e6, CONF_MEDIUM,
		                    N_("collective args count x data_type size"));
		free(b);
	}
	free(d);
	free(sizes);
}

/* Weighted PMU ratios and Duration/AICore from the kernel table. */
static void pmu_metrics(const struct csv_table *k, struct rank_analysis *ra)
{
	if (!k)
		return;
	static const struct { enum metric_id m; enum csv_col cols[2]; } map[] = {
		{M_PMU_MAC, {COL_AIC_MAC_RATIO, COL_AIV_MAC_RATIO}},
		{M_PMU_VEC, {COL_AIV_VEC_RATIO, COL_AIC_VEC_RATIO}},
		{M_PMU_SCALAR, {COL_AIC_SCALAR_RATIO, COL_AIV_SCALAR_RATIO}},
		{M_PMU_MTE1, {COL_AIC_MTE1_RATIO, COL_AIV_MTE1_RATIO}},
		{M_PMU_MTE2, {COL_AIC_MTE2_RATIO, COL_AIV_MTE2_RATIO}},
		{M_PMU_MTE3, {COL_AIV_MTE3_RATIO, COL_AIC_MTE3_RATIO}},
		{M_PMU_ICACHE, {COL_AIC_ICACHE_MISS, COL_AIV_ICACHE_MISS}},
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
		double num = 0, den = 0;
		for (int c = 0; c < 2; c++) {
			if (!csvt_has(k, map[i].cols[c]))
				continue;
			for (size_t r = 0; r < k->nrows; r++) {
				double v;
				int64_t dur;
				if (!csvt_num(k, r, map[i].cols[c], &v) || !csvt_time(k, r, COL_DURATION, &dur))
					continue;
				if (v > 1.5)
					v /= 100.0; /* written as a percentage */
				num += v * (double)dur;
				den += (double)dur;
			}
		}
		if (den > 0)
			result_set_metric(ra, map[i].m, num / den, CONF_HIGH,
					    N_("kernel table PMU columns, weighted by Duration"));
	}
	if (csvt_has(k, COL_AICORE_TIME) || csvt_has(k, COL_AIV_TIME)) {
		double dsum = 0, asum = 0;
		for (size_t r = 0; r < k->nrows; r++) {
			int64_t dur, a = 0, v = 0;
			if (!csvt_time(k, r, COL_DURATION, &dur))
				continue;
			bool ha = csvt_time(k, r, COL_AICORE_TIME, &a) && a > 0;
			bool hv = csvt_time(k, r, COL_AIV_TIME, &v) && v > 0;
			if (!ha && !hv)
				continue;
			dsum += (double)dur;
			asum += (double)(a > v ? a : v);
		}
		if (asum > 0)
			result_set_metric(ra, M_DUR_OVER_AICORE, dsum / asum, CONF_MEDIUM,
			                    N_("kernel table Duration over aicore_time/aiv_time"));
	}
}

/* ---- cross-checks against the exporter ---------------------------------------------- */

static void fill_check(struct crosscheck *c, const char *source, int64_t lo, int64_t hi, const int64_t theirs[3],
		       struct rank_sets *s)
{
	c->source = source;
	c->win_start = lo;
	c->win_end = hi;
	struct ivset exposed, both;
	ivset_init(&exposed);
	ivset_init(&both);
	ivset_subtract(&s->comm, &s->compute, &exposed);
	c->ours[0] = ivset_total_in(&s->compute, lo, hi);
	c->ours[1] = ivset_total_in(&exposed, lo, hi);
	c->ours[2] = (hi - lo) - ivset_total_in(&s->compute_or_comm, lo, hi);
	ivset_free(&exposed);
	ivset_free(&both);
	c->agree = true;
	for (int i = 0; i < 3; i++) {
		c->theirs[i] = theirs[i];
		/* in double: the table's sums may be as large as a file makes them */
		double diff = (double)c->ours[i] - (double)theirs[i];
		c->diff_pct[i] = theirs[i] ? 100.0 * diff / (double)theirs[i] : (diff != 0 ? 100.0 : 0.0);
		if (fabs(diff) > 1000 && fabs(c->diff_pct[i]) > 2.0)
			c->agree = false;
	}
}

void metrics_overlap_lane_check(const struct rank_store *rs, struct rank_sets *s, struct rank_analysis *ra)
{
	int64_t sums[3] = {0, 0, 0};
	int64_t lo = 0, hi = 0;
	bool any = false;
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *l = &rs->lanes[li];
		if (l->group != LANE_OVERLAP)
			continue;
		for (uint32_t k = 0; k < l->n_events; k++) {
			uint32_t ev = l->events[k];
			const char *n = store_ev_name(rs, ev);
			int64_t a = store_ts(rs, ev), b = a + store_dur(rs, ev);
			int which = !strcmp(n, "Computing") ? 0
				    : !strcmp(n, "Communication(Not Overlapped)") ? 1
				    : !strcmp(n, "Free") ? 2 : -1;
			if (which < 0)
				continue;
			sums[which] = num_sat_add(sums[which], b - a);
			if (!any || a < lo)
				lo = a;
			if (!any || b > hi)
				hi = b;
			any = true;
		}
	}
	if (!any)
		return;
	struct crosscheck *c = &ra->checks[ra->n_checks++];
	fill_check(c, "Overlap Analysis lane", lo, hi, sums, s);
	if (!c->agree)
		c->explanation = xasprintf(
			_("the lane covers %.3f ms of the %.3f ms window; differences beyond 2 %% come from "
			  "tasks the exporter counts differently (it omits copies and waits from Computing)"),
			us(hi - lo) / 1000, ra->v[M_WALL_US] / 1000);
}

void metrics_step_trace_check(const struct csv_table *st, struct rank_sets *s, struct rank_analysis *ra,
			     int64_t win_lo, int64_t win_hi)
{
	if (!st || st->nrows == 0)
		return;
	int64_t sums[3] = {0, 0, 0}, stage_sum = 0;
	bool stage_numeric = true;
	for (size_t r = 0; r < st->nrows; r++) {
		int64_t v;
		if (csvt_time(st, r, COL_COMPUTING, &v))
			sums[0] = num_sat_add(sums[0], v);
		if (csvt_time(st, r, COL_COMM_NOT_OVERLAPPED, &v))
			sums[1] = num_sat_add(sums[1], v);
		if (csvt_time(st, r, COL_FREE, &v))
			sums[2] = num_sat_add(sums[2], v);
		const char *stage = csvt_str(st, r, COL_STAGE);
		if (num_time_ns(stage, strlen(stage), &v, NULL) == NUM_OK)
			stage_sum = num_sat_add(stage_sum, v);
		else
			stage_numeric = false;
	}
	/* Their window: the device span of the step(s). With one row it is the whole device
	 * window; Stage (a number in real files) is its length. */
	int64_t lo = win_lo, hi = win_hi;
	struct ivset *dev = &s->compute_or_comm;
	ivset_normalize(dev);
	if (dev->n) {
		lo = dev->start[0];
		hi = dev->end[dev->n - 1];
	}
	struct crosscheck *c = &ra->checks[ra->n_checks++];
	fill_check(c, "step_trace_time.csv", lo, hi, sums, s);
	if (!c->agree) {
		struct sbuf why = SBUF_INIT;
		sbuf_addf(&why, _("the table covers %zu step(s)"), st->nrows);
		if (stage_numeric && stage_sum)
			sbuf_addf(&why, _(" of %.3f ms (Stage)"), us(stage_sum) / 1000);
		sbuf_addf(&why, _("; our window is the device span, %.3f ms"), us(hi - lo) / 1000);
		if (c->ours[0] < c->theirs[0] / 2)
			sbuf_addf(&why, _("; our %s holds only %.3f ms of compute against its %.3f ms, so it covers "
					  "part of the step (a partial or sampled export)"),
				  ra->has_trace ? "trace" : _("kernel table"), us(c->ours[0]) / 1000,
				  us(c->theirs[0]) / 1000);
		else if (stage_numeric && stage_sum &&
			 fabs((double)stage_sum - (double)(hi - lo)) * 50 > (double)stage_sum)
			sbuf_adds(&why, _("; the step spans differ, so Free covers a different time"));
		else
			sbuf_adds(&why, _("; the exporter counts some tasks differently (copies and waits are not "
					  "Computing for it)"));
		c->explanation = sbuf_detach(&why);
	}
}

static void longest_interval(struct ivset *s, int64_t out[2])
{
	ivset_normalize(s);
	out[0] = out[1] = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->end[i] - s->start[i] > out[1] - out[0]) {
			out[0] = s->start[i];
			out[1] = s->end[i];
		}
}

/* The longest gap of s inside [lo, hi) (edges count), the first of equal ones; [0, 0)
 * when there is none: longest_interval of [lo, hi) minus s, without making that set. */
static void longest_gap(struct ivset *s, int64_t lo, int64_t hi, int64_t out[2])
{
	ivset_normalize(s);
	out[0] = out[1] = 0;
	int64_t cur = lo;
	for (size_t i = ivset_first_ending_after(s, lo); i < s->n && s->start[i] < hi; i++) {
		if (s->start[i] > cur && s->start[i] - cur > out[1] - out[0]) {
			out[0] = cur;
			out[1] = s->start[i];
		}
		if (s->end[i] > cur)
			cur = s->end[i];
	}
	if (cur < hi && hi - cur > out[1] - out[0]) {
		out[0] = cur;
		out[1] = hi;
	}
}

/* The places the bottleneck view jumps to. */
void metrics_landmarks(struct rank_sets *s, struct rank_analysis *ra, int64_t lo, int64_t hi)
{
	struct ivset exposed;
	ivset_init(&exposed);
	longest_gap(&s->occupied, lo, hi, ra->longest_idle);
	ivset_subtract(&s->comm, &s->compute, &exposed);
	longest_interval(&exposed, ra->longest_exposed);
	longest_interval(&s->dev_copy, ra->longest_copy);
	longest_interval(&s->sync, ra->longest_sync);
	ivset_free(&exposed);
}

void metrics_per_step(struct rank_analysis *ra, struct rank_sets *s)
{
	if (!ra->n_steps)
		return;
	struct ivset exposed;
	ivset_init(&exposed);
	ivset_subtract(&s->comm, &s->compute, &exposed);
	for (size_t i = 0; i < ra->n_steps; i++) {
		struct step *st = &ra->steps[i];
		if (!st->has_window)
			continue; /* figures from the table itself */
		int64_t lo = st->win_start, hi = st->win_end;
		st->compute_ns = ivset_total_in(&s->compute, lo, hi);
		st->comm_not_overlapped_ns = ivset_total_in(&exposed, lo, hi);
		st->free_ns = (hi - lo) - ivset_total_in(&s->compute_or_comm, lo, hi);
		st->host_only_ns = ivset_total_in(&s->host_only, lo, hi);
		st->h2d_ns = ivset_total_in(&s->h2d, lo, hi);
		st->d2h_ns = ivset_total_in(&s->d2h, lo, hi);
	}
	ivset_free(&exposed); /* the steps' dispatch ops were counted by metrics_window */
}

/* Dispatch ops, and each by start time into the step window holding it (events come
 * mostly in time order: the search starts at the last one's step), for metrics_per_step. */
static void count_dispatch(const struct rank_store *rs, struct rank_analysis *ra)
{
	size_t dispatch = 0, hint = 0;
	for (size_t k = 0; k < ra->n_steps; k++)
		ra->steps[k].dispatch_ops = 0;
	for (size_t ev = 0; ev < rs->n_ev; ev++) {
		if (!(ra->cls[ev].flags & EVF_DISPATCH))
			continue;
		dispatch++;
		size_t k = ra->n_steps ? analysis_step_at_near(ra, store_ts(rs, ev), &hint) : SIZE_MAX;
		if (k != SIZE_MAX)
			ra->steps[k].dispatch_ops++;
	}
	result_set_metric(ra, M_DISPATCH_OPS, (double)dispatch, CONF_HIGH, N_("cpu_op events on Python lanes"));
}

/* The host's figures of a window whose trace has no device lane (metrics_window): the
 * host's work and its parts, which need no device to be measured; host-only stays unknown
 * (host work minus a device busy nobody saw). */
static void metrics_host_window(const struct rank_store *rs, struct rank_analysis *ra, struct rank_sets *s,
				int64_t wall, const char *src_host)
{
	int64_t host = s->host_total;
	result_set_metric(ra, M_HOST_BUSY_US, us(host), CONF_HIGH, src_host);
	result_set_metric(ra, M_HOST_BUSY_PCT, pct(host, wall), CONF_HIGH, src_host);
	int64_t hcopy = ivset_total(&s->host_copy);
	result_set_metric(ra, M_HOST_COPY_US, us(hcopy), CONF_HIGH, src_host);
	result_set_metric(ra, M_HOST_COPY_PCT, pct(hcopy, host), CONF_HIGH, src_host);
	ivset_normalize(&s->sync);
	result_set_metric(ra, M_SYNC_OPS, (double)s->sync.n, CONF_MEDIUM, N_("host op names (.item, synchronize ...)"));
	result_set_metric(ra, M_SYNC_US, us(ivset_total(&s->sync)), CONF_MEDIUM, N_("host op names"));
	count_dispatch(rs, ra);
}

/* Device, host and communication figures over the whole window, from the sets. */
void metrics_window(const struct rank_store *rs, struct rank_analysis *ra, struct rank_sets *s,
			   int64_t lo, int64_t hi, const char *src_dev, const char *src_host)
{
	int64_t wall = hi - lo;
	int64_t busy = ivset_total(&s->device_busy), host = s->host_total;
	int64_t compute = ivset_total(&s->compute), comm = ivset_total(&s->comm);
	struct ivset tmp;
	ivset_init(&tmp);
	result_set_metric(ra, M_WALL_US, us(wall), CONF_HIGH, ra->has_trace ? N_("trace X events") : src_dev);
	if (!src_dev) { /* no device lane: the host's figures only */
		metrics_host_window(rs, ra, s, wall, src_host);
		return;
	}
	result_set_metric(ra, M_NPU_BUSY_US, us(busy), CONF_HIGH, src_dev);
	result_set_metric(ra, M_NPU_BUSY_PCT, pct(busy, wall), CONF_HIGH, src_dev);
	result_set_metric(ra, M_COMPUTE_US, us(compute), CONF_HIGH, src_dev);
	size_t gaps;
	int64_t idle, small;
	ivset_gaps(&s->occupied, lo, hi, IDLE_MIN_GAP_NS, &gaps, &idle, &small);
	result_set_metric(ra, M_NPU_IDLE_US, us(idle), CONF_HIGH, src_dev);
	result_set_metric(ra, M_NPU_IDLE_PCT, pct(idle, wall), CONF_HIGH, src_dev);
	result_set_metric(ra, M_NPU_IDLE_GAPS, (double)gaps, CONF_HIGH, src_dev);
	if (gaps)
		result_set_metric(ra, M_NPU_IDLE_GAP_MEAN_US, us(idle) / (double)gaps, CONF_HIGH, src_dev);
	if (ra->has_trace) {
		int64_t host_only = ivset_total(&s->host_only);
		result_set_metric(ra, M_HOST_BUSY_US, us(host), CONF_HIGH, src_host);
		result_set_metric(ra, M_HOST_BUSY_PCT, pct(host, wall), CONF_HIGH, src_host);
		result_set_metric(ra, M_HOST_ONLY_US, us(host_only), CONF_HIGH,
				    N_("host work minus device busy and collectives"));
		result_set_metric(ra, M_HOST_ONLY_PCT, pct(host_only, wall), CONF_HIGH,
				    N_("host work minus device busy and collectives"));
	}
	const char *src_comm = !ra->has_trace ? src_dev
			       : s->comm_from_lanes ? N_("HCCL/Communication lanes") : N_("device communication tasks");
	ivset_intersect(&s->comm, &s->compute, &tmp);
	int64_t overlapped = ivset_total(&tmp);
	result_set_metric(ra, M_COMM_US, us(comm), CONF_HIGH, src_comm);
	result_set_metric(ra, M_COMM_OVERLAPPED_US, us(overlapped), CONF_HIGH, src_comm);
	result_set_metric(ra, M_COMM_NOT_OVERLAPPED_US, us(comm - overlapped), CONF_HIGH, src_comm);
	result_set_metric(ra, M_COMM_NOT_OVERLAPPED_PCT, pct(comm - overlapped, wall), CONF_HIGH, src_comm);
	result_set_metric(ra, M_COMM_SHARE_PCT, pct(comm, ivset_total(&s->occupied)), CONF_HIGH, src_comm);
	result_set_metric(ra, M_FREE_US, us(wall - ivset_total(&s->compute_or_comm)), CONF_HIGH, src_dev);
	int64_t dcopy = ivset_total(&s->dev_copy);
	result_set_metric(ra, M_DEVICE_COPY_US, us(dcopy), CONF_HIGH, src_dev);
	result_set_metric(ra, M_DEVICE_COPY_PCT, pct(dcopy, busy), CONF_HIGH, src_dev);
	if (ra->has_trace) {
		int64_t hcopy = ivset_total(&s->host_copy);
		result_set_metric(ra, M_HOST_COPY_US, us(hcopy), CONF_HIGH, src_host);
		result_set_metric(ra, M_HOST_COPY_PCT, pct(hcopy, host), CONF_HIGH, src_host);
		struct ivset exposed;
		ivset_init(&exposed);
		ivset_subtract(&s->host_copy, &s->occupied, &exposed);
		result_set_metric(ra, M_HOST_COPY_EXPOSED_PCT, pct(ivset_total(&exposed), wall), CONF_HIGH,
		                    N_("host copy ops minus device busy and collectives"));
		ivset_free(&exposed);
		ivset_normalize(&s->sync);
		result_set_metric(ra, M_SYNC_OPS, (double)s->sync.n, CONF_MEDIUM,
				    N_("host op names (.item, synchronize ...)"));
		result_set_metric(ra, M_SYNC_US, us(ivset_total(&s->sync)), CONF_MEDIUM,
				    N_("host op names"));
		count_dispatch(rs, ra);
		collective_metrics(rs, ra);
	}
	ivset_free(&tmp);
}

/* The window in disjoint buckets, from the sets (attribution.h has the priority order).
 * Exposed communication stays unsplit here: its wait share comes from communication.json
 * or the other ranks (analysis_attribution_comm). */
void metrics_attribution_in(struct rank_sets *s, int64_t lo, int64_t hi, int64_t span_lo, int64_t span_hi,
			    struct attribution *out)
{
	struct attr_layer layers[] = {
		{&s->compute, ATTR_COMPUTE},        {&s->comm, ATTR_COMM_UNSPLIT},
		{&s->dev_copy, ATTR_COPY},          {&s->device_busy, ATTR_DEVICE_OTHER},
		{&s->sync, ATTR_HOST_SYNC},         {&s->host_copy, ATTR_HOST_COPY},
		{&s->host_dispatch, ATTR_HOST_DISPATCH}, {&s->host_only, ATTR_HOST_PYTHON},
	};
	attribution_partition(layers, sizeof layers / sizeof layers[0], lo, hi, span_lo, span_hi, ATTR_IDLE, out);
}

void metrics_attribution(struct rank_sets *s, struct rank_analysis *ra, int64_t lo, int64_t hi)
{
	ivset_normalize(&s->occupied);
	int64_t span_lo = lo, span_hi = lo;
	if (s->occupied.n) {
		span_lo = s->occupied.start[0];
		span_hi = s->occupied.end[s->occupied.n - 1];
	}
	metrics_attribution_in(s, lo, hi, span_lo, span_hi, &ra->attr);
	ra->attr.valid = true;
	ra->attr.host_known = ra->has_trace;
	ra->attr.comm_split = ra->attr.ns[ATTR_COMM_UNSPLIT] ? N_("none: no communication.json and no peer ranks")
							     : N_("no exposed communication");
}

/* A rank with neither a trace nor kernel rows with start times: step_trace_time.csv's
 * Computing, Communication(Not Overlapped) and Free partition its steps, so they give the
 * attribution (the window is their sum; the exposed communication is split later). */
void metrics_step_trace_attribution(const struct csv_table *st, struct rank_analysis *ra)
{
	if (!st || !st->nrows || !csvt_has(st, COL_COMPUTING) || !csvt_has(st, COL_COMM_NOT_OVERLAPPED) ||
	    !csvt_has(st, COL_FREE))
		return;
	int64_t sums[3] = {0, 0, 0};
	for (size_t r = 0; r < st->nrows; r++) {
		int64_t v[3];
		if (!csvt_time(st, r, COL_COMPUTING, &v[0]) || !csvt_time(st, r, COL_COMM_NOT_OVERLAPPED, &v[1]) ||
		    !csvt_time(st, r, COL_FREE, &v[2]))
			continue;
		for (int k = 0; k < 3; k++)
			if (v[k] > 0)
				sums[k] = num_sat_add(sums[k], v[k]);
	}
	int64_t wall = num_sat_add(num_sat_add(sums[0], sums[1]), sums[2]);
	if (wall <= 0 || wall == INT64_MAX)
		return;
	struct attribution *a = &ra->attr;
	memset(a, 0, sizeof *a);
	a->valid = true;
	a->wall_ns = wall;
	a->span_hi = wall;
	a->ns[ATTR_COMPUTE] = sums[0];
	a->ns[ATTR_COMM_UNSPLIT] = sums[1];
	a->ns[ATTR_IDLE] = sums[2];
	a->comm_split = sums[1] ? N_("none: no communication.json and no peer ranks") : N_("no exposed communication");
	const char *src = N_("step_trace_time.csv (no trace, no kernel rows)");
	result_set_metric(ra, M_WALL_US, us(wall), CONF_MEDIUM, src);
	result_set_metric(ra, M_COMPUTE_US, us(sums[0]), CONF_HIGH, src);
	result_set_metric(ra, M_COMM_NOT_OVERLAPPED_US, us(sums[1]), CONF_HIGH, src);
	result_set_metric(ra, M_COMM_NOT_OVERLAPPED_PCT, pct(sums[1], wall), CONF_HIGH, src);
	result_set_metric(ra, M_FREE_US, us(sums[2]), CONF_HIGH, src);
}

/* Step count, phases and percentiles, and the per-step figures summed over the steps. */
void metrics_step_summary(struct rank_analysis *ra, size_t dir_before)
{
	double n = (double)ra->n_steps;
	size_t prefill = 0, decode = 0, mixed = 0, dispatch = 0;
	int64_t *durs = xmalloc(ra->n_steps * sizeof *durs);
	int64_t h2d = 0, d2h = 0;
	for (size_t i = 0; i < ra->n_steps; i++) {
		prefill += ra->steps[i].phase == PHASE_PREFILL;
		decode += ra->steps[i].phase == PHASE_DECODE;
		mixed += ra->steps[i].phase == PHASE_MIXED;
		dispatch += ra->steps[i].dispatch_ops;
		durs[i] = ra->steps[i].end - ra->steps[i].start;
		h2d = num_sat_add(h2d, ra->steps[i].h2d_ns);
		d2h = num_sat_add(d2h, ra->steps[i].d2h_ns);
	}
	xqsort(durs, ra->n_steps, sizeof *durs, cmp_i64);
	enum confidence sc = ra->step_source == STEP_SRC_IDLE_GAPS || ra->step_source == STEP_SRC_WINDOW
				     ? CONF_LOW
			     : ra->step_source == STEP_SRC_OP_SEQUENCE ? CONF_MEDIUM : CONF_HIGH;
	const char *ssrc = result_step_source_name(ra->step_source);
	result_set_metric(ra, M_STEPS, n, sc, ssrc);
	/* training steps are neither; nor are the steps of an unknown workload that no signal read */
	if (ra->workload != WORKLOAD_TRAINING && (ra->workload != WORKLOAD_UNKNOWN || prefill + decode + mixed)) {
		const char *psrc = result_phase_source_name(ra->phase_source);
		result_set_metric(ra, M_PREFILL_STEPS, (double)prefill, ra->phase_conf, psrc);
		result_set_metric(ra, M_DECODE_STEPS, (double)decode, ra->phase_conf, psrc);
		result_set_metric(ra, M_MIXED_STEPS, (double)mixed, ra->phase_conf, psrc);
	}
	result_set_metric(ra, M_STEP_P50_US, us(nearest_rank(durs, ra->n_steps, 0.5)), sc, ssrc);
	result_set_metric(ra, M_STEP_P95_US, us(nearest_rank(durs, ra->n_steps, 0.95)), sc, ssrc);
	free(durs);
	if (ra->has_trace) {
		result_set_metric(ra, M_DISPATCH_PER_STEP, (double)dispatch / n, sc,
				    N_("cpu_op events per step window"));
		if (ra->have[M_HOST_ONLY_US])
			result_set_metric(ra, M_HOST_ONLY_PER_STEP_US, ra->v[M_HOST_ONLY_US] / n, sc,
					    N_("host-only / steps"));
		if (ra->have[M_SYNC_OPS])
			result_set_metric(ra, M_SYNC_PER_STEP, ra->v[M_SYNC_OPS] / n, sc,
					    N_("sync ops / steps"));
		/* one derivation, links or not (category_classify_links); a direction read from
		 * the host op before a copy is a guess an on-device copy may share: low */
		const char *dsrc = dir_before ? N_("device copies (direction from the launching host op; "
						   "without a link, from the directed host copy op before them)")
					      : N_("device copies (direction from the launching host op)");
		enum confidence dc = dir_before ? CONF_LOW : CONF_MEDIUM;
		result_set_metric(ra, M_H2D_PER_STEP_US, us(h2d) / n, dc, dsrc);
		result_set_metric(ra, M_D2H_PER_STEP_US, us(d2h) / n, dc, dsrc);
	}
}

void metrics_csv(const struct rank_data *rd, struct rank_analysis *ra)
{
	pmu_metrics(rd->by_kind[CSV_KERNEL], ra);
	memory_analyse(rd->by_kind[CSV_MEMORY_RECORD], rd->by_kind[CSV_NPU_MODULE_MEM],
		       rd->by_kind[CSV_OPERATOR_MEMORY], &ra->mem);
	const char *mem_src = ra->mem.record_in_kb ? N_("memory_record (KB, converted)") : "memory_record";
	result_set_metric(ra, M_MEM_PEAK_RESERVED_MB, memory_peak_reserved_mb(&ra->mem), CONF_HIGH, mem_src);
	result_set_metric(ra, M_MEM_PEAK_ALLOCATED_MB, memory_peak_allocated_mb(&ra->mem), CONF_HIGH, mem_src);
}
