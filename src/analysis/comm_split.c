/* SPDX-License-Identifier: MIT */
/* The split of exposed communication into transfer, wait, setup and unsplit (comm_split.h). */
#include "comm_split.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attribution.h"
#include "capture.h"
#include "comm.h"
#include "i18n.h"
#include "metrics.h"
#include "rank_sets.h"
#include "xalloc.h"
#include "xsort.h"

const struct comm_split_word comm_split_words[4] = {
	{"comm_transfer", N_("transfer"), N_("data moving: communication.json's Transit Time")},
	{"comm_wait", N_("waiting for a peer"),
	 N_("waiting for a late captured peer: communication.json's Wait Time, else the collective's duration less the "
	    "least of the same collective across the captured ranks")},
	{"comm_setup", N_("setup"),
	 N_("the group's first collective (index 0 in hcom_<kind>__<group>_<index>_<n>): what in it is neither "
	    "transfer nor waiting for a peer (link setup)")},
	{"comm_unsplit", N_("unsplit"),
	 N_("what no data decides: communication.json's Idle Time outside setup (inputs not ready, a rank outside "
	    "the capture), a least duration every captured rank shares, collectives with neither the file nor a peer")},
};

const char *comm_before_key(int before)
{
	static const char *const keys[BEFORE_COUNT] = {"unknown", "compute", "collective", "host", "idle"};
	return before >= 0 && before < BEFORE_COUNT ? keys[before] : "unknown";
}

const char *comm_before_name(int before)
{
	switch (before) {
	case BEFORE_COMPUTE: return N_("device compute or copies");
	case BEFORE_COLLECTIVE: return N_("an earlier collective");
	case BEFORE_HOST: return N_("host work (the device idle)");
	case BEFORE_IDLE: return N_("nothing (device and host idle)");
	default: return N_("unknown");
	}
}

/* What ran just before t: device work ending within IDLE_MIN_GAP_NS of it (or running at
 * it), else an earlier collective that close, else the gap since the device's last work is
 * mostly host work, or idle. */
static uint8_t before_at(struct rank_sets *s, const struct ivset *comm, size_t ci, int64_t t, int64_t span_lo)
{
	int64_t near = t - IDLE_MIN_GAP_NS, last = span_lo;
	struct ivset *dev[2] = {&s->compute, &s->dev_copy};
	for (int k = 0; k < 2; k++) {
		size_t j = ivset_first_ending_after(dev[k], near);
		if (j < dev[k]->n && dev[k]->start[j] < t)
			return BEFORE_COMPUTE;
		if (j > 0 && dev[k]->end[j - 1] > last)
			last = dev[k]->end[j - 1];
	}
	if (ci > 0 && comm->end[ci - 1] >= near)
		return BEFORE_COLLECTIVE;
	if (ci > 0 && comm->end[ci - 1] > last)
		last = comm->end[ci - 1];
	if (last >= t)
		return BEFORE_IDLE;
	int64_t host = ivset_total_in(&s->host_only, last, t) + ivset_total_in(&s->sync, last, t);
	return 2 * host >= t - last ? BEFORE_HOST : BEFORE_IDLE;
}

void comm_split_keep(struct rank_sets *s, struct rank_analysis *ra)
{
	struct comm_keep *k = xcalloc(1, sizeof *k);
	ivset_init(&k->exposed);
	ivset_init(&k->comm);
	ivset_normalize(&s->comm);
	ivset_normalize(&s->compute);
	ivset_normalize(&s->dev_copy);
	ivset_normalize(&s->host_only);
	ivset_normalize(&s->sync);
	ivset_copy(&k->comm, &s->comm);
	/* the attribution's order: outside the device span is edge idle, compute comes first */
	struct ivset span, in;
	ivset_init(&span);
	ivset_init(&in);
	ivset_add(&span, ra->attr.span_lo, ra->attr.span_hi);
	ivset_intersect(&s->comm, &span, &in);
	ivset_subtract(&in, &s->compute, &k->exposed);
	ivset_free(&span);
	ivset_free(&in);
	k->before = xmalloc((k->comm.n ? k->comm.n : 1) * sizeof *k->before);
	for (size_t i = 0; i < k->comm.n; i++)
		k->before[i] = before_at(s, &k->comm, i, k->comm.start[i], ra->attr.span_lo);
	ra->comm_keep = k;
}

struct by_start {
	int64_t start;
	size_t i;
};

static int cmp_start(const void *a, const void *b)
{
	const struct by_start *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start ? 1 : (x->i > y->i) - (x->i < y->i);
}

void comm_split_exposure(struct rank_analysis *ra, struct coll_inst *cs, size_t n)
{
	struct comm_keep *k = ra->comm_keep;
	for (size_t i = 0; i < n; i++) {
		cs[i].exposed = -1;
		cs[i].before = BEFORE_UNKNOWN;
	}
	if (!k)
		return;
	struct by_start *o = xmalloc((n ? n : 1) * sizeof *o);
	for (size_t i = 0; i < n; i++)
		o[i] = (struct by_start){cs[i].end - cs[i].dur, i};
	xqsort(o, n, sizeof *o, cmp_start);
	int64_t claimed = INT64_MIN;
	for (size_t j = 0; j < n; j++) {
		struct coll_inst *c = &cs[o[j].i];
		int64_t a = o[j].start > claimed ? o[j].start : claimed;
		c->exposed = c->end > a ? ivset_total_in(&k->exposed, a, c->end) : 0;
		if (c->end > claimed)
			claimed = c->end;
		size_t ci = ivset_first_ending_after(&k->comm, o[j].start);
		if (ci < k->comm.n && k->comm.start[ci] <= o[j].start)
			/* inside a merged run of collectives that began earlier: another one ran */
			c->before = o[j].start - k->comm.start[ci] <= 1000 ? k->before[ci] : BEFORE_COLLECTIVE;
	}
	free(o);
	result_comm_keep_free(ra);
}

long comm_split_group_index(const char *name)
{
	/* hcom_allReduce__586_0_1: group 586, index 0; older CANN writes hcom_broadcast__483_0 */
	const char *p = name ? strstr(name, "__") : NULL;
	if (!p)
		return -1;
	p += 2;
	const char *q = p;
	while (*q >= '0' && *q <= '9')
		q++;
	if (q == p || *q != '_')
		return -1;
	char *e;
	long idx = strtol(q + 1, &e, 10);
	if (e == q + 1 || (*e != '_' && *e) || idx < 0)
		return -1;
	return idx;
}

void comm_split_merge(struct attribution *a)
{
	a->ns[ATTR_COMM_UNSPLIT] += a->ns[ATTR_COMM_WAIT] + a->ns[ATTR_COMM_TRANSFER] + a->ns[ATTR_COMM_SETUP];
	a->ns[ATTR_COMM_WAIT] = a->ns[ATTR_COMM_TRANSFER] = a->ns[ATTR_COMM_SETUP] = 0;
}

/* communication.json's operations of one rank, by name */
struct named_op {
	const char *name;
	const struct comm_op *op;
};

static int cmp_named(const void *a, const void *b)
{
	return strcmp(((const struct named_op *)a)->name, ((const struct named_op *)b)->name);
}

static const struct comm_op *find_op(const struct named_op *ops, size_t n, const char *name)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(ops[mid].name, name);
		if (!c)
			return ops[mid].op;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

enum part { P_WAIT, P_TRANSFER, P_SETUP, P_IDLE, P_PLAIN, P_COUNT };

/* Fractions of one instance's time (summing to 1); which source decided them. */
static int instance_parts(const struct coll_inst *c, const struct comm_op *op, double f[P_COUNT])
{
	memset(f, 0, P_COUNT * sizeof *f);
	bool first = comm_split_group_index(c->name) == 0;
	if (op && (op->has & (1u << COMM_T_ELAPSE)) && (op->has & (1u << COMM_T_TRANSIT)) && op->t[COMM_T_ELAPSE] > 0) {
		double e = (double)op->t[COMM_T_ELAPSE];
		double t = fmin(fmax((double)op->t[COMM_T_TRANSIT], 0), e);
		double w = op->has & (1u << COMM_T_WAIT) ? fmin(fmax((double)op->t[COMM_T_WAIT], 0), e - t) : 0;
		f[P_TRANSFER] = t / e;
		f[P_WAIT] = w / e;
		f[first ? P_SETUP : P_IDLE] = (e - t - w) / e;
		return 1;
	}
	if (c->skew >= 0 && c->dur > 0) {
		double d = (double)c->dur;
		double w = fmin((double)c->skew, d), sh = fmin((double)(c->shared > 0 ? c->shared : 0), d - w);
		f[P_WAIT] = w / d;
		f[first ? P_SETUP : P_IDLE] = sh / d;
		f[P_PLAIN] = (d - w - sh) / d;
		return 2;
	}
	f[P_PLAIN] = 1;
	return 0;
}

static void free_outliers(struct rank_analysis *ra)
{
	free(ra->outliers);
	ra->outliers = NULL;
	ra->n_outliers = 0;
}

static int cmp_outlier(const void *a, const void *b)
{
	const struct coll_outlier *x = a, *y = b;
	return x->exposed_ns > y->exposed_ns ? -1 : x->exposed_ns < y->exposed_ns ? 1 : (x->start > y->start) - (x->start < y->start);
}

/* Shares parts (doubles, summing to at most total) out as ns summing to total, the rest
 * to the last. */
static void to_ns(const double *p, int64_t total, int64_t out[P_COUNT])
{
	int64_t left = total;
	for (int k = 0; k < P_COUNT - 1; k++) {
		int64_t v = (int64_t)llround(p[k]);
		out[k] = v < 0 ? 0 : v > left ? left : v;
		left -= out[k];
	}
	out[P_COUNT - 1] = left;
}

/* A collective's kind and group: its name without the per-call suffix
 * (hcom_allReduce__586_0_1: hcom_allReduce__586), else the whole name. */
static size_t kind_len(const char *name)
{
	size_t len = strlen(name);
	if (comm_split_group_index(name) < 0)
		return len;
	const char *p = strstr(name, "__") + 2;
	while (*p >= '0' && *p <= '9')
		p++;
	return (size_t)(p - name);
}

struct kind_dur {
	const char *name;
	size_t len, i;
	int64_t dur;
};

static int cmp_kind_dur(const void *a, const void *b)
{
	const struct kind_dur *x = a, *y = b;
	size_t m = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, m);
	if (c || x->len != y->len)
		return c ? c : x->len < y->len ? -1 : 1;
	return x->dur < y->dur ? -1 : x->dur > y->dur;
}

/* Per instance: it stands out among its kind's instances (at least COMM_OUTLIER_FACTOR
 * times their median duration, two instances or more), or it is its group's first (setup),
 * so a step's steady allReduce of 6 % is not a finding of its own in every step, nor the
 * one collective of a one-step capture. Owned. */
static bool *standouts(const struct coll_inst *cs, size_t n)
{
	bool *out = xcalloc(n ? n : 1, sizeof *out);
	struct kind_dur *k = xmalloc((n ? n : 1) * sizeof *k);
	for (size_t i = 0; i < n; i++)
		k[i] = (struct kind_dur){cs[i].name ? cs[i].name : "", kind_len(cs[i].name ? cs[i].name : ""), i, cs[i].dur};
	xqsort(k, n, sizeof *k, cmp_kind_dur);
	for (size_t a = 0; a < n;) {
		size_t b = a + 1;
		while (b < n && k[b].len == k[a].len && !memcmp(k[b].name, k[a].name, k[a].len))
			b++;
		int64_t median = k[a + (b - a - 1) / 2].dur; /* the lower median */
		for (size_t j = a; j < b; j++)
			out[k[j].i] = (b - a > 1 && (double)k[j].dur >= COMM_OUTLIER_FACTOR * (double)median) ||
				      comm_split_group_index(k[j].name) == 0;
		a = b;
	}
	free(k);
	return out;
}

void comm_split_rank(struct analysis *an, size_t ri)
{
	struct rank_analysis *ra = &an->ranks[ri];
	struct attribution *a = &ra->attr;
	free_outliers(ra);
	ra->comm_unsplit_idle_ns = 0;
	if (!a->valid)
		return;
	comm_split_merge(a);
	int64_t total = a->ns[ATTR_COMM_UNSPLIT];
	if (!total) {
		a->comm_split = N_("no exposed communication");
		return;
	}
	const struct coll_inst *cs = an->colls && ri < an->n_ranks ? an->colls[ri] : NULL;
	size_t n = cs ? an->n_colls[ri] : 0;
	const struct comm_data *cd = an->cap && ra->rank_index < an->cap->n_ranks ? &an->cap->ranks[ra->rank_index].comm : NULL;
	struct named_op *ops = NULL;
	size_t n_ops = 0, cap_ops = 0;
	for (size_t i = 0; cd && i < cd->n_ops; i++) {
		const struct comm_op *op = &cd->ops[i];
		if (op->entry != COMM_ENTRY_OP || (op->rank >= 0 && op->rank != ra->rank))
			continue;
		xgrow(&ops, &cap_ops, n_ops + 1, sizeof *ops);
		ops[n_ops++] = (struct named_op){comm_str(cd, op->name), op};
	}
	xqsort(ops, n_ops, sizeof *ops, cmp_named);

	double p[P_COUNT] = {0}, by_dur[P_COUNT] = {0};
	size_t from[3] = {0, 0, 0}; /* instances split by: nothing, communication.json, the peers */
	bool exposure = false;
	for (size_t i = 0; i < n; i++) {
		double f[P_COUNT];
		const struct coll_inst *c = &cs[i];
		int src = instance_parts(c, n_ops ? find_op(ops, n_ops, c->name) : NULL, f);
		double wt = c->exposed >= 0 ? (double)c->exposed : 0;
		exposure |= c->exposed >= 0;
		if (c->exposed != 0)
			from[src]++;
		for (int k = 0; k < P_COUNT; k++) {
			p[k] += wt * f[k];
			by_dur[k] += (double)(c->dur > 0 ? c->dur : 0) * f[k];
		}
	}
	if (!exposure) { /* no timeline of the collectives: their summed shares over the total */
		double sum = 0;
		for (int k = 0; k < P_COUNT; k++)
			sum += by_dur[k];
		for (int k = 0; k < P_COUNT; k++)
			p[k] = sum > 0 ? by_dur[k] * (double)total / sum : 0;
		if (!(sum > 0)) {
			/* no instance at all: the rank's communication.json totals, if any */
			const struct comm_rank_stat *rs = an->comm ? comm_rank(an->comm, ra->rank) : NULL;
			if (rs && rs->t[COMM_T_ELAPSE] > 0) {
				double e = (double)rs->t[COMM_T_ELAPSE];
				double t = fmin(fmax((double)rs->t[COMM_T_TRANSIT], 0), e);
				double w = fmin(fmax((double)rs->t[COMM_T_WAIT], 0), e - t);
				p[P_TRANSFER] = (double)total * t / e;
				p[P_WAIT] = (double)total * w / e;
				p[P_IDLE] = (double)total * (e - t - w) / e;
				from[1]++;
			}
		}
	}
	int64_t ns[P_COUNT];
	to_ns(p, total, ns); /* what no instance covers stays in P_PLAIN */
	a->ns[ATTR_COMM_WAIT] = ns[P_WAIT];
	a->ns[ATTR_COMM_TRANSFER] = ns[P_TRANSFER];
	a->ns[ATTR_COMM_SETUP] = ns[P_SETUP];
	a->ns[ATTR_COMM_UNSPLIT] = ns[P_IDLE] + ns[P_PLAIN];
	ra->comm_unsplit_idle_ns = ns[P_IDLE];
	a->comm_split = from[1] && from[2] ? N_("per collective: communication.json's transit, wait and idle times where it "
					      "names the collective, else its duration against the least across the "
					      "captured ranks")
			: from[1] ? N_("per collective: communication.json's transit, wait and idle times")
			: from[2] ? N_("per collective: its duration against the least of the same collective across the "
				       "captured ranks (the least stays unsplit)")
				  : N_("none: no communication.json and no peer ranks");

	/* the instances that hold COMM_OUTLIER_PCT of the window or more and stand out among
	 * their kind's: findings of their own */
	bool *out = standouts(cs, n);
	for (size_t i = 0; i < n; i++) {
		const struct coll_inst *c = &cs[i];
		if (c->exposed <= 0 || attribution_pct(a, c->exposed) < COMM_OUTLIER_PCT || !out[i])
			continue;
		double f[P_COUNT];
		int src = instance_parts(c, n_ops ? find_op(ops, n_ops, c->name) : NULL, f);
		double q[P_COUNT];
		for (int k = 0; k < P_COUNT; k++)
			q[k] = f[k] * (double)c->exposed;
		int64_t qn[P_COUNT];
		to_ns(q, c->exposed, qn);
		/* a long collective that mostly moves data (a prefill's large payload) is no setup
		 * or stall: the communication candidate's transfer, not a finding of its own */
		if (2 * qn[P_TRANSFER] >= c->exposed)
			continue;
		size_t k = ra->n_outliers;
		ra->outliers = xrealloc(ra->outliers, (k + 1) * sizeof *ra->outliers);
		ra->outliers[k] = (struct coll_outlier){
			.name = c->name, .start = c->end - c->dur, .end = c->end, .exposed_ns = c->exposed,
			.part_ns = {qn[P_WAIT], qn[P_TRANSFER], qn[P_SETUP], qn[P_IDLE] + qn[P_PLAIN]},
			.first_in_group = comm_split_group_index(c->name) == 0, .source = (uint8_t)src,
			.last_rank = c->last >= 0 && (size_t)c->last < an->n_ranks && c->skew > 0 ? an->ranks[c->last].rank : -1,
			.event = c->event};
		ra->n_outliers++;
	}
	free(out);
	xqsort(ra->outliers, ra->n_outliers, sizeof *ra->outliers, cmp_outlier);
	free(ops);
}
