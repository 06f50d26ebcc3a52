/* SPDX-License-Identifier: MIT */
/* Memory tables: peaks per component and module, the device curve, the largest allocations. */
#include "memory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv_table.h"
#include "strtab.h"
#include "xalloc.h"

#define MEM_TOP_ALLOCS 50

/* A size column in MB, from its MB or its KB spelling (Class B writes KB). */
static bool size_mb(const struct csv_table *t, size_t row, enum csv_col mb, enum csv_col kb, double *out)
{
	double v;
	if (csvt_has(t, mb) && csvt_num(t, row, mb, &v)) {
		*out = v;
		return true;
	}
	if (csvt_has(t, kb) && csvt_num(t, row, kb, &v)) {
		*out = v / 1024.0;
		return true;
	}
	return false;
}

static void peak(double *slot, double v)
{
	if (isnan(*slot) || v > *slot)
		*slot = v;
}

static double comp_peak(const struct mem_component *c)
{
	double a = isnan(c->peak_allocated_mb) ? -INFINITY : c->peak_allocated_mb;
	double b = isnan(c->peak_reserved_mb) ? -INFINITY : c->peak_reserved_mb;
	return a > b ? a : b;
}

/* Per-component peaks of a memory_record or npu_module_mem table. */
static size_t components(const struct csv_table *t, struct mem_component **out)
{
	struct mem_component *c = NULL;
	size_t n = 0, cap = 0;
	/* the component of an interned name id, plus one (0: not seen): a table of many
	 * distinct names must not compare each row with every component seen so far */
	uint32_t *of_id = xcalloc((size_t)strtab_count(t->strs) + 1, sizeof *of_id);
	for (size_t r = 0; r < t->nrows; r++) {
		const char *name = csvt_str(t, r, COL_COMPONENT);
		uint32_t id = csvt_str_id(t, r, COL_COMPONENT);
		size_t k = of_id[id] ? of_id[id] - 1 : n;
		if (k == n) {
			of_id[id] = (uint32_t)n + 1;
			xgrow(&c, &cap, n + 1, sizeof *c);
			c[n] = (struct mem_component){.name = name, .peak_allocated_mb = NAN,
						      .peak_reserved_mb = NAN, .peak_active_mb = NAN,
						      .last_reserved_mb = NAN};
			n++;
		}
		struct mem_component *m = &c[k];
		m->samples++;
		double v;
		int64_t ts;
		if (!csvt_time(t, r, COL_TIMESTAMP, &ts))
			ts = 0;
		/* the row of the peak, for drill-down: of allocated memory where the component
		 * has it (the framework allocators), else of reserved (APP, driver modules) */
		if (size_mb(t, r, COL_TOTAL_ALLOCATED_MB, COL_TOTAL_ALLOCATED_KB, &v) &&
		    (isnan(m->peak_allocated_mb) || v > m->peak_allocated_mb)) {
			m->peak_allocated_mb = v;
			m->peak_ts = ts;
			m->peak_row = r;
		}
		if (size_mb(t, r, COL_TOTAL_RESERVED_MB, COL_TOTAL_RESERVED_KB, &v)) {
			m->last_reserved_mb = v;
			if (isnan(m->peak_reserved_mb) || v > m->peak_reserved_mb) {
				m->peak_reserved_mb = v;
				if (isnan(m->peak_allocated_mb)) {
					m->peak_ts = ts;
					m->peak_row = r;
				}
			}
		}
		if (size_mb(t, r, COL_TOTAL_ACTIVE_MB, COL_TOTAL_ACTIVE_KB, &v))
			peak(&m->peak_active_mb, v);
	}
	free(of_id);
	*out = c;
	return n;
}

static int cmp_comp(const void *pa, const void *pb)
{
	double a = comp_peak(pa), b = comp_peak(pb);
	if (a != b)
		return a > b ? -1 : 1;
	return strcmp(((const struct mem_component *)pa)->name, ((const struct mem_component *)pb)->name);
}

static const struct mem_component *find_comp(const struct mem_analysis *m, const char *name)
{
	for (size_t i = 0; i < m->n_comps; i++)
		if (!strcmp(m->comps[i].name, name))
			return &m->comps[i];
	return NULL;
}

/* PTA+GE, PTA and GE are the framework's allocators: what they have allocated moves with the
 * steps. APP is the driver's view of the whole process (reserved only), the fallback. */
static void curve(struct mem_analysis *m)
{
	static const struct { const char *comp; bool reserved; } pref[] = {
		{"PTA+GE", false}, {"PTA", false}, {"GE", false}, {"APP", true}};
	const struct csv_table *t = m->record;
	for (size_t p = 0; p < sizeof pref / sizeof pref[0]; p++) {
		const struct mem_component *c = find_comp(m, pref[p].comp);
		if (!c || isnan(pref[p].reserved ? c->peak_reserved_mb : c->peak_allocated_mb))
			continue;
		enum csv_col mb = pref[p].reserved ? COL_TOTAL_RESERVED_MB : COL_TOTAL_ALLOCATED_MB;
		enum csv_col kb = pref[p].reserved ? COL_TOTAL_RESERVED_KB : COL_TOTAL_ALLOCATED_KB;
		int64_t lo = INT64_MAX, hi = INT64_MIN, ts;
		for (size_t r = 0; r < t->nrows; r++)
			if (!strcmp(csvt_str(t, r, COL_COMPONENT), c->name) && csvt_time(t, r, COL_TIMESTAMP, &ts)) {
				lo = ts < lo ? ts : lo;
				hi = ts > hi ? ts : hi;
			}
		if (lo > hi)
			continue;
		m->curve_component = c->name;
		m->curve_field = pref[p].reserved ? "reserved" : "allocated";
		m->curve_t0 = lo;
		m->curve_t1 = hi;
		m->n_curve = MEM_CURVE_POINTS;
		for (int i = 0; i < m->n_curve; i++)
			m->curve[i] = NAN;
		double span = (double)(hi - lo) + 1.0;
		for (size_t r = 0; r < t->nrows; r++) {
			double v;
			if (strcmp(csvt_str(t, r, COL_COMPONENT), c->name) || !csvt_time(t, r, COL_TIMESTAMP, &ts) ||
			    !size_mb(t, r, mb, kb, &v))
				continue;
			int b = (int)((double)(ts - lo) / span * m->n_curve);
			b = b < 0 ? 0 : b >= m->n_curve ? m->n_curve - 1 : b;
			peak(&m->curve[b], v);
		}
		/* empty buckets hold the level before them: memory stays where it was */
		for (int i = 1; i < m->n_curve; i++)
			if (isnan(m->curve[i]))
				m->curve[i] = m->curve[i - 1];
		return;
	}
}

static int cmp_alloc(const void *pa, const void *pb)
{
	const struct mem_alloc *a = pa, *b = pb;
	if (a->size_mb != b->size_mb)
		return a->size_mb > b->size_mb ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

static void allocations(struct mem_analysis *m)
{
	const struct csv_table *t = m->ops;
	struct mem_alloc *all = xmalloc((t->nrows ? t->nrows : 1) * sizeof *all);
	size_t n = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		double kb;
		if (!csvt_num(t, r, COL_SIZE_KB, &kb))
			continue;
		m->n_allocs++;
		if (kb < 0)
			m->negative_sizes++;
		else
			m->total_alloc_mb += kb / 1024.0;
		struct mem_alloc *a = &all[n++];
		a->name = csvt_str(t, r, COL_NAME);
		a->size_mb = kb / 1024.0;
		a->row = r;
		if (!csvt_time(t, r, COL_ALLOCATION_TIME, &a->alloc_ts))
			a->alloc_ts = INT64_MIN;
		int64_t rel;
		if (csvt_time(t, r, COL_RELEASE_TIME, &rel) && a->alloc_ts != INT64_MIN) {
			a->duration_ns = rel - a->alloc_ts;
		} else {
			a->duration_ns = -1;
			m->never_released++;
		}
	}
	xqsort(all, n, sizeof *all, cmp_alloc);
	m->n_top = n < MEM_TOP_ALLOCS ? n : MEM_TOP_ALLOCS;
	m->top = xrealloc(all, (m->n_top ? m->n_top : 1) * sizeof *all);
}

void memory_analyse(const struct csv_table *record, const struct csv_table *modules,
		    const struct csv_table *ops, struct mem_analysis *m)
{
	memset(m, 0, sizeof *m);
	m->record = record;
	m->modules = modules;
	m->ops = ops;
	if (record) {
		m->record_in_kb = !csvt_has(record, COL_TOTAL_RESERVED_MB) && !csvt_has(record, COL_TOTAL_ALLOCATED_MB);
		m->n_comps = components(record, &m->comps);
		xqsort(m->comps, m->n_comps, sizeof *m->comps, cmp_comp);
		curve(m);
	}
	if (modules) {
		m->modules_in_kb = !csvt_has(modules, COL_TOTAL_RESERVED_MB);
		m->n_mods = components(modules, &m->mods);
		xqsort(m->mods, m->n_mods, sizeof *m->mods, cmp_comp);
	}
	if (ops && csvt_has(ops, COL_SIZE_KB))
		allocations(m);
}

void memory_free(struct mem_analysis *m)
{
	free(m->comps);
	free(m->mods);
	free(m->top);
	memset(m, 0, sizeof *m);
}

double memory_peak_reserved_mb(const struct mem_analysis *m)
{
	const struct mem_component *app = find_comp(m, "APP");
	if (app && !isnan(app->peak_reserved_mb))
		return app->peak_reserved_mb;
	double best = NAN;
	for (size_t i = 0; i < m->n_comps; i++)
		if (!isnan(m->comps[i].peak_reserved_mb))
			peak(&best, m->comps[i].peak_reserved_mb);
	return best;
}

double memory_peak_allocated_mb(const struct mem_analysis *m)
{
	static const char *order[] = {"PTA+GE", "PTA", "GE", "APP"};
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		const struct mem_component *c = find_comp(m, order[i]);
		if (c && !isnan(c->peak_allocated_mb))
			return c->peak_allocated_mb;
	}
	double best = NAN;
	for (size_t i = 0; i < m->n_comps; i++)
		if (!isnan(m->comps[i].peak_allocated_mb))
			peak(&best, m->comps[i].peak_allocated_mb);
	return best;
}
