/* SPDX-License-Identifier: MIT */
/* Step detection (what one engine step is, and where) and prefill/decode phases, each
 * with the source it came from and the evidence for it. */
#include "steps.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmp.h"
#include "evkind.h"
#include "i18n.h"
#include "lanes.h"
#include "lower_bound.h"
#include "num.h"
#include "rank_sets.h"
#include "sbuf.h"
#include "xalloc.h"

/* Engine ops that repeat once per step, in order of preference. */
static const char *engine_patterns[] = {"execute_context_",      "execute_model",  "EngineCore.step",
                                        "step_with_batch_queue", "_model_forward", "forward"};

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

#define SPAN_STARTS_BY(v, i, t) ((v)[i].start <= (t))
LOWER_BOUND_DEFINE(span_upper_bound, const struct span *, int64_t, SPAN_STARTS_BY)

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
enum { NAME_KNOWN = 0x80, NAME_HIT = 1, NAME_MSTX = 2, NAME_PREFILL = 4, NAME_DECODE = 8, NAME_ATTN = 16 };

struct name_memo {
	const struct strtab *strs;
	uint8_t *bits; /* per strtab id */
	uint8_t (*test)(const char *text, const char *arg);
	const char *arg;
};

static void name_memo_init(struct name_memo *m, const struct strtab *strs,
                           uint8_t (*test)(const char *, const char *), const char *arg)
{
	uint32_t n = strtab_count(strs);
	*m = (struct name_memo){strs, xcalloc(n ? n : 1, 1), test, arg};
}

/* The test, once per name: out of line, so that the per-event lookup below inlines. */
static __attribute__((noinline)) uint8_t name_bits_first(struct name_memo *m, uint32_t id)
{
	m->bits[id] = (uint8_t)(NAME_KNOWN | m->test(strtab_str(m->strs, id), m->arg));
	return m->bits[id] & (uint8_t)~NAME_KNOWN;
}

static inline uint8_t name_bits(struct name_memo *m, uint32_t id)
{
	uint8_t b = m->bits[id];
	return b & NAME_KNOWN ? b & (uint8_t)~NAME_KNOWN : name_bits_first(m, id);
}

static uint8_t contains_text(const char *text, const char *substr)
{
	return strstr(text, substr) ? NAME_HIT : 0;
}

enum { N_ENGINE = sizeof engine_patterns / sizeof engine_patterns[0] };

/* Bit p set when text contains engine_patterns[p] (six bits: below NAME_KNOWN). */
static uint8_t engine_words(const char *text, const char *unused)
{
	(void)unused;
	uint8_t bits = 0;
	for (size_t p = 0; p < N_ENGINE; p++)
		if (strstr(text, engine_patterns[p]))
			bits |= (uint8_t)(1u << p);
	return bits;
}

enum { W_TRAIN = 1, W_INFER = 2 };
static uint8_t workload_words(const char *s, const char *unused);
static uint8_t phase_words(const char *text, const char *unused);

/* What the steps and their phases read of the trace's events, gathered in one pass over them
 * (a pass per signal was most of the stage): the host's step marks, the host events named
 * like an engine op, its graph replay calls and the ranges the phases may read, in event
 * order, and the workload's counts over every event. */
struct step_signals {
	struct span *marks; /* owned: step marks as spans, not yet outermost */
	size_t n_marks, cap_marks;
	uint32_t *engine; /* owned: host events whose name has an engine pattern */
	size_t n_engine, cap_engine;
	uint32_t *graph; /* owned: host aclmdlRIExecute calls */
	size_t n_graph, cap_graph;
	uint32_t *ranges; /* owned: host events named execute_context_*, or mstx by name or category */
	size_t n_ranges, cap_ranges;
	size_t train, infer; /* events with workload_words' W_TRAIN, W_INFER */
	struct name_memo engine_names, phase_names;
};

static void push_ev(uint32_t **v, size_t *n, size_t *cap, size_t ev)
{
	xgrow(v, cap, *n + 1, sizeof **v);
	(*v)[(*n)++] = (uint32_t)ev;
}

enum { KIND_HOST = 1, KIND_MSTX = 2 }; /* per event kind: a host lane's, an mstx category */

static void signals_gather(const struct rank_store *rs, const struct ev_class *cls, struct step_signals *sg)
{
	memset(sg, 0, sizeof *sg);
	struct name_memo workload, graph;
	name_memo_init(&workload, rs->strs, workload_words, NULL);
	name_memo_init(&graph, rs->strs, contains_text, "aclmdlRIExecute");
	name_memo_init(&sg->engine_names, rs->strs, engine_words, NULL);
	name_memo_init(&sg->phase_names, rs->strs, phase_words, NULL);
	uint8_t *kind = xmalloc(rs->n_kinds ? rs->n_kinds : 1);
	for (size_t k = 0; k < rs->n_kinds; k++)
		kind[k] = (uint8_t)((lanes_group_is_host(rs->lanes[rs->kinds[k].lane].group) ? KIND_HOST : 0) |
				    (name_bits(&sg->phase_names, rs->attrs[rs->kinds[k].attr].cat) & NAME_MSTX
					     ? KIND_MSTX
					     : 0));
	for (size_t ev = 0; ev < rs->n_ev; ev++) {
		uint32_t name = rs->ev_name[ev];
		uint8_t w = name_bits(&workload, name);
		sg->train += (w & W_TRAIN) != 0;
		sg->infer += (w & W_INFER) != 0;
		uint8_t k = kind[rs->ev_kind[ev]];
		if (!(k & KIND_HOST))
			continue;
		if (cls[ev].flags & EVF_STEP_MARK)
			push_span(&sg->marks, &sg->n_marks, &sg->cap_marks, store_ts(rs, ev),
				  store_ts(rs, ev) + store_dur(rs, ev), (uint32_t)ev);
		if (name_bits(&sg->engine_names, name))
			push_ev(&sg->engine, &sg->n_engine, &sg->cap_engine, ev);
		if (name_bits(&graph, name))
			push_ev(&sg->graph, &sg->n_graph, &sg->cap_graph, ev);
		if ((name_bits(&sg->phase_names, name) & (NAME_HIT | NAME_MSTX)) || (k & KIND_MSTX))
			push_ev(&sg->ranges, &sg->n_ranges, &sg->cap_ranges, ev);
	}
	free(kind);
	free(workload.bits);
	free(graph.bits);
}

static void signals_free(struct step_signals *sg)
{
	free(sg->marks);
	free(sg->engine);
	free(sg->graph);
	free(sg->ranges);
	free(sg->engine_names.bits);
	free(sg->phase_names.bits);
}

/* The step marks' outermost spans (sg->marks is handed over: owned by *out). */
static size_t mark_spans(struct step_signals *sg, struct span **out)
{
	*out = sg->marks;
	sg->marks = NULL;
	return outermost(*out, sg->n_marks);
}

/* The host spans named like each engine pattern: out[p] (owned) and its count of outermost
 * spans, in event order before they are sorted. */
static void engine_spans(const struct rank_store *rs, struct step_signals *sg, struct span *out[N_ENGINE],
			 size_t n_out[N_ENGINE])
{
	size_t cap[N_ENGINE] = {0};
	for (size_t p = 0; p < N_ENGINE; p++) {
		out[p] = NULL;
		n_out[p] = 0;
	}
	for (size_t i = 0; i < sg->n_engine; i++) {
		uint32_t ev = sg->engine[i];
		uint8_t bits = name_bits(&sg->engine_names, rs->ev_name[ev]);
		for (size_t p = 0; bits; p++, bits >>= 1)
			if (bits & 1)
				push_span(&out[p], &n_out[p], &cap[p], store_ts(rs, ev), store_ts(rs, ev) + store_dur(rs, ev),
					  ev);
	}
	for (size_t p = 0; p < N_ENGINE; p++)
		n_out[p] = outermost(out[p], n_out[p]);
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
	int64_t p90 = nearest_rank(g, ng, 0.9);
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

static int cmp_span_start(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The opening and closing kernel names: those after and before the longest gap in device
 * activity (a step boundary when the device waits for the host between steps), else the
 * capture's first and last compute kernels. False when they are one name. */
static bool sequence_ends(const struct rank_store *rs, const struct ev_class *cls, const struct ivset *active,
                          uint32_t *open, uint32_t *close, size_t *ncomp)
{
	int64_t after = INT64_MIN, before = INT64_MAX, best = -1;
	for (size_t j = 0; j + 1 < active->n; j++)
		if (active->start[j + 1] - active->end[j] > best) {
			best = active->start[j + 1] - active->end[j];
			before = active->end[j];
			after = active->start[j + 1];
		}
	size_t first = SIZE_MAX, last = SIZE_MAX, n = 0;
	for (size_t ev = 0; ev < rs->n_ev; ev++) {
		if (cls[ev].cat != CAT_COMPUTE)
			continue;
		n++;
		int64_t s = store_ts(rs, ev), e = s + store_dur(rs, ev);
		if (s >= after && (first == SIZE_MAX || s < store_ts(rs, first)))
			first = ev;
		if (e <= before && (last == SIZE_MAX || e > store_ts(rs, last) + store_dur(rs, last)))
			last = ev;
	}
	*ncomp = n;
	if (first == SIZE_MAX || last == SIZE_MAX || rs->ev_name[first] == rs->ev_name[last])
		return false;
	*open = rs->ev_name[first];
	*close = rs->ev_name[last];
	return true;
}

/* Steps from the repeating per-step op sequence: one kernel (the embedding) opens every step
 * and another (the sampler) closes it, alternating exactly, with (nearly) every kernel inside
 * an open-close pair; a capture may begin after an open and end before a close (partial
 * steps). It holds where the device hardly idles between steps (graph replays, async
 * scheduling). Between a close and the next open, the step boundary is the longest gap in
 * device activity there, so the copies around the sampler and the embedding land on their
 * own steps. */
static size_t op_sequence(const struct rank_store *rs, const struct ev_class *cls, struct rank_sets *sets,
                          struct span **out, char **why)
{
	*out = NULL;
	struct ivset active;
	ivset_init(&active);
	ivset_union(&sets->device_busy, &sets->comm, &active);
	uint32_t open, close;
	size_t ncomp;
	if (!active.n || !sequence_ends(rs, cls, &active, &open, &close, &ncomp)) {
		ivset_free(&active);
		return 0;
	}
	struct span *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t ev = 0; ev < rs->n_ev; ev++)
		if (cls[ev].cat == CAT_COMPUTE && (rs->ev_name[ev] == open || rs->ev_name[ev] == close))
			push_span(&v, &n, &cap, store_ts(rs, ev), store_ts(rs, ev) + store_dur(rs, ev),
			          (uint32_t)ev);
	xqsort(v, n, sizeof *v, cmp_span_start);
	/* units: a leading close (partial first step), open-close pairs, a trailing open */
	size_t lead = n && rs->ev_name[v[0].ev] == close, trail = (n - lead) % 2;
	size_t pairs = (n - lead - trail) / 2, steps = lead + pairs + trail;
	bool ok = pairs >= 2;
	for (size_t i = lead; ok && i < n; i++) {
		bool is_open = (i - lead) % 2 == 0;
		ok = rs->ev_name[v[i].ev] == (is_open ? open : close) &&
		     (is_open || i + 1 == n || v[i].end <= v[i + 1].start);
	}
	/* each unit as [first kernel start, last kernel end] */
	struct span *u = ok ? xmalloc(steps * sizeof *u) : NULL;
	for (size_t k = 0; ok && k < steps; k++) {
		bool partial_first = lead && k == 0, partial_last = trail && k + 1 == steps;
		size_t o = lead + 2 * (k - lead); /* index of the unit's open in v */
		u[k].ev = partial_first ? v[0].ev : v[o].ev;
		u[k].start = partial_first ? active.start[0] : v[o].start;
		u[k].end = partial_last ? active.end[active.n - 1] : partial_first ? v[0].end : v[o + 1].end;
	}
	size_t outside = 0;
	for (size_t ev = 0; ok && ev < rs->n_ev; ev++) { /* every kernel inside a unit */
		if (cls[ev].cat != CAT_COMPUTE)
			continue;
		int64_t t = store_ts(rs, ev);
		size_t lo = span_upper_bound(u, t, 0, steps);
		outside += !(lo > 0 && t <= u[lo - 1].end);
	}
	free(v);
	if (!ok || outside * 100 > ncomp) {
		free(u);
		ivset_free(&active);
		return 0;
	}
	u[0].start = active.start[0];
	u[steps - 1].end = active.end[active.n - 1];
	for (size_t k = 0; k + 1 < steps; k++) {
		/* the longest gap in activity between this unit's close and the next open */
		int64_t a = u[k].end, b = u[k + 1].start, best = -1;
		for (size_t j = ivset_first_ending_after(&active, a - 1);
		     j + 1 < active.n && active.start[j + 1] <= b; j++)
			if (active.start[j + 1] - active.end[j] > best) {
				best = active.start[j + 1] - active.end[j];
				u[k].end = active.end[j];
				u[k + 1].start = active.start[j + 1];
			}
	}
	ivset_free(&active);
	*why = xasprintf(_("%zu repeats of the per-step op sequence: \"%.40s\" opens each step and \"%.40s\" "
	                 "closes it, alternating%s; %zu of %zu kernels outside them (no step markers or "
	                 "engine ops)"),
	                 steps, store_str(rs, open), store_str(rs, close),
	                 lead + trail ? " (partial steps at the capture's ends)" : "", outside, ncomp);
	*out = u;
	return steps;
}

/* Graph replays (ACLGraph: one aclmdlRIExecuteAsync call runs the captured model, so its
 * kernels have no launch flows) counted per step by where the call ends; the steps'
 * evidence says how many steps replayed a graph. Takes and returns the owned evidence. */
static char *graph_replays(struct rank_analysis *ra, const struct rank_store *rs, const struct step_signals *sg,
			   char *why)
{
	size_t hint = 0, calls = 0, steps = 0;
	for (size_t i = 0; i < sg->n_graph; i++) {
		uint32_t ev = sg->graph[i];
		size_t k = analysis_step_at_near(ra, store_ts(rs, ev) + store_dur(rs, ev), &hint);
		calls++;
		if (k != SIZE_MAX)
			steps += ra->steps[k].graph_replays++ == 0;
	}
	if (!calls)
		return why;
	char *more = xasprintf(_("%s; %zu of %zu step(s) replay a captured graph (%zu aclmdlRIExecute call(s): "
	                       "their kernels have no launch flows)"),
	                       why, steps, ra->n_steps, calls);
	free(why);
	return more;
}

/* ---- workload ----------------------------------------------------------------------- */


/* w as the end of a word part: RmsNormGrad, ReluGrad_x, SwiGluGrad, MmBackward0; not "Gradual". */
static bool word_end(const char *s, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = strstr(s, w); p; p = strstr(p + 1, w)) {
		unsigned char c = (unsigned char)p[n];
		if (!c || c == '_' || c == ' ' || c == ':' || c == '.' || (c >= '0' && c <= '9') ||
		    (c >= 'A' && c <= 'Z'))
			return true;
	}
	return false;
}

/* MLA preprocess (MLAPO): runs only when a batch has no prefills. */
static bool mla_preprocess(const char *s)
{
	return strcasestr(s, "mlapo") || strcasestr(s, "mlapreprocess") || strcasestr(s, "mla_preprocess");
}

/* PagedAttention proper (decode-only graph batches), not the split-fuse variant that
 * older vLLM-Ascend ran for chunked prefill. */
static bool paged_attention(const char *s)
{
	return (strstr(s, "PagedAttention") || strcasestr(s, "paged_attention")) &&
	       !strcasestr(s, "splitfuse");
}

static uint8_t workload_words(const char *s, const char *unused)
{
	(void)unused;
	uint8_t b = 0;
	if (word_end(s, "Grad") || word_end(s, "Backward") || strstr(s, "autograd::engine") ||
	    strstr(s, "Optimizer.step") || strstr(s, "ApplyAdam"))
		b |= W_TRAIN;
	if (strstr(s, "FusedInferAttentionScore") || strcasestr(s, "fused_infer_attention") ||
	    paged_attention(s) || mla_preprocess(s) || strstr(s, "ReshapeAndCache") ||
	    strstr(s, "reshape_and_cache") || strstr(s, "execute_context_") || strstr(s, "execute_model"))
		b |= W_INFER;
	return b;
}

/* Training when at least two events (or kernel rows) are backward ops, *Grad* kernels or an
 * optimizer step: inference never runs them. Else inference when serving kernels or engine
 * ops show up. */
static void find_workload(struct rank_analysis *ra, const struct step_signals *sg, const struct csv_table *kt)
{
	size_t train = 0, infer = 0;
	const char *where = "trace";
	if (sg) {
		train = sg->train;
		infer = sg->infer;
	} else if (kt && csvt_has(kt, COL_NAME)) {
		where = _("kernel table");
		struct name_memo m;
		name_memo_init(&m, kt->strs, workload_words, NULL);
		for (size_t r = 0; r < kt->nrows; r++) {
			uint32_t id = csvt_str_id(kt, r, COL_NAME);
			uint8_t b = id == STRTAB_NONE ? 0 : name_bits(&m, id);
			train += (b & W_TRAIN) != 0;
			infer += (b & W_INFER) != 0;
		}
		free(m.bits);
	}
	if (train >= 2) {
		ra->workload = WORKLOAD_TRAINING;
		ra->workload_evidence =
		        xasprintf(_("%zu backward, *Grad* or optimizer events in the %s"), train, where);
	} else if (infer) {
		ra->workload = WORKLOAD_INFERENCE;
		ra->workload_evidence = xasprintf(_("%zu serving events (attention kernels of vLLM-Ascend, KV "
		                                  "cache writes, engine ops) and no "
		                                  "backward in the %s"),
		                                  infer, where);
	} else {
		ra->workload = WORKLOAD_UNKNOWN;
		ra->workload_evidence = xasprintf(_("neither backward nor serving kernels in the %s"), where);
	}
}

/* ---- phases ------------------------------------------------------------------------- */

/* One signal's reading of one step. */
struct vote {
	uint8_t phase;  /* enum phase; PHASE_UNKNOWN: the signal says nothing */
	uint8_t conf;   /* enum confidence */
	uint8_t source; /* enum phase_source */
	bool unknown;   /* with PHASE_UNKNOWN: the signal read the step and cannot tell (why says why) */
	char *why;      /* owned */
};
enum { SIG_SERVING, SIG_STAGE, SIG_RANGES, SIG_KERNELS, SIG_SHAPES, SIG_COUNT };

static void vote(struct vote *v, enum phase p, enum confidence c, enum phase_source src, char *why)
{
	if (v->phase) { /* the first reading stands */
		free(why);
		return;
	}
	*v = (struct vote){(uint8_t)p, (uint8_t)c, (uint8_t)src, false, why};
}

/* The signal saw the step and cannot tell its phase: the step stays unknown, with why, rather
 * than going to the durations (which would make a guess of it). */
static void vote_unknown(struct vote *v, enum phase_source src, char *why)
{
	if (v->phase || v->unknown) {
		free(why);
		return;
	}
	*v = (struct vote){PHASE_UNKNOWN, CONF_LOW, (uint8_t)src, true, why};
}

static uint8_t phase_words(const char *text, const char *unused)
{
	(void)unused;
	return (uint8_t)((strcasestr(text, "mstx") ? NAME_MSTX : 0) |
	                 (strcasestr(text, "prefill") ? NAME_PREFILL : 0) |
	                 (strcasestr(text, "decode") ? NAME_DECODE : 0) |
	                 (!strncmp(text, "execute_context_", 16) ? NAME_HIT : 0));
}

/* Upstream vLLM's execute_context_<reqs>(<tokens>)_generation_<reqs>(<tokens>): prefill with
 * context requests only, decode without any, mixed with both. */
static enum phase annotation_phase(const char *name, long *cr, long *ct, long *gr)
{
	long gt;
	if (sscanf(name, "execute_context_%ld(%ld)_generation_%ld(%ld)", cr, ct, gr, &gt) != 4 || *cr < 0 ||
	    *gr < 0)
		return PHASE_UNKNOWN;
	return *cr > 0 && *gr == 0   ? PHASE_PREFILL
	       : *cr == 0 && *gr > 0 ? PHASE_DECODE
	       : *cr > 0 && *gr > 0  ? PHASE_MIXED
	                             : PHASE_UNKNOWN;
}

/* mstx ranges named prefill/decode mark every step they overlap; annotation ranges the step
 * they start in. */
static void votes_from_ranges(struct rank_analysis *ra, const struct rank_store *rs, struct step_signals *sg,
                              struct vote (*v)[SIG_COUNT])
{
	struct name_memo *words = &sg->phase_names;
	size_t hint = 0;
	for (size_t r = 0; r < sg->n_ranges; r++) {
		uint32_t ev = sg->ranges[r];
		uint8_t name = name_bits(words, rs->ev_name[ev]);
		int64_t a = store_ts(rs, ev), b = a + store_dur(rs, ev);
		if (name & NAME_HIT) {
			long cr, ct, gr;
			enum phase p = annotation_phase(store_ev_name(rs, ev), &cr, &ct, &gr);
			size_t k = analysis_step_at_near(ra, a, &hint);
			if (p && k != SIZE_MAX)
				vote(&v[k][SIG_RANGES], p, CONF_HIGH, PHASE_SRC_ANNOTATION,
				     xasprintf(_("annotation range: %ld context request(s) (%ld tokens), %ld "
				               "generation"),
				               cr, ct, gr));
			continue;
		}
		if (!(name & NAME_MSTX) && !(name_bits(words, store_ev_attr(rs, ev)->cat) & NAME_MSTX))
			continue;
		enum phase p = name & NAME_PREFILL  ? PHASE_PREFILL
		               : name & NAME_DECODE ? PHASE_DECODE
		                                    : PHASE_UNKNOWN;
		for (size_t i = 0; p && i < ra->n_steps; i++)
			if (a < ra->steps[i].win_end && b > ra->steps[i].win_start)
				vote(&v[i][SIG_RANGES], p, CONF_HIGH, PHASE_SRC_MSTX,
				     xasprintf(_("overlaps an mstx range named %s"), result_phase_name(p)));
	}
}

/* A kernel's query tokens and sequences from its Input Shapes: a 4-D query (B,S,N,D) gives
 * both; a 3-D query (T,N,D, TND layout) gives the tokens, and the last 2-D input (the block
 * table, B x blocks) the sequences. False when the shapes say neither. */
static bool attention_tokens(const char *shapes, long *tokens, long *seqs)
{
	/* sizes from another machine: only plausible ones, so the product cannot overflow */
	const long most = 1L << 24;
	long q[4] = {0, 0, 0, 0}, block_rows = 0;
	int nq = -1; /* dims of the first input */
	const char *p = shapes;
	for (int input = 0; *p; input++) { /* inputs split by ';' (empty ones for optional inputs) */
		long d[4] = {0, 0, 0, 0};
		int nd = 0;
		while (*p && *p != ';') {
			char *end;
			long x = strtol(p, &end, 10);
			if (end == p) { /* quotes, spaces, commas */
				p++;
				continue;
			}
			if (nd < 4)
				d[nd] = x;
			nd++;
			p = end;
		}
		if (input == 0) {
			nq = nd;
			memcpy(q, d, sizeof q);
		} else if (nd == 2 && d[0] > 0 && d[0] <= most) {
			block_rows = d[0]; /* the last 2-D input: the block table */
		}
		if (*p == ';')
			p++;
	}
	if (nq < 3 || nq > 4 || q[0] <= 0 || q[0] > most)
		return false;
	if (nq == 4) { /* (B, S, N, D) */
		*seqs = q[0];
		*tokens = q[0] * q[1];
		return q[1] > 0 && q[1] <= most;
	}
	*tokens = q[0]; /* (T, N, D) */
	*seqs = block_rows;
	return block_rows > 0;
}

struct attn_tally {
	size_t dec, pre, decode_only; /* rows with tokens == sequences, more tokens; decode-only kernels */
	size_t mla;                   /* MLA preprocess kernels */
	size_t attn;                  /* attention kernels of any kind (NAME_ATTN) */
	size_t calls;                 /* of them, attention calls proper (not an MLA preprocess) */
	long pre_tok, pre_seqs, dec_seqs;
	int64_t attn_ns; /* the attention calls' device time (a decode batch's reads its cache) */
	const char *decode_only_name;
};

static uint8_t kernel_words(const char *s, const char *unused)
{
	(void)unused;
	return (uint8_t)((paged_attention(s) || mla_preprocess(s) ? NAME_DECODE : 0) |
	                 (strcasestr(s, "attention") || mla_preprocess(s) ? NAME_ATTN : 0) |
	                 (strstr(s, "FusedInferAttentionScore") || paged_attention(s) ||
	                                  strstr(s, "IncreFlashAttention") ||
	                                  strstr(s, "PromptFlashAttention")
	                          ? NAME_HIT
	                          : 0));
}

/* attention_tokens of one shapes string: asked once per distinct string of the kernel
 * table (thousands of rows share a few shapes). */
struct shape_memo {
	uint8_t known, ok;
	long tok, seqs;
};

static const struct shape_memo *shape_of(struct shape_memo *memo, const struct strtab *strs, uint32_t id)
{
	static const struct shape_memo none = {1, 0, 0, 0}; /* no string: "" has no shape */
	if (id >= strtab_count(strs))
		return &none;
	struct shape_memo *m = &memo[id];
	if (!m->known) {
		m->known = 1;
		m->ok = attention_tokens(strtab_str(strs, id), &m->tok, &m->seqs);
	}
	return m;
}

/* shape: the row's input shapes (attention_tokens), or NULL without them. */
static void tally_kernel(struct attn_tally *t, uint8_t bits, const char *name, const struct shape_memo *shape,
                         int64_t dur)
{
	long tok = shape ? shape->tok : 0, seqs = shape ? shape->seqs : 0;
	bool sized = (bits & NAME_HIT) && shape && shape->ok && seqs > 0 && tok >= seqs;
	bool call = (bits & NAME_ATTN) && !mla_preprocess(name);
	t->attn += (bits & NAME_ATTN) != 0;
	t->calls += call;
	t->attn_ns += call && dur > 0 ? dur : 0;
	/* PagedAttention over more tokens than sequences is the split-fuse form (chunked prefill),
	 * whatever its kernel is named: not decode-only */
	if ((bits & NAME_DECODE) && !(sized && tok > seqs && !mla_preprocess(name))) {
		t->decode_only++;
		t->decode_only_name = mla_preprocess(name) ? "MLA preprocess" : "PagedAttention";
		t->mla += mla_preprocess(name);
	}
	if (!sized)
		return;
	if (tok == seqs) {
		t->dec++;
		t->dec_seqs = seqs;
	} else {
		t->pre++;
		t->pre_tok = tok;
		t->pre_seqs = seqs > t->pre_seqs ? seqs : t->pre_seqs;
	}
}

/* The serving output's forwards (else its executed batches), on the same epoch clock as
 * the trace: each goes to the step it overlaps most, one forward per step, and its batch type
 * is the step's phase, the strongest signal there is (the framework says what it ran).
 * Nothing when fewer than half of the typed forwards fall on a step (another host's clock,
 * another run). */
static void votes_from_serving(struct rank_analysis *ra, const struct serving *sv, struct vote (*v)[SIG_COUNT])
{
	if (!sv || !ra->n_steps || !ra->steps[0].has_window)
		return;
	struct span_t {
		int64_t a, b;
		int size;
		uint8_t type;
	};
	size_t n = 0;
	struct span_t *f = xmalloc((sv->n_fwd + sv->n_batch + 1) * sizeof *f);
	const char *what = sv->n_fwd ? "forward" : "batch execution";
	for (size_t i = 0; i < sv->n_fwd; i++)
		if (sv->fwd[i].type != SBT_UNKNOWN && sv->fwd[i].start_ns != SERVING_NONE_NS &&
		    sv->fwd[i].end_ns != SERVING_NONE_NS)
			f[n++] = (struct span_t){sv->fwd[i].start_ns, sv->fwd[i].end_ns, sv->fwd[i].size, sv->fwd[i].type};
	for (size_t i = 0; !sv->n_fwd && i < sv->n_batch; i++)
		if (sv->batch[i].exec && sv->batch[i].type != SBT_UNKNOWN && sv->batch[i].start_ns != SERVING_NONE_NS &&
		    sv->batch[i].end_ns != SERVING_NONE_NS)
			f[n++] = (struct span_t){sv->batch[i].start_ns, sv->batch[i].end_ns, sv->batch[i].size,
						 sv->batch[i].type};
	size_t *best = xmalloc(ra->n_steps * sizeof *best); /* per step: its forward, SIZE_MAX none */
	int64_t *best_ov = xcalloc(ra->n_steps, sizeof *best_ov);
	for (size_t k = 0; k < ra->n_steps; k++)
		best[k] = SIZE_MAX;
	size_t matched = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = result_step_at(ra, f[i].a + (f[i].b - f[i].a) / 2);
		int64_t top = 0;
		size_t at = SIZE_MAX;
		for (size_t c = k == SIZE_MAX ? 0 : (k ? k - 1 : 0); k != SIZE_MAX && c <= k + 1 && c < ra->n_steps; c++) {
			int64_t lo = f[i].a > ra->steps[c].win_start ? f[i].a : ra->steps[c].win_start;
			int64_t hi = f[i].b < ra->steps[c].win_end ? f[i].b : ra->steps[c].win_end;
			if (hi - lo > top) {
				top = hi - lo;
				at = c;
			}
		}
		if (at == SIZE_MAX)
			continue;
		matched++;
		if (top > best_ov[at]) {
			best_ov[at] = top;
			best[at] = i;
		}
	}
	if (n && matched * 2 >= n)
		for (size_t k = 0; k < ra->n_steps; k++) {
			if (best[k] == SIZE_MAX)
				continue;
			const struct span_t *x = &f[best[k]];
			enum phase p = x->type == SBT_PREFILL ? PHASE_PREFILL
				       : x->type == SBT_DECODE ? PHASE_DECODE
							       : PHASE_MIXED;
			vote(&v[k][SIG_SERVING], p, CONF_HIGH, PHASE_SRC_SERVING,
			     xasprintf(_("the serving output's %s at this step's time ran a %s batch (%d request(s))"), what,
				       serving_batch_type_name((enum serving_batch_type)x->type), x->size));
		}
	free(best);
	free(best_ov);
	free(f);
}

/* Decode-only kernels and attention shapes per step (t, one per step: kept for the reference
 * the settled steps make, phases_by_reference): from the kernel table when it has start
 * times (same axis as the trace), else kernel names from the trace's device lanes. */
static void votes_from_kernels(struct rank_analysis *ra, const struct rank_store *rs,
                               const struct csv_table *kt, struct vote (*v)[SIG_COUNT], struct attn_tally *t)
{
	if (!ra->n_steps || !ra->steps[0].has_window)
		return;
	struct name_memo m;
	size_t hint = 0;
	bool table = kt && csvt_has(kt, COL_NAME) && csvt_has(kt, COL_START) && kt->nrows;
	if (table) {
		name_memo_init(&m, kt->strs, kernel_words, NULL);
		bool shapes = csvt_has(kt, COL_INPUT_SHAPES);
		uint32_t n_strs = strtab_count(kt->strs);
		struct shape_memo *sm = shapes ? xcalloc(n_strs ? n_strs : 1, sizeof *sm) : NULL;
		for (size_t r = 0; r < kt->nrows; r++) {
			uint32_t id = csvt_str_id(kt, r, COL_NAME);
			int64_t ts, dur = 0;
			uint8_t bits = id == STRTAB_NONE ? 0 : name_bits(&m, id);
			if (!bits || !csvt_time(kt, r, COL_START, &ts))
				continue;
			size_t k = analysis_step_at_near(ra, ts, &hint);
			(void)csvt_time(kt, r, COL_DURATION, &dur); /* 0 without one: no attention time */
			if (k != SIZE_MAX)
				tally_kernel(&t[k], bits, strtab_str(kt->strs, id),
				             sm ? shape_of(sm, kt->strs, csvt_str_id(kt, r, COL_INPUT_SHAPES)) : NULL, dur);
		}
		free(sm);
	} else if (rs->has_events) {
		name_memo_init(&m, rs->strs, kernel_words, NULL);
		for (size_t ev = 0; ev < rs->n_ev; ev++) {
			if (ra->cls[ev].cat != CAT_COMPUTE)
				continue;
			uint8_t bits = name_bits(&m, rs->ev_name[ev]);
			size_t k = bits ? analysis_step_at_near(ra, store_ts(rs, ev), &hint) : SIZE_MAX;
			if (k != SIZE_MAX)
				tally_kernel(&t[k], bits, store_ev_name(rs, ev), NULL, store_dur(rs, ev));
		}
	} else {
		return;
	}
	free(m.bits);
	/* MLA models run a mixed batch's decode and prefill parts as separate attention calls
	 * (seen as an MLA preprocess kernel or a split step): there, a step with prompt-sized
	 * calls only holds no decodes */
	bool splits = false;
	for (size_t k = 0; k < ra->n_steps; k++)
		splits |= t[k].mla || (t[k].dec && t[k].pre);
	for (size_t k = 0; k < ra->n_steps; k++) {
		const struct attn_tally *a = &t[k];
		if (a->decode_only)
			vote(&v[k][SIG_KERNELS], PHASE_DECODE, CONF_HIGH, PHASE_SRC_KERNELS,
			     xasprintf(_("%zu %s kernel(s): they run only in decode-only batches"), a->decode_only,
			               a->decode_only_name));
		if (a->dec && a->pre)
			vote(&v[k][SIG_SHAPES], PHASE_MIXED, CONF_MEDIUM, PHASE_SRC_SHAPES,
			     xasprintf(_("attention over one token per sequence (%ld sequences) and over %ld tokens "
			               "of %ld sequence(s) in the same step: a decode part and a prefill part"),
			               a->dec_seqs, a->pre_tok, a->pre_seqs));
		else if (a->dec)
			vote(&v[k][SIG_SHAPES], PHASE_DECODE, CONF_MEDIUM, PHASE_SRC_SHAPES,
			     xasprintf(_("attention query tokens equal its sequences (%ld): one new token each"),
			               a->dec_seqs));
		else if (a->pre && (a->pre_seqs == 1 || splits))
			vote(&v[k][SIG_SHAPES], PHASE_PREFILL, CONF_MEDIUM, PHASE_SRC_SHAPES,
			     xasprintf(_("attention over %ld query tokens of %ld sequence(s)%s"), a->pre_tok,
			               a->pre_seqs,
			               a->pre_seqs == 1 ? ": a prompt"
			                                : ", and this model runs decode parts as calls of their "
			                                  "own (MLA): prompts only"));
		/* one attention call over the prompt tokens of several sequences: several prompts, or
		 * (chunked prefill, vLLM V1's default) prompt chunks and decodes in one batch; the
		 * shapes give totals only: unknown, saying why, unless the capture's decode steps
		 * tell (phases_by_reference) */
		else if (a->pre)
			vote_unknown(&v[k][SIG_SHAPES], PHASE_SRC_SHAPES,
			             xasprintf(_("unknown: attention over %ld query tokens of %ld sequences holds "
			                       "prompt tokens, and the shapes cannot tell several prompts (prefill) "
			                       "from prompt chunks batched with decodes (chunked prefill: mixed)"),
			                       a->pre_tok, a->pre_seqs));
	}
}

static void votes_from_stage(struct rank_analysis *ra, const struct csv_table *st,
                             struct vote (*v)[SIG_COUNT])
{
	/* Stage is a number in real files (a duration): only a text label counts */
	if (!st || ra->step_source != STEP_SRC_STEP_TRACE || st->nrows != ra->n_steps)
		return;
	for (size_t i = 0; i < ra->n_steps; i++) {
		const char *stage = csvt_str(st, i, COL_STAGE);
		enum phase p = strcasestr(stage, "prefill")                               ? PHASE_PREFILL
		               : strcasestr(stage, "decode")                              ? PHASE_DECODE
		               : strcasestr(stage, "mixed") || strcasestr(stage, "chunk") ? PHASE_MIXED
		                                                                          : PHASE_UNKNOWN;
		if (p)
			vote(&v[i][SIG_STAGE], p, CONF_HIGH, PHASE_SRC_STAGE,
			     xasprintf(_("Stage column reads %s"), result_phase_name(p)));
	}
}

/* The best split of n logs into a low and a high group (1-D two-means, exact): the low
 * group's size (0 below two values), the groups' means, the ratio of their exponentials
 * and their distance in pooled spreads (infinite with no spread). sorted gets the logs in
 * order. */
struct split2 {
	size_t n_low;
	double m1, m2, ratio, sep;
};

static void split_two(const double *lg, size_t n, double *sorted, struct split2 *out)
{
	memcpy(sorted, lg, n * sizeof *sorted);
	for (size_t i = 1; i < n; i++) /* insertion sort: n is the step count */
		for (size_t j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
			double t = sorted[j];
			sorted[j] = sorted[j - 1];
			sorted[j - 1] = t;
		}
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
	out->n_low = best_k;
	out->m1 = m1;
	out->m2 = m2;
	out->ratio = best_k ? exp(m2 - m1) : 1.0;
	out->sep = sd > 0 ? (m2 - m1) / sd : (out->ratio > 1.0 ? INFINITY : 0);
}

/* Two duration clusters among the steps no other signal decided (sel), else all read as
 * decode with low confidence. */
static void phases_from_durations(struct rank_analysis *ra, const size_t *sel, size_t n)
{
	if (n == 0)
		return;
	/* durations tell prefill from decode only in a workload that serves; of an unknown one
	 * (an operator test, a toy trace) they say nothing: "decode" would be a guess */
	if (ra->workload == WORKLOAD_UNKNOWN) {
		for (size_t i = 0; i < n; i++) {
			struct step *s = &ra->steps[sel[i]];
			s->phase = PHASE_UNKNOWN;
			s->phase_source = PHASE_SRC_NONE;
			s->phase_conf = CONF_LOW;
			s->phase_evidence = xstrdup(_("workload unknown (neither serving nor training kernels): a step's "
			                              "duration alone does not make it prefill or decode"));
		}
		return;
	}
	double *lg = xmalloc(n * sizeof *lg);
	for (size_t i = 0; i < n; i++) {
		int64_t d = ra->steps[sel[i]].end - ra->steps[sel[i]].start;
		lg[i] = log(d > 0 ? (double)d : 1.0);
	}
	double *sorted = xmalloc(n * sizeof *sorted);
	struct split2 sp;
	split_two(lg, n, sorted, &sp);
	size_t best_k = sp.n_low;
	double m1 = sp.m1, m2 = sp.m2, ratio = sp.ratio, sep = sp.sep;
	bool two = best_k && ratio >= 1.6 && (n == 2 ? ratio >= 2.0 : sep >= 4.0);
	if (two) {
		double cut = (sorted[best_k - 1] + sorted[best_k]) / 2;
		size_t np = 0;
		for (size_t i = 0; i < n; i++)
			np += lg[i] > cut;
		/* never more than low: a short prompt takes about a decode step's time, and with
		 * chunked prefill (vLLM V1's default) prompt chunks ride with decodes in steps of
		 * either cluster (a generated vllm,mixed=3 capture without shapes, seed 1: prefill
		 * and mixed steps read decode with confidence medium) */
		enum confidence c = CONF_LOW;
		for (size_t i = 0; i < n; i++) {
			struct step *s = &ra->steps[sel[i]];
			s->phase = lg[i] > cut ? PHASE_PREFILL : PHASE_DECODE;
			s->phase_source = PHASE_SRC_CLUSTERS;
			s->phase_conf = c;
			s->phase_evidence = xasprintf(
			        _("step durations form two clusters: %zu step(s) around %.3f ms read as "
			        "prefill, %zu "
			        "around %.3f ms as decode (ratio %.1f, separation %.1f sd of log duration); a short "
			        "prompt, or with chunked prefill prompt chunks beside decodes (mixed), can sit in "
			        "either"),
			        np, exp(m2) / 1e6, n - np, exp(m1) / 1e6, ratio, isfinite(sep) ? sep : 99.0);
		}
	} else {
		for (size_t i = 0; i < n; i++) {
			struct step *s = &ra->steps[sel[i]];
			s->phase = PHASE_DECODE;
			s->phase_source = PHASE_SRC_UNIFORM;
			s->phase_conf = CONF_LOW;
			s->phase_evidence = xasprintf(_("%zu step(s) with durations from %.3f to %.3f ms show "
			                              "no separate long cluster; read "
			                              "as decode only"),
			                              n, exp(sorted[0]) / 1e6, exp(sorted[n - 1]) / 1e6);
		}
	}
	free(lg);
	free(sorted);
}

/* A step's tokens as its tensor-parallel collectives carry them: an allReduce of the hidden
 * states moves tokens x hidden elements, so within one capture its payload follows the
 * batch's tokens. Per step, the median payload of the first three whole allReduces in its
 * window (out[k], bytes; 0 where it has none whose args give a count). */
static void step_payloads(const struct rank_analysis *ra, const struct rank_store *rs, double *out)
{
	bool groups = evkind_has_group_lanes(rs);
	double (*b)[3] = xcalloc(ra->n_steps, sizeof *b);
	uint8_t *nb = xcalloc(ra->n_steps, 1);
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *l = &rs->lanes[li];
		if (l->group != LANE_COMM && l->group != LANE_DEVICE)
			continue;
		size_t hint = 0;
		for (uint32_t i = 0; i < l->n_events; i++) {
			uint32_t ev = l->events[i];
			if (!analysis_is_collective(rs, ra->cls, ev, groups) || !strcasestr(store_ev_name(rs, ev), "allreduce"))
				continue;
			size_t k = analysis_step_at_near(ra, store_ts(rs, ev), &hint);
			if (k == SIZE_MAX || nb[k] >= 3)
				continue;
			double bytes = evkind_collective_bytes(rs, ev);
			if (bytes > 0)
				b[k][nb[k]++] = bytes;
		}
	}
	for (size_t k = 0; k < ra->n_steps; k++) {
		double *x = b[k];
		if (nb[k] == 3) { /* the middle of three */
			double lo = fmin(x[0], fmin(x[1], x[2])), hi = fmax(x[0], fmax(x[1], x[2]));
			out[k] = x[0] + x[1] + x[2] - lo - hi;
		} else {
			out[k] = nb[k] ? x[0] : 0;
		}
	}
	free(b);
	free(nb);
}

/* The steps no signal settled (sel), by their tokens where the capture's collectives carry
 * them (pay, per step: step_payloads): a decode step holds one token per running sequence,
 * a prompt the prompt's tokens. Payloads in two groups far apart (3 times and more between
 * their means, 4 spreads of log payload) read as decode (the low group) and as steps holding
 * prompt tokens (the high group: prefill, or mixed where chunked prefill runs prompt chunks
 * beside decodes, which the payload cannot tell). The steps it reads leave sel (*n is what
 * remains); false when the payloads do not separate or a quarter of the steps has none. */
static bool phases_from_payload(struct rank_analysis *ra, size_t *sel, size_t *n, const double *pay)
{
	size_t with = 0;
	for (size_t i = 0; i < *n; i++)
		with += pay[sel[i]] > 0;
	if (with < 4 || with * 4 < *n * 3)
		return false;
	double *lg = xmalloc(with * sizeof *lg), *sorted = xmalloc(with * sizeof *sorted);
	size_t j = 0;
	for (size_t i = 0; i < *n; i++)
		if (pay[sel[i]] > 0)
			lg[j++] = log(pay[sel[i]]);
	struct split2 sp;
	split_two(lg, with, sorted, &sp);
	bool two = sp.n_low && sp.ratio >= 3.0 && sp.sep >= 4.0;
	double cut = two ? (sorted[sp.n_low - 1] + sorted[sp.n_low]) / 2 : 0;
	free(lg);
	free(sorted);
	if (!two)
		return false;
	size_t n_prompt = with - sp.n_low, rest = 0;
	for (size_t i = 0; i < *n; i++) {
		struct step *s = &ra->steps[sel[i]];
		double p = pay[sel[i]];
		if (p <= 0) {
			sel[rest++] = sel[i];
			continue;
		}
		bool prompt = log(p) > cut;
		free(s->phase_evidence);
		s->phase = prompt ? PHASE_PREFILL : PHASE_DECODE;
		s->phase_source = PHASE_SRC_PAYLOAD;
		/* a decode batch is what the low group holds; a prompt as short as a decode batch
		 * sits in it too (one of twice the group's tokens: low), and a high step may hold
		 * decodes beside its prompt chunk */
		s->phase_conf = prompt || log(p) - sp.m1 > log(1.5) ? CONF_LOW : CONF_MEDIUM;
		s->phase_evidence = xasprintf(
		        _("its allReduce carries %.3f MB; the steps' payloads form two groups, %zu around %.3f MB "
		          "(decode: a token per running sequence) and %zu around %.3f MB (prompt tokens: prefill, or "
		          "mixed with chunked prefill), %.1f times apart"),
		        p / 1e6, sp.n_low, exp(sp.m1) / 1e6, n_prompt, exp(sp.m2) / 1e6, sp.ratio);
	}
	*n = rest;
	return true;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* The log durations of one phase's settled steps. */
struct phase_ref {
	size_t n;
	double mean, sd;
};

static double log_duration(const struct step *s)
{
	int64_t d = s->end - s->start;
	return log(d > 0 ? (double)d : 1.0);
}

static void set_phase(struct step *s, enum phase p, enum phase_source src, enum confidence c, char *why)
{
	free(s->phase_evidence);
	s->phase = p;
	s->phase_source = src;
	s->phase_conf = c;
	s->phase_evidence = why;
}

/* How far log duration x lies from a phase's settled steps, in their spread (at least 0.1, a
 * tenth of the duration: a few near-equal steps do not make the next one far); a phase with
 * none settled stands at 3, where a step stops belonging to a distribution. */
static double ref_distance(const struct phase_ref *r, double x)
{
	if (!r->n)
		return 3.0;
	return fabs(x - r->mean) / (r->sd > 0.1 ? r->sd : 0.1);
}

/* The settled steps' durations per phase, the steps with decode-only kernels and the fewest
 * sequences of a settled decode step's attention (0: none known). open: the unsettled steps. */
static void reference_of(const struct rank_analysis *ra, const struct attn_tally *t, const bool *open,
                         struct phase_ref ref[PHASE_MIXED + 1], size_t *marked, const char **marker,
                         long *dec_seqs, size_t *dec_calls)
{
	size_t *calls = xmalloc((ra->n_steps ? ra->n_steps : 1) * sizeof *calls), n_calls = 0;
	memset(ref, 0, (PHASE_MIXED + 1) * sizeof *ref);
	*marked = 0;
	*marker = NULL;
	*dec_seqs = 0;
	for (size_t k = 0; k < ra->n_steps; k++) {
		const struct step *s = &ra->steps[k];
		if (open[k] || s->phase == PHASE_UNKNOWN)
			continue;
		ref[s->phase].n++;
		ref[s->phase].mean += log_duration(s);
		if (t[k].decode_only) {
			++*marked;
			*marker = t[k].decode_only_name;
		}
		if (s->phase == PHASE_DECODE && t[k].dec && (!*dec_seqs || t[k].dec_seqs < *dec_seqs))
			*dec_seqs = t[k].dec_seqs;
		if (s->phase == PHASE_DECODE && t[k].calls)
			calls[n_calls++] = t[k].calls;
	}
	/* the attention calls of a settled decode step (their median): one per layer */
	xqsort(calls, n_calls, sizeof *calls, cmp_size);
	*dec_calls = n_calls ? calls[(n_calls - 1) / 2] : 0;
	free(calls);
	for (int p = PHASE_PREFILL; p <= PHASE_MIXED; p++)
		ref[p].mean /= ref[p].n ? (double)ref[p].n : 1.0;
	for (size_t k = 0; k < ra->n_steps; k++) {
		const struct step *s = &ra->steps[k];
		if (open[k] || s->phase == PHASE_UNKNOWN)
			continue;
		double d = log_duration(s) - ref[s->phase].mean;
		ref[s->phase].sd += d * d;
	}
	for (int p = PHASE_PREFILL; p <= PHASE_MIXED; p++)
		ref[p].sd = ref[p].n > 1 ? sqrt(ref[p].sd / (double)(ref[p].n - 1)) : 0;
}

/* The phase of an unsettled step whose duration (log x) is nearest a phase's settled steps,
 * among those it may be: not decode where decode-only kernels mark decode and the step has
 * none, or where its attention holds prompt tokens. A phase none settled is a candidate only
 * where it is what the step is if not the settled ones: prefill in a marked capture, prefill
 * longer than settled decodes, decode shorter than settled prefills. PHASE_UNKNOWN when none. */
static enum phase nearest_phase(const struct phase_ref ref[PHASE_MIXED + 1], double x, bool marked,
                                bool prompt, double *dist)
{
	bool may[PHASE_MIXED + 1] = {false, true, !marked && !prompt, true};
	bool open[PHASE_MIXED + 1] = {false, marked || (ref[PHASE_DECODE].n && x > ref[PHASE_DECODE].mean),
	                              ref[PHASE_PREFILL].n && x < ref[PHASE_PREFILL].mean, false};
	enum phase best = PHASE_UNKNOWN;
	*dist = INFINITY;
	for (int p = PHASE_PREFILL; p <= PHASE_MIXED; p++) {
		if (!may[p] || (!ref[p].n && !open[p]))
			continue;
		double d = ref_distance(&ref[p], x);
		if (d < *dist) {
			*dist = d;
			best = (enum phase)p;
		}
	}
	return best;
}

/* The step evidence's words where a step holds a prompt and nothing tells prefill from mixed
 * (phase_summary counts the steps that say it). */
static const char *const prompt_or_chunk = N_("prefill or mixed: nothing in this capture separates a prompt "
                                              "from a chunk beside the decode batch");

/* The attention time of the decode steps nearest step k before and after it (the smaller; 0
 * with neither), among the steps nb lets speak. */
static int64_t decode_attention_beside(const struct rank_analysis *ra, const struct attn_tally *t, const bool *nb,
                                       size_t k)
{
	int64_t a = 0, b = 0;
	for (size_t j = k; j-- > 0 && !a;)
		if (nb[j] && ra->steps[j].phase == PHASE_DECODE)
			a = t[j].attn_ns;
	for (size_t j = k + 1; j < ra->n_steps && !b; j++)
		if (nb[j] && ra->steps[j].phase == PHASE_DECODE)
			b = t[j].attn_ns;
	return !a ? b : !b ? a : a < b ? a : b;
}

/* Step k holds prompt tokens and is not decode. A mixed step runs its running decodes beside
 * its chunk, so its attention reads their cache: about what the decode steps beside it take,
 * or more. Under half of that, it carries no decode batch: prefill (medium). Otherwise prefill
 * and mixed look alike here (low). why gets the reason; returns the confidence. */
static enum confidence prompt_or_mixed(const struct rank_analysis *ra, const struct attn_tally *t, const bool *nb,
                                       size_t k, struct sbuf *why)
{
	int64_t beside = decode_attention_beside(ra, t, nb, k);
	if (t[k].attn_ns > 0 && beside > 0 && t[k].attn_ns * 2 < beside) {
		sbuf_addf(why,
		          _("; its attention takes %.3f ms, under half what the decode steps beside it take "
		            "(%.3f ms): no running batch's cache read beside its prompt, so not mixed"),
		          (double)t[k].attn_ns / 1e6, (double)beside / 1e6);
		return CONF_MEDIUM;
	}
	sbuf_addf(why, "; %s", _(prompt_or_chunk));
	return CONF_LOW;
}

/* Median and robust spread (1.4826 median absolute deviations) of n values (x reordered). */
static void median_spread(double *x, size_t n, double *med, double *spread)
{
	xqsort(x, n, sizeof *x, cmp_double);
	*med = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
	for (size_t i = 0; i < n; i++)
		x[i] = fabs(x[i] - *med);
	xqsort(x, n, sizeof *x, cmp_double);
	*spread = 1.4826 * (n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2);
}

/* After the payloads (phases_from_payload, nothing else settled), the kernel mix. A decode
 * token reads its sequence's whole cache, a prompt's tokens attend only to the prompt: a step
 * read decode whose attention per payload byte is a quarter of the decode steps' or less (and
 * 5 spreads off), or which lasts 4 times their median and more (a host stall makes a decode
 * step a few times longer, not that), holds a prompt. Every prompt step is then prefill or
 * mixed by prompt_or_mixed. */
static void phases_from_attention(struct rank_analysis *ra, const struct attn_tally *t, const double *pay)
{
	size_t n = ra->n_steps, nd = 0;
	double *q = xmalloc(n * sizeof *q), *d = xmalloc(n * sizeof *d), qm = 0, qs = 0, dm = 0, ds = 0;
	bool *nb = xcalloc(n, sizeof *nb), *prompt = xcalloc(n, sizeof *prompt);
	for (size_t k = 0; k < n; k++) {
		const struct step *s = &ra->steps[k];
		if (s->phase_source != PHASE_SRC_PAYLOAD)
			continue;
		prompt[k] = s->phase != PHASE_DECODE;
		nb[k] = !prompt[k];
		if (nb[k] && t[k].attn_ns > 0) {
			q[nd] = log((double)t[k].attn_ns / pay[k]);
			d[nd++] = log_duration(s);
		}
	}
	if (nd >= 4) {
		median_spread(q, nd, &qm, &qs);
		median_spread(d, nd, &dm, &ds);
	}
	for (size_t k = 0; k < n && nd >= 4; k++) {
		struct step *s = &ra->steps[k];
		if (!nb[k])
			continue;
		double lq = t[k].attn_ns > 0 ? log((double)t[k].attn_ns / pay[k]) : qm, ld = log_duration(s);
		bool thin = lq < qm - fmax(log(4.0), 5 * qs), slow = ld > dm + fmax(log(4.0), 5 * ds);
		if (!thin && !slow)
			continue;
		nb[k] = false;
		prompt[k] = true;
		free(s->phase_evidence);
		s->phase_evidence =
		        thin ? xasprintf(_("its allReduce carries %.3f MB, a decode batch's tokens, but its attention "
		                           "takes %.1f times less per byte than the decode steps' (a decode token "
		                           "reads its sequence's cache, a prompt's tokens attend to the prompt "
		                           "alone): prompt tokens"),
		                         pay[k] / 1e6, exp(qm - lq))
		             : xasprintf(_("its allReduce carries %.3f MB, a decode batch's tokens, but it lasts "
		                           "%.3f ms, %.1f times the decode steps' median: not a decode step"),
		                         pay[k] / 1e6, exp(ld) / 1e6, exp(ld - dm));
		s->phase = PHASE_PREFILL;
	}
	for (size_t k = 0; k < n; k++) {
		if (!prompt[k])
			continue;
		struct sbuf why = SBUF_INIT;
		sbuf_adds(&why, ra->steps[k].phase_evidence);
		enum confidence c = prompt_or_mixed(ra, t, nb, k, &why);
		set_phase(&ra->steps[k], PHASE_PREFILL, PHASE_SRC_PAYLOAD, c, sbuf_detach(&why));
	}
	free(q);
	free(d);
	free(nb);
	free(prompt);
}

/* After the durations (nothing settled, no payload): a decode batch reads its sequences'
 * cache, and the batch moves little from one decode step to the next, so a step read decode
 * (of sel) whose attention takes a quarter or less of what the decode steps beside it take
 * reads no batch's cache: a prompt about as short as a decode step (low: the batch may have
 * shrunk there). */
static void decode_by_attention(struct rank_analysis *ra, const struct attn_tally *t, const size_t *sel, size_t n)
{
	bool *nb = xcalloc(ra->n_steps, sizeof *nb), *thin = xcalloc(ra->n_steps, sizeof *thin);
	int64_t *beside = xcalloc(ra->n_steps, sizeof *beside);
	for (size_t i = 0; i < n; i++)
		nb[sel[i]] = ra->steps[sel[i]].phase == PHASE_DECODE && t[sel[i]].attn_ns > 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = sel[i];
		beside[k] = nb[k] ? decode_attention_beside(ra, t, nb, k) : 0;
		thin[k] = beside[k] > 0 && t[k].attn_ns * 4 <= beside[k];
	}
	for (size_t k = 0; k < ra->n_steps; k++)
		if (thin[k])
			set_phase(&ra->steps[k], PHASE_PREFILL, PHASE_SRC_CLUSTERS, CONF_LOW,
			          xasprintf(_("its duration is a decode step's, but its attention takes %.3f ms, a "
			                      "quarter or less of what the decode steps beside it take (%.3f ms): it "
			                      "reads no decode batch's cache, a short prompt; %s"),
			                    (double)t[k].attn_ns / 1e6, (double)beside[k] / 1e6, _(prompt_or_chunk)));
	free(nb);
	free(thin);
	free(beside);
}

/* The steps no signal settled (sel), read against those it did. In a capture where
 * decode-only kernels (PagedAttention, MLA preprocess) mark decode, a step whose attention
 * runs without them is not decode. Prompt tokens over as many sequences as the capture's decode steps run
 * hold those decodes (chunked prefill: mixed), over fewer are prompts only (prefill). Otherwise a step's
 * duration is compared with each phase's settled steps. With nothing settled, the durations' own clusters
 * decide; a step only the shapes read stays unknown (prompt tokens: not decode, and nothing tells prefill
 * from mixed). */
static void phases_by_reference(struct rank_analysis *ra, const struct rank_store *rs, const struct attn_tally *t,
                                const size_t *sel, size_t n)
{
	if (!n)
		return;
	bool *open = xcalloc(ra->n_steps, sizeof *open);
	for (size_t i = 0; i < n; i++)
		open[sel[i]] = true;
	struct phase_ref ref[PHASE_MIXED + 1];
	size_t marked;
	const char *marker;
	long dec_seqs;
	size_t dec_calls;
	reference_of(ra, t, open, ref, &marked, &marker, &dec_seqs, &dec_calls);
	/* the model splits a mixed batch into a decode and a prefill attention call per layer
	 * (MLA: mla_v1 runs _forward_decode and _forward_prefill) */
	bool splits = false;
	for (size_t k = 0; k < ra->n_steps; k++) {
		splits |= t[k].mla > 0;
		open[k] = !open[k]; /* now: the settled steps, which speak for the others */
	}
	if (!ref[PHASE_PREFILL].n && !ref[PHASE_DECODE].n && !ref[PHASE_MIXED].n) {
		size_t *bare = xmalloc(n * sizeof *bare), nb = 0;
		for (size_t i = 0; i < n; i++)
			if (!t[sel[i]].pre) {
				free(ra->steps[sel[i]].phase_evidence);
				ra->steps[sel[i]].phase_evidence = NULL;
				bare[nb++] = sel[i];
			}
		/* nothing settled: the tokens the collectives carry, else the durations */
		double *pay = nb && rs->has_events && ra->workload == WORKLOAD_INFERENCE
		                      ? xcalloc(ra->n_steps, sizeof *pay)
		                      : NULL;
		if (pay)
			step_payloads(ra, rs, pay);
		bool by_pay = pay && phases_from_payload(ra, bare, &nb, pay);
		if (by_pay)
			phases_from_attention(ra, t, pay);
		if (!by_pay || nb) {
			phases_from_durations(ra, bare, nb);
			decode_by_attention(ra, t, bare, nb);
		}
		free(pay);
		free(bare);
		free(open);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct step *s = &ra->steps[sel[i]];
		const struct attn_tally *a = &t[sel[i]];
		double x = log_duration(s), dist;
		if (a->pre && dec_seqs && a->pre_seqs >= dec_seqs) {
			set_phase(
			        s, PHASE_MIXED, PHASE_SRC_SHAPES, CONF_LOW,
			        xasprintf(
			                _("attention over %ld query tokens of %ld sequences, as many as this "
			                  "capture's decode steps run (%ld or more): prompt chunks beside "
			                  "running decodes"),
			                a->pre_tok, a->pre_seqs, dec_seqs));
			continue;
		}
		if (a->pre && dec_seqs) {
			set_phase(
			        s, PHASE_PREFILL, PHASE_SRC_SHAPES, CONF_LOW,
			        xasprintf(
			                _("attention over %ld query tokens of %ld sequences, fewer than any "
			                  "decode step of this capture runs (%ld): prompts only"),
			                a->pre_tok, a->pre_seqs, dec_seqs));
			continue;
		}
		/* a step that ran no attention (a capture's cut edge) shows nothing by missing them */
		bool absent = marked && a->attn;
		/* not decode, and its attention calls against a decode step's (one per layer): twice
		 * as many are a decode part and a prefill part (mixed); as many, where the model
		 * splits mixed batches, a prompt part alone (prefill) */
		if (absent && dec_calls && a->calls * 10 >= dec_calls * 16) {
			set_phase(s, PHASE_MIXED, PHASE_SRC_KERNELS, CONF_MEDIUM,
			          xasprintf(_("no %s kernel, and %zu attention calls where a decode step makes %zu "
			                      "(one per layer): a decode part and a prompt part per layer (mixed)"),
			                    marker, a->calls, dec_calls));
			continue;
		}
		if (absent && splits && dec_calls && a->calls * 4 <= dec_calls * 5 && a->calls * 4 >= dec_calls * 3) {
			set_phase(s, PHASE_PREFILL, PHASE_SRC_KERNELS, CONF_MEDIUM,
			          xasprintf(_("no %s kernel, and %zu attention calls, as many as a decode step's "
			                      "(%zu, one per layer), where this model runs a mixed batch's decode and "
			                      "prompt parts as two calls: prompts only (prefill)"),
			                    marker, a->calls, dec_calls));
			continue;
		}
		enum phase p = nearest_phase(ref, x, absent, a->pre > 0, &dist);
		if (p == PHASE_UNKNOWN) {
			if (!s->phase_evidence)
				s->phase_evidence = xstrdup(
				        _("unknown: no signal reads this step, and the steps others settled "
				          "do not tell it"));
			continue;
		}
		struct sbuf why = SBUF_INIT;
		if (absent)
			sbuf_addf(&why,
			          _("no %s kernel, which marks decode in %zu step(s) of this capture: not a "
			            "decode-only batch; "),
			          marker, marked);
		if (ref[p].n)
			sbuf_addf(&why,
			          _("its duration (%.3f ms) is nearest the %zu settled %s step(s) (around "
			            "%.3f ms, %.1f spreads away)"),
			          exp(x) / 1e6, ref[p].n, result_phase_name(p), exp(ref[p].mean) / 1e6,
			          dist);
		else if (absent)
			sbuf_addf(&why,
			          _("read as %s (%.3f ms): no settled step of that phase to compare with"),
			          result_phase_name(p), exp(x) / 1e6);
		else
			sbuf_addf(&why,
			          _("its duration (%.3f ms) lies more than 3 spreads from every settled "
			            "phase's steps: read as %s"),
			          exp(x) / 1e6, result_phase_name(p));
		/* not decode: prefill where no decode batch rides along, else nothing tells which */
		enum confidence c = absent ? prompt_or_mixed(ra, t, open, sel[i], &why) : CONF_LOW;
		if (absent && c == CONF_MEDIUM)
			p = PHASE_PREFILL;
		set_phase(s, p, absent ? PHASE_SRC_KERNELS : PHASE_SRC_CLUSTERS, c, sbuf_detach(&why));
	}
	free(open);
}

/* Every step takes the first signal in order that reads it; a later signal that reads it
 * otherwise lowers the confidence to low and is named. The steps no signal settles are read
 * against the settled ones (phases_by_reference). */
static void decide_phases(struct rank_analysis *ra, const struct rank_store *rs, struct vote (*v)[SIG_COUNT],
                          const struct attn_tally *t)
{
	size_t *rest = xmalloc((ra->n_steps ? ra->n_steps : 1) * sizeof *rest), nrest = 0;
	for (size_t k = 0; k < ra->n_steps; k++) {
		struct step *s = &ra->steps[k];
		int first = -1, unknown = -1;
		for (int g = 0; g < SIG_COUNT && first < 0; g++)
			if (v[k][g].phase)
				first = g;
			else if (v[k][g].unknown && unknown < 0)
				unknown = g;
		if (first < 0) {
			/* a signal that saw it and cannot tell speaks unless the reference does */
			s->phase = PHASE_UNKNOWN;
			s->phase_source = unknown >= 0 ? v[k][unknown].source : PHASE_SRC_NONE;
			s->phase_conf = CONF_LOW;
			s->phase_evidence = unknown >= 0 ? xstrdup(v[k][unknown].why) : NULL;
			rest[nrest++] = k;
			continue;
		}
		const struct vote *f = &v[k][first];
		s->phase = f->phase;
		s->phase_source = f->source;
		s->phase_conf = f->conf;
		struct sbuf why = SBUF_INIT;
		sbuf_adds(&why, f->why);
		for (int g = first + 1; g < SIG_COUNT; g++) {
			const struct vote *o = &v[k][g];
			/* a low "prefill" from shapes blind to decode parts does not contradict mixed */
			if (!o->phase || o->phase == f->phase ||
			    (f->phase == PHASE_MIXED && o->phase == PHASE_PREFILL && o->conf == CONF_LOW))
				continue;
			s->phase_conf = CONF_LOW;
			sbuf_addf(&why, _("; but %s read %s (%s)"), result_phase_source_name(o->source),
			          result_phase_name(o->phase), o->why);
		}
		s->phase_evidence = sbuf_detach(&why);
	}
	phases_by_reference(ra, rs, t, rest, nrest);
	free(rest);
}

static void phase_summary(struct rank_analysis *ra)
{
	ra->phase_source = PHASE_SRC_NONE;
	ra->phase_conf = CONF_HIGH;
	static const enum phase_source order[] = {PHASE_SRC_SERVING, PHASE_SRC_STAGE, PHASE_SRC_MSTX, PHASE_SRC_ANNOTATION,
	                                          PHASE_SRC_KERNELS, PHASE_SRC_SHAPES, PHASE_SRC_PAYLOAD,
	                                          PHASE_SRC_CLUSTERS, PHASE_SRC_UNIFORM};
	size_t low = 0;
	for (size_t k = 0; k < ra->n_steps; k++) {
		ra->phase_steps[ra->steps[k].phase_source]++;
		if (ra->steps[k].phase_conf > ra->phase_conf)
			ra->phase_conf = ra->steps[k].phase_conf;
		low += ra->steps[k].phase_conf == CONF_LOW;
	}
	struct sbuf why = SBUF_INIT;
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		size_t n = ra->phase_steps[order[i]];
		if (!n)
			continue;
		if (ra->phase_source == PHASE_SRC_NONE)
			ra->phase_source = order[i];
		sbuf_addf(&why, _("%s%zu step(s) from %s"), why.len ? ", " : "", n,
		          result_phase_source_name(order[i]));
	}
	enum phase_source only = ra->phase_source;
	if (ra->n_steps == 1 || (ra->phase_steps[only] == ra->n_steps &&
	                         (only == PHASE_SRC_CLUSTERS || only == PHASE_SRC_UNIFORM))) {
		/* one sentence speaks for every step */
		sbuf_reset(&why);
		sbuf_adds(&why, ra->steps[0].phase_evidence);
	} else {
		size_t per[PHASE_MIXED + 1] = {0};
		for (size_t k = 0; k < ra->n_steps; k++)
			per[ra->steps[k].phase]++;
		sbuf_addf(&why, _(": %zu prefill, %zu decode, %zu mixed"), per[PHASE_PREFILL], per[PHASE_DECODE],
		          per[PHASE_MIXED]);
		if (per[PHASE_UNKNOWN])
			sbuf_addf(&why, _(", %zu unknown"), per[PHASE_UNKNOWN]);
	}
	if (low && low < ra->n_steps)
		sbuf_addf(&why, _("; %zu of %zu step(s) low confidence"), low, ra->n_steps);
	size_t either = 0; /* steps whose evidence says prompt_or_chunk */
	for (size_t k = 0; k < ra->n_steps; k++)
		either += ra->steps[k].phase_evidence && strstr(ra->steps[k].phase_evidence, _(prompt_or_chunk));
	if (either)
		sbuf_addf(&why, _("; %zu step(s) %s"), either, _(prompt_or_chunk));
	ra->phase_evidence = sbuf_detach(&why);
}

static void training_phases(struct rank_analysis *ra)
{
	memset(ra->phase_steps, 0, sizeof ra->phase_steps);
	for (size_t k = 0; k < ra->n_steps; k++) {
		struct step *s = &ra->steps[k];
		s->phase = PHASE_UNKNOWN;
		s->phase_source = PHASE_SRC_WORKLOAD;
		s->phase_conf = CONF_HIGH;
		free(s->phase_evidence);
		s->phase_evidence = xstrdup(_("a training step: neither prefill nor decode"));
	}
	ra->phase_steps[PHASE_SRC_WORKLOAD] = ra->n_steps;
	ra->phase_source = PHASE_SRC_WORKLOAD;
	ra->phase_conf = CONF_HIGH;
	free(ra->phase_evidence);
	ra->phase_evidence =
	        xasprintf(_("training workload (%s): steps are not prefill or decode"), ra->workload_evidence);
}

void steps_workload_peers(struct rank_analysis *ranks, size_t n)
{
	size_t train = SIZE_MAX, infer = 0;
	for (size_t i = 0; i < n; i++) {
		if (ranks[i].workload == WORKLOAD_TRAINING && train == SIZE_MAX)
			train = i;
		infer += ranks[i].workload == WORKLOAD_INFERENCE;
	}
	if (train == SIZE_MAX || infer)
		return;
	for (size_t i = 0; i < n; i++) {
		struct rank_analysis *ra = &ranks[i];
		if (ra->workload != WORKLOAD_UNKNOWN || ra->has_trace)
			continue; /* a rank with a trace speaks for itself */
		ra->workload = WORKLOAD_TRAINING;
		free(ra->workload_evidence);
		ra->workload_evidence = xasprintf(_("no backward or serving kernels of its own; rank %d of the "
		                                  "same capture trains"),
		                                  ranks[train].rank);
		training_phases(ra);
		/* the peers' word, not this rank's evidence: a folder may hold unrelated captures */
		ra->phase_conf = CONF_MEDIUM;
		for (size_t k = 0; k < ra->n_steps; k++)
			ra->steps[k].phase_conf = CONF_MEDIUM;
		ra->have[M_PREFILL_STEPS] = ra->have[M_DECODE_STEPS] = ra->have[M_MIXED_STEPS] = false;
	}
}

static void analysis_phases(const struct rank_data *rd, const struct serving *sv, struct rank_analysis *ra,
                            struct step_signals *sg)
{
	const struct rank_store *rs = &rd->store;
	find_workload(ra, sg, rd->by_kind[CSV_KERNEL]);
	if (!ra->n_steps) {
		ra->phase_source = PHASE_SRC_NONE;
		ra->phase_conf = CONF_LOW;
		ra->phase_evidence = xstrdup(_("no steps"));
		return;
	}
	if (ra->workload == WORKLOAD_TRAINING) {
		training_phases(ra);
		return;
	}
	struct vote(*v)[SIG_COUNT] = xcalloc(ra->n_steps, sizeof *v);
	struct attn_tally *t = xcalloc(ra->n_steps, sizeof *t);
	votes_from_serving(ra, sv, v);
	votes_from_stage(ra, rd->by_kind[CSV_STEP_TRACE], v);
	if (sg)
		votes_from_ranges(ra, rs, sg, v);
	votes_from_kernels(ra, rs, rd->by_kind[CSV_KERNEL], v, t);
	decide_phases(ra, rs, v, t);
	free(t);
	for (size_t k = 0; k < ra->n_steps; k++)
		for (int g = 0; g < SIG_COUNT; g++)
			free(v[k][g].why);
	free(v);
	phase_summary(ra);
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

/* A rank without a trace: a step per value of the kernel table's Step Id, from its first
 * kernel's start to its last one's end, in time order (values by the table's string ids:
 * linear in the rows however many there are). The spans' ev holds the value's string id. */
static size_t kernel_step_spans(const struct csv_table *kt, struct span **out)
{
	*out = NULL;
	if (!kt || !csvt_has(kt, COL_STEP_ID))
		return 0;
	uint32_t n_ids = strtab_count(kt->strs);
	struct span *by_id = xcalloc(n_ids ? n_ids : 1, sizeof *by_id);
	size_t n = 0;
	for (size_t r = 0; r < kt->nrows; r++) {
		uint32_t id = csvt_str_id(kt, r, COL_STEP_ID);
		const char *s = strtab_str(kt->strs, id);
		int64_t a, d = 0;
		if (!*s || !strcmp(s, "N/A") || !csvt_time(kt, r, COL_START, &a))
			continue;
		if (!csvt_time(kt, r, COL_DURATION, &d) || d < 0)
			d = 0;
		struct span *sp = &by_id[id];
		if (!sp->ev) {
			*sp = (struct span){a, a + d, 1};
			n++;
		}
		sp->start = a < sp->start ? a : sp->start;
		sp->end = a + d > sp->end ? a + d : sp->end;
	}
	*out = xmalloc((n ? n : 1) * sizeof **out);
	n = 0;
	for (uint32_t id = 0; id < n_ids; id++)
		if (by_id[id].ev)
			(*out)[n++] = (struct span){by_id[id].start, by_id[id].end, id};
	free(by_id);
	xqsort(*out, n, sizeof **out, cmp_span);
	return n;
}

void steps_find(const struct capture *cap, size_t ri, struct rank_analysis *ra, struct pending_sets *sets,
		    struct diag_list *dl)
{
	const struct rank_data *rd = &cap->ranks[ri];
	const struct rank_store *rs = &rd->store;
	const struct csv_table *st = rd->by_kind[CSV_STEP_TRACE];
	int64_t win_end = rs->has_events ? rs->window_end : 0;
	struct span *v = NULL;
	size_t n = 0;
	char *why = NULL;

	struct step_signals signals, *sg = NULL;
	if (rs->has_events) {
		sg = &signals;
		signals_gather(rs, ra->cls, sg);
		struct span *marks = NULL;
		/* set aside on request: the steps as a capture without markers would have them */
		size_t nmarks = ra->marker_free ? 0 : mark_spans(sg, &marks);
		if (ra->marker_free)
			st = NULL;
		if (st && st->nrows >= 2 && nmarks == st->nrows) {
			v = marks;
			n = nmarks;
			ra->step_source = STEP_SRC_STEP_TRACE;
			why = xasprintf(_("step_trace_time.csv lists %zu steps; their windows are the trace's "
					"ProfilerStep#N spans"), st->nrows);
		} else if (nmarks >= 1) {
			v = marks;
			n = nmarks;
			ra->step_source = STEP_SRC_PROFILER_STEP;
			why = xasprintf(_("%zu ProfilerStep#N span(s) on the host"), nmarks);
			if (st && st->nrows >= 2)
				diag_add(dl, DIAG_WARN, st->path, 0, -1,
					 _("lists %zu steps but the trace has %zu ProfilerStep#N spans; steps follow "
					   "the trace"), st->nrows, nmarks);
		} else {
			free(marks);
		}
		if (st && st->nrows == 1 && !n)
			diag_add(dl, DIAG_INFO, st->path, 0, -1, "%s",
				 _("one row for the whole capture: it says nothing about engine steps (vLLM "
				   "captures use no profiler schedule); steps come from the trace"));
		if (!n && !ra->marker_free) {
			struct span *e[N_ENGINE];
			size_t ne[N_ENGINE];
			engine_spans(rs, sg, e, ne);
			for (size_t p = 0; p < N_ENGINE; p++) {
				if (!n && ne[p] >= 2) { /* the first pattern with two spans wins */
					v = e[p];
					n = ne[p];
					ra->step_source = STEP_SRC_ENGINE;
					why = xasprintf(_("%zu repeating host spans named like \"%s\""), ne[p],
							engine_patterns[p]);
				} else {
					free(e[p]);
				}
			}
		}
		int64_t thr = 0;
		if (!n && sets && (n = op_sequence(rs, ra->cls, rank_sets_wait(sets), &v, &why)) > 0)
			ra->step_source = STEP_SRC_OP_SEQUENCE;
		if (!n && sets && (n = idle_segments(rank_sets_wait(sets), &v, &thr)) > 0) {
			ra->step_source = STEP_SRC_IDLE_GAPS;
			why = xasprintf(_("device activity split at %zu idle gaps of %.3f ms or more (no step "
					"markers in the trace)"), n - 1, (double)thr / 1e6);
		}
		if (!n) {
			v = xmalloc(sizeof *v);
			v[0] = (struct span){rs->window_start, rs->window_end, UINT32_MAX};
			n = 1;
			ra->step_source = STEP_SRC_WINDOW;
			why = xstrdup(_("no step markers, engine ops or idle-gap structure: the whole window is one step"));
		}
		const char *label = ra->step_source == STEP_SRC_IDLE_GAPS     ? "segment"
		                    : ra->step_source == STEP_SRC_OP_SEQUENCE ? "step"
		                    : ra->step_source == STEP_SRC_WINDOW      ? "window"
		                    : ra->step_source == STEP_SRC_ENGINE      ? "engine step"
		                                                              : NULL;
		set_steps(ra, rs, v, n, label, win_end);
		free(v);
	} else if (st && st->nrows >= 1) {
		steps_from_table(ra, st);
		ra->step_source = STEP_SRC_STEP_TRACE;
		why = xasprintf(_("step_trace_time.csv rows (no trace: durations only)"));
	} else if (sets && (n = kernel_step_spans(rd->by_kind[CSV_KERNEL], &v)) > 0) {
		/* the kernel table's own steps, with windows its timeline and figures share */
		const struct csv_table *kt = rd->by_kind[CSV_KERNEL];
		int64_t end = v[n - 1].end;
		for (size_t i = 0; i < n; i++)
			end = v[i].end > end ? v[i].end : end;
		set_steps(ra, rs, v, n, "Step", end);
		for (size_t i = 0; i < n; i++) {
			free(ra->steps[i].label);
			ra->steps[i].label = xasprintf("Step %s", strtab_str(kt->strs, v[i].ev));
			ra->steps[i].marker_ev = UINT32_MAX;
		}
		free(v);
		ra->step_source = STEP_SRC_KERNEL_STEP;
		why = xasprintf(_("%zu Step Id value(s) in kernel_details.csv (no trace): each step from its first "
				  "kernel's start to its last one's end"), n);
	} else {
		ra->step_source = STEP_SRC_NONE;
		why = xstrdup(_("no trace and no step table"));
	}
	if (rs->has_events && ra->n_steps && ra->steps[0].has_window)
		why = graph_replays(ra, rs, sg, why);
	ra->step_evidence = why;

	analysis_phases(rd, cap->serving, ra, sg);
	if (sg)
		signals_free(sg);
}
