/* SPDX-License-Identifier: MIT */
/* Step detection (what one engine step is, and where) and prefill/decode phases, each
 * with the source it came from and the evidence for it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis_priv.h"
#include "lanes.h"
#include "num.h"
#include "xalloc.h"

/* Engine ops that repeat once per step, in order of preference. */
static const char *engine_patterns[] = {"execute_model", "EngineCore.step", "step_with_batch_queue",
					"_model_forward", "forward"};

struct span {
	int64_t start, end;
	uint32_t ev;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

/* Sorts spans and keeps the outermost ones (drops spans inside a kept one). */
static size_t outermost(struct span *v, size_t n)
{
	xqsort(v, n, sizeof *v, cmp_span);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && v[i].start < v[k - 1].end)
			continue;
		v[k++] = v[i];
	}
	return k;
}

static void push_span(struct span **v, size_t *n, size_t *cap, int64_t a, int64_t b, uint32_t ev)
{
	xgrow(v, cap, *n + 1, sizeof **v);
	(*v)[(*n)++] = (struct span){a, b, ev};
}

/* Labels are the marker's name, or "<label> <n>" when label is given. */
static void set_steps(struct rank_analysis *ra, const struct rank_store *rs, struct span *v, size_t n,
		      const char *label, int64_t win_end)
{
	ra->steps = xcalloc(n ? n : 1, sizeof *ra->steps);
	ra->n_steps = n;
	for (size_t i = 0; i < n; i++) {
		struct step *st = &ra->steps[i];
		st->index = (int)i;
		st->start = v[i].start;
		st->end = v[i].end;
		st->marker_ev = v[i].ev;
		st->has_window = true;
		st->win_start = v[i].start;
		st->win_end = i + 1 < n ? v[i + 1].start : (win_end > v[i].end ? win_end : v[i].end);
		if (v[i].ev != UINT32_MAX && !label)
			st->label = xstrdup(store_ev_name(rs, v[i].ev));
		else
			st->label = xasprintf("%s %zu", label ? label : "step", i + 1);
	}
}

/* Name tests are asked once per distinct string, not once per event (millions of events
 * share thousands of names): memo[id] holds NAME_KNOWN and the test's bits for strtab id. */
enum { NAME_KNOWN = 0x80, NAME_HIT = 1, NAME_MSTX = 2, NAME_PREFILL = 4, NAME_DECODE = 8 };

struct name_memo {
	const struct rank_store *rs;
	uint8_t *bits; /* per strtab id */
	uint8_t (*test)(const char *text, const char *arg);
	const char *arg;
};

static void name_memo_init(struct name_memo *m, const struct rank_store *rs,
			   uint8_t (*test)(const char *, const char *), const char *arg)
{
	uint32_t n = strtab_count(rs->strs);
	*m = (struct name_memo){rs, xcalloc(n ? n : 1, 1), test, arg};
}

static uint8_t name_bits(struct name_memo *m, uint32_t id)
{
	if (!(m->bits[id] & NAME_KNOWN))
		m->bits[id] = (uint8_t)(NAME_KNOWN | m->test(store_str(m->rs, id), m->arg));
	return m->bits[id] & (uint8_t)~NAME_KNOWN;
}

static uint8_t contains_text(const char *text, const char *substr)
{
	return strstr(text, substr) ? NAME_HIT : 0;
}

/* Per lane: is it a host lane (looked up per event by the scans below). */
static bool *host_lanes(const struct rank_store *rs)
{
	bool *host = xmalloc(rs->n_lanes ? rs->n_lanes : 1);
	for (size_t i = 0; i < rs->n_lanes; i++)
		host[i] = lanes_group_is_host(rs->lanes[i].group);
	return host;
}

/* Host events whose name contains substr (or the step marks), outermost only. */
static size_t host_spans(const struct rank_store *rs, const struct ev_class *cls, const char *substr,
			 bool step_marks, struct span **out)
{
	size_t n = 0, cap = 0;
	struct name_memo names;
	name_memo_init(&names, rs, contains_text, substr);
	bool *host = host_lanes(rs);
	*out = NULL;
	for (size_t ev = 0; ev < rs->n_ev; ev++) {
		if (!host[store_ev_lane_id(rs, ev)])
			continue;
		if (step_marks ? !(cls[ev].flags & EVF_STEP_MARK) : !name_bits(&names, rs->ev_name[ev]))
			continue;
		push_span(out, &n, &cap, store_ts(rs, ev), store_ts(rs, ev) + store_dur(rs, ev), (uint32_t)ev);
	}
	free(names.bits);
	free(host);
	return outermost(*out, n);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* Segments of device activity split at gaps much longer than the typical gap. */
static size_t idle_segments(struct rank_sets *sets, struct span **out, int64_t *threshold)
{
	struct ivset active;
	ivset_init(&active);
	ivset_union(&sets->device_busy, &sets->comm, &active);
	*out = NULL;
	if (active.n < 2) {
		ivset_free(&active);
		return 0;
	}
	size_t ng = active.n - 1;
	int64_t *g = xmalloc(ng * sizeof *g);
	for (size_t i = 0; i < ng; i++)
		g[i] = active.start[i + 1] - active.end[i];
	xqsort(g, ng, sizeof *g, cmp_i64);
	int64_t p90 = analysis_nearest_rank(g, ng, 0.9);
	int64_t thr = 4 * p90 > 200000 ? 4 * p90 : 200000;
	free(g);
	*threshold = thr;
	size_t n = 0, cap = 0;
	int64_t seg_start = active.start[0];
	for (size_t i = 0; i < active.n; i++) {
		bool last = i + 1 == active.n;
		if (last || active.start[i + 1] - active.end[i] >= thr) {
			push_span(out, &n, &cap, seg_start, active.end[i], UINT32_MAX);
			if (!last)
				seg_start = active.start[i + 1];
		}
	}
	ivset_free(&active);
	if (n < 2) {
		free(*out);
		*out = NULL;
		return 0;
	}
	return n;
}

/* ---- phases ------------------------------------------------------------------------- */

static uint8_t phase_words(const char *text, const char *unused)
{
	(void)unused;
	return (uint8_t)((strcasestr(text, "mstx") ? NAME_MSTX : 0) | (strcasestr(text, "prefill") ? NAME_PREFILL : 0) |
			 (strcasestr(text, "decode") ? NAME_DECODE : 0));
}

static void phases_from_names(struct rank_analysis *ra, const struct rank_store *rs)
{
	/* mstx ranges (or any host range) named prefill/decode mark the steps they overlap */
	size_t marked = 0;
	struct name_memo words;
	name_memo_init(&words, rs, phase_words, NULL);
	bool *host = host_lanes(rs);
	for (size_t ev = 0; ev < rs->n_ev && ra->n_steps; ev++) {
		if (!host[store_ev_lane_id(rs, ev)])
			continue;
		uint8_t name = name_bits(&words, rs->ev_name[ev]);
		if (!(name & NAME_MSTX) && !(name_bits(&words, store_ev_attr(rs, ev)->cat) & NAME_MSTX))
			continue;
		enum phase p = name & NAME_PREFILL ? PHASE_PREFILL
			       : name & NAME_DECODE ? PHASE_DECODE : PHASE_UNKNOWN;
		if (p == PHASE_UNKNOWN)
			continue;
		int64_t a = store_ts(rs, ev), b = a + store_dur(rs, ev);
		for (size_t i = 0; i < ra->n_steps; i++)
			if (a < ra->steps[i].win_end && b > ra->steps[i].win_start && !ra->steps[i].phase) {
				ra->steps[i].phase = p;
				marked++;
			}
	}
	free(words.bits);
	free(host);
	if (marked) {
		ra->phase_source = PHASE_SRC_MSTX;
		ra->phase_conf = CONF_HIGH;
		ra->phase_evidence = xasprintf("%zu of %zu steps overlap an mstx range named prefill/decode",
					       marked, ra->n_steps);
		for (size_t i = 0; i < ra->n_steps; i++)
			if (!ra->steps[i].phase)
				ra->steps[i].phase = PHASE_DECODE;
	}
}

static void phases_from_durations(struct rank_analysis *ra)
{
	size_t n = ra->n_steps;
	if (n == 0)
		return;
	double *lg = xmalloc(n * sizeof *lg);
	for (size_t i = 0; i < n; i++) {
		int64_t d = ra->steps[i].end - ra->steps[i].start;
		lg[i] = log(d > 0 ? (double)d : 1.0);
	}
	double *sorted = xmalloc(n * sizeof *sorted);
	memcpy(sorted, lg, n * sizeof *sorted);
	for (size_t i = 1; i < n; i++) /* insertion sort: n is the step count */
		for (size_t j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
			double t = sorted[j];
			sorted[j] = sorted[j - 1];
			sorted[j - 1] = t;
		}
	/* best split of the sorted logs into two groups (1-D two-means, exact) */
	size_t best_k = 0;
	double best_ss = INFINITY, m1 = 0, m2 = 0, sd = 0;
	for (size_t k = 1; k < n; k++) {
		double a = 0, b = 0;
		for (size_t i = 0; i < k; i++)
			a += sorted[i];
		for (size_t i = k; i < n; i++)
			b += sorted[i];
		a /= (double)k;
		b /= (double)(n - k);
		double ss = 0;
		for (size_t i = 0; i < n; i++) {
			double d = sorted[i] - (i < k ? a : b);
			ss += d * d;
		}
		if (ss < best_ss) {
			best_ss = ss;
			best_k = k;
			m1 = a;
			m2 = b;
		}
	}
	if (best_k)
		sd = n > 2 ? sqrt(best_ss / (double)(n - 2)) : 0;
	double ratio = best_k ? exp(m2 - m1) : 1.0;
	double sep = sd > 0 ? (m2 - m1) / sd : (ratio > 1.0 ? INFINITY : 0);
	bool two = best_k && ratio >= 1.6 && (n == 2 ? ratio >= 2.0 : sep >= 4.0);
	if (two) {
		double cut = (sorted[best_k - 1] + sorted[best_k]) / 2;
		size_t np = 0;
		for (size_t i = 0; i < n; i++) {
			ra->steps[i].phase = lg[i] > cut ? PHASE_PREFILL : PHASE_DECODE;
			np += lg[i] > cut;
		}
		ra->phase_source = PHASE_SRC_CLUSTERS;
		ra->phase_conf = n >= 4 && sep >= 6.0 ? CONF_MEDIUM : CONF_LOW;
		ra->phase_evidence = xasprintf(
			"step durations form two clusters: %zu step(s) around %.3f ms read as prefill, %zu around "
			"%.3f ms as decode (ratio %.1f, separation %.1f sd of log duration)",
			np, exp(m2) / 1e6, n - np, exp(m1) / 1e6, ratio, isfinite(sep) ? sep : 99.0);
	} else {
		for (size_t i = 0; i < n; i++)
			ra->steps[i].phase = PHASE_DECODE;
		ra->phase_source = PHASE_SRC_UNIFORM;
		ra->phase_conf = CONF_LOW;
		ra->phase_evidence = xasprintf(
			"%zu step(s) with durations from %.3f to %.3f ms show no separate long cluster; read as "
			"decode only",
			n, exp(sorted[0]) / 1e6, exp(sorted[n - 1]) / 1e6);
	}
	free(lg);
	free(sorted);
}

static bool phases_from_stage(struct rank_analysis *ra, const struct csv_table *st)
{
	if (!st || ra->step_source != STEP_SRC_STEP_TRACE || st->nrows != ra->n_steps)
		return false;
	size_t labelled = 0;
	for (size_t i = 0; i < ra->n_steps; i++) {
		const char *stage = csvt_str(st, i, COL_STAGE);
		enum phase p = strcasestr(stage, "prefill") ? PHASE_PREFILL
			       : strcasestr(stage, "decode") ? PHASE_DECODE : PHASE_UNKNOWN;
		ra->steps[i].phase = p;
		labelled += p != PHASE_UNKNOWN;
	}
	if (labelled == 0) {
		for (size_t i = 0; i < ra->n_steps; i++)
			ra->steps[i].phase = PHASE_UNKNOWN;
		return false; /* Stage is a number in real files: not a label */
	}
	ra->phase_source = PHASE_SRC_STAGE;
	ra->phase_conf = CONF_HIGH;
	ra->phase_evidence = xasprintf("Stage column labels %zu of %zu steps", labelled, ra->n_steps);
	return true;
}

/* ---- steps -------------------------------------------------------------------------- */

/* Steps from a step_trace_time table without a trace: durations only. */
static void steps_from_table(struct rank_analysis *ra, const struct csv_table *st)
{
	ra->steps = xcalloc(st->nrows, sizeof *ra->steps);
	ra->n_steps = st->nrows;
	for (size_t i = 0; i < st->nrows; i++) {
		struct step *s = &ra->steps[i];
		s->index = (int)i;
		s->marker_ev = UINT32_MAX;
		s->label = xasprintf("Step %s", csvt_str(st, i, COL_STEP));
		int64_t c = 0, x = 0, f = 0, stage;
		csvt_time(st, i, COL_COMPUTING, &c);
		csvt_time(st, i, COL_COMM_NOT_OVERLAPPED, &x);
		csvt_time(st, i, COL_FREE, &f);
		const char *sv = csvt_str(st, i, COL_STAGE);
		int64_t len = num_time_ns(sv, strlen(sv), &stage, NULL) == NUM_OK ? stage : c + x + f;
		s->start = 0;
		s->end = len;
		s->win_start = s->win_end = 0;
		s->compute_ns = c;
		s->comm_not_overlapped_ns = x;
		s->free_ns = f;
	}
}

void analysis_steps(const struct capture *cap, size_t ri, struct rank_analysis *ra, struct pending_sets *sets,
		    struct diag_list *dl)
{
	const struct rank_data *rd = &cap->ranks[ri];
	const struct rank_store *rs = &rd->store;
	const struct csv_table *st = rd->by_kind[CSV_STEP_TRACE];
	int64_t win_end = rs->has_events ? rs->window_end : 0;
	struct span *v = NULL;
	size_t n = 0;
	char *why = NULL;

	if (rs->has_events) {
		struct span *marks = NULL;
		size_t nmarks = host_spans(rs, ra->cls, NULL, true, &marks);
		if (st && st->nrows >= 2 && nmarks == st->nrows) {
			v = marks;
			n = nmarks;
			ra->step_source = STEP_SRC_STEP_TRACE;
			why = xasprintf("step_trace_time.csv lists %zu steps; their windows are the trace's "
					"ProfilerStep#N spans", st->nrows);
		} else if (nmarks >= 1) {
			v = marks;
			n = nmarks;
			ra->step_source = STEP_SRC_PROFILER_STEP;
			why = xasprintf("%zu ProfilerStep#N span(s) on the host", nmarks);
			if (st && st->nrows >= 2)
				diag_add(dl, DIAG_WARN, st->path, 0, -1,
					 "lists %zu steps but the trace has %zu ProfilerStep#N spans; steps follow "
					 "the trace", st->nrows, nmarks);
		} else {
			free(marks);
		}
		if (st && st->nrows == 1 && !n)
			diag_add(dl, DIAG_INFO, st->path, 0, -1,
				 "one row for the whole capture: it says nothing about engine steps (vLLM "
				 "captures use no profiler schedule); steps come from the trace");
		for (size_t p = 0; !n && p < sizeof engine_patterns / sizeof engine_patterns[0]; p++) {
			struct span *e = NULL;
			size_t ne = host_spans(rs, ra->cls, engine_patterns[p], false, &e);
			if (ne >= 2) {
				v = e;
				n = ne;
				ra->step_source = STEP_SRC_ENGINE;
				why = xasprintf("%zu repeating host spans named like \"%s\"", ne, engine_patterns[p]);
			} else {
				free(e);
			}
		}
		int64_t thr = 0;
		if (!n && sets && (n = idle_segments(rank_sets_wait(sets), &v, &thr)) > 0) {
			ra->step_source = STEP_SRC_IDLE_GAPS;
			why = xasprintf("device activity split at %zu idle gaps of %.3f ms or more (no step "
					"markers in the trace)", n - 1, (double)thr / 1e6);
		}
		if (!n) {
			v = xmalloc(sizeof *v);
			v[0] = (struct span){rs->window_start, rs->window_end, UINT32_MAX};
			n = 1;
			ra->step_source = STEP_SRC_WINDOW;
			why = xstrdup("no step markers, engine ops or idle-gap structure: the whole window is one step");
		}
		const char *label = ra->step_source == STEP_SRC_IDLE_GAPS ? "segment"
				    : ra->step_source == STEP_SRC_WINDOW ? "window"
				    : ra->step_source == STEP_SRC_ENGINE ? "engine step" : NULL;
		set_steps(ra, rs, v, n, label, win_end);
		free(v);
	} else if (st && st->nrows >= 1) {
		steps_from_table(ra, st);
		ra->step_source = STEP_SRC_STEP_TRACE;
		why = xasprintf("step_trace_time.csv rows (no trace: durations only)");
	} else {
		ra->step_source = STEP_SRC_NONE;
		why = xstrdup("no trace and no step table");
	}
	ra->step_evidence = why;

	if (phases_from_stage(ra, st))
		return;
	phases_from_names(ra, rs);
	if (ra->phase_source == PHASE_SRC_MSTX)
		return;
	if (ra->n_steps)
		phases_from_durations(ra);
	else {
		ra->phase_source = PHASE_SRC_NONE;
		ra->phase_conf = CONF_LOW;
		ra->phase_evidence = xstrdup("no steps");
	}
}
