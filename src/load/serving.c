/* SPDX-License-Identifier: MIT */
/* MS Service Profiler output (see serving.h). */
#include "config.h"
#include "serving.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "csv_table.h"
#include "db.h"
#include "i18n.h"
#include "num.h"
#include "store.h"
#include "trace.h"
#include "xalloc.h"

const char *serving_gen_name(enum serving_gen g)
{
	switch (g) {
	case SERVING_RAW: return "raw (not parsed)";
	case SERVING_2024: return "2024 dump";
	case SERVING_CANN81: return "CANN 8.1/8.2";
	case SERVING_CURRENT: return "current (ms)";
	case SERVING_NONE: break;
	}
	return "none";
}

const char *serving_batch_type_name(enum serving_batch_type t)
{
	static const char *const names[SBT_COUNT] = {"unknown", "prefill", "decode", "mixed"};
	return t < SBT_COUNT ? names[t] : "unknown";
}

static char *serving_join(const char *dir, const char *name) { return xasprintf("%s/%s", dir, name); }

static bool serving_is_file(const char *dir, const char *name)
{
	char *p = serving_join(dir, name);
	struct stat st;
	bool yes = stat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return yes;
}

/* The first line of dir/name (at most size - 1 bytes), or "" when it does not read. */
static void serving_head(const char *dir, const char *name, char *buf, size_t size)
{
	char *p = serving_join(dir, name);
	FILE *f = fopen(p, "rb");
	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)size, f))
			buf[0] = 0;
		fclose(f);
	}
	free(p);
}

static bool serving_raw_only(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool raw = false;
	struct dirent *de;
	while ((de = readdir(d)))
		raw |= !fnmatch("ms_service_*.db", de->d_name, 0);
	closedir(d);
	return raw;
}

/* dir's profiler.db holds a slice table (another tool's file of that name does not). */
static bool serving_db_has_slice(const char *dir)
{
	char *path = serving_join(dir, "profiler.db");
	struct diag_list scratch; /* a file that does not open is simply not ours */
	diag_init(&scratch);
	sqlite3 *h = db_open_readonly(path, &scratch);
	bool yes = h && db_has_table(h, "slice");
	sqlite3_close(h);
	diag_free(&scratch);
	free(path);
	return yes;
}

enum serving_gen serving_probe(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return SERVING_NONE;
	if (S_ISREG(st.st_mode)) {
		const char *base = strrchr(path, '/');
		base = base ? base + 1 : path;
		if (strcmp(base, "chrome_tracing.json") && strcmp(base, "request.csv") && strcmp(base, "batch.csv") &&
		    strcmp(base, "forward.csv") && strcmp(base, "tx_data_df.csv") && strcmp(base, "profiler.db"))
			return SERVING_NONE;
		char *dir = base == path ? xstrdup(".") : xstrndup(path, (size_t)(base - 1 - path));
		enum serving_gen g = serving_probe(dir);
		free(dir);
		if (!strcmp(base, "profiler.db"))
			return g;
		if (g != SERVING_NONE || strcmp(base, "chrome_tracing.json"))
			return g;
		/* a service trace on its own: its spans say what they can; a bare array is what
		 * current releases write, the 2024 dump wraps it in traceEvents */
		char head[64] = "";
		FILE *f = fopen(path, "rb");
		size_t n = f ? fread(head, 1, sizeof head - 1, f) : 0;
		if (f)
			fclose(f);
		head[n] = '\0';
		const char *p = head + strspn(head, " \t\r\n\xef\xbb\xbf");
		return *p == '[' ? SERVING_CURRENT : SERVING_2024;
	}
	if (!S_ISDIR(st.st_mode))
		return SERVING_NONE;
	char head[1024];
	const char *tables[] = {"request.csv", "batch.csv", "forward.csv"};
	for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
		if (!serving_is_file(path, tables[i]))
			continue;
		serving_head(path, tables[i], head, sizeof head);
		if (strstr(head, "(ms)"))
			return SERVING_CURRENT;
		if (strstr(head, "(microsecond)"))
			return SERVING_CANN81;
	}
	if (serving_is_file(path, "tx_data_df.csv")) {
		serving_head(path, "tx_data_df.csv", head, sizeof head);
		if (strstr(head, "event_type") && strstr(head, "batch_type"))
			return SERVING_2024;
	}
	/* the service profiler's own database, kept without its CSVs (current releases) */
	if (serving_is_file(path, "profiler.db") && serving_db_has_slice(path))
		return SERVING_CURRENT;
	if (serving_raw_only(path))
		return SERVING_RAW;
	return SERVING_NONE;
}

/* ---- CSV tables ---------------------------------------------------------------------- */

/* A column found by its name's stem ("execution_time" matches "execution_time(ms)"), and
 * the power of ten that takes its unit to ns (6 for ms, 3 for µs; def when it names none). */
struct serving_col {
	int at;
	int scale;
};

static struct serving_col serving_col(const struct csv_table *t, const char *stem, int def)
{
	size_t n = strlen(stem);
	for (size_t i = 0; i < t->ncols; i++) {
		const char *h = t->headers[i];
		if (strncmp(h, stem, n) || (h[n] && h[n] != '('))
			continue;
		int scale = def;
		if (strstr(h + n, "(ms)"))
			scale = 6;
		else if (strstr(h + n, "(microsecond)") || strstr(h + n, "(us)"))
			scale = 3;
		return (struct serving_col){(int)i, scale};
	}
	return (struct serving_col){-1, def};
}

static const char *serving_cell(const struct csv_cells *c, struct serving_col col)
{
	return col.at >= 0 && (size_t)col.at < c->n ? c->cells[col.at] : NULL;
}

/* A duration in the column's unit, exact; SERVING_NONE_NS when missing or unreadable. */
static int64_t serving_dur(const struct csv_cells *c, struct serving_col col)
{
	const char *s = serving_cell(c, col);
	int64_t v;
	if (!s || num_scaled_int(s, strlen(s), col.scale, &v, NULL) != NUM_OK)
		return SERVING_NONE_NS;
	return v;
}

/* An epoch time: its unit is what its size says (1.7e12 is ms, 1.7e15 µs, 1.7e18 ns since
 * 1970: one exporter names µs columns "(ms)"), else the column's. */
static int64_t serving_epoch(const struct csv_cells *c, struct serving_col col)
{
	const char *s = serving_cell(c, col);
	double d;
	if (!s || num_double(s, strlen(s), &d) != NUM_OK)
		return SERVING_NONE_NS;
	int scale = d > 1e17 ? 0 : d > 1e14 ? 3 : d > 1e11 ? 6 : col.scale;
	int64_t v;
	if (num_scaled_int(s, strlen(s), scale, &v, NULL) != NUM_OK)
		return SERVING_NONE_NS;
	return v;
}

static int64_t serving_int(const struct csv_cells *c, struct serving_col col)
{
	const char *s = serving_cell(c, col);
	double d;
	if (!s || num_double(s, strlen(s), &d) != NUM_OK || d < 0 || d > 1e15)
		return -1;
	return (int64_t)d;
}

/* A batch's size: past int32 it is no batch size, and its cast to .size would wrap (4294967299
 * read as 3): not given, -1. */
static int32_t serving_size(const struct csv_cells *c, struct serving_col col)
{
	int64_t v = serving_int(c, col);
	return v <= INT32_MAX ? (int32_t)v : -1;
}

static double serving_num(const struct csv_cells *c, struct serving_col col)
{
	const char *s = serving_cell(c, col);
	double d;
	return s && num_double(s, strlen(s), &d) == NUM_OK ? d : NAN;
}

static enum serving_batch_type serving_type_of(const char *s)
{
	if (!s)
		return SBT_UNKNOWN;
	bool p = strcasestr(s, "prefill") != NULL, d = strcasestr(s, "decode") != NULL;
	return p && d ? SBT_MIXED : p ? SBT_PREFILL : d ? SBT_DECODE : SBT_UNKNOWN;
}

static bool serving_exec_name(const char *s)
{
	return s && (!strcmp(s, "modelExec") || !strcmp(s, "modelRunnerExec") || !strcmp(s, "Execute") ||
		     !strcmp(s, "specDecoding"));
}

static void serving_span(struct serving *sv, int64_t a, int64_t b)
{
	if (a != SERVING_NONE_NS && (sv->first_ns == SERVING_NONE_NS || a < sv->first_ns))
		sv->first_ns = a;
	if (b != SERVING_NONE_NS && (sv->last_end_ns == SERVING_NONE_NS || b > sv->last_end_ns))
		sv->last_end_ns = b;
}

/* The warnings and errors of scratch into dl (scratch is freed). */
static void serving_keep_warnings(struct diag_list *dl, struct diag_list *scratch)
{
	for (size_t i = 0; i < scratch->n; i++)
		if (scratch->items[i].level >= DIAG_WARN)
			diag_add(dl, scratch->items[i].level, scratch->items[i].file, scratch->items[i].line,
				 scratch->items[i].offset, "%s", scratch->items[i].msg);
	diag_free(scratch);
}

/* Loads dir/name when it is there: NULL, quietly, when it is not. */
static struct csv_table *serving_table(struct serving *sv, const char *dir, const char *name, struct diag_list *dl)
{
	if (!serving_is_file(dir, name))
		return NULL;
	char *p = serving_join(dir, name);
	if (sv->n_files < sizeof sv->files / sizeof *sv->files)
		sv->files[sv->n_files++] = xstrdup(p);
	/* the tables' own remarks (columns no torch_npu table has) are not the user's concern
	 * here: their warnings and errors are (rows with the wrong number of cells ...) */
	struct diag_list scratch;
	diag_init(&scratch);
	struct csv_table *t = csvt_load(p, &scratch);
	serving_keep_warnings(dl, &scratch);
	free(p);
	return t;
}

/* Each row's cells, through fn; rows that do not read are skipped (csvt_row_cells says
 * why). */
static void serving_rows(struct serving *sv, const struct csv_table *t,
			 void (*fn)(struct serving *sv, const struct csv_table *t, const struct csv_cells *c, size_t row))
{
	for (size_t r = 0; r < t->nrows; r++) {
		struct csv_cells c = {0};
		if (csvt_row_cells(t, r, &c) == 0)
			fn(sv, t, &c, r);
		csvt_cells_free(&c);
	}
}

static void serving_request_row(struct serving *sv, const struct csv_table *t, const struct csv_cells *c, size_t row)
{
	int def = sv->gen == SERVING_CANN81 ? 3 : 6;
	struct serving_col start = serving_col(t, "start_time", def);
	if (start.at < 0)
		start = serving_col(t, "start_time_httpReq", def);
	struct serving_request q = {
		.start_ns = serving_epoch(c, start),
		.exec_ns = serving_dur(c, serving_col(t, "execution_time", def)),
		.queue_ns = serving_dur(c, serving_col(t, "queue_wait_time", def)),
		.ttft_ns = serving_dur(c, serving_col(t, "first_token_latency", def)),
		.recv_tokens = serving_int(c, serving_col(t, "recv_token_size", def)),
		.reply_tokens = serving_int(c, serving_col(t, "reply_token_size", def)),
		.line = csvt_line(t, row),
	};
	xgrow(&sv->req, &sv->cap_req, sv->n_req + 1, sizeof *sv->req);
	sv->req[sv->n_req++] = q;
	serving_span(sv, q.start_ns,
		     q.start_ns != SERVING_NONE_NS && q.exec_ns != SERVING_NONE_NS ? q.start_ns + q.exec_ns
										 : SERVING_NONE_NS);
}

static void serving_batch_row(struct serving *sv, const struct csv_table *t, const struct csv_cells *c, size_t row)
{
	(void)row;
	int def = sv->gen == SERVING_CANN81 ? 3 : 6;
	struct serving_col name = serving_col(t, "name", def);
	const char *nm = serving_cell(c, name);
	struct serving_batch b = {
		.start_ns = serving_epoch(c, serving_col(t, "start_time", def)),
		.end_ns = serving_epoch(c, serving_col(t, "end_time", def)),
		.size = serving_size(c, serving_col(t, "batch_size", def)),
		.type = (uint8_t)serving_type_of(serving_cell(c, serving_col(t, "batch_type", def))),
		.exec = serving_exec_name(nm),
	};
	if (b.end_ns == SERVING_NONE_NS && b.start_ns != SERVING_NONE_NS) {
		int64_t d = serving_dur(c, serving_col(t, "during_time", def));
		b.end_ns = d != SERVING_NONE_NS ? b.start_ns + d : SERVING_NONE_NS;
	}
	xgrow(&sv->batch, &sv->cap_batch, sv->n_batch + 1, sizeof *sv->batch);
	sv->batch[sv->n_batch++] = b;
	serving_span(sv, b.start_ns, b.end_ns);
}

static void serving_forward_row(struct serving *sv, const struct csv_table *t, const struct csv_cells *c, size_t row)
{
	(void)row;
	struct serving_forward f = {
		.start_ns = serving_epoch(c, serving_col(t, "start_time", 6)),
		.end_ns = serving_epoch(c, serving_col(t, "end_time", 6)),
		.bubble_ns = serving_dur(c, serving_col(t, "bubble_time", 6)),
		.size = serving_size(c, serving_col(t, "batch_size", 6)),
		.type = (uint8_t)serving_type_of(serving_cell(c, serving_col(t, "batch_type", 6))),
	};
	if (f.end_ns == SERVING_NONE_NS && f.start_ns != SERVING_NONE_NS) {
		int64_t d = serving_dur(c, serving_col(t, "during_time", 6));
		f.end_ns = d != SERVING_NONE_NS ? f.start_ns + d : SERVING_NONE_NS;
	}
	xgrow(&sv->fwd, &sv->cap_fwd, sv->n_fwd + 1, sizeof *sv->fwd);
	sv->fwd[sv->n_fwd++] = f;
	serving_span(sv, f.start_ns, f.end_ns);
}

static void serving_kv_row(struct serving *sv, const struct csv_table *t, const struct csv_cells *c, size_t row)
{
	(void)row;
	struct serving_sample s = {.t_ns = serving_epoch(c, serving_col(t, "start_time", 6))};
	s.v[0] = serving_num(c, serving_col(t, "kvcache_usage_rate", 6));
	if (s.t_ns == SERVING_NONE_NS || isnan(s.v[0]))
		return;
	xgrow(&sv->kv, &sv->cap_kv, sv->n_kv + 1, sizeof *sv->kv);
	sv->kv[sv->n_kv++] = s;
}

static void serving_queue_row(struct serving *sv, const struct csv_table *t, const struct csv_cells *c, size_t row)
{
	(void)row;
	struct serving_sample s = {.t_ns = serving_epoch(c, serving_col(t, "timestamp", 6))};
	s.v[0] = serving_num(c, serving_col(t, "waiting", 6));
	s.v[1] = serving_num(c, serving_col(t, "running", 6));
	if (s.t_ns == SERVING_NONE_NS || isnan(s.v[0]) || isnan(s.v[1]))
		return;
	xgrow(&sv->queue, &sv->cap_queue, sv->n_queue + 1, sizeof *sv->queue);
	sv->queue[sv->n_queue++] = s;
}

static void serving_read_tables(const char *dir, struct serving *sv, struct diag_list *dl)
{
	static const struct {
		const char *name;
		size_t have; /* offsetof the flag it sets, or 0 */
		void (*fn)(struct serving *, const struct csv_table *, const struct csv_cells *, size_t);
	} tables[] = {
		{"request.csv", offsetof(struct serving, have_requests), serving_request_row},
		{"batch.csv", offsetof(struct serving, have_batches), serving_batch_row},
		{"forward.csv", offsetof(struct serving, have_forwards), serving_forward_row},
		{"kvcache.csv", 0, serving_kv_row},
		{"request_status.csv", 0, serving_queue_row},
	};
	for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
		struct csv_table *t = serving_table(sv, dir, tables[i].name, dl);
		if (!t)
			continue;
		if (tables[i].have)
			*(bool *)((char *)sv + tables[i].have) = true;
		serving_rows(sv, t, tables[i].fn);
		csvt_free(t);
	}
}

/* ---- the 2024 dump: spans of chrome_tracing.json -------------------------------------- */

/* The value of "key: value" in a lines buffer of trace_event_args, copied to buf. */
static const char *serving_arg(const char *lines, const char *key, char *buf, size_t size)
{
	size_t n = strlen(key);
	for (const char *p = lines; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len > n + 1 && !strncmp(p, key, n) && p[n] == ':' && p[n + 1] == ' ') {
			snprintf(buf, size, "%.*s", (int)(len - n - 2), p + n + 2);
			return buf;
		}
		p = e ? e + 1 : NULL;
	}
	return NULL;
}

/* How a reader finds a value in a span's args: "key: value" lines (serving_arg) or a JSON
 * object (serving_json_arg), copied to buf; NULL when absent (args may be NULL). */
typedef const char *(*serving_arg_fn)(const char *args, const char *key, char *buf, size_t size);

enum serving_span_kind { SSK_OTHER, SSK_FORMED, SSK_EXEC };

/* A span of a service trace or of profiler.db by its name: a request (httpReq) is counted
 * here; a batch formed or executed is the caller's to add with its args. */
static enum serving_span_kind serving_take_span(struct serving *sv, const char *nm, int64_t a, int64_t b)
{
	if (!strcmp(nm, "httpReq")) {
		sv->http_spans++;
		serving_span(sv, a, b);
		return SSK_OTHER;
	}
	if (!strcmp(nm, "BatchSchedule") || !strcmp(nm, "batchFrameworkProcessing"))
		return SSK_FORMED;
	return serving_exec_name(nm) ? SSK_EXEC : SSK_OTHER;
}

/* A batch span (formed, or executed when exec), its type and size from its args. */
static void serving_add_batch(struct serving *sv, int64_t a, int64_t b, bool exec, serving_arg_fn get,
			      const char *args)
{
	/* batchType and batchSize in the 2024 dump, batch_type and batch_size since */
	char tbuf[64], sbuf_[32];
	const char *type = get(args, "batch_type", tbuf, sizeof tbuf);
	if (!type)
		type = get(args, "batchType", tbuf, sizeof tbuf);
	const char *size = get(args, "batch_size", sbuf_, sizeof sbuf_);
	if (!size)
		size = get(args, "batchSize", sbuf_, sizeof sbuf_);
	double d;
	struct serving_batch bt = {
		.start_ns = a,
		.end_ns = b,
		.size = size && num_double(size, strlen(size), &d) == NUM_OK && d >= 0 && d < 1e9 ? (int32_t)d : -1,
		.type = (uint8_t)serving_type_of(type),
		.exec = exec,
	};
	xgrow(&sv->batch, &sv->cap_batch, sv->n_batch + 1, sizeof *sv->batch);
	sv->batch[sv->n_batch++] = bt;
	serving_span(sv, a, b);
}

static void serving_read_spans(const char *path, struct serving *sv, struct diag_list *dl)
{
	struct rank_store rs;
	store_init(&rs);
	/* the service trace's own remarks (lanes without process names ...) are not the user's
	 * concern here: its warnings and errors are */
	struct diag_list scratch;
	diag_init(&scratch);
	int rc = trace_load(&rs, path, NULL, &scratch);
	serving_keep_warnings(dl, &scratch);
	if (rc != 0) {
		store_free(&rs);
		return;
	}
	struct sbuf args = SBUF_INIT;
	for (size_t ev = 0; ev < rs.n_ev; ev++) {
		int64_t a = store_ts(&rs, ev), b = a + store_dur(&rs, ev);
		enum serving_span_kind k = serving_take_span(sv, store_ev_name(&rs, ev), a, b);
		if (k == SSK_OTHER)
			continue;
		serving_add_batch(sv, a, b, k == SSK_EXEC, serving_arg,
				  trace_event_args(&rs, ev, &args) > 0 ? sbuf_str(&args) : NULL);
	}
	sv->have_batches = sv->n_batch > 0;
	sbuf_free(&args);
	store_free(&rs);
}

/* ---- profiler.db: its slice table holds the spans of chrome_tracing.json ------------- */

/* The value of "key" in a flat JSON object's text (a string's body, or a bare number),
 * copied to buf; NULL when absent or not a plain value. */
static const char *serving_json_arg(const char *json, const char *key, char *buf, size_t size)
{
	size_t n = strlen(key);
	for (const char *p = json ? strchr(json, '"') : NULL; p; p = strchr(p + 1, '"')) {
		if (strncmp(p + 1, key, n) || p[n + 1] != '"')
			continue;
		const char *v = p + n + 2;
		v += strspn(v, " \t\r\n");
		if (*v != ':')
			continue;
		v += 1 + strspn(v + 1, " \t\r\n");
		size_t len = *v == '"' ? strcspn(v + 1, "\"\\") : strcspn(v, ",} \t\r\n");
		if (*v == '"' && v[1 + len] != '"') /* an escaped string: not a batch type or size */
			return NULL;
		snprintf(buf, size, "%.*s", (int)len, *v == '"' ? v + 1 : v);
		return buf;
	}
	return NULL;
}

/* A column of slice by name, or -1. */
static int serving_db_col(sqlite3_stmt *info, const char *name)
{
	sqlite3_reset(info);
	for (int i = 0; sqlite3_step(info) == SQLITE_ROW; i++) {
		const unsigned char *c = sqlite3_column_text(info, 1);
		if (c && !strcasecmp((const char *)c, name))
			return i;
	}
	return -1;
}

/* The spans of profiler.db's slice table (name, timestamp and duration in ns, args a JSON
 * object), read-only and immutable, the columns found by name: what chrome_tracing.json
 * holds, for an output that kept only the database. */
static void serving_read_db(const char *path, struct serving *sv, struct diag_list *dl)
{
	sqlite3 *h = db_open_readonly(path, dl);
	if (!h)
		return;
	sqlite3_stmt *info = NULL, *st = NULL;
	if (!db_has_table(h, "slice") ||
	    sqlite3_prepare_v2(h, "SELECT * FROM pragma_table_info('slice')", -1, &info, NULL) != SQLITE_OK) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("no slice table: no spans read from it"));
		sqlite3_finalize(info);
		sqlite3_close(h);
		return;
	}
	const char *want[] = {"name", "timestamp", "duration", "args"};
	int col[4];
	for (int k = 0; k < 4; k++)
		col[k] = serving_db_col(info, want[k]);
	sqlite3_finalize(info);
	if (col[0] < 0 || col[1] < 0 || col[2] < 0) {
		diag_add(dl, DIAG_WARN, path, 0, -1,
			 _("its slice table lacks a name, timestamp or duration column: no spans read from it"));
		sqlite3_close(h);
		return;
	}
	char sql[160];
	snprintf(sql, sizeof sql, "SELECT name, timestamp, duration, %s FROM slice ORDER BY timestamp",
		 col[3] >= 0 ? "args" : "NULL");
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("its slice table cannot be read (%s)"), sqlite3_errmsg(h));
		sqlite3_close(h);
		return;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *nm = (const char *)sqlite3_column_text(st, 0);
		if (!nm || sqlite3_column_type(st, 1) != SQLITE_INTEGER || sqlite3_column_type(st, 2) != SQLITE_INTEGER)
			continue;
		int64_t a = sqlite3_column_int64(st, 1), d = sqlite3_column_int64(st, 2);
		if (d < 0 || a > INT64_MAX - d)
			continue;
		enum serving_span_kind k = serving_take_span(sv, nm, a, a + d);
		if (k != SSK_OTHER)
			serving_add_batch(sv, a, a + d, k == SSK_EXEC, serving_json_arg,
					  (const char *)sqlite3_column_text(st, 3));
	}
	sv->have_batches = sv->n_batch > 0;
	sqlite3_finalize(st);
	sqlite3_close(h);
}

int serving_read(const char *path, struct serving *sv, struct diag_list *dl)
{
	memset(sv, 0, sizeof *sv);
	sv->first_ns = sv->last_end_ns = SERVING_NONE_NS;
	sv->gen = serving_probe(path);
	struct stat st;
	bool file = stat(path, &st) == 0 && S_ISREG(st.st_mode);
	const char *base = strrchr(path, '/');
	sv->dir = file ? (base ? xstrndup(path, (size_t)(base - path)) : xstrdup(".")) : xstrdup(path);
	switch (sv->gen) {
	case SERVING_NONE:
		return -1;
	case SERVING_RAW:
		sv->why_raw = xasprintf(_("raw MS Service Profiler data (ms_service_*.db), never parsed: run "
					  "msserviceprofiler parse --input-path %s --output-path OUT, then open OUT"),
					sv->dir);
		diag_add(dl, DIAG_ERROR, sv->dir, 0, -1, "%s", sv->why_raw);
		return -1;
	case SERVING_CANN81:
	case SERVING_CURRENT:
		serving_read_tables(sv->dir, sv, dl);
		/* no table: a current chrome_tracing.json alone, read as its spans */
		if (sv->n_req || sv->n_batch || sv->n_fwd)
			break;
		/* fall through */
	case SERVING_2024: {
		char *trace = serving_join(sv->dir, "chrome_tracing.json");
		struct stat ts;
		if (stat(trace, &ts) == 0 && S_ISREG(ts.st_mode)) {
			serving_read_spans(trace, sv, dl);
			sv->files[sv->n_files++] = trace;
			break;
		}
		free(trace);
		/* no trace file: profiler.db's slices, the same spans (current releases) */
		char *db = serving_join(sv->dir, "profiler.db");
		if (sv->gen == SERVING_CURRENT && stat(db, &ts) == 0 && S_ISREG(ts.st_mode)) {
			serving_read_db(db, sv, dl);
			sv->files[sv->n_files++] = db;
		} else {
			free(db);
		}
		break;
	}
	}
	return sv->n_req || sv->n_batch || sv->n_fwd || sv->http_spans ? 0 : -1;
}

void serving_free(struct serving *sv)
{
	if (!sv)
		return;
	free(sv->dir);
	free(sv->why_raw);
	free(sv->req);
	free(sv->batch);
	free(sv->fwd);
	free(sv->kv);
	free(sv->queue);
	for (size_t i = 0; i < sv->n_files; i++)
		free(sv->files[i]);
	memset(sv, 0, sizeof *sv);
}
