/* SPDX-License-Identifier: MIT */
/* Digest files (digest.h): one field walk serves the writer and the reader. */
#include "config.h"
#include "digest.h"

#include "advice.h"
#include "comm_split.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "cluster.h"
#include "i18n.h"
#include "sbuf.h"
#include "stagetime.h"
#include "strtab.h"
#include "xalloc.h"
#include "xsort.h"

struct digest_keep {
	void **ptrs;
	size_t n, cap;
};

static void keep_add(struct digest_keep *k, void *p)
{
	xgrow(&k->ptrs, &k->cap, k->n + 1, sizeof *k->ptrs);
	k->ptrs[k->n++] = p;
}

void digest_keep_free(struct digest_keep *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		free(k->ptrs[i]);
	free(k->ptrs);
	free(k);
}

/* ---- the field walk ------------------------------------------------------------------ */

struct dio {
	bool rd;
	struct sbuf out; /* writing */
	struct strtab *seen; /* writing: strings written, by interned id ... */
	uint32_t *seq;       /* ... to their order of writing (UINT32_MAX: not yet) */
	size_t seq_cap;
	uint32_t n_strs;     /* strings met so far (both directions) */
	char *p, *end;       /* reading */
	const char **strs;   /* reading: the strings met, in order */
	size_t strs_cap;
	bool bad;
	struct digest_keep *keep; /* reading: stub tables */
};

/* Unsigned integers as LEB128 varints: 7 bits a byte, low first (most fields take 1-4
 * bytes instead of 8). */
static uint64_t io_u(struct dio *d, uint64_t v)
{
	if (!d->rd) {
		uint64_t saved = v;
		char b[10];
		int n = 0;
		do {
			b[n++] = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
			v >>= 7;
		} while (v);
		sbuf_add(&d->out, b, (size_t)n);
		return saved;
	}
	uint64_t x = 0;
	for (int shift = 0; !d->bad; shift += 7) {
		if (d->p >= d->end || shift > 63) {
			d->bad = true;
			break;
		}
		unsigned char c = (unsigned char)*d->p++;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return x;
	}
	return 0;
}

/* Signed integers zigzag-coded: small negative values stay short. */
static int64_t io_i(struct dio *d, int64_t v)
{
	uint64_t z = io_u(d, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
	return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}
static bool io_b(struct dio *d, bool v) { return io_u(d, v) != 0; }

/* Doubles by their 8 bytes, little-endian. */
static double io_d(struct dio *d, double v)
{
	uint64_t b;
	memcpy(&b, &v, 8);
	if (!d->rd) {
		char c[8];
		for (int i = 0; i < 8; i++)
			c[i] = (char)(b >> (8 * i));
		sbuf_add(&d->out, c, 8);
		return v;
	}
	if (d->bad || d->end - d->p < 8) {
		d->bad = true;
		return 0;
	}
	b = 0;
	for (int i = 0; i < 8; i++)
		b |= (uint64_t)(unsigned char)d->p[i] << (8 * i);
	d->p += 8;
	memcpy(&v, &b, 8);
	return v;
}

/* An enumeration: a read value outside [0, count) makes the digest bad (names are looked
 * up by it). */
static int io_e(struct dio *d, int v, int count)
{
	uint64_t x = io_u(d, (uint64_t)v);
	if (d->rd && x >= (uint64_t)count) {
		d->bad = true;
		return 0;
	}
	return (int)x;
}

/* A string borrowed from the payload when read. Each distinct string is written once: a
 * varint tag 0 is none, 1 a new string (varint length, the bytes, a NUL), k + 2 the k-th
 * string met before (op names recur per phase and scope, sources and units per metric). */
static const char *io_s(struct dio *d, const char *s)
{
	if (!d->rd) {
		if (!s) {
			io_u(d, 0);
			return s;
		}
		size_t len = strlen(s);
		uint32_t id = strtab_intern(d->seen, s, len);
		if (id >= d->seq_cap) {
			size_t old = d->seq_cap;
			xgrow(&d->seq, &d->seq_cap, (size_t)id + 1, sizeof *d->seq);
			for (size_t i = old; i < d->seq_cap; i++)
				d->seq[i] = UINT32_MAX;
		}
		if (d->seq[id] != UINT32_MAX) {
			io_u(d, (uint64_t)d->seq[id] + 2);
			return s;
		}
		d->seq[id] = d->n_strs++;
		io_u(d, 1);
		io_u(d, len);
		sbuf_add(&d->out, s, len);
		sbuf_addc(&d->out, 0);
		return s;
	}
	uint64_t tag = io_u(d, 0);
	if (d->bad || tag == 0)
		return NULL;
	if (tag >= 2) {
		if (tag - 2 >= d->n_strs) {
			d->bad = true;
			return NULL;
		}
		return d->strs[tag - 2];
	}
	uint64_t len = io_u(d, 0);
	/* len + 1 bytes must remain (written as len < remaining: a length of 2^64 - 1 wraps) */
	if (d->bad || len >= (uint64_t)(d->end - d->p) || d->p[len] != 0) {
		d->bad = true;
		return NULL;
	}
	char *r = d->p;
	d->p += len + 1;
	xgrow(&d->strs, &d->strs_cap, d->n_strs + 1, sizeof *d->strs);
	d->strs[d->n_strs++] = r;
	return r;
}

/* A string the rank analysis owns (analysis_rank_free frees it). */
static char *io_os(struct dio *d, char *s)
{
	const char *r = io_s(d, s);
	if (!d->rd)
		return s;
	return r ? xstrdup(r) : NULL;
}

/* A count of elements of at least min bytes each: a read count the rest of the payload
 * cannot hold makes the digest bad (no allocation from a hostile count). */
static size_t io_n(struct dio *d, size_t n, size_t min)
{
	uint64_t v = io_u(d, n);
	if (d->rd && v > (uint64_t)(d->end - d->p) / min) {
		d->bad = true;
		return 0;
	}
	return (size_t)v;
}

static void *io_array(struct dio *d, void *arr, size_t n, size_t elem)
{
	return d->rd ? xcalloc(n ? n : 1, elem) : arr;
}

/* A table the memory report names by its path: read back as a stub with the path only. */
static const struct csv_table *io_table(struct dio *d, const struct csv_table *t)
{
	const char *path = io_s(d, t ? t->path : NULL);
	if (!d->rd || !path)
		return d->rd ? NULL : t;
	struct csv_table *stub = xcalloc(1, sizeof *stub);
	stub->path = (char *)path; /* borrowed from the payload; the stub is never csvt_free'd */
	keep_add(d->keep, stub);
	return stub;
}

static void io_comps(struct dio *d, struct mem_component **pc, size_t *pn, const struct csv_table *t)
{
	size_t n = io_n(d, *pn, 36);
	struct mem_component *c = io_array(d, *pc, n, sizeof *c);
	if (d->rd) {
		*pc = c;
		*pn = n;
	}
	for (size_t i = 0; i < n && !d->bad; i++) {
		c[i].name = io_s(d, c[i].name);
		c[i].samples = io_u(d, c[i].samples);
		c[i].peak_allocated_mb = io_d(d, c[i].peak_allocated_mb);
		c[i].peak_reserved_mb = io_d(d, c[i].peak_reserved_mb);
		c[i].peak_active_mb = io_d(d, c[i].peak_active_mb);
		c[i].last_reserved_mb = io_d(d, c[i].last_reserved_mb);
		c[i].peak_ts = io_i(d, c[i].peak_ts);
		/* the row as its file line: the stub table maps row to line one to one */
		uint64_t line = io_u(d, !d->rd && t ? csvt_line(t, c[i].peak_row) : c[i].peak_row);
		if (d->rd)
			c[i].peak_row = (size_t)line;
	}
}

static void io_mem(struct dio *d, struct mem_analysis *m)
{
	m->record = io_table(d, m->record);
	m->modules = io_table(d, m->modules);
	m->ops = io_table(d, m->ops);
	m->record_in_kb = io_b(d, m->record_in_kb);
	m->modules_in_kb = io_b(d, m->modules_in_kb);
	io_comps(d, &m->comps, &m->n_comps, m->record);
	io_comps(d, &m->mods, &m->n_mods, m->modules);
	m->curve_component = io_s(d, m->curve_component);
	m->curve_field = io_s(d, m->curve_field);
	m->n_curve = io_e(d, m->n_curve, MEM_CURVE_POINTS + 1);
	for (int i = 0; i < m->n_curve; i++)
		m->curve[i] = io_d(d, m->curve[i]);
	m->curve_t0 = io_i(d, m->curve_t0);
	m->curve_t1 = io_i(d, m->curve_t1);
	size_t n = io_n(d, m->n_top, 12);
	struct mem_alloc *a = io_array(d, m->top, n, sizeof *a);
	if (d->rd) {
		m->top = a;
		m->n_top = n;
	}
	for (size_t i = 0; i < n && !d->bad; i++) {
		a[i].name = io_s(d, a[i].name);
		a[i].size_mb = io_d(d, a[i].size_mb);
		a[i].alloc_ts = io_i(d, a[i].alloc_ts);
		a[i].duration_ns = io_i(d, a[i].duration_ns);
		uint64_t line = io_u(d, !d->rd && m->ops ? csvt_line(m->ops, a[i].row) : a[i].row);
		if (d->rd)
			a[i].row = (size_t)line; /* as for the components: the stub's rows are lines */
	}
	m->n_allocs = io_u(d, m->n_allocs);
	m->negative_sizes = io_u(d, m->negative_sizes);
	m->never_released = io_u(d, m->never_released);
	m->total_alloc_mb = io_d(d, m->total_alloc_mb);
}

static void io_steps(struct dio *d, struct rank_analysis *ra)
{
	size_t n = io_n(d, ra->n_steps, 20);
	struct step *s = io_array(d, ra->steps, n, sizeof *s);
	if (d->rd) {
		ra->steps = s;
		ra->n_steps = n;
	}
	for (size_t i = 0; i < n && !d->bad; i++) {
		struct step *x = &s[i];
		x->index = (int)io_i(d, x->index);
		x->label = io_os(d, x->label);
		x->start = io_i(d, x->start);
		x->end = io_i(d, x->end);
		x->has_window = io_b(d, x->has_window);
		x->win_start = io_i(d, x->win_start);
		x->win_end = io_i(d, x->win_end);
		x->phase = (enum phase)io_e(d, x->phase, PHASE_MIXED + 1);
		x->phase_source = (enum phase_source)io_e(d, x->phase_source, PHASE_SRC_COUNT);
		x->phase_conf = (enum confidence)io_e(d, x->phase_conf, CONF_LOW + 1);
		x->phase_evidence = io_os(d, x->phase_evidence);
		if (d->rd) /* writing leaves the analysis as it is (the explorer goes on with it) */
			x->marker_ev = UINT32_MAX; /* no events in a digest */
		x->compute_ns = io_i(d, x->compute_ns);
		x->comm_not_overlapped_ns = io_i(d, x->comm_not_overlapped_ns);
		x->free_ns = io_i(d, x->free_ns);
		x->host_only_ns = io_i(d, x->host_only_ns);
		x->h2d_ns = io_i(d, x->h2d_ns);
		x->d2h_ns = io_i(d, x->d2h_ns);
		x->dispatch_ops = io_u(d, x->dispatch_ops);
		x->graph_replays = io_u(d, x->graph_replays);
	}
}

/* Each phase's partition as the sets gave it (phase_verdict.h); its split and verdict are
 * made again with the rank's bottlenecks. After the rank's attribution, whose span and
 * host knowledge it shares. */
static void io_by_phase(struct dio *d, struct rank_analysis *ra)
{
	size_t n = io_n(d, ra->n_by_phase, 16);
	struct phase_verdict *p = io_array(d, ra->by_phase, n, sizeof *p);
	if (d->rd) {
		ra->by_phase = p;
		ra->n_by_phase = n;
	}
	for (size_t i = 0; i < n && !d->bad; i++) {
		struct phase_verdict *x = &p[i];
		x->phase = (enum phase)io_e(d, x->phase, PHASE_MIXED + 1);
		x->training = io_b(d, x->training);
		x->steps = io_u(d, x->steps);
		x->p50_ns = io_i(d, x->p50_ns);
		x->p95_ns = io_i(d, x->p95_ns);
		x->short_gap_ns = io_i(d, x->short_gap_ns);
		x->part.wall_ns = io_i(d, x->part.wall_ns);
		for (int k = 0; k < ATTR_COUNT; k++)
			x->part.ns[k] = io_i(d, x->part.ns[k]);
		if (d->rd) {
			x->part.valid = true;
			x->part.host_known = ra->attr.host_known;
			x->part.span_lo = ra->attr.span_lo;
			x->part.span_hi = ra->attr.span_hi;
			x->part.comm_split = ra->attr.comm_split;
			x->first = -1;
		}
	}
}

static void io_types(struct dio *d, struct op_type_stat **pt, size_t *pn)
{
	size_t n = io_n(d, *pn, 15);
	struct op_type_stat *t = io_array(d, *pt, n, sizeof *t);
	if (d->rd) {
		*pt = t;
		*pn = n;
	}
	for (size_t i = 0; i < n && !d->bad; i++) {
		t[i].name = io_os(d, t[i].name);
		t[i].group = io_s(d, t[i].group);
		t[i].scope = (uint8_t)io_e(d, t[i].scope, SCOPE_COUNT);
		t[i].category = (uint8_t)io_e(d, t[i].category, CAT_COUNT);
		t[i].count = io_u(d, t[i].count);
		t[i].n_names = io_u(d, t[i].n_names);
		t[i].total_ns = io_i(d, t[i].total_ns);
		t[i].busy_ns = io_i(d, t[i].busy_ns);
		t[i].share_pct = io_d(d, t[i].share_pct);
	}
}

static void io_ops(struct dio *d, struct rank_analysis *ra)
{
	size_t n = io_n(d, ra->n_ops, 30);
	struct op_stat *o = io_array(d, ra->ops, n, sizeof *o);
	if (d->rd) {
		ra->ops = o;
		ra->n_ops = n;
	}
	for (size_t i = 0; i < n && !d->bad; i++) {
		o[i].name = io_s(d, o[i].name);
		if (d->rd && !o[i].name)
			o[i].name = "";
		o[i].group = io_s(d, o[i].group);
		o[i].collective = io_b(d, o[i].collective);
		o[i].scope = (uint8_t)io_e(d, o[i].scope, SCOPE_COUNT);
		o[i].phase = (uint8_t)io_e(d, o[i].phase, PHASE_MIXED + 1);
		o[i].category = (uint8_t)io_e(d, o[i].category, CAT_COUNT);
		o[i].count = io_u(d, o[i].count);
		o[i].total_ns = io_i(d, o[i].total_ns);
		o[i].min_ns = io_i(d, o[i].min_ns);
		o[i].max_ns = io_i(d, o[i].max_ns);
		o[i].p50_ns = io_i(d, o[i].p50_ns);
		o[i].p95_ns = io_i(d, o[i].p95_ns);
		o[i].avg_ns = io_d(d, o[i].avg_ns);
		o[i].share_pct = io_d(d, o[i].share_pct);
		o[i].busy_ns = io_i(d, o[i].busy_ns);
		o[i].csv_total_ns = io_i(d, o[i].csv_total_ns);
		o[i].deviation_pct = io_d(d, o[i].deviation_pct);
		o[i].type = io_s(d, o[i].type);
	}
	ra->ops_source = io_os(d, ra->ops_source);
	io_types(d, &ra->op_types, &ra->n_op_types);
	io_types(d, &ra->op_shapes, &ra->n_op_shapes);
}

static void io_metrics(struct dio *d, struct rank_analysis *ra)
{
	/* by key, so a build with more metrics reads an older digest's and leaves the new
	 * ones absent */
	size_t n = io_n(d, M_COUNT, 12);
	for (size_t i = 0; i < n && !d->bad; i++) {
		const char *key = io_s(d, i < M_COUNT ? metric_defs[i].key : NULL);
		int m = (int)i;
		if (d->rd) {
			m = -1;
			for (int k = 0; key && k < M_COUNT; k++)
				if (!strcmp(metric_defs[k].key, key)) {
					m = k;
					break;
				}
		}
		double v = io_d(d, m >= 0 ? ra->v[m] : 0);
		bool have = io_b(d, m >= 0 && ra->have[m]);
		int conf = io_e(d, m >= 0 ? (int)ra->conf[m] : 0, CONF_LOW + 1);
		const char *src = io_s(d, m >= 0 ? ra->source[m] : NULL);
		if (d->rd && m >= 0) {
			ra->v[m] = v;
			ra->have[m] = have;
			ra->conf[m] = (enum confidence)conf;
			ra->source[m] = src;
		}
	}
}

static void io_bottlenecks(struct dio *d, struct rank_analysis *ra)
{
	for (int k = 0; k < BN_COUNT && !d->bad; k++) {
		struct bottleneck *b = &ra->bn[k];
		b->kind = (enum bottleneck_kind)io_e(d, b->kind, BN_COUNT);
		b->name = io_s(d, b->name);
		if (d->rd && !b->name)
			b->name = "";
		b->score = (int)io_i(d, b->score);
		b->bucket_ns = io_i(d, b->bucket_ns);
		b->insufficient = io_os(d, b->insufficient);
		size_t n = io_n(d, b->n_ev, 20);
		struct evidence *e = io_array(d, b->ev, n, sizeof *e);
		if (d->rd) {
			b->ev = e;
			b->n_ev = n;
		}
		for (size_t i = 0; i < n && !d->bad; i++) {
			e[i].metric = io_s(d, e[i].metric);
			e[i].value = io_d(d, e[i].value);
			e[i].threshold = io_d(d, e[i].threshold);
			e[i].unit = io_s(d, e[i].unit);
			e[i].triggered = io_b(d, e[i].triggered);
			e[i].text = io_os(d, e[i].text);
		}
		b->gain.low_pct = io_d(d, b->gain.low_pct);
		b->gain.high_pct = io_d(d, b->gain.high_pct);
		b->gain.conf = (enum confidence)io_e(d, b->gain.conf, CONF_LOW + 1);
		b->gain.basis = io_os(d, b->gain.basis);
		b->advice = io_os(d, b->advice);
	}
	ra->combined_gain_low = io_d(d, ra->combined_gain_low);
	ra->combined_gain_high = io_d(d, ra->combined_gain_high);
}

/* Raw bytes with their length (a communication string may hold any byte); read: borrowed
 * from the payload, not NUL-terminated. */
static const char *io_bytes(struct dio *d, const char *s, size_t *len)
{
	*len = (size_t)io_u(d, *len);
	if (!d->rd) {
		sbuf_add(&d->out, s, *len);
		return s;
	}
	if (d->bad || *len > (size_t)(d->end - d->p)) {
		d->bad = true;
		*len = 0;
		return "";
	}
	const char *r = d->p;
	d->p += *len;
	return r;
}

/* An index into a table of n entries already read (strings, files, transports, bins). */
static uint32_t io_ix(struct dio *d, uint32_t v, size_t n)
{
	uint64_t x = io_u(d, v);
	if (d->rd && x >= n) {
		d->bad = true;
		return 0;
	}
	return (uint32_t)x;
}

/* A range [first, first + count) inside a table of n entries. */
static void io_range(struct dio *d, uint32_t *first, uint32_t *count, size_t n)
{
	uint64_t a = io_u(d, *first), c = io_u(d, *count);
	if (d->rd) {
		if (a > n || c > n - a) {
			d->bad = true;
			a = c = 0;
		}
		*first = (uint32_t)a;
		*count = (uint32_t)c;
	}
}

/* A table of comm_data: its count, and when reading a zeroed array of that many (into
 * *(T **)parr, with *n and *cap set). Returns the count. */
static size_t io_vec(struct dio *d, void *parr, size_t *n, size_t *cap, size_t min, size_t elem)
{
	size_t k = io_n(d, *n, min);
	if (d->rd) {
		void *a = xcalloc(k ? k : 1, elem);
		memcpy(parr, &a, sizeof a);
		*n = *cap = k;
	}
	return k;
}

/* A rank's communication*.json as loaded (comm_json.h): its strings in id order, then its
 * files, bins, transports, ops and links, each index checked against what precedes it. The
 * reader builds the same comm_data, so the communication analysis over digests is the one
 * over the captures (the files' byte offsets are kept for drill-down into the capture). */
static void io_comm(struct dio *d, struct comm_data *cd)
{
	size_t ns = io_n(d, cd->strs ? strtab_count(cd->strs) : 0, 1);
	if (d->rd && ns)
		cd->strs = strtab_new();
	for (size_t i = 1; i < ns && !d->bad; i++) {
		size_t len = d->rd ? 0 : strtab_len(cd->strs, (uint32_t)i);
		const char *s = io_bytes(d, d->rd ? NULL : strtab_str(cd->strs, (uint32_t)i), &len);
		/* ids are dense and in order: a string met twice would shift the rest */
		if (d->rd && !d->bad && strtab_intern(cd->strs, s, len) != i)
			d->bad = true;
	}
	if (d->bad)
		return;
	size_t nf = io_vec(d, &cd->files, &cd->n_files, &cd->cap_files, 10, sizeof *cd->files);
	struct comm_file *f = cd->files;
	for (size_t i = 0; i < nf && !d->bad; i++) {
		/* resolved: the reader may run elsewhere, and drill-down names the file */
		char *abs = d->rd ? NULL : realpath(f[i].path, NULL);
		const char *path = io_s(d, abs ? abs : f[i].path);
		free(abs);
		if (d->rd)
			f[i].path = xstrdup(path ? path : "");
		f[i].owner_rank = (int)io_i(d, f[i].owner_rank);
		f[i].matrix = io_b(d, f[i].matrix);
		f[i].cluster = io_b(d, f[i].cluster);
		f[i].n_steps = io_u(d, f[i].n_steps);
		f[i].n_ops = io_u(d, f[i].n_ops);
		f[i].n_links = io_u(d, f[i].n_links);
		f[i].skipped = io_u(d, f[i].skipped);
	}
	size_t nbin = io_vec(d, &cd->bins, &cd->n_bins, &cd->cap_bins, 17, sizeof *cd->bins);
	struct comm_bin *bin = cd->bins;
	for (size_t i = 0; i < nbin && !d->bad; i++) {
		bin[i].size_mb = io_d(d, bin[i].size_mb);
		bin[i].count = io_d(d, bin[i].count);
		bin[i].time_ns = io_i(d, bin[i].time_ns);
	}
	size_t nbw = io_vec(d, &cd->bws, &cd->n_bws, &cd->cap_bws, 28, sizeof *cd->bws);
	struct comm_bw *bw = cd->bws;
	for (size_t i = 0; i < nbw && !d->bad; i++) {
		bw[i].size_mb = io_d(d, bw[i].size_mb);
		bw[i].bw_gbps = io_d(d, bw[i].bw_gbps);
		bw[i].large_ratio = io_d(d, bw[i].large_ratio);
		bw[i].time_ns = io_i(d, bw[i].time_ns);
		io_range(d, &bw[i].bin0, &bw[i].n_bins, nbin);
		bw[i].transport = (uint8_t)io_e(d, bw[i].transport, COMM_TR_COUNT);
	}
	size_t no = io_vec(d, &cd->ops, &cd->n_ops, &cd->cap_ops, 36, sizeof *cd->ops);
	struct comm_op *op = cd->ops;
	for (size_t i = 0; i < no && !d->bad; i++) {
		struct comm_op *o = &op[i];
		for (int k = 0; k < COMM_T_COUNT; k++)
			o->t[k] = io_i(d, o->t[k]);
		o->start_ns = io_i(d, o->start_ns);
		o->off = io_i(d, o->off);
		o->wait_ratio = io_d(d, o->wait_ratio);
		o->sync_ratio = io_d(d, o->sync_ratio);
		o->len = (uint32_t)io_u(d, o->len);
		o->step = io_ix(d, o->step, ns);
		o->name = io_ix(d, o->name, ns);
		o->group = io_ix(d, o->group, ns);
		o->members = io_ix(d, o->members, ns);
		io_range(d, &o->bw0, &o->n_bw, nbw);
		o->rank = (int32_t)io_i(d, o->rank);
		o->file = (uint16_t)io_ix(d, o->file, nf);
		o->kind = (uint8_t)io_e(d, o->kind, COMM_KIND_OTHER + 1);
		o->entry = (uint8_t)io_e(d, o->entry, COMM_ENTRY_TOTAL + 1);
		o->has = (uint8_t)io_e(d, o->has, 1 << COMM_T_COUNT);
		o->has_start = io_b(d, o->has_start);
	}
	size_t nl = io_vec(d, &cd->links, &cd->n_links, &cd->cap_links, 32, sizeof *cd->links);
	struct comm_link *l = cd->links;
	for (size_t i = 0; i < nl && !d->bad; i++) {
		struct comm_link *x = &l[i];
		x->size_mb = io_d(d, x->size_mb);
		x->bw_gbps = io_d(d, x->bw_gbps);
		x->time_ns = io_i(d, x->time_ns);
		x->off = io_i(d, x->off);
		x->len = (uint32_t)io_u(d, x->len);
		x->step = io_ix(d, x->step, ns);
		x->name = io_ix(d, x->name, ns);
		x->group = io_ix(d, x->group, ns);
		x->members = io_ix(d, x->members, ns);
		x->op_name = io_ix(d, x->op_name, ns);
		x->src = (int32_t)io_i(d, x->src);
		x->dst = (int32_t)io_i(d, x->dst);
		x->rank = (int32_t)io_i(d, x->rank);
		x->file = (uint16_t)io_ix(d, x->file, nf);
		x->kind = (uint8_t)io_e(d, x->kind, COMM_KIND_OTHER + 1);
		x->entry = (uint8_t)io_e(d, x->entry, COMM_ENTRY_TOTAL + 1);
		x->transport = (uint8_t)io_e(d, x->transport, COMM_TR_COUNT);
	}
}

/* The device-idle gaps (gaps.h): the totals by cause and the longest, whose steps index
 * the digest's steps. */
static void io_gaps(struct dio *d, struct rank_analysis *ra)
{
	struct gap_analysis *g = &ra->gaps;
	g->valid = io_b(d, g->valid);
	g->count = io_u(d, g->count);
	g->total_ns = io_i(d, g->total_ns);
	for (int c = 0; c < GAP_CAUSE_COUNT; c++)
		g->by_cause[c] = io_i(d, g->by_cause[c]);
	for (int h = 0; h < GAP_HOST_COUNT; h++)
		g->no_dispatch_by_host[h] = io_i(d, g->no_dispatch_by_host[h]);
	g->n_top = (size_t)io_e(d, (int)g->n_top, GAPS_TOP + 1);
	for (size_t i = 0; i < g->n_top && !d->bad; i++) {
		struct gap *t = &g->top[i];
		t->start = io_i(d, t->start);
		t->dur = io_i(d, t->dur);
		t->step = (int32_t)io_i(d, t->step);
		t->cause = (uint8_t)io_e(d, t->cause, GAP_CAUSE_COUNT);
		t->host = (uint8_t)io_e(d, t->host, GAP_HOST_COUNT);
		if (d->rd && (t->step < -1 || (t->step >= 0 && (size_t)t->step >= ra->n_steps)))
			d->bad = true;
	}
}

static void io_rank(struct dio *d, struct rank_analysis *ra, struct digest_ident *id, struct coll_inst **pc,
		    size_t *pnc, struct comm_data *cm)
{
	/* identity */
	id->rank = (int)io_i(d, id->rank);
	id->device_id = (int)io_i(d, id->device_id);
	id->host = io_s(d, id->host);
	id->label = io_s(d, id->label);
	id->capture_path = io_s(d, id->capture_path);
	id->torch_npu_version = io_s(d, id->torch_npu_version);
	id->cann_version = io_s(d, id->cann_version);
	id->trace_bytes = io_u(d, id->trace_bytes);
	id->t0 = io_i(d, id->t0);
	id->layout = io_s(d, id->layout);

	ra->rank = id->rank;
	ra->has_trace = io_b(d, ra->has_trace);
	ra->has_timeline = io_b(d, ra->has_timeline);
	ra->t0 = id->t0;
	io_metrics(d, ra);
	ra->step_source = (enum step_source)io_e(d, ra->step_source, STEP_SRC_OP_SEQUENCE + 1);
	ra->step_evidence = io_os(d, ra->step_evidence);
	ra->phase_source = (enum phase_source)io_e(d, ra->phase_source, PHASE_SRC_COUNT);
	ra->phase_conf = (enum confidence)io_e(d, ra->phase_conf, CONF_LOW + 1);
	ra->phase_evidence = io_os(d, ra->phase_evidence);
	for (int g = 0; g < PHASE_SRC_COUNT; g++)
		ra->phase_steps[g] = io_u(d, ra->phase_steps[g]);
	ra->workload = (enum workload)io_e(d, ra->workload, WORKLOAD_TRAINING + 1);
	ra->workload_evidence = io_os(d, ra->workload_evidence);
	io_steps(d, ra);
	io_ops(d, ra);
	int64_t *lm[4] = {ra->longest_idle, ra->longest_exposed, ra->longest_copy, ra->longest_sync};
	for (int k = 0; k < 4; k++)
		for (int j = 0; j < 2; j++)
			lm[k][j] = io_i(d, lm[k][j]);

	ra->n_checks = (size_t)io_e(d, (int)ra->n_checks, 3);
	for (size_t i = 0; i < ra->n_checks && !d->bad; i++) {
		struct crosscheck *c = &ra->checks[i];
		c->source = io_s(d, c->source);
		c->win_start = io_i(d, c->win_start);
		c->win_end = io_i(d, c->win_end);
		for (int k = 0; k < 3; k++) {
			c->theirs[k] = io_i(d, c->theirs[k]);
			c->ours[k] = io_i(d, c->ours[k]);
			c->diff_pct[k] = io_d(d, c->diff_pct[k]);
		}
		c->agree = io_b(d, c->agree);
		c->explanation = io_os(d, c->explanation);
	}

	struct attribution *a = &ra->attr;
	a->valid = io_b(d, a->valid);
	a->host_known = io_b(d, a->host_known);
	a->wall_ns = io_i(d, a->wall_ns);
	a->span_lo = io_i(d, a->span_lo);
	a->span_hi = io_i(d, a->span_hi);
	size_t nb = io_n(d, ATTR_COUNT, 1);
	for (size_t k = 0; k < nb; k++) {
		int64_t v = io_i(d, k < ATTR_COUNT ? a->ns[k] : 0);
		if (k < ATTR_COUNT)
			a->ns[k] = v;
	}
	if (d->rd && nb != ATTR_COUNT)
		d->bad = true;
	a->comm_split = io_s(d, a->comm_split);
	io_by_phase(d, ra);
	io_bottlenecks(d, ra);
	io_gaps(d, ra);

	for (int m = 0; m < ALIGN_COUNT; m++)
		ra->offset_ns[m] = io_i(d, ra->offset_ns[m]);
	ra->residual_ns = io_i(d, ra->residual_ns);
	ra->residual_max_ns = io_i(d, ra->residual_max_ns);
	ra->matched_collectives = io_u(d, ra->matched_collectives);
	ra->collective_ok = io_b(d, ra->collective_ok);
	ra->coll_wait_ns = io_i(d, ra->coll_wait_ns);
	ra->coll_transfer_ns = io_i(d, ra->coll_transfer_ns);
	ra->coll_spread_ok = io_b(d, ra->coll_spread_ok);
	ra->late_rank = (int)io_i(d, ra->late_rank);
	io_mem(d, &ra->mem);

	/* every rule's status, and why a rule was not applicable */
	for (int k = 0; k < ADV_COUNT; k++) {
		ra->advice_status[k] = (uint8_t)io_e(d, ra->advice_status[k], ADV_STATUS_COUNT);
		ra->advice_reason[k] = io_s(d, ra->advice_reason[k]);
	}
	/* the Ascend advice findings (advice.h): their figures and evidence, not their events */
	size_t na = io_n(d, ra->n_advice, 8);
	struct advice_finding *av = io_array(d, ra->advice, na, sizeof *av);
	if (d->rd) {
		ra->advice = av;
		ra->n_advice = na;
	}
	for (size_t i = 0; i < na && !d->bad; i++) {
		struct advice_finding *f = &av[i];
		f->rule = io_e(d, f->rule, ADV_COUNT);
		f->triggered = io_b(d, f->triggered);
		f->value = io_d(d, f->value);
		f->count = io_u(d, f->count);
		f->total_ns = io_i(d, f->total_ns);
		f->share_pct = io_d(d, f->share_pct);
		f->share_of = io_s(d, f->share_of);
		f->exposed_ns = io_i(d, f->exposed_ns);
		for (int k = 0; k < 4; k++)
			f->host_ns[k] = io_i(d, f->host_ns[k]);
		f->bucket = io_s(d, f->bucket);
		if (d->rd)
			f->event = UINT32_MAX; /* no events to show from a digest */
		f->event_ts = io_i(d, f->event_ts);
		f->event_end = io_i(d, f->event_end);
		f->event_name = io_s(d, f->event_name);
		f->csv_line = (uint32_t)io_u(d, f->csv_line);
		f->conf = (enum confidence)io_e(d, (int)f->conf, 3);
		f->evidence = io_os(d, f->evidence);
	}

	size_t nc = io_n(d, *pnc, 3);
	struct coll_inst *c = io_array(d, *pc, nc, sizeof *c);
	if (d->rd) {
		*pc = c;
		*pnc = nc;
	}
	for (size_t i = 0; i < nc && !d->bad; i++) {
		c[i].name = io_s(d, c[i].name);
		if (d->rd && !c[i].name)
			c[i].name = "";
		c[i].end = io_i(d, c[i].end);
		c[i].dur = io_i(d, c[i].dur);
		c[i].bytes = io_d(d, c[i].bytes);
		c[i].exposed = io_i(d, c[i].exposed);
		c[i].before = (uint8_t)io_e(d, c[i].before, BEFORE_COUNT);
		if (d->rd) { /* across the ranks: computed again over every digest */
			c[i].skew = -1;
			c[i].shared = 0;
			c[i].last = -1;
			c[i].event = UINT32_MAX;
		}
	}
	io_comm(d, cm);
	if (d->rd && d->p != d->end)
		d->bad = true;
}

/* ---- writing ------------------------------------------------------------------------- */

static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Letters, digits, '-' and '_' only: a host name goes into a file name. */
static void safe_name(const char *s, char *out, size_t size)
{
	size_t k = 0;
	for (; s && *s && k + 1 < size; s++)
		out[k++] = ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
			    *s == '-' || *s == '_')
				   ? *s
				   : '_';
	if (!k)
		out[k++] = '_';
	out[k] = 0;
}

static uint64_t rank_trace_bytes(const struct rank_data *rd)
{
	return rd->trace_bytes_total;
}

/* Rank i of an analysis as a whole digest file in memory (header and payload; owned,
 * *len bytes). */
static void cross_ranks(struct analysis *an);

static char *digest_encode(const struct analysis *an, size_t i, const char *host, size_t *len)
{
	const struct rank_analysis *ra = &an->ranks[i];
	const struct rank_data *rd = &an->cap->ranks[ra->rank_index];
	const struct rank_plan *rp = rd->plan;
	char *abs = realpath(rp->output_dir ? rp->output_dir : an->cap->plan.path, NULL);
	struct digest_ident id = {
		.rank = ra->rank,
		.device_id = rp->device_id,
		.host = host,
		.label = rp->label,
		.capture_path = abs ? abs : (rp->output_dir ? rp->output_dir : an->cap->plan.path),
		.torch_npu_version = rp->info.torch_npu_version,
		.cann_version = rp->info.cann_version,
		.trace_bytes = rank_trace_bytes(rd),
		.t0 = ra->t0,
	};
	char *layout = parallel_groups_format(rp->par_groups, rp->n_par_groups);
	id.layout = layout;
	struct dio d = {.rd = false, .seen = strtab_new()};
	sbuf_add(&d.out, DIGEST_MAGIC, 8);
	char zero[DIGEST_HEADER - 8] = {0};
	sbuf_add(&d.out, zero, sizeof zero); /* the rest of the header, filled below */
	struct coll_inst *colls = an->colls ? an->colls[i] : NULL;
	size_t nc = an->n_colls ? an->n_colls[i] : 0;
	/* a split drawn from the peers digested in this run is undone: the reader splits again
	 * over every digest (the ranks of other nodes included) */
	struct rank_analysis w = *ra;
	if (w.attr.valid) { /* the split reads the collectives and communication.json kept below */
		comm_split_merge(&w.attr);
		w.attr.comm_split = "none: no communication.json and no peer ranks";
	}
	io_rank(&d, &w, &id, &colls, &nc, (struct comm_data *)&rd->comm);
	unsigned char *h = (unsigned char *)d.out.buf;
	size_t plen = d.out.len - DIGEST_HEADER;
	put_le(h + 8, DIGEST_VERSION, 4);
	put_le(h + 12, 0, 4);
	put_le(h + 16, plen, 8);
	put_le(h + 24, XXH3_64bits(d.out.buf + DIGEST_HEADER, plen), 8);
	strtab_free(d.seen);
	free(d.seq);
	free(abs);
	free(layout);
	*len = d.out.len;
	return sbuf_detach(&d.out);
}

static void local_host(char *host, size_t size)
{
	if (gethostname(host, size - 1))
		snprintf(host, size, "unknown");
	host[size - 1] = 0;
}

int digest_write(const struct analysis *an, size_t i, const char *outdir, struct diag_list *dl, uint64_t *bytes_out)
{
	const struct rank_analysis *ra = &an->ranks[i];
	const struct rank_plan *rp = an->cap->ranks[ra->rank_index].plan;
	char host[256] = "";
	local_host(host, sizeof host);
	size_t len;
	char *buf = digest_encode(an, i, host, &len);
	int rc = -1;
	char hname[128];
	safe_name(host, hname, sizeof hname);
	char dev[24] = "";
	if (rp->device_id >= 0)
		snprintf(dev, sizeof dev, ".d%d", rp->device_id);
	char *final = xasprintf("%s/rank%05d.%s%s%s", outdir, ra->rank, hname, dev, DIGEST_SUFFIX);
	char *tmp = xasprintf("%s/.rank%05d.%s.%ld.tmp", outdir, ra->rank, hname, (long)getpid());
	if (mkdir(outdir, 0777) && errno != EEXIST) {
		diag_add(dl, DIAG_ERROR, outdir, -1, -1, _("cannot create the digest directory: %s"), strerror(errno));
		goto out;
	}
	/* a new file of ours (O_EXCL: never through a link or over a file planted there) */
	int tfd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	FILE *f = tfd >= 0 ? fdopen(tfd, "wb") : NULL;
	if (!f && tfd >= 0) {
		close(tfd);
		unlink(tmp);
	}
	if (!f) {
		diag_add(dl, DIAG_ERROR, tmp, -1, -1, _("cannot write: %s"), strerror(errno));
		goto out;
	}
	bool ok = fwrite(buf, 1, len, f) == len;
	ok = (fflush(f) == 0) && ok;
	ok = (fsync(fileno(f)) == 0 || errno == EINVAL) && ok;
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp, final)) {
		diag_add(dl, DIAG_ERROR, final, -1, -1, _("cannot write: %s"), strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (bytes_out)
		*bytes_out = len;
	rc = 0;
out:
	free(final);
	free(tmp);
	free(buf);
	return rc;
}

/* ---- reading ------------------------------------------------------------------------- */

int digest_parse(char *buf, size_t len, struct digest_keep *keep, struct rank_analysis *ra, struct digest_ident *id,
		 struct coll_inst **colls, size_t *n_colls, struct comm_data *comm, char *why, size_t size)
{
	const unsigned char *h = (const unsigned char *)buf;
	if (len < 8 || memcmp(buf, DIGEST_MAGIC, 8)) {
		snprintf(why, size, "%s", _("not a digest (no ASCPDIG magic)"));
		return -1;
	}
	if (len < DIGEST_HEADER) {
		snprintf(why, size, _("truncated: %zu bytes, shorter than the %d-byte header"), len, DIGEST_HEADER);
		return -1;
	}
	uint64_t version = get_le(h + 8, 4), plen = get_le(h + 16, 8), sum = get_le(h + 24, 8);
	if (version != DIGEST_VERSION) {
		snprintf(why, size,
			 _("digest format version %llu; this build reads version %u (write it again with this build)"),
			 (unsigned long long)version, DIGEST_VERSION);
		return -1;
	}
	if (plen != len - DIGEST_HEADER) {
		snprintf(why, size, _("truncated or padded: the header says %llu payload bytes, the file has %zu"),
			 (unsigned long long)plen, len - DIGEST_HEADER);
		return -1;
	}
	if (XXH3_64bits(buf + DIGEST_HEADER, plen) != sum) {
		snprintf(why, size, "%s", _("checksum mismatch: the file was changed or damaged after it was written"));
		return -1;
	}
	memset(ra, 0, sizeof *ra);
	ra->late_rank = -1;
	ra->aligned_via = -1;
	memset(id, 0, sizeof *id);
	*colls = NULL;
	*n_colls = 0;
	memset(comm, 0, sizeof *comm);
	struct dio d = {.rd = true, .p = buf + DIGEST_HEADER, .end = buf + len, .keep = keep};
	io_rank(&d, ra, id, colls, n_colls, comm);
	free(d.strs);
	if (d.bad) {
		analysis_rank_free(ra);
		free(*colls);
		*colls = NULL;
		*n_colls = 0;
		comm_data_free(comm);
		snprintf(why, size, _("the payload does not follow the version %u layout"), DIGEST_VERSION);
		return -1;
	}
	return 0;
}

struct digest_keep *digest_keep_new(void) { return xcalloc(1, sizeof(struct digest_keep)); }

void digest_keep_add(struct digest_keep *k, void *p) { keep_add(k, p); }

/* ---- a directory of digests ---------------------------------------------------------- */

struct loaded {
	struct rank_analysis ra;
	struct digest_ident id;
	struct coll_inst *colls;
	size_t n_colls;
	struct comm_data comm; /* moved into the capture's rank */
	char *path;
	bool drop;
};

static int cmp_loaded(const void *a, const void *b)
{
	const struct loaded *x = a, *y = b;
	if (x->ra.rank != y->ra.rank)
		return x->ra.rank < y->ra.rank ? -1 : 1;
	return strcmp(x->path, y->path);
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

static char *read_all(const char *path, size_t *len, char *why, size_t size)
{
	/* O_NONBLOCK: a FIFO named *.apdigest opens at once (and is refused below) */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why, size, _("cannot open: %s"), strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(why, size, "%s", _("not a regular file"));
		close(fd);
		return NULL;
	}
	size_t n = (size_t)st.st_size, got = 0;
	char *buf = xmalloc(n + 1);
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			break;
		}
		got += (size_t)r;
	}
	close(fd);
	buf[got] = 0;
	*len = got;
	return buf;
}

static char **list_digests(const char *path, size_t *n)
{
	char **out = NULL;
	size_t cap = 0;
	*n = 0;
	struct stat st;
	if (stat(path, &st))
		return NULL;
	if (!S_ISDIR(st.st_mode)) {
		out = xmalloc(sizeof *out);
		out[0] = xstrdup(path);
		*n = 1;
		return out;
	}
	DIR *dir = opendir(path);
	if (!dir)
		return NULL;
	struct dirent *de;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.' || !has_suffix(de->d_name, DIGEST_SUFFIX))
			continue;
		xgrow(&out, &cap, *n + 1, sizeof *out);
		out[(*n)++] = xasprintf("%s/%s", path, de->d_name);
	}
	closedir(dir);
	return out;
}

bool digest_path_is_digests(const char *path)
{
	struct stat st;
	if (stat(path, &st))
		return false;
	if (S_ISREG(st.st_mode)) {
		char magic[8];
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		struct stat fs;
		bool yes = fd >= 0 && fstat(fd, &fs) == 0 && S_ISREG(fs.st_mode) && read(fd, magic, 8) == 8 &&
			   !memcmp(magic, DIGEST_MAGIC, 8);
		if (fd >= 0)
			close(fd);
		return yes;
	}
	size_t n;
	char **list = list_digests(path, &n);
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
	return n > 0;
}

/* Ranks of one run start within minutes of each other; a gap of more than this between
 * the sorted first-event times splits the digests into runs. */
#define RUN_GAP_NS (10LL * 60 * 1000000000)

static int cmp_i64p(const void *a, const void *b)
{
	int64_t x = **(int64_t *const *)a, y = **(int64_t *const *)b;
	return x < y ? -1 : x > y;
}

/* Keeps the largest run (the latest of equal ones) and marks the others dropped. A rank
 * without a timeline (figures from step_trace_time.csv only) has no first event to tell
 * its run by: it stays. */
static void keep_one_run(struct loaded *L, size_t all, struct diag_list *dl)
{
	int64_t **t = xmalloc((all ? all : 1) * sizeof *t);
	size_t n = 0;
	for (size_t i = 0; i < all; i++)
		if (L[i].ra.has_timeline)
			t[n++] = &L[i].id.t0;
	if (n < 2) {
		free(t);
		return;
	}
	xqsort(t, n, sizeof *t, cmp_i64p);
	size_t best0 = 0, bestn = 0, start = 0, runs = 0;
	for (size_t i = 1; i <= n; i++) {
		if (i < n && *t[i] - *t[i - 1] <= RUN_GAP_NS)
			continue;
		runs++;
		if (i - start >= bestn) {
			bestn = i - start;
			best0 = start;
		}
		start = i;
	}
	if (runs > 1) {
		int64_t lo = *t[best0], hi = *t[best0 + bestn - 1];
		for (size_t i = 0; i < all; i++) {
			if (!L[i].ra.has_timeline || (L[i].id.t0 >= lo && L[i].id.t0 <= hi))
				continue;
			L[i].drop = true;
			diag_add(dl, DIAG_ERROR, L[i].path, -1, -1,
				 _("rank %d is from another run (it started %.0f s from the %zu ranks kept; "
				   "ranks of one run start within %lld minutes); left out"),
				 L[i].ra.rank, (double)(L[i].id.t0 - lo) / 1e9, bestn, RUN_GAP_NS / 60000000000LL);
		}
	}
	free(t);
}

struct analysis *digest_open(const char *path)
{
	struct capture *cap = xcalloc(1, sizeof *cap);
	diag_init(&cap->diags);
	cap->plan.path = xstrdup(path);
	struct analysis *an = xcalloc(1, sizeof *an);
	an->cap = cap;
	an->from_digests = true;
	an->keep = xcalloc(1, sizeof *an->keep);
	an->keep_free = digest_keep_free;
	diag_init(&an->diags);

	double t0 = stagetime_now();
	size_t nf;
	char **files = list_digests(path, &nf);
	struct loaded *L = xcalloc(nf ? nf : 1, sizeof *L);
	size_t n = 0;
	for (size_t i = 0; i < nf; i++) {
		char why[256];
		size_t len = 0;
		char *buf = read_all(files[i], &len, why, sizeof why);
		struct loaded *x = &L[n];
		if (buf && digest_parse(buf, len, an->keep, &x->ra, &x->id, &x->colls, &x->n_colls, &x->comm, why, sizeof why) == 0) {
			keep_add(an->keep, buf);
			x->path = files[i];
			n++;
			continue;
		}
		free(buf);
		diag_add(&cap->diags, DIAG_ERROR, files[i], -1, -1, _("%s; left out"), why);
		free(files[i]);
	}
	free(files);
	t0 = stagetime_add(STAGE_DIGEST, t0);
	/* captures beside the digests: analysed here, then read through the same encoding, so
	 * every rank is held alike */
	struct stat st;
	if (nf && !stat(path, &st) && S_ISDIR(st.st_mode)) {
		struct capture *mix = capture_open(path, NULL);
		if (mix->usable && mix->n_ranks) {
			capture_load(mix);
			struct analysis *ma = analysis_run(mix);
			char host[256];
			local_host(host, sizeof host);
			L = xrealloc(L, (nf + ma->n_ranks) * sizeof *L);
			for (size_t r = 0; r < ma->n_ranks; r++) {
				char why[256];
				size_t len;
				char *buf = digest_encode(ma, r, host, &len);
				struct loaded *x = &L[n];
				memset(x, 0, sizeof *x);
				if (digest_parse(buf, len, an->keep, &x->ra, &x->id, &x->colls, &x->n_colls, &x->comm, why, sizeof why)) {
					free(buf); /* cannot happen: the same walk wrote it */
					continue;
				}
				keep_add(an->keep, buf);
				x->path = xasprintf("%s (capture)", mix->ranks[ma->ranks[r].rank_index].plan->output_dir);
				n++;
			}
			diag_append(&cap->diags, &mix->diags);
			analysis_free(ma);
		}
		capture_free(mix);
		t0 = stagetime_now(); /* their load and analysis timed their own stages */
	}
	if (!nf)
		diag_add(&cap->diags, DIAG_ERROR, path, -1, -1, _("no *%s files here"), DIGEST_SUFFIX);
	xqsort(L, n, sizeof *L, cmp_loaded);
	keep_one_run(L, n, &cap->diags);
	/* duplicated ranks: the first by file name stays */
	for (size_t i = 1; i < n; i++) {
		if (L[i].drop)
			continue;
		for (size_t j = i; j-- > 0;) {
			if (L[j].ra.rank != L[i].ra.rank)
				break;
			if (L[j].drop)
				continue;
			L[i].drop = true;
			diag_add(&cap->diags, DIAG_ERROR, L[i].path, -1, -1,
				 _("rank %d is already read from %s (host %s, capture %s); this one (host %s) left out"),
				 L[i].ra.rank, L[j].path, L[j].id.host ? L[j].id.host : "?",
				 L[j].id.capture_path ? L[j].id.capture_path : "?", L[i].id.host ? L[i].id.host : "?");
			break;
		}
	}
	size_t kept = 0;
	for (size_t i = 0; i < n; i++)
		kept += !L[i].drop;
	cap->plan.ranks = xcalloc(kept ? kept : 1, sizeof *cap->plan.ranks);
	cap->ranks = xcalloc(kept ? kept : 1, sizeof *cap->ranks);
	an->ranks = xcalloc(kept ? kept : 1, sizeof *an->ranks);
	an->colls = xcalloc(kept ? kept : 1, sizeof *an->colls);
	an->n_colls = xcalloc(kept ? kept : 1, sizeof *an->n_colls);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		struct loaded *x = &L[i];
		if (x->drop) {
			analysis_rank_free(&x->ra);
			free(x->colls);
			comm_data_free(&x->comm);
			free(x->path);
			continue;
		}
		struct rank_plan *rp = &cap->plan.ranks[k];
		rp->rank = x->ra.rank;
		rp->label = xstrdup(x->id.label ? x->id.label : "");
		rp->par_groups = parallel_groups_parse(x->id.layout, &rp->n_par_groups);
		rp->output_dir = xstrdup(x->id.capture_path ? x->id.capture_path : "");
		rp->device_id = x->id.device_id;
		if (x->id.torch_npu_version)
			rp->info.torch_npu_version = xstrdup(x->id.torch_npu_version);
		if (x->id.cann_version)
			rp->info.cann_version = xstrdup(x->id.cann_version);
		struct rank_data *rd = &cap->ranks[k];
		rp->export_done = true;
		rd->plan = rp;
		rd->store.strs = strtab_new(); /* no events, but views look names up */
		rd->trace_bytes_total = x->id.trace_bytes;
		rd->comm = x->comm;
		atomic_init(&rd->state, RANK_READY);
		atomic_init(&rd->csv_ready, true);
		an->ranks[k] = x->ra;
		an->ranks[k].rank_index = k;
		an->colls[k] = x->colls;
		an->n_colls[k] = x->n_colls;
		free(x->path);
		k++;
	}
	free(L);
	cap->plan.n_ranks = cap->n_ranks = an->n_ranks = kept;
	cap->usable = kept > 0;
	atomic_init(&cap->done, true);
	cross_ranks(an);
	stagetime_add(STAGE_CAPTURE, t0);
	return an;
}

static void cross_ranks(struct analysis *an)
{
	const struct capture *cap = an->cap;
	/* what spans ranks is computed again over every digest: the alignment from the
	 * collectives, the slow-rank flags, the cluster analysis */
	analysis_workload_peers(an->ranks, an->n_ranks);
	analysis_align_lists(an->ranks, an->n_ranks, an->colls, an->n_colls);
	analysis_slow_ranks(an);
	an->comm = comm_analyse(cap);
	/* then what draws on the peers: the late rank (the cluster analysis's), the split of
	 * the exposed communication (comm_split.h) and the bottlenecks over it */
	an->cluster = cluster_analyse(an);
	analysis_attribution_comm(an);
	analysis_late_rank(an);
	for (size_t i = 0; i < an->n_ranks; i++)
		analysis_bottlenecks(&an->ranks[i]);
}

static char *encode_rank(const struct analysis *an, size_t i, size_t *len)
{
	char host[256] = "";
	local_host(host, sizeof host);
	return digest_encode(an, i, host, len);
}

/* An analysis of cap (borrowed; loaded) from the digests of its ranks: bufs[i] (taken,
 * lens[i] bytes) is the rank at cap->ranks[rank_index[i]]; what spans ranks is computed
 * again as over digest files. NULL, with why, when a digest does not read. */
static struct analysis *analysis_over(const struct capture *cap, char **bufs, const size_t *lens,
				     const size_t *rank_index, size_t n, char *why, size_t size)
{
	struct analysis *an = xcalloc(1, sizeof *an);
	an->cap = cap;
	an->keep = digest_keep_new();
	an->keep_free = digest_keep_free;
	diag_init(&an->diags);
	an->ranks = xcalloc(n ? n : 1, sizeof *an->ranks);
	an->colls = xcalloc(n ? n : 1, sizeof *an->colls);
	an->n_colls = xcalloc(n ? n : 1, sizeof *an->n_colls);
	bool ok = true;
	for (size_t i = 0; i < n; i++) {
		if (!ok || rank_index[i] >= cap->n_ranks) {
			snprintf(why, size, "rank %zu is not in the capture", rank_index[i]);
			ok = false;
			free(bufs[i]);
			continue;
		}
		struct digest_ident id;
		struct comm_data comm; /* the capture has its own communication data */
		if (digest_parse(bufs[i], lens[i], an->keep, &an->ranks[i], &id, &an->colls[i], &an->n_colls[i], &comm,
				 why, size)) {
			ok = false;
			free(bufs[i]);
			continue;
		}
		comm_data_free(&comm);
		keep_add(an->keep, bufs[i]);
		an->ranks[i].rank_index = rank_index[i];
		an->n_ranks = i + 1;
	}
	if (!ok) {
		analysis_free(an);
		return NULL;
	}
	cross_ranks(an);
	return an;
}

struct analysis *digest_open_summaries(const char *path)
{
	if (digest_path_is_digests(path))
		return digest_open(path);
	if (cluster_output_is(path))
		return cluster_output_open(path);
	return NULL;
}

/* ---- a capture's analysis in the index cache ---------------------------------------- */
/* The index's bytes: the rank count, per rank its index in the capture and its digest,
 * then the analysis' messages. */

struct make_ctx {
	struct capture *cap;
	const struct analysis_hook *hook;
	struct analysis *an; /* made here when the index could not give it */
};

static void put_u64(struct sbuf *b, uint64_t v) { sbuf_add(b, (const char *)&v, sizeof v); }

static void put_str(struct sbuf *b, const char *s)
{
	if (!s) {
		put_u64(b, UINT64_MAX);
		return;
	}
	size_t n = strlen(s);
	put_u64(b, n);
	sbuf_add(b, s, n);
}

/* What a digest leaves out because a digest file has no events, and the explorer shows
 * (the index lies beside the events it was made from): each step's marker event, each
 * finding's event, the memory tables' rows (by the capture's own tables). */
static void put_events(struct sbuf *b, const struct rank_analysis *ra)
{
	put_u64(b, ra->n_steps);
	for (size_t k = 0; k < ra->n_steps; k++)
		put_u64(b, ra->steps[k].marker_ev);
	put_u64(b, ra->n_advice);
	for (size_t k = 0; k < ra->n_advice; k++)
		put_u64(b, ra->advice[k].event);
	const struct mem_analysis *m = &ra->mem;
	put_u64(b, m->n_comps);
	for (size_t k = 0; k < m->n_comps; k++)
		put_u64(b, m->comps[k].peak_row);
	put_u64(b, m->n_mods);
	for (size_t k = 0; k < m->n_mods; k++)
		put_u64(b, m->mods[k].peak_row);
	put_u64(b, m->n_top);
	for (size_t k = 0; k < m->n_top; k++)
		put_u64(b, m->top[k].row);
}

static char *make(void *ctx, size_t *len, char *why, size_t size)
{
	struct make_ctx *c = ctx;
	capture_verify_columns(c->cap); /* the analysis reads the columns */
	c->an = analysis_run_with(c->cap, c->hook);
	for (size_t i = 0; i < c->cap->diags.n; i++)
		if (c->cap->diags.items[i].level == DIAG_ERROR) {
			/* a refused or unreadable file: the next open may read it */
			snprintf(why, size, "the capture's load gave an error");
			return NULL;
		}
	struct sbuf b = SBUF_INIT;
	put_u64(&b, c->an->n_ranks);
	for (size_t i = 0; i < c->an->n_ranks; i++) {
		size_t n;
		char *d = encode_rank(c->an, i, &n);
		put_u64(&b, c->an->ranks[i].rank_index);
		put_u64(&b, n);
		sbuf_add(&b, d, n);
		free(d);
	}
	const struct diag_list *dl = &c->an->diags;
	put_u64(&b, dl->n);
	put_u64(&b, dl->dropped);
	for (size_t i = 0; i < dl->n; i++) {
		const struct diag *d = &dl->items[i];
		put_u64(&b, (uint64_t)d->level);
		put_u64(&b, (uint64_t)(int64_t)d->line);
		put_u64(&b, (uint64_t)d->offset);
		put_str(&b, d->file);
		put_str(&b, d->msg);
	}
	for (size_t i = 0; i < c->an->n_ranks; i++)
		put_events(&b, &c->an->ranks[i]);
	*len = b.len;
	return sbuf_detach(&b);
}

struct rd {
	const char *p;
	size_t len, pos;
	bool bad;
};

static uint64_t get_u64(struct rd *r)
{
	uint64_t v = 0;
	if (r->bad || r->len - r->pos < sizeof v) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p + r->pos, sizeof v);
	r->pos += sizeof v;
	return v;
}

/* An owned copy of n bytes, NUL-terminated. */
static char *get_bytes(struct rd *r, uint64_t n)
{
	if (r->bad || n > r->len - r->pos) {
		r->bad = true;
		return NULL;
	}
	char *s = xmalloc(n + 1);
	memcpy(s, r->p + r->pos, n);
	s[n] = 0;
	r->pos += n;
	return s;
}

static char *get_str(struct rd *r)
{
	uint64_t n = get_u64(r);
	return n == UINT64_MAX ? NULL : get_bytes(r, n);
}

/* An index of one of n things (UINT32_MAX/SIZE_MAX: none, when none_ok), else bad. */
static uint64_t get_index(struct rd *r, uint64_t n, uint64_t none)
{
	uint64_t v = get_u64(r);
	if (v >= n && v != none)
		r->bad = true;
	return v;
}

/* The capture's table a stub names by its path (NULL when none: bad). */
static const struct csv_table *real_table(struct rd *r, const struct rank_data *rd, const struct csv_table *stub)
{
	if (!stub)
		return NULL;
	for (int k = 0; k < CSV_KIND_COUNT; k++)
		if (rd->by_kind[k] && rd->by_kind[k]->path && !strcmp(rd->by_kind[k]->path, stub->path))
			return rd->by_kind[k];
	r->bad = true;
	return NULL;
}

static size_t table_rows(const struct csv_table *t) { return t ? t->nrows : 0; }

/* put_events' section read into a rank read from its digest: the events and rows again,
 * and the memory report's stub tables replaced by the capture's. */
static void get_events(struct rd *r, const struct capture *cap, struct rank_analysis *ra)
{
	const struct rank_data *rd = &cap->ranks[ra->rank_index];
	uint64_t n_ev = rd->store.n_ev;
	if (get_u64(r) != ra->n_steps)
		r->bad = true;
	for (size_t k = 0; k < ra->n_steps && !r->bad; k++)
		ra->steps[k].marker_ev = (uint32_t)get_index(r, n_ev, UINT32_MAX);
	if (get_u64(r) != ra->n_advice)
		r->bad = true;
	for (size_t k = 0; k < ra->n_advice && !r->bad; k++)
		ra->advice[k].event = (uint32_t)get_index(r, n_ev, UINT32_MAX);
	struct mem_analysis *m = &ra->mem;
	m->record = real_table(r, rd, m->record);
	m->modules = real_table(r, rd, m->modules);
	m->ops = real_table(r, rd, m->ops);
	if (get_u64(r) != m->n_comps)
		r->bad = true;
	for (size_t k = 0; k < m->n_comps && !r->bad; k++)
		m->comps[k].peak_row = (size_t)get_index(r, table_rows(m->record), SIZE_MAX);
	if (get_u64(r) != m->n_mods)
		r->bad = true;
	for (size_t k = 0; k < m->n_mods && !r->bad; k++)
		m->mods[k].peak_row = (size_t)get_index(r, table_rows(m->modules), SIZE_MAX);
	if (get_u64(r) != m->n_top)
		r->bad = true;
	for (size_t k = 0; k < m->n_top && !r->bad; k++)
		m->top[k].row = (size_t)get_index(r, table_rows(m->ops), SIZE_MAX);
}

/* The analysis from the index's bytes, or NULL when they do not read. */
static struct analysis *decode(const struct capture *cap, const char *buf, size_t len)
{
	struct rd r = {.p = buf, .len = len};
	uint64_t n = get_u64(&r);
	if (r.bad || n > cap->n_ranks)
		return NULL;
	char **bufs = xcalloc(n ? n : 1, sizeof *bufs);
	size_t *lens = xcalloc(n ? n : 1, sizeof *lens), *idx = xcalloc(n ? n : 1, sizeof *idx);
	for (size_t i = 0; i < n; i++) {
		idx[i] = get_u64(&r);
		lens[i] = get_u64(&r);
		bufs[i] = get_bytes(&r, lens[i]);
	}
	struct diag_list msgs;
	diag_init(&msgs);
	uint64_t nd = get_u64(&r), dropped = get_u64(&r);
	for (uint64_t i = 0; i < nd && !r.bad && nd <= DIAG_MAX; i++) {
		uint64_t level = get_u64(&r), line = get_u64(&r), off = get_u64(&r);
		char *file = get_str(&r), *msg = get_str(&r);
		if (msg && level <= DIAG_ERROR)
			diag_add(&msgs, (enum diag_level)level, file, (long)(int64_t)line, (int64_t)off, "%s", msg);
		else
			r.bad = true;
		free(file);
		free(msg);
	}
	struct analysis *an = NULL;
	char why[256];
	size_t events_at = r.pos; /* the events section, read once the digests are */
	if (!r.bad && nd <= DIAG_MAX) {
		an = analysis_over(cap, bufs, lens, idx, n, why, sizeof why);
		r.pos = events_at;
		for (size_t i = 0; an && i < an->n_ranks; i++)
			get_events(&r, cap, &an->ranks[i]);
		if (an && (r.bad || r.pos != r.len)) {
			analysis_free(an);
			an = NULL;
		}
	} else {
		for (size_t i = 0; i < n; i++)
			free(bufs[i]);
	}
	if (an) { /* the analysis' own messages, as the first open gave them */
		diag_free(&an->diags);
		an->diags = msgs;
		an->diags.dropped += (size_t)dropped;
	} else {
		diag_free(&msgs);
	}
	free(bufs);
	free(lens);
	free(idx);
	return an;
}

static void add_path(const char ***v, size_t *n, size_t *cap, const char *p)
{
	if (!p)
		return;
	xgrow(v, cap, *n + 1, sizeof **v);
	(*v)[(*n)++] = p;
}

struct analysis *analysis_index_run(struct capture *cap, const struct analysis_hook *hook, struct tindex_status *st)
{
	struct tindex_status scratch;
	if (!st)
		st = &scratch;
	memset(st, 0, sizeof *st);
	if (!cap->opts.index.enabled || !cap->n_ranks) {
		capture_verify_columns(cap);
		struct analysis *an = analysis_run_with(cap, hook);
		return an;
	}
	/* every file the analysis may have read */
	const char **paths = NULL;
	size_t n = 0, npc = 0;
	for (size_t r = 0; r < cap->n_ranks; r++) {
		const struct rank_plan *rp = cap->ranks[r].plan;
		for (size_t i = 0; i < rp->n_files; i++)
			add_path(&paths, &n, &npc, rp->files[i].path);
		add_path(&paths, &n, &npc, rp->info.loaded ? rp->info.path : NULL);
		add_path(&paths, &n, &npc, rp->metadata_path);
	}
	for (size_t i = 0; i < cap->plan.n_cluster_files; i++)
		add_path(&paths, &n, &npc, cap->plan.cluster_files[i].path);
	char kind[160];
	snprintf(kind, sizeof kind, "analysis events source %d trace limit %" PRIu64 " csv limit %" PRIu64 " ranks %zu",
		 (int)cap->opts.source, cap->opts.max_trace_bytes, cap->opts.max_csv_bytes, cap->n_ranks);
	struct make_ctx c = {.cap = cap, .hook = hook};
	size_t len = 0;
	bool from_index = false;
	char *buf = tindex_load_blob(kind, paths, n, make, &c, &len, &from_index, &cap->opts.index, st, &cap->diags);
	free(paths);
	struct analysis *an = c.an;
	if (!an && buf && from_index)
		an = decode(cap, buf, len);
	free(buf);
	if (!an) { /* an index whose digests do not read (written by a program that checked less) */
		st->state = TINDEX_NOT_WRITTEN;
		capture_verify_columns(cap);
		an = analysis_run_with(cap, hook);
	}
	return an;
}
