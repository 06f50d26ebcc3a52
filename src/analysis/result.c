/* SPDX-License-Identifier: MIT */
/* The result types' tables, names, lookups and destructor (result.h). */
#include "result.h"

#include "comm_split.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "lower_bound.h"
#include "strtab.h"
#include "xsort.h"

const struct metric_def metric_defs[M_COUNT] = {
#define METRIC_DEF(id, key, unit, label, def, formula, caveat) [M_##id] = {key, unit, label, def, formula, caveat},
	METRICS(METRIC_DEF)
#undef METRIC_DEF
};

const char *analysis_confidence_name(enum confidence c)
{
	return c == CONF_HIGH ? "high" : c == CONF_MEDIUM ? "medium" : "low";
}

const char *analysis_confidence_text(enum confidence c)
{
	return c == CONF_HIGH ? C_("confidence", "high") : c == CONF_MEDIUM ? C_("confidence", "medium")
								       : C_("confidence", "low");
}

const char *analysis_step_source_name(enum step_source s)
{
	switch (s) {
	case STEP_SRC_STEP_TRACE: return _("step_trace_time.csv");
	case STEP_SRC_PROFILER_STEP: return _("ProfilerStep#N");
	case STEP_SRC_MSTX: return _("mstx marks");
	case STEP_SRC_ENGINE: return _("engine ops");
	case STEP_SRC_IDLE_GAPS: return _("idle gaps");
	case STEP_SRC_WINDOW: return _("whole window");
	case STEP_SRC_NONE: return _("none");
	case STEP_SRC_OP_SEQUENCE: return _("op sequence");
	case STEP_SRC_KERNEL_STEP: return _("the kernel table's Step Id");
	}
	return "?";
}

const char *analysis_phase_name(enum phase p)
{
	/* N_: shown translated (_()) in the Steps view and the text report, never in JSON */
	return p == PHASE_PREFILL ? N_("prefill")
	       : p == PHASE_DECODE ? N_("decode")
	       : p == PHASE_MIXED  ? N_("mixed")
				   : N_("unknown");
}

const char *analysis_step_phase_name(const struct step *s)
{
	/* a training step has no serving phase; "unknown" beside confidence high misread */
	if (s->phase == PHASE_UNKNOWN && s->phase_source == PHASE_SRC_WORKLOAD)
		return N_("training");
	return analysis_phase_name((enum phase)s->phase);
}

const char *analysis_phase_source_name(enum phase_source s)
{
	switch (s) {
	case PHASE_SRC_STAGE: return _("Stage column");
	case PHASE_SRC_MSTX: return _("mstx marks");
	case PHASE_SRC_CLUSTERS: return _("step duration clusters");
	case PHASE_SRC_UNIFORM: return _("uniform steps (decode only)");
	case PHASE_SRC_NONE: return _("none");
	case PHASE_SRC_ANNOTATION: return _("vLLM annotation ranges");
	case PHASE_SRC_KERNELS: return _("decode-only kernels");
	case PHASE_SRC_SHAPES: return _("attention shapes");
	case PHASE_SRC_WORKLOAD: return _("training workload");
	case PHASE_SRC_PAYLOAD: return _("collective payload");
	case PHASE_SRC_COUNT: break;
	}
	return "?";
}

const char *analysis_phase_signal_name(enum phase_source s)
{
	static const char *const names[PHASE_SRC_COUNT] = {
		[PHASE_SRC_STAGE] = "stage",     [PHASE_SRC_MSTX] = "mstx",
		[PHASE_SRC_CLUSTERS] = "clusters", [PHASE_SRC_UNIFORM] = "uniform",
		[PHASE_SRC_NONE] = "none",       [PHASE_SRC_ANNOTATION] = "annotation",
		[PHASE_SRC_KERNELS] = "kernels", [PHASE_SRC_SHAPES] = "shapes",
		[PHASE_SRC_WORKLOAD] = "workload", [PHASE_SRC_PAYLOAD] = "payload",
	};
	return s < PHASE_SRC_COUNT ? names[s] : "?";
}

const char *analysis_workload_name(enum workload w)
{
	return w == WORKLOAD_INFERENCE ? _("inference") : w == WORKLOAD_TRAINING ? _("training") : _("unknown");
}

const char *analysis_scope_name(enum op_scope s)
{
	return s == SCOPE_DEVICE ? "device" : s == SCOPE_HOST ? "host" : "all";
}

const char *analysis_align_name(enum align_mode m)
{
	return m == ALIGN_FIRST ? "first" : m == ALIGN_RAW ? "raw" : "collective";
}

#define STEP_STARTS_BY(s, i, t) ((s)[i].win_start <= (t))
LOWER_BOUND_DEFINE(step_upper_bound, const struct step *, int64_t, STEP_STARTS_BY)

size_t analysis_step_at(const struct rank_analysis *ra, int64_t t)
{
	size_t lo = step_upper_bound(ra->steps, t, 0, ra->n_steps);
	return lo > 0 && t < ra->steps[lo - 1].win_end ? lo - 1 : SIZE_MAX;
}

/* The 1-based nearest rank of quantile q among n values. */
static size_t nearest_rank(size_t n, double q)
{
	double r = ceil(q * (double)n);
	size_t k = r < 1 ? 1 : (size_t)r;
	return k > n ? n : k;
}

int64_t analysis_nearest_rank(const int64_t *sorted, size_t n, double q)
{
	return n ? sorted[nearest_rank(n, q) - 1] : 0;
}

#define I64_LESS(x, y) (*(x) < *(y))
XSORT_DEFINE(sort_i64, int64_t, I64_LESS)

/* The k-th smallest of v[lo..hi] (0-based k within the whole array) put at v[k], with
 * v[lo..k) <= v[k] <= v(k..hi]: quickselect (Hoare partition, median of three); a range that
 * does not shrink fast enough, as a crafted file could make it, is sorted instead. */
static int64_t select_kth(int64_t *v, size_t lo, size_t hi, size_t k)
{
	for (int rounds = 0; lo < hi; rounds++) {
		if (rounds > 64) {
			sort_i64(v + lo, hi - lo + 1);
			return v[k];
		}
		int64_t a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];
		int64_t pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		size_t i = lo, j = hi;
		for (;;) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i >= j)
				break;
			int64_t t = v[i];
			v[i] = v[j];
			v[j] = t;
			i++;
			j--;
		}
		/* [lo, j] <= pivot <= [j + 1, hi] */
		if (k <= j)
			hi = j;
		else
			lo = j + 1;
	}
	return v[k];
}

int64_t analysis_nearest_rank_select(int64_t *v, size_t n, double q)
{
	if (n == 0)
		return 0;
	return select_kth(v, 0, n - 1, nearest_rank(n, q) - 1);
}

/* Below this many values a pair is selected by quickselect; above, by a histogram. */
enum { SELECT_RADIX_MIN = 4096, SELECT_BUCKETS = 2048 };

/* The elements of v[from..n) in bucket b moved to v[from..), in any order; returns their end. */
static size_t gather_bucket(int64_t *v, size_t from, size_t n, int64_t lo, int shift, size_t b)
{
	size_t w = from;
	for (size_t i = from; i < n; i++)
		if ((((uint64_t)v[i] - (uint64_t)lo) >> shift) == b) {
			int64_t t = v[w];
			v[w++] = v[i];
			v[i] = t;
		}
	return w;
}

/* Buckets b1 < b2 gathered in one pass: b1's elements to v[0..*m1), b2's to v[*m1..*m2),
 * each in any order. */
static void gather_buckets(int64_t *v, size_t n, int64_t lo, int shift, size_t b1, size_t b2, size_t *m1,
			   size_t *m2)
{
	size_t w1 = 0, w2 = 0;
	for (size_t i = 0; i < n; i++) {
		size_t b = (size_t)(((uint64_t)v[i] - (uint64_t)lo) >> shift);
		if (b == b2) {
			int64_t t = v[w2];
			v[w2++] = v[i];
			v[i] = t;
		} else if (b == b1) {
			/* [w1, w2) holds b2's: its first moves to the end of the run, this one in front */
			int64_t t = v[i];
			v[i] = v[w2];
			v[w2++] = v[w1];
			v[w1++] = t;
		}
	}
	*m1 = w1;
	*m2 = w2;
}

/* The k1-th and k2-th smallest of v[0..n) (k1 <= k2 < n; v reordered). Many values: a
 * histogram of up to 2048 buckets over [min, max] finds the bucket of each rank (one pass,
 * no data-dependent branch, where quickselect's comparisons mispredict half the time on
 * durations), those buckets' values are gathered and the ranks taken among them; each level
 * narrows the range 2048-fold, so a few levels end at one value or a small run. */
static void select_pair_in(int64_t *v, size_t n, size_t k1, size_t k2, int64_t lo, int64_t hi, int64_t *r1,
			   int64_t *r2);

static void select_pair(int64_t *v, size_t n, size_t k1, size_t k2, int64_t *r1, int64_t *r2)
{
	if (n < SELECT_RADIX_MIN) {
		*r1 = select_kth(v, 0, n - 1, k1);
		/* everything after k1 is at least v[k1]: the higher rank is among them */
		*r2 = k2 > k1 ? select_kth(v, k1 + 1, n - 1, k2) : *r1;
		return;
	}
	int64_t lo = v[0], hi = v[0];
	for (size_t i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	select_pair_in(v, n, k1, k2, lo, hi, r1, r2);
}

/* select_pair of many values whose least and greatest are lo and hi. */
static void select_pair_in(int64_t *v, size_t n, size_t k1, size_t k2, int64_t lo, int64_t hi, int64_t *r1,
			   int64_t *r2)
{
	if (lo == hi) {
		*r1 = *r2 = lo;
		return;
	}
	uint64_t span = (uint64_t)hi - (uint64_t)lo; /* hi > lo: the true difference */
	int shift = 0;
	while ((span >> shift) >= SELECT_BUCKETS)
		shift++;
	size_t nb = (size_t)(span >> shift) + 1, count[SELECT_BUCKETS];
	memset(count, 0, nb * sizeof *count);
	for (size_t i = 0; i < n; i++)
		count[((uint64_t)v[i] - (uint64_t)lo) >> shift]++;
	size_t b1 = SIZE_MAX, b2 = 0, below1 = 0, below2 = 0, acc = 0;
	for (size_t b = 0; b < nb; b++) {
		if (b1 == SIZE_MAX && k1 < acc + count[b]) {
			b1 = b;
			below1 = acc;
		}
		if (k2 < acc + count[b]) {
			b2 = b;
			below2 = acc;
			break;
		}
		acc += count[b];
	}
	if (b1 == b2) {
		size_t m1 = gather_bucket(v, 0, n, lo, shift, b1);
		select_pair(v, m1, k1 - below1, k2 - below1, r1, r2);
		return;
	}
	size_t m1, m2;
	gather_buckets(v, n, lo, shift, b1, b2, &m1, &m2);
	int64_t same;
	select_pair(v, m1, k1 - below1, k1 - below1, r1, &same);
	select_pair(v + m1, m2 - m1, k2 - below2, k2 - below2, r2, &same);
}

void analysis_nearest_rank_select2(int64_t *v, size_t n, double q_lo, double q_hi, int64_t *lo, int64_t *hi)
{
	if (n == 0) {
		*lo = *hi = 0;
		return;
	}
	select_pair(v, n, nearest_rank(n, q_lo) - 1, nearest_rank(n, q_hi) - 1, lo, hi);
}

void analysis_nearest_rank_select2_in(int64_t *v, size_t n, int64_t min, int64_t max, double q_lo, double q_hi,
				      int64_t *lo, int64_t *hi)
{
	if (n < SELECT_RADIX_MIN) {
		analysis_nearest_rank_select2(v, n, q_lo, q_hi, lo, hi);
		return;
	}
	select_pair_in(v, n, nearest_rank(n, q_lo) - 1, nearest_rank(n, q_hi) - 1, min, max, lo, hi);
}

void analysis_set_metric(struct rank_analysis *ra, enum metric_id m, double v, enum confidence conf,
			 const char *source)
{
	if (!isfinite(v))
		return;
	ra->v[m] = v;
	ra->have[m] = true;
	ra->conf[m] = conf;
	ra->source[m] = source;
}

void analysis_bottleneck_free(struct bottleneck *b)
{
	for (size_t i = 0; i < b->n_ev; i++)
		free(b->ev[i].text);
	free(b->ev);
	free(b->gain.basis);
	free(b->advice);
	free(b->insufficient);
	memset(b, 0, sizeof *b);
}

void analysis_rank_free(struct rank_analysis *ra)
{
	if (!ra->cls_mapped)
		free(ra->cls);
	for (size_t i = 0; i < ra->n_steps; i++) {
		free(ra->steps[i].label);
		free(ra->steps[i].phase_evidence);
	}
	free(ra->steps);
	free(ra->step_evidence);
	free(ra->phase_evidence);
	free(ra->workload_evidence);
	free(ra->ops);
	if (ra->op_keys)
		strtab_free(ra->op_keys);
	free(ra->ops_source);
	for (size_t i = 0; i < ra->n_op_types; i++)
		free(ra->op_types[i].name);
	free(ra->op_types);
	for (size_t i = 0; i < ra->n_op_shapes; i++)
		free(ra->op_shapes[i].name);
	free(ra->op_shapes);
	for (size_t i = 0; i < ra->n_checks; i++)
		free(ra->checks[i].explanation);
	for (int b = 0; b < BN_COUNT; b++)
		analysis_bottleneck_free(&ra->bn[b]);
	for (size_t i = 0; i < ra->n_by_phase; i++)
		free(ra->by_phase[i].verdict);
	free(ra->by_phase);
	memory_free(&ra->mem);
	free(ra->outliers);
	if (ra->comm_keep) /* never reached the capture-level pass */
		comm_split_exposure(ra, NULL, 0);
	for (size_t i = 0; i < ra->n_advice; i++)
		free(ra->advice[i].evidence);
	free(ra->advice);
	memset(ra, 0, sizeof *ra);
}
