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

struct jsonw;
/* One figure of a report table's row, written by both the text and the JSON, so the two
 * carry the same fields: the JSON's key, the text's column (text_col: its place among the
 * text's columns, which may differ from the JSON's order; -1: JSON only). get returns the
 * raw value (nanoseconds for times); each side divides it by its own divisor. */
struct report_field {
	const char *key;
	enum report_field_kind {
		RF_COUNT,  /* a whole count: an integer in both; NaN: "-" and null (unknown) */
		RF_NS,     /* nanoseconds: the text's unit by text_div, the JSON's in µs (jsonw_kus);
			    * NaN: "-" and null */
		RF_DOUBLE, /* a number, json_decimals in the JSON */
		RF_OPT,    /* as RF_DOUBLE, but NaN is "-" in the text (null in the JSON) */
		RF_PCT,    /* as RF_DOUBLE, with "%" after it in the text */
	} kind;
	int text_col, width, text_decimals;
	double text_div, json_div;
	int json_decimals;
	double (*get)(const void *row, const void *ctx);
};
/* A row's text columns, each " " and the figure in its width, in text_col order; the first
 * column squeeze columns narrower (a wide cell before it gives its extra width back). */
void report_fields_text(FILE *out, const struct report_field *f, size_t n, const void *row, const void *ctx,
			int squeeze);
/* A row's figures as JSON keys, in the table's order. */
void report_fields_json(struct jsonw *w, const struct report_field *f, size_t n, const void *row, const void *ctx);

#endif
