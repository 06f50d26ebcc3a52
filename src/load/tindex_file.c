/* SPDX-License-Identifier: MIT */
/* The trace index's file (trace_index_internal.h): where it lives, its key and name, the
 * writer and the reader of its chunked, checksummed payload, the cache's bound. */
#include "trace_index_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "i18n.h"
#include "xalloc.h"

double tix_now_seconds(void)
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
int tix_make_dirs(const char *dir)
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
bool tix_make_key(const char *kind, const char *const *paths, size_t n, struct sbuf *key, struct sbuf *name)
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
bool tix_coarse_and_recent(const char *const *paths, size_t n)
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

static void w_chunk_end(struct tix_writer *w)
{
	if (w->abandon && atomic_load_explicit(w->abandon, memory_order_relaxed))
		w->failed = w->abandoned = true;
	xgrow(&w->chunks, &w->cap_chunks, w->n_chunks + 1, sizeof *w->chunks);
	w->chunks[w->n_chunks++] = XXH3_64bits_digest(w->hash);
	XXH3_64bits_reset(w->hash);
}

void tix_w_raw(struct tix_writer *w, const void *p, size_t len)
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

void tix_w_align(struct tix_writer *w)
{
	static const char zero[8];
	if (w->pos & 7)
		tix_w_raw(w, zero, 8 - (w->pos & 7));
}

/* An array: aligned, so the reader can use it in place. */
void tix_w_arr(struct tix_writer *w, const void *p, size_t len)
{
	tix_w_align(w);
	tix_w_raw(w, p, len);
}

void tix_w_u64(struct tix_writer *w, uint64_t v)
{
	tix_w_arr(w, &v, sizeof v);
}

void tix_w_f64(struct tix_writer *w, double d)
{
	uint64_t v;
	memcpy(&v, &d, sizeof v);
	tix_w_u64(w, v);
}

void tix_w_str(struct tix_writer *w, const char *s, size_t len)
{
	tix_w_u64(w, len);
	tix_w_arr(w, s, len);
}

/* A path as the index of the trace part it names (so a reopen under another spelling of
 * the capture's path shows that spelling), else its text. */
void tix_w_path(struct tix_writer *w, const char *path, const char *const *paths, size_t n)
{
	if (!path) {
		tix_w_u64(w, TIX_PATH_NONE);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(path, paths[i])) {
			tix_w_u64(w, i);
			return;
		}
	tix_w_u64(w, TIX_PATH_TEXT);
	tix_w_str(w, path, strlen(path));
}

/* Strings: offsets, then the bytes (each NUL-terminated); ids are dense from 0. */
void tix_w_strtab(struct tix_writer *w, const struct strtab *strs)
{
	uint32_t n_str = strtab_count(strs);
	tix_w_u64(w, n_str);
	uint64_t off = 0;
	tix_w_align(w);
	for (uint32_t i = 0; i < n_str; i++) {
		tix_w_raw(w, &off, sizeof off);
		off += strtab_len(strs, i) + 1;
	}
	tix_w_raw(w, &off, sizeof off);
	tix_w_align(w);
	for (uint32_t i = 0; i < n_str; i++)
		tix_w_raw(w, strtab_str(strs, i), strtab_len(strs, i) + 1);
}

/* The loader's messages since diag0 (given again on reopen, in their place). */
void tix_w_diags(struct tix_writer *w, const char *const *paths, size_t n, const struct diag_list *dl,
		    size_t diag0, size_t dropped0)
{
	tix_w_u64(w, dl->n - diag0);
	tix_w_u64(w, dl->dropped - dropped0);
	for (size_t i = diag0; i < dl->n; i++) {
		const struct diag *d = &dl->items[i];
		tix_w_u64(w, (uint64_t)d->level);
		tix_w_path(w, d->file, paths, n);
		tix_w_u64(w, (uint64_t)d->line);
		tix_w_u64(w, (uint64_t)d->offset);
		tix_w_str(w, d->msg, strlen(d->msg));
	}
}

struct tix_reader;
struct defer_job;

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
void tix_evict(const char *dir, const char *keep, uint64_t max)
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
uint64_t tix_max_bytes(const struct tindex_opts *io)
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
int tix_write_index(const char *dir, const char *path, const struct sbuf *key, const struct tix_kind *k,
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

bool tix_chunk_ok(const uint8_t *payload, size_t len, const uint64_t *table, size_t c)
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
		if (!tix_chunk_ok(r->p, r->len, r->table, c)) {
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

const void *tix_r_arr(struct tix_reader *r, uint64_t cnt, size_t size) { return r_take(r, cnt, size, true); }

/* An event column, used in place: verified now, or when first needed with a lazy reader
 * (tindex_verify_trace), since a report from the index may never read it. */
const void *tix_r_col(struct tix_reader *r, uint64_t cnt, size_t size) { return r_take(r, cnt, size, !r->lazy); }

uint64_t tix_r_u64(struct tix_reader *r)
{
	const void *p = tix_r_arr(r, 1, 8);
	uint64_t v = 0;
	if (p)
		memcpy(&v, p, 8);
	return v;
}

double tix_r_f64(struct tix_reader *r)
{
	uint64_t v = tix_r_u64(r);
	double d;
	memcpy(&d, &v, sizeof d);
	return d;
}

/* An owned, NUL-terminated copy. */
char *tix_r_str(struct tix_reader *r)
{
	uint64_t len = tix_r_u64(r);
	const char *s = tix_r_arr(r, len, 1);
	if (!s)
		return NULL;
	char *c = xmalloc(len + 1);
	memcpy(c, s, len);
	c[len] = 0;
	return c;
}

char *tix_r_path(struct tix_reader *r, const char *const *paths, size_t n)
{
	uint64_t k = tix_r_u64(r);
	if (k == TIX_PATH_NONE)
		return NULL;
	if (k == TIX_PATH_TEXT)
		return tix_r_str(r);
	if (k >= n) {
		r->bad = true;
		return NULL;
	}
	return xstrdup(paths[k]);
}

/* The strings into strs (a new table: only its empty string), with the same ids. */
bool tix_r_strtab(struct tix_reader *r, struct strtab *strs)
{
	uint64_t n_str = tix_r_u64(r);
	if (n_str == 0 || n_str > UINT32_MAX)
		return false;
	const uint64_t *offs = tix_r_arr(r, n_str + 1, 8);
	const char *bytes = offs ? tix_r_arr(r, offs[n_str], 1) : NULL;
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

bool tix_r_diags(struct tix_reader *r, const char *const *paths, size_t n, struct diag_list *dl)
{
	uint64_t n_diags = tix_r_u64(r), dropped = tix_r_u64(r);
	if (r->bad || n_diags > DIAG_MAX)
		return false;
	for (uint64_t i = 0; i < n_diags && !r->bad; i++) {
		uint64_t level = tix_r_u64(r);
		char *file = tix_r_path(r, paths, n);
		long line = (long)tix_r_u64(r);
		int64_t off = (int64_t)tix_r_u64(r);
		char *msg = tix_r_str(r);
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


/* Maps path and checks it against key. 1: rs holds the index; 0: no index there (or a
 * stale one: why says so); -1: corrupt (why says how). */
int tix_read_index(const char *path, const struct sbuf *key, const struct tix_kind *k, void *ctx, bool lazy,
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

/* The index's file, named by its name text (owned). */
char *tix_index_path(const char *dir, const struct sbuf *name)
{
	XXH128_hash_t hn = XXH3_128bits(name->buf, name->len);
	char *path = xmalloc(strlen(dir) + 48);
	sprintf(path, "%s/%016" PRIx64 "%016" PRIx64 ".idx", dir, (uint64_t)hn.high64, (uint64_t)hn.low64);
	return path;
}

/* The deepest directory holding every one of paths (owned): what an analysis' index is of
 * (a capture's files), named in its messages rather than the first of them, which read as
 * if that one file were at fault (api_statistic.csv). One file: that file. */
char *tix_files_dir(const char *const *paths, size_t n)
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

/* Every id in v is below limit (a read index points inside what it indexes). */
bool tix_all_below(const uint32_t *v, size_t n, uint64_t limit)
{
	uint32_t hi = 0;
	for (size_t i = 0; i < n; i++)
		hi = v[i] > hi ? v[i] : hi;
	return !n || hi < limit;
}
