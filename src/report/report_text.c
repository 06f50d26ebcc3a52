/* SPDX-License-Identifier: MIT */
/* The reports' text helpers: padding by display width, values with their units, the
 * attribution bar. Below report.c and its sections, which all call them. */
#include "report_text.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <uniwidth.h>

#include "jsonw.h"

const char *report_value_text(double v, const char *unit, bool sign, char *buf, size_t size)
{
	if (isnan(v)) {
		snprintf(buf, size, "n/a");
		return buf;
	}
	const char *plus = sign && v >= 0 ? "+" : "";
	if (!strcmp(unit, "us")) {
		double a = fabs(v);
		if (a >= 1e6)
			snprintf(buf, size, "%s%.3f s", plus, v / 1e6);
		else if (a >= 1e3)
			snprintf(buf, size, "%s%.3f ms", plus, v / 1e3);
		else
			snprintf(buf, size, "%s%.3f us", plus, v);
	} else if (!strcmp(unit, "%")) {
		/* a delta of a share is in percentage points: "-2.01 %" beside a "delta %" of
		 * -3.38 % read as two different relative changes */
		snprintf(buf, size, sign ? "%s%.2f pp" : "%s%.2f %%", plus, v);
	} else if (!strcmp(unit, "count")) {
		snprintf(buf, size, "%s%.0f", plus, v);
	} else if (!strcmp(unit, "ratio")) {
		snprintf(buf, size, "%s%.3f", plus, v);
	} else {
		snprintf(buf, size, "%s%.2f %s", plus, v, unit);
	}
	return buf;
}

const char *report_metric_text(const struct rank_analysis *ra, enum metric_id m, char *buf, size_t size)
{
	return report_value_text(ra->have[m] ? ra->v[m] : NAN, metric_defs[m].unit, false, buf, size);
}

void report_attribution_bar(const struct attribution *a, char *buf, size_t width)
{
	/* largest remainder: each bucket gets floor(share * width) cells, the cells left go to
	 * the largest remainders, so the bar is always exactly width cells */
	size_t cells[ATTR_COUNT], used = 0;
	double rem[ATTR_COUNT];
	for (int k = 0; k < ATTR_COUNT; k++) {
		double x = a->wall_ns > 0 ? (double)a->ns[k] * (double)width / (double)a->wall_ns : 0;
		cells[k] = (size_t)x;
		rem[k] = x - (double)cells[k];
		used += cells[k];
	}
	while (used < width && a->wall_ns > 0) {
		int best = 0;
		for (int k = 1; k < ATTR_COUNT; k++)
			if (rem[k] > rem[best])
				best = k;
		cells[best]++;
		rem[best] = -1;
		used++;
	}
	size_t p = 0;
	/* in time order as far as it is known: leading edge first would need the split; the
	 * bar shows shares, edge idle last */
	for (int k = 0; k < ATTR_COUNT; k++)
		for (size_t i = 0; i < cells[k] && p < width; i++)
			buf[p++] = attr_bucket_defs[k].letter;
	while (p < width)
		buf[p++] = ' ';
	buf[p] = 0;
}

void report_put_padded(FILE *out, const char *s, int width)
{
	int w = u8_strwidth((const uint8_t *)s, "UTF-8");
	fputs(s, out);
	for (; w < width; w++)
		fputc(' ', out);
}

void report_put_right(FILE *out, const char *s, int width)
{
	for (int w = u8_strwidth((const uint8_t *)s, "UTF-8"); w < width; w++)
		fputc(' ', out);
	fputs(s, out);
}

/* NaN in a field that shows it as unknown ("-", null) rather than as a number */
static bool report_field_unknown(const struct report_field *f, double v)
{
	return isnan(v) && (f->kind == RF_COUNT || f->kind == RF_NS || f->kind == RF_OPT);
}

/* A field's double back as the integer it came from, held to the integer's range: a time near
 * INT64_MAX (a capture's wild timestamp) rounds up to 2^63 as a double, out of int64's range. */
static int64_t report_field_i64(double v)
{
	return v >= 9223372036854775807.0 ? INT64_MAX : v <= -9223372036854775808.0 ? INT64_MIN : (int64_t)v;
}

static uint64_t report_field_u64(double v)
{
	return !(v > 0) ? 0 : v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
}

void report_fields_text(FILE *out, const struct report_field *f, size_t n, const void *row, const void *ctx,
			int squeeze)
{
	for (int col = 0; col < (int)n; col++)
		for (size_t k = 0; k < n; k++) {
			if (f[k].text_col != col)
				continue;
			double v = f[k].get(row, ctx);
			int width = f[k].width - (col ? 0 : squeeze);
			if (report_field_unknown(&f[k], v))
				fprintf(out, " %*s", width, "-");
			else if (f[k].kind == RF_COUNT)
				fprintf(out, " %*llu", width, (unsigned long long)report_field_u64(v));
			else
				fprintf(out, " %*.*f%s", width, f[k].text_decimals, v / f[k].text_div,
					f[k].kind == RF_PCT ? "%" : "");
		}
}

void report_fields_json(struct jsonw *w, const struct report_field *f, size_t n, const void *row, const void *ctx)
{
	for (size_t k = 0; k < n; k++) {
		double v = f[k].get(row, ctx);
		if (f[k].kind != RF_OPT && report_field_unknown(&f[k], v))
			jsonw_knull(w, f[k].key);
		else if (f[k].kind == RF_COUNT)
			jsonw_kuint(w, f[k].key, report_field_u64(v));
		else if (f[k].kind == RF_NS)
			jsonw_kus(w, f[k].key, report_field_i64(v));
		else
			jsonw_kdouble(w, f[k].key, v / f[k].json_div, f[k].json_decimals);
	}
}
