/* SPDX-License-Identifier: MIT */
/* ascprof-gen: planning: the per-step structure every rank shares (marked, vLLM and training shapes). */
#include "gen.h"

static void plan_push(struct plan *P, uint8_t kind)
{
	xgrow(&P->pu, &P->cap, (size_t)P->n + 1, sizeof *P->pu);
	memset(&P->pu[P->n], 0, sizeof P->pu[P->n]);
	P->pu[P->n++].kind = kind;
}

/* --drop-op: the units of a kind leave the plan after every draw was made, so that the other
 * units keep their sizes. Each collective still needs its overlapped kernels and one unit after
 * them inside the step; with fewer kernels left it overlaps fewer. */
static void drop_units(struct plan *P, int kind)
{
	int n = 0;
	for (int i = 0; i < P->n; i++)
		if (P->pu[i].kind != kind)
			P->pu[n++] = P->pu[i];
	P->n = n;
	for (int i = 0; i < P->n; i++) {
		if (kinds[P->pu[i].kind].dc != DC_COMM)
			continue;
		int computes = 0; /* compute kernels after it with another unit of the segment after them */
		for (int j = i + 1; j + 1 < P->n && kinds[P->pu[j + 1].kind].dc != DC_COMM; j++)
			computes += kinds[P->pu[j].kind].dc == DC_COMPUTE;
		if (computes < 1)
			die("--drop-op %s leaves a collective without a kernel to overlap (try more --ops)",
			    kinds[kind].kernel);
		if (P->pu[i].m_ov > computes)
			P->pu[i].m_ov = computes;
	}
}

static int64_t shape_budget(const struct opts *o, const struct plan *P, struct rng *r, int64_t *att);

/* MC2 dispatch and combine are communication of their own (gen_sim.c mc2_sync): a collective's
 * m overlapped kernels from index *p start after them and end before the next one. */
static void plain_window(const uint8_t *seq, int hi, int *p, int *m)
{
	while (*p < hi && ((seq[*p] & 63) == K_MOE_DISP || (seq[*p] & 63) == K_MOE_COMB))
		++*p;
	for (int i = 0; i < *m && *p + i <= hi; i++)
		if ((seq[*p + i] & 63) == K_MOE_DISP || (seq[*p + i] & 63) == K_MOE_COMB) {
			*m = i > 0 ? i : 1;
			break;
		}
}

static bool attention_kind(uint8_t kind)
{
	return kind == K_FIA || kind == K_PAGED || kind == K_FLASH;
}

/* The units of a step from its kernel sequence: two collectives on several ranks (each followed
 * by m_ov independent kernels, then one that needs its result), host and device sizes. */
static void plan_units(const struct gen *G, struct plan *P, const uint8_t *seq, int L, int head, struct rng *rp)
{
	const struct opts *o = G->o;
	struct rng r = *rp;
	int m1 = (int)rng_range(&r, 1, 4), m2 = (int)rng_range(&r, 1, 4);
	int lo = head, hi = L - 2; /* dependent kernels may be at most at index hi (ArgMax) */
	while (lo + m1 + 1 + m2 > hi && (m1 > 1 || m2 > 1)) {
		if (m1 >= m2)
			m1--;
		else
			m2--;
	}
	int p1 = L / 3, p2 = 2 * L / 3;
	if (p1 > hi - m2 - 1 - m1)
		p1 = hi - m2 - 1 - m1;
	if (p1 < lo)
		p1 = lo;
	if (p2 < p1 + m1 + 1)
		p2 = p1 + m1 + 1;
	if (p2 > hi - m2)
		p2 = hi - m2;
	plain_window(seq, hi, &p1, &m1);
	if (p2 < p1 + m1 + 1)
		p2 = p1 + m1 + 1;
	plain_window(seq, hi, &p2, &m2);
	/* --moe-hot: a prompt's all-to-alls are its layers' own (vllm_layer), none added */
	bool colls = o->ranks > 1 && lo + m1 + 1 + m2 <= hi && p2 + m2 <= hi && !(o->moe_hot >= 0 && P->a2a);
	for (int i = 0; i < L; i++) {
		if (colls && (i == p1 || i == p2)) {
			plan_push(P, P->a2a ? K_ALLTOALL : K_ALLREDUCE);
			struct plan_unit *pu = &P->pu[P->n - 1];
			pu->m_ov = i == p1 ? m1 : m2;
			pu->xfer = P->prefill ? rng_range(&r, 200 * US, 1500 * US)
			                      : rng_range(&r, 30 * US, 200 * US);
			pu->xfer = pu->xfer * o->xfer_milli / 1000;
			pu->host_dur = rng_range(&r, 20 * US, 40 * US);
		}
		plan_push(P, seq[i] & 63);
		struct plan_unit *pu = &P->pu[P->n - 1];
		pu->part = (uint8_t)(seq[i] >> 6);
		pu->host_dur = rng_range(&r, 15 * US, 40 * US);
		pu->s3 = rng_permille(&r, 40);
		pu->ev = rng_permille(&r, 25);
		pu->long_id = rng_permille(&r, 300);
		pu->kdur = rng_range(&r, 700, 1300); /* relative weight jitter, scaled below */
		if (kinds[pu->kind].dc == DC_COMM) { /* a layer's all-to-all: the experts need its tokens */
			pu->m_ov = 0;
			pu->xfer = rng_range(&r, 200 * US, 800 * US) * o->xfer_milli / 1000;
		}
	}
	/* device budget spread over the compute kernels by weight (--shape: the attention's share
	 * over the attention kernels, the rest over the others); copies have their own sizes */
	int64_t att = 0;
	int64_t budget = o->shape.kind != SHAPE_MARKED ? shape_budget(o, P, &r, &att)
	                 : P->prefill                  ? rng_range(&r, 20 * MS, 50 * MS)
	                                               : rng_range(&r, 4 * MS, 9 * MS);
	int64_t wsum = 0, asum = 0;
	for (int i = 0; i < P->n; i++) {
		if (att > 0 && attention_kind(P->pu[i].kind))
			asum += P->pu[i].kdur;
		else
			wsum += kinds[P->pu[i].kind].weight * P->pu[i].kdur;
	}
	if (!asum) /* no attention kernel (--drop-op): the others take its time */
		att = 0;
	/* token-sized inputs (ids, positions) copied from pageable host memory: a latency and
	 * about 20 ns a token (--shape, but training); the marked shape's prompts are bigger */
	bool by_tokens = o->shape.kind != SHAPE_MARKED && P->phase != SP_TRAIN;
	for (int i = 0; i < P->n; i++) {
		struct plan_unit *pu = &P->pu[i];
		switch (kinds[pu->kind].dc) {
		case DC_COMPUTE:
			pu->kdur = att && attention_kind(pu->kind)
			                   ? max64(1000, att * pu->kdur / asum)
			                   : max64(1000, (budget - att) * kinds[pu->kind].weight * pu->kdur / wsum);
			break;
		case DC_H2D:
			pu->kdur = by_tokens   ? rng_range(&r, 2 * US, 8 * US) + P->tok * 20
			           : P->prefill ? rng_range(&r, 20 * US, 120 * US)
			                        : rng_range(&r, 2 * US, 25 * US);
			break;
		case DC_D2H: pu->kdur = rng_range(&r, 2 * US, 8 * US); break;
		case DC_COMM: pu->kdur = 0; break;
		}
	}
	/* a graph replays the model, or pieces of it between the eager attention calls; inputs
	 * and sampling stay eager */
	for (int i = 0; i < P->n; i++) {
		uint8_t kind = P->pu[i].kind;
		bool attention = attention_kind(kind);
		P->pu[i].graph = (P->graph || (P->piecewise && !attention)) && kinds[kind].dc != DC_H2D &&
		                 kinds[kind].dc != DC_D2H && kind != K_ARGMAX;
	}
	if (o->drop_kind >= 0)
		drop_units(P, o->drop_kind);
	P->prep = rng_range(&r, 300 * US, 600 * US);
	P->tail = rng_range(&r, 10 * US, 40 * US);
	P->sched = rng_range(&r, 80 * US, 120 * US);
	P->gap_before = rng_range(&r, 2 * US, 8 * US);
	*rp = r;
}

/* --shape: the device time of a step from its tokens, as the accelerator spends it. Every
 * step reads the weights once: a memory-bound floor. The matmuls' compute passes that floor at
 * a crossover of a few hundred tokens and grows with the tokens from there. Attention costs
 * by query x key-value: a decode token reads its sequence's cache (memory-bound, per cached
 * token, GEN_CTX of them on average), a prompt's tokens attend to the prompt before them
 * (compute, per pair). So a short prompt costs about what a decode step costs and a long one
 * many times more, and a mixed step is its tokens' cost. *att: the attention's share. One
 * draw (a +-10 % jitter) where the old budget drew, so that the later draws keep their
 * values. */
enum {
	GEN_FLOOR_NS = 4 * MS,    /* the weights read once */
	GEN_CROSS_TOK = 384,      /* tokens where the matmuls turn compute-bound */
	GEN_CTX = 1024,           /* cached tokens a running sequence reads */
	GEN_CACHE_PS = 24000,     /* ps per cached token read by a decode token */
	GEN_PAIR_PS = 750,        /* ps per query x key pair of a prompt */
};

static int64_t shape_budget(const struct opts *o, const struct plan *P, struct rng *r, int64_t *att)
{
	*att = 0;
	if (P->phase == SP_TRAIN)
		return rng_range(r, 60 * MS, 90 * MS);
	if (P->phase == SP_PREFILL && !o->shape.short_prefill)
		(void)rng_permille(r, 500); /* the old budget's long-or-short draw */
	int64_t j = rng_range(r, 900, 1100);
	int64_t mm = P->tok > GEN_CROSS_TOK ? GEN_FLOOR_NS * P->tok / GEN_CROSS_TOK : GEN_FLOOR_NS;
	int64_t cached = 0, pairs = 0; /* decode tokens' cache reads; prompt query x key pairs */
	if (P->phase == SP_DECODE) {
		cached = P->seqs * GEN_CTX;
	} else if (P->phase == SP_PREFILL) {
		int64_t len = P->seqs > 0 ? P->tok / P->seqs : P->tok; /* the prompts are drawn equal */
		pairs = P->seqs * len * (len + 1) / 2;
	} else { /* the decode batch beside a chunk at its prompt's start */
		cached = (P->seqs - P->seqs_p) * GEN_CTX;
		pairs = P->tok_p * (P->tok_p + 1) / 2;
	}
	*att = (cached * GEN_CACHE_PS + pairs * GEN_PAIR_PS) / 1000 * j / 1000;
	return mm * j / 1000 + *att;
}

static void seq_add(uint8_t *seq, int *L, int kind, int part)
{
	seq[(*L)++] = (uint8_t)(kind | part << 6);
}

/* One transformer layer of a vLLM-Ascend step: attention by phase (FusedInferAttentionScore in
 * every state, PagedAttention in decode-only graph batches; in 0.7-0.9 eager (legacy)
 * FlashAttentionScore in prefill and PagedAttention in decode, a decode part and a prefill part in
 * mixed MLA batches as mla_v1 splits them), MLA preprocess only without prefills, MoE through
 * MC2 dispatch and combine. */
static void seq_run(uint8_t *seq, int *L, const uint8_t *kinds_, size_t n)
{
	for (size_t i = 0; i < n; i++)
		seq_add(seq, L, kinds_[i], 0);
}

static void vllm_layer(const struct opts *o, const struct plan *P, uint8_t *seq, int *L)
{
	static const uint8_t qkv[] = {K_RMSNORM, K_LINEAR, K_ROPE, K_CACHE}, mlapo[] = {K_MLAPO, K_CACHE};
	static const uint8_t mid[] = {K_LINEAR, K_ADD, K_RMSNORM};
	static const uint8_t moe[] = {K_MOE_DISP, K_GMM, K_SILU, K_GMM, K_MOE_COMB, K_ADD};
	static const uint8_t mlp[] = {K_LINEAR, K_SILU, K_MUL, K_LINEAR, K_ADD};
	static const uint8_t experts[] = {K_GMM, K_SILU, K_GMM, K_ADD}; /* tokens moved by all-to-all */
	/* --moe-hot: the all-to-alls around the experts, as vLLM-Ascend's all-to-all dispatcher */
	static const uint8_t a2a_experts[] = {K_ALLTOALL, K_GMM, K_SILU, K_GMM, K_ALLTOALL, K_ADD};
	bool decode_only = P->phase == SP_DECODE;
	if (o->shape.mla && decode_only)
		seq_run(seq, L, mlapo, sizeof mlapo);
	else
		seq_run(seq, L, qkv, sizeof qkv);
	if (decode_only && (P->graph || o->shape.legacy)) {
		seq_add(seq, L, K_PAGED, 0);
	} else if (o->shape.legacy) { /* 0.7-0.9: no single attention kernel runs in both states */
		seq_add(seq, L, K_FLASH, 0);
	} else if (P->phase == SP_MIXED && o->shape.mla) {
		seq_add(seq, L, K_FIA, 1);
		seq_add(seq, L, K_FIA, 2);
	} else {
		seq_add(seq, L, K_FIA, 0);
	}
	seq_run(seq, L, mid, sizeof mid);
	if (o->shape.moe && P->a2a && o->moe_hot >= 0)
		seq_run(seq, L, a2a_experts, sizeof a2a_experts);
	else if (o->shape.moe && P->a2a)
		seq_run(seq, L, experts, sizeof experts);
	else if (o->shape.moe)
		seq_run(seq, L, moe, sizeof moe);
	else
		seq_run(seq, L, mlp, sizeof mlp);
}

/* A DDP training step: forward, loss, backward (*Grad* kernels), optimizer. */
static void train_layer(uint8_t *seq, int *L, bool backward)
{
	static const uint8_t fwd[] = {K_RMSNORM, K_LINEAR, K_ROPE, K_FA, K_LINEAR, K_ADD,
	                              K_RMSNORM, K_LINEAR, K_SILU, K_LINEAR, K_ADD};
	static const uint8_t bwd[] = {K_MM_GRAD, K_SWIGLU_GRAD, K_MM_GRAD, K_RMSNORM_GRAD, K_MM_GRAD,
	                              K_FA_GRAD, K_MM_GRAD, K_RMSNORM_GRAD};
	if (backward)
		seq_run(seq, L, bwd, sizeof bwd);
	else
		seq_run(seq, L, fwd, sizeof fwd);
}

static void make_plan_shaped(const struct gen *G, int k, struct plan *P)
{
	const struct opts *o = G->o;
	struct rng r;
	rng_init(&r, o->seed, 'S', (uint64_t)k, 0);
	P->n = 0;
	P->phase = G->phase[k];
	P->prefill = P->phase == SP_PREFILL;
	/* ACLGraph FULL_AND_PIECEWISE: decode-only batches as one full graph, the others piecewise */
	P->graph = o->shape.graph && P->phase == SP_DECODE;
	P->piecewise = o->shape.graph && P->phase != SP_DECODE;
	P->a2a = false;
	switch (P->phase) {
	/* the batch is the walk's (choose_phases); the draws stay so that the later draws keep
	 * their values */
	case SP_DECODE:
		(void)rng_range(&r, 4, 64);
		P->seqs = G->running[k];
		P->tok = P->seqs;
		break;
	case SP_PREFILL:
		P->seqs = rng_range(&r, 1, 3);
		P->tok = P->seqs * rng_range(&r, 17, o->shape.short_prefill ? 200 : 1500);
		break;
	case SP_MIXED:
		P->seqs_p = 1;
		P->tok_p = rng_range(&r, 64, 2048);
		(void)rng_range(&r, 4, 48);
		P->seqs = G->running[k] + P->seqs_p;
		P->tok = P->seqs - P->seqs_p + P->tok_p;
		break;
	default: P->seqs = 4; P->tok = 4 * 4096; break;
	}
	/* above the MC2 capacity the two collectives of the step are all-to-alls (they stand in for
	 * the layers' dispatch and combine) */
	P->a2a = o->shape.moe && o->ranks > 1 && P->tok > 512;
	int layers = o->ops / 16 > 1 ? o->ops / 16 : 1;
	uint8_t *seq = xmalloc((size_t)layers * 26 + 16);
	int L = 0;
	seq_add(seq, &L, K_H2D, 0);
	seq_add(seq, &L, K_H2D, 0);
	seq_add(seq, &L, K_EMBED, 0);
	int head = L;
	if (o->shape.kind == SHAPE_TRAIN) {
		for (int i = 0; i < layers; i++)
			train_layer(seq, &L, false);
		seq_add(seq, &L, K_LINEAR, 0);
		for (int i = 0; i < layers; i++)
			train_layer(seq, &L, true);
		seq_add(seq, &L, K_EMBED_GRAD, 0);
		seq_add(seq, &L, K_ADAMW, 0);
		seq_add(seq, &L, K_ADAMW, 0);
		seq_add(seq, &L, K_ARGMAX, 0); /* the loss read back for logging */
		seq_add(seq, &L, K_D2H, 0);
	} else {
		for (int i = 0; i < layers; i++)
			vllm_layer(o, P, seq, &L);
		seq_add(seq, &L, K_RMSNORM, 0);
		seq_add(seq, &L, K_LINEAR, 0);
		seq_add(seq, &L, K_ARGMAX, 0);
		seq_add(seq, &L, K_D2H, 0);
	}
	plan_units(G, P, seq, L, head, &r);
	free(seq);
}

/* --fused: Add then RmsNorm becomes AddRmsNorm, Silu then Mul SwiGlu (the model calls the
 * fused APIs); returns the new length. */
static int fuse_pairs(uint8_t *seq, int L)
{
	int w = 0;
	for (int i = 0; i < L; i++) {
		if (i + 1 < L && seq[i] == K_ADD && seq[i + 1] == K_RMSNORM) {
			seq[w++] = K_ADDRMSNORM;
			i++;
		} else if (i + 1 < L && seq[i] == K_SILU && seq[i + 1] == K_MUL) {
			seq[w++] = K_SWIGLU;
			i++;
		} else {
			seq[w++] = seq[i];
		}
	}
	return w;
}

/* --unfused-rope: each fused rope becomes q*cos + rotate_half(q)*sin, five ops (Mul, Neg,
 * Concat, Mul, Add); returns the new sequence (seq freed), room for one more kind. */
static uint8_t *unfuse_rope(uint8_t *seq, int *L)
{
	static const uint8_t rope[] = {K_MUL, K_NEG, K_CAT, K_MUL, K_ADD};
	uint8_t *out = xmalloc((size_t)*L * sizeof rope + 8);
	int w = 0;
	for (int i = 0; i < *L; i++) {
		if (seq[i] != K_ROPE) {
			out[w++] = seq[i];
			continue;
		}
		memcpy(out + w, rope, sizeof rope);
		w += (int)sizeof rope;
	}
	free(seq);
	*L = w;
	return out;
}

void make_plan(const struct gen *G, int k, struct plan *P)
{
	static const uint8_t layer[] = {K_RMSNORM, K_LINEAR, K_ROPE, K_CACHE, K_ATTN,   K_LINEAR, K_ADD,
	                                K_RMSNORM, K_LINEAR, K_SILU, K_MUL,   K_LINEAR, K_ADD};
	const struct opts *o = G->o;
	if (o->shape.kind != SHAPE_MARKED) {
		make_plan_shaped(G, k, P);
		return;
	}
	struct rng r;
	rng_init(&r, o->seed, 'S', (uint64_t)k, 0);
	P->prefill = G->is_prefill[k];
	P->n = 0;
	int64_t n = P->prefill ? rng_range(&r, (int64_t)o->ops * 3 / 2, (int64_t)o->ops * 9 / 4)
	                       : rng_range(&r, (int64_t)o->ops * 3 / 4, (int64_t)o->ops * 5 / 4);
	if (n < 7)
		n = 7;
	uint8_t *seq = xmalloc((size_t)n + 8);
	int L = 0;
	seq[L++] = K_H2D; /* input ids; positions too when the step is not tiny */
	if (n >= 12)
		seq[L++] = K_H2D;
	seq[L++] = K_EMBED;
	int head = L;
	/* steps start at a random point of the layer so that tiny steps differ from each other */
	int64_t off = rng_range(&r, 0, (int64_t)sizeof layer - 1);
	for (int64_t j = 0; j < n - head - 4; j++) {
		int64_t idx = (j + off) % (int64_t)sizeof layer;
		uint8_t kk = layer[idx];
		int64_t x = rng_range(&r, 0, 999);
		if (o->chinese && kk == K_LINEAR && idx == 1 && x < 250)
			kk = K_QMM;
		if (o->chinese && kk == K_ATTN && x < 250)
			kk = K_FATTN;
		if (o->gbk && kk == K_MUL && x < 200)
			kk = (x & 1) ? K_GBK1 : K_GBK2;
		seq[L++] = kk;
	}
	seq[L++] = K_RMSNORM;
	/* a quantized lm_head in every other step or so keeps Chinese names in even the smallest steps */
	seq[L++] = o->chinese && rng_range(&r, 0, 999) < 500 ? K_QMM : K_LINEAR;
	seq[L++] = K_ARGMAX;
	seq[L++] = K_D2H;
	if (o->fused)
		L = fuse_pairs(seq, L);
	if (o->unfused_rope)
		seq = unfuse_rope(seq, &L);
	if (o->hostile && k == 0) {
		memmove(seq + head + 1, seq + head, (size_t)(L - head));
		seq[head] = K_HOSTILE;
		L++;
	}
	plan_units(G, P, seq, L, head, &r);
	free(seq);
}
