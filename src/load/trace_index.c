/* SPDX-License-Identifier: MIT */
/* The persistent trace index (trace_index.h): the trace's kind, a rank's store laid out as
 * the store holds it. The file, the cache and the other kinds: trace_index_internal.h. */
#include "trace_index_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "i18n.h"
#include "num.h"
#include "xalloc.h"

struct trace_ctx {
	struct rank_store *rs;
	const char *const *paths;
	size_t n;
	const struct trace_load_opts *topts;
	int ret; /* trace_load_parts' */
};

static void write_trace(struct tix_writer *w, void *ctx, const struct diag_list *dl, size_t diag0, size_t dropped0)
{
	struct trace_ctx *c = ctx;
	const struct rank_store *rs = c->rs;
	const char *const *paths = c->paths;
	size_t n = c->n;
	size_t n_ev = rs->n_ev;
	size_t n_ts_blocks = (n_ev + (1u << STORE_TS_SHIFT) - 1) >> STORE_TS_SHIFT;
	size_t n_off_blocks = (n_ev + (1u << STORE_OFF_SHIFT) - 1) >> STORE_OFF_SHIFT;
	const struct trace_file *tf = &rs->trace;
	uint64_t head[] = {n_ev,
			   rs->n_ts_far_blocks,
			   rs->ev_off_wide != NULL,
			   rs->n_long_durs,
			   rs->n_kinds,
			   rs->n_attrs,
			   rs->n_lanes,
			   rs->n_ctr,
			   rs->n_tracks,
			   rs->n_flows,
			   rs->flows != NULL,
			   rs->n_links,
			   rs->unmatched_flows,
			   (uint64_t)rs->window_start,
			   (uint64_t)rs->window_end,
			   rs->has_events,
			   tf->size,
			   tf->parsed_bytes,
			   tf->truncated,
			   (uint64_t)tf->cut_offset,
			   tf->wrapped,
			   (uint64_t)tf->threads_used,
			   (uint64_t)tf->rewalked_ranges,
			   tf->fast_elements,
			   tf->n_parts};
	tix_w_arr(w, head, sizeof head);
	tix_w_f64(w, tf->load_seconds);
	tix_w_f64(w, tf->walk_seconds);
	tix_w_f64(w, tf->merge_seconds);
	tix_w_f64(w, tf->finish_seconds);
	tix_w_arr(w, &rs->ph, sizeof rs->ph);

	tix_w_strtab(w, rs->strs);

	/* starts: a far block's ev_ts_lo holds only its first entry (the rest were never set) */
	tix_w_align(w);
	for (size_t b = 0; b < n_ts_blocks; b++) {
		uint32_t blk[1u << STORE_TS_SHIFT];
		size_t first = b << STORE_TS_SHIFT, cnt = n_ev - first < sizeof blk / sizeof *blk
								  ? n_ev - first
								  : sizeof blk / sizeof *blk;
		memcpy(blk, rs->ev_ts_lo + first, cnt * sizeof *blk);
		if (rs->ev_ts_base[b] == STORE_TS_FAR)
			memset(blk + 1, 0, (cnt - 1) * sizeof *blk);
		tix_w_raw(w, blk, cnt * sizeof *blk);
	}
	tix_w_arr(w, rs->ev_ts_base, n_ts_blocks * sizeof *rs->ev_ts_base);
	tix_w_arr(w, rs->ev_ts_far, rs->n_ts_far_blocks * ((size_t)1 << STORE_TS_SHIFT) * sizeof *rs->ev_ts_far);
	tix_w_arr(w, rs->ev_name, n_ev * sizeof *rs->ev_name);
	tix_w_arr(w, rs->ev_kind, n_ev * sizeof *rs->ev_kind);
	tix_w_arr(w, rs->ev_dur, n_ev * sizeof *rs->ev_dur);
	if (rs->ev_off_wide) {
		tix_w_arr(w, rs->ev_off_wide, n_ev * sizeof *rs->ev_off_wide);
	} else {
		tix_w_arr(w, rs->ev_off_lo, n_ev * sizeof *rs->ev_off_lo);
		tix_w_arr(w, rs->ev_off_block, n_off_blocks * sizeof *rs->ev_off_block);
	}
	tix_w_align(w);
	for (size_t i = 0; i < rs->n_long_durs; i++) {
		struct long_dur ld;
		memset(&ld, 0, sizeof ld); /* no padding bytes of the heap in the file */
		ld.ev = rs->long_durs[i].ev;
		ld.dur = rs->long_durs[i].dur;
		tix_w_raw(w, &ld, sizeof ld);
	}
	tix_w_arr(w, rs->kinds, rs->n_kinds * sizeof *rs->kinds);
	tix_w_arr(w, rs->attrs, rs->n_attrs * sizeof *rs->attrs);

	for (size_t i = 0; i < rs->n_lanes; i++) {
		const struct lane *l = &rs->lanes[i];
		uint64_t f[] = {l->pid_text,
				l->tid_text,
				l->process_name,
				l->thread_name,
				l->process_labels,
				(uint64_t)l->process_sort,
				(uint64_t)l->thread_sort,
				l->has_process_sort,
				l->has_thread_sort,
				(uint64_t)l->group,
				l->group_guessed,
				(uint64_t)(int64_t)l->stream,
				l->n_events,
				(uint64_t)l->first_ts,
				(uint64_t)l->last_end,
				(uint64_t)(int64_t)l->depth_max,
				l->depth != NULL,
				l->block_end != NULL};
		tix_w_arr(w, f, sizeof f);
		tix_w_arr(w, l->events, l->n_events * sizeof *l->events);
		if (l->depth)
			tix_w_arr(w, l->depth, l->n_events);
		if (l->block_end)
			tix_w_arr(w, l->block_end, (l->n_events + LANE_BLOCK - 1) / LANE_BLOCK * sizeof *l->block_end);
	}

	tix_w_arr(w, rs->ctr_ts, rs->n_ctr * sizeof *rs->ctr_ts);
	tix_w_arr(w, rs->ctr_value, rs->n_ctr * sizeof *rs->ctr_value);
	tix_w_arr(w, rs->ctr_track, rs->n_ctr * sizeof *rs->ctr_track);
	tix_w_arr(w, rs->ctr_off, rs->n_ctr * sizeof *rs->ctr_off);
	for (size_t i = 0; i < rs->n_tracks; i++) {
		const struct counter_track *t = &rs->tracks[i];
		uint64_t f[] = {t->pid_text, t->name, t->process_name, t->value_key, t->n_samples};
		tix_w_arr(w, f, sizeof f);
		tix_w_arr(w, t->samples, t->n_samples * sizeof *t->samples);
	}
	if (rs->flows)
		tix_w_arr(w, rs->flows, rs->n_flows * sizeof *rs->flows);
	tix_w_arr(w, rs->links, rs->n_links * sizeof *rs->links);

	tix_w_path(w, tf->path, paths, n);
	for (size_t i = 0; i < tf->n_parts; i++) {
		tix_w_path(w, tf->parts[i].path, paths, n);
		tix_w_u64(w, tf->parts[i].base);
		tix_w_u64(w, tf->parts[i].size);
		tix_w_u64(w, tf->parts[i].truncated);
	}

	tix_w_diags(w, paths, n, dl, diag0, dropped0);
}

/* The header's scalars as the loader makes them (read_payload has set rs from head): flags
 * 0 or 1, counts within what they count, the window over times a trace can hold (a start
 * within NUM_TIME_MAX_NS, an end a duration later), empty when there are no events,
 * times in seconds finite. Whether the window is the events' own is store_sane's. */
static bool header_sane(const struct rank_store *rs, const uint64_t *head)
{
	const struct trace_file *tf = &rs->trace;
	for (int f = 0; f < 4; f++)
		if ((f == 0 ? head[2] : f == 1 ? head[10] : f == 2 ? head[15] : head[20]) > 1)
			return false;
	if (rs->has_events != (rs->n_ev > 0) || rs->n_long_durs > rs->n_ev || rs->unmatched_flows > rs->n_flows ||
	    head[18] > 1 || tf->parsed_bytes > tf->size || tf->cut_offset < -1 || (tf->cut_offset >= 0 && (uint64_t)tf->cut_offset > tf->size) ||
	    tf->threads_used < 0 || tf->threads_used > 4096 || tf->rewalked_ranges < 0)
		return false;
	if (!rs->n_ev)
		return rs->window_start == 0 && rs->window_end == 0;
	const int64_t lim = NUM_TIME_MAX_NS;
	if (rs->window_start < -lim || rs->window_start > lim || rs->window_end < rs->window_start ||
	    rs->window_end > 2 * lim)
		return false;
	double secs[4] = {tf->load_seconds, tf->walk_seconds, tf->merge_seconds, tf->finish_seconds};
	for (int i = 0; i < 4; i++)
		if (!(secs[i] >= 0 && secs[i] < 1e9))
			return false;
	return true;
}

/* The lanes' records, each with its columns. */
static bool read_lanes(struct rank_store *rs, struct tix_reader *r, size_t n_lanes)
{
	rs->lanes = xcalloc(n_lanes ? n_lanes : 1, sizeof *rs->lanes);
	rs->n_lanes = n_lanes;
	for (size_t i = 0; i < n_lanes; i++) {
		const uint64_t *f = tix_r_arr(r, 18, 8);
		if (!f)
			return false;
		struct lane *l = &rs->lanes[i];
		l->pid_text = (uint32_t)f[0];
		l->tid_text = (uint32_t)f[1];
		l->process_name = (uint32_t)f[2];
		l->thread_name = (uint32_t)f[3];
		l->process_labels = (uint32_t)f[4];
		l->process_sort = (int64_t)f[5];
		l->thread_sort = (int64_t)f[6];
		l->has_process_sort = f[7];
		l->has_thread_sort = f[8];
		if (f[9] >= LANE_GROUP_COUNT)
			return false;
		l->group = (enum lane_group)f[9];
		l->group_guessed = f[10];
		l->stream = (int)(int64_t)f[11];
		l->n_events = (uint32_t)f[12];
		l->first_ts = (int64_t)f[13];
		l->last_end = (int64_t)f[14];
		l->depth_max = (int)(int64_t)f[15];
		l->events = (uint32_t *)tix_r_col(r, l->n_events, 4);
		if (f[16])
			l->depth = (uint8_t *)tix_r_col(r, l->n_events, 1);
		if (f[17])
			l->block_end = (int64_t *)tix_r_col(r, (l->n_events + LANE_BLOCK - 1) / LANE_BLOCK, 8);
		if (r->bad)
			return false;
	}
	return true;
}

/* The counters' columns, then the tracks' records. */
static bool read_counters(struct rank_store *rs, struct tix_reader *r, size_t n_tracks)
{
	rs->ctr_ts = (int64_t *)tix_r_col(r, rs->n_ctr, 8);
	rs->ctr_value = (double *)tix_r_col(r, rs->n_ctr, 8);
	rs->ctr_track = (uint32_t *)tix_r_col(r, rs->n_ctr, 4);
	rs->ctr_off = (uint64_t *)tix_r_col(r, rs->n_ctr, 8);
	if (r->bad)
		return false;
	rs->tracks = xcalloc(n_tracks ? n_tracks : 1, sizeof *rs->tracks);
	rs->n_tracks = n_tracks;
	for (size_t i = 0; i < n_tracks; i++) {
		const uint64_t *f = tix_r_arr(r, 5, 8);
		if (!f)
			return false;
		struct counter_track *t = &rs->tracks[i];
		t->pid_text = (uint32_t)f[0];
		t->name = (uint32_t)f[1];
		t->process_name = (uint32_t)f[2];
		t->value_key = (uint32_t)f[3];
		t->n_samples = (uint32_t)f[4];
		t->samples = (uint32_t *)tix_r_col(r, t->n_samples, 4);
	}
	return !r->bad;
}

/* Builds rs from a verified payload; the columns point into the mapping; the loader's
 * messages go to dl. False when the payload does not hold together (the index is then
 * rebuilt). */
static bool read_payload(struct rank_store *rs, struct tix_reader *r, const char *const *paths, size_t n,
			 struct diag_list *dl)
{
	const uint64_t *head = tix_r_arr(r, 25, 8);
	if (!head)
		return false;
	size_t n_ev = head[0];
	if (n_ev > UINT32_MAX || head[6] > UINT32_MAX || head[8] > UINT32_MAX || head[24] > 4096)
		return false;
	rs->n_ev = n_ev;
	rs->n_ts_far_blocks = head[1];
	bool wide = head[2];
	rs->n_long_durs = head[3];
	rs->n_kinds = head[4];
	rs->n_attrs = head[5];
	size_t n_lanes = head[6];
	rs->n_ctr = head[7];
	size_t n_tracks = head[8];
	rs->n_flows = head[9];
	bool flows = head[10];
	rs->n_links = head[11];
	rs->unmatched_flows = head[12];
	rs->window_start = (int64_t)head[13];
	rs->window_end = (int64_t)head[14];
	rs->has_events = head[15];
	struct trace_file *tf = &rs->trace;
	tf->size = head[16];
	tf->parsed_bytes = head[17];
	tf->truncated = head[18];
	tf->cut_offset = (int64_t)head[19];
	tf->wrapped = head[20];
	tf->threads_used = (int)head[21];
	tf->rewalked_ranges = (int)head[22];
	tf->fast_elements = head[23];
	size_t n_parts = head[24];
	tf->load_seconds = tix_r_f64(r);
	tf->walk_seconds = tix_r_f64(r);
	tf->merge_seconds = tix_r_f64(r);
	tf->finish_seconds = tix_r_f64(r);
	/* the header is input like the rest: a crafted one with valid checksums (a shared
	 * --index-dir) must not put a window of 1 ns around events a year long, or flags
	 * that are no flags, before the views do arithmetic on them */
	if (!header_sane(rs, head))
		return false;
	const struct ph_counts *ph = tix_r_arr(r, 1, sizeof *ph);
	if (!ph)
		return false;
	rs->ph = *ph;

	if (!tix_r_strtab(r, rs->strs))
		return false;

	size_t n_ts_blocks = (n_ev + (1u << STORE_TS_SHIFT) - 1) >> STORE_TS_SHIFT;
	size_t n_off_blocks = (n_ev + (1u << STORE_OFF_SHIFT) - 1) >> STORE_OFF_SHIFT;
	if (rs->n_ts_far_blocks > n_ts_blocks)
		return false;
	rs->ev_ts_lo = (uint32_t *)tix_r_col(r, n_ev, 4);
	rs->ev_ts_base = (int64_t *)tix_r_arr(r, n_ts_blocks, 8);
	rs->ev_ts_far = (int64_t *)tix_r_col(r, rs->n_ts_far_blocks << STORE_TS_SHIFT, 8);
	if (!rs->n_ts_far_blocks)
		rs->ev_ts_far = NULL;
	rs->ev_name = (uint32_t *)tix_r_col(r, n_ev, 4);
	rs->ev_kind = (uint32_t *)tix_r_col(r, n_ev, 4);
	rs->ev_dur = (uint32_t *)tix_r_col(r, n_ev, 4);
	if (wide) {
		rs->ev_off_wide = (uint64_t *)tix_r_col(r, n_ev, 8);
	} else {
		rs->ev_off_lo = (uint32_t *)tix_r_col(r, n_ev, 4);
		rs->ev_off_block = (uint64_t *)tix_r_arr(r, n_off_blocks, 8);
	}
	rs->long_durs = (struct long_dur *)tix_r_arr(r, rs->n_long_durs, sizeof *rs->long_durs);
	rs->kinds = (struct ev_kind *)tix_r_arr(r, rs->n_kinds, sizeof *rs->kinds);
	rs->attrs = (struct ev_attr *)tix_r_arr(r, rs->n_attrs, sizeof *rs->attrs);
	if (r->bad)
		return false;
	/* each block's least start (read and verified even when the columns wait) lies in the
	 * window: a window narrower than the events is caught here too, before --summary
	 * prints it (the exact check, over every event, is store_sane's) */
	for (size_t b = 0; b < n_ts_blocks; b++)
		if (rs->ev_ts_base[b] != STORE_TS_FAR &&
		    (rs->ev_ts_base[b] < rs->window_start || rs->ev_ts_base[b] > rs->window_end))
			return false;

	if (!read_lanes(rs, r, n_lanes) || !read_counters(rs, r, n_tracks))
		return false;
	if (flows)
		rs->flows = (struct flow *)tix_r_col(r, rs->n_flows, sizeof *rs->flows);
	rs->links = (struct flow_link *)tix_r_col(r, rs->n_links, sizeof *rs->links);
	if (r->bad)
		return false;

	tf->path = tix_r_path(r, paths, n);
	tf->parts = xcalloc(n_parts ? n_parts : 1, sizeof *tf->parts);
	for (size_t i = 0; i < n_parts && !r->bad; i++) {
		struct trace_part *p = &tf->parts[i];
		p->path = tix_r_path(r, paths, n);
		tf->n_parts = i + 1;
		p->base = tix_r_u64(r);
		p->size = tix_r_u64(r);
		p->truncated = tix_r_u64(r);
	}

	return tix_r_diags(r, paths, n, dl);
}

/* Every index the store holds points inside what it indexes: the checksum finds a damaged
 * file, this keeps a well-formed but wrong one (another program's, a hand-made one) from
 * sending the views out of bounds. */
static bool store_sane(const struct rank_store *rs)
{
	uint32_t n_str = strtab_count(rs->strs);
	if (!tix_all_below(rs->ev_name, rs->n_ev, n_str) || !tix_all_below(rs->ev_kind, rs->n_ev, rs->n_kinds) ||
	    !tix_all_below(rs->ctr_track, rs->n_ctr, rs->n_tracks))
		return false;
	for (size_t i = 0; i < rs->n_kinds; i++)
		if (rs->kinds[i].lane >= rs->n_lanes || rs->kinds[i].attr >= rs->n_attrs)
			return false;
	for (size_t i = 0; i < rs->n_attrs; i++)
		if (rs->attrs[i].cat >= n_str || rs->attrs[i].task_type >= n_str)
			return false;
	for (size_t i = 0; i < rs->n_long_durs; i++)
		if (rs->long_durs[i].ev >= rs->n_ev)
			return false;
	for (size_t b = 0; b << STORE_TS_SHIFT < rs->n_ev; b++)
		if (rs->ev_ts_base[b] == STORE_TS_FAR && rs->ev_ts_lo[b << STORE_TS_SHIFT] >= rs->n_ts_far_blocks)
			return false;
	for (size_t i = 0; i < rs->n_lanes; i++) {
		const struct lane *l = &rs->lanes[i];
		if (!tix_all_below(l->events, l->n_events, rs->n_ev) || l->pid_text >= n_str || l->tid_text >= n_str ||
		    l->process_name >= n_str || l->thread_name >= n_str || l->process_labels >= n_str ||
		    (l->n_events && (!l->depth || !l->block_end)))
			return false;
	}
	for (size_t i = 0; i < rs->n_tracks; i++) {
		const struct counter_track *t = &rs->tracks[i];
		if (!tix_all_below(t->samples, t->n_samples, rs->n_ctr) || t->pid_text >= n_str || t->name >= n_str ||
		    t->process_name >= n_str || t->value_key >= n_str)
			return false;
	}
	for (size_t i = 0; i < rs->n_links; i++)
		if (rs->links[i].from_ev >= rs->n_ev || rs->links[i].to_ev >= rs->n_ev)
			return false;
	/* the window is the events' own, as build_window makes it (the views place events
	 * by it: a narrower one sent their arithmetic out of range) */
	const int64_t lim = NUM_TIME_MAX_NS;
	for (size_t b = 0; b << STORE_TS_SHIFT < rs->n_ev; b++)
		if (rs->ev_ts_base[b] != STORE_TS_FAR && (rs->ev_ts_base[b] < -lim || rs->ev_ts_base[b] > lim))
			return false;
	for (size_t i = 0; i < rs->n_ts_far_blocks << STORE_TS_SHIFT; i++)
		if (rs->ev_ts_far[i] < -lim || rs->ev_ts_far[i] > lim)
			return false;
	for (size_t i = 0; i < rs->n_long_durs; i++)
		if (rs->long_durs[i].dur < 0 || rs->long_durs[i].dur > lim)
			return false;
	int64_t lo = 0, hi = 0;
	for (size_t e = 0; e < rs->n_ev; e++) {
		int64_t ts = store_ts(rs, e), end = ts + store_dur(rs, e); /* each within lim: no overflow */
		if (e == 0 || ts < lo)
			lo = ts;
		if (e == 0 || end > hi)
			hi = end;
	}
	return lo == rs->window_start && hi == rs->window_end;
}

static bool read_trace(struct tix_reader *r, void *map, size_t len, void *ctx, struct diag_list *dl)
{
	struct trace_ctx *c = ctx;
	struct rank_store tmp;
	store_init(&tmp);
	tmp.map = map;
	tmp.map_len = len;
	if (read_payload(&tmp, r, c->paths, c->n, dl) && (r->lazy || store_sane(&tmp))) {
		store_free(c->rs);
		*c->rs = tmp;
		return true;
	}
	store_free(&tmp); /* unmaps */
	return false;
}

static int load_trace(void *ctx, struct diag_list *dl, struct sbuf *why)
{
	struct trace_ctx *c = ctx;
	c->ret = trace_load_parts(c->rs, c->paths, c->n, c->topts, dl);
	if (c->ret != 0) {
		sbuf_addf(why, "the trace could not be read");
		return -1;
	}
	if (c->rs->trace.n_parts != c->n) {
		/* a part refused (--max-trace-bytes) or unreadable: the index would keep the rest
		 * under a key that does not say so */
		sbuf_addf(why, "a part of the trace was not read");
		return -1;
	}
	return 0;
}

/* A deferred write keeps the store (the caller's, alive until the writes have run) and its
 * own copies of the paths. */
static void *keep_trace(void *ctx, const char *const *paths, size_t n)
{
	const struct trace_ctx *c = ctx;
	struct trace_ctx *kept = xmalloc(sizeof *kept);
	*kept = (struct trace_ctx){.rs = c->rs, .paths = paths, .n = n};
	return kept;
}

static void say_trace(struct diag_list *dl, const char *file, const char *index, const char *why)
{
	if (index)
		diag_add(dl, DIAG_WARN, file, 0, -1, _("the trace's index %s was not written: %s"), index, why);
	else
		diag_add(dl, DIAG_INFO, file, 0, -1, _("%s; the trace is read again and the index rebuilt"), why);
}

static const struct tix_kind trace_kind = {
	.name = "trace", .what = "trace", .limit = "--max-trace-bytes", .deferrable = true,
	.say = say_trace,
	.load = load_trace, .write = write_trace, .read = read_trace, .keep = keep_trace, .drop = free};

int tindex_verify_trace(struct rank_store *rs, const char *const *paths, size_t n,
			const struct trace_load_opts *topts, const struct tindex_opts *io,
			struct tindex_status *st, struct diag_list *dl)
{
	if (!st->pending)
		return 0;
	st->pending = false;
	size_t n_chunks = (st->lazy_len + TIX_CHUNK - 1) >> TIX_CHUNK_LOG2;
	bool sums = true;
	for (size_t c = 0; c < n_chunks && sums; c++)
		sums = tix_chunk_ok(st->lazy_payload, st->lazy_len, st->lazy_table, c);
	if (sums && store_sane(rs))
		return 0;
	char *dir = tindex_dir(io);
	struct sbuf key = SBUF_INIT, name = SBUF_INIT;
	char *path = dir && tix_make_key(trace_kind.name, paths, n, &key, &name) ? tix_index_path(dir, &name) : NULL;
	if (sums)
		snprintf(st->why, sizeof st->why, "the index %s does not hold together", path ? path : "?");
	else
		snprintf(st->why, sizeof st->why, "the index %s fails its checksum", path ? path : "?");
	diag_add(dl, DIAG_INFO, paths[0], 0, -1, _("%s; the trace is read again and the index rebuilt"), st->why);
	if (path)
		unlink(path);
	free(path);
	free(dir);
	sbuf_free(&key);
	sbuf_free(&name);
	store_free(rs);
	store_init(rs);
	struct tindex_opts eager = *io;
	eager.lazy = false;
	int r = tindex_load_trace(rs, paths, n, topts, &eager, st, dl);
	if (st->state == TINDEX_WRITTEN)
		st->state = TINDEX_REBUILT;
	return r;
}

int tindex_load_trace(struct rank_store *rs, const char *const *paths, size_t n,
		      const struct trace_load_opts *topts, const struct tindex_opts *io,
		      struct tindex_status *st, struct diag_list *dl)
{
	struct trace_ctx c = {.rs = rs, .paths = paths, .n = n, .topts = topts};
	if (tix_load(&trace_kind, &c, paths, n, topts ? topts->max_file_bytes : 0, io, st, dl) == 0)
		return 0;
	return c.ret; /* what trace_load_parts gave (0 with a part not read) */
}
