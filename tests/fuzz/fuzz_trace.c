/* SPDX-License-Identifier: MIT */
/* The trace loader over arbitrary bytes: load, then the lazy args of a few events, the
 * way the op detail view reads them. */
#include <stdint.h>
#include <stdlib.h>

#include "diag.h"
#include "store.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rank_store rs;
	struct diag_list dl;
	store_init(&rs);
	diag_init(&dl);
	struct trace_load_opts opts = {.threads = 1};
	if (trace_load_buffer(&rs, "fuzz.json", (const char *)data, size, &opts, &dl) == 0) {
		struct sbuf out = SBUF_INIT;
		for (size_t e = 0; e < rs.n_ev && e < 8; e++)
			trace_event_args(&rs, e, &out);
		sbuf_free(&out);
	}
	for (size_t i = 0; i < dl.n; i++)
		free(diag_format(&dl.items[i]));
	store_free(&rs);
	diag_free(&dl);
	return 0;
}
