/* SPDX-License-Identifier: MIT */
/* Through an index or around it (trace_index_internal.h): tix_load maps a valid index, else
 * loads afresh and writes one, at once or put off until the result is out (tindex_defer:
 * the jobs keep what they need of the loader's context and run on the caller's thread
 * later). */
#include "trace_index_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "i18n.h"
#include "xalloc.h"

/* ---- deferred writes ---------------------------------------------------------------- */

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
	j->ctx = k->keep(ctx, (const char *const *)j->paths, j->n);
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
	if (j->ctx)
		j->k.drop(j->ctx);
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

/* The message of a deferred write that failed: which index (its path), of which files
 * (the message's file), and why. */
static void defer_failed(struct tindex_defer *d, const struct defer_job *j, const char *why)
{
	char *of = j->k.at_dir ? tix_files_dir((const char *const *)j->paths, j->n) : NULL;
	j->k.say(&d->failed, of ? of : j->n ? j->paths[0] : NULL, j->path, why);
	free(of);
}

static bool defer_run_one(struct tindex_defer *d, struct defer_job *j)
{
	/* keyed again: a file changed since it was read would get an index it no longer matches
	 * (harmless, a reopen rebuilds it, but a write for nothing) */
	struct sbuf key2 = SBUF_INIT, name2 = SBUF_INIT;
	bool same = tix_make_key(j->k.name, (const char *const *)j->paths, j->n, &key2, &name2) &&
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
	if (tix_write_index(j->dir, j->path, &j->key, &j->k, j->ctx, &j->msgs, 0, 0, &st, &d->abandon) != 0) {
		if (st.why[0]) /* else abandoned: no index, nothing to say */
			defer_failed(d, j, st.why);
		return false;
	}
	tix_evict(j->dir, j->path, j->max_bytes);
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

/* ---- through an index ---------------------------------------------------------------- */

int tix_load(const struct tix_kind *k, void *ctx, const char *const *paths, size_t n, uint64_t max_file_bytes,
	     const struct tindex_opts *io, struct tindex_status *st, struct diag_list *dl)
{
	memset(st, 0, sizeof *st);
	char *dir = io && io->enabled && n ? tindex_dir(io) : NULL;
	struct sbuf why = SBUF_INIT;
	if (!dir) {
		int direct = k->load(ctx, dl, &why);
		sbuf_free(&why);
		return direct;
	}
	double t0 = tix_now_seconds();
	struct sbuf key = SBUF_INIT, name = SBUF_INIT;
	int r = 0;
	char *path = NULL;
	bool keyed = tix_make_key(k->name, paths, n, &key, &name), over = false;
	for (size_t i = 0; keyed && max_file_bytes && i < n; i++) {
		struct stat sb;
		/* a file over the limit is refused, as without an index */
		over |= stat(paths[i], &sb) == 0 && (uint64_t)sb.st_size > max_file_bytes;
	}
	keyed &= !over;
	bool stale = false;
	if (keyed) {
		path = tix_index_path(dir, &name);
		int got = tix_read_index(path, &key, k, ctx, io->lazy, dl, st);
		if (got == 1) {
			st->state = TINDEX_USED;
			st->seconds = tix_now_seconds() - t0;
			utimensat(AT_FDCWD, path, NULL, 0); /* recently used; fails harmlessly when read-only */
			goto out;
		}
		if (got < 0) {
			char *of = k->at_dir ? tix_files_dir(paths, n) : NULL;
			k->say(dl, of ? of : paths[0], NULL, st->why);
			free(of);
		}
		stale = st->why[0] != 0;
	}
	size_t diag0 = dl->n, dropped0 = dl->dropped;
	r = k->load(ctx, dl, &why);
	st->state = TINDEX_NOT_WRITTEN;
	if (over) {
		snprintf(st->why, sizeof st->why, "a part of the %s is over %s", k->what, k->limit);
	} else if (!keyed) {
		snprintf(st->why, sizeof st->why, "a %s file cannot be identified", k->what);
	} else if (r != 0) {
		snprintf(st->why, sizeof st->why, "%s", why.buf ? why.buf : "");
	} else {
		/* the files must not have changed while they were read: else the index would keep
		 * what was read under the key of what is there now */
		struct sbuf key2 = SBUF_INIT, name2 = SBUF_INIT;
		bool same = tix_make_key(k->name, paths, n, &key2, &name2) && key2.len == key.len &&
			    !memcmp(key2.buf, key.buf, key.len);
		sbuf_free(&key2);
		sbuf_free(&name2);
		double t1 = tix_now_seconds();
		if (!same) {
			snprintf(st->why, sizeof st->why, "the %s changed while it was read", k->what);
		} else if (tix_coarse_and_recent(paths, n)) {
			snprintf(st->why, sizeof st->why, "the %s changed within the last %d s on a file system "
							  "with whole-second times: a later edit could not be told",
				 k->what, TINDEX_COARSE_WAIT);
		} else if (tix_make_dirs(dir) != 0) {
			snprintf(st->why, sizeof st->why, "cannot create %s: %s", dir, strerror(errno));
		} else if (io->defer && access(dir, W_OK | X_OK) != 0) {
			/* said now, as an inline write's mkstemp would */
			snprintf(st->why, sizeof st->why, "cannot write in %s: %s", dir, strerror(errno));
		} else if (io->defer) {
			defer_queue(io->defer, k, ctx, paths, n, dir, path, &key, dl, diag0, dropped0, tix_max_bytes(io));
			st->state = stale ? TINDEX_REBUILT : TINDEX_WRITTEN;
			st->deferred = true;
		} else if (tix_write_index(dir, path, &key, k, ctx, dl, diag0, dropped0, st, NULL) == 0) {
			st->state = stale ? TINDEX_REBUILT : TINDEX_WRITTEN;
			st->seconds = tix_now_seconds() - t1;
			tix_evict(dir, path, tix_max_bytes(io));
		}
	}
	r = r ? -1 : 0;
out:
	sbuf_free(&why);
	sbuf_free(&key);
	sbuf_free(&name);
	free(path);
	free(dir);
	return r;
}
