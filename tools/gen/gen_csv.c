/* SPDX-License-Identifier: MIT */
/* ascprof-gen: the CSV tables (kernel_details, operator_details, op_statistic, api_statistic,
 * step_trace_time, --memory) and GBK. */
#include "gen.h"

/* ------------------------------------------------------------------------------------------ */
/* GBK: the few code points the Chinese op names use (no iconv)                               */

struct gbk_map {
	const char *utf8;
	unsigned char gbk[2];
};

static const struct gbk_map gbk_table[] = {
        {"量", {0xc1, 0xbf}}, {"化", {0xbb, 0xaf}}, {"矩", {0xbe, 0xd8}}, {"阵", {0xd5, 0xf3}},
        {"乘", {0xb3, 0xcb}}, {"融", {0xc8, 0xda}}, {"合", {0xba, 0xcf}}, {"注", {0xd7, 0xa2}},
        {"意", {0xd2, 0xe2}}, {"力", {0xc1, 0xa6}}, {"自", {0xd7, 0xd4}}, {"定", {0xb6, 0xa8}},
        {"义", {0xd2, 0xe5}}, {"算", {0xcb, 0xe3}}, {"子", {0xd7, 0xd3}}, {"Ｑ", {0xa3, 0xd1}},
        {"Ｍ", {0xa3, 0xcd}}, {"Ｖ", {0xa3, 0xd6}}, {"２", {0xa3, 0xb2}},
};

/* UTF-8 -> GBK for the table above; other bytes pass through unchanged. */
static void to_gbk(struct sbuf *dst, const char *s)
{
	sbuf_reset(dst);
	while (*s) {
		bool hit = false;
		if ((unsigned char)*s >= 0x80) {
			for (size_t i = 0; i < sizeof gbk_table / sizeof gbk_table[0]; i++) {
				size_t l = strlen(gbk_table[i].utf8);
				if (!strncmp(s, gbk_table[i].utf8, l)) {
					sbuf_add(dst, (const char *)gbk_table[i].gbk, 2);
					s += l;
					hit = true;
					break;
				}
			}
		}
		if (!hit)
			sbuf_addc(dst, *s++);
	}
}

/* GBK -> UTF-8 for the same table (self-check reads the CSVs back). */
void from_gbk(struct sbuf *dst, const char *s, size_t n)
{
	sbuf_reset(dst);
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x81 && i + 1 < n) {
			bool hit = false;
			for (size_t k = 0; k < sizeof gbk_table / sizeof gbk_table[0]; k++) {
				if (gbk_table[k].gbk[0] == c &&
				    gbk_table[k].gbk[1] == (unsigned char)s[i + 1]) {
					sbuf_adds(dst, gbk_table[k].utf8);
					hit = true;
					break;
				}
			}
			if (hit) {
				i += 2;
				continue;
			}
		}
		sbuf_addc(dst, (char)c);
		i++;
	}
}

/* ------------------------------------------------------------------------------------------ */
/* CSV writers                                                                                */

struct cw {
	struct out *o;
	const struct opts *op;
	int nf;
	struct sbuf tmp;
};

static void cw_begin(struct cw *c, struct out *o, const struct opts *op)
{
	memset(c, 0, sizeof *c);
	c->o = o;
	c->op = op;
	if (op->bom)
		out_str(o, "\xef\xbb\xbf");
}

static void cw_sep(struct cw *c)
{
	if (c->nf++)
		out_chr(c->o, ',');
}

static void cw_raw(struct cw *c, const char *s)
{
	cw_sep(c);
	out_str(c->o, s);
}

/* A text cell: GBK when asked, quoted when it holds a separator, quote or line break. */
static void cw_text(struct cw *c, const char *s, bool gbk)
{
	if (gbk) {
		to_gbk(&c->tmp, s);
		s = c->tmp.buf;
	}
	cw_sep(c);
	if (!strpbrk(s, ",\"\r\n")) {
		out_str(c->o, s);
		return;
	}
	out_chr(c->o, '"');
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			out_chr(c->o, '"');
		out_chr(c->o, *p);
	}
	out_chr(c->o, '"');
}

/* Shapes as torch_npu writes them: the value carries its own quotes, so """a,b""". */
static void cw_shape(struct cw *c, const char *s)
{
	cw_sep(c);
	out_str(c->o, "\"\"\"");
	out_str(c->o, s);
	out_str(c->o, "\"\"\"");
}

static void cw_i(struct cw *c, int64_t v)
{
	cw_sep(c);
	out_i64(c->o, v);
}

static void cw_us(struct cw *c, int64_t ns)
{
	cw_sep(c);
	out_us3(c->o, ns);
}

static void cw_us_py(struct cw *c, int64_t ns)
{
	cw_sep(c);
	out_us_py(c->o, ns);
}

static void cw_ts(struct cw *c, int64_t ns)
{
	cw_sep(c);
	out_us3(c->o, ns);
	if (c->op->tabs)
		out_chr(c->o, '\t');
}

static void cw_eol(struct cw *c)
{
	out_str(c->o, c->op->crlf ? "\r\n" : "\n");
	c->nf = 0;
}

static void cw_header(struct cw *c, const char *h)
{
	out_str(c->o, h);
	cw_eol(c);
}

/* Excel's rewrite of a long number: 6 significant digits, "1.73641E+15". */
static void excel_mangle(char *buf, size_t n, int64_t ns)
{
	char d[24];
	int nd = u64_digits(d, (uint64_t)(ns / 1000));
	int64_t m = 0;
	for (int i = 0; i < 6; i++)
		m = m * 10 + (i < nd ? d[i] - '0' : 0);
	if (nd > 6 && d[6] >= '5')
		m++;
	int ex = nd - 1;
	if (m >= 1000000) {
		m /= 10;
		ex++;
	}
	snprintf(buf, n, "%" PRId64 ".%05" PRId64 "E+%02d", m / 100000, m % 100000, ex);
}

enum { MARK_RAGGED = 1, MARK_EXCEL = 2 };

/* Seed-chosen distinct data-row indices for the damaged rows (ragged and excel disjoint). */
static uint8_t *pick_damage(const struct opts *o, int r, int64_t rows, int *nrag, int *nexc)
{
	uint8_t *m = xcalloc((size_t)(rows ? rows : 1), 1);
	struct rng g;
	rng_init(&g, o->seed, 'X', (uint64_t)r, 0);
	int64_t room = rows / 2; /* leave most rows intact */
	*nrag = (int)min64(o->ragged, room);
	*nexc = (int)min64(o->excel, room - *nrag);
	for (int kind = 0; kind < 2; kind++) {
		int want = kind ? *nexc : *nrag;
		for (int i = 0; i < want;) {
			int64_t j = rng_range(&g, 0, rows - 1);
			if (m[j])
				continue;
			m[j] = kind ? MARK_EXCEL : MARK_RAGGED;
			i++;
		}
	}
	return m;
}

static int64_t count_kernel_rows(const struct rank_model *R)
{
	int64_t n = 0;
	for (size_t i = 0; i < R->nu; i++) {
		const struct unit *u = &R->u[i];
		enum dev_class dc = kinds[u->kind].dc;
		n += (dc == DC_COMPUTE || dc == DC_COMM) + (u->s3_dur > 0);
	}
	return n;
}

/* --pmu-bound: a ratio drawn as usual, moved to 0.85-0.95 (a bound pipe) or to 0.6 of
 * itself, under 0.42 (RmsNorm's pipes: bound by none); the draws stay the same. */
static int64_t pmu_plant(int64_t ratio, bool bound)
{
	return bound ? 850 + ratio % 100 : ratio * 6 / 10;
}

static void pmu_cells(struct cw *c, const struct kind *kd, int64_t dur, struct rng *g, bool plant)
{
	bool idle = plant && kd == &kinds[K_RMSNORM];
	bool aic = !strcmp(kd->task_type, "AI_CORE") || !strcmp(kd->task_type, "MIX_AIC");
	bool aiv = !strcmp(kd->task_type, "AI_VECTOR_CORE") || !strcmp(kd->task_type, "MIX_AIC");
	int64_t mac = 0;
	if (aic) {
		int64_t t = dur * rng_range(g, 930, 990) / 1000;
		cw_us(c, t);
		cw_i(c, t * 18 * kd->block_dim / 10); /* 1.8 GHz x cores */
		mac = rng_range(g, 300, 900);
		mac = plant ? pmu_plant(mac, true) : mac;
		static const int lo[] = {0, 50, 100, 200, 20}, hi[] = {0, 300, 600, 900, 200};
		for (int i = 0; i < 5; i++) {
			int64_t ratio = i ? rng_range(g, lo[i], hi[i]) : mac;
			cw_us(c, t * ratio / 1000);
			cw_sep(c);
			out_milli(c->o, ratio);
		}
		cw_sep(c);
		out_milli(c->o, rng_range(g, 1, 60));
	} else {
		cw_raw(c, "0.0");
		cw_raw(c, "0");
		for (int i = 0; i < 11; i++)
			cw_raw(c, "0.0");
	}
	if (aiv) {
		int64_t t = dur * rng_range(g, 900, 990) / 1000;
		cw_us(c, t);
		cw_i(c, t * 18 * kd->block_dim / 10);
		static const int lo[] = {50, 20, 100, 100}, hi[] = {600, 500, 700, 700};
		for (int i = 0; i < 4; i++) {
			int64_t ratio = rng_range(g, lo[i], hi[i]);
			if (idle || (plant && i == 0)) /* RmsNorm's every pipe, or the others' vector */
				ratio = pmu_plant(ratio, !idle);
			cw_us(c, t * ratio / 1000);
			cw_sep(c);
			out_milli(c->o, ratio);
		}
		cw_sep(c);
		out_milli(c->o, rng_range(g, 1, 80));
	} else {
		cw_raw(c, "0.0");
		cw_raw(c, "0");
		for (int i = 0; i < 9; i++)
			cw_raw(c, "0.0");
	}
	cw_sep(c);
	out_milli(c->o, aic ? mac * rng_range(g, 800, 1000) / 10 : 0);
}

/* One kernel_details row; a planted ragged row loses its last cell. */
static void kernel_row(struct cw *c, const struct gen *G, const struct rank_model *R, int k,
                       const struct kind *kd, int kind, int64_t ts, int64_t dur, int64_t wait, uint8_t damage,
                       struct rng *g, const char *name, const struct unit *u)
{
	const struct opts *o = G->o;
	int ph = R->st[k].prefill;
	out_need(c->o, 8192); /* keep the row in the buffer so a ragged row can be rewound */
	if (o->marks == MARKS_PROFILERSTEP)
		cw_i(c, k + 1);
	cw_i(c, R->dev);
	cw_text(c, name, o->gbk);
	cw_text(c, kd->type, o->gbk);
	bool comm = kd->dc == DC_COMM;
	bool fresh = o->new_shapes && kind == K_ADD; /* --new-shapes: a static Add, a shape per step */
	cw_raw(c, comm ? "N/A" : fresh ? "static" : "dynamic");
	cw_raw(c, kd->task_type);
	if (damage == MARK_EXCEL) {
		char buf[32];
		excel_mangle(buf, sizeof buf, ts + R->off);
		cw_raw(c, buf);
	} else {
		cw_ts(c, ts + R->off);
	}
	cw_us(c, dur);
	cw_us(c, wait);
	if (comm) {
		cw_i(c, 0);
		for (int i = 0; i < 34; i++)
			cw_raw(c, "N/A");
	} else {
		cw_i(c, o->block_dim && kind == K_LINEAR ? o->block_dim : kd->block_dim);
		cw_i(c, kd->mix_block_dim);
		cw_raw(c, kind == K_LINEAR ? "YES" : "NO");
		char *si = fresh ? xasprintf("%d,4096;%d,4096", k + 1, k + 1) : shape_text(G, &R->st[k], u, kd->in_shape);
		char *so = shape_text(G, &R->st[k], u, kd->out_shape);
		cw_shape(c, u && u->moe_tok && G->o->moe_no_shapes ? "" : si ? si : G->shape_in[kind][ph]);
		cw_raw(c, kd->in_dtype);
		cw_raw(c, kd->in_fmt);
		cw_shape(c, so ? so : G->shape_out[kind][ph]);
		free(si);
		free(so);
		cw_raw(c, kd->out_dtype);
		cw_raw(c, kd->out_fmt);
		cw_raw(c, "N/A");
		pmu_cells(c, kd, dur, g, o->pmu_bound);
	}
	if (damage == MARK_RAGGED) {
		/* drop the last cell: rewind to the last comma */
		struct out *out = c->o;
		while (out->len && out->buf[out->len - 1] != ',')
			out->len--;
		if (out->len)
			out->len--;
	}
	cw_eol(c);
}

int64_t write_kernel_details(const struct gen *G, const struct rank_model *R, const char *path,
                                    struct sbuf *ragged, struct sbuf *excel)
{
	const struct opts *o = G->o;
	struct out out;
	out_open(&out, path, (size_t)4 << 20);
	struct cw c;
	cw_begin(&c, &out, o);
	if (o->marks == MARKS_PROFILERSTEP)
		out_str(&out, "Step Id,");
	cw_header(&c, "Device_id,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),"
	              "Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,"
	              "Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID,"
	              "aicore_time(us),aic_total_cycles,aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),"
	              "aic_scalar_ratio,aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,"
	              "aic_fixpipe_time(us),aic_fixpipe_ratio,aic_icache_miss_rate,aiv_time(us),"
	              "aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),aiv_scalar_ratio,"
	              "aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,"
	              "aiv_icache_miss_rate,cube_utilization(%)");
	int64_t rows = count_kernel_rows(R);
	int nrag, nexc;
	uint8_t *dmg = pick_damage(o, R->r, rows, &nrag, &nexc);
	struct rng g;
	rng_init(&g, o->seed, 'K', (uint64_t)R->r, 0);
	int64_t row = 0;
	char name[96];
	/* unit order is start-time order: a collective starts after the previous stream-2 task ends,
	 * a stream-3 kernel lies inside its parent */
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		for (size_t i = 0; i < st->nu; i++) {
			const struct unit *u = &R->u[st->u0 + i];
			const struct kind *kd = &kinds[u->kind];
			if (kd->dc == DC_H2D || kd->dc == DC_D2H)
				continue;
			if (kd->dc == DC_COMM)
				coll_name(name, sizeof name, G, u);
			const char *nm = kd->dc == DC_COMM ? name : kd->kernel;
			for (int pass = 0; pass < 2; pass++) {
				if (pass && !u->s3_dur)
					break;
				uint8_t d = dmg[row];
				if (d) {
					struct sbuf *l = d == MARK_RAGGED ? ragged : excel;
					if (l->len)
						sbuf_addc(l, ',');
					sbuf_addf(l, "%" PRId64, row + 2);
				}
				if (pass)
					kernel_row(&c, G, R, k, &kinds[K_S3], K_S3, u->s3_ts, u->s3_dur,
					           u->s3_wait, d, &g, kinds[K_S3].kernel, u);
				else
					kernel_row(&c, G, R, k, kd, u->kind, u->k_ts, u->k_dur, u->k_wait, d,
					           &g, nm, u);
				row++;
			}
		}
	}
	free(dmg);
	free(c.tmp.buf);
	out_close(&out);
	return row;
}

/* --shape vllm with --edge-us: the edges' cpu_op (gen_trace.c), a host op of its own */
static void edge_row(struct cw *c, int64_t dur)
{
	cw_raw(c, VLLM_EDGE_OP);
	cw_raw(c, "");
	cw_raw(c, "");
	cw_us(c, dur);
	cw_us(c, dur);
	for (int i = 0; i < 4; i++)
		cw_us(c, 0);
	cw_eol(c);
}

int64_t write_operator_details(const struct gen *G, const struct rank_model *R, const char *path)
{
	const struct opts *o = G->o;
	struct out out;
	out_open(&out, path, (size_t)4 << 20);
	struct cw c;
	cw_begin(&c, &out, o);
	cw_header(&c, "Name,Input Shapes,Call Stack,Host Self Duration(us),Host Total Duration(us),"
	              "Device Self Duration(us),Device Total Duration(us),Device Self Duration With "
	              "AICore(us),Device Total Duration With AICore(us)");
	int64_t rows = 0;
	bool edges = o->host_bare && o->edge_ns > 0;
	if (edges) {
		edge_row(&c, R->sch0_end - R->sch0_ts);
		rows++;
	}
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		for (size_t i = 0; i < st->nu; i++) {
			const struct unit *u = &R->u[st->u0 + i];
			const struct kind *kd = &kinds[u->kind];
			int64_t dev = kd->dc == DC_COMM ? 0 : u->k_dur;
			int64_t aic = kd->dc == DC_COMPUTE ? u->k_dur : 0;
			char *shaped = shape_text(G, st, u, kd->in_shape);
			for (int lv = 0; lv < kd->nest && !u->graph; lv++) {
				bool inner = lv == kd->nest - 1;
				int64_t total = u->c_dur - lv * 2500;
				int64_t self = inner ? total : 2500;
				cw_text(&c, kd->host[lv], o->gbk);
				cw_text(&c, shaped ? shaped : G->shape_in[u->kind][st->prefill], false);
				if (o->call_stack)
					cw_text(&c, G->stack_csv[u->kind], o->gbk);
				else
					cw_raw(&c, "");
				cw_us(&c, self);
				cw_us(&c, total);
				cw_us(&c, inner ? dev : 0);
				cw_us(&c, dev);
				cw_us(&c, inner ? aic : 0);
				cw_us(&c, aic);
				cw_eol(&c);
				rows++;
			}
			free(shaped);
		}
		if (o->shape.annotate) { /* the step's execute_context_... range */
			char nm[96];
			annotation_name(st, nm, sizeof nm);
			cw_raw(&c, nm);
			cw_raw(&c, "");
			cw_raw(&c, "");
			cw_us(&c, 0);
			cw_us(&c, st->fwd_end - st->fwd_ts);
			for (int i = 0; i < 4; i++)
				cw_us(&c, 0);
			cw_eol(&c);
			rows++;
		}
	}
	if (edges) {
		edge_row(&c, R->st[R->nst - 1].sch_end - R->st[R->nst - 1].sch_ts);
		rows++;
	}
	free(c.tmp.buf);
	out_close(&out);
	return rows;
}

struct agg *agg_find(struct agg **v, size_t *n, size_t *cap, const char *a, const char *b)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].key, a) && !strcmp((*v)[i].key2, b))
			return &(*v)[i];
	xgrow(v, cap, *n + 1, sizeof **v);
	struct agg *g = &(*v)[(*n)++];
	memset(g, 0, sizeof *g);
	g->key = a;
	g->key2 = b;
	return g;
}

void agg_add(struct agg *g, int64_t d)
{
	if (!g->n || d < g->min)
		g->min = d;
	if (!g->n || d > g->max)
		g->max = d;
	g->n++;
	g->total += d;
	g->sq += (__int128)d * d;
}

int agg_by_total(const void *a, const void *b)
{
	const struct agg *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	int c = strcmp(x->key, y->key);
	return c ? c : strcmp(x->key2, y->key2);
}

/* Aggregate kernel_details rows by Type (op_statistic.csv and the optype.* truths). */
struct agg *op_types(const struct rank_model *R, size_t *n)
{
	struct agg *v = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t i = 0; i < R->nu; i++) {
		const struct unit *u = &R->u[i];
		const struct kind *kd = &kinds[u->kind];
		if (kd->dc == DC_COMPUTE || kd->dc == DC_COMM)
			agg_add(agg_find(&v, n, &cap, kd->type, kd->task_type), u->k_dur);
		if (u->s3_dur)
			agg_add(agg_find(&v, n, &cap, kinds[K_S3].type, kinds[K_S3].task_type), u->s3_dur);
	}
	qsort(v, *n, sizeof *v, agg_by_total);
	return v;
}

int64_t write_op_statistic(const struct gen *G, const struct rank_model *R, const char *path)
{
	struct out out;
	out_open(&out, path, (size_t)1 << 16);
	struct cw c;
	cw_begin(&c, &out, G->o);
	cw_header(&c,
	          "OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)");
	size_t n;
	struct agg *v = op_types(R, &n);
	int64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i].total;
	for (size_t i = 0; i < n; i++) {
		cw_text(&c, v[i].key, false);
		cw_raw(&c, v[i].key2);
		cw_i(&c, v[i].n);
		cw_us(&c, v[i].total);
		cw_us(&c, v[i].min);
		cw_us(&c, (v[i].total + v[i].n / 2) / v[i].n);
		cw_us(&c, v[i].max);
		cw_sep(&c);
		out_milli(c.o, sum ? (v[i].total * 100000 + sum / 2) / sum : 0);
		cw_eol(&c);
	}
	free(v);
	free(c.tmp.buf);
	out_close(&out);
	return (int64_t)n;
}

static int level_rank(const char *l)
{
	return !strcmp(l, "hccl") ? 0 : !strcmp(l, "acl") ? 1 : 2;
}

static int agg_by_level(const void *a, const void *b)
{
	const struct agg *x = a, *y = b;
	int lx = level_rank(x->key), ly = level_rank(y->key);
	if (lx != ly)
		return lx - ly;
	return agg_by_total(a, b);
}

int64_t write_api_statistic(const struct gen *G, const struct rank_model *R, const char *path)
{
	struct out out;
	out_open(&out, path, (size_t)1 << 16);
	struct cw c;
	cw_begin(&c, &out, G->o);
	cw_header(&c, "Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance");
	struct agg *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < R->nu; i++) {
		const struct unit *u = &R->u[i];
		const struct kind *kd = &kinds[u->kind];
		if (u->rp_end)
			agg_add(agg_find(&v, &n, &cap, "acl", "aclmdlRIExecuteAsync"), u->rp_end - u->dq_ts);
		if (u->graph)
			continue;
		agg_add(agg_find(&v, &n, &cap, "acl", kd->acl), u->acl_dur);
		if (kd->dc == DC_COMPUTE)
			agg_add(agg_find(&v, &n, &cap, "node", "launch"), u->nl_dur);
		else if (kd->dc == DC_COMM)
			agg_add(agg_find(&v, &n, &cap, "hccl", "Launch_Ffts"), u->nl_dur);
	}
	for (int k = 0; k < R->nst; k++) { /* --alloc-storm's calls */
		int64_t t0, slot;
		for (int i = 0, m = alloc_storm_slots(G, R, k, &t0, &slot); i < m; i++)
			agg_add(agg_find(&v, &n, &cap, "acl", "aclrtMalloc"), slot / 2);
	}
	qsort(v, n, sizeof *v, agg_by_level);
	for (size_t i = 0; i < n; i++) {
		const struct agg *a = &v[i];
		/* population variance in us^2, from exact integer sums */
		__int128 num = (__int128)a->n * a->sq - (__int128)a->total * a->total;
		__int128 den = (__int128)a->n * a->n * 1000;
		int64_t var_milli = (int64_t)((num + den / 2) / den);
		cw_raw(&c, a->key);
		cw_raw(&c, a->key2);
		cw_us(&c, a->total);
		cw_i(&c, a->n);
		cw_us(&c, (a->total + a->n / 2) / a->n);
		cw_us(&c, a->min);
		cw_us(&c, a->max);
		cw_sep(&c);
		out_milli(c.o, var_milli);
		cw_eol(&c);
	}
	free(v);
	free(c.tmp.buf);
	out_close(&out);
	return (int64_t)n;
}

static void step_trace_row(struct cw *c, const char *step, int64_t compute, int64_t comm, int64_t ov,
                           int64_t window, int64_t preparing)
{
	cw_raw(c, step);
	cw_us_py(c, compute);
	cw_us_py(c, comm - ov);
	cw_us_py(c, ov);
	cw_us_py(c, comm);
	cw_us_py(c, window - (compute + comm - ov));
	cw_us_py(c, window);
	cw_raw(c, "0");
	cw_us_py(c, comm - ov);
	cw_us_py(c, preparing);
	cw_eol(c);
}

int64_t write_step_trace(const struct gen *G, const struct rank_model *R, const char *path)
{
	struct out out;
	out_open(&out, path, (size_t)1 << 16);
	struct cw c;
	cw_begin(&c, &out, G->o);
	cw_header(&c, "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,"
	              "Bubble,Communication(Not Overlapped and Exclude Receive),Preparing");
	int64_t rows = 0;
	if (G->o->step_trace == ST_ONE) {
		step_trace_row(&c, "", R->compute, R->comm, R->overlapped, R->last_end - R->first_ts,
		               R->st[0].first_dev - R->first_ts);
		rows = 1;
	} else {
		for (int k = 0; k < R->nst; k++) {
			const struct step *st = &R->st[k];
			int64_t wend = k + 1 < R->nst ? R->st[k + 1].hs : R->last_end;
			char num[16];
			snprintf(num, sizeof num, "%d", k + 1);
			step_trace_row(&c, num, st->compute, st->comm, st->overlapped, wend - st->hs,
			               st->first_dev - st->hs);
			rows++;
		}
	}
	free(c.tmp.buf);
	out_close(&out);
	return rows;
}

/* --memory: the framework allocator follows the steps. Weights stay allocated; each step
 * allocates its activations at its start (prefill steps six times more) and frees them when
 * the next step starts; the allocator's cache (reserved) grows by 1 GB at the first prefill.
 * GE holds a constant 64/128 MB and the driver adds 1 GB to APP. Sizes are whole MB, so
 * every value prints exactly. */

static int64_t mem_act_mb(const struct step *st, int k) { return st->prefill ? 1536 : 256 + (k % 4) * 32; }

static void mem_row(struct cw *c, const char *comp, int64_t ts, int64_t alloc, int64_t res, bool with_alloc)
{
	cw_raw(c, comp);
	cw_ts(c, ts);
	if (with_alloc)
		cw_i(c, alloc);
	else
		cw_raw(c, "");
	cw_i(c, res);
	if (with_alloc)
		cw_i(c, alloc);
	else
		cw_raw(c, "");
	cw_raw(c, with_alloc ? "187651237648" : "");
	cw_raw(c, "NPU:0");
	cw_eol(c);
}

void write_memory(const struct gen *G, const struct rank_model *R, const char *od, struct rank_out *ro)
{
	char p[4096];
	struct out out;
	struct cw c;
	path_join(p, sizeof p, od, "memory_record.csv");
	out_open(&out, p, (size_t)1 << 16);
	cw_begin(&c, &out, G->o);
	cw_header(&c, "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),"
		      "Stream Ptr,Device Type");
	int64_t reserved = MEM_CACHE_MB;
	ro->pta_peak_alloc_mb = MEM_WEIGHTS_MB;
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		int64_t ts = st->hs + R->off, end = (k + 1 < R->nst ? R->st[k + 1].hs : R->last_end) + R->off - 1000;
		if (st->prefill)
			reserved = MEM_CACHE_MB + 1024;
		int64_t alloc = MEM_WEIGHTS_MB + mem_act_mb(st, k);
		if (alloc > ro->pta_peak_alloc_mb)
			ro->pta_peak_alloc_mb = alloc;
		mem_row(&c, "APP", ts, 0, reserved + MEM_GE_RES_MB + MEM_DRIVER_MB, false);
		mem_row(&c, "PTA", ts, alloc, reserved, true);
		mem_row(&c, "GE", ts, MEM_GE_ALLOC_MB, MEM_GE_RES_MB, true);
		mem_row(&c, "PTA+GE", ts, alloc + MEM_GE_ALLOC_MB, reserved + MEM_GE_RES_MB, true);
		mem_row(&c, "PTA", end, MEM_WEIGHTS_MB, reserved, true);
		ro->rows_memrec += 5;
	}
	ro->pta_peak_reserved_mb = reserved;
	ro->app_peak_reserved_mb = reserved + MEM_GE_RES_MB + MEM_DRIVER_MB;
	out_close(&out);

	path_join(p, sizeof p, od, "npu_module_mem.csv");
	out_open(&out, p, (size_t)1 << 16);
	cw_begin(&c, &out, G->o);
	cw_header(&c, "Component,Timestamp(us),Total Reserved(MB),Device");
	static const struct { const char *name; int64_t mb; } mods[] = {
		{"APP", MEM_CACHE_MB}, {"HCCL", MEM_HCCL_MB}, {"RUNTIME", 92}, {"DRV", 0}};
	for (int k = 0; k < R->nst; k++)
		for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++) {
			cw_raw(&c, mods[i].name);
			cw_ts(&c, R->st[k].hs + R->off);
			cw_i(&c, mods[i].mb + (i == 2 ? k % 3 : 0));
			cw_raw(&c, "NPU:0");
			cw_eol(&c);
			ro->rows_modmem++;
		}
	out_close(&out);

	/* one activation block per step; a weight that is never freed; a negative size (a free
	 * recorded as such by some versions), kept as written */
	path_join(p, sizeof p, od, "operator_memory.csv");
	out_open(&out, p, (size_t)1 << 16);
	cw_begin(&c, &out, G->o);
	cw_header(&c, "Name,Size(KB),Allocation Time(us),Release Time(us),Duration(us),Device Type");
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		int64_t a = st->hs + R->off, e = (k + 1 < R->nst ? R->st[k + 1].hs : R->last_end) + R->off - 1000;
		cw_raw(&c, "aten::empty_strided");
		cw_i(&c, mem_act_mb(st, k) * 1024);
		cw_ts(&c, a);
		cw_ts(&c, e);
		cw_us(&c, e - a);
		cw_raw(&c, "NPU:0");
		cw_eol(&c);
		ro->allocs++;
		ro->rows_opmem++;
	}
	int64_t t0 = R->st[0].hs + R->off;
	cw_raw(&c, "aten::mm");
	cw_i(&c, 2048 * 1024);
	cw_ts(&c, t0);
	cw_raw(&c, "");
	cw_raw(&c, "");
	cw_raw(&c, "NPU:0");
	cw_eol(&c);
	cw_raw(&c, "aten::resize_");
	cw_i(&c, -512);
	cw_ts(&c, t0 + 1000);
	cw_raw(&c, "");
	cw_raw(&c, "");
	cw_raw(&c, "NPU:0");
	cw_eol(&c);
	ro->allocs += 2;
	ro->rows_opmem += 2;
	ro->negative = 1;
	ro->never_released = 2;
	out_close(&out);
	free(c.tmp.buf);
}
