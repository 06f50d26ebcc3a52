/* SPDX-License-Identifier: MIT */
/* Digest files: one file per rank holding what the reports and the cluster analysis read of
 * that rank, without its raw events (the analysis's digest.h says which fields; dio.h how
 * they are encoded). A node summarises its own ranks (`--digest OUTDIR CAPTURE...`, run by
 * the cluster's launcher); one machine opens the directory of digests.
 *
 * Format (all integers little-endian):
 *   magic    8 bytes  "ASCPDIG\n"
 *   version  u32      DIGEST_VERSION; another version is refused with a message
 *   reserved u32      0
 *   length   u64      payload bytes
 *   checksum u64      XXH3-64 of the payload (seed 0)
 *   payload           the fields (dio.h), in the analysis's order (digest.c, io_rank)
 *
 * Files are named rank<R>.<host>[.d<device>].apdigest and written under a temporary name,
 * then renamed: a reader never sees half a file, and two nodes never write the same name
 * unless they hold the same rank on the same host. */
#ifndef ASCPROF_DIGEST_FILE_H
#define ASCPROF_DIGEST_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "sbuf.h"

#define DIGEST_MAGIC "ASCPDIG\n"
#define DIGEST_VERSION 14u
#define DIGEST_HEADER 32
#define DIGEST_SUFFIX ".apdigest"

/* The header's room at the start of out; the payload follows. */
void digest_file_begin(struct sbuf *out);
/* The header of a whole file in memory (len bytes, header and payload) filled in. */
void digest_file_seal(char *buf, size_t len);
/* 0 when buf holds a whole digest of this version (its payload at buf + DIGEST_HEADER),
 * else -1 with the reason in why (size bytes). */
int digest_file_check(const char *buf, size_t len, struct sbuf *why);
/* A digest file read whole (owned, NUL-terminated, *len bytes), or NULL with why. */
char *digest_file_read(const char *path, size_t *len, struct sbuf *why);
/* The *.apdigest files of a directory (or the file itself), owned, *n of them. */
char **digest_file_list(const char *path, size_t *n);
/* True when path is a digest file, or a directory holding at least one *.apdigest. */
bool digest_file_is(const char *path);
/* This machine's host name (for the file name and the identity). */
void digest_file_host(char *host, size_t size);
/* Writes buf as rank's digest in outdir (created if missing), atomically; 0, or -1 with a
 * diagnostic in dl. */
int digest_file_write(const char *outdir, int rank, int device_id, const char *host, const char *buf, size_t len,
		      struct diag_list *dl);

#endif
