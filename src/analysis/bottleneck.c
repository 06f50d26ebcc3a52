/* SPDX-License-Identifier: MIT */
/* The bottleneck verdict: four candidates scored 0-100 from thresholded severities of
 * the metrics that speak for them. A score is the strength of the evidence, not the share
 * of time lost; 40 is the trigger, reached when a metric crosses its threshold. Expected
 * gains come from this capture's own numbers where a mechanism is clear, else from an
 * empirical range marked low confidence. All thresholds are in the one table below. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_priv.h"
#include "xalloc.h"

#define TRIGGER 40
#define COMBINED_GAIN_CAP 70.0

const struct threshold_def threshold_defs[] = {
	{BN_HOST_DISPATCH, "host_only_pct", 10.0, 50.0,
	 "the device waits while the host works: dispatch does not keep up"},
	{BN_HOST_DISPATCH, "dispatch_per_step", 1200.0, 4800.0,
	 "per-step op dispatch is a fixed cost paid every step"},
	{BN_HOST_DISPATCH, "npu_idle_pct", 20.0, 60.0, "the device sits idle in gaps of 50 us or more"},
	{BN_NPU_COMPUTE, "npu_busy_pct", 80.0, 98.0, "the device is busy most of the window"},
	{BN_NPU_COMPUTE, "duration_over_aicore", 1.5, 4.0,
	 "kernel Duration well above AICore time: scheduling waits inside kernels"},
	{BN_COMMUNICATION, "comm_not_overlapped_pct", 10.0, 50.0, "communication is not hidden by compute"},
	{BN_COMMUNICATION, "comm_share_of_device_pct", 30.0, 80.0, "collectives take much of the device time"},
	{BN_COPY, "device_copy_pct", 5.0, 30.0, "device copies take device time"},
	{BN_COPY, "host_copy_exposed_pct", 5.0, 30.0,
	 "host copies (often synchronous D2H) run while the device idles"},
	{BN_COPY, "sync_per_step", 1.0, 10.0, "each sync drains the device queue"},
};
const size_t n_threshold_defs = sizeof threshold_defs / sizeof threshold_defs[0];

static const char *bn_names[BN_COUNT] = {"host dispatch", "NPU compute", "communication", "copy"};

static int metric_by_key(const char *key)
{
	for (int m = 0; m < M_COUNT; m++)
		if (!strcmp(metric_defs[m].key, key))
			return m;
	return -1;
}

static int severity(double v, double thr, double full)
{
	if (!(v >= thr))
		return 0;
	double f = full > thr ? (v - thr) / (full - thr) : 1.0;
	if (f > 1)
		f = 1;
	return (int)lround(TRIGGER + (100 - TRIGGER) * f);
}

static void add_evidence(struct bottleneck *b, const struct threshold_def *t, const struct rank_analysis *ra,
			 int m)
{
	double v = ra->v[m];
	b->ev = xrealloc(b->ev, (b->n_ev + 1) * sizeof *b->ev);
	struct evidence *e = &b->ev[b->n_ev++];
	e->metric = metric_defs[m].key;
	e->value = v;
	e->threshold = t->threshold;
	e->unit = metric_defs[m].unit;
	e->triggered = v >= t->threshold;
	const char *u = !strcmp(e->unit, "%") ? " %" : !strcmp(e->unit, "ratio") ? "" : " ";
	const char *unit_word = !strcmp(e->unit, "%") || !strcmp(e->unit, "ratio") ? "" : e->unit;
	e->text = xasprintf("%s = %.2f%s%s %s threshold %.2f%s%s: %s (source: %s)", e->metric, v, u, unit_word,
			    e->triggered ? ">=" : "<", t->threshold, u, unit_word, t->why,
			    ra->source[m] ? ra->source[m] : "?");
}

static void set_gain(struct bottleneck *b, double lo, double hi, enum confidence conf, char *basis)
{
	if (lo < 0)
		lo = 0;
	if (hi < lo)
		hi = lo;
	b->gain.low_pct = lo;
	b->gain.high_pct = hi;
	b->gain.conf = conf;
	b->gain.basis = basis;
}

static double val(const struct rank_analysis *ra, enum metric_id m)
{
	return ra->have[m] ? ra->v[m] : 0.0;
}

void analysis_bottlenecks(struct rank_analysis *ra)
{
	for (int k = 0; k < BN_COUNT; k++) {
		struct bottleneck *b = &ra->bn[k];
		b->kind = (enum bottleneck_kind)k;
		b->name = bn_names[k];
		for (size_t i = 0; i < n_threshold_defs; i++) {
			const struct threshold_def *t = &threshold_defs[i];
			if (t->kind != (enum bottleneck_kind)k)
				continue;
			int m = metric_by_key(t->metric);
			if (m < 0 || !ra->have[m])
				continue;
			/* a training step dispatches forward and backward: the serving limit does not apply */
			if (ra->workload == WORKLOAD_TRAINING && m == M_DISPATCH_PER_STEP)
				continue;
			add_evidence(b, t, ra, m);
			int sc = severity(ra->v[m], t->threshold, t->full);
			if (sc > b->score)
				b->score = sc;
		}
	}
	double wall = val(ra, M_WALL_US);
	/* host dispatch: the host-only time is what a faster dispatch (graph mode, fewer ops
	 * per step, async scheduling) can give back; not all of it, since some host work
	 * stays serial */
	double host_only_pct = val(ra, M_HOST_ONLY_PCT);
	set_gain(&ra->bn[BN_HOST_DISPATCH], 0.5 * host_only_pct, 0.9 * host_only_pct, CONF_MEDIUM,
		 xasprintf("50-90 %% of the host-only time (%.2f %% of the window) measured here", host_only_pct));
	ra->bn[BN_HOST_DISPATCH].advice = xstrdup(
		ra->workload == WORKLOAD_TRAINING
			? "cut per-step Python and host ops (fused optimizers, fewer small ops), keep the data loader "
			  "ahead of the device"
			: "capture the model in a graph (ACLGraph / torchair), cut per-step Python and host ops, "
			  "overlap scheduling with execution (async scheduling)");
	/* compute: no mechanism in the data says how much faster kernels could be */
	bool pmu = ra->have[M_PMU_MAC] || ra->have[M_PMU_MTE2];
	set_gain(&ra->bn[BN_NPU_COMPUTE], 5.0, 20.0, CONF_LOW,
		 xstrdup(pmu ? "empirical range for kernel tuning; see the PMU ratios for compute- or memory-bound"
			     : "empirical range for kernel tuning (no PMU columns: aic_metrics was off)"));
	ra->bn[BN_NPU_COMPUTE].advice = xstrdup(
		"look at the top device ops: fused kernels, better tiling; high MTE2 with low MAC means memory bound");
	/* communication: the exposed part is what overlap can hide */
	double exposed = val(ra, M_COMM_NOT_OVERLAPPED_PCT);
	set_gain(&ra->bn[BN_COMMUNICATION], 0.3 * exposed, 0.8 * exposed, CONF_MEDIUM,
		 xasprintf("30-80 %% of the exposed communication (%.2f %% of the window) measured here", exposed));
	ra->bn[BN_COMMUNICATION].advice = xstrdup(
		ra->have[M_COLLECTIVE_MEDIAN_US] && ra->v[M_COLLECTIVE_MEDIAN_US] <= 60.0
			? "collectives are small (latency bound): fuse them or change the parallel layout; bigger "
			  "buffers will not help"
			: "overlap collectives with compute, check slow links and rank skew");
	/* copies: device copy time and the syncs that stall the queue */
	double copy_pct = wall > 0 ? 100.0 * (val(ra, M_DEVICE_COPY_US) + val(ra, M_SYNC_US)) / wall : 0;
	copy_pct += val(ra, M_HOST_COPY_EXPOSED_PCT);
	if (copy_pct > 100)
		copy_pct = 100;
	set_gain(&ra->bn[BN_COPY], 0.5 * copy_pct, copy_pct, CONF_MEDIUM,
		 xasprintf("50-100 %% of device copy, sync and exposed host copy time (%.2f %% of the window) "
			   "measured here",
			   copy_pct));
	ra->bn[BN_COPY].advice = xstrdup(
		"keep tensors on the device, batch small copies, remove .item()/tolist() from the step");
	/* gains of candidates that did not trigger are not claimed */
	double keep = 1.0, lo_keep = 1.0;
	for (int k = 0; k < BN_COUNT; k++) {
		if (ra->bn[k].score < TRIGGER)
			continue;
		keep *= 1.0 - ra->bn[k].gain.high_pct / 100.0;
		lo_keep *= 1.0 - ra->bn[k].gain.low_pct / 100.0;
	}
	ra->combined_gain_high = fmin(COMBINED_GAIN_CAP, 100.0 * (1.0 - keep));
	ra->combined_gain_low = fmin(ra->combined_gain_high, 100.0 * (1.0 - lo_keep));
}
