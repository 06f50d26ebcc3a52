/* SPDX-License-Identifier: MIT */
/* The communication tables of analysis.db (CommAnalyzer*) and of cluster_analysis.db
 * (ClusterCommAnalyzer*, ClusterCommunication*) as the text export's JSON files. */
#include "db_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "i18n.h"
#include "num.h"
#include "xalloc.h"
#include "xsort.h"

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
	const char *tt = db_col_text(bw, base);
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
	sbuf_addf(key, "%s-%s", db_col_text(st, 4), db_col_text(st, 5));
	json_key(js, sbuf_str(key));
	sbuf_adds(js, "{\"Transport Type\":");
	db_json_str(js, db_col_text(st, 6));
	sbuf_adds(js, ",\"Transit Size(MB)\":");
	json_num_col(js, st, 7);
	sbuf_adds(js, ",\"Transit Time(ms)\":");
	json_num_col(js, st, 8);
	sbuf_adds(js, ",\"Bandwidth(GB/s)\":");
	json_num_col(js, st, 9);
	sbuf_adds(js, ",\"Op Name\":");
	db_json_str(js, db_col_text(st, 10));
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
	bool have_bw = db_has_table(h, "CommAnalyzerBandwidth") &&
		       sqlite3_prepare_v2(h, comm_bw_sql, -1, &bw, NULL) == SQLITE_OK;
	struct bw_index bix = {.keys = SBUF_INIT};
	if (have_bw)
		bw_index_load(&bix, h);
	struct sbuf js = SBUF_INIT, key = SBUF_INIT, want = SBUF_INIT;
	struct nest n = {0};
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		nest_row(&js, &n, db_col_text(st, 0), db_col_text(st, 1));
		sbuf_reset(&key);
		sbuf_addf(&key, "%s@%s", db_col_text(st, 2), db_col_text(st, 3));
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
		sbuf_addf(&key, "%s@%s", db_col_text(st, 2), db_col_text(st, 3));
		bool same = op_open && n.open && !strcmp(n.step, db_col_text(st, 0)) && !strcmp(n.type, db_col_text(st, 1)) &&
			    !strcmp(op, sbuf_str(&key));
		if (same) {
			sbuf_addc(&js, ',');
		} else {
			if (op_open)
				sbuf_addc(&js, '}');
			nest_row(&js, &n, db_col_text(st, 0), db_col_text(st, 1));
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

int db_comm_load(struct comm_data *cd, const char *path, int owner_rank, char **bufs, struct diag_list *dl)
{
	bufs[0] = bufs[1] = NULL;
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
		char *js = i ? comm_matrix_json(h, path, dl) : comm_time_json(h, path, dl);
		if (!js)
			continue;
		/* cd keeps the text: the records' drill-down reads it there */
		char *name = xasprintf("%s:%s", path, tables[i]);
		n += comm_json_load_text(cd, name, js, strlen(js), owner_rank, dl) == 0;
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
			c = strcmp(db_col_text(a, i), db_col_text(b, i));
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
		sbuf_addf(&key, "%s@%s", db_col_text(st, 2), db_col_text(st, 3));
		cnest_op(&js, &n, db_col_text(st, 0), db_col_text(st, 1), sbuf_str(&key));
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
		sbuf_addf(&key, "%s@%s", db_col_text(st, 2), db_col_text(st, 3));
		cnest_op(&js, &n, db_col_text(st, 0), db_col_text(st, 1), sbuf_str(&key));
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
		char *js = i ? cluster_matrix_json(h, path, names[2], grp, dl)
			     : cluster_time_json(h, path, names[0], db_has_table(h, names[1]) ? names[1] : NULL, grp, dl);
		if (!js)
			continue;
		char *name = xasprintf("%s:%s", path, names[k]);
		n += comm_json_load_text(cd, name, js, strlen(js), -1, dl) == 0;
		free(name);
	}
	sqlite3_close(h);
	return n ? 0 : -1;
}
