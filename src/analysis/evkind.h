/* SPDX-License-Identifier: MIT */
/* What an event or a kernel table row is beyond its category: whole collectives (not
 * their sub-tasks) and their payload, and a kernel row's class computed once per distinct
 * (name, core). Shared by the metrics, the op statistics and the alignment. */
#ifndef ASCPROF_EVKIND_H
#define ASCPROF_EVKIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "category.h"
#include "csv_table.h"
#include "store.h"
#include "strtab.h"
#include "u64map.h"

/* Collectives: whole collective operations, not their sub-tasks. On a capture with HCCL's
 * group lanes ("Group 0 Communication"), every event of those lanes; without them, device
 * communication tasks named as collectives are (evkind_collective_name). */
bool evkind_is_group_lane(const struct rank_store *rs, const struct lane *l);
bool evkind_has_group_lanes(const struct rank_store *rs);
bool evkind_collective_name(const char *name);
bool evkind_is_collective_named(const struct rank_store *rs, const struct ev_class *cls, uint32_t ev,
				  bool have_group_lanes);
/* Lane and class first, inline: the scans over every event ask this of each one, and few
 * are on a lane that can hold collectives. */
static inline bool analysis_is_collective(const struct rank_store *rs, const struct ev_class *cls, uint32_t ev,
					  bool have_group_lanes)
{
	const struct lane *l = store_ev_lane(rs, ev);
	if (have_group_lanes ? l->group != LANE_COMM : l->group != LANE_DEVICE || cls[ev].cat != CAT_COMM)
		return false;
	return evkind_is_collective_named(rs, cls, ev, have_group_lanes);
}
/* The type key of an op: its type when given, else its name without collective suffixes
 * (hcom_allReduce__428_5_1 -> hcom_allReduce); written to buf (size bytes). */
const char *evkind_op_type_key(const char *name, const char *type, char *buf, size_t size);
/* The group a collective's name carries: the first number after "__" ("586" in
 * hcom_allReduce__586_0_1; torch_npu's is the same on every rank of one group), written to
 * buf; NULL when the name carries none. */
const char *evkind_collective_group(const char *name, char *buf, size_t size);

/* Groups in order: none first. */
static inline int analysis_group_cmp(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) : (a != NULL) - (b != NULL);
}

/* Whole collectives as op rows, keyed by kind and group (hcom_allReduce__586_0_1 and
 * hcom_allReduce__586_1_1: the row hcom_allReduce of group 586), each call an instance of
 * its row: not one row per call. Per name id of one string table, the key of its row,
 * memoised: a name is parsed once however many calls carry it. */
struct coll_row_key {
	const char *kind;  /* borrowed from strs: "hcom_allReduce" */
	const char *group; /* borrowed from strs: "586", or NULL */
};
struct coll_rows {
	uint32_t *key_of; /* owned: per name id, 0 not asked yet, 1 no collective's, else 2 + key */
	uint32_t n_names;
	bool any_name;    /* every name asked is a collective's (group lanes); else by the name */
	struct coll_row_key *keys; /* owned */
	size_t n_keys, cap;
	struct strtab *strs; /* borrowed: where kinds and groups are interned (must outlive them) */
};
/* n_names: the string table's count; any_name: the events asked are whole collectives
 * whatever their names (evkind_has_group_lanes). */
void evkind_coll_rows_init(struct coll_rows *cr, uint32_t n_names, bool any_name, struct strtab *strs);
/* The key index of a collective's name (id in the table, name its text), UINT32_MAX when
 * it names no collective. */
uint32_t evkind_coll_row(struct coll_rows *cr, uint32_t id, const char *name);
void evkind_coll_rows_free(struct coll_rows *cr);

/* A collective's payload from its args (count x data_type size), in bytes; 0 unknown. */
double evkind_collective_bytes(const struct rank_store *rs, uint32_t ev);

/* A kernel table row's class (category_of on its name and accelerator core), computed once
 * per distinct (name, core) pair of string ids: category_of tries the rule table's
 * substring rules, thousands of instructions a row on a table of a million rows. Start
 * with {0}; evkind_kernel_memo_free after. */
struct kernel_memo {
	struct u64map map; /* name id << 32 | core id -> 1 << 16 | flags << 8 | cat */
	/* owned: per name id, the last core id looked up with it << 32 | its map value (0:
	 * none yet); most names run on one core, so most rows skip the map's hash */
	uint64_t *by_name;
	uint32_t n_names;
};
struct ev_class evkind_kernel_class(struct kernel_memo *m, const struct csv_table *k, size_t row);
void evkind_kernel_memo_free(struct kernel_memo *m);

#endif
