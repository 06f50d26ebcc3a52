/* SPDX-License-Identifier: MIT */
/* The bottleneck verdict: four candidates scored 0-100 from thresholded severities of
 * the metrics that speak for them. A score is the strength of the evidence, not the share
 * of time lost; 40 is the trigger, reached when a metric crosses its threshold.
 *
 * Every candidate scores and gains from its own buckets of the rank's attribution
 * (attribution.h), which are disjoint: time is never blamed twice. Counts and ratios
 * (dispatch per step, sync per step, Duration/AICore ...) are context shown beside the
 * score, never moving it. Edge idle feeds no candidate. Each gain is capped at 70 % of the
 * window and at its buckets; the combined gain is the sum of the triggered candidates'
 * gains (their buckets are disjoint), at most 70 %. All thresholds are in the table. */
#include "bottleneck.h"

#include "comm_split.h"
#include "sanitize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "comm_ranks.h"
#include "i18n.h"
#include "result.h"
#include "xalloc.h"

#define TRIGGER 40
#define GAIN_CAP 70.0
/* communication's gain: these shares of the wait for a later peer (skew) and of the
 * transfer and the unsplit time, low and high ends (the verdict's reason inverts the low) */
#define COMM_SKEW_LO 0.5
#define COMM_SKEW_HI 0.9
#define COMM_MOVE_LO 0.3
#define COMM_MOVE_HI 0.8

const struct threshold_def threshold_defs[] = {
	{BN_HOST_DISPATCH, "host_bound_pct", 10.0, 50.0, true,
	 N_("the device idles while the host dispatches ops or runs Python"),
	 N_("the device seldom idles while the host dispatches ops or runs Python")},
	{BN_HOST_DISPATCH, "dispatch_per_step", 1200.0, 4800.0, false,
	 N_("per-step op dispatch is a fixed cost paid every step"),
	 N_("per-step op dispatch is a small fixed cost")},
	{BN_HOST_DISPATCH, "npu_idle_pct", 20.0, 60.0, false,
	 N_("the device sits idle in gaps of 50 us or more (edges included)"),
	 N_("the device seldom sits idle in gaps of 50 us or more (edges included)")},
	{BN_NPU_COMPUTE, "compute_pct", 80.0, 98.0, true, N_("device compute fills most of the window"),
	 N_("device compute does not fill most of the window")},
	{BN_NPU_COMPUTE, "duration_over_aicore", 1.5, 4.0, false,
	 N_("kernel Duration well above AICore time: scheduling waits inside kernels"),
	 N_("kernel Duration close to AICore time: little waiting inside kernels")},
	{BN_COMMUNICATION, "comm_not_overlapped_pct", 10.0, 50.0, true, N_("communication is not hidden by compute"),
	 N_("little communication is left unhidden by compute")},
	{BN_COMMUNICATION, "comm_share_of_device_pct", 30.0, 80.0, false,
	 N_("collectives take much of the device time"), N_("collectives take little of the device time")},
	{BN_COPY, "copy_exposed_pct", 5.0, 30.0, true,
	 N_("copies and syncs run while no compute or collective hides them"),
	 N_("little copy or sync time runs unhidden by compute or collectives")},
	{BN_COPY, "device_copy_pct", 5.0, 30.0, false, N_("device copies take device time"),
	 N_("device copies take little device time")},
	{BN_COPY, "sync_per_step", 1.0, 10.0, false, N_("each sync drains the device queue"),
	 N_("few syncs drain the device queue each step")},
};
const size_t n_threshold_defs = sizeof threshold_defs / sizeof threshold_defs[0];

static const char *bn_names[BN_COUNT] = {N_("host dispatch"), N_("NPU compute"), N_("communication"), N_("copy")};

/* The buckets each candidate draws on. */
static const enum attr_bucket host_buckets[] = {ATTR_HOST_DISPATCH, ATTR_HOST_PYTHON};
static const enum attr_bucket compute_buckets[] = {ATTR_COMPUTE};
static const enum attr_bucket comm_buckets[] = {ATTR_COMM_WAIT, ATTR_COMM_TRANSFER, ATTR_COMM_SETUP, ATTR_COMM_UNSPLIT};
static const enum attr_bucket copy_buckets[] = {ATTR_COPY, ATTR_HOST_SYNC, ATTR_HOST_COPY};

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
			 int m, double v, bool edges_out)
{
	b->ev = xrealloc(b->ev, (b->n_ev + 1) * sizeof *b->ev);
	struct evidence *e = &b->ev[b->n_ev++];
	e->metric = metric_defs[m].key;
	e->value = v;
	e->threshold = t->threshold;
	e->unit = metric_defs[m].unit;
	e->triggered = t->scores && v >= t->threshold;
	const char *u = !strcmp(e->unit, "%") ? " %" : !strcmp(e->unit, "ratio") ? "" : " ";
	const char *unit_word = !strcmp(e->unit, "%") || !strcmp(e->unit, "ratio") ? "" : e->unit;
	e->text = xasprintf(_("%s = %.2f%s%s %s threshold %.2f%s%s: %s%s (source: %s%s)"), e->metric, v, u, unit_word,
			    v >= t->threshold ? ">=" : "<", t->threshold, u, unit_word,
			    v >= t->threshold ? _(t->why) : _(t->why_not),
			    t->scores ? "" : _(" [context, not scored]"), ra->source[m] ? _(ra->source[m]) : "?",
			    edges_out ? _("; of the window less its edge idle") : "");
}

/* A gain of lo..hi % of the window, each end capped at 70 % and at the buckets' share. */
static void set_gain(struct bottleneck *b, const struct attribution *a, double lo, double hi, enum confidence conf,
		     char *basis)
{
	double cap = fmin(GAIN_CAP, attribution_pct(a, b->bucket_ns));
	lo = fmax(0, fmin(lo, cap));
	hi = fmax(lo, fmin(hi, cap));
	b->gain.low_pct = lo;
	b->gain.high_pct = hi;
	b->gain.conf = conf;
	b->gain.basis = basis;
}

/* The attribution's shares as metrics: what the threshold table reads. */
static void attribution_metrics(struct rank_analysis *ra)
{
	const struct attribution *a = &ra->attr;
	if (!a->valid)
		return;
	const char *src = N_("attribution of the window");
	result_set_metric(ra, M_EDGE_IDLE_US, (double)a->ns[ATTR_EDGE_IDLE] / 1e3, CONF_HIGH, src);
	result_set_metric(ra, M_COMPUTE_PCT, attribution_pct(a, a->ns[ATTR_COMPUTE]), CONF_HIGH, src);
	if (a->host_known)
		result_set_metric(ra, M_HOST_BOUND_PCT, attribution_pct(a, attribution_sum(a, host_buckets, 2)),
				    CONF_HIGH, src);
	if (a->host_known || a->ns[ATTR_COPY])
		result_set_metric(ra, M_COPY_EXPOSED_PCT, attribution_pct(a, attribution_sum(a, copy_buckets, 3)),
				    CONF_HIGH, a->host_known ? src : N_("attribution (device copies only: no host trace)"));
	/* from the spread the wait is what a rank waited beyond its fastest peer, a lower bound
	 * (the least may hold more): confidence low */
	if ((a->ns[ATTR_COMM_WAIT] || a->ns[ATTR_COMM_TRANSFER] || a->ns[ATTR_COMM_SETUP] || a->ns[ATTR_COMM_UNSPLIT]) &&
	    comm_ranks_wait_known(ra))
		result_set_metric(ra, M_COMM_WAIT_PCT, attribution_pct(a, a->ns[ATTR_COMM_WAIT]),
				    a->ns[ATTR_COMM_UNSPLIT] ? CONF_LOW : CONF_MEDIUM, a->comm_split);
}

static void score(struct rank_analysis *ra, struct bottleneck *b)
{
	/* the scored metrics are shares of the window; the profiler's start and stop (edge
	 * idle) would dilute them (200 ms of edges turned a host-bound run into "no
	 * candidate"), so they are scored as shares of the window less its edges */
	const struct attribution *a = &ra->attr;
	int64_t inner = a->wall_ns - a->ns[ATTR_EDGE_IDLE];
	double scale = a->ns[ATTR_EDGE_IDLE] > 0 && inner > 0 ? (double)a->wall_ns / (double)inner : 1.0;
	for (size_t i = 0; i < n_threshold_defs; i++) {
		const struct threshold_def *t = &threshold_defs[i];
		if (t->kind != b->kind)
			continue;
		int m = metric_by_key(t->metric);
		if (m < 0 || !ra->have[m])
			continue;
		/* a training step dispatches forward and backward: the serving limit does not apply */
		if (ra->workload == WORKLOAD_TRAINING && m == M_DISPATCH_PER_STEP)
			continue;
		double v = t->scores ? fmin(100.0, ra->v[m] * scale) : ra->v[m];
		add_evidence(b, t, ra, m, v, t->scores && scale != 1.0);
		int sc = t->scores ? severity(v, t->threshold, t->full) : 0;
		if (sc > b->score)
			b->score = sc;
	}
}

static double pct_of(const struct attribution *a, enum attr_bucket k) { return attribution_pct(a, a->ns[k]); }

/* Under this much device time (tasks and collectives) a capture is no sample of a run. */
#define MIN_DEVICE_SAMPLE_NS 500000

static int64_t device_sample_ns(const struct attribution *a)
{
	static const enum attr_bucket dev[] = {ATTR_COMPUTE,      ATTR_COMM_WAIT, ATTR_COMM_TRANSFER, ATTR_COMM_SETUP,
					       ATTR_COMM_UNSPLIT, ATTR_COPY,      ATTR_DEVICE_OTHER};
	return attribution_sum(a, dev, sizeof dev / sizeof dev[0]);
}

bool bottleneck_device_sampled(const struct attribution *a)
{
	return a->valid && device_sample_ns(a) >= MIN_DEVICE_SAMPLE_NS;
}

static void rank_bottlenecks(struct rank_analysis *ra);

void bottleneck_candidates(struct rank_analysis *ra) { rank_bottlenecks(ra); }

/* Every candidate named and emptied, before a rank is judged again. */
static void reset_candidates(struct rank_analysis *ra)
{
	for (int k = 0; k < BN_COUNT; k++) {
		struct bottleneck *b = &ra->bn[k];
		result_bottleneck_free(b);
		b->kind = (enum bottleneck_kind)k;
		b->name = _(bn_names[k]);
	}
	ra->combined_gain_low = ra->combined_gain_high = 0;
}

/* No attribution (no trace, no timed kernel rows): every candidate says so. */
static void all_insufficient(struct rank_analysis *ra)
{
	for (int k = 0; k < BN_COUNT; k++) {
		ra->bn[k].insufficient = xasprintf(_("insufficient data: %s, so the window cannot be attributed"),
						   _(attribution_why(&ra->attr)));
		ra->bn[k].gain.basis = xstrdup(_("none: insufficient data"));
		ra->bn[k].advice = xstrdup(_("export with a trace (trace_view.json) or kernel_details.csv"));
	}
}

/* host dispatch: graph mode, fewer ops, async scheduling give back most of the time
 * the device waits for dispatch and Python; not all, some host work stays serial */
static void judge_host_dispatch(struct rank_analysis *ra)
{
	const struct attribution *a = &ra->attr;
	struct bottleneck *b = &ra->bn[BN_HOST_DISPATCH];
	if (!a->host_known) {
		double idle = pct_of(a, ATTR_IDLE);
		b->insufficient = xasprintf(_("insufficient data: no host trace, so the %.2f %% of the window the device "
					    "idles inside its span cannot be laid on the host or elsewhere"),
					    idle);
		set_gain(b, a, 0, 0, CONF_LOW, xstrdup(_("none: no host trace")));
	} else {
		double p = attribution_pct(a, b->bucket_ns);
		set_gain(b, a, 0.5 * p, 0.9 * p, CONF_MEDIUM,
			 xasprintf(_("50-90 %% of the host-bound time (dispatch %.2f %% + Python/other %.2f %% of the "
				   "window)"), pct_of(a, ATTR_HOST_DISPATCH), pct_of(a, ATTR_HOST_PYTHON)));
		/* idle with no host work traced (vLLM's default capture records no Python frames)
		 * is no host-bound time of the data, nor nothing: say so beside the score */
		double idle = pct_of(a, ATTR_IDLE);
		if (idle >= 10.0 && ra->workload == WORKLOAD_INFERENCE)
			b->insufficient = xasprintf(_("insufficient data: the device and the traced host are both idle "
						      "%.2f %% of the window inside its span: host work the trace does not "
						      "record (Python, the scheduler) or no work at all (waiting for requests)"),
						    idle);
		else if (idle >= 10.0)
			b->insufficient = xasprintf(_("insufficient data: the device and the traced host are both idle "
						      "%.2f %% of the window inside its span: host work the trace does not "
						      "record (Python, data loading) or no work at all (waiting for input)"),
						    idle);
	}
	size_t replays = 0; /* graph mode: "capture a graph" would contradict the replays seen */
	for (size_t k = 0; k < ra->n_steps; k++)
		replays += ra->steps[k].graph_replays;
	/* the advice follows the workload: serving advice (prefill, async scheduling) for a
	 * workload no signal showed to serve would be a confident guess */
	if (ra->workload == WORKLOAD_TRAINING)
		b->advice = xstrdup(_("cut per-step Python and host ops (fused optimizers, fewer small ops), keep the data "
				      "loader ahead of the device"));
	else if (ra->workload == WORKLOAD_INFERENCE)
		b->advice = xstrdup(replays ? _("the steps already replay captured graphs: look at the host time inside the "
						"replay calls (aclmdlRIExecute) and in the steps not captured (prefill), cut "
						"per-step Python and host ops, overlap scheduling with execution (async "
						"scheduling)")
					    : _("capture the model in a graph (ACLGraph / torchair), cut per-step Python and host "
						"ops, overlap scheduling with execution (async scheduling)"));
	else
		b->advice = xstrdup(replays ? _("the steps already replay captured graphs: look at the host time inside the "
						"replay calls (aclmdlRIExecute) and between them, cut per-step Python and host "
						"ops")
					    : _("cut per-step Python and host ops (fused ops, fewer small ops), keep the host's "
						"other work (data loading, preprocessing) ahead of the device; a graph mode "
						"(torchair, ACL graph) removes per-op dispatch where shapes are static"));
}

/* compute: no mechanism in the data says how much faster kernels could be */
static void judge_npu_compute(struct rank_analysis *ra)
{
	const struct attribution *a = &ra->attr;
	struct bottleneck *b = &ra->bn[BN_NPU_COMPUTE];
	bool pmu = ra->have[M_PMU_MAC] || ra->have[M_PMU_MTE2];
	double cp = pct_of(a, ATTR_COMPUTE);
	set_gain(b, a, 0.05 * cp, 0.20 * cp, CONF_LOW,
		 xasprintf(_("5-20 %% of the compute time (%.2f %% of the window), an empirical range for kernel "
			   "tuning%s"),
			   cp, pmu ? _("; see the PMU ratios for compute- or memory-bound") : _(" (no PMU columns: aic_metrics was off)")));
	if (ra->moe_imbalanced && ra->moe_hot_rank == ra->rank) /* its experts hold the others */
		b->advice = xasprintf(_("this rank's experts get %.1f x the median tokens (expert load imbalance, see the "
		                        "MoE section): its grouped matmuls run longest and the others wait for it in the "
		                        "MoE combine; balance the experts (EPLB, redundant copies of the hot experts)"),
		                      ra->moe_imbalance);
	else if (ra->late_rank >= 0 && ra->late_rank == ra->rank) /* the straggler: its peers' wait is its to fix */
		b->advice = xstrdup(_("this rank is the one the others wait for in the collectives: compare its top device "
				      "ops with a peer's (--compare-ranks) and balance the work; then fused kernels, better "
				      "tiling; high MTE2 with low MAC means memory bound"));
	else
		b->advice = xstrdup(_("look at the top device ops: fused kernels, better tiling; high MTE2 with low MAC "
				      "means memory bound"));
}

/* The exposed communication's shares of the window (%), less the collectives named on
 * their own: waiting for a peer, transfer, unsplit, setup, unsplit idle, the named ones. */
struct comm_shares {
	double w, tr, un, su, ui, op;
	int64_t o_all; /* the named collectives' exposed time */
	const char *why; /* the split's source, translated */
};

static struct comm_shares comm_shares_of(const struct rank_analysis *ra)
{
	const struct attribution *a = &ra->attr;
	struct comm_shares s;
	int64_t o_part[4] = {0, 0, 0, 0}, o_all = 0;
	for (size_t i = 0; i < ra->n_outliers; i++) {
		for (int k = 0; k < 4; k++)
			o_part[k] += ra->outliers[i].part_ns[k];
		o_all += ra->outliers[i].exposed_ns;
	}
	int64_t idle_ns = ra->comm_unsplit_idle_ns, plain_ns = a->ns[ATTR_COMM_UNSPLIT] - idle_ns;
	int64_t o_idle = o_part[3] < idle_ns ? o_part[3] : idle_ns;
	double w = attribution_pct(a, a->ns[ATTR_COMM_WAIT] - o_part[0]);
	double tr = attribution_pct(a, a->ns[ATTR_COMM_TRANSFER] - o_part[1]);
	double un = attribution_pct(a, plain_ns - (o_part[3] - o_idle));
	double su = attribution_pct(a, a->ns[ATTR_COMM_SETUP] - o_part[2]), ui = attribution_pct(a, idle_ns - o_idle);
	double op = attribution_pct(a, o_all);
	s.w = fmax(w, 0), s.tr = fmax(tr, 0), s.un = fmax(un, 0), s.su = fmax(su, 0), s.ui = fmax(ui, 0);
	s.op = op;
	s.o_all = o_all;
	s.why = _(a->comm_split);
	return s;
}

/* The communication's advice from its shares (s) and the rank everyone waits for. */
/* A rank that waits for a hot rank's experts: the MoE dispatch and combine hold at least
 * half of its exposed waiting for a peer (moe.h), so the wait is the experts' to fix. */
static bool moe_holds_wait(const struct rank_analysis *ra)
{
	return ra->moe_imbalanced && ra->moe_hot_rank != ra->rank && ra->moe_wait_ns > 0 &&
	       2 * ra->moe_wait_ns >= ra->attr.ns[ATTR_COMM_WAIT];
}

/* The candidate's name in the verdict, with what MoE expert load says of it: the waiting
 * ranks' communication and the hot rank's compute are the expert load imbalance. */
static const char *verdict_name(const struct rank_analysis *ra, int k, char *buf, size_t size)
{
	const struct bottleneck *b = &ra->bn[k];
	if (ra->verdict_of_steps) /* a phase's verdict: the MoE figures are the whole capture's */
		snprintf(buf, size, "%s", b->name);
	else if (k == BN_COMMUNICATION && moe_holds_wait(ra))
		snprintf(buf, size,
			 _("%s, expert load imbalance: rank %d's experts take %.1f x the median tokens and %.1f ms of "
			   "this rank's wait is in the MoE dispatch and combine for them, which balancing the experts "
			   "(EPLB) would recover"),
			 b->name, ra->moe_hot_rank, ra->moe_imbalance, (double)ra->moe_wait_ns / 1e6);
	else if (k == BN_NPU_COMPUTE && ra->moe_imbalanced && ra->moe_hot_rank == ra->rank)
		snprintf(buf, size,
			 _("%s, expert load imbalance: this rank's experts take %.1f x the median tokens and the "
			   "others wait for them in the MoE combine"),
			 b->name, ra->moe_imbalance);
	else
		snprintf(buf, size, "%s", b->name);
	return buf;
}

static void comm_advice(struct rank_analysis *ra, const struct comm_shares *s)
{
	struct bottleneck *b = &ra->bn[BN_COMMUNICATION];
	double w = s->w, tr = s->tr, un = s->un, su = s->su, ui = s->ui;
	bool waiting = w > 0 && w > tr + un, moving = tr > 0 && tr >= w + un;
	bool stalled = su + ui > w + tr + un;
	char *vs = un > 0 ? xasprintf(_("%.2f %% waiting for a peer and %.2f %% transfer, %.2f %% unsplit"), w, tr, un)
			  : xasprintf(_("%.2f %% waiting for a peer against %.2f %% transfer"), w, tr);
	if (s->o_all && w + tr + un + su + ui < 0.005)
		b->advice = xstrdup(_("the exposed communication is the collectives named on their own (see the verdict): "
				      "their setup or their wait is theirs to fix, not overlap or bandwidth"));
	else if (w >= 1.0 && moe_holds_wait(ra))
		b->advice = xasprintf(_("exposed communication waits for a peer (%s): %.1f ms of it in the MoE "
		                        "dispatch and combine, for rank %d, whose experts get %.1f x the median tokens "
		                        "(expert load imbalance, see the MoE section); balance the experts (EPLB), not "
		                        "bandwidth or overlap"),
		                      vs, (double)ra->moe_wait_ns / 1e6, ra->moe_hot_rank, ra->moe_imbalance);
	else if (stalled)
		b->advice = xasprintf(_("exposed communication is mostly setup (%.2f %%) or time that is neither transfer "
				      "nor waiting for a captured peer (%.2f %%): the group's first collective, inputs "
				      "not ready, a rank outside the capture; profile after a warm-up step, and look at "
				      "what precedes the collectives; bandwidth and balancing will not help"),
				      su, ui);
	else if (waiting && ra->late_rank >= 0 && ra->late_rank != ra->rank)
		b->advice = xasprintf(_("exposed communication is mostly waiting for a peer (%s): rank %d is the one the "
				      "others wait for (the cluster section says what it did before joining); look at its "
				      "compute and host time and balance the work, not bandwidth or overlap"),
				      vs, ra->late_rank);
	else if (waiting && ra->late_rank >= 0)
		b->advice = xasprintf(_("exposed communication is mostly waiting for a peer (%s), and this rank is the one "
				      "the others wait for: its waits are for peers that are late in other collectives; "
				      "balance the work"),
				      vs);
	else if (waiting)
		b->advice = xasprintf(_("exposed communication is mostly waiting for a peer (%s), and no rank stands out as "
				      "the one the others wait for; compare the ranks (slow-rank flags, alignment) and "
				      "what precedes the collectives; bandwidth will not help"),
				      vs);
	else if (un > 0 && !moving) {
		if (b->score >= TRIGGER && !comm_ranks_wait_known(ra))
			b->insufficient = xasprintf(_("insufficient data: %.2f %% of the window is exposed communication no "
						      "data splits (%s), so whether peers, setup or the link hold it is "
						      "unknown"), un, s->why);
		b->advice = xasprintf(_("whether the exposed communication waits for peers or moves data (%.2f %% no data "
				      "splits) is unknown: export communication.json (profiler level 1 or higher, every "
				      "rank) and load the ranks together to split it%s"),
				      un,
				      ra->have[M_COLLECTIVE_MEDIAN_US] && ra->v[M_COLLECTIVE_MEDIAN_US] <= 60.0
					      ? _("; the collectives are small (latency bound): fusing them helps either way")
					      : "");
	} else if (ra->have[M_COLLECTIVE_MEDIAN_US] && ra->v[M_COLLECTIVE_MEDIAN_US] <= 60.0)
		b->advice = xstrdup(_("collectives are small (latency bound): fuse them or change the parallel layout; "
				    "bigger buffers will not help"));
	else
		b->advice = xstrdup(_("overlap collectives with compute, check slow links and rank skew"));
	free(vs);
}

/* communication, split per collective (comm_split.h): a wait for a late peer is given
 * back on the peer (balance the work), 50-90 %; a transfer can be hidden behind compute,
 * 30-80 %; so can what no data split (at most transfer or a wait), 30-80 %. Setup (the
 * group's first collective) and the unsplit time known to be neither (communication.json's
 * idle, a least every captured rank shares: inputs not ready, a rank outside the capture)
 * are given back by neither: no gain is claimed on them (2-rank DDP captures: 55 % read
 * as "wait for peers" and claimed 28-51 % of the window, the ranks differing by 4 %).
 * The collectives named on their own (ra->outliers) are their findings' time */
static void judge_communication(struct rank_analysis *ra)
{
	const struct attribution *a = &ra->attr;
	struct bottleneck *b = &ra->bn[BN_COMMUNICATION];
	struct comm_shares s = comm_shares_of(ra);
	char *basis = xasprintf(_("50-90 %% of the exposed waiting for a peer (%.2f %%), 30-80 %% of the exposed "
				  "transfer (%.2f %%) and of the exposed communication no data splits (%.2f %% of the "
				  "window); split: %s"),
				s.w, s.tr, s.un, s.why);
	if (s.su + s.ui + s.op >= 0.005) {
		char *more = xasprintf(_("%s; not counted: setup %.2f %%, unsplit time that is neither transfer nor "
					 "waiting for a captured peer %.2f %% (inputs not ready, a rank outside the "
					 "capture), the collectives named on their own %.2f %%"),
				       basis, s.su, s.ui, s.op);
		free(basis);
		basis = more;
	}
	set_gain(b, a, COMM_SKEW_LO * s.w + COMM_MOVE_LO * (s.tr + s.un),
		 COMM_SKEW_HI * s.w + COMM_MOVE_HI * (s.tr + s.un), s.un > 0 ? CONF_LOW : CONF_MEDIUM, basis);
	comm_advice(ra, &s);
}

/* copies: exposed device copies, and the host blocked in syncs and copies while the
 * device has nothing to do */
static void judge_copies(struct rank_analysis *ra)
{
	const struct attribution *a = &ra->attr;
	struct bottleneck *b = &ra->bn[BN_COPY];
	double yp = attribution_pct(a, b->bucket_ns);
	set_gain(b, a, 0.5 * yp, yp, CONF_MEDIUM,
		 xasprintf(_("50-100 %% of the exposed copy time (device copies %.2f %% + sync waits %.2f %% + host "
			   "copies %.2f %% of the window)%s"),
			   pct_of(a, ATTR_COPY), pct_of(a, ATTR_HOST_SYNC), pct_of(a, ATTR_HOST_COPY),
			   a->host_known ? "" : _("; no host trace: syncs unseen")));
	b->advice = xstrdup(_("keep tensors on the device, batch small copies, remove .item()/tolist() from the step"));
}

/* a few kernels are no sample of a run (the verdict says so): no candidate may then read
 * as triggered or claim a gain beside that verdict */
static void judge_sample_size(struct rank_analysis *ra)
{
	int64_t busy = device_sample_ns(&ra->attr);
	if (busy >= MIN_DEVICE_SAMPLE_NS)
		return;
	for (int k = 0; k < BN_COUNT; k++) {
		struct bottleneck *b = &ra->bn[k];
		b->score = 0;
		b->gain.low_pct = b->gain.high_pct = 0;
		free(b->insufficient);
		b->insufficient = xasprintf(_("insufficient data: the device ran tasks for only %.1f us of the "
					      "window, too small a sample to judge"),
					    (double)busy / 1e3);
	}
}

/* gains of candidates that did not trigger are not claimed; the triggered ones draw on
 * disjoint buckets, so their gains add */
static void combine_gains(struct rank_analysis *ra)
{
	double lo = 0, hi = 0;
	int64_t drawn = 0;
	for (int k = 0; k < BN_COUNT; k++) {
		if (ra->bn[k].score < TRIGGER)
			continue;
		lo += ra->bn[k].gain.low_pct;
		hi += ra->bn[k].gain.high_pct;
		drawn += ra->bn[k].bucket_ns;
	}
	double cap = fmin(GAIN_CAP, attribution_pct(&ra->attr, drawn));
	ra->combined_gain_high = fmin(cap, hi);
	ra->combined_gain_low = fmin(ra->combined_gain_high, lo);
}

static void rank_bottlenecks(struct rank_analysis *ra)
{
	const struct attribution *a = &ra->attr;
	attribution_metrics(ra);
	reset_candidates(ra);
	if (!a->valid) {
		all_insufficient(ra);
		return;
	}
	ra->bn[BN_HOST_DISPATCH].bucket_ns = attribution_sum(a, host_buckets, 2);
	ra->bn[BN_NPU_COMPUTE].bucket_ns = attribution_sum(a, compute_buckets, 1);
	ra->bn[BN_COMMUNICATION].bucket_ns = attribution_sum(a, comm_buckets, 4);
	ra->bn[BN_COPY].bucket_ns = attribution_sum(a, copy_buckets, 3);
	for (int k = 0; k < BN_COUNT; k++)
		score(ra, &ra->bn[k]);
	judge_host_dispatch(ra);
	judge_npu_compute(ra);
	judge_communication(ra);
	judge_copies(ra);
	judge_sample_size(ra);
	combine_gains(ra);
}

void bottleneck_order(const struct rank_analysis *ra, int order[BN_COUNT])
{
	for (int k = 0; k < BN_COUNT; k++)
		order[k] = k;
	for (int i = 1; i < BN_COUNT; i++)
		for (int j = i; j > 0 && ra->bn[order[j]].score > ra->bn[order[j - 1]].score; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
}

bool bottleneck_gain_known(const struct rank_analysis *ra, int k)
{
	/* host dispatch without a host trace claims "none: no host trace", not a gain of 0;
	 * every part of the communication split has an estimate, or claims none (comm_split.h) */
	return ra->attr.valid && !(k == BN_HOST_DISPATCH && !ra->attr.host_known);
}

double bottleneck_gain_mid(const struct bottleneck *b) { return (b->gain.low_pct + b->gain.high_pct) / 2; }

/* -1 when x goes before y in the verdict. The midpoint of the range weighs both ends the
 * report states; the high end alone would favour the widest, least confident ranges
 * (compute's 5-20 %, unsplit communication's 30-80 %). Ties are at the JSON report's 0.01 %. */
static int verdict_cmp(const struct rank_analysis *ra, int x, int y)
{
	const struct bottleneck *bx = &ra->bn[x], *by = &ra->bn[y];
	bool tx = bx->score >= TRIGGER, ty = by->score >= TRIGGER;
	if (tx != ty)
		return tx ? -1 : 1;
	if (tx) {
		/* a triggered candidate with no estimate of its gain goes after those with one
		 * (it cannot be said to give back more) and before those that did not trigger */
		bool kx = bottleneck_gain_known(ra, x), ky = bottleneck_gain_known(ra, y);
		if (kx != ky)
			return kx ? -1 : 1;
		if (kx) {
			double gx = round(bottleneck_gain_mid(bx) * 100), gy = round(bottleneck_gain_mid(by) * 100);
			if (gx != gy)
				return gx > gy ? -1 : 1;
		}
	}
	if (bx->score != by->score)
		return bx->score > by->score ? -1 : 1;
	return x < y ? -1 : x > y; /* the enum's order */
}

void bottleneck_verdict_order(const struct rank_analysis *ra, int order[BN_COUNT])
{
	for (int k = 0; k < BN_COUNT; k++)
		order[k] = k;
	for (int i = 1; i < BN_COUNT; i++)
		for (int j = i; j > 0 && verdict_cmp(ra, order[j], order[j - 1]) < 0; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
}

const char *bottleneck_verdict_reason(const struct rank_analysis *ra, int k, char *buf, size_t size)
{
	int order[BN_COUNT];
	bottleneck_verdict_order(ra, order);
	const struct bottleneck *b = &ra->bn[k], *first = &ra->bn[order[0]];
	if (k == order[0] || b->score < TRIGGER || b->score <= first->score)
		return NULL;
	const struct attribution *a = &ra->attr;
	double share = attribution_pct(a, b->bucket_ns);
	/* each reason names the buckets' share: the verdict keeps it beside the score */
	if (!bottleneck_gain_known(ra, k)) {
		snprintf(buf, size, _("its buckets hold %.1f %%, and its gain cannot be estimated"), share);
		return buf;
	}
	if (k == BN_COMMUNICATION) {
		/* setup and the time neither transfer nor a wait for a captured peer: no gain */
		double fixed = pct_of(a, ATTR_COMM_SETUP) + attribution_pct(a, ra->comm_unsplit_idle_ns);
		if (fixed >= share / 2) {
			snprintf(buf, size, _("most of its %.1f %% is setup or time neither transfer nor waiting for a captured peer, not recoverable"), share);
			return buf;
		}
	}
	if (k == BN_NPU_COMPUTE)
		snprintf(buf, size, _("kernel tuning gives back an estimated 5-20 %% of its %.1f %%"), share);
	else
		snprintf(buf, size, _("its buckets hold %.1f %%, but a score weighs the evidence, not the time to give back"),
			 share);
	return buf;
}

/* One candidate of the verdict line: the first names the figures, the others are short. */
static int verdict_entry(const struct rank_analysis *ra, int k, bool first, char *buf, size_t size)
{
	const struct bottleneck *b = &ra->bn[k];
	char name[512]; /* the candidate, with what MoE expert load says of it */
	verdict_name(ra, k, name, sizeof name);
	double share = attribution_pct(&ra->attr, b->bucket_ns);
	char why[VERDICT_REASON_MAX];
	const char *reason = bottleneck_verdict_reason(ra, k, why, sizeof why);
	if (first && ra->verdict_of_steps) /* a phase's verdict: shares of its steps' time */
		return bottleneck_gain_known(ra, k)
			       ? snprintf(buf, size,
					  _("%s (expected gain %.1f-%.1f %% of the steps' time; score %d; its buckets "
					    "hold %.1f %%)"),
					  name, b->gain.low_pct, b->gain.high_pct, b->score, share)
			       : snprintf(buf, size,
					  _("%s (expected gain unknown; score %d; its buckets hold %.1f %% of the steps' "
					    "time)"),
					  name, b->score, share);
	if (first)
		return bottleneck_gain_known(ra, k)
			       ? snprintf(buf, size,
					  _("%s (expected gain %.1f-%.1f %% of the window; score %d; its buckets hold "
					    "%.1f %%)"),
					  name, b->gain.low_pct, b->gain.high_pct, b->score, share)
			       : snprintf(buf, size,
					  _("%s (expected gain unknown; score %d; its buckets hold %.1f %% of the window)"),
					  name, b->score, share);
	/* a reason names the share itself */
	char gain[64];
	if (bottleneck_gain_known(ra, k))
		snprintf(gain, sizeof gain, _("%.1f-%.1f %%"), b->gain.low_pct, b->gain.high_pct);
	else
		snprintf(gain, sizeof gain, "%s", _("gain unknown"));
	return reason ? snprintf(buf, size, _(", then %s (%s; score %d: %s)"), name, gain, b->score, reason)
		      : snprintf(buf, size, _(", then %s (%s; score %d; %.1f %%)"), name, gain, b->score, share);
}

bool bottleneck_verdict_leads_collective(const struct rank_analysis *ra)
{
	if (!ra->n_outliers || !ra->attr.valid)
		return false;
	/* a collective named on its own goes where what it costs ranks it among the gains */
	int order[BN_COUNT];
	bottleneck_verdict_order(ra, order);
	double cost = attribution_pct(&ra->attr, ra->outliers[0].exposed_ns);
	return ra->bn[order[0]].score < TRIGGER || !bottleneck_gain_known(ra, order[0]) ||
	       cost >= bottleneck_gain_mid(&ra->bn[order[0]]);
}

/* The collective named on its own (the largest of ra->outliers) as a verdict entry: first,
 * or after the candidates that give back more. */
static int outlier_entry(const struct rank_analysis *ra, bool first, char *buf, size_t size)
{
	const struct coll_outlier *o = &ra->outliers[0];
	const struct attribution *a = &ra->attr;
	char *name = sanitize_dup(o->name ? o->name : "", o->name ? strlen(o->name) : 0);
	/* named by its largest part that is not transfer (a collective mostly moving data is
	 * never one of these: comm_split.c) */
	int64_t wait = o->part_ns[0], setup = o->part_ns[2], rest = o->part_ns[3];
	const char *what = o->first_in_group && !o->source ? _("its group's first collective: link setup or data, no data splits it")
			   : o->first_in_group && setup >= wait && setup >= rest ? _("its group's first collective: link setup")
			   : wait >= rest					? _("mostly waiting for a late peer")
			   : o->source ? _("inputs not ready, or a peer outside the capture")
				       : _("not split: no communication.json and no peer rank");
	int n = first ? snprintf(buf, size,
				 _("one collective, %s at %.3f ms, holds %.1f %% of the window (%s; setup %.1f %%, waiting "
				   "for a peer %.1f %%, transfer %.1f %%, unsplit %.1f %%)"),
				 name, (double)(o->start - ra->t0) / 1e6, attribution_pct(a, o->exposed_ns), what,
				 attribution_pct(a, o->part_ns[2]), attribution_pct(a, o->part_ns[0]),
				 attribution_pct(a, o->part_ns[1]), attribution_pct(a, o->part_ns[3]))
		      : snprintf(buf, size, _(", then one collective, %s (%.1f %% of the window: %s)"), name,
				 attribution_pct(a, o->exposed_ns), what);
	free(name);
	if (n >= 0 && (size_t)n < size && ra->n_outliers > 1) {
		int m = snprintf(buf + n, size - (size_t)n, _(" (and %zu more of %.0f %% or more each)"), ra->n_outliers - 1,
				 COMM_OUTLIER_PCT);
		if (m > 0)
			n += m;
	}
	return n;
}

const char *bottleneck_verdict(const struct rank_analysis *ra, char *buf, size_t size)
{
	const struct attribution *a = &ra->attr;
	if (!a->valid) {
		snprintf(buf, size, _("insufficient data: %s"), _(attribution_why(a)));
		return buf;
	}
	if (a->span_hi <= a->span_lo && a->ns[ATTR_EDGE_IDLE] == a->wall_ns) {
		snprintf(buf, size, _("insufficient data: no device task or collective in the window"));
		return buf;
	}
	/* a few kernels are no sample of a run (an operator test, a toy trace): the shares of
	 * so little device time would read as a confident verdict */
	int64_t busy = device_sample_ns(a);
	if (busy < MIN_DEVICE_SAMPLE_NS) {
		snprintf(buf, size,
			 _("insufficient data: the device ran tasks for only %.1f us of the window, too small a "
			   "sample to judge"),
			 (double)busy / 1e3);
		return buf;
	}
	/* the triggered candidates by the time they give back (bottleneck_verdict_order), each
	 * with its score and its buckets' share */
	int order[BN_COUNT];
	bottleneck_verdict_order(ra, order);
	bool lead = bottleneck_verdict_leads_collective(ra);
	if (ra->bn[order[0]].score >= TRIGGER || ra->n_outliers) {
		size_t n = 0;
		int i = 0, entries = 0;
		if (lead) {
			int m = outlier_entry(ra, true, buf, size);
			n = m > 0 && (size_t)m < size ? (size_t)m : size - 1;
			entries++;
		}
		for (; i < BN_COUNT && ra->bn[order[i]].score >= TRIGGER && n + 1 < size; i++) {
			int m = verdict_entry(ra, order[i], entries == 0, buf + n, size - n);
			if (m < 0)
				break;
			n += (size_t)m < size - n ? (size_t)m : size - n - 1;
			entries++;
		}
		if (ra->n_outliers && !lead && n + 1 < size) {
			int m = outlier_entry(ra, false, buf + n, size - n);
			if (m > 0)
				n += (size_t)m < size - n ? (size_t)m : size - n - 1;
			entries++;
		}
		if (entries > 1 && n + 1 < size)
			snprintf(buf + n, size - n, "%s",
				 ra->n_outliers ? _("; ranked by expected gain, a collective by what it costs")
						: _("; ranked by expected gain"));
		return buf;
	}
	double idle = attribution_pct(a, a->ns[ATTR_IDLE]);
	if (!a->host_known && idle >= 20.0)
		snprintf(buf, size,
			 _("insufficient data: the device idles %.1f %% of the window inside its span, and without a "
			 "host trace the cause is unknown"),
			 idle);
	else if (idle >= 10.0) /* vLLM's default capture: no Python frames, the scheduler unseen;
				 * as much as host_bound_pct's threshold is not "nothing to say" */
		snprintf(buf, size,
			 ra->workload == WORKLOAD_INFERENCE
				 ? _("insufficient data: the device idles %.1f %% of the window inside its span and the "
				     "trace shows no host work there: host work it does not record (Python, the "
				     "scheduler) or none (waiting for requests)")
				 : _("insufficient data: the device idles %.1f %% of the window inside its span and the "
				     "trace shows no host work there: host work it does not record (Python, data "
				     "loading) or none (waiting for input)"),
			 idle);
	else
		snprintf(buf, size, _("no candidate reaches its threshold"));
	return buf;
}
