/* SPDX-License-Identifier: MIT */
/* A rank's source: the one reader its data comes from, chosen per rank from discovery's
 * plan, and the only way the rest of the program reaches a reader.
 *
 *   text    trace_view.json or msprof_*.json (slices), with the CSV tables and the
 *           communication files beside it (trace.h, trace_index.h)
 *   Db      a torch_npu or msprof Db export, with analysis.db beside it (db.h)
 *   tables  no timeline at all: the CSV tables alone; the explorer's device lanes come
 *           from the kernel table (kernel_timeline.h)
 *
 * capture.c calls a source's operations in a fixed order (probe when the capture opens;
 * then, while loading, events and tables side by side, then communication); what a rank
 * shows later (an event's args, the element or row it came from) is read back through
 * the source that filled its store (source_entry_text, source_event_args), never by
 * asking a reader directly. Directories of digests and msprof-analyze's cluster output
 * are opened as analyses (analysis.h's analysis_open), not as ranks. */
#ifndef ASCPROF_SOURCE_H
#define ASCPROF_SOURCE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "sbuf.h"
#include "store.h"
#include "trace_index.h"

struct capture;
struct rank_data;
struct csv_table;
struct kernel_timeline;

/* Text or Db where a rank has both (--source). */
enum capture_source { SOURCE_AUTO, SOURCE_TEXT, SOURCE_DB };

/* What loading a rank's events may use: set from the capture's options. */
struct source_load_ctx {
	int threads;              /* walking threads for this rank */
	uint64_t max_trace_bytes; /* 0: no limit */
	struct tindex_opts *index; /* borrowed: the persistent index */
};

struct source_ops {
	const char *name; /* static: "text", "Db", "tables" */
	/* Whether the reader serves the rank (the first that says yes is used, in the order
	 * Db, text, tables); it may note in rd why (rank_data.source_why) and warn in dl. */
	bool (*probe)(struct rank_data *rd, enum capture_source want, struct diag_list *dl);
	/* The bytes load reads, for the progress line. */
	uint64_t (*load_bytes)(const struct rank_data *rd);
	/* The rank's events into rd->store, progress in rd->trace_bytes_done; sets
	 * rd->trace_failed when nothing could be read. NULL: the store stays empty. */
	void (*load)(struct rank_data *rd, const struct source_load_ctx *ctx, struct diag_list *dl);
	/* With a lazily verified index (tindex_opts.lazy), the columns loading left
	 * unverified; NULL when the reader has none. */
	void (*verify)(struct rank_data *rd, const struct source_load_ctx *ctx, struct diag_list *dl);
	/* The CSV files of the plan are the rank's tables (the capture reads them, many
	 * ranks at a time); else the reader makes its own (tables). */
	bool csv_files;
	/* Tables the reader makes (owned by the caller, which attaches them), at most max
	 * into out; wait_events: the store is being filled beside this call, and a table may
	 * want to follow it (memory). NULL: none. */
	size_t (*tables)(struct rank_data *rd, const _Atomic bool *cancel, bool wait_events, struct csv_table **out,
			 size_t max, struct diag_list *dl);
	/* The communication*.json files of the plan are the rank's; else the reader's own
	 * (comm), into rd->comm. */
	bool comm_files;
	void (*comm)(struct rank_data *rd, struct diag_list *dl);
	/* For a rank whose store stays empty: device lanes from its tables, for the explorer
	 * to draw (owned by the rank: rank_data.timeline); NULL when there are none. */
	struct kernel_timeline *(*timeline)(const struct rank_data *rd);
	/* The raw text an event or counter at offset off came from (a JSON element, a row
	 * as JSON); 0, or -1 with a message in out. */
	int (*entry_text)(const struct rank_store *rs, uint64_t off, struct sbuf *out);
	/* Event ev's args as "key: value" lines; their number, or -1 with a message in out. */
	int (*event_args)(const struct rank_store *rs, size_t ev, struct sbuf *out);
};

extern const struct source_ops source_text, source_db, source_tables;

/* The reader for rd (never NULL: tables when nothing else serves it). */
const struct source_ops *source_pick(struct rank_data *rd, enum capture_source want, struct diag_list *dl);
/* The reader that filled rs. */
const struct source_ops *source_of(const struct rank_store *rs);
/* The entry text and args of what rs holds, through the reader that filled it. */
int source_entry_text(const struct rank_store *rs, uint64_t off, struct sbuf *out);
int source_event_args(const struct rank_store *rs, size_t ev, struct sbuf *out);

#endif
