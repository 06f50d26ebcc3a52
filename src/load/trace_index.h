/* SPDX-License-Identifier: MIT */
/* The persistent trace index: a rank's loaded store (columns, strings, lanes, counters,
 * flow links, the loader's messages) written once to a file in the user's cache and
 * mapped read-only on the next open, so a second open of the same trace costs a map and a
 * checksum instead of a parse.
 *
 * An index is named by the identity of the program and of the trace files (device and
 * inode) and keyed by their size, mtime and ctime and the format version: anything that
 * changed means it is rebuilt, never trusted stale. It is written to a temporary name and
 * renamed, so two explorers opening the same capture each see a whole file; a file whose
 * checksums fail is rebuilt with a message. The cache is bounded: past max_bytes the least
 * recently used indexes are removed. Nothing is ever written beside the capture.
 *
 * The same files hold CSV tables (tindex_load_csv) and a capture's analysis (bytes made by
 * the caller: tindex_load_blob; used in place from the mapping: tindex_map_blob, the
 * explorer's timeline index), each named by its kind beside the files' identities. */
#ifndef ASCPROF_TRACE_INDEX_H
#define ASCPROF_TRACE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csv_table.h"
#include "diag.h"
#include "sbuf.h"
#include "store.h"
#include "trace.h"

/* The cache's default size bound. */
#define TINDEX_DEFAULT_MAX_BYTES (UINT64_C(8) << 30)

struct tindex_defer;

struct tindex_opts {
	bool enabled;      /* false: neither read nor write an index (--no-index, the library's default) */
	const char *dir;   /* borrowed; NULL: $XDG_CACHE_HOME/ascprof-tui, else ~/.cache/ascprof-tui */
	uint64_t max_bytes; /* the cache's bound; 0: TINDEX_DEFAULT_MAX_BYTES */
	/* A trace's event columns (most of its index) are verified when first needed
	 * (tindex_verify_trace) rather than when mapped: --summary and a report from the
	 * analysis' index never read them. */
	bool lazy;
	/* borrowed; NULL: an index is written as soon as what it holds is read. Else its
	 * writing is put off to tindex_defer_run, after the result the user waits for: the
	 * files are keyed and checked as they are read, as ever, and what the index holds (a
	 * store, a table: borrowed, never changed after its load; a blob: taken) waits. */
	struct tindex_defer *defer;
};

enum tindex_state {
	TINDEX_OFF,         /* not asked for, or the trace is not a text trace */
	TINDEX_USED,        /* the store was mapped from the index */
	TINDEX_WRITTEN,     /* read from the trace and written to a new index */
	TINDEX_REBUILT,     /* an index was there but stale or corrupt: read afresh and written */
	TINDEX_NOT_WRITTEN, /* read from the trace; no index could be written (see why) */
};

struct tindex_status {
	enum tindex_state state;
	char why[200];    /* what happened, for --summary ("" when nothing to say) */
	double seconds;   /* mapping and checking the index, or writing it */
	uint64_t bytes;   /* the index file's size */
	/* WRITTEN or REBUILT through tindex_opts.defer: to be written by tindex_defer_run (no
	 * bytes or seconds yet; a write that then fails says so there) */
	bool deferred;
	/* USED lazily: the columns' chunks are not verified yet (the payload and its chunk
	 * table, in the mapping) */
	bool pending;
	const uint8_t *lazy_payload;
	size_t lazy_len;
	const uint64_t *lazy_table;
};

/* Loads the trace parts into rs (store_init'd) through the index: maps a valid index, else
 * reads the trace with trace_load_parts and writes the index. Returns what trace_load_parts
 * would. The loader's messages are kept in the index and given again on reopen. */
int tindex_load_trace(struct rank_store *rs, const char *const *paths, size_t n,
		      const struct trace_load_opts *topts, const struct tindex_opts *io,
		      struct tindex_status *st, struct diag_list *dl);

/* Verifies what a lazy load left (st->pending): every chunk of the index against its
 * checksum, and that the store's indexes point inside it. 0 when it holds (or nothing was
 * pending); else says so in dl, removes the index and loads the trace afresh (writing a
 * new index), returning what tindex_load_trace would. */
int tindex_verify_trace(struct rank_store *rs, const char *const *paths, size_t n,
			const struct trace_load_opts *topts, const struct tindex_opts *io,
			struct tindex_status *st, struct diag_list *dl);

/* A CSV table through its own index, as a trace's: a valid index gives the table with
 * its typed columns and row offsets mapped from it (its cells are read again from the
 * file, as ever), and the messages its load gave; else load(path, ctx, dl) reads it (and
 * checks its rows) and the index is written. A file over max_file_bytes (0: none) is
 * loaded (and refused) as without an index. Returns the table, or NULL as load would. */
typedef struct csv_table *(*tindex_csv_loader)(const char *path, void *ctx, struct diag_list *dl);
struct csv_table *tindex_load_csv(const char *path, tindex_csv_loader load, void *ctx, uint64_t max_file_bytes,
				  const struct tindex_opts *io, struct tindex_status *st, struct diag_list *dl);

/* Index writes put off (tindex_opts.defer) until what the user waits for is out: a
 * report written and flushed, the explorer's views published. Loaders queue from any
 * thread; one thread runs the queue. Every store, table and blob a queued write reads
 * must stay as it is until the queue has run (or is freed): the capture outlives it. */
struct tindex_defer *tindex_defer_new(void); /* owned (tindex_defer_free) */
/* Writes what is queued, in order, each as an inline write would (files keyed again
 * first: one changed since it was read gets no index; temporary name, rename, the
 * cache's bound). A write that fails leaves no index and a message (the files it is of,
 * the index's path and why) in tindex_defer_failures. Returns the number written. */
size_t tindex_defer_run(struct tindex_defer *d);
/* From any thread: the write running stops at its next 64 KiB and removes its temporary
 * file (so no index, never a partial one), the rest are dropped. */
void tindex_defer_abandon(struct tindex_defer *d);
size_t tindex_defer_pending(struct tindex_defer *d); /* queued, not yet run */
struct diag_list *tindex_defer_failures(struct tindex_defer *d); /* the last run's; borrowed from d */
void tindex_defer_free(struct tindex_defer *d);

/* Bytes made from files (an analysis of a capture, in digest form) through an index of
 * their own, named by kind and keyed by every file of paths as a trace's: a valid index
 * gives its bytes (*from_index true); else make(ctx, len, why, size) makes them (NULL:
 * nothing to index, why says so) and they are written. Returns the bytes (owned), NULL
 * when make gave none, or when they went to a deferred write (io->defer). */
typedef char *(*tindex_blob_maker)(void *ctx, size_t *len, struct sbuf *why);
char *tindex_load_blob(const char *kind, const char *const *paths, size_t n, tindex_blob_maker make, void *ctx,
		       size_t *len, bool *from_index, const struct tindex_opts *io, struct tindex_status *st,
		       struct diag_list *dl);

/* A blob of tindex_map_blob: the index's bytes used in place (mapped read-only), or the
 * bytes make gave. */
struct tindex_blob {
	const char *bytes; /* mapped (valid until tindex_blob_free), or owned: owned */
	size_t len;
	bool from_index;
	void *map; /* owned: the index's mapping (from_index) */
	size_t map_len;
	char *owned; /* owned: the bytes make gave */
};

/* As tindex_load_blob, for bytes used in place (a timeline index, read where it lies): a
 * valid index is mapped read-only, its checksums verified, and b->bytes points into the
 * mapping (8-byte aligned); else make's bytes are written and kept in b. Messages name the
 * kind "timeline". false when make gave none. Bytes made for a deferred write (io->defer)
 * go to it: true, b->bytes NULL. */
bool tindex_map_blob(struct tindex_blob *b, const char *kind, const char *const *paths, size_t n,
		     tindex_blob_maker make, void *ctx, const struct tindex_opts *io, struct tindex_status *st,
		     struct diag_list *dl);
void tindex_blob_free(struct tindex_blob *b);

/* The directory indexes go to under io (NULL when none can be named); owned by the caller. */
char *tindex_dir(const struct tindex_opts *io);
const char *tindex_state_name(enum tindex_state s); /* static */

#endif
