/* SPDX-License-Identifier: MIT */
/* The persistent trace index: see trace_index.h. The file is a header, the key (text), the
 * payload, then the payload's chunk table (an XXH3 per 64 KiB). The payload is 8-byte
 * aligned sections in a fixed order, per kind of index (a trace's store, a CSV table, a
 * blob), the columns laid out exactly as the store or the table holds them so that they
 * are used in place from the mapping. */
#include "trace_index.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "config.h"
#include "i18n.h"
#include "num.h"
#include "xalloc.h"

static char *files_dir(const char *const *paths, size_t n);

/* Raise on any change of the layout below or of what the loader puts in a store. */
#define TINDEX_FORMAT 4 /* 4: the kernel table keeps Step Id */
#define TINDEX_MAGIC "ASCPIDX"
#define TINDEX_ENDIAN 0x01020304u

struct tix_header {
	char magic[8];
	uint32_t format, endian;
	uint64_t key_len;
	uint64_t payload_off, payload_len;
	uint64_t table_hash;  /* over the chunk table, which follows the payload (8-aligned) */
	uint64_t header_hash; /* over the fields above and the key */
};

/* The payload is checked in chunks of this size, each with its XXH3 in the table after
 * it: a reader verifies what it reads as it reads it, and may leave the event columns
 * (most of the bytes) until they are first needed (tindex_opts.lazy). */
#define TIX_CHUNK_LOG2 16
#define TIX_CHUNK ((size_t)1 << TIX_CHUNK_LOG2)

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *tindex_state_name(enum tindex_state s)
{
	switch (s) {
	case TINDEX_OFF: return "off";
	case TINDEX_USED: return "used";
	case TINDEX_WRITTEN: return "written";
	case TINDEX_REBUILT: return "rebuilt";
	case TINDEX_NOT_WRITTEN: return "not written";
	}
	return "?";
}

char *tindex_dir(const struct tindex_opts *io)
{
	if (io->dir && *io->dir)
		return xstrdup(io->dir);
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char buf[4096];
	if (xdg && *xdg == '/') /* the spec says a relative one is ignored */
		snprintf(buf, sizeof buf, "%s/ascprof-tui", xdg);
	else if (home && *home)
		snprintf(buf, sizeof buf, "%s/.cache/ascprof-tui", home);
	else
		return NULL;
	return xstrdup(buf);
}

/* mkdir -p, the last levels private. */
static int make_dirs(const char *dir)
{
	char *p = xstrdup(dir);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0700) && errno != EEXIST) {
				free(p);
				return -1;
			}
			*s = '/';
		}
	int r = mkdir(p, 0700) && errno != EEXIST ? -1 : 0;
	/* something else by that name (a regular file): not a directory, said as such rather
	 * than the "Permission denied" writing into it gave */
	struct stat sb;
	if (!r && (stat(p, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
		errno = ENOTDIR;
		r = -1;
	}
	free(p);
	return r;
}

/* ---- key ---------------------------------------------------------------------------- */

/* The program's identity (a rebuilt binary may read traces differently), the messages'
 * language and each trace file's: the name from the identities alone, so a changed trace
 * replaces its index. */
static bool make_key(const char *kind, const char *const *paths, size_t n, struct sbuf *key, struct sbuf *name)
{
	struct stat st;
	sbuf_reset(key);
	sbuf_reset(name);
	sbuf_addf(key, "ascprof-tui %s index %d\n", PACKAGE_VERSION, TINDEX_FORMAT);
	sbuf_addf(name, "%s\n", kind); /* a trace's index and a table's never share a name */
	if (stat("/proc/self/exe", &st) == 0)
		sbuf_addf(name, "exe %ju %ju %jd %jd.%09ld\n", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
			    (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	/* the index keeps the loaders' messages in the language of the run that wrote it: one
	 * index per language, so a JSON run (always English) never shows a Chinese message */
	sbuf_addf(name, "messages %s\n", i18n_language());
	for (size_t i = 0; i < n; i++) {
		if (stat(paths[i], &st) != 0 || !S_ISREG(st.st_mode))
			return false;
		sbuf_addf(name, "part %zu %ju %ju\n", i, (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
		sbuf_addf(key, "part %zu size %jd mtime %jd.%09ld ctime %jd.%09ld\n", i, (intmax_t)st.st_size,
			    (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (intmax_t)st.st_ctim.tv_sec,
			    st.st_ctim.tv_nsec);
	}
	sbuf_add(key, name->buf, name->len);
	return true;
}

/* A file system that keeps whole seconds (no nanoseconds in either time) cannot tell an
 * edit in the same second as the read from the state the index was made of: such a trace
 * gets an index only once its times are this many seconds old. */
#define TINDEX_COARSE_WAIT 2

static bool coarse_and_recent(const char *const *paths, size_t n)
{
	time_t now = time(NULL);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (stat(paths[i], &st) != 0)
			return true;
		bool coarse = st.st_mtim.tv_nsec == 0 && st.st_ctim.tv_nsec == 0;
		time_t latest = st.st_mtim.tv_sec > st.st_ctim.tv_sec ? st.st_mtim.tv_sec : st.st_ctim.tv_sec;
		if (coarse && now - latest < TINDEX_COARSE_WAIT)
			return true;
	}
	return false;
}

/* ---- writing ------------------------------------------------------------------------ */

struct tix_writer {
	FILE *f;
	uint64_t pos; /* payload bytes so far */
	XXH3_state_t *hash; /* of the current chunk */
	uint64_t *chunks;   /* the finished chunks' hashes */
	size_t n_chunks, cap_chunks;
	bool failed;
	const _Atomic bool *abandon; /* set: stop at the next chunk (a deferred write given up) */
	bool abandoned;
};

static void w_chunk_end(struct tix_writer *w)
{
	if (w->abandon && atomic_load_explicit(w->abandon, memory_order_relaxed))
		w->failed = w->abandoned = true;
	xgrow(&w->chunks, &w->cap_chunks, w->n_chunks + 1, sizeof *w->chunks);
	w->chunks[w->n_chunks++] = XXH3_64bits_digest(w->hash);
	XXH3_64bits_reset(w->hash);
}

static void w_raw(struct tix_writer *w, const void *p, size_t len)
{
	if (!len || w->failed)
		return;
	if (fwrite(p, 1, len, w->f) != len)
		w->failed = true;
	const char *c = p;
	while (len) {
		size_t room = TIX_CHUNK - (size_t)(w->pos & (TIX_CHUNK - 1)), k = len < room ? len : room;
		XXH3_64bits_update(w->hash, c, k);
		w->pos += k;
		c += k;
		len -= k;
		if (!(w->pos & (TIX_CHUNK - 1)))
			w_chunk_end(w);
	}
}

static void w_align(struct tix_writer *w)
{
	static const char zero[8];
	if (w->pos & 7)
		w_raw(w, zero, 8 - (w->pos & 7));
}

/* An array: aligned, so the reader can use it in place. */
static void w_arr(struct tix_writer *w, const void *p, size_t len)
{
	w_align(w);
	w_raw(w, p, len);
}

static void w_u64(struct tix_writer *w, uint64_t v)
{
	w_arr(w, &v, sizeof v);
}

static void w_f64(struct tix_writer *w, double d)
{
	uint64_t v;
	memcpy(&v, &d, sizeof v);
	w_u64(w, v);
}

static void w_str(struct tix_writer *w, const char *s, size_t len)
{
	w_u64(w, len);
	w_arr(w, s, len);
}

#define TIX_PATH_NONE UINT64_MAX
#define TIX_PATH_TEXT (UINT64_MAX - 1)

/* A path as the index of the trace part it names (so a reopen under another spelling of
 * the capture's path shows that spelling), else its text. */
static void w_path(struct tix_writer *w, const char *path, const char *const *paths, size_t n)
{
	if (!path) {
		w_u64(w, TIX_PATH_NONE);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(path, paths[i])) {
			w_u64(w, i);
			return;
		}
	w_u64(w, TIX_PATH_TEXT);
	w_str(w, path, strlen(path));
}

/* Strings: offsets, then the bytes (each NUL-terminated); ids are dense from 0. */
static void w_strtab(struct tix_writer *w, const struct strtab *strs)
{
	uint32_t n_str = strtab_count(strs);
	w_u64(w, n_str);
	uint64_t off = 0;
	w_align(w);
	for (uint32_t i = 0; i < n_str; i++) {
		w_raw(w, &off, sizeof off);
		off += strtab_len(strs, i) + 1;
	}
	w_raw(w, &off, sizeof off);
	w_align(w);
	for (uint32_t i = 0; i < n_str; i++)
		w_raw(w, strtab_str(strs, i), strtab_len(strs, i) + 1);
}

/* The loader's messages since diag0 (given again on reopen, in their place). */
static void w_diags(struct tix_writer *w, const char *const *paths, size_t n, const struct diag_list *dl,
		    size_t diag0, size_t dropped0)
{
	w_u64(w, dl->n - diag0);
	w_u64(w, dl->dropped - dropped0);
	for (size_t i = diag0; i < dl->n; i++) {
		const struct diag *d = &dl->items[i];
		w_u64(w, (uint64_t)d->level);
		w_path(w, d->file, paths, n);
		w_u64(w, (uint64_t)d->line);
		w_u64(w, (uint64_t)d->offset);
		w_str(w, d->msg, strlen(d->msg));
	}
}

struct tix_reader;
struct defer_job;

/* What an index is of: loading it afresh, writing its payload, reading it back. */
struct tix_kind {
	const char *name;  /* in the index's name: "trace", "csv" */
	const char *what;  /* in messages: "trace", "table" */
	const char *limit; /* the option that limits a file's size */
	bool table;        /* a CSV table (messages say so), else a trace */
	bool deferrable;   /* its columns may be verified later (tindex_verify_trace) */
	/* reads the inputs afresh; 0 when what was read may be indexed */
	int (*load)(void *ctx, struct diag_list *dl, char *why, size_t size);
	void (*write)(struct tix_writer *w, void *ctx, const struct diag_list *dl, size_t diag0, size_t dropped0);
	/* builds the result from a verified payload (and takes the mapping) or returns false */
	bool (*read)(struct tix_reader *r, void *map, size_t len, void *ctx, struct diag_list *dl);
	/* what a deferred write needs of ctx, kept in the job (a blob's bytes are taken) */
	void (*keep)(struct defer_job *j, void *ctx);
};

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
	w_arr(w, head, sizeof head);
	w_f64(w, tf->load_seconds);
	w_f64(w, tf->walk_seconds);
	w_f64(w, tf->merge_seconds);
	w_f64(w, tf->finish_seconds);
	w_arr(w, &rs->ph, sizeof rs->ph);

	w_strtab(w, rs->strs);

	/* starts: a far block's ev_ts_lo holds only its first entry (the rest were never set) */
	w_align(w);
	for (size_t b = 0; b < n_ts_blocks; b++) {
		uint32_t blk[1u << STORE_TS_SHIFT];
		size_t first = b << STORE_TS_SHIFT, cnt = n_ev - first < sizeof blk / sizeof *blk
								  ? n_ev - first
								  : sizeof blk / sizeof *blk;
		memcpy(blk, rs->ev_ts_lo + first, cnt * sizeof *blk);
		if (rs->ev_ts_base[b] == STORE_TS_FAR)
			memset(blk + 1, 0, (cnt - 1) * sizeof *blk);
		w_raw(w, blk, cnt * sizeof *blk);
	}
	w_arr(w, rs->ev_ts_base, n_ts_blocks * sizeof *rs->ev_ts_base);
	w_arr(w, rs->ev_ts_far, rs->n_ts_far_blocks * ((size_t)1 << STORE_TS_SHIFT) * sizeof *rs->ev_ts_far);
	w_arr(w, rs->ev_name, n_ev * sizeof *rs->ev_name);
	w_arr(w, rs->ev_kind, n_ev * sizeof *rs->ev_kind);
	w_arr(w, rs->ev_dur, n_ev * sizeof *rs->ev_dur);
	if (rs->ev_off_wide) {
		w_arr(w, rs->ev_off_wide, n_ev * sizeof *rs->ev_off_wide);
	} else {
		w_arr(w, rs->ev_off_lo, n_ev * sizeof *rs->ev_off_lo);
		w_arr(w, rs->ev_off_block, n_off_blocks * sizeof *rs->ev_off_block);
	}
	w_align(w);
	for (size_t i = 0; i < rs->n_long_durs; i++) {
		struct long_dur ld;
		memset(&ld, 0, sizeof ld); /* no padding bytes of the heap in the file */
		ld.ev = rs->long_durs[i].ev;
		ld.dur = rs->long_durs[i].dur;
		w_raw(w, &ld, sizeof ld);
	}
	w_arr(w, rs->kinds, rs->n_kinds * sizeof *rs->kinds);
	w_arr(w, rs->attrs, rs->n_attrs * sizeof *rs->attrs);

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
		w_arr(w, f, sizeof f);
		w_arr(w, l->events, l->n_events * sizeof *l->events);
		if (l->depth)
			w_arr(w, l->depth, l->n_events);
		if (l->block_end)
			w_arr(w, l->block_end, (l->n_events + LANE_BLOCK - 1) / LANE_BLOCK * sizeof *l->block_end);
	}

	w_arr(w, rs->ctr_ts, rs->n_ctr * sizeof *rs->ctr_ts);
	w_arr(w, rs->ctr_value, rs->n_ctr * sizeof *rs->ctr_value);
	w_arr(w, rs->ctr_track, rs->n_ctr * sizeof *rs->ctr_track);
	w_arr(w, rs->ctr_off, rs->n_ctr * sizeof *rs->ctr_off);
	for (size_t i = 0; i < rs->n_tracks; i++) {
		const struct counter_track *t = &rs->tracks[i];
		uint64_t f[] = {t->pid_text, t->name, t->process_name, t->value_key, t->n_samples};
		w_arr(w, f, sizeof f);
		w_arr(w, t->samples, t->n_samples * sizeof *t->samples);
	}
	if (rs->flows)
		w_arr(w, rs->flows, rs->n_flows * sizeof *rs->flows);
	w_arr(w, rs->links, rs->n_links * sizeof *rs->links);

	w_path(w, tf->path, paths, n);
	for (size_t i = 0; i < tf->n_parts; i++) {
		w_path(w, tf->parts[i].path, paths, n);
		w_u64(w, tf->parts[i].base);
		w_u64(w, tf->parts[i].size);
		w_u64(w, tf->parts[i].truncated);
	}

	w_diags(w, paths, n, dl, diag0, dropped0);
}

static uint64_t header_hash(const struct tix_header *h, const char *key)
{
	XXH3_state_t *s = XXH3_createState();
	XXH3_64bits_reset(s);
	XXH3_64bits_update(s, h, offsetof(struct tix_header, header_hash));
	XXH3_64bits_update(s, key, h->key_len);
	uint64_t v = XXH3_64bits_digest(s);
	XXH3_freeState(s);
	return v;
}

#define TINDEX_TMP_AGE (24 * 3600)

/* Removes the least recently used indexes (by mtime, which a reopen refreshes) until the
 * directory holds at most max bytes; `keep` (the one just written) stays. Temporary files
 * of writers that died are removed too. */
static void evict(const char *dir, const char *keep, uint64_t max)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct ent {
		char *path;
		uint64_t size;
		struct timespec mtime;
	} *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	struct dirent *de;
	time_t now = time(NULL);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		bool tmp = !strncmp(de->d_name, ".tmp-", 5);
		if (!tmp && (len < 5 || strcmp(de->d_name + len - 4, ".idx")))
			continue;
		char *p = xmalloc(strlen(dir) + len + 2);
		sprintf(p, "%s/%s", dir, de->d_name);
		struct stat st;
		if (stat(p, &st) != 0 || !S_ISREG(st.st_mode) || tmp) {
			/* a temporary file a day old was left by a writer that died */
			if (tmp && st.st_mtim.tv_sec < now - TINDEX_TMP_AGE)
				unlink(p);
			free(p);
			continue;
		}
		xgrow(&v, &cap, n + 1, sizeof *v);
		v[n++] = (struct ent){p, (uint64_t)st.st_size, st.st_mtim};
		total += (uint64_t)st.st_size;
	}
	closedir(d);
	while (total > max) {
		size_t old = n;
		for (size_t i = 0; i < n; i++) {
			if (!v[i].path || !strcmp(v[i].path, keep))
				continue;
			if (old == n || v[i].mtime.tv_sec < v[old].mtime.tv_sec ||
			    (v[i].mtime.tv_sec == v[old].mtime.tv_sec && v[i].mtime.tv_nsec < v[old].mtime.tv_nsec))
				old = i;
		}
		if (old == n)
			break;
		unlink(v[old].path);
		total -= v[old].size;
		free(v[old].path);
		v[old].path = NULL;
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

/* The bound: the option, else ASCPROF_INDEX_MAX_BYTES (tests), else the default. */
static uint64_t max_bytes(const struct tindex_opts *io)
{
	const char *env = getenv("ASCPROF_INDEX_MAX_BYTES");
	if (io->max_bytes)
		return io->max_bytes;
	if (env && *env)
		return strtoull(env, NULL, 10);
	return TINDEX_DEFAULT_MAX_BYTES;
}

/* Writes the index to a temporary name in dir and renames it over path. 0, or -1 with why
 * (abandon set meanwhile: -1, why empty). */
static int write_index(const char *dir, const char *path, const struct sbuf *key, const struct tix_kind *k,
		       void *ctx, const struct diag_list *dl, size_t diag0, size_t dropped0, struct tindex_status *st,
		       const _Atomic bool *abandon)
{
	char *tmp = xmalloc(strlen(dir) + 32);
	sprintf(tmp, "%s/.tmp-XXXXXX", dir);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(st->why, sizeof st->why, "cannot write in %s: %s", dir, strerror(errno));
		free(tmp);
		return -1;
	}
	struct tix_header h;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, TINDEX_MAGIC, sizeof TINDEX_MAGIC);
	h.format = TINDEX_FORMAT;
	h.endian = TINDEX_ENDIAN;
	h.key_len = key->len;
	h.payload_off = (sizeof h + key->len + 7) & ~(uint64_t)7;
	FILE *f = fdopen(fd, "wb");
	struct tix_writer w = {.f = f, .hash = XXH3_createState(), .abandon = abandon};
	XXH3_64bits_reset(w.hash);
	if (!f) {
		close(fd);
		w.failed = true;
	} else {
		static const char zero[8];
		w.failed = fwrite(&h, sizeof h, 1, f) != 1 || fwrite(key->buf, 1, key->len, f) != key->len ||
			   fwrite(zero, 1, h.payload_off - sizeof h - key->len, f) != h.payload_off - sizeof h - key->len;
		k->write(&w, ctx, dl, diag0, dropped0);
		h.payload_len = w.pos;
		if (w.pos & (TIX_CHUNK - 1))
			w_chunk_end(&w);
		/* the chunk table, 8-aligned after the payload */
		if (fwrite(zero, 1, (8 - (w.pos & 7)) & 7, f) != ((8 - (w.pos & 7)) & 7) ||
		    (w.n_chunks && fwrite(w.chunks, sizeof *w.chunks, w.n_chunks, f) != w.n_chunks))
			w.failed = true;
		h.table_hash = XXH3_64bits(w.chunks, w.n_chunks * sizeof *w.chunks);
		h.header_hash = header_hash(&h, key->buf);
		if (fflush(f) || fseek(f, 0, SEEK_SET) || fwrite(&h, sizeof h, 1, f) != 1)
			w.failed = true;
		if (fclose(f))
			w.failed = true;
	}
	XXH3_freeState(w.hash);
	size_t table_bytes = w.n_chunks * sizeof *w.chunks;
	free(w.chunks);
	if (w.abandoned) {
		st->why[0] = 0;
		unlink(tmp);
		free(tmp);
		return -1;
	}
	if (w.failed || rename(tmp, path) != 0) {
		snprintf(st->why, sizeof st->why, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	st->bytes = ((h.payload_off + h.payload_len + 7) & ~(uint64_t)7) + table_bytes;
	return 0;
}

/* ---- reading ------------------------------------------------------------------------ */

struct tix_reader {
	const uint8_t *p;
	size_t len, pos;
	bool bad;
	bool corrupt;           /* a chunk failed its checksum (then bad too) */
	bool lazy;              /* columns (r_col) are left unverified */
	const uint64_t *table;  /* the chunks' hashes */
	uint8_t *checked;       /* per chunk: verified already */
};

static bool chunk_ok(const uint8_t *payload, size_t len, const uint64_t *table, size_t c)
{
	size_t at = c << TIX_CHUNK_LOG2, n = len - at < TIX_CHUNK ? len - at : TIX_CHUNK;
	return XXH3_64bits(payload + at, n) == table[c];
}

/* Verifies the chunks under [at, at + n) of the payload not verified yet. */
static void r_verify(struct tix_reader *r, size_t at, size_t n)
{
	if (!n || r->bad)
		return;
	for (size_t c = at >> TIX_CHUNK_LOG2; c <= (at + n - 1) >> TIX_CHUNK_LOG2; c++) {
		if (r->checked[c])
			continue;
		if (!chunk_ok(r->p, r->len, r->table, c)) {
			r->bad = r->corrupt = true;
			return;
		}
		r->checked[c] = 1;
	}
}

/* cnt items of size bytes, aligned, in place, verified; NULL (and bad) past the end. */
static const void *r_take(struct tix_reader *r, uint64_t cnt, size_t size, bool verify)
{
	r->pos = (r->pos + 7) & ~(size_t)7;
	if (r->bad || r->pos > r->len || (size && cnt > (r->len - r->pos) / size)) {
		r->bad = true;
		return NULL;
	}
	const void *p = r->p + r->pos;
	if (verify)
		r_verify(r, r->pos, (size_t)cnt * size);
	r->pos += (size_t)cnt * size;
	return r->bad ? NULL : p;
}

static const void *r_arr(struct tix_reader *r, uint64_t cnt, size_t size) { return r_take(r, cnt, size, true); }

/* An event column, used in place: verified now, or when first needed with a lazy reader
 * (tindex_verify_trace), since a report from the index may never read it. */
static const void *r_col(struct tix_reader *r, uint64_t cnt, size_t size) { return r_take(r, cnt, size, !r->lazy); }

static uint64_t r_u64(struct tix_reader *r)
{
	const void *p = r_arr(r, 1, 8);
	uint64_t v = 0;
	if (p)
		memcpy(&v, p, 8);
	return v;
}

static double r_f64(struct tix_reader *r)
{
	uint64_t v = r_u64(r);
	double d;
	memcpy(&d, &v, sizeof d);
	return d;
}

/* An owned, NUL-terminated copy. */
static char *r_str(struct tix_reader *r)
{
	uint64_t len = r_u64(r);
	const char *s = r_arr(r, len, 1);
	if (!s)
		return NULL;
	char *c = xmalloc(len + 1);
	memcpy(c, s, len);
	c[len] = 0;
	return c;
}

static char *r_path(struct tix_reader *r, const char *const *paths, size_t n)
{
	uint64_t k = r_u64(r);
	if (k == TIX_PATH_NONE)
		return NULL;
	if (k == TIX_PATH_TEXT)
		return r_str(r);
	if (k >= n) {
		r->bad = true;
		return NULL;
	}
	return xstrdup(paths[k]);
}

/* The strings into strs (a new table: only its empty string), with the same ids. */
static bool r_strtab(struct tix_reader *r, struct strtab *strs)
{
	uint64_t n_str = r_u64(r);
	if (n_str == 0 || n_str > UINT32_MAX)
		return false;
	const uint64_t *offs = r_arr(r, n_str + 1, 8);
	const char *bytes = offs ? r_arr(r, offs[n_str], 1) : NULL;
	if (!bytes)
		return false;
	for (uint64_t i = 0; i < n_str; i++) {
		if (offs[i] >= offs[i + 1] || offs[i + 1] > offs[n_str] || bytes[offs[i + 1] - 1])
			return false;
		size_t len = (size_t)(offs[i + 1] - offs[i] - 1);
		if (strtab_intern(strs, bytes + offs[i], len) != i) /* ids are dense, in order */
			return false;
	}
	return true;
}

static bool r_diags(struct tix_reader *r, const char *const *paths, size_t n, struct diag_list *dl)
{
	uint64_t n_diags = r_u64(r), dropped = r_u64(r);
	if (r->bad || n_diags > DIAG_MAX)
		return false;
	for (uint64_t i = 0; i < n_diags && !r->bad; i++) {
		uint64_t level = r_u64(r);
		char *file = r_path(r, paths, n);
		long line = (long)r_u64(r);
		int64_t off = (int64_t)r_u64(r);
		char *msg = r_str(r);
		if (msg && level <= DIAG_ERROR)
			diag_add(dl, (enum diag_level)level, file, line, off, "%s", msg);
		else
			r->bad = true;
		free(file);
		free(msg);
	}
	dl->dropped += (size_t)dropped;
	return !r->bad;
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

/* Builds rs from a verified payload; the columns point into the mapping; the loader's
 * messages go to dl. False when the payload does not hold together (the index is then
 * rebuilt). */
static bool read_payload(struct rank_store *rs, struct tix_reader *r, const char *const *paths, size_t n,
			 struct diag_list *dl)
{
	const uint64_t *head = r_arr(r, 25, 8);
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
	tf->load_seconds = r_f64(r);
	tf->walk_seconds = r_f64(r);
	tf->merge_seconds = r_f64(r);
	tf->finish_seconds = r_f64(r);
	/* the header is input like the rest: a crafted one with valid checksums (a shared
	 * --index-dir) must not put a window of 1 ns around events a year long, or flags
	 * that are no flags, before the views do arithmetic on them */
	if (!header_sane(rs, head))
		return false;
	const struct ph_counts *ph = r_arr(r, 1, sizeof *ph);
	if (!ph)
		return false;
	rs->ph = *ph;

	if (!r_strtab(r, rs->strs))
		return false;

	size_t n_ts_blocks = (n_ev + (1u << STORE_TS_SHIFT) - 1) >> STORE_TS_SHIFT;
	size_t n_off_blocks = (n_ev + (1u << STORE_OFF_SHIFT) - 1) >> STORE_OFF_SHIFT;
	if (rs->n_ts_far_blocks > n_ts_blocks)
		return false;
	rs->ev_ts_lo = (uint32_t *)r_col(r, n_ev, 4);
	rs->ev_ts_base = (int64_t *)r_arr(r, n_ts_blocks, 8);
	rs->ev_ts_far = (int64_t *)r_col(r, rs->n_ts_far_blocks << STORE_TS_SHIFT, 8);
	if (!rs->n_ts_far_blocks)
		rs->ev_ts_far = NULL;
	rs->ev_name = (uint32_t *)r_col(r, n_ev, 4);
	rs->ev_kind = (uint32_t *)r_col(r, n_ev, 4);
	rs->ev_dur = (uint32_t *)r_col(r, n_ev, 4);
	if (wide) {
		rs->ev_off_wide = (uint64_t *)r_col(r, n_ev, 8);
	} else {
		rs->ev_off_lo = (uint32_t *)r_col(r, n_ev, 4);
		rs->ev_off_block = (uint64_t *)r_arr(r, n_off_blocks, 8);
	}
	rs->long_durs = (struct long_dur *)r_arr(r, rs->n_long_durs, sizeof *rs->long_durs);
	rs->kinds = (struct ev_kind *)r_arr(r, rs->n_kinds, sizeof *rs->kinds);
	rs->attrs = (struct ev_attr *)r_arr(r, rs->n_attrs, sizeof *rs->attrs);
	if (r->bad)
		return false;
	/* each block's least start (read and verified even when the columns wait) lies in the
	 * window: a window narrower than the events is caught here too, before --summary
	 * prints it (the exact check, over every event, is store_sane's) */
	for (size_t b = 0; b < n_ts_blocks; b++)
		if (rs->ev_ts_base[b] != STORE_TS_FAR &&
		    (rs->ev_ts_base[b] < rs->window_start || rs->ev_ts_base[b] > rs->window_end))
			return false;

	rs->lanes = xcalloc(n_lanes ? n_lanes : 1, sizeof *rs->lanes);
	rs->n_lanes = n_lanes;
	for (size_t i = 0; i < n_lanes; i++) {
		const uint64_t *f = r_arr(r, 18, 8);
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
		l->events = (uint32_t *)r_col(r, l->n_events, 4);
		if (f[16])
			l->depth = (uint8_t *)r_col(r, l->n_events, 1);
		if (f[17])
			l->block_end = (int64_t *)r_col(r, (l->n_events + LANE_BLOCK - 1) / LANE_BLOCK, 8);
		if (r->bad)
			return false;
	}

	rs->ctr_ts = (int64_t *)r_col(r, rs->n_ctr, 8);
	rs->ctr_value = (double *)r_col(r, rs->n_ctr, 8);
	rs->ctr_track = (uint32_t *)r_col(r, rs->n_ctr, 4);
	rs->ctr_off = (uint64_t *)r_col(r, rs->n_ctr, 8);
	if (r->bad)
		return false;
	rs->tracks = xcalloc(n_tracks ? n_tracks : 1, sizeof *rs->tracks);
	rs->n_tracks = n_tracks;
	for (size_t i = 0; i < n_tracks; i++) {
		const uint64_t *f = r_arr(r, 5, 8);
		if (!f)
			return false;
		struct counter_track *t = &rs->tracks[i];
		t->pid_text = (uint32_t)f[0];
		t->name = (uint32_t)f[1];
		t->process_name = (uint32_t)f[2];
		t->value_key = (uint32_t)f[3];
		t->n_samples = (uint32_t)f[4];
		t->samples = (uint32_t *)r_col(r, t->n_samples, 4);
	}
	if (flows)
		rs->flows = (struct flow *)r_col(r, rs->n_flows, sizeof *rs->flows);
	rs->links = (struct flow_link *)r_col(r, rs->n_links, sizeof *rs->links);
	if (r->bad)
		return false;

	tf->path = r_path(r, paths, n);
	tf->parts = xcalloc(n_parts ? n_parts : 1, sizeof *tf->parts);
	for (size_t i = 0; i < n_parts && !r->bad; i++) {
		struct trace_part *p = &tf->parts[i];
		p->path = r_path(r, paths, n);
		tf->n_parts = i + 1;
		p->base = r_u64(r);
		p->size = r_u64(r);
		p->truncated = r_u64(r);
	}

	return r_diags(r, paths, n, dl);
}

static bool all_below(const uint32_t *v, size_t n, uint64_t limit)
{
	uint32_t hi = 0;
	for (size_t i = 0; i < n; i++)
		hi = v[i] > hi ? v[i] : hi;
	return !n || hi < limit;
}

/* Every index the store holds points inside what it indexes: the checksum finds a damaged
 * file, this keeps a well-formed but wrong one (another program's, a hand-made one) from
 * sending the views out of bounds. */
static bool store_sane(const struct rank_store *rs)
{
	uint32_t n_str = strtab_count(rs->strs);
	if (!all_below(rs->ev_name, rs->n_ev, n_str) || !all_below(rs->ev_kind, rs->n_ev, rs->n_kinds) ||
	    !all_below(rs->ctr_track, rs->n_ctr, rs->n_tracks))
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
		if (!all_below(l->events, l->n_events, rs->n_ev) || l->pid_text >= n_str || l->tid_text >= n_str ||
		    l->process_name >= n_str || l->thread_name >= n_str || l->process_labels >= n_str ||
		    (l->n_events && (!l->depth || !l->block_end)))
			return false;
	}
	for (size_t i = 0; i < rs->n_tracks; i++) {
		const struct counter_track *t = &rs->tracks[i];
		if (!all_below(t->samples, t->n_samples, rs->n_ctr) || t->pid_text >= n_str || t->name >= n_str ||
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

static int load_trace(void *ctx, struct diag_list *dl, char *why, size_t size)
{
	struct trace_ctx *c = ctx;
	c->ret = trace_load_parts(c->rs, c->paths, c->n, c->topts, dl);
	if (c->ret != 0) {
		snprintf(why, size, "the trace could not be read");
		return -1;
	}
	if (c->rs->trace.n_parts != c->n) {
		/* a part refused (--max-trace-bytes) or unreadable: the index would keep the rest
		 * under a key that does not say so */
		snprintf(why, size, "a part of the trace was not read");
		return -1;
	}
	return 0;
}

static void keep_trace(struct defer_job *j, void *ctx);

static const struct tix_kind trace_kind = {"trace", "trace", "--max-trace-bytes",
false, true, load_trace, write_trace, read_trace, keep_trace};

/* Maps path and checks it against key. 1: rs holds the index; 0: no index there (or a
 * stale one: why says so); -1: corrupt (why says how). */
static int read_index(const char *path, const struct sbuf *key, const struct tix_kind *k, void *ctx, bool lazy,
		      struct diag_list *dl, struct tindex_status *st)
{
	/* O_NONBLOCK: a FIFO at an index's name opens at once (and is refused below) */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	struct stat sb;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size < (off_t)sizeof(struct tix_header)) {
		close(fd);
		snprintf(st->why, sizeof st->why, "the index %s is cut short", path);
		return -1;
	}
	size_t len = (size_t)sb.st_size;
	/* lazily, only the pages read are read in (the columns may never be) */
	void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE | (lazy ? 0 : MAP_POPULATE), fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 0;
	struct tix_header h;
	memcpy(&h, map, sizeof h);
	const char *kb = (const char *)map + sizeof h;
	int ret = -1;
	uint64_t table_off = (h.payload_off + h.payload_len + 7) & ~(uint64_t)7;
	uint64_t n_chunks = (h.payload_len + TIX_CHUNK - 1) >> TIX_CHUNK_LOG2;
	const uint64_t *table = (const uint64_t *)((const char *)map + (table_off < len ? table_off : 0));
	if (memcmp(h.magic, TINDEX_MAGIC, sizeof TINDEX_MAGIC) || h.endian != TINDEX_ENDIAN) {
		snprintf(st->why, sizeof st->why, "%s is not an index of this format", path);
	} else if (h.format != TINDEX_FORMAT) {
		snprintf(st->why, sizeof st->why, "the index was written by another version");
		ret = 0;
	} else if (h.key_len > len - sizeof h || h.header_hash != header_hash(&h, kb)) {
		snprintf(st->why, sizeof st->why, "the index %s fails its header checksum", path);
	} else if (h.key_len != key->len || memcmp(kb, key->buf, key->len)) {
		snprintf(st->why, sizeof st->why, "the trace or the program changed since the index was written");
		ret = 0;
	} else if (h.payload_off > len || (h.payload_off & 7) || h.payload_len > len - h.payload_off ||
		   table_off > len || n_chunks != (len - table_off) / 8 || (len - table_off) % 8) {
		snprintf(st->why, sizeof st->why, "the index %s is cut short", path);
	} else if (XXH3_64bits(table, n_chunks * 8) != h.table_hash) {
		snprintf(st->why, sizeof st->why, "the index %s fails its checksum", path);
	} else {
		struct tix_reader r = {.p = (const uint8_t *)map + h.payload_off,
				       .len = h.payload_len,
				       .lazy = lazy && k->deferrable,
				       .table = table,
				       .checked = xcalloc(n_chunks ? n_chunks : 1, 1)};
		if (!r.lazy) /* all at once, as it is read in (the columns are used from the start) */
			r_verify(&r, 0, r.len);
		struct diag_list msgs;
		diag_init(&msgs);
		bool called = !r.bad, ok = called && k->read(&r, map, len, ctx, &msgs);
		free(r.checked);
		if (ok) {
			if (r.lazy) {
				st->pending = true;
				st->lazy_payload = r.p;
				st->lazy_len = r.len;
				st->lazy_table = table;
			}
			for (size_t i = 0; i < msgs.n; i++) /* as the loader gave them: no count line */
				diag_add(dl, msgs.items[i].level, msgs.items[i].file, msgs.items[i].line,
					 msgs.items[i].offset, "%s", msgs.items[i].msg);
			dl->dropped += msgs.dropped;
			diag_free(&msgs);
			st->bytes = len;
			return 1;
		}
		diag_free(&msgs);
		if (r.corrupt)
			snprintf(st->why, sizeof st->why, "the index %s fails its checksum", path);
		else
			snprintf(st->why, sizeof st->why, "the index %s does not hold together", path);
		if (!called) /* else k->read unmapped what it did not take */
			munmap(map, len);
		return -1;
	}
	munmap(map, len);
	return ret;
}

static int load_blob(void *ctx, struct diag_list *dl, char *why, size_t size);
static bool read_blob(struct tix_reader *r, void *map, size_t len, void *ctx, struct diag_list *dl);

/* The index's file, named by its name text (owned). */
static char *index_path(const char *dir, const struct sbuf *name)
{
	XXH128_hash_t hn = XXH3_128bits(name->buf, name->len);
	char *path = xmalloc(strlen(dir) + 48);
	sprintf(path, "%s/%016" PRIx64 "%016" PRIx64 ".idx", dir, (uint64_t)hn.high64, (uint64_t)hn.low64);
	return path;
}

static void defer_queue(struct tindex_defer *d, const struct tix_kind *k, void *ctx, const char *const *paths,
			size_t n, const char *dir, const char *path, const struct sbuf *key, const struct diag_list *dl,
			size_t diag0, size_t dropped0, uint64_t max);

/* Loads through the index of kind k for the files paths: maps a valid index, else loads
 * afresh (k->load) and writes the index. 0 when the result is there (from either). */
static int tindex_load(const struct tix_kind *k, void *ctx, const char *const *paths, size_t n,
		       uint64_t max_file_bytes, const struct tindex_opts *io, struct tindex_status *st,
		       struct diag_list *dl)
{
	memset(st, 0, sizeof *st);
	char *dir = io && io->enabled && n ? tindex_dir(io) : NULL;
	char why[200] = "";
	if (!dir)
		return k->load(ctx, dl, why, sizeof why);
	double t0 = now_seconds();
	struct sbuf key = SBUF_INIT, name = SBUF_INIT;
	int r = 0;
	char *path = NULL;
	bool keyed = make_key(k->name, paths, n, &key, &name), over = false;
	for (size_t i = 0; keyed && max_file_bytes && i < n; i++) {
		struct stat sb;
		/* a file over the limit is refused, as without an index */
		over |= stat(paths[i], &sb) == 0 && (uint64_t)sb.st_size > max_file_bytes;
	}
	keyed &= !over;
	bool stale = false;
	if (keyed) {
		path = index_path(dir, &name);
		int got = read_index(path, &key, k, ctx, io->lazy, dl, st);
		if (got == 1) {
			st->state = TINDEX_USED;
			st->seconds = now_seconds() - t0;
			utimensat(AT_FDCWD, path, NULL, 0); /* recently used; fails harmlessly when read-only */
			goto out;
		}
		if (got < 0 && k->table)
			diag_add(dl, DIAG_INFO, paths[0], 0, -1, _("%s; the table is read again and its index rebuilt"),
				 st->why);
		else if (got < 0 && k->read == read_blob && !strcmp(k->what, "timeline"))
			diag_add(dl, DIAG_INFO, paths[0], 0, -1, _("%s; the timeline index is built again"), st->why);
		else if (got < 0 && k->load == load_blob) {
			char *of = files_dir(paths, n);
			diag_add(dl, DIAG_INFO, of, 0, -1, _("%s; the analysis is made again and its index rebuilt"),
				 st->why);
			free(of);
		}
		else if (got < 0)
			diag_add(dl, DIAG_INFO, paths[0], 0, -1, _("%s; the trace is read again and the index rebuilt"),
				 st->why);
		stale = st->why[0] != 0;
	}
	size_t diag0 = dl->n, dropped0 = dl->dropped;
	r = k->load(ctx, dl, why, sizeof why);
	st->state = TINDEX_NOT_WRITTEN;
	if (over) {
		snprintf(st->why, sizeof st->why, "a part of the %s is over %s", k->what, k->limit);
	} else if (!keyed) {
		snprintf(st->why, sizeof st->why, "a %s file cannot be identified", k->what);
	} else if (r != 0) {
		snprintf(st->why, sizeof st->why, "%s", why);
	} else {
		/* the files must not have changed while they were read: else the index would keep
		 * what was read under the key of what is there now */
		struct sbuf key2 = SBUF_INIT, name2 = SBUF_INIT;
		bool same = make_key(k->name, paths, n, &key2, &name2) && key2.len == key.len &&
			    !memcmp(key2.buf, key.buf, key.len);
		sbuf_free(&key2);
		sbuf_free(&name2);
		double t1 = now_seconds();
		if (!same) {
			snprintf(st->why, sizeof st->why, "the %s changed while it was read", k->what);
		} else if (coarse_and_recent(paths, n)) {
			snprintf(st->why, sizeof st->why, "the %s changed within the last %d s on a file system "
							  "with whole-second times: a later edit could not be told",
				 k->what, TINDEX_COARSE_WAIT);
		} else if (make_dirs(dir) != 0) {
			snprintf(st->why, sizeof st->why, "cannot create %s: %s", dir, strerror(errno));
		} else if (io->defer && access(dir, W_OK | X_OK) != 0) {
			/* said now, as an inline write's mkstemp would */
			snprintf(st->why, sizeof st->why, "cannot write in %s: %s", dir, strerror(errno));
		} else if (io->defer) {
			defer_queue(io->defer, k, ctx, paths, n, dir, path, &key, dl, diag0, dropped0, max_bytes(io));
			st->state = stale ? TINDEX_REBUILT : TINDEX_WRITTEN;
			st->deferred = true;
		} else if (write_index(dir, path, &key, k, ctx, dl, diag0, dropped0, st, NULL) == 0) {
			st->state = stale ? TINDEX_REBUILT : TINDEX_WRITTEN;
			st->seconds = now_seconds() - t1;
			evict(dir, path, max_bytes(io));
		}
	}
	r = r ? -1 : 0;
out:
	sbuf_free(&key);
	sbuf_free(&name);
	free(path);
	free(dir);
	return r;
}

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
		sums = chunk_ok(st->lazy_payload, st->lazy_len, st->lazy_table, c);
	if (sums && store_sane(rs))
		return 0;
	char *dir = tindex_dir(io);
	struct sbuf key = SBUF_INIT, name = SBUF_INIT;
	char *path = dir && make_key(trace_kind.name, paths, n, &key, &name) ? index_path(dir, &name) : NULL;
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
	if (tindex_load(&trace_kind, &c, paths, n, topts ? topts->max_file_bytes : 0, io, st, dl) == 0)
		return 0;
	return c.ret; /* what trace_load_parts gave (0 with a part not read) */
}

/* ---- CSV tables --------------------------------------------------------------------- */

struct csv_ctx {
	const char *path;
	tindex_csv_loader load_fn;
	void *load_ctx;
	struct csv_table *t; /* the result */
};

static int load_csv(void *ctx, struct diag_list *dl, char *why, size_t size)
{
	struct csv_ctx *c = ctx;
	c->t = c->load_fn(c->path, c->load_ctx, dl);
	if (!c->t) {
		snprintf(why, size, "the table could not be read");
		return -1;
	}
	/* cells are read again from the file itself: a table held in memory (converted from
	 * UTF-16, made from a Db) or joined from slices is not indexed */
	if (c->t->mem || c->t->mem_owned || c->t->data_fd >= 0 || c->t->n_parts || strcmp(c->t->path, c->path)) {
		snprintf(why, size, "the table is not read from its file as it is");
		return -1;
	}
	return 0;
}

static size_t csv_type_size(enum csv_type t)
{
	switch (t) {
	case CSVT_STR: return sizeof(uint32_t);
	case CSVT_TIME: return sizeof(int64_t);
	case CSVT_NUM: return sizeof(double);
	case CSVT_RATIO: return sizeof(float);
	}
	return 0;
}

static void w_steps(struct tix_writer *w, const struct csvt_steps *st)
{
	w_u64(w, st->n);
	for (size_t i = 0; i < st->n; i++) {
		w_u64(w, st->at[i].row);
		w_u64(w, (uint64_t)st->at[i].v);
	}
}

static void write_csv(struct tix_writer *w, void *ctx, const struct diag_list *dl, size_t diag0, size_t dropped0)
{
	struct csv_ctx *c = ctx;
	const struct csv_table *t = c->t;
	uint64_t head[] = {t->kind, t->ncols, t->n_typed, t->nrows, t->file_size, t->bom, t->crlf, t->gbk,
			   t->ragged_rows, t->excel_numbers, t->bad_numbers};
	w_arr(w, head, sizeof head);
	for (size_t i = 0; i < t->ncols; i++)
		w_str(w, t->headers[i], strlen(t->headers[i]));
	w_align(w);
	for (size_t i = 0; i < t->ncols; i++) {
		int32_t v = t->header_col[i];
		w_raw(w, &v, sizeof v);
	}
	w_align(w);
	for (size_t i = 0; i < CSV_COL_COUNT; i++) {
		int32_t v = t->col_at[i];
		w_raw(w, &v, sizeof v);
	}
	for (size_t i = 0; i < t->n_typed; i++) {
		const struct csv_column *col = &t->cols[i];
		w_u64(w, (uint64_t)col->col);
		w_u64(w, (uint64_t)col->type);
		w_u64(w, (uint64_t)(int64_t)col->index);
		w_arr(w, col->v.str, t->nrows * csv_type_size(col->type));
	}
	w_arr(w, t->row_off_lo, t->nrows * sizeof *t->row_off_lo);
	w_steps(w, &t->off_high);
	w_steps(w, &t->line_skew);
	w_strtab(w, t->strs);
	const char *paths[] = {c->path};
	w_diags(w, paths, 1, dl, diag0, dropped0);
}

static bool r_steps(struct tix_reader *r, struct csvt_steps *st, size_t nrows)
{
	uint64_t n = r_u64(r);
	if (r->bad || n > nrows + 1)
		return false;
	st->at = xcalloc(n ? n : 1, sizeof *st->at);
	st->n = st->cap = n;
	for (size_t i = 0; i < n; i++) {
		st->at[i].row = r_u64(r);
		st->at[i].v = (int64_t)r_u64(r);
		if (i && st->at[i].row <= st->at[i - 1].row)
			return false;
	}
	return !r->bad;
}

/* Every index the table holds points inside it (see store_sane). */
static bool csv_sane(const struct csv_table *t)
{
	uint32_t n_str = strtab_count(t->strs);
	for (size_t i = 0; i < t->ncols; i++)
		if (t->header_col[i] < -1 || t->header_col[i] >= CSV_COL_COUNT)
			return false;
	for (size_t i = 0; i < CSV_COL_COUNT; i++)
		if (t->col_at[i] < -1 || t->col_at[i] >= (int)t->n_typed)
			return false;
	for (size_t i = 0; i < t->n_typed; i++) {
		const struct csv_column *col = &t->cols[i];
		if (col->index < 0 || (size_t)col->index >= t->ncols || t->col_at[col->col] != (int)i)
			return false;
		if (col->type == CSVT_STR && !all_below(col->v.str, t->nrows, n_str))
			return false;
	}
	return true;
}

static bool read_csv_payload(struct csv_table *t, struct tix_reader *r, const char *path, struct diag_list *dl)
{
	const uint64_t *head = r_arr(r, 11, 8);
	if (!head || head[0] >= CSV_KIND_COUNT || head[1] > (1u << 20) || head[2] > head[1] || head[2] > CSV_COL_COUNT ||
	    head[3] > UINT32_MAX * (uint64_t)16)
		return false;
	t->kind = (enum csv_kind)head[0];
	t->ncols = head[1];
	size_t n_typed = head[2];
	t->nrows = t->cap_rows = head[3];
	t->file_size = head[4];
	t->bom = head[5];
	t->crlf = head[6];
	t->gbk = head[7];
	t->ragged_rows = head[8];
	t->excel_numbers = head[9];
	t->bad_numbers = head[10];
	t->headers = xcalloc(t->ncols ? t->ncols : 1, sizeof *t->headers);
	for (size_t i = 0; i < t->ncols; i++)
		if (!(t->headers[i] = r_str(r)))
			return false;
	const int32_t *hc = r_arr(r, t->ncols, 4);
	const int32_t *ca = r_arr(r, CSV_COL_COUNT, 4);
	if (!hc || !ca)
		return false;
	t->header_col = xcalloc(t->ncols ? t->ncols : 1, sizeof *t->header_col);
	for (size_t i = 0; i < t->ncols; i++)
		t->header_col[i] = hc[i];
	for (size_t i = 0; i < CSV_COL_COUNT; i++)
		t->col_at[i] = ca[i];
	t->cols = xcalloc(n_typed ? n_typed : 1, sizeof *t->cols);
	for (size_t i = 0; i < n_typed; i++) {
		struct csv_column *col = &t->cols[i];
		uint64_t cc = r_u64(r), type = r_u64(r), index = r_u64(r);
		if (r->bad || cc >= CSV_COL_COUNT || type != (uint64_t)csv_schema_type((enum csv_col)cc) ||
		    index > INT32_MAX)
			return false;
		col->col = (enum csv_col)cc;
		col->type = (enum csv_type)type;
		col->index = (int)index;
		col->v.str = (uint32_t *)r_arr(r, t->nrows, csv_type_size(col->type));
		if (!col->v.str)
			return false;
		t->n_typed = i + 1;
	}
	t->row_off_lo = (uint32_t *)r_arr(r, t->nrows, 4);
	if (!t->row_off_lo || !r_steps(r, &t->off_high, t->nrows) || !r_steps(r, &t->line_skew, t->nrows) ||
	    !r_strtab(r, t->strs))
		return false;
	const char *paths[] = {path};
	return r_diags(r, paths, 1, dl) && csv_sane(t);
}

static bool read_csv(struct tix_reader *r, void *map, size_t len, void *ctx, struct diag_list *dl)
{
	struct csv_ctx *c = ctx;
	struct csv_table *t = xcalloc(1, sizeof *t);
	t->path = xstrdup(c->path);
	t->strs = strtab_new();
	t->data_fd = -1;
	t->map = map;
	t->map_len = len;
	for (size_t i = 0; i < CSV_COL_COUNT; i++)
		t->col_at[i] = -1;
	if (!read_csv_payload(t, r, c->path, dl)) {
		csvt_free(t); /* unmaps */
		return false;
	}
	c->t = t;
	return true;
}

static void keep_csv(struct defer_job *j, void *ctx);

static const struct tix_kind csv_kind = {"csv", "table", "--max-csv-bytes", true, false, load_csv, write_csv, read_csv,
					 keep_csv};

struct csv_table *tindex_load_csv(const char *path, tindex_csv_loader load, void *ctx, uint64_t max_file_bytes,
				  const struct tindex_opts *io, struct tindex_status *st, struct diag_list *dl)
{
	struct csv_ctx c = {.path = path, .load_fn = load, .load_ctx = ctx};
	const char *paths[] = {path};
	tindex_load(&csv_kind, &c, paths, 1, max_file_bytes, io, st, dl);
	return c.t;
}

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

static void keep_blob(struct defer_job *j, void *ctx);

static int load_blob(void *ctx, struct diag_list *dl, char *why, size_t size)
{
	(void)dl;
	struct blob_ctx *c = ctx;
	c->buf = c->make(c->make_ctx, &c->len, why, size);
	return c->buf ? 0 : -1;
}

static void write_blob(struct tix_writer *w, void *ctx, const struct diag_list *dl, size_t diag0, size_t dropped0)
{
	(void)dl;
	(void)diag0;
	(void)dropped0;
	struct blob_ctx *c = ctx;
	w_u64(w, c->len);
	w_arr(w, c->buf, c->len);
}

static bool read_blob(struct tix_reader *r, void *map, size_t len, void *ctx, struct diag_list *dl)
{
	(void)dl;
	struct blob_ctx *c = ctx;
	uint64_t n = r_u64(r);
	const char *p = r_arr(r, n, 1);
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

char *tindex_load_blob(const char *kind, const char *const *paths, size_t n, tindex_blob_maker make, void *ctx,
		       size_t *len, bool *from_index, const struct tindex_opts *io, struct tindex_status *st,
		       struct diag_list *dl)
{
	struct tix_kind k = {kind, "capture", "", false, false, load_blob, write_blob, read_blob, keep_blob};
	struct blob_ctx c = {.make = make, .make_ctx = ctx};
	tindex_load(&k, &c, paths, n, 0, io, st, dl);
	*len = c.deferred ? 0 : c.len;
	*from_index = c.from_index;
	return c.buf;
}

bool tindex_map_blob(struct tindex_blob *b, const char *kind, const char *const *paths, size_t n,
		     tindex_blob_maker make, void *ctx, const struct tindex_opts *io, struct tindex_status *st,
		     struct diag_list *dl)
{
	struct tix_kind k = {kind, "timeline", "", false, false, load_blob, write_blob, read_blob, keep_blob};
	struct blob_ctx c = {.make = make, .make_ctx = ctx, .in_place = true};
	tindex_load(&k, &c, paths, n, 0, io, st, dl);
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

/* ---- deferred writes ---------------------------------------------------------------- */

struct defer_job {
	struct tix_kind k; /* a copy: a blob's kind lives on its caller's stack */
	char *name;        /* owned: k.name */
	char *dir, *path;  /* owned */
	struct sbuf key;   /* the files' key as they were read */
	char **paths;      /* owned copies */
	size_t n;
	struct diag_list msgs; /* the loader's messages the index keeps */
	uint64_t max_bytes;
	void *ctx; /* one of: */
	struct trace_ctx trace;
	struct csv_ctx csv;
	struct blob_ctx blob; /* its bytes owned */
};

struct tindex_defer {
	pthread_mutex_t lock; /* loaders queue from several threads */
	struct defer_job **jobs;
	size_t n, cap, next; /* next: the first not run */
	_Atomic bool abandon;
	struct diag_list failed;
};

static void keep_trace(struct defer_job *j, void *ctx)
{
	const struct trace_ctx *c = ctx;
	j->trace = (struct trace_ctx){.rs = c->rs, .paths = (const char *const *)j->paths, .n = j->n};
	j->ctx = &j->trace;
}

static void keep_csv(struct defer_job *j, void *ctx)
{
	const struct csv_ctx *c = ctx;
	j->csv = (struct csv_ctx){.path = j->paths[0], .t = c->t};
	j->ctx = &j->csv;
}

static void keep_blob(struct defer_job *j, void *ctx)
{
	struct blob_ctx *c = ctx;
	j->blob = (struct blob_ctx){.buf = c->buf, .len = c->len};
	c->buf = NULL; /* the job's now */
	c->deferred = true;
	j->ctx = &j->blob;
}

static void defer_queue(struct tindex_defer *d, const struct tix_kind *k, void *ctx, const char *const *paths,
			size_t n, const char *dir, const char *path, const struct sbuf *key, const struct diag_list *dl,
			size_t diag0, size_t dropped0, uint64_t max)
{
	struct defer_job *j = xcalloc(1, sizeof *j);
	j->k = *k;
	j->k.name = j->name = xstrdup(k->name);
	j->dir = xstrdup(dir);
	j->path = xstrdup(path);
	sbuf_add(&j->key, key->buf, key->len);
	j->n = n;
	j->paths = xcalloc(n ? n : 1, sizeof *j->paths);
	for (size_t i = 0; i < n; i++)
		j->paths[i] = xstrdup(paths[i]);
	/* dl goes on (the capture's list takes it and frees it): the messages are copied */
	diag_init(&j->msgs);
	pthread_mutex_t *lock = (pthread_mutex_t *)&dl->lock; /* another thread may add to it */
	pthread_mutex_lock(lock);
	for (size_t i = diag0; i < dl->n; i++)
		diag_add(&j->msgs, dl->items[i].level, dl->items[i].file, dl->items[i].line, dl->items[i].offset, "%s",
			 dl->items[i].msg);
	j->msgs.dropped = dl->dropped - dropped0;
	pthread_mutex_unlock(lock);
	j->max_bytes = max;
	k->keep(j, ctx);
	pthread_mutex_lock(&d->lock);
	xgrow(&d->jobs, &d->cap, d->n + 1, sizeof *d->jobs);
	d->jobs[d->n++] = j;
	pthread_mutex_unlock(&d->lock);
}

static void job_free(struct defer_job *j)
{
	free(j->name);
	free(j->dir);
	free(j->path);
	sbuf_free(&j->key);
	for (size_t i = 0; i < j->n; i++)
		free(j->paths[i]);
	free(j->paths);
	diag_free(&j->msgs);
	free(j->blob.buf);
	free(j);
}

struct tindex_defer *tindex_defer_new(void)
{
	struct tindex_defer *d = xcalloc(1, sizeof *d);
	pthread_mutex_init(&d->lock, NULL);
	atomic_init(&d->abandon, false);
	diag_init(&d->failed);
	return d;
}

/* The deepest directory holding every one of paths (owned): what an analysis' index is of
 * (a capture's files), named in its messages rather than the first of them, which read as
 * if that one file were at fault (api_statistic.csv). One file: that file. */
static char *files_dir(const char *const *paths, size_t n)
{
	if (!n || !paths[0])
		return NULL;
	if (n == 1) /* a blob of one file: that file */
		return xstrdup(paths[0]);
	size_t len = strlen(paths[0]);
	for (size_t i = 1; i < n; i++) {
		size_t k = 0;
		while (k < len && paths[i][k] == paths[0][k])
			k++;
		len = k;
	}
	/* back to a whole directory: a common prefix may end inside a name */
	bool whole = true;
	for (size_t i = 0; i < n && whole; i++)
		whole = paths[i][len] == '/';
	if (!whole)
		while (len > 0 && paths[0][len - 1] != '/')
			len--;
	while (len > 1 && paths[0][len - 1] == '/')
		len--;
	return len ? xstrndup(paths[0], len) : xstrdup(".");
}

/* The message of a deferred write that failed: which index (its path), of which files
 * (the message's file), and why. */
static void defer_failed(struct tindex_defer *d, const struct defer_job *j, const char *why)
{
	const char *file = j->n ? j->paths[0] : NULL;
	if (!j->k.table && j->k.keep != keep_trace && strcmp(j->k.what, "timeline")) {
		char *dir = files_dir((const char *const *)j->paths, j->n);
		diag_add(&d->failed, DIAG_WARN, dir, 0, -1, _("the analysis' index %s was not written: %s"), j->path, why);
		free(dir);
		return;
	}
	if (j->k.table)
		diag_add(&d->failed, DIAG_WARN, file, 0, -1, _("the table's index %s was not written: %s"), j->path, why);
	else if (j->k.keep == keep_trace)
		diag_add(&d->failed, DIAG_WARN, file, 0, -1, _("the trace's index %s was not written: %s"), j->path, why);
	else if (!strcmp(j->k.what, "timeline"))
		diag_add(&d->failed, DIAG_WARN, file, 0, -1, _("the timeline index %s was not written: %s"), j->path, why);
	else
		diag_add(&d->failed, DIAG_WARN, file, 0, -1, _("the analysis' index %s was not written: %s"), j->path,
			 why);
}

static bool defer_run_one(struct tindex_defer *d, struct defer_job *j)
{
	/* keyed again: a file changed since it was read would get an index it no longer matches
	 * (harmless, a reopen rebuilds it, but a write for nothing) */
	struct sbuf key2 = SBUF_INIT, name2 = SBUF_INIT;
	bool same = make_key(j->k.name, (const char *const *)j->paths, j->n, &key2, &name2) &&
		    key2.len == j->key.len && !memcmp(key2.buf, j->key.buf, j->key.len);
	sbuf_free(&key2);
	sbuf_free(&name2);
	struct tindex_status st;
	memset(&st, 0, sizeof st);
	if (!same) {
		snprintf(st.why, sizeof st.why, "the %s changed after it was read", j->k.what);
		defer_failed(d, j, st.why);
		return false;
	}
	if (write_index(j->dir, j->path, &j->key, &j->k, j->ctx, &j->msgs, 0, 0, &st, &d->abandon) != 0) {
		if (st.why[0]) /* else abandoned: no index, nothing to say */
			defer_failed(d, j, st.why);
		return false;
	}
	evict(j->dir, j->path, j->max_bytes);
	return true;
}

size_t tindex_defer_run(struct tindex_defer *d)
{
	size_t written = 0;
	diag_free(&d->failed); /* the last run's only */
	diag_init(&d->failed);
	/* tests: the writes start this much later, so that a quit finds them pending */
	const char *delay = getenv("ASCPROF_INDEX_WRITE_DELAY_MS");
	for (long ms = delay ? strtol(delay, NULL, 10) : 0; ms > 0 && !atomic_load(&d->abandon); ms -= 10)
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	for (;;) {
		pthread_mutex_lock(&d->lock);
		struct defer_job *j = d->next < d->n ? d->jobs[d->next] : NULL;
		if (j)
			d->jobs[d->next++] = NULL;
		pthread_mutex_unlock(&d->lock);
		if (!j)
			break;
		if (!atomic_load(&d->abandon) && defer_run_one(d, j))
			written++;
		job_free(j);
	}
	return written;
}

void tindex_defer_abandon(struct tindex_defer *d)
{
	if (d)
		atomic_store(&d->abandon, true);
}

size_t tindex_defer_pending(struct tindex_defer *d)
{
	pthread_mutex_lock(&d->lock);
	size_t n = d->n - d->next;
	pthread_mutex_unlock(&d->lock);
	return n;
}

struct diag_list *tindex_defer_failures(struct tindex_defer *d) { return &d->failed; }

void tindex_defer_free(struct tindex_defer *d)
{
	if (!d)
		return;
	for (size_t i = d->next; i < d->n; i++)
		job_free(d->jobs[i]);
	free(d->jobs);
	diag_free(&d->failed);
	pthread_mutex_destroy(&d->lock);
	free(d);
}
