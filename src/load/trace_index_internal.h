/* SPDX-License-Identifier: MIT */
/* What the trace index's parts share (trace_index.h is its public face). The file is a
 * header, the key (text), the payload, then the payload's chunk table (an XXH3 per 64 KiB).
 * The payload is 8-byte aligned sections in a fixed order, per kind of index (a trace's
 * store, a CSV table, a blob), the columns laid out exactly as the store or the table
 * holds them so that they are used in place from the mapping.
 *
 *   tindex_file.c   the file: its key and name, the writer and the reader, the cache's bound
 *   tindex_cache.c  through an index or around it (tix_load), writes now or put off
 *   trace_index.c   the trace's kind (a rank's store), tindex_csv.c the tables',
 *   tindex_blob.c   the blobs' (an analysis, the explorer's timeline index) */
#ifndef ASCPROF_TRACE_INDEX_INTERNAL_H
#define ASCPROF_TRACE_INDEX_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <xxhash.h>

#include "sbuf.h"
#include "strtab.h"
#include "trace_index.h"

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

#define TIX_PATH_NONE UINT64_MAX
#define TIX_PATH_TEXT (UINT64_MAX - 1)

/* What an index is of: loading it afresh, writing its payload, reading it back. */
struct tix_kind {
	const char *name;  /* in the index's name: "trace", "csv" */
	const char *what;  /* in messages: "trace", "table" */
	const char *limit; /* the option that limits a file's size */
	bool deferrable;   /* its columns may be verified later (tindex_verify_trace) */
	/* its messages (literals, for gettext's format checks): an index found stale or
	 * corrupt (index NULL), or a deferred write of index that failed; said of the files'
	 * directory when at_dir (an analysis' index is of a capture), else of the first file */
	void (*say)(struct diag_list *dl, const char *file, const char *index, const char *why);
	bool at_dir;
	/* reads the inputs afresh; 0 when what was read may be indexed */
	int (*load)(void *ctx, struct diag_list *dl, struct sbuf *why);
	void (*write)(struct tix_writer *w, void *ctx, const struct diag_list *dl, size_t diag0, size_t dropped0);
	/* builds the result from a verified payload (and takes the mapping) or returns false */
	bool (*read)(struct tix_reader *r, void *map, size_t len, void *ctx, struct diag_list *dl);
	/* what a deferred write needs of ctx (owned; a blob's bytes are taken), given the
	 * job's own copies of the paths; drop frees it */
	void *(*keep)(void *ctx, const char *const *paths, size_t n);
	void (*drop)(void *kept);
};

/* tindex_file.c */
double tix_now_seconds(void);
int tix_make_dirs(const char *dir);
bool tix_make_key(const char *kind, const char *const *paths, size_t n, struct sbuf *key, struct sbuf *name);
#define TINDEX_COARSE_WAIT 2
bool tix_coarse_and_recent(const char *const *paths, size_t n);
char *tix_index_path(const char *dir, const struct sbuf *name);
char *tix_files_dir(const char *const *paths, size_t n);
uint64_t tix_max_bytes(const struct tindex_opts *io);
void tix_evict(const char *dir, const char *keep, uint64_t max);
int tix_write_index(const char *dir, const char *path, const struct sbuf *key, const struct tix_kind *k,
		    void *ctx, const struct diag_list *dl, size_t diag0, size_t dropped0, struct tindex_status *st,
		    const _Atomic bool *abandon);
int tix_read_index(const char *path, const struct sbuf *key, const struct tix_kind *k, void *ctx, bool lazy,
		   struct diag_list *dl, struct tindex_status *st);
void tix_w_raw(struct tix_writer *w, const void *p, size_t len);
void tix_w_align(struct tix_writer *w);
void tix_w_arr(struct tix_writer *w, const void *p, size_t len);
void tix_w_u64(struct tix_writer *w, uint64_t v);
void tix_w_f64(struct tix_writer *w, double d);
void tix_w_str(struct tix_writer *w, const char *s, size_t len);
void tix_w_path(struct tix_writer *w, const char *path, const char *const *paths, size_t n);
void tix_w_strtab(struct tix_writer *w, const struct strtab *strs);
void tix_w_diags(struct tix_writer *w, const char *const *paths, size_t n, const struct diag_list *dl,
		 size_t diag0, size_t dropped0);
bool tix_chunk_ok(const uint8_t *payload, size_t len, const uint64_t *table, size_t c);
const void *tix_r_arr(struct tix_reader *r, uint64_t cnt, size_t size);
const void *tix_r_col(struct tix_reader *r, uint64_t cnt, size_t size);
uint64_t tix_r_u64(struct tix_reader *r);
double tix_r_f64(struct tix_reader *r);
char *tix_r_str(struct tix_reader *r);
char *tix_r_path(struct tix_reader *r, const char *const *paths, size_t n);
bool tix_r_strtab(struct tix_reader *r, struct strtab *strs);
bool tix_r_diags(struct tix_reader *r, const char *const *paths, size_t n, struct diag_list *dl);
bool tix_all_below(const uint32_t *v, size_t n, uint64_t limit);

/* The deferred writes (tindex_defer_*: tindex_cache.c). */
struct defer_job {
	struct tix_kind k; /* a copy: a blob's kind lives on its caller's stack */
	char *name;        /* owned: k.name */
	char *dir, *path;  /* owned */
	struct sbuf key;   /* the files' key as they were read */
	char **paths;      /* owned copies */
	size_t n;
	struct diag_list msgs; /* the loader's messages the index keeps */
	uint64_t max_bytes;
	void *ctx; /* k.keep's, owned (k.drop) */
};

struct tindex_defer {
	pthread_mutex_t lock; /* loaders queue from several threads */
	struct defer_job **jobs;
	size_t n, cap, next; /* next: the first not run */
	_Atomic bool abandon;
	struct diag_list failed;
};

/* tindex_cache.c: loads through the index of kind k for the files paths: maps a valid
 * index, else loads afresh (k->load) and writes the index, now or deferred (io->defer). 0
 * when the result is there (from either). */
int tix_load(const struct tix_kind *k, void *ctx, const char *const *paths, size_t n, uint64_t max_file_bytes,
	     const struct tindex_opts *io, struct tindex_status *st, struct diag_list *dl);

#endif
