/* SPDX-License-Identifier: MIT */
/* A capture's analysis through the index cache: see analysis_index.h. The index's bytes:
 * the rank count, per rank its index in the capture and its digest, then the analysis'
 * messages. */
#include "analysis_index.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digest.h"
#include "sbuf.h"
#include "xalloc.h"

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
		char *d = digest_encode_rank(c->an, i, &n);
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
	if (!r.bad && nd <= DIAG_MAX && r.pos == r.len) {
		an = digest_analysis_over(cap, bufs, lens, idx, n, why, sizeof why);
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
		return analysis_run_with(cap, hook);
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
	snprintf(kind, sizeof kind, "analysis source %d trace limit %" PRIu64 " csv limit %" PRIu64 " ranks %zu",
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
