/* SPDX-License-Identifier: MIT */
/* The CSV table reader over arbitrary bytes: load, then every cell of the first rows read
 * again (the drill-down path) and the typed accessors. The one-pass time parser the
 * readers use (num_time_ns_exp) is held to num_time_ns and num_has_exponent on the
 * input's first bytes. */
#include <stdint.h>
#include <stdlib.h>

#include "csv_table.h"
#include "diag.h"
#include "num.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (size_t n = 0; n <= size && n <= 48; n++) {
		int64_t a = 0, b = 0;
		bool exponent;
		enum num_status sa = num_time_ns_exp((const char *)data, n, &a, &exponent);
		enum num_status sb = num_time_ns((const char *)data, n, &b, NULL);
		if (sa != sb || (sa == NUM_OK && a != b) || exponent != num_has_exponent((const char *)data, n))
			abort();
	}
	struct diag_list dl;
	diag_init(&dl);
	struct csv_table *t = csvt_load_buffer("fuzz.csv", (const char *)data, size, &dl);
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
