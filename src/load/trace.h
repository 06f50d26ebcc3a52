/* SPDX-License-Identifier: MIT */
/* Loads a Chrome-trace JSON file (trace_view.json, msprof_*.json) into a rank store.
 *
 * The file is mapped, split into as many ranges as there are threads, and each range is
 * walked element by element (json_scan finds the bytes, jsmn tokenizes each element). A
 * range other than the first starts at a guessed element boundary; the walk of the range
 * before it confirms the guess or the range is walked again from the exact boundary, so
 * the result never depends on the guess. Metadata, lanes and flows are resolved after
 * all ranges are merged, in file order. */
#ifndef ASCPROF_TRACE_H
#define ASCPROF_TRACE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "sbuf.h"
#include "store.h"

struct trace_load_opts {
	int threads;                  /* 0: one per online CPU */
	_Atomic uint64_t *progress;   /* borrowed for the load, may be NULL: bytes walked so far */
	uint64_t max_file_bytes;      /* 0: no limit; larger files are refused with a message */
	bool jsmn_only;               /* skip the fast scanner: every element through jsmn (tests) */
	/* Tests: a range is split on demand from twice this size on (0: 4 MiB), looked at
	 * every quarter of it; the walk starts in this many ranges (0: one per thread). */
	size_t split_min_bytes;
	int initial_ranges;
};

/* Returns 0 when the file gave an event array (possibly empty or cut short; the
 * diagnostics say what was kept), -1 when nothing could be read from it. */
int trace_load(struct rank_store *rs, const char *path, const struct trace_load_opts *opts,
	       struct diag_list *dl);
/* A timeline written in parts (msprof_slice_0_*.json, msprof_slice_1_*.json ...), read as
 * one trace in the order given. Parts that cannot be read are reported and skipped. */
int trace_load_parts(struct rank_store *rs, const char *const *paths, size_t n,
		     const struct trace_load_opts *opts, struct diag_list *dl);
/* The same over bytes in memory (tests, fuzzing). `name` labels the diagnostics; the
 * buffer is borrowed and must outlive lazy args lookups (trace_event_json). */
int trace_load_buffer(struct rank_store *rs, const char *name, const char *buf, size_t len,
		      const struct trace_load_opts *opts, struct diag_list *dl);

/* The raw JSON text of the element at byte offset `off` of the rank's trace, read again
 * from the file (or the buffer it was loaded from). Returns 0, or -1 with a message in
 * out when the file changed or cannot be read. */
int trace_element_json(const struct rank_store *rs, uint64_t off, struct sbuf *out);

/* The "args" of event ev as "key: value" lines (values unescaped, multi-line values
 * indented), in file order. Returns the number of args, or -1 with a message in out. */
int trace_event_args(const struct rank_store *rs, size_t ev, struct sbuf *out);

#endif
