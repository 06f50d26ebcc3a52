/* SPDX-License-Identifier: MIT */
/* Digests: one file per rank holding what the reports and the cluster analysis read of
 * that rank, without its raw events. A node summarises its own ranks (`--digest OUTDIR
 * CAPTURE...`, run by the cluster's launcher); one machine opens the directory of digests.
 *
 * Format (all integers little-endian):
 *   magic    8 bytes  "ASCPDIG\n"
 *   version  u32      DIGEST_VERSION; another version is refused with a message
 *   reserved u32      0
 *   length   u64      payload bytes
 *   checksum u64      XXH3-64 of the payload (seed 0)
 *   payload           fields in a fixed order (digest.c, io_rank): integers as LEB128
 *                     varints (signed ones zigzag-coded), doubles as their 8 bytes,
 *                     strings once each (a tag: 0 none, 1 new: length, bytes and a NUL,
 *                     k + 2 the k-th string met before), arrays as a count then elements
 * The writer and the reader run the same field walk (one function, two directions), so
 * they cannot disagree about the order. The payload starts with the identity (rank, host,
 * device, versions, capture path, trace bytes), then metrics, steps, op statistics, the
 * attribution, each phase's partition (version 9), bottlenecks, memory, every collective
 * (name, end, duration) and the rank's communication*.json records as loaded (comm_json.h;
 * version 3).
 *
 * Files are named rank<R>.<host>[.d<device>].apdigest and written under a temporary name,
 * then renamed: a reader never sees half a file, and two nodes never write the same name
 * unless they hold the same rank on the same host. */
#ifndef ASCPROF_DIGEST_H
#define ASCPROF_DIGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

#define DIGEST_MAGIC "ASCPDIG\n"
#define DIGEST_VERSION 10u
#define DIGEST_HEADER 32
#define DIGEST_SUFFIX ".apdigest"

/* What identifies a digest's rank (filled on read; borrowed strings of the digest). */
struct digest_ident {
	int rank;
	int device_id;
	const char *host, *label, *capture_path, *torch_npu_version, *cann_version; /* borrowed (above) */
	uint64_t trace_bytes; /* of the rank's trace when it was digested */
	int64_t t0;           /* the rank's first event (ns, its clock) */
	/* borrowed: profiler_metadata.json's layout groups as parallel_groups_format writes
	 * them, or NULL (the report labels communication groups by them) */
	const char *layout;
};

/* Writes rank i of an analysis to outdir (created if missing). Returns 0, or -1 with a
 * diagnostic in dl. *bytes_out (when not NULL) gets the file's size. */
int digest_write(const struct analysis *an, size_t i, const char *outdir, struct diag_list *dl,
		 uint64_t *bytes_out);

/* True when path is a digest file, or a directory holding at least one *.apdigest. */
bool digest_path_is_digests(const char *path);

/* Opens the digests of path (a digest file or a directory of them): an analysis like
 * analysis_run's, with from_digests set and a capture of its own (freed with it).
 * Broken digests, other versions, duplicated ranks and ranks of another run are left out
 * with a message in the capture's diagnostics. Never NULL (owned: analysis_free); n_ranks
 * may be 0. */
struct analysis *digest_open(const char *path);

/* What opens without loading a capture: digests (digest_open), else msprof-analyze's
 * cluster_analysis_output (cluster_output_open), owned (analysis_free); NULL for anything
 * else. */
struct analysis *digest_open_summaries(const char *path);

/* Buffers a digest-read analysis keeps, freed together. */
struct digest_keep *digest_keep_new(void);
void digest_keep_add(struct digest_keep *k, void *p); /* takes p (malloc'd) */
void digest_keep_free(struct digest_keep *k);

/* Reads one digest buffer into ra (its collectives and its communication data, owned by
 * the caller: comm_data_free); 0, or -1 with a message in why
 * (size bytes). The rank's strings point into buf, which must outlive ra, and so must
 * keep (it takes the stubs of the tables the memory report names). */
int digest_parse(char *buf, size_t len, struct digest_keep *keep, struct rank_analysis *ra, struct digest_ident *id,
		 struct coll_inst **colls, size_t *n_colls, struct comm_data *comm, char *why, size_t size);

/* A capture's analysis through the index cache (trace_index.h): the first --report of a
 * capture writes each rank's analysis in digest form with the analysis' own messages; the
 * next one reads them back and computes again only what spans ranks (as over digest
 * files), so a reopen neither parses nor analyses. The index is keyed by every file of the
 * capture (traces, CSV tables, communication, profiler_info and metadata files: identity,
 * size, mtime, ctime), the program, the messages' language and the options that change
 * what is loaded: any change and the analysis is made afresh. A capture whose load gave an
 * error (a refused or unreadable file) is not indexed. Beside the digests the index holds
 * what a digest file leaves out and the explorer shows (the steps' marker events, the
 * findings' events, the memory tables' rows, resolved to the capture's own tables). A
 * rank read from the index has no classes (cls NULL): the explorer classifies again.
 * Returns analysis_run_with(cap, hook), or the same analysis from the index; st (may be
 * NULL) says which; cap's messages get a corrupt index's message. */
struct analysis *analysis_index_run(struct capture *cap, const struct analysis_hook *hook, struct tindex_status *st);

#endif
