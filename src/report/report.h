/* SPDX-License-Identifier: MIT */
/* `--report`: the analysis as text for people and as JSON for scripts. Both print the
 * same numbers, from the metric table in analysis.h; capture strings are sanitised. */
#ifndef ASCPROF_REPORT_H
#define ASCPROF_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis.h"
#include "report_text.h"

/* How many ops per scope the reports list. */
#define REPORT_TOP_OPS 15

void report_print_text(const struct analysis *an, FILE *out);
void report_print_json(const struct analysis *an, FILE *out);
struct jsonw;
/* The memory section (report_memory.c); nothing / null without memory tables. */
void report_memory_text(const struct rank_analysis *ra, FILE *out);
/* The report's attribution section (report_text.h draws its bar). */
void report_attribution_text(const struct rank_analysis *ra, FILE *out);
void report_memory_json(struct jsonw *w, const struct rank_analysis *ra);
/* The advice section (report_advice.c): nothing / an empty array without findings. */
void report_advice_text(const struct rank_analysis *ra, FILE *out);
void report_advice_json(struct jsonw *w, const struct rank_analysis *ra);
/* The per-phase section (report_phase.c): nothing / null without step windows. */
void report_phase_text(const struct rank_analysis *ra, FILE *out);
void report_phase_json(struct jsonw *w, const struct rank_analysis *ra);
/* The gaps section (report_gaps.c): nothing / null without a timeline. */
void report_gaps_text(const struct rank_analysis *ra, FILE *out);
void report_gaps_json(struct jsonw *w, const struct rank_analysis *ra);
/* The communication section (report_comm.c): nothing / null when the capture has none. */
void report_comm_text(const struct analysis *an, FILE *out);
void report_comm_json(struct jsonw *w, const struct analysis *an);
/* The cluster section (report_cluster.c): ranks x steps, slow ranks, groups; nothing / null
 * below two ranks. */
void report_cluster_text(const struct analysis *an, FILE *out);
void report_cluster_json(struct jsonw *w, const struct analysis *an);
/* The serving section (service.h), when the capture holds MS Service Profiler output. */
void report_serving_text(const struct analysis *an, FILE *out);
void report_serving_json(struct jsonw *w, const struct analysis *an);
/* report_moe.c: the MoE section (moe.h); JSON `moe`, null with `moe_absent` without MoE */
void report_moe_text(const struct analysis *an, FILE *out);
void report_moe_json(struct jsonw *w, const struct analysis *an);

/* `--report --compare` and `--compare-ranks` (compare_report.c). */
struct comparison;
void report_compare_text(const struct comparison *c, FILE *out);
void report_compare_json(const struct comparison *c, FILE *out);
/* "device  compute 95.1 -> 94.2  copy ..." for a scope: categories with a share on a side
 * (written to buf, which is returned). */
struct compare_pair;
const char *report_compare_categories(const struct compare_pair *p, int scope, char *buf, size_t size);

/* The collectives named on their own (comm_split.h), text and JSON (report_comm.c). */
void report_outliers_text(const struct rank_analysis *ra, FILE *out);
void report_outliers_json(struct jsonw *w, const struct rank_analysis *ra);

#endif
