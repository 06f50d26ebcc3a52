/* SPDX-License-Identifier: MIT */
/* An op's instances on a rank's timeline: the events of one name on the lanes of a scope,
 * and the timeline's per-op rows (one row per busy device op, its instances by start) with
 * what a row covers of a time span. Built on the main thread when a view asks; nothing
 * here is shared between threads. */
#ifndef ASCPROF_OP_ROWS_H
#define ASCPROF_OP_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"
#include "store.h"

/* Whether a lane of group g holds ops of scope (enum op_scope): device lanes for device,
 * host lanes for host, both for all. */
bool op_rows_lane_in_scope(int scope, enum lane_group g);

/* What an op row counts: the events of one name, or the calls of whole collectives of one
 * kind and group (struct op_stat's collective rows; evkind.h). */
struct op_key {
	const char *name;  /* the op's name, or the collectives' kind */
	const char *group; /* the collectives' group, or NULL */
	bool collective;
};
static inline struct op_key op_key_of(const struct op_stat *o)
{
	return (struct op_key){o->name, o->group, o->collective};
}
/* An op row's name as shown: a collective's with its group ("hcom_allReduce (group 586)");
 * written to buf, which is returned. */
const char *op_rows_label(const char *name, const char *group, char *buf, size_t size);

/* The instances of key on the lanes of scope (enum op_scope), sorted by start (ties by
 * event index): the events of its name, or its collectives' calls wherever they run (cls:
 * the events' classes, which tell them; NULL: none found). *out is owned by the caller
 * (NULL when there are none); returns their count. */
size_t op_rows_instances(const struct rank_store *rs, const struct ev_class *cls, struct op_key key, int scope,
			 uint32_t **out);
/* Whether a kernel table's name names one of key's instances (a CSV row behind it). */
bool op_rows_csv_name_in(struct op_key key, const char *name);

/* Instances (evs, n of them, borrowed) by step of ra: step_ns[k] and calls[k] (the
 * caller's arrays of ra->n_steps, zeroed here) sum the durations and count the instances
 * starting in step k (result_step_at; others count in no step). Returns the longest
 * instance's duration, 0 without any. */
int64_t op_rows_by_step(const struct rank_analysis *ra, const struct rank_store *rs, const uint32_t *evs,
			size_t n, int64_t *step_ns, size_t *calls);

/* One device op of the rank (all phases) as a timeline row. */
struct op_row {
	const char *name; /* borrowed from the rank's op statistics (lives as long as the analysis) */
	const char *group; /* a collective row's group, borrowed as name; else NULL */
	uint32_t *evs;    /* owned: its instances on device lanes but wait tasks, sorted by start */
	size_t n;
	int64_t total, max; /* the op statistics' total and longest instance, ns */
	int cat;            /* enum ev_category of the op */
	bool collective;    /* the calls of whole collectives of one kind and group */
};

enum op_rows_sort { OP_ROWS_BY_TOTAL, OP_ROWS_BY_COUNT, OP_ROWS_BY_NAME, OP_ROWS_BY_MAX, OP_ROWS_SORT_COUNT };

/* Rows for the first max_rows device ops of ra's statistics (which are by total time) whose
 * name (or a collective's call) is in rs, sorted by `sort` (then by name); cls is the events' classes (ra->cls, or a
 * kernel-table timeline's). *out is owned by the caller (op_rows_free); returns the count. */
size_t op_rows_build(const struct rank_analysis *ra, const struct rank_store *rs, const struct ev_class *cls,
		     size_t max_rows, enum op_rows_sort sort, struct op_row **out);
/* Sorts rows again (a stable order: ties by name). */
void op_rows_sort(struct op_row *rows, size_t n, enum op_rows_sort sort);
void op_rows_free(struct op_row *rows, size_t n);

/* What instances (evs, n of them by start, borrowed; none longer than max_dur) cover of
 * [a, b): the summed overlap in ns, and in *seen how many overlap, counting stops at cap
 * (the sum then covers only those). For a row: row->evs, row->n, row->max. */
int64_t op_rows_cover(const struct rank_store *rs, const uint32_t *evs, size_t n, int64_t max_dur, int64_t a,
		      int64_t b, int cap, int *seen);

#endif
