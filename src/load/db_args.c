/* SPDX-License-Identifier: MIT */
/* Drill-down: an event's row read again from the Db, as JSON or as lines, and its name. */
#include "db_internal.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "jsonw.h"
#include "xalloc.h"

void db_row_name(const struct rank_store *rs, uint64_t off, char *buf, size_t size)
{
	int64_t rowid;
	unsigned src = db_off_src(rs, off, &rowid);
	snprintf(buf, size, "%s rowid %" PRId64, db_src_table[src], rowid);
}

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

/* Drill-down and the analysis's payload lookups read rows one at a time, thousands a rank:
 * each thread keeps its last Db open (opening costs more than reading a row: 34,195 opens
 * for 17,095 collectives made a Db report 13 times a text one's time). A thread's handle is
 * closed when the thread ends (the key's destructor), the main thread's at exit. */
struct db_args_cached {
	char *path;
	sqlite3 *h;
};
static pthread_key_t db_args_key;
static pthread_once_t db_args_once = PTHREAD_ONCE_INIT;

static void db_args_drop(void *p)
{
	struct db_args_cached *c = p;
	if (!c)
		return;
	sqlite3_close(c->h);
	free(c->path);
	free(c);
}

static void db_args_at_exit(void)
{
	db_args_drop(pthread_getspecific(db_args_key));
	pthread_setspecific(db_args_key, NULL);
}

static void db_args_init(void)
{
	if (pthread_key_create(&db_args_key, db_args_drop) == 0)
		atexit(db_args_at_exit);
}

/* The thread's open handle on path (borrowed: never close it), or NULL. */
static sqlite3 *db_args_open(const char *path, struct diag_list *dl)
{
	pthread_once(&db_args_once, db_args_init);
	struct db_args_cached *c = pthread_getspecific(db_args_key);
	if (c && !strcmp(c->path, path))
		return c->h;
	sqlite3 *h = db_open_readonly(path, dl);
	if (!h)
		return NULL;
	db_args_drop(c);
	c = xcalloc(1, sizeof *c);
	c->path = xstrdup(path);
	c->h = h;
	if (pthread_setspecific(db_args_key, c) != 0) { /* no key: the handle cannot be kept */
		db_args_drop(c);
		return NULL;
	}
	return h;
}

/* Reads the row; calls emit(key, text, is_number) per column (strings resolved). */
static int read_row(const struct rank_store *rs, uint64_t off,
		    void (*emit)(void *ctx, const char *key, const char *val, bool number), void *ctx,
		    struct sbuf *err)
{
	int64_t rowid;
	unsigned src = rs->trace.db ? db_off_src(rs, off, &rowid) : SRC_NONE;
	if (src == SRC_NONE) {
		sbuf_adds(err, "not a Db row");
		return -1;
	}
	struct diag_list dl;
	diag_init(&dl);
	sqlite3 *h = db_args_open(rs->trace.path, &dl);
	if (!h) {
		diag_free(&dl);
		sbuf_addf(err, "%s cannot be read again", rs->trace.path);
		return -1;
	}
	char *sql = sqlite3_mprintf("SELECT * FROM \"%w\" WHERE rowid = ?", db_src_table[src]);
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
						emit(ctx, col, db_col_text(str, 0), false);
						continue;
					}
				}
				emit(ctx, col, db_col_text(st, i), type == SQLITE_INTEGER || type == SQLITE_FLOAT);
			}
			/* the keys the text export gives a collective ("count", "data_type") */
			if (src == SRC_COMM_OP) {
				for (int i = 0; i < sqlite3_column_count(st); i++) {
					const char *col = sqlite3_column_name(st, i);
					if (!strcasecmp(col, "count") && sqlite3_column_type(st, i) != SQLITE_NULL)
						emit(ctx, "count", db_col_text(st, i), true);
					if (!strcasecmp(col, "dataType") && sqlite3_column_type(st, i) == SQLITE_INTEGER) {
						sqlite3_stmt *dt;
						if (sqlite3_prepare_v2(h, "SELECT name FROM ENUM_HCCL_DATA_TYPE WHERE id = ?", -1,
								       &dt, NULL) == SQLITE_OK) {
							sqlite3_bind_int64(dt, 1, sqlite3_column_int64(st, i));
							if (sqlite3_step(dt) == SQLITE_ROW)
								emit(ctx, "data_type", db_col_text(dt, 0), false);
							sqlite3_finalize(dt);
						}
					}
				}
			}
		} else {
			sbuf_addf(err, "%s: no row %" PRId64 " in %s (the file changed?)", rs->trace.path, rowid,
				  db_src_table[src]);
		}
	} else {
		sbuf_addf(err, "%s: %s", rs->trace.path, sqlite3_errmsg(h));
	}
	sqlite3_finalize(str);
	sqlite3_finalize(st);
	sqlite3_free(sql);
	diag_free(&dl);
	return n;
}

struct json_ctx {
	struct sbuf *out;
	int n;
};

/* A JSON string, escaped as every writer escapes (jsonw.h). */
void db_json_str(struct sbuf *o, const char *s)
{
	sbuf_addc(o, '"');
	jsonw_escape_sbuf(o, s, strlen(s));
	sbuf_addc(o, '"');
}

static void emit_json(void *ctx, const char *key, const char *val, bool number)
{
	struct json_ctx *j = ctx;
	if (j->n++)
		sbuf_addc(j->out, ',');
	db_json_str(j->out, key);
	sbuf_addc(j->out, ':');
	if (number && *val)
		sbuf_adds(j->out, val);
	else
		db_json_str(j->out, val);
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
