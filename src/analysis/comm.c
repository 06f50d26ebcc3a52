/* SPDX-License-Identifier: MIT */
/* The communication analysis: ops by group and type, transports, links, slow links. */
#include "comm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmp.h"
#include "lower_bound.h"
#include "capture.h"
#include "i18n.h"
#include "sbuf.h"
#include "xalloc.h"

/* The reference figures are msprof's own (NumberConstant in msprof's number_constant.py:
 * the "standard bandwidth" its advisor divides by, and the large-packet thresholds of
 * HcclAnalysisTool.MessageSizeThreshold), for Atlas A2 (910B). Atlas A3 doubles RDMA to
 * 25 GB/s and raises HCCS to 28 GB/s there. */
const struct comm_ref comm_refs[COMM_TR_COUNT] = {
	[COMM_TR_RDMA] = {12.5, 0.5, "one 100GE RoCE port (msprof, Atlas A2)"},
	[COMM_TR_HCCS] = {18.0, 32, "one HCCS link (msprof, Atlas A2)"},
	[COMM_TR_PCIE] = {20.0, 32, "PCIe to the host bridge (msprof, Atlas A2)"},
	[COMM_TR_SIO] = {0, 32, "no figure (die to die, Atlas A3)"},
	[COMM_TR_UB] = {0, 0, "no figure"},
	[COMM_TR_SDMA] = {0, 0, "the sum of HCCS, PCIE and SIO"},
	[COMM_TR_LOCAL] = {0, 0, "a rank's copy to itself"},
	[COMM_TR_OTHER] = {0, 0, "unknown transport"},
};

const char comm_heat_ascii[5] = {' ', '.', ':', '+', '#'};
/* xgettext:no-c-format */
const char *const comm_heat_legend =
	N_("bandwidth against the transport's reference figure (else the median of the group's links of "
	   "that transport): '.' below 25 %, ':' below 50 %, '+' below 80 %, '#' from 80 %; "
	   "'!' a slow link (below 0.5 x that median), 'L' a local copy");

double comm_ratio(int64_t part, int64_t transit)
{
	return part + transit > 0 ? (double)part / (double)(part + transit) : NAN;
}

static double gbps(double mb, int64_t ns) { return ns > 0 ? mb / ((double)ns / 1e6) : NAN; }

int comm_heat_level(const struct comm_linkagg *l)
{
	if (!(l->size_mb > 0) || isnan(l->bw_gbps))
		return 0;
	double ref = comm_refs[l->transport].gbps > 0 ? comm_refs[l->transport].gbps : l->median_gbps;
	if (!(ref > 0))
		return 4;
	double f = l->bw_gbps / ref;
	return f < 0.25 ? 1 : f < 0.5 ? 2 : f < 0.8 ? 3 : 4;
}

/* ---- which entries count ------------------------------------------------------------- */

/* SDMA repeats HCCS + PCIE + SIO: it counts only when those are empty in the entry. */
static bool transport_counts(const struct comm_data *cd, const struct comm_op *op, const struct comm_bw *bw)
{
	if (bw->transport == COMM_TR_LOCAL)
		return false;
	if (bw->transport != COMM_TR_SDMA)
		return true;
	for (uint32_t b = 0; b < op->n_bw; b++) {
		const struct comm_bw *o = &cd->bws[op->bw0 + b];
		if ((o->transport == COMM_TR_HCCS || o->transport == COMM_TR_PCIE || o->transport == COMM_TR_SIO) &&
		    (o->size_mb > 0 || o->time_ns > 0))
			return false;
	}
	return true;
}

static bool has_traffic(const struct comm_bw *bw) { return bw->size_mb > 0 || bw->time_ns > 0; }

/* Adds one transport entry's figures to a running total. */
static void tstat_add(struct comm_tstat *t, const struct comm_data *cd, const struct comm_bw *bw)
{
	if (bw->size_mb > 0)
		t->size_mb += bw->size_mb;
	if (bw->time_ns > 0)
		t->time_ns += bw->time_ns;
	double large = comm_refs[bw->transport].large_mb;
	for (uint32_t k = 0; k < bw->n_bins; k++) {
		const struct comm_bin *bin = &cd->bins[bw->bin0 + k];
		t->packets += bin->count;
		if (bin->size_mb < COMM_SMALL_PACKET_MB)
			t->small_packets += bin->count;
		if (large > 0 && bin->size_mb > large)
			t->large_packets += bin->count;
	}
	t->entries++;
}

static void tstat_finish(struct comm_tstat *t, enum comm_transport tr)
{
	t->bw_gbps = gbps(t->size_mb, t->time_ns);
	t->util = comm_refs[tr].gbps > 0 ? t->bw_gbps / comm_refs[tr].gbps : NAN;
}

static void push_item(struct comm_analysis *ca, const struct comm_data *cd, uint32_t index, bool link)
{
	xgrow(&ca->items, &ca->cap_items, ca->n_items + 1, sizeof *ca->items);
	ca->items[ca->n_items++] = (struct comm_item){cd, index, link};
}

/* ---- collecting ---------------------------------------------------------------------- */

struct rec {
	const struct comm_data *cd;
	uint32_t index;
	uint32_t group, type, step; /* ids in ca->strs */
	int32_t rank, src, dst;
	uint8_t kind, transport;
};

struct recs {
	struct rec *v;
	size_t n, cap;
};

static const char *S(const struct comm_analysis *ca, uint32_t id) { return strtab_str(ca->strs, id); }

/* The group of an entry: the hash after '@', else a cluster file's rank list. */
static uint32_t group_id(struct comm_analysis *ca, const struct comm_data *cd, uint32_t group, uint32_t members)
{
	const char *g = comm_str(cd, group);
	return strtab_intern_cstr(ca->strs, g[0] ? g : comm_str(cd, members));
}

static void collect_ops(struct comm_analysis *ca, const struct comm_data *cd, bool cluster, struct recs *ops)
{
	for (uint32_t i = 0; i < cd->n_ops; i++) {
		const struct comm_op *op = &cd->ops[i];
		if (op->entry != COMM_ENTRY_OP || cd->files[op->file].cluster != cluster)
			continue;
		const char *name = comm_str(cd, op->name);
		size_t a, n;
		comm_op_type(name, strlen(name), &a, &n);
		xgrow(&ops->v, &ops->cap, ops->n + 1, sizeof *ops->v);
		ops->v[ops->n++] = (struct rec){
			.cd = cd, .index = i,
			.group = group_id(ca, cd, op->group, op->members),
			.type = strtab_intern(ca->strs, name + a, n),
			.step = strtab_intern_cstr(ca->strs, comm_str(cd, op->step)),
			.rank = op->rank, .kind = op->kind,
		};
	}
}

static void collect_links(struct comm_analysis *ca, const struct comm_data *cd, bool cluster, struct recs *links)
{
	for (uint32_t i = 0; i < cd->n_links; i++) {
		const struct comm_link *l = &cd->links[i];
		if ((l->entry != COMM_ENTRY_OP && l->entry != COMM_ENTRY_TYPE_TOTAL) ||
		    cd->files[l->file].cluster != cluster)
			continue;
		xgrow(&links->v, &links->cap, links->n + 1, sizeof *links->v);
		links->v[links->n++] = (struct rec){
			.cd = cd, .index = i,
			.group = group_id(ca, cd, l->group, l->members),
			.rank = l->rank, .src = l->src, .dst = l->dst,
			.kind = l->kind, .transport = l->transport,
		};
	}
}

static bool any_entries(const struct capture *cap, bool cluster, bool links)
{
	for (size_t r = 0; r <= cap->n_ranks; r++) {
		const struct comm_data *cd = r < cap->n_ranks ? &cap->ranks[r].comm : &cap->cluster_comm;
		size_t n = links ? cd->n_links : cd->n_ops;
		for (size_t i = 0; i < n; i++)
			if (cd->files[links ? cd->links[i].file : cd->ops[i].file].cluster == cluster)
				return true;
	}
	return false;
}

static int cmp_op_rec(const void *pa, const void *pb)
{
	const struct rec *a = pa, *b = pb;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

static int cmp_rank_rec(const void *pa, const void *pb)
{
	const struct rec *a = pa, *b = pb;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return cmp_op_rec(pa, pb);
}

static int cmp_link_rec(const void *pa, const void *pb)
{
	const struct rec *a = pa, *b = pb;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	if (a->dst != b->dst)
		return a->dst < b->dst ? -1 : 1;
	if (a->transport != b->transport)
		return a->transport < b->transport ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* Distinct values of v (reordered). */
static size_t count_distinct(uint32_t *v, size_t n)
{
	xqsort(v, n, sizeof *v, cmp_u32);
	size_t d = 0;
	for (size_t i = 0; i < n; i++)
		d += i == 0 || v[i] != v[i - 1];
	return d;
}

/* ---- ops by group and type ----------------------------------------------------------- */

/* Times, sizes and packets of one entry into the running sums. */
static void add_entry(const struct rec *r, int64_t t[COMM_T_COUNT], double *size, int64_t *bw_time,
		      double *packets, double *small)
{
	const struct comm_op *op = &r->cd->ops[r->index];
	for (int k = 0; k < COMM_T_COUNT; k++)
		if (op->has & (1u << k))
			t[k] += op->t[k];
	struct comm_tstat s = {0};
	for (uint32_t b = 0; b < op->n_bw; b++) {
		const struct comm_bw *bw = &r->cd->bws[op->bw0 + b];
		if (transport_counts(r->cd, op, bw))
			tstat_add(&s, r->cd, bw);
	}
	*size += s.size_mb;
	*bw_time += s.time_ns;
	*packets += s.packets;
	*small += s.small_packets;
}

/* Longest elapse first; ties by group and type, for a stable order. */
static int cmp_opagg(const void *pa, const void *pb)
{
	const struct comm_opagg *a = pa, *b = pb;
	if (a->t[COMM_T_ELAPSE] != b->t[COMM_T_ELAPSE])
		return a->t[COMM_T_ELAPSE] > b->t[COMM_T_ELAPSE] ? -1 : 1;
	int c = strcmp(a->group, b->group);
	return c ? c : strcmp(a->type, b->type);
}

static void build_ops(struct comm_analysis *ca, struct recs *ops)
{
	xqsort(ops->v, ops->n, sizeof *ops->v, cmp_op_rec);
	uint32_t *tmp = xmalloc((ops->n ? ops->n : 1) * sizeof *tmp);
	size_t cap = 0;
	for (size_t i = 0; i < ops->n;) {
		size_t j = i;
		while (j < ops->n && ops->v[j].group == ops->v[i].group && ops->v[j].kind == ops->v[i].kind &&
		       ops->v[j].type == ops->v[i].type)
			j++;
		xgrow(&ca->ops, &cap, ca->n_ops + 1, sizeof *ca->ops);
		struct comm_opagg *g = &ca->ops[ca->n_ops++];
		memset(g, 0, sizeof *g);
		g->group = S(ca, ops->v[i].group);
		g->type = S(ca, ops->v[i].type);
		g->kind = ops->v[i].kind;
		g->count = j - i;
		g->item0 = ca->n_items;
		for (size_t k = i; k < j; k++) {
			add_entry(&ops->v[k], g->t, &g->size_mb, &g->bw_time_ns, &g->packets, &g->small_packets);
			push_item(ca, ops->v[k].cd, ops->v[k].index, false);
		}
		g->n_items = ca->n_items - g->item0;
		for (size_t k = i; k < j; k++)
			tmp[k - i] = (uint32_t)ops->v[k].rank;
		g->n_ranks = count_distinct(tmp, j - i);
		for (size_t k = i; k < j; k++)
			tmp[k - i] = ops->v[k].step;
		g->n_steps = count_distinct(tmp, j - i);
		g->wait_ratio = comm_ratio(g->t[COMM_T_WAIT], g->t[COMM_T_TRANSIT]);
		g->sync_ratio = comm_ratio(g->t[COMM_T_SYNC], g->t[COMM_T_TRANSIT]);
		g->bw_gbps = gbps(g->size_mb, g->bw_time_ns);
		g->small_pct = g->packets > 0 ? 100.0 * g->small_packets / g->packets : NAN;
		for (int k = 0; k < COMM_T_COUNT; k++)
			ca->t[k] += g->t[k];
		ca->entries += g->count;
		i = j;
	}
	free(tmp);
	xqsort(ca->ops, ca->n_ops, sizeof *ca->ops, cmp_opagg);
}

/* ---- transports, per rank and over all ------------------------------------------------- */

/* The transports of the entries in recs [a, b), items kept per transport. */
static void build_transports(struct comm_analysis *ca, const struct rec *v, size_t a, size_t b,
			     struct comm_tstat tr[COMM_TR_COUNT])
{
	for (int t = 0; t < COMM_TR_COUNT; t++) {
		tr[t].item0 = ca->n_items;
		for (size_t i = a; i < b; i++) {
			const struct comm_op *op = &v[i].cd->ops[v[i].index];
			for (uint32_t k = 0; k < op->n_bw; k++) {
				const struct comm_bw *bw = &v[i].cd->bws[op->bw0 + k];
				if (bw->transport != t || !has_traffic(bw))
					continue;
				tstat_add(&tr[t], v[i].cd, bw);
				push_item(ca, v[i].cd, v[i].index, false);
			}
		}
		tr[t].n_items = ca->n_items - tr[t].item0;
		tstat_finish(&tr[t], (enum comm_transport)t);
	}
}

static void build_ranks(struct comm_analysis *ca, struct recs *ops)
{
	xqsort(ops->v, ops->n, sizeof *ops->v, cmp_rank_rec);
	build_transports(ca, ops->v, 0, ops->n, ca->tr);
	size_t cap = 0;
	for (size_t i = 0; i < ops->n;) {
		size_t j = i;
		while (j < ops->n && ops->v[j].rank == ops->v[i].rank)
			j++;
		xgrow(&ca->ranks, &cap, ca->n_ranks + 1, sizeof *ca->ranks);
		struct comm_rank_stat *rs = &ca->ranks[ca->n_ranks++];
		memset(rs, 0, sizeof *rs);
		rs->rank = ops->v[i].rank;
		rs->entries = j - i;
		int64_t bw_time = 0;
		for (size_t k = i; k < j; k++)
			add_entry(&ops->v[k], rs->t, &rs->size_mb, &bw_time, &rs->packets, &rs->small_packets);
		build_transports(ca, ops->v, i, j, rs->tr);
		i = j;
	}
}

/* ---- links ----------------------------------------------------------------------------- */

static double median(double *v, size_t n)
{
	xqsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Local copies are no link, and below a small packet's size a link's bandwidth measures
 * its latency: neither is compared. */
static bool comparable(const struct comm_linkagg *l)
{
	return l->transport != COMM_TR_LOCAL && l->src != l->dst && l->bw_gbps > 0 &&
	       l->size_mb >= COMM_SMALL_PACKET_MB;
}

/* Medians per transport inside one group's links [a, b), and the slow ones. */
static void slow_links(struct comm_analysis *ca, size_t a, size_t b)
{
	double *v = xmalloc((b - a) * sizeof *v);
	for (int t = 0; t < COMM_TR_COUNT; t++) {
		size_t n = 0;
		for (size_t i = a; i < b; i++)
			if (ca->links[i].transport == t && comparable(&ca->links[i]))
				v[n++] = ca->links[i].bw_gbps;
		double med = n >= COMM_SLOW_LINK_MIN ? median(v, n) : NAN;
		for (size_t i = a; i < b; i++) {
			struct comm_linkagg *l = &ca->links[i];
			if (l->transport != t)
				continue;
			l->median_gbps = med;
			l->slow = !isnan(med) && comparable(l) && l->bw_gbps < COMM_SLOW_LINK_FACTOR * med;
			ca->n_slow += l->slow;
		}
	}
	free(v);
}

static void build_group(struct comm_analysis *ca, size_t a, size_t b, size_t *cap)
{
	xgrow(&ca->groups, cap, ca->n_groups + 1, sizeof *ca->groups);
	struct comm_group *g = &ca->groups[ca->n_groups++];
	memset(g, 0, sizeof *g);
	g->name = ca->links[a].group;
	g->kind = ca->links[a].kind;
	g->link0 = a;
	g->n_links = b - a;
	int32_t *ids = xmalloc(2 * (b - a) * sizeof *ids);
	size_t n = 0;
	for (size_t i = a; i < b; i++) {
		ids[n++] = ca->links[i].src;
		ids[n++] = ca->links[i].dst;
		if (ca->links[i].transport != COMM_TR_LOCAL && ca->links[i].bw_gbps > g->max_gbps)
			g->max_gbps = ca->links[i].bw_gbps;
	}
	xqsort(ids, n, sizeof *ids, cmp_i32);
	size_t d = 0;
	for (size_t i = 0; i < n; i++)
		if (!d || ids[d - 1] != ids[i])
			ids[d++] = ids[i];
	g->ranks = ids;
	g->n_ranks = d;
	g->global = xmalloc((d ? d : 1) * sizeof *g->global);
	for (size_t i = 0; i < d; i++)
		g->global[i] = -1;
	/* a rank's self-link in its own matrix file says which local id it is */
	for (size_t i = a; i < b; i++) {
		const struct comm_linkagg *l = &ca->links[i];
		if (l->src != l->dst || l->rank < 0)
			continue;
		int32_t *at = bsearch(&l->src, ids, d, sizeof *ids, cmp_i32);
		if (at)
			g->global[at - ids] = l->rank;
	}
	slow_links(ca, a, b);
}

static bool captured_rank(const struct capture *cap, int32_t rank)
{
	for (size_t r = 0; r < cap->n_ranks; r++)
		if (cap->ranks[r].plan && cap->ranks[r].plan->rank == rank)
			return true;
	return false;
}

/* How much of each group the capture holds: a group of 8 with 2 rank directories is not
 * a group of 2, and its figures speak for those 2 only */
static void count_captured(struct comm_analysis *ca, const struct capture *cap)
{
	for (size_t i = 0; i < ca->n_groups; i++) {
		struct comm_group *g = &ca->groups[i];
		int32_t *owners = xmalloc((g->n_links ? g->n_links : 1) * sizeof *owners);
		size_t n = 0;
		for (size_t k = g->link0; k < g->link0 + g->n_links; k++)
			if (ca->links[k].rank >= 0)
				owners[n++] = ca->links[k].rank;
		xqsort(owners, n, sizeof *owners, cmp_i32);
		g->n_captured = 0;
		for (size_t k = 0; k < n; k++)
			g->n_captured += !k || owners[k] != owners[k - 1];
		free(owners);
		if (!n) /* cluster files: the ids are global ranks */
			for (size_t k = 0; k < g->n_ranks; k++)
				g->n_captured += captured_rank(cap, g->ranks[k]);
	}
}

/* The captured rank's coordinates from its directory name, or NULL */
static const int *coords_of(const struct capture *cap, int (*coords)[PAR_COUNT], const bool *has, int32_t rank)
{
	for (size_t r = 0; r < cap->n_ranks; r++)
		if (cap->ranks[r].plan && cap->ranks[r].plan->rank == rank)
			return has[r] ? coords[r] : NULL;
	return NULL;
}

/* A group is a layout dimension's when its members (all captured, two or more) share
 * every coordinate but that one: tp1 and tp0 of dp0_pp0_dcp0_ep0 form a tp group */
static int group_dim(const struct comm_analysis *ca, const struct comm_group *g, const struct capture *cap,
		     int (*coords)[PAR_COUNT], const bool *has)
{
	const int *first = NULL;
	bool differs[PAR_COUNT] = {false};
	size_t known = 0;
	for (size_t k = 0; k < g->n_ranks; k++) {
		int32_t global = ca->from_cluster ? g->ranks[k] : g->global[k];
		const int *c = global >= 0 ? coords_of(cap, coords, has, global) : NULL;
		if (!c)
			continue;
		known++;
		if (!first)
			first = c;
		for (int d = 0; d < PAR_COUNT; d++)
			differs[d] |= c[d] != first[d];
	}
	int dim = -1;
	for (int d = 0; d < PAR_COUNT; d++)
		if (differs[d]) {
			if (dim >= 0)
				return -1; /* two dimensions vary: no one dimension's group */
			dim = d;
		}
	/* every member known: two captured of 8 that differ in tp alone may span dp too */
	return known >= 2 && known == g->n_ranks ? dim : -1;
}

/* The dimension a rank's profiler_metadata.json names for exactly the group's members
 * (all of them known), or -1: mp, dp_cp and the like name no dimension, and one member
 * set under two dimensions is neither */
static int metadata_dim(const struct comm_analysis *ca, const struct comm_group *g, const struct capture *cap)
{
	int32_t *members = xmalloc((g->n_ranks ? g->n_ranks : 1) * sizeof *members);
	size_t n = 0;
	for (size_t k = 0; k < g->n_ranks; k++) {
		int32_t global = ca->from_cluster ? g->ranks[k] : g->global[k];
		if (global >= 0)
			members[n++] = global;
	}
	int dim = -1;
	if (n && n == g->n_ranks) {
		xqsort(members, n, sizeof *members, cmp_i32);
		for (size_t r = 0; r < cap->n_ranks; r++) {
			const struct rank_plan *rp = cap->ranks[r].plan;
			for (size_t k = 0; rp && k < rp->n_par_groups; k++) {
				const struct parallel_group_info *pg = &rp->par_groups[k];
				if (pg->n_ranks != n || memcmp(pg->ranks, members, n * sizeof *members))
					continue;
				if (dim >= 0 && dim != pg->dim) {
					free(members);
					return -1;
				}
				dim = pg->dim;
			}
		}
	}
	free(members);
	return dim;
}

static void label_parallel(struct comm_analysis *ca, const struct capture *cap)
{
	int (*coords)[PAR_COUNT] = xmalloc((cap->n_ranks ? cap->n_ranks : 1) * sizeof *coords);
	bool *has = xcalloc(cap->n_ranks ? cap->n_ranks : 1, sizeof *has);
	for (size_t r = 0; r < cap->n_ranks; r++)
		/* a digest's fuzz harness has no plan */
		has[r] = cap->ranks[r].plan && discover_parallel_coords(cap->ranks[r].plan->label, coords[r]);
	for (size_t i = 0; i < ca->n_groups; i++) {
		struct comm_group *g = &ca->groups[i];
		g->parallel = metadata_dim(ca, g, cap);
		if (g->parallel < 0)
			g->parallel = group_dim(ca, g, cap, coords, has);
	}
	free(coords);
	free(has);
}

char *comm_layout_text(const struct comm_analysis *ca, char *buf, size_t size)
{
	size_t count[PAR_COUNT] = {0};
	for (size_t i = 0; ca && i < ca->n_groups; i++)
		if (ca->groups[i].parallel >= 0)
			count[ca->groups[i].parallel]++;
	size_t k = 0;
	buf[0] = '\0';
	for (int d = 0; d < PAR_COUNT && k < size; d++)
		if (count[d])
			k += (size_t)snprintf(buf + k, size - k, "%s%s %zu", k ? ", " : "", parallel_dim_name((enum parallel_dim)d),
					      count[d]);
	return buf;
}

size_t comm_groups_partial(const struct comm_analysis *ca, const struct comm_group **largest)
{
	size_t n = 0;
	const struct comm_group *big = NULL;
	for (size_t i = 0; ca && i < ca->n_groups; i++) {
		const struct comm_group *g = &ca->groups[i];
		if (g->n_captured >= g->n_ranks)
			continue;
		n++;
		if (!big || g->n_ranks > big->n_ranks)
			big = g;
	}
	if (largest)
		*largest = big;
	return n;
}

static void build_links(struct comm_analysis *ca, struct recs *links)
{
	xqsort(links->v, links->n, sizeof *links->v, cmp_link_rec);
	size_t cap = 0;
	for (size_t i = 0; i < links->n;) {
		const struct rec *r = &links->v[i];
		size_t j = i;
		while (j < links->n && links->v[j].group == r->group && links->v[j].src == r->src &&
		       links->v[j].dst == r->dst && links->v[j].transport == r->transport)
			j++;
		xgrow(&ca->links, &cap, ca->n_links + 1, sizeof *ca->links);
		struct comm_linkagg *l = &ca->links[ca->n_links++];
		memset(l, 0, sizeof *l);
		l->group = S(ca, r->group);
		l->src = r->src;
		l->dst = r->dst;
		l->transport = r->transport;
		l->kind = r->kind;
		l->rank = r->rank;
		l->item0 = ca->n_items;
		for (size_t k = i; k < j; k++) {
			const struct comm_link *src = &links->v[k].cd->links[links->v[k].index];
			if (src->size_mb > 0)
				l->size_mb += src->size_mb;
			if (src->time_ns > 0)
				l->time_ns += src->time_ns;
			push_item(ca, links->v[k].cd, links->v[k].index, true);
		}
		l->n_items = ca->n_items - l->item0;
		l->bw_gbps = gbps(l->size_mb, l->time_ns);
		l->median_gbps = NAN;
		i = j;
	}
	size_t gcap = 0;
	for (size_t i = 0; i < ca->n_links;) {
		size_t j = i;
		while (j < ca->n_links && ca->links[j].group == ca->links[i].group)
			j++;
		build_group(ca, i, j, &gcap);
		i = j;
	}
}

size_t comm_slow_links_of(const struct comm_analysis *ca, int rank)
{
	size_t n = 0;
	for (size_t i = 0; i < ca->n_links; i++)
		n += ca->links[i].slow && comm_link_owner(&ca->links[i]) == rank;
	return n;
}

/* ---- driver ---------------------------------------------------------------------------- */

struct comm_analysis *comm_analyse(const struct capture *cap)
{
	struct comm_analysis *ca = xcalloc(1, sizeof *ca);
	ca->strs = strtab_new();
	ca->wait_ratio = ca->sync_ratio = ca->small_pct = NAN;
	/* per-rank files when there are any, else the cluster's: never both (the same ops) */
	bool ops_cluster = !any_entries(cap, false, false) && any_entries(cap, true, false);
	bool links_cluster = !any_entries(cap, false, true) && any_entries(cap, true, true);
	struct recs ops = {0}, links = {0};
	for (size_t r = 0; r <= cap->n_ranks; r++) {
		const struct comm_data *cd = r < cap->n_ranks ? &cap->ranks[r].comm : &cap->cluster_comm;
		collect_ops(ca, cd, ops_cluster, &ops);
		collect_links(ca, cd, links_cluster, &links);
	}
	ca->present = ops.n || links.n;
	ca->from_cluster = (ops_cluster || !ops.n) && (links_cluster || !links.n) && ca->present;
	struct sbuf src = SBUF_INIT;
	if (ca->present)
		sbuf_addf(&src, "%s%s%s", ops.n ? (ops_cluster ? "cluster_communication.json" : "communication.json") : "",
			  ops.n && links.n ? _(" and ") : "",
			  links.n ? (links_cluster ? "cluster_communication_matrix.json" : "communication_matrix.json") : "");
	if (ca->present && !ca->from_cluster && cap->plan.n_cluster_files)
		sbuf_adds(&src, _(" of each rank (the cluster's files repeat them and are not added)"));
	ca->source = sbuf_detach(&src);

	build_ops(ca, &ops);
	build_ranks(ca, &ops);
	build_links(ca, &links);
	count_captured(ca, cap);
	label_parallel(ca, cap);
	double packets = 0, small = 0;
	uint32_t *steps = xmalloc((ops.n ? ops.n : 1) * sizeof *steps);
	for (size_t i = 0; i < ops.n; i++)
		steps[i] = ops.v[i].step;
	ca->steps = count_distinct(steps, ops.n);
	free(steps);
	for (size_t r = 0; r < ca->n_ranks; r++) {
		packets += ca->ranks[r].packets;
		small += ca->ranks[r].small_packets;
	}
	ca->wait_ratio = comm_ratio(ca->t[COMM_T_WAIT], ca->t[COMM_T_TRANSIT]);
	ca->sync_ratio = comm_ratio(ca->t[COMM_T_SYNC], ca->t[COMM_T_TRANSIT]);
	ca->small_pct = packets > 0 ? 100.0 * small / packets : NAN;
	free(ops.v);
	free(links.v);
	return ca;
}

/* A group's links are sorted by (src, dst). */
#define LINK_BEFORE(l, i, want) ((l)[i].src < (want)[0] || ((l)[i].src == (want)[0] && (l)[i].dst < (want)[1]))
LOWER_BOUND_DEFINE(link_lower_bound, const struct comm_linkagg *, const int32_t *, LINK_BEFORE)

const struct comm_linkagg *comm_group_link(const struct comm_analysis *ca, const struct comm_group *g, int32_t src,
					   int32_t dst)
{
	const int32_t want[2] = {src, dst};
	size_t lo = link_lower_bound(ca->links, want, g->link0, g->link0 + g->n_links);
	return lo < g->link0 + g->n_links && ca->links[lo].src == src && ca->links[lo].dst == dst ? &ca->links[lo]
												  : NULL;
}

const struct comm_rank_stat *comm_rank(const struct comm_analysis *ca, int rank)
{
	for (size_t i = 0; ca && i < ca->n_ranks; i++)
		if (ca->ranks[i].rank == rank)
			return &ca->ranks[i];
	return NULL;
}

void comm_analysis_free(struct comm_analysis *ca)
{
	if (!ca)
		return;
	for (size_t i = 0; i < ca->n_groups; i++) {
		free(ca->groups[i].ranks);
		free(ca->groups[i].global);
	}
	free(ca->groups);
	free(ca->ops);
	free(ca->ranks);
	free(ca->links);
	free(ca->items);
	free(ca->source);
	strtab_free(ca->strs);
	free(ca);
}

/* ---- per-rank metrics ------------------------------------------------------------------ */
