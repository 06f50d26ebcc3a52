/* SPDX-License-Identifier: MIT */
/* ascprof-gen: the model's strings and the simulation: host dispatch per rank, then device placement. */
#include "gen.h"

/* Frames shared by every call stack, innermost first, after the kind's own frame. */
static const char *const common_frames[] = {
        "torch/nn/modules/module.py(1762): _call_impl",
        "torch/nn/modules/module.py(1751): _wrapped_call_impl",
        "vllm/model_executor/models/qwen2.py(248): forward",
        "torch/nn/modules/module.py(1762): _call_impl",
        "vllm/model_executor/models/qwen2.py(371): forward",
        "vllm/compilation/decorators.py(239): __call__",
        "vllm_ascend/worker/model_runner_v1.py(1402): _model_forward",
        "vllm_ascend/worker/model_runner_v1.py(1520): execute_model",
        "torch/utils/_contextlib.py(116): decorate_context",
        "vllm_ascend/worker/worker_v1.py(211): execute_model",
        "vllm/v1/executor/multiproc_executor.py(541): worker_busy_loop",
        "vllm/v1/executor/multiproc_executor.py(503): worker_main",
        "multiprocessing/process.py(108): run",
};
#define N_COMMON_FRAMES (sizeof common_frames / sizeof common_frames[0])
const struct proc_def procs[PR_COUNT] = {
        [PR_PY] = {"Python", "CPU", 0},
        [PR_CANN] = {"CANN", "CPU", 7},
        [PR_HW] = {"Ascend Hardware", "NPU", 13},
        [PR_HCCL] = {"HCCL", "NPU", 15},
        [PR_OV] = {"Overlap Analysis", "NPU", 23},
        [PR_FREQ] = {"AI Core Freq", "NPU", 14},
        [PR_HBM] = {"HBM", "NPU", 17},
};
const struct lane_def lanes[LN_COUNT] = {
        [LN_PY_MAIN] = {PR_PY, -1, NULL, false},
        [LN_PY_DEQ] = {PR_PY, -2, NULL, false},
        [LN_CANN] = {PR_CANN, -2, NULL, false},
        [LN_S2] = {PR_HW, 2, "Stream 2", false},
        [LN_S3] = {PR_HW, 3, "Stream 3", false},
        [LN_S4] = {PR_HW, 4, "Stream 4", true},
        [LN_HCCL_G0] = {PR_HCCL, 0, "Group 0 Communication", true},
        [LN_HCCL_P0] = {PR_HCCL, 1, "Plane 0", true},
        [LN_OV_COMP] = {PR_OV, 0, "Computing", false},
        [LN_OV_COMM] = {PR_OV, 1, "Communication", true},
        [LN_OV_NOV] = {PR_OV, 2, "Communication(Not Overlapped)", true},
        [LN_OV_FREE] = {PR_OV, 3, "Free", false},
};

static char *subst_tokens(const char *pat, int64_t tok, const char *sep)
{
	struct sbuf b = {0};
	char num[24];
	int nl = u64_digits(num, (uint64_t)tok);
	for (const char *p = pat; *p; p++) {
		if (*p == '#')
			sbuf_add(&b, num, (size_t)nl);
		else if (*p == ';' && sep)
			sbuf_adds(&b, sep);
		else
			sbuf_addc(&b, *p);
	}
	if (!b.buf)
		sbuf_adds(&b, "");
	return b.buf;
}

static void gen_strings(struct gen *G)
{
	struct rng r;
	rng_init(&r, G->o->seed, 'F', 0, 0);
	for (int k = 0; k < K_COUNT; k++) {
		const struct kind *kd = &kinds[k];
		for (int ph = 0; ph < 2; ph++) {
			int64_t tok = ph ? G->tok_prefill : G->tok_decode;
			G->dims_trace[k][ph] = subst_tokens(kd->in_shape, tok, ";\r\n");
			G->shape_in[k][ph] = subst_tokens(kd->in_shape, tok, NULL);
			G->shape_out[k][ph] = subst_tokens(kd->out_shape, tok, NULL);
		}
		G->types_trace[k] = subst_tokens(kd->torch_types, 0, ";\r\n");
		/* 10..15 frames: the kind's own, some shared ones, and <module> at the bottom */
		int depth = (int)rng_range(&r, 10, 15);
		struct sbuf js = {0}, cs = {0};
		const char *csep = G->o->crlf ? ";\r\n" : ";\n";
		for (int f = 0; f < depth; f++) {
			const char *fr = f == 0           ? kd->frame
			                 : f == depth - 1 ? "<string>(1): <module>"
			                                  : common_frames[(size_t)(f - 1) % N_COMMON_FRAMES];
			if (f) {
				sbuf_adds(&js, ";\r\n");
				sbuf_adds(&cs, csep);
			}
			sbuf_adds(&js, fr);
			sbuf_adds(&cs, fr);
		}
		G->stack_json[k] = js.buf;
		G->stack_csv[k] = cs.buf;
	}
}

/* ------------------------------------------------------------------------------------------ */
/* simulation: host dispatch per rank, then device placement jointly (collectives end together) */

static void moe_roles(const struct gen *G, struct rank_model *R, int k);

static void host_phase(const struct gen *G, struct rank_model *R, int k, const struct plan *P)
{
	const struct opts *o = G->o;
	struct rng r;
	rng_init(&r, o->seed, 'H', (uint64_t)R->r, (uint64_t)k);
	struct step *st = &R->st[k];
	memset(st, 0, sizeof *st);
	st->prefill = P->prefill;
	st->phase = P->phase;
	st->graph = P->graph;
	st->tok = P->tok;
	st->seqs = P->seqs;
	st->tok_p = P->tok_p;
	st->seqs_p = P->seqs_p;
	st->first_dev = -1;
	int64_t t = (k ? R->st[k - 1].sch_end : R->sch0_end) + jitter(&r, P->gap_before, 100);
	st->hs = t;
	int64_t prep = P->prefill ? jitter(&r, P->prep, 50) : o->host_gap_ns;
	if (o->marks == MARKS_NONE) {
		st->prep_ts = t;
		st->prep_end = t + prep;
		st->fwd_ts = st->prep_end;
	} else {
		st->prep_ts = t + US;
		st->prep_end = st->prep_ts + prep;
		st->fwd_ts = st->prep_end + US;
	}
	int64_t cur = st->fwd_ts + US, dq_free = 0;
	struct unit *run = NULL; /* the first unit of the current run of graph units */
	st->u0 = R->nu;
	st->nu = (size_t)P->n;
	xgrow(&R->u, &R->ucap, R->nu + (size_t)P->n, sizeof *R->u);
	R->nu += (size_t)P->n;
	for (int i = 0; i < P->n; i++) {
		const struct plan_unit *pu = &P->pu[i];
		const struct kind *kd = &kinds[pu->kind];
		struct unit *u = &R->u[st->u0 + (size_t)i];
		memset(u, 0, sizeof *u);
		u->kind = pu->kind;
		u->long_id = pu->long_id;
		u->graph = pu->graph;
		u->part = pu->part;
		u->c_ts = cur;
		u->c_dur = jitter(&r, pu->host_dur, 40);
		int lv = kd->nest - 1;
		int64_t in_ts = u->c_ts + lv * 1500, in_end = u->c_ts + u->c_dur - lv * 1000;
		u->eq_ts = in_ts + rng_range(&r, 1500, 3000);
		u->eq_dur = (int32_t)min64(rng_range(&r, 3000, 8000), in_end - u->eq_ts - 1000);
		u->dq_ts = max64(u->eq_ts + rng_range(&r, 2000, 6000), dq_free + 500);
		u->dq_dur = (int32_t)rng_range(&r, 8000, 13000);
		dq_free = u->dq_ts + u->dq_dur;
		u->acl_ts = u->dq_ts + 1000;
		u->acl_dur = u->dq_dur - 2000;
		u->nl_ts = u->acl_ts + rng_range(&r, 1500, 3000);
		u->nl_dur =
		        (int32_t)min64(rng_range(&r, 2000, 5000), u->acl_ts + u->acl_dur - u->nl_ts - 500);
		u->corr = R->next_corr++;
		u->acl_conn = R->next_conn++;
		u->conn = (kd->dc == DC_H2D || kd->dc == DC_D2H) ? u->acl_conn : R->next_conn++;
		if (u->kind == K_HOSTILE) {
			st->evil_ts = u->c_ts - 400;
			st->evil_end = u->c_ts + u->c_dur + 400;
		}
		if (!u->graph) {
			st->cpu_ops += kd->nest;
		} else { /* one replay call per run of graph units */
			if (!i || !u[-1].graph) {
				run = u;
				st->replays++;
			}
			run->rp_end = u->dq_ts + u->dq_dur;
		}
		cur = u->c_ts + u->c_dur + rng_range(&r, 1000, 4000);
	}
	st->cpu_ops += o->shape.annotate; /* the execute_context_... range is a cpu_op */
	if (o->moe_hot >= 0)
		moe_roles(G, R, k);
}

/* --moe-hot: the tokens routed to one rank's experts in one layer of step k, about the
 * batch's top-8 share (8 of 64 experts per token, spread over the ranks), +-10 % by rank and
 * layer, the hot rank's times its factor. */
static int64_t moe_tokens(const struct gen *G, const struct step *st, int k, int layer, int rank)
{
	struct rng r;
	rng_init(&r, G->o->seed, 'X', (uint64_t)k, (uint64_t)layer * MAX_RANKS + (uint64_t)rank);
	int64_t t = jitter(&r, moe_base_tokens(G, st), 100);
	if (rank == G->o->moe_hot)
		t = t * G->o->moe_milli / 1000;
	return t > 0 ? t : 1;
}

/* --moe-hot: each unit's role in its layer (a layer is the n-th dispatch .. combine of the
 * step) and the grouped matmuls' tokens (both of a layer carry the same). */
static void moe_roles(const struct gen *G, struct rank_model *R, int k)
{
	struct step *st = &R->st[k];
	int layer = 0;
	bool open = false, gmm = false;
	for (size_t i = 0; i < st->nu; i++) {
		struct unit *u = &R->u[st->u0 + i];
		if (u->kind == K_MOE_DISP || (u->kind == K_ALLTOALL && !open)) {
			u->moe_role = MR_DISPATCH;
			open = true;
			gmm = false;
		} else if (u->kind == K_MOE_COMB || u->kind == K_ALLTOALL) {
			u->moe_role = MR_COMBINE;
			open = false;
			layer++;
		} else if (u->kind == K_GMM) {
			u->moe_role = gmm ? MR_GMM2 : MR_GMM1;
			u->moe_tok = moe_tokens(G, st, k, layer, R->r);
			gmm = true;
		}
	}
}

/* MoE dispatch and combine through MC2: each kernel exchanges tokens with the peers, so it
 * ends when the last rank's kernel has its data (a late rank's peers wait inside it). */
static bool mc2_kind(int kind) { return kind == K_MOE_DISP || kind == K_MOE_COMB; }

/* Unit i of step k on every rank once placed: each kernel stretched to the latest end, the
 * whole of it communication (exposed: the stream runs nothing beside it). */
static void mc2_sync(struct gen *G, int k, int i)
{
	int64_t E = 0;
	for (int ri = 0; ri < G->o->ranks; ri++) {
		const struct unit *u = &G->rk[ri].u[G->rk[ri].st[k].u0 + (size_t)i];
		E = max64(E, u->k_ts + u->k_dur);
	}
	for (int ri = 0; ri < G->o->ranks; ri++) {
		struct rank_model *R = &G->rk[ri];
		struct step *st = &R->st[k];
		struct unit *u = &R->u[st->u0 + (size_t)i];
		int64_t s = u->k_ts;
		u->moe_wait = E - (s + u->k_dur); /* its own work done, it waits for the last peer */
		st->busy += E - (s + u->k_dur);
		u->k_dur = E - s;
		ul_add(&R->busy_u, s, E);
		R->s2_end = max64(R->s2_end, E);
		st->last_dev = max64(st->last_dev, E);
		st->comm += E - s;
		ul_add(&R->cc_u, s, E);
		pl_add(&R->nov, s, E);
	}
}

static void place_task(const struct gen *G, struct rank_model *R, struct step *st, struct unit *u,
                       const struct plan_unit *pu, struct rng *dr)
{
	const struct kind *kd = &kinds[u->kind];
	bool copy = kd->dc != DC_COMPUTE;
	int64_t launch = copy ? u->acl_ts + u->acl_dur : u->nl_ts + u->nl_dur;
	int64_t s = max64(launch + KERNEL_LATENCY, R->s2_end);
	if (R->dep_wait && R->ov_left == 0) {
		s = max64(s, R->coll_E); /* needs the collective's result */
		R->dep_wait = false;
	}
	int64_t d = jitter(dr, pu->kdur, 30);
	if (u->moe_tok > 0) /* the plan's size is the balanced share's: time follows the tokens */
		d = d * u->moe_tok / moe_base_tokens(G, st);
	if (!copy && R->r == G->o->slow_rank)
		d = d * G->o->slow_milli / 1000;
	if (u->kind == G->o->scale_kind)
		d = d * G->o->scale_milli / 1000;
	if (d < 1000)
		d = 1000;
	if (R->sdma_pending && R->sdma_s <= s) {
		ul_add(&R->busy_u, R->sdma_s, R->sdma_e);
		R->sdma_pending = false;
	}
	ul_add(&R->busy_u, s, s + d);
	u->k_wait = R->have_s2 ? s - R->s2_end : 0;
	R->have_s2 = true;
	u->k_ts = s;
	u->k_dur = d;
	u->task = R->next_task++;
	R->s2_end = s + d;
	st->last_dev = max64(st->last_dev, s + d);
	if (st->first_dev < 0)
		st->first_dev = s;
	st->busy += d;
	if (copy) {
		st->copy += d;
		if (kd->dc == DC_H2D)
			st->h2d += d;
		else
			st->d2h += d;
		return;
	}
	if (mc2_kind(u->kind)) {
		/* communication, not compute: accounted by mc2_sync once the peers are placed */
		if (R->ov_left > 0)
			die("internal: an MC2 kernel inside a collective's overlap window");
	} else {
		st->compute += d;
		ul_add(&R->comp_m, s, s + d);
		ul_add(&R->cc_u, s, s + d);
	}
	if (R->ov_left > 0) {
		/* runs while the collective is in flight: overlapped part and SDMA cover by clipping */
		st->overlapped += clip_len(s, s + d, R->coll_a, R->coll_E);
		R->sdma_cov += clip_len(s, s + d, R->coll_E - R->coll_T, R->coll_E);
		pl_add(&R->nov, R->nov_cur, min64(s, R->coll_E));
		R->nov_cur = max64(R->nov_cur, min64(s + d, R->coll_E));
		if (--R->ov_left == 0) {
			pl_add(&R->nov, R->nov_cur, R->coll_E);
			st->busy += R->coll_T - R->sdma_cov;
		}
	}
	/* strictly inside a compute kernel: adds nothing to any union (inside an MC2 kernel,
	 * communication, it would be compute overlapping it: none there) */
	if (pu->s3 && d >= 10 * US && !mc2_kind(u->kind)) {
		u->s3_ts = s + d / 4;
		u->s3_dur = (int32_t)(d / 3);
		u->s3_wait = R->have_s3 ? u->s3_ts - R->s3_end : 0;
		R->have_s3 = true;
		u->s3_task = R->next_s3_task++;
		u->s3_conn = R->next_conn++;
		R->s3_end = u->s3_ts + u->s3_dur;
	}
	if (pu->ev && d >= 10 * US) { /* a sync task: neither busy nor compute */
		u->ev_ts = s + 3 * d / 4;
		u->ev_task = R->next_s3_task++;
		u->ev_conn = R->next_conn++;
		R->s3_end = u->ev_ts + US;
	}
}

static void device_phase(struct gen *G, int k, const struct plan *P)
{
	int nr = G->o->ranks;
	struct rng *dr = xmalloc(sizeof *dr * (size_t)nr);
	for (int ri = 0; ri < nr; ri++)
		rng_init(&dr[ri], G->o->seed, 'D', (uint64_t)ri, (uint64_t)k);
	for (int i = 0; i < P->n; i++) {
		const struct plan_unit *pu = &P->pu[i];
		if (kinds[pu->kind].dc != DC_COMM) {
			for (int ri = 0; ri < nr; ri++) {
				struct rank_model *R = &G->rk[ri];
				place_task(G, R, &R->st[k], &R->u[R->st[k].u0 + (size_t)i], pu, &dr[ri]);
			}
			if (mc2_kind(pu->kind))
				mc2_sync(G, k, i);
			continue;
		}
		/* every rank arrives when its stream 2 gets there; all leave at E = max a + T */
		int64_t E = 0;
		for (int ri = 0; ri < nr; ri++) {
			struct rank_model *R = &G->rk[ri];
			struct unit *u = &R->u[R->st[k].u0 + (size_t)i];
			u->k_ts = max64(u->nl_ts + u->nl_dur + KERNEL_LATENCY, R->s2_end);
			E = max64(E, u->k_ts);
		}
		int64_t last_in = E;
		E += pu->xfer + (G->coll_counter == 0 ? G->o->setup_ns : 0);
		for (int ri = 0; ri < nr; ri++) {
			struct rank_model *R = &G->rk[ri];
			struct step *st = &R->st[k];
			struct unit *u = &R->u[st->u0 + (size_t)i];
			int64_t a = u->k_ts;
			u->k_dur = E - a;
			u->moe_wait = last_in - a;
			u->xfer = pu->xfer;
			u->k_wait = R->have_coll ? a - R->coll_end : 0;
			R->have_coll = true;
			R->coll_end = E;
			u->task = R->next_s4_task;
			R->next_s4_task += 2;
			u->coll_seq = G->coll_counter;
			R->coll_a = a;
			R->coll_E = E;
			R->coll_T = pu->xfer;
			R->sdma_cov = 0;
			R->nov_cur = a;
			R->ov_left = pu->m_ov;
			R->dep_wait = true;
			if (pu->m_ov == 0) { /* nothing overlaps it: exposed whole, its transfer busy */
				pl_add(&R->nov, a, E);
				st->busy += pu->xfer;
			}
			ul_add(&R->cc_u, a, E);
			R->sdma_pending = true;
			R->sdma_s = E - pu->xfer;
			R->sdma_e = E;
			st->comm += E - a;
			st->ncoll++;
			st->last_dev = max64(st->last_dev, E);
			if (st->first_dev < 0)
				st->first_dev = a;
		}
		G->coll_counter++;
	}
	free(dr);
}

static void finish_step(const struct gen *G, struct rank_model *R, int k, const struct plan *P)
{
	struct rng r;
	rng_init(&r, G->o->seed, 'E', (uint64_t)R->r, (uint64_t)k);
	struct step *st = &R->st[k];
	struct unit *last = &R->u[st->u0 + st->nu - 1];
	/* the sampler's D2H copy is synchronous: its cpu_op waits for the device */
	int64_t need = last->k_ts + last->k_dur + 3 * US;
	if (last->c_ts + last->c_dur < need)
		last->c_dur = need - last->c_ts;
	int64_t fwd_need = last->c_ts + last->c_dur + US;
	st->he = max64(fwd_need, last->dq_ts + last->dq_dur) + jitter(&r, P->tail, 100);
	st->fwd_end = G->o->marks == MARKS_NONE ? st->he : st->he - US;
	st->sch_ts = st->he + rng_range(&r, 2 * US, 6 * US);
	st->sch_end = st->sch_ts + jitter(&r, P->sched, 100);
	if (k == R->nst - 1)
		st->sch_end += G->o->edge_ns; /* the trailing edge */
	if (R->ov_left || R->dep_wait)
		die("internal: collective overlap window crosses a step end");
}

/* --shape vllm, --default-export: no python_function spans cover the steps, so host busy is
 * the union of what is written: each eager unit's cpu_op and Dequeue (its CANN events lie
 * inside), the ProfilerStep and annotation ranges, the graph replays. */
static void shape_host_list(const struct gen *G, struct rank_model *R)
{
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		if (G->o->shape.annotate)
			list_push(&R->host_u, st->fwd_ts, st->fwd_end);
		if (G->o->marks == MARKS_PROFILERSTEP)
			list_push(&R->host_u, st->hs, st->he);
		for (size_t i = 0; i < st->nu; i++) {
			const struct unit *u = &R->u[st->u0 + i];
			if (u->rp_end)
				list_push(&R->host_u, u->dq_ts, u->rp_end);
			if (u->graph)
				continue;
			list_push(&R->host_u, u->c_ts, u->c_ts + u->c_dur);
			list_push(&R->host_u, u->dq_ts, u->dq_ts + u->dq_dur);
		}
	}
	sweep_merge(&R->host_u);
}

static void finish_rank(const struct gen *G, struct rank_model *R)
{
	if (R->sdma_pending) {
		ul_add(&R->busy_u, R->sdma_s, R->sdma_e);
		R->sdma_pending = false;
	}
	R->first_ts = R->sch0_ts;
	R->last_end = R->st[R->nst - 1].sch_end;
	R->host_busy = R->sch0_end - R->sch0_ts;
	if (G->o->host_bare) {           /* the host starts and ends every step */
		if (G->o->edge_ns > 0) { /* and the edges' cpu_ops (gen_trace.c), --edge-us: the
					  * leading one before step 0, the trailing one in the last step */
			list_push(&R->host_u, R->sch0_ts, R->sch0_end);
			list_push(&R->host_u, R->st[R->nst - 1].sch_ts, R->st[R->nst - 1].sch_end);
			R->cpu_ops++;
			R->st[R->nst - 1].cpu_ops++;
		}
		shape_host_list(G, R);
		R->first_ts = R->host_u.v[0].s;
		R->last_end = R->host_u.v[R->host_u.n - 1].e;
	}
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		R->compute += st->compute;
		R->copy += st->copy;
		R->h2d += st->h2d;
		R->d2h += st->d2h;
		R->comm += st->comm;
		R->overlapped += st->overlapped;
		R->busy += st->busy;
		R->cpu_ops += st->cpu_ops;
		R->ncoll += st->ncoll;
		R->prefill_steps += st->prefill;
		R->host_busy += (st->he - st->hs) + (st->sch_end - st->sch_ts);
	}
	/* the device is occupied while it runs a task or takes part in a collective (waiting
	 * for its peers included): only outside that is it idle or waiting for the host */
	ul_merge(&R->busy_u, &R->cc_u, &R->occ_u);
	/* device work and collectives of a step lie inside its step span, so host-only is host
	 * busy minus occupied (the capture has no sync ops) */
	R->host_only = R->host_busy - ivl_total(&R->occ_u);
	if (R->host_u.n) {
		sweep_subtract(&R->host_u, &R->occ_u, &R->honly_u);
		R->host_busy = ivl_total(&R->host_u);
		R->host_only = ivl_total(&R->honly_u);
	}
	R->edge_idle = R->occ_u.n ? (R->occ_u.v[0].s - R->first_ts) + (R->last_end - R->occ_u.v[R->occ_u.n - 1].e)
				  : R->last_end - R->first_ts;
	int64_t wall = R->last_end - R->first_ts;
	R->free_ns = wall - (R->compute + R->comm - R->overlapped);
	int64_t prev = R->first_ts;
	for (size_t i = 0; i <= R->occ_u.n; i++) {
		int64_t s = i < R->occ_u.n ? R->occ_u.v[i].s : R->last_end;
		if (s - prev >= IDLE_MIN) {
			R->idle += s - prev;
			R->idle_gaps++;
		}
		if (i < R->occ_u.n)
			prev = R->occ_u.v[i].e;
	}
	prev = R->first_ts;
	for (size_t i = 0; i <= R->cc_u.n; i++) {
		int64_t s = i < R->cc_u.n ? R->cc_u.v[i].s : R->last_end;
		pl_add(&R->freeg, prev, s);
		if (i < R->cc_u.n)
			prev = R->cc_u.v[i].e;
	}
	/* the sums above and the placement-order lists must tell the same story */
	if (ivl_total(&R->comp_m) != R->compute || ivl_total(&R->busy_u) != R->busy ||
	    ivl_total(&R->cc_u) != R->compute + R->comm - R->overlapped ||
	    ivl_total(&R->nov) != R->comm - R->overlapped || ivl_total(&R->freeg) != R->free_ns)
		die("internal: rank %d construction sums disagree", R->r);
}

static void choose_prefill(struct gen *G)
{
	const struct opts *o = G->o;
	G->is_prefill = xcalloc((size_t)G->steps, sizeof *G->is_prefill);
	int want = o->prefill < G->steps ? o->prefill : G->steps;
	if (want <= 0)
		return;
	G->is_prefill[0] = true;
	struct rng r;
	rng_init(&r, o->seed, 'P', (uint64_t)G->steps, 0);
	int n = G->steps - 1;
	int *idx = xmalloc(sizeof *idx * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		idx[i] = i + 1;
	for (int i = 0; i < want - 1; i++) {
		int j = (int)rng_range(&r, i, n - 1);
		int t = idx[i];
		idx[i] = idx[j];
		idx[j] = t;
		G->is_prefill[idx[i]] = true;
	}
	free(idx);
}

/* --shape: every step's phase; mixed (chunked-prefill) steps are drawn among the decode steps
 * after the first. */
static void choose_phases(struct gen *G)
{
	const struct opts *o = G->o;
	G->phase = xcalloc((size_t)G->steps, 1);
	int cand = 0;
	for (int k = 0; k < G->steps; k++) {
		G->phase[k] = o->shape.kind == SHAPE_TRAIN ? SP_TRAIN : G->is_prefill[k] ? SP_PREFILL : SP_DECODE;
		cand += k > 0 && G->phase[k] == SP_DECODE;
	}
	struct rng r;
	rng_init(&r, o->seed, 'Q', (uint64_t)G->steps, 0);
	for (int want = o->shape.mixed < cand ? o->shape.mixed : cand; want > 0; want--) {
		int pick = (int)rng_range(&r, 0, cand - 1);
		for (int k = 1; k < G->steps; k++)
			if (G->phase[k] == SP_DECODE && pick-- == 0) {
				G->phase[k] = SP_MIXED;
				break;
			}
		cand--;
	}
	/* requests keep decoding for many steps (continuous batching): the decode batch moves
	 * by a few requests a step, and a chunked-prefill step carries it beside its prompt */
	G->running = xcalloc((size_t)G->steps, sizeof *G->running);
	int64_t running = rng_range(&r, 4, 64);
	for (int k = 0; k < G->steps; k++) {
		running += rng_range(&r, -4, 4);
		running = running < 4 ? 4 : running > 64 ? 64 : running;
		G->running[k] = running;
	}
}

/* --shape: a kernel's shapes with this step's tokens ('#') and sequences ('@'); a split
 * attention's parts have their own. NULL for the marked shape (its strings are made once). */
static char *shape_subst(const struct gen *G, const struct step *st, const struct unit *u, const char *pat,
                         const char *sep)
{
	if (G->o->shape.kind == SHAPE_MARKED)
		return NULL;
	int64_t tok = u->moe_tok > 0 ? u->moe_tok : st->tok, seqs = st->seqs;
	if (u->part == 1)
		tok = seqs = st->seqs - st->seqs_p;
	else if (u->part == 2) {
		tok = st->tok_p;
		seqs = st->seqs_p;
	}
	struct sbuf b = {0};
	for (const char *p = pat; *p; p++) {
		if (*p == '#' || *p == '@')
			sbuf_addf(&b, "%" PRId64, *p == '#' ? tok : seqs);
		else if (*p == ';' && sep)
			sbuf_adds(&b, sep);
		else
			sbuf_addc(&b, *p);
	}
	if (!b.buf)
		sbuf_adds(&b, "");
	return b.buf;
}

char *shape_text(const struct gen *G, const struct step *st, const struct unit *u, const char *pat)
{
	return shape_subst(G, st, u, pat, NULL);
}

/* The same as the trace's Input Dims string writes it (";\r\n" between inputs). */
char *dims_text(const struct gen *G, const struct step *st, const struct unit *u, const char *pat)
{
	return shape_subst(G, st, u, pat, ";\r\n");
}

/* Upstream vLLM's per-step range: execute_context_<reqs>(<tokens>)_generation_<reqs>(<tokens>). */
void annotation_name(const struct step *st, char *buf, size_t n)
{
	int64_t cr = 0, ct = 0, gr = 0;
	if (st->phase == SP_PREFILL) {
		cr = st->seqs;
		ct = st->tok;
	} else if (st->phase == SP_MIXED) {
		cr = st->seqs_p;
		ct = st->tok_p;
		gr = st->seqs - st->seqs_p;
	} else {
		gr = st->seqs;
	}
	snprintf(buf, n, "execute_context_%" PRId64 "(%" PRId64 ")_generation_%" PRId64 "(%" PRId64 ")", cr, ct,
	         gr, gr);
}

/* A collective's name as HCCL writes it: hcom_<op>__<group seq>_<n>_1. */
void coll_name(char *buf, size_t n, const struct gen *G, const struct unit *u)
{
	snprintf(buf, n, "%s_%d_%d_1", kinds[u->kind].type, G->coll_group, u->coll_seq);
}

void format_stamp(char *buf, size_t n, int64_t ns)
{
	int64_t ms = ns / MS;
	int64_t days = ms / 86400000, rem = ms % 86400000;
	/* civil_from_days (proleptic Gregorian, UTC) */
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t y = yoe + era * 400;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int64_t d = doy - (153 * mp + 2) / 5 + 1;
	int64_t m = mp < 10 ? mp + 3 : mp - 9;
	y += m <= 2;
	snprintf(buf, n,
	         "%04" PRId64 "%02" PRId64 "%02" PRId64 "%02" PRId64 "%02" PRId64 "%02" PRId64 "%03" PRId64,
	         y, m, d, rem / 3600000, rem / 60000 % 60, rem / 1000 % 60, rem % 1000);
}

void gen_init(struct gen *G, const struct opts *o, int steps)
{
	memset(G, 0, sizeof *G);
	G->o = o;
	G->steps = steps;
	struct rng r;
	rng_init(&r, o->seed, 'G', 0, 0);
	G->base = BASE_NS + rng_range(&r, 0, 10000 * MS);
	G->coll_group = (int)rng_range(&r, 100, 999);
	G->tok_decode = rng_range(&r, 8, 64);
	G->tok_prefill = rng_range(&r, 1024, 4096);
	static const char *const hosts[] = {"localhost.localdomain", "devserver-910b-01",
	                                    "node-10-174-216-241"};
	G->host = hosts[rng_range(&r, 0, 2)];
	choose_prefill(G);
	choose_phases(G);
	gen_strings(G);
	G->rk = xcalloc((size_t)o->ranks, sizeof *G->rk);
	for (int ri = 0; ri < o->ranks; ri++) {
		struct rank_model *R = &G->rk[ri];
		R->r = ri;
		R->dev = ri % 16; /* torch_npu packs the device id into 5 bits of the pid */
		R->off = o->offsets_ns[ri];
		R->pid = 3096504 + 1000LL * ri;
		R->tid_main = R->pid;
		R->tid_deq = R->pid + 7;
		for (int p = 0; p < PR_COUNT; p++)
			R->proc_pid[p] = p == PR_PY ? R->pid : (R->pid << 10) | (procs[p].sort << 5) | R->dev;
		R->nst = steps;
		R->st = xcalloc((size_t)steps, sizeof *R->st);
		R->next_corr = 8226;
		R->next_conn = 936;
		R->next_task = 11049;
		R->next_s3_task = 301;
		R->next_s4_task = 806;
		int64_t t0 = G->base + rng_range(&r, 0, 50 * US);
		R->sch0_ts = t0;
		R->sch0_end = t0 + rng_range(&r, 80 * US, 120 * US) + o->edge_ns;
		char stamp[32];
		format_stamp(stamp, sizeof stamp, G->base + R->off - 2000 * MS + 37 * MS * ri);
		if (o->naming == NAME_HOST) {
			/* 16 NPUs per node: ranks 16 and up live on other hosts */
			char host[96];
			if (ri < 16)
				snprintf(host, sizeof host, "%s", G->host);
			else
				snprintf(host, sizeof host, "%s-%d", G->host, ri / 16);
			snprintf(R->dir, sizeof R->dir, "%s_%" PRId64 "_%s_ascend_pt", host, R->pid, stamp);
		} else {
			snprintf(R->dir, sizeof R->dir, "dp0_pp0_tp%d_dcp0_ep0_rank%d_%s_ascend_pt", ri, ri,
			         stamp);
		}
	}
}

/* The truth of the fusable sequences a step's plan holds: consecutive compute units (the
 * device stream, copies and collectives between them skipped) and consecutive framework
 * ops (the host's: names with "::"; HCCL calls between them skipped). */
static void count_fusable(struct gen *G, const struct plan *P)
{
	int prev = -1, prev2 = -1, prev_op = -1;
	for (int i = 0; i < P->n; i++) {
		int k = P->pu[i].kind;
		if (kinds[k].host[0] && strstr(kinds[k].host[0], "::")) { /* a framework op (aten::, npu::) */
			bool sm = prev_op == K_SILU && k == K_MUL, nc = prev_op == K_NEG && k == K_CAT;
			G->aff_silu_mul += sm;
			G->aff_neg_cat += nc;
			prev_op = sm || nc ? -1 : k;
		}
		if (kinds[k].dc != DC_COMPUTE)
			continue;
		/* as the analysis matches: the last three kernels, a match uses them up */
		bool ar = prev == K_ADD && k == K_RMSNORM, sw = prev == K_SILU && k == K_MUL,
		     ro = prev2 == K_NEG && prev == K_CAT && k == K_MUL;
		G->fus_add_rms += ar;
		G->fus_swiglu += sw;
		G->fus_rotary += ro;
		prev2 = ar || sw || ro ? -1 : prev;
		prev = ar || sw || ro ? -1 : k;
	}
}

void gen_simulate(struct gen *G)
{
	struct plan P = {0};
	for (int k = 0; k < G->steps; k++) {
		make_plan(G, k, &P);
		count_fusable(G, &P);
		for (int ri = 0; ri < G->o->ranks; ri++)
			host_phase(G, &G->rk[ri], k, &P);
		device_phase(G, k, &P);
		for (int ri = 0; ri < G->o->ranks; ri++)
			finish_step(G, &G->rk[ri], k, &P);
	}
	for (int ri = 0; ri < G->o->ranks; ri++)
		finish_rank(G, &G->rk[ri]);
	free(P.pu);
}

void gen_free(struct gen *G)
{
	for (int ri = 0; ri < G->o->ranks; ri++) {
		struct rank_model *R = &G->rk[ri];
		free(R->u);
		free(R->st);
		free(R->comp_m.v);
		free(R->busy_u.v);
		free(R->cc_u.v);
		free(R->occ_u.v);
		free(R->host_u.v);
		free(R->honly_u.v);
		free(R->nov.v);
		free(R->freeg.v);
	}
	free(G->rk);
	free(G->is_prefill);
	free(G->phase);
	free(G->running);
	for (int k = 0; k < K_COUNT; k++) {
		for (int ph = 0; ph < 2; ph++) {
			free(G->dims_trace[k][ph]);
			free(G->shape_in[k][ph]);
			free(G->shape_out[k][ph]);
		}
		free(G->types_trace[k]);
		free(G->stack_json[k]);
		free(G->stack_csv[k]);
	}
}
