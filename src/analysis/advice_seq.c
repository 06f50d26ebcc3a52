/* SPDX-License-Identifier: MIT */
/* Advice rules over sequences and sizes (advice_seq.h). The op lists follow msprof-analyze's
 * advisor: its packet rule (advisor/rules/packet.yaml: SDMA under 16 MB, RDMA under 1 MB, 20 %
 * of transfers), its byte-alignment rule (512 bytes), its timeline fusion-op and affinity-API
 * checks (fusion_operators_api_analysis) and the torch_npu "fused operator API replacement"
 * guide (npu_add_rms_norm, npu_swiglu, npu_rotary_mul, npu_scaled_masked_softmax,
 * NpuFusedAdamW with clip_grad_norm_fused_). A sequence is matched on consecutive kernels of
 * one stream (device) or consecutive top-level framework ops of one thread (host): adjacency,
 * not data flow, links them, so the findings say medium confidence. */
#include "advice_seq.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advice.h"
#include "capture.h"
#include "comm_json.h"
#include "i18n.h"
#include "sbuf.h"
#include "strtab.h"
#include "xalloc.h"

#define SDMA_SMALL_MB 16.0 /* packet.yaml min_sdma_size */
#define RDMA_SMALL_MB 1.0  /* packet.yaml min_rdma_size */
#define XFER_ALIGN 512     /* bytes */

/* The steps a per-step figure divides by: the analysis's, else the window as one. */
static double seq_steps(const struct rank_analysis *ra) { return ra->n_steps ? (double)ra->n_steps : 1.0; }

static void seq_show(const struct rank_store *rs, struct advice_finding *f, uint32_t ev)
{
	f->event = ev;
	f->event_ts = f->event_end = INT64_MIN;
	if (ev == UINT32_MAX)
		return;
	f->event_ts = store_ts(rs, ev);
	f->event_end = f->event_ts + store_dur(rs, ev);
	f->event_name = store_ev_name(rs, ev);
}

static void seq_status(struct rank_analysis *ra, int r, const char *reason)
{
	ra->advice_status[r] = reason ? ADV_STATUS_NOT_APPLICABLE : ADV_STATUS_CHECKED;
	ra->advice_reason[r] = reason;
	for (size_t i = 0; i < ra->n_advice; i++)
		if (ra->advice[i].rule == r)
			ra->advice_status[r] = ra->advice[i].triggered ? ADV_STATUS_TRIGGERED : ADV_STATUS_CHECKED;
}

/* ---- small_transfers ---------------------------------------------------------------- */

/* A Size Distribution key is MB of 10^6 bytes (20.97152 for 20 MiB); older exporters may
 * count 2^20: a size is misaligned only when neither reading is a multiple of 512. */
static bool xfer_aligned(double mb)
{
	double a = mb * 1e6, b = mb * 1048576.0;
	return llround(a) % XFER_ALIGN == 0 || (fabs(b - (double)llround(b)) < 0.5 && llround(b) % XFER_ALIGN == 0);
}

struct xfer_tally {
	double n, small, misaligned, bad; /* transfers (bin counts) */
	int64_t small_ns;
	size_t show;      /* the op with the most bad transfers, or SIZE_MAX */
	double show_bad;
	size_t ops;       /* ops with any bin */
};

/* One transport's bins of an op; returns its bad transfers (small or misaligned). */
static double xfer_bins(const struct comm_data *cd, const struct comm_bw *bw, double small_mb, struct xfer_tally *t)
{
	double bad = 0;
	for (uint32_t i = 0; i < bw->n_bins; i++) {
		const struct comm_bin *b = &cd->bins[bw->bin0 + i];
		if (!(b->count > 0) || !isfinite(b->size_mb))
			continue;
		bool small = b->size_mb < small_mb, mis = !xfer_aligned(b->size_mb);
		t->n += b->count;
		t->small += small ? b->count : 0;
		t->misaligned += mis ? b->count : 0;
		bad += small || mis ? b->count : 0;
		if (small && b->time_ns > 0)
			t->small_ns += b->time_ns;
	}
	t->bad += bad;
	return bad;
}

/* An op's SDMA bins (SDMA itself when it has any, else HCCS, PCIE and SIO, which SDMA sums:
 * never both) and RDMA's. */
static void xfer_op(const struct comm_data *cd, size_t oi, struct xfer_tally *t)
{
	const struct comm_op *op = &cd->ops[oi];
	bool sdma_bins = false, any = false;
	for (uint32_t k = 0; k < op->n_bw; k++) {
		const struct comm_bw *bw = &cd->bws[op->bw0 + k];
		sdma_bins |= bw->transport == COMM_TR_SDMA && bw->n_bins;
		any |= bw->n_bins != 0;
	}
	if (!any)
		return;
	double bad = 0;
	for (uint32_t k = 0; k < op->n_bw; k++) {
		const struct comm_bw *bw = &cd->bws[op->bw0 + k];
		bool intra = bw->transport == COMM_TR_HCCS || bw->transport == COMM_TR_PCIE || bw->transport == COMM_TR_SIO;
		if (bw->transport == COMM_TR_RDMA)
			bad += xfer_bins(cd, bw, RDMA_SMALL_MB, t);
		else if (sdma_bins ? bw->transport == COMM_TR_SDMA : intra)
			bad += xfer_bins(cd, bw, SDMA_SMALL_MB, t);
	}
	t->ops++;
	bool earlier = t->show != SIZE_MAX && op->has_start && cd->ops[t->show].has_start &&
		       op->start_ns < cd->ops[t->show].start_ns;
	if (bad > 0 && (t->show == SIZE_MAX || bad > t->show_bad || (bad == t->show_bad && earlier))) {
		t->show = oi;
		t->show_bad = bad;
	}
}

/* The op to show as the trace's event of its name (the earliest), which a Db export and a
 * text one hold alike; else its communication.json start. */
static void xfer_show(const struct rank_store *rs, const struct comm_data *cd, const struct comm_op *op,
		      struct advice_finding *f)
{
	const char *name = comm_str(cd, op->name);
	uint32_t id = rs->has_events && name ? strtab_find(rs->strs, name, strlen(name)) : STRTAB_NONE;
	uint32_t show = UINT32_MAX;
	for (size_t ev = 0; id != STRTAB_NONE && ev < rs->n_ev; ev++)
		if (rs->ev_name[ev] == id && (show == UINT32_MAX || store_ts(rs, (uint32_t)ev) < store_ts(rs, show)))
			show = (uint32_t)ev;
	seq_show(rs, f, show);
	if (show != UINT32_MAX)
		return;
	f->event_name = name;
	if (op->has_start) {
		f->event_ts = op->start_ns;
		f->event_end = op->start_ns + (op->has & (1u << COMM_T_ELAPSE) ? op->t[COMM_T_ELAPSE] : 0);
	}
}

static void small_transfers(const struct rank_store *rs, const struct comm_data *cd, struct rank_analysis *ra)
{
	struct xfer_tally t = {.show = SIZE_MAX};
	for (size_t i = 0; i < cd->n_ops; i++)
		if (cd->ops[i].entry == COMM_ENTRY_OP)
			xfer_op(cd, i, &t);
	if (!(t.n > 0)) {
		seq_status(ra, ADV_SMALL_TRANSFERS,
			   N_("no communication.json with a Size Distribution: torch_npu writes it at profiler level 1 "
			      "and above, for a rank with collectives"));
		return;
	}
	struct advice_finding *f = advice_add(ra, ADV_SMALL_TRANSFERS, (uint64_t)llround(t.bad), UINT32_MAX,
					      100.0 * t.bad / t.n);
	f->event_ts = f->event_end = INT64_MIN;
	if (t.show != SIZE_MAX)
		xfer_show(rs, cd, &cd->ops[t.show], f);
	f->total_ns = t.small_ns;
	f->share_pct = f->value;
	f->share_of = "transfers";
	f->bucket = "communication";
	f->conf = CONF_HIGH; /* the exporter's own sizes */
	struct sbuf sb = SBUF_INIT;
	sbuf_addf(&sb, _("%.0f of %.0f transfers in %zu collectives small or misaligned (%.1f %%): %.0f under 16 MB "
			 "(SDMA) or 1 MB (RDMA), %.3f ms; %.0f not a multiple of 512 bytes"),
		  t.bad, t.n, t.ops, f->value, t.small, (double)t.small_ns / 1e6, t.misaligned);
	f->evidence = sbuf_detach(&sb);
	seq_status(ra, ADV_SMALL_TRANSFERS, NULL);
}

/* ---- sequences ------------------------------------------------------------------------ */

/* A pattern: two or three tokens in a row, and the API that replaces them. */
struct seq_pat {
	uint8_t tok[3];
	int len;
	const char *shown; /* "Add+RmsNorm" */
	const char *api;   /* "npu_add_rms_norm" */
};

enum { TK_NONE, TK_ADD, TK_RMSNORM, TK_SILU, TK_MUL, TK_NEG, TK_CAT, TK_MASKED, TK_SOFTMAX, TK_DONE = 0x80 };

static const struct seq_pat dev_pats[] = {
	{{TK_ADD, TK_RMSNORM}, 2, "Add+RmsNorm", "npu_add_rms_norm"},
	{{TK_SILU, TK_MUL}, 2, "Silu+Mul", "npu_swiglu"},
	{{TK_NEG, TK_CAT, TK_MUL}, 3, "Neg+Concat+Mul", "npu_rotary_mul"},
};
static const struct seq_pat host_pats[] = {
	{{TK_SILU, TK_MUL}, 2, "aten::silu+aten::mul", "npu_swiglu"},
	{{TK_NEG, TK_CAT}, 2, "aten::neg+aten::cat", "npu_rotary_mul"},
	{{TK_MASKED, TK_SOFTMAX}, 2, "aten::masked_fill+aten::softmax", "npu_scaled_masked_softmax"},
};
#define N_DEV_PATS (sizeof dev_pats / sizeof dev_pats[0])
#define N_HOST_PATS (sizeof host_pats / sizeof host_pats[0])
#define MAX_PATS 5 /* host patterns and clip_grad_norm_ */

/* A kernel's op from its name: the part after the last '_' (aclnnAdd_AddAiCore_Add -> Add). */
static uint8_t dev_token(const char *name)
{
	const char *u = name ? strrchr(name, '_') : NULL, *t = u ? u + 1 : name;
	static const struct {
		const char *s;
		uint8_t tk;
	} map[] = {{"Add", TK_ADD},   {"AddV2", TK_ADD}, {"RmsNorm", TK_RMSNORM}, {"Silu", TK_SILU},
		   {"Swish", TK_SILU}, {"Mul", TK_MUL},  {"Neg", TK_NEG},         {"ConcatD", TK_CAT},
		   {"ConcatV2", TK_CAT}, {"Concat", TK_CAT}};
	for (size_t i = 0; t && i < sizeof map / sizeof map[0]; i++)
		if (!strcmp(t, map[i].s))
			return map[i].tk;
	return TK_NONE;
}

static uint8_t host_token(const char *s)
{
	if (!s)
		return TK_NONE;
	static const struct {
		const char *s;
		uint8_t tk;
	} map[] = {{"aten::silu", TK_SILU},         {"aten::mul", TK_MUL},        {"aten::neg", TK_NEG},
		   {"aten::cat", TK_CAT},           {"aten::masked_fill", TK_MASKED}, {"aten::masked_fill_", TK_MASKED},
		   {"aten::softmax", TK_SOFTMAX},   {"aten::_softmax", TK_SOFTMAX}};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (!strcmp(s, map[i].s))
			return map[i].tk;
	return TK_NONE;
}

/* Matching state over one lane: the last tokens and their events. */
struct seq_run {
	uint8_t tok[3];
	uint32_t ev[3];
	int n;
};

struct seq_tally {
	uint64_t count[MAX_PATS], total;
	int64_t ns;          /* the matched events' time, summed */
	uint32_t show;       /* the first event of the longest instance */
	int64_t show_ns;
};

/* Pushes token tk (event ev) and matches the patterns ending at it; a match empties the run
 * so that no event counts in two instances. */
static void seq_push(const struct rank_store *rs, struct seq_run *run, uint8_t tk, uint32_t ev,
		     const struct seq_pat *pats, size_t n_pats, struct seq_tally *t)
{
	if (run->n == 3) {
		memmove(run->tok, run->tok + 1, 2);
		memmove(run->ev, run->ev + 1, 2 * sizeof run->ev[0]);
		run->n = 2;
	}
	run->tok[run->n] = tk;
	run->ev[run->n++] = ev;
	for (size_t p = 0; p < n_pats; p++) {
		int len = pats[p].len;
		if (run->n < len || memcmp(run->tok + run->n - len, pats[p].tok, (size_t)len))
			continue;
		int64_t ns = 0;
		for (int k = run->n - len; k < run->n; k++)
			ns += store_dur(rs, run->ev[k]);
		uint32_t first = run->ev[run->n - len];
		t->count[p]++;
		t->total++;
		t->ns += ns;
		bool earlier = t->show != UINT32_MAX && store_ts(rs, first) < store_ts(rs, t->show);
		if (t->show == UINT32_MAX || ns > t->show_ns || (ns == t->show_ns && earlier)) {
			t->show = first;
			t->show_ns = ns;
		}
		run->n = 0;
		return;
	}
}

static uint8_t memo_token(const struct rank_store *rs, uint8_t *memo, uint32_t id, bool host)
{
	if (!(memo[id] & TK_DONE))
		memo[id] = TK_DONE | (host ? host_token(store_str(rs, id)) : dev_token(store_str(rs, id)));
	return memo[id] & (uint8_t)~TK_DONE;
}

/* "Add+RmsNorm 40 (npu_add_rms_norm), Silu+Mul 40 (npu_swiglu)" over the patterns seen. */
static void seq_list(struct sbuf *sb, const struct seq_pat *pats, size_t n_pats, const struct seq_tally *t)
{
	for (size_t p = 0, k = 0; p < n_pats; p++)
		if (t->count[p])
			sbuf_addf(sb, "%s%s %llu (%s)", k++ ? ", " : "", pats[p].shown, (unsigned long long)t->count[p],
				  pats[p].api);
}

static void seq_finding(const struct rank_store *rs, struct rank_analysis *ra, int r, const struct seq_pat *pats,
			size_t n_pats, const struct seq_tally *t, uint64_t clip)
{
	uint64_t n = t->total + clip;
	if (!n)
		return;
	double steps = seq_steps(ra);
	struct advice_finding *f = advice_add(ra, r, n, t->show, (double)n / steps);
	seq_show(rs, f, t->show);
	f->total_ns = t->ns;
	f->share_of = "steps";
	f->bucket = r == ADV_FUSABLE_OPS ? "compute" : "host_dispatch";
	f->conf = CONF_MEDIUM; /* adjacency, not data flow, links the ops */
	struct sbuf sb = SBUF_INIT;
	if (ra->n_steps)
		sbuf_addf(&sb, _("%llu in %zu steps (%.1f per step): "), (unsigned long long)n, ra->n_steps, f->value);
	else
		sbuf_addf(&sb, _("%llu in the window (no steps found: one step): "), (unsigned long long)n);
	seq_list(&sb, pats, n_pats, t);
	if (clip)
		sbuf_addf(&sb, "%sclip_grad_norm_ %llu (clip_grad_norm_fused_)", t->total ? ", " : "",
			  (unsigned long long)clip);
	sbuf_addf(&sb, _("; %.3f ms"), (double)t->ns / 1e6);
	f->evidence = sbuf_detach(&sb);
}

/* Device kernels in stream order: compute kernels only (waits, copies and collectives in
 * between neither match nor break a run). */
static void fusable_ops(const struct rank_store *rs, const struct ev_class *cls, uint8_t *memo,
			struct rank_analysis *ra)
{
	struct seq_tally t = {.show = UINT32_MAX};
	bool lane = false;
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *ln = &rs->lanes[li];
		if (ln->group != LANE_DEVICE)
			continue;
		lane = true;
		struct seq_run run = {0};
		for (uint32_t k = 0; k < ln->n_events; k++) {
			uint32_t ev = ln->events[k];
			if (cls[ev].cat != CAT_COMPUTE || (cls[ev].flags & EVF_WAIT))
				continue;
			seq_push(rs, &run, memo_token(rs, memo, rs->ev_name[ev], false), ev, dev_pats, N_DEV_PATS, &t);
		}
	}
	seq_finding(rs, ra, ADV_FUSABLE_OPS, dev_pats, N_DEV_PATS, &t, 0);
	seq_status(ra, ADV_FUSABLE_OPS, lane ? NULL : N_("no device lane in the trace"));
}

static bool is_frame(const struct rank_store *rs, uint32_t ev)
{
	const char *cat = store_str(rs, rs->attrs[store_ev_attr_id(rs, ev)].cat);
	return cat && !strcmp(cat, "python_function");
}

/* Top-level framework ops (names with "::") of each Python thread in order (an op inside
 * the last one taken is its own callee); python_function frames are skipped but for
 * clip_grad_norm_, which is a Python function. */
static void affinity_api(const struct rank_store *rs, uint8_t *memo, struct rank_analysis *ra)
{
	struct seq_tally t = {.show = UINT32_MAX};
	uint64_t clip = 0;
	bool lane = false;
	for (size_t li = 0; li < rs->n_lanes; li++) {
		const struct lane *ln = &rs->lanes[li];
		if (ln->group != LANE_HOST_PYTHON)
			continue;
		lane = true;
		struct seq_run run = {0};
		int64_t top_end = INT64_MIN;
		for (uint32_t k = 0; k < ln->n_events; k++) {
			uint32_t ev = ln->events[k];
			int64_t ts = store_ts(rs, ev);
			if (is_frame(rs, ev)) {
				const char *s = store_ev_name(rs, ev);
				clip += s && strstr(s, "clip_grad_norm_") && !strstr(s, "fused");
				continue;
			}
			/* framework ops only (aten::, npu::): a step marker or annotation around
			 * them is no op of the sequence */
			const char *s = store_ev_name(rs, ev);
			if (ts < top_end || !s || !strstr(s, "::"))
				continue;
			top_end = ts + store_dur(rs, ev);
			seq_push(rs, &run, memo_token(rs, memo, rs->ev_name[ev], true), ev, host_pats, N_HOST_PATS, &t);
		}
	}
	seq_finding(rs, ra, ADV_AFFINITY_API, host_pats, N_HOST_PATS, &t, clip);
	seq_status(ra, ADV_AFFINITY_API,
		   lane ? NULL : N_("no Python lane in the trace: framework ops are recorded there"));
}

void advice_seq(const struct rank_data *rd, struct rank_analysis *ra)
{
	const struct rank_store *rs = &rd->store;
	small_transfers(rs, &rd->comm, ra);
	if (!rs->has_events || !ra->cls) {
		const char *why = N_("no trace: the sequences are read from its lanes in order");
		seq_status(ra, ADV_FUSABLE_OPS, why);
		seq_status(ra, ADV_AFFINITY_API, why);
		return;
	}
	uint32_t n = strtab_count(rs->strs);
	uint8_t *memo = xcalloc(n ? n : 1, 1);
	fusable_ops(rs, ra->cls, memo, ra);
	memset(memo, 0, n ? n : 1);
	affinity_api(rs, memo, ra);
	free(memo);
}
