/* SPDX-License-Identifier: MIT */
/* The digest payload's encoding (dio.h): one walk, two directions. */
#include "config.h"
#include "dio.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

struct digest_keep {
	void **ptrs;
	size_t n, cap;
};

void dio_keep_add(struct digest_keep *k, void *p)
{
	xgrow(&k->ptrs, &k->cap, k->n + 1, sizeof *k->ptrs);
	k->ptrs[k->n++] = p;
}

void dio_keep_free(struct digest_keep *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		free(k->ptrs[i]);
	free(k->ptrs);
	free(k);
}

struct digest_keep *dio_keep_new(void) { return xcalloc(1, sizeof(struct digest_keep)); }

/* Unsigned integers as LEB128 varints: 7 bits a byte, low first (most fields take 1-4
 * bytes instead of 8). */
uint64_t dio_u(struct dio *d, uint64_t v)
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
int64_t dio_i(struct dio *d, int64_t v)
{
	uint64_t z = dio_u(d, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
	return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}
bool dio_b(struct dio *d, bool v) { return dio_u(d, v) != 0; }

/* Doubles by their 8 bytes, little-endian. */
double dio_d(struct dio *d, double v)
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
int dio_e(struct dio *d, int v, int count)
{
	uint64_t x = dio_u(d, (uint64_t)v);
	if (d->rd && x >= (uint64_t)count) {
		d->bad = true;
		return 0;
	}
	return (int)x;
}

/* A string borrowed from the payload when read. Each distinct string is written once: a
 * varint tag 0 is none, 1 a new string (varint length, the bytes, a NUL), k + 2 the k-th
 * string met before (op names recur per phase and scope, sources and units per metric). */
const char *dio_s(struct dio *d, const char *s)
{
	if (!d->rd) {
		if (!s) {
			dio_u(d, 0);
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
			dio_u(d, (uint64_t)d->seq[id] + 2);
			return s;
		}
		d->seq[id] = d->n_strs++;
		dio_u(d, 1);
		dio_u(d, len);
		sbuf_add(&d->out, s, len);
		sbuf_addc(&d->out, 0);
		return s;
	}
	uint64_t tag = dio_u(d, 0);
	if (d->bad || tag == 0)
		return NULL;
	if (tag >= 2) {
		if (tag - 2 >= d->n_strs) {
			d->bad = true;
			return NULL;
		}
		return d->strs[tag - 2];
	}
	uint64_t len = dio_u(d, 0);
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

/* A string the rank analysis owns (result_rank_free frees it). */
char *dio_os(struct dio *d, char *s)
{
	const char *r = dio_s(d, s);
	if (!d->rd)
		return s;
	return r ? xstrdup(r) : NULL;
}

/* A count of elements of at least min bytes each: a read count the rest of the payload
 * cannot hold makes the digest bad (no allocation from a hostile count). */
size_t dio_n(struct dio *d, size_t n, size_t min)
{
	uint64_t v = dio_u(d, n);
	if (d->rd && v > (uint64_t)(d->end - d->p) / min) {
		d->bad = true;
		return 0;
	}
	return (size_t)v;
}

void *dio_array(struct dio *d, void *arr, size_t n, size_t elem)
{
	return d->rd ? xcalloc(n ? n : 1, elem) : arr;
}

const char *dio_bytes(struct dio *d, const char *s, size_t *len)
{
	*len = (size_t)dio_u(d, *len);
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
uint32_t dio_ix(struct dio *d, uint32_t v, size_t n)
{
	uint64_t x = dio_u(d, v);
	if (d->rd && x >= n) {
		d->bad = true;
		return 0;
	}
	return (uint32_t)x;
}

/* A range [first, first + count) inside a table of n entries. */
void dio_range(struct dio *d, uint32_t *first, uint32_t *count, size_t n)
{
	uint64_t a = dio_u(d, *first), c = dio_u(d, *count);
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
size_t dio_vec(struct dio *d, void *parr, size_t *n, size_t *cap, size_t min, size_t elem)
{
	size_t k = dio_n(d, *n, min);
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
void dio_comm(struct dio *d, struct comm_data *cd)
{
	size_t ns = dio_n(d, cd->strs ? strtab_count(cd->strs) : 0, 1);
	if (d->rd && ns)
		cd->strs = strtab_new();
	for (size_t i = 1; i < ns && !d->bad; i++) {
		size_t len = d->rd ? 0 : strtab_len(cd->strs, (uint32_t)i);
		const char *s = dio_bytes(d, d->rd ? NULL : strtab_str(cd->strs, (uint32_t)i), &len);
		/* ids are dense and in order: a string met twice would shift the rest */
		if (d->rd && !d->bad && strtab_intern(cd->strs, s, len) != i)
			d->bad = true;
	}
	if (d->bad)
		return;
	size_t nf = dio_vec(d, &cd->files, &cd->n_files, &cd->cap_files, 10, sizeof *cd->files);
	struct comm_file *f = cd->files;
	for (size_t i = 0; i < nf && !d->bad; i++) {
		/* resolved: the reader may run elsewhere, and drill-down names the file */
		char *abs = d->rd ? NULL : realpath(f[i].path, NULL);
		const char *path = dio_s(d, abs ? abs : f[i].path);
		free(abs);
		if (d->rd)
			f[i].path = xstrdup(path ? path : "");
		f[i].owner_rank = (int)dio_i(d, f[i].owner_rank);
		f[i].matrix = dio_b(d, f[i].matrix);
		f[i].cluster = dio_b(d, f[i].cluster);
		f[i].n_steps = dio_u(d, f[i].n_steps);
		f[i].n_ops = dio_u(d, f[i].n_ops);
		f[i].n_links = dio_u(d, f[i].n_links);
		f[i].skipped = dio_u(d, f[i].skipped);
	}
	size_t nbin = dio_vec(d, &cd->bins, &cd->n_bins, &cd->cap_bins, 17, sizeof *cd->bins);
	struct comm_bin *bin = cd->bins;
	for (size_t i = 0; i < nbin && !d->bad; i++) {
		bin[i].size_mb = dio_d(d, bin[i].size_mb);
		bin[i].count = dio_d(d, bin[i].count);
		bin[i].time_ns = dio_i(d, bin[i].time_ns);
	}
	size_t nbw = dio_vec(d, &cd->bws, &cd->n_bws, &cd->cap_bws, 28, sizeof *cd->bws);
	struct comm_bw *bw = cd->bws;
	for (size_t i = 0; i < nbw && !d->bad; i++) {
		bw[i].size_mb = dio_d(d, bw[i].size_mb);
		bw[i].bw_gbps = dio_d(d, bw[i].bw_gbps);
		bw[i].large_ratio = dio_d(d, bw[i].large_ratio);
		bw[i].time_ns = dio_i(d, bw[i].time_ns);
		dio_range(d, &bw[i].bin0, &bw[i].n_bins, nbin);
		bw[i].transport = (uint8_t)dio_e(d, bw[i].transport, COMM_TR_COUNT);
	}
	size_t no = dio_vec(d, &cd->ops, &cd->n_ops, &cd->cap_ops, 36, sizeof *cd->ops);
	struct comm_op *op = cd->ops;
	for (size_t i = 0; i < no && !d->bad; i++) {
		struct comm_op *o = &op[i];
		for (int k = 0; k < COMM_T_COUNT; k++)
			o->t[k] = dio_i(d, o->t[k]);
		o->start_ns = dio_i(d, o->start_ns);
		o->off = dio_i(d, o->off);
		o->wait_ratio = dio_d(d, o->wait_ratio);
		o->sync_ratio = dio_d(d, o->sync_ratio);
		o->len = (uint32_t)dio_u(d, o->len);
		o->step = dio_ix(d, o->step, ns);
		o->name = dio_ix(d, o->name, ns);
		o->group = dio_ix(d, o->group, ns);
		o->members = dio_ix(d, o->members, ns);
		dio_range(d, &o->bw0, &o->n_bw, nbw);
		o->rank = (int32_t)dio_i(d, o->rank);
		o->file = (uint16_t)dio_ix(d, o->file, nf);
		o->kind = (uint8_t)dio_e(d, o->kind, COMM_KIND_OTHER + 1);
		o->entry = (uint8_t)dio_e(d, o->entry, COMM_ENTRY_TOTAL + 1);
		o->has = (uint8_t)dio_e(d, o->has, 1 << COMM_T_COUNT);
		o->has_start = dio_b(d, o->has_start);
	}
	size_t nl = dio_vec(d, &cd->links, &cd->n_links, &cd->cap_links, 32, sizeof *cd->links);
	struct comm_link *l = cd->links;
	for (size_t i = 0; i < nl && !d->bad; i++) {
		struct comm_link *x = &l[i];
		x->size_mb = dio_d(d, x->size_mb);
		x->bw_gbps = dio_d(d, x->bw_gbps);
		x->time_ns = dio_i(d, x->time_ns);
		x->off = dio_i(d, x->off);
		x->len = (uint32_t)dio_u(d, x->len);
		x->step = dio_ix(d, x->step, ns);
		x->name = dio_ix(d, x->name, ns);
		x->group = dio_ix(d, x->group, ns);
		x->members = dio_ix(d, x->members, ns);
		x->op_name = dio_ix(d, x->op_name, ns);
		x->src = (int32_t)dio_i(d, x->src);
		x->dst = (int32_t)dio_i(d, x->dst);
		x->rank = (int32_t)dio_i(d, x->rank);
		x->file = (uint16_t)dio_ix(d, x->file, nf);
		x->kind = (uint8_t)dio_e(d, x->kind, COMM_KIND_OTHER + 1);
		x->entry = (uint8_t)dio_e(d, x->entry, COMM_ENTRY_TOTAL + 1);
		x->transport = (uint8_t)dio_e(d, x->transport, COMM_TR_COUNT);
	}
}
