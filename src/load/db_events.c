/* SPDX-License-Identifier: MIT */
/* Db exports into the store: rows streamed through SQLite, mapped to the lanes and events
 * the text export of the same run holds. */
#include "db_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "category.h"
#include "i18n.h"
#include "lanes.h"
#include "lower_bound.h"
#include "xalloc.h"
#include "xsort.h"

/* The schema this reader was written against (META_DATA SCHEMA_VERSION); a newer major is
 * read by column name all the same, and said. */
#define DB_SCHEMA_MAJOR 1

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

static bool q_open(struct db_build *b, struct q *q, const char *table, const struct want *w, size_t n,
		   const char *from_extra, bool optional_table)
{
	q->st = NULL;
	q->table = table;
	if (!db_has_table(b->h, table)) {
		db_not_table_note(b->h, b->path, table, b->dl);
		if (!optional_table && !db_not_table_kind(b->h, table))
			diag_add(b->dl, DIAG_WARN, b->path, 0, -1, _("no table %s: its events are missing"), table);
		return false;
	}
	struct db_cols c;
	if (!db_cols_load(b->h, table, &c)) {
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
		const char *have = db_cols_has(&c, w[i].expr);
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
	db_cols_free(&c);
	return ok;
}

/* Steps a query; false at the end or on an error (reported once, naming the table). */
static bool q_step(struct db_build *b, struct q *q)
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
static bool row_times(struct db_build *b, struct q *q, int64_t *start, int64_t *end, size_t *bad)
{
	if (!db_col_i64(q->st, 1, start) || !db_col_i64(q->st, 2, end) || *end < *start) {
		bad[0]++;
		return false;
	}
	if (b->session_hi && (*start < b->session_lo || *start > b->session_hi)) {
		bad[1]++;
		return false;
	}
	return true;
}

static void report_bad(struct db_build *b, const char *table, const size_t *bad)
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
static void read_session(struct db_build *b)
{
	if (!db_has_table(b->h, "SESSION_TIME_INFO"))
		return;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(b->h, "SELECT startTimeNs, endTimeNs FROM SESSION_TIME_INFO", -1, &st, NULL) != SQLITE_OK)
		return;
	int64_t lo, hi;
	if (sqlite3_step(st) == SQLITE_ROW && db_col_i64(st, 0, &lo) && db_col_i64(st, 1, &hi) && hi > lo && lo > 0) {
		int64_t slack = (hi - lo) / 10 > 1000000000 ? (hi - lo) / 10 : 1000000000;
		b->session_lo = lo - slack;
		b->session_hi = hi + slack;
	}
	sqlite3_finalize(st);
}


/* The host lane of a row's globalTid (the process id in the high 32 bits, the thread's
 * below), in process `process` whose pid text starts with prefix. */
static uint32_t host_lane(struct db_build *b, sqlite3_stmt *st, int col, const char *prefix, uint32_t process,
			  int64_t psort)
{
	int64_t gtid;
	if (!db_col_i64(st, col, &gtid))
		gtid = 0;
	/* rows alternate between a few threads: a lane made before is found here, not
	 * named again (three snprintf and three interns a row were a tenth of PYTORCH_API) */
	for (size_t i = 0; i < b->n_host_seen; i++)
		if (b->host_seen[i].gtid == gtid && b->host_seen[i].process == process)
			return b->host_seen[i].lane;
	uint64_t g = (uint64_t)gtid;
	uint32_t tidn = (uint32_t)(g & 0xffffffffu);
	char pid[48], tid[16], thread[32];
	snprintf(pid, sizeof pid, "%s%" PRIu32, prefix, (uint32_t)(g >> 32));
	snprintf(tid, sizeof tid, "%" PRIu32, tidn);
	snprintf(thread, sizeof thread, "Thread %" PRIu32, tidn);
	uint32_t lane = db_build_lane(b, pid, tid, process, thread, psort, tidn);
	/* the latest threads first in line; an old one falls off the end */
	size_t n = b->n_host_seen < DB_HOST_SEEN ? b->n_host_seen++ : DB_HOST_SEEN - 1;
	memmove(&b->host_seen[1], &b->host_seen[0], n * sizeof b->host_seen[0]);
	b->host_seen[0].gtid = gtid;
	b->host_seen[0].process = process;
	b->host_seen[0].lane = lane;
	return lane;
}

/* ENUM_API_TYPE read once: a join per row was a fifth of the API tables' scans. Its ids
 * are torch_npu's (5000 ... 50004), a few, so they are kept sorted and searched. */
#define API_TYPES_MAX 4096
struct api_type {
	int64_t id;
	char *name; /* NULL when the table's name is NULL */
};
struct api_types {
	struct api_type *t; /* by id */
	size_t n;
	bool ok; /* else the join stays (ids that are not unique integers, or too many) */
	const struct api_type *last; /* the latest id looked up: rows run in types */
};

static int api_type_cmp(const void *x, const void *y)
{
	int64_t a = ((const struct api_type *)x)->id, b = ((const struct api_type *)y)->id;
	return a < b ? -1 : a > b;
}

static void api_types_load(struct db_build *b, struct api_types *at)
{
	*at = (struct api_types){0};
	sqlite3_stmt *st;
	if (!db_has_table(b->h, "ENUM_API_TYPE") ||
	    sqlite3_prepare_v2(b->h, "SELECT id, name FROM ENUM_API_TYPE", -1, &st, NULL) != SQLITE_OK)
		return;
	size_t cap = 0;
	bool ok = true;
	int rc = SQLITE_DONE;
	while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		ok = sqlite3_column_type(st, 0) == SQLITE_INTEGER && at->n < API_TYPES_MAX;
		if (ok) {
			xgrow(&at->t, &cap, at->n + 1, sizeof *at->t);
			at->t[at->n].id = sqlite3_column_int64(st, 0);
			at->t[at->n++].name =
				sqlite3_column_type(st, 1) != SQLITE_NULL ? xstrdup(db_col_text(st, 1)) : NULL;
		}
	}
	sqlite3_finalize(st);
	xqsort(at->t, at->n, sizeof *at->t, api_type_cmp);
	/* a repeated id would make the join's rows twice: the join keeps it */
	for (size_t i = 1; ok && i < at->n; i++)
		ok = at->t[i].id != at->t[i - 1].id;
	at->ok = ok && rc == SQLITE_DONE;
}

static void api_types_free(struct api_types *at)
{
	for (size_t i = 0; i < at->n; i++)
		free(at->t[i].name);
	free(at->t);
}

/* The type's name as the join gives it: "" for NULL or an id the table lacks. */
static const char *api_type_name(struct api_types *at, sqlite3_stmt *st, int c)
{
	sqlite3_value *v = sqlite3_column_value(st, c);
	if (sqlite3_value_type(v) != SQLITE_INTEGER)
		return "";
	struct api_type key = {sqlite3_value_int64(v), NULL};
	const struct api_type *hit = at->last;
	if (!hit || hit->id != key.id)
		hit = at->n ? bsearch(&key, at->t, at->n, sizeof *at->t, api_type_cmp) : NULL;
	if (hit)
		at->last = hit;
	return hit && hit->name ? hit->name : "";
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
static void fwdbwd_flows(struct db_build *b, struct fwdbwd_op *ops, size_t n)
{
	sort_fwdbwd(ops, n);
	for (size_t i = 0; i < n;) {
		size_t e = i, f = SIZE_MAX, k = SIZE_MAX;
		for (; e < n && ops[e].seq == ops[i].seq; e++)
			*(ops[e].bwd ? &k : &f) = e;
		if (f != SIZE_MAX && k != SIZE_MAX && ops[f].lane != ops[k].lane) {
			db_build_flow(b, FLOW_START, b->c_fwdbwd, (uint64_t)ops[f].seq, ops[f].lane, ops[f].ts);
			db_build_flow(b, FLOW_FINISH, b->c_fwdbwd, (uint64_t)ops[k].seq, ops[k].lane, ops[k].ts);
		}
		i = e;
	}
}
/* CONNECTION_IDS's pairs as read_pytorch_api holds them, by id (then connection id: one
 * order whatever the table's) */
struct conn_pair {
	uint64_t cid, id;
};
#define CONN_PAIR_LESS(x, y) \
	((int64_t)(x)->id != (int64_t)(y)->id ? (int64_t)(x)->id < (int64_t)(y)->id : (x)->cid < (y)->cid)
XSORT_DEFINE(sort_conn_pairs, struct conn_pair, CONN_PAIR_LESS)
/* conn_ids holds (connection id, id) pairs sorted by id: pair i's id is [2i + 1]. */
#define CONN_PAIR_BEFORE(c, i, key) ((int64_t)(c)[2 * (i) + 1] < (key))
LOWER_BOUND_DEFINE(conn_pair_lower_bound, const uint64_t *, int64_t, CONN_PAIR_BEFORE)

static void read_pytorch_api(struct db_build *b)
{
	static const struct want w[] = {
		{"startNs", true}, {"endNs", true}, {"globalTid", true}, {"name", false},
		{"e.name", false}, {"connectionId", false}, {"sequenceNumber", false}, {"fwdThreadId", false},
	};
	struct q q;
	bool has_enum = db_has_table(b->h, "ENUM_API_TYPE");
	struct api_types at;
	api_types_load(b, &at);
	char *extra = xasprintf("%s", has_enum && !at.ok ? " LEFT JOIN ENUM_API_TYPE e ON e.id = m.type" : "");
	struct want ww[8];
	memcpy(ww, w, sizeof ww);
	if (!has_enum)
		ww[4].expr = "CAST(m.type AS TEXT)";
	else if (at.ok)
		ww[4].expr = "type";
	bool ok = q_open(b, &q, "PYTORCH_API", ww, 8, extra, true);
	free(extra);
	if (!ok) {
		api_types_free(&at);
		return;
	}
	/* connection ids: PYTORCH_API.connectionId is a key into CONNECTION_IDS, which lists
	 * the ids the row launched (the same ids CANN_API and TASK carry) */
	sqlite3_stmt *conn = NULL;
	if (db_has_table(b->h, "CONNECTION_IDS"))
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
	bool conn_sorted = true;
	if (conn && !conn_indexed) {
		/* id -> run of connection ids, from one pass in the table's order (an ORDER BY
		 * sorted the rows in SQLite, a tenth of the events' load, though exporters
		 * write them by id), sorted below when they are not; a run's order is no
		 * matter: each connection id is a flow end of its own */
		sqlite3_stmt *all;
		if (sqlite3_prepare_v2(b->h, "SELECT id, connectionId FROM CONNECTION_IDS", -1, &all, NULL) ==
		    SQLITE_OK) {
			while (sqlite3_step(all) == SQLITE_ROW) {
				int64_t id, cid;
				if (!db_col_i64(all, 0, &id) || !db_col_i64(all, 1, &cid))
					continue;
				xgrow(&conn_ids, &cap_conn, n_conn + 1, sizeof *conn_ids);
				conn_ids[n_conn++] = (uint64_t)cid;
				/* the id beside it, to find the end of a run */
				xgrow(&conn_ids, &cap_conn, n_conn + 1, sizeof *conn_ids);
				conn_ids[n_conn++] = (uint64_t)id;
				conn_sorted = conn_sorted && (n_conn < 4 || (int64_t)conn_ids[n_conn - 3] <= id);
			}
			sqlite3_finalize(all);
		}
		if (!conn_sorted)
			sort_conn_pairs((struct conn_pair *)conn_ids, n_conn / 2);
	}
	size_t bad[2] = {0, 0};
	struct fwdbwd_op *fb = NULL;
	size_t n_fb = 0, cap_fb = 0;
	while (q_step(b, &q)) {
		int64_t start, end;
		if (!row_times(b, &q, &start, &end, bad))
			continue;
		uint32_t lane = host_lane(b, q.st, 3, "", b->s_python, 0);
		uint32_t name_id = db_build_sid(b, q.st, 4);
		const char *name = store_str(b->rs, name_id);
		const char *type = at.ok ? api_type_name(&at, q.st, 5) : db_col_text(q.st, 5);
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
			cat = db_build_str(b, type);
		}
		db_build_event(b, start, end, name_id, db_build_kind(b, lane, cat, 0), SRC_PYTORCH_API,
			  sqlite3_column_int64(q.st, 0));
		int64_t seq, fwd_tid;
		if (cat == b->c_cpu_op && db_col_i64(q.st, 7, &seq) && seq >= 0) {
			xgrow(&fb, &cap_fb, n_fb + 1, sizeof *fb);
			fb[n_fb++] = (struct fwdbwd_op){seq, start, lane, db_col_i64(q.st, 8, &fwd_tid) && fwd_tid != 0};
		}
		int64_t key;
		if (!flow_cat || !db_col_i64(q.st, 6, &key))
			continue;
		if (conn && conn_indexed) {
			sqlite3_reset(conn);
			sqlite3_bind_int64(conn, 1, key);
			while (sqlite3_step(conn) == SQLITE_ROW) {
				int64_t cid;
				if (db_col_i64(conn, 0, &cid))
					db_build_flow(b, ph, flow_cat, (uint64_t)cid, lane, start);
			}
		} else if (conn) {
			/* the first pair of the key's run */
			size_t lo = conn_pair_lower_bound(conn_ids, key, 0, n_conn / 2);
			for (size_t i = 2 * lo; i + 1 < n_conn && conn_ids[i + 1] == (uint64_t)key; i += 2)
				db_build_flow(b, ph, flow_cat, conn_ids[i], lane, start);
		}
	}
	sqlite3_finalize(conn);
	api_types_free(&at);
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

static void read_cann_api(struct db_build *b)
{
	bool has_enum = db_has_table(b->h, "ENUM_API_TYPE");
	struct api_types at;
	api_types_load(b, &at);
	struct want w[] = {
		{"startNs", true}, {"endNs", true}, {"globalTid", true}, {"name", false},
		{!has_enum ? "CAST(m.type AS TEXT)" : at.ok ? "type" : "e.name", false}, {"connectionId", false},
	};
	char *extra = xasprintf("%s", has_enum && !at.ok ? " LEFT JOIN ENUM_API_TYPE e ON e.id = m.type" : "");
	struct q q;
	bool ok = q_open(b, &q, "CANN_API", w, 6, extra, true);
	free(extra);
	if (!ok) {
		api_types_free(&at);
		return;
	}
	size_t bad[2] = {0, 0};
	struct sbuf nm = SBUF_INIT;
	/* (type id, name) -> "<level>@<name>": a few hundred names on a hundred thousand rows */
	struct u64map named = {0};
	while (q_step(b, &q)) {
		int64_t start, end;
		if (!row_times(b, &q, &start, &end, bad))
			continue;
		/* the CANN process is its own lane group beside Python's: same thread ids */
		uint32_t lane = host_lane(b, q.st, 3, "CANN ", b->s_cann, 7);
		uint32_t name = db_build_sid(b, q.st, 4), *slot = NULL;
		int64_t tid = sqlite3_column_int64(q.st, 5);
		bool found = false;
		if (at.ok && sqlite3_column_type(q.st, 5) == SQLITE_INTEGER && tid >= 0 && tid <= UINT32_MAX)
			slot = u64map_slot(&named, (uint64_t)tid << 32 | name, &found);
		if (!found) {
			sbuf_reset(&nm);
			const char *type = at.ok ? api_type_name(&at, q.st, 5) : db_col_text(q.st, 5);
			sbuf_adds(&nm, cann_level(type));
			sbuf_addc(&nm, '@');
			sbuf_adds(&nm, store_str(b->rs, name));
			uint32_t id = db_build_str(b, sbuf_str(&nm));
			if (slot)
				*u64map_slot(&named, (uint64_t)tid << 32 | name, &found) = id;
			name = id;
		} else {
			name = *slot;
		}
		db_build_event(b, start, end, name, db_build_kind(b, lane, 0, 0), SRC_CANN_API,
			  sqlite3_column_int64(q.st, 0));
		int64_t cid;
		if (db_col_i64(q.st, 6, &cid))
			db_build_flow(b, FLOW_START, b->c_h2d, (uint64_t)cid, lane, start);
	}
	sbuf_free(&nm);
	u64map_free(&named);
	api_types_free(&at);
	report_bad(b, "CANN_API", bad);
}

/* The FFTS+ parent test, as an SQL expression over TASK m: a row with no context
 * (contextId 4294967295) and no info row of its own, enclosing a task of its stream and
 * task id that has a context. A real Db holds one around each mixed-core kernel and each
 * collective's tasks; the text export shows only the tasks inside, so it is no task of its
 * own. NULL when TASK lacks a column the test reads. */
static char *task_parent_expr(struct db_build *b, bool compute, bool commi)
{
	struct db_cols c;
	if (!db_cols_load(b->h, "TASK", &c))
		return NULL;
	bool ok = db_cols_has(&c, "contextId") && db_cols_has(&c, "taskId") && db_cols_has(&c, "streamId");
	db_cols_free(&c);
	if (!ok)
		return NULL;
	return xasprintf("(CASE WHEN m.contextId = 4294967295%s%s THEN EXISTS (SELECT 1 FROM TASK k"
			 " WHERE k.startNs >= m.startNs AND k.startNs <= m.endNs AND k.streamId = m.streamId"
			 " AND k.taskId = m.taskId AND k.contextId <> 4294967295) ELSE 0 END)",
			 compute ? " AND c.globalTaskId IS NULL" : "", commi ? " AND ci.globalTaskId IS NULL" : "");
}

/* The task type a TASK row is classified by. A row with a COMMUNICATION_TASK_INFO row is
 * an HCCL task whatever its taskType string says ("Memcpy", "Reduce Inline"): a wait stays
 * a wait (as the text export's names make it), anything else is communication, not the
 * copy or compute its name alone would make it. Memoised per (name, type). */
static uint32_t task_class_type(struct db_build *b, struct u64map *memo, uint32_t name, uint32_t tt)
{
	bool found;
	uint32_t *slot = u64map_slot(memo, (uint64_t)name << 32 | tt, &found);
	if (!found) {
		struct ev_class k = category_of(LANE_DEVICE, store_str(b->rs, name), "", store_str(b->rs, tt));
		*slot = k.cat == CAT_COMM || (k.flags & EVF_WAIT) ? tt : db_build_str(b, "COMMUNICATION");
	}
	return *slot;
}

static void read_task(struct db_build *b)
{
	bool compute = db_has_table(b->h, "COMPUTE_TASK_INFO");
	/* an empty COMMUNICATION_TASK_INFO (a single device's capture) matches no row: its
	 * join, a materialised DISTINCT and a probe per TASK row, was a sixth of TASK's scan */
	bool commi = db_has_table(b->h, "COMMUNICATION_TASK_INFO") && !b->src_empty[SRC_COMM_TASK];
	/* FFTS+ parents are left out; a task without info carrying a COMMUNICATION_OP's
	 * connection id (an event record or wait of the HCCL API) is a task like any other */
	char *parent = task_parent_expr(b, compute, commi);
	struct want w[] = {
		{"startNs", true}, {"endNs", true}, {"streamId", true}, {"connectionId", false},
		{"taskType", false}, {compute ? "c.name" : "NULL", false},
		{compute ? "c.taskType" : "NULL", false},
		{parent ? parent : "(0)", false},
		{commi ? "(ci.globalTaskId IS NOT NULL)" : "(0)", false},
	};
	char *extra = xasprintf("%s%s", compute ? " LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = m.globalTaskId" : "",
				commi ? " LEFT JOIN (SELECT DISTINCT globalTaskId FROM COMMUNICATION_TASK_INFO) ci"
					" ON ci.globalTaskId = m.globalTaskId"
				      : "");
	struct q q;
	bool ok = q_open(b, &q, "TASK", w, 9, extra, false);
	free(extra);
	free(parent);
	if (!ok)
		return;
	struct u64map memo = {0};
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
		if (!db_col_i64(q.st, 3, &stream) || stream < 0) {
			no_stream += !sqlite3_column_int(q.st, 9);
			continue;
		}
		if (stream != last_stream) {
			snprintf(tid, sizeof tid, "%" PRId64, stream);
			snprintf(thread, sizeof thread, "Stream %" PRId64, stream);
			last_stream_lane = db_build_lane(b, "Ascend Hardware", tid, b->s_hw, thread, 13, stream);
			last_stream = stream;
		}
		/* names through STRING_IDS; a task without compute info is named by its type */
		uint32_t type = db_build_sid(b, q.st, 5), cname = db_build_sid(b, q.st, 6), ctype = db_build_sid(b, q.st, 7);
		uint32_t name = *store_str(b->rs, cname) ? cname : type;
		uint32_t tt = *store_str(b->rs, ctype) ? ctype : type;
		if (sqlite3_column_int(q.st, 9))
			tt = task_class_type(b, &memo, name, tt);
		db_build_event(b, start, end, name, db_build_kind(b, last_stream_lane, 0, tt), SRC_TASK,
			  sqlite3_column_int64(q.st, 0));
		int64_t cid;
		if (db_col_i64(q.st, 4, &cid)) {
			db_build_flow(b, FLOW_FINISH, b->c_h2d, (uint64_t)cid, last_stream_lane, start);
			db_build_flow(b, FLOW_FINISH, b->c_async_npu, (uint64_t)cid, last_stream_lane, start);
		}
	}
	u64map_free(&memo);
	report_bad(b, "TASK", bad);
	if (no_stream)
		diag_add(b->dl, DIAG_WARN, b->path, 0, -1,
			 _("table TASK: %zu row(s) without a stream and not communication tasks; skipped"), no_stream);
}

static uint32_t group_index(struct db_build *b, uint32_t group)
{
	for (size_t i = 0; i < b->n_groups; i++)
		if (b->groups[i] == group)
			return (uint32_t)i;
	if (b->n_groups < sizeof b->groups / sizeof b->groups[0])
		b->groups[b->n_groups++] = group;
	return (uint32_t)b->n_groups - 1;
}

static void read_comm_tasks(struct db_build *b);

/* COMMUNICATION_OP and COMMUNICATION_TASK_INFO as the text export's HCCL lanes: the group
 * lane "Group <n> Communication" and its "Plane <p>" lanes, n numbering the groups in the
 * order the writer meets them (msprof's HCCL export: the tasks first, in their table's
 * order, then ops whose group has no task), so a Db and its text twin name them alike. */
static void read_comm(struct db_build *b)
{
	read_comm_tasks(b);
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
			uint32_t gi = group_index(b, db_build_sid(b, q.st, 4));
			snprintf(tid, sizeof tid, "%" PRIu32, gi * 1000);
			snprintf(thread, sizeof thread, "Group %" PRIu32 " Communication", gi);
			uint32_t lane = db_build_lane(b, "HCCL", tid, b->s_hccl, thread, 15, gi * 1000);
			db_build_event(b, start, end, db_build_sid(b, q.st, 3), db_build_kind(b, lane, 0, 0),
				  SRC_COMM_OP, sqlite3_column_int64(q.st, 0));
			int64_t cid;
			if (db_col_i64(q.st, 5, &cid)) {
				db_build_flow(b, FLOW_FINISH, b->c_h2d, (uint64_t)cid, lane, start);
				db_build_flow(b, FLOW_FINISH, b->c_async_npu, (uint64_t)cid, lane, start);
			}
		}
		report_bad(b, "COMMUNICATION_OP", bad);
	}
}

/* the tasks of each plane: times from TASK, names from the task type */
static void read_comm_tasks(struct db_build *b)
{
	if (!db_has_table(b->h, "TASK"))
		return;
	struct q q;
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
		/* level 0 writes plane -1 (4294967295 as unsigned), which the text writer
		 * draws as Plane 0, its default */
		if (db_col_i64(q.st, 3, &plane) && (plane < 0 || plane == UINT32_MAX))
			plane = 0;
		else if (!db_col_i64(q.st, 3, &plane) || plane > 999)
			plane = 999;
		uint32_t gi = group_index(b, db_build_sid(b, q.st, 5));
		uint32_t t = gi * 1000 + 1 + (uint32_t)plane;
		snprintf(tid, sizeof tid, "%" PRIu32, t);
		snprintf(thread, sizeof thread, "Plane %" PRId64, plane);
		uint32_t lane = db_build_lane(b, "HCCL", tid, b->s_hccl, thread, 15, t);
		db_build_event(b, start, end, db_build_sid(b, q.st, 4), db_build_kind(b, lane, 0, 0), SRC_COMM_TASK,
			  sqlite3_column_int64(q.st, 0));
	}
	report_bad(b, "COMMUNICATION_TASK_INFO", bad);
}

static void read_overlap(struct db_build *b)
{
	static const char *const names[] = {"Computing", "Communication", "Communication(Not Overlapped)", "Free"};
	struct want w[] = {{"startNs", true}, {"endNs", true}, {"type", true}};
	struct q q;
	if (!q_open(b, &q, "OVERLAP_ANALYSIS", w, 3, NULL, true))
		return;
	size_t bad[2] = {0, 0};
	char tid[8];
	/* each type's lane and name made on its first row: naming them on every row (an
	 * snprintf and three interns) was half the table's own cost */
	uint32_t lane_of[4], name_of[4];
	bool made[4] = {false, false, false, false};
	while (q_step(b, &q)) {
		int64_t start, end, type;
		if (!row_times(b, &q, &start, &end, bad))
			continue;
		if (!db_col_i64(q.st, 3, &type) || type < 0 || type > 3) {
			bad[0]++;
			continue;
		}
		if (!made[type]) {
			snprintf(tid, sizeof tid, "%d", (int)type);
			lane_of[type] = db_build_lane(b, "Overlap Analysis", tid, b->s_overlap, names[type], 23, type);
			name_of[type] = db_build_str(b, names[type]);
			made[type] = true;
		}
		db_build_event(b, start, end, name_of[type], db_build_kind(b, lane_of[type], 0, 0), SRC_OVERLAP,
			       sqlite3_column_int64(q.st, 0));
	}
	report_bad(b, "OVERLAP_ANALYSIS", bad);
}

static void read_mstx(struct db_build *b)
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
		db_build_event(b, start, end, db_build_sid(b, q.st, 4), db_build_kind(b, lane, b->c_mstx, 0),
			  SRC_MSTX, sqlite3_column_int64(q.st, 0));
	}
	report_bad(b, "MSTX_EVENTS", bad);
}

/* GC_RECORD as the text export's "Python GC" lanes: an event "GC" (cat GC) per pause, on
 * its thread (process sort index 1, as torch_npu writes it). */
static void read_gc(struct db_build *b)
{
	struct want w[] = {{"startNs", true}, {"endNs", true}, {"globalTid", false}};
	struct q q;
	if (!q_open(b, &q, "GC_RECORD", w, 3, NULL, true))
		return;
	size_t bad[2] = {0, 0};
	uint32_t name = db_build_str(b, "GC"), kind_cat = name;
	while (q_step(b, &q)) {
		int64_t start, end;
		if (!row_times(b, &q, &start, &end, bad))
			continue;
		uint32_t lane = host_lane(b, q.st, 3, "GC ", b->s_gc, 1);
		db_build_event(b, start, end, name, db_build_kind(b, lane, kind_cat, 0), SRC_GC,
			       sqlite3_column_int64(q.st, 0));
	}
	report_bad(b, "GC_RECORD", bad);
}

/* AICORE_FREQ and NPU_MEM as the text export's counter lanes: "AI Core Freq" (MHz) and
 * NPU MEM's APP/ and Device/ DDR, HBM and Memory (their sum), in KB. */
static void read_counters(struct db_build *b)
{
	struct want wf[] = {{"timestampNs", true}, {"freq", true}};
	struct q q;
	if (q_open(b, &q, "AICORE_FREQ", wf, 2, NULL, true)) {
		uint32_t t = db_build_ctr_track(b, "AI Core Freq", "AI Core Freq", "MHz");
		while (q_step(b, &q)) {
			int64_t ts, f;
			if (db_col_i64(q.st, 1, &ts) && db_col_i64(q.st, 2, &f))
				db_build_ctr_sample(b, t, ts, (double)f);
		}
	}
	if (!db_has_table(b->h, "STRING_IDS"))
		return;
	struct want wm[] = {{"timestampNs", true}, {"s.value", false}, {"ddr", true}, {"hbm", true}};
	if (!q_open(b, &q, "NPU_MEM", wm, 4, "LEFT JOIN STRING_IDS s ON s.id = m.type", true))
		return;
	static const char *const part[] = {"DDR", "HBM", "Memory"};
	char name[64];
	while (q_step(b, &q)) {
		int64_t ts, v[3];
		const char *type = db_col_text(q.st, 2);
		if (!db_col_i64(q.st, 1, &ts) || !db_col_i64(q.st, 3, &v[0]) || !db_col_i64(q.st, 4, &v[1]))
			continue;
		v[2] = v[0] + v[1];
		const char *who = !strcasecmp(type, "app") ? "APP" : !strcasecmp(type, "device") ? "Device" : NULL;
		if (!who)
			continue;
		for (int k = 0; k < 3; k++) {
			snprintf(name, sizeof name, "%s/%s", who, part[k]);
			db_build_ctr_sample(b, db_build_ctr_track(b, "NPU MEM", name, "KB"), ts, (double)v[k] / 1024.0);
		}
	}
}


static void read_schema_version(struct db_build *b)
{
	if (!db_has_table(b->h, "META_DATA"))
		return;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(b->h, "SELECT value FROM META_DATA WHERE name = 'SCHEMA_VERSION'", -1, &st,
			       NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *v = db_col_text(st, 0);
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
	struct db_build b = {.rs = rs, .path = path, .dl = dl, .last_kind = UINT32_MAX};
	b.h = db_open_readonly(path, dl);
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
		{offsetof(struct db_build, s_python), "Python"},
		{offsetof(struct db_build, s_cann), "CANN"},
		{offsetof(struct db_build, s_hw), "Ascend Hardware"},
		{offsetof(struct db_build, s_hccl), "HCCL"},
		{offsetof(struct db_build, s_overlap), "Overlap Analysis"},
		{offsetof(struct db_build, s_gc), "Python GC"},
		{offsetof(struct db_build, c_cpu_op), "cpu_op"},
		{offsetof(struct db_build, c_enqueue), "enqueue"},
		{offsetof(struct db_build, c_dequeue), "dequeue"},
		{offsetof(struct db_build, c_python_function), "python_function"},
		{offsetof(struct db_build, c_mstx), "mstx"},
		{offsetof(struct db_build, c_async_npu), "async_npu"},
		{offsetof(struct db_build, c_h2d), "HostToDevice"},
		{offsetof(struct db_build, c_queue), "async_task_queue"},
		{offsetof(struct db_build, c_fwdbwd), "fwdbwd"},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		*(uint32_t *)((char *)&b + names[i].at) = db_build_str(&b, names[i].s);
	if (!db_has_table(b.h, "STRING_IDS")) {
		if (db_not_table_kind(b.h, "STRING_IDS"))
			db_not_table_note(b.h, path, "STRING_IDS", dl);
		else
			diag_add(dl, DIAG_WARN, path, 0, -1, _("no table STRING_IDS: names are missing, the events are read"));
		/* an empty stand-in in the in-memory temp schema keeps every join working; the
		 * file itself is never written */
		sqlite3_exec(b.h,
			     "PRAGMA query_only=0; CREATE TEMP VIEW STRING_IDS(id, value) AS SELECT NULL, NULL WHERE 0;"
			     " PRAGMA query_only=1",
			     NULL, NULL, NULL);
	}
	db_keyed_open(&b.strings, b.h, "STRING_IDS", "id", "value");
	db_build_bases(&b);
	b.fin = db_build_fin_load(b.h);
	db_build_reserve(&b);
	read_pytorch_api(&b);
	read_cann_api(&b);
	read_task(&b);
	read_comm(&b);
	read_overlap(&b);
	read_mstx(&b);
	read_gc(&b);
	read_counters(&b);
	db_keyed_close(&b.strings);
	sqlite3_close(b.h);
	db_build_fin_free(b.fin);
	u64map_free(&b.sids);
	u64map_free(&b.lane_map);
	u64map_free(&b.kind_map);
	u64map_free(&b.attr_map);
	db_build_finish(&b);
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
