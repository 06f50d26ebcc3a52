/* SPDX-License-Identifier: MIT */
/* Per-rank metrics from interval sets, the cross-checks against the exporter's own
 * figures, and the capture-level driver. */
#include "analysis.h"
#include "cluster_db.h"

#include <math.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "advice.h"
#include "analysis_priv.h"
#include "i18n.h"
#include "cluster.h"
#include "digest.h"
#include "json_tok.h"
#include "lanes.h"
#include "num.h"
#include "sbuf.h"
#include "stagetime.h"
#include "trace.h"
#include "xalloc.h"
#include "xsort.h"
#include "xthread.h"

const struct metric_def metric_defs[M_COUNT] = {
#define METRIC_DEF(id, key, unit, label, def, formula, caveat) [M_##id] = {key, unit, label, def, formula, caveat},
	METRICS(METRIC_DEF)
#undef METRIC_DEF
};

/* Gaps shorter than this are launch jitter, not idleness. */
#define IDLE_MIN_GAP_NS 50000

const char *analysis_confidence_name(enum confidence c)
{
	return c == CONF_HIGH ? "high" : c == CONF_MEDIUM ? "medium" : "low";
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
		[PHASE_SRC_WORKLOAD] = "workload",
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

size_t analysis_step_at(const struct rank_analysis *ra, int64_t t)
{
	size_t lo = 0, hi = ra->n_steps;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ra->steps[mid].win_start <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && t < ra->steps[lo - 1].win_end ? lo - 1 : SIZE_MAX;
}

/* Whether step c is the last one starting at or before t: what the search above finds. */
static bool last_started(const struct rank_analysis *ra, size_t c, int64_t t)
{
	return c < ra->n_steps && ra->steps[c].win_start <= t &&
	       (c + 1 == ra->n_steps || ra->steps[c + 1].win_start > t);
}

size_t analysis_step_at_near(const struct rank_analysis *ra, int64_t t, size_t *hint)
{
	size_t c = *hint;
	if (!last_started(ra, c, t)) {
		if (last_started(ra, c + 1, t)) {
			c++;
		} else {
			size_t k = analysis_step_at(ra, t);
			if (k != SIZE_MAX)
				*hint = k;
			return k;
		}
	}
	*hint = c;
	return t < ra->steps[c].win_end ? c : SIZE_MAX;
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

int64_t analysis_nearest_rank_select(int64_t *v, size_t n, double q)
{
	if (n == 0)
		return 0;
	size_t k = nearest_rank(n, q) - 1, lo = 0, hi = n - 1;
	/* quickselect (Hoare partition, median of three); a range that does not shrink fast
	 * enough, as a crafted file could make it, is sorted instead */
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

/* ---- interval sets ------------------------------------------------------------------ */

void rank_sets_build(const struct rank_store *rs, const struct ev_class *cls, struct rank_sets *s)
{
	struct ivset dev_comm, comm_lanes, h2d_host, d2h_host;
	memset(s, 0, sizeof *s);
	ivset_init(&s->device_busy);
	ivset_init(&s->compute);
	ivset_init(&s->dev_copy);
	ivset_init(&s->comm);
	ivset_init(&s->host_copy);
	ivset_init(&s->sync);
	ivset_init(&s->h2d);
	ivset_init(&s->d2h);
	ivset_init(&s->compute_or_comm);
	ivset_init(&dev_comm);
	ivset_init(&comm_lanes);
	ivset_init(&h2d_host);
	ivset_init(&d2h_host);
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *l = &rs->lanes[li];
		bool host = lanes_group_is_host(l->group);
		for (uint32_t k = 0; k < l->n_events; k++) {
			uint32_t ev = l->events[k];
			struct ev_class c = cls[ev];
			/* host lanes give only their copies and syncs here (host work: host_work_minus) */
			if (host && ((c.flags & EVF_STEP_MARK) || (c.cat != CAT_COPY && !(c.flags & EVF_SYNC))))
				continue;
			int64_t a = store_ts(rs, ev), b = a + store_dur(rs, ev);
			if (l->group == LANE_DEVICE) {
				if (c.flags & EVF_WAIT)
					continue;
				ivset_add(&s->device_busy, a, b);
				if (c.cat == CAT_COMPUTE)
					ivset_add(&s->compute, a, b);
				else if (c.cat == CAT_COPY) {
					ivset_add(&s->dev_copy, a, b);
					if (c.flags & EVF_H2D)
						ivset_add(&s->h2d, a, b);
					if (c.flags & EVF_D2H)
						ivset_add(&s->d2h, a, b);
				} else if (c.cat == CAT_COMM)
					ivset_add(&dev_comm, a, b);
			} else if (l->group == LANE_COMM) {
				ivset_add(&comm_lanes, a, b);
			} else if (host) {
				if (c.cat == CAT_COPY) {
					ivset_add(&s->host_copy, a, b);
					if (c.flags & EVF_H2D)
						ivset_add(&h2d_host, a, b);
					if (c.flags & EVF_D2H)
						ivset_add(&d2h_host, a, b);
				}
				if (c.flags & EVF_SYNC)
					ivset_add(&s->sync, a, b);
			}
		}
	}
	s->comm_from_lanes = comm_lanes.n > 0;
	ivset_copy(&s->comm, s->comm_from_lanes ? &comm_lanes : &dev_comm);
	s->dir_from_device = s->h2d.n || s->d2h.n;
	if (!s->dir_from_device) {
		ivset_copy(&s->h2d, &h2d_host);
		ivset_copy(&s->d2h, &d2h_host);
	}
	ivset_union(&s->compute, &s->comm, &s->compute_or_comm);
	ivset_free(&dev_comm);
	ivset_free(&comm_lanes);
	ivset_free(&h2d_host);
	ivset_free(&d2h_host);
}

/* Sets from kernel_details.csv alone, for captures exported without a trace. */
static bool rank_sets_from_csv(const struct csv_table *k, struct rank_sets *s, int64_t *lo, int64_t *hi)
{
	memset(s, 0, sizeof *s);
	ivset_init(&s->device_busy);
	ivset_init(&s->compute);
	ivset_init(&s->dev_copy);
	ivset_init(&s->comm);
	ivset_init(&s->host_copy);
	ivset_init(&s->sync);
	ivset_init(&s->h2d);
	ivset_init(&s->d2h);
	ivset_init(&s->compute_or_comm);
	bool any = false;
	struct kernel_memo memo = {0};
	for (size_t r = 0; k && r < k->nrows; r++) {
		int64_t a, d;
		if (!csvt_time(k, r, COL_START, &a) || !csvt_time(k, r, COL_DURATION, &d) || d < 0)
			continue;
		struct ev_class c = analysis_kernel_class(&memo, k, r);
		if (c.flags & EVF_WAIT)
			continue;
		if (!any || a < *lo)
			*lo = a;
		if (!any || a + d > *hi)
			*hi = a + d;
		any = true;
		/* a collective's row spans its wait for peers: communication, not busy, as
		 * with a trace (where collectives sit on their own lanes) */
		if (c.cat == CAT_COMM) {
			ivset_add(&s->comm, a, a + d);
			continue;
		}
		ivset_add(&s->device_busy, a, a + d);
		if (c.cat == CAT_COPY)
			ivset_add(&s->dev_copy, a, a + d);
		else
			ivset_add(&s->compute, a, a + d);
	}
	analysis_kernel_memo_free(&memo);
	ivset_union(&s->compute, &s->comm, &s->compute_or_comm);
	return any;
}

static void rank_sets_derive(struct rank_sets *s, const struct rank_store *rs, const struct ev_class *cls,
			     bool has_trace);

/* The sets of a rank with a trace, derived ones included (host work is the slow part). */
static void *build_pending_sets(void *arg)
{
	struct pending_sets *p = arg;
	double t0 = stagetime_now();
	rank_sets_build(p->rs, p->cls, p->sets);
	rank_sets_derive(p->sets, p->rs, p->cls, true);
	stagetime_add(STAGE_SETS, t0);
	return NULL;
}

struct rank_sets *rank_sets_wait(struct pending_sets *p)
{
	xthread_join(&p->builder);
	return p->sets;
}

void rank_sets_free(struct rank_sets *s)
{
	ivset_free(&s->device_busy);
	ivset_free(&s->compute);
	ivset_free(&s->dev_copy);
	ivset_free(&s->comm);
	ivset_free(&s->host_copy);
	ivset_free(&s->sync);
	ivset_free(&s->h2d);
	ivset_free(&s->d2h);
	ivset_free(&s->compute_or_comm);
	ivset_free(&s->occupied);
	ivset_free(&s->host_only);
	ivset_free(&s->host_dispatch);
}

/* ---- helpers ------------------------------------------------------------------------ */

/* A host lane's work as merged spans, in start order: its events (step marks and empty
 * ones left out) with those that start within or at the end of the span so far joined to
 * it. Nested calls cost a comparison each. */
struct host_lane_spans {
	const struct rank_store *rs;
	const struct ev_class *cls;
	const struct lane *l;
	bool dispatch_only; /* only framework ops (cpu_op) and CANN API calls */
	uint32_t k;        /* the lane's next event */
	int64_t a, b;      /* the current span */
	bool has;
};

static bool host_event(struct host_lane_spans *h, uint32_t k, int64_t *a, int64_t *b)
{
	uint32_t ev = h->l->events[k];
	if (h->cls[ev].flags & EVF_STEP_MARK)
		return false;
	if (h->dispatch_only && !(h->cls[ev].flags & EVF_DISPATCH) && h->l->group != LANE_HOST_CANN)
		return false;
	*a = store_ts(h->rs, ev);
	*b = *a + store_dur(h->rs, ev);
	return *b > *a;
}

static void host_lane_next(struct host_lane_spans *h)
{
	int64_t a, b;
	h->has = false;
	while (h->k < h->l->n_events && !host_event(h, h->k, &a, &b))
		h->k++;
	if (h->k >= h->l->n_events)
		return;
	h->a = a;
	h->b = b;
	h->has = true;
	for (h->k++; h->k < h->l->n_events; h->k++) {
		if (!host_event(h, h->k, &a, &b))
			continue;
		if (a > h->b)
			break;
		if (b > h->b)
			h->b = b;
	}
}

/* The host lanes' heads as a binary min-heap on the start of their current span: a capture
 * may have thousands of host threads (a lane each), and a scan of all of them per span
 * made that quadratic (review: 10000 lanes took 10 s). Entries are small: the start and
 * the lane's place in the state array. */
struct head {
	int64_t a;
	uint32_t lane;
};

static void heads_sift_down(struct head *q, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && q[l].a < q[m].a)
			m = l;
		if (l + 1 < n && q[l + 1].a < q[m].a)
			m = l + 1;
		if (m == i)
			return;
		struct head t = q[i];
		q[i] = q[m];
		q[m] = t;
		i = m;
	}
}

/* The first head's lane moves to its next span; a lane that has none leaves the heap. */
static void heads_advance(struct head *q, size_t *n, struct host_lane_spans *h)
{
	struct host_lane_spans *top = &h[q[0].lane];
	host_lane_next(top);
	if (top->has)
		q[0].a = top->a;
	else
		q[0] = q[--*n];
	if (*n)
		heads_sift_down(q, *n, 0);
}

/* Host-only work: the union of the host lanes' spans, merged across lanes as they come in
 * start order, minus `blocked` (normal), into out; returns the union's total. With
 * dispatch_only, only framework ops and CANN API calls count as work. */
static int64_t host_work_minus(const struct rank_store *rs, const struct ev_class *cls, struct ivset *blocked,
			       struct ivset *out, bool dispatch_only)
{
	size_t n = 0;
	struct host_lane_spans *h = xcalloc(rs->n_lanes ? rs->n_lanes : 1, sizeof *h);
	struct head *q = xmalloc((rs->n_lanes ? rs->n_lanes : 1) * sizeof *q);
	for (size_t li = 0; li < rs->n_lanes; li++)
		if (lanes_group_is_host(rs->lanes[li].group) && rs->lanes[li].n_events) {
			h[n] = (struct host_lane_spans){.rs = rs, .cls = cls, .l = &rs->lanes[li],
							.dispatch_only = dispatch_only};
			host_lane_next(&h[n]);
			if (h[n].has) {
				q[n] = (struct head){h[n].a, (uint32_t)n};
				n++;
			}
		}
	for (size_t i = n / 2; i-- > 0;)
		heads_sift_down(q, n, i);
	ivset_normalize(blocked);
	ivset_clear(out);
	int64_t total = 0, a = 0, b = 0;
	bool open = false;
	size_t j = 0; /* blocked intervals ending at or before the spans so far are passed */
	for (;;) {
		if (n && open && q[0].a <= b) {
			if (h[q[0].lane].b > b)
				b = h[q[0].lane].b;
			heads_advance(q, &n, h);
			continue;
		}
		if (open) {
			/* [a, b) is one interval of the union: its part outside blocked */
			total += b - a;
			int64_t cur = a;
			while (j < blocked->n && blocked->end[j] <= cur)
				j++;
			for (size_t k = j; k < blocked->n && blocked->start[k] < b; k++) {
				if (blocked->start[k] > cur)
					ivset_add(out, cur, blocked->start[k]);
				if (blocked->end[k] > cur)
					cur = blocked->end[k];
			}
			if (cur < b)
				ivset_add(out, cur, b);
		}
		if (!n)
			break;
		a = q[0].a;
		b = h[q[0].lane].b;
		open = true;
		heads_advance(q, &n, h);
	}
	free(q);
	free(h);
	out->normal = true;
	return total;
}

/* Only outside the occupied set is the device idle, and only then can it be waiting for
 * the host. Host time blocked in a sync op (.item, synchronize) is the host waiting for
 * the device, not work the device waits for. */
static void rank_sets_derive(struct rank_sets *s, const struct rank_store *rs, const struct ev_class *cls,
			     bool has_trace)
{
	struct ivset blocked;
	ivset_init(&s->occupied);
	ivset_init(&s->host_only);
	ivset_init(&s->host_dispatch);
	ivset_union(&s->device_busy, &s->comm, &s->occupied);
	s->host_total = 0;
	if (!has_trace)
		return;
	ivset_init(&blocked);
	ivset_union(&s->sync, &s->occupied, &blocked);
	s->host_total = host_work_minus(rs, cls, &blocked, &s->host_only, false);
	/* the attribution's split of host-only time: what of it is dispatch */
	host_work_minus(rs, cls, &blocked, &s->host_dispatch, true);
	ivset_free(&blocked);
}

static void set_metric(struct rank_analysis *ra, enum metric_id m, double v, enum confidence conf,
		       const char *source)
{
	if (!isfinite(v))
		return;
	ra->v[m] = v;
	ra->have[m] = true;
	ra->conf[m] = conf;
	ra->source[m] = source;
}

void analysis_set_metric(struct rank_analysis *ra, enum metric_id m, double v, enum confidence conf,
			 const char *source)
{
	set_metric(ra, m, v, conf, source);
}

static double us(int64_t ns) { return (double)ns / 1000.0; }

static double pct(int64_t part, int64_t whole) { return whole > 0 ? 100.0 * (double)part / (double)whole : NAN; }

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

struct ev_class analysis_kernel_class(struct kernel_memo *m, const struct csv_table *k, size_t row)
{
	uint64_t key = (uint64_t)csvt_str_id(k, row, COL_NAME) << 32 | csvt_str_id(k, row, COL_ACCEL_CORE);
	bool found;
	uint32_t *v = u64map_slot(&m->map, key, &found);
	if (!found) {
		struct ev_class c = category_of(LANE_DEVICE, csvt_str(k, row, COL_NAME), "",
						csvt_str(k, row, COL_ACCEL_CORE));
		*v = 1u << 16 | (uint32_t)c.flags << 8 | c.cat;
	}
	return (struct ev_class){.cat = (uint8_t)*v, .flags = (uint8_t)(*v >> 8)};
}

void analysis_kernel_memo_free(struct kernel_memo *m) { u64map_free(&m->map); }

bool analysis_has_group_lanes(const struct rank_store *rs)
{
	for (size_t i = 0; i < rs->n_lanes; i++) {
		const char *tn = store_str(rs, rs->lanes[i].thread_name);
		if (rs->lanes[i].group == LANE_COMM && (strcasestr(tn, "Communication") || strcasestr(tn, "Group")))
			return true;
	}
	return false;
}

/* Is ev a whole collective (not one of its sub-tasks)? */
bool analysis_is_collective(const struct rank_store *rs, const struct ev_class *cls, uint32_t ev,
			  bool have_group_lanes)
{
	const struct lane *l = store_ev_lane(rs, ev);
	if (have_group_lanes) {
		const char *tn = store_str(rs, l->thread_name);
		return l->group == LANE_COMM && (strcasestr(tn, "Communication") || strcasestr(tn, "Group"));
	}
	if (l->group != LANE_DEVICE || cls[ev].cat != CAT_COMM)
		return false;
	const char *n = store_ev_name(rs, ev);
	return !strncasecmp(n, "hcom_", 5) || strcasestr(n, "hccl") || strcasestr(n, "allreduce") ||
	       strcasestr(n, "allgather") || strcasestr(n, "reducescatter") || strcasestr(n, "alltoall");
}

static int dtype_bytes(const char *t)
{
	if (strcasestr(t, "64"))
		return 8;
	if (strcasestr(t, "32"))
		return 4;
	if (strcasestr(t, "16"))
		return 2;
	if (strcasestr(t, "8"))
		return 1;
	return 0;
}

/* Payload of a collective from its args ("count" and "data_type"), in bytes; 0 unknown. */
double analysis_collective_bytes(const struct rank_store *rs, uint32_t ev)
{
	struct sbuf raw = SBUF_INIT;
	double bytes = 0;
	if (trace_element_json(rs, store_ev_off(rs, ev), &raw) == 0) {
		struct jtok jt;
		jtok_init(&jt);
		if (jtok_parse(&jt, raw.buf, raw.len) > 0) {
			int args = jtok_obj_get(&jt, raw.buf, 0, "args");
			int cnt = jtok_obj_get(&jt, raw.buf, args, "count");
			int dt = jtok_obj_get(&jt, raw.buf, args, "data_type");
			if (cnt >= 0 && dt >= 0) {
				struct sbuf t = SBUF_INIT;
				jtok_unescape(raw.buf, &jt.t[dt], &t);
				double c;
				const jsmntok_t *ct = &jt.t[cnt];
				if (num_double(raw.buf + ct->start, (size_t)(ct->end - ct->start), &c) == NUM_OK)
					bytes = c * dtype_bytes(sbuf_str(&t));
				sbuf_free(&t);
			}
		}
		jtok_free(&jt);
	}
	sbuf_free(&raw);
	return bytes;
}

static void collective_metrics(const struct rank_store *rs, struct rank_analysis *ra)
{
	bool group_lanes = analysis_has_group_lanes(rs);
	int64_t *d = NULL;
	double *sizes = NULL;
	size_t n = 0, cap = 0, nsize = 0;
	for (size_t ev = 0; ev < rs->n_ev; ev++) {
		if (!analysis_is_collective(rs, ra->cls, (uint32_t)ev, group_lanes))
			continue;
		size_t c = cap;
		xgrow(&d, &c, n + 1, sizeof *d);
		xgrow(&sizes, &cap, n + 1, sizeof *sizes);
		d[n] = store_dur(rs, ev);
		if (n < 100000) {
			double b = analysis_collective_bytes(rs, (uint32_t)ev);
			if (b > 0)
				sizes[nsize++] = b;
		}
		n++;
	}
	set_metric(ra, M_COLLECTIVES, (double)n, CONF_HIGH,
		   group_lanes ? "HCCL group lanes" : "device communication tasks");
	if (n) {
		xqsort(d, n, sizeof *d, cmp_i64);
		set_metric(ra, M_COLLECTIVE_MEDIAN_US, us(analysis_nearest_rank(d, n, 0.5)), CONF_HIGH,
			   group_lanes ? "HCCL group lanes" : "device communication tasks");
	}
	if (nsize) {
		/* sort doubles via their bit pattern: all positive */
		int64_t *b = xmalloc(nsize * sizeof *b);
		for (size_t i = 0; i < nsize; i++)
			b[i] = (int64_t)sizes[i];
		xqsort(b, nsize, sizeof *b, cmp_i64);
		set_metric(ra, M_COLLECTIVE_MEDIAN_MB, (double)analysis_nearest_rank(b, nsize, 0.5) / 1e6,
			   CONF_MEDIUM, "collective args count x data_type size");
		free(b);
	}
	free(d);
	free(sizes);
}

/* Weighted PMU ratios and Duration/AICore from the kernel table. */
static void pmu_metrics(const struct csv_table *k, struct rank_analysis *ra)
{
	if (!k)
		return;
	static const struct { enum metric_id m; enum csv_col cols[2]; } map[] = {
		{M_PMU_MAC, {COL_AIC_MAC_RATIO, COL_AIV_MAC_RATIO}},
		{M_PMU_VEC, {COL_AIV_VEC_RATIO, COL_AIC_VEC_RATIO}},
		{M_PMU_SCALAR, {COL_AIC_SCALAR_RATIO, COL_AIV_SCALAR_RATIO}},
		{M_PMU_MTE1, {COL_AIC_MTE1_RATIO, COL_AIV_MTE1_RATIO}},
		{M_PMU_MTE2, {COL_AIC_MTE2_RATIO, COL_AIV_MTE2_RATIO}},
		{M_PMU_MTE3, {COL_AIV_MTE3_RATIO, COL_AIC_MTE3_RATIO}},
		{M_PMU_ICACHE, {COL_AIC_ICACHE_MISS, COL_AIV_ICACHE_MISS}},
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
		double num = 0, den = 0;
		for (int c = 0; c < 2; c++) {
			if (!csvt_has(k, map[i].cols[c]))
				continue;
			for (size_t r = 0; r < k->nrows; r++) {
				double v;
				int64_t dur;
				if (!csvt_num(k, r, map[i].cols[c], &v) || !csvt_time(k, r, COL_DURATION, &dur))
					continue;
				if (v > 1.5)
					v /= 100.0; /* written as a percentage */
				num += v * (double)dur;
				den += (double)dur;
			}
		}
		if (den > 0)
			set_metric(ra, map[i].m, num / den, CONF_HIGH, "kernel table PMU columns, weighted by Duration");
	}
	if (csvt_has(k, COL_AICORE_TIME) || csvt_has(k, COL_AIV_TIME)) {
		double dsum = 0, asum = 0;
		for (size_t r = 0; r < k->nrows; r++) {
			int64_t dur, a = 0, v = 0;
			if (!csvt_time(k, r, COL_DURATION, &dur))
				continue;
			bool ha = csvt_time(k, r, COL_AICORE_TIME, &a) && a > 0;
			bool hv = csvt_time(k, r, COL_AIV_TIME, &v) && v > 0;
			if (!ha && !hv)
				continue;
			dsum += (double)dur;
			asum += (double)(a > v ? a : v);
		}
		if (asum > 0)
			set_metric(ra, M_DUR_OVER_AICORE, dsum / asum, CONF_MEDIUM,
				   "kernel table Duration over aicore_time/aiv_time");
	}
}

/* ---- cross-checks against the exporter ---------------------------------------------- */

static void fill_check(struct crosscheck *c, const char *source, int64_t lo, int64_t hi, const int64_t theirs[3],
		       struct rank_sets *s)
{
	c->source = source;
	c->win_start = lo;
	c->win_end = hi;
	struct ivset exposed, both;
	ivset_init(&exposed);
	ivset_init(&both);
	ivset_subtract(&s->comm, &s->compute, &exposed);
	c->ours[0] = ivset_total_in(&s->compute, lo, hi);
	c->ours[1] = ivset_total_in(&exposed, lo, hi);
	c->ours[2] = (hi - lo) - ivset_total_in(&s->compute_or_comm, lo, hi);
	ivset_free(&exposed);
	ivset_free(&both);
	c->agree = true;
	for (int i = 0; i < 3; i++) {
		c->theirs[i] = theirs[i];
		/* in double: the table's sums may be as large as a file makes them */
		double diff = (double)c->ours[i] - (double)theirs[i];
		c->diff_pct[i] = theirs[i] ? 100.0 * diff / (double)theirs[i] : (diff != 0 ? 100.0 : 0.0);
		if (fabs(diff) > 1000 && fabs(c->diff_pct[i]) > 2.0)
			c->agree = false;
	}
}

static void overlap_lane_check(const struct rank_store *rs, struct rank_sets *s, struct rank_analysis *ra)
{
	int64_t sums[3] = {0, 0, 0};
	int64_t lo = 0, hi = 0;
	bool any = false;
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *l = &rs->lanes[li];
		if (l->group != LANE_OVERLAP)
			continue;
		for (uint32_t k = 0; k < l->n_events; k++) {
			uint32_t ev = l->events[k];
			const char *n = store_ev_name(rs, ev);
			int64_t a = store_ts(rs, ev), b = a + store_dur(rs, ev);
			int which = !strcmp(n, "Computing") ? 0
				    : !strcmp(n, "Communication(Not Overlapped)") ? 1
				    : !strcmp(n, "Free") ? 2 : -1;
			if (which < 0)
				continue;
			sums[which] = num_sat_add(sums[which], b - a);
			if (!any || a < lo)
				lo = a;
			if (!any || b > hi)
				hi = b;
			any = true;
		}
	}
	if (!any)
		return;
	struct crosscheck *c = &ra->checks[ra->n_checks++];
	fill_check(c, "Overlap Analysis lane", lo, hi, sums, s);
	if (!c->agree)
		c->explanation = xasprintf(
			"the lane covers %.3f ms of the %.3f ms window; differences beyond 2 %% come from "
			"tasks the exporter counts differently (it omits copies and waits from Computing)",
			us(hi - lo) / 1000, ra->v[M_WALL_US] / 1000);
}

static void step_trace_check(const struct csv_table *st, struct rank_sets *s, struct rank_analysis *ra,
			     int64_t win_lo, int64_t win_hi)
{
	if (!st || st->nrows == 0)
		return;
	int64_t sums[3] = {0, 0, 0}, stage_sum = 0;
	bool stage_numeric = true;
	for (size_t r = 0; r < st->nrows; r++) {
		int64_t v;
		if (csvt_time(st, r, COL_COMPUTING, &v))
			sums[0] = num_sat_add(sums[0], v);
		if (csvt_time(st, r, COL_COMM_NOT_OVERLAPPED, &v))
			sums[1] = num_sat_add(sums[1], v);
		if (csvt_time(st, r, COL_FREE, &v))
			sums[2] = num_sat_add(sums[2], v);
		const char *stage = csvt_str(st, r, COL_STAGE);
		if (num_time_ns(stage, strlen(stage), &v, NULL) == NUM_OK)
			stage_sum = num_sat_add(stage_sum, v);
		else
			stage_numeric = false;
	}
	/* Their window: the device span of the step(s). With one row it is the whole device
	 * window; Stage (a number in real files) is its length. */
	int64_t lo = win_lo, hi = win_hi;
	struct ivset *dev = &s->compute_or_comm;
	ivset_normalize(dev);
	if (dev->n) {
		lo = dev->start[0];
		hi = dev->end[dev->n - 1];
	}
	struct crosscheck *c = &ra->checks[ra->n_checks++];
	fill_check(c, "step_trace_time.csv", lo, hi, sums, s);
	if (!c->agree) {
		struct sbuf why = SBUF_INIT;
		sbuf_addf(&why, "the table covers %zu step(s)", st->nrows);
		if (stage_numeric && stage_sum)
			sbuf_addf(&why, " of %.3f ms (Stage)", us(stage_sum) / 1000);
		sbuf_addf(&why, "; our window is the device span, %.3f ms", us(hi - lo) / 1000);
		if (c->ours[0] < c->theirs[0] / 2)
			sbuf_addf(&why, "; our %s holds only %.3f ms of compute against its %.3f ms, so it covers "
				  "part of the step (a partial or sampled export)",
				  ra->has_trace ? "trace" : "kernel table", us(c->ours[0]) / 1000,
				  us(c->theirs[0]) / 1000);
		else if (stage_numeric && stage_sum &&
			 fabs((double)stage_sum - (double)(hi - lo)) * 50 > (double)stage_sum)
			sbuf_adds(&why, "; the step spans differ, so Free covers a different time");
		else
			sbuf_adds(&why, "; the exporter counts some tasks differently (copies and waits are not "
				       "Computing for it)");
		c->explanation = sbuf_detach(&why);
	}
}

/* ---- per rank ----------------------------------------------------------------------- */

static void longest_interval(struct ivset *s, int64_t out[2])
{
	ivset_normalize(s);
	out[0] = out[1] = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->end[i] - s->start[i] > out[1] - out[0]) {
			out[0] = s->start[i];
			out[1] = s->end[i];
		}
}

/* The places the bottleneck view jumps to. */
static void landmarks(struct rank_sets *s, struct rank_analysis *ra, int64_t lo, int64_t hi)
{
	struct ivset gaps, exposed;
	ivset_init(&gaps);
	ivset_init(&exposed);
	ivset_add(&gaps, lo, hi);
	ivset_subtract(&gaps, &s->occupied, &exposed); /* reuse: the idle gaps */
	longest_interval(&exposed, ra->longest_idle);
	ivset_subtract(&s->comm, &s->compute, &exposed);
	longest_interval(&exposed, ra->longest_exposed);
	longest_interval(&s->dev_copy, ra->longest_copy);
	longest_interval(&s->sync, ra->longest_sync);
	ivset_free(&gaps);
	ivset_free(&exposed);
}

static bool landmark_kind(enum landmark lm, const struct lane *l, struct ev_class c)
{
	bool device = l->group == LANE_DEVICE && !(c.flags & EVF_WAIT);
	switch (lm) {
	case LANDMARK_IDLE: return device || l->group == LANE_COMM;
	case LANDMARK_EXPOSED: return (device || l->group == LANE_COMM) && c.cat == CAT_COMM;
	case LANDMARK_COPY: return device && c.cat == CAT_COPY;
	case LANDMARK_SYNC: return lanes_group_is_host(l->group) && (c.flags & EVF_SYNC);
	}
	return false;
}

uint32_t analysis_landmark_event(const struct rank_analysis *ra, const struct rank_store *rs, enum landmark lm)
{
	const int64_t *iv = lm == LANDMARK_IDLE ? ra->longest_idle : lm == LANDMARK_EXPOSED ? ra->longest_exposed
			    : lm == LANDMARK_COPY ? ra->longest_copy : ra->longest_sync;
	if (!ra->cls || iv[1] <= iv[0])
		return UINT32_MAX;
	uint32_t best = UINT32_MAX;
	int64_t best_key = INT64_MIN, best_dur = 0;
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *l = &rs->lanes[li];
		/* a lane's events start in order: skip those starting after the interval */
		uint32_t k = lm == LANDMARK_IDLE ? store_lane_lower_bound(rs, l, iv[1]) : 0;
		uint32_t end = lm == LANDMARK_IDLE ? l->n_events : store_lane_lower_bound(rs, l, iv[1]);
		for (; k < end; k++) {
			uint32_t ev = l->events[k];
			if (!landmark_kind(lm, l, ra->cls[ev]))
				continue;
			int64_t a = store_ts(rs, ev), d = store_dur(rs, ev), key;
			if (lm == LANDMARK_IDLE) {
				key = -a; /* the first to start when the gap ends */
				end = k + 1;
			} else {
				int64_t lo = a > iv[0] ? a : iv[0], hi = a + d < iv[1] ? a + d : iv[1];
				if (hi <= lo)
					continue;
				key = hi - lo;
			}
			if (key > best_key || (key == best_key && d > best_dur)) {
				best = ev;
				best_key = key;
				best_dur = d;
			}
		}
	}
	return best;
}

int64_t *analysis_host_self_ns(const struct rank_store *rs)
{
	uint32_t n_names = strtab_count(rs->strs);
	int64_t *self = xcalloc(n_names ? n_names : 1, sizeof *self);
	enum { MAX_DEPTH = 256 };
	uint32_t stack[MAX_DEPTH]; /* the innermost open event per depth */
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *l = &rs->lanes[li];
		if (!lanes_group_is_host(l->group))
			continue;
		for (uint32_t k = 0; k < l->n_events; k++) {
			uint32_t ev = l->events[k];
			int d = l->depth[k];
			int64_t a = store_ts(rs, ev), b = a + store_dur(rs, ev);
			self[rs->ev_name[ev]] += b - a;
			stack[d] = ev;
			if (d == 0)
				continue;
			/* the parent loses what this child covers of it */
			uint32_t parent = stack[d - 1];
			int64_t pe = store_ts(rs, parent) + store_dur(rs, parent);
			if ((b < pe ? b : pe) > a)
				self[rs->ev_name[parent]] -= (b < pe ? b : pe) - a;
		}
	}
	return self;
}

struct range_ctx {
	const struct ev_class *cls;
	const struct rank_store *rs;
	const struct lane *lane;
	int64_t t0, t1;
	struct ivset cat[CAT_COUNT], device, host;
	uint32_t *count;   /* per name id */
	int64_t *in_ns;    /* per name id */
	uint8_t *cat_of;   /* per name id, of the first event */
	bool *on_device;   /* per name id */
	size_t n_events;
	uint32_t frame_cat; /* the strtab id of cat "python_function": call-stack frames, not ops */
};

static void range_event(void *p, uint32_t ev)
{
	struct range_ctx *c = p;
	struct ev_class k = c->cls[ev];
	if (k.flags & EVF_STEP_MARK)
		return;
	int64_t a = store_ts(c->rs, ev), b = a + store_dur(c->rs, ev);
	a = a > c->t0 ? a : c->t0;
	b = b < c->t1 ? b : c->t1;
	if (b < a)
		return;
	c->n_events++;
	ivset_add(&c->cat[k.cat < CAT_COUNT ? k.cat : CAT_OTHER], a, b);
	if (c->lane->group == LANE_DEVICE && !(k.flags & EVF_WAIT))
		ivset_add(&c->device, a, b);
	if (lanes_group_is_host(c->lane->group))
		ivset_add(&c->host, a, b);
	if (c->frame_cat != STRTAB_NONE && store_ev_attr(c->rs, ev)->cat == c->frame_cat)
		return;
	uint32_t id = c->rs->ev_name[ev];
	if (!c->count[id]) {
		c->cat_of[id] = k.cat;
		c->on_device[id] = c->lane->group == LANE_DEVICE;
	}
	c->count[id]++;
	c->in_ns[id] += b - a;
}

static int cmp_range_op(const void *x, const void *y)
{
	const struct range_op *a = x, *b = y;
	if (a->in_ns != b->in_ns)
		return a->in_ns > b->in_ns ? -1 : 1;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return strcmp(a->name, b->name);
}

void analysis_range(const struct rank_store *rs, const struct ev_class *cls, int64_t t0, int64_t t1,
		    struct range_totals *out)
{
	memset(out, 0, sizeof *out);
	out->t0 = t0;
	out->t1 = t1;
	if (!cls || t1 <= t0)
		return;
	uint32_t n_names = strtab_count(rs->strs);
	struct range_ctx c = {.cls = cls, .rs = rs, .t0 = t0, .t1 = t1};
	c.frame_cat = strtab_find(rs->strs, "python_function", strlen("python_function"));
	for (int k = 0; k < CAT_COUNT; k++)
		ivset_init(&c.cat[k]);
	ivset_init(&c.device);
	ivset_init(&c.host);
	c.count = xcalloc(n_names ? n_names : 1, sizeof *c.count);
	c.in_ns = xcalloc(n_names ? n_names : 1, sizeof *c.in_ns);
	c.cat_of = xcalloc(n_names ? n_names : 1, 1);
	c.on_device = xcalloc(n_names ? n_names : 1, sizeof *c.on_device);
	for (size_t li = 0; li < rs->n_lanes; li++) {
		c.lane = &rs->lanes[li];
		if (c.lane->group == LANE_OVERLAP || !c.lane->n_events)
			continue; /* the exporter's own derived tracks */
		lanes_visit_in(rs, c.lane, t0, t1, range_event, &c, NULL);
	}
	for (int k = 0; k < CAT_COUNT; k++) {
		out->cat_ns[k] = ivset_total(&c.cat[k]);
		ivset_free(&c.cat[k]);
	}
	out->device_busy_ns = ivset_total(&c.device);
	out->host_busy_ns = ivset_total(&c.host);
	ivset_free(&c.device);
	ivset_free(&c.host);
	out->n_events = c.n_events;
	size_t cap = 0;
	for (uint32_t id = 0; id < n_names; id++) {
		if (!c.count[id])
			continue;
		xgrow(&out->ops, &cap, out->n_ops + 1, sizeof *out->ops);
		out->ops[out->n_ops++] = (struct range_op){store_str(rs, id), c.cat_of[id], c.on_device[id], c.count[id],
							   c.in_ns[id]};
	}
	xqsort(out->ops, out->n_ops, sizeof *out->ops, cmp_range_op);
	free(c.count);
	free(c.in_ns);
	free(c.cat_of);
	free(c.on_device);
}

void analysis_range_free(struct range_totals *rt)
{
	free(rt->ops);
	rt->ops = NULL;
	rt->n_ops = 0;
}

static void per_step_metrics(const struct rank_store *rs, struct rank_analysis *ra, struct rank_sets *s)
{
	if (!ra->n_steps)
		return;
	struct ivset exposed;
	ivset_init(&exposed);
	ivset_subtract(&s->comm, &s->compute, &exposed);
	for (size_t i = 0; i < ra->n_steps; i++) {
		struct step *st = &ra->steps[i];
		if (!st->has_window)
			continue; /* figures from the table itself */
		int64_t lo = st->win_start, hi = st->win_end;
		st->compute_ns = ivset_total_in(&s->compute, lo, hi);
		st->comm_not_overlapped_ns = ivset_total_in(&exposed, lo, hi);
		st->free_ns = (hi - lo) - ivset_total_in(&s->compute_or_comm, lo, hi);
		st->host_only_ns = ivset_total_in(&s->host_only, lo, hi);
		st->h2d_ns = ivset_total_in(&s->h2d, lo, hi);
		st->d2h_ns = ivset_total_in(&s->d2h, lo, hi);
		st->dispatch_ops = 0;
	}
	/* dispatch ops by start time, each into the step window holding it */
	for (size_t ev = 0; ev < rs->n_ev; ev++) {
		if (!(ra->cls[ev].flags & EVF_DISPATCH))
			continue;
		size_t k = analysis_step_at(ra, store_ts(rs, ev));
		if (k != SIZE_MAX)
			ra->steps[k].dispatch_ops++;
	}
	ivset_free(&exposed);
}

/* Device, host and communication figures over the whole window, from the sets. */
static void window_metrics(const struct rank_store *rs, struct rank_analysis *ra, struct rank_sets *s,
			   int64_t lo, int64_t hi, const char *src_dev, const char *src_host)
{
	int64_t wall = hi - lo;
	int64_t busy = ivset_total(&s->device_busy), host = s->host_total;
	int64_t compute = ivset_total(&s->compute), comm = ivset_total(&s->comm);
	struct ivset tmp;
	ivset_init(&tmp);
	set_metric(ra, M_WALL_US, us(wall), CONF_HIGH, ra->has_trace ? "trace X events" : src_dev);
	set_metric(ra, M_NPU_BUSY_US, us(busy), CONF_HIGH, src_dev);
	set_metric(ra, M_NPU_BUSY_PCT, pct(busy, wall), CONF_HIGH, src_dev);
	set_metric(ra, M_COMPUTE_US, us(compute), CONF_HIGH, src_dev);
	size_t gaps;
	int64_t idle, small;
	ivset_gaps(&s->occupied, lo, hi, IDLE_MIN_GAP_NS, &gaps, &idle, &small);
	set_metric(ra, M_NPU_IDLE_US, us(idle), CONF_HIGH, src_dev);
	set_metric(ra, M_NPU_IDLE_PCT, pct(idle, wall), CONF_HIGH, src_dev);
	set_metric(ra, M_NPU_IDLE_GAPS, (double)gaps, CONF_HIGH, src_dev);
	if (gaps)
		set_metric(ra, M_NPU_IDLE_GAP_MEAN_US, us(idle) / (double)gaps, CONF_HIGH, src_dev);
	if (ra->has_trace) {
		int64_t host_only = ivset_total(&s->host_only);
		set_metric(ra, M_HOST_BUSY_US, us(host), CONF_HIGH, src_host);
		set_metric(ra, M_HOST_BUSY_PCT, pct(host, wall), CONF_HIGH, src_host);
		set_metric(ra, M_HOST_ONLY_US, us(host_only), CONF_HIGH, "host work minus device busy and collectives");
		set_metric(ra, M_HOST_ONLY_PCT, pct(host_only, wall), CONF_HIGH, "host work minus device busy and collectives");
	}
	const char *src_comm = !ra->has_trace ? src_dev
			       : s->comm_from_lanes ? "HCCL/Communication lanes" : "device communication tasks";
	ivset_intersect(&s->comm, &s->compute, &tmp);
	int64_t overlapped = ivset_total(&tmp);
	set_metric(ra, M_COMM_US, us(comm), CONF_HIGH, src_comm);
	set_metric(ra, M_COMM_OVERLAPPED_US, us(overlapped), CONF_HIGH, src_comm);
	set_metric(ra, M_COMM_NOT_OVERLAPPED_US, us(comm - overlapped), CONF_HIGH, src_comm);
	set_metric(ra, M_COMM_NOT_OVERLAPPED_PCT, pct(comm - overlapped, wall), CONF_HIGH, src_comm);
	set_metric(ra, M_COMM_SHARE_PCT, pct(comm, ivset_total(&s->occupied)), CONF_HIGH, src_comm);
	set_metric(ra, M_FREE_US, us(wall - ivset_total(&s->compute_or_comm)), CONF_HIGH, src_dev);
	int64_t dcopy = ivset_total(&s->dev_copy);
	set_metric(ra, M_DEVICE_COPY_US, us(dcopy), CONF_HIGH, src_dev);
	set_metric(ra, M_DEVICE_COPY_PCT, pct(dcopy, busy), CONF_HIGH, src_dev);
	if (ra->has_trace) {
		int64_t hcopy = ivset_total(&s->host_copy);
		set_metric(ra, M_HOST_COPY_US, us(hcopy), CONF_HIGH, src_host);
		set_metric(ra, M_HOST_COPY_PCT, pct(hcopy, host), CONF_HIGH, src_host);
		struct ivset exposed;
		ivset_init(&exposed);
		ivset_subtract(&s->host_copy, &s->occupied, &exposed);
		set_metric(ra, M_HOST_COPY_EXPOSED_PCT, pct(ivset_total(&exposed), wall), CONF_HIGH,
			   "host copy ops minus device busy and collectives");
		ivset_free(&exposed);
		ivset_normalize(&s->sync);
		set_metric(ra, M_SYNC_OPS, (double)s->sync.n, CONF_MEDIUM, "host op names (.item, synchronize ...)");
		set_metric(ra, M_SYNC_US, us(ivset_total(&s->sync)), CONF_MEDIUM, "host op names");
		size_t dispatch = 0;
		for (size_t ev = 0; ev < rs->n_ev; ev++)
			dispatch += (ra->cls[ev].flags & EVF_DISPATCH) != 0;
		set_metric(ra, M_DISPATCH_OPS, (double)dispatch, CONF_HIGH, "cpu_op events on Python lanes");
		collective_metrics(rs, ra);
	}
	ivset_free(&tmp);
}

/* The window in disjoint buckets, from the sets (attribution.h has the priority order).
 * Exposed communication stays unsplit here: its wait share comes from communication.json
 * or the other ranks (analysis_attribution_comm). */
static void rank_attribution(struct rank_sets *s, struct rank_analysis *ra, int64_t lo, int64_t hi)
{
	struct attr_layer layers[] = {
		{&s->compute, ATTR_COMPUTE},        {&s->comm, ATTR_COMM_UNSPLIT},
		{&s->dev_copy, ATTR_COPY},          {&s->device_busy, ATTR_DEVICE_OTHER},
		{&s->sync, ATTR_HOST_SYNC},         {&s->host_copy, ATTR_HOST_COPY},
		{&s->host_dispatch, ATTR_HOST_DISPATCH}, {&s->host_only, ATTR_HOST_PYTHON},
	};
	ivset_normalize(&s->occupied);
	int64_t span_lo = lo, span_hi = lo;
	if (s->occupied.n) {
		span_lo = s->occupied.start[0];
		span_hi = s->occupied.end[s->occupied.n - 1];
	}
	attribution_partition(layers, sizeof layers / sizeof layers[0], lo, hi, span_lo, span_hi, ATTR_IDLE,
			      &ra->attr);
	ra->attr.valid = true;
	ra->attr.host_known = ra->has_trace;
	ra->attr.comm_split = ra->attr.ns[ATTR_COMM_UNSPLIT] ? "none: no communication.json and no peer ranks"
							     : "no exposed communication";
}

/* A rank with neither a trace nor kernel rows with start times: step_trace_time.csv's
 * Computing, Communication(Not Overlapped) and Free partition its steps, so they give the
 * attribution (the window is their sum; the exposed communication is split later). */
static void step_trace_attribution(const struct csv_table *st, struct rank_analysis *ra)
{
	if (!st || !st->nrows || !csvt_has(st, COL_COMPUTING) || !csvt_has(st, COL_COMM_NOT_OVERLAPPED) ||
	    !csvt_has(st, COL_FREE))
		return;
	int64_t sums[3] = {0, 0, 0};
	for (size_t r = 0; r < st->nrows; r++) {
		int64_t v[3];
		if (!csvt_time(st, r, COL_COMPUTING, &v[0]) || !csvt_time(st, r, COL_COMM_NOT_OVERLAPPED, &v[1]) ||
		    !csvt_time(st, r, COL_FREE, &v[2]))
			continue;
		for (int k = 0; k < 3; k++)
			if (v[k] > 0)
				sums[k] = num_sat_add(sums[k], v[k]);
	}
	int64_t wall = num_sat_add(num_sat_add(sums[0], sums[1]), sums[2]);
	if (wall <= 0 || wall == INT64_MAX)
		return;
	struct attribution *a = &ra->attr;
	memset(a, 0, sizeof *a);
	a->valid = true;
	a->wall_ns = wall;
	a->span_hi = wall;
	a->ns[ATTR_COMPUTE] = sums[0];
	a->ns[ATTR_COMM_UNSPLIT] = sums[1];
	a->ns[ATTR_IDLE] = sums[2];
	a->comm_split = sums[1] ? "none: no communication.json and no peer ranks" : "no exposed communication";
	const char *src = "step_trace_time.csv (no trace, no kernel rows)";
	set_metric(ra, M_WALL_US, us(wall), CONF_MEDIUM, src);
	set_metric(ra, M_COMPUTE_US, us(sums[0]), CONF_HIGH, src);
	set_metric(ra, M_COMM_NOT_OVERLAPPED_US, us(sums[1]), CONF_HIGH, src);
	set_metric(ra, M_COMM_NOT_OVERLAPPED_PCT, pct(sums[1], wall), CONF_HIGH, src);
	set_metric(ra, M_FREE_US, us(sums[2]), CONF_HIGH, src);
}

/* Step count, phases and percentiles, and the per-step figures summed over the steps. */
static void step_summary_metrics(struct rank_analysis *ra, bool dir_from_device)
{
	double n = (double)ra->n_steps;
	size_t prefill = 0, decode = 0, mixed = 0, dispatch = 0;
	int64_t *durs = xmalloc(ra->n_steps * sizeof *durs);
	int64_t h2d = 0, d2h = 0;
	for (size_t i = 0; i < ra->n_steps; i++) {
		prefill += ra->steps[i].phase == PHASE_PREFILL;
		decode += ra->steps[i].phase == PHASE_DECODE;
		mixed += ra->steps[i].phase == PHASE_MIXED;
		dispatch += ra->steps[i].dispatch_ops;
		durs[i] = ra->steps[i].end - ra->steps[i].start;
		h2d = num_sat_add(h2d, ra->steps[i].h2d_ns);
		d2h = num_sat_add(d2h, ra->steps[i].d2h_ns);
	}
	xqsort(durs, ra->n_steps, sizeof *durs, cmp_i64);
	enum confidence sc = ra->step_source == STEP_SRC_IDLE_GAPS || ra->step_source == STEP_SRC_WINDOW
				     ? CONF_LOW
			     : ra->step_source == STEP_SRC_OP_SEQUENCE ? CONF_MEDIUM : CONF_HIGH;
	const char *ssrc = analysis_step_source_name(ra->step_source);
	set_metric(ra, M_STEPS, n, sc, ssrc);
	/* training steps are neither; nor are the steps of an unknown workload that no signal read */
	if (ra->workload != WORKLOAD_TRAINING && (ra->workload != WORKLOAD_UNKNOWN || prefill + decode + mixed)) {
		const char *psrc = analysis_phase_source_name(ra->phase_source);
		set_metric(ra, M_PREFILL_STEPS, (double)prefill, ra->phase_conf, psrc);
		set_metric(ra, M_DECODE_STEPS, (double)decode, ra->phase_conf, psrc);
		set_metric(ra, M_MIXED_STEPS, (double)mixed, ra->phase_conf, psrc);
	}
	set_metric(ra, M_STEP_P50_US, us(analysis_nearest_rank(durs, ra->n_steps, 0.5)), sc, ssrc);
	set_metric(ra, M_STEP_P95_US, us(analysis_nearest_rank(durs, ra->n_steps, 0.95)), sc, ssrc);
	free(durs);
	if (ra->has_trace) {
		set_metric(ra, M_DISPATCH_PER_STEP, (double)dispatch / n, sc, "cpu_op events per step window");
		if (ra->have[M_HOST_ONLY_US])
			set_metric(ra, M_HOST_ONLY_PER_STEP_US, ra->v[M_HOST_ONLY_US] / n, sc, "host-only / steps");
		if (ra->have[M_SYNC_OPS])
			set_metric(ra, M_SYNC_PER_STEP, ra->v[M_SYNC_OPS] / n, sc, "sync ops / steps");
		const char *dsrc = dir_from_device ? "device copies (direction from the launching host op)"
						   : "host copy ops named by direction";
		set_metric(ra, M_H2D_PER_STEP_US, us(h2d) / n, CONF_MEDIUM, dsrc);
		set_metric(ra, M_D2H_PER_STEP_US, us(d2h) / n, CONF_MEDIUM, dsrc);
	}
}

/* One rank's stages a helper thread may run beside the rest. */
struct rank_stage {
	const struct capture *cap;
	size_t ri;
	struct rank_analysis *ra;
	struct diag_list *dl;
	bool threaded;
};

/* Figures from the CSV tables alone (kernel PMU columns, memory): nothing of the trace. */
static void *csv_metrics(void *arg)
{
	struct rank_stage *st = arg;
	const struct rank_data *rd = &st->cap->ranks[st->ri];
	struct rank_analysis *ra = st->ra;
	pmu_metrics(rd->by_kind[CSV_KERNEL], ra);
	memory_analyse(rd->by_kind[CSV_MEMORY_RECORD], rd->by_kind[CSV_NPU_MODULE_MEM],
		       rd->by_kind[CSV_OPERATOR_MEMORY], &ra->mem);
	const char *mem_src = ra->mem.record_in_kb ? "memory_record (KB, converted)" : "memory_record";
	set_metric(ra, M_MEM_PEAK_RESERVED_MB, memory_peak_reserved_mb(&ra->mem), CONF_HIGH, mem_src);
	set_metric(ra, M_MEM_PEAK_ALLOCATED_MB, memory_peak_allocated_mb(&ra->mem), CONF_HIGH, mem_src);
	return NULL;
}

/* Op statistics read the classes and the steps' windows and phases, and write only the
 * ops: they run beside the window and per-step metrics (which write neither). */
static void *op_stats(void *arg)
{
	struct rank_stage *st = arg;
	double t0 = stagetime_now();
	analysis_ops(st->cap, st->ri, st->ra, st->dl, st->threaded);
	stagetime_add(STAGE_OPSTATS, t0);
	return NULL;
}

/* threaded: a core is free (fewer ranks than cores), so independent stages share two.
 * Messages come in the same order either way: only the steps and the op statistics add
 * any once the sets are built. */
static void analyse_rank(const struct capture *cap, size_t ri, struct rank_analysis *ra, struct diag_list *dl,
			 bool threaded, const struct analysis_hook *hook)
{
	memset(ra, 0, sizeof *ra);
	ra->late_rank = -1; /* set by the capture-level pass (analysis_attribution_comm) */
	const struct rank_data *rd = &cap->ranks[ri];
	const struct rank_store *rs = &rd->store;
	ra->rank = rd->plan->rank;
	ra->rank_index = ri;
	ra->has_trace = rs->has_events;
	struct rank_stage stage = {cap, ri, ra, dl, threaded};
	struct xthread csv_helper, ops_helper;
	xthread_start(&csv_helper, csv_metrics, &stage, threaded);
	ra->cls = xmalloc((rs->n_ev ? rs->n_ev : 1) * sizeof *ra->cls);
	double t = stagetime_now();
	category_classify(rs, ra->cls);
	t = stagetime_add(STAGE_CLASSIFY, t);

	struct rank_sets s;
	struct pending_sets pending = {.sets = &s, .rs = rs, .cls = ra->cls};
	int64_t lo = rs->window_start, hi = rs->window_end;
	const char *src_dev = "Ascend Hardware lanes", *src_host = "Python/CANN lanes";
	bool have_timeline = ra->has_trace;
	if (ra->has_trace) {
		/* beside the steps, which need the sets only without step markers */
		xthread_start(&pending.builder, build_pending_sets, &pending, threaded);
	} else {
		have_timeline = rank_sets_from_csv(rd->by_kind[CSV_KERNEL], &s, &lo, &hi);
		src_dev = "kernel_details.csv (no trace)";
		if (have_timeline)
			diag_add(dl, DIAG_INFO, NULL, 0, -1,
				 "rank %d has no trace: device figures come from the kernel table's rows", ra->rank);
	}
	ra->t0 = lo;
	ra->has_timeline = have_timeline;
	t = stagetime_now();
	analysis_steps(cap, ri, ra, have_timeline ? &pending : NULL, dl);
	stagetime_add(STAGE_STEPS, t);
	xthread_start(&ops_helper, op_stats, &stage, threaded);
	rank_sets_wait(&pending);
	t = stagetime_now();
	if (have_timeline) {
		if (!ra->has_trace)
			rank_sets_derive(&s, rs, ra->cls, false);
		window_metrics(rs, ra, &s, lo, hi, src_dev, src_host);
		rank_attribution(&s, ra, lo, hi);
		landmarks(&s, ra, lo, hi);
		advice_rank(rs, rd->by_kind[CSV_KERNEL], ra, &s);
		per_step_metrics(rs, ra, &s);
		if (ra->has_trace)
			overlap_lane_check(rs, &s, ra);
		step_trace_check(rd->by_kind[CSV_STEP_TRACE], &s, ra, lo, hi);
	}
	else
		step_trace_attribution(rd->by_kind[CSV_STEP_TRACE], ra);
	bool dir_from_device = s.dir_from_device;
	rank_sets_free(&s); /* while the op records are built: the two were the analysis's peak */
	t = stagetime_add(STAGE_METRICS, t);
	/* after the sets are freed, so the timeline index does not add to them */
	if (hook && hook->classified && rs->has_events) {
		hook->classified(hook->ctx, ri, rs, ra->cls); /* while the op statistics finish */
		stagetime_add(STAGE_TIMELINE, t);
	}
	xthread_join(&csv_helper);
	if (ra->n_steps)
		step_summary_metrics(ra, dir_from_device);
	xthread_join(&ops_helper);
}

void analysis_rank(const struct capture *cap, size_t ri, struct rank_analysis *ra, struct diag_list *dl)
{
	analyse_rank(cap, ri, ra, dl, false, NULL);
	analysis_bottlenecks(ra);
}

void analysis_rank_free(struct rank_analysis *ra)
{
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
	free(ra->ops_source);
	for (size_t i = 0; i < ra->n_op_types; i++)
		free(ra->op_types[i].name);
	free(ra->op_types);
	for (size_t i = 0; i < ra->n_op_shapes; i++)
		free(ra->op_shapes[i].name);
	free(ra->op_shapes);
	for (size_t i = 0; i < ra->n_checks; i++)
		free(ra->checks[i].explanation);
	for (int b = 0; b < BN_COUNT; b++) {
		for (size_t i = 0; i < ra->bn[b].n_ev; i++)
			free(ra->bn[b].ev[i].text);
		free(ra->bn[b].ev);
		free(ra->bn[b].gain.basis);
		free(ra->bn[b].advice);
		free(ra->bn[b].insufficient);
	}
	memory_free(&ra->mem);
	advice_free(ra);
	memset(ra, 0, sizeof *ra);
}

struct rank_job {
	size_t rank_index;
	struct diag_list diags;
};

struct rank_pool {
	const struct capture *cap;
	struct analysis *an;
	struct rank_job *jobs;
	size_t n_jobs;
	bool split_ranks; /* fewer ranks than cores: each rank uses a helper thread */
	const struct analysis_hook *hook;
	atomic_size_t next;
};

static void *rank_worker(void *arg)
{
	struct rank_pool *pool = arg;
	for (;;) {
		size_t j = atomic_fetch_add(&pool->next, 1);
		if (j >= pool->n_jobs)
			return NULL;
		analyse_rank(pool->cap, pool->jobs[j].rank_index, &pool->an->ranks[j], &pool->jobs[j].diags,
			     pool->split_ranks, pool->hook);
		if (pool->hook && pool->hook->ranks_done)
			atomic_fetch_add(pool->hook->ranks_done, 1);
	}
}

struct analysis *analysis_run(const struct capture *cap) { return analysis_run_with(cap, NULL); }

struct analysis *analysis_run_with(const struct capture *cap, const struct analysis_hook *hook)
{
	struct analysis *an = xcalloc(1, sizeof *an);
	an->cap = cap;
	diag_init(&an->diags);
	an->ranks = xcalloc(cap->n_ranks ? cap->n_ranks : 1, sizeof *an->ranks);
	struct rank_pool pool = {.cap = cap, .an = an, .hook = hook};
	pool.jobs = xcalloc(cap->n_ranks ? cap->n_ranks : 1, sizeof *pool.jobs);
	for (size_t i = 0; i < cap->n_ranks; i++) {
		if (capture_rank_state(&cap->ranks[i]) < RANK_READY)
			continue;
		pool.jobs[pool.n_jobs].rank_index = i;
		diag_init(&pool.jobs[pool.n_jobs].diags);
		pool.n_jobs++;
	}
	atomic_init(&pool.next, 0);
	/* ranks are independent until alignment: one per core, messages kept in rank order */
	size_t nthreads = (size_t)xthread_cpus();
	pool.split_ranks = pool.n_jobs < nthreads;
	if (nthreads > pool.n_jobs)
		nthreads = pool.n_jobs;
	if (nthreads > 16)
		nthreads = 16;
	pthread_t tids[16];
	size_t started = 0;
	for (size_t t = 1; t < nthreads; t++)
		if (pthread_create(&tids[started], NULL, rank_worker, &pool) == 0)
			started++;
	rank_worker(&pool);
	for (size_t t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	for (size_t j = 0; j < pool.n_jobs; j++) {
		diag_append(&an->diags, &pool.jobs[j].diags);
		diag_free(&pool.jobs[j].diags);
	}
	an->n_ranks = pool.n_jobs;
	free(pool.jobs);
	double t0 = stagetime_now();
	analysis_workload_peers(an->ranks, an->n_ranks);
	an->colls = xcalloc(an->n_ranks ? an->n_ranks : 1, sizeof *an->colls);
	an->n_colls = xcalloc(an->n_ranks ? an->n_ranks : 1, sizeof *an->n_colls);
	analysis_align(cap, an->ranks, an->n_ranks, an->colls, an->n_colls);
	analysis_slow_ranks(an);
	an->comm = comm_analyse(cap);
	analysis_comm_metrics(an);
	/* the verdicts need every rank's exposed communication split into wait and transfer */
	analysis_attribution_comm(an);
	for (size_t i = 0; i < an->n_ranks; i++)
		analysis_bottlenecks(&an->ranks[i]);
	stagetime_add(STAGE_CAPTURE, t0);
	an->cluster = cluster_analyse(an);
	return an;
}

void analysis_free(struct analysis *an)
{
	if (!an)
		return;
	for (size_t i = 0; i < an->n_ranks; i++)
		analysis_rank_free(&an->ranks[i]);
	for (size_t i = 0; an->colls && i < an->n_ranks; i++)
		free(an->colls[i]);
	free(an->colls);
	free(an->n_colls);
	free(an->ranks);
	comm_analysis_free(an->comm);
	cluster_free(an->cluster);
	cluster_db_free(an->cluster_db);
	free(an->cluster_db);
	diag_free(&an->diags);
	digest_keep_free(an->keep);
	if (an->from_digests)
		capture_free((struct capture *)an->cap);
	free(an);
}
