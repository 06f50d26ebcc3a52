/* SPDX-License-Identifier: MIT */
/* `--report`: the analysis as text for people and as JSON for scripts. Both print the
 * same numbers, from the metric table in analysis.h; capture strings are sanitised. */
#ifndef ASCPROF_REPORT_H
#define ASCPROF_REPORT_H

#include <stdio.h>

#include "analysis.h"

/* How many ops per scope the reports list. */
#define REPORT_TOP_OPS 15

void report_print_text(const struct analysis *an, FILE *out);
void report_print_json(const struct analysis *an, FILE *out);
struct jsonw;
/* The memory section (report_memory.c); nothing / null without memory tables. */
void report_memory_text(const struct rank_analysis *ra, FILE *out);
void report_memory_json(struct jsonw *w, const struct rank_analysis *ra);
/* A metric's value as text with its unit ("12.345 ms", "34.5 %", "1234"), or "n/a". */
const char *report_metric_text(const struct rank_analysis *ra, enum metric_id m, char *buf, size_t size);

#endif
