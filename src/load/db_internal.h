/* SPDX-License-Identifier: MIT */
/* What the Db reader's parts share (db.h is the public face): opening and lookups
 * (db_open.c), the store builder (db_build.c) that the table readers (db_events.c) fill,
 * and the row text for drill-down (db_args.c). Never included outside src/load/db_*.c. */
#ifndef ASCPROF_DB_INTERNAL_H
#define ASCPROF_DB_INTERNAL_H

#include <sqlite3.h>

#include "db.h"
#include "u64map.h"

/* ---- db_open.c ---- */

/* Why a name of the file is not read as a table: "a view", "a virtual table", "a table
 * with generated columns" (untranslated, N_), or NULL when there is nothing by that name. */
const char *db_not_table_kind(sqlite3 *h, const char *table);
/* The message for a name that is there but not read as a table (see db_has_table). */
void db_not_table_note(sqlite3 *h, const char *path, const char *table, struct diag_list *dl);

/* A value by key from a table the file may not index (STRING_IDS by id, ENUM_MODULE by
 * id): one `WHERE id = ?` per key is a scan each without an index, quadratic (36k names
 * took 18 s). The keys and rowids are read once and sorted; a value is then fetched by
 * rowid, which every table indexes. The first row of a repeated key wins, as a scan's. */
struct db_keyed {
	sqlite3_stmt *by_rowid; /* SELECT value FROM table WHERE rowid = ?; NULL: nothing to look up */
	int64_t (*pairs)[2];    /* (key, rowid), sorted; NULL when the key is the rowid */
	size_t n;
};
void db_keyed_open(struct db_keyed *k, sqlite3 *h, const char *table, const char *key, const char *value);
/* The value of key (valid until the next call), NULL when there is none or it is NULL. */
const char *db_keyed_get(struct db_keyed *k, int64_t key);
void db_keyed_close(struct db_keyed *k);

/* A scan of a whole table that hands each row's values to a C function from inside
 * SQLite's loop (SELECT 1 FROM table WHERE ascprof_row(?, cols)), for tables of a million
 * rows where stepping the rows out costs as much as reading them. row gets the values of
 * cols in order (unprotected, valid during the call) and returns false to stop the scan.
 * The handle's work budget still applies. False when the statement fails (a missing
 * column, the budget spent), after the rows it saw. */
struct db_scan {
	bool (*row)(void *ctx, sqlite3_value **v);
	void *ctx;
};
bool db_scan(sqlite3 *h, const char *table, const char *cols, const struct db_scan *sc);

/* Column names of a table, case-insensitive lookup. */
struct db_cols {
	char **names;
	size_t n;
};

bool db_cols_load(sqlite3 *h, const char *table, struct db_cols *c);
void db_cols_free(struct db_cols *c);
/* The column's name as the table spells it, NULL when it has none. */
const char *db_cols_has(const struct db_cols *c, const char *name);

/* An int64 from a column: INTEGER as is, TEXT as exact decimal digits, REAL only when
 * integral. False for NULL or anything else. */
bool db_col_i64(sqlite3_stmt *st, int c, int64_t *out);
/* A column's text, "" for NULL. */
const char *db_col_text(sqlite3_stmt *st, int c);

/* ---- db_build.c ---- */

/* Table codes in an event's offset (the rowid below): see db_off_src. */
enum db_src { SRC_NONE, SRC_PYTORCH_API, SRC_CANN_API, SRC_TASK, SRC_COMM_OP, SRC_COMM_TASK,
	      SRC_OVERLAP, SRC_MSTX, SRC_GC, SRC_COUNT };
extern const char *const db_src_table[SRC_COUNT];
/* The table of an event's offset (SRC_NONE when it names none) and the row's rowid. */
unsigned db_off_src(const struct rank_store *rs, uint64_t off, int64_t *rowid);

enum { FIN_H2D, FIN_ASYNC, FIN_CATS };
#define DB_HOST_SEEN 16
struct finset {
	uint64_t lo, range;        /* dense: bits over [lo, lo + range) */
	uint64_t *member;          /* dense: the ids present */
	uint64_t *ids;             /* sparse: sorted, unique */
	size_t n;
	uint64_t *started[FIN_CATS]; /* per cat, a bit per place: a start was read */
};
/* One rank's store as its rows are read (db_load_rank). */
struct db_build {
	struct rank_store *rs;
	const char *path;
	struct diag_list *dl;
	sqlite3 *h;
	/* the starts of the block being filled: a block is laid out in the store's 32-bit
	 * column as it completes (a full-width column beside it was a twelfth of the peak) */
	int64_t blk[1 << STORE_TS_SHIFT];
	size_t cap_far;
	uint32_t *dur, *name, *kind;
	size_t n, cap;
	size_t cap_long, cap_lanes, cap_kinds, cap_attrs, cap_flows, cap_tracks, cap_ctr;
	struct u64map lane_map, kind_map, attr_map;
	uint32_t s_python, s_cann, s_hw, s_hccl, s_overlap, s_gc; /* process names */
	uint32_t c_cpu_op, c_enqueue, c_dequeue, c_python_function, c_mstx;
	uint32_t c_async_npu, c_h2d, c_queue, c_fwdbwd; /* flow cats */
	uint32_t groups[64]; /* HCCL group names in order of appearance */
	size_t n_groups;
	size_t per_src[SRC_COUNT];
	bool src_empty[SRC_COUNT]; /* the table counted no rows (db_build_reserve) */
	int64_t session_lo, session_hi; /* rows outside are another session's; both 0: none */
	uint32_t last_kind, last_kind_key[3];
	struct u64map sids;      /* STRING_IDS id -> strtab id, filled as ids are met */
	struct db_keyed strings;    /* STRING_IDS by id */
	/* the host lanes of the latest threads met (host_lane), the latest first */
	struct {
		int64_t gtid;
		uint32_t process, lane;
	} host_seen[DB_HOST_SEEN];
	size_t n_host_seen;
	struct finset *fin;
};

uint32_t db_build_str(struct db_build *b, const char *s);
/* The name behind a STRING_IDS id in column c, or a TEXT column as written. */
uint32_t db_build_sid(struct db_build *b, sqlite3_stmt *st, int c);
uint32_t db_build_lane(struct db_build *b, const char *pid, const char *tid, uint32_t process,
		       const char *thread, int64_t psort, int64_t tsort);
uint32_t db_build_kind(struct db_build *b, uint32_t lane, uint32_t cat, uint32_t task_type);
void db_build_event(struct db_build *b, int64_t start, int64_t end, uint32_t name, uint32_t kind,
		    enum db_src src, int64_t rowid);
void db_build_flow(struct db_build *b, enum flow_ph ph, uint32_t cat, uint64_t id, uint32_t lane, int64_t ts);
/* The connection ids a flow can finish at; NULL when they cannot be read (every end is kept). */
struct finset *db_build_fin_load(sqlite3 *h);
void db_build_fin_free(struct finset *fs);
uint32_t db_build_ctr_track(struct db_build *b, const char *process, const char *name, const char *key);
void db_build_ctr_sample(struct db_build *b, uint32_t track, int64_t ts, double v);
/* Before the rows: each table's base offset, then the event columns sized from the row counts. */
void db_build_bases(struct db_build *b);
void db_build_reserve(struct db_build *b);
/* After the rows: the store's columns, flows and lanes. */
void db_build_finish(struct db_build *b);

/* ---- db_args.c ---- */

/* s as a JSON string (control bytes escaped; the bytes otherwise as they are). */
void db_json_str(struct sbuf *o, const char *s);

#endif
