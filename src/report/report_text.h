/* SPDX-License-Identifier: MIT */
/* The reports' text helpers (report.c, its sections, the compare report, the explorer's
 * compare view): padding by display width, values with their units, the attribution bar. */
#ifndef ASCPROF_REPORT_TEXT_H
#define ASCPROF_REPORT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "result.h"

/* s, then spaces up to width columns of display width: a translated name has CJK
 * characters of two columns each, which printf's %-14s would count in bytes. */
void report_put_padded(FILE *out, const char *s, int width);
/* s right-aligned in width display columns (CJK text takes two a character). */
void report_put_right(FILE *out, const char *s, int width);

/* The attribution as a bar of width cells (one letter per bucket, shares by largest
 * remainder; buf holds width + 1 bytes). */
void report_attribution_bar(const struct attribution *a, char *buf, size_t width);
/* A metric's value as text with its unit ("12.345 ms", "34.5 %", "1234"), or "n/a";
 * written to buf, which is returned (as by report_value_text). */
const char *report_metric_text(const struct rank_analysis *ra, enum metric_id m, char *buf, size_t size);
/* A value in a metric unit as text; NaN is "n/a"; sign: a '+' before values >= 0. */
const char *report_value_text(double v, const char *unit, bool sign, char *buf, size_t size);

#endif
