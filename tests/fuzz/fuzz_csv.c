/* SPDX-License-Identifier: MIT */
/* The CSV table reader over arbitrary bytes: load, then every cell of the first rows read
 * again (the drill-down path) and the typed accessors. The one-pass time parser the
 * readers use (num_time_ns_exp) is held to num_time_ns and num_has_exponent on the
 * input's first bytes, and num_double's fast path to strtod (bit for bit when it reads a
 * number), and the line splitter to libcsv, with each instruction set of its line scan. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csv_table.h"
#include "diag.h"
#include "num.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_num(double x, double y) { return memcmp(&x, &y, sizeof x) == 0; }

/* The line splitter's tables against libcsv's own (ASCPROF_LIBCSV_ONLY=1): the same rows,
 * offsets, lines and typed cells. */
static void compare_with_libcsv(const struct csv_table *a, const char *data, size_t size)
{
	struct diag_list dl;
	diag_init(&dl);
	setenv("ASCPROF_LIBCSV_ONLY", "1", 1);
	struct csv_table *b = csvt_load_buffer("fuzz.csv", data, size, &dl);
	unsetenv("ASCPROF_LIBCSV_ONLY");
	if ((a == NULL) != (b == NULL))
		abort();
	if (a) {
		if (a->ncols != b->ncols || a->nrows != b->nrows || a->ragged_rows != b->ragged_rows ||
		    a->bad_numbers != b->bad_numbers || a->excel_numbers != b->excel_numbers)
			abort();
		for (size_t r = 0; r < a->nrows; r++) {
			if (csvt_row_off(a, r) != csvt_row_off(b, r) || csvt_line(a, r) != csvt_line(b, r))
				abort();
			for (int c = 0; c < CSV_COL_COUNT; c++) {
				if (csvt_has(a, (enum csv_col)c) != csvt_has(b, (enum csv_col)c))
					abort();
				if (!csvt_has(a, (enum csv_col)c))
					continue;
				if (strcmp(csvt_str(a, r, (enum csv_col)c), csvt_str(b, r, (enum csv_col)c)))
					abort();
				int64_t x = 0, y = 0;
				double u = 0, v = 0;
				if (csvt_time(a, r, (enum csv_col)c, &x) != csvt_time(b, r, (enum csv_col)c, &y) || x != y ||
				    csvt_num(a, r, (enum csv_col)c, &u) != csvt_num(b, r, (enum csv_col)c, &v) ||
				    !same_num(u, v))
					abort();
			}
		}
	}
	csvt_free(b);
	for (size_t i = 0; i < dl.n; i++)
		free(diag_format(&dl.items[i]));
	diag_free(&dl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (size_t n = 0; n <= size && n <= 48; n++) {
		int64_t a = 0, b = 0;
		bool exponent;
		enum num_status sa = num_time_ns_exp((const char *)data, n, &a, &exponent);
		enum num_status sb = num_time_ns((const char *)data, n, &b, NULL);
		if (sa != sb || (sa == NUM_OK && a != b) || exponent != num_has_exponent((const char *)data, n))
			abort();
		double d;
		if (num_double((const char *)data, n, &d) == NUM_OK) {
			char buf[64];
			memcpy(buf, data, n);
			buf[n] = '\0';
			char *end;
			double want = strtod(buf, &end);
			/* strtod stops at trailing blanks that num_double trims */
			if (end == buf || memcmp(&d, &want, sizeof d))
				abort();
		}
	}
	struct diag_list dl;
	diag_init(&dl);
	struct csv_table *t = csvt_load_buffer("fuzz.csv", (const char *)data, size, &dl);
	compare_with_libcsv(t, (const char *)data, size);
	/* the line scan's other instruction sets (where the CPU has them) against libcsv too */
	enum csvt_isa used = csvt_isa_used();
	for (int i = 0; i < CSVT_ISA_COUNT; i++) {
		if ((enum csvt_isa)i == used || !csvt_isa_set((enum csvt_isa)i))
			continue;
		struct diag_list other;
		diag_init(&other);
		struct csv_table *u = csvt_load_buffer("fuzz.csv", (const char *)data, size, &other);
		compare_with_libcsv(u, (const char *)data, size);
		csvt_free(u);
		diag_free(&other);
		csvt_isa_set(used);
	}
	if (t) {
		for (size_t r = 0; r < t->nrows && r < 16; r++) {
			struct csv_cells cells;
			if (csvt_row_cells(t, r, &cells) == 0)
				csvt_cells_free(&cells);
			for (int c = 0; c < CSV_COL_COUNT; c++) {
				int64_t ns;
				double v;
				if (!csvt_has(t, (enum csv_col)c))
					continue;
				(void)csvt_str(t, r, (enum csv_col)c);
				(void)csvt_time(t, r, (enum csv_col)c, &ns);
				(void)csvt_num(t, r, (enum csv_col)c, &v);
			}
		}
		csvt_free(t);
	}
	for (size_t i = 0; i < dl.n; i++)
		free(diag_format(&dl.items[i]));
	diag_free(&dl);
	return 0;
}
