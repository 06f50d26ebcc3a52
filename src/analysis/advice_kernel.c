/* SPDX-License-Identifier: MIT */
/* The advice rules on kernels and device memory calls (advice.h): block_dim, pipe_bound and
 * dynamic_shape read the kernel table (kernel_details.csv, or the Db's COMPUTE_TASK_INFO
 * with TASK_PMU_INFO built as the same table, so both exports give one finding);
 * memory_ops reads the host calls advice.c's event pass collects. */
#include "advice.h"
#include "advice_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "csv_table.h"
#include "discover.h"
#include "i18n.h"
#include "npu_cores.h"
#include "sbuf.h"
#include "strtab.h"
#include "u64map.h"
#include "xalloc.h"

#define LONG_KERNEL_NS 20000   /* block_dim: a kernel this long is worth a finer split */
#define HEAVY_PCT 1.0          /* pipe_bound: a kernel name with this share of PMU time */
#define PIPE_BOUND 0.8         /* a pipe this busy bounds the kernel */
#define PIPE_IDLE 0.5          /* every pipe under this: bound by none (latency-bound) */
#define SLOW_MEM_CALL_NS 10000000 /* memory_ops: a call of 10 ms and more, named apart */
#define TOP_N 3

/* A host call that allocates or frees device memory; aclrtMallocHost / aclrtFreeHost pin
 * host memory, not the device's allocator. */
static bool is_memory_call(const char *s)
{
	return s && (strstr(s, "aclrtMalloc") || strstr(s, "aclrtFree") || strstr(s, "aclMallocMemInner")) &&
	       !strstr(s, "Host");
}

/* The memory calls on the host lanes (python_function frames wrap real calls: left out),
 * their spans a union, the longest to show; names judged once each. */
static void memory_scan(const struct rank_store *rs, struct hits *h, uint64_t *slow)
{
	uint32_t n_names = strtab_count(rs->strs);
	uint8_t *memo = xcalloc(n_names ? n_names : 1, 1); /* 1 judged, 2 a memory call */
	for (size_t ev = 0; ev < rs->n_ev; ev++) {
		const struct lane *ln = store_ev_lane(rs, ev);
		if (ln->group != LANE_HOST_PYTHON && ln->group != LANE_HOST_CANN)
			continue;
		uint32_t id = rs->ev_name[ev];
		if (!memo[id])
			memo[id] = is_memory_call(store_str(rs, id)) ? 2 : 1;
		const char *cat = store_str(rs, store_ev_attr(rs, ev)->cat);
		if (memo[id] != 2 || (cat && !strcmp(cat, "python_function")))
			continue;
		int64_t ts = store_ts(rs, ev), dur = store_dur(rs, ev);
		ivset_add(&h->spans, ts, ts + dur);
		h->sum_ns += dur;
		*slow += dur >= SLOW_MEM_CALL_NS;
		if (advice_better(rs, (uint32_t)ev, dur, h->count++ ? h->longest : UINT32_MAX, h->longest_ns)) {
			h->longest = (uint32_t)ev;
			h->longest_ns = dur;
		}
	}
	free(memo);
}

/* Device memory calls with the device idle (the exposed part, by host bucket) over the
 * window, on a rank whose host lanes advice_rank found. */
static void memory_ops(const struct rank_store *rs, struct rank_analysis *ra, struct rank_sets *sets)
{
	/* advice_rank said why not applicable (no trace, no host lane), with the other host rules */
	if (ra->advice_status[ADV_MEMORY_OPS] == ADV_STATUS_NOT_APPLICABLE)
		return;
	struct hits x = {0};
	uint64_t slow = 0;
	ivset_init(&x.spans);
	memory_scan(rs, &x, &slow);
	ra->advice_status[ADV_MEMORY_OPS] = ADV_STATUS_CHECKED;
	ra->advice_reason[ADV_MEMORY_OPS] = NULL;
	if (!x.count) {
		ivset_free(&x.spans);
		return;
	}
	const struct attribution *attr = &ra->attr;
	double wall = (double)attr->wall_ns;
	struct advice_finding *f = advice_add_finding(ra, ADV_MEMORY_OPS, &x, NAN);
	advice_exposed(&x, sets, attr, f);
	f->value = wall > 0 ? 100.0 * (double)f->exposed_ns / wall : NAN;
	f->triggered = isfinite(f->value) && f->value >= advice_rules[ADV_MEMORY_OPS].threshold;
	f->total_ns = ivset_total(&x.spans);
	f->share_pct = wall > 0 ? 100.0 * (double)f->total_ns / wall : NAN;
	f->share_of = "the window";
	f->event_ts = store_ts(rs, x.longest);
	f->event_end = f->event_ts + x.longest_ns;
	f->event_name = store_ev_name(rs, x.longest);
	struct sbuf sb = SBUF_INIT;
	sbuf_addf(&sb, _("%llu device memory allocation/free calls, %.3f ms; the longest %.3f ms; exposed %.3f ms "
			 "(%.1f %% of the window)"),
		  (unsigned long long)x.count, (double)f->total_ns / 1e6, (double)x.longest_ns / 1e6,
		  (double)f->exposed_ns / 1e6, f->value);
	advice_in_buckets(&sb, f);
	if (slow)
		sbuf_addf(&sb, _("; %llu of 10 ms and more"), (unsigned long long)slow);
	f->evidence = sbuf_detach(&sb);
	if (f->triggered)
		ra->advice_status[ADV_MEMORY_OPS] = ADV_STATUS_TRIGGERED;
	ivset_free(&x.spans);
}

/* ---- the kernel table ---------------------------------------------------------------- */

enum core_kind { CK_NONE, CK_CUBE, CK_VECTOR };

/* Which cores a kernel row runs on: AI_CORE and MIX_AIC (MIXED_AIC) count its Block Dim in
 * AI Cores, AI_VECTOR_CORE and MIX_AIV in Vector cores; others (AI_CPU, HCCL) none. */
static enum core_kind row_cores(const struct csv_table *k, size_t row)
{
	const char *c = csvt_str(k, row, COL_ACCEL_CORE);
	if (!c)
		return CK_NONE;
	if (!strcmp(c, "AI_CORE") || !strcmp(c, "MIX_AIC") || !strcmp(c, "MIXED_AIC"))
		return CK_CUBE;
	if (!strcmp(c, "AI_VECTOR_CORE") || !strcmp(c, "MIX_AIV") || !strcmp(c, "MIXED_AIV"))
		return CK_VECTOR;
	return CK_NONE;
}

/* The row to show: its line, name and span (a trace's device event at that start, when
 * the rank has one, is what a jump lands on). */
static void show_row(const struct csv_table *k, size_t row, struct advice_finding *f)
{
	int64_t ts, dur;
	f->event = UINT32_MAX;
	f->csv_line = csvt_line(k, row);
	f->event_name = csvt_str(k, row, COL_NAME);
	f->event_ts = f->event_end = INT64_MIN;
	if (csvt_time(k, row, COL_START, &ts) && csvt_time(k, row, COL_DURATION, &dur)) {
		f->event_ts = ts;
		f->event_end = ts + dur;
	}
}

/* The event on a device lane that starts where the row does (the same kernel in the trace). */
static void show_event(const struct rank_store *rs, struct advice_finding *f)
{
	if (!rs || !rs->has_events || f->event_ts == INT64_MIN)
		return;
	for (size_t l = 0; l < rs->n_lanes; l++) {
		const struct lane *ln = &rs->lanes[l];
		if (ln->group != LANE_DEVICE)
			continue;
		for (uint32_t i = 0; i < ln->n_events; i++)
			if (store_ts(rs, ln->events[i]) == f->event_ts && f->event_name &&
			    !strcmp(store_ev_name(rs, ln->events[i]), f->event_name)) {
				f->event = ln->events[i];
				return;
			}
	}
}

/* Per kernel name: its time, and the row of its longest instance. */
struct by_name {
	int64_t ns;
	int64_t longest;
	size_t row;
	double w[5]; /* pipe_bound: Duration-weighted ratios, see pipe_names */
	int64_t w_ns;
};

static void name_add(struct by_name *b, size_t row, int64_t dur)
{
	if (!b->ns && !b->longest)
		b->row = row;
	b->ns += dur;
	if (dur > b->longest) {
		b->longest = dur;
		b->row = row;
	}
}

/* The TOP_N names by time, largest first (ties: the lower id); returns how many. */
static int top_ids(const struct by_name *b, uint32_t n, const bool *want, uint32_t top[TOP_N])
{
	int k = 0;
	for (; k < TOP_N; k++) {
		uint32_t best = UINT32_MAX;
		for (uint32_t i = 0; i < n; i++) {
			bool taken = false;
			for (int j = 0; j < k; j++)
				taken |= top[j] == i;
			if (!taken && b[i].ns > 0 && (!want || want[i]) && (best == UINT32_MAX || b[i].ns > b[best].ns))
				best = i;
		}
		if (best == UINT32_MAX)
			break;
		top[k] = best;
	}
	return k;
}

static void core_text(struct sbuf *sb, int lo, int hi, const char *what)
{
	if (lo == hi)
		sbuf_addf(sb, "%d %s", lo, what);
	else
		sbuf_addf(sb, _("%d to %d %s"), lo, hi, what);
}

/* Returns why it could not judge (no AI Core row with a Block Dim: level 0 writes 0 or
 * N/A, and its Accelerator Core N/A), or NULL. */
static const char *block_dim(const struct csv_table *k, const struct npu_cores *nc, struct rank_analysis *ra)
{
	uint32_t n = strtab_count(k->strs);
	struct by_name *b = xcalloc(n ? n : 1, sizeof *b);
	int64_t all_ns = 0, low_ns = 0;
	uint64_t low_n = 0, with_dim = 0;
	for (size_t row = 0; row < k->nrows; row++) {
		enum core_kind ck = row_cores(k, row);
		int64_t dur;
		double bd = 0;
		if (ck == CK_NONE || !csvt_time(k, row, COL_DURATION, &dur) || dur < 0)
			continue;
		all_ns += dur;
		bool has = csvt_num(k, row, COL_BLOCK_DIM, &bd) && bd > 0;
		with_dim += has;
		int cores = ck == CK_CUBE ? nc->aic_lo : nc->aiv_lo;
		if (dur < LONG_KERNEL_NS || cores <= 0 || !has || bd >= cores)
			continue;
		low_n++;
		low_ns += dur;
		uint32_t id = csvt_str_id(k, row, COL_NAME);
		if (id < n)
			name_add(&b[id], row, dur);
	}
	if (low_n) {
		struct hits h = {.count = low_n};
		struct advice_finding *f = advice_add_finding(ra, ADV_BLOCK_DIM, &h, 100.0 * (double)low_ns / (double)all_ns);
		f->total_ns = low_ns;
		f->share_pct = f->value;
		f->share_of = "AI Core kernels";
		f->bucket = "compute";
		f->conf = CONF_MEDIUM; /* Block Dim is documented as sometimes inexact */
		uint32_t top[TOP_N];
		int nt = top_ids(b, n, NULL, top);
		struct sbuf sb = SBUF_INIT;
		sbuf_addf(&sb, _("%llu kernels of 20 us and more on fewer blocks than the cores, %.3f ms (%.1f %% of the "
				 "AI Core and Vector kernels' time); the device has "),
			  (unsigned long long)low_n, (double)low_ns / 1e6, f->value);
		core_text(&sb, nc->aic_lo, nc->aic_hi, _("AI Cores"));
		if (nc->aiv_lo > 0) {
			sbuf_addf(&sb, ", ");
			core_text(&sb, nc->aiv_lo, nc->aiv_hi, _("Vector cores"));
		}
		sbuf_addf(&sb, " (%s%s%s)", nc->chip[0] ? nc->chip : "", nc->chip[0] ? ", " : "", nc->source);
		for (int j = 0; j < nt; j++) {
			double bd = 0;
			csvt_num(k, b[top[j]].row, COL_BLOCK_DIM, &bd);
			sbuf_addf(&sb, _("%s%s %.3f ms, %.0f blocks"), j ? "; " : _("; top: "), strtab_str(k->strs, top[j]),
				  (double)b[top[j]].ns / 1e6, bd);
		}
		f->evidence = sbuf_detach(&sb);
		show_row(k, b[top[0]].row, f);
	}
	free(b);
	return with_dim ? NULL
			: N_("no Block Dim on the AI Core and Vector kernels (task_time level 0 writes 0 or N/A, "
			     "and N/A as the Accelerator Core)");
}

/* The pipes a PMU row reports, each as the larger of its AI Core and Vector core ratio. */
static const char *const pipe_names[5] = {"cube", "vector", "scalar", "mte2", "mte3"};
static const enum csv_col pipe_cols[5][2] = {
	{COL_AIC_MAC_RATIO, COL_AIV_MAC_RATIO},     {COL_AIV_VEC_RATIO, COL_AIC_VEC_RATIO},
	{COL_AIC_SCALAR_RATIO, COL_AIV_SCALAR_RATIO}, {COL_AIC_MTE2_RATIO, COL_AIV_MTE2_RATIO},
	{COL_AIV_MTE3_RATIO, COL_AIC_MTE3_RATIO},
};

/* A row's pipe ratios (0..1; a percentage is divided); false when none is above 0. */
static bool row_pipes(const struct csv_table *k, size_t row, double r[5])
{
	bool any = false;
	for (int p = 0; p < 5; p++) {
		r[p] = 0;
		for (int c = 0; c < 2; c++) {
			double v;
			if (csvt_has(k, pipe_cols[p][c]) && csvt_num(k, row, pipe_cols[p][c], &v) && v > 0) {
				v = v > 1.5 ? v / 100.0 : v;
				r[p] = v > r[p] ? v : r[p];
				any = true;
			}
		}
	}
	return any; /* every ratio 0 or N/A: not measured, not idle */
}

/* The busiest pipe of a name's weighted ratios. */
static int highest_pipe(const struct by_name *b)
{
	int hi = 0;
	for (int q = 1; q < 5; q++)
		hi = b->w[q] > b->w[hi] ? q : hi;
	return hi;
}

/* The pipe that bounds a name's weighted ratios: its index, -1 for none (latency-bound),
 * -2 when busy but under PIPE_BOUND everywhere. */
static int bound_pipe(const struct by_name *b, double *top)
{
	int best = highest_pipe(b);
	*top = b->w_ns ? b->w[best] / (double)b->w_ns : 0;
	return *top >= PIPE_BOUND ? best : *top < PIPE_IDLE ? -1 : -2;
}

static void pipe_bound(const struct csv_table *k, struct rank_analysis *ra)
{
	uint32_t n = strtab_count(k->strs);
	struct by_name *b = xcalloc(n ? n : 1, sizeof *b);
	int64_t pmu_ns = 0;
	for (size_t row = 0; row < k->nrows; row++) {
		double r[5];
		int64_t dur;
		uint32_t id = csvt_str_id(k, row, COL_NAME);
		if (row_cores(k, row) == CK_NONE || !csvt_time(k, row, COL_DURATION, &dur) || dur <= 0 || id >= n ||
		    !row_pipes(k, row, r))
			continue;
		pmu_ns += dur;
		name_add(&b[id], row, dur);
		for (int p = 0; p < 5; p++)
			b[id].w[p] += r[p] * (double)dur;
		b[id].w_ns += dur;
	}
	if (pmu_ns <= 0) {
		free(b);
		return;
	}
	bool *heavy = xcalloc(n ? n : 1, sizeof *heavy), *latency = xcalloc(n ? n : 1, sizeof *latency);
	int64_t lat_ns = 0;
	uint64_t n_heavy = 0, n_lat = 0;
	for (uint32_t i = 0; i < n; i++) {
		double top;
		if (b[i].ns <= 0 || 100.0 * (double)b[i].ns / (double)pmu_ns < HEAVY_PCT)
			continue;
		heavy[i] = true;
		n_heavy++;
		if (bound_pipe(&b[i], &top) == -1) {
			latency[i] = true;
			n_lat++;
			lat_ns += b[i].ns;
		}
	}
	struct hits h = {.count = n_lat};
	struct advice_finding *f = advice_add_finding(ra, ADV_PIPE_BOUND, &h, 100.0 * (double)lat_ns / (double)pmu_ns);
	f->total_ns = lat_ns;
	f->share_pct = f->value;
	f->share_of = "PMU kernels";
	f->bucket = "compute";
	f->conf = CONF_MEDIUM; /* ratios per kernel name, weighted over its instances */
	struct sbuf sb = SBUF_INIT;
	sbuf_addf(&sb, _("%llu of %llu heavy kernels bound by no pipe (every pipe under 50 %% busy), %.3f ms (%.1f %% "
			 "of the PMU kernels' time)"),
		  (unsigned long long)n_lat, (unsigned long long)n_heavy, (double)lat_ns / 1e6, f->value);
	uint32_t top[TOP_N];
	int nt = top_ids(b, n, heavy, top);
	for (int j = 0; j < nt; j++) {
		double t;
		int p = bound_pipe(&b[top[j]], &t), hi = highest_pipe(&b[top[j]]);
		sbuf_addf(&sb, "%s%s %.3f ms: ", j ? "; " : _("; heaviest: "), strtab_str(k->strs, top[j]),
			  (double)b[top[j]].ns / 1e6);
		if (p >= 0)
			sbuf_addf(&sb, _("%s-bound (%.2f)"), pipe_names[p], t);
		else
			sbuf_addf(&sb, p == -1 ? _("bound by none (highest %s %.2f)") : _("no single pipe (highest %s %.2f)"),
				  pipe_names[hi], t);
	}
	/* the latency-bound ones by name, when the heaviest are not all of them */
	uint32_t lt[TOP_N];
	int nl = top_ids(b, n, latency, lt);
	for (int j = 0; j < nl; j++) {
		double t;
		int hi = highest_pipe(&b[lt[j]]);
		bound_pipe(&b[lt[j]], &t);
		sbuf_addf(&sb, _("%s%s %.3f ms (highest %s %.2f)"), j ? ", " : _("; bound by none: "),
			  strtab_str(k->strs, lt[j]), (double)b[lt[j]].ns / 1e6, pipe_names[hi], t);
	}
	f->event = UINT32_MAX;
	f->event_ts = f->event_end = INT64_MIN;
	if (top_ids(b, n, n_lat ? latency : heavy, lt))
		show_row(k, b[lt[0]].row, f);
	f->evidence = sbuf_detach(&sb);
	free(heavy);
	free(latency);
	free(b);
}

/* The steps a new shape is judged in: their partition windows in start order, each marked
 * when it is the first of its phase (prefill and decode shapes differ by design: each
 * phase's first step is its baseline). */
struct shape_steps {
	int64_t *lo, *hi;
	bool *baseline;
	size_t n;
};

static void shape_steps_init(const struct rank_analysis *ra, struct shape_steps *ss)
{
	memset(ss, 0, sizeof *ss);
	size_t cap = ra->n_steps ? ra->n_steps : 1;
	ss->lo = xcalloc(cap, sizeof *ss->lo);
	ss->hi = xcalloc(cap, sizeof *ss->hi);
	ss->baseline = xcalloc(cap, sizeof *ss->baseline);
	const struct step **order = xcalloc(cap, sizeof *order);
	for (size_t i = 0; i < ra->n_steps; i++)
		if (ra->steps[i].has_window && ra->steps[i].win_end > ra->steps[i].win_start) {
			size_t at = ss->n++;
			while (at > 0 && order[at - 1]->win_start > ra->steps[i].win_start) {
				order[at] = order[at - 1];
				at--;
			}
			order[at] = &ra->steps[i];
		}
	bool phase_seen[PHASE_MIXED + 1] = {false};
	for (size_t i = 0; i < ss->n; i++) {
		ss->lo[i] = order[i]->win_start;
		ss->hi[i] = order[i]->win_end;
		unsigned ph = (unsigned)order[i]->phase <= PHASE_MIXED ? (unsigned)order[i]->phase : PHASE_UNKNOWN;
		ss->baseline[i] = !phase_seen[ph];
		phase_seen[ph] = true;
	}
	free(order);
}

static void shape_steps_free(struct shape_steps *ss)
{
	free(ss->lo);
	free(ss->hi);
	free(ss->baseline);
}

/* Whether a row starting at ts lies in a step after its phase's first: outside every step
 * (before the first, in a gap) it is baseline too. */
static bool after_baseline(const struct shape_steps *ss, int64_t ts)
{
	size_t a = 0, b = ss->n;
	while (a < b) { /* the first step ending after ts */
		size_t m = a + (b - a) / 2;
		if (ss->hi[m] <= ts)
			a = m + 1;
		else
			b = m;
	}
	return a < ss->n && ss->lo[a] <= ts && !ss->baseline[a];
}

/* A shape cell that says nothing: empty, N/A, or only quotes. */
static bool no_shape(const char *s)
{
	if (!s || !strcmp(s, "N/A"))
		return true;
	for (; *s; s++)
		if (*s != '"' && *s != ' ' && *s != ';')
			return false;
	return true;
}

struct op_shapes {
	uint64_t shapes, fresh; /* distinct shapes, of them first seen after the first step */
	int64_t fresh_ns;
	size_t first_fresh; /* the row of its first new shape */
	bool any_fresh;
};

static void dynamic_shape(const struct csv_table *k, struct rank_analysis *ra)
{
	struct shape_steps ss;
	shape_steps_init(ra, &ss);
	uint32_t n = strtab_count(k->strs);
	struct op_shapes *op = xcalloc(n ? n : 1, sizeof *op);
	struct u64map seen = {0};
	uint64_t fresh = 0, n_ops = 0;
	int64_t fresh_ns = 0;
	for (size_t row = 0; row < k->nrows; row++) {
		int64_t ts, dur = 0;
		uint32_t id = csvt_has(k, COL_TYPE) ? csvt_str_id(k, row, COL_TYPE) : 0;
		const char *tn = id ? strtab_str(k->strs, id) : NULL;
		if (!tn || !*tn || !strcmp(tn, "N/A"))
			id = csvt_str_id(k, row, COL_NAME);
		uint32_t sh = csvt_str_id(k, row, COL_INPUT_SHAPES);
		if (row_cores(k, row) == CK_NONE || !id || id >= n || !csvt_time(k, row, COL_START, &ts) ||
		    no_shape(strtab_str(k->strs, sh)))
			continue;
		/* a kernel compiled for dynamic shapes serves a new shape without a compile */
		const char *state = csvt_str(k, row, COL_OP_STATE);
		if (state && !strcasecmp(state, "dynamic"))
			continue;
		bool found;
		uint32_t *slot = u64map_slot(&seen, (uint64_t)id << 32 | sh, &found);
		if (found)
			continue;
		*slot = 1;
		if (!op[id].shapes++)
			n_ops++;
		if (op[id].shapes < 2 || !after_baseline(&ss, ts))
			continue; /* an op's first shape is its first compile, not a compile again */
		csvt_time(k, row, COL_DURATION, &dur);
		fresh++;
		fresh_ns += dur;
		op[id].fresh++;
		op[id].fresh_ns += dur;
		if (!op[id].any_fresh) {
			op[id].any_fresh = true;
			op[id].first_fresh = row;
		}
	}
	u64map_free(&seen);
	shape_steps_free(&ss);
	if (fresh) {
		struct hits h = {.count = fresh};
		struct advice_finding *f = advice_add_finding(ra, ADV_DYNAMIC_SHAPE, &h, (double)fresh);
		f->total_ns = fresh_ns;
		f->share_pct = NAN;
		f->share_of = "the kernels";
		f->bucket = "compute";
		f->conf = CONF_MEDIUM; /* a graph-mode run may recompile for a dynamic kernel too */
		uint64_t n_fresh_ops = 0;
		uint32_t top[TOP_N];
		int nt = 0;
		for (uint32_t i = 0; i < n; i++) {
			if (!op[i].fresh)
				continue;
			n_fresh_ops++;
			/* the ops with the most new shapes, ties by the lower id */
			int at = nt < TOP_N ? nt++ : TOP_N;
			while (at > 0 && op[top[at - 1]].fresh < op[i].fresh) {
				if (at < TOP_N)
					top[at] = top[at - 1];
				at--;
			}
			if (at < TOP_N)
				top[at] = i;
		}
		struct sbuf sb = SBUF_INIT;
		sbuf_addf(&sb, _("%llu input shapes first seen after the first step of their phase, in %llu of %llu operators"),
			  (unsigned long long)fresh, (unsigned long long)n_fresh_ops, (unsigned long long)n_ops);
		for (int j = 0; j < nt; j++)
			sbuf_addf(&sb, _("%s%s %llu new of %llu distinct shapes"), j ? "; " : _("; top: "),
				  strtab_str(k->strs, top[j]), (unsigned long long)op[top[j]].fresh,
				  (unsigned long long)op[top[j]].shapes);
		f->evidence = sbuf_detach(&sb);
		show_row(k, op[top[0]].first_fresh, f);
	}
	free(op);
}

static bool has_pmu(const struct csv_table *k)
{
	for (int p = 0; p < 5; p++)
		for (int c = 0; c < 2; c++)
			if (csvt_has(k, pipe_cols[p][c]))
				for (size_t row = 0; row < k->nrows; row++) {
					double v;
					if (csvt_num(k, row, pipe_cols[p][c], &v) && v > 0)
						return true;
				}
	return false;
}

static void kernel_status(struct rank_analysis *ra, enum advice_rule_id r, const char *reason)
{
	ra->advice_status[r] = reason ? ADV_STATUS_NOT_APPLICABLE : ADV_STATUS_CHECKED;
	ra->advice_reason[r] = reason;
	for (size_t i = 0; i < ra->n_advice; i++)
		if (ra->advice[i].rule == (int)r) {
			ra->advice_status[r] = ra->advice[i].triggered ? ADV_STATUS_TRIGGERED : ADV_STATUS_CHECKED;
			ra->advice_reason[r] = NULL;
		}
}

void advice_kernels(const struct rank_plan *rp, const char *db_path, const struct rank_store *rs,
		    const struct csv_table *k, struct rank_analysis *ra, struct rank_sets *sets)
{
	if (ra->advice_status[ADV_AICPU] == ADV_STATUS_UNKNOWN)
		return; /* the rules did not run on this rank: nor do these */
	memory_ops(rs, ra, sets);
	bool table = k && csvt_has(k, COL_NAME) && csvt_has(k, COL_DURATION) && csvt_has(k, COL_ACCEL_CORE);
	const char *no_table = N_("no kernel table with names, durations and Accelerator Core");
	const char *why_bd = NULL, *why_pipe = NULL, *why_shape = NULL;
	struct npu_cores nc;
	npu_cores_read(rp ? rp->worker_dir : NULL, db_path, &nc);
	if (!table)
		why_bd = why_pipe = why_shape = no_table;
	if (!why_bd && !csvt_has(k, COL_BLOCK_DIM))
		why_bd = N_("no Block Dim (Block Num) column in the kernel table: task_time level 0 leaves it out");
	else if (!why_bd && !nc.known)
		why_bd = nc.chip[0] ? N_("core count unknown: the capture's chip name is not one this tool knows")
				    : N_("core count unknown: the capture records no device info (a PROF_ directory's "
					 "info.json, the Db's NPU_INFO)");
	if (!why_pipe && !has_pmu(k))
		why_pipe = N_("no PMU columns in the kernel table: aic_metrics=PipeUtilization with level 1 or 2 "
			      "adds them");
	size_t windows = 0;
	for (size_t i = 0; i < ra->n_steps; i++)
		windows += ra->steps[i].has_window;
	if (!why_shape && !csvt_has(k, COL_INPUT_SHAPES))
		why_shape = N_("no Input Shapes column in the kernel table: record_shapes=True adds it");
	else if (!why_shape && !csvt_has(k, COL_START))
		why_shape = N_("no start times in the kernel table");
	else if (!why_shape && !csvt_has(k, COL_OP_STATE))
		why_shape = N_("no OP State column in the kernel table: a new shape compiles again only a static "
			       "kernel, and most aclnn kernels are dynamic");
	else if (!why_shape && windows < 2)
		why_shape = N_("fewer than two step windows: new shapes are judged after the first step");
	if (!why_bd)
		why_bd = block_dim(k, &nc, ra);
	if (!why_pipe)
		pipe_bound(k, ra);
	if (!why_shape)
		dynamic_shape(k, ra);
	for (size_t i = 0; i < ra->n_advice; i++) {
		struct advice_finding *f = &ra->advice[i];
		if (f->rule >= ADV_BLOCK_DIM && f->rule <= ADV_DYNAMIC_SHAPE && f->event == UINT32_MAX && f->csv_line)
			show_event(rs, f);
	}
	kernel_status(ra, ADV_BLOCK_DIM, why_bd);
	kernel_status(ra, ADV_PIPE_BOUND, why_pipe);
	kernel_status(ra, ADV_DYNAMIC_SHAPE, why_shape);
}
