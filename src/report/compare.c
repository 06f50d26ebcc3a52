/* SPDX-License-Identifier: MIT */
/* Two analyses side by side: figures with their direction, the op diff by (scope, phase,
 * name), category shares, bottleneck scores, the gain verdict and comparability warnings. */
#include "compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmp.h"
#include "i18n.h"
#include "xalloc.h"

/* ---- figures ------------------------------------------------------------------------ */

/* The one direction table: which way each compared figure is better. Shares of the window
 * that say where time went are better lower; figures that only describe the workload
 * (step counts, sizes) are neutral. */
static const enum compare_dir fig_dir[CF_COUNT] = {
	[M_WALL_US] = CMP_LOWER_BETTER,
	[M_NPU_BUSY_US] = CMP_NEUTRAL, /* less device work is good, a busier device too */
	[M_NPU_BUSY_PCT] = CMP_HIGHER_BETTER,
	[M_COMPUTE_US] = CMP_LOWER_BETTER,
	[M_HOST_BUSY_US] = CMP_LOWER_BETTER,
	[M_HOST_BUSY_PCT] = CMP_NEUTRAL,
	[M_HOST_ONLY_US] = CMP_LOWER_BETTER,
	[M_HOST_ONLY_PCT] = CMP_LOWER_BETTER,
	[M_NPU_IDLE_US] = CMP_LOWER_BETTER,
	[M_NPU_IDLE_PCT] = CMP_LOWER_BETTER,
	[M_NPU_IDLE_GAPS] = CMP_LOWER_BETTER,
	[M_NPU_IDLE_GAP_MEAN_US] = CMP_LOWER_BETTER,
	[M_COMM_US] = CMP_LOWER_BETTER,
	[M_COMM_OVERLAPPED_US] = CMP_NEUTRAL,
	[M_COMM_NOT_OVERLAPPED_US] = CMP_LOWER_BETTER,
	[M_COMM_NOT_OVERLAPPED_PCT] = CMP_LOWER_BETTER,
	[M_COMM_SHARE_PCT] = CMP_LOWER_BETTER,
	[M_FREE_US] = CMP_LOWER_BETTER,
	[M_EDGE_IDLE_US] = CMP_NEUTRAL, /* where the profiler started and stopped */
	[M_COMPUTE_PCT] = CMP_NEUTRAL,
	[M_HOST_BOUND_PCT] = CMP_LOWER_BETTER,
	[M_COPY_EXPOSED_PCT] = CMP_LOWER_BETTER,
	[M_COMM_WAIT_PCT] = CMP_LOWER_BETTER,
	[M_COLLECTIVES] = CMP_NEUTRAL,
	[M_COLLECTIVE_MEDIAN_US] = CMP_LOWER_BETTER,
	[M_COLLECTIVE_MEDIAN_MB] = CMP_NEUTRAL,
	[M_COMM_WAIT_RATIO] = CMP_LOWER_BETTER,
	[M_COMM_SYNC_RATIO] = CMP_LOWER_BETTER,
	[M_COMM_TRANSIT_MB] = CMP_NEUTRAL, /* the workload's data */
	[M_COMM_SMALL_PACKET_PCT] = CMP_LOWER_BETTER,
	[M_COMM_SLOW_LINKS] = CMP_LOWER_BETTER,
	[M_DEVICE_COPY_US] = CMP_LOWER_BETTER,
	[M_DEVICE_COPY_PCT] = CMP_LOWER_BETTER,
	[M_HOST_COPY_US] = CMP_LOWER_BETTER,
	[M_HOST_COPY_PCT] = CMP_LOWER_BETTER,
	[M_HOST_COPY_EXPOSED_PCT] = CMP_LOWER_BETTER,
	[M_H2D_PER_STEP_US] = CMP_LOWER_BETTER,
	[M_D2H_PER_STEP_US] = CMP_LOWER_BETTER,
	[M_SYNC_OPS] = CMP_LOWER_BETTER,
	[M_SYNC_US] = CMP_LOWER_BETTER,
	[M_SYNC_PER_STEP] = CMP_LOWER_BETTER,
	[M_STEPS] = CMP_NEUTRAL,
	[M_PREFILL_STEPS] = CMP_NEUTRAL,
	[M_DECODE_STEPS] = CMP_NEUTRAL,
	[M_MIXED_STEPS] = CMP_NEUTRAL,
	[M_STEP_P50_US] = CMP_LOWER_BETTER,
	[M_STEP_P95_US] = CMP_LOWER_BETTER,
	[M_DISPATCH_OPS] = CMP_NEUTRAL, /* grows with the step count */
	[M_DISPATCH_PER_STEP] = CMP_LOWER_BETTER,
	[M_HOST_ONLY_PER_STEP_US] = CMP_LOWER_BETTER,
	/* duration-weighted mixes of the kernels: a kernel that runs longer moves them with
	 * no pipe working better (a slower vector kernel raises the vector ratio) */
	[M_PMU_MAC] = CMP_NEUTRAL,
	[M_PMU_VEC] = CMP_NEUTRAL,
	[M_PMU_SCALAR] = CMP_NEUTRAL,
	[M_PMU_MTE1] = CMP_NEUTRAL,
	[M_PMU_MTE2] = CMP_NEUTRAL,
	[M_PMU_MTE3] = CMP_NEUTRAL,
	[M_PMU_ICACHE] = CMP_LOWER_BETTER,
	[M_DUR_OVER_AICORE] = CMP_LOWER_BETTER,
	[M_MEM_PEAK_RESERVED_MB] = CMP_LOWER_BETTER,
	[M_MEM_PEAK_ALLOCATED_MB] = CMP_LOWER_BETTER,
	[CF_PREFILL_STEP_P50] = CMP_LOWER_BETTER,
	[CF_PREFILL_STEP_P95] = CMP_LOWER_BETTER,
	[CF_DECODE_STEP_P50] = CMP_LOWER_BETTER,
	[CF_DECODE_STEP_P95] = CMP_LOWER_BETTER,
};

/* What each figure depends on beyond the device work (bits of enum compare_dep): the step
 * definition, the phases, host events only some recordings hold, and the window, which such
 * host events (ProfilerStep spans, Python frames) widen past the device's work. Figures of
 * device work alone depend on nothing recorded. */
#define D_STEPS (1u << CDEP_STEPS)
#define D_PHASES (1u << CDEP_PHASES)
#define D_HOST (1u << CDEP_HOST)
#define D_WINDOW (1u << CDEP_WINDOW)
static const unsigned fig_deps[CF_COUNT] = {
	[M_WALL_US] = D_WINDOW,
	[M_NPU_BUSY_PCT] = D_WINDOW,
	[M_HOST_BUSY_US] = D_HOST,
	[M_HOST_BUSY_PCT] = D_HOST | D_WINDOW,
	[M_HOST_ONLY_US] = D_HOST,
	[M_HOST_ONLY_PCT] = D_HOST | D_WINDOW,
	[M_NPU_IDLE_US] = D_WINDOW,
	[M_NPU_IDLE_PCT] = D_WINDOW,
	[M_NPU_IDLE_GAPS] = D_WINDOW,
	[M_NPU_IDLE_GAP_MEAN_US] = D_WINDOW,
	[M_COMM_NOT_OVERLAPPED_PCT] = D_WINDOW,
	[M_FREE_US] = D_WINDOW,
	[M_EDGE_IDLE_US] = D_WINDOW,
	[M_COMPUTE_PCT] = D_WINDOW,
	[M_HOST_BOUND_PCT] = D_HOST | D_WINDOW,
	[M_COPY_EXPOSED_PCT] = D_WINDOW,
	[M_COMM_WAIT_PCT] = D_WINDOW,
	[M_HOST_COPY_PCT] = D_HOST, /* over host busy */
	[M_HOST_COPY_EXPOSED_PCT] = D_WINDOW,
	[M_H2D_PER_STEP_US] = D_STEPS,
	[M_D2H_PER_STEP_US] = D_STEPS,
	[M_SYNC_PER_STEP] = D_STEPS,
	[M_STEPS] = D_STEPS,
	[M_PREFILL_STEPS] = D_STEPS | D_PHASES,
	[M_DECODE_STEPS] = D_STEPS | D_PHASES,
	[M_MIXED_STEPS] = D_STEPS | D_PHASES,
	[M_STEP_P50_US] = D_STEPS,
	[M_STEP_P95_US] = D_STEPS,
	[M_DISPATCH_PER_STEP] = D_STEPS,
	[M_HOST_ONLY_PER_STEP_US] = D_STEPS | D_HOST,
	[CF_PREFILL_STEP_P50] = D_STEPS | D_PHASES,
	[CF_PREFILL_STEP_P95] = D_STEPS | D_PHASES,
	[CF_DECODE_STEP_P50] = D_STEPS | D_PHASES,
	[CF_DECODE_STEP_P95] = D_STEPS | D_PHASES,
};

/* The bottleneck scores: shares of the window; host dispatch reads the host's time too. */
static const unsigned bn_deps[BN_COUNT] = {
	[BN_HOST_DISPATCH] = D_HOST | D_WINDOW | D_STEPS,
	[BN_NPU_COMPUTE] = D_WINDOW,
	[BN_COMMUNICATION] = D_WINDOW,
	[BN_COPY] = D_WINDOW,
};

unsigned compare_fig_deps(int fig)
{
	return fig >= 0 && fig < CF_COUNT ? fig_deps[fig] : 0;
}

/* The per-phase step times: key, label, phase, quantile. */
static const struct {
	const char *key, *label;
	enum phase phase;
	double q;
} phase_figs[CF_COUNT - M_COUNT] = {
	[CF_PREFILL_STEP_P50 - M_COUNT] = {"prefill_step_p50_us", N_("Prefill step p50"), PHASE_PREFILL, 0.5},
	[CF_PREFILL_STEP_P95 - M_COUNT] = {"prefill_step_p95_us", N_("Prefill step p95"), PHASE_PREFILL, 0.95},
	[CF_DECODE_STEP_P50 - M_COUNT] = {"decode_step_p50_us", N_("Decode step p50"), PHASE_DECODE, 0.5},
	[CF_DECODE_STEP_P95 - M_COUNT] = {"decode_step_p95_us", N_("Decode step p95"), PHASE_DECODE, 0.95},
};

struct compare_fig_def compare_fig(int fig)
{
	struct compare_fig_def d = {"?", "", "?", CMP_DIR_NONE};
	if (fig < 0 || fig >= CF_COUNT)
		return d;
	d.dir = fig_dir[fig];
	if (fig < M_COUNT) {
		d.key = metric_defs[fig].key;
		d.unit = metric_defs[fig].unit;
		d.label = metric_defs[fig].label;
	} else {
		d.key = phase_figs[fig - M_COUNT].key;
		d.unit = "us";
		d.label = phase_figs[fig - M_COUNT].label;
	}
	return d;
}

const char *compare_dir_name(enum compare_dir d)
{
	return d == CMP_LOWER_BETTER ? "lower" : d == CMP_HIGHER_BETTER ? "higher" : d == CMP_NEUTRAL ? "neutral" : "?";
}

const char *compare_verdict_name(enum compare_verdict v)
{
	static const char *names[] = {"n/a", "same", "better", "worse", "changed", "not comparable"};
	return names[v];
}

const char *compare_op_change_name(enum op_change c)
{
	static const char *names[OPC_COUNT] = {"same", "slower", "faster", "added", "removed"};
	return names[c];
}

const char *compare_gain_verdict_name(enum gain_verdict v)
{
	static const char *names[] = {"achieved", "partly achieved", "missed", "unknown"};
	return names[v];
}

bool compare_fig_value(const struct rank_analysis *ra, int fig, double *out)
{
	if (fig < M_COUNT) {
		*out = ra->v[fig];
		return ra->have[fig];
	}
	if (fig >= CF_COUNT)
		return false;
	int64_t *d = xmalloc((ra->n_steps ? ra->n_steps : 1) * sizeof *d);
	size_t n = 0;
	for (size_t i = 0; i < ra->n_steps; i++)
		if (ra->steps[i].phase == phase_figs[fig - M_COUNT].phase)
			d[n++] = ra->steps[i].end - ra->steps[i].start;
	xqsort(d, n, sizeof *d, cmp_i64);
	*out = (double)nearest_rank(d, n, phase_figs[fig - M_COUNT].q) / 1e3;
	free(d);
	return n > 0;
}

/* Below the noise share of BEFORE, or both zero. */
static bool is_noise(double a, double delta)
{
	return fabs(delta) <= fabs(a) * COMPARE_NOISE_PCT / 100.0;
}

static double pct_of(double delta, double base)
{
	return base != 0 ? 100.0 * delta / fabs(base) : NAN;
}

static void compare_value(struct compare_value *cv, enum compare_dir dir)
{
	if (!cv->have[0] || !cv->have[1]) {
		cv->delta = cv->delta_pct = NAN;
		cv->verdict = CMP_NA;
		return;
	}
	cv->delta = cv->v[1] - cv->v[0];
	cv->delta_pct = pct_of(cv->delta, cv->v[0]);
	if (is_noise(cv->v[0], cv->delta))
		cv->verdict = CMP_SAME;
	else if (dir == CMP_LOWER_BETTER)
		cv->verdict = cv->delta < 0 ? CMP_BETTER : CMP_WORSE;
	else if (dir == CMP_HIGHER_BETTER)
		cv->verdict = cv->delta > 0 ? CMP_BETTER : CMP_WORSE;
	else
		cv->verdict = CMP_CHANGED;
}

/* A share moves with what it is a share of: a slower kernel lengthens the window and so
 * lowers the host-only share with not a microsecond of host time saved. Shares are judged
 * by their numerator (its own figure, or the share times the window): a share whose
 * numerator is the same reads "changed", never better or worse. (The busy share, better
 * higher, is judged as it is: its complement is the idle share, judged here.) */
static const struct {
	int share, num; /* num: the numerator's figure, or -1 for share * window */
} shares[] = {
	{M_HOST_ONLY_PCT, M_HOST_ONLY_US},
	{M_NPU_IDLE_PCT, M_NPU_IDLE_US},
	{M_COMM_NOT_OVERLAPPED_PCT, M_COMM_NOT_OVERLAPPED_US},
	{M_COMM_SHARE_PCT, M_COMM_US},
	{M_DEVICE_COPY_PCT, M_DEVICE_COPY_US},
	{M_HOST_COPY_PCT, M_HOST_COPY_US},
	{M_HOST_BOUND_PCT, -1},
	{M_COPY_EXPOSED_PCT, -1},
	{M_COMM_WAIT_PCT, -1},
	{M_HOST_COPY_EXPOSED_PCT, -1},
};

static void judge_shares(struct compare_pair *p)
{
	for (size_t i = 0; i < sizeof shares / sizeof shares[0]; i++) {
		struct compare_value *cv = &p->fig[shares[i].share];
		if (cv->verdict != CMP_BETTER && cv->verdict != CMP_WORSE)
			continue;
		double n[2];
		for (int s = 0; s < 2; s++) {
			const struct compare_value *w = &p->fig[shares[i].num >= 0 ? shares[i].num : M_WALL_US];
			if (!w->have[s]) {
				n[s] = NAN;
				continue;
			}
			n[s] = shares[i].num >= 0 ? w->v[s] : cv->v[s] * w->v[s] / 100.0;
		}
		if (isnan(n[0]) || isnan(n[1]))
			continue;
		/* every share here is better lower: the numerator's change decides */
		cv->verdict = is_noise(n[0], n[1] - n[0]) ? CMP_CHANGED : n[1] > n[0] ? CMP_WORSE : CMP_BETTER;
	}
}

/* ---- op diff ------------------------------------------------------------------------ */

/* Rows pair up by name, and collectives by kind and group. */
static int cmp_op_key(const struct op_stat *x, const struct op_stat *y)
{
	if (x->scope != y->scope)
		return x->scope - y->scope;
	if (x->phase != y->phase)
		return x->phase - y->phase;
	if (x->collective != y->collective)
		return x->collective - y->collective;
	int c = strcmp(x->name, y->name);
	return c ? c : analysis_group_cmp(x->group, y->group);
}

static int cmp_op_ptr(const void *a, const void *b)
{
	return cmp_op_key(*(const struct op_stat *const *)a, *(const struct op_stat *const *)b);
}

static int cmp_diff(const void *a, const void *b)
{
	const struct op_diff *x = a, *y = b;
	if (x->scope != y->scope)
		return x->scope - y->scope;
	if (x->phase != y->phase)
		return x->phase - y->phase;
	int64_t dx = llabs(x->delta_total_ns), dy = llabs(y->delta_total_ns);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	int c = strcmp(x->name, y->name);
	return c ? c : analysis_group_cmp(x->group, y->group);
}

static enum op_change change_of(double a, double delta)
{
	if (is_noise(a, delta))
		return OPC_SAME;
	return delta > 0 ? OPC_SLOWER : OPC_FASTER;
}

static void fill_diff(struct op_diff *d, const struct op_stat *a, const struct op_stat *b)
{
	const struct op_stat *any = a ? a : b;
	memset(d, 0, sizeof *d);
	d->name = any->name;
	d->group = any->group;
	d->collective = any->collective;
	d->scope = any->scope;
	d->phase = any->phase;
	d->category = any->category;
	d->s[0] = a;
	d->s[1] = b;
	uint64_t ca = a ? a->count : 0, cb = b ? b->count : 0;
	int64_t ta = a ? a->total_ns : 0, tb = b ? b->total_ns : 0;
	d->delta_count = (int64_t)cb - (int64_t)ca;
	d->delta_total_ns = tb - ta;
	d->delta_total_pct = a ? pct_of((double)d->delta_total_ns, (double)ta) : NAN;
	d->delta_avg_pct = NAN;
	if (a && b) {
		d->delta_avg_ns = b->avg_ns - a->avg_ns;
		d->delta_avg_pct = pct_of(d->delta_avg_ns, a->avg_ns);
		d->change = change_of((double)ta, (double)d->delta_total_ns);
		d->avg_change = change_of(a->avg_ns, d->delta_avg_ns);
	} else {
		d->change = a ? OPC_REMOVED : OPC_ADDED;
		d->avg_change = OPC_SAME;
	}
}

static const struct op_stat **sorted_ops(const struct rank_analysis *ra)
{
	const struct op_stat **v = xmalloc((ra->n_ops ? ra->n_ops : 1) * sizeof *v);
	for (size_t i = 0; i < ra->n_ops; i++)
		v[i] = &ra->ops[i];
	xqsort(v, ra->n_ops, sizeof *v, cmp_op_ptr);
	return v;
}

/* The collectives of a kind (in a scope and phase) left unpaired by their groups, one on
 * each side: the same collective, its group renumbered (hcom_allReduce__868_... before,
 * __586_... after on msinsight's level0 and level1): paired, named by both groups. The
 * diffs are in cmp_op_key's order, so a kind's rows are adjacent. */
static void pair_across_groups(struct compare_pair *p)
{
	size_t out = 0;
	for (size_t i = 0; i < p->n_ops;) {
		size_t j = i + 1, removed = 0, added = 0;
		while (j < p->n_ops && p->ops[j].collective && p->ops[i].collective && p->ops[j].scope == p->ops[i].scope &&
		       p->ops[j].phase == p->ops[i].phase && !strcmp(p->ops[j].name, p->ops[i].name))
			j++;
		for (size_t k = i; k < j; k++) {
			removed += !p->ops[k].s[1];
			added += !p->ops[k].s[0];
		}
		const struct op_stat *a = NULL, *b = NULL;
		for (size_t k = i; removed == 1 && added == 1 && k < j; k++) {
			a = p->ops[k].s[0] && !p->ops[k].s[1] ? p->ops[k].s[0] : a;
			b = p->ops[k].s[1] && !p->ops[k].s[0] ? p->ops[k].s[1] : b;
		}
		for (size_t k = i; k < j; k++) /* the pair's two diffs become one, in the first's place */
			if (!a || (p->ops[k].s[0] && p->ops[k].s[1]))
				p->ops[out++] = p->ops[k];
			else if (p->ops[k].s[0]) {
				fill_diff(&p->ops[out], a, b);
				if (!p->strs)
					p->strs = strtab_new();
				char both[300];
				snprintf(both, sizeof both, "%s/%s", a->group ? a->group : "-", b->group ? b->group : "-");
				p->ops[out++].group = strtab_str(p->strs, strtab_intern_cstr(p->strs, both));
			}
		i = j;
	}
	p->n_ops = out;
}

static void diff_ops(struct compare_pair *p)
{
	const struct op_stat **a = sorted_ops(p->ra[0]), **b = sorted_ops(p->ra[1]);
	size_t na = p->ra[0]->n_ops, nb = p->ra[1]->n_ops, i = 0, j = 0;
	p->ops = xmalloc((na + nb ? na + nb : 1) * sizeof *p->ops);
	while (i < na || j < nb) {
		int c = i == na ? 1 : j == nb ? -1 : cmp_op_key(a[i], b[j]);
		const struct op_stat *x = c <= 0 ? a[i++] : NULL, *y = c >= 0 ? b[j++] : NULL;
		fill_diff(&p->ops[p->n_ops++], x, y);
	}
	pair_across_groups(p);
	for (size_t k = 0; k < p->n_ops; k++)
		p->n_change[p->ops[k].scope][p->ops[k].phase][p->ops[k].change]++;
	free(a);
	free(b);
	xqsort(p->ops, p->n_ops, sizeof *p->ops, cmp_diff);
}

const struct op_diff *compare_find_op(const struct compare_pair *p, int scope, int phase, struct op_key key)
{
	for (size_t i = 0; p && i < p->n_ops; i++) {
		const struct op_diff *d = &p->ops[i];
		if (d->scope == scope && d->phase == phase && d->collective == key.collective && !strcmp(d->name, key.name) &&
		    !analysis_group_cmp(d->group, key.group))
			return d;
	}
	return NULL;
}

static void category_shares(const struct rank_analysis *ra, double share[SCOPE_COUNT][CAT_COUNT])
{
	double total[SCOPE_COUNT] = {0};
	for (size_t i = 0; i < ra->n_ops; i++) {
		const struct op_stat *o = &ra->ops[i];
		if (o->phase != PHASE_UNKNOWN || o->category >= CAT_COUNT)
			continue;
		share[o->scope][o->category] += (double)o->total_ns;
		total[o->scope] += (double)o->total_ns;
	}
	for (int s = 0; s < SCOPE_COUNT; s++)
		for (int k = 0; k < CAT_COUNT; k++)
			share[s][k] = total[s] > 0 ? 100.0 * share[s][k] / total[s] : 0;
}

/* ---- the gain verdict --------------------------------------------------------------- */

static double mean_step_us(const struct rank_analysis *ra)
{
	double sum = 0;
	for (size_t i = 0; i < ra->n_steps; i++)
		sum += (double)(ra->steps[i].end - ra->steps[i].start);
	return sum / (double)ra->n_steps / 1e3;
}

/* Nothing comparable moved beyond the noise: no figure, no op. */
static bool nothing_moved(const struct compare_pair *p)
{
	for (int f = 0; f < CF_COUNT; f++)
		if (p->fig[f].comparable && p->fig[f].verdict != CMP_SAME && p->fig[f].verdict != CMP_NA)
			return false;
	for (size_t i = 0; i < p->n_ops; i++)
		if (p->ops[i].comparable && p->ops[i].change != OPC_SAME)
			return false;
	return true;
}

static void gain_verdict(struct compare_pair *p)
{
	const struct rank_analysis *a = p->ra[0], *b = p->ra[1];
	struct compare_gain *g = &p->gain;
	/* the first of the verdict (by expected gain), as the report and the explorer name it */
	int order[BN_COUNT];
	bottleneck_verdict_order(a, order);
	const struct bottleneck *top = &a->bn[order[0]];
	g->kind = top->kind;
	g->name = top->name;
	g->score[0] = top->score;
	g->score[1] = b->bn[top->kind].score;
	g->triggered = top->score >= 40;
	g->low_pct = top->gain.low_pct;
	g->high_pct = top->gain.high_pct;
	g->gain_known = bottleneck_gain_known(a, order[0]);
	/* the expected gain is a share of the window; per step it stands for the same work
	 * even when the two captures hold different numbers of steps */
	/* only on a comparable figure: mean step time under one step definition, else the
	 * window where both sides recorded alike, else no verdict */
	const char *steps_why = a->n_steps && b->n_steps ? compare_why(p, D_STEPS) : NULL;
	const char *window_why = a->have[M_WALL_US] && b->have[M_WALL_US] ? compare_why(p, D_WINDOW) : NULL;
	g->comparable = true;
	if (a->n_steps && b->n_steps && !steps_why) {
		g->base_name = N_("mean step time");
		g->base[0] = mean_step_us(a);
		g->base[1] = mean_step_us(b);
	} else if (a->have[M_WALL_US] && b->have[M_WALL_US] && !window_why) {
		g->base_name = N_("window");
		g->base[0] = a->v[M_WALL_US];
		g->base[1] = b->v[M_WALL_US];
	} else {
		g->base_name = "nothing";
		g->comparable = !steps_why && !window_why;
	}
	p->have_gain = true;
	if (!g->comparable) {
		g->verdict = GAIN_UNKNOWN;
		g->actual_pct = NAN;
		g->reason = steps_why ? steps_why : window_why;
		if (steps_why && window_why && steps_why != window_why)
			g->basis = xasprintf(_("not comparable: the mean step time, because %s; the window, because %s"),
					     steps_why, window_why);
		else
			g->basis = xasprintf(_("not comparable: the %s, because %s"), steps_why ? _("mean step time") : _("window"),
					     g->reason);
		return;
	}
	if (!(g->base[0] > 0)) {
		g->verdict = GAIN_UNKNOWN;
		g->actual_pct = NAN;
		g->basis = xasprintf("%s", _("neither steps nor a window on both sides: nothing to measure the gain on"));
		return;
	}
	g->actual_pct = 100.0 * (g->base[0] - g->base[1]) / g->base[0];
	if (nothing_moved(p)) { /* the same work recorded twice: no change to credit or blame */
		g->verdict = GAIN_UNKNOWN;
		g->basis = xasprintf(_("no change measured: every comparable figure and op is the same on both sides (the "
				       "%s %.3f ms and %.3f ms), so there is no change to judge"),
				     _(g->base_name), g->base[0] / 1e3, g->base[1] / 1e3);
		return;
	}
	if (!g->gain_known) { /* nothing to hold the change against: any change would "achieve" 0 */
		g->verdict = GAIN_UNKNOWN;
		g->basis = xasprintf(g->actual_pct >= 0 ? _("%s (score %d%s) has no estimate of its gain; the %s went from "
							   "%.3f ms to %.3f ms, %.1f %% shorter")
							: _("%s (score %d%s) has no estimate of its gain; the %s went from "
							   "%.3f ms to %.3f ms, %.1f %% longer"),
				     g->name, g->score[0], g->triggered ? "" : _(", below the trigger"), _(g->base_name),
				     g->base[0] / 1e3, g->base[1] / 1e3, fabs(g->actual_pct));
		return;
	}
	g->verdict = g->actual_pct <= 0 ? GAIN_MISSED : g->actual_pct >= g->low_pct ? GAIN_ACHIEVED : GAIN_PARTLY;
	/* built when the comparison is made: in English for JSON (i18n.h) */
	const char *why = g->verdict == GAIN_ACHIEVED ? _("at least the low end of the expected range")
			  : g->verdict == GAIN_PARTLY ? _("an improvement, below the low end of the expected range")
						      : _("no improvement");
	g->basis = xasprintf(g->actual_pct >= 0 ? _("%s (score %d%s) expected %.1f-%.1f %% of the window; the %s went "
						    "from %.3f ms to %.3f ms, %.1f %% shorter: %s")
						 : _("%s (score %d%s) expected %.1f-%.1f %% of the window; the %s went "
						    "from %.3f ms to %.3f ms, %.1f %% longer: %s"),
			     g->name, g->score[0], g->triggered ? "" : _(", below the trigger"), g->low_pct, g->high_pct,
			     _(g->base_name), g->base[0] / 1e3, g->base[1] / 1e3, fabs(g->actual_pct), why);
}

/* ---- warnings ----------------------------------------------------------------------- */

static void warn(struct comparison *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct comparison *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	for (size_t i = 0; i < c->n_warnings; i++)
		if (!strcmp(c->warnings[i], s)) {
			free(s); /* the same for every pair: said once */
			return;
		}
	c->warnings = xrealloc(c->warnings, (c->n_warnings + 1) * sizeof *c->warnings);
	c->warnings[c->n_warnings++] = s;
}

static const struct rank_data *side_data(const struct comparison *c, const struct compare_pair *p, int s)
{
	return &c->an[s]->cap->ranks[p->rank_index[s]];
}

static void warn_text(struct comparison *c, const char *what, const char *a, const char *b)
{
	if (a && b && strcmp(a, b))
		warn(c, _("%s differ: %s on %s, %s on %s"), what, a, c->label[0], b, c->label[1]);
}

/* (name, input shapes) of a kernel table, one entry per distinct pair, sorted by name. */
struct shape_set {
	const char *name;
	const char **shapes; /* sorted */
	size_t n;
};

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_shape_set(const void *a, const void *b)
{
	return strcmp(((const struct shape_set *)a)->name, ((const struct shape_set *)b)->name);
}

static struct shape_set *shape_sets(const struct csv_table *t, size_t *n_out)
{
	*n_out = 0;
	if (!t || !csvt_has(t, COL_NAME) || !csvt_has(t, COL_INPUT_SHAPES))
		return NULL;
	uint64_t *pairs = xmalloc((t->nrows ? t->nrows : 1) * sizeof *pairs);
	size_t np = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		uint32_t shape = csvt_str_id(t, r, COL_INPUT_SHAPES);
		if (shape) /* rows without shapes say nothing */
			pairs[np++] = (uint64_t)csvt_str_id(t, r, COL_NAME) << 32 | shape;
	}
	xqsort(pairs, np, sizeof *pairs, cmp_u64);
	struct shape_set *v = NULL;
	size_t n = 0, cap = 0, scap = 0;
	for (size_t r = 0; r < np; r++) {
		if (r && pairs[r] == pairs[r - 1])
			continue;
		uint32_t name = (uint32_t)(pairs[r] >> 32), shape = (uint32_t)pairs[r];
		if (!n || (r && (uint32_t)(pairs[r - 1] >> 32) != name)) {
			xgrow(&v, &cap, n + 1, sizeof *v);
			v[n++] = (struct shape_set){strtab_str(t->strs, name), NULL, 0};
			scap = 0;
		}
		struct shape_set *s = &v[n - 1];
		xgrow(&s->shapes, &scap, s->n + 1, sizeof *s->shapes);
		s->shapes[s->n++] = strtab_str(t->strs, shape);
	}
	free(pairs);
	for (size_t i = 0; i < n; i++)
		xqsort(v[i].shapes, v[i].n, sizeof *v[i].shapes, cmp_str_ptr);
	xqsort(v, n, sizeof *v, cmp_shape_set);
	*n_out = n;
	return v;
}

static void shape_sets_free(struct shape_set *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].shapes);
	free(v);
}

/* The first shape of a that b does not have, or NULL. */
static const char *shape_missing(const struct shape_set *a, const struct shape_set *b)
{
	for (size_t i = 0; i < a->n; i++)
		if (!bsearch(&a->shapes[i], b->shapes, b->n, sizeof *b->shapes, cmp_str_ptr))
			return a->shapes[i];
	return NULL;
}

static void warn_shapes(struct comparison *c, const struct compare_pair *p)
{
	size_t n[2];
	struct shape_set *s[2];
	for (int k = 0; k < 2; k++)
		s[k] = shape_sets(side_data(c, p, k)->by_kind[CSV_KERNEL], &n[k]);
	size_t changed = 0, i = 0, j = 0;
	const char *ex_name = NULL, *ex_a = NULL, *ex_b = NULL;
	while (i < n[0] && j < n[1]) {
		int d = strcmp(s[0][i].name, s[1][j].name);
		if (d) {
			d < 0 ? i++ : j++;
			continue;
		}
		const char *ma = shape_missing(&s[0][i], &s[1][j]), *mb = shape_missing(&s[1][j], &s[0][i]);
		if (ma || mb) {
			if (!changed++) {
				ex_name = s[0][i].name;
				ex_a = ma ? ma : s[0][i].shapes[0];
				ex_b = mb ? mb : s[1][j].shapes[0];
			}
		}
		i++;
		j++;
	}
	if (changed)
		warn(c, _("rank %d/%d: %zu op(s) ran with other input shapes (kernel table), e.g. %s: \"%s\" on %s, "
		     "\"%s\" on %s"), p->ra[0]->rank, p->ra[1]->rank, changed, ex_name, ex_a, c->label[0], ex_b,
		     c->label[1]);
	shape_sets_free(s[0], n[0]);
	shape_sets_free(s[1], n[1]);
}

static void pair_warnings(struct comparison *c, const struct compare_pair *p)
{
	const struct rank_analysis *a = p->ra[0], *b = p->ra[1];
	char who[64];
	snprintf(who, sizeof who, "rank %d/%d", a->rank, b->rank);
	if (a->n_steps != b->n_steps)
		warn(c, _("%s: %zu step(s) on %s, %zu on %s: compare per-step figures"), who, a->n_steps, c->label[0],
		     b->n_steps, c->label[1]);
	if (a->step_source != b->step_source)
		warn(c, _("%s: steps found from %s on %s, from %s on %s"), who, result_step_source_name(a->step_source),
		     c->label[0], result_step_source_name(b->step_source), c->label[1]);
	if (a->workload != b->workload)
		warn(c, _("%s: workload %s on %s, %s on %s"), who, result_workload_name(a->workload), c->label[0],
		     result_workload_name(b->workload), c->label[1]);
	double pa = a->n_steps ? a->v[M_PREFILL_STEPS] / (double)a->n_steps : 0;
	double pb = b->n_steps ? b->v[M_PREFILL_STEPS] / (double)b->n_steps : 0;
	double ma = a->n_steps ? a->v[M_MIXED_STEPS] / (double)a->n_steps : 0;
	double mb = b->n_steps ? b->v[M_MIXED_STEPS] / (double)b->n_steps : 0;
	bool phased = a->have[M_PREFILL_STEPS] && b->have[M_PREFILL_STEPS]; /* training has no phase mix */
	if (phased && a->n_steps && b->n_steps && (fabs(pa - pb) > 1e-9 || fabs(ma - mb) > 1e-9))
		warn(c, _("%s: phase mix differs: %.0f prefill + %.0f decode + %.0f mixed on %s, %.0f + %.0f + %.0f on %s"),
		     who, a->v[M_PREFILL_STEPS], a->v[M_DECODE_STEPS], a->v[M_MIXED_STEPS], c->label[0],
		     b->v[M_PREFILL_STEPS], b->v[M_DECODE_STEPS], b->v[M_MIXED_STEPS], c->label[1]);
	if (a->has_trace != b->has_trace)
		warn(c, _("%s: a trace on %s only: the other side's figures come from its tables"), who,
		     a->has_trace ? c->label[0] : c->label[1]);
	if (c->mode == CMP_CAPTURES) {
		const struct profinfo *ia = &side_data(c, p, 0)->plan->info, *ib = &side_data(c, p, 1)->plan->info;
		warn_text(c, _("CANN versions"), ia->cann_version, ib->cann_version);
		warn_text(c, _("torch_npu versions"), ia->torch_npu_version, ib->torch_npu_version);
		warn_text(c, _("profiler levels"), ia->profiler_level, ib->profiler_level);
		warn_text(c, _("AI Core metrics"), ia->aic_metrics, ib->aic_metrics);
	}
	warn_shapes(c, p);
}

/* ---- what each side recorded -------------------------------------------------------- */

/* What one rank recorded, read from its files: the same device work exported another way
 * (vLLM-Ascend's default export drops ProfilerStep, python_function and shapes) changes
 * these, and every figure that depends on them. */
struct rec_rank {
	bool trace, frames, mstx, marks, kernel_shapes, op_table;
	const char *steps; /* static, English: the step definition */
};

static bool store_has_cat(const struct rank_store *rs, const char *cat)
{
	if (!rs->has_events)
		return false;
	uint32_t id = strtab_find(rs->strs, cat, strlen(cat));
	for (size_t k = 0; id && k < rs->n_kinds; k++)
		if (rs->attrs[rs->kinds[k].attr].cat == id)
			return true;
	return false;
}

/* One name per step definition: sources that read the same spans share it. */
static const char *step_method(const struct rank_analysis *ra, bool trace)
{
	switch (ra->step_source) {
	case STEP_SRC_STEP_TRACE: return trace ? "markers (ProfilerStep#N)" : "step table (durations only)";
	case STEP_SRC_PROFILER_STEP: return "markers (ProfilerStep#N)";
	case STEP_SRC_MSTX: return "mstx marks";
	case STEP_SRC_ENGINE: return "engine ops";
	case STEP_SRC_IDLE_GAPS: return "idle-gap segments";
	case STEP_SRC_OP_SEQUENCE: return "op sequence";
	case STEP_SRC_KERNEL_STEP: return "kernel table Step Id";
	case STEP_SRC_WINDOW: return "whole window";
	case STEP_SRC_NONE: break;
	}
	return "none";
}

static void rank_recorded(const struct rank_data *rd, const struct rank_analysis *ra, struct rec_rank *r)
{
	const struct rank_store *rs = &rd->store;
	const struct csv_table *k = rd->by_kind[CSV_KERNEL];
	memset(r, 0, sizeof *r);
	r->trace = rs->has_events;
	r->frames = store_has_cat(rs, "python_function");
	r->mstx = store_has_cat(rs, "mstx") || ra->step_source == STEP_SRC_MSTX;
	r->marks = r->trace && (ra->step_source == STEP_SRC_STEP_TRACE || ra->step_source == STEP_SRC_PROFILER_STEP);
	for (size_t i = 0; k && csvt_has(k, COL_INPUT_SHAPES) && i < k->nrows && !r->kernel_shapes; i++)
		r->kernel_shapes = csvt_str_id(k, i, COL_INPUT_SHAPES) != 0;
	r->op_table = rd->by_kind[CSV_OPERATOR_DETAILS] != NULL;
	r->steps = step_method(ra, r->trace);
}

/* "yes", "no" or "N of M ranks" */
static char *count_text(size_t yes, size_t n)
{
	return yes == n ? xstrdup(n ? "yes" : "-") : !yes ? xstrdup("no") : xasprintf("%zu of %zu ranks", yes, n);
}

static void append(char **s, const char *sep, const char *add)
{
	char *t = *s ? xasprintf("%s%s%s", *s, sep, add) : xstrdup(add);
	free(*s);
	*s = t;
}

static char *side_value(const struct analysis *an, int item)
{
	size_t n = an->n_ranks, yes = 0;
	char *out = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct rank_analysis *ra = &an->ranks[i];
		const struct rank_data *rd = &an->cap->ranks[ra->rank_index];
		const struct profinfo *info = &rd->plan->info;
		struct rec_rank r;
		rank_recorded(rd, ra, &r);
		char buf[64];
		const char *text = NULL; /* the distinct texts, in rank order */
		switch ((enum compare_rec)item) {
		case REC_LEVEL: text = info->loaded && info->profiler_level ? info->profiler_level : "unknown"; break;
		case REC_FRAMES: yes += r.frames; break;
		case REC_STACK: text = !info->loaded ? "unknown" : info->with_stack ? "on" : "off"; break;
		case REC_SHAPES:
			text = r.kernel_shapes && r.op_table ? "kernel table, operator table"
			       : r.kernel_shapes             ? "kernel table"
			       : r.op_table                  ? "operator table"
			                                     : "none";
			break;
		case REC_STEPS: text = r.steps; break;
		case REC_MSTX: yes += r.mstx; break;
		case REC_EXPORT:
			text = rd->db_path ? (r.trace ? "Db" : "Db, no trace") : r.trace ? "text" : "text, no trace";
			break;
		case REC_RANKS:
			snprintf(buf, sizeof buf, "%d", ra->rank);
			if (i < 16)
				append(&out, ",", buf);
			else if (i == 16)
				append(&out, "", ",...");
			break;
		case REC_COUNT: break;
		}
		if (text && (!out || !strstr(out, text)))
			append(&out, " / ", text);
	}
	if (item == REC_FRAMES || item == REC_MSTX)
		out = count_text(yes, n);
	return out ? out : xstrdup("-");
}

static void read_recorded(struct comparison *c)
{
	static const char *const keys[REC_COUNT][2] = {
		[REC_LEVEL] = {"profiler_level", N_("profiler level")},
		[REC_FRAMES] = {"python_frames", N_("python_function frames")},
		[REC_STACK] = {"with_stack", N_("with_stack")},
		[REC_SHAPES] = {"shapes", N_("input shapes in")},
		[REC_STEPS] = {"step_source", N_("steps from")},
		[REC_MSTX] = {"mstx", N_("mstx events")},
		[REC_EXPORT] = {"export", N_("export")},
		[REC_RANKS] = {"ranks", N_("ranks")},
	};
	for (int k = 0; k < REC_COUNT; k++) {
		struct compare_recorded *r = &c->recorded[k];
		r->key = keys[k][0];
		r->label = keys[k][1];
		for (int s = 0; s < 2; s++)
			r->value[s] = side_value(c->an[s], k);
		r->differs = strcmp(r->value[0], r->value[1]) != 0;
		c->n_recorded_differ += r->differs;
	}
}

/* Whose side has a thing the other lacks: the label, or NULL when alike. */
static const char *only_on(const struct comparison *c, bool a, bool b)
{
	return a == b ? NULL : c->label[a ? 0 : 1];
}

/* Why the figures depending on each thing are not comparable on this pair (built in
 * English for JSON, like the basis). Steps still found two ways after one_step_definition
 * (a side without a trace, a digest, a second look that found another method) make the
 * step figures not comparable. */
/* A side's rank as first analysed (its step source tells whether it has markers). */
static const struct rank_analysis *first_look(const struct comparison *c, const struct compare_pair *p, int s)
{
	for (size_t i = 0; i < c->an[s]->n_ranks; i++)
		if (c->an[s]->ranks[i].rank_index == p->rank_index[s])
			return &c->an[s]->ranks[i];
	return p->ra[s];
}

static void pair_reasons(struct comparison *c, struct compare_pair *p)
{
	struct rec_rank r[2];
	for (int s = 0; s < 2; s++) {
		rank_recorded(side_data(c, p, s), first_look(c, p, s), &r[s]);
		r[s].steps = step_method(p->ra[s], r[s].trace); /* as compared: perhaps found again */
	}
	if (strcmp(r[0].steps, r[1].steps))
		p->why[CDEP_STEPS] = xasprintf(_("steps found from %s on %s and from %s on %s: two step definitions"),
					       r[0].steps, c->label[0], r[1].steps, c->label[1]);
	else if (p->ra[0]->n_steps && p->ra[1]->n_steps && p->ra[0]->phase_source != p->ra[1]->phase_source)
		p->why[CDEP_PHASES] = xasprintf(_("phases read from %s on %s and from %s on %s"),
						result_phase_signal_name(p->ra[0]->phase_source), c->label[0],
						result_phase_signal_name(p->ra[1]->phase_source), c->label[1]);
	if (p->why[CDEP_STEPS])
		p->why[CDEP_PHASES] = xstrdup(p->why[CDEP_STEPS]); /* phases of other steps */
	const char *frames = only_on(c, r[0].frames, r[1].frames), *mstx = only_on(c, r[0].mstx, r[1].mstx);
	const char *marks = only_on(c, r[0].marks, r[1].marks);
	const struct profinfo *info[2] = {&side_data(c, p, 0)->plan->info, &side_data(c, p, 1)->plan->info};
	const char *level[2] = {info[0]->loaded ? info[0]->profiler_level : NULL,
				info[1]->loaded ? info[1]->profiler_level : NULL};
	if (frames || mstx)
		p->why[CDEP_HOST] = xasprintf(_("%s recorded on %s only: the host time they cover is missing on the other side"),
					      frames ? "python_function frames" : "mstx events", frames ? frames : mstx);
	else if (level[0] && level[1] && strcmp(level[0], level[1])) /* Level1 adds the CANN API lanes */
		p->why[CDEP_HOST] = xasprintf(_("profiler level %s on %s, %s on %s: the levels record different host events"),
					      level[0], c->label[0], level[1], c->label[1]);
	if (r[0].trace != r[1].trace) /* tables hold other events: no copies, no host lanes */
		p->why[CDEP_SOURCE] = xasprintf(_("a trace on %s only: the other side's figures come from its tables, "
						  "which hold other events"),
						c->label[r[0].trace ? 0 : 1]);
	if (frames || mstx || marks)
		p->why[CDEP_WINDOW] = xasprintf(_("%s recorded on %s only: host events the other side lacks widen the window "
						  "past the device's work"),
						frames ? "python_function frames" : mstx ? "mstx events" : "ProfilerStep#N spans",
						frames ? frames : mstx ? mstx : marks);
}

/* The first reason among deps (and the source, which every figure depends on), or NULL
 * when every one is comparable. */
const char *compare_why(const struct compare_pair *p, unsigned deps)
{
	if (p->why[CDEP_SOURCE])
		return p->why[CDEP_SOURCE];
	for (int d = 0; d < CDEP_COUNT; d++)
		if ((deps & 1u << d) && p->why[d])
			return p->why[d];
	return NULL;
}

/* ---- pairs -------------------------------------------------------------------------- */

/* Step definitions that rest on what the host recorded, and those found from the device's
 * work alone (which a side with markers can be given too). */
static bool from_markers(const char *method)
{
	return !strcmp(method, "markers (ProfilerStep#N)") || !strcmp(method, "engine ops") || !strcmp(method, "mstx marks");
}

static bool marker_free_method(const char *method)
{
	return !strcmp(method, "op sequence") || !strcmp(method, "idle-gap segments");
}

/* Steps under one definition: where one side found its steps from markers and the other
 * without any, the marker side is analysed again with its markers set aside (once per
 * side), and its rank from that second look stands in for it when the method then agrees. */
static void one_step_definition(struct comparison *c, struct compare_pair *p)
{
	struct rec_rank r[2];
	for (int s = 0; s < 2; s++)
		rank_recorded(side_data(c, p, s), p->ra[s], &r[s]);
	for (int s = 0; s < 2; s++) {
		const struct analysis *an = c->an[s];
		if (!from_markers(r[s].steps) || !marker_free_method(r[!s].steps) || an->from_digests || !r[s].trace)
			continue;
		if (!c->again[s]) {
			struct analysis_hook hook = {.marker_free_steps = true};
			c->again[s] = analysis_run_with(an->cap, &hook);
		}
		for (size_t i = 0; i < c->again[s]->n_ranks; i++) {
			const struct rank_analysis *ra = &c->again[s]->ranks[i];
			if (ra->rank_index == p->rank_index[s] && !strcmp(step_method(ra, true), r[!s].steps)) {
				p->ra[s] = ra;
				p->steps_again[s] = true;
				warn(c, _("rank %d/%d: the steps of %s found again without its markers, from the %s as on %s: "
					  "step figures compare under one definition"),
				     p->ra[0]->rank, p->ra[1]->rank, c->label[s], r[!s].steps, c->label[!s]);
			}
		}
	}
}

static void fill_pair(struct comparison *c, struct compare_pair *p, const struct rank_analysis *a,
		      const struct rank_analysis *b)
{
	memset(p, 0, sizeof *p);
	p->ra[0] = a;
	p->ra[1] = b;
	p->rank_index[0] = a->rank_index;
	p->rank_index[1] = b->rank_index;
	if (c->mode == CMP_CAPTURES)
		one_step_definition(c, p);
	pair_reasons(c, p);
	for (int f = 0; f < CF_COUNT; f++) {
		struct compare_value *cv = &p->fig[f];
		for (int s = 0; s < 2; s++)
			cv->have[s] = compare_fig_value(p->ra[s], f, &cv->v[s]);
		compare_value(cv, fig_dir[f]);
		cv->reason = compare_why(p, fig_deps[f]);
		cv->comparable = !cv->reason;
		if (!cv->comparable) /* the values stay, for reading; the verdict goes */
			cv->verdict = CMP_NOT_COMPARABLE;
	}
	judge_shares(p);
	diff_ops(p);
	for (size_t i = 0; i < p->n_ops; i++) {
		struct op_diff *d = &p->ops[i];
		d->reason = compare_why(p, d->phase != PHASE_UNKNOWN ? D_STEPS | D_PHASES : 0);
		d->comparable = !d->reason;
	}
	for (int s = 0; s < 2; s++) {
		category_shares(p->ra[s], p->cat_share[s]);
		for (int k = 0; k < BN_COUNT; k++)
			p->bn_score[s][k] = p->ra[s]->bn[k].score;
	}
	for (int k = 0; k < BN_COUNT; k++) {
		p->bn_reason[k] = compare_why(p, bn_deps[k]);
		p->bn_comparable[k] = !p->bn_reason[k];
	}
	if (c->mode == CMP_CAPTURES)
		gain_verdict(p);
	pair_warnings(c, p);
}

static struct comparison *comparison_new(enum compare_mode mode, const struct analysis *a,
					 const struct analysis *b)
{
	struct comparison *c = xcalloc(1, sizeof *c);
	c->mode = mode;
	c->an[0] = a;
	c->an[1] = b;
	size_t most = a->n_ranks > b->n_ranks ? a->n_ranks : b->n_ranks;
	c->pairs = xcalloc(most ? most : 1, sizeof *c->pairs);
	return c;
}

static const struct rank_analysis *rank_by_number(const struct analysis *an, int rank)
{
	for (size_t i = 0; i < an->n_ranks; i++)
		if (an->ranks[i].rank == rank)
			return &an->ranks[i];
	return NULL;
}

struct comparison *compare_captures(const struct analysis *before, const struct analysis *after)
{
	struct comparison *c = comparison_new(CMP_CAPTURES, before, after);
	c->label[0] = xstrdup("before");
	c->label[1] = xstrdup("after");
	read_recorded(c);
	if (before->n_ranks != after->n_ranks)
		warn(c, _("%zu rank(s) on before, %zu on after"), before->n_ranks, after->n_ranks);
	size_t matched = 0;
	for (size_t i = 0; i < before->n_ranks; i++)
		matched += rank_by_number(after, before->ranks[i].rank) != NULL;
	if (!matched && before->n_ranks && after->n_ranks) {
		warn(c, "%s", _("no rank number is on both sides: ranks paired by position"));
		for (size_t i = 0; i < before->n_ranks && i < after->n_ranks; i++)
			fill_pair(c, &c->pairs[c->n_pairs++], &before->ranks[i], &after->ranks[i]);
		return c;
	}
	for (size_t i = 0; i < before->n_ranks; i++) {
		const struct rank_analysis *b = rank_by_number(after, before->ranks[i].rank);
		if (b)
			fill_pair(c, &c->pairs[c->n_pairs++], &before->ranks[i], b);
		else
			warn(c, _("rank %d is on before only"), before->ranks[i].rank);
	}
	for (size_t i = 0; i < after->n_ranks; i++)
		if (!rank_by_number(before, after->ranks[i].rank))
			warn(c, _("rank %d is on after only"), after->ranks[i].rank);
	return c;
}

struct comparison *compare_ranks(const struct analysis *an, int rank_a, int rank_b)
{
	const struct rank_analysis *a = rank_by_number(an, rank_a), *b = rank_by_number(an, rank_b);
	if (!a || !b)
		return NULL;
	struct comparison *c = comparison_new(CMP_RANKS, an, an);
	c->label[0] = xasprintf("rank %d", rank_a);
	c->label[1] = xasprintf("rank %d", rank_b);
	read_recorded(c);
	fill_pair(c, &c->pairs[c->n_pairs++], a, b);
	return c;
}

void compare_free(struct comparison *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_pairs; i++) {
		free(c->pairs[i].ops);
		if (c->pairs[i].strs)
			strtab_free(c->pairs[i].strs);
		free(c->pairs[i].gain.basis);
		for (int d = 0; d < CDEP_COUNT; d++)
			free(c->pairs[i].why[d]);
	}
	for (int k = 0; k < REC_COUNT; k++)
		for (int s = 0; s < 2; s++)
			free(c->recorded[k].value[s]);
	for (int s = 0; s < 2; s++)
		if (c->again[s])
			analysis_free(c->again[s]);
	free(c->pairs);
	for (size_t i = 0; i < c->n_warnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	free(c->label[0]);
	free(c->label[1]);
	free(c);
}

const struct compare_pair *compare_pair_for(const struct comparison *c, size_t rank_index)
{
	if (!c || !c->n_pairs)
		return NULL;
	for (size_t i = 0; i < c->n_pairs; i++)
		if (c->pairs[i].rank_index[0] == rank_index)
			return &c->pairs[i];
	return &c->pairs[0];
}
