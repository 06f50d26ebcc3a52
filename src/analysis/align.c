/* SPDX-License-Identifier: MIT */
/* Clock alignment across ranks and the slow-rank flags. Blocking collectives end at the
 * same instant on every rank, so the difference of their end times is the difference of
 * the ranks' clocks. Collectives are matched by the sequence of their names (the best
 * shift of one list against the other), not by index, so a rank that recorded a few
 * more warm-up collectives still lines up. */
#include "align.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmp.h"
#include "evkind.h"
#include "strtab.h"
#include "xalloc.h"

#define MAX_SHIFT 64


/* Collectives of a rank exported without a trace: its kernel table's communication rows. */
static size_t collect_csv(const struct csv_table *k, struct coll_inst **out)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	struct kernel_memo memo = {0};
	for (size_t r = 0; k && r < k->nrows; r++) {
		int64_t a, d;
		const char *name = csvt_str(k, r, COL_NAME);
		if (!csvt_time(k, r, COL_START, &a) || !csvt_time(k, r, COL_DURATION, &d))
			continue;
		if (evkind_kernel_class(&memo, k, r).cat != CAT_COMM)
			continue;
		xgrow(out, &cap, n + 1, sizeof **out);
		(*out)[n++] = (struct coll_inst){a + d, d, name, 0, -1, -1, 0, -1, UINT32_MAX, 0};
	}
	evkind_kernel_memo_free(&memo);
	return n;
}

/* Collectives of a rank exported with neither a trace nor a kernel table (msinsight's
 * st/level2 ranks 1 and 3: analysis.db, communication.json and step_trace_time.csv only):
 * its communication.json's operations. Their Start Timestamp and Elapse Time are the kernel
 * table's Start Time and Duration of the same op (equal to the digit on the ranks that have
 * both), so they line up with the other ranks' lists. */
static size_t collect_comm(const struct comm_data *cd, struct coll_inst **out)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	for (size_t i = 0; i < cd->n_ops; i++) {
		const struct comm_op *op = &cd->ops[i];
		if (op->entry != COMM_ENTRY_OP || !op->has_start || !(op->has & (1u << COMM_T_ELAPSE)) ||
		    cd->files[op->file].cluster)
			continue;
		xgrow(out, &cap, n + 1, sizeof **out);
		(*out)[n++] = (struct coll_inst){op->start_ns + op->t[COMM_T_ELAPSE], op->t[COMM_T_ELAPSE],
						 comm_str(cd, op->name), 0, -1, -1, 0, -1, UINT32_MAX, 0};
	}
	return n;
}

static size_t collect(const struct rank_data *rd, const struct ev_class *cls, struct coll_inst **out)
{
	const struct rank_store *rs = &rd->store;
	if (!rs->has_events) {
		size_t n = collect_csv(rd->by_kind[CSV_KERNEL], out);
		if (n || !rd->comm.n_ops)
			return n;
		free(*out);
		return collect_comm(&rd->comm, out);
	}
	bool group = evkind_has_group_lanes(rs);
	size_t n = 0, cap = 0;
	*out = NULL;
	/* lane events are sorted; walk the lanes to keep time order per lane, then sort */
	for (size_t ev = 0; ev < rs->n_ev; ev++) {
		/* MC2 kernels (MoE dispatch/combine) exchange data with the peers and end with the
		 * last of them, as collectives do: their waits are split the same way (as the
		 * kernel table's communication rows already are, collect_csv) */
		bool mc2 = (cls[ev].flags & EVF_FUSED_COMM) && store_ev_lane(rs, ev)->group == LANE_DEVICE;
		if (!mc2 && !analysis_is_collective(rs, cls, (uint32_t)ev, group))
			continue;
		xgrow(out, &cap, n + 1, sizeof **out);
		double b = n < 100000 ? evkind_collective_bytes(rs, (uint32_t)ev) : 0;
		(*out)[n++] = (struct coll_inst){store_ts(rs, ev) + store_dur(rs, ev), store_dur(rs, ev), store_ev_name(rs, ev),
						 b, -1, -1, 0, -1, (uint32_t)ev, 0};
	}
	return n;
}

static int cmp_coll(const void *a, const void *b)
{
	const struct coll_inst *x = a, *y = b;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* Names equal, or equal once digits are ignored (loose). */
static bool same_name(const char *a, const char *b, bool loose)
{
	if (!loose)
		return strcmp(a, b) == 0;
	for (;;) {
		while (*a >= '0' && *a <= '9')
			a++;
		while (*b >= '0' && *b <= '9')
			b++;
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}

static size_t count_matches(const struct coll_inst *ref, size_t nref, const struct coll_inst *r, size_t nr, long shift,
			    bool loose)
{
	size_t m = 0;
	for (size_t i = 0; i < nref; i++) {
		long j = (long)i + shift;
		if (j < 0 || (size_t)j >= nr)
			continue;
		m += same_name(ref[i].name, r[j].name, loose);
	}
	return m;
}

/* The collective offset of a rank from the k (> 0) offsets its matched collectives' ends
 * tell (reordered): their median, and the residual around it. */
static void set_offset(struct rank_analysis *ra, int64_t *d, size_t k, bool loose)
{
	xqsort(d, k, sizeof *d, cmp_i64);
	int64_t off = nearest_rank(d, k, 0.5);
	for (size_t i = 0; i < k; i++)
		d[i] = llabs(d[i] - off);
	xqsort(d, k, sizeof *d, cmp_i64);
	ra->offset_ns[ALIGN_COLLECTIVE] = off;
	ra->residual_ns = nearest_rank(d, k, 0.5);
	ra->residual_max_ns = d[k - 1];
	ra->matched_collectives = k;
	ra->collective_ok = true;
	ra->align_loose = loose;
}

/* The rank's clock against the reference's, from their collectives at the best shift:
 * exact names first, then, when no name matches exactly, names with digits ignored. */
static void align_pair(const struct coll_inst *ref, size_t nref, const struct coll_inst *r, size_t nr,
		       struct rank_analysis *ra)
{
	long best_shift = 0;
	size_t best = 0;
	bool loose = false;
	for (int pass = 0; pass < 2 && best == 0; pass++) {
		loose = pass == 1;
		best = 0;
		for (long s = -MAX_SHIFT; s <= MAX_SHIFT; s++) {
			size_t m = count_matches(ref, nref, r, nr, s, loose);
			if (m > best || (m == best && labs(s) < labs(best_shift))) {
				best = m;
				best_shift = s;
			}
		}
	}
	if (best == 0)
		return;
	int64_t *d = xmalloc(best * sizeof *d);
	size_t k = 0;
	for (size_t i = 0; i < nref; i++) {
		long j = (long)i + best_shift;
		if (j < 0 || (size_t)j >= nr || !same_name(ref[i].name, r[j].name, loose))
			continue;
		d[k++] = r[j].end - ref[i].end;
	}
	set_offset(ra, d, k, loose);
	free(d);
}

/* One rank's instance of a collective: its exact name (an id over every rank's names), the
 * how-many-th of that name on its rank, and where it is in the rank's list. Sorted by
 * (name, occ, rank), the instances of one collective on every rank are neighbours. */
struct coll_key {
	uint32_t name, occ, rank, idx;
};

static int cmp_key(const void *a, const void *b)
{
	const struct coll_key *x = a, *y = b;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->occ != y->occ)
		return x->occ < y->occ ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static struct coll_key *coll_keys(struct coll_inst *const *cs, const size_t *ncs, size_t n, size_t *nk)
{
	struct strtab *names = strtab_new();
	size_t total = 0, k = 0;
	for (size_t r = 0; r < n; r++)
		total += ncs[r];
	struct coll_key *keys = xmalloc((total ? total : 1) * sizeof *keys);
	uint32_t *occ = NULL;
	size_t occ_cap = 0;
	for (size_t r = 0; r < n; r++) {
		size_t first = k;
		for (size_t i = 0; i < ncs[r]; i++) {
			uint32_t id = strtab_intern_cstr(names, cs[r][i].name ? cs[r][i].name : "");
			if (id >= occ_cap) {
				size_t old = occ_cap;
				xgrow(&occ, &occ_cap, (size_t)id + 1, sizeof *occ);
				memset(occ + old, 0, (occ_cap - old) * sizeof *occ);
			}
			keys[k++] = (struct coll_key){id, occ[id]++, (uint32_t)r, (uint32_t)i};
		}
		for (size_t i = first; i < k; i++)
			occ[keys[i].name] = 0;
	}
	free(occ);
	strtab_free(names);
	xqsort(keys, k, sizeof *keys, cmp_key);
	*nk = k;
	return keys;
}

/* The end of collective key on its rank's clock aligned to the reference's. */
static int64_t aligned_end(struct coll_inst *const *cs, const struct rank_analysis *ranks, const struct coll_key *key)
{
	return cs[key->rank][key->idx].end - ranks[key->rank].offset_ns[ALIGN_COLLECTIVE];
}

/* keys[a] starts one collective's instances (one name and occurrence, every rank's);
 * where they end. */
static size_t instance_end(const struct coll_key *keys, size_t nk, size_t a)
{
	size_t b = a + 1;
	while (b < nk && keys[b].name == keys[a].name && keys[b].occ == keys[a].occ)
		b++;
	return b;
}

/* One shared collective's word on a rank's offset (align_through_peers). */
struct peer_est {
	int64_t off;  /* the offset one shared collective tells */
	uint32_t via; /* the aligned rank it was shared with (an index into ranks) */
};

static int cmp_via(const void *a, const void *b)
{
	const struct peer_est *x = a, *y = b;
	return x->via < y->via ? -1 : x->via > y->via;
}

/* The offset of a rank from its estimates: their median, the residual, the rank most of
 * them came through (ranks[].rank). Reorders e. */
static void settle_offset(struct rank_analysis *ranks, struct rank_analysis *ra, struct peer_est *e, size_t m)
{
	xqsort(e, m, sizeof *e, cmp_via);
	size_t best = 0;
	for (size_t i = 0; i < m;) {
		size_t j = i + 1;
		while (j < m && e[j].via == e[i].via)
			j++;
		if (j - i > best) {
			best = j - i;
			ra->aligned_via = ranks[e[i].via].rank;
		}
		i = j;
	}
	int64_t *d = xmalloc(m * sizeof *d);
	for (size_t i = 0; i < m; i++)
		d[i] = e[i].off;
	set_offset(ra, d, m, false);
	free(d);
}

/* Ranks that share no collective name with the reference (another communication group:
 * torch_npu names the group in the first number, hcom_allReduce__170_1_1 on every rank of
 * one group, __691 on another's) are aligned through the ranks they do share names with,
 * once those are aligned: each collective shared with an aligned rank gives the offset
 * its end time tells. exact[r]: rank r's clock is aligned by collectives of its exact
 * names (the reference's own, or through peers); ranks aligned here become so, round
 * after round, until no rank is left that shares a collective with an aligned one. */
static void align_through_peers(struct rank_analysis *ranks, size_t n, struct coll_inst *const *cs,
				const struct coll_key *keys, size_t nk, bool *exact)
{
	struct peer_est **est = xcalloc(n, sizeof *est);
	size_t *n_est = xcalloc(n, sizeof *n_est), *cap_est = xcalloc(n, sizeof *cap_est);
	for (bool progress = true; progress;) {
		progress = false;
		for (size_t a = 0; a < nk;) {
			size_t b = instance_end(keys, nk, a);
			/* the instance's first aligned rank stands for the aligned clock */
			size_t u = a;
			while (u < b && !exact[keys[u].rank])
				u++;
			for (size_t i = a; u < b && i < b; i++) {
				uint32_t v = keys[i].rank;
				if (exact[v])
					continue;
				xgrow(&est[v], &cap_est[v], n_est[v] + 1, sizeof *est[v]);
				est[v][n_est[v]++] = (struct peer_est){
					cs[v][keys[i].idx].end - aligned_end(cs, ranks, &keys[u]), keys[u].rank};
			}
			a = b;
		}
		/* settled after the round: a rank aligned in it counts as aligned from the next */
		for (size_t v = 0; v < n; v++) {
			if (exact[v] || !n_est[v])
				continue;
			settle_offset(ranks, &ranks[v], est[v], n_est[v]);
			n_est[v] = 0;
			exact[v] = progress = true;
		}
	}
	for (size_t v = 0; v < n; v++)
		free(est[v]);
	free(est);
	free(n_est);
	free(cap_est);
}

/* The least time a collective may take to move its payload before the rest of it must be a
 * wait: 1 ms of fixed cost (an HCCL collective's latency, tens of us on one node and a few
 * hundred across nodes) plus the payload at 1 GB/s (no HCCS, RoCE or PCIe link of an Ascend
 * system is that slow). A bound chosen to be sound, not tight: what is left under it is not
 * claimed to be transfer (comm.c keeps it unsplit). */
#define SPREAD_LATENCY_NS 1000000
#define SPREAD_FLOOR_BYTES_PER_NS 1.0
/* A blocking collective ends at the same instant on every rank of its group: instances of
 * one name whose aligned ends are further apart are different collectives (a repeated name
 * paired with the wrong instance). */
#define SAME_END_NS 1000000

/* Whether key's rank takes part in its collective's spread: its clock aligned by exact
 * names, its end within SAME_END_NS of the instances' median end mid. */
static bool in_spread(struct coll_inst *const *cs, const struct rank_analysis *ranks, const struct coll_key *key,
		      const bool *exact, int64_t mid)
{
	return exact[key->rank] && llabs(aligned_end(cs, ranks, key) - mid) <= SAME_END_NS;
}

/* msprof-analyze's cluster_time_summary: a collective's transfer is at most its least
 * duration across the ranks, the rest of each rank's duration is waiting for the last
 * peer. Over every collective found on two ranks or more: the same exact name (names
 * matched with digits ignored are another group's ops, each with its own waits) on ranks
 * whose clocks that kind of match aligned (exact[]), ending within SAME_END_NS of the
 * instances' median end. An instance's payload is the greatest its ranks read: a group
 * without the reference has its own (its first collective's link setup is capped too). */
static void collective_spread(struct coll_inst *const *cs, struct rank_analysis *ranks, size_t n,
			      const struct coll_key *keys, size_t nk, const bool *exact)
{
	for (size_t r = 0; r < n; r++) {
		struct rank_analysis *ra = &ranks[r];
		ra->coll_wait_ns = ra->coll_transfer_ns = ra->coll_skew_ns = 0;
		ra->coll_spread_ok = ra->coll_spread_capped = false;
	}
	for (size_t i = 0; i < nk; i++) {
		struct coll_inst *c = &cs[keys[i].rank][keys[i].idx];
		c->skew = -1;
		c->shared = 0;
		c->last = -1;
	}
	int64_t *ends = xmalloc((n ? n : 1) * sizeof *ends);
	for (size_t a = 0; a < nk;) {
		size_t b = instance_end(keys, nk, a);
		size_t m = 0;
		for (size_t i = a; i < b; i++)
			if (exact[keys[i].rank])
				ends[m++] = aligned_end(cs, ranks, &keys[i]);
		if (m < 2) {
			a = b;
			continue;
		}
		int64_t mid = nearest_rank_select(ends, m, 0.5);
		int64_t least = INT64_MAX;
		double bytes = 0;
		size_t kept = 0;
		int32_t last = -1;
		for (size_t i = a; i < b; i++) {
			const struct coll_inst *c = &cs[keys[i].rank][keys[i].idx];
			if (!in_spread(cs, ranks, &keys[i], exact, mid))
				continue;
			kept++;
			if (c->dur < least) {
				least = c->dur;
				last = (int32_t)keys[i].rank;
			}
			if (c->bytes > bytes)
				bytes = c->bytes;
		}
		if (kept < 2) {
			a = b;
			continue;
		}
		/* a least duration beyond the time its payload may take (above) is partly a wait
		 * every rank shares, such as the first collective's link setup: a 2-rank DDP
		 * capture's first allReduce (16 MB, 56 ms on both ranks) read as 48 % "transfer"
		 * and drew "overlap" advice */
		double most = SPREAD_LATENCY_NS + bytes / SPREAD_FLOOR_BYTES_PER_NS;
		bool capped = bytes > 0 && (double)least > most;
		int64_t bound = capped ? (int64_t)most : least;
		for (size_t i = a; i < b; i++) {
			struct coll_inst *c = &cs[keys[i].rank][keys[i].idx];
			if (!in_spread(cs, ranks, &keys[i], exact, mid))
				continue;
			c->skew = c->dur - least;
			c->shared = capped ? least - bound : 0;
			c->last = last;
			struct rank_analysis *ra = &ranks[keys[i].rank];
			ra->coll_wait_ns += c->dur - bound;
			ra->coll_transfer_ns += bound;
			ra->coll_skew_ns += c->dur - least;
			ra->coll_spread_ok = true;
			ra->coll_spread_capped |= capped;
		}
		a = b;
	}
	free(ends);
}

size_t align_collectives(const struct capture *cap, const struct rank_analysis *ra, struct coll_inst **out)
{
	size_t n = collect(&cap->ranks[ra->rank_index], ra->cls, out);
	xqsort(*out, n, sizeof **out, cmp_coll);
	return n;
}

void align_lists(struct rank_analysis *ranks, size_t n, struct coll_inst *const *cs, const size_t *ncs)
{
	if (n == 0)
		return;
	struct rank_analysis *ref = &ranks[0];
	const struct coll_inst *rc = cs[0];
	size_t nrc = ncs[0];
	bool *exact = xcalloc(n, sizeof *exact);
	for (size_t i = 0; i < n; i++) {
		struct rank_analysis *ra = &ranks[i];
		ra->offset_ns[ALIGN_RAW] = 0;
		/* without a timeline on both sides there is nothing to align */
		ra->offset_ns[ALIGN_FIRST] = ra->has_timeline && ref->has_timeline ? ra->t0 - ref->t0 : 0;
		ra->offset_ns[ALIGN_COLLECTIVE] = 0;
		ra->aligned_via = -1;
		ra->align_loose = false;
		if (i == 0) {
			ra->collective_ok = exact[0] = nrc > 0;
			ra->matched_collectives = nrc;
			continue;
		}
		ra->collective_ok = false;
		ra->matched_collectives = 0;
		ra->residual_ns = ra->residual_max_ns = 0;
		if (ncs[i] && nrc)
			align_pair(rc, nrc, cs[i], ncs[i], ra);
		exact[i] = ra->collective_ok && !ra->align_loose;
	}
	size_t nk = 0;
	struct coll_key *keys = n > 1 ? coll_keys(cs, ncs, n, &nk) : NULL;
	if (n > 1) {
		align_through_peers(ranks, n, cs, keys, nk, exact);
		collective_spread(cs, ranks, n, keys, nk, exact);
	}
	for (size_t i = 1; i < n; i++)
		if (!ranks[i].collective_ok) /* fall back to the first-event offset */
			ranks[i].offset_ns[ALIGN_COLLECTIVE] = ranks[i].offset_ns[ALIGN_FIRST];
	free(keys);
	free(exact);
}

void align_slow_ranks(struct analysis *an)
{
	static const struct { enum metric_id m; const char *key; } watched[] = {
		{M_COMPUTE_US, "compute_us"}, {M_COMM_US, "comm_us"}, {M_FREE_US, "free_us"}};
	an->n_slow = 0;
	if (an->n_ranks < 2)
		return;
	for (size_t w = 0; w < 3; w++) {
		double sum = 0, mx = -INFINITY, mn = INFINITY;
		int rmx = -1, rmn = -1;
		size_t k = 0;
		for (size_t i = 0; i < an->n_ranks; i++) {
			const struct rank_analysis *ra = &an->ranks[i];
			if (!ra->have[watched[w].m])
				continue;
			double v = ra->v[watched[w].m];
			sum += v;
			k++;
			if (v > mx) {
				mx = v;
				rmx = ra->rank;
			}
			if (v < mn) {
				mn = v;
				rmn = ra->rank;
			}
		}
		if (k < 2 || sum <= 0)
			continue;
		double spread = 100.0 * (mx - mn) / (sum / (double)k);
		if (spread > 5.0)
			an->slow[an->n_slow++] = (struct slow_flag){watched[w].key, spread, rmx, rmn};
	}
}
