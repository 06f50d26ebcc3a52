/* SPDX-License-Identifier: MIT */
/* Db exports into the store: rows streamed through SQLite, mapped to the lanes and events
 * the text export of the same run holds. */
#include "db.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "i18n.h"
#include "lanes.h"
#include "lower_bound.h"
#include "num.h"
#include "spill.h"
#include "u64map.h"
#include "xalloc.h"
#include "xsort.h"

const char *const db_tables_read[] = {
	"STRING_IDS", "ENUM_API_TYPE", "ENUM_HCCL_DATA_TYPE", "META_DATA", "PYTORCH_API",
	"CONNECTION_IDS", "CANN_API", "TASK", "COMPUTE_TASK_INFO", "COMMUNICATION_OP",
	"COMMUNICATION_TASK_INFO", "OVERLAP_ANALYSIS", "MSTX_EVENTS", "SESSION_TIME_INFO", "MEMORY_RECORD",
	"OP_MEMORY", "NPU_MODULE_MEM", "NPU_MEM", "ENUM_MODULE", "TASK_PMU_INFO", "AICORE_FREQ", "analysis.db StepTraceTime",
	"analysis.db CommAnalyzerTime", "analysis.db CommAnalyzerBandwidth", "analysis.db CommAnalyzerMatrix",
};
const size_t db_n_tables_read = sizeof db_tables_read / sizeof db_tables_read[0];

static sqlite3 *db_open(const char *path, struct diag_list *dl);
static bool table_exists(sqlite3 *h, const char *table);

/* The schema this reader was written against (META_DATA SCHEMA_VERSION); a newer major is
 * read by column name all the same, and said. */
#define DB_SCHEMA_MAJOR 1

/* Table codes in an event's offset (top 16 bits; the rowid below). */
enum db_src { SRC_NONE, SRC_PYTORCH_API, SRC_CANN_API, SRC_TASK, SRC_COMM_OP, SRC_COMM_TASK,
	      SRC_OVERLAP, SRC_MSTX, SRC_COUNT };
static const char *const src_table[SRC_COUNT] = {
	"", "PYTORCH_API", "CANN_API", "TASK", "COMMUNICATION_OP", "COMMUNICATION_TASK_INFO",
	"OVERLAP_ANALYSIS", "MSTX_EVENTS",
};
/* An event's offset is its table's base (trace.db_base, the rowids of the tables before it
 * laid end to end, in the order they are read) plus its rowid: offsets rise with the
 * event index, so the store keeps them in 32 bits over block bases. */
static unsigned off_src(const struct rank_store *rs, uint64_t off, int64_t *rowid)
{
	for (unsigned src = SRC_COUNT - 1; src > SRC_NONE; src--)
		if (rs->trace.db_base[src] <= off) {
			*rowid = (int64_t)(off - rs->trace.db_base[src]);
			return src;
		}
	*rowid = 0;
	return SRC_NONE;
}

size_t db_tables_present(const char *path, const char *analysis_path, const char **out, size_t max)
{
	size_t n = 0;
	struct diag_list dl;
	diag_init(&dl);
	sqlite3 *h = path ? db_open(path, &dl) : NULL, *a = analysis_path ? db_open(analysis_path, &dl) : NULL;
	for (size_t i = 0; i < db_n_tables_read && n < max; i++) {
		const char *t = db_tables_read[i];
		bool analysis = !strncmp(t, "analysis.db ", 12);
		sqlite3 *in = analysis ? a : h;
		if (in && table_exists(in, analysis ? t + 12 : t))
			out[n++] = t;
	}
	sqlite3_close(h);
	sqlite3_close(a);
	diag_free(&dl); /* after the handles: their budgets report into it */
	return n;
}

bool db_is_events_name(const char *base)
{
	return !fnmatch("ascend_pytorch_profiler*.db", base, 0) || !fnmatch("msprof_*.db", base, 0);
}

bool db_is_analysis_name(const char *base) { return !strcmp(base, "analysis.db"); }

void db_row_name(const struct rank_store *rs, uint64_t off, char *buf, size_t size)
{
	int64_t rowid;
	unsigned src = off_src(rs, off, &rowid);
	snprintf(buf, size, "%s rowid %" PRId64, src_table[src], rowid);
}

/* ---- opening ------------------------------------------------------------------------ */

/* file: URI of a path: everything but unreserved bytes percent-encoded. */
static char *file_uri(const char *path)
{
	struct sbuf sb = SBUF_INIT;
	sbuf_adds(&sb, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-._~", *p))
			sbuf_addc(&sb, (char)*p);
		else
			sbuf_addf(&sb, "%%%02X", *p);
	}
	sbuf_adds(&sb, "?immutable=1");
	return sbuf_detach(&sb);
}

/* A crafted Db is input like any other, and SQLite runs what its schema says: every
 * statement on a handle runs under one budget of VM steps proportional to the file's size
 * (a view over an endless recursive CTE, a join that a missing index makes quadratic end
 * with a message, not a hang). Every reader of the real exports together takes under one
 * step per byte (0.15 for the msinsight fixtures' Dbs); the budget allows 64, a few seconds
 * for a 6 MB file ($ASCPROF_DB_STEPS_PER_BYTE sets it for tests). */
#define DB_STEPS_PER_BYTE 64
#define DB_STEPS_BASE (32u << 20)
#define DB_STEPS_TICK 1000 /* steps between two calls of the handler */
/* No value the loaders read is near this long; a computed one (printf('%.*c', ...)) stops. */
#define DB_MAX_VALUE (16 << 20)

struct db_budget {
	uint64_t ticks_left;
	bool tripped;
	char *path;
	struct diag_list *dl;
};

static int budget_tick(void *ctx)
{
	struct db_budget *bg = ctx;
	if (bg->ticks_left) {
		bg->ticks_left--;
		return 0;
	}
	if (!bg->tripped && bg->dl)
		diag_add(bg->dl, DIAG_ERROR, bg->path, 0, -1,
			 _("reading stopped: the database needs more work than a file of its size can "
			 "(a crafted view, table or query plan?); what was read before is kept"));
	bg->tripped = true;
	return 1; /* every later statement on the handle stops at once too */
}

static void budget_free(void *ctx)
{
	struct db_budget *bg = ctx;
	free(bg->path);
	free(bg);
}

/* The handle owns its budget: SQLite calls budget_free when it is closed (a function
 * registered with a destructor), so every sqlite3_close frees it. */
static void budget_fn(sqlite3_context *c, int n, sqlite3_value **v)
{
	(void)n;
	(void)v;
	sqlite3_result_null(c);
}

static void budget_set(sqlite3 *h, const char *path, struct diag_list *dl)
{
	struct stat sb;
	uint64_t size = stat(path, &sb) == 0 && sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
	struct db_budget *bg = xcalloc(1, sizeof *bg);
	double per = DB_STEPS_PER_BYTE, base = DB_STEPS_BASE;
	const char *e = getenv("ASCPROF_DB_STEPS_PER_BYTE");
	if (e && *e) {
		per = strtod(e, NULL);
		base = 0;
	}
	double steps = (double)size * per + base;
	bg->ticks_left = steps >= 1e18 ? (uint64_t)1e15 : steps > 0 ? (uint64_t)(steps / DB_STEPS_TICK) : 0;
	bg->path = xstrdup(path);
	bg->dl = dl;
	sqlite3_create_function_v2(h, "ascprof_budget", 0, SQLITE_UTF8, bg, budget_fn, NULL, NULL, budget_free);
	sqlite3_progress_handler(h, DB_STEPS_TICK, budget_tick, bg);
}

/* Opens read-only and immutable: SQLite then takes no locks and never looks for, creates
 * or replays a journal or WAL. Views of the file are never run (TEMP views, the loader's
 * own stand-ins, still are), nor functions with side effects from its schema. NULL (with
 * a message) when the file is not a readable database (corrupt, truncated, encrypted).
 * dl must outlive the handle (the budget reports into it). */
static sqlite3 *db_open(const char *path, struct diag_list *dl)
{
	char *uri = file_uri(path);
	sqlite3 *h = NULL;
	int rc = sqlite3_open_v2(uri, &h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	free(uri);
	if (rc != SQLITE_OK) {
		diag_add(dl, DIAG_ERROR, path, 0, -1, _("cannot open as a database: %s; not read"),
			 h ? sqlite3_errmsg(h) : sqlite3_errstr(rc));
		sqlite3_close(h);
		return NULL;
	}
	sqlite3_extended_result_codes(h, 1);
	/* (older SQLite lacks some: table_exists keeps views and virtual tables out anyway) */
#if defined(SQLITE_DBCONFIG_ENABLE_VIEW) && SQLITE_VERSION_NUMBER >= 3035000 /* TEMP views still run */
	sqlite3_db_config(h, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)NULL);
#endif
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
	sqlite3_db_config(h, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
#endif
#ifdef SQLITE_DBCONFIG_DEFENSIVE
	sqlite3_db_config(h, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
#endif
	sqlite3_limit(h, SQLITE_LIMIT_LENGTH, DB_MAX_VALUE);
	budget_set(h, path, dl);
	/* temporary indexes of joins stay in memory, never in a temp file */
	sqlite3_exec(h, "PRAGMA temp_store=MEMORY; PRAGMA query_only=1", NULL, NULL, NULL);
	sqlite3_stmt *st = NULL;
	rc = sqlite3_prepare_v2(h, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		diag_add(dl, DIAG_ERROR, path, 0, -1,
			 _("not a readable database (%s): corrupt, truncated or encrypted; not read"),
			 sqlite3_errmsg(h));
		sqlite3_finalize(st);
		sqlite3_close(h);
		return NULL;
	}
	sqlite3_finalize(st);
	/* a journal or WAL beside it: the file was being written (or copied mid-write) */
	static const char *const sides[] = {"-wal", "-journal"};
	for (size_t i = 0; i < 2; i++) {
		char *p = xasprintf("%s%s", path, sides[i]);
		struct stat sb;
		if (stat(p, &sb) == 0 && sb.st_size > 0)
			diag_add(dl, DIAG_WARN, path, 0, -1,
				 _("a %s file beside it: the database was being written (locked) when this "
				 "was captured; read as it is on disk, changes still in %s are not seen"),
				 sides[i] + 1, p);
		free(p);
	}
	return h;
}

/* A real table of the file: not a view, not a virtual table (its module runs code of its
 * own), no generated columns (computed per row, unbounded). */
static bool table_exists(sqlite3 *h, const char *table)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h,
			       "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?1"
			       " AND upper(substr(ltrim(sql), 1, 14)) <> 'CREATE VIRTUAL'"
			       " AND NOT EXISTS (SELECT 1 FROM pragma_table_xinfo(?1, 'main') WHERE hidden IN (2, 3))",
			       -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	bool ok = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return ok;
}

/* Why a name of the file is not read as a table: "a view", "a virtual table", "a table
 * with generated columns", or NULL when there is nothing by that name. */
static const char *not_table_kind(sqlite3 *h, const char *table)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h,
			       "SELECT type, upper(substr(ltrim(sql), 1, 14)) = 'CREATE VIRTUAL' FROM main.sqlite_master"
			       " WHERE type IN ('table', 'view') AND name = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	const char *kind = NULL;
	if (sqlite3_step(st) == SQLITE_ROW)
		kind = sqlite3_column_text(st, 0) && !strcmp((const char *)sqlite3_column_text(st, 0), "view")
			       ? N_("a view")
		       : sqlite3_column_int(st, 1)        ? N_("a virtual table")
							  : N_("a table with generated columns");
	sqlite3_finalize(st);
	return kind;
}

/* The message for a name that is there but not read as a table (see table_exists). */
static void not_table_note(sqlite3 *h, const char *path, const char *table, struct diag_list *dl)
{
	const char *kind = not_table_kind(h, table);
	if (kind)
		diag_add(dl, DIAG_WARN, path, 0, -1,
			 _("%s is %s, not a plain table: not read (it would run code of the file's own); "
			 "what it holds is missing, the other tables are read"), table, _(kind));
}

sqlite3 *db_open_readonly(const char *path, struct diag_list *dl) { return db_open(path, dl); }
bool db_has_table(sqlite3 *h, const char *table) { return table_exists(h, table); }

/* A value by key from a table the file may not index (STRING_IDS by id, ENUM_MODULE by
 * id): one `WHERE id = ?` per key is a scan each without an index, quadratic (36k names
 * took 18 s). The keys and rowids are read once and sorted; a value is then fetched by
 * rowid, which every table indexes. The first row of a repeated key wins, as a scan's. */
struct keyed {
	sqlite3_stmt *by_rowid; /* SELECT value FROM table WHERE rowid = ?; NULL: nothing to look up */
	int64_t (*pairs)[2];    /* (key, rowid), sorted; NULL when the key is the rowid */
	size_t n;
};

static int cmp_pair(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] > y[1]) - (x[1] < y[1]);
}

static void keyed_open(struct keyed *k, sqlite3 *h, const char *table, const char *key, const char *value)
{
	*k = (struct keyed){0};
	if (!table_exists(h, table))
		return;
	/* the key an INTEGER PRIMARY KEY: it is the rowid already */
	sqlite3_stmt *st = NULL;
	bool direct = false;
	if (sqlite3_prepare_v2(h, "SELECT count(*), max(pk = 1 AND name = ?2 COLLATE NOCASE AND upper(type) = 'INTEGER')"
			       " FROM pragma_table_info(?1, 'main') WHERE pk > 0", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
		direct = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1 && sqlite3_column_int(st, 1) == 1;
	}
	sqlite3_finalize(st);
	char *sql = sqlite3_mprintf("SELECT \"%w\" FROM main.\"%w\" WHERE rowid = ?", value, table);
	int rc = sqlite3_prepare_v2(h, sql, -1, &k->by_rowid, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK) {
		k->by_rowid = NULL;
		return;
	}
	if (direct)
		return;
	sql = sqlite3_mprintf("SELECT \"%w\", rowid FROM main.\"%w\"", key, table);
	size_t cap = 0;
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			if (sqlite3_column_type(st, 0) != SQLITE_INTEGER)
				continue;
			xgrow(&k->pairs, &cap, k->n + 1, sizeof *k->pairs);
			k->pairs[k->n][0] = sqlite3_column_int64(st, 0);
			k->pairs[k->n][1] = sqlite3_column_int64(st, 1);
			k->n++;
		}
	}
	sqlite3_finalize(st);
	sqlite3_free(sql);
	if (!k->pairs)
		k->pairs = xmalloc(sizeof *k->pairs); /* not the rowid, no integer keys: nothing found */
	qsort(k->pairs, k->n, sizeof *k->pairs, cmp_pair);
}

/* The value of key (valid until the next call), NULL when there is none or it is NULL. */
static const char *keyed_get(struct keyed *k, int64_t key)
{
	if (!k->by_rowid)
		return NULL;
	int64_t rowid = key;
	if (k->pairs) {
		size_t lo = 0, hi = k->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (k->pairs[mid][0] < key)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == k->n || k->pairs[lo][0] != key)
			return NULL;
		rowid = k->pairs[lo][1];
	}
	sqlite3_reset(k->by_rowid);
	sqlite3_bind_int64(k->by_rowid, 1, rowid);
	if (sqlite3_step(k->by_rowid) != SQLITE_ROW)
		return NULL;
	return (const char *)sqlite3_column_text(k->by_rowid, 0);
}

static void keyed_close(struct keyed *k)
{
	sqlite3_finalize(k->by_rowid);
	free(k->pairs);
	*k = (struct keyed){0};
}

/* Column names of a table, case-insensitive lookup. */
struct cols {
	char **names;
	size_t n;
};

static bool cols_load(sqlite3 *h, const char *table, struct cols *c)
{
	memset(c, 0, sizeof *c);
	char *sql = sqlite3_mprintf("SELECT * FROM \"%w\" LIMIT 0", table);
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return false;
	c->n = (size_t)sqlite3_column_count(st);
	c->names = xcalloc(c->n ? c->n : 1, sizeof *c->names);
	for (size_t i = 0; i < c->n; i++)
		c->names[i] = xstrdup(sqlite3_column_name(st, (int)i));
	sqlite3_finalize(st);
	return true;
}

static void cols_free(struct cols *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->names[i]);
	free(c->names);
	memset(c, 0, sizeof *c);
}

static const char *cols_has(const struct cols *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcasecmp(c->names[i], name))
			return c->names[i];
	return NULL;
}

/* An int64 from a column: INTEGER as is, TEXT as exact decimal digits, REAL only when
 * integral. False for NULL or anything else. */
static bool col_i64(sqlite3_stmt *st, int c, int64_t *out)
{
	switch (sqlite3_column_type(st, c)) {
	case SQLITE_INTEGER:
		*out = sqlite3_column_int64(st, c);
		return true;
	case SQLITE_TEXT: {
		const char *s = (const char *)sqlite3_column_text(st, c);
		if (!s)
			return false;
		while (*s == ' ')
			s++;
		errno = 0;
		char *end;
		long long v = strtoll(s, &end, 10);
		if (end == s || errno)
			return false;
		/* "123.000": a whole number written with decimals */
		if (*end == '.') {
			for (end++; *end == '0'; end++)
				;
		}
		while (*end == ' ')
			end++;
		if (*end)
			return false;
		*out = v;
		return true;
	}
	case SQLITE_FLOAT: {
		double d = sqlite3_column_double(st, c);
		if (d != d || d < -9.2e18 || d > 9.2e18 || (double)(int64_t)d != d)
			return false;
		*out = (int64_t)d;
		return true;
	}
	default:
		return false;
	}
}


/* ---- building a store ----------------------------------------------------------------- */

struct bld {
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
	uint32_t s_python, s_cann, s_hw, s_hccl, s_overlap; /* process names */
	uint32_t c_cpu_op, c_enqueue, c_dequeue, c_python_function, c_mstx;
	uint32_t c_async_npu, c_h2d, c_queue, c_fwdbwd; /* flow cats */
	uint32_t groups[64]; /* HCCL group names in order of appearance */
	size_t n_groups;
	size_t per_src[SRC_COUNT];
	int64_t session_lo, session_hi; /* rows outside are another session's; both 0: none */
	uint32_t last_kind, last_kind_key[3];
	struct u64map sids;      /* STRING_IDS id -> strtab id, filled as ids are met */
	struct keyed strings;    /* STRING_IDS by id */
	uint32_t last_host_lane;
	int64_t last_gtid;
	uint32_t last_host_process;
	struct finset *fin;
};

static uint32_t bld_str(struct bld *b, const char *s) { return strtab_intern_cstr(b->rs->strs, s ? s : ""); }

static const char *col_text(sqlite3_stmt *st, int c)
{
	const unsigned char *t = sqlite3_column_text(st, c);
	return t ? (const char *)t : "";
}

/* The name behind a STRING_IDS id in column c (resolved once per id: names repeat on
 * almost every row), or a TEXT column as written; "" for NULL or an unknown id. */
static uint32_t sid(struct bld *b, sqlite3_stmt *st, int c)
{
	int type = sqlite3_column_type(st, c);
	if (type == SQLITE_NULL)
		return bld_str(b, "");
	if (type != SQLITE_INTEGER)
		return bld_str(b, col_text(st, c));
	int64_t id = sqlite3_column_int64(st, c);
	bool found;
	uint32_t *slot = u64map_slot(&b->sids, (uint64_t)id, &found);
	if (found)
		return *slot;
	uint32_t v = 0;
	v = bld_str(b, keyed_get(&b->strings, id));
	/* the map may have grown while interning: look the slot up again */
	*u64map_slot(&b->sids, (uint64_t)id, &found) = v;
	return v;
}

static uint32_t bld_lane(struct bld *b, const char *pid, const char *tid, uint32_t process,
			 const char *thread, int64_t psort, int64_t tsort)
{
	uint32_t p = bld_str(b, pid), t = bld_str(b, tid);
	bool found;
	uint32_t *slot = u64map_slot(&b->lane_map, ((uint64_t)p << 32) | t, &found);
	if (found)
		return *slot;
	struct rank_store *rs = b->rs;
	xgrow(&rs->lanes, &b->cap_lanes, rs->n_lanes + 1, sizeof *rs->lanes);
	struct lane *l = &rs->lanes[rs->n_lanes];
	memset(l, 0, sizeof *l);
	l->pid_text = p;
	l->tid_text = t;
	l->process_name = process;
	l->thread_name = bld_str(b, thread);
	l->process_sort = psort;
	l->has_process_sort = true;
	l->thread_sort = tsort;
	l->has_thread_sort = true;
	l->stream = -1;
	*slot = (uint32_t)rs->n_lanes;
	return (uint32_t)rs->n_lanes++;
}

static uint32_t bld_kind(struct bld *b, uint32_t lane, uint32_t cat, uint32_t task_type)
{
	struct rank_store *rs = b->rs;
	/* consecutive rows mostly share a lane and attributes */
	if (b->last_kind != UINT32_MAX && b->last_kind_key[0] == lane && b->last_kind_key[1] == cat &&
	    b->last_kind_key[2] == task_type)
		return b->last_kind;
	b->last_kind_key[0] = lane;
	b->last_kind_key[1] = cat;
	b->last_kind_key[2] = task_type;
	bool found;
	uint32_t *slot = u64map_slot(&b->attr_map, ((uint64_t)cat << 32) | task_type, &found);
	if (!found) {
		xgrow(&rs->attrs, &b->cap_attrs, rs->n_attrs + 1, sizeof *rs->attrs);
		rs->attrs[rs->n_attrs] = (struct ev_attr){cat, task_type};
		*slot = (uint32_t)rs->n_attrs++;
	}
	uint32_t attr = *slot;
	slot = u64map_slot(&b->kind_map, ((uint64_t)lane << 32) | attr, &found);
	if (!found) {
		xgrow(&rs->kinds, &b->cap_kinds, rs->n_kinds + 1, sizeof *rs->kinds);
		rs->kinds[rs->n_kinds] = (struct ev_kind){lane, attr};
		*slot = (uint32_t)rs->n_kinds++;
	}
	return b->last_kind = *slot;
}

static void bld_event(struct bld *b, int64_t start, int64_t end, uint32_t name, uint32_t kind,
		      enum db_src src, int64_t rowid)
{
	struct rank_store *rs = b->rs;
	if (b->n == b->cap) {
		/* more rows than counted (or no count): grow, the offsets' columns too */
		size_t c = b->cap;
		spill_grow(&b->dur, &c, b->n + 1, sizeof *b->dur);
		c = b->cap;
		spill_grow(&b->name, &c, b->n + 1, sizeof *b->name);
		spill_grow(&b->kind, &b->cap, b->n + 1, sizeof *b->kind);
		rs->n_ev = b->cap;
		/* the columns are spilled (spill.h), the offsets too */
		rs->ev_ts_lo = spill_realloc(rs->ev_ts_lo, b->cap * sizeof *rs->ev_ts_lo);
		rs->ev_ts_base = xrealloc(rs->ev_ts_base, ((b->cap >> STORE_TS_SHIFT) + 1) * sizeof *rs->ev_ts_base);
		if (rs->ev_off_wide) {
			rs->ev_off_wide = spill_realloc(rs->ev_off_wide, b->cap * sizeof *rs->ev_off_wide);
		} else {
			rs->ev_off_lo = spill_realloc(rs->ev_off_lo, b->cap * sizeof *rs->ev_off_lo);
			rs->ev_off_block = xrealloc(rs->ev_off_block,
						    ((b->cap >> STORE_OFF_SHIFT) + 1) * sizeof *rs->ev_off_block);
		}
	}
	int64_t d = end >= start ? end - start : 0;
	b->blk[b->n & ((1u << STORE_TS_SHIFT) - 1)] = start;
	if (d >= (int64_t)STORE_LONG_DUR) {
		xgrow(&b->rs->long_durs, &b->cap_long, b->rs->n_long_durs + 1, sizeof *b->rs->long_durs);
		b->rs->long_durs[b->rs->n_long_durs++] = (struct long_dur){(uint32_t)b->n, d};
		b->dur[b->n] = STORE_LONG_DUR;
	} else {
		b->dur[b->n] = (uint32_t)d;
	}
	b->name[b->n] = name;
	b->kind[b->n] = kind;
	store_put_off(rs, b->n, rs->trace.db_base[src] + (uint64_t)rowid);
	b->n++;
	if (!(b->n & ((1u << STORE_TS_SHIFT) - 1)))
		store_ts_put_block(rs, b->n - (1u << STORE_TS_SHIFT), b->blk, 1u << STORE_TS_SHIFT, &b->cap_far);
	b->per_src[src]++;
}

/* The connection ids a flow can finish at (TASK's and COMMUNICATION_OP's), read before
 * the starts: an end whose (cat, id) has no partner cannot be kept (drop_dangling_flows),
 * so it is not stored: every CANN API carries an id, half of them launched no task (on a
 * generated 1 GB-equivalent capture a sixth of the ends, 12 MB, could never match). Dense
 * ids (as TASK numbers them) are bits over their range, else a sorted array; a start per
 * cat sets a bit at the id's place. */
enum { FIN_H2D, FIN_ASYNC, FIN_CATS };
struct finset {
	uint64_t lo, range;        /* dense: bits over [lo, lo + range) */
	uint64_t *member;          /* dense: the ids present */
	uint64_t *ids;             /* sparse: sorted, unique */
	size_t n;
	uint64_t *started[FIN_CATS]; /* per cat, a bit per place: a start was read */
};

/* The place of id in the set, or -1 when no flow finishes at it. */
static int64_t fin_place(const struct finset *fs, uint64_t id)
{
	if (fs->member) {
		uint64_t k = id - fs->lo;
		return id >= fs->lo && k < fs->range && (fs->member[k / 64] >> (k % 64) & 1) ? (int64_t)k : -1;
	}
	size_t lo = 0, hi = fs->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (fs->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < fs->n && fs->ids[lo] == id ? (int64_t)lo : -1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* NULL when the ids cannot be read (no column): every end is stored then. */
static struct finset *fin_load(sqlite3 *h)
{
	struct sbuf sql = SBUF_INIT;
	static const char *const tables[] = {"TASK", "COMMUNICATION_OP"};
	for (size_t i = 0; i < 2; i++) {
		if (!table_exists(h, tables[i]))
			continue;
		struct cols c;
		if (!cols_load(h, tables[i], &c))
			continue;
		if (cols_has(&c, "connectionId"))
			sbuf_addf(&sql, "%sSELECT connectionId FROM %s WHERE connectionId IS NOT NULL",
				  sql.len ? " UNION ALL " : "", tables[i]);
		cols_free(&c);
	}
	sqlite3_stmt *st = NULL;
	if (!sql.len || sqlite3_prepare_v2(h, sbuf_str(&sql), -1, &st, NULL) != SQLITE_OK) {
		sbuf_free(&sql);
		return NULL;
	}
	sbuf_free(&sql);
	struct finset *fs = xcalloc(1, sizeof *fs);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t v;
		if (!col_i64(st, 0, &v))
			continue;
		xgrow(&fs->ids, &cap, fs->n + 1, sizeof *fs->ids);
		fs->ids[fs->n++] = (uint64_t)v;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		/* a set read only in part would drop ends that match: keep them all */
		free(fs->ids);
		free(fs);
		return NULL;
	}
	xqsort(fs->ids, fs->n, sizeof *fs->ids, cmp_u64);
	size_t u = 0;
	for (size_t i = 0; i < fs->n; i++)
		if (!u || fs->ids[u - 1] != fs->ids[i])
			fs->ids[u++] = fs->ids[i];
	fs->n = u;
	size_t places = u;
	if (u && fs->ids[u - 1] - fs->ids[0] < 16 * (uint64_t)u + 4096) {
		fs->lo = fs->ids[0];
		fs->range = fs->ids[u - 1] - fs->lo + 1;
		fs->member = xcalloc((size_t)(fs->range + 63) / 64, sizeof *fs->member);
		for (size_t i = 0; i < u; i++)
			fs->member[(fs->ids[i] - fs->lo) / 64] |= (uint64_t)1 << ((fs->ids[i] - fs->lo) % 64);
		free(fs->ids);
		fs->ids = NULL;
		places = (size_t)fs->range;
	}
	for (int k = 0; k < FIN_CATS; k++)
		fs->started[k] = xcalloc((places + 63) / 64 + 1, sizeof *fs->started[k]);
	return fs;
}

static void fin_free(struct finset *fs)
{
	if (!fs)
		return;
	free(fs->member);
	free(fs->ids);
	for (int k = 0; k < FIN_CATS; k++)
		free(fs->started[k]);
	free(fs);
}

static void bld_flow(struct bld *b, enum flow_ph ph, uint32_t cat, uint64_t id, uint32_t lane, int64_t ts)
{
	struct rank_store *rs = b->rs;
	int fc = cat == b->c_h2d ? FIN_H2D : cat == b->c_async_npu ? FIN_ASYNC : -1;
	if (b->fin && fc >= 0) {
		int64_t at = fin_place(b->fin, id);
		if (at < 0)
			return; /* no task or collective finishes at this id */
		uint64_t *w = &b->fin->started[fc][at / 64], bit = (uint64_t)1 << (at % 64);
		if (ph == FLOW_START)
			*w |= bit;
		else if (!(*w & bit))
			return; /* a finish without a start (starts are all read before) */
	}
	spill_grow(&rs->flows, &b->cap_flows, rs->n_flows + 1, sizeof *rs->flows);
	struct flow *f = &rs->flows[rs->n_flows++];
	f->ts = ts;
	f->id = id;
	f->lane = lane;
	f->cat = cat & ((1u << 29) - 1);
	f->id_is_text = 0;
	f->ph = ph;
}

/* ---- one table ------------------------------------------------------------------------ */

/* A query over a table whose columns are found by name. The select list is built from
 * the wanted columns: an absent optional one reads as NULL, an absent required one skips
 * the table with a message naming it. */
struct want {
	const char *expr;  /* a column of the main table (no dot), else an SQL expression */
	bool required;
};

struct q {
	sqlite3_stmt *st;
	const char *table;
};

static bool q_open(struct bld *b, struct q *q, const char *table, const struct want *w, size_t n,
		   const char *from_extra, bool optional_table)
{
	q->st = NULL;
	q->table = table;
	if (!table_exists(b->h, table)) {
		not_table_note(b->h, b->path, table, b->dl);
		if (!optional_table && !not_table_kind(b->h, table))
			diag_add(b->dl, DIAG_WARN, b->path, 0, -1, _("no table %s: its events are missing"), table);
		return false;
	}
	struct cols c;
	if (!cols_load(b->h, table, &c)) {
		diag_add(b->dl, DIAG_WARN, b->path, 0, -1, _("table %s cannot be read: %s; skipped"), table,
			 sqlite3_errmsg(b->h));
		return false;
	}
	struct sbuf sql = SBUF_INIT;
	sbuf_adds(&sql, "SELECT m.rowid");
	bool ok = true;
	for (size_t i = 0; i < n; i++) {
		sbuf_adds(&sql, ", ");
		if (strchr(w[i].expr, '.') || strchr(w[i].expr, '(')) {
			sbuf_adds(&sql, w[i].expr);
			continue;
		}
		const char *have = cols_has(&c, w[i].expr);
		if (have) {
			char *q1 = sqlite3_mprintf("m.\"%w\"", have);
			sbuf_adds(&sql, q1);
			sqlite3_free(q1);
		} else if (w[i].required) {
			diag_add(b->dl, DIAG_WARN, b->path, 0, -1,
				 _("table %s has no column %s (a different schema version?); its events are "
				 "missing"), table, w[i].expr);
			ok = false;
			break;
		} else {
			sbuf_adds(&sql, "NULL");
		}
	}
	if (ok) {
		char *f = sqlite3_mprintf(" FROM \"%w\" m ", table);
		sbuf_adds(&sql, f);
		sqlite3_free(f);
		if (from_extra)
			sbuf_adds(&sql, from_extra);
		if (sqlite3_prepare_v2(b->h, sbuf_str(&sql), -1, &q->st, NULL) != SQLITE_OK) {
			diag_add(b->dl, DIAG_WARN, b->path, 0, -1, _("table %s cannot be read: %s; skipped"),
				 table, sqlite3_errmsg(b->h));
			q->st = NULL;
			ok = false;
		}
	}
	sbuf_free(&sql);
	cols_free(&c);
	return ok;
}

/* Steps a query; false at the end or on an error (reported once, naming the table). */
static bool q_step(struct bld *b, struct q *q)
{
	if (!q->st)
		return false;
	int rc = sqlite3_step(q->st);
	if (rc == SQLITE_ROW)
		return true;
	if (rc != SQLITE_DONE)
		diag_add(b->dl, DIAG_WARN, b->path, 0, -1,
			 _("table %s: %s; the rows before it were read, the rest are missing"), q->table,
			 sqlite3_errmsg(b->h));
	sqlite3_finalize(q->st);
	q->st = NULL;
	return false;
}


/* Start and end of a row (columns 1 and 2 of every event query). */
/* Start and end of a row (columns 1 and 2 of every event query). bad counts rows without
 * usable times in bad[0], rows outside the session in bad[1]. */
static bool row_times(struct bld *b, struct q *q, int64_t *start, int64_t *end, size_t *bad)
{
	if (!col_i64(q->st, 1, start) || !col_i64(q->st, 2, end) || *end < *start) {
		bad[0]++;
		return false;
	}
	if (b->session_hi && (*start < b->session_lo || *start > b->session_hi)) {
		bad[1]++;
		return false;
	}
	return true;
}

static void report_bad(struct bld *b, const char *table, const size_t *bad)
{
	if (bad[0])
		diag_add(b->dl, DIAG_WARN, b->path, 0, -1,
			 _("table %s: %zu row(s) without a usable start and end; skipped"), table, bad[0]);
	if (bad[1])
		diag_add(b->dl, DIAG_WARN, b->path, 0, -1,
			 _("table %s: %zu row(s) start outside SESSION_TIME_INFO's session (another run's "
			 "clock?); skipped"), table, bad[1]);
}

/* SESSION_TIME_INFO's session, widened by a tenth and at least a second on each side:
 * rows far outside it belong to another session and would stretch the window. */
static void read_session(struct bld *b)
{
	if (!table_exists(b->h, "SESSION_TIME_INFO"))
		return;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(b->h, "SELECT startTimeNs, endTimeNs FROM SESSION_TIME_INFO", -1, &st, NULL) != SQLITE_OK)
		return;
	int64_t lo, hi;
	if (sqlite3_step(st) == SQLITE_ROW && col_i64(st, 0, &lo) && col_i64(st, 1, &hi) && hi > lo && lo > 0) {
		int64_t slack = (hi - lo) / 10 > 1000000000 ? (hi - lo) / 10 : 1000000000;
		b->session_lo = lo - slack;
		b->session_hi = hi + slack;
	}
	sqlite3_finalize(st);
}


/* The host lane of a row's globalTid (the process id in the high 32 bits, the thread's
 * below), in process `process` whose pid text starts with prefix. */
static uint32_t host_lane(struct bld *b, sqlite3_stmt *st, int col, const char *prefix, uint32_t process,
			  int64_t psort)
{
	int64_t gtid;
	if (!col_i64(st, col, &gtid))
		gtid = 0;
	if (b->last_host_lane != UINT32_MAX && gtid == b->last_gtid && process == b->last_host_process)
		return b->last_host_lane;
	b->last_gtid = gtid;
	b->last_host_process = process;
	uint64_t g = (uint64_t)gtid;
	uint32_t tidn = (uint32_t)(g & 0xffffffffu);
	char pid[48], tid[16], thread[32];
	snprintf(pid, sizeof pid, "%s%" PRIu32, prefix, (uint32_t)(g >> 32));
	snprintf(tid, sizeof tid, "%" PRIu32, tidn);
	snprintf(thread, sizeof thread, "Thread %" PRIu32, tidn);
	return b->last_host_lane = bld_lane(b, pid, tid, process, thread, psort, tidn);
}

/* A torch op with an autograd sequence number: the forward op (fwdThreadId 0) and the
 * backward op of one number are joined by a fwdbwd flow, as the text export draws them. */
struct fwdbwd_op {
	int64_t seq, ts;
	uint32_t lane;
	bool bwd;
};

#define FWDBWD_LESS(x, y)                                                                          \
	((x)->seq != (y)->seq ? (x)->seq < (y)->seq : (x)->bwd != (y)->bwd ? (x)->bwd < (y)->bwd : (x)->ts < (y)->ts)
XSORT_DEFINE(sort_fwdbwd, struct fwdbwd_op, FWDBWD_LESS)

/* Per sequence number, from the latest-starting forward op to the latest-starting backward
 * op (the text exports' flows join exactly these: on the msinsight fixtures, where a number
 * has two nested forward ops the arrow leaves the inner one), none when both are on one
 * thread. ops is sorted here (stable: of equal starts the later row). */
static void fwdbwd_flows(struct bld *b, struct fwdbwd_op *ops, size_t n)
{
	sort_fwdbwd(ops, n);
	for (size_t i = 0; i < n;) {
		size_t e = i, f = SIZE_MAX, k = SIZE_MAX;
		for (; e < n && ops[e].seq == ops[i].seq; e++)
			*(ops[e].bwd ? &k : &f) = e;
		if (f != SIZE_MAX && k != SIZE_MAX && ops[f].lane != ops[k].lane) {
			bld_flow(b, FLOW_START, b->c_fwdbwd, (uint64_t)ops[f].seq, ops[f].lane, ops[f].ts);
			bld_flow(b, FLOW_FINISH, b->c_fwdbwd, (uint64_t)ops[k].seq, ops[k].lane, ops[k].ts);
		}
		i = e;
	}
}
/* conn_ids holds (connection id, id) pairs sorted by id: pair i's id is [2i + 1]. */
#define CONN_PAIR_BEFORE(c, i, key) ((int64_t)(c)[2 * (i) + 1] < (key))
LOWER_BOUND_DEFINE(conn_pair_lower_bound, const uint64_t *, int64_t, CONN_PAIR_BEFORE)

static void read_pytorch_api(struct bld *b)
{
	static const struct want w[] = {
		{"startNs", true}, {"endNs", true}, {"globalTid", true}, {"name", false},
		{"e.name", false}, {"connectionId", false}, {"sequenceNumber", false}, {"fwdThreadId", false},
	};
	struct q q;
	bool has_enum = table_exists(b->h, "ENUM_API_TYPE");
	char *extra = xasprintf("%s", has_enum ? " LEFT JOIN ENUM_API_TYPE e ON e.id = m.type" : "");
	struct want ww[8];
	memcpy(ww, w, sizeof ww);
	if (!has_enum)
		ww[4].expr = "CAST(m.type AS TEXT)";
	bool ok = q_open(b, &q, "PYTORCH_API", ww, 8, extra, true);
	free(extra);
	if (!ok)
		return;
	/* connection ids: PYTORCH_API.connectionId is a key into CONNECTION_IDS, which lists
	 * the ids the row launched (the same ids CANN_API and TASK carry) */
	sqlite3_stmt *conn = NULL;
	if (table_exists(b->h, "CONNECTION_IDS"))
		sqlite3_prepare_v2(b->h, "SELECT connectionId FROM CONNECTION_IDS WHERE id = ?", -1, &conn, NULL);
	bool conn_indexed = false;
	if (conn) {
		/* without an index each lookup is a scan: read them all at once instead */
		sqlite3_stmt *ix;
		if (sqlite3_prepare_v2(b->h, "SELECT 1 FROM sqlite_master WHERE type='index' AND tbl_name='CONNECTION_IDS'",
				       -1, &ix, NULL) == SQLITE_OK) {
			conn_indexed = sqlite3_step(ix) == SQLITE_ROW;
			sqlite3_finalize(ix);
		}
	}
	uint64_t *conn_ids = NULL; /* (connection id, id) pairs, by id */
	size_t n_conn = 0, cap_conn = 0;
	if (conn && !conn_indexed) {
		/* id -> run of connection ids, from one ordered pass */
		sqlite3_stmt *all;
		if (sqlite3_prepare_v2(b->h, "SELECT id, connectionId FROM CONNECTION_IDS ORDER BY id", -1, &all,
				       NULL) == SQLITE_OK) {
			while (sqlite3_step(all) == SQLITE_ROW) {
				int64_t id, cid;
				if (!col_i64(all, 0, &id) || !col_i64(all, 1, &cid))
					continue;
				xgrow(&conn_ids, &cap_conn, n_conn + 1, sizeof *conn_ids);
				conn_ids[n_conn++] = (uint64_t)cid;
				/* the id beside it, to find the end of a run */
				xgrow(&conn_ids, &cap_conn, n_conn + 1, sizeof *conn_ids);
				conn_ids[n_conn++] = (uint64_t)id;
			}
			sqlite3_finalize(all);
		}
	}
	size_t bad[2] = {0, 0};
	struct fwdbwd_op *fb = NULL;
	size_t n_fb = 0, cap_fb = 0;
	while (q_step(b, &q)) {
		int64_t start, end;
		if (!row_times(b, &q, &start, &end, bad))
			continue;
		uint32_t lane = host_lane(b, q.st, 3, "", b->s_python, 0);
		uint32_t name_id = sid(b, q.st, 4);
		const char *name = store_str(b->rs, name_id), *type = col_text(q.st, 5);
		uint32_t cat, flow_cat = 0;
		enum flow_ph ph = FLOW_START;
		if (!strcmp(type, "op")) {
			cat = b->c_cpu_op;
			flow_cat = b->c_async_npu;
		} else if (!strcmp(type, "queue")) {
			bool deq = !strncmp(name, "Dequeue", 7);
			cat = deq ? b->c_dequeue : b->c_enqueue;
			flow_cat = b->c_queue;
			ph = deq ? FLOW_FINISH : FLOW_START;
		} else if (!strcmp(type, "trace")) {
			cat = b->c_python_function;
		} else if (!strcmp(type, "mstx")) {
			cat = b->c_mstx;
		} else {
			cat = bld_str(b, type);
		}
		bld_event(b, start, end, name_id, bld_kind(b, lane, cat, 0), SRC_PYTORCH_API,
			  sqlite3_column_int64(q.st, 0));
		int64_t seq, fwd_tid;
		if (cat == b->c_cpu_op && col_i64(q.st, 7, &seq) && seq >= 0) {
			xgrow(&fb, &cap_fb, n_fb + 1, sizeof *fb);
			fb[n_fb++] = (struct fwdbwd_op){seq, start, lane, col_i64(q.st, 8, &fwd_tid) && fwd_tid != 0};
		}
		int64_t key;
		if (!flow_cat || !col_i64(q.st, 6, &key))
			continue;
		if (conn && conn_indexed) {
			sqlite3_reset(conn);
			sqlite3_bind_int64(conn, 1, key);
			while (sqlite3_step(conn) == SQLITE_ROW) {
				int64_t cid;
				if (col_i64(conn, 0, &cid))
					bld_flow(b, ph, flow_cat, (uint64_t)cid, lane, start);
			}
		} else if (conn) {
			/* the first pair of the key's run */
			size_t lo = conn_pair_lower_bound(conn_ids, key, 0, n_conn / 2);
			for (size_t i = 2 * lo; i + 1 < n_conn && conn_ids[i + 1] == (uint64_t)key; i += 2)
				bld_flow(b, ph, flow_cat, conn_ids[i], lane, start);
		}
	}
	sqlite3_finalize(conn);
	free(conn_ids);
	fwdbwd_flows(b, fb, n_fb);
	free(fb);
	report_bad(b, "PYTORCH_API", bad);
}

/* "AscendCL@aclrtMemcpyAsync": the text export names CANN APIs by their level. */
static const char *cann_level(const char *type)
{
	static const char *const map[][2] = {
		{"acl", "AscendCL"}, {"node", "Node"}, {"runtime", "Runtime"}, {"hccl", "Hccl"},
		{"model", "Model"},
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (!strcmp(type, map[i][0]))
			return map[i][1];
	return type;
}

static void read_cann_api(struct bld *b)
{
	bool has_enum = table_exists(b->h, "ENUM_API_TYPE");
	struct want w[] = {
		{"startNs", true}, {"endNs", true}, {"globalTid", true}, {"name", false},
		{has_enum ? "e.name" : "CAST(m.type AS TEXT)", false}, {"connectionId", false},
	};
	char *extra = xasprintf("%s", has_enum ? " LEFT JOIN ENUM_API_TYPE e ON e.id = m.type" : "");
	struct q q;
	bool ok = q_open(b, &q, "CANN_API", w, 6, extra, true);
	free(extra);
	if (!ok)
		return;
	size_t bad[2] = {0, 0};
	struct sbuf nm = SBUF_INIT;
	while (q_step(b, &q)) {
		int64_t start, end;
		if (!row_times(b, &q, &start, &end, bad))
			continue;
		/* the CANN process is its own lane group beside Python's: same thread ids */
		uint32_t lane = host_lane(b, q.st, 3, "CANN ", b->s_cann, 7);
		sbuf_reset(&nm);
		sbuf_addf(&nm, "%s@%s", cann_level(col_text(q.st, 5)), store_str(b->rs, sid(b, q.st, 4)));
		bld_event(b, start, end, bld_str(b, sbuf_str(&nm)), bld_kind(b, lane, 0, 0), SRC_CANN_API,
			  sqlite3_column_int64(q.st, 0));
		int64_t cid;
		if (col_i64(q.st, 6, &cid))
			bld_flow(b, FLOW_START, b->c_h2d, (uint64_t)cid, lane, start);
	}
	sbuf_free(&nm);
	report_bad(b, "CANN_API", bad);
}

static void read_task(struct bld *b)
{
	bool compute = table_exists(b->h, "COMPUTE_TASK_INFO");
	/* A collective's own launch is a TASK row carrying the COMMUNICATION_OP's connection
	 * id, with neither compute nor communication task info: the text export leaves it
	 * out (the op is on the HCCL group lane, its tasks on the planes and the stream). */
	bool envelope = table_exists(b->h, "COMMUNICATION_OP") && table_exists(b->h, "COMMUNICATION_TASK_INFO");
	struct want w[] = {
		{"startNs", true}, {"endNs", true}, {"streamId", true}, {"connectionId", false},
		{"taskType", false}, {compute ? "c.name" : "NULL", false},
		{compute ? "c.taskType" : "NULL", false},
		{envelope ? "(c.globalTaskId IS NULL AND ci.globalTaskId IS NULL AND o.connectionId IS NOT NULL)"
			  : "0", false},
		{envelope ? "(ci.globalTaskId IS NOT NULL)" : "0", false},
	};
	char *extra = xasprintf("%s%s", compute ? " LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = m.globalTaskId" : "",
				envelope ? " LEFT JOIN COMMUNICATION_TASK_INFO ci ON ci.globalTaskId = m.globalTaskId"
					   " LEFT JOIN (SELECT DISTINCT connectionId FROM COMMUNICATION_OP) o"
					   " ON o.connectionId = m.connectionId"
					 : "");
	if (envelope && !compute) {
		char *e2 = xasprintf("%s LEFT JOIN (SELECT NULL AS globalTaskId) c", extra);
		free(extra);
		extra = e2;
	}
	struct q q;
	bool ok = q_open(b, &q, "TASK", w, 9, extra, false);
	free(extra);
	if (!ok)
		return;
	size_t bad[2] = {0, 0};
	char tid[32], thread[48];
	uint32_t last_stream_lane = UINT32_MAX;
	int64_t last_stream = INT64_MIN;
	size_t no_stream = 0;
	while (q_step(b, &q)) {
		int64_t start, end, stream;
		if (!row_times(b, &q, &start, &end, bad))
			continue;
		if (sqlite3_column_int(q.st, 8))
			continue;
		/* a task without a stream has no Ascend Hardware lane: a communication task is
		 * still shown on its HCCL plane, anything else is counted as skipped */
		if (!col_i64(q.st, 3, &stream) || stream < 0) {
			no_stream += !sqlite3_column_int(q.st, 9);
			continue;
		}
		if (stream != last_stream) {
			snprintf(tid, sizeof tid, "%" PRId64, stream);
			snprintf(thread, sizeof thread, "Stream %" PRId64, stream);
			last_stream_lane = bld_lane(b, "Ascend Hardware", tid, b->s_hw, thread, 13, stream);
			last_stream = stream;
		}
		/* names through STRING_IDS; a task without compute info is named by its type */
		uint32_t type = sid(b, q.st, 5), cname = sid(b, q.st, 6), ctype = sid(b, q.st, 7);
		uint32_t name = *store_str(b->rs, cname) ? cname : type;
		uint32_t tt = *store_str(b->rs, ctype) ? ctype : type;
		bld_event(b, start, end, name, bld_kind(b, last_stream_lane, 0, tt), SRC_TASK,
			  sqlite3_column_int64(q.st, 0));
		int64_t cid;
		if (col_i64(q.st, 4, &cid)) {
			bld_flow(b, FLOW_FINISH, b->c_h2d, (uint64_t)cid, last_stream_lane, start);
			bld_flow(b, FLOW_FINISH, b->c_async_npu, (uint64_t)cid, last_stream_lane, start);
		}
	}
	report_bad(b, "TASK", bad);
	if (no_stream)
		diag_add(b->dl, DIAG_WARN, b->path, 0, -1,
			 _("table TASK: %zu row(s) without a stream and not communication tasks; skipped"), no_stream);
}

static uint32_t group_index(struct bld *b, uint32_t group)
{
	for (size_t i = 0; i < b->n_groups; i++)
		if (b->groups[i] == group)
			return (uint32_t)i;
	if (b->n_groups < sizeof b->groups / sizeof b->groups[0])
		b->groups[b->n_groups++] = group;
	return (uint32_t)b->n_groups - 1;
}

static void read_comm(struct bld *b)
{
	struct want w[] = {
		{"startNs", true}, {"endNs", true}, {"opName", false}, {"groupName", false},
		{"connectionId", false},
	};
	struct q q;
	if (q_open(b, &q, "COMMUNICATION_OP", w, 5, NULL, true)) {
		size_t bad[2] = {0, 0};
		char tid[32], thread[48];
		while (q_step(b, &q)) {
			int64_t start, end;
			if (!row_times(b, &q, &start, &end, bad))
				continue;
			uint32_t gi = group_index(b, sid(b, q.st, 4));
			snprintf(tid, sizeof tid, "%" PRIu32, gi * 1000);
			snprintf(thread, sizeof thread, "Group %" PRIu32 " Communication", gi);
			uint32_t lane = bld_lane(b, "HCCL", tid, b->s_hccl, thread, 15, gi * 1000);
			bld_event(b, start, end, sid(b, q.st, 3), bld_kind(b, lane, 0, 0),
				  SRC_COMM_OP, sqlite3_column_int64(q.st, 0));
			int64_t cid;
			if (col_i64(q.st, 5, &cid)) {
				bld_flow(b, FLOW_FINISH, b->c_h2d, (uint64_t)cid, lane, start);
				bld_flow(b, FLOW_FINISH, b->c_async_npu, (uint64_t)cid, lane, start);
			}
		}
		report_bad(b, "COMMUNICATION_OP", bad);
	}
	/* the tasks of each plane: times from TASK, names from the task type */
	if (!table_exists(b->h, "TASK"))
		return;
	struct want wt[] = {
		{"t.startNs", true}, {"t.endNs", true}, {"planeId", true}, {"taskType", false},
		{"groupName", false},
	};
	if (!q_open(b, &q, "COMMUNICATION_TASK_INFO", wt, 5,
		    "JOIN TASK t ON t.globalTaskId = m.globalTaskId",
		    true))
		return;
	size_t bad[2] = {0, 0};
	char tid[32], thread[48];
	while (q_step(b, &q)) {
		int64_t start, end, plane;
		if (!row_times(b, &q, &start, &end, bad))
			continue;
		if (!col_i64(q.st, 3, &plane) || plane < 0 || plane > 999)
			plane = 999;
		uint32_t gi = group_index(b, sid(b, q.st, 5));
		uint32_t t = gi * 1000 + 1 + (uint32_t)plane;
		snprintf(tid, sizeof tid, "%" PRIu32, t);
		snprintf(thread, sizeof thread, "Plane %" PRId64, plane);
		uint32_t lane = bld_lane(b, "HCCL", tid, b->s_hccl, thread, 15, t);
		bld_event(b, start, end, sid(b, q.st, 4), bld_kind(b, lane, 0, 0), SRC_COMM_TASK,
			  sqlite3_column_int64(q.st, 0));
	}
	report_bad(b, "COMMUNICATION_TASK_INFO", bad);
}

static void read_overlap(struct bld *b)
{
	static const char *const names[] = {"Computing", "Communication", "Communication(Not Overlapped)", "Free"};
	struct want w[] = {{"startNs", true}, {"endNs", true}, {"type", true}};
	struct q q;
	if (!q_open(b, &q, "OVERLAP_ANALYSIS", w, 3, NULL, true))
		return;
	size_t bad[2] = {0, 0};
	char tid[8];
	while (q_step(b, &q)) {
		int64_t start, end, type;
		if (!row_times(b, &q, &start, &end, bad))
			continue;
		if (!col_i64(q.st, 3, &type) || type < 0 || type > 3) {
			bad[0]++;
			continue;
		}
		snprintf(tid, sizeof tid, "%d", (int)type);
		uint32_t lane = bld_lane(b, "Overlap Analysis", tid, b->s_overlap, names[type], 23, type);
		bld_event(b, start, end, bld_str(b, names[type]), bld_kind(b, lane, 0, 0), SRC_OVERLAP,
			  sqlite3_column_int64(q.st, 0));
	}
	report_bad(b, "OVERLAP_ANALYSIS", bad);
}

static void read_mstx(struct bld *b)
{
	struct want w[] = {{"startNs", true}, {"endNs", true}, {"globalTid", false}, {"message", false}};
	struct q q;
	if (!q_open(b, &q, "MSTX_EVENTS", w, 4, NULL, true))
		return;
	size_t bad[2] = {0, 0};
	while (q_step(b, &q)) {
		int64_t start, end;
		if (!row_times(b, &q, &start, &end, bad))
			continue;
		uint32_t lane = host_lane(b, q.st, 3, "", b->s_python, 0);
		bld_event(b, start, end, sid(b, q.st, 4), bld_kind(b, lane, b->c_mstx, 0),
			  SRC_MSTX, sqlite3_column_int64(q.st, 0));
	}
	report_bad(b, "MSTX_EVENTS", bad);
}

/* ---- counters ----------------------------------------------------------------------- */

/* The counter track (process, name) with its value key, made on first use. */
static uint32_t ctr_track(struct bld *b, const char *process, const char *name, const char *key)
{
	struct rank_store *rs = b->rs;
	uint32_t p = bld_str(b, process), nm = bld_str(b, name);
	for (size_t i = 0; i < rs->n_tracks; i++)
		if (rs->tracks[i].process_name == p && rs->tracks[i].name == nm)
			return (uint32_t)i;
	xgrow(&rs->tracks, &b->cap_tracks, rs->n_tracks + 1, sizeof *rs->tracks);
	struct counter_track *t = &rs->tracks[rs->n_tracks];
	memset(t, 0, sizeof *t);
	t->pid_text = p;
	t->process_name = p;
	t->name = nm;
	t->value_key = bld_str(b, key);
	return (uint32_t)rs->n_tracks++;
}

static void ctr_sample(struct bld *b, uint32_t track, int64_t ts, double v)
{
	struct rank_store *rs = b->rs;
	if (rs->n_ctr == b->cap_ctr) {
		size_t c = b->cap_ctr;
		xgrow(&rs->ctr_ts, &c, rs->n_ctr + 1, sizeof *rs->ctr_ts);
		c = b->cap_ctr;
		xgrow(&rs->ctr_value, &c, rs->n_ctr + 1, sizeof *rs->ctr_value);
		c = b->cap_ctr;
		xgrow(&rs->ctr_off, &c, rs->n_ctr + 1, sizeof *rs->ctr_off);
		xgrow(&rs->ctr_track, &b->cap_ctr, rs->n_ctr + 1, sizeof *rs->ctr_track);
	}
	rs->ctr_ts[rs->n_ctr] = ts;
	rs->ctr_value[rs->n_ctr] = v;
	rs->ctr_off[rs->n_ctr] = 0; /* no element to show: the row is the sample */
	rs->ctr_track[rs->n_ctr] = track;
	rs->n_ctr++;
}

/* AICORE_FREQ and NPU_MEM as the text export's counter lanes: "AI Core Freq" (MHz) and
 * NPU MEM's APP/ and Device/ DDR, HBM and Memory (their sum), in KB. */
static void read_counters(struct bld *b)
{
	struct want wf[] = {{"timestampNs", true}, {"freq", true}};
	struct q q;
	if (q_open(b, &q, "AICORE_FREQ", wf, 2, NULL, true)) {
		uint32_t t = ctr_track(b, "AI Core Freq", "AI Core Freq", "MHz");
		while (q_step(b, &q)) {
			int64_t ts, f;
			if (col_i64(q.st, 1, &ts) && col_i64(q.st, 2, &f))
				ctr_sample(b, t, ts, (double)f);
		}
	}
	if (!table_exists(b->h, "STRING_IDS"))
		return;
	struct want wm[] = {{"timestampNs", true}, {"s.value", false}, {"ddr", true}, {"hbm", true}};
	if (!q_open(b, &q, "NPU_MEM", wm, 4, "LEFT JOIN STRING_IDS s ON s.id = m.type", true))
		return;
	static const char *const part[] = {"DDR", "HBM", "Memory"};
	char name[64];
	while (q_step(b, &q)) {
		int64_t ts, v[3];
		const char *type = col_text(q.st, 2);
		if (!col_i64(q.st, 1, &ts) || !col_i64(q.st, 3, &v[0]) || !col_i64(q.st, 4, &v[1]))
			continue;
		v[2] = v[0] + v[1];
		const char *who = !strcasecmp(type, "app") ? "APP" : !strcasecmp(type, "device") ? "Device" : NULL;
		if (!who)
			continue;
		for (int k = 0; k < 3; k++) {
			snprintf(name, sizeof name, "%s/%s", who, part[k]);
			ctr_sample(b, ctr_track(b, "NPU MEM", name, "KB"), ts, (double)v[k] / 1024.0);
		}
	}
}

/* Flow ends are kept only where a start and a finish share (cat, id), and of several
 * finishes only the earliest: every CANN API and task carries a connection id, but the
 * text export draws one arrow per launch, to its first task, and no dangling ends (the
 * unmatched count stays meaningful). The ends are grouped by sorting 4-byte indices in
 * the order lanes_finish sorts them (lanes.c FLOW_LESS, stable), and the kept ones are
 * left in that order: read table by table they are far from it, and its sort would then
 * copy them all beside a set-aside buffer, the Db load's peak. */
static int cmp_flow_ix(const void *a, const void *b, void *ctx)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct flow *f = ctx, *x = &f[i], *y = &f[j];
	if (x->cat != y->cat)
		return x->cat < y->cat ? -1 : 1;
	if (x->id_is_text != y->id_is_text)
		return x->id_is_text < y->id_is_text ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->ph != y->ph)
		return x->ph < y->ph ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return i < j ? -1 : i > j;
}

#define BIT_SET(w, i) ((w)[(i) / 64] |= (uint64_t)1 << ((i) % 64))
#define BIT_GET(w, i) ((w)[(i) / 64] >> ((i) % 64) & 1)

static void drop_dangling_flows(struct bld *b)
{
	struct rank_store *rs = b->rs;
	struct flow *fl = rs->flows;
	size_t n = rs->n_flows;
	if (!n || n >= UINT32_MAX)
		return;
	uint32_t *ix = xmalloc(n * sizeof *ix);
	for (size_t i = 0; i < n; i++)
		ix[i] = (uint32_t)i;
	xqsort_r(ix, n, sizeof *ix, cmp_flow_ix, fl);
	size_t words = (n + 63) / 64;
	uint64_t *keep = xcalloc(words, sizeof *keep);
	for (size_t g = 0; g < n;) {
		const struct flow *first = &fl[ix[g]];
		size_t e = g, fin;
		while (e < n && fl[ix[e]].cat == first->cat && fl[ix[e]].id_is_text == first->id_is_text &&
		       fl[ix[e]].id == first->id)
			e++;
		for (fin = g; fin < e && fl[ix[fin]].ph == FLOW_START; fin++)
			;
		/* a group with both: its starts, and the finishes at the earliest finish's time */
		if (fin > g && fin < e) {
			for (size_t k = g; k < fin; k++)
				BIT_SET(keep, ix[k]);
			int64_t ts0 = fl[ix[fin]].ts;
			for (size_t k = fin; k < e && fl[ix[k]].ts == ts0; k++)
				BIT_SET(keep, ix[k]);
		}
		g = e;
	}
	/* the kept ends' places once compacted in read order: a count per 64 ends */
	uint32_t *before = xmalloc(words * sizeof *before);
	size_t out = 0;
	for (size_t w = 0; w < words; w++) {
		before[w] = (uint32_t)out;
		out += (size_t)__builtin_popcountll(keep[w]);
	}
	/* ix becomes the permutation: sorted place k takes the compacted end ix[k] */
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t o = ix[i];
		if (BIT_GET(keep, o))
			ix[k++] = before[o / 64] +
				  (uint32_t)__builtin_popcountll(keep[o / 64] & (((uint64_t)1 << (o % 64)) - 1));
	}
	free(before);
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		if (BIT_GET(keep, i))
			fl[c++] = fl[i];
	/* then moved into sorted order in place, cycle by cycle (keep marks the places done) */
	memset(keep, 0, words * sizeof *keep);
	for (size_t s0 = 0; s0 < out; s0++) {
		if (BIT_GET(keep, s0))
			continue;
		struct flow tmp = fl[s0];
		size_t j = s0;
		for (;;) {
			BIT_SET(keep, j);
			size_t src = ix[j];
			if (src == s0) {
				fl[j] = tmp;
				break;
			}
			fl[j] = fl[src];
			j = src;
		}
	}
	free(keep);
	free(ix);
	rs->n_flows = out;
	/* the dropped ends' pages go back before the lanes are built (shrinking a big
	 * block unmaps its tail) */
	rs->flows = spill_realloc(rs->flows, (out ? out : 1) * sizeof *rs->flows);
	b->cap_flows = out ? out : 1;
}

/* The columns from the builder's arrays, then the lanes as the text loader leaves them. */
static void bld_finish(struct bld *b)
{
	struct rank_store *rs = b->rs;
	size_t n = b->n;
	rs->n_ev = n;
	size_t tail = n & ((1u << STORE_TS_SHIFT) - 1);
	store_ts_put_block(rs, n - tail, b->blk, tail, &b->cap_far);
	if (!rs->ev_ts_lo) {
		rs->ev_ts_lo = xmalloc(sizeof *rs->ev_ts_lo);
		rs->ev_ts_base = xmalloc(sizeof *rs->ev_ts_base);
	}
	rs->ev_dur = b->dur ? b->dur : xmalloc(sizeof *rs->ev_dur);
	rs->ev_name = b->name ? b->name : xmalloc(sizeof *rs->ev_name);
	rs->ev_kind = b->kind ? b->kind : xmalloc(sizeof *rs->ev_kind);
	if (!rs->ev_off_lo && !rs->ev_off_wide) {
		rs->ev_off_lo = xmalloc(sizeof *rs->ev_off_lo);
		rs->ev_off_block = xcalloc(1, sizeof *rs->ev_off_block);
	}
	if (!rs->long_durs)
		rs->long_durs = xmalloc(sizeof *rs->long_durs);
	drop_dangling_flows(b);
	rs->ph.by_char['X'] = n;
	for (size_t i = 0; i < rs->n_flows; i++)
		rs->ph.by_char[rs->flows[i].ph == FLOW_START ? 's' : 'f']++;
	lanes_finish(rs, b->path, b->dl);
}

/* The event columns sized once from the tables' row counts (an upper bound: rows may be
 * skipped), instead of doubling as rows come: the builder's arrays are the load's peak. */
static void reserve_events(struct bld *b)
{
	size_t n = 0;
	for (int src = SRC_PYTORCH_API; src < SRC_COUNT; src++) {
		if (!table_exists(b->h, src_table[src]))
			continue;
		char *sql = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", src_table[src]);
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(b->h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
			n += (size_t)sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		sqlite3_free(sql);
	}
	if (!n)
		return;
	b->rs->ev_ts_lo = spill_alloc(n * sizeof *b->rs->ev_ts_lo);
	b->rs->ev_ts_base = xmalloc(((n >> STORE_TS_SHIFT) + 1) * sizeof *b->rs->ev_ts_base);
	b->dur = spill_alloc(n * sizeof *b->dur);
	b->name = spill_alloc(n * sizeof *b->name);
	b->kind = spill_alloc(n * sizeof *b->kind);
	b->cap = n;
	/* the offsets go straight into the store's columns (n_ev is the bound until the end) */
	b->rs->n_ev = n;
	b->rs->ev_off_lo = spill_alloc(n * sizeof *b->rs->ev_off_lo);
	b->rs->ev_off_block = xcalloc((n >> STORE_OFF_SHIFT) + 1, sizeof *b->rs->ev_off_block);
}

/* Each table's base offset: the tables' rowids laid end to end in the order they are read. */
static void table_bases(struct bld *b)
{
	uint64_t next = 0;
	for (int src = SRC_PYTORCH_API; src < SRC_COUNT; src++) {
		b->rs->trace.db_base[src] = next;
		if (!table_exists(b->h, src_table[src]))
			continue;
		char *sql = sqlite3_mprintf("SELECT max(rowid) FROM \"%w\"", src_table[src]);
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(b->h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
		    sqlite3_column_int64(st, 0) > 0)
			next += (uint64_t)sqlite3_column_int64(st, 0) + 1;
		sqlite3_finalize(st);
		sqlite3_free(sql);
	}
}

static void read_schema_version(struct bld *b)
{
	if (!table_exists(b->h, "META_DATA"))
		return;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(b->h, "SELECT value FROM META_DATA WHERE name = 'SCHEMA_VERSION'", -1, &st,
			       NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *v = col_text(st, 0);
		long major = strtol(v, NULL, 10);
		if (major > DB_SCHEMA_MAJOR)
			diag_add(b->dl, DIAG_WARN, b->path, 0, -1,
				 _("META_DATA SCHEMA_VERSION %s is newer than the %d.x this reader knows: "
				 "tables are read by column name; check the figures against the exporter's"),
				 v, DB_SCHEMA_MAJOR);
	}
	sqlite3_finalize(st);
}

int db_load_rank(struct rank_store *rs, const char *path, struct diag_list *dl)
{
	free(rs->trace.path);
	rs->trace.path = xstrdup(path);
	rs->trace.db = true;
	rs->trace.cut_offset = -1;
	rs->trace.threads_used = 1;
	struct stat sb;
	if (stat(path, &sb) == 0)
		rs->trace.size = (uint64_t)sb.st_size;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct bld b = {.rs = rs, .path = path, .dl = dl, .last_kind = UINT32_MAX, .last_host_lane = UINT32_MAX};
	b.h = db_open(path, dl);
	if (!b.h)
		return -1;
	read_schema_version(&b);
	read_session(&b);
	rs->attrs = xmalloc(sizeof *rs->attrs);
	rs->attrs[0] = (struct ev_attr){0, 0};
	rs->n_attrs = 1;
	b.cap_attrs = 1;
	bool found;
	*u64map_slot(&b.attr_map, 0, &found) = 0;
	/* the process names and cats the text export writes */
	static const struct { size_t at; const char *s; } names[] = {
		{offsetof(struct bld, s_python), "Python"},
		{offsetof(struct bld, s_cann), "CANN"},
		{offsetof(struct bld, s_hw), "Ascend Hardware"},
		{offsetof(struct bld, s_hccl), "HCCL"},
		{offsetof(struct bld, s_overlap), "Overlap Analysis"},
		{offsetof(struct bld, c_cpu_op), "cpu_op"},
		{offsetof(struct bld, c_enqueue), "enqueue"},
		{offsetof(struct bld, c_dequeue), "dequeue"},
		{offsetof(struct bld, c_python_function), "python_function"},
		{offsetof(struct bld, c_mstx), "mstx"},
		{offsetof(struct bld, c_async_npu), "async_npu"},
		{offsetof(struct bld, c_h2d), "HostToDevice"},
		{offsetof(struct bld, c_queue), "async_task_queue"},
		{offsetof(struct bld, c_fwdbwd), "fwdbwd"},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		*(uint32_t *)((char *)&b + names[i].at) = bld_str(&b, names[i].s);
	if (!table_exists(b.h, "STRING_IDS")) {
		if (not_table_kind(b.h, "STRING_IDS"))
			not_table_note(b.h, path, "STRING_IDS", dl);
		else
			diag_add(dl, DIAG_WARN, path, 0, -1, _("no table STRING_IDS: names are missing, the events are read"));
		/* an empty stand-in in the in-memory temp schema keeps every join working; the
		 * file itself is never written */
		sqlite3_exec(b.h,
			     "PRAGMA query_only=0; CREATE TEMP VIEW STRING_IDS(id, value) AS SELECT NULL, NULL WHERE 0;"
			     " PRAGMA query_only=1",
			     NULL, NULL, NULL);
	}
	keyed_open(&b.strings, b.h, "STRING_IDS", "id", "value");
	table_bases(&b);
	b.fin = fin_load(b.h);
	reserve_events(&b);
	read_pytorch_api(&b);
	read_cann_api(&b);
	read_task(&b);
	read_comm(&b);
	read_overlap(&b);
	read_mstx(&b);
	read_counters(&b);
	keyed_close(&b.strings);
	sqlite3_close(b.h);
	fin_free(b.fin);
	u64map_free(&b.sids);
	u64map_free(&b.lane_map);
	u64map_free(&b.kind_map);
	u64map_free(&b.attr_map);
	bld_finish(&b);
	/* say so, or the report's "trace NOT READ ... see the messages below" finds none */
	if (!rs->n_ev)
		diag_add(dl, DIAG_ERROR, path, 0, -1,
			 _("no events in any table read (PYTORCH_API, CANN_API, TASK, COMMUNICATION_OP, "
			 "OVERLAP_ANALYSIS, MSTX_EVENTS): the Db holds no trace; its other tables are read"));
	xalloc_trim(); /* the builder's maps and SQLite's pages, before the kernel table */
	rs->trace.parsed_bytes = rs->trace.size;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	rs->trace.load_seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	return 0;
}

static void json_str(struct sbuf *o, const char *s);

/* ---- tables read as CSV ------------------------------------------------------------------ */

static const struct db_csv_col step_cols[] = {
	{"Step", "step", DBC_TEXT},
	{"Computing", "computing", DBC_TEXT},
	{"Communication(Not Overlapped)", "communication_not_overlapped", DBC_TEXT},
	{"Overlapped", "overlapped", DBC_TEXT},
	{"Communication", "communication", DBC_TEXT},
	{"Free", "free", DBC_TEXT},
	{"Stage", "stage", DBC_TEXT},
	{"Bubble", "bubble", DBC_TEXT},
	{"Communication(Not Overlapped and Exclude Receive)", "communication_not_overlapped_and_exclude_receive",
	 DBC_TEXT},
	{"Preparing", "preparing", DBC_TEXT},
};
static const struct db_csv_col record_cols[] = {
	{"Component", "component", DBC_STRING_ID},
	{"Timestamp(us)", "timestamp", DBC_NS_US},
	{"Total Allocated(MB)", "totalAllocated", DBC_BYTES_MB},
	{"Total Reserved(MB)", "totalReserved", DBC_BYTES_MB},
	{"Total Active(MB)", "totalActive", DBC_BYTES_MB},
	{"Stream Ptr", "streamPtr", DBC_TEXT},
	{"Device Type", "deviceId", DBC_DEVICE},
};
static const struct db_csv_col op_mem_cols[] = {
	{"Name", "name", DBC_STRING_ID},
	{"Size(KB)", "size", DBC_BYTES_KB},
	{"Allocation Time(us)", "allocationTime", DBC_NS_US},
	{"Release Time(us)", "releaseTime", DBC_NS_US},
	{"Active Release Time(us)", "activeReleaseTime", DBC_NS_US},
	{"Duration(us)", "duration", DBC_NS_US},
	{"Active Duration(us)", "activeDuration", DBC_NS_US},
	{"Allocation Total Allocated(MB)", "allocationTotalAllocated", DBC_BYTES_MB},
	{"Allocation Total Reserved(MB)", "allocationTotalReserved", DBC_BYTES_MB},
	{"Allocation Total Active(MB)", "allocationTotalActive", DBC_BYTES_MB},
	{"Release Total Allocated(MB)", "releaseTotalAllocated", DBC_BYTES_MB},
	{"Release Total Reserved(MB)", "releaseTotalReserved", DBC_BYTES_MB},
	{"Release Total Active(MB)", "releaseTotalActive", DBC_BYTES_MB},
	{"Stream Ptr", "streamPtr", DBC_TEXT},
	{"Device Type", "deviceId", DBC_DEVICE},
};
static const struct db_csv_col module_cols[] = {
	{"Component", "moduleId", DBC_MODULE},
	{"Timestamp(us)", "timestampNs", DBC_NS_US},
	{"Total Reserved(MB)", "totalReserved", DBC_BYTES_MB},
	{"Device", "deviceId", DBC_DEVICE},
};
#define SPEC_COLS(c) c, sizeof c / sizeof c[0]
const struct db_csv_spec db_csv_specs[] = {
	{"StepTraceTime", "step_trace_time.csv", true, "computing", SPEC_COLS(step_cols), NULL, NULL},
	{"MEMORY_RECORD", "memory_record.csv", false, "timestamp", SPEC_COLS(record_cols), "NPU_MEM",
	 "SELECT timestampNs, 0, rowid, 'APP', timestampNs, NULL, hbm, NULL, NULL, deviceId FROM NPU_MEM"
	 " WHERE type IN (SELECT id FROM STRING_IDS WHERE lower(value) = 'app')"},
	{"OP_MEMORY", "operator_memory.csv", false, "size", SPEC_COLS(op_mem_cols), NULL, NULL},
	{"NPU_MODULE_MEM", "npu_module_mem.csv", false, "timestampNs", SPEC_COLS(module_cols), NULL, NULL},
};
const size_t db_n_csv_specs = sizeof db_csv_specs / sizeof db_csv_specs[0];

/* A CSV cell, quoted when it must be. */
static void csv_cell(struct sbuf *csv, const char *v)
{
	if (!strpbrk(v, ",\"\r\n")) {
		sbuf_adds(csv, v);
		return;
	}
	sbuf_addc(csv, '"');
	for (const char *p = v; *p; p++) {
		if (*p == '"')
			sbuf_addc(csv, '"');
		sbuf_addc(csv, *p);
	}
	sbuf_addc(csv, '"');
}

/* bytes / 2^shift written exactly (a binary fraction has a finite decimal expansion). */
static void exact_fraction(struct sbuf *csv, int64_t v, int shift)
{
	if (v < 0) {
		sbuf_addc(csv, '-');
		v = -v;
	}
	uint64_t u = (uint64_t)v, mask = (UINT64_C(1) << shift) - 1, frac = u & mask;
	sbuf_addf(csv, "%" PRIu64, u >> shift);
	if (!frac)
		return;
	sbuf_addc(csv, '.');
	while (frac) {
		frac *= 10;
		sbuf_addc(csv, (char)('0' + (frac >> shift)));
		frac &= mask;
	}
}

/* STRING_IDS values as CSV cells, looked up once per id: the kernel table names a dozen
 * strings per row, and a subquery per cell was a third of its time. */
struct sid_cells {
	struct keyed k;     /* STRING_IDS (or ENUM_MODULE) by id */
	struct u64map map;  /* id -> index into at */
	struct sbuf text;   /* the cells, escaped, end to end */
	uint32_t *at;       /* per index: offset into text; the next one's is its end */
	size_t n, cap;
};

static void sid_cell(struct sbuf *csv, struct sid_cells *sc, int64_t id)
{
	bool found;
	uint32_t *slot = u64map_slot(&sc->map, (uint64_t)id, &found);
	if (!found) {
		*slot = (uint32_t)sc->n;
		xgrow(&sc->at, &sc->cap, sc->n + 2, sizeof *sc->at);
		if (!sc->n)
			sc->at[0] = 0;
		/* an unknown id: an empty cell, as the subquery's NULL */
		const char *v = keyed_get(&sc->k, id);
		if (v)
			csv_cell(&sc->text, v);
		sc->at[++sc->n] = (uint32_t)sc->text.len;
	}
	uint32_t k = *slot;
	/* no text yet (only unknown ids so far): no buffer to point into */
	if (sc->at[k + 1] > sc->at[k])
		sbuf_add(csv, sc->text.buf + sc->at[k], sc->at[k + 1] - sc->at[k]);
}

static void sid_cells_free(struct sid_cells *sc)
{
	keyed_close(&sc->k);
	u64map_free(&sc->map);
	sbuf_free(&sc->text);
	free(sc->at);
}

/* sc: the STRING_IDS cache for DBC_STRING_ID columns and the ENUM_MODULE one for DBC_MODULE
 * columns, each holding the id itself (NULL, or a cache not open: the value as written). */
static void conv_cell(struct sbuf *csv, sqlite3_stmt *st, int c, enum db_conv conv, struct sid_cells *sc)
{
	int64_t v;
	if (sqlite3_column_type(st, c) == SQLITE_NULL)
		return;
	switch (conv) {
	case DBC_STRING_ID:
		/* an id through the cache; text (a literal, or a schema writing names) as written */
	case DBC_MODULE: {
		struct sid_cells *cache = sc ? &sc[conv == DBC_MODULE] : NULL;
		if (cache && cache->k.by_rowid && sqlite3_column_type(st, c) == SQLITE_INTEGER)
			sid_cell(csv, cache, sqlite3_column_int64(st, c));
		else
			csv_cell(csv, col_text(st, c));
		return;
	}
	case DBC_NS_US:
		/* PMU times are REAL ns with fractions: to the nearest ns */
		if (col_i64(st, c, &v) || (sqlite3_column_type(st, c) == SQLITE_FLOAT &&
					   fabs(sqlite3_column_double(st, c)) < 9e18 &&
					   ((v = llround(sqlite3_column_double(st, c))), true))) {
			char b[48];
			num_format_ns_as_us(v, b, sizeof b);
			sbuf_adds(csv, b);
		}
		return;
	case DBC_NOT_SET:
		/* UINT32_MAX is how the Db says "none" (the text export writes N/A) */
		if (col_i64(st, c, &v) && v == UINT32_MAX)
			sbuf_adds(csv, "N/A");
		else
			csv_cell(csv, col_text(st, c));
		return;
	case DBC_BYTES_MB:
	case DBC_BYTES_KB:
		if (col_i64(st, c, &v))
			exact_fraction(csv, v, conv == DBC_BYTES_MB ? 20 : 10);
		else
			csv_cell(csv, col_text(st, c)); /* a REAL: as written */
		return;
	case DBC_DEVICE:
		sbuf_addf(csv, "NPU:%s", col_text(st, c));
		return;
	default:
		csv_cell(csv, col_text(st, c));
		return;
	}
}

/* A temporary file that vanishes with its descriptor, in $TMPDIR (else /tmp), never beside
 * the capture; -1 when none can be made. */
static int temp_fd(void)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	char *tmpl = xasprintf("%s/ascprof-db-XXXXXX", dir);
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd >= 0)
		unlink(tmpl);
	free(tmpl);
	return fd;
}

/* Per row, extra cells after the query's columns (the kernel table's counters). */
typedef void (*row_extra_fn)(void *ctx, sqlite3_stmt *st, struct sbuf *row);
/* After the last row, before the table is read back (and when the query cannot be
 * prepared): frees what the extra cells needed. */
typedef void (*rows_done_fn)(void *ctx);

/* The rows of sql (used columns, converted) after the header already in csv, as a CSV
 * table named "<path>:<table>". The rows stream to a temporary file, which the table
 * keeps to read cells again, so a big table costs its typed columns, not its text; where
 * no temporary file can be made they collect in memory and *buf receives the bytes the
 * table borrows (else NULL). */
static struct csv_table *rows_table(sqlite3 *h, const char *path, const char *table, const char *sql,
				    const enum db_conv *conv, struct sid_cells *sc, size_t used, struct sbuf *csv,
				    char **buf, row_extra_fn extra, rows_done_fn done, void *ctx,
				    struct diag_list *dl)
{
	*buf = NULL;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table %s cannot be read: %s"), table, sqlite3_errmsg(h));
		if (done)
			done(ctx);
		return NULL;
	}
	int fd = temp_fd(), wfd = fd >= 0 ? dup(fd) : -1;
	FILE *out = wfd >= 0 ? fdopen(wfd, "w") : NULL;
	if (!out && wfd >= 0)
		close(wfd);
	if (out)
		fwrite(csv->buf, 1, csv->len, out);
	struct sbuf row = SBUF_INIT, *dst = out ? &row : csv;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (out)
			sbuf_reset(&row);
		for (size_t i = 0; i < used; i++) {
			if (i)
				sbuf_addc(dst, ',');
			conv_cell(dst, st, (int)i, conv[i], sc);
		}
		if (extra)
			extra(ctx, st, dst);
		sbuf_addc(dst, '\n');
		if (out)
			fwrite_unlocked(row.buf, 1, row.len, out);
	}
	if (rc != SQLITE_DONE)
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table %s: %s; the rows before it were read"), table,
			 sqlite3_errmsg(h));
	sqlite3_finalize(st);
	sbuf_free(&row);
	if (done)
		done(ctx);
	char *name = xasprintf("%s:%s", path, table);
	struct csv_table *t = NULL;
	if (out) {
		bool ok = fclose(out) == 0;
		if (ok)
			t = csvt_load_fd(fd, name, dl);
		else
			close(fd);
	} else {
		if (fd >= 0)
			close(fd);
		size_t len = csv->len;
		*buf = sbuf_detach(csv);
		t = csvt_load_buffer(name, *buf, len, dl);
		if (!t) {
			free(*buf);
			*buf = NULL;
		}
	}
	free(name);
	return t;
}

struct csv_table *db_csv_table(const char *path, const struct db_csv_spec *spec, char **buf,
			       struct diag_list *dl)
{
	*buf = NULL;
	sqlite3 *h = db_open(path, dl);
	if (!h)
		return NULL;
	struct csv_table *t = NULL;
	struct cols c = {0};
	if (!table_exists(h, spec->table))
		goto out; /* not collected: the text export has no such file either */
	if (!cols_load(h, spec->table, &c)) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table %s cannot be read: %s"), spec->table, sqlite3_errmsg(h));
		goto out;
	}
	if (!cols_has(&c, spec->needed)) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table %s has no column %s; not read"), spec->table, spec->needed);
		goto out;
	}
	bool strings = table_exists(h, "STRING_IDS"), modules = table_exists(h, "ENUM_MODULE");
	/* the text export's header for the columns this table has */
	struct sbuf sel = SBUF_INIT, sql = SBUF_INIT, csv = SBUF_INIT;
	enum db_conv conv[32];
	size_t used = 0;
	for (size_t i = 0; i < spec->n_cols && used < 32; i++) {
		const char *have = cols_has(&c, spec->cols[i].column);
		if (!have)
			continue;
		/* ids as they are: the cells look them up (sid_cells), not a subquery per row */
		char *q = sqlite3_mprintf(", m.\"%w\"", have);
		sbuf_adds(&sel, q);
		sqlite3_free(q);
		sbuf_addf(&sel, " AS c%zu", used);
		sbuf_addf(&csv, "%s%s", used ? "," : "", spec->cols[i].header);
		conv[used++] = spec->cols[i].conv;
	}
	sbuf_addc(&csv, '\n');
	/* the columns; with extra rows (every column there), both merged by time, the extra
	 * rows first at equal times, then by rowid */
	bool extra = spec->extra_rows && used == spec->n_cols && strings && table_exists(h, spec->extra_table);
	sbuf_adds(&sql, "SELECT ");
	for (size_t i = 0; i < used; i++)
		sbuf_addf(&sql, "%sc%zu", i ? ", " : "", i);
	char *from = extra ? sqlite3_mprintf(" FROM (SELECT m.\"%w\" AS k_, 1 AS s_, m.rowid AS r_%s FROM \"%w\" m"
					     " UNION ALL %s) ORDER BY k_, s_, r_",
					     cols_has(&c, spec->needed), sbuf_str(&sel), spec->table, spec->extra_rows)
			   : sqlite3_mprintf(" FROM (SELECT 0%s FROM \"%w\" m)", sbuf_str(&sel), spec->table);
	sbuf_adds(&sql, from);
	sqlite3_free(from);
	sbuf_free(&sel);
	struct sid_cells sc[2] = {{.n = 0}, {.n = 0}};
	keyed_open(&sc[0].k, h, "STRING_IDS", "id", "value");
	if (modules)
		keyed_open(&sc[1].k, h, "ENUM_MODULE", "id", "name");
	t = rows_table(h, path, spec->table, sbuf_str(&sql), conv, sc, used, &csv, buf, NULL, NULL, NULL, dl);
	sid_cells_free(&sc[0]);
	sid_cells_free(&sc[1]);
	sbuf_free(&sql);
	sbuf_free(&csv);
out:
	cols_free(&c);
	sqlite3_close(h);
	return t;
}

/* TASK_PMU_INFO's counters that the analysis reads, under the text export's headers (the
 * totals are ns; aiv_mac_* and aiv_mte1_*, which the vector core lacks, are not wanted). */
static const char *const pmu_wanted[][2] = {
	{"aic_total_time", "aicore_time(us)"}, {"aic_mac_ratio", "aic_mac_ratio"},
	{"aic_vec_ratio", "aic_vec_ratio"}, {"aic_scalar_ratio", "aic_scalar_ratio"},
	{"aic_mte1_ratio", "aic_mte1_ratio"}, {"aic_mte2_ratio", "aic_mte2_ratio"},
	{"aic_mte3_ratio", "aic_mte3_ratio"}, {"aic_icache_miss_rate", "aic_icache_miss_rate"},
	{"aiv_total_time", "aiv_time(us)"}, {"aiv_vec_ratio", "aiv_vec_ratio"},
	{"aiv_scalar_ratio", "aiv_scalar_ratio"}, {"aiv_mte2_ratio", "aiv_mte2_ratio"},
	{"aiv_mte3_ratio", "aiv_mte3_ratio"}, {"aiv_icache_miss_rate", "aiv_icache_miss_rate"},
};
#define PMU_WANTED (sizeof pmu_wanted / sizeof pmu_wanted[0])

struct pmu {
	struct u64map slot;      /* globalTaskId -> slot */
	double *v[PMU_WANTED];   /* per counter, per slot; NaN when absent */
	size_t n_slots, cap[PMU_WANTED];
	bool present[PMU_WANTED];
	int gtid_col;            /* the query column holding the task id */
	int64_t dense_max;       /* >= 0: the slot is the task id itself, up to this; no map */
};

/* Task ids index the counters directly when COMPUTE_TASK_INFO's ids (the only ones a
 * kernel row looks up) are dense, as the exporters number them: a map of half a million
 * ids, built beside the events, was a tenth of a big Db load's peak. */
static void pmu_dense(sqlite3 *h, struct pmu *pm)
{
	pm->dense_max = -1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h, "SELECT min(rowid), max(rowid), count(*) FROM COMPUTE_TASK_INFO", -1, &st,
			       NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 1) == SQLITE_INTEGER) {
		int64_t lo = sqlite3_column_int64(st, 0), hi = sqlite3_column_int64(st, 1);
		int64_t n = sqlite3_column_int64(st, 2);
		if (lo >= 0 && hi < 4 * n + 1024 && hi < (int64_t)UINT32_MAX)
			pm->dense_max = hi;
	}
	sqlite3_finalize(st);
}

/* The counters' slot of task id gtid into *out; false when it has none. */
static bool pmu_find(const struct pmu *pm, int64_t gtid, uint32_t *out)
{
	if (pm->dense_max >= 0) {
		*out = (uint32_t)gtid;
		return gtid >= 0 && gtid <= pm->dense_max;
	}
	const uint32_t *slot = u64map_get(&pm->slot, (uint64_t)gtid);
	if (slot)
		*out = *slot;
	return slot != NULL;
}

static void pmu_load(sqlite3 *h, struct pmu *pm)
{
	if (!table_exists(h, "TASK_PMU_INFO"))
		return;
	/* the wanted counters' STRING_IDS ids */
	int64_t id[PMU_WANTED];
	struct sbuf in = SBUF_INIT;
	for (size_t k = 0; k < PMU_WANTED; k++) {
		id[k] = INT64_MIN;
		char *q = sqlite3_mprintf("%s%Q", k ? "," : "", pmu_wanted[k][0]);
		sbuf_adds(&in, q);
		sqlite3_free(q);
	}
	char *sql = sqlite3_mprintf("SELECT id, value FROM STRING_IDS WHERE value IN (%s)", sbuf_str(&in));
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW)
			for (size_t k = 0; k < PMU_WANTED; k++)
				if (!strcmp(col_text(st, 1), pmu_wanted[k][0]))
					id[k] = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_free(sql);
	sbuf_reset(&in);
	for (size_t k = 0; k < PMU_WANTED; k++)
		if (id[k] != INT64_MIN)
			sbuf_addf(&in, "%s%lld", in.len ? "," : "", (long long)id[k]);
	if (!in.len) {
		sbuf_free(&in);
		return;
	}
	sql = sqlite3_mprintf("SELECT globalTaskId, name, value FROM TASK_PMU_INFO WHERE name IN (%s)", sbuf_str(&in));
	sbuf_free(&in);
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			int64_t name = sqlite3_column_int64(st, 1);
			size_t k = 0;
			while (k < PMU_WANTED && id[k] != name)
				k++;
			if (k == PMU_WANTED || sqlite3_column_type(st, 2) == SQLITE_NULL)
				continue;
			int64_t gtid = sqlite3_column_int64(st, 0);
			uint32_t *slot, direct = (uint32_t)gtid;
			if (pm->dense_max >= 0) {
				if (gtid < 0 || gtid > pm->dense_max)
					continue;
				slot = &direct;
			} else {
				bool found;
				slot = u64map_slot(&pm->slot, (uint64_t)gtid, &found);
				if (!found)
					*slot = (uint32_t)pm->n_slots++;
			}
			if (*slot >= pm->cap[k]) {
				size_t old = pm->cap[k];
				if (pm->dense_max >= 0) {
					/* every id's place at once: no doubling past them */
					pm->cap[k] = (size_t)pm->dense_max + 1;
					pm->v[k] = spill_realloc(pm->v[k], pm->cap[k] * sizeof *pm->v[k]);
				} else {
					spill_grow(&pm->v[k], &pm->cap[k], (size_t)*slot + 1, sizeof *pm->v[k]);
				}
				for (size_t i = old; i < pm->cap[k]; i++)
					pm->v[k][i] = NAN;
			}
			pm->v[k][*slot] = sqlite3_column_double(st, 2);
			pm->present[k] = true;
		}
		sqlite3_finalize(st);
	}
	sqlite3_free(sql);
}

/* The counters go before the table's text is read back into typed columns: together
 * they were the kernel table's peak. */
static void pmu_done(void *ctx)
{
	struct pmu *pm = ctx;
	u64map_free(&pm->slot);
	for (size_t k = 0; k < PMU_WANTED; k++) {
		spill_free(pm->v[k]);
		pm->v[k] = NULL;
	}
}

/* A kernel row's counters: the totals (ns) as µs, the ratios exactly. */
static void pmu_cells(void *ctx, sqlite3_stmt *st, struct sbuf *row)
{
	const struct pmu *pm = ctx;
	uint32_t at = 0;
	bool has = sqlite3_column_type(st, pm->gtid_col) != SQLITE_NULL &&
		   pmu_find(pm, sqlite3_column_int64(st, pm->gtid_col), &at);
	for (size_t k = 0; k < PMU_WANTED; k++) {
		if (!pm->present[k])
			continue;
		sbuf_addc(row, ',');
		double v = has && at < pm->cap[k] ? pm->v[k][at] : NAN;
		if (v != v)
			continue;
		if (!strcmp(pmu_wanted[k][0] + 4, "total_time") && fabs(v) < 9e18) {
			char b[48];
			num_format_ns_as_us(llround(v), b, sizeof b);
			sbuf_adds(row, b);
		} else {
			/* the analysis keeps ratios as floats: nine digits give the same one */
			char b[40];
			num_format_g9(v, b, sizeof b);
			sbuf_adds(row, b);
		}
	}
}

/* TASK with COMPUTE_TASK_INFO, and TASK_PMU_INFO's counters as columns, as the text
 * export's kernel_details.csv: one row per compute task in start order, names through
 * STRING_IDS, ns as µs; a counter named *_time (ns) becomes "<name>(us)", the totals
 * aic_total_time and aiv_total_time "aicore_time(us)" and "aiv_time(us)". */
struct csv_table *db_kernel_table(const char *path, char **buf, struct diag_list *dl)
{
	/* per column: the compute task's expression and the collective's (COMMUNICATION_OP,
	 * listed as HCCL kernels as the text export does) */
	static const struct { const char *header, *table, *column, *task, *comm; enum db_conv conv; } main_cols[] = {
		{"Device_id", "TASK", "deviceId", "t.deviceId", "NULL", DBC_TEXT},
		{"Name", "COMPUTE_TASK_INFO", "name", "c.name", "o.opName", DBC_STRING_ID},
		{"Type", "COMPUTE_TASK_INFO", "opType", "c.opType", "o.opType", DBC_STRING_ID},
		{"Accelerator Core", "COMPUTE_TASK_INFO", "taskType", "c.taskType", "'HCCL'", DBC_STRING_ID},
		{"Start Time(us)", "TASK", "startNs", "t.startNs", "o.startNs", DBC_NS_US},
		{"Duration(us)", "TASK", "endNs", "t.endNs - t.startNs", "o.endNs - o.startNs", DBC_NS_US},
		{"Wait Time(us)", "COMPUTE_TASK_INFO", "waitNs", "c.waitNs", "o.waitNs", DBC_NS_US},
		{"Block Dim", "COMPUTE_TASK_INFO", "blockDim", "c.blockDim", "0", DBC_TEXT},
		{"Block Dim", "COMPUTE_TASK_INFO", "block_dim", "c.block_dim", "0", DBC_TEXT},
		{"Mix Block Dim", "COMPUTE_TASK_INFO", "mixBlockDim", "c.mixBlockDim", "NULL", DBC_TEXT},
		{"Input Shapes", "COMPUTE_TASK_INFO", "inputShapes", "c.inputShapes", "NULL", DBC_STRING_ID},
		{"Input Data Types", "COMPUTE_TASK_INFO", "inputDataTypes", "c.inputDataTypes", "NULL", DBC_STRING_ID},
		{"Input Formats", "COMPUTE_TASK_INFO", "inputFormats", "c.inputFormats", "NULL", DBC_STRING_ID},
		{"Output Shapes", "COMPUTE_TASK_INFO", "outputShapes", "c.outputShapes", "NULL", DBC_STRING_ID},
		{"Output Data Types", "COMPUTE_TASK_INFO", "outputDataTypes", "c.outputDataTypes", "NULL", DBC_STRING_ID},
		{"Output Formats", "COMPUTE_TASK_INFO", "outputFormats", "c.outputFormats", "NULL", DBC_STRING_ID},
		{"Context ID", "TASK", "contextId", "t.contextId", "NULL", DBC_NOT_SET},
	};
	*buf = NULL;
	sqlite3 *h = db_open(path, dl);
	if (!h)
		return NULL;
	struct csv_table *t = NULL;
	struct cols tc = {0}, cc = {0}, oc = {0};
	if (!table_exists(h, "TASK") || !table_exists(h, "COMPUTE_TASK_INFO") || !table_exists(h, "STRING_IDS") ||
	    !cols_load(h, "TASK", &tc) || !cols_load(h, "COMPUTE_TASK_INFO", &cc) || !cols_has(&tc, "startNs") ||
	    !cols_has(&tc, "endNs") || !cols_has(&tc, "globalTaskId") || !cols_has(&cc, "globalTaskId") ||
	    !cols_has(&cc, "name"))
		goto out; /* no kernels to list (the events say why, if anything is missing) */
	bool comm = table_exists(h, "COMMUNICATION_OP") && cols_load(h, "COMMUNICATION_OP", &oc) &&
		    cols_has(&oc, "startNs") && cols_has(&oc, "endNs") && cols_has(&oc, "opName");
	struct sbuf task = SBUF_INIT, ops = SBUF_INIT, sql = SBUF_INIT, csv = SBUF_INIT;
	enum db_conv conv[96];
	size_t used = 0;
	for (size_t i = 0; i < sizeof main_cols / sizeof main_cols[0]; i++) {
		if (!cols_has(!strcmp(main_cols[i].table, "TASK") ? &tc : &cc, main_cols[i].column) ||
		    (used && !strcmp(main_cols[i].header, "Block Dim") && strstr(csv.buf, "Block Dim,")))
			continue;
		const char *oexpr = main_cols[i].comm;
		/* a collective's column the Db lacks (no waitNs, no opType): NULL */
		if (!strncmp(oexpr, "o.", 2) && !cols_has(&oc, oexpr + 2))
			oexpr = "NULL";
		if (strstr(oexpr, "o.opType") && !cols_has(&oc, "opType"))
			oexpr = "NULL";
		sbuf_addf(&task, ", %s AS c%zu", main_cols[i].task, used);
		sbuf_addf(&ops, ", %s", oexpr);
		sbuf_addf(&csv, "%s%s", used ? "," : "", main_cols[i].header);
		conv[used++] = main_cols[i].conv;
	}
	/* the counters the analysis reads, one column each, from one pass over TASK_PMU_INFO
	 * (stored by counter, not by task: no pivot in SQL, whose sort would hold it all) */
	struct pmu pm = {0};
	pmu_dense(h, &pm);
	pmu_load(h, &pm);
	for (size_t k = 0; k < PMU_WANTED; k++)
		if (pm.present[k]) {
			sbuf_addf(&csv, ",%s", pmu_wanted[k][1]);
		}
	sbuf_addc(&csv, '\n');
	/* compute tasks and collectives merged by start; the task id after the cells, for the
	 * counters, then the sort keys. A compound SELECT ordered by its own columns lets
	 * SQLite merge TASK read through its (startNs, ...) index with the collectives, sorting
	 * only rows of equal start by rowid; ordering a subquery instead sorted every row's
	 * text at once (in memory: temp_store=MEMORY), the kernel table's peak. */
	sbuf_addf(&sql,
		  "SELECT %s, t.globalTaskId AS g_, t.startNs AS k_, 0 AS s_, t.rowid AS r_ FROM TASK t"
		  " JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId%s",
		  sbuf_str(&task) + 2,
		  /* a task without an op type is no kernel (a copy or an event named by its info) */
		  cols_has(&cc, "opType") ? " WHERE c.opType IS NOT NULL" : "");
	if (comm)
		sbuf_addf(&sql, " UNION ALL SELECT %s, NULL, o.startNs, 1, o.rowid FROM COMMUNICATION_OP o",
			  sbuf_str(&ops) + 2);
	sbuf_adds(&sql, " ORDER BY k_, s_, r_");
	pm.gtid_col = (int)used;
	struct sid_cells sc[2] = {{.n = 0}, {.n = 0}};
	keyed_open(&sc[0].k, h, "STRING_IDS", "id", "value");
	t = rows_table(h, path, "COMPUTE_TASK_INFO", sbuf_str(&sql), conv, sc, used, &csv, buf,
		       pmu_cells, pmu_done, &pm, dl);
	sid_cells_free(&sc[0]);
	sid_cells_free(&sc[1]);
	sbuf_free(&task);
	sbuf_free(&ops);
	sbuf_free(&sql);
	sbuf_free(&csv);
out:
	cols_free(&tc);
	cols_free(&cc);
	cols_free(&oc);
	sqlite3_close(h);
	/* SQLite's pages and the counters' small blocks, freed out of order, would stay in
	 * malloc's arenas beside the analysis (a tenth of its peak) */
	xalloc_trim();
	return t;
}

/* ---- analysis.db's CommAnalyzer tables as communication*.json ----------------------------- */

/* A number column as JSON (REAL exactly, with 17 digits; NULL or text that is no number: 0). */
static void json_num_col(struct sbuf *js, sqlite3_stmt *st, int c)
{
	switch (sqlite3_column_type(st, c)) {
	case SQLITE_INTEGER:
		sbuf_addf(js, "%lld", (long long)sqlite3_column_int64(st, c));
		return;
	case SQLITE_FLOAT:
	case SQLITE_TEXT: {
		double d = sqlite3_column_double(st, c);
		const char *t = col_text(st, c);
		if ((sqlite3_column_type(st, c) == SQLITE_FLOAT || num_double(t, strlen(t), &d) == NUM_OK) && d == d &&
		    d > -1e300 && d < 1e300) {
			/* the shortest text that reads back as the same double */
			char b[40];
			for (int prec = 15; prec <= 17; prec++) {
				snprintf(b, sizeof b, "%.*g", prec, d);
				if (strtod(b, NULL) == d)
					break;
			}
			sbuf_adds(js, b);
			return;
		}
		break;
	}
	default:
		break;
	}
	sbuf_addc(js, '0');
}

static void json_key(struct sbuf *js, const char *k)
{
	json_str(js, k);
	sbuf_addc(js, ':');
}

/* Opens and closes the step and type objects as the rows' (step, type) change: rows come
 * ordered by the first appearance of their step, then of their type. */
struct nest {
	char step[256], type[64];
	bool open, first_op;
};

/* Two levels of objects, {"outer": {"inner": {...}}}: closes what changed (when open) and
 * opens the new ones. */
static void nest_emit(struct sbuf *js, bool open, bool new_outer, bool new_inner, const char *outer, const char *inner)
{
	if (open && new_inner)
		sbuf_addc(js, '}');
	if (open && new_outer)
		sbuf_addc(js, '}');
	if (new_outer) {
		sbuf_adds(js, open ? "," : "{");
		json_key(js, outer);
		sbuf_addc(js, '{');
	} else if (new_inner) {
		sbuf_addc(js, ',');
	}
	if (new_inner) {
		json_key(js, inner);
		sbuf_addc(js, '{');
	}
}

static void nest_row(struct sbuf *js, struct nest *n, const char *step, const char *type)
{
	bool new_step = !n->open || strcmp(n->step, step), new_type = new_step || strcmp(n->type, type);
	nest_emit(js, n->open, new_step, new_type, step, type);
	if (new_type)
		n->first_op = true;
	snprintf(n->step, sizeof n->step, "%s", step);
	snprintf(n->type, sizeof n->type, "%s", type);
	n->open = true;
	if (!n->first_op)
		sbuf_addc(js, ',');
	n->first_op = false;
}

static void nest_close(struct sbuf *js, const struct nest *n)
{
	sbuf_adds(js, n->open ? "}}}" : "{}");
}

/* "ORDER BY" the first appearance of the row's step, then of its type, then rowid. */
/* window functions, not a subquery per row: those scanned the table each (quadratic) */
#define APPEARANCE(t) \
	" ORDER BY min(m.rowid) OVER (PARTITION BY m.step)," \
	" min(m.rowid) OVER (PARTITION BY m.step, m.type), m.rowid"

static const char comm_time_sql[] =
	"SELECT step, type, hccl_op_name, group_name, start_timestamp, elapse_time, transit_time, wait_time,"
	" synchronization_time, idle_time FROM CommAnalyzerTime m" APPEARANCE("CommAnalyzerTime");
static const char comm_bw_sql[] =
	"SELECT transport_type, transit_size, transit_time, bandwidth, large_packet_ratio, package_size, count,"
	" total_duration FROM CommAnalyzerBandwidth WHERE rowid = ?";
static const char comm_bw_keys_sql[] =
	"SELECT step, type, hccl_op_name, group_name, rowid FROM CommAnalyzerBandwidth";
static const char comm_matrix_sql[] =
	"SELECT step, type, hccl_op_name, group_name, src_rank, dst_rank, transport_type, transit_size,"
	" transit_time, bandwidth, op_name FROM CommAnalyzerMatrix m" APPEARANCE("CommAnalyzerMatrix");

/* A ratio with four decimals, as the text export writes Wait Time Ratio. */
static void json_ratio(struct sbuf *js, double part, double rest)
{
	double r = part + rest > 0 ? part / (part + rest) : 0;
	sbuf_addf(js, "%.4f", r);
}

/* One bandwidth row (columns from base: transport, transit size, time, bandwidth, large
 * packet ratio, package size, count, total duration) into "Communication Bandwidth Info":
 * a transport's object opens when the transport changes; each row with packets adds a
 * "Size Distribution" entry. */
struct bw_state {
	char transport[64];
	bool any, dist_open;
};

static void bw_row_json(struct sbuf *js, sqlite3_stmt *bw, int base, struct bw_state *b)
{
	const char *tt = col_text(bw, base);
	if (!b->any || strcmp(tt, b->transport)) {
		if (b->any)
			sbuf_adds(js, "}},");
		snprintf(b->transport, sizeof b->transport, "%s", tt);
		json_key(js, tt);
		static const char *const keys[4] = {"{\"Transit Size(MB)\":", ",\"Transit Time(ms)\":",
						    ",\"Bandwidth(GB/s)\":", ",\"Large Packet Ratio\":"};
		for (int i = 0; i < 4; i++) {
			sbuf_adds(js, keys[i]);
			json_num_col(js, bw, base + 1 + i);
		}
		sbuf_adds(js, ",\"Size Distribution\":{");
		b->dist_open = false;
		b->any = true;
	}
	/* a row without packets says only that the transport was there */
	if (sqlite3_column_double(bw, base + 6) > 0) {
		if (b->dist_open)
			sbuf_addc(js, ',');
		sbuf_addc(js, '"');
		json_num_col(js, bw, base + 5);
		sbuf_adds(js, "\":[");
		json_num_col(js, bw, base + 6);
		sbuf_addc(js, ',');
		json_num_col(js, bw, base + 7);
		sbuf_addc(js, ']');
		b->dist_open = true;
	}
}

/* A link "<src>-<dst>": {...} from columns 4 to 10 (src, dst, transport, transit size,
 * time, bandwidth, op name) of a matrix row. */
static void link_json(struct sbuf *js, struct sbuf *key, sqlite3_stmt *st)
{
	sbuf_reset(key);
	sbuf_addf(key, "%s-%s", col_text(st, 4), col_text(st, 5));
	json_key(js, sbuf_str(key));
	sbuf_adds(js, "{\"Transport Type\":");
	json_str(js, col_text(st, 6));
	sbuf_adds(js, ",\"Transit Size(MB)\":");
	json_num_col(js, st, 7);
	sbuf_adds(js, ",\"Transit Time(ms)\":");
	json_num_col(js, st, 8);
	sbuf_adds(js, ",\"Bandwidth(GB/s)\":");
	json_num_col(js, st, 9);
	sbuf_adds(js, ",\"Op Name\":");
	json_str(js, col_text(st, 10));
	sbuf_addc(js, '}');
}

/* {"Communication Time Info":{ and its six times from columns base on (start us, elapse,
 * transit, wait, synchronization, idle ms); the object is left open. */
static void time_info_json(struct sbuf *js, sqlite3_stmt *st, int base)
{
	sbuf_adds(js, "{\"Communication Time Info\":{");
	static const char *const names[] = {"Start Timestamp(us)", "Elapse Time(ms)", "Transit Time(ms)",
					    "Wait Time(ms)", "Synchronization Time(ms)", "Idle Time(ms)"};
	for (int i = 0; i < 6; i++) {
		if (i)
			sbuf_addc(js, ',');
		json_key(js, names[i]);
		json_num_col(js, st, base + i);
	}
}

/* CommAnalyzerBandwidth's rows by (step, type, op, group): the exported file has no index,
 * and a query per collective scanned the whole table (8,000 collectives took 20-30 s).
 * The keys are read once and sorted; a collective's rows are found by binary search and
 * read by rowid, in rowid order. */
struct bw_index {
	struct sbuf keys; /* the rows' keys end to end */
	struct bw_key {
		size_t at, len;
		int64_t rowid;
	} *rows;
	size_t n;
};

/* The key of columns 0-3 of st: each value length-prefixed (NUL bytes and commas are data),
 * NULL apart from every text ('IS' matches NULL to NULL only). */
static void bw_key_of(struct sbuf *k, sqlite3_stmt *st)
{
	for (int i = 0; i < 4; i++) {
		if (sqlite3_column_type(st, i) == SQLITE_NULL) {
			sbuf_addc(k, 'N');
			continue;
		}
		const char *t = (const char *)sqlite3_column_text(st, i);
		size_t len = (size_t)sqlite3_column_bytes(st, i);
		sbuf_addf(k, "%zu:", len);
		if (len)
			sbuf_add(k, t, len);
	}
}

static int bw_key_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t m = alen < blen ? alen : blen;
	int c = m ? memcmp(a, b, m) : 0;
	return c ? c : (alen > blen) - (alen < blen);
}

static int bw_row_cmp(const void *x, const void *y, void *ctx)
{
	const struct bw_key *a = x, *b = y;
	const char *base = ((const struct sbuf *)ctx)->buf;
	int c = bw_key_cmp(base + a->at, a->len, base + b->at, b->len);
	return c ? c : (a->rowid > b->rowid) - (a->rowid < b->rowid);
}

static void bw_index_load(struct bw_index *ix, sqlite3 *h)
{
	*ix = (struct bw_index){.keys = SBUF_INIT};
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(h, comm_bw_keys_sql, -1, &st, NULL) != SQLITE_OK)
		return;
	size_t cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		xgrow(&ix->rows, &cap, ix->n + 1, sizeof *ix->rows);
		size_t at = ix->keys.len;
		bw_key_of(&ix->keys, st);
		ix->rows[ix->n++] = (struct bw_key){at, ix->keys.len - at, sqlite3_column_int64(st, 4)};
	}
	sqlite3_finalize(st);
	if (ix->n)
		xqsort_r(ix->rows, ix->n, sizeof *ix->rows, bw_row_cmp, &ix->keys);
}

/* The first of ix's rows with key k (len bytes), ix->n when none. */
static size_t bw_index_find(const struct bw_index *ix, const char *k, size_t len)
{
	size_t lo = 0, hi = ix->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (bw_key_cmp(ix->keys.buf + ix->rows[mid].at, ix->rows[mid].len, k, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void bw_index_free(struct bw_index *ix)
{
	sbuf_free(&ix->keys);
	free(ix->rows);
}

static char *comm_time_json(sqlite3 *h, const char *path, struct diag_list *dl)
{
	sqlite3_stmt *st = NULL, *bw = NULL;
	if (sqlite3_prepare_v2(h, comm_time_sql, -1, &st, NULL) != SQLITE_OK) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table CommAnalyzerTime cannot be read: %s"), sqlite3_errmsg(h));
		return NULL;
	}
	bool have_bw = table_exists(h, "CommAnalyzerBandwidth") &&
		       sqlite3_prepare_v2(h, comm_bw_sql, -1, &bw, NULL) == SQLITE_OK;
	struct bw_index bix = {.keys = SBUF_INIT};
	if (have_bw)
		bw_index_load(&bix, h);
	struct sbuf js = SBUF_INIT, key = SBUF_INIT, want = SBUF_INIT;
	struct nest n = {0};
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		nest_row(&js, &n, col_text(st, 0), col_text(st, 1));
		sbuf_reset(&key);
		sbuf_addf(&key, "%s@%s", col_text(st, 2), col_text(st, 3));
		json_key(&js, sbuf_str(&key));
		time_info_json(&js, st, 4);
		double transit = sqlite3_column_double(st, 6), wait = sqlite3_column_double(st, 7),
		       sync = sqlite3_column_double(st, 8);
		sbuf_adds(&js, ",\"Wait Time Ratio\":");
		json_ratio(&js, wait, transit);
		sbuf_adds(&js, ",\"Synchronization Time Ratio\":");
		json_ratio(&js, sync, transit);
		sbuf_adds(&js, "},\"Communication Bandwidth Info\":{");
		if (have_bw) {
			sbuf_reset(&want);
			bw_key_of(&want, st);
			struct bw_state b = {"", false, false};
			for (size_t i = bw_index_find(&bix, want.buf, want.len);
			     i < bix.n && !bw_key_cmp(bix.keys.buf + bix.rows[i].at, bix.rows[i].len, want.buf, want.len);
			     i++) {
				sqlite3_reset(bw);
				sqlite3_bind_int64(bw, 1, bix.rows[i].rowid);
				if (sqlite3_step(bw) == SQLITE_ROW)
					bw_row_json(&js, bw, 0, &b);
			}
			if (b.any)
				sbuf_adds(&js, "}}");
		}
		sbuf_adds(&js, "}}");
	}
	if (rc != SQLITE_DONE)
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table CommAnalyzerTime: %s; the rows before it were read"),
			 sqlite3_errmsg(h));
	nest_close(&js, &n);
	sqlite3_finalize(st);
	sqlite3_finalize(bw);
	bw_index_free(&bix);
	sbuf_free(&want);
	sbuf_free(&key);
	return sbuf_detach(&js);
}

static char *comm_matrix_json(sqlite3 *h, const char *path, struct diag_list *dl)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(h, comm_matrix_sql, -1, &st, NULL) != SQLITE_OK) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table CommAnalyzerMatrix cannot be read: %s"), sqlite3_errmsg(h));
		return NULL;
	}
	struct sbuf js = SBUF_INIT, key = SBUF_INIT;
	struct nest n = {0};
	char op[512] = "";
	bool op_open = false;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sbuf_reset(&key);
		sbuf_addf(&key, "%s@%s", col_text(st, 2), col_text(st, 3));
		bool same = op_open && n.open && !strcmp(n.step, col_text(st, 0)) && !strcmp(n.type, col_text(st, 1)) &&
			    !strcmp(op, sbuf_str(&key));
		if (same) {
			sbuf_addc(&js, ',');
		} else {
			if (op_open)
				sbuf_addc(&js, '}');
			nest_row(&js, &n, col_text(st, 0), col_text(st, 1));
			json_key(&js, sbuf_str(&key));
			sbuf_addc(&js, '{');
			snprintf(op, sizeof op, "%s", sbuf_str(&key));
			op_open = true;
		}
		link_json(&js, &key, st);
	}
	if (rc != SQLITE_DONE)
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table CommAnalyzerMatrix: %s; the rows before it were read"),
			 sqlite3_errmsg(h));
	if (op_open)
		sbuf_addc(&js, '}');
	nest_close(&js, &n);
	sqlite3_finalize(st);
	sbuf_free(&key);
	return sbuf_detach(&js);
}

char *db_comm_json(const char *name)
{
	const char *colon = strrchr(name, ':');
	if (!colon || (strcmp(colon + 1, "CommAnalyzerTime") && strcmp(colon + 1, "CommAnalyzerMatrix")))
		return NULL;
	char *path = xstrndup(name, (size_t)(colon - name));
	struct diag_list dl;
	diag_init(&dl);
	sqlite3 *h = db_open(path, &dl);
	char *js = NULL;
	if (h)
		js = !strcmp(colon + 1, "CommAnalyzerTime") ? comm_time_json(h, path, &dl) : comm_matrix_json(h, path, &dl);
	sqlite3_close(h);
	diag_free(&dl);
	free(path);
	return js;
}

int db_comm_load(struct comm_data *cd, const char *path, int owner_rank, char **bufs, struct diag_list *dl)
{
	bufs[0] = bufs[1] = NULL;
	sqlite3 *h = db_open(path, dl);
	if (!h)
		return -1;
	int n = 0;
	static const char *const tables[2] = {"CommAnalyzerTime", "CommAnalyzerMatrix"};
	for (int i = 0; i < 2; i++) {
		/* an empty table is no communication file: the text export writes none */
		char *any = sqlite3_mprintf("SELECT 1 FROM \"%w\" LIMIT 1", tables[i]);
		sqlite3_stmt *st = NULL;
		bool rows = table_exists(h, tables[i]) && sqlite3_prepare_v2(h, any, -1, &st, NULL) == SQLITE_OK &&
			    sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
		sqlite3_free(any);
		if (!rows)
			continue;
		bufs[i] = i ? comm_matrix_json(h, path, dl) : comm_time_json(h, path, dl);
		if (!bufs[i])
			continue;
		char *name = xasprintf("%s:%s", path, tables[i]);
		n += comm_json_load_buffer(cd, name, bufs[i], strlen(bufs[i]), owner_rank, dl) == 0;
		free(name);
	}
	sqlite3_close(h);
	return n ? 0 : -1;
}

/* ---- cluster_analysis.db's communication tables as cluster_communication*.json ------------- */

/* The two outer levels of the cluster layout, {"<group ranks>": {"stepN": {...}}}, opened
 * and closed as the rows' (group, step) change (rows come sorted by them). */
struct cnest {
	struct sbuf grp, step, op;
	bool open, first, op_open;
};

static void step_key(struct sbuf *out, const char *step)
{
	sbuf_reset(out);
	/* comm_json tells a group's steps by their "step" prefix */
	sbuf_addf(out, "%s%s", strncasecmp(step, "step", 4) ? "step" : "", step);
}

static void cnest_row(struct sbuf *js, struct cnest *n, const char *grp, const char *step)
{
	struct sbuf sk = SBUF_INIT;
	step_key(&sk, step);
	bool new_grp = !n->open || strcmp(sbuf_str(&n->grp), grp),
	     new_step = new_grp || strcmp(sbuf_str(&n->step), sbuf_str(&sk));
	nest_emit(js, n->open, new_grp, new_step, grp, sbuf_str(&sk));
	if (new_step)
		n->first = true;
	sbuf_reset(&n->grp);
	sbuf_adds(&n->grp, grp);
	sbuf_reset(&n->step);
	sbuf_adds(&n->step, sbuf_str(&sk));
	sbuf_free(&sk);
	n->open = true;
}

/* The op object "<op>@<group>": {...} a row belongs to: a comma inside the open one, else
 * the open one closed and a new one opened (with its group and step as they change). */
static void cnest_op(struct sbuf *js, struct cnest *n, const char *grp, const char *step, const char *op)
{
	struct sbuf sk = SBUF_INIT;
	step_key(&sk, step);
	bool same = n->op_open && !strcmp(sbuf_str(&n->grp), grp) && !strcmp(sbuf_str(&n->step), sbuf_str(&sk)) &&
		    !strcmp(sbuf_str(&n->op), op);
	sbuf_free(&sk);
	if (same) {
		sbuf_addc(js, ',');
		return;
	}
	if (n->op_open)
		sbuf_addc(js, '}');
	cnest_row(js, n, grp, step);
	if (!n->first)
		sbuf_addc(js, ',');
	n->first = false;
	json_key(js, op);
	sbuf_addc(js, '{');
	sbuf_reset(&n->op);
	sbuf_adds(&n->op, op);
	n->op_open = true;
}

static void cnest_close(struct sbuf *js, struct cnest *n)
{
	if (n->op_open)
		sbuf_addc(js, '}');
	sbuf_adds(js, n->open ? "}}}" : "{}");
	sbuf_free(&n->grp);
	sbuf_free(&n->step);
	sbuf_free(&n->op);
}

/* The key columns (group ranks, step, op, group, rank) of two statements, compared as the
 * ORDER BY of both sorts them: text by bytes, the rank as a number. */
static int ckey_cmp(sqlite3_stmt *a, sqlite3_stmt *b)
{
	for (int i = 0; i < 5; i++) {
		int c;
		if (i == 4) {
			int64_t x = sqlite3_column_int64(a, i), y = sqlite3_column_int64(b, i);
			c = x < y ? -1 : x > y;
		} else {
			c = strcmp(col_text(a, i), col_text(b, i));
		}
		if (c)
			return c;
	}
	return 0;
}

/* ClusterCommAnalyzerTime (or ClusterCommunicationTime) with its Bandwidth table, merged
 * in one pass over both sorted by (group ranks, step, op, group, rank). */
static char *cluster_time_json(sqlite3 *h, const char *path, const char *tt, const char *bt, const char *grp,
			       struct diag_list *dl)
{
	char *sql = sqlite3_mprintf("SELECT %s, step, hccl_op_name, group_name, rank_id, start_timestamp, elapsed_time,"
				    " transit_time, wait_time, synchronization_time, idle_time FROM \"%w\""
				    " ORDER BY 1, 2, 3, 4, 5, rowid",
				    grp, tt);
	sqlite3_stmt *st = NULL, *bw = NULL;
	int rc = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table %s cannot be read: %s"), tt, sqlite3_errmsg(h));
		sqlite3_finalize(st);
		return NULL;
	}
	if (bt) {
		sql = sqlite3_mprintf("SELECT %s, step, hccl_op_name, group_name, rank_id, band_type, transit_size,"
				      " transit_time, bandwidth, large_packet_ratio, package_size, count, total_duration"
				      " FROM \"%w\""
				      " ORDER BY 1, 2, 3, 4, 5, band_type, rowid",
				      grp, bt);
		if (sqlite3_prepare_v2(h, sql, -1, &bw, NULL) != SQLITE_OK) {
			diag_add(dl, DIAG_WARN, path, 0, -1, _("table %s cannot be read: %s"), bt, sqlite3_errmsg(h));
			sqlite3_finalize(bw);
			bw = NULL;
		}
		sqlite3_free(sql);
	}
	int brc = bw ? sqlite3_step(bw) : SQLITE_DONE;
	struct sbuf js = SBUF_INIT, key = SBUF_INIT;
	struct cnest n = {SBUF_INIT, SBUF_INIT, SBUF_INIT, false, false, false};
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sbuf_reset(&key);
		sbuf_addf(&key, "%s@%s", col_text(st, 2), col_text(st, 3));
		cnest_op(&js, &n, col_text(st, 0), col_text(st, 1), sbuf_str(&key));
		sbuf_reset(&key);
		sbuf_addf(&key, "%lld", (long long)sqlite3_column_int64(st, 4));
		json_key(&js, sbuf_str(&key));
		time_info_json(&js, st, 5);
		sbuf_adds(&js, "},\"Communication Bandwidth Info\":{");
		while (brc == SQLITE_ROW && ckey_cmp(bw, st) < 0)
			brc = sqlite3_step(bw);
		struct bw_state b = {"", false, false};
		for (; brc == SQLITE_ROW && ckey_cmp(bw, st) == 0; brc = sqlite3_step(bw))
			bw_row_json(&js, bw, 5, &b);
		if (b.any)
			sbuf_adds(&js, "}}");
		sbuf_adds(&js, "}}");
	}
	if (rc != SQLITE_DONE)
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table %s: %s; the rows before it were read"), tt, sqlite3_errmsg(h));
	cnest_close(&js, &n);
	sqlite3_finalize(st);
	sqlite3_finalize(bw);
	sbuf_free(&key);
	return sbuf_detach(&js);
}

/* ClusterCommAnalyzerMatrix (or ClusterCommunicationMatrix): links per op. */
static char *cluster_matrix_json(sqlite3 *h, const char *path, const char *mt, const char *grp,
				 struct diag_list *dl)
{
	char *sql = sqlite3_mprintf("SELECT %s, step, hccl_op_name, group_name, src_rank, dst_rank, transport_type,"
				    " transit_size, transit_time, bandwidth, op_name FROM \"%w\" ORDER BY 1, 2, 3, 4, rowid",
				    grp, mt);
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table %s cannot be read: %s"), mt, sqlite3_errmsg(h));
		sqlite3_finalize(st);
		return NULL;
	}
	struct sbuf js = SBUF_INIT, key = SBUF_INIT;
	struct cnest n = {SBUF_INIT, SBUF_INIT, SBUF_INIT, false, false, false};
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sbuf_reset(&key);
		sbuf_addf(&key, "%s@%s", col_text(st, 2), col_text(st, 3));
		cnest_op(&js, &n, col_text(st, 0), col_text(st, 1), sbuf_str(&key));
		link_json(&js, &key, st);
	}
	if (rc != SQLITE_DONE)
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table %s: %s; the rows before it were read"), mt, sqlite3_errmsg(h));
	cnest_close(&js, &n);
	sqlite3_finalize(st);
	sbuf_free(&key);
	return sbuf_detach(&js);
}

int db_cluster_comm_load(struct comm_data *cd, const char *path, char **bufs, struct diag_list *dl)
{
	bufs[0] = bufs[1] = NULL;
	sqlite3 *h = db_open(path, dl);
	if (!h)
		return -1;
	/* msprof-analyze's full names, else those of its simplified output */
	static const char *const full[3] = {"ClusterCommAnalyzerTime", "ClusterCommAnalyzerBandwidth",
					    "ClusterCommAnalyzerMatrix"};
	static const char *const simple[3] = {"ClusterCommunicationTime", "ClusterCommunicationBandwidth",
					      "ClusterCommunicationMatrix"};
	int n = 0;
	for (int i = 0; i < 2; i++) {
		int k = i ? 2 : 0;
		const char *const *names = table_exists(h, full[k]) ? full : table_exists(h, simple[k]) ? simple : NULL;
		if (!names)
			continue;
		/* the group's ranks where the table gives them, else its name */
		struct cols c;
		const char *grp = cols_load(h, names[k], &c) && cols_has(&c, "rank_set") ? "rank_set" : "group_name";
		cols_free(&c);
		bufs[i] = i ? cluster_matrix_json(h, path, names[2], grp, dl)
			    : cluster_time_json(h, path, names[0], table_exists(h, names[1]) ? names[1] : NULL, grp, dl);
		if (!bufs[i])
			continue;
		char *name = xasprintf("%s:%s", path, names[k]);
		n += comm_json_load_buffer(cd, name, bufs[i], strlen(bufs[i]), -1, dl) == 0;
		free(name);
	}
	sqlite3_close(h);
	return n ? 0 : -1;
}

/* ---- drill-down ------------------------------------------------------------------------- */

/* Strings behind integer columns that name things (STRING_IDS ids). */
static bool is_string_col(unsigned src, const char *col)
{
	static const char *const names[] = {"name", "opName", "groupName", "opType", "algType", "message",
					    "inputShapes", "inputDataTypes", "inputFormats", "outputShapes",
					    "outputDataTypes", "outputFormats", "attrInfo", "inputDtypes"};
	if (!strcasecmp(col, "taskType"))
		return src != SRC_NONE;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcasecmp(col, names[i]))
			return true;
	return false;
}

/* Reads the row; calls emit(key, text, is_number) per column (strings resolved). */
static int read_row(const struct rank_store *rs, uint64_t off,
		    void (*emit)(void *ctx, const char *key, const char *val, bool number), void *ctx,
		    struct sbuf *err)
{
	int64_t rowid;
	unsigned src = rs->trace.db ? off_src(rs, off, &rowid) : SRC_NONE;
	if (src == SRC_NONE) {
		sbuf_adds(err, "not a Db row");
		return -1;
	}
	struct diag_list dl;
	diag_init(&dl);
	sqlite3 *h = db_open(rs->trace.path, &dl);
	if (!h) {
		diag_free(&dl);
		sbuf_addf(err, "%s cannot be read again", rs->trace.path);
		return -1;
	}
	char *sql = sqlite3_mprintf("SELECT * FROM \"%w\" WHERE rowid = ?", src_table[src]);
	sqlite3_stmt *st = NULL, *str = NULL;
	int n = -1;
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, rowid);
		if (sqlite3_step(st) == SQLITE_ROW) {
			bool strings = sqlite3_prepare_v2(h, "SELECT value FROM STRING_IDS WHERE id = ?", -1, &str, NULL) ==
				       SQLITE_OK;
			n = sqlite3_column_count(st);
			char rowbuf[64];
			db_row_name(rs, off, rowbuf, sizeof rowbuf);
			emit(ctx, "Db row", rowbuf, false);
			for (int i = 0; i < n; i++) {
				const char *col = sqlite3_column_name(st, i);
				int type = sqlite3_column_type(st, i);
				if (type == SQLITE_NULL) {
					emit(ctx, col, "", false);
					continue;
				}
				if (strings && type == SQLITE_INTEGER && is_string_col(src, col)) {
					sqlite3_reset(str);
					sqlite3_bind_int64(str, 1, sqlite3_column_int64(st, i));
					if (sqlite3_step(str) == SQLITE_ROW) {
						emit(ctx, col, col_text(str, 0), false);
						continue;
					}
				}
				emit(ctx, col, col_text(st, i), type == SQLITE_INTEGER || type == SQLITE_FLOAT);
			}
			/* the keys the text export gives a collective ("count", "data_type") */
			if (src == SRC_COMM_OP) {
				for (int i = 0; i < sqlite3_column_count(st); i++) {
					const char *col = sqlite3_column_name(st, i);
					if (!strcasecmp(col, "count") && sqlite3_column_type(st, i) != SQLITE_NULL)
						emit(ctx, "count", col_text(st, i), true);
					if (!strcasecmp(col, "dataType") && sqlite3_column_type(st, i) == SQLITE_INTEGER) {
						sqlite3_stmt *dt;
						if (sqlite3_prepare_v2(h, "SELECT name FROM ENUM_HCCL_DATA_TYPE WHERE id = ?", -1,
								       &dt, NULL) == SQLITE_OK) {
							sqlite3_bind_int64(dt, 1, sqlite3_column_int64(st, i));
							if (sqlite3_step(dt) == SQLITE_ROW)
								emit(ctx, "data_type", col_text(dt, 0), false);
							sqlite3_finalize(dt);
						}
					}
				}
			}
		} else {
			sbuf_addf(err, "%s: no row %" PRId64 " in %s (the file changed?)", rs->trace.path, rowid,
				  src_table[src]);
		}
	} else {
		sbuf_addf(err, "%s: %s", rs->trace.path, sqlite3_errmsg(h));
	}
	sqlite3_finalize(str);
	sqlite3_finalize(st);
	sqlite3_free(sql);
	sqlite3_close(h);
	diag_free(&dl);
	return n;
}

struct json_ctx {
	struct sbuf *out;
	int n;
};

static void json_str(struct sbuf *o, const char *s)
{
	sbuf_addc(o, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			sbuf_addf(o, "\\%c", *p);
		else if (*p < 0x20)
			sbuf_addf(o, "\\u%04x", *p);
		else
			sbuf_addc(o, (char)*p);
	}
	sbuf_addc(o, '"');
}

static void emit_json(void *ctx, const char *key, const char *val, bool number)
{
	struct json_ctx *j = ctx;
	if (j->n++)
		sbuf_addc(j->out, ',');
	json_str(j->out, key);
	sbuf_addc(j->out, ':');
	if (number && *val)
		sbuf_adds(j->out, val);
	else
		json_str(j->out, val);
}

int db_element_json(const struct rank_store *rs, uint64_t off, struct sbuf *out)
{
	struct sbuf body = SBUF_INIT, err = SBUF_INIT;
	struct json_ctx j = {&body, 0};
	int n = read_row(rs, off, emit_json, &j, &err);
	sbuf_reset(out);
	if (n < 0) {
		sbuf_adds(out, sbuf_str(&err));
	} else {
		sbuf_adds(out, "{\"args\":{");
		sbuf_adds(out, sbuf_str(&body));
		sbuf_adds(out, "}}");
	}
	sbuf_free(&body);
	sbuf_free(&err);
	return n < 0 ? -1 : 0;
}

struct lines_ctx {
	struct sbuf *out;
	int n;
};

static void emit_line(void *ctx, const char *key, const char *val, bool number)
{
	(void)number;
	struct lines_ctx *l = ctx;
	sbuf_addf(l->out, "%s: %s\n", key, val);
	l->n++;
}

int db_event_args(const struct rank_store *rs, size_t ev, struct sbuf *out)
{
	struct sbuf err = SBUF_INIT;
	struct lines_ctx l = {out, 0};
	sbuf_reset(out);
	int n = read_row(rs, store_ev_off(rs, ev), emit_line, &l, &err);
	if (n < 0) {
		sbuf_reset(out);
		sbuf_adds(out, sbuf_str(&err));
	}
	sbuf_free(&err);
	return n < 0 ? -1 : l.n;
}
