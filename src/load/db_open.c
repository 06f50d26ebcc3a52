/* SPDX-License-Identifier: MIT */
/* Opening a Db read-only and immutable under a work budget; the tables read, and the
 * lookups the other parts share (real tables only, columns by name, ids by key). */
#include "db_internal.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "i18n.h"
#include "xalloc.h"

const char *const db_tables_read[] = {
	"STRING_IDS", "ENUM_API_TYPE", "ENUM_HCCL_DATA_TYPE", "META_DATA", "PYTORCH_API",
	"CONNECTION_IDS", "CANN_API", "TASK", "COMPUTE_TASK_INFO", "COMMUNICATION_OP",
	"COMMUNICATION_TASK_INFO", "OVERLAP_ANALYSIS", "MSTX_EVENTS", "GC_RECORD", "SESSION_TIME_INFO", "MEMORY_RECORD",
	"OP_MEMORY", "NPU_MODULE_MEM", "NPU_MEM", "ENUM_MODULE", "TASK_PMU_INFO", "AICORE_FREQ", "analysis.db StepTraceTime",
	"analysis.db CommAnalyzerTime", "analysis.db CommAnalyzerBandwidth", "analysis.db CommAnalyzerMatrix",
};
const size_t db_n_tables_read = sizeof db_tables_read / sizeof db_tables_read[0];

size_t db_tables_present(const char *path, const char *analysis_path, const char **out, size_t max)
{
	size_t n = 0;
	struct diag_list dl;
	diag_init(&dl);
	sqlite3 *h = path ? db_open_readonly(path, &dl) : NULL, *a = analysis_path ? db_open_readonly(analysis_path, &dl) : NULL;
	for (size_t i = 0; i < db_n_tables_read && n < max; i++) {
		const char *t = db_tables_read[i];
		bool analysis = !strncmp(t, "analysis.db ", 12);
		sqlite3 *in = analysis ? a : h;
		if (in && db_has_table(in, analysis ? t + 12 : t))
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

/* ascprof_row(scan, columns...): the scan's callback on one row, called by SQLite from
 * inside its loop. A million rows cost half as much this way as stepped out one by one
 * through the sqlite3_column_* calls (TASK_PMU_INFO: 70 ms against 142). The scan rides
 * on a bound pointer, which SQL text cannot forge (a call without one does nothing). */
static void scan_row_fn(sqlite3_context *c, int n, sqlite3_value **v)
{
	/* the pointer kept as the bound argument's aux data: fetched once per scan, not
	 * once per row (sqlite3_value_pointer compares its type name every time) */
	const struct db_scan *sc = sqlite3_get_auxdata(c, 0);
	if (!sc && n > 0) {
		sc = sqlite3_value_pointer(v[0], "ascprof_scan");
		if (sc)
			sqlite3_set_auxdata(c, 0, (void *)sc, NULL);
	}
	if (sc && !sc->row(sc->ctx, v + 1))
		sqlite3_result_int(c, 1); /* the row comes out of the WHERE: db_scan stops there */
}

/* Direct-only: no view, trigger, CHECK, DEFAULT, index or generated column of the file
 * can call it (and with trusted_schema off, no function without SQLITE_INNOCUOUS can be
 * called from the schema either); only the statements the loaders prepare. */
#ifdef SQLITE_DIRECTONLY
#define DB_DIRECTONLY SQLITE_DIRECTONLY
#else
#define DB_DIRECTONLY 0
#endif

bool db_scan(sqlite3 *h, const char *table, const char *cols, const struct db_scan *sc)
{
	char *sql = sqlite3_mprintf("SELECT 1 FROM \"%w\" WHERE ascprof_row(?1, %s)", table, cols);
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return false;
	sqlite3_bind_pointer(st, 1, (void *)sc, "ascprof_scan", NULL);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW;
}

/* Opens read-only and immutable: SQLite then takes no locks and never looks for, creates
 * or replays a journal or WAL. Views of the file are never run (TEMP views, the loader's
 * own stand-ins, still are), nor functions with side effects from its schema. NULL (with
 * a message) when the file is not a readable database (corrupt, truncated, encrypted).
 * dl must outlive the handle (the budget reports into it). */
sqlite3 *db_open_readonly(const char *path, struct diag_list *dl)
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
	sqlite3_create_function_v2(h, "ascprof_row", -1, SQLITE_UTF8 | DB_DIRECTONLY, NULL, scan_row_fn, NULL, NULL,
				   NULL);
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
bool db_has_table(sqlite3 *h, const char *table)
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
const char *db_not_table_kind(sqlite3 *h, const char *table)
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
void db_not_table_note(sqlite3 *h, const char *path, const char *table, struct diag_list *dl)
{
	const char *kind = db_not_table_kind(h, table);
	if (kind)
		diag_add(dl, DIAG_WARN, path, 0, -1,
			 _("%s is %s, not a plain table: not read (it would run code of the file's own); "
			 "what it holds is missing, the other tables are read"), table, _(kind));
}



static int cmp_pair(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] > y[1]) - (x[1] < y[1]);
}

void db_keyed_open(struct db_keyed *k, sqlite3 *h, const char *table, const char *key, const char *value)
{
	*k = (struct db_keyed){0};
	if (!db_has_table(h, table))
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
const char *db_keyed_get(struct db_keyed *k, int64_t key)
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

void db_keyed_close(struct db_keyed *k)
{
	sqlite3_finalize(k->by_rowid);
	free(k->pairs);
	*k = (struct db_keyed){0};
}

bool db_cols_load(sqlite3 *h, const char *table, struct db_cols *c)
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

void db_cols_free(struct db_cols *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->names[i]);
	free(c->names);
	memset(c, 0, sizeof *c);
}

const char *db_cols_has(const struct db_cols *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcasecmp(c->names[i], name))
			return c->names[i];
	return NULL;
}

/* Up to 19 decimal digits (epoch ns have 19) and the end of s (no sign, no fraction)
 * into *out when within int64, the value strtoll gives; false for anything else. */
static bool db_digits_i64(const char *s, size_t n, int64_t *out)
{
	uint64_t v = 0; /* 19 nines fit */
	size_t i = 0;
	/* eight digits a step while eight bytes of the n remain (an epoch ns: two steps and
	 * three digits; the loop per digit was a twentieth of PYTORCH_API's load): every
	 * byte's high nibble 3 and low one at most 9, then the bytes as one number */
	while (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && i + 8 <= n && i + 8 <= 19) {
		uint64_t c;
		memcpy(&c, s + i, 8);
		if ((c & 0xF0F0F0F0F0F0F0F0u) != 0x3030303030303030u ||
		    ((c + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) != 0x3030303030303030u)
			break;
		uint64_t d = c - 0x3030303030303030u; /* the first digit in the low byte */
		d = d * 10 + (d >> 8);                /* pairs */
		d = ((d & 0x000000FF000000FFu) * (100 + (UINT64_C(1000000) << 32)) +
		     ((d >> 16) & 0x000000FF000000FFu) * (1 + (UINT64_C(10000) << 32))) >> 32;
		v = v * 100000000u + d;
		i += 8;
	}
	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		if (i == 19)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (!i || s[i] || v > (uint64_t)INT64_MAX)
		return false;
	*out = (int64_t)v;
	return true;
}

/* An int64 from a column: INTEGER as is, TEXT as exact decimal digits, REAL only when
 * integral. False for NULL or anything else. The column's value is fetched once and read
 * through sqlite3_value_*: each sqlite3_column_* call looks the column up again (with
 * its mutex calls and error check), and this runs a few times per row of every table.
 * An unprotected value is safe to read here: connections are opened NOMUTEX and each
 * is used by one thread. */
bool db_col_i64(sqlite3_stmt *st, int c, int64_t *out)
{
	sqlite3_value *val = sqlite3_column_value(st, c);
	switch (sqlite3_value_type(val)) {
	case SQLITE_INTEGER:
		*out = sqlite3_value_int64(val);
		return true;
	case SQLITE_TEXT: {
		const char *s = (const char *)sqlite3_value_text(val);
		if (!s)
			return false;
		size_t n = (size_t)sqlite3_value_bytes(val);
		for (; *s == ' '; n--)
			s++;
		/* plain digits, as the exporters write ns (PYTORCH_API's times are TEXT): no
		 * strtoll, which was a twentieth of a Db load; anything else takes it below */
		if (db_digits_i64(s, n, out))
			return true;
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
		double d = sqlite3_value_double(val);
		if (d != d || d < -9.2e18 || d > 9.2e18 || (double)(int64_t)d != d)
			return false;
		*out = (int64_t)d;
		return true;
	}
	default:
		return false;
	}
}

/* A column's text, "" for NULL. */
const char *db_col_text(sqlite3_stmt *st, int c)
{
	const unsigned char *t = sqlite3_column_text(st, c);
	return t ? (const char *)t : "";
}
