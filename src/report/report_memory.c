/* SPDX-License-Identifier: MIT */
/* The memory section of the text and JSON reports (memory.h has the figures). */
#include "i18n.h"
#include "report.h"

#include <math.h>
#include <string.h>

#include "csv_table.h"
#include "jsonw.h"
#include "summary.h"

#define TEXT_TOP 8

/* An ASCII sparkline of the curve, `width` characters: scripts and pipes get plain text. */
static void text_curve(FILE *out, const struct mem_analysis *m, int width)
{
	static const char ramp[] = " .:-=+*#%@";
	double lo = INFINITY, hi = -INFINITY;
	for (int i = 0; i < m->n_curve; i++) {
		lo = fmin(lo, m->curve[i]);
		hi = fmax(hi, m->curve[i]);
	}
	fputs("  |", out);
	for (int x = 0; x < width; x++) {
		int a = x * m->n_curve / width, b = (x + 1) * m->n_curve / width;
		double v = -INFINITY;
		for (int i = a; i < b || i == a; i++)
			v = fmax(v, m->curve[i]);
		/* held to 0..9 before lround: an empty column is -inf, whose lround is unspecified */
		double y = hi > lo ? (v - lo) / (hi - lo) * 9.0 : 9;
		int level = y > 0 ? (y < 9 ? (int)lround(y) : 9) : 0;
		fputc(ramp[level], out);
	}
	fprintf(out, _("|  %.1f .. %.1f MB over %.3f ms\n"), lo, hi, (double)(m->curve_t1 - m->curve_t0) / 1e6);
}

static void text_mb(FILE *out, double v)
{
	if (isnan(v))
		fprintf(out, " %12s", "-");
	else
		fprintf(out, " %12.1f", v);
}

static void text_components(FILE *out, const struct mem_component *c, size_t n, int64_t t0, bool modules)
{
	fputs(modules ? /* TRANSLATORS: column titles: each keeps the cells of its column */
		      _("    peak reserved MB  samples  peak at ms  module\n")
		      : /* TRANSLATORS: column titles: each keeps the cells of its column */
		      _("    peak alloc MB  peak reserved  peak active  samples  peak at ms  component\n"),
	      out);
	for (size_t i = 0; i < n && i < TEXT_TOP; i++) {
		fputs("   ", out);
		if (!modules)
			text_mb(out, c[i].peak_allocated_mb);
		text_mb(out, c[i].peak_reserved_mb);
		if (!modules)
			text_mb(out, c[i].peak_active_mb);
		fprintf(out, " %8zu %11.3f  ", c[i].samples, c[i].peak_ts ? (double)(c[i].peak_ts - t0) / 1e6 : 0.0);
		summary_put_clean(out, c[i].name);
		fputc('\n', out);
	}
	if (n > TEXT_TOP)
		fprintf(out, _("    ... %zu more (see --json)\n"), n - TEXT_TOP);
}

void report_memory_text(const struct rank_analysis *ra, FILE *out)
{
	const struct mem_analysis *m = &ra->mem;
	if (!m->record && !m->modules && !m->ops)
		return;
	fputs(m->record_in_kb || m->modules_in_kb ? _("\nmemory (MB; Class B tables in KB, converted)\n")
						  : _("\nmemory (MB)\n"),
	      out);
	if (m->record) {
		fputs(_("  components ("), out);
		summary_put_clean(out, m->record->path);
		/* TRANSLATORS: closes "  components (" and "  modules (" after the file's path */
		fputs(_("):\n"), out);
		text_components(out, m->comps, m->n_comps, ra->t0, false);
	}
	if (m->n_curve) {
		fprintf(out, _("  %s %s over time:\n"), m->curve_component, m->curve_field);
		text_curve(out, m, 60);
	}
	if (m->modules) {
		fputs(_("  modules ("), out);
		summary_put_clean(out, m->modules->path);
		fputs(_("):\n"), out);
		text_components(out, m->mods, m->n_mods, ra->t0, true);
	}
	if (m->ops) {
		fprintf(out, _("  allocations: %zu, %.1f MB in all, %zu negative sizes, %zu not released in the capture\n"),
			m->n_allocs, m->total_alloc_mb, m->negative_sizes, m->never_released);
		/* TRANSLATORS: column titles: each keeps the cells of its column */
		fputs(_("         size MB   held ms  name\n"), out);
		for (size_t i = 0; i < m->n_top && i < TEXT_TOP; i++) {
			const struct mem_alloc *a = &m->top[i];
			char held[32] = "-";
			if (a->duration_ns >= 0)
				snprintf(held, sizeof held, "%.3f", (double)a->duration_ns / 1e6);
			fprintf(out, "    %12.3f %9s  ", a->size_mb, held);
			summary_put_clean(out, a->name);
			fputc('\n', out);
		}
	}
}


static void json_components(struct jsonw *w, const char *key, const struct mem_component *c, size_t n,
			    const struct csv_table *t, int64_t t0)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", c[i].name);
		jsonw_kuint(w, "samples", c[i].samples);
		jsonw_kdouble(w, "peak_allocated_mb", c[i].peak_allocated_mb, 3);
		jsonw_kdouble(w, "peak_reserved_mb", c[i].peak_reserved_mb, 3);
		jsonw_kdouble(w, "peak_active_mb", c[i].peak_active_mb, 3);
		jsonw_kdouble(w, "peak_at_us", c[i].peak_ts ? (double)(c[i].peak_ts - t0) / 1e3 : NAN, 3);
		jsonw_kuint(w, "peak_line", csvt_line(t, c[i].peak_row));
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

void report_memory_json(struct jsonw *w, const struct rank_analysis *ra)
{
	const struct mem_analysis *m = &ra->mem;
	jsonw_key(w, "memory");
	if (!m->record && !m->modules && !m->ops) {
		jsonw_null(w);
		return;
	}
	jsonw_obj_begin(w);
	jsonw_kstr(w, "unit", "MB");
	jsonw_kbool(w, "converted_from_kb", m->record_in_kb || m->modules_in_kb);
	if (m->record)
		json_components(w, "components", m->comps, m->n_comps, m->record, ra->t0);
	if (m->modules)
		json_components(w, "modules", m->mods, m->n_mods, m->modules, ra->t0);
	if (m->n_curve) {
		jsonw_key(w, "curve");
		jsonw_obj_begin(w);
		jsonw_kstr(w, "component", m->curve_component);
		jsonw_kstr(w, "field", m->curve_field);
		jsonw_kus(w, "start_us", m->curve_t0 - ra->t0);
		jsonw_kus(w, "end_us", m->curve_t1 - ra->t0);
		jsonw_key(w, "max_mb_per_bucket");
		jsonw_arr_begin(w);
		for (int i = 0; i < m->n_curve; i++)
			jsonw_double(w, m->curve[i], 3);
		jsonw_arr_end(w);
		jsonw_obj_end(w);
	}
	if (m->ops) {
		jsonw_key(w, "allocations");
		jsonw_obj_begin(w);
		jsonw_kuint(w, "count", m->n_allocs);
		jsonw_kdouble(w, "total_mb", m->total_alloc_mb, 3);
		jsonw_kuint(w, "negative_sizes", m->negative_sizes);
		jsonw_kuint(w, "never_released", m->never_released);
		jsonw_key(w, "largest");
		jsonw_arr_begin(w);
		for (size_t i = 0; i < m->n_top; i++) {
			jsonw_obj_begin(w);
			jsonw_kstr(w, "name", m->top[i].name);
			jsonw_kdouble(w, "size_mb", m->top[i].size_mb, 3);
			jsonw_kdouble(w, "held_us", m->top[i].duration_ns >= 0 ? (double)m->top[i].duration_ns / 1e3 : NAN, 3);
			jsonw_kuint(w, "line", csvt_line(m->ops, m->top[i].row));
			jsonw_obj_end(w);
		}
		jsonw_arr_end(w);
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
}
