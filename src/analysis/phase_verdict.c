/* SPDX-License-Identifier: MIT */
/* A verdict per phase (phase_verdict.h): the window's partition over each phase's steps,
 * the rank's communication split shared out, and the rank's bottleneck rules over them. */
#include "phase_verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bottleneck.h"
#include "i18n.h"
#include "metrics.h"
#include "xalloc.h"

/* Fewer steps than this are no sample of a phase: one long prefill says nothing of the rest. */
#define PHASE_MIN_STEPS 2

/* The phases in the order they are listed; TRAINING_GROUP stands for the training steps. */
#define TRAINING_GROUP (-1)
static const int groups[] = {PHASE_PREFILL, PHASE_DECODE, PHASE_MIXED, PHASE_UNKNOWN, TRAINING_GROUP};

static bool step_training(const struct step *st)
{
	return st->phase == PHASE_UNKNOWN && st->phase_source == PHASE_SRC_WORKLOAD;
}

static bool in_group(const struct step *st, int g)
{
	return g == TRAINING_GROUP ? step_training(st) : !step_training(st) && (int)st->phase == g;
}

const char *phase_verdict_name(const struct phase_verdict *pv)
{
	return pv->training ? N_("training") : result_phase_name(pv->phase);
}

void phase_partition(struct rank_sets *s, struct rank_analysis *ra)
{
	const struct attribution *r = &ra->attr;
	if (!r->valid || !ra->n_steps || !ra->steps[0].has_window)
		return;
	int64_t lo = ra->t0, hi = ra->t0 + r->wall_ns;
	int64_t *durs = xmalloc(ra->n_steps * sizeof *durs);
	ra->by_phase = xcalloc(sizeof groups / sizeof groups[0], sizeof *ra->by_phase);
	for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
		struct phase_verdict *pv = &ra->by_phase[ra->n_by_phase];
		memset(pv, 0, sizeof *pv);
		for (size_t i = 0; i < ra->n_steps; i++) {
			const struct step *st = &ra->steps[i];
			if (!in_group(st, groups[g]))
				continue;
			int64_t a = st->win_start > lo ? st->win_start : lo, b = st->win_end < hi ? st->win_end : hi;
			if (b < a)
				b = a;
			struct attribution one;
			metrics_attribution_in(s, a, b, r->span_lo, r->span_hi, &one);
			for (int k = 0; k < ATTR_COUNT; k++)
				pv->part.ns[k] += one.ns[k];
			pv->part.wall_ns += one.wall_ns;
			size_t n_long;
			int64_t long_ns, short_ns;
			ivset_gaps(&s->occupied, a, b, IDLE_MIN_GAP_NS, &n_long, &long_ns, &short_ns);
			pv->short_gap_ns += short_ns;
			durs[pv->steps++] = st->end - st->start;
		}
		if (!pv->steps)
			continue;
		pv->training = groups[g] == TRAINING_GROUP;
		pv->phase = pv->training ? PHASE_UNKNOWN : (enum phase)groups[g];
		pv->part.valid = true;
		pv->part.host_known = r->host_known;
		pv->part.span_lo = r->span_lo;
		pv->part.span_hi = r->span_hi;
		pv->part.comm_split = r->comm_split;
		nearest_rank_select2(durs, pv->steps, 0.5, 0.95, &pv->p50_ns, &pv->p95_ns);
		pv->first = -1;
		ra->n_by_phase++;
	}
	free(durs);
}

/* round(cum * part / whole): rising with cum, part itself once cum reaches whole. Shared
 * out by running sums, the phases' shares add up to the share of their sum. */
static int64_t share_of(int64_t cum, int64_t part, int64_t whole)
{
	if (whole <= 0 || cum <= 0)
		return 0;
	if (cum >= whole)
		return part;
	return llround((double)cum * ((double)part / (double)whole));
}

static int64_t clamp(int64_t v, int64_t hi) { return v < 0 ? 0 : v > hi ? hi : v; }

/* The metrics the rules read from the attribution, set again from the phase's. */
static const enum metric_id of_attribution[] = {M_EDGE_IDLE_US,     M_COMPUTE_PCT,  M_HOST_BOUND_PCT,
						M_COPY_EXPOSED_PCT, M_COMM_WAIT_PCT, M_COMM_NOT_OVERLAPPED_PCT};

static void judge(const struct rank_analysis *ra, struct phase_verdict *pv)
{
	free(pv->verdict);
	pv->first = -1;
	pv->gain_low_pct = pv->gain_high_pct = pv->launch_pct = 0;
	pv->judged = false;
	if (pv->steps < PHASE_MIN_STEPS) {
		pv->verdict = xasprintf(_("insufficient data: %zu step, no sample of the phase"), pv->steps);
		return;
	}
	/* the rank as the rules see it, with the phase's buckets in place of the window's: the
	 * counts and ratios they show as context stay the rank's and move no score */
	struct rank_analysis t = *ra;
	memset(t.bn, 0, sizeof t.bn);
	t.by_phase = NULL;
	t.n_by_phase = 0;
	/* its gains are of the steps' time; the collectives named on their own are the rank's
	 * findings, shares of the rank's window, not the phase's */
	t.verdict_of_steps = true;
	t.outliers = NULL;
	t.n_outliers = 0;
	t.attr = pv->attr;
	for (size_t i = 0; i < sizeof of_attribution / sizeof of_attribution[0]; i++)
		t.have[of_attribution[i]] = false;
	static const enum attr_bucket comm[] = {ATTR_COMM_WAIT, ATTR_COMM_TRANSFER, ATTR_COMM_SETUP, ATTR_COMM_UNSPLIT};
	if (ra->have[M_COMM_NOT_OVERLAPPED_PCT]) /* exposed communication is the comm buckets */
		result_set_metric(&t, M_COMM_NOT_OVERLAPPED_PCT, attribution_pct(&t.attr, attribution_sum(&t.attr, comm, 4)),
				    ra->conf[M_COMM_NOT_OVERLAPPED_PCT], ra->source[M_COMM_NOT_OVERLAPPED_PCT]);
	bottleneck_candidates(&t);
	char line[VERDICT_MAX];
	bottleneck_verdict(&t, line, sizeof line);
	int order[BN_COUNT];
	bottleneck_verdict_order(&t, order);
	if (t.bn[order[0]].score >= 40) { /* never below the sample bottleneck_verdict judges */
		pv->first = order[0];
		pv->gain_low_pct = t.combined_gain_low;
		pv->gain_high_pct = t.combined_gain_high;
	}
	pv->judged = bottleneck_device_sampled(&pv->attr);
	/* launch-bound: the device free in gaps too short to be idleness (launch jitter), of
	 * that only the part in buckets no candidate but host dispatch draws on (host dispatch,
	 * Python, idle): a sync or a copy there is the copy candidate's */
	static const enum attr_bucket free_buckets[] = {ATTR_HOST_DISPATCH, ATTR_HOST_PYTHON, ATTR_IDLE};
	int64_t launch = pv->short_gap_ns, room = attribution_sum(&pv->attr, free_buckets, 3);
	double launch_pct = attribution_pct(&pv->attr, launch < room ? launch : room);
	if (pv->judged && launch_pct >= PHASE_LAUNCH_BOUND_PCT) {
		pv->launch_pct = launch_pct;
		pv->verdict = xasprintf(_("%.0f %% of the steps' time free in device gaps under 50 us: launch-bound; %s"), launch_pct,
					line);
	} else {
		pv->verdict = xstrdup(line);
	}
	for (int k = 0; k < BN_COUNT; k++)
		result_bottleneck_free(&t.bn[k]);
}

void phase_verdicts(struct rank_analysis *ra)
{
	if (!ra->n_by_phase)
		return;
	/* the rank's exposed communication was split per collective (comm_split.h): each phase
	 * gets the rank's shares of its own unsplit time, laid part by part by running sums so
	 * the phases' parts add up to the rank's */
	const struct attribution *r = &ra->attr;
	static const enum attr_bucket parts[] = {ATTR_COMM_WAIT, ATTR_COMM_TRANSFER, ATTR_COMM_SETUP};
	enum { NP = sizeof parts / sizeof parts[0] };
	int64_t all = r->ns[ATTR_COMM_UNSPLIT], whole[NP], prev[NP] = {0}, cum[NP] = {0};
	for (size_t k = 0; k < NP; k++)
		all += whole[k] = r->ns[parts[k]];
	for (size_t i = 0; i < ra->n_by_phase; i++) {
		struct phase_verdict *pv = &ra->by_phase[i];
		pv->attr = pv->part;
		pv->attr.host_known = r->host_known;
		pv->attr.comm_split = r->comm_split;
		int64_t left = pv->part.ns[ATTR_COMM_UNSPLIT], rest = all;
		for (size_t k = 0; k < NP; k++) {
			/* part k of what the earlier parts left, as the rank's part k of its rest */
			cum[k] += left;
			int64_t c = share_of(cum[k], whole[k], rest);
			int64_t v = clamp(c - prev[k], left);
			prev[k] = c;
			pv->attr.ns[parts[k]] = v;
			left -= v;
			rest -= whole[k];
		}
		pv->attr.ns[ATTR_COMM_UNSPLIT] = left;
		judge(ra, pv);
	}
}

const char *phase_verdict_short(const struct rank_analysis *ra, const struct phase_verdict *pv)
{
	return pv->first >= 0 ? ra->bn[pv->first].name
	       : pv->judged   ? _("no candidate reaches its threshold")
			      : _("insufficient data");
}
