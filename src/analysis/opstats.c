/* SPDX-License-Identifier: MIT */
/* Op statistics per scope and phase: count, total, avg, p50/p95 (nearest rank), max and
 * share; the trace's totals beside one CSV table's, never added together. */
#include "opstats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "evkind.h"
#include "i18n.h"
#include "lanes.h"
#include "lower_bound.h"
#include "num.h"
#include "stagetime.h"
#include "xalloc.h"
#include "xthread.h"

/* One op instance as it is read, before grouping. */
struct rec {
	int64_t dur;
	uint32_t name; /* index into the grouping's names */
	uint8_t scope, phase, cat;
};

/* Op instances grouped by (scope, name), each group in the order the instances came in.
 * Percentiles are selected in linear time, never sorted for. Names are dense indices (the
 * store's string ids, or the CSV path's own numbering), so the groups come from a counting
 * sort over a table of scopes x names instead of a hash of millions of records: a 1 GB
 * trace's op records used to cost more memory than its whole store. */
struct op_groups {
	size_t n_names;
	const char **names; /* borrowed strings, by name index */
	bool own_names;
	uint32_t *end;   /* per key (scope * n_names + name): one past its last record */
	uint32_t *first; /* per key: the index of its first record as given plus one, 0 when none
			  * (calloc'd: the pages of keys never seen are never written) */
	/* the grouped instances, as two columns: 5 bytes each, 9 when some duration of the rank
	 * does not fit 32 bits (then dur64 is used, dur32 is NULL) */
	uint32_t *dur32;
	int64_t *dur64;
	bool wide;
	uint8_t *tag; /* phase | category << 2 */
	size_t n;
};

static inline __attribute__((always_inline)) size_t group_key(const struct op_groups *g, const struct rec *r)
{
	return (size_t)r->scope * g->n_names + r->name;
}

static size_t group_start(const struct op_groups *g, size_t key)
{
	return key ? g->end[key - 1] : 0;
}

static void groups_init(struct op_groups *g, size_t n_names)
{
	memset(g, 0, sizeof *g);
	g->n_names = n_names;
	size_t keys = (size_t)SCOPE_COUNT * n_names;
	g->end = xcalloc(keys ? keys : 1, sizeof *g->end);
	g->first = xcalloc(keys ? keys : 1, sizeof *g->first);
}

/* The first of two passes over the same records: counts them per key. */
static inline __attribute__((always_inline)) void groups_count(struct op_groups *g, const struct rec *r)
{
	size_t key = group_key(g, r);
	if (!g->first[key])
		g->first[key] = (uint32_t)g->n + 1;
	g->end[key]++;
	if ((uint64_t)r->dur > UINT32_MAX) /* longer than 4.29 s, or negative */
		g->wide = true;
	g->n++;
}

static void groups_place_begin(struct op_groups *g)
{
	size_t keys = (size_t)SCOPE_COUNT * g->n_names, at = 0;
	for (size_t k = 0; k < keys; k++) {
		size_t c = g->end[k];
		g->end[k] = (uint32_t)at; /* the fill cursor; it ends as the group's end */
		at += c;
	}
	if (g->wide)
		g->dur64 = xmalloc((g->n ? g->n : 1) * sizeof *g->dur64);
	else
		g->dur32 = xmalloc((g->n ? g->n : 1) * sizeof *g->dur32);
	g->tag = xmalloc(g->n ? g->n : 1);
}

/* The second pass: the same records in the same order. */
static inline __attribute__((always_inline)) void groups_place(struct op_groups *g, const struct rec *r)
{
	size_t at = g->end[group_key(g, r)]++;
	if (g->dur32)
		g->dur32[at] = (uint32_t)r->dur;
	else
		g->dur64[at] = r->dur;
	g->tag[at] = (uint8_t)(r->phase | r->cat << 2);
}

static void groups_free(struct op_groups *g)
{
	if (g->own_names)
		free(g->names);
	free(g->end);
	free(g->first);
	free(g->dur32);
	free(g->dur64);
	free(g->tag);
}

static int cmp_op(const void *a, const void *b)
{
	const struct op_stat *x = a, *y = b;
	if (x->scope != y->scope)
		return x->scope - y->scope;
	if (x->phase != y->phase)
		return x->phase - y->phase;
	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	int c = strcmp(x->name, y->name);
	return c ? c : analysis_group_cmp(x->group, y->group);
}

static inline __attribute__((always_inline)) uint8_t phase_at(const struct rank_analysis *ra, int64_t t, size_t *hint)
{
	size_t k = analysis_step_at_near(ra, t, hint);
	return k != SIZE_MAX ? (uint8_t)ra->steps[k].phase : PHASE_UNKNOWN;
}

/* Sums of a CSV table's durations per op name, mapped onto the store's name ids. */
struct csv_totals {
	int64_t *total; /* by store name id, where `has` is set; < 0: not in the table */
	uint8_t *has;   /* a bit per store name id: total is set (calloc'd, as total is: only
			 * the pages of the table's names are written) */
	const char **type;
	uint32_t n;
	bool present;
};

/* The table's total of a name, -1 when the table has none. */
static inline int64_t csv_total(const struct csv_totals *ct, uint32_t id)
{
	return ct->has[id / 8] & (1u << id % 8) ? ct->total[id] : -1;
}

static void csv_totals_build(const struct rank_store *rs, const struct csv_table *t, enum csv_col dur_col,
			     struct csv_totals *ct)
{
	ct->n = strtab_count(rs->strs);
	ct->total = xcalloc(ct->n ? ct->n : 1, sizeof *ct->total);
	ct->has = xcalloc(ct->n / 8 + 1, 1);
	ct->type = xcalloc(ct->n ? ct->n : 1, sizeof *ct->type);
	ct->present = t != NULL && csvt_has(t, COL_NAME) && csvt_has(t, dur_col);
	if (!ct->present)
		return;
	/* the store's id of each of the table's names, looked up once per distinct name */
	uint32_t n_csv = strtab_count(t->strs);
	uint32_t *store_id = xmalloc((n_csv ? n_csv : 1) * sizeof *store_id);
	for (uint32_t i = 0; i < n_csv; i++)
		store_id[i] = STRTAB_NONE - 1; /* not looked up yet */
	for (size_t r = 0; r < t->nrows; r++) {
		uint32_t cid = csvt_str_id(t, r, COL_NAME);
		if (cid < n_csv && store_id[cid] == STRTAB_NONE - 1) {
			const char *name = csvt_str(t, r, COL_NAME);
			store_id[cid] = strtab_find(rs->strs, name, strlen(name));
		}
		uint32_t id = cid < n_csv ? store_id[cid] : STRTAB_NONE;
		int64_t d;
		if (id == STRTAB_NONE || !csvt_time(t, r, dur_col, &d))
			continue;
		ct->total[id] = num_sat_add(csv_total(ct, id) < 0 ? 0 : ct->total[id], d);
		ct->has[id / 8] |= (uint8_t)(1u << id % 8);
		if (!ct->type[id] && csvt_has(t, COL_TYPE))
			ct->type[id] = csvt_str(t, r, COL_TYPE);
	}
	free(store_id);
}

static void csv_totals_free(struct csv_totals *ct)
{
	free(ct->total);
	free(ct->has);
	free(ct->type);
}

/* Rows being built (one list per thread, joined in a fixed order). */
struct op_list {
	struct op_stat *ops;
	size_t n, cap;
};

/* The durations of a run of grouped instances, in whichever width they are kept. */
struct durs {
	const uint32_t *narrow;
	const int64_t *wide;
};

static inline int64_t dur_at(struct durs d, size_t i)
{
	return d.narrow ? (int64_t)d.narrow[i] : d.wide[i];
}

static struct durs group_durs(const struct op_groups *g, size_t at)
{
	return (struct durs){g->dur32 ? g->dur32 + at : NULL, g->dur64 ? g->dur64 + at : NULL};
}

/* The category shown for a group: its shortest instance's, the first of equal ones. */
static uint8_t group_category(struct durs dur, const uint8_t *tag, size_t n)
{
	size_t best = 0;
	for (size_t i = 1; i < n; i++)
		if (dur_at(dur, i) < dur_at(dur, best))
			best = i;
	return (uint8_t)(tag[best] >> 2);
}

/* The sum (saturating), least and greatest of a run of durations, gathered as they are
 * copied. */
struct dur_sum {
	int64_t total, lo, hi;
};
#define DUR_SUM_INIT {0, INT64_MAX, INT64_MIN}

static inline void dur_sum_add(struct dur_sum *s, int64_t d)
{
	s->total = num_sat_add(s->total, d);
	s->lo = d < s->lo ? d : s->lo;
	s->hi = d > s->hi ? d : s->hi;
}

/* The median and 95th percentile of d[0..k), k > 0, whose sum they are (d is reordered). */
struct pcts {
	int64_t p50, p95;
};

static struct pcts op_pcts(int64_t *d, size_t k, struct dur_sum sum)
{
	struct pcts p;
	nearest_rank_select2_in(d, k, sum.lo, sum.hi, 0.5, 0.95, &p.p50, &p.p95);
	return p;
}

/* One op row from k > 0 durations: their sum and percentiles. */
static void add_op(struct op_list *out, size_t k, struct dur_sum sum, struct pcts pc, uint8_t category,
		   const char *name, uint32_t store_id, uint8_t scope, uint8_t phase, const struct csv_totals *ct)
{
	int64_t total = sum.total, lo = sum.lo, hi = sum.hi;
	xgrow(&out->ops, &out->cap, out->n + 1, sizeof *out->ops);
	struct op_stat *o = &out->ops[out->n++];
	memset(o, 0, sizeof *o);
	o->name = name;
	o->scope = scope;
	o->phase = phase;
	o->category = category;
	o->count = k;
	o->total_ns = total;
	o->min_ns = lo;
	o->max_ns = hi;
	o->avg_ns = (double)o->total_ns / (double)k;
	o->p50_ns = pc.p50;
	o->p95_ns = pc.p95;
	o->csv_total_ns = -1;
	o->deviation_pct = NAN;
	if (ct && store_id != STRTAB_NONE && store_id < ct->n) {
		if (ct->present && phase == PHASE_UNKNOWN && csv_total(ct, store_id) >= 0) {
			o->csv_total_ns = ct->total[store_id];
			if (o->csv_total_ns > 0)
				o->deviation_pct =
					100.0 * (double)(o->total_ns - o->csv_total_ns) / (double)o->csv_total_ns;
		}
		o->type = ct->type[store_id];
	}
}

/* A buffer the groups of one job reuse: a fresh one per group was pages mapped, faulted in
 * and unmapped again for each big group (tui/main.c's malloc policy). */
struct scratch {
	int64_t *d;
	size_t cap;
};

/* The rows of one group: all its instances, then those of prefill and of decode steps. */
static void emit_group(struct op_list *out, struct scratch *sc, struct durs dur, const uint8_t *tag, size_t n,
		       const char *name, uint32_t store_id, uint8_t scope, const struct csv_totals *ct)
{
	uint8_t category = group_category(dur, tag, n);
	/* every duration once: prefill's at the front, decode's from the end backwards, the
	 * rest between; each phase's percentiles are selected within its part, then all of it */
	if (n > sc->cap) { /* exactly: no more than a buffer per group held at its peak */
		free(sc->d);
		sc->cap = n;
		sc->d = xmalloc(sc->cap * sizeof *sc->d);
	}
	int64_t *d = sc->d;
	size_t prefill = 0, decode = 0;
	for (size_t i = 0; i < n; i++) {
		prefill += (tag[i] & 3) == PHASE_PREFILL;
		decode += (tag[i] & 3) == PHASE_DECODE;
	}
	size_t pw = 0, dw = 0, rest = prefill;
	struct dur_sum all = DUR_SUM_INIT, pre = DUR_SUM_INIT, dec = DUR_SUM_INIT;
	for (size_t i = 0; i < n; i++) {
		int64_t x = dur_at(dur, i);
		dur_sum_add(&all, x);
		if ((tag[i] & 3) == PHASE_PREFILL) {
			d[pw++] = x;
			dur_sum_add(&pre, x);
		} else if ((tag[i] & 3) == PHASE_DECODE) {
			d[n - 1 - dw++] = x;
			dur_sum_add(&dec, x);
		} else {
			d[rest++] = x;
		}
	}
	if (dec.lo < 0) {
		/* a saturating sum is the same in any order only without negative terms: then
		 * decode's, in the order its row reads them (its part runs backwards) */
		dec.total = 0;
		for (size_t i = n - decode; i < n; i++)
			dec.total = num_sat_add(dec.total, d[i]);
	}
	struct pcts pc_pre = {0, 0}, pc_dec = {0, 0};
	if (prefill)
		pc_pre = op_pcts(d, prefill, pre);
	if (decode)
		pc_dec = op_pcts(d + n - decode, decode, dec);
	add_op(out, n, all, op_pcts(d, n, all), category, name, store_id, scope, PHASE_UNKNOWN, ct);
	if (prefill)
		add_op(out, prefill, pre, pc_pre, category, name, store_id, scope, PHASE_PREFILL, ct);
	if (decode)
		add_op(out, decode, dec, pc_dec, category, name, store_id, scope, PHASE_DECODE, ct);
}

/* The "all" scope's rows of a name seen in one scope only: that scope's rows as they are,
 * without the CSV table's figures (the "all" scope has none). */
static void copy_as_all(struct op_list *out, size_t from)
{
	for (size_t i = from, end = out->n; i < end; i++) {
		xgrow(&out->ops, &out->cap, out->n + 1, sizeof *out->ops);
		struct op_stat o = out->ops[i];
		o.scope = SCOPE_ALL;
		o.csv_total_ns = -1;
		o.deviation_pct = NAN;
		o.type = NULL;
		out->ops[out->n++] = o;
	}
}

/* Groups of n records read in one go (names: their names by index, n_names of them). */
static void groups_of_recs(struct op_groups *g, const struct rec *recs, size_t n, size_t n_names)
{
	groups_init(g, n_names);
	g->names = xmalloc((n_names ? n_names : 1) * sizeof *g->names);
	g->own_names = true;
	for (size_t i = 0; i < n; i++)
		groups_count(g, &recs[i]);
	groups_place_begin(g);
	for (size_t i = 0; i < n; i++)
		groups_place(g, &recs[i]);
}

/* The calls of whole collectives, apart from the other ops: their records name their rows'
 * keys, known only once every name has been seen. */
struct coll_calls {
	struct coll_rows rows;
	struct rec *recs;
	int64_t *start; /* each record's start: collectives may overlap, busy is their union */
	size_t n, cap, cap_start;
};

static void coll_call_add(struct coll_calls *cc, int64_t start, int64_t dur, uint32_t key, uint8_t phase)
{
	xgrow(&cc->recs, &cc->cap, cc->n + 1, sizeof *cc->recs);
	xgrow(&cc->start, &cc->cap_start, cc->n + 1, sizeof *cc->start);
	cc->start[cc->n] = start;
	cc->recs[cc->n++] = (struct rec){dur, key, SCOPE_DEVICE, phase, CAT_COMM};
}

static void coll_calls_free(struct coll_calls *cc)
{
	free(cc->recs);
	free(cc->start);
	evkind_coll_rows_free(&cc->rows);
}

/* Instances from the CSV tables themselves, for ranks exported without a trace. A name's
 * index is its string id in the kernel table, or the kernel table's string count plus its id
 * in operator_details: dense, and equal names of one table share it. The kernel table's
 * collectives go to cc, by kind and group. */
static void csv_groups(const struct rank_data *rd, struct op_groups *g, struct coll_calls *cc)
{
	const struct csv_table *k = rd->by_kind[CSV_KERNEL], *o = rd->by_kind[CSV_OPERATOR_DETAILS];
	uint32_t nk = k ? strtab_count(k->strs) : 0, no = o ? strtab_count(o->strs) : 0;
	struct rec *recs = NULL;
	size_t n = 0, cap = 0;
	struct kernel_memo memo = {0};
	for (size_t r = 0; k && r < k->nrows; r++) {
		int64_t d, a;
		if (!csvt_time(k, r, COL_DURATION, &d))
			continue;
		struct ev_class c = evkind_kernel_class(&memo, k, r);
		if (c.flags & EVF_WAIT)
			continue;
		uint32_t name = csvt_str_id(k, r, COL_NAME);
		uint32_t key = c.cat == CAT_COMM ? evkind_coll_row(&cc->rows, name, csvt_str(k, r, COL_NAME)) : UINT32_MAX;
		if (key != UINT32_MAX) {
			coll_call_add(cc, csvt_time(k, r, COL_START, &a) ? a : 0, d, key, PHASE_UNKNOWN);
			continue;
		}
		xgrow(&recs, &cap, n + 1, sizeof *recs);
		recs[n++] = (struct rec){d, name, SCOPE_DEVICE, PHASE_UNKNOWN, c.cat};
	}
	evkind_kernel_memo_free(&memo);
	for (size_t r = 0; o && r < o->nrows; r++) {
		int64_t d;
		if (!csvt_time(o, r, COL_HOST_TOTAL, &d))
			continue;
		const char *name = csvt_str(o, r, COL_NAME);
		struct ev_class c = category_of(LANE_HOST_PYTHON, name, "cpu_op", "");
		xgrow(&recs, &cap, n + 1, sizeof *recs);
		recs[n++] = (struct rec){d, nk + csvt_str_id(o, r, COL_NAME), SCOPE_HOST, PHASE_UNKNOWN, c.cat};
	}
	groups_of_recs(g, recs, n, (size_t)nk + no);
	for (uint32_t i = 0; i < nk; i++)
		g->names[i] = strtab_str(k->strs, i);
	for (uint32_t i = 0; i < no; i++)
		g->names[nk + i] = strtab_str(o->strs, i);
	free(recs);
}

/* What makes an event of a kind (lane and attributes) an op instance: decided once per kind,
 * then per event only its class flags are read. HCCL's group lanes hold whole collectives
 * (evkind.h): instances of their collective rows, as the device lanes' collectives are
 * without group lanes. */
enum kind_rule { KIND_NOT_OP, KIND_DEVICE, KIND_HOST, KIND_COLLECTIVE };

/* Inline, as the helpers of the two passes below: they run once per event. *coll: the
 * key of the event's collective row, UINT32_MAX for the other ops. */
static inline __attribute__((always_inline)) bool trace_op_scope(const struct rank_store *rs,
								  const struct rank_analysis *ra, const uint8_t *rule,
								  struct coll_rows *cr, size_t ev, uint8_t *scope,
								  uint32_t *coll)
{
	*coll = UINT32_MAX;
	switch (rule[rs->ev_kind[ev]]) {
	case KIND_COLLECTIVE:
		*scope = SCOPE_DEVICE;
		*coll = evkind_coll_row(cr, rs->ev_name[ev], store_ev_name(rs, ev));
		return true;
	case KIND_DEVICE:
		*scope = SCOPE_DEVICE;
		if (ra->cls[ev].flags & EVF_WAIT)
			return false;
		if (ra->cls[ev].cat == CAT_COMM && !cr->any_name) /* any_name: they are on group lanes */
			*coll = evkind_coll_row(cr, rs->ev_name[ev], store_ev_name(rs, ev));
		return true;
	case KIND_HOST:
		*scope = SCOPE_HOST;
		return !(ra->cls[ev].flags & EVF_STEP_MARK); /* step marks are not ops */
	default: return false;
	}
}

/* Instances from the trace: two passes over the events (count, then place), so the only
 * per-instance memory is the grouped records themselves. The collectives go to cc. */
static uint8_t *trace_groups_count(const struct rank_store *rs, const struct rank_analysis *ra, struct op_groups *g,
				   struct coll_calls *cc)
{
	uint8_t *rule = xmalloc(rs->n_kinds ? rs->n_kinds : 1);
	for (size_t k = 0; k < rs->n_kinds; k++) {
		const struct lane *l = &rs->lanes[rs->kinds[k].lane];
		/* call-stack frames (python_function) are not ops either */
		bool frame = !strcmp(store_str(rs, rs->attrs[rs->kinds[k].attr].cat), "python_function");
		rule[k] = l->group == LANE_DEVICE		     ? KIND_DEVICE
			  : lanes_group_is_host(l->group) && !frame ? KIND_HOST
			  : cc->rows.any_name && evkind_is_group_lane(rs, l) ? KIND_COLLECTIVE
								       : KIND_NOT_OP;
	}
	uint32_t n_names = strtab_count(rs->strs);
	groups_init(g, n_names);
	g->wide = rs->n_long_durs > 0; /* the count pass below does not read durations */
	g->names = xmalloc((n_names ? n_names : 1) * sizeof *g->names);
	g->own_names = true;
	for (uint32_t i = 0; i < n_names; i++)
		g->names[i] = store_str(rs, i);
	uint8_t scope;
	uint32_t coll;
	for (size_t ev = 0; ev < rs->n_ev; ev++)
		if (trace_op_scope(rs, ra, rule, &cc->rows, ev, &scope, &coll) && coll == UINT32_MAX)
			groups_count(g, &(struct rec){.name = rs->ev_name[ev], .scope = scope});
	groups_place_begin(g);
	return rule;
}

/* The second pass, which reads the steps' phases (rule: trace_groups_count's, freed). */
static void trace_groups_place(const struct rank_store *rs, const struct rank_analysis *ra, struct op_groups *g,
			       uint8_t *rule, struct coll_calls *cc)
{
	uint8_t scope;
	uint32_t coll;
	size_t step_hint = 0;
	for (size_t ev = 0; ev < rs->n_ev; ev++) {
		if (!trace_op_scope(rs, ra, rule, &cc->rows, ev, &scope, &coll))
			continue;
		uint8_t phase = phase_at(ra, store_ts(rs, ev), &step_hint);
		if (coll != UINT32_MAX)
			coll_call_add(cc, store_ts(rs, ev), store_dur(rs, ev), coll, phase);
		else
			groups_place(g, &(struct rec){store_dur(rs, ev), rs->ev_name[ev], scope, phase, ra->cls[ev].cat});
	}
	free(rule);
}

/* The "all" scope of one name: its device and host groups, the group seen first first
 * (the order the category's tie rule reads them in). */
static size_t join_scopes(const struct op_groups *g, uint32_t name, int64_t *dur, uint8_t *tag)
{
	size_t kd = (size_t)SCOPE_DEVICE * g->n_names + name, kh = (size_t)SCOPE_HOST * g->n_names + name;
	size_t first = g->first[kh] - 1u < g->first[kd] - 1u ? kh : kd, second = first == kd ? kh : kd;
	size_t a1 = group_start(g, first), n1 = g->end[first] - a1;
	size_t a2 = group_start(g, second), n2 = g->end[second] - a2;
	for (size_t i = 0; i < n1; i++)
		dur[i] = dur_at(group_durs(g, a1), i);
	for (size_t i = 0; i < n2; i++)
		dur[n1 + i] = dur_at(group_durs(g, a2), i);
	memcpy(tag, g->tag + a1, n1);
	memcpy(tag + n1, g->tag + a2, n2);
	return n1 + n2;
}

/* The rows of the names in [name_from, name_to): each scope's, then the "all" scope's. */
struct emit_job {
	const struct op_groups *g;
	const struct csv_totals *dev_ct, *host_ct;
	bool from_csv;
	uint32_t name_from, name_to;
	struct op_list out;
};

static void *emit_names(void *arg)
{
	struct emit_job *job = arg;
	const struct op_groups *g = job->g;
	size_t widest = 0;
	struct scratch sc = {0};
	for (int scope = SCOPE_DEVICE; scope <= SCOPE_HOST; scope++) {
		const struct csv_totals *ct = scope == SCOPE_DEVICE ? job->dev_ct : job->host_ct;
		size_t other = (size_t)(scope == SCOPE_DEVICE ? SCOPE_HOST : SCOPE_DEVICE) * g->n_names;
		for (uint32_t name = job->name_from; name < job->name_to; name++) {
			size_t key = (size_t)scope * g->n_names + name, at = group_start(g, key), n = g->end[key] - at;
			if (!n)
				continue;
			size_t from = job->out.n, n_other = g->end[other + name] - group_start(g, other + name);
			emit_group(&job->out, &sc, group_durs(g, at), g->tag + at, n, g->names[name],
				   job->from_csv ? STRTAB_NONE : name, (uint8_t)scope, ct);
			if (!n_other)
				copy_as_all(&job->out, from);
			else if (n + n_other > widest)
				widest = n + n_other;
		}
	}
	/* names in both scopes: their instances together */
	int64_t *all_dur = widest ? xmalloc(widest * sizeof *all_dur) : NULL;
	uint8_t *all_tag = widest ? xmalloc(widest) : NULL;
	for (uint32_t name = job->name_from; widest && name < job->name_to; name++) {
		size_t kd = (size_t)SCOPE_DEVICE * g->n_names + name, kh = (size_t)SCOPE_HOST * g->n_names + name;
		if (g->end[kd] == group_start(g, kd) || g->end[kh] == group_start(g, kh))
			continue;
		size_t n = join_scopes(g, name, all_dur, all_tag);
		emit_group(&job->out, &sc, (struct durs){NULL, all_dur}, all_tag, n, g->names[name], STRTAB_NONE,
			   SCOPE_ALL, NULL);
	}
	free(all_dur);
	free(all_tag);
	free(sc.d);
	return NULL;
}

/* The busy time of a collective row: the union of its calls (of its phase). */
static int64_t coll_row_busy(const struct coll_calls *cc, uint32_t key, uint8_t phase)
{
	struct ivset busy;
	ivset_init(&busy);
	for (size_t i = 0; i < cc->n; i++)
		if (cc->recs[i].name == key && (phase == PHASE_UNKNOWN || cc->recs[i].phase == phase))
			ivset_add(&busy, cc->start[i], cc->start[i] + cc->recs[i].dur);
	int64_t t = ivset_total(&busy);
	ivset_free(&busy);
	return t;
}

/* The rows of whole collectives: one row per kind and group (and phase), named by its kind,
 * with its group; busy as the union of its calls (collectives of a group may overlap on
 * their lane). No CSV total beside them: a text export's kernel table lists them, a Db
 * export's does not, and the two must read alike (tests/test_db_identity.sh). */
static void emit_collectives(const struct coll_calls *cc, struct op_list *out)
{
	if (!cc->n)
		return;
	struct op_groups g;
	groups_of_recs(&g, cc->recs, cc->n, cc->rows.n_keys);
	for (size_t k = 0; k < cc->rows.n_keys; k++)
		g.names[k] = cc->rows.keys[k].kind;
	for (uint32_t k = 0; k < cc->rows.n_keys; k++) {
		struct emit_job job = {&g, NULL, NULL, true, k, k + 1, {0}};
		emit_names(&job);
		for (size_t i = 0; i < job.out.n; i++) {
			struct op_stat *o = &job.out.ops[i];
			o->group = cc->rows.keys[k].group;
			o->collective = true;
			o->busy_ns = coll_row_busy(cc, k, o->phase);
		}
		xgrow(&out->ops, &out->cap, out->n + job.out.n, sizeof *out->ops);
		xmemcpy(out->ops + out->n, job.out.ops, job.out.n * sizeof *out->ops);
		out->n += job.out.n;
		free(job.out.ops);
	}
	groups_free(&g);
}

/* The second half of the names on a helper thread: on the thread CPU clock its time is
 * the stage's too (stagetime.h). */
struct emit_helper {
	struct emit_job *job;
	pthread_t caller;
};

static void *emit_names_helper(void *arg)
{
	struct emit_helper *h = arg;
	bool own = stagetime_thread_clock() && !pthread_equal(pthread_self(), h->caller);
	double t0 = own ? stagetime_now() : 0;
	emit_names(h->job);
	if (own)
		stagetime_add(STAGE_OPSTATS, t0);
	return NULL;
}

/* ---- busy time of communication ops ------------------------------------------------- */

/* Calls fn for each device communication task (waits left out), lane by lane. */
static void each_device_comm_event(const struct rank_store *rs, const struct rank_analysis *ra,
				   void (*fn)(void *ctx, uint32_t ev), void *ctx)
{
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *l = &rs->lanes[li];
		if (l->group != LANE_DEVICE)
			continue;
		for (uint32_t k = 0; k < l->n_events; k++) {
			uint32_t ev = l->events[k];
			if (ra->cls[ev].cat == CAT_COMM && !(ra->cls[ev].flags & EVF_WAIT))
				fn(ctx, ev);
		}
	}
}

struct row_ref {
	const char *name; /* the row's name: the store's string */
	uint32_t row;
	uint8_t phase;
};

#define ROW_REF_BEFORE(r, i, k) ((uintptr_t)(r)[i].name < (uintptr_t)(k))
LOWER_BOUND_DEFINE(row_ref_lower_bound, const struct row_ref *, const char *, ROW_REF_BEFORE)

static int cmp_row_ref(const void *a, const void *b)
{
	const struct row_ref *x = a, *y = b;
	/* by address: names are the store's interned strings */
	uintptr_t p = (uintptr_t)x->name, q = (uintptr_t)y->name;
	if (p != q)
		return p < q ? -1 : 1;
	return x->phase - y->phase;
}

struct comm_busy_ctx {
	const struct rank_store *rs;
	const struct rank_analysis *ra;
	const struct row_ref *refs; /* sorted */
	size_t n;
	struct ivset *sets; /* per ref */
	size_t hint;        /* the step search's */
};

/* One instance into its name's all-phases row and the row of its phase. */
static void add_comm_row_instance(void *ctx, uint32_t ev)
{
	struct comm_busy_ctx *c = ctx;
	const char *name = store_str(c->rs, c->rs->ev_name[ev]);
	size_t lo = row_ref_lower_bound(c->refs, name, 0, c->n);
	int64_t a = store_ts(c->rs, ev), b = a + store_dur(c->rs, ev);
	uint8_t phase = lo < c->n && c->refs[lo].name == name ? phase_at(c->ra, a, &c->hint) : PHASE_UNKNOWN;
	for (size_t j = lo; j < c->n && c->refs[j].name == name; j++)
		if (c->refs[j].phase == PHASE_UNKNOWN || c->refs[j].phase == phase)
			ivset_add(&c->sets[j], a, b);
}

/* Device communication ops (SDMA on several planes, collectives' tasks) run in parallel
 * with themselves: their busy time is the union of their instances, per phase row and for
 * all phases, so that their share is not of serial time they never took. */
static void device_comm_busy(const struct rank_store *rs, struct rank_analysis *ra)
{
	struct row_ref *refs = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < ra->n_ops; i++)
		if (ra->ops[i].scope == SCOPE_DEVICE && ra->ops[i].category == CAT_COMM && !ra->ops[i].collective) {
			xgrow(&refs, &cap, n + 1, sizeof *refs);
			refs[n++] = (struct row_ref){ra->ops[i].name, (uint32_t)i, ra->ops[i].phase};
		}
	if (!n)
		return;
	xqsort(refs, n, sizeof *refs, cmp_row_ref);
	struct ivset *sets = xcalloc(n, sizeof *sets);
	for (size_t i = 0; i < n; i++)
		ivset_init(&sets[i]);
	struct comm_busy_ctx c = {rs, ra, refs, n, sets, 0};
	each_device_comm_event(rs, ra, add_comm_row_instance, &c);
	for (size_t i = 0; i < n; i++) {
		if (sets[i].n)
			ra->ops[refs[i].row].busy_ns = ivset_total(&sets[i]);
		ivset_free(&sets[i]);
	}
	free(sets);
	free(refs);
}

/* ---- op types ------------------------------------------------------------------------ */

struct type_ref {
	char *key; /* owned until moved into a row */
	uint32_t op;
};

static int cmp_type_ref(const void *a, const void *b)
{
	const struct type_ref *x = a, *y = b;
	return strcmp(x->key, y->key);
}

static int cmp_type_row(const void *a, const void *b)
{
	const struct op_type_stat *x = a, *y = b;
	if (x->scope != y->scope)
		return x->scope - y->scope;
	if (x->busy_ns != y->busy_ns)
		return x->busy_ns > y->busy_ns ? -1 : 1;
	int c = strcmp(x->name, y->name);
	return c ? c : analysis_group_cmp(x->group, y->group);
}

struct name_type {
	const char *name; /* the op row's name pointer: the store's string */
	uint32_t type;
};

static int cmp_name_type(const void *a, const void *b)
{
	const struct name_type *x = a, *y = b;
	uintptr_t p = (uintptr_t)x->name, q = (uintptr_t)y->name; /* by address: interned strings */
	return p < q ? -1 : p > q;
}

struct type_busy_ctx {
	const struct rank_store *rs;
	const struct name_type *map; /* sorted by name pointer */
	size_t n_map;
	struct ivset *sets; /* per type row */
};

static void add_comm_type_instance(void *ctx, uint32_t ev)
{
	struct type_busy_ctx *c = ctx;
	struct name_type want = {store_str(c->rs, c->rs->ev_name[ev]), 0};
	const struct name_type *hit = bsearch(&want, c->map, c->n_map, sizeof *c->map, cmp_name_type);
	if (hit) {
		int64_t a = store_ts(c->rs, ev);
		ivset_add(&c->sets[hit->type], a, a + store_dur(c->rs, ev));
	}
}

/* Communication types' busy time: the union of their device instances, so that SDMA tasks
 * on parallel planes count once. Trace only (op rows' names are the store's strings). */
static void comm_type_busy(const struct rank_store *rs, const struct rank_analysis *ra, struct op_type_stat *rows,
			   size_t n_rows, struct name_type *map, size_t n_map)
{
	struct ivset *sets = xcalloc(n_rows ? n_rows : 1, sizeof *sets);
	for (size_t i = 0; i < n_rows; i++)
		ivset_init(&sets[i]);
	struct type_busy_ctx c = {rs, map, n_map, sets};
	each_device_comm_event(rs, ra, add_comm_type_instance, &c);
	for (size_t i = 0; i < n_rows; i++) {
		if (sets[i].n)
			rows[i].busy_ns = ivset_total(&sets[i]);
		ivset_free(&sets[i]);
	}
	free(sets);
}

/* Without a trace the kernel table's rows are the device ops: each row of a name takes the
 * Type of the name's first row, so that types group by the Type column as with a trace. */
static void csv_op_types(const struct csv_table *k, struct rank_analysis *ra)
{
	if (!k || !csvt_has(k, COL_TYPE))
		return;
	uint32_t n = strtab_count(k->strs);
	const char **type_of = xcalloc(n ? n : 1, sizeof *type_of);
	for (size_t r = 0; r < k->nrows; r++) {
		uint32_t id = csvt_str_id(k, r, COL_NAME);
		if (id < n && !type_of[id])
			type_of[id] = csvt_str(k, r, COL_TYPE);
	}
	for (size_t i = 0; i < ra->n_ops; i++) {
		struct op_stat *o = &ra->ops[i];
		if (o->scope != SCOPE_DEVICE || o->collective)
			continue;
		uint32_t id = strtab_find(k->strs, o->name, strlen(o->name));
		if (id < n)
			o->type = type_of[id];
	}
	free(type_of);
}

/* The op rows of all phases, device and host, grouped by type key. */
static void op_types(const struct rank_store *rs, struct rank_analysis *ra, bool from_csv)
{
	struct type_ref *refs = NULL;
	size_t n = 0, cap = 0;
	char buf[512];
	for (size_t i = 0; i < ra->n_ops; i++) {
		const struct op_stat *o = &ra->ops[i];
		if (o->phase != PHASE_UNKNOWN || o->scope == SCOPE_ALL)
			continue;
		xgrow(&refs, &cap, n + 1, sizeof *refs);
		/* collectives by type and group: the group after a separator no name holds */
		refs[n++] = (struct type_ref){xasprintf("%c%s%s%s", '0' + o->scope,
							evkind_op_type_key(o->name, o->type, buf, sizeof buf),
							o->group ? "\x1f" : "", o->group ? o->group : ""),
					      (uint32_t)i};
	}
	xqsort(refs, n, sizeof *refs, cmp_type_ref);
	struct op_type_stat *rows = NULL;
	size_t nr = 0, rcap = 0;
	struct name_type *map = xmalloc((n ? n : 1) * sizeof *map);
	size_t n_map = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		xgrow(&rows, &rcap, nr + 1, sizeof *rows);
		struct op_type_stat *t = &rows[nr];
		memset(t, 0, sizeof *t);
		t->scope = (uint8_t)(refs[i].key[0] - '0');
		t->name = xstrndup(refs[i].key + 1, strcspn(refs[i].key + 1, "\x1f"));
		t->group = ra->ops[refs[i].op].group;
		t->category = ra->ops[refs[i].op].category;
		for (; j < n && !strcmp(refs[j].key, refs[i].key); j++) {
			const struct op_stat *o = &ra->ops[refs[j].op];
			t->count += o->count;
			t->total_ns = num_sat_add(t->total_ns, o->total_ns);
			t->busy_ns = num_sat_add(t->busy_ns, o->busy_ns); /* a collective row's own union */
			t->n_names++;
			if (o->category == CAT_COMM && o->scope == SCOPE_DEVICE && !o->collective)
				map[n_map++] = (struct name_type){o->name, (uint32_t)nr};
		}
		for (size_t k = i; k < j; k++)
			free(refs[k].key);
		nr++;
		i = j;
	}
	free(refs);
	if (!from_csv && n_map) {
		xqsort(map, n_map, sizeof *map, cmp_name_type);
		comm_type_busy(rs, ra, rows, nr, map, n_map);
	}
	free(map);
	int64_t sum[SCOPE_COUNT] = {0};
	for (size_t i = 0; i < nr; i++)
		sum[rows[i].scope] = num_sat_add(sum[rows[i].scope], rows[i].busy_ns);
	for (size_t i = 0; i < nr; i++)
		rows[i].share_pct = sum[rows[i].scope] ? 100.0 * (double)rows[i].busy_ns / (double)sum[rows[i].scope] : 0;
	xqsort(rows, nr, sizeof *rows, cmp_type_row);
	ra->op_types = rows;
	ra->n_op_types = nr;
}

struct shape_rec {
	uint64_t key; /* type (or name) string id << 32 | shape string id */
	int64_t dur;  /* the pair's total */
	size_t count; /* its rows */
};

static int cmp_shape_rec(const void *a, const void *b)
{
	const struct shape_rec *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The kernel table's communication Types (its CAT_COMM rows'), each once. */
struct comm_types {
	const char **v; /* borrowed from the table's strings */
	size_t n, cap;
};

static bool comm_types_has(const struct comm_types *ct, const char *type)
{
	for (size_t i = 0; i < ct->n; i++)
		if (!strcmp(ct->v[i], type))
			return true;
	return false;
}

/* Warns when op_statistic and the kernel table, each split into the communication Types'
 * rows and the others, differ by more than 20 % in the others. */
static void opstats_check_op_statistic(int rank, const struct csv_table *os, const struct csv_table *kt,
				       struct diag_list *dl)
{
	struct comm_types ct = {0};
	int64_t k_comm = 0, k_other = 0, s_comm = 0, s_other = 0;
	struct kernel_memo memo = {0};
	for (size_t r = 0; r < kt->nrows; r++) {
		int64_t v;
		if (!csvt_time(kt, r, COL_DURATION, &v))
			continue;
		if (evkind_kernel_class(&memo, kt, r).cat != CAT_COMM) {
			k_other = num_sat_add(k_other, v);
			continue;
		}
		k_comm = num_sat_add(k_comm, v);
		const char *type = csvt_str(kt, r, COL_TYPE);
		if (type && *type && !comm_types_has(&ct, type)) {
			xgrow(&ct.v, &ct.cap, ct.n + 1, sizeof *ct.v);
			ct.v[ct.n++] = type;
		}
	}
	evkind_kernel_memo_free(&memo);
	for (size_t r = 0; r < os->nrows; r++) {
		int64_t v;
		if (!csvt_time(os, r, COL_TOTAL, &v))
			continue;
		const char *type = csvt_str(os, r, COL_TYPE);
		if (type && comm_types_has(&ct, type))
			s_comm = num_sat_add(s_comm, v);
		else
			s_other = num_sat_add(s_other, v);
	}
	free(ct.v);
	if (k_other > 0 && fabs((double)s_other - (double)k_other) > 0.2 * (double)k_other)
		diag_add(dl, DIAG_WARN, os->path, 0, -1,
			 _("rank %d: op_statistic's rows other than communication total %.3f ms but the kernel "
			 "table's %.3f ms (more than 20 %% apart); the communication Types' rows, compared "
			 "apart: %.3f ms and %.3f ms"),
			 rank, (double)s_other / 1e6, (double)k_other / 1e6, (double)s_comm / 1e6, (double)k_comm / 1e6);
}

/* The kernel table's rows grouped by type and input shapes ("MatMulV2 [8,4096;4096,4096]"),
 * as msprof-analyze groups kernels: the same op on other shapes is another row. Rows are
 * grouped by string ids first (16 bytes a row), then the few distinct pairs by their text
 * (names without a Type lose their collective suffixes there). */
static void op_shapes(const struct csv_table *k, struct rank_analysis *ra)
{
	if (!k || !csvt_has(k, COL_INPUT_SHAPES) || !csvt_has(k, COL_DURATION))
		return;
	bool typed = csvt_has(k, COL_TYPE);
	/* the rows summed per pair of string ids through a map (a table of a million rows has
	 * a few hundred pairs; sorting the rows was a third of the op statistics), each pair's
	 * total in row order, then the pairs in id order */
	struct shape_rec *recs = NULL;
	size_t n = 0, n_cap = 0;
	struct u64map at = {0};
	for (size_t r = 0; r < k->nrows; r++) {
		int64_t d;
		if (!csvt_time(k, r, COL_DURATION, &d))
			continue;
		uint64_t what = csvt_str_id(k, r, typed ? COL_TYPE : COL_NAME);
		uint64_t key = what << 32 | csvt_str_id(k, r, COL_INPUT_SHAPES);
		bool found;
		uint32_t *slot = u64map_slot(&at, key, &found);
		if (!found) {
			xgrow(&recs, &n_cap, n + 1, sizeof *recs);
			recs[n] = (struct shape_rec){key, 0, 0};
			*slot = (uint32_t)n++;
		}
		recs[*slot].dur = num_sat_add(recs[*slot].dur, d);
		recs[*slot].count++;
	}
	u64map_free(&at);
	xqsort(recs, n, sizeof *recs, cmp_shape_rec);
	/* one text key per distinct pair, with its count and total */
	struct type_ref *refs = NULL;
	struct op_type_stat *pairs = NULL;
	size_t np = 0, cap = 0, cap2 = 0;
	char buf[512];
	for (size_t i = 0; i < n; i++) {
		const char *what = strtab_str(k->strs, (uint32_t)(recs[i].key >> 32));
		const char *shape = strtab_str(k->strs, (uint32_t)recs[i].key);
		evkind_op_type_key(typed ? "" : what, typed ? what : NULL, buf, sizeof buf);
		xgrow(&refs, &cap, np + 1, sizeof *refs);
		xgrow(&pairs, &cap2, np + 1, sizeof *pairs);
		refs[np] = (struct type_ref){xasprintf("%s [%s]", buf, shape && *shape ? shape : "-"), (uint32_t)np};
		pairs[np] = (struct op_type_stat){.count = recs[i].count, .total_ns = recs[i].dur};
		np++;
	}
	free(recs);
	xqsort(refs, np, sizeof *refs, cmp_type_ref);
	struct op_type_stat *rows = NULL;
	size_t nr = 0, rcap = 0;
	int64_t sum = 0;
	for (size_t i = 0; i < np;) {
		xgrow(&rows, &rcap, nr + 1, sizeof *rows);
		struct op_type_stat *t = &rows[nr++];
		memset(t, 0, sizeof *t);
		t->scope = SCOPE_DEVICE;
		t->name = refs[i].key;
		size_t j = i;
		for (; j < np && !strcmp(refs[j].key, t->name); j++) {
			t->count += pairs[refs[j].op].count;
			t->total_ns = num_sat_add(t->total_ns, pairs[refs[j].op].total_ns);
			t->n_names++;
			if (j > i)
				free(refs[j].key);
		}
		t->busy_ns = t->total_ns;
		sum = num_sat_add(sum, t->total_ns);
		i = j;
	}
	for (size_t i = 0; i < nr; i++)
		rows[i].share_pct = sum ? 100.0 * (double)rows[i].total_ns / (double)sum : 0;
	xqsort(rows, nr, sizeof *rows, cmp_type_row);
	free(refs);
	free(pairs);
	ra->op_shapes = rows;
	ra->n_op_shapes = nr;
}

struct ops_prep {
	struct op_groups g;
	struct coll_calls cc; /* the whole collectives' calls, apart */
	uint8_t *rule; /* the trace's kinds' rules, until the instances are placed */
	bool from_csv;
	struct csv_totals dev_ct, host_ct;
};

struct ops_prep *opstats_prepare(const struct capture *cap, size_t ri, struct rank_analysis *ra)
{
	const struct rank_data *rd = &cap->ranks[ri];
	const struct rank_store *rs = &rd->store;
	struct ops_prep *p = xcalloc(1, sizeof *p);
	p->from_csv = !rs->n_ev;
	ra->op_keys = strtab_new();
	if (p->from_csv) {
		const struct csv_table *k = rd->by_kind[CSV_KERNEL];
		evkind_coll_rows_init(&p->cc.rows, k ? strtab_count(k->strs) : 0, false, ra->op_keys);
		csv_groups(rd, &p->g, &p->cc);
	} else {
		evkind_coll_rows_init(&p->cc.rows, strtab_count(rs->strs), evkind_has_group_lanes(rs), ra->op_keys);
		p->rule = trace_groups_count(rs, ra, &p->g, &p->cc);
	}
	if (p->g.n || p->cc.rows.n_keys) {
		csv_totals_build(rs, p->from_csv ? NULL : rd->by_kind[CSV_KERNEL], COL_DURATION, &p->dev_ct);
		csv_totals_build(rs, p->from_csv ? NULL : rd->by_kind[CSV_OPERATOR_DETAILS], COL_HOST_TOTAL,
				 &p->host_ct);
		op_shapes(rd->by_kind[CSV_KERNEL], ra); /* the kernel table's alone */
	}
	return p;
}

void opstats_finish(const struct capture *cap, size_t ri, struct rank_analysis *ra, struct diag_list *dl,
			 bool threaded, struct ops_prep *p)
{
	const struct rank_data *rd = &cap->ranks[ri];
	const struct rank_store *rs = &rd->store;
	bool from_csv = p->from_csv;
	struct op_groups g = p->g;
	struct coll_calls cc = p->cc;
	if (p->rule)
		trace_groups_place(rs, ra, &g, p->rule, &cc);
	if (g.n == 0 && cc.n == 0) {
		groups_free(&g);
		coll_calls_free(&cc);
		csv_totals_free(&p->dev_ct); /* zeroed when not built */
		csv_totals_free(&p->host_ct);
		free(p);
		return;
	}
	struct csv_totals dev_ct = p->dev_ct, host_ct = p->host_ct;
	free(p);

	/* the names in two halves of about equal instances, the second on a helper thread */
	struct emit_job jobs[2] = {{&g, &dev_ct, &host_ct, from_csv, 0, 0, {0}},
				   {&g, &dev_ct, &host_ct, from_csv, 0, g.n_names, {0}}};
	size_t seen = 0;
	for (uint32_t name = 0; name < g.n_names && seen < g.n / 2; name++, jobs[0].name_to = name)
		for (int scope = SCOPE_DEVICE; scope <= SCOPE_HOST; scope++)
			seen += g.end[(size_t)scope * g.n_names + name] - group_start(&g, (size_t)scope * g.n_names + name);
	jobs[1].name_from = jobs[0].name_to;
	struct xthread helper;
	struct emit_helper eh = {&jobs[1], pthread_self()};
	xthread_start(&helper, emit_names_helper, &eh, threaded);
	emit_names(&jobs[0]);
	xthread_join(&helper);
	struct op_list coll_out = {0};
	emit_collectives(&cc, &coll_out);
	coll_calls_free(&cc);
	size_t cap_ops = 0;
	struct op_list *outs[3] = {&jobs[0].out, &jobs[1].out, &coll_out};
	for (int j = 0; j < 3; j++) {
		if (!outs[j]->n)
			continue; /* a half without rows (one instance in all: fuzz_discover) */
		xgrow(&ra->ops, &cap_ops, ra->n_ops + outs[j]->n, sizeof *ra->ops);
		xmemcpy(ra->ops + ra->n_ops, outs[j]->ops, outs[j]->n * sizeof *ra->ops);
		ra->n_ops += outs[j]->n;
		free(outs[j]->ops);
	}
	for (size_t i = 0; i < ra->n_ops; i++)
		if (!ra->ops[i].collective) /* theirs is set */
			ra->ops[i].busy_ns = ra->ops[i].total_ns;
	if (!from_csv)
		device_comm_busy(rs, ra);
	/* shares of each (scope, phase) busy total */
	int64_t totals[SCOPE_COUNT][3] = {{0}};
	for (size_t i = 0; i < ra->n_ops; i++)
		totals[ra->ops[i].scope][ra->ops[i].phase] =
			num_sat_add(totals[ra->ops[i].scope][ra->ops[i].phase], ra->ops[i].busy_ns);
	for (size_t i = 0; i < ra->n_ops; i++) {
		int64_t t = totals[ra->ops[i].scope][ra->ops[i].phase];
		ra->ops[i].share_pct = t ? 100.0 * (double)ra->ops[i].busy_ns / (double)t : 0;
	}
	xqsort(ra->ops, ra->n_ops, sizeof *ra->ops, cmp_op);
	if (from_csv)
		csv_op_types(rd->by_kind[CSV_KERNEL], ra);
	op_types(rs, ra, from_csv);

	/* the two sides never add up: compare them, warn beyond 20 % */
	int64_t trace_dev = 0, csv_dev = 0;
	for (size_t i = 0; i < ra->n_ops; i++) {
		const struct op_stat *o = &ra->ops[i];
		if (o->scope == SCOPE_DEVICE && o->phase == PHASE_UNKNOWN && o->csv_total_ns >= 0) {
			trace_dev = num_sat_add(trace_dev, o->total_ns);
			csv_dev = num_sat_add(csv_dev, o->csv_total_ns);
		}
	}
	const struct csv_table *kt = rd->by_kind[CSV_KERNEL];
	if (csv_dev > 0 && fabs((double)(trace_dev - csv_dev)) > 0.2 * (double)csv_dev)
		diag_add(dl, DIAG_WARN, kt ? kt->path : NULL, 0, -1,
			 _("rank %d: device op time in the trace (%.3f ms) and in this table (%.3f ms) differ by "
			 "more than 20 %%; the table's totals are shown beside the trace's, never added"),
			 ra->rank, (double)trace_dev / 1e6, (double)csv_dev / 1e6);
	/* op_statistic and the kernel table describe the same kernels, communication (hcom_*)
	 * rows included: compare like with like, the rows of the kernel table's communication
	 * Types apart from the others on both sides */
	const struct csv_table *os = rd->by_kind[CSV_OP_STATISTIC];
	if (os && kt && csvt_has(os, COL_TOTAL) && csvt_has(os, COL_TYPE) && csvt_has(kt, COL_TYPE))
		opstats_check_op_statistic(ra->rank, os, kt, dl);
	if (from_csv)
		ra->ops_source = xstrdup(_("kernel table rows (device) and operator_details rows (host): no trace"));
	else
		ra->ops_source = xasprintf(_("trace events; CSV totals from %s (device) and %s (host)"),
					   dev_ct.present ? "kernel_details" : _("none"),
					   host_ct.present ? "operator_details" : _("none"));
	csv_totals_free(&dev_ct);
	csv_totals_free(&host_ct);
	groups_free(&g);
}
