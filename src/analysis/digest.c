/* SPDX-License-Identifier: MIT */
/* Digest files (digest.h): one field walk serves the writer and the reader. */
#include "config.h"
#include "digest.h"
#include "moe_types.h"

#include "advice.h"
#include "comm_split.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "cluster.h"
#include "i18n.h"
#include "sbuf.h"
#include "stagetime.h"
#include "strtab.h"
#include "xalloc.h"
#include "xsort.h"

/* ---- the field walk ------------------------------------------------------------------ */

/* A table the memory report names by its path: read back as a stub with the path only. */
static const struct csv_table *io_table(struct dio *d, const struct csv_table *t)
{
	const char *path = dio_s(d, t ? t->path : NULL);
	if (!d->rd || !path)
		return d->rd ? NULL : t;
	struct csv_table *stub = xcalloc(1, sizeof *stub);
	stub->path = (char *)path; /* borrowed from the payload; the stub is never csvt_free'd */
	dio_keep_add(d->keep, stub);
	return stub;
}

static void io_comps(struct dio *d, struct mem_component **pc, size_t *pn, const struct csv_table *t)
{
	size_t n = dio_n(d, *pn, 36);
	struct mem_component *c = dio_array(d, *pc, n, sizeof *c);
	if (d->rd) {
		*pc = c;
		*pn = n;
	}
	for (size_t i = 0; i < n && !d->bad; i++) {
		c[i].name = dio_s(d, c[i].name);
		c[i].samples = dio_u(d, c[i].samples);
		c[i].peak_allocated_mb = dio_d(d, c[i].peak_allocated_mb);
		c[i].peak_reserved_mb = dio_d(d, c[i].peak_reserved_mb);
		c[i].peak_active_mb = dio_d(d, c[i].peak_active_mb);
		c[i].last_reserved_mb = dio_d(d, c[i].last_reserved_mb);
		c[i].peak_ts = dio_i(d, c[i].peak_ts);
		/* the row as its file line: the stub table maps row to line one to one */
		uint64_t line = dio_u(d, !d->rd && t ? csvt_line(t, c[i].peak_row) : c[i].peak_row);
		if (d->rd)
			c[i].peak_row = (size_t)line;
	}
}

static void io_mem(struct dio *d, struct mem_analysis *m)
{
	m->record = io_table(d, m->record);
	m->modules = io_table(d, m->modules);
	m->ops = io_table(d, m->ops);
	m->record_in_kb = dio_b(d, m->record_in_kb);
	m->modules_in_kb = dio_b(d, m->modules_in_kb);
	io_comps(d, &m->comps, &m->n_comps, m->record);
	io_comps(d, &m->mods, &m->n_mods, m->modules);
	m->curve_component = dio_s(d, m->curve_component);
	m->curve_field = dio_s(d, m->curve_field);
	m->n_curve = dio_e(d, m->n_curve, MEM_CURVE_POINTS + 1);
	for (int i = 0; i < m->n_curve; i++)
		m->curve[i] = dio_d(d, m->curve[i]);
	m->curve_t0 = dio_i(d, m->curve_t0);
	m->curve_t1 = dio_i(d, m->curve_t1);
	size_t n = dio_n(d, m->n_top, 12);
	struct mem_alloc *a = dio_array(d, m->top, n, sizeof *a);
	if (d->rd) {
		m->top = a;
		m->n_top = n;
	}
	for (size_t i = 0; i < n && !d->bad; i++) {
		a[i].name = dio_s(d, a[i].name);
		a[i].size_mb = dio_d(d, a[i].size_mb);
		a[i].alloc_ts = dio_i(d, a[i].alloc_ts);
		a[i].duration_ns = dio_i(d, a[i].duration_ns);
		uint64_t line = dio_u(d, !d->rd && m->ops ? csvt_line(m->ops, a[i].row) : a[i].row);
		if (d->rd)
			a[i].row = (size_t)line; /* as for the components: the stub's rows are lines */
	}
	m->n_allocs = dio_u(d, m->n_allocs);
	m->negative_sizes = dio_u(d, m->negative_sizes);
	m->never_released = dio_u(d, m->never_released);
	m->total_alloc_mb = dio_d(d, m->total_alloc_mb);
}

static void io_steps(struct dio *d, struct rank_analysis *ra)
{
	size_t n = dio_n(d, ra->n_steps, 20);
	struct step *s = dio_array(d, ra->steps, n, sizeof *s);
	if (d->rd) {
		ra->steps = s;
		ra->n_steps = n;
	}
	for (size_t i = 0; i < n && !d->bad; i++) {
		struct step *x = &s[i];
		x->index = (int)dio_i(d, x->index);
		x->label = dio_os(d, x->label);
		x->start = dio_i(d, x->start);
		x->end = dio_i(d, x->end);
		x->has_window = dio_b(d, x->has_window);
		x->win_start = dio_i(d, x->win_start);
		x->win_end = dio_i(d, x->win_end);
		x->phase = (enum phase)dio_e(d, x->phase, PHASE_MIXED + 1);
		x->phase_source = (enum phase_source)dio_e(d, x->phase_source, PHASE_SRC_COUNT);
		x->phase_conf = (enum confidence)dio_e(d, x->phase_conf, CONF_LOW + 1);
		x->phase_evidence = dio_os(d, x->phase_evidence);
		if (d->rd) /* writing leaves the analysis as it is (the explorer goes on with it) */
			x->marker_ev = UINT32_MAX; /* no events in a digest */
		x->compute_ns = dio_i(d, x->compute_ns);
		x->comm_not_overlapped_ns = dio_i(d, x->comm_not_overlapped_ns);
		x->free_ns = dio_i(d, x->free_ns);
		x->host_only_ns = dio_i(d, x->host_only_ns);
		x->h2d_ns = dio_i(d, x->h2d_ns);
		x->d2h_ns = dio_i(d, x->d2h_ns);
		x->dispatch_ops = dio_u(d, x->dispatch_ops);
		x->graph_replays = dio_u(d, x->graph_replays);
	}
}

/* Each phase's partition as the sets gave it (phase_verdict.h); its split and verdict are
 * made again with the rank's bottlenecks. After the rank's attribution, whose span and
 * host knowledge it shares. */
static void io_by_phase(struct dio *d, struct rank_analysis *ra)
{
	size_t n = dio_n(d, ra->n_by_phase, 16);
	struct phase_verdict *p = dio_array(d, ra->by_phase, n, sizeof *p);
	if (d->rd) {
		ra->by_phase = p;
		ra->n_by_phase = n;
	}
	for (size_t i = 0; i < n && !d->bad; i++) {
		struct phase_verdict *x = &p[i];
		x->phase = (enum phase)dio_e(d, x->phase, PHASE_MIXED + 1);
		x->training = dio_b(d, x->training);
		x->steps = dio_u(d, x->steps);
		x->p50_ns = dio_i(d, x->p50_ns);
		x->p95_ns = dio_i(d, x->p95_ns);
		x->short_gap_ns = dio_i(d, x->short_gap_ns);
		x->part.wall_ns = dio_i(d, x->part.wall_ns);
		for (int k = 0; k < ATTR_COUNT; k++)
			x->part.ns[k] = dio_i(d, x->part.ns[k]);
		if (d->rd) {
			x->part.valid = true;
			x->part.host_known = ra->attr.host_known;
			x->part.span_lo = ra->attr.span_lo;
			x->part.span_hi = ra->attr.span_hi;
			x->part.comm_split = ra->attr.comm_split;
			x->first = -1;
		}
	}
}

static void io_types(struct dio *d, struct op_type_stat **pt, size_t *pn)
{
	size_t n = dio_n(d, *pn, 15);
	struct op_type_stat *t = dio_array(d, *pt, n, sizeof *t);
	if (d->rd) {
		*pt = t;
		*pn = n;
	}
	for (size_t i = 0; i < n && !d->bad; i++) {
		t[i].name = dio_os(d, t[i].name);
		t[i].group = dio_s(d, t[i].group);
		t[i].scope = (uint8_t)dio_e(d, t[i].scope, SCOPE_COUNT);
		t[i].category = (uint8_t)dio_e(d, t[i].category, CAT_COUNT);
		t[i].count = dio_u(d, t[i].count);
		t[i].n_names = dio_u(d, t[i].n_names);
		t[i].total_ns = dio_i(d, t[i].total_ns);
		t[i].busy_ns = dio_i(d, t[i].busy_ns);
		t[i].share_pct = dio_d(d, t[i].share_pct);
	}
}

static void io_ops(struct dio *d, struct rank_analysis *ra)
{
	size_t n = dio_n(d, ra->n_ops, 30);
	struct op_stat *o = dio_array(d, ra->ops, n, sizeof *o);
	if (d->rd) {
		ra->ops = o;
		ra->n_ops = n;
	}
	for (size_t i = 0; i < n && !d->bad; i++) {
		o[i].name = dio_s(d, o[i].name);
		if (d->rd && !o[i].name)
			o[i].name = "";
		o[i].group = dio_s(d, o[i].group);
		o[i].collective = dio_b(d, o[i].collective);
		o[i].scope = (uint8_t)dio_e(d, o[i].scope, SCOPE_COUNT);
		o[i].phase = (uint8_t)dio_e(d, o[i].phase, PHASE_MIXED + 1);
		o[i].category = (uint8_t)dio_e(d, o[i].category, CAT_COUNT);
		o[i].count = dio_u(d, o[i].count);
		o[i].total_ns = dio_i(d, o[i].total_ns);
		o[i].min_ns = dio_i(d, o[i].min_ns);
		o[i].max_ns = dio_i(d, o[i].max_ns);
		o[i].p50_ns = dio_i(d, o[i].p50_ns);
		o[i].p95_ns = dio_i(d, o[i].p95_ns);
		o[i].avg_ns = dio_d(d, o[i].avg_ns);
		o[i].share_pct = dio_d(d, o[i].share_pct);
		o[i].busy_ns = dio_i(d, o[i].busy_ns);
		o[i].csv_total_ns = dio_i(d, o[i].csv_total_ns);
		o[i].deviation_pct = dio_d(d, o[i].deviation_pct);
		o[i].type = dio_s(d, o[i].type);
	}
	ra->ops_source = dio_os(d, ra->ops_source);
	io_types(d, &ra->op_types, &ra->n_op_types);
	io_types(d, &ra->op_shapes, &ra->n_op_shapes);
}

static void io_metrics(struct dio *d, struct rank_analysis *ra)
{
	/* by key, so a build with more metrics reads an older digest's and leaves the new
	 * ones absent */
	size_t n = dio_n(d, M_COUNT, 12);
	for (size_t i = 0; i < n && !d->bad; i++) {
		const char *key = dio_s(d, i < M_COUNT ? metric_defs[i].key : NULL);
		int m = (int)i;
		if (d->rd) {
			m = -1;
			for (int k = 0; key && k < M_COUNT; k++)
				if (!strcmp(metric_defs[k].key, key)) {
					m = k;
					break;
				}
		}
		double v = dio_d(d, m >= 0 ? ra->v[m] : 0);
		bool have = dio_b(d, m >= 0 && ra->have[m]);
		int conf = dio_e(d, m >= 0 ? (int)ra->conf[m] : 0, CONF_LOW + 1);
		const char *src = dio_s(d, m >= 0 ? ra->source[m] : NULL);
		if (d->rd && m >= 0) {
			ra->v[m] = v;
			ra->have[m] = have;
			ra->conf[m] = (enum confidence)conf;
			ra->source[m] = src;
		}
	}
}

static void io_bottlenecks(struct dio *d, struct rank_analysis *ra)
{
	for (int k = 0; k < BN_COUNT && !d->bad; k++) {
		struct bottleneck *b = &ra->bn[k];
		b->kind = (enum bottleneck_kind)dio_e(d, b->kind, BN_COUNT);
		b->name = dio_s(d, b->name);
		if (d->rd && !b->name)
			b->name = "";
		b->score = (int)dio_i(d, b->score);
		b->bucket_ns = dio_i(d, b->bucket_ns);
		b->insufficient = dio_os(d, b->insufficient);
		size_t n = dio_n(d, b->n_ev, 20);
		struct evidence *e = dio_array(d, b->ev, n, sizeof *e);
		if (d->rd) {
			b->ev = e;
			b->n_ev = n;
		}
		for (size_t i = 0; i < n && !d->bad; i++) {
			e[i].metric = dio_s(d, e[i].metric);
			e[i].value = dio_d(d, e[i].value);
			e[i].threshold = dio_d(d, e[i].threshold);
			e[i].unit = dio_s(d, e[i].unit);
			e[i].triggered = dio_b(d, e[i].triggered);
			e[i].text = dio_os(d, e[i].text);
		}
		b->gain.low_pct = dio_d(d, b->gain.low_pct);
		b->gain.high_pct = dio_d(d, b->gain.high_pct);
		b->gain.conf = (enum confidence)dio_e(d, b->gain.conf, CONF_LOW + 1);
		b->gain.basis = dio_os(d, b->gain.basis);
		b->advice = dio_os(d, b->advice);
	}
	ra->combined_gain_low = dio_d(d, ra->combined_gain_low);
	ra->combined_gain_high = dio_d(d, ra->combined_gain_high);
}

/* Raw bytes with their length (a communication string may hold any byte); read: borrowed
 * from the payload, not NUL-terminated. */
/* The device-idle gaps (gaps.h): the totals by cause and the longest, whose steps index
 * the digest's steps. */
static void io_gaps(struct dio *d, struct rank_analysis *ra)
{
	struct gap_analysis *g = &ra->gaps;
	g->valid = dio_b(d, g->valid);
	g->count = dio_u(d, g->count);
	g->total_ns = dio_i(d, g->total_ns);
	for (int c = 0; c < GAP_CAUSE_COUNT; c++)
		g->by_cause[c] = dio_i(d, g->by_cause[c]);
	for (int h = 0; h < GAP_HOST_COUNT; h++)
		g->no_dispatch_by_host[h] = dio_i(d, g->no_dispatch_by_host[h]);
	g->n_top = (size_t)dio_e(d, (int)g->n_top, GAPS_TOP + 1);
	for (size_t i = 0; i < g->n_top && !d->bad; i++) {
		struct gap *t = &g->top[i];
		t->start = dio_i(d, t->start);
		t->dur = dio_i(d, t->dur);
		t->step = (int32_t)dio_i(d, t->step);
		t->cause = (uint8_t)dio_e(d, t->cause, GAP_CAUSE_COUNT);
		t->host = (uint8_t)dio_e(d, t->host, GAP_HOST_COUNT);
		if (d->rd && (t->step < -1 || (t->step >= 0 && (size_t)t->step >= ra->n_steps)))
			d->bad = true;
	}
}

/* The rank's MoE layer instances (moe.h); their waits are drawn again across the ranks. */
static void io_moe(struct dio *d, struct rank_analysis *ra)
{
	size_t cap = ra->n_moe;
	dio_vec(d, &ra->moe, &ra->n_moe, &cap, 1, sizeof *ra->moe);
	for (size_t i = 0; i < ra->n_moe && !d->bad; i++) {
		struct moe_inst *x = &ra->moe[i];
		x->step = dio_u(d, x->step);
		x->ord = (uint32_t)dio_u(d, x->ord);
		x->tokens = dio_i(d, x->tokens);
		x->tok_src = (uint8_t)dio_e(d, x->tok_src, MOE_TOK_MIXED);
		x->gmm = dio_i(d, x->gmm);
		x->disp = dio_i(d, x->disp);
		x->comb = dio_i(d, x->comb);
		x->has_disp = dio_b(d, x->has_disp);
		x->has_comb = dio_b(d, x->has_comb);
		x->mc2 = dio_b(d, x->mc2);
		x->routed = dio_b(d, x->routed);
		x->ev = (uint32_t)dio_u(d, x->ev);
		x->ts = dio_i(d, x->ts);
		if (d->rd && x->step != UINT64_MAX && x->step >= ra->n_steps)
			d->bad = true;
	}
}

static void io_rank(struct dio *d, struct rank_analysis *ra, struct digest_ident *id, struct coll_inst **pc,
		    size_t *pnc, struct comm_data *cm)
{
	/* identity */
	id->rank = (int)dio_i(d, id->rank);
	id->device_id = (int)dio_i(d, id->device_id);
	id->host = dio_s(d, id->host);
	id->label = dio_s(d, id->label);
	id->capture_path = dio_s(d, id->capture_path);
	id->torch_npu_version = dio_s(d, id->torch_npu_version);
	id->cann_version = dio_s(d, id->cann_version);
	id->trace_bytes = dio_u(d, id->trace_bytes);
	id->t0 = dio_i(d, id->t0);
	id->layout = dio_s(d, id->layout);

	ra->rank = id->rank;
	ra->has_trace = dio_b(d, ra->has_trace);
	ra->has_timeline = dio_b(d, ra->has_timeline);
	ra->t0 = id->t0;
	io_metrics(d, ra);
	ra->step_source = (enum step_source)dio_e(d, ra->step_source, STEP_SRC_KERNEL_STEP + 1);
	ra->step_evidence = dio_os(d, ra->step_evidence);
	ra->phase_source = (enum phase_source)dio_e(d, ra->phase_source, PHASE_SRC_COUNT);
	ra->phase_conf = (enum confidence)dio_e(d, ra->phase_conf, CONF_LOW + 1);
	ra->phase_evidence = dio_os(d, ra->phase_evidence);
	for (int g = 0; g < PHASE_SRC_COUNT; g++)
		ra->phase_steps[g] = dio_u(d, ra->phase_steps[g]);
	ra->workload = (enum workload)dio_e(d, ra->workload, WORKLOAD_TRAINING + 1);
	ra->workload_evidence = dio_os(d, ra->workload_evidence);
	io_steps(d, ra);
	io_ops(d, ra);
	int64_t *lm[4] = {ra->longest_idle, ra->longest_exposed, ra->longest_copy, ra->longest_sync};
	for (int k = 0; k < 4; k++)
		for (int j = 0; j < 2; j++)
			lm[k][j] = dio_i(d, lm[k][j]);

	ra->n_checks = (size_t)dio_e(d, (int)ra->n_checks, 3);
	for (size_t i = 0; i < ra->n_checks && !d->bad; i++) {
		struct crosscheck *c = &ra->checks[i];
		c->source = dio_s(d, c->source);
		c->win_start = dio_i(d, c->win_start);
		c->win_end = dio_i(d, c->win_end);
		for (int k = 0; k < 3; k++) {
			c->theirs[k] = dio_i(d, c->theirs[k]);
			c->ours[k] = dio_i(d, c->ours[k]);
			c->diff_pct[k] = dio_d(d, c->diff_pct[k]);
		}
		c->agree = dio_b(d, c->agree);
		c->explanation = dio_os(d, c->explanation);
	}

	struct attribution *a = &ra->attr;
	a->valid = dio_b(d, a->valid);
	a->host_known = dio_b(d, a->host_known);
	a->wall_ns = dio_i(d, a->wall_ns);
	a->span_lo = dio_i(d, a->span_lo);
	a->span_hi = dio_i(d, a->span_hi);
	size_t nb = dio_n(d, ATTR_COUNT, 1);
	for (size_t k = 0; k < nb; k++) {
		int64_t v = dio_i(d, k < ATTR_COUNT ? a->ns[k] : 0);
		if (k < ATTR_COUNT)
			a->ns[k] = v;
	}
	if (d->rd && nb != ATTR_COUNT)
		d->bad = true;
	a->comm_split = dio_s(d, a->comm_split);
	io_by_phase(d, ra);
	io_bottlenecks(d, ra);
	io_gaps(d, ra);
	io_moe(d, ra);

	for (int m = 0; m < ALIGN_COUNT; m++)
		ra->offset_ns[m] = dio_i(d, ra->offset_ns[m]);
	ra->residual_ns = dio_i(d, ra->residual_ns);
	ra->residual_max_ns = dio_i(d, ra->residual_max_ns);
	ra->matched_collectives = dio_u(d, ra->matched_collectives);
	ra->collective_ok = dio_b(d, ra->collective_ok);
	ra->coll_wait_ns = dio_i(d, ra->coll_wait_ns);
	ra->coll_transfer_ns = dio_i(d, ra->coll_transfer_ns);
	ra->coll_spread_ok = dio_b(d, ra->coll_spread_ok);
	ra->late_rank = (int)dio_i(d, ra->late_rank);
	io_mem(d, &ra->mem);

	/* every rule's status, and why a rule was not applicable */
	for (int k = 0; k < ADV_COUNT; k++) {
		ra->advice_status[k] = (uint8_t)dio_e(d, ra->advice_status[k], ADV_STATUS_COUNT);
		ra->advice_reason[k] = dio_s(d, ra->advice_reason[k]);
	}
	/* the Ascend advice findings (advice.h): their figures and evidence, not their events */
	size_t na = dio_n(d, ra->n_advice, 8);
	struct advice_finding *av = dio_array(d, ra->advice, na, sizeof *av);
	if (d->rd) {
		ra->advice = av;
		ra->n_advice = na;
	}
	for (size_t i = 0; i < na && !d->bad; i++) {
		struct advice_finding *f = &av[i];
		f->rule = dio_e(d, f->rule, ADV_COUNT);
		f->triggered = dio_b(d, f->triggered);
		f->value = dio_d(d, f->value);
		f->count = dio_u(d, f->count);
		f->total_ns = dio_i(d, f->total_ns);
		f->share_pct = dio_d(d, f->share_pct);
		f->share_of = dio_s(d, f->share_of);
		f->exposed_ns = dio_i(d, f->exposed_ns);
		for (int k = 0; k < 4; k++)
			f->host_ns[k] = dio_i(d, f->host_ns[k]);
		f->bucket = dio_s(d, f->bucket);
		if (d->rd)
			f->event = UINT32_MAX; /* no events to show from a digest */
		f->event_ts = dio_i(d, f->event_ts);
		f->event_end = dio_i(d, f->event_end);
		f->event_name = dio_s(d, f->event_name);
		f->csv_line = (uint32_t)dio_u(d, f->csv_line);
		f->conf = (enum confidence)dio_e(d, (int)f->conf, 3);
		f->evidence = dio_os(d, f->evidence);
	}

	size_t nc = dio_n(d, *pnc, 3);
	struct coll_inst *c = dio_array(d, *pc, nc, sizeof *c);
	if (d->rd) {
		*pc = c;
		*pnc = nc;
	}
	for (size_t i = 0; i < nc && !d->bad; i++) {
		c[i].name = dio_s(d, c[i].name);
		if (d->rd && !c[i].name)
			c[i].name = "";
		c[i].end = dio_i(d, c[i].end);
		c[i].dur = dio_i(d, c[i].dur);
		c[i].bytes = dio_d(d, c[i].bytes);
		c[i].exposed = dio_i(d, c[i].exposed);
		c[i].before = (uint8_t)dio_e(d, c[i].before, BEFORE_COUNT);
		if (d->rd) { /* across the ranks: computed again over every digest */
			c[i].skew = -1;
			c[i].shared = 0;
			c[i].last = -1;
			c[i].event = UINT32_MAX;
		}
	}
	dio_comm(d, cm);
	if (d->rd && d->p != d->end)
		d->bad = true;
}

/* ---- writing ------------------------------------------------------------------------- */

static uint64_t rank_trace_bytes(const struct rank_data *rd)
{
	return rd->trace_bytes_total;
}

/* Rank i of an analysis as a whole digest file in memory (header and payload; owned,
 * *len bytes). */
static char *digest_encode(const struct analysis *an, size_t i, const char *host, size_t *len)
{
	const struct rank_analysis *ra = &an->ranks[i];
	const struct rank_data *rd = &an->cap->ranks[ra->rank_index];
	const struct rank_plan *rp = rd->plan;
	char *abs = realpath(rp->output_dir ? rp->output_dir : an->cap->plan.path, NULL);
	struct digest_ident id = {
		.rank = ra->rank,
		.device_id = rp->device_id,
		.host = host,
		.label = rp->label,
		.capture_path = abs ? abs : (rp->output_dir ? rp->output_dir : an->cap->plan.path),
		.torch_npu_version = rp->info.torch_npu_version,
		.cann_version = rp->info.cann_version,
		.trace_bytes = rank_trace_bytes(rd),
		.t0 = ra->t0,
	};
	char *layout = parallel_groups_format(rp->par_groups, rp->n_par_groups);
	id.layout = layout;
	struct dio d = {.rd = false, .seen = strtab_new()};
	digest_file_begin(&d.out);
	struct coll_inst *colls = an->colls ? an->colls[i] : NULL;
	size_t nc = an->n_colls ? an->n_colls[i] : 0;
	/* a split drawn from the peers digested in this run is undone: the reader splits again
	 * over every digest (the ranks of other nodes included) */
	struct rank_analysis w = *ra;
	if (w.attr.valid) { /* the split reads the collectives and communication.json kept below */
		comm_split_merge(&w.attr);
		w.attr.comm_split = "none: no communication.json and no peer ranks";
	}
	io_rank(&d, &w, &id, &colls, &nc, (struct comm_data *)&rd->comm);
	digest_file_seal(d.out.buf, d.out.len);
	strtab_free(d.seen);
	free(d.seq);
	free(abs);
	free(layout);
	*len = d.out.len;
	return sbuf_detach(&d.out);
}

int digest_write(const struct analysis *an, size_t i, const char *outdir, struct diag_list *dl, uint64_t *bytes_out)
{
	const struct rank_analysis *ra = &an->ranks[i];
	const struct rank_plan *rp = an->cap->ranks[ra->rank_index].plan;
	char host[256] = "";
	digest_file_host(host, sizeof host);
	size_t len;
	char *buf = digest_encode(an, i, host, &len);
	int rc = digest_file_write(outdir, ra->rank, rp->device_id, host, buf, len, dl);
	if (rc == 0 && bytes_out)
		*bytes_out = len;
	free(buf);
	return rc;
}

/* ---- reading ------------------------------------------------------------------------- */

int digest_parse(char *buf, size_t len, struct digest_keep *keep, struct rank_analysis *ra, struct digest_ident *id,
		 struct coll_inst **colls, size_t *n_colls, struct comm_data *comm, struct sbuf *why)
{
	if (digest_file_check(buf, len, why))
		return -1;
	memset(ra, 0, sizeof *ra);
	ra->late_rank = -1;
	ra->aligned_via = -1;
	memset(id, 0, sizeof *id);
	*colls = NULL;
	*n_colls = 0;
	memset(comm, 0, sizeof *comm);
	struct dio d = {.rd = true, .p = buf + DIGEST_HEADER, .end = buf + len, .keep = keep};
	io_rank(&d, ra, id, colls, n_colls, comm);
	free(d.strs);
	if (d.bad) {
		result_rank_free(ra);
		free(*colls);
		*colls = NULL;
		*n_colls = 0;
		comm_data_free(comm);
		sbuf_addf(why, _("the payload does not follow the version %u layout"), DIGEST_VERSION);
		return -1;
	}
	return 0;
}

/* ---- a directory of digests ---------------------------------------------------------- */

struct loaded {
	struct rank_analysis ra;
	struct digest_ident id;
	struct coll_inst *colls;
	size_t n_colls;
	struct comm_data comm; /* moved into the capture's rank */
	char *path;
	bool drop;
};

static int cmp_loaded(const void *a, const void *b)
{
	const struct loaded *x = a, *y = b;
	if (x->ra.rank != y->ra.rank)
		return x->ra.rank < y->ra.rank ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Ranks of one run start within minutes of each other; a gap of more than this between
 * the sorted first-event times splits the digests into runs. */
#define RUN_GAP_NS (10LL * 60 * 1000000000)

static int cmp_i64p(const void *a, const void *b)
{
	int64_t x = **(int64_t *const *)a, y = **(int64_t *const *)b;
	return x < y ? -1 : x > y;
}

/* Keeps the largest run (the latest of equal ones) and marks the others dropped. A rank
 * without a timeline (figures from step_trace_time.csv only) has no first event to tell
 * its run by: it stays. */
static void keep_one_run(struct loaded *L, size_t all, struct diag_list *dl)
{
	int64_t **t = xmalloc((all ? all : 1) * sizeof *t);
	size_t n = 0;
	for (size_t i = 0; i < all; i++)
		if (L[i].ra.has_timeline)
			t[n++] = &L[i].id.t0;
	if (n < 2) {
		free(t);
		return;
	}
	xqsort(t, n, sizeof *t, cmp_i64p);
	size_t best0 = 0, bestn = 0, start = 0, runs = 0;
	for (size_t i = 1; i <= n; i++) {
		if (i < n && *t[i] - *t[i - 1] <= RUN_GAP_NS)
			continue;
		runs++;
		if (i - start >= bestn) {
			bestn = i - start;
			best0 = start;
		}
		start = i;
	}
	if (runs > 1) {
		int64_t lo = *t[best0], hi = *t[best0 + bestn - 1];
		for (size_t i = 0; i < all; i++) {
			if (!L[i].ra.has_timeline || (L[i].id.t0 >= lo && L[i].id.t0 <= hi))
				continue;
			L[i].drop = true;
			diag_add(dl, DIAG_ERROR, L[i].path, -1, -1,
				 _("rank %d is from another run (it started %.0f s from the %zu ranks kept; "
				   "ranks of one run start within %lld minutes); left out"),
				 L[i].ra.rank, (double)(L[i].id.t0 - lo) / 1e9, bestn, RUN_GAP_NS / 60000000000LL);
		}
	}
	free(t);
}

struct analysis *digest_read_dir(const char *path, struct capture *beside, const struct analysis *beside_an)
{
	struct capture *cap = xcalloc(1, sizeof *cap);
	diag_init(&cap->diags);
	cap->plan.path = xstrdup(path);
	struct analysis *an = xcalloc(1, sizeof *an);
	an->cap = cap;
	an->from_digests = true;
	an->keep = dio_keep_new();
	an->keep_free = dio_keep_free;
	diag_init(&an->diags);

	double t0 = stagetime_now();
	size_t nf;
	char **files = digest_file_list(path, &nf);
	struct loaded *L = xcalloc(nf ? nf : 1, sizeof *L);
	size_t n = 0;
	for (size_t i = 0; i < nf; i++) {
		struct sbuf why = SBUF_INIT;
		size_t len = 0;
		char *buf = digest_file_read(files[i], &len, &why);
		struct loaded *x = &L[n];
		if (buf && digest_parse(buf, len, an->keep, &x->ra, &x->id, &x->colls, &x->n_colls, &x->comm, &why) == 0) {
			dio_keep_add(an->keep, buf);
			x->path = files[i];
			n++;
			sbuf_free(&why);
			continue;
		}
		free(buf);
		diag_add(&cap->diags, DIAG_ERROR, files[i], -1, -1, _("%s; left out"), why.buf ? why.buf : "");
		sbuf_free(&why);
		free(files[i]);
	}
	free(files);
	t0 = stagetime_add(STAGE_DIGEST, t0);
	/* captures beside the digests (analysed by the driver), read through the same
	 * encoding, so every rank is held alike */
	if (nf && beside_an) {
		const struct analysis *ma = beside_an;
		char host[256];
		digest_file_host(host, sizeof host);
		L = xrealloc(L, (nf + ma->n_ranks) * sizeof *L);
		for (size_t r = 0; r < ma->n_ranks; r++) {
			struct sbuf why = SBUF_INIT;
			size_t len;
			char *buf = digest_encode(ma, r, host, &len);
			struct loaded *x = &L[n];
			memset(x, 0, sizeof *x);
			int bad = digest_parse(buf, len, an->keep, &x->ra, &x->id, &x->colls, &x->n_colls, &x->comm, &why);
			sbuf_free(&why);
			if (bad) {
				free(buf); /* cannot happen: the same walk wrote it */
				continue;
			}
			dio_keep_add(an->keep, buf);
			x->path = xasprintf("%s (capture)", beside->ranks[ma->ranks[r].rank_index].plan->output_dir);
			n++;
		}
		diag_append(&cap->diags, &beside->diags);
		t0 = stagetime_now(); /* their load and analysis timed their own stages */
	}
	if (!nf)
		diag_add(&cap->diags, DIAG_ERROR, path, -1, -1, _("no *%s files here"), DIGEST_SUFFIX);
	xqsort(L, n, sizeof *L, cmp_loaded);
	keep_one_run(L, n, &cap->diags);
	/* duplicated ranks: the first by file name stays */
	for (size_t i = 1; i < n; i++) {
		if (L[i].drop)
			continue;
		for (size_t j = i; j-- > 0;) {
			if (L[j].ra.rank != L[i].ra.rank)
				break;
			if (L[j].drop)
				continue;
			L[i].drop = true;
			diag_add(&cap->diags, DIAG_ERROR, L[i].path, -1, -1,
				 _("rank %d is already read from %s (host %s, capture %s); this one (host %s) left out"),
				 L[i].ra.rank, L[j].path, L[j].id.host ? L[j].id.host : "?",
				 L[j].id.capture_path ? L[j].id.capture_path : "?", L[i].id.host ? L[i].id.host : "?");
			break;
		}
	}
	size_t kept = 0;
	for (size_t i = 0; i < n; i++)
		kept += !L[i].drop;
	cap->plan.ranks = xcalloc(kept ? kept : 1, sizeof *cap->plan.ranks);
	cap->ranks = xcalloc(kept ? kept : 1, sizeof *cap->ranks);
	an->ranks = xcalloc(kept ? kept : 1, sizeof *an->ranks);
	an->colls = xcalloc(kept ? kept : 1, sizeof *an->colls);
	an->n_colls = xcalloc(kept ? kept : 1, sizeof *an->n_colls);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		struct loaded *x = &L[i];
		if (x->drop) {
			result_rank_free(&x->ra);
			free(x->colls);
			comm_data_free(&x->comm);
			free(x->path);
			continue;
		}
		struct rank_plan *rp = &cap->plan.ranks[k];
		rp->rank = x->ra.rank;
		rp->label = xstrdup(x->id.label ? x->id.label : "");
		rp->par_groups = parallel_groups_parse(x->id.layout, &rp->n_par_groups);
		rp->output_dir = xstrdup(x->id.capture_path ? x->id.capture_path : "");
		rp->device_id = x->id.device_id;
		if (x->id.torch_npu_version)
			rp->info.torch_npu_version = xstrdup(x->id.torch_npu_version);
		if (x->id.cann_version)
			rp->info.cann_version = xstrdup(x->id.cann_version);
		struct rank_data *rd = &cap->ranks[k];
		rp->export_done = true;
		rd->plan = rp;
		rd->store.strs = strtab_new(); /* no events, but views look names up */
		rd->trace_bytes_total = x->id.trace_bytes;
		rd->comm = x->comm;
		atomic_init(&rd->state, RANK_READY);
		atomic_init(&rd->csv_ready, true);
		an->ranks[k] = x->ra;
		an->ranks[k].rank_index = k;
		an->colls[k] = x->colls;
		an->n_colls[k] = x->n_colls;
		free(x->path);
		k++;
	}
	free(L);
	cap->plan.n_ranks = cap->n_ranks = an->n_ranks = kept;
	cap->usable = kept > 0;
	atomic_init(&cap->done, true);
	stagetime_add(STAGE_CAPTURE, t0);
	return an;
}

static char *encode_rank(const struct analysis *an, size_t i, size_t *len)
{
	char host[256] = "";
	digest_file_host(host, sizeof host);
	return digest_encode(an, i, host, len);
}

/* An analysis of cap (borrowed; loaded) from the digests of its ranks: bufs[i] (taken,
 * lens[i] bytes) is the rank at cap->ranks[rank_index[i]]; what spans ranks is computed
 * again as over digest files. NULL, with why, when a digest does not read. */
/* An analysis digest.c built that no pass has run over yet, freed. */
static void digest_discard(struct analysis *an)
{
	for (size_t i = 0; i < an->n_ranks; i++)
		result_rank_free(&an->ranks[i]);
	for (size_t i = 0; an->colls && i < an->n_ranks; i++)
		free(an->colls[i]);
	free(an->colls);
	free(an->n_colls);
	free(an->ranks);
	diag_free(&an->diags);
	dio_keep_free(an->keep);
	free(an);
}

static struct analysis *analysis_over(const struct capture *cap, char **bufs, const size_t *lens,
				     const size_t *rank_index, size_t n, struct sbuf *why)
{
	struct analysis *an = xcalloc(1, sizeof *an);
	an->cap = cap;
	an->keep = dio_keep_new();
	an->keep_free = dio_keep_free;
	diag_init(&an->diags);
	an->ranks = xcalloc(n ? n : 1, sizeof *an->ranks);
	an->colls = xcalloc(n ? n : 1, sizeof *an->colls);
	an->n_colls = xcalloc(n ? n : 1, sizeof *an->n_colls);
	bool ok = true;
	for (size_t i = 0; i < n; i++) {
		if (!ok || rank_index[i] >= cap->n_ranks) {
			sbuf_reset(why); /* the last reason is the one kept */
			sbuf_addf(why, "rank %zu is not in the capture", rank_index[i]);
			ok = false;
			free(bufs[i]);
			continue;
		}
		struct digest_ident id;
		struct comm_data comm; /* the capture has its own communication data */
		if (digest_parse(bufs[i], lens[i], an->keep, &an->ranks[i], &id, &an->colls[i], &an->n_colls[i], &comm,
				 why)) {
			ok = false;
			free(bufs[i]);
			continue;
		}
		comm_data_free(&comm);
		dio_keep_add(an->keep, bufs[i]);
		an->ranks[i].rank_index = rank_index[i];
		an->n_ranks = i + 1;
	}
	if (!ok) {
		digest_discard(an);
		return NULL;
	}
	return an;
}

/* ---- a capture's analysis in the index cache ---------------------------------------- */
/* The index's bytes: the rank count, per rank its index in the capture and its digest,
 * then the analysis' messages. */

static void put_u64(struct sbuf *b, uint64_t v) { sbuf_add(b, (const char *)&v, sizeof v); }

static void put_str(struct sbuf *b, const char *s)
{
	if (!s) {
		put_u64(b, UINT64_MAX);
		return;
	}
	size_t n = strlen(s);
	put_u64(b, n);
	sbuf_add(b, s, n);
}

/* What a digest leaves out because a digest file has no events, and the explorer shows
 * (the index lies beside the events it was made from): each step's marker event, each
 * finding's event, the memory tables' rows (by the capture's own tables). */
static void put_events(struct sbuf *b, const struct rank_analysis *ra)
{
	put_u64(b, ra->n_steps);
	for (size_t k = 0; k < ra->n_steps; k++)
		put_u64(b, ra->steps[k].marker_ev);
	put_u64(b, ra->n_advice);
	for (size_t k = 0; k < ra->n_advice; k++)
		put_u64(b, ra->advice[k].event);
	const struct mem_analysis *m = &ra->mem;
	put_u64(b, m->n_comps);
	for (size_t k = 0; k < m->n_comps; k++)
		put_u64(b, m->comps[k].peak_row);
	put_u64(b, m->n_mods);
	for (size_t k = 0; k < m->n_mods; k++)
		put_u64(b, m->mods[k].peak_row);
	put_u64(b, m->n_top);
	for (size_t k = 0; k < m->n_top; k++)
		put_u64(b, m->top[k].row);
}

char *digest_index_encode(const struct analysis *an, size_t *len)
{
	struct sbuf b = SBUF_INIT;
	put_u64(&b, an->n_ranks);
	for (size_t i = 0; i < an->n_ranks; i++) {
		size_t n;
		char *d = encode_rank(an, i, &n);
		put_u64(&b, an->ranks[i].rank_index);
		put_u64(&b, n);
		sbuf_add(&b, d, n);
		free(d);
	}
	const struct diag_list *dl = &an->diags;
	put_u64(&b, dl->n);
	put_u64(&b, dl->dropped);
	for (size_t i = 0; i < dl->n; i++) {
		const struct diag *d = &dl->items[i];
		put_u64(&b, (uint64_t)d->level);
		put_u64(&b, (uint64_t)(int64_t)d->line);
		put_u64(&b, (uint64_t)d->offset);
		put_str(&b, d->file);
		put_str(&b, d->msg);
	}
	for (size_t i = 0; i < an->n_ranks; i++)
		put_events(&b, &an->ranks[i]);
	*len = b.len;
	return sbuf_detach(&b);
}

struct rd {
	const char *p;
	size_t len, pos;
	bool bad;
};

static uint64_t get_u64(struct rd *r)
{
	uint64_t v = 0;
	if (r->bad || r->len - r->pos < sizeof v) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p + r->pos, sizeof v);
	r->pos += sizeof v;
	return v;
}

/* An owned copy of n bytes, NUL-terminated. */
static char *get_bytes(struct rd *r, uint64_t n)
{
	if (r->bad || n > r->len - r->pos) {
		r->bad = true;
		return NULL;
	}
	char *s = xmalloc(n + 1);
	memcpy(s, r->p + r->pos, n);
	s[n] = 0;
	r->pos += n;
	return s;
}

static char *get_str(struct rd *r)
{
	uint64_t n = get_u64(r);
	return n == UINT64_MAX ? NULL : get_bytes(r, n);
}

/* An index of one of n things (UINT32_MAX/SIZE_MAX: none, when none_ok), else bad. */
static uint64_t get_index(struct rd *r, uint64_t n, uint64_t none)
{
	uint64_t v = get_u64(r);
	if (v >= n && v != none)
		r->bad = true;
	return v;
}

/* The capture's table a stub names by its path (NULL when none: bad). */
static const struct csv_table *real_table(struct rd *r, const struct rank_data *rd, const struct csv_table *stub)
{
	if (!stub)
		return NULL;
	for (int k = 0; k < CSV_KIND_COUNT; k++)
		if (rd->by_kind[k] && rd->by_kind[k]->path && !strcmp(rd->by_kind[k]->path, stub->path))
			return rd->by_kind[k];
	r->bad = true;
	return NULL;
}

static size_t table_rows(const struct csv_table *t) { return t ? t->nrows : 0; }

/* put_events' section read into a rank read from its digest: the events and rows again,
 * and the memory report's stub tables replaced by the capture's. */
static void get_events(struct rd *r, const struct capture *cap, struct rank_analysis *ra)
{
	const struct rank_data *rd = &cap->ranks[ra->rank_index];
	uint64_t n_ev = rd->store.n_ev;
	if (get_u64(r) != ra->n_steps)
		r->bad = true;
	for (size_t k = 0; k < ra->n_steps && !r->bad; k++)
		ra->steps[k].marker_ev = (uint32_t)get_index(r, n_ev, UINT32_MAX);
	if (get_u64(r) != ra->n_advice)
		r->bad = true;
	for (size_t k = 0; k < ra->n_advice && !r->bad; k++)
		ra->advice[k].event = (uint32_t)get_index(r, n_ev, UINT32_MAX);
	struct mem_analysis *m = &ra->mem;
	m->record = real_table(r, rd, m->record);
	m->modules = real_table(r, rd, m->modules);
	m->ops = real_table(r, rd, m->ops);
	if (get_u64(r) != m->n_comps)
		r->bad = true;
	for (size_t k = 0; k < m->n_comps && !r->bad; k++)
		m->comps[k].peak_row = (size_t)get_index(r, table_rows(m->record), SIZE_MAX);
	if (get_u64(r) != m->n_mods)
		r->bad = true;
	for (size_t k = 0; k < m->n_mods && !r->bad; k++)
		m->mods[k].peak_row = (size_t)get_index(r, table_rows(m->modules), SIZE_MAX);
	if (get_u64(r) != m->n_top)
		r->bad = true;
	for (size_t k = 0; k < m->n_top && !r->bad; k++)
		m->top[k].row = (size_t)get_index(r, table_rows(m->ops), SIZE_MAX);
}

/* The analysis from the index's bytes, or NULL when they do not read. */
struct analysis *digest_index_decode(const struct capture *cap, const char *buf, size_t len,
				     void (*cross_ranks)(struct analysis *an), bool *bad)
{
	*bad = false;
	struct rd r = {.p = buf, .len = len};
	uint64_t n = get_u64(&r);
	if (r.bad || n > cap->n_ranks)
		return NULL;
	char **bufs = xcalloc(n ? n : 1, sizeof *bufs);
	size_t *lens = xcalloc(n ? n : 1, sizeof *lens), *idx = xcalloc(n ? n : 1, sizeof *idx);
	for (size_t i = 0; i < n; i++) {
		idx[i] = get_u64(&r);
		lens[i] = get_u64(&r);
		bufs[i] = get_bytes(&r, lens[i]);
	}
	struct diag_list msgs;
	diag_init(&msgs);
	uint64_t nd = get_u64(&r), dropped = get_u64(&r);
	for (uint64_t i = 0; i < nd && !r.bad && nd <= DIAG_MAX; i++) {
		uint64_t level = get_u64(&r), line = get_u64(&r), off = get_u64(&r);
		char *file = get_str(&r), *msg = get_str(&r);
		if (msg && level <= DIAG_ERROR)
			diag_add(&msgs, (enum diag_level)level, file, (long)(int64_t)line, (int64_t)off, "%s", msg);
		else
			r.bad = true;
		free(file);
		free(msg);
	}
	struct analysis *an = NULL;
	struct sbuf why = SBUF_INIT;
	size_t events_at = r.pos; /* the events section, read once the digests are */
	if (!r.bad && nd <= DIAG_MAX) {
		an = analysis_over(cap, bufs, lens, idx, n, &why); /* why: for a debugger; NULL is "rebuild" */
		sbuf_free(&why);
		if (an)
			cross_ranks(an);
		r.pos = events_at;
		for (size_t i = 0; an && i < an->n_ranks; i++)
			get_events(&r, cap, &an->ranks[i]);
		*bad = an && (r.bad || r.pos != r.len); /* the caller frees it */
	} else {
		for (size_t i = 0; i < n; i++)
			free(bufs[i]);
	}
	if (an) { /* the analysis' own messages, as the first open gave them */
		diag_free(&an->diags);
		an->diags = msgs;
		an->diags.dropped += (size_t)dropped;
	} else {
		diag_free(&msgs);
	}
	free(bufs);
	free(lens);
	free(idx);
	return an;
}
