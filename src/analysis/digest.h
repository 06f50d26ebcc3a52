/* SPDX-License-Identifier: MIT */
/* Digests, the analysis's side: which fields of a rank's analysis a digest holds, in one
 * walk that writes and reads them (io_rank, over dio.h's primitives), and what is made of
 * a directory of them. The file around the fields is digest_file.h's. The payload starts
 * with the identity (rank, host, device, versions, capture path, trace bytes), then
 * metrics, steps, op statistics, the attribution, each phase's partition (version 9),
 * bottlenecks, memory, every collective (name, end, duration) and the rank's
 * communication*.json records as loaded (comm_json.h; version 3). What spans ranks is not
 * in a digest: the driver (analysis.h) computes it again over every rank read. */
#ifndef ASCPROF_DIGEST_H
#define ASCPROF_DIGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture.h"
#include "digest_file.h"
#include "dio.h"
#include "result.h"

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

/* The digests of path (a digest file or a directory of them) as an analysis with
 * from_digests set and a capture of its own (freed with it), the capture-level passes not
 * yet run (the driver's analysis_from_digests runs them). beside (with beside_an, its
 * analysis; both borrowed, or NULL): a capture found beside the digests, taken in through
 * the same encoding. Broken digests, other versions, duplicated ranks and ranks of another
 * run are left out with a message in the capture's diagnostics. Never NULL; n_ranks may
 * be 0. */
struct analysis *digest_read_dir(const char *path, struct capture *beside, const struct analysis *beside_an);

/* Reads one digest buffer into ra (its collectives and its communication data, owned by
 * the caller: comm_data_free); 0, or -1 with a message in why
 * (size bytes). The rank's strings point into buf, which must outlive ra, and so must
 * keep (it takes the stubs of the tables the memory report names). */
int digest_parse(char *buf, size_t len, struct digest_keep *keep, struct rank_analysis *ra, struct digest_ident *id,
		 struct coll_inst **colls, size_t *n_colls, struct comm_data *comm, struct sbuf *why);

/* A capture's analysis in the index cache (the driver's analysis_index_run): each rank's
 * analysis in digest form with the analysis' own messages, then what a digest file leaves
 * out and the explorer shows (the steps' marker events, the findings' events, the memory
 * tables' rows). Owned, *len bytes. */
char *digest_index_encode(const struct analysis *an, size_t *len);
/* Those bytes read back over cap (borrowed, loaded): the ranks from their digests, then
 * cross_ranks (the driver's capture-level passes), then the events. NULL when the bytes do
 * not read; *bad when the ranks read and the events did not (the caller frees it). */
struct analysis *digest_index_decode(const struct capture *cap, const char *buf, size_t len,
				     void (*cross_ranks)(struct analysis *an), bool *bad);

#endif
