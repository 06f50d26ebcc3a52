/* SPDX-License-Identifier: MIT */
/* Db exports (SQLite) read like the text ones: torch_npu's ascend_pytorch_profiler[_<rank>].db
 * and analysis.db, native msprof's msprof_<timestamp>.db.
 *
 * A Db file is opened read-only and immutable (a file: URI with immutable=1): no journal,
 * WAL, shm or lock file is created and no byte changes, also on a read-only filesystem.
 * Columns are found by name (schemas drift between versions; some timestamps are TEXT),
 * names are resolved through STRING_IDS, nanoseconds are kept exact. Rows become the same
 * lanes and events a trace_view.json of the same run gives (Python and CANN host lanes,
 * Ascend Hardware "Stream N", HCCL group and plane lanes, Overlap Analysis, launch flows
 * from connection ids), so the analysis, views and reports are unchanged. An event's
 * offset names its row: its table's base (trace.db_base) plus its rowid. */
#ifndef ASCPROF_DB_H
#define ASCPROF_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "comm_json.h"
#include "csv_table.h"
#include "diag.h"
#include "sbuf.h"
#include "store.h"

struct sqlite3;
/* Opens path read-only and immutable (see above): NULL, with the reason in dl, when it is
 * not a readable database (corrupt, truncated, encrypted). Other readers of SQLite files
 * (cluster_db.c) open them here. Close with sqlite3_close. */
struct sqlite3 *db_open_readonly(const char *path, struct diag_list *dl);
bool db_has_table(struct sqlite3 *h, const char *table);

/* The tables read, for --summary, README and the man page. */
extern const char *const db_tables_read[];
extern const size_t db_n_tables_read;

/* Which of db_tables_read the two files hold (either may be NULL), into out. */
size_t db_tables_present(const char *path, const char *analysis_path, const char **out, size_t max);

/* True for a name read as a Db export (ascend_pytorch_profiler*.db, msprof_*.db). */
bool db_is_events_name(const char *base);
bool db_is_analysis_name(const char *base);

/* Loads the events of a torch_npu or msprof Db file into rs (initialised, empty). Returns
 * 0 when events were read, -1 when the file could not be read at all (the diagnostics say
 * which file and table, and why). Tables that are absent or broken are reported and the
 * rest is read. */
int db_load_rank(struct rank_store *rs, const char *path, struct diag_list *dl);

/* Db tables read as the text export's CSV tables: analysis.db's StepTraceTime as
 * step_trace_time.csv; MEMORY_RECORD, OP_MEMORY and NPU_MODULE_MEM as memory_record.csv,
 * operator_memory.csv and npu_module_mem.csv (bytes as MB or KB, ns as µs, names through
 * STRING_IDS and ENUM_MODULE). The generator's Db writer uses the same map backwards. */
enum db_conv {
	DBC_TEXT,      /* the value as SQLite writes it */
	DBC_STRING_ID, /* a STRING_IDS id */
	DBC_MODULE,    /* an ENUM_MODULE id */
	DBC_NS_US,     /* ns, as µs with three decimals */
	DBC_BYTES_MB,  /* bytes, as MB */
	DBC_BYTES_KB,  /* bytes, as KB */
	DBC_DEVICE,    /* a device id, as NPU:<id> */
	DBC_NOT_SET,   /* UINT32_MAX as N/A, else as written */
};
/* The tables below are static, and so are their strings. */
struct db_csv_col {
	const char *header; /* static: the text export's */
	const char *column; /* static: the Db's */
	enum db_conv conv;
};
struct db_csv_spec {
	const char *table;  /* static: the Db's */
	const char *csv;    /* static: the text export's file name */
	bool in_analysis;   /* analysis.db, else the events Db */
	const char *needed; /* static: a column without which the table is not read */
	const struct db_csv_col *cols; /* static */
	size_t n_cols;
	/* rows of another table in the same columns, when every column above exists and
	 * extra_table does (NPU_MEM's application memory joins memory_record as APP) */
	const char *extra_table, *extra_rows; /* static, or NULL */
};
extern const struct db_csv_spec db_csv_specs[];
extern const size_t db_n_csv_specs;

/* The table of spec in the Db at path as a CSV table of the text export's form, named
 * "<path>:<table>", built from its cells (csvt_build_*: no CSV text to parse). NULL when
 * absent (quietly) or unreadable (with a message). */
struct csv_table *db_csv_table(const char *path, const struct db_csv_spec *spec, struct diag_list *dl);

/* The compute tasks (TASK, COMPUTE_TASK_INFO, TASK_PMU_INFO) as the text export's
 * kernel_details.csv, named "<path>:COMPUTE_TASK_INFO" (owned, built as
 * db_csv_table's); NULL when there are none. counter_values false: the PMU counters'
 * columns are there, their cells empty (TASK_PMU_INFO not scanned: --summary). */
struct csv_table *db_kernel_table(const char *path, bool counter_values, struct diag_list *dl);

/* analysis.db's CommAnalyzerTime with CommAnalyzerBandwidth, and CommAnalyzerMatrix, read
 * into cd as the records the text export's communication.json and communication_matrix.json
 * give (ratios of wait and synchronisation to transit computed as the text export does),
 * named "<path>:CommAnalyzerTime" and "<path>:CommAnalyzerMatrix", built from the rows
 * (comm_json_build_*); cd keeps the text those files would hold, which the records'
 * offsets point into, for drill-down (comm_json_entry_text). 0 when anything was read. */
int db_comm_load(struct comm_data *cd, const char *path, int owner_rank, struct diag_list *dl);
/* msprof-analyze's cluster_analysis.db communication tables (ClusterCommAnalyzerTime with
 * its Bandwidth, ClusterCommAnalyzerMatrix; ClusterCommunication* in its simplified output)
 * read into cd as cluster_communication.json and cluster_communication_matrix.json would be:
 * the group's rank set, step, op and rank as the cluster layout nests them. The texts as
 * db_comm_load's. 0 when any was read. */
int db_cluster_comm_load(struct comm_data *cd, const char *path, struct diag_list *dl);

/* The row behind event ev of a Db store as a JSON object ({"name", "ts", "dur", "args":
 * {column: value ...}}), read again from the file; 0, or -1 with a message in out. */
int db_element_json(const struct rank_store *rs, uint64_t off, struct sbuf *out);
/* The row's columns as "column: value" lines; the number of columns, or -1. */
int db_event_args(const struct rank_store *rs, size_t ev, struct sbuf *out);
/* "TASK rowid 12" for an event's offset. */
void db_row_name(const struct rank_store *rs, uint64_t off, char *buf, size_t size);

#endif
