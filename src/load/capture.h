/* SPDX-License-Identifier: MIT */
/* A capture: the discovered plan plus, per rank, the loaded store and CSV tables.
 *
 * Loading runs in the caller's thread (the TUI gives it a thread of its own). Per rank,
 * small CSV tables and communication files come first, then the trace; each finished piece is published by
 * raising the rank's state with release semantics, so a reader that sees a state may
 * read everything that state covers without locks. Nothing is ever written to the
 * capture's directories. */
#ifndef ASCPROF_CAPTURE_H
#define ASCPROF_CAPTURE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "comm_json.h"
#include "csv_table.h"
#include "diag.h"
#include "discover.h"
#include "sbuf.h"
#include "serving.h"
#include "store.h"
#include "trace_index.h"

/* A rank's source: the one reader its data comes from, chosen per rank from discovery's
 * plan, and the only way the rest of the program reaches a reader (capture.h holds the interface, which the
 * text, Db and tables readers implement: source_text.c, source_db.c, source_tables.c).
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
 * the source that filled its store (capture_entry_text, capture_event_args), never by
 * asking a reader directly. Directories of digests and msprof-analyze's cluster output
 * are opened as analyses (analysis.h's analysis_open), not as ranks. */
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
	 * want to follow it (memory); counter_values false: capture_opts.no_counter_values.
	 * NULL: none. */
	size_t (*tables)(struct rank_data *rd, const _Atomic bool *cancel, bool wait_events, bool counter_values,
			 struct csv_table **out, size_t max, struct diag_list *dl);
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

/* The reader that filled rs. */
const struct source_ops *capture_source_of(const struct rank_store *rs);
/* The entry text and args of what rs holds, through the reader that filled it. */
int capture_entry_text(const struct rank_store *rs, uint64_t off, struct sbuf *out);
int capture_event_args(const struct rank_store *rs, size_t ev, struct sbuf *out);


/* The trace's progress; the CSV tables load beside it and say so with csv_ready. */
enum rank_state {
	RANK_PENDING,       /* the trace is not being read yet */
	RANK_TRACE_LOADING, /* the trace is being walked; see trace_bytes_done */
	RANK_TRACE_LOADED,  /* the trace is read; the tables may still be loading */
	RANK_READY,         /* everything is loaded: the store and the tables are readable */
};

struct rank_data {
	const struct rank_plan *plan; /* borrowed from capture.plan */
	const struct source_ops *source; /* static: the reader of this rank (capture.h) */
	/* The Db export read instead of the text one (db.h), or NULL; borrowed from plan. */
	const char *db_path;
	const char *analysis_db_path; /* borrowed from plan: analysis.db beside it (StepTraceTime), or NULL */
	const char *source_why;       /* static: why this source was used */
	struct rank_store store;
	struct csv_table **csvs; /* owned, all tables read */
	size_t n_csvs;
	struct csv_table *by_kind[CSV_KIND_COUNT]; /* borrowed from csvs: the one used per kind */
	struct comm_data comm; /* communication*.json of this rank (readable once csv_ready) */
	_Atomic int state;
	_Atomic bool csv_ready; /* by_kind, csvs and comm are complete and readable */
	_Atomic uint64_t trace_bytes_done;
	uint64_t trace_bytes_total;
	bool trace_failed;
	struct tindex_status index; /* whether the trace came from its index (trace_index.h) */
	size_t csv_index[TINDEX_NOT_WRITTEN + 1]; /* CSV tables by how their index served (per state) */
	size_t csv_deferred; /* of them, written or rebuilt through a deferred write (tindex_opts.defer) */
	struct diag_list trace_diags; /* the trace loader's, until the capture's list takes them */
	/* owned: with capture_opts.timelines, a rank without a timeline file's device lanes
	 * from its tables (source_ops.timeline), readable once the capture is done; or NULL */
	struct kernel_timeline *timeline;
};

/* max_trace_bytes: 0 or this value means none (a trace larger than memory loads: spill.h);
 * max_csv_bytes: 0 sizes the limit from available memory (capture_auto_csv_limit), this
 * value means none. */
#define CAPTURE_NO_LIMIT UINT64_MAX

struct capture_opts {
	int threads;              /* trace walking threads; 0 = one per CPU */
	uint64_t max_trace_bytes; /* refuse larger trace files; 0 = no limit, see above */
	enum capture_source source; /* --source: text or Db where a rank has both */
	uint64_t max_csv_bytes;   /* refuse larger CSV files; 0 = automatic, see above */
	struct tindex_opts index;   /* the persistent trace index; off unless enabled */
	bool timelines; /* the explorer: make rank_data.timeline where a source can */
	/* --summary: a Db's kernel table has its PMU counters' columns, not their values
	 * (TASK_PMU_INFO not scanned): nothing the summary prints reads them */
	bool no_counter_values;
};

struct capture {
	struct capture_plan plan;
	struct rank_data *ranks; /* owned, n_ranks = plan.n_ranks */
	size_t n_ranks;
	struct diag_list diags;
	/* cluster_communication*.json (discovery's cluster_files), readable once the first
	 * rank is csv_ready or the capture is done */
	struct comm_data cluster_comm;
	/* MS Service Profiler output (plan.serving_path), owned, readable once the first rank
	 * is csv_ready or the capture is done; NULL when none */
	struct serving *serving;
	struct capture_opts opts;
	bool usable;      /* discovery found something to load */
	_Atomic bool cancel; /* set by a front end to stop loading between files */
	_Atomic bool done;   /* capture_load finished */
	double load_seconds;
};

/* Discovers path (no data read yet; opts borrowed for the call). Never NULL; owned
 * (capture_free); check `usable` and the diagnostics. */
struct capture *capture_open(const char *path, const struct capture_opts *opts);
/* The directories a run on plan reads (the path given, the cluster output, each rank's
 * worker and output directories, also a worker above an output directory opened alone),
 * borrowed from plan, at most max into out. Nothing is ever written inside them. */
size_t capture_read_dirs(const struct capture_plan *plan, const char **out, size_t max);
/* The one of them path (existing or not, through symlinks) lies inside, or NULL. */
const char *capture_dir_inside(const struct capture_plan *plan, const char *path);
/* Loads every rank: all CSV tables first, then the traces. */
void capture_load(struct capture *cap);
/* With opts.index.lazy, verifies the trace columns that loading left unverified (the
 * analysis reads them; --summary never does): a rank whose index fails is read afresh,
 * with a message in cap->diags. Nothing to do otherwise. */
void capture_verify_columns(struct capture *cap);
void capture_free(struct capture *cap);
/* Memory the program may still use, in bytes: MemAvailable from /proc/meminfo, lowered
 * to what the cgroup's memory.max leaves; ASCPROF_MEM_AVAILABLE (bytes) overrides both
 * (tests). 0 when unknown. */
uint64_t capture_mem_available(void);
/* The largest CSV file whose table fits in avail bytes of memory (0 = unknown: none). */
uint64_t capture_auto_csv_limit(uint64_t avail);

/* The table of a kind for a rank (borrowed from cap), NULL when absent or not loaded yet. */
const struct csv_table *capture_csv(const struct capture *cap, size_t rank_index, enum csv_kind kind);
static inline int capture_rank_state(const struct rank_data *rd)
{
	return atomic_load_explicit(&rd->state, memory_order_acquire);
}
static inline bool capture_rank_csv_ready(const struct rank_data *rd)
{
	return atomic_load_explicit(&rd->csv_ready, memory_order_acquire);
}

#endif
