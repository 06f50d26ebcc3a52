/* SPDX-License-Identifier: MIT */
/* The trace index's kind for blobs: bytes made by the caller (an analysis; the explorer's timeline index, used in place) (trace_index_internal.h). */
#include "trace_index_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "i18n.h"
#include "xalloc.h"

/* ---- blobs -------------------------------------------------------------------------- */

struct blob_ctx {
	tindex_blob_maker make;
	void *make_ctx;
	char *buf; /* the result: made, or copied from the index */
	size_t len;
	bool from_index;
	bool in_place;      /* tindex_map_blob: the index's bytes are used from its mapping */
	const char *mapped; /* then: the bytes, in map */
	void *map;
	size_t map_len;
	bool deferred; /* buf went to a deferred write */
};

static int load_blob(void *ctx, struct diag_list *dl, struct sbuf *why)
{
	(void)dl;
	struct blob_ctx *c = ctx;
	c->buf = c->make(c->make_ctx, &c->len, why);
	return c->buf ? 0 : -1;
}

static void write_blob(struct tix_writer *w, void *ctx, const struct diag_list *dl, size_t diag0, size_t dropped0)
{
	(void)dl;
	(void)diag0;
	(void)dropped0;
	struct blob_ctx *c = ctx;
	tix_w_u64(w, c->len);
	tix_w_arr(w, c->buf, c->len);
}

static bool read_blob(struct tix_reader *r, void *map, size_t len, void *ctx, struct diag_list *dl)
{
	(void)dl;
	struct blob_ctx *c = ctx;
	uint64_t n = tix_r_u64(r);
	const char *p = tix_r_arr(r, n, 1);
	if (p && r->pos == r->len && c->in_place) {
		c->mapped = p;
		c->len = n;
		c->map = map;
		c->map_len = len;
		c->from_index = true;
		return true;
	}
	if (p && r->pos == r->len) {
		c->buf = xmalloc(n ? n : 1);
		memcpy(c->buf, p, n);
		c->len = n;
		c->from_index = true;
	}
	munmap(map, len);
	return c->from_index;
}

/* A deferred write takes the bytes (the caller gets none: *len 0). */
static void *keep_blob(void *ctx, const char *const *paths, size_t n)
{
	(void)paths;
	(void)n;
	struct blob_ctx *c = ctx;
	struct blob_ctx *kept = xmalloc(sizeof *kept);
	*kept = (struct blob_ctx){.buf = c->buf, .len = c->len};
	c->buf = NULL; /* the job's now */
	c->deferred = true;
	return kept;
}

static void drop_blob(void *kept)
{
	struct blob_ctx *c = kept;
	free(c->buf);
	free(c);
}

static void say_analysis(struct diag_list *dl, const char *file, const char *index, const char *why)
{
	if (index)
		diag_add(dl, DIAG_WARN, file, 0, -1, _("the analysis' index %s was not written: %s"), index, why);
	else
		diag_add(dl, DIAG_INFO, file, 0, -1, _("%s; the analysis is made again and its index rebuilt"), why);
}

static void say_timeline(struct diag_list *dl, const char *file, const char *index, const char *why)
{
	if (index)
		diag_add(dl, DIAG_WARN, file, 0, -1, _("the timeline index %s was not written: %s"), index, why);
	else
		diag_add(dl, DIAG_INFO, file, 0, -1, _("%s; the timeline index is built again"), why);
}

char *tindex_load_blob(const char *kind, const char *const *paths, size_t n, tindex_blob_maker make, void *ctx,
		       size_t *len, bool *from_index, const struct tindex_opts *io, struct tindex_status *st,
		       struct diag_list *dl)
{
	struct tix_kind k = {.name = kind, .what = "capture", .limit = "",
			     .say = say_analysis, .at_dir = true,
			     .load = load_blob, .write = write_blob, .read = read_blob, .keep = keep_blob, .drop = drop_blob};
	struct blob_ctx c = {.make = make, .make_ctx = ctx};
	tix_load(&k, &c, paths, n, 0, io, st, dl);
	*len = c.deferred ? 0 : c.len;
	*from_index = c.from_index;
	return c.buf;
}

bool tindex_map_blob(struct tindex_blob *b, const char *kind, const char *const *paths, size_t n,
		     tindex_blob_maker make, void *ctx, const struct tindex_opts *io, struct tindex_status *st,
		     struct diag_list *dl)
{
	struct tix_kind k = {.name = kind, .what = "timeline", .limit = "",
			     .say = say_timeline,
			     .load = load_blob, .write = write_blob, .read = read_blob, .keep = keep_blob, .drop = drop_blob};
	struct blob_ctx c = {.make = make, .make_ctx = ctx, .in_place = true};
	tix_load(&k, &c, paths, n, 0, io, st, dl);
	memset(b, 0, sizeof *b);
	b->from_index = c.from_index;
	b->len = c.len;
	if (c.from_index) {
		b->bytes = c.mapped;
		b->map = c.map;
		b->map_len = c.map_len;
	} else {
		b->bytes = b->owned = c.buf;
		if (c.deferred)
			b->len = 0;
	}
	return b->bytes != NULL || c.deferred;
}

void tindex_blob_free(struct tindex_blob *b)
{
	if (b->map)
		munmap(b->map, b->map_len);
	free(b->owned);
	memset(b, 0, sizeof *b);
}
