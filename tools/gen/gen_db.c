/* SPDX-License-Identifier: MIT */
/* The generator's Db writer. The rank's trace_view.json is read back through the
 * project's own trace loader (lanes, attributes and resolved launch links), and every
 * event becomes the row torch_npu's Db export keeps for it: Python lanes in PYTORCH_API
 * (timestamps as TEXT, as torch_npu writes them), CANN lanes in CANN_API, Ascend Hardware
 * lanes in TASK with COMPUTE_TASK_INFO, the HCCL group lane in COMMUNICATION_OP, plane
 * lanes in COMMUNICATION_TASK_INFO with their TASK rows, Overlap Analysis in
 * OVERLAP_ANALYSIS; launch links become connection ids (CANN_API/TASK/COMMUNICATION_OP)
 * and CONNECTION_IDS rows; step_trace_time.csv becomes analysis.db's StepTraceTime.
 * The Db reader (src/load/db.c) is then checked against the text reader on the same run. */
#include "gen_db.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv_table.h"
#include "db.h"
#include "diag.h"
#include "json_tok.h"
#include "lanes.h"
#include "num.h"
#include "sbuf.h"
#include "store.h"
#include "trace.h"
#include "xalloc.h"

static const char schema[] =
	"PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
	"CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"
	"CREATE TABLE ENUM_API_TYPE (id INTEGER PRIMARY KEY,name TEXT);"
	"INSERT INTO ENUM_API_TYPE VALUES (5000,'runtime'),(5500,'hccl'),(10000,'node'),(15000,'model'),"
	"(20000,'acl'),(50001,'op'),(50002,'queue'),(50003,'trace'),(50004,'mstx');"
	"CREATE TABLE ENUM_HCCL_DATA_TYPE (id INTEGER PRIMARY KEY,name TEXT);"
	"INSERT INTO ENUM_HCCL_DATA_TYPE VALUES (0,'INT8'),(1,'INT16'),(2,'INT32'),(3,'FP16'),(4,'FP32'),"
	"(5,'INT64'),(6,'UINT64'),(7,'UINT8'),(8,'UINT16'),(9,'UINT32'),(10,'FP64'),(11,'BFP16'),"
	"(65535,'INVALID_TYPE');"
	"CREATE TABLE META_DATA (name TEXT,value TEXT);"
	"INSERT INTO META_DATA VALUES ('SCHEMA_VERSION_MICRO','0'),('SCHEMA_VERSION_MINOR','0'),"
	"('SCHEMA_VERSION_MAJOR','1'),('SCHEMA_VERSION','1.0.0');"
	"CREATE TABLE SESSION_TIME_INFO (startTimeNs INTEGER,endTimeNs INTEGER);"
	"CREATE TABLE RANK_DEVICE_MAP (rankId INTEGER, deviceId INTEGER);"
	"CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);"
	"CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER, "
	"name INTEGER, sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, inputShapes INTEGER, "
	"callchainId INTEGER, type INTEGER);"
	"CREATE TABLE CONNECTION_IDS (id INTEGER, connectionId INTEGER);"
	"CREATE TABLE CANN_API (startNs INTEGER,endNs INTEGER,type INTEGER,globalTid INTEGER,"
	"connectionId INTEGER PRIMARY KEY,name INTEGER);"
	"CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,connectionId INTEGER,"
	"globalTaskId INTEGER,globalPid INTEGER,taskType INTEGER,contextId INTEGER,streamId INTEGER,"
	"taskId INTEGER,modelId INTEGER);"
	"CREATE INDEX TaskIndex ON TASK (startNs,globalTaskId);"
	"CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY,blockDim INTEGER,"
	"mixBlockDim INTEGER,taskType INTEGER,opType INTEGER,inputFormats INTEGER,inputDataTypes INTEGER,"
	"inputShapes INTEGER,outputFormats INTEGER,outputDataTypes INTEGER,outputShapes INTEGER,"
	"attrInfo INTEGER,waitNs INTEGER,opState INTEGER);"
	"CREATE TABLE TASK_PMU_INFO (globalTaskId INTEGER,name INTEGER,value NUMERIC);"
	"CREATE TABLE COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER,connectionId INTEGER,"
	"groupName INTEGER,opId INTEGER PRIMARY KEY,relay INTEGER,retry INTEGER,dataType INTEGER,"
	"algType INTEGER,count NUMERIC,opType INTEGER,waitNs INTEGER);"
	"CREATE TABLE COMMUNICATION_TASK_INFO (name INTEGER,globalTaskId INTEGER,taskType INTEGER,"
	"planeId INTEGER,groupName INTEGER,notifyId INTEGER,rdmaType INTEGER,srcRank INTEGER,dstRank INTEGER,"
	"transportType INTEGER,size INTEGER,dataType INTEGER,linkType INTEGER,opId INTEGER);"
	"CREATE INDEX CommunicationTaskIndex ON COMMUNICATION_TASK_INFO (globalTaskId);"
	"CREATE TABLE NPU_MEM (type INTEGER,ddr NUMERIC,hbm NUMERIC,timestampNs INTEGER,deviceId INTEGER);"
	"CREATE TABLE AICORE_FREQ (deviceId INTEGER,timestampNs INTEGER,freq INTEGER);"
	"CREATE TABLE GC_RECORD (startNs INTEGER,endNs INTEGER,globalTid INTEGER);"
	"CREATE TABLE ENUM_MODULE (id INTEGER PRIMARY KEY,name TEXT);"
	"CREATE TABLE OVERLAP_ANALYSIS (id INTEGER PRIMARY KEY AUTOINCREMENT, deviceId integer, "
	"startNs integer, endNs integer, type integer);"
	"BEGIN;";

struct w {
	sqlite3 *h;
	const char *path;
	int failed;
};

static sqlite3_stmt *prep(struct w *w, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(w->h, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "ascprof-gen: %s: %s: %s\n", w->path, sql, sqlite3_errmsg(w->h));
		w->failed = 1;
	}
	return st;
}

/* Binds the values (a NULL-free list of int64, a negative index meaning NULL is not
 * needed here) and runs one insert. */
static void run(struct w *w, sqlite3_stmt *st)
{
	if (!st)
		return;
	if (sqlite3_step(st) != SQLITE_DONE && !w->failed) {
		fprintf(stderr, "ascprof-gen: %s: %s\n", w->path, sqlite3_errmsg(w->h));
		w->failed = 1;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

static int64_t num_text(const char *s) { return s && *s ? strtoll(s, NULL, 10) : 0; }

/* The value of "key: value" in a lines buffer of trace_event_args, or NULL. */
static const char *arg_value(const char *lines, const char *key, char *buf, size_t n)
{
	size_t kl = strlen(key);
	for (const char *p = lines; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len > kl + 1 && !strncmp(p, key, kl) && p[kl] == ':' && p[kl + 1] == ' ') {
			size_t vl = len - kl - 2 < n - 1 ? len - kl - 2 : n - 1;
			memcpy(buf, p + kl + 2, vl);
			buf[vl] = 0;
			return buf;
		}
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

struct pair {
	uint32_t ev;
	int64_t conn;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return x->conn < y->conn ? -1 : x->conn > y->conn;
}

static const struct lane *ev_lane(const struct rank_store *rs, size_t ev) { return store_ev_lane(rs, ev); }

static bool is_plane(const struct rank_store *rs, const struct lane *l)
{
	return l->group == LANE_COMM && !strncmp(store_str(rs, l->thread_name), "Plane ", 6);
}

/* Connection ids from the resolved launch links: a CANN API's launches share its id
 * (CANN_API.connectionId = TASK.connectionId), a torch op lists its tasks' ids in
 * CONNECTION_IDS, an enqueue and its dequeue share one. */
static int64_t *connections(const struct rank_store *rs, struct pair **pairs, size_t *n_pairs)
{
	int64_t *conn = xcalloc(rs->n_ev ? rs->n_ev : 1, sizeof *conn);
	size_t cap = 0;
	*pairs = NULL;
	*n_pairs = 0;
	for (size_t i = 0; i < rs->n_links; i++) {
		const struct flow_link *k = &rs->links[i];
		if (ev_lane(rs, k->from_ev)->group != LANE_HOST_CANN)
			continue;
		conn[k->from_ev] = (int64_t)k->from_ev + 1;
		if (!conn[k->to_ev])
			conn[k->to_ev] = (int64_t)k->from_ev + 1;
	}
	for (size_t i = 0; i < rs->n_links; i++) {
		const struct flow_link *k = &rs->links[i];
		if (ev_lane(rs, k->from_ev)->group != LANE_HOST_PYTHON)
			continue;
		enum lane_group to = ev_lane(rs, k->to_ev)->group;
		int64_t c;
		if (to == LANE_HOST_PYTHON) {
			c = ((int64_t)2 << 40) + k->from_ev;
			xgrow(pairs, &cap, *n_pairs + 1, sizeof **pairs);
			(*pairs)[(*n_pairs)++] = (struct pair){k->to_ev, c};
		} else {
			if (!conn[k->to_ev])
				conn[k->to_ev] = ((int64_t)1 << 40) + k->to_ev;
			c = conn[k->to_ev];
		}
		xgrow(pairs, &cap, *n_pairs + 1, sizeof **pairs);
		(*pairs)[(*n_pairs)++] = (struct pair){k->from_ev, c};
	}
	qsort(*pairs, *n_pairs, sizeof **pairs, cmp_pair);
	return conn;
}

static int64_t api_type(const char *cat)
{
	if (!strcmp(cat, "enqueue") || !strcmp(cat, "dequeue"))
		return 50002;
	if (!strcmp(cat, "python_function"))
		return 50003;
	if (!strcmp(cat, "mstx"))
		return 50004;
	return 50001;
}

static int64_t cann_type(const char *name)
{
	static const struct { const char *prefix; int64_t type; } map[] = {
		{"AscendCL@", 20000}, {"Node@", 10000}, {"Runtime@", 5000}, {"Hccl@", 5500}, {"Model@", 15000},
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (!strncmp(name, map[i].prefix, strlen(map[i].prefix)))
			return map[i].type;
	return 20000;
}

static int64_t data_type_id(sqlite3 *h, const char *name)
{
	sqlite3_stmt *st;
	int64_t id = 65535;
	if (sqlite3_prepare_v2(h, "SELECT id FROM ENUM_HCCL_DATA_TYPE WHERE name = ?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			id = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	return id;
}

/* The trace's AI Core Freq counter as torch_npu's Db holds it (AICORE_FREQ, MHz). */
static void write_freq(struct w *w, struct rank_store *rs)
{
	sqlite3_stmt *st = prep(w, "INSERT INTO AICORE_FREQ VALUES (0,?,?)");
	for (size_t i = 0; i < rs->n_tracks && !w->failed; i++) {
		const struct counter_track *tr = &rs->tracks[i];
		if (strcmp(store_str(rs, tr->name), "AI Core Freq"))
			continue;
		for (uint32_t k = 0; k < tr->n_samples; k++) {
			sqlite3_bind_int64(st, 1, rs->ctr_ts[tr->samples[k]]);
			sqlite3_bind_int64(st, 2, (int64_t)llround(rs->ctr_value[tr->samples[k]]));
			run(w, st);
		}
	}
	sqlite3_finalize(st);
}

/* One rank's events as they go into the Db: the statements, the ids handed out, the flow
 * pairs walked beside the events. */
struct ev_writer {
	struct w *w;
	struct rank_store *rs;
	int64_t *conn; /* owned: per event, its connection id or 0 */
	struct pair *pairs; /* owned: (event, connection) pairs, by event */
	size_t n_pairs, pi;
	int64_t pid; /* the host Python lane's pid */
	sqlite3_stmt *py, *ids, *cann, *task, *compute, *op, *ctask, *ov, *step, *gc;
	struct sbuf args;
	char tsb[32], teb[32], vb[64];
	int64_t task_id, op_id;
	uint32_t group_name;
};

/* A cpu_op's recorded shapes as torch_npu's Db keeps them: in every real Db at hand the
 * shapes ("Input Dims") sit in inputDtypes and the dtypes ("Input type") in inputShapes. */
static void put_python_shapes(struct ev_writer *x, size_t ev)
{
	static const char *const keys[2] = {"Input Dims", "Input type"};
	struct rank_store *rs = x->rs;
	if (trace_element_json(rs, store_ev_off(rs, ev), &x->args) != 0)
		return;
	struct jtok jt;
	jtok_init(&jt);
	int args = jtok_parse(&jt, x->args.buf, x->args.len) > 0 ? jtok_obj_get(&jt, x->args.buf, 0, "args") : -1;
	struct sbuf v = SBUF_INIT;
	for (int k = 0; k < 2 && args >= 0; k++) {
		int t = jtok_obj_get(&jt, x->args.buf, args, keys[k]);
		if (t < 0 || jt.t[t].type != JSMN_STRING)
			continue;
		sbuf_reset(&v);
		jtok_unescape(x->args.buf, &jt.t[t], &v);
		sqlite3_bind_int64(x->py, 7 + k, strtab_intern_cstr(rs->strs, sbuf_str(&v)));
	}
	sbuf_free(&v);
	jtok_free(&jt);
}

/* A PYTORCH_API row (with its connection ids), and a ProfilerStep's STEP_TIME row. */
static void put_python(struct ev_writer *x, size_t ev, const struct lane *l, int64_t s, int64_t e, int64_t tid)
{
	struct rank_store *rs = x->rs;
	const char *name = store_ev_name(rs, ev);
	const struct ev_attr *a = store_ev_attr(rs, ev);
	snprintf(x->tsb, sizeof x->tsb, "%" PRId64, s);
	snprintf(x->teb, sizeof x->teb, "%" PRId64, e);
	sqlite3_bind_text(x->py, 1, x->tsb, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(x->py, 2, x->teb, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(x->py, 3, (num_text(store_str(rs, l->pid_text)) << 32) | tid);
	if (x->pi < x->n_pairs && x->pairs[x->pi].ev == ev) {
		sqlite3_bind_int64(x->py, 4, (int64_t)ev);
		for (; x->pi < x->n_pairs && x->pairs[x->pi].ev == ev; x->pi++) {
			sqlite3_bind_int64(x->ids, 1, (int64_t)ev);
			sqlite3_bind_int64(x->ids, 2, x->pairs[x->pi].conn);
			run(x->w, x->ids);
		}
	}
	sqlite3_bind_int64(x->py, 5, rs->ev_name[ev]);
	sqlite3_bind_int64(x->py, 6, api_type(store_str(rs, a->cat)));
	if (!strcmp(store_str(rs, a->cat), "cpu_op"))
		put_python_shapes(x, ev);
	run(x->w, x->py);
	if (!strncmp(name, "ProfilerStep#", 13)) {
		sqlite3_bind_int64(x->step, 1, num_text(name + 13));
		sqlite3_bind_int64(x->step, 2, s);
		sqlite3_bind_int64(x->step, 3, e);
		run(x->w, x->step);
	}
}

static void put_cann(struct ev_writer *x, size_t ev, int64_t s, int64_t e, int64_t tid)
{
	struct rank_store *rs = x->rs;
	const char *name = store_ev_name(rs, ev);
	const char *at = strchr(name, '@');
	sqlite3_bind_int64(x->cann, 1, s);
	sqlite3_bind_int64(x->cann, 2, e);
	sqlite3_bind_int64(x->cann, 3, cann_type(name));
	sqlite3_bind_int64(x->cann, 4, (x->pid << 32) | tid);
	/* every CANN API has an id (the primary key); unlaunched ones get their own */
	sqlite3_bind_int64(x->cann, 5, x->conn[ev] ? x->conn[ev] : ((int64_t)3 << 40) + (int64_t)ev);
	sqlite3_bind_int64(x->cann, 6, strtab_intern_cstr(rs->strs, at ? at + 1 : name));
	run(x->w, x->cann);
}

/* A device task (TASK, with COMPUTE_TASK_INFO or a plane's COMMUNICATION_TASK_INFO), or a
 * collective's COMMUNICATION_OP row. */
static void put_device(struct ev_writer *x, size_t ev, const struct lane *l, int64_t s, int64_t e)
{
	struct rank_store *rs = x->rs;
	const struct ev_attr *a = store_ev_attr(rs, ev);
	bool plane = is_plane(rs, l);
	if (l->group == LANE_COMM && !plane) {
		trace_event_args(rs, ev, &x->args);
		const char *dt = arg_value(sbuf_str(&x->args), "data_type", x->vb, sizeof x->vb);
		int64_t dti = dt ? data_type_id(x->w->h, dt) : 65535;
		const char *count = arg_value(sbuf_str(&x->args), "count", x->vb, sizeof x->vb);
		sqlite3_bind_int64(x->op, 1, rs->ev_name[ev]);
		sqlite3_bind_int64(x->op, 2, s);
		sqlite3_bind_int64(x->op, 3, e);
		if (x->conn[ev])
			sqlite3_bind_int64(x->op, 4, x->conn[ev]);
		sqlite3_bind_int64(x->op, 5, x->group_name);
		sqlite3_bind_int64(x->op, 6, ++x->op_id);
		sqlite3_bind_int64(x->op, 7, dti);
		if (count)
			sqlite3_bind_int64(x->op, 8, num_text(count));
		run(x->w, x->op);
		return;
	}
	uint32_t tt = a->task_type ? a->task_type : rs->ev_name[ev];
	sqlite3_bind_int64(x->task, 1, s);
	sqlite3_bind_int64(x->task, 2, e);
	if (x->conn[ev])
		sqlite3_bind_int64(x->task, 3, x->conn[ev]);
	sqlite3_bind_int64(x->task, 4, ++x->task_id);
	sqlite3_bind_int64(x->task, 5, x->pid);
	sqlite3_bind_int64(x->task, 6, plane ? rs->ev_name[ev] : tt);
	/* a plane task of the text export is on no stream: its TASK row says none */
	if (!plane)
		sqlite3_bind_int64(x->task, 7, l->stream);
	sqlite3_bind_int64(x->task, 8, x->task_id);
	run(x->w, x->task);
	if (plane) {
		sqlite3_bind_int64(x->ctask, 1, rs->ev_name[ev]);
		sqlite3_bind_int64(x->ctask, 2, x->task_id);
		sqlite3_bind_int64(x->ctask, 3, rs->ev_name[ev]);
		sqlite3_bind_int64(x->ctask, 4, num_text(store_str(rs, l->thread_name) + 6));
		sqlite3_bind_int64(x->ctask, 5, x->group_name);
		sqlite3_bind_int64(x->ctask, 6, x->op_id);
		run(x->w, x->ctask);
	} else if (tt != rs->ev_name[ev]) {
		sqlite3_bind_int64(x->compute, 1, rs->ev_name[ev]);
		sqlite3_bind_int64(x->compute, 2, x->task_id);
		sqlite3_bind_int64(x->compute, 3, tt);
		run(x->w, x->compute);
	}
}

/* An OVERLAP_ANALYSIS row; false when the lane is none of its four types. */
static bool put_overlap(struct ev_writer *x, const struct lane *l, int64_t s, int64_t e)
{
	static const char *const ov_names[] = {"Computing", "Communication", "Communication(Not Overlapped)", "Free"};
	struct rank_store *rs = x->rs;
	int type = -1;
	for (int k = 0; k < 4; k++)
		if (!strcmp(store_str(rs, l->thread_name), ov_names[k]))
			type = k;
	if (type < 0) {
		return false;
	}
	sqlite3_bind_int64(x->ov, 1, s);
	sqlite3_bind_int64(x->ov, 2, e);
	sqlite3_bind_int64(x->ov, 3, type);
	run(x->w, x->ov);
	return true;
}

static void write_events(struct w *w, struct rank_store *rs, int rank)
{
	struct ev_writer x = {.w = w, .rs = rs, .args = SBUF_INIT};
	x.conn = connections(rs, &x.pairs, &x.n_pairs);
	for (size_t i = 0; i < rs->n_lanes && !x.pid; i++)
		if (rs->lanes[i].group == LANE_HOST_PYTHON)
			x.pid = num_text(store_str(rs, rs->lanes[i].pid_text));
	x.py = prep(w, "INSERT INTO PYTORCH_API (startNs,endNs,globalTid,connectionId,name,type,inputDtypes,"
		       "inputShapes) VALUES (?,?,?,?,?,?,?,?)");
	x.ids = prep(w, "INSERT INTO CONNECTION_IDS VALUES (?,?)");
	x.cann = prep(w, "INSERT INTO CANN_API VALUES (?,?,?,?,?,?)");
	x.task = prep(w, "INSERT INTO TASK VALUES (?,?,0,?,?,?,?,4294967295,?,?,4294967295)");
	x.compute = prep(w, "INSERT INTO COMPUTE_TASK_INFO (name,globalTaskId,taskType) VALUES (?,?,?)");
	x.op = prep(w, "INSERT INTO COMMUNICATION_OP (opName,startNs,endNs,connectionId,groupName,"
		       "opId,dataType,count) VALUES (?,?,?,?,?,?,?,?)");
	x.ctask = prep(w, "INSERT INTO COMMUNICATION_TASK_INFO (name,globalTaskId,taskType,planeId,"
			  "groupName,opId) VALUES (?,?,?,?,?,?)");
	x.ov = prep(w, "INSERT INTO OVERLAP_ANALYSIS (deviceId,startNs,endNs,type) VALUES (0,?,?,?)");
	x.step = prep(w, "INSERT INTO STEP_TIME VALUES (?,?,?)");
	x.gc = prep(w, "INSERT INTO GC_RECORD VALUES (?,?,?)");
	int64_t skipped = 0;
	/* as HCCL names a communicator (the real Db's groupName): <ip>%<iface>_<port>_<device>_
	 * <creation, us>, the same on every rank of the group; the text export numbers it
	 * "Group 0" (its lane) all the same */
	x.group_name = strtab_intern_cstr(rs->strs, "10.0.0.1%eth0_60000_0_1736408800000000");
	for (size_t ev = 0; ev < rs->n_ev && !w->failed; ev++) {
		const struct lane *l = ev_lane(rs, ev);
		int64_t s = store_ts(rs, ev), e = s + store_dur(rs, ev);
		int64_t tid = num_text(store_str(rs, l->tid_text));
		while (x.pi < x.n_pairs && x.pairs[x.pi].ev < ev)
			x.pi++;
		switch (l->group) {
		case LANE_HOST_PYTHON:
			put_python(&x, ev, l, s, e, tid);
			break;
		case LANE_HOST_CANN:
			put_cann(&x, ev, s, e, tid);
			break;
		case LANE_DEVICE:
		case LANE_COMM:
			put_device(&x, ev, l, s, e);
			break;
		case LANE_OVERLAP:
			skipped += !put_overlap(&x, l, s, e);
			break;
		case LANE_HOST_GC: /* a "Python GC" pause: GC_RECORD */
			sqlite3_bind_int64(x.gc, 1, s);
			sqlite3_bind_int64(x.gc, 2, e);
			sqlite3_bind_int64(x.gc, 3, (num_text(store_str(rs, l->pid_text)) << 32) | tid);
			run(w, x.gc);
			break;
		default:
			skipped++;
			break;
		}
	}
	if (skipped)
		fprintf(stderr, "ascprof-gen: %s: %" PRId64 " event(s) of other lanes have no Db table; left out\n",
			w->path, skipped);
	sqlite3_stmt *sess = prep(w, "INSERT INTO SESSION_TIME_INFO VALUES (?,?)");
	sqlite3_bind_int64(sess, 1, rs->window_start - 10000000);
	sqlite3_bind_int64(sess, 2, rs->window_end + 30000000);
	run(w, sess);
	sqlite3_stmt *map = prep(w, "INSERT INTO RANK_DEVICE_MAP VALUES (?,0)");
	sqlite3_bind_int64(map, 1, rank);
	run(w, map);
	sqlite3_stmt *all[] = {x.py, x.ids, x.cann, x.task, x.compute, x.op, x.ctask, x.ov, x.step, x.gc, sess, map};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		sqlite3_finalize(all[i]);
	sbuf_free(&x.args);
	free(x.conn);
	free(x.pairs);
}

/* The shapes a real Db holds beyond the text export, none of them a task of its own:
 * an FFTS+ parent (contextId 4294967295, taskType AI_CORE, no info row) around each
 * mixed-core kernel, whose own row gets context 0; a collective's tasks on its stream
 * (Notify Wait, SDMA, no info row) carrying the op's connection id, as event record and
 * wait tasks of the HCCL API do, each with a context, under one FFTS+ parent per stream.
 * Written after the kernel table, which finds its tasks by start and name. */
static void write_ffts_parents(struct w *w, struct strtab *strs)
{
	static const char *const sql[] = {
		"INSERT INTO TASK SELECT t.startNs - 1000, t.endNs + 500, t.deviceId, t.connectionId,"
		" t.globalTaskId + (1 << 40), t.globalPid, ?1, 4294967295, t.streamId, t.taskId, t.modelId"
		" FROM TASK t JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId"
		" WHERE c.taskType IN (?2, ?3)",
		"UPDATE TASK SET contextId = 0 WHERE globalTaskId IN"
		" (SELECT globalTaskId FROM COMPUTE_TASK_INFO WHERE taskType IN (?2, ?3))",
		"UPDATE TASK SET contextId = rowid % 64, connectionId = (SELECT o.connectionId FROM"
		" COMMUNICATION_OP o WHERE TASK.startNs >= o.startNs AND TASK.startNs <= o.endNs LIMIT 1)"
		" WHERE taskType IN (?4, ?5) AND streamId IS NOT NULL AND globalTaskId NOT IN"
		" (SELECT globalTaskId FROM COMMUNICATION_TASK_INFO)",
		"UPDATE TASK SET taskId = (SELECT min(k.taskId) FROM TASK k WHERE k.connectionId = TASK.connectionId"
		" AND k.streamId = TASK.streamId AND k.taskType IN (?4, ?5))"
		" WHERE taskType IN (?4, ?5) AND connectionId IS NOT NULL AND contextId <> 4294967295",
		"INSERT INTO TASK SELECT min(startNs), max(endNs), 0, connectionId, min(globalTaskId) + (2 << 40),"
		" min(globalPid), ?1, 4294967295, streamId, min(taskId), NULL FROM TASK"
		" WHERE taskType IN (?4, ?5) AND connectionId IS NOT NULL AND contextId <> 4294967295"
		" GROUP BY connectionId, streamId",
	};
	const char *names[] = {"AI_CORE", "MIX_AIC", "MIX_AIV", "Notify Wait", "SDMA"};
	for (size_t i = 0; i < sizeof sql / sizeof sql[0] && !w->failed; i++) {
		sqlite3_stmt *st = prep(w, sql[i]);
		/* a statement without ?k refuses its binding (SQLITE_RANGE): nothing to bind */
		for (int k = 0; st && k < sqlite3_bind_parameter_count(st); k++)
			sqlite3_bind_int64(st, k + 1, strtab_intern_cstr(strs, names[k]));
		run(w, st);
		sqlite3_finalize(st);
	}
}

/* od/name when the text export has it (its messages are the reader's business), or NULL. */
static struct csv_table *load_csv(const char *od, const char *name)
{
	char *path = xasprintf("%s/%s", od, name);
	struct diag_list dl;
	diag_init(&dl);
	struct csv_table *t = access(path, F_OK) == 0 ? csvt_load(path, &dl) : NULL;
	free(path);
	diag_free(&dl);
	return t;
}

/* One of the text export's CSV tables as its Db table (db_csv_specs read backwards):
 * numbers in the Db's units, names through STRING_IDS and ENUM_MODULE. Application memory
 * rows of memory_record.csv (APP) go to NPU_MEM, where torch_npu keeps them. */
static void write_csv_table(struct w *w, const char *od, const struct db_csv_spec *spec, struct strtab *strs,
			    struct strtab *modules)
{
	struct csv_table *t = load_csv(od, spec->csv);
	if (!t)
		return;
	int of[64];
	size_t n = t->ncols < 64 ? t->ncols : 64;
	struct sbuf create = SBUF_INIT, insert = SBUF_INIT;
	sbuf_addf(&create, "CREATE TABLE %s (", spec->table);
	sbuf_addf(&insert, "INSERT INTO %s (", spec->table);
	int used = 0;
	for (size_t i = 0; i < n; i++) {
		of[i] = -1;
		for (size_t k = 0; k < spec->n_cols; k++)
			if (!strcmp(t->headers[i], spec->cols[k].header))
				of[i] = (int)k;
		if (of[i] < 0)
			continue;
		const struct db_csv_col *c = &spec->cols[of[i]];
		sbuf_addf(&create, "%s%s %s", used ? ", " : "", c->column, c->conv == DBC_TEXT ? "NUMERIC" : "INTEGER");
		sbuf_addf(&insert, "%s%s", used ? ", " : "", c->column);
		used++;
	}
	sbuf_adds(&create, ")");
	sbuf_adds(&insert, ") VALUES (");
	for (int i = 0; i < used; i++)
		sbuf_adds(&insert, i ? ",?" : "?");
	sbuf_adds(&insert, ")");
	if (sqlite3_exec(w->h, sbuf_str(&create), NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "ascprof-gen: %s: %s\n", w->path, sqlite3_errmsg(w->h));
		w->failed = 1;
	}
	sqlite3_stmt *st = prep(w, sbuf_str(&insert));
	bool record = !strcmp(spec->table, "MEMORY_RECORD");
	sqlite3_stmt *app = record ? prep(w, "INSERT INTO NPU_MEM VALUES (?,0,?,?,?)") : NULL;
	for (size_t r = 0; r < t->nrows && st && !w->failed; r++) {
		struct csv_cells cells;
		if (csvt_row_cells(t, r, &cells) != 0)
			continue;
		int b = 0;
		int64_t app_ts = 0, app_reserved = 0, app_dev = 0;
		bool is_app = false;
		for (size_t i = 0; i < n && i < cells.n; i++) {
			if (of[i] < 0)
				continue;
			const struct db_csv_col *c = &spec->cols[of[i]];
			const char *v = cells.cells[i];
			size_t len = strlen(v);
			b++;
			int64_t x;
			double d;
			if (!len)
				continue; /* NULL */
			switch (c->conv) {
			case DBC_TEXT:
				sqlite3_bind_text(st, b, v, (int)len, SQLITE_TRANSIENT);
				break;
			case DBC_STRING_ID:
				is_app |= record && !strcmp(v, "APP");
				sqlite3_bind_int64(st, b, strtab_intern(strs, v, len));
				break;
			case DBC_MODULE:
				sqlite3_bind_int64(st, b, strtab_intern(modules, v, len));
				break;
			case DBC_NS_US:
				if (num_us_to_ns(v, len, &x, NULL) == NUM_OK) {
					sqlite3_bind_int64(st, b, x);
					app_ts = x;
				}
				break;
			case DBC_BYTES_MB:
			case DBC_BYTES_KB:
				if (num_double(v, len, &d) == NUM_OK) {
					x = llround(d * (c->conv == DBC_BYTES_MB ? 1048576.0 : 1024.0));
					sqlite3_bind_int64(st, b, x);
					if (!strcmp(c->column, "totalReserved"))
						app_reserved = x;
				}
				break;
			case DBC_NOT_SET:
				sqlite3_bind_int64(st, b, !strcmp(v, "N/A") ? 4294967295LL : num_text(v));
				break;
			case DBC_DEVICE:
				app_dev = num_text(strchr(v, ':') ? strchr(v, ':') + 1 : v);
				sqlite3_bind_int64(st, b, app_dev);
				break;
			}
		}
		if (is_app) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			sqlite3_bind_int64(app, 1, strtab_intern_cstr(strs, "app"));
			sqlite3_bind_int64(app, 2, app_reserved);
			sqlite3_bind_int64(app, 3, app_ts);
			sqlite3_bind_int64(app, 4, app_dev);
			run(w, app);
		} else {
			run(w, st);
		}
		csvt_cells_free(&cells);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(app);
	sbuf_free(&create);
	sbuf_free(&insert);
	csvt_free(t);
}

/* kernel_details.csv into the Db: each row's task (found by start and name) gets its
 * COMPUTE_TASK_INFO columns and TASK_PMU_INFO counters, each HCCL row its
 * COMMUNICATION_OP's type and wait (db_kernel_table backwards). */
static void write_kernels(struct w *w, const char *od, struct strtab *strs)
{
	static const char *const info_cols[][2] = {
		{"Type", "opType"}, {"Block Dim", "blockDim"}, {"Mix Block Dim", "mixBlockDim"},
		{"Input Shapes", "inputShapes"}, {"Input Data Types", "inputDataTypes"},
		{"Input Formats", "inputFormats"}, {"Output Shapes", "outputShapes"},
		{"Output Data Types", "outputDataTypes"}, {"Output Formats", "outputFormats"},
		{"OP State", "opState"}, /* dynamic or static: whether a new shape compiles again */
	};
	enum { N_INFO = sizeof info_cols / sizeof info_cols[0] };
	struct csv_table *t = load_csv(od, "kernel_details.csv");
	if (!t)
		return;
	int name_at = -1, core_at = -1, start_at = -1, wait_at = -1, info_at[N_INFO];
	uint32_t pmu[128] = {0}; /* per header: the counter's STRING_IDS id, 0 when not one */
	for (size_t k = 0; k < N_INFO; k++)
		info_at[k] = -1;
	for (size_t i = 0; i < t->ncols && i < 128; i++) {
		const char *hd = t->headers[i];
		size_t hl = strlen(hd);
		name_at = !strcmp(hd, "Name") ? (int)i : name_at;
		core_at = !strcmp(hd, "Accelerator Core") ? (int)i : core_at;
		start_at = !strcmp(hd, "Start Time(us)") ? (int)i : start_at;
		wait_at = !strcmp(hd, "Wait Time(us)") ? (int)i : wait_at;
		for (size_t k = 0; k < N_INFO; k++)
			if (!strcmp(hd, info_cols[k][0]))
				info_at[k] = (int)i;
		/* counters, interned in header order (the reader lists them by id) */
		if (!strcmp(hd, "aicore_time(us)"))
			pmu[i] = strtab_intern_cstr(strs, "aic_total_time");
		else if (!strcmp(hd, "aiv_time(us)"))
			pmu[i] = strtab_intern_cstr(strs, "aiv_total_time");
		else if (!strncmp(hd, "aic_", 4) || !strncmp(hd, "aiv_", 4))
			pmu[i] = strtab_intern(strs, hd, hl > 4 && !strcmp(hd + hl - 4, "(us)") ? hl - 4 : hl);
	}
	if (name_at < 0 || core_at < 0 || start_at < 0) {
		csvt_free(t);
		return;
	}
	sqlite3_stmt *find = prep(w, "SELECT t.globalTaskId, coalesce(c.taskType, t.taskType) FROM TASK t LEFT JOIN "
				     "COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId WHERE t.startNs = ?1 AND "
				     "coalesce(c.name, t.taskType) = ?2");
	sqlite3_stmt *info = prep(w, "INSERT OR REPLACE INTO COMPUTE_TASK_INFO (name, globalTaskId, taskType, opType, "
				     "blockDim, mixBlockDim, inputShapes, inputDataTypes, inputFormats, outputShapes, "
				     "outputDataTypes, outputFormats, opState, waitNs) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
	sqlite3_stmt *op = prep(w, "UPDATE COMMUNICATION_OP SET opType = ?1, waitNs = ?2 WHERE startNs = ?3 AND "
				   "opName = ?4");
	sqlite3_stmt *counter = prep(w, "INSERT INTO TASK_PMU_INFO VALUES (?,?,?)");
	size_t missed = 0;
	for (size_t r = 0; r < t->nrows && find && info && op && counter && !w->failed; r++) {
		struct csv_cells c;
		if (csvt_row_cells(t, r, &c) != 0)
			continue;
		const char *name = (size_t)name_at < c.n ? c.cells[name_at] : "";
		const char *core = (size_t)core_at < c.n ? c.cells[core_at] : "";
		int64_t start, wait = 0;
		bool has_wait = wait_at >= 0 && (size_t)wait_at < c.n &&
				num_us_to_ns(c.cells[wait_at], strlen(c.cells[wait_at]), &wait, NULL) == NUM_OK;
		uint32_t name_id = strtab_intern_cstr(strs, name);
		if ((size_t)start_at >= c.n ||
		    num_us_to_ns(c.cells[start_at], strlen(c.cells[start_at]), &start, NULL) != NUM_OK) {
			missed++;
		} else if (!strcmp(core, "HCCL")) {
			const char *type = info_at[0] >= 0 && (size_t)info_at[0] < c.n ? c.cells[info_at[0]] : "";
			sqlite3_bind_int64(op, 1, strtab_intern_cstr(strs, type));
			if (has_wait)
				sqlite3_bind_int64(op, 2, wait);
			sqlite3_bind_int64(op, 3, start);
			sqlite3_bind_int64(op, 4, name_id);
			run(w, op);
			missed += sqlite3_changes(w->h) == 0;
		} else {
			sqlite3_bind_int64(find, 1, start);
			sqlite3_bind_int64(find, 2, name_id);
			bool found = sqlite3_step(find) == SQLITE_ROW;
			int64_t gtid = found ? sqlite3_column_int64(find, 0) : 0, type = found ? sqlite3_column_int64(find, 1) : 0;
			sqlite3_reset(find);
			if (!found) {
				missed++;
				csvt_cells_free(&c);
				continue;
			}
			sqlite3_bind_int64(info, 1, name_id);
			sqlite3_bind_int64(info, 2, gtid);
			sqlite3_bind_int64(info, 3, type);
			for (size_t k = 0; k < N_INFO; k++) {
				const char *v = info_at[k] >= 0 && (size_t)info_at[k] < c.n ? c.cells[info_at[k]] : "";
				if (!*v || !strcmp(v, "N/A"))
					continue;
				if (k == 1 || k == 2) /* block dims: numbers */
					sqlite3_bind_int64(info, 5 + (int)k - 1, num_text(v));
				else
					sqlite3_bind_int64(info, 4 + (int)k, strtab_intern_cstr(strs, v));
			}
			if (has_wait)
				sqlite3_bind_int64(info, 14, wait);
			run(w, info);
			for (size_t i = 0; i < c.n && i < 128; i++) {
				const char *v = c.cells[i];
				if (!pmu[i] || !*v || !strcmp(v, "N/A"))
					continue;
				const char *pn = strtab_str(strs, pmu[i]);
				size_t pl = strlen(pn);
				int64_t ns;
				sqlite3_bind_int64(counter, 1, gtid);
				sqlite3_bind_int64(counter, 2, pmu[i]);
				if (pl > 5 && !strcmp(pn + pl - 5, "_time") && num_us_to_ns(v, strlen(v), &ns, NULL) == NUM_OK)
					sqlite3_bind_int64(counter, 3, ns);
				else
					sqlite3_bind_text(counter, 3, v, -1, SQLITE_TRANSIENT);
				run(w, counter);
			}
		}
		csvt_cells_free(&c);
	}
	if (missed)
		fprintf(stderr, "ascprof-gen: %s: %zu kernel_details.csv row(s) match no task; left out\n", w->path, missed);
	sqlite3_finalize(find);
	sqlite3_finalize(info);
	sqlite3_finalize(op);
	sqlite3_finalize(counter);
	csvt_free(t);
}

/* communication.json and communication_matrix.json into analysis.db's CommAnalyzerTime,
 * CommAnalyzerBandwidth (one row per transport and packet size; a transport without
 * packets gets one row with none) and CommAnalyzerMatrix (db_comm_load backwards; the
 * per-step "Total Op Info" is the reader's to add up, as torch_npu's Db keeps none). */
static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct sbuf sb = SBUF_INIT;
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sbuf_add(&sb, buf, n);
	fclose(f);
	*len = sb.len;
	return sbuf_detach(&sb);
}

/* Binds token i (a number or a string) to parameter p: numbers as REAL, strings as TEXT. */
static void bind_tok(sqlite3_stmt *st, int p, const char *js, const jsmntok_t *t)
{
	struct sbuf v = SBUF_INIT;
	jtok_unescape(js, t, &v);
	double d;
	if (t->type == JSMN_PRIMITIVE && num_double(v.buf, v.len, &d) == NUM_OK)
		sqlite3_bind_double(st, p, d);
	else
		sqlite3_bind_text(st, p, sbuf_str(&v), (int)v.len, SQLITE_TRANSIENT);
	sbuf_free(&v);
}

static void bind_key(sqlite3_stmt *st, int p, const char *js, const jsmntok_t *t, size_t len)
{
	sqlite3_bind_text(st, p, js + t->start, (int)len, SQLITE_TRANSIENT);
}

/* Calls fn for each (step, type, op key, op object) of a communication file. */
static void comm_walk(struct w *w, const char *path,
		      void (*fn)(struct w *w, void *ctx, const struct jtok *jt, const char *js, int step, int type,
				 int op, int obj),
		      void *ctx)
{
	size_t len;
	char *js = read_all(path, &len);
	if (!js)
		return;
	struct jtok jt;
	jtok_init(&jt);
	if (jtok_parse(&jt, js, len) > 0 && jt.t[0].type == JSMN_OBJECT) {
		for (int i = 1, ns = 0; ns < jt.t[0].size && i < jt.n; ns++) {
			int step = i, types = i + 1;
			for (int j = types + 1, nt = 0; jt.t[types].type == JSMN_OBJECT && nt < jt.t[types].size; nt++) {
				int type = j, ops = j + 1;
				for (int k = ops + 1, no = 0; jt.t[ops].type == JSMN_OBJECT && no < jt.t[ops].size; no++) {
					fn(w, ctx, &jt, js, step, type, k, k + 1);
					k = jtok_skip(&jt, k + 1);
				}
				j = jtok_skip(&jt, ops);
			}
			i = jtok_skip(&jt, types);
		}
	}
	jtok_free(&jt);
	free(js);
}

/* "op@group" split into ?3 (op) and ?4 (group) of st. */
static void bind_op_group(sqlite3_stmt *st, const char *js, const jsmntok_t *t)
{
	const char *k = js + t->start, *at = memchr(k, '@', (size_t)(t->end - t->start));
	size_t kl = (size_t)(t->end - t->start);
	sqlite3_bind_text(st, 3, k, at ? (int)(at - k) : (int)kl, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, at ? at + 1 : "", at ? (int)(kl - (size_t)(at + 1 - k)) : 0, SQLITE_TRANSIENT);
}

struct comm_stmts {
	sqlite3_stmt *time, *bw;
};

static void time_op(struct w *w, void *ctx, const struct jtok *jt, const char *js, int step, int type, int op,
		    int obj)
{
	const struct comm_stmts *cs = ctx;
	if (jtok_eq(js, &jt->t[op], "Total Op Info"))
		return;
	static const char *const times[] = {"Start Timestamp(us)", "Elapse Time(ms)", "Transit Time(ms)",
					    "Wait Time(ms)", "Synchronization Time(ms)", "Idle Time(ms)"};
	int ti = jtok_obj_get(jt, js, obj, "Communication Time Info");
	bind_key(cs->time, 1, js, &jt->t[step], (size_t)(jt->t[step].end - jt->t[step].start));
	bind_key(cs->time, 2, js, &jt->t[type], (size_t)(jt->t[type].end - jt->t[type].start));
	bind_op_group(cs->time, js, &jt->t[op]);
	for (int i = 0; i < 6 && ti >= 0; i++) {
		int v = jtok_obj_get(jt, js, ti, times[i]);
		if (v >= 0)
			bind_tok(cs->time, 5 + i, js, &jt->t[v]);
	}
	run(w, cs->time);
	int bi = jtok_obj_get(jt, js, obj, "Communication Bandwidth Info");
	for (int k = bi + 1, n = 0; bi >= 0 && jt->t[bi].type == JSMN_OBJECT && n < jt->t[bi].size; n++) {
		int tr = k + 1;
		static const char *const fields[] = {"Transit Size(MB)", "Transit Time(ms)", "Bandwidth(GB/s)",
						     "Large Packet Ratio"};
		int dist = jtok_obj_get(jt, js, tr, "Size Distribution");
		int rows = dist >= 0 && jt->t[dist].type == JSMN_OBJECT ? jt->t[dist].size : 0;
		for (int r = 0, d = dist + 1; r < (rows ? rows : 1); r++) {
			bind_key(cs->bw, 1, js, &jt->t[step], (size_t)(jt->t[step].end - jt->t[step].start));
			bind_key(cs->bw, 2, js, &jt->t[type], (size_t)(jt->t[type].end - jt->t[type].start));
			bind_op_group(cs->bw, js, &jt->t[op]);
			bind_key(cs->bw, 5, js, &jt->t[k], (size_t)(jt->t[k].end - jt->t[k].start));
			for (int f = 0; f < 4; f++) {
				int v = jtok_obj_get(jt, js, tr, fields[f]);
				if (v >= 0)
					bind_tok(cs->bw, 6 + f, js, &jt->t[v]);
			}
			if (rows) {
				bind_tok(cs->bw, 10, js, &jt->t[d]); /* the packet size, a key */
				const jsmntok_t *arr = &jt->t[d + 1];
				if (arr->type == JSMN_ARRAY && arr->size >= 2) {
					bind_tok(cs->bw, 11, js, &jt->t[d + 2]);
					bind_tok(cs->bw, 12, js, &jt->t[d + 3]);
				}
				d = jtok_skip(jt, d + 1);
			} else {
				sqlite3_bind_int(cs->bw, 10, 0);
				sqlite3_bind_int(cs->bw, 11, 0);
				sqlite3_bind_int(cs->bw, 12, 0);
			}
			run(w, cs->bw);
		}
		k = jtok_skip(jt, tr);
	}
}

static void matrix_op(struct w *w, void *ctx, const struct jtok *jt, const char *js, int step, int type, int op,
		      int obj)
{
	sqlite3_stmt *st = ctx;
	for (int k = obj + 1, n = 0; jt->t[obj].type == JSMN_OBJECT && n < jt->t[obj].size; n++) {
		int link = k + 1;
		const char *lk = js + jt->t[k].start, *dash = memchr(lk, '-', (size_t)(jt->t[k].end - jt->t[k].start));
		bind_key(st, 1, js, &jt->t[step], (size_t)(jt->t[step].end - jt->t[step].start));
		bind_key(st, 2, js, &jt->t[type], (size_t)(jt->t[type].end - jt->t[type].start));
		bind_op_group(st, js, &jt->t[op]);
		if (dash) {
			sqlite3_bind_text(st, 5, lk, (int)(dash - lk), SQLITE_TRANSIENT);
			sqlite3_bind_text(st, 6, dash + 1, (int)(js + jt->t[k].end - dash - 1), SQLITE_TRANSIENT);
		}
		static const char *const fields[] = {"Transport Type", "Transit Size(MB)", "Transit Time(ms)",
						     "Bandwidth(GB/s)", "Op Name"};
		for (int f = 0; f < 5; f++) {
			int v = jtok_obj_get(jt, js, link, fields[f]);
			if (v >= 0)
				bind_tok(st, 7 + f, js, &jt->t[v]);
		}
		run(w, st);
		k = jtok_skip(jt, link);
	}
}

static void write_comm_tables(struct w *w, const char *od)
{
	char *p = xasprintf("%s/communication.json", od);
	bool have = access(p, F_OK) == 0;
	free(p);
	if (!have)
		return;
	sqlite3_exec(w->h,
		     "CREATE TABLE CommAnalyzerTime (hccl_op_name TEXT, group_name TEXT, start_timestamp NUMERIC, "
		     "elapse_time NUMERIC, transit_time NUMERIC, wait_time NUMERIC, synchronization_time NUMERIC, "
		     "idle_time NUMERIC, step TEXT, type TEXT);"
		     "CREATE TABLE CommAnalyzerBandwidth (hccl_op_name TEXT, group_name TEXT, transport_type TEXT, "
		     "transit_size NUMERIC, transit_time NUMERIC, bandwidth NUMERIC, large_packet_ratio NUMERIC, "
		     "package_size NUMERIC, count NUMERIC, total_duration NUMERIC, step TEXT, type TEXT);"
		     "CREATE TABLE CommAnalyzerMatrix (hccl_op_name TEXT, group_name TEXT, src_rank TEXT, dst_rank TEXT, "
		     "transport_type TEXT, transit_size NUMERIC, transit_time NUMERIC, bandwidth NUMERIC, step TEXT, "
		     "type TEXT, op_name TEXT);",
		     NULL, NULL, NULL);
	struct comm_stmts cs = {
		prep(w, "INSERT INTO CommAnalyzerTime (step, type, hccl_op_name, group_name, start_timestamp, "
			"elapse_time, transit_time, wait_time, synchronization_time, idle_time) VALUES "
			"(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)"),
		prep(w, "INSERT INTO CommAnalyzerBandwidth (step, type, hccl_op_name, group_name, transport_type, "
			"transit_size, transit_time, bandwidth, large_packet_ratio, package_size, count, total_duration) "
			"VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)"),
	};
	sqlite3_stmt *mx = prep(w, "INSERT INTO CommAnalyzerMatrix (step, type, hccl_op_name, group_name, src_rank, "
				   "dst_rank, transport_type, transit_size, transit_time, bandwidth, op_name) VALUES "
				   "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)");
	p = xasprintf("%s/communication.json", od);
	if (cs.time && cs.bw)
		comm_walk(w, p, time_op, &cs);
	free(p);
	p = xasprintf("%s/communication_matrix.json", od);
	if (mx)
		comm_walk(w, p, matrix_op, mx);
	free(p);
	sqlite3_finalize(cs.time);
	sqlite3_finalize(cs.bw);
	sqlite3_finalize(mx);
}

/* Every string of strs into table (id, value): STRING_IDS, ENUM_MODULE. */
static void write_strings(struct w *w, const char *table, const struct strtab *strs)
{
	char *sql = xasprintf("INSERT INTO %s VALUES (?,?)", table);
	sqlite3_stmt *st = prep(w, sql);
	free(sql);
	for (uint32_t i = 1; i < strtab_count(strs) && st && !w->failed; i++) {
		sqlite3_bind_int64(st, 1, i);
		sqlite3_bind_text(st, 2, strtab_str(strs, i), (int)strtab_len(strs, i), SQLITE_STATIC);
		run(w, st);
	}
	sqlite3_finalize(st);
}

/* The text files the Db export replaces. */
static void remove_text(const char *od)
{
	static const char *const files[] = {
		"trace_view.json", "kernel_details.csv", "operator_details.csv", "op_statistic.csv",
		"api_statistic.csv", "step_trace_time.csv", "communication.json", "communication_matrix.json",
		"memory_record.csv", "operator_memory.csv", "npu_module_mem.csv",
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char *p = xasprintf("%s/%s", od, files[i]);
		unlink(p);
		free(p);
	}
}

/* profiler_info's _export_type: "db". */
static void mark_db(const char *worker_dir, int rank)
{
	char *p = xasprintf("%s/profiler_info_%d.json", worker_dir, rank);
	size_t len;
	char *text = read_all(p, &len);
	const char *at = text ? strstr(text, "\"_export_type\": \"text\"") : NULL;
	FILE *f;
	if (at && (f = fopen(p, "w"))) {
		fwrite(text, 1, (size_t)(at - text), f);
		fputs("\"_export_type\": \"db\"", f);
		fputs(at + strlen("\"_export_type\": \"text\""), f);
		fclose(f);
	}
	free(text);
	free(p);
}

int gen_db_export(const char *worker_dir, int rank, bool keep_text)
{
	char *od = xasprintf("%s/ASCEND_PROFILER_OUTPUT", worker_dir);
	char *trace = xasprintf("%s/trace_view.json", od);
	char *dbp = xasprintf("%s/ascend_pytorch_profiler_%d.db", od, rank);
	char *adb = xasprintf("%s/analysis.db", od);
	struct rank_store rs;
	struct diag_list dl;
	store_init(&rs);
	diag_init(&dl);
	int rc = -1;
	struct trace_load_opts topts = {.threads = 1};
	if (trace_load(&rs, trace, &topts, &dl) != 0) {
		fprintf(stderr, "ascprof-gen: %s: cannot read it back for the Db export\n", trace);
		goto out;
	}
	unlink(dbp);
	struct w w = {.path = dbp};
	if (sqlite3_open(dbp, &w.h) != SQLITE_OK ||
	    sqlite3_exec(w.h, schema, NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "ascprof-gen: %s: %s\n", dbp, sqlite3_errmsg(w.h));
		sqlite3_close(w.h);
		goto out;
	}
	write_events(&w, &rs, rank);
	write_freq(&w, &rs);
	write_kernels(&w, od, rs.strs);
	write_ffts_parents(&w, rs.strs);
	struct strtab *modules = strtab_new();
	for (size_t i = 0; i < db_n_csv_specs; i++)
		if (!db_csv_specs[i].in_analysis)
			write_csv_table(&w, od, &db_csv_specs[i], rs.strs, modules);
	write_strings(&w, "STRING_IDS", rs.strs);
	write_strings(&w, "ENUM_MODULE", modules);
	strtab_free(modules);
	if (sqlite3_exec(w.h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "ascprof-gen: %s: %s\n", dbp, sqlite3_errmsg(w.h));
		w.failed = 1;
	}
	sqlite3_close(w.h);
	if (w.failed)
		goto out;
	/* analysis.db: its tables (StepTraceTime, CommAnalyzer*) when the text export has them */
	char *step_csv = xasprintf("%s/step_trace_time.csv", od), *comm_json = xasprintf("%s/communication.json", od);
	bool steps = access(step_csv, F_OK) == 0 || access(comm_json, F_OK) == 0;
	free(step_csv);
	free(comm_json);
	if (steps) {
		unlink(adb);
		struct w a = {.path = adb};
		if (sqlite3_open(adb, &a.h) != SQLITE_OK ||
		    sqlite3_exec(a.h, "PRAGMA journal_mode=OFF; BEGIN", NULL, NULL, NULL) != SQLITE_OK)
			a.failed = 1;
		for (size_t i = 0; i < db_n_csv_specs && !a.failed; i++)
			if (db_csv_specs[i].in_analysis)
				write_csv_table(&a, od, &db_csv_specs[i], rs.strs, NULL);
		if (!a.failed)
			write_comm_tables(&a, od);
		if (!a.failed && sqlite3_exec(a.h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
			a.failed = 1;
		if (a.failed)
			fprintf(stderr, "ascprof-gen: %s: %s\n", adb, sqlite3_errmsg(a.h));
		sqlite3_close(a.h);
		if (a.failed)
			goto out;
	}
	if (!keep_text) {
		remove_text(od);
		mark_db(worker_dir, rank);
	}
	rc = 0;
out:
	store_free(&rs);
	diag_free(&dl);
	free(od);
	free(trace);
	free(dbp);
	free(adb);
	return rc;
}

/* ---- msprof-analyze's cluster_analysis.db (--cluster-db) ------------------------------ */

/* The value of "key=" in the truth text, or def. */
static int64_t truth_i64(const char *truth, const char *key, int64_t def)
{
	size_t kl = strlen(key);
	for (const char *p = truth; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == '=')
			return strtoll(p + kl + 1, NULL, 10);
	return def;
}

int gen_cluster_db(const char *out, int slow_rank)
{
	char tp[4096], dir[4096], dbp[4200];
	snprintf(tp, sizeof tp, "%s/ground_truth.txt", out);
	size_t len;
	char *truth = read_all(tp, &len);
	if (!truth) {
		fprintf(stderr, "ascprof-gen: cannot read %s\n", tp);
		return -1;
	}
	snprintf(dir, sizeof dir, "%s/cluster_analysis_output", out);
	snprintf(dbp, sizeof dbp, "%s/cluster_analysis.db", dir);
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "ascprof-gen: cannot create %s: %s\n", dir, strerror(errno));
		free(truth);
		return -1;
	}
	unlink(dbp);
	struct w w = {.path = dbp};
	if (sqlite3_open(dbp, &w.h) != SQLITE_OK ||
	    sqlite3_exec(w.h,
			 "PRAGMA journal_mode=OFF; BEGIN;"
			 "CREATE TABLE ClusterTimeSummary (rank INTEGER, step INTEGER, stepTime REAL, computation REAL,"
			 " communicationNotOverlapComputation REAL, communicationOverlapComputation REAL,"
			 " communication REAL, free REAL, communicationWaitStageTime REAL,"
			 " communicationTransmitStageTime REAL, memory REAL, memoryNotOverlapComputationCommunication REAL,"
			 " taskLaunchDelayAvgTime REAL);"
			 "CREATE TABLE SlowRank (rankId INTEGER, slowAffectCount INTEGER);"
			 "CREATE TABLE CommunicationGroupMapping (type TEXT, rank_set TEXT, group_name TEXT, group_id TEXT,"
			 " pg_name TEXT);",
			 NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "ascprof-gen: %s: %s\n", dbp, sqlite3_errmsg(w.h));
		sqlite3_close(w.h);
		free(truth);
		return -1;
	}
	/* each rank's planted steps (ground_truth.txt), in us as msprof-analyze writes them: the
	 * step from its start to the next one's, its compute and exposed communication, free the
	 * rest; wait and transmit unknown (NULL) */
	sqlite3_stmt *st = prep(&w, "INSERT INTO ClusterTimeSummary (rank, step, stepTime, computation,"
				    " communicationNotOverlapComputation, free) VALUES (?, ?, ?, ?, ?, ?)");
	int ranks = (int)truth_i64(truth, "ranks", 0);
	struct sbuf set = SBUF_INIT;
	char key[128];
	for (int r = 0; r < ranks; r++) {
		sbuf_addf(&set, "%s%d", r ? "," : "(", r);
		snprintf(key, sizeof key, "rank.%d.steps", r);
		int steps = (int)truth_i64(truth, key, 0);
		for (int k = 0; k < steps; k++) {
			int64_t v[4];
			static const char *const f[4] = {"start_ns", "end_ns", "compute_ns", "comm_not_overlapped_ns"};
			for (int i = 0; i < 4; i++) {
				snprintf(key, sizeof key, "rank.%d.step.%d.%s", r, k, f[i]);
				v[i] = truth_i64(truth, key, 0);
			}
			int64_t step = v[1] - v[0], fr = step - v[2] - v[3];
			sqlite3_bind_int(st, 1, r);
			sqlite3_bind_int(st, 2, k);
			sqlite3_bind_double(st, 3, (double)step / 1e3);
			sqlite3_bind_double(st, 4, (double)v[2] / 1e3);
			sqlite3_bind_double(st, 5, (double)v[3] / 1e3);
			sqlite3_bind_double(st, 6, (double)(fr > 0 ? fr : 0) / 1e3);
			run(&w, st);
		}
	}
	sqlite3_finalize(st);
	sbuf_addc(&set, ')');
	st = prep(&w, "INSERT INTO CommunicationGroupMapping VALUES ('collective', ?, 'generated', 'generated', 'world')");
	sqlite3_bind_text(st, 1, sbuf_str(&set), -1, SQLITE_TRANSIENT);
	run(&w, st);
	sqlite3_finalize(st);
	if (slow_rank >= 0 && slow_rank < ranks) {
		/* msprof-analyze's verdict on the planted rank: every step's collectives */
		snprintf(key, sizeof key, "rank.%d.steps", slow_rank);
		st = prep(&w, "INSERT INTO SlowRank VALUES (?, ?)");
		sqlite3_bind_int(st, 1, slow_rank);
		sqlite3_bind_int64(st, 2, truth_i64(truth, key, 0));
		run(&w, st);
		sqlite3_finalize(st);
	}
	if (!w.failed && sqlite3_exec(w.h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		w.failed = 1;
	sqlite3_close(w.h);
	sbuf_free(&set);
	free(truth);
	return w.failed ? -1 : 0;
}
