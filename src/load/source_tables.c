/* SPDX-License-Identifier: MIT */
/* The tables source: a rank with no timeline file, read from its CSV tables alone (a
 * lone kernel_details.csv, an export whose trace was left behind). The analysis reads
 * the tables; the explorer's device lanes come from the kernel table (kernel_timeline.h),
 * made while the capture loads when the front end asks for them (capture_opts.timelines). */
#include "config.h"
#include "capture.h"

#include "kernel_timeline.h"

static bool source_tables_probe(struct rank_data *rd, enum capture_source want, struct diag_list *dl)
{
	(void)rd;
	(void)want;
	(void)dl;
	return true;
}

static uint64_t source_tables_load_bytes(const struct rank_data *rd)
{
	(void)rd;
	return 0;
}

static struct kernel_timeline *source_tables_timeline(const struct rank_data *rd)
{
	return kernel_timeline_build(rd->by_kind[CSV_KERNEL]);
}

const struct source_ops source_tables = {
	.name = "tables",
	.probe = source_tables_probe,
	.load_bytes = source_tables_load_bytes,
	.csv_files = true,
	.comm_files = true,
	.timeline = source_tables_timeline,
	/* a kernel timeline's store: its offsets are the kernel table's rows */
	.entry_text = kernel_timeline_row_json,
	.event_args = kernel_timeline_row_args,
};
