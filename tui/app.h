/* SPDX-License-Identifier: MIT */
/* The interactive explorer: application state, the view stack and what views read the
 * model through (the main loop is mainloop.h's, the loader thread loader.h's).
 *
 * Threads: the loader thread discovers nothing (capture_open already did), loads every
 * rank (CSV tables first, then traces), runs the analysis and builds the timeline index;
 * it never calls curses. Each finished piece is published once, with release semantics:
 * a rank's state (capture.h), then the analysis and the indexes together (app->pub). The
 * main thread owns curses and every view; it polls for published pieces between keys. */
#ifndef ASCPROF_APP_H
#define ASCPROF_APP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "actions.h"
#include "analysis.h"
#include "canvas.h"
#include "capture.h"
#include "compare.h"
#include "listbox.h"
#include "lod.h"
#include "term.h"

enum view_id {
	VIEW_OVERVIEW,
	VIEW_TIMELINE,
	VIEW_OPS,
	VIEW_STEPS,
	VIEW_RANKS,
	VIEW_BOTTLENECK,
	VIEW_MEMORY,
	VIEW_COMM,
	VIEW_COMPARE, /* numbered 9 in compare mode only */
	VIEW_HELP,
	VIEW_DOCS,
	VIEW_OP_DETAIL,
	VIEW_COMPARE_OP,
	VIEW_COMM_DETAIL,
	VIEW_CLUSTER, /* key 0, outside the numbered cycle */
	VIEW_SERVING, /* key V, in the cycle when the capture holds serving output */
	VIEW_MOE,     /* key X, outside the tab bar (moe.h) */
	VIEW_COUNT
};
#define VIEW_MAIN_COUNT 8 /* the numbered views, 1..8 (9 with a comparison) */

/* What the loader publishes when it is done: read-only for the main thread. The struct
 * and everything it points to are owned by the app (freed by mainloop_run as it returns);
 * the loader hands them over with the publication. */
struct published {
	struct analysis *an;    /* a digest directory's is app->digests itself */
	struct lane_lod **lods; /* per capture rank index (NULL for ranks without a trace) */
	/* compare mode: AFTER's analysis and indexes (--compare), and the comparison */
	struct analysis *an_b;
	struct lane_lod **lods_b;
	struct comparison *cmp;
	char cmp_error[128]; /* why there is no comparison (--compare-ranks with a missing rank) */
	enum tindex_state an_index; /* the analysis through the index cache (USED: read from it) */
	/* the timeline indexes through the index cache: per capture rank index, the mappings
	 * lods (and the analyses' classes) point into (owned); how they served, all ranks
	 * together (USED: every one read from it) */
	struct tindex_blob *tl_blobs, *tl_blobs_b;
	enum tindex_state tl_index;
};

struct app;
struct comm_item;

/* Where a view opens (app_open): one target per view that takes one, the view id its tag.
 * Pointers in a target are borrowed for the call unless said otherwise. */
struct timeline_target {
	size_t rank_index; /* into cap->ranks; becomes the selected rank */
	int64_t t0, t1;    /* the window shown, [t0, t1) on that rank's clock */
	uint32_t ev;       /* the event selected (UINT32_MAX: none) */
};
struct op_target {
	const char *name; /* copied */
	int scope;        /* enum op_scope */
	const char *group; /* copied: a collective row's group, or NULL */
	bool collective;   /* the row of whole collectives of one kind (name) and group */
};
struct compare_op_target {
	const char *name; /* copied */
	int scope, phase; /* enum op_scope, enum step_phase */
	const char *group; /* copied, as op_target's */
	bool collective;
};
struct comm_detail_target {
	const char *title;             /* copied */
	const struct comm_item *items; /* borrowed from the published analysis: kept while it lives */
	size_t n;
};
struct view_target {
	union {
		struct timeline_target timeline;         /* VIEW_TIMELINE */
		struct op_target op;                     /* VIEW_OP_DETAIL */
		struct compare_op_target compare_op;     /* VIEW_COMPARE_OP */
		struct comm_detail_target comm_detail;   /* VIEW_COMM_DETAIL */
	};
};

/* A view: its state (st) is created once, on first use, owned by the app and passed back
 * to every call; destroy frees it when the app ends. The app pointer is borrowed for the
 * call, the canvas too. Strings are static literals (title and hint marked N_()). */
struct view_ops {
	const char *title;
	unsigned scopes; /* key scopes (actions.h) besides GLOBAL */
	void *(*create)(struct app *app);
	void (*destroy)(void *st);
	void (*draw)(void *st, struct app *app, struct canvas *cv, int x, int y, int w, int h);
	int (*handle)(void *st, struct app *app, enum action act);
	/* new data was published, or the selected rank changed */
	void (*update)(void *st, struct app *app);
	/* search or filter text entered (dir +1/-1 for next/previous, 0 for a new text; the
	 * text is borrowed for the call) */
	bool (*search)(void *st, struct app *app, const char *text, int dir);
	bool (*filter)(void *st, struct app *app, const char *text);
	/* a short hint for the status line */
	const char *hint;
	/* :export: writes the view's table as CSV rows (a header row first) to out (borrowed),
	 * every row and column whatever fits on screen; returns the data rows written */
	size_t (*export_csv)(void *st, struct app *app, FILE *out);
	/* app_open with a target: show it (the member of target named for this view) */
	void (*open)(void *st, struct app *app, const struct view_target *target);
};

extern const struct view_ops overview_view_ops, timeline_view_ops, ops_view_ops, steps_view_ops,
	ranks_view_ops, cluster_view_ops, moe_view_ops, bottleneck_view_ops, memory_view_ops, comm_view_ops, help_view_ops,
	docs_view_ops, op_detail_view_ops, compare_view_ops, compare_op_view_ops, comm_detail_view_ops, serving_view_ops;

enum compare_arg { CMP_ARG_NONE, CMP_ARG_CAPTURES, CMP_ARG_RANKS };

/* The command line's choices; the strings are borrowed from argv (they outlive the app). */
struct app_opts {
	enum term_mode mode;
	enum compare_arg compare;
	const char *compare_path; /* CMP_ARG_CAPTURES: AFTER (the path given to mainloop_run is BEFORE) */
	int compare_ranks[2];     /* CMP_ARG_RANKS: the two rank numbers */
	const char *term_out;  /* TERM_FILE: where curses' bytes go */
	const char *script;    /* keys and :commands, for the headless modes (a path) */
	struct capture_opts capture;
	int width, height;     /* headless size */
};

/* The explorer's state, owned by mainloop_run (which frees everything below as it
 * returns). Views do not read its fields: they go through the accessors below. */
struct app {
	struct capture *cap;   /* owned; the loader thread fills it (capture.h's publication) */
	struct capture *cap_b; /* owned: --compare's AFTER (cap is BEFORE); NULL otherwise */
	/* a directory of digests: its analysis (owned), published as is by the loader (cap is
	 * then the analysis's own capture, freed with it) */
	struct analysis *digests;
	struct app_opts opts;
	pthread_t loader;
	bool loader_started;
	/* the loader is done: published, then the index writes put off until then
	 * (tindex_opts.defer) written; the main thread waits for it at quit */
	_Atomic bool loader_done;
	_Atomic(struct published *) pub; /* owned; NULL until the loader publishes */
	const struct published *seen;    /* borrowed: pub as the views were last refreshed with */
	double t_start;

	struct canvas cv;
	/* the view table (static), VIEW_COUNT entries: the main loop's, given at the start so
	 * that the app never names a view (views call the app, not the other way) */
	const struct view_ops *const *views;
	void *view_state[VIEW_COUNT]; /* owned, each its view's create's (NULL until first used) */
	enum view_id stack[16];
	int depth;
	size_t rank;              /* index into cap->ranks */
	enum align_mode align;

	/* the prompt line: '/' search, '\\' filter, ':' command */
	char prompt_kind;
	char prompt[256];
	size_t prompt_len;
	char last_search[256];
	char message[256];
	enum style message_style;

	bool quit;
	bool dirty;
	int frames;

	/* Benchmarks (ASCPROF_BENCH_OUT): timings as "name value" lines (owned, closed at the
	 * end). The loader sets its times before publishing, so the main thread reads them
	 * after the acquire. */
	FILE *bench;
	double t_loaded, t_analysed, t_indexed; /* seconds since t_start */
	double cpu_indexed;   /* the process's CPU seconds when the loader published */
	double index_write_s; /* the deferred index writes' time (read after loader_done) */
};

/* ---- for views ----------------------------------------------------------------------
 * Views read the model through these, never through struct app's fields. Every pointer
 * returned is borrowed: the capture and its ranks live as long as the app; what the loader
 * published (the analyses, indexes and comparison) lives from its publication to the end. */
/* The capture shown (BEFORE in compare mode). */
const struct capture *app_capture(const struct app *app);
/* Its ranks, and rank_index's (an index into them). */
size_t app_rank_count(const struct app *app);
const struct rank_data *app_rank_data_of(const struct app *app, size_t rank_index);
/* Event ev's args (of a rank's store, or a kernel timeline's) as "key: value" lines, read
 * back through the reader that filled the store; their number, or -1 with a message. */
int app_event_args(const struct rank_store *rs, size_t ev, struct sbuf *out);
/* The serving output's figures (service.h), NULL while loading or without serving output. */
const struct service_analysis *app_service(const struct app *app);
/* The serving output itself (serving.h: requests, batches, forwards, samples), NULL while
 * loading or without one. */
const struct serving *app_serving(const struct app *app);
/* The capture's diagnostics: a thread-safe list the loader still appends to. */
struct diag_list *app_diags(struct app *app);
/* The selected rank, an index into the capture's ranks; selecting one refreshes nothing by
 * itself (the view that selects updates itself; the others on their next push). */
size_t app_rank_index(const struct app *app);
void app_select_rank(struct app *app, size_t rank_index);
/* How ranks' clocks are aligned (a global key cycles it). */
enum align_mode app_align(const struct app *app);
/* What the loader published, or NULL while loading. */
const struct published *app_pub(const struct app *app);
/* The analysis of the selected rank (or of rank_index), or NULL while loading or for a
 * rank the analysis left out (published). */
const struct rank_analysis *app_rank_analysis(const struct app *app);
const struct rank_analysis *app_rank_analysis_of(const struct app *app, size_t rank_index);
/* The selected rank's data; NULL for a capture without ranks. */
const struct rank_data *app_rank_data(const struct app *app);
/* The timeline index of rank_index's lanes (published): NULL while loading or without a
 * trace. */
const struct lane_lod *app_lods(const struct app *app, size_t rank_index);
/* The status line's message, formatted into the app's own buffer. */
void app_message(struct app *app, enum style st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Brings view v to the top of the stack as it was left. */
void app_push(struct app *app, enum view_id v);
/* The one door between views: view v shows target (its view_ops' open; NULL: as it was
 * left), then comes to the top of the stack. target is borrowed for the call: the view
 * copies what it keeps (names, titles), but a comm detail's items (see the target). */
void app_open(struct app *app, enum view_id v, const struct view_target *target);
/* Compare mode (--compare or --compare-ranks). */
bool app_comparing(const struct app *app);
/* The comparison (published), NULL while loading or without one. */
const struct comparison *app_comparison(const struct app *app);
/* The pair of ranks shown (inside the comparison): the selected rank's in --compare mode.
 * NULL without one. */
const struct compare_pair *app_compare_pair(const struct app *app);
/* One side of the pair shown (0: BEFORE or the first rank, 1: AFTER or the second). Every
 * pointer is borrowed from the app (captures and published analyses). */
struct compare_side {
	const char *label;
	const struct rank_data *rd;
	const struct rank_analysis *ra;
	const struct lane_lod *lods; /* NULL without a trace */
};
/* Fills *out (the caller's); false without a pair. */
bool app_compare_side(const struct app *app, int side, struct compare_side *out);
/* Time formatting for views: "12.345 ms", relative durations, into buf (the caller's, size
 * bytes); returns buf. */
const char *app_fmt_dur(int64_t ns, char *buf, size_t size);

/* What views read of a rank's analysis (result.h's struct rank_analysis), field by field:
 * views never write `ra->` (tests/views_door.sh), so what they depend on is this list, and
 * a field that moves or becomes computed changes here, not in eleven views. They compute
 * nothing; every pointer is borrowed from ra (arrays: their first element). */
/* the rank number */
static inline int app_ra_rank(const struct rank_analysis *ra) { return ra->rank; }
/* its index in the capture's ranks */
static inline size_t app_ra_rank_index(const struct rank_analysis *ra) { return ra->rank_index; }
static inline bool app_ra_has_trace(const struct rank_analysis *ra) { return ra->has_trace; }
static inline bool app_ra_has_timeline(const struct rank_analysis *ra) { return ra->has_timeline; }
/* the first event: relative times are from here */
static inline int64_t app_ra_t0(const struct rank_analysis *ra) { return ra->t0; }
/* metric values, by enum metric (valid where have) */
static inline const double *app_ra_v(const struct rank_analysis *ra) { return ra->v; }
static inline const bool *app_ra_have(const struct rank_analysis *ra) { return ra->have; }
/* per event of the rank's store */
static inline const struct ev_class *app_ra_cls(const struct rank_analysis *ra) { return ra->cls; }
static inline const struct step *app_ra_steps(const struct rank_analysis *ra) { return ra->steps; }
static inline size_t app_ra_n_steps(const struct rank_analysis *ra) { return ra->n_steps; }
static inline enum step_source app_ra_step_source(const struct rank_analysis *ra) { return ra->step_source; }
static inline const char *app_ra_step_evidence(const struct rank_analysis *ra) { return ra->step_evidence; }
static inline enum phase_source app_ra_phase_source(const struct rank_analysis *ra)
{
	return ra->phase_source;
}
static inline enum confidence app_ra_phase_conf(const struct rank_analysis *ra) { return ra->phase_conf; }
static inline const char *app_ra_phase_evidence(const struct rank_analysis *ra) { return ra->phase_evidence; }
static inline enum workload app_ra_workload(const struct rank_analysis *ra) { return ra->workload; }
static inline const struct op_stat *app_ra_ops(const struct rank_analysis *ra) { return ra->ops; }
static inline size_t app_ra_n_ops(const struct rank_analysis *ra) { return ra->n_ops; }
static inline const struct op_type_stat *app_ra_op_types(const struct rank_analysis *ra)
{
	return ra->op_types;
}
static inline size_t app_ra_n_op_types(const struct rank_analysis *ra) { return ra->n_op_types; }
static inline const struct op_type_stat *app_ra_op_shapes(const struct rank_analysis *ra)
{
	return ra->op_shapes;
}
static inline size_t app_ra_n_op_shapes(const struct rank_analysis *ra) { return ra->n_op_shapes; }
/* each [start, end] */
static inline const int64_t *app_ra_longest_idle(const struct rank_analysis *ra) { return ra->longest_idle; }
static inline const int64_t *app_ra_longest_exposed(const struct rank_analysis *ra)
{
	return ra->longest_exposed;
}
static inline const int64_t *app_ra_longest_copy(const struct rank_analysis *ra) { return ra->longest_copy; }
static inline const int64_t *app_ra_longest_sync(const struct rank_analysis *ra) { return ra->longest_sync; }
static inline const struct attribution *app_ra_attr(const struct rank_analysis *ra) { return &ra->attr; }
static inline const struct gap_analysis *app_ra_gaps(const struct rank_analysis *ra) { return &ra->gaps; }
/* BN_COUNT of them */
static inline const struct bottleneck *app_ra_bn(const struct rank_analysis *ra) { return ra->bn; }
static inline double app_ra_combined_gain_low(const struct rank_analysis *ra)
{
	return ra->combined_gain_low;
}
static inline double app_ra_combined_gain_high(const struct rank_analysis *ra)
{
	return ra->combined_gain_high;
}
static inline const struct phase_verdict *app_ra_by_phase(const struct rank_analysis *ra)
{
	return ra->by_phase;
}
static inline size_t app_ra_n_by_phase(const struct rank_analysis *ra) { return ra->n_by_phase; }
/* by enum align_mode */
static inline const int64_t *app_ra_offset_ns(const struct rank_analysis *ra) { return ra->offset_ns; }
static inline int64_t app_ra_residual_ns(const struct rank_analysis *ra) { return ra->residual_ns; }
static inline size_t app_ra_matched_collectives(const struct rank_analysis *ra)
{
	return ra->matched_collectives;
}
static inline bool app_ra_collective_ok(const struct rank_analysis *ra) { return ra->collective_ok; }
static inline const struct coll_outlier *app_ra_outliers(const struct rank_analysis *ra)
{
	return ra->outliers;
}
static inline size_t app_ra_n_outliers(const struct rank_analysis *ra) { return ra->n_outliers; }
static inline const struct mem_analysis *app_ra_mem(const struct rank_analysis *ra) { return &ra->mem; }
static inline const struct advice_finding *app_ra_advice(const struct rank_analysis *ra)
{
	return ra->advice;
}
static inline size_t app_ra_n_advice(const struct rank_analysis *ra) { return ra->n_advice; }
/* by enum advice_rule_id */
static inline const uint8_t *app_ra_advice_status(const struct rank_analysis *ra)
{
	return ra->advice_status;
}

/* A search landed on match k (from 1) of n: the status line says so (for views whose
 * search is not a listbox_search). */
void app_search_matches(struct app *app, size_t k, size_t n);

#endif
