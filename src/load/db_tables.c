/* SPDX-License-Identifier: MIT */
/* Db tables as the text export's CSV tables: StepTraceTime, the memory tables, and the
 * kernel table (TASK with COMPUTE_TASK_INFO and TASK_PMU_INFO's counters), built from
 * their cells as the text export writes them (csvt_build_*), no CSV text between. */
#include "db_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "num.h"
#include "spill.h"
#include "xalloc.h"

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

static bool db_table_has_rows(sqlite3 *h, const char *table)
{
	char *sql = sqlite3_mprintf("SELECT EXISTS (SELECT 1 FROM \"%w\")", table);
	sqlite3_stmt *st = NULL;
	bool rows = sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
		    sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rows;
}
const struct db_csv_spec db_csv_specs[] = {
	{"StepTraceTime", "step_trace_time.csv", true, "computing", SPEC_COLS(step_cols), NULL, NULL},
	{"MEMORY_RECORD", "memory_record.csv", false, "timestamp", SPEC_COLS(record_cols), "NPU_MEM",
	 "SELECT timestampNs, 0, rowid, 'APP', timestampNs, NULL, hbm, NULL, NULL, deviceId FROM NPU_MEM"
	 " WHERE type IN (SELECT id FROM STRING_IDS WHERE lower(value) = 'app')"},
	{"OP_MEMORY", "operator_memory.csv", false, "size", SPEC_COLS(op_mem_cols), NULL, NULL},
	{"NPU_MODULE_MEM", "npu_module_mem.csv", false, "timestampNs", SPEC_COLS(module_cols), NULL, NULL},
};
const size_t db_n_csv_specs = sizeof db_csv_specs / sizeof db_csv_specs[0];

/* bytes / 2^shift written exactly (a binary fraction has a finite decimal expansion). */
static void exact_fraction(struct sbuf *csv, int64_t v, int shift)
{
	if (v < 0)
		sbuf_addc(csv, '-');
	/* the magnitude negated unsigned: -INT64_MIN overflows int64 (fuzz_db, regress/db) */
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v, mask = (UINT64_C(1) << shift) - 1, frac = u & mask;
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
	struct db_keyed k;     /* STRING_IDS (or ENUM_MODULE) by id */
	struct u64map map;  /* id -> index into at */
	struct sbuf text;   /* the cells, escaped, end to end */
	uint32_t *at;       /* per index: offset into text; the next one's is its end */
	size_t n, cap;
};

/* id's cell (len bytes; not NUL-terminated), borrowed from sc until its next lookup */
static const char *sid_cell(struct sid_cells *sc, int64_t id, size_t *len)
{
	bool found;
	uint32_t *slot = u64map_slot(&sc->map, (uint64_t)id, &found);
	if (!found) {
		*slot = (uint32_t)sc->n;
		xgrow(&sc->at, &sc->cap, sc->n + 2, sizeof *sc->at);
		if (!sc->n)
			sc->at[0] = 0;
		/* an unknown id: an empty cell, as the subquery's NULL */
		const char *v = db_keyed_get(&sc->k, id);
		if (v)
			sbuf_adds(&sc->text, v);
		sc->at[++sc->n] = (uint32_t)sc->text.len;
	}
	uint32_t k = *slot;
	*len = sc->at[k + 1] - sc->at[k];
	/* no text yet (only unknown ids so far): no buffer to point into */
	return *len ? sc->text.buf + sc->at[k] : "";
}

static void sid_cells_free(struct sid_cells *sc)
{
	db_keyed_close(&sc->k);
	u64map_free(&sc->map);
	sbuf_free(&sc->text);
	free(sc->at);
}

/* A DBC_NS_US cell's ns: PMU times are REAL ns with fractions, to the nearest ns. False
 * for NULL and what is no number (an empty cell). */
static bool cell_ns(sqlite3_stmt *st, int c, int64_t *v)
{
	return db_col_i64(st, c, v) ||
	       (sqlite3_column_type(st, c) == SQLITE_FLOAT && fabs(sqlite3_column_double(st, c)) < 9e18 &&
		((*v = llround(sqlite3_column_double(st, c))), true));
}

/* A cell of the conversions that rewrite a value, as the text export writes it, onto csv. */
static void conv_written(struct sbuf *csv, sqlite3_stmt *st, int c, enum db_conv conv)
{
	int64_t v;
	switch (conv) {
	case DBC_NS_US:
		/* rows_table gives these to the builder with their values (cell_ns) */
		if (cell_ns(st, c, &v)) {
			char b[48];
			num_format_ns_as_us(v, b, sizeof b);
			sbuf_adds(csv, b);
		}
		return;
	case DBC_NOT_SET:
		/* UINT32_MAX is how the Db says "none" (the text export writes N/A) */
		if (db_col_i64(st, c, &v) && v == UINT32_MAX)
			sbuf_adds(csv, "N/A");
		else
			sbuf_adds(csv, db_col_text(st, c));
		return;
	case DBC_BYTES_MB:
	case DBC_BYTES_KB:
		if (db_col_i64(st, c, &v))
			exact_fraction(csv, v, conv == DBC_BYTES_MB ? 20 : 10);
		else
			sbuf_adds(csv, db_col_text(st, c)); /* a REAL: as written */
		return;
	case DBC_DEVICE:
		sbuf_addf(csv, "NPU:%s", db_col_text(st, c));
		return;
	default:
		sbuf_adds(csv, db_col_text(st, c));
		return;
	}
}

/* The cell of column c (len bytes), borrowed until the next row or lookup: a name from the
 * cache or SQLite's text as they are (most cells: no copy), else written into csv (reset).
 * sc: the STRING_IDS cache for DBC_STRING_ID columns and the ENUM_MODULE one for DBC_MODULE
 * columns, each holding the id itself (NULL, or a cache not open: the value as written). */
static const char *conv_cell(struct sbuf *csv, sqlite3_stmt *st, int c, enum db_conv conv, struct sid_cells *sc,
			     size_t *len)
{
	/* the value fetched once, as db_col_i64 does: most cells are ids (names, shapes) */
	sqlite3_value *val = sqlite3_column_value(st, c);
	int type = sqlite3_value_type(val);
	*len = 0;
	if (type == SQLITE_NULL)
		return "";
	bool id = conv == DBC_STRING_ID || conv == DBC_MODULE;
	/* an id through the cache; text (a literal, or a schema writing names) as written */
	struct sid_cells *cache = id && sc ? &sc[conv == DBC_MODULE] : NULL;
	if (cache && cache->k.by_rowid && type == SQLITE_INTEGER)
		return sid_cell(cache, sqlite3_value_int64(val), len);
	if (id || conv == DBC_TEXT) {
		const unsigned char *t = sqlite3_value_text(val);
		*len = t ? strlen((const char *)t) : 0; /* to a NUL, as before */
		return t ? (const char *)t : "";
	}
	sbuf_reset(csv);
	conv_written(csv, st, c, conv);
	*len = csv->len;
	return sbuf_str(csv);
}

/* Per row, extra cells after the query's columns (the kernel table's counters), each
 * written into cell (reset) and added to b. */
typedef void (*row_extra_fn)(void *ctx, sqlite3_stmt *st, struct csvt_build *b, struct sbuf *cell);
/* After the last row, before the table's cells are typed (and when the query cannot be
 * prepared): frees what the extra cells needed. */
typedef void (*rows_done_fn)(void *ctx);

/* Whether the row's sort key, columns at..at+2 (k_, s_, r_: INTEGER or NULL, NULL first),
 * comes after the previous row's (prev, have_prev: updated). False when it does not, or a
 * key is another type: the rows must then come through the query's own ORDER BY. */
static bool key_after(sqlite3_stmt *st, int at, int64_t prev[4], bool *have_prev)
{
	int kt = sqlite3_column_type(st, at);
	if ((kt != SQLITE_INTEGER && kt != SQLITE_NULL) || sqlite3_column_type(st, at + 1) != SQLITE_INTEGER ||
	    sqlite3_column_type(st, at + 2) != SQLITE_INTEGER)
		return false;
	/* a NULL start sorts first: (0, 0) before any (1, start) */
	int64_t key[4] = {kt == SQLITE_INTEGER, kt == SQLITE_INTEGER ? sqlite3_column_int64(st, at) : 0,
			  sqlite3_column_int64(st, at + 1), sqlite3_column_int64(st, at + 2)};
	int i = 0;
	while (*have_prev && i < 4 && key[i] == prev[i])
		i++;
	/* equal keys never follow each other in a sorted output: (s_, r_) names one row */
	if (*have_prev && (i == 4 || key[i] < prev[i]))
		return false;
	memcpy(prev, key, sizeof key);
	*have_prev = true;
	return true;
}

/* The rows of sql (used columns, converted) under the header hdr, as a table named
 * "<path>:<table>" built from its cells (csvt_build_*: no CSV text), which the table
 * keeps spilled for drill-down, so a big table costs its typed columns, not its text.
 * key_col >= 0: sql is ordered more loosely than its rows must come, by (k_, s_, r_) at
 * key_col; at the first row out of that order NULL is returned with *unordered set, and
 * nothing said or freed (done not called): the caller asks again with the full order. */
static struct csv_table *rows_table(sqlite3 *h, const char *path, const char *table, const char *sql,
				    const enum db_conv *conv, struct sid_cells *sc, size_t used,
				    const char *const *hdr, size_t n_hdr, row_extra_fn extra, rows_done_fn done,
				    void *ctx, int key_col, bool *unordered, struct diag_list *dl)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table %s cannot be read: %s"), table, sqlite3_errmsg(h));
		if (done)
			done(ctx);
		return NULL;
	}
	char *name = xasprintf("%s:%s", path, table);
	/* the builder's messages held until the table is whole: a table given up unordered
	 * says nothing */
	struct diag_list local;
	diag_init(&local);
	struct csvt_build *b = csvt_build_begin(name, &local);
	free(name);
	for (size_t i = 0; i < n_hdr; i++)
		csvt_build_cell(b, hdr[i], strlen(hdr[i]));
	csvt_build_row(b);
	struct sbuf cell = SBUF_INIT;
	int rc;
	int64_t prev[4];
	bool have_prev = false;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (key_col >= 0 && !key_after(st, key_col, prev, &have_prev)) {
			*unordered = true;
			sqlite3_finalize(st);
			sbuf_free(&cell);
			csvt_free(csvt_build_end(b));
			diag_free(&local);
			return NULL;
		}
		for (size_t i = 0; i < used; i++) {
			int64_t ns;
			/* a time's value to the typed column as it is, not read back from its text */
			if (conv[i] == DBC_NS_US && cell_ns(st, (int)i, &ns)) {
				csvt_build_cell_time(b, ns);
				continue;
			}
			size_t len;
			const char *s = conv_cell(&cell, st, (int)i, conv[i], sc, &len);
			csvt_build_cell(b, s, len);
		}
		if (extra)
			extra(ctx, st, b, &cell);
		csvt_build_row(b);
	}
	if (rc != SQLITE_DONE)
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table %s: %s; the rows before it were read"), table,
			 sqlite3_errmsg(h));
	sqlite3_finalize(st);
	sbuf_free(&cell);
	if (done)
		done(ctx);
	struct csv_table *t = csvt_build_end(b);
	diag_append(dl, &local);
	diag_free(&local);
	return t;
}

struct csv_table *db_csv_table(const char *path, const struct db_csv_spec *spec, struct diag_list *dl)
{
	sqlite3 *h = db_open_readonly(path, dl);
	if (!h)
		return NULL;
	struct csv_table *t = NULL;
	struct db_cols c = {0};
	if (!db_has_table(h, spec->table))
		goto out; /* not collected: the text export has no such file either */
	if (!db_cols_load(h, spec->table, &c)) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table %s cannot be read: %s"), spec->table, sqlite3_errmsg(h));
		goto out;
	}
	if (!db_cols_has(&c, spec->needed)) {
		diag_add(dl, DIAG_WARN, path, 0, -1, _("table %s has no column %s; not read"), spec->table, spec->needed);
		goto out;
	}
	/* One memory rule for both readers: NPU_MEM's APP rows join a memory record that holds
	 * rows (as torch_npu's memory_record.csv has them), never make one of their own: without
	 * profile_memory the text export has no memory_record.csv, and NPU MEM is a counter
	 * lane on both, not a memory figure. An empty record is no record. */
	if (spec->extra_table && !db_table_has_rows(h, spec->table))
		goto out;
	bool strings = db_has_table(h, "STRING_IDS"), modules = db_has_table(h, "ENUM_MODULE");
	/* the text export's header for the columns this table has */
	struct sbuf sel = SBUF_INIT, sql = SBUF_INIT;
	enum db_conv conv[32];
	const char *hdr[32];
	size_t used = 0;
	for (size_t i = 0; i < spec->n_cols && used < 32; i++) {
		const char *have = db_cols_has(&c, spec->cols[i].column);
		if (!have)
			continue;
		/* ids as they are: the cells look them up (sid_cells), not a subquery per row */
		char *q = sqlite3_mprintf(", m.\"%w\"", have);
		sbuf_adds(&sel, q);
		sqlite3_free(q);
		sbuf_addf(&sel, " AS c%zu", used);
		hdr[used] = spec->cols[i].header;
		conv[used++] = spec->cols[i].conv;
	}
	/* the columns; with extra rows (every column there), both merged by time, the extra
	 * rows first at equal times, then by rowid */
	bool extra = spec->extra_rows && used == spec->n_cols && strings && db_has_table(h, spec->extra_table);
	sbuf_adds(&sql, "SELECT ");
	for (size_t i = 0; i < used; i++)
		sbuf_addf(&sql, "%sc%zu", i ? ", " : "", i);
	char *from = extra ? sqlite3_mprintf(" FROM (SELECT m.\"%w\" AS k_, 1 AS s_, m.rowid AS r_%s FROM \"%w\" m"
					     " UNION ALL %s) ORDER BY k_, s_, r_",
					     db_cols_has(&c, spec->needed), sbuf_str(&sel), spec->table, spec->extra_rows)
			   : sqlite3_mprintf(" FROM (SELECT 0%s FROM \"%w\" m)", sbuf_str(&sel), spec->table);
	sbuf_adds(&sql, from);
	sqlite3_free(from);
	sbuf_free(&sel);
	struct sid_cells sc[2] = {{.n = 0}, {.n = 0}};
	db_keyed_open(&sc[0].k, h, "STRING_IDS", "id", "value");
	if (modules)
		db_keyed_open(&sc[1].k, h, "ENUM_MODULE", "id", "name");
	t = rows_table(h, path, spec->table, sbuf_str(&sql), conv, sc, used, hdr, used, NULL, NULL, NULL, -1, NULL, dl);
	sid_cells_free(&sc[0]);
	sid_cells_free(&sc[1]);
	sbuf_free(&sql);
out:
	db_cols_free(&c);
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
	bool is_time[PMU_WANTED]; /* a total (ns, written as µs), not a ratio */
	int gtid_col;            /* the query column holding the task id */
	int64_t dense_max;       /* >= 0: the slot is the task id itself, up to this; no map */
	bool values;             /* false: which counters are there (present), not their values */
};

/* Task ids index the counters directly when COMPUTE_TASK_INFO's ids (the only ones a
 * kernel row looks up) are dense, as the exporters number them: a map of half a million
 * ids, built beside the events, was a tenth of a big Db load's peak. */
static void pmu_dense(sqlite3 *h, struct pmu *pm)
{
	pm->dense_max = -1;
	sqlite3_stmt *st;
	/* three subqueries: min and max alone are a seek each and count(*) alone counts
	 * the b-tree's cells, where together they were a scan of every row (3 ms of 40k) */
	if (sqlite3_prepare_v2(h,
			       "SELECT (SELECT min(rowid) FROM COMPUTE_TASK_INFO), (SELECT max(rowid) FROM"
			       " COMPUTE_TASK_INFO), (SELECT count(*) FROM COMPUTE_TASK_INFO)",
			       -1, &st, NULL) != SQLITE_OK)
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

/* TASK_PMU_INFO's scan: which name id is which counter. The ids are matched in C as
 * `name IN (ids)` matched them in SQL, which probed an index per row (a sixth of a big
 * Db report): a number equal to an id; a text only in a column of TEXT affinity, which
 * compares the ids as their decimal text. */
#define PMU_HASH 64 /* open addressing, at most PMU_WANTED of PMU_HASH places taken */
struct pmu_scan {
	struct pmu *pm;
	int64_t id[PMU_WANTED]; /* the wanted counters' name ids, k's order */
	size_t k[PMU_WANTED];   /* the counter of each */
	size_t n_ids, n_present;
	/* name id -> 1 + index into id[] (0: empty): a million rows, half of them not
	 * wanted, each looked up once; a linear search was most of this scan's own time */
	int64_t hash_id[PMU_HASH];
	uint8_t hash_at[PMU_HASH];
	bool text_names; /* the name column has TEXT affinity */
};

_Static_assert(PMU_WANTED < PMU_HASH, "an empty place ends every probe");

static size_t pmu_hash(int64_t id)
{
	return (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15u) >> 58);
}

/* The wanted counters' STRING_IDS ids into ps; false when the file names none. */
static bool pmu_name_ids(sqlite3 *h, struct pmu_scan *ps)
{
	int64_t id[PMU_WANTED];
	struct sbuf in = SBUF_INIT;
	for (size_t k = 0; k < PMU_WANTED; k++) {
		id[k] = INT64_MIN;
		char *q = sqlite3_mprintf("%s%Q", k ? "," : "", pmu_wanted[k][0]);
		sbuf_adds(&in, q);
		sqlite3_free(q);
	}
	char *sql = sqlite3_mprintf("SELECT id, value FROM STRING_IDS WHERE value IN (%s)", sbuf_str(&in));
	sbuf_free(&in);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW)
			for (size_t k = 0; k < PMU_WANTED; k++)
				if (!strcmp(db_col_text(st, 1), pmu_wanted[k][0]))
					id[k] = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_free(sql);
	for (size_t k = 0; k < PMU_WANTED; k++) {
		if (id[k] == INT64_MIN)
			continue;
		size_t at = pmu_hash(id[k]);
		while (ps->hash_at[at] && ps->hash_id[at] != id[k])
			at = (at + 1) % PMU_HASH;
		/* a repeated id stays with its first counter, as a search in k's order */
		if (!ps->hash_at[at]) {
			ps->hash_id[at] = id[k];
			ps->hash_at[at] = (uint8_t)(ps->n_ids + 1);
		}
		ps->id[ps->n_ids] = id[k];
		ps->k[ps->n_ids++] = k;
	}
	/* the column's affinity as SQLite derives it from the declared type */
	if (sqlite3_prepare_v2(h, "SELECT name FROM TASK_PMU_INFO", -1, &st, NULL) == SQLITE_OK) {
		const char *t = sqlite3_column_decltype(st, 0);
		ps->text_names = t && !strcasestr(t, "INT") &&
				 (strcasestr(t, "CHAR") || strcasestr(t, "CLOB") || strcasestr(t, "TEXT"));
		sqlite3_finalize(st);
	}
	return ps->n_ids > 0;
}

/* The counter that a row's name names into *k; false when it is none of the wanted. */
static bool pmu_name_counter(const struct pmu_scan *ps, sqlite3_value *name, size_t *k)
{
	int64_t id;
	switch (sqlite3_value_type(name)) {
	case SQLITE_INTEGER:
		id = sqlite3_value_int64(name);
		break;
	case SQLITE_FLOAT: {
		double d = sqlite3_value_double(name);
		if (!(d > -9.2e18 && d < 9.2e18) || (double)(int64_t)d != d)
			return false;
		id = (int64_t)d;
		break;
	}
	case SQLITE_TEXT: {
		const char *t = (const char *)sqlite3_value_text(name);
		char digits[24];
		for (size_t i = 0; ps->text_names && t && i < ps->n_ids; i++) {
			snprintf(digits, sizeof digits, "%" PRId64, ps->id[i]);
			if (!strcmp(t, digits)) {
				*k = ps->k[i];
				return true;
			}
		}
		return false;
	}
	default:
		return false;
	}
	for (size_t at = pmu_hash(id); ps->hash_at[at]; at = (at + 1) % PMU_HASH)
		if (ps->hash_id[at] == id) {
			*k = ps->k[ps->hash_at[at] - 1];
			return true;
		}
	return false;
}

/* Counter k's value array holding slot: every id's place at once when the ids are
 * dense (no doubling past them), else grown by doubling; new places NaN (absent). */
static void pmu_grow(struct pmu *pm, size_t k, uint32_t slot)
{
	size_t old = pm->cap[k];
	if (pm->dense_max >= 0) {
		pm->cap[k] = (size_t)pm->dense_max + 1;
		pm->v[k] = spill_realloc(pm->v[k], pm->cap[k] * sizeof *pm->v[k]);
	} else {
		spill_grow(&pm->v[k], &pm->cap[k], (size_t)slot + 1, sizeof *pm->v[k]);
	}
	for (size_t i = old; i < pm->cap[k]; i++)
		pm->v[k][i] = NAN;
}

/* One TASK_PMU_INFO row (globalTaskId, name, value); false stops the scan. A value that
 * is not NULL is read as a number as SQLite converts it (text's leading number, else 0). */
static bool pmu_row(void *ctx, sqlite3_value **v)
{
	struct pmu_scan *ps = ctx;
	struct pmu *pm = ps->pm;
	size_t k;
	if (!pmu_name_counter(ps, v[1], &k) || sqlite3_value_type(v[2]) == SQLITE_NULL)
		return true;
	int64_t gtid = sqlite3_value_int64(v[0]);
	if (pm->dense_max >= 0 && (gtid < 0 || gtid > pm->dense_max))
		return true;
	if (!pm->values) {
		/* the counters' names alone: the scan stops once each has a value (within
		 * the first task's rows, where every counter is) */
		ps->n_present += !pm->present[k];
		pm->present[k] = true;
		return ps->n_present < ps->n_ids;
	}
	uint32_t slot = (uint32_t)gtid;
	if (pm->dense_max < 0) {
		bool found;
		uint32_t *at = u64map_slot(&pm->slot, (uint64_t)gtid, &found);
		if (!found)
			*at = (uint32_t)pm->n_slots++;
		slot = *at;
	}
	if (slot >= pm->cap[k])
		pmu_grow(pm, k, slot);
	pm->v[k][slot] = sqlite3_value_double(v[2]);
	pm->present[k] = true;
	return true;
}

static void pmu_load(sqlite3 *h, struct pmu *pm)
{
	struct pmu_scan ps = {.pm = pm};
	if (!db_has_table(h, "TASK_PMU_INFO") || !pmu_name_ids(h, &ps))
		return;
	const struct db_scan sc = {pmu_row, &ps};
	db_scan(h, "TASK_PMU_INFO", "globalTaskId, name, value", &sc);
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

/* A kernel row's counters, a cell each: the totals (ns) as µs, the ratios exactly. */
static void pmu_cells(void *ctx, sqlite3_stmt *st, struct csvt_build *b, struct sbuf *cell)
{
	(void)cell;
	const struct pmu *pm = ctx;
	if (!pm->values) {
		/* the columns without values (--summary) */
		for (size_t k = 0; k < PMU_WANTED; k++)
			if (pm->present[k])
				csvt_build_cell(b, "", 0);
		return;
	}
	uint32_t at = 0;
	bool has = sqlite3_column_type(st, pm->gtid_col) != SQLITE_NULL &&
		   pmu_find(pm, sqlite3_column_int64(st, pm->gtid_col), &at);
	for (size_t k = 0; k < PMU_WANTED; k++) {
		if (!pm->present[k])
			continue;
		double v = has && at < pm->cap[k] ? pm->v[k][at] : NAN;
		/* the values with their text, typed as reading the text types them */
		if (v == v && pm->is_time[k] && fabs(v) < 9e18)
			csvt_build_cell_time(b, llround(v));
		else if (v == v)
			/* the analysis keeps ratios as floats: nine digits give the same one */
			csvt_build_cell_num(b, v);
		else
			csvt_build_cell(b, "", 0);
	}
}

/* TASK with COMPUTE_TASK_INFO, and TASK_PMU_INFO's counters as columns, as the text
 * export's kernel_details.csv: one row per compute task in start order, names through
 * STRING_IDS, ns as µs; a counter named *_time (ns) becomes "<name>(us)", the totals
 * aic_total_time and aiv_total_time "aicore_time(us)" and "aiv_time(us)". */
struct csv_table *db_kernel_table(const char *path, bool counter_values, struct diag_list *dl)
{
	/* per column: the compute task's expression and the collective's (COMMUNICATION_OP,
	 * listed as HCCL kernels as the text export does) */
	static const struct { const char *header, *table, *column, *task, *comm; enum db_conv conv; } main_cols[] = {
		{"Device_id", "TASK", "deviceId", "t.deviceId", "NULL", DBC_TEXT},
		{"Name", "COMPUTE_TASK_INFO", "name", "c.name", "o.opName", DBC_STRING_ID},
		{"Type", "COMPUTE_TASK_INFO", "opType", "c.opType", "o.opType", DBC_STRING_ID},
		{"OP State", "COMPUTE_TASK_INFO", "opState", "c.opState", "NULL", DBC_STRING_ID},
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
	sqlite3 *h = db_open_readonly(path, dl);
	if (!h)
		return NULL;
	struct csv_table *t = NULL;
	struct db_cols tc = {0}, cc = {0}, oc = {0};
	if (!db_has_table(h, "TASK") || !db_has_table(h, "COMPUTE_TASK_INFO") || !db_has_table(h, "STRING_IDS") ||
	    !db_cols_load(h, "TASK", &tc) || !db_cols_load(h, "COMPUTE_TASK_INFO", &cc) || !db_cols_has(&tc, "startNs") ||
	    !db_cols_has(&tc, "endNs") || !db_cols_has(&tc, "globalTaskId") || !db_cols_has(&cc, "globalTaskId") ||
	    !db_cols_has(&cc, "name"))
		goto out; /* no kernels to list (the events say why, if anything is missing) */
	bool comm = db_has_table(h, "COMMUNICATION_OP") && db_cols_load(h, "COMMUNICATION_OP", &oc) &&
		    db_cols_has(&oc, "startNs") && db_cols_has(&oc, "endNs") && db_cols_has(&oc, "opName");
	/* head: the header as the text export writes it, which says when a Block Dim is there */
	struct sbuf task = SBUF_INIT, ops = SBUF_INIT, sql = SBUF_INIT, head = SBUF_INIT;
	enum db_conv conv[96];
	const char *hdr[96];
	size_t used = 0, n_hdr = 0;
	for (size_t i = 0; i < sizeof main_cols / sizeof main_cols[0]; i++) {
		if (!db_cols_has(!strcmp(main_cols[i].table, "TASK") ? &tc : &cc, main_cols[i].column) ||
		    (used && !strcmp(main_cols[i].header, "Block Dim") && strstr(head.buf, "Block Dim,")))
			continue;
		const char *oexpr = main_cols[i].comm;
		/* a collective's column the Db lacks (no waitNs, no opType): NULL */
		if (!strncmp(oexpr, "o.", 2) && !db_cols_has(&oc, oexpr + 2))
			oexpr = "NULL";
		if (strstr(oexpr, "o.opType") && !db_cols_has(&oc, "opType"))
			oexpr = "NULL";
		sbuf_addf(&task, ", %s AS c%zu", main_cols[i].task, used);
		sbuf_addf(&ops, ", %s", oexpr);
		sbuf_addf(&head, "%s%s", used ? "," : "", main_cols[i].header);
		hdr[n_hdr++] = main_cols[i].header;
		conv[used++] = main_cols[i].conv;
	}
	/* the counters the analysis reads, one column each, from one pass over TASK_PMU_INFO
	 * (stored by counter, not by task: no pivot in SQL, whose sort would hold it all) */
	struct pmu pm = {.values = counter_values};
	pmu_dense(h, &pm);
	pmu_load(h, &pm);
	for (size_t k = 0; k < PMU_WANTED; k++) {
		if (pm.present[k])
			hdr[n_hdr++] = pmu_wanted[k][1];
		/* once, not a strcmp per cell (14 a kernel row) */
		pm.is_time[k] = !strcmp(pmu_wanted[k][0] + 4, "total_time");
	}
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
		  db_cols_has(&cc, "opType") ? " WHERE c.opType IS NOT NULL" : "");
	if (comm)
		sbuf_addf(&sql, " UNION ALL SELECT %s, NULL, o.startNs, 1, o.rowid FROM COMMUNICATION_OP o",
			  sbuf_str(&ops) + 2);
	pm.gtid_col = (int)used;
	struct sid_cells sc[2] = {{.n = 0}, {.n = 0}};
	db_keyed_open(&sc[0].k, h, "STRING_IDS", "id", "value");
	/* ordered by start alone, TASK comes in its index's order with no sort; the rows of
	 * one start must come by rowid, which SQLite sorts per start (two fifths of the
	 * query). Whether the index's order is that order shows as the rows come: when it is
	 * not, the table is read again, sorted. */
	char *by_start = xasprintf("%s ORDER BY k_", sbuf_str(&sql));
	bool unordered = false;
	t = rows_table(h, path, "COMPUTE_TASK_INFO", by_start, conv, sc, used, hdr, n_hdr, pmu_cells, pmu_done, &pm,
		       (int)used + 1, &unordered, dl);
	free(by_start);
	if (unordered) {
		sbuf_adds(&sql, " ORDER BY k_, s_, r_");
		t = rows_table(h, path, "COMPUTE_TASK_INFO", sbuf_str(&sql), conv, sc, used, hdr, n_hdr, pmu_cells,
			       pmu_done, &pm, -1, NULL, dl);
	}
	sid_cells_free(&sc[0]);
	sid_cells_free(&sc[1]);
	sbuf_free(&task);
	sbuf_free(&ops);
	sbuf_free(&sql);
	sbuf_free(&head);
out:
	db_cols_free(&tc);
	db_cols_free(&cc);
	db_cols_free(&oc);
	sqlite3_close(h);
	/* SQLite's pages and the counters' small blocks, freed out of order, would stay in
	 * malloc's arenas beside the analysis (a tenth of its peak) */
	xalloc_trim();
	return t;
}
