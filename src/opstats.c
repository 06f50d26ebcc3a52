/* SPDX-License-Identifier: MIT */
/* Op statistics per scope and phase: count, total, avg, p50/p95 (nearest rank), max and
 * share; the trace's totals beside one CSV table's, never added together. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_priv.h"
#include "lanes.h"
#include "num.h"
#include "xalloc.h"
#include "xsort.h"

struct rec {
	int64_t dur;
	const char *name; /* interned: equal names are equal pointers within one source */
	uint8_t scope, phase, cat;
};

/* by scope, then name (equal names are equal pointers), then duration */
#define REC_LESS(x, y)                                                                     \
	((x)->scope != (y)->scope ? (x)->scope < (y)->scope                                \
	 : (x)->name != (y)->name ? (uintptr_t)(x)->name < (uintptr_t)(y)->name : (x)->dur < (y)->dur)
XSORT_DEFINE(sort_recs, struct rec, REC_LESS)

/* The records in groups of one (scope, name), each group by duration: what sorting them all
 * by REC_LESS gives, group order aside, at the cost of a counting sort and small sorts. */
static void group_recs(struct rec *recs, size_t n)
{
	size_t cap = 64;
	while (cap < 2 * n)
		cap *= 2;
	struct slot { const char *name; uint8_t scope; uint32_t group; } *map = xcalloc(cap, sizeof *map);
	uint32_t *group = xmalloc((n ? n : 1) * sizeof *group);
	size_t *count = NULL, n_groups = 0, cap_count = 0;
	for (size_t i = 0; i < n; i++) {
		if (!recs[i].name)
			recs[i].name = ""; /* NULL marks an empty slot below */
		uintptr_t h = ((uintptr_t)recs[i].name >> 3) * 0x9E3779B97F4A7C15ULL + recs[i].scope;
		size_t k = (size_t)(h ^ (h >> 29)) & (cap - 1);
		while (map[k].name && (map[k].name != recs[i].name || map[k].scope != recs[i].scope))
			k = (k + 1) & (cap - 1);
		if (!map[k].name) {
			map[k] = (struct slot){recs[i].name, recs[i].scope, (uint32_t)n_groups};
			xgrow(&count, &cap_count, n_groups + 1, sizeof *count);
			count[n_groups++] = 0;
		}
		group[i] = map[k].group;
		count[group[i]]++;
	}
	size_t at = 0;
	for (size_t g = 0; g < n_groups; g++) {
		size_t c = count[g];
		count[g] = at;
		at += c;
	}
	struct rec *out = xmalloc((n ? n : 1) * sizeof *out);
	for (size_t i = 0; i < n; i++)
		out[count[group[i]]++] = recs[i];
	memcpy(recs, out, n * sizeof *recs);
	for (size_t g = 0, start = 0; g < n_groups; g++) {
		sort_recs(recs + start, count[g] - start);
		start = count[g];
	}
	free(out);
	free(count);
	free(group);
	free(map);
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
	return strcmp(x->name, y->name);
}

static uint8_t phase_at(const struct rank_analysis *ra, int64_t t)
{
	size_t k = analysis_step_at(ra, t);
	return k != SIZE_MAX ? (uint8_t)ra->steps[k].phase : PHASE_UNKNOWN;
}

/* Sums of a CSV table's durations per op name, mapped onto the store's name ids. */
struct csv_totals {
	int64_t *total; /* by store name id; -1 = not in the table */
	const char **type;
	uint32_t n;
	bool present;
};

static void csv_totals_build(const struct rank_store *rs, const struct csv_table *t, enum csv_col dur_col,
			     struct csv_totals *ct)
{
	ct->n = strtab_count(rs->strs);
	ct->total = xmalloc(ct->n * sizeof *ct->total);
	ct->type = xcalloc(ct->n, sizeof *ct->type);
	for (uint32_t i = 0; i < ct->n; i++)
		ct->total[i] = -1;
	ct->present = t != NULL && csvt_has(t, COL_NAME) && csvt_has(t, dur_col);
	if (!ct->present)
		return;
	for (size_t r = 0; r < t->nrows; r++) {
		const char *name = csvt_str(t, r, COL_NAME);
		uint32_t id = strtab_find(rs->strs, name, strlen(name));
		int64_t d;
		if (id == STRTAB_NONE || !csvt_time(t, r, dur_col, &d))
			continue;
		ct->total[id] = num_sat_add(ct->total[id] < 0 ? 0 : ct->total[id], d);
		if (!ct->type[id] && csvt_has(t, COL_TYPE))
			ct->type[id] = csvt_str(t, r, COL_TYPE);
	}
}

static void csv_totals_free(struct csv_totals *ct)
{
	free(ct->total);
	free(ct->type);
}

static void emit_group(struct rank_analysis *ra, size_t *cap, const struct rec *g, size_t n, uint8_t scope,
		       uint8_t phase, const struct csv_totals *ct, const struct strtab *names)
{
	/* g is sorted by dur; a phase subset keeps that order */
	int64_t *d = xmalloc(n * sizeof *d);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (phase == PHASE_UNKNOWN || g[i].phase == phase)
			d[k++] = g[i].dur;
	if (k == 0) {
		free(d);
		return;
	}
	xgrow(&ra->ops, cap, ra->n_ops + 1, sizeof *ra->ops);
	struct op_stat *o = &ra->ops[ra->n_ops++];
	memset(o, 0, sizeof *o);
	o->name = g[0].name;
	o->scope = scope;
	o->phase = phase;
	o->category = g[0].cat;
	o->count = k;
	for (size_t i = 0; i < k; i++)
		o->total_ns = num_sat_add(o->total_ns, d[i]);
	o->min_ns = d[0];
	o->max_ns = d[k - 1];
	o->avg_ns = (double)o->total_ns / (double)k;
	o->p50_ns = analysis_nearest_rank(d, k, 0.5);
	o->p95_ns = analysis_nearest_rank(d, k, 0.95);
	o->csv_total_ns = -1;
	o->deviation_pct = NAN;
	uint32_t id = ct && names ? strtab_find(names, o->name, strlen(o->name)) : STRTAB_NONE;
	if (id != STRTAB_NONE && id < ct->n) {
		if (ct->present && phase == PHASE_UNKNOWN && ct->total[id] >= 0) {
			o->csv_total_ns = ct->total[id];
			if (o->csv_total_ns > 0)
				o->deviation_pct =
					100.0 * (double)(o->total_ns - o->csv_total_ns) / (double)o->csv_total_ns;
		}
		o->type = ct->type[id];
	}
	free(d);
}

/* Instances from the CSV tables themselves, for ranks exported without a trace. */
static size_t csv_records(const struct rank_data *rd, struct rank_analysis *ra, struct rec **out)
{
	const struct csv_table *k = rd->by_kind[CSV_KERNEL], *o = rd->by_kind[CSV_OPERATOR_DETAILS];
	size_t n = 0, cap = 0;
	*out = NULL;
	for (size_t r = 0; k && r < k->nrows; r++) {
		int64_t d;
		if (!csvt_time(k, r, COL_DURATION, &d))
			continue;
		const char *name = csvt_str(k, r, COL_NAME);
		struct ev_class c = category_of(LANE_DEVICE, name, "", csvt_str(k, r, COL_ACCEL_CORE));
		if (c.flags & EVF_WAIT)
			continue;
		xgrow(out, &cap, n + 1, sizeof **out);
		(*out)[n++] = (struct rec){d, name, SCOPE_DEVICE, PHASE_UNKNOWN, c.cat};
	}
	for (size_t r = 0; o && r < o->nrows; r++) {
		int64_t d;
		if (!csvt_time(o, r, COL_HOST_TOTAL, &d))
			continue;
		const char *name = csvt_str(o, r, COL_NAME);
		struct ev_class c = category_of(LANE_HOST_PYTHON, name, "cpu_op", "");
		xgrow(out, &cap, n + 1, sizeof **out);
		(*out)[n++] = (struct rec){d, name, SCOPE_HOST, PHASE_UNKNOWN, c.cat};
	}
	(void)ra;
	return n;
}

void analysis_ops(const struct capture *cap, size_t ri, struct rank_analysis *ra, struct diag_list *dl)
{
	const struct rank_data *rd = &cap->ranks[ri];
	const struct rank_store *rs = &rd->store;
	struct rec *recs = NULL;
	size_t n = 0;
	bool from_csv = !rs->n_ev;
	if (from_csv) {
		n = csv_records(rd, ra, &recs);
	} else {
		recs = xmalloc(rs->n_ev * sizeof *recs);
		for (size_t ev = 0; ev < rs->n_ev; ev++) {
			const struct lane *l = store_ev_lane(rs, ev);
			struct ev_class c = ra->cls[ev];
			uint8_t scope;
			if (l->group == LANE_DEVICE) {
				if (c.flags & EVF_WAIT)
					continue;
				scope = SCOPE_DEVICE;
			} else if (lanes_group_is_host(l->group)) {
				if (c.flags & EVF_STEP_MARK ||
				    !strcmp(store_str(rs, store_ev_attr(rs, ev)->cat), "python_function"))
					continue; /* call-stack frames and step marks are not ops */
				scope = SCOPE_HOST;
			} else {
				continue;
			}
			recs[n++] = (struct rec){store_dur(rs, ev), store_ev_name(rs, ev), scope,
						 phase_at(ra, rs->ev_ts[ev]), c.cat};
		}
	}
	if (n == 0) {
		free(recs);
		return;
	}
	struct csv_totals dev_ct, host_ct;
	csv_totals_build(rs, from_csv ? NULL : rd->by_kind[CSV_KERNEL], COL_DURATION, &dev_ct);
	csv_totals_build(rs, from_csv ? NULL : rd->by_kind[CSV_OPERATOR_DETAILS], COL_HOST_TOTAL, &host_ct);

	size_t cap_ops = 0;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) /* the "all" scope: the same records under one scope */
			for (size_t i = 0; i < n; i++)
				recs[i].scope = SCOPE_ALL;
		group_recs(recs, n);
		for (size_t i = 0; i < n;) {
			size_t j = i;
			while (j < n && recs[j].scope == recs[i].scope && recs[j].name == recs[i].name)
				j++;
			const struct csv_totals *ct = recs[i].scope == SCOPE_DEVICE ? &dev_ct
						      : recs[i].scope == SCOPE_HOST ? &host_ct : NULL;
			for (uint8_t ph = PHASE_UNKNOWN; ph <= PHASE_DECODE; ph++)
				emit_group(ra, &cap_ops, recs + i, j - i, recs[i].scope, ph, ct, rs->strs);
			i = j;
		}
	}
	/* shares of each (scope, phase) total */
	int64_t totals[SCOPE_COUNT][3] = {{0}};
	for (size_t i = 0; i < ra->n_ops; i++)
		totals[ra->ops[i].scope][ra->ops[i].phase] =
			num_sat_add(totals[ra->ops[i].scope][ra->ops[i].phase], ra->ops[i].total_ns);
	for (size_t i = 0; i < ra->n_ops; i++) {
		int64_t t = totals[ra->ops[i].scope][ra->ops[i].phase];
		ra->ops[i].share_pct = t ? 100.0 * (double)ra->ops[i].total_ns / (double)t : 0;
	}
	xqsort(ra->ops, ra->n_ops, sizeof *ra->ops, cmp_op);

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
			 "rank %d: device op time in the trace (%.3f ms) and in this table (%.3f ms) differ by "
			 "more than 20 %%; the table's totals are shown beside the trace's, never added",
			 ra->rank, (double)trace_dev / 1e6, (double)csv_dev / 1e6);
	/* op_statistic and the kernel table describe the same kernels: compare them by type */
	const struct csv_table *os = rd->by_kind[CSV_OP_STATISTIC];
	if (os && kt && csvt_has(os, COL_TOTAL) && csvt_has(kt, COL_TYPE)) {
		int64_t a = 0, b = 0;
		for (size_t r = 0; r < os->nrows; r++) {
			int64_t v;
			if (csvt_time(os, r, COL_TOTAL, &v))
				a = num_sat_add(a, v);
		}
		for (size_t r = 0; r < kt->nrows; r++) {
			int64_t v;
			if (csvt_time(kt, r, COL_DURATION, &v))
				b = num_sat_add(b, v);
		}
		if (b > 0 && fabs((double)a - (double)b) > 0.2 * (double)b)
			diag_add(dl, DIAG_WARN, os->path, 0, -1,
				 "rank %d: op_statistic totals %.3f ms but the kernel table %.3f ms (more than 20 %% "
				 "apart)", ra->rank, (double)a / 1e6, (double)b / 1e6);
	}
	if (from_csv)
		ra->ops_source = xstrdup("kernel table rows (device) and operator_details rows (host): no trace");
	else
		ra->ops_source = xasprintf("trace events; CSV totals from %s (device) and %s (host)",
					   dev_ct.present ? "kernel_details" : "none",
					   host_ct.present ? "operator_details" : "none");
	csv_totals_free(&dev_ct);
	csv_totals_free(&host_ct);
	free(recs);
}
