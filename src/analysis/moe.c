/* SPDX-License-Identifier: MIT */
/* MoE layers and expert load across ranks (moe.h). */
#include "moe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "capture.h"
#include "cmp.h"
#include "csv_table.h"
#include "evkind.h"
#include "i18n.h"
#include "json_tok.h"
#include "lanes.h"
#include "result.h"
#include "sbuf.h"
#include "store.h"
#include "xalloc.h"
#include "xsort.h"

/* below this many times the median, the experts count as balanced: no verdict */
#define MOE_IMBALANCE_MIN 1.2

enum moe_kind { MK_NONE, MK_DISPATCH, MK_COMBINE, MK_GMM, MK_A2A, MK_ROUTE_IN, MK_ROUTE_OUT };

static enum moe_kind moe_kind_of(const char *name)
{
	if (strstr(name, "MoeDistributeDispatch"))
		return MK_DISPATCH;
	if (strstr(name, "MoeDistributeCombine"))
		return MK_COMBINE;
	if (strstr(name, "GroupedMatmul"))
		return MK_GMM;
	if (strstr(name, "MoeFinalizeRouting") || strstr(name, "MoeTokenUnpermute"))
		return MK_ROUTE_OUT;
	if (strstr(name, "MoeGatingTopK") || strstr(name, "MoeInitRouting") || strstr(name, "MoeTokenPermute"))
		return MK_ROUTE_IN;
	return MK_NONE;
}

/* One MoE event of a rank, in time order. */
struct moe_ev {
	int64_t ts, dur;
	uint32_t ev;
	uint8_t kind;
};
#define MOE_EV_LESS(a, b) ((a)->ts < (b)->ts || ((a)->ts == (b)->ts && (a)->ev < (b)->ev))
XSORT_DEFINE(moe_ev_sort, struct moe_ev, MOE_EV_LESS)

struct moe_list {
	struct moe_inst *v;
	size_t n, cap;
};

/* A GroupedMatmul row of the kernel table: its start and leading input dimension. */
struct gmm_row {
	int64_t ts, tokens;
};
#define GMM_ROW_LESS(a, b) ((a)->ts < (b)->ts)
XSORT_DEFINE(gmm_row_sort, struct gmm_row, GMM_ROW_LESS)

/* The leading dimension of the first input ("8192,7168;16,7168,4096" -> 8192), or -1. Only
 * quotes, brackets and blanks may come before it: a dtype list ("c10::BFloat16;...", which
 * torch_npu's Db keeps in the column named for the shapes) is no shape. */
static int64_t leading_dim(const char *s)
{
	while (s && (*s == '"' || *s == '[' || *s == ' ' || *s == '\t'))
		s++;
	if (!s || *s < '0' || *s > '9')
		return -1;
	char *end;
	long long v = strtoll(s, &end, 10);
	return v > 0 && v < (1LL << 40) ? (int64_t)v : -1;
}

/* The leading input dimension in the args of host event ev, read again through its reader:
 * the trace's "Input Dims", or the Db's PYTORCH_API row (inputShapes, then inputDtypes:
 * every real Db at hand holds the shapes in inputDtypes and the dtypes in inputShapes, and
 * leading_dim tells a shape from a dtype); -1 when none. */
static int64_t host_dims_tokens(const struct rank_store *rs, uint32_t ev)
{
	static const char *const keys[] = {"Input Dims", "inputShapes", "inputDtypes"};
	struct sbuf raw = SBUF_INIT, val = SBUF_INIT;
	int64_t tok = -1;
	if (capture_entry_text(rs, store_ev_off(rs, ev), &raw) == 0) {
		struct jtok jt;
		jtok_init(&jt);
		int args = jtok_parse(&jt, raw.buf, raw.len) > 0 ? jtok_obj_get(&jt, raw.buf, 0, "args") : -1;
		for (size_t k = 0; args >= 0 && tok < 0 && k < sizeof keys / sizeof keys[0]; k++) {
			int t = jtok_obj_get(&jt, raw.buf, args, keys[k]);
			if (t < 0 || jt.t[t].type != JSMN_STRING)
				continue;
			sbuf_reset(&val);
			jtok_unescape(raw.buf, &jt.t[t], &val);
			tok = leading_dim(sbuf_str(&val));
		}
		jtok_free(&jt);
	}
	sbuf_free(&raw);
	sbuf_free(&val);
	return tok;
}

/* A layer whose first grouped matmul the kernel table gives no shape: that kernel, the
 * instance, and the host ops that launched it (CANN's node launch has no Input Dims). */
struct dims_want {
	uint32_t ev, host[4];
	uint32_t n_host;
	size_t inst;
};
#define DIMS_WANT_BY_EV(a, b) ((a)->ev < (b)->ev)
#define DIMS_WANT_BY_INST(a, b) ((a)->inst < (b)->inst)
XSORT_DEFINE(dims_want_by_ev, struct dims_want, DIMS_WANT_BY_EV)
XSORT_DEFINE(dims_want_by_inst, struct dims_want, DIMS_WANT_BY_INST)

/* The launchers of the wanted kernels: the links are kept by launcher, so one pass over them
 * serves every kernel (lanes_links_to walks them all for one: 5,400 layers a rank took 12 s). */
static void dims_launchers(const struct rank_store *rs, struct dims_want *w, size_t n)
{
	dims_want_by_ev(w, n);
	for (size_t k = 0; k < rs->n_links; k++) {
		uint32_t to = rs->links[k].to_ev, from = rs->links[k].from_ev;
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (w[mid].ev < to)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == n || w[lo].ev != to || w[lo].n_host >= 4)
			continue;
		enum lane_group g = store_ev_lane(rs, from)->group;
		if (lanes_group_is_host(g) && g != LANE_HOST_CANN)
			w[lo].host[w[lo].n_host++] = from;
	}
	dims_want_by_inst(w, n);
}

/* The events of a host lane around one (its ancestors: starting no later, ending no
 * earlier); the lane visits those started before it innermost first. */
#define MOE_ENCLOSING 64
struct enclosing {
	const struct rank_store *rs;
	uint32_t self, ev[MOE_ENCLOSING];
	int64_t s, e;
	size_t n;
};

static void enclosing_add(void *ctx, uint32_t ev)
{
	struct enclosing *c = ctx;
	int64_t s = store_ts(c->rs, ev), e = s + store_dur(c->rs, ev);
	if (ev != c->self && s <= c->s && e >= c->e && c->n < MOE_ENCLOSING)
		c->ev[c->n++] = ev;
}

/* Whether x lies inside y: the later start, or the earlier end. */
static bool enclosing_inner(const struct rank_store *rs, uint32_t x, uint32_t y)
{
	int64_t sx = store_ts(rs, x), sy = store_ts(rs, y);
	return sx != sy ? sx > sy : sx + store_dur(rs, x) < sy + store_dur(rs, y);
}

/* Innermost first (a few dozen at most: insertion). */
static void enclosing_sort(struct enclosing *c)
{
	for (size_t i = 1; i < c->n; i++)
		for (size_t j = i; j > 0 && enclosing_inner(c->rs, c->ev[j], c->ev[j - 1]); j--) {
			uint32_t t = c->ev[j];
			c->ev[j] = c->ev[j - 1];
			c->ev[j - 1] = t;
		}
}

/* The tokens of a launching host op's Input Dims, else of its nearest ancestors' (up to
 * MOE_DIMS_UP): torch_npu's launch link may start at an op-level event inside the torch op
 * that recorded the shapes (a real Db: Conv2D, without shapes, inside aten::conv2d). */
#define MOE_DIMS_UP 6
static int64_t launcher_tokens(const struct rank_store *rs, uint32_t host)
{
	int64_t tok = host_dims_tokens(rs, host);
	if (tok >= 0)
		return tok;
	struct enclosing c = {.rs = rs, .self = host, .s = store_ts(rs, host)};
	c.e = c.s + store_dur(rs, host);
	lanes_visit_in(rs, store_ev_lane(rs, host), c.s, c.s + 1, enclosing_add, &c, NULL);
	enclosing_sort(&c);
	for (size_t k = 0; k < c.n && k < MOE_DIMS_UP && tok < 0; k++)
		tok = host_dims_tokens(rs, c.ev[k]);
	return tok;
}

static int64_t want_tokens(const struct rank_store *rs, const struct dims_want *w)
{
	int64_t tok = -1;
	for (uint32_t h = 0; h < w->n_host && tok < 0; h++)
		tok = launcher_tokens(rs, w->host[h]);
	return tok;
}

int64_t moe_launch_tokens(const struct rank_store *rs, uint32_t ev)
{
	struct dims_want w = {.ev = ev};
	dims_launchers(rs, &w, 1);
	return want_tokens(rs, &w);
}

/* Tokens from the Input Dims of the host ops that launched the layers' first grouped
 * matmuls, for the instances the kernel table gave none, read on demand (the store keeps no
 * args; a layer needs one read). record_shapes is the whole capture's: after
 * MOE_DIMS_GIVE_UP layers in a row without any, the rank has none, and the rest stay
 * unknown rather than cost a read each. */
#define MOE_DIMS_GIVE_UP 64
static void fill_dims(const struct rank_store *rs, struct moe_list *L)
{
	struct dims_want *w = NULL;
	size_t n = 0, cap = 0, misses = 0;
	for (size_t i = 0; i < L->n; i++)
		if (L->v[i].tokens < 0 && L->v[i].ev != UINT32_MAX) {
			xgrow(&w, &cap, n + 1, sizeof *w);
			w[n++] = (struct dims_want){.ev = L->v[i].ev, .inst = i};
		}
	if (n)
		dims_launchers(rs, w, n);
	bool hit = false;
	for (size_t k = 0; k < n && (hit || misses < MOE_DIMS_GIVE_UP); k++) {
		int64_t tok = want_tokens(rs, &w[k]);
		if (tok < 0) {
			misses++;
			continue;
		}
		L->v[w[k].inst].tokens = tok;
		L->v[w[k].inst].tok_src = MOE_TOK_DIMS;
		hit = true;
	}
	free(w);
}

static struct gmm_row *gmm_rows(const struct csv_table *k, size_t *n)
{
	*n = 0;
	if (!k || !csvt_has(k, COL_NAME) || !csvt_has(k, COL_START) || !csvt_has(k, COL_INPUT_SHAPES))
		return NULL;
	size_t cap = 0;
	struct gmm_row *v = NULL;
	for (size_t r = 0; r < k->nrows; r++) {
		const char *name = csvt_str(k, r, COL_NAME);
		int64_t ts, tok;
		if (!name || !strstr(name, "GroupedMatmul") || !csvt_time(k, r, COL_START, &ts))
			continue;
		if ((tok = leading_dim(csvt_str(k, r, COL_INPUT_SHAPES))) < 0)
			continue;
		xgrow(&v, &cap, *n + 1, sizeof *v);
		v[(*n)++] = (struct gmm_row){ts, tok};
	}
	gmm_row_sort(v, *n);
	return v;
}

/* The tokens of the kernel table's GroupedMatmul starting within 1 us of ts, or -1. */
static int64_t gmm_tokens_at(const struct gmm_row *v, size_t n, int64_t ts)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].ts < ts - 1000)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].ts <= ts + 1000 ? v[lo].tokens : -1;
}

/* The rank's MoE events in time order: device kernels by name, and the whole all-to-all
 * collectives (their tokens move to and from the experts). */
static struct moe_ev *moe_events(const struct rank_store *rs, const struct ev_class *cls, size_t *n)
{
	uint32_t n_strs = strtab_count(rs->strs);
	uint8_t *memo = xmalloc(n_strs ? n_strs : 1);
	memset(memo, 0xff, n_strs ? n_strs : 1);
	bool group = evkind_has_group_lanes(rs);
	struct moe_ev *v = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t ev = 0; ev < rs->n_ev; ev++) {
		const struct lane *l = store_ev_lane(rs, ev);
		uint8_t k = MK_NONE;
		if (l->group == LANE_DEVICE) {
			uint32_t id = rs->ev_name[ev];
			if (id < n_strs && memo[id] == 0xff)
				memo[id] = (uint8_t)moe_kind_of(strtab_str(rs->strs, id));
			k = id < n_strs ? memo[id] : MK_NONE;
		}
		if (l->group == LANE_DEVICE || l->group == LANE_COMM) {
			if (analysis_is_collective(rs, cls, (uint32_t)ev, group))
				k = strcasestr(store_ev_name(rs, ev), "alltoall") ? MK_A2A : MK_NONE;
		}
		if (k == MK_NONE)
			continue;
		xgrow(&v, &cap, *n + 1, sizeof *v);
		v[(*n)++] = (struct moe_ev){store_ts(rs, ev), store_dur(rs, ev), (uint32_t)ev, k};
	}
	free(memo);
	moe_ev_sort(v, *n);
	return v;
}

static struct moe_inst *inst_open(struct moe_list *L, const struct rank_analysis *ra, const struct moe_ev *e,
                                  size_t *hint)
{
	size_t k = ra->n_steps && ra->steps[0].has_window ? analysis_step_at_near(ra, e->ts, hint) : SIZE_MAX;
	uint64_t step = k == SIZE_MAX ? UINT64_MAX : (uint64_t)k;
	uint32_t ord = L->n && L->v[L->n - 1].step == step ? L->v[L->n - 1].ord + 1 : 0;
	xgrow(&L->v, &L->cap, L->n + 1, sizeof *L->v);
	struct moe_inst *x = &L->v[L->n++];
	*x = (struct moe_inst){.step = step, .ord = ord, .tokens = -1, .ev = UINT32_MAX, .ts = e->ts};
	return x;
}

/* A grouped matmul with neither a token exchange nor a routing kernel around it is no MoE
 * layer (a LoRA's, an op test's): such instances leave, the others are numbered again. */
static void drop_unrouted(struct moe_list *L)
{
	size_t n = 0;
	for (size_t i = 0; i < L->n; i++) {
		struct moe_inst x = L->v[i];
		if (!x.has_disp && !x.has_comb && !x.routed)
			continue;
		x.ord = n && L->v[n - 1].step == x.step ? L->v[n - 1].ord + 1 : 0;
		L->v[n++] = x;
	}
	L->n = n;
}

/* The rank's layers: a dispatch (MC2, or an all-to-all before any grouped matmul) or a
 * grouped matmul opens one; a combine (MC2, an all-to-all after the grouped matmuls) or a
 * routing kernel that ends one (MoeFinalizeRouting, MoeTokenUnpermute) closes it. */
static void rank_layers(const struct rank_analysis *ra, const struct rank_data *rd, struct moe_list *L)
{
	size_t n = 0, n_rows = 0, hint = 0;
	struct moe_ev *ev = moe_events(&rd->store, ra->cls, &n);
	struct gmm_row *rows = gmm_rows(rd->by_kind[CSV_KERNEL], &n_rows);
	struct moe_inst *cur = NULL;
	bool gmm = false, route = false; /* route: a routing kernel since the last layer */
	for (size_t i = 0; i < n; i++) {
		const struct moe_ev *e = &ev[i];
		switch (e->kind) {
		case MK_DISPATCH:
		case MK_A2A:
			if (e->kind == MK_A2A && cur && gmm) { /* the combine all-to-all */
				cur->comb += e->dur;
				cur->has_comb = true;
				cur = NULL;
				break;
			}
			if (!cur || gmm) {
				cur = inst_open(L, ra, e, &hint);
				gmm = false;
			}
			cur->disp += e->dur;
			cur->has_disp = true;
			cur->mc2 |= e->kind == MK_DISPATCH;
			break;
		case MK_GMM:
			if (!cur) {
				cur = inst_open(L, ra, e, &hint);
				gmm = false;
			}
			if (!gmm) {
				cur->tokens = gmm_tokens_at(rows, n_rows, e->ts);
				cur->tok_src = cur->tokens >= 0 ? MOE_TOK_SHAPES : MOE_TOK_NONE;
				cur->ev = e->ev;
				cur->ts = e->ts;
				cur->routed |= route;
				route = false;
			}
			gmm = true;
			cur->gmm += e->dur;
			break;
		case MK_COMBINE:
			if (!cur)
				cur = inst_open(L, ra, e, &hint);
			cur->comb += e->dur;
			cur->has_comb = true;
			cur->mc2 = true;
			cur = NULL;
			break;
		case MK_ROUTE_OUT:
			if (cur)
				cur->routed = true;
			cur = NULL;
			break;
		case MK_ROUTE_IN:
			if (cur && gmm)
				cur = NULL;
			route = true;
			break;
		default: break;
		}
	}
	free(ev);
	free(rows);
	drop_unrouted(L);
	fill_dims(&rd->store, L);
}

static int inst_key_cmp(const struct moe_inst *x, uint64_t step, uint32_t ord)
{
	if (x->step != step)
		return x->step < step ? -1 : 1;
	return x->ord < ord ? -1 : x->ord > ord;
}

/* The instance (step, ord) of a rank's list (in (step, ord) order: time order), or NULL. */
static struct moe_inst *inst_find(const struct moe_list *L, uint64_t step, uint32_t ord)
{
	size_t lo = 0, hi = L->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = inst_key_cmp(&L->v[mid], step, ord);
		if (!c)
			return &L->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Each instance's dispatch and combine against the same layer on the other ranks: the least
 * duration is the work, the rest the wait (the rule align.c applies to collectives). */
static void cross_waits(struct moe_list *L, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		for (size_t j = 0; j < L[i].n; j++) {
			struct moe_inst *x = &L[i].v[j];
			int64_t dmin = x->disp, cmin = x->comb;
			for (size_t o = 0; o < nr; o++) {
				const struct moe_inst *y = o == i ? NULL : inst_find(&L[o], x->step, x->ord);
				if (!y)
					continue;
				if (y->has_disp && y->disp < dmin)
					dmin = y->disp;
				if (y->has_comb && y->comb < cmin)
					cmin = y->comb;
			}
			x->disp_wait = x->has_disp ? x->disp - dmin : 0;
			x->comb_wait = x->has_comb ? x->comb - cmin : 0;
		}
}

static void fig_add(struct moe_rank_fig *f, const struct moe_inst *x)
{
	f->layers++;
	if (f->tokens >= 0)
		f->tokens = x->tokens >= 0 ? f->tokens + x->tokens : -1;
	f->gmm_ns += x->gmm;
	f->dispatch_ns += x->disp;
	f->combine_ns += x->comb;
	f->dispatch_wait_ns += x->disp_wait;
	f->combine_wait_ns += x->comb_wait;
}

static void figures(struct moe_analysis *m, const struct analysis *an, const struct moe_list *L)
{
	for (size_t i = 0; i < m->n_ranks; i++)
		for (size_t j = 0; j < L[i].n; j++)
			if (L[i].v[j].ord + 1 > m->n_layers)
				m->n_layers = L[i].v[j].ord + 1;
	m->cells = xcalloc(m->n_ranks * (m->n_layers ? m->n_layers : 1), sizeof *m->cells);
	for (size_t c = 0; c < m->n_ranks * m->n_layers; c++)
		m->cells[c].event = UINT32_MAX;
	for (size_t i = 0; i < m->n_ranks; i++) {
		const struct rank_analysis *ra = &an->ranks[i];
		m->ranks[i].rank = ra->rank;
		for (int p = 0; p < 3; p++)
			m->by_phase[(size_t)p * m->n_ranks + i].rank = ra->rank;
		for (size_t j = 0; j < L[i].n; j++) {
			const struct moe_inst *x = &L[i].v[j];
			fig_add(&m->ranks[i], x);
			int p = x->step < ra->n_steps ? moe_phase_index((int)ra->steps[x->step].phase) : -1;
			if (p >= 0) {
				fig_add(&m->by_phase[(size_t)p * m->n_ranks + i], x);
				m->phase_seen[p] = true;
			}
			struct moe_cell *c = &m->cells[i * m->n_layers + x->ord];
			c->tokens += x->tokens > 0 ? x->tokens : 0;
			c->gmm_ns += x->gmm;
			c->dispatch_wait_ns += x->disp_wait;
			c->combine_wait_ns += x->comb_wait;
			if (c->event == UINT32_MAX && x->ev != UINT32_MAX) {
				c->event = x->ev;
				c->ts = x->ts;
			}
			if (x->mc2 && x->has_comb)
				m->combine_name = "MoeDistributeCombine";
		}
	}
}

/* The hot rank and its load over the median's (nearest rank): tokens, else gmm time. */
static void hot_rank(struct moe_analysis *m)
{
	int64_t *v = xmalloc(m->n_ranks * sizeof *v);
	size_t n = 0, hot = SIZE_MAX;
	for (size_t i = 0; i < m->n_ranks; i++) {
		const struct moe_rank_fig *f = &m->ranks[i];
		if (!f->layers)
			continue;
		int64_t x = m->tokens_known ? f->tokens : f->gmm_ns;
		v[n++] = x;
		if (hot == SIZE_MAX || x > (m->tokens_known ? m->ranks[hot].tokens : m->ranks[hot].gmm_ns))
			hot = i;
	}
	if (n >= 2) {
		qsort(v, n, sizeof *v, cmp_i64);
		int64_t median = v[(n + 1) / 2 - 1];
		m->hot_rank = m->ranks[hot].rank;
		m->imbalance = median > 0 ? (double)v[n - 1] / (double)median : 0;
	}
	free(v);
}

/* The layers where the ranks wait most (dispatch and combine, over every rank). */
static void worst_layers(struct moe_analysis *m)
{
	bool *taken = xcalloc(m->n_layers ? m->n_layers : 1, 1);
	for (m->n_worst = 0; m->n_worst < MOE_WORST; m->n_worst++) {
		size_t best = SIZE_MAX;
		int64_t bw = 0;
		for (size_t l = 0; l < m->n_layers; l++) {
			int64_t w = 0;
			for (size_t i = 0; i < m->n_ranks; i++)
				w += m->cells[i * m->n_layers + l].combine_wait_ns + m->cells[i * m->n_layers + l].dispatch_wait_ns;
			if (!taken[l] && w > bw) {
				bw = w;
				best = l;
			}
		}
		if (best == SIZE_MAX)
			break;
		taken[best] = true;
		m->worst[m->n_worst] = best;
	}
	free(taken);
}

/* "0-2, 5": the ranks other than the hot one. */
static void other_ranks(const struct moe_analysis *m, struct sbuf *b)
{
	for (size_t i = 0; i < m->n_ranks;) {
		if (m->ranks[i].rank == m->hot_rank || !m->ranks[i].layers) {
			i++;
			continue;
		}
		size_t j = i;
		while (j + 1 < m->n_ranks && m->ranks[j + 1].rank == m->ranks[j].rank + 1 &&
		       m->ranks[j + 1].rank != m->hot_rank && m->ranks[j + 1].layers)
			j++;
		if (b->len)
			sbuf_adds(b, ", ");
		if (j > i)
			sbuf_addf(b, "%d-%d", m->ranks[i].rank, m->ranks[j].rank);
		else
			sbuf_addf(b, "%d", m->ranks[i].rank);
		i = j + 1;
	}
}

static void verdict(struct moe_analysis *m, const struct analysis *an)
{
	bool first = true;
	for (size_t i = 0; i < m->n_ranks; i++) {
		if (m->ranks[i].rank == m->hot_rank || !m->ranks[i].layers)
			continue;
		int64_t w = m->ranks[i].combine_wait_ns;
		int64_t wall = an->ranks[i].attr.valid ? an->ranks[i].attr.wall_ns : 0;
		double pct = wall > 0 ? 100.0 * (double)w / (double)wall : 0;
		if (first || w < m->wait_lo_ns) {
			m->wait_lo_ns = w;
			m->wait_lo_pct = pct;
		}
		if (first || w > m->wait_hi_ns) {
			m->wait_hi_ns = w;
			m->wait_hi_pct = pct;
		}
		first = false;
	}
	if (m->hot_rank < 0 || m->imbalance < MOE_IMBALANCE_MIN || m->wait_hi_ns <= 0)
		return;
	struct sbuf who = {0};
	other_ranks(m, &who);
	char span[40], pct[40]; /* "A-B", or A alone when both round to it */
	if (llround((double)m->wait_lo_ns / 1e5) == llround((double)m->wait_hi_ns / 1e5))
		snprintf(span, sizeof span, "%.1f", (double)m->wait_hi_ns / 1e6);
	else
		snprintf(span, sizeof span, "%.1f-%.1f", (double)m->wait_lo_ns / 1e6, (double)m->wait_hi_ns / 1e6);
	if (llround(m->wait_lo_pct) == llround(m->wait_hi_pct))
		snprintf(pct, sizeof pct, "%.0f", m->wait_hi_pct);
	else
		snprintf(pct, sizeof pct, "%.0f-%.0f", m->wait_lo_pct, m->wait_hi_pct);
	m->verdict = xasprintf(_("expert load imbalance: rank %d's experts take %.1f x the median %s; ranks %s wait "
	                         "%s ms (%s %% of the window) in %s for it; balancing the experts (EPLB) would "
	                         "recover up to that wait"),
	                       m->hot_rank, m->imbalance, m->tokens_known ? _("tokens") : _("grouped-matmul time"),
	                       who.buf ? who.buf : "", span, pct,
	                       m->combine_name ? m->combine_name : _("the combine all-to-all"));
	free(who.buf);
}

struct moe_analysis *moe_analyse(struct analysis *an)
{
	struct moe_analysis *m = xcalloc(1, sizeof *m);
	m->hot_rank = -1;
	size_t nr = an->n_ranks;
	for (size_t i = 0; i < nr; i++)
		an->ranks[i].moe_imbalanced = false;
	struct moe_list *L = xcalloc(nr ? nr : 1, sizeof *L);
	size_t layers = 0;
	bool shapes = true, timeline = false;
	unsigned from = 0; /* the sources seen, bits 1 << enum moe_tok_src */
	for (size_t i = 0; i < nr; i++) {
		const struct rank_analysis *ra = &an->ranks[i];
		L[i] = (struct moe_list){ra->moe, ra->n_moe, ra->n_moe};
		layers += L[i].n;
		timeline |= ra->has_timeline;
		for (size_t j = 0; j < L[i].n; j++) {
			shapes &= L[i].v[j].tokens >= 0;
			from |= 1u << (L[i].v[j].tokens >= 0 ? L[i].v[j].tok_src : MOE_TOK_NONE);
		}
	}
	if (!layers) {
		m->why = timeline ? N_("no MoE kernels (MoeDistributeDispatch/Combine, GroupedMatmul, all-to-all around them)")
		                  : N_("no timelines: MoE layers are found in the events");
		free(L);
		return m;
	}
	cross_waits(L, nr);
	m->present = true;
	m->tokens_known = shapes;
	if (shapes)
		m->tokens_from = from == 1u << MOE_TOK_SHAPES ? MOE_TOK_SHAPES
		                 : from == 1u << MOE_TOK_DIMS ? MOE_TOK_DIMS : MOE_TOK_MIXED;
	m->n_ranks = nr;
	m->ranks = xcalloc(nr, sizeof *m->ranks);
	m->by_phase = xcalloc(3 * nr, sizeof *m->by_phase);
	for (size_t i = 0; i < 3 * nr; i++)
		m->by_phase[i].tokens = shapes ? 0 : -1;
	for (size_t i = 0; i < nr; i++)
		m->ranks[i].tokens = shapes ? 0 : -1;
	figures(m, an, L);
	hot_rank(m);
	worst_layers(m);
	verdict(m, an);
	for (size_t i = 0; m->verdict && i < nr; i++) { /* for the ranks' candidates (bottleneck.c) */
		struct rank_analysis *ra = &an->ranks[i];
		ra->moe_imbalanced = true;
		ra->moe_hot_rank = m->hot_rank;
		ra->moe_imbalance = m->imbalance;
		ra->moe_wait_ns = m->ranks[i].dispatch_wait_ns + m->ranks[i].combine_wait_ns;
	}
	free(L);
	return m;
}

void moe_rank_layers(struct analysis *an, size_t i)
{
	struct rank_analysis *ra = &an->ranks[i];
	free(ra->moe);
	ra->moe = NULL;
	ra->n_moe = 0;
	if (an->from_digests || !an->cap || ra->rank_index >= an->cap->n_ranks)
		return;
	const struct rank_data *rd = &an->cap->ranks[ra->rank_index];
	if (!rd->store.has_events || !ra->cls)
		return;
	struct moe_list L = {0};
	rank_layers(ra, rd, &L);
	ra->moe = L.v;
	ra->n_moe = L.n;
}

void moe_free(struct moe_analysis *m)
{
	if (!m)
		return;
	free(m->ranks);
	free(m->by_phase);
	free(m->cells);
	free(m->verdict);
	free(m);
}
