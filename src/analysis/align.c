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

#include "evkind.h"
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
		if (analysis_kernel_class(&memo, k, r).cat != CAT_COMM)
			continue;
		xgrow(out, &cap, n + 1, sizeof **out);
		(*out)[n++] = (struct coll_inst){a + d, d, name, 0};
	}
	analysis_kernel_memo_free(&memo);
	return n;
}

static size_t collect(const struct rank_data *rd, const struct ev_class *cls, bool sizes, struct coll_inst **out)
{
	const struct rank_store *rs = &rd->store;
	if (!rs->has_events)
		return collect_csv(rd->by_kind[CSV_KERNEL], out);
	bool group = analysis_has_group_lanes(rs);
	size_t n = 0, cap = 0;
	*out = NULL;
	/* lane events are sorted; walk the lanes to keep time order per lane, then sort */
	for (size_t ev = 0; ev < rs->n_ev; ev++) {
		if (!analysis_is_collective(rs, cls, (uint32_t)ev, group))
			continue;
		xgrow(out, &cap, n + 1, sizeof **out);
		double b = sizes && n < 100000 ? analysis_collective_bytes(rs, (uint32_t)ev) : 0;
		(*out)[n++] = (struct coll_inst){store_ts(rs, ev) + store_dur(rs, ev), store_dur(rs, ev), store_ev_name(rs, ev), b};
	}
	return n;
}

static int cmp_coll(const void *a, const void *b)
{
	const struct coll_inst *x = a, *y = b;
	return x->end < y->end ? -1 : x->end > y->end;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
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

/* The match found: r[i + shift] is ref[i] where the names agree (loosely or not). */
struct pair_match {
	long shift;
	bool loose, ok;
};

static void align_pair(const struct coll_inst *ref, size_t nref, const struct coll_inst *r, size_t nr,
		       struct rank_analysis *ra, struct pair_match *pm)
{
	long best_shift = 0;
	size_t best = 0;
	bool loose = false;
	for (int pass = 0; pass < 2 && best * 2 < (nref < nr ? nref : nr); pass++) {
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
	*pm = (struct pair_match){best_shift, loose, true};
	int64_t *d = xmalloc(best * sizeof *d);
	size_t k = 0;
	for (size_t i = 0; i < nref; i++) {
		long j = (long)i + best_shift;
		if (j < 0 || (size_t)j >= nr || !same_name(ref[i].name, r[j].name, loose))
			continue;
		d[k++] = r[j].end - ref[i].end;
	}
	xqsort(d, k, sizeof *d, cmp_i64);
	int64_t off = analysis_nearest_rank(d, k, 0.5);
	for (size_t i = 0; i < k; i++)
		d[i] = llabs(d[i] - off);
	xqsort(d, k, sizeof *d, cmp_i64);
	ra->offset_ns[ALIGN_COLLECTIVE] = off;
	ra->residual_ns = analysis_nearest_rank(d, k, 0.5);
	ra->residual_max_ns = d[k - 1];
	ra->matched_collectives = k;
	ra->collective_ok = true;
	free(d);
}

static bool matched_at(const struct coll_inst *ref, size_t i, const struct coll_inst *r, size_t nr,
		       const struct pair_match *pm, size_t *j)
{
	long k = (long)i + pm->shift;
	if (!pm->ok || k < 0 || (size_t)k >= nr || !same_name(ref[i].name, r[k].name, pm->loose))
		return false;
	*j = (size_t)k;
	return true;
}

/* The least time a collective may take to move its payload before the rest of it must be a
 * wait: 1 ms of fixed cost (an HCCL collective's latency, tens of us on one node and a few
 * hundred across nodes) plus the payload at 1 GB/s (no HCCS, RoCE or PCIe link of an Ascend
 * system is that slow). A bound chosen to be sound, not tight: what is left under it is not
 * claimed to be transfer (comm.c keeps it unsplit). */
#define SPREAD_LATENCY_NS 1000000
#define SPREAD_FLOOR_BYTES_PER_NS 1.0

/* Two ranks' instances of one collective, for its spread: matched by their exact name and
 * ending within SAME_END_NS of each other once the clocks are aligned. Names matched with
 * digits ignored align clocks well enough (when they agree: see the residual), but they are
 * another communication group's ops: torch_npu names the group in the first number
 * (hcom_allReduce__170_1_1 on every rank of one group, __691 on another's), and two
 * groups' collectives of one kind line up under the loose match, each with its own waits.
 * A blocking collective ends at the same instant on every rank of its group: a pair of one
 * name that does not is two instances of a repeated name. Either pair would read one
 * group's durations as another's wait. */
#define SAME_END_NS 1000000

static bool same_instance(const struct coll_inst *ref, size_t i, const struct coll_inst *r, size_t nr,
			  const struct pair_match *pm, int64_t offset, size_t *j)
{
	if (pm->loose || !matched_at(ref, i, r, nr, pm, j))
		return false;
	int64_t dev = r[*j].end - offset - ref[i].end;
	return dev >= -SAME_END_NS && dev <= SAME_END_NS;
}

/* msprof-analyze's cluster_time_summary: a collective's transfer is at most its least
 * duration across the ranks, the rest of each rank's duration is waiting for the last
 * peer. Over the reference's collectives found on at least one other rank (same_instance). */
static void collective_spread(const struct coll_inst *rc, size_t nrc, struct coll_inst *const *c, const size_t *nc,
			      const struct pair_match *pm, struct rank_analysis *ranks, size_t n)
{
	int64_t *least = xmalloc((nrc ? nrc : 1) * sizeof *least);
	bool *seen = xcalloc(nrc ? nrc : 1, sizeof *seen);
	for (size_t i = 0; i < nrc; i++)
		least[i] = rc[i].dur;
	for (size_t r = 1; r < n; r++)
		for (size_t i = 0; i < nrc; i++) {
			size_t j;
			if (!same_instance(rc, i, c[r], nc[r], &pm[r], ranks[r].offset_ns[ALIGN_COLLECTIVE], &j))
				continue;
			seen[i] = true;
			if (c[r][j].dur < least[i])
				least[i] = c[r][j].dur;
		}
	/* a least duration beyond the time its payload may take (above) is partly a wait every
	 * rank shares, such as the first collective's link setup: a 2-rank DDP capture's first
	 * allReduce (16 MB, 56 ms on both ranks) read as 48 % "transfer" and drew "overlap"
	 * advice */
	bool *capped = xcalloc(nrc ? nrc : 1, sizeof *capped);
	int64_t *bound = xmalloc((nrc ? nrc : 1) * sizeof *bound); /* the least, capped */
	for (size_t i = 0; i < nrc; i++) {
		double most = SPREAD_LATENCY_NS + rc[i].bytes / SPREAD_FLOOR_BYTES_PER_NS;
		bound[i] = least[i];
		if (rc[i].bytes > 0 && (double)least[i] > most) {
			bound[i] = (int64_t)most;
			capped[i] = true;
		}
	}
	for (size_t r = 0; r < n; r++) {
		struct rank_analysis *ra = &ranks[r];
		ra->coll_wait_ns = ra->coll_transfer_ns = ra->coll_skew_ns = 0;
		ra->coll_spread_ok = ra->coll_spread_capped = false;
		for (size_t i = 0; i < nrc; i++) {
			size_t j = i;
			if (!seen[i] ||
			    (r > 0 && !same_instance(rc, i, c[r], nc[r], &pm[r], ra->offset_ns[ALIGN_COLLECTIVE], &j)))
				continue;
			int64_t own = r == 0 ? rc[i].dur : c[r][j].dur;
			ra->coll_wait_ns += own - bound[i];
			ra->coll_transfer_ns += bound[i];
			ra->coll_skew_ns += own - least[i];
			ra->coll_spread_ok = true;
			ra->coll_spread_capped |= capped[i];
		}
	}
	free(bound);
	free(capped);
	free(least);
	free(seen);
}

size_t analysis_collectives(const struct capture *cap, const struct rank_analysis *ra, bool sizes,
			    struct coll_inst **out)
{
	size_t n = collect(&cap->ranks[ra->rank_index], ra->cls, sizes, out);
	xqsort(*out, n, sizeof **out, cmp_coll);
	return n;
}

void analysis_align_lists(struct rank_analysis *ranks, size_t n, struct coll_inst *const *cs, const size_t *ncs)
{
	if (n == 0)
		return;
	struct rank_analysis *ref = &ranks[0];
	const struct coll_inst *rc = cs[0];
	size_t nrc = ncs[0];
	struct pair_match *pm = xcalloc(n, sizeof *pm);
	for (size_t i = 0; i < n; i++) {
		struct rank_analysis *ra = &ranks[i];
		ra->offset_ns[ALIGN_RAW] = 0;
		/* without a timeline on both sides there is nothing to align */
		ra->offset_ns[ALIGN_FIRST] = ra->has_timeline && ref->has_timeline ? ra->t0 - ref->t0 : 0;
		ra->offset_ns[ALIGN_COLLECTIVE] = 0;
		if (i == 0) {
			ra->collective_ok = nrc > 0;
			ra->matched_collectives = nrc;
			continue;
		}
		ra->collective_ok = false;
		ra->matched_collectives = 0;
		ra->residual_ns = ra->residual_max_ns = 0;
		if (ncs[i] && nrc)
			align_pair(rc, nrc, cs[i], ncs[i], ra, &pm[i]);
		if (!ra->collective_ok) /* fall back to the first-event offset */
			ra->offset_ns[ALIGN_COLLECTIVE] = ra->offset_ns[ALIGN_FIRST];
	}
	if (n > 1)
		collective_spread(rc, nrc, cs, ncs, pm, ranks, n);
	free(pm);
}

void analysis_slow_ranks(struct analysis *an)
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
