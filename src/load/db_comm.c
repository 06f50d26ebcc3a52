/* SPDX-License-Identifier: MIT */
/* The communication tables of analysis.db (CommAnalyzer*) and of cluster_analysis.db
 * (ClusterCommAnalyzer*, ClusterCommunication*) read into communication records through
 * comm_json's record building: the records the text export's communication*.json of the
 * same rows gives. The text that file would hold is written beside them, for drill-down:
 * the records' offsets point into it, and the Comm view shows their entries from it. */
#include "db_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "i18n.h"
#include "num.h"
#include "xalloc.h"
#include "xsort.h"

/* One communication file made from a Db's table: its text and its records (b, from when
 * the table's query is ready: a table that cannot be read makes no file). The messages
 * about its rows (its reader's) go to rows, after those about the table. */
struct cw {
	struct sbuf js;
	struct comm_json_build *b;
	struct comm_data *cd;
	char *name; /* "<path>:<table>" */
	int owner;
	struct diag_list rows;
};

static void cw_init(struct cw *w, struct comm_data *cd, const char *path, const char *table, int owner)
{
	*w = (struct cw){.js = SBUF_INIT, .cd = cd, .name = xasprintf("%s:%s", path, table), .owner = owner};
	diag_init(&w->rows);
}

static bool cw_begin(struct cw *w)
{
	w->b = comm_json_build_begin(w->cd, w->name, w->owner, &w->rows);
	return w->b != NULL;
}

/* The file complete (cd keeps its text), its messages after dl's; 0, or -1 when no file was made. */
static int cw_end(struct cw *w, struct diag_list *dl)
{
	int r = -1;
	if (w->b) {
		size_t len = w->js.len;
		r = comm_json_build_end(w->b, sbuf_detach(&w->js), len);
	}
	sbuf_free(&w->js);
	free(w->name);
	diag_append(dl, &w->rows);
	diag_free(&w->rows);
	return r;
}

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
		const char *t = db_col_text(st, c);
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

/* The value a reader of the text takes from the number written at js[at..] (its token at
 * off: a key's opening quote): an integer at 10^scale into *ns, else a double into *d.
 * False, the problem named as that reader names it, when it is no number: a value the
 * text export writes from a double is read back through its shortest decimal text, as
 * exactly as from the text export's file. */
static bool num_take(struct cw *w, size_t off, size_t at, const char *what, int scale, int64_t *ns, double *d)
{
	const char *s = w->js.buf + at;
	size_t n = w->js.len - at;
	enum num_status st = ns ? num_scaled_int(s, n, scale, ns, NULL) : num_double(s, n, d);
	if (st == NUM_OK)
		return true;
	if (st != NUM_MISSING)
		comm_json_build_problem(w->b, (int64_t)off, true, _("%s: not a number (%.*s); this value is skipped"),
					what, (int)(n > 40 ? 40 : n), s);
	return false;
}

/* Column c as the text export's number, taken back as above when take (a record wants it). */
static bool num_col(struct cw *w, sqlite3_stmt *st, int c, bool take, const char *what, int scale, int64_t *ns,
		    double *d)
{
	size_t at = w->js.len;
	json_num_col(&w->js, st, c);
	return take && num_take(w, at, at, what, scale, ns, d);
}

static void json_key(struct sbuf *js, const char *k)
{
	db_json_str(js, k);
	sbuf_addc(js, ':');
}

/* Opens and closes the step and type objects as the rows' (step, type) change: rows come
 * ordered by the first appearance of their step, then of their type. */
struct nest {
	char step[256], type[64];
	bool open, first_op;
	size_t type_off;        /* the open type's key */
	enum comm_step_as as;   /* how the open step is read */
};

/* Two levels of objects, {"outer": {"inner": {...}}}: closes what changed (when open) and
 * opens the new ones; *outer_off and *inner_off: where their keys start. */
static void nest_emit(struct sbuf *js, bool open, bool new_outer, bool new_inner, const char *outer,
		      const char *inner, size_t *outer_off, size_t *inner_off)
{
	if (open && new_inner)
		sbuf_addc(js, '}');
	if (open && new_outer)
		sbuf_addc(js, '}');
	if (new_outer) {
		sbuf_adds(js, open ? "," : "{");
		*outer_off = js->len;
		json_key(js, outer);
		sbuf_addc(js, '{');
	} else if (new_inner) {
		sbuf_addc(js, ',');
	}
	if (new_inner) {
		*inner_off = js->len;
		json_key(js, inner);
		sbuf_addc(js, '{');
	}
}

/* A row of (step, type) into the nesting; a new step is read as the step's first type
 * says (comm_json_build_step), and the row's entry begins under it unless it is skipped. */
static void nest_row(struct cw *w, struct nest *n, const char *step, const char *type, const char *key)
{
	bool new_step = !n->open || strcmp(n->step, step), new_type = new_step || strcmp(n->type, type);
	size_t step_off = 0;
	nest_emit(&w->js, n->open, new_step, new_type, step, type, &step_off, &n->type_off);
	if (new_step)
		n->as = comm_json_build_step(w->b, step, type, (int64_t)step_off);
	if (new_type)
		n->first_op = true;
	snprintf(n->step, sizeof n->step, "%s", step);
	snprintf(n->type, sizeof n->type, "%s", type);
	n->open = true;
	if (!n->first_op)
		sbuf_addc(&w->js, ',');
	n->first_op = false;
	if (n->as == COMM_STEP_RANK)
		comm_json_build_entry(w->b, NULL, step, type, (int64_t)n->type_off, key);
	else if (n->as == COMM_STEP_GROUPS)
		comm_json_build_entry(w->b, step, type, NULL, -1, key);
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

/* A ratio with four decimals, as the text export writes Wait Time Ratio, into *out as its
 * reader takes it (when out). */
static void ratio_put(struct cw *w, double part, double rest, const char *what, double *out)
{
	double r = part + rest > 0 ? part / (part + rest) : 0, v;
	size_t at = w->js.len;
	sbuf_addf(&w->js, "%.4f", r);
	if (out && num_take(w, at, at, what, -1, NULL, &v))
		*out = v;
}

/* One bandwidth row (columns from base: transport, transit size, time, bandwidth, large
 * packet ratio, package size, count, total duration) into "Communication Bandwidth Info":
 * a transport's object opens when the transport changes; each row with packets adds a
 * "Size Distribution" entry. op: whether the rows have an op to fill. */
struct bw_state {
	char transport[64];
	bool any, dist_open;
	struct comm_bw *bw; /* the open transport's record; NULL without an op */
};

static void bw_transport(struct cw *w, sqlite3_stmt *st, int base, struct bw_state *b, bool op)
{
	struct sbuf *js = &w->js;
	const char *tt = db_col_text(st, base);
	if (b->any)
		sbuf_adds(js, "}},");
	snprintf(b->transport, sizeof b->transport, "%s", tt);
	size_t koff = js->len;
	json_key(js, tt);
	struct comm_bw *bw = b->bw = op ? comm_json_build_transport(w->b, tt, (int64_t)koff) : NULL;
	double d;
	sbuf_adds(js, "{\"Transit Size(MB)\":");
	if (num_col(w, st, base + 1, bw, "Transit Size", -1, NULL, &d))
		bw->size_mb = d;
	sbuf_adds(js, ",\"Transit Time(ms)\":");
	if (bw && !num_col(w, st, base + 2, true, "Transit Time", 6, &bw->time_ns, NULL))
		bw->time_ns = -1;
	else if (!bw)
		json_num_col(js, st, base + 2);
	sbuf_adds(js, ",\"Bandwidth(GB/s)\":");
	if (num_col(w, st, base + 3, bw, "Bandwidth(GB/s)", -1, NULL, &d))
		bw->bw_gbps = d;
	sbuf_adds(js, ",\"Large Packet Ratio\":");
	if (num_col(w, st, base + 4, bw, "Large Packet Ratio", -1, NULL, &d))
		bw->large_ratio = d;
	sbuf_adds(js, ",\"Size Distribution\":{");
	b->dist_open = false;
	b->any = true;
}

/* A "Size Distribution" entry "<size MB>": [count, ms]: a bin when all three read back
 * (the time may not: -1), as the text's reader takes them in that order. */
static void bw_bin(struct cw *w, sqlite3_stmt *st, int base, struct bw_state *b)
{
	struct sbuf *js = &w->js;
	if (b->dist_open)
		sbuf_addc(js, ',');
	size_t q = js->len;
	sbuf_addc(js, '"');
	json_num_col(js, st, base + 5);
	struct comm_bin bin = {.time_ns = -1};
	bool size_ok = b->bw && num_take(w, q, q + 1, "Size Distribution size (MB)", -1, NULL, &bin.size_mb);
	sbuf_adds(js, "\":[");
	size_t at = js->len;
	json_num_col(js, st, base + 6);
	bool count_ok = size_ok && num_take(w, at, at, "Size Distribution count", -1, NULL, &bin.count);
	sbuf_addc(js, ',');
	at = js->len;
	json_num_col(js, st, base + 7);
	if (count_ok && !num_take(w, at, at, "Size Distribution time (ms)", 6, &bin.time_ns, NULL))
		bin.time_ns = -1;
	sbuf_addc(js, ']');
	if (count_ok)
		comm_json_build_bin(w->b, &bin);
	b->dist_open = true;
}

static void bw_row(struct cw *w, sqlite3_stmt *st, int base, struct bw_state *b, bool op)
{
	if (!b->any || strcmp(db_col_text(st, base), b->transport))
		bw_transport(w, st, base, b, op);
	/* a row without packets says only that the transport was there */
	if (sqlite3_column_double(st, base + 6) > 0)
		bw_bin(w, st, base, b);
}

/* A link "<src>-<dst>": {...} from columns 4 to 10 (src, dst, transport, transit size,
 * time, bandwidth, op name) of a matrix row, and its record when the entry is read (rec). */
static void link_row(struct cw *w, struct sbuf *key, sqlite3_stmt *st, bool rec)
{
	struct sbuf *js = &w->js;
	sbuf_reset(key);
	sbuf_addf(key, "%s-%s", db_col_text(st, 4), db_col_text(st, 5));
	size_t koff = js->len;
	json_key(js, sbuf_str(key));
	size_t off = js->len;
	struct comm_link *l = rec ? comm_json_build_link(w->b, sbuf_str(key), (int64_t)koff, (int64_t)off) : NULL;
	sbuf_adds(js, "{\"Transport Type\":");
	size_t toff = js->len;
	db_json_str(js, db_col_text(st, 6));
	if (l) /* as written, between the quotes */
		comm_json_build_link_type(w->b, js->buf + toff + 1, js->len - toff - 2, (int64_t)toff);
	double d;
	sbuf_adds(js, ",\"Transit Size(MB)\":");
	if (num_col(w, st, 7, l, "Transit Size", -1, NULL, &d))
		l->size_mb = d;
	sbuf_adds(js, ",\"Transit Time(ms)\":");
	if (l && !num_col(w, st, 8, true, "Transit Time", 6, &l->time_ns, NULL))
		l->time_ns = -1;
	else if (!l)
		json_num_col(js, st, 8);
	sbuf_adds(js, ",\"Bandwidth(GB/s)\":");
	if (num_col(w, st, 9, l, "Bandwidth(GB/s)", -1, NULL, &d))
		l->bw_gbps = d;
	sbuf_adds(js, ",\"Op Name\":");
	db_json_str(js, db_col_text(st, 10));
	sbuf_addc(js, '}');
	if (l)
		comm_json_build_link_end(w->b, (uint32_t)(js->len - off), db_col_text(st, 10));
}

/* {"Communication Time Info":{ and its six times from columns base on (start us, elapse,
 * transit, wait, synchronization, idle ms), into op when there is one; the object is left
 * open. */
static void time_info(struct cw *w, sqlite3_stmt *st, int base, struct comm_op *op)
{
	sbuf_adds(&w->js, "{\"Communication Time Info\":{");
	static const char *const names[] = {"Start Timestamp(us)", "Elapse Time(ms)", "Transit Time(ms)",
					    "Wait Time(ms)", "Synchronization Time(ms)", "Idle Time(ms)"};
	for (int i = 0; i < 6; i++) {
		if (i)
			sbuf_addc(&w->js, ',');
		json_key(&w->js, names[i]);
		int64_t ns;
		if (!num_col(w, st, base + i, op, names[i], i ? 6 : 3, &ns, NULL))
			continue;
		if (!i) {
			op->start_ns = ns;
			op->has_start = true;
		} else {
			/* the times after the start in enum comm_time's order */
			op->t[i - 1] = ns;
			op->has |= (uint8_t)(1u << (i - 1));
		}
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

static bool comm_time_read(struct cw *w, sqlite3 *h, const char *path, struct diag_list *dl)
{
	sqlite3_stmt *st = NULL, *bw = NULL;
	if (sqlite3_prepare_v2(h, comm_time_sql, -1, &st, NULL) != SQLITE_OK) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table CommAnalyzerTime cannot be read: %s"), sqlite3_errmsg(h));
		return false;
	}
	if (!cw_begin(w)) {
		sqlite3_finalize(st);
		return false;
	}
	bool have_bw = db_has_table(h, "CommAnalyzerBandwidth") &&
		       sqlite3_prepare_v2(h, comm_bw_sql, -1, &bw, NULL) == SQLITE_OK;
	struct bw_index bix = {.keys = SBUF_INIT};
	if (have_bw)
		bw_index_load(&bix, h);
	struct sbuf *js = &w->js, key = SBUF_INIT, want = SBUF_INIT;
	struct nest n = {0};
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sbuf_reset(&key);
		sbuf_addf(&key, "%s@%s", db_col_text(st, 2), db_col_text(st, 3));
		nest_row(w, &n, db_col_text(st, 0), db_col_text(st, 1), sbuf_str(&key));
		json_key(js, sbuf_str(&key));
		size_t off = js->len;
		struct comm_op *op = n.as != COMM_STEP_SKIP ? comm_json_build_op(w->b, NULL, -1, (int64_t)off) : NULL;
		time_info(w, st, 4, op);
		double transit = sqlite3_column_double(st, 6), wait = sqlite3_column_double(st, 7),
		       sync = sqlite3_column_double(st, 8);
		sbuf_adds(js, ",\"Wait Time Ratio\":");
		ratio_put(w, wait, transit, "Wait Time Ratio", op ? &op->wait_ratio : NULL);
		sbuf_adds(js, ",\"Synchronization Time Ratio\":");
		ratio_put(w, sync, transit, "Synchronization Time Ratio", op ? &op->sync_ratio : NULL);
		sbuf_adds(js, "},\"Communication Bandwidth Info\":{");
		if (have_bw) {
			sbuf_reset(&want);
			bw_key_of(&want, st);
			struct bw_state b = {"", false, false, NULL};
			for (size_t i = bw_index_find(&bix, want.buf, want.len);
			     i < bix.n && !bw_key_cmp(bix.keys.buf + bix.rows[i].at, bix.rows[i].len, want.buf, want.len);
			     i++) {
				sqlite3_reset(bw);
				sqlite3_bind_int64(bw, 1, bix.rows[i].rowid);
				if (sqlite3_step(bw) == SQLITE_ROW)
					bw_row(w, bw, 0, &b, op != NULL);
			}
			if (b.any)
				sbuf_adds(js, "}}");
		}
		sbuf_adds(js, "}}");
		if (op)
			comm_json_build_op_end(w->b, (uint32_t)(js->len - off));
	}
	if (rc != SQLITE_DONE)
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table CommAnalyzerTime: %s; the rows before it were read"),
			 sqlite3_errmsg(h));
	nest_close(js, &n);
	sqlite3_finalize(st);
	sqlite3_finalize(bw);
	bw_index_free(&bix);
	sbuf_free(&want);
	sbuf_free(&key);
	return true;
}

static bool comm_matrix_read(struct cw *w, sqlite3 *h, const char *path, struct diag_list *dl)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(h, comm_matrix_sql, -1, &st, NULL) != SQLITE_OK) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table CommAnalyzerMatrix cannot be read: %s"), sqlite3_errmsg(h));
		return false;
	}
	if (!cw_begin(w)) {
		sqlite3_finalize(st);
		return false;
	}
	struct sbuf *js = &w->js, key = SBUF_INIT;
	struct nest n = {0};
	char op[512] = "";
	bool op_open = false;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sbuf_reset(&key);
		sbuf_addf(&key, "%s@%s", db_col_text(st, 2), db_col_text(st, 3));
		bool same = op_open && n.open && !strcmp(n.step, db_col_text(st, 0)) &&
			    !strcmp(n.type, db_col_text(st, 1)) && !strcmp(op, sbuf_str(&key));
		if (same) {
			sbuf_addc(js, ',');
		} else {
			if (op_open)
				sbuf_addc(js, '}');
			nest_row(w, &n, db_col_text(st, 0), db_col_text(st, 1), sbuf_str(&key));
			json_key(js, sbuf_str(&key));
			sbuf_addc(js, '{');
			snprintf(op, sizeof op, "%s", sbuf_str(&key));
			op_open = true;
		}
		link_row(w, &key, st, n.as != COMM_STEP_SKIP);
	}
	if (rc != SQLITE_DONE)
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table CommAnalyzerMatrix: %s; the rows before it were read"),
			 sqlite3_errmsg(h));
	if (op_open)
		sbuf_addc(js, '}');
	nest_close(js, &n);
	sqlite3_finalize(st);
	sbuf_free(&key);
	return true;
}

int db_comm_load(struct comm_data *cd, const char *path, int owner_rank, struct diag_list *dl)
{
	sqlite3 *h = db_open_readonly(path, dl);
	if (!h)
		return -1;
	int n = 0;
	static const char *const tables[2] = {"CommAnalyzerTime", "CommAnalyzerMatrix"};
	for (int i = 0; i < 2; i++) {
		/* an empty table is no communication file: the text export writes none */
		char *any = sqlite3_mprintf("SELECT 1 FROM \"%w\" LIMIT 1", tables[i]);
		sqlite3_stmt *st = NULL;
		bool rows = db_has_table(h, tables[i]) && sqlite3_prepare_v2(h, any, -1, &st, NULL) == SQLITE_OK &&
			    sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
		sqlite3_free(any);
		if (!rows)
			continue;
		struct cw w;
		cw_init(&w, cd, path, tables[i], owner_rank);
		if (i)
			comm_matrix_read(&w, h, path, dl);
		else
			comm_time_read(&w, h, path, dl);
		n += cw_end(&w, dl) == 0;
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
	size_t unused;
	nest_emit(js, n->open, new_grp, new_step, grp, sbuf_str(&sk), &unused, &unused);
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
 * the open one closed and a new one opened (with its group and step as they change). The
 * row's entry begins under the group and step. */
static void cnest_op(struct cw *w, struct cnest *n, const char *grp, const char *step, const char *op)
{
	struct sbuf *js = &w->js, sk = SBUF_INIT;
	step_key(&sk, step);
	bool same = n->op_open && !strcmp(sbuf_str(&n->grp), grp) && !strcmp(sbuf_str(&n->step), sbuf_str(&sk)) &&
		    !strcmp(sbuf_str(&n->op), op);
	sbuf_free(&sk);
	if (same) {
		sbuf_addc(js, ',');
	} else {
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
	comm_json_build_entry(w->b, grp, sbuf_str(&n->step), NULL, -1, op);
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
			c = strcmp(db_col_text(a, i), db_col_text(b, i));
		}
		if (c)
			return c;
	}
	return 0;
}

/* ClusterCommAnalyzerTime (or ClusterCommunicationTime) with its Bandwidth table, merged
 * in one pass over both sorted by (group ranks, step, op, group, rank). */
static bool cluster_time_read(struct cw *w, sqlite3 *h, const char *path, const char *tt, const char *bt,
			      const char *grp, struct diag_list *dl)
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
		return false;
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
	if (!cw_begin(w)) {
		sqlite3_finalize(st);
		sqlite3_finalize(bw);
		return false;
	}
	int brc = bw ? sqlite3_step(bw) : SQLITE_DONE;
	struct sbuf *js = &w->js, key = SBUF_INIT;
	struct cnest n = {SBUF_INIT, SBUF_INIT, SBUF_INIT, false, false, false};
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sbuf_reset(&key);
		sbuf_addf(&key, "%s@%s", db_col_text(st, 2), db_col_text(st, 3));
		cnest_op(w, &n, db_col_text(st, 0), db_col_text(st, 1), sbuf_str(&key));
		sbuf_reset(&key);
		sbuf_addf(&key, "%lld", (long long)sqlite3_column_int64(st, 4));
		size_t koff = js->len;
		json_key(js, sbuf_str(&key));
		size_t off = js->len;
		struct comm_op *op = comm_json_build_op(w->b, sbuf_str(&key), (int64_t)koff, (int64_t)off);
		time_info(w, st, 5, op);
		sbuf_adds(js, "},\"Communication Bandwidth Info\":{");
		while (brc == SQLITE_ROW && ckey_cmp(bw, st) < 0)
			brc = sqlite3_step(bw);
		struct bw_state b = {"", false, false, NULL};
		for (; brc == SQLITE_ROW && ckey_cmp(bw, st) == 0; brc = sqlite3_step(bw))
			bw_row(w, bw, 5, &b, op != NULL);
		if (b.any)
			sbuf_adds(js, "}}");
		sbuf_adds(js, "}}");
		if (op)
			comm_json_build_op_end(w->b, (uint32_t)(js->len - off));
	}
	if (rc != SQLITE_DONE)
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table %s: %s; the rows before it were read"), tt, sqlite3_errmsg(h));
	cnest_close(js, &n);
	sqlite3_finalize(st);
	sqlite3_finalize(bw);
	sbuf_free(&key);
	return true;
}

/* ClusterCommAnalyzerMatrix (or ClusterCommunicationMatrix): links per op. */
static bool cluster_matrix_read(struct cw *w, sqlite3 *h, const char *path, const char *mt, const char *grp,
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
		return false;
	}
	if (!cw_begin(w)) {
		sqlite3_finalize(st);
		return false;
	}
	struct sbuf key = SBUF_INIT;
	struct cnest n = {SBUF_INIT, SBUF_INIT, SBUF_INIT, false, false, false};
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sbuf_reset(&key);
		sbuf_addf(&key, "%s@%s", db_col_text(st, 2), db_col_text(st, 3));
		cnest_op(w, &n, db_col_text(st, 0), db_col_text(st, 1), sbuf_str(&key));
		link_row(w, &key, st, true);
	}
	if (rc != SQLITE_DONE)
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table %s: %s; the rows before it were read"), mt, sqlite3_errmsg(h));
	cnest_close(&w->js, &n);
	sqlite3_finalize(st);
	sbuf_free(&key);
	return true;
}

int db_cluster_comm_load(struct comm_data *cd, const char *path, struct diag_list *dl)
{
	sqlite3 *h = db_open_readonly(path, dl);
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
		const char *const *names = db_has_table(h, full[k]) ? full : db_has_table(h, simple[k]) ? simple : NULL;
		if (!names)
			continue;
		/* the group's ranks where the table gives them, else its name */
		struct db_cols c;
		const char *grp = db_cols_load(h, names[k], &c) && db_cols_has(&c, "rank_set") ? "rank_set" : "group_name";
		db_cols_free(&c);
		struct cw w;
		cw_init(&w, cd, path, names[k], -1);
		if (i)
			cluster_matrix_read(&w, h, path, names[2], grp, dl);
		else
			cluster_time_read(&w, h, path, names[0], db_has_table(h, names[1]) ? names[1] : NULL, grp, dl);
		n += cw_end(&w, dl) == 0;
	}
	sqlite3_close(h);
	return n ? 0 : -1;
}
