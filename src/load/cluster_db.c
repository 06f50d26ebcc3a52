/* SPDX-License-Identifier: MIT */
/* msprof-analyze's cluster_analysis.db (cluster_db.h). */
#include "config.h"
#include "cluster_db.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "db.h"
#include "i18n.h"
#include "num.h"
#include "xalloc.h"

char *cluster_db_find(const char *dir, struct diag_list *dl)
{
	char *p = xasprintf("%s/%s", dir, CLUSTER_ANALYSIS_DB);
	struct stat st;
	if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
		return p;
	if (stat(p, &st) == 0) /* a FIFO, a directory: never opened (a FIFO would block), said */
		diag_add(dl, DIAG_WARN, p, 0, -1, _("is a %s, not a file; skipped"),
			 S_ISDIR(st.st_mode) ? "directory" : S_ISFIFO(st.st_mode) ? "FIFO" : "special file");
	free(p);
	return NULL;
}

/* One table's statement and where its wanted columns are (-1: absent). */
struct tab {
	const char *name;
	sqlite3_stmt *st;
	int at[12];
	size_t bad; /* rows left out */
};

/* SELECT * from the table, its wanted columns found by name. False when the table cannot
 * be read or lacks a column of `need` (a bit per name), with the reason in dl. */
static bool tab_open(sqlite3 *h, const char *path, struct tab *t, const char *table, const char *const *names,
		     int n, unsigned need, struct diag_list *dl)
{
	memset(t, 0, sizeof *t);
	t->name = table;
	char *sql = sqlite3_mprintf("SELECT * FROM \"%w\"", table);
	int rc = sqlite3_prepare_v2(h, sql, -1, &t->st, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK) {
		diag_add(dl, DIAG_ERROR, path, 0, -1, _("table %s cannot be read: %s"), table, sqlite3_errmsg(h));
		sqlite3_finalize(t->st);
		t->st = NULL;
		return false;
	}
	int nc = sqlite3_column_count(t->st);
	for (int k = 0; k < n; k++) {
		t->at[k] = -1;
		for (int i = 0; i < nc && t->at[k] < 0; i++)
			if (!strcasecmp(sqlite3_column_name(t->st, i), names[k]))
				t->at[k] = i;
		if (t->at[k] < 0 && (need & (1u << k))) {
			diag_add(dl, DIAG_ERROR, path, 0, -1, _("table %s has no column %s; the table is not read"), table,
				 names[k]);
			sqlite3_finalize(t->st);
			t->st = NULL;
			return false;
		}
	}
	return true;
}

/* Ends the table: a row error or rows left out are named. */
static void tab_close(sqlite3 *h, const char *path, struct tab *t, int rc, struct diag_list *dl)
{
	if (rc != SQLITE_DONE)
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table %s: %s; the rows before it were read"), t->name,
			 sqlite3_errmsg(h));
	if (t->bad)
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table %s: %zu row(s) with a cell that is not a number left out"),
			 t->name, t->bad);
	sqlite3_finalize(t->st);
	t->st = NULL;
}

/* An integer cell: INTEGER, integral REAL or decimal TEXT. False for NULL or anything else. */
static bool cell_i64(sqlite3_stmt *st, int c, int64_t *out)
{
	if (c < 0)
		return false;
	switch (sqlite3_column_type(st, c)) {
	case SQLITE_INTEGER:
		*out = sqlite3_column_int64(st, c);
		return true;
	case SQLITE_FLOAT: {
		double d = sqlite3_column_double(st, c);
		if (d != floor(d) || fabs(d) > 9e18)
			return false;
		*out = (int64_t)d;
		return true;
	}
	case SQLITE_TEXT: {
		const char *s = (const char *)sqlite3_column_text(st, c);
		return s && num_int64(s, strlen(s), out) == NUM_OK;
	}
	default:
		return false;
	}
}

/* Microseconds to ns: TEXT exactly (num.h), INTEGER scaled, REAL rounded to the ns. */
static bool cell_us(sqlite3_stmt *st, int c, int64_t *out)
{
	if (c < 0)
		return false;
	switch (sqlite3_column_type(st, c)) {
	case SQLITE_INTEGER: {
		int64_t v = sqlite3_column_int64(st, c);
		if (v > NUM_TIME_MAX_NS / 1000 || v < -NUM_TIME_MAX_NS / 1000)
			return false;
		*out = v * 1000;
		return true;
	}
	case SQLITE_FLOAT: {
		double d = sqlite3_column_double(st, c) * 1e3;
		if (!isfinite(d) || fabs(d) > (double)NUM_TIME_MAX_NS)
			return false;
		*out = llround(d);
		return true;
	}
	case SQLITE_TEXT: {
		const char *s = (const char *)sqlite3_column_text(st, c);
		bool rounded;
		return s && num_time_ns(s, strlen(s), out, &rounded) == NUM_OK;
	}
	default:
		return false;
	}
}

static double cell_d(sqlite3_stmt *st, int c)
{
	return c >= 0 && sqlite3_column_type(st, c) != SQLITE_NULL ? sqlite3_column_double(st, c) : NAN;
}

/* A time in ns as a double: NAN when absent or past the times a trace can hold (a mean
 * of 1e308 printed 300 digits). */
static double cell_ns(sqlite3_stmt *st, int c)
{
	double d = cell_d(st, c);
	return fabs(d) <= (double)NUM_TIME_MAX_NS ? d : NAN;
}

static char *cell_s(sqlite3_stmt *st, int c)
{
	const unsigned char *t = c >= 0 ? sqlite3_column_text(st, c) : NULL;
	return xstrdup(t ? (const char *)t : "");
}

static int cmp_row(const void *a, const void *b)
{
	const struct cluster_out_row *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->step < y->step ? -1 : x->step > y->step;
}

static void add_row(struct cluster_db *db, size_t *cap, const struct cluster_out_row *r)
{
	xgrow(&db->rows, cap, db->n_rows + 1, sizeof *db->rows);
	db->rows[db->n_rows++] = *r;
}

enum { TS_RANK, TS_STEP, TS_TIME, TS_COMP, TS_CNO, TS_OVL, TS_COMM, TS_FREE, TS_WAIT, TS_TRANS, TS_N };

/* ClusterTimeSummary: one row per rank and step, in us. */
static void read_time_summary(sqlite3 *h, struct cluster_db *db, struct diag_list *dl)
{
	static const char *const names[TS_N] = {"rank", "step", "stepTime", "computation",
						"communicationNotOverlapComputation",
						"communicationOverlapComputation", "communication", "free",
						"communicationWaitStageTime", "communicationTransmitStageTime"};
	struct tab t;
	if (!tab_open(h, db->path, &t, "ClusterTimeSummary", names, TS_N,
		      1u << TS_RANK | 1u << TS_STEP | 1u << TS_COMP | 1u << TS_CNO | 1u << TS_FREE, dl))
		return;
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(t.st)) == SQLITE_ROW) {
		struct cluster_out_row r = {.wait_ns = -1, .transmit_ns = -1};
		int64_t rank, time = -1;
		bool ok = cell_i64(t.st, t.at[TS_RANK], &rank) && rank >= 0 && rank < 1000000 &&
			  cell_i64(t.st, t.at[TS_STEP], &r.step) && r.step >= 0 &&
			  cell_us(t.st, t.at[TS_COMP], &r.computing_ns) && cell_us(t.st, t.at[TS_CNO], &r.comm_not_overlapped_ns) &&
			  cell_us(t.st, t.at[TS_FREE], &r.free_ns);
		if (!ok) {
			t.bad++;
			continue;
		}
		cell_us(t.st, t.at[TS_OVL], &r.overlapped_ns);
		cell_us(t.st, t.at[TS_COMM], &r.comm_ns);
		cell_us(t.st, t.at[TS_WAIT], &r.wait_ns);
		cell_us(t.st, t.at[TS_TRANS], &r.transmit_ns);
		r.rank = (int)rank;
		/* the step's time as msprof-analyze gives it; its parts when it gives none */
		r.step_ns = cell_us(t.st, t.at[TS_TIME], &time) && time > 0
				    ? time
				    : num_sat_add(num_sat_add(r.computing_ns, r.comm_not_overlapped_ns), r.free_ns);
		add_row(db, &cap, &r);
	}
	tab_close(h, db->path, &t, rc, dl);
	db->rows_table = "ClusterTimeSummary";
}

enum { ST_STEP, ST_TYPE, ST_INDEX, ST_COMP, ST_CNO, ST_OVL, ST_COMM, ST_FREE, ST_STAGE, ST_N };

/* ClusterStepTraceTime: cluster_step_trace_time.csv as a table. */
static void read_step_trace(sqlite3 *h, struct cluster_db *db, struct diag_list *dl)
{
	static const char *const names[ST_N] = {"step", "type", "index", "computing", "communication_not_overlapped",
						"overlapped", "communication", "free", "stage"};
	struct tab t;
	if (!tab_open(h, db->path, &t, "ClusterStepTraceTime", names, ST_N,
		      1u << ST_TYPE | 1u << ST_INDEX | 1u << ST_COMP | 1u << ST_CNO | 1u << ST_FREE, dl))
		return;
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(t.st)) == SQLITE_ROW) {
		const unsigned char *type = sqlite3_column_text(t.st, t.at[ST_TYPE]);
		if (!type || strcasecmp((const char *)type, "rank"))
			continue; /* stage rows */
		struct cluster_out_row r = {.step = -1, .wait_ns = -1, .transmit_ns = -1};
		int64_t rank;
		bool ok = cell_i64(t.st, t.at[ST_INDEX], &rank) && rank >= 0 && rank < 1000000 &&
			  cell_us(t.st, t.at[ST_COMP], &r.computing_ns) &&
			  cell_us(t.st, t.at[ST_CNO], &r.comm_not_overlapped_ns) && cell_us(t.st, t.at[ST_FREE], &r.free_ns);
		if (ok && t.at[ST_STEP] >= 0 && sqlite3_column_type(t.st, t.at[ST_STEP]) != SQLITE_NULL)
			ok = cell_i64(t.st, t.at[ST_STEP], &r.step) && r.step >= 0;
		if (!ok) {
			t.bad++;
			continue;
		}
		cell_us(t.st, t.at[ST_OVL], &r.overlapped_ns);
		cell_us(t.st, t.at[ST_COMM], &r.comm_ns);
		cell_us(t.st, t.at[ST_STAGE], &r.stage_ns);
		r.rank = (int)rank;
		r.step_ns = num_sat_add(num_sat_add(r.computing_ns, r.comm_not_overlapped_ns), r.free_ns);
		add_row(db, &cap, &r);
	}
	tab_close(h, db->path, &t, rc, dl);
	db->rows_table = "ClusterStepTraceTime";
}

static int cmp_slow(const void *a, const void *b)
{
	const struct cluster_db_slow *x = a, *y = b;
	if (x->affect_count != y->affect_count)
		return x->affect_count > y->affect_count ? -1 : 1;
	return x->rank - y->rank;
}

static void read_slow(sqlite3 *h, struct cluster_db *db, struct diag_list *dl)
{
	static const char *const names[2] = {"rankId", "slowAffectCount"};
	struct tab t;
	if (!tab_open(h, db->path, &t, "SlowRank", names, 2, 3u, dl))
		return;
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(t.st)) == SQLITE_ROW) {
		int64_t rank, count;
		if (!cell_i64(t.st, t.at[0], &rank) || rank < 0 || rank >= 1000000 || !cell_i64(t.st, t.at[1], &count)) {
			t.bad++;
			continue;
		}
		xgrow(&db->slow, &cap, db->n_slow + 1, sizeof *db->slow);
		db->slow[db->n_slow++] = (struct cluster_db_slow){(int)rank, count};
	}
	tab_close(h, db->path, &t, rc, dl);
	db->has_slow = true;
	if (db->n_slow)
		qsort(db->slow, db->n_slow, sizeof *db->slow, cmp_slow);
}

enum { TO_NAME, TO_COUNT, TO_MEAN, TO_MIN, TO_MAX, TO_SUM, TO_MINR, TO_MAXR, TO_N };

static void read_top(sqlite3 *h, struct cluster_db *db, struct diag_list *dl)
{
	static const char *const names[TO_N] = {"OpName", "Count", "MeanNs", "MinNs", "MaxNs", "SumNs", "MinRank",
						"MaxRank"};
	struct tab t;
	if (!tab_open(h, db->path, &t, "HcclTopOpStats", names, TO_N, 1u << TO_NAME | 1u << TO_MEAN, dl))
		return;
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(t.st)) == SQLITE_ROW) {
		struct cluster_db_top x = {.count = -1, .min_rank = -1, .max_rank = -1};
		x.mean_ns = cell_ns(t.st, t.at[TO_MEAN]);
		if (!isfinite(x.mean_ns)) {
			t.bad++;
			continue;
		}
		int64_t v;
		if (cell_i64(t.st, t.at[TO_COUNT], &v))
			x.count = v;
		x.min_ns = cell_ns(t.st, t.at[TO_MIN]);
		x.max_ns = cell_ns(t.st, t.at[TO_MAX]);
		x.sum_ns = cell_ns(t.st, t.at[TO_SUM]);
		if (cell_i64(t.st, t.at[TO_MINR], &v) && v >= 0 && v < 1000000)
			x.min_rank = (int)v;
		if (cell_i64(t.st, t.at[TO_MAXR], &v) && v >= 0 && v < 1000000)
			x.max_rank = (int)v;
		x.name = cell_s(t.st, t.at[TO_NAME]);
		xgrow(&db->top, &cap, db->n_top + 1, sizeof *db->top);
		db->top[db->n_top++] = x;
	}
	tab_close(h, db->path, &t, rc, dl);
}

static void read_groups(sqlite3 *h, const char *table, struct cluster_db *db, struct diag_list *dl)
{
	static const char *const names[5] = {"type", "rank_set", "group_name", "group_id", "pg_name"};
	struct tab t;
	if (!tab_open(h, db->path, &t, table, names, 5, 1u << 1 | 1u << 2, dl))
		return;
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(t.st)) == SQLITE_ROW) {
		xgrow(&db->groups, &cap, db->n_groups + 1, sizeof *db->groups);
		struct cluster_db_group *g = &db->groups[db->n_groups++];
		g->type = cell_s(t.st, t.at[0]);
		g->rank_set = cell_s(t.st, t.at[1]);
		g->name = cell_s(t.st, t.at[2]);
		g->id = cell_s(t.st, t.at[3]);
		g->pg_name = cell_s(t.st, t.at[4]);
	}
	tab_close(h, db->path, &t, rc, dl);
}

int cluster_db_read(const char *path, struct cluster_db *db, struct diag_list *dl)
{
	memset(db, 0, sizeof *db);
	db->path = xstrdup(path);
	sqlite3 *h = db_open_readonly(path, dl);
	if (!h)
		return -1;
	bool any = false;
	if (db_has_table(h, "ClusterTimeSummary")) {
		read_time_summary(h, db, dl);
		any = true;
	} else if (db_has_table(h, "ClusterStepTraceTime")) {
		read_step_trace(h, db, dl);
		any = true;
	}
	if (db_has_table(h, "SlowRank")) {
		read_slow(h, db, dl);
		any = true;
	}
	if (db_has_table(h, "HcclTopOpStats")) {
		read_top(h, db, dl);
		any = true;
	}
	const char *gt = db_has_table(h, "CommunicationGroupMapping") ? "CommunicationGroupMapping"
			 : db_has_table(h, "CommunicationGroup")       ? "CommunicationGroup"
								       : NULL;
	if (gt) {
		read_groups(h, gt, db, dl);
		any = true;
	}
	sqlite3_close(h);
	if (!any) {
		diag_add(dl, DIAG_ERROR, path, 0, -1,
			 _("none of msprof-analyze's cluster tables (ClusterTimeSummary, ClusterStepTraceTime, SlowRank, "
			   "HcclTopOpStats, CommunicationGroupMapping); not read"));
		return -1;
	}
	if (!db->rows_table)
		diag_add(dl, DIAG_INFO, path, 0, -1,
			 _("no ClusterTimeSummary or ClusterStepTraceTime table: no per-rank steps from it"));
	if (db->n_rows)
		qsort(db->rows, db->n_rows, sizeof *db->rows, cmp_row);
	return 0;
}

void cluster_db_free(struct cluster_db *db)
{
	if (!db)
		return;
	free(db->path);
	free(db->rows);
	free(db->slow);
	for (size_t i = 0; i < db->n_top; i++)
		free(db->top[i].name);
	free(db->top);
	for (size_t i = 0; i < db->n_groups; i++) {
		struct cluster_db_group *g = &db->groups[i];
		free(g->type);
		free(g->rank_set);
		free(g->name);
		free(g->id);
		free(g->pg_name);
	}
	free(db->groups);
	memset(db, 0, sizeof *db);
}
