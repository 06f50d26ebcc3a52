/* SPDX-License-Identifier: MIT */
/* CSV tables from profiling exports. A line is split by 64-byte masks of its commas and
 * quotes (csv_table.c): typed cells are read straight from the file's bytes; a line the
 * splitter leaves (a cell over several lines, a stray quote, a lone CR) goes to libcsv,
 * which also reads every line when ASCPROF_LIBCSV_ONLY=1: the oracle of test_csv and
 * fuzz_csv.
 *
 * Columns the schema knows (csv_schema.h) and something reads by name (csv_schema_is_read)
 * are kept typed per row: interned text, exact times in ns, numbers. Every other cell
 * (unknown columns too) stays in the file and is read again on demand
 * (csvt_row_cells) when the user drills down to a row, so a 500 MB kernel_details.csv
 * costs tens of bytes per row, not its size. Rows remember their line for messages.
 *
 * Handled: a UTF-8 BOM, CRLF or LF, TABs after numbers (also inside quotes), quoted cells
 * over several lines, "N/A" and empty cells as missing, rows with too few or too many
 * cells (kept, warned with their line), Excel-rewritten numbers (warned), and files that
 * are not UTF-8 (read as GB18030 when they decode as such, warned). */
#ifndef ASCPROF_CSV_TABLE_H
#define ASCPROF_CSV_TABLE_H

#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csv_schema.h"
#include "diag.h"
#include "strtab.h"

#define CSVT_MISSING_TIME INT64_MIN

struct csv_column {
	enum csv_col col;
	enum csv_type type; /* csv_schema_type(col), kept at hand for the per-cell path */
	int index; /* position in the header */
	union {
		uint32_t *str; /* owned (the union): strtab ids; 0 = empty or missing */
		int64_t *time; /* owned: ns; CSVT_MISSING_TIME when missing or unreadable */
		double *num;   /* owned: NaN when missing */
		float *ratio;  /* owned: NaN when missing */
	} v;
};

/* A per-row value that changes rarely: the rows where it changes, in row order. */
struct csvt_steps {
	struct csvt_step {
		size_t row;
		int64_t v;
	} *at; /* owned */
	size_t n, cap;
};
/* The value at row (0 before the first step). */
int64_t csvt_steps_at(const struct csvt_steps *s, size_t row);

struct csv_table {
	char *path; /* owned */
	enum csv_kind kind;
	size_t ncols;
	char **headers;   /* owned, as read (UTF-8 after conversion) */
	int *header_col;  /* owned: per header position: canonical column or -1 */
	int col_at[CSV_COL_COUNT]; /* canonical column -> index into cols, or -1 */
	struct csv_column *cols; /* owned: the typed columns */
	size_t n_typed;
	size_t nrows, cap_rows;
	/* Where each data row starts: the low 32 bits of its byte offset in its file, per row;
	 * the high bits and the 1-based line (as line - row, which moves only after a blank
	 * line or a cell over several lines) change rarely, so they are kept where they
	 * change. 4 bytes a row instead of 12. Read them through csvt_row_off and csvt_line. */
	uint32_t *row_off_lo; /* owned */
	struct csvt_steps off_high, line_skew;
	struct strtab *strs; /* owned: the cells' strings */
	uint64_t file_size;
	bool bom, crlf, gbk;
	size_t ragged_rows, excel_numbers, bad_numbers;
	const char *mem; /* borrowed buffer for csvt_load_buffer, or a built table's cells; else NULL */
	int data_fd;     /* owned, for csvt_load_fd: cells are read again from it; else -1 */
	size_t mem_len;
	char *mem_owned; /* a UTF-16 file converted to UTF-8 (then mem), owned; else NULL */
	/* A table built from cells (csvt_build_*): its cells (spilled, owned; then mem too),
	 * row after row, which the row offsets point into; else NULL. */
	char *cells;
	/* A table read from several files (msprof's op_summary_slice_0_*.csv, _slice_1_ ...)
	 * lists them here, in row order; NULL/0 for a table from one file. */
	struct csvt_part *parts; /* owned */
	size_t n_parts;
	/* A table mapped from its index (trace_index.h): the typed columns and row_off_lo
	 * point into this read-only mapping, unmapped when the table is freed; else NULL. */
	void *map;
	size_t map_len;
};

struct csvt_part {
	char *path; /* owned */
	size_t first_row;
	uint64_t size;
	bool gbk;
};

/* Reads a CSV file: an owned table (csvt_free), like every csvt_load* below; NULL (with a
 * diagnostic) when it cannot be read or holds no header. */
struct csv_table *csvt_load(const char *path, struct diag_list *dl);
/* The same, refusing a file over max_bytes (0: no limit) with an error; limit_why says
 * where the limit comes from ("set by --max-csv-bytes"). */
struct csv_table *csvt_load_limited(const char *path, uint64_t max_bytes, const char *limit_why,
				    struct diag_list *dl);
/* The parse csvt_load does over its map of path: size bytes of fd mapped at map (both
 * borrowed). The file may shrink meanwhile: what its complete lines hold is kept and a
 * warning gives the offset (tests map, truncate, then call this). */
struct csv_table *csvt_load_map(const char *path, int fd, const char *map, size_t size,
				struct diag_list *dl);
/* The same over bytes in memory; `name` labels messages; buf is borrowed and must
 * outlive the table (cells are read from it). */
struct csv_table *csvt_load_buffer(const char *name, const char *buf, size_t len,
				   struct diag_list *dl);
/* The same over an open file (a temporary one: a table made from a Db), which the table
 * keeps (and closes when freed) to read cells again; `name` labels it. NULL (fd closed)
 * when nothing could be read. */
struct csv_table *csvt_load_fd(int fd, const char *name, struct diag_list *dl);
void csvt_free(struct csv_table *t);
/* A table built from cells in memory (a Db's tables, db_tables.c), row by row, the header
 * first: the table a CSV file of the same cells gives (a cell quoted when it holds a comma,
 * a quote, CR or LF, else its blanks trimmed as the file's reader trims them), with its
 * lines and messages, but no text to parse. The cells are kept (spilled) for drill-down. */
struct csvt_build;
struct csvt_build *csvt_build_begin(const char *name, struct diag_list *dl);
void csvt_build_cell(struct csvt_build *b, const char *s, size_t len);
void csvt_build_row(struct csvt_build *b); /* ends the row */
/* Number cells with their value: the text num_format_ns_as_us / num_format_g9 writes,
 * typed without reading it back where that reading gives exactly this value (a time of
 * 0 to NUM_TIME_MAX_NS; a double the formatter writes exactly), and then kept as the
 * value, its text written only when a cell's text is read (drill-down); else as text. */
void csvt_build_cell_time(struct csvt_build *b, int64_t ns);
void csvt_build_cell_num(struct csvt_build *b, double d);
/* The table (owned), or NULL (with a message) when it has no header; frees b. */
struct csv_table *csvt_build_end(struct csvt_build *b);
/* Appends src's rows to dst when both have the same header (slices of one table); src is
 * consumed on success. False, with both untouched, when the headers differ. */
bool csvt_append(struct csv_table *dst, struct csv_table *src);
/* The file a row was read from (the table's path unless it has parts; borrowed from t). */
const char *csvt_row_path(const struct csv_table *t, size_t row);

static inline bool csvt_has(const struct csv_table *t, enum csv_col c) { return t->col_at[c] >= 0; }
/* Typed accessors; rows are 0-based data rows (the header is not a row). Inline: the
 * analysis reads them per row of tables of a million rows (a call each was 40 % of the
 * kernel table's PMU figures). A column's type is csv_schema_type of its canonical
 * column, kept at hand in the column. */
static inline const struct csv_column *csvt_column(const struct csv_table *t, size_t row, enum csv_col c)
{
	return row < t->nrows && t->col_at[c] >= 0 ? &t->cols[t->col_at[c]] : NULL;
}
const char *csvt_str(const struct csv_table *t, size_t row, enum csv_col c); /* borrowed from t's strs */
static inline uint32_t csvt_str_id(const struct csv_table *t, size_t row, enum csv_col c)
{
	const struct csv_column *col = csvt_column(t, row, c);
	return col && col->type == CSVT_STR ? col->v.str[row] : 0;
}
static inline bool csvt_time(const struct csv_table *t, size_t row, enum csv_col c, int64_t *ns)
{
	const struct csv_column *col = csvt_column(t, row, c);
	if (!col || col->type != CSVT_TIME || col->v.time[row] == CSVT_MISSING_TIME)
		return false;
	*ns = col->v.time[row];
	return true;
}
static inline bool csvt_num(const struct csv_table *t, size_t row, enum csv_col c, double *v)
{
	const struct csv_column *col = csvt_column(t, row, c);
	if (!col)
		return false;
	double d;
	switch (col->type) {
	case CSVT_NUM: d = col->v.num[row]; break;
	case CSVT_RATIO: d = col->v.ratio[row]; break;
	case CSVT_TIME:
		if (col->v.time[row] == CSVT_MISSING_TIME)
			return false;
		d = (double)col->v.time[row] / 1000.0; /* as µs */
		break;
	default: return false;
	}
	if (isnan(d))
		return false;
	*v = d;
	return true;
}
static inline uint32_t csvt_line(const struct csv_table *t, size_t row)
{
	return (uint32_t)((int64_t)row + csvt_steps_at(&t->line_skew, row));
}
static inline uint64_t csvt_row_off(const struct csv_table *t, size_t row)
{
	return (uint64_t)csvt_steps_at(&t->off_high, row) << 32 | t->row_off_lo[row];
}

/* Every cell of a row, in header order, read again from the file. */
struct csv_cells {
	char **cells; /* owned strings */
	size_t n;
};
int csvt_row_cells(const struct csv_table *t, size_t row, struct csv_cells *out);
void csvt_cells_free(struct csv_cells *c);
/* Memory held (typed columns, row index, strings). */
size_t csvt_bytes(const struct csv_table *t);

/* The line scan's instruction sets: the baseline (SSE2 on x86-64, else byte loops),
 * AVX-512 BW, chosen at start-up where the CPU has it, and NEON, built and chosen on
 * aarch64 ($ASCPROF_CSV_SCAN=base|avx512|neon picks one). Every set gives the same
 * tables. csvt_isa_set is for tests and benchmarks: call it before any parse, on one
 * thread. */
enum csvt_isa { CSVT_ISA_BASE, CSVT_ISA_AVX512, CSVT_ISA_NEON, CSVT_ISA_COUNT };
bool csvt_isa_available(enum csvt_isa isa);
const char *csvt_isa_name(enum csvt_isa isa); /* static */
enum csvt_isa csvt_isa_used(void);
bool csvt_isa_set(enum csvt_isa isa);

#endif
